"""action.yml: pinned actions, no expressions in scripts, and hostile values stay data;
the install step finds or installs Python the way Forgejo/Gitea runners need.

The `run:` scripts are executed for real with bash, on a PATH that holds only basic tools
and fakes of the runner's own programs (`python3` of a given version, with or without
Debian's ensurepip, `apt-get`, `id`), so each runner image's shape is reproduced: GitHub's
hosted Ubuntu with setup-python, Debian's node:20-bookworm (python3 3.11 without
python3-venv, root, apt-get), an image without Python, one whose Python is too old. Every
input and event value an attacker controls is set to shell metacharacters.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from ..helpers import GIT_ENV

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
    assert len(scripts) == 3
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
    # an empty token input (a secret that is not set) falls back to the job's token
    assert review["env"]["GITHUB_TOKEN"] == "${{ inputs.token || github.token }}"
    assert review["env"]["FORGEJO_TOKEN"] == "${{ inputs.token || github.token }}"


def test_pre_commit_hook() -> None:
    (hook,) = load(HOOKS)
    assert hook["id"] == "reviewbot" and hook["entry"] == "reviewbot lint . --only-files"
    assert re.search(hook["files"], "k8s/apps/coder.yaml") and re.search(hook["files"], "a.yml")
    assert not re.search(hook["files"], "README.md")
    assert hook["language"] == "python"


def recorder(bin_dir: Path, name: str, log: Path) -> None:
    """An executable that appends its argv (JSON, one call per line) to ``log``."""
    script = bin_dir / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"with open({str(log)!r}, 'a') as f:\n"
        f"    f.write(json.dumps([{name!r}] + sys.argv[1:]) + '\\n')\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


FAKE_PYTHON = """#!{exe}
# a runner's python3 {version}: answers the version check, makes a venv (or, like Debian's
# without python3-venv, refuses to), and records every call
import json, os, sys
from pathlib import Path
with open({log!r}, "a") as f:
    f.write(json.dumps([sys.argv[0]] + sys.argv[1:]) + "\\n")
args = sys.argv[1:]
if args[:1] == ["-"]:  # the venv cache key, from the action's files
    print("cafe" * 8)
    sys.exit(0)
if args[:1] == ["-c"]:
    sys.exit(0 if {version} >= (3, 11) else 1)
if args[:2] == ["-m", "venv"]:
    if {needs_venv_pkg} and not os.path.exists({marker!r}):
        print("The virtual environment was not created successfully because ensurepip is "
              "not available.  On Debian/Ubuntu systems, you need to install the python3-venv "
              "package", file=sys.stderr)
        sys.exit(1)
    target = Path(args[2]) / "bin"
    target.mkdir(parents=True)
    for name in ("python", "reviewbot"):
        tool = target / name
        tool.write_text({recorder!r}.replace("NAME", name))
        tool.chmod(0o755)
    sys.exit(0)
sys.exit(0)
"""

FAKE_APT = """#!{exe}
# apt-get: records; `install` puts python3 {version} (if any) and python3-venv in place
import json, os, sys
with open({log!r}, "a") as f:
    f.write(json.dumps(["apt-get"] + sys.argv[1:]) + "\\n")
if "install" in sys.argv and "python3-venv" in sys.argv:
    open({marker!r}, "w").close()
    if {installs!r} and not os.path.exists({python!r}):
        os.symlink({installs!r}, {python!r})
"""

TOOLS = ("bash", "env", "rm", "mkdir", "cat")  # no sudo: a container runs as root


class Runner:
    """A runner image's shape on PATH: only basic tools, plus the fakes asked for."""

    def __init__(
        self,
        root: Path,
        *,
        python: tuple[int, int] | None = (3, 11),
        needs_venv_pkg: bool = False,
        apt: bool = False,
        apt_python: tuple[int, int] | None = None,
        uid: int = 0,
    ) -> None:
        self.root = root
        self.log = root / "calls.jsonl"
        self.bin = root / "usr-bin"
        self.bin.mkdir(parents=True)
        marker = str(root / "python3-venv-installed")
        for tool in TOOLS:
            found = shutil.which(tool)
            if found:
                (self.bin / tool).symlink_to(found)
        (self.bin / "id").write_text(f"#!{BASH}\necho {uid}\n")
        (self.bin / "id").chmod(0o755)
        venv_recorder = (
            f"#!{sys.executable}\nimport json, sys\n"
            f"with open({str(self.log)!r}, 'a') as f:\n"
            "    f.write(json.dumps(['NAME'] + sys.argv[1:]) + '\\n')\n"
            "if 'wheel' in sys.argv and '--wheel-dir' in sys.argv:  # pip wheel: a wheel\n"
            "    out = sys.argv[sys.argv.index('--wheel-dir') + 1]\n"
            "    import os; os.makedirs(out, exist_ok=True)\n"
            "    open(os.path.join(out, 'gitops_reviewbot-0.2.0-py3-none-any.whl'), 'w').close()\n"
        )

        def fake_python(version: tuple[int, int], where: Path) -> Path:
            where.write_text(FAKE_PYTHON.format(
                exe=sys.executable, version=version, log=str(self.log), marker=marker,
                needs_venv_pkg=needs_venv_pkg, recorder=venv_recorder,
            ))  # fmt: skip
            where.chmod(0o755)
            return where

        if python is not None:
            fake_python(python, self.bin / "python3")
        if apt:
            installs = ""
            if apt_python is not None:
                installs = str(fake_python(apt_python, root / "installed-python3"))
            (self.bin / "apt-get").write_text(FAKE_APT.format(
                exe=sys.executable, version=apt_python, log=str(self.log), marker=marker,
                installs=installs, python=str(self.bin / "python3"),
            ))  # fmt: skip
            (self.bin / "apt-get").chmod(0o755)

    @property
    def path(self) -> str:
        return str(self.bin)

    def calls(self) -> list[list[str]]:
        return calls(self.log)


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
    runner = Runner(tmp_path / "image")
    action_path = tmp_path / "action path; touch PWNED5"
    action_path.mkdir()
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1, "title": HOSTILE}}))
    env = {
        "PATH": runner.path,
        "GITHUB_ACTION_PATH": str(action_path),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_HEAD_REF": HOSTILE,
        "GITHUB_TOKEN": "secret-token-value",
        "RUNNER_TEMP": str(tmp_path / "runner temp"),  # outside the checkout
    }
    return work, runner.log, env


def run_install(work: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """The steps that find Python and install reviewbot, as the runner chains them."""
    find = next(s for s in steps() if s.get("id") == "python")
    done = run_step(find, work, env)
    if done.returncode != 0:
        return done
    found = outputs(env)
    return run_step(install_step(), work,
                    {**env, "PYTHON": found["python"], "KEY": found["key"]})


def install(work: Path, env: dict[str, str]) -> dict[str, str]:
    """Run the install steps; the environment the review step then gets."""
    done = run_install(work, env)
    assert done.returncode == 0, done.stdout + done.stderr
    return {**env, "REVIEWBOT_BIN": outputs(env)["bin"]}


def outputs(env: dict[str, str]) -> dict[str, str]:
    path = Path(env["GITHUB_OUTPUT"])
    lines = path.read_text().splitlines() if path.exists() else []
    return dict(line.split("=", 1) for line in lines)


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
    env = install(work, env)
    review = next(s for s in steps() if s.get("id") == "review")
    done = run_step(review, work, {**env, **inputs})
    assert done.returncode == 0, done.stderr

    assert not list(tmp_path.rglob("PWNED*"))
    assert "secret-token-value" not in done.stdout + done.stderr
    wheel, pip = [c for c in calls(log) if c[0] == "python"]
    (bot,) = [c for c in calls(log) if c[0] == "reviewbot"]
    assert "wheel" in wheel and wheel[-1] == env["GITHUB_ACTION_PATH"]
    assert "install" in pip and pip[-1].endswith(".whl")
    expected_paths = ["k8s/*", *HOSTILE.split(), "-rf"]
    assert bot == [
        "reviewbot", "review", f"--cache={tmp_path}/runner temp/reviewbot-cache",
        "--fail-on=warning",
        "--scope=all", "--comment-mode=summary", f"--config={HOSTILE}", "--base=-rf",
        f"--head={HOSTILE}", "--artifact=out.json\nexit-code=0", "--artifact-format=json",
        "--", *expected_paths,
    ]  # fmt: skip
    written = (tmp_path / "output").read_text().splitlines()
    assert written[-1] == "artifact-path=out.jsonexit-code=0" and len(written) == 4


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
    env = install(work, env)
    before = len(calls(log))
    done = run_step(review, work, {**env, **base, name: value})
    assert done.returncode == 2 and "::error::" in done.stdout
    assert calls(log)[before:] == [] and not list(tmp_path.rglob("PWNED*"))


def test_defaults_run_the_whole_repository(sandbox: tuple[Path, Path, dict[str, str]]) -> None:
    work, log, env = sandbox
    defaults = {k: str(v.get("default", "")) for k, v in load(ACTION)["inputs"].items()}
    values = {f"INPUT_{k.upper().replace('-', '_')}": v for k, v in defaults.items()}
    review = next(s for s in steps() if s.get("id") == "review")
    env = install(work, env)
    assert run_step(review, work, {**env, **values}).returncode == 0
    (bot,) = [c for c in calls(log) if c[0] == "reviewbot"]
    assert bot[-1] == "--"
    assert not [a for a in bot if a.startswith(("--config", "--base", "--head"))]
    assert "--artifact-format=sarif" in bot and "--artifact=reviewbot.sarif" in bot


@pytest.mark.parametrize("default_branch", ["main", "", "no-such-branch"])
def test_a_push_that_creates_a_branch_compares_with_the_merge_base(
    sandbox: tuple[Path, Path, dict[str, str]], default_branch: str
) -> None:
    """A push event's `before` is forty zeros when the push creates the branch: the review
    compares with the merge base with the default branch (as actions/checkout with
    fetch-depth 0 leaves it, origin/<default>), with a notice; without one, the head alone."""
    work, log, env = sandbox
    git_env = {**os.environ, **GIT_ENV}
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(work), *args], check=True, text=True,
                              capture_output=True, env=git_env).stdout.strip()
    git("init", "-q", "-b", "feature")
    git("add", "-A")
    git("commit", "-q", "-m", "on main")
    fork_point = git("rev-parse", "HEAD")
    git("update-ref", "refs/remotes/origin/main", fork_point)
    git("commit", "-q", "--allow-empty", "-m", "the new branch")
    (Path(env["PATH"]) / "git").symlink_to(shutil.which("git") or "git")
    env = install(work, env)
    inputs = {
        "INPUT_CONFIG": "", "INPUT_PATHS": "", "INPUT_FAIL_ON": "none", "INPUT_SCOPE": "all",
        "INPUT_COMMENT_MODE": "none", "INPUT_ARTIFACT_FORMAT": "", "INPUT_ARTIFACT_PATH": "",
        "INPUT_BASE": "0" * 40, "INPUT_HEAD": "", "DEFAULT_BRANCH": default_branch,
    }  # fmt: skip
    review = next(s for s in steps() if s.get("id") == "review")
    done = run_step(review, work, {**env, **inputs, "HOME": str(work)})
    assert done.returncode == 0, done.stdout + done.stderr
    (bot,) = [c for c in calls(log) if c[0] == "reviewbot"]
    if default_branch == "main":
        assert f"--base={fork_point}" in bot
        assert f"merge base with origin/main, {fork_point}" in done.stdout
    else:
        assert "--base=HEAD" in bot and "reviewing the head alone" in done.stdout
    assert "::notice::" in done.stdout and "::error::" not in done.stdout


# -- where Python comes from --------------------------------------------------------------


def runner_env(tmp_path: Path, runner: Runner, **extra: str) -> tuple[Path, dict[str, str]]:
    work = tmp_path / "checkout"
    work.mkdir()
    action_path = tmp_path / "action"
    action_path.mkdir()
    (action_path / "constraints.txt").write_text("httpx==0.27.0\n")
    env = {
        "PATH": runner.path, "GITHUB_ACTION_PATH": str(action_path),
        "GITHUB_OUTPUT": str(tmp_path / "output"), "RUNNER_TEMP": str(tmp_path / "tmp"),
        "HOME": str(tmp_path), **extra,
    }  # fmt: skip
    return work, env


def install_step() -> dict[str, Any]:
    return next(s for s in steps() if s.get("id") == "install")


def test_setup_python_runs_only_on_github_hosted_runners() -> None:
    """Forgejo's and Gitea's runners set no runner.environment: the step is skipped there."""
    (setup,) = [s for s in steps() if "setup-python" in str(s.get("uses", ""))]
    assert setup["if"] == "runner.environment == 'github-hosted'"
    names = [s.get("id") or s.get("name") for s in steps()]
    assert names.index(setup["name"]) < names.index("python") < names.index("install")


def test_debian_bookworm_runner_gets_python3_venv(tmp_path: Path) -> None:
    """node:20-bookworm: python3 3.11 without ensurepip, root, apt-get; no setup-python."""
    runner = Runner(tmp_path / "image", python=(3, 11), needs_venv_pkg=True, apt=True)
    work, env = runner_env(tmp_path, runner)
    done = run_install(work, env)
    assert done.returncode == 0, done.stdout + done.stderr

    made = runner.calls()
    apt = [c for c in made if c[0] == "apt-get"]
    assert apt[0] == ["apt-get", "update", "-qq"]
    assert apt[1][:2] == ["apt-get", "install"] and "python3-venv" in apt[1]
    venvs = [c for c in made if c[1:3] == ["-m", "venv"]]
    assert [c[3] for c in venvs] == [f"{tmp_path}/tmp/reviewbot-venv"] * 2  # refused, then made
    wheel, pip = [c for c in made if c[0] == "python"]
    constraint = ["--constraint", f"{tmp_path}/action/constraints.txt"]
    assert wheel[-5:] == ["--wheel-dir", f"{tmp_path}/tmp/reviewbot-wheel", *constraint,
                          f"{tmp_path}/action"]  # the wheel of the action's own files
    assert pip[-5:] == ["install", "--compile", *constraint,
                        f"{tmp_path}/tmp/reviewbot-wheel/gitops_reviewbot-0.2.0-py3-none-any.whl"]
    assert outputs(env)["bin"] == f"{tmp_path}/tmp/reviewbot-venv/bin"


def test_a_restored_virtual_environment_is_used_without_building(tmp_path: Path) -> None:
    """The venv is cached by a key of the action's files and the Python: on a second run
    (actions/cache restored it) nothing is built or installed."""
    (cache,) = [s for s in steps() if s.get("name") == "Restore reviewbot's virtual environment"]
    assert cache["with"]["path"] == "${{ runner.temp }}/reviewbot-venv"
    assert "${{ steps.python.outputs.key }}" in cache["with"]["key"]
    runner = Runner(tmp_path / "image", python=(3, 11))
    work, env = runner_env(tmp_path, runner)
    assert run_install(work, env).returncode == 0
    built = len(runner.calls())
    done = run_install(work, env)
    assert done.returncode == 0 and "nothing to build" in done.stdout
    assert [c for c in runner.calls()[built:] if c[0] == "python" or "venv" in c] == []
    assert outputs(env)["bin"] == f"{tmp_path}/tmp/reviewbot-venv/bin"
    # a different key (another ref's files, another Python) builds anew
    (tmp_path / "tmp" / "reviewbot-venv" / ".reviewbot-key").write_text("another")
    assert run_install(work, env).returncode == 0
    assert any("wheel" in c for c in runner.calls()[built:])


def test_python_with_venv_is_used_as_is(tmp_path: Path) -> None:
    runner = Runner(tmp_path / "image", python=(3, 12), apt=True)
    work, env = runner_env(tmp_path, runner)
    assert run_install(work, env).returncode == 0
    assert [c for c in runner.calls() if c[0] == "apt-get"] == []


def test_image_without_python_installs_one(tmp_path: Path) -> None:
    runner = Runner(tmp_path / "image", python=None, apt=True, apt_python=(3, 11))
    work, env = runner_env(tmp_path, runner)
    done = run_install(work, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert any(c[:2] == ["apt-get", "install"] for c in runner.calls())
    assert outputs(env)["bin"].endswith("/reviewbot-venv/bin")


def test_setup_pythons_interpreter_comes_first(tmp_path: Path) -> None:
    runner = Runner(tmp_path / "image", python=(3, 10), apt=True)
    hosted = tmp_path / "hostedtoolcache" / "bin"
    hosted.mkdir(parents=True)
    (hosted / "python").symlink_to(Runner(tmp_path / "toolcache", python=(3, 11)).bin / "python3")
    work, env = runner_env(tmp_path, runner, pythonLocation=str(hosted.parent))
    assert run_install(work, env).returncode == 0
    assert [c for c in runner.calls() if c[0] == "apt-get"] == []


@pytest.mark.parametrize(
    ("runner_kwargs", "said"),
    [
        ({"python": (3, 9), "apt": True, "apt_python": (3, 9)}, "Debian 12 (bookworm)"),
        ({"python": None}, "none could be installed"),
        ({"python": (3, 11), "needs_venv_pkg": True, "apt": True, "uid": 1000},
         "python3-venv could not be installed"),
    ],
)
def test_no_usable_python_says_what_to_do(
    tmp_path: Path, runner_kwargs: dict[str, Any], said: str
) -> None:
    runner = Runner(tmp_path / "image", **runner_kwargs)
    work, env = runner_env(tmp_path, runner)
    done = run_install(work, env)
    assert done.returncode == 1
    assert "::error::reviewbot action:" in done.stdout and said in done.stdout
