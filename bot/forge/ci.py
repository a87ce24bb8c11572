"""The CI run: which forge it runs under and which pull request it is about.

``detect_platform`` reads the CI environment, ``pr_from_event`` the event file (with the
environment: the repository, ``REVIEWBOT_PR_NUMBER``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reviewbot.errors import ReviewbotError
from reviewbot.forge.base import ForgeError, PullRequestRef
from reviewbot.sources.event import SHA, CiEvent, read_event

PLATFORMS = ("github", "forgejo", "none")
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")


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


def first_set(env: Mapping[str, str], *names: str) -> str | None:
    """The value of the first of ``names`` set (non-empty) in ``env``."""
    for name in names:
        value = env.get(name)
        if value:
            return value
    return None


def _load_event(
    platform: str, env: Mapping[str, str], event: CiEvent | None
) -> dict[str, Any]:
    """The platform's event file as a JSON object: ``event`` when it is that file (read
    already by the caller), else read here."""
    names: tuple[str, ...] = ("GITHUB_EVENT_PATH",)
    if platform == "forgejo":
        names = ("FORGEJO_EVENT_PATH", "GITHUB_EVENT_PATH")
    path = first_set(env, *names)
    if path is None:
        raise ForgeError(f"no event file: {' or '.join(names)} is not set")
    if event is None or event.path != path:
        try:
            event = read_event(path)
        except ReviewbotError as exc:
            raise ForgeError(exc.message) from None
    if not isinstance(event.data, dict):
        raise ForgeError(f"the CI event file {path} is not a JSON object")
    return event.data


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise ForgeError(f"{what} is not a pull request number: {value!r}")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or value <= 0:
        raise ForgeError(f"{what} is not a pull request number: {str(value)[:40]!r}")
    return value


def pr_from_event(
    platform: str, env: Mapping[str, str], event: CiEvent | None = None
) -> PullRequestRef:
    """The pull request a CI run is about, from its event file and environment.

    ``pull_request``/``pull_request_target`` events carry it directly. For ``workflow_run``
    (the privileged half of the fork-safe pattern) the head sha is the triggering run's and
    the number comes from ``workflow_run.pull_requests`` or, for fork PRs where GitHub
    leaves that empty, from ``REVIEWBOT_PR_NUMBER`` (validated as an integer).

    ``event`` is the event file as the caller read it (:func:`reviewbot.sources.event.ci_event`);
    the file is read here only when no event is given or the platform names another file.
    """
    data = _load_event(platform, env, event)
    pull = data.get("pull_request")
    run = data.get("workflow_run")
    if isinstance(pull, dict):
        number = _int(pull.get("number", data.get("number")), "pull_request.number")
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
                "REVIEWBOT_PR_NUMBER (see docs/ci.md, fork pull requests)"
            )
    else:
        name = first_set(env, "FORGEJO_EVENT_NAME", "GITHUB_EVENT_NAME") or "this"
        raise ForgeError(f"the {name} event is not about a pull request")
    if not isinstance(head, str) or not SHA.match(head):
        raise ForgeError("the event has no valid head commit sha")
    full = first_set(env, "FORGEJO_REPOSITORY", "GITHUB_REPOSITORY")
    if full is None:
        repository = data.get("repository")
        full = repository.get("full_name") if isinstance(repository, dict) else None
    if not isinstance(full, str) or full.count("/") != 1:
        raise ForgeError("cannot tell the repository: GITHUB_REPOSITORY is not owner/name")
    owner, repo = full.split("/")
    if not _NAME.match(owner) or not _NAME.match(repo) or {owner, repo} & {".", ".."}:
        raise ForgeError(f"invalid repository name {full[:200]!r}")
    return PullRequestRef(owner, repo, number, head)
