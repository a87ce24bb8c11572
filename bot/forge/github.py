"""Publishing on GitHub, through PyGithub (the only module that imports it).

PyGithub's own retries (urllib3 ``Retry``) and request throttling sleep on the real clock,
so both are switched off here; :class:`~reviewbot.forge.retry.Retrier` does retries,
deadline and write pacing on an injectable clock instead.

One publish: read the pull request, its files (patches -> commentable RIGHT-side lines),
the token user's review comments and issue comments; post one ``COMMENT`` review for the
new in-diff findings (on a 422 fold them all into the summary); create or edit the summary
comment; delete the user's comments whose finding is gone.

Only the API's own origin (scheme, host, port of ``GITHUB_API_URL``) is trusted. Every
connection PyGithub opens for this client is one of :func:`_guarded_classes`, which refuses
to send a request (and so the token) anywhere else, and checks each answer before PyGithub
reads it: a redirect (other than a 301 on the same origin, which PyGithub follows itself) or
a ``Link`` header naming another origin is refused, not followed, and a success whose body is
not JSON (a proxy's or captive portal's HTML page) is a clear error instead of an object
without attributes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
from github import Auth, Github, GithubException
from github.PullRequest import ReviewComment
from github.Requester import (
    HTTPRequestsConnectionClass,
    HTTPSRequestsConnectionClass,
    RequestsResponse,
)

from reviewbot.forge.base import (
    ForgeError,
    InlineComment,
    Progress,
    PublishResult,
    PullRequestRef,
    ReviewPayload,
    mode_result,
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
from reviewbot.forge.retry import (
    Clock,
    HttpFailure,
    Retrier,
    RetryPolicy,
    Sockets,
    SystemClock,
    scrub,
)

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


Origin = tuple[str, str, int]


def _origin(url: str) -> Origin:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


def _show(origin: Origin) -> str:
    return f"{origin[0]}://{origin[1]}:{origin[2]}"


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def _check_answer(response: requests.Response, origin: Origin) -> None:
    """Raise :class:`HttpFailure` for an answer PyGithub must not act on (see the module)."""
    status = response.status_code
    trusted = f"the token is only ever sent to {_show(origin)}"
    if 300 <= status < 400:
        location = response.headers.get("location") or ""
        target = _origin(urljoin(response.url, location))
        if target != origin:
            message = f"a redirect to another host ({target[1]}) is never followed: {trusted}"
            raise HttpFailure(status, message)
        if status != 301 or not location:
            shown = location[:200] or "without a Location"
            message = f"the API answered a redirect ({shown}), not followed: check GITHUB_API_URL"
            raise HttpFailure(status, message)
    for link in response.links.values():
        target = _origin(urljoin(response.url, str(link.get("url") or "")))
        if target != origin:
            message = f"the API's Link header points to another host ({target[1]}): not followed"
            raise HttpFailure(status, f"{message}, {trusted}")
    if not 200 <= status < 300 or status == 204 or not response.content:
        return
    content_type = response.headers.get("content-type") or ""
    if not _is_json(content_type):
        media = content_type.split(";", 1)[0].strip() or "a body without a content type"
        message = f"the API answered {media}, not JSON (a proxy's or a login page?)"
        raise HttpFailure(status, f"{message}: check GITHUB_API_URL")
    try:
        json.loads(response.content)
    except ValueError:
        raise HttpFailure(status, "the API's answer is not valid JSON") from None


def _recording_pools(sockets: Sockets) -> dict[str, type[urllib3.HTTPConnectionPool]]:
    """urllib3 pools whose connections add their socket to ``sockets`` once connected."""

    class Plain(urllib3.connection.HTTPConnection):
        def connect(self) -> None:
            super().connect()
            sockets.add(self.sock)

    class Tls(urllib3.connection.HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            sockets.add(self.sock)

    class PlainPool(urllib3.HTTPConnectionPool):
        ConnectionCls = Plain

    class TlsPool(urllib3.HTTPSConnectionPool):
        ConnectionCls = Tls

    return {"http": PlainPool, "https": TlsPool}


def _guarded_classes(
    origin: Origin, sockets: Sockets
) -> tuple[type[HTTPRequestsConnectionClass], type[HTTPSRequestsConnectionClass]]:
    """PyGithub's two connection classes, sending only to ``origin`` and checking answers;
    their sockets are recorded in ``sockets`` (to shut down at the deadline)."""
    pools = _recording_pools(sockets)

    def record(self: Any) -> None:
        manager = getattr(getattr(self, "adapter", None), "poolmanager", None)
        if isinstance(manager, urllib3.PoolManager):
            manager.pool_classes_by_scheme = pools

    def guarded(self: Any, send: Callable[[], RequestsResponse]) -> RequestsResponse:
        where: Origin = (str(self.protocol), str(self.host).lower(), int(self.port))
        if where != origin:  # a URL from a body or a header: the token stays home
            message = f"GitHub: refused to send a request to {_show(where)}"
            raise ForgeError(f"{message}: the token is only ever sent to {_show(origin)}")
        answer = send()
        _check_answer(answer.response, origin)
        return answer

    class Guard:  # first in each class below: PyGithub's connection class is the next base
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            record(self)

        def getresponse(self) -> RequestsResponse:
            return guarded(self, super().getresponse)  # type: ignore[misc]  # a mixin

    class GuardedHTTP(Guard, HTTPRequestsConnectionClass):
        pass

    class GuardedHTTPS(Guard, HTTPSRequestsConnectionClass):
        pass

    return GuardedHTTP, GuardedHTTPS


def _guard(gh: Github, api_url: str, sockets: Sockets) -> None:
    """Make every connection ``gh`` opens a guarded one (PyGithub chooses the class per
    requester; the attributes are checked to exist, so a PyGithub that renamed them fails
    here instead of running unguarded)."""
    plain, tls = _guarded_classes(_origin(api_url), sockets)
    requester = gh.requester
    chosen = tls if _origin(api_url)[0] == "https" else plain
    for name, cls in (
        ("_Requester__httpConnectionClass", plain),
        ("_Requester__httpsConnectionClass", tls),
        ("_Requester__connectionClass", chosen),
    ):
        if not hasattr(requester, name):
            raise ForgeError(f"unsupported PyGithub version: no {name}")
        setattr(requester, name, cls)


def _as_failure(func: Callable[[], T]) -> Callable[[], T]:
    def run() -> T:
        try:
            return func()
        except (GithubException, requests.RequestException) as exc:
            raise _failure(exc) from None
        except AssertionError as exc:  # PyGithub's own check of a URL it was handed
            raise ForgeError(
                f"GitHub: refused to follow a URL to another host ({str(exc)[:100]}) that an "
                "answer named: the token is only ever sent to the API's host"
            ) from None

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
        self._sockets = Sockets()  # every connection opened, to cut at the deadline
        _guard(self._gh, self._api_url, self._sockets)

    def close(self) -> None:
        self._gh.close()

    def publish(self, pr: PullRequestRef, payload: ReviewPayload) -> PublishResult:
        settled = mode_result(payload)
        if settled is not None:
            return settled
        retrier = Retrier(
            self._clock,
            self._policy,
            rng=self._rng,
            secrets=(self._token,),
            abort=self._sockets.shutdown,
        )
        progress = Progress()
        try:
            return self._publish(retrier, pr, payload, progress)
        except HttpFailure as failure:
            where = f"{pr.owner}/{pr.repo}#{pr.number}"
            if failure.status in (401, 403):
                return progress.refused(
                    where, failure.status, failure.message, "pull requests from forks get "
                    "read-only tokens, see the workflow_run pattern in the README")
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
        self, r: Retrier, pr: PullRequestRef, payload: ReviewPayload, progress: Progress
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
