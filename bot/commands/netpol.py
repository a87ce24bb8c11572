"""The `netpol` commands: `netpol connectivity` (allowed flows between workloads) and `netpol
diff` (the flows that changed between two trees or git refs)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from reviewbot.commands.common import file_loader, resolve_config
from reviewbot.engine.run import load_model
from reviewbot.errors import ReviewbotError
from reviewbot.escape import json_text, md_code, md_text, term
from reviewbot.netpol.diff import (
    changes_of,
    merged_note,
    networks,
    render_markdown,
    render_mermaid,
    waiting_note,
)
from reviewbot.netpol.diff import render_connlist as render_diff_connlist
from reviewbot.netpol.diff import render_json as render_diff_json
from reviewbot.netpol.ingress import IngressController
from reviewbot.netpol.network import (
    Network,
    connectivity,
    render_connlist,
    render_json,
    render_text,
)
from reviewbot.output import emit
from reviewbot.sources.tree import (
    disk_tree,
    git_tree,
    repo_root,
    resolve_ref,
    with_json_files,
)


def netpol_command(args: argparse.Namespace) -> int:
    if args.netpol_command == "connectivity":
        return connectivity_command(args)
    if args.netpol_command == "diff":
        return diff_command(args)
    raise ReviewbotError(f"unknown netpol command {args.netpol_command}")


def connectivity_command(args: argparse.Namespace) -> int:
    targets = [Path(p) for p in args.paths] or [Path(".")]
    root = repo_root(targets[0])
    config = resolve_config(args, root, targets[0] if len(targets) == 1 else Path.cwd())
    tree = with_json_files(disk_tree(targets, root, config.max_file_bytes))
    if getattr(args, "render", False):
        from reviewbot.model.render import render_tree
        tree = render_tree(tree)
    model = load_model(tree, config, file_loader(args, root, targets))
    nets = networks(model, IngressController.from_config(config.section("netpol")))
    found = [(name, connectivity(net), net) for name, net in nets]
    if args.format == "connlist":
        # where the tree holds several clusters, each cluster's lines after one naming it
        text = "".join((f"cluster: {term(name)}\n" if name else "") + render_connlist(flows)
                       for name, flows, _ in found)
        _notes(_merged_notes(nets))
    elif args.format == "json":
        text = render_json(found, _merged_notes(nets))
    else:
        text = render_text(found, _merged_notes(nets))
    emit(text, args.output)
    return 0


def _merged_notes(nets: list[tuple[str, Network]]) -> list[str]:
    """Each cluster's notes, a note several give alike once (naming them)."""
    said: dict[str, list[str]] = {}
    for name, net in nets:
        for note in net.all_notes():
            said.setdefault(note, []).append(name)
    return [merged_note(note, names, len(nets)) for note, names in said.items()]


def diff_command(args: argparse.Namespace) -> int:
    sides = []
    models = []
    config = None
    for where in (args.old, args.new):
        path = Path(where)
        if args.repo is None and path.is_dir():
            root = repo_root(path)
            config = config or resolve_config(args, root, path)
            tree = with_json_files(disk_tree([path], root, config.max_file_bytes))
        else:
            repo = Path(args.repo or ".")
            root = repo_root(repo)
            config = config or resolve_config(args, root, root)
            try:
                tree = git_tree(root, resolve_ref(root, where))
            except ReviewbotError as exc:  # git's own message: not a folder, not a ref
                raise ReviewbotError(
                    f"{where}: neither a folder nor a git ref of {root} ({exc})"
                ) from exc
        if getattr(args, "render", False):
            from reviewbot.model.render import render_tree
            tree = render_tree(tree)
        model = load_model(tree, config, file_loader(args, root, [path] if path.is_dir() else []))
        models.append(model)
        sides.append(networks(model, IngressController.from_config(config.section("netpol"))))
    changes = changes_of(sides[0], sides[1])
    sides_of_note: dict[str, list[str]] = {}  # a note both sides give is said once
    for name, nets in zip(("ref1", "ref2"), sides, strict=True):
        for note in _merged_notes(nets):
            if name not in sides_of_note.setdefault(note, []):
                sides_of_note[note].append(name)
    notes = [f"{' and '.join(names)}: {note}" for note, names in sides_of_note.items()]
    if changes:  # made by changes in a build kustomize refuses on NEW: as the review says
        from reviewbot.diff.models import diff_models

        waiting = waiting_note(diff_models(models[0], models[1]))
        notes = ([waiting] if waiting else []) + notes
    if args.format == "connlist":
        names = tuple(args.ref_names.split(",", 1)) if "," in args.ref_names else None
        if names is None:
            raise ReviewbotError(f"--ref-names {args.ref_names}: expected OLD_NAME,NEW_NAME")
        text = render_diff_connlist(changes, (names[0], names[1]))
        # (np-guard's connlist of no change is empty, and its log says so; so does this)
        _notes(notes if changes else ["no connectivity changes", *notes])
    elif args.format == "json":
        doc = json.loads(render_diff_json(changes))
        doc["notes"] = notes
        text = json_text(doc) + "\n"
    elif args.format == "markdown":
        text = render_markdown(changes, md_code) + "".join(
            f"\n> Note: {md_text(n)}\n" for n in notes)
    else:
        text = render_mermaid(changes) + "".join(
            f"%% note: {term(' '.join(n.split()))}\n" for n in notes)
    emit(text, args.output)
    return 0


def _notes(notes: list[str]) -> None:
    """Notes beside a format that has no place for them (np-guard's connlist): on stderr."""
    for note in notes:
        print(f"reviewbot: note: {term(note)}", file=sys.stderr)
