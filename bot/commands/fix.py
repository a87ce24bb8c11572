"""``lint --fix [--diff] [--unsafe-fixes]``: apply the mechanical fixes findings carry.

The files are lint first; the fixes that pass the fixer's check (their finding gone, none
added; see :mod:`reviewbot.engine.fixer`) are written back, or with ``--diff`` printed as a
unified diff and nothing is written. The report that follows is the lint of the fixed tree.
Exit codes: with ``--diff``, 1 when there is something to fix and 0 otherwise (as ruff
does); after writing, those of ``lint`` on what remains.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from reviewbot.commands.common import lint_tree, make_report
from reviewbot.engine.fixer import FixOutcome, encode, fix_tree
from reviewbot.errors import ReviewbotError
from reviewbot.escape import term
from reviewbot.output import emit, exit_code, use_color
from reviewbot.report.render import render
from reviewbot.sources.tree import shown_path


def fix_command(args: argparse.Namespace) -> int:
    tree, config, result = lint_tree(args)
    outcome = fix_tree(tree, config, result, only=args.rule,
                       unsafe=bool(getattr(args, "unsafe_fixes", False)))
    if args.diff:
        text = unified_diff(outcome)
        emit(text, args.output)
        _summary(outcome, written=False)
        return 1 if text else 0
    for path, text in sorted(outcome.texts.items()):
        target = Path(tree.root) / path
        try:
            original = target.read_bytes()
            target.write_bytes(encode(original, text))
        except OSError as exc:
            raise ReviewbotError(f"cannot write {path}: {exc.strerror}") from exc
    _summary(outcome, written=True)
    final = outcome.result or result
    if args.rule:
        final.findings = [f for f in final.findings if f.rule in args.rule]
    color = use_color(args.color, args.output)
    emit(render(make_report(final), args.format, color=color), args.output)
    return exit_code(final.findings, args.fail_on or config.fail_on or "error")


def unified_diff(outcome: FixOutcome) -> str:
    """``diff -u`` of every changed file (``a/`` and ``b/`` paths, named as git names them).
    The lines are the repository's: each is written for a terminal and a CI log
    (:func:`reviewbot.escape.term`, tabs kept), so a line that holds a control character
    or starts with ``::`` is shown escaped (that hunk no longer applies as a patch)."""
    out: list[str] = []
    for path in sorted(outcome.texts):
        before = outcome.originals[path].splitlines(keepends=True)
        after = outcome.texts[path].splitlines(keepends=True)
        old, new = shown_path(f"a/{path}"), shown_path(f"b/{path}")
        for line in difflib.unified_diff(before, after, old, new):
            end = "\n" if line.endswith("\n") else "\n\\ No newline at end of file\n"
            body = line[:-1] if line.endswith("\n") else line
            if body.startswith(("---", "+++", "@@")):
                out.append(body + end)
            else:
                cr = "\r" if body.endswith("\r") else ""  # a CRLF file's line end, kept
                out.append(body[:1] + term(body[1:len(body) - len(cr)], tabs=True) + cr + end)
    return "".join(out)


def _summary(outcome: FixOutcome, written: bool) -> None:
    n, files = len(outcome.fixed), len(outcome.texts)
    verb = "fixed" if written else "would fix"
    text = f"reviewbot: {verb} {n} finding{'s' if n != 1 else ''}"
    if files:
        text += f" in {files} file{'s' if files != 1 else ''}"
    if outcome.unsafe_skipped:
        k = len(outcome.unsafe_skipped)
        text += f"; {k} more with --unsafe-fixes"
    print(text, file=sys.stderr)
