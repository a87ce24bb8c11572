"""``--format rdjson``: reviewdog's Diagnostic Format (``reviewdog -f=rdjson``)."""

from __future__ import annotations

import json
from typing import Any

from reviewbot.report.base import Report

_SEVERITY = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}


def render_rdjson(report: Report, color: bool = False) -> str:
    diagnostics: list[dict[str, Any]] = []
    for f in report.findings:
        diagnostics.append({
            "message": f"{f.message} ({f.object})" if f.object else f.message,
            "location": {
                "path": f.file,
                "range": {"start": {"line": f.line, "column": f.column}},
            },
            "severity": _SEVERITY.get(f.severity, "WARNING"),
            "code": {"value": f.rule},
            "original_output": f.fix,
        })
    out = {"source": {"name": "reviewbot"},
           "diagnostics": diagnostics}
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"
