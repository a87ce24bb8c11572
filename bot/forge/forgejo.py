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

Forgejo creates a review comment by comment inside the user's *pending* review and
answers 500 (message hidden) when one cannot be placed, keeping the ones before it; the
next review the user submits would carry them. So a failed review creation is never
repeated: our pending reviews are deleted and every finding goes into the summary. A
pending review of ours left by an earlier run is deleted before posting.

Lists are read page by page until ``X-Total-Count`` is reached, however many pages that
takes (Forgejo caps ``limit`` at its ``MAX_RESPONSE_ITEMS`` and sends no ``Link`` header);
issue comments come unpaginated (Forgejo ignores ``page`` and ``limit`` there), but a server
that pages them is read to the end too.
"""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from reviewbot.forge.base import (
    ForgeError,
    InlineComment,
    Progress,
    PublishResult,
    PullRequestRef,
    ReviewPayload,
    mode_result,
)
from reviewbot.forge.diffmap import DiffMap, parse_git_diff
from reviewbot.forge.reconcile import (
    REVIEW_MARKER,
    ExistingComment,
    fingerprint_of,
    infer_login,
    inline_body,
    pick_summary,
    plan_by_review,
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

PAGE_LIMIT = 50  # Forgejo's default MAX_RESPONSE_ITEMS; it may cap lower
MAX_DIFF_CHARS = 32 * 1024 * 1024  # a larger diff is not parsed: every finding folds


def _message(response: httpx.Response, token: str) -> str:
    """The error a response states, the token scrubbed before it is cut to 300 characters."""
    try:
        data = response.json()
    except ValueError:
        return scrub(response.text, (token,))[:300].strip() or response.reason_phrase
    if isinstance(data, dict) and "message" in data:
        # a 500's cause is hidden from non-admins in production: the message is empty
        return scrub(str(data["message"] or ""), (token,))[:300] or "no message"
    return scrub(str(data), (token,))[:300]


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
        self._bot_login = bot_login or None
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
        self._sockets = Sockets()  # every connection opened, to cut at the deadline

    def close(self) -> None:
        self._client.close()

    # -- transport ---------------------------------------------------------------------

    def _url(self, path: str) -> str:
        return self._base + path

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        """httpx's ``trace`` extension: remember each socket this client connects."""
        if event.endswith("connect_tcp.complete"):
            stream = info.get("return_value")
            if stream is not None:
                self._sockets.add(stream.get_extra_info("socket"))

    def _request(
        self, method: str, url: str, *, json: Any = None, params: dict[str, Any] | None = None
    ) -> httpx.Response:
        try:
            response = self._client.request(
                method, url, json=json, params=params, extensions={"trace": self._trace}
            )
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise HttpFailure(None, f"{type(exc).__name__}: {exc}", sent=False) from None
        except httpx.HTTPError as exc:
            raise HttpFailure(None, f"{type(exc).__name__}: {exc}") from None
        if response.status_code >= 400:
            raise HttpFailure(response.status_code, _message(response, self._token),
                              dict(response.headers))
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
        """GET every page: follow ``Link: rel=next``; else ask for the next page while
        the pages seen so far cover fewer than ``X-Total-Count`` items (Forgejo: no Link
        header, pages capped below the ``limit`` asked for, and other users' pending
        reviews counted in the total but left out of the page, which may come back
        empty), or, without that header, while pages come back full. A page that
        repeats only known ids ends it (a server that ignores ``page``, as Forgejo does for
        issue comments, which it answers all at once). There is no page cap: a list is
        read whole (10,000 comments are 200 pages of 50) or the publish fails at the
        deadline; a partial list would post a second summary or repeat inline comments."""
        out: list[dict[str, Any]] = []
        seen: set[Any] = set()
        url: str = self._url(path)
        params: dict[str, Any] | None = {"limit": PAGE_LIMIT, "page": 1}
        size = 0  # the server's page size, as its fullest page shows it
        while True:

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
            total = _total_count(response)
            if data and not fresh:
                break
            if following is not None:
                url, params = following, None
                continue
            if params is None:
                break
            page = int(params["page"])
            if total is not None:
                size = max(size, len(data))
                more = size > 0 and page * size < total
            else:
                more = len(data) >= PAGE_LIMIT
            if not more:
                break
            params = {"limit": PAGE_LIMIT, "page": page + 1}
        return out

    # -- publish -----------------------------------------------------------------------

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
        where = f"{pr.owner}/{pr.repo}#{pr.number}"
        try:
            return self._publish(retrier, pr, payload, progress)
        except HttpFailure as failure:
            if failure.status in (401, 403):
                return progress.refused(
                    where, failure.status, failure.message, "a Forgejo token needs the "
                    "write:repository and write:issue scopes, see docs/ci.md")
            raise ForgeError(
                scrub(
                    f"Forgejo API error on {where} ({progress.step}): "
                    f"HTTP {failure.status}: {failure.message}",
                    (self._token,),
                )
            ) from None

    def _whoami(self, r: Retrier) -> str | None:
        """The token's account from ``GET /user``; refused (Actions tokens, tokens without
        ``read:user``): ``REVIEWBOT_BOT_LOGIN``, or None to find out otherwise."""
        try:
            data = self._json(r, "GET /user", "/user")
        except HttpFailure as failure:
            if failure.status in (401, 403, 404):
                return self._bot_login
            raise
        login = data.get("login") if isinstance(data, dict) else None
        return str(login) if login else self._bot_login

    def _publish(
        self, r: Retrier, pr: PullRequestRef, payload: ReviewPayload, progress: Progress
    ) -> PublishResult:
        base = f"/repos/{quote(pr.owner, safe='')}/{quote(pr.repo, safe='')}"
        pull_path = f"{base}/pulls/{pr.number}"
        issue_path = f"{base}/issues/{pr.number}/comments"
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
        author = _login(pull)
        progress.step = "reading the diff"
        diff_text = self._call(r, "GET diff", "GET", f"{pull_path}.diff").text
        diff: DiffMap | None = None
        if len(diff_text) <= MAX_DIFF_CHARS:
            diff = parse_git_diff(diff_text)

        progress.step = "listing comments"
        issue = [
            (int(c["id"]), _login(c), str(c.get("body") or ""))
            for c in self._list(r, "list issue comments", issue_path)
        ]
        progress.step = "listing reviews"
        reviews = self._list(r, "list reviews", f"{pull_path}/reviews")
        if me is None:
            me = infer_login(issue, exclude=(author,))
        first_summary: tuple[int, str] | None = None
        if me is None:
            # nobody's summary yet and the forge will not say who we are: the summary is
            # written first, and the account Forgejo says wrote it is us
            progress.step = "writing the summary"
            plan, _ = plan_by_review(payload, [], diff, max_inline=self._max_inline)
            text = render_summary(payload.summary_markdown, plan.folded)
            created = self._call(r, "POST summary", "POST", issue_path, json={"body": text})
            progress.wrote = True
            data = created.json() if created.content else {}
            first_summary = (int(data.get("id") or 0), text)
            me = _login(data)
            if me is None:
                raise ForgeError("Forgejo did not say who wrote the summary comment")
            issue.append((first_summary[0], me, text))

        existing: list[ExistingComment] = []
        pending: list[int] = []
        for review in reviews:
            if _login(review) != me:
                continue
            review_id = int(review["id"])
            if str(review.get("state") or "").upper() == "PENDING":
                pending.append(review_id)
                continue
            if REVIEW_MARKER not in str(review.get("body") or ""):
                continue
            comments = self._json(
                r, "list review comments", f"{pull_path}/reviews/{review_id}/comments"
            )
            for comment in comments if isinstance(comments, list) else []:
                fp = fingerprint_of(str(comment.get("body") or ""))
                if fp is not None and _login(comment) == me:
                    existing.append(ExistingComment(int(comment["id"]), fp, review_id))
        summary, extra_summaries = pick_summary([(i, b) for i, login, b in issue if login == me])

        plan, doomed = plan_by_review(payload, existing, diff, max_inline=self._max_inline)
        folded = list(plan.folded)
        note = ""
        if pending:
            progress.step = "deleting our pending review"
            for review_id in pending:  # else Forgejo would submit its comments with ours
                progress.deleted += self._delete(r, f"{pull_path}/reviews/{review_id}")
        if plan.post:
            progress.step = "posting the review"
            body = {
                "event": "COMMENT",
                "body": f"{REVIEW_MARKER}\nreviewbot: {len(plan.post)} finding(s) on this commit.",
                "commit_id": pr.head_sha,
                "comments": [_review_comment(c) for c in plan.post],
            }
            try:
                # never repeated once sent: Forgejo may have stored part of it
                r.call(
                    "POST review",
                    lambda: self._request("POST", self._url(f"{pull_path}/reviews"), json=body),
                    write=True,
                    retryable=_unsent_or_throttled,
                )
                progress.inline = len(plan.post)
                progress.wrote = True
            except HttpFailure as failure:
                if failure.status in (401, 403) and summary is None and first_summary is None:
                    raise  # nothing written yet: the token may not write at all
                folded = list(plan.post) + folded
                status = f"HTTP {failure.status}" if failure.status else "a network error"
                detail = f": {failure.message[:200]}" if failure.message else ""
                note = (
                    f"Forgejo refused the inline comments ({status}{detail}), so every finding "
                    "is listed here."
                )
                progress.step = "deleting our pending review"
                progress.deleted += self._drop_pending(r, pull_path, me)
        progress.folded = len(folded)
        progress.step = "writing the summary"
        text = render_summary(payload.summary_markdown, folded, note)
        if summary is None:
            self._call(r, "POST summary", "POST", issue_path, json={"body": text})
        elif summary[1] != text:
            path = f"{base}/issues/comments/{summary[0]}"
            self._call(r, "PATCH summary", "PATCH", path, json={"body": text})
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

    def _drop_pending(self, r: Retrier, pull_path: str, me: str) -> int:
        """Delete our pending reviews (what a failed review creation left behind)."""
        deleted = 0
        for review in self._list(r, "list reviews", f"{pull_path}/reviews"):
            if _login(review) == me and str(review.get("state") or "").upper() == "PENDING":
                deleted += self._delete(r, f"{pull_path}/reviews/{int(review['id'])}")
        return deleted

    def _delete(self, r: Retrier, path: str) -> int:
        try:
            self._call(r, "DELETE", "DELETE", path)
        except HttpFailure as failure:
            if failure.status == 404:
                return 0
            raise
        return 1


def _login(item: Any) -> str | None:
    """``item.user.login`` of a Forgejo object, if it has one."""
    user = item.get("user") if isinstance(item, dict) else None
    login = user.get("login") if isinstance(user, dict) else None
    return str(login) if login else None


def _total_count(response: httpx.Response) -> int | None:
    value = response.headers.get("x-total-count", "").strip()
    return int(value) if value.isdigit() else None


def _unsent_or_throttled(failure: HttpFailure) -> bool:
    """A review creation is repeated only when Forgejo cannot have acted on it."""
    return (failure.status is None and not failure.sent) or failure.status == 429


def _review_comment(comment: InlineComment) -> dict[str, Any]:
    body = inline_body(comment)
    if comment.start_line is not None and comment.start_line < comment.line:
        body = f"*(lines {comment.start_line}-{comment.line})*\n\n{body}"
    return {"path": comment.path, "body": body, "new_position": comment.line, "old_position": 0}
