"""A finding whose fix replaces lines the pull request touches: the inline comment sits on
those lines and offers the fix, as a ```suggestion block on GitHub (one click) and as a
diff block on Forgejo (which has no suggestions). rdjson carries it as `suggestions`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..helpers import SEEDS, PullRepo, git
from .fake_forge import FORGEJO_BOT_SCOPES, FakeForge, ci_env, files_from_git, write_event

pytestmark = pytest.mark.skipif(
    not (SEEDS / "step2").is_dir() or shutil.which("git") is None,
    reason="needs git and the seed fixtures",
)
CODER = "k8s/apps/llm-serving/coder.yaml"


@pytest.fixture(scope="module")
def probe_pr(tmp_path_factory: pytest.TempPathFactory) -> PullRepo:
    """The reviewed state, then a PR that cuts coder's startup budget back to 40 x 15 s."""
    path = tmp_path_factory.mktemp("suggest") / "gitops"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "ci@example.org")
    git(path, "config", "user.name", "ci")
    shutil.copytree(SEEDS / "step2", path, dirs_exist_ok=True)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "reviewed state")
    base = git(path, "rev-parse", "HEAD")
    coder = path / CODER
    text = coder.read_text()
    assert "        failureThreshold: 120\n" in text
    coder.write_text(text.replace("        failureThreshold: 120\n",
                                  "        failureThreshold: 40\n"))
    git(path, "commit", "-q", "-am", "startup probe as on one card")
    return PullRepo(path, base, git(path, "rev-parse", "HEAD"))


def _review(repo: PullRepo, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "FORGEJO_"))}
    full.update(env)
    code = "import sys; from reviewbot.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, "review", *extra], cwd=repo.path,
                          env=full, capture_output=True, text=True, timeout=300)


def _threshold_line(repo: PullRepo) -> int:
    lines = (repo.path / CODER).read_text().splitlines()
    return lines.index("        failureThreshold: 40") + 1


@pytest.mark.parametrize("flavor", ["github", "forgejo"])
def test_the_comment_offers_the_fix(tmp_path: Path, probe_pr: PullRepo, flavor: str) -> None:
    fake = FakeForge("github", login="github-actions[bot]", bot_token=True) if (
        flavor == "github") else FakeForge("forgejo", login="reviewbot", scopes=FORGEJO_BOT_SCOPES)
    with fake:
        pull = fake.add_pull("homelab", "gitops", 7,
                             files=files_from_git(probe_pr.path, probe_pr.base, probe_pr.head),
                             head_sha=probe_pr.head, base_sha=probe_pr.base, title="probe")
        env = ci_env(fake, pull, write_event(tmp_path / "event.json", pull))
        run = _review(probe_pr, env)
        assert run.returncode == 1, run.stderr
        comments = [c for c in fake.review_comments("homelab", "gitops", 7)
                    if "probe-headroom" in c["body"]]
    assert len(comments) == 1
    body = comments[0]["body"]
    line = _threshold_line(probe_pr)
    assert comments[0]["line"] == line or comments[0].get("new_position") == line
    if flavor == "github":
        assert "```suggestion\n        failureThreshold: 60\n```" in body
        assert "```diff" not in body
    else:
        assert "```suggestion" not in body
        assert ("```diff\n-        failureThreshold: 40\n+        failureThreshold: 60\n```"
                in body)


def test_rdjson_carries_the_suggestion(probe_pr: PullRepo) -> None:
    run = _review(probe_pr, {}, "--base", probe_pr.base, "--head", probe_pr.head,
                  "--platform", "none", "--format", "rdjson")
    assert run.returncode == 1, run.stderr
    found = [d for d in json.loads(run.stdout)["diagnostics"]
             if d["code"]["value"].partition("[")[0] == "probe-headroom"]
    assert len(found) == 1
    line = _threshold_line(probe_pr)
    assert found[0]["suggestions"] == [{
        "range": {"start": {"line": line, "column": 1},
                  "end": {"line": line, "column": len("        failureThreshold: 40") + 1}},
        "text": "        failureThreshold: 60",
    }]


def test_lint_rdjson_carries_suggestions_too(tmp_path: Path) -> None:
    root = tmp_path / "examples"
    shutil.copytree(SEEDS.parents[2] / "examples", root)
    run = subprocess.run([sys.executable, "-c", "import sys; from reviewbot.cli import main; "
                          "sys.exit(main())", "lint", "--format", "rdjson", "."], cwd=root,
                         capture_output=True, text=True, timeout=300)
    found = {d["code"]["value"].partition("[")[0]: d  # (the code is the check: rule[kind])
             for d in json.loads(run.stdout)["diagnostics"] if d.get("suggestions")}
    assert found["probe-headroom"]["suggestions"][0]["text"] == "        failureThreshold: 60"
    # a fix in another file (netpol-pairing's ingress rule) is no suggestion on this one
    assert "netpol-pairing" not in found
