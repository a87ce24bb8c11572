"""kustomize changes bodies in ways no patch or transformer asks for (issue 27 §3, the
oracle's "bodies differ" rows). kyaml walks the whole object a strategic merge patch targets:
empty nulls are dropped and written ones kept. kustomize never writes empty annotations. It
writes folded scalars with go-yaml v3's folded writer. It reads any file a kustomization
lists as YAML. And a generator with `behavior: merge` or `replace` changes the object it
names instead of adding one. The expected bodies are what `kubectl kustomize` (kustomize
v5.5) builds from the same files. When kubectl is on PATH the test checks against it too."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from reviewbot.model.resource import _refold_changes, refolded

from .helpers import build_as_kubectl as build


def test_a_strategic_merge_patch_drops_the_empty_nulls_of_the_object_it_targets(
        tmp_path: Path) -> None:
    built = build(tmp_path, {
        "kustomization.yaml": """
            resources: [app.yaml]
            patches:
            - patch: |
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: gateway}
                spec:
                  template:
                    spec:
                      securityContext: {runAsNonRoot: true}
        """,
        "app.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: gateway
            spec:
              selector: {matchLabels: {app: gateway}}
              template:
                metadata:
                  labels: {app: gateway}
                spec:
                  affinity:
                    nodeAffinity:
                      preferredDuringSchedulingIgnoredDuringExecution:
                      requiredDuringSchedulingIgnoredDuringExecution: null
                  containers:
                  - name: proxy
                    image: envoy
                    resources:
                      limits:
                      requests: ~
                    args: [run, null]
            ---
            apiVersion: v1
            kind: Service
            metadata:
              name: gateway
            spec:
              selector:
              ports: [{port: 80}]
        """,
    })
    spec = built["Deployment/gateway"]["spec"]["template"]["spec"]
    # the walk reaches every mapping, and the elements of lists merged by key (containers):
    # `key:` with nothing is gone, `null` and `~` are written and stay
    assert spec["affinity"] == {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": None}}
    assert spec["containers"] == [
        {"name": "proxy", "image": "envoy", "resources": {"requests": None},
         "args": ["run", None]}]  # a list replaced whole is not walked
    assert spec["securityContext"] == {"runAsNonRoot": True}
    # an object no patch targets is written as read
    assert built["Service/gateway"]["spec"] == {"selector": None, "ports": [{"port": 80}]}


def test_kustomize_writes_no_empty_annotations(tmp_path: Path) -> None:
    built = build(tmp_path, {
        "kustomization.yaml": "resources: [config.yaml]\n",
        "config.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: empty
              annotations:
              labels:
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: braces
              annotations: {}
              labels: {}
            data:
              key:
        """,
    })
    assert built["ConfigMap/empty"]["metadata"] == {"name": "empty", "labels": None}
    assert built["ConfigMap/braces"] == {
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "braces", "labels": {}},
        "data": {"key": None}}


def test_folded_scalars_come_out_as_go_yaml_writes_them(tmp_path: Path) -> None:
    built = build(tmp_path, {
        "kustomization.yaml": """
            resources: [script.yaml]
            patches:
            - path: patch.yaml
        """,
        "script.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: script
            data:
              loop.sh: >
                kubectl get pods
                | while read pod
                    do echo $pod
                    done
              begins-indented: >2-
                  lead
                plain
                plain too
              kept: >+
                keep
                  more

              literal: |
                a
                  b
              trailing-space: >
                space\x20
                  more
        """.replace("\\x20", " "),
        "patch.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: script
            data:
              patched: >
                from
                  the patch
        """,
    })
    data = built["ConfigMap/script"]["data"]
    # a break before a more-indented line gains an empty line
    assert data["loop.sh"] == "kubectl get pods | while read pod\n\n    do echo $pod\n    done\n"
    # text that begins more-indented loses its breaks between plain lines
    assert data["begins-indented"] == "  lead\nplain plain too"
    assert data["kept"] == "keep\n\n  more\n\n"
    assert data["patched"] == "from\n\n  the patch\n"
    # literal scalars, and folded text go-yaml writes double-quoted, are unchanged
    assert data["literal"] == "a\n  b\n"
    assert data["trailing-space"] == "space \n  more\n"


def test_refolded_is_the_text_go_yaml_reads_back() -> None:
    # go-yaml/yaml#827's example
    assert refolded("line 1 line 2 line 3\n  line 4\n") == "line 1 line 2 line 3\n\n  line 4\n"
    assert refolded("line 1\n  line 2\n  line 3\n    line 4\n") == (
        "line 1\n\n  line 2\n  line 3\n    line 4\n")
    # plain lines only: the writer's empty lines read back as the breaks they were
    assert refolded("one\ntwo\n") == "one\ntwo\n"
    assert refolded("no break") == "no break"


@given(st.lists(st.sampled_from(["a", "b", " ", "\n", "  x", "\t"]), max_size=14).map("".join))
def test_the_cheap_test_passes_every_text_refolded_changes(value: str) -> None:
    # `as_written` looks a scalar's style up only when `_refold_changes` says it matters
    if not _refold_changes(value):
        assert refolded(value) == value


def test_a_file_in_a_templates_folder_is_yaml_to_kustomize(tmp_path: Path) -> None:
    # not a Helm chart: kustomize parses every file a kustomization lists
    built = build(tmp_path, {
        "templates/app/kustomization.yaml": "resources: [secret.yaml]\n",
        "templates/app/secret.yaml": """
            apiVersion: external-secrets.io/v1
            kind: ExternalSecret
            metadata:
              name: app-vars
            spec:
              target:
                template:
                  data:
                    TZ: '{{ .CONFIG_TZ }}'
        """,
    }, "templates/app")
    assert built["ExternalSecret/app-vars"]["spec"]["target"]["template"]["data"] == {
        "TZ": "{{ .CONFIG_TZ }}"}


def test_a_generator_merges_into_or_replaces_the_object_it_names(tmp_path: Path) -> None:
    built = build(tmp_path, {
        "base/kustomization.yaml": """
            namespace: apps
            resources: [plain.yaml]
            configMapGenerator:
            - name: settings
              literals: [a=1, b=2]
            secretGenerator:
            - name: certs
              options: {disableNameSuffixHash: true}
        """,
        "base/plain.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: plain
              labels: {app: web}
            data:
              old: "1"
        """,
        "overlay/kustomization.yaml": """
            resources: [../base]
            configMapGenerator:
            - name: settings
              behavior: merge
              literals: [b=3, c=4]
              options: {labels: {tier: web}}
            - name: plain
              behavior: replace
              literals: [new=2]
        """,
    }, "overlay")
    # merge: the base's data under the generator's, the base's namespace; both hashed
    (settings,) = [v for k, v in built.items() if k.startswith("ConfigMap/settings-")]
    assert settings["data"] == {"a": "1", "b": "3", "c": "4"}
    assert settings["metadata"]["namespace"] == "apps"
    assert settings["metadata"]["labels"] == {"tier": "web"}
    # replace: the generator's data only, the object's name, namespace and labels; no hash
    # (the object it replaces had none)
    assert built["ConfigMap/plain"] == {
        "apiVersion": "v1", "kind": "ConfigMap", "data": {"new": "2"},
        "metadata": {"name": "plain", "namespace": "apps", "labels": {"app": "web"}}}
    # a Secret generator without sources still writes data
    assert built["Secret/certs"]["data"] == {}


def test_a_json_6902_replace_of_a_key_the_object_lacks_sets_it(tmp_path: Path) -> None:
    # kustomize's json-patch (evanphx v4.12.0) replaces a missing key as `add` would; a
    # missing parent fails the build
    built = build(tmp_path, {
        "kustomization.yaml": """
            resources: [auth.yaml]
            patches:
            - target: {kind: RequestAuthentication, name: m2m}
              patch: |-
                - op: replace
                  path: /spec/jwtRules/0/jwksUri
                  value: http://jwks.istio-system.svc/openid/v1/jwks
        """,
        "auth.yaml": """
            apiVersion: security.istio.io/v1beta1
            kind: RequestAuthentication
            metadata: {name: m2m}
            spec:
              jwtRules:
              - issuer: https://kubernetes.default.svc
        """,
    })
    assert built["RequestAuthentication/m2m"]["spec"]["jwtRules"] == [
        {"issuer": "https://kubernetes.default.svc",
         "jwksUri": "http://jwks.istio-system.svc/openid/v1/jwks"}]


def test_a_replacement_copies_an_empty_string(tmp_path: Path) -> None:
    # an empty string is a value to kustomize (only a null, {} or [] source is missing)
    built = build(tmp_path, {
        "kustomization.yaml": """
            resources: [app.yaml]
            replacements:
            - source: {kind: ConfigMap, name: params, fieldPath: data.PREFIX}
              targets:
              - select: {kind: Deployment, name: web}
                fieldPaths: [spec.template.spec.containers.0.env.0.value]
        """,
        "app.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: params}
            data: {PREFIX: ""}
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              template:
                spec:
                  containers:
                  - name: web
                    image: web:1
                    env: [{name: PREFIX, value: PREFIX_PLACEHOLDER}]
        """,
    })
    container = built["Deployment/web"]["spec"]["template"]["spec"]["containers"][0]
    assert container["env"] == [{"name": "PREFIX", "value": ""}]


def test_a_replacement_selects_a_generated_object_by_its_name_before_the_prefix(
        tmp_path: Path) -> None:
    """New-user trial forty: dev's overlay (`namespace: shop`, `namePrefix: dev-`) replaces
    the generated ConfigMap api-config's ORDERS_HOST with the Service's name; kubectl gives
    `dev-orders`, reviewbot kept `orders` (a generated object has no document name to match)
    and said four false "its build renames Service" errors. A selector names an object by
    any of its names before the build changed them, as kustomize's ids keep them."""
    built = build(tmp_path, {
        "base/kustomization.yaml": """
            resources: [svc.yaml]
            configMapGenerator:
            - name: api-config
              literals: [ORDERS_HOST=orders]
        """,
        "base/svc.yaml": """
            apiVersion: v1
            kind: Service
            metadata: {name: orders}
            spec: {ports: [{port: 8081}]}
        """,
        "dev/kustomization.yaml": """
            namespace: shop
            namePrefix: dev-
            resources: [../base]
            replacements:
            - source: {kind: Service, name: orders, fieldPath: metadata.name}
              targets:
              - select: {kind: ConfigMap, name: api-config}
                fieldPaths: [data.ORDERS_HOST]
        """,
    }, "dev")
    (name,) = [n for n in built if n.startswith("ConfigMap/")]
    assert built[name]["data"] == {"ORDERS_HOST": "dev-orders"}


def test_a_replacement_path_names_a_key_with_dots_in_brackets(tmp_path: Path) -> None:
    built = build(tmp_path, {
        "kustomization.yaml": """
            resources: [hook.yaml]
            replacements:
            - source: {kind: ConfigMap, name: params, fieldPath: data.NS}
              targets:
              - select: {kind: ValidatingWebhookConfiguration}
                fieldPaths: ["metadata.annotations.[cert-manager.io/inject-ca-from]"]
                options: {delimiter: /, index: 0}
        """,
        "hook.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: params}
            data: {NS: kubeflow}
            ---
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingWebhookConfiguration
            metadata:
              name: hook
              annotations: {cert-manager.io/inject-ca-from: NS_PLACEHOLDER/webhook-cert}
        """,
    })
    assert built["ValidatingWebhookConfiguration/hook"]["metadata"]["annotations"] == {
        "cert-manager.io/inject-ca-from": "kubeflow/webhook-cert"}


def test_a_replacement_path_escapes_a_dot_of_a_key_with_a_backslash(tmp_path: Path) -> None:
    # new-user trial twelve: `annotations.acme\.example/log-level` names the key
    # acme.example/log-level (kubectl kustomize 5.5); reviewbot split it at the escaped dot,
    # made a nested `acme\` object the schema refused: a false error
    built = build(tmp_path, {
        "kustomization.yaml": r"""
            resources: [web.yaml]
            replacements:
            - source: {kind: ConfigMap, name: cfg, fieldPath: data.level}
              targets:
              - select: {kind: Deployment}
                fieldPaths: [spec.template.metadata.annotations.acme\.example/log-level]
                options: {create: true}
        """,
        "web.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: cfg}
            data: {level: info}
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              selector: {matchLabels: {app: web}}
              template:
                metadata: {labels: {app: web}}
                spec: {containers: [{name: web, image: "nginx:1"}]}
        """,
    })
    assert built["Deployment/web"]["spec"]["template"]["metadata"]["annotations"] == {
        "acme.example/log-level": "info"}


def test_a_patch_naming_a_namespace_reaches_a_cluster_scoped_object(tmp_path: Path) -> None:
    # kyaml's ResId.EffectiveNamespace: a cluster-scoped kind (a PersistentVolume) has no
    # namespace on either side, so the overlay's patch written with one still targets it
    # (hmcts' jenkins ptl overlay sets its disk this way)
    built = build(tmp_path, {
        "kustomization.yaml": """
            namespace: jenkins
            resources: [pv.yaml]
            patches:
            - path: disk.yaml
        """,
        "pv.yaml": """
            apiVersion: v1
            kind: PersistentVolume
            metadata:
              name: jenkins
            spec:
              capacity: {storage: 64Gi}
              azureDisk: {kind: Managed, diskName: base-disk, diskURI: /base}
        """,
        "disk.yaml": """
            apiVersion: v1
            kind: PersistentVolume
            metadata:
              name: jenkins
              namespace: jenkins
            spec:
              azureDisk: {diskName: ptl-disk, diskURI: /ptl}
        """,
    })
    disk = built["PersistentVolume/jenkins"]["spec"]["azureDisk"]
    assert (disk["diskName"], disk["diskURI"]) == ("ptl-disk", "/ptl")
    assert "namespace" not in built["PersistentVolume/jenkins"]["metadata"]


def test_a_patch_naming_a_namespace_reaches_a_kind_kustomize_takes_for_namespaced(
        tmp_path: Path) -> None:
    """Judge round DN's ricsanfre/pi-cluster: a CiliumLoadBalancerIPPool (cluster-scoped in a
    cluster, unknown to kustomize, which keeps its `namespace: kube-system`) patched by an
    overlay that writes the same namespace: kustomize matches them (`kubectl kustomize`
    builds it); reviewbot, once Cilium's kinds were cluster-scoped, said "no matches"."""
    pool = """
        apiVersion: cilium.io/v2alpha1
        kind: CiliumLoadBalancerIPPool
        metadata: {name: first-pool, namespace: kube-system}
        spec:
          blocks: [{start: 10.0.0.1, stop: 10.0.0.9}]
    """
    built = build(tmp_path, {
        "kustomization.yaml": "resources: [pool.yaml]\npatches:\n- path: lb.yaml\n",
        "pool.yaml": pool,
        "lb.yaml": pool.replace("10.0.0.1, stop: 10.0.0.9", "172.30.200.1, stop: 172.30.200.254"),
    })
    (pool,) = built.values()
    assert pool["spec"]["blocks"] == [{"start": "172.30.200.1", "stop": "172.30.200.254"}]


def test_images_entries_run_in_order_each_on_what_the_ones_before_made(tmp_path: Path) -> None:
    """Judge round BU (madfam-io/enclii): an `images` entry renaming `switchyard-api` and a
    second entry, keyed by the new name, setting its digest: kustomize runs one transformer
    per entry, in order, so the digest is set; of two entries of one name the last wins.
    reviewbot applied the first matching entry alone (a false ":latest, no digest")."""
    built = build(tmp_path, {
        "kustomization.yaml": """
            resources: [app.yaml]
            images:
            - {name: app, newName: registry.io/app2, newTag: latest}
            - {name: registry.io/app2, digest: "sha256:%s"}
            - {name: other, newTag: "2"}
            - {name: other, newTag: "3"}
        """ % ("1" * 64),
        "app.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              template:
                spec:
                  containers:
                  - {name: a, image: "app:1.0"}
                  - {name: b, image: "other:1"}
        """,
    })
    containers = built["Deployment/web"]["spec"]["template"]["spec"]["containers"]
    assert [c["image"] for c in containers] == [
        "registry.io/app2@sha256:" + "1" * 64, "other:3"]
