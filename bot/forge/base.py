"""The publishing interface: what the review command hands to a forge, and what it gets back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from reviewbot.errors import ReviewbotError
from reviewbot.report.review import InlineComment

MODES = ("review", "summary", "none")


class ForgeError(ReviewbotError):
    """A forge could not be reached or refused the request; the message never holds a token."""


@dataclass(frozen=True)
class PullRequestRef:
    """A pull request on a forge: repository, number and head commit."""

    owner: str
    repo: str
    number: int
    head_sha: str


@dataclass(frozen=True)
class ReviewPayload:
    """What a review posts: the summary comment and the inline comment candidates."""

    summary_markdown: str  # the summary comment body (caller-made)
    comments: tuple[InlineComment, ...]  # candidates for inline comments
    mode: str = "review"  # review | summary | none


@dataclass(frozen=True)
class PublishResult:
    """What publishing a review did on the forge, counted, and why."""

    posted: bool  # False: nothing (or not everything) could be written; see reason
    inline: int  # inline comments created by this run
    folded: int  # candidates written into the summary instead of inline
    deleted: int  # own stale comments (or reviews, on Forgejo) deleted by this run
    reason: str  # one human line: what happened, or why nothing was posted


class Forge(Protocol):
    """A pull request's host (GitHub, Forgejo) as the review command uses it: ``publish``
    writes the review of ``pr`` at its ``head_sha``, one summary comment and the inline
    comments the payload's ``mode`` allows (the rest folded into the summary), replacing the
    comments an earlier run of reviewbot left; it says what it did in a
    :class:`PublishResult`, or raises :class:`ForgeError` (whose message never holds the
    token). Implementations: :mod:`reviewbot.forge.github` (PyGithub) and
    :mod:`reviewbot.forge.forgejo` (httpx); both are tested against a local HTTP server."""

    def publish(self, pr: PullRequestRef, payload: ReviewPayload) -> PublishResult: ...


def mode_result(payload: ReviewPayload) -> PublishResult | None:
    """The result of a publish its comment mode settles before any request, else None."""
    if payload.mode not in MODES:
        raise ForgeError(f"unknown comment mode {payload.mode!r} (expected {', '.join(MODES)})")
    if payload.mode == "none":
        return PublishResult(False, 0, 0, 0, "comment mode 'none': nothing posted")
    return None


class Progress:
    """What one publish has done so far, for an honest result when it stops half-way."""

    def __init__(self) -> None:
        self.step = "starting"
        self.wrote = False
        self.inline = 0
        self.folded = 0
        self.deleted = 0

    def refused(self, where: str, status: int | None, message: str, advice: str) -> PublishResult:
        """The result when the forge refused the token's write (HTTP 401/403) at this step."""
        return PublishResult(
            self.wrote, self.inline, self.folded, self.deleted,
            f"not posted to {where} ({self.step}): the token may not write "
            f"(HTTP {status}: {message}); {advice}",
        )
