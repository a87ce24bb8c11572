"""``--format github``: workflow command annotations (``::error file=...,line=...::msg``).

GitHub shows at most 10 error, 10 warning and 10 notice annotations per step (the actions
toolkit documents the limit); later ones are dropped silently. So annotations are ordered
by severity, new findings before existing ones, and capped per level; the findings left
out are printed as plain log lines, and one last annotation says how many there are.
"""

from __future__ import annotations

from reviewbot.engine.findings import Finding, sentence
from reviewbot.escape import term
from reviewbot.report.base import Report, not_shown_lines

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}
_RANK = {"error": 0, "warning": 1, "info": 2}
PER_LEVEL = 10  # annotations of one level GitHub shows per step


def _escape_data(text: str) -> str:
    return term(text).replace("%", "%25")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _order(f: Finding) -> tuple[int, int, str, int, int]:
    return (_RANK.get(f.severity, 1), 0 if f.new or f.worse else 1, f.file, f.line, f.column)


def _body(f: Finding) -> str:
    # (a message that ends a sentence already, "... until it is fixed.", takes no second stop)
    return f"{term(sentence(f.message))} {term(f.fix)}" if f.fix else term(f.message)


def _annotation(f: Finding) -> str:
    props = ",".join((
        f"file={_escape_property(f.file)}", f"line={f.line}", f"col={f.column}",
        f"title={_escape_property(f.rule)}",
    ))
    return f"::{_LEVEL.get(f.severity, 'warning')} {props}::{_escape_data(_body(f))}"


def _plain(f: Finding) -> str:
    # not a workflow command: term() never lets a name start the line with "::"
    return f"{term(f.file)}:{f.line}:{f.column}: {f.severity} [{term(f.rule)}] {_body(f)}"


def render_github(report: Report, color: bool = False) -> str:
    ordered = sorted(report.findings, key=_order)
    budget = {level: PER_LEVEL for level in _LEVEL.values()}
    shown: list[Finding] = []
    left: list[Finding] = []
    for f in ordered:
        level = _LEVEL.get(f.severity, "warning")
        if budget[level] > 0:
            budget[level] -= 1
            shown.append(f)
        else:
            left.append(f)
    closing = ""
    if left:
        # the closing annotation takes the level of the worst finding left out, so it is
        # seen where the reader looks; that level gives up its last slot for it
        level = _LEVEL.get(left[0].severity, "warning")
        last = max(i for i, f in enumerate(shown) if _LEVEL.get(f.severity, "warning") == level)
        left.insert(0, shown.pop(last))
        counts = [(sev, sum(1 for f in left if f.severity == sev)) for sev in _RANK]
        parts = ", ".join(f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in counts if n)
        closing = (
            f"::{level} title=reviewbot::{len(left)} more finding(s) not annotated ({parts}): "
            f"GitHub shows {PER_LEVEL} annotations per level and step. "
            + ("All are in this job's log and in the review summary." if not report.not_shown
               else "The others are in this job's log. " + "; ".join(not_shown_lines(report))
               + ".")
        )
    lines = [_annotation(f) for f in shown] + [_plain(f) for f in left]
    if closing:
        lines.append(closing)
    return "\n".join(lines) + ("\n" if lines else "")
