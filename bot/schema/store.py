"""Schema lookup for the `schema` rule: which JSON Schema validates an (apiVersion, kind).

Sources, in order of precedence:

1. **Kubernetes**: the strict JSON Schemas that the PyPI package ``kubernetes-validate`` ships
   (one folder per Kubernetes minor; the newest by default). Its ``_definitions.json`` is read
   directly, once per process, and carries every type and the group/version/kind of every
   top-level kind, so a built-in kind needs no other file. The package itself is never
   imported (its ``validate()`` re-reads the definitions on every call).
2. **Schema folders** the user configures, in kubeconform's layout: ``{kind}_{version}.json``
   (kind lower case) or ``{group}/{kind}_{version}.json``, or a kubeconform template path
   (``.../{{ .ResourceKind }}{{ .KindSuffix }}.json``).
3. **CustomResourceDefinitions in the linted tree**: each served version's
   ``openAPIV3Schema``, converted to strict JSON Schema (unknown fields are errors, as
   ``kubectl apply`` with server-side field validation reports them).
4. **Bundled** schemas in ``schemas/`` (KServe, Flux, Argo CD), which name their kind in
   ``x-kubernetes-group-version-kind``.

``metadata`` of custom resources is validated as Kubernetes ``ObjectMeta`` everywhere. One
compiled validator is kept per (apiVersion, kind). An apiVersion in a built-in group that
Kubernetes does not serve (``extensions/v1beta1`` Deployment, a misspelt kind) is reported by
the rule; any other object without a schema is only counted.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import marshal
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property, partial
from pathlib import Path
from typing import Any

from reviewbot import startup
from reviewbot.errors import ReviewbotError
from reviewbot.schema.validate import Bundle, Registry, Validator

K8S_URI = "https://kubernetes.io/api/_definitions.json"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
INLINE = "x-kubernetes-inline"  # bundled schemas: merge these definitions' fields here
GVK = "x-kubernetes-group-version-kind"
# Kinds of the core group that are files, not API objects (kubeconfig, kustomize plugins).
NOT_API = frozenset({("", "v1", "Config")})
_VERSION_DIR = re.compile(r"^v(\d+)\.(\d+)\.\d+-local-strict$")
_TEMPLATE = re.compile(r"\{\{\s*\.(\w+)\s*\}\}")


def split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


# ---------------------------------------------------------------- Kubernetes


def _schema_root() -> Path:
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise ReviewbotError("the kubernetes-validate package is not installed", 3)
    return Path(next(iter(spec.submodule_search_locations))) / "kubernetes-json-schema"


@cache
def kubernetes_versions() -> tuple[str, ...]:
    """Bundled Kubernetes minors, oldest first ("1.25", ..., "1.37")."""
    found = []
    for entry in _schema_root().iterdir():
        match = _VERSION_DIR.match(entry.name)
        if match and (entry / "_definitions.json").is_file():
            found.append((int(match.group(1)), int(match.group(2))))
    return tuple(f"{a}.{b}" for a, b in sorted(found))


_MINOR = re.compile(r"^(\d+)\.(\d+)(\.\d+)?$")  # compiled while importing (cached)


def resolve_kubernetes_version(requested: str) -> str:
    """The newest bundled minor not newer than ``requested`` ("" means the newest)."""
    versions = kubernetes_versions()
    if not versions:
        raise ReviewbotError("kubernetes-validate ships no strict schemas", 3)
    text = requested.strip().lstrip("vV")
    if not text:
        return versions[-1]
    match = _MINOR.match(text)
    if not match:
        raise ReviewbotError(f"kubernetes-version {requested!r}: expected a version like 1.31")
    want = (int(match.group(1)), int(match.group(2)))
    if want[0] != 1:
        raise ReviewbotError(
            f"kubernetes-version {requested!r}: Kubernetes versions are 1.x (the bundled "
            f"schemas cover {versions[0]} to {versions[-1]})")
    usable = [v for v in versions if tuple(map(int, v.split("."))) <= want]
    if not usable:
        raise ReviewbotError(
            f"kubernetes-version {requested}: the bundled schemas cover "
            f"{versions[0]} to {versions[-1]}"
        )
    return usable[-1]


@dataclass(frozen=True)
class KubernetesSchemas:
    """One Kubernetes minor's definitions, indexed by group/version/kind."""

    version: str
    raw: Mapping[str, Any]  # the $defs of _definitions.json as read (names and properties)
    index: Mapping[tuple[str, str, str], str]  # (group, version, kind) -> definition name
    groups: frozenset[str]  # every built-in API group
    registry: Registry = field(compare=False)
    definitions: _Definitions = field(compare=False)  # prepared, read when first needed
    # definition name -> its validator (:func:`kubernetes_validator`), and the bundle it is
    # compiled in (:meth:`SchemaStore.expect`); both bounded by the definitions
    validators: dict[str, Validator] = field(default_factory=dict, compare=False, repr=False)
    bundles: dict[str, Bundle] = field(default_factory=dict, compare=False, repr=False)

    @property
    def defs(self) -> Mapping[str, Any]:
        """Every definition, prepared (type-only oneOfs merged, descriptions dropped)."""
        return self.definitions.everything()

    def served(self, kind: str) -> list[str]:
        """apiVersions that serve ``kind`` in this Kubernetes version."""
        return sorted(
            (f"{g}/{v}" if g else v) for (g, v, k) in self.index if k == kind
        )


@cache
def kubernetes_schemas(version: str) -> KubernetesSchemas:
    path = _schema_root() / f"v{version}.0-local-strict" / "_definitions.json"
    try:
        blobs, index, groups = startup.derived(
            f"k8s-definitions-{version}", str(path), lambda: read_definitions(path))
    except (OSError, ValueError) as exc:
        raise ReviewbotError(f"cannot read the Kubernetes {version} schemas: {exc}", 3) from exc

    def prepared() -> tuple[Mapping[str, Any], Mapping[str, Sequence[str]]]:
        try:
            kept, refs = startup.derived(
                f"k8s-prepared-{version}", str(path), lambda: read_prepared(path))
        except (OSError, ValueError) as exc:
            raise ReviewbotError(
                f"cannot read the Kubernetes {version} schemas: {exc}", 3) from exc
        return _Unmarshalled(kept), refs

    definitions = _Definitions(prepared)
    registry = Registry(definitions.documents, narrow=definitions.narrow)
    return KubernetesSchemas(version, _Unmarshalled(blobs), index, frozenset(groups), registry,
                             definitions)


def read_definitions(path: Path) -> tuple[
        dict[str, bytes], dict[tuple[str, str, str], str], list[str]]:
    """``_definitions.json`` as the store keeps it (once per installation and Kubernetes
    version, :func:`~reviewbot.startup.derived`): each definition marshalled on its own, read
    back when first used (a Deployment reaches 121 of 862: parsing the 1.8 MB of JSON was
    a sixth of a one-file lint), the index of the kinds and the API groups."""
    document = json.loads(path.read_text(encoding="utf-8"))
    defs: dict[str, Any] = document.get("$defs") or {}
    index: dict[tuple[str, str, str], str] = {}
    groups: set[str] = set()
    for name, definition in defs.items():
        for gvk in definition.get(GVK) or ():
            groups.add(str(gvk.get("group", "")))
            if name.endswith((".DeleteOptions", ".WatchEvent")):
                continue  # listed under every group; not objects anyone writes
            index[(str(gvk.get("group", "")), str(gvk["version"]), str(gvk["kind"]))] = name
    return {name: marshal.dumps(d) for name, d in defs.items()}, index, sorted(groups)


def read_prepared(path: Path) -> tuple[dict[str, bytes], dict[str, list[str]]]:
    """What jsonschema-rs compiles against, made once per installation and Kubernetes
    version (:func:`~reviewbot.startup.derived`), as :func:`read_definitions` keeps the
    definitions: each definition prepared (:func:`_prepare`) and marshalled on its own, and
    the definitions each one references (:func:`_referenced`). Preparing them and following
    their references was 10-25 ms of every lint that validates (GoogleCloudPlatform's
    samples reach 288 definitions)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    defs: dict[str, Any] = document.get("$defs") or {}
    refs: dict[str, list[str]] = {}
    for name, definition in defs.items():
        _prepare(definition)
        refs[name] = sorted(t for t in _referenced(definition) if t in defs)
    return {name: marshal.dumps(d) for name, d in defs.items()}, refs


class _Unmarshalled(Mapping[str, Any]):
    """The definitions by name, each unmarshalled when first asked for (the same object
    from then on: :func:`_prepare` changes it in place)."""

    def __init__(self, blobs: Mapping[str, bytes]) -> None:
        self._blobs = blobs
        self._values: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            value = self._values[name] = marshal.loads(self._blobs[name])
            return value

    def __contains__(self, name: object) -> bool:
        return name in self._blobs

    def __iter__(self) -> Iterator[str]:
        return iter(self._blobs)

    def __len__(self) -> int:
        return len(self._blobs)


class _Definitions:
    """The definitions, prepared (:func:`_prepare`), read when first needed; and the fewer of
    them jsonschema-rs compiles the run's kinds against.

    Preparing all 862 definitions and building jsonschema-rs's registry of them measured
    22 ms of every lint; the kinds of a tree reach a fraction (onedr0p-home-ops: 199, in
    8 ms). ``expect`` names the definitions the run validates against before the first
    compile; the registry then holds those and everything they reference (and ObjectMeta,
    which converted CRDs reference). A schema reaching outside is compiled again against
    every definition (``Registry.widen``), so a validator is the one the whole set makes.
    ``load`` gives the prepared definitions by name and the names each one references
    (:func:`read_prepared`).
    """

    def __init__(self, load: Callable[[], tuple[Mapping[str, Any],
                                                Mapping[str, Sequence[str]]]]) -> None:
        self._load = load
        self.expected: set[str] = set()
        self._everything: dict[str, Any] | None = None

    @cached_property
    def _loaded(self) -> tuple[Mapping[str, Any], Mapping[str, Sequence[str]]]:
        return self._load()

    @property
    def defs(self) -> Mapping[str, Any]:
        """Every definition, prepared, by name."""
        return self._loaded[0]

    @property
    def refs(self) -> Mapping[str, Sequence[str]]:
        """The definitions each definition references by ``$ref``."""
        return self._loaded[1]

    def expect(self, names: Iterable[str]) -> None:
        self.expected.update(n for n in names if n in self.defs)

    def everything(self) -> Mapping[str, Any]:
        """Every definition, prepared, in a plain dict (what jsonschema-rs takes)."""
        if self._everything is None:
            self._everything = dict(self.defs)
        return self._everything

    def documents(self) -> list[tuple[str, Mapping[str, Any]]]:
        return [(K8S_URI, {"$defs": self.everything()})]

    def narrow(self) -> list[tuple[str, Mapping[str, Any]]] | None:
        if not self.expected:
            return None
        reached = _reached(self.refs, self.expected | {OBJECT_META})
        defs = self.defs
        return [(K8S_URI, {"$defs": {name: defs[name] for name in reached}})]


_LOCAL_DEF = "#/$defs/"


def _referenced(schema: Any) -> set[str]:
    """The Kubernetes definitions a schema names by ``$ref`` (``#/$defs/<name>...`` within
    the definitions, ``<K8S_URI>#/$defs/<name>...`` from another schema)."""
    found: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                local = ref[len(K8S_URI):] if ref.startswith(K8S_URI) else ref
                if local.startswith(_LOCAL_DEF):
                    found.add(local[len(_LOCAL_DEF):].split("/", 1)[0])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _reached(refs: Mapping[str, Sequence[str]], names: Iterable[str]) -> set[str]:
    """``names`` and every definition they reference (``refs``), transitively."""
    found: set[str] = set()
    pending = [n for n in names if n in refs]
    while pending:
        name = pending.pop()
        if name not in found:
            found.add(name)
            pending.extend(t for t in refs[name] if t not in found)
    return found


def _prepare(node: Any) -> None:
    """Drop ``description`` (half the bytes; compiling is twice as fast without it) and turn
    ``oneOf: [{type: [string, null]}, {type: [integer, null]}]`` into one ``type`` list.

    IntOrString and Quantity are written as a ``oneOf`` of two nullable types, which rejects
    ``null`` (it matches both) and makes a poor message; a type list means the same otherwise.
    """
    if isinstance(node, dict):
        node.pop("description", None)
        for keyword in ("oneOf", "anyOf"):
            branches = node.get(keyword)
            if isinstance(branches, list) and branches and all(
                isinstance(b, dict) and set(b) == {"type"} for b in branches
            ):
                types: list[str] = []
                for b in branches:
                    types += b["type"] if isinstance(b["type"], list) else [b["type"]]
                del node[keyword]
                node["type"] = list(dict.fromkeys(types))
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for schema in value.values():  # a property may be *named* description
                    _prepare(schema)
            else:
                _prepare(value)
    elif isinstance(node, list):
        for value in node:
            _prepare(value)


def kubernetes_validator(k8s: KubernetesSchemas, name: str) -> Validator:
    """The validator of definition ``name``, one per Kubernetes version and definition (in
    the bundle :meth:`SchemaStore.expect` made for it, when it named the kind first)."""
    found = k8s.validators.get(name)
    if found is None:
        found = k8s.validators[name] = Validator(
            {"$schema": DRAFT, **_kind_ref(name)}, k8s.registry, bundle=k8s.bundles.get(name),
            member=name)
    return found


def _kind_ref(name: str) -> dict[str, str]:
    return {"$ref": f"{K8S_URI}#/$defs/{name}"}


def bundle_kinds(k8s: KubernetesSchemas, names: Iterable[str]) -> None:
    """Compile the validators of the definitions ``names`` that have none yet as one
    :class:`~reviewbot.schema.validate.Bundle` (when there are several): what they reference
    is compiled once for all of them."""
    fresh = sorted(n for n in set(names) if n not in k8s.validators and n not in k8s.bundles)
    if len(fresh) < 2:
        return
    bundle = Bundle(DRAFT, {n: _kind_ref(n) for n in fresh}, k8s.registry)
    for name in fresh:
        k8s.bundles[name] = bundle


# ---------------------------------------------------------------- CRDs


@dataclass(frozen=True)
class CrdSchema:
    """One served version's schema of a CustomResourceDefinition in the tree."""

    group: str
    version: str
    kind: str
    openapi: Mapping[str, Any] | None  # as the CRD writes it; None: it declares no schema
    source: str  # "path/to/crd.yaml"
    # the API server prunes fields the schema does not name (apiextensions v1; v1beta1 only
    # with spec.preserveUnknownFields: false): an unknown field is then an error
    prune: bool = True

    @cached_property
    def schema(self) -> Mapping[str, Any] | None:
        """As JSON Schema, converted when first asked for: an operator bundle's CRDs of
        megabytes each are converted only when an object of their kind is validated."""
        return _convert_crd(self.openapi, self.prune)

    def same_schema(self, other: CrdSchema) -> bool:
        return (self.openapi is other.openapi or self.openapi == other.openapi
                or self.schema == other.schema)


def crd_schemas(body: Mapping[str, Any], source: str) -> Iterator[CrdSchema]:
    """The served versions of one CustomResourceDefinition (apiextensions v1 or v1beta1)."""
    spec = body.get("spec")
    if not isinstance(spec, dict):
        return
    group, names = spec.get("group"), spec.get("names")
    kind = names.get("kind") if isinstance(names, dict) else None
    if not isinstance(group, str) or not isinstance(kind, str):
        return
    shared = _openapi(spec.get("validation"))  # v1beta1: one schema for every version
    # apiextensions v1beta1 keeps unknown fields unless it says preserveUnknownFields: false
    v1beta1 = str(body.get("apiVersion", "")).endswith("/v1beta1")
    keep = spec.get("preserveUnknownFields")
    prune = keep is False or (keep is None and not v1beta1)
    versions = spec.get("versions")
    if isinstance(versions, list) and versions:
        for entry in versions:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            if entry.get("served") is False:
                continue
            schema = _openapi(entry.get("schema")) or shared
            yield CrdSchema(group, entry["name"], kind, schema, source, prune)
    elif isinstance(spec.get("version"), str):
        yield CrdSchema(group, spec["version"], kind, shared, source, prune)


def _openapi(block: Any) -> Mapping[str, Any] | None:
    if isinstance(block, dict) and isinstance(block.get("openAPIV3Schema"), dict):
        schema: Mapping[str, Any] = block["openAPIV3Schema"]
        return schema
    return None


def _convert_crd(schema: Mapping[str, Any] | None, prune: bool = True
                 ) -> Mapping[str, Any] | None:
    if schema is None:
        return None
    root = openapi_to_jsonschema(schema, strict=prune)
    properties = root.setdefault("properties", {})
    properties["apiVersion"] = {"type": "string"}
    properties["kind"] = {"type": "string"}
    properties["metadata"] = {"$ref": f"{K8S_URI}#/$defs/{OBJECT_META}"}
    root["$schema"] = DRAFT
    return root


@dataclass(frozen=True)
class Defaults:
    """What the API server defaults by a CRD's structural schema before it validates
    (:func:`defaults_of`): a field the object lacks (or sets null, unless ``nullable``) whose
    schema has a ``default`` gets it, in every object present (a default object is defaulted
    inside in turn); nothing else changes. Only the parts of the schema with a ``default`` at
    or below them are kept: an object is walked where a default can land, not along every
    property of the schema (hmcts' HelmReleases: 12,333 schema nodes visited for 548
    objects)."""

    # (field, its schema, whether it has a default, whether it is nullable, what defaults
    # below it): the properties with a default at or below them, in the schema's order
    fields: tuple[tuple[str, Mapping[str, Any], bool, bool, Defaults | None], ...]
    named: frozenset[str]  # every property the schema names (additionalProperties: the rest)
    extra: Defaults | None  # additionalProperties, when a default lies below it
    items: Defaults | None  # items, when a default lies below it

    def apply(self, value: Any) -> Any:
        """``value`` defaulted; copy on write: ``value`` itself is never changed."""
        if isinstance(value, dict):
            out: dict[str, Any] | None = None
            for key, sub, has_default, nullable, below in self.fields:
                current = value.get(key)
                if has_default and (key not in value or (current is None and not nullable)):
                    current = json_copy(sub["default"])
                elif key not in value:
                    continue
                new = below.apply(current) if below is not None else current
                if key not in value or new is not value[key]:
                    out = out if out is not None else dict(value)
                    out[key] = new
            extra = self.extra
            if extra is not None:
                for key, item in value.items():
                    if key not in self.named:
                        new = extra.apply(item)
                        if new is not item:
                            out = out if out is not None else dict(value)
                            out[key] = new
            return out if out is not None else value
        if isinstance(value, list) and self.items is not None:
            items = [self.items.apply(item) for item in value]
            if any(a is not b for a, b in zip(items, value, strict=True)):
                return items
        return value


_ATOMIC = frozenset({str, int, float, bool, type(None)})


def json_copy(value: Any) -> Any:
    """``copy.deepcopy(value)`` for a default: its dicts and lists copied, its immutable
    scalars (str, int, float, bool, None) shared, as deepcopy does; any other value is
    deepcopied. A default is data read from YAML or JSON: deepcopy's Python walk with its
    memo of every node cost hmcts-sds-flux-config 1,918 calls for 997 defaults. (Aliases
    inside one default, YAML anchors, come out as equal copies: equal data to validate.)"""
    kind = type(value)
    if kind in _ATOMIC:
        return value
    if kind is dict:
        return {k: json_copy(v) for k, v in value.items()}
    if kind is list:
        return [json_copy(v) for v in value]
    return copy.deepcopy(value)


def defaults_of(schema: Mapping[str, Any]) -> Defaults | None:
    """The defaulting part of a CRD's structural schema (None: it defaults nothing).

    Asked of every node of the schema: a leaf (no properties, additionalProperties or items,
    most of a CRD's nodes) answers None at once, without the plan it would make and drop."""
    if _SHAPED.isdisjoint(schema):
        return None
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    fields = []
    for key, sub in props.items():
        if not isinstance(sub, dict):
            continue
        below = defaults_of(sub)
        if "default" in sub or below is not None:
            fields.append((key, sub, "default" in sub, sub.get("nullable") is True, below))
    extra = schema.get("additionalProperties")
    items = schema.get("items")
    extra_plan = defaults_of(extra) if isinstance(extra, dict) else None
    items_plan = defaults_of(items) if isinstance(items, dict) else None
    if not fields and extra_plan is None and items_plan is None:
        return None
    return Defaults(tuple(fields), frozenset(props), extra_plan, items_plan)


# the keys of a schema node below which a default can lie (defaults_of)
_SHAPED = frozenset({"properties", "additionalProperties", "items"})


_COPY = (
    "enum", "pattern", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems",
    "uniqueItems", "minProperties", "maxProperties", "multipleOf", "required", "const",
)


def openapi_to_jsonschema(node: Mapping[str, Any], strict: bool, in_choice: bool = False) -> Any:
    """A structural OpenAPI v3 schema (CRD flavour) as JSON Schema 2020-12.

    Every typed node also accepts ``null``: the API server prunes a null field that is not
    ``nullable`` instead of refusing it (and keeps it when it is), so null is never a type
    error. ``x-kubernetes-int-or-string`` is integer or string;
    ``x-kubernetes-preserve-unknown-fields`` keeps an object open; with ``strict`` every other
    object that lists its properties gets ``additionalProperties: false`` (not inside
    ``anyOf``/``oneOf``/``allOf``/``not`` branches, which only add constraints there).
    OpenAPI's boolean ``exclusiveMinimum`` becomes the JSON Schema number form.
    """
    if node.keys() <= _PLAIN:  # most of a CRD's nodes: a typed leaf, described
        kind = node.get("type")
        return {"type": [kind, "null"]} if isinstance(kind, str) else {}
    out: dict[str, Any] = {}
    get = node.get
    int_or_string = get("x-kubernetes-int-or-string") is True
    kind = get("type")
    if int_or_string:
        out["type"] = ["integer", "string", "null"]
    elif isinstance(kind, str):
        out["type"] = [kind, "null"]
    if not _COPIED.isdisjoint(node):  # most nodes hold none of them
        for keyword in _COPY:
            if keyword in node:
                out[keyword] = node[keyword]
        for bound, exclusive in (("minimum", "exclusiveMinimum"),
                                 ("maximum", "exclusiveMaximum")):
            if get(exclusive) is True and bound in node:
                out[exclusive] = node[bound]
                del out[bound]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    props = get("properties")
    if isinstance(props, dict):
        out["properties"] = {
            str(k): openapi_to_jsonschema(v, strict)
            for k, v in props.items() if isinstance(v, dict)
        }
    extra = get("additionalProperties")
    if isinstance(extra, dict):
        out["additionalProperties"] = openapi_to_jsonschema(extra, strict)
    elif isinstance(extra, bool):
        out["additionalProperties"] = extra
    items = get("items")
    if isinstance(items, dict):
        out["items"] = openapi_to_jsonschema(items, strict)
    if not _RARE.isdisjoint(node):
        if not int_or_string:
            for keyword in ("anyOf", "oneOf", "allOf"):
                branches = get(keyword)
                if isinstance(branches, list):
                    out[keyword] = [openapi_to_jsonschema(b, strict, True)
                                    for b in branches if isinstance(b, dict)]
        if isinstance(get("not"), dict):
            out["not"] = openapi_to_jsonschema(node["not"], strict, True)
        if get("x-kubernetes-embedded-resource") is True:
            out.setdefault("properties", {}).update(
                {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                 "metadata": {"type": "object"}}
            )
    open_object = (
        get("x-kubernetes-preserve-unknown-fields") is True or "additionalProperties" in out
    )
    if strict and not in_choice and not open_object and "properties" in out:
        out["additionalProperties"] = False
    return out


# the keywords openapi_to_jsonschema copies or reads (a node with none of them is typed
# and walked only) and those it rarely meets
_COPIED = frozenset(_COPY)
_RARE = frozenset({"anyOf", "oneOf", "allOf", "not", "x-kubernetes-embedded-resource"})
# keys the conversion reads nothing of but ``type``: a node holding no other converts to its
# type alone
_PLAIN = frozenset({"type", "description", "format", "default", "nullable", "title", "example",
                    "x-kubernetes-validations", "x-kubernetes-list-type",
                    "x-kubernetes-list-map-keys", "x-kubernetes-map-type"})


# ---------------------------------------------------------------- schema folders


def _kind_suffix(group: str, version: str) -> str:
    first = group.split(".")[0] if group else ""
    return f"-{first}-{version}" if first else f"-{version}"


@dataclass(frozen=True)
class Location:
    """A user schema folder or kubeconform template path (relative to the repository root)."""

    text: str
    root: Path

    @property
    def remote(self) -> bool:
        return self.text.startswith(("http://", "https://")) or self.text == "default"

    def candidates(self, group: str, version: str, kind: str, k8s: str) -> list[Path]:
        if "{{" in self.text:
            values = {
                "ResourceKind": kind.lower(), "ResourceAPIVersion": version, "Group": group,
                "KindSuffix": _kind_suffix(group, version),
                "NormalizedKubernetesVersion": f"v{k8s}.0", "StrictSuffix": "-strict",
            }
            text = _TEMPLATE.sub(lambda m: values.get(m.group(1), m.group(0)), self.text)
            return [self._path(text)]
        base = self._path(self.text)
        name = f"{kind.lower()}_{version}.json"
        return [base / group / name, base / name] if group else [base / name]

    def _path(self, text: str) -> Path:
        path = Path(text)
        return path if path.is_absolute() else self.root / path


def load_json_schema(path: Path) -> Mapping[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ReviewbotError(f"schema file {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ReviewbotError(f"schema file {path}: not a JSON object")
    return data


# ---------------------------------------------------------------- bundled schemas


@cache
def bundled_schemas() -> Mapping[tuple[str, str, str], tuple[str, Mapping[str, Any]]]:
    """(group, version, kind) -> (file name, schema) for every schema in ``schemas/``; each
    file read as JSON once per installation and kept marshalled beside the package's
    bytecode (:func:`~reviewbot.startup.derived`: parsing the seven files' JSON was 2-3 ms
    of every lint of a Flux repository, reading them back a quarter of it)."""
    out: dict[tuple[str, str, str], tuple[str, Mapping[str, Any]]] = {}
    from reviewbot.schema.files import FOLDER

    for name in sorted(os.listdir(FOLDER)):
        if not name.endswith(".json") or name.endswith(".schema.json"):
            continue  # (reviewbot's own: its configuration's and its output's)
        path = os.path.join(FOLDER, name)
        schema = startup.derived(f"schema-{name[:-len('.json')]}", path,
                                 partial(_read_json, path))
        for gvk in schema.get(GVK) or ():
            out[(gvk.get("group", ""), gvk["version"], gvk["kind"])] = (name, schema)
    return out


def _read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@cache
def _bundled_schema(version: str, name: str) -> Any:
    """The bundled schema in file ``name`` with its inline definitions expanded against
    Kubernetes ``version``'s (:func:`expand_inline`), once per run: what the store expects
    and what it compiles."""
    schema = next(s for n, s in bundled_schemas().values() if n == name)
    return expand_inline(schema, kubernetes_schemas(version).raw)  # (property names only)


@cache
def _bundled_validator(version: str, name: str) -> Validator:
    return Validator(_bundled_schema(version, name), kubernetes_schemas(version).registry)


def expand_inline(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Any:
    """Resolve ``x-kubernetes-inline: [definition, ...]``: the definitions' fields become
    properties of that node (as ``$ref``s), the way Go embeds a struct with ``json:",inline"``.
    Fields a definition lacks in the chosen Kubernetes version are simply not added."""
    if INLINE not in json.dumps(schema):
        return schema

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        out = {k: walk(v) for k, v in node.items() if k != INLINE}
        for name in node.get(INLINE) or ():
            definition = defs.get(name) or {}
            props = out.setdefault("properties", {})
            for prop in definition.get("properties") or {}:
                props.setdefault(prop, {"$ref": f"{K8S_URI}#/$defs/{name}/properties/{prop}"})
        return out

    return walk(schema)


def standalone(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` with every Kubernetes definition it needs inlined under ``$defs``
    (for tools that cannot resolve ``https://kubernetes.io/api/_definitions.json``)."""
    needed: dict[str, Any] = {}
    pending: list[str] = []

    def rewrite(node: Any) -> Any:
        if isinstance(node, list):
            return [rewrite(v) for v in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out[key] = _local_ref(value, pending)
            elif key == "properties" and isinstance(value, dict):
                out[key] = {k: rewrite(v) for k, v in value.items()}
            else:
                out[key] = rewrite(value)
        return out

    root = rewrite(expand_inline(schema, defs))
    while pending:
        name = pending.pop()
        if name not in needed and name in defs:
            needed[name] = None
            needed[name] = rewrite(copy.deepcopy(defs[name]))
    if needed:
        root.setdefault("$defs", {}).update(needed)
    return dict(root)


_DEF_FRAGMENT = re.compile(r"^/\$defs/([^/]+)")


def _local_ref(ref: str, pending: list[str]) -> str:
    base, _, fragment = ref.partition("#")
    if base and base != K8S_URI and not base.endswith("_definitions.json"):
        return ref
    match = _DEF_FRAGMENT.match(fragment)
    if match:
        pending.append(match.group(1))
    return f"#{fragment}"


# ---------------------------------------------------------------- the store


@dataclass(frozen=True)
class Lookup:
    """The validator for an (apiVersion, kind), where it came from, and its defaults."""

    validator: Validator | None
    source: str  # where the schema came from ("" when none)
    unserved: str | None = None  # a built-in group does not serve this apiVersion/kind
    # a CRD's structural schema's defaults: the API server applies them before it validates
    defaults: Defaults | None = None

    def applied(self, body: Any) -> Any:
        """``body`` as the API server validates it (a CRD's defaults applied)."""
        return self.defaults.apply(body) if self.defaults is not None else body

    def declares(self, name: str) -> bool:
        """Whether the schema names ``name`` among the object's own top-level fields."""
        schema = self.validator.schema if self.validator is not None else None
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        return isinstance(properties, Mapping) and name in properties


@dataclass
class SchemaStore:
    """Finds (and caches) one compiled validator per (apiVersion, kind)."""

    kubernetes_version: str = ""
    locations: Sequence[str] = ()
    root: Path = field(default_factory=Path.cwd)
    crds: Iterable[CrdSchema] = ()
    skipped_locations: list[str] = field(default_factory=list)
    _cache: dict[tuple[str, str], Lookup] = field(default_factory=dict)
    _crds: dict[tuple[str, str, str], CrdSchema] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.k8s = kubernetes_schemas(resolve_kubernetes_version(self.kubernetes_version))
        for crd in self.crds:
            self._crds.setdefault((crd.group, crd.version, crd.kind), crd)
        self._locations = []
        for text in self.locations:
            location = Location(str(text), self.root)
            if location.remote:
                self.skipped_locations.append(str(text))
            else:
                self._locations.append(location)

    def expect(self, kinds: Iterable[tuple[str, str]]) -> None:
        """The (apiVersion, kind)s this run validates, said before the first lookup: the
        Kubernetes definitions they reach (their own, or those a bundled schema references)
        are what jsonschema-rs compiles against first (``_Definitions``)."""
        names: set[str] = set()
        kinds_named: set[str] = set()  # the Kubernetes kinds' own definitions
        bundled: Mapping[tuple[str, str, str], tuple[str, Mapping[str, Any]]] | None = None
        for api_version, kind in set(kinds):
            group, version = split_api_version(api_version)
            name = self.k8s.index.get((group, version, kind))
            if name is not None:
                names.add(name)
                kinds_named.add(name)
                continue
            if bundled is None:
                bundled = bundled_schemas()
            hit = bundled.get((group, version, kind))
            if hit is not None:
                names.update(_referenced(_bundled_schema(self.k8s.version, hit[0])))
        self.k8s.definitions.expect(names)
        bundle_kinds(self.k8s, kinds_named)

    def lookup(self, api_version: str, kind: str) -> Lookup:
        key = (api_version, kind)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._cache[key] = self._find(api_version, kind)
        return hit

    def _find(self, api_version: str, kind: str) -> Lookup:
        group, version = split_api_version(api_version)
        name = self.k8s.index.get((group, version, kind))
        if name is not None:
            return Lookup(kubernetes_validator(self.k8s, name), f"Kubernetes {self.k8s.version}")
        for location in self._locations:
            for path in location.candidates(group, version, kind, self.k8s.version):
                schema = load_json_schema(path)
                if schema is not None and _names(schema, group, version, kind):
                    return Lookup(Validator(schema, self.k8s.registry), str(path))
        crd = self._crds.get((group, version, kind))
        if crd is not None and crd.schema is not None and crd.openapi is not None:
            return Lookup(Validator(crd.schema, self.k8s.registry), f"CRD in {crd.source}",
                          defaults=defaults_of(crd.openapi))
        bundled = bundled_schemas().get((group, version, kind))
        if bundled is not None:
            return Lookup(_bundled_validator(self.k8s.version, bundled[0]),
                          f"schemas/{bundled[0]}")
        if group in self.k8s.groups and (group, version, kind) not in NOT_API:
            return Lookup(None, "", self._unserved(api_version, kind))
        return Lookup(None, "")

    def _unserved(self, api_version: str, kind: str) -> str:
        served = self.k8s.served(kind)
        where = f"Kubernetes {self.k8s.version} serves no {kind} in {api_version}"
        if served:
            return f"{where} (it serves {kind} as {', '.join(served)})"
        return f"{where}, nor in any other API version"

    def export(self, folder: Path) -> None:
        """Write the tree's CRD schemas and the bundled schemas, standalone, in kubeconform's
        ``{group}/{kind}_{version}.json`` layout (for running kubeconform)."""
        entries: dict[tuple[str, str, str], Mapping[str, Any]] = {
            key: schema for key, (_, schema) in bundled_schemas().items()
        }
        for key, crd in self._crds.items():
            if crd.schema is not None and crd.group:
                entries[key] = crd.schema
        for (group, version, kind), schema in entries.items():
            target = folder / group / f"{kind.lower()}_{version}.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(standalone(schema, self.k8s.defs)), encoding="utf-8")


def _names(schema: Mapping[str, Any], group: str, version: str, kind: str) -> bool:
    """A schema file that names its kinds must name this one (flat layouts mix groups)."""
    listed = schema.get(GVK)
    if not listed:
        return True
    return any(
        g.get("group", "") == group and g.get("version") == version and g.get("kind") == kind
        for g in listed if isinstance(g, dict)
    )
