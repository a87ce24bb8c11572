"""Finding identity: what makes a finding "the same" on two trees, and whether it is new.

This is the one place that decides it. A finding is identified by (rule, object, key): the
object's ``Kind/namespace/name`` and the *stable* field path, in which list indices are
replaced by item names where the list has them (containers, env, volumes, ports, flags of
``args`` ...). Lines move and containers swap places; identities do not. File-level findings
(syntax, kustomization entries) are identified by the rule's own key, else file and message.

In a repository of several clusters the identity also holds the clusters the object reaches
(:attr:`Finding.clusters`): production's ``Deployment/shop/web`` and staging's are two
objects, so a finding on one never makes the same finding on the other "existing". Two
findings match when their clusters overlap (an object two clusters built alike, then
differently, keeps its findings), or when either side names none (a tree without clusters,
a file-level finding).

The same identity gives SARIF's ``partialFingerprints`` (:func:`fingerprint`), the forges'
hidden inline-comment markers, and review's ``new`` verdict (:func:`mark_new`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from reviewbot.load.paths import Path, stable_path

if TYPE_CHECKING:  # the model's types only: what reads findings (a report, --version) never
    # imports the model
    from reviewbot.model.objects import KObject, Model

Identity = tuple[str, str, str]


class Identified(Protocol):
    """What identity reads of a finding (``engine.findings.Finding``, which asks this module
    for its identity and fingerprint). Read-only: a finding is a frozen dataclass, changed
    only by ``dataclasses.replace``."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def rule(self) -> str: ...
    @property
    def object(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def clusters(self) -> tuple[str, ...]: ...


F = TypeVar("F", bound=Identified)


def stable_key(obj: KObject | None, path: Path, key: str | None) -> str:
    """The identity's field part: the rule's own ``key``, else the stable path in ``obj``."""
    if key:
        return key
    if obj is None or not path:
        return ""
    return stable_path(obj.body, path)


def clusters_of(model: Model | None, obj: KObject | None) -> tuple[str, ...]:
    """The clusters ``obj`` reaches, sorted: none when the tree holds one cluster (or no
    object); objects no cluster entry reaches are the default cluster's."""
    if model is None or obj is None or not model.cluster_entries:
        return ()
    from reviewbot.model.objects import (  # a model was built: imported
        DEFAULT_CLUSTER,
        clusters_holding,
    )
    return tuple(sorted(clusters_holding(model, obj) or (DEFAULT_CLUSTER,)))


def of(finding: Identified) -> Identity:
    """(rule, object, stable field path or the rule's key); a finding with neither object
    nor key is identified by its file and message."""
    where = finding.key or finding.path
    if finding.object or where:
        return (finding.rule, finding.object, where)
    return (finding.rule, "", f"{finding.file}:{finding.message}")


def fingerprint(finding: Identified) -> str:
    """The identity hashed (its clusters too, when the tree has several): SARIF
    partialFingerprints and the forges' comment markers. A file name's bytes that are no
    UTF-8 are hashed as those bytes."""
    import hashlib  # OpenSSL's start-up: paid by the outputs that hash (SARIF, the forges)

    text = "\0".join((*of(finding), *finding.clusters))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def identity(finding: Identified, renames: Mapping[str, str] | None = None) -> Identity:
    """``finding.identity``, with a base object's ref mapped to its head ref when the PR
    renamed it (``renames``: base ref -> head ref)."""
    rule, ref, key = of(finding)
    if renames and ref:
        ref = renames.get(ref, ref)
    return (rule, ref, key)


def _index(findings: Sequence[Identified], renames: Mapping[str, str] | None = None
           ) -> dict[Identity, list[frozenset[str]]]:
    out: dict[Identity, list[frozenset[str]]] = {}
    for f in findings:
        out.setdefault(identity(f, renames), []).append(frozenset(f.clusters))
    return out


def _known(found: list[frozenset[str]] | None, clusters: Sequence[str]) -> bool:
    """A finding of these clusters is among ``found`` (clusters of the same identity)."""
    if not found:
        return False
    mine = frozenset(clusters)
    return any(not other or not mine or other & mine for other in found)


def among(found: Sequence[Identified], renames: Mapping[str, str] | None = None,
          ) -> Callable[[Identified, Mapping[str, str] | None], bool]:
    """Whether a finding has the identity of one of ``found`` (in a cluster it reaches);
    ``renames`` map ``found``'s refs, the call's map the asked finding's."""
    known = _index(found, renames)

    def has(f: Identified, mine: Mapping[str, str] | None = None) -> bool:
        return _known(known.get(identity(f, mine)), f.clusters)

    return has


def mark_new(head: Sequence[F], base: Sequence[Identified],
             renames: Mapping[str, str] | None = None) -> list[F]:
    """The head's findings, each marked new when no base finding has its identity (in a
    cluster it reaches)."""
    known = among(base, renames)
    return [replace(f, new=not known(f, None)) for f in head]


def fixed(base: Sequence[F], head: Sequence[Identified],
          renames: Mapping[str, str] | None = None) -> list[F]:
    """The base's findings no head finding has the identity of: what the PR fixes."""
    now = among(head)
    return [replace(f, new=False) for f in base if not now(f, renames)]
