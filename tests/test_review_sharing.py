"""The cold review's shortcut gives the outcome of the long way (issue 32, part 4).

A review runs an object-scoped rule (``SCOPE = "object"``) on the base only where the base's
objects are not the head's, and takes the head's findings for the rest
(:mod:`reviewbot.engine.sharing`); a pull request pushed to again, whose base's result (with
those rules' decisions) is in the cache, runs them on the head only where its objects are not
the base's. Here the old path (every rule on both whole trees, ``sharing.override(False)``,
no cache) and the new ones run on the same trees and must agree on everything: the base's
and the head's findings in order, quiet places, counts; and the review's outcome, every
finding, new, existing and fixed, the JSON and the PR comment as posted. The trees: the
golden pull requests, the homelab pull requests of tests/render/homelab.py, bench/gen.py's
corpus-shaped repository with its 20-file PR, and the corpus repositories beside the clone
with a change to their workloads (skipped without them, as every corpus test is).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewbot import __version__
from reviewbot.diff.same import same_data
from reviewbot.engine import sharing
from reviewbot.engine.parse import Memo
from reviewbot.engine.review import review_config
from reviewbot.engine.run import (
    Result,
    analyze,
    cached_rules,
    load_model,
    run_rules,
    start_rules,
)
from reviewbot.load import cache as cache_mod
from reviewbot.load.cache import ParseCache
from reviewbot.sources.refs import find_sides
from reviewbot.sources.tree import git_tree

from .helpers import ROOT, SEEDS, GitRepo, run_cli
from .render.homelab import GPU_PROBE, OPEN_WEBUI, homelab_pr

CORPUS = ROOT.parent / "shared" / "corpus"
OBJECT_RULES = ("control-plane-resources", "gpu-parallelism", "probe-headroom", "shm-size")


@pytest.fixture(autouse=True)
def _no_event(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)


def base_both_ways(root: Path, base: str, head: str) -> tuple[Result, Result, set[int]]:
    """The base's result as the review now makes it (object-scoped rules shared with the head)
    and as every rule on the whole base makes it; and the base objects shared."""
    sides = find_sides(root, base, head, None)
    config = review_config(sides, None).config
    memo = Memo()
    base_tree = git_tree(sides.root, sides.base, top=True)
    base_model = load_model(base_tree, config, None, memo)
    head_result = analyze(git_tree(sides.root, str(sides.head), top=True), config, memo=memo)
    shared = start_rules(base_tree, base_model, config, share=True)(head_result)
    whole = run_rules(base_model, config)
    return shared, whole, sharing.shared_objects(base_model, head_result.model)


def head_both_ways(root: Path, base: str, head: str, store: Path) -> tuple[Result, Result, Result]:
    """The head's result as a review of the pull request pushed to again makes it (the base's
    result read from the cache, its object-scoped decisions shared) and as every rule on the
    whole head makes it; and the base's result as read back."""
    sides = find_sides(root, base, head, None)
    config = review_config(sides, None).config
    cache = ParseCache(store)
    memo = Memo()
    base_tree = git_tree(sides.root, sides.base, top=True)
    base_model = load_model(base_tree, config, None, memo)
    start_rules(base_tree, base_model, config, loader=cache)()  # the first review stores it
    known = cached_rules(base_tree, base_model, config, (), cache)
    assert known is not None and known.outputs is not None
    shared = analyze(git_tree(sides.root, str(sides.head), top=True), config, memo=memo,
                     other=known)
    return shared, run_rules(shared.model, config), known


def assert_same_result(new: Result, old: Result) -> None:
    assert new.findings == old.findings  # in order
    assert [(f.suggestion, f.edits, f.others) for f in new.findings] == [
        (f.suggestion, f.edits, f.others) for f in old.findings]
    assert (new.quiet, new.stats, new.suppressed) == (old.quiet, old.stats, old.suppressed)


def reviews(repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str],
            shared: bool, formats: tuple[str, ...]) -> list[tuple[int, str]]:
    """The review's JSON and its summary comment, exactly as ``reviewbot review`` writes them."""
    out = []
    with sharing.override(shared):
        for fmt in formats:
            code, text, err = run_cli(["review", "--repo", str(repo), "--base", base, "--head",
                                       head, "--platform", "none", "--format", fmt], capsys)
            assert code in (0, 1), err
            out.append((code, text))
    return out


def pushed_reviews(repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str],
                   formats: tuple[str, ...]) -> list[tuple[int, str]]:
    """The review as a pull request pushed to again makes it: with a cache that a review of
    the base alone filled (the base's result is read back, the head's is made)."""
    out = []
    for fmt in formats:
        store = repo.parent / f"pushed-cache-{fmt}"
        shutil.rmtree(store, ignore_errors=True)
        for one in (base, head):
            code, text, err = run_cli(["review", "--repo", str(repo), "--base", base, "--head",
                                       one, "--platform", "none", "--format", fmt, "--cache",
                                       str(store)], capsys)
            assert code in (0, 1), err
        out.append((code, text))
    return out


def assert_equivalent(
    repo: Path, base: str, head: str, capsys: pytest.CaptureFixture[str],
    formats: tuple[str, ...] = ("json", "markdown"),
) -> tuple[Result, set[int]]:
    new, old, shared = base_both_ways(repo, base, head)
    assert_same_result(new, old)
    store = repo.parent / "pushed-cache"
    shutil.rmtree(store, ignore_errors=True)
    head_new, head_old, known = head_both_ways(repo, base, head, store)
    assert_same_result(head_new, head_old)
    assert known.outputs is not None and set(known.outputs) <= set(OBJECT_RULES)
    plain = reviews(repo, base, head, capsys, False, formats)
    assert reviews(repo, base, head, capsys, True, formats) == plain
    assert pushed_reviews(repo, base, head, capsys, formats) == plain
    return new, shared


GOLDEN_PRS = [
    ("seed-pr-001-coder-tp1", ROOT / "examples", SEEDS / "step1"),
    ("seed-pr-000-coder-tp2", SEEDS / "step1", SEEDS / "step2"),
    ("seed-pr-unfixed", SEEDS / "step1", ROOT / "examples"),
]


@pytest.mark.parametrize(("name", "before", "after"), GOLDEN_PRS, ids=[g[0] for g in GOLDEN_PRS])
def test_the_golden_pull_requests_are_reviewed_alike(
    name: str, before: Path, after: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(before, "before")
    head = repo.commit_tree(after, "after")
    result, shared = assert_equivalent(repo.path, base, head, capsys)
    assert shared  # not vacuous: most objects are shared ...
    owned = {f.rule for f in result.findings if f.rule in OBJECT_RULES}
    assert owned  # ... and object-scoped rules find something on these trees ...
    known = head_both_ways(repo.path, base, head, tmp_path / "store")[2]
    assert known.outputs and any(out.findings for out in known.outputs.values())  # ... kept


@pytest.mark.parametrize("added", [
    {"k8s/apps/chat/open-webui.yaml": OPEN_WEBUI},
    {"k8s/apps/llm-serving/gpu-probe.yaml": GPU_PROBE},
    {"k8s/apps/chat/open-webui.yaml": OPEN_WEBUI, "k8s/apps/llm-serving/gpu-probe.yaml": GPU_PROBE},
], ids=["open-webui", "gpu-probe", "both"])
def test_the_homelab_pull_requests_are_reviewed_alike(
    added: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    repo, base, head = homelab_pr(tmp_path, added)
    assert_equivalent(repo.path, base, head, capsys)


def _gen() -> Any:
    path = ROOT / "bench" / "gen.py"
    spec = importlib.util.spec_from_file_location("bench_gen_sharing", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_gen_sharing"] = module  # its dataclasses look their module up
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def test_the_benchmark_pull_request_is_reviewed_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """bench/gen.py's Flux and kustomize repository (600 objects) and its 20-file PR: image
    bumps, tags whose digest stayed, replicas, resources, KServe args, Helm values, an added
    ConfigMap."""
    repo = tmp_path / "repo"
    _gen().generate(600, repo, 8, 0.02, True, 20, True)
    result, shared = assert_equivalent(repo, "main", "pr", capsys)
    assert len(shared) > 500


def _corpus() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


def _changed(text: str) -> str | None:
    """A workload file changed as a PR changes one: replicas, a tag, a request."""
    out = text.replace("replicas: 1\n", "replicas: 2\n", 1)
    out = out.replace("memory: 128Mi", "memory: 192Mi", 1)
    out = out.replace(":v1.", ":v9.", 1)
    return out if out != text else None


def _workload_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*.yaml")):
        if ".git" in path.parts:
            continue
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError):
            continue
        if "kind: Deployment" in text or "kind: StatefulSet" in text or "kind: HelmRelease" in text:
            yield path


@pytest.mark.skipif(not _corpus(), reason="no corpus beside the clone")
@pytest.mark.parametrize("name", [p.name for p in _corpus()] or ["none"])
def test_corpus_reviews_are_alike(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Each corpus repository, and a PR changing up to six of its workload files and removing
    one (the JSON output: every finding, new or existing, fixed, the diff)."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(CORPUS / name, "base")
    edits: dict[str, str | None] = {}
    for path in _workload_files(repo.path):
        changed = _changed(path.read_text())
        if changed is not None:
            edits[str(path.relative_to(repo.path))] = changed
        if len(edits) == 6:
            break
    removable = [p for p in _workload_files(repo.path)
                 if str(p.relative_to(repo.path)) not in edits]
    if removable:
        edits[str(removable[-1].relative_to(repo.path))] = None
    if not edits:  # no workload: a manifest's text changes, so its objects are built again
        first = next(p for p in sorted(repo.path.rglob("*.yaml"))
                     if ".git" not in p.parts and "kind:" in p.read_text(errors="replace"))
        edits[str(first.relative_to(repo.path))] = first.read_text() + "\n# changed\n"
    head = repo.commit(edits, "head")
    assert_equivalent(repo.path, base, head, capsys, ("json",))


def test_a_share_that_trusted_every_object_would_be_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The comparison can fail: claiming that every base object is the head's (the changed
    ones too) gives the base another result on the first golden pull request."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(ROOT / "examples", "before")
    head = repo.commit_tree(SEEDS / "step1", "after")
    monkeypatch.setattr(sharing, "shared_objects",
                        lambda b, h: {id(o) for o in b.objects})
    new, old, _ = base_both_ways(repo.path, base, head)
    assert json.dumps([f.message for f in new.findings]) != json.dumps(
        [f.message for f in old.findings])


def test_a_cached_base_whose_decisions_name_other_objects_shares_none(tmp_path: Path) -> None:
    """The base's object-scoped decisions read back from the cache name their objects by
    place, reference and file: an entry whose place now holds another object (sealed as a
    valid entry) gives the base's findings but no decision to share."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(ROOT / "examples", "before")
    head = repo.commit_tree(SEEDS / "step1", "after")
    store = tmp_path / "store"
    known = head_both_ways(repo.path, base, head, store)[2]
    assert known.outputs
    (entry,) = (store / f"v{__version__}-f{cache_mod.FORMAT}" / "results").glob("*.json")
    raw = json.loads(cache_mod.unseal(entry.read_bytes(), "result", entry.stem))
    places = [p for out in raw["outputs"]["rules"].values() for p in out["owners"] if p]
    assert places
    places[0][1] = "Deployment/elsewhere/other"
    entry.write_bytes(cache_mod.seal(json.dumps(raw).encode(), "result", entry.stem))
    sides = find_sides(repo.path, base, head, None)
    config = review_config(sides, None).config
    tree = git_tree(sides.root, sides.base, top=True)
    again = cached_rules(tree, load_model(tree, config), config, (), ParseCache(store))
    assert again is not None and again.outputs is None
    assert again.findings == known.findings



def test_parts_made_again_alike_are_the_same_data_and_only_those() -> None:
    """A KServe InferenceService's pods are made again for each model: shared when they hold
    the same data, value for value and type for type; never when a value, a type, a key's
    order or an object compared by identity differs."""
    from dataclasses import replace

    from reviewbot.model.objects import Container

    def body(tp: object = 2, gpu: object = 1) -> dict[str, Any]:
        return {"args": ["--tp", tp], "resources": {"limits": {"gpu": gpu}}}

    a = Container("app", body(), (), "container")
    again = Container("app", body(), (), "container")
    assert a is not again and same_data(a, again)
    for other in (
        replace(a, body=body(gpu=True)),  # == calls these two equal: same_data does not
        replace(a, body=body(tp=2.0)),
        replace(a, body=dict(reversed(body().items()))),
        replace(a, body={**body(), "args": ("--tp", 2)}),
        replace(a, role="initContainer"),
    ):
        assert not same_data(a, other)
    assert not same_data(object(), object())  # a type not known: never the same


def test_the_benchmark_pull_request_shares_its_inference_services(tmp_path: Path) -> None:
    """The InferenceServices the pull request leaves alone are shared, though their pods are
    made again for the head (the object-scoped rules' costliest objects: vLLM arguments)."""
    repo = tmp_path / "repo"
    _gen().generate(600, repo, 8, 0.02, True, 20, True)
    sides = find_sides(repo, "main", "pr", None)
    config = review_config(sides, None).config
    memo = Memo()
    base = load_model(git_tree(sides.root, sides.base, top=True), config, None, memo)
    head = load_model(git_tree(sides.root, str(sides.head), top=True), config, None, memo)
    shared = sharing.shared_objects(base, head)
    services = [o for o in base.objects if o.kind == "InferenceService"]
    head_pods = {id(p) for p in head.pods}
    made_again = [o for o in services if any(
        p.obj is o and id(p) not in head_pods for p in base.pods)]
    assert made_again  # not vacuous: their pods are not the head's own
    assert sum(id(o) in shared for o in services) >= len(services) - 2  # at most 2 changed
