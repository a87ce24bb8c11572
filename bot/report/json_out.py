"""``--format json``: the contract of DESIGN.md, exactly."""

from __future__ import annotations

from typing import Any

from reviewbot.escape import json_text
from reviewbot.report.base import MAX_PER_RULE, Report


def render_json(report: Report, color: bool = False) -> str:
    out: dict[str, Any] = {
        "version": 1,
        "findings": [f.as_json(report.review is not None) for f in report.findings],
        "skipped": [{"file": s.path, "reason": s.reason} for s in report.skipped] + [
            {"file": q.file, "reason": f"{q.rule} (line {q.line}): {q.reason}"}
            for q in report.quiet
        ],
    }
    if report.not_shown:  # findings past the first MAX_PER_RULE of a rule, by rule
        out["not_shown"] = {"limit_per_rule": MAX_PER_RULE, "rules": dict(report.not_shown)}
    if report.review is not None:
        out["diff"] = list(report.review.diff)
        out["fixed"] = [f.as_json(True) for f in report.review.fixed]
        out["connectivity_diff"] = [c.as_json() for c in report.review.connectivity]
    return json_text(out) + "\n"
