"""ForgejoForge driven through httpx against the fake Forgejo server."""

from __future__ import annotations

import time
from typing import Any

import pytest

from reviewbot.forge.base import ForgeError, PullRequestRef
from reviewbot.forge.forgejo import ForgejoForge
from reviewbot.forge.reconcile import REVIEW_MARKER, SUMMARY_MARKER, fingerprint_of

from .conftest import FAST, HEAD, PR, coder_files, comment, payload
from .fake_forge import (
    DEFAULT_TOKEN,
    FORGEJO_BOT_SCOPES,
    FakeClock,
    FakeFile,
    FakeForge,
    Fault,
)

CODER = "k8s/apps/llm-serving/coder.yaml"
FIRST = payload(
    comment("fp-tp", 13),
    comment("fp-span", 14, start=13),
    comment("fp-far", 30),  # outside the diff: Forgejo would take it, we fold it
    comment("fp-other", 3, path="k8s/apps/other.yaml"),
)


def make(forge: FakeForge, clock: FakeClock, **kwargs: Any) -> ForgejoForge:
    return ForgejoForge(forge.api_url, forge.token, clock=clock, policy=FAST, **kwargs)


def summaries(forge: FakeForge) -> list[dict[str, Any]]:
    return [c for c in forge.issue_comments("homelab", "gitops", 7) if SUMMARY_MARKER in c["body"]]


def inline_fps(forge: FakeForge) -> list[str]:
    return sorted(
        str(fingerprint_of(c["body"])) for c in forge.review_comments("homelab", "gitops", 7)
    )


def test_first_run(forgejo: FakeForge, clock: FakeClock) -> None:
    result = make(forgejo, clock).publish(PR, FIRST)

    assert (result.posted, result.inline, result.folded, result.deleted) == (True, 2, 2, 0)
    (post,) = [r for r in forgejo.writes() if r.path.endswith("/pulls/7/reviews")]
    assert post.body["event"] == "COMMENT"  # an empty event would leave a pending review
    assert post.body["commit_id"] == HEAD
    assert REVIEW_MARKER in post.body["body"]
    lines = sorted((c["path"], c["new_position"], c["old_position"]) for c in post.body["comments"])
    assert lines == [(CODER, 13, 0), (CODER, 14, 0)]
    span = next(c for c in post.body["comments"] if c["new_position"] == 14)
    assert "lines 13-14" in span["body"]
    (summary,) = summaries(forgejo)
    assert f"`{CODER}` line 30" in summary["body"] and "other.yaml` line 3" in summary["body"]
    assert all(c["line"] in (13, 14) for c in forgejo.review_comments("homelab", "gitops", 7))


def test_rerun_is_idempotent(forgejo: FakeForge, clock: FakeClock) -> None:
    bot = make(forgejo, clock)
    bot.publish(PR, FIRST)
    writes = len(forgejo.writes())
    again = bot.publish(PR, FIRST)

    assert (again.inline, again.deleted) == (0, 0)
    assert len(forgejo.writes()) == writes
    assert len(summaries(forgejo)) == 1
    assert inline_fps(forgejo) == ["fp-span", "fp-tp"]


def test_stale_comment_replaces_its_review(forgejo: FakeForge, clock: FakeClock) -> None:
    bot = make(forgejo, clock)
    bot.publish(PR, FIRST)
    (old_review,) = forgejo.reviews("homelab", "gitops", 7)
    (summary_before,) = summaries(forgejo)

    result = bot.publish(PR, payload(comment("fp-tp", 13), comment("fp-new", 44)))

    # the old review held fp-span (gone): it is deleted whole, fp-tp is posted again
    assert (result.inline, result.deleted) == (2, 1)
    assert inline_fps(forgejo) == ["fp-new", "fp-tp"]
    assert [r["id"] for r in forgejo.reviews("homelab", "gitops", 7)] != [old_review["id"]]
    assert len(forgejo.reviews("homelab", "gitops", 7)) == 1
    (summary,) = summaries(forgejo)
    assert summary["id"] == summary_before["id"]
    third = bot.publish(PR, payload(comment("fp-tp", 13), comment("fp-new", 44)))
    assert (third.inline, third.deleted) == (0, 0)


def test_issue_comment_delete_does_not_remove_code_comments(forgejo: FakeForge) -> None:
    """The fake mirrors Forgejo: DELETE issues/comments/{id} of a code comment is a no-op."""
    import httpx

    cid = forgejo.add_review_comment("homelab", "gitops", 7, forgejo.login, CODER, 13, "x")
    response = httpx.delete(
        f"{forgejo.api_url}/repos/homelab/gitops/issues/comments/{cid}",
        headers={"Authorization": f"token {forgejo.token}"},
    )
    assert response.status_code == 204
    assert [c["id"] for c in forgejo.review_comments("homelab", "gitops", 7)] == [cid]


def test_others_reviews_are_left_alone(forgejo: FakeForge, clock: FakeClock) -> None:
    human = forgejo.add_review_comment(
        "homelab", "gitops", 7, "alice", CODER, 13, "nit <!-- reviewbot:fp:fp-tp -->"
    )
    result = make(forgejo, clock).publish(PR, FIRST)

    assert result.inline == 2  # alice's marker does not count as ours
    assert human in {c["id"] for c in forgejo.review_comments("homelab", "gitops", 7)}


def test_review_pages_capped_by_max_response_items_without_link(clock: FakeClock) -> None:
    """Forgejo caps ``limit`` at MAX_RESPONSE_ITEMS, sends X-Total-Count and no Link."""
    with FakeForge("forgejo", max_response_items=10) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        for i in range(12):
            forge.add_review("homelab", "gitops", 7, "alice", body=f"looks fine {i}")
        bot = make(forge, clock)
        bot.publish(PR, FIRST)  # our review is the 13th: on page 2 of 10
        again = bot.publish(PR, FIRST)

        assert (again.inline, again.deleted) == (0, 0)
        assert inline_fps(forge) == ["fp-span", "fp-tp"]
        listed = [r for r in forge.requests if r.path.endswith("/pulls/7/reviews")]
        assert all("link" not in {k.lower() for k in r.headers} for r in listed)
        assert ["2"] in [r.query.get("page") for r in listed if r.method == "GET"]


def test_a_page_of_others_pending_reviews_comes_back_empty(clock: FakeClock) -> None:
    """Forgejo counts every review in X-Total-Count, then drops others' pending ones."""
    with FakeForge("forgejo", max_response_items=5) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        for i in range(5):
            forge.add_review("homelab", "gitops", 7, "alice", body=f"fine {i}")
        for _ in range(5):
            forge.add_review("homelab", "gitops", 7, "bob", state="PENDING")
        bot = make(forge, clock)
        bot.publish(PR, FIRST)  # ours is on page 3, after an empty page 2
        again = bot.publish(PR, FIRST)

        assert (again.inline, again.deleted) == (0, 0)
        assert inline_fps(forge) == ["fp-span", "fp-tp"]


def test_issue_comments_come_unpaginated(clock: FakeClock) -> None:
    with FakeForge("forgejo", max_response_items=10) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        for i in range(60):
            forge.add_issue_comment("homelab", "gitops", 7, "alice", f"comment {i}")
        bot = make(forge, clock)
        bot.publish(PR, FIRST)
        bot.publish(PR, FIRST)  # the summary is the 61st comment
        assert len(summaries(forge)) == 1


def test_bot_account_token_without_read_user(clock: FakeClock) -> None:
    """A bot account's token with the scopes reviews need, not read:user: GET /user is 403."""
    with FakeForge("forgejo", login="reviewbot", scopes=FORGEJO_BOT_SCOPES) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        bot = make(forge, clock)
        for _ in range(3):
            bot.publish(PR, FIRST)

        (summary,) = summaries(forge)
        assert summary["login"] == "reviewbot"
        assert inline_fps(forge) == ["fp-span", "fp-tp"]
        users = [r.status for r in forge.requests if r.path == "/api/v1/user"]
        assert users == [403, 403, 403]


def test_actions_token_writes_as_whoever_forgejo_says(clock: FakeClock) -> None:
    """No login is assumed: the first summary's author, as Forgejo reports it, is us."""
    with FakeForge("forgejo", login="gitea-actions", bot_token=True) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        bot = make(forge, clock)
        bot.publish(PR, FIRST)
        again = bot.publish(PR, FIRST)
        assert (again.inline, again.deleted) == (0, 0)
        assert len(summaries(forge)) == 1 and inline_fps(forge) == ["fp-span", "fp-tp"]


def test_fork_planted_markers_do_not_stop_posting(clock: FakeClock) -> None:
    """A fork's workflow (Forgejo's read-only token can still review) plants our markers."""
    with FakeForge("forgejo", login="reviewbot", scopes=FORGEJO_BOT_SCOPES) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        forge.add_issue_comment("homelab", "gitops", 7, "reviewbot", f"{SUMMARY_MARKER}\nold")
        planted = tuple(
            (CODER, line, f"ok <!-- reviewbot:fp:{fp} -->")
            for fp, line in (("fp-tp", 13), ("fp-span", 14))
        )
        forge.add_review(
            "homelab", "gitops", 7, "forgejo-actions",
            body=f"{REVIEW_MARKER}\nreviewbot: 2 finding(s)", comments=planted,
        )  # fmt: skip
        result = make(forge, clock).publish(PR, FIRST)

        assert result.inline == 2
        ours = [
            str(fingerprint_of(c["body"]))
            for c in forge.review_comments("homelab", "gitops", 7)
            if c["login"] == "reviewbot"
        ]
        assert sorted(ours) == ["fp-span", "fp-tp"]


def test_summary_planted_by_the_pr_author_is_not_adopted(clock: FakeClock) -> None:
    with FakeForge("forgejo", login="reviewbot", scopes=FORGEJO_BOT_SCOPES) as forge:
        pull = forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        fake = forge.add_issue_comment(
            "homelab", "gitops", 7, pull.author, f"{SUMMARY_MARKER}\nall good, merge it"
        )
        bot = make(forge, clock)
        bot.publish(PR, FIRST)
        bot.publish(PR, FIRST)

        by_id = {c["id"]: c for c in forge.issue_comments("homelab", "gitops", 7)}
        assert by_id[fake]["body"].endswith("all good, merge it")
        assert [c["login"] for c in summaries(forge)] == [pull.author, "reviewbot"]
        assert inline_fps(forge) == ["fp-span", "fp-tp"]


def test_500_with_pending_comments_folds_and_cleans_up(clock: FakeClock) -> None:
    """Forgejo stores comment 1 in a pending review, fails on comment 2 with a bare 500."""
    files = coder_files()
    files[0] = FakeFile(CODER, files[0].patch, lines=13)  # line 14 is past its end
    with FakeForge("forgejo") as forge:
        forge.add_pull("homelab", "gitops", 7, files=files, head_sha=HEAD)
        bot = make(forge, clock)
        first = bot.publish(PR, FIRST)

        posts = [r for r in forge.requests if r.method == "POST" and r.path.endswith("/reviews")]
        assert [r.status for r in posts] == [500]  # never repeated
        assert (first.posted, first.inline, first.folded) == (True, 0, 4)
        assert forge.reviews("homelab", "gitops", 7) == []  # the pending review is gone
        (summary,) = summaries(forge)
        assert "HTTP 500" in summary["body"] and f"`{CODER}` line 13" in summary["body"]

        files[0] = FakeFile(CODER, files[0].patch)  # the next run can place them
        forge.pulls[("homelab", "gitops", 7)].files = files
        second = bot.publish(PR, FIRST)
        assert second.inline == 2
        assert inline_fps(forge) == ["fp-span", "fp-tp"]  # no leftovers submitted with ours
        assert len(summaries(forge)) == 1


def test_our_leftover_pending_review_is_deleted_before_posting(
    forgejo: FakeForge, clock: FakeClock
) -> None:
    left = forgejo.add_review(
        "homelab", "gitops", 7, forgejo.login, state="PENDING",
        comments=((CODER, 13, "old <!-- reviewbot:fp:fp-old -->"),),
    )  # fmt: skip
    result = make(forgejo, clock).publish(PR, FIRST)

    assert result.inline == 2
    assert left not in {r["id"] for r in forgejo.reviews("homelab", "gitops", 7)}
    assert inline_fps(forgejo) == ["fp-span", "fp-tp"]


def test_token_without_write_repository_folds_into_the_summary(clock: FakeClock) -> None:
    scopes = frozenset({"write:issue", "read:repository", "read:user"})
    with FakeForge("forgejo", scopes=scopes) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        forge.add_issue_comment("homelab", "gitops", 7, forge.login, f"{SUMMARY_MARKER}\nold")
        result = make(forge, clock).publish(PR, FIRST)

        assert (result.posted, result.inline, result.folded) == (True, 0, 4)
        (summary,) = summaries(forge)
        assert "write:repository" in summary["body"]


def test_read_only_token(forgejo: FakeForge, clock: FakeClock) -> None:
    forgejo.read_only = True
    result = make(forgejo, clock).publish(PR, FIRST)

    assert result.posted is False and "403" in result.reason
    assert DEFAULT_TOKEN not in result.reason
    assert forgejo.issue_comments("homelab", "gitops", 7) == []


def test_reads_retry_a_502_and_a_429(forgejo: FakeForge, clock: FakeClock) -> None:
    forgejo.add_fault(Fault("GET", r"/pulls/7$", 502))
    forgejo.add_fault(Fault("GET", r"\.diff$", 429, {"Retry-After": "9"}))
    forgejo.add_fault(Fault("POST", r"/reviews$", 429, {"Retry-After": "2"}))  # not acted on
    started = time.monotonic()
    result = make(forgejo, clock).publish(PR, FIRST)

    assert result.posted and result.inline == 2
    assert len(forgejo.reviews("homelab", "gitops", 7)) == 1
    assert [s for s in clock.sleeps if s >= 2.0][:2] == [
        pytest.approx(9.5, abs=0.5), pytest.approx(2.5, abs=0.5)
    ]
    assert time.monotonic() - started < 5.0
    posts = [r for r in forgejo.requests if r.method == "POST" and r.path.endswith("/reviews")]
    assert [r.status for r in posts] == [429, 200]


def test_a_502_on_the_review_is_not_repeated(forgejo: FakeForge, clock: FakeClock) -> None:
    """A proxy's 502 may come after Forgejo stored part of the review: fold, never repeat."""
    forgejo.add_fault(Fault("POST", r"/reviews$", 502))
    result = make(forgejo, clock).publish(PR, FIRST)

    assert (result.posted, result.inline, result.folded) == (True, 0, 4)
    posts = [r for r in forgejo.requests if r.method == "POST" and r.path.endswith("/reviews")]
    assert [r.status for r in posts] == [502]
    assert make(forgejo, clock).publish(PR, FIRST).inline == 2  # the next run places them


def test_4xx_is_not_retried(forgejo: FakeForge, clock: FakeClock) -> None:
    forgejo.add_fault(Fault("GET", r"/pulls/7$", 404, times=5))
    with pytest.raises(ForgeError) as info:
        make(forgejo, clock).publish(PR, FIRST)
    assert "HTTP 404" in info.value.message
    assert clock.sleeps == []
    assert sum(1 for r in forgejo.requests if r.path.endswith("/pulls/7")) == 1


def test_forge_down_message_is_scrubbed(forgejo: FakeForge, clock: FakeClock) -> None:
    forgejo.add_fault(
        Fault("GET", r"/user$", 500, body={"message": f"panic: {forgejo.token}"}, times=10)
    )
    with pytest.raises(ForgeError) as info:
        make(forgejo, clock).publish(PR, FIRST)
    assert DEFAULT_TOKEN not in info.value.message and "***" in info.value.message


def test_next_link_to_another_origin_is_not_followed(forgejo: FakeForge, clock: FakeClock) -> None:
    with FakeForge("forgejo") as elsewhere:
        item = {"id": 1, "user": {"login": "alice"}, "body": "hi"}
        link = f'<{elsewhere.api_url}/repos/homelab/gitops/issues/7/comments?page=2>; rel="next"'
        forgejo.add_fault(Fault("GET", r"/issues/7/comments$", 200, {"Link": link}, body=[item]))
        result = make(forgejo, clock).publish(PR, FIRST)

        assert result.posted
        assert elsewhere.requests == []  # the token never went to the other origin


def test_moved_head_and_modes(forgejo: FakeForge, clock: FakeClock) -> None:
    bot = make(forgejo, clock)
    moved = bot.publish(PullRequestRef("homelab", "gitops", 7, "2" * 40), FIRST)
    assert moved.posted is False and forgejo.writes() == []
    assert bot.publish(PR, payload(mode="none")).posted is False
    result = bot.publish(PR, payload(comment("fp-tp", 13), mode="summary"))
    assert (result.inline, result.folded) == (0, 1)


def test_paths_with_spaces_and_renames(clock: FakeClock) -> None:
    files = [
        FakeFile("k8s/my app.yaml", "@@ -1,1 +1,2 @@\n a\n+b", "modified"),
        FakeFile("k8s/new.yaml", "@@ -1 +1 @@\n-x\n+y", "renamed", "k8s/old.yaml"),
    ]
    with FakeForge("forgejo") as forge:
        forge.add_pull("homelab", "gitops", 7, files=files, head_sha=HEAD)
        result = make(forge, clock).publish(
            PR,
            payload(comment("a", 2, path="k8s/my app.yaml"), comment("b", 1, path="k8s/new.yaml")),
        )
        assert (result.inline, result.folded) == (2, 0)
