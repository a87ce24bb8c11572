"""Finding identity: what makes a finding "the same" on two trees, and whether it is new.

This is the one place that decides it. A finding is identified by (rule, object, key): the
object's ``Kind/namespace/name`` and the *stable* field path, in which list indices are
replaced by item names where the list has them (containers, env, volumes, ports, flags of
``args`` ...). Lines move and containers swap places; identities do not. File-level findings
(syntax, kustomization entries) are identified by the rule's own key, else file and message.

The same identity gives SARIF's ``partialFingerprints`` (:attr:`Finding.fingerprint`), the
forges' hidden inline-comment markers, and review's ``new`` verdict (:func:`mark_new`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from reviewbot.diff.paths import stable_path
from reviewbot.engine.findings import Finding
from reviewbot.model.objects import KObject, Path


def stable_key(obj: KObject | None, path: Path, key: str | None) -> str:
    """The identity's field part: the rule's own ``key``, else the stable path in ``obj``."""
    if key:
        return key
    if obj is None or not path:
        return ""
    return stable_path(obj.body, path)


def identity(finding: Finding, renames: Mapping[str, str] | None = None) -> tuple[str, str, str]:
    """``finding.identity``, with a base object's ref mapped to its head ref when the PR
    renamed it (``renames``: base ref -> head ref)."""
    rule, ref, key = finding.identity
    if renames and ref:
        ref = renames.get(ref, ref)
    return (rule, ref, key)


def mark_new(head: Sequence[Finding], base: Sequence[Finding],
             renames: Mapping[str, str] | None = None) -> list[Finding]:
    """The head's findings, each marked new when no base finding has its identity."""
    known = {identity(f, renames) for f in base}
    return [replace(f, new=f.identity not in known) for f in head]


def fixed(base: Sequence[Finding], head: Sequence[Finding],
          renames: Mapping[str, str] | None = None) -> list[Finding]:
    """The base's findings no head finding has the identity of: what the PR fixes."""
    now = {f.identity for f in head}
    return [replace(f, new=False) for f in base if identity(f, renames) not in now]
