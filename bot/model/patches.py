"""kustomize patches: which a kustomization lists (``patchesStrategicMerge``, ``patches``,
``patchesJson6902``), which objects each targets, and JSON 6902 operations."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from reviewbot.load.loader import Document, LoadedFile
from reviewbot.model.fieldspecs import cluster_scoped
from reviewbot.model.resource import (
    Kustomization,
    Patch,
    Path,
    Resource,
    dict_of,
    document_as_written,
    join,
    list_of,
    parse_text,
)
from reviewbot.model.smp import apply_smp

Reader = Callable[[str], LoadedFile | None]  # a file of the tree by path, the read recorded

def _load_patch_file(read: Reader, folder: str, entry: str) -> list[Document]:
    lf = read(join(folder, entry.strip()))
    return list(lf.documents) if lf is not None else []


def strategic_patches(k: Kustomization, read: Reader) -> Iterator[Patch]:
    for i, entry in enumerate(list_of(k.body.get("patchesStrategicMerge"))):
        if not isinstance(entry, str):
            continue
        if "\n" in entry or entry.lstrip().startswith("{"):
            for doc in parse_text(k.file, entry):
                if isinstance(doc.value, dict):
                    yield Patch(document_as_written(doc), k.doc, ("patchesStrategicMerge", i))
            continue
        for doc in _load_patch_file(read, k.directory, entry):
            if isinstance(doc.value, dict):
                yield Patch(document_as_written(doc), doc, ())


def patches(
    k: Kustomization, read: Reader, key: str = "patches"
) -> Iterator[tuple[Mapping[str, Any] | None, Patch]]:
    for i, item in enumerate(list_of(k.body.get(key))):
        if not isinstance(item, dict):
            continue  # a bare string: kustomize v5 refuses the kustomization (integrity says)
        target = item.get("target")
        selector = target if isinstance(target, dict) else None
        docs: list[tuple[Any, Document, Path]] = []
        # a strategic merge patch's folded scalars are written as kustomize writes them
        # (a JSON 6902 patch's values are decoded to JSON: go-yaml never writes them)
        if isinstance(item.get("path"), str):
            docs = [(document_as_written(d) if isinstance(d.value, dict) else d.value, d, ())
                    for d in _load_patch_file(read, k.directory, item["path"])]
        elif isinstance(item.get("patch"), str):
            parsed = parse_text(k.file, item["patch"])
            docs = [(document_as_written(d) if isinstance(d.value, dict) else d.value, k.doc,
                     (key, i, "patch")) for d in parsed]
        for value, doc, where in docs:
            if isinstance(value, (dict, list)):
                yield selector, Patch(value, doc, where)


def json_patches(
    k: Kustomization, read: Reader
) -> Iterator[tuple[Mapping[str, Any] | None, Patch]]:
    for selector, patch in patches(k, read, "patchesJson6902"):
        if selector is not None:
            yield selector, patch


def smp_targets(r: Resource, patch: Patch) -> bool:
    body = patch.body
    if not isinstance(body, dict):
        return False
    meta = dict_of(body.get("metadata"))
    if body.get("kind") != r.kind:
        return False
    ns = meta.get("namespace")
    if cluster_scoped(str(body.get("apiVersion") or ""), r.kind):
        ns = None  # kyaml's ResId.EffectiveNamespace: one non-namespace for both sides
    if meta.get("name") == r.name and (
            not ns or ns == r.namespace or (ns == "default" and not r.namespace)):
        return True
    # kustomize finds a patch's target by any id it had: a base renamed it (prefix, suffix,
    # namespace), an overlay's patch names it as the base wrote it
    return any(name == meta.get("name") and (not ns or ns == namespace)
               for _, namespace, name in r.renames.previous)


def selected(r: Resource, selector: Mapping[str, Any] | None, patch: Patch) -> bool:
    if r.doc is None and not r.body.get("metadata"):
        return False
    if selector is None:
        return smp_targets(r, patch) if isinstance(patch.body, dict) else False
    first = r.renames.previous[0] if r.renames.previous else None
    for key in ("kind", "name", "namespace"):  # each read only when the selector names it
        wanted = selector.get(key)
        if isinstance(wanted, str) and wanted and not _matches(wanted, getattr(r, key)):
            # kustomize matches the name or namespace an object has or first had
            before = None if first is None or key == "kind" else first[2 if key == "name"
                                                                      else 1]
            if before is None or not _matches(wanted, before):
                return False
    group, version = selector.get("group"), selector.get("version")
    api = str(r.body.get("apiVersion") or "")
    if isinstance(group, str) and group and group != r.group:
        return False
    if isinstance(version, str) and version and version != api.rpartition("/")[2]:
        return False
    meta = dict_of(r.body.get("metadata"))
    for key, where in (("labelSelector", "labels"), ("annotationSelector", "annotations")):
        wanted = selector.get(key)
        if isinstance(wanted, str) and wanted and not label_match(
                wanted, dict_of(meta.get(where))):
            return False
    return True


def _matches(pattern: str, value: str) -> bool:
    if pattern == value:
        return True
    try:
        return re.fullmatch(pattern, value) is not None
    except re.error:
        return False


_TERMS = re.compile(r"(?:[^,(]|\([^)]*\))+")
_SET = re.compile(r"^\s*([^\s!=]+)\s+(in|notin)\s*\(([^)]*)\)\s*$")


def label_match(selector: str, labels: Mapping[str, Any]) -> bool:
    """A label selector as text, as ``kubectl -l`` and kustomize's patch targets read it
    (Kubernetes' labels.Parse): comma-separated terms, all required: ``key``, ``!key``,
    ``key=value`` (or ``==``), ``key!=value`` (true when the key is absent), ``key in (a,b)``,
    ``key notin (a,b)`` (true when the key is absent)."""
    for term in (t.strip() for t in _TERMS.findall(selector) if t.strip()):
        found = _SET.match(term)
        if found:
            key, op, values = found.group(1), found.group(2), {
                v.strip() for v in found.group(3).split(",") if v.strip()}
            has = key in labels and str(labels[key]) in values
            if has != (op == "in"):
                return False
        elif "!=" in term:
            key, _, value = term.partition("!=")
            if key.strip() in labels and str(labels.get(key.strip())) == value.strip():
                return False
        elif "=" in term:
            key, _, value = term.replace("==", "=").partition("=")
            if key.strip() not in labels or str(labels.get(key.strip())) != value.strip():
                return False
        elif term.startswith("!"):
            if term[1:].strip() in labels:
                return False
        elif term not in labels:
            return False
    return True


def apply_patch(r: Resource, patch: Patch, targeted: bool = False) -> Resource | None:
    """``r`` patched; None: a strategic merge patch deletes it (``$patch: delete``)."""
    if isinstance(patch.body, list):
        return _apply_json6902(r, patch)
    body = {k: v for k, v in patch.body.items() if k not in ("apiVersion", "kind")}
    if targeted:  # kustomize applies a targeted patch under the target's own name
        meta = {k: v for k, v in dict_of(body.get("metadata")).items()
                if k not in ("name", "namespace")}
        body["metadata"] = meta
    return apply_smp(r, Patch(body, patch.doc, patch.path))




def _pointer(text: str) -> list[str]:
    parts = text.split("/")[1:] if text.startswith("/") else []
    return [p.replace("~1", "/").replace("~0", "~") for p in parts]


def _apply_json6902(r: Resource, patch: Patch) -> Resource:
    body: Any = r.body
    origins = dict(r.origins)
    for n, op in enumerate(patch.body):
        if not isinstance(op, dict) or not isinstance(op.get("path"), str):
            continue
        kind = op.get("op")
        parts = _pointer(op["path"])
        try:
            if kind in ("add", "replace"):
                body, where = _json_set(body, parts, op.get("value"), kind == "add")
                origins[where] = (patch.doc, patch.path + (n, "value"))
            elif kind == "remove":
                body = _json_remove(body, parts)
            elif kind in ("copy", "move") and isinstance(op.get("from"), str):
                value = _json_get(body, _pointer(op["from"]))
                if kind == "move":
                    body = _json_remove(body, _pointer(op["from"]))
                body, where = _json_set(body, parts, value, True)
        except (KeyError, IndexError, ValueError, TypeError):
            continue  # kustomize fails the build; the object stays as it was
    return r.with_body(body, origins) if isinstance(body, dict) else r


def _json_get(value: Any, parts: Sequence[str]) -> Any:
    for part in parts:
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def _json_set(value: Any, parts: Sequence[str], new: Any, add: bool) -> tuple[Any, Path]:
    if not parts:
        return new, ()
    head, rest = parts[0], parts[1:]
    if isinstance(value, dict):
        if not rest:
            # `replace` of a key the object lacks sets it, as `add` does: kustomize's
            # evanphx/json-patch v4.12.0 does not check (measured); a missing parent fails
            return {**value, head: new}, (head,)
        child, where = _json_set(value[head], rest, new, add)
        return {**value, head: child}, (head,) + where
    if isinstance(value, list):
        out = list(value)
        if not rest:
            if head == "-":
                out.append(new)
                return out, (len(out) - 1,)
            index = int(head)
            if add:
                out.insert(index, new)
            else:
                out[index] = new
            return out, (index,)
        index = int(head)
        child, where = _json_set(out[index], rest, new, add)
        out[index] = child
        return out, (index,) + where
    raise TypeError(head)


def _json_remove(value: Any, parts: Sequence[str]) -> Any:
    head, rest = parts[0], parts[1:]
    if isinstance(value, dict):
        if not rest:
            return {k: v for k, v in value.items() if k != head}
        return {**value, head: _json_remove(value[head], rest)}
    if isinstance(value, list):
        out = list(value)
        index = int(head)
        out[index] = _json_remove(out[index], rest) if rest else None
        if not rest:
            del out[index]
        return out
    raise TypeError(head)

