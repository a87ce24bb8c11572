"""Walks of the model written for speed (bot/model): the search for pod templates in a
custom resource (objects._template_fields), the .gitignore patterns matched at once
(kustomize._Ignore), the test of a chart's values mapping for a container
(values._is_unit), the walk of a chart's values (values._walk), an app-template
container's mounts (values._mounts) and the bodies of a document equal to an object's
(objects.same_bodies). Each is compared with its plain definition, here, on generated
input."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.model.kustomize import _Ignore
from reviewbot.model.objects import (
    MAX_TEMPLATE_DEPTH,
    _named,
    _template_fields,
    is_pod_template,
    items,
    mapping,
    same_bodies,
)
from reviewbot.model.values import (
    CONTAINER_LISTS,
    MAX_DEPTH,
    PLACEMENT,
    PROBES,
    SAME_POD,
    SKIP_KEYS,
    _image,
    _is_unit,
    _mount_sources,
    _mounts,
    _pod_resources,
    _pod_spec,
    _probe,
    _Unit,
    _walk,
)


def _reference_templates(value: Any, path: tuple[Any, ...], depth: int) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    if depth > MAX_TEMPLATE_DEPTH:
        return out
    if isinstance(value, dict):
        for key, child in value.items():
            if not isinstance(key, str) or key in ("metadata", "status"):
                continue
            here = path + (key,)
            if (key == "template" or key.endswith("Template")) and is_pod_template(child):
                out.append(here)
            elif isinstance(child, (dict, list)):
                out += _reference_templates(child, here, depth + 1)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            if isinstance(child, (dict, list)):
                out += _reference_templates(child, path + (i,), depth + 1)
    return out


_POD = st.fixed_dictionaries({"spec": st.fixed_dictionaries(
    {"containers": st.lists(st.one_of(st.just({"name": "a"}), st.just("x")), max_size=2)})})
_KEYS = st.sampled_from(["template", "podTemplate", "Template", "metadata", "status", "spec",
                         "workers", "a", 1])
_BODIES = st.recursive(
    st.one_of(st.none(), st.integers(0, 2), st.just("template"), _POD),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(_BODIES, st.integers(0, MAX_TEMPLATE_DEPTH + 1))
def test_template_fields_are_the_plain_walk_s(body: Any, depth: int) -> None:
    assert _template_fields(body, ("spec",), depth) == _reference_templates(
        body, ("spec",), depth)


def test_template_fields_stop_at_the_depth_bound() -> None:
    pod = {"spec": {"containers": [{"name": "a"}]}}
    body: Any = {"template": pod}
    for _ in range(MAX_TEMPLATE_DEPTH + 1):
        body = {"a": body}
    assert _template_fields(body, (), 0) == []
    assert _template_fields(body["a"], (), 0) == [("a",) * MAX_TEMPLATE_DEPTH + ("template",)]


def _reference_ignored(rel: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        anchored = pattern.strip("/")
        if "/" in anchored:  # the path, or a folder above it (git: all below a folder)
            parts = rel.split("/")
            if rel.startswith(anchored + "/") or any(
                    fnmatch.fnmatchcase("/".join(parts[:n]), anchored)
                    for n in range(1, len(parts) + 1)):
                return True
        elif any(fnmatch.fnmatchcase(part, anchored) for part in rel.split("/")):
            return True
    return False


_GLOBS = st.lists(st.sampled_from(["a", "b", "*", "?", "[ab]", "[!a]", "/", ".", "**", "\\",
                                   "(", "|", "{", "[", "]", ".yaml", "x*y"]),
                  min_size=1, max_size=4).map("".join)
_PATHS = st.lists(st.sampled_from(["a", "b", "ab", "x.yaml", "xy", "(", "|", "[", "\\", ".", ""]),
                  min_size=1, max_size=3).map("/".join)


@settings(max_examples=500, deadline=None)
@given(st.lists(_GLOBS, max_size=5), st.lists(_PATHS, min_size=1, max_size=5))
def test_gitignore_patterns_matched_at_once_match_as_each_does(
        patterns: list[str], paths: list[str]) -> None:
    ignore = _Ignore("", patterns)
    for rel in paths:
        assert ignore.ignores(rel) == _reference_ignored(rel, patterns), (rel, patterns)


_UNIT_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(0, 2),
    st.sampled_from(["nginx:1.27", "", "a b", "repo/x@sha256:" + "0" * 64]),
    st.dictionaries(st.sampled_from(["repository", "tag", "name", "requests", "limits",
                                     "enabled", "httpGet", "exec", "storage"]),
                    st.one_of(st.none(), st.booleans(), st.sampled_from(["x", "1", ""]),
                              st.dictionaries(st.sampled_from(["cpu", "storage", "path"]),
                                              st.sampled_from(["1", "10Gi"]), max_size=2)),
                    max_size=3))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["image", "resources", "startupProbe",
                                        "livenessProbe", "readinessProbe", "name", "port"]),
                       _UNIT_VALUES, max_size=4))
def test_a_values_mapping_is_a_unit_as_the_plain_test_says(value: dict[str, Any]) -> None:
    plain = (_image(value.get("image")) is not None or _pod_resources(value.get("resources"))
             or any(_probe(value.get(k)) is not None for _, k in PROBES))
    assert _is_unit(value) == plain


class _Meta(dict[Any, Any]):
    """Metadata of another type than ``dict`` (equal to a dict of the same items)."""


_NAMES = st.one_of(st.sampled_from(["web", "db", ""]), st.none(), st.integers(0, 1),
                   st.booleans(), st.just(1.0), st.just(["web"]), st.just({"a": 1}))
_METAS = st.one_of(
    st.fixed_dictionaries({}, optional={"name": _NAMES, "namespace": _NAMES,
                                        "labels": st.just({"a": "b"})}),
    st.builds(_Meta, st.fixed_dictionaries({"name": _NAMES})),
    st.none(), st.just("web"), st.just([]))
_OWNED = st.one_of(
    st.fixed_dictionaries({"kind": st.sampled_from(["Deployment", "Service"])},
                          optional={"metadata": _METAS, "spec": st.integers(0, 1)}),
    st.none(), st.just([]), st.just("text"))


@settings(max_examples=400, deadline=None)
@given(st.lists(_OWNED, max_size=8), st.lists(st.integers(0, 7), max_size=4), _OWNED)
def test_the_bodies_equal_to_an_object_s_are_the_plain_comparison_s(
        bodies: list[Any], shared: list[int], other: Any) -> None:
    """same_bodies compares only bodies of the object's namespace and name: it finds what
    comparing with every body finds (the same objects, equal copies, bodies it cannot
    key), in order."""
    built: list[tuple[Any, Any]] = [(b, n) for n, b in enumerate(bodies)]
    built += [(bodies[i], -1) for i in shared if i < len(bodies)]  # one body in two builds
    built += [(_copy(b), -2) for b in bodies[:2]]  # equal, not the same
    named = _named(built)
    for body in [b for b, _ in built] + [other, _copy(other)]:
        plain = [i for i, (b, _) in enumerate(built) if b is body or b == body]
        assert same_bodies(built, named, body) == plain


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return type(value)({k: _copy(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _reference_walk(value: Any, path: tuple[Any, ...], key: str, depth: int,
                    parent: int | None, units: list[Any]) -> None:
    """values._walk as first written: every key read, every test asked of every mapping."""
    here = parent
    container = _is_unit(value)
    if container or _pod_spec(value) or (depth == 0 and any(k in value for k in PLACEMENT)):
        same = parent is not None and bool(SAME_POD.match(key))
        role = "initContainer" if same and key.lower().startswith("init") else "container"
        units.append(_Unit(value, path, key or "main", role, parent, same, container=container))
        here = len(units) - 1
    if depth >= MAX_DEPTH:
        return
    for child_key, child in value.items():
        name = str(child_key)
        if name in SKIP_KEYS or name in PLACEMENT or name == "image" or name == "resources":
            continue
        if isinstance(child, dict):
            _reference_walk(child, path + (name,), name, depth + 1, here, units)
        elif isinstance(child, list) and CONTAINER_LISTS.match(name):
            role = "initContainer" if "init" in name.lower() else "container"
            for i, item in enumerate(child):
                if isinstance(item, dict) and isinstance(item.get("image"), str):
                    units.append(_Unit(item, path + (name, i), str(item.get("name") or name),
                                       role, here, here is not None, raw=True))


def _units(units: list[Any]) -> list[tuple[Any, ...]]:
    return [(id(u.body), u.path, u.key, u.role, u.parent, u.same_pod, u.raw, u.container)
            for u in units]


_WALK_KEYS = st.sampled_from([
    "image", "resources", "livenessProbe", "containers", "initContainers", "sidecars",
    "extraContainers", "nodeSelector", "tolerations", "env", "config", "init", "sidecar",
    "worker", "spec", "template", "name", "tag", 1, True])
_WALK_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(0, 2), st.sampled_from(["nginx:1.27", "", "x"]),
    st.just({"requests": {"cpu": "1"}}), st.just({"httpGet": {"path": "/"}}),
    st.just({"repository": "r", "tag": "1"}))
_WALK_VALUES = st.recursive(
    _WALK_LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(_WALK_KEYS, inner, max_size=5)),
    max_leaves=50)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(_WALK_KEYS, _WALK_VALUES, max_size=5), st.integers(0, MAX_DEPTH + 1))
def test_a_chart_s_values_are_walked_as_the_plain_walk_does(value: dict[str, Any],
                                                            depth: int) -> None:
    fast: list[Any] = []
    plain: list[Any] = []
    _walk(value, ("spec", "values"), "", depth, None, fast)
    _reference_walk(value, ("spec", "values"), "", depth, None, plain)
    assert _units(fast) == _units(plain)


CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def test_the_walk_of_the_corpus_values_is_the_plain_walk() -> None:
    """Every HelmRelease's ``spec.values`` and every ``*values*.yaml`` document of the
    fixtures and of the corpus (when it is beside the clone)."""
    seen = 0
    for root in (Path(__file__).parent / "fixtures", CORPUS):
        for path in sorted(root.rglob("*.yaml")) if root.is_dir() else []:
            text = path.read_text(errors="replace")
            named = "values" in path.name
            if not named and "HelmRelease" not in text:
                continue
            try:
                docs = list(yaml.safe_load_all(text))
            except yaml.YAMLError:
                continue
            for doc in docs:
                if not isinstance(doc, dict):
                    continue
                spec = doc.get("spec")
                for value in (spec.get("values") if isinstance(spec, dict) else None,
                              doc if named else None):
                    if isinstance(value, dict):
                        fast: list[Any] = []
                        plain: list[Any] = []
                        _walk(value, (), "", 0, None, fast)
                        _reference_walk(value, (), "", 0, None, plain)
                        assert _units(fast) == _units(plain), path
                        seen += 1
    assert seen > 0


def _reference_mounts(persistence: dict[Any, Any], cid: str, name: str) -> list[Any]:
    """A container's volumeMounts as first read: every persistence item read per container."""
    mounts: list[Any] = []
    for key, item in persistence.items():
        if not isinstance(item, dict) or item.get("enabled") is False:
            continue
        default = item.get("hostPath") if item.get("type") == "hostPath" else f"/{key}"
        global_mounts = item.get("globalMounts")
        advanced = mapping(mapping(item.get("advancedMounts")).get(cid)).get(name)
        if global_mounts is None and not item.get("advancedMounts"):
            global_mounts = [{}]
        for entry in items(global_mounts) + items(advanced):
            if isinstance(entry, dict):
                mounts.append({"name": str(key), "mountPath": entry.get("path") or default})
    return mounts


_MOUNTS = st.one_of(st.none(), st.just("x"), st.lists(st.one_of(
    st.just({}), st.just({"path": "/p"}), st.just({"path": ""}), st.just("x")), max_size=3))
_PERSISTENCE_ITEM = st.one_of(st.none(), st.just("x"), st.fixed_dictionaries({}, optional={
    "enabled": st.sampled_from([True, False, None]),
    "type": st.sampled_from(["hostPath", "emptyDir", "persistentVolumeClaim"]),
    "hostPath": st.sampled_from(["/h", None]),
    "globalMounts": _MOUNTS,
    "advancedMounts": st.one_of(st.none(), st.just({}), st.dictionaries(
        st.sampled_from(["main", "worker"]), st.one_of(st.none(), st.dictionaries(
            st.sampled_from(["app", "init", "side"]), _MOUNTS, max_size=2)), max_size=2)),
}))


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.one_of(st.sampled_from(["data", "config", "tmp"]), st.integers(0, 2)),
                       _PERSISTENCE_ITEM, max_size=4),
       st.sampled_from(["main", "worker"]), st.sampled_from(["app", "init", "side"]))
def test_mounts_from_sources_worked_out_once_are_each_container_s_plain_mounts(
        persistence: dict[Any, Any], cid: str, name: str) -> None:
    sources = _mount_sources(persistence)
    assert _mounts(sources, cid, name) == _reference_mounts(persistence, cid, name)
    assert _mounts(sources, cid, name) == _reference_mounts(persistence, cid, name)  # reusable
