"""`reviewbot review` run as the action runs it (event file, env vars, subprocess) against
the fake forge, on a real git repository holding a seed pull request.

The PR takes the seeds' final reviewed state (`step2`) back to the earlier `step1`, which
the seed fixtures document as carrying five findings, so the review has new findings.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviewbot.forge.reconcile import SUMMARY_MARKER, fingerprint_of

from ..helpers import SEEDS, PullRepo, git
from .fake_forge import (
    DEFAULT_TOKEN,
    FORGEJO_BOT_SCOPES,
    FakeForge,
    FakePull,
    Fault,
    ci_env,
    files_from_git,
    write_event,
)

HOSTILE_TITLE = "fix $(touch PWNED) `id` ; rm -rf / && echo ${GITHUB_TOKEN}"
pytestmark = pytest.mark.skipif(
    not (SEEDS / "step1").is_dir() or shutil.which("git") is None,
    reason="needs git and the seed fixtures",
)


@pytest.fixture(scope="module")
def seed_repo(tmp_path_factory: pytest.TempPathFactory) -> PullRepo:
    path = tmp_path_factory.mktemp("seed") / "gitops"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "ci@example.org")
    git(path, "config", "user.name", "ci")
    shutil.copytree(SEEDS / "step2", path, dirs_exist_ok=True)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "reviewed state")
    base = git(path, "rev-parse", "HEAD")
    for child in path.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    shutil.copytree(SEEDS / "step1", path, dirs_exist_ok=True)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "back to TP=1")
    return PullRepo(path, base, git(path, "rev-parse", "HEAD"))


def _as_deployed(flavor: str) -> FakeForge:
    """The tokens the README's workflows give: GitHub's Actions token (no GET /user), a
    Forgejo bot account's token with the scopes the README names (no read:user)."""
    if flavor == "github":
        return FakeForge("github", login="github-actions[bot]", bot_token=True)
    return FakeForge("forgejo", login="reviewbot", scopes=FORGEJO_BOT_SCOPES)


@pytest.fixture(params=["github", "forgejo"])
def forge(
    request: pytest.FixtureRequest, seed_repo: PullRepo
) -> Iterator[tuple[FakeForge, FakePull]]:
    with _as_deployed(request.param) as fake:
        pull = fake.add_pull(
            "homelab", "gitops", 7,
            files=files_from_git(seed_repo.path, seed_repo.base, seed_repo.head),
            head_sha=seed_repo.head, base_sha=seed_repo.base, title=HOSTILE_TITLE,
        )  # fmt: skip
        yield fake, pull


def review(
    repo: PullRepo, env: dict[str, str], *extra: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "FORGEJO_"))}
    full.update(env)
    code = "import sys; from reviewbot.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, "review", "--fail-on=error", *extra],
        cwd=repo.path, env=full, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def summaries(fake: FakeForge) -> list[dict]:
    return [c for c in fake.issue_comments("homelab", "gitops", 7) if SUMMARY_MARKER in c["body"]]


def test_review_posts_once_and_reruns_idempotently(
    tmp_path: Path, seed_repo: PullRepo, forge: tuple[FakeForge, FakePull]
) -> None:
    fake, pull = forge
    env = ci_env(fake, pull, write_event(tmp_path / "event.json", pull))

    first = review(seed_repo, env)
    assert first.returncode == 1, first.stderr
    assert "coder" in first.stdout  # the findings are in the job log
    assert len(summaries(fake)) == 1
    inline = [fingerprint_of(c["body"]) for c in fake.review_comments("homelab", "gitops", 7)]
    assert inline and None not in inline and len(set(inline)) == len(inline)
    writes = len(fake.writes())

    second = review(seed_repo, env)
    assert second.returncode == 1
    assert [(w.method, w.path) for w in fake.writes()[writes:]] == []  # nothing to post
    assert len(summaries(fake)) == 1
    again = [fingerprint_of(c["body"]) for c in fake.review_comments("homelab", "gitops", 7)]
    assert sorted(again) == sorted(inline)  # one inline comment per finding, still
    if fake.flavor == "forgejo":  # one submitted review, nothing left pending
        assert [r["state"] for r in fake.reviews("homelab", "gitops", 7)] == ["COMMENT"]
    for run in (first, second):
        assert DEFAULT_TOKEN not in run.stdout + run.stderr
    assert not list(seed_repo.path.rglob("PWNED")) and not list(tmp_path.rglob("PWNED"))


def test_forge_down_keeps_findings_and_exit_code(
    tmp_path: Path, seed_repo: PullRepo, forge: tuple[FakeForge, FakePull]
) -> None:
    fake, pull = forge
    env = ci_env(fake, pull, write_event(tmp_path / "event.json", pull))
    fake.stop()

    text = review(seed_repo, env)
    assert text.returncode == 1
    assert "nothing posted" in text.stderr
    assert "coder" in text.stdout  # the findings still reach the job log
    run = review(seed_repo, env, f"--output={tmp_path / 'findings.json'}", "--format=json")
    assert run.returncode == 1
    assert (tmp_path / "findings.json").read_text().startswith("{")
    for done in (text, run):
        assert DEFAULT_TOKEN not in done.stdout + done.stderr


def test_read_only_token_says_why(
    tmp_path: Path, seed_repo: PullRepo, forge: tuple[FakeForge, FakePull]
) -> None:
    fake, pull = forge
    fake.read_only = True
    env = ci_env(fake, pull, write_event(tmp_path / "event.json", pull))

    run = review(seed_repo, env)
    assert run.returncode == 1
    assert "not posted" in run.stderr and "403" in run.stderr
    assert fake.issue_comments("homelab", "gitops", 7) == []
    assert DEFAULT_TOKEN not in run.stdout + run.stderr


def test_preview_is_what_gets_posted(
    tmp_path: Path, seed_repo: PullRepo, forge: tuple[FakeForge, FakePull]
) -> None:
    """--dry-run shows the split the forge then receives: the same inline comments, the
    same summary, each finding once."""
    fake, pull = forge
    env = ci_env(fake, pull, write_event(tmp_path / "event.json", pull))
    dry = review(seed_repo, env, "--dry-run")
    assert dry.returncode == 1 and fake.writes() == []
    shown = dry.stderr.split("--- the review that would be posted ---\n", 1)[1]
    summary, _, inline = shown.partition(" inline comment(s) in one review ---")
    previewed = {
        (line.rsplit(":", 1)[0], int(line.rsplit(":", 1)[1]))
        for line in inline.splitlines()
        if line.startswith("k8s/")
    }
    assert previewed  # some findings sit on the diff's lines

    assert review(seed_repo, env).returncode == 1
    posted = {(c["path"], c["line"]) for c in fake.review_comments("homelab", "gitops", 7)}
    assert previewed == posted
    (comment,) = summaries(fake)
    assert comment["body"].strip() == summary.rsplit("\n---", 1)[0].strip()
    markers = re.findall(r"<!-- reviewbot:fp:([\w.-]+) -->", shown)
    assert len(markers) == len(set(markers)) == len(previewed)


def test_comment_mode_none_shows_no_preview(
    tmp_path: Path, seed_repo: PullRepo, forge: tuple[FakeForge, FakePull]
) -> None:
    fake, pull = forge
    env = ci_env(fake, pull, write_event(tmp_path / "event.json", pull))
    run = review(seed_repo, env, "--dry-run", "--comment-mode=none")
    assert run.returncode == 1
    assert "would be posted" not in run.stderr and "nothing posted" in run.stderr


def test_a_dripping_forge_is_cut_at_the_deadline_and_keeps_the_exit_code(
    tmp_path: Path, seed_repo: PullRepo, forge: tuple[FakeForge, FakePull]
) -> None:
    fake, pull = forge
    env = ci_env(fake, pull, write_event(tmp_path / "event.json", pull))
    env["REVIEWBOT_FORGE_DEADLINE"] = "2"
    fake.add_fault(Fault("GET", r"/pulls/7$", 0, drip=1.0, times=10))  # minutes to answer

    start = time.monotonic()
    run = review(seed_repo, env, timeout=60)
    elapsed = time.monotonic() - start

    assert run.returncode == 1  # the findings' exit code, as without a forge
    assert "coder" in run.stdout
    assert "nothing posted" in run.stderr and "deadline of 2s exceeded" in run.stderr
    assert fake.writes() == []
    assert DEFAULT_TOKEN not in run.stdout + run.stderr
    assert elapsed < 45  # the review plus the 2 s deadline, never the drip's minutes


@pytest.mark.parametrize("fault", [
    Fault("GET", r"/pulls/7$", 200, body="<html><body>Sign in</body></html>", times=10,
          content_type="text/html"),
    Fault("GET", r"/pulls/7$", 302, {"Location": "http://localhost:9/x"}, "", times=10),
    Fault("GET", r"/pulls/7/files$", 0,
          {"Link": '<http://localhost:9/repos/homelab/gitops/pulls/7/files?page=2>; rel="next"'}),
], ids=["html", "foreign-redirect", "foreign-link"])  # fmt: skip
def test_github_answers_not_from_its_api_are_clear_errors(
    tmp_path: Path, seed_repo: PullRepo, fault: Fault
) -> None:
    with _as_deployed("github") as fake:
        pull = fake.add_pull(
            "homelab", "gitops", 7,
            files=files_from_git(seed_repo.path, seed_repo.base, seed_repo.head),
            head_sha=seed_repo.head, base_sha=seed_repo.base,
        )  # fmt: skip
        fake.add_fault(fault)
        run = review(seed_repo, ci_env(fake, pull, write_event(tmp_path / "event.json", pull)))

    assert run.returncode == 1
    assert "nothing posted: GitHub API error on homelab/gitops#7" in run.stderr
    assert "internal error" not in run.stderr
    assert fake.writes() == []
    assert DEFAULT_TOKEN not in run.stdout + run.stderr
