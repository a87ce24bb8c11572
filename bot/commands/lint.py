"""The `lint` command."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from reviewbot.commands.common import lint_tree, make_report
from reviewbot.errors import ReviewbotError
from reviewbot.output import emit, exit_code, hold, use_color
from reviewbot.report.render import render
from reviewbot.sources.tree import staged_files


def lint_command(args: argparse.Namespace) -> int:
    if getattr(args, "fix", False) or getattr(args, "diff", False):
        from reviewbot.commands.fix import fix_command
        return fix_command(args)
    tree, config, result = lint_tree(args)
    hold(tree, config, result)  # freed by the process's end, not one object at a time
    model = result.model
    if not (result.findings or model.objects or model.kustomizations or model.pods
            or getattr(args, "allow_empty", False)):
        where = ", ".join(getattr(args, "paths", None) or ["."])
        raise ReviewbotError(f"no Kubernetes manifests found in {where} (--allow-empty to "
                             "accept that)")
    only = getattr(args, "only_files", None)
    if only is not None:
        wanted = _wanted_files(only, tree.root)
        result = replace(result, findings=[f for f in result.findings if _within(f.file, wanted)])
    if args.format == "rdjson":  # reviewdog applies fixes given as suggestions
        from reviewbot.engine.fixer import with_suggestions
        result.findings = with_suggestions(tree, config, result, result.findings,
                                           lambda f: True)
    color = use_color(args.color, args.output)
    emit(render(make_report(result, tree, terse=bool(getattr(args, "quiet", False))),
                args.format, color=color), args.output)
    return exit_code(result.findings, args.fail_on or config.fail_on or "error")


def _wanted_files(only: list[str], root: Path) -> frozenset[str]:
    """``--only-files``: the named files and folders (relative to the repository root), or
    with none named, the files staged in git (what a pre-commit hook checks). A folder's
    files are all wanted, kept as its path and a ``/`` (new-user trial eighty-seven W4: one
    app's folder judged with the whole repository as its context)."""
    if not only:
        return frozenset(staged_files(root))
    out = set()
    for name in only:
        path = Path(name)
        full = path if path.is_absolute() else Path.cwd() / path
        outside = False
        try:
            rel = full.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            rel, outside = path.as_posix(), True
        if outside or not full.exists():
            # (a filter naming nothing of the repository reports nothing: said, so that a
            # typo is no clean pass; new-user trial ninety D1)
            from reviewbot.escape import term
            print(f"reviewbot: --only-files {term(name)}: no file or folder of the repository "
                  f"{term(str(root))}, so no finding is reported for it", file=sys.stderr)
        out.add(rel + "/" if full.is_dir() and rel != "." else "" if rel == "." else rel)
    return frozenset(out)


def _within(file: str, wanted: frozenset[str]) -> bool:
    """Whether a finding's ``file`` is one of ``wanted`` or below a folder of it (written with
    a trailing ``/``; ``""``: the repository's root, every file)."""
    if file in wanted or "" in wanted:
        return True
    return any(w.endswith("/") and file.startswith(w) for w in wanted)
