"""gpu-rollout: GPU workloads that surge need a spare GPU, which the inventory can show."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.rules.gpu_rollout import surge_pods

from .helpers import INVENTORY, lint_dir, lint_text, pairs, write


def isvc(name: str, gpus: int, strategy: str = "") -> str:
    return f"""
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {{name: {name}, namespace: llm-serving}}
spec:
  predictor:
    nodeSelector: {{kubernetes.io/hostname: worker-1}}{strategy}
    containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.11.0
      resources:
        limits: {{nvidia.com/gpu: "{gpus}"}}
---"""


RECREATE = "\n    deploymentStrategy: {type: Recreate}"


def test_surge_needs_a_card_the_node_does_not_have(tmp_path: Path) -> None:
    text = isvc("coder", 2) + isvc("reasoning", 1, RECREATE) + isvc("clef-serve", 1, RECREATE)
    result = lint_text(tmp_path, text, only=["gpu-rollout"], config=INVENTORY)
    assert pairs(result) == [("gpu-rollout", 5)]
    message = result.findings[0].message
    assert "coder-predictor requests 2 nvidia.com/gpu" in message
    assert "maxSurge 25%, the default when no strategy is set" in message
    assert "worker-1 has 4 nvidia.com/gpu and pods pinned there request 4" in message
    assert "coder-predictor 2, clef-serve-predictor 1, reasoning-predictor 1" in message
    assert "deploymentStrategy.type: Recreate" in result.findings[0].fix


def test_a_written_rolling_update_type_is_where_the_surge_is_said(tmp_path: Path) -> None:
    """New-user trial twenty-nine: `type: RollingUpdate` written without `maxSurge` (its 25%
    default): the text said the `strategy:` line, the review's comment the changed `type:`
    below it. The narrowest node that makes it surge is the type."""
    written = isvc("coder", 2, "\n    deploymentStrategy:\n      type: RollingUpdate")
    text = written + isvc("reasoning", 1, RECREATE) + isvc("clef-serve", 1, RECREATE)
    result = lint_text(tmp_path, text, only=["gpu-rollout"], config=INVENTORY)
    assert [(f.line, f.column) for f in result.findings] == [(8, 13)]  # (RollingUpdate)


def test_pods_of_one_name_on_the_node_are_named_with_their_namespaces(tmp_path: Path) -> None:
    """New-user trial twenty-nine: staging's and prod's `vllm` on one node read "vllm 2, vllm
    1"; named with their namespaces where their names are alike."""
    text = isvc("coder", 2) + isvc("coder", 1, RECREATE).replace(
        "namespace: llm-serving", "namespace: staging") + isvc("other", 1, RECREATE)
    result = lint_text(tmp_path, text, only=["gpu-rollout"], config=INVENTORY)
    (finding,) = result.findings
    assert ("(llm-serving/coder-predictor 2, other-predictor 1, staging/coder-predictor 1)"
            in finding.message)


def test_spare_gpus_today_are_borrowed_room(tmp_path: Path) -> None:
    # Seed 001: "Two GPUs are free, so this rolls out beside reasoning ... Recreate still
    # matters for the later swap". coder 1 + reasoning 1 of worker-1's 4: the surge pod finds
    # a free card today, and takes 1 of the 2 spare ones: a warning that says so.
    text = isvc("coder", 1) + isvc("reasoning", 1, RECREATE)
    result = lint_text(tmp_path, text, only=["gpu-rollout"], config=INVENTORY)
    assert [(f.line, f.kind, f.severity) for f in result.findings] == [
        (5, "borrowed-room", "warning")]
    message = result.findings[0].message
    assert message == (
        "coder-predictor requests 1 nvidia.com/gpu and rolls out with RollingUpdate "
            "(maxSurge 25%, the default when no strategy is set): the surge pod borrows 1 of "
            "the 2 nvidia.com/gpu worker-1 has spare today (4 nvidia.com/gpu allocatable, 2 "
            "requested by pods pinned there: coder-predictor 1, reasoning-predictor 1); the "
            "next GPU pod pinned to worker-1 turns this into a rollout that never finishes")
    assert "deploymentStrategy.type: Recreate" in result.findings[0].fix
    # the next GPU pod on the node: no room, the error
    full = text + isvc("clef-serve", 2, RECREATE)
    result = lint_text(tmp_path / "full", full, only=["gpu-rollout"], config=INVENTORY)
    assert [(f.line, f.kind, f.severity) for f in result.findings] == [(5, "surge", "error")]
    # with Recreate: nothing
    quiet = isvc("coder", 1, RECREATE) + isvc("reasoning", 1, RECREATE)
    assert pairs(lint_text(tmp_path / "recreate", quiet, only=["gpu-rollout"],
                           config=INVENTORY)) == []
    # without an inventory nothing promises a spare GPU
    assert [(f.line, f.kind) for f in lint_text(
        tmp_path / "bare", text, only=["gpu-rollout"]).findings] == [(5, "surge")]


def test_borrowed_room_counts_the_whole_surge(tmp_path: Path) -> None:
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: default}
spec:
  replicas: 2
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 2}}
  selector: {matchLabels: {app: llm}}
  template:
    metadata: {labels: {app: llm}}
    spec:
      nodeName: worker-1
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        resources: {limits: {nvidia.com/gpu: 1}}
"""
    # 2 pods hold 2 of 4; the surge of 2 pods borrows both spare cards
    result = lint_text(tmp_path, text, only=["gpu-rollout"], config=INVENTORY)
    assert [(f.line, f.kind) for f in result.findings] == [(6, "borrowed-room")]
    assert "borrows 2 of the 2 nvidia.com/gpu worker-1 has spare today" in (
        result.findings[0].message)
    assert "llm 2" in result.findings[0].message


def test_surge_of_several_pods(tmp_path: Path) -> None:
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: default}
spec:
  replicas: 4
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 50%, maxUnavailable: 0}}
  selector: {matchLabels: {app: llm}}
  template:
    metadata: {labels: {app: llm}}
    spec:
      nodeName: worker-1
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        resources: {limits: {nvidia.com/gpu: 1}}
"""
    # 4 pods hold all 4 GPUs; 50% of 4 surges 2 more pods, and none may stop first
    result = lint_text(tmp_path, text, only=["gpu-rollout"], config=INVENTORY)
    assert pairs(result) == [("gpu-rollout", 6)]
    assert "needs 2 nvidia.com/gpu more" in result.findings[0].message
    # new-user trial seventy-three (W3): four replicas are replaced one at a time while the
    # other three serve; Recreate, which stops all four, is the second choice
    assert result.findings[0].fix == (
        "Set spec.strategy.rollingUpdate.maxSurge: 0 with maxUnavailable: 1 (both 0 is "
        "refused): one pod at a time stops and frees its GPUs while the other 3 serve; or "
        "spec.strategy.type: Recreate (all 4 stop first) and delete its rollingUpdate block, "
        "which Recreate forbids.")
    assert [(e.path[-2:], e.op, e.value) for e in result.findings[0].edits] == [
        (("rollingUpdate", "maxSurge"), "set", 0), (("rollingUpdate", "maxUnavailable"), "set", 1)]
    # the default maxUnavailable, 25% of 4 pods, rounds down to 1: an old pod stops first,
    # frees its GPU, and the rollout goes on pod by pod
    default = text.replace(", maxUnavailable: 0", "")
    assert pairs(lint_text(tmp_path, default, only=["gpu-rollout"], config=INVENTORY)) == []
    # 25% of 1 pod rounds down to 0: the single pod's rollout waits forever
    single = default.replace("replicas: 4", "replicas: 1")
    assert pairs(lint_text(tmp_path, single, only=["gpu-rollout"], config=INVENTORY)) == [
        ("gpu-rollout", 6)]


def test_configurable_gpu_resources(tmp_path: Path) -> None:
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: tpu, namespace: default}
spec:
  selector: {matchLabels: {app: tpu}}
  template:
    metadata: {labels: {app: tpu}}
    spec:
      containers:
      - {name: a, image: x, resources: {limits: {google.com/tpu: 4}}}
"""
    assert pairs(lint_text(tmp_path, text, only=["gpu-rollout"])) == []
    config = "rules:\n  gpu-rollout:\n    gpu-resources: [google.com/tpu]\n"
    assert pairs(lint_text(tmp_path / "c", text, only=["gpu-rollout"], config=config)) == [
        ("gpu-rollout", 4)]


@pytest.mark.parametrize(("surge", "replicas", "pods"), [
    ("25%", 1, 1), ("25%", 4, 1), ("25%", 5, 2), ("0%", 3, 0), (0, 1, 0), ("2", 1, 2),
    (True, 1, None), ("a lot", 1, None),
])
def test_surge_pods_round_up(surge: object, replicas: int, pods: int | None) -> None:
    assert surge_pods(surge, replicas) == pods


def test_a_surge_that_lacks_room_only_for_pods_of_a_failing_build_is_a_warning(
        tmp_path: Path) -> None:
    """reasoning's 3 GPUs come only from broken's build, which kustomize refuses: without
    them worker-1 has room for coder's surge pod, so whether the rollout waits depends on a
    pod the cluster may not run: a warning that names it and the build that fails."""
    write(tmp_path, {".reviewbot.yaml": INVENTORY,
                     "apps/kustomization.yaml": "resources: [coder.yaml]\n",
                     "apps/coder.yaml": isvc("coder", 1),
                     "broken/kustomization.yaml": "resources: [reasoning.yaml, gone.yaml]\n",
                     "broken/reasoning.yaml": isvc("reasoning", 3, RECREATE)})
    (finding,) = lint_dir(tmp_path, only=["gpu-rollout"]).findings
    assert (finding.severity, finding.kind, finding.file) == ("warning", "surge",
                                                              "apps/coder.yaml")
    assert "pods pinned there request 4 (reasoning-predictor 3, coder-predictor 1)" in (
        finding.message)
    assert finding.message.endswith(
        "Not certain: reviewbot could not see whether the cluster runs "
        "llm-serving/reasoning-predictor: the build of broken fails (kustomization.yaml: "
        "'gone.yaml' does not exist), so none of it is applied until it builds.")


def test_each_cluster_s_own_nodes_judge_its_rollouts(tmp_path: Path) -> None:
    """New-user trial twenty: nodes given per cluster (`clusters[].nodes`, as
    configuration.md documents them) were not read here: a surge that can never finish on
    either cluster's one-GPU node was a warning, "no node inventory". Each cluster is judged
    with its own nodes (the serving-runtime rule and change-safety's stuck rollouts too)."""
    node = ("      - name: {name}\n        labels: {{kubernetes.io/hostname: {name}}}\n"
            "        allocatable: {{cpu: '8', memory: 30Gi, nvidia.com/gpu: '{gpus}'}}\n")
    config = "clusters:\n" + "".join(
        f"  - name: {env}\n    paths: [{env}]\n    nodes:\n" + node.format(name=name, gpus=gpus)
        for env, name, gpus in (("home", "gpu-01", 1), ("lab", "lab-gpu-01", 2)))
    deploy = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: vllm, namespace: llm}}
        spec:
          strategy: {{type: RollingUpdate, rollingUpdate: {{maxSurge: 1, maxUnavailable: 0}}}}
          selector: {{matchLabels: {{app: vllm}}}}
          template:
            metadata: {{labels: {{app: vllm}}}}
            spec:
              nodeSelector: {{kubernetes.io/hostname: {node}}}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  resources: {{limits: {{nvidia.com/gpu: "1"}}}}
    """
    write(tmp_path, {".reviewbot.yaml": config,
                     "home/vllm.yaml": deploy.format(node="gpu-01"),
                     "lab/vllm.yaml": deploy.format(node="lab-gpu-01")})
    result = lint_dir(tmp_path, only=["gpu-rollout"])
    # home's one GPU cannot hold the surge pod; lab's second GPU is spare today (borrowed)
    assert sorted((f.file, f.severity, f.kind) for f in result.findings) == [
        ("home/vllm.yaml", "error", "surge"), ("lab/vllm.yaml", "warning", "borrowed-room")]
    assert "gpu-01 has 1 nvidia.com/gpu" in next(
        f.message for f in result.findings if f.file == "home/vllm.yaml")


def test_an_app_template_release_s_fix_names_the_keys_its_values_have(tmp_path: Path) -> None:
    """New-user trial thirty-one: an app-template controller's RollingUpdate surging on a
    full GPU node was told "(or maxSurge: 0)", a key app-template does not read: its
    controller's `strategy` and `rollingUpdate.surge` are named."""
    text = """
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: vllm, namespace: ai}
spec:
  chart:
    spec: {chart: app-template, version: 3.7.1, sourceRef: {kind: HelmRepository, name: bjw-s}}
  values:
    controllers:
      vllm:
        strategy: RollingUpdate
        pod:
          nodeSelector: {kubernetes.io/hostname: worker-1}
        containers:
          app:
            image: {repository: vllm/vllm-openai, tag: v0.11.0}
            resources:
              limits: {nvidia.com/gpu: 4}
"""
    result = lint_text(tmp_path, text, only=["gpu-rollout"], config=INVENTORY)
    assert [f.fix for f in result.findings] == [
        "Set controllers.vllm.strategy: Recreate (or controllers.vllm.rollingUpdate.surge: "
        "\"0\", quoted: the common library of some app-template versions drops an integer "
        "0)."]
    # and `--fix` writes it (new-user trial seventy-five D9: "would fix 0 findings")
    assert [(e.path, e.op, e.value) for f in result.findings for e in f.edits] == [
        (("spec", "values", "controllers", "vllm", "strategy"), "set", "Recreate")]
    # its `rollingUpdate` values, which Recreate leaves unread, go with it (new-user trial
    # eighty-two W6: a dead `rollingUpdate: {surge: 1}` stayed)
    rolling = text.replace("        strategy: RollingUpdate\n", "        strategy: RollingUpdate\n"
                           "        rollingUpdate: {surge: 1, unavailable: 0}\n")
    result = lint_text(tmp_path / "rolling", rolling, only=["gpu-rollout"], config=INVENTORY)
    assert [(e.path, e.op) for f in result.findings for e in f.edits] == [
        (("spec", "values", "controllers", "vllm", "strategy"), "set"),
        (("spec", "values", "controllers", "vllm", "rollingUpdate"), "remove")]


def test_a_pod_no_node_is_pinned_for_borrows_room_where_the_cluster_s_gpus_leave_it(
        tmp_path: Path) -> None:
    """New-user trial forty-five: 2 replicas of a 1-GPU vLLM on two nodes of 2 GPUs each
    (nodeSelector on the GPU product: both admit it), a surge of 1: an error "when no spare
    GPU exists", though two GPUs were spare. The GPU pods of the cluster placed first, the
    surge fits today: borrowed room, a warning. A third replica's worth of other GPU pods
    (3 of 4 GPUs taken, then the surge has 1 left: still room); all four taken: the error."""
    node = ("      - name: {name}\n        labels: {{kubernetes.io/hostname: {name}, "
            "nvidia.com/gpu.product: L4}}\n"
            "        allocatable: {{cpu: '32', memory: 124Gi, nvidia.com/gpu: '2'}}\n")
    config = ("cluster:\n  nodes:\n" + node.format(name="gpu-1") + node.format(name="gpu-2")
              + "      - name: cpu-1\n        labels: {kubernetes.io/hostname: cpu-1}\n"
              "        allocatable: {cpu: '16', memory: 62Gi}\n")
    deploy = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: {name}, namespace: llm}}
        spec:
          replicas: {replicas}
          strategy: {{type: {strategy}, rollingUpdate: {{maxSurge: 1, maxUnavailable: 0}}}}
          selector: {{matchLabels: {{app: {name}}}}}
          template:
            metadata: {{labels: {{app: {name}}}}}
            spec:
              nodeSelector: {{nvidia.com/gpu.product: L4}}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  resources: {{limits: {{nvidia.com/gpu: "1"}}}}
    """

    def judged(other_replicas: int) -> list[tuple[str, str]]:
        write(tmp_path, {".reviewbot.yaml": config,
                         "vllm.yaml": deploy.format(name="vllm", replicas=2,
                                                    strategy="RollingUpdate"),
                         "other.yaml": deploy.format(name="embed", replicas=other_replicas,
                                                     strategy="Recreate")})
        return [(f.severity, f.kind) for f in lint_dir(tmp_path, only=["gpu-rollout"]).findings]

    assert judged(0) == [("warning", "borrowed-room")]
    message = lint_dir(tmp_path, only=["gpu-rollout"]).findings[0].message
    assert ("the surge pod fits today only because the GPUs are not all taken (gpu-1, gpu-2, "
            "which may run it, have 4 nvidia.com/gpu; the cluster's GPU pods ask 2 "
            "nvidia.com/gpu)") in message
    assert judged(1) == [("warning", "borrowed-room")]
    assert judged(2) == [("error", "surge")]
    # known, not "when no spare GPU exists"; and whose nodes they are, named (new-user
    # trial sixty-eight W1: a base file's surge, true in prod's inventory, named no cluster)
    (full,) = lint_dir(tmp_path, only=["gpu-rollout"]).findings
    assert full.message.endswith(
        "needs 1 nvidia.com/gpu more; the inventory's nodes have 4 nvidia.com/gpu, of which its "
        "GPU pods ask 4, and none that admits the new pod has 1 nvidia.com/gpu free: it stays "
        "Pending and the rollout never ends")
    two = tmp_path / "two"
    write(two, {".reviewbot.yaml": config.replace(
        "cluster:\n  nodes:\n", "clusters:\n- name: dev\n  paths: [dev]\n"
        "- name: prod\n  paths: [prod]\n  nodes:\n"),
        "prod/vllm.yaml": deploy.format(name="vllm", replicas=2, strategy="RollingUpdate"),
        "prod/other.yaml": deploy.format(name="embed", replicas=2, strategy="Recreate")})
    (full,) = lint_dir(two, only=["gpu-rollout"]).findings
    assert "; cluster prod's nodes have 4 nvidia.com/gpu, of which" in full.message


@pytest.mark.parametrize("rolling, says", [
    ("\n    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}", True), ("", False)])
def test_the_fix_to_recreate_drops_the_rolling_update_block_recreate_forbids(
        tmp_path: Path, rolling: str, says: bool) -> None:
    """New-user trial fifty: "Set spec.strategy.type: Recreate" followed, the
    `rollingUpdate:` block kept: the API server refuses the Deployment."""
    text = f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: vllm, namespace: llm}}
spec:
  selector: {{matchLabels: {{app: vllm}}}}
  strategy:
    type: RollingUpdate{rolling}
  template:
    metadata: {{labels: {{app: vllm}}}}
    spec:
      containers:
      - name: vllm
        image: vllm
        resources: {{limits: {{nvidia.com/gpu: 2}}}}
"""
    [finding] = lint_text(tmp_path, text, only=["gpu-rollout"]).findings
    assert finding.fix.startswith("Set spec.strategy.type: Recreate and delete its "
                                  "rollingUpdate block, which Recreate forbids (or" if says
                                  else "Set spec.strategy.type: Recreate (or")


def test_a_chart_its_release_post_renders_as_a_daemonset_rolls_without_surge(
        tmp_path: Path) -> None:
    """Judge round CS: mmontes11's dcgm-exporter HelmRelease requests a GPU in its values
    and sets no strategy, but its own post-renderer patches the chart's DaemonSet: the
    release says what the chart renders, and a DaemonSet stops the old pod first. A release
    whose post-renderer patches a Deployment keeps the warning."""
    release = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: dcgm, namespace: gpu}
        spec:
          chart: {spec: {chart: dcgm-exporter, version: 4.8.2,
                         sourceRef: {kind: HelmRepository, name: nvidia}}}
          values:
            resources: {limits: {nvidia.com/gpu: 1}}
          postRenderers:
          - kustomize:
              patches:
              - target: {kind: %s, name: dcgm}
                patch: '[{"op": "add", "path": "/metadata/labels/a", "value": "b"}]'
        """
    assert lint_text(tmp_path / "ds", release % "DaemonSet", only=["gpu-rollout"]).findings == []
    found = lint_text(tmp_path / "deploy", release % "Deployment", only=["gpu-rollout"])
    assert [(f.kind, f.severity) for f in found.findings] == [("chart-default", "warning")]


def test_an_app_template_surge_is_said_at_its_rolling_update_surge(tmp_path: Path) -> None:
    """New-user trial sixty-nine D6: `rollingUpdate: {surge: 1}` of an app-template
    controller (its maxSurge) was said at `strategy: RollingUpdate`, two lines above."""
    text = """
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: vllm, namespace: ai}
spec:
  chart:
    spec: {chart: app-template, version: 3.7.1, sourceRef: {kind: HelmRepository, name: bjw-s}}
  values:
    controllers:
      vllm:
        strategy: RollingUpdate
        rollingUpdate:
          surge: 1
        pod:
          nodeSelector: {kubernetes.io/hostname: worker-1}
        containers:
          app:
            image: {repository: vllm/vllm-openai, tag: v0.11.0}
            resources:
              limits: {nvidia.com/gpu: 4}
"""
    result = lint_text(tmp_path, text, only=["gpu-rollout"], config=INVENTORY)
    assert [(f.kind, f.line) for f in result.findings] == [("surge", 12)]
