"""Finding identity (reviewbot.engine.identity): one identity for SARIF fingerprints, the
forges' comment markers and review's "new" verdict; lines move, containers swap, it holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import GitRepo, run_cli

TWO = """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: web, namespace: shop}}
    spec:
      selector: {{matchLabels: {{app: web}}}}
      template:
        metadata: {{labels: {{app: web}}}}
        spec:
          containers:
          - {{name: {first}, image: "{first}:latest"}}
          - {{name: {second}, image: "{second}"}}
"""


def _sarif(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    code, out, _ = run_cli(["lint", str(path), "--format", "sarif", "--rule", "image-digest"],
                           capsys)
    assert code == 1
    results = json.loads(out)["runs"][0]["results"]
    return {r["message"]["text"]: r["partialFingerprints"]["reviewbot/v1"]
            for r in results}


def test_swapping_two_containers_keeps_every_fingerprint_and_every_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": TWO.format(first="app", second="side")})
    before = _sarif(repo.path, capsys)
    head = repo.commit({"a.yaml": TWO.format(first="side", second="app")
                        .replace('"side:latest"', '"side-x"').replace('"app"', '"app:latest"')
                        .replace('"side-x"', '"side"')})
    after = _sarif(repo.path, capsys)
    assert len(before) == 2 and before == after  # each container's finding, same fingerprint
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "json", "--scope", "all",
                            "--rule", "image-digest"], capsys)
    findings = json.loads(out)["findings"]
    assert [f["new"] for f in findings] == [False, False]
    assert code == 0  # nothing the PR introduced
