"""The connectivity diff: which flows two versions of a tree allow differently.

For every ordered pair of peers (workloads, external ranges, ``{ingress-controller}``) whose
allowed connections differ between ``ref1`` (old) and ``ref2`` (new): ``added`` (nothing
before), ``removed`` (nothing after) or ``changed`` (both non-empty, different sets); a
peer present on one side only is named in ``workloads-diff-info``. Renderings: np-guard
netpol-analyzer's diff txt format (``connlist``), JSON, a Markdown table and a Mermaid graph.
"""

from __future__ import annotations

import bisect
import ipaddress
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from reviewbot.netpol.ingress import INGRESS_PEER
from reviewbot.netpol.network import Flow, Network, connectivity, workload_groups
from reviewbot.netpol.sets import Interval, format_range, normalize

NO_CONNS = "No Connections"
ORDER = ("changed", "added", "removed")


@dataclass(frozen=True)
class FlowChange:
    diff_type: str  # added | removed | changed
    source: str
    destination: str
    ref1: str
    ref2: str
    info: str = ""  # "workload X added", "workload X and Y removed"

    def as_json(self) -> dict[str, str]:
        return {"diff_type": self.diff_type, "source": self.source,
                "destination": self.destination, "ref1": self.ref1, "ref2": self.ref2}

    def line(self, names: tuple[str, str] = ("ref1", "ref2")) -> str:
        text = (f"diff-type: {self.diff_type}, source: {self.source}, destination: "
                f"{self.destination}, {names[0]}: {self.ref1}, {names[1]}: {self.ref2}")
        return text + (f", workloads-diff-info: {self.info}" if self.info else "")


@dataclass(frozen=True)
class Side:
    """One version's connectivity: its flows and its workload peers."""

    flows: tuple[Flow, ...]
    peers: frozenset[str]

    @staticmethod
    def of(network: Network) -> Side:
        return Side(tuple(connectivity(network)), frozenset(workload_groups(network)))


def diff_sides(old: Side, new: Side) -> list[FlowChange]:
    """The changed flows, in np-guard's order: changed, added, removed (each sorted), the
    ingress controller's after all the others.

    External ranges differ between the sides (each cut at its own ipBlocks): both are cut at
    every boundary of either, compared piece by piece, and pieces with the same other peer
    and the same change are merged again where they touch."""
    cuts: set[int] = set()
    for flow in old.flows + new.flows:
        for name in (flow.src, flow.dst):
            piece = _ip(name)
            if piece is not None:
                cuts.update((piece[0], piece[1] + 1))
    points = sorted(cuts)
    before = _split(old.flows, points)
    after = _split(new.flows, points)
    plain: list[FlowChange] = []
    ranged: dict[tuple[str, bool, str, str, str], list[Interval]] = {}
    for key in before.keys() | after.keys():
        a, b = before.get(key, NO_CONNS), after.get(key, NO_CONNS)
        if a == b:
            continue
        kind = "added" if a == NO_CONNS else "removed" if b == NO_CONNS else "changed"
        src, dst = key
        if isinstance(src, tuple) or isinstance(dst, tuple):
            src_ip = isinstance(src, tuple)
            other = dst if src_ip else src
            piece = src if src_ip else dst
            assert isinstance(other, str) and isinstance(piece, tuple)
            ranged.setdefault((other, src_ip, kind, a, b), []).append(piece)
            continue
        assert isinstance(src, str) and isinstance(dst, str)
        plain.append(FlowChange(kind, src, dst, a, b, _info(kind, (src, dst), old, new)))
    for (other, src_ip, kind, a, b), pieces in ranged.items():
        for lo, hi in normalize(pieces):
            name = f"{format_range((lo, hi))}[External]"
            pair = (name, other) if src_ip else (other, name)
            plain.append(FlowChange(kind, pair[0], pair[1], a, b, _info(kind, pair, old, new)))
    plain.sort(key=lambda c: (c.source == INGRESS_PEER, ORDER.index(c.diff_type), c.line()))
    return plain


Key: TypeAlias = str | Interval


def _ip(name: str) -> Interval | None:
    if not name.endswith("[External]"):
        return None
    lo, _, hi = name[: -len("[External]")].partition("-")
    return int(ipaddress.IPv4Address(lo)), int(ipaddress.IPv4Address(hi))


def _split(flows: Iterable[Flow], points: list[int]) -> dict[tuple[Key, Key], str]:
    out: dict[tuple[Key, Key], str] = {}
    for flow in flows:
        conns = str(flow.conns)
        src, dst = _ip(flow.src), _ip(flow.dst)
        piece = src or dst
        if piece is None:
            out[(flow.src, flow.dst)] = conns
            continue
        at = bisect.bisect_left(points, piece[0])
        while at + 1 < len(points) and points[at] <= piece[1]:
            atom = (points[at], points[at + 1] - 1)
            out[(atom, flow.dst) if src else (flow.src, atom)] = conns
            at += 1
    return out


def _info(kind: str, key: tuple[str, str], old: Side, new: Side) -> str:
    moved = [p for p in key if (p in old.peers) != (p in new.peers)]
    if not moved:
        return ""
    return f"workload {' and '.join(moved)} {kind}"


# ---------------------------------------------------------------- renderings


def render_connlist(
    changes: Sequence[FlowChange], names: tuple[str, str] = ("ref1", "ref2")
) -> str:
    """np-guard's diff txt format; ``names``: what the two sides are called."""
    if not changes:
        return ""
    return "Connectivity diff:\n" + "".join(c.line(names) + "\n" for c in changes)


def render_json(changes: Sequence[FlowChange]) -> str:
    doc = {"version": 1, "connectivity_diff": [c.as_json() for c in changes]}
    return json.dumps(doc, indent=2) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_table(changes: Sequence[FlowChange], limit: int | None = None) -> str:
    """A Markdown table of the changes (at most ``limit`` rows, then a count of the rest)."""
    if not changes:
        return ""
    rows = list(changes if limit is None else changes[:limit])
    out = ["| change | source | destination | before | after |",
           "|---|---|---|---|---|"]
    out += [f"| {c.diff_type} | `{_cell(c.source)}` | `{_cell(c.destination)}` | "
            f"{_cell(c.ref1)} | {_cell(c.ref2)} |" for c in rows]
    if len(rows) < len(changes):
        out.append(f"\n{len(changes) - len(rows)} more changed flow(s) not shown.")
    return "\n".join(out) + "\n"


_ARROWS = {"added": "-->", "removed": "-.->", "changed": "==>"}


def _label(text: str) -> str:
    return text.replace('"', "#quot;")


def render_mermaid(changes: Sequence[FlowChange], limit: int | None = None) -> str:
    """A Mermaid graph of the changed flows: added solid, removed dotted, changed thick."""
    rows = list(changes if limit is None else changes[:limit])
    ids: dict[str, str] = {}
    nodes: list[str] = []

    def node(name: str) -> str:
        if name not in ids:
            ids[name] = f"n{len(ids)}"
            nodes.append(f'  {ids[name]}["{_label(name)}"]')
        return ids[name]

    edges = []
    for c in rows:
        a, b = node(c.source), node(c.destination)
        text = c.ref2 if c.diff_type == "added" else c.ref1 if c.diff_type == "removed" else (
            f"{c.ref1} → {c.ref2}"
        )
        edges.append(f'  {a} {_ARROWS[c.diff_type]}|"{c.diff_type}: {_label(text)}"| {b}')
    return "graph LR\n" + "".join(line + "\n" for line in nodes + edges)


def render_markdown(changes: Sequence[FlowChange]) -> str:
    if not changes:
        return "No connectivity changes.\n"
    return (f"{len(changes)} flow(s) changed.\n\n" + render_table(changes)
            + "\n```mermaid\n" + render_mermaid(changes) + "```\n")


def changes_of(old: Network, new: Network) -> list[FlowChange]:
    return diff_sides(Side.of(old), Side.of(new))


def summarize(changes: Iterable[FlowChange]) -> dict[str, int]:
    counts = dict.fromkeys(ORDER, 0)
    for c in changes:
        counts[c.diff_type] += 1
    return counts
