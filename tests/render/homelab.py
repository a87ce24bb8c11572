"""Pull requests against the bundled homelab (examples/) that the review tests and the browser
check share: issue 30 part 1's two cases."""

from __future__ import annotations

import textwrap
from pathlib import Path

from ..helpers import ROOT, GitRepo

DIGEST = "sha256:" + "a" * 64

OPEN_WEBUI = f"""
apiVersion: v1
kind: Namespace
metadata:
  name: chat
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: open-webui
  namespace: chat
spec:
  replicas: 1
  selector:
    matchLabels: {{app.kubernetes.io/name: open-webui}}
  template:
    metadata:
      labels: {{app.kubernetes.io/name: open-webui}}
    spec:
      containers:
      - name: open-webui
        image: ghcr.io/open-webui/open-webui:v0.6.5@{DIGEST}
        env:
        - name: OPENAI_API_BASE_URL
          value: http://reasoning-predictor.llm-serving.svc.cluster.local/v1
        resources:
          requests: {{cpu: 100m, memory: 256Mi}}
"""

GPU_PROBE = f"""
apiVersion: apps/v1
kind: Deployment
metadata:
  name: gpu-probe
  namespace: llm-serving
spec:
  replicas: 1
  strategy:
    type: Recreate
  selector:
    matchLabels: {{app.kubernetes.io/name: gpu-probe}}
  template:
    metadata:
      labels: {{app.kubernetes.io/name: gpu-probe}}
    spec:
      nodeSelector:
        kubernetes.io/hostname: worker-1
      containers:
      - name: probe
        image: ghcr.io/example/gpu-probe:v1@{DIGEST}
        resources:
          requests: {{cpu: 100m, memory: 4Gi, nvidia.com/gpu: 1}}
          limits: {{memory: 4Gi, nvidia.com/gpu: 1}}
"""


def homelab_pr(tmp_path: Path, add: dict[str, str]) -> tuple[GitRepo, str, str]:
    """examples/ as the base; the head adds the files ``add``, each listed in the
    kustomization beside it as a PR does (an unlisted manifest is never applied)."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(ROOT / "examples", "base")
    files = {name: textwrap.dedent(body).lstrip("\n") for name, body in add.items()}
    for name in list(add):
        folder, _, file = name.rpartition("/")
        listing = ROOT / "examples" / folder / "kustomization.yaml"
        if listing.is_file():
            key = f"{folder}/kustomization.yaml"
            text = files.get(key, listing.read_text())
            files[key] = text.replace("resources:\n", f"resources:\n  - {file}\n", 1)
    head = repo.commit(files, "head")
    return repo, base, head
