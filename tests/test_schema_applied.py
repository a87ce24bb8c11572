"""schema judges an object as the API server receives it (issue 27 §2): a SOPS document
decrypted and without its `sops:` block, a custom resource after its CRD's defaults, unknown
fields refused only where the CRD prunes them."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_text

SOPS = """
apiVersion: v1
kind: Secret
metadata: {name: db, namespace: apps}
type: Opaque
data:
    password: ENC[AES256_GCM,data:Cjb7ANHWK63wYJ9jKXrYxQ==,iv:Mr9aXkmz,tag:ldiCrv+1S,type:str]
stringData:
    user: ENC[AES256_GCM,data:uuaUQ1J89b4=,iv:AkbpeJ2E,tag:wXCxiWxm,type:str]
sops:
    age:
        - recipient: age1nfn3vxpsgm49ljgs8kxevga9makhh9aply6ddgf9wplsfuwpcv2qzmqatc
          enc: |
            -----BEGIN AGE ENCRYPTED FILE-----
            YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IFgyNTUxOSBKeVlSUVhhcHg5NFV3aG5H
            -----END AGE ENCRYPTED FILE-----
    lastmodified: "2022-07-29T02:51:12Z"
    mac: ENC[AES256_GCM,data:hcyFiLZxrmDbJIhgpWmRCBKZO478j2jFu97COHLI,iv:x,tag:y,type:str]
    encrypted_regex: ^(data|stringData)$
    version: 3.7.3
"""


def test_a_sops_document_is_validated_as_flux_applies_it(tmp_path: Path) -> None:
    result = lint_text(tmp_path, SOPS, only=["schema"])
    assert [(f.rule, f.line, f.message) for f in result.findings] == []


def test_a_sops_document_still_gets_its_plaintext_errors_without_values(tmp_path: Path) -> None:
    text = SOPS.replace("type: Opaque", "type: Opaque\nimmutable: maybe\nkindd: x")
    result = lint_text(tmp_path, text, only=["schema"])
    found = sorted((f.line, f.message) for f in result.findings)
    assert [line for line, _ in found] == [5, 6]
    assert all("maybe" not in m and "ENC[" not in m for _, m in found), found


def test_without_sops_metadata_a_sops_key_is_an_unknown_field(tmp_path: Path) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nsops: {note: x}\n"
    result = lint_text(tmp_path, text, only=["schema"])
    assert [(f.line, f.message) for f in result.findings] == [(4, "sops: unknown field 'sops'")]


SOPS_SECRET_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: sopssecrets.addons.projectcapsule.dev}
spec:
  group: addons.projectcapsule.dev
  names: {kind: SopsSecret, plural: sopssecrets}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        required: [sops]
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            properties:
              secrets:
                type: array
                items: {type: object, x-kubernetes-preserve-unknown-fields: true}
          sops: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
"""


def test_a_sops_document_whose_schema_declares_sops_keeps_it(tmp_path: Path) -> None:
    # a sops-secrets operator's SopsSecret is applied encrypted: its operator decrypts it in
    # the cluster, and its CRD requires the sops block the API server receives
    sops_block = SOPS[SOPS.index("sops:"):]
    text = SOPS_SECRET_CRD + """
apiVersion: addons.projectcapsule.dev/v1alpha1
kind: SopsSecret
metadata: {name: db, namespace: apps}
spec:
    secrets:
        - name: db
          stringData:
            user: ENC[AES256_GCM,data:uuaUQ1J89b4=,iv:AkbpeJ2E,tag:wXCxiWxm,type:str]
""" + sops_block
    assert [(f.line, f.message) for f in lint_text(tmp_path, text, only=["schema"]).findings] == []
    # the same block stripped, as a Secret Flux decrypts: the CRD would miss it
    stripped = text.replace(sops_block, "")
    assert [f.message for f in lint_text(tmp_path, stripped, only=["schema"]).findings] == [
        "(object): missing required field 'sops'"]


CRD = """
apiVersion: apiextensions.k8s.io/{api}
kind: CustomResourceDefinition
metadata: {{name: widgets.example.com}}
spec:
  group: example.com
  names: {{kind: Widget, plural: widgets}}
  scope: Namespaced
  {keep}
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
            required: [size, policy]
            properties:
              size: {{type: integer, default: 1}}
              policy:
                type: object
                default: {{}}
                required: [mode]
                properties:
                  mode: {{type: string, default: auto}}
                  level: {{type: integer}}
              color: {{type: string}}
---
apiVersion: example.com/v1
kind: Widget
metadata: {{name: w, namespace: x}}
spec:
  color: red
"""


def test_crd_defaults_are_applied_before_required(tmp_path: Path) -> None:
    # size and policy (and policy.mode, inside the defaulted policy) are defaulted: the API
    # server accepts the Widget
    result = lint_text(tmp_path, CRD.format(api="v1", keep=""), only=["schema"])
    assert [(f.line, f.message) for f in result.findings] == []


def test_a_required_field_without_a_default_inside_a_defaulted_object_is_missing(
        tmp_path: Path) -> None:
    text = CRD.format(api="v1", keep="").replace("required: [mode]", "required: [level]")
    result = lint_text(tmp_path, text, only=["schema"])
    assert [f.message for f in result.findings] == [
        "spec.policy: missing required field 'level'"]


def test_unknown_fields_are_errors_only_where_the_crd_prunes(tmp_path: Path) -> None:
    text = CRD.format(api="v1", keep="").replace("color: red", "color: red\n  shade: dark")
    result = lint_text(tmp_path, text, only=["schema"])
    assert [f.message for f in result.findings] == ["spec.shade: unknown field 'shade'"]
    # apiextensions v1beta1 keeps unknown fields unless preserveUnknownFields: false
    beta = text.replace("apiextensions.k8s.io/v1\n", "apiextensions.k8s.io/v1beta1\n")
    assert lint_text(tmp_path, beta, only=["schema"]).findings == []
    pruned = CRD.format(api="v1beta1", keep="preserveUnknownFields: false").replace(
        "color: red", "color: red\n  shade: dark")
    assert [f.message for f in lint_text(tmp_path, pruned, only=["schema"]).findings] == [
        "spec.shade: unknown field 'shade'"]


def test_a_value_written_as_a_double_hash_placeholder_is_a_warning(tmp_path: Path) -> None:
    # argoproj/argo-cd's test/remote: a script replaces ##CRNAME## before applying; YAML reads
    # the placeholder as a comment, so the field is null as written
    text = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: remote}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ##CRNAME##
subjects:
- kind: ServiceAccount
  name: server
  namespace: argocd
"""
    [finding] = lint_text(tmp_path, text, only=["schema"]).findings
    assert (finding.line, finding.severity) == (7, "warning")
    assert finding.message == (
        "roleRef.name: expected string, got null. Not certain: reviewbot could not see the "
        "value a tool writes over ##CRNAME## before applying (YAML reads it as a comment, so "
        "the file as written holds none).")
    unmarked = lint_text(tmp_path, text.replace("##CRNAME##", ""), only=["schema"]).findings
    assert [(f.line, f.severity) for f in unmarked] == [(7, "error")]


def test_a_document_without_metadata_and_none_of_its_kinds_fields_is_not_certain(
        tmp_path: Path) -> None:
    """Judge round CR: openshift-managed-cluster-config's SelectorSyncSet patch records
    (`kind: Namespace`, `name`, `applyMode`, `patch`, `patchType` at the top, no metadata),
    which a script turns into a Hive SyncSet's patches, were 48 schema errors and two
    api-lifecycle errors. No API server accepts a document without metadata as written, and
    none of its keys is a field of its kind: whether it is an object at all is not certain
    (warnings that say so). A manifest whose metadata lost its indentation keeps its kind's
    fields (`spec`): its errors stay."""
    result = lint_text(tmp_path, """
        apiVersion: v1
        kind: Namespace
        name: openshift-etcd
        applyMode: AlwaysApply
        patch: '{"metadata":{"labels":{"a":"b"}}}'
        patchType: merge
        ---
        apiVersion: v1
        kind: IngressController
        name: default
        patch: '{"spec":{"replicas":3}}'
        ---
        apiVersion: v1
        kind: Service
        name: web
        spec:
          ports: [{port: 80}]
        """, only=["schema", "api-lifecycle"])
    assert [(f.rule, f.line, f.severity) for f in result.findings] == [
        ("schema", 3, "warning"), ("schema", 4, "warning"), ("schema", 5, "warning"),
        ("schema", 6, "warning"), ("api-lifecycle", 8, "warning"), ("schema", 15, "error")]
    assert "whether this document is a Kubernetes object at all" in result.findings[0].message
    assert "no schema of IngressController shows its keys" in result.findings[4].message


def test_an_unknown_field_that_holds_no_value_is_not_certain(tmp_path: Path) -> None:
    """Judge round CU: tholinka/home-ops' PVCs keep an empty `dataSourceRef:` inside
    `dataSourceRef` (26 errors). Nothing written is lost: Flux's kustomize-controller drops
    the key when it converts the object to its type, and only a strict validation refuses
    it, which not every applier makes. A warning that says so; an unknown field with a value
    stays an error."""
    result = lint_text(tmp_path, """
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {name: plex, namespace: media}
        spec:
          accessModes: [ReadWriteOnce]
          dataSourceRef:
            dataSourceRef:
            apiGroup: volsync.backube
            kind: ReplicationDestination
            name: plex-dst
          resources: {requests: {storage: 5Gi}}
          storageClasName: ceph
        """, only=["schema"])
    assert [(f.line, f.severity) for f in result.findings] == [(7, "warning"), (12, "error")]
    assert "a key that holds no value" in result.findings[0].message


def test_a_workload_container_without_an_image_is_refused(tmp_path: Path) -> None:
    """New-user trial fifty-six: an overlay's patch named container `chat-api` where the
    base's is `api`; kustomize's strategic merge adds a second container of resources alone,
    which the API server refuses ("containers[0].image: Required value"), and reviewbot said
    nothing. A workload's container without an image is an error; the message names the
    patch that added it. A PodTemplate (a tool fills it) is not judged."""
    from .helpers import lint_dir, write

    write(tmp_path, {
        "base/kustomization.yaml": "resources: [deployment.yaml]\n",
        "base/deployment.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: api, namespace: chat}
            spec:
              selector: {matchLabels: {app: api}}
              template:
                metadata: {labels: {app: api}}
                spec:
                  containers: [{name: api, image: 'registry.example.org/app:1.0'}]
        """,
        "prod/kustomization.yaml": """
            resources: [../base]
            patches:
            - target: {kind: Deployment, name: api}
              patch: |-
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: api}
                spec:
                  template:
                    spec:
                      containers:
                      - name: chat-api
                        resources: {limits: {cpu: "2"}}
        """,
        "templates/podtemplate.yaml": """
            apiVersion: v1
            kind: PodTemplate
            metadata: {name: t, namespace: chat}
            template:
              spec:
                containers: [{name: x}]
        """,
    })
    found = [f for f in lint_dir(tmp_path, only=["schema"]).findings]
    assert [(f.file, f.severity) for f in found] == [("prod/kustomization.yaml", "error")]
    assert found[0].message.endswith(
        "container chat-api comes from prod/kustomization.yaml, a patch naming a container "
        "the base does not have (it has api), which kustomize adds")
    assert found[0].fix == "Name api in the patch, the base's container."


def test_a_number_a_flux_variable_makes_of_a_quoted_field_is_fixed_by_joining_it(
        tmp_path: Path) -> None:
    """New-user trial fifty-nine: `args: ["--tp", "${GPU_COUNT}"]` with GPU_COUNT "2":
    kustomize writes the variable without its quotes, Flux substitutes after, and the API
    server reads the number 2 (fluxcd/kustomize-controller#625). The fix said "Put the value
    in quotes", which it already was."""
    from .helpers import lint_dir, write

    write(tmp_path, {
        "clusters/dev/sync.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: flux-system, namespace: flux-system}
            spec: {interval: 10m, prune: true, path: ./clusters/dev,
                   sourceRef: {kind: GitRepository, name: flux-system}}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: apps, namespace: flux-system}
            spec:
              interval: 10m
              prune: true
              path: ./apps
              sourceRef: {kind: GitRepository, name: flux-system}
              postBuild: {substitute: {GPU_COUNT: "2"}}
            """,
        "apps/kustomization.yaml": "resources: [llm.yaml]\n",
        "apps/llm.yaml": """
            apiVersion: v1
            kind: Pod
            metadata: {name: llm, namespace: ml}
            spec:
              containers:
              - {name: llm, image: x, args: ["--tp", "${GPU_COUNT}"]}
            """})
    (found,) = [f for f in lint_dir(tmp_path, only=["schema"]).findings]
    assert found.message == "spec.containers[0].args[1]: expected string, got integer 2"
    assert found.fix is not None and found.fix.startswith(
        "Write the field so that it stays text once Flux substitutes ${GPU_COUNT}")
