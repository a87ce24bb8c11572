"""kustomize's transformer configurations (issue 27 §2-3): where names are referenced,
labels and namespaces go, and ``$(VAR)``s are replaced, from kustomize's builtin fieldSpecs
(bot/model/fieldspecs.py) and a kustomization's ``configurations:`` files. Each test builds a
whole kustomization in process (the last steps included: hash suffixes, name references,
vars) and asserts the objects it expects; the same as `kubectl kustomize` builds when kubectl
is on PATH (required with CI set)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any

from reviewbot.load.loader import load
from reviewbot.model.fieldspecs import BUILTIN, parse
from reviewbot.model.transform import finish
from reviewbot.sources.tree import FileRecord, blob_id

from .helpers import kustomize_graph

KUBECTL = shutil.which("kubectl")
Objects = dict[tuple[str, str], dict[str, Any]]


def build(tmp_path: Path, files: dict[str, str], folder: str = "overlay") -> Objects:
    """The whole in-process build of ``folder`` by (kind, name); asserted equal to kubectl
    kustomize's when kubectl is there."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))
    made = kustomize_graph(tmp_path).build(folder)
    got = {(r.kind, r.name): json.loads(json.dumps(r.body, sort_keys=True))
           for r in finish(made.resources, made.config, made.variables)}
    if KUBECTL is None:
        assert not os.environ.get("CI"), "CI needs kubectl (Debian's package)"
        return got
    proc = subprocess.run([KUBECTL, "kustomize", str(tmp_path / folder)], capture_output=True,
                          check=True, timeout=60)
    record = FileRecord("built.yaml", blob_id(proc.stdout), proc.stdout)
    want = {(d.value["kind"], d.value["metadata"]["name"]): json.loads(json.dumps(
        d.value, sort_keys=True)) for d in load(record).documents}
    assert got == want
    return got


BASE = """
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings}
    ---
    apiVersion: v1
    kind: Secret
    metadata: {name: creds}
    ---
    apiVersion: v1
    kind: ServiceAccount
    metadata: {name: runner}
    ---
    apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: data}
    ---
    apiVersion: scheduling.k8s.io/v1
    kind: PriorityClass
    metadata: {name: high}
    value: 1000
    ---
    apiVersion: v1
    kind: Service
    metadata: {name: web}
    spec: {ports: [{port: 80}]}
    ---
    apiVersion: rbac.authorization.k8s.io/v1
    kind: Role
    metadata: {name: reader}
    ---
    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRole
    metadata: {name: reader}
    ---
    apiVersion: rbac.authorization.k8s.io/v1
    kind: RoleBinding
    metadata: {name: read}
    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
    subjects: [{kind: ServiceAccount, name: runner}]
    ---
    apiVersion: rbac.authorization.k8s.io/v1
    kind: ClusterRoleBinding
    metadata: {name: read-all}
    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}
    subjects: [{kind: ServiceAccount, name: runner, namespace: apps}]
    ---
    apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: web}
    spec:
      serviceName: web
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          serviceAccountName: runner
          priorityClassName: high
          imagePullSecrets: [{name: creds}]
          containers:
          - name: web
            image: nginx
            envFrom: [{configMapRef: {name: settings}}]
            env:
            - name: TOKEN
              valueFrom: {secretKeyRef: {name: creds, key: token}}
          volumes:
          - {name: data, persistentVolumeClaim: {claimName: data}}
          - name: all
            projected: {sources: [{configMap: {name: settings}}, {secret: {name: creds}}]}
    ---
    apiVersion: autoscaling/v2
    kind: HorizontalPodAutoscaler
    metadata: {name: web}
    spec:
      scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: web}
      maxReplicas: 3
    ---
    apiVersion: networking.k8s.io/v1
    kind: Ingress
    metadata: {name: web}
    spec:
      ingressClassName: nginx
      tls: [{secretName: creds}]
      defaultBackend: {service: {name: web, port: {number: 80}}}
    ---
    apiVersion: networking.k8s.io/v1
    kind: IngressClass
    metadata: {name: nginx}
"""


def test_a_name_prefix_renames_every_reference_kustomize_tracks(tmp_path: Path) -> None:
    objs = build(tmp_path, {
        "base/kustomization.yaml": "resources: [objects.yaml]\n",
        "base/objects.yaml": BASE,
        "overlay/kustomization.yaml": "resources: [../base]\nnamePrefix: p-\n",
    })
    pod = objs[("StatefulSet", "p-web")]["spec"]["template"]["spec"]
    assert objs[("StatefulSet", "p-web")]["spec"]["serviceName"] == "p-web"
    assert (pod["serviceAccountName"], pod["priorityClassName"]) == ("p-runner", "p-high")
    assert pod["imagePullSecrets"] == [{"name": "p-creds"}]
    assert pod["containers"][0]["envFrom"] == [{"configMapRef": {"name": "p-settings"}}]
    assert pod["containers"][0]["env"][0]["valueFrom"]["secretKeyRef"]["name"] == "p-creds"
    assert pod["volumes"][0]["persistentVolumeClaim"]["claimName"] == "p-data"
    assert pod["volumes"][1]["projected"]["sources"] == [
        {"configMap": {"name": "p-settings"}}, {"secret": {"name": "p-creds"}}]
    # a roleRef follows the object of its own kind (Role and ClusterRole share a name)
    assert objs[("RoleBinding", "p-read")]["roleRef"]["name"] == "p-reader"
    assert objs[("ClusterRoleBinding", "p-read-all")]["roleRef"]["name"] == "p-reader"
    assert objs[("RoleBinding", "p-read")]["subjects"] == [
        {"kind": "ServiceAccount", "name": "p-runner"}]
    # a subject in another namespace than the ServiceAccount's is left alone
    assert objs[("ClusterRoleBinding", "p-read-all")]["subjects"] == [
        {"kind": "ServiceAccount", "name": "runner", "namespace": "apps"}]
    assert objs[("HorizontalPodAutoscaler", "p-web")]["spec"]["scaleTargetRef"]["name"] == (
        "p-web")
    ingress = objs[("Ingress", "p-web")]["spec"]
    assert ingress["tls"] == [{"secretName": "p-creds"}]
    assert ingress["defaultBackend"]["service"]["name"] == "p-web"
    # kustomize's IngressClass entry names the group "networking.k8s.io/v1": never matched
    assert ingress["ingressClassName"] == "nginx"


def test_references_follow_a_generated_hash_and_an_overlay_suffix(tmp_path: Path) -> None:
    objs = build(tmp_path, {
        "base/kustomization.yaml": """
            resources: [job.yaml]
            namePrefix: b-
            configMapGenerator: [{name: cfg, literals: [A=1]}]
        """,
        "base/job.yaml": """
            apiVersion: batch/v1
            kind: CronJob
            metadata: {name: nightly}
            spec:
              schedule: "0 0 * * *"
              jobTemplate:
                spec:
                  template:
                    spec:
                      restartPolicy: Never
                      containers:
                      - name: run
                        image: busybox
                        env:
                        - name: A
                          valueFrom: {configMapKeyRef: {name: cfg, key: A}}
        """,
        "overlay/kustomization.yaml": "resources: [../base]\nnameSuffix: -o\n",
    })
    (cm,) = [name for kind, name in objs if kind == "ConfigMap"]
    assert cm.startswith("b-cfg-o-") and len(cm) == len("b-cfg-o-") + 10
    job = objs[("CronJob", "b-nightly-o")]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert job["containers"][0]["env"][0]["valueFrom"]["configMapKeyRef"]["name"] == cm


def test_a_build_that_renames_one_kind_follows_that_kind_alone(tmp_path: Path) -> None:
    # only the hashed ConfigMap has a name before its current one: the Secret (no hash) and
    # the ServiceAccount (no namespace given by the build) keep what the fields hold
    objs = build(tmp_path, {
        "overlay/kustomization.yaml": """
            resources: [objects.yaml]
            configMapGenerator:
            - {name: settings, literals: [a=1]}
            secretGenerator:
            - {name: creds, literals: [t=x], options: {disableNameSuffixHash: true}}
        """,
        "overlay/objects.yaml": """
            apiVersion: v1
            kind: ServiceAccount
            metadata: {name: runner, namespace: team}
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRoleBinding
            metadata: {name: runner}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
            subjects: [{kind: ServiceAccount, name: runner}]
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              template:
                spec:
                  serviceAccountName: runner
                  containers:
                  - name: app
                    image: nginx
                    envFrom: [{configMapRef: {name: settings}}]
                    env:
                    - name: T
                      valueFrom: {secretKeyRef: {name: creds, key: t}}
        """,
    })
    (cm,) = [name for kind, name in objs if kind == "ConfigMap"]
    assert cm.startswith("settings-")
    pod = objs[("Deployment", "web")]["spec"]["template"]["spec"]
    assert pod["containers"][0]["envFrom"] == [{"configMapRef": {"name": cm}}]
    assert pod["containers"][0]["env"][0]["valueFrom"]["secretKeyRef"]["name"] == "creds"
    assert objs[("ClusterRoleBinding", "runner")]["subjects"] == [
        {"kind": "ServiceAccount", "name": "runner"}]


def test_namespace_goes_where_kustomize_puts_it(tmp_path: Path) -> None:
    objs = build(tmp_path, {
        "overlay/kustomization.yaml": "resources: [objects.yaml]\nnamespace: apps\n",
        "overlay/objects.yaml": """
            apiVersion: v1
            kind: Service
            metadata: {name: hook, namespace: system}
            ---
            apiVersion: v1
            kind: ServiceAccount
            metadata: {name: runner, namespace: system}
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: RoleBinding
            metadata: {name: read, namespace: system}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
            subjects:
            - {kind: ServiceAccount, name: runner, namespace: system}
            - {kind: ServiceAccount, name: default}
            - {kind: ServiceAccount, name: elsewhere, namespace: other}
            ---
            apiVersion: admissionregistration.k8s.io/v1
            kind: MutatingWebhookConfiguration
            metadata: {name: hooks}
            webhooks:
            - name: a.example.com
              clientConfig: {service: {name: hook, namespace: system, path: /m}}
            - name: b.example.com
              clientConfig: {service: {name: absent, namespace: system}}
            ---
            apiVersion: apiregistration.k8s.io/v1
            kind: APIService
            metadata: {name: v1.x.example.com}
            spec: {service: {name: hook}}
            ---
            apiVersion: cert-manager.io/v1
            kind: ClusterIssuer
            metadata: {name: letsencrypt}
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRole
            metadata: {name: view}
        """,
    })
    assert objs[("RoleBinding", "read")]["subjects"] == [
        {"kind": "ServiceAccount", "name": "runner", "namespace": "apps"},  # follows the SA
        {"kind": "ServiceAccount", "name": "default", "namespace": "apps"},  # named default
        {"kind": "ServiceAccount", "name": "elsewhere", "namespace": "other"}]
    hooks = objs[("MutatingWebhookConfiguration", "hooks")]["webhooks"]
    assert hooks[0]["clientConfig"]["service"] == {"name": "hook", "namespace": "apps",
                                                   "path": "/m"}
    assert hooks[1]["clientConfig"]["service"] == {"name": "absent", "namespace": "system"}
    assert objs[("APIService", "v1.x.example.com")]["spec"]["service"] == {
        "name": "hook", "namespace": "apps"}
    assert "namespace" not in objs[("MutatingWebhookConfiguration", "hooks")]["metadata"]
    assert "namespace" not in objs[("ClusterRole", "view")]["metadata"]
    # kustomize knows the cluster scope of Kubernetes' own kinds only
    assert objs[("ClusterIssuer", "letsencrypt")]["metadata"]["namespace"] == "apps"


def test_common_labels_reach_the_selectors_kustomize_lists(tmp_path: Path) -> None:
    objs = build(tmp_path, {
        "overlay/kustomization.yaml": "resources: [objects.yaml]\ncommonLabels: {team: a}\n",
        "overlay/objects.yaml": """
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata: {name: web}
            spec:
              podSelector: {matchLabels: {app: web}}
              ingress: [{from: [{podSelector: {matchLabels: {app: lb}}}, {podSelector: {}}]}]
            ---
            apiVersion: policy/v1
            kind: PodDisruptionBudget
            metadata: {name: web}
            spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
            ---
            apiVersion: batch/v1
            kind: Job
            metadata: {name: once}
            spec:
              template:
                spec:
                  restartPolicy: Never
                  containers: [{name: run, image: busybox}]
            ---
            apiVersion: apps/v1
            kind: StatefulSet
            metadata: {name: db}
            spec:
              selector: {matchLabels: {app: db}}
              template:
                metadata: {labels: {app: db}}
                spec:
                  containers: [{name: db, image: postgres}]
                  topologySpreadConstraints:
                  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,
                     labelSelector: {matchLabels: {app: db}}}
              volumeClaimTemplates: [{metadata: {name: data}, spec: {}}]
        """,
    })
    policy = objs[("NetworkPolicy", "web")]["spec"]
    assert policy["podSelector"] == {"matchLabels": {"app": "web", "team": "a"}}
    # where a matchLabels is missing it is not made (create: false)
    assert policy["ingress"][0]["from"] == [
        {"podSelector": {"matchLabels": {"app": "lb", "team": "a"}}}, {"podSelector": {}}]
    assert objs[("PodDisruptionBudget", "web")]["spec"]["selector"]["matchLabels"] == {
        "app": "web", "team": "a"}
    job = objs[("Job", "once")]["spec"]
    assert "selector" not in job and job["template"]["metadata"]["labels"] == {"team": "a"}
    db = objs[("StatefulSet", "db")]["spec"]
    assert db["template"]["spec"]["topologySpreadConstraints"][0]["labelSelector"] == {
        "matchLabels": {"app": "db", "team": "a"}}
    assert db["volumeClaimTemplates"][0]["metadata"]["labels"] == {"team": "a"}


CRDS = """
    apiVersion: cert-manager.io/v1
    kind: Issuer
    metadata: {name: ca}
    ---
    apiVersion: cert-manager.io/v1
    kind: Certificate
    metadata: {name: serving}
    spec:
      issuerRef: {name: ca}
      commonName: $(SERVICE).$(NAMESPACE).svc
      dnsNames: [$(SERVICE).$(NAMESPACE).svc, "$$(escaped)"]
    ---
    apiVersion: example.com/v1
    kind: Widget
    metadata: {name: w}
    spec:
      selector: {app: web}
      port: $(PORT)
    ---
    apiVersion: v1
    kind: Service
    metadata: {name: hook}
    spec: {ports: [{port: 8443}]}
"""

CONFIG = """
    nameReference:
    - kind: Issuer
      group: cert-manager.io
      fieldSpecs:
      - {kind: Certificate, group: cert-manager.io, path: spec/issuerRef/name}
    varReference:
    - {kind: Certificate, path: spec/commonName}
    - {kind: Certificate, path: spec/dnsNames}
    - {kind: Widget, path: spec/port}
    commonLabels:
    - {kind: Widget, path: spec/selector, create: true}
"""

VARS = """
    vars:
    - name: SERVICE
      objref: {kind: Service, version: v1, name: hook}
    - name: NAMESPACE
      objref: {kind: Service, apiVersion: v1, name: hook}
      fieldref: {fieldpath: metadata.namespace}
    - name: PORT
      objref: {kind: Service, apiVersion: v1, name: hook}
      fieldref: {fieldPath: "spec.ports[0].port"}
"""


def test_a_base_s_configurations_and_vars_serve_the_overlay(tmp_path: Path) -> None:
    objs = build(tmp_path, {
        "base/kustomization.yaml": "resources: [objects.yaml]\nconfigurations: [config.yaml]\n"
                                   + textwrap.dedent(VARS),
        "base/objects.yaml": CRDS,
        "base/config.yaml": CONFIG,
        "overlay/kustomization.yaml": """
            resources: [../base]
            namePrefix: p-
            namespace: apps
            commonLabels: {team: a}
        """,
    })
    cert = objs[("Certificate", "p-serving")]["spec"]
    assert cert["issuerRef"] == {"name": "p-ca"}  # the configuration's nameReference
    # vars are read from the whole build, once: the Service as the overlay made it
    assert cert["commonName"] == "p-hook.apps.svc"
    assert cert["dnsNames"] == ["p-hook.apps.svc", "$(escaped)"]
    widget = objs[("Widget", "p-w")]["spec"]
    assert widget["port"] == 8443  # a field that is only $(VAR) takes the value's type
    assert widget["selector"] == {"app": "web", "team": "a"}  # the overlay's commonLabels


def test_without_their_configuration_custom_fields_stay_as_written(tmp_path: Path) -> None:
    objs = build(tmp_path, {
        "overlay/kustomization.yaml": "resources: [objects.yaml]\nnamePrefix: p-\n",
        "overlay/objects.yaml": CRDS,
    })
    cert = objs[("Certificate", "p-serving")]["spec"]
    assert cert["issuerRef"] == {"name": "ca"}
    assert cert["commonName"] == "$(SERVICE).$(NAMESPACE).svc"


def test_a_patch_finds_its_target_by_the_name_its_base_gave(tmp_path: Path) -> None:
    objs = build(tmp_path, {
        "base/kustomization.yaml": "resources: [cm.yaml]\nnamePrefix: b-\nnamespace: one\n",
        "base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n",
        "overlay/kustomization.yaml": """
            resources: [../base]
            patches:
            - patch: |
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: cfg}
                data: {A: "1"}
            - target: {kind: ConfigMap, name: cfg}
              patch: |
                - {op: add, path: /data/B, value: "2"}
        """,
    })
    assert objs[("ConfigMap", "b-cfg")] == {
        "apiVersion": "v1", "kind": "ConfigMap", "data": {"A": "1", "B": "2"},
        "metadata": {"name": "b-cfg", "namespace": "one"}}


def test_configuration_files_merge_as_kustomize_merges_them() -> None:
    extra = parse({"commonLabels": [{"path": "spec/selector", "kind": "Widget",
                                     "create": True}],
                   "nameReference": [{"kind": "ConfigMap", "version": "v1", "fieldSpecs": [
                       {"path": "spec/configName", "kind": "Widget"}]}]})
    merged = BUILTIN.merge(extra)
    assert len(merged["commonLabels"]) == len(BUILTIN["commonLabels"]) + 1
    (config_map,) = [r for r in merged.name_reference if r.kind == "ConfigMap"]
    (builtin_cm,) = [r for r in BUILTIN.name_reference if r.kind == "ConfigMap"]
    assert len(config_map.referrers) == len(builtin_cm.referrers) + 1
    # a spec already there is not added twice; one that differs only in create conflicts
    assert merged.merge(extra) == merged
    clash = parse({"commonLabels": [{"path": "spec/selector", "kind": "Widget"}]})
    assert merged.merge(clash).problems
    assert parse({"namePrefixes": []}).problems  # kustomize reads them strictly
