"""Publishing on GitHub, through PyGithub (the only module that imports it).

PyGithub's own retries (urllib3 ``Retry``) and request throttling sleep on the real clock,
so both are switched off here; :class:`~reviewbot.forge.retry.Retrier` does retries,
deadline and write pacing on an injectable clock instead.

One publish: read the pull request, its files (patches -> commentable RIGHT-side lines),
the token user's review comments and issue comments; post one ``COMMENT`` review for the
new in-diff findings (on a 422 fold them all into the summary); create or edit the summary
comment; delete the user's comments whose finding is gone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import requests
import urllib3
from github import Auth, Github, GithubException
from github.PullRequest import ReviewComment

from reviewbot.forge.base import (
    MODES,
    ForgeError,
    InlineComment,
    PublishResult,
    PullRequestRef,
    ReviewPayload,
)
from reviewbot.forge.diffmap import DiffMap, parse_patch
from reviewbot.forge.reconcile import (
    REVIEW_MARKER,
    ExistingComment,
    fingerprint_of,
    infer_login,
    inline_body,
    pick_summary,
    plan_inline,
    render_summary,
)
from reviewbot.forge.retry import Clock, HttpFailure, Retrier, RetryPolicy, SystemClock, scrub

T = TypeVar("T")


def _failure(exc: Exception) -> HttpFailure:
    if isinstance(exc, GithubException):
        data = exc.data if isinstance(exc.data, dict) else {}
        message = exc.message or str(data.get("message") or "") or "no message"
        errors = data.get("errors")
        if errors:
            message = f"{message} {errors}"
        return HttpFailure(exc.status, message, exc.headers or {})
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    never_sent = isinstance(exc, requests.ConnectTimeout) or isinstance(
        reason, urllib3.exceptions.NewConnectionError
    )
    return HttpFailure(None, f"{type(exc).__name__}: {exc}", sent=not never_sent)


def _as_failure(func: Callable[[], T]) -> Callable[[], T]:
    def run() -> T:
        try:
            return func()
        except (GithubException, requests.RequestException) as exc:
            raise _failure(exc) from None

    return run


def _review_comment(comment: InlineComment) -> ReviewComment:
    item: ReviewComment = {
        "path": comment.path,
        "body": inline_body(comment),
        "line": comment.line,
        "side": "RIGHT",
    }
    if comment.start_line is not None:
        item["start_line"] = comment.start_line
        item["start_side"] = "RIGHT"
    return item


class GitHubForge:
    """The GitHub implementation of :class:`~reviewbot.forge.base.Forge`."""

    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        clock: Clock | None = None,
        policy: RetryPolicy | None = None,
        bot_login: str | None = None,
        max_inline: int = 50,
        timeout: int = 30,
        rng: Any = None,
    ) -> None:
        if not token:
            raise ForgeError("no GitHub token: set GITHUB_TOKEN")
        self._token = token
        self._api_url = api_url.rstrip("/")
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._policy = policy if policy is not None else RetryPolicy()
        self._bot_login = bot_login or None
        self._max_inline = max_inline
        self._rng = rng
        self._gh = Github(
            base_url=self._api_url,
            auth=Auth.Token(token),
            timeout=timeout,
            per_page=100,
            retry=None,
            seconds_between_requests=None,
            seconds_between_writes=None,
            user_agent="reviewbot",
        )

    def close(self) -> None:
        self._gh.close()

    def publish(self, pr: PullRequestRef, payload: ReviewPayload) -> PublishResult:
        if payload.mode not in MODES:
            raise ForgeError(f"unknown comment mode {payload.mode!r} (expected {', '.join(MODES)})")
        if payload.mode == "none":
            return PublishResult(False, 0, 0, 0, "comment mode 'none': nothing posted")
        retrier = Retrier(self._clock, self._policy, rng=self._rng, secrets=(self._token,))
        progress = _Progress()
        try:
            return self._publish(retrier, pr, payload, progress)
        except HttpFailure as failure:
            where = f"{pr.owner}/{pr.repo}#{pr.number}"
            if failure.status in (401, 403):
                return PublishResult(
                    progress.wrote,
                    progress.inline,
                    progress.folded,
                    progress.deleted,
                    f"not posted to {where} ({progress.step}): the token may not write "
                    f"(HTTP {failure.status}: {failure.message}); pull requests from forks get "
                    "read-only tokens, see the workflow_run pattern in the README",
                )
            raise ForgeError(
                scrub(
                    f"GitHub API error on {where} ({progress.step}): "
                    f"HTTP {failure.status}: {failure.message}",
                    (self._token,),
                )
            ) from None
        except (GithubException, requests.RequestException, RuntimeError, ValueError) as exc:
            raise ForgeError(
                scrub(f"GitHub API error ({progress.step}): {exc}", (self._token,))
            ) from None

    def _whoami(self, retrier: Retrier) -> str | None:
        """``GET /user``; refused to Actions and App tokens: ``REVIEWBOT_BOT_LOGIN`` or None."""
        try:
            return retrier.call("GET /user", _as_failure(lambda: str(self._gh.get_user().login)))
        except HttpFailure as failure:
            if failure.status in (401, 403, 404):
                return self._bot_login
            raise

    def _publish(
        self, r: Retrier, pr: PullRequestRef, payload: ReviewPayload, progress: _Progress
    ) -> PublishResult:
        progress.step = "reading the pull request"
        me = self._whoami(r)
        repo = r.call("GET repo", _as_failure(lambda: self._gh.get_repo(f"{pr.owner}/{pr.repo}")))
        pull = r.call("GET pull", _as_failure(lambda: repo.get_pull(pr.number)))
        head = str(pull.head.sha)
        if head != pr.head_sha:
            return PublishResult(
                False,
                0,
                0,
                0,
                f"not posted: the pull request's head moved to {head[:12]} after this run "
                f"reviewed {pr.head_sha[:12]}; the run for the new head will post",
            )
        progress.step = "listing files"
        files = r.call("list PR files", _as_failure(lambda: list(pull.get_files())))
        diff = DiffMap(
            {f.filename: parse_patch(f.filename, f.patch) for f in files if f.status != "removed"}
        )
        progress.step = "listing comments"
        review_comments = r.call(
            "list review comments", _as_failure(lambda: list(pull.get_review_comments()))
        )
        issue_comments = r.call(
            "list issue comments", _as_failure(lambda: list(pull.get_issue_comments()))
        )
        author = pull.user.login if pull.user is not None else None
        if me is None:  # an App or Actions token: a "[bot]" login wrote our summary
            me = infer_login(
                [(c.id, c.user.login if c.user else None, c.body) for c in issue_comments],
                exclude=(author,),
                bots_only=True,
            )
        created = None
        if me is None:  # no summary yet: write it first; its author is us
            progress.step = "writing the summary"
            first = plan_inline(payload, [], diff, max_inline=self._max_inline)
            text = render_summary(payload.summary_markdown, first.folded)
            created = r.call(
                "POST summary", _as_failure(lambda: pull.create_issue_comment(text)), write=True
            )
            progress.wrote = True
            me = created.user.login if created.user is not None else None
            if not me:
                raise ForgeError("GitHub did not say who wrote the summary comment")
            issue_comments = [*issue_comments, created]
        own_inline = {c.id: c for c in review_comments if c.user is not None and c.user.login == me}
        existing = [
            ExistingComment(c.id, fp)
            for c in own_inline.values()
            if (fp := fingerprint_of(c.body)) is not None
        ]
        own_issue = {c.id: c for c in issue_comments if c.user is not None and c.user.login == me}
        summary, extra_summaries = pick_summary([(c.id, c.body) for c in own_issue.values()])

        plan = plan_inline(payload, existing, diff, max_inline=self._max_inline)
        folded = list(plan.folded)
        note = ""
        if plan.post:
            progress.step = "posting the review"
            commit = r.call("GET commit", _as_failure(lambda: repo.get_commit(pr.head_sha)))
            comments = [_review_comment(c) for c in plan.post]
            body = f"{REVIEW_MARKER}\nreviewbot: {len(comments)} new finding(s) on this commit."
            try:
                r.call(
                    "POST review",
                    _as_failure(
                        lambda: pull.create_review(
                            commit=commit, body=body, event="COMMENT", comments=comments
                        )
                    ),
                    write=True,
                )
                progress.inline = len(comments)
                progress.wrote = True
            except HttpFailure as failure:
                if failure.status != 422 and not (failure.status == 403 and created is not None):
                    raise
                folded = list(plan.post) + folded
                note = (
                    f"GitHub refused the inline comments (HTTP {failure.status}: "
                    f"{failure.message[:200]}), so every finding is listed here."
                )
        progress.folded = len(folded)
        progress.step = "writing the summary"
        text = render_summary(payload.summary_markdown, folded, note)
        if summary is None:
            r.call("POST summary", _as_failure(lambda: pull.create_issue_comment(text)), write=True)
        elif summary[1] != text:
            target = own_issue[summary[0]]
            r.call("PATCH summary", _as_failure(lambda: target.edit(text)), write=True)
        progress.wrote = True
        progress.step = "deleting stale comments"
        for comment_id in plan.stale:
            progress.deleted += self._delete(r, own_inline[comment_id].delete)
        for comment_id in extra_summaries:
            progress.deleted += self._delete(r, own_issue[comment_id].delete)
        parts = [f"{progress.inline} new inline", f"{plan.present} already there"]
        parts += [f"{len(folded)} in the summary", f"{progress.deleted} stale deleted"]
        return PublishResult(
            True, progress.inline, len(folded), progress.deleted, "posted: " + ", ".join(parts)
        )

    @staticmethod
    def _delete(r: Retrier, delete: Callable[[], None]) -> int:
        try:
            r.call("DELETE comment", _as_failure(delete), write=True)
        except HttpFailure as failure:
            if failure.status == 404:  # already gone
                return 0
            raise
        return 1


class _Progress:
    """What one publish has done so far, for an honest result when it stops half-way."""

    def __init__(self) -> None:
        self.step = "starting"
        self.wrote = False
        self.inline = 0
        self.folded = 0
        self.deleted = 0
