"""Configuration: errors name the key and its line (exit 2), rules switched off or their
severity changed, and a lint that says when it found no configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.cli import main
from reviewbot.config import parse_config
from reviewbot.engine.options import check_options
from reviewbot.errors import ReviewbotError

from .helpers import BROKEN, GitRepo, lint_text, pairs


def test_disabled_rule_and_severity_override(tmp_path: Path) -> None:
    off = lint_text(tmp_path, BROKEN, config="rules:\n  yaml-syntax: {enabled: false}\n")
    assert pairs(off) == []
    low = lint_text(tmp_path, BROKEN, config="rules:\n  yaml-syntax: {severity: warning}\n")
    assert [f.severity for f in low.findings] == ["warning"]


def test_a_severity_per_check(tmp_path: Path) -> None:
    """New-user trials eighty-eight D4/W2 and eighty-nine D9: a PodDisruptionBudget that
    allows no eviction is a `drain-blocked` warning, and raising it meant raising every
    check of schedulability. `severity` takes one per check too; the others keep theirs."""
    text = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "db:1@sha256:%s"}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db, namespace: data}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: db}}
""" % ("0" * 64)
    def kinds(name: str, config: str = "") -> list[tuple[str, str]]:
        result = lint_text(tmp_path / name, text, config=config, only=["schedulability"])
        return [(f.kind or "", f.severity) for f in result.findings]

    assert kinds("default") == [("drain-blocked", "warning")]
    assert kinds("raised", "rules:\n  schedulability:\n    severity: {drain-blocked: error}\n"
                 ) == [("drain-blocked", "error")]
    assert kinds("other", "rules:\n  schedulability:\n    severity: {node-full: info}\n"
                 ) == [("drain-blocked", "warning")]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("rules:\n  no-such-rule: {}\n", ".reviewbot.yaml:2:3: rules.no-such-rule: unknown rule"),
        ("rules:\n  schedulability:\n    severity: {drain-blocked: fatal}\n",
         ".reviewbot.yaml:3:31: rules.schedulability.severity.drain-blocked: expected one of "
         "error, warning, info (the severity of check drain-blocked)"),
        ("rules:\n  schedulability:\n    severity: {drain-blockd: error}\n",
         ".reviewbot.yaml:3:30: rules.schedulability.severity.drain-blockd: unknown check "
         "'drain-blockd' of rule schedulability (did you mean drain-blocked?) (checks: "
         "claim-missing, drain-blocked, "),
        ("rules:\n  yaml-syntax:\n    severity: fatal\n",
         ".reviewbot.yaml:3:15: rules.yaml-syntax.severity: expected one of error, warning, info"),
        ("clutser: {}\n", ".reviewbot.yaml:1:1: clutser: unknown field 'clutser'"),
        ("cluster:\n  nodes:\n  - labels: {}\n",
         ".reviewbot.yaml:3:5: cluster.nodes[0]: missing required field 'name'"),
        ("rules:\n  yaml-syntax:\n    depth: 3\n",
         ".reviewbot.yaml:3:5: rules.yaml-syntax.depth: unknown option 'depth'"),
        ("a: [\n", ".reviewbot.yaml:2:1: YAML syntax error"),
    ],
)
def test_config_errors_name_key_and_line(config: str, expected: str) -> None:
    with pytest.raises(ReviewbotError) as info:
        check_options(parse_config(config.encode(), ".reviewbot.yaml"))
    assert info.value.message.startswith(expected), info.value.message
    assert info.value.exit_code == 2


def test_one_run_names_every_mistake_a_line_each_in_the_files_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".reviewbot.yaml"
    config.write_text("cluster:\n  kubernetes-version: 1.30\n  nodes:\n    - name: n\n"
                      "      allocatable: {memory: 64GB}\n"
                      "rules:\n  probe-headroom: {factr: 2}\n  nope: {}\n")
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    assert main(["lint", str(tmp_path)]) == 2
    name = ".reviewbot.yaml"  # as the repository names it
    assert [line.split(": ", 3)[1:3] for line in capsys.readouterr().err.splitlines()] == [
        [f"{name}:2:23", "cluster.kubernetes-version"],
        [f"{name}:4:13", "cluster.nodes[0].name"],
        [f"{name}:5:29", "cluster.nodes[0].allocatable.memory"]]
    assert main(["lint", str(tmp_path)]) == 2
    assert "got boolean false (unquoted, YAML reads it as a boolean: quote it)" in (
        capsys.readouterr().err)
    config.write_text(config.read_text().replace("1.30", '"1.30"').replace("64GB", "64Gi")
                      .replace("name: n", "name: gpu-1"))
    assert main(["lint", str(tmp_path)]) == 2  # the rules' options, checked next: both said
    assert [line.split(": ", 3)[1:3] for line in capsys.readouterr().err.splitlines()] == [
        [f"{name}:7:20", "rules.probe-headroom.factr"], [f"{name}:8:3", "rules.nope"]]


def test_config_error_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".reviewbot.yaml").write_text("rules:\n  nope: {}\n")
    (tmp_path / "a.yaml").write_text("a: 1\n")
    assert main(["lint", str(tmp_path), "--config", str(tmp_path / ".reviewbot.yaml")]) == 2
    assert "rules.nope: unknown rule" in capsys.readouterr().err


def test_lint_says_when_no_config_was_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    assert main(["lint", str(tmp_path), "--format", "json"]) == 0
    assert "no .reviewbot.yaml in" in capsys.readouterr().err
    repo = GitRepo(tmp_path / "repo")  # the repository's root: one folder, named once
    repo.write({"sub/b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"})
    assert main(["lint", str(repo.path), "--format", "json"]) == 0
    assert f"no .reviewbot.yaml in {repo.path}: " in capsys.readouterr().err
    assert main(["lint", str(repo.path / "sub"), "--format", "json"]) == 0
    err = capsys.readouterr().err
    assert f"no .reviewbot.yaml in {repo.path / 'sub'} up to {repo.path}: " in err
    (tmp_path / ".reviewbot.yaml").write_text("rules: {}\n")
    assert main(["lint", str(tmp_path), "--format", "json"]) == 0
    assert capsys.readouterr().err == ""
