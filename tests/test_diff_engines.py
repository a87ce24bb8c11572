"""The diff's two engines find the same changes: ``compare`` walks the canonical trees itself
(the default) and DeepDiff is the reference it is checked against, on every pair of real
object bodies the repository ships and on generated pairs."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from reviewbot.diff.objects import compare
from reviewbot.diff.same import same_data
from reviewbot.load.loader import load
from reviewbot.sources.tree import FileRecord, blob_id

from .helpers import ROOT, SEEDS, value_paths


def _bodies() -> Iterator[tuple[str, dict[str, Any]]]:
    for folder in (ROOT / "examples", SEEDS, ROOT / "tests" / "fixtures"):
        for path in sorted(folder.rglob("*.yaml")):
            data = path.read_bytes()
            for doc in load(FileRecord(str(path), blob_id(data), data)).documents:
                if isinstance(doc.value, dict) and isinstance(doc.value.get("kind"), str):
                    yield doc.value["kind"], doc.value


def _same_both_ways(base: Any, head: Any) -> None:
    walked = compare(base, head)
    assert walked == compare(base, head, engine="deepdiff")
    assert compare(head, base) == compare(head, base, engine="deepdiff")


def test_every_pair_of_shipped_bodies_of_a_kind_diffs_the_same() -> None:
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for kind, body in _bodies():
        by_kind.setdefault(kind, []).append(body)
    pairs = 0
    changed = 0
    for bodies in by_kind.values():
        few = bodies[:12]
        for i, base in enumerate(few):
            for head in few[i + 1:]:
                _same_both_ways(base, head)
                pairs += 1
                changed += bool(compare(base, head))
    assert pairs > 500 and changed > 400  # the test compared real differences


_KEYS = st.sampled_from([
    "name", "image", "args", "command", "env", "value", "containers", "ports", "port",
    "containerPort", "protocol", "resources", "requests", "limits", "cpu", "memory", "data",
    "stringData", "labels", "spec", "rules", "from", "to", "mountPath", "key", "x", "y",
])
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 1.0, 1.5, float("nan")]),
    st.sampled_from(["", "a", "b", "1", "true", "500m", "0.5", "1Gi", "1024Mi", "--tp 2",
                     "--max-model-len=8192", "nginx:1.27", "x" * 300]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=5)),
    max_leaves=25,
)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    """A value and an edit of it: a few nodes replaced, removed or added."""
    base = draw(_VALUES)
    head = copy.deepcopy(base)
    for _ in range(draw(st.integers(0, 3))):
        paths = list(value_paths(head))
        path = draw(st.sampled_from(paths))
        if not path:
            head = draw(_VALUES)
            continue
        parent = head
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "remove", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(_VALUES)
        elif action == "remove":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(_KEYS)] = draw(_VALUES)
        else:
            parent.insert(path[-1], draw(_VALUES))
    return base, head


@given(_pairs())
def test_generated_edits_diff_the_same(pair: tuple[Any, Any]) -> None:
    _same_both_ways(*pair)


@given(_pairs(), st.booleans())
def test_generated_edits_inside_an_object_body_diff_the_same(
    pair: tuple[Any, Any], secret: bool,
) -> None:
    base, head = pair
    def body(spec: Any) -> dict[str, Any]:
        kind = "Secret" if secret else "Deployment"
        return {"apiVersion": "v1", "kind": kind, "metadata": {"name": "web"},
                "data": spec, "spec": {"template": {"spec": {"containers": [
                    {"name": "app", "image": "nginx:1.27", "args": spec}]}}}}
    _same_both_ways(body(base), body(head))


def test_a_scalar_list_is_one_change_and_a_list_of_mappings_is_aligned_either_way() -> None:
    base = {"spec": {"hosts": ["a", "b"], "rules": [{"x": 1}, {"x": 2}]}}
    head = {"spec": {"hosts": ["a", "c"], "rules": [{"x": 1}, {"x": 3}]}}
    changes = compare(base, head)
    assert [(c.path, c.old, c.new, c.items_added, c.items_removed) for c in changes] == [
        (("spec", "hosts"), ["a", "b"], ["a", "c"], ("c",), ("b",)),
        (("spec", "rules", "1", "x"), 2, 3, (), ()),
    ]
    assert changes == compare(base, head, engine="deepdiff")


def test_equal_as_data_is_no_change_but_true_is_no_one() -> None:
    assert compare({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]}) == ()
    changes = compare({"a": {"on": True, "n": 1}}, {"a": {"on": 1, "n": 1.0}})
    assert [c.path for c in changes] == [("a", "n"), ("a", "on")]
    assert changes == compare({"a": {"on": True, "n": 1}}, {"a": {"on": 1, "n": 1.0}},
                              engine="deepdiff")


@given(_pairs())
def test_a_pair_skipped_as_the_same_nodes_has_no_change(pair: tuple[Any, Any]) -> None:
    """A review skips comparing two bodies that are the same nodes (an object its folder's
    build made again for the head, alike): ``compare`` finds no change in any such pair, and
    every body is the same nodes as its copy."""
    base, head = pair
    if same_data(base, head):
        assert compare(base, head) == ()
    assert same_data(base, copy.deepcopy(base))


def test_true_is_not_the_same_node_as_one_nor_one_as_one_point_zero() -> None:
    assert same_data({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})
    for base, head in (({"on": True}, {"on": 1}), ([1], [1.0]), ({1: "x"}, {True: "x"}),
                       ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ({"a": []}, {"a": {}})):
        assert not same_data(base, head)
