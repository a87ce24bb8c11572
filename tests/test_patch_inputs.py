"""What a build reads of its patches is made once and given again: an inline patch's values
once per text (a parent's patches, copied into each child's spec, are the same texts), a
patch's merged body once per patch (tried on every object of a build), a Flux wrapper's
stand-in document once per file, a spec field's list items' texts once per item. The
reference for each is what the build made each time before: the text loaded as the file
that holds it, the patch stripped for each object, ``{}`` loaded as that file, ``repr``."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.load.loader import Document, load
from reviewbot.model.kustomize import Graph, _synthetic_doc
from reviewbot.model.patches import patcher
from reviewbot.model.resource import Patch, Resource, dict_of, document_as_written, inline_values
from reviewbot.model.smp import _definitions, _kind_schema, _outside, _resolve, apply_smp
from reviewbot.sources.tree import FileRecord, blob_id

TEXTS = [
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n",
    # folded scalars, as kyaml writes them (a break before a more-indented line)
    "kind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: >\n    one\n      two\n    three\n"
    "  j: >-\n    a\n    b\n",
    "- op: add\n  path: /spec/dependsOn/-\n  value: {name: x}\n",
    "kind: A\n---\nkind: B\nspec:\n  s: >+\n    x\n\n---\n- 1\n",
    "just text\n",
    "a: [1, 2\n",  # broken: no document
]


def _loaded(text: str, name: str) -> list[Document]:
    data = text.encode()
    return load(FileRecord(name, blob_id(data), data)).documents


def test_inline_values_are_the_texts_documents_loaded_as_any_file() -> None:
    for text in TEXTS:
        for name in ("k/kustomization.yaml", "apps/templates/ks.yaml", "inline patch"):
            want = [document_as_written(d) if isinstance(d.value, dict) else d.value
                    for d in _loaded(text, name)]
            assert list(inline_values(text)) == want
    assert inline_values(TEXTS[1]) is inline_values(TEXTS[1])


def test_the_stand_in_document_is_what_loading_an_empty_mapping_as_that_file_gives() -> None:
    for name in ("clusters/a/ks.yaml", "apps/templates/ks.yaml", "x.yaml"):
        made, loaded = _synthetic_doc(name), _loaded("{}\n", name)[0]
        assert (made.file.path, made.file.blob, made.file.data, made.file.problems,
                made.file.skipped, made.file.pure) == (
            loaded.file.path, loaded.file.blob, loaded.file.data, loaded.file.problems,
            loaded.file.skipped, loaded.file.pure)
        assert (made.index, made.value, made.line, made.spans) == (
            loaded.index, loaded.value, loaded.line, loaded.spans)
        assert made.position(("patches", 0, "patch")) == loaded.position(
            ("patches", 0, "patch"))
        assert made.file.documents == [made]
    assert _synthetic_doc("a.yaml").value is not _synthetic_doc("b.yaml").value


DOC = _loaded("{}\n", "k.yaml")[0]
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(
    ["a", "b", "x", "$patch", "delete", "replace"]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.sampled_from(["a", "b", "name", "$patch"]), inner, max_size=3)),
    max_leaves=10)
_BODIES = st.fixed_dictionaries({
    "apiVersion": st.sampled_from(["v1", "apps/v1", "x.io/v1"]),
    "kind": st.sampled_from(["ConfigMap", "Deployment", "Thing"]),
    "metadata": st.fixed_dictionaries(
        {"name": st.sampled_from(["a", "b"])},
        optional={"namespace": st.sampled_from(["n", "m"]), "labels": st.dictionaries(
            st.sampled_from(["l", "k"]), st.sampled_from(["1", "2"]), max_size=2)}),
}, optional={"spec": _VALUES, "data": _VALUES})


def _stripped(patch: Patch, targeted: bool) -> Patch:
    """The patch as the build stripped it for each object before."""
    body = {k: v for k, v in patch.body.items() if k not in ("apiVersion", "kind")}
    if targeted:
        body["metadata"] = {k: v for k, v in dict_of(body.get("metadata")).items()
                            if k not in ("name", "namespace")}
    return Patch(body, patch.doc, patch.path)


@settings(max_examples=150, deadline=None)
@given(_BODIES, st.lists(_BODIES, min_size=1, max_size=4), st.booleans())
def test_a_patch_merged_into_many_objects_gives_each_what_a_fresh_strip_gives(
        patch_body: dict[str, Any], bodies: list[dict[str, Any]], targeted: bool) -> None:
    patch = Patch(patch_body, DOC, ("patches", 0, "patch"))
    before = copy.deepcopy(patch_body)
    apply = patcher(patch, targeted)
    for body in bodies:
        r = Resource(DOC, (), body)
        got, want = apply(r), apply_smp(r, _stripped(patch, targeted))
        assert (got is None) == (want is None)
        if got is not None and want is not None:
            assert (got.body, got.origins, got.renames) == (want.body, want.origins,
                                                            want.renames)
    assert patch_body == before  # (nothing written into the patch)


def test_a_json_patch_merged_into_many_objects_gives_each_its_operations() -> None:
    ops = [{"op": "add", "path": "/spec/dependsOn/-", "value": {"name": "x"}}]
    apply = patcher(Patch(ops, DOC, ("patches", 0, "patch")), True)
    for deps in ([], [{"name": "a"}]):
        r = Resource(DOC, (), {"kind": "K", "metadata": {"name": "k"},
                               "spec": {"dependsOn": deps}})
        out = apply(r)
        assert out is not None and out.body["spec"]["dependsOn"] == [*deps, {"name": "x"}]
        assert out.origins == {("spec", "dependsOn", len(deps)): (
            DOC, ("patches", 0, "patch", 0, "value"))}


_ITEMS = st.lists(st.one_of(_SCALARS, st.dictionaries(st.sampled_from(["patch", "target"]),
                                                      _VALUES, max_size=2),
                            st.lists(_SCALARS, max_size=2)), max_size=4)


@given(_ITEMS, st.lists(st.lists(st.integers(0, 3), max_size=5), min_size=1, max_size=4))
def test_specs_whose_lists_share_items_key_as_repr_does(
        items: list[Any], picks: list[list[int]]) -> None:
    """Children's specs holding new lists of the same items (and equal copies of them):
    each key is ``repr`` of its fields, whichever spec made an item's text first."""
    graph = Graph([], {})
    for pick in picks:
        chosen = [items[i] for i in pick if i < len(items)]
        for spec in ({"path": "./a", "patches": chosen},
                     {"path": "./a", "patches": copy.deepcopy(chosen), "images": chosen}):
            fields = ("path", "patches", "images")
            assert graph.spec_key(spec, fields) == repr(
                [(k, spec[k]) for k in fields if k in spec])


_BASES = [
    """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {a: "1"}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: x
        env:
        - name: A
          value:
        - name: B
          value: null
        resources: {limits: {cpu: "1"}}
      volumes:
      - name: v
        emptyDir: {}
""",
    """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: app, namespace: apps}
spec:
  interval: 5m
  values:
    image: {tag: "1"}
    empty:
    written: ~
    ingress: {main: {annotations: {a: b}, hosts: [{host: h}]}}
""",
    """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: anchored}
spec:
  values:
    first: &shared {keep: ~, name: a, deep: {x: 1}}
    second: *shared
""",
]
_PATCH_VALUES = st.recursive(
    st.one_of(st.none(), st.sampled_from(["x", "2", "app", "B"]), st.integers(0, 2)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=2),
        st.dictionaries(st.sampled_from(["name", "value", "image", "tag", "a", "empty"]),
                        inner, max_size=3)),
    max_leaves=6)
_PATCH_BODIES = st.fixed_dictionaries({}, optional={
    "metadata": st.fixed_dictionaries({}, optional={"labels": st.dictionaries(
        st.sampled_from(["a", "b"]), st.sampled_from(["1", "2"]), max_size=2)}),
    "spec": st.fixed_dictionaries({}, optional={
        "replicas": st.integers(0, 3),
        "values": st.dictionaries(st.sampled_from(["image", "empty", "written", "new"]),
                                  _PATCH_VALUES, max_size=2),
        "template": st.fixed_dictionaries({"spec": st.fixed_dictionaries({}, optional={
            "containers": st.lists(st.fixed_dictionaries(
                {"name": st.sampled_from(["app", "side"])},
                optional={"image": st.sampled_from(["y", "z"]),
                          "env": st.lists(st.fixed_dictionaries(
                              {"name": st.sampled_from(["A", "C"])},
                              optional={"value": st.sampled_from(["1", "2"])}),
                              max_size=2)}), max_size=2)})})})})


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(range(len(_BASES))), st.lists(_PATCH_BODIES, min_size=1, max_size=5))
def test_patches_merged_one_after_another_give_what_each_merge_on_a_copy_gives(
        base: int, bodies: list[dict[str, Any]]) -> None:
    """The walk of a base's fields a patch does not name leaves a mapping it met before as
    it was (smp: no null in it, the same schema): merging into the objects a build made
    (their mappings shared, walked before; an anchor's at two places) gives what merging
    into copies sharing nothing gives."""
    doc = _loaded(_BASES[base], "app.yaml")[0]
    warm = cold = Resource(doc, (), doc.value)
    for n, body in enumerate(bodies):
        apply = patcher(Patch(body, DOC, ("patches", n, "patch")), True)
        got = apply(warm)
        want = apply(Resource(cold.doc, cold.path, json.loads(json.dumps(cold.body)),
                              cold.origins, cold.renames))
        assert got is not None and want is not None
        assert (got.body, got.origins) == (want.body, want.origins)
        warm, cold = got, want


_PATHS = st.lists(st.sampled_from(["spec", "a", 0, 1, "containers"]), max_size=4).map(tuple)


@given(st.dictionaries(_PATHS, st.integers(), max_size=8), st.lists(_PATHS, max_size=4))
def test_origins_outside_the_merged_lists_are_those_below_none(
        origins: dict[tuple[Any, ...], int], lists: list[tuple[Any, ...]]) -> None:
    """smp keeps the base's origins that are below no merged list (a list's elements' own
    follow them): asked by the starts of each path, as the plain test of every pair."""
    def under(path: tuple[Any, ...], prefix: tuple[Any, ...]) -> bool:
        return len(path) > len(prefix) and path[:len(prefix)] == prefix

    plain = {k: v for k, v in origins.items() if not any(under(k, b) for b in lists)}
    got = _outside(origins, lists)
    assert got == plain and list(got) == list(plain)


def test_the_fields_a_patch_sets_are_located_where_the_patch_writes_them() -> None:
    """Each field a strategic merge patch sets (a scalar, a new mapping, a replaced list)
    keeps where the patch wrote it; the base's other fields keep their own places, and so
    does the name the patch names its target by (kustomize keeps the target's: new-user
    trial thirty-five)."""
    patch_doc = _loaded("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n"
                        "  k: v\n  n: '1'\n  m: {x: 1}\n  l: [1]\n", "p.yaml")[0]
    base = _loaded("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
                   "data: {k: old, j: x, l: [0]}\n", "b.yaml")[0]
    out = patcher(Patch(patch_doc.value, patch_doc, ()))(Resource(base, (), base.value))
    assert out is not None
    assert out.body["data"] == {"k": "v", "j": "x", "l": [1], "n": "1", "m": {"x": 1}}
    assert out.origins == {("data", "k"): (patch_doc, ("data", "k")),
                           ("data", "n"): (patch_doc, ("data", "n")),
                           ("data", "m", "x"): (patch_doc, ("data", "m", "x")),
                           ("data", "m"): (patch_doc, ("data", "m")),
                           ("data", "l"): (patch_doc, ("data", "l"))}
    assert [patch_doc.position(out.origins[("data", k)][1])[0] for k in "knml"] == [6, 7, 8, 9]


def test_a_kind_s_schema_is_found_once_as_the_definitions_give_it() -> None:
    """smp looks a kind's definition up once per (apiVersion, kind): the node the
    definitions give, the same object each time (the walk's memo keys on it)."""
    defs, index = _definitions()
    for api, kind in (("apps/v1", "Deployment"), ("v1", "Service"), ("v1", "Nope"),
                      ("helm.toolkit.fluxcd.io/v2", "HelmRelease")):
        group, _, version = api.rpartition("/")
        name = index.get((group, version, kind))
        want = _resolve(defs.get(name)) if name is not None else None
        body = {"apiVersion": api, "kind": kind}
        assert _kind_schema(body) == want
        assert _kind_schema(dict(body)) is _kind_schema(body)
    assert _kind_schema({"apiVersion": 1, "kind": "Deployment"}) is None
