"""Walks of a CRD's schema written for speed (bot/schema/store.py): the conversion of its
OpenAPI schema to JSON Schema (openapi_to_jsonschema, which skips the keywords a node does not
hold) and the defaulting part of it (defaults_of, which answers None for a leaf at once). Each
is compared with its plain definition, here, on generated schemas and on the CRDs of the
fixtures: the same result, keys in the same order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.schema.store import (
    _COPY,
    Defaults,
    crd_schemas,
    defaults_of,
    openapi_to_jsonschema,
)

FIXTURES = Path(__file__).parent / "fixtures"


def _reference_convert(node: Any, strict: bool, in_choice: bool = False) -> Any:
    out: dict[str, Any] = {}
    kind = node.get("type")
    if node.get("x-kubernetes-int-or-string") is True:
        out["type"] = ["integer", "string", "null"]
    elif isinstance(kind, str):
        out["type"] = [kind, "null"]
    for keyword in _COPY:
        if keyword in node:
            out[keyword] = node[keyword]
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if node.get(exclusive) is True and bound in node:
            out[exclusive] = node[bound]
            del out[bound]
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    props = node.get("properties")
    if isinstance(props, dict):
        out["properties"] = {str(k): _reference_convert(v, strict)
                             for k, v in props.items() if isinstance(v, dict)}
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        out["additionalProperties"] = _reference_convert(extra, strict)
    elif isinstance(extra, bool):
        out["additionalProperties"] = extra
    items = node.get("items")
    if isinstance(items, dict):
        out["items"] = _reference_convert(items, strict)
    if node.get("x-kubernetes-int-or-string") is not True:
        for keyword in ("anyOf", "oneOf", "allOf"):
            branches = node.get(keyword)
            if isinstance(branches, list):
                out[keyword] = [_reference_convert(b, strict, True)
                                for b in branches if isinstance(b, dict)]
    if isinstance(node.get("not"), dict):
        out["not"] = _reference_convert(node["not"], strict, True)
    if node.get("x-kubernetes-embedded-resource") is True:
        out.setdefault("properties", {}).update(
            {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
             "metadata": {"type": "object"}})
    open_object = (node.get("x-kubernetes-preserve-unknown-fields") is True
                   or "additionalProperties" in out)
    if strict and not in_choice and not open_object and "properties" in out:
        out["additionalProperties"] = False
    return out


def _reference_defaults(schema: Any) -> Defaults | None:
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    fields = []
    for key, sub in props.items():
        if not isinstance(sub, dict):
            continue
        below = _reference_defaults(sub)
        if "default" in sub or below is not None:
            fields.append((key, sub, "default" in sub, sub.get("nullable") is True, below))
    extra = schema.get("additionalProperties")
    items = schema.get("items")
    plan = Defaults(
        tuple(fields), frozenset(props),
        _reference_defaults(extra) if isinstance(extra, dict) else None,
        _reference_defaults(items) if isinstance(items, dict) else None,
    )
    if not plan.fields and plan.extra is None and plan.items is None:
        return None
    return plan


def _same(a: Any, b: Any) -> None:
    assert a == b
    assert json.dumps(a) == json.dumps(b)  # the keys in the same order too


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(
    ["string", "object", "integer", "array", "x"]), st.lists(st.integers(0, 2), max_size=2))
_FLAGS = st.sampled_from([
    "type", "enum", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "required", "default", "nullable", "description", "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource", "minItems",
    "const", "format", "title", "x-kubernetes-validations", "x-kubernetes-list-type"])
_NODES = st.recursive(
    st.dictionaries(_FLAGS, _SCALARS, max_size=5),
    lambda inner: st.one_of(
        st.builds(lambda flags, props: {**flags, "properties": props},
                  st.dictionaries(_FLAGS, _SCALARS, max_size=3),
                  st.one_of(st.dictionaries(st.sampled_from(["a", "b", "c"]), inner,
                                            max_size=3), _SCALARS)),
        st.builds(lambda flags, sub, key: {**flags, key: sub},
                  st.dictionaries(_FLAGS, _SCALARS, max_size=3),
                  st.one_of(inner, st.booleans()),
                  st.sampled_from(["additionalProperties", "items", "not"])),
        st.builds(lambda flags, subs, key: {**flags, key: subs},
                  st.dictionaries(_FLAGS, _SCALARS, max_size=2),
                  st.lists(st.one_of(inner, st.integers()), max_size=3),
                  st.sampled_from(["anyOf", "oneOf", "allOf"]))),
    max_leaves=30)


@settings(max_examples=500, deadline=None)
@given(_NODES, st.booleans(), st.booleans())
def test_conversion_is_the_plain_walk_s(node: dict[str, Any], strict: bool,
                                        in_choice: bool) -> None:
    _same(openapi_to_jsonschema(node, strict, in_choice),
          _reference_convert(node, strict, in_choice))


@settings(max_examples=500, deadline=None)
@given(_NODES)
def test_defaults_are_the_plain_walk_s(node: dict[str, Any]) -> None:
    assert defaults_of(node) == _reference_defaults(node)


def test_the_fixtures_crds_convert_and_default_as_the_plain_walks() -> None:
    seen = 0
    for path in sorted(FIXTURES.rglob("*.yaml")):
        try:
            documents = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except yaml.YAMLError:
            continue
        for body in documents:
            if not isinstance(body, dict) or body.get("kind") != "CustomResourceDefinition":
                continue
            for crd in crd_schemas(body, str(path)):
                if crd.openapi is None:
                    continue
                seen += 1
                for strict in (True, False):
                    _same(openapi_to_jsonschema(crd.openapi, strict),
                          _reference_convert(crd.openapi, strict))
                assert defaults_of(crd.openapi) == _reference_defaults(crd.openapi)
    assert seen >= 5
