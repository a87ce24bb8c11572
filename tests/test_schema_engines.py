"""Both engines explain an invalid object the same way: jsonschema-rs's failures, mapped, give
exactly the problems (messages, paths, keys, order) the pure-Python jsonschema gives, on
objects generated from the schemas reviewbot ships; and a lint with schema errors never
imports jsonschema."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from reviewbot.config import config_schema
from reviewbot.load.loader import load
from reviewbot.schema.store import DRAFT, K8S_URI, SchemaStore, crd_schemas, split_api_version
from reviewbot.schema.validate import Bundle, Validator
from reviewbot.sources.tree import FileRecord

from .helpers import ROOT

KINDS = [
    ("apps/v1", "Deployment"), ("apps/v1", "StatefulSet"), ("batch/v1", "CronJob"),
    ("v1", "Pod"), ("v1", "Service"), ("v1", "Secret"), ("v1", "ConfigMap"),
    ("v1", "PersistentVolumeClaim"), ("networking.k8s.io/v1", "Ingress"),
    ("networking.k8s.io/v1", "NetworkPolicy"), ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
    # the bundled schemas
    ("serving.kserve.io/v1beta1", "InferenceService"), ("helm.toolkit.fluxcd.io/v2", "HelmRelease"),
    ("kustomize.toolkit.fluxcd.io/v1", "Kustomization"),
    ("source.toolkit.fluxcd.io/v1", "GitRepository"), ("argoproj.io/v1alpha1", "Application"),
    # custom resources whose CRDs are in the tree
    ("example.com/v1", "Widget"), ("example.com/v1", "Gadget"),
]

# A CRD with the choices and bounds converted CRD schemas carry (the fixture CRD has few).
GADGET_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [mode]
            oneOf: [{required: [image]}, {required: [source]}]
            properties:
              mode: {type: string, enum: [fast, safe]}
              image: {type: string, pattern: '^[a-z0-9./-]+(:[\\w.-]+)?$', maxLength: 20}
              source:
                type: object
                anyOf:
                - required: [git]
                - required: [url]
                  properties: {url: {type: string, minLength: 5}}
                properties:
                  git: {type: string}
                  url: {type: string}
                  depth: {type: integer, minimum: 1, maximum: 10}
              ratio: {type: number, minimum: 0, exclusiveMinimum: true, multipleOf: 0.5}
              port: {x-kubernetes-int-or-string: true}
              tags: {type: array, items: {type: string}, minItems: 1, maxItems: 3,
                     uniqueItems: true}
              limits:
                type: object
                additionalProperties: {type: integer}
                maxProperties: 2
              either:
                anyOf: [{type: integer}, {type: object, required: [count],
                        properties: {count: {type: integer}}}]
              plain:
                type: object
                not: {required: [forbidden]}
                properties:
                  forbidden: {type: string}
                  kept: {type: boolean}
              free: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""

STRINGS = ["web", "", "${CLUSTER}", "RollingUpdate", "nginx:1.27", "a" * 45, "Always", "TCP",
           "fast", "s3cr3t", "bad value"]
WRONG: list[Any] = [5, -1, 0, 2.5, True, None, "x", "${VAR}", [], {}, ["x"], {"a": 1}, [None]]


@cache
def _store() -> SchemaStore:
    crds = [*crd_schemas(_yaml(ROOT / "tests/fixtures/schema/fail/crd-in-tree/crd.yaml"),
                         "crd.yaml"),
            *crd_schemas(_yaml_text(GADGET_CRD), "gadget.yaml")]
    return SchemaStore(crds=crds)


def _yaml_text(text: str) -> dict[str, Any]:
    loaded = load(FileRecord("x.yaml", "blob", textwrap.dedent(text).encode()))
    value: dict[str, Any] = loaded.documents[0].value
    return value


def _yaml(path: Path) -> dict[str, Any]:
    return _yaml_text(path.read_text())


@cache
def _pair(api_version: str, kind: str) -> tuple[Validator, Validator]:
    store = _store()
    if kind == "Config":
        fast = Validator(config_schema())
        return fast, Validator(fast.schema, fast=False)
    fast_or_none = store.lookup(api_version, kind).validator
    assert fast_or_none is not None, kind
    return fast_or_none, Validator(fast_or_none.schema, store.k8s.registry, fast=False)


def _resolve(ref: str, root: Mapping[str, Any]) -> Any:
    base, _, fragment = ref.partition("#")
    node: Any = {"$defs": _store().k8s.defs} if base == K8S_URI or not base else root
    if base == "" and "$defs" not in fragment:
        node = root
    for part in fragment.split("/")[1:]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _instance(schema: Any, draw: Callable[[Any], Any], root: Mapping[str, Any],
              depth: int = 0) -> Any:
    """A value for ``schema``, mostly right, now and then wrong (a type, a field, a bound)."""
    if not isinstance(schema, dict) or depth > 7 or draw(st.integers(0, 11)) == 0:
        return draw(st.sampled_from(WRONG))
    if isinstance(schema.get("$ref"), str):
        return _instance(_resolve(schema["$ref"], root), draw, root, depth)
    for choice in ("oneOf", "anyOf"):
        if schema.get(choice) and draw(st.booleans()):
            branch = draw(st.sampled_from(schema[choice]))
            merged = {k: v for k, v in schema.items() if k != choice}
            merged.update({k: v for k, v in branch.items() if k not in merged}
                          if isinstance(branch, dict) else {})
            return _instance(merged, draw, root, depth)
    if schema.get("enum") and draw(st.integers(0, 3)):
        return draw(st.sampled_from(schema["enum"]))
    types = schema.get("type")
    names = [types] if isinstance(types, str) else list(types or [])
    if not names:
        names = ["object"] if "properties" in schema else ["string", "integer", "object"]
    kind = draw(st.sampled_from([n for n in names if n != "null"] or names))
    if kind == "object":
        props: Mapping[str, Any] = schema.get("properties") or {}
        required = [k for k in schema.get("required") or () if isinstance(k, str)]
        chosen = [k for k in required if draw(st.integers(0, 7))]
        if props:
            chosen += draw(st.lists(st.sampled_from(sorted(props)), max_size=4, unique=True))
        out: dict[str, Any] = {}
        for key in dict.fromkeys(chosen):
            out[key] = _instance(props.get(key, {}), draw, root, depth + 1)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and draw(st.booleans()):
            out[draw(st.sampled_from(["k", "app", "x"]))] = _instance(extra, draw, root,
                                                                      depth + 1)
        if draw(st.integers(0, 5)) == 0:
            out[draw(st.sampled_from(["bogus", "imagPullPolicy", "Spec"]))] = 1
        return out
    if kind == "array":
        count = draw(st.integers(0, 2))
        return [_instance(schema.get("items", {}), draw, root, depth + 1) for _ in range(count)]
    if kind == "string":
        return draw(st.sampled_from(STRINGS))
    if kind == "integer":
        return draw(st.sampled_from([0, 1, 3, 80, -5, 70000]))
    if kind == "number":
        return draw(st.sampled_from([0, 0.5, 1.5, -1.25, 2]))
    if kind == "boolean":
        return draw(st.booleans())
    return draw(st.sampled_from(WRONG))


def _redact(path: tuple[str | int, ...]) -> bool:
    return bool(path) and path[0] in ("data", "stringData", "spec")


def _lenient(value: Any) -> bool:
    return isinstance(value, str) and "${" in value


@pytest.mark.parametrize(("api_version", "kind"), [*KINDS, ("", "Config")])
@given(data=st.data())
def test_jsonschema_rs_failures_explain_like_jsonschema(
    api_version: str, kind: str, data: st.DataObject,
) -> None:
    fast, slow = _pair(api_version, kind)
    root = fast.schema
    start = _resolve(root["$ref"], root) if "$ref" in root else root
    instance = _instance(start, data.draw, root)
    if kind != "Config" and isinstance(instance, dict) and data.draw(st.integers(0, 3)):
        instance = {"apiVersion": api_version, "kind": kind, **instance}
    assume(not fast.is_valid(instance))
    assert slow.is_valid(instance) is False
    assert fast.fast_failures(instance) is not None  # jsonschema-rs explained it itself
    options: dict[str, Any] = {}
    if data.draw(st.booleans()):
        options = {"redact": _redact, "lenient": _lenient}
    assert fast.problems(instance, **options) == slow.problems(instance, **options)


def test_order_within_one_field_follows_the_schema() -> None:
    """jsonschema-rs reports an object's unknown fields before its missing ones; jsonschema
    in the order the schema writes its keywords (Container: required before
    additionalProperties). The mapped failures keep jsonschema's order."""
    fast, slow = _pair("v1", "Pod")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"imagPullPolicy": "Always"}]}}
    expected = [
        "spec.containers.0: missing required field 'name'",
        "spec.containers.0.imagPullPolicy: unknown field 'imagPullPolicy'",
    ]
    for validator in (fast, slow):
        found = [".".join(map(str, p.path)) + ": " + p.message for p in validator.problems(pod)]
        assert found == expected


def test_a_choice_is_explained_by_its_most_relevant_branch() -> None:
    """jsonschema's best_match: the shallowest failure among the branches' failures."""
    fast, slow = _pair("example.com/v1", "Gadget")
    cases = [
        ({"mode": "fast", "image": "x", "either": {"count": "three"}},
         [(("spec", "either"), "expected integer, got object")]),
        ({"mode": "fast", "source": {"url": "ab"}},
         [(("spec", "source"), "missing required field 'git'")]),
        ({"mode": "fast", "source": {"depth": 0}},
         [(("spec", "source"), "needs one of the fields 'git', 'url'"),
          (("spec", "source", "depth"), "expected a number >= 1, got 0")]),
        ({"mode": "fast", "image": "x", "source": {"git": "g"}},
         [(("spec",), "matches more than one of the allowed forms")]),
    ]
    for spec, expected in cases:
        body = {"spec": spec}
        assert fast.fast_failures(body) is not None
        for validator in (fast, slow):
            assert [(p.path, p.message) for p in validator.problems(body)] == expected


def test_a_lint_with_schema_errors_never_imports_jsonschema(tmp_path: Path) -> None:
    (tmp_path / ".reviewbot.yaml").write_text("rules:\n  schema: {kubeconform: never}\n")
    (tmp_path / "app.yaml").write_text(textwrap.dedent("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          replicas: two
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              containers:
              - {name: web, image: nginx:1.27, imagPullPolicy: Always, imagPulPolicy: Never}
        """))
    code = textwrap.dedent(f"""
        import json, sys
        from reviewbot.cli import main
        code = main(["lint", {str(tmp_path)!r}, "--format", "json",
                     "--output", {str(tmp_path / "out.json")!r}])
        loaded = sorted(m for m in sys.modules
                        if m.split(".")[0] in ("jsonschema", "referencing",
                                               "jsonschema_specifications"))
        print(json.dumps([code, loaded]))
        """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, check=False, timeout=120)
    code_, loaded = json.loads(run.stdout.strip().splitlines()[-1])
    report = json.loads((tmp_path / "out.json").read_text())
    messages = [f["message"] for f in report["findings"] if f["rule"] == "schema"]
    assert code_ == 1, run.stderr
    assert messages == [
        'spec.replicas: expected integer, got string "two"',
        "spec.template.spec.containers[0].imagPullPolicy: unknown field 'imagPullPolicy'",
        "spec.template.spec.containers[0].imagPulPolicy: unknown field 'imagPulPolicy'",
    ]
    assert loaded == []


@cache
def _bundled() -> dict[tuple[str, str], tuple[Validator, Validator]]:
    """Each Kubernetes kind of KINDS: its validator in one bundle with the others, and alone."""
    k8s = _store().k8s
    names = {(a, k): k8s.index[(*split_api_version(a), k)] for a, k in KINDS
             if (*split_api_version(a), k) in k8s.index}
    bundle = Bundle(DRAFT, {n: {"$ref": f"{K8S_URI}#/$defs/{n}"} for n in names.values()},
                    k8s.registry)
    return {key: (Validator({"$schema": DRAFT, "$ref": f"{K8S_URI}#/$defs/{n}"}, k8s.registry,
                            bundle=bundle, member=n),
                  Validator({"$schema": DRAFT, "$ref": f"{K8S_URI}#/$defs/{n}"}, k8s.registry))
            for key, n in names.items()}


@pytest.mark.parametrize(("api_version", "kind"), [k for k in KINDS if k[0] in (
    "apps/v1", "batch/v1", "v1", "networking.k8s.io/v1", "rbac.authorization.k8s.io/v1",
    "autoscaling/v2")])
@settings(max_examples=60)
@given(data=st.data())
def test_a_bundle_judges_each_kind_as_its_validator_alone(
    api_version: str, kind: str, data: st.DataObject,
) -> None:
    """Kinds compiled together (what they reference once) give each instance the verdict and
    the problems their own validators give."""
    bundled, alone = _bundled()[(api_version, kind)]
    root = alone.schema
    instance = _instance(_resolve(root["$ref"], root), data.draw, root)
    if isinstance(instance, dict) and data.draw(st.integers(0, 3)):
        instance = {"apiVersion": api_version, "kind": kind, **instance}
    assert bundled.is_valid(instance) == alone.is_valid(instance)
    assert bundled.problems(instance) == alone.problems(instance)


def test_a_bundle_compiles_once_or_leaves_its_members_alone() -> None:
    """A bundle answers for every member from one compile; one that cannot compile (a member
    refers to no definition) answers None, and its members compile alone."""
    (deployment, _), (service, _) = _bundled()[("apps/v1", "Deployment")], (
        _bundled()[("v1", "Service")])
    good = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}
    assert service.is_valid(good) and not deployment.is_valid(good | {"spec": 5})
    k8s = _store().k8s
    broken = Bundle(DRAFT, {"a": {"$ref": f"{K8S_URI}#/$defs/io.k8s.api.core.v1.Service"},
                            "b": {"$ref": f"{K8S_URI}#/$defs/no.such.Definition"}},
                    k8s.registry)
    assert broken.is_valid("a", good) is None
    member = Validator({"$schema": DRAFT, "$ref": f"{K8S_URI}#/$defs/io.k8s.api.core.v1.Service"},
                       k8s.registry, bundle=broken, member="a")
    assert member.is_valid(good) and member.problems(good) == []
    assert [p.path for p in member.problems(good | {"spec": 5})] == [("spec",)]
