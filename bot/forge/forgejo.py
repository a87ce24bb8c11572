"""Publishing on Forgejo and Gitea, through a thin httpx client (the only module using httpx).

Endpoints (``/api/v1``): ``GET /user``, ``GET /repos/{o}/{r}/pulls/{n}`` (head sha),
``GET .../pulls/{n}.diff`` (commentable lines), ``GET/POST/DELETE .../pulls/{n}/reviews``,
``GET .../reviews/{id}/comments``, ``GET/POST .../issues/{n}/comments`` and
``PATCH/DELETE .../issues/comments/{id}``.

Forgejo accepts inline comments outside the diff and renders them badly, so they are
folded into the summary like on GitHub. Its API cannot delete a single review comment
(``DELETE issues/comments/{id}`` answers 204 and keeps code comments), so a review of
ours that holds a stale comment is deleted whole and its current comments are posted
again in this run's review. ``event: COMMENT`` is always sent: an empty event leaves a
pending review nobody sees.
"""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from reviewbot.forge.base import (
    MODES,
    ForgeError,
    InlineComment,
    PublishResult,
    PullRequestRef,
    ReviewPayload,
)
from reviewbot.forge.diffmap import DiffMap, parse_git_diff
from reviewbot.forge.reconcile import (
    REVIEW_MARKER,
    ExistingComment,
    fingerprint_of,
    inline_body,
    pick_summary,
    plan_by_review,
    render_summary,
)
from reviewbot.forge.retry import Clock, HttpFailure, Retrier, RetryPolicy, SystemClock, scrub

DEFAULT_BOT_LOGIN = "forgejo-actions"  # who the automatic Forgejo Actions token writes as
PAGE_LIMIT = 50
MAX_PAGES = 200
MAX_DIFF_CHARS = 32 * 1024 * 1024  # a larger diff is not parsed: every finding folds


def _message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:300].strip() or response.reason_phrase
    if isinstance(data, dict) and data.get("message"):
        return str(data["message"])[:300]
    return str(data)[:300]


class _Progress:
    def __init__(self) -> None:
        self.step = "starting"
        self.wrote = False
        self.inline = 0
        self.folded = 0
        self.deleted = 0


class ForgejoForge:
    """The Forgejo/Gitea implementation of :class:`~reviewbot.forge.base.Forge`."""

    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        clock: Clock | None = None,
        policy: RetryPolicy | None = None,
        bot_login: str | None = None,
        max_inline: int = 50,
        timeout: float = 30.0,
        rng: random.Random | None = None,
    ) -> None:
        if not token:
            raise ForgeError("no Forgejo token: set FORGEJO_TOKEN (or GITHUB_TOKEN)")
        self._token = token
        self._base = api_url.rstrip("/")
        origin = urlsplit(self._base)
        self._origin = (origin.scheme, origin.netloc)
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._policy = policy if policy is not None else RetryPolicy()
        self._bot_login = bot_login or DEFAULT_BOT_LOGIN
        self._max_inline = max_inline
        self._rng = rng
        self._client = httpx.Client(
            headers={
                "Authorization": f"token {token}",
                "Accept": "application/json",
                "User-Agent": "reviewbot",
            },
            timeout=timeout,
            follow_redirects=False,
        )

    def close(self) -> None:
        self._client.close()

    # -- transport ---------------------------------------------------------------------

    def _url(self, path: str) -> str:
        return self._base + path

    def _request(
        self, method: str, url: str, *, json: Any = None, params: dict[str, Any] | None = None
    ) -> httpx.Response:
        try:
            response = self._client.request(method, url, json=json, params=params)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise HttpFailure(None, f"{type(exc).__name__}: {exc}", sent=False) from None
        except httpx.HTTPError as exc:
            raise HttpFailure(None, f"{type(exc).__name__}: {exc}") from None
        if response.status_code >= 400:
            raise HttpFailure(response.status_code, _message(response), dict(response.headers))
        if 300 <= response.status_code < 400:
            raise HttpFailure(
                response.status_code, f"unexpected redirect to {response.headers.get('location')}"
            )
        return response

    def _call(
        self, r: Retrier, what: str, method: str, path: str, *, json: Any = None
    ) -> httpx.Response:
        url = self._url(path)
        return r.call(what, lambda: self._request(method, url, json=json), write=method != "GET")

    def _json(self, r: Retrier, what: str, path: str) -> Any:
        response = self._call(r, what, "GET", path)
        try:
            return response.json()
        except ValueError:
            raise ForgeError(f"{what}: the forge did not answer JSON") from None

    def _next_link(self, response: httpx.Response) -> str | None:
        link = response.links.get("next", {}).get("url")
        if not link:
            return None
        parts = urlsplit(str(response.url.join(link)))
        if (parts.scheme, parts.netloc) != self._origin:
            return None  # never send the token to another origin
        return parts.geturl()

    def _list(self, r: Retrier, what: str, path: str) -> list[dict[str, Any]]:
        """GET every page: follow ``Link: rel=next``, else ask for the next page while
        pages come back full; stop when a page brings no new id."""
        out: list[dict[str, Any]] = []
        seen: set[Any] = set()
        url: str = self._url(path)
        params: dict[str, Any] | None = {"limit": PAGE_LIMIT, "page": 1}
        for _ in range(MAX_PAGES):

            def fetch(u: str = url, p: dict[str, Any] | None = params) -> httpx.Response:
                return self._request("GET", u, params=p)

            response = r.call(what, fetch)
            try:
                data = response.json()
            except ValueError:
                raise ForgeError(f"{what}: the forge did not answer JSON") from None
            if not isinstance(data, list):
                raise ForgeError(f"{what}: expected a JSON list")
            fresh = [d for d in data if isinstance(d, dict) and d.get("id") not in seen]
            seen.update(d.get("id") for d in fresh)
            out.extend(fresh)
            following = self._next_link(response)
            if not fresh:
                break
            if following is not None:
                url, params = following, None
            elif params is not None and len(data) >= PAGE_LIMIT:
                params = {"limit": PAGE_LIMIT, "page": int(params["page"]) + 1}
            else:
                break
        return out

    # -- publish -----------------------------------------------------------------------

    def publish(self, pr: PullRequestRef, payload: ReviewPayload) -> PublishResult:
        if payload.mode not in MODES:
            raise ForgeError(f"unknown comment mode {payload.mode!r} (expected {', '.join(MODES)})")
        if payload.mode == "none":
            return PublishResult(False, 0, 0, 0, "comment mode 'none': nothing posted")
        retrier = Retrier(self._clock, self._policy, rng=self._rng, secrets=(self._token,))
        progress = _Progress()
        where = f"{pr.owner}/{pr.repo}#{pr.number}"
        try:
            return self._publish(retrier, pr, payload, progress)
        except HttpFailure as failure:
            if failure.status in (401, 403):
                return PublishResult(
                    progress.wrote,
                    progress.inline,
                    progress.folded,
                    progress.deleted,
                    f"not posted to {where} ({progress.step}): the token may not write "
                    f"(HTTP {failure.status}: {failure.message})",
                )
            raise ForgeError(
                scrub(
                    f"Forgejo API error on {where} ({progress.step}): "
                    f"HTTP {failure.status}: {failure.message}",
                    (self._token,),
                )
            ) from None

    def _whoami(self, r: Retrier) -> str:
        try:
            data = self._json(r, "GET /user", "/user")
        except HttpFailure as failure:
            if failure.status in (401, 403, 404):
                return self._bot_login
            raise
        login = data.get("login") if isinstance(data, dict) else None
        return str(login) if login else self._bot_login

    def _publish(
        self, r: Retrier, pr: PullRequestRef, payload: ReviewPayload, progress: _Progress
    ) -> PublishResult:
        base = f"/repos/{quote(pr.owner, safe='')}/{quote(pr.repo, safe='')}"
        pull_path = f"{base}/pulls/{pr.number}"
        progress.step = "reading the pull request"
        me = self._whoami(r)
        pull = self._json(r, "GET pull", pull_path)
        head = str(((pull or {}).get("head") or {}).get("sha") or "")
        if head != pr.head_sha:
            return PublishResult(
                False,
                0,
                0,
                0,
                f"not posted: the pull request's head moved to {head[:12] or '?'} after this run "
                f"reviewed {pr.head_sha[:12]}; the run for the new head will post",
            )
        progress.step = "reading the diff"
        diff_text = self._call(r, "GET diff", "GET", f"{pull_path}.diff").text
        diff: DiffMap | None = None
        if len(diff_text) <= MAX_DIFF_CHARS:
            diff = parse_git_diff(diff_text)

        progress.step = "listing reviews"
        existing: list[ExistingComment] = []
        for review in self._list(r, "list reviews", f"{pull_path}/reviews"):
            user = (review.get("user") or {}).get("login")
            if user != me or REVIEW_MARKER not in str(review.get("body") or ""):
                continue
            review_id = int(review["id"])
            comments = self._json(
                r, "list review comments", f"{pull_path}/reviews/{review_id}/comments"
            )
            for comment in comments if isinstance(comments, list) else []:
                fp = fingerprint_of(str(comment.get("body") or ""))
                if fp is not None and (comment.get("user") or {}).get("login") == me:
                    existing.append(ExistingComment(int(comment["id"]), fp, review_id))
        progress.step = "listing comments"
        own_issue = [
            (int(c["id"]), str(c.get("body") or ""))
            for c in self._list(r, "list issue comments", f"{base}/issues/{pr.number}/comments")
            if (c.get("user") or {}).get("login") == me
        ]
        summary, extra_summaries = pick_summary(own_issue)

        plan, doomed = plan_by_review(payload, existing, diff, max_inline=self._max_inline)
        folded = list(plan.folded)
        note = ""
        if plan.post:
            progress.step = "posting the review"
            body = {
                "event": "COMMENT",
                "body": f"{REVIEW_MARKER}\nreviewbot: {len(plan.post)} finding(s) on this commit.",
                "commit_id": pr.head_sha,
                "comments": [_review_comment(c) for c in plan.post],
            }
            try:
                self._call(r, "POST review", "POST", f"{pull_path}/reviews", json=body)
                progress.inline = len(plan.post)
                progress.wrote = True
            except HttpFailure as failure:
                if failure.status != 422:
                    raise
                folded = list(plan.post) + folded
                note = (
                    f"Forgejo refused the inline comments (HTTP 422: {failure.message[:200]}), "
                    "so every finding is listed here."
                )
        progress.folded = len(folded)
        progress.step = "writing the summary"
        text = render_summary(payload.summary_markdown, folded, note)
        if summary is None:
            path, verb = f"{base}/issues/{pr.number}/comments", "POST"
        else:
            path, verb = f"{base}/issues/comments/{summary[0]}", "PATCH"
        if summary is None or summary[1] != text:
            self._call(r, f"{verb} summary", verb, path, json={"body": text})
        progress.wrote = True
        progress.step = "deleting stale comments"
        for review_id in sorted(doomed):
            progress.deleted += self._delete(r, f"{pull_path}/reviews/{review_id}")
        for comment_id in extra_summaries:
            progress.deleted += self._delete(r, f"{base}/issues/comments/{comment_id}")
        parts = [f"{progress.inline} new inline", f"{plan.present} already there"]
        parts += [f"{len(folded)} in the summary", f"{progress.deleted} stale deleted"]
        return PublishResult(
            True, progress.inline, len(folded), progress.deleted, "posted: " + ", ".join(parts)
        )

    def _delete(self, r: Retrier, path: str) -> int:
        try:
            self._call(r, "DELETE", "DELETE", path)
        except HttpFailure as failure:
            if failure.status == 404:
                return 0
            raise
        return 1


def _review_comment(comment: InlineComment) -> dict[str, Any]:
    body = inline_body(comment)
    if comment.start_line is not None and comment.start_line < comment.line:
        body = f"*(lines {comment.start_line}-{comment.line})*\n\n{body}"
    return {"path": comment.path, "body": body, "new_position": comment.line, "old_position": 0}
