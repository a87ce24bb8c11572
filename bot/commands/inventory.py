"""The `inventory` command: the `cluster:` (and `measured:`) sections of `.reviewbot.yaml` from
`kubectl get nodes -o json` and `kubectl get pods -A -o json`, printed or written in place:
nodes, the cluster's `kubernetes-version` (the lowest kubelet minor), measured boots.

The logic is :mod:`reviewbot.model.inventory`'s; writing keeps every byte of the file outside the
updated sections (:func:`reviewbot.load.loader.update_sections`, ruamel.yaml's round-trip mode).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from reviewbot.config import VERSION_KEY, parse_config
from reviewbot.engine.options import check_options
from reviewbot.errors import ReviewbotError
from reviewbot.load.loader import ProblemError, dump_yaml, update_sections
from reviewbot.model.inventory import KubeletVersions, Scan, from_kubectl
from reviewbot.output import emit


def inventory_command(args: argparse.Namespace) -> int:
    if args.nodes == "-" and args.pods == "-":
        raise ReviewbotError("only one of --nodes and --pods can read stdin (-)")
    nodes_text, nodes_name = _read(args.nodes)
    pods_text, pods_name = _read(args.pods) if args.pods else (None, "")
    scan = from_kubectl(nodes_text, nodes_name, pods_text, pods_name)
    nodes, measured, version = scan.nodes, scan.measured, scan.versions.minor
    if args.write:
        changed = _write(Path(args.write), nodes, measured, getattr(args, "cluster", None),
                         version)
        what = _count(len(nodes), "node") + (
            f", Kubernetes {version}" if version else "") + (
            f", {_count(len(measured), 'measured boot')}" if args.pods else "")
        done = "updated" if changed else "already up to date:"
        print(f"reviewbot: {done} {args.write} ({what})", file=sys.stderr)
        for line in _version_notes(scan.versions):
            print(f"reviewbot: {line}", file=sys.stderr)
        return 0
    emit(render(scan, nodes_name, pods_name if args.pods else None,
                getattr(args, "cluster", None)), args.output)
    return 0


def _version_notes(versions: KubeletVersions) -> list[str]:
    """What the header says of the version: where it came from, the spread, what is missing."""
    if versions.minor is None:
        return ["no node reports a kubelet version (status.nodeInfo.kubeletVersion): "
                "kubernetes-version is not written"]
    out = [f"kubernetes-version {versions.minor}: the lowest kubelet minor"]
    if versions.spread:
        out[0] += f" (kubelets: {versions.spread})"
    return out


def render(scan: Scan, nodes_name: str, pods_name: str | None,
           cluster: str | None = None) -> str:
    """The sections as YAML, with a header saying where they came from."""
    head = [f"# reviewbot inventory: {_count(len(scan.nodes), 'node')} from {nodes_name}"]
    head += [f"# {line}" for line in _version_notes(scan.versions)]
    if pods_name is not None:
        head.append(f"# measured boots (first container start -> Ready, the longest pod) from "
                    f"{pods_name}:")
        head += [f"#   {b.workload}: {b.seconds}s ({b.pod}, {b.pods} ready "
                 f"pod{'' if b.pods == 1 else 's'})" for b in scan.boots]
    entry: dict[str, Any] = {"name": cluster} if cluster else {}
    if scan.versions.minor:
        entry[VERSION_KEY] = scan.versions.minor
    entry["nodes"] = scan.nodes
    section: dict[str, Any] = {"clusters": [entry]} if cluster else {"cluster": entry}
    if pods_name is not None:
        section["measured"] = scan.measured
    return "\n".join(head) + "\n" + dump_yaml(section)


def _write(path: Path, nodes: list[dict[str, Any]], measured: dict[str, dict[str, Any]],
           cluster: str | None, version: str | None = None) -> bool:
    """Write the sections into ``path``; False when it already said exactly that."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewbotError(f"cannot read {path}: {exc}") from exc
    current = parse_config(text.encode(), str(path)).raw if text.strip() else {}
    if "clusters" in current and not cluster:
        raise ReviewbotError(f"{path} lists clusters: name the one these nodes are with "
                             "--cluster NAME")
    if cluster and "cluster" in current:
        raise ReviewbotError(f"{path} has one cluster: section; drop --cluster")
    updates: dict[str, Any] = {}
    if cluster:
        updates["clusters"] = lambda old: _set_cluster(old, cluster, nodes, path, version)
    else:
        updates["cluster"] = lambda old: _set_nodes(old, nodes, version)
    if measured:
        updates["measured"] = lambda old: _merge_measured(old, measured)
    try:
        new = update_sections(text, updates, str(path))
    except ProblemError as exc:
        raise ReviewbotError(exc.message) from None
    check_options(parse_config(new.encode(), str(path)))  # it must read back as a valid config
    if new == text:
        return False
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", prefix=".reviewbot-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(new)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ReviewbotError(f"cannot write {path}: {exc.strerror}") from exc
    return True


def _set_nodes(old: Any, nodes: list[dict[str, Any]], version: str | None) -> Any:
    out = old if isinstance(old, dict) else {}
    _set_version(out, version)
    out["nodes"] = nodes
    return out


def _set_version(entry: Any, version: str | None) -> None:
    """The measured version replaces the one written (a hand-set one included); a scan that
    reads none leaves it as it is."""
    if version:
        entry[VERSION_KEY] = version


def _set_cluster(old: Any, name: str, nodes: list[dict[str, Any]], path: Path,
                 version: str | None) -> Any:
    items = old if isinstance(old, list) else []
    for item in items:
        if isinstance(item, dict) and item.get("name") == name:
            _set_version(item, version)
            item["nodes"] = nodes
            return old
    names = ", ".join(str(i.get("name")) for i in items if isinstance(i, dict)) or "none"
    raise ReviewbotError(f"{path} lists no cluster named {name!r} (clusters: {names})")


def _merge_measured(old: Any, measured: dict[str, dict[str, Any]]) -> Any:
    """The existing entries kept (other facts, other workloads); the boots set."""
    out = old if isinstance(old, dict) else {}
    for workload, facts in measured.items():
        entry = out.get(workload)
        if isinstance(entry, dict):
            entry.update(facts)
        else:
            out[workload] = dict(facts)
    return out


def _read(name: str) -> tuple[str, str]:
    if name == "-":
        return sys.stdin.read(), "stdin"
    try:
        return Path(name).read_text(encoding="utf-8"), name
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewbotError(f"cannot read {name}: {exc}") from exc


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
