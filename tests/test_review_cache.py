"""A review made before is read back from the cache, not made again: the same answer in every
output, the run's own refs, nothing built; and a changed input or a tampered entry is never
taken for it."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reviewbot import __version__
from reviewbot.engine.findings import Edit, Finding, Suggestion
from reviewbot.engine.outcome import Report, ReviewSummary
from reviewbot.engine.review_cache import freeze_report, same_report, thaw_report
from reviewbot.load import cache as cache_mod

from .helpers import ROOT, SEEDS, GitRepo, run_cli

CODER = "k8s/apps/llm-serving/coder.yaml"
FORMATS = ("json", "markdown", "rdjson", "text", "sarif")
UNPINNED = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: fresh, namespace: shop}
spec:
  template:
    spec:
      containers:
      - {name: app, image: "api:latest"}
"""


@pytest.fixture(scope="module")
def pull(tmp_path_factory: pytest.TempPathFactory) -> tuple[GitRepo, str, str]:
    """The seed's reviewed state, then a PR that cuts coder's startup budget (a finding with
    a suggestion) and adds an unpinned Deployment."""
    repo = GitRepo(tmp_path_factory.mktemp("review-cache") / "gitops")
    base = repo.commit_tree(SEEDS / "step2")
    coder = repo.path / CODER
    coder.write_text(coder.read_text().replace("        failureThreshold: 120\n",
                                               "        failureThreshold: 40\n"))
    (repo.path / "k8s" / "fresh.yaml").write_text(UNPINNED)
    return repo, base, repo.commit(message="startup probe as on one card")


def _argv(repo: GitRepo, base: str, head: str, fmt: str, *extra: str) -> list[str]:
    return ["review", "--repo", str(repo.path), "--base", base, "--head", head,
            "--platform", "none", "--format", fmt, *extra]


def _folder(store: Path, name: str) -> Path:
    return store / f"v{__version__}-f{cache_mod.FORMAT}" / name


def _entries(store: Path, name: str) -> list[Path]:
    cache_mod.flush()  # packs are written in the background
    folder = _folder(store, name)
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def test_a_review_read_back_is_the_review_made(
    tmp_path: Path, pull: tuple[GitRepo, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, base, head = pull
    store = tmp_path / "cache"
    for fmt in FORMATS:
        plain = run_cli(_argv(repo, base, head, fmt), capsys)
        assert plain[0] == 1
        cold = run_cli(_argv(repo, base, head, fmt, "--cache", str(store)), capsys)
        assert cold == plain
        # Without its packs and rule results, the review can only come from the review cache:
        # and nothing is parsed or built (no pack is written again).
        shutil.rmtree(_folder(store, "packs"), ignore_errors=True)
        shutil.rmtree(_folder(store, "results"), ignore_errors=True)
        warm = run_cli(_argv(repo, base, head, fmt, "--cache", str(store)), capsys)
        assert warm == plain, fmt
        assert _entries(store, "packs") == [] and _entries(store, "results") == []
    assert len(_entries(store, "reviews")) == 1  # one review, whatever the format
    rdjson = run_cli(_argv(repo, base, head, "rdjson", "--cache", str(store)), capsys)[1]
    assert '"suggestions"' in rdjson  # the suggestion came back with its finding


def test_what_the_connectivity_does_not_evaluate_reads_back_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A release the connectivity does not evaluate (post-renderers change what its chart
    renders, beside bench/gen.py's app-template releases, whose values a generated
    ConfigMap holds: those it reads): the summary lists it as not evaluated, and the review
    read back from the cache says so too. (Not a chart source the cluster lacks: then
    helm-controller keeps the release it has, and nothing of it changes.)"""
    spec = importlib.util.spec_from_file_location("bench_gen_cache", ROOT / "bench" / "gen.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules["bench_gen_cache"] = gen  # its dataclasses look their module up
    spec.loader.exec_module(gen)
    repo = tmp_path / "repo"
    gen.generate(300, repo, 8, 0.02, True, 20, True)
    app = next(p for p in sorted(repo.rglob("helmrelease.yaml")))
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "checkout", "-q", "pr"], check=True)
    app.write_text(app.read_text().replace(
        "  interval: 1h\n", "  interval: 1h\n  postRenderers:\n  - kustomize: {patches: []}\n",
        1))
    subprocess.run([*git, "commit", "-qam", "a release of a chart not evaluated"], check=True)
    subprocess.run([*git, "checkout", "-q", "main"], check=True)
    argv = ["review", "--repo", str(repo), "--base", "main", "--head", "pr", "--platform",
            "none", "--format", "markdown", "--cache", str(tmp_path / "cache")]
    cold = run_cli(argv, capsys)
    assert "- not evaluated: HelmRelease/" in cold[1].split("### Connectivity", 1)[1]
    assert run_cli(argv, capsys) == cold
    assert len(_entries(tmp_path / "cache", "reviews")) == 1


def test_a_review_read_back_runs_no_rule_and_builds_no_model(
    tmp_path: Path, pull: tuple[GitRepo, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """What a warm review imports: the cache's answer, not the machinery that made it (no
    rule module, no model builder, no diff of models)."""
    repo, base, head = pull
    store = tmp_path / "cache"
    argv = _argv(repo, base, head, "json", "--cache", str(store))
    cold = run_cli(argv, capsys)
    script = ("import json, sys\nfrom reviewbot.cli import main\n"
              f"code = main({argv!r})\n"
              "print(json.dumps([code, sorted(sys.modules)]), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False)
    code, modules = json.loads(done.stderr.strip().splitlines()[-1])
    assert (code, done.stdout) == (cold[0], cold[1])
    made = [m for m in modules if m.startswith((
        "reviewbot.rules.", "reviewbot.engine.run", "reviewbot.model.builder",
        "reviewbot.diff.models"))]
    assert made == []


def test_a_refused_configuration_is_refused_alike_with_a_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rules' options are checked after the cache is asked, and in the order they always
    were: the same error, with or without ``--cache``, before and after a review is stored."""
    repo = GitRepo(tmp_path / "repo")
    good = repo.commit({".reviewbot.yaml": "fail-on: error\n", "k8s/web.yaml": UNPINNED})
    bad = repo.commit({".reviewbot.yaml": "rules:\n  yaml-syntax:\n    depth: 3\n"})
    head = repo.commit({"k8s/web.yaml": UNPINNED.replace("latest", "v2")})
    store = str(tmp_path / "cache")
    assert run_cli(_argv(repo, good, head, "json", "--cache", store), capsys)[0] in (0, 1)
    for extra in ((), ("--kubernetes-version", "one.two")):
        plain = run_cli(_argv(repo, bad, head, "json", *extra), capsys)
        assert plain[0] == 2 and "unknown option 'depth'" in plain[2]
        assert run_cli(_argv(repo, bad, head, "json", "--cache", store, *extra), capsys) == plain
        assert run_cli(_argv(repo, bad, head, "json", "--cache", store, *extra), capsys) == plain


@pytest.fixture
def reviewed(tmp_path: Path, pull: tuple[GitRepo, str, str],
             capsys: pytest.CaptureFixture[str]) -> tuple[GitRepo, str, str, Path]:
    """The PR reviewed once with a cache folder: the repository, base, head and the folder."""
    repo, base, head = pull
    store = tmp_path / "cache"
    run_cli(_argv(repo, base, head, "json", "--cache", str(store)), capsys)
    return repo, base, head, store


def test_the_same_trees_under_other_commits_show_the_run_s_own_refs(
    reviewed: tuple[GitRepo, str, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, base, head, store = reviewed
    repo.git("checkout", "-q", "-b", "amended", head)
    repo.git("commit", "-q", "--amend", "-m", "the same tree, another commit")
    other = repo.git("rev-parse", "HEAD")
    repo.git("checkout", "-q", "main")
    assert other != head
    plain = run_cli(_argv(repo, base, other, "markdown"), capsys)
    assert other[:12] in plain[1]
    shutil.rmtree(_folder(store, "packs"))
    assert run_cli(_argv(repo, base, other, "markdown", "--cache", str(store)), capsys) == plain
    assert len(_entries(store, "reviews")) == 1 and _entries(store, "packs") == []


def test_another_input_is_another_review_and_a_tampered_one_is_ignored(
    reviewed: tuple[GitRepo, str, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, base, head, store = reviewed
    for extra in (["--scope", "all"], ["--rule", "image-digest"], [str(repo.path / "k8s/apps")]):
        plain = run_cli(_argv(repo, base, head, "json", *extra), capsys)
        assert plain[0] == 1
        assert run_cli(_argv(repo, base, head, "json", "--cache", str(store), *extra),
                       capsys) == plain
    assert len(_entries(store, "reviews")) == 4
    # An entry whose body was changed (its seal kept): ignored, the review is made again.
    plain = run_cli(_argv(repo, base, head, "json"), capsys)
    for entry in _entries(store, "reviews"):
        seal, _, body = entry.read_bytes().partition(b"\n")
        entry.write_bytes(seal + b"\n" + body.replace(b"fresh", b"other"))
    assert run_cli(_argv(repo, base, head, "json", "--cache", str(store)), capsys) == plain


def test_a_pull_request_pushed_to_again_reads_its_base_s_connectivity_from_the_cache(
    reviewed: tuple[GitRepo, str, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The base's connectivity is stored by the first review and read by the next review
    against that base (the pull request pushed to again, closing poimen's egress to the
    predictors): that review is the one made without a cache, and one entry serves both."""
    repo, base, head, store = reviewed
    assert len(_entries(store, "connectivity")) == 1
    policy = "k8s/apps/poimen/networkpolicy.yaml"
    repo.git("checkout", "-q", "-b", "pushed", head)
    text = (repo.path / policy).read_text()
    pushed = repo.commit({policy: text.replace("port: 8080\n", "port: 9090\n")}, "pushed")
    repo.git("checkout", "-q", "main")
    for fmt in ("json", "markdown"):
        plain = run_cli(_argv(repo, base, pushed, fmt), capsys)
        assert run_cli(_argv(repo, base, pushed, fmt, "--cache", str(store)), capsys) == plain
    assert "closed (was TCP 8080)" in plain[1].split("### Connectivity", 1)[1]
    assert len(_entries(store, "connectivity")) == 1
    # What the review reads is the stored side (an entry sealed again with other flows shows
    # them); an entry changed under its seal is not read: the side is made again.
    (entry,) = _entries(store, "connectivity")
    seal, _, body = entry.read_bytes().partition(b"\n")
    other = body.replace(b"TCP 8080", b"TCP 8081")
    for data, shown in ((cache_mod.seal(other, "connectivity", entry.stem), "was TCP 8081"),
                        (seal + b"\n" + other, "was TCP 8080")):
        entry.write_bytes(data)
        shutil.rmtree(_folder(store, "reviews"))
        again = run_cli(_argv(repo, base, pushed, "markdown", "--cache", str(store)), capsys)
        assert shown in again[1] and (again == plain) == (shown == "was TCP 8080")


def _finding(**changes: object) -> Finding:
    fields: dict[str, object] = dict(
        rule="probe-headroom", severity="error", file="a.yaml", line=3, column=5,
        object="Deployment/shop/web", message="m", fix="f", path="spec.x", new=True,
        suggestion=Suggestion("a.yaml", 3, 3, ("  x: 1",), ("  x: 2",)),
        edits=(Edit("a.yaml", ("spec", "x", 0), "set", {"k": [1, "2"]}, 1, True),))
    fields.update(changes)
    return Finding(**fields)  # type: ignore[arg-type]


def test_a_report_freezes_to_what_thaws_back_or_not_at_all() -> None:
    summary = ReviewSummary(diff=({"object": "Deployment/shop/web", "change": "modified"},),
                            fixed=(_finding(new=None, suggestion=None),), new=1, base="b" * 40)
    report = Report(findings=(_finding(),), review=summary, stats={"files": 1},
                    sources={"a.yaml": "text"})
    raw = freeze_report(report)
    assert raw is not None and raw["sources"] == ["a.yaml"]
    back = thaw_report(raw, ReviewSummary(base="b" * 40), lambda names: {"a.yaml": "text"})
    assert back is not None and same_report(back, report)
    # another suggestion is another report, though findings compare without it
    other = Report(findings=(_finding(suggestion=None),), review=summary, stats={"files": 1})
    assert other.findings == report.findings and not same_report(other, report)
    # data that JSON would change (a tuple read back as a list) is not stored
    assert freeze_report(Report(findings=(), review=summary, stats={"x": (1, 2)})) is None
    assert freeze_report(Report(findings=())) is None  # a lint's report is no review
    # the quoted texts must be readable again, or the entry is not used
    assert thaw_report(raw, ReviewSummary(), lambda names: None) is None
