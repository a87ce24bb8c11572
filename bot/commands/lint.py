"""The `lint` command."""

from __future__ import annotations

import argparse

from reviewbot.commands.common import lint_tree, make_report
from reviewbot.output import emit, exit_code, use_color
from reviewbot.report import render


def lint_command(args: argparse.Namespace) -> int:
    if getattr(args, "fix", False) or getattr(args, "diff", False):
        from reviewbot.commands.fix import fix_command
        return fix_command(args)
    tree, config, result = lint_tree(args)
    if args.format == "rdjson":  # reviewdog applies fixes given as suggestions
        from reviewbot.engine.fixer import with_suggestions
        result.findings = with_suggestions(tree, config, result, result.findings,
                                           lambda f: True)
    color = use_color(args.color, args.output)
    emit(render(make_report(result), args.format, color=color), args.output)
    return exit_code(result.findings, args.fail_on or config.fail_on or "error")
