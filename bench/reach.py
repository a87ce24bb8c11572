"""The reachability walk against the size of what it walks: ``hostile.py fleet`` trees of N,
2N and 4N apps (per cluster, one Flux Kustomization and three objects each), timed in process.

    .venv/bin/python bench/reach.py [--apps 1000] [--clusters 2] [--argo | --generated]
                                    [--repeat 5] [--work DIR]

For each size it generates the tree in --work (a temporary folder by default), parses it once,
then takes the least CPU time (``time.process_time``, the cyclic garbage collector off as
``reviewbot``'s commands have it) of --repeat runs of

- ``walk``: a fresh kustomization graph and :func:`reviewbot.model.reach.find_reach` (every
  root, every build the walk makes, postBuild substitution, the files it reads);
- ``model``: :func:`reviewbot.model.builder.build_model` (the walk, then the objects).

It prints the objects the roots apply, the CPU seconds, microseconds per applied object and
each size's time over the first size's (linear: 2.0 and 4.0). Needs reviewbot importable
(the project's venv); no timing here is a test.
"""

from __future__ import annotations

import argparse
import gc
import posixpath
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hostile  # noqa: E402  (bench/hostile.py, beside this file)

from reviewbot.config import Config  # noqa: E402
from reviewbot.engine.parse import load_files  # noqa: E402
from reviewbot.model.builder import build_model  # noqa: E402
from reviewbot.model.ci import is_ci_file  # noqa: E402
from reviewbot.model.kustomize import KUSTOMIZATION_FILES, Graph, Kustomization  # noqa: E402
from reviewbot.model.reach import find_reach  # noqa: E402
from reviewbot.sources.tree import disk_tree  # noqa: E402


def least(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The least CPU time of ``repeat`` calls, the cyclic collector off as the CLI has it."""
    best, out = float("inf"), None
    for _ in range(repeat):
        out = None
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            out = fn()
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best, out


def measure(root: Path, repeat: int) -> dict[str, Any]:
    config = Config()
    tree = disk_tree([root], root, config.max_file_bytes)
    files = load_files(tree, config)
    by_path = {f.path: f for f in files}
    documents = [d for f in files for d in f.documents]
    kustomizations = [Kustomization(f.path, posixpath.dirname(f.path), d.value, d)
                      for f in files if posixpath.basename(f.path) in KUSTOMIZATION_FILES
                      for d in f.documents if isinstance(d.value, dict)]
    ci = [d for d in documents if is_ci_file(d.file.path)]

    def walk() -> Any:
        graph = Graph(kustomizations, by_path, tree.paths, tree.texts)
        return find_reach(graph, documents, (), ci)

    walked, reach = least(walk, repeat)
    modelled, model = least(lambda: build_model(files, config.inventory, str(root), tree),
                            repeat)
    applied = sum(len(a.resources) for a in reach.applied) if reach is not None else 0
    return {"files": len(files), "applied": applied, "builds": len(reach.applied) if reach
            else 0, "objects": len(model.objects), "walk": walked, "model": modelled}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apps", type=int, default=1000, help="N: the sizes are N, 2N, 4N")
    ap.add_argument("--clusters", type=int, default=2)
    ap.add_argument("--argo", action="store_true", help="Argo CD app of apps instead of Flux")
    ap.add_argument("--generated", action="store_true",
                    help="fleet/ without kustomization.yaml (kustomize-controller makes one)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--work", type=Path, help="where the trees are written (default: a "
                    "temporary folder, removed after)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        rows = []
        for n in (args.apps, 2 * args.apps, 4 * args.apps):
            shape = "argo-" if args.argo else "generated-" if args.generated else ""
            root = work / f"fleet-{shape}{n}"
            if not root.exists():
                hostile.fleet(root, n, args.clusters, args.argo, args.generated)
            rows.append((n, measure(root, args.repeat)))
    first = rows[0][1]
    print("| apps | files | builds | objects applied | model objects | walk CPU s | "
          "us/object | x first | build_model CPU s | us/object | x first |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, r in rows:
        per = max(r["applied"], 1)
        print(f"| {n:,} | {r['files']:,} | {r['builds']:,} | {r['applied']:,} | "
              f"{r['objects']:,} | {r['walk']:.3f} | {r['walk'] / per * 1e6:.0f} | "
              f"{r['walk'] / first['walk']:.2f} | {r['model']:.3f} | "
              f"{r['model'] / max(r['objects'], 1) * 1e6:.0f} | "
              f"{r['model'] / first['model']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
