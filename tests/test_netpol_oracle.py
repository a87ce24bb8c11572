"""The peer oracle: np-guard netpol-analyzer's `list` (and `--explain`) output on its fixtures.

Every fixture folder under `shared/netpol-oracle/` (beside the clone; or the folder named by
REVIEWBOT_NETPOL_ORACLE) and `shared/netpol-oracle-anp/` (AdminNetworkPolicy and
BaselineAdminNetworkPolicy fixtures) holds `manifests/` and `expected.txt`.
`reviewbot netpol connectivity FIXTURE/manifests --format connlist` must print exactly
`expected.txt`: every
workload-to-workload line and every IP-range line, in the same order.
"""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path

import pytest

from reviewbot.cli import main
from reviewbot.config import Config
from reviewbot.engine.parse import load_files
from reviewbot.model.builder import build_model
from reviewbot.netpol.network import Network, workload_groups
from reviewbot.netpol.sets import ALL, NONE, Conns, Interval, union_all
from reviewbot.sources.tree import disk_tree, with_json_files

from .helpers import NETPOL_ORACLE

FIXTURES = sorted(p for p in NETPOL_ORACLE.glob("*") if (p / "expected.txt").is_file())
ANP_ORACLE = NETPOL_ORACLE.parent / "netpol-oracle-anp"
ANP_FIXTURES = sorted(p for p in ANP_ORACLE.glob("*") if (p / "expected.txt").is_file())


def _run(fixture: Path, tmp_path: Path) -> list[str]:
    out = tmp_path / "connlist.txt"
    code = main([
        "netpol", "connectivity", str(fixture / "manifests"), "--format", "connlist",
        "--output", str(out),
    ])
    assert code == 0
    return out.read_text().splitlines()


@pytest.mark.skipif(not FIXTURES, reason=f"netpol oracle fixtures not found at {NETPOL_ORACLE}")
@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_connlist_matches_np_guard(fixture: Path, tmp_path: Path) -> None:
    expected = (fixture / "expected.txt").read_text().splitlines()
    got = _run(fixture, tmp_path)
    workloads = [line for line in got if "[External]" not in line]
    assert workloads == [line for line in expected if "[External]" not in line]
    assert got == expected


@pytest.mark.skipif(not ANP_FIXTURES, reason=f"ANP oracle fixtures not found at {ANP_ORACLE}")
@pytest.mark.parametrize("fixture", ANP_FIXTURES, ids=lambda p: p.name)
def test_admin_policies_match_np_guard(fixture: Path, tmp_path: Path) -> None:
    assert _run(fixture, tmp_path) == (fixture / "expected.txt").read_text().splitlines()


@pytest.mark.skipif(not ANP_FIXTURES, reason=f"ANP oracle fixtures not found at {ANP_ORACLE}")
def test_anp_oracle_is_not_trivial() -> None:
    assert len(ANP_FIXTURES) >= 25
    kinds = "".join((f / "manifests").joinpath(n).read_text() for f in ANP_FIXTURES
                    for n in os.listdir(f / "manifests"))
    assert "kind: AdminNetworkPolicy" in kinds and "kind: BaselineAdminNetworkPolicy" in kinds


@pytest.mark.skipif(not FIXTURES, reason=f"netpol oracle fixtures not found at {NETPOL_ORACLE}")
def test_oracle_is_not_trivial() -> None:
    """The comparison above means something only if the fixtures are really there."""
    assert len(FIXTURES) >= 30
    assert sum(1 for f in FIXTURES if (f / "expected.txt").stat().st_size > 0) >= 30


# ---------------------------------------------------------------- one-sided flows (--explain)

EXPLAIN = [f for f in FIXTURES if (f / "expected_explain.txt").is_file()]
Block = tuple[str, str, str, Conns, str, str]  # src, dst, Allowed|Denied, conns, egress, ingress


def _conns(text: str) -> Conns:
    """np-guard's explain notation: ``TCP:[1-79,81-65535], UDP, SCTP``."""
    parts: list[tuple[str, tuple[tuple[int, int], ...]]] = []
    for item in re.findall(r"(TCP|UDP|SCTP)(?::\[([0-9,-]+)\])?", text):
        protocol, ranges = item
        if not ranges:
            parts.append((protocol, ((1, 65535),)))
            continue
        spans = [r.split("-") for r in ranges.split(",")]
        parts.append((protocol, tuple((int(s[0]), int(s[-1])) for s in spans)))
    return Conns.make(parts)


def _blocks(text: str) -> list[Block]:
    out: list[Block] = []
    pair: tuple[str, str] | None = None
    for line in text.splitlines():
        m = re.match(r"Connections between (\S+) => (\S+):$", line)
        if m:
            pair = (m[1], m[2])
            continue
        m = re.match(r"\t(Allowed|Denied) (.*?) due to", line)
        if m and pair:
            out.append((pair[0], pair[1], m[1], _conns(m[2]), "", ""))
            continue
        m = re.match(r"\t\t(Egress|Ingress) \((Allowed|Denied)\)", line)
        if m and out:
            src, dst, verdict, conns, egress, ingress = out[-1]
            if m[1] == "Egress":
                egress = m[2]
            else:
                ingress = m[2]
            out[-1] = (src, dst, verdict, conns, egress, ingress)
    return out


def _ip(name: str) -> Interval | None:
    m = re.match(r"([0-9.]+)-([0-9.]+)\[External\]$", name)
    if not m:
        return None
    return int(ipaddress.IPv4Address(m[1])), int(ipaddress.IPv4Address(m[2]))


@pytest.mark.skipif(not EXPLAIN, reason=f"netpol oracle fixtures not found at {NETPOL_ORACLE}")
@pytest.mark.parametrize("fixture", EXPLAIN, ids=lambda p: p.name)
def test_each_side_matches_np_guard_explain(fixture: Path) -> None:
    """For every block of np-guard's --explain, the evaluator's egress side and ingress side
    each allow (or deny) exactly that set of connections."""
    root = (fixture / "manifests").resolve()
    tree = with_json_files(disk_tree([root], root))
    net = Network(build_model(load_files(tree, Config()), Config().inventory, str(root), tree))
    groups = workload_groups(net)

    def side(src: str, dst: str, egress: bool) -> Conns:
        s_ip, d_ip = _ip(src), _ip(dst)
        if s_ip is not None:  # from outside: no egress policy applies
            return ALL if egress else union_all(net.ip_ingress(s_ip, d) for d in groups[dst])
        if d_ip is not None:
            return union_all(net.ip_egress(s, d_ip) for s in groups[src]) if egress else ALL
        pick = net.egress_conns if egress else net.ingress_conns
        return union_all(pick(s, d) for s in groups[src] for d in groups[dst])

    blocks = _blocks((fixture / "expected_explain.txt").read_text())
    assert blocks
    for src, dst, verdict, conns, egress, ingress in blocks:
        for is_egress, state in ((True, egress), (False, ingress)):
            got = side(src, dst, is_egress).intersect(conns)
            want = conns if state == "Allowed" else NONE
            assert got == want, (src, dst, verdict, str(conns), "egress" if is_egress else
                                 "ingress", state, str(got))


def _plain_sources(net: Network, d: int, wanted: Conns, unknown: bool) -> frozenset[int] | None:
    """What Network.ingress_sources answers, the plain way: from the ingress map."""
    mapping, every = net.ingress_map(d, unknown=unknown)
    if every and net.every_ingress(d).intersect(wanted):
        return None
    return frozenset(s for s, conns in mapping.items() if conns.intersect(wanted))


# the oracle's fixtures, the ANP ones, and Cilium-heavy trees of the corpus when present
_SOURCES_TREES = [p / "manifests" for p in (*FIXTURES, *ANP_FIXTURES)] + [
    p for p in (NETPOL_ORACLE.parent / "corpus" / name
                for name in ("JJGadgets-Biohazard", "onedr0p-home-ops", "khuedoan-homelab"))
    if p.is_dir()]


@pytest.mark.skipif(not _SOURCES_TREES, reason="no netpol fixtures found")
def test_ingress_sources_equals_the_ingress_map() -> None:
    """Network.ingress_sources (the union of the peers of the rules whose connections meet
    the wanted ones) equals reading the ingress map source by source, for every pod, every
    connection set a rule there allows and a few more, with unknown matches both ways."""
    asked = 0
    for root in _SOURCES_TREES:
        root = root.resolve()
        tree = with_json_files(disk_tree([root], root))
        model = build_model(load_files(tree, Config()), Config().inventory, str(root), tree)
        for exact in (True, False):
            net = Network(model, exact=exact)
            for d in range(len(net.pods)):
                wanted = {ALL, Conns.ports("TCP", 80, 80), Conns.ports("UDP", 53, 53),
                          Conns.ports("SCTP")}
                wanted.update(net.rule_conns(r, d) for n in net.ingress_of[d]
                              for r in net.policies[n].ingress)
                for w in wanted:
                    for unknown in (True, False):
                        asked += 1
                        assert net.ingress_sources(d, w, unknown) == _plain_sources(
                            net, d, w, unknown), (root.name, net.pods[d].peer, str(w))
    assert asked > 1000
