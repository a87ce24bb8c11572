"""GitHubForge driven through real PyGithub against the fake GitHub server."""

from __future__ import annotations

import time

import pytest

from reviewbot.forge.base import ForgeError, PublishResult, PullRequestRef
from reviewbot.forge.github import GitHubForge
from reviewbot.forge.reconcile import SUMMARY_MARKER, fingerprint_of
from reviewbot.forge.retry import RetryPolicy

from .conftest import FAST, HEAD, PR, coder_files, comment, payload
from .fake_forge import DEFAULT_TOKEN, FakeClock, FakeFile, FakeForge, Fault, secondary_limit

CODER = "k8s/apps/llm-serving/coder.yaml"


def make(forge: FakeForge, clock: FakeClock, policy: RetryPolicy = FAST) -> GitHubForge:
    return GitHubForge(forge.api_url, forge.token, clock=clock, policy=policy)


def summaries(forge: FakeForge) -> list[dict]:
    return [c for c in forge.issue_comments("homelab", "gitops", 7) if SUMMARY_MARKER in c["body"]]


def inline_fps(forge: FakeForge) -> list[str]:
    return sorted(
        str(fingerprint_of(c["body"])) for c in forge.review_comments("homelab", "gitops", 7)
    )


def no_token(*texts: object) -> None:
    for text in texts:
        assert DEFAULT_TOKEN not in str(text)


FIRST = payload(
    comment("fp-tp", 13),  # added line: inline
    comment("fp-span", 14, start=13),  # span inside one hunk
    comment("fp-far", 30),  # coder.yaml, outside every hunk: folded
    comment("fp-other", 3, path="k8s/apps/other.yaml"),  # file not in the PR: folded
)


def test_first_run_posts_one_review_and_a_summary(github: FakeForge, clock: FakeClock) -> None:
    result = make(github, clock).publish(PR, FIRST)

    assert result == PublishResult(True, 2, 2, 0, result.reason)
    reviews = [r for r in github.requests if r.method == "POST" and r.path.endswith("/reviews")]
    assert len(reviews) == 1
    body = reviews[0].body
    assert body["event"] == "COMMENT"
    assert body["commit_id"] == HEAD
    by_fp = {fingerprint_of(c["body"]): c for c in body["comments"]}
    assert by_fp["fp-tp"] == {
        "path": CODER, "body": by_fp["fp-tp"]["body"], "line": 13, "side": "RIGHT"
    }  # fmt: skip
    assert by_fp["fp-span"]["start_line"] == 13 and by_fp["fp-span"]["start_side"] == "RIGHT"
    assert "<!-- reviewbot:fp:fp-tp -->" in by_fp["fp-tp"]["body"]
    (summary,) = summaries(github)
    assert summary["login"] == github.login
    assert f"`{CODER}` line 30" in summary["body"]
    assert "`k8s/apps/other.yaml` line 3" in summary["body"]
    assert "line 13" not in summary["body"]  # inline ones are not repeated


def test_rerun_is_idempotent(github: FakeForge, clock: FakeClock) -> None:
    forge = make(github, clock)
    forge.publish(PR, FIRST)
    writes_before = len(github.writes())
    again = forge.publish(PR, FIRST)

    assert (again.posted, again.inline, again.folded, again.deleted) == (True, 0, 2, 0)
    assert len(github.writes()) == writes_before  # same summary text: not even a PATCH
    assert len(summaries(github)) == 1
    assert inline_fps(github) == ["fp-span", "fp-tp"]


def test_rerun_posts_missing_deletes_stale_edits_summary(
    github: FakeForge, clock: FakeClock
) -> None:
    forge = make(github, clock)
    forge.publish(PR, FIRST)
    (first_summary,) = summaries(github)
    changed = payload(comment("fp-tp", 13), comment("fp-new", 44), summary="## two findings")

    result = forge.publish(PR, changed)

    assert (result.posted, result.inline, result.folded, result.deleted) == (True, 1, 0, 1)
    assert inline_fps(github) == ["fp-new", "fp-tp"]
    (summary,) = summaries(github)
    assert summary["id"] == first_summary["id"]  # edited in place
    assert "two findings" in summary["body"] and "line 30" not in summary["body"]
    deletes = [r for r in github.requests if r.method == "DELETE"]
    assert len(deletes) == 1 and "/pulls/comments/" in deletes[0].path


def test_files_are_read_across_pages(clock: FakeClock) -> None:
    with FakeForge("github", page_size=2) as forge:
        extra = [FakeFile(f"k8s/f{i}.yaml", "@@ -0,0 +1,2 @@\n+a\n+b", "added") for i in range(4)]
        files = coder_files() + extra
        forge.add_pull("homelab", "gitops", 7, files=files, head_sha=HEAD)
        result = make(forge, clock).publish(PR, payload(comment("fp-last", 2, path="k8s/f3.yaml")))

        assert (result.inline, result.folded) == (1, 0)
        pages = [r.query.get("page") for r in forge.requests if r.path.endswith("/files")]
        assert pages == [None, ["2"], ["3"], ["4"]]


def test_422_folds_everything_into_the_summary(github: FakeForge, clock: FakeClock) -> None:
    github.add_fault(
        Fault("POST", r"/reviews$", 422, body={"message": "Unprocessable Entity", "errors": ["x"]})
    )
    result = make(github, clock).publish(PR, FIRST)

    assert (result.posted, result.inline, result.folded) == (True, 0, 4)
    assert github.review_comments("homelab", "gitops", 7) == []
    (summary,) = summaries(github)
    for line in ("line 30", "lines 13-14", "line 13", "other.yaml` line 3"):
        assert line in summary["body"]
    assert "HTTP 422" in summary["body"]


def test_server_side_422_for_a_line_outside_the_diff(github: FakeForge) -> None:
    """The fake really enforces GitHub's rule (so the folding above is not self-fulfilling)."""
    from github import Auth, Github, GithubException

    gh = Github(base_url=github.api_url, auth=Auth.Token(github.token), retry=None)
    pull = gh.get_repo("homelab/gitops").get_pull(7)
    commit = gh.get_repo("homelab/gitops").get_commit(HEAD)
    with pytest.raises(GithubException) as info:
        pull.create_review(
            commit=commit, body="x", event="COMMENT",
            comments=[{"path": CODER, "body": "b", "line": 30, "side": "RIGHT"}],
        )  # fmt: skip
    assert info.value.status == 422


def test_read_only_token_is_a_result_not_a_crash(github: FakeForge, clock: FakeClock) -> None:
    github.read_only = True
    result = make(github, clock).publish(PR, FIRST)

    assert result.posted is False and result.inline == 0
    assert "403" in result.reason and "read-only" in result.reason
    assert github.issue_comments("homelab", "gitops", 7) == []
    assert len(github.writes()) == 1  # one refused attempt, never retried
    no_token(result)


def test_actions_token_without_user_endpoint(clock: FakeClock) -> None:
    """GITHUB_TOKEN may not call GET /user: the known bot login is used to adopt comments."""
    with FakeForge("github", login="github-actions[bot]", bot_token=True) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        bot = make(forge, clock)
        bot.publish(PR, FIRST)
        second = bot.publish(PR, FIRST)
        assert (second.inline, second.deleted) == (0, 0)
        assert len(summaries(forge)) == 1


def test_app_token_learns_its_login_from_its_own_summary(clock: FakeClock) -> None:
    """A GitHub App's installation token may not call GET /user and is not github-actions."""
    with FakeForge("github", login="gitops-review[bot]", bot_token=True) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        forge.add_issue_comment(
            "homelab", "gitops", 7, "mallory", f"{SUMMARY_MARKER}\nplanted by a human"
        )
        bot = make(forge, clock)
        for _ in range(3):
            bot.publish(PR, FIRST)

        own = [c for c in summaries(forge) if c["login"] == "gitops-review[bot]"]
        assert len(own) == 1 and len(summaries(forge)) == 2  # mallory's stays hers
        assert inline_fps(forge) == ["fp-span", "fp-tp"]


def test_foreign_marker_is_not_adopted(github: FakeForge, clock: FakeClock) -> None:
    human = github.add_issue_comment(
        "homelab", "gitops", 7, "mallory", f"{SUMMARY_MARKER}\nall good, merge it"
    )
    make(github, clock).publish(PR, FIRST)

    bodies = {c["id"]: c for c in github.issue_comments("homelab", "gitops", 7)}
    assert bodies[human]["body"].endswith("all good, merge it")
    assert sum(1 for c in bodies.values() if c["login"] == github.login) == 1


def test_duplicate_own_summaries_are_removed(github: FakeForge, clock: FakeClock) -> None:
    first = github.add_issue_comment("homelab", "gitops", 7, github.login, f"{SUMMARY_MARKER}\nA")
    github.add_issue_comment("homelab", "gitops", 7, github.login, f"{SUMMARY_MARKER}\nB")
    result = make(github, clock).publish(PR, FIRST)

    assert result.deleted == 1
    assert [c["id"] for c in summaries(github)] == [first]


def test_moved_head_posts_nothing(github: FakeForge, clock: FakeClock) -> None:
    old = PullRequestRef("homelab", "gitops", 7, "1" * 40)
    result = make(github, clock).publish(old, FIRST)

    assert result.posted is False and "head moved" in result.reason
    assert github.writes() == []


def test_summary_and_none_modes(github: FakeForge, clock: FakeClock) -> None:
    bot = make(github, clock)
    none = bot.publish(PR, payload(comment("fp-tp", 13), mode="none"))
    assert none.posted is False and github.requests == []

    result = bot.publish(PR, payload(comment("fp-tp", 13), comment("fp-far", 30), mode="summary"))
    assert (result.inline, result.folded) == (0, 2)
    assert github.review_comments("homelab", "gitops", 7) == []
    with pytest.raises(ForgeError):
        bot.publish(PR, payload(mode="loud"))


def test_502_then_200_is_retried_on_the_fake_clock(github: FakeForge, clock: FakeClock) -> None:
    github.add_fault(Fault("POST", r"/reviews$", 502))
    github.add_fault(Fault("GET", r"/pulls/7$", 503))
    result = make(github, clock).publish(PR, FIRST)

    assert result.posted and result.inline == 2
    posts = [r for r in github.requests if r.method == "POST" and r.path.endswith("/reviews")]
    assert [r.status for r in posts] == [502, 200]  # PyGithub's own retry stays off
    gets = [r.status for r in github.requests if r.path.endswith("/pulls/7")]
    assert gets == [503, 200]
    backoffs = [s for s in clock.sleeps if s != 1.0]
    assert len(backoffs) >= 1 and all(0 <= s <= 8.0 for s in clock.sleeps)
    assert len(github.reviews("homelab", "gitops", 7)) == 1


def test_429_honours_retry_after_without_sleeping(github: FakeForge, clock: FakeClock) -> None:
    github.add_fault(Fault("GET", r"/files$", 429, {"Retry-After": "7"}))
    started = time.monotonic()
    result = make(github, clock).publish(PR, FIRST)

    assert result.posted
    assert clock.sleeps[0] >= 7.0
    assert time.monotonic() - started < 5.0  # the 7 s were on the fake clock


def test_rate_limit_reset_header_is_honoured(github: FakeForge, clock: FakeClock) -> None:
    reset = str(int(clock.time()) + 42)
    github.add_fault(
        Fault(
            "GET", r"/pulls/7/comments$", 403,
            {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
            {"message": "API rate limit exceeded for installation."},
        )
    )  # fmt: skip
    result = make(github, clock).publish(PR, FIRST)

    assert result.posted
    assert 42.0 <= clock.sleeps[0] <= 43.0


def test_forge_down_raises_a_scrubbed_forge_error(github: FakeForge, clock: FakeClock) -> None:
    github.add_fault(
        Fault(
            "GET", r"/pulls/7$", 502, body={"message": f"proxy saw token {github.token}"}, times=99
        )
    )
    with pytest.raises(ForgeError) as info:
        make(github, clock).publish(PR, FIRST)

    assert "after 4 attempts" in info.value.message
    assert len(clock.sleeps) == 3
    no_token(info.value, info.value.message, repr(info.value), info.value.__cause__)
    assert info.value.__cause__ is None


def test_deadline_stops_long_waits(github: FakeForge, clock: FakeClock) -> None:
    github.add_fault(Fault("GET", r"/files$", 429, {"Retry-After": "3600"}))
    with pytest.raises(ForgeError) as info:
        make(github, clock).publish(PR, FIRST)
    assert "deadline" in info.value.message
    assert clock.sleeps == []


def test_connection_refused_is_a_forge_error(clock: FakeClock) -> None:
    forge = FakeForge("github").start()
    url = forge.api_url
    forge.stop()
    bot = GitHubForge(url, DEFAULT_TOKEN, clock=clock, policy=FAST)
    with pytest.raises(ForgeError) as info:
        bot.publish(PR, FIRST)
    no_token(info.value.message)


def test_writes_are_spaced_on_the_clock(github: FakeForge, clock: FakeClock) -> None:
    forge = make(github, clock)
    forge.publish(PR, FIRST)
    forge.publish(PR, payload(comment("fp-new", 44)))  # POST review, PATCH summary, 2 DELETEs

    methods = [w.method for w in github.writes()]
    assert methods == ["POST", "POST", "POST", "PATCH", "DELETE", "DELETE"]
    assert clock.sleeps == [1.0] * 4  # every write after a run's first waits 1 s


def test_token_never_in_results(github: FakeForge, clock: FakeClock) -> None:
    bot = make(github, clock)
    results = [bot.publish(PR, FIRST), bot.publish(PR, FIRST)]
    github.read_only = True
    results.append(bot.publish(PR, payload(comment("fp-x", 44))))
    no_token(*results, *(r.reason for r in results))
    for c in github.issue_comments("homelab", "gitops", 7):
        no_token(c["body"])


def test_secondary_limit_403_is_waited_out_not_called_a_refusal(
    github: FakeForge, clock: FakeClock
) -> None:
    """GitHub's secondary limit: a 403 with no Retry-After; only the message says so."""
    github.add_fault(secondary_limit("POST", r"/reviews$", 403))
    result = make(github, clock).publish(PR, FIRST)

    assert result.posted and result.inline == 2, result.reason
    assert "may not write" not in result.reason
    assert 60.0 <= max(clock.sleeps) <= 61.0  # "wait for at least one minute"
    posts = [r for r in github.requests if r.method == "POST" and r.path.endswith("/reviews")]
    assert [r.status for r in posts] == [403, 200]


def test_429_without_retry_after_waits_a_minute(github: FakeForge, clock: FakeClock) -> None:
    github.add_fault(secondary_limit("GET", r"/files$", 429))
    result = make(github, clock).publish(PR, FIRST)

    assert result.posted
    assert 60.0 <= clock.sleeps[0] <= 61.0


def test_secondary_limit_retry_after_is_honoured(github: FakeForge, clock: FakeClock) -> None:
    github.add_fault(secondary_limit("GET", r"/files$", 403, retry_after=5))
    assert make(github, clock).publish(PR, FIRST).posted
    assert 5.0 <= clock.sleeps[0] < 6.0


def test_persistent_secondary_limit_doubles_the_wait_within_the_deadline(
    github: FakeForge, clock: FakeClock
) -> None:
    github.add_fault(secondary_limit("GET", r"/pulls/7$", 403, times=9))
    with pytest.raises(ForgeError) as info:
        make(github, clock).publish(PR, FIRST)  # deadline 120 s: 60 s fits, 120 s more does not

    assert "giving up" in info.value.message and "deadline" in info.value.message
    assert len(clock.sleeps) == 1 and 60.0 <= clock.sleeps[0] <= 61.0
    no_token(info.value.message)
