"""gpu-rollout: GPU workloads that surge need a spare GPU, which the inventory can show."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.rules.gpu_rollout import surge_pods

from .helpers import INVENTORY, lint_text, pairs


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


def test_spare_gpus_on_the_pinned_node_let_it_roll(tmp_path: Path) -> None:
    # coder 1 + reasoning 1 of 4: the surge pod finds a free card (seed 001's rollout).
    text = isvc("coder", 1) + isvc("reasoning", 1, RECREATE)
    assert pairs(lint_text(tmp_path, text, only=["gpu-rollout"], config=INVENTORY)) == []
    # without an inventory nothing promises a spare GPU
    assert pairs(lint_text(tmp_path / "bare", text, only=["gpu-rollout"])) == [
        ("gpu-rollout", 5)]


def test_surge_of_several_pods(tmp_path: Path) -> None:
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: default}
spec:
  replicas: 4
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 50%}}
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
    # 4 pods hold all 4 GPUs; 50% of 4 surges 2 more pods
    result = lint_text(tmp_path, text, only=["gpu-rollout"], config=INVENTORY)
    assert pairs(result) == [("gpu-rollout", 6)]
    assert "needs 2 nvidia.com/gpu more" in result.findings[0].message


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
