"""A fake GitHub / Forgejo REST server on 127.0.0.1 for tests (stdlib only).

It speaks the response shapes PyGithub and the httpx client read, keeps state (pull
requests, files, reviews, review comments, issue comments), records every request, and has
knobs for the failure modes publishing must survive::

    with FakeForge("github") as forge:          # or FakeForge("forgejo")
        pr = forge.add_pull("o", "r", 1, files=[FakeFile("k8s/a.yaml", patch)])
        forge.add_fault(Fault("POST", r"/reviews$", 502))          # 502 once, then 200
        forge.add_fault(Fault("GET", r"/files", 429, {"Retry-After": "7"}))
        forge.set_token("ro-token", "reader", write=False)         # 403 on every write
        forge.add_fault(Fault("GET", r"/pulls/7$", 0, drip=1.0))   # the real answer, a byte/s
        ...  # forge.api_url, forge.requests, forge.issue_comments(...), forge.review_comments(...)

GitHub routes are served at ``/``, Forgejo routes under ``/api/v1``. The commentable
lines are computed here independently of ``reviewbot.forge.diffmap``.

The Forgejo flavour follows Forgejo's own API code (``routers/api/v1``), where it matters:

- scoped tokens: ``GET /user`` needs ``read:user`` and answers 403 without it; reviews need
  ``write:repository``, issue comments ``write:issue`` (``FakeForge(scopes=...)``);
- ``POST .../reviews`` stores each comment in the token user's pending review, one by one;
  a comment it cannot place (Forgejo's ``git blame`` of a line past the end of the head
  file) answers **500** with an empty message, leaving the pending review and the comments
  before it stored; the next ``POST`` submits those leftovers with its own comments;
- pending reviews are listed only to their author;
- lists: ``limit`` is capped at ``MAX_RESPONSE_ITEMS`` (50 by default, ``max_response_items``)
  and defaults to 30; the total is in ``X-Total-Count`` (for reviews it counts others'
  pending reviews, which the page then leaves out); no ``Link`` header. Issue comments and
  a review's comments are not paginated at all (``ListIssueComments`` builds its query
  without list options: ``page`` and ``limit`` are ignored, every comment comes in one
  answer with ``X-Total-Count``). ``paged_issue_comments=True`` pages them like the other
  lists instead, as a Forgejo-compatible server or proxy that honours the ``page`` and
  ``limit`` a client sends would.

The GitHub flavour answers :func:`secondary_limit` faults as GitHub's REST API does: a 403
(or 429) whose message names the secondary rate limit, with ``X-RateLimit-Remaining``
non-zero and ``Retry-After`` only when asked for.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

STAMP = "2024-05-01T12:00:00Z"
DEFAULT_TOKEN = "tok-" + "9f3b2c7d" * 5  # long and unique, so a leak is easy to spot
GITHUB_422 = (
    "Pull request review thread line must be part of the diff and "
    "Pull request review thread diff hunk can't be blank"
)
# GitHub's secondary rate limit, as its REST API answers it (403 or 429; Retry-After only
# sometimes; X-RateLimit-Remaining is the primary quota and stays non-zero)
GITHUB_SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try "
    "again. If you reach out to GitHub Support for help, please include the request ID "
    "C0DE:1A2B:3C4D5E:6F7A8B:66320000."
)
GITHUB_SECONDARY_DOC = (
    "https://docs.github.com/free-pro-team@latest/rest/overview/"
    "rate-limits-for-the-rest-api#about-secondary-rate-limits"
)


FORGEJO_SWAGGER = "/api/swagger"
FORGEJO_BOT_SCOPES = frozenset({"write:repository", "write:issue"})  # no read:user
FORGEJO_DEFAULT_PAGING_NUM = 30
FORGEJO_MAX_RESPONSE_ITEMS = 50


# -- time ----------------------------------------------------------------------------------


class FakeClock:
    """An injectable clock: ``sleep`` advances time instead of waiting, and is recorded."""

    def __init__(self, start: float = 1_714_564_800.0) -> None:
        self.now = start
        self.mono = 1_000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.mono

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.mono += max(0.0, seconds)
        self.now += max(0.0, seconds)


# -- state ---------------------------------------------------------------------------------


@dataclass
class FakeFile:
    filename: str
    patch: str | None  # hunks only, as in GitHub's files[].patch; None for binary/too large
    status: str = "modified"  # added | modified | removed | renamed
    previous_filename: str | None = None
    lines: int | None = None  # the head file's length; Forgejo cannot comment past it


@dataclass
class FakePull:
    owner: str
    repo: str
    number: int
    head_sha: str
    base_sha: str
    files: list[FakeFile]
    title: str = "Update manifests"
    author: str = "contributor"


@dataclass
class Fault:
    """Answer matching requests with ``status`` (and headers/body) ``times`` times.

    ``status=0`` answers what the route would (with ``headers`` added), for a drip or an
    extra header on a real answer. ``drip`` sends the answer one byte every ``drip``
    seconds, from the status line on (``drip_body_only``: the body only), until it is all
    sent or the server stops. ``content_type`` replaces the JSON/text type.
    """

    method: str
    path: str  # regex searched in the request path
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    times: int = 1
    drip: float = 0.0
    drip_body_only: bool = False
    content_type: str | None = None


def secondary_limit(
    method: str, path: str, status: int = 403, *, retry_after: int | None = None, times: int = 1
) -> Fault:
    """GitHub's secondary rate limit answer for matching requests (403 or 429)."""
    headers = {"X-RateLimit-Remaining": "4321", "X-GitHub-Request-Id": "C0DE:1A2B:3C4D5E"}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    body = {"message": GITHUB_SECONDARY, "documentation_url": GITHUB_SECONDARY_DOC}
    return Fault(method, path, status, headers, body, times)


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    status: int


@dataclass
class _User:
    login: str
    id: int
    write: bool
    bot: bool = False  # GET /user answers 403, like GitHub for an Actions token
    scopes: frozenset[str] | None = None  # Forgejo token scopes; None: every scope


def _has_scope(user: _User, scope: str) -> bool:
    """Forgejo: a write scope implies the read scope of its category."""
    if user.scopes is None:
        return True
    category = scope.split(":", 1)[1]
    return scope in user.scopes or f"write:{category}" in user.scopes


def right_lines(patch: str | None) -> dict[int, int]:
    """new-side line -> hunk index, walking a patch (the fake's own reading of it)."""
    out: dict[int, int] = {}
    if not patch:
        return out
    hunk = -1
    line = 0
    for text in patch.split("\n"):
        head = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", text)
        if head:
            hunk += 1
            line = int(head.group(1))
        elif hunk < 0 or text.startswith("\\") or text.startswith("-"):
            continue
        elif text.startswith("+") or text.startswith(" "):
            out[line] = hunk
            line += 1
    return out


def files_from_git(repo_dir: str | Path, base: str, head: str) -> list[FakeFile]:
    """The files of ``git diff base head`` as GitHub lists them (for end-to-end tests)."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo_dir), *args], check=True, capture_output=True, text=True
        ).stdout

    files: list[FakeFile] = []
    statuses = {"A": "added", "M": "modified", "D": "removed", "R": "renamed"}
    entries = git("diff", "--name-status", "-M", "-z", base, head).split("\0")
    i = 0
    while i < len(entries) and entries[i]:
        code = entries[i]
        if code.startswith("R"):
            old, new = entries[i + 1], entries[i + 2]
            i += 3
        else:
            old = new = entries[i + 1]
            i += 2
        text = git("diff", "--no-color", "--no-ext-diff", "-M", base, head, "--", old, new)
        start = text.find("\n@@")
        patch = text[start + 1 :].rstrip("\n") if start >= 0 else None
        status = statuses.get(code[:1], "modified")
        lines = None
        if status != "removed":
            lines = len(git("show", f"{head}:{new}").splitlines())
        files.append(FakeFile(new, patch, status, old if old != new else None, lines))
    return files


# -- server --------------------------------------------------------------------------------


class FakeForge:
    """The server: ``start()``/``stop()`` or use as a context manager."""

    def __init__(
        self,
        flavor: str = "github",
        *,
        token: str = DEFAULT_TOKEN,
        login: str = "reviewbot-bot",
        bot_token: bool = False,
        page_size: int | None = None,
        scopes: frozenset[str] | None = None,
        max_response_items: int = FORGEJO_MAX_RESPONSE_ITEMS,
        paged_issue_comments: bool = False,
    ) -> None:
        if flavor not in ("github", "forgejo"):
            raise ValueError(flavor)
        self.flavor = flavor
        self.token = token
        self.login = login
        self.page_size = page_size  # caps per_page/limit to force pagination
        self.max_response_items = max_response_items  # Forgejo's [api] MAX_RESPONSE_ITEMS
        self.paged_issue_comments = paged_issue_comments
        self.lock = threading.RLock()
        self.users: dict[str, _User] = {}
        self.set_token(token, login, write=True, bot=bot_token, scopes=scopes)
        self.pulls: dict[tuple[str, str, int], FakePull] = {}
        self.issue_comments_db: dict[int, dict[str, Any]] = {}
        self.review_comments_db: dict[int, dict[str, Any]] = {}
        self.reviews_db: dict[int, dict[str, Any]] = {}
        self.faults: list[Fault] = []
        self.requests: list[Recorded] = []
        self._ids = iter(range(1001, 10**9))
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.stopped = threading.Event()  # ends every drip in progress

    # -- lifecycle

    def start(self) -> FakeForge:
        self.stopped.clear()
        handler = type("Handler", (_Handler,), {"forge": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeForge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the server first"
        return int(self._server.server_address[1])

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """GITHUB_API_URL or FORGEJO_API_URL for this server."""
        return self.root if self.flavor == "github" else self.root + "/api/v1"

    # -- setup

    def next_id(self) -> int:
        with self.lock:
            return next(self._ids)

    def set_token(
        self,
        token: str,
        login: str,
        *,
        write: bool = True,
        bot: bool = False,
        scopes: frozenset[str] | None = None,
    ) -> None:
        with self.lock:
            self.users[token] = _User(login, 100 + len(self.users), write, bot, scopes)

    @property
    def read_only(self) -> bool:
        return not self.users[self.token].write

    @read_only.setter
    def read_only(self, value: bool) -> None:
        self.users[self.token].write = not value

    def add_pull(
        self,
        owner: str,
        repo: str,
        number: int,
        *,
        files: list[FakeFile],
        head_sha: str = "a" * 40,
        base_sha: str = "b" * 40,
        title: str = "Update manifests",
    ) -> FakePull:
        pull = FakePull(owner, repo, number, head_sha, base_sha, list(files), title)
        with self.lock:
            self.pulls[(owner, repo, number)] = pull
        return pull

    def add_fault(self, fault: Fault) -> None:
        with self.lock:
            self.faults.append(fault)

    def add_issue_comment(self, owner: str, repo: str, number: int, login: str, body: str) -> int:
        cid = self.next_id()
        with self.lock:
            self.issue_comments_db[cid] = {
                "id": cid, "owner": owner, "repo": repo, "number": number,
                "login": login, "body": body,
            }  # fmt: skip
        return cid

    def add_review_comment(
        self, owner: str, repo: str, number: int, login: str, path: str, line: int, body: str
    ) -> int:
        """A review (holding one comment) by ``login``, as if left earlier."""
        rid = self.next_id()
        cid = self.next_id()
        pull = self.pulls[(owner, repo, number)]
        with self.lock:
            self.reviews_db[rid] = {
                "id": rid, "owner": owner, "repo": repo, "number": number, "login": login,
                "body": "", "state": "COMMENT", "commit_id": pull.head_sha,
            }  # fmt: skip
            self.review_comments_db[cid] = {
                "id": cid, "review_id": rid, "owner": owner, "repo": repo, "number": number,
                "login": login, "path": path, "line": line, "start_line": None, "body": body,
                "commit_id": pull.head_sha,
            }  # fmt: skip
        return cid

    def add_review(
        self,
        owner: str,
        repo: str,
        number: int,
        login: str,
        *,
        body: str = "",
        state: str = "COMMENT",
        comments: tuple[tuple[str, int, str], ...] = (),
    ) -> int:
        """A review by ``login`` holding ``comments`` (path, line, body), as if left earlier."""
        rid = self.next_id()
        pull = self.pulls[(owner, repo, number)]
        with self.lock:
            self.reviews_db[rid] = {
                "id": rid, "owner": owner, "repo": repo, "number": number, "login": login,
                "body": body, "state": state, "commit_id": pull.head_sha,
            }  # fmt: skip
            for path, line, text in comments:
                cid = self.next_id()
                self.review_comments_db[cid] = {
                    "id": cid, "review_id": rid, "owner": owner, "repo": repo,
                    "number": number, "login": login, "path": path, "line": line,
                    "start_line": None, "body": text, "commit_id": pull.head_sha,
                }  # fmt: skip
        return rid

    # -- inspection

    def issue_comments(self, owner: str, repo: str, number: int) -> list[dict[str, Any]]:
        with self.lock:
            return [
                dict(c)
                for c in self.issue_comments_db.values()
                if (c["owner"], c["repo"], c["number"]) == (owner, repo, number)
            ]

    def review_comments(self, owner: str, repo: str, number: int) -> list[dict[str, Any]]:
        with self.lock:
            return [
                dict(c)
                for c in self.review_comments_db.values()
                if (c["owner"], c["repo"], c["number"]) == (owner, repo, number)
            ]

    def listed(
        self, table: dict[int, dict[str, Any]], owner: str, repo: str, number: int
    ) -> list[dict[str, Any]]:
        """The records of one pull request in id order, uncopied (for the list routes, which
        only read them; ids come from one rising counter, so a table's order is id order)."""
        key = (owner, repo, number)
        with self.lock:
            return [c for c in table.values() if (c["owner"], c["repo"], c["number"]) == key]

    def reviews(self, owner: str, repo: str, number: int) -> list[dict[str, Any]]:
        with self.lock:
            return [
                dict(r)
                for r in self.reviews_db.values()
                if (r["owner"], r["repo"], r["number"]) == (owner, repo, number)
            ]

    def writes(self) -> list[Recorded]:
        return [r for r in self.requests if r.method != "GET"]

    def full_diff(self, pull: FakePull) -> str:
        """The pull request as ``git diff`` text (Forgejo's ``pulls/{n}.diff``)."""
        out: list[str] = []
        for f in pull.files:
            old = f.previous_filename or f.filename
            out.append(f"diff --git a/{old} b/{f.filename}")
            if f.status == "added":
                out += ["new file mode 100644", "index 0000000..1111111", "--- /dev/null"]
            else:
                out += ["index 1111111..2222222 100644", f"--- a/{old}"]
            out.append("+++ /dev/null" if f.status == "removed" else f"+++ b/{f.filename}")
            if f.patch:
                out.append(f.patch)
        return "\n".join(out) + "\n"

    # -- shapes

    def user_json(self, login: str) -> dict[str, Any]:
        uid = next((u.id for u in self.users.values() if u.login == login), 7)
        if self.flavor == "forgejo":
            return {
                "id": uid, "login": login, "login_name": "", "full_name": "", "email": "",
                "avatar_url": f"{self.root}/avatars/{uid}", "username": login,
                "is_admin": False, "created": STAMP,
            }  # fmt: skip
        return {
            "login": login, "id": uid, "node_id": f"U_{uid}",
            "avatar_url": f"{self.root}/avatars/{uid}", "url": f"{self.root}/users/{login}",
            "html_url": f"{self.root}/{login}", "type": "Bot" if "[bot]" in login else "User",
            "site_admin": False,
        }  # fmt: skip


_GH_ROUTES: list[tuple[str, str, str]] = [
    ("GET", r"^/user$", "gh_user"),
    ("GET", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)$", "gh_repo"),
    ("GET", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/pulls/(?P<n>\d+)$", "gh_pull"),
    ("GET", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/pulls/(?P<n>\d+)/files$", "gh_files"),
    ("GET", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/commits/(?P<sha>[0-9a-f]+)$", "gh_commit"),
    ("POST", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/pulls/(?P<n>\d+)/reviews$", "gh_post_review"),
    ("GET", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/pulls/(?P<n>\d+)/comments$", "gh_review_comments"),
    ("DELETE", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/pulls/comments/(?P<id>\d+)$", "gh_del_rc"),
    ("GET", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/issues/(?P<n>\d+)/comments$", "issue_comments"),
    ("POST", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/issues/(?P<n>\d+)/comments$", "post_ic"),
    ("PATCH", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/issues/comments/(?P<id>\d+)$", "patch_ic"),
    ("DELETE", r"^/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/issues/comments/(?P<id>\d+)$", "delete_ic"),
]
_FJ_PULL = r"^/api/v1/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/pulls/(?P<n>\d+)"
_FJ_ISSUES = r"^/api/v1/repos/(?P<o>[^/]+)/(?P<r>[^/]+)/issues"
_FJ_ROUTES: list[tuple[str, str, str]] = [
    ("GET", r"^/api/v1/user$", "fj_user"),
    ("GET", _FJ_PULL + r"$", "fj_pull"),
    ("GET", _FJ_PULL + r"\.diff$", "fj_diff"),
    ("GET", _FJ_PULL + r"/reviews$", "fj_reviews"),
    ("POST", _FJ_PULL + r"/reviews$", "fj_post_review"),
    ("GET", _FJ_PULL + r"/reviews/(?P<id>\d+)/comments$", "fj_review_comments"),
    ("DELETE", _FJ_PULL + r"/reviews/(?P<id>\d+)$", "fj_delete_review"),
    ("GET", _FJ_ISSUES + r"/(?P<n>\d+)/comments$", "issue_comments"),
    ("POST", _FJ_ISSUES + r"/(?P<n>\d+)/comments$", "post_ic"),
    ("PATCH", _FJ_ISSUES + r"/comments/(?P<id>\d+)$", "patch_ic"),
    ("DELETE", _FJ_ISSUES + r"/comments/(?P<id>\d+)$", "delete_ic"),
]


class _Reply(Exception):
    def __init__(
        self,
        status: int,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        shape: Fault | None = None,
    ) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = dict(headers or {})
        self.shape = shape


class _Handler(BaseHTTPRequestHandler):
    forge: FakeForge
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms stall

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def do_GET(self) -> None:  # noqa: N802
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def do_PATCH(self) -> None:  # noqa: N802
        self._handle("PATCH")

    def do_DELETE(self) -> None:  # noqa: N802
        self._handle("DELETE")

    # -- plumbing

    def _handle(self, method: str) -> None:
        forge = self.forge
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in self.headers.items()}
        if "authorization" in headers:  # keep the scheme, never the secret, in the record
            headers["authorization"] = headers["authorization"].split(" ")[0] + " <redacted>"
        status, payload, extra = 500, None, {}  # type: tuple[int, Any, dict[str, str]]
        shape: Fault | None = None
        try:
            shape = self._fault(method, path)
            user = self._auth({k.lower(): v for k, v in self.headers.items()})
            status, payload, extra = self._route(method, path, query, body, user)
        except _Reply as reply:
            status, payload, extra = reply.status, reply.body, reply.headers
            shape = reply.shape or shape
        if shape is not None:
            extra = {**extra, **shape.headers}
        with forge.lock:
            forge.requests.append(Recorded(method, path, query, headers, body, status))
        self._send(status, payload, extra, shape)

    def _send(
        self, status: int, payload: Any, extra: Mapping[str, str], shape: Fault | None = None
    ) -> None:
        if isinstance(payload, str):
            data, ctype = payload.encode("utf-8"), "text/plain; charset=utf-8"
        elif payload is None:
            data, ctype = b"", "application/json"
        else:
            data, ctype = json.dumps(payload).encode("utf-8"), "application/json; charset=utf-8"
        if shape is not None and shape.content_type is not None:
            ctype = shape.content_type
        if shape is not None and shape.drip > 0:
            self._drip(status, ctype, data, extra, shape)
            return
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        overridden = {key.lower() for key in extra}
        if self.forge.flavor == "github":
            defaults = {"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "4990",
                        "X-RateLimit-Reset": "4102444800"}  # fmt: skip
            for key, value in defaults.items():
                if key.lower() not in overridden:
                    self.send_header(key, value)
        for key, value in extra.items():
            self.send_header(key, value)
        self.end_headers()
        if data:
            self.wfile.write(data)

    def _error(self, status: int, message: str, **more: Any) -> _Reply:
        if self.forge.flavor == "github":
            doc = "https://docs.github.com/rest"
            return _Reply(status, {"message": message, "documentation_url": doc, **more})
        return _Reply(status, {"message": message, "url": self.forge.root + FORGEJO_SWAGGER})

    def _drip(
        self, status: int, ctype: str, data: bytes, extra: Mapping[str, str], shape: Fault
    ) -> None:
        """The whole answer (or its body), one byte every ``shape.drip`` seconds."""
        head = [f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}"]
        head += [f"Content-Type: {ctype}", f"Content-Length: {len(data)}", "Connection: close"]
        head += [f"{key}: {value}" for key, value in extra.items()]
        raw = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1")
        self.close_connection = True
        if shape.drip_body_only:
            self.wfile.write(raw)
            self.wfile.flush()
            raw = b""
        try:
            for byte in raw + data:
                if self.forge.stopped.wait(shape.drip):
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        except OSError:
            return  # the client gave up and closed the connection

    def _fault(self, method: str, path: str) -> Fault | None:
        """Raise a fault's answer; a ``status=0`` fault is returned to shape the real one."""
        with self.forge.lock:
            for fault in self.forge.faults:
                if fault.times > 0 and fault.method == method and re.search(fault.path, path):
                    fault.times -= 1
                    if fault.status == 0:
                        return fault
                    body = fault.body
                    if body is None:
                        body = {"message": f"injected {fault.status}"}
                    raise _Reply(fault.status, body, fault.headers, fault)
        return None

    def _auth(self, headers: Mapping[str, str]) -> _User:
        value = headers.get("authorization", "")
        scheme, _, token = value.partition(" ")
        user = self.forge.users.get(token) if scheme.lower() in ("token", "bearer") else None
        if user is None:
            raise self._error(401, "Bad credentials")
        return user

    def _route(
        self, method: str, path: str, query: dict[str, list[str]], body: Any, user: _User
    ) -> tuple[int, Any, dict[str, str]]:
        routes = _GH_ROUTES if self.forge.flavor == "github" else _FJ_ROUTES
        for verb, pattern, name in routes:
            match = re.match(pattern, path)
            if match and verb == method:
                if method != "GET" and not user.write:
                    raise self._error(403, "Resource not accessible by integration")
                if self.forge.flavor == "forgejo":
                    self._fj_scope(method, path, user)
                handler = getattr(self, name)
                result: tuple[int, Any, dict[str, str]] = handler(
                    user=user, query=query, body=body, **match.groupdict()
                )
                return result
        raise self._error(404, "Not Found")

    def _fj_scope(self, method: str, path: str, user: _User) -> None:
        """Forgejo's tokenRequiresScopes: the route's category, read for GET."""
        if path == "/api/v1/user":
            category = "user"
        elif re.match(_FJ_ISSUES, path):
            category = "issue"
        else:
            category = "repository"
        scope = f"{'read' if method == 'GET' else 'write'}:{category}"
        if not _has_scope(user, scope):
            raise self._error(
                403, f"token does not have at least one of required scope(s): [{scope}]"
            )

    def _pull(self, o: str, r: str, n: str) -> FakePull:
        pull = self.forge.pulls.get((o, r, int(n)))
        if pull is None:
            raise self._error(404, "Not Found")
        return pull

    def _page(self, items: list[Any], query: dict[str, list[str]]) -> tuple[list[Any], str]:
        """One page and its Link header (GitHub: per_page/page; Forgejo: limit/page)."""
        key = "per_page" if self.forge.flavor == "github" else "limit"
        size = int((query.get(key) or ["30"])[0])
        size = max(1, min(size, 100))
        if self.forge.page_size is not None:
            size = min(size, self.forge.page_size)
        page = max(1, int((query.get("page") or ["1"])[0]))
        last = max(1, -(-len(items) // size))
        chunk = items[(page - 1) * size : page * size]
        base = f"{self.forge.root}{urlsplit(self.path).path}"
        links = []
        if page < last:
            links.append(f'<{base}?{key}={size}&page={page + 1}>; rel="next"')
            links.append(f'<{base}?{key}={size}&page={last}>; rel="last"')
        if page > 1:
            links.append(f'<{base}?{key}={size}&page=1>; rel="first"')
            links.append(f'<{base}?{key}={size}&page={page - 1}>; rel="prev"')
        return chunk, ", ".join(links)

    def _paged(self, items: list[Any], query: dict[str, list[str]]) -> tuple[int, Any, dict]:
        if self.forge.flavor == "forgejo":
            return self._fj_paged(items, query, len(items))
        chunk, link = self._page(items, query)
        headers = {"Link": link} if link else {}
        return 200, chunk, headers

    def _fj_paged(
        self, items: list[Any], query: dict[str, list[str]], total: int
    ) -> tuple[int, Any, dict[str, str]]:
        """Forgejo's utils.GetListOptions + SetTotalCountHeader: no Link header."""
        try:
            size = int((query.get("limit") or ["0"])[0])
            page = int((query.get("page") or ["1"])[0])
        except ValueError:
            size, page = 0, 1
        cap = self.forge.max_response_items
        if self.forge.page_size is not None:
            cap = min(cap, self.forge.page_size)
        size = FORGEJO_DEFAULT_PAGING_NUM if size <= 0 else size
        size = min(size, cap)
        page = max(page, 1)
        return 200, items[(page - 1) * size : page * size], {"X-Total-Count": str(total)}

    def _fj_all(self, items: list[Any]) -> tuple[int, Any, dict[str, str]]:
        """An unpaginated Forgejo list (issue comments): page and limit are ignored."""
        return 200, items, {"X-Total-Count": str(len(items))}

    # -- GitHub shapes

    def _gh_repo_json(self, o: str, r: str) -> dict[str, Any]:
        root = self.forge.root
        return {
            "id": 4242, "node_id": "R_1", "name": r, "full_name": f"{o}/{r}",
            "owner": self.forge.user_json(o), "private": False,
            "html_url": f"{root}/{o}/{r}", "url": f"{root}/repos/{o}/{r}",
            "default_branch": "main", "fork": False,
        }  # fmt: skip

    def _gh_pull_json(self, pull: FakePull) -> dict[str, Any]:
        root, o, r, n = self.forge.root, pull.owner, pull.repo, pull.number
        repo = self._gh_repo_json(o, r)
        return {
            "url": f"{root}/repos/{o}/{r}/pulls/{n}", "id": 9000 + n, "node_id": f"PR_{n}",
            "html_url": f"{root}/{o}/{r}/pull/{n}", "number": n, "state": "open",
            "title": pull.title, "body": "", "user": self.forge.user_json(pull.author),
            "issue_url": f"{root}/repos/{o}/{r}/issues/{n}",
            "comments_url": f"{root}/repos/{o}/{r}/issues/{n}/comments",
            "review_comments_url": f"{root}/repos/{o}/{r}/pulls/{n}/comments",
            "commits_url": f"{root}/repos/{o}/{r}/pulls/{n}/commits",
            "head": {"label": f"{o}:feature", "ref": "feature", "sha": pull.head_sha,
                     "user": self.forge.user_json(o), "repo": repo},
            "base": {"label": f"{o}:main", "ref": "main", "sha": pull.base_sha,
                     "user": self.forge.user_json(o), "repo": repo},
            "merged": False, "draft": False, "created_at": STAMP, "updated_at": STAMP,
        }  # fmt: skip

    def _gh_rc_json(self, c: dict[str, Any]) -> dict[str, Any]:
        root, o, r = self.forge.root, c["owner"], c["repo"]
        return {
            "url": f"{root}/repos/{o}/{r}/pulls/comments/{c['id']}", "id": c["id"],
            "node_id": f"PRRC_{c['id']}", "pull_request_review_id": c["review_id"],
            "diff_hunk": "@@ -1 +1 @@", "path": c["path"], "position": 1,
            "original_position": 1, "commit_id": c["commit_id"],
            "original_commit_id": c["commit_id"], "user": self.forge.user_json(c["login"]),
            "body": c["body"], "created_at": STAMP, "updated_at": STAMP,
            "html_url": f"{root}/{o}/{r}/pull/{c['number']}#discussion_r{c['id']}",
            "pull_request_url": f"{root}/repos/{o}/{r}/pulls/{c['number']}",
            "author_association": "NONE", "start_line": c["start_line"],
            "original_start_line": c["start_line"],
            "start_side": "RIGHT" if c["start_line"] else None, "line": c["line"],
            "original_line": c["line"], "side": "RIGHT", "subject_type": "line",
        }  # fmt: skip

    def gh_user(self, user: _User, **_: Any) -> tuple[int, Any, dict[str, str]]:
        if user.bot:
            raise self._error(403, "Resource not accessible by integration")
        return 200, self.forge.user_json(user.login), {}

    def gh_repo(self, o: str, r: str, **_: Any) -> tuple[int, Any, dict[str, str]]:
        if not any(k[:2] == (o, r) for k in self.forge.pulls):
            raise self._error(404, "Not Found")
        return 200, self._gh_repo_json(o, r), {}

    def gh_pull(self, o: str, r: str, n: str, **_: Any) -> tuple[int, Any, dict[str, str]]:
        return 200, self._gh_pull_json(self._pull(o, r, n)), {}

    def gh_files(
        self, o: str, r: str, n: str, query: dict[str, list[str]], **_: Any
    ) -> tuple[int, Any, dict[str, str]]:
        pull = self._pull(o, r, n)
        items = []
        for f in pull.files:
            item: dict[str, Any] = {
                "sha": "c" * 40, "filename": f.filename, "status": f.status,
                "additions": 1, "deletions": 0, "changes": 1,
                "blob_url": f"{self.forge.root}/{o}/{r}/blob/{pull.head_sha}/{f.filename}",
                "raw_url": f"{self.forge.root}/{o}/{r}/raw/{pull.head_sha}/{f.filename}",
                "contents_url": f"{self.forge.root}/repos/{o}/{r}/contents/{f.filename}",
            }  # fmt: skip
            if f.patch is not None:
                item["patch"] = f.patch
            if f.previous_filename:
                item["previous_filename"] = f.previous_filename
            items.append(item)
        return self._paged(items, query)

    def gh_commit(self, o: str, r: str, sha: str, **_: Any) -> tuple[int, Any, dict[str, str]]:
        known = {p.head_sha for p in self.forge.pulls.values()}
        known |= {p.base_sha for p in self.forge.pulls.values()}
        if sha not in known:
            raise self._error(422, f"No commit found for SHA: {sha}")
        root = self.forge.root
        return 200, {
            "sha": sha, "node_id": "C_1", "url": f"{root}/repos/{o}/{r}/commits/{sha}",
            "html_url": f"{root}/{o}/{r}/commit/{sha}",
            "commit": {"message": "change", "tree": {"sha": "d" * 40},
                       "author": {"name": "a", "email": "a@example.org", "date": STAMP}},
            "parents": [],
        }, {}  # fmt: skip

    def gh_post_review(
        self, o: str, r: str, n: str, body: Any, user: _User, **_: Any
    ) -> tuple[int, Any, dict[str, str]]:
        pull = self._pull(o, r, n)
        if not isinstance(body, dict):
            raise self._error(400, "Problems parsing JSON")
        commit = body.get("commit_id")
        if commit is not None and commit not in (pull.head_sha, pull.base_sha):
            raise self._error(422, "Unprocessable Entity", errors=["commit_id is not in the PR"])
        event = body.get("event")
        comments = body.get("comments") or []
        if event not in (None, "APPROVE", "REQUEST_CHANGES", "COMMENT"):
            raise self._error(422, "Unprocessable Entity", errors=[f"bad event {event!r}"])
        if event == "COMMENT" and not body.get("body") and not comments:
            raise self._error(422, "Unprocessable Entity", errors=["Review body is required"])
        lines = {f.filename: right_lines(f.patch) for f in pull.files if f.status != "removed"}
        for c in comments:
            where = lines.get(c.get("path"), {})
            line, start = c.get("line"), c.get("start_line")
            if c.get("side", "RIGHT") != "RIGHT" or not isinstance(line, int) or line not in where:
                raise self._error(422, "Unprocessable Entity", errors=[GITHUB_422])
            if start is not None and (
                start >= line or where.get(start) != where[line] or c.get("start_side") != "RIGHT"
            ):
                raise self._error(422, "Unprocessable Entity", errors=[GITHUB_422])
        rid = self.forge.next_id()
        state = {"COMMENT": "COMMENTED", "APPROVE": "APPROVED", None: "PENDING"}.get(
            event, "CHANGES_REQUESTED"
        )
        with self.forge.lock:
            self.forge.reviews_db[rid] = {
                "id": rid, "owner": o, "repo": r, "number": int(n), "login": user.login,
                "body": body.get("body") or "", "state": state,
                "commit_id": commit or pull.head_sha,
            }  # fmt: skip
            for c in comments:
                cid = self.forge.next_id()
                self.forge.review_comments_db[cid] = {
                    "id": cid, "review_id": rid, "owner": o, "repo": r, "number": int(n),
                    "login": user.login, "path": c["path"], "line": c["line"],
                    "start_line": c.get("start_line"), "body": c.get("body", ""),
                    "commit_id": commit or pull.head_sha,
                }  # fmt: skip
        root = self.forge.root
        return 200, {
            "id": rid, "node_id": f"PRR_{rid}", "user": self.forge.user_json(user.login),
            "body": body.get("body") or "", "state": state,
            "html_url": f"{root}/{o}/{r}/pull/{n}#pullrequestreview-{rid}",
            "pull_request_url": f"{root}/repos/{o}/{r}/pulls/{n}",
            "submitted_at": STAMP, "commit_id": commit or pull.head_sha,
            "author_association": "NONE",
        }, {}  # fmt: skip

    def gh_review_comments(
        self, o: str, r: str, n: str, query: dict[str, list[str]], **_: Any
    ) -> tuple[int, Any, dict[str, str]]:
        self._pull(o, r, n)
        items = [self._gh_rc_json(c) for c in self.forge.review_comments(o, r, int(n))]
        return self._paged(sorted(items, key=lambda c: c["id"]), query)

    def gh_del_rc(self, o: str, r: str, id: str, user: _User, **_: Any) -> tuple[int, Any, dict]:  # noqa: A002
        with self.forge.lock:
            comment = self.forge.review_comments_db.get(int(id))
            if comment is None or (comment["owner"], comment["repo"]) != (o, r):
                raise self._error(404, "Not Found")
            if comment["login"] != user.login:
                raise self._error(403, "Must have admin rights to Repository.")
            del self.forge.review_comments_db[int(id)]
        return 204, None, {}

    # -- shared issue comments

    def _ic_json(self, c: dict[str, Any]) -> dict[str, Any]:
        root, o, r, n = self.forge.root, c["owner"], c["repo"], c["number"]
        user = self.forge.user_json(c["login"])
        if self.forge.flavor == "forgejo":
            return {
                "id": c["id"], "html_url": f"{root}/{o}/{r}/pulls/{n}#issuecomment-{c['id']}",
                "pull_request_url": f"{root}/{o}/{r}/pulls/{n}", "issue_url": "",
                "user": user, "original_author": "", "original_author_id": 0,
                "body": c["body"], "assets": [], "created_at": STAMP, "updated_at": STAMP,
            }  # fmt: skip
        return {
            "id": c["id"], "node_id": f"IC_{c['id']}",
            "url": f"{root}/repos/{o}/{r}/issues/comments/{c['id']}",
            "html_url": f"{root}/{o}/{r}/pull/{n}#issuecomment-{c['id']}",
            "body": c["body"], "user": user, "created_at": STAMP, "updated_at": STAMP,
            "issue_url": f"{root}/repos/{o}/{r}/issues/{n}", "author_association": "NONE",
        }  # fmt: skip

    def issue_comments(
        self, o: str, r: str, n: str, query: dict[str, list[str]], **_: Any
    ) -> tuple[int, Any, dict[str, str]]:
        self._pull(o, r, n)
        items = self.forge.listed(self.forge.issue_comments_db, o, r, int(n))
        if self.forge.flavor == "forgejo" and self.forge.paged_issue_comments:
            status, page, headers = self._fj_paged(items, query, len(items))
            return status, [self._ic_json(c) for c in page], headers
        if self.forge.flavor == "forgejo":
            return self._fj_all([self._ic_json(c) for c in items])
        return self._paged([self._ic_json(c) for c in items], query)

    def post_ic(
        self, o: str, r: str, n: str, body: Any, user: _User, **_: Any
    ) -> tuple[int, Any, dict[str, str]]:
        self._pull(o, r, n)
        if not isinstance(body, dict) or not isinstance(body.get("body"), str):
            raise self._error(422, "Invalid request", errors=["body is required"])
        cid = self.forge.add_issue_comment(o, r, int(n), user.login, body["body"])
        return 201, self._ic_json(self.forge.issue_comments_db[cid]), {}

    def patch_ic(
        self,
        o: str,
        r: str,
        id: str,
        body: Any,
        user: _User,
        **_: Any,  # noqa: A002
    ) -> tuple[int, Any, dict[str, str]]:
        with self.forge.lock:
            comment = self.forge.issue_comments_db.get(int(id))
            if comment is None or (comment["owner"], comment["repo"]) != (o, r):
                raise self._error(404, "Not Found")
            if comment["login"] != user.login:
                raise self._error(403, "Forbidden")
            comment["body"] = body.get("body", "") if isinstance(body, dict) else ""
            return 200, self._ic_json(comment), {}

    def delete_ic(
        self,
        o: str,
        r: str,
        id: str,
        user: _User,
        **_: Any,  # noqa: A002
    ) -> tuple[int, Any, dict[str, str]]:
        with self.forge.lock:
            if self.forge.flavor == "forgejo" and int(id) in self.forge.review_comments_db:
                return 204, None, {}  # Forgejo: a code comment is not deleted here, yet 204
            comment = self.forge.issue_comments_db.get(int(id))
            if comment is None or (comment["owner"], comment["repo"]) != (o, r):
                raise self._error(404, "Not Found")
            if comment["login"] != user.login:
                raise self._error(403, "Forbidden")
            del self.forge.issue_comments_db[int(id)]
        return 204, None, {}

    # -- Forgejo shapes

    def _fj_review_json(self, rv: dict[str, Any]) -> dict[str, Any]:
        root, o, r, n = self.forge.root, rv["owner"], rv["repo"], rv["number"]
        count = sum(1 for c in self.forge.review_comments_db.values() if c["review_id"] == rv["id"])
        return {
            "id": rv["id"], "user": self.forge.user_json(rv["login"]), "team": None,
            "state": rv["state"], "body": rv["body"], "commit_id": rv["commit_id"],
            "stale": False, "official": False, "dismissed": False, "comments_count": count,
            "submitted_at": STAMP, "updated_at": STAMP,
            "html_url": f"{root}/{o}/{r}/pulls/{n}#issuecomment-{rv['id']}",
            "pull_request_url": f"{root}/{o}/{r}/pulls/{n}",
        }  # fmt: skip

    def fj_user(self, user: _User, **_: Any) -> tuple[int, Any, dict[str, str]]:
        if user.bot:
            raise self._error(403, "token does not have required scope")
        return 200, self.forge.user_json(user.login), {}

    def fj_pull(self, o: str, r: str, n: str, **_: Any) -> tuple[int, Any, dict[str, str]]:
        pull = self._pull(o, r, n)
        root = self.forge.root
        repo = {"id": 4242, "name": r, "full_name": f"{o}/{r}", "owner": self.forge.user_json(o)}
        return 200, {
            "id": 9000 + pull.number, "url": f"{root}/{o}/{r}/pulls/{n}", "number": pull.number,
            "user": self.forge.user_json(pull.author), "title": pull.title, "body": "",
            "state": "open", "html_url": f"{root}/{o}/{r}/pulls/{n}",
            "diff_url": f"{root}/{o}/{r}/pulls/{n}.diff",
            "head": {"label": "feature", "ref": "feature", "sha": pull.head_sha,
                     "repo_id": 4242, "repo": repo},
            "base": {"label": "main", "ref": "main", "sha": pull.base_sha,
                     "repo_id": 4242, "repo": repo},
            "merge_base": pull.base_sha, "created_at": STAMP, "updated_at": STAMP,
        }, {}  # fmt: skip

    def fj_diff(self, o: str, r: str, n: str, **_: Any) -> tuple[int, Any, dict[str, str]]:
        return 200, self.forge.full_diff(self._pull(o, r, n)), {}

    def fj_reviews(
        self, o: str, r: str, n: str, query: dict[str, list[str]], user: _User, **_: Any
    ) -> tuple[int, Any, dict[str, str]]:
        self._pull(o, r, n)
        every = self.forge.listed(self.forge.reviews_db, o, r, int(n))
        _, page, headers = self._fj_paged(every, query, len(every))  # CountReviews: all
        shown = [rv for rv in page if rv["state"] != "PENDING" or rv["login"] == user.login]
        return 200, [self._fj_review_json(rv) for rv in shown], headers

    def fj_post_review(
        self, o: str, r: str, n: str, body: Any, user: _User, **_: Any
    ) -> tuple[int, Any, dict[str, str]]:
        """Forgejo's CreatePullReview: each comment goes into the user's pending review
        (CreateCodeComment, one by one), then SubmitReview turns that review into the
        requested one, leftovers of earlier failed calls included."""
        pull = self._pull(o, r, n)
        if not isinstance(body, dict):
            raise self._error(422, "invalid JSON")
        event = body.get("event") or ""
        comments = body.get("comments") or []
        states = {"COMMENT": "COMMENT", "APPROVED": "APPROVED"}
        states["REQUEST_CHANGES"] = "REQUEST_CHANGES"
        if event == "COMMENT" and not str(body.get("body") or "").strip() and not comments:
            raise self._error(422, f"review event {event} requires a body or a comment")
        commit = body.get("commit_id") or pull.head_sha
        lengths = {f.filename: f.lines for f in pull.files}
        with self.forge.lock:
            for c in comments:
                line = int(c.get("new_position") or 0)
                rid = self._fj_pending(o, r, int(n), user.login, commit)  # made before the line
                length = lengths.get(c.get("path"))
                if length is not None and line > length:
                    # LineBlame fails; APIErrorInternal hides the message in production
                    raise _Reply(500, {"message": "", "url": self.forge.root + FORGEJO_SWAGGER})
                cid = self.forge.next_id()
                self.forge.review_comments_db[cid] = {  # Forgejo accepts lines outside the diff
                    "id": cid, "review_id": rid, "owner": o, "repo": r, "number": int(n),
                    "login": user.login, "path": c.get("path"), "line": line,
                    "start_line": None, "old_line": int(c.get("old_position") or 0),
                    "body": c.get("body", ""), "commit_id": commit,
                }  # fmt: skip
            rid = self._fj_pending(o, r, int(n), user.login, commit)
            review = self.forge.reviews_db[rid]
            review.update(body=body.get("body") or "", state=states.get(event, "PENDING"))
            review["commit_id"] = commit
            return 200, self._fj_review_json(review), {}

    def _fj_pending(self, o: str, r: str, n: int, login: str, commit: str) -> int:
        """The user's pending review on the pull request (GetCurrentReview), made if absent."""
        for rv in self.forge.reviews_db.values():
            if (rv["owner"], rv["repo"], rv["number"], rv["login"]) == (o, r, n, login) and (
                rv["state"] == "PENDING"
            ):
                return int(rv["id"])
        rid = self.forge.next_id()
        self.forge.reviews_db[rid] = {
            "id": rid, "owner": o, "repo": r, "number": n, "login": login, "body": "",
            "state": "PENDING", "commit_id": commit,
        }  # fmt: skip
        return rid

    def fj_review_comments(
        self,
        o: str,
        r: str,
        n: str,
        id: str,  # noqa: A002
        user: _User,
        **_: Any,
    ) -> tuple[int, Any, dict[str, str]]:
        self._pull(o, r, n)
        rv = self.forge.reviews_db.get(int(id))
        if rv is None or (rv["owner"], rv["repo"], rv["number"]) != (o, r, int(n)):
            raise self._error(404, "Not Found")
        if rv["state"] == "PENDING" and rv["login"] != user.login:
            raise self._error(404, "Not Found")
        root = self.forge.root
        out = []
        for c in sorted(self.forge.review_comments_db.values(), key=lambda c: c["id"]):
            if c["review_id"] != rv["id"]:
                continue
            out.append({
                "id": c["id"], "body": c["body"], "user": self.forge.user_json(c["login"]),
                "resolver": None, "pull_request_review_id": rv["id"],
                "created_at": STAMP, "updated_at": STAMP, "path": c["path"],
                "commit_id": c["commit_id"], "original_commit_id": c["commit_id"],
                "diff_hunk": "@@ -1 +1 @@", "position": c["line"],
                "original_position": c.get("old_line", 0),
                "html_url": f"{root}/{o}/{r}/pulls/{n}#issuecomment-{c['id']}",
                "pull_request_url": f"{root}/{o}/{r}/pulls/{n}",
            })  # fmt: skip
        return 200, out, {}

    def fj_delete_review(
        self,
        o: str,
        r: str,
        n: str,
        id: str,
        user: _User,
        **_: Any,  # noqa: A002
    ) -> tuple[int, Any, dict[str, str]]:
        with self.forge.lock:
            rv = self.forge.reviews_db.get(int(id))
            if rv is None or (rv["owner"], rv["repo"], rv["number"]) != (o, r, int(n)):
                raise self._error(404, "Not Found")
            if rv["login"] != user.login:
                raise self._error(403, "Forbidden")
            del self.forge.reviews_db[int(id)]
            for cid in [c["id"] for c in self.forge.review_comments_db.values()]:
                if self.forge.review_comments_db[cid]["review_id"] == int(id):
                    del self.forge.review_comments_db[cid]
        return 204, None, {}


# -- CI environment helpers (for end-to-end runs of `reviewbot review`) ---------------------


def write_event(
    path: str | Path, pull: FakePull, *, action: str = "synchronize", flavor: str = "github"
) -> Path:
    """A ``pull_request`` event file as GitHub (or Forgejo) Actions writes it."""
    target = Path(path)
    event = {
        "action": action,
        "number": pull.number,
        "pull_request": {
            "number": pull.number,
            "title": pull.title,
            "head": {"sha": pull.head_sha, "ref": "feature"},
            "base": {"sha": pull.base_sha, "ref": "main"},
        },
        "repository": {"full_name": f"{pull.owner}/{pull.repo}", "name": pull.repo},
    }
    target.write_text(json.dumps(event), encoding="utf-8")
    return target


def ci_env(
    forge: FakeForge, pull: FakePull, event_path: str | Path, *, fast: bool = True
) -> dict[str, str]:
    """The environment variables a runner sets for a pull_request job against ``forge``.

    ``fast`` (for subprocess runs, where no fake clock can be injected) makes every request
    a single attempt and drops the pause between writes, so nothing really sleeps.
    """
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": f"{pull.owner}/{pull.repo}",
        "GITHUB_SHA": pull.head_sha,
        "GITHUB_BASE_REF": "main",
        "GITHUB_HEAD_REF": "feature",
    }
    if forge.flavor == "github":
        env.update({"GITHUB_API_URL": forge.api_url, "GITHUB_TOKEN": forge.token})
    else:
        env.update({
            "FORGEJO_ACTIONS": "true",
            "GITHUB_SERVER_URL": forge.root,
            "FORGEJO_SERVER_URL": forge.root,
            "FORGEJO_TOKEN": forge.token,
            "GITHUB_TOKEN": forge.token,
        })  # fmt: skip
    if fast:
        env.update({"REVIEWBOT_FORGE_ATTEMPTS": "1", "REVIEWBOT_FORGE_WRITE_INTERVAL": "0"})
    return env
