"""The publisher for a platform, built from the environment: API URL, token, retry policy."""

from __future__ import annotations

import re
from collections.abc import Mapping

from reviewbot.forge.base import Forge, ForgeError
from reviewbot.forge.ci import PLATFORMS, first_set
from reviewbot.forge.preview import NullForge
from reviewbot.forge.retry import Clock, RetryPolicy


def _api_url(platform: str, env: Mapping[str, str]) -> str:
    if platform == "github":
        url = env.get("GITHUB_API_URL") or "https://api.github.com"
    else:
        server = first_set(env, "FORGEJO_SERVER_URL", "GITEA_SERVER_URL", "GITHUB_SERVER_URL")
        url = first_set(env, "FORGEJO_API_URL") or (
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

    token = first_set(env, "FORGEJO_TOKEN", "GITHUB_TOKEN") or ""
    if not token:
        raise ForgeError("no Forgejo token: set FORGEJO_TOKEN")
    return ForgejoForge(url, token, clock=clock, policy=policy, bot_login=login)
