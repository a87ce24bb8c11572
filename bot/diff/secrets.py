"""Which values are secret, and how they are shown: by their keys and sizes, never a value.

One place for every path a secret value takes into an output:

- a Secret's (and SealedSecret's) ``data``/``stringData``, kustomize ``secretGenerator``
  literals, Secret-shaped Helm values (:func:`secret_object_path` and its siblings: which
  paths of a body hold secret values);
- a Secret written by a patch inside a kustomization (a JSON 6902 ``patch:``, an inline
  strategic-merge ``patch:``, a ``patchesStrategicMerge`` string): the patch is shown parsed,
  its secret values redacted (:func:`kustomization_comparable`);
- a Secret document inside a file named like a kustomization (it is diffed as a Secret);
- SOPS ciphertext (``ENC[...]``) anywhere: shown as "(encrypted)", without even its size;
- the lines of a file that hold any of these (:func:`hidden_lines`): never quoted as a
  finding's context, never printed as ``--fix --diff`` context.

A redacted value is a :class:`Redacted`: a digest keyed per process (equal values compare
equal; a digest that escaped would not let anyone test guesses) and a size.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from reviewbot.load.loader import Document, LoadedFile, key_text, load
from reviewbot.model import sops
from reviewbot.sources.tree import FileRecord, blob_id

_DIGEST_KEY = os.urandom(32)
SECRET_KINDS = frozenset({"Secret", "SealedSecret"})
KUSTOMIZATION_FILES = frozenset({"kustomization.yaml", "kustomization.yml", "Kustomization"})
ENCRYPTED = "encrypted"  # the unit of a SOPS value: shown without its size


@dataclass(frozen=True)
class Redacted:
    """A value that must not be shown: its digest compares, its size displays."""

    digest: str
    size: int
    unit: str

    def __str__(self) -> str:
        if self.unit == ENCRYPTED:
            return "(encrypted)"
        return f"(redacted, {self.size} {self.unit})"


def redact(value: Any, unit: str) -> Redacted:
    """``value`` as a :class:`Redacted`; SOPS ciphertext is "encrypted", sized 0."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    size = len(text)
    if sops.is_encrypted(text):
        unit, size = ENCRYPTED, 0
    elif unit == "bytes":
        try:
            size = len(base64.b64decode("".join(text.split()), validate=True))
        except (binascii.Error, ValueError):
            unit, size = "characters", len(text)
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), key=_DIGEST_KEY).hexdigest()
    return Redacted(digest, size, unit)


def redact_tree(value: Any, path: tuple[str, ...]) -> Any:
    """A secret mapping keeps its keys; every value below is redacted."""
    if isinstance(value, dict):
        return {key_text(k): redact_tree(v, (*path, key_text(k))) for k, v in value.items()}
    unit = "bytes" if path and path[0] == "data" else "characters"
    return redact(value, unit)


# ---------------------------------------------------------------- which paths are secret

_SECRET_ROOTS: tuple[tuple[str, ...], ...] = (
    ("data",), ("stringData",), ("binaryData",),  # Secret
    ("spec", "encryptedData"), ("spec", "template", "data"),  # SealedSecret
    ("spec", "template", "stringData"),
)

Secrecy = Callable[[tuple[str, ...]], bool]  # which paths of a body hold secret values


def secret_object_path(path: tuple[str, ...]) -> bool:
    """At or under a field of a Secret (or SealedSecret) that holds values."""
    return any(path[: len(root)] == root for root in _SECRET_ROOTS)


def secret_generator_path(path: tuple[str, ...]) -> bool:
    """A kustomization's ``secretGenerator`` literal (``comparable`` keys them by name)."""
    return len(path) >= 4 and path[0] == "secretGenerator" and path[2] == "literals"


SECRET_WORD = re.compile(
    r"passw(?:or)?d|secret|token|credential|api[-_]?key|private[-_]?key|client[-_]?key"
    r"|^(?:data|stringData)$", re.I)
_NOT_SECRET_LEAF = ("name", "ref", "enabled", "create", "annotations", "labels", "path",
                    "mountpath", "keyref", "optional", "type")


# what a ``data`` step of values is under when it is no Secret's data: app-template's
# ``persistence.data`` (a volume named data: its size and storage class), a ConfigMap's
# (a new-user trial read `storageClass ~ changed (16 -> 8 characters, value redacted)`)
_NOT_SECRET_DATA = ("persistence", "configmaps", "configmap", "volumes", "volumeclaimtemplates")


def secret_values_path(path: tuple[str, ...]) -> bool:
    """A Helm values field shaped like secret material: a step names a password, token,
    secret, credential or key (``auth.password``, ``secret.data.token``), or is a ``data``
    no step before it shows to be another's (:data:`_NOT_SECRET_DATA`), unless the
    field only names or enables one (``existingSecret`` stays shown when it ends in
    ``Name``...)."""
    if not path or not any(SECRET_WORD.search(step) and not (
            step in ("data", "stringData")
            and any(before.lower() in _NOT_SECRET_DATA for before in path[:i]))
            for i, step in enumerate(path)):
        return False
    return not path[-1].lower().endswith(_NOT_SECRET_LEAF)


def secret_release_path(path: tuple[str, ...]) -> bool:
    """A HelmRelease's inline values shaped like secret material."""
    return path[:2] == ("spec", "values") and secret_values_path(path[2:])


def secret_kustomization_path(path: tuple[str, ...]) -> bool:
    """A secretGenerator literal, or inline chart values shaped like secret material."""
    if len(path) > 3 and path[0] == "helmCharts" and path[2] == "valuesInline":
        return secret_values_path(path[3:])
    return secret_generator_path(path)


def is_secret(body: Any) -> bool:
    """A Secret or SealedSecret document (by its kind)."""
    return isinstance(body, dict) and str(body.get("kind")) in SECRET_KINDS


def secrecy_of(kind: str, group: str) -> Secrecy | None:
    """Which paths of an object of ``kind`` hold secret values (None: none do)."""
    if kind == "SealedSecret" or kind == "Secret" and group == "":
        return secret_object_path
    return secret_release_path if kind == "HelmRelease" else None


# ---------------------------------------------------------------- inline patches

_PATCH_KEYS = ("patches", "patchesJson6902")


def inline_patches(body: Mapping[str, Any]) -> Iterator[tuple[tuple[Any, ...], str, Any]]:
    """(path, text, target kind) of each patch written inline in a kustomization."""
    for key in _PATCH_KEYS:
        entries = body.get(key)
        for i, entry in enumerate(entries if isinstance(entries, list) else ()):
            if isinstance(entry, dict) and isinstance(entry.get("patch"), str):
                target = entry.get("target")
                kind = target.get("kind") if isinstance(target, dict) else None
                yield (key, i, "patch"), entry["patch"], kind
    entries = body.get("patchesStrategicMerge")
    for i, entry in enumerate(entries if isinstance(entries, list) else ()):
        if isinstance(entry, str) and ("\n" in entry or entry.lstrip().startswith("{")):
            yield ("patchesStrategicMerge", i), entry, None


def _parse(text: str) -> list[Any] | None:
    data = text.encode("utf-8", "surrogatepass")
    loaded = load(FileRecord("(inline patch)", blob_id(data), data))
    if loaded.problems or loaded.skipped:
        return None
    return [d.value for d in loaded.documents]


def _json_pointer(text: Any) -> tuple[str, ...]:
    if not isinstance(text, str):
        return ()
    return tuple(p.replace("~1", "/").replace("~0", "~") for p in text.split("/")[1:])


def redacted_patch(text: str, target_kind: Any) -> Any:
    """An inline patch as shown: itself when it writes no secret value; parsed, with every
    value it writes into a Secret redacted, when it does (or may: a JSON 6902 operation on
    a secret field of a target of any kind); wholly redacted when it holds SOPS ciphertext
    or does not parse but names a Secret."""
    secret_target = isinstance(target_kind, str) and target_kind in SECRET_KINDS
    # a target of another kind named (a ConfigMap's `/data/LOG_LEVEL`: new-user trial
    # eighty-six D7 read "value redacted" of a log level) writes no secret value
    other_target = isinstance(target_kind, str) and bool(target_kind) and not secret_target
    if sops.is_encrypted(text):
        return redact(text, "characters")
    if not secret_target and "data" not in text.lower() and "Secret" not in text:
        return text  # (every secret field is a data or stringData, or a SealedSecret's)
    docs = _parse(text)
    if docs is None:
        return redact(text, "characters") if secret_target or "Secret" in text else text
    changed = False
    out: list[Any] = []
    for doc in docs:
        if isinstance(doc, list):  # JSON 6902 operations
            ops = []
            for op in doc:
                path = _json_pointer(op.get("path")) if isinstance(op, dict) else ()
                if isinstance(op, dict) and "value" in op and (
                        secret_target or secret_object_path(path) and not other_target):
                    op = {**op, "value": redact_tree(op["value"], path or ("value",))}
                    changed = True
                ops.append(op)
            out.append(ops)
        elif isinstance(doc, dict) and (is_secret(doc) or secret_target):
            out.append({k: redact_tree(v, (k,)) if secret_object_path((k,)) else v
                        for k, v in doc.items()})
            changed = True
        else:
            out.append(doc)
    if not changed:
        return text
    return out[0] if len(out) == 1 else out


def kustomization_comparable(body: dict[str, Any]) -> dict[str, Any]:
    """A kustomization with each inline patch that writes a secret value shown parsed and
    redacted (:func:`redacted_patch`); the same body when none does."""
    out: dict[str, Any] | None = None
    for path, text, kind in inline_patches(body):
        shown = redacted_patch(text, kind)
        if shown is text:
            continue
        if out is None:
            out = dict(body)
        key, index = path[0], path[1]
        entries = list(out[key])
        entries[index] = {**entries[index], "patch": shown} if len(path) == 3 else shown
        out[key] = entries
    return body if out is None else out


# ---------------------------------------------------------------- lines never quoted


_HINTS = ("Secret", "secretGenerator", "ENC[AES256_GCM,", "sops", "/data", "/stringData",
          "/binaryData", "/spec/encryptedData", "/spec/template")


def hidden_lines(path: str, text: str) -> frozenset[int]:
    """The 1-based lines of a file that may hold a secret value: every line of a Secret or
    SealedSecret document (a kustomization file's too), of a SOPS-encrypted document, of a
    kustomization's ``secretGenerator`` (its literals) and of an inline patch that writes a
    Secret, and any line holding SOPS ciphertext. A file that
    does not parse hides every line."""
    lines = text.split("\n")
    if not any(hint in text for hint in _HINTS):
        return frozenset()  # (most files: no Secret, no ciphertext, no secret field written)
    data = text.encode("utf-8", "surrogateescape")
    loaded = load(FileRecord(path, blob_id(data), data))
    if loaded.problems or loaded.skipped:
        return frozenset(range(1, len(lines) + 1))
    hidden = {n for n, line in enumerate(lines, 1) if sops.is_encrypted(line)}
    starts = [d.line for d in loaded.documents] + [len(lines) + 1]
    kustomization = posixpath.basename(path) in KUSTOMIZATION_FILES
    for doc, end in zip(loaded.documents, starts[1:], strict=True):
        body = doc.value
        if is_secret(body) or sops.metadata(body) is not None:
            hidden.update(range(doc.line, max(end, doc.line + 1)))
        elif kustomization and isinstance(body, dict):
            if body.get("secretGenerator"):  # its literals are secret values in clear
                hidden.update(_block_lines(doc, body, "secretGenerator", end))
            for where, patch, kind in inline_patches(body):
                if redacted_patch(patch, kind) is not patch:
                    first = doc.position(where)[0]
                    hidden.update(range(first - 1, first + patch.count("\n") + 1))
    return frozenset(hidden)


def _block_lines(doc: Document, body: dict[str, Any], key: str, end: int) -> range:
    """The lines of top-level ``key``'s entry in ``doc``: from its key to the line before the
    next top-level key written after it (or the document's end, ``end``)."""
    first = doc.key_position((key,))[0]
    after = [line for line in (doc.key_position((k,))[0] for k in body if k != key)
             if line > first]
    return range(first, min(after, default=end))


def file_hidden_lines(loaded: LoadedFile) -> frozenset[int]:
    """:func:`hidden_lines` of a loaded file."""
    return hidden_lines(loaded.path, loaded.text)


def with_sops(body: Any, secret: Secrecy | None) -> Secrecy | None:
    """``secret`` and, in a SOPS-encrypted document, every value its rules encrypt (even
    one written in clear: it is a secret committed in clear). Its ``sops:`` block is shown
    as :func:`reviewbot.model.sops.summary` (the caller's comparable body)."""
    meta = sops.metadata(body)
    if meta is None:
        return secret
    rules = sops.Rules(meta)

    def encrypted(path: tuple[str, ...]) -> bool:
        if path[:1] == ("sops",):
            return False
        if secret is not None and secret(path):
            return True
        return rules.invalid or rules.encrypts(tuple(p for p in path if not p.isdigit()))

    return encrypted
