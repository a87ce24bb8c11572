"""One report in one output format: the caps applied, then the format's renderer."""

from __future__ import annotations

from collections.abc import Callable

from reviewbot.errors import ReviewbotError
from reviewbot.report.base import Report, capped, shown
from reviewbot.report.formats import FORMATS


def render(report: Report, fmt: str, *, color: bool = False) -> str:
    """``report`` in format ``fmt``. File names that are no UTF-8 are shown losslessly: in
    git's quoting (``"bad\\377.yaml"``), in SARIF as a percent-encoded URI. At most
    MAX_PER_RULE findings of a rule are shown; the rest are counted, by rule."""
    report = capped(report)
    return _renderer(fmt)(report if fmt == "sarif" else shown(report), color)


def _renderer(fmt: str) -> Callable[[Report, bool], str]:
    if fmt == "text":
        from reviewbot.report.text import render_text
        return render_text
    if fmt == "json":
        from reviewbot.report.json_out import render_json
        return render_json
    if fmt == "sarif":
        from reviewbot.report.sarif import render_sarif
        return render_sarif
    if fmt == "github":
        from reviewbot.report.github import render_github
        return render_github
    if fmt == "rdjson":
        from reviewbot.report.rdjson import render_rdjson
        return render_rdjson
    if fmt == "markdown":
        from reviewbot.report.markdown import render_markdown
        return render_markdown
    raise ReviewbotError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
