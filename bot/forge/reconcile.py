"""What to post, keep, fold and delete: the forge-independent half of publishing.

Every comment the bot writes carries a hidden HTML marker: the summary starts with
:data:`SUMMARY_MARKER`, an inline comment ends with ``<!-- reviewbot:fp:<fingerprint> -->``.
A re-run compares the payload's fingerprints with the token user's marked comments: what
is there stays, what is missing is posted, what is gone (or doubled) is deleted.

Who "the token user" is: the forge's ``GET /user`` when it answers (Actions tokens and
Forgejo tokens without ``read:user`` are refused), else ``REVIEWBOT_BOT_LOGIN``, else the
author of the oldest summary comment (:func:`infer_login`), else the author the forge
reports for the summary this run writes first. Markers count only in comments by that
account, so a marker planted by anyone else (a fork's workflow, the PR's author) is text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from reviewbot.escape import md_code
from reviewbot.forge.base import InlineComment, ReviewPayload
from reviewbot.forge.diffmap import DiffMap
from reviewbot.sources.tree import shown_path

SUMMARY_MARKER = "<!-- reviewbot:summary -->"
REVIEW_MARKER = "<!-- reviewbot:review -->"
MAX_BODY = 65_000  # GitHub rejects comment bodies over 65,536 characters
MAX_SUMMARY = 60_000  # the caller's summary is cut here; folded findings use the rest
_FP_SAFE = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
_FP_MARKER = re.compile(r"<!-- reviewbot:fp:([A-Za-z0-9._-]{1,128}) -->")


def safe_fingerprint(fingerprint: str) -> str:
    """The fingerprint as embedded: itself when marker-safe, else a stable hash of it."""
    if _FP_SAFE.match(fingerprint):
        return fingerprint
    return hashlib.sha256(fingerprint.encode("utf-8")).hexdigest()[:40]


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 40)].rstrip() + "\n\n*(truncated)*"


def inline_body(comment: InlineComment) -> str:
    marker = f"<!-- reviewbot:fp:{safe_fingerprint(comment.fingerprint)} -->"
    return f"{_clip(comment.body.rstrip(), MAX_SUMMARY)}\n\n{marker}"


def fingerprint_of(body: str | None) -> str | None:
    """The fingerprint the bot embedded in a comment body (the last marker), if any."""
    if not body:
        return None
    found = _FP_MARKER.findall(body)
    return found[-1] if found else None


def is_summary(body: str | None) -> bool:
    return bool(body) and str(body).lstrip().startswith(SUMMARY_MARKER)


def _where(comment: InlineComment) -> str:
    path = md_code(shown_path(comment.path), False)  # from the repository: escaped
    if comment.start_line is not None and comment.start_line < comment.line:
        return f"{path} lines {comment.start_line}-{comment.line}"
    return f"{path} line {comment.line}"


def _what(comment: InlineComment) -> str:
    """What the comment is about, from its body's first line: ``**error**
    `change-safety[deleted-data]``` (its message left to the summary above), or "5 findings
    of `change-safety` at this line (1 error, 4 infos)" (new-user trial sixty-nine W3: the
    places alone, to match back to findings by hand)."""
    first = comment.body.strip().splitlines()[0] if comment.body.strip() else ""
    if first.startswith("**"):
        label, _, _ = first.partition("`: ")
        return label + "`" if label != first else ""
    return first.rstrip(":") if " at this line " in first else ""


def _indent(text: str) -> str:
    return "\n".join(("  " + line) if line.strip() else "" for line in text.strip().splitlines())


def render_summary(summary_markdown: str, folded: Sequence[InlineComment], note: str = "") -> str:
    """The summary comment: marker, the caller's markdown, then where the findings that could
    not be placed inline are (pointers, not a second copy: the summary lists every finding
    with its message and fix already)."""
    head = f"{SUMMARY_MARKER}\n{_clip(summary_markdown.strip(), MAX_SUMMARY)}\n"
    if not folded:
        return head
    # before the footer line, which ends the comment (new-user trial sixty-nine W3)
    body, footer = head, ""
    cut = head.rfind("\n<sub>")
    if cut > 0 and head.rstrip().endswith("</sub>"):
        body, footer = head[:cut + 1], head[cut:]
    places = list(dict.fromkeys(
        _where(comment) + (f": {what}" if (what := _what(comment)) else "")
        for comment in folded))
    counted = (f"{len(folded)}" if len(places) == len(folded) else
               f"{len(folded)} at {len(places)} places")  # (two findings at one line:
    # new-user trial twelve read "(7)" above six lines)
    parts = [body, f"\n### Not shown inline ({counted})\n"]
    if note:
        parts.append(f"\n{note.strip()}\n")
    parts.append("\nThese findings are listed above; their lines are not part of this pull "
                 "request's diff, so they have no inline comment:\n\n")
    size = sum(len(p) for p in parts) + len(footer)
    for index, place in enumerate(places):
        entry = f"- {place}\n"
        if size + len(entry) > MAX_BODY - 200:
            parts.append(f"- ... and {len(places) - index} more places\n")
            break
        parts.append(entry)
        size += len(entry)
    if footer:
        parts.append(footer)
    return "".join(parts)


@dataclass(frozen=True)
class ExistingComment:
    """One of the token user's marked inline comments already on the pull request."""

    id: int
    fingerprint: str
    group: int | None = None  # the review holding it (Forgejo deletes whole reviews)


@dataclass(frozen=True)
class Plan:
    """What to post, fold into the summary and delete, given the comments already there."""

    post: tuple[InlineComment, ...]  # new inline comments, fingerprints made marker-safe
    folded: tuple[InlineComment, ...]  # candidates that go into the summary
    present: int  # candidates already commented inline by an earlier run
    stale: tuple[int, ...]  # ids of own comments whose finding is gone, or duplicates


def _unique(comments: Iterable[InlineComment]) -> list[InlineComment]:
    seen: set[str] = set()
    out: list[InlineComment] = []
    for comment in comments:
        fp = safe_fingerprint(comment.fingerprint)
        if fp in seen:
            continue
        seen.add(fp)
        out.append(replace(comment, fingerprint=fp))
    return out


def plan_inline(
    payload: ReviewPayload,
    existing: Sequence[ExistingComment],
    diff: DiffMap | None,
    *,
    max_inline: int = 50,
) -> Plan:
    """Decide per candidate: already there, post inline, or fold into the summary.

    ``diff`` None means inline placement is impossible (everything folds). In ``summary``
    mode every candidate folds; existing inline comments whose finding remains are kept.
    """
    wanted = _unique(payload.comments)
    wanted_fps = {c.fingerprint for c in wanted}
    first_id: dict[str, int] = {}
    stale: list[int] = []
    for old in sorted(existing, key=lambda c: c.id):
        if old.fingerprint not in wanted_fps or old.fingerprint in first_id:
            stale.append(old.id)
        else:
            first_id[old.fingerprint] = old.id
    post: list[InlineComment] = []
    folded: list[InlineComment] = []
    present = 0
    for comment in wanted:
        if payload.mode == "summary" or diff is None:
            folded.append(comment)
        elif comment.fingerprint in first_id:
            present += 1
        elif (len(post) < max_inline and _postable(comment.path)
              and diff.can_comment(comment.path, comment.line)):
            start = comment.start_line
            if start is not None and (
                start >= comment.line or not diff.can_span(comment.path, start, comment.line)
            ):
                start = None
            post.append(
                InlineComment(comment.path, comment.line, start, comment.body, comment.fingerprint)
            )
        elif (len(post) < max_inline and _postable(comment.path) and comment.plain is not None
              and diff.can_comment(comment.path, comment.plain[0])):
            # its suggestion's lines are not in the diff, the finding's own line is (a
            # new-user trial's error sat at a changed line, its fix's lines elsewhere: the
            # whole comment was folded): there, without the suggestion
            post.append(InlineComment(comment.path, comment.plain[0], None, comment.plain[1],
                                      comment.fingerprint))
        elif (len(post) < max_inline and comment.elsewhere is not None
              and _postable(comment.elsewhere[0])
              and diff.can_comment(comment.elsewhere[0], comment.elsewhere[1])):
            # its place is in a file the pull request does not change; the change that makes
            # it is (an overlay's commonLabels relabelling a base's policy: new-user trial
            # twenty-five found it only in the summary): there, saying what it is about
            path, line, body = comment.elsewhere
            post.append(InlineComment(path, line, None, body, comment.fingerprint))
        else:
            folded.append(comment)
    return Plan(tuple(post), tuple(folded), present, tuple(stale))


def _postable(path: str) -> bool:
    """A forge's API names files in UTF-8: a finding in a file whose name is no UTF-8
    cannot be placed on a line, so it folds into the summary (where its name is shown)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def plan_by_review(
    payload: ReviewPayload,
    existing: Sequence[ExistingComment],
    diff: DiffMap | None,
    *,
    max_inline: int = 50,
) -> tuple[Plan, frozenset[int]]:
    """For forges that can only delete whole reviews: a review holding any stale comment
    is deleted, and its still-current comments are planned again as if absent.

    Returns the plan over the kept comments and the ids of the reviews to delete.
    """
    doomed: set[int] = set()
    while True:
        kept = [c for c in existing if c.group not in doomed]
        plan = plan_inline(payload, kept, diff, max_inline=max_inline)
        groups = {c.group for c in kept if c.id in plan.stale and c.group is not None}
        if not groups:
            return plan, frozenset(doomed)
        doomed |= groups


def infer_login(
    comments: Iterable[tuple[int, str | None, str | None]],
    *,
    exclude: Iterable[str | None] = (),
    bots_only: bool = False,
) -> str | None:
    """The account that wrote the oldest summary among issue comments (id, login, body).

    ``exclude`` names accounts never taken for the bot (the pull request's author, who
    could post a summary marker first); ``bots_only`` keeps only ``[bot]`` logins (GitHub,
    where a token that cannot read ``/user`` belongs to an App or to Actions).
    """
    banned = {login for login in exclude if login}
    for _, login, body in sorted(comments, key=lambda c: c[0]):
        if not login or login in banned or not is_summary(body):
            continue
        if bots_only and not login.endswith("[bot]"):
            continue
        return login
    return None


def pick_summary(own: Sequence[tuple[int, str]]) -> tuple[tuple[int, str] | None, tuple[int, ...]]:
    """Among the token user's comments (id, body), the summary to edit and the extra ones."""
    marked = sorted((c for c in own if is_summary(c[1])), key=lambda c: c[0])
    if not marked:
        return None, ()
    return marked[0], tuple(c[0] for c in marked[1:])
