"""A patch's target is read once per patch (patches.Target: its patterns compiled, its
label and annotation selectors parsed, a plain kind compared first) and tried on every
object of a build. The reference here is the plain reading of kustomize's selector, each
field checked on each object as written; on generated selectors and objects (renamed ones
among them) both select the same objects."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.load.loader import load
from reviewbot.model.patches import Target, label_match, smp_targets
from reviewbot.model.resource import Patch, Renames, Resource, dict_of
from reviewbot.sources.tree import FileRecord, blob_id


def _doc() -> Any:
    data = b"{}\n"
    return load(FileRecord("k.yaml", blob_id(data), data)).documents[0]


DOC = _doc()


def _matches(pattern: str, value: str) -> bool:
    if pattern == value:
        return True
    try:
        return re.fullmatch(pattern, value) is not None
    except re.error:
        return False


def _reference(r: Resource, selector: Mapping[str, Any] | None, patch: Patch) -> bool:
    if r.doc is None and not r.body.get("metadata"):
        return False
    if selector is None:
        return smp_targets(r, patch) if isinstance(patch.body, dict) else False
    first = r.renames.previous[0] if r.renames.previous else None
    for key in ("kind", "name", "namespace"):
        wanted = selector.get(key)
        if isinstance(wanted, str) and wanted and not _matches(wanted, getattr(r, key)):
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


# few values, so that most selectors select some of the objects and miss others
_KINDS = ["Deployment", "HelmRelease", "Namespace"]
_NAMES = ["web", "db", ""]
_APIS = ["apps/v1", "helm.toolkit.fluxcd.io/v2"]
_LABELS = st.dictionaries(st.sampled_from(["app", "tier"]), st.sampled_from(["web", "false"]),
                          max_size=2)


@st.composite
def _resources(draw: Any) -> Resource:
    meta: dict[str, Any] = {"name": draw(st.sampled_from(_NAMES))}
    namespace = draw(st.sampled_from([None, "apps", "flux"]))
    if namespace:
        meta["namespace"] = namespace
    for key in ("labels", "annotations"):
        found = draw(_LABELS)
        if found:
            meta[key] = found
    body: dict[str, Any] = {"apiVersion": draw(st.sampled_from(_APIS)),
                            "kind": draw(st.sampled_from(_KINDS))}
    if draw(st.booleans()):
        body["metadata"] = meta
    previous = tuple(draw(st.lists(st.tuples(st.sampled_from(_KINDS),
                                             st.sampled_from(["", "apps", "flux"]),
                                             st.sampled_from(_NAMES)), max_size=2)))
    return Resource(draw(st.sampled_from([DOC, None])), (), body, {}, Renames(previous))


_PATTERNS = st.sampled_from(["", "web", "w.*", "(web|db)", "HelmRelease", "Helm.*", "[",
                             "apps", "fl.*", "Namespace"])
_SELECTORS = st.one_of(st.none(), st.fixed_dictionaries({}, optional={
    "kind": _PATTERNS, "name": _PATTERNS, "namespace": _PATTERNS,
    "group": st.sampled_from(["", "apps", "helm.toolkit.fluxcd.io"]),
    "version": st.sampled_from(["", "v1", "v2"]),
    "labelSelector": st.sampled_from(["", "app=web", "app in (web, db)", "tier notin (false)",
                                      "!app", "app,tier!=web"]),
    "annotationSelector": st.sampled_from(["", "app==web", "tier"]),
}))
_PATCHES = st.one_of(
    st.builds(lambda kind, name, ns: {"apiVersion": "apps/v1", "kind": kind,
                                      "metadata": {"name": name, "namespace": ns}},
              st.sampled_from(_KINDS), st.sampled_from(_NAMES),
              st.sampled_from(["", "apps", "default", "flux"])),
    st.just([{"op": "add", "path": "/a", "value": 1}]))


@settings(max_examples=1000, deadline=None)
@given(_SELECTORS, _PATCHES, st.lists(_resources(), min_size=1, max_size=6))
def test_a_target_read_once_selects_what_the_plain_reading_selects(
        selector: Mapping[str, Any] | None, body: Any, resources: list[Resource]) -> None:
    patch = Patch(body, DOC, ())
    target = Target(selector, patch)
    assert [target.selects(r) for r in resources] == [
        _reference(r, selector, patch) for r in resources]


@settings(max_examples=300, deadline=None)
@given(_SELECTORS, _PATCHES, st.lists(_resources(), min_size=1, max_size=6))
def test_a_selector_read_once_is_read_again_as_a_copy_of_it_is(
        selector: Mapping[str, Any] | None, body: Any, resources: list[Resource]) -> None:
    """A selector is read once per mapping (a parent's patches copied into each child's
    spec share their targets): a target of the same mapping, again, reads and selects as
    a target of a copy read for the first time."""
    patch = Patch(body, DOC, ())
    first, again = Target(selector, patch), Target(selector, patch)
    fresh = Target(dict(selector) if selector is not None else None, patch)
    read = [k for k in Target.__slots__ if k != "selector"]
    for target in (again, fresh):
        assert target.selector == selector
        assert [getattr(target, k) for k in read] == [getattr(first, k) for k in read]
        assert [target.selects(r) for r in resources] == [
            _reference(r, selector, patch) for r in resources]


def test_the_generated_cases_select_and_miss() -> None:
    """The generator above is no test if no selector selects (or all do)."""
    outcomes: set[bool] = set()

    @settings(max_examples=200, deadline=None)
    @given(_SELECTORS, _PATCHES, _resources())
    def run(selector: Mapping[str, Any] | None, body: Any, r: Resource) -> None:
        if selector:
            outcomes.add(Target(selector, Patch(body, DOC, ())).selects(r))

    run()
    assert outcomes == {True, False}


def test_label_selectors_read_as_kubectl_reads_them() -> None:
    labels = {"app": "web", "tier": "front"}
    cases = [("app=web", True), ("app==web", True), ("app=db", False), ("app!=db", True),
             ("app!=web", False), ("gone!=x", True), ("app in (db, web)", True),
             ("app in (db)", False), ("app notin (db)", True), ("app notin (web)", False),
             ("gone notin (web)", True), ("gone in (web)", False), ("app", True),
             ("gone", False), ("!gone", True), ("!app", False),
             ("app=web,tier=front", True), ("app=web,tier=back", False),
             ("app in (web,db),!gone", True)]
    assert [(s, label_match(s, labels)) for s, _ in cases] == cases
