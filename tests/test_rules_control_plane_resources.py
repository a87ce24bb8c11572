"""control-plane-resources: limits on pods that can run beside etcd, within a node share."""

from __future__ import annotations

from pathlib import Path

from reviewbot.engine.run import Result

from .helpers import INVENTORY, lint_text, pairs

VALUES = """
resources:
  requests: {{cpu: 750m, memory: 768Mi}}
  limits: {{cpu: {cpu}, memory: {memory}}}
tolerations:
  - {{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}}
nodeSelector:
  kubernetes.io/hostname: talos-cp-3
"""


def lint(tmp_path: Path, text: str, config: str = INVENTORY, name: str = "m.yaml") -> Result:
    if name.endswith("-values.yaml"):  # the homelab's `helm upgrade -f` gives it to Helm (a
        # named values file nothing installs is not certain: judge round CY)
        tmp_path.mkdir(parents=True, exist_ok=True)
        (tmp_path / "upgrade.sh").write_text(
            f"helm upgrade --install forgejo forgejo/forgejo -n forgejo -f {name}\n")
    return lint_text(tmp_path, text, only=["control-plane-resources"], config=config, name=name)


def test_seed_ceiling_passes_and_more_fails(tmp_path: Path) -> None:
    # 3000m of 11950m is 25.1%: the seeds' ceiling, under the default 0.3
    ok = VALUES.format(cpu="3000m", memory="2Gi")
    assert pairs(lint(tmp_path / "ok", ok, name="forgejo-values.yaml")) == []
    over = VALUES.format(cpu="3600m", memory="2Gi")
    result = lint(tmp_path / "over", over, name="forgejo-values.yaml")
    assert pairs(result) == [("control-plane-resources", 3)]
    (finding,) = result.findings
    assert finding.object == "HelmValues/forgejo-values"
    assert finding.message == (
        "forgejo-values limits cpu to 3600m, 30.1% of control-plane node talos-cp-3's 11950m "
        "allocatable; the ceiling is 0.3 of the node (3585m)")


def test_fraction_is_an_option(tmp_path: Path) -> None:
    config = INVENTORY + "rules:\n  control-plane-resources: {max-limit-fraction: 0.2}\n"
    result = lint(tmp_path, VALUES.format(cpu="3000m", memory="2Gi"), config=config,
                  name="forgejo-values.yaml")
    assert pairs(result) == [("control-plane-resources", 3)]
    assert "25.1% of control-plane node talos-cp-3's 11950m" in result.findings[0].message


def test_pod_limits_sum_over_containers(tmp_path: Path) -> None:
    text = """
apiVersion: v1
kind: Pod
metadata: {name: gitea, namespace: forgejo}
spec:
  nodeName: talos-cp-3
  tolerations: [{operator: Exists}]
  initContainers:
  - {name: init, image: x, resources: {limits: {cpu: "3", memory: 64Mi}}}
  containers:
  - {name: a, image: x, resources: {limits: {cpu: "2", memory: 1Gi}}}
  - {name: b, image: x, resources: {limits: {cpu: "2", memory: 1Gi}}}
"""
    # 4 CPUs in app containers (33.5%) outweigh the 3-CPU init container; anchor: the largest
    result = lint(tmp_path, text)
    assert pairs(result) == [("control-plane-resources", 10)]
    assert "limits cpu to 4, 33.5%" in result.findings[0].message


def test_missing_limits_name_the_node_and_the_reason(tmp_path: Path) -> None:
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: forgejo, namespace: forgejo}
spec:
  selector: {matchLabels: {app: forgejo}}
  template:
    metadata: {labels: {app: forgejo}}
    spec:
      tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists}]
      containers:
      - name: gitea
        image: x
        resources: {requests: {cpu: 200m, memory: 512Mi}, limits: {memory: 2Gi}}
"""
    result = lint(tmp_path, text)
    assert pairs(result) == [("control-plane-resources", 13)]
    assert result.findings[0].message == (
        "forgejo tolerates control-plane node talos-cp-3's taints, so it can run there; "
        "container gitea sets no cpu limit: its cpu use there has no bound and competes "
        "with etcd and the API server")
    # the fix names what is missing, not what the container already sets
    assert result.findings[0].fix == (
        "Set resources.limits.cpu for gitea (requests at or below the limits), sized from "
        "measured usage.")


def test_fix_names_every_missing_field_and_only_those(tmp_path: Path) -> None:
    text = """
apiVersion: v1
kind: Pod
metadata: {name: agent, namespace: default}
spec:
  nodeName: talos-cp-3
  containers:
  - {name: a, image: x, resources: {requests: {memory: 64Mi}}}
"""
    (finding,) = lint(tmp_path, text).findings
    assert finding.fix == (
        "Set resources.limits.cpu, resources.requests.cpu and resources.limits.memory for a "
        "(requests at or below the limits), sized from measured usage.")


def test_a_keyless_toleration_is_named_as_one(tmp_path: Path) -> None:
    # onedr0p's generic-device-plugin: `operator: Exists` with no key tolerates every taint of
    # its effect; the message says so instead of naming a toleration the pod does not have
    text = """
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: device-plugin, namespace: kube-system}
spec:
  selector: {matchLabels: {app: dp}}
  template:
    metadata: {labels: {app: dp}}
    spec:
      tolerations:
      - {operator: Exists, effect: NoSchedule}
      containers:
      - name: app
        image: x
        resources: {requests: {cpu: 50m, memory: 32Mi}, limits: {memory: 64Mi}}
"""
    (finding,) = lint(tmp_path, text, config="").findings
    assert finding.message.startswith(
        "device-plugin tolerates every NoSchedule taint (a toleration with operator Exists "
        "and no key), node-role.kubernetes.io/control-plane among them, so it can run on a "
        "control-plane node; container app sets no cpu limit")
    keyed = text.replace("{operator: Exists, effect: NoSchedule}",
                         "{key: node-role.kubernetes.io/control-plane, operator: Exists}")
    (finding,) = lint(tmp_path / "keyed", keyed, config="").findings
    assert finding.message.startswith(
        "device-plugin tolerates the node-role.kubernetes.io/control-plane taint, so it can "
        "run on a control-plane node;")


def test_pods_pinned_elsewhere_are_not_checked(tmp_path: Path) -> None:
    text = """
apiVersion: v1
kind: Pod
metadata: {name: gpu-job, namespace: default}
spec:
  nodeSelector: {kubernetes.io/hostname: worker-1}
  tolerations: [{operator: Exists}]
  containers: [{name: a, image: x}]
"""
    assert pairs(lint(tmp_path, text)) == []
    # without an inventory, worker-1 is an unknown host: the tolerate-all pod may land on a
    # control plane as far as the repository says
    assert pairs(lint(tmp_path / "bare", text, config="")) == [("control-plane-resources", 7)]


def test_a_values_file_is_named_after_the_release_that_uses_it(tmp_path: Path) -> None:
    """mitchross' cert-manager/values.yaml: its pods were "values" and "values.webhook"; the
    kustomization's helmCharts entry names the release, and so do the messages."""
    from .helpers import lint_dir, write

    write(tmp_path, {
        "cert-manager/kustomization.yaml": """
            namespace: cert-manager
            helmCharts:
              - {name: cert-manager, releaseName: cert-manager, version: v1.21.1,
                 repo: https://charts.jetstack.io, valuesFile: values.yaml}
        """,
        "cert-manager/values.yaml": """
            nodeSelector: {node-role.kubernetes.io/control-plane: ""}
            resources: {limits: {memory: 256Mi}, requests: {cpu: 20m, memory: 64Mi}}
            webhook:
              nodeSelector: {node-role.kubernetes.io/control-plane: ""}
              resources: {limits: {memory: 64Mi}}
        """,
    })
    result = lint_dir(tmp_path, only=["control-plane-resources"])
    assert [f.message.split(" selects")[0] for f in result.findings] == [
        "cert-manager", "cert-manager.webhook"]
    assert {f.object for f in result.findings} == {"HelmValues/cert-manager/values"}


def test_what_chart_values_leave_out_is_the_charts_default(tmp_path: Path) -> None:
    """Helm merges a release's values over the chart's values.yaml key by key (a null
    deletes a key). haraldkoch/kochhaus-home's coredns values write `limits: {memory:
    128Mi}`: the coredns chart's default limits hold `cpu: 100m`, which stays (no finding).
    A chart whose defaults reviewbot has not read leaves the cpu limit unseen: a warning
    that says so. A cpu limit the values delete is gone: an error. cert-manager's defaults
    are `resources: {}`: values that write requests alone leave the controller unbounded
    (mitchross/talos-argocd-proxmox)."""
    from .helpers import lint_dir, write

    release = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {{name: dns, namespace: kube-system}}
        spec:
          chart: {{spec: {{chart: {chart}, sourceRef: {{kind: HelmRepository, name: charts}}}}}}
          values:
            affinity:
              nodeAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                  nodeSelectorTerms:
                    - matchExpressions:
                        - {{key: node-role.kubernetes.io/control-plane, operator: Exists}}
            resources:
              requests: {{cpu: 100m, memory: 128Mi}}
              limits: {{{limits}}}
    """
    write(tmp_path, {
        "known/hr.yaml": release.format(chart="coredns", limits="memory: 128Mi"),
        "unknown/hr.yaml": release.format(chart="some-dns", limits="memory: 128Mi"),
        "deleted/hr.yaml": release.format(chart="coredns", limits="cpu: null, memory: 128Mi"),
        "none/hr.yaml": """
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {name: cert-manager, namespace: cert-manager}
            spec:
              chart: {spec: {chart: cert-manager, sourceRef: {kind: HelmRepository, name: j}}}
              values:
                nodeSelector: {node-role.kubernetes.io/control-plane: ""}
                resources: {requests: {cpu: 10m, memory: 64Mi}}
        """,
    })

    def found(folder: str) -> list[tuple[str, int]]:
        result = lint_dir(tmp_path / folder, only=["control-plane-resources"])
        return [(f.severity, f.line) for f in result.findings]

    assert found("known") == []
    unseen = lint_dir(tmp_path / "unknown", only=["control-plane-resources"])
    assert [(f.severity, f.line) for f in unseen.findings] == [("warning", 15)]
    assert unseen.findings[0].message.endswith(
        "Not certain: reviewbot could not see the chart's default resources, which Helm "
        "merges under these values key by key (a limit the chart sets by default stays "
        "unless the values set it to null).")
    assert found("deleted") == [("error", 15)]
    assert found("none") == [("error", 8)]


def test_each_cluster_is_judged_with_its_own_nodes(tmp_path: Path) -> None:
    """New-user trial twenty-four: clusters a (tainted control plane) and b (untainted)
    build one Deployment limited to 8Gi; b's 15Gi control plane admits it (0.3 is 4608Mi),
    and nothing was said until a was removed from the configuration."""
    from .helpers import lint_dir, write

    write(tmp_path, {
        ".reviewbot.yaml": """
            clusters:
              - name: a
                paths: [c/a]
                nodes:
                  - name: a-cp
                    labels: {node-role.kubernetes.io/control-plane: ""}
                    taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]
                    allocatable: {cpu: 3800m, memory: 15Gi}
              - name: b
                paths: [c/b]
                nodes:
                  - name: b-cp
                    labels: {node-role.kubernetes.io/control-plane: ""}
                    allocatable: {cpu: 3800m, memory: 15Gi}
        """,
        "c/a/kustomization.yaml": "resources: [../../k/pg.yaml]\n",
        "c/b/kustomization.yaml": "resources: [../../k/pg.yaml]\n",
        "k/pg.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: pg, namespace: db}
            spec:
              selector: {matchLabels: {app: pg}}
              template:
                metadata: {labels: {app: pg}}
                spec:
                  containers:
                    - name: pg
                      image: postgres
                      resources:
                        requests: {cpu: 100m, memory: 1Gi}
                        limits: {cpu: "1", memory: 8Gi}
        """,
    })
    result = lint_dir(tmp_path, only=["control-plane-resources"])
    assert [(f.file, f.severity, f.message) for f in result.findings] == [
        ("k/pg.yaml", "error", "pg limits memory to 8Gi, 53.3% of control-plane node b-cp's "
         "15Gi allocatable; the ceiling is 0.3 of the node (4608Mi)")]
