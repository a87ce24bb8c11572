"""`reviewbot diff` and `reviewbot review`: the arguments, then the engine's review
(:mod:`reviewbot.engine.review`), the output, and publishing (:mod:`reviewbot.forge.publish`).

``diff`` compares the manifests of two git refs (or a ref and the work tree) object by
object. ``review`` is the pull-request job: base and head come from ``--base/--head`` or the
CI event file (read once: publishing takes the pull request from the same read); the
findings are written (stdout, ``--output``, ``--artifact``) before any forge call, and a
forge failure is reported and never changes the exit code, which counts new findings.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

from reviewbot.commands.common import file_loader, overrides
from reviewbot.engine.findings import Finding
from reviewbot.engine.outcome import Report, ReviewSummary
from reviewbot.engine.review import (
    SUMMARY_LIMIT,
    ReviewResult,
    ReviewSettings,
    compare_sides,
    review,
    review_config,
    review_prefixes,
)
from reviewbot.errors import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, ReviewbotError
from reviewbot.escape import term
from reviewbot.forge.ci import detect_platform
from reviewbot.forge.publish import Publishing, previewed_summary, publish
from reviewbot.output import emit, exit_code, use_color
from reviewbot.report.base import entry_words, shown_entries
from reviewbot.report.difftext import render_diff_text
from reviewbot.report.links import links_from_env
from reviewbot.report.render import render
from reviewbot.report.review import config_note, mark_verdicts, unapplied_note, verdict_text
from reviewbot.sources.event import CiEvent, ci_event
from reviewbot.sources.refs import Sides, find_sides, is_ref, repo_prefixes, resolve
from reviewbot.sources.tree import repo_root

_DIFF_FORMATS = ("text", "json", "markdown")


def diff_command(args: argparse.Namespace) -> int:
    if args.format not in _DIFF_FORMATS:
        raise ReviewbotError(f"diff writes {', '.join(_DIFF_FORMATS)}, not {args.format}")
    root = repo_root(Path(args.repo))
    paths = list(args.paths)
    if args.head and not is_ref(root, args.head) and os.path.lexists(args.head):
        paths.insert(0, args.head)  # `diff BASE PATH`: the work tree, limited to PATH
        args.head = None
    prefixes = repo_prefixes(paths, root)
    base = resolve(root, args.base, "base")
    head = resolve(root, args.head, "head") if args.head else None
    sides = Sides(root, args.base, base, head, prefixes)
    _say_if_empty(sides, args.head)
    config = review_config(sides, args.config).config
    found = compare_sides(sides, config, file_loader(args, root))
    entries = tuple(found.diff.as_json())
    verdicts: list[Finding] = []
    if args.format in _DIFF_FORMATS:
        verdicts = found.verdicts()
    if args.format == "text":
        text = render_diff_text(shown_entries(entries), use_color(args.color, args.output))
        text += verdict_text(verdicts) + unapplied_note(found.unapplied(), "diff shows")
    elif args.format == "json":
        text = render(Report(findings=(), review=ReviewSummary(
            diff=mark_verdicts(entries, verdicts), connectivity=found.flows()),
            skipped=tuple(found.head.skipped)), "json")
    else:
        from reviewbot.report.markdown import render_diff_section, verdicts_section
        text = (render_diff_section(shown_entries(entries), SUMMARY_LIMIT, found.unapplied())
                + verdicts_section(verdicts))
    emit(text, args.output)
    # (objects only: a kustomization file rewritten to build the same objects changes none;
    # new-user trial seventy-one W7, a refactor's `diff --exit-code` exit 1)
    changed = [e for e in entries if entry_words(e)[0] != "kustomize file"]
    return EXIT_FINDINGS if getattr(args, "exit_code", False) and changed else EXIT_OK


def run_review(args: argparse.Namespace,
               event: CiEvent | None) -> tuple[Sides, ReviewResult]:
    """The review the arguments ask for (``event``: the CI event, when the refs need it)."""
    sides = find_sides(Path(args.repo), args.base, args.head, event)
    sides = review_prefixes(sides, args.paths, args.config)
    cache = file_loader(args, sides.root)
    settings = ReviewSettings(args.config, tuple(args.rule or ()), args.scope, overrides(args),
                              bool(getattr(args, "render", False)))
    return sides, review(sides, settings, cache)


def review_command(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    # The CI event is read once, here, and only when the refs need it; publishing takes it
    event = None if args.base and args.head else ci_event(env)
    sides, outcome = run_review(args, event)
    _say_if_empty(sides, args.head)
    report = with_links(outcome.report, args, env, sides)
    fail_on = args.fail_on or outcome.config.fail_on or "error"
    code = exit_code(outcome.new, fail_on)
    color = use_color(args.color, args.output)
    how = Publishing(args.platform, args.comment_mode, args.dry_run, bool(args.output),
                     bool(getattr(args, "debug", False)), args.format == "markdown")
    # --format markdown: the summary exactly as it would be posted, printed once
    posted = (previewed_summary(how, report, outcome.findings, env, sides)
              if args.format == "markdown" else None)
    text = posted if posted is not None else render(report, args.format, color=color)
    if args.format == "text" and report.review is not None:
        text += "\n" + render_diff_text(shown_entries(report.review.diff), color)
        text += config_note(report.review)
        text += unapplied_note(report.review.unapplied, "review judges")
    emit(text, args.output)  # findings first: no forge call has happened yet
    if args.artifact:
        emit(render(report, args.artifact_format), args.artifact)
    if not publish(how, report, outcome.findings, env, sides, event) and code == EXIT_OK:
        # an internal error kept the review from being posted: not a passing job (a new-user
        # trial's CI stayed green with nothing posted)
        return EXIT_INTERNAL
    return code


def _say_if_empty(sides: Sides, head_ref: str | None) -> None:
    """On stderr, when the head holds no commit the base lacks (``--head HEAD`` on the base
    branch itself): "no changes" would otherwise read as a change that changed nothing."""
    if sides.head is not None and sides.head == sides.base:
        print(f"reviewbot: {term(head_ref or 'the head')} ({sides.head[:12]}) holds no commit "
              f"that {term(sides.base_ref)} lacks: there is nothing to compare", file=sys.stderr)


def with_links(report: Report, args: argparse.Namespace, env: dict[str, str],
               sides: Sides) -> Report:
    """The review's links: the head's lines at ``--link-base`` or the CI's repository
    address, in the platform's path shape (none without an address or a head commit)."""
    if report.review is None:
        return report
    platform = args.platform if args.platform != "auto" else detect_platform(env)
    links = links_from_env(env, platform, sides.head, getattr(args, "link_base", None))
    return replace(report, review=replace(report.review, links=links))
