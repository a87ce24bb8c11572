"""ForgejoForge driven through httpx against the fake Forgejo server."""

from __future__ import annotations

import time
from typing import Any

import pytest

from reviewbot.forge import ForgeError, PullRequestRef
from reviewbot.forge.forgejo import ForgejoForge
from reviewbot.forge.reconcile import REVIEW_MARKER, SUMMARY_MARKER, fingerprint_of

from .conftest import FAST, HEAD, PR, coder_files, comment, payload
from .fake_forge import DEFAULT_TOKEN, FakeClock, FakeFile, FakeForge, Fault

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


def test_pagination_of_reviews_and_comments(clock: FakeClock) -> None:
    with FakeForge("forgejo", page_size=2) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        for i in range(5):
            forge.add_issue_comment("homelab", "gitops", 7, "alice", f"comment {i}")
        bot = make(forge, clock)
        many = payload(*[comment(f"fp-{n}", n) for n in range(10, 18)])
        bot.publish(PR, many)
        bot.publish(PR, many)  # summary is on page 3 of the issue comments now

        assert len(summaries(forge)) == 1
        assert len(forge.reviews("homelab", "gitops", 7)) == 1
        pages = [r.query.get("page") for r in forge.requests if r.path.endswith("/comments")]
        assert ["3"] in pages


def test_read_only_token(forgejo: FakeForge, clock: FakeClock) -> None:
    forgejo.read_only = True
    result = make(forgejo, clock).publish(PR, FIRST)

    assert result.posted is False and "403" in result.reason
    assert DEFAULT_TOKEN not in result.reason
    assert forgejo.issue_comments("homelab", "gitops", 7) == []


def test_actions_token_falls_back_to_the_bot_login(clock: FakeClock) -> None:
    with FakeForge("forgejo", login="forgejo-actions", bot_token=True) as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        bot = make(forge, clock)
        bot.publish(PR, FIRST)
        again = bot.publish(PR, FIRST)
        assert (again.inline, again.deleted) == (0, 0)
        assert len(summaries(forge)) == 1


def test_502_then_200_and_429(forgejo: FakeForge, clock: FakeClock) -> None:
    forgejo.add_fault(Fault("POST", r"/reviews$", 502))
    forgejo.add_fault(Fault("GET", r"\.diff$", 429, {"Retry-After": "9"}))
    started = time.monotonic()
    result = make(forgejo, clock).publish(PR, FIRST)

    assert result.posted and result.inline == 2
    assert len(forgejo.reviews("homelab", "gitops", 7)) == 1
    assert clock.sleeps[0] >= 9.0
    assert time.monotonic() - started < 5.0
    statuses = [r.status for r in forgejo.requests if r.path.endswith("/pulls/7/reviews")]
    assert statuses.count(502) == 1


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
