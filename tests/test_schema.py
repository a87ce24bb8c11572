"""The `schema` rule, in-process: Kubernetes, bundled, CRD-in-tree and folder schemas."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from reviewbot.errors import ReviewbotError
from reviewbot.report.base import Report
from reviewbot.report.render import render
from reviewbot.schema.store import (
    SchemaStore,
    _prepare,
    _referenced,
    _schema_root,
    bundled_schemas,
    crd_schemas,
    openapi_to_jsonschema,
    resolve_kubernetes_version,
    standalone,
)
from reviewbot.schema.validate import Registry, Validator

from .helpers import lint_dir, lint_text, pairs, write

NEVER = "rules:\n  schema: {kubeconform: never}\n"

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: two
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        imagPullPolicy: Always
        imagePulPolicy: Never
"""


def messages(result: object) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in result.findings]  # type: ignore[attr-defined]


def test_type_error_names_field_expected_and_found(tmp_path: Path) -> None:
    result = lint_text(tmp_path, DEPLOYMENT, only=["schema"], config=NEVER)
    assert messages(result)[0] == (6, 'spec.replicas: expected integer, got string "two"')
    assert result.findings[0].column == 13
    assert result.findings[0].path == "spec.replicas"


def test_one_finding_per_unknown_field(tmp_path: Path) -> None:
    result = lint_text(tmp_path, DEPLOYMENT, only=["schema"], config=NEVER)
    assert messages(result)[1:] == [
        (16, "spec.template.spec.containers[0].imagPullPolicy: unknown field 'imagPullPolicy'"),
        (17, "spec.template.spec.containers[0].imagePulPolicy: unknown field 'imagePulPolicy'"),
    ]
    assert {f.severity for f in result.findings} == {"error"}


def test_unknown_field_points_at_its_name_and_names_the_field_it_misspells(
        tmp_path: Path) -> None:
    text = """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      replica: 3
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers:
          - name: web
            image: nginx:1.27
            ImagePullPolicy: Always
            resourcess:
              limits: {memory: 1Gi}
            colour: blue
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert [(f.line, f.column, f.fix) for f in result.findings] == [
        (5, 3, "Rename replica to replicas: the schema has replicas here, and no replica."),
        (13, 9, "Rename ImagePullPolicy to imagePullPolicy: the schema has imagePullPolicy "
                "here, and no ImagePullPolicy."),
        (14, 9, "Rename resourcess to resources: the schema has resources here, and no "
                "resourcess."),
        (16, 9, "Remove colour, or move it where the schema has it: the API server refuses "
                "the field, or drops it without a word."),
    ]


def test_one_finding_per_missing_required_field(tmp_path: Path) -> None:
    text = """
    apiVersion: rbac.authorization.k8s.io/v1
    kind: RoleBinding
    metadata:
      name: read
    subjects:
    - namespace: default
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert sorted(messages(result)) == [
        (1, "(object): missing required field 'roleRef'"),
        (6, "subjects[0]: missing required field 'kind'"),
        (6, "subjects[0]: missing required field 'name'"),
    ]
    # distinct identities, so review mode tells them apart
    assert len({f.fingerprint for f in result.findings}) == 3


def test_a_manifest_of_metadata_alone_may_change_an_existing_object(tmp_path: Path) -> None:
    """Judge round BM (rh-aiservices-bu/rhoaibu-cluster): StorageClasses `gp3-csi` (the
    platform's) and `ocs-storagecluster-ceph-rbd` (ODF's) written with their annotations
    alone, to change which is the default. Applied to an existing object a manifest is a
    patch, and the API server validates the merged object: "missing required field
    'provisioner'" was an error. Refused only if the object does not exist yet: a warning
    that says so. A manifest with more than metadata that lacks the field is refused."""
    text = """
    apiVersion: storage.k8s.io/v1
    kind: StorageClass
    metadata:
      name: gp3-csi
      annotations: {storageclass.kubernetes.io/is-default-class: "false"}
    ---
    apiVersion: storage.k8s.io/v1
    kind: StorageClass
    metadata: {name: fast}
    parameters: {type: gp3}
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert [(f.line, f.severity, f.message.split(". Not certain")[0]) for f in result.findings
            if f.rule == "schema"] == [
        (1, "warning", "(object): missing required field 'provisioner'"),
        (7, "error", "(object): missing required field 'provisioner'")]


def test_quantity_and_int_or_string_accept_both_forms_and_null(tmp_path: Path) -> None:
    text = """
    apiVersion: v1
    kind: Pod
    metadata: {name: p}
    spec:
      containers:
      - name: a
        image: a
        ports: [{containerPort: 80, name: http}]
        resources:
          requests: {cpu: 1, memory: 64Mi}
          limits: {cpu: "2", memory: null}
        readinessProbe: {httpGet: {port: http}}
        livenessProbe: {httpGet: {port: 8080}}
    """
    assert pairs(lint_text(tmp_path, text, only=["schema"], config=NEVER)) == []


def test_a_plain_scalar_where_a_string_is_expected_is_fixed_by_quotes(tmp_path: Path) -> None:
    text = """
    apiVersion: v1
    kind: Pod
    metadata: {name: p}
    spec:
      containers:
      - name: a
        image: a
        env:
        - {name: A, value: off}
        - {name: B, value: 1.10}
        - {name: C, value: 8080}
        - {name: D, value: "off"}
        livenessProbe: {httpGet: {port: true}}
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    fixes = [(f.line, f.path, (f.fix or "").split(":")[0]) for f in result.findings]
    assert fixes == [
        (9, "spec.containers[0].env[0].value", "Put the value in quotes"),
        (10, "spec.containers[0].env[1].value", "Put the value in quotes"),
        (11, "spec.containers[0].env[2].value", "Put the value in quotes"),
        (13, "spec.containers[0].livenessProbe.httpGet.port",
         "Correct the field to the type and name the schema expects."),
    ]
    assert "as a boolean (true, false; in YAML 1.1" in (result.findings[0].fix or "")
    assert "(1.10 as 1.1)" in (result.findings[1].fix or "")


def test_int_or_string_rejects_other_types_with_a_precise_message(tmp_path: Path) -> None:
    text = """
    apiVersion: v1
    kind: Pod
    metadata: {name: p}
    spec:
      containers:
      - name: a
        image: a
        livenessProbe: {httpGet: {port: true}}
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert messages(result) == [
        (8, "spec.containers[0].livenessProbe.httpGet.port: expected string or integer, "
            "got boolean true"),
    ]


def test_secret_values_never_appear_in_messages_or_reports(tmp_path: Path) -> None:
    text = """
    apiVersion: v1
    kind: Secret
    metadata: {name: creds}
    data:
      pin: 918273
    stringData:
      token: [s3cr3t-t0ken]
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert messages(result) == [
        (5, "data.pin: expected string, got integer"),
        (7, "stringData.token: expected string, got array"),
    ]
    report = Report(findings=tuple(result.findings))
    for fmt in ("text", "json", "sarif", "github", "markdown"):
        out = render(report, fmt)
        assert "918273" not in out and "s3cr3t" not in out, fmt


def test_configmap_values_are_quoted(tmp_path: Path) -> None:
    text = """
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: c}
    data:
      retries: 3
    """
    assert messages(lint_text(tmp_path, text, only=["schema"], config=NEVER)) == [
        (5, "data.retries: expected string, got integer 3"),
    ]


def test_an_unserved_api_version_is_counted_and_left_to_api_lifecycle(tmp_path: Path) -> None:
    text = """
    apiVersion: policy/v1beta1
    kind: PodDisruptionBudget
    metadata: {name: pdb}
    spec: {minAvailable: 1}
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert messages(result) == []
    assert result.stats["schema"]["unserved"] == 1
    assert result.stats["schema"]["reasons"] == {"apiVersion not served (api-lifecycle)": 1}


def test_the_deprecated_version_option_selects_the_schemas(tmp_path: Path) -> None:
    """rules.schema.kubernetes-version is read as the clusters' kubernetes-version."""
    text = """
    apiVersion: autoscaling/v2beta2
    kind: HorizontalPodAutoscaler
    metadata: {name: web}
    spec:
      scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
      maxReplicas: three
    """
    old = lint_text(tmp_path, text, only=["schema"],
                    config="rules:\n  schema: {kubeconform: never, kubernetes-version: '1.25'}\n")
    assert pairs(old) == [("schema", 6)]  # validated against 1.25, which serves v2beta2
    assert old.stats["schema"]["kubernetes-version"] == "1.25"
    new = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert pairs(new) == [] and new.stats["schema"]["unserved"] == 1


@pytest.mark.parametrize(("requested", "chosen"), [
    ("", "1.37"), ("1.30", "1.30"), ("v1.31.4", "1.31"), ("1.99", "1.37"),
])
def test_kubernetes_version_resolution(requested: str, chosen: str) -> None:
    assert resolve_kubernetes_version(requested) == chosen


@pytest.mark.parametrize("requested", ["1.19", "latest", "1"])
def test_kubernetes_version_errors(requested: str) -> None:
    with pytest.raises(ReviewbotError):
        resolve_kubernetes_version(requested)


def test_objects_without_schema_are_counted_not_reported(tmp_path: Path) -> None:
    text = """
    apiVersion: monitoring.coreos.com/v1
    kind: ServiceMonitor
    metadata: {name: a}
    spec: {bogus: [1, 2]}
    ---
    apiVersion: monitoring.coreos.com/v1
    kind: ServiceMonitor
    metadata: {name: b}
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: c}
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert pairs(result) == []
    stats = result.stats["schema"]
    assert stats["validated"] == 1
    assert stats["not-validated"] == 2
    assert stats["no-schema"] == {"monitoring.coreos.com/v1 ServiceMonitor": 2}


def test_flux_substitutions_are_not_type_errors_unless_switched_off(tmp_path: Path) -> None:
    text = """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: app}
    spec:
      replicas: ${REPLICAS}
      selector: {matchLabels: {app: app}}
      template:
        metadata: {labels: {app: app}}
        spec:
          containers: [{name: app, image: "app:${TAG}"}]
    """
    assert pairs(lint_text(tmp_path, text, only=["schema"], config=NEVER)) == []
    strict = lint_text(tmp_path, text, only=["schema"],
                       config="rules:\n  schema: {kubeconform: never, flux-substitutions: false}\n")
    assert messages(strict) == [(5, 'spec.replicas: expected integer, got string "${REPLICAS}"')]


def test_flux_substitution_does_not_hide_unknown_fields(tmp_path: Path) -> None:
    text = """
    apiVersion: v1
    kind: Service
    metadata: {name: s}
    spec:
      ports: [{port: "${PORT}", targtPort: "${PORT}"}]
    """
    assert messages(lint_text(tmp_path, text, only=["schema"], config=NEVER)) == [
        (5, "spec.ports[0].targtPort: unknown field 'targtPort'"),
    ]


def test_inferenceservice_against_the_bundled_schema(tmp_path: Path) -> None:
    text = """
    apiVersion: serving.kserve.io/v1beta1
    kind: InferenceService
    metadata: {name: coder, namespace: llm-serving}
    spec:
      predictor:
        minReplicas: 1
        deploymentStrategy: {type: Recreate}
        runtimeClassName: nvidia
        containers:
        - name: kserve-container
          image: vllm/vllm-openai:v0.11.0
          resources: {limits: {nvidia.com/gpu: "2"}}
        volumes: [{name: shm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}]
      transformer:
        containers: [{name: t, image: t}]
        scaleMetrc: cpu
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert messages(result) == [(16, "spec.transformer.scaleMetrc: unknown field 'scaleMetrc'")]
    assert result.stats["schema"]["validated"] == 1


def test_inferenceservice_model_spec_requires_model_format(tmp_path: Path) -> None:
    text = """
    apiVersion: serving.kserve.io/v1beta1
    kind: InferenceService
    metadata: {name: iris}
    spec:
      predictor:
        model:
          storageUri: gs://bucket/model
          args: [--workers=2]
          protocolVersion: v3
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert messages(result) == [
        (6, "spec.predictor.model: missing required field 'modelFormat'"),
        (9, 'spec.predictor.model.protocolVersion: expected one of v1, v2, grpc-v1, grpc-v2, '
            'got "v3"'),
    ]


def test_argo_cd_application_against_the_bundled_schema(tmp_path: Path) -> None:
    text = """
    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: app, namespace: argocd}
    spec:
      project: default
      source:
        repoURL: https://github.com/org/repo
        path: apps/app
        helm: {valuesFiles: [values.yaml]}
      destination: {server: https://kubernetes.default.svc, namespace: app}
      syncPolicy: {automated: {prune: true, selfHeal: true}}
    """
    assert messages(lint_text(tmp_path, text, only=["schema"], config=NEVER)) == [
        (9, "spec.source.helm.valuesFiles: unknown field 'valuesFiles'"),
    ]


def test_crd_in_tree_validates_its_custom_resources(tmp_path: Path) -> None:
    (tmp_path / "crd.yaml").write_text(json.dumps({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"kind": "Gadget", "plural": "gadgets"},
                 "versions": [
                     {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": {
                             "type": "object", "properties": {"count": {"type": "integer"}}}}}}},
                     {"name": "v0", "served": False, "storage": False},
                 ]}}))
    text = """
    apiVersion: example.com/v1
    kind: Gadget
    metadata: {name: g, labelz: {}}
    spec: {count: many}
    ---
    apiVersion: example.com/v0
    kind: Gadget
    metadata: {name: old}
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert messages(result) == [
        (3, "metadata.labelz: unknown field 'labelz'"),
        (4, 'spec.count: expected integer, got string "many"'),
    ]
    assert result.stats["schema"]["no-schema"] == {"example.com/v0 Gadget": 1}


def test_schema_locations_in_kubeconform_layout(tmp_path: Path) -> None:
    folder = tmp_path / "schemas" / "example.com"
    folder.mkdir(parents=True)
    (folder / "thing_v1.json").write_text(json.dumps({
        "type": "object", "properties": {"spec": {
            "type": "object", "additionalProperties": False,
            "properties": {"size": {"type": "integer"}}}}}))
    (tmp_path / "schemas" / "other_v2.json").write_text(json.dumps({
        "type": "object", "required": ["spec"]}))
    text = """
    apiVersion: example.com/v1
    kind: Thing
    metadata: {name: t}
    spec: {size: 1, colour: red}
    ---
    apiVersion: other.io/v2
    kind: Other
    metadata: {name: o}
    """
    config = "rules:\n  schema: {kubeconform: never, schema-locations: [schemas]}\n"
    result = lint_text(tmp_path, text, only=["schema"], config=config)
    assert messages(result) == [
        (4, "spec.colour: unknown field 'colour'"),
        (6, "(object): missing required field 'spec'. Not certain: reviewbot could not see "
            "whether Other o exists already, made by the platform or an operator (a manifest "
            "of metadata alone changes an existing object's labels and annotations; it is "
            "refused only where the object does not exist yet)."),
    ]


def test_a_partial_object_named_as_a_release_s_in_its_namespace_is_not_certain(
        tmp_path: Path) -> None:
    """Judge round EG (cryptophys-work/platform-gitops): placement-only Deployments a Flux
    Kustomization applies over those the kyverno HelmRelease's chart makes
    (`kyverno-admission-controller`): server-side apply merges them into the chart's
    objects, refused only where those do not exist yet. Another name is still an error."""
    release = ("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n"
               "metadata: {name: kyverno, namespace: kyverno}\n"
               "spec:\n  interval: 1h\n  chart: {spec: {chart: kyverno, sourceRef: {kind: "
               "HelmRepository, name: kyverno}}}\n")
    partial = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s, namespace: "
               "kyverno}\nspec:\n  selector: {matchLabels: {app: k}}\n  template:\n"
               "    metadata: {labels: {app: k}}\n    spec:\n      nodeSelector: {a: b}\n")
    text = release + "---\n" + partial % "kyverno-admission-controller" + "---\n" + (
        partial % "other-controller")
    result = lint_text(tmp_path, text, only=["schema"])
    assert [(f.line, f.severity, f.message.split(". Not certain: ")[-1][:60])
            for f in result.findings] == [
        (15, "warning", "reviewbot could not see whether Deployment kyverno-admission"),
        (25, "error", "spec.template.spec: missing required field 'containers'")]


def test_a_flux_helm_repository_is_validated_by_its_bundled_schema(tmp_path: Path) -> None:
    """New-user trial eighty-seven D9: a HelmRepository written with `urll:` passed, "not
    validated (no schema)", while an OCIRepository's `intervall:` was caught."""
    text = """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: HelmRepository
    metadata: {name: bjw-s, namespace: flux-system}
    spec:
      interval: 1h
      urll: https://bjw-s-labs.github.io/helm-charts
    ---
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: HelmRepository
    metadata: {name: oci, namespace: flux-system}
    spec: {type: oci, interval: 1h, url: oci://ghcr.io/bjw-s-labs/helm, provider: generic}
    """
    result = lint_text(tmp_path, text, only=["schema"])
    assert [(f.line, f.message, f.fix) for f in result.findings] == [
        (4, "spec: missing required field 'url'",
         "Correct the field to the type and name the schema expects."),
        (6, "spec.urll: unknown field 'urll'",
         "Rename urll to url: the schema has url here, and no urll.")]


def test_remote_schema_locations_are_skipped_in_process(tmp_path: Path) -> None:
    config = ("rules:\n  schema: {kubeconform: never, "
              "schema-locations: ['https://example.invalid/{{ .ResourceKind }}.json']}\n")
    result = lint_text(tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
                       only=["schema"], config=config)
    assert result.stats["schema"]["skipped-locations"] == [
        "https://example.invalid/{{ .ResourceKind }}.json"]


def test_one_compiled_validator_per_api_version_and_kind(tmp_path: Path) -> None:
    store = SchemaStore(root=tmp_path)
    first = store.lookup("apps/v1", "Deployment").validator
    assert first is not None
    assert store.lookup("apps/v1", "Deployment").validator is first
    assert store.lookup("apps/v1", "StatefulSet").validator is not first


def test_fast_and_fallback_validators_agree() -> None:
    store = SchemaStore()
    validator = store.lookup("apps/v1", "Deployment").validator
    assert validator is not None
    slow = Validator(validator.schema, store.k8s.registry, fast=False)
    bodies = [
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"},
         "spec": {"replicas": "2", "selector": {}, "template": {"spec": {"containers": [{}]}}}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"},
         "spec": {"selector": {}, "template": {}}},
    ]
    for body in bodies:
        assert validator.is_valid(body) is slow.is_valid(body)
        assert validator.problems(body) == slow.problems(body)
    assert not validator.is_valid(bodies[0]) and validator.is_valid(bodies[1])


def test_openapi_conversion() -> None:
    converted = openapi_to_jsonschema({
        "type": "object",
        "properties": {
            "port": {"x-kubernetes-int-or-string": True,
                     "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "ratio": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "pick": {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
                     "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
        },
    }, strict=True)
    check = Validator(converted)
    assert check.is_valid({"port": 80, "free": {"x": 1}, "ratio": 0.5, "mode": None})
    assert check.is_valid({"port": "http", "pick": {"a": "x"}})
    assert [p.message for p in check.problems({"ratio": 0})] == ["expected a number > 0, got 0"]
    assert [p.message for p in check.problems({"pick": {}})] == [
        "needs one of the fields 'a', 'b'"]
    assert [p.message for p in check.problems({"bogus": 1})] == ["unknown field 'bogus'"]


def test_crd_v1beta1_schema_is_shared_by_its_versions() -> None:
    body = {"spec": {"group": "g.io", "names": {"kind": "K"}, "version": "v1",
                     "versions": [{"name": "v1", "served": True}, {"name": "v2", "served": True}],
                     "validation": {"openAPIV3Schema": {"type": "object"}}}}
    found = [(c.version, c.schema is not None) for c in crd_schemas(body, "crd.yaml")]
    assert found == [("v1", True), ("v2", True)]


def test_standalone_inlines_every_kubernetes_definition() -> None:
    store = SchemaStore()
    schema = standalone(
        {"$ref": "https://kubernetes.io/api/_definitions.json#/$defs/io.k8s.api.apps.v1.Deployment"},
        store.k8s.defs,
    )
    text = json.dumps(schema)
    assert "kubernetes.io/api" not in text
    assert "io.k8s.api.core.v1.Container" in schema["$defs"]
    check = Validator(schema, fast=False)
    problems = check.problems({"spec": {"replicas": "x", "selector": {}, "template": {}}})
    assert [(p.path, p.message) for p in problems] == [
        (("spec", "replicas"), 'expected integer, got string "x"')]


# ---------------------------------------------------------------- the definitions a run reaches


DEPLOYMENT_DEF = "io.k8s.api.apps.v1.Deployment"
CONFIG_MAP_DEF = "io.k8s.api.core.v1.ConfigMap"


def _ref(name: str) -> dict[str, str]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": f"https://kubernetes.io/api/_definitions.json#/$defs/{name}"}


def test_the_bundled_schemas_read_back_as_json_reads_them() -> None:
    """The bundled schemas come from the per-installation copy (``startup.derived``): every
    file of ``schemas/`` but reviewbot's own (its configuration's and its output's), each
    the value ``json.load`` makes of it, keys in the same order, under each kind it names."""
    from reviewbot.schema.files import FOLDER

    found = bundled_schemas()
    names = sorted(n for n in os.listdir(FOLDER)
                   if n.endswith(".json") and n not in ("config.schema.json",
                                                        "output.schema.json"))
    assert sorted({name for name, _ in found.values()}) == names
    for (group, version, kind), (name, schema) in found.items():
        expected = json.loads((Path(FOLDER) / name).read_text(encoding="utf-8"))
        assert schema == expected and json.dumps(schema) == json.dumps(expected)
        assert {"group": group, "version": version, "kind": kind} in [
            {"group": g.get("group", ""), "version": g["version"], "kind": g["kind"]}
            for g in expected["x-kubernetes-group-version-kind"]]


def test_the_prepared_definitions_are_the_definitions_prepared() -> None:
    """The installation's prepared copy (``read_prepared``, what jsonschema-rs compiles
    against): every definition of ``_definitions.json`` as ``_prepare`` makes it, in the
    same order, and the names each one references as ``_referenced`` finds them; the
    definitions as read (``raw``) stay as written."""
    k8s = SchemaStore().k8s
    path = Path(str(_schema_root())) / f"v{k8s.version}.0-local-strict" / "_definitions.json"
    expected = json.loads(path.read_text(encoding="utf-8"))["$defs"]
    assert dict(k8s.raw) == expected
    for definition in expected.values():
        _prepare(definition)
    defs, refs = k8s.definitions.defs, k8s.definitions.refs
    assert list(defs) == list(expected) and dict(defs) == expected
    assert all(json.dumps(defs[n]) == json.dumps(expected[n]) for n in expected)
    assert {n: sorted(t for t in _referenced(d) if t in expected) for n, d in expected.items()} == {
        n: list(r) for n, r in refs.items()}
    assert "description" in json.dumps(k8s.raw[DEPLOYMENT_DEF])
    assert "description" not in json.dumps(defs[DEPLOYMENT_DEF])


def test_jsonschema_rs_compiles_against_the_definitions_the_run_expects() -> None:
    """The registry holds the expected definitions, what they reference and ObjectMeta: a
    fraction of the version's; what a Deployment reaches (its pod spec) is there."""
    k8s = SchemaStore().k8s
    definitions = type(k8s.definitions)(lambda: (k8s.definitions.defs, k8s.definitions.refs))
    definitions.expect([DEPLOYMENT_DEF])
    narrow = definitions.narrow()
    assert narrow is not None
    held = narrow[0][1]["$defs"]
    assert {DEPLOYMENT_DEF, "io.k8s.api.core.v1.PodSpec", "io.k8s.api.core.v1.Container",
            "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"} <= set(held)
    assert CONFIG_MAP_DEF not in held and len(held) < len(k8s.raw) / 2


def test_errors_are_explained_from_the_definitions_the_validator_was_compiled_with() -> None:
    """An invalid Deployment validated against the narrow registry: its problems are those
    of a validator of every definition, and explaining them never makes the whole set (the
    registry's documents are not asked for)."""
    k8s = SchemaStore().k8s
    definitions = type(k8s.definitions)(lambda: (k8s.definitions.defs, k8s.definitions.refs))
    definitions.expect([DEPLOYMENT_DEF])
    asked: list[int] = []

    def everything() -> list[tuple[str, Any]]:
        asked.append(1)
        return definitions.documents()

    narrow = Registry(everything, narrow=definitions.narrow)
    whole = Registry(definitions.documents)
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": "x", "selector": {}, "template": {"metadata": {
                "labels": {"a": 1}}, "spec": {"containers": [{"name": "a", "image": 3,
                                                              "resources": {"limits": []}}]}}}}
    mine, theirs = Validator(_ref(DEPLOYMENT_DEF), narrow), Validator(_ref(DEPLOYMENT_DEF), whole)
    assert mine.fast_failures(body) is not None  # jsonschema-rs's errors, explained
    got = [(p.path, p.message, p.validator, p.key) for p in mine.problems(body)]
    assert got == [(p.path, p.message, p.validator, p.key) for p in theirs.problems(body)]
    assert len(got) >= 4 and asked == []


def test_a_schema_reaching_outside_the_expected_definitions_compiles_as_against_all() -> None:
    """A run that expected only ConfigMaps still validates a Deployment: its schema reaches
    outside the narrow registry and is compiled again against every definition; the
    problems are those of a validator of the whole set."""
    k8s = SchemaStore().k8s
    definitions = type(k8s.definitions)(lambda: (k8s.definitions.defs, k8s.definitions.refs))
    definitions.expect([CONFIG_MAP_DEF])
    narrow = Registry(definitions.documents, narrow=definitions.narrow)
    whole = Registry(definitions.documents)
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": "x", "selector": {}, "template": {
                "spec": {"containers": [{"name": "a", "image": 3}]}}}}
    mine, theirs = Validator(_ref(DEPLOYMENT_DEF), narrow), Validator(_ref(DEPLOYMENT_DEF), whole)
    assert mine.fast_failures(body) is not None  # jsonschema-rs compiled it (not the slow path)
    assert narrow.widen() is not None and whole.widen() is None
    got = [(p.path, p.message) for p in mine.problems(body)]
    assert got == [(p.path, p.message) for p in theirs.problems(body)] and got
    assert [(p.path, p.message) for p in Validator(_ref(CONFIG_MAP_DEF), narrow).problems(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": 1}}
    )] == [(p.path, p.message) for p in Validator(_ref(CONFIG_MAP_DEF), whole).problems(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": 1}})]


def workload(kind: str, selector: str, labels: str, extra: str = "",
             api: str = "apps/v1") -> str:
    return f"""
apiVersion: {api}
kind: {kind}
metadata: {{name: web, namespace: default}}
spec:{extra}
  selector: {selector}
  template:
    metadata:
      labels: {labels}
    spec:
      containers: [{{name: web, image: nginx}}]
"""


def test_a_selector_that_does_not_select_the_template_labels_is_refused(tmp_path: Path) -> None:
    """The API server refuses a workload whose selector misses its pod template's labels
    ("`selector` does not match template `labels`"): an error at the selector."""
    for i, kind in enumerate(("Deployment", "ReplicaSet", "DaemonSet")):
        text = workload(kind, "{matchLabels: {app: web}}", "{app: api}")
        result = lint_text(tmp_path / str(i), text, only=["schema"])
        assert pairs(result) == [("schema", 5)], kind
        (finding,) = result.findings
        assert (finding.kind, finding.severity) == ("invalid", "error")
        assert finding.message == (
            "spec.selector: `selector` does not match template `labels`: app=web does not "
            f"select the pod template's labels (app=api), so the API server refuses the {kind}")
    expressions = ("{matchExpressions: [{key: tier, operator: In, values: [front, back]}, "
                   "{key: canary, operator: DoesNotExist}]}")
    result = lint_text(tmp_path / "e", workload("Deployment", expressions,
                                                "{tier: front, canary: 'yes'}"), only=["schema"])
    assert pairs(result) == [("schema", 5)]
    assert "tier in (back,front), !canary does not select" in result.findings[0].message


def test_a_job_s_selector_is_judged_only_when_it_is_manual(tmp_path: Path) -> None:
    mismatch = ("{matchLabels: {app: web}}", "{app: api}")
    manual = workload("Job", *mismatch, extra="\n  manualSelector: true", api="batch/v1")
    # (its pod template sets no restartPolicy: that refusal is judged apart, below)
    assert [(f.rule, f.line) for f in lint_text(tmp_path / "m", manual, only=["schema"]).findings
            if "restartPolicy" not in f.message] == [("schema", 6)]
    # without manualSelector, the API server makes the Job's selector itself: not judged here
    automatic = workload("Job", *mismatch, api="batch/v1")
    assert not any("does not match template" in f.message
                   for f in lint_text(tmp_path / "a", automatic, only=["schema"]).findings)


def test_a_selector_that_selects_its_labels_or_is_unknown(tmp_path: Path) -> None:
    """Selecting labels (a subset, an expression) passes; a variable left in the selector or
    the labels makes the mismatch a warning that names it."""
    ok = [("{matchLabels: {app: web}}", "{app: web, tier: front}"),
          ("{matchExpressions: [{key: app, operator: Exists}]}", "{app: anything}"),
          ("{matchLabels: {app: '${APP}'}}", "{app: '${APP}'}")]
    for i, (selector, labels) in enumerate(ok):
        assert pairs(lint_text(tmp_path / str(i), workload("StatefulSet", selector, labels),
                               only=["schema"])) == [], selector
    result = lint_text(tmp_path / "v", workload("Deployment", "{matchLabels: {app: '${APP}'}}",
                                                "{app: web}"), only=["schema"])
    assert pairs(result) == [("schema", 5)]
    (finding,) = result.findings
    assert finding.severity == "warning"
    assert finding.message.endswith("Not certain: reviewbot could not see the values of ${APP}.")


CRONJOB = """
apiVersion: batch/v1
kind: CronJob
metadata: {name: backup}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:%s
          containers: [{name: restic, image: "restic/restic:0.17.3"}]
"""


def test_a_job_whose_pods_would_restart_always_is_refused(tmp_path: Path) -> None:
    """A Job's pods restart OnFailure or Never: an unset restartPolicy is defaulted to
    Always and refused, a constraint of the Job API its JSON Schema does not say (a
    new-user trial deleted a misplaced restartPolicy and got no error)."""
    unset = lint_text(tmp_path / "unset", CRONJOB % "", only=["schema"], config=NEVER)
    assert messages(unset) == [(
        9, "spec.jobTemplate.spec.template.spec.restartPolicy: unset, so the API server "
           "defaults it to Always and refuses the CronJob (a Job's pods restart OnFailure or "
           "Never)")]
    always = lint_text(tmp_path / "always", CRONJOB % "\n          restartPolicy: Always",
                       only=["schema"], config=NEVER)
    assert [(f.line, f.fix) for f in always.findings] == [
        (10, "Set spec.jobTemplate.spec.template.spec.restartPolicy to OnFailure or Never.")]
    never = lint_text(tmp_path / "never", CRONJOB % "\n          restartPolicy: Never",
                      only=["schema"], config=NEVER)
    assert never.findings == []


def test_a_quantity_the_api_server_cannot_parse_is_refused(tmp_path: Path) -> None:
    """`memory: 128MB` is no Kubernetes quantity (the API server: "quantities must match the
    regular expression"), yet the JSON Schema takes any text for an int-or-string (a
    new-user trial: "17 objects validated", no error). Container resources, an emptyDir's
    sizeLimit and a claim's storage are judged; a Flux `${VAR}` is substituted first."""
    text = """
    apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: db}
    spec:
      serviceName: db
      selector: {matchLabels: {app: db}}
      template:
        metadata: {labels: {app: db}}
        spec:
          containers:
          - name: db
            image: postgres:17
            resources:
              requests: {cpu: 250m, memory: 128MB}
              limits: {memory: "${DB_MEMORY}", cpu: 1.5}
          volumes:
          - name: scratch
            emptyDir: {sizeLimit: 2 Gi}
      volumeClaimTemplates:
      - metadata: {name: data}
        spec:
          accessModes: [ReadWriteOnce]
          resources: {requests: {storage: 10Gi}}
    ---
    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: cache}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 5gb}}
    """
    result = lint_text(tmp_path, text, only=["schema"], config=NEVER)
    assert messages(result) == [
        (14, "spec.template.spec.containers[0].resources.requests.memory: '128MB' is not a "
             "quantity: write 128M (powers of 1000) or 128Mi (powers of 1024), so the API "
             "server refuses the StatefulSet"),
        (18, "spec.template.spec.volumes[0].emptyDir.sizeLimit: '2 Gi' is not a quantity (a "
             "number with an optional suffix such as 500m, 4, 15Gi, 64G or 1e3), so the API "
             "server refuses the StatefulSet"),
        (30, "spec.resources.requests.storage: '5gb' is not a quantity: write 5G (powers of "
             "1000) or 5Gi (powers of 1024), so the API server refuses the "
             "PersistentVolumeClaim"),
    ]
    assert {f.kind for f in result.findings} == {"invalid"}
    assert {f.severity for f in result.findings} == {"error"}
    # a placeholder someone replaces before applying (GCP's samples): not certain
    sample = lint_text(tmp_path / "sample", text.replace("5gb", "FILESTORE_CAPACITY"),
                       only=["schema"], config=NEVER)
    assert [(f.line, f.severity) for f in sample.findings] == [
        (14, "error"), (18, "error"), (30, "warning")]
    assert "the value that replaces the placeholder FILESTORE_CAPACITY" in (
        sample.findings[2].message)
    # a value of the wrong type is the schema's type error, said once
    typed = lint_text(tmp_path / "typed", text.replace("cpu: 250m", "cpu: true"),
                      only=["schema"], config=NEVER)
    assert [m for line, m in messages(typed) if line == 14] == [
        "spec.template.spec.containers[0].resources.requests.cpu: expected string or number, "
        "got boolean true",
        "spec.template.spec.containers[0].resources.requests.memory: '128MB' is not a "
        "quantity: write 128M (powers of 1000) or 128Mi (powers of 1024), so the API server "
        "refuses the StatefulSet"]


def test_a_quantity_app_template_writes_into_its_pods_is_refused(tmp_path: Path) -> None:
    """bjw-s app-template writes a container's `resources` into the Deployment as they are:
    `memory: 2gb` there is the rendered Deployment's refusal (new-user trial fifteen).
    Another chart's `resources`, which its templates may read otherwise, is not judged."""
    release = """
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata: {name: home, namespace: home}
    spec:
      interval: 1h
      chartRef: {kind: OCIRepository, name: app-template}
      values:
        controllers:
          main:
            containers:
              app:
                image: {repository: ghcr.io/acme/home, tag: 1.0.0}
                resources: {limits: {memory: 2gb}}
    ---
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    metadata: {name: cache, namespace: home}
    spec:
      interval: 1h
      chart: {spec: {chart: redis, sourceRef: {kind: HelmRepository, name: bitnami}}}
      values:
        master:
          image: {repository: bitnami/redis, tag: 7.4.0}
          resources: {limits: {memory: 2gb}}
    """
    result = lint_text(tmp_path, release, only=["schema"], config=NEVER)
    assert messages(result) == [(
        13, "spec.values.controllers.main.containers.app.resources.limits.memory: '2gb' is "
            "not a quantity: write 2G (powers of 1000) or 2Gi (powers of 1024), so the API "
            "server refuses the Deployment the chart renders")]


APP_TEMPLATE_RELEASE = """
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: {name: app-template, namespace: media}
spec:
  interval: 1h
  url: oci://ghcr.io/bjw-s-labs/helm/app-template
  ref: {tag: %s}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: jellyfin, namespace: media}
spec:
  interval: 1h
  chartRef: {kind: OCIRepository, name: app-template}%s
  values:
    controllers:
      jellyfin:
        replica: 2
        containers:
          app:
            image: {repository: ghcr.io/jellyfin/jellyfin, tag: 10.10.3}
            probes:
              liveness: {enabled: true, custom: true, spec: {periodSeconds: 10}}
              startup: {enabled: true, spce: {failureThreshold: 30}}
            resouces:
              requests: {cpu: 100m}
"""


def test_a_key_app_template_s_values_schema_does_not_allow_is_the_release_s_refusal(
        tmp_path: Path) -> None:
    """New-user trial sixteen: `resouces` in an app-template container dropped its
    requests and limits without a word. app-template 3.x and 4.x validate their values
    against the common library's schema (`additionalProperties: false`): Helm refuses the
    install or upgrade. 2.x has no schema; a HelmRelease that disables schema validation
    is not judged."""
    result = lint_text(tmp_path, APP_TEMPLATE_RELEASE % ("4.1.1", ""), only=["schema"],
                       config=NEVER)
    assert [(f.line, f.message.partition(":")[0], f.fix) for f in result.findings] == [
        (18, "spec.values.controllers.jellyfin.replica", "Rename replica to replicas."),
        (24, "spec.values.controllers.jellyfin.containers.app.probes.startup.spce",
         "Rename spce to spec."),
        (25, "spec.values.controllers.jellyfin.containers.app.resouces",
         "Rename resouces to resources.")]
    assert result.findings[2].message == (
        "spec.values.controllers.jellyfin.containers.app.resouces: app-template 4.1.1's values "
        "schema allows no key 'resouces' in a container (did you mean resources?), so Helm "
        "refuses to install or upgrade HelmRelease media/jellyfin (\"Additional property "
        "resouces is not allowed\"): the release stays as it was")
    assert [f.severity for f in result.findings] == ["error"] * 3
    disabled = "\n  upgrade: {disableSchemaValidation: true}"
    for version, extra in (("2.6.0", ""), ("4.1.1", disabled), ("5.0.0", "")):
        assert lint_text(tmp_path / version, APP_TEMPLATE_RELEASE % (version, extra),
                         only=["schema"], config=NEVER).findings == []
    # a later 4.x, whose schema reviewbot has not read, likely lacks the keys alike: warnings
    # that say so (new-user trial fifty-five: 4.1.2's `resource:` went unsaid)
    later = lint_text(tmp_path / "4.1.2", APP_TEMPLATE_RELEASE % ("4.1.2", ""),
                      only=["schema"], config=NEVER).findings
    assert [(f.line, f.severity) for f in later] == [(18, "warning"), (24, "warning"),
                                                      (25, "warning")]
    assert "later than the 4.1.1 whose keys reviewbot holds" in later[0].message


def test_a_backend_naming_no_enabled_service_of_app_template_values_fails_the_render(
        tmp_path: Path) -> None:
    """New-user trial forty-six: `service.app` renamed `webui`, the route's backendRefs kept
    `identifier: app`: "no findings". app-template's route (and ingress) template fails
    ("No enabled Service found with this identifier"): Helm refuses the upgrade."""
    text = APP_TEMPLATE_RELEASE.replace("replica: 2", "replicas: 2").replace(
        "spce:", "spec:").replace("            resouces:\n              requests: {cpu: 100m}\n",
                                  "") + """    service:
      SERVICE:
        controller: jellyfin
        ports: {http: {port: 8096}}
    route:
      app:
        parentRefs: [{name: internal, namespace: network}]
        rules:
        - backendRefs: [{identifier: app, port: 8096}]
    ingress:
      app:
        hosts:
        - host: jf.example.com
          paths: [{path: /, service: {identifier: app, port: http}}]
"""
    result = lint_text(tmp_path, text.replace("SERVICE", "main") % ("4.1.1", ""),
                       only=["schema"], config=NEVER)
    assert [(f.message.partition(":")[0], f.fix) for f in result.findings] == [
        ("spec.values.route.app.rules[0].backendRefs[0].identifier",
         "Name service main in the identifier, or add service.app."),
        ("spec.values.ingress.app.hosts[0].paths[0].service.identifier",
         "Name service main in the identifier, or add service.app.")]
    assert result.findings[0].message.endswith(
        ": app names no enabled service of HelmRelease media/jellyfin's values (it has main): "
        "app-template 4.1.1 fails to render (\"No enabled Service found with this "
        "identifier\"), so Helm refuses to install or upgrade the release, which stays as it "
        "was")
    assert lint_text(tmp_path / "ok", text.replace("SERVICE", "app") % ("4.1.1", ""),
                     only=["schema"], config=NEVER).findings == []


def test_a_pod_spec_key_in_an_app_template_container_is_told_where_the_chart_reads_it(
        tmp_path: Path) -> None:
    """New-user trial thirty-one: a Kubernetes `readinessProbe:` written in an app-template
    container was told "write it where app-template reads it": the fix names the place."""
    text = APP_TEMPLATE_RELEASE.replace("replica: 2", "replicas: 2").replace(
        "spce:", "spec:").replace("            resouces:", "            readinessProbe:")
    result = lint_text(tmp_path, text % ("3.7.1", ""), only=["schema"], config=NEVER)
    assert [f.fix for f in result.findings] == [
        "Write it under probes.readiness: {enabled: true, custom: true, spec: <the probe>}, "
        "where app-template reads a container's readiness probe."]


def test_a_top_level_key_of_app_template_values_that_misspells_one_renders_nothing(
        tmp_path: Path) -> None:
    """New-user trial thirty-one: `persistance:` at the top of an app-template release's
    values made no volume (/cache landed in the container's writable layer), and nothing
    was said. The chart's schema allows keys of one's own at the top (the values' template
    strings may read them): only one that misspells a key the chart reads is judged."""
    text = APP_TEMPLATE_RELEASE.replace("replica: 2", "replicas: 2").replace(
        "spce:", "spec:").replace("resouces:", "resources:") + """    persistance:
      cache: {type: emptyDir}
    myDomain: example.org
"""
    result = lint_text(tmp_path, text % ("3.7.1", ""), only=["schema"], config=NEVER)
    assert [(f.line, f.severity, f.kind, f.message, f.fix) for f in result.findings] == [(
        27, "warning", "values-unread", "spec.values.persistance: app-template 3.7.1 reads no "
        "top-level key 'persistance' (did you mean persistence?), so Helm renders nothing of "
        "it for HelmRelease media/jellyfin", "Rename persistance to persistence.")]


def test_a_container_s_key_at_the_top_of_app_template_values_is_told_where_it_goes(
        tmp_path: Path) -> None:
    """Judge round DK (gavinmcfall/home-ops' n8n): `resources:` at the top of app-template
    values, beside `controllers:`, was "did you mean rawResources?" and "Rename resources
    to rawResources" (rawResources holds whole manifests). A container's key at the top
    says where the chart reads it; one a container aliases (an anchor) or the values'
    templates read is held there on purpose."""
    text = APP_TEMPLATE_RELEASE.replace("replica: 2", "replicas: 2").replace(
        "spce:", "spec:").replace("resouces:", "resources:").replace(
        "  values:\n", "  values:\n    args: &args [--serve]\n").replace(
        "            probes:\n", "            args: *args\n            probes:\n")
    text += "    resources:\n      limits: {memory: 1Gi}\n"
    result = lint_text(tmp_path, text % ("3.7.1", ""), only=["schema"], config=NEVER)
    assert [(f.line, f.severity, f.message, f.fix) for f in result.findings] == [(
        29, "warning", "spec.values.resources: app-template 3.7.1 reads no top-level key "
        "'resources', a container's key it reads under controllers.<id>.containers.<id>."
        "resources, so Helm renders nothing of it for HelmRelease media/jellyfin",
        "Move resources under controllers.<controller>.containers.<container>, where "
        "app-template reads it.")]


def test_a_pattern_broken_by_a_placeholder_in_capitals_is_a_warning_that_says_so(
        tmp_path: Path) -> None:
    """aws-samples/eks-multi-cluster-gitops (judge round AY): its setup replaces REPO_PREFIX
    in gotk-sync.yaml with sed before pushing; `url: REPO_PREFIX/gitops-system` broke the
    GitRepository's URL pattern, an error. A placeholder in capitals or angle brackets makes
    it a warning that names it; a URL without a scheme and no placeholder stays an error."""
    repo = """
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: %s, namespace: flux-system}
spec: {interval: 1m, url: "%s", ref: {branch: main}}
"""
    # (and a Go template action a deploy tool renders: zalando-incubator/kubernetes-on-aws'
    # manifests, 6 false errors, judge round BA)
    text = "---".join(repo % (n, u) for n, u in (
        ("a", "REPO_PREFIX/gitops-system"), ("b", "<your-repo-url>"),
        ("d", "{{ .Values.git_url }}/fleet"), ("c", "github.com/acme/fleet")))
    result = lint_text(tmp_path, text, only=["schema"])
    assert [(f.severity, f.message.split(". Not certain: ")[-1]) for f in result.findings] == [
        ("warning", "reviewbot could not see the value that replaces the placeholder "
                    "REPO_PREFIX before the object is applied."),
        ("warning", "reviewbot could not see the value that replaces the placeholder "
                    "<your-repo-url> before the object is applied."),
        ("warning", "reviewbot could not see the value that replaces the placeholder "
                    "{{ .Values.git_url }} before the object is applied."),
        ("error", "spec.url: expected a string matching '^(http|https|ssh)://.*$', got "
                  "\"github.com/acme/fleet\"")]


def test_a_label_of_no_string_is_dropped_by_flux_not_refused(tmp_path: Path) -> None:
    """larivierec/home-cluster (judge round BB): `substitution.flux/enabled: false` on a Flux
    Kustomization a Flux Kustomization applies. kustomize-controller sets its owner labels
    first, reading the labels as strings (none when one is not a string) and writing its own
    alone: the object is applied without its labels, not refused. A warning that says so;
    applied by hand (`kubectl apply -k`) the API server refuses it: an error."""
    from .helpers import lint_dir, write

    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: flux-system, namespace: flux-system}\n"
            "spec: {interval: 10m, path: ./clusters/main, prune: true, "
            "sourceRef: {kind: GitRepository, name: flux-system}}\n")
    apps = sync.replace("name: flux-system, namespace", "name: apps, namespace").replace(
        "./clusters/main", "./apps")
    labelled = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
                "  namespace: default\n  labels: {substitution.flux/enabled: false}\n")
    write(tmp_path / "flux", {"clusters/main/flux-system/gotk-sync.yaml": sync,
                              "clusters/main/apps.yaml": apps,
                              "apps/kustomization.yaml": "resources: [cm.yaml]\n",
                              "apps/cm.yaml": labelled})
    result = lint_dir(tmp_path / "flux", only=["schema"])
    assert [(f.file, f.severity, f.kind) for f in result.findings] == [
        ("apps/cm.yaml", "warning", "labels-dropped")]
    assert result.findings[0].message.endswith(
        "expected string, got boolean false: kustomize-controller applies the object without "
        "any of its labels (its owner labels replace them, as it reads labels as strings "
        "only)")
    write(tmp_path / "plain", {"kustomization.yaml": "resources: [cm.yaml]\n",
                               "cm.yaml": labelled})
    result = lint_dir(tmp_path / "plain", only=["schema"])
    assert [(f.file, f.severity, f.kind) for f in result.findings] == [
        ("cm.yaml", "error", "invalid")]


@pytest.mark.parametrize(("schedule", "why"), [
    ("30 25 * * *", "hour 25 is above 23"),
    ("0 0 * * 7", "day of week 7 is above 6"),
    ("5-2 * * * *", "minute range 5-2 ends before it begins"),
    ("*/0 * * * *", "minute step 0"),
    ("0 0 1 JANUARY *", "month 'JANUARY' is no number or name"),
    ("15 3 * *", "4 fields, where it takes 5"),
    ("@nightly", "@nightly is no descriptor"),
    ("*/15 2-4 1,15 jan-jun mon-fri", None),
    ("0 0 ? * SUN", None),
    ("@daily", None),
    ("${SCHEDULE}", None),
])
def test_a_cron_job_schedule_the_api_server_cannot_parse_is_refused(
        tmp_path: Path, schedule: str, why: str | None) -> None:
    """New-user trial twenty-one: `schedule: "30 25 * * *"` went unseen; the API server
    parses a CronJob's schedule as robfig/cron's ParseStandard does and refuses one it
    cannot ("unparseable schedule"). A variable is not judged."""
    text = f"""
apiVersion: batch/v1
kind: CronJob
metadata: {{name: nightly, namespace: shop}}
spec:
  schedule: "{schedule}"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{{name: main, image: busybox}}]
"""
    result = lint_text(tmp_path, text, only=["schema"])
    assert [f.message for f in result.findings] == ([] if why is None else [
        f"spec.schedule: {schedule!r} is no schedule the API server accepts ({why}): it "
        "refuses the CronJob"])



@pytest.mark.parametrize("surge, unavailable, refused", [
    ("0", "0", True), ("0", "'0%'", True), ("0", "1", False), ("1", "0", False),
    ("0", None, False)])
def test_a_rolling_update_that_may_neither_surge_nor_stop_a_pod_is_refused(
        tmp_path: Path, surge: str, unavailable: str | None, refused: bool) -> None:
    """New-user trial forty-nine: gpu-rollout's fix said `maxSurge: 0`, the Deployment had
    `maxUnavailable: 0`; followed, the API server refuses it ("may not be 0 when `maxSurge`
    is 0"), and the review said nothing. An unset maxUnavailable is 25%."""
    rolling = f"maxSurge: {surge}" + (f", maxUnavailable: {unavailable}" if unavailable else "")
    text = f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: ollama, namespace: models}}
spec:
  selector: {{matchLabels: {{app: ollama}}}}
  strategy: {{type: RollingUpdate, rollingUpdate: {{{rolling}}}}}
  template:
    metadata: {{labels: {{app: ollama}}}}
    spec: {{containers: [{{name: ollama, image: ollama}}]}}
"""
    result = lint_text(tmp_path, text, only=["schema"])
    assert [(f.severity, f.line, f.message) for f in result.findings] == ([(
        "error", 6, "spec.strategy.rollingUpdate.maxUnavailable: may not be 0 when `maxSurge` "
        "is 0, so the API server refuses the Deployment")] if refused else [])


@pytest.mark.parametrize("rolling, refused", [
    ("{maxSurge: 0, maxUnavailable: 1}", True), ("{}", True), ("null", False)])
def test_a_recreate_strategy_with_a_rolling_update_is_refused(
        tmp_path: Path, rolling: str, refused: bool) -> None:
    """New-user trial fifty: a fix said "Set spec.strategy.type: Recreate" of a Deployment
    whose `rollingUpdate:` block stayed; the API server refuses it ("rollingUpdate:
    Forbidden: may not be specified when strategy `type` is 'Recreate'"), and the review
    said nothing."""
    text = f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: vllm, namespace: llm}}
spec:
  selector: {{matchLabels: {{app: vllm}}}}
  strategy:
    type: Recreate
    rollingUpdate: {rolling}
  template:
    metadata: {{labels: {{app: vllm}}}}
    spec: {{containers: [{{name: vllm, image: vllm}}]}}
"""
    result = lint_text(tmp_path, text, only=["schema"])
    assert [(f.severity, f.line, f.message) for f in result.findings] == ([(
        "error", 8, "spec.strategy.rollingUpdate: may not be specified when strategy `type` "
        "is 'Recreate', so the API server refuses the Deployment")] if refused else [])


@pytest.mark.parametrize("mount, refused", [
    ("redis-data", True), ("data", False), ("config", False)])
def test_a_volume_mount_naming_no_volume_of_its_pod_is_refused(
        tmp_path: Path, mount: str, refused: bool) -> None:
    """New-user trial fifty: the claim template renamed back, the mount kept `redis-data`,
    which neither a volume nor a claim template of the StatefulSet is called: the API server
    refuses the pods' template ("volumeMounts[0].name: Not found"), Redis goes down, and the
    review passed it."""
    text = f"""
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: redis, namespace: web}}
spec:
  serviceName: redis
  selector: {{matchLabels: {{app: redis}}}}
  template:
    metadata: {{labels: {{app: redis}}}}
    spec:
      containers:
      - name: redis
        image: redis
        volumeMounts:
        - {{name: {mount}, mountPath: /data}}
      volumes:
      - {{name: config, configMap: {{name: redis}}}}
  volumeClaimTemplates:
  - metadata: {{name: data}}
    spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Gi}}}}}}
"""
    result = lint_text(tmp_path, text, only=["schema"])
    assert [(f.severity, f.line, f.message) for f in result.findings] == ([(
        "error", 14, "spec.template.spec.containers[0].volumeMounts[0].name: Not found: "
        "'redis-data' (no volume of the pod nor claim template is called so: config, data), "
        "so the API server accepts the StatefulSet (it does not check its pods' volumes) but "
        "refuses each pod its controller creates: it runs none")] if refused else [])
    # a mutating webhook of the tree may add it as the pods are created (judge round EA:
    # Knative's kafka dispatcher, its `contract-resources` volume a webhook's)
    hooked = text + ("---\napiVersion: admissionregistration.k8s.io/v1\n"
                     "kind: MutatingWebhookConfiguration\nmetadata: {name: pods.kafka}\n"
                     "webhooks: []\n")
    result = lint_text(tmp_path / "hooked", hooked, only=["schema"])
    assert [f.severity for f in result.findings] == (["warning"] if refused else [])


@pytest.mark.parametrize("host, refused", [
    ("chat.", True), ("Chat.example.com", True), ("chat..example.com", True),
    ("chat.example.com", False), ("*.example.com", False), ("${HOST}", False)])
def test_an_ingress_host_that_is_no_dns_name_is_refused(
        tmp_path: Path, host: str, refused: bool) -> None:
    """New-user trial forty-nine: `chat.${DOMAIN}`, its variable renamed in production's
    postBuild, became `chat.`: the API server refuses the Ingress (a DNS-1123 subdomain, or
    one behind `*.`), and Flux's whole apply fails; two warnings said the variable was
    empty. A variable left in the host is not judged."""
    text = f"""
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: chat, namespace: chat}}
spec:
  rules:
  - host: "{host}"
    http:
      paths:
      - {{path: /, pathType: Prefix, backend: {{service: {{name: chat, port: {{number: 80}}}}}}}}
"""
    result = lint_text(tmp_path, text, only=["schema"])
    assert [(f.line, f.message.split(" is no")[0]) for f in result.findings] == (
        [(6, f"spec.rules[0].host: {host!r}")] if refused else [])
    assert {f.severity for f in result.findings} <= {"error"}


@pytest.mark.parametrize("host", ["mlflow.<CLUSTER_IP>.nip.io", "app.INGRESS_DOMAIN"])
def test_an_ingress_host_written_as_a_placeholder_is_a_warning_naming_it(
        tmp_path: Path, host: str) -> None:
    """Judge round BR: aicatalyst-team/catalyst-lab's ingresses write
    `mlflow.<CLUSTER_IP>.nip.io`, its README says to replace `<CLUSTER_IP>` before deploying:
    the cluster receives the host that replaces it, which nothing here sees (6 errors)."""
    text = f"""
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: chat, namespace: chat}}
spec:
  rules:
  - host: "{host}"
    http:
      paths:
      - {{path: /, pathType: Prefix, backend: {{service: {{name: chat, port: {{number: 80}}}}}}}}
"""
    result = lint_text(tmp_path, text, only=["schema"])
    placeholder = host.split(".")[1]
    assert [(f.severity, f.line) for f in result.findings] == [("warning", 6)]
    assert f"the value that replaces the placeholder {placeholder}" in result.findings[0].message

# a Flux bootstrap's sync of clusters/home (the root the Flux trees below hang from)
FLUX_SYNC = {"clusters/home/flux-system/gotk-sync.yaml": """
    apiVersion: source.toolkit.fluxcd.io/v1
    kind: GitRepository
    metadata: {name: flux-system, namespace: flux-system}
    spec: {interval: 1m, url: "https://github.com/me/home.git", ref: {branch: main}}
    ---
    apiVersion: kustomize.toolkit.fluxcd.io/v1
    kind: Kustomization
    metadata: {name: flux-system, namespace: flux-system}
    spec:
      interval: 10m
      path: ./clusters/home
      prune: true
      sourceRef: {kind: GitRepository, name: flux-system}
    """}


def test_a_quantity_flux_substitutes_with_nothing_names_the_unset_variable(
        tmp_path: Path) -> None:
    """New-user trial thirty-one: a change renamed PAPERLESS_CAPACITY in the Kustomization's
    postBuild while pvc.yaml kept `storage: ${PAPERLESS_CAPACITY}`: "'' is not a quantity ...
    Write it as a Kubernetes quantity" told the wrong action. The variable is unset, so Flux
    substitutes nothing: the message names it, the fix sets it."""
    from .helpers import lint_dir, write

    write(tmp_path, {
        **FLUX_SYNC,
        "clusters/home/apps.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: paperless, namespace: flux-system}
            spec:
              interval: 10m
              path: ./apps/paperless
              prune: true
              sourceRef: {kind: GitRepository, name: flux-system}
              postBuild:
                substitute: {VOLSYNC_CAPACITY: 15Gi}
            """,
        "apps/paperless/kustomization.yaml": "resources: [pvc.yaml]\n",
        "apps/paperless/pvc.yaml": """
            apiVersion: v1
            kind: PersistentVolumeClaim
            metadata: {name: data, namespace: paperless}
            spec:
              accessModes: [ReadWriteOnce]
              resources:
                requests: {storage: "${PAPERLESS_CAPACITY}"}
            """})
    result = lint_dir(tmp_path, only=["schema"])
    assert [(f.file, f.line, f.severity, f.message, f.fix) for f in result.findings] == [(
        "apps/paperless/pvc.yaml", 7, "error",
        "spec.resources.requests.storage: '' is not a quantity (a number with an optional "
        "suffix such as 500m, 4, 15Gi, 64G or 1e3), so the API server refuses the "
        "PersistentVolumeClaim: Flux substitutes ${PAPERLESS_CAPACITY} with nothing, as no "
        "postBuild value of the Kustomization that applies it sets it",
        "Set ${PAPERLESS_CAPACITY} in that Kustomization's postBuild (substitute or "
        "substituteFrom), or give it a default (${PAPERLESS_CAPACITY:=<quantity>}).")]


def test_an_ingress_host_an_unset_variable_empties_is_said_once(tmp_path: Path) -> None:
    """New-user trial eighty-nine D11: production's `APP_DOMAIN` renamed, an Ingress's
    `host: www.${APP_DOMAIN}` became `www.`: `unset-variable` and schema's refused host, two
    errors of one cause on one line. The unset variable's error says it, the refusal with
    it."""
    from .helpers import lint_dir, write

    write(tmp_path, {
        **FLUX_SYNC,
        "clusters/home/apps.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: apps, namespace: flux-system}
            spec:
              interval: 10m
              path: ./apps/web
              prune: true
              sourceRef: {kind: GitRepository, name: flux-system}
              postBuild:
                substitute: {PUBLIC_DOMAIN: example.com}
            """,
        "apps/web/kustomization.yaml": "resources: [ingress.yaml]\n",
        "apps/web/ingress.yaml": """
            apiVersion: networking.k8s.io/v1
            kind: Ingress
            metadata: {name: web, namespace: web}
            spec:
              rules:
              - host: "www.${APP_DOMAIN}"
                http:
                  paths:
                  - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
            """})
    result = lint_dir(tmp_path, only=["schema", "kustomize-integrity"])
    assert [(f.rule, f.line, f.severity, f.message.split("the field reads ")[-1])
            for f in result.findings] == [(
                "kustomize-integrity", 6, "error",
                "'www.', which is no DNS name the API server accepts: it refuses the Ingress, "
                "and the apply of Flux Kustomization flux-system/apps fails")]


def test_a_crd_a_chart_of_its_name_may_install_too_is_not_the_certain_schema(
        tmp_path: Path) -> None:
    """Judge round BL (Black-And-White-Club/all-infrastructure, 18 errors): the tree holds a
    stale copy of argocd-image-updater's CRD, and an Argo CD Application installs the chart
    argocd-image-updater, which installs that CRD too, newer: which schema the cluster runs
    is not certain. The chart's name is the first label of the CRD's group."""
    write(tmp_path, {
        "argocd/apps.yaml": """
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: crds, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://github.com/acme/infra.git, targetRevision: main, path: crds}
  destination: {server: https://kubernetes.default.svc, namespace: argocd}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: updaters, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://github.com/acme/infra.git, targetRevision: main, path: updaters}
  destination: {server: https://kubernetes.default.svc, namespace: argocd}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: image-updater, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://argoproj.github.io/argo-helm, chart: argocd-image-updater,
           targetRevision: 1.1.5}
  destination: {server: https://kubernetes.default.svc, namespace: argocd}
""",
        "crds/crd.yaml": """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: imageupdaters.argocd-image-updater.argoproj.io}
spec:
  group: argocd-image-updater.argoproj.io
  names: {kind: ImageUpdater, plural: imageupdaters}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {ignoreTags: {type: string}}}
""",
        "updaters/u.yaml": """
apiVersion: argocd-image-updater.argoproj.io/v1alpha1
kind: ImageUpdater
metadata: {name: u, namespace: argocd}
spec: {ignoreTags: [latest]}
"""})
    result = lint_dir(tmp_path, only=["schema"])
    assert [(f.severity, f.message.partition(" Not certain: ")[2]) for f in result.findings] == [
        ("warning", "reviewbot could not see which imageupdaters.argocd-image-updater.argoproj.io "
         "CRD the cluster runs; the copy it is judged against (crds/crd.yaml) is itself "
         "uncertain: whether the cluster runs this copy: Argo CD Application "
         "argocd/image-updater installs the chart argocd-image-updater, whose own CRDs of this "
         "group reviewbot does not read.")]


def test_a_crd_of_another_cluster_is_not_the_certain_schema(tmp_path: Path) -> None:
    """Judge round DG (Bold-origins/gitops-infrastructure): a hand-written stub of
    Gatekeeper's ConstraintTemplate CRD in the lab cluster's folder validated the prod
    cluster's ConstraintTemplates, whose cluster installs Gatekeeper's chart (its CRD has
    `validation`): three errors "unknown field". A CRD judges the objects of the clusters it
    reaches; of another cluster's, which CRD the cluster runs is not seen."""
    sync = """
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1h, url: https://example.com/r.git}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1h, path: ./clusters/%s, prune: true,
       sourceRef: {kind: GitRepository, name: flux-system}}
"""
    crd = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: constrainttemplates.templates.gatekeeper.sh}
spec:
  group: templates.gatekeeper.sh
  names: {kind: ConstraintTemplate, plural: constrainttemplates}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {crd: {type: object}}}
"""
    template = """
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: k8srequiredlabels}
spec:
  crd: {spec: {names: {kind: K8sRequiredLabels}}}
  targets: [{target: admission.k8s.gatekeeper.sh, rego: "package x"}]
"""
    write(tmp_path, {
        "clusters/lab/flux-system/gotk-sync.yaml": sync % "lab",
        "clusters/lab/kustomization.yaml": "resources: [flux-system/gotk-sync.yaml, crd.yaml]\n",
        "clusters/lab/crd.yaml": crd,
        "clusters/prod/flux-system/gotk-sync.yaml": sync % "prod",
        "clusters/prod/kustomization.yaml":
            "resources: [flux-system/gotk-sync.yaml, template.yaml]\n",
        "clusters/prod/template.yaml": template,
    })
    result = lint_dir(tmp_path, only=["schema"])
    assert [(f.severity, f.message) for f in result.findings] == [
        ("warning", "spec.targets: unknown field 'targets'. Not certain: reviewbot could not "
         "see which constrainttemplates.templates.gatekeeper.sh CRD cluster clusters/prod "
         "runs: the copy it is judged against (clusters/lab/crd.yaml) is applied to cluster "
         "clusters/lab only.")]
    # the same CRD in prod's own folder judges it: an error
    write(tmp_path, {"clusters/prod/kustomization.yaml":
                     "resources: [flux-system/gotk-sync.yaml, template.yaml, crd.yaml]\n",
                     "clusters/prod/crd.yaml": crd})
    assert [f.severity for f in lint_dir(tmp_path, only=["schema"]).findings] == ["error"]


def test_an_annotation_a_json6902_patch_writes_as_a_scalar_is_text_in_the_build(
        tmp_path: Path) -> None:
    """Judge round BY: a JSON 6902 `add` of an nginx annotation with `value: true` was a
    schema error "expected string, got boolean"; kustomize writes every annotation back as
    text (`kubectl kustomize` prints "true", "5"). A label so written keeps its type there,
    and its error."""
    write(tmp_path, {
        "ing.yaml": "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\n"
                    "spec:\n  rules: [{host: a.example}]\n",
        "kustomization.yaml": """
            resources: [ing.yaml]
            patches:
            - target: {kind: Ingress, name: web}
              patch: |-
                - op: add
                  path: /metadata/annotations
                  value: {nginx.ingress.kubernetes.io/force-ssl-redirect: true}
                - op: add
                  path: /metadata/annotations/replicas
                  value: 5
                - op: add
                  path: /metadata/labels
                  value: {tls: true}
            """})
    result = lint_dir(tmp_path, only=["schema"])
    assert [f.message.split(":")[0] for f in result.findings] == ["metadata.labels.tls"]
    (ingress,) = [o for o in result.model.objects if o.kind == "Ingress"]
    assert ingress.metadata["annotations"] == {
        "nginx.ingress.kubernetes.io/force-ssl-redirect": "true", "replicas": "5"}


def test_a_volume_mount_s_fix_names_the_volume_of_a_close_name(tmp_path: Path) -> None:
    """New-user trial fifty-one: the mount renamed `shm`, the pod's memory-backed volume
    `dshm`: the fix's "or add a volume shm", followed, made a new error (an emptyDir not
    in memory at /dev/shm). The volume meant is named."""
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: ai}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm
        volumeMounts: [{name: shm, mountPath: /dev/shm}]
      volumes: [{name: dshm, emptyDir: {medium: Memory}}]
"""
    [finding] = lint_text(tmp_path, text, only=["schema"]).findings
    assert finding.fix == "Name the volume dshm, the pod's volume of a close name."


def test_a_volume_named_by_a_mapping_is_no_crash(tmp_path: Path) -> None:
    """The fuzz campaign (new-user trial fifty-three's run): a volume whose name is a
    mapping made the mount check's set of names raise ("unhashable type: 'dict'", exit 3).
    The schema says what is wrong with the name; the mount check judges nothing there."""
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ai}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: web
        volumeMounts: [{name: data, mountPath: /data}]
      volumes: [{name: {a: 1}, emptyDir: {}}]
"""
    found = lint_text(tmp_path, text, only=["schema"]).findings
    assert found and all("volumeMounts" not in f.message for f in found)


def _crd(field: str) -> str:
    return f"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: widgets.acme.io}}
spec:
  group: acme.io
  names: {{kind: Widget, plural: widgets}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties: {{{field}: {{type: string}}}}
"""


def test_two_copies_of_a_crd_conflict_only_where_one_cluster_gets_both(
        tmp_path: Path) -> None:
    """Judge round ED (DecentM/fleet-infra): production's and staging's own
    gotk-components.yaml, each its cluster's folder's, were 10 `crd-conflict` warnings
    ("the tree does not say which one the cluster has"): each cluster has its own copy. Two
    copies one cluster gets conflict."""
    write(tmp_path, {
        ".reviewbot.yaml": "clusters:\n- {name: prod, paths: [clusters/prod]}\n"
                           "- {name: staging, paths: [clusters/staging]}\n",
        "clusters/prod/crd.yaml": _crd("size"),
        "clusters/staging/crd.yaml": _crd("colour"),
    })
    from reviewbot.config import load_config_file

    config = load_config_file(tmp_path / ".reviewbot.yaml")
    assert [f.kind for f in lint_dir(tmp_path, only=["schema"], config=config).findings] == []
    write(tmp_path, {"clusters/prod/again.yaml": _crd("colour")})
    assert [(f.file, f.kind, f.severity) for f in lint_dir(
        tmp_path, only=["schema"], config=config).findings] == [
        ("clusters/prod/crd.yaml", "crd-conflict", "warning")]


def test_a_release_s_values_key_its_tree_chart_never_reads_changes_nothing(
        tmp_path: Path) -> None:
    """New-user trial eighty-nine D2 and D3: production's values patch wrote `resource:` for
    `resources:` of a HelmRelease whose chart is `./charts/api` of the repository, and a
    2.0.0 chart renamed `autoscaling` to `hpa` under releases still setting `autoscaling`:
    nothing was said, and the release ran at the defaults. A key of the release's
    `spec.values` that the tree's chart neither defaults nor reads is `values-unread`, at
    the key (in the patch that writes it)."""
    release = """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: api, namespace: api}
spec:
  interval: 10m
  chart:
    spec:
      chart: ./charts/api
      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
  values:
    replicas: 2
    resources: {requests: {cpu: 200m}}
"""
    write(tmp_path, {
        "charts/api/Chart.yaml": "apiVersion: v2\nname: api\nversion: 1.4.0\n",
        "charts/api/values.yaml": "replicas: 1\nresources: {}\n",
        "charts/api/templates/deployment.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n"
            "  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      containers:\n"
            "      - name: api\n        resources: {{ toYaml .Values.resources | nindent 10 }}\n"),
        "apps/base/release.yaml": release,
        "apps/base/kustomization.yaml": "resources: [release.yaml]\n",
        "apps/prod/kustomization.yaml": "resources: [../base]\npatches: [{path: values.yaml}]\n",
        "apps/prod/values.yaml": ("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n"
                                  "metadata: {name: api, namespace: api}\nspec:\n  values:\n"
                                  "    resource: {requests: {cpu: 500m}}\n"),
    })
    result = lint_dir(tmp_path, only=["schema"])
    assert [(f.file, f.line, f.severity, f.message, f.fix) for f in result.findings
            if f.kind == "values-unread"] == [(
                "apps/prod/values.yaml", 6, "warning",
                "resource: no template of the chart in charts/api reads .Values.resource, and "
                "its values.yaml has no such key, so this value changes nothing (its "
                "templates read .Values.resources)",
                "Write it as resources, the key the chart reads, or remove it.")]
    # the release's own keys, all read: nothing
    (tmp_path / "apps" / "prod" / "values.yaml").write_text(
        (tmp_path / "apps" / "prod" / "values.yaml").read_text().replace("resource:",
                                                                         "resources:"))
    result = lint_dir(tmp_path, only=["schema"])
    assert [f for f in result.findings if f.kind == "values-unread"] == []
