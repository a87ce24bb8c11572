"""schedulability: requests against the inventory's measured allocatable."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from reviewbot.engine.run import Result

from .helpers import GPU_QUOTA_SURGE, INVENTORY, GitRepo, lint_dir, lint_text, pairs, run_cli, write


def pinned(name: str, memory: str, replicas: int = 1, node: str = "worker-1",
           extra: str = "") -> str:
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: llm-serving}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      nodeSelector: {{kubernetes.io/hostname: {node}}}{extra}
      containers:
      - name: main
        image: x
        resources: {{requests: {{memory: {memory}}}}}
---"""


def test_the_seed_overflow(tmp_path: Path) -> None:
    text = (pinned("coder", "24Gi") + pinned("reasoning", "20Gi") + pinned("clef", "20Gi")
            + pinned("probe", "4Gi"))
    result = lint_text(tmp_path, text, only=["schedulability"], config=INVENTORY)
    assert pairs(result) == [("schedulability", 14)]  # coder's 24Gi, the largest
    (finding,) = result.findings
    assert finding.object == "Deployment/llm-serving/coder"
    assert finding.message == (
        "coder: the pods pinned to worker-1 request 68Gi memory (coder 24Gi, clef 20Gi, "
        "reasoning 20Gi, probe 4Gi), but its allocatable is 63495Mi: 6137Mi too much, so at "
        "least one of them stays Pending")
    # the fix: 12Gi fits (56Gi of 63495Mi)
    text = text.replace("memory: 24Gi", "memory: 12Gi")
    assert pairs(lint_text(tmp_path / "fixed", text, only=["schedulability"],
                           config=INVENTORY)) == []


def test_one_pod_alone_above_its_node_stays_pending_itself(tmp_path: Path) -> None:
    # new-user trial twenty-four: one pod read "so one of them stays Pending"
    result = lint_text(tmp_path, pinned("big", "100Gi"), only=["schedulability"],
                       config=INVENTORY)
    (finding,) = result.findings
    assert finding.message.endswith("too much, so it stays Pending")


def test_alike_pods_above_their_node_say_how_many_stay_pending(tmp_path: Path) -> None:
    # new-user trial sixty-four: 4 replicas of 2 GPUs pinned to a node of 4 read "so one of
    # them stays Pending"; two do
    text = pinned("vllm", "8Gi", replicas=4).replace("memory: 8Gi", "memory: 8Gi, "
                                                      "nvidia.com/gpu: 2")
    result = lint_text(tmp_path, text, only=["schedulability"], config=INVENTORY)
    assert [f.message.rpartition(" too much, so ")[2] for f in result.findings] == [
        "2 of them stay Pending"]


def test_quantities_in_any_unit(tmp_path: Path) -> None:
    # 63495Mi written as bytes, decimal gigabytes and a fraction of a Gi: exactly full
    text = (pinned("a", '"66579333120"') + pinned("b", "0e0") + pinned("c", "1G")
            + pinned("d", "1.5Gi", replicas=0))
    config = INVENTORY.replace('memory: 63495Mi', 'memory: "67579333120"')
    assert pairs(lint_text(tmp_path, text, only=["schedulability"], config=config)) == []
    text += pinned("e", "1")
    assert pairs(lint_text(tmp_path / "over", text, only=["schedulability"],
                           config=config)) == [("schedulability", 14)]


def test_daemonsets_count_on_every_node_they_admit(tmp_path: Path) -> None:
    daemonset = """
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - {name: a, image: x, resources: {requests: {memory: 2Gi}}}
"""
    text = pinned("coder", "60Gi") + daemonset
    result = lint_text(tmp_path, text, only=["schedulability"], config=INVENTORY)
    # worker-1: 60Gi + 2Gi fits 63495Mi; talos-cp-3 is tainted, and the agent does not tolerate
    assert pairs(result) == []
    text = pinned("coder", "61Gi") + daemonset
    result = lint_text(tmp_path / "b", text, only=["schedulability"], config=INVENTORY)
    assert pairs(result) == [("schedulability", 14)]
    assert "(coder 61Gi, agent 2Gi)" in result.findings[0].message


def test_unpinned_pod_bigger_than_any_admitting_node(tmp_path: Path) -> None:
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: default}
spec:
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec:
      tolerations: [{operator: Exists}]
      containers:
      - {name: a, image: x, resources: {requests: {cpu: "20"}}}
"""
    # talos-cp-3 (11950m) is too small, but worker-1 (32) admits and fits it
    assert pairs(lint_text(tmp_path, text, only=["schedulability"], config=INVENTORY)) == []
    result = lint_text(tmp_path / "b", text.replace('"20"', '"40"'), only=["schedulability"],
                       config=INVENTORY)
    assert pairs(result) == [("schedulability", 11)]
    assert "the largest, worker-1, has 32 allocatable" in result.findings[0].message


GPU_POOL = """
cluster:
  nodes:
    - name: gpu-1
      labels: {kubernetes.io/hostname: gpu-1, nvidia.com/gpu.product: NVIDIA-L4}
      allocatable: {cpu: "32", memory: 125Gi, nvidia.com/gpu: "3"}
    - name: gpu-2
      labels: {kubernetes.io/hostname: gpu-2, nvidia.com/gpu.product: NVIDIA-L4}
      allocatable: {cpu: "32", memory: 125Gi, nvidia.com/gpu: "3"}
    - name: cpu-1
      labels: {kubernetes.io/hostname: cpu-1}
      allocatable: {cpu: "32", memory: 125Gi}
"""


def test_pods_only_a_set_of_nodes_admits_must_fit_those_nodes_together(tmp_path: Path) -> None:
    """New-user trial thirty-eight: 3 replicas of 2 GPUs, selected onto the L4 nodes, two of
    them: each pod fits a node, so too-big was quiet, and no node is pinned, so node-full
    was; yet 2 GPUs fit once on a node of 3: two run, one stays Pending forever. Two
    replicas fit; a pod pinned to a node takes what it requests there first."""
    def vllm(replicas: int, gpus: int = 2) -> str:
        return f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: vllm, namespace: llm}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: vllm}}}}
  template:
    metadata: {{labels: {{app: vllm}}}}
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-L4}}
      containers:
      - {{name: vllm, image: x, resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}}}
"""
    result = lint_text(tmp_path / "three", vllm(3), only=["schedulability"], config=GPU_POOL)
    assert [(f.line, f.kind, f.severity, f.message, f.fix) for f in result.findings] == [(
        12, "pool-full", "error",
        "vllm: 3 pods request 2 nvidia.com/gpu each (vllm 3 x 2) and may run only on gpu-1, "
        "gpu-2 (left: gpu-1 3, gpu-2 3), where 2 fit: 1 stays Pending",
        "Run at most 2 of them there, lower the nvidia.com/gpu request, or let them run on "
        "more nodes.")]
    assert result.findings[0].others[0].line == 5  # (its replicas: where a review may be)
    assert pairs(lint_text(tmp_path / "two", vllm(2), only=["schedulability"],
                           config=GPU_POOL)) == []
    pinned_one = vllm(1, 2).replace("name: vllm,", "name: embed,").replace(
        "{app: vllm}", "{app: embed}").replace(
        "nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}", "nodeName: gpu-1")
    result = lint_text(tmp_path / "pinned", vllm(2) + "---" + pinned_one,
                       only=["schedulability"], config=GPU_POOL)
    assert [f.message for f in result.findings] == [
        "vllm: 2 pods request 2 nvidia.com/gpu each (vllm 2 x 2) and may run only on gpu-1, "
        "gpu-2 (left: gpu-1 1, gpu-2 3), where 1 fit: 1 stays Pending"]


def test_pinned_to_an_unknown_host_is_not_judged(tmp_path: Path) -> None:
    text = pinned("coder", "1Ti", node="worker-9")
    assert pairs(lint_text(tmp_path, text, only=["schedulability"], config=INVENTORY)) == []


def test_pinned_to_a_misspelt_inventory_host_is_a_warning(tmp_path: Path) -> None:
    """New-user trial forty-eight: `prod-gpu-02` for the inventory's `prod-gpu-2`: four
    replicas Pending, and "1 info". A host named with the same numbers as a listed node,
    its name close, is a warning (an inventory may list some nodes only); `worker-9` beside
    `worker-1` is another node (above)."""
    text = pinned("coder", "1Gi", node="worker-01") + pinned(
        "chat", "1Gi", node="talos-cp3").replace("nodeSelector: {kubernetes.io/hostname: "
                                                  "talos-cp3}", "nodeName: talos-cp3")
    result = lint_text(tmp_path, text, only=["schedulability"], config=INVENTORY)
    assert [(f.kind, f.severity, f.line, f.message, f.fix) for f in result.findings] == [
        ("no-such-node", "warning", 10,
         "coder: its nodeSelector kubernetes.io/hostname pins it to worker-01, which is no "
         "node of the inventory (did you mean worker-1?): on a cluster without that node, its "
         "pods never schedule",
         "Set worker-01 to worker-1, or list node worker-01 in the inventory if the cluster "
         "has it."),
        ("no-such-node", "warning", 25,
         "chat: its nodeName pins it to talos-cp3, which is no node of the inventory (did you "
         "mean talos-cp-3?): on a cluster without that node, its pods never schedule",
         "Set talos-cp3 to talos-cp-3, or list node talos-cp3 in the inventory if the cluster "
         "has it.")]


TAINTED = """
cluster:
  nodes:
    - name: gpu-1
      labels: {kubernetes.io/hostname: gpu-1}
      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
      allocatable: {cpu: "32", memory: 125Gi, nvidia.com/gpu: "2"}
"""


def test_pinned_to_a_node_whose_taint_it_does_not_tolerate_is_never_scheduled(
        tmp_path: Path) -> None:
    """New-user trial fifty-two: vLLM pinned to the tainted gpu-1, its tolerations removed,
    stays Pending ("no findings" before). Tolerating the taint, or pinned by nodeName (the
    scheduler skipped), it is not this."""
    toleration = "\n      tolerations: [{key: nvidia.com/gpu, operator: Exists}]"
    text = (pinned("vllm", "1Gi", node="gpu-1") + pinned(
        "ok", "1Gi", node="gpu-1", extra=toleration) + pinned(
        "direct", "1Gi", node="gpu-1").replace(
            "nodeSelector: {kubernetes.io/hostname: gpu-1}", "nodeName: gpu-1"))
    result = lint_text(tmp_path, text, only=["schedulability"], config=TAINTED)
    assert [(f.kind, f.severity, f.line, f.message, f.fix) for f in result.findings] == [
        ("untolerated", "error", 10,
         "vllm: its nodeSelector kubernetes.io/hostname pins it to node gpu-1, whose taint "
         "nvidia.com/gpu=present:NoSchedule it does not tolerate: the scheduler places it on "
         "no node, and its pods stay Pending",
         "Add a toleration of nvidia.com/gpu (operator Exists, effect NoSchedule) to the pod, "
         "or pin it to a node without that taint.")]


def test_a_request_above_its_limit_is_refused_without_an_inventory(tmp_path: Path) -> None:
    # a new-user trial: K frontend 256Mi over 128Mi, F home-assistant (app-template) 4Gi
    # over 2Gi; the API server says "must be less than or equal to memory limit"
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: frontend, namespace: shop}
spec:
  selector: {matchLabels: {app: frontend}}
  template:
    metadata: {labels: {app: frontend}}
    spec:
      initContainers:
      - name: warm
        image: x
        resources:
          requests: {cpu: "1", ephemeral-storage: 2G}
          limits: {cpu: 1000m, ephemeral-storage: 1Gi}
      containers:
      - name: server
        image: x
        resources:
          requests: {cpu: 100m, memory: 256Mi}
          limits: {cpu: 200m, memory: 128Mi}
      - name: fits
        image: x
        resources:
          requests: {memory: 1Gi, cpu: "${CPU}"}
          limits: {memory: 1024Mi, cpu: 10m}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: home-assistant, namespace: home-automation}
spec:
  chart:
    spec:
      chart: app-template
      sourceRef: {kind: HelmRepository, name: bjw-s}
  values:
    controllers:
      home-assistant:
        containers:
          app:
            image: {repository: ghcr.io/home-operations/home-assistant, tag: "2024.10.1"}
            resources:
              requests: {cpu: 47m, memory: 4Gi}
              limits: {memory: 2Gi}
"""
    result = lint_text(tmp_path, text, only=["schedulability"])
    # 2G (decimal) is above 1Gi; ${CPU} is no quantity, 1Gi equals 1024Mi
    assert sorted((f"{f.rule}[{f.kind}]", f.line) for f in result.findings) == [
        ("schedulability[over-limit]", 13), ("schedulability[over-limit]", 19),
        ("schedulability[over-limit]", 42)]
    assert {f.severity for f in result.findings} == {"error"}
    helm = next(f for f in result.findings if f.line == 42)
    assert helm.column == 44  # at the request's value
    assert helm.message == (
        "home-assistant, container app (values controllers.home-assistant): requests 4Gi "
        "memory, above its limit of 2Gi: the API server refuses the pod (\"must be less than "
        "or equal to memory limit\"), so it is never created")
    assert helm.fix == ("Lower resources.requests.memory to at most 2Gi, or raise "
                        "resources.limits.memory to at least 4Gi.")


def test_a_review_places_over_limit_on_the_value_the_change_moved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the PR lowers the limit below the request: the comment goes on the limit it changed
    # (inline), the request it left is named as the same cause's other place
    def job(limit: str) -> str:
        return textwrap.dedent(f"""\
            apiVersion: batch/v1
            kind: Job
            metadata: {{name: snap, namespace: ops}}
            spec:
              template:
                spec:
                  restartPolicy: Never
                  containers:
                  - name: snap
                    image: snap:1@sha256:{"a" * 64}
                    resources:
                      requests: {{memory: 150Mi}}
                      limits:
                        memory: {limit}
            """)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"job.yaml": job("150Mi")})
    head = repo.commit({"job.yaml": job("128Mi")})
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "json",
                            "--rule", "schedulability"], capsys)
    [finding] = json.loads(out)["findings"]
    assert (code, finding["line"], finding["new"]) == (1, 14, True)
    assert finding["message"].startswith("snap, container snap: limits memory to 128Mi, below "
                                         "its request of 150Mi: the API server refuses the pod")
    assert finding["also"] == [{"object": "Job/ops/snap", "file": "job.yaml", "line": 12}]


def test_a_node_sum_that_needs_pods_of_a_failing_build_is_a_warning_naming_them(
        tmp_path: Path) -> None:
    """reasoning is made only by broken's build, which kustomize refuses (gone.yaml does not
    exist): the cluster runs it as an earlier revision built it, or not at all. coder's 40Gi
    fits worker-1 alone, so the overcommit depends on reasoning: a warning that names it.
    When coder alone does not fit, the overcommit is certain: an error."""
    write(tmp_path, {".reviewbot.yaml": INVENTORY,
                     "apps/kustomization.yaml": "resources: [coder.yaml]\n",
                     "apps/coder.yaml": pinned("coder", "40Gi"),
                     "broken/kustomization.yaml": "resources: [reasoning.yaml, gone.yaml]\n",
                     "broken/reasoning.yaml": pinned("reasoning", "30Gi")})
    (finding,) = lint_dir(tmp_path, only=["schedulability"]).findings
    assert (finding.severity, finding.file, finding.object) == (
        "warning", "apps/coder.yaml", "Deployment/llm-serving/coder")
    assert finding.message.endswith(
        "Not certain: reviewbot could not see whether the cluster runs llm-serving/reasoning: "
        "the build of broken fails (kustomization.yaml: 'gone.yaml' does not exist), so none "
        "of it is applied until it builds.")
    (other,) = finding.others  # reasoning's own place says it is not applied, once
    assert other.message.count("the build of broken fails") == 1
    assert "Not applied: the build of broken fails" in other.message
    (tmp_path / "apps/coder.yaml").write_text(textwrap.dedent(pinned("coder", "70Gi")))
    (finding,) = lint_dir(tmp_path, only=["schedulability"]).findings
    assert (finding.severity, "Not certain" in finding.message) == ("error", False)


def test_a_review_places_node_full_on_the_replica_count_the_change_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial thirty-two: replicas 1 -> 3 of a 2-GPU pod on a 4-GPU node: the error
    sat at the GPU request, off the diff. The written replica count is the same cause's
    other place, where the review comments."""
    def gpu(replicas: int) -> str:
        return textwrap.dedent(f"""\
            apiVersion: apps/v1
            kind: Deployment
            metadata: {{name: vllm, namespace: ml}}
            spec:
              replicas: {replicas}
              strategy: {{type: Recreate}}
              selector: {{matchLabels: {{app: vllm}}}}
              template:
                metadata: {{labels: {{app: vllm}}}}
                spec:
                  nodeSelector: {{kubernetes.io/hostname: worker-1}}
                  containers:
                  - name: vllm
                    image: vllm:1@sha256:{"a" * 64}
                    resources:
                      limits: {{nvidia.com/gpu: "2"}}
            """)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({".reviewbot.yaml": INVENTORY, "gpu.yaml": gpu(1)})
    head = repo.commit({"gpu.yaml": gpu(3)})
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "json",
                            "--rule", "schedulability"], capsys)
    [finding] = json.loads(out)["findings"]
    assert (code, finding["line"], finding["new"]) == (1, 5, True)
    assert finding["also"] == [{"object": "Deployment/ml/vllm", "file": "gpu.yaml", "line": 16}]


def test_an_autoscaler_naming_a_workload_its_namespace_lacks_is_said(tmp_path: Path) -> None:
    """New-user trial thirty-two: Deployment api renamed api-server, the prod HPA kept
    `scaleTargetRef.name: api`: it scales nothing (FailedGetScale), and prod runs the
    base's replicas. Said where a workload of a close name is there; a target of no close
    name may be a chart's: not judged."""
    hpa = """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: TARGET}
  minReplicas: 3
  maxReplicas: 6
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api-server, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: x}]}
"""
    result = lint_text(tmp_path / "a", hpa.replace("TARGET", "api"), only=["schedulability"])
    assert [(f.line, f.severity, f.message, f.fix) for f in result.findings] == [(
        5, "warning", "HorizontalPodAutoscaler shop/api: its scaleTargetRef names Deployment "
        "api, which namespace shop does not have (did you mean api-server?): it scales "
        "nothing, and Deployment api-server runs the replicas it writes",
        "Point scaleTargetRef.name at api-server.")]
    # the workload's name is the same cause's other place, where a review comments when
    # the change renamed it (new-user trial thirty-three: not inline)
    assert [(o.object, o.line) for o in result.findings[0].others] == [
        ("Deployment/shop/api-server", 11)]
    for target in ("api-server", "postgres"):
        assert lint_text(tmp_path / target, hpa.replace("TARGET", target),
                         only=["schedulability"]).findings == []
    # the Deployment became an Argo Rollout of a word more (new-user trial eighty-six D2:
    # lint silent, and the review's fix said to remove the HPA); a Rollout another
    # autoscaler scales is not the one meant
    rollout = hpa.replace("TARGET", "api-server").replace(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api-server",
        "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: api-server-rollout")
    result = lint_text(tmp_path / "rollout", rollout, only=["schedulability"])
    assert [(f.line, f.message.split(": it scales")[0], f.fix) for f in result.findings] == [(
        5, "HorizontalPodAutoscaler shop/api: its scaleTargetRef names Deployment api-server, "
        "which namespace shop does not have (did you mean Rollout api-server-rollout?)",
        "Point scaleTargetRef at Rollout api-server-rollout (apiVersion: argoproj.io/v1alpha1, "
        "kind: Rollout, name: api-server-rollout).")]
    other = hpa.split("---")[0].replace("name: api,", "name: other,").replace(
        "TARGET", "api-server-rollout").replace("apiVersion: apps/v1, kind: Deployment",
                                                "apiVersion: argoproj.io/v1alpha1, kind: Rollout")
    assert "kind: Deployment" not in other
    assert lint_text(tmp_path / "taken", rollout + "---\n" + other,
                     only=["schedulability"]).findings == []


def test_a_budget_that_allows_no_eviction_blocks_every_drain(tmp_path: Path) -> None:
    """New-user trial thirty-eight: vllm runs 2 replicas (its HPA's minReplicas 2) under a
    PodDisruptionBudget of `minAvailable: 2`: the eviction API refuses every eviction of
    them, so a node drain (an upgrade, the autoscaler's scale-down) waits forever on their
    node. Said of `maxUnavailable: 0` and `minAvailable: 100%` too; a budget that lets one
    go, one of the HPA's larger floor, and one whose pods KEDA scales (to zero) are quiet."""
    def text(budget: str, scaler: str = "") -> str:
        return """
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: llm}
spec:
  replicas: 2
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec: {containers: [{name: vllm, image: x}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: vllm, namespace: llm}
spec:
  BUDGET
  selector: {matchLabels: {app: vllm}}
""".replace("BUDGET", budget) + scaler
    hpa = """---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: vllm, namespace: llm}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: vllm}
  minReplicas: MIN
  maxReplicas: 4
"""
    found = {}
    for name, budget, scaler in (
            ("hpa", "minAvailable: 2", hpa.replace("MIN", "2")),
            ("hpa3", "minAvailable: 2", hpa.replace("MIN", "3")),
            ("hpa1", "minAvailable: 2", hpa.replace("MIN", "1")),
            ("zero", "maxUnavailable: 0", ""), ("all", "minAvailable: 100%", ""),
            ("half", "minAvailable: 50%", ""), ("one", "maxUnavailable: 1", ""),
            ("keda", "minAvailable: 2", hpa.replace("autoscaling/v2", "keda.sh/v1alpha1").replace(
                "HorizontalPodAutoscaler", "ScaledObject"))):
        result = lint_text(tmp_path / name, text(budget, scaler), only=["schedulability"])
        found[name] = [(f.line, f.kind, f.severity) for f in result.findings]
        if name == "hpa":
            assert [(f.message, f.fix) for f in result.findings] == [(
                "PodDisruptionBudget llm/vllm: minAvailable 2 of the 2 pods it selects "
                "(Deployment vllm: 2, the minReplicas of HorizontalPodAutoscaler vllm) allows no "
                "voluntary eviction: a node drain (an upgrade, the autoscaler's scale-down) "
                "waits on their node until more replicas run or the budget changes",
                "Set maxUnavailable: 1 in place of minAvailable 2, or run more replicas than "
                "the budget keeps.")]
        if name == "zero":  # (new-user trial sixty-eight W2: "in place of maxUnavailable";
            # seventy-one D5: no number of replicas helps a budget of none unavailable)
            assert [(f.message.split("eviction: ", 1)[1], f.fix) for f in result.findings] == [(
                "a node drain (an upgrade, the autoscaler's scale-down) waits on their node "
                "until the budget changes",
                "Set maxUnavailable: 1 (in place of 0): no number of replicas lets a budget of "
                "none unavailable evict one.")]
        if name == "hpa1":  # (new-user trial forty-seven read "of the 1 pods")
            assert result.findings[0].message.startswith(
                "PodDisruptionBudget llm/vllm: minAvailable 2 of the 1 pod it selects "
                "(Deployment vllm: 1, the minReplicas")
    blocked = [(15, "drain-blocked", "warning")]
    assert found == {"hpa": blocked, "hpa1": blocked, "hpa3": [], "zero": blocked,
                     "all": blocked, "half": [], "one": [], "keda": []}
    # an Argo Rollout's pods alike (new-user trial eighty-six D1: `minAvailable: 3` of its
    # HPA's floor of 3, unsaid)
    rollout = text("minAvailable: 2", hpa.replace("MIN", "2").replace(
        "apiVersion: apps/v1, kind: Deployment", "apiVersion: argoproj.io/v1alpha1, kind: Rollout")
                   ).replace("apiVersion: apps/v1\nkind: Deployment",
                             "apiVersion: argoproj.io/v1alpha1\nkind: Rollout").replace(
        "  replicas: 2\n", "  replicas: 2\n  strategy: {canary: {steps: [{setWeight: 50}]}}\n")
    result = lint_text(tmp_path / "rollout", rollout, only=["schedulability"])
    assert [(f.kind, f.message.split(" allows")[0]) for f in result.findings] == [(
        "drain-blocked", "PodDisruptionBudget llm/vllm: minAvailable 2 of the 2 pods it selects "
        "(Rollout vllm: 2, the minReplicas of HorizontalPodAutoscaler vllm)")]


@pytest.mark.parametrize(("least", "replicas", "found"), [
    ("3", "minReplicas: 3", [(6, "drain-blocked")]), ("2", "minReplicas: 3", []),
    ("1", "", [(6, "drain-blocked")]), ("1", "minReplicas: 0", [])])
def test_a_budget_of_a_kserve_component_s_pods_is_judged_by_its_min_replicas(
        tmp_path: Path, least: str, replicas: str, found: list[tuple[int, str]]) -> None:
    """New-user trial seventy-three (D1): `minAvailable: 3` over a predictor of three
    replicas, selected by the `serving.kserve.io/inferenceservice` label KServe gives its
    pods: unsaid, as every operator's pods were. KServe keeps `minReplicas` (its default 1);
    0 scales to zero, no floor."""
    text = f"""
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: chat, namespace: llm}}
spec:
  selector: {{matchLabels: {{serving.kserve.io/inferenceservice: chat}}}}
  minAvailable: {least}
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {{name: chat, namespace: llm}}
spec:
  predictor:
    {replicas or "timeout: 60"}
    model: {{modelFormat: {{name: vllm}}, storageUri: "pvc://models/chat"}}
"""
    result = lint_text(tmp_path, text, only=["schedulability"])
    assert [(f.line, f.kind) for f in result.findings] == found
    if found and least == "3":
        assert "(InferenceService chat-predictor: 3)" in result.findings[0].message


@pytest.mark.parametrize(("name", "found"), [
    ("ml-serving-high", [(15, "priority-missing")]),
    ("ml-servng-critical", [(15, "priority-missing")]),
    ("ml-serving-critical", []), ("system-node-critical", []), ("${PRIORITY}", [])])
def test_a_priority_class_the_repository_does_not_declare_refuses_the_pods(
        tmp_path: Path, name: str, found: list[tuple[int, str]]) -> None:
    """New-user trial seventy-three (D2): `priorityClassName: ml-serving-high` where the
    repository declares three PriorityClasses, none of that name: the Priority admission
    refuses every pod. A warning (a chart may add it); the API server's own two are there."""
    text = f"""
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {{name: ml-serving-critical}}
value: 900000
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: embed, namespace: llm}}
spec:
  selector: {{matchLabels: {{app: embed}}}}
  template:
    metadata: {{labels: {{app: embed}}}}
    spec:
      containers: [{{name: embed, image: x}}]
      priorityClassName: {name}
"""
    result = lint_text(tmp_path, text, only=["schedulability"])
    assert [(f.line, f.kind) for f in result.findings] == found
    if name == "ml-servng-critical":
        assert (result.findings[0].severity, result.findings[0].fix) == (
            "warning", "Name the PriorityClass ml-serving-critical, or add PriorityClass "
                       "ml-servng-critical.")
    # a repository that declares no PriorityClass leaves the cluster's to it
    bare = text.split("---", 1)[1]
    assert lint_text(tmp_path / "bare", bare, only=["schedulability"]).findings == []


def test_an_autoscaler_naming_what_a_chart_of_the_tree_s_values_makes_is_not_judged(
        tmp_path: Path) -> None:
    """Judge round BP (GoogleCloudPlatform/bank-of-anthos): an HPA scales StatefulSet
    `accounts-db-postgresql`, which the PostgreSQL chart its README installs with the
    values file beside it (`fullnameOverride: accounts-db`) makes; the repository's own
    `accounts-db` was offered: "did you mean accounts-db?", a rename that would scale the
    wrong database. A name a chart installed with a values file of the tree gives is the
    chart's: not judged."""
    hpa = """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: db, namespace: bank}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: accounts-db-postgresql}
  minReplicas: 1
  maxReplicas: 5
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: accounts-db, namespace: bank}
spec:
  serviceName: accounts-db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: x}]}
"""
    write(tmp_path, {"hpa/hpa.yaml": hpa})
    assert [f.kind for f in lint_dir(tmp_path, only=["schedulability"]).findings] == [
        "scale-target"]
    write(tmp_path, {"helm-postgres-ha/values.yaml": "fullnameOverride: accounts-db\n"})
    assert [f.kind for f in lint_dir(tmp_path, only=["schedulability"]).findings] == []


def test_an_autoscaler_naming_a_workload_its_build_renamed_is_said(tmp_path: Path) -> None:
    """New-user trial thirty-four: under `namePrefix: prod-`, Deployment api renamed
    api-server, the HPA kept `name: api`. kustomize renames a reference with its referent
    only: `api` names nothing of the build, so it stays `api` beside prod-api-server, and
    the close name is the one written. The fix names what to write there."""
    hpa = """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 3
  maxReplicas: 6
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api-server, namespace: shop}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: x}]}
"""
    (tmp_path / "kustomization.yaml").write_text("namePrefix: prod-\nresources: [all.yaml]\n")
    (tmp_path / "all.yaml").write_text(hpa.lstrip("\n"))
    result = lint_dir(tmp_path, only=["schedulability"])
    assert [(f.file, f.line, f.severity, f.message, f.fix) for f in result.findings] == [(
        "all.yaml", 5, "warning", "HorizontalPodAutoscaler shop/prod-api: its scaleTargetRef "
        "names Deployment api, which namespace shop does not have (did you mean api-server, "
        "which the build names prod-api-server?): it scales nothing, and Deployment "
        "prod-api-server runs 1 replica (it writes none: Kubernetes' default)",
        "Point scaleTargetRef.name at api-server.")]


def test_the_renamed_workload_s_name_is_where_its_document_writes_it(tmp_path: Path) -> None:
    """New-user trial thirty-five: an overlay's patch names the renamed Deployment
    api-server (its target), and the scale-target finding's other place, the Deployment's
    name, was the patch's line: a review commented on the patch, not on the rename. A patch
    that keeps the name does not write it."""
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [all.yaml]\n",
        "base/all.yaml": """apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  maxReplicas: 6
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api-server, namespace: shop}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: x}]}
""",
        "overlay/kustomization.yaml": "resources: [../base]\npatches:\n- path: env.yaml\n",
        "overlay/env.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: api-server
spec:
  template:
    spec:
      containers:
      - {name: api, env: [{name: A, value: b}]}
"""})
    result = lint_dir(tmp_path, only=["schedulability"])
    assert {(o.file, o.line) for f in result.findings for o in f.others} == {
        ("base/all.yaml", 10)}


CLAIMING = """
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %s, namespace: apps}
spec:
  selector: {matchLabels: {app: %s}}
  template:
    metadata: {labels: {app: %s}}
    spec:
      containers: [{name: app, image: app}]
      volumes:
        - name: data
          persistentVolumeClaim: {claimName: %s}
"""
CLAIM = """
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: %s, namespace: apps}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
"""


def test_a_pod_mounting_a_claim_of_a_near_name_its_namespace_lacks_stays_pending(
        tmp_path: Path) -> None:
    """New-user trial thirty-nine's lint miss, as far as a lint can tell: a claim no manifest
    declares, beside one of a close name (`redis-dta` for `redis-data`): the scheduler
    leaves the pod Pending, "persistentvolumeclaim not found". A claim of no close name may
    be made by hand or a chart; one a StatefulSet's claim template makes is declared."""
    text = (CLAIM % "redis-data" + CLAIMING % ("redis", "redis", "redis", "redis-dta")
            + CLAIMING % ("nfs", "nfs", "nfs", "media-nfs")
            + CLAIMING % ("reader", "reader", "reader", "data-db-0") + """
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: apps}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: db}]
  volumeClaimTemplates:
    - metadata: {name: data}
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
""")
    result = lint_text(tmp_path, text, only=["schedulability"])
    assert [(f.line, f.kind, f.severity, f.message, f.fix) for f in result.findings] == [
        (21, "claim-missing", "warning",
         "redis: volume data mounts PersistentVolumeClaim apps/redis-dta, which namespace apps "
         "does not have (did you mean redis-data?): the scheduler leaves the pod Pending "
         "(persistentvolumeclaim \"redis-dta\" not found)",
         "Name the claim redis-data, or add PersistentVolumeClaim redis-dta.")]


def test_a_workload_renamed_under_its_autoscaler_is_an_error_in_a_review(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial forty-two: Deployment web renamed web-frontend, its HPA (minReplicas
    3) still naming web: a `scale-target` warning and a green CI, prod down to one replica.
    The review sees the rename: an error, the warning told by it; a target removed alike."""
    web = textwrap.dedent("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: NAME, namespace: shop}
        spec:
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              containers: [{name: web, image: web}]
        ---
        apiVersion: autoscaling/v2
        kind: HorizontalPodAutoscaler
        metadata: {name: web, namespace: shop}
        spec:
          scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
          minReplicas: 3
          maxReplicas: 6
        """)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web.yaml": web.replace("NAME", "web")})
    head = repo.commit({"web.yaml": web.replace("NAME", "web-frontend")})
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "json", "--rule",
                            "schedulability"], capsys)
    assert code == 1
    assert [(f["severity"], f["line"], f["message"], f["fix"])
            for f in json.loads(out)["findings"]] == [
        ("error", 15, "HorizontalPodAutoscaler shop/web: its scaleTargetRef names Deployment "
         "web, which this change renames to web-frontend: it scales nothing, and Deployment "
         "web-frontend runs 1 replica (it writes none: Kubernetes' default), where it kept "
         "at least 3", "Point scaleTargetRef.name at web-frontend.")]
    # a workload that runs at least the minimum loses the scaling up, not replicas (new-user
    # trial forty-five: "runs 1 replica, where it kept at least 1")
    base = repo.commit({"web.yaml": web.replace("NAME", "web").replace("minReplicas: 3",
                                                                        "minReplicas: 1")})
    head = repo.commit({"web.yaml": web.replace("NAME", "web-frontend").replace(
        "minReplicas: 3", "minReplicas: 1")})
    _, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                         "--platform", "none", "--format", "json", "--rule",
                         "schedulability"], capsys)
    assert [f["message"] for f in json.loads(out)["findings"]] == [
        "HorizontalPodAutoscaler shop/web: its scaleTargetRef names Deployment web, which this "
        "change renames to web-frontend: it scales nothing, and Deployment web-frontend runs 1 "
        "replica (it writes none: Kubernetes' default), however the load grows (its "
        "maxReplicas, 6, no longer applies)"]
    # the Deployment became an Argo Rollout (new-user trial eighty-six D3: the fix said to
    # remove the HPA, which Argo Rollouts lets scale it)
    head = repo.commit({"web.yaml": web.replace("NAME", "web-rollout").replace(
        "apiVersion: apps/v1\nkind: Deployment", "apiVersion: argoproj.io/v1alpha1\nkind: Rollout"
    ).replace("minReplicas: 3", "minReplicas: 1")})
    _, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                         "--platform", "none", "--format", "json", "--rule",
                         "schedulability"], capsys)
    assert [(f["message"], f["fix"]) for f in json.loads(out)["findings"]] == [(
        "HorizontalPodAutoscaler shop/web: its scaleTargetRef names Deployment web, which this "
        "change removes (did you mean Rollout web-rollout, which it has?): it scales nothing",
        "Point scaleTargetRef at Rollout web-rollout (apiVersion: argoproj.io/v1alpha1, kind: "
        "Rollout, name: web-rollout).")]


def test_a_pod_too_big_in_several_resources_names_each_gpus_first(tmp_path: Path) -> None:
    """New-user trial eighty-three D4: 64 cpu, 512Gi and 8 GPUs on nodes of 32, ~62Gi and 4:
    the finding named the cpu alone, and its fix, followed, left the pod Pending (the
    scheduler says each insufficient resource)."""
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: ray, namespace: ml}
spec:
  template:
    spec:
      containers:
      - name: worker
        image: rayproject/ray:2.9.0
        resources: {limits: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8"}}
"""
    (found,) = lint_text(tmp_path, text, only=["schedulability"], config=INVENTORY).findings
    assert found.message.startswith("ray: one pod requests 8 nvidia.com/gpu, but no inventory "
                                    "node that admits it has that much")
    assert ", and 64 cpu (worker-1 has 32), and 512Gi memory (worker-1 has " in found.message
    assert found.fix == ("Lower the nvidia.com/gpu request to fit worker-1, and the cpu "
                         "request, and the memory request, or add a node that can hold it.")


def test_a_gpu_request_an_engine_shards_over_is_lowered_with_its_parallelism(
        tmp_path: Path) -> None:
    """New-user trial forty-five: 4 GPUs at --tensor-parallel-size=4, the largest node of 2
    (here 8 on worker-1 of 4):
    "Lower the nvidia.com/gpu request to fit", which alone leaves vLLM asking for 4 GPUs."""
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: llm}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: ["--tensor-parallel-size=8"]
        resources: {limits: {nvidia.com/gpu: "8"}}
"""
    (found,) = lint_text(tmp_path, text, only=["schedulability"], config=INVENTORY).findings
    assert found.kind == "too-big"
    assert found.fix == (
        "Lower the nvidia.com/gpu request to fit worker-1 (and --tensor-parallel-size=8 with "
        "it: the engine shards the model over that many GPUs), or add a node that can hold it.")
    pinned = text.replace("    spec:\n      containers:",
                          "    spec:\n      nodeSelector: {kubernetes.io/hostname: worker-1}\n"
                          "      containers:").replace('"8"}}', '"5"}}').replace("=8", "=5")
    (found,) = lint_text(tmp_path / "pinned", pinned, only=["schedulability"],
                         config=INVENTORY).findings
    assert "lower vllm's request (and --tensor-parallel-size=5 with it" in found.fix


def test_an_app_template_replica_count_is_the_overcommit_s_other_place(tmp_path: Path) -> None:
    """New-user trial forty-three: `replicas: 2` added to an app-template controller of one
    GPU, pinned to worker-1: the error sat at the unchanged GPU request, off the diff, with
    no inline comment. The values' replica count is the same cause's other place, where a
    review comments when the change is there (as `spec.replicas` is of a Deployment)."""
    text = """
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: ollama, namespace: ai}
spec:
  chart:
    spec: {chart: app-template, version: 3.7.1, sourceRef: {kind: HelmRepository, name: bjw-s}}
  values:
    controllers:
      ollama:
        replicas: 5
        pod:
          nodeSelector: {kubernetes.io/hostname: worker-1}
        containers:
          app:
            image: {repository: ollama/ollama, tag: 0.5.7}
            resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}
"""
    result = lint_text(tmp_path, text, only=["schedulability"], config=INVENTORY)
    (found,) = result.findings
    assert (found.kind, found.line, [o.line for o in found.others]) == ("node-full", 16, [10])


def test_pinned_to_another_cluster_s_node_never_schedules_there(tmp_path: Path) -> None:
    """New-user trial fifty-three: a base both clusters build pinned to a node of cluster a's
    inventory: in b, which lacks that node, its pods stay Pending ("no findings"). A node is
    in one cluster: an error for b, said once; a's build is quiet."""
    from .helpers import lint_dir, write

    write(tmp_path, {
        ".reviewbot.yaml": """
            clusters:
              - name: a
                paths: [clusters/a]
                nodes: [{name: a-worker-1, labels: {kubernetes.io/hostname: a-worker-1},
                         allocatable: {cpu: "8", memory: 32Gi}}]
              - name: b
                paths: [clusters/b]
                nodes: [{name: b-worker-1, labels: {kubernetes.io/hostname: b-worker-1},
                         allocatable: {cpu: "8", memory: 32Gi}}]
        """,
        "base/kustomization.yaml": "resources: [deploy.yaml]\n",
        "base/deploy.yaml": pinned("app", "1Gi", node="a-worker-1").rstrip("-\n") + "\n",
        "clusters/a/kustomization.yaml": "resources: [../../base]\n",
        "clusters/b/kustomization.yaml": "resources: [../../base]\n",
    })
    found = lint_dir(tmp_path, only=["schedulability"]).findings
    assert [(f.kind, f.severity, f.file, f.line) for f in found] == [
        ("foreign-node", "error", "base/deploy.yaml", 10)]
    assert found[0].message == (
        "app: its nodeSelector kubernetes.io/hostname pins it to a-worker-1, a node of cluster "
        "a (its inventory), built for cluster b too, which does not have it: there its pods "
        "never schedule")


APP_TEMPLATE_WEB = """
apiVersion: source.toolkit.fluxcd.io/v1beta2
kind: OCIRepository
metadata: {name: app-template, namespace: flux-system}
spec: {interval: 12h, ref: {tag: 3.7.1}, url: oci://ghcr.io/bjw-s/helm/app-template}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: web}
spec:
  chartRef: {kind: OCIRepository, name: app-template, namespace: flux-system}
  values:
    controllers:
      web:
        replicas: 2
        containers:
          app: {image: {repository: ghcr.io/acme/web, tag: "1.0"}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: web}
spec:
  minAvailable: LEAST
  selector: {matchLabels: {app.kubernetes.io/name: web}}
"""


@pytest.mark.parametrize(("least", "blocked"), [(2, True), (1, False)])
def test_a_budget_of_app_template_pods_is_judged_by_their_rendered_labels(
        tmp_path: Path, least: int, blocked: bool) -> None:
    """New-user trial fifty-three: `minAvailable: 2` over an app-template release of 2
    replicas, selected by the label the chart renders (`app.kubernetes.io/name: web`): a
    drain waits forever, and nothing was said (pods a chart makes were not judged).
    app-template's pods, their labels all known, are."""
    text = APP_TEMPLATE_WEB.replace("LEAST", str(least))
    found = [(f.kind, f.severity, f.line) for f in lint_text(
        tmp_path, text, only=["schedulability"]).findings]
    assert found == ([("drain-blocked", "warning", 22)] if blocked else [])


QUOTA = """
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: api}
spec:
  hard:
    requests.cpu: "2"
    limits.memory: 4Gi
"""


def quota_pod(name: str, resources: str = "", replicas: int = 1, kind: str = "Deployment"
              ) -> str:
    spec = (f"  replicas: {replicas}\n" if kind == "Deployment" else "")
    return (f"---\napiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: {name}, namespace: api}}\n"
            f"spec:\n{spec}  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n"
            f"    metadata: {{labels: {{app: {name}}}}}\n    spec:\n      containers:\n"
            f"      - name: {name}\n        image: nginx:1.27\n{resources}")


def checks(result: Result) -> list[tuple[str, int]]:
    """``(rule[kind], line)`` of each finding, sorted."""
    return sorted((f.check, f.line) for f in result.findings)


SET = "        resources: {requests: {cpu: 500m}, limits: {memory: 2Gi}}\n"


@pytest.mark.parametrize(("extra", "found"), [
    # a container that sets neither: every pod refused, at its name
    ("", [("schedulability[quota-unspecified]", 19)]),
    # its limit is its request too (the API's defaulting): cpu's limit alone sets both
    ("        resources: {limits: {cpu: 500m, memory: 1Gi}}\n", []),
    ("        resources: {requests: {cpu: 500m}}\n", [("schedulability[quota-unspecified]", 21)]),
    # a LimitRange of the namespace defaults what it leaves out
    ("---\napiVersion: v1\nkind: LimitRange\nmetadata: {name: d, namespace: api}\n"
     "spec:\n  limits:\n  - type: Container\n    default: {cpu: 500m, memory: 512Mi}\n", []),
])
def test_a_quota_refuses_pods_that_leave_out_what_it_tracks(
        tmp_path: Path, extra: str, found: list[tuple[str, int]]) -> None:
    """Judge round DG (and b4mad/op1st-emea-b4mad's compute-quota, "every renovate-forgejo
    run died with FailedCreate: exceeded quota" for 442 days): a namespace's ResourceQuota
    of cpu or memory makes the quota admission refuse a pod whose containers do not set
    them (kubernetes' pod evaluator: "must specify limits.memory")."""
    text = QUOTA + quota_pod("worker", extra if extra.startswith("        ") else "") + (
        extra if extra.startswith("---") else "")
    result = lint_text(tmp_path, text, only=["schedulability"])
    assert checks(result) == found
    if found:
        (f,) = result.findings
        assert f.message.startswith("Deployment api/worker: container worker sets no ")
        assert "(\"failed quota: compute: must specify " in f.message


def test_a_quota_its_namespace_s_workloads_exceed_refuses_the_pods_past_it(
        tmp_path: Path) -> None:
    """3 replicas of a 2Gi limit under a 4Gi `limits.memory`: the third pod is refused
    ("exceeded quota"); an autoscaler's floor of 2 fits; a Job's pods come and go."""
    text = QUOTA + quota_pod("api", SET, replicas=3)
    result = lint_text(tmp_path, text, only=["schedulability"])
    assert checks(result) == [("schedulability[quota-exceeded]", 7)]
    assert result.findings[0].message == (
        "ResourceQuota api/compute allows limits.memory 4Gi in namespace api, but its "
        "workloads ask 6Gi as written: Deployment api (3 x 2Gi); the API server refuses the "
        "pods past it (\"exceeded quota\"), so some of them never run")
    assert result.findings[0].fix == ("Raise spec.hard.limits.memory to at least 6Gi, or "
                                      "lower the workloads' replicas or resources.")
    scaled = text + ("---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n"
                     "metadata: {name: api, namespace: api}\nspec:\n  scaleTargetRef: "
                     "{apiVersion: apps/v1, kind: Deployment, name: api}\n"
                     "  minReplicas: 2\n  maxReplicas: 3\n")
    # (at its floor the pods fill the quota: the rollout's surge pod is what no longer fits,
    # nor its third replica: new-user trial seventy-three D4, `maxReplicas` past the quota)
    result = lint_text(tmp_path, scaled, only=["schedulability"])
    assert checks(result) == [("schedulability[quota-ceiling]", 29),
                              ("schedulability[quota-surge]", 7)]
    (ceiling,) = [f for f in result.findings if f.kind == "quota-ceiling"]
    assert (ceiling.severity, ceiling.message, ceiling.fix) == (
        "warning",
        "HorizontalPodAutoscaler api/api scales Deployment api up to 3 pods (2Gi limits.memory "
        "each), but ResourceQuota api/compute allows limits.memory 4Gi in namespace api, room "
        "for 2 pods of it beside the other workloads: past 2, the API server refuses its new "
        "pods (\"exceeded quota\"), and the autoscaler never scales further",
        "Lower maxReplicas to 2, or raise spec.hard.limits.memory of ResourceQuota compute to "
        "at least 6Gi.")
    # a floor above the quota: the autoscaler is named, and its minReplicas is the other
    # place (new-user trial seventy D3: "Deployment web (6 x 500m)" of replicas: 3)
    (over,) = lint_text(tmp_path, scaled.replace("minReplicas: 2", "minReplicas: 3"),
                        only=["schedulability"]).findings
    assert "Deployment api (3 x 2Gi, the minReplicas of HorizontalPodAutoscaler api)" in (
        over.message)
    assert ("HorizontalPodAutoscaler/api/api", 28) in [(o.object, o.line) for o in over.others]
    scoped = text.replace("spec:\n  hard:", "spec:\n  scopes: [NotBestEffort]\n  hard:", 1)
    assert checks(lint_text(tmp_path, scoped, only=["schedulability"])) == []
    job = QUOTA + ("---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: m, namespace: api}\n"
                   "spec:\n  template:\n    spec:\n      restartPolicy: Never\n"
                   "      containers:\n      - name: m\n        image: nginx:1.27\n"
                   "        resources: {requests: {cpu: '1'}, limits: {memory: 5Gi}}\n")
    assert checks(lint_text(tmp_path, job, only=["schedulability"])) == []
    # room for the autoscaler's every replica: nothing said
    assert checks(lint_text(tmp_path, scaled.replace("limits.memory: 4Gi", "limits.memory: 8Gi"),
                            only=["schedulability"])) == []
    # an Argo Rollout's pods count beside them (new-user trial seventy-six D5: "room for 32
    # pods beside the other workloads", a web Rollout's pods left out)
    roomy = scaled.replace("limits.memory: 4Gi", "limits.memory: 8Gi")
    rollout = quota_pod("web", SET, replicas=2).replace("apps/v1", "argoproj.io/v1alpha1").replace(
        "kind: Deployment", "kind: Rollout")
    result = lint_text(tmp_path, roomy + rollout, only=["schedulability"])
    assert [f.message.split(", room for ")[1].split(" of it")[0] for f in result.findings
            if f.kind == "quota-ceiling" and "limits.memory 8Gi" in f.message] == ["2 pods"]


def test_examples_of_one_app_applied_by_hand_are_no_sum_and_no_certain_relation(
        tmp_path: Path) -> None:
    """Judge round EC (christianh814/gitops-examples, 16 false errors): five examples of one
    app in namespace pricelist, each its own Argo CD Application applied by hand, summed
    against one example's quota (Deployment mysql counted twice), and another example's
    workloads refused by it. One object's copies are one object in a cluster (the smallest
    counted); a relation between roots applied by hand that apply one object unalike, as
    alternatives do, is a warning naming them."""
    def app(name: str, path: str) -> str:
        return ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
                f"metadata: {{name: {name}, namespace: argocd}}\nspec:\n  project: default\n"
                f"  source: {{repoURL: 'https://github.com/acme/examples', path: {path}}}\n"
                "  destination: {server: 'https://kubernetes.default.svc', namespace: api}\n")

    big = "        resources: {requests: {cpu: 1500m}, limits: {memory: 3Gi}}\n"
    write(tmp_path, {
        "one/app.yaml": app("one", "one/manifests"),
        "one/manifests/all.yaml": QUOTA + quota_pod("api", SET),
        "two/app.yaml": app("two", "two/manifests"),
        "two/manifests/all.yaml": quota_pod("api", big) + quota_pod("worker"),
    })
    result = lint_dir(tmp_path, only=["schedulability"])
    assert [(f.file, f.kind, f.severity) for f in result.findings] == [
        ("two/manifests/all.yaml", "quota-unspecified", "warning")]
    assert result.findings[0].message.endswith(
        "Not certain: reviewbot could not see whether one/app.yaml and two/app.yaml, each "
        "applied by hand, are applied together (they apply Deployment api/api unalike, as "
        "alternatives of one another do).")
    # one root: its relations are certain, and its copies of one object still one object
    write(tmp_path, {"two/manifests/all.yaml": quota_pod("worker")})
    result = lint_dir(tmp_path, only=["schedulability"])
    assert [(f.file, f.kind, f.severity) for f in result.findings] == [
        ("two/manifests/all.yaml", "quota-unspecified", "error")]


def test_what_may_set_resources_at_admission_makes_a_missing_one_a_warning(
        tmp_path: Path) -> None:
    kyverno = ("---\napiVersion: kyverno.io/v1\nkind: ClusterPolicy\n"
               "metadata: {name: default-resources}\nspec:\n  rules: []\n")
    result = lint_text(tmp_path, QUOTA + quota_pod("worker") + kyverno,
                       only=["schedulability"])
    assert [(f.kind, f.severity) for f in result.findings] == [("quota-unspecified", "warning")]
    assert "Not certain: reviewbot could not see whether ClusterPolicy default-resources, " \
           "which this tree installs, sets the resources" in result.findings[0].message


def test_a_review_that_adds_a_quota_says_the_refused_pods_at_the_quota(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The quota the pull request adds is where the change is (inline); the container that
    sets nothing, in a file it leaves as it was, is the same problem's other place."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"worker.yaml": quota_pod("worker").removeprefix("---\n")})
    head = repo.commit({"quota.yaml": QUOTA.lstrip("\n")})
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "json",
                            "--rule", "schedulability"], capsys)
    [finding] = json.loads(out)["findings"]
    assert (code, finding["file"], finding["line"], finding["new"]) == (
        1, "quota.yaml", 6, True)
    assert finding["message"].startswith("Deployment api/worker: container worker sets no "
                                         "requests.cpu or limits.memory, which ResourceQuota "
                                         "api/compute")
    assert finding["also"] == [{"object": "Deployment/api/worker", "file": "worker.yaml",
                                "line": 11}]


@pytest.mark.parametrize(("strategy", "found"), [
    ("", [("schedulability[quota-surge]", 7)]),
    ("  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n", []),
    ("  strategy: {type: Recreate}\n", []),
])
def test_a_quota_without_room_for_the_surge_pod_stops_every_rollout(
        tmp_path: Path, strategy: str, found: list[tuple[str, int]]) -> None:
    """2 replicas of 2Gi fill a 4Gi quota; the default RollingUpdate (maxSurge 25%: 1 pod,
    maxUnavailable 25% of 2: 0) starts a third pod first, which the quota refuses: the
    rollout waits forever. Stopping an old pod first (or Recreate) needs no room."""
    text = QUOTA + quota_pod("api", SET, replicas=2).replace(
        "  selector:", strategy + "  selector:", 1)
    result = lint_text(tmp_path, text, only=["schedulability"])
    assert checks(result) == found
    if found:
        assert result.findings[0].message.endswith(
            "Deployment api rolls out with RollingUpdate (maxSurge 25%, maxUnavailable 25%: 0 "
            "of 2 pods, the defaults), which starts 1 new pod (2Gi) before an old one stops: "
            "the API server refuses it (\"exceeded quota\"), and every rollout of Deployment "
            "api waits forever")
        assert result.findings[0].fix == (
            "Set Deployment api's rollingUpdate to maxSurge: 0 and maxUnavailable: 1 (or its "
            "strategy to Recreate), or raise spec.hard.limits.memory to at least 6Gi.")


@pytest.mark.parametrize(("floor", "memory", "found"), [
    (4, "1Gi", []),  # 25% of 4 is 1: an old pod stops first, its 1Gi frees the room
    (3, "1200Mi", [("schedulability[quota-surge]", 7)]),  # 25% of 3 rounds down to 0
])
def test_the_surge_of_a_scaled_deployment_is_counted_at_its_autoscaler_s_floor(
        tmp_path: Path, floor: int, memory: str, found: list[tuple[str, int]]) -> None:
    """New-user trial eighty D1: replicas 2 written, an HPA's minReplicas 4 (1Gi each, a 4Gi
    quota): the error said "maxUnavailable 25%: 0 of 4 pods", rounding 25% of the 2 written.
    The Deployment controller rounds from the pods it runs, the floor's: 1, the old pod
    stops first and the rollout finishes."""
    hpa = ("---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n"
           "metadata: {name: api, namespace: api}\n"
           "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}\n"
           f"  minReplicas: {floor}\n  maxReplicas: {floor}\n")
    text = QUOTA + quota_pod("api", SET.replace("2Gi", memory), replicas=2) + hpa
    result = lint_text(tmp_path, text, only=["schedulability"])
    assert checks(result) == found
    if found:
        assert "(maxSurge 25%, maxUnavailable 25%: 0 of 3 pods, the defaults)" in (
            result.findings[0].message)


def test_a_review_that_raises_replicas_past_a_quota_says_it_at_the_replicas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The quota sits in a file the pull request leaves; the replicas it raises are where
    the change is: the same problem's other place, the comment's."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"quota.yaml": QUOTA.lstrip("\n"),
                        "api.yaml": quota_pod("api", SET, replicas=2).removeprefix("---\n")
                        .replace("  selector:", "  strategy: {type: Recreate}\n  selector:")})
    head = repo.commit({"api.yaml": quota_pod("api", SET, replicas=3).removeprefix("---\n")
                        .replace("  selector:", "  strategy: {type: Recreate}\n  selector:")})
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "json",
                            "--rule", "schedulability"], capsys)
    [finding] = json.loads(out)["findings"]
    assert (code, finding["file"], finding["line"], finding["new"]) == (1, "api.yaml", 5, True)
    assert finding["message"].startswith("ResourceQuota api/compute allows limits.memory 4Gi")


def test_a_gpu_quota_s_surge_fix_never_asks_for_more_gpus(tmp_path: Path) -> None:
    """New-user trial seventy-two W2: a quota of 1 GPU, a GPU Deployment's RollingUpdate
    surge: the fix offered to raise the GPU quota to 2, on a node of 1 GPU (gpu-rollout's
    error beside it says why that never helps)."""
    text = GPU_QUOTA_SURGE.replace("  # COMMENT", "")
    result = lint_text(tmp_path, text, only=["schedulability"])
    assert [(f.kind, f.fix) for f in result.findings] == [(
        "quota-surge", "Set Deployment vllm's rollingUpdate to maxSurge: 0 and "
        "maxUnavailable: 1 (or its strategy to Recreate).")]


def test_a_namespace_less_quota_sums_only_the_namespace_less_pods_beside_it(
        tmp_path: Path) -> None:
    """Judge round DX: a samples repository, applied as written, whose quotas and
    Deployments write no namespace: a quota of one sample summed the Deployments of
    unrelated samples "in default" (4 false errors). Where neither writes one, `kubectl -n`
    decides: a pod in the quota's folder (or below) shares it; one elsewhere may not."""
    quota = QUOTA.replace(", namespace: api", "").replace('requests.cpu: "2"', "pods: \"1\"")
    pod = quota_pod("api", SET, replicas=2).replace(", namespace: api", "")
    write(tmp_path, {"team/quota.yaml": quota, "other/web.yaml": pod})
    assert checks(lint_dir(tmp_path, only=["schedulability"])) == []
    write(tmp_path, {"team/app/web.yaml": pod})
    assert checks(lint_dir(tmp_path, only=["schedulability"])) == [
        ("schedulability[quota-exceeded]", 6), ("schedulability[quota-surge]", 7)]


def test_a_budget_two_clusters_build_alike_is_judged_of_each_cluster_s_pods(
        tmp_path: Path) -> None:
    """New-user trial eighty-one W1: one budget, staging's 2 replicas and production's 3:
    each finding was said of both clusters, and the text read "alike: 3". Each cluster's
    finding is of that cluster."""
    budget = ("apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
              "metadata: {name: api, namespace: api}\n"
              "spec: {maxUnavailable: 0, selector: {matchLabels: {app: api}}}\n")
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [pdb.yaml, api.yaml]\n",
        "base/pdb.yaml": budget,
        "base/api.yaml": quota_pod("api", replicas=2).removeprefix("---\n"),
        "dev/kustomization.yaml": "resources: [../base]\n",
        "prod/kustomization.yaml": "resources: [../base]\nreplicas: [{name: api, count: 3}]\n",
        ".reviewbot.yaml": ("clusters:\n- {name: dev, paths: [dev]}\n"
                            "- {name: prod, paths: [prod]}\n"),
    })
    result = lint_dir(tmp_path, only=["schedulability"])
    assert sorted((f.clusters, f.message.split(" of the ")[1][:1]) for f in result.findings
                  if f.kind == "drain-blocked") == [(("dev",), "2"), (("prod",), "3")]
