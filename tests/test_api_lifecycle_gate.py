"""api-lifecycle's gate before it walks a chart's values for objects written whole
(_mentions_api_version, rules/api_lifecycle.py): marshal's bytes searched for the text, repr
where marshal refuses a value. It must say yes wherever the plain test said yes (repr, which
writes a key named apiVersion as 'apiVersion'), and wherever a mapping has that key: the walk
behind it decides, so saying yes more often changes no finding."""

from __future__ import annotations

import datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.rules.api_lifecycle import _mentions_api_version


class _Text(str):
    """A str subclass (marshal writes none)."""


_TEXTS = st.sampled_from(["apiVersion", "kind", "x", "my apiVersion", "'apiVersion'", "é",
                          "apiversion", ""])
_KEYS = st.one_of(_TEXTS, st.builds(_Text, _TEXTS), st.integers(0, 2))
_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    _TEXTS, st.builds(_Text, _TEXTS), st.just(datetime.date(2024, 1, 2)))
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=30)


def _has_key(value: Any) -> bool:
    if isinstance(value, dict):
        return "apiVersion" in value or any(_has_key(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_key(v) for v in value)
    return False


@settings(max_examples=600, deadline=None)
@given(_VALUES)
def test_the_gate_says_yes_wherever_the_plain_test_or_a_key_does(values: Any) -> None:
    gate = _mentions_api_version(values)
    if "'apiVersion'" in repr(values) or _has_key(values):
        assert gate


def test_the_gate_on_plain_values() -> None:
    deep = {"controllers": {"main": {"containers": [{"image": "x"}]}},
            "extra": [{"rawResources": {"apiVersion": "v1", "kind": "ConfigMap"}}]}
    assert _mentions_api_version(deep)
    assert not _mentions_api_version({"image": {"repository": "a", "tag": "1"}})
    shared = {"a": 1}
    assert not _mentions_api_version({"x": shared, "y": [shared, shared]})
    assert _mentions_api_version({_Text("apiVersion"): "v1"})  # marshal refuses: repr says
    assert _mentions_api_version({"when": datetime.date(2024, 1, 2), "apiVersion": "v1"})
    assert not _mentions_api_version({"when": datetime.date(2024, 1, 2)})
