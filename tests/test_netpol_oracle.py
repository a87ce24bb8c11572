"""The peer oracle: np-guard netpol-analyzer's `list` output on its own test fixtures.

Every fixture folder under `shared/netpol-oracle/` (beside the clone; or the folder named by
REVIEWBOT_NETPOL_ORACLE) holds `manifests/` and `expected.txt`. `reviewbot netpol connectivity
FIXTURE/manifests --format connlist` must print exactly `expected.txt`: every
workload-to-workload line and every IP-range line, in the same order.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reviewbot.cli import main

ORACLE = Path(
    os.environ.get("REVIEWBOT_NETPOL_ORACLE")
    or Path(__file__).resolve().parents[2] / "shared" / "netpol-oracle"
)
FIXTURES = sorted(p for p in ORACLE.glob("*") if (p / "expected.txt").is_file())


def _run(fixture: Path, tmp_path: Path) -> list[str]:
    out = tmp_path / "connlist.txt"
    code = main([
        "netpol", "connectivity", str(fixture / "manifests"), "--format", "connlist",
        "--output", str(out),
    ])
    assert code == 0
    return out.read_text().splitlines()


@pytest.mark.skipif(not FIXTURES, reason=f"netpol oracle fixtures not found at {ORACLE}")
@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_connlist_matches_np_guard(fixture: Path, tmp_path: Path) -> None:
    expected = (fixture / "expected.txt").read_text().splitlines()
    got = _run(fixture, tmp_path)
    workloads = [line for line in got if "[External]" not in line]
    assert workloads == [line for line in expected if "[External]" not in line]
    assert got == expected


@pytest.mark.skipif(not FIXTURES, reason=f"netpol oracle fixtures not found at {ORACLE}")
def test_oracle_is_not_trivial() -> None:
    """The comparison above means something only if the fixtures are really there."""
    assert len(FIXTURES) >= 30
    assert sum(1 for f in FIXTURES if (f / "expected.txt").stat().st_size > 0) >= 30
