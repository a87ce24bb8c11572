"""action.yml: pinned actions, no expressions in scripts, and hostile values stay data.

The `run:` scripts are executed for real with bash, with `python` and `reviewbot` replaced
by recorders on PATH, and with every input and event value an attacker controls set to
shell metacharacters.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="bash is needed to run the action scripts")

HOSTILE = "$(touch PWNED1) `touch PWNED2`; touch PWNED3 && echo ${GITHUB_TOKEN} | tee PWNED4 'q\" *"


def load(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def steps() -> list[dict[str, Any]]:
    action = load(ACTION)
    assert action["runs"]["using"] == "composite"
    result: list[dict[str, Any]] = action["runs"]["steps"]
    return result


def test_no_expression_inside_any_script() -> None:
    scripts = [s["run"] for s in steps() if "run" in s]
    assert len(scripts) == 2
    for script in scripts:
        assert "${{" not in script


def test_every_uses_is_pinned_to_a_full_sha() -> None:
    uses = [s["uses"] for s in steps() if "uses" in s]
    assert {u.split("@")[0] for u in uses} == {"actions/setup-python", "actions/cache"}
    for ref in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}", ref), ref


def test_scripts_use_bash_and_inputs_exist() -> None:
    action = load(ACTION)
    assert set(action["inputs"]) >= {
        "token", "config", "paths", "fail-on", "scope", "comment-mode", "artifact-format",
        "artifact-path", "base", "head",
    }  # fmt: skip
    for step in steps():
        if "run" in step:
            assert step["shell"] == "bash"
    review = next(s for s in steps() if s.get("id") == "review")
    assert review["env"]["GITHUB_TOKEN"] == "${{ inputs.token }}"


def test_pre_commit_hook() -> None:
    (hook,) = load(HOOKS)
    assert hook["id"] == "reviewbot" and hook["entry"] == "reviewbot lint"
    assert re.search(hook["files"], "k8s/apps/coder.yaml") and re.search(hook["files"], "a.yml")
    assert not re.search(hook["files"], "README.md")
    assert hook["language"] == "python"


def recorder(bin_dir: Path, name: str, log: Path) -> None:
    """An executable that appends its argv (JSON, one call per line) to ``log``."""
    script = bin_dir / name
    script.write_text(
        "#!/usr/bin/env python3\n"
        "import json, sys\n"
        f"with open({str(log)!r}, 'a') as f:\n"
        f"    f.write(json.dumps([{name!r}] + sys.argv[1:]) + '\\n')\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def run_step(step: dict[str, Any], work: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    script = work / "step.sh"
    script.write_text(step["run"])
    step_env = {k: str(v) for k, v in (step.get("env") or {}).items()}
    # what the runner does: evaluate ${{ }} in env values, which we replace by test values
    values = {**step_env, **{k: v for k, v in env.items() if k in step_env}}
    full = {**os.environ, **env, **values}
    return subprocess.run(
        [str(BASH), "--noprofile", "--norc", "-e", "-o", "pipefail", str(script)],
        cwd=work, env=full, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


@pytest.fixture
def sandbox(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    work = tmp_path / "work dir"
    (work / "k8s").mkdir(parents=True)
    (work / "k8s" / "a.yaml").write_text("kind: ConfigMap\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.jsonl"
    recorder(bin_dir, "python", log)
    recorder(bin_dir, "reviewbot", log)
    action_path = tmp_path / "action path; touch PWNED5"
    action_path.mkdir()
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1, "title": HOSTILE}}))
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "GITHUB_ACTION_PATH": str(action_path),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_HEAD_REF": HOSTILE,
        "GITHUB_TOKEN": "secret-token-value",
        "RUNNER_TEMP": str(tmp_path / "runner temp"),  # outside the checkout
    }
    return work, log, env


def calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_hostile_values_execute_nothing(
    sandbox: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    work, log, env = sandbox
    inputs = {
        "INPUT_CONFIG": HOSTILE,
        "INPUT_PATHS": f"k8s/*  {HOSTILE}\n-rf",
        "INPUT_FAIL_ON": "warning",
        "INPUT_SCOPE": "all",
        "INPUT_COMMENT_MODE": "summary",
        "INPUT_ARTIFACT_FORMAT": "json",
        "INPUT_ARTIFACT_PATH": "out.json\nexit-code=0",
        "INPUT_BASE": "-rf",
        "INPUT_HEAD": HOSTILE,
    }
    install, review = (s for s in steps() if "run" in s)
    assert run_step(install, work, env).returncode == 0
    done = run_step(review, work, {**env, **inputs})
    assert done.returncode == 0, done.stderr

    assert not list(tmp_path.rglob("PWNED*"))
    assert "secret-token-value" not in done.stdout + done.stderr
    pip, bot = calls(log)
    assert pip[:4] == ["python", "-m", "pip", "install"]
    assert pip[-1] == env["GITHUB_ACTION_PATH"]
    expected_paths = ["k8s/*", *HOSTILE.split(), "-rf"]
    assert bot == [
        "reviewbot", "review", f"--cache={tmp_path}/runner temp/reviewbot-cache",
        "--fail-on=warning",
        "--scope=all", "--comment-mode=summary", f"--config={HOSTILE}", "--base=-rf",
        f"--head={HOSTILE}", "--artifact=out.json\nexit-code=0", "--artifact-format=json",
        "--", *expected_paths,
    ]  # fmt: skip
    outputs = (tmp_path / "output").read_text().splitlines()
    assert outputs == ["artifact-path=out.jsonexit-code=0"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("INPUT_FAIL_ON", "error; touch PWNED"),
        ("INPUT_SCOPE", "$(touch PWNED)"),
        ("INPUT_COMMENT_MODE", "loud"),
        ("INPUT_ARTIFACT_FORMAT", "html"),
    ],
)
def test_invalid_enumerations_stop_before_running(
    sandbox: tuple[Path, Path, dict[str, str]], tmp_path: Path, name: str, value: str
) -> None:
    work, log, env = sandbox
    review = next(s for s in steps() if s.get("id") == "review")
    base = {
        "INPUT_CONFIG": "", "INPUT_PATHS": "", "INPUT_FAIL_ON": "error", "INPUT_SCOPE": "new",
        "INPUT_COMMENT_MODE": "review", "INPUT_ARTIFACT_FORMAT": "sarif",
        "INPUT_ARTIFACT_PATH": "reviewbot.sarif", "INPUT_BASE": "", "INPUT_HEAD": "",
    }  # fmt: skip
    done = run_step(review, work, {**env, **base, name: value})
    assert done.returncode == 2 and "::error::" in done.stdout
    assert calls(log) == [] and not list(tmp_path.rglob("PWNED*"))


def test_defaults_run_the_whole_repository(sandbox: tuple[Path, Path, dict[str, str]]) -> None:
    work, log, env = sandbox
    defaults = {k: str(v.get("default", "")) for k, v in load(ACTION)["inputs"].items()}
    values = {f"INPUT_{k.upper().replace('-', '_')}": v for k, v in defaults.items()}
    review = next(s for s in steps() if s.get("id") == "review")
    assert run_step(review, work, {**env, **values}).returncode == 0
    (bot,) = calls(log)
    assert bot[-1] == "--"
    assert not [a for a in bot if a.startswith(("--config", "--base", "--head"))]
    assert "--artifact-format=sarif" in bot and "--artifact=reviewbot.sarif" in bot
