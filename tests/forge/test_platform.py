"""Platform detection, the event file, and building a forge from the environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewbot.forge.base import ForgeError, PullRequestRef
from reviewbot.forge.ci import detect_platform, pr_from_event
from reviewbot.forge.diffmap import parse_git_diff
from reviewbot.forge.factory import make_forge, policy_from_env
from reviewbot.forge.forgejo import ForgejoForge
from reviewbot.forge.github import GitHubForge
from reviewbot.forge.preview import NullForge, preview
from reviewbot.forge.retry import RetryPolicy

from .conftest import HEAD, PR, coder_files, comment, payload
from .fake_forge import DEFAULT_TOKEN, FakeClock, FakeForge, ci_env, write_event


@pytest.mark.parametrize(
    ("env", "platform"),
    [
        ({"GITHUB_ACTIONS": "true"}, "github"),
        ({"GITHUB_ACTIONS": "true", "FORGEJO_ACTIONS": "true"}, "forgejo"),
        ({"GITHUB_ACTIONS": "true", "GITEA_ACTIONS": "true"}, "forgejo"),
        ({"GITHUB_ACTIONS": "false"}, "none"),
        ({}, "none"),
    ],
)
def test_detect_platform(env: dict[str, str], platform: str) -> None:
    assert detect_platform(env) == platform


def event(tmp_path: Path, data: object) -> str:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_pull_request_event(tmp_path: Path) -> None:
    data = {
        "pull_request": {"number": 7, "head": {"sha": HEAD}},
        "repository": {"full_name": "x/y"},
    }
    env = {"GITHUB_EVENT_PATH": event(tmp_path, data), "GITHUB_REPOSITORY": "homelab/gitops"}
    assert pr_from_event("github", env) == PR
    del env["GITHUB_REPOSITORY"]
    assert pr_from_event("github", env) == PullRequestRef("x", "y", 7, HEAD)


def test_forgejo_event_path_wins(tmp_path: Path) -> None:
    good = event(tmp_path, {"pull_request": {"number": 3, "head": {"sha": HEAD}}})
    env = {
        "FORGEJO_EVENT_PATH": good,
        "GITHUB_EVENT_PATH": "/nonexistent",
        "GITHUB_REPOSITORY": "a/b",
    }
    assert pr_from_event("forgejo", env).number == 3
    with pytest.raises(ForgeError):
        pr_from_event("github", env)


def test_workflow_run_event(tmp_path: Path) -> None:
    linked = {
        "workflow_run": {"head_sha": HEAD, "pull_requests": [{"number": 9, "head": {"sha": HEAD}}]}
    }
    env = {"GITHUB_EVENT_PATH": event(tmp_path, linked), "GITHUB_REPOSITORY": "homelab/gitops"}
    assert pr_from_event("github", env).number == 9
    fork = {"workflow_run": {"head_sha": HEAD, "pull_requests": []}}
    env["GITHUB_EVENT_PATH"] = event(tmp_path, fork)
    with pytest.raises(ForgeError, match="REVIEWBOT_PR_NUMBER"):
        pr_from_event("github", env)
    assert pr_from_event("github", {**env, "REVIEWBOT_PR_NUMBER": "12"}).number == 12
    with pytest.raises(ForgeError):
        pr_from_event("github", {**env, "REVIEWBOT_PR_NUMBER": "12; rm -rf /"})


@pytest.mark.parametrize(
    "data",
    [
        {"push": {}},
        {"pull_request": {"number": "seven", "head": {"sha": HEAD}}},
        {"pull_request": {"number": 7, "head": {"sha": "not-a-sha"}}},
        {"pull_request": {"number": True, "head": {"sha": HEAD}}},
        [1, 2],
    ],
)
def test_bad_events(tmp_path: Path, data: object) -> None:
    env = {"GITHUB_EVENT_PATH": event(tmp_path, data), "GITHUB_REPOSITORY": "a/b"}
    with pytest.raises(ForgeError):
        pr_from_event("github", env)


@pytest.mark.parametrize("repository", ["a/b/c", "../x", "a/..", "a b/c", "a"])
def test_bad_repository_names(tmp_path: Path, repository: str) -> None:
    data = {"pull_request": {"number": 1, "head": {"sha": HEAD}}}
    env = {"GITHUB_EVENT_PATH": event(tmp_path, data), "GITHUB_REPOSITORY": repository}
    with pytest.raises(ForgeError):
        pr_from_event("github", env)


def test_missing_or_broken_event_file(tmp_path: Path) -> None:
    with pytest.raises(ForgeError, match="GITHUB_EVENT_PATH"):
        pr_from_event("github", {})
    broken = tmp_path / "e.json"
    broken.write_text("{not json")
    with pytest.raises(ForgeError, match="not JSON"):
        pr_from_event("github", {"GITHUB_EVENT_PATH": str(broken)})


def test_make_forge_reads_only_the_environment() -> None:
    assert isinstance(make_forge("none", {}), NullForge)
    gh = make_forge("github", {"GITHUB_TOKEN": "t", "GITHUB_API_URL": "http://127.0.0.1:1"})
    assert isinstance(gh, GitHubForge)
    fj = make_forge("forgejo", {"FORGEJO_TOKEN": "t", "FORGEJO_SERVER_URL": "https://code.example"})
    assert isinstance(fj, ForgejoForge) and fj._base == "https://code.example/api/v1"
    fj2 = make_forge("forgejo", {"GITHUB_TOKEN": "t", "FORGEJO_API_URL": "http://h/api/v1/"})
    assert isinstance(fj2, ForgejoForge) and fj2._base == "http://h/api/v1"
    with pytest.raises(ForgeError, match="GITHUB_TOKEN"):
        make_forge("github", {})
    with pytest.raises(ForgeError, match="API URL"):
        make_forge("forgejo", {"FORGEJO_TOKEN": "t"})
    with pytest.raises(ForgeError):
        make_forge("forgejo", {"FORGEJO_TOKEN": "t", "FORGEJO_API_URL": "file:///etc/passwd"})
    with pytest.raises(ForgeError):
        make_forge("gitlab", {})


@pytest.mark.parametrize("flavor", ["github", "forgejo"])
def test_ci_env_end_to_end(tmp_path: Path, flavor: str) -> None:
    """detect -> event -> make_forge -> publish, from a runner-like environment."""
    with FakeForge(flavor) as forge:
        pull = forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        env = ci_env(forge, pull, write_event(tmp_path / "event.json", pull))
        platform = detect_platform(env)
        assert platform == flavor
        pr = pr_from_event(platform, env)
        bot = make_forge(platform, env, clock=FakeClock())
        result = bot.publish(pr, payload(comment("fp-tp", 13), comment("fp-far", 30)))
        assert (result.posted, result.inline, result.folded) == (True, 1, 1)
        assert DEFAULT_TOKEN not in repr(bot.publish(pr, payload()))


def test_preview_splits_as_a_forge_does() -> None:
    diff = parse_git_diff(
        "diff --git a/k8s/apps/llm-serving/coder.yaml b/k8s/apps/llm-serving/coder.yaml\n"
        "--- a/k8s/apps/llm-serving/coder.yaml\n+++ b/k8s/apps/llm-serving/coder.yaml\n"
        "@@ -10,3 +10,4 @@\n a\n b\n+c\n d\n"
    )
    text = preview(payload(comment("a", 12), comment("b", 30)), diff)
    summary, inline = text.split("inline comment(s) in one review ---")
    assert "### Not shown inline (1)" in summary and "line 30" in summary
    assert "line 12" not in summary
    assert "k8s/apps/llm-serving/coder.yaml:12" in inline and "fp:a -->" in inline
    # each candidate once: inline, or (folded) only as a pointer to the summary's entry
    assert text.count("finding at line") == 1
    unknown = preview(payload(comment("a", 12), comment("b", 30)), None)
    assert "### Not shown inline (2)" in unknown and "inline comment(s)" not in unknown
    assert "nothing would be posted" in preview(payload(comment("a", 12), mode="none"), diff)
    assert NullForge().publish(PR, payload()).posted is False


def test_policy_from_env() -> None:
    assert policy_from_env({}) == RetryPolicy()
    tuned = policy_from_env(
        {"REVIEWBOT_FORGE_DEADLINE": "5", "REVIEWBOT_FORGE_ATTEMPTS": "1",
         "REVIEWBOT_FORGE_WRITE_INTERVAL": "0"}
    )  # fmt: skip
    assert (tuned.deadline, tuned.max_attempts, tuned.write_interval) == (5.0, 1, 0.0)
    for bad in ({"REVIEWBOT_FORGE_ATTEMPTS": "0"}, {"REVIEWBOT_FORGE_DEADLINE": "soon"}):
        with pytest.raises(ForgeError):
            policy_from_env(bad)


def test_forge_down_without_retries_fails_fast(tmp_path: Path) -> None:
    """What an end-to-end run with REVIEWBOT_FORGE_ATTEMPTS=1 sees when the forge is down."""
    forge = FakeForge("github").start()
    pull = forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
    env = ci_env(forge, pull, write_event(tmp_path / "event.json", pull))
    forge.stop()
    bot = make_forge("github", {**env, "REVIEWBOT_FORGE_ATTEMPTS": "1"})
    with pytest.raises(ForgeError) as info:
        bot.publish(pr_from_event("github", env), payload(comment("a", 13)))
    assert "after 1 attempts" in info.value.message
    assert DEFAULT_TOKEN not in info.value.message
