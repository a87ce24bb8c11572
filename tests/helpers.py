"""Shared test helpers: lint inline YAML or a folder, get (rule, line) pairs; throwaway git
repositories; the CLI in-process; networks from inline YAML; the netpol oracle's folder."""

from __future__ import annotations

import io
import os
import posixpath
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import traceback
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from reviewbot.cli import main
from reviewbot.config import Config, find_config, load_config_file, parse_config
from reviewbot.engine.findings import Finding
from reviewbot.engine.options import check_options
from reviewbot.engine.run import Result, analyze
from reviewbot.load.loader import load
from reviewbot.model.kustomize import Graph, Kustomization, is_kustomization_file
from reviewbot.netpol.network import Network
from reviewbot.sources.tree import disk_tree

# a duplicate key: one yaml-syntax error on line 5 (suppression, severity and config tests)
BROKEN = """
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: app
      name: again
"""

EXPECT = re.compile(r"#\s*expect:\s*([a-z0-9, \[\]-]+(?:\(doubted\))?)")
DOUBTED = " (doubted)"  # an error's promise has an unseen link: a warning that says so


def lint_dir(path: Path, only: Sequence[str] = (), config: Config | None = None) -> Result:
    root = path if path.is_dir() else path.parent
    if config is None:
        found = find_config(root, root)
        config = check_options(load_config_file(found)) if found else Config()
    return analyze(disk_tree([path], root), config, only=only)


def lint_text(
    tmp_path: Path, text: str, only: Sequence[str] = (), config: str | None = None,
    name: str = "manifest.yaml",
) -> Result:
    """Lint one inline YAML file (dedented) in a fresh folder."""
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(textwrap.dedent(text).lstrip("\n"))
    cfg = (check_options(parse_config(textwrap.dedent(config).encode(), ".reviewbot.yaml"))
           if config else Config())
    return analyze(disk_tree([tmp_path], tmp_path), cfg, only=only)


def pairs(result: Result, rule: str | None = None) -> list[tuple[str, int]]:
    return sorted((f.rule, f.line) for f in result.findings if rule is None or f.rule == rule)


def expected_marks(path: Path, rule: str) -> list[tuple[str, int, str | None]]:
    """`# expect: rule-a[kind], rule-b` comments: (file, line, kind or None) per mark."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    out = []
    root = path if path.is_dir() else path.parent
    for file in files:
        if file.suffix not in (".yaml", ".yml"):
            continue
        for number, line in enumerate(file.read_text().splitlines(), 1):
            match = EXPECT.search(line)
            if match:
                text = match.group(1)
                doubted = text.endswith("(doubted)")
                for mark in text.removesuffix("(doubted)").split(","):
                    name, _, kind = mark.strip().partition("[")
                    if name == rule:
                        out.append((file.relative_to(root).as_posix(), number,
                                    (kind.rstrip("]") + (DOUBTED if doubted else ""))
                                    or None))
    return sorted(out, key=lambda m: (m[0], m[1], m[2] or ""))


def expected_pairs(path: Path, rule: str) -> list[tuple[str, int]]:
    """`# expect: rule-a, rule-b` comments mark the lines where findings must be."""
    return sorted((file, line) for file, line, _ in expected_marks(path, rule))


def kinds_hold(findings: Sequence[Finding], root: Path, base: Path,
               marks: Sequence[tuple[str, int, str | None]], config: Config) -> list[str]:
    """What a kind mark (`# expect: rule[kind]`) finds wrong: no finding of that kind on its
    line, or one whose severity is not the kind's default (unless the config sets one); a
    mark ending in `(doubted)` wants an error of that kind made a warning that says what
    reviewbot could not see, or that nothing of it is applied (its build fails)."""
    from reviewbot.engine.registry import get_rule

    problems = []
    for file, line, mark in marks:
        if mark is None:
            continue
        kind = mark.removesuffix(DOUBTED)
        here = [f for f in findings
                if (base / f.file).resolve().relative_to(root.resolve()).as_posix() == file
                and f.line == line and f.kind == kind]
        if not here:
            problems.append(f"{file}:{line}: no finding of kind {kind}")
            continue
        rule = get_rule(here[0].rule)
        if mark.endswith(DOUBTED):
            message = here[0].message
            if here[0].severity != "warning" or (
                    "Not certain" not in message and "Not applied" not in message):
                problems.append(f"{file}:{line}: {kind} is not a doubted warning")
            continue
        if config.settings(rule).severity is None and here[0].severity != rule.severity_of(kind):
            problems.append(f"{file}:{line}: {kind} is {here[0].severity}, "
                            f"not {rule.severity_of(kind)}")
    return problems


ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "tests" / "fixtures" / "seed-repo"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent",
}


class GitRepo:
    """A throwaway repository: write files, commit, get shas. Dates are fixed, so shas are."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        env = {**os.environ, **GIT_ENV}
        out = subprocess.run(["git", "-C", str(self.path), *args], capture_output=True,
                             text=True, check=True, env=env)
        return out.stdout.strip()

    def write(self, files: Mapping[str, str | None]) -> None:
        for name, text in files.items():
            target = self.path / name
            if text is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(textwrap.dedent(text).lstrip("\n"))

    def commit(self, files: Mapping[str, str | None] | None = None, message: str = "c") -> str:
        if files:
            self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def commit_tree(self, source: Path, message: str = "state") -> str:
        """Replace the work tree by a copy of ``source`` and commit it."""
        for child in self.path.iterdir():
            if child.name == ".git":
                continue
            if child.is_dir():
                shutil.rmtree(child)
            else:
                child.unlink()
        shutil.copytree(source, self.path, dirs_exist_ok=True)
        return self.commit(message=message)


@dataclass(frozen=True)
class PullRepo:
    """A repository holding a pull request: its base and head commits."""

    path: Path
    base: str
    head: str


def git(repo: Path, *args: str) -> str:
    """``git -C repo ARGS`` (the repository's own identity), its output stripped."""
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


# A two-node inventory (a GPU worker, a tainted control-plane node) the workload rules share.
INVENTORY = """
cluster:
  nodes:
    - name: worker-1
      labels: {kubernetes.io/hostname: worker-1}
      allocatable: {cpu: "32", memory: 63495Mi, nvidia.com/gpu: "4"}
    - name: talos-cp-3
      labels: {kubernetes.io/hostname: talos-cp-3, node-role.kubernetes.io/control-plane: ""}
      taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]
      allocatable: {cpu: 11950m, memory: 15Gi}
"""


# ---------------------------------------------------------------- networks

# np-guard netpol-analyzer's fixtures, beside the clone (or the folder the variable names)
NETPOL_ORACLE = Path(
    os.environ.get("REVIEWBOT_NETPOL_ORACLE")
    or Path(__file__).resolve().parents[2] / "shared" / "netpol-oracle"
)


def build(tmp_path: Path, text: str, exact: bool = True) -> Network:
    (tmp_path / "m.yaml").write_text(textwrap.dedent(text).lstrip("\n"))
    model = analyze(disk_tree([tmp_path], tmp_path), Config(), only=["yaml-syntax"]).model
    return Network(model, exact=exact)


def pod(net: Network, peer: str) -> int:
    return next(i for i, p in enumerate(net.pods) if p.peer == peer)


def deployment(name: str, ns: str, labels: str, ports: str = "") -> str:
    return f"""
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: {ns}}}
spec:
  template:
    metadata: {{labels: {labels}}}
    spec:
      containers:
      - name: main
        image: x
        {ports}
"""


def value_paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path into a YAML value (mapping keys, list indices), the value's own first."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from value_paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from value_paths(v, (*prefix, i))


# ---------------------------------------------------------------- bounded runs and safe output

CPU_BOUND = 20.0  # seconds of CPU a hostile case may take (issue 29's acceptance)
MEMORY_BOUND = 1 << 30  # bytes resident at a case's peak (1 GiB)
WALL_BOUND = 300.0  # seconds of wall clock before the run is ended (a hang; the machine is shared)
CRASHED = 70  # the exit code of a run that raised out of main (the CLI's own crash code is 3)


@dataclass(frozen=True)
class Bounded:
    """One command line run in a forked child: what it printed and what it cost."""

    code: int  # the exit code; minus a signal's number when one ended it
    out: str
    err: str
    cpu: float  # seconds of CPU, user and system, of the run and the children it waited for
    peak: int  # bytes resident at the run's peak (the forked test process's pages included)

    def assert_bounded(self, what: str = "") -> None:
        assert self.code != -signal.SIGALRM, f"{what}: no answer within {WALL_BOUND:.0f} s"
        assert self.cpu < CPU_BOUND, f"{what}: {self.cpu:.1f} s of CPU"
        assert self.peak < MEMORY_BOUND, f"{what}: {self.peak / 2**20:.0f} MiB resident"


def bounded_cli(argv: list[str], cwd: Path | None = None,
                env: Mapping[str, str] | None = None) -> Bounded:
    """``reviewbot ARGV`` in a forked child (the test process's imports and caches shared),
    stdout strict UTF-8 as a pipe to a file is; its CPU and peak memory from ``wait4``."""
    with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: it never returns into the test process
            code = CRASHED
            try:
                signal.signal(signal.SIGALRM, signal.SIG_DFL)
                signal.setitimer(signal.ITIMER_REAL, WALL_BOUND)
                # (open for the child's whole life: os._exit closes them)
                out = open(os.dup(out_file.fileno()), "wb")  # noqa: SIM115
                err = open(os.dup(err_file.fileno()), "wb")  # noqa: SIM115
                sys.stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", newline="")
                sys.stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace",
                                              newline="")
                if cwd is not None:
                    os.chdir(cwd)
                os.environ.update(env or {})
                code = main(argv)
                sys.stdout.flush()
                sys.stderr.flush()
            except BaseException:  # noqa: BLE001 (a crash is what the caller looks for)
                os.write(err_file.fileno(), traceback.format_exc().encode("utf-8", "replace"))
                code = CRASHED
            finally:
                os._exit(code)
        _, status, usage = os.wait4(pid, 0)
        out_file.seek(0)
        err_file.seek(0)
        return Bounded(os.waitstatus_to_exitcode(status), out_file.read().decode("utf-8"),
                       err_file.read().decode("utf-8", "replace"),
                       usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)


# what a terminal acts on or hides: controls (C0, C1, DEL), format characters (zero-width,
# bidi overrides), line and paragraph separators, lone surrogates (unassigned and private-use
# characters are shown as boxes: harmless)
HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
COMMAND = re.compile(r"^\s*::")  # GitHub's runner trims leading whitespace, then "::cmd::"
ANNOTATION = re.compile(  # what --format github itself writes: properties escaped
    r"^::(error|warning|notice) (file=[^:,]*,line=\d+,col=\d+,title=[\w-]+|title=reviewbot)::")


def assert_log_safe(text: str, where: str) -> None:
    """Nothing a terminal or a CI runner acts on came from the repository: no control, format
    or bidi character, no line that starts a workflow command, no legacy ``##[``."""
    for line in text.split("\n"):
        # (a zero-width space is Markdown's own: it breaks an @mention)
        hidden = [c for c in line.replace("\t", "").replace("\u200b", "")
                  if unicodedata.category(c) in HIDDEN]
        assert not hidden, (where, line, hidden)
        if COMMAND.match(line):
            assert ANNOTATION.match(line), (where, line)
        assert "##[" not in line, (where, line)


def assert_markdown_safe(text: str, where: str) -> None:
    """No live mention, HTML or comment from the repository: ``text`` rendered as CommonMark
    does (markdown-it, raw HTML passed through, tables), then what is outside code. (A
    pattern for code spans misread an escaped backtick, ``\\` ``, as one's start, and took
    a code span's ``@team`` for prose; cmark-gfm renders it as code.)"""
    html = MarkdownIt("commonmark").enable("table").render(text)
    prose = re.sub(r"<code[^>]*>.*?</code>", "", html, flags=re.S)
    prose = re.sub(r"<!-- reviewbot:[\w:.-]+ -->", "", prose)
    for bad in ("@team", "<img", "<!--"):
        assert bad not in prose, (where, bad)


def write(root: Path, files: dict[str, str]) -> None:
    """Write ``files`` (path -> YAML text, dedented) under ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def kustomize_graph(repo: Path) -> Graph:
    """The kustomization graph of the folder ``repo`` (every kustomization in it), for
    building its kustomizations in process."""
    tree = disk_tree([repo], repo)
    files = {r.path: load(r) for r in tree.files}
    found = []
    for path, lf in files.items():
        if is_kustomization_file(path) and lf.documents and isinstance(
                lf.documents[0].value, dict):
            doc = lf.documents[0]
            found.append(Kustomization(path, posixpath.dirname(path), doc.value, doc))
    return Graph(found, {p: lf for p, lf in files.items() if not is_kustomization_file(p)},
                 tree.paths, tree.texts)


def build_as_kubectl(tmp_path: Path, files: Mapping[str, str], folder: str = ""
                     ) -> dict[str, Any]:
    """The in-process build of ``folder`` of the tree ``files`` written in ``tmp_path`` (what
    kustomize prints: :func:`~reviewbot.model.transform.finish`), by ``kind/name``; asserted
    the same as kubectl kustomize's when kubectl is there (required with CI)."""
    import json

    from reviewbot.sources.tree import FileRecord, blob_id

    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))
    made = kustomize_graph(tmp_path).build(folder).finished
    got = {f"{r.kind}/{r.name}": json.loads(json.dumps(r.body)) for r in made}
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        assert not os.environ.get("CI"), "CI needs kubectl (Debian's package)"
        return got
    proc = subprocess.run([kubectl, "kustomize", str(tmp_path / folder)], capture_output=True,
                          check=True, timeout=60)
    record = FileRecord("built.yaml", blob_id(proc.stdout), proc.stdout)
    want = {f"{d.value['kind']}/{d.value['metadata']['name']}": d.value
            for d in load(record).documents}
    assert got == want
    return got


# a namespace's quota of 1 GPU and a GPU Deployment whose RollingUpdate surges one pod past
# it (schedulability's quota-surge); `# COMMENT` marks the line of its surge
GPU_QUOTA_SURGE = """apiVersion: v1
kind: ResourceQuota
metadata: {name: gpus, namespace: ml}
spec:
  hard: {requests.nvidia.com/gpu: "1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: ml}
spec:
  replicas: 1
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}  # COMMENT
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.6.3
        resources: {limits: {nvidia.com/gpu: 1}}
"""
