"""Strategic merge patches as kustomize (kyaml's merge2) applies them.

How each list merges comes from the type's OpenAPI definition, never from the field's name:
``x-kubernetes-patch-strategy`` containing ``merge`` makes a list associative, keyed by
``x-kubernetes-list-map-keys`` (Service ports by port and protocol, container ports by
containerPort and protocol) or else ``x-kubernetes-patch-merge-key`` (containers, env,
volumes and webhooks by name); a list of scalars with ``merge`` (finalizers) is a union; every
other list is replaced by the patch's. The definitions are kubernetes-validate's oldest
bundled minor (:data:`KUSTOMIZE_OPENAPI`), the nearest to the v1.21.2 OpenAPI kustomize v5
embeds: a field or kind newer than kustomize's (``resourceClaims``, ``resizePolicy``, custom
resources) has no schema there, and kustomize replaces its lists whole.

What kyaml does, measured against ``kubectl kustomize`` (kustomize v5.5) and followed here:

- an associative list keyed by one field: the patch's elements first, in the patch's order
  (each merged into the base element with its key), then the base's other elements, in
  theirs; base elements without the key last. Keyed by two or more fields (each element
  holding all of them): the patch's new elements first, then the base's in their order,
  merged in place;
- ``$patch: delete`` on an element removes it, on a mapping removes the field (at the top,
  the object); ``$patch: replace`` on a mapping replaces it, as a list element of its own
  (``- $patch: replace``) makes the list the patch's other elements, on an element that
  matches a base element keeps the base's (kyaml's behaviour, measured); a null value
  removes the field; an element of a list keyed by several fields that lacks one of them
  is dropped;
- ``$setElementOrder/<list>``, ``$retainKeys`` and ``$deleteFromPrimitiveList/<list>``
  (apimachinery's directives for ``kubectl patch``) are not directives to kustomize: it
  copies them into the object as written, and so does this build (the schema rule then
  reports them as the unknown fields the API server receives).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from reviewbot.load.loader import Document
from reviewbot.model.resource import Patch, Path, Resource, dict_of

# the Kubernetes minor whose OpenAPI decides list merges: the oldest kubernetes-validate
# ships (kustomize v5 embeds v1.21.2's)
KUSTOMIZE_OPENAPI = "oldest"
Node = Mapping[str, Any] | None  # a schema node (a definition or a property), None: no schema
OriginMap = dict[Path, tuple[Document, Path]]
_DELETE = object()  # an element or field a patch deletes
_WRITTEN_NULL = re.compile(r"[ \t]*(?:null|Null|NULL|~)(?:[ \t,}\]#]|$)")
# mappings of a base that :meth:`_Merge.walk` left as they were without meeting a null, by
# their id and their schema node's: walked again (the next patch of a build, the next
# object sharing them), such a mapping is left alike wherever it sits. Each is kept, so
# that its id stays its own; at most _WALKED_MAX of them (then all forgotten at once).
_WALKED: dict[tuple[int, int], Any] = {}
_WALKED_MAX = 1 << 16
# the schema node's id in _WALKED of a field without a schema. A field of a mapping without
# a schema has none either: :meth:`_Merge.walk` leaves it as it is, without looking, when it
# is a list (no schema makes one associative, and only those are walked) or a mapping in
# _WALKED under no schema; the walk's callers ask that before the call (most fields of a
# custom resource are one of these)
_NO_NODE = id(None)


def apply_smp(r: Resource, patch: Patch) -> Resource | None:
    """``r`` with ``patch`` merged in; None: the patch deletes the object (``$patch:
    delete`` at its top)."""
    if not isinstance(patch.body, dict):
        return r
    merge = _Merge(patch, r)
    body = merge.map(r.body, patch.body, (), (), (), _kind_schema(r.body))
    if body is _DELETE:
        return None
    if not isinstance(body, dict):
        return r
    meta, before = dict_of(body.get("metadata")), dict_of(r.body.get("metadata"))
    kept = ("namespace",) if patch.renames else ("name", "namespace")
    if any(meta.get(k) != before.get(k) for k in kept):
        # kustomize keeps the target's name (unless the patch may rename it) and namespace
        # (a patch may name it by an id it had before a rename: ApplySmPatch sets them back)
        meta = {k: v for k, v in meta.items() if k not in kept}
        body = {**body, "metadata": {**meta, **{k: before[k] for k in kept if k in before}}}
    for k in kept:  # a name it keeps is written where the object is, not in the patch that
        # names its target (new-user trial thirty-five: a rename's comment on the patch)
        merge.set.pop(("metadata", k), None)
    return r.with_body(body, merge.finish())


class _Merge:
    """One patch merged into one object: the result, and where each field came from."""

    def __init__(self, patch: Patch, r: Resource) -> None:
        self.patch = patch
        self.r = r
        # every list merged: (its path in the object before, after, {old index: new index
        # or None}): the base's origins follow their elements
        self.moves: list[tuple[Path, Path, dict[int, int | None]]] = []
        self.set: OriginMap = {}
        self.nulls = 0  # nulls of the base the walk met so far

    def finish(self) -> OriginMap:
        """The patched object's origins: the base's, each moved with its element (an
        element the base had from its document is located there), then the patch's."""
        base = self.r.origins
        lists = [before for before, _, _ in self.moves]

        def under(path: Path, prefix: Path) -> bool:
            return len(path) > len(prefix) and path[:len(prefix)] == prefix

        if not self.moves:  # no list merged: every origin of the base stays where it is
            return {**base, **self.set}
        out = _outside(base, lists)  # (those of the lists' elements follow them below)
        for before, after, moved in self.moves:
            deeper = [b for b in lists if under(b, before)]
            for old, new in moved.items():
                if new is None:
                    continue
                source, target = before + (old,), after + (new,)
                if source != target:
                    found = self._resolve(source)
                    if found is not None:
                        out[target] = found
                for k, v in base.items():
                    if (k == source or under(k, source)) and not any(
                            under(k, b) for b in deeper if under(b, source)):
                        out[target + k[len(source):]] = v
        out.update(self.set)
        return out

    def _resolve(self, source: Path) -> tuple[Document, Path] | None:
        """Where the base's node at ``source`` was written."""
        base = self.r.origins
        probe = source
        while True:
            hit = base.get(probe)
            if hit is not None:
                return hit[0], hit[1] + source[len(probe):]
            if not probe:
                break
            probe = probe[:-1]
        return (self.r.doc, self.r.path + source) if self.r.doc is not None else None

    def _mark(self, here: Path, at: Path) -> None:
        self.set[here] = (self.patch.doc, self.patch.path + at)

    def value(self, base: Any, patch: Any, here: Path, src: Path, at: Path, node: Node
              ) -> Any:
        """``patch`` merged into ``base`` (either may be absent: None)."""
        if isinstance(patch, dict):
            if patch.get("$patch") == "delete":
                return _DELETE
            if isinstance(base, dict):
                return self.map(base, patch, here, src, at, node)
            if patch.get("$patch") == "replace":
                self._mark(here, at)
                return {k: v for k, v in patch.items() if k != "$patch"}
            result = self.map({}, patch, here, src, at, node)
            self._mark(here, at)
            return result
        if isinstance(patch, list):
            result = self.sequence(base if isinstance(base, list) else [], patch, here, src, at,
                                   node)
            if not isinstance(base, list):
                self._mark(here, at)
            return result
        self._mark(here, at)
        return patch

    def map(self, base: Mapping[str, Any], patch: Mapping[str, Any], here: Path, src: Path,
            at: Path, node: Node) -> Any:
        if patch.get("$patch") == "replace":
            self._mark(here, at)
            return {k: v for k, v in patch.items() if k != "$patch"}
        if patch.get("$patch") == "delete":
            return _DELETE
        out = dict(base)
        marks, doc, written = self.set, self.patch.doc, self.patch.path + at
        for key, value in patch.items():
            if key == "$patch":
                continue
            if value is None:
                out.pop(key, None)
                continue
            kind = type(value)
            if kind is not dict and kind is not list and not isinstance(value, (dict, list)):
                out[key] = value  # a scalar: set, located in the patch (what :meth:`value`
                marks[here + (key,)] = (doc, written + (key,))  # does, without its schema)
                continue
            child = out.get(key)
            if kind is dict and type(child) is dict and "$patch" not in value:
                # (a mapping into a mapping: what :meth:`value` does, without its call)
                merged = self.map(child, value, here + (key,), src + (key,), at + (key,),
                                  None if node is None else _property(node, key))
            else:
                merged = self.value(child, value, here + (key,), src + (key,), at + (key,),
                                    None if node is None else _property(node, key))
            if merged is _DELETE:
                out.pop(key, None)
            else:
                out[key] = merged
        for key, value in base.items():  # the base's own fields are walked too
            # (a scalar is what :meth:`walk` leaves as it is: not asked, the loader's types
            # told by their exact type first; nor, without a schema, a list or a mapping
            # walked before: see _NO_NODE)
            kind = type(value)
            if kind is str or kind is int or kind is bool or kind is float or key in patch:
                continue
            if node is None and (kind is list or kind is dict and (
                    _WALKED.get((id(value), _NO_NODE)) is value)):
                continue
            if value is None or kind is dict or kind is list or isinstance(value, (dict, list)):
                walked = self.walk(value, src + (key,), node, key)
                if walked is _DELETE:
                    del out[key]
                elif walked is not value:
                    out[key] = walked
        return out

    def walk(self, value: Any, src: Path, parent: Node, key: str | int | None) -> Any:
        """A node of the base the patch does not name, as kyaml's walk leaves it: an empty
        null (``key:`` with nothing after it) removed (_DELETE), a written one (``null``,
        ``~``) kept; mappings walked field by field, associative lists element by element
        (other lists are not walked). The same object when nothing changed. ``parent``'s
        schema gives ``value``'s: its property ``key`` (an element's: ``parent`` itself)."""
        if value is None:
            self.nulls += 1
            return value if self._written_null(src) else _DELETE
        if isinstance(value, dict):
            if isinstance(key, str):
                node = _property(parent, key) if parent is not None else None
            else:
                node = parent
            memo = (id(value), id(node))
            if _WALKED.get(memo) is value:
                return value
            nulls = self.nulls
            out: dict[str, Any] | None = None
            for k, v in value.items():
                kind = type(v)
                if kind is str or kind is int or kind is bool or kind is float:
                    continue  # (a scalar: most fields, told by its exact type first)
                if v is None or kind is dict or kind is list or isinstance(v, (dict, list)):
                    if node is None and (kind is list or kind is dict and (
                            _WALKED.get((id(v), _NO_NODE)) is v)):
                        continue  # (what the call would find: see _NO_NODE)
                    walked = self.walk(v, src + (k,), node, k)
                    if walked is not v:
                        out = dict(value) if out is None else out
                        if walked is _DELETE:
                            del out[k]
                        else:
                            out[k] = walked
            if out is None and self.nulls == nulls:  # (no null met: whatever its place)
                if len(_WALKED) >= _WALKED_MAX:
                    _WALKED.clear()
                _WALKED[memo] = value
            return value if out is None else out
        if isinstance(value, list) and value and isinstance(key, str):
            node = _property(parent, key)
            strategy, keys = _list_strategy(node)
            if "merge" not in strategy or not keys:
                return value
            items = _items(node)
            elements: list[Any] | None = None
            for i, element in enumerate(value):
                if isinstance(element, dict) and keys[0] in element:
                    walked = self.walk(element, src + (i,), items, None)
                    if walked is not element:
                        elements = list(value) if elements is None else elements
                        elements[i] = walked
            return value if elements is None else elements
        return value

    def _written_null(self, src: Path) -> bool:
        """Whether the base's null at ``src`` is written (``null``, ``~``): kyaml keeps those
        and drops an empty value (kustomize's FieldSetter, issue #4628)."""
        found = self._resolve(src)
        if found is None:
            return True
        doc, path = found
        line, column = doc.position(path)
        lines = doc.file.text.splitlines()
        text = lines[line - 1][column - 1:] if 0 < line <= len(lines) else ""
        return _WRITTEN_NULL.match(text) is not None

    def sequence(self, base: list[Any], patch: list[Any], here: Path, src: Path, at: Path,
                 node: Node) -> list[Any]:
        strategy, keys = _list_strategy(node)
        replace = [p for p in patch if p == {"$patch": "replace"}]
        if replace:  # `- $patch: replace`: the list is the patch's other elements
            self.moves.append((src, here, dict.fromkeys(range(len(base)))))
            base = []
            patch = [p for p in patch if not any(p is x for x in replace)]
        if "merge" not in strategy:
            self._mark(here, at)
            self.moves.append((src, here, dict.fromkeys(range(len(base)))))
            return list(patch)
        items = _items(node)
        elements = [p for p in patch if not (isinstance(p, dict) and "$patch" in p
                                             and len(p) == 1)]
        if not keys or not all(isinstance(x, dict) for x in base + elements):
            return self._primitive(base, patch, here, src, at)
        if len(keys) >= 2 and all(k in x for x in (base or elements) for k in keys):
            return self._by_keys(base, patch, keys, here, src, at, items)
        return self._by_key(base, patch, keys[0], here, src, at, items)

    def _primitive(self, base: list[Any], patch: list[Any], here: Path, src: Path, at: Path
                   ) -> list[Any]:
        """A union: the patch's values first, then the base's others."""
        out: list[Any] = []
        seen: set[str] = set()
        moved: dict[int, int | None] = {}
        for j, item in enumerate(patch):
            text = _text(item)
            if text not in seen:
                seen.add(text)
                self._mark(here + (len(out),), at + (j,))
                out.append(item)
        for i, item in enumerate(base):
            text = _text(item)
            if text not in seen:
                seen.add(text)
                moved[i] = len(out)
                out.append(item)
            else:
                moved[i] = None
        self.moves.append((src, here, moved))
        return out

    def _by_key(self, base: list[Any], patch: list[Any], key: str, here: Path, src: Path,
                at: Path, items: Node) -> list[Any]:
        """One key: the patch's elements first (merged), then the base's others.

        A patch element without the key (``- name: a`` in volumeMounts, keyed by mountPath)
        is matched by an empty value, which kyaml's ElementSetter takes for any: every base
        element holding the key is gone from there on (kyaml/yaml/walk's
        setAssociativeSequenceElements; ``kubectl kustomize`` gives ``volumeMounts: []``),
        the keyless element with them; the patch's elements before it were merged already,
        those after it stand alone."""
        order: list[str] = []
        base_at: dict[str, int] = {}
        patch_at: dict[str, int] = {}
        keyless: list[int] = []
        cut = len(patch)  # the first patch element without the key
        for j, p in enumerate(patch):
            if isinstance(p, dict) and key in p:
                value = _text(p[key])
                if value not in patch_at:
                    patch_at[value] = j
                    order.append(value)
            elif cut == len(patch) and isinstance(p, dict) and not (
                    "$patch" in p and len(p) == 1):
                cut = j
        for i, b in enumerate(base):
            if key not in b:
                keyless.append(i)
                continue
            value = _text(b[key])
            if value in base_at or patch_at.get(value, len(patch)) >= cut < len(patch):
                continue  # a second one, or gone before a patch element merged it
            base_at[value] = i
            if value not in patch_at:
                order.append(value)
        out: list[Any] = []
        moved: dict[int, int | None] = dict.fromkeys(range(len(base)))
        for value in order:
            self._element(base, patch, base_at.get(value), patch_at.get(value), out, moved,
                          here, src, at, items)
        for k in keyless:
            moved[k] = len(out)
            out.append(base[k])
        self.moves.append((src, here, moved))
        return out

    def _by_keys(self, base: list[Any], patch: list[Any], keys: list[str], here: Path,
                 src: Path, at: Path, items: Node) -> list[Any]:
        """Several keys: the patch's new elements first, then the base's, merged in place."""
        def ident(x: Mapping[str, Any]) -> tuple[str, ...]:
            return tuple(_text(x[k]) for k in keys)
        base_at: dict[tuple[str, ...], int] = {}
        for i, b in enumerate(base):
            base_at.setdefault(ident(b), i)
        patch_at: dict[tuple[str, ...], int] = {}
        for j, p in enumerate(patch):
            if isinstance(p, dict) and all(k in p for k in keys):
                patch_at.setdefault(ident(p), j)
        out: list[Any] = []
        moved: dict[int, int | None] = dict.fromkeys(range(len(base)))
        for value, j in patch_at.items():
            if value not in base_at:
                self._element(base, patch, None, j, out, moved, here, src, at, items)
        for value, i in base_at.items():
            self._element(base, patch, i, patch_at.get(value), out, moved, here, src,
                          at, items)
        self.moves.append((src, here, moved))
        return out

    def _element(self, base: list[Any], patch: list[Any], i: int | None, j: int | None,
                 out: list[Any], moved: dict[int, int | None], here: Path, src: Path,
                 at: Path, items: Node) -> None:
        if j is None:
            assert i is not None
            moved[i] = len(out)
            walked = self.walk(base[i], src + (i,), items, None)
            out.append(base[i] if walked is _DELETE else walked)
            return
        index = len(out)
        if i is not None:
            moved[i] = index
            # the base element's own origins move with it; the patch's fields are marked
            # at their new index (the moves are applied before the marks)
        element = patch[j]
        if i is not None and isinstance(element, dict) and element.get("$patch") == "replace":
            merged: Any = base[i]  # kyaml keeps the base element (measured)
        else:
            merged = self.value(base[i] if i is not None else None, element, here + (index,),
                                src + (i if i is not None else index,), at + (j,), items)
        if merged is _DELETE:
            if i is not None:
                moved[i] = None
            return
        if isinstance(merged, dict):
            merged.pop("$patch", None)
        out.append(merged)


def _outside(origins: Mapping[Path, Any], lists: list[Path]) -> dict[Path, Any]:
    """``origins`` but those below one of ``lists`` (longer than it, starting with it), in
    their order: whether a start of a path is one of them, asked once per length."""
    prefixes, sizes = set(lists), sorted({len(b) for b in lists})
    out: dict[Path, Any] = {}
    for k, v in origins.items():
        for n in sizes:
            if len(k) > n and k[:n] in prefixes:
                break
        else:
            out[k] = v
    return out


def _text(value: Any) -> str:
    """A scalar as YAML writes it (kyaml compares merge keys as text: 80 and "80" match)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ---------------------------------------------------------------- the OpenAPI definitions


@functools.cache
def _definitions() -> tuple[Mapping[str, Any], Mapping[tuple[str, str, str], str]]:
    from reviewbot.schema.store import kubernetes_schemas, kubernetes_versions

    schemas = kubernetes_schemas(kubernetes_versions()[0])
    return schemas.raw, schemas.index


def _kind_schema(body: Mapping[str, Any]) -> Node:
    api, kind = body.get("apiVersion"), body.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str):
        return None
    return _schema_of(api, kind)


@functools.lru_cache(maxsize=1024)
def _schema_of(api: str, kind: str) -> Node:
    """The definition of ``kind`` of ``api`` (None: no schema), found once per kind."""
    defs, index = _definitions()
    group, _, version = api.rpartition("/")
    name = index.get((group, version, kind))
    return _resolve(defs.get(name)) if name is not None else None


def _resolve(node: Any) -> Node:
    defs = _definitions()[0]
    for _ in range(8):
        if not isinstance(node, dict):
            return None
        ref = node.get("$ref")
        if not isinstance(ref, str):
            all_of = node.get("allOf")
            if isinstance(all_of, list) and len(all_of) == 1:
                node = all_of[0]
                continue
            return node
        node = defs.get(ref.rpartition("/")[2])
    return None


def _property(node: Node, key: str) -> Node:
    if node is None:
        return None
    properties = node.get("properties")
    return _resolve(properties.get(key)) if isinstance(properties, dict) else None


def _items(node: Node) -> Node:
    return _resolve(node.get("items")) if node is not None else None


def _list_strategy(node: Node) -> tuple[str, list[str]]:
    """(patch strategy, merge keys) of a list field's schema."""
    if node is None:
        return "", []
    strategy = node.get("x-kubernetes-patch-strategy")
    strategy = strategy if isinstance(strategy, str) else ""
    keys = node.get("x-kubernetes-list-map-keys")
    if not (isinstance(keys, list) and keys and all(isinstance(k, str) for k in keys)):
        key = node.get("x-kubernetes-patch-merge-key")
        keys = [key] if isinstance(key, str) else []
    elif isinstance(node.get("x-kubernetes-patch-merge-key"), str) and (
            node["x-kubernetes-patch-merge-key"] != keys[0]):
        keys = [node["x-kubernetes-patch-merge-key"]]  # the patch key decides when they differ
    return strategy, list(keys)
