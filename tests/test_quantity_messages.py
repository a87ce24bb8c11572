"""Messages quote a quantity as the user wrote it (``64G``), never only as reviewbot stores
it (``62500000Ki``); when they compare it with a value in binary units, they add it in those
in parentheses."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from reviewbot.model.quantity import format_quantity, quote

from .helpers import INVENTORY, lint_text, pairs


def test_quote_gives_the_written_text_of_the_value() -> None:
    assert quote("memory", Fraction(64 * 10**9), "64G") == "64G"
    assert quote("memory", Fraction(64 * 10**9), "1Gi", "64G", compared=True) == "64G (59.60Gi)"
    assert quote("memory", Fraction(2**31), "2048Mi", compared=True) == "2048Mi"
    assert quote("cpu", Fraction(3, 2), "1500m", compared=True) == "1500m"
    # no written text is the value (a sum of two containers): the normalized form
    assert quote("memory", Fraction(128 * 10**9), "64G") == "128G"
    assert format_quantity("memory", Fraction(64 * 10**9)) == "64G"


def test_control_plane_share_quotes_the_limit_and_the_allocatable(tmp_path: Path) -> None:
    text = """
apiVersion: v1
kind: Pod
metadata: {name: etcd-backup, namespace: kube-system}
spec:
  nodeSelector: {kubernetes.io/hostname: talos-cp-3}
  tolerations: [{operator: Exists}]
  containers:
  - name: backup
    image: x
    resources:
      requests: {cpu: 100m, memory: 1G}
      limits: {cpu: 200m, memory: 8G}
"""
    config = INVENTORY.replace("memory: 15Gi", "memory: 16G")
    result = lint_text(tmp_path, text, only=["control-plane-resources"], config=config)
    assert pairs(result) == [("control-plane-resources", 12)]
    assert result.findings[0].message == (
        "etcd-backup limits memory to 8G (7.45Gi), 50.0% of control-plane node talos-cp-3's "
        "16G (14.90Gi) allocatable; the ceiling is 0.3 of the node (4800M)")


def test_schedulability_quotes_the_request_and_the_allocatable(tmp_path: Path) -> None:
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: big, namespace: default}
spec:
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec:
      containers:
      - {name: a, image: x, resources: {requests: {memory: 64G}}}
"""
    config = INVENTORY.replace("memory: 63495Mi", "memory: 60G")
    result = lint_text(tmp_path, text, only=["schedulability"], config=config)
    assert pairs(result) == [("schedulability", 10)]
    assert "one pod requests 64G (59.60Gi) memory" in result.findings[0].message
    assert "the largest, worker-1, has 60G (55.88Gi) allocatable" in result.findings[0].message
    assert "Ki" not in result.findings[0].message


def test_shm_size_quotes_the_size_limit(tmp_path: Path) -> None:
    text = """
apiVersion: v1
kind: Pod
metadata: {name: llm, namespace: default}
spec:
  containers:
  - name: server
    image: x
    resources: {limits: {nvidia.com/gpu: 2}}
    volumeMounts: [{name: shm, mountPath: /dev/shm}]
  volumes: [{name: shm, emptyDir: {medium: Memory, sizeLimit: 512M}}]
"""
    result = lint_text(tmp_path, text, only=["shm-size"])
    assert pairs(result) == [("shm-size", 10)]
    assert "sizeLimit 512M (488.3Mi) is below the 1Gi minimum" in result.findings[0].message
