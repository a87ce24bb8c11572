"""Strategic merge patches by each field's OpenAPI patch strategy, as kustomize applies them
(issue 27 §2): expected bodies are what `kubectl kustomize` (kustomize v5.5) builds from the
same files, asserted against it too when kubectl is on PATH."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any

from reviewbot.load.loader import load
from reviewbot.sources.tree import FileRecord, blob_id

from .helpers import lint_dir

KUBECTL = shutil.which("kubectl")


def build(tmp_path: Path, files: dict[str, str]) -> list[dict[str, Any]]:
    """The in-process build of ``tmp_path`` (its objects' bodies, in build order); the same
    as kubectl kustomize's when kubectl is there (required with CI set)."""
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    bodies = [json.loads(json.dumps(o.body, sort_keys=True)) for o in result.model.objects]
    if KUBECTL is None:
        assert not os.environ.get("CI"), "CI needs kubectl (Debian's package)"
        return bodies
    proc = subprocess.run([KUBECTL, "kustomize", str(tmp_path)], capture_output=True,
                          check=True, timeout=60)
    record = FileRecord("built.yaml", blob_id(proc.stdout), proc.stdout)
    want = [json.loads(json.dumps(d.value, sort_keys=True)) for d in load(record).documents]
    key = lambda b: (b["kind"], b["metadata"]["name"])  # noqa: E731
    assert sorted(bodies, key=key) == sorted(want, key=key)
    return bodies


def only(bodies: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    (body,) = [b for b in bodies if b["kind"] == kind]
    return body


def test_service_ports_merge_by_port_and_protocol(tmp_path: Path) -> None:
    bodies = build(tmp_path, {
        "kustomization.yaml": """
            resources: [svc.yaml]
            patches:
            - patch: |
                apiVersion: v1
                kind: Service
                metadata: {name: dns}
                spec:
                  ports:
                  - {port: 53, protocol: UDP, targetPort: 5353}
                  - {port: 9153, protocol: TCP, name: metrics}
        """,
        "svc.yaml": """
            apiVersion: v1
            kind: Service
            metadata: {name: dns}
            spec:
              ports:
              - {port: 53, protocol: TCP, targetPort: 53, name: tcp}
              - {port: 53, protocol: UDP, targetPort: 53, name: udp}
        """,
    })
    # keyed by two fields: the new port first, the base's merged in place
    assert only(bodies, "Service")["spec"]["ports"] == [
        {"name": "metrics", "port": 9153, "protocol": "TCP"},
        {"name": "tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
        {"name": "udp", "port": 53, "protocol": "UDP", "targetPort": 5353},
    ]


def test_webhooks_merge_by_name_and_keep_their_fields(tmp_path: Path) -> None:
    bodies = build(tmp_path, {
        "kustomization.yaml": """
            resources: [hook.yaml]
            patches:
            - patch: |
                apiVersion: admissionregistration.k8s.io/v1
                kind: ValidatingWebhookConfiguration
                metadata: {name: policy}
                webhooks:
                - name: b.example.com
                  failurePolicy: Ignore
        """,
        "hook.yaml": """
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingWebhookConfiguration
            metadata: {name: policy}
            webhooks:
            - name: a.example.com
              admissionReviewVersions: [v1]
              sideEffects: None
              clientConfig: {service: {name: a, namespace: x}}
            - name: b.example.com
              admissionReviewVersions: [v1]
              sideEffects: None
              failurePolicy: Fail
              clientConfig: {service: {name: b, namespace: x}}
        """,
    })
    hooks = only(bodies, "ValidatingWebhookConfiguration")["webhooks"]
    assert [(h["name"], h.get("failurePolicy"), h["clientConfig"]["service"]["name"])
            for h in hooks] == [("b.example.com", "Ignore", "b"), ("a.example.com", None, "a")]


def test_container_lists_merge_by_key_and_other_lists_are_replaced(tmp_path: Path) -> None:
    bodies = build(tmp_path, {
        "kustomization.yaml": """
            resources: [deploy.yaml]
            patches:
            - patch: |
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web, finalizers: [b]}
                spec:
                  template:
                    spec:
                      tolerations: [{key: b, operator: Exists}]
                      volumes:
                      - {name: old, $patch: delete}
                      containers:
                      - name: web
                        args: [--new]
                        env: [{name: B, value: "3"}]
                        ports: [{containerPort: 8080, name: http2}]
        """,
        "deploy.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web, finalizers: [a]}
            spec:
              selector: {matchLabels: {app: web}}
              template:
                metadata: {labels: {app: web}}
                spec:
                  tolerations: [{key: a, operator: Exists}]
                  volumes: [{name: old, emptyDir: {}}, {name: keep, emptyDir: {}}]
                  containers:
                  - name: web
                    image: web:1
                    args: [--old]
                    env: [{name: A, value: "1"}]
                    ports: [{containerPort: 8080, name: http}, {containerPort: 9090}]
        """,
    })
    deploy = only(bodies, "Deployment")
    pod = deploy["spec"]["template"]["spec"]
    (web,) = pod["containers"]
    assert deploy["metadata"]["finalizers"] == ["b", "a"]  # merge of scalars: a union
    assert pod["tolerations"] == [{"key": "b", "operator": "Exists"}]  # no strategy: replaced
    assert pod["volumes"] == [{"emptyDir": {}, "name": "keep"}]
    assert web["args"] == ["--new"]
    assert web["env"] == [{"name": "B", "value": "3"}, {"name": "A", "value": "1"}]
    assert web["ports"] == [{"containerPort": 8080, "name": "http2"}, {"containerPort": 9090}]


def test_custom_resources_have_no_schema_so_their_lists_are_replaced(tmp_path: Path) -> None:
    bodies = build(tmp_path, {
        "kustomization.yaml": """
            resources: [cr.yaml]
            patches:
            - patch: |
                apiVersion: example.com/v1
                kind: Pipeline
                metadata: {name: p}
                spec:
                  steps: [{name: b, image: b:2}]
                  owner: {team: blue}
        """,
        "cr.yaml": """
            apiVersion: example.com/v1
            kind: Pipeline
            metadata: {name: p}
            spec:
              steps: [{name: a, image: a:1}, {name: b, image: b:1}]
              owner: {team: red, pager: x}
        """,
    })
    spec = only(bodies, "Pipeline")["spec"]
    assert spec == {"steps": [{"image": "b:2", "name": "b"}],
                    "owner": {"pager": "x", "team": "blue"}}


def test_patch_directives_as_kustomize_applies_them(tmp_path: Path) -> None:
    bodies = build(tmp_path, {
        "kustomization.yaml": """
            resources: [objects.yaml]
            patches:
            - patch: |
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: gone}
                $patch: delete
            - patch: |
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web}
                spec:
                  strategy:
                    $patch: replace
                    type: Recreate
                  template:
                    spec:
                      $setElementOrder/containers: [{name: web}]
                      containers:
                      - name: web
                        volumeMounts:
                        - $patch: replace
                        - {name: b, mountPath: /b}
        """,
        "objects.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: gone}
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}
              selector: {matchLabels: {app: web}}
              template:
                metadata: {labels: {app: web}}
                spec:
                  containers:
                  - name: web
                    image: web:1
                    volumeMounts: [{name: a, mountPath: /a}]
        """,
    })
    assert [b["kind"] for b in bodies] == ["Deployment"]  # `$patch: delete` deleted it
    spec = bodies[0]["spec"]
    assert spec["strategy"] == {"type": "Recreate"}
    pod = spec["template"]["spec"]
    assert pod["containers"][0]["volumeMounts"] == [{"mountPath": "/b", "name": "b"}]
    # kustomize copies apimachinery's other directives as written (the cluster gets them)
    assert pod["$setElementOrder/containers"] == [{"name": "web"}]


def test_a_patch_element_without_the_merge_key_empties_the_keyed_list(tmp_path: Path) -> None:
    """kyaml matches an element without the list's merge key by an empty value, which its
    ElementSetter takes for any: every base element holding the key goes (metallb's speaker
    patch deletes its mounts by `name`, volumeMounts are keyed by mountPath: kustomize
    builds `volumeMounts: []`, and the volumes the same patch deletes by name are gone too;
    judge round CL). The patch's keyed elements before it were merged; after it, alone."""
    bodies = build(tmp_path, {
        "kustomization.yaml": """
            resources: [ds.yaml]
            patches:
            - patch: |
                apiVersion: apps/v1
                kind: DaemonSet
                metadata: {name: speaker}
                spec:
                  template:
                    spec:
                      containers:
                      - name: speaker
                        volumeMounts: [{$patch: delete, name: a}]
                        env:
                        - {name: A, value: "9"}
                        - {valueFrom: {fieldRef: {fieldPath: x}}}
                        - {name: B, value: "8"}
                      - name: side
                        volumeMounts: [{name: c, mountPath: /c}, {readOnly: true}]
                      volumes: [{$patch: delete, name: a}]
        """,
        "ds.yaml": """
            apiVersion: apps/v1
            kind: DaemonSet
            metadata: {name: speaker}
            spec:
              selector: {matchLabels: {app: s}}
              template:
                metadata: {labels: {app: s}}
                spec:
                  containers:
                  - name: speaker
                    image: speaker:1
                    volumeMounts: [{name: a, mountPath: /a}, {name: b, mountPath: /b}]
                    env:
                    - {name: A, value: "1", x: "kept"}
                    - {name: B, value: "2", y: "lost"}
                    - {name: C, value: "3"}
                  - name: side
                    image: side:1
                    volumeMounts: [{name: a, mountPath: /a}]
                  volumes: [{name: a, emptyDir: {}}, {name: b, emptyDir: {}}]
        """,
    })
    pod = only(bodies, "DaemonSet")["spec"]["template"]["spec"]
    speaker, side = pod["containers"]
    assert speaker["volumeMounts"] == []
    assert speaker["env"] == [{"name": "A", "value": "9", "x": "kept"},
                              {"name": "B", "value": "8"}]
    assert side["volumeMounts"] == [{"mountPath": "/c", "name": "c"}]
    assert pod["volumes"] == [{"emptyDir": {}, "name": "b"}]


def test_a_mount_a_patch_empties_is_no_mount_without_a_volume(tmp_path: Path) -> None:
    for name, text in {
        "kustomization.yaml": "resources: [ds.yaml]\npatches: [{path: patch.yaml}]\n",
        "ds.yaml": """
            apiVersion: apps/v1
            kind: DaemonSet
            metadata: {name: speaker}
            spec:
              selector: {matchLabels: {app: s}}
              template:
                metadata: {labels: {app: s}}
                spec:
                  containers:
                  - name: speaker
                    image: speaker:1@sha256:{d}
                    volumeMounts: [{name: memberlist, mountPath: /etc/ml}]
                  volumes: [{name: memberlist, secret: {secretName: memberlist}}]
        """.replace("{d}", "0" * 64),
        "patch.yaml": """
            apiVersion: apps/v1
            kind: DaemonSet
            metadata: {name: speaker}
            spec:
              template:
                spec:
                  containers:
                  - name: speaker
                    volumeMounts: [{$patch: delete, name: memberlist}]
                  volumes: [{$patch: delete, name: memberlist}]
        """,
    }.items():
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))
    assert [(f.rule, f.line) for f in lint_dir(tmp_path).findings
            if f.severity == "error"] == []


def test_a_field_a_patch_sets_in_a_reordered_list_is_located_in_the_patch(
        tmp_path: Path) -> None:
    files = {
        "kustomization.yaml": "resources: [deploy.yaml]\npatches:\n- path: patch.yaml\n",
        "deploy.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
            "  template:\n    spec:\n      containers:\n      - name: a\n        image: a:1\n"
            "      - name: b\n        image: b:1\n"),
        "patch.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
            "  template:\n    spec:\n      containers:\n      - name: b\n"
            "        image: b:2\n"),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    (obj,) = result.model.objects
    containers = obj.get(("spec", "template", "spec", "containers"))
    assert [c["name"] for c in containers] == ["b", "a"]
    file, line, _ = obj.where(("spec", "template", "spec", "containers", 0, "image"))
    assert (file.rpartition("/")[2], line) == ("patch.yaml", 9)
    file, line, _ = obj.where(("spec", "template", "spec", "containers", 1, "image"))
    assert (file.rpartition("/")[2], line) == ("deploy.yaml", 9)


# ---------------------------------------------------------------- replacements (issue 29.16)


REPLACED = {
    "kustomization.yaml": """
        resources: [deploy.yaml, versions.yaml]
        replacements:
        - source: {kind: ConfigMap, name: versions, fieldPath: data.web}
          targets:
          - select: {kind: Deployment}
            fieldPaths: ["spec.template.spec.containers.[name=web].image"]
        - source: {kind: ConfigMap, name: versions, fieldPath: data.port}
          targets:
          - select: {kind: Deployment, name: web}
            fieldPaths: [spec.template.spec.containers.0.ports.0.containerPort]
        - source: {kind: ConfigMap, name: versions, fieldPath: data.tag}
          targets:
          - select: {kind: Deployment}
            fieldPaths: ["spec.template.spec.containers.[name=side].image"]
            options: {delimiter: ":", index: 1}
          - select: {kind: Deployment}
            fieldPaths: [metadata.annotations.tag]
            options: {create: true}
    """,
    "deploy.yaml": f"""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: web}}
        spec:
          selector: {{matchLabels: {{app: web}}}}
          template:
            metadata: {{labels: {{app: web}}}}
            spec:
              containers:
              - name: web
                image: nginx@sha256:{"a" * 64}
                ports: [{{containerPort: 80}}]
              - name: side
                image: envoy:1.0
    """,
    "versions.yaml": """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: versions}
        data: {web: "nginx:latest", port: "8080", tag: "2.0"}
    """,
}


def test_replacements_are_applied_as_kustomize_applies_them(tmp_path: Path) -> None:
    bodies = build(tmp_path, REPLACED)
    deploy = only(bodies, "Deployment")
    web, side = deploy["spec"]["template"]["spec"]["containers"]
    assert web["image"] == "nginx:latest"
    assert web["ports"] == [{"containerPort": 8080}]  # the target's type kept: a number
    assert side["image"] == "envoy:2.0"  # the part at index 1 of "envoy:1.0" split on ":"
    assert deploy["metadata"]["annotations"] == {"tag": "2.0"}


def test_a_replacement_that_unpins_an_image_is_reported_at_the_replacement(
        tmp_path: Path) -> None:
    build(tmp_path, REPLACED)
    result = lint_dir(tmp_path, only=["image-digest"])
    found = [(f.rule, f.file, f.line) for f in result.findings]
    assert ("image-digest", "kustomization.yaml", 6) in found, found


def test_a_targeted_patch_renames_its_target_only_when_its_options_allow_it(
    tmp_path: Path,
) -> None:
    # wahooli/gitops-repo includes one base several times, each copy renamed this way:
    # reviewbot kept the base's name and called the copies duplicates (7 false errors)
    patch = """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: %s, namespace: elsewhere}
        data: {k2: v2}
    """
    bodies = build(tmp_path, {
        "kustomization.yaml": "resources: [a, b]\n",
        "base/kustomization.yaml": "resources: [cm.yaml]\n",
        "base/cm.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: base-app, namespace: apps}
            data: {k: v}
        """,
        "a/kustomization.yaml": """
            resources: [../base]
            patches:
            - path: p.yaml
              target: {kind: ConfigMap, name: base-app}
              options: {allowNameChange: true}
        """,
        "a/p.yaml": patch % "app-a",
        "b/kustomization.yaml": """
            resources: [../base]
            nameSuffix: -b
            patches:
            - path: p.yaml
              target: {kind: ConfigMap, name: base-app}
        """,
        "b/p.yaml": patch % "ignored",
    })
    assert sorted((b["metadata"]["name"], b["metadata"]["namespace"], b["data"]["k2"])
                  for b in bodies) == [("app-a", "apps", "v2"), ("base-app-b", "apps", "v2")]


def test_a_targeted_patch_changes_its_target_s_kind_only_when_its_options_allow_it(
    tmp_path: Path,
) -> None:
    # sourcegraph/deploy-sourcegraph-k8s (judge round AT): a Component turns StatefulSets
    # into Deployments with `allowKindChange`; reviewbot kept the StatefulSet kind and
    # called the Deployment's `strategy` an unknown field (4 false errors). The apiVersion
    # stays the target's (resWrangler.ApplySmPatch); without the option the kind stays
    patch = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ignored}
        spec:
          strategy: {type: Recreate}
    """
    statefulset = """
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: %s}
        spec:
          serviceName: %s
          selector: {matchLabels: {app: %s}}
          template:
            metadata: {labels: {app: %s}}
            spec:
              containers: [{name: db, image: "postgres:16"}]
    """
    bodies = build(tmp_path, {
        "kustomization.yaml": """
            resources: [db.yaml, cache.yaml]
            patches:
            - path: deployment.yaml
              target: {kind: StatefulSet, name: db}
              options: {allowKindChange: true}
            - path: deployment.yaml
              target: {kind: StatefulSet, name: cache}
        """,
        "deployment.yaml": patch,
        "db.yaml": statefulset % (("db",) * 4),
        "cache.yaml": statefulset % (("cache",) * 4),
    })
    assert sorted((b["kind"], b["metadata"]["name"], b["spec"]["strategy"]["type"])
                  for b in bodies) == [("Deployment", "db", "Recreate"),
                                       ("StatefulSet", "cache", "Recreate")]
    result = lint_dir(tmp_path, only=["schema"])
    assert [(f.file, f.line, f.message.partition(":")[0]) for f in result.findings] == [
        ("db.yaml", 5, "spec.serviceName"),  # (a Deployment has none: kept from the base)
        ("deployment.yaml", 5, "spec.strategy")]  # (a StatefulSet has none)


def test_a_patch_that_renames_an_object_leaves_its_old_name_to_later_patches(
    tmp_path: Path,
) -> None:
    # vllm-project/aibrix's simulator overlays rename a Deployment with a JSON 6902 patch and
    # patch it again by its old name: kustomize records the id a patch changed
    # (StorePreviousId), so later targets and name references find it; reviewbot did not
    # apply the later patches, and called a strategic merge patch by the old name an error
    bodies = build(tmp_path, {
        "kustomization.yaml": """
            resources: [objects.yaml]
            patches:
            - target: {kind: Deployment, name: app}
              patch: |-
                - {op: replace, path: /metadata/name, value: app-a40}
            - target: {kind: Deployment, name: app}
              patch: |-
                - {op: add, path: /spec/replicas, value: 3}
            - patch: |-
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: app}
                spec: {template: {spec: {containers: [{name: c, image: "sim:2"}]}}}
            - target: {kind: ConfigMap, name: cfg}
              patch: |-
                - {op: replace, path: /metadata/name, value: cfg-a40}
        """,
        "objects.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: cfg}
            data: {k: v}
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: app}
            spec:
              selector: {matchLabels: {app: app}}
              template:
                metadata: {labels: {app: app}}
                spec:
                  volumes: [{name: v, configMap: {name: cfg}}]
                  containers: [{name: c, image: "sim:1"}]
        """,
    })
    app = only(bodies, "Deployment")
    assert (app["metadata"]["name"], app["spec"]["replicas"]) == ("app-a40", 3)
    assert app["spec"]["template"]["spec"]["containers"][0]["image"] == "sim:2"
    assert app["spec"]["template"]["spec"]["volumes"][0]["configMap"]["name"] == "cfg-a40"
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [(f.rule, f.line, f.message) for f in result.findings] == []


def test_a_component_s_own_components_are_built_after_its_resources(tmp_path: Path) -> None:
    # alex-matthews/home-ops' kopiur Component includes ./local, ./remote and ./restore
    # Components: their objects were not built ("not applied")
    bodies = build(tmp_path, {
        "kustomization.yaml": "resources: [cm.yaml]\ncomponents: [backup]\n",
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {k: v}\n",
        "backup/kustomization.yaml": """
            apiVersion: kustomize.config.k8s.io/v1alpha1
            kind: Component
            resources: [policy.yaml]
            components: [local]
            namePrefix: backup-
        """,
        "backup/policy.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: policy}\n",
        "backup/local/kustomization.yaml": """
            apiVersion: kustomize.config.k8s.io/v1alpha1
            kind: Component
            resources: [local.yaml]
            labels: [{pairs: {tier: local}}]
        """,
        "backup/local/local.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: local}\n",
    })
    assert sorted((b["metadata"]["name"], b["metadata"].get("labels", {}).get("tier"))
                  for b in bodies) == [
        ("backup-app", "local"), ("backup-local", "local"), ("backup-policy", "local")]
