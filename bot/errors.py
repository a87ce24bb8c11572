"""The one error type. Exit codes live in `reviewbot.cli`; an error only says which class it is."""

from __future__ import annotations


class ReviewbotError(Exception):
    """A failure to report to the user: a message and the exit code it maps to.

    ``exit_code`` is 2 for usage and configuration errors (the default) and 3 for internal
    errors. The message must never contain Secret values or tokens.
    """

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
