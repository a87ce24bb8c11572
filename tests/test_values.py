"""Helm values as pseudo-workloads: where values live, and what chart conventions mean.

Expectations follow the charts' documented conventions (bjw-s app-template's common library
values, the forgejo/gitea chart's ``initContainers.resources``) and the places Flux, Argo CD
and kustomize take values from; none were produced by running the code.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from reviewbot.config import Config
from reviewbot.engine.parse import load_files
from reviewbot.engine.run import run_rules
from reviewbot.model.builder import build_model
from reviewbot.model.kustomize import unhashed
from reviewbot.model.objects import Container, Model, PodTemplate
from reviewbot.model.values import ValuesObject, configure
from reviewbot.model.workload import describe, field_path, image_ref, is_values_pod, pod_request
from reviewbot.report.base import object_words
from reviewbot.sources.tree import disk_tree

from .helpers import lint_dir, pairs, run_cli


def repo(tmp_path: Path, files: dict[str, str]) -> Model:
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"))
    tree = disk_tree([tmp_path], tmp_path)
    return build_model(load_files(tree, Config()), Config().inventory, str(tmp_path), tree)


def values_pods(model: Model) -> list[PodTemplate]:
    return [p for p in model.pods if is_values_pod(p)]


def one(model: Model, name: str) -> PodTemplate:
    found = [p for p in values_pods(model) if p.name == name]
    assert len(found) == 1, [p.name for p in values_pods(model)]
    return found[0]


APP_TEMPLATE = """
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: media
  namespace: default
spec:
  interval: 1h
  chartRef: {kind: OCIRepository, name: app-template}
  values:
    defaultPodOptions:
      nodeSelector: {kubernetes.io/hostname: worker-1}
      tolerations:
        - {key: gpu, operator: Exists}
    controllers:
      main:
        containers:
          app:
            image:
              repository: ghcr.io/example/app
              tag: 1.2.3@sha256:5f1390bc43fefbbfb67f38a7a8dd65b4086c1f187a37c8df5c6020a498e5d1b5
            args: --verbose
            resources:
              limits: {nvidia.com/gpu: 1, memory: 1Gi}
        initContainers:
          migrate:
            image: {repository: ghcr.io/example/migrate, tag: "2"}
            resources:
              requests: {memory: 3Gi}
      worker:
        type: statefulset
        replicas: 3
        strategy: RollingUpdate
        pod:
          nodeSelector: {kubernetes.io/hostname: worker-2}
        containers:
          job:
            image: {repository: ghcr.io/example/worker, tag: "1"}
            probes:
              startup:
                enabled: true
                spec: {failureThreshold: 90}
              liveness:
                enabled: false
    persistence:
      shm:
        type: emptyDir
        medium: Memory
        sizeLimit: 8Gi
        globalMounts:
          - path: /dev/shm
      cache:
        type: emptyDir
      scratch:
        type: emptyDir
        advancedMounts:
          worker:
            job:
              - path: /scratch
"""


def test_app_template_controllers_are_pods(tmp_path: Path) -> None:
    model = repo(tmp_path, {"hr.yaml": APP_TEMPLATE})
    main, worker = one(model, "media"), one(model, "media-worker")
    assert is_values_pod(main) and main.obj.ref == "HelmRelease/default/media"
    assert (main.kind, worker.kind) == ("Deployment", "StatefulSet")
    assert (main.replicas, worker.replicas) == (1, 3)
    # app-template's Deployments default to Recreate; a StatefulSet never surges.
    assert main.strategy is not None and main.strategy.type == "Recreate"
    assert worker.strategy is not None and worker.strategy.max_surge == 0
    # controller pod options override defaultPodOptions key by key
    assert main.node_selector == {"kubernetes.io/hostname": "worker-1"}
    assert worker.node_selector == {"kubernetes.io/hostname": "worker-2"}
    assert worker.tolerations == [{"key": "gpu", "operator": "Exists"}]
    assert field_path(worker, "nodeSelector") == (
        "spec", "values", "controllers", "worker", "pod", "nodeSelector")
    assert field_path(worker, "tolerations") == (
        "spec", "values", "defaultPodOptions", "tolerations")


def test_values_pods_are_ordinary_pods_with_an_origin(tmp_path: Path) -> None:
    model = repo(tmp_path, {"hr.yaml": APP_TEMPLATE})
    main = one(model, "media")
    assert type(main) is PodTemplate and main.origin is not None
    assert (main.origin.source, main.origin.chart) == ("values", "app-template")
    for c in main.containers:
        assert type(c) is Container and c.origin is not None and c.origin.source == "values"
    assert describe(next(c for c in main.containers if c.name == "app")) == (
        "container app (values controllers.main)")


def test_a_duration_under_a_key_named_image_is_no_image(tmp_path: Path) -> None:
    """Judge round CQ: Kargo's chart values `defaults.interval.image: 6h0m0s` (how often
    its Warehouses poll images) read as an image without a tag that "runs whatever the
    registry serves". A key's name is no type: a Go duration is never an image."""
    model = repo(tmp_path, {
        "charts/projects/Chart.yaml": "apiVersion: v2\nname: projects\nversion: 0.1.0\n",
        "charts/projects/templates/w.yaml": "kind: Warehouse\n",
        "charts/projects/values.yaml": "defaults:\n  interval:\n    image: 6h0m0s\n"
                                       "worker:\n  image: ghcr.io/acme/worker\n",
    })
    assert sorted(str(image_ref(c).text) for p in model.pods for c in p.containers
                  if image_ref(c) is not None) == ["ghcr.io/acme/worker"]


def test_an_image_s_name_its_repository_ends_with_is_not_written_twice(tmp_path: Path) -> None:
    """Judge round DO (opencenter-cloud): `image: {repository: .../alert-proxy, name:
    alert-proxy, tag: latest}` read as `.../alert-proxy/alert-proxy:latest`, an image the
    chart never renders (its template writes `repository:tag`); a name the repository does
    not end with is still its last part (`repository: bitnami`, `name: redis`)."""
    model = repo(tmp_path, {
        "charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
        "charts/app/templates/d.yaml": "kind: Deployment\n",
        "charts/app/values.yaml": (
            "proxy:\n  image: {repository: ghcr.io/acme/images/alert-proxy, name: alert-proxy, "
            "tag: latest}\n"
            "cache:\n  image: {repository: docker.io/bitnami, name: redis, tag: '7.2'}\n"
            # a registry written with its `/` (judge round DU's openebs: not quay.io//...)
            "localpv:\n  image: {registry: quay.io/, repository: openebs/provisioner, "
            "tag: '4.3'}\n"),
    })
    assert sorted(str(image_ref(c).text) for p in model.pods for c in p.containers
                  if image_ref(c) is not None) == [
        "docker.io/bitnami/redis:7.2", "ghcr.io/acme/images/alert-proxy:latest",
        "quay.io/openebs/provisioner:4.3"]


def test_a_part_its_values_turn_off_and_the_helm_test_pod_are_no_pods(tmp_path: Path) -> None:
    # grafana's loki chart renders the provisioner only with enterprise.enabled, and
    # `test:` is the image of `helm test`'s hook pod, which no GitOps sync creates
    # (opencenter-cloud, cterence/homelab-gitops: 3 false image-digest errors)
    model = repo(tmp_path, {"hr.yaml": """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: loki, namespace: observability}
        spec:
          chart: {spec: {chart: loki, sourceRef: {kind: HelmRepository, name: grafana}}}
          values:
            enterprise:
              enabled: false
              provisioner: {image: {repository: x/enterprise-provisioner, tag: latest}}
            test: {enabled: true, image: {repository: grafana/loki-helm-test, tag: latest}}
            # qdrant's chartTests and grafana's testFramework feed test hooks too
            # (abaas-madscience/home-k8s-gitops-flux: 1 false error)
            chartTests: {dbInteraction: {image: registry.suse.com/bci/bci-base:latest}}
            testFramework: {image: {repository: bats/bats, tag: latest}}
            gateway:
              enabled: true
              image: {repository: nginxinc/nginx-unprivileged, tag: latest}
            canary:
              image: {repository: grafana/loki-canary, tag: latest}
            # an OLM CatalogSource's spec a chart writes whole: its image is the catalog's
            # index OLM polls, no container's (judge round EG: cloud-native-toolkit's
            # ibm-catalogs, 2 false errors)
            catalog:
              sourceType: grpc
              image: docker.io/ibmcom/ibm-common-service-catalog:latest
              updateStrategy: {registryPoll: {interval: 45m}}
    """})
    assert sorted(p.name for p in values_pods(model)) == ["loki.canary", "loki.gateway"]


def test_rules_and_netpol_probe_no_pod_attributes() -> None:
    """Pods and containers are one type each: no rule asks getattr what it is holding."""
    root = Path(__file__).resolve().parents[1]
    probes = [f"{p.relative_to(root)}:{n}" for folder in ("rules", "bot/netpol", "bot/model")
              for p in sorted((root / folder).glob("*.py"))
              for n, line in enumerate(p.read_text().splitlines(), 1)
              if re.search(r"getattr\((pod|container|owner|c|p)\b", line)]
    assert probes == []


def test_app_template_containers(tmp_path: Path) -> None:
    model = repo(tmp_path, {"hr.yaml": APP_TEMPLATE})
    main = one(model, "media")
    roles = sorted((c.role, c.name) for c in main.containers)
    assert roles == [("container", "app"), ("initContainer", "migrate")]
    app = next(c for c in main.containers if c.name == "app")
    ref = image_ref(app)
    assert ref is not None and ref.repository == "ghcr.io/example/app" and ref.tag == "1.2.3"
    assert ref.digest == "sha256:5f1390bc43fefbbfb67f38a7a8dd65b4086c1f187a37c8df5c6020a498e5d1b5"
    assert app.args == ["--verbose"]
    # memory: the init container (3Gi) is larger than the app container (1Gi limit = request)
    assert pod_request(main, "memory") == 3 * 2**30
    assert pod_request(main, "nvidia.com/gpu") == 1
    # globalMounts reach every container; no mounts means /<name>; advancedMounts only theirs
    mounts = {m["mountPath"] for m in app.body["volumeMounts"]}
    assert mounts == {"/dev/shm", "/cache"}
    job = one(model, "media-worker").containers[0]
    assert {m["mountPath"] for m in job.body["volumeMounts"]} == {"/dev/shm", "/cache", "/scratch"}
    shm = next(v for v in main.volumes if v["name"] == "shm")
    assert shm == {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}


def test_app_template_probes_take_chart_defaults(tmp_path: Path) -> None:
    job = one(repo(tmp_path, {"hr.yaml": APP_TEMPLATE}), "media-worker").containers[0]
    # the chart's startup default is 30 x 5 s; the values override failureThreshold only
    assert job.body["startupProbe"] == {
        "initialDelaySeconds": 0, "periodSeconds": 5, "failureThreshold": 90}
    assert "livenessProbe" not in job.body  # enabled: false
    assert job.body["readinessProbe"]["failureThreshold"] == 3
    assert field_path(job, "startupProbe")[-3:] == ("probes", "startup", "spec")


def test_a_top_level_image_beside_app_template_controllers_is_no_container(
        tmp_path: Path) -> None:
    """Judge round DB (makemkv): app-template 2 and later make every container of
    `controllers`; a stray top-level `image:` (and `resources:`) no template reads was "the
    chart's main container", an error for a `:latest` nothing runs."""
    stray = APP_TEMPLATE.replace("  values:\n", "  values:\n    image: {repository: "
                                 "ghcr.io/example/old, tag: latest}\n    resources: {limits: "
                                 "{nvidia.com/gpu: 1}}\n", 1)
    model = repo(tmp_path, {"hr.yaml": stray})
    assert sorted(p.name for p in model.pods) == ["media", "media-worker"]


def test_a_custom_app_template_probe_is_its_spec_alone(tmp_path: Path) -> None:
    """app-template renders a `custom: true` probe from its `spec` alone, without the
    chart's defaults, and none at all when that is empty (_probes.tpl: `if
    $probeDefinition`): new-user trial sixty's misspelt `sepc` was judged as the chart's
    30 x 5 s startup default, with a fix raising a failureThreshold nobody renders."""
    custom = APP_TEMPLATE.replace(
        "              startup:\n                enabled: true\n"
        "                spec: {failureThreshold: 90}\n",
        "              startup:\n                enabled: true\n                custom: true\n"
        "                spec: {httpGet: {path: /health, port: 8000}, periodSeconds: 10}\n")
    job = one(repo(tmp_path / "a", {"hr.yaml": custom}), "media-worker").containers[0]
    assert job.body["startupProbe"] == {"httpGet": {"path": "/health", "port": 8000},
                                        "periodSeconds": 10}
    misspelt = custom.replace("                spec: {httpGet", "                sepc: {httpGet")
    job = one(repo(tmp_path / "b", {"hr.yaml": misspelt}), "media-worker").containers[0]
    assert "startupProbe" not in job.body


FORGEJO_VALUES = """
image:
  registry: code.forgejo.org
  repository: forgejo/forgejo
  tag: "11.0.3"
  digest: sha256:16641ec10fa127fa01e29e39a8d415e699b3f213af0d893245e6e935620cdf95
replicaCount: 1
strategy:
  type: Recreate
persistence:
  size: 20Gi
  resources:
    requests: {storage: 20Gi}
resources:
  requests: {cpu: 750m, memory: 768Mi}
  limits: {cpu: 3000m, memory: 2Gi}
tolerations:
  - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
nodeSelector:
  kubernetes.io/hostname: talos-cp-3
initContainers:
  resources:
    requests: {cpu: 100m, memory: 128Mi}
gitea:
  metrics:
    serviceMonitor:
      image: not-a-container
"""
KUSTOMIZATION = """
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: forgejo
helmCharts:
  - name: forgejo
    releaseName: forgejo
    valuesFile: forgejo-values.yaml
    valuesInline:
      redis:
        image: {repository: redis, tag: "7"}
"""


def test_values_file_is_a_pseudo_workload(tmp_path: Path) -> None:
    model = repo(tmp_path, {
        "forgejo/kustomization.yaml": KUSTOMIZATION,
        "forgejo/forgejo-values.yaml": FORGEJO_VALUES,
    })
    pod = one(model, "forgejo")  # named after the release that uses the file, not its stem
    assert isinstance(pod.obj, ValuesObject)
    assert pod.obj.ref == "HelmValues/forgejo/forgejo-values"  # the kustomization's namespace
    assert pod.obj.file == "forgejo/forgejo-values.yaml"
    assert pod.obj not in model.objects  # a pseudo-object: no schema, no kustomize listing
    # the chart's init containers run in the main pod
    assert [(c.role, c.name) for c in pod.containers] == [
        ("container", "main"), ("initContainer", "initContainers")]
    assert pod.tolerations[0]["key"] == "node-role.kubernetes.io/control-plane"
    assert pod.strategy is not None and pod.strategy.type == "Recreate"
    main = pod.containers[0]
    assert main.body["image"] == (
        "code.forgejo.org/forgejo/forgejo:11.0.3@sha256:"
        "16641ec10fa127fa01e29e39a8d415e699b3f213af0d893245e6e935620cdf95")
    assert main.quantity("limits", "cpu") == Fraction(3)
    # a PVC's storage request is not a container, nor is a string without a pod around it
    assert {p.name for p in values_pods(model)} == {"forgejo", "forgejo-values-inline.redis"}


def test_kustomization_values_inline(tmp_path: Path) -> None:
    model = repo(tmp_path, {"forgejo/kustomization.yaml": KUSTOMIZATION})
    pod = one(model, "forgejo-values-inline.redis")
    assert pod.obj.ref == "HelmValues/forgejo/forgejo-values-inline"
    assert pod.obj.position(field_path(pod.containers[0], "image")) == (10, 9)


def test_values_from_a_generated_configmap(tmp_path: Path) -> None:
    model = repo(tmp_path, {
        "apps/kustomization.yaml": """
            apiVersion: kustomize.config.k8s.io/v1beta1
            kind: Kustomization
            resources: [helmrelease.yaml]
            configMapGenerator:
              - name: vllm-values
                files: [values.yaml=chart-settings.yaml]
        """,
        "apps/helmrelease.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: vllm, namespace: llm}
            spec:
              interval: 1h
              chartRef: {kind: OCIRepository, name: vllm}
              valuesFrom:
                - kind: ConfigMap
                  name: vllm-values
        """,
        "apps/chart-settings.yaml": """
            image: vllm/vllm-openai:v0.11.0
        """,
        "apps/notes.yaml": """
            image: not/a-values-file:1
        """,
    })
    pods = values_pods(model)
    assert [(p.obj.ref, p.containers[0].body["image"]) for p in pods] == [
        ("HelmValues/llm/chart-settings", "vllm/vllm-openai:v0.11.0")]


def test_named_values_files_only_when_not_manifests(tmp_path: Path) -> None:
    model = repo(tmp_path, {
        "a/values.yaml": "server:\n  image: {repository: nginx, tag: '1.27'}\n",
        "b/prod-values.yml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    })
    assert [(p.obj.ref, p.name) for p in values_pods(model)] == [
        ("HelmValues/values", "values.server")]


def test_argo_application_values_object(tmp_path: Path) -> None:
    model = repo(tmp_path, {"app.yaml": """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: grafana, namespace: argocd}
        spec:
          destination: {namespace: monitoring}
          source:
            chart: grafana
            helm:
              valuesObject:
                image: {repository: grafana/grafana, tag: latest}
    """})
    pod = one(model, "grafana")
    assert (pod.obj.ref, pod.namespace) == ("Application/argocd/grafana", "monitoring")
    assert field_path(pod.containers[0], "image") == (
        "spec", "source", "helm", "valuesObject", "image")
    # messages name the field the inline values are in, not a values file (a new-user trial)
    assert describe(pod.containers[0]) == (
        "the chart's main container (top of spec.source.helm.valuesObject)")


def test_raw_containers_and_extra_args(tmp_path: Path) -> None:
    model = repo(tmp_path, {"hr.yaml": """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: runner, namespace: ci}
        spec:
          interval: 1h
          chartRef: {kind: OCIRepository, name: gha-runner-scale-set}
          values:
            template:
              spec:
                nodeSelector: {kubernetes.io/hostname: worker-1}
                containers:
                  - name: runner
                    image: ghcr.io/actions/actions-runner:2.330.0
                    resources:
                      limits: {nvidia.com/gpu: 1}
            collector:
              image: {repository: victoriametrics/vlagent, tag: v1.0.0}
              extraArgs:
                syslog.listenAddr.udp: ":5514"
                dryRun: ""
    """})
    runner = one(model, "runner.template.spec")
    assert runner.node_selector == {"kubernetes.io/hostname": "worker-1"}
    assert [c.name for c in runner.containers] == ["runner"]
    assert runner.containers[0].path == ("spec", "values", "template", "spec", "containers", 0)
    collector = one(model, "runner.collector")
    assert collector.containers[0].args == ["--syslog.listenAddr.udp=:5514", "--dryRun"]


def test_configure_measured_facts_and_patterns(tmp_path: Path) -> None:
    model = repo(tmp_path, {
        "llm/coder.settings.yaml": """
            image:
              repository: vllm/vllm-openai
              digest: sha256:014a95f21c9edf6abe0aea6b07353f96baa4ec291c427bb1176dc7c93a85845c
            startupProbe:
              httpGet: {path: /health, port: 8080}
              failureThreshold: 40
              periodSeconds: 15
        """,
    })
    assert values_pods(model) == []  # not named *values*, not referenced
    configure(model, {"./llm/coder.settings.yaml": {"measured-boot-seconds": 600}},
              ["llm/*.settings.yaml"])
    pod = one(model, "coder.settings")
    assert pod.obj.annotations == {"reviewbot.dev/measured-boot-seconds": "600"}
    result = run_rules(model, Config(), only=["probe-headroom"])
    assert pairs(result) == [("probe-headroom", 6)]  # the failureThreshold
    assert result.findings[0].object == "HelmValues/coder.settings"
    assert "600s" in result.findings[0].message and "900s" in result.findings[0].message


def test_values_findings_point_into_the_values_file(tmp_path: Path) -> None:
    model = repo(tmp_path, {
        "forgejo/kustomization.yaml": KUSTOMIZATION,
        "forgejo/forgejo-values.yaml": FORGEJO_VALUES,
    })
    result = run_rules(model, Config(), only=["control-plane-resources", "image-digest"])
    # no inventory: the stand-in control plane is tainted, and forgejo tolerates it
    assert pairs(result) == [("control-plane-resources", 21), ("image-digest", 10)]
    by_rule = {f.rule: f for f in result.findings}
    assert by_rule["control-plane-resources"].file == "forgejo/forgejo-values.yaml"
    assert "values initContainers sets no cpu limit and no memory limit" in (
        by_rule["control-plane-resources"].message)
    assert by_rule["image-digest"].object == "HelmValues/forgejo/forgejo-values-inline"


def test_umbrella_chart_values_of_an_app_template_dependency(tmp_path: Path) -> None:
    # Helm passes a dependency the values under its alias (else its name): an umbrella
    # chart's `app-template:` block is app-template's values, read as its controllers
    model = repo(tmp_path, {
        "apps/blog/Chart.yaml": """
            apiVersion: v2
            name: blog
            version: 0.0.0
            dependencies:
              - name: app-template
                version: 2.2.0
                repository: https://bjw-s-labs.github.io/helm-charts
              - name: redis
                alias: cache
                version: 1.0.0
                repository: https://example.com/charts
            """,
        "apps/blog/values.yaml": """
            app-template:
              controllers:
                main:
                  containers:
                    main:
                      image:
                        repository: registry.example.com/blog
                        tag: latest
                worker:
                  containers:
                    app:
                      image: {repository: registry.example.com/worker, tag: "1"}
            cache:
              image: {repository: docker.io/library/redis, tag: "7"}
            """,
    })
    blog = one(model, "blog")  # the chart's name: the values file says no release
    assert blog.obj.ref == "HelmValues/values"
    assert blog.origin is not None and blog.origin.chart == "app-template"
    assert [c.name for c in blog.containers] == ["main"]
    assert blog.spec_path == ("app-template", "controllers", "main")
    assert blog.strategy is not None and blog.strategy.type == "Recreate"  # app-template's
    assert one(model, "blog-worker").containers[0].path == (
        "app-template", "controllers", "worker", "containers", "app")
    assert {p.name for p in values_pods(model)} == {"blog", "blog-worker", "blog.cache"}
    result = run_rules(model, Config(), only=["image-digest"])
    assert pairs(result) == [("image-digest", 8), ("image-digest", 12), ("image-digest", 14)]
    latest = next(f for f in result.findings if f.line == 8)
    assert latest.message.startswith(
        "blog, container main (values app-template.controllers.main): image "
        "registry.example.com/blog:latest has :latest")


def test_a_dependency_key_of_another_chart_is_not_app_template(tmp_path: Path) -> None:
    values = """
        web:
          controllers:
            main:
              containers:
                main:
                  image: {repository: ghcr.io/example/web, tag: "1"}
        """
    chart = """
        apiVersion: v2
        name: site
        version: 0.0.0
        dependencies:
          - {name: other-chart, alias: web, version: 1.0.0, repository: https://example.com}
        """
    model = repo(tmp_path, {"site/Chart.yaml": chart, "site/values.yaml": values})
    # only app-template's values are read as app-template's: the other chart's are any chart's
    assert [p.origin.chart for p in values_pods(model) if p.origin] == ["chart"]


def test_a_values_file_is_named_by_its_path_in_what_a_reader_sees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # two charts' values.yaml were both "Helm values values" (a sixth new-user trial)
    for chart in ("guestbook", "blog"):
        (tmp_path / chart).mkdir()
        (tmp_path / chart / "values.yaml").write_text("image: {repository: nginx, tag: '1.27'}\n")
    code, out, _ = run_cli(["lint", str(tmp_path), "--format", "text"], capsys)
    assert code == 0
    named = sorted(line.split("[image-digest[unpinned]] ")[1] for line in out.splitlines()
                   if "[image-digest[unpinned]]" in line)
    assert named == ["Helm values file blog/values.yaml", "Helm values file guestbook/values.yaml"]
    # the JSON keeps the object's identity; values inline in a kustomization keep their name
    assert object_words("HelmValues/values", "blog/values.yaml") == (
        "Helm values file", "blog/values.yaml")
    assert object_words("HelmValues/forgejo/forgejo-values-inline", "kustomization.yaml") == (
        "Helm values", "forgejo/forgejo-values-inline")


def test_values_from_a_generated_configmap_renamed_by_its_hash(tmp_path: Path) -> None:
    # Flux's documented kustomizeconfig makes valuesFrom a name reference: the HelmRelease
    # as built names the ConfigMap with its hash suffix, and the values file is still its
    model = repo(tmp_path, {
        "ks.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: apps, namespace: flux-system}
            spec:
              interval: 1h
              path: ./apps
              prune: true
              sourceRef: {kind: GitRepository, name: flux-system}
        """,
        "apps/kustomization.yaml": """
            apiVersion: kustomize.config.k8s.io/v1beta1
            kind: Kustomization
            namespace: llm
            resources: [helmrelease.yaml]
            configMapGenerator:
              - name: vllm-values
                files: [values.yaml=values.yaml]
            configurations: [kustomizeconfig.yaml]
        """,
        "apps/kustomizeconfig.yaml": """
            nameReference:
              - kind: ConfigMap
                version: v1
                fieldSpecs:
                  - path: spec/valuesFrom/name
                    kind: HelmRelease
        """,
        "apps/helmrelease.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: vllm, namespace: llm}
            spec:
              interval: 1h
              chartRef: {kind: OCIRepository, name: vllm}
              valuesFrom:
                - kind: ConfigMap
                  name: vllm-values
        """,
        "apps/values.yaml": """
            image: vllm/vllm-openai:v0.11.0
        """,
    })
    release = next(o for o in model.objects if o.kind == "HelmRelease")
    assert unhashed(release.body["spec"]["valuesFrom"][0]["name"]) == "vllm-values" != (
        release.body["spec"]["valuesFrom"][0]["name"])
    assert [(p.obj.ref, p.name) for p in values_pods(model)] == [
        ("HelmValues/llm/values", "vllm")]
    # its chart's workload kind is not known: a `measured:` entry names it as the cluster
    # does, as `reviewbot inventory --pods` writes it (trial 84 D6)
    from reviewbot.model.workload import MEASURED_PREFIX, measured, unmatched_measured

    pod = values_pods(model)[0]
    boot = MEASURED_PREFIX + "measured-boot-seconds"
    for key in ("Deployment/llm/vllm", "StatefulSet/llm/vllm", "HelmValues/llm/values"):
        inventory = replace(model.inventory, measured={key: {"measured-boot-seconds": 420}})
        assert measured(pod, boot, inventory) == "420", key
        assert unmatched_measured(replace(model, inventory=inventory)) == []
    inventory = replace(model.inventory,
                        measured={"Deployment/llm/vllm2": {"measured-boot-seconds": 1}})
    assert unmatched_measured(replace(model, inventory=inventory)) == [
        ("Deployment/llm/vllm2", "Deployment/llm/vllm")]


CHART = {
    "helm/Chart.yaml": "apiVersion: v2\nname: toolkit\nversion: 1.0.0\n",
    "helm/values.yaml": "image:\n  repository: acme/toolkit-series\n  tag: latest\n",
}
APPLICATION = """
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: {name}, namespace: argocd}}
spec:
  project: default
  destination: {{server: https://kubernetes.default.svc, namespace: {name}}}
  source:
    repoURL: https://github.com/acme/toolkit.git
    path: helm
    helm:
{helm}
"""
SETS_TAG = """      values: |
        image:
          repository: acme/toolkit
          tag: {{.IMAGE_TAG}}
"""


def test_a_chart_part_every_consumer_turns_off_is_no_clusters(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Judge round CS: thaynes43/haynes-ops' only HelmRelease of its vendored vexa chart
    sets `minio.enabled: false`; the chart's `minio.image: minio/minio:latest` was an
    error. Helm merges the release's values over the chart's, and a part turned off renders
    no pod; where a consumer leaves it on, it is judged."""
    from .helpers import write

    chart = {
        "chart/Chart.yaml": "apiVersion: v2\nname: vexa\nversion: 1.0.0\n",
        "chart/values.yaml": "minio:\n  enabled: true\n  image: minio/minio:latest\n",
    }
    release = """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {{name: {name}, namespace: vexa}}
spec:
  interval: 30m
  chart:
    spec:
      chart: ./chart
      sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}
  values:
    minio: {{enabled: {on}}}
"""
    off = tmp_path / "off"
    write(off, {**chart, "release.yaml": release.format(name="vexa", on="false")})
    _, out, _ = run_cli(["lint", str(off), "--format", "json", "--rule", "image-digest"],
                        capsys)
    result = json.loads(out)
    assert [(f["rule"], f["file"]) for f in result["findings"]] == []
    assert {"file": "chart/values.yaml", "reason": (
        "image-digest (line 3): every consumer of this chart (release.yaml) turns minio off "
        "(minio.enabled: false), so no cluster receives it")} in [
        {k: s[k] for k in ("file", "reason")} for s in result["skipped"]]
    on = tmp_path / "on"
    write(on, {**chart, "release.yaml": release.format(name="vexa", on="false") + "---\n"
               + release.format(name="other", on="true")})
    _, out, _ = run_cli(["lint", str(on), "--format", "json", "--rule", "image-digest"],
                        capsys)
    assert [(f["file"], f["severity"]) for f in json.loads(out)["findings"]] == [
        ("chart/values.yaml", "error")]


def test_a_chart_default_every_consumer_overrides_is_no_clusters(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """vfarcic/devops-toolkit: each Argo CD Application rendering the chart's folder sets
    image.tag (a value CI fills in) over its `tag: latest`. Helm merges what an Application
    passes over the chart's values.yaml: no cluster runs `:latest`, and no error says so.
    An Application that leaves the tag as it is receives the default: then it is judged."""
    from .helpers import write

    every = tmp_path / "every"
    write(every, {**CHART,
                  "production.yaml": APPLICATION.format(name="production", helm=SETS_TAG),
                  "staging.yaml": APPLICATION.format(name="staging", helm=(
                      "      parameters:\n        - {name: image.tag, value: '1.2.3'}\n"))})
    _, out, _ = run_cli(["lint", str(every), "--format", "json", "--rule", "image-digest"],
                        capsys)
    result = json.loads(out)
    assert [(f["rule"], f["file"]) for f in result["findings"]] == []
    assert {"file": "helm/values.yaml", "reason": (
        "image-digest (line 3): every consumer of this chart (production.yaml and 1 more) "
        "sets image.tag over this default, so no cluster receives it")} in [
        {k: s[k] for k in ("file", "reason")} for s in result["skipped"]]
    one_leaves_it = tmp_path / "one"
    write(one_leaves_it, {**CHART,
                          "production.yaml": APPLICATION.format(name="production", helm=SETS_TAG),
                          "dev.yaml": APPLICATION.format(name="dev", helm=(
                              "      valuesObject: {ingress: {host: dev.example.org}}\n"))})
    _, out, _ = run_cli(["lint", str(one_leaves_it), "--format", "json", "--rule",
                         "image-digest"], capsys)
    assert [(f["severity"], f["file"], f["line"]) for f in json.loads(out)["findings"]
            ] == [("error", "helm/values.yaml", 3)]
    # a parameter (judged nowhere) writing the default's own value changes nothing
    same = tmp_path / "same"
    write(same, {**CHART, "production.yaml": APPLICATION.format(name="production", helm=(
        "      parameters: [{name: image.tag, value: latest}]\n"))})
    _, out, _ = run_cli(["lint", str(same), "--format", "json", "--rule", "image-digest"],
                        capsys)
    assert [(f["severity"], f["file"], f["line"]) for f in json.loads(out)["findings"]
            ] == [("error", "helm/values.yaml", 3)]
    # the chart's own values.yaml listed in valueFiles is its defaults, no override (a
    # new-user trial: it hid the chart's `tag: latest` as "set by every consumer")
    own = tmp_path / "own"
    write(own, {**CHART, "production.yaml": APPLICATION.format(name="production", helm=(
        "      valueFiles: [values.yaml]\n"))})
    _, out, _ = run_cli(["lint", str(own), "--format", "json", "--rule", "image-digest"],
                        capsys)
    assert [(f["severity"], f["file"], f["line"]) for f in json.loads(out)["findings"]
            ] == [("error", "helm/values.yaml", 3)]



def test_values_files_an_application_passes_are_merged_over_the_chart_s_defaults(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial forty-eight: Argo CD Applications render `charts/vllm` with
    `values-dev.yaml` and `values-prod.yaml`; the chart's `values.yaml` sets `strategy:
    Recreate`, the GPU node's toleration and the image's digest. Each values file was
    judged alone ("its values set no update strategy"), the defaults as a release of their
    own, and none in the cluster the Application deploys to (`destination.name: prod`: "no
    node inventory"). Helm merges each over the defaults: the release is judged, in its
    cluster, a field it leaves to the defaults found in values.yaml; a values file of any
    name (judge round CA: `prometheus-values.yaml` was read by no root)."""
    from .helpers import write

    defaults = """image: {repository: vllm/vllm-openai, tag: v0.6.3, digest: "sha256:%s"}
extraArgs: {tensor-parallel-size: "1"}
strategy: {type: Recreate}
resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}
nodeSelector: {nvidia.com/gpu.present: "true"}
tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
""" % ("a" * 64)
    app = """apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: vllm-%s, namespace: argocd}
spec:
  project: default
  source:
    repoURL: https://git.example.org/gitops.git
    path: charts/vllm
    helm: {valueFiles: [%s.yaml]}
  destination: {name: %s, namespace: llm}
"""
    gpu = """      - name: gpu-1
        labels: {nvidia.com/gpu.present: "true"}
        taints: [{key: nvidia.com/gpu, effect: NoSchedule}]
        allocatable: {cpu: "32", memory: 250Gi, nvidia.com/gpu: "4"}
"""
    write(tmp_path, {
        ".reviewbot.yaml": "clusters:\n  - name: prod\n    paths: [apps/prod]\n"
                           "    nodes:\n" + gpu,
        "apps/prod/cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"
                             "metadata: {name: x, namespace: llm}\n",
        "argocd/vllm-prod.yaml": app % ("prod", "prod", "prod"),
        "charts/vllm/Chart.yaml": "apiVersion: v2\nname: vllm\nversion: 1.0.0\n",
        "charts/vllm/values.yaml": defaults,
        "charts/vllm/prod.yaml": "replicaCount: 2\n"
                                        "resources: {requests: {nvidia.com/gpu: 2}, "
                                        "limits: {nvidia.com/gpu: 2}}\n",
    })
    _, out, _ = run_cli(["lint", str(tmp_path), "--format", "json"], capsys)
    assert [(f["rule"], f["file"], f["line"]) for f in json.loads(out)["findings"]] == [
        # 2 GPUs, no /dev/shm; TP 1 (the defaults') of the 2 GPUs prod asks, said there
        ("shm-size", "charts/vllm/prod.yaml", 1),
        ("gpu-parallelism", "charts/vllm/values.yaml", 2)]
    # prod's release asks more than its cluster's node holds: said, in its cluster
    (tmp_path / "charts/vllm/prod.yaml").write_text(
        "replicaCount: 3\nresources: {requests: {nvidia.com/gpu: 2}, "
        "limits: {nvidia.com/gpu: 2}}\n")
    _, out, _ = run_cli(["lint", str(tmp_path), "--format", "json", "--rule",
                         "schedulability"], capsys)
    assert [(f["severity"], f["file"], f["line"]) for f in json.loads(out)["findings"]] == [
        ("error", "charts/vllm/prod.yaml", 2)]

def test_a_chart_default_every_helmfile_release_overrides_is_no_clusters(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Judge round BG (cds-snc/notification-manifests): helmfile releases set each image's
    tag per environment over the charts' `tag: latest` (`tag: {{ .Values.TAG }}` in a
    `.yaml.gotmpl` values file): seven errors on defaults no cluster received. A release
    whose values file sets nothing of it (an empty one) installs the default: judged."""
    from .helpers import write

    helmfile = ("environments:\n  dev: {}\n---\nhelmDefaults:\n"
                "  kubeContext: {{ .Environment.Name }}\nreleases:\n"
                "  - name: toolkit\n    namespace: tools\n"
                "    installed: {{ eq .Environment.Name \"dev\" }}\n"
                "    chart: ./helm\n    values:\n    - ./overrides/toolkit.yaml.gotmpl\n")
    write(tmp_path, {
        **CHART, "helmfile.yaml.gotmpl": helmfile,
        "overrides/toolkit.yaml.gotmpl": "{{ if true }}\nimage:\n"
                                         "  tag: {{ .Values.TAG }}\n{{ end }}\n",
    })

    def lint() -> dict[str, Any]:
        _, out, _ = run_cli(["lint", str(tmp_path), "--format", "json", "--rule",
                             "image-digest"], capsys)
        result: dict[str, Any] = json.loads(out)
        return result

    result = lint()
    assert result["findings"] == []
    assert {"file": "helm/values.yaml", "reason": (
        "image-digest (line 3): every consumer of this chart (helmfile.yaml.gotmpl (release "
        "toolkit)) sets image.tag over this default, so no cluster receives it")} in [
        {k: s[k] for k in ("file", "reason")} for s in result["skipped"]]
    write(tmp_path, {"overrides/toolkit.yaml.gotmpl": "# nothing to override\n"})
    assert [(f["severity"], f["file"], f["line"]) for f in lint()["findings"]] == [
        ("error", "helm/values.yaml", 3)]
    # a `set` entry overrides as a values file does
    write(tmp_path, {"helmfile.yaml.gotmpl": helmfile + "    set:\n    - name: image.tag\n"
                                                        "      value: 1.2.3\n"})
    assert lint()["findings"] == []


def test_a_key_of_an_override_values_file_no_template_reads_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial twenty-nine: values-prod.yaml's `replicaCount: 2` became `replicas: 3`;
    the chart's templates read `.Values.replicaCount`, so prod went from 2 replicas to the
    default 1, and "no new findings". A key of the defaults, one a template reads, a
    subchart's, `global`, or a chart whose template reads `.Values` whole: not judged."""
    from .helpers import write

    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: cache}\nspec:\n"
                  "  replicas: {{ .Values.replicaCount }}\n"
                  "  template: {spec: {containers: [{name: c, image: "
                  "'{{ .Values.image.repository }}:{{ .Values.image.tag }}'}]}}\n")
    write(tmp_path, {
        "charts/cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 1.0.0\n"
                                   "dependencies: [{name: redis, version: 1.0.0}]\n",
        "charts/cache/values.yaml": "replicaCount: 1\nimage: {repository: redis, tag: '7'}\n"
                                    "documented: {}\n",
        "charts/cache/templates/deployment.yaml": deployment,
        "charts/cache/values-prod.yaml": "replicas: 3\nimage: {tag: '7.2'}\ndocumented: 1\n"
                                         "redis: {auth: false}\nglobal: {x: 1}\n",
    })

    def unread() -> list[tuple[str, int, str, str]]:
        _, out, _ = run_cli(["lint", str(tmp_path), "--format", "json", "--rule", "schema"],
                            capsys)
        return [(f["file"], f["line"], f["message"], f["fix"])
                for f in json.loads(out)["findings"]]

    assert unread() == [(
        "charts/cache/values-prod.yaml", 1,
        "replicas: no template of the chart in charts/cache reads .Values.replicas, and its "
        "values.yaml has no such key, so this value changes nothing (its templates read "
        ".Values.replicaCount, and .Values.replicaCount keeps the chart's default unless this "
        "file sets it)",
        "Write it as replicaCount, the key the chart reads, or remove it.")]
    # no key the chart reads, defaults or comes close to: another chart's values (judge
    # round BV: an operator-values.yaml the README passes with -f to an upstream chart)
    write(tmp_path, {"charts/cache/operator-values.yaml": "managementURL: https://x\n"
                                                          "operator: {replicas: 2}\n"})
    _, out, _ = run_cli(["lint", str(tmp_path), "--format", "json", "--rule", "schema"], capsys)
    data = json.loads(out)
    assert [f["file"] for f in data["findings"]] == ["charts/cache/values-prod.yaml"]
    assert [s["reason"] for s in data["skipped"] if "operator" in s["file"]] == [
        "schema (line 1): no key of it is one the chart in charts/cache reads or defaults, nor "
        "close to one: values of another chart, given with -f where reviewbot does not see, "
        "are not judged"]
    write(tmp_path, {"charts/cache/operator-values.yaml": "managementURL: https://x\n"
                                                          "replicaCont: 2\n"})
    assert [(f, line) for f, line, _, _ in unread()] == [
        ("charts/cache/operator-values.yaml", 1), ("charts/cache/operator-values.yaml", 2),
        ("charts/cache/values-prod.yaml", 1)]  # one key close to the chart's: its values
    # a file a template reads with .Files.Get is the chart's data, not its values (judge
    # round DC: govuk's `tempo-values-<env>.yaml`, handed to another chart)
    write(tmp_path, {"charts/cache/templates/app.yaml": (
        "{{ $v := fromYaml (.Files.Get (printf \"operator-values.yaml\")) }}\n")})
    assert [(f, line) for f, line, _, _ in unread()] == [("charts/cache/values-prod.yaml", 1)]
    (tmp_path / "charts/cache/templates/app.yaml").unlink()
    (tmp_path / "charts/cache/operator-values.yaml").unlink()
    write(tmp_path, {"charts/cache/templates/_helpers.tpl": "{{ toYaml .Values }}\n"})
    assert unread() == []  # (a template reading .Values whole reads every key)


def test_a_nested_key_of_an_override_values_file_no_template_reads_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Trial 84 D1: values-prod.yaml's `autoscaling.maxReplicas: 12` became
    `autoscaling.maxReplicaCount`; the HPA template reads `.Values.autoscaling.maxReplicas`,
    so prod silently went to the default 8. Judged under a map the templates read key by
    key; not under one they read whole (`with`, `toYaml`), nor one they never read."""
    from .helpers import write

    hpa = ("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: gw}\n"
           "spec:\n  minReplicas: {{ .Values.autoscaling.minReplicas }}\n"
           "  maxReplicas: {{ .Values.autoscaling.maxReplicas }}\n"
           "  template: {{- with .Values.resources }}{{ toYaml . }}{{ end }}\n")
    write(tmp_path, {
        "charts/gw/Chart.yaml": "apiVersion: v2\nname: gw\nversion: 1.0.0\n",
        "charts/gw/values.yaml": "autoscaling: {minReplicas: 2, maxReplicas: 8}\n"
                                 "resources: {}\nextra: {}\n",
        "charts/gw/templates/hpa.yaml": hpa,
        "charts/gw/values-prod.yaml": "autoscaling:\n  minReplicas: 3\n"
                                      "  maxReplicaCount: 12\nresources: {limits: {cpu: 1}}\n"
                                      "extra: {a: 1}\n",
    })
    _, out, _ = run_cli(["lint", str(tmp_path), "--format", "json", "--rule", "schema"],
                        capsys)
    assert [(f["file"], f["line"], f["column"], f["message"], f["fix"])
            for f in json.loads(out)["findings"]] == [(
        "charts/gw/values-prod.yaml", 3, 3,
        "autoscaling.maxReplicaCount: no template of the chart in charts/gw reads "
        ".Values.autoscaling.maxReplicaCount, and its values.yaml has no such key, so this "
        "value changes nothing (its templates read .Values.autoscaling.maxReplicas, and "
        ".Values.autoscaling.maxReplicas keeps the chart's default unless this file sets it)",
        "Write it as maxReplicas, the key the chart reads, or remove it.")]


def test_a_digest_key_the_chart_does_not_read_is_not_offered(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial thirty: the fix offered `image.digest: sha256:...` for a chart of the
    tree whose template writes `{{ .Values.image.repository }}:{{ .Values.image.tag }}`:
    that key changes nothing there; a digest in the tag does."""
    from .helpers import write

    template = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: cache}\nspec:\n"
                "  template: {spec: {containers: [{name: c, image: "
                "'{{ .Values.image.repository }}:{{ .Values.image.tag }}'}]}}\n")
    write(tmp_path, {
        "charts/cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 1.0.0\n",
        "charts/cache/values.yaml": "image: {repository: redis, tag: 7.2.4}\n",
        "charts/cache/templates/deployment.yaml": template})

    def fixes() -> list[str]:
        _, out, _ = run_cli(["lint", str(tmp_path), "--format", "json", "--rule",
                             "image-digest"], capsys)
        return [f["fix"] for f in json.loads(out)["findings"]]

    assert fixes() == ["Pin the digest in the values: tag: 7.2.4@sha256:<digest>."]
    write(tmp_path, {"charts/cache/templates/deployment.yaml": template.replace(
        ":{{ .Values.image.tag }}", ":{{ .Values.image.tag }}@{{ .Values.image.digest }}")})
    assert fixes() == ['Pin the digest in the values: image.digest: sha256:<digest of tag '
                       '"7.2.4">, or tag: 7.2.4@sha256:<digest>.']
    # a subchart's values are its templates' to read (khuedoan-homelab's app-template)
    write(tmp_path, {
        "charts/cache/templates/deployment.yaml": template,
        "charts/cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 1.0.0\n"
                                   "dependencies: [{name: app-template, version: 2.6.0}]\n",
        "charts/cache/values.yaml": "image: {repository: redis, tag: 7.2.4@sha256:" + "a" * 64
                                    + "}\napp-template:\n  controllers:\n    main:\n"
                                    "      containers:\n        main:\n          image: "
                                    "{repository: redis, tag: 7.2.4}\n"})
    assert [f.partition(":")[0] for f in fixes()] == ["Pin the digest in the values"] and (
        "image.digest" in fixes()[0])


def test_an_applications_inline_values_text_is_judged_where_it_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Argo CD's `helm.values: |` is YAML as text: its values are what the chart renders,
    judged at the lines of the Application's file (a new-user trial: `tag: latest` there
    hid the chart's default and was judged nowhere). `valuesObject` takes its place when
    both are written."""
    from .helpers import write

    inline = """      values: |
        image:
          tag: latest
"""
    write(tmp_path, {**CHART, "app.yaml": APPLICATION.format(name="web", helm=inline)})
    _, out, _ = run_cli(["lint", str(tmp_path), "--format", "json", "--rule", "image-digest"],
                        capsys)
    assert [(f["severity"], f["file"], f["line"], f["column"], f["object"])
            for f in json.loads(out)["findings"]] == [
        ("error", "app.yaml", 13, 16, "HelmValues/web/web-helm-values")]
    both = inline + "      valuesObject: {image: {tag: '1.2.3@sha256:" + "0" * 64 + "'}}\n"
    write(tmp_path, {"app.yaml": APPLICATION.format(name="web", helm=both)})
    _, out, _ = run_cli(["lint", str(tmp_path), "--format", "json", "--rule", "image-digest"],
                        capsys)
    assert [f["file"] for f in json.loads(out)["findings"]] == []


def test_a_chart_value_no_template_reads_reaches_no_pod(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """huseyindeniz/gitops-lab: the chart's values.yaml holds `migration.image` (`:latest`),
    which no template reads: the Job's image is built from `image.repository` and
    `migration.tag`. No pod runs it, so no error says so. A template that reads it, or a
    map holding it, or the whole of `.Values`, makes it judged again; so does a chart whose
    templates are not here (helpers alone)."""
    from .helpers import write

    job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate}\nspec:\n  template:\n"
           "    spec:\n      containers:\n      - name: migrate\n        image: {{ "
           "%s }}\n")
    files = {
        "helm/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
        "helm/values.yaml": ("image: {repository: acme/web, tag: '1.2.3'}\n"
                             "migration:\n  tag: '1.2.3'\n"
                             "  image: {repository: acme/migration-job, tag: latest}\n"),
        "helm/templates/_helpers.tpl": '{{- define "web.name" -}}{{ .Chart.Name }}{{- end }}\n',
        "app.yaml": APPLICATION.format(name="web", helm="      valuesObject: {}\n"),
    }

    def errors(template: str) -> list[tuple[str, int]]:
        root = tmp_path / str(abs(hash(template)))
        write(root, {**files, "helm/templates/job.yaml": job % template})
        _, out, _ = run_cli(["lint", str(root), "--format", "json", "--rule", "image-digest"],
                            capsys)
        return [(f["file"], f["line"]) for f in json.loads(out)["findings"]
                if f["severity"] == "error"]

    assert errors('printf "%s-migration:%s" .Values.image.repository .Values.migration.tag'
                  ) == []
    assert errors(".Values.migration.image.repository") == [("helm/values.yaml", 4)]
    assert errors('include "img" .Values.migration') == [("helm/values.yaml", 4)]
    assert errors("toYaml .Values") == [("helm/values.yaml", 4)]
    helpers_only = tmp_path / "helpers-only"
    write(helpers_only, files)
    _, out, _ = run_cli(["lint", str(helpers_only), "--format", "json", "--rule",
                         "image-digest"], capsys)
    assert [(f["file"], f["line"]) for f in json.loads(out)["findings"]
            if f["severity"] == "error"] == [("helm/values.yaml", 4)]


def test_a_values_file_nothing_hands_to_helm_is_not_certain(tmp_path: Path) -> None:
    """A `values.yaml` only its name makes a values file (no chart beside it, no
    kustomization, HelmRelease or Application naming it): which chart reads it, and whether
    anything installs it, the repository does not say, so its findings are warnings that
    say so (bank-of-anthos' pgpool sidecar `:latest`, judge round AS). Named by a
    kustomization's helmCharts, the same value is an error."""
    values = "pgpool:\n  sidecars:\n    - name: metrics\n      image: pgpool/exporter:latest\n"
    alone = tmp_path / "alone"
    (alone / "ha").mkdir(parents=True)
    (alone / "ha/values.yaml").write_text(values)
    result = lint_dir(alone, only=["image-digest"])
    assert [(f.file, f.line, f.severity) for f in result.findings] == [
        ("ha/values.yaml", 4, "warning")]
    assert "which chart and release read it, if any: nothing in the repository passes " \
        "values.yaml to Helm" in result.findings[0].message
    named = tmp_path / "named"
    (named / "ha").mkdir(parents=True)
    (named / "ha/values.yaml").write_text(values)
    (named / "ha/kustomization.yaml").write_text(
        "helmCharts:\n- {name: postgresql-ha, repo: https://charts.example.org, version: 1.0.0,"
        " releaseName: db, valuesFile: values.yaml}\n")
    assert [(f.file, f.line, f.severity) for f in lint_dir(
        named, only=["image-digest"]).findings] == [("ha/values.yaml", 4, "error")]
    # a name that names its release says which release it is for, not that anything
    # installs it (judge round CY); a script giving it to Helm does
    for name, script in (("release", None), ("scripted", (
            "helm upgrade --install db oci://charts.example.org/postgresql-ha \\\n"
            "  --values ha/db-values.yaml\n"))):
        root = tmp_path / name
        (root / "ha").mkdir(parents=True)
        (root / "ha/db-values.yaml").write_text(values)
        if script:
            (root / "deploy.sh").write_text(script)
        assert [(f.file, f.severity) for f in lint_dir(root, only=["image-digest"]).findings] == [
            ("ha/db-values.yaml", "warning" if script is None else "error")]


def test_a_chart_kustomize_renders_from_its_chart_home_gives_its_own_values(
        tmp_path: Path) -> None:
    """A kustomization's helmCharts entry without a valuesFile renders the chart kept in its
    chart home (``helmGlobals.chartHome``, default ``charts``) with the chart's own
    values.yaml, as kustomize's HelmChartInflationGenerator does: an Argo CD Application
    applies that overlay, so the chart's values reach the cluster (new-user trial
    fifty-two: "reaches no cluster"); a chart named with a valuesFile is given that file."""
    chart = {"charts/exp/Chart.yaml": "apiVersion: v2\nname: exp\nversion: 1.0.0\n",
             "charts/exp/values.yaml": "image:\n  repository: dcgm-exporter\n  tag: latest\n"}
    app = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: mon}\n"
           "spec:\n  project: default\n  source: {repoURL: https://git.example/x.git, "
           "path: envs/prod/mon}\n  destination: {server: https://kubernetes.default.svc, "
           "namespace: mon}\n")
    for name, kustomization, want in [
        ("home", "helmGlobals: {chartHome: ../../../charts}\nhelmCharts:\n"
                 "- {name: exp, releaseName: exp, namespace: mon}\n", "error"),
        ("given", "helmGlobals: {chartHome: ../../../charts}\nhelmCharts:\n"
                  "- {name: exp, releaseName: exp, valuesFile: mine.yaml}\n", None),
    ]:
        root = tmp_path / name
        for path, text in {**chart, "apps/mon.yaml": app,
                           "envs/prod/mon/kustomization.yaml": kustomization,
                           "envs/prod/mon/mine.yaml": "replicas: 1\n"}.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        result = lint_dir(root, only=["image-digest", "kustomize-integrity"])
        assert [(f.file, f.line, f.severity) for f in result.findings
                if f.rule == "image-digest"] == ([("charts/exp/values.yaml", 3, want)]
                                                 if want else [])
        assert ("charts/exp/values.yaml" in result.model.unapplied) is (want is None)


def test_a_fleet_bundle_gives_helm_the_values_files_its_fleet_yaml_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Judge round BY: Fleet passes Helm exactly what a bundle's fleet.yaml names
    (`helm.valuesFiles`, its own and its targetCustomizations'): a `default-values.yaml` dump
    of the chart's defaults beside it, named by none, was judged as the release's values (6
    false errors), and `values00.yaml`, which one names, as a file nothing passes to Helm."""
    from .helpers import write

    write(tmp_path, {
        "apps/otel/fleet.yaml": "defaultNamespace: otel\nhelm:\n  chart: otel-demo\n"
                                "  repo: https://example.com/charts\n  version: 1.0.0\n"
                                "  releaseName: otel\n  valuesFiles: [values00.yaml]\n",
        "apps/otel/values00.yaml": "image: {repository: busybox, tag: latest}\n",
        "apps/otel/default-values.yaml": "image: {repository: nginx, tag: latest}\n",
    })
    _, out, _ = run_cli(["lint", str(tmp_path), "--format", "json", "--rule", "image-digest"],
                        capsys)
    assert [(f["file"], f["severity"], "Not certain" in f["message"])
            for f in json.loads(out)["findings"]] == [
        ("apps/otel/values00.yaml", "error", False)]


def test_the_values_of_a_chart_rendering_a_resource_an_operator_runs_are_not_certain(
        tmp_path: Path) -> None:
    """Judge round CC (jharmison/redhat-openshift-setup): a chart of the tree renders an
    LLMInferenceService from its values, `--tensor-parallel-size=4` under `model.args`, which
    its template passes: "no parallelism flag, so 1 GPU worker", an error. The pod read from
    the values is not the one the operator runs: its findings say so."""
    from .helpers import write

    values = ("image: {repository: vllm/vllm-openai, tag: v0.11.0}\n"
              "model: {args: [--tensor-parallel-size=4]}\n"
              "resources: {limits: {nvidia.com/gpu: 4}}\n")
    write(tmp_path, {
        "charts/llm/Chart.yaml": "apiVersion: v2\nname: llm\nversion: 1.0.0\n",
        "charts/llm/values.yaml": values,
        "charts/llm/templates/llmisvc.yaml": (
            "apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\n"
            "metadata: {name: '{{ .Release.Name }}'}\nspec:\n"
            "  image: {{ .Values.image.repository }}\n"
            "  args: {{ toYaml .Values.model.args }}\n"
            "  resources: {{ toYaml .Values.resources }}\n"),
    })
    found = [f for f in lint_dir(tmp_path, only=["gpu-parallelism"]).findings]
    assert [(f.severity, f.file) for f in found] == [("warning", "charts/llm/values.yaml")]
    assert found[0].message.endswith(
        "Not certain: reviewbot could not see how the chart in charts/llm makes its pods (its "
        "templates declare LLMInferenceService, which an operator runs: their args and "
        "volumes are the templates' and the operator's).")


def test_the_values_a_chart_rendering_an_operator_resource_passes_its_subchart_are_certain(
        tmp_path: Path) -> None:
    """Judge round BQ (Siryoos/kserve-vllm-mini): a chart renders an InferenceService and
    depends on its kvmini subchart, whose Deployment runs `kvmini.image` of the values: the
    subchart makes that pod, no operator, so its `:latest` stays an error while the
    InferenceService's values stay doubted."""
    from .helpers import write

    write(tmp_path, {
        "charts/mini/Chart.yaml": (
            "apiVersion: v2\nname: mini\nversion: 1.0.0\ndependencies:\n"
            "- {name: kvmini, version: 1.0.0, repository: 'file://../kvmini'}\n"),
        "charts/mini/values.yaml": (
            "image: {repository: kserve/vllm, tag: latest}\n"
            "kvmini:\n  image: {repository: kvmini-harness, tag: latest}\n"),
        "charts/mini/templates/isvc.yaml": (
            "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\n"
            "metadata: {name: '{{ .Release.Name }}'}\n"
            "spec: {predictor: {containers: [{image: '{{ .Values.image.repository }}'}]}}\n"),
    })
    found = [f for f in lint_dir(tmp_path, only=["image-digest"]).findings]
    assert [(f.severity, f.line, "Not certain" in f.message) for f in found] == [
        ("warning", 1, True), ("error", 3, False)]


@pytest.mark.parametrize("deletes, certain", [(True, False), (False, True)])
def test_the_values_of_a_chart_whose_kustomization_deletes_some_of_its_objects_are_not_certain(
        tmp_path: Path, deletes: bool, certain: bool) -> None:
    """Judge round CI (proompteng/lab): a kustomization renders the clickhouse-operator chart
    and deletes its CRD-install hook Job (`$patch: delete`), the only object that runs
    `crdHook.image`: "kubectl:latest ... runs whatever the registry serves", an error of
    no object the cluster receives. Which rendered object a values container is, reviewbot
    does not render; where the kustomization deletes some, its findings say so."""
    from .helpers import write

    patch = ("patches:\n- target: {kind: Job, name: op-crd-install}\n  patch: |-\n"
             "    $patch: delete\n    apiVersion: batch/v1\n    kind: Job\n"
             "    metadata: {name: op-crd-install}\n") if deletes else ""
    write(tmp_path, {
        "ops/kustomization.yaml": (
            "helmCharts:\n- {name: op, repo: 'https://charts.example.com', version: 0.27.2, "
            "releaseName: op, valuesFile: values.yaml}\n" + patch),
        "ops/values.yaml": "crdHook:\n  image: {repository: bitnami/kubectl, tag: latest}\n",
    })
    found = lint_dir(tmp_path, only=["image-digest"]).findings
    assert [(f.severity, "Job op-crd-install" in f.message) for f in found] == [
        ("error", False) if certain else ("warning", True)]


def test_nvidia_charts_write_an_image_as_repository_image_version(tmp_path: Path) -> None:
    """Judge round DD (brimdor's vendored gpu-operator): NVIDIA's charts write each image as
    `{{ .repository }}/{{ .image }}:{{ .version }}`; the images were "with no tag" beside
    their `version:`, floating, where each is pinned by a tag."""
    from .helpers import lint_dir, write

    write(tmp_path, {"gpu-operator/values.yaml": (
        "devicePlugin:\n  repository: nvcr.io/nvidia\n  image: k8s-device-plugin\n"
        "  version: v0.14.3-ubi8\n")})
    result = lint_dir(tmp_path, only=["image-digest"])
    assert [(f.kind, f.severity) for f in result.findings] == [("unpinned", "warning")]
    assert "image nvcr.io/nvidia/k8s-device-plugin:v0.14.3-ubi8 is pinned by tag only" in (
        result.findings[0].message)
