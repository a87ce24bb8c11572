"""Benchmark: reviewbot against checkov and against an older reviewbot, in paired runs.

    .venv/bin/python bench/run.py --json bench/out/results.json [--baseline REV]

Times `reviewbot lint REPO --format json --output /dev/null` and
`checkov -d REPO --framework kubernetes --quiet --compact -o json --skip-download` on each
repository of the corpus (../shared/corpus/*) and on synthetic repositories made by
bench/gen.py (1k, 10k, 50k objects by default); a one-file lint; then `reviewbot review` of
the synthetic 20-file PR in the 10k repository, cold (an empty --cache folder each run) and
warm (the same, filled cache folder again). Real shapes are linted too: the same --bundle
objects one file per app and in 20 multi-document bundles, and a --large-crds repo holding
--crds CRDs of 1-4 MB.

The machine is shared, so every comparison is paired: the tools compared on one target run
interleaved (A B A B ..., or A B C A B C ... with a baseline), --repeat pairs (default 5),
and a ratio is the median of the per-pair ratios, in CPU seconds (user + system of the whole
process tree) and in wall seconds. Each run also records how busy the rest of the machine
was while it ran (from /proc/stat: the machine's busy CPU seconds less the run's own, per
wall second, "others' cores"), and the table states it with the load average. Bytecode is
cached: the measured commands run without PYTHONDONTWRITEBYTECODE after an untimed warm-up
run of each tool.

For every command it records the wall time, CPU time, the peak RSS of the largest process
and the peak of the summed RSS and PSS of the whole process tree (sampled from /proc, so
parallel workers are counted together). It prints Markdown tables, the issue's targets met
or missed, and writes everything as JSON.

checkov is a peer, not a dependency: it is installed on first use into its own venv outside
the repository (--checkov-venv, default ../checkov-venv beside the clone: python -m venv,
pip install checkov==CHECKOV_VERSION); it runs offline (--skip-download, no API key).
reviewbot is the one next to the interpreter (``.venv/bin/reviewbot``), else on PATH, or
--reviewbot CMD. --baseline REV measures an older reviewbot beside it: a git worktree of REV
in --work with its own venv (a non-editable install, as a user has it), or --baseline-cmd.
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
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gen

CHECKOV_VERSION = "3.3.30"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
CHECKOV_VENV = ROOT.parent / "checkov-venv"  # a peer: outside the repository
SAMPLE_EVERY = 0.02
PSS_EVERY = 10  # samples: PSS is read every 0.2 s (a page-table walk of each process)
# the targets of the issue on real repository shapes (the first release's were 5,000 objects/s
# at 50k and a warm review in 0.7 s)
TARGETS = {
    "corpus_cpu_ratio": 20.0,  # checkov / reviewbot CPU, median of the pairs
    "objects_per_s_20k": 10000.0,  # per-app-20k, best wall of the runs
    "linear_50k": 1.2,  # (50k s per object) / (20k s per object), best walls
    "one_file_cpu_s": 0.15,
    "review_warm_s": 0.3,
    "bundle_ratio": 1.5,
    "large_crds_tree_rss_mib": 400.0,
    "positions_share": 0.05,  # of the lint's CPU on the large-crds tree
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
    # how busy the rest of the machine was meanwhile: its busy CPU seconds (/proc/stat) less
    # this run's own, per wall second (0 = the other core idle; 1 = one core taken by others)
    others_cores: float = 0.0


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

    def best(self) -> float | None:
        ok = self.ok_samples()
        return min(s.seconds for s in ok) if ok else None

    def others(self) -> float | None:
        ok = self.ok_samples()
        return round(statistics.median(s.others_cores for s in ok), 2) if ok else None

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
            "best_s": self.best(),
            "others_cores": self.others(),
            "max_rss_mib": self.peak("max_rss_mib"),
            "tree_rss_mib": self.peak("tree_rss_mib"),
            "tree_pss_mib": self.peak("tree_pss_mib"),
            "samples": [asdict(s) for s in self.samples],
        }
        if objects and med:
            out["objects_per_s"] = round(objects / med, 1)
            best = self.best()
            out["best_objects_per_s"] = round(objects / best, 1) if best else None
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


def _busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy since boot (/proc/stat, all cores)."""
    try:
        with open("/proc/stat") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def run_once(cmd: list[str], cwd: Path, timeout: float) -> Sample:
    """Run cmd (stdout discarded), measuring wall time, CPU and memory.

    The main thread blocks in wait4, so the wall time is not rounded to the sampling period;
    a thread samples the process tree's memory, and a timer kills the process group.
    """
    with tempfile.TemporaryFile() as err:
        busy0 = _busy_seconds()
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
        busy = _busy_seconds() - busy0
        timer.cancel()
        stop.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read()[-2000:].decode(errors="replace")
    failed = proc.returncode not in (0, 1) or timed_out.is_set()
    cpu = ru.ru_utime + ru.ru_stime
    others = max(0.0, busy - cpu) / seconds if seconds > 0 else 0.0
    return Sample(round(seconds, 4), round(cpu, 3),
                  round(peaks[1] / 1024, 1), round(max(peaks[:2]) / 1024, 1),
                  round(ru.ru_maxrss / 1024, 1), proc.returncode, timed_out.is_set(),
                  tail if failed else "", round(peaks[2] / 1024, 1), round(others, 2))


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


def ensure_baseline(rev: str, work: Path) -> list[str]:
    """An older reviewbot to compare with: a git worktree of ``rev`` in ``work`` and a venv
    with it installed non-editable (bytecode compiled, as a user has it); made once per
    commit. Returns its reviewbot command."""
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT,
                         capture_output=True, text=True, check=False).stdout.strip()
    if not sha:
        raise BenchError(f"--baseline {rev}: no such commit")
    tree = work / f"baseline-{sha[:10]}"
    exe = tree / ".venv" / "bin" / "reviewbot"
    if exe.exists() and probe([str(exe), "--version"])[0]:
        return [str(exe)]
    print(f"installing reviewbot at {sha[:10]} into {tree} (once) ...", file=sys.stderr)
    if not (tree / ".git").exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), sha], cwd=ROOT,
                       check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "venv", str(tree / ".venv")], check=True)
    r = subprocess.run([str(tree / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q",
                        "--disable-pip-version-check", "-c", str(tree / "constraints.txt"),
                        str(tree)])
    if r.returncode != 0 or not exe.exists():
        raise BenchError(f"pip could not install reviewbot {sha[:10]} into {tree}")
    return [str(exe)]


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
        # a quarter of the CRDs carry a schema error at their end (kserve-shaped findings)
        stats = gen.generate(n, path, seed, 0.02, git, pr_files, True, layout, crds,
                             crd_defects=crds // 4)
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


def _paired(measures: list[Measure], runs: list[int], cwd: Path, timeouts: list[float],
            label: str, before: Callable[[Measure, int], None] | None = None) -> None:
    """Run the measures interleaved (A B A B ..., A B C A B C ...): measure k runs runs[k]
    times, in rounds, so a pair's runs meet the same machine; ``before`` runs before each."""
    for i in range(max(runs, default=0)):
        for m, n, timeout in zip(measures, runs, timeouts, strict=True):
            if m.status != "ok" or i >= n:
                continue
            if before is not None:
                before(m, i)
            print(f"  [{label}] {m.tool} run {i + 1}", file=sys.stderr, flush=True)
            _record(m, run_once(m.command, cwd, timeout))
            if m.status == "timeout" and not m.note:
                m.note = f"timed out after {timeout:.0f} s"


def pair_ratios(a: Measure, b: Measure) -> dict[str, object]:
    """b / a per pair (the i-th run of each), CPU and wall: medians, and how many pairs."""
    def ok(x: Sample) -> bool:
        return not x.timed_out and x.returncode in (0, 1)

    pairs = [(sa, sb) for sa, sb in zip(a.samples, b.samples, strict=False) if ok(sa) and ok(sb)]
    cpu = [sb.cpu_seconds / sa.cpu_seconds for sa, sb in pairs if sa.cpu_seconds > 0]
    wall = [sb.seconds / sa.seconds for sa, sb in pairs if sa.seconds > 0]
    return {"pairs": len(pairs),
            "cpu": round(statistics.median(cpu), 2) if cpu else None,
            "wall": round(statistics.median(wall), 2) if wall else None,
            "cpu_all": [round(x, 2) for x in cpu], "wall_all": [round(x, 2) for x in wall]}


def bench_target(t: Target, rb: list[str] | None, rb_note: str, ck: Path | None,
                 ck_note: str, base: list[str] | None, args: argparse.Namespace
                 ) -> dict[str, object]:
    rbm = Measure("reviewbot", lint_cmd(rb or ["reviewbot"], t.path))
    ckm = Measure("checkov", checkov_cmd(ck or Path("checkov"), t.path))
    bsm = Measure("baseline", lint_cmd(base or ["reviewbot"], t.path))
    if rb is None:
        rbm.status, rbm.note = "unavailable", rb_note
    if ck is None:
        ckm.status, ckm.note = "skipped", ck_note
    if base is None:
        bsm.status = "skipped"
    ck_repeat = args.repeat
    if ck is not None and t.synthetic and t.objects >= 50000 and args.no_checkov_large:
        ckm.status, ckm.note = "skipped", "skipped: --no-checkov-large"
    elif ck is not None and t.synthetic and t.objects >= 10000:
        ck_repeat = min(args.repeat, args.checkov_large_repeat)
        if ck_repeat < args.repeat:
            ckm.note = f"{ck_repeat} run(s) (--checkov-large-repeat)"
    wrote: list[bool] = []
    _paired([rbm, ckm, bsm], [args.repeat, ck_repeat, args.repeat], t.path,
            [args.timeout, args.checkov_timeout, args.timeout], t.name,
            lambda m, i: wrote.append(_clear_default_cache(t.path)))
    if _clear_default_cache(t.path) or any(wrote):
        rbm.note = (rbm.note + "; " if rbm.note else "") + \
            "lint wrote .reviewbot-cache/ (removed before every run)"
    row: dict[str, object] = {
        "target": t.name,
        "objects": t.objects,
        "reviewbot": rbm.summary(t.objects),
        "checkov": ckm.summary(t.objects),
        "baseline": bsm.summary(t.objects),
        "checkov_ratio": pair_ratios(rbm, ckm),
        "baseline_ratio": pair_ratios(rbm, bsm),
    }
    return row


def bench_review(t: Target, rb: list[str] | None, rb_note: str, base: list[str] | None,
                 work: Path, args: argparse.Namespace) -> list[dict[str, object]]:
    """Cold, warm and pushed reviews of the PR, the current reviewbot (and the baseline)
    interleaved in each mode; a cold run starts from an empty cache folder of its own, the
    warm runs reuse the last cold run's folder, the pushed runs a copy of it."""
    tools = [("reviewbot", rb)] + ([("baseline", base)] if base is not None else [])
    modes: dict[str, list[Measure]] = {mode: [Measure(name, []) for name, _ in tools]
                                       for mode in ("cold", "warm", "pushed")}
    for k, (_, cmd) in enumerate(tools):
        ok, out = (False, rb_note) if cmd is None else probe([*cmd, "review", "--help"])
        if not ok:
            for ms in modes.values():
                ms[k].status, ms[k].note = "unavailable", f"`review --help` failed: {out}"
    cmds = [cmd or [] for _, cmd in tools]
    caches = [work / f"cache-{name}" for name, _ in tools]

    def cold(m: Measure, i: int) -> None:
        k = modes["cold"].index(m)
        shutil.rmtree(caches[k], ignore_errors=True)
        caches[k].mkdir(parents=True)
        m.command = review_cmd(cmds[k], t.path, caches[k])

    n = [args.repeat] * len(tools)
    timeouts = [args.timeout] * len(tools)
    _paired(modes["cold"], n, t.path, timeouts, f"{t.name} review cold", cold)
    for k, m in enumerate(modes["warm"]):
        if modes["cold"][k].status != "ok":
            m.status, m.note = "skipped", "cold runs failed"
        m.command = review_cmd(cmds[k], t.path, caches[k])
    _paired(modes["warm"], n, t.path, timeouts, f"{t.name} review warm")
    head = pushed_branch(t.path) if any(m.status == "ok" for m in modes["cold"]) else PUSHED

    def pushed(m: Measure, i: int) -> None:
        k = modes["pushed"].index(m)
        copy = work / f"cache-pushed-{tools[k][0]}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(caches[k], copy)
        m.command = review_cmd(cmds[k], t.path, copy, head)

    for k, m in enumerate(modes["pushed"]):
        if modes["cold"][k].status != "ok":
            m.status, m.note = "skipped", "cold runs failed"
    _paired(modes["pushed"], n, t.path, timeouts, f"{t.name} review pushed", pushed)
    pr = subprocess.run(["git", "diff", "--name-only", "main", "pr"], cwd=t.path,
                        capture_output=True, text=True, check=False).stdout.split()
    rows = []
    for mode, ms in modes.items():
        row: dict[str, object] = {"target": t.name, "mode": mode, "pr_files": len(pr),
                                  **ms[0].summary()}
        if len(ms) > 1:
            row["baseline"] = ms[1].summary()
            row["baseline_ratio"] = pair_ratios(ms[0], ms[1])
        rows.append(row)
    return rows


ONE_FILE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports: [{containerPort: 80}]
"""


def positions_share(rb: list[str], t: Target, args: argparse.Namespace) -> dict[str, object]:
    """bench/positions.py on the target, by the measured reviewbot's interpreter: the share
    of the lint's CPU spent locating findings (median of --repeat runs)."""
    python = Path(rb[0]).parent / "python"
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        print(f"  [{t.name}] positions (bench/positions.py)", file=sys.stderr, flush=True)
        r = subprocess.run([str(python), str(HERE / "positions.py"), str(t.path), "--repeat",
                            str(args.repeat), "--json", out.name], capture_output=True,
                           text=True, env=child_env(), check=False)
        _clear_default_cache(t.path)
        if r.returncode != 0:
            return {"error": r.stderr[-500:]}
        return dict(json.loads(Path(out.name).read_text()))


def one_file_target(work: Path) -> Target:
    """A folder holding one small Deployment: what start-up costs (pre-commit on one file)."""
    path = work / "one-file"
    path.mkdir(parents=True, exist_ok=True)
    (path / "deploy.yaml").write_text(ONE_FILE)
    return Target("one-file", path, 1, True)


# ---------------------------------------------------------------------------- report


def _fmt(v: object, nd: int = 2) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _x(r: object, key: str) -> str:
    """A ratio cell: the median of the pairs, with their count."""
    if not isinstance(r, dict) or r.get(key) is None:
        return "-"
    v = float(r[key])
    return f"{v:,.1f}x" if v >= 10 else f"{v:,.2f}x"


def _secs(m: dict[str, object], key: str = "median_s") -> str:
    v = m[key]
    if v is None:
        return str(m["status"])
    cell = _fmt(v, 3 if isinstance(v, float) and v < 1 else 2)
    return cell if m["status"] == "ok" else f"{m['status']} ({cell})"


def markdown(results: dict[str, object]) -> str:
    rows = results["lint"]
    assert isinstance(rows, list)
    baseline = results.get("baseline")
    base = isinstance(baseline, dict) and bool(baseline.get("command"))
    head = ("| target | objects | reviewbot CPU s | wall s | objects/s (best) "
            "| peak RSS MiB (tree) | checkov CPU s | checkov / reviewbot CPU | wall | pairs")
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:"
    if base:
        head += " | baseline / reviewbot CPU | wall"
        rule += "|---:|---:"
    lines = [head + " | others' cores |", rule + "|---:|"]
    notes = []
    for r in rows:
        rb, ck, bs = r["reviewbot"], r["checkov"], r["baseline"]
        line = (f"| {r['target']} | {_fmt(r['objects'])} | {_secs(rb, 'median_cpu_s')} | "
                f"{_secs(rb)} | {_fmt(rb.get('best_objects_per_s'), 0)} | "
                f"{_fmt(rb['tree_rss_mib'], 0)} | {_secs(ck, 'median_cpu_s')} | "
                f"{_x(r['checkov_ratio'], 'cpu')} | {_x(r['checkov_ratio'], 'wall')} | "
                f"{r['checkov_ratio']['pairs'] or r['baseline_ratio']['pairs'] or '-'}")
        if base:
            line += f" | {_x(r['baseline_ratio'], 'cpu')} | {_x(r['baseline_ratio'], 'wall')}"
        lines.append(line + f" | {_fmt(rb.get('others_cores'))} |")
        for m in (rb, ck, bs):
            if m["note"]:
                notes.append(f"- {r['target']}, {m['tool']}: {m['note']}")
    review = results.get("review") or []
    assert isinstance(review, list)
    if review:
        head = "| reviewbot review | PR files | mode | CPU s | wall s | peak RSS MiB (tree)"
        rule = "|---|---:|---|---:|---:|---:"
        if base:
            head += " | baseline / reviewbot CPU | wall | pairs"
            rule += "|---:|---:|---:"
        lines += ["", head + " | others' cores |", rule + "|---:|"]
        for r in review:
            line = (f"| {r['target']} | {r['pr_files']} | {r['mode']} | "
                    f"{_secs(r, 'median_cpu_s')} | {_secs(r)} | {_fmt(r['tree_rss_mib'], 0)}")
            if base:
                br = r.get("baseline_ratio") or {}
                line += f" | {_x(br, 'cpu')} | {_x(br, 'wall')} | {br.get('pairs', '-')}"
            lines.append(line + f" | {_fmt(r.get('others_cores'))} |")
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
    load = results.get("load")
    if isinstance(load, dict):
        lines += ["", f"Machine load: load average {load['before']} before, {load['after']} "
                      f"after; others' cores (the rest of the machine's busy CPU per wall "
                      f"second during the runs) median {load['others_median']}, max "
                      f"{load['others_max']}."]
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

    by_name = {str(r["target"]): r for r in lint}
    for r in lint:
        if str(r["target"]).startswith("corpus/"):
            ratio = r["checkov_ratio"]["cpu"]
            add(f">= {TARGETS['corpus_cpu_ratio']:.0f}x less CPU than checkov on {r['target']}"
                f" (median of {r['checkov_ratio']['pairs']} pairs)", ratio,
                None if ratio is None else ratio >= TARGETS["corpus_cpu_ratio"], "x")
    per20 = by_name.get("per-app-20k")
    if per20:
        ops = per20["reviewbot"].get("best_objects_per_s")
        add(f">= {TARGETS['objects_per_s_20k']:,.0f} objects/s on per-app-20k (best wall)",
            ops, None if ops is None else ops >= TARGETS["objects_per_s_20k"], "objects/s")
        big = by_name.get("synthetic-50k")
        b20, b50 = per20["reviewbot"].get("best_s"), big and big["reviewbot"].get("best_s")
        grow = (b50 / 50000) / (b20 / 20000) if b20 and b50 else None
        add(f"linear to 50k: seconds per object at 50k / at 20k <= {TARGETS['linear_50k']}",
            grow, None if grow is None else grow <= TARGETS["linear_50k"], "x")
    one = by_name.get("one-file")
    if one:
        cpu = one["reviewbot"]["median_cpu_s"]
        add(f"one-file lint <= {TARGETS['one_file_cpu_s']} s CPU (bytecode cached)", cpu,
            None if cpu is None else cpu <= TARGETS["one_file_cpu_s"], "s CPU")
    for name, r in by_name.items():
        if not name.startswith("bundle-"):
            continue
        apps = by_name.get("per-app-" + name.removeprefix("bundle-"))
        b_cpu, a_cpu = r["reviewbot"]["median_cpu_s"], apps and apps["reviewbot"]["median_cpu_s"]
        cpu = b_cpu / a_cpu if isinstance(b_cpu, float) and isinstance(a_cpu, float) else None
        add(f"{name} within {TARGETS['bundle_ratio']}x of the same objects one file per app"
            " (CPU)", cpu, None if cpu is None else cpu <= TARGETS["bundle_ratio"], "x")
    for name, r in by_name.items():
        if name.startswith("large-crds-"):
            pss = r["reviewbot"].get("tree_pss_mib")
            add(f"peak memory <= {TARGETS['large_crds_tree_rss_mib']:.0f} MiB on {name}"
                " (summed PSS)", pss if isinstance(pss, float) else None,
                None if not isinstance(pss, float) else pss <= TARGETS[
                    "large_crds_tree_rss_mib"], "MiB")
            share = r.get("positions", {}).get("median_share")
            add(f"positions <= {TARGETS['positions_share']:.0%} of the lint on {name} (CPU,"
                " bench/positions.py)", None if share is None else share * 100,
                None if share is None else share <= TARGETS["positions_share"], "%")
    review = results.get("review") or []
    assert isinstance(review, list)
    for r in review:
        if r["mode"] != "warm" or r["target"] != "synthetic-10k":
            continue
        med = r["median_s"]
        add(f"warm review of the {r['pr_files']}-file PR in synthetic-10k <= "
            f"{TARGETS['review_warm_s']} s (median wall)", med,
            None if med is None else med <= TARGETS["review_warm_s"], "s")
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
    ap.add_argument("--repeat", type=int, default=5,
                    help="pairs per comparison: runs of each command, interleaved (median)")
    ap.add_argument("--one-file", action=argparse.BooleanOptionalAction, default=True,
                    help="lint a folder of one small Deployment (start-up)")
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
    ap.add_argument("--checkov", help="checkov executable (default: from --checkov-venv)")
    ap.add_argument("--checkov-venv", type=Path, default=CHECKOV_VENV,
                    help="venv checkov is installed into on first use (outside the repository)")
    ap.add_argument("--rev", metavar="REV",
                    help="measure reviewbot at this commit, installed like --baseline (not the"
                         " editable checkout, which changes under a long run)")
    ap.add_argument("--baseline", metavar="REV",
                    help="also measure reviewbot at this commit (a worktree and venv in --work)")
    ap.add_argument("--baseline-cmd", help="the older reviewbot's command, instead of REV")
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
    if args.rev:
        rb_cmd = ensure_baseline(args.rev, work)
    elif args.reviewbot:
        rb_cmd = _absolute(shlex.split(args.reviewbot))
    else:
        rb_cmd = default_reviewbot()
    ok, out = probe([*rb_cmd, "lint", "--help"])
    rb_note = "" if ok else f"reviewbot not usable (`lint --help`: {out[:300]})"
    rb_version = probe([*rb_cmd, "--version"])[1] if ok else ""
    rb: list[str] | None = rb_cmd if ok else None
    if not ok:
        print(f"warning: {rb_note}", file=sys.stderr)
    ck: Path | None = None
    ck_note = "--no-checkov"
    if not args.no_checkov:
        ck = Path(args.checkov) if args.checkov else ensure_checkov(args.checkov_venv)
        ok, ck_version = probe([str(ck), "--version"])
        if not ok:
            raise BenchError(f"checkov does not run: {ck_version}")
        ck_note = ck_version
    base: list[str] | None = None
    if args.baseline_cmd:
        base = _absolute(shlex.split(args.baseline_cmd))
    elif args.baseline:
        base = ensure_baseline(args.baseline, work)
    if base is not None:
        ok, out = probe([*base, "lint", "--help"])
        if not ok:
            raise BenchError(f"the baseline reviewbot does not run: {out}")
    targets: list[Target] = []
    if args.one_file:
        targets.append(one_file_target(work))
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
                      "commit": args.rev or _git_head()},
        "checkov": {"command": str(ck) if ck else None,
                    "version": ck_note if ck else None},
        "baseline": {"command": base, "rev": args.baseline,
                     "version": probe([*base, "--version"])[1] if base else None},
        "args": {k: str(v) for k, v in vars(args).items()},
        "env": "measured commands run without PYTHONDONTWRITEBYTECODE; one untimed warm-up"
               " run of each tool unless --no-warmup; comparisons paired (interleaved runs)",
        "generator": generated,
        "lint": [],
        "review": [],
    }
    if targets and not args.no_warmup:
        first = targets[0]
        print(f"warm-up (untimed) on {first.name}", file=sys.stderr, flush=True)
        for cmd in (rb, base):
            if cmd is not None:
                run_once(lint_cmd(cmd, first.path), first.path, args.timeout)
        if ck is not None and first.objects <= 5000:
            run_once(checkov_cmd(ck, first.path), first.path, args.checkov_timeout)
    load_before = _loadavg()
    lint_rows: list[dict[str, object]] = []
    for t in targets:
        print(f"{t.name}: {t.objects} objects", file=sys.stderr, flush=True)
        # checkov on one file says nothing about either tool: start-up is reviewbot's own
        lint_rows.append(bench_target(t, rb, rb_note, None if t.name == "one-file" else ck,
                                      "not run on one file" if ck else ck_note, base, args))
    for row, t in zip(lint_rows, targets, strict=True):
        if t.name.startswith("large-crds-") and rb is not None:
            row["positions"] = positions_share(rb, t, args)
    results["lint"] = lint_rows
    if not args.no_review:
        if review_target is None:
            print(f"note: no synthetic repo of {args.review_size} objects: review not measured",
                  file=sys.stderr)
        else:
            results["review"] = bench_review(review_target, rb, rb_note, base,
                                             work / "review", args)
    review_rows: Any = results["review"]
    others = [s["others_cores"] for row in [*lint_rows, *review_rows]
              for m in (row.get("reviewbot", row), row.get("checkov"), row.get("baseline"))
              if isinstance(m, dict) for s in m.get("samples", ())]
    results["load"] = {"before": load_before, "after": _loadavg(),
                       "others_median": round(statistics.median(others), 2) if others else None,
                       "others_max": max(others, default=None)}
    results["targets"] = judge(results)
    table = markdown(results)
    results["markdown"] = table
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(table)
    print(f"\nresults: {args.json}", file=sys.stderr)
    return 0


def _absolute(cmd: list[str]) -> list[str]:
    """A command whose program is a relative path made absolute (commands run in targets)."""
    if cmd and os.sep in cmd[0] and Path(cmd[0]).exists():
        return [str(Path(cmd[0]).resolve()), *cmd[1:]]
    return cmd


def _loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _k(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def _git_head() -> str:
    r = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    return r.stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
