"""What each cluster receives: the walk from a repository's GitOps roots (issue 27 §1).

An error is a promise about what a cluster receives: a file no root reaches gets no error
(one ``not-applied`` info per folder), a Kustomization of another source is not followed,
a child is judged as its parent builds it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from reviewbot.engine.run import Result

from .helpers import lint_dir, run_cli, write

FLOATING = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: %s, namespace: apps}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: "web:latest"}
"""
SYNC = """
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {url: https://github.com/acme/fleet, ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec:
  path: ./clusters/prod
  sourceRef: {kind: GitRepository, name: flux-system}
"""
APPS = """
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  path: %s
  sourceRef: {kind: %s, name: %s}
"""


def found(result: Result) -> list[tuple[str, str, str, str]]:
    """(rule[kind], severity, file, object) of every finding of the image and integrity rules
    but kustomize-integrity's chart sources (the fixtures' HelmReleases name theirs in
    shorthand, defined nowhere: test_kustomize_integrity judges sources)."""
    return sorted((f"{f.rule}[{f.kind}]" if f.kind else f.rule, f.severity, f.file, f.object)
                  for f in result.findings if f.kind != "source")


def with_remote(root: Path, url: str) -> None:
    """Make ``root`` a git checkout whose remote ``origin`` is ``url``."""
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "remote", "add", "origin", url], check=True)


def bootstrap(root: Path, extra: dict[str, str]) -> Result:
    files = {"clusters/prod/flux-system/gotk-sync.yaml": SYNC,
             "clusters/prod/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
             "clusters/prod/apps.yaml": APPS % ("./apps", "GitRepository", "flux-system"),
             **extra}
    write(root, files)
    return lint_dir(root, only=["image-digest", "kustomize-integrity"])


def test_a_tenant_git_repository_of_flux_system_s_url_is_this_repository(
        tmp_path: Path) -> None:
    """New-user trial seventy-seven D1: a tenant's GitRepository with flux-system's URL (in
    another scheme) and no git remote to tell: "not followed: its spec.path is in
    GitRepository team-ml (...), not this repository", a whole tenant unjudged."""
    result = bootstrap(tmp_path, {
        "apps/kustomization.yaml": "resources: [tenant.yaml]\n",
        "apps/tenant.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: team-ml, namespace: team-ml}
            spec: {url: 'ssh://git@github.com/acme/fleet', ref: {branch: main}}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: team-ml, namespace: team-ml}
            spec:
              path: ./tenants/ml
              sourceRef: {kind: GitRepository, name: team-ml}
        """,
        "tenants/ml/kustomization.yaml": "resources: [vllm.yaml]\n",
        "tenants/ml/vllm.yaml": FLOATING % "vllm",
        # (clusters configured: their paths are the roots, no sync object walked first)
        ".reviewbot.yaml": "clusters:\n- {name: prod, paths: [clusters/prod]}\n",
    })
    assert ("image-digest[floating]", "error", "tenants/ml/vllm.yaml") in [
        (r, s, f) for r, s, f, _ in found(result)]
    assert not [s for s in result.model.skipped if "not this repository" in s.reason]


def test_a_kustomization_applying_an_argo_cd_root_applies_all_it_builds(tmp_path: Path
                                                                        ) -> None:
    # a bootstrap applied with `kubectl apply -k .`: the root Application and apps/web,
    # which no Application names, are both applied (a new-user trial: apps/web was "not
    # applied by any cluster root", its :latest image unjudged)
    write(tmp_path, {
        "kustomization.yaml": "resources: [apps/web, argocd/root.yaml]\n",
        "apps/web/kustomization.yaml": "resources: [deploy.yaml]\n",
        "apps/web/deploy.yaml": FLOATING % "web",
        "argocd/root.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: root, namespace: argocd}
            spec:
              project: default
              destination: {server: https://kubernetes.default.svc, namespace: apps}
              source: {repoURL: https://github.com/acme/fleet.git, path: cluster}
        """,
        "cluster/kustomization.yaml": "resources: [api.yaml]\n",
        "cluster/api.yaml": FLOATING % "api",
        "unused/deploy.yaml": FLOATING % "old",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert found(result) == [
        ("image-digest[floating]", "error", "apps/web/deploy.yaml", "Deployment/apps/web"),
        ("image-digest[floating]", "error", "cluster/api.yaml", "Deployment/apps/api"),
        ("kustomize-integrity[not-applied]", "info", "unused/deploy.yaml", ""),
    ]


def test_the_repositorys_top_level_kustomization_is_applied_by_hand_beside_other_roots(
        tmp_path: Path) -> None:
    # a new-user trial: the top's kustomization lists apps/web, an Argo CD Application
    # renders a chart; apps/web was "not applied by any cluster root", its :latest unjudged.
    # Argo CD's https://kubernetes.default.svc is the cluster it calls in-cluster: one cluster
    write(tmp_path, {
        "kustomization.yaml": "resources: [apps/web]\n",
        "apps/web/kustomization.yaml": "resources: [deploy.yaml]\n",
        "apps/web/deploy.yaml": FLOATING % "web",
        "argocd/chart.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: chart, namespace: argocd}
            spec:
              project: default
              destination: {server: https://kubernetes.default.svc, namespace: apps}
              source: {repoURL: https://github.com/acme/fleet.git, path: cluster}
        """,
        "cluster/kustomization.yaml": "resources: [api.yaml]\n",
        "cluster/api.yaml": FLOATING % "api",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert found(result) == [
        ("image-digest[floating]", "error", "apps/web/deploy.yaml", "Deployment/apps/web"),
        ("image-digest[floating]", "error", "cluster/api.yaml", "Deployment/apps/api"),
    ]
    assert result.model.cluster_entries == {}  # (one cluster: in-cluster)


def test_an_archive_folder_no_root_reaches_gets_one_info_and_no_error(tmp_path: Path) -> None:
    result = bootstrap(tmp_path, {
        "apps/kustomization.yaml": "resources: [web.yaml]\n",
        "apps/web.yaml": FLOATING % "web",
        ".archive/old/web.yaml": FLOATING % "old",
        ".archive/old/db.yaml": FLOATING % "db",
    })
    assert found(result) == [
        ("image-digest[floating]", "error", "apps/web.yaml", "Deployment/apps/web"),
        ("kustomize-integrity[not-applied]", "info", ".archive/old/db.yaml", ""),
    ]
    info = [f for f in result.findings if f.kind == "not-applied"][0]
    assert info.message == (".archive (2 manifest files) is not applied by any cluster root, so "
                            "nothing in it is judged")
    assert ".archive" in [s.path for s in result.model.skipped]
    assert all(o.file.startswith(("apps/", "clusters/")) for o in result.model.objects)


def test_an_app_commented_out_of_a_cluster_is_not_applied(tmp_path: Path) -> None:
    result = bootstrap(tmp_path, {
        "apps/kustomization.yaml": "resources:\n  - web\n  # - old\n",
        "apps/web/kustomization.yaml": "resources: [web.yaml]\n",
        "apps/web/web.yaml": FLOATING % "web",
        "apps/old/kustomization.yaml": "resources: [old.yaml]\n",
        "apps/old/old.yaml": FLOATING % "old",
    })
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "apps/web/web.yaml"),
        ("kustomize-integrity[commented]", "info", "apps/kustomization.yaml"),
    ]
    assert "apps/old/old.yaml" in result.model.unapplied


def test_a_component_a_built_kustomization_includes_is_applied_whole(tmp_path: Path) -> None:
    # xunholy's components/common: its kustomization.yaml, read by every build that lists
    # the Component, was "not applied by any cluster root" (sixth trial)
    component = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
    result = bootstrap(tmp_path, {
        "apps/kustomization.yaml": "resources: [web.yaml]\ncomponents: [../components/common]\n",
        "apps/web.yaml": FLOATING % "web",
        "components/common/kustomization.yaml": component + "resources: [alerts]\n",
        "components/common/alerts/kustomization.yaml": "resources: [alert.yaml]\n",
        "components/common/alerts/alert.yaml": FLOATING % "alert",
    })
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "apps/web.yaml"),
        ("image-digest[floating]", "error", "components/common/alerts/alert.yaml"),
    ]
    assert not {f for f in result.model.unapplied if f.startswith("components/")}


def test_a_manifest_beside_a_built_kustomization_but_unlisted_is_still_named(
    tmp_path: Path,
) -> None:
    result = bootstrap(tmp_path, {
        "apps/kustomization.yaml": "resources: [web.yaml]\n",
        "apps/web.yaml": FLOATING % "web",
        "apps/stray.yaml": FLOATING % "stray",
    })
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "apps/web.yaml"),
        ("kustomize-integrity[unreachable]", "warning", "apps/stray.yaml"),
    ]


def test_a_kustomization_of_another_repository_is_not_followed(tmp_path: Path) -> None:
    result = bootstrap(tmp_path, {
        "clusters/prod/apps.yaml": APPS % ("./apps", "GitRepository", "other"),
        "clusters/prod/other.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: other, namespace: flux-system}
            spec: {url: https://github.com/acme/other}
        """,
        "apps/web.yaml": FLOATING % "web",  # a folder of the same name: not what it applies
    })
    assert [(r, s) for r, s, _, _ in found(result)] == [
        ("kustomize-integrity[not-applied]", "info")]
    assert any(s.path == "clusters/prod/apps.yaml" and "github.com/acme/other" in s.reason
               for s in result.model.skipped)


def test_an_oci_artifact_this_repositorys_ci_pushes_maps_to_its_folder(tmp_path: Path) -> None:
    result = bootstrap(tmp_path, {
        "clusters/prod/apps.yaml": APPS % ("./apps", "OCIRepository", "fleet"),
        "clusters/prod/oci.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1beta2
            kind: OCIRepository
            metadata: {name: fleet, namespace: flux-system}
            spec: {url: oci://ghcr.io/acme/fleet-manifests, ref: {tag: latest}}
        """,
        ".github/workflows/push.yaml": """
            on: push
            jobs:
              push:
                runs-on: ubuntu-latest
                steps:
                - run: >-
                    flux push artifact oci://ghcr.io/acme/fleet-manifests:$(git rev-parse HEAD)
                    --path=./kubernetes --source=x --revision=y
        """,
        "kubernetes/apps/web.yaml": FLOATING % "web",
        "apps/web.yaml": FLOATING % "decoy",
    })
    assert [(r, f) for r, _, f, _ in found(result) if r.startswith("image")] == [
        ("image-digest[floating]", "kubernetes/apps/web.yaml")]


def test_a_child_is_judged_as_its_parent_builds_it(tmp_path: Path) -> None:
    # the parent patches every child Kustomization with its sourceRef: without the patch the
    # child names no source; with it, the child's path is this repository's
    result = bootstrap(tmp_path, {
        "clusters/prod/flux-system/gotk-sync.yaml": SYNC.replace(
            "  sourceRef: {kind: GitRepository, name: flux-system}\n",
            "  sourceRef: {kind: GitRepository, name: flux-system}\n"
            "  patches:\n"
            "  - patch: |\n"
            "      apiVersion: kustomize.toolkit.fluxcd.io/v1\n"
            "      kind: Kustomization\n"
            "      metadata: {name: x}\n"
            "      spec: {sourceRef: {kind: GitRepository, name: flux-system}}\n"
            "    target: {kind: Kustomization, labelSelector: 'sync notin (manual)'}\n"),
        "clusters/prod/apps.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: apps, namespace: flux-system}
            spec: {path: ./apps}
        """,
        "apps/web.yaml": FLOATING % "web",
    })
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/web.yaml")]


def test_post_build_substitution_uses_the_repositorys_values(tmp_path: Path) -> None:
    result = bootstrap(tmp_path, {
        "clusters/prod/apps.yaml": APPS % ("./apps", "GitRepository", "flux-system") + (
            "  postBuild:\n"
            "    substitute: {TAG: '1.2.3'}\n"
            "    substituteFrom:\n"
            "    - {kind: ConfigMap, name: settings}\n"),
        "clusters/prod/settings.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: settings, namespace: flux-system}
            data: {REPLICAS: "3"}
        """,
        "apps/web.yaml": (FLOATING % "web").replace("web:latest", "web:${TAG}").replace(
            "spec:\n  selector", "spec:\n  replicas: ${REPLICAS}\n  selector"),
    })
    web = next(o for o in result.model.objects if o.name == "web")
    assert web.body["spec"]["replicas"] == 3
    assert web.body["spec"]["template"]["spec"]["containers"][0]["image"] == "web:1.2.3"
    assert [(r, s) for r, s, _, _ in found(result)] == [("image-digest[unpinned]", "warning")]
    assert id(web) not in result.model.doubts


def test_documents_of_other_tools_are_no_manifests_left_unapplied(tmp_path: Path) -> None:
    """A Talos machine config (``apiVersion: v1alpha1``) and a kustomize plugin config
    (``apiVersion: builtin``) beside the clusters are not Kubernetes objects: no cluster
    root is meant to apply them, so no "not applied" info asks to list them in one; a
    Kubernetes manifest beside them still gets one."""
    result = bootstrap(tmp_path, {
        "apps/kustomization.yaml": "resources: [web.yaml]\n",
        "apps/web.yaml": FLOATING % "web",
        "talos/watchdog.yaml": "apiVersion: v1alpha1\nkind: WatchdogTimerConfig\n"
                               "device: /dev/watchdog0\n",
        "plugins/labels.yaml": "apiVersion: builtin\nkind: LabelTransformer\n"
                               "metadata: {name: labels}\nlabels: {team: a}\n",
        "extra/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n",
    })
    assert [(f.kind, f.file) for f in result.findings if f.kind == "not-applied"] == [
        ("not-applied", "extra/cm.yaml")]


def test_a_file_sops_encrypted_whole_holds_no_object(tmp_path: Path) -> None:
    """juftin/home-ops' secrets/kubeconfig.enc.yaml: sops encrypted every value, apiVersion
    and kind too. No object: nothing judges "Kubernetes 1.37 does not serve ENC[...]"."""
    enc = "ENC[AES256_GCM,data:{},iv:aXY=,tag:dGFn,type:str]"
    write(tmp_path, {"secrets/kubeconfig.enc.yaml": (
        f"apiVersion: {enc.format('djE=')}\nkind: {enc.format('Q29uZmln')}\n"
        f"current-context: {enc.format('aG9tZQ==')}\n"
        "sops:\n  version: 3.9.0\n  mac: " + enc.format("bWFj") + "\n")})
    result = lint_dir(tmp_path, only=["api-lifecycle", "schema"])
    assert result.model.objects == [] and result.findings == []


def test_without_roots_a_folder_commented_out_of_its_build_is_not_applied(
    tmp_path: Path
) -> None:
    """Smana's cloud-native-ref: no Flux root in the tree (the sync path is passed by a
    script), and tooling/mycluster-0 comments out ``# - ../base/dagger-engine`` "for cost
    reasons". Its objects are not applied: no finding judges them, as the info says; what
    another build reads too (a shared base) stays judged."""
    write(tmp_path, {
        "tooling/cluster/kustomization.yaml": (
            "resources:\n  - ../base/web\n  # Enabling only when needed\n"
            "  # - ../base/dagger\n"),
        "tooling/base/web/kustomization.yaml": "resources: [web.yaml, ../shared]\n",
        "tooling/base/web/web.yaml": FLOATING % "web",
        "tooling/base/dagger/kustomization.yaml": "resources: [dagger.yaml, ../shared]\n",
        "tooling/base/dagger/dagger.yaml": FLOATING % "dagger",
        "tooling/base/shared/kustomization.yaml": "resources: [shared.yaml]\n",
        "tooling/base/shared/shared.yaml": FLOATING % "shared",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert found(result) == [
        ("image-digest[floating]", "error", "tooling/base/shared/shared.yaml",
         "Deployment/apps/shared"),
        ("image-digest[floating]", "error", "tooling/base/web/web.yaml", "Deployment/apps/web"),
        ("kustomize-integrity[commented]", "info", "tooling/cluster/kustomization.yaml", ""),
    ]
    assert "tooling/base/dagger/dagger.yaml" in result.model.unapplied
    assert "tooling/base/shared/shared.yaml" not in result.model.unapplied


def test_a_lint_of_part_of_a_repository_whose_configured_clusters_are_outside_it(
    tmp_path: Path
) -> None:
    """New-user trial twenty: with `clusters:` in .reviewbot.yaml naming clusters/home and
    clusters/lab, `lint apps/` walked those roots, which the linted files do not hold, and
    judged nothing ("apps is not applied by any cluster root"). They are roots outside the
    linted files: the findings are warnings that say so, as without a configuration."""
    from reviewbot.config import parse_config
    from reviewbot.engine.options import check_options
    from reviewbot.engine.run import analyze
    from reviewbot.sources.tree import disk_tree

    config = check_options(parse_config(
        b"clusters:\n  - name: home\n    paths: [./clusters/home]\n"
        b"  - name: lab\n    paths: [clusters/lab]\n", ".reviewbot.yaml"))
    write(tmp_path, {"apps/web.yaml": FLOATING % "web", "clusters/home/keep.txt": "",
                     "clusters/lab/keep.txt": ""})
    part = analyze(disk_tree([tmp_path / "apps"], tmp_path), config, only=["image-digest"])
    assert [(f.severity, f.file) for f in part.findings] == [("warning", "apps/web.yaml")]
    assert part.findings[0].message.endswith(
        "Not certain: reviewbot could not see what the cluster roots outside the linted files "
        "(clusters/home and others) apply and how they patch it; lint the repository's top "
        "level to judge what its clusters receive.")


def test_a_lint_of_part_of_a_repository_reads_what_it_builds_from_outside(
    tmp_path: Path
) -> None:
    """New-user trials twenty-one and fifty-four: `lint envs/` (`lint overlays/prod`) of
    overlays over ../../base said "no findings", 0 objects: the base was not read. As
    `kubectl kustomize envs/prod` reads ../../base, the lint reads what the part's
    kustomizations name outside it (a base, its files, a component), and only that (the
    base's folder's other files stay unread); the overlay's objects are judged. What it
    cannot read (a folder that does not exist) is named in the skipped list."""
    from reviewbot.config import Config
    from reviewbot.engine.run import analyze
    from reviewbot.sources.tree import disk_tree

    write(tmp_path, {"base/kustomization.yaml": "resources: [web.yaml]\n",
                     "base/web.yaml": FLOATING % "web",
                     "base/unlisted.yaml": FLOATING % "unlisted",
                     "components/x/kustomization.yaml": "kind: Component\n",
                     "envs/prod/kustomization.yaml": "resources: [../../base, cm.yaml]\n"
                                                     "components: [../../components/x]\n",
                     "envs/prod/cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"
                                          "metadata: {name: c}\n",
                     "envs/dev/kustomization.yaml": "resources: [../../gone]\n"})
    tree = disk_tree([tmp_path / "envs"], tmp_path)
    assert sorted(r.path for r in tree.files) == [
        "base/kustomization.yaml", "base/web.yaml", "components/x/kustomization.yaml",
        "envs/dev/kustomization.yaml", "envs/prod/cm.yaml", "envs/prod/kustomization.yaml"]
    part = analyze(tree, Config(), only=["image-digest"])
    assert [(f.file, f.severity) for f in part.findings] == [("base/web.yaml", "error")]
    assert [(s.path, s.reason) for s in part.skipped] == [
        ("envs/dev/kustomization.yaml", "builds ../../gone, outside the linted files: what "
         "it builds is not judged; lint the repository's top level")]
    whole = analyze(disk_tree([tmp_path], tmp_path), Config(), only=["image-digest"])
    assert not any("outside the linted files" in s.reason for s in whole.skipped)


def test_a_part_applied_by_roots_outside_it_reads_its_components_and_promises_no_error(
    tmp_path: Path
) -> None:
    """New-user trial fifty-five: `lint kubernetes/apps/ai` of a cluster-template homelab
    (a FluxInstance syncs kubernetes/flux/cluster, whose cluster-apps builds
    kubernetes/apps): the namespace kustomization's `components/common` read from outside
    made the lint "cover" kubernetes/components, so the Flux Kustomization's
    `spec.components` entry `components/volsync`, unread, "does not exist" (an error); and
    the namespace kustomization was taken for a root applied by hand, so the other
    namespaces' Kustomizations its apps depend on were "not in the cluster" (errors). The
    roots outside the part apply it: warnings only, and nothing read in part is missing."""
    from reviewbot.config import Config
    from reviewbot.engine.run import analyze
    from reviewbot.sources.tree import disk_tree

    write(tmp_path, {
        "kubernetes/apps/ai/kustomization.yaml": (
            "namespace: ai\ncomponents: [../../components/common]\nresources: [./web/ks.yaml]\n"),
        "kubernetes/apps/ai/web/ks.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: web, namespace: ai}
            spec:
              path: ./kubernetes/apps/ai/web/app
              components: [../../../../components/volsync]
              dependsOn: [{name: cloudnative-pg, namespace: database}]
              sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
        """,
        "kubernetes/apps/ai/web/app/kustomization.yaml": "resources: [./web.yaml]\n",
        "kubernetes/apps/ai/web/app/web.yaml": FLOATING % "web",
        "kubernetes/components/common/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
            "resources: [./namespace.yaml]\n"),
        "kubernetes/components/common/namespace.yaml": (
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: _}\n"),
        "kubernetes/components/volsync/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"),
        "kubernetes/apps/database/ks.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: cloudnative-pg, namespace: database}
            spec:
              path: ./kubernetes/apps/database/app
              sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
        """,
        "kubernetes/flux/cluster/ks.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: cluster-apps, namespace: flux-system}
            spec:
              path: ./kubernetes/apps
              sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
        """,
    })
    part = analyze(disk_tree([tmp_path / "kubernetes/apps/ai"], tmp_path), Config(),
                   only=["image-digest", "kustomize-integrity"])
    assert sorted((f.rule, f.file, f.severity) for f in part.findings) == [
        ("image-digest", "kubernetes/apps/ai/web/app/web.yaml", "warning"),
        ("kustomize-integrity", "kubernetes/apps/ai/web/ks.yaml", "warning")]
    assert not any("does not exist" in f.message for f in part.findings)
    # the summary names the roots outside (new-user trial fifty-six read "none found")
    assert part.stats["roots"].startswith(
        "none in the linted files; outside them, kubernetes/flux/cluster/ks.yaml")
    # a finding whose object's Kustomization depends on one the part does not hold keeps
    # the doubt of the roots outside (judge round CV: "Not applied: ... waits for", said as
    # certain), and is no "Not applied": the dependency is unseen, not absent (judge round
    # CW: it was one folder up)
    waits = next(f for f in part.findings if f.rule == "image-digest")
    assert "Not certain: reviewbot could not see what the cluster roots outside" in (
        waits.message) and " Not applied: " not in waits.message
    (dependency,) = [f.message for f in part.findings if f.rule == "kustomize-integrity"]
    assert ", which the linted files do not hold: if the cluster does not have it either, " \
        "kustomize-controller never applies it" in dependency


def test_a_lint_of_part_of_a_repository_whose_roots_are_outside_it_promises_no_error(
    tmp_path: Path
) -> None:
    """``lint apps/`` where the Flux Kustomizations that apply (and patch) apps/ sit in
    clusters/: reviewbot cannot see what the clusters receive, so every finding is a warning
    that says so and names a root outside; the repository linted whole keeps its error."""
    from reviewbot.config import Config
    from reviewbot.engine.run import analyze
    from reviewbot.sources.tree import disk_tree

    write(tmp_path, {
        "clusters/prod/flux-system/gotk-sync.yaml": SYNC,
        "clusters/prod/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
        "clusters/prod/apps.yaml": APPS % ("./apps", "GitRepository", "flux-system"),
        "apps/web.yaml": FLOATING % "web",
    })
    part = analyze(disk_tree([tmp_path / "apps"], tmp_path), Config(), only=["image-digest"])
    [finding] = part.findings
    assert finding.severity == "warning"
    assert finding.message.endswith(
        "Not certain: reviewbot could not see what the cluster roots outside the linted files "
        "(clusters/prod/apps.yaml) apply and how they patch it; lint the "
        "repository's top level to judge what its clusters receive.")
    whole = analyze(disk_tree([tmp_path], tmp_path), Config(), only=["image-digest"])
    assert [(f.severity, f.file) for f in whole.findings] == [("error", "apps/web.yaml")]
    # the top of an OCI artifact (flux2-multi-tenancy's kyverno, path ./) is not this
    # repository's: a new-user trial, linting from a folder holding that tree beside its
    # own, got warnings naming it
    (tmp_path / "clusters" / "prod" / "apps.yaml").write_text(
        (APPS % ("./", "OCIRepository", "kyverno")).lstrip("\n"))
    oci = analyze(disk_tree([tmp_path / "apps"], tmp_path), Config(), only=["image-digest"])
    assert [f.severity for f in oci.findings] == ["error"]
    # an ApplicationSet outside whose generator fills the path in may apply any folder
    # (a new-user trial: `lint apps/` gave an error, naming no root)
    (tmp_path / "clusters" / "prod" / "apps.yaml").write_text(textwrap.dedent("""
        apiVersion: argoproj.io/v1alpha1
        kind: ApplicationSet
        metadata: {name: apps, namespace: argocd}
        spec:
          generators: [{git: {repoURL: https://github.com/acme/fleet,
                              files: [{path: "config/*.yaml"}]}}]
          template:
            metadata: {name: '{{.name}}'}
            spec:
              source: {repoURL: https://github.com/acme/fleet, path: '{{ .folder }}'}
              destination: {server: https://kubernetes.default.svc}
    """).lstrip("\n"))
    appset = analyze(disk_tree([tmp_path / "apps"], tmp_path), Config(), only=["image-digest"])
    assert [f.severity for f in appset.findings] == ["warning"]
    # a part of a repository with no root anywhere: applied as written, as before
    (tmp_path / "clusters" / "prod" / "apps.yaml").unlink()
    (tmp_path / "clusters" / "prod" / "flux-system" / "gotk-sync.yaml").unlink()
    alone = analyze(disk_tree([tmp_path / "apps"], tmp_path), Config(), only=["image-digest"])
    assert [f.severity for f in alone.findings] == ["error"]


def test_a_sync_kustomization_whose_path_is_not_in_the_linted_files_promises_no_error(
    tmp_path: Path
) -> None:
    """hmcts' apps/ linted alone: its flux-system Kustomization syncs ./clusters/sbox/00,
    a folder the linted files do not hold, whose build patches what apps/ holds."""
    write(tmp_path, {
        "flux-system/sync.yaml": (
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: flux-system, namespace: flux-system}\n"
            "spec: {path: ./clusters/sbox/00, sourceRef: {kind: GitRepository, name: config}}\n"),
        "web/web.yaml": FLOATING % "web",
    })
    [finding] = lint_dir(tmp_path, only=["image-digest"]).findings
    assert finding.severity == "warning"
    assert "could not see what Flux Kustomization flux-system (flux-system/sync.yaml) " \
        "applies from ./clusters/sbox/00, outside the linted files" in finding.message


def test_a_kustomization_named_as_a_source_of_another_repository_says_nothing_of_the_tree(
        tmp_path: Path) -> None:
    """AlinaNova21/home-ops: Kustomization agent-sandbox-crds builds ./charts/x/crds of its
    own GitRepository (helm charts of another repository). The tree's other Flux paths
    build here, so its files are this repository's top: that path is not "outside the
    linted files", and every error stays one."""
    write(tmp_path, {
        "kubernetes/ks.yaml": (
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: web, namespace: flux-system}\n"
            "spec: {path: ./kubernetes/app, sourceRef: {kind: GitRepository, name: home}}\n"),
        "kubernetes/app/web.yaml": FLOATING % "web",
        "kubernetes/ext/ks.yaml": (
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: other-crds, namespace: flux-system}\n"
            "spec: {path: ./charts/x/crds, sourceRef: {kind: GitRepository, name: other-crds}}\n"),
    })
    assert [f.severity for f in lint_dir(tmp_path, only=["image-digest"]).findings] == ["error"]


def test_a_test_fixtures_sync_kustomization_says_nothing_of_the_tree(tmp_path: Path) -> None:
    """argoproj/argo-cd keeps a Flux Kustomization podinfo (syncing ./kustomize from
    GitRepository podinfo) in a testdata folder: it made every error of the repository a
    warning about a folder the linted files lack."""
    write(tmp_path, {
        "pkg/actions/testdata/kustomization.yaml": (
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: podinfo, namespace: flux-system}\n"
            "spec: {path: ./kustomize, sourceRef: {kind: GitRepository, name: podinfo}}\n"),
        "web/web.yaml": FLOATING % "web",
    })
    assert [f.severity for f in lint_dir(tmp_path, only=["image-digest"]).findings] == ["error"]


# a Deployment meant for control-plane nodes: control-plane-resources' findings read the
# container they point into and the pod's own fields
PINNED = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps, labels: {domain: '${DOMAIN}'}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {node-role.kubernetes.io/control-plane: ""}
      tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists}]
      containers:
      - name: web
        image: "web:latest"
        args: ["--registry=${REGISTRY}"]
        resources: {requests: {cpu: 100m, memory: 1Gi}, limits: {cpu: "%s", memory: 1Gi}}
      - {name: proxy, image: "proxy:1", args: ["--host=${HOST}"]}
"""
SECRET_VALUES = ("  postBuild:\n"
                 "    substituteFrom:\n"
                 "    - {kind: Secret, name: cluster-secrets}\n")


def doubted(root: Path, files: dict[str, str]) -> dict[tuple[str, str], tuple[str, str]]:
    """(rule, container) -> (severity, message) of the image and control-plane findings of a
    Flux tree whose apps Kustomization substitutes from a Secret outside the repository."""
    write(root, {"clusters/prod/flux-system/gotk-sync.yaml": SYNC,
                 "clusters/prod/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
                 "clusters/prod/apps.yaml": APPS % ("./apps", "GitRepository", "flux-system")
                 + SECRET_VALUES, **files})
    result = lint_dir(root, only=["image-digest", "control-plane-resources"])
    assert len(result.model.unseen) == 1  # the app's variables are unseen
    return {(f.rule, re.findall(r"container (\w+)", f.message)[0]): (f.severity, f.message)
            for f in result.findings}


def test_a_value_kept_outside_the_repository_makes_its_errors_warnings(tmp_path: Path) -> None:
    """A variable whose value lives outside the repository makes a finding that depends on
    it a warning naming it and where it lives: the CPU limit is ${CPU_LIMIT}, so whether it
    is missing is not known."""
    found = doubted(tmp_path, {"apps/web.yaml": PINNED % "${CPU_LIMIT}"})
    severity, message = found[("control-plane-resources", "web")]
    assert severity == "warning"
    assert message.endswith(
        "Not certain: reviewbot could not see the value of ${CPU_LIMIT}, ${REGISTRY} (Secret "
        "flux-system/cluster-secrets (postBuild.substituteFrom, not in the repository or "
        "encrypted)).")


def test_a_variable_a_finding_does_not_depend_on_is_not_named(tmp_path: Path) -> None:
    """Only the variables of the fields a finding depends on are named: the container it
    points at and its pod's own fields, not the object's labels or another container; an
    image finding depends on the image reference alone, not the container's args. Variables
    in no such field leave the finding certain: an error, and no "could not see"."""
    found = doubted(tmp_path, {"apps/web.yaml": (PINNED % "1").replace(
        "limits: {cpu: \"1\", memory: 1Gi}", "limits: {memory: 1Gi}")})
    severity, message = found[("control-plane-resources", "web")]
    assert severity == "warning"  # its container's args hold ${REGISTRY}
    assert message.endswith("could not see the value of ${REGISTRY} (Secret flux-system/"
                            "cluster-secrets (postBuild.substituteFrom, not in the repository "
                            "or encrypted)).")
    severity, message = found[("image-digest", "web")]
    assert severity == "error"
    assert "could not see" not in message
    severity, message = found[("control-plane-resources", "proxy")]
    assert severity == "warning"  # its args hold ${HOST}; the object's label ${DOMAIN}: no
    assert "could not see the value of ${HOST} (Secret" in message


def test_a_chart_s_container_names_only_its_own_variables(tmp_path: Path) -> None:
    """Helm values: the container's finding names neither the variable of the ingress host
    beside it in the same values nor the one of its env (read by its process at run time,
    never by a check of its limits: new-user trial forty-three's releases turned warnings
    by `https://a.${SECRET_DOMAIN}` in their env); its image finding names neither."""
    found = doubted(tmp_path, {"apps/echo.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: echo, namespace: apps}
            spec:
              interval: 1h
              chart:
                spec:
                  chart: app-template
                  version: 3.0.0
                  sourceRef: {kind: HelmRepository, name: bjw-s}
              values:
                defaultPodOptions:
                  nodeSelector: {node-role.kubernetes.io/control-plane: ""}
                controllers:
                  main:
                    containers:
                      app:
                        image: {repository: ghcr.io/x/echo, tag: "1.0"}
                        env: {TZ: "${TIMEZONE}"}
                        resources: {limits: {memory: 1Gi}}
                ingress:
                  main:
                    hosts: [{host: "echo.${SECRET_DOMAIN}"}]
        """})
    severity, message = found[("control-plane-resources", "app")]
    assert (severity, "could not see" in message) == ("error", False)
    severity, message = found[("image-digest", "app")]
    assert (severity, "could not see" in message) == ("warning", False)  # unpinned: a warning


def test_a_release_s_dependency_does_not_depend_on_its_values_variables(
        tmp_path: Path) -> None:
    """Judge round BW: a HelmRelease depending on a release no cluster has was "Not certain"
    for a ${SECRET_DOMAIN} in its ingress values, which says nothing of its dependsOn. A
    dependency whose name holds the variable is not judged."""
    release = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: ingress, namespace: network}
        spec:
          interval: 1h
          dependsOn: [{name: DEPENDENCY}]
          chart:
            spec: {chart: ingress-nginx, version: 4.0.0,
                   sourceRef: {kind: HelmRepository, name: ingress-nginx}}
          values:
            controller: {extraArgs: {default-ssl-certificate: "network/${SECRET_DOMAIN}-tls"}}
    """
    for name, severity in (("cloudflared", "error"), ("cloudflared-${SECRET_DOMAIN}", "")):
        root = tmp_path / severity
        write(root, {"clusters/prod/flux-system/gotk-sync.yaml": SYNC,
                     "clusters/prod/flux-system/kustomization.yaml":
                         "resources: [gotk-sync.yaml]\n",
                     "clusters/prod/apps.yaml": APPS % ("./apps", "GitRepository",
                                                        "flux-system") + SECRET_VALUES,
                     "apps/ingress.yaml": release.replace("DEPENDENCY", name)})
        result = lint_dir(root, only=["kustomize-integrity"])
        assert [(f.kind, f.severity) for f in result.findings if f.kind == "dependency"] == (
            [("dependency", severity)] if severity else []), name  # (a name unseen: unjudged)


# an Argo CD Application: (name, source path, destination namespace)
APP = """
    apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: %s, namespace: argocd}
    spec:
      source: {repoURL: https://github.com/acme/fleet, path: %s}
      destination: {server: https://kubernetes.default.svc, namespace: %s}
"""


def test_argo_cd_app_of_apps_applies_its_folders_only(tmp_path: Path) -> None:
    write(tmp_path, {
        "root-app.yaml": APP % ("root", "argocd/apps", "argocd"),
        "argocd/apps/web.yaml": APP % ("web", "workloads/web", "web"),
        "workloads/web/web.yaml": FLOATING % "web",
        "workloads/old/old.yaml": FLOATING % "old",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "workloads/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "workloads/old/old.yaml")]


def test_an_application_a_root_s_kustomization_comments_out_is_disabled(tmp_path: Path) -> None:
    """Judge round BY: a root Application (`path: .`) builds the top kustomization, which lists
    `apps/*/application.yaml` and comments `# - apps/b/application.yaml` out to disable it;
    b's Application, nowhere else applied, was taken for one applied by hand, its manifests
    "errors". Commented out of a kustomization a root builds, it applies nothing."""
    write(tmp_path, {
        "bootstrap/root.yaml": APP % ("root", ".", "argocd"),
        "kustomization.yaml": "resources:\n  - apps/a/application.yaml\n"
                              "  # - apps/b/application.yaml\n",
        "apps/a/application.yaml": APP % ("a", "apps/a/manifests", "a"),
        "apps/b/application.yaml": APP % ("b", "apps/b/manifests", "b"),
        **{f"apps/{n}/manifests/{n}.yaml": FLOATING % n for n in ("a", "b")},
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result) if r != "kustomize-integrity[commented]"] == [
        ("image-digest[floating]", "apps/a/manifests/a.yaml"),
        ("kustomize-integrity[not-applied]", "apps/b/manifests/b.yaml")]


def test_an_app_of_apps_an_overlay_applies_disables_what_it_comments_out(
        tmp_path: Path) -> None:
    """Judge round DI (pnow-devsupreme/argo): the root Application sits in a base its staging
    overlay includes; its app of apps comments `# - b/application.yaml` out. b's Application
    was asked "applied by hand?" before the overlay's walk reached the app of apps, and its
    Job's schema error stood as an error. The overlay is walked first; b is disabled."""
    write(tmp_path, {
        "boot/base/kustomization.yaml": "resources: [root.yaml]\n",
        "boot/base/root.yaml": APP % ("root", "apps", "argocd"),
        "boot/staging/kustomization.yaml": "resources: [../base]\n",
        "apps/kustomization.yaml": "resources:\n  - a/application.yaml\n"
                                   "  # - b/application.yaml\n",
        "apps/a/application.yaml": APP % ("a", "workloads/a", "a"),
        "apps/b/application.yaml": APP % ("b", "workloads/b", "b"),
        **{f"workloads/{n}/{n}.yaml": FLOATING % n for n in ("a", "b")},
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result) if r != "kustomize-integrity[commented]"] == [
        ("image-digest[floating]", "workloads/a/a.yaml"),
        ("kustomize-integrity[not-applied]", "workloads/b/b.yaml")]


def test_an_application_a_kustomization_nothing_applies_comments_out_is_a_guess(
        tmp_path: Path) -> None:
    """Judge round DI: commented out of the kustomization of its folder's parent, which no
    root applies, an Application is at most applied by hand: its findings are warnings that
    say so."""
    write(tmp_path, {
        "apps/kustomization.yaml": "resources:\n  - cm.yaml\n  # - b/application.yaml\n",
        "apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: apps}\n",
        "apps/b/application.yaml": APP % ("b", "workloads/b", "b"),
        "workloads/b/b.yaml": FLOATING % "b",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(f.rule, f.severity, f.file) for f in result.findings] == [
        ("image-digest", "warning", "workloads/b/b.yaml")]
    assert ("apps/kustomization.yaml comments it out of its resources, and no root applies it"
            in result.findings[0].message)


def test_every_application_of_one_file_applied_by_hand_is_a_root(tmp_path: Path) -> None:
    write(tmp_path, {
        "argocd/apps.yaml": "---\n".join(APP % (n, f"apps/{n}", n) for n in ("a", "b", "c")),
        **{f"apps/{n}/{n}.yaml": FLOATING % n for n in ("a", "b", "c")},
        "apps/old/old.yaml": FLOATING % "old",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/a/a.yaml"),
        ("image-digest[floating]", "apps/b/b.yaml"),
        ("image-digest[floating]", "apps/c/c.yaml"),
        ("kustomize-integrity[not-applied]", "apps/old/old.yaml")]


def test_an_application_of_a_helm_repository_s_chart_beside_them_is_applied_too(
        tmp_path: Path) -> None:
    """A new-user trial: beside an Application of a folder (applied by hand: a root), one of
    a chart from a Helm repository was "not applied by any cluster root, so nothing in it is
    judged": it is applied as its neighbour is, and the values it gives the chart judged."""
    write(tmp_path, {
        "argocd/web.yaml": APP % ("web", "apps/web", "web"),
        "argocd/redis.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: redis, namespace: argocd}
            spec:
              project: default
              source:
                repoURL: https://charts.bitnami.com/bitnami
                chart: redis
                targetRevision: 19.0.0
                helm:
                  valuesObject:
                    image: {tag: latest}
              destination: {server: https://kubernetes.default.svc, namespace: redis}
            """,
        "apps/web/web.yaml": FLOATING % "web",
        "apps/old/old.yaml": FLOATING % "old",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, severity, f) for r, severity, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "apps/web/web.yaml"),
        ("image-digest[floating]", "error", "argocd/redis.yaml"),
        ("kustomize-integrity[not-applied]", "info", "apps/old/old.yaml")]


def test_a_flux_path_is_the_source_root_s_folder_before_a_nearer_one(tmp_path: Path) -> None:
    """A new-user trial: clusters/<env>/app.yaml's `path: ./<env>` is the top's <env>/, as
    kustomize-controller joins it to the repository's root; the nearer clusters/<env> was
    taken, so staging's failing build and the apps' images went unsaid (exit 0)."""
    files = {"base/kustomization.yaml": "resources: [web.yaml]\n",
             "base/web.yaml": FLOATING % "web",
             "prod/kustomization.yaml": "resources: [../base]\n",
             "staging/kustomization.yaml": "resources: [../base, missing.yaml]\n"}
    for env in ("prod", "staging"):
        files[f"clusters/{env}/flux-system/gotk-sync.yaml"] = SYNC.replace(
            "./clusters/prod", f"./clusters/{env}")
        files[f"clusters/{env}/app.yaml"] = APPS % (f"./{env}", "GitRepository", "flux-system")
    write(tmp_path, files)
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "base/web.yaml"),  # (prod's: staging's fails)
        ("kustomize-integrity[missing]", "error", "staging/kustomization.yaml")]


def test_a_chart_s_flux_kustomization_templates_root_a_tree_with_no_other_root(
        tmp_path: Path) -> None:
    """lynh7/home-cluster: a chart installed by hand holds the cluster's Flux Kustomizations
    as plain templates; one app's is commented out, another's was never written. With no
    other root the tree was applied as written, and both apps' :latest images were errors;
    the chart's Kustomizations are the roots, and what they do not apply is not."""
    write(tmp_path, {
        "cicd/fluxcd/Chart.yaml": "apiVersion: v2\nname: fluxcd\nversion: 1.0.0\n",
        "cicd/fluxcd/values.yaml": "{}\n",
        "cicd/fluxcd/templates/web.yaml": (APPS % ("./apps/web", "GitRepository", "flux-system")
                                           ).replace("name: apps,", "name: web,"),
        "cicd/fluxcd/templates/game.yaml": "".join(
            "# " + line + "\n" for line in (APPS % ("./apps/game", "GitRepository", "x")
                                            ).strip().splitlines()),
        "apps/web/web.yaml": FLOATING % "web",
        "apps/game/game.yaml": FLOATING % "game",
        "apps/wiki/wiki.yaml": FLOATING % "wiki",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, severity, f) for r, severity, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "apps/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "info", "apps/game/game.yaml"),
        ("kustomize-integrity[not-applied]", "info", "apps/wiki/wiki.yaml")]


def test_an_argo_cd_folder_applies_its_own_files_unless_it_recurses(tmp_path: Path) -> None:
    recursing = (APP % ("deep", "apps/deep", "deep")).replace(
        "path: apps/deep}", "path: apps/deep, directory: {recurse: true, "
        "exclude: '{sub/skip.yaml,*.json}'}}")
    write(tmp_path, {
        "argocd/apps.yaml": APP % ("top", "apps/top", "top") + "---\n" + recursing,
        **{f"apps/{a}/{f}.yaml": FLOATING % f"{a}-{f}"
           for a in ("top", "deep") for f in ("web", "sub/inner", "sub/skip")},
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/deep/sub/inner.yaml"),
        ("image-digest[floating]", "apps/deep/web.yaml"),
        ("image-digest[floating]", "apps/top/web.yaml"),
        ("kustomize-integrity[not-applied]", "apps/deep/sub/skip.yaml"),  # excluded
        ("kustomize-integrity[not-applied]", "apps/top/sub/inner.yaml")]  # apps/top/sub


def test_an_argo_cd_directory_source_reads_its_files_as_written_kustomizations_or_not(
        tmp_path: Path) -> None:
    """Argo CD runs no kustomize for a directory source: a source that names ``directory``
    (its one type, ApplicationSource.ExplicitType, once the controller's NormalizeSource
    dropped the types written empty) applies its folder's files as written, a
    kustomization there or not, and a recursing one reads every file below, a folder with
    its own kustomization too (reposerver's findManifests). Each folder here pins the
    floating image in its kustomization's ``images``: only what kustomize builds is pinned."""
    pinned = "resources: [web.yaml]\nimages: [{name: web, digest: 'sha256:%s'}]\n" % ("a" * 64)
    apps = [APP % (name, f"apps/{name}", name) for name in ("built", "empty", "named", "deep")]
    apps[1] = apps[1].replace("path: apps/empty}", "path: apps/empty, directory: {}}")
    apps[2] = apps[2].replace("path: apps/named}", "path: apps/named, directory: "
                              "{include: '*.yaml'}}")
    apps[3] = apps[3].replace("path: apps/deep}", "path: apps/deep, directory: {recurse: true}}")
    write(tmp_path, {
        "argocd/apps.yaml": "---\n".join(apps),
        **{f"apps/{a}/kustomization.yaml": pinned for a in ("built", "empty", "named")},
        **{f"apps/{a}/web.yaml": FLOATING % a for a in ("built", "empty", "named")},
        "apps/deep/sub/kustomization.yaml": pinned,
        "apps/deep/sub/web.yaml": FLOATING % "deep",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/deep/sub/web.yaml"),  # below, read as written
        ("image-digest[floating]", "apps/named/web.yaml")]  # `directory` names its type


def test_an_applicationset_git_directories_generator_applies_each_folder(
    tmp_path: Path,
) -> None:
    write(tmp_path, {
        "appset.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: apps, namespace: argocd}
            spec:
              generators:
              - git:
                  repoURL: https://github.com/acme/fleet
                  directories:
                  - {path: apps/*}
                  - {path: apps/skip, exclude: true}
              template:
                metadata: {name: '{{path.basename}}'}
                spec:
                  source: {repoURL: https://github.com/acme/fleet, path: '{{path}}'}
                  destination: {server: https://kubernetes.default.svc}
        """,
        "apps/web/web.yaml": FLOATING % "web",
        "apps/skip/skip.yaml": FLOATING % "skip",
        # Go's path.Match: `*` stays in one segment, so apps/web/api is no Application of
        # its own (Tiagura/k8s-gitops: phantom Applications in namespaces nobody creates)
        "apps/web/api/api.yaml": FLOATING % "api",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "apps/skip/skip.yaml"),
        ("kustomize-integrity[not-applied]", "apps/web/api/api.yaml")]


def test_an_argo_cd_destination_namespace_goes_only_where_an_object_sets_none(
    tmp_path: Path,
) -> None:
    # "The namespace will only be set for namespace-scoped resources that have not set a
    # value for .metadata.namespace" (Argo CD's ApplicationDestination); Flux's
    # targetNamespace moves every one
    write(tmp_path, {
        "argocd/web.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: web, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/fleet, path: apps/web}
              destination: {server: https://kubernetes.default.svc, namespace: web}
        """,
        "apps/web/own.yaml": FLOATING % "own",
        "apps/web/none.yaml": FLOATING.replace(", namespace: apps", "") % "none",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(f, o) for _, _, f, o in found(result)] == [
        ("apps/web/none.yaml", "Deployment/web/none"), ("apps/web/own.yaml", "Deployment/apps/own")]


def test_an_applicationset_git_files_generator_applies_what_each_file_names(
    tmp_path: Path,
) -> None:
    # edgard/home-ops' shape: one app.yaml per app, goTemplate, the namespace from a path
    # segment, the manifests folder through a directory include; each item of a config
    # that is a list gives parameters
    write(tmp_path, {
        "argocd/appset.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: apps, namespace: argocd}
            spec:
              goTemplate: true
              generators:
              - git:
                  repoURL: https://github.com/acme/fleet
                  files:
                  - path: "apps/*/*/app.yaml"
                  values: {repoURL: https://github.com/acme/fleet}
              template:
                metadata: {name: '{{ .path.basenameNormalized }}'}
                spec:
                  sources:
                  - repoURL: "{{ .values.repoURL }}"
                    path: "{{ .path.path }}/{{ .layout.folder }}"
                    directory: {recurse: true, include: "*.yaml"}
                  destination:
                    server: https://kubernetes.default.svc
                    namespace: "{{ index .path.segments 1 }}"
        """,
        "apps/media/plex/app.yaml": "layout: {folder: manifests}\n",
        "apps/media/plex/manifests/web.yaml": FLOATING % "plex",  # its own namespace kept
        "apps/media/plex/values.yaml": "image: {tag: latest}\n",
        "apps/media/deep/er/app.yaml": "layout: {folder: manifests}\n",  # not */*/app.yaml
        "apps/media/deep/er/manifests/web.yaml": FLOATING % "deeper",
        "apps/tools/kit/app.yaml": "- layout: {folder: one}\n- layout: {folder: two}\n",
        "apps/tools/kit/one/a.yaml": FLOATING.replace(", namespace: apps", "") % "a",
        "apps/tools/kit/two/b.yaml": FLOATING.replace(", namespace: apps", "") % "b",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f, o) for r, _, f, o in found(result)] == [
        ("image-digest[floating]", "apps/media/plex/manifests/web.yaml",
         "Deployment/apps/plex"),
        ("image-digest[floating]", "apps/tools/kit/one/a.yaml", "Deployment/tools/a"),
        ("image-digest[floating]", "apps/tools/kit/two/b.yaml", "Deployment/tools/b"),
        ("kustomize-integrity[not-applied]", "apps/media/deep/er/manifests/web.yaml", "")]
    roots = result.model.derived["reach"].roots
    assert [(r.how, r.path) for r in roots] == [
        ("Argo CD", "apps/media/plex/manifests"), ("Argo CD", "apps/tools/kit/one"),
        ("Argo CD", "apps/tools/kit/two")]


def test_an_applicationset_reads_the_json_files_its_files_generator_names(
    tmp_path: Path,
) -> None:
    # Argo CD's documented shape (fasttemplate): keys flattened with dots; `**` any folders
    write(tmp_path, {
        "appset.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: guestbook, namespace: argocd}
            spec:
              generators:
              - git:
                  repoURL: https://github.com/acme/fleet
                  files: [{path: "cluster-config/**/config.json"}]
              template:
                metadata: {name: '{{cluster.name}}-guestbook'}
                spec:
                  source: {repoURL: https://github.com/acme/fleet, path: 'apps/{{app.folder}}'}
                  destination: {server: '{{cluster.address}}', namespace: '{{path.basename}}'}
        """,
        "cluster-config/engineering/dev/config.json":
            '{"cluster": {"name": "dev", "address": "https://1.2.3.4"}, "app": {"folder": "web"}}',
        "package.json": '{"name": "tools"}',
        "apps/web/web.yaml": FLOATING.replace(", namespace: apps", "") % "web",
        "apps/old/old.yaml": FLOATING % "old",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f, o) for r, _, f, o in found(result)] == [
        ("image-digest[floating]", "apps/web/web.yaml", "Deployment/dev/web"),
        ("kustomize-integrity[not-applied]", "apps/old/old.yaml", "")]
    assert "package.json" not in result.model.files  # no generator names it: not read


def test_an_applicationset_list_element_s_values_are_values_parameters(
    tmp_path: Path,
) -> None:
    # Argo CD's list generator gives an element's `values` map as `values.key`
    # (redhat-na-ssa's catalog: `- values: {name: web, path: apps/web}`, `'{{values.path}}'`)
    write(tmp_path, {
        "appset.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: apps, namespace: argocd}
            spec:
              generators:
              - list:
                  elements:
                  - values: {name: web, path: apps/web}
                  - {cluster: home, folder: apps/api}
              template:
                metadata: {name: '{{values.name}}'}
                spec:
                  source: {repoURL: https://github.com/acme/fleet, path: '{{values.path}}'}
                  destination: {server: https://kubernetes.default.svc}
        """,
        "apps/web/web.yaml": FLOATING % "web",
        "apps/api/api.yaml": FLOATING % "api",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "apps/api/api.yaml")]  # no `values.path`


def test_an_applicationset_generator_s_selector_leaves_out_what_it_does_not_match(
        tmp_path: Path) -> None:
    # mmalyska/home-ops' shape: each app's config says `enabled: "true"` or "false", and
    # the generator's post-selector keeps the enabled ones (Argo CD's Transform matches it
    # against the set's text values; with goTemplate a YAML boolean is no text: not matched)
    write(tmp_path, {
        "appset.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: apps, namespace: argocd}
            spec:
              goTemplate: true
              generators:
              - git:
                  repoURL: https://github.com/acme/fleet
                  files: [{path: "apps/*/config.yaml"}]
                selector:
                  matchExpressions: [{key: enabled, operator: In, values: ["true"]}]
              template:
                metadata: {name: '{{ .path.basename }}'}
                spec:
                  source: {repoURL: https://github.com/acme/fleet, path: '{{ .path.path }}/app'}
                  destination: {server: https://kubernetes.default.svc}
        """,
        "apps/web/config.yaml": 'enabled: "true"\n',
        "apps/web/app/web.yaml": FLOATING % "web",
        "apps/old/config.yaml": 'enabled: "false"\n',
        "apps/old/app/old.yaml": FLOATING % "old",
        "apps/bool/config.yaml": "enabled: true\n",
        "apps/bool/app/bool.yaml": FLOATING % "bool",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/web/app/web.yaml"),
        ("kustomize-integrity[not-applied]", "apps/bool/app/bool.yaml"),
        ("kustomize-integrity[not-applied]", "apps/old/app/old.yaml")]


MATRIX = """
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: apps, namespace: argocd}
spec:
  generators:
  - matrix:
      generators:
      - git:
          repoURL: https://github.com/acme/fleet
          directories: [{path: apps/*}]
      - list:
          elements:
          - {cluster: prod, url: https://prod.example.com}
          - {cluster: lab, url: https://lab.example.com}
        selector: {matchLabels: {cluster: prod}}
  template:
    metadata: {name: '{{path.basename}}-{{cluster}}'}
    spec:
      source: {repoURL: https://github.com/acme/fleet, path: '{{path}}'}
      destination: {server: '{{url}}'}
"""


def test_an_applicationset_matrix_of_static_generators_applies_each_combination(
        tmp_path: Path) -> None:
    # Argo CD's matrix generator: every combination of its two children's parameter sets
    # (a git directory generator and a list of clusters, a child's selector applied)
    write(tmp_path, {
        "appset.yaml": MATRIX,
        "apps/web/web.yaml": FLOATING % "web",
        "other/x.yaml": FLOATING % "x",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "other/x.yaml")]
    roots = result.model.derived["reach"].roots
    assert [(r.cluster, r.path) for r in roots] == [("https://prod.example.com", "apps/web")]


CLUSTER_SECRET = """
apiVersion: v1
kind: Secret
metadata:
  name: %(name)s
  namespace: argocd
  labels: {argocd.argoproj.io/secret-type: cluster, environment: %(env)s}
stringData: {name: %(name)s, server: "%(server)s"}
"""
ROOT_APP = """
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %(name)s, namespace: argocd}
spec:
  source: {repoURL: https://github.com/acme/fleet, path: %(path)s}
  destination: {server: https://kubernetes.default.svc}
"""


def _cluster_appset(generator: str) -> dict[str, str]:
    """A root Application applying argocd/: an Application applying the cluster Secrets
    of clusters/, and an ApplicationSet of ``generator`` applying apps/web to each."""
    return {
        "root.yaml": ROOT_APP % {"name": "root", "path": "argocd"},
        "argocd/clusters.yaml": ROOT_APP % {"name": "clusters", "path": "clusters"},
        "argocd/appset.yaml": f"""
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {{name: apps, namespace: argocd}}
            spec:
              goTemplate: true
              generators:
              - {generator}
              template:
                metadata: {{name: 'web-{{{{.nameNormalized}}}}'}}
                spec:
                  source: {{repoURL: https://github.com/acme/fleet, path: 'apps/{{{{.app}}}}'}}
                  destination: {{server: '{{{{.server}}}}'}}
        """,
        "apps/web/web.yaml": FLOATING % "web",
    }


@pytest.mark.parametrize("selector, expected", [
    # Tim275/talos-homelab (judge round DF): a matrix of the clusters whose Secrets carry
    # `environment: prod` and a list of apps; the repository's own Secret declares the one,
    # Argo CD's own cluster, and names it `prod` (trial sixty-five: not `in-cluster`)
    ("{matchLabels: {environment: prod}}", ["prod"]),
    # no selector: every cluster Secret (Argo CD's own is one of them here), each by its name
    ("{}", ["lab", "prod"]),
])
def test_a_cluster_generator_makes_one_parameter_set_per_cluster_secret(
        tmp_path: Path, selector: str, expected: list[str]) -> None:
    """Argo CD's cluster generator (applicationset/generators/cluster.go): the Secrets
    labelled `argocd.argoproj.io/secret-type: cluster` its selector matches give `name`,
    `server`, `metadata.labels.KEY`; the local cluster is one only without a selector."""
    write(tmp_path, {
        **_cluster_appset(f"matrix: {{generators: [{{clusters: {{selector: {selector}}}}}, "
                          "{list: {elements: [{app: web}]}}]}"),
        "clusters/prod.yaml": CLUSTER_SECRET % {
            "name": "prod", "env": "prod", "server": "https://kubernetes.default.svc"},
        "clusters/lab.yaml": CLUSTER_SECRET % {
            "name": "lab", "env": "lab", "server": "https://lab.example.com:6443"},
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/web/web.yaml")]
    reach = result.model.derived["reach"]
    assert sorted(reach.generated_clusters[("argocd/appset.yaml", "apps")]["apps/web"]) == (
        expected)


def test_a_cluster_generator_whose_secrets_the_repository_lacks_promises_nothing(
        tmp_path: Path) -> None:
    """Clusters registered with `argocd cluster add` have no Secret here: a selector no
    Secret of the tree matches makes Applications reviewbot cannot see."""
    write(tmp_path, {
        **_cluster_appset("clusters: {selector: {matchLabels: {environment: prod}}, "
                          "values: {app: web}}"),
        "clusters/lab.yaml": CLUSTER_SECRET % {
            "name": "lab", "env": "lab", "server": "https://lab.example.com:6443"},
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f, s) for r, s, f, _ in found(result)] == [
        ("kustomize-integrity[not-applied]", "apps/web/web.yaml", "info")]
    assert "ApplicationSet apps in argocd/appset.yaml makes Applications with a clusters " \
        "generator" in next(f.message for f in result.findings)


def test_a_matrix_child_reads_the_first_child_s_parameters(tmp_path: Path) -> None:
    # "the child generator that consumes the parameters must come after the one that
    # produces them": the second child's git files path names the first's element
    write(tmp_path, {
        "appset.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: apps, namespace: argocd}
            spec:
              goTemplate: true
              generators:
              - matrix:
                  generators:
                  - list: {elements: [{env: prod}]}
                  - git:
                      repoURL: https://github.com/acme/fleet
                      files: [{path: "envs/{{ .env }}/*.yaml"}]
                      pathParamPrefix: app
              template:
                metadata: {name: '{{ .name }}-{{ .env }}'}
                spec:
                  source: {repoURL: https://github.com/acme/fleet,
                           path: '{{ .app.path.path }}/{{ .name }}'}
                  destination: {server: https://kubernetes.default.svc}
        """,
        "envs/prod/web.yaml": "name: web\n",
        "envs/prod/web/web.yaml": FLOATING % "web",
        "envs/lab/api.yaml": "name: api\n",
        "envs/lab/api/api.yaml": FLOATING % "api",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "envs/prod/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "envs/lab/api/api.yaml")]


@pytest.mark.parametrize("revision", [
    '{{ if hasKey . "targetRevision" }}{{ .targetRevision }}{{ else }}main{{ end }}',
    '{{- if hasKey . "targetRevision" -}}{{ .targetRevision }}{{- else -}}HEAD{{- end -}}',
    '{{ .targetRevision | default "main" }}', '{{ default "HEAD" .targetRevision }}'])
def test_an_applicationset_s_default_revision_idiom_reads_the_default_branch(
        tmp_path: Path, revision: str) -> None:
    """Judge round CI (proompteng/lab): `targetRevision: '{{ if hasKey . "targetRevision"
    }}{{ .targetRevision }}{{ else }}main{{ end }}'`, the element setting none: the default
    branch, the tree read; every finding of its Applications was "Not certain: ... reads
    revision {{ if hasKey ...". Go templates' `if hasKey`/`else` and sprig's `default` are
    evaluated on the element's parameters."""
    write(tmp_path, {
        "appset.yaml": f"""
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {{name: apps, namespace: argocd}}
            spec:
              goTemplate: true
              generators:
              - list: {{elements: [{{name: web}}, {{name: api, targetRevision: v2}}]}}
              template:
                metadata: {{name: '{{{{ .name }}}}'}}
                spec:
                  source: {{repoURL: https://github.com/acme/fleet, path: 'apps/{{{{ .name }}}}',
                           targetRevision: '{revision}'}}
                  destination: {{server: https://kubernetes.default.svc}}
        """,
        "apps/web/web.yaml": FLOATING % "web",
        "apps/api/api.yaml": FLOATING % "api",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(f.file, f.severity, "reads revision v2" in f.message) for f in result.findings] == [
        ("apps/api/api.yaml", "warning", True), ("apps/web/web.yaml", "error", False)]


def test_an_application_in_a_folder_its_applicationset_leaves_out_is_not_applied_by_hand(
        tmp_path: Path) -> None:
    # wontlost-ltd/k3s (judge round AU): apps/infrastructure/<name>/application.yaml, each
    # applied by the Application a list generator makes for its folder; kube-system's element
    # was deleted with its ApplicationSet, so its Application is applied by no one (it was
    # taken for a root applied by hand: a false missing-file error)
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: %s, namespace: argocd}
        spec:
          source: {repoURL: https://github.com/acme/fleet, path: apps/infrastructure/%s/manifests}
          destination: {server: https://kubernetes.default.svc}
    """
    write(tmp_path, {
        "argocd/appset.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: platform, namespace: argocd}
            spec:
              goTemplate: true
              generators:
              - list: {elements: [{name: monitoring}]}
              template:
                metadata: {name: 'platform-{{ .name }}'}
                spec:
                  source: {repoURL: https://github.com/acme/fleet,
                           path: 'apps/infrastructure/{{ .name }}'}
                  destination: {server: https://kubernetes.default.svc}
        """,
        "apps/infrastructure/monitoring/application.yaml": app % ("monitoring", "monitoring"),
        "apps/infrastructure/monitoring/manifests/web.yaml": FLOATING % "grafana",
        "apps/infrastructure/kube-system/application.yaml": app % ("kube-system", "kube-system"),
        "apps/infrastructure/kube-system/manifests/kustomization.yaml": "resources: [gone.yaml]\n",
        "apps/infrastructure/kube-system/manifests/web.yaml": FLOATING % "old",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "apps/infrastructure/monitoring/manifests/web.yaml"),
        ("kustomize-integrity[not-applied]", "info",
         "apps/infrastructure/kube-system/application.yaml")]


def test_an_applicationset_merge_generator_overrides_by_its_merge_keys(
        tmp_path: Path) -> None:
    # Argo CD's merge generator: the first child's sets, each overridden by a later
    # child's set with the same values of the merge keys (the later one's fields win)
    write(tmp_path, {
        "appset.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: apps, namespace: argocd}
            spec:
              generators:
              - merge:
                  mergeKeys: [app]
                  generators:
                  - list:
                      elements: [{app: web, folder: apps/web}, {app: api, folder: apps/api}]
                  - list:
                      elements: [{app: web, folder: apps/web-v2}, {app: db, folder: apps/db}]
              template:
                metadata: {name: '{{app}}'}
                spec:
                  source: {repoURL: https://github.com/acme/fleet, path: '{{folder}}'}
                  destination: {server: https://kubernetes.default.svc}
        """,
        "apps/web/web.yaml": FLOATING % "web",
        "apps/web-v2/web.yaml": FLOATING % "web2",
        "apps/api/api.yaml": FLOATING % "api",
        "apps/db/db.yaml": FLOATING % "db",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/api/api.yaml"),
        ("image-digest[floating]", "apps/web-v2/web.yaml"),
        ("kustomize-integrity[not-applied]", "apps/db/db.yaml"),
        ("kustomize-integrity[not-applied]", "apps/web/web.yaml")]


def test_a_matrix_argo_cd_refuses_to_evaluate_promises_nothing_of_what_it_may_apply(
        tmp_path: Path) -> None:
    # without goTemplate two children giving one parameter different values fail the
    # generator (CombineStringMaps): no Application is certain, none is ruled out
    write(tmp_path, {
        "appset.yaml": MATRIX.replace("{cluster: lab,", "{path: elsewhere, cluster: lab,"
                                      ).replace("selector: {matchLabels: {cluster: prod}}",
                                                "selector: {}"),
        "argocd/root.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: root, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/fleet, path: root}
              destination: {server: https://kubernetes.default.svc}
        """,
        "root/web.yaml": FLOATING % "root",
        "apps/web/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "root/web.yaml"),
        ("kustomize-integrity[not-applied]", "info", "apps/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "info", "appset.yaml")]  # (applied by hand?)
    assert "ApplicationSet apps in appset.yaml makes Applications with a matrix generator" in (
        next(f.message for f in result.findings if f.file == "apps/web/web.yaml"))


def test_a_folder_an_unevaluated_generator_may_apply_is_said_unseen(tmp_path: Path) -> None:
    # JamesAtIntegratnIO/gitops_homelab_2_0: an ApplicationSet whose clusters generator
    # names the paths (cluster Secrets' annotations): "not applied" was stated as a fact
    write(tmp_path, {
        "bootstrap/addons.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: addons, namespace: argocd}
            spec:
              generators:
              - clusters: {selector: {matchLabels: {role: control-plane}}}
              template:
                metadata: {name: '{{name}}-addons'}
                spec:
                  source: {repoURL: https://github.com/acme/fleet,
                           path: '{{metadata.annotations.addons_path}}'}
                  destination: {server: '{{server}}'}
        """,
        "argocd/root.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: root, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/fleet, path: apps/root}
              destination: {server: https://kubernetes.default.svc}
        """,
        "apps/root/web.yaml": FLOATING % "root",
        "addons/dashboard/web.yaml": FLOATING % "dashboard",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [f.file for f in result.findings] == [
        "addons/dashboard/web.yaml", "bootstrap/addons.yaml"]  # (applied by Terraform)
    assert result.findings[0].message == (
        "addons (1 manifest file) is not applied by any cluster root reviewbot follows "
        "(ApplicationSet addons in bootstrap/addons.yaml makes Applications with a clusters "
        "generator, which reviewbot does not evaluate: they may apply it), so nothing in it is "
        "judged")


def test_a_folder_an_applicationset_s_template_patch_may_apply_is_said_unseen(
        tmp_path: Path) -> None:
    # mmalyska/home-ops (judge round AL): each Application's source is set in the
    # ApplicationSet's templatePatch, a Go template; 497 files were flatly "not applied"
    write(tmp_path, {
        "cluster/appsets/ai.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: appset-ai, namespace: argocd}
            spec:
              goTemplate: true
              generators:
              - git: {repoURL: https://github.com/acme/fleet, revision: main,
                      files: [{path: cluster/apps/ai/*/app-config.yaml}]}
              template:
                metadata: {name: '{{.path.basename}}'}
                spec:
                  destination: {server: https://kubernetes.default.svc}
              templatePatch: |
                spec:
                  source:
                    repoURL: https://github.com/acme/fleet
                    path: '{{.path.path}}'
        """,
        "cluster/root.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: root, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/fleet, path: cluster/appsets}
              destination: {server: https://kubernetes.default.svc}
        """,
        "cluster/apps/ai/coder/app-config.yaml": "enabled: 'true'\n",
        "cluster/apps/ai/coder/web.yaml": FLOATING % "coder",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [f.message for f in result.findings] == [
        "cluster/apps (1 manifest file) is not applied by any cluster root reviewbot follows "
        "(ApplicationSet appset-ai in cluster/appsets/ai.yaml makes Applications through a "
        "templatePatch, which reviewbot does not evaluate: they may apply it), so nothing in "
        "it is judged"]


def test_an_application_in_a_folder_an_applicationset_may_generate_is_not_applied_by_hand(
        tmp_path: Path) -> None:
    """small-hack/argocd-apps (judge round AN): an ApplicationSet whose plugin generator
    names the storage provider applies zitadel/storage/{{ .zitadel_s3_provider }}/; the
    Application in the minio folder is that ApplicationSet's to apply (if its parameter says
    minio), not a root applied by hand: its Job's untagged image was an error."""
    write(tmp_path, {
        "zitadel/app_of_apps/s3.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: zitadel-s3-provider, namespace: argocd}
            spec:
              goTemplate: true
              generators:
              - plugin:
                  configMapRef: {name: secret-var-plugin-generator}
                  input: {parameters: {secret_vars: [zitadel_s3_provider]}}
              template:
                metadata: {name: 'zitadel-{{ .zitadel_s3_provider }}'}
                spec:
                  source: {repoURL: https://github.com/acme/apps,
                           path: 'zitadel/storage/{{ .zitadel_s3_provider }}/'}
                  destination: {server: https://kubernetes.default.svc, namespace: zitadel}
        """,
        "zitadel/storage/minio/setup_app.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: minio-setup, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/apps,
                       path: zitadel/storage/minio/setup}
              destination: {server: https://kubernetes.default.svc, namespace: zitadel}
        """,
        "zitadel/storage/minio/setup/job.yaml": FLOATING % "setup",
        "root.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: root, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/apps, path: apps}
              destination: {server: https://kubernetes.default.svc}
        """,
        "apps/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(f.file, f.severity) for f in result.findings if f.rule == "image-digest"] == [
        ("apps/web.yaml", "error")]
    assert [f.message for f in result.findings if f.rule == "kustomize-integrity"] == [
        "zitadel (3 manifest files) is not applied by any cluster root reviewbot follows "
        "(ApplicationSet zitadel-s3-provider in zitadel/app_of_apps/s3.yaml makes Applications "
        "with a plugin generator, which reviewbot does not evaluate: they may apply it), so "
        "nothing in it is judged"]


def test_an_application_applied_by_hand_in_a_folder_of_demos_is_not_certain(
        tmp_path: Path) -> None:
    """small-hack/argocd-apps (judge round AN): demo/'s readme says its apps are "in
    testing/development and not ready for deployment"; nothing applies their Applications,
    so they were roots applied by hand, their untagged images errors. Beside the roots of
    the repository, an Application no root applies in a folder of demos or trials is a
    guess: its findings are warnings that say so."""
    write(tmp_path, {
        "root.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: root, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/apps, path: apps}
              destination: {server: https://kubernetes.default.svc}
        """,
        "apps/web.yaml": FLOATING % "web",
        "demo/hello/app.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: hello, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/apps, path: demo/hello/manifests}
              destination: {server: https://kubernetes.default.svc, namespace: hello}
        """,
        "demo/hello/manifests/deploy.yaml": FLOATING % "hello",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(f.file, f.severity) for f in result.findings] == [
        ("apps/web.yaml", "error"), ("demo/hello/manifests/deploy.yaml", "warning")]
    assert result.findings[1].message.endswith(
        "Not certain: reviewbot could not see whether anyone applies demo/hello/app.yaml by "
        "hand: it lies in demo/, a folder of demos or trials, and no root of the repository "
        "applies it.")


def test_an_application_beside_the_one_a_script_bootstraps_is_not_certain(
        tmp_path: Path) -> None:
    """triplom/infrastructure-repo-argocd (judge round CW): its Makefile, README and CI apply
    argocd/root.yaml alone; an older Application beside it, which nothing applies, made an
    error of a Deployment no cluster receives. Argo CD reconciles the Applications the
    cluster has: where the repository's scripts apply some by name, one they do not is a
    guess. A script applying the whole folder applies both."""
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: %s, namespace: argocd}
        spec:
          source: {repoURL: https://github.com/acme/apps, path: %s}
          destination: {server: https://kubernetes.default.svc, namespace: default}
    """
    files = {"argocd/root.yaml": app % ("root", "apps"), "apps/web.yaml": FLOATING % "web",
             "argocd/stray.yaml": app % ("infrastructure", "infra"),
             "infra/monitoring.yaml": FLOATING % "monitoring"}
    write(tmp_path / "one", {**files, "Makefile": "bootstrap:\n\tkubectl apply -f "
                                                  "argocd/root.yaml\n"})
    result = lint_dir(tmp_path / "one", only=["image-digest"])
    assert [(f.file, f.severity) for f in result.findings] == [
        ("apps/web.yaml", "error"), ("infra/monitoring.yaml", "warning")]
    assert result.findings[1].message.endswith(
        "Not certain: reviewbot could not see whether anything applies the Application in "
        "argocd/stray.yaml: the repository's Makefile applies argocd/root.yaml, not it.")
    write(tmp_path / "all", {**files, "Makefile": "bootstrap:\n\tkubectl apply -f argocd/\n"})
    assert [(f.file, f.severity) for f in lint_dir(
        tmp_path / "all", only=["image-digest"]).findings] == [
        ("apps/web.yaml", "error"), ("infra/monitoring.yaml", "error")]
    # so does a script whose variable names the file, its default one of them (judge round
    # BS: ADORSYS-GIS/fineract-gitops' deploy-app-of-apps.sh applies each environment's)
    write(tmp_path / "each", {**files, "scripts/deploy.sh": (
        'ENV=${ENV:-root}\nkubectl apply -f "$REPO_ROOT/argocd/$ENV.yaml"\n'
        'kubectl apply -f "argocd/${ENV}/"\n')})
    assert [(f.file, f.severity) for f in lint_dir(
        tmp_path / "each", only=["image-digest"]).findings] == [
        ("apps/web.yaml", "error"), ("infra/monitoring.yaml", "error")]


def test_a_chart_default_only_a_guessed_application_leaves_is_not_certain(
        tmp_path: Path) -> None:
    """tzervas/self-hosted-ai (judge round DA): the bootstrap applies the app of apps alone;
    two Applications left beside it, which nothing applies, render the repository's charts
    with their defaults, `tag: latest` among them, which the Application the root delivers
    sets over. The finding of the chart's default holds only through the guesses: a
    warning that says so (it was an error). A value no consumer sets stays an error."""
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: %s, namespace: argocd}
        spec:
          source: {repoURL: https://github.com/acme/apps, path: %s%s}
          destination: {server: https://kubernetes.default.svc, namespace: web}
    """
    values = "image:\n  repository: nginx\n  tag: latest\n"
    write(tmp_path, {
        "scripts/bootstrap.sh": "kubectl apply -f argocd/root.yaml\n",
        "argocd/root.yaml": app % ("root", "argocd/apps", ""),
        "argocd/apps/web.yaml": app % (
            "web", "charts/web", ", helm: {parameters: [{name: image.tag, value: '1.27'}]}"),
        "argocd/legacy-web.yaml": app % ("legacy-web", "charts/web", ""),
        "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
        "charts/web/values.yaml": values,
        "charts/web/templates/deployment.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
            "  template:\n    spec:\n      containers:\n      - name: web\n"
            "        image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n")})
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(f.file, f.line, f.severity) for f in result.findings] == [
        ("charts/web/values.yaml", 3, "warning")]
    assert result.findings[0].message.endswith(
        "Not certain: reviewbot could not see whether anything applies the Application in "
        "argocd/legacy-web.yaml: the repository's scripts/bootstrap.sh applies "
        "argocd/root.yaml, not it.")
    write(tmp_path, {"argocd/apps/web.yaml": app % ("web", "charts/web", "")})
    assert [(f.file, f.line, f.severity) for f in lint_dir(
        tmp_path, only=["image-digest"]).findings] == [("charts/web/values.yaml", 3, "error")]


def test_an_applicationset_generating_applications_declared_apart_is_not_certain(
        tmp_path: Path) -> None:
    """ADORSYS-GIS/fineract-gitops (judge round BC): the per-environment Applications are
    applied (by hand, their folders by a script); an ApplicationSet beside them, applied by
    nothing, generates Applications of the same names (a transition its documentation says
    "you would apply"): one Argo CD keeps one Application of a name, so applying it by hand
    is a guess, and what it alone applies gives warnings that say so."""
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: web-%s, namespace: argocd}
        spec:
          source: {repoURL: https://github.com/acme/apps, path: envs/%s}
          destination: {server: https://kubernetes.default.svc, namespace: web}
    """
    write(tmp_path, {
        "argocd/dev/web.yaml": app % ("dev", "dev"),
        "argocd/prod/web.yaml": app % ("prod", "production"),
        "argocd/web-set.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: web, namespace: argocd}
            spec:
              generators:
              - list: {elements: [{env: dev}, {env: staging}]}
              template:
                metadata: {name: 'web-{{env}}'}
                spec:
                  source: {repoURL: https://github.com/acme/apps, path: 'envs/{{env}}'}
                  destination: {server: https://kubernetes.default.svc, namespace: web}
        """,
        "envs/dev/web.yaml": FLOATING % "dev",
        "envs/production/web.yaml": FLOATING % "prod",
        "envs/staging/web.yaml": FLOATING % "staging",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(f.file, f.severity) for f in result.findings] == [
        ("envs/dev/web.yaml", "error"), ("envs/production/web.yaml", "error"),
        ("envs/staging/web.yaml", "warning")]
    assert result.findings[2].message.endswith(
        "Not certain: reviewbot could not see whether anything applies the ApplicationSet in "
        "argocd/web-set.yaml: no root of the repository does, and Application argocd/web-dev "
        "it generates is the one argocd/dev/web.yaml declares (one Argo CD keeps one "
        "Application of a name).")
    # generating none of the declared names: applied by hand, certain
    write(tmp_path, {"argocd/dev/web.yaml": app % ("development", "dev")})
    assert [f.severity for f in lint_dir(tmp_path, only=["image-digest"]).findings] == [
        "error"] * 3


def test_a_helm_test_hook_argo_cd_syncs_is_never_created(tmp_path: Path) -> None:
    """StatCan/aaw-argocd-manifests (judge round BE): a pre-rendered chart's `helm test` Pod
    (helm.sh/hook: test-success) an Argo CD Application syncs; gitops-engine runs Helm hooks
    of pre/post-install and -upgrade only, so a hook of no such type is never created: its
    untagged image is no finding, and the file says so under skipped. A pre-install hook
    runs (PreSync); what Flux applies ignores Helm's annotations; Skip is never applied."""
    hook = ("apiVersion: v1\nkind: Pod\nmetadata: {name: %s, annotations: "
            "{helm.sh/hook: '%s'}}\nspec:\n  containers:\n  - {name: c, image: busybox}\n")
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: %s, namespace: argocd}
        spec:
          source: {repoURL: https://github.com/acme/apps, path: %s}
          destination: {server: https://kubernetes.default.svc, namespace: web}
    """
    write(tmp_path, {
        "gitea/test.yaml": hook % ("test-connection", "test-success"),
        "migrate/job.yaml": hook % ("migrate", "pre-install,pre-upgrade"),
        "skip/job.yaml": hook.replace("helm.sh/hook", "argocd.argoproj.io/hook") % (
            "skipped", "Skip"),
    })
    write(tmp_path, {"root.yaml": app % ("gitea", "gitea") + "---\n" + app % (
        "migrate", "migrate") + "---\n" + app % ("skip", "skip")})
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [f.file for f in result.findings] == ["migrate/job.yaml"]
    assert [(s.path, s.reason) for s in result.skipped if s.path != "root.yaml"] == [
        ("gitea/test.yaml", "Pod/web/test-connection: a Helm test-success hook, which "
         "Argo CD runs in no phase"),
        ("skip/job.yaml", "Pod/web/skipped: an Argo CD hook of phase Skip")]
    # applied by Flux (or as written): a Pod like any other
    write(tmp_path, {"root.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
    assert [f.file for f in lint_dir(tmp_path, only=["image-digest"]).findings] == [
        "gitea/test.yaml", "migrate/job.yaml", "skip/job.yaml"]


def test_a_kustomization_in_a_folder_of_demos_applying_applications_is_not_certain(
        tmp_path: Path) -> None:
    """redhat-na-ssa/demo-ai-gitops-catalog (judge round AO): a kustomization in demos/
    patches an Application of a base outside it and would apply it (`kubectl apply -k`), but
    nothing applies that kustomization: a guess, like an Application applied by hand there,
    so what the Application applies gives warnings that say so (7 errors)."""
    write(tmp_path, {
        "root.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: root, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/apps, path: apps}
              destination: {server: https://kubernetes.default.svc}
        """,
        "apps/web.yaml": FLOATING % "web",
        "components/argocd/app.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: cluster-config, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/apps, path: clusters/base}
              destination: {server: https://kubernetes.default.svc}
        """,
        "components/argocd/kustomization.yaml": "resources: [app.yaml]\n",
        "demos/managed/kustomization.yaml": """
            resources: [../../components/argocd]
            patches:
            - target: {kind: Application, name: cluster-config}
              patch: |-
                - op: replace
                  path: /spec/source/path
                  value: clusters/managed
        """,
        "clusters/base/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        "clusters/managed/job.yaml": FLOATING % "job",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(f.file, f.severity) for f in result.findings] == [
        ("apps/web.yaml", "error"), ("clusters/managed/job.yaml", "warning")]
    assert result.findings[1].message.endswith(
        "Not certain: reviewbot could not see whether anyone applies demos/managed by hand: it "
        "lies in demos/, a folder of demos or trials, and no root of the repository applies "
        "it.")


def test_an_application_applied_by_hand_reading_another_branch_is_not_certain(
        tmp_path: Path) -> None:
    """ZackZhouHB/zack-gitops-project (judge round AN): the Applications applied by hand read
    branch `editing`; the checkout was main, whose files were judged as what they apply. On
    the branch they read, the findings are certain again."""
    from .helpers import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.commit({
        "root.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: web, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/apps, path: apps,
                       targetRevision: editing}
              destination: {server: https://kubernetes.default.svc}
        """,
        "apps/kustomization.yaml": "resources: [web.yaml, child.yaml]\n",
        "apps/web.yaml": FLOATING % "web",
        # what it applies applies the same revision: as unsure, a kustomization's own
        # finding too (ADORSYS-GIS/fineract-gitops' dev app of apps)
        "apps/child.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: child, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/apps, path: child,
                       targetRevision: editing}
              destination: {server: https://kubernetes.default.svc}
        """,
        "child/kustomization.yaml": "resources: [api.yaml, gone.yaml]\n",
        "child/api.yaml": FLOATING % "api",
    })
    only = ["image-digest", "kustomize-integrity"]
    found = lint_dir(repo.path, only=only).findings
    assert [(f.file, f.severity) for f in found] == [
        ("apps/web.yaml", "warning"), ("child/api.yaml", "warning"),
        ("child/kustomization.yaml", "warning")]
    assert found[0].message.endswith(
        "Not certain: reviewbot could not see the files the Application in root.yaml applies: "
        "it reads revision editing of this repository, not branch main checked out, whose "
        "files reviewbot read.")
    assert "Not certain: reviewbot could not see the files the Application in root.yaml " \
        "applies" in found[2].message
    repo.git("checkout", "-q", "-b", "editing")
    found = lint_dir(repo.path, only=only).findings
    assert [(f.file, f.severity) for f in found] == [
        ("apps/web.yaml", "error"), ("child/api.yaml", "warning"),  # (its build fails)
        ("child/kustomization.yaml", "error")]


def test_a_folder_an_app_of_apps_chart_template_may_apply_says_so(tmp_path: Path) -> None:
    # rowa78/k8s-gitops (and samcday, takanao14, mctlhq, pf56): the root Application renders
    # a local chart whose template makes an ApplicationSet per values entry; reviewbot
    # renders no chart, so the folders it applies were flatly "not applied"
    write(tmp_path, {
        "argocd/root.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: root, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/fleet, path: bootstrap/root}
              destination: {server: https://kubernetes.default.svc}
        """,
        "bootstrap/root/Chart.yaml": "apiVersion: v2\nname: root\nversion: 0.1.0\n",
        "bootstrap/root/values.yaml": "groups: [system, apps]\n",
        "bootstrap/root/templates/appset.yaml": """
            {{- range .Values.groups }}
            ---
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata: {name: {{ . }}, namespace: argocd}
            spec:
              generators:
              - git: {repoURL: https://github.com/acme/fleet, directories: [{path: "{{ . }}/*"}]}
            {{- end }}
        """,
        "apps/web/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [f.message for f in result.findings if f.file == "apps/web/web.yaml"] == [
        "apps (1 manifest file) is not applied by any cluster root reviewbot follows (the "
        "chart template bootstrap/root/templates/appset.yaml declares Argo CD Applications or "
        "Flux Kustomizations, and reviewbot renders no chart: they may apply it), so nothing "
        "in it is judged"]


def test_an_application_of_a_chart_folder_applies_its_plain_templates(
    tmp_path: Path,
) -> None:
    # cterence/homelab-gitops: umbrella charts whose templates/ hold plain manifests beside
    # the dependency; Argo CD renders the chart (Chart.yaml), so those are applied as written
    write(tmp_path, {
        "argocd/velero.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: velero, namespace: argocd}
            spec:
              source: {repoURL: https://github.com/acme/fleet, path: charts/velero}
              destination: {server: https://kubernetes.default.svc, namespace: velero}
        """,
        "charts/velero/Chart.yaml": "apiVersion: v2\nname: velero\nversion: 1.0.0\n",
        "charts/velero/values.yaml": "velero: {}\n",
        "charts/velero/templates/job.yaml": FLOATING.replace(", namespace: apps", "") % "job",
        "charts/velero/templates/tests/hook.yaml": FLOATING % "hook",
        "charts/velero/charts/sub/templates/sub.yaml": FLOATING % "sub",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f, o) for r, _, f, o in found(result)] == [
        ("image-digest[floating]", "charts/velero/templates/job.yaml", "Deployment/velero/job"),
        ("kustomize-integrity[not-applied]", "charts/velero/charts/sub/templates/sub.yaml", ""),
        ("kustomize-integrity[not-applied]", "charts/velero/templates/tests/hook.yaml", "")]


def test_an_app_of_apps_chart_a_walked_build_renders_applies_its_applications(
    tmp_path: Path,
) -> None:
    # PixelJonas/home-ops: a bootstrap Application (applied by hand) builds an overlay whose
    # helmCharts render gnunn-gitops' argocd-app-of-app from values naming the apps: they
    # were "not applied by any cluster root"
    write(tmp_path, {
        "initial/kustomization.yaml": "resources: [config-manager.yaml]\n",
        "initial/config-manager.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: config-manager, namespace: openshift-gitops}
            spec:
              source: {repoURL: https://github.com/acme/fleet, path: overlays/home}
              destination: {server: https://kubernetes.default.svc}
        """,
        "overlays/home/kustomization.yaml": """
            helmCharts:
            - {name: argocd-app-of-app, repo: https://gnunn-gitops.github.io/helm-charts,
               version: 0.4.1, valuesFile: values.yaml}
        """,
        "overlays/home/values.yaml": """
            default:
              app:
                destination: {namespace: default, server: https://kubernetes.default.svc}
                source: {repoURL: https://github.com/acme/fleet}
            applications:
              web: {source: {path: base}}
        """,
        "base/kustomization.yaml": "resources: [web.yaml]\n",
        "base/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [("image-digest[floating]", "base/web.yaml")]


def test_a_flux_instance_without_sync_hides_no_self_applying_root(tmp_path: Path) -> None:
    """hugginsio/homelab (judge round DE): a FluxInstance without `spec.sync` installs the
    controllers alone, its sync applied apart (a Kustomization applying its own folder); the
    instance hid that root ("roots: none found"), and a child the parent kustomization
    comments out, quoted (`# - "./parked/ks.yaml"`), was judged as written: an error."""
    write(tmp_path, {
        "flux/instance.yaml": """
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata: {name: flux, namespace: flux-system}
            spec: {distribution: {version: 2.x}}
        """,
        "flux/repo.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: homelab, namespace: flux-system}
            spec: {url: https://github.com/acme/homelab}
        """,
        "cluster/ks.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: cluster-apps, namespace: flux-system}
            spec:
              path: ./cluster
              sourceRef: {kind: GitRepository, name: homelab}
        """,
        "cluster/apps/kustomization.yaml": "resources:\n  - ./live/web.yaml\n"
                                           "  # - \"./parked/web.yaml\"\n",
        "cluster/apps/live/web.yaml": FLOATING % "live",
        "cluster/apps/parked/web.yaml": FLOATING % "parked",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result) if r.startswith("image-digest")] == [
        ("image-digest[floating]", "cluster/apps/live/web.yaml")]
    assert [(r, f) for r, _, f, _ in found(result) if r.endswith("[commented]")] == [
        ("kustomize-integrity[commented]", "cluster/apps/kustomization.yaml")]
    assert [(r.file, r.how) for r in result.model.derived["reach"].roots] == [
        ("cluster/ks.yaml", "self-applying Flux Kustomization")]


def test_a_self_applying_kustomization_a_shallower_one_applies_roots_no_cluster(
        tmp_path: Path) -> None:
    """Judge round DP (truxnell/home-cluster): helios' `cluster` applies ./flux, whose
    `cluster-apps` applies ./apps; `cluster-apps-mariadb` there applies its own folder, so it
    is self-applying too, and was walked first (by file order) as a cluster of its own,
    "apps/mariadb", lacking the HelmRepository helios has: a false `source` warning. Walked
    shallowest first, it is helios' only."""
    write(tmp_path, {
        "helios/flux/config/cluster.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: home, namespace: flux-system}
            spec: {url: https://github.com/acme/home}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: cluster, namespace: flux-system}
            spec:
              path: ./helios/flux
              sourceRef: {kind: GitRepository, name: home}
        """,
        "helios/flux/repositories/charts.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: HelmRepository
            metadata: {name: charts, namespace: flux-system}
            spec: {url: https://charts.example.org}
        """,
        "helios/flux/apps.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: cluster-apps, namespace: flux-system}
            spec:
              path: ./helios/apps
              sourceRef: {kind: GitRepository, name: home}
        """,
        "helios/apps/kustomization.yaml": "resources: [./mariadb/ks.yaml]\n",
        "helios/apps/mariadb/ks.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: cluster-apps-mariadb, namespace: flux-system}
            spec:
              path: ./helios/apps/mariadb/
              sourceRef: {kind: GitRepository, name: home}
        """,
        "helios/apps/mariadb/app/helmrelease.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: mariadb, namespace: databases}
            spec:
              chart:
                spec:
                  chart: mariadb
                  sourceRef: {kind: HelmRepository, name: charts, namespace: flux-system}
        """,
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [(r.file, r.how) for r in result.model.derived["reach"].roots] == [
        ("helios/flux/config/cluster.yaml", "self-applying Flux Kustomization")]
    assert [(r, f) for r, _, f, _ in found(result) if "source" in r] == []


def test_a_kustomization_waiting_for_what_only_its_own_build_makes_applies_nothing(
        tmp_path: Path) -> None:
    """Judge round DQ (monosense-io/k8s-gitops): the apps cluster's `infrastructure` depends
    on `cilium-core`, which only its own path makes: kustomize-controller finds no
    dependency before it applies anything, so neither is ever applied; the walk went on
    through both, and what they would apply made 57 false errors. Not walked: the entry is
    the one error, and its image no error of a cluster that never receives it."""
    ks = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
          "metadata: {name: %s, namespace: flux-system}\n"
          "spec:\n  path: %s\n  sourceRef: {kind: GitRepository, name: flux-system}\n%s")
    write(tmp_path, {
        "clusters/apps/infrastructure.yaml": ks % (
            "infrastructure", "./infrastructure", "  dependsOn: [{name: cilium-core}]\n"),
        "infrastructure/kustomization.yaml": "resources: [cilium/ks.yaml, db/ks.yaml]\n",
        "infrastructure/cilium/ks.yaml": ks % ("cilium-core", "./infrastructure/cilium/app", ""),
        "infrastructure/cilium/app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"
                                             "metadata: {name: cilium, namespace: kube-system}\n",
        "infrastructure/db/ks.yaml": ks % ("db", "./infrastructure/db/app", ""),
        "infrastructure/db/app/job.yaml": FLOATING % "db",
        # one in the root's file waiting for another the root applies: no deadlock
        # (samip5/k8s-cluster's `apps` beside its root, a first reading by files)
        "clusters/apps/flux-system/gotk-sync.yaml": ks % (
            "flux-system", "./clusters/apps", "") + "---\n" + ks % (
            "one", "./one", "  dependsOn: [{name: two}]\n"),
        "clusters/apps/two.yaml": ks % ("two", "./two", ""),
        "one/web.yaml": FLOATING % "one",
        "two/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: two, namespace: a}\n",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity", "image-digest"])
    assert [(r, f) for r, _, f, _ in found(result) if r.endswith(("[dependency]", "[floating]"))
            ] == [("image-digest[floating]", "one/web.yaml"),
                  ("kustomize-integrity[dependency]", "clusters/apps/infrastructure.yaml")]
    (entry,) = [f for f in result.findings if f.kind == "dependency"]
    assert entry.message.endswith(
        "it waits for a dependency that is not there (only its own build would make "
        "flux-system/cilium-core, which it never applies)")
    assert entry.fix == ("Remove the entry, or apply flux-system/cilium-core from outside "
                         "infrastructure's path (order what its path applies with dependsOn "
                         "among those).")
    # applied from outside its path, the dependency is there and all is applied
    write(tmp_path, {"infrastructure/kustomization.yaml": "resources: [db/ks.yaml]\n",
                     "clusters/apps/cilium.yaml": ks % ("cilium-core",
                                                        "./infrastructure/cilium/app", "")})
    result = lint_dir(tmp_path, only=["kustomize-integrity", "image-digest"])
    assert [(r, f) for r, _, f, _ in found(result) if r.endswith(("[dependency]", "[floating]"))
            ] == [("image-digest[floating]", "infrastructure/db/app/job.yaml"),
                  ("image-digest[floating]", "one/web.yaml")]


def test_the_kustomizations_a_resource_set_makes_of_its_inputs_are_followed(
        tmp_path: Path) -> None:
    """Judge round DB (m00nwtchr/homelab-cluster): a flux-operator ResourceSet makes one
    Flux Kustomization per input (`path: ./kubernetes/apps/<< inputs.namespace >>`); the
    apps were "not applied by any cluster root" and 5 objects of 844 files were judged. Its
    literal inputs are filled in and what it makes is followed; an input a provider gives
    (`inputsFrom`) is not seen, and what it would make stays unapplied."""
    resource_set = """
        apiVersion: fluxcd.controlplane.io/v1
        kind: ResourceSet
        metadata: {name: cluster-apps, namespace: flux-system}
        spec:
          inputs: [{namespace: ai}, {namespace: web}]
          resources:
          - apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: '<< inputs.namespace >>-apps', namespace: flux-system}
            spec:
              path: ./kubernetes/apps/<< inputs.namespace >>
              sourceRef: {kind: GitRepository, name: flux-system}
              targetNamespace: << inputs.namespace >>
    """
    write(tmp_path, {
        "kubernetes/flux/instance.yaml": """
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata: {name: flux, namespace: flux-system}
            spec:
              sync: {kind: GitRepository, url: https://github.com/acme/home,
                     path: kubernetes/flux/cluster}
        """,
        "kubernetes/flux/cluster/resourceset.yaml": resource_set,
        "kubernetes/apps/ai/ollama.yaml": FLOATING % "ollama",
        "kubernetes/apps/web/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "kubernetes/apps/ai/ollama.yaml"),
        ("image-digest[floating]", "kubernetes/apps/web/web.yaml")]
    assert {o.namespace for o in result.model.objects if o.kind == "Deployment"} == {"ai", "web"}
    write(tmp_path, {"kubernetes/flux/cluster/resourceset.yaml": resource_set.replace(
        "inputs: [{namespace: ai}, {namespace: web}]",
        "inputsFrom: [{kind: ResourceSetInputProvider, name: apps}]")})
    result = lint_dir(tmp_path, only=["image-digest"])
    assert found(result) == []


def test_a_kustomization_the_repository_s_makefile_applies_is_a_root(tmp_path: Path) -> None:
    # bokristoffersson/homelab-k12n-gitops: a Makefile applies gitops/apps/local/* to a local
    # k3d cluster beside the Flux cluster: "not applied by any cluster root"
    write(tmp_path, {
        "flux.yaml": """
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata: {name: flux, namespace: flux-system}
            spec:
              sync: {kind: GitRepository, url: https://github.com/acme/fleet, path: clusters/home}
        """,
        "clusters/home/web.yaml": FLOATING % "home",
        "Makefile": "local:\n\tkubectl apply -k apps/local/web\n"
                    "\tkustomize build apps/local/db | kubectl apply -f -\n",
        "apps/local/web/kustomization.yaml": "resources: [web.yaml]\n",
        "apps/local/web/web.yaml": FLOATING % "web",
        "apps/local/db/kustomization.yaml": "resources: [db.yaml]\n",
        "apps/local/db/db.yaml": FLOATING % "db",
        "apps/local/unused/kustomization.yaml": "resources: [u.yaml]\n",
        "apps/local/unused/u.yaml": FLOATING % "unused",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/local/db/db.yaml"),
        ("image-digest[floating]", "apps/local/web/web.yaml"),
        ("image-digest[floating]", "clusters/home/web.yaml"),
        ("kustomize-integrity[not-applied]", "apps/local/unused/u.yaml")]
    assert [(r.cluster, r.how) for r in result.model.derived["reach"].roots][1:] == [
        ("apps/local/db (applied by Makefile)", "kustomization applied by Makefile"),
        ("apps/local/web (applied by Makefile)", "kustomization applied by Makefile")]


def test_a_flux_failure_of_a_cluster_a_makefile_applies_without_flux_is_not_certain(
        tmp_path: Path) -> None:
    """bokristoffersson/homelab-k12n-gitops (judge round BE): the Makefile's local cluster
    ("no Flux") got "HelmRepository ... which cluster apps/local/mon (applied by Makefile)
    does not have, so helm-controller cannot fetch the chart": whether helm-controller runs
    there, nothing it applies says; where it applies Flux's controllers, it does."""
    release = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: prometheus, namespace: monitoring}
        spec:
          chart:
            spec: {chart: kube-prometheus-stack,
                   sourceRef: {kind: HelmRepository, name: prometheus, namespace: flux-system}}
    """
    write(tmp_path, {
        "flux.yaml": """
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata: {name: flux, namespace: flux-system}
            spec:
              sync: {kind: GitRepository, url: https://github.com/acme/fleet, path: clusters/home}
        """,
        "clusters/home/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        "Makefile": "local:\n\tkubectl apply -k apps/local/mon\n",
        "apps/local/mon/kustomization.yaml": "resources: [release.yaml]\n",
        "apps/local/mon/release.yaml": release,
    })
    (source,) = [f for f in lint_dir(tmp_path, only=["kustomize-integrity"]).findings
                 if f.kind == "source"]
    assert source.severity == "warning" and source.message.endswith(
        "Not certain: reviewbot could not see whether Flux runs in cluster apps/local/mon "
        "(applied by Makefile): Makefile applies apps/local/mon with kubectl, and nothing it "
        "applies installs Flux's controllers.")
    write(tmp_path, {
        "apps/local/mon/kustomization.yaml": "resources: [release.yaml, flux.yaml]\n",
        "apps/local/mon/flux.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: "
                                    "{name: helm-controller, namespace: flux-system}\n"})
    (source,) = [f for f in lint_dir(tmp_path, only=["kustomize-integrity"]).findings
                 if f.kind == "source"]
    assert source.severity == "error"


def test_sources_a_tool_renders_are_said_unjudged(tmp_path: Path) -> None:
    # ericz-home/home-ops: qbec components in jsonnet; "no findings; looked in 2 objects"
    # read as if the cluster's objects were judged
    write(tmp_path, {
        "k8s/qbec.yaml": "apiVersion: qbec.io/v1alpha1\nkind: App\nmetadata: {name: home}\n",
        "k8s/components/web/index.jsonnet": "{}\n",
        "k8s/components/db/index.jsonnet": "{}\n",
        "charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\n",
        "charts/app/files/transform.jsonnet": "{}\n",  # read by the chart's templates
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [(s.path, s.reason) for s in result.model.skipped if "jsonnet" in s.reason] == [
        ("k8s/components", "2 jsonnet sources: reviewbot does not render them, so the objects "
         "they make are not judged")]
    # MacroPower/homelab: 141 KCL main.k files an Argo CD plugin renders, said nowhere
    write(tmp_path, {"apps/web/main.k": "import konfig\n", "konfig/models/app.k": "x = 1\n"})
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [(s.path, s.reason) for s in result.model.skipped if "KCL" in s.reason] == [
        (".", "2 KCL sources: reviewbot does not render them, so the objects they make are "
         "not judged")]


def test_a_flux_instance_is_a_root(tmp_path: Path) -> None:
    write(tmp_path, {
        "flux/instance.yaml": """
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata: {name: flux, namespace: flux-system}
            spec:
              sync: {kind: GitRepository, url: https://github.com/acme/fleet, path: clusters/home}
        """,
        "clusters/home/web.yaml": FLOATING % "web",
        "attic/web.yaml": FLOATING % "attic",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "clusters/home/web.yaml"),
        ("kustomize-integrity[not-applied]", "attic/web.yaml")]


def test_two_applications_of_one_folder_with_other_files_are_two_builds(
        tmp_path: Path) -> None:
    # code-dot-org/k8s-gitops: a parent Application applies only application.yaml of the
    # project's folder (directory.include), the child it makes applies the rest (exclude):
    # the walk took them for one build, and the project's files were "not applied"
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {{name: {name}, namespace: argocd}}
        spec:
          project: default
          source: {{repoURL: https://github.com/x/y.git, targetRevision: main, path: apps/proj,
                    directory: {directory}}}
          destination: {{server: https://kubernetes.default.svc, namespace: apps}}
        """
    write(tmp_path, {
        "root/app.yaml": app.format(name="parent", directory="{include: application.yaml}"),
        "apps/proj/application.yaml": app.format(
            name="child", directory="{recurse: true, exclude: application.yaml}"),
        "apps/proj/deploy.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "apps/proj/deploy.yaml")]


def test_a_file_the_repository_s_script_applies_is_a_root_beside_the_others(
        tmp_path: Path) -> None:
    # ukyi-app/homelab: scripts/bootstrap.sh applies argocd/argocd-app.yaml (Argo CD's own
    # install) beside the root app; it was "not applied by any cluster root", and so was
    # what it applies; a script kept aside (tests/) roots nothing
    write(tmp_path, {
        "argocd/root-app.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: root, namespace: argocd}
            spec:
              project: default
              source: {repoURL: https://github.com/x/y.git, targetRevision: main, path: apps}
              destination: {server: https://kubernetes.default.svc, namespace: argocd}
        """,
        "argocd/argocd-app.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: tools, namespace: argocd}
            spec:
              project: default
              source: {repoURL: https://github.com/x/y.git, targetRevision: main, path: tools}
              destination: {server: https://kubernetes.default.svc, namespace: tools}
        """,
        "scripts/bootstrap.sh": "kubectl apply -f argocd/argocd-app.yaml\n"
                                "kubectl apply -f argocd/root-app.yaml\n",
        "tests/smoke.sh": "kubectl apply -f smoke/web.yaml\n",
        "apps/web.yaml": FLOATING % "web",
        "tools/web.yaml": FLOATING % "tools",
        "smoke/web.yaml": FLOATING % "smoke",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "apps/web.yaml"),
        ("image-digest[floating]", "error", "tools/web.yaml"),
        ("kustomize-integrity[not-applied]", "info", "smoke/web.yaml")]


def test_an_application_commented_out_above_resources_is_no_root(tmp_path: Path) -> None:
    """Judge round CU: ArthurVardevanyan/HomeLab's app of apps keeps its disabled
    Applications as a block of `# - k3s/longhorn.yaml` lines under `kind:`, above
    `resources:`; they were taken as roots applied by hand, and what they apply judged (an
    error of a Deployment nothing applies). A commented YAML file's entry anywhere in a
    kustomization is a resource commented out."""
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: %s, namespace: argocd}
        spec:
          project: default
          source: {repoURL: https://github.com/x/y.git, targetRevision: main, path: %s}
          destination: {server: https://kubernetes.default.svc, namespace: %s}
    """
    write(tmp_path, {
        "apps/kustomization.yaml": ("kind:\n  Kustomization\n  # gone:\n"
                                    "  # - k3s/legacy.yaml\nresources:\n  - argocd.yaml\n"
                                    "  - web.yaml\n"),
        "apps/argocd.yaml": app % ("apps", "apps", "argocd"),
        "apps/web.yaml": app % ("web", "web", "web"),
        "apps/k3s/legacy.yaml": app % ("legacy", "legacy", "legacy"),
        "web/web.yaml": FLOATING % "web",
        "legacy/legacy.yaml": FLOATING % "legacy",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "web/web.yaml")]


def test_a_script_applies_the_path_its_variable_defaults_to(tmp_path: Path) -> None:
    """Judge round CT: cloud-native-toolkit/multi-tenancy-gitops' bootstrap script sets
    `GITOPS_PROFILE=${GITOPS_PROFILE:-0-bootstrap/single-cluster}` and applies
    `${GITOPS_PROFILE}/bootstrap.yaml`, its entry point (an Application of its own folder),
    which reviewbot called "never applied" ("Delete it") for a stale copy one folder up. A
    variable the script sets to a literal, or to itself with a literal default, is that
    value."""
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: bootstrap, namespace: argocd}
        spec:
          project: default
          source: {repoURL: https://github.com/x/y.git, targetRevision: main,
                   path: profiles/single}
          destination: {server: https://kubernetes.default.svc, namespace: apps}
    """
    write(tmp_path, {
        "profiles/single/bootstrap.yaml": app,
        "profiles/single/kustomization.yaml": "resources: [apps/web.yaml]\n",
        "profiles/single/apps/web.yaml": FLOATING % "web",
        "bootstrap.yaml": app,  # a stale copy nothing applies
        "scripts/bootstrap.sh": ("GITOPS_PROFILE=${GITOPS_PROFILE:-profiles/single}\n"
                                 "kubectl apply -n argocd -f ${GITOPS_PROFILE}/bootstrap.yaml\n"),
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "profiles/single/apps/web.yaml")]


@pytest.mark.parametrize(("name", "text"), [
    ("justfile", "deploy:\n    kubectl apply -k k8s/clusters/c0/\n"),
    # the checkout's folder in a variable (mitchross/talos-argocd-proxmox, judge round AP)
    ("scripts/up.sh", 'kubectl apply -k "${REPO_ROOT}/k8s/clusters/c0"\n'),
    # a Makefile's loop over folders (ailee-1111/openshift-ai-gitops2, judge round AP)
    ("Makefile", "deploy:\n\t@for dir in k8s/clusters/*/; do \\\n"
                 "\t\toc apply -k \"$$dir\" && echo OK; \\\n\tdone\n"),
    (".taskfiles/cluster.yml", "version: '3'\ntasks:\n  apply:\n    cmds:\n"
                               "      - kubectl apply -k k8s/clusters/c0/\n"),
])
def test_a_kustomization_a_justfile_or_taskfile_recipe_applies_is_a_root(
        tmp_path: Path, name: str, text: str) -> None:
    # tvories/k8s-gitops: cluster-0 is applied by hand from a just recipe and a Task task;
    # a template gotk-sync (a path that does not exist) was the only root, and the whole
    # cluster (505 objects) "not applied"
    write(tmp_path, {
        name: text,
        "tmpl/gotk-sync.yaml": SYNC.replace("./clusters/prod", "./cluster/base"),
        "k8s/clusters/c0/kustomization.yaml": "resources: [web.yaml]\n",
        "k8s/clusters/c0/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "k8s/clusters/c0/web.yaml")]


@pytest.mark.parametrize("placeholder", ["@dc-domain@", "{{ .host }}", "${CLUSTER}"])
def test_a_sync_path_another_tool_fills_roots_each_folder_it_can_name_not_certainly(
        tmp_path: Path, placeholder: str) -> None:
    # jmuchovej/homelab: Nix fills @dc-domain@ in the FluxInstance's sync path before it
    # reaches a cluster; the tree holds one folder per host. The whole cluster tree (286
    # files) was "not applied", nothing judged: each folder the placeholder can name is a
    # cluster, and its findings say which value was not seen. A folder it cannot name is
    # still not applied.
    write(tmp_path, {
        "nix/flux-instance.yaml": f"""
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata: {{name: flux, namespace: flux-system}}
            spec:
              sync: {{kind: GitRepository, url: https://github.com/acme/fleet,
                      path: "k8s/clusters/{placeholder}/flux"}}
        """,
        "k8s/clusters/a.example/flux/web.yaml": FLOATING % "a",
        "k8s/clusters/b.example/flux/web.yaml": FLOATING % "b",
        "k8s/clusters/b.example/other/web.yaml": FLOATING % "other",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    # a postBuild variable nothing substitutes is a gap of Flux's own, said at the instance
    gap = [("kustomize-integrity[missing]", "warning", "nix/flux-instance.yaml")]
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "warning", "k8s/clusters/a.example/flux/web.yaml"),
        ("image-digest[floating]", "warning", "k8s/clusters/b.example/flux/web.yaml"),
        *(gap if placeholder.startswith("$") else []),
        ("kustomize-integrity[not-applied]", "info", "k8s/clusters/b.example/other/web.yaml")]
    first = next(f for f in result.findings if f.rule == "image-digest")
    assert first.message.endswith(
        "Not certain: reviewbot could not see whether nix/flux-instance.yaml's sync path "
        f"k8s/clusters/{placeholder}/flux names k8s/clusters/a.example/flux (filled in "
        "outside Flux; 2 folders match it).")


@pytest.mark.parametrize("sync_name", ["home-ops-kubernetes", None])
def test_a_flux_instance_names_the_source_its_children_sync_from(
        tmp_path: Path, sync_name: str | None) -> None:
    # flux-operator makes the GitRepository of spec.sync under sync.name, else under the
    # namespace's name: a Kustomization it applies naming that source is this repository
    name = f"name: {sync_name}, " if sync_name else ""
    write(tmp_path, {
        "flux/instance.yaml": f"""
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata: {{name: flux, namespace: flux-system}}
            spec:
              sync: {{kind: GitRepository, {name}url: https://github.com/acme/fleet,
                      path: clusters/home}}
        """,
        "clusters/home/apps.yaml": f"""
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {{name: apps, namespace: flux-system}}
            spec:
              interval: 1h
              path: ./apps
              prune: true
              sourceRef: {{kind: GitRepository, name: {sync_name or "flux-system"}}}
        """,
        "apps/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/web.yaml")]


@pytest.mark.parametrize("namespace", ["gitops-system", None])
def test_a_flux_instance_names_its_source_after_its_namespace(
        tmp_path: Path, namespace: str | None) -> None:
    # soulwhisper/home-ops: the instance lives in gitops-system, so its GitRepository is
    # gitops-system; where a build gives the namespace (a Kustomization's targetNamespace),
    # a GitRepository no file defines, named in the instance's sync folder, is that one
    meta = f", namespace: {namespace}" if namespace else ""
    write(tmp_path, {
        "apps/flux-instance/helmrelease.yaml": f"""
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {{name: flux-instance{meta}}}
            spec:
              chartRef: {{kind: OCIRepository, name: flux-instance}}
              values:
                instance:
                  sync: {{kind: GitRepository, url: https://github.com/acme/fleet,
                          path: clusters/home}}
        """,
        "clusters/home/apps.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: apps, namespace: gitops-system}
            spec:
              path: ./apps/web
              sourceRef: {kind: GitRepository, name: gitops-system}
        """,
        "apps/web/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/web/web.yaml")]


def test_a_flux_instance_s_sync_path_is_substituted_by_what_applies_it(
    tmp_path: Path,
) -> None:
    # deedee-ops/home-ops: path kubernetes/clusters/${CLUSTER}/bootstrap, CLUSTER given by
    # the postBuild of the Kustomization that applies the instance (1 object judged of 754
    # files); two clusters substituting it two ways (from their ConfigMaps) are two roots
    instance_ks = """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: flux-instance, namespace: flux-system}
        spec:
          path: ./apps/flux-instance
          postBuild: {substituteFrom: [{kind: ConfigMap, name: settings-%s}]}
          sourceRef: {kind: GitRepository, name: flux-system}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings-%s, namespace: flux-system}
        data: {CLUSTER: %s}
    """
    entry = """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: cluster-apps, namespace: flux-system}
        spec:
          path: ./clusters/%s/apps
          sourceRef: {kind: GitRepository, name: flux-system}
    """
    write(tmp_path, {
        "apps/flux-instance/helmrelease.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: flux-instance, namespace: flux-system}
            spec:
              chartRef: {kind: OCIRepository, name: flux-instance}
              values:
                instance:
                  sync: {kind: GitRepository, url: https://github.com/acme/fleet,
                         path: "clusters/${CLUSTER}/bootstrap"}
        """,
        "clusters/one/bootstrap/entrypoint.yaml": entry % "one",
        "clusters/one/apps/flux-instance.yaml": instance_ks % ("one", "one", "one"),
        "clusters/one/apps/web.yaml": FLOATING % "one",
        "clusters/two/bootstrap/entrypoint.yaml": entry % "two",
        "clusters/two/apps/flux-instance.yaml": instance_ks % ("two", "two", "two"),
        "clusters/two/apps/web.yaml": FLOATING % "two",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "clusters/one/apps/web.yaml"),
        ("image-digest[floating]", "clusters/two/apps/web.yaml")]
    assert [(r.cluster, r.path) for r in result.model.derived["reach"].roots] == [
        ("clusters/one/bootstrap", "clusters/one/bootstrap"),
        ("clusters/two/bootstrap", "clusters/two/bootstrap")]


def test_a_kustomization_of_a_folder_above_the_instance_that_builds_none_of_it_does_not_sync(
    tmp_path: Path,
) -> None:
    """Judge round AO: deedee-ops/home-ops' components-only Kustomizations (path
    ./kubernetes, whose kustomization lists no resource; postBuild gives APP, no CLUSTER)
    were taken as applying the flux-instance below ./kubernetes: its sync path became
    `kubernetes/clusters//bootstrap`, a second cluster of 0 objects said missing."""
    write(tmp_path, {
        "apps/kustomization.yaml": "resources: []  # components-only installations\n",
        "apps/db/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
            "resources: [cm.yaml]\n"),
        "apps/db/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${APP}-db}\n",
        "apps/flux-instance/helmrelease.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: flux-instance, namespace: flux-system}
            spec:
              chartRef: {kind: OCIRepository, name: flux-instance}
              values:
                instance:
                  sync: {kind: GitRepository, url: https://github.com/acme/fleet,
                         path: "clusters/${CLUSTER}/bootstrap"}
        """,
        "clusters/one/bootstrap/entrypoint.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: cluster-apps, namespace: flux-system}
            spec:
              path: ./clusters/one/apps
              sourceRef: {kind: GitRepository, name: flux-system}
        """,
        "clusters/one/apps/flux-instance.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: flux-instance, namespace: flux-system}
            spec:
              path: ./apps/flux-instance
              postBuild: {substitute: {CLUSTER: one}}
              sourceRef: {kind: GitRepository, name: flux-system}
        """,
        "clusters/one/apps/db.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: db, namespace: flux-system}
            spec:
              path: ./apps
              components: [./db]
              postBuild: {substitute: {APP: ai}}
              sourceRef: {kind: GitRepository, name: flux-system}
        """,
        "clusters/one/apps/web.yaml": FLOATING % "one",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "clusters/one/apps/web.yaml")]
    assert [(r.cluster, r.path) for r in result.model.derived["reach"].roots] == [
        ("clusters/one/bootstrap", "clusters/one/bootstrap")]


def test_each_cluster_substitutes_the_instance_s_sync_path_from_its_own_settings(
    tmp_path: Path,
) -> None:
    """A new-user trial: both clusters' Kustomizations apply the flux-instance with
    `substituteFrom: cluster-settings`; home writes that ConfigMap, lab generates it from an
    env file. Each reads its own (the nearest folder holding one): both are roots; lab was
    "not applied ... delete it"."""
    apply = """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: flux, namespace: flux-system}
        spec:
          path: ./infra/flux
          postBuild: {substituteFrom: [{kind: ConfigMap, name: cluster-settings}]}
          sourceRef: {kind: GitRepository, name: flux-system}
    """
    write(tmp_path, {
        "infra/flux/helmrelease.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: flux-instance, namespace: flux-system}
            spec:
              chartRef: {kind: OCIRepository, name: flux-instance}
              values:
                instance:
                  sync: {kind: GitRepository, url: https://github.com/acme/fleet,
                         path: "${CLUSTER_PATH}"}
        """,
        "clusters/home/flux.yaml": apply,
        "clusters/home/settings.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: cluster-settings, namespace: flux-system}
            data: {CLUSTER_PATH: clusters/home}
        """,
        "clusters/home/web.yaml": FLOATING % "home",
        "clusters/lab/flux.yaml": apply,
        "clusters/lab/kustomization.yaml": """
            resources: [flux.yaml, web.yaml]
            configMapGenerator:
            - {name: cluster-settings, namespace: flux-system, envs: [settings.env]}
            generatorOptions: {disableNameSuffixHash: true}
        """,
        "clusters/lab/settings.env": "CLUSTER_PATH=clusters/lab\n",
        "clusters/lab/web.yaml": FLOATING % "lab",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "clusters/home/web.yaml"),
        ("image-digest[floating]", "clusters/lab/web.yaml")]
    assert sorted(r.cluster for r in result.model.derived["reach"].roots) == [
        "clusters/home", "clusters/lab"]


def test_a_flux_instance_s_sync_path_is_what_each_cluster_folder_s_own_settings_give(
    tmp_path: Path,
) -> None:
    """aclerici38/home-ops, in short: the shared flux-instance HelmRelease syncs
    `${FLUX_PATH}`; the Kustomization applying it gets its `substituteFrom` from a parent's
    patch, and the instance is installed by a bootstrap first. Each cluster folder carries
    its own value: home's meta generates cluster-settings from an env file, cloud's writes
    it. Both clusters are roots (258 files were "not applied"); a ConfigMap that names a
    folder it does not lie in (stray.yaml) makes none."""
    write(tmp_path, {
        "apps/flux-instance/helmrelease.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: flux-instance, namespace: flux-system}
            spec:
              chartRef: {kind: OCIRepository, name: flux-instance}
              values:
                instance:
                  sync: {kind: GitRepository, url: https://github.com/acme/fleet,
                         path: "${FLUX_PATH}"}
        """,
        "globals.env": "FLUX_PATH=flux/home\nTZ=UTC\n",
        "flux/home/meta/kustomization.yaml": """
            configMapGenerator:
            - name: cluster-settings
              envs: [../../../globals.env]
            generatorOptions: {disableNameSuffixHash: true}
        """,
        "flux/home/web.yaml": FLOATING % "home",
        "flux/cloud/meta/settings.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: cluster-settings, namespace: flux-system}
            data: {FLUX_PATH: flux/cloud}
        """,
        "flux/cloud/web.yaml": FLOATING % "cloud",
        "flux/edge/web.yaml": FLOATING % "edge",
        "stray.yaml": """
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: other, namespace: flux-system}
            data: {FLUX_PATH: flux/edge}
        """,
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "flux/cloud/web.yaml"),
        ("image-digest[floating]", "flux/home/web.yaml")]
    assert [(r.cluster, r.how) for r in result.model.derived["reach"].roots] == [
        ("flux/cloud", "FluxInstance"), ("flux/home", "FluxInstance")]


def test_a_flux_instance_does_not_cancel_the_bootstrap_kustomization_of_its_repository(
    tmp_path: Path,
) -> None:
    # gavinmcfall/home-ops (judge round BC): a bootstrap task applies kubernetes/flux/config,
    # whose Kustomization `cluster` syncs ./kubernetes/flux (its own file, the
    # HelmRepositories, the cluster settings) from the repository the FluxInstance syncs
    # kubernetes/flux/cluster of; with the instance's root alone, 141 HelmReleases named
    # "a HelmRepository the cluster does not have". One bootstrap does not cancel another,
    # and both are one cluster.
    write(tmp_path, {
        "kubernetes/apps/flux-instance.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: flux-instance, namespace: flux-system}
            spec:
              chartRef: {kind: OCIRepository, name: flux-instance}
              values:
                instance:
                  sync: {kind: GitRepository, url: https://github.com/acme/home-ops,
                         path: kubernetes/flux/cluster}
        """,
        "kubernetes/flux/config/cluster.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: flux-system, namespace: flux-system}
            spec: {url: "https://github.com/acme/home-ops.git", ref: {branch: main}}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: cluster, namespace: flux-system}
            spec:
              path: ./kubernetes/flux
              prune: true
              sourceRef: {kind: GitRepository, name: flux-system}
        """,
        "kubernetes/flux/repositories/bjw-s.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: OCIRepository
            metadata: {name: app-template, namespace: flux-system}
            spec: {url: oci://ghcr.io/bjw-s-labs/helm/app-template, ref: {tag: 4.1.1}}
        """,
        "kubernetes/flux/cluster/ks.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: cluster-apps, namespace: flux-system}
            spec:
              path: ./kubernetes/apps
              prune: true
              sourceRef: {kind: GitRepository, name: flux-system}
        """,
        "kubernetes/apps/web.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: web, namespace: flux-system}
            spec:
              chartRef: {kind: OCIRepository, name: app-template}
              values: {}
        """,
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result) if "source" in r] == []
    roots = result.model.derived["reach"].roots
    assert sorted((r.cluster, r.how) for r in roots) == [
        ("kubernetes/flux", "FluxInstance"),
        ("kubernetes/flux", "self-applying Flux Kustomization")]


def test_with_a_flux_instance_another_repositorys_kustomization_is_no_sync(
    tmp_path: Path,
) -> None:
    # d4rkfella/home-ops: keycloak's Kustomization syncs ./kubernetes of keycloak's own
    # repository, a folder that holds its file here: it was taken for this repository's
    # self-applying sync (a cluster "kubernetes" with everything in it)
    write(tmp_path, {
        "kubernetes/apps/flux-instance.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: flux-instance, namespace: flux-system}
            spec:
              chartRef: {kind: OCIRepository, name: flux-instance}
              values:
                instance:
                  sync: {kind: GitRepository, url: https://github.com/acme/fleet,
                         path: kubernetes/flux/cluster}
        """,
        "kubernetes/flux/cluster/ks.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: keycloak, namespace: flux-system}
            spec: {url: https://github.com/keycloak/keycloak-k8s-resources}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: keycloak-operator, namespace: flux-system}
            spec:
              path: ./kubernetes
              sourceRef: {kind: GitRepository, name: keycloak}
        """,
        "kubernetes/unused/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("kustomize-integrity[not-applied]", "kubernetes/unused/web.yaml")]
    assert [r.path for r in result.model.derived["reach"].roots] == [
        "kubernetes/flux/cluster"]


def test_a_root_in_a_folder_kept_aside_roots_no_cluster(tmp_path: Path) -> None:
    # Ramblurr/home-ops: archive/k8s/k8s-prod/flux syncs ./k8s/k8s-prod/flux, which only
    # the archive holds; the live cluster is k8s/prod
    sync = """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: flux-system, namespace: flux-system}
        spec: {url: ssh://git@github.com/acme/home-ops}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: flux-system, namespace: flux-system}
        spec:
          path: %s
          sourceRef: {kind: GitRepository, name: flux-system}
    """
    write(tmp_path, {
        "archive/k8s/old/flux/gotk-sync.yaml": sync % "./k8s/old/flux",
        "archive/k8s/old/flux/web.yaml": FLOATING % "old",
        "k8s/live/flux/gotk-sync.yaml": sync % "./k8s/live/flux",
        "k8s/live/flux/web.yaml": FLOATING % "live",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "k8s/live/flux/web.yaml"),
        ("kustomize-integrity[not-applied]", "info", "archive/k8s/old/flux/gotk-sync.yaml")]
    assert [r.file for r in result.model.derived["reach"].roots] == [
        "k8s/live/flux/gotk-sync.yaml"]


@pytest.mark.parametrize("folder", ["examples/argocd", "test/manifests/cmp", "test/e2e/cases",
                                    "sample-manifests/argocd"])
def test_an_application_among_examples_is_no_root_of_the_repository(
        tmp_path: Path, folder: str) -> None:
    # prometheus-operator/kube-prometheus shows an Argo CD Application in
    # examples/continuous-delivery/argocd, argoproj/argo-cd tests some in test/: taken for
    # roots, they left kustomization.yaml and manifests/ "not applied by any cluster root"
    # (kube-prometheus: 1 object judged of 124 files; argo-cd: 2 of 2,370)
    write(tmp_path, {
        "kustomization.yaml": "resources: [manifests/web.yaml]\n",
        "manifests/web.yaml": FLOATING % "web",
        f"{folder}/application.yaml": f"""
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {{name: web, namespace: argocd}}
            spec:
              project: default
              source: {{repoURL: https://github.com/acme/web.git, path: {folder}/app}}
              destination: {{server: https://kubernetes.default.svc, namespace: web}}
        """,
        f"{folder}/app/web.yaml": FLOATING % "example",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert result.model.derived.get("reach") is None  # no roots: applied as written
    # (a test suite without roots is kept aside; a folder of examples beside the manifests
    # is judged with warnings that say so)
    example = ("kustomize-integrity[not-applied]", "info") if folder.startswith("test/") else (
        "image-digest[floating]", "warning")
    assert sorted((f, r, s) for r, s, f, _ in found(result)) == sorted([
        (f"{folder}/app/web.yaml", *example),
        ("manifests/web.yaml", "image-digest[floating]", "error")])


def test_an_application_in_an_environment_named_test_is_a_root(tmp_path: Path) -> None:
    # a test folder counts at the repository's top only: clusters/test is an environment
    write(tmp_path, {
        "clusters/test/apps.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: apps, namespace: argocd}
            spec:
              project: default
              source: {repoURL: https://github.com/acme/fleet.git, path: apps/test}
              destination: {server: https://kubernetes.default.svc, namespace: apps}
        """,
        "apps/test/web.yaml": FLOATING % "web",
        "apps/prod/web.yaml": FLOATING % "prod",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/test/web.yaml"),
        ("kustomize-integrity[not-applied]", "apps/prod/web.yaml")]


def test_configured_clusters_are_roots(tmp_path: Path) -> None:
    write(tmp_path, {
        ".reviewbot.yaml": "clusters:\n- {name: home, paths: [k8s/home]}\n",
        "k8s/home/web.yaml": FLOATING % "web",
        "k8s/lab/web.yaml": FLOATING % "lab",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "k8s/home/web.yaml"),
        ("kustomize-integrity[not-applied]", "k8s/lab/web.yaml")]


def test_a_sync_kustomization_patched_per_cluster_by_kustomize_is_a_root(
    tmp_path: Path,
) -> None:
    write(tmp_path, {
        "base/sync.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: flux-system, namespace: flux-system}
            spec:
              path: ./clusters/${CLUSTER}
              sourceRef: {kind: GitRepository, name: config}
        """,
        "base/kustomization.yaml": "resources: [sync.yaml]\n",
        "clusters/a/kustomization.yaml": """
            resources: [../../base, web.yaml]
            patches:
            - patch: |
                - {op: replace, path: /spec/path, value: ./clusters/a}
              target: {kind: Kustomization, name: flux-system}
        """,
        "clusters/a/web.yaml": FLOATING % "web",
        "unused/web.yaml": FLOATING % "unused",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "clusters/a/web.yaml"),
        ("kustomize-integrity[not-applied]", "unused/web.yaml")]


def test_without_roots_every_file_is_applied_as_written_but_archives(tmp_path: Path) -> None:
    write(tmp_path, {"examples/a/web.yaml": FLOATING % "a", "_archived/b.yaml": FLOATING % "b",
                     ".attic/c.yaml": FLOATING % "c", "old-app/d.yaml": FLOATING % "d",
                     # a retiring word in a folder's name (lynh7/home-cluster)
                     "charts/minecraft (deprecated)/e.yaml": FLOATING % "e",
                     # a kustomization kept aside builds nothing anyone applies
                     ".attic/app/kustomization.yaml": "resources: [../../templates/gone]\n"})
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    # (examples beside the repository's other files: judged, warnings that say so)
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "old-app/d.yaml"),
        ("image-digest[floating]", "warning", "examples/a/web.yaml"),
        ("kustomize-integrity[not-applied]", "info", ".attic/c.yaml"),
        ("kustomize-integrity[not-applied]", "info", "_archived/b.yaml"),
        ("kustomize-integrity[not-applied]", "info", "charts/minecraft (deprecated)/e.yaml")]
    assert [f.message for f in result.findings if f.kind == "not-applied"][1] == (
        "_archived (1 manifest file) is kept aside (an archive or hidden folder no build "
        "reads), so nothing in it is judged")


def test_without_roots_an_older_release_of_a_series_of_release_folders_is_not_applied(
        tmp_path: Path) -> None:
    """kserve/kserve (judge round BH): `install/v0.6.0-rc0/` ... `install/v0.20.0/` hold
    each release's manifests, frozen when it was made; a cluster is installed anew from the
    newest, and `v0.6.0-rc0`'s `:latest` was an error. A pre-release is older than its
    release; a lone folder named as a version is no series."""
    write(tmp_path, {"install/v0.6.0-rc0/a.yaml": FLOATING % "a",
                     "install/v0.6.0/b.yaml": FLOATING % "b",
                     "install/v0.10.0-rc1/c.yaml": FLOATING % "c",
                     "install/v0.10.0/d.yaml": FLOATING % "d",
                     "charts/app/1.2/e.yaml": FLOATING % "e"})
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "charts/app/1.2/e.yaml"),
        ("image-digest[floating]", "error", "install/v0.10.0/d.yaml"),
        ("kustomize-integrity[not-applied]", "info", "install/v0.10.0-rc1/c.yaml"),
        ("kustomize-integrity[not-applied]", "info", "install/v0.6.0-rc0/a.yaml"),
        ("kustomize-integrity[not-applied]", "info", "install/v0.6.0/b.yaml")]
    assert [s.reason for s in result.skipped if s.path == "install/v0.6.0"] == [
        "an older release (v0.6.0; v0.10.0 is the newest beside it): not applied"]
    assert [f.message for f in result.findings if f.file == "install/v0.6.0/b.yaml"] == [
        "install/v0.6.0 (1 manifest file) is not applied (an older release: v0.10.0 is the "
        "newest beside v0.6.0), so nothing in it is judged"]


def test_five_hundred_kustomizations_of_one_path_are_one_build(tmp_path: Path) -> None:
    # issue 29 item 19: 500 Flux Kustomizations with path ./apps over 500 Deployments
    many = "\n---\n".join(
        (APPS % ("./apps", "GitRepository", "flux-system")).replace("name: apps,", f"name: a{i},")
        for i in range(500))
    files = {"clusters/prod/apps.yaml": many}
    files.update({f"apps/web{i}.yaml": (FLOATING % f"web{i}").replace("web:latest", "web:1")
                  for i in range(500)})
    start = time.process_time()
    result = bootstrap(tmp_path, files)
    assert time.process_time() - start < 20  # was 49 s and 556 MB
    assert len(result.model.objects) == 500 + 500 + 2


def test_the_flux_instance_charts_values_are_a_root(tmp_path: Path) -> None:
    write(tmp_path, {
        "cluster/apps/flux-instance/helmrelease.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: flux-instance, namespace: flux-system}
            spec:
              chartRef: {kind: OCIRepository, name: flux-instance}
              values:
                instance:
                  sync: {kind: GitRepository, url: https://github.com/acme/home, path: cluster/base}
        """,
        "cluster/base/apps.yaml": APPS % ("./cluster/apps", "GitRepository", "flux-system"),
        "cluster/apps/kustomization.yaml": (
            "resources: [flux-instance/helmrelease.yaml, web.yaml]\n"),
        "cluster/apps/web.yaml": FLOATING % "web",
        "tools/debug-pod.yaml": FLOATING % "debug",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "cluster/apps/web.yaml"),
        ("kustomize-integrity[not-applied]", "tools/debug-pod.yaml")]


def test_a_sync_kustomization_that_applies_its_own_file_names_this_repository(
    tmp_path: Path,
) -> None:
    # bootstrapped by hand: its GitRepository is not called flux-system, and the child
    # Kustomizations of that source are this repository's
    write(tmp_path, {
        "kubernetes/flux/config/cluster.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: home-ops, namespace: flux-system}
            spec: {url: https://github.com/acme/home-ops.git}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: cluster, namespace: flux-system}
            spec:
              path: ./kubernetes/flux
              sourceRef: {kind: GitRepository, name: home-ops}
            ---
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: mirror, namespace: flux-system}
            spec: {url: https://git.home.arpa/acme/home-ops-mirror.git}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: mirror, namespace: flux-system}
            spec:
              path: ./kubernetes/flux
              sourceRef: {kind: GitRepository, name: mirror}
        """,
        "kubernetes/flux/apps.yaml": APPS % ("./kubernetes/apps", "GitRepository", "home-ops"),
        "kubernetes/apps/web.yaml": FLOATING % "web",
        ".archive/old/kustomization.yaml": "resources: [../../templates/gone]\n",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "kubernetes/apps/web.yaml")]
    # the mirror syncs the same folder from another repository: one root, not two
    reach = result.model.derived["reach"]
    assert [(r.how, r.path) for r in reach.roots] == [
        ("self-applying Flux Kustomization", "./kubernetes/flux")]


TWINS = {  # a public repository and its private twin sync one folder; the twin sorts first
    "kubernetes/cluster/apps-private.yaml": """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: home-ops-private, namespace: flux-system}
        spec: {url: ssh://git@github.com/acme/home-ops-private.git}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: cluster-private, namespace: flux-system}
        spec:
          path: ./kubernetes/cluster
          sourceRef: {kind: GitRepository, name: home-ops-private}
    """,
    "kubernetes/cluster/config.yaml": """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: home-ops, namespace: flux-system}
        spec: {url: https://github.com/acme/home-ops}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: cluster, namespace: flux-system}
        spec:
          path: ./kubernetes/cluster
          sourceRef: {kind: GitRepository, name: home-ops}
    """,
    "kubernetes/cluster/apps.yaml": APPS % ("./kubernetes/apps", "GitRepository", "home-ops"),
    "kubernetes/apps/web.yaml": FLOATING % "web",
}


def test_of_two_repositories_syncing_one_folder_the_checkouts_remote_names_this_one(
    tmp_path: Path,
) -> None:
    write(tmp_path, TWINS)
    with_remote(tmp_path, "git@github.com:acme/home-ops.git")
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "kubernetes/apps/web.yaml")]
    reach = result.model.derived["reach"]
    assert [(r.file, r.path) for r in reach.roots] == [
        ("kubernetes/cluster/config.yaml", "./kubernetes/cluster")]


def test_of_two_repositories_syncing_one_folder_without_a_remote_the_choice_is_said(
    tmp_path: Path,
) -> None:
    write(tmp_path, TWINS)  # no git: the first in file order is taken, and that is said
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("kustomize-integrity[not-applied]", "info", "kubernetes/apps/web.yaml")]
    reasons = {s.path: s.reason for s in result.model.skipped}
    assert reasons["kubernetes/cluster/apps.yaml"] == (
        "not followed: its spec.path is in GitRepository home-ops (github.com/acme/home-ops), "
        "not this repository: GitRepositories home-ops-private and home-ops both sync the "
        "folder holding their Kustomization, and home-ops-private, the first in file order, was "
        "taken as this repository (lint a git checkout whose remote names one of them)")


@pytest.mark.parametrize("workflow, push", [
    (".github/workflows/oci.yaml", 'flux push artifact "$OCI_REPO:$(git rev-parse HEAD)"'),
    # judge round CG (eleboucher/homelab): the URL on the line after the command's, a
    # Forgejo workflow's expression for its tag
    (".forgejo/workflows/oci.yaml", "DIGEST_URL=$(flux push artifact \\\n"
                                    "  $OCI_REPO:${{ forgejo.sha }}"),
])
def test_a_flux_instance_syncing_the_artifact_ci_pushes_applies_its_folder(
    tmp_path: Path, workflow: str, push: str,
) -> None:
    # the instance's values in a file a generator reads; the workflow names the artifact
    # through its env and an expression; the instance's OCIRepository is called flux-system
    run = textwrap.indent(push, " " * 20).lstrip()
    write(tmp_path, {
        workflow: f"""
            on: push
            env:
              OCI_REPO: "oci://ghcr.io/acme/manifests/${{{{ github.event.repository.name }}}}"
            jobs:
              publish:
                runs-on: ubuntu-latest
                steps:
                - run: |
                    {run} \\
                      --path="./kubernetes" \\
                      --source="$(git config --get remote.origin.url)"
        """,
        "kubernetes/clusters/home/flux-instance/values.yaml": """
            instance:
              sync: {kind: OCIRepository, url: oci://ghcr.io/acme/manifests/fleet,
                     ref: main, path: ./clusters/home}
        """,
        "kubernetes/clusters/home/flux-instance/kustomization.yaml": """
            configMapGenerator:
            - {name: flux-instance-values, files: [values.yaml]}
        """,
        "kubernetes/clusters/home/apps.yaml": APPS % ("./apps", "OCIRepository", "flux-system"),
        "kubernetes/apps/kustomization.yaml": """
            resources: [web.yaml]
            configMapGenerator:
            - {name: web-values, files: [values.yaml]}
        """,
        "kubernetes/apps/web.yaml": FLOATING % "web",
        "kubernetes/apps/values.yaml": "image: {repository: nginx, tag: latest}\n",
        "kubernetes/attic-app/web.yaml": FLOATING % "attic",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "kubernetes/apps/values.yaml"),
        ("image-digest[floating]", "kubernetes/apps/web.yaml"),
        ("kustomize-integrity[not-applied]", "kubernetes/attic-app/web.yaml")]


def test_an_artifact_url_a_script_assigns_is_read_and_one_of_no_literal_name_is_not(
    tmp_path: Path,
) -> None:
    """Judge round DY (krezh/dextek): the cluster's artifact pushed as `oci://${tag}`, the
    script assigning `tag="ghcr.io/${REPOSITORY_OWNER}/manifests/cluster:..."`, went unread;
    another workflow's `oci://$OCI_TAG`, a step's output (`*`), matched every URL, so the
    cluster's sync took that artifact's `/tmp/terraform` for its folder (2 false errors)."""
    write(tmp_path, {
        ".github/workflows/cluster.yaml": """
            on: push
            env:
              REPOSITORY_OWNER: ${{ github.repository_owner }}
            jobs:
              publish:
                runs-on: ubuntu-latest
                steps:
                - run: |
                    tag="ghcr.io/${REPOSITORY_OWNER}/manifests/cluster:$(git rev-parse HEAD)"
                    flux push artifact "oci://${tag}" \\
                      --path="./kubernetes"
        """,
        ".github/workflows/terraform.yaml": """
            on: push
            jobs:
              publish:
                runs-on: ubuntu-latest
                steps:
                - env:
                    OCI_TAG: ${{ steps.generate-tag.outputs.tag }}
                  run: flux push artifact oci://$OCI_TAG --path=/tmp/terraform
        """,
        "kubernetes/clusters/home/instance.yaml": """
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata: {name: flux, namespace: flux-system}
            spec:
              distribution: {version: 2.x}
              sync: {kind: OCIRepository, url: oci://ghcr.io/acme/manifests/cluster,
                     ref: main, path: ./clusters/home}
        """,
        "kubernetes/clusters/home/apps.yaml": APPS % ("./apps", "OCIRepository", "flux-system"),
        "kubernetes/apps/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "kubernetes/apps/web.yaml")]


def test_the_argocd_apps_charts_values_declare_the_application_sets(tmp_path: Path) -> None:
    write(tmp_path, {
        "system/argocd/Chart.yaml": "apiVersion: v2\nname: argocd\nversion: 0.0.0\n",
        "system/argocd/values.yaml": """
            argocd-apps:
              applicationsets:
                root:
                  generators:
                  - git:
                      repoURL: http://gitea/ops/homelab
                      directories: [{path: system/*}, {path: apps/*}]
                  template:
                    metadata: {name: '{{path.basename}}'}
                    spec:
                      destination: {name: in-cluster, namespace: '{{path.basename}}'}
                      source: {repoURL: http://gitea/ops/homelab, path: '{{path}}'}
        """,
        "apps/web/web.yaml": FLOATING % "web",
        "test/benchmark/job.yaml": FLOATING % "bench",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "test/benchmark/job.yaml")]


def test_a_kustomization_rendering_an_app_of_apps_chart_is_applied_with_its_values(
    tmp_path: Path,
) -> None:
    # bootstrap.sh: kustomize build bootstrap/overlays/$1 --enable-helm | oc apply -f -; each
    # layer's helmCharts renders Applications from its values.yaml. The overlays are applied
    # with their values (their own objects judged, no not-applied info), a cluster overlay
    # whose values declare nothing included; values that only a Component no kustomization
    # includes names are rendered by none
    chart = ("helmCharts:\n- {name: argocd-app-of-app, repo: https://gnunn-gitops.github.io/"
             "helm-charts, version: 0.4.1, valuesFile: values.yaml}\n")
    write(tmp_path, {
        "bootstrap/base/kustomization.yaml": chart,
        "bootstrap/base/values.yaml": """
            applications:
              web: {source: {path: components/web}}
        """,
        "bootstrap/overlays/home/kustomization.yaml": chart + "resources: [../../base, job.yaml]\n",
        "bootstrap/overlays/home/values.yaml": """
            applications:
              db: {source: {path: components/db}}
        """,
        "bootstrap/overlays/home/job.yaml": FLOATING % "seed",
        "bootstrap/overlays/aws/kustomization.yaml": chart + "resources: [../home]\n",
        "bootstrap/overlays/aws/values.yaml": "applications:\n",
        "bootstrap/components/kyverno/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n" + chart),
        "bootstrap/components/kyverno/values.yaml": """
            applications:
              kyverno: {source: {path: components/kyverno}}
        """,
        "components/web/web.yaml": FLOATING % "web",
        "components/db/db.yaml": FLOATING % "db",
        "components/kyverno/policy.yaml": FLOATING % "kyverno",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "bootstrap/overlays/home/job.yaml"),
        ("image-digest[floating]", "components/db/db.yaml"),
        ("image-digest[floating]", "components/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "bootstrap/components/kyverno/kustomization.yaml"),
        ("kustomize-integrity[not-applied]", "components/kyverno/policy.yaml")]


def test_each_cluster_substitutes_its_own_settings(tmp_path: Path) -> None:
    # two clusters define cluster-settings differently: each cluster's path takes its own
    files = {}
    for cluster in ("main", "utility"):
        files[f"clusters/{cluster}/flux-system/gotk-sync.yaml"] = SYNC.replace(
            "./clusters/prod", f"./clusters/{cluster}") + (
            "  postBuild:\n    substituteFrom:\n    - {kind: ConfigMap, name: cluster-settings}\n")
        files[f"clusters/{cluster}/settings.yaml"] = f"""
            apiVersion: v1
            kind: ConfigMap
            metadata: {{name: cluster-settings, namespace: flux-system}}
            data: {{CLUSTER: {cluster}}}
        """
        files[f"clusters/{cluster}/apps.yaml"] = APPS % (
            "./apps/${CLUSTER}", "GitRepository", "flux-system")
        files[f"apps/{cluster}/web.yaml"] = FLOATING % f"web-{cluster}"
    write(tmp_path, files)
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert sorted((f.file, sorted(result.model.clusters.get(id(o), ())))
                  for f in result.findings for o in result.model.objects
                  if o.name == f.object.rpartition("/")[2]) == [
        ("apps/main/web.yaml", ["clusters/main"]),
        ("apps/utility/web.yaml", ["clusters/utility"])]


def test_without_roots_a_folder_the_repositorys_validation_skips_is_not_applied(
    tmp_path: Path,
) -> None:
    write(tmp_path, {
        ".github/workflows/validate.yaml": """
            on: pull_request
            jobs:
              validate:
                runs-on: ubuntu-latest
                steps:
                - run: kubeconform -strict -ignore-filename-pattern 'k8s/experiments/' k8s
        """,
        "k8s/web/web.yaml": FLOATING % "web",
        "k8s/experiments/try.yaml": FLOATING % "try",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "k8s/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "k8s/experiments/try.yaml")]
    [info] = [f for f in result.findings if f.kind == "not-applied"]
    assert "the repository's own validation leaves it out" in info.message
    assert [s.path for s in result.model.skipped if "validation" in s.reason] == [
        "k8s/experiments"]


def test_a_repository_outside_git_and_outside_the_current_directory_reads_from_its_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # `lint /elsewhere/repo` from an unrelated folder finds the same roots, and reports the
    # same files, as `cd /elsewhere/repo && lint .` (no path of it is relative to the cwd)
    repo = tmp_path / "repo"
    bootstrap(repo, {"apps/kustomization.yaml": "resources: [web.yaml]\n",
                     "apps/web.yaml": FLOATING % "web", "test/bench.yaml": FLOATING % "bench"})
    outputs = []
    for cwd, target in ((repo, "."), (tmp_path / "elsewhere", str(repo))):
        cwd.mkdir(exist_ok=True)
        monkeypatch.chdir(cwd)
        outputs.append(run_cli(["lint", target, "--format", "json"], capsys)[:2])
    assert outputs[0] == outputs[1]
    assert '"file": "apps/web.yaml"' in outputs[1][1]
    assert '"file": "test/bench.yaml"' in outputs[1][1]  # its not-applied info, no error


def test_without_roots_a_component_no_kustomization_includes_is_applied_by_none(
        tmp_path: Path) -> None:
    # microservices-demo's kustomize/components: a Component is a part of the builds that
    # list it, never applied alone; its objects met others' in a false netpol-pairing error
    component = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [%s]\n"
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [web.yaml]\n",
        "base/web.yaml": FLOATING % "web",
        "components/used/kustomization.yaml": component % "used.yaml",
        "components/used/used.yaml": FLOATING % "used",
        "components/spare/kustomization.yaml": component % "spare.yaml",
        "components/spare/spare.yaml": FLOATING % "spare",
        "overlay/kustomization.yaml": "resources: [../base]\ncomponents: [../components/used]\n",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "base/web.yaml"),
        ("image-digest[floating]", "error", "components/used/used.yaml"),
        ("kustomize-integrity[not-applied]", "info", "components/spare/spare.yaml"),
    ]
    info = [f for f in result.findings if f.kind == "not-applied"][0]
    assert info.message == ("components/spare/spare.yaml is not applied (a kustomize Component "
                            "that no kustomization includes), so nothing in it is judged")
    assert info.fix == ("Add the Component to the `components:` of a kustomization a cluster "
                        "builds, or delete it if it is kept for reference.")
    assert "components/spare/spare.yaml" in [s.path for s in result.model.skipped]
    assert {o.name for o in result.model.objects} == {"web", "used"}


def test_without_roots_a_refusal_of_a_component_no_kustomization_includes_is_a_warning(
        tmp_path: Path) -> None:
    # sourcegraph/deploy-sourcegraph-k8s' components/custom/old-patches (judge round AT): its
    # null patch fails only the builds that include it, and none here does: no promise
    component = "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n%s"
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [web.yaml]\n",
        "base/web.yaml": FLOATING % "web",
        "components/used/kustomization.yaml": component % "resources: [gone.yaml]\n",
        "components/spare/kustomization.yaml": component % "patchesStrategicMerge:\n-\n",
        "overlay/kustomization.yaml": "resources: [../base]\ncomponents: [../components/used]\n",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [(f.severity, f.file, f.line) for f in result.findings] == [
        ("warning", "components/spare/kustomization.yaml", 4),
        ("error", "components/used/kustomization.yaml", 3)]
    assert result.findings[0].message.endswith(
        "Not certain: reviewbot could not see which build includes the Component: no "
        "kustomization of this repository lists it under `components:`, so its refusal fails "
        "only the builds elsewhere that include it.")


def test_without_roots_vendored_code_and_test_data_are_kept_aside_unless_built(
        tmp_path: Path) -> None:
    # kubernetes-sigs/kueue's vendor/k8s.io/.../pod.yaml (Go's vendoring) got image-digest
    # errors; a vendir vendor/ folder a kustomization builds stays applied
    write(tmp_path, {
        "vendor/k8s.io/apimachinery/pod.yaml": FLOATING % "go-test-pod",
        "pkg/loader/testdata/deploy.yaml": FLOATING % "fixture",
        # rancher/fleet-examples: tests/test.sh diffs `fleet test` against these
        "tests/expected/helm/dev-output.yaml": FLOATING % "snapshot",
        # fluxcd/flux2: a testdata kustomization (and a Flux Kustomization beside it) lists
        # a fixture invalid on purpose: kept aside all the same
        "internal/build/testdata/bad/resources/kustomization.yaml": "resources: [bad.yaml]\n",
        "internal/build/testdata/bad/resources/bad.yaml": FLOATING % "bad",
        "internal/build/testdata/bad/ks.yaml": (
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: test-ks, namespace: flux-system}\n"
            "spec: {path: ./resources, sourceRef: {kind: GitRepository, name: test}}\n"),
        "apps/expected/web.yaml": FLOATING % "an-app-named-so",
        "vendir/vendor/app/app.yaml": FLOATING % "vendired",
        "vendir/kustomization.yaml": "resources: [vendor/app/app.yaml]\n",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "apps/expected/web.yaml"),
        ("image-digest[floating]", "error", "vendir/vendor/app/app.yaml"),
        ("kustomize-integrity[not-applied]", "info", "internal/build/testdata/bad/ks.yaml"),
        ("kustomize-integrity[not-applied]", "info", "pkg/loader/testdata/deploy.yaml"),
        ("kustomize-integrity[not-applied]", "info", "tests/expected/helm/dev-output.yaml"),
        ("kustomize-integrity[not-applied]", "info", "vendor/k8s.io/apimachinery/pod.yaml"),
    ]
    aside = "is kept aside (vendored code or test data no build reads), so nothing in it is judged"
    assert sorted(f.message for f in result.findings if f.kind == "not-applied") == [
        f"internal (2 manifest files) {aside}", f"pkg (1 manifest file) {aside}",
        f"tests (1 manifest file) {aside}", f"vendor (1 manifest file) {aside}"]


def test_without_roots_a_third_party_folder_is_vendored_code_unless_built(
        tmp_path: Path) -> None:
    # knative/serving (judge round EM): third_party/kourier-latest/kourier.yaml is
    # net-kourier's release as it ships it, which only the e2e script installs on a test
    # cluster: its envoy `v1.37-latest` was an error. A kustomization that builds a vendored
    # release keeps it applied
    write(tmp_path, {
        "config/core/deployment.yaml": FLOATING % "controller",
        "third_party/kourier-latest/kourier.yaml": FLOATING % "kourier-gateway",
        "deploy/third_party/app/app.yaml": FLOATING % "vendored-and-built",
        "deploy/kustomization.yaml": "resources: [third_party/app/app.yaml]\n",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "config/core/deployment.yaml"),
        ("image-digest[floating]", "error", "deploy/third_party/app/app.yaml"),
        ("kustomize-integrity[not-applied]", "info", "third_party/kourier-latest/kourier.yaml"),
    ]
    assert [f.message for f in result.findings if f.kind == "not-applied"] == [
        "third_party (1 manifest file) is kept aside (vendored code or test data no build "
        "reads), so nothing in it is judged"]


def test_without_roots_a_folder_of_trials_is_not_certain(tmp_path: Path) -> None:
    # d-uzlov/k8s-homelab (judge round AL): failed trials in cloud/experiments/, which its
    # readmes no longer apply, were six errors of a repository applied by hand
    write(tmp_path, {
        "cloud/experiments/filestash/web.yaml": FLOATING % "filestash",
        "cloud/experiments/spacebar/kustomization.yaml": "resources: [gone.yaml]\n",
        "cloud/nextcloud/web.yaml": FLOATING % "nextcloud",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "cloud/nextcloud/web.yaml"),
        ("image-digest[floating]", "warning", "cloud/experiments/filestash/web.yaml"),
        ("kustomize-integrity[missing]", "warning",
         "cloud/experiments/spacebar/kustomization.yaml")]
    assert all(f.message.endswith(
        "Not certain: reviewbot could not see whether anything applies it: it is in a folder "
        "of trials (experiments/) of a repository no cluster root applies.")
        for f in result.findings if "experiments" in f.file)


def test_without_roots_what_only_example_builds_make_is_not_certain(tmp_path: Path) -> None:
    """networkservicemesh/deployments-k8s (judge round DC): examples' kustomizations build
    apps/nse-kernel and patch an untagged sidecar into it; the example's own Pod was a
    warning, the patched Deployment an error, and a helper of apps/ only examples build an
    error too. The certainty of a finding is that of the build that delivers its object.
    A base another build applies stays certain."""
    pinned = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nse}\nspec:\n"
              "  template:\n    spec:\n      containers: [{name: nse, image: 'nse:1@"
              "sha256:" + "a" * 64 + "'}]\n")
    write(tmp_path, {
        "apps/web/kustomization.yaml": "resources: [web.yaml]\n",
        "apps/web/web.yaml": FLOATING % "web",
        "apps/nse/kustomization.yaml": "resources: [nse.yaml]\n",
        "apps/nse/nse.yaml": pinned,
        "examples/demo/kustomization.yaml": ("resources: [../../apps/nse, client.yaml]\n"
                                             "patches: [{path: sidecar.yaml}]\n"),
        "examples/demo/sidecar.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nse}\nspec:\n"
            "  template:\n    spec:\n      containers: [{name: db, image: postgres}]\n"),
        "examples/demo/client.yaml": FLOATING % "client",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert sorted((s, f) for _, s, f, _ in found(result)) == [
        ("error", "apps/web/web.yaml"), ("warning", "examples/demo/client.yaml"),
        ("warning", "examples/demo/sidecar.yaml")]
    sidecar = next(f for f in result.findings if f.file == "examples/demo/sidecar.yaml")
    assert sidecar.message.endswith(
        "Not certain: reviewbot could not see whether anything applies it: only examples/demo "
        "builds it, in examples/, a folder of examples beside what it shows, of a repository "
        "no cluster root applies.")
    # a base an example only includes, unpatched, may be applied by hand as well (its
    # README's `kubectl apply -k apps/nse`: redhat-cop/gitops-catalog's grafana aggregate)
    write(tmp_path, {"apps/nse/nse.yaml": pinned.replace(
        "'nse:1@sha256:" + "a" * 64 + "'", "nse:latest"),
        "examples/demo/kustomization.yaml": "resources: [../../apps/nse, client.yaml]\n"})
    assert ("error", "apps/nse/nse.yaml") in [(s, f) for _, s, f, _ in found(
        lint_dir(tmp_path, only=["image-digest"]))]


def test_without_roots_the_developer_tools_folder_is_not_certain(tmp_path: Path) -> None:
    # substratusai/kubeai (judge round DA): hack/volume-debug-pod.yaml, a Pod a developer
    # applies by hand to debug a volume, nothing else, was an error of a repository without
    # roots; hack/ is the Kubernetes projects' folder of developer scripts and tools
    write(tmp_path, {"hack/volume-debug-pod.yaml": FLOATING % "debug",
                     "deploy/web.yaml": FLOATING % "web"})
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(s, f) for _, s, f, _ in found(result)] == [
        ("error", "deploy/web.yaml"), ("warning", "hack/volume-debug-pod.yaml")]
    assert result.findings[-1].message.endswith(
        "Not certain: reviewbot could not see whether anything applies it: it is in the folder "
        "of developer scripts and tools (hack/) of a repository no cluster root applies.")
    # what a script there creates from its own folder is applied (hack/dev-load/run.sh:
    # `this_dir=$(dirname "$0")`, then `kubectl create -f $this_dir/pod.yaml`)
    write(tmp_path, {"hack/dev-load/pod.yaml": FLOATING % "k6", "hack/dev-load/run.sh": (
        '#!/bin/bash\nthis_dir=$(dirname "$0")\nkubectl create -f $this_dir/pod.yaml\n')})
    assert [(s, f) for _, s, f, _ in found(lint_dir(tmp_path, only=["image-digest"]))] == [
        ("error", "deploy/web.yaml"), ("error", "hack/dev-load/pod.yaml"),
        ("warning", "hack/volume-debug-pod.yaml")]
    # and what a Makefile applies through its kubectl variable, a file or a kustomization
    # (mariadb-operator's make/deploy.mk and make/azure.mk, judge round BT)
    write(tmp_path, {
        "hack/manifests/sysbench.yaml": FLOATING % "sysbench",
        "hack/manifests/azurite/kustomization.yaml": "resources: [azurite.yaml]\n",
        "hack/manifests/azurite/azurite.yaml": FLOATING % "azurite",
        "make/deploy.mk": "sysbench:\n\t$(KUBECTL) apply -f ./hack/manifests/sysbench.yaml\n"
                          "azurite:\n\t$(KUBECTL) kustomize ./hack/manifests/azurite/ | envsubst"
                          " | $(KUBECTL) apply -f -\n"})
    assert [(s, f) for _, s, f, _ in found(lint_dir(tmp_path, only=["image-digest"]))] == [
        ("error", "deploy/web.yaml"), ("error", "hack/dev-load/pod.yaml"),
        ("error", "hack/manifests/azurite/azurite.yaml"),
        ("error", "hack/manifests/sysbench.yaml"), ("warning", "hack/volume-debug-pod.yaml")]


def test_without_roots_a_folder_of_examples_beside_what_it_shows_is_not_certain(
        tmp_path: Path) -> None:
    # redhat-cop/gitops-catalog (judge round AZ): a catalog item's examples/ beside its
    # operator/, and kubebuilder's config/samples/ beside config/default/, show how to use
    # what is beside them; nothing applies them (6 false errors). A folder holding nothing
    # but examples (a samples repository's tutorial) is what the repository offers.
    write(tmp_path, {
        "csi-driver-nfs/operator/kustomization.yaml": "resources: [web.yaml]\n",
        "csi-driver-nfs/operator/web.yaml": FLOATING % "driver",
        "csi-driver-nfs/examples/pod.yaml": FLOATING % "busybox",
        "notebooks/config/samples/notebook.yaml": FLOATING % "jupyter",
        "notebooks/config/default/kustomization.yaml": "resources: [gone.yaml]\n",
        "tutorial/examples/getting-started/vllm.yaml": FLOATING % "vllm",
        # a Kubernetes exam's practice beside them (judge round EK: lisenet/kubernetes-
        # homelab's cka/ and ckad/ study notes, 6 errors)
        "cka/yaml/pod.yaml": FLOATING % "exam",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert sorted((r, s, f) for r, s, f, _ in found(result)) == [
        ("image-digest[floating]", "error", "csi-driver-nfs/operator/web.yaml"),
        ("image-digest[floating]", "error", "tutorial/examples/getting-started/vllm.yaml"),
        ("image-digest[floating]", "warning", "cka/yaml/pod.yaml"),
        ("image-digest[floating]", "warning", "csi-driver-nfs/examples/pod.yaml"),
        ("image-digest[floating]", "warning", "notebooks/config/samples/notebook.yaml"),
        ("kustomize-integrity[missing]", "error",
         "notebooks/config/default/kustomization.yaml")]
    assert next(f.message for f in result.findings if "examples/pod" in f.file).endswith(
        "Not certain: reviewbot could not see whether anything applies it: it is in "
        "csi-driver-nfs/examples/, a folder of examples beside what it shows, of a repository "
        "no cluster root applies.")


def test_without_roots_a_component_only_examples_include_is_not_certain(
        tmp_path: Path) -> None:
    """Judge round DL's sourcegraph/deploy-sourcegraph-k8s: components/executors/k8s, a
    Component only examples/executors includes, is applied with that example or not at all
    (a Component is never applied by itself): its objects' findings are warnings that say
    so, as the example's own are. A base an example includes may be applied by hand: judged
    as written (judge round CW)."""
    write(tmp_path, {
        "components/executors/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
            "resources: [executor.yaml]\n"),
        "components/executors/executor.yaml": FLOATING % "executor",
        "base/app/kustomization.yaml": "resources: [web.yaml]\n",
        "base/app/web.yaml": FLOATING % "web",
        "examples/executors/kustomization.yaml": (
            "resources: [../../base/app]\ncomponents: [../../components/executors]\n"),
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert sorted((f.file, f.severity) for f in result.findings) == [
        ("base/app/web.yaml", "error"), ("components/executors/executor.yaml", "warning")]
    assert next(f.message for f in result.findings if "executor" in f.file).endswith(
        "only examples/executors builds it, in examples/, a folder of examples beside what "
        "it shows, of a repository no cluster root applies.")


def test_without_roots_a_folder_of_tests_inputs_beside_what_they_test_is_not_certain(
        tmp_path: Path) -> None:
    # VtG242/KMONS (judge round CP): a vendored kube-state-metrics keeps its end-to-end
    # fixtures in tests/manifests/ (image `nonexisting`, on purpose), which its own e2e
    # script creates; its kustomization lists its examples/standard/ alone. Five false
    # errors.
    write(tmp_path, {
        "base/ksm/kustomization.yaml": "resources: [standard/web.yaml]\n",
        "base/ksm/standard/web.yaml": FLOATING % "ksm",
        "base/ksm/tests/manifests/job.yaml": FLOATING % "nonexisting",
        "base/ksm/tests/e2e.sh": "kubectl create -f ./tests/manifests/\n",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert sorted((f.file, f.severity) for f in result.findings) == [
        ("base/ksm/standard/web.yaml", "error"),
        ("base/ksm/tests/manifests/job.yaml", "warning")]
    assert next(f.message for f in result.findings if "tests/" in f.file).endswith(
        "it is in base/ksm/tests/, a folder of tests' inputs beside what they test, of a "
        "repository no cluster root applies.")


def test_without_roots_a_manifest_beside_those_a_script_applies_by_name_is_not_certain(
        tmp_path: Path) -> None:
    # vllm-project/production-stack (judge round BA): install.sh applies
    # configs/vllm/gpu-deployment.yaml by name; vllm-runtime.yaml beside it, a stale example
    # no script or doc applies, gave 14 errors. A folder no script chooses from is applied as
    # written, and so is one a script applies whole.
    write(tmp_path, {
        "gateway/install.sh": "kubectl apply -f configs/vllm/gpu-deployment.yaml\n"
                              "kubectl apply -f configs/all/\n",
        "gateway/configs/vllm/gpu-deployment.yaml": FLOATING % "vllm",
        "gateway/configs/vllm/vllm-runtime.yaml": FLOATING % "runtime",
        "gateway/configs/all/web.yaml": FLOATING % "web",
        "tutorials/web.yaml": FLOATING % "tutorial",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert sorted((f.file, f.severity) for f in result.findings) == [
        ("gateway/configs/all/web.yaml", "error"),
        ("gateway/configs/vllm/gpu-deployment.yaml", "error"),
        ("gateway/configs/vllm/vllm-runtime.yaml", "warning"),
        ("tutorials/web.yaml", "error")]
    assert next(f.message for f in result.findings if "runtime" in f.file).endswith(
        "Not certain: reviewbot could not see whether anything applies it: gateway/install.sh "
        "applies gpu-deployment.yaml beside it by name, not this file.")
    # a Terraform file reading a file of the folder by name chooses alike (the tutorial's
    # kubeconfig template beside a test claim no step applies, 2 false errors)
    write(tmp_path / "tf", {
        "eks/main.tf": 'locals { k = templatefile("${path.module}/config/kubeconfig.tpl", {}) }\n',
        "eks/config/kubeconfig.tpl": "apiVersion: v1\nkind: Config\n",
        "eks/config/efs-test.yaml": FLOATING % "busybox",
    })
    result = lint_dir(tmp_path / "tf", only=["image-digest"])
    assert [(f.file, f.severity) for f in result.findings] == [
        ("eks/config/efs-test.yaml", "warning")]
    assert result.findings[0].message.endswith(
        "eks/main.tf reads kubeconfig.tpl beside it by name, not this file.")


def test_a_flux_bootstrap_in_a_folder_of_examples_roots_nothing(tmp_path: Path) -> None:
    # mariadb-operator (judge round BT): examples/flux/clusters/production/flux-system's
    # sync rooted the operator's repository as a Flux cluster, its config/ "not applied by
    # any cluster root" and unjudged. A bootstrap in a folder of examples shows a setup, as
    # an Argo CD Application there does: the tree is judged as written, the examples not
    # certain.
    write(tmp_path, {
        "examples/flux/clusters/production/flux-system/gotk-sync.yaml": SYNC.replace(
            "./clusters/prod", "./examples/flux/clusters/production"),
        "examples/flux/clusters/production/apps.yaml": FLOATING % "example",
        "config/manager/manager.yaml": FLOATING % "manager",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert sorted((f.file, f.severity) for f in result.findings) == [
        ("config/manager/manager.yaml", "error"),
        ("examples/flux/clusters/production/apps.yaml", "warning")]
    # a cluster named `example` is an environment (judge round CA: swaptacular's one
    # cluster, clusters/example, rooted nothing; a template its scripts copy in, 9 errors)
    write(tmp_path / "named", {
        "clusters/example/flux-system/gotk-sync.yaml": SYNC.replace(
            "./clusters/prod", "./clusters/example"),
        "clusters/example/apps.yaml": FLOATING % "example",
        "apps/template/stomp-client.yaml": FLOATING % "stomp",
    })
    result = lint_dir(tmp_path / "named", only=["image-digest"])
    assert [(f.file, f.severity) for f in result.findings] == [
        ("clusters/example/apps.yaml", "error")]


def test_without_roots_a_spark_pod_template_a_script_names_is_not_certain(
        tmp_path: Path) -> None:
    # awslabs/ai-on-eks (judge round BO): execute_spark_rapids_xgboost.sh syncs its folder to
    # S3 and passes driver-pod-template.yaml as spark.kubernetes.driver.podTemplateFile:
    # Spark merges its driver container into the template, which has none ("missing
    # required field containers" was false). A manifest beside it is judged as written.
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: driver, namespace: spark}\n"
           "spec:\n  nodeSelector: {gpu: 'true'}\n")
    write(tmp_path, {
        "xgboost/run.sh": 'aws s3 sync ./ ${S3}\naws emr-containers start-job-run '
                          '--configuration-overrides \'{"spark.kubernetes.driver.podTemplate'
                          'File":"\'"$S3"\'/driver-pod-template.yaml"}\'\n',
        "xgboost/driver-pod-template.yaml": pod,
        "xgboost/other.yaml": pod.replace("driver", "other"),
    })
    result = lint_dir(tmp_path, only=["schema"])
    assert sorted((f.file, f.severity) for f in result.findings) == [
        ("xgboost/driver-pod-template.yaml", "warning"), ("xgboost/other.yaml", "error")]
    assert next(f.message for f in result.findings if "driver" in f.file).endswith(
        "whether anything applies it: xgboost/run.sh hands it to Spark as a pod template "
        "(podTemplateFile), which Spark merges its own container into.")


def test_without_roots_a_folder_beside_folders_their_own_scripts_apply_is_not_certain(
        tmp_path: Path) -> None:
    # jkershawrh/fleet-llm-d (judge round BS): deploy/arena/deploy.sh and deploy/brutus/
    # deploy.sh apply their folders' files by name; deploy/demo-cluster/ (a superseded copy)
    # and deploy/mock-inference/ (a Deployment beside its Dockerfile) hold no script and
    # nothing applies them: 13 false errors. A sibling with a script of its own, or a
    # kustomization, is judged as before; one folder applied by its own script sets no such
    # pattern.
    apply = "kubectl apply -f web.yaml\n"
    write(tmp_path, {
        "deploy/arena/deploy.sh": apply, "deploy/arena/web.yaml": FLOATING % "arena",
        "deploy/brutus/deploy.sh": apply, "deploy/brutus/web.yaml": FLOATING % "brutus",
        "deploy/demo-cluster/web.yaml": FLOATING % "demo",
        "deploy/mock/Dockerfile": "FROM scratch\n", "deploy/mock/web.yaml": FLOATING % "mock",
        "deploy/praxis/run.sh": "helm template x | kubectl apply -f -\n",
        "deploy/praxis/web.yaml": FLOATING % "praxis",
        "deploy/kust/kustomization.yaml": "resources: [web.yaml]\n",
        "deploy/kust/web.yaml": FLOATING % "kust",
        "other/one/deploy.sh": apply, "other/one/web.yaml": FLOATING % "one",
        "other/two/web.yaml": FLOATING % "two",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert sorted((f.file, f.severity) for f in result.findings) == [
        ("deploy/arena/web.yaml", "error"), ("deploy/brutus/web.yaml", "error"),
        ("deploy/demo-cluster/web.yaml", "warning"), ("deploy/kust/web.yaml", "error"),
        ("deploy/mock/web.yaml", "warning"), ("deploy/praxis/web.yaml", "error"),
        ("other/one/web.yaml", "error"), ("other/two/web.yaml", "error")]
    assert next(f.message for f in result.findings if "demo" in f.file).endswith(
        "Not certain: reviewbot could not see whether anything applies it: the scripts of "
        "deploy/arena/ and deploy/brutus/ apply their own folders' files by name, and nothing "
        "applies deploy/demo-cluster/ beside them.")


def test_without_roots_a_rendered_copy_of_a_build_is_not_certain(tmp_path: Path) -> None:
    # devops-anilgupta/Multi-App-Project (judge round BO): k8s/full-dev.yaml, a stale render
    # of overlays/dev (the same dev-* objects) that no script, README or kustomization names,
    # gave 2 errors beside the build's own. The build keeps its error; a file of other objects
    # beside it, and a one-object file, are applied as written.
    service = "---\napiVersion: v1\nkind: Service\nmetadata: {name: %s, namespace: %s}\n" \
        "spec: {selector: {app: web}, ports: [{port: 80}]}\n"
    write(tmp_path, {
        "k8s/base/kustomization.yaml": "resources: [web.yaml, service.yaml]\n",
        "k8s/base/web.yaml": FLOATING % "web",
        "k8s/base/service.yaml": service % ("web", "apps"),
        "overlays/dev/kustomization.yaml": "namePrefix: dev-\nnamespace: dev\n"
                                           "resources: [../../k8s/base]\n",
        "k8s/full-dev.yaml": (FLOATING % "dev-web").replace("namespace: apps", "namespace: dev")
        + service % ("dev-web", "dev"),
        "k8s/other.yaml": FLOATING % "other" + service % ("dev-web", "dev"),
        "k8s/one.yaml": (FLOATING % "dev-web").replace("namespace: apps", "namespace: dev"),
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert sorted((f.file, f.object, f.severity) for f in result.findings) == [
        ("k8s/base/web.yaml", "Deployment/dev/dev-web", "error"),
        ("k8s/full-dev.yaml", "Deployment/dev/dev-web", "warning"),
        ("k8s/one.yaml", "Deployment/dev/dev-web", "error"),
        ("k8s/other.yaml", "Deployment/apps/other", "error")]
    assert next(f.message for f in result.findings if f.file == "k8s/full-dev.yaml").endswith(
        "Not certain: reviewbot could not see whether anything applies it: its 2 objects are "
        "the ones kustomization overlays/dev builds from other files (a rendered copy of that "
        "build, which no kustomization lists and no script applies).")


def test_without_roots_a_tree_whose_appliers_are_chart_templates_is_not_certain(
        tmp_path: Path) -> None:
    # ibm-mas/gitops (judge round AP): every Argo CD Application is a template of its
    # root-applications charts, which reviewbot does not render; an overlay in rbac/exmaple/
    # (an example, its readme says, of what a script writes elsewhere) gave 7 errors.
    # Without those templates the same tree is applied as written, as before.
    files = {
        "rbac/exmaple/overlays/admin/kustomization.yaml": "resources: [../../../base]\n",
        "apps/web/web.yaml": FLOATING % "web",
        "README.md": "# the platform\n",  # (a whole checkout: a missing folder is missing)
    }
    write(tmp_path / "plain", files)
    plain = lint_dir(tmp_path / "plain", only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(plain)] == [
        ("image-digest[floating]", "error", "apps/web/web.yaml"),
        ("kustomize-integrity[missing]", "error",
         "rbac/exmaple/overlays/admin/kustomization.yaml")]
    write(tmp_path / "charted", {**files,
        "root-applications/instance-root/Chart.yaml": "apiVersion: v2\nname: root\n"
                                                      "version: 1.0.0\n",
        "root-applications/instance-root/templates/010-db2u-app.yaml": """
            {{- if .Values.db2u }}
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata:
              name: db2u.{{ .Values.cluster.id }}
            spec:
              source: {repoURL: "{{ .Values.source.repo_url }}", path: cluster-applications/db2u}
            {{- end }}
        """,
    })
    charted = lint_dir(tmp_path / "charted", only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(charted)] == [
        ("image-digest[floating]", "warning", "apps/web/web.yaml"),
        ("kustomize-integrity[missing]", "warning",
         "rbac/exmaple/overlays/admin/kustomization.yaml")]
    assert all(f.message.endswith(
        "Not certain: reviewbot could not see whether anything applies it: the repository's "
        "Argo CD Applications or Flux Kustomizations are chart templates "
        "(root-applications/instance-root/templates/010-db2u-app.yaml), which reviewbot does "
        "not render.") for f in charted.findings)


def test_without_roots_a_file_named_as_a_template_is_kept_aside_unless_built(
        tmp_path: Path) -> None:
    # d-uzlov/k8s-homelab (judge round AL): its readme seds the placeholders of
    # ingress/external-services/template.yaml into a git-ignored file, which it applies;
    # the template's `hostnames: [httproute_domain]` was a schema error. A kustomization
    # that lists such a file applies it as written.
    write(tmp_path, {
        "ingress/external/template.yaml": FLOATING % "template",
        ".taskfiles/job.tmpl.yaml": FLOATING % "task",
        "apps/web/kustomization.yaml": "resources: [web.tpl.yaml]\n",
        "apps/web/web.tpl.yaml": FLOATING % "built",
        "apps/api/api.yaml": FLOATING % "api",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "apps/api/api.yaml"),
        ("image-digest[floating]", "error", "apps/web/web.tpl.yaml"),
        ("kustomize-integrity[not-applied]", "info", ".taskfiles/job.tmpl.yaml"),
        ("kustomize-integrity[not-applied]", "info", "ingress/external/template.yaml")]
    assert [f.message for f in result.findings if f.file.startswith("ingress")] == [
        "ingress (1 manifest file) is kept aside (a template a tool fills in before applying "
        "it, which no build reads), so nothing in it is judged"]


def test_without_roots_test_suites_docs_and_underscore_folders_are_kept_aside(
        tmp_path: Path) -> None:
    # an operator's repository: kuttl/chainsaw suites apply fixtures to a test cluster they
    # make and assert partial objects (`02-assert.yaml`) against it; its website shows
    # examples; Go ignores `_testdata`. kyverno, opentelemetry-operator, kueue and
    # argocd-image-updater had 2,086 false errors there. A folder of examples stays judged,
    # beside the repository's own manifests with warnings that say so (judge round AZ).
    assertion = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\n"
    write(tmp_path, {
        "test/e2e/suite/001-simple/02-assert.yaml": assertion,
        "tests/conformance/pod.yaml": FLOATING % "fixture",
        "e2e/pod.yaml": FLOATING % "e2e-pod",
        # (judge round EF: gateway-api-inference-extension's conformance/resources, which
        # its Go harness embeds and applies to a test cluster)
        "conformance/resources/base.yaml": FLOATING % "conformance-base",
        "clusters/e2e/web.yaml": FLOATING % "an-e2e-environment",
        "docs/manual/job.yaml": FLOATING % "doc-example",
        # (judge round BL: FudanSELab/train-ticket's superseded `old-docs/k8s/`, 64 errors)
        "old-docs/k8s/job.yaml": FLOATING % "old-doc-example",
        "cmd/cli/_testdata/pod.yaml": FLOATING % "go-ignored",
        # (judge round EB: strimzi's Maven `src/test/resources`, invalid on purpose)
        "operator/src/test/resources/example2.yaml": FLOATING % "unit-test-data",
        "examples/web.yaml": FLOATING % "example",
        "clusters/test/web.yaml": FLOATING % "an-environment",
        # a test's kustomization patching the repository's own manifests (argo-cd's
        # test/manifests/cmp patches manifests/namespace-install): it builds nothing a
        # cluster receives, so its patch makes no variant of the manifest
        "manifests/kustomization.yaml": "resources: [api.yaml]\n",
        "manifests/api.yaml": FLOATING.replace("web:latest", "api:1.0@sha256:" + "0" * 64)
        % "api",
        "test/cmp/kustomization.yaml": "resources: [../../manifests]\npatches:\n"
                                       "  - path: patch.yaml\n",
        "test/cmp/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\n"
                               "metadata: {name: api, namespace: apps}\nspec:\n  template:\n"
                               "    spec:\n      containers: [{name: web, image: jq}]\n",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity", "schema"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "clusters/e2e/web.yaml"),
        ("image-digest[floating]", "error", "clusters/test/web.yaml"),
        ("image-digest[floating]", "warning", "examples/web.yaml"),
        ("kustomize-integrity[not-applied]", "info", "cmd/cli/_testdata/pod.yaml"),
        ("kustomize-integrity[not-applied]", "info", "conformance/resources/base.yaml"),
        ("kustomize-integrity[not-applied]", "info", "docs/manual/job.yaml"),
        ("kustomize-integrity[not-applied]", "info", "e2e/pod.yaml"),
        ("kustomize-integrity[not-applied]", "info", "old-docs/k8s/job.yaml"),
        ("kustomize-integrity[not-applied]", "info",
         "operator/src/test/resources/example2.yaml"),
        ("kustomize-integrity[not-applied]", "info", "test/cmp/patch.yaml"),  # (test/ all)
        ("kustomize-integrity[not-applied]", "info", "tests/conformance/pod.yaml"),
    ]
    assert sorted(f.message.split(" is kept aside ")[1] for f in result.findings
                  if f.kind == "not-applied") == sorted([
        "(a test suite, which its harness applies to a test cluster, no build reads), so "
        "nothing in it is judged"] * 4 + [
        "(a folder named with a leading _, which tools such as go ignore, no build reads), so "
        "nothing in it is judged"] + [
        "(documentation no build reads), so nothing in it is judged"] * 2 + [
        "(a program's unit-test resources, which its tests read, no build reads), so "
        "nothing in it is judged"])
    assert {f.fix for f in result.findings if f.kind == "not-applied"} == {
        "Nothing to do if it is kept for tests, documentation or reference; if a cluster "
        "should receive it, move it out and list it where a cluster's root builds it."}
    # what a lint names is judged: a folder kept aside is one below the linted target
    from reviewbot.config import Config
    from reviewbot.engine.run import analyze
    from reviewbot.sources.tree import disk_tree

    part = analyze(disk_tree([tmp_path / "tests" / "conformance"], tmp_path), Config(),
                   only=["image-digest"])
    assert [(f.file, f.severity) for f in part.findings] == [
        ("tests/conformance/pod.yaml", "error")]
    # a kuttl step's assertion holds partial objects the step waits for, whatever is linted
    suite = analyze(disk_tree([tmp_path / "test" / "e2e"], tmp_path), Config(),
                    only=["schema", "image-digest"])
    assert [(f.file, f.rule) for f in suite.findings] == []


def test_without_roots_a_yaml_file_named_as_a_test_s_beside_unit_tests_is_their_data(
        tmp_path: Path) -> None:
    """tektoncd/plumbing's koparse (judge round AX): test_release.yaml beside
    test_koparse.py is the unit test's data (a CRD of tasks.tekton.dev without v1beta1,
    which made 55 false api-lifecycle errors on the Tasks the cluster receives). A file not
    named as a test's, or one beside no test program, is applied as before."""
    (tmp_path / "tools/koparse").mkdir(parents=True)
    (tmp_path / "tools/koparse/test_koparse.py").write_text("open('test_release.yaml')\n")
    (tmp_path / "tools/koparse/koparse.py").write_text("")
    write(tmp_path, {
        "tools/koparse/test_release.yaml": FLOATING % "fixture",
        "tools/koparse/release.yaml": FLOATING % "shipped",
        "tools/other/test_release.yaml": FLOATING % "no-test-beside",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "tools/koparse/release.yaml"),
        ("image-digest[floating]", "error", "tools/other/test_release.yaml"),
        ("kustomize-integrity[not-applied]", "info", "tools/koparse/test_release.yaml")]
    assert ("tools/koparse/test_release.yaml", "test inputs of unit test "
            "tools/koparse/test_koparse.py: not applied") in [
        (s.path, s.reason) for s in result.model.skipped]


def test_a_folder_a_script_copies_to_make_a_cluster_s_folder_is_a_template(
        tmp_path: Path) -> None:
    """aws-samples/eks-multi-cluster-gitops (judge round AY): bin/add-cluster.sh copies
    clusters/template/* to clusters/<name> and replaces `cluster-name` in the copy; the
    template's own Flux sync was a cluster's root, and its path ./clusters/cluster-name
    "does not exist", an error. A template is applied where it is copied to, never in
    place; the clusters made of it are judged as before."""
    sync = SYNC.replace("./clusters/prod", "./clusters/%s")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin/add-cluster.sh").write_text(
        'root=$(realpath "$1")\nmkdir -p $root/clusters/$2\n'
        'cp -R $root/clusters/template/* $root/clusters/$2\n'
        'grep -RiIl cluster-name $root/clusters/$2 | xargs sed -i "s/cluster-name/$2/g"\n')
    write(tmp_path, {
        "clusters/template/flux-system/gotk-sync.yaml": sync % "cluster-name",
        "clusters/template/app.yaml": FLOATING % "template",
        "clusters/prod/flux-system/gotk-sync.yaml": sync % "prod",
        "clusters/prod/app.yaml": FLOATING % "prod",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "clusters/prod/app.yaml"),
        ("kustomize-integrity[not-applied]", "info", "clusters/template/app.yaml")]
    assert ("clusters/template", "a template bin/add-cluster.sh copies to make the folders "
            "it applies (cp -R): not applied where it is") in [
        (s.path, s.reason) for s in result.model.skipped]
    # without roots, a folder copied as it is (rackerlabs/genestack's bootstrap seeds the
    # operator's configuration from etc/gateway-api) is judged in place; a template is not
    seeded = tmp_path / "seeded"
    (seeded / "etc/skel").mkdir(parents=True)
    (seeded / "bootstrap.sh").write_text(
        'cp -a "${BASEDIR}/etc/gateway-api" "$CONFIG"/\ncp -r "${BASEDIR}/etc/skel" "$C"/\n')
    write(seeded, {"etc/gateway-api/app.yaml": FLOATING % "seeded",
                   "etc/skel/app.yaml": FLOATING % "skel"})
    assert [(r, s, f) for r, s, f, _ in found(lint_dir(seeded, only=["image-digest"]))] == [
        ("image-digest[floating]", "error", "etc/gateway-api/app.yaml")]


def test_a_folder_terraform_copies_from_its_templates_is_a_template(tmp_path: Path) -> None:
    """GoogleCloudPlatform/accelerated-platforms (judge round BN): each workload's main.tf
    runs `wget .../manifests.yaml -O $DIR/manifests.yaml && cp -r templates/workload/* $DIR/`
    in a provisioner, and applies $DIR with kustomize: templates/workload's own
    "'manifests.yaml' does not exist" was an error (seven of them). A folder below
    `templates/` a Terraform command copies (relative to the module, `path.module`) is a
    template, applied where it is copied to."""
    (tmp_path / "jobset/templates/workload").mkdir(parents=True)
    (tmp_path / "jobset/main.tf").write_text(
        'resource "terraform_data" "manifests" {\n'
        '  provisioner "local-exec" {\n'
        '    command = <<EOT\n'
        'wget https://example.com/manifests.yaml -O "${self.input.dir}/manifests.yaml" && \\\n'
        'cp -r templates/workload/* "${self.input.dir}/"\n'
        'EOT\n  }\n}\n')
    write(tmp_path, {"jobset/templates/workload/kustomization.yaml":
                     "resources: [manifests.yaml]\npatches: [{path: patch.yaml}]\n",
                     "jobset/templates/workload/patch.yaml": FLOATING % "jobset"})
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s) for r, s, _, _ in found(result) if s == "error"] == []


def test_a_pod_a_script_applies_and_deletes_in_one_run_is_transient(tmp_path: Path) -> None:
    """szinn/k8s-homelab (judge round BN): hack/ashell.sh applies hack/alpine.yaml, execs a
    shell in the pod and deletes it: its floating image was an error about a pod that runs
    for one shell session. What a script applies and deletes in one run is not certain to
    run for good: a warning that says so. A file the script applies and keeps is judged."""
    pod = """apiVersion: v1
kind: Pod
metadata: {name: NAME, namespace: default}
spec: {containers: [{name: shell, image: alpine}]}
"""
    write(tmp_path, {
        "hack/ashell.sh": "kubectl apply -f hack/alpine.yaml\n"
                          "kubectl -n default exec -it alpine-shell -- sh\n"
                          "kubectl delete pod alpine-shell\n"
                          "kubectl apply -f hack/keep.yaml\n",
        "hack/alpine.yaml": pod.replace("NAME", "alpine-shell"),
        "hack/keep.yaml": pod.replace("NAME", "keeper")})
    result = lint_dir(tmp_path, only=["image-digest"])
    assert sorted((f.file, f.severity) for f in result.findings) == [
        ("hack/alpine.yaml", "warning"), ("hack/keep.yaml", "error")]
    (transient,) = [f for f in result.findings if f.file == "hack/alpine.yaml"]
    assert transient.message.endswith(
        "Not certain: reviewbot could not see whether it runs past hack/ashell.sh, which "
        "applies it and deletes it in one run (it lives while the script runs).")


def test_without_roots_a_base_no_overlay_includes_beside_bases_they_do_is_not_applied(
        tmp_path: Path) -> None:
    """tektoncd/plumbing's cronjobs/bases (judge round AX): its overlays build on some of the
    bases there; the others (folder, helm, tekton-service: templates with placeholder
    values) were applied as written, and their images errors. A folder of bases none of
    which an overlay includes is applied base by base, as before."""
    write(tmp_path, {
        "cronjobs/bases/cleanup/kustomization.yaml": "resources: [job.yaml]\n",
        "cronjobs/bases/cleanup/job.yaml": FLOATING % "cleanup",
        "cronjobs/bases/folder/kustomization.yaml": "resources: [job.yaml]\n",
        "cronjobs/bases/folder/job.yaml": FLOATING % "folder",
        "cronjobs/dogfooding/kustomization.yaml": "resources: [../bases/cleanup]\n",
        "other/bases/web/kustomization.yaml": "resources: [web.yaml]\n",
        "other/bases/web/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "cronjobs/bases/cleanup/job.yaml"),
        ("image-digest[floating]", "error", "other/bases/web/web.yaml"),
        ("kustomize-integrity[not-applied]", "info", "cronjobs/bases/folder/job.yaml")]
    assert ("cronjobs/bases/folder/job.yaml", "a base in cronjobs/bases/ no kustomization "
            "includes, where overlays include the bases beside it: not applied") in [
        (s.path, s.reason) for s in result.model.skipped]


def test_without_roots_what_a_test_harness_names_is_its_input_not_applied(
        tmp_path: Path) -> None:
    # open-policy-agent/gatekeeper-library: each policy's suite.yaml (gator) names its
    # samples, evaluated in memory or applied to a kind cluster the tests make and expect
    # to be denied: 633 errors there; kyverno's CLI Test and chainsaw's Test name theirs so
    write(tmp_path, {
        "library/repos/template.yaml": FLOATING % "template-stand-in",
        "library/repos/kustomization.yaml": "resources: [template.yaml]\n",
        "library/repos/suite.yaml": """
            apiVersion: test.gatekeeper.sh/v1alpha1
            kind: Suite
            metadata: {name: repos}
            tests:
            - template: template.yaml
              constraint: samples/repo-must-be-ours/constraint.yaml
              cases:
              - {name: allowed, object: samples/repo-must-be-ours/example_allowed.yaml}
        """,
        "library/repos/samples/repo-must-be-ours/constraint.yaml": FLOATING % "constraint",
        "library/repos/samples/repo-must-be-ours/example_allowed.yaml": FLOATING % "allowed",
        "policies/kyverno-test.yaml": """
            apiVersion: cli.kyverno.io/v1alpha1
            kind: Test
            metadata: {name: t}
            policies: [policy.yaml]
            resources: [inputs/resource.yaml]
        """,
        "policies/inputs/resource.yaml": FLOATING % "kyverno-input",
        "checks/chainsaw-test.yaml": """
            apiVersion: chainsaw.kyverno.io/v1alpha1
            kind: Test
            metadata: {name: c}
            spec:
              steps:
              - try:
                - apply: {file: pod.yaml}
                - assert: {file: pod-assert.yaml}
        """,
        "checks/pod.yaml": FLOATING % "chainsaw-applied",
        "checks/pod-assert.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity", "schema"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "library/repos/template.yaml"),
        ("kustomize-integrity[not-applied]", "info", "checks/pod-assert.yaml"),
        ("kustomize-integrity[not-applied]", "info",
         "library/repos/samples/repo-must-be-ours/constraint.yaml"),
        ("kustomize-integrity[not-applied]", "info", "policies/inputs/resource.yaml"),
    ]
    assert {s.path: s.reason for s in result.model.skipped} == {
        "checks": "test inputs of chainsaw Test checks/chainsaw-test.yaml: not applied",
        "library/repos/samples": ("test inputs of gatekeeper Suite library/repos/suite.yaml: "
                                  "not applied"),
        "library/repos/suite.yaml": ("a gatekeeper Suite, a test harness's own file: not "
                                     "applied"),
        "policies": "test inputs of kyverno Test policies/kyverno-test.yaml: not applied",
    }


# Substitution walks only the objects some text of theirs may spell a ``${`` in; each case
# brings the variable through another text than the object's own document (which holds none)
SPELLED = {
    "the kustomization's namespace": (
        {"apps/kustomization.yaml": "namespace: ns-${APP}\nresources: [web.yaml]\n"},
        ("metadata", "namespace"), "ns-real"),
    "the kustomization's labels": (
        {"apps/kustomization.yaml": "commonLabels: {team: '${APP}'}\nresources: [web.yaml]\n"},
        ("metadata", "labels", "team"), "real"),
    "a component's name prefix": (
        {"apps/kustomization.yaml": "resources: [web.yaml]\ncomponents: [../parts]\n",
         "parts/kustomization.yaml": ("apiVersion: kustomize.config.k8s.io/v1alpha1\n"
                                      "kind: Component\nnamePrefix: ${APP}-\n")},
        ("metadata", "name"), "real-web"),
    "a patch file": (
        {"apps/kustomization.yaml": "resources: [web.yaml]\npatches: [{path: patch.yaml}]\n",
         "apps/patch.yaml": ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                             "spec: {replicas: '${N}'}\n")},
        ("spec", "replicas"), 3),
    "another document of the patch's file": (
        {"apps/kustomization.yaml": "resources: [web.yaml]\npatches: [{path: patch.yaml}]\n",
         "apps/patch.yaml": ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                             "spec: {paused: false}\n---\nkind: Other\nname: '${APP}'\n")},
        ("spec", "paused"), False),
    "a replacement's source": (
        {"apps/kustomization.yaml": (
            "resources: [web.yaml, settings.yaml]\nreplacements:\n"
            "- source: {kind: ConfigMap, name: settings, fieldPath: data.team}\n"
            "  targets:\n  - select: {kind: Deployment}\n"
            "    fieldPaths: [metadata.labels.team]\n    options: {create: true}\n"),
         "apps/settings.yaml": ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n"
                                "data: {team: '${APP}'}\n")},
        ("metadata", "labels", "team"), "real"),
    "the Flux Kustomization's targetNamespace": (
        {"clusters/prod/apps.yaml": "  targetNamespace: ${APP}\n"},
        ("metadata", "namespace"), "real"),
    "the Flux Kustomization's patches": (
        {"clusters/prod/apps.yaml": (
            "  patches:\n  - target: {kind: Deployment}\n    patch: |\n"
            "      - {op: add, path: /metadata/labels/team, value: '${APP}'}\n")},
        ("metadata", "labels", "team"), "real"),
    "a name a patch gave the object it refers to": (
        {"apps/kustomization.yaml": (
            "namespace: apps\nresources: [inner, web.yaml]\n"
            "patches: [{path: rename.yaml, target: {kind: ConfigMap, name: cm}}]\n"),
         "apps/inner/kustomization.yaml": "namespace: apps\nresources: [cm.yaml]\n",
         "apps/inner/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
         "apps/rename.yaml": "- {op: replace, path: /metadata/name, value: 'cm-${APP}'}\n",
         "apps/web.yaml": ('image: "web:latest"}',
                           'image: "web:latest", envFrom: [{configMapRef: {name: cm}}]}')},
        ("spec", "template", "spec", "containers", 0, "envFrom", 0, "configMapRef", "name"),
        "cm-real"),
    "an escaped dollar": (
        {"apps/web.yaml": ("tier: x", "tier: x, team: \"\\x24{APP}\"")},
        ("metadata", "labels", "team"), "real"),
}


@pytest.mark.parametrize("case", sorted(SPELLED))
def test_a_variable_any_text_of_a_build_brings_is_substituted(tmp_path: Path, case: str) -> None:
    extra, path, expected = SPELLED[case]
    files = {"apps/kustomization.yaml": "resources: [web.yaml]\n",
             "apps/web.yaml": (FLOATING % "web").replace("namespace: apps", "namespace: apps, "
                                                         "labels: {tier: x}"),
             "clusters/prod/apps.yaml": APPS % ("./apps", "GitRepository", "flux-system") + (
                 "  postBuild:\n    substitute: {APP: real, N: '3'}\n")}
    for name, text in extra.items():
        if name == "clusters/prod/apps.yaml":
            files[name] = files[name].replace("  postBuild:", text + "  postBuild:")
        elif name == "apps/web.yaml":
            files[name] = files[name].replace(*text)
        else:
            files[name] = text
    result = bootstrap(tmp_path, files)
    web = next(o for o in result.model.objects if o.kind == "Deployment")
    value: Any = web.body
    for step in path:
        value = value[step]
    assert value == expected


ARGO_APP = """
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %s, namespace: argocd}
spec:
  project: default
  destination: {server: https://kubernetes.default.svc, namespace: apps}
  source: {repoURL: https://github.com/acme/fleet.git, path: %s}
"""


def test_an_application_its_folder_s_built_kustomization_leaves_out_is_no_root(
        tmp_path: Path) -> None:
    """ADORSYS-GIS/fineract-gitops, in short: the app of apps builds apps/dev, whose
    kustomization lists web.yaml and not old.yaml, nor (commented out, with a note) the
    Application in ops/, nor one in a disabled/ folder: none of those is applied by hand,
    so their apps are not applied."""
    write(tmp_path, {
        "bootstrap/dev.yaml": ARGO_APP % ("dev", "apps/dev"),
        "apps/dev/kustomization.yaml": "resources:\n- web.yaml\n",
        "apps/dev/web.yaml": ARGO_APP % ("web", "web"),
        "apps/dev/old.yaml": ARGO_APP % ("old", "old"),
        "apps/dev/disabled/logs.yaml": ARGO_APP % ("logs", "logs"),
        "ops/kustomization.yaml": "resources:\n# - job.yaml (managed by apps/dev)\n- a.yaml\n",
        "ops/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        "ops/job.yaml": ARGO_APP % ("job", "job"),
        **{f"{app}/deploy.yaml": FLOATING % app for app in ("web", "old", "logs", "job")},
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(f[0], f[1], f[2]) for f in found(result) if f[1] != "info"] == [
        ("image-digest[floating]", "error", "web/deploy.yaml"),
        ("kustomize-integrity[unreachable]", "warning", "apps/dev/old.yaml")]
    assert {f[2] for f in found(result) if f[1] == "info"} >= {
        "job/deploy.yaml", "logs/deploy.yaml", "old/deploy.yaml"}


def test_applications_in_a_folder_below_a_built_kustomization_that_leaves_them_out_are_no_roots(
        tmp_path: Path) -> None:
    """Judge round DR (gruberdev/homelab): the app of apps builds apps/argocd/services,
    whose kustomization lists gitea.yaml and leaves its media/ folder (no kustomization of
    its own) out; media's Applications were "applied by hand", four false errors in a
    retired stack. A folder of examples there stays a guess, as elsewhere."""
    write(tmp_path, {
        "bootstrap/services.yaml": ARGO_APP % ("services", "apps/argocd/services"),
        "apps/argocd/services/kustomization.yaml": "resources:\n- gitea.yaml\n",
        "apps/argocd/services/gitea.yaml": ARGO_APP % ("gitea", "gitea"),
        "apps/argocd/services/media/beets.yaml": ARGO_APP % ("beets", "beets"),
        **{f"{app}/deploy.yaml": FLOATING % app for app in ("gitea", "beets")},
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(f[0], f[1], f[2]) for f in found(result) if f[1] != "info"] == [
        ("image-digest[floating]", "error", "gitea/deploy.yaml"),
        ("kustomize-integrity[unreachable]", "warning", "apps/argocd/services/media/beets.yaml")]
    assert "beets/deploy.yaml" in {f[2] for f in found(result) if f[1] == "info"}
    assert next(f.message for f in result.findings if f.kind == "unreachable") == (
        "beets.yaml is in media/, below apps/argocd/services/kustomization.yaml, but listed by "
        "no kustomization, so it is never applied (kustomize reads what a kustomization names)")


def test_a_kustomization_of_flux_kustomizations_applied_from_outside_is_a_cluster_entry(
        tmp_path: Path) -> None:
    """brunovlucena/homelab, in short: Pulumi applies flux/clusters/pro, a kustomization of
    Flux Kustomizations (no flux-system sync in the tree); they build flux/apps/a, and
    flux/apps/b is listed by none. The entry is a root: b is not applied. A folder of
    workloads beside a Flux Kustomization is no entry: such a tree is applied as written."""
    deploy = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: app-%s, namespace: apps}
        spec:
          selector: {matchLabels: {app: x}}
          template:
            metadata: {labels: {app: x}}
            spec:
              containers: [{name: c, image: "busybox:latest"}]
    """
    flux = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: pro-apps, namespace: flux-system}\n"
            "spec: {path: ./flux/apps/a, sourceRef: {kind: GitRepository, name: homelab}}\n")
    write(tmp_path / "entry", {
        "flux/clusters/pro/kustomization.yaml": "resources: [deploy/apps.yaml]\n",
        "flux/clusters/pro/deploy/apps.yaml": flux,
        "flux/apps/a/kustomization.yaml": "resources: [deployment.yaml]\n",
        "flux/apps/a/deployment.yaml": deploy % "a",
        "flux/apps/b/kustomization.yaml": "resources: [deployment.yaml]\n",
        "flux/apps/b/deployment.yaml": deploy % "b",
    })
    result = lint_dir(tmp_path / "entry", only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "error", "flux/apps/a/deployment.yaml"),
        ("kustomize-integrity[not-applied]", "info", "flux/apps/b/deployment.yaml")]
    assert [(r.cluster, r.how) for r in result.model.derived["reach"].roots] == [
        ("flux/clusters/pro", "kustomization applying Flux Kustomizations")]
    write(tmp_path / "mixed", {
        "flux/clusters/pro/kustomization.yaml": "resources: [deploy/apps.yaml, web.yaml]\n",
        "flux/clusters/pro/deploy/apps.yaml": flux,
        "flux/clusters/pro/web.yaml": deploy % "web",
        "flux/apps/a/kustomization.yaml": "resources: [deployment.yaml]\n",
        "flux/apps/a/deployment.yaml": deploy % "a",
        "flux/apps/b/kustomization.yaml": "resources: [deployment.yaml]\n",
        "flux/apps/b/deployment.yaml": deploy % "b",
    })
    mixed = lint_dir(tmp_path / "mixed", only=["image-digest"])
    assert mixed.model.derived["reach"] is None and len(mixed.findings) == 3


def test_the_folder_holding_the_source_of_a_cluster_entry_is_applied_with_it(
        tmp_path: Path) -> None:
    """brunovlucena/homelab, the rest of it (judge round DV, 17 false errors): the Pulumi
    program that applies flux/clusters/pro applies flux/infrastructure/flux first, the one
    folder declaring GitRepository homelab, which the entry's Flux Kustomizations sync from,
    and the HelmRepositories of its releases. Whatever applies the entry applies that folder
    too, or nothing syncs: the release's HelmRepository is the cluster's. Two folders
    declaring that GitRepository tell neither."""
    source = ("apiVersion: source.toolkit.fluxcd.io/v1\nkind: %s\n"
              "metadata: {name: %s, namespace: flux-system}\nspec: {url: %s}\n")
    tree = {
        "flux/clusters/pro/kustomization.yaml": "resources: [deploy/apps.yaml]\n",
        "flux/clusters/pro/deploy/apps.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: pro-apps, namespace: flux-system}
            spec: {path: ./flux/apps/a, sourceRef: {kind: GitRepository, name: homelab}}
        """,
        "flux/apps/a/kustomization.yaml": "resources: [release.yaml]\n",
        "flux/apps/a/release.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: loki, namespace: loki}
            spec:
              chart:
                spec:
                  chart: loki
                  version: 6.0.0
                  sourceRef: {kind: HelmRepository, name: grafana, namespace: flux-system}
        """,
        "flux/infrastructure/flux/kustomization.yaml": "resources: [homelab.yaml, helm.yaml]\n",
        "flux/infrastructure/flux/homelab.yaml": source % (
            "GitRepository", "homelab", "https://github.com/acme/homelab"),
        "flux/infrastructure/flux/helm.yaml": source % (
            "HelmRepository", "grafana", "https://grafana.github.io/helm-charts"),
    }
    write(tmp_path / "one", tree)
    result = lint_dir(tmp_path / "one", only=["kustomize-integrity"])
    assert [(f.kind, f.severity) for f in result.findings if f.severity != "info"] == []
    assert [(r.cluster, r.file) for r in result.model.derived["reach"].roots] == [
        ("flux/clusters/pro", "flux/clusters/pro/kustomization.yaml"),
        ("flux/clusters/pro", "flux/infrastructure/flux/kustomization.yaml")]
    assert result.model.derived["reach"].roots[1].how == (
        "kustomization applied with flux/clusters/pro/kustomization.yaml (it holds "
        "GitRepository flux-system/homelab, which that one's Flux Kustomizations sync from)")
    write(tmp_path / "two", {**tree, "flux/kind/kustomization.yaml": "resources: [g.yaml]\n",
                             "flux/kind/g.yaml": source % ("GitRepository", "homelab", "x")})
    two = lint_dir(tmp_path / "two", only=["kustomize-integrity"])
    assert [(f.kind, f.severity, f.file) for f in two.findings if f.severity != "info"] == [
        ("source", "error", "flux/apps/a/release.yaml")]


def test_an_oci_artifact_nobody_here_pushes_is_no_folder_of_the_tree(tmp_path: Path) -> None:
    """duynhlab/homelab, in short: a FluxInstance syncs an OCI artifact a script pushes
    (its CI does not), and the Kustomization apps builds `path: ./` of another artifact.
    That path is the artifact's top, not the repository's: infra/, whose top no cluster
    builds, is no build of apps, so its failing entry says nothing of apps; and what the
    clusters receive is not known, so every finding is a warning that says why."""
    write(tmp_path, {
        "clusters/local/flux-system/instance.yaml": """
            apiVersion: fluxcd.controlplane.io/v1
            kind: FluxInstance
            metadata: {name: flux, namespace: flux-system}
            spec:
              distribution: {version: 2.x}
              sync: {kind: OCIRepository, url: "oci://registry:5000/cluster-sync", ref: local,
                     path: ./}
        """,
        "clusters/local/apps.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: apps, namespace: flux-system}
            spec: {path: ./, sourceRef: {kind: OCIRepository, name: apps-oci}}
        """,
        "README.md": "A tree with files besides YAML: a missing entry is missing.\n",
        "apps/web.yaml": FLOATING % "web",
        "infra/kustomization.yaml": "resources: [configs/]\n",
        "infra/configs/kustomization.yaml": "resources: [monitoring/, db.yaml]\n",
        "infra/configs/db.yaml": FLOATING % "db",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, s, f) for r, s, f, _ in found(result)] == [
        ("image-digest[floating]", "warning", "apps/web.yaml"),
        ("image-digest[floating]", "warning", "infra/configs/db.yaml"),
        ("kustomize-integrity[missing]", "warning", "infra/configs/kustomization.yaml")]
    web = next(f for f in result.findings if f.file == "apps/web.yaml")
    assert web.message.endswith(
        " Not certain: reviewbot could not see which folders the FluxInstance in "
        "clusters/local/flux-system/instance.yaml applies: it syncs OCI artifact "
        "oci://registry:5000/cluster-sync, which no CI step of this repository pushes.")
    assert "apps" not in next(f for f in result.findings if f.rule == "kustomize-integrity"
                              ).message.partition(" Not certain")[0]
    # nor is db "Not applied" because infra's top build fails: which build the unseen roots
    # make is not known (judge round CX: Flux builds infra/configs/databases on its own)
    db = next(f for f in result.findings if f.file == "infra/configs/db.yaml")
    assert " Not applied: " not in db.message
    # and the summary does not say there is no FluxInstance
    assert result.stats["roots"].startswith(
        "none followed (reviewbot could not see which folders the FluxInstance in ")


def test_an_application_of_another_revision_applies_files_reviewbot_did_not_read(
        tmp_path: Path) -> None:
    # HowDiggy/k8s-gitops: under a root of main, one Application reads targetRevision dev;
    # the cluster gets dev's files, and an error on main's copy held only by chance
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {{name: {name}, namespace: argocd}}
        spec:
          project: default
          source: {{repoURL: https://github.com/x/y.git, targetRevision: {rev}, path: {path}}}
          destination: {{server: https://kubernetes.default.svc, namespace: {name}}}
        """
    write(tmp_path, {
        "root/app.yaml": app.format(name="root", rev="main", path="apps"),
        "apps/web.yaml": app.format(name="web", rev="HEAD", path="apps/web"),
        "apps/api.yaml": app.format(name="api", rev="dev", path="apps/api"),
        "apps/web/web.yaml": FLOATING % "web",
        "apps/api/api.yaml": FLOATING % "api",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(s, f) for _, s, f, _ in found(result)] == [
        ("error", "apps/web/web.yaml"), ("warning", "apps/api/api.yaml")]
    assert next(f for f in result.findings if f.severity == "warning").message.endswith(
        "Not certain: reviewbot could not see the files Argo CD Application argocd/api "
        "applies: it reads revision dev of this repository, not the default branch, whose "
        "files reviewbot read.")


def test_an_application_of_another_repository_is_followed_on_a_guess(
        tmp_path: Path) -> None:
    """Judge round DA (redhat-cop's template): under an app of apps reading this repository,
    an Application reading another one whose layout this tree shares (its path exists here
    too) was followed as if it were this one, and a broken kustomization there an error.
    It may be a mirror (khuedoan/homelab's in-cluster Gitea): what it alone applies is said
    with what reviewbot could not see. An Application of the parent's repository, or of none
    named, is this one's."""
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {{name: {name}, namespace: argocd}}
        spec:
          project: default
          source: {{repoURL: '{url}', targetRevision: HEAD, path: {path}}}
          destination: {{server: https://kubernetes.default.svc, namespace: {name}}}
        """
    write(tmp_path, {
        "root/app.yaml": app.format(name="root", url="https://github.com/me/this.git",
                                    path="apps"),
        "apps/web.yaml": app.format(name="web", url="git@github.com:me/this.git",
                                    path="apps/web"),
        "apps/api.yaml": app.format(name="api", url="https://github.com/other/repo.git",
                                    path="apps/api"),
        "apps/web/web.yaml": FLOATING % "web",
        "apps/api/api.yaml": FLOATING % "api",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(s, f) for _, s, f, _ in found(result)] == [
        ("error", "apps/web/web.yaml"), ("warning", "apps/api/api.yaml")]
    assert next(f for f in result.findings if f.severity == "warning").message.endswith(
        "Not certain: reviewbot could not see whether github.com/other/repo is this "
        "repository: Argo CD Application argocd/api reads apps/api from it, and what applies "
        "it reads github.com/me/this; reviewbot read apps/api of this tree.")
    # the URL most of the tree's sources name is this repository's, though a parent reads
    # another (judge round CI: proompteng/lab's root, read by one of its old name)
    write(tmp_path, {
        "root/app.yaml": app.format(name="root", url="https://github.com/old/name.git",
                                    path="apps"),
        "apps/web.yaml": app.format(name="web", url="https://github.com/other/repo.git",
                                    path="apps/web")})
    assert [(s, f) for _, s, f, _ in found(lint_dir(tmp_path, only=["image-digest"]))] == [
        ("error", "apps/api/api.yaml"), ("error", "apps/web/web.yaml")]


def test_the_text_output_says_which_roots_it_found_or_that_it_found_none(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial forty-six: a tree whose Flux root reviewbot did not find read like one
    whose root it did (every file judged as written, quietly). The text output says the
    roots, or that there is none."""
    write(tmp_path / "rootless", {"web.yaml": FLOATING % "web"})
    _, out, _ = run_cli(["lint", str(tmp_path / "rootless"), "--rule", "image-digest"],
                        capsys)
    assert ("roots: none found (no Flux sync or bootstrap Kustomization, FluxInstance, Argo CD "
            "Application or configured cluster): the tree is judged as applied as written, its "
            "kustomizations as kustomize builds them") in out.splitlines()
    write(tmp_path / "argo", {"root.yaml": APP % ("root", "apps", "apps"),
                              "apps/web.yaml": FLOATING % "web"})
    _, out, _ = run_cli(["lint", str(tmp_path / "argo"), "--rule", "image-digest"], capsys)
    assert "roots: root.yaml (Argo CD)" in out.splitlines()


def test_argo_cd_applications_deploying_to_named_clusters_are_those_clusters(
        tmp_path: Path) -> None:
    """New-user trial forty-eight: a root Application in Argo CD's cluster, its Applications
    deploying to `destination: {name: dev}` and `{name: prod}`: the walk built each for its
    destination, yet dev and prod were judged as one cluster (the roots' clusters alone were
    clusters), and a `.reviewbot.yaml` entry had to give `paths` (roots of their own, which
    kept what the change removed from the root). Each destination is a cluster; an entry
    without `paths` gives it its nodes."""
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {{name: {name}, namespace: argocd}}
        spec:
          project: default
          source: {{repoURL: 'https://git.example.org/gitops.git', path: {path}}}
          destination: {{name: {cluster}, namespace: llm}}
          syncPolicy: {{automated: {{prune: true}}}}
    """
    gpu = ("    nodes:\n      - name: gpu-1\n        allocatable: {cpu: '32', memory: 250Gi, "
           "nvidia.com/gpu: '%d'}\n")
    server = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: vllm, namespace: llm}
        spec:
          replicas: 1
          selector: {matchLabels: {app: vllm}}
          template:
            metadata: {labels: {app: vllm}}
            spec:
              containers:
              - name: vllm
                image: vllm/vllm-openai@sha256:%s
                resources: {limits: {nvidia.com/gpu: %d}}
    """
    write(tmp_path, {
        ".reviewbot.yaml": "clusters:\n  - name: dev\n" + gpu % 1 + "  - name: prod\n"
                           + gpu % 4,
        "argocd/root.yaml": app.format(name="root", path="argocd/apps", cluster="in-cluster"),
        "argocd/apps/vllm-dev.yaml": app.format(name="vllm-dev", path="apps/dev", cluster="dev"),
        "argocd/apps/vllm-prod.yaml": app.format(name="vllm-prod", path="apps/prod",
                                                 cluster="prod"),
        "apps/dev/vllm.yaml": server % ("a" * 64, 1),
        "apps/prod/vllm.yaml": server % ("b" * 64, 4),
    })
    result = lint_dir(tmp_path, only=["schedulability"])
    assert sorted(result.model.cluster_entries) == ["dev", "in-cluster", "prod"]
    assert result.findings == []  # each fits its own cluster's node
    write(tmp_path, {"apps/dev/vllm.yaml": server % ("a" * 64, 2)})
    assert [(f.file, f.kind) for f in lint_dir(tmp_path, only=["schedulability"]).findings] == [
        ("apps/dev/vllm.yaml", "too-big")]


def test_a_configured_cluster_no_destination_names_is_said_with_the_one_meant(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """New-user trial fifty: `.reviewbot.yaml` named clusters `staging` and `production`,
    the Applications deploy to `destination.server` URLs (Argo CD names such a cluster by
    its URL): the entries' nodes and versions were dropped without a word, and a GPU pod
    too big for production's nodes passed."""
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {{name: {name}, namespace: argocd}}
        spec:
          project: default
          source: {{repoURL: 'https://git.example.org/gitops.git', path: {path}}}
          destination: {{server: '{server}', namespace: llm}}
    """
    write(tmp_path, {
        ".reviewbot.yaml": "clusters:\n  - name: staging\n    kubernetes-version: '1.31'\n"
                           "  - name: https://prod.example.org:6443\n"
                           "    kubernetes-version: '1.31'\n",
        "argocd/apps/staging.yaml": app.format(
            name="staging", path="apps/staging", server="https://staging.example.org:6443"),
        "argocd/apps/prod.yaml": app.format(
            name="prod", path="apps/prod", server="https://prod.example.org:6443"),
        "apps/staging/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        "apps/prod/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    })
    result = lint_dir(tmp_path, only=["schema"])
    assert [s.reason for s in result.model.skipped if s.path == ".reviewbot.yaml"] == [
        "clusters: entry staging names no cluster of the tree (its clusters: "
        "https://prod.example.org:6443, https://staging.example.org:6443; an Argo "
        "CD destination without a name is named by its server URL), so its nodes and "
        "Kubernetes version judge nothing; did you mean https://staging.example.org:6443?"]
    # a lint says it on stderr too, where a stale `measured:` entry is said (new-user trial
    # eighty-one W11: under "skipped" alone, it went unread and every check judged less)
    monkeypatch.chdir(tmp_path)
    _, _, err = run_cli(["lint", ".", "--rule", "schema"], capsys)
    assert ("reviewbot: .reviewbot.yaml: clusters: entry staging names no cluster of the "
            "tree (") in err
    # new-user trial seventy-three (D3): a tree without a root (an ApplicationSet's selector
    # misspelt, no Application made) has no cluster to give them: each is said too
    for folder in ("argocd", "apps/prod"):
        shutil.rmtree(tmp_path / folder)
    result = lint_dir(tmp_path, only=["schema"])
    assert [s.reason for s in result.model.skipped if s.path == ".reviewbot.yaml"] == [
        f"clusters: entry {name} names no cluster of the tree (it has no cluster root to "
        "tell the configured clusters apart), so its nodes judge nothing (the Kubernetes "
        "version all of them set, 1.31, is the tree's)"
        for name in ("https://prod.example.org:6443", "staging")]
    assert result.model.inventory.kubernetes_version == "1.31"
    # versions apart: neither is the tree's
    write(tmp_path, {".reviewbot.yaml": "clusters:\n  - name: staging\n"
                                        "    kubernetes-version: '1.31'\n"
                                        "  - name: prod\n    kubernetes-version: '1.29'\n"})
    result = lint_dir(tmp_path, only=["schema"])
    assert [s.reason.split("), so ")[1] for s in result.model.skipped
            if s.path == ".reviewbot.yaml"] == [
        "its nodes and Kubernetes version judge nothing"] * 2


def test_a_configured_cluster_path_the_tree_no_longer_holds_is_said(tmp_path: Path) -> None:
    """New-user trial seventy-four (D2): the staging overlay deleted while its CI job and
    `.reviewbot.yaml` still apply it: "cluster staging: 0 objects", nothing else said."""
    write(tmp_path, {
        ".reviewbot.yaml": "clusters:\n  - {name: dev, paths: [overlays/dev]}\n"
                           "  - {name: staging, paths: [./overlays/staging/]}\n",
        "overlays/dev/kustomization.yaml": "resources: [cm.yaml]\n",
        "overlays/dev/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    })
    result = lint_dir(tmp_path, only=["schema"])
    assert [s.reason for s in result.model.skipped if s.path == ".reviewbot.yaml"] == [
        "clusters: entry staging's path overlays/staging names nothing of the tree (moved or "
        "deleted?): nothing of it is judged, and what applies it to that cluster (kubectl "
        "apply -k, a Flux path) fails"]


def test_a_chart_s_crds_are_its_content_not_a_folder_no_root_applies(tmp_path: Path) -> None:
    """Judge round CC (michaelmcnees/homelab): a Flux HelmRelease installs a chart of the
    tree, whose `crds/` Helm installs with it; the info said "kubernetes/charts (1 manifest
    file) is not applied by any cluster root". A chart's `crds/` and `files/` are its
    content, never applied as written."""
    write(tmp_path, {
        "clusters/prod/flux-system/gotk-sync.yaml": SYNC,
        "clusters/prod/release.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: op, namespace: op}
            spec:
              chart:
                spec:
                  chart: ./charts/op
                  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
        """,
        "charts/op/Chart.yaml": "apiVersion: v2\nname: op\nversion: 1.0.0\n",
        "charts/op/crds/widgets.yaml": """
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata: {name: widgets.example.com}
            spec:
              group: example.com
              scope: Namespaced
              names: {kind: Widget, plural: widgets}
              versions: [{name: v1, served: true, storage: true,
                          schema: {openAPIV3Schema: {type: object}}}]
        """,
        "charts/op/templates/op.yaml": "kind: ConfigMap\nmetadata: {name: '{{ .Release.Name }}'}\n",
    })
    result = lint_dir(tmp_path)
    assert not any(f.kind == "not-applied" for f in result.findings)
    assert not any(s.path.startswith("charts") and "not applied" in s.reason
                   for s in result.model.skipped)


@pytest.mark.parametrize("values, files, expected", [
    ("{}", "", [("charts/web/values.yaml", 3, "error")]),
    ("{image: {tag: '1.2.3@sha256:" + "a" * 64 + "'}}", "", []),
    ("{}", "[charts/web/values-prod.yaml]", [("charts/web/values-prod.yaml", 1, "error")]),
])
def test_a_flux_helmrelease_renders_the_chart_of_its_own_repository(
        tmp_path: Path, values: str, files: str, expected: list[tuple[str, int, str]]
) -> None:
    """A Flux HelmRelease whose chart is a folder of the GitRepository this repository is
    (`chart: ./charts/web`) renders that chart in its cluster: its `values.yaml` (or the
    `valuesFiles` it names instead, relative to the source's root: then values.yaml is not
    included) is what the cluster receives. The chart was judged by no root, and its
    `tag: latest` said nothing."""
    write(tmp_path, {
        "clusters/prod/flux-system/gotk-sync.yaml": SYNC,
        "clusters/prod/web.yaml": f"""
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {{name: web, namespace: web}}
            spec:
              chart:
                spec:
                  chart: ./charts/web
                  sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}
                  {"valuesFiles: " + files if files else ""}
              values: {values}
        """,
        "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
        "charts/web/values.yaml": "image:\n  repository: nginx\n  tag: latest\n",
        "charts/web/values-prod.yaml": "image: {repository: nginx, tag: latest}\n",
        "charts/web/templates/web.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: '{{ .Release.Name }}'}
            spec:
              template:
                spec:
                  containers:
                  - {name: web, image: '{{ .Values.image.repository }}:{{ .Values.image.tag }}'}
        """,
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(f.file, f.line, f.severity) for f in result.findings
            if f.kind == "floating"] == expected


def test_a_tenant_s_sync_of_another_branch_roots_no_cluster_of_its_name(tmp_path: Path) -> None:
    """fluxcd/flux2-multi-tenancy (judge round CL): a tenant's Flux Kustomization, `path:
    ./production` in its GitRepository's branch dev-team, patched by
    tenants/production/dev-team-patch.yaml. Neither the patch document (read as a patch,
    applying nothing) nor the tenants' builds (whose `./production` is no folder from the
    checkout's top) root a cluster "tenants/production": the two bootstrap clusters alone,
    and the tenant's source not followed, said once though both clusters meet it."""
    from .helpers import GitRepo

    sync = """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: dev-team, namespace: apps}
        spec: {url: https://github.com/acme/tenancy, ref: {branch: dev-team}}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: dev-team, namespace: apps}
        spec:
          sourceRef: {kind: GitRepository, name: dev-team}
          prune: true
    """
    files: dict[str, str] = {"tenants/base/dev-team/kustomization.yaml":
                             "namespace: apps\nresources: [sync.yaml]\n",
                             "tenants/base/dev-team/sync.yaml": sync}
    for env in ("staging", "production"):
        files |= {
            f"clusters/{env}/flux-system/gotk-components.yaml": "# flux bootstrap fills it\n",
            f"clusters/{env}/flux-system/gotk-sync.yaml": "# flux bootstrap fills it\n",
            f"clusters/{env}/flux-system/kustomization.yaml":
                "resources: [gotk-components.yaml, gotk-sync.yaml]\n",
            f"clusters/{env}/tenants.yaml": f"""
                apiVersion: kustomize.toolkit.fluxcd.io/v1
                kind: Kustomization
                metadata: {{name: tenants, namespace: flux-system}}
                spec:
                  sourceRef: {{kind: GitRepository, name: flux-system}}
                  path: ./tenants/{env}
            """,
            f"tenants/{env}/kustomization.yaml":
                "namespace: apps\nresources: [../base/dev-team]\n"
                "patches: [{path: dev-team-patch.yaml}]\n",
            f"tenants/{env}/dev-team-patch.yaml": f"""
                apiVersion: kustomize.toolkit.fluxcd.io/v1
                kind: Kustomization
                metadata: {{name: dev-team, namespace: apps}}
                spec: {{path: ./{env}}}
            """,
        }
    repo = GitRepo(tmp_path / "repo")
    repo.commit(files)
    result = lint_dir(repo.path)
    reach = result.model.derived["reach"]
    assert sorted(r.cluster for r in reach.roots) == ["clusters/production", "clusters/staging"]
    assert [s.path for s in result.model.skipped if "not followed" in s.reason] == [
        "tenants/base/dev-team/sync.yaml"]


def test_a_sync_template_of_a_variable_path_roots_the_copies_kustomizations_patch(
        tmp_path: Path) -> None:
    """hmcts/admin-flux-config (judge round CP): clusters/base/flux-system holds the sync
    Kustomization with `path: ./clusters/${CLUSTER}`, a template; each cluster's
    kustomization builds it patched (`path: ./clusters/c1`, its postBuild setting CLUSTER and
    TENANT). The template rooted nothing ("clusters/c1 not applied", the tenants' refused
    build unsaid); the patched copies are the roots."""
    from .helpers import GitRepo

    repo = GitRepo(tmp_path / "repo")
    repo.commit({
        "clusters/base/flux-system/kustomization.yaml": "resources: [sync.yaml, tenants.yaml]\n",
        "clusters/base/flux-system/sync.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: GitRepository
            metadata: {name: flux-system, namespace: flux-system}
            spec: {interval: 1m, ref: {branch: main}, url: https://github.com/example/fleet}
            ---
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: flux-system, namespace: flux-system}
            spec:
              path: ./clusters/${CLUSTER}
              sourceRef: {kind: GitRepository, name: flux-system}
        """,
        "clusters/base/flux-system/tenants.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: tenants, namespace: flux-system}
            spec:
              path: ./tenants/${TENANT}
              sourceRef: {kind: GitRepository, name: flux-system}
        """,
        "clusters/c1/kustomization.yaml": """
            resources: [../base/flux-system]
            patches:
            - patch: |
                apiVersion: kustomize.toolkit.fluxcd.io/v1
                kind: Kustomization
                metadata: {name: flux-system, namespace: flux-system}
                spec:
                  path: ./clusters/c1
                  postBuild: {substitute: {CLUSTER: c1, TENANT: t1}}
        """,
        "tenants/t1-base/kustomization.yaml": "resources: [sa.yaml]\n",
        "tenants/t1-base/sa.yaml": "apiVersion: v1\nkind: ServiceAccount\n"
                                   "metadata: {name: t1, namespace: flux-system}\n",
        "tenants/t1/kustomization.yaml": """
            resources: [../t1-base]
            patches:
            - patch: |
                apiVersion: kustomize.toolkit.fluxcd.io/v1
                kind: Kustomization
                metadata: {name: tenants, namespace: flux-system}
                spec: {serviceAccountName: t1}
        """,
    })
    result = lint_dir(repo.path, only=["kustomize-integrity"])
    assert [(r.cluster, r.file) for r in result.model.derived["reach"].roots] == [
        ("clusters/c1", "clusters/c1/kustomization.yaml")]
    assert [(f.file, f.kind, f.severity) for f in result.findings
            if f.severity == "error"] == [("tenants/t1/kustomization.yaml", "missing", "error")]


def test_an_applicationset_of_a_base_is_applied_as_the_overlays_build_it(
        tmp_path: Path) -> None:
    """Judge round CN (redhat-appstudio/infra-deployments): the ApplicationSets of
    argo-cd-apps/base, which each overlay includes, patching their values or deleting them,
    were each also applied by hand as written (the default environment's folders, and one
    every overlay deletes)."""
    appset = """
        apiVersion: argoproj.io/v1alpha1
        kind: ApplicationSet
        metadata: {name: %s, namespace: argocd}
        spec:
          goTemplate: true
          generators:
          - list: {elements: [{env: base}]}
          template:
            metadata: {name: '%s-{{.env}}'}
            spec:
              source: {repoURL: https://github.com/acme/fleet, path: 'apps/%s/{{.env}}'}
              destination: {server: https://kubernetes.default.svc, namespace: %s}
    """
    write(tmp_path, {
        "argocd/base/kustomization.yaml": "resources: [web.yaml, old.yaml]\n",
        "argocd/base/web.yaml": appset % ("web", "web", "web", "web"),
        "argocd/base/old.yaml": appset % ("old", "old", "old", "old"),
        "argocd/prod/kustomization.yaml": """
            resources: [../base]
            patches:
            - target: {kind: ApplicationSet, name: web}
              patch: '[{op: replace, path: /spec/generators/0/list/elements/0/env, value: prod}]'
            - patch: |
                $patch: delete
                apiVersion: argoproj.io/v1alpha1
                kind: ApplicationSet
                metadata: {name: old, namespace: argocd}
        """,
        "apps/web/prod/web.yaml": FLOATING % "web",
        "apps/web/base/web.yaml": FLOATING % "web-base",
        "apps/old/base/old.yaml": FLOATING % "old",
    })
    result = lint_dir(tmp_path, only=["image-digest", "kustomize-integrity"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "apps/web/prod/web.yaml"),
        ("kustomize-integrity[not-applied]", "apps/old/base/old.yaml"),
        ("kustomize-integrity[not-applied]", "apps/web/base/web.yaml")]


def test_an_entry_another_entry_s_kustomizations_build_is_its_child(tmp_path: Path) -> None:
    """Judge round DH (samclement/swhurl-platform): clusters/home/flux-system, applied with
    `kubectl apply -k`, holds the sources and a Flux Kustomization of ./clusters/home, whose
    Kustomizations depend on those sources. Both folders are topmost kustomizations holding
    Flux Kustomizations: clusters/home was taken for a second cluster that lacked them (7
    false errors). The folder another entry applies is its child."""
    flux = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: %s, namespace: flux-system}\n"
            "spec: {interval: 10m, path: %s, prune: true, %s"
            "sourceRef: {kind: GitRepository, name: repo}}\n")
    write(tmp_path, {
        "clusters/home/kustomization.yaml": "resources: [infra.yaml]\n",
        "clusters/home/infra.yaml": flux % ("infra", "./infra", "dependsOn: [{name: sources}], "),
        "clusters/home/flux-system/kustomization.yaml":
            "resources: [sources, kustomizations.yaml]\n",
        "clusters/home/flux-system/kustomizations.yaml":
            flux % ("sources", "./clusters/home/flux-system/sources", "") + "---\n"
            + flux % ("stack", "./clusters/home", "dependsOn: [{name: sources}], "),
        "clusters/home/flux-system/sources/kustomization.yaml": "resources: [sources.yaml]\n",
        "clusters/home/flux-system/sources/sources.yaml":
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n"
            "metadata: {name: repo, namespace: flux-system}\n"
            "spec: {interval: 10m, url: https://github.com/example/repro}\n",
        "infra/kustomization.yaml": "resources: [cm.yaml]\n",
        "infra/cm.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity", "image-digest"])
    assert [(r, f) for r, _, f, _ in found(result)] == [
        ("image-digest[floating]", "infra/cm.yaml")]
    assert [(r.cluster, r.how) for r in result.model.derived["reach"].roots] == [
        ("clusters/home/flux-system", "kustomization applying Flux Kustomizations")]


def _member_cluster_tree(root: Path, secret_in_appset_build: bool) -> None:
    """An ApplicationSet whose clusters generator selects a label a Component's commonLabels
    gives the in-cluster Secret, in the ApplicationSet's own build or in another's."""
    write(root, {
        "bootstrap/root-app.yaml": (
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
            "metadata: {name: root, namespace: argocd}\nspec:\n  project: default\n"
            "  source: {repoURL: https://git.example/repo.git, path: root}\n"
            "  destination: {server: https://kubernetes.default.svc, namespace: argocd}\n"),
        "root/kustomization.yaml": ("resources: [cluster, appset.yaml]\n"
                                    if secret_in_appset_build else "resources: [appset.yaml]\n"),
        "other/kustomization.yaml": "resources: [../root/cluster]\n",
        "root/cluster/kustomization.yaml": "resources: [secret.yaml]\ncomponents: [../role]\n"
        if secret_in_appset_build else "resources: [secret.yaml]\n",
        "other/role/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
            "commonLabels: {example.com/member-cluster: 'true'}\n"),
        "root/role/kustomization.yaml": (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
            "commonLabels: {example.com/member-cluster: 'true'}\n"),
        "root/cluster/secret.yaml": (
            "apiVersion: v1\nkind: Secret\nmetadata: {name: local, namespace: argocd, "
            "labels: {argocd.argoproj.io/secret-type: cluster}}\n"
            "stringData: {name: local, server: https://kubernetes.default.svc}\n"),
        "root/appset.yaml": (
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\n"
            "metadata: {name: web, namespace: argocd}\nspec:\n  generators:\n"
            "  - clusters: {selector: {matchLabels: {example.com/member-cluster: 'true'}}}\n"
            "  template:\n    metadata: {name: 'web-{{name}}'}\n    spec:\n"
            "      project: default\n"
            "      source: {repoURL: https://git.example/repo.git, path: apps/web}\n"
            "      destination: {server: '{{server}}', namespace: web}\n"),
        "apps/web/kustomization.yaml": "resources: [deploy.yaml]\n",
        "apps/web/deploy.yaml": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: web}\n"
            "spec:\n  selector: {matchLabels: {app: web}}\n  template:\n"
            "    metadata: {labels: {app: web}}\n"
            "    spec: {containers: [{name: web, image: 'nginx:latest'}]}\n")})


@pytest.mark.parametrize("own_build", [True, False])
def test_a_cluster_secret_s_labels_are_as_the_applicationset_s_build_gives_them(
        tmp_path: Path, own_build: bool) -> None:
    """Judge round DM (redhat-appstudio/infra-deployments): the in-cluster Secret gets the
    label a clusters generator selects from a Component's `commonLabels`; read as written it
    matched nothing, and all the ApplicationSet applies was "not applied by any cluster
    root" (a `:latest` missed). Its labels are as the ApplicationSet's own build gives them;
    a label another build gives (another overlay's) is not this one's."""
    _member_cluster_tree(tmp_path, own_build)
    result = lint_dir(tmp_path)
    assert [(f.file, f.severity) for f in result.findings if f.rule == "image-digest"] == (
        [("apps/web/deploy.yaml", "error")] if own_build else [])
    assert bool([f for f in result.findings if f.kind == "not-applied"
                 and f.file.startswith("apps/")]) is not own_build


@pytest.mark.parametrize(("remote", "severity"), [
    ("git@github.com:acme/manifests.git", "warning"),  # another repository: a guess
    ("https://github.com/acme/constraints", "error"),  # this one
    (None, "error"),  # no remote: which repository this is, is not known
])
def test_a_root_application_of_another_repository_than_the_remote_is_a_guess(
        tmp_path: Path, remote: str | None, severity: str) -> None:
    """Judge round DN (StatCan/aaw-argocd-manifests): the one Application no root applies
    reads `path: .` of aaw-gatekeeper-constraints, recursively; `.` is in every tree, so the
    whole repository was walked as its directory, and its objects' errors were promises of
    objects named as no cluster has them. The checkout's remote names another repository:
    what it reads is a guess."""
    write(tmp_path, {
        "gatekeeper/constraints.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: constraints, namespace: argocd}
            spec:
              project: default
              source:
                repoURL: https://github.com/acme/constraints.git
                path: .
                directory: {recurse: true}
              destination: {server: https://kubernetes.default.svc, namespace: apps}
        """,
        "apps/web.yaml": FLOATING % "web",
    })
    if remote is not None:
        with_remote(tmp_path, remote)
    result = lint_dir(tmp_path, only=["image-digest"])
    (image,) = result.findings
    assert image.severity == severity
    if severity == "warning":
        assert ("whether github.com/acme/constraints is this repository: the Application in "
                "gatekeeper/constraints.yaml reads its files from it, and this checkout's "
                "remote is github.com/acme/manifests") in image.message


def test_root_applications_naming_this_repository_by_its_old_name_are_no_guess(
        tmp_path: Path) -> None:
    """A renamed repository (GitHub redirects its old URL): the remote names the new one,
    the Applications, most of the tree's sources, still the old: they read this tree."""
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: %s, namespace: argocd}
        spec:
          project: default
          source: {repoURL: https://github.com/acme/home-old.git, path: %s}
          destination: {server: https://kubernetes.default.svc, namespace: apps}
    """
    write(tmp_path, {"roots/web.yaml": app % ("web", "apps/web"),
                     "roots/api.yaml": app % ("api", "apps/api"),
                     "apps/web/web.yaml": FLOATING % "web",
                     "apps/api/api.yaml": FLOATING % "api"})
    with_remote(tmp_path, "https://github.com/acme/home.git")
    result = lint_dir(tmp_path, only=["image-digest"])
    assert sorted((f.object, f.severity) for f in result.findings) == [
        ("Deployment/apps/api", "error"), ("Deployment/apps/web", "error")]


def test_a_failing_build_an_applier_of_another_revision_reads_is_a_doubt_not_a_fact(
        tmp_path: Path) -> None:
    """Judge round DN (ADORSYS-GIS/fineract-gitops): the dev app of apps reads revision
    dev/fineract-deployment; this tree's build of its folder fails (an entry missing here),
    and every child's object was "Not applied: the build of what applies ... fails", a
    fact of a build its applier never makes. What this tree shows is not what it reads: a
    doubt, which says so."""
    write(tmp_path, {
        "bootstrap/dev.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: dev-apps, namespace: argocd}
            spec:
              project: default
              source: {repoURL: https://github.com/acme/fleet.git, path: argocd/dev,
                       targetRevision: dev/next}
              destination: {server: https://kubernetes.default.svc, namespace: argocd}
        """,
        "argocd/dev/kustomization.yaml": "resources: [web.yaml, gone.yaml]\n",
        "argocd/dev/web.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: web, namespace: argocd}
            spec:
              project: default
              source: {repoURL: https://github.com/acme/fleet.git, path: apps/web,
                       targetRevision: dev/next}
              destination: {server: https://kubernetes.default.svc, namespace: apps}
        """,
        "apps/web/web.yaml": FLOATING % "web",
    })
    result = lint_dir(tmp_path, only=["image-digest"])
    (image,) = result.findings
    assert image.severity == "warning"
    assert "Not applied" not in image.message
    assert image.message.endswith(
        "Not certain: reviewbot could not see the files the Application in bootstrap/dev.yaml "
        "applies: it reads revision dev/next of this repository, not the commit checked out, "
        "whose files reviewbot read.")


def test_an_application_applied_by_hand_is_of_argo_cd_s_own_cluster(tmp_path: Path) -> None:
    """New-user trial eighty W1: the root Application, applied by hand, was of no cluster
    beside dev's and prod's: every lint said it judged APIs "in what no cluster root
    applies" of a tree whose every file a root applies."""
    write(tmp_path, {
        "bootstrap/root.yaml": ARGO_APP % ("root", "apps"),
        "apps/dev.yaml": ARGO_APP.replace("server: https://kubernetes.default.svc",
                                          "name: dev") % ("dev", "envs/dev"),
        "apps/prod.yaml": ARGO_APP.replace("server: https://kubernetes.default.svc",
                                           "name: prod") % ("prod", "envs/prod"),
        "envs/dev/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        "envs/prod/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    })
    result = lint_dir(tmp_path, only=["api-lifecycle"])
    model = result.model
    assert {o.file: sorted(model.clusters.get(id(o), ())) for o in model.objects} == {
        "bootstrap/root.yaml": ["in-cluster"], "apps/dev.yaml": ["in-cluster"],
        "apps/prod.yaml": ["in-cluster"], "envs/dev/cm.yaml": ["dev"],
        "envs/prod/cm.yaml": ["prod"]}


def test_the_folder_of_an_applier_commented_out_is_no_unlisted_file(tmp_path: Path) -> None:
    """Judge round DX: argoflow's `# - argocd-applications/mlflow.yaml` left mlflow's folder
    unapplied, and each of its files was "listed by no kustomization" with a fix to list it
    in the kustomization above: the commented entry is why (said once, where it is)."""
    app = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
           "metadata: {name: %s, namespace: argocd}\nspec:\n  project: default\n"
           "  destination: {server: https://kubernetes.default.svc, namespace: apps}\n"
           "  source: {repoURL: https://github.com/acme/fleet.git, path: %s}\n")
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: apps}\n"
    write(tmp_path, {
        "distribution/kustomization.yaml": "resources:\n- apps/a.yaml\n# - apps/b.yaml\n",
        "distribution/apps/a.yaml": app % ("a", "distribution/a"),
        "distribution/apps/b.yaml": app % ("b", "distribution/b"),
        "distribution/a/cm.yaml": cm % "a", "distribution/b/cm.yaml": cm % "b",
    })
    with_remote(tmp_path, "https://github.com/acme/fleet.git")
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [(f.kind, f.file) for f in result.findings if f.kind in (
        "unreachable", "commented")] == [("commented", "distribution/kustomization.yaml")]


def test_a_template_a_tool_fills_below_a_kustomization_is_no_unlisted_file(
        tmp_path: Path) -> None:
    """Judge round DZ (accelerated-platforms): `templates/configmap-benchmark.tpl.yaml`, an
    envsubst input below a kustomization, was "listed by no kustomization" (8 warnings): a
    file named as a template is kept aside, here as everywhere."""
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: apps}\n"
    write(tmp_path, {
        "bench/kustomization.yaml": "resources: [cm.yaml]\n",
        "bench/cm.yaml": cm % "a",
        "bench/templates/benchmark.tpl.yaml": cm % "b",
        "bench/extra/other.yaml": cm % "c",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [f.file for f in result.findings if f.kind == "unreachable"] == [
        "bench/extra/other.yaml"]


def test_overlays_the_repository_s_scripts_apply_are_clusters_of_their_own(
        tmp_path: Path) -> None:
    """New-user trial eighty-three D1: no GitOps root, a Makefile (and CI) applying
    `overlays/staging` and `overlays/prod`: judged as one cluster, their two copies of a
    Deployment were summed against each copy of the namespace's quota (10 false errors).
    Where nothing else roots the tree, two or more kustomizations its scripts apply that make
    one object alike are each a cluster."""
    deploy = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ml}\n"
              "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n"
              "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
              "      - {name: web, image: 'web:1@sha256:" + "0" * 64 + "',\n"
              "         resources: {requests: {cpu: '1'}, limits: {cpu: '1', memory: 1Gi}}}\n")
    quota = ("apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: q, namespace: ml}\n"
             "spec: {hard: {requests.cpu: '3'}}\n")
    write(tmp_path, {
        "Makefile": ("staging:\n\tkubectl apply -k overlays/staging\n"
                     "prod:\n\tkubectl apply -k overlays/prod\n"),
        "base/kustomization.yaml": "resources: [deploy.yaml, quota.yaml]\n",
        "base/deploy.yaml": deploy, "base/quota.yaml": quota,
        "overlays/staging/kustomization.yaml": "resources: [../../base]\n",
        "overlays/prod/kustomization.yaml": "resources: [../../base]\n",
    })
    result = lint_dir(tmp_path, only=["schedulability"])
    assert [f.kind for f in result.findings] == []
    assert [(r.cluster, r.how) for r in result.model.derived["reach"].roots] == [
        ("overlays/prod (applied by Makefile)", "kustomization applied by Makefile"),
        ("overlays/staging (applied by Makefile)", "kustomization applied by Makefile")]


def test_a_flux_instance_release_a_kustomization_lists_is_applied_only_as_the_walk_reaches_it(
        tmp_path: Path) -> None:
    """Judge round EA (sob/home-ops): the flux-instance chart's HelmRelease, whose values
    give the sync path (the root), is listed with its OCIRepository by a kustomization the
    walk never reaches (a chain that waits on itself): its file was taken as applied as
    written, in `default`, without its OCIRepository ("the cluster does not have", false).
    A release a kustomization lists is applied where the walk reaches it."""
    write(tmp_path, {
        "kubernetes/apps/flux-system/flux-instance/app/kustomization.yaml": (
            "resources: [helmrelease.yaml, ocirepository.yaml]\n"),
        "kubernetes/apps/flux-system/flux-instance/app/helmrelease.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: flux-instance}
            spec:
              interval: 1h
              chartRef: {kind: OCIRepository, name: flux-instance}
              values:
                instance:
                  sync: {kind: GitRepository, url: "https://github.com/acme/home.git",
                         ref: refs/heads/main, path: kubernetes/flux/cluster}
        """,
        "kubernetes/apps/flux-system/flux-instance/app/ocirepository.yaml": """
            apiVersion: source.toolkit.fluxcd.io/v1
            kind: OCIRepository
            metadata: {name: flux-instance}
            spec: {interval: 1h, url: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance,
                   ref: {tag: 0.30.0}}
        """,
        "kubernetes/flux/cluster/cm.yaml": (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: flux-system}\n"),
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert [(f.kind, f.severity) for f in result.findings if f.kind == "source"] == []
