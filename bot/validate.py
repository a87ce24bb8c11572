"""JSON Schema validation: the only module that imports jsonschema (and jsonschema-rs)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class SchemaProblem:
    path: Path  # where in the instance
    message: str  # what was expected, without quoting long values
    validator: str


class Validator:
    """A compiled validator for one schema."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
        self._validator = cls(schema)

    def problems(self, instance: Any) -> Iterator[SchemaProblem]:
        for error in sorted(self._validator.iter_errors(instance), key=lambda e: list(e.path)):
            yield from _flatten(error)


def _flatten(error: jsonschema.ValidationError) -> Iterator[SchemaProblem]:
    path = tuple(error.absolute_path)
    validator = str(error.validator)
    if validator == "additionalProperties":
        extra = _extra_keys(error)
        for key in extra:
            yield SchemaProblem(path + (key,), f"unknown field {key!r}", validator)
        if extra:
            return
    yield SchemaProblem(path, describe(error), validator)


def _extra_keys(error: jsonschema.ValidationError) -> list[str]:
    instance, schema = error.instance, error.schema
    if not isinstance(instance, dict) or not isinstance(schema, dict):
        return []
    props = schema.get("properties") or {}
    patterns = schema.get("patternProperties") or {}
    import re

    return [
        str(k) for k in instance
        if k not in props and not any(re.search(p, str(k)) for p in patterns)
    ]


def describe(error: jsonschema.ValidationError) -> str:
    validator = error.validator
    value: Any = error.validator_value
    if validator == "type":
        expected = value if isinstance(value, str) else " or ".join(value)
        return f"expected {expected}, got {json_type(error.instance)}{_show(error.instance)}"
    if validator == "required":
        missing = [k for k in value if isinstance(error.instance, dict) and k not in error.instance]
        return f"missing required field {missing[0]!r}" if missing else "missing required field"
    if validator == "enum":
        return f"expected one of {', '.join(map(str, value))}{_show(error.instance, ', got')}"
    return error.message if len(error.message) < 200 else error.message[:200] + "..."


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _show(value: Any, prefix: str = "") -> str:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        text = repr(value) if not isinstance(value, str) else f'"{value}"'
        if len(text) <= 40:
            return f"{prefix} {text}"
    return ""
