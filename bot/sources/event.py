"""The CI event, read once a run: the base and head commits a pull request's run is about.

The event file is JSON that GitHub Actions (``GITHUB_EVENT_PATH``) or Forgejo Actions
(``FORGEJO_EVENT_PATH``) writes; it is read bounded, and every sha in it is checked to be one.
:func:`read_event` is the one reader: the review command reads the file once and hands the
:class:`CiEvent` to whoever needs it (the refs here, the pull request in ``forge/ci.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reviewbot.errors import ReviewbotError

MAX_EVENT_BYTES = 25 * 1024 * 1024  # a CI event file is kilobytes; a larger one is not read
SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")  # a commit sha (SHA-1 or SHA-256)


@dataclass(frozen=True)
class CiEvent:
    """An event file as read: where it is and its JSON (any JSON value: each reader checks
    the shape it needs)."""

    path: str
    data: Any


def read_event(path: str) -> CiEvent:
    """The event file at ``path``, read bounded and parsed."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_EVENT_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ReviewbotError(f"cannot read the CI event file {path}: {reason}") from None
    if len(raw) > MAX_EVENT_BYTES:
        raise ReviewbotError(f"the CI event file {path} is too large (over "
                             f"{MAX_EVENT_BYTES // (1024 * 1024)} MiB): not read")
    try:
        return CiEvent(path, json.loads(raw))
    except ValueError as exc:  # UnicodeDecodeError included
        raise ReviewbotError(f"the CI event file {path} is not JSON: {exc}") from None


def ci_event(env: Mapping[str, str]) -> CiEvent | None:
    """The run's event file (``FORGEJO_EVENT_PATH``, else ``GITHUB_EVENT_PATH``), read; None
    when neither is set."""
    path = env.get("FORGEJO_EVENT_PATH") or env.get("GITHUB_EVENT_PATH")
    return read_event(path) if path else None


def event_refs(event: CiEvent | None) -> tuple[str | None, str | None]:
    """Base and head shas of the CI event, when there is one.

    ``pull_request``/``pull_request_target``: ``pull_request.base.sha`` and ``head.sha``;
    ``workflow_run`` (the privileged half of the fork-safe pattern): ``head_sha`` and the
    linked pull request's base, when GitHub lists it (not for forks: pass ``--base``).
    """
    if event is None or not isinstance(event.data, dict):
        return None, None
    pull, run = event.data.get("pull_request"), event.data.get("workflow_run")
    if isinstance(pull, dict):
        base = _sha(pull, "base", "pull_request.base.sha")
        return base, _sha(pull, "head", "pull_request.head.sha")
    if isinstance(run, dict):
        head = _check_sha(run.get("head_sha"), "workflow_run.head_sha")
        linked = [p for p in run.get("pull_requests") or () if isinstance(p, dict)]
        base = _sha(linked[0], "base", "workflow_run.pull_requests[0].base.sha") if linked else None
        return base, head
    return None, None


def _sha(block: Mapping[str, Any], side: str, what: str) -> str | None:
    inner = block.get(side)
    return _check_sha(inner.get("sha") if isinstance(inner, dict) else None, what)


def _check_sha(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not SHA.match(value):
        raise ReviewbotError(f"the CI event's {what} is not a commit sha")
    return value
