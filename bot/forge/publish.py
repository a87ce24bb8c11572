"""Publish a review to the forge it runs on, or show what would be posted.

The findings are written before this runs; nothing here raises for the forge, so a forge
failure never loses them nor changes the exit code.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reviewbot.engine.findings import Finding
from reviewbot.engine.outcome import Report
from reviewbot.errors import ReviewbotError, scrub
from reviewbot.escape import term
from reviewbot.sources.event import CiEvent
from reviewbot.sources.refs import Sides


@dataclass(frozen=True)
class Publishing:
    """How to publish: ``platform`` auto|github|forgejo|none, ``comment_mode``
    review|summary|none; ``dry_run`` shows the review instead; ``to_stdout``: the preview goes
    to stdout (the findings went to a file), else to stderr; ``debug``: a forge bug raises."""

    platform: str = "auto"
    comment_mode: str = "review"
    dry_run: bool = False
    to_stdout: bool = False
    debug: bool = False
    summary_shown: bool = False  # --format markdown printed the summary: preview the rest


def publish(how: Publishing, report: Report, findings: Sequence[Finding],
            env: Mapping[str, str], sides: Sides | None = None,
            event: CiEvent | None = None) -> bool:
    """Post the review, or show it (platform none, --dry-run). Never raises for the forge.
    The pull request comes from ``event`` when the review read it already. False when an
    internal error (a bug, not the forge's answer) kept it from being posted or shown.

    The preview is what would be posted, split the same way: inline comments on the lines
    of the local diff between base and head, the rest folded into the summary.
    """
    try:
        from reviewbot.forge.base import ReviewPayload
        from reviewbot.forge.ci import detect_platform, pr_from_event
        from reviewbot.forge.diffmap import parse_git_diff
        from reviewbot.forge.factory import make_forge
        from reviewbot.forge.preview import preview
        from reviewbot.report.render import render
        from reviewbot.report.review import inline_comments
        from reviewbot.sources.tree import diff_text

        platform = how.platform if how.platform != "auto" else detect_platform(env)
        if how.comment_mode == "none":
            print("reviewbot: comment mode none: nothing posted", file=sys.stderr)
            return True
        summary = render(report, "markdown")  # names shown as every format shows them
        comments = inline_comments(findings, platform)
        payload = ReviewPayload(summary, comments, how.comment_mode)
        if platform == "none" or how.dry_run:
            if how.platform == "none" or how.dry_run:
                diff = None
                if sides is not None:
                    try:
                        diff = parse_git_diff(diff_text(sides.root, sides.base, sides.head))
                    except ReviewbotError:
                        diff = None  # e.g. a shallow clone: everything folds, as on a forge
                _show(preview(payload, diff, with_summary=not how.summary_shown),
                      how.to_stdout, titled=not how.summary_shown)
            else:
                print("reviewbot: not running in CI (no platform detected): nothing posted; "
                      "--dry-run shows the review", file=sys.stderr)
            return True
        pr = pr_from_event(platform, env, event)
        result = make_forge(platform, env).publish(pr, payload)
        print(f"reviewbot: {term(scrub(result.reason, env))}", file=sys.stderr)
    except ReviewbotError as exc:
        print(f"reviewbot: nothing posted: {term(scrub(exc.message, env))}", file=sys.stderr)
    except Exception as exc:  # a forge bug must not lose the findings' exit code
        if how.debug:
            raise
        print(f"reviewbot: nothing posted: internal error in publishing ({type(exc).__name__})",
              file=sys.stderr)
        return False
    return True


def _show(text: str, to_stdout: bool, titled: bool = True) -> None:
    """The preview, headed as the review that would be posted where it holds the summary;
    the inline comments alone (the summary went to stdout) under their own heading (new-user
    trial seventy-six W7 read the review's heading above an empty section)."""
    if not text.strip():  # the summary went to stdout and nothing goes inline: no heading
        return
    stream = sys.stdout if to_stdout else sys.stderr
    heading = "--- the review that would be posted ---\n" if titled else ""
    stream.write(heading + text.rstrip() + "\n")
    stream.flush()


def previewed_summary(how: Publishing, report: Report, findings: Sequence[Finding],
                      env: Mapping[str, str], sides: Sides | None = None) -> str | None:
    """The summary comment exactly as it would be posted, when this run only previews
    (``--platform none`` or ``--dry-run``): what ``--format markdown`` prints, so the
    summary is printed once. None when the run posts (the forge decides what folds)."""
    from reviewbot.forge.base import ReviewPayload
    from reviewbot.forge.ci import detect_platform
    from reviewbot.forge.diffmap import parse_git_diff
    from reviewbot.forge.preview import posted_summary
    from reviewbot.report.render import render
    from reviewbot.report.review import inline_comments
    from reviewbot.sources.tree import diff_text

    platform = how.platform if how.platform != "auto" else detect_platform(env)
    if how.comment_mode == "none" or not (how.platform == "none" or how.dry_run):
        return None
    payload = ReviewPayload(render(report, "markdown"), inline_comments(findings, platform),
                            how.comment_mode)
    diff = None
    if sides is not None:
        try:
            diff = parse_git_diff(diff_text(sides.root, sides.base, sides.head))
        except ReviewbotError:
            diff = None
    return posted_summary(payload, diff)
