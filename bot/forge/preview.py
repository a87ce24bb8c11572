"""What publishing would post, without posting: ``--platform none`` and ``--dry-run``."""

from __future__ import annotations

from reviewbot.escape import term
from reviewbot.forge.base import PublishResult, PullRequestRef, ReviewPayload
from reviewbot.forge.diffmap import DiffMap
from reviewbot.forge.reconcile import inline_body, plan_inline, render_summary
from reviewbot.sources.tree import shown_path


class NullForge:
    """``--platform none``: posts nothing; :func:`preview` renders what would be posted."""

    def publish(self, pr: PullRequestRef, payload: ReviewPayload) -> PublishResult:
        return PublishResult(False, 0, 0, 0, "platform 'none': nothing posted")


def preview(payload: ReviewPayload, diff: DiffMap | None, *, max_inline: int = 50,
            with_summary: bool = True) -> str:
    """What publishing would post, split as a forge splits it: the summary comment (with
    the candidates that fold into it) and the inline comments on the diff's lines.

    ``diff`` is the pull request's diff as git makes it locally (None: unknown, so every
    candidate folds, as on a forge whose diff cannot be read). Each finding appears once:
    inline or under "Not shown inline", besides the summary's own entries.
    ``with_summary`` False: the inline comments only (the summary was printed already).
    """
    if payload.mode == "none":
        return "comment mode 'none': nothing would be posted\n"
    plan = plan_inline(payload, [], diff, max_inline=max_inline)
    parts = [render_summary(payload.summary_markdown, plan.folded).rstrip() + "\n"
             if with_summary else ""]
    if plan.post:
        parts.append(f"\n--- {len(plan.post)} inline comment(s) in one review ---\n")
        for comment in plan.post:
            path = term(shown_path(comment.path))  # a line of the log: never a command
            where = f"{path}:{comment.line}"
            if comment.start_line is not None:
                where = f"{path}:{comment.start_line}-{comment.line}"
            parts.append(f"\n{where}\n{inline_body(comment).rstrip()}\n")
    return "".join(parts)


def posted_summary(payload: ReviewPayload, diff: DiffMap | None, *, max_inline: int = 50) -> str:
    """The summary comment exactly as it would be posted (marker, summary, the findings
    that fold into it), for ``--format markdown`` with ``--platform none`` or ``--dry-run``."""
    plan = plan_inline(payload, [], diff, max_inline=max_inline)
    return render_summary(payload.summary_markdown, plan.folded)
