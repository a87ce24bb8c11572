"""The `netpol` commands: `netpol connectivity` (allowed flows between workloads)."""

from __future__ import annotations

import argparse
from pathlib import Path

from reviewbot.commands.common import file_loader, resolve_config
from reviewbot.engine.run import load_model
from reviewbot.errors import ReviewbotError
from reviewbot.netpol.network import (
    Network,
    connectivity,
    render_connlist,
    render_json,
    render_text,
)
from reviewbot.output import emit
from reviewbot.sources.tree import disk_tree, repo_root, with_json_files


def netpol_command(args: argparse.Namespace) -> int:
    if args.netpol_command == "connectivity":
        return connectivity_command(args)
    raise ReviewbotError(f"unknown netpol command {args.netpol_command}")


def connectivity_command(args: argparse.Namespace) -> int:
    targets = [Path(p) for p in args.paths] or [Path(".")]
    root = repo_root(targets[0])
    config = resolve_config(args, root, targets[0] if len(targets) == 1 else Path.cwd())
    tree = with_json_files(disk_tree(targets, root))
    if getattr(args, "render", False):
        from reviewbot.model.render import render_tree
        tree = render_tree(tree)
    model = load_model(tree, config, file_loader(args, root, targets))
    network = Network(model)
    flows = connectivity(network)
    if args.format == "connlist":
        text = render_connlist(flows)
    elif args.format == "json":
        text = render_json(flows, network)
    else:
        text = render_text(flows, network)
    emit(text, args.output)
    return 0
