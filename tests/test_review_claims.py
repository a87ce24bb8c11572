"""Claims a review makes must be true (issue 30, part 1), on the bundled homelab (examples/):

- "It fixes 1 finding of the base branch" only when the cause is gone. A new caller that joins
  a destination nobody admits absorbs the base's finding for the old caller into one finding
  ("chat/open-webui and 1 other workload in poimen call ..."): the old caller's problem is
  still there, so nothing was fixed.
- Blame the change: a PR that adds a fifth 1-GPU pod to a full node gets the overcommit
  finding on the pod it added (an inline comment on its own file), not on an untouched pod
  with "lower clef-serve-predictor's request".

Both fail on the pipeline as it is (strict xfail: the day they pass, the mark must go).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .helpers import GitRepo, run_cli
from .render.homelab import GPU_PROBE, OPEN_WEBUI, homelab_pr


def review_json(repo: GitRepo, base: str, head: str, rule: str,
                capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "json", "--rule", rule], capsys)
    assert code in (0, 1), err
    data: dict[str, Any] = json.loads(out)
    return data


@pytest.mark.xfail(strict=True, reason="issue 30 part 1: an absorbed finding is reported fixed")
def test_a_finding_absorbed_by_a_new_caller_is_not_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo, base, head = homelab_pr(tmp_path, {"k8s/apps/chat/open-webui.yaml": OPEN_WEBUI})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    (new,) = [f for f in data["findings"] if f["new"]]
    assert new["object"] == "Deployment/chat/open-webui"
    assert "1 other workload in poimen" in new["message"]  # the old caller is still failing
    assert [f for f in data["fixed"] if f["object"] == "Deployment/poimen/poimen-memory"] == []


@pytest.mark.xfail(strict=True, reason="issue 30 part 1: the overcommit blames an untouched pod")
def test_an_overcommit_the_pr_causes_is_placed_on_the_pod_it_adds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo, base, head = homelab_pr(tmp_path, {"k8s/apps/llm-serving/gpu-probe.yaml": GPU_PROBE})
    data = review_json(repo, base, head, "schedulability", capsys)
    gpus = [f for f in data["findings"] if f["new"] and "nvidia.com/gpu" in f["message"]]
    assert len(gpus) == 1, gpus  # once, not once per pod on the node
    (finding,) = gpus
    assert finding["object"] == "Deployment/llm-serving/gpu-probe"
    assert finding["file"] == "k8s/apps/llm-serving/gpu-probe.yaml"
    assert "clef-serve-predictor" in finding["message"]  # the others are named
    assert "lower clef-serve-predictor's request" not in finding["fix"]


def test_the_scenarios_are_what_the_issue_describes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Today's answers, pinned (so the xfails above fail for the reason they name)."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo, base, head = homelab_pr(tmp_path / "a", {"k8s/apps/chat/open-webui.yaml": OPEN_WEBUI})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    assert [f["object"] for f in data["fixed"]] == ["Deployment/poimen/poimen-memory"]
    repo, base, head = homelab_pr(tmp_path / "b",
                                  {"k8s/apps/llm-serving/gpu-probe.yaml": GPU_PROBE})
    data = review_json(repo, base, head, "schedulability", capsys)
    placed = {(f["object"], f["file"]) for f in data["findings"]
              if f["new"] and "nvidia.com/gpu" in f["message"]}
    assert ("InferenceService/llm-serving/clef-serve",
            "k8s/apps/llm-serving/clef-serve.yaml") in placed
