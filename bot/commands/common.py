"""What every command shares: finding the repository root and the configuration, loading a tree
(through the parse cache when asked), the report of a lint run."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reviewbot.config import Config, find_config, load_config_file
from reviewbot.engine.findings import quiet_notes
from reviewbot.engine.run import Result, analyze
from reviewbot.report import Report
from reviewbot.sources.tree import Tree, disk_tree, repo_root


def resolve_config(args: argparse.Namespace, root: Path, start: Path) -> Config:
    if args.config:
        config = load_config_file(Path(args.config))
    else:
        found = find_config(start, root)
        config = load_config_file(found, _display(found, root)) if found else Config()
    if getattr(args, "kubeconform", None):
        config = config.with_options("schema", {"kubeconform": args.kubeconform})
    return config


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def file_loader(args: argparse.Namespace, root: Path, trees: Sequence[Path] = ()) -> Any:
    """The blob-keyed parse cache when ``--cache`` is given (``engine.load_files`` uses it);
    refused inside the git repository at ``root`` or the linted ``trees``: a change could
    plant entries there."""
    if getattr(args, "cache", None):
        from reviewbot.load.cache import ParseCache, check_location
        in_git = (root / ".git").exists()
        check_location(Path(args.cache), [*trees, *([root] if in_git else [])])
        return ParseCache(Path(args.cache))
    return None


def lint_tree(args: argparse.Namespace) -> tuple[Tree, Config, Result]:
    targets = [Path(p) for p in args.paths]
    root = repo_root(targets[0] if targets else Path.cwd())
    start = targets[0] if len(targets) == 1 else Path.cwd()
    config = resolve_config(args, root, start)
    if config.source is None:
        here = start.resolve() if start.is_dir() else start.resolve().parent
        where = f"{here} up to {root}" if here == root or root in here.parents else str(here)
        print(f"reviewbot: no .reviewbot.yaml in {where}: default rule options, no cluster "
              "inventory", file=sys.stderr)
    tree = disk_tree(targets, root)
    if getattr(args, "render", False):
        from reviewbot.model.render import render_tree
        tree = render_tree(tree)
    result = analyze(tree, config, only=args.rule, loader=file_loader(args, root, targets))
    return tree, config, result


def make_report(result: Result, **kwargs: Any) -> Report:
    sources = {f.file: result.model.files[f.file].text
               for f in result.findings if f.file in result.model.files}
    return Report(
        findings=tuple(result.findings), skipped=tuple(result.skipped),
        quiet=tuple(quiet_notes(result.model.notes)),
        stats=dict(result.stats), sources=sources, **kwargs,
    )
