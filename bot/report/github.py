"""``--format github``: workflow command annotations (``::error file=...,line=...::msg``)."""

from __future__ import annotations

from reviewbot.report.base import Report

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report, color: bool = False) -> str:
    lines = []
    for f in report.findings:
        props = ",".join((
            f"file={_escape_property(f.file)}", f"line={f.line}", f"col={f.column}",
            f"title={_escape_property(f.rule)}",
        ))
        body = _escape_data(f"{f.message}. {f.fix}" if f.fix else f.message)
        lines.append(f"::{_LEVEL.get(f.severity, 'warning')} {props}::{body}")
    return "\n".join(lines) + ("\n" if lines else "")
