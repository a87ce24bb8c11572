"""What locating findings costs in a lint: the share of its CPU time spent finding positions.

    .venv/bin/python bench/positions.py TREE [--repeat 5] [--json FILE]

Runs ``reviewbot lint TREE --format json`` in this process --repeat times, timing every call
of the loader's position lookups (``LoadedFile.positions``, which composes a document's
positions whole, and ``LoadedFile.locate``, which walks to one path), and prints the median
share of the lint's CPU time (this process and its parse workers) they took. The issue's
target: at most 5% on kserve-shaped CRD repositories (the --large-crds tree of run.py, whose
CRDs carry schema errors at their ends: ``gen.py --crd-defects``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def measure(tree: Path) -> dict[str, float]:
    from reviewbot.cli import main
    from reviewbot.load import loader

    spent = [0.0, 0]
    saved: dict[str, Any] = {}

    def timed(name: str) -> None:
        inner = getattr(loader.LoadedFile, name)
        saved[name] = inner

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[0] += time.process_time() - t
                spent[1] += 1

        setattr(loader.LoadedFile, name, wrapper)

    for name in ("positions", "locate"):
        if hasattr(loader.LoadedFile, name):
            timed(name)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.process_time()
    try:
        with contextlib.suppress(SystemExit):
            main(["lint", str(tree), "--format", "json", "--output", "/dev/null"])
    finally:
        for name, inner in saved.items():
            setattr(loader.LoadedFile, name, inner)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - t0 + (after.ru_utime - before.ru_utime) + (
        after.ru_stime - before.ru_stime)
    return {"positions_s": round(spent[0], 4), "calls": spent[1], "lint_cpu_s": round(cpu, 3),
            "share": round(spent[0] / cpu, 4) if cpu else 0.0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    runs = [measure(args.tree) for _ in range(args.repeat)]
    out = {"tree": str(args.tree), "runs": runs,
           "median_positions_s": statistics.median(r["positions_s"] for r in runs),
           "median_lint_cpu_s": statistics.median(r["lint_cpu_s"] for r in runs),
           "median_share": statistics.median(r["share"] for r in runs)}
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    print(f"{args.tree}: positions {out['median_positions_s']:.3f} s of "
          f"{out['median_lint_cpu_s']:.2f} s CPU ({out['median_share']:.1%}; medians of "
          f"{args.repeat}, {runs[0]['calls']} lookups a run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
