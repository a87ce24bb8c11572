"""Links in a review comment: a finding's line in the head commit, a rule's documentation.

The repository's web address comes from the CI environment (``GITHUB_SERVER_URL`` and
``GITHUB_REPOSITORY``, which Forgejo Actions sets as well) or ``--link-base URL``; the
platform decides the path shape: GitHub's ``/blob/<sha>/<path>#L<n>``, Forgejo's
``/src/commit/<sha>/<path>#L<n>``. Without an address or a head commit there are no links
(never a broken one). The rules' documentation is ``docs/rules.md`` of the reviewbot the
action runs (``GITHUB_ACTION_REPOSITORY`` at ``GITHUB_ACTION_REF``), or
``REVIEWBOT_DOCS_URL``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from reviewbot.engine.outcome import Links

_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REPO = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9_.~%/-]*)?")
_REF = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_./-]{0,200}")


def _web(server: str | None, repository: str | None) -> str | None:
    if not server or not repository or not _REPO.fullmatch(repository):
        return None
    server = server.rstrip("/")
    return f"{server}/{repository}" if _URL.fullmatch(server) else None


def links_from_env(env: Mapping[str, str], platform: str, head: str | None,
                   link_base: str | None = None) -> Links | None:
    """The links of a review of ``head``, or None when there is no address or no commit."""
    if head is None or not _SHA.fullmatch(head):
        return None
    server = env.get("GITHUB_SERVER_URL") or env.get("FORGEJO_SERVER_URL")
    if link_base:
        base = link_base.rstrip("/")
        if not _URL.fullmatch(base):
            return None
    else:
        found = _web(server, env.get("GITHUB_REPOSITORY") or env.get("FORGEJO_REPOSITORY"))
        if found is None:
            return None
        base = found
    shape = "forgejo" if platform == "forgejo" else "github"
    return Links(base, head, shape, _docs(env, server, shape))


def _docs(env: Mapping[str, str], server: str | None, shape: str) -> str | None:
    explicit = env.get("REVIEWBOT_DOCS_URL", "").rstrip("/")
    if explicit:
        return explicit if _URL.fullmatch(explicit) else None
    action = _web(server, env.get("GITHUB_ACTION_REPOSITORY"))
    ref = env.get("GITHUB_ACTION_REF", "")
    if action is None or not _REF.fullmatch(ref) or ".." in ref:
        return None
    if shape == "forgejo":
        return f"{action}/src/{'commit' if _SHA.fullmatch(ref) else 'tag'}/{ref}/docs/rules.md"
    return f"{action}/blob/{ref}/docs/rules.md"
