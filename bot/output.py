"""What a command emits: the report text (stdout or --output) and the findings' exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from reviewbot.engine.findings import Finding, severity_rank
from reviewbot.errors import EXIT_FINDINGS, EXIT_OK, ReviewbotError

FAIL_ON = ("error", "warning", "info", "none")

#: what the command built, held until the process ends (:func:`hold`); None: nothing is held
_held: list[object] | None = None


def hold_until_exit() -> None:
    """The process ends with the command (the ``reviewbot`` script's ``main()``): from now on
    :func:`hold` keeps what it is given."""
    global _held
    _held = []


def hold(*objects: object) -> None:
    """Keep ``objects`` (a tree, its model, the result) until the process ends, when it ends
    with the command: its exit frees nothing (``cli._end``), where letting go of them when
    the command returned freed the model object by object (14M instructions of hmcts' lint).
    A process that goes on (tests calling ``main(argv)``) keeps nothing."""
    if _held is not None:
        _held.extend(objects)


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
