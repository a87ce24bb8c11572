"""JSON Schema validation: the only module that imports jsonschema (and jsonschema-rs).

Two engines behind one ``Validator``. jsonschema-rs (compiled, a few microseconds per
Deployment) answers "is this valid?" for every object; only for the few that are not does the
pure-Python jsonschema walk the instance again, because its error objects carry what a precise
message needs (the failing keyword, the expected value, the sub-errors of ``oneOf``). Without
jsonschema-rs, or for a schema it cannot compile, jsonschema does both.

Messages say what was expected and what was found (``expected integer, got string "two"``),
one problem per unknown field or missing field, and never quote a value under a path the
caller marks as secret. ``$ref`` resolution never leaves the process: documents that schemas
point into are registered up front (``Registry``); nothing is fetched.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when first needed: valid input never pays for jsonschema (60 ms)
    import referencing
    from jsonschema.exceptions import ValidationError

try:  # the fast path is optional: jsonschema alone gives the same verdicts
    jsonschema_rs: Any = importlib.import_module("jsonschema_rs")
except ImportError:  # pragma: no cover - jsonschema-rs is a declared dependency
    jsonschema_rs = None

Path = tuple[str | int, ...]
Redact = Callable[[Path], bool]
Lenient = Callable[[Any], bool]

# Keywords that judge a value itself (not an object's keys): a value the caller calls
# "lenient" (a Flux ${VAR} still to be substituted) is not judged by them.
VALUE_KEYWORDS = frozenset({
    "type", "enum", "const", "pattern", "format", "minLength", "maxLength", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "oneOf", "anyOf", "not",
})


@dataclass(frozen=True)
class SchemaProblem:
    path: Path  # where in the instance the problem is (the object, for a missing field)
    message: str  # what was expected; values shown only when short and not secret
    validator: str  # the JSON Schema keyword that failed
    key: Path = ()  # identity of the problem (path plus the missing or unknown field)

    @property
    def identity(self) -> Path:
        return self.key or self.path


class Registry:
    """Schema documents that ``$ref`` may point into, by absolute URI (never fetched)."""

    def __init__(self, resources: Iterable[tuple[str, Mapping[str, Any]]] = ()) -> None:
        self.resources: tuple[tuple[str, Mapping[str, Any]], ...] = tuple(resources)
        self._rs: Any = None
        self._py: referencing.Registry[Any] | None = None

    def fast(self) -> Any:
        if self._rs is None and jsonschema_rs is not None:
            docs: list[Any] = [(uri, doc) for uri, doc in self.resources]
            self._rs = jsonschema_rs.Registry(docs)
        return self._rs

    def slow(self) -> referencing.Registry[Any]:
        if self._py is None:
            import referencing
            import referencing.jsonschema

            spec = referencing.jsonschema.DRAFT202012
            self._py = referencing.Registry().with_resources(
                (uri, referencing.Resource.from_contents(doc, default_specification=spec))
                for uri, doc in self.resources
            )
        return self._py


class Validator:
    """A compiled validator for one schema (``$ref``s resolved through ``registry``)."""

    def __init__(
        self, schema: Mapping[str, Any], registry: Registry | None = None, *,
        fast: bool = True,
    ) -> None:
        self.schema = schema
        self._registry = registry
        self._slow: Any = None
        self._fast: Any = _compile_fast(schema, registry) if fast else None

    def is_valid(self, instance: Any) -> bool:
        if self._fast is not None:
            return bool(self._fast.is_valid(instance))
        return not any(True for _ in self._python().iter_errors(instance))

    def problems(
        self, instance: Any, *, redact: Redact | None = None, lenient: Lenient | None = None,
    ) -> list[SchemaProblem]:
        """Every problem of ``instance``, one per field, sorted by path (empty when valid)."""
        if self._fast is not None and self._fast.is_valid(instance):
            return []
        seen: set[tuple[Path, str]] = set()
        out: list[SchemaProblem] = []
        errors = sorted(self._python().iter_errors(instance), key=_error_order)
        for error in errors:
            for problem in _explain(error, redact or _never, lenient):
                mark = (problem.identity, problem.message)
                if mark not in seen:
                    seen.add(mark)
                    out.append(problem)
        return out

    def _python(self) -> Any:
        if self._slow is None:
            import jsonschema

            cls = jsonschema.validators.validator_for(
                self.schema, default=jsonschema.Draft202012Validator
            )
            if self._registry is not None:
                self._slow = cls(self.schema, registry=self._registry.slow())
            else:
                self._slow = cls(self.schema)
        return self._slow


def _compile_fast(schema: Mapping[str, Any], registry: Registry | None) -> Any:
    if jsonschema_rs is None:
        return None
    kwargs: dict[str, Any] = {"validate_formats": False}
    if registry is not None:
        kwargs["registry"] = registry.fast()
    try:
        return jsonschema_rs.validator_for(dict(schema), **kwargs)
    except (ValueError, TypeError, jsonschema_rs.ReferencingError):
        return None  # a schema jsonschema-rs cannot compile: the slow path answers alone


def _never(path: Path) -> bool:
    return False


def _error_order(error: ValidationError) -> tuple[str, ...]:
    return tuple(str(p) for p in error.absolute_path)


# ---------------------------------------------------------------- messages


def _explain(
    error: ValidationError, redact: Redact, lenient: Lenient | None
) -> Iterator[SchemaProblem]:
    path: Path = tuple(error.absolute_path)
    keyword = str(error.validator)
    if lenient is not None and keyword in VALUE_KEYWORDS and lenient(error.instance):
        return
    if keyword == "additionalProperties" or keyword == "unevaluatedProperties":
        extra = _extra_keys(error)
        for key in extra:
            yield SchemaProblem(path + (key,), f"unknown field {key!r}", keyword, path + (key,))
        if extra:
            return
    if keyword == "required":
        wanted: Any = error.validator_value
        missing = [k for k in _as_list(wanted)
                   if isinstance(error.instance, dict) and k not in error.instance]
        for key in missing:  # one error per missing field; duplicates are dropped by the caller
            yield SchemaProblem(path, f"missing required field {key!r}", keyword, path + (key,))
        if missing:
            return
    if keyword in ("oneOf", "anyOf") and error.context:
        sub = _branch_problem(error, redact, lenient)
        if sub is not None:
            yield sub
            return
    yield SchemaProblem(path, describe(error, quote=not redact(path)), keyword)


def _branch_problem(
    error: ValidationError, redact: Redact, lenient: Lenient | None
) -> SchemaProblem | None:
    """``oneOf``/``anyOf``: one message for the whole choice, or the closest branch's problem."""
    path: Path = tuple(error.absolute_path)
    context = list(error.context or ())
    by_branch: dict[int, list[ValidationError]] = {}
    for sub in context:
        branch = sub.relative_schema_path[0] if sub.relative_schema_path else -1
        by_branch.setdefault(int(branch) if isinstance(branch, int) else -1, []).append(sub)
    branches = list(by_branch.values())
    if branches and all(len(b) == 1 and b[0].validator == "type" and not b[0].relative_path
                        for b in branches):
        expected = _type_names([t for b in branches for t in _as_list(b[0].validator_value)])
        shown = _show(error.instance) if not redact(path) else ""
        got = f"got {json_type(error.instance)}{shown}"
        return SchemaProblem(path, f"expected {expected}, {got}", str(error.validator))
    if branches and all(len(b) == 1 and b[0].validator == "required" for b in branches):
        fields = [str(k) for b in branches for k in _as_list(b[0].validator_value)]
        return SchemaProblem(
            path, f"needs one of the fields {', '.join(repr(f) for f in fields)}",
            str(error.validator),
        )
    from jsonschema.exceptions import best_match

    closest = best_match(context)
    if closest is None:
        return None
    problems = list(_explain(closest, redact, lenient))
    return problems[0] if problems else None


def _extra_keys(error: ValidationError) -> list[str]:
    instance, schema = error.instance, error.schema
    if not isinstance(instance, dict) or not isinstance(schema, dict):
        return []
    props = schema.get("properties") or {}
    patterns = schema.get("patternProperties") or {}
    return [
        str(k) for k in instance
        if k not in props and not any(_search(p, str(k)) for p in patterns)
    ]


@cache
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


def _search(pattern: str, text: str) -> bool:
    compiled = _compiled(pattern)
    return bool(compiled and compiled.search(text))


def describe(error: ValidationError, quote: bool = True) -> str:
    """A message for one error: what was expected, and (when ``quote``) the short value found."""
    keyword = str(error.validator)
    value: Any = error.validator_value
    instance = error.instance
    shown = _show(instance) if quote else ""
    got = f"got {json_type(instance)}{shown}"
    if keyword == "type":
        return f"expected {_type_names(_as_list(value))}, {got}"
    if keyword == "enum":
        listed = [v for v in value if v is not None] or list(value)
        more = ", ..." if len(listed) > 12 else ""
        choices = ", ".join(_literal(v) for v in listed[:12]) + more
        return f"expected one of {choices}{_show(instance, ', got') if quote else ''}"
    if keyword == "const":
        return f"expected {_literal(value)}{_show(instance, ', got') if quote else ''}"
    if keyword == "pattern":
        return f"expected a string matching {value!r}{_show(instance, ', got') if quote else ''}"
    if keyword == "format":
        return f"expected a {value} string{_show(instance, ', got') if quote else ''}"
    if keyword in ("minLength", "maxLength"):
        bound = "at least" if keyword == "minLength" else "at most"
        return f"expected {bound} {value} characters, got {_len(instance)}"
    if keyword in ("minItems", "maxItems"):
        bound = "at least" if keyword == "minItems" else "at most"
        return f"expected {bound} {value} items, got {_len(instance)}"
    if keyword in ("minProperties", "maxProperties"):
        bound = "at least" if keyword == "minProperties" else "at most"
        return f"expected {bound} {value} fields, got {_len(instance)}"
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        relation = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">",
                    "exclusiveMaximum": "<"}[keyword]
        return f"expected a number {relation} {value}{_show(instance, ', got') if quote else ''}"
    if keyword == "multipleOf":
        return f"expected a multiple of {value}{_show(instance, ', got') if quote else ''}"
    if keyword == "uniqueItems":
        return "expected unique items, found duplicates"
    if keyword == "oneOf":
        return "matches more than one of the allowed forms" if not error.context else (
            "matches none of the allowed forms")
    if keyword == "anyOf":
        return "matches none of the allowed forms"
    if keyword == "not":
        return "is a form that is not allowed here"
    if keyword == "required":
        return "missing required field"
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        return "has fields that are not allowed here"
    if keyword == "propertyNames":
        return "has a field name that is not allowed"
    if keyword in ("dependentRequired", "dependencies"):
        return "a field requires another field that is missing"
    if keyword == "additionalItems" or keyword == "items":
        return "has more items than allowed"
    if keyword == "contains":
        return "has no item of the required form"
    if keyword == "false":
        return "is not allowed here"
    return f"fails the schema's {keyword!r} check"  # never error.message: it quotes the value


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def _type_names(types: Sequence[Any]) -> str:
    names = [str(t) for t in dict.fromkeys(types)]
    meaningful = [n for n in names if n != "null"] or names
    return " or ".join(meaningful)


def _literal(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _len(value: Any) -> str:
    return str(len(value)) if isinstance(value, (str, list, dict)) else json_type(value)


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
    if isinstance(value, bool):
        return f"{prefix} {str(value).lower()}"
    if isinstance(value, (str, int, float)):
        text = json.dumps(value) if isinstance(value, str) else repr(value)
        if len(text) <= 40 and "\n" not in text:
            return f"{prefix} {text}"
    return ""
