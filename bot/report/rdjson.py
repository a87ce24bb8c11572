"""``--format rdjson``: reviewdog's Diagnostic Format (``reviewdog -f=rdjson``).

What reviewdog shows of a diagnostic is its ``message`` (``-reporter=github-pr-review``
never displays ``original_output``), so the fix is part of the message. Columns are
UTF-8 byte offsets, 1-based, as reviewdog.proto defines them ("the column of b in
'a𐐀b' is 6"); reviewbot's own columns count code points, so they are converted with
the file's text.
"""

from __future__ import annotations

from typing import Any

from reviewbot.escape import json_text
from reviewbot.report.base import Report, not_shown_lines

_SEVERITY = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}


def byte_column(text: str | None, line: int, column: int) -> int:
    """The 1-based UTF-8 byte column of code-point ``column`` on 1-based ``line``."""
    if not text or line < 1 or column <= 1:
        return column
    lines = text.split("\n")
    if line > len(lines):
        return column
    before = lines[line - 1][: column - 1]
    return len(before.encode("utf-8", "surrogatepass")) + 1 + max(0, column - 1 - len(before))


def diagnostic_message(message: str, obj: str, fix: str) -> str:
    """What reviewdog shows: the fact (with its object), then the fix."""
    text = f"{message} ({obj})" if obj else message
    if fix:
        text = f"{text.rstrip('.')}. Fix: {fix}"
    return text


def render_rdjson(report: Report, color: bool = False) -> str:
    diagnostics: list[dict[str, Any]] = []
    for f in report.findings:
        column = byte_column(report.sources.get(f.file), f.line, f.column)
        diagnostics.append({
            "message": diagnostic_message(f.message, f.object, f.fix),
            "location": {
                "path": f.file,
                "range": {"start": {"line": f.line, "column": column}},
            },
            "severity": _SEVERITY.get(f.severity, "WARNING"),
            # the check, as text, JSON and SARIF name it (new-user trials seventy-nine W5
            # and eighty W10: a reviewdog filter on `probe-headroom[startup]` matched none)
            "code": {"value": f.check},
        })
        fix = f.suggestion
        if fix is not None:  # whole lines replaced: start of the first to end of the last
            last = fix.original[-1] if fix.original else ""
            end = len(last.encode("utf-8", "surrogatepass")) + 1
            diagnostics[-1]["suggestions"] = [{
                "range": {"start": {"line": fix.start_line, "column": 1},
                          "end": {"line": fix.end_line, "column": end}},
                "text": "\n".join(fix.replacement),
            }]
    for rule, line in zip(report.not_shown, not_shown_lines(report), strict=True):
        # at the last shown finding of the rule: reviewdog shows only what has a place
        last = next(d for d in reversed(diagnostics)
                    if d["code"]["value"].partition("[")[0] == rule)
        diagnostics.append({"message": line, "location": last["location"], "severity": "INFO",
                            "code": {"value": rule}})
    out = {"source": {"name": "reviewbot"},
           "diagnostics": diagnostics}
    return json_text(out) + "\n"
