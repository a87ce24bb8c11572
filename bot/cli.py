"""The command line: parse, dispatch, map outcomes to exit codes. Nothing else lives here.

Exit codes: 0 no finding at or above ``--fail-on``; 1 such findings; 2 usage or
configuration error; 3 internal error (a short message; a traceback only with ``--debug``).
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

# The cyclic collector waits while the modules below are imported: they make little cyclic
# garbage, and the young collections during them rescanned what they made (3.7M instructions
# of a one-file lint); reference counting still frees. Restored after them.
_COLLECTING = gc.isenabled()
gc.disable()

from reviewbot import __version__, startup  # noqa: E402

startup.install()  # before the imports below create the package's dataclasses

# argparse imports gettext, which compiles a long pattern (its plural-forms tokenizer) while
# imported: after install(), it comes from the start-up cache (1,726 steps of re's parser)
import argparse  # noqa: E402

from reviewbot.errors import (  # noqa: E402
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    ReviewbotError,
    scrub,
)
from reviewbot.output import FAIL_ON, hold_until_exit  # noqa: E402
from reviewbot.report.formats import FORMATS  # noqa: E402

if _COLLECTING:
    gc.enable()


def _reading(parser: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    """The options of every command that reads a tree into a model (lint, review, netpol's):
    which configuration, how the tree is read, where the report goes and in what format
    (the first of ``formats`` by default)."""
    parser.add_argument("--config", metavar="FILE",
                        help="configuration file (default: the nearest .reviewbot.yaml)")
    parser.add_argument("--format", choices=formats, default=formats[0], help="output format")
    parser.add_argument("--output", metavar="FILE", help="write the report to FILE, not stdout")
    parser.add_argument("--cache", metavar="DIR", help="parse cache keyed by git blob id")
    parser.add_argument("--render", action="store_true",
                        help="build kustomizations with kustomize/kubectl first")


def _common(parser: argparse.ArgumentParser) -> None:
    """The options of the commands that lint (lint, review): :func:`_reading`'s, and what
    decides the rules, their inputs and the exit code."""
    _reading(parser, FORMATS)
    parser.add_argument("--fail-on", choices=FAIL_ON, default=None,
                        help="lowest severity that makes the exit code 1 (default: error)")
    parser.add_argument("--kubeconform", metavar="PATH",
                        help="validate with this kubeconform binary (the schema rule)")
    parser.add_argument("--kubernetes-version", metavar="V",
                        help="every cluster runs Kubernetes V (overrides the measured one)")
    parser.add_argument("--target-kubernetes-version", metavar="V",
                        help="plan an upgrade: what breaks when the clusters run V")
    parser.add_argument("--rule", action="append", default=[], metavar="ID",
                        help="run only this rule (repeatable)")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, set up (the terminal's width asked) when it first formats.

    argparse makes a formatter for every ``add_argument``, only to check the argument's
    metavar, which needs no width: a lint asked the terminal's size 22 times for them (and
    once more for each ``add_subparsers`` without a ``prog``, to write the prog its usage
    line would show: given here). Whatever it formats is what ``argparse.HelpFormatter``
    formats (``tests/test_cli.py``)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        self._pending = (prog, indent_increment, max_help_position, width)

    def __getattr__(self, name: str) -> Any:  # the first attribute the plain one would have set
        pending = self.__dict__.pop("_pending", None)
        if pending is None:
            raise AttributeError(name)
        argparse.HelpFormatter.__init__(self, *pending)
        return getattr(self, name)


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` formatting with :class:`_HelpFormatter` (its subparsers too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; ``only``: the command being run (the first argument), the one parser
    made. Without it every command's is made, with its arguments: what ``reviewbot --help``
    lists and a wrong command name is checked against. The top parser's help and its errors
    are printed only then (with a command, its usage line reads ``COMMAND``, whatever the
    commands are). Building every command's arguments measured 7-13 ms of each run, the
    other commands' parsers 4.8M instructions (1.2% of a one-file lint)."""
    parser = _Parser(
        prog="reviewbot", description="GitOps change review and policy linting for Kubernetes.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"reviewbot {__version__}")
    sub = parser.add_subparsers(prog=parser.prog, dest="command", required=True,
                                metavar="COMMAND")
    for name, (text, extra, add) in _PARSERS.items():
        if only is None or only == name:
            add(sub.add_parser(name, help=text, **extra))
    return parser


def _lint_arguments(lint: argparse.ArgumentParser) -> None:
    _common(lint)
    lint.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    lint.add_argument("--fix", action="store_true",
                      help="apply the mechanical fixes (comments and formatting kept)")
    lint.add_argument("--diff", action="store_true",
                      help="with --fix: print the fixes as a unified diff, write nothing")
    lint.add_argument("--unsafe-fixes", action="store_true",
                      help="with --fix: also apply fixes that delete something written")
    lint.add_argument("-q", "--quiet", action="store_true",
                      help="text format: the findings alone (no counts, roots or skipped "
                           "lines); on stderr, problems only")
    lint.add_argument("--allow-empty", action="store_true",
                      help="exit 0 when PATH holds no Kubernetes manifest (default: exit 2)")
    lint.add_argument("--only-files", nargs="*", default=None, metavar="FILE",
                      help="lint PATHs whole, report only findings in these files or "
                           "below these folders (none named: the files staged in git; what "
                           "the pre-commit hook uses); give it after PATH, as it takes the "
                           "words that follow")


def _diff_arguments(diff: argparse.ArgumentParser) -> None:
    diff.add_argument("base", metavar="BASE", help="base git ref")
    diff.add_argument("head", nargs="?", default=None, metavar="HEAD",
                      help="head git ref (default: the work tree)")
    diff.add_argument("paths", nargs="*", default=[], metavar="PATH",
                      help="limit both sides to these paths")
    diff.add_argument("--repo", default=".", metavar="DIR", help="the git repository")
    diff.add_argument("--config", metavar="FILE", help="configuration file")
    diff.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    diff.add_argument("--output", metavar="FILE", help="write the diff to FILE, not stdout")
    diff.add_argument("--cache", metavar="DIR", help="parse cache keyed by git blob id")
    diff.add_argument("--exit-code", action="store_true",
                      help="exit 1 when any object changed, not a kustomization file alone "
                           "(like git diff --exit-code)")
    diff.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    diff.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")


def _review_arguments(review: argparse.ArgumentParser) -> None:
    _common(review)
    review.add_argument("--repo", default=".", metavar="DIR")
    review.add_argument("--base", metavar="REF")
    review.add_argument("--head", metavar="REF")
    review.add_argument("--platform", choices=("auto", "github", "forgejo", "none"), default="auto")
    review.add_argument("--dry-run", action="store_true", help="print the review, post nothing")
    review.add_argument("--link-base", metavar="URL",
                        help="the repository's web address, for links to the head's lines "
                             "(default: GITHUB_SERVER_URL/GITHUB_REPOSITORY in CI)")
    review.add_argument("--scope", choices=("new", "changed", "all"), default="new")
    review.add_argument("--comment-mode", choices=("review", "summary", "none"), default="review")
    review.add_argument("--artifact", metavar="FILE", help="also write the findings to FILE")
    review.add_argument("--artifact-format", choices=FORMATS, default="sarif")
    review.add_argument("paths", nargs="*", default=[], metavar="PATH")


def _rules_arguments(rules: argparse.ArgumentParser) -> None:
    rules.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    rules.add_argument("--output", metavar="FILE")
    rules.add_argument("--debug", action="store_true")


def _explain_arguments(explain: argparse.ArgumentParser) -> None:
    explain.add_argument("rule", metavar="RULE")
    explain.add_argument("--debug", action="store_true")


def _netpol_arguments(netpol: argparse.ArgumentParser) -> None:
    netsub = netpol.add_subparsers(prog=netpol.prog, dest="netpol_command", required=True,
                                   metavar="COMMAND")
    # no rule runs and nothing fails (they exit 0): lint's --fail-on, --rule, --kubeconform,
    # --color and Kubernetes versions would do nothing, and argparse refuses them
    conn = netsub.add_parser("connectivity", help="allowed flows between workloads")
    _reading(conn, ("text", "json", "connlist"))
    conn.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    conn.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    ndiff = netsub.add_parser(
        "diff", help="flows that changed between two trees or git refs",
        description="Compare the connectivity of OLD and NEW: two folders, or two git refs of "
                    "the repository at --repo (default: the current directory).")
    _reading(ndiff, ("connlist", "json", "markdown", "mermaid"))
    ndiff.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    ndiff.add_argument("old", metavar="OLD")
    ndiff.add_argument("new", metavar="NEW")
    ndiff.add_argument("--repo", metavar="DIR", help="the git repository OLD and NEW are refs of")
    ndiff.add_argument("--ref-names", default="ref1,ref2", metavar="OLD_NAME,NEW_NAME",
                       help="what connlist lines call the two sides (default: ref1,ref2)")


def _inventory_arguments(inventory: argparse.ArgumentParser) -> None:
    inventory.add_argument("--nodes", required=True, metavar="FILE",
                           help="kubectl get nodes -o json output (- for stdin)")
    inventory.add_argument("--pods", metavar="FILE",
                           help="kubectl get pods -A -o json output (- for stdin)")
    inventory.add_argument("--write", metavar="CONFIG",
                           help="update CONFIG in place (every byte outside the sections kept)")
    inventory.add_argument("--cluster", metavar="NAME",
                           help="the clusters: entry these nodes belong to (multi-cluster configs)")
    inventory.add_argument("--output", metavar="FILE", help="write to FILE, not stdout")
    inventory.add_argument("--debug", action="store_true")


# command -> (help, add_parser keywords, what adds its arguments), in the order --help lists
_PARSERS: dict[str, tuple[str, dict[str, Any], Callable[[argparse.ArgumentParser], None]]] = {
    "lint": ("lint trees or files", {}, _lint_arguments),
    "diff": ("semantic diff of manifests of two refs", {}, _diff_arguments),
    "review": ("review a pull request", {}, _review_arguments),
    "rules": ("list rules", {}, _rules_arguments),
    "explain": ("a rule's documentation", {}, _explain_arguments),
    "netpol": ("NetworkPolicy tools", {}, _netpol_arguments),
    "inventory": ("the cluster: section from kubectl get nodes/pods -o json", {"description": (
        "Print (or write into a config) the cluster: section of .reviewbot.yaml from `kubectl "
        "get nodes -o json`, and with --pods the measured: boots from `kubectl get pods -A -o "
        "json` (- reads stdin).")}, _inventory_arguments),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` (default: the process's arguments) and return its exit code.
    Without ``argv`` the process ends with the command (the ``reviewbot`` script, whose
    ``sys.exit(main())`` follows): it ends here (:func:`_end`)."""
    code = _main(argv)
    if argv is None:
        _end(code)
    return code


def _end(code: int) -> None:
    """End the process with exit status ``code`` as the interpreter's own exit ends it, without
    its teardown: every module and object freed one by one (7.7M instructions of a one-file
    lint, 2.3%; 8.9M on JJGadgets-Biohazard), of which nothing outside the process is seen.

    What the exit does that is seen is done here, in its order: stdout and stderr flushed,
    the ``atexit`` callbacks run (the start-up cache's write, forked children reaped), the
    streams flushed again. Left to the interpreter (this returns) when a thread may still
    run (``threading`` imported: the exit waits for its threads before ``atexit``) or a
    flush fails (the exit reports it and its status is 120). No file is left open with
    data unwritten: reports, fixes and caches are written by ``with`` blocks or
    ``write_text``."""
    if "threading" in sys.modules:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - reported by the interpreter's exit, as without this
        return
    atexit._run_exitfuncs()  # clears them: the interpreter's exit would run none again
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # noqa: BLE001
        return
    os._exit(code)


def _main(argv: Sequence[str] | None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if argv is None:
        hold_until_exit()
    parser = build_parser(given[0] if given and given[0] in _PARSERS else None)
    if not given:  # no command: the help, as a usage error
        parser.print_help()
        return EXIT_USAGE
    try:
        args = parser.parse_args(given)
    except SystemExit as exc:  # argparse: usage errors exit 2, --help/--version exit 0
        return int(exc.code or 0)
    try:
        with _collector_paused(exiting=argv is None):
            return _dispatch(args)
    except ReviewbotError as exc:
        from reviewbot.escape import term  # messages name paths and objects
        for line in scrub(exc.message, os.environ).split("\n"):  # a line per problem
            print(f"reviewbot: {term(line)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("reviewbot: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # internal error: short message, traceback only with --debug
        if getattr(args, "debug", False):
            raise
        from reviewbot.escape import term
        # a library's error may quote a request that held a token: scrubbed before the cut,
        # as publishing errors are
        message = scrub(f"{type(exc).__name__}: {exc}", os.environ)
        print(f"reviewbot: internal error: {term(message)}"[:500], file=sys.stderr)
        return EXIT_INTERNAL


@contextmanager
def _collector_paused(exiting: bool) -> Iterator[None]:
    """The cyclic garbage collector off for one command (reference counting still frees).

    A run builds millions of long-lived objects (parsed documents, the model) and makes little
    cyclic garbage; every full collection rescans all of them, which measured a third of the
    CPU time of a 50k-object lint. Restored afterwards. When the process ends with the command
    (``exiting``), the run's objects are frozen first: neither the first collection after
    re-enabling nor the one at interpreter shutdown scans them (0.5-1.6 s at 50k objects).
    In-process callers (tests) get the plain collector back, so nothing stays frozen.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if exiting:
                gc.freeze()
            gc.enable()


# command -> (module under reviewbot.commands, function): imported only when that command runs
COMMANDS = {
    "lint": ("lint", "lint_command"),
    "rules": ("rules", "rules_command"),
    "explain": ("rules", "explain_command"),
    "diff": ("review", "diff_command"),
    "review": ("review", "review_command"),
    "netpol": ("netpol", "netpol_command"),
    "inventory": ("inventory", "inventory_command"),
}


def _dispatch(args: argparse.Namespace) -> int:
    target = COMMANDS.get(args.command)
    if target is None:
        raise ReviewbotError(f"unknown command {args.command}")
    module = importlib.import_module(f"reviewbot.commands.{target[0]}")
    return int(getattr(module, target[1])(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
