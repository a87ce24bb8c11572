"""A hostile or broken forge: answers that drip, are not the API's, or point elsewhere.

Both publishers run against the real local fake server (PyGithub, httpx) on the real
clock where time is the point: the deadline must bound a whole request, which only a
server that really sends slowly can show.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from reviewbot.errors import ReviewbotError
from reviewbot.forge.forgejo import ForgejoForge
from reviewbot.forge.github import GitHubForge
from reviewbot.forge.retry import RetryPolicy

from .conftest import HEAD, PR, coder_files, payload
from .fake_forge import DEFAULT_TOKEN, FakeForge, Fault

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
        # Forgejo's connections are shut down: its reading worker ends, the drip still on
        ended = _workers_end_within(3.0) if flavor == "forgejo" else True

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
