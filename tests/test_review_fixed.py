"""What a pull request fixes: the base's findings the head no longer has, in the summary
(see the golden seed summaries), in JSON (``fixed``) and in SARIF (``baselineState: absent``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import SEEDS, GitRepo, run_cli


def _review(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str,
            monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(SEEDS / "step1", "001: coder on one V100")
    head = repo.commit_tree(SEEDS / "step2", "000: coder at TP=2, the reviewed state")
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", fmt], capsys)
    assert code in (0, 1), err
    return out


def test_json_lists_the_findings_the_pr_fixes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = json.loads(_review(tmp_path, capsys, "json", monkeypatch))
    fixed = {(f["rule"], f["file"], f["line"]) for f in data["fixed"]}
    # step1's five findings (tests/fixtures/seed-repo/EXPECTED.md), where they were on the base
    assert fixed == {
        ("netpol-pairing", "k8s/apps/poimen/poimen-memory.yaml", 39),
        ("image-digest", "k8s/apps/poimen/poimen-memory.yaml", 30),
        ("control-plane-resources", "k8s/bootstrap/phase3-forgejo/forgejo-values.yaml", 87),
        ("kustomize-integrity", "k8s/apps/llm-serving/kustomization.yaml", 16),
        ("kustomize-integrity", "k8s/apps/llm-serving/models-pvc.yaml", 4),
    }
    assert all(set(f) == set(data["findings"][0]) for f in data["fixed"])
    assert all(f["new"] is False for f in data["fixed"])
    assert not {(f["rule"], f["object"]) for f in data["findings"]} & {
        (f["rule"], f["object"]) for f in data["fixed"]}


def test_sarif_marks_fixed_findings_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = json.loads(_review(tmp_path, capsys, "sarif", monkeypatch))
    results = log["runs"][0]["results"]
    absent = [r for r in results if r["baselineState"] == "absent"]
    assert len(absent) == 5
    assert {r["ruleId"] for r in absent} == {
        "netpol-pairing", "image-digest", "control-plane-resources", "kustomize-integrity"}
    assert {r["baselineState"] for r in results} <= {"new", "unchanged", "absent"}


def test_a_finding_whose_object_is_no_longer_applied_is_not_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # two apps with a floating tag each: the pull request pins one and stops applying the
    # other (its file stays): only the pinned one is fixed; the other went with its object
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    deploy = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: NAME, namespace: shop}
        spec:
          selector: {matchLabels: {app: NAME}}
          template:
            metadata: {labels: {app: NAME}}
            spec: {containers: [{name: app, image: "IMAGE"}]}
    """
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "clusters/apps.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: apps, namespace: flux-system}
            spec:
              sourceRef: {kind: GitRepository, name: flux-system}
              path: ./apps
              prune: true
        """,
        "apps/kustomization.yaml": "resources: [web.yaml, old.yaml]\n",
        "apps/web.yaml": deploy.replace("NAME", "web").replace("IMAGE", "web:latest"),
        "apps/old.yaml": deploy.replace("NAME", "old").replace("IMAGE", "old:latest"),
    })
    head = repo.commit({
        "apps/kustomization.yaml": "resources: [web.yaml]\n",
        "apps/web.yaml": deploy.replace("NAME", "web").replace(
            "IMAGE", "web:1.0@sha256:" + "a" * 64),
    })
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", "json"], capsys)
    assert code in (0, 1), err
    fixed = [(f["rule"], f["object"]) for f in json.loads(out)["fixed"]]
    assert fixed == [("image-digest", "Deployment/shop/web")]
