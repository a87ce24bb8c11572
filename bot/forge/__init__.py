"""Forges: where a review is published (GitHub, Forgejo/Gitea) and how the CI says which.

``detect_platform`` reads the CI environment, ``pr_from_event`` the event file, and
``make_forge`` builds the publisher; tokens come from the environment only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reviewbot.forge.base import (
    MODES,
    Forge,
    ForgeError,
    InlineComment,
    PublishResult,
    PullRequestRef,
    ReviewPayload,
)
from reviewbot.forge.diffmap import DiffMap, parse_git_diff
from reviewbot.forge.reconcile import inline_body, plan_inline, render_summary
from reviewbot.forge.retry import Clock, RetryPolicy

__all__ = [
    "MODES",
    "Forge",
    "ForgeError",
    "InlineComment",
    "NullForge",
    "PublishResult",
    "PullRequestRef",
    "ReviewPayload",
    "RetryPolicy",
    "detect_platform",
    "make_forge",
    "policy_from_env",
    "pr_from_event",
    "parse_git_diff",
    "preview",
]

PLATFORMS = ("github", "forgejo", "none")
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")
_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
_MAX_EVENT_BYTES = 25 * 1024 * 1024


def _truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in ("", "0", "false", "no")


def detect_platform(env: Mapping[str, str]) -> str:
    """``forgejo`` under Forgejo/Gitea Actions, ``github`` under GitHub Actions, else ``none``.

    Forgejo is tested first: its runner also sets ``GITHUB_ACTIONS`` for compatibility.
    """
    if _truthy(env.get("FORGEJO_ACTIONS")) or _truthy(env.get("GITEA_ACTIONS")):
        return "forgejo"
    if _truthy(env.get("GITHUB_ACTIONS")):
        return "github"
    return "none"


def _first(env: Mapping[str, str], *names: str) -> str | None:
    for name in names:
        value = env.get(name)
        if value:
            return value
    return None


def _load_event(platform: str, env: Mapping[str, str]) -> dict[str, Any]:
    names: tuple[str, ...] = ("GITHUB_EVENT_PATH",)
    if platform == "forgejo":
        names = ("FORGEJO_EVENT_PATH", "GITHUB_EVENT_PATH")
    path = _first(env, *names)
    if path is None:
        raise ForgeError(f"no event file: {' or '.join(names)} is not set")
    try:
        raw = Path(path).read_bytes()[: _MAX_EVENT_BYTES + 1]
    except OSError as exc:
        raise ForgeError(f"cannot read the event file {path}: {exc.strerror}") from None
    if len(raw) > _MAX_EVENT_BYTES:
        raise ForgeError(f"the event file {path} is larger than {_MAX_EVENT_BYTES} bytes")
    try:
        event = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ForgeError(f"the event file {path} is not JSON: {exc}") from None
    if not isinstance(event, dict):
        raise ForgeError(f"the event file {path} is not a JSON object")
    return event


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise ForgeError(f"{what} is not a pull request number: {value!r}")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or value <= 0:
        raise ForgeError(f"{what} is not a pull request number: {str(value)[:40]!r}")
    return value


def pr_from_event(platform: str, env: Mapping[str, str]) -> PullRequestRef:
    """The pull request a CI run is about, from its event file and environment.

    ``pull_request``/``pull_request_target`` events carry it directly. For ``workflow_run``
    (the privileged half of the fork-safe pattern) the head sha is the triggering run's and
    the number comes from ``workflow_run.pull_requests`` or, for fork PRs where GitHub
    leaves that empty, from ``REVIEWBOT_PR_NUMBER`` (validated as an integer).
    """
    event = _load_event(platform, env)
    pull = event.get("pull_request")
    run = event.get("workflow_run")
    if isinstance(pull, dict):
        number = _int(pull.get("number", event.get("number")), "pull_request.number")
        head = (pull.get("head") or {}).get("sha") if isinstance(pull.get("head"), dict) else None
    elif isinstance(run, dict):
        head = run.get("head_sha")
        linked = [p for p in run.get("pull_requests") or [] if isinstance(p, dict)]
        matching = [p for p in linked if (p.get("head") or {}).get("sha") == head] or linked
        if matching:
            number = _int(matching[0].get("number"), "workflow_run.pull_requests[0].number")
        elif env.get("REVIEWBOT_PR_NUMBER"):
            number = _int(env.get("REVIEWBOT_PR_NUMBER"), "REVIEWBOT_PR_NUMBER")
        else:
            raise ForgeError(
                "workflow_run event without a pull request: pass the number as "
                "REVIEWBOT_PR_NUMBER (see the README, fork pull requests)"
            )
    else:
        name = _first(env, "FORGEJO_EVENT_NAME", "GITHUB_EVENT_NAME") or "this"
        raise ForgeError(f"the {name} event is not about a pull request")
    if not isinstance(head, str) or not _SHA.match(head):
        raise ForgeError("the event has no valid head commit sha")
    full = _first(env, "FORGEJO_REPOSITORY", "GITHUB_REPOSITORY")
    if full is None:
        repository = event.get("repository")
        full = repository.get("full_name") if isinstance(repository, dict) else None
    if not isinstance(full, str) or full.count("/") != 1:
        raise ForgeError("cannot tell the repository: GITHUB_REPOSITORY is not owner/name")
    owner, repo = full.split("/")
    if not _NAME.match(owner) or not _NAME.match(repo) or {owner, repo} & {".", ".."}:
        raise ForgeError(f"invalid repository name {full[:200]!r}")
    return PullRequestRef(owner, repo, number, head)


class NullForge:
    """``--platform none``: posts nothing; :func:`preview` renders what would be posted."""

    def publish(self, pr: PullRequestRef, payload: ReviewPayload) -> PublishResult:
        return PublishResult(False, 0, 0, 0, "platform 'none': nothing posted")


def preview(payload: ReviewPayload, diff: DiffMap | None, *, max_inline: int = 50) -> str:
    """What publishing would post, split as a forge splits it: the summary comment (with
    the candidates that fold into it) and the inline comments on the diff's lines.

    ``diff`` is the pull request's diff as git makes it locally (None: unknown, so every
    candidate folds, as on a forge whose diff cannot be read). Each finding appears once:
    inline or under "Not shown inline", besides the summary's own tables.
    """
    if payload.mode == "none":
        return "comment mode 'none': nothing would be posted\n"
    plan = plan_inline(payload, [], diff, max_inline=max_inline)
    parts = [render_summary(payload.summary_markdown, plan.folded).rstrip() + "\n"]
    if plan.post:
        parts.append(f"\n--- {len(plan.post)} inline comment(s) in one review ---\n")
        for comment in plan.post:
            where = f"{comment.path}:{comment.line}"
            if comment.start_line is not None:
                where = f"{comment.path}:{comment.start_line}-{comment.line}"
            parts.append(f"\n{where}\n{inline_body(comment).rstrip()}\n")
    return "".join(parts)


def _api_url(platform: str, env: Mapping[str, str]) -> str:
    if platform == "github":
        url = env.get("GITHUB_API_URL") or "https://api.github.com"
    else:
        server = _first(env, "FORGEJO_SERVER_URL", "GITEA_SERVER_URL", "GITHUB_SERVER_URL")
        url = _first(env, "FORGEJO_API_URL") or (
            server.rstrip("/") + "/api/v1" if server else env.get("GITHUB_API_URL") or ""
        )
        if not url:
            raise ForgeError("no Forgejo API URL: set FORGEJO_API_URL or FORGEJO_SERVER_URL")
    if not re.match(r"^https?://[^/\s]+", url):
        raise ForgeError(f"the API URL is not http(s): {url[:200]!r}")
    return url.rstrip("/")


def _number(env: Mapping[str, str], name: str, low: float, high: float) -> float | None:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ForgeError(f"{name} is not a number: {raw[:40]!r}") from None
    if not low <= value <= high:
        raise ForgeError(f"{name} must lie between {low:g} and {high:g}")
    return value


def policy_from_env(env: Mapping[str, str]) -> RetryPolicy:
    """The retry policy, tunable by ``REVIEWBOT_FORGE_DEADLINE`` (seconds for a whole
    publish), ``REVIEWBOT_FORGE_ATTEMPTS`` (tries per request) and
    ``REVIEWBOT_FORGE_WRITE_INTERVAL`` (seconds between two writes)."""
    default = RetryPolicy()
    deadline = _number(env, "REVIEWBOT_FORGE_DEADLINE", 1, 3600)
    attempts = _number(env, "REVIEWBOT_FORGE_ATTEMPTS", 1, 20)
    interval = _number(env, "REVIEWBOT_FORGE_WRITE_INTERVAL", 0, 60)
    return RetryPolicy(
        max_attempts=int(attempts) if attempts is not None else default.max_attempts,
        base_delay=default.base_delay,
        max_delay=default.max_delay,
        deadline=deadline if deadline is not None else default.deadline,
        write_interval=interval if interval is not None else default.write_interval,
    )


def make_forge(
    platform: str,
    env: Mapping[str, str],
    *,
    clock: Clock | None = None,
    policy: RetryPolicy | None = None,
) -> Forge:
    """The publisher for ``platform``; the token is read from ``env`` and nowhere else.

    ``REVIEWBOT_BOT_LOGIN`` names the account the token writes as when the forge will not
    say (``GET /user`` is refused to Actions tokens, App tokens and Forgejo tokens without
    ``read:user``); without it the forge learns it from its own summary comment (see
    :mod:`reviewbot.forge.reconcile`). Without ``policy`` the retry policy comes from
    :func:`policy_from_env`.
    """
    if platform == "none":
        return NullForge()
    if platform not in PLATFORMS:
        raise ForgeError(f"unknown platform {platform!r} (expected {', '.join(PLATFORMS)})")
    url = _api_url(platform, env)
    login = env.get("REVIEWBOT_BOT_LOGIN") or None
    if policy is None:
        policy = policy_from_env(env)
    if platform == "github":
        from reviewbot.forge.github import GitHubForge

        token = env.get("GITHUB_TOKEN") or ""
        if not token:
            raise ForgeError("no GitHub token: set GITHUB_TOKEN")
        return GitHubForge(url, token, clock=clock, policy=policy, bot_login=login)
    from reviewbot.forge.forgejo import ForgejoForge

    token = _first(env, "FORGEJO_TOKEN", "GITHUB_TOKEN") or ""
    if not token:
        raise ForgeError("no Forgejo token: set FORGEJO_TOKEN")
    return ForgejoForge(url, token, clock=clock, policy=policy, bot_login=login)
