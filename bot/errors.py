"""The one error type and the process exit codes (the only place they are defined)."""

from __future__ import annotations

from collections.abc import Mapping

#: 0 no finding at or above --fail-on; 1 such findings; 2 usage or configuration error;
#: 3 internal error (a short message; the traceback only with --debug); 130 interrupted
#: (Ctrl-C: SIGINT, 128 + 2, as shells report it).
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 130


class ReviewbotError(Exception):
    """A failure to report to the user: a message and the exit code it maps to.

    ``exit_code`` is 2 for usage and configuration errors (the default) and 3 for internal
    errors. The message must never contain Secret values or tokens.
    """

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


#: the environment variables that may hold a forge token
TOKEN_VARIABLES = ("GITHUB_TOKEN", "FORGEJO_TOKEN", "GITEA_TOKEN", "INPUT_TOKEN")


def scrub(text: str, env: Mapping[str, str]) -> str:
    """``text`` with the value of every token variable set in ``env`` replaced by ``***``
    (an error a library raised may quote a request that held one)."""
    for name in TOKEN_VARIABLES:
        secret = env.get(name)
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text
