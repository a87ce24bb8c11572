"""A hostile or broken forge: answers that drip, are not the API's, or point elsewhere.

Both publishers run against the real local fake server (PyGithub, httpx) on the real
clock where time is the point: the deadline must bound a whole request, which only a
server that really sends slowly can show.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from reviewbot.errors import ReviewbotError
from reviewbot.forge.forgejo import ForgejoForge
from reviewbot.forge.github import GitHubForge
from reviewbot.forge.reconcile import SUMMARY_MARKER
from reviewbot.forge.retry import RetryPolicy

from .conftest import FAST, HEAD, PR, coder_files, comment, payload
from .fake_forge import DEFAULT_TOKEN, FakeClock, FakeForge, Fault

SHORT = RetryPolicy(max_attempts=2, base_delay=0.0, max_delay=0.0, deadline=2.0,
                    write_interval=0.0)  # fmt: skip


def publisher(fake: FakeForge, policy: RetryPolicy = SHORT) -> GitHubForge | ForgejoForge:
    """On the system clock: a drip is real time."""
    if fake.flavor == "github":
        return GitHubForge(fake.api_url, fake.token, policy=policy)
    return ForgejoForge(fake.api_url, fake.token, policy=policy)


def publish_within(bot: GitHubForge | ForgejoForge, seconds: float) -> tuple[Any, float]:
    """Publish in a thread; what it returned or raised, and how long it took. Fails the
    test (instead of hanging it) when the publish is still running after ``seconds``."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(bot.publish(PR, payload()))
        except Exception as exc:  # the outcome under test
            outcome.append(exc)

    start = time.monotonic()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    elapsed = time.monotonic() - start
    assert not worker.is_alive(), f"publish still running after {seconds:.0f}s"
    return outcome[0], elapsed


@pytest.mark.parametrize("flavor", ["github", "forgejo"])
@pytest.mark.parametrize("body_only", [False, True], ids=["whole-answer", "body"])
def test_an_answer_dripping_a_byte_a_second_is_cut_at_the_deadline(
    flavor: str, body_only: bool
) -> None:
    with FakeForge(flavor) as fake:
        fake.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        fake.add_fault(Fault("GET", r"/pulls/7$", 0, drip=1.0, drip_body_only=body_only))

        error, elapsed = publish_within(publisher(fake), 12.0)
        # the connections are shut down: the reading worker ends, the drip still going
        ended = _workers_end_within(3.0)

    assert ended
    assert isinstance(error, ReviewbotError), error
    assert "deadline of 2s exceeded" in error.message
    assert "had not answered completely" in error.message
    assert DEFAULT_TOKEN not in error.message
    assert elapsed < 6.0  # the 2 s deadline, not the minutes the drip would take
    assert fake.writes() == []  # nothing posted after the deadline


def _workers_end_within(seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not [t for t in threading.enumerate() if t.name.startswith("reviewbot-forge")]:
            return True
        time.sleep(0.05)
    return False


def test_a_drip_within_the_deadline_is_read() -> None:
    """A slow answer that completes inside the deadline is an answer, not an error."""
    with FakeForge("forgejo") as fake:
        fake.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        fake.add_fault(Fault("GET", r"/api/v1/user$", 0, drip=0.002))
        policy = RetryPolicy(max_attempts=1, deadline=60.0, write_interval=0.0)

        result, _ = publish_within(publisher(fake, policy), 60.0)

    assert not isinstance(result, Exception), result
    assert result.posted


# -- GitHub: answers that are not the API's, or point to another host ----------------------

HTML = "<!doctype html><html><body><form action=/login>Sign in to the proxy</form></body></html>"


@pytest.fixture
def evil() -> Iterator[FakeForge]:
    """Another server, named by a host the API is not on: it must never be asked a thing."""
    with FakeForge("github") as other:
        yield other


def foreign(evil: FakeForge, path: str) -> str:
    return f"http://localhost:{evil.port}{path}"


def github_error(github: FakeForge) -> ReviewbotError:
    bot = GitHubForge(github.api_url, github.token, clock=FakeClock(), policy=FAST)
    with pytest.raises(ReviewbotError) as caught:
        bot.publish(PR, payload())
    assert DEFAULT_TOKEN not in caught.value.message
    assert github.writes() == []
    return caught.value


def test_github_html_page_is_a_clear_error(github: FakeForge) -> None:
    github.add_fault(Fault("GET", r"/pulls/7$", 200, body=HTML, times=10,
                           content_type="text/html; charset=utf-8"))  # fmt: skip

    error = github_error(github)

    assert "(reading the pull request)" in error.message
    assert "HTTP 200: the API answered text/html, not JSON" in error.message


def test_github_redirect_to_another_host_is_not_followed(
    github: FakeForge, evil: FakeForge
) -> None:
    target = foreign(evil, "/repos/homelab/gitops/pulls/7")
    github.add_fault(Fault("GET", r"/pulls/7$", 302, {"Location": target}, "", times=10))

    error = github_error(github)

    assert "HTTP 302: a redirect to another host (localhost) is never followed" in error.message
    assert evil.requests == []


def test_github_same_host_redirect_other_than_301_is_refused(github: FakeForge) -> None:
    target = github.root + "/repos/homelab/gitops/pulls/8"
    github.add_fault(Fault("GET", r"/pulls/7$", 307, {"Location": target}, "", times=10))

    error = github_error(github)

    assert "HTTP 307: the API answered a redirect" in error.message
    assert "not followed" in error.message


def test_github_link_header_to_another_host_is_not_followed(
    github: FakeForge, evil: FakeForge
) -> None:
    link = foreign(evil, "/repos/homelab/gitops/pulls/7/files?page=2")
    github.add_fault(Fault("GET", r"/pulls/7/files$", 0, {"Link": f'<{link}>; rel="next"'}))

    error = github_error(github)

    assert "(listing files)" in error.message
    assert "Link header points to another host (localhost): not followed" in error.message
    assert evil.requests == []


def test_github_url_in_a_body_to_another_host_gets_no_token(
    github: FakeForge, evil: FakeForge
) -> None:
    """An answer naming another host as an object's URL: our summary comment listed with a
    ``url`` elsewhere, which PyGithub would PATCH (with the token) to update it. PyGithub's
    own check (an ``assert``) refuses it, and under ``python -O``, which drops asserts, the
    guarded connection does; the other host is never asked."""
    bot = GitHubForge(github.api_url, github.token, clock=FakeClock(), policy=FAST)
    bot.publish(PR, payload(summary="## first"))
    listed = httpx.get(f"{github.api_url}/repos/homelab/gitops/issues/7/comments",
                       headers={"Authorization": f"token {github.token}"}).json()  # fmt: skip
    (ours,) = listed
    ours["url"] = foreign(evil, f"/repos/homelab/gitops/issues/comments/{ours['id']}")
    github.add_fault(Fault("GET", r"/issues/7/comments$", 200, body=listed, times=10))
    before = len(github.writes())

    with pytest.raises(ReviewbotError) as caught:
        bot.publish(PR, payload(summary="## second"))
    assert "refused to follow a URL to another host (localhost)" in caught.value.message

    script = (
        "import sys\n"
        "from reviewbot.errors import ReviewbotError\n"
        "from reviewbot.forge.base import PullRequestRef, ReviewPayload\n"
        "from reviewbot.forge.github import GitHubForge\n"
        "from reviewbot.forge.retry import RetryPolicy\n"
        "bot = GitHubForge(sys.argv[1], sys.argv[2], policy=RetryPolicy(deadline=20))\n"
        f"pr = PullRequestRef('homelab', 'gitops', 7, {HEAD!r})\n"
        "try:\n"
        "    print(bot.publish(pr, ReviewPayload('## third', ())))\n"
        "except ReviewbotError as exc:\n"
        "    print(exc.message)\n"
    )
    optimized = subprocess.run(
        [sys.executable, "-O", "-c", script, github.api_url, github.token],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip

    assert "refused to send a request to http://localhost:" in optimized.stdout, optimized
    assert DEFAULT_TOKEN not in caught.value.message + optimized.stdout + optimized.stderr
    assert evil.requests == []
    assert len(github.writes()) == before


# -- Forgejo: a pull request with more than 10,000 comments or reviews --------------------

MANY = 10_050  # past 200 pages of Forgejo's default MAX_RESPONSE_ITEMS (50)


def forgejo_summaries(fake: FakeForge) -> list[dict[str, Any]]:
    comments = fake.issue_comments("homelab", "gitops", 7)
    return [c for c in comments if SUMMARY_MARKER in c["body"]]


def test_forgejo_old_summary_among_10000_comments_is_updated(clock: FakeClock) -> None:
    """Forgejo's issue comment list is one answer, however long: the summary, first of
    10,051 comments, is found and edited, with a single request for the list."""
    with FakeForge("forgejo") as fake:
        fake.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        bot = ForgejoForge(fake.api_url, fake.token, clock=clock, policy=FAST)
        bot.publish(PR, payload(summary="## first"))
        for i in range(MANY):
            fake.add_issue_comment("homelab", "gitops", 7, "someone", f"comment {i}")
        fake.requests.clear()

        bot.publish(PR, payload(summary="## second"))

        (summary,) = forgejo_summaries(fake)
        assert "## second" in summary["body"]
        listed = [q for q in fake.requests if q.path.endswith("/issues/7/comments")]
        assert [q.method for q in listed] == ["GET"]  # one answer holds all 10,051
        assert [(w.method, w.path.rsplit("/", 1)[-1]) for w in fake.writes()] == [
            ("PATCH", str(summary["id"]))
        ]


def test_forgejo_summary_past_10000_paged_comments_is_found(clock: FakeClock) -> None:
    """A server that pages issue comments as Forgejo pages its other lists (50 at most, the
    total in X-Total-Count, no Link): the summary, written after 10,050 comments, is on page
    202 and must still be found, not written a second time."""
    with FakeForge("forgejo", paged_issue_comments=True) as fake:
        fake.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        for i in range(MANY):
            fake.add_issue_comment("homelab", "gitops", 7, "someone", f"comment {i}")
        bot = ForgejoForge(fake.api_url, fake.token, clock=clock, policy=FAST)
        bot.publish(PR, payload(summary="## first"))

        bot.publish(PR, payload(summary="## second"))

        (summary,) = forgejo_summaries(fake)
        assert "## second" in summary["body"]


def test_forgejo_our_review_past_10000_reviews_is_found(clock: FakeClock) -> None:
    """Forgejo pages reviews (50 at most): our review, after 10,050 others, is on page 202;
    its inline comments are there and must not be posted again."""
    with FakeForge("forgejo") as fake:
        fake.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        with fake.lock:
            for i in range(MANY):
                fake.add_review("homelab", "gitops", 7, "alice", body=f"fine {i}")
        bot = ForgejoForge(fake.api_url, fake.token, clock=clock, policy=FAST)
        first = payload(comment("fp-tp", 13))
        bot.publish(PR, first)

        again = bot.publish(PR, first)

        assert (again.inline, again.deleted) == (0, 0)
        ours = [c for c in fake.review_comments("homelab", "gitops", 7) if c["login"] != "alice"]
        assert len(ours) == 1
