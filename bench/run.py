"""Benchmark: reviewbot against checkov, side by side, in one run.

    .venv/bin/python bench/run.py --repeat 3 --json bench/out/results.json

Times `reviewbot lint REPO --format json --output /dev/null` and
`checkov -d REPO --framework kubernetes --quiet --compact -o json --skip-download` on each
repository of the corpus (../shared/corpus/*) and on synthetic repositories made by
bench/gen.py (1k, 10k, 50k objects by default), alternating the two tools run by run; then
`reviewbot review` of the synthetic 20-file PR in the 10k repository, cold (an empty
--cache folder each run) and warm (the same, filled cache folder again). Real shapes are
linted too: the same --bundle objects one file per app and in 20 multi-document bundles
(the ratio of the two is printed), and a --large-crds repo holding --crds CRDs of 1-4 MB.

For every command it records the wall time (median of --repeat runs), CPU time, the peak
RSS of the largest process (wait4's ru_maxrss) and the peak of the summed RSS of the whole
process tree (sampled every 20 ms from /proc, so parallel workers are counted together).
It prints Markdown tables, the issue's targets met or missed, and writes everything as JSON.

checkov is installed on first use into bench/.venv-checkov (python -m venv, pip install
checkov==CHECKOV_VERSION); it runs offline (--skip-download, no API key). reviewbot is
the one next to the interpreter (``.venv/bin/reviewbot``), else on PATH, or --reviewbot CMD; when it
is missing or its `lint --help` fails, its rows say so and checkov is still measured.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gen

CHECKOV_VERSION = "3.3.30"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
CHECKOV_VENV = HERE / ".venv-checkov"
SAMPLE_EVERY = 0.02
PSS_EVERY = 10  # samples: PSS is read every 0.2 s (a page-table walk of each process)
# the targets of the issue on real repository shapes (the first release's were 5,000 objects/s
# at 50k and a warm review in 0.7 s)
TARGETS = {
    "lint_50k_objects_per_s": 8000.0,
    "lint_50k_tree_rss_mib": 1024.0,
    "corpus_ratio": 10.0,
    "review_cold_s": 2.0,
    "review_warm_s": 0.5,
    "bundle_ratio": 1.5,
    "bundle_objects_per_s": 5000.0,
    "large_crds_tree_rss_mib": 400.0,
}


class BenchError(Exception):
    """A benchmark set-up failure with a message for the user."""


@dataclass(frozen=True)
class Sample:
    seconds: float
    cpu_seconds: float
    max_rss_mib: float  # largest single process: peak VmHWM seen (sampled)
    tree_rss_mib: float  # peak of the summed VmRSS of the process tree (sampled)
    ru_maxrss_mib: float  # wait4's ru_maxrss: includes the runner's pre-exec RSS (floor)
    returncode: int
    timed_out: bool
    stderr_tail: str
    # peak of the summed PSS (/proc/PID/smaps_rollup): pages a forked worker shares with its
    # parent counted once, split between them; what the tree takes from the machine
    tree_pss_mib: float = 0.0


@dataclass
class Measure:
    """Repeated runs of one command on one target."""

    tool: str
    command: list[str]
    status: str = "ok"  # ok | error | timeout | unavailable | skipped
    note: str = ""
    samples: list[Sample] = field(default_factory=list)

    def ok_samples(self) -> list[Sample]:
        return [s for s in self.samples if not s.timed_out and s.returncode in (0, 1)]

    def median(self) -> float | None:
        ok = self.ok_samples()
        return statistics.median(s.seconds for s in ok) if ok else None

    def median_cpu(self) -> float | None:
        ok = self.ok_samples()
        return round(statistics.median(s.cpu_seconds for s in ok), 3) if ok else None

    def peak(self, attr: str) -> float | None:
        ok = self.ok_samples()
        return max(getattr(s, attr) for s in ok) if ok else None

    def summary(self, objects: int | None = None) -> dict[str, object]:
        med = self.median()
        out: dict[str, object] = {
            "tool": self.tool,
            "command": self.command,
            "status": self.status,
            "note": self.note,
            "median_s": round(med, 4) if med is not None else None,
            "median_cpu_s": self.median_cpu(),
            "max_rss_mib": self.peak("max_rss_mib"),
            "tree_rss_mib": self.peak("tree_rss_mib"),
            "tree_pss_mib": self.peak("tree_pss_mib"),
            "samples": [asdict(s) for s in self.samples],
        }
        if objects and med:
            out["objects_per_s"] = round(objects / med, 1)
        return out


# ---------------------------------------------------------------------------- processes


def _tree(pid: int) -> list[int]:
    """pid and its descendants, from /proc/PID/task/TID/children."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except OSError:
            continue
    return out


def _tree_rss(pid: int, pss: bool = True) -> tuple[int, int, int]:
    """(sum of VmRSS, largest VmHWM, sum of PSS) over the tree, in KiB.

    VmHWM restarts at exec, so unlike ru_maxrss it does not include the RSS of the forked
    runner before the exec. A forked worker's VmRSS counts every page it still shares with
    its parent, so the sum counts those twice; PSS (from smaps_rollup, only when ``pss``:
    it walks the page tables, which costs the sampler CPU on a large process) splits each
    shared page between the processes that map it.
    """
    total = hwm = shared = 0
    for p in _tree(pid):
        if pss:
            shared += _pss(p)
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        hwm = max(hwm, int(line.split()[1]))
                    elif line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
        except (OSError, IndexError, ValueError):
            continue
    return total, hwm, shared


def _pss(pid: int) -> int:
    """PSS of one process in KiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, IndexError, ValueError):
        pass
    return 0


def child_env() -> dict[str, str]:
    """The environment of measured commands: this one, but Python may cache bytecode.

    With PYTHONDONTWRITEBYTECODE set (as in some shells here), an editable install recompiles
    its modules on every start; an installed tool would not.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_once(cmd: list[str], cwd: Path, timeout: float) -> Sample:
    """Run cmd (stdout discarded), measuring wall time, CPU and memory.

    The main thread blocks in wait4, so the wall time is not rounded to the sampling period;
    a thread samples the process tree's memory, and a timer kills the process group.
    """
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, env=child_env(),
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        peaks = [0, 0, 0]  # summed VmRSS, largest VmHWM, summed PSS (KiB)
        stop = threading.Event()
        timed_out = threading.Event()

        def sample() -> None:
            ticks = 0
            while not stop.is_set():
                rss, hwm, pss = _tree_rss(proc.pid, pss=ticks % PSS_EVERY == 0)
                ticks += 1
                peaks[0], peaks[1] = max(peaks[0], rss), max(peaks[1], hwm)
                peaks[2] = max(peaks[2], pss)
                stop.wait(SAMPLE_EVERY)

        def kill() -> None:
            timed_out.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        sampler = threading.Thread(target=sample, daemon=True)
        timer = threading.Timer(timeout, kill)
        sampler.start()
        timer.start()
        _, status, ru = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        timer.cancel()
        stop.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read()[-2000:].decode(errors="replace")
    failed = proc.returncode not in (0, 1) or timed_out.is_set()
    return Sample(round(seconds, 4), round(ru.ru_utime + ru.ru_stime, 3),
                  round(peaks[1] / 1024, 1), round(max(peaks[:2]) / 1024, 1),
                  round(ru.ru_maxrss / 1024, 1), proc.returncode, timed_out.is_set(),
                  tail if failed else "", round(peaks[2] / 1024, 1))


def probe(cmd: list[str], timeout: float = 120) -> tuple[bool, str]:
    """Does cmd run (exit 0)? Returns (ok, first lines of its output)."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL, env=child_env())
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, str(e)
    text = (r.stdout + r.stderr).strip()
    if r.returncode != 0:
        return False, f"exit {r.returncode}: " + " | ".join(text.splitlines()[-3:])
    return True, text.splitlines()[0] if text else ""


# ---------------------------------------------------------------------------- tools


def ensure_checkov(venv: Path) -> Path:
    """bench/.venv-checkov with checkov==CHECKOV_VERSION; returns the checkov executable."""
    exe = venv / "bin" / "checkov"
    if exe.exists():
        ok, out = probe([str(exe), "--version"])
        if ok and out.strip() == CHECKOV_VERSION:
            return exe
    print(f"installing checkov {CHECKOV_VERSION} into {venv} (once) ...", file=sys.stderr)
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    r = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                        "--disable-pip-version-check", f"checkov=={CHECKOV_VERSION}"])
    if r.returncode != 0 or not exe.exists():
        raise BenchError(f"pip could not install checkov=={CHECKOV_VERSION} into {venv}")
    return exe


def default_reviewbot() -> list[str]:
    here = Path(sys.executable).parent / "reviewbot"
    if here.exists():
        return [str(here)]
    found = shutil.which("reviewbot")
    return [found] if found else [str(here)]


def _generate(label: str, n: int, path: Path, seed: int, git: bool, pr_files: int,
              layout: str = "apps", crds: int = 0) -> dict[str, object]:
    """Generate one synthetic repository (bench/gen.py), its statistics for the results."""
    print(f"generating {label} ...", file=sys.stderr, flush=True)
    try:
        stats = gen.generate(n, path, seed, 0.02, git, pr_files, True, layout, crds)
    except gen.GenError as e:
        raise BenchError(str(e)) from e
    stats.pop("pr_files", None)
    return stats


def _check_count(path: Path, n: int) -> None:
    objects = count_objects(path)
    if objects != n:
        raise BenchError(f"{path} has {objects} objects, expected {n}")


def count_objects(root: Path) -> int:
    """Documents with a top-level apiVersion and kind (symlinks not followed).

    A line-based count, so it needs no YAML parser and survives files that parsers refuse;
    on the corpus it gives the numbers of its README (481, 326, 275).
    """
    n = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            p = Path(dirpath) / name
            if p.suffix not in (".yaml", ".yml") or p.is_symlink():
                continue
            text = p.read_text(errors="replace")
            for doc in re.split(r"(?m)^---[ \t]*(?:#.*)?$", text):
                if re.search(r"(?m)^apiVersion:", doc) and re.search(r"(?m)^kind:", doc):
                    n += 1
    return n


# ---------------------------------------------------------------------------- benchmark


@dataclass
class Target:
    name: str
    path: Path
    objects: int
    synthetic: bool


def lint_cmd(rb: list[str], repo: Path) -> list[str]:
    return [*rb, "lint", str(repo), "--format", "json", "--output", "/dev/null"]


def checkov_cmd(ck: Path, repo: Path) -> list[str]:
    return [str(ck), "-d", str(repo), "--framework", "kubernetes", "--quiet", "--compact",
            "-o", "json", "--skip-download"]


def review_cmd(rb: list[str], repo: Path, cache: Path, head: str = "pr") -> list[str]:
    return [*rb, "review", "--repo", str(repo), "--base", "main", "--head", head,
            "--platform", "none", "--format", "json", "--output", "/dev/null",
            "--cache", str(cache)]


PUSHED = "pr-pushed"


def pushed_branch(repo: Path) -> str:
    """Branch ``pr-pushed``: the PR pushed to again (one more commit, a line added to the
    first file it touches), made once with git plumbing (the work tree is not touched)."""
    def git(*a: str, data: bytes | None = None, env: dict[str, str] | None = None) -> str:
        return subprocess.run(["git", "-C", str(repo), *a], input=data, capture_output=True,
                              check=True, env=env).stdout.decode().strip()

    if subprocess.run(["git", "-C", str(repo), "rev-parse", "-q", "--verify", PUSHED],
                      capture_output=True, check=False).returncode == 0:
        return PUSHED
    path = git("diff", "--name-only", "main", "pr").splitlines()[0]
    text = git("show", f"pr:{path}") + "\n# pushed again\n"
    blob = git("hash-object", "-w", "--stdin", data=text.encode())
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index"),
               "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
               "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
               "GIT_AUTHOR_DATE": "2026-01-02T00:00:00Z",
               "GIT_COMMITTER_DATE": "2026-01-02T00:00:00Z"}
        git("read-tree", "pr", env=env)
        git("update-index", "--cacheinfo", f"100644,{blob},{path}", env=env)
        tree = git("write-tree", env=env)
        commit = git("commit-tree", tree, "-p", "pr", "-m", "pushed again", env=env)
    git("update-ref", f"refs/heads/{PUSHED}", commit)
    return PUSHED


def _clear_default_cache(repo: Path) -> bool:
    """Remove a default parse cache a previous lint left in the repo; True if there was one."""
    c = repo / ".reviewbot-cache"
    if c.exists():
        shutil.rmtree(c)
        return True
    return False


def _record(m: Measure, s: Sample) -> None:
    m.samples.append(s)
    if s.timed_out:
        m.status = "timeout"
    elif s.returncode not in (0, 1):
        m.status = "error"
        last = s.stderr_tail.strip().splitlines()[-1:] or ["(no stderr)"]
        m.note = f"exit {s.returncode}: {last[0]}"


def bench_target(t: Target, rb: list[str] | None, rb_note: str, ck: Path | None,
                 ck_note: str, args: argparse.Namespace) -> dict[str, object]:
    rbm = Measure("reviewbot", lint_cmd(rb or ["reviewbot"], t.path))
    ckm = Measure("checkov", checkov_cmd(ck or Path("checkov"), t.path))
    if rb is None:
        rbm.status, rbm.note = "unavailable", rb_note
    if ck is None:
        ckm.status, ckm.note = "skipped", ck_note
    ck_repeat = args.repeat
    if ck is not None and t.synthetic and t.objects >= 50000 and args.no_checkov_large:
        ckm.status, ckm.note = "skipped", "skipped: --no-checkov-large"
    elif ck is not None and t.synthetic and t.objects >= 10000:
        ck_repeat = min(args.repeat, args.checkov_large_repeat)
        if ck_repeat < args.repeat:
            ckm.note = f"{ck_repeat} run(s) (--checkov-large-repeat)"
    wrote_cache = False
    for i in range(args.repeat):
        if rbm.status == "ok":
            wrote_cache |= _clear_default_cache(t.path)
            print(f"  [{t.name}] reviewbot lint run {i + 1}", file=sys.stderr, flush=True)
            _record(rbm, run_once(rbm.command, t.path, args.timeout))
        if ckm.status == "ok" and i < ck_repeat:
            print(f"  [{t.name}] checkov run {i + 1}", file=sys.stderr, flush=True)
            _record(ckm, run_once(ckm.command, t.path, args.checkov_timeout))
            if ckm.status == "timeout":
                ckm.note = f"timed out after {args.checkov_timeout:.0f} s (--checkov-timeout)"
    wrote_cache |= _clear_default_cache(t.path)
    if wrote_cache:
        rbm.note = (rbm.note + "; " if rbm.note else "") + \
            "lint wrote .reviewbot-cache/ (removed before every run)"
    rb_med, ck_med = rbm.median(), ckm.median()
    row: dict[str, object] = {
        "target": t.name,
        "objects": t.objects,
        "reviewbot": rbm.summary(t.objects),
        "checkov": ckm.summary(t.objects),
        "ratio": round(ck_med / rb_med, 2) if rb_med and ck_med else None,
    }
    if rb_med and ck_med is None and ckm.status == "timeout":
        row["ratio_at_least"] = round(args.checkov_timeout / rb_med, 1)
    return row


def bench_review(t: Target, rb: list[str] | None, rb_note: str, work: Path,
                 args: argparse.Namespace) -> list[dict[str, object]]:
    cold = Measure("reviewbot", review_cmd(rb or ["reviewbot"], t.path, work / "cache-N"))
    warm = Measure("reviewbot", review_cmd(rb or ["reviewbot"], t.path, work / "cache-warm"))
    if rb is None:
        cold.status = warm.status = "unavailable"
        cold.note = warm.note = rb_note
    else:
        ok, out = probe([*rb, "review", "--help"])
        if not ok:
            cold.status = warm.status = "unavailable"
            cold.note = warm.note = f"`review --help` failed: {out}"
    last_cache: Path | None = None
    for i in range(args.repeat):
        if cold.status != "ok":
            break
        cache = work / f"cache-cold-{i}"
        shutil.rmtree(cache, ignore_errors=True)
        cache.mkdir(parents=True)
        cmd = review_cmd(rb or [], t.path, cache)
        cold.command = cmd
        print(f"  [{t.name}] review cold run {i + 1}", file=sys.stderr, flush=True)
        _record(cold, run_once(cmd, t.path, args.timeout))
        last_cache = cache
    if last_cache is not None and cold.status == "ok":
        if not any(last_cache.iterdir()):
            warm.note = "the cold run left the --cache folder empty"
        warm.command = review_cmd(rb or [], t.path, last_cache)
        for i in range(args.repeat):
            print(f"  [{t.name}] review warm run {i + 1}", file=sys.stderr, flush=True)
            _record(warm, run_once(warm.command, t.path, args.timeout))
            if warm.status != "ok":
                break
    elif cold.status != "ok" and warm.status == "ok":
        warm.status, warm.note = "skipped", "cold runs failed"
    # The PR pushed to again: the base's results and parsed files are in the cache, the
    # head is a new tree, so its rules run (no target: shown for what a push costs).
    pushed = Measure("reviewbot", [])
    if last_cache is not None and cold.status == "ok":
        head = pushed_branch(t.path)
        for i in range(args.repeat):
            cache = work / "cache-pushed"
            shutil.rmtree(cache, ignore_errors=True)
            shutil.copytree(last_cache, cache)
            pushed.command = review_cmd(rb or [], t.path, cache, head)
            print(f"  [{t.name}] review pushed run {i + 1}", file=sys.stderr, flush=True)
            _record(pushed, run_once(pushed.command, t.path, args.timeout))
            if pushed.status != "ok":
                break
    else:
        pushed.status, pushed.note = "skipped", "cold runs failed"
    pr = subprocess.run(["git", "diff", "--name-only", "main", "pr"], cwd=t.path,
                        capture_output=True, text=True, check=False).stdout.split()
    return [
        {"target": t.name, "mode": "cold", "pr_files": len(pr), **cold.summary()},
        {"target": t.name, "mode": "warm", "pr_files": len(pr), **warm.summary()},
        {"target": t.name, "mode": "pushed", "pr_files": len(pr), **pushed.summary()},
    ]


# ---------------------------------------------------------------------------- report


def _fmt(v: object, nd: int = 2) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _cell(m: dict[str, object]) -> str:
    if m["median_s"] is None:
        return str(m["status"])
    if m["status"] != "ok":  # some runs failed: say so beside the median of the others
        return f"{m['status']} ({_fmt(m['median_s'])})"
    return _fmt(m["median_s"])


def _ratio(r: dict[str, object]) -> str:
    if r["ratio"]:
        return f"{_fmt(r['ratio'], 1)}x"
    if r.get("ratio_at_least"):
        return f"> {_fmt(r['ratio_at_least'], 1)}x"
    return "-"


def markdown(results: dict[str, object]) -> str:
    rows = results["lint"]
    assert isinstance(rows, list)
    lines = [
        "| target | objects | reviewbot lint s | CPU s | objects/s | peak RSS MiB (tree) "
        "| peak PSS MiB (tree) | checkov s | checkov objects/s | checkov peak RSS MiB "
        "| checkov / reviewbot |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    notes = []
    for r in rows:
        rb, ck = r["reviewbot"], r["checkov"]
        lines.append(
            f"| {r['target']} | {_fmt(r['objects'])} | {_cell(rb)} | "
            f"{_fmt(rb.get('median_cpu_s'))} | {_fmt(rb.get('objects_per_s'), 0)} | "
            f"{_fmt(rb['tree_rss_mib'], 0)} | {_fmt(rb.get('tree_pss_mib'), 0)} | "
            f"{_cell(ck)} | {_fmt(ck.get('objects_per_s'), 0)} | "
            f"{_fmt(ck['tree_rss_mib'], 0)} | "
            f"{_ratio(r)} |")
        for m in (rb, ck):
            if m["note"]:
                notes.append(f"- {r['target']}, {m['tool']}: {m['note']}")
    review = results.get("review") or []
    assert isinstance(review, list)
    if review:
        lines += ["", "| reviewbot review | PR files | mode | median s | peak RSS MiB (tree) |",
                  "|---|---:|---|---:|---:|"]
        for r in review:
            lines.append(f"| {r['target']} | {r['pr_files']} | {r['mode']} | {_cell(r)} | "
                         f"{_fmt(r['tree_rss_mib'], 0)} |")
            if r["note"]:
                notes.append(f"- review {r['mode']}: {r['note']}")
    gens = results.get("generator") or []
    assert isinstance(gens, list)
    if gens:
        lines += ["", "| bench/gen.py | layout | files | MiB | seconds (with git) | objects/s |",
                  "|---:|---|---:|---:|---:|---:|"]
        for g in gens:
            secs = g["seconds"]["total"]
            shape = str(g.get("layout", "apps")) + (f", {g['crds']} CRDs" if g.get("crds") else "")
            lines.append(f"| {_fmt(g['objects'])} objects | {shape} | {_fmt(g['files'])} | "
                         f"{g['bytes'] / 2**20:.1f} | {secs:.2f} | "
                         f"{_fmt(g['objects'] / secs if secs else None, 0)} |")
    targets = results.get("targets") or []
    assert isinstance(targets, list)
    if targets:
        lines += ["", "Targets:", ""]
        for t in targets:
            verdict = {True: "met", False: "MISSED", None: "not measured"}[t["met"]]
            lines.append(f"- {t['target']}: {verdict} ({t['measured']})")
    if notes:
        lines += ["", "Notes:", "", *notes]
    return "\n".join(lines)


def judge(results: dict[str, object]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    lint = results["lint"]
    assert isinstance(lint, list)

    def add(name: str, value: float | None, ok: bool | None, unit: str) -> None:
        out.append({"target": name, "met": ok,
                    "measured": "-" if value is None else f"{value:,.2f} {unit}"})

    big = [r for r in lint if r["target"] == "synthetic-50k"]
    if big:
        rb = big[0]["reviewbot"]
        ops = rb.get("objects_per_s")
        add(">= 5,000 objects/s on 50k", ops if isinstance(ops, float) else None,
            None if ops is None else ops >= TARGETS["lint_50k_objects_per_s"], "objects/s")
        rss = rb["tree_rss_mib"]
        add("peak memory <= 1 GiB on 50k", rss if isinstance(rss, float) else None,
            None if rss is None else rss <= TARGETS["lint_50k_tree_rss_mib"], "MiB")
    for r in lint:
        if str(r["target"]).startswith("corpus/"):
            ratio = r["ratio"]
            add(f">= 10x faster than checkov on {r['target']}",
                ratio if isinstance(ratio, float) else None,
                None if ratio is None else ratio >= TARGETS["corpus_ratio"], "x")
    by_name = {str(r["target"]): r for r in lint}
    for name, r in by_name.items():
        if not name.startswith("bundle-"):
            continue
        apps = by_name.get("per-app-" + name.removeprefix("bundle-"))
        b_med, a_med = r["reviewbot"]["median_s"], apps and apps["reviewbot"]["median_s"]
        ratio = b_med / a_med if isinstance(b_med, float) and isinstance(a_med, float) else None
        add(f"{name} within {TARGETS['bundle_ratio']}x of the same objects one file per app"
            " (bundle s / per-app s)", ratio,
            None if ratio is None else ratio <= TARGETS["bundle_ratio"], "x")
        b_cpu, a_cpu = r["reviewbot"]["median_cpu_s"], apps and apps["reviewbot"]["median_cpu_s"]
        cpu = b_cpu / a_cpu if isinstance(b_cpu, float) and isinstance(a_cpu, float) else None
        add(f"{name}, the same in CPU time (bundle CPU s / per-app CPU s; steadier on a busy"
            " machine)", cpu, None if cpu is None else cpu <= TARGETS["bundle_ratio"], "x")
        ops = r["reviewbot"].get("objects_per_s")
        add(f">= 5,000 objects/s on {name}", ops if isinstance(ops, float) else None,
            None if ops is None else ops >= TARGETS["bundle_objects_per_s"], "objects/s")
    for name, r in by_name.items():
        if name.startswith("large-crds-"):
            rss = r["reviewbot"]["tree_rss_mib"]
            add(f"peak memory <= {TARGETS['large_crds_tree_rss_mib']:.0f} MiB on {name}"
                " (summed RSS: pages shared with a forked worker counted twice)",
                rss if isinstance(rss, float) else None,
                None if rss is None else rss <= TARGETS["large_crds_tree_rss_mib"], "MiB")
            pss = r["reviewbot"].get("tree_pss_mib")
            add(f"peak memory <= {TARGETS['large_crds_tree_rss_mib']:.0f} MiB on {name}"
                " (summed PSS: shared pages counted once)",
                pss if isinstance(pss, float) else None,
                None if not isinstance(pss, float) else pss <= TARGETS[
                    "large_crds_tree_rss_mib"], "MiB")
    review = results.get("review") or []
    assert isinstance(review, list)
    for r in review:
        if r["mode"] not in ("cold", "warm"):
            continue  # no target: what a push to the PR costs
        limit = TARGETS["review_cold_s" if r["mode"] == "cold" else "review_warm_s"]
        med = r["median_s"]
        value = med if isinstance(med, float) else None
        # the target is about the 10k repo; another size is shown but not judged
        verdict = None if med is None or r["target"] != "synthetic-10k" else med <= limit
        add(f"review of a {r['pr_files']}-file PR in {r['target']}, {r['mode']}, "
            f"<= {limit} s (judged on synthetic-10k only)", value, verdict, "s")
    return out


def machine() -> dict[str, object]:
    model = ""
    mem = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem = Path("/proc/meminfo").read_text().splitlines()[0].split(":", 1)[1].strip()
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)), "cpu": model,
            "memory": mem, "python": platform.python_version(), "platform": platform.platform()}


# ---------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per command (median)")
    ap.add_argument("--sizes", default="1000,10000,50000",
                    help="synthetic repo sizes in objects, comma-separated ('' for none)")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS,
                    help="folder of corpus repos (each subfolder is one target)")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--no-review", action="store_true")
    ap.add_argument("--bundle", type=int, default=20000,
                    help="objects linted in two layouts, a file per app and ~20 multi-document"
                         " bundles (bench/gen.py --layout bundle); 0 for none")
    ap.add_argument("--large-crds", type=int, default=3000,
                    help="objects of the repo whose files hold --crds large CRDs; 0 for none")
    ap.add_argument("--crds", type=int, default=40,
                    help="CustomResourceDefinitions of 1-4 MiB in the --large-crds repo")
    ap.add_argument("--review-size", type=int, default=10000,
                    help="synthetic size whose PR is reviewed (default 10000)")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "reviewbot-bench",
                    help="scratch folder for synthetic repos, corpus copies and caches")
    ap.add_argument("--reuse", action="store_true",
                    help="reuse synthetic repos already in --work instead of regenerating")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--reviewbot",
                    help="reviewbot command (default: the one next to this interpreter)")
    ap.add_argument("--checkov", help="checkov executable (default: bench/.venv-checkov)")
    ap.add_argument("--no-checkov", action="store_true")
    ap.add_argument("--no-checkov-large", action="store_true",
                    help="skip checkov on synthetic repos of 50k objects or more")
    ap.add_argument("--checkov-large-repeat", type=int, default=1,
                    help="checkov runs on synthetic repos of 10k objects or more (default 1)")
    ap.add_argument("--checkov-timeout", type=float, default=900.0, help="seconds per run")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per reviewbot run")
    ap.add_argument("--no-warmup", action="store_true",
                    help="skip the untimed first run of each tool (bytecode, page cache)")
    ap.add_argument("--json", type=Path, default=HERE / "out" / "results.json",
                    help="where to write the results (default bench/out/results.json)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        ap.error("--sizes takes integers separated by commas")
    try:
        return run(args, sizes)
    except BenchError as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace, sizes: list[int]) -> int:
    work: Path = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    rb_cmd = shlex.split(args.reviewbot) if args.reviewbot else default_reviewbot()
    ok, out = probe([*rb_cmd, "lint", "--help"])
    rb_note = "" if ok else f"reviewbot not usable (`lint --help`: {out[:300]})"
    rb_version = probe([*rb_cmd, "--version"])[1] if ok else ""
    rb: list[str] | None = rb_cmd if ok else None
    if not ok:
        print(f"warning: {rb_note}", file=sys.stderr)
    ck: Path | None = None
    ck_note = "--no-checkov"
    if not args.no_checkov:
        ck = Path(args.checkov) if args.checkov else ensure_checkov(CHECKOV_VENV)
        ok, ck_version = probe([str(ck), "--version"])
        if not ok:
            raise BenchError(f"checkov does not run: {ck_version}")
        ck_note = ck_version
    targets: list[Target] = []
    if not args.no_corpus:
        if not args.corpus.is_dir():
            raise BenchError(f"no corpus folder {args.corpus} (use --corpus or --no-corpus)")
        for d in sorted(p for p in args.corpus.iterdir() if p.is_dir()):
            # a private copy: the corpus is shared data, and tools may write caches
            copy = work / "corpus" / d.name
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(d, copy, symlinks=True)
            targets.append(Target(f"corpus/{d.name}", copy, count_objects(copy), False))
    generated: list[dict[str, object]] = []
    review_target: Target | None = None
    for n in sizes:
        label = f"synthetic-{_k(n)}"
        path = work / label
        if not (args.reuse and (path / ".git").is_dir()):
            generated.append(_generate(label, n, path, args.seed, True, 20))
        _check_count(path, n)
        t = Target(label, path, n, True)
        targets.append(t)
        if n == args.review_size:
            review_target = t
    shapes: list[tuple[str, int, str, int]] = []  # label, objects, layout, CRDs
    if args.bundle:
        k = _k(args.bundle)
        shapes += [(f"per-app-{k}", args.bundle, "apps", 0),
                   (f"bundle-{k}", args.bundle, "bundle", 0)]
    if args.large_crds:
        shapes.append((f"large-crds-{_k(args.large_crds)}", args.large_crds, "apps", args.crds))
    for label, n, layout, crds in shapes:
        path = work / label
        if not (args.reuse and path.is_dir()):
            generated.append(_generate(label, n, path, args.seed, False, 0, layout, crds))
        _check_count(path, n)
        targets.append(Target(label, path, n, True))
    results: dict[str, object] = {
        "version": 1,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": machine(),
        "reviewbot": {"command": rb_cmd, "version": rb_version, "note": rb_note,
                      "commit": _git_head()},
        "checkov": {"command": str(ck) if ck else None,
                    "version": ck_note if ck else None},
        "args": {k: str(v) for k, v in vars(args).items()},
        "env": "measured commands run without PYTHONDONTWRITEBYTECODE; one untimed warm-up"
               " run of each tool unless --no-warmup",
        "generator": generated,
        "lint": [],
        "review": [],
    }
    if targets and not args.no_warmup:
        first = targets[0]
        print(f"warm-up (untimed) on {first.name}", file=sys.stderr, flush=True)
        if rb is not None:
            run_once(lint_cmd(rb, first.path), first.path, args.timeout)
        if ck is not None and first.objects <= 5000:
            run_once(checkov_cmd(ck, first.path), first.path, args.checkov_timeout)
    lint_rows: list[dict[str, object]] = []
    for t in targets:
        print(f"{t.name}: {t.objects} objects", file=sys.stderr, flush=True)
        lint_rows.append(bench_target(t, rb, rb_note, ck, ck_note, args))
    results["lint"] = lint_rows
    if not args.no_review:
        if review_target is None:
            print(f"note: no synthetic repo of {args.review_size} objects: review not measured",
                  file=sys.stderr)
        else:
            results["review"] = bench_review(review_target, rb, rb_note, work / "review",
                                             args)
    results["targets"] = judge(results)
    table = markdown(results)
    results["markdown"] = table
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(table)
    print(f"\nresults: {args.json}", file=sys.stderr)
    return 0


def _k(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def _git_head() -> str:
    r = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    return r.stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
