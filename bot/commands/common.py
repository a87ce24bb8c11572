"""What every command shares: finding the repository root and the configuration, loading a tree
(through the parse cache when asked), the report of a lint run."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reviewbot.config import (
    CONFIG_NAME,
    Config,
    Overrides,
    find_config,
    guard_binaries,
    load_config_file,
)
from reviewbot.engine.options import check_options
from reviewbot.escape import term
from reviewbot.report.base import Report
from reviewbot.sources.tree import (
    Tree,
    check_targets,
    common_start,
    disk_tree,
    repo_root,
)

if TYPE_CHECKING:
    from reviewbot.engine.findings import Finding
    from reviewbot.engine.run import Result


def resolve_config(args: argparse.Namespace, root: Path, start: Path) -> Config:
    if args.config:
        config = load_config_file(Path(args.config))
    else:
        found = find_config(start, root)
        config = load_config_file(found, _display(found, root)) if found else Config()
    return command_line_settings(check_options(config), args)


def command_line_settings(config: Config, args: argparse.Namespace) -> Config:
    """``config`` with what the command line sets over it (:class:`Overrides`)."""
    return overrides(args).apply(config)


def overrides(args: argparse.Namespace) -> Overrides:
    """What the command line sets over the configuration: ``--kubeconform``,
    ``--kubernetes-version`` (every cluster's), ``--target-kubernetes-version``."""
    return Overrides(getattr(args, "kubeconform", None) or None,
                     getattr(args, "kubernetes_version", None),
                     getattr(args, "target_kubernetes_version", None))


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def untrusted(root: Path, trees: Sequence[Path] = ()) -> list[Path]:
    """What the reviewed change controls: the linted ``trees`` and the git repository at
    ``root`` (without git, the current directory is not one of them)."""
    return [*trees, *([root] if (root / ".git").exists() else [])]


def file_loader(args: argparse.Namespace, root: Path, trees: Sequence[Path] = ()) -> Any:
    """The blob-keyed parse cache when ``--cache`` is given (``engine.load_files`` uses it);
    refused inside the git repository at ``root`` or the linted ``trees``: a change could
    plant entries there."""
    if getattr(args, "cache", None):
        from reviewbot.load.cache import ParseCache, check_location
        check_location(Path(args.cache), untrusted(root, trees))
        return ParseCache(Path(args.cache))
    return None


def lint_tree(args: argparse.Namespace) -> tuple[Tree, Config, Result]:
    targets = [Path(p) for p in args.paths] or [Path(".")]
    check_targets(targets)  # before the configuration is looked for: the one error said
    start = common_start(targets)
    root = repo_root(start)
    config = resolve_config(args, root, start)
    if not getattr(args, "kubeconform", None):
        guard_binaries(config, untrusted(root, targets))
    if getattr(args, "quiet", False):
        pass  # (--quiet: which configuration was read is no problem to say)
    elif config.source is None:
        here = start.resolve() if start.is_dir() else start.resolve().parent
        where = f"{here} up to {root}" if root in here.parents else str(here)
        print(f"reviewbot: no .reviewbot.yaml in {term(where)}: default rule options, no cluster "
              "inventory", file=sys.stderr)
    elif len(targets) > 1:  # several PATHs: say which file their common folder led to
        print(f"reviewbot: configuration from {term(config.source)}", file=sys.stderr)
    tree = disk_tree(targets, root, config.max_file_bytes)
    if getattr(args, "render", False):
        from reviewbot.model.render import render_tree
        tree = render_tree(tree)
    from reviewbot.engine.run import analyze  # here: a review read back never runs the rules

    result = analyze(tree, config, only=args.rule, loader=file_loader(args, root, targets))
    if all(t.resolve() == root.resolve() for t in targets):  # (part of a tree may hold none)
        from reviewbot.model.workload import unapplied_holding, unmatched_measured

        for key, near in unmatched_measured(result.model):
            aside = unapplied_holding(result.model, key)
            print(f"reviewbot: {term(config.source or CONFIG_NAME)}: measured entry "
                  f"{term(key)} names "
                  + (f"a workload of {term(aside)}, which no cluster root applies" if aside
                     else "no workload of this tree"
                     + (f" (did you mean {term(near)}?)" if near else ""))
                  + ": its facts reach nothing", file=sys.stderr)
        # (and a clusters: entry naming no cluster of the tree, whose nodes and version then
        # judge nothing: said where the stale measured entry is, not only under skipped;
        # new-user trial eighty-one W11)
        for skipped in result.model.skipped:
            if skipped.path == ".reviewbot.yaml" and skipped.reason.startswith(
                    "clusters: entry "):
                print(f"reviewbot: {term(config.source or CONFIG_NAME)}: {term(skipped.reason)}",
                      file=sys.stderr)
    if tree.sources:  # --render: findings point at the source's lines, as it writes them
        result = replace(result, findings=_at_sources(tree, result))
    return tree, config, result


def _at_sources(tree: Tree, result: Result) -> list[Finding]:
    """``--render``: each finding in a rendered file at the line and column of its source
    file (a copy of a source built twice at the source's lines), as the report quotes it,
    in the order the engine gives findings (so alike ones at one place stay together)."""
    from reviewbot.engine.run import total_order
    from reviewbot.load.loader import decode_text
    from reviewbot.model.render import source_column, source_line

    shifts = dict(tree.shifted)
    sources = {r.path: decode_text(r.data).split("\n") for r in tree.sources}
    rendered: dict[str, list[str]] = {}
    out = []
    for f in result.findings:
        lines = sources.get(f.file)
        if lines is None or f.file not in result.model.files:
            out.append(f)
            continue
        written = rendered.get(f.file)
        if written is None:
            written = rendered[f.file] = result.model.files[f.file].text.split("\n")
        line = source_line(shifts.get(f.file, ()), f.line)
        column = f.column
        if 0 < f.line <= len(written) and 0 < line <= len(lines):
            column = source_column(written[f.line - 1], lines[line - 1], f.column)
        out.append(replace(f, line=line, column=column))
    return sorted(out, key=total_order)


def make_report(result: Result, tree: Tree | None = None, **kwargs: Any) -> Report:
    """The report of ``result``; with ``--render`` (``tree.sources``), quoting the source
    files, not the rendered ones."""
    from reviewbot.engine.findings import (  # (imported by the run already)
        clusters_said,
        one_per_place,
    )
    from reviewbot.load.loader import decode_text

    sources = {f.file: result.model.files[f.file].text
               for f in result.findings if f.file in result.model.files}
    if tree is not None and tree.sources:
        sources.update({r.path: decode_text(r.data) for r in tree.sources if r.path in sources})
    return Report(
        findings=tuple(clusters_said(one_per_place(result.findings))),
        skipped=tuple(result.skipped),
        quiet=tuple(result.quiet),
        stats=dict(result.stats), sources=sources, **kwargs,
    )
