"""JSON Schema validation: the only module that imports jsonschema (and jsonschema-rs).

Two engines behind one ``Validator``. jsonschema-rs (compiled, a few microseconds per
Deployment) answers "is this valid?" for every object and, for the few that are not, reports
the failures too: each of its errors is mapped onto a ``Failure`` (the failing keyword, its
value in the schema, the sub-failures of ``oneOf``) in the order jsonschema would report them.
The pure-Python jsonschema (60-130 ms to import) is loaded only for a schema jsonschema-rs
cannot compile, without jsonschema-rs, or for an error the mapping does not cover; it fills
the same ``Failure``s, so one set of functions writes every message.

Messages say what was expected and what was found (``expected integer, got string "two"``),
one problem per unknown field or missing field, and never quote a value under a path the
caller marks as secret. ``$ref`` resolution never leaves the process: documents that schemas
point into are registered up front (``Registry``); nothing is fetched.
"""

from __future__ import annotations

import importlib
import json
import numbers
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urljoin

from reviewbot.words import closest

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
    """A schema violation: where, what was expected, which keyword failed."""

    path: Path  # where in the instance the problem is (the object, for a missing field)
    message: str  # what was expected; values shown only when short and not secret
    validator: str  # the JSON Schema keyword that failed
    key: Path = ()  # identity of the problem (path plus the missing or unknown field)
    # the type YAML gave a plain scalar where the schema takes a string ("boolean", "integer",
    # "number"; "" otherwise): quotes would have kept it text
    unquoted: str = ""
    # an unknown field (its name is the mistake: the finding points at the key), and the
    # field of the schema there that it most likely misspells ("" when none is close)
    unknown: str = ""
    suggest: str = ""

    @property
    def identity(self) -> Path:
        return self.key or self.path


class Registry:
    """Schema documents that ``$ref`` may point into, by absolute URI (never fetched).

    ``resources`` may be a function: the documents are made when first needed. ``narrow``,
    a function too, gives the fewer documents jsonschema-rs compiles against first (None:
    all of them; a registry of fewer definitions builds faster); a schema that reaches
    outside them is compiled again against all (:meth:`widen`), so what compiles is the same.
    """

    def __init__(
        self,
        resources: Iterable[tuple[str, Mapping[str, Any]]]
        | Callable[[], Iterable[tuple[str, Mapping[str, Any]]]] = (),
        narrow: Callable[[], Iterable[tuple[str, Mapping[str, Any]]] | None] | None = None,
    ) -> None:
        self._source = resources
        self._resources: tuple[tuple[str, Mapping[str, Any]], ...] | None = (
            None if callable(resources) else tuple(resources))
        self._narrow = narrow
        self._narrowed: tuple[tuple[str, Mapping[str, Any]], ...] | None = None
        self._rs: Any = None
        self._all: Any = None
        self._py: referencing.Registry[Any] | None = None

    @property
    def resources(self) -> tuple[tuple[str, Mapping[str, Any]], ...]:
        if self._resources is None:
            made = self._source() if callable(self._source) else self._source
            self._resources = tuple(made)
        return self._resources

    def fast(self) -> Any:
        if self._rs is None and jsonschema_rs is not None:
            docs = self._narrow() if self._narrow is not None else None
            if docs is None:
                self._rs = self._whole()
            else:
                self._narrowed = tuple(docs)
                self._rs = jsonschema_rs.Registry(list(self._narrowed))
        return self._rs

    def compiled_with(self, rs: Any) -> tuple[tuple[str, Mapping[str, Any]], ...]:
        """The documents of ``rs``, a jsonschema-rs registry this made (:meth:`fast`, or
        :meth:`widen`'s): every ``$ref`` a validator compiled against it follows lands in
        them, so explaining its errors reads these (the narrow registry's definitions)
        and never makes the whole set (every Kubernetes definition unmarshalled and
        prepared: 0.02-0.03 s of a small repository's lint with one invalid object)."""
        if rs is not None and rs is self._rs and rs is not self._all \
                and self._narrowed is not None:
            return self._narrowed
        return self.resources

    def widen(self) -> Any:
        """The registry of every document, when :meth:`fast` holds fewer (else None)."""
        if self._rs is None or self._rs is self._all:
            return None
        return self._whole()

    def _whole(self) -> Any:
        if self._all is None:
            self._all = jsonschema_rs.Registry([(uri, doc) for uri, doc in self.resources])
        return self._all

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


@dataclass(frozen=True)
class Failure:
    """One failed keyword, as either engine reports it: what a message needs, nothing more.

    jsonschema fills it from its ``ValidationError``, jsonschema-rs's errors are mapped onto
    it (``_RsErrors``); the messages (``_explain``, ``describe``) only ever read this type.
    """

    path: Path  # where in the instance (absolute)
    relative: Path  # ... relative to the oneOf/anyOf failure holding it (absolute at the top)
    keyword: str  # the failing keyword ("None" for a false schema, as jsonschema says it)
    value: Any  # the keyword's value in the schema
    instance: Any  # the failing value itself (the caller's object, never a copy)
    schema: Any  # the (sub)schema holding the keyword
    typed: bool  # the instance has a type the holding schema names (for best_match)
    branch: int = -1  # inside a oneOf/anyOf: the index of the branch it failed
    context: tuple[Failure, ...] = ()  # oneOf/anyOf: every branch's failures, branch by branch


class Bundle:
    """Schemas of one registry compiled together, to answer "is this valid?" and nothing else.

    jsonschema-rs compiles what several schemas reference once when they are one validator:
    the pod-bearing kinds each reach PodSpec (about 2 ms each alone), and the 22 Kubernetes
    kinds of GoogleCloudPlatform's samples compile in 11.1 ms one by one, 4.9 ms together. An
    instance of member ``name`` is checked as ``{name: instance}`` against ``{"properties":
    {name: schema, ...}}``: the member's schema judges exactly the instance (it sits under
    one more key, which nothing in a member's schema reads). Messages need the member's own
    validator (the paths of its errors): :class:`Validator` compiles it only for an instance
    the bundle finds invalid. A bundle that does not compile answers None, and each member
    compiles alone, as without a bundle.
    """

    def __init__(self, draft: str, members: Mapping[str, Mapping[str, Any]],
                 registry: Registry) -> None:
        self._draft = draft
        self._members = members  # name -> its schema without "$schema"
        self._registry = registry
        self._compiled: Any = None
        self._tried = False

    def is_valid(self, name: str, instance: Any) -> bool | None:
        """Whether ``instance`` is valid against member ``name`` (None: not compiled)."""
        if not self._tried:
            self._tried = True
            if jsonschema_rs is not None:
                schema = {"$schema": self._draft, "properties": dict(self._members)}
                with suppress(ValueError, TypeError, jsonschema_rs.ReferencingError):
                    self._compiled = jsonschema_rs.validator_for(
                        schema, validate_formats=False, registry=self._registry.fast())
        if self._compiled is None:
            return None
        return bool(self._compiled.is_valid({name: instance}))


class Validator:
    """A compiled validator for one schema (``$ref``s resolved through ``registry``).

    With ``bundle`` (a :class:`Bundle` holding the schema as member ``member``), the bundle
    says whether an instance is valid, and the schema's own jsonschema-rs validator is
    compiled when an instance is not (or the bundle did not compile)."""

    def __init__(
        self, schema: Mapping[str, Any], registry: Registry | None = None, *,
        fast: bool = True, bundle: Bundle | None = None, member: str = "",
    ) -> None:
        self.schema = schema
        self._registry = registry
        self._slow: Any = None
        self._fast: Any = None
        self._compiled_with: Any = None  # the jsonschema-rs registry it compiled against
        self._pending = fast  # its jsonschema-rs validator is still to be compiled
        self._bundle = bundle if fast else None
        self._member = member
        if self._bundle is None:
            self._compiled()
        self._rs_errors: _RsErrors | None = None

    def _compiled(self) -> Any:
        """The schema's jsonschema-rs validator (None: it cannot compile it, or ``fast`` is
        off), compiled once, when first needed."""
        if self._pending:
            self._pending = False
            self._fast, self._compiled_with = _compile_fast(self.schema, self._registry)
        return self._fast

    def _bundled(self, instance: Any) -> bool | None:
        """The bundle's verdict on ``instance`` (None: no bundle, or it did not compile)."""
        if self._bundle is None:
            return None
        return self._bundle.is_valid(self._member, instance)

    def is_valid(self, instance: Any) -> bool:
        verdict = self._bundled(instance)
        if verdict is not None:
            return verdict
        fast = self._compiled()
        if fast is not None:
            return bool(fast.is_valid(instance))
        return not any(True for _ in self._python().iter_errors(instance))

    def problems(
        self, instance: Any, *, redact: Redact | None = None, lenient: Lenient | None = None,
    ) -> list[SchemaProblem]:
        """Every problem of ``instance``, one per field, sorted by path (empty when valid)."""
        verdict = self._bundled(instance)
        if verdict is True:
            return []
        if verdict is None:
            fast = self._compiled()
            if fast is not None and fast.is_valid(instance):
                return []
        failures = self.fast_failures(instance)
        if failures is None:
            failures = self.python_failures(instance)
        seen: set[tuple[Path, str]] = set()
        out: list[SchemaProblem] = []
        for failure in failures:
            for problem in _explain(failure, redact or _never, lenient):
                mark = (problem.identity, problem.message)
                if mark not in seen:
                    seen.add(mark)
                    out.append(problem)
        return out

    def fast_failures(self, instance: Any) -> list[Failure] | None:
        """jsonschema-rs's failures, in jsonschema's order; None when it did not compile the
        schema or reported something only jsonschema can explain (jsonschema answers then)."""
        fast = self._compiled()
        if fast is None:
            return None
        if self._rs_errors is None:
            documents = self._registry.compiled_with(self._compiled_with) \
                if self._registry is not None else ()
            self._rs_errors = _RsErrors(self.schema, documents)
        try:
            return self._rs_errors.failures(fast.iter_errors(instance), instance)
        except _Unexplained:
            return None

    def python_failures(self, instance: Any) -> list[Failure]:
        """jsonschema's failures, sorted by path (stable: its own order within one path)."""
        slow = self._python()
        is_type = slow.TYPE_CHECKER.is_type
        errors = sorted(slow.iter_errors(instance), key=_error_order)
        return [_from_python(error, is_type) for error in errors]

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


def _compile_fast(schema: Mapping[str, Any], registry: Registry | None) -> tuple[Any, Any]:
    """jsonschema-rs's validator of ``schema`` (None: it cannot compile it) and the
    jsonschema-rs registry it was compiled against (None: none)."""
    if jsonschema_rs is None:
        return None, None
    kwargs: dict[str, Any] = {"validate_formats": False}
    if registry is not None:
        kwargs["registry"] = registry.fast()
    try:
        return jsonschema_rs.validator_for(dict(schema), **kwargs), kwargs.get("registry")
    except (ValueError, TypeError, jsonschema_rs.ReferencingError):
        wider = registry.widen() if registry is not None else None
        if wider is not None:  # it reached a document outside the narrow registry
            try:
                return jsonschema_rs.validator_for(
                    dict(schema), validate_formats=False, registry=wider), wider
            except (ValueError, TypeError, jsonschema_rs.ReferencingError):
                pass
        return None, None  # a schema jsonschema-rs cannot compile: the slow path answers


def _never(path: Path) -> bool:
    return False


def _error_order(error: ValidationError) -> tuple[str, ...]:
    return tuple(str(p) for p in error.absolute_path)


def _from_python(error: ValidationError, is_type: Callable[[Any, str], bool]) -> Failure:
    schema_path = error.relative_schema_path
    branch = schema_path[0] if schema_path else -1
    return Failure(
        path=tuple(error.absolute_path), relative=tuple(error.relative_path),
        keyword=str(error.validator), value=error.validator_value, instance=error.instance,
        schema=error.schema, typed=_matches_type(error.schema, error.instance, is_type),
        branch=branch if isinstance(branch, int) and not isinstance(branch, bool) else -1,
        context=tuple(_from_python(sub, is_type) for sub in error.context or ()),
    )


# ---------------------------------------------------------------- jsonschema-rs's errors


class _Unexplained(Exception):
    """jsonschema-rs reported something the adapter does not map one to one."""


# jsonschema-rs error kinds whose keyword is the last step of their evaluation path.
_RS_KEYWORDS = {
    "Type": "type", "Enum": "enum", "Constant": "const", "Pattern": "pattern",
    "MinLength": "minLength", "MaxLength": "maxLength", "MinItems": "minItems",
    "MaxItems": "maxItems", "MinProperties": "minProperties", "MaxProperties": "maxProperties",
    "Minimum": "minimum", "Maximum": "maximum", "ExclusiveMinimum": "exclusiveMinimum",
    "ExclusiveMaximum": "exclusiveMaximum", "MultipleOf": "multipleOf",
    "UniqueItems": "uniqueItems", "Contains": "contains", "Not": "not", "Required": "required",
    "AdditionalProperties": "additionalProperties", "AnyOf": "anyOf",
    "OneOfNotValid": "oneOf", "OneOfMultipleValid": "oneOf",
}
# Keywords whose value maps names to subschemas, or lists subschemas; of those, the ones
# whose name or index is a step into the instance; keywords whose subschema is one.
_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions",
                   "dependentSchemas"})
_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_NAMED_DESCENT = frozenset({"properties", "patternProperties", "prefixItems", "items"})
_DESCENT = frozenset({"items", "additionalProperties", "additionalItems", "contains",
                      "unevaluatedProperties", "unevaluatedItems"})
_OLD_DRAFTS = ("draft-03", "draft-04")  # integers and exclusive bounds of their own


class _RsErrors:
    """Maps jsonschema-rs's errors onto ``Failure``s as jsonschema would have reported them.

    Each error's evaluation path is walked through the schema (``$ref``s resolved in the
    registry's documents): the holding subschema gives the keyword's value, and the position
    of every step in its schema gives jsonschema's order (it applies a schema's keywords in
    the order they are written, branches and properties in theirs). Anything the walk cannot
    follow, and any kind without a keyword of jsonschema's, raises ``_Unexplained``.
    """

    def __init__(self, schema: Mapping[str, Any],
                 documents: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
        self.root = schema
        self.base = _base_of(schema, "")
        self.documents: dict[str, Any] = {uri.rstrip("#"): doc for uri, doc in documents}
        self.old = any(d in str(schema.get("$schema", "")) for d in _OLD_DRAFTS)

    def failures(self, errors: Iterable[Any], instance: Any) -> list[Failure]:
        if self.old:
            raise _Unexplained("draft 3 or 4 schema")
        mapped = [self._map(error, instance, ()) for error in errors]
        mapped.sort(key=lambda pair: (tuple(str(p) for p in pair[1].path), pair[0]))
        return [failure for _, failure in mapped]

    def _map(self, error: Any, root: Any, parent: Path) -> tuple[list[int], Failure]:
        kind = type(error.kind).__name__
        path: Path = tuple(error.instance_path)
        instance = _at(root, path)
        keyword: str
        value: Any
        schema: Any
        if kind == "FalseSchema":
            order, holder, node = self._walk(error, path, leaf=False)
            if node is not False:
                raise _Unexplained(kind)
            keyword, value, schema = "None", None, False
        else:
            keyword = _RS_KEYWORDS.get(kind, "")
            steps = error.evaluation_path
            if not keyword or not steps or steps[-1] != keyword:
                raise _Unexplained(kind)
            order, holder, value = self._walk(error, path, leaf=True)
            schema = holder
        if kind == "Pattern" and isinstance(instance, str) and _search(str(value), instance):
            raise _Unexplained("the pattern dialects disagree")  # jsonschema: no error
        context: list[Failure] = []
        if kind in ("AnyOf", "OneOfNotValid"):
            for index, branch in enumerate(error.kind.context):
                subs = sorted((self._map(sub, root, path) for sub in branch),
                              key=lambda pair: pair[0])
                context += [replace(sub, branch=index) for _, sub in subs]
        failure = Failure(
            path=path, relative=path[len(parent):], keyword=keyword, value=value,
            instance=instance, schema=schema, typed=_matches_type(schema, instance, _is_type),
            context=tuple(context),
        )
        return order, failure

    def _walk(self, error: Any, path: Path, leaf: bool) -> tuple[list[int], Any, Any]:
        """Follows the error's evaluation path from the root: (the position of every step in
        its schema, the schema holding the last step, the last step's node).

        jsonschema-rs 0.61 leaves a ``properties/<name>`` pair out of some evaluation paths
        (a property of a definition reached through a ``$ref`` into another definition's
        property); the walk puts it back from the instance path, and the result must land
        on the keyword jsonschema-rs names as the absolute keyword location.
        """
        steps = list(error.evaluation_path)
        node: Any = self.root
        base, holder, order = self.base, node, []
        depth = 0  # instance path steps the walk has descended into
        container = ""  # at a mapping or list of subschemas: the keyword holding it
        repaired = False
        index = 0
        while index < len(steps):
            step = steps[index]
            last = index == len(steps) - 1
            if not container and isinstance(node, dict) and step not in node:
                wanted = path[depth] if depth < len(path) else None
                props = node.get("properties")
                if isinstance(wanted, str) and isinstance(props, dict) and wanted in props:
                    steps[index:index] = ["properties", wanted]
                    repaired = True
                    continue
                raise _Unexplained(f"no {step!r} in the schema")
            holder = node
            if isinstance(node, dict) and step in node:
                order.append(_position(node, step))
                if not container:
                    base = _base_of(node, base)
                node = node[step]
                if container:
                    depth += container in _NAMED_DESCENT
                    container = ""
                elif leaf and last:
                    break
                elif step == "$ref":
                    node, base = self._resolve(node, base)
                elif step in ("$dynamicRef", "$recursiveRef"):
                    raise _Unexplained(str(step))
                elif step in _MAPS or (step in _LISTS and isinstance(node, list)):
                    container = str(step)
                else:
                    depth += step in _DESCENT
            elif container and isinstance(node, list) and isinstance(step, int) \
                    and 0 <= step < len(node):
                order.append(step)
                node = node[step]
                depth += container in _NAMED_DESCENT
                container = ""
            else:
                raise _Unexplained(f"cannot follow {step!r}")
            index += 1
        if depth != len(path) or container:
            raise _Unexplained("the evaluation path does not reach the instance")
        located = self._located(error, steps[-1] if steps else None)
        if located is None:
            if repaired:
                raise _Unexplained("a repaired evaluation path without a location")
        elif located is not holder:
            raise _Unexplained("the evaluation path and the keyword location disagree")
        return order, holder, node

    def _located(self, error: Any, last: Any) -> Any:
        """The schema holding the keyword at the error's absolute keyword location."""
        location = error.absolute_keyword_location
        if not isinstance(location, str):
            return None
        uri, _, fragment = location.partition("#")
        tokens = fragment.split("/")[1:] if fragment else []
        if not tokens or _token(tokens[-1]) != str(last):
            raise _Unexplained("the keyword location names another keyword")
        parent = "/".join(fragment.split("/")[:-1])
        holder, _ = self._resolve(f"{uri}#{parent}", self.base)
        return holder

    def _resolve(self, ref: Any, base: str) -> tuple[Any, str]:
        if not isinstance(ref, str):
            raise _Unexplained("a $ref that is not a string")
        uri, _, fragment = urljoin(base, ref).partition("#")
        if uri == self.base:
            document = self.root
        elif uri in self.documents:
            document = self.documents[uri]
        else:
            raise _Unexplained(f"$ref into {uri!r}")
        node = document
        if fragment and not fragment.startswith("/"):
            raise _Unexplained("a $ref to an anchor")
        for part in fragment.split("/")[1:] if fragment else ():
            token = _token(part)
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise _Unexplained(f"$ref {ref!r} points at nothing")
        return node, uri


def _token(part: str) -> str:
    return unquote(part).replace("~1", "/").replace("~0", "~")


def _base_of(node: Mapping[str, Any], base: str) -> str:
    identifier = node.get("$id")
    return urljoin(base, identifier).partition("#")[0] if isinstance(identifier, str) else base


def _position(node: Mapping[str, Any], step: Any) -> int:
    for index, key in enumerate(node):
        if key == step:
            return index
    return len(node)


def _at(root: Any, path: Path) -> Any:
    node = root
    for step in path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError) as exc:
            raise _Unexplained(f"no {step!r} in the instance") from exc
    return node


def _is_type(instance: Any, name: str) -> bool:
    """JSON Schema's types as jsonschema's draft 6+ type checker reads Python values."""
    if name == "null":
        return instance is None
    if name == "boolean":
        return isinstance(instance, bool)
    if isinstance(instance, bool):
        return False
    if name == "integer":
        return isinstance(instance, int) or (
            isinstance(instance, float) and instance.is_integer())
    if name == "number":
        return isinstance(instance, numbers.Number)
    if name == "string":
        return isinstance(instance, str)
    if name == "array":
        return isinstance(instance, list)
    if name == "object":
        return isinstance(instance, dict)
    return False


def _matches_type(schema: Any, instance: Any, is_type: Callable[[Any, str], bool]) -> bool:
    """The instance has one of the types its schema names (False when it names none)."""
    expected = schema.get("type") if isinstance(schema, dict) else None
    if expected is None:
        return False
    names = [expected] if isinstance(expected, str) else expected
    try:
        return any(is_type(instance, name) for name in names)
    except Exception:  # an unknown type name: no match
        return False


# ---------------------------------------------------------------- messages


def _explain(
    error: Failure, redact: Redact, lenient: Lenient | None
) -> Iterator[SchemaProblem]:
    path = error.path
    keyword = error.keyword
    if lenient is not None and keyword in VALUE_KEYWORDS and lenient(error.instance):
        return
    if keyword == "additionalProperties" or keyword == "unevaluatedProperties":
        extra = _extra_keys(error)
        for key in extra:
            yield SchemaProblem(path + (key,), f"unknown field {key!r}", keyword, path + (key,),
                                unknown=key, suggest=_misspelt(key, error))
        if extra:
            return
    if keyword == "required":
        wanted: Any = error.value
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
    unquoted = _unquoted(error.instance, error.value) if keyword == "type" else ""
    yield SchemaProblem(path, describe(error, quote=not redact(path)), keyword, unquoted=unquoted)


def _branch_problem(
    error: Failure, redact: Redact, lenient: Lenient | None
) -> SchemaProblem | None:
    """``oneOf``/``anyOf``: one message for the whole choice, or the closest branch's problem."""
    path = error.path
    context = list(error.context)
    by_branch: dict[int, list[Failure]] = {}
    for sub in context:
        by_branch.setdefault(sub.branch, []).append(sub)
    branches = list(by_branch.values())
    if branches and all(len(b) == 1 and b[0].keyword == "type" and not b[0].relative
                        for b in branches):
        types = [t for b in branches for t in _as_list(b[0].value)]
        shown = _show(error.instance) if not redact(path) else ""
        got = f"got {json_type(error.instance)}{shown}"
        return SchemaProblem(path, f"expected {_type_names(types)}, {got}", error.keyword,
                             unquoted=_unquoted(error.instance, types))
    if branches and all(len(b) == 1 and b[0].keyword == "required" for b in branches):
        fields = [str(k) for b in branches for k in _as_list(b[0].value)]
        return SchemaProblem(
            path, f"needs one of the fields {', '.join(repr(f) for f in fields)}",
            error.keyword,
        )
    closest = best_match(context)
    if closest is None:
        return None
    problems = list(_explain(closest, redact, lenient))
    return problems[0] if problems else None


WEAK = frozenset({"anyOf", "oneOf"})  # jsonschema's default weak keywords (no strong ones)


def relevance(failure: Failure) -> tuple[Any, ...]:
    """jsonschema's ``relevance`` key (4.26, default weak keywords, no strong ones), on
    ``Failure``s; ``best_match`` takes the highest. Compared in turn: the shallower instance
    path, then the later one among siblings, then a keyword other than ``oneOf``/``anyOf``,
    then (as jsonschema writes it) ``not`` "the instance has a type the schema names".
    """
    return (-len(failure.relative), failure.relative, failure.keyword not in WEAK,
            not failure.typed)


def best_match(failures: Iterable[Failure]) -> Failure | None:
    """jsonschema's ``best_match`` on ``Failure``s: the most relevant failure; if it is a
    choice, the least relevant of its branches' failures, descending while there is a single
    least relevant one (the first one wins a tie, as in jsonschema)."""
    best = max(failures, key=relevance, default=None)
    if best is None:
        return None
    import heapq  # here: only an invalid choice is explained (0.3% of a one-file lint)

    while best.context:
        smallest = heapq.nsmallest(2, best.context, key=relevance)
        if len(smallest) == 2 and relevance(smallest[0]) == relevance(smallest[1]):
            return best
        best = smallest[0]
    return best


def _extra_keys(error: Failure) -> list[str]:
    instance, schema = error.instance, error.schema
    if not isinstance(instance, dict) or not isinstance(schema, dict):
        return []
    props = schema.get("properties") or {}
    patterns = schema.get("patternProperties") or {}
    return [
        str(k) for k in instance
        if k not in props and not any(_search(p, str(k)) for p in patterns)
    ]


def _misspelt(key: str, error: Failure) -> str:
    """The field of the schema at ``error`` that ``key`` most likely misspells, among those
    the object does not write already (:func:`~reviewbot.words.closest`), or ""."""
    props = error.schema.get("properties") if isinstance(error.schema, dict) else None
    if not isinstance(props, dict):
        return ""
    written = error.instance if isinstance(error.instance, dict) else {}
    return closest(key, (str(k) for k in props if k not in written))


@cache
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None


def _search(pattern: str, text: str) -> bool:
    compiled = _compiled(pattern)
    return bool(compiled and compiled.search(text))


def describe(error: Failure, quote: bool = True) -> str:
    """A message for one failure: what was expected, and (when ``quote``) the short value found."""
    keyword = error.keyword
    value: Any = error.value
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


def _unquoted(instance: Any, types: Any) -> str:
    """The type YAML gave a plain scalar (a boolean or a number) where ``types`` take only a
    string, so that quotes would have kept it text; "" otherwise (an int-or-string port
    that got ``true`` was meant as a number, not as the name "true")."""
    if isinstance(instance, (bool, int, float)) and set(_as_list(types)) - {"null"} == {"string"}:
        return json_type(instance)
    return ""


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
