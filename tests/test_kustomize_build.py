"""Objects as the cluster gets them: kustomize builds in process (patches, transformers, Flux
generated kustomizations), the precision reproducers, and `kubectl kustomize` as the oracle."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from reviewbot.engine.run import Result
from reviewbot.load.loader import load
from reviewbot.model.transform import GENERATED_HASH, transform_image
from reviewbot.sources.tree import FileRecord, blob_id

from .helpers import kustomize_graph, lint_dir, run_cli, write

PRECISION = Path(__file__).parent / "fixtures" / "precision"
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def findings(result: Result) -> list[tuple[str, str, str, int]]:
    """(rule, severity, file relative to the case, line) of every finding."""
    out = []
    for f in result.findings:
        file = f.file.split("precision/", 1)[1].split("/", 1)[1] if "precision/" in f.file \
            else f.file
        out.append((f.rule, f.severity, file, f.line))
    return sorted(out)


def case(name: str) -> Result:
    return lint_dir(PRECISION / name)


# ---------------------------------------------------------------- the reproducers


def test_flux_path_generation_stops_at_a_nested_kustomization() -> None:
    result = case("p1-flux-path-generation")
    assert findings(result) == []
    refs = sorted(o.ref for o in result.model.objects if o.kind == "ConfigMap")
    assert refs == ["ConfigMap/obs/dash", "ConfigMap/obs/rule"]


def test_flux_path_generation_takes_a_folder_holding_only_a_kustomization(
    tmp_path: Path,
) -> None:
    # kustomize-controller's scanManifests adds every subfolder with a kustomization file
    # as a resource, manifests beside it or not: axeII/home-ops' apps/security only adds a
    # component, and was "not applied by any cluster root"
    write(tmp_path, {
        "clusters/home/flux-system/gotk-sync.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: flux-system, namespace: flux-system}
            spec: {url: https://github.com/acme/fleet}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: flux-system, namespace: flux-system}
            spec:
              path: ./clusters/home
              sourceRef: {kind: GitRepository, name: flux-system}
        """,
        "clusters/home/apps.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: apps, namespace: flux-system}
            spec:
              path: ./apps
              sourceRef: {kind: GitRepository, name: flux-system}
        """,
        "apps/security/kustomization.yaml": """
            namespace: security
            components: [../../components/common]
        """,
        "components/common/kustomization.yaml": """
            apiVersion: kustomize.config.k8s.io/v1alpha1
            kind: Component
            resources: [namespace.yaml]
        """,
        "components/common/namespace.yaml": "apiVersion: v1\nkind: Namespace\n"
                                           "metadata: {name: placeholder}\n",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [(f.rule, f.file) for f in result.findings] == []
    assert [o.ref for o in result.model.objects if o.kind == "Namespace"] == [
        "Namespace/security"]


def test_a_patch_whose_entry_is_commented_out_is_no_object() -> None:
    result = case("p3-unlisted-patch")
    assert findings(result) == [("kustomize-integrity", "info", "kustomization.yaml", 5)]
    assert "metrics_patch.yaml is commented out at line 5" in result.findings[0].message
    assert [o.file.rpartition("/")[2] for o in result.model.objects] == ["deploy.yaml"]



def test_a_file_a_config_map_generator_reads_is_data_not_an_object(tmp_path: Path) -> None:
    """Judge round CA (redhat-appstudio/infra-common-deployments): `config/ldap-sync-config
    .yaml`, an OpenShift LDAPSyncConfig a CronJob's `oc adm groups sync` reads from the
    ConfigMap a generator makes of it, was an object: "Kubernetes 1.37 does not serve
    LDAPSyncConfig in v1", an error. The text of a generator's key is no object; the
    same file listed as a resource too still is."""
    config = ("kind: LDAPSyncConfig\napiVersion: v1\nurl: ldaps://ldap.example.com\n"
              "groupUIDNameMapping: {}\n")
    write(tmp_path, {
        "base/kustomization.yaml": """
            namespace: sync
            resources: [namespace.yaml]
            configMapGenerator:
            - name: sync-config
              files: [ldap-sync-config.yaml=./config/ldap-sync-config.yaml]
        """,
        "base/namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: sync}\n",
        "base/config/ldap-sync-config.yaml": config,
    })
    result = lint_dir(tmp_path)
    assert [f.rule for f in result.findings if f.severity == "error"] == []
    assert [o.ref for o in result.model.objects] == ["Namespace/sync"]
    listed = tmp_path / "base" / "kustomization.yaml"
    listed.write_text(listed.read_text().replace(
        "resources: [namespace.yaml]", "resources: [namespace.yaml, config/ldap-sync-config.yaml]"))
    assert "LDAPSyncConfig" in {o.kind for o in lint_dir(tmp_path).model.objects}

def test_two_copies_of_a_crd_are_a_warning_and_the_sample_validates() -> None:
    result = case("p4-stale-crd")
    assert findings(result) == [
        ("schema", "warning", "crd/bases/example.com_widgets.yaml", 4),
    ]
    message = result.findings[0].message
    assert "bundle.yaml" in message and "example.com_widgets.yaml" in message


def test_a_commented_out_resource_is_one_info() -> None:
    result = case("p5-commented")
    assert findings(result) == [("kustomize-integrity", "info", "kustomization.yaml", 5)]
    assert result.findings[0].message.startswith("b.yaml is commented out at line 5")


def test_the_images_transformer_pins_the_base_container() -> None:
    result = case("p7-images-transformer")
    assert findings(result) == []
    (pod,) = result.model.pods
    assert pod.containers[0].image == (
        "ghcr.io/acme/web:v1.4.2@sha256:" + "0" * 64)


def test_chart_files_are_not_live_objects() -> None:
    result = case("p8-chart-files")
    assert not [f for f in result.findings if "/files/" in f.file]
    assert not [o for o in result.model.objects if "/files/" in o.file]
    assert any(s.path.endswith("mychart/files/resources.yaml") for s in result.model.skipped)


def test_a_git_ignored_entry_is_a_build_output() -> None:
    result = case("p11-generated")
    assert findings(result) == []
    assert [s.reason for s in result.model.skipped] == [
        "all.yaml is git-ignored (made at build time): not checked"]


def test_a_file_in_a_folder_a_gitignore_pattern_names_is_git_ignored(tmp_path: Path) -> None:
    """kubevirt/project-infra (judge round AY): `github/ci/prow-deploy/**/secrets` ignores
    every file below each secrets/ folder there, as git does (a pattern that matches a
    folder ignores all below it); a secretGenerator's `secrets/ca.key` was "does not
    exist", an error, though the deploy writes it first."""
    write(tmp_path, {
        ".gitignore": "deploy/**/secrets\n",
        "README.md": "deployed by ansible\n",
        "deploy/proxy/base/kustomization.yaml":
            "secretGenerator: [{name: ca, files: [ca.key=secrets/ca.key]}]\n",
    })
    result = lint_dir(tmp_path)
    assert [f.rule for f in result.findings] == []
    assert [(s.path, s.reason) for s in result.model.skipped] == [
        ("deploy/proxy/base/kustomization.yaml",
         "secrets/ca.key is git-ignored (made at build time): not checked")]


def test_a_folder_the_tree_holds_is_read_whatever_a_gitignore_says(tmp_path: Path) -> None:
    # Ramblurr/home-ops and wahooli/gitops-repo commit folders a .gitignore pattern names
    # (`git`, `helm`): git keeps tracking them, Flux reads them; they were "git-ignored
    # (made at build time): not checked"
    write(tmp_path, {
        ".gitignore": "git\nhelm\n",
        "repositories/kustomization.yaml": "resources: [./git]\n",
        "repositories/git/kustomization.yaml": "resources: [repo.yaml]\n",
        "repositories/git/repo.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: g}\n",
    })
    result = lint_dir(tmp_path)
    assert [o.ref for o in result.model.objects] == ["ConfigMap/default/g"]
    assert [s.reason for s in result.model.skipped] == []


def test_remote_entries_are_said_not_fetched(tmp_path: Path) -> None:
    # reviewbot never fetches: what a remote entry holds is neither judged nor silent
    write(tmp_path, {
        "apps/kustomization.yaml": """
            resources:
              - https://github.com/acme/op/releases/download/v1.0.0/crds.yaml
              - github.com/acme/op//config/default?ref=v1.0.0
              - https://example.com/a.yaml
              - deploy.yaml
        """,
        "apps/deploy.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        "single/kustomization.yaml": "resources: [https://example.com/one.yaml]\n",
        ".archive/kustomization.yaml": "resources: [https://example.com/old.yaml]\n",
    })
    result = lint_dir(tmp_path)
    assert findings(result) == []
    assert [(s.path, s.reason) for s in result.model.skipped if "remote" in s.reason] == [
        ("apps/kustomization.yaml", "3 remote resources not fetched (https://github.com/acme/"
         "op/releases/download/v1.0.0/crds.yaml, github.com/acme/op//config/default?ref=v1.0.0"
         " and 1 more): what they hold is not judged"),
        ("single/kustomization.yaml", "remote resource not fetched (https://example.com/one."
         "yaml): what it holds is not judged"),
    ]


def test_a_transformer_configuration_is_read_by_the_build_never_applied(tmp_path: Path
                                                                         ) -> None:
    # fluxcd/flux2's manifests/bases list labels.yaml under `transformers`: kustomize runs
    # it on the build's objects; no cluster receives a LabelTransformer (reviewbot runs no
    # transformer plugin: the build is not held whole)
    write(tmp_path, {
        "kustomization.yaml": "resources: [cm.yaml]\ntransformers: [labels.yaml]\n",
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        "labels.yaml": """
            apiVersion: builtin
            kind: LabelTransformer
            metadata: {name: labels}
            labels: {app.kubernetes.io/part-of: flux}
            fieldSpecs: [{path: metadata/labels, create: true}]
        """,
    })
    result = lint_dir(tmp_path)
    assert findings(result) == []
    assert [o.kind for o in result.model.objects] == ["ConfigMap"]


def test_a_file_a_script_applies_is_an_info_naming_the_script() -> None:
    result = case("p12-script-applied")
    assert findings(result) == [("kustomize-integrity", "info", "creds-secret.yaml", 2)]
    assert "setup.sh applies it" in result.findings[0].message


def test_a_bare_string_patch_is_the_kustomizations_error() -> None:
    result = case("m2-string-patch")
    assert findings(result) == [("kustomize-integrity", "error", "kustomization.yaml", 5)]
    assert "kustomize v5 refuses" in result.findings[0].message
    assert [o.file.rpartition("/")[2] for o in result.model.objects] == ["deploy.yaml"]


@pytest.mark.parametrize(("applier", "severity"), [
    ("argo", "warning"), ("flux", "error")])
def test_a_bare_string_patch_argo_cd_builds_depends_on_its_kustomize(
        tmp_path: Path, applier: str, severity: str) -> None:
    """operate-first/apps (judge round AQ): its Argo CD 2.1 bundles kustomize 4, which reads
    a bare string under `patches` as a strategic merge patch; kustomize 5 (Argo CD 2.7 and
    later, Flux's kustomize-controller) refuses it. Built by Argo CD Applications alone,
    which happens is not known: a warning that says so."""
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: secrets, namespace: argocd}
        spec:
          project: default
          source: {repoURL: https://github.com/acme/apps.git, targetRevision: HEAD,
                   path: secrets}
          destination: {server: https://kubernetes.default.svc, namespace: vault}
    """
    ks = """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: secrets, namespace: flux-system}
        spec:
          interval: 1h
          path: ./secrets
          targetNamespace: vault
          sourceRef: {kind: GitRepository, name: flux-system}
    """
    write(tmp_path, {
        "root.yaml": app if applier == "argo" else ks,
        "secrets/kustomization.yaml": "resources: [store.yaml]\npatches:\n  - patch.yaml\n",
        "secrets/store.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: store}\n",
        "secrets/patch.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: store}\n"
                              "data: {k: v}\n",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    bare = [f for f in result.findings if "bare string" in f.message]
    assert [(f.file, f.line, f.severity) for f in bare] == [
        ("secrets/kustomization.yaml", 3, severity)]
    assert ("Argo CD 2.7" in bare[0].message) == (applier == "argo")


# ---------------------------------------------------------------- patches and transformers


BASE = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: web:1.0
        env: [{name: A, value: "1"}, {name: B, value: "2"}]
        resources: {requests: {memory: 1Gi}}
      - name: sidecar
        image: side:1.0
"""


def test_strategic_merge_patches_merge_by_name_and_delete(tmp_path: Path) -> None:
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [deploy.yaml]\n",
        "base/deploy.yaml": BASE,
        "overlay/kustomization.yaml": """
            resources: [../base]
            namePrefix: prod-
            namespace: prod
            commonLabels: {tier: web}
            patches:
            - path: memory.yaml
            patchesStrategicMerge:
            - drop-sidecar.yaml
            images:
            - {name: web, newTag: "2.0"}
        """,
        "overlay/memory.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              template:
                spec:
                  containers:
                  - name: web
                    env: [{name: B, value: "3"}, {name: C, value: "4"}]
                    resources: {requests: {memory: 12Gi}}
        """,
        "overlay/drop-sidecar.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              template:
                spec:
                  containers:
                  - {name: sidecar, $patch: delete}
        """,
    })
    result = lint_dir(tmp_path, only=["schema", "kustomize-integrity"])
    assert result.findings == []
    (obj,) = result.model.objects
    assert (obj.ref, obj.labels) == ("Deployment/prod/prod-web", {"app": "web", "tier": "web"})
    (pod,) = result.model.pods
    (web,) = pod.containers
    assert web.image == "web:2.0"
    # kustomize's order (kubectl kustomize): the patch's elements first, then the base's
    assert web.body["env"] == [{"name": "B", "value": "3"}, {"name": "C", "value": "4"},
                               {"name": "A", "value": "1"}]
    assert web.resources == {"requests": {"memory": "12Gi"}}
    assert obj.get(("spec", "selector", "matchLabels")) == {"app": "web", "tier": "web"}
    # a field a patch set is located in the patch
    file, line, _ = obj.where(web.path + ("resources", "requests", "memory"))
    assert (file.rpartition("/")[2], line) == ("memory.yaml", 10)


def test_json6902_patches_add_replace_remove(tmp_path: Path) -> None:
    write(tmp_path, {
        "kustomization.yaml": """
            resources: [deploy.yaml]
            patches:
            - target: {kind: Deployment, name: web}
              patch: |
                - op: replace
                  path: /spec/replicas
                  value: 3
                - op: add
                  path: /spec/template/spec/containers/0/args
                  value: [--fast]
                - op: remove
                  path: /spec/template/spec/containers/1
        """,
        "deploy.yaml": BASE,
    })
    (obj,) = lint_dir(tmp_path, only=["schema"]).model.objects
    assert obj.get(("spec", "replicas")) == 3
    containers = obj.get(("spec", "template", "spec", "containers"))
    assert [c["name"] for c in containers] == ["web"]
    assert containers[0]["args"] == ["--fast"]


def test_a_base_two_overlays_patch_is_two_objects_and_one_cluster_sum(tmp_path: Path) -> None:
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [deploy.yaml]\n",
        "base/deploy.yaml": BASE,
        "prod/kustomization.yaml": "resources: [../base]\nnamespace: prod\n",
        "dev/kustomization.yaml": "resources: [../base]\nnamespace: dev\n",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert sorted(o.ref for o in result.model.objects) == [
        "Deployment/dev/web", "Deployment/prod/web"]
    assert result.findings == []


def test_images_transformer_rules() -> None:
    rules = [{"name": "web", "newName": "ghcr.io/a/web", "newTag": "v2"},
             {"name": "db", "digest": "sha256:" + "1" * 64}]
    assert transform_image("web:1.0@sha256:" + "0" * 64, rules) == "ghcr.io/a/web:v2"
    assert transform_image("db:5", rules) == "db@sha256:" + "1" * 64
    assert transform_image("registry:5000/web:1", rules) == "registry:5000/web:1"
    # a name with a tag names that tag's image only, as kustomize's IsImageMatched does
    # (judge round BL: danmanners' `jenkins-container-image:latest`, rewritten by kubectl)
    tagged = [{"name": "jenkins:latest", "newName": "r/jenkins", "newTag": "2.414"}]
    assert transform_image("jenkins:latest", tagged) == "r/jenkins:2.414"
    assert transform_image("jenkins:lts", tagged) == "jenkins:lts"
    assert transform_image("jenkins-x:latest", [{"name": "jenkins", "newTag": "1"}]) == (
        "jenkins-x:latest")


# ---------------------------------------------------------------- kubectl kustomize, the oracle


def _facts(body: dict[str, Any]) -> dict[str, Any]:
    """What the oracle compares: namespace, labels, selector, replicas, images, resources."""
    meta = body.get("metadata") or {}
    spec = body.get("spec") if isinstance(body.get("spec"), dict) else {}
    images: list[str] = []
    resources: list[Any] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("containers", "initContainers") and isinstance(item, list):
                    for c in item:
                        if isinstance(c, dict):
                            images.append(str(c.get("image")))
                            resources.append(c.get("resources"))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(spec)
    facts = {"labels": meta.get("labels") or {}, "selector": spec.get("selector"),
             "replicas": spec.get("replicas"), "images": images, "resources": resources}
    return json.loads(json.dumps(facts, default=str, sort_keys=True))


def _identity(body: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = body.get("metadata") or {}
    api = str(body.get("apiVersion") or "")
    return (api.rpartition("/")[0], str(body.get("kind")), str(meta.get("namespace") or ""),
            str(meta.get("name")))


def compare_roots(repo: Path) -> list[tuple[str, str]]:
    """(folder, verdict) for every kustomization of ``repo``: ``equal``, or why not."""
    graph = kustomize_graph(repo)
    rows = []
    for folder in sorted(graph.by_dir):
        if graph.by_dir[folder].is_component:
            continue
        build = graph.build(folder)
        if build.remote:
            rows.append((folder, f"remote base ({build.remote[0]}): not fetched"))
            continue
        if build.helm:
            rows.append((folder, "helmCharts: Helm is never run"))
            continue
        proc = subprocess.run(["kubectl", "kustomize", str(repo / folder)],
                              capture_output=True, check=False, timeout=120)
        if proc.returncode != 0:
            rows.append((folder, "kubectl kustomize fails: " + _gist(proc.stderr)))
            continue
        record = FileRecord("built.yaml", blob_id(proc.stdout), proc.stdout)
        want = {_identity(d.value): _facts(d.value) for d in load(record).documents
                if isinstance(d.value, dict)}
        got: dict[tuple[str, str, str, str], Any] = {}
        for r in build.resources:
            ident = _identity(dict(r.body))
            if r.doc is None:  # a generator's stub: kustomize appends a content hash
                hashed = GENERATED_HASH in (r.body.get("metadata") or {}).get("annotations", {})
                ident = next((w for w in want if hashed and w[:3] == ident[:3]
                              and w[3].startswith(ident[3] + "-")), ident)
                got[ident] = want.get(ident)
            else:
                got[ident] = _facts(dict(r.body))
        if set(got) != set(want):
            rows.append((folder, f"objects differ: only here {sorted(set(got) - set(want))}, "
                                 f"only kubectl {sorted(set(want) - set(got))}"))
            continue
        differ = sorted(f"{i[1]}/{i[3]} {k}" for i in got for k in got[i]
                        if got[i][k] != want[i][k])
        rows.append((folder, "equal" if not differ else "fields differ: " + ", ".join(differ)))
    return rows


def _gist(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace")
    for marker in ("no such file or directory", "evalsymlink failure"):
        if marker in text:
            return "a file it reads is not in this copy of the repository"
    return text.strip().splitlines()[-1][-160:] if text.strip() else "no message"


needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None,
                                   reason="needs kubectl (Debian's kubectl package) on PATH")
REPOS = ["fluxcd-flux2-kustomize-helm-example", "kustomize-examples", "onedr0p-home-ops",
         "billimek-k8s-gitops", "kubernetes-examples"]
# roots kubectl cannot build here, with the reason (the agreement table in the README)
EXPECTED_OTHER = {
    ("kustomize-examples", "loadHttp"): "remote base",
    ("kustomize-examples", "transformerconfigs/images"): "kubectl kustomize fails",
    ("onedr0p-home-ops", "kubernetes/apps/default/sonarr/app"): "kubectl kustomize fails",
}


@needs_kubectl
@pytest.mark.parametrize("repo", REPOS)
def test_in_process_builds_agree_with_kubectl_kustomize(repo: str) -> None:
    if not (CORPUS / repo).is_dir():
        pytest.skip(f"corpus {repo} not found beside the repository (../shared/corpus)")
    rows = compare_roots(CORPUS / repo)
    other = {(repo, folder): verdict for folder, verdict in rows if verdict != "equal"}
    assert {key: verdict.split(":")[0].split(" (")[0] for key, verdict in other.items()} == {
        key: reason for key, reason in EXPECTED_OTHER.items() if key[0] == repo}, other


@needs_kubectl
def test_the_reproducers_build_as_kubectl_builds() -> None:
    rows = compare_roots(PRECISION)
    # m2: kustomize v5 refuses a bare-string patch; p11: all.yaml is made at build time
    assert {folder for folder, verdict in rows if verdict != "equal"} == {
        "m2-string-patch", "p11-generated"}
    assert len(rows) >= 6


@needs_kubectl
def test_a_key_written_twice_in_a_kustomization_keeps_its_later_value(tmp_path: Path) -> None:
    """Judge round CF (tlgselvi's deploy/overlays/prod): a second `resources:` in a
    kustomization; kustomize reads it, keeping the later value (the base dropped from the
    build, nested keys alike), where reviewbot refused the file. Built as kubectl builds it,
    and said where the earlier value is lost."""
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [cm.yaml]\n",
        "base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        "prod/b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
        "prod/kustomization.yaml": """
            resources:
            - ../base
            namePrefix: x-
            labels:
            - pairs: {tier: one}
              pairs: {tier: two}
            resources:
            - b.yaml
        """,
    })
    assert compare_roots(tmp_path) == [("base", "equal"), ("prod", "equal")]
    result = lint_dir(tmp_path, only=["yaml-syntax"])
    # (the first key written twice of the document is said; fixed, the next one is)
    assert [(f.kind, f.severity, f.file, f.line, f.message) for f in result.findings] == [
        ("kustomization-duplicate", "warning", "prod/kustomization.yaml", 6,
         "duplicate mapping key `pairs` (first defined on line 5): kustomize keeps the later "
         "value, so what line 5 sets is dropped from the build")]


# ---------------------------------------------------------------- clusters


SYNC = """
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: %s, namespace: flux-system}
spec:
  interval: 10m
  path: %s
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
"""
PINNED = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: apps}
spec:
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec:
      nodeSelector: {kubernetes.io/hostname: worker-1}
      containers:
      - name: big
        image: "big:1@sha256:%s"
        resources: {requests: {cpu: "3", memory: 1Gi}, limits: {cpu: "3", memory: 1Gi}}
""" % ("0" * 64)
NODES = """
cluster:
  nodes:
  - {name: worker-1, allocatable: {cpu: "4", memory: 8Gi}}
"""


def two_clusters(root: Path) -> None:
    files = {".reviewbot.yaml": NODES}
    for name in ("production", "staging"):
        files[f"clusters/{name}/flux-system/gotk-sync.yaml"] = SYNC % (
            "flux-system", f"./clusters/{name}")
        files[f"clusters/{name}/flux-system/kustomization.yaml"] = "resources: [gotk-sync.yaml]\n"
        files[f"clusters/{name}/apps.yaml"] = SYNC % ("apps", f"./apps/{name}")
        files[f"apps/{name}/deploy.yaml"] = PINNED
    write(root, files)


def test_flux_entry_points_make_clusters_that_rules_never_combine(tmp_path: Path) -> None:
    two_clusters(tmp_path)
    result = lint_dir(tmp_path, only=["schedulability", "kustomize-integrity"])
    assert result.findings == []
    assert sorted(result.model.cluster_entries) == ["clusters/production", "clusters/staging"]
    reasons = [s.reason for s in result.model.skipped if s.kind == "cluster"]
    assert reasons == [
        "cluster clusters/production: 3 objects; netpol-pairing, schedulability and duplicate "
        "checks never combine them with another cluster's",
        "cluster clusters/staging: 3 objects; netpol-pairing, schedulability and duplicate "
        "checks never combine them with another cluster's",
    ]


def test_the_text_output_lists_clusters_apart_from_what_was_skipped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    two_clusters(tmp_path)
    write(tmp_path, {"old/old.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old}\n"})
    _, out, _ = run_cli(["lint", str(tmp_path), "--rule", "kustomize-integrity"], capsys)
    tail = out[out.index("clusters (2):"):].splitlines()
    assert tail[:3] == [
        "clusters (2):",
        "  clusters/production/flux-system/gotk-sync.yaml: cluster clusters/production: 3 "
        "objects; netpol-pairing, schedulability and duplicate checks never combine them with "
        "another cluster's",
        "  clusters/staging/flux-system/gotk-sync.yaml: cluster clusters/staging: 3 objects; "
        "netpol-pairing, schedulability and duplicate checks never combine them with another "
        "cluster's",
    ]
    assert tail[3:] == ["skipped (1):", "  old: not applied by any cluster root"]


def test_one_cluster_sums_its_pods_on_a_node(tmp_path: Path) -> None:
    two_clusters(tmp_path)
    write(tmp_path, {"apps/production/deploy2.yaml": PINNED.replace("name: big,", "name: big2,")})
    result = lint_dir(tmp_path, only=["schedulability"])
    assert result.findings
    assert {f.file.rpartition("/")[0] for f in result.findings} == {"apps/production"}


def test_an_orphan_flux_kustomization_is_not_applied(tmp_path: Path) -> None:
    # staging's bootstrap gone: no root applies clusters/staging, so its Deployment reaches no
    # cluster and is never summed with production's on worker-1
    two_clusters(tmp_path)
    (tmp_path / "clusters" / "staging" / "flux-system" / "gotk-sync.yaml").unlink()
    (tmp_path / "clusters" / "staging" / "flux-system" / "kustomization.yaml").unlink()
    result = lint_dir(tmp_path, only=["schedulability", "kustomize-integrity"])
    assert result.model.cluster_entries == {}  # one root: the tree is one cluster
    assert [(f.rule, f.kind, f.severity, f.file) for f in result.findings] == [
        ("kustomize-integrity", "not-applied", "info", "apps/staging/deploy.yaml"),
        ("kustomize-integrity", "not-applied", "info", "clusters/staging/apps.yaml")]
    assert [s.path for s in result.model.skipped if s.reason == (
        "not applied by any cluster root")] == ["apps/staging", "clusters/staging"]


def test_configured_clusters_name_their_entry_folders(tmp_path: Path) -> None:
    two_clusters(tmp_path)
    (tmp_path / ".reviewbot.yaml").write_text(textwrap.dedent("""
        clusters:
        - name: prod
          paths: [clusters/production]
          nodes:
          - {name: worker-1, allocatable: {cpu: "2", memory: 8Gi}}
        - name: stage
          paths: [clusters/staging]
    """))
    result = lint_dir(tmp_path, only=["schedulability"])
    assert sorted(result.model.cluster_entries) == ["prod", "stage"]
    # prod's own inventory: its 3-CPU pod does not fit the 2-CPU node; stage has no nodes
    assert [(f.rule, f.file) for f in result.findings] == [
        ("schedulability", "apps/production/deploy.yaml")]


# ---------------------------------------------------------------- namespaces


def test_kustomize_namespace_applies_to_listed_files(tmp_path: Path) -> None:
    app = tmp_path / "apps" / "web"
    app.mkdir(parents=True)
    (tmp_path / "apps" / "kustomization.yaml").write_text("namespace: prod\nresources: [web]\n")
    (app / "kustomization.yaml").write_text("namespace: dev\nresources: [cm.yaml]\n")
    (app / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    result = lint_dir(tmp_path)
    assert [o.ref for o in result.model.objects] == ["ConfigMap/prod/a"]


def test_flux_target_namespace_applies_below_spec_path(tmp_path: Path) -> None:
    apps = tmp_path / "repo" / "kubernetes" / "apps" / "kube-system"
    (apps / "plugin" / "app").mkdir(parents=True)
    (apps / "plugin" / "ks.yaml").write_text(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
        "metadata: {name: plugin, namespace: flux-system}\n"
        "spec:\n  path: ./kubernetes/apps/kube-system/plugin/app\n"
        "  targetNamespace: kube-system\n"
        "  sourceRef: {kind: GitRepository, name: flux-system}\n"
    )
    (apps / "plugin" / "app" / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    (apps / "plugin" / "app" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    (apps / "plugin" / "app" / "stray.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
    result = lint_dir(tmp_path)
    refs = sorted(o.ref for o in result.model.objects)
    # stray.yaml is listed by no kustomization: never applied, so no object, one warning
    assert refs == ["ConfigMap/kube-system/a", "Kustomization/flux-system/plugin"]
    assert [(f.kind, f.file.rpartition("/")[2]) for f in result.findings
            if f.rule == "kustomize-integrity"] == [("unreachable", "stray.yaml")]


ARGO_APP = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %s, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://example.com/repo.git, path: %s, targetRevision: HEAD}
  destination: {name: %s, namespace: default}
"""


def test_a_cluster_of_many_roots_is_summed_up_by_its_first(tmp_path: Path) -> None:
    # a template repository applies one cluster from many Argo CD Applications: its summary
    # names the first root and counts the others, and its JSON "file" is that root's file
    files = {}
    for cluster in ("prod", "stage"):
        for n in range(5 if cluster == "prod" else 2):
            files[f"{cluster}/app{n}.yaml"] = ARGO_APP % (f"{cluster}-app{n}", f"apps/app{n}",
                                                          cluster)
    for n in range(5):
        files[f"apps/app{n}/cm.yaml"] = (
            f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{n}}}\n")
    write(tmp_path, files)
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    summaries = [(s.path, s.reason.partition(";")[0]) for s in result.model.skipped
                 if s.kind == "cluster"]
    # (apps/app0 and apps/app1 are built alike for both: 5 ConfigMaps, 5 + 2 - 2; with the
    # 7 Applications, 12 objects looked in)
    assert summaries == [
        ("prod/app0.yaml", "cluster prod (and 4 other roots): 5 objects (2 of them built "
                           "alike for another cluster too)"),
        ("stage/app0.yaml", "cluster stage (also from stage/app1.yaml): 2 objects (2 of them "
                            "built alike for another cluster too)")]
    assert result.stats["objects"] == 12


def test_a_cluster_of_a_chart_says_its_values_are_judged_not_just_0_objects(
        tmp_path: Path) -> None:
    """A new-user trial: an Argo CD Application of a chart folder made "cluster edge: 0
    objects", though the chart's values were judged: it says so."""
    write(tmp_path, {
        "argo/web.yaml": ARGO_APP % ("web", "charts/web", "edge"),
        "argo/api.yaml": ARGO_APP % ("api", "apps/api", "core"),
        "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
        "charts/web/values.yaml": "image: {repository: nginx, tag: '1.27'}\n",
        "charts/web/templates/cm.yaml": "kind: ConfigMap\nmetadata: {name: {{ .Release.Name }}}\n",
        "apps/api/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api}\n",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [(s.path, s.reason.partition(";")[0]) for s in result.model.skipped
            if s.kind == "cluster"] == [
        ("argo/api.yaml", "cluster core: 1 object"),
        ("argo/web.yaml", "cluster edge: 0 objects, and the values of chart charts/web "
                          "(reviewbot renders no chart)")]


def test_a_flux_kustomization_s_components_join_its_folder_s_kustomization(
        tmp_path: Path) -> None:
    """kustomize-controller appends a Kustomization's spec.components to the components of
    the kustomization in its path (fluxcd/pkg's generator), so that kustomization's own
    namespace and transformers reach the components' objects: rafaribe/home-ops' backup
    PVC lands in `media`, as `kubectl kustomize` of the folder so amended builds it (it was
    placed in default)."""
    from .helpers import build_as_kubectl

    pvc = ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\n"
           "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n")
    component = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n" \
                "resources: [pvc.yaml]\n"
    app = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n"
    write(tmp_path, {
        "components/backup/kustomization.yaml": component,
        "components/backup/pvc.yaml": pvc,
        "apps/media/app/kustomization.yaml": "namespace: media\nresources: [app.yaml]\n",
        "apps/media/app/app.yaml": app,
    })
    spec = {"path": "./apps/media/app", "sourceRef": {"kind": "GitRepository", "name": "x"},
            "components": ["../../../components/backup"]}
    built = kustomize_graph(tmp_path).flux_build("apps/media/ks.yaml", spec)
    assert built is not None
    got = {f"{r.kind}/{r.name}": r.body for r in built.resources}
    # the folder as kustomize-controller rewrites its kustomization, built by kubectl
    want = build_as_kubectl(tmp_path / "flux", {
        "components/backup/kustomization.yaml": component,
        "components/backup/pvc.yaml": pvc,
        "apps/media/app/kustomization.yaml": "namespace: media\nresources: [app.yaml]\n"
                                             "components: [../../../components/backup]\n",
        "apps/media/app/app.yaml": app,
    }, "apps/media/app")
    assert json.loads(json.dumps(got)) == want
    assert want["PersistentVolumeClaim/data"]["metadata"]["namespace"] == "media"


def test_an_object_annotated_local_config_is_read_by_the_build_and_never_printed(
        tmp_path: Path) -> None:
    """openstack-k8s-operators/architecture (judge round CM): values ConfigMaps annotated
    `config.kubernetes.io/local-config: "true"` feed replacements and are no output of the
    build (kustomize's KustTarget.IgnoreLocal, its last step): 1,583 schema warnings of
    objects no cluster receives. The value "false" keeps one."""
    from .helpers import build_as_kubectl

    made = build_as_kubectl(tmp_path, {
        "kustomization.yaml": """
            resources: [values.yaml, cm.yaml]
            replacements:
            - source: {kind: ConfigMap, name: values, fieldPath: data.node}
              targets: [{select: {kind: ConfigMap, name: target}, fieldPaths: [data.host]}]
        """,
        "values.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: values
              annotations: {config.kubernetes.io/local-config: "true"}
            data: {node: worker-0}
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: kept
              annotations: {config.kubernetes.io/local-config: "false"}
            data: {a: b}
        """,
        "cm.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: target}
            data: {host: x}
        """,
    })
    assert sorted(made) == ["ConfigMap/kept", "ConfigMap/target"]
    assert made["ConfigMap/target"]["data"] == {"host": "worker-0"}
    result = lint_dir(tmp_path, only=["schema"])
    assert sorted(o.name for o in result.model.objects) == ["kept", "target"]


def test_a_json_patch_adds_an_annotation_to_an_object_that_writes_none(
        tmp_path: Path) -> None:
    """kustomize patches an object that holds its build annotations: `add` of
    /metadata/annotations/<key> applies where the object writes no annotations (bank-of-
    anthos' workload identity, judge round BP); the built object is kubectl's."""
    from .helpers import build_as_kubectl

    made = build_as_kubectl(tmp_path, {
        "kustomization.yaml": """
            resources: [sa.yaml]
            patches:
            - target: {kind: ServiceAccount}
              patch: |-
                - op: add
                  path: /metadata/annotations/iam.gke.io~1gcp-service-account
                  value: app@project.iam.gserviceaccount.com
        """,
        "sa.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: app}\n",
    })
    assert made["ServiceAccount/app"]["metadata"]["annotations"] == {
        "iam.gke.io/gcp-service-account": "app@project.iam.gserviceaccount.com"}
