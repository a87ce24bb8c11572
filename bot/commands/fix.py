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
from collections.abc import Sequence
from pathlib import Path

from reviewbot.commands.common import lint_tree, make_report
from reviewbot.diff.secrets import hidden_lines
from reviewbot.engine.findings import one_per_place
from reviewbot.engine.fixer import FixOutcome, encode, fix_tree
from reviewbot.errors import ReviewbotError
from reviewbot.escape import term
from reviewbot.output import emit, exit_code, use_color
from reviewbot.report.render import render
from reviewbot.sources.tree import shown_path


def fix_command(args: argparse.Namespace) -> int:
    if getattr(args, "render", False):  # (its files are what kustomize built, not the sources)
        raise ReviewbotError("--fix and --diff edit the source files, and --render lints what "
                             "kustomize builds from them: run them without --render")
    tree, config, result = lint_tree(args)
    outcome = fix_tree(tree, config, result, only=args.rule,
                       unsafe=bool(getattr(args, "unsafe_fixes", False)))
    if args.diff:
        text = unified_diff(outcome)
        emit(text, args.output)
        _summary(outcome, written=False, only=args.rule)
        return 1 if text else 0
    for path, text in sorted(outcome.texts.items()):
        target = Path(tree.root) / path
        try:
            original = target.read_bytes()
            target.write_bytes(encode(original, text))
        except OSError as exc:
            raise ReviewbotError(f"cannot write {path}: {exc.strerror}") from exc
    _summary(outcome, written=True, only=args.rule)
    final = outcome.result or result
    if args.rule:
        final.findings = [f for f in final.findings if f.rule in args.rule]
    color = use_color(args.color, args.output)
    emit(render(make_report(final), args.format, color=color), args.output)
    return exit_code(final.findings, args.fail_on or config.fail_on or "error")


def unified_diff(outcome: FixOutcome) -> str:
    """``diff -u`` of every changed file (``a/`` and ``b/`` paths, named as git names them).
    A line that may hold a secret value (:func:`reviewbot.diff.secrets.hidden_lines`) is
    never printed: context stops before it (a hunk that would change one is left out, and
    stderr says so). The lines are the repository's: each is written for a terminal and a
    CI log (:func:`reviewbot.escape.term`, tabs kept), so a line that holds a control
    character or starts with ``::`` is shown escaped (that hunk no longer applies)."""
    out: list[str] = []
    for path in sorted(outcome.texts):
        original = outcome.originals[path]
        before = original.splitlines(keepends=True)
        after = outcome.texts[path].splitlines(keepends=True)
        hidden = hidden_lines(path, original)
        head = [f"--- {shown_path(f'a/{path}')}\n", f"+++ {shown_path(f'b/{path}')}\n"]
        hunks = [_hunk(before, after, group, hidden)
                 for group in difflib.SequenceMatcher(None, before, after).get_grouped_opcodes(3)]
        if any(h is None for h in hunks):
            print(f"reviewbot: {term(shown_path(path))}: a fix next to a secret value is not "
                  "shown", file=sys.stderr)
        shown = [h for h in hunks if h]
        if shown:
            out += head + [line for hunk in shown for line in hunk]
    return "".join(out)


def _hunk(before: list[str], after: list[str], group: list[tuple[str, int, int, int, int]],
          hidden: frozenset[int]) -> list[str] | None:
    """One hunk's lines; its context trimmed to stop before a hidden line (1-based lines of
    ``before``); None when a changed line is hidden."""
    first, last = 0, len(group)
    tag, i1, i2, j1, j2 = group[0]
    if tag == "equal":  # leading context: only the lines after the last hidden one
        keep = [i for i in range(i1, i2) if i + 1 in hidden]
        start = max(keep) + 1 if keep else i1
        group[0] = (tag, start, i2, j1 + (start - i1), j2)
    tag, i1, i2, j1, j2 = group[-1]
    if tag == "equal":  # trailing context: only the lines before the first hidden one
        keep = [i for i in range(i1, i2) if i + 1 in hidden]
        end = min(keep) if keep else i2
        group[-1] = (tag, i1, end, j1, j2 - (i2 - end))
    for _tag, i1, i2, _, _ in group[first:last]:
        if any(i + 1 in hidden for i in range(i1, i2)):
            return None  # a changed (or inner context) line may hold a secret value
    a1, a2 = group[0][1], group[-1][2]
    b1, b2 = group[0][3], group[-1][4]
    lines = [f"@@ -{_range(a1, a2)} +{_range(b1, b2)} @@\n"]
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            lines += [_line(" ", x) for x in before[i1:i2]]
            continue
        lines += [_line("-", x) for x in before[i1:i2]]
        lines += [_line("+", x) for x in after[j1:j2]]
    return lines


def _range(start: int, end: int) -> str:
    """A unified diff's ``start,count`` (as difflib and GNU diff write it)."""
    count = end - start
    if count == 1:
        return str(start + 1)
    return f"{start + 1 if count else start},{count}"


def _line(mark: str, text: str) -> str:
    end = "\n" if text.endswith("\n") else "\n\\ No newline at end of file\n"
    body = text[:-1] if text.endswith("\n") else text
    cr = "\r" if body.endswith("\r") else ""  # a CRLF file's line end, kept
    return mark + term(body[:len(body) - len(cr)], tabs=True) + cr + end


def _summary(outcome: FixOutcome, written: bool, only: Sequence[str] | None = None) -> None:
    # (each counted as lint shows it: one place, one finding across clusters; new-user trial
    # eighty-three W7 read "would fix 2 findings" of lint's one)
    n, files = len(one_per_place(outcome.fixed)), len(outcome.texts)
    verb = "fixed" if written else "would fix"
    text = f"reviewbot: {verb} {n} finding{'s' if n != 1 else ''}"
    if files:
        text += f" in {files} file{'s' if files != 1 else ''}"
    if outcome.unsafe_skipped:
        k = len(one_per_place(outcome.unsafe_skipped))
        text += f"; {k} more with --unsafe-fixes"
    # what stays, and why (new-user trial seventy-six W10 read "would fix 0 findings" of a
    # tree with 2 errors, and nothing more)
    skipped = {f.identity for f in outcome.unsafe_skipped}
    # (counted as lint shows them: a file several clusters build alike, one finding; new-
    # user trial eighty D5 read "4 errors or warnings" beside lint's 1 error, 1 warning)
    left = [f for f in one_per_place(outcome.result.findings if outcome.result is not None
                                     else ())
            if f.severity in ("error", "warning") and f.identity not in skipped
            and (not only or f.rule in only)]  # (what `--rule` asked to fix)
    # (which of the two reasons: new-user trial seventy-eight W4 read one sentence for both)
    tried = sum(1 for f in left if f.edits)
    bare = len(left) - tried
    if bare:
        text += (f"; {bare} error{'s' if bare != 1 else ''} or warning"
                 f"{'s have' if bare != 1 else ' has'} no mechanical fix (the fix is said in "
                 "`reviewbot lint`)")
    if tried:
        text += (f"; {tried} fix{'es' if tried != 1 else ''} not written: a lint of the fixed "
                 "tree did not pass (the fix would leave its finding or add another)")
    print(text, file=sys.stderr)
