"""Sets the NetworkPolicy evaluator computes with: port ranges per protocol, IPv4 ranges.

Both are canonical sorted tuples of disjoint, non-adjacent inclusive intervals, so equal sets
are equal values. ``Conns`` prints in np-guard netpol-analyzer's text format
(``All Connections``, ``SCTP 7070,TCP 8080-8081,UDP 9090``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

PROTOCOLS = ("SCTP", "TCP", "UDP")  # sorted: the order np-guard prints them in
MIN_PORT, MAX_PORT = 1, 65535
IPV4_MAX = (1 << 32) - 1

Interval = tuple[int, int]
Intervals = tuple[Interval, ...]


def normalize(intervals: Iterable[Interval]) -> Intervals:
    """Sorted, disjoint, with touching intervals merged; empty intervals dropped."""
    out: list[list[int]] = []
    for lo, hi in sorted(i for i in intervals if i[0] <= i[1]):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((a, b) for a, b in out)


def intersect(a: Intervals, b: Intervals) -> Intervals:
    out: list[Interval] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def subtract(a: Intervals, b: Intervals) -> Intervals:
    out: list[Interval] = []
    for lo, hi in a:
        start = lo
        for blo, bhi in b:
            if bhi < start or blo > hi:
                continue
            if blo > start:
                out.append((start, blo - 1))
            start = max(start, bhi + 1)
            if start > hi:
                break
        if start <= hi:
            out.append((start, hi))
    return normalize(out)


def format_intervals(intervals: Intervals) -> str:
    return ",".join(str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in intervals)


ALL_PORTS: Intervals = ((MIN_PORT, MAX_PORT),)


@dataclass(frozen=True, slots=True)
class Conns:
    """Allowed connections: port intervals per protocol (absent protocol: none)."""

    by_protocol: tuple[tuple[str, Intervals], ...] = ()

    @staticmethod
    def make(parts: Iterable[tuple[str, Intervals]]) -> Conns:
        merged: dict[str, list[Interval]] = {}
        for protocol, intervals in parts:
            merged.setdefault(protocol, []).extend(intervals)
        items = []
        for protocol in sorted(merged):
            norm = intersect(normalize(merged[protocol]), ALL_PORTS)
            if norm:
                items.append((protocol, norm))
        result = tuple(items)
        return ALL if result == ALL.by_protocol else Conns(result)

    @staticmethod
    def all() -> Conns:
        return ALL

    @staticmethod
    def none() -> Conns:
        return NONE

    @staticmethod
    def ports(protocol: str, lo: int = MIN_PORT, hi: int = MAX_PORT) -> Conns:
        lo, hi = max(lo, MIN_PORT), min(hi, MAX_PORT)
        if lo > hi:
            return NONE
        if (lo, hi) == (MIN_PORT, MAX_PORT):
            return Conns.make([(protocol, ALL_PORTS)])
        return Conns(((protocol, ((lo, hi),)),))

    def get(self, protocol: str) -> Intervals:
        for p, intervals in self.by_protocol:
            if p == protocol:
                return intervals
        return ()

    def __bool__(self) -> bool:
        return bool(self.by_protocol)

    @property
    def is_all(self) -> bool:
        return self is ALL  # make() returns the one ALL for every complete set

    def union(self, other: Conns) -> Conns:
        if not other or self.is_all:
            return self
        if not self or other.is_all:
            return other
        return Conns.make(list(self.by_protocol) + list(other.by_protocol))

    def intersect(self, other: Conns) -> Conns:
        if self.is_all:
            return other
        if other.is_all:
            return self
        parts = []
        for protocol, intervals in self.by_protocol:
            both = intersect(intervals, other.get(protocol))
            if both:
                parts.append((protocol, both))
        return Conns(tuple(parts))

    def subtract(self, other: Conns) -> Conns:
        """The connections of ``self`` that ``other`` does not hold."""
        if not other or not self:
            return self
        if other.is_all:
            return NONE
        parts = []
        for protocol, intervals in self.by_protocol:
            rest = subtract(intervals, other.get(protocol))
            if rest:
                parts.append((protocol, rest))
        return Conns(tuple(parts))

    def overlaps(self, other: Conns) -> bool:
        """Whether the two sets share a connection (``bool(self.intersect(other))``, cheaper)."""
        if not self or not other:
            return False
        if self is ALL or other is ALL:
            return True
        for protocol, mine in self.by_protocol:
            theirs = other.get(protocol)
            i = j = 0
            while i < len(mine) and j < len(theirs):
                if mine[i][1] < theirs[j][0]:
                    i += 1
                elif theirs[j][1] < mine[i][0]:
                    j += 1
                else:
                    return True
        return False

    def contains(self, protocol: str, port: int) -> bool:
        return any(lo <= port <= hi for lo, hi in self.get(protocol))

    def __str__(self) -> str:
        if self.is_all:
            return "All Connections"
        if not self:
            return "No Connections"
        return ",".join(f"{p} {format_intervals(i)}" for p, i in self.by_protocol)

    def as_json(self) -> dict[str, list[list[int]]]:
        return {p: [[lo, hi] for lo, hi in i] for p, i in self.by_protocol}


ALL = Conns(tuple((p, ALL_PORTS) for p in PROTOCOLS))
NONE = Conns(())


def union_all(conns: Iterable[Conns]) -> Conns:
    out = NONE
    for c in conns:
        out = out.union(c)
        if out.is_all:
            break
    return out


# ---------------------------------------------------------------- IPv4 ranges


@dataclass(frozen=True, slots=True)
class IPBlock:
    """An ``ipBlock``: a CIDR minus its exceptions, as IPv4 intervals (empty for IPv6)."""

    cidr: str
    excepts: tuple[str, ...]
    ranges: Intervals
    valid: bool = True

    @staticmethod
    def parse(cidr: object, excepts: object) -> IPBlock:
        text = str(cidr) if cidr is not None else ""
        raw_except = [str(e) for e in excepts] if isinstance(excepts, list) else []
        base = cidr_range(text)
        if base is None:
            return IPBlock(text, tuple(raw_except), (), valid=_is_ipv6(text))
        cut = [r for r in (cidr_range(e) for e in raw_except) if r is not None]
        return IPBlock(text, tuple(raw_except), subtract((base,), normalize(cut)))

    def contains(self, piece: Interval) -> bool:
        return any(lo <= piece[0] and piece[1] <= hi for lo, hi in self.ranges)


@lru_cache(maxsize=4096)
def cidr_range(text: str) -> Interval | None:
    """An IPv4 CIDR as an inclusive integer interval (host bits ignored); None otherwise.
    Kept per text (policies repeat the same few CIDRs; ``ipaddress`` parses slowly)."""
    try:
        net = ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return None
    if net.version != 4:
        return None
    return int(net.network_address), int(net.broadcast_address)


def _is_ipv6(text: str) -> bool:
    try:
        return ipaddress.ip_network(text.strip(), strict=False).version == 6
    except ValueError:
        return False


def format_range(piece: Interval) -> str:
    return f"{ipaddress.IPv4Address(piece[0])}-{ipaddress.IPv4Address(piece[1])}"


def ip_pieces(blocks: Sequence[Intervals]) -> list[Interval]:
    """The peers IP traffic splits into: every contiguous piece of every Venn region of
    ``blocks`` and the whole IPv4 space. Pieces of different regions are never merged, even
    when they touch.

    A sweep over the cut points: at each, only the blocks that start or end there can change
    which blocks hold the next piece, so the work is linear in the intervals (comparing every
    piece's membership in every block was quadratic: 8,000 ipBlocks took a minute)."""
    events: dict[int, list[tuple[int, int]]] = {}  # point -> (block, +1 starts / -1 ends)
    for b, block in enumerate(blocks):
        for lo, hi in block:
            events.setdefault(lo, []).append((b, 1))
            events.setdefault(hi + 1, []).append((b, -1))
    points = sorted({0, IPV4_MAX + 1, *events})
    inside = [0] * len(blocks)  # how many of a block's intervals hold the current point
    out: list[Interval] = []
    for k in range(len(points) - 1):
        point = points[k]
        was: dict[int, bool] = {}
        for b, step in events.get(point, ()):
            was.setdefault(b, inside[b] > 0)
            inside[b] += step
        changed = any((inside[b] > 0) != held for b, held in was.items())
        piece = (point, points[k + 1] - 1)
        if out and not changed and out[-1][1] + 1 == piece[0]:
            out[-1] = (out[-1][0], piece[1])
        else:
            out.append(piece)
    return out
