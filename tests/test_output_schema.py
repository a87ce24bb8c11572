"""`--format json` of lint and review against schemas/output.schema.json, DESIGN.md's JSON
output contract written as a JSON Schema (shipped in the package, beside the configuration's):
every key the outputs write is there, and nothing else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from reviewbot.schema.files import FOLDER

from .helpers import ROOT, SEEDS, GitRepo, run_cli

SCHEMA = json.loads((Path(FOLDER) / "output.schema.json").read_text(encoding="utf-8"))
FIXTURES = sorted(p for p in (ROOT / "tests" / "fixtures").glob("*/*")
                  if p.is_dir() and p.name in ("pass", "fail"))


def valid(data: Any) -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(data)


def lint_json(path: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    code, out, err = run_cli(["lint", str(path), "--format", "json"], capsys)
    assert code in (0, 1), err
    return json.loads(out)


def test_the_schema_is_a_schema_and_says_no_to_what_the_contract_lacks() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    finding = {"rule": "image-digest", "severity": "error", "file": "a.yaml", "line": 3,
               "column": 14, "object": "Deployment/web/web", "message": "m", "fix": "f"}
    valid({"version": 1, "findings": [finding], "skipped": []})
    for wrong in ({**finding, "severity": "fatal"}, {**finding, "extra": 1},
                  {k: v for k, v in finding.items() if k != "fix"}):
        with pytest.raises(jsonschema.ValidationError):
            valid({"version": 1, "findings": [wrong], "skipped": []})


@pytest.mark.parametrize("folder", [ROOT / "examples", *FIXTURES],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_lint_json_of_the_example_and_every_fixture_is_valid(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    valid(lint_json(folder, capsys))


def test_a_rule_past_its_limit_is_valid_with_not_shown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    containers = "".join(f"      - {{name: c{i}, image: 'web:latest'}}\n" for i in range(1001))
    (tmp_path / "web.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
        "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
        "    spec:\n      containers:\n" + containers)
    data = lint_json(tmp_path, capsys)
    assert data["not_shown"]["rules"] == {"image-digest": 1}
    valid(data)


@pytest.mark.parametrize(("before", "after"), [(ROOT / "examples", SEEDS / "step1"),
                                               (SEEDS / "step1", SEEDS / "step2"),
                                               (SEEDS / "step1", ROOT / "examples")],
                         ids=["seed-pr-001", "seed-pr-000", "unfixed"])
def test_review_json_of_the_seed_prs_is_valid(
        before: Path, after: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base, head = repo.commit_tree(before, "before"), repo.commit_tree(after, "after")
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", "json"], capsys)
    assert code in (0, 1), err
    data = json.loads(out)
    assert data["diff"] and data["connectivity_diff"] and data["findings"]
    valid(data)
    # `diff --format json`: review's keys, no finding, each entry with its verdicts
    code, out, err = run_cli(["diff", base, head, "--repo", str(repo.path), "--format",
                              "json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["findings"] == [] and all("change_safety" in e for e in data["diff"])
    valid(data)
