"""What a command emits: the report text (stdout or --output) and the findings' exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from reviewbot.engine.findings import Finding, severity_rank
from reviewbot.errors import EXIT_FINDINGS, EXIT_OK, ReviewbotError

FAIL_ON = ("error", "warning", "info", "none")


def exit_code(findings: Iterable[Finding], fail_on: str) -> int:
    if fail_on == "none":
        return EXIT_OK
    threshold = severity_rank(fail_on)
    failing = any(severity_rank(f.severity) >= threshold for f in findings)
    return EXIT_FINDINGS if failing else EXIT_OK


def use_color(color: str, output: str | None) -> bool:
    """``--color auto|always|never``: auto colours a terminal unless NO_COLOR is set."""
    if color == "always":
        return True
    if color == "never" or os.environ.get("NO_COLOR"):
        return False
    return output is None and sys.stdout.isatty()


def emit(text: str, output: str | None) -> None:
    """Write a report to --output or stdout (surrogates from a file name made printable)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ReviewbotError(f"cannot write {output}: {exc.strerror}") from exc
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
