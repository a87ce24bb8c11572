"""The fast paths give the answers of the plain ones: parallel parsing, the parse cache (packs,
parents, corruption, pruning), files shared by base and head in a review."""

from __future__ import annotations

import json
import os
import posixpath
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reviewbot import concurrency
from reviewbot.config import Config
from reviewbot.engine import keys, parse
from reviewbot.engine import run as engine
from reviewbot.load import cache as cache_mod
from reviewbot.load.cache import ParseCache
from reviewbot.load.loader import LoadedFile, load
from reviewbot.model.kustomize import (
    _COMMENT_DASH,
    _COMMENTED,
    Graph,
    Kustomization,
    folders,
    path_entries,
)
from reviewbot.netpol import network as network_mod
from reviewbot.netpol.sets import ip_pieces
from reviewbot.sources.tree import FileRecord, blob_id, disk_tree

from .helpers import GitRepo, build, deployment, kustomize_graph, run_cli, write

FILES = {
    "apps/web.yaml": """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
          namespace: shop
        spec:
          template:
            spec:
              containers:
              - name: app  # reviewbot: ignore[image-digest] pinned upstream
                image: nginx:1.27
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: web, namespace: shop}
        spec: {ports: [{port: 80}], selector: {app: web}}
    """,
    "apps/anchors.yaml": """
        base: &base {cpu: 1, on: yes, mode: 0755}
        merged:
          <<: *base
          cpu: 2
        list: [*base, ~, .inf, 1e3]
    """,
    "apps/broken.yaml": "a: [1, 2\nb: 3\n",
    "apps/dup.yaml": "a: 1\na: 2\n",
    # the same bytes read as kustomize reads a kustomization: the later value kept
    "lib/kustomization.yaml": "a: 1\na: 2\n",
    "apps/templates/t.yaml": "name: {{ .Values.name }}\n",
    "apps/flow.yaml": "url: {a: b:c}\n",
}


def _tree(tmp_path: Path, files: dict[str, str]) -> Any:
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"))
    return disk_tree([tmp_path], tmp_path)


def _shape(files: list[LoadedFile]) -> list[Any]:
    """Everything a parse yields, positions of every document included."""
    out = []
    for f in files:
        docs = [(d.index, d.line, json.dumps(d.value), sorted(f.positions(d.index).items(),
                                                              key=repr))
                for d in f.documents]
        out.append((f.path, f.blob, f.text, docs, [(p.message, p.line, p.column)
                                                   for p in f.problems],
                    f.skipped, f.pure, f.ignore_comments))
    return out


def test_parallel_parse_equals_sequential(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = _tree(tmp_path, FILES)
    sequential = parse.load_files(tree, Config())
    with concurrency.override(cores=3, parse_min_bytes=0):  # two forked workers
        parallel = parse.load_files(tree, Config())
    assert [f.path for f in parallel] == [f.path for f in sequential]
    assert _shape(parallel) == _shape(sequential)
    assert any(f.problems for f in parallel) and any(f.pure for f in parallel)


@given(st.lists(st.integers(0, 3000), max_size=400), st.integers(1, 256))
def test_the_parse_runs_cover_every_file_once(sizes: list[int], most: int) -> None:
    records = [FileRecord(f"f{i}.yaml", "", b"x" * n) for i, n in enumerate(sizes)]
    runs = parse._runs(records, most)
    assert len(runs) <= most  # one ticket a run
    assert all(start < end for start, end in runs)
    assert sorted(i for start, end in runs for i in range(start, end)) == list(range(len(sizes)))
    sizes_of = [sum(sizes[start:end]) + end - start for start, end in runs]
    assert sizes_of == sorted(sizes_of, reverse=True)  # the largest handed out first


def test_a_parse_over_many_runs_and_workers_equals_sequential(tmp_path: Path) -> None:
    files = {**FILES, **{f"more/{n}.yaml": f"n: {n}\nname: app-{n}\n" * (1 + n % 7)
                         for n in range(600)}}
    tree = _tree(tmp_path, files)
    sequential = _shape(parse.load_files(tree, Config()))
    with concurrency.override(cores=3, parse_min_bytes=0):  # 256 runs, two workers
        assert _shape(parse.load_files(tree, Config())) == sequential


def test_a_failing_worker_costs_only_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = _tree(tmp_path, FILES)
    expected = _shape(parse.load_files(tree, Config()))
    with concurrency.override(cores=2, parse_min_bytes=0, fail=True):  # the worker sends nothing
        assert _shape(parse.load_files(tree, Config())) == expected


def test_a_stream_gives_whole_records_as_they_are_written_and_nothing_after_a_failure(
    tmp_path: Path,
) -> None:
    import time

    go_on = tmp_path / "go-on"

    big = b"x" * (concurrency.Stream.BLOCK + 1)

    def slow(send: Any) -> None:
        send(b"one")
        send(big)  # past a block: written at once, with what came before
        while not go_on.exists():  # the parent takes the first two while this one waits
            time.sleep(0.01)
        send(b"")
        send(b"two")

    stream = concurrency.Stream(slow)
    deadline = time.monotonic() + 30
    got: list[bytes] = []
    while len(got) < 2 and time.monotonic() < deadline:
        got += stream.ready()
        time.sleep(0.01)
    assert got == [b"one", big]
    assert stream.ready() == []  # nothing new: it never waits
    go_on.touch()
    assert stream.rest() == [b"", b"two"]
    assert stream.ready() == []

    def breaks(send: Any) -> None:
        send(b"one")
        raise RuntimeError("the child breaks after writing")

    assert concurrency.Stream(breaks).rest() is None  # a failed child's rest is never read


def test_a_worker_sends_its_bytes_whole_or_nothing(tmp_path: Path) -> None:
    big = bytes(range(256)) * 8192  # 2 MiB: many times a pipe's buffer

    def breaks() -> bytes:
        raise RuntimeError("the child breaks")

    assert concurrency.Worker(lambda: big).result() == big
    assert concurrency.Worker(lambda: b"").result() == b""
    assert concurrency.Worker(breaks).result() is None
    with concurrency.override(fail=True):
        assert concurrency.Worker(lambda: big).result() is None
    assert concurrency.Worker(lambda: bytes([concurrency.in_worker()])).result() == b"\1"
    assert not concurrency.in_worker()  # the child's, not this process's
    marks = [tmp_path / f"mark-{n}" for n in range(3)]
    for mark in marks:
        concurrency.background(mark.touch)
    concurrency.join_background()
    assert all(mark.exists() for mark in marks) and not concurrency.pending_background()


def test_at_exit_a_child_whose_work_was_never_taken_is_ended_and_reaped(tmp_path: Path) -> None:
    import subprocess
    import sys

    pid_file = tmp_path / "child-pid"
    script = textwrap.dedent(f"""
        import os, time
        from reviewbot import concurrency

        def forever() -> bytes:
            with open({str(pid_file)!r} + ".new", "w") as out:
                out.write(str(os.getpid()))
            os.replace({str(pid_file)!r} + ".new", {str(pid_file)!r})
            time.sleep(120)
            return b""

        concurrency.Worker(forever)  # its result is never asked for
        while not os.path.exists({str(pid_file)!r}):
            time.sleep(0.01)
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)  # not 120 s
    child = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):  # killed, and reaped by its parent
        os.kill(child, 0)


def test_a_child_is_not_waited_for_once_it_sent_everything(tmp_path: Path) -> None:
    import threading
    import time

    go_on, late = tmp_path / "go-on", tmp_path / "late"

    def stay(send: Any = None) -> bytes:
        def wait() -> None:  # a child exits once its threads end: this one waits for go-on
            deadline = time.monotonic() + 30
            while not go_on.exists():
                if time.monotonic() > deadline:
                    late.touch()  # the parent waited for this child's exit
                    return
                time.sleep(0.01)

        threading.Thread(target=wait).start()
        if send is not None:
            send(b"one")
        return b"sent"

    try:
        assert concurrency.Stream(stay).rest() == [b"one"]
        assert concurrency.Worker(stay).result() == b"sent"
        assert not late.exists()
    finally:
        go_on.touch()


def test_a_worker_that_fails_halfway_costs_only_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    tree = _tree(tmp_path, {**FILES, **{f"more/{n}.yaml": f"n: {n}\n" for n in range(40)}})
    expected = _shape(parse.load_files(tree, Config()))
    load = parse.load
    parsed = [0]

    def breaks_halfway(record: Any, limit: int) -> LoadedFile:
        parsed[0] += 1
        if concurrency.in_worker() and parsed[0] > 10:
            raise RuntimeError("the worker breaks halfway")
        return load(record, limit)

    monkeypatch.setattr(parse, "load", breaks_halfway)
    with concurrency.override(cores=2, parse_min_bytes=0):
        assert _shape(parse.load_files(tree, Config())) == expected


def test_without_a_temporary_folder_the_parse_is_done_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    tree = _tree(tmp_path, FILES)
    expected = _shape(parse.load_files(tree, Config()))

    def no_memfd(name: str, flags: int = 0) -> int:
        raise OSError("memfd_create: not here")

    with concurrency.override(cores=2, parse_min_bytes=0):
        assert _shape(parse.load_files(tree, Config())) == expected  # an anonymous file
        monkeypatch.setattr(os, "memfd_create", no_memfd, raising=False)
        assert _shape(parse.load_files(tree, Config())) == expected  # tempfile's file
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))  # TMPDIR gone
        assert _shape(parse.load_files(tree, Config())) == expected  # no file: done here


def _packs(directory: Path) -> list[Path]:
    return sorted((directory / f"v{cache_mod.__version__}-f{cache_mod.FORMAT}" / "packs")
                  .glob("*.json"))


def _body(path: Path, kind: str = "pack") -> Any:
    return json.loads(cache_mod.unseal(path.read_bytes(), kind, path.stem))


def test_cache_round_trip_and_a_child_pack_for_a_changed_tree(tmp_path: Path) -> None:
    repo, store = tmp_path / "repo", tmp_path / "cache"
    tree = _tree(repo, FILES)
    fresh = _shape(parse.load_files(tree, Config()))

    cold = ParseCache(store)
    assert _shape(parse.load_files(tree, Config(), cold)) == fresh
    assert (cold.hits, cold.misses) == (0, len(FILES))
    warm = ParseCache(store)
    assert _shape(parse.load_files(tree, Config(), warm)) == fresh
    assert warm.misses == 0 and warm.hits == len(tree.files)
    [whole] = _packs(store)
    assert _body(whole)["parent"] is None

    changed = _tree(repo, {"apps/dup.yaml": "a: 1\nb: 2\n"})
    again = ParseCache(store)
    assert _shape(parse.load_files(changed, Config(), again)) == _shape(
        parse.load_files(changed, Config()))
    assert again.misses == 1  # the other files come from the most recent pack
    child = next(p for p in _packs(store) if p != whole)
    raw = _body(child)
    assert raw["parent"] == whole.stem and len(raw["entries"]) == 1


def test_a_pack_read_ahead_by_blob_ids_is_the_one_the_tree_then_uses(tmp_path: Path) -> None:
    repo, store = tmp_path / "repo", tmp_path / "cache"
    tree = _tree(repo, FILES)
    fresh = _shape(parse.load_files(tree, Config()))
    parse.load_files(tree, Config(), ParseCache(store))
    ahead = ParseCache(store)
    keys = frozenset(cache_mod.entry_key(f.path, f.blob) for f in tree.files)
    ahead.prefetch(keys)  # before any bytes are at hand
    assert set(ahead.entries) == keys
    (pack,) = _packs(store)
    pack.unlink()  # read already: the tree's view needs no file
    assert _shape(parse.load_files(tree, Config(), ahead)) == fresh
    assert ahead.misses == 0 and ahead.hits == len(tree.files)
    other = ParseCache(store)
    other.prefetch(frozenset({"0" * 40}))  # no such pack: nothing read, nothing fails
    assert other.entries == {}


def test_a_corrupt_pack_or_entry_is_parsed_again(tmp_path: Path) -> None:
    repo, store = tmp_path / "repo", tmp_path / "cache"
    tree = _tree(repo, FILES)
    fresh = _shape(parse.load_files(tree, Config()))
    parse.load_files(tree, Config(), ParseCache(store))
    [pack] = _packs(store)
    raw = _body(pack)
    blob = next(iter(raw["entries"]))
    raw["entries"][blob] = {"docs": "not a list"}  # sealed as if this version wrote it
    pack.write_bytes(cache_mod.seal(json.dumps(raw).encode(), "pack", pack.stem))
    damaged = ParseCache(store)
    assert _shape(parse.load_files(tree, Config(), damaged)) == fresh
    assert damaged.misses == 1
    pack.write_bytes(b"\x00 not json")
    broken = ParseCache(store)
    assert _shape(parse.load_files(tree, Config(), broken)) == fresh
    assert broken.hits == 0


def test_only_recent_packs_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_mod, "KEEP_PACKS", 2)
    repo, store = tmp_path / "repo", tmp_path / "cache"
    for i in range(4):
        tree = _tree(repo, {f"f{i}.yaml": f"a: {i}\n"})
        parse.load_files(tree, Config(), ParseCache(store))
    assert len(_packs(store)) == 2


def test_review_shares_files_between_base_and_head_and_the_cache_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({name: text for name, text in FILES.items()})
    added = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\n"
    bumped = FILES["apps/web.yaml"].replace("nginx:1.27", "nginx:1.28")
    head = repo.commit({"apps/web.yaml": bumped, "apps/new.yaml": added})
    argv = ["review", "--repo", str(repo.path), "--base", base, "--head", head,
            "--platform", "none", "--format", "json", "--scope", "all"]
    code, plain, _ = run_cli(argv, capsys)
    store = str(tmp_path / "cache")
    assert run_cli([*argv, "--cache", store], capsys)[:2] == (code, plain)  # cold
    assert run_cli([*argv, "--cache", store], capsys)[:2] == (code, plain)  # warm
    data = json.loads(plain)
    assert sorted((d["object"], d["change"]) for d in data["diff"]) == [
        ("ConfigMap/default/extra", "added"), ("Deployment/shop/web", "modified"),
    ]


def test_memo_hands_the_same_parsed_file_to_both_sides(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    base = _tree(repo, FILES)
    head = _tree(repo, {"apps/flow.yaml": "url: {a: b:d}\n"})
    memo = parse.Memo()
    first = {f.path: f for f in parse.load_files(base, Config(), memo=memo)}
    second = {f.path: f for f in parse.load_files(head, Config(), memo=memo)}
    assert second["apps/web.yaml"] is first["apps/web.yaml"]
    assert second["apps/flow.yaml"] is not first["apps/flow.yaml"]
    assert second["apps/flow.yaml"].documents[0].value == {"url": {"a": "b:d"}}


def _lint(path: Path) -> Any:
    from reviewbot.config import find_config, load_config_file

    found = find_config(path, path)
    config = load_config_file(found) if found else Config()
    result = engine.analyze(disk_tree([path], path), config)
    return [f.__dict__ for f in result.findings], result.stats, result.suppressed, result.quiet


SEED = Path(__file__).resolve().parent / "fixtures" / "seed-repo" / "step1"


def test_rules_shared_with_a_worker_give_the_sequential_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sequential = _lint(SEED)
    assert sequential[0] and "schema" in sequential[1]
    with concurrency.override(cores=2, rules_min_objects=0):
        assert _lint(SEED) == sequential
    with concurrency.override(cores=2, rules_min_objects=0, fail=True):  # the worker fails
        assert _lint(SEED) == sequential


def test_suppressions_built_while_the_worker_finishes_give_the_sequential_result(
    tmp_path: Path,
) -> None:
    files = {
        "apps/web.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              namespace: shop
              annotations: {reviewbot.dev/ignore: "gpu-rollout,no-such-rule"}
            spec:
              template:
                spec:
                  containers:
                  - name: app  # reviewbot: ignore[image-digest] pinned upstream
                    image: nginx:1.27
                  - name: side
                    image: busybox:1.36  # reviewbot: ignore[shm-size] nothing to silence
        """,
    }
    write(tmp_path, files)
    sequential = _lint(tmp_path)
    assert sequential[2] >= 1  # a finding was suppressed
    assert {"unused-suppression", "image-digest"} <= {f["rule"] for f in sequential[0]}
    with concurrency.override(cores=2, rules_min_objects=0):
        assert _lint(tmp_path) == sequential
    with concurrency.override(cores=2, rules_min_objects=0, fail=True):  # the worker fails
        assert _lint(tmp_path) == sequential


def test_a_rule_error_surfaces_as_without_a_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    from reviewbot.rules import image_digest

    def broken(model: Any, options: Any) -> Any:
        raise RuntimeError("rule bug")

    monkeypatch.setattr(image_digest, "check_set", broken)  # the rule contract's entry point
    with concurrency.override(cores=2, rules_min_objects=0), \
            pytest.raises(RuntimeError, match="rule bug"):
        _lint(SEED)


def test_tickets_are_handed_out_once_each_between_a_process_and_its_child() -> None:
    tickets = concurrency.Tickets(200)

    def take() -> bytes:
        got = []
        while (t := tickets.take()) is not None:
            got.append(t)
        return bytes(got)

    worker = concurrency.Worker(take)
    mine = take()
    theirs = worker.result()
    tickets.close()
    assert theirs is not None
    assert sorted(mine + theirs) == list(range(200))  # each once, none lost
    assert list(mine) == sorted(mine) and list(theirs) == sorted(theirs)  # in order
    with pytest.raises(ValueError):
        concurrency.Tickets(concurrency.Tickets.MOST + 1)


def test_rules_the_worker_took_and_failed_on_run_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import time

    from reviewbot.engine.registry import all_rules

    sequential = _lint(SEED)
    took = tmp_path / "worker-took-a-rule"

    def fails_in_the_worker(checked: Any) -> Any:
        def check_set(model: Any, options: Any) -> Any:
            if concurrency.in_worker():
                took.touch()
                raise RuntimeError("worker only")
            deadline = time.monotonic() + 30  # here: wait until the worker has taken one
            while not took.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            return checked(model, options)
        return check_set

    for rule in all_rules():  # the rule contract's entry point, whichever the worker takes
        if rule.check_set is not None:
            monkeypatch.setattr(rule.module, "check_set", fails_in_the_worker(rule.check_set))
    with concurrency.override(cores=2, rules_min_objects=0):
        assert _lint(SEED) == sequential
    assert took.exists()


def _analyze(path: Path, store: Path, config: Config | None = None) -> Any:
    from reviewbot.config import find_config, load_config_file

    if config is None:
        found = find_config(path, path)
        config = load_config_file(found) if found else Config()
    result = engine.analyze(disk_tree([path], path), config, loader=ParseCache(store))
    return [f.__dict__ for f in result.findings], result.stats, result.suppressed, result.quiet


def _copy_seed(tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / "seed"
    shutil.copytree(SEED, target)
    return target


def test_rule_results_are_cached_per_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, store = _copy_seed(tmp_path), tmp_path / "cache"
    first = _analyze(repo, store)
    assert first == _lint(repo)

    def no_rules(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the rules ran")

    with monkeypatch.context() as patch:
        patch.setattr(engine, "rule_outputs", no_rules)
        assert _analyze(repo, store) == first  # from the cache, stats and quiet places included
        with pytest.raises(AssertionError, match="the rules ran"):
            _analyze(repo, store, Config({"fail-on": "warning"}))  # another configuration
        (repo / "extra.txt").write_text("a path kustomizations may name\n")
        with pytest.raises(AssertionError, match="the rules ran"):
            _analyze(repo, store)  # another tree


def test_a_bad_result_entry_runs_the_rules(tmp_path: Path) -> None:
    repo, store = _copy_seed(tmp_path), tmp_path / "cache"
    first = _analyze(repo, store)
    folder = store / f"v{cache_mod.__version__}-f{cache_mod.FORMAT}" / "results"
    [entry] = folder.glob("*.json")
    entry.write_text('{"findings": [["too", "short"]], "suppressed": 0}')
    assert _analyze(repo, store) == first
    assert _body(entry, "result")["findings"][0][0] != "too"  # written again


def test_no_result_cache_when_schemas_come_from_outside_the_tree(tmp_path: Path) -> None:
    repo = _copy_seed(tmp_path)
    outside = Config({"rules": {"schema": {"schema-locations": ["schemas/"]}}})
    plain = disk_tree([repo], repo)
    assert keys.result_key(plain, outside, ()) is None
    assert keys.result_key(plain, Config(), ()) == keys.result_key(plain, Config(), ())
    assert keys.result_key(plain, Config(), ()) != keys.result_key(plain, Config(),
                                                                        ("schema",))


def test_the_result_key_names_the_kubeconform_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _copy_seed(tmp_path)
    tree = disk_tree([repo], repo)
    before = keys.result_key(tree, Config(), ())
    binary = tmp_path / "bin" / "kubeconform"
    binary.parent.mkdir()
    binary.write_text("#!/bin/sh\nexit 0\n")
    binary.chmod(0o755)
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ['PATH']}")
    assert keys.result_key(tree, Config(), ()) != before


def test_large_packs_are_written_in_the_background(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, store = tmp_path / "repo", tmp_path / "cache"
    tree = _tree(repo, FILES)
    fresh = _shape(parse.load_files(tree, Config()))
    cold = ParseCache(store)
    with concurrency.override(cores=2, background_min_entries=0):
        parse.load_files(tree, Config(), cold)
    assert concurrency.pending_background()  # a child writes the pack
    warm = ParseCache(store)  # waits for it
    assert not concurrency.pending_background()
    assert _shape(parse.load_files(tree, Config(), warm)) == fresh
    assert warm.misses == 0


def test_rules_in_the_background_give_the_result_of_the_foreground(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tree = disk_tree([SEED], SEED)
    from reviewbot.config import find_config, load_config_file

    found = find_config(SEED, SEED)
    config = load_config_file(found) if found else Config()

    def result(background: bool) -> Any:
        model = engine.load_model(tree, config)
        got = engine.start_rules(tree, model, config, background=background)()
        return [f.__dict__ for f in got.findings], got.stats, got.suppressed, got.quiet

    expected = result(False)
    with concurrency.override(cores=2, rules_min_objects=0):
        assert result(True) == expected
    with concurrency.override(cores=2, rules_min_objects=0, fail=True):  # the worker fails
        assert result(True) == expected


def test_models_of_one_run_share_objects_only_where_nothing_differs(tmp_path: Path) -> None:
    app = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web}
        spec:
          template:
            spec:
              containers: [{name: app, image: nginx}]
    """
    files = {"k/app.yaml": app, "k/kustomization.yaml": "namespace: a\nresources: [app.yaml]\n",
             "other.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: x}\n"}
    base = _tree(tmp_path / "base", files)
    files["k/kustomization.yaml"] = "namespace: b\nresources: [app.yaml]\n"
    head = _tree(tmp_path / "head", files)
    memo = parse.Memo()
    base_model = engine.load_model(base, Config(), memo=memo)
    head_model = engine.load_model(head, Config(), memo=memo)  # same parsed files where equal
    assert head_model.files["k/app.yaml"] is base_model.files["k/app.yaml"]
    deployments = [m.pods[0].obj for m in (base_model, head_model)]
    assert [d.namespace for d in deployments] == ["a", "b"]  # not shared: the namespace moved
    assert deployments[0] is not deployments[1]
    services = [next(o for o in m.objects if o.kind == "Service") for m in (base_model, head_model)]
    assert services[0] is services[1]  # shared: same document, same namespace
    assert head_model.services[0].obj is services[1]


def _head_after_base(base: Any, head: Any) -> tuple[Any, Any]:
    """A review's two models (the head built after the base, sharing its parses and
    builds), after checking the head's objects are those of the head built alone."""
    memo = parse.Memo()
    base_model = engine.load_model(base, Config(), memo=memo)
    head_model = engine.load_model(head, Config(), memo=memo)
    alone = engine.load_model(head, Config())

    def built(model: Any) -> list[tuple[Any, Any]]:
        return sorted(((o.identity, o.body) for o in model.objects), key=repr)

    assert built(head_model) == built(alone)
    return base_model, head_model


def test_a_head_graph_takes_only_the_builds_that_read_the_same_files(tmp_path: Path) -> None:
    """A review's head model takes the base's kustomize builds where every file a build read
    (and every path it looked for) is the same parsed file: it equals the head built alone."""
    deploy = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: NAME}
        spec:
          template:
            spec:
              containers: [{name: app, image: nginx:1}]
    """
    files = {
        "base/app.yaml": deploy.replace("NAME", "web"),
        "base/kustomization.yaml": "resources: [app.yaml]\n",
        "one/kustomization.yaml": "namespace: one\nresources: [../base]\npatches:\n"
                                  "  - path: patch.yaml\n",
        "one/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                          "spec: {replicas: 2}\n",
        "two/kustomization.yaml": "namespace: two\nresources: [../base, extra.yaml]\n",
        "three/kustomization.yaml": "namespace: three\nresources: [../base]\n",
    }
    base = _tree(tmp_path / "base", files)
    files["one/patch.yaml"] = files["one/patch.yaml"].replace("replicas: 2", "replicas: 5")
    files["two/extra.yaml"] = deploy.replace("NAME", "extra")  # looked for, absent, now there
    head = _tree(tmp_path / "head", files)
    base_model, head_model = _head_after_base(base, head)
    replicas = {o.namespace: o.body["spec"].get("replicas") for o in head_model.objects
                if o.name == "web"}
    assert replicas == {"one": 5, "two": None, "three": None}
    assert any(o.name == "extra" and o.namespace == "two" for o in head_model.objects)
    graphs = [m.derived["kustomize-graph"] for m in (base_model, head_model)]
    assert graphs[1].build("three") is graphs[0].build("three")  # nothing it read changed
    assert graphs[1].build("one") is not graphs[0].build("one")  # its patch changed
    assert graphs[1].build("two") is not graphs[0].build("two")  # a file it looked for came


def test_a_head_graph_takes_only_the_flux_builds_that_read_the_same_files(tmp_path: Path) -> None:
    """Flux Kustomizations of a review's head take the base's builds where the folder they
    name lists the same files (kustomize-controller's generated kustomization) and every
    file is the same parsed file; the result equals the head built alone."""
    def flux(name: str, path: str) -> str:
        return (f"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
                f"metadata: {{name: {name}, namespace: flux-system}}\n"
                f"spec: {{path: {path}, targetNamespace: {name}, sourceRef: "
                f"{{kind: GitRepository, name: repo}}}}\n")

    def cm(name: str) -> str:
        return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\n"

    files = {
        "clusters/main/apps.yaml": flux("a", "./apps/a") + "---\n" + flux("b", "./apps/b")
        + "---\n" + flux("c", "./apps/c"),
        "apps/a/one.yaml": cm("one"),
        "apps/b/two.yaml": cm("two"),
        "apps/c/three.yaml": cm("three"),
    }
    base = _tree(tmp_path / "base", files)
    files["apps/b/extra.yaml"] = cm("extra")  # a new file in a generated folder
    files["apps/c/kustomization.yaml"] = "resources: []\n"  # now a kustomization of its own
    head = _tree(tmp_path / "head", files)
    base_model, head_model = _head_after_base(base, head)
    names = {(o.namespace, o.name) for o in head_model.objects if o.kind == "ConfigMap"}
    # apps/c's own kustomization lists nothing now: three.yaml beside it is not applied
    assert names == {("a", "one"), ("b", "two"), ("b", "extra")}
    graphs = [m.derived["kustomize-graph"] for m in (base_model, head_model)]
    flux_docs = [d for d in head_model.files["clusters/main/apps.yaml"].documents]
    builds = [[g.flux_build("clusters/main/apps.yaml", d.value["spec"]) for d in flux_docs]
              for g in graphs]
    assert [b is h for b, h in zip(*builds, strict=True)] == [True, False, False]


def test_who_applies_a_file_is_asked_once_per_path_and_the_head_takes_the_base_answer(
    tmp_path: Path,
) -> None:
    """``appliers`` asks the graph what each Flux Kustomization's path applies: the same
    build for the same (file, path), and a review's head takes the base's where every file
    it read is the same parsed file; the answer equals the head's alone."""
    from reviewbot.model.objects import appliers

    def flux(name: str, path: str) -> str:
        return (f"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
                f"metadata: {{name: {name}, namespace: flux-system}}\n"
                f"spec: {{path: {path}, prune: true, sourceRef: "
                f"{{kind: GitRepository, name: repo}}}}\n")

    files = {
        "clusters/main/apps.yaml": flux("a", "./apps/a") + "---\n" + flux("b", "./apps/b"),
        "apps/a/one.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\n",
        "apps/b/two.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: two}\n",
    }
    base = _tree(tmp_path / "base", files)
    files["apps/b/three.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: three}\n"
    head = _tree(tmp_path / "head", files)
    base_model, head_model = _head_after_base(base, head)
    alone = engine.load_model(head, Config())

    def named(model: Any) -> dict[str, list[str]]:
        return {f: [o.name for o in by] for f, by in appliers(model).items()}

    named(base_model)  # a review asks the base first (change-safety's deletions)
    assert named(head_model) == named(alone) == {
        "apps/a/one.yaml": ["a"], "apps/b/two.yaml": ["b"], "apps/b/three.yaml": ["b"]}
    graphs = [m.derived["kustomize-graph"] for m in (base_model, head_model)]
    assert graphs[0].path_build("clusters/main/apps.yaml", "./apps/a") is graphs[0].path_build(
        "clusters/main/apps.yaml", "./apps/a")
    assert [graphs[1].path_build("clusters/main/apps.yaml", p)
            is graphs[0].path_build("clusters/main/apps.yaml", p)
            for p in ("./apps/a", "./apps/b")] == [True, False]  # b's folder lists a new file


def test_a_head_graph_takes_the_base_folders_and_commented_entries_of_the_same_files(
    tmp_path: Path,
) -> None:
    """A patch whose entry is commented out is no object (a resource commented out is); the
    head's graph takes the base's folders (same paths) and the commented-out entries of
    every kustomization whose file is the same parsed file."""
    patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n"
    files = {
        "one/kustomization.yaml": "resources:\n  - app.yaml\npatches:\n  # - path: patch.yaml\n",
        "one/app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\n",
        "one/patch.yaml": patch,
        "two/kustomization.yaml": "resources:\n  - app.yaml\npatches:\n  # - path: patch.yaml\n",
        "two/app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: two}\n",
        "two/patch.yaml": patch,
    }
    base = _tree(tmp_path / "base", files)
    files["two/kustomization.yaml"] = "resources:\n  - app.yaml\n  # - patch.yaml\n"
    head = _tree(tmp_path / "head", files)
    base_model, head_model = _head_after_base(base, head)
    names = [sorted(o.name for o in m.objects) for m in (base_model, head_model)]
    # a patch commented out is no object; a resource commented out is not applied either
    # (beside a kustomization that lists it nowhere: kustomize-integrity says so)
    assert names == [["one", "two"], ["one", "two"]]
    graphs = [m.derived["kustomize-graph"] for m in (base_model, head_model)]
    assert graphs[1].dirs is graphs[0].dirs
    kept, changed = (graphs[1].by_dir[d] for d in ("one", "two"))
    assert graphs[1].commented(kept) is graphs[0].commented(graphs[0].by_dir["one"])
    assert [(c.field, c.target) for c in graphs[1].commented(changed)] == [
        ("resources", "two/patch.yaml")]


_PART = st.text("ab.-_", min_size=1, max_size=3).filter(lambda p: p not in (".", ".."))


@given(st.lists(st.tuples(st.booleans(), st.lists(_PART, min_size=1, max_size=4)), max_size=8))
def test_folders_are_the_dirname_walk_of_every_path(raw: list[tuple[bool, list[str]]]) -> None:
    """``folders`` (a parent is what precedes the last slash) equals walking
    ``posixpath.dirname`` up from every path, for normalized paths, absolute ones included."""
    paths = [("/" if absolute else "") + "/".join(parts) for absolute, parts in raw]
    walked: set[str] = set()
    for path in paths:
        parent = posixpath.dirname(path)
        while parent and parent not in walked:
            walked.add(parent)
            parent = posixpath.dirname(parent)
    assert folders(paths) == walked


def test_a_flux_build_is_one_per_file_and_what_of_the_spec_shapes_it(tmp_path: Path) -> None:
    """The walk asks for a child as its parent built it (a patched copy of its spec), and
    kustomize-integrity for its ``spec.path`` alone: the graph builds once per file and
    build fields (path, sourceRef, components, targetNamespace, namePrefix, nameSuffix,
    patches, images); a spec differing elsewhere (postBuild, interval) is the same build."""
    write(tmp_path, {
        "apps/web/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n",
        "apps/web/more.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: more}\n",
    })
    graph = kustomize_graph(tmp_path)
    spec = {"path": "./apps/web", "sourceRef": {"kind": "GitRepository", "name": "repo"}}
    first = graph.flux_build("clusters/prod/apps.yaml", spec)
    assert first is not None and [r.name for r in first.resources] == ["web", "more"]
    patched = {**spec, "interval": "5m", "postBuild": {"substitute": {"A": "1"}}}
    assert graph.flux_build("clusters/prod/apps.yaml", patched) is first
    assert graph.flux_build("clusters/prod/apps.yaml", dict(spec)) is first
    moved = graph.flux_build("clusters/prod/apps.yaml", {**spec, "targetNamespace": "web"})
    assert moved is not first and {r.namespace for r in moved.resources} == {"web"}
    elsewhere = graph.flux_build("clusters/stage/apps.yaml", dict(spec))
    assert elsewhere is not first and elsewhere is not None
    assert [r.body for r in elsewhere.resources] == [r.body for r in first.resources]


def test_a_folder_s_generated_kustomization_is_listed_once_whatever_asks_first(
        tmp_path: Path) -> None:
    """``Graph.flux_units`` (the kustomization kustomize-controller generates for a folder
    without one) is listed once per folder: asked again, in any order of folders, it gives
    what a fresh graph gives."""
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\n"
    write(tmp_path, {
        "apps/a.yaml": cm % "a", "apps/deep/er/y.yaml": cm % "y",
        "apps/sub/kustomization.yaml": "resources: [x.yaml]\n", "apps/sub/x.yaml": cm % "x",
        "apps/sub/more/z.yaml": cm % "z", "other/b.yml": cm % "b",
    })
    folders_asked = ["apps", "", "apps/deep", "other", "apps/sub/more", "nowhere"]
    fresh = [kustomize_graph(tmp_path).flux_units(f) for f in folders_asked]
    assert fresh[0] == (["apps/a.yaml", "apps/deep/er/y.yaml"], ["apps/sub"])
    graph = kustomize_graph(tmp_path)
    for order in (reversed(folders_asked), folders_asked):
        listed = {f: graph.flux_units(f) for f in order}
        assert [listed[f] for f in folders_asked] == fresh


@given(st.dictionaries(st.lists(st.sampled_from(["a", "b", "c"]), max_size=4).map(tuple),
                       st.booleans(), max_size=12),
       st.lists(st.sampled_from(["a", "b", "c"]), max_size=2))
def test_a_folder_s_units_are_the_topmost_kustomizations_below_it(
        folders: dict[tuple[str, ...], bool], top: list[str]) -> None:
    """``Graph.flux_units`` answers each folder once for all its files (and its ancestors
    once for all their folders): each manifest below the folder is in the topmost folder
    with a kustomization between them (a unit), else listed itself, as walking up from each
    file finds."""
    paths: list[str] = []
    for parts, kustomized in sorted(folders.items()):
        folder = "/".join(parts)
        paths.append(posixpath.join(folder, "m.yaml"))
        if kustomized:
            paths.append(posixpath.join(folder, "kustomization.yaml"))
    graph = kustomize_graph_of(paths)
    folder = "/".join(top)
    files: list[str] = []
    units: set[str] = set()
    for path in sorted(p for p in paths if p.endswith("m.yaml")):
        if folder and not path.startswith(folder + "/"):
            continue
        unit, current = None, posixpath.dirname(path)
        while current != folder and current:
            if current in graph.by_dir:
                unit = current
            current = posixpath.dirname(current)
        if unit is None:
            files.append(path)
        else:
            units.add(unit)
    assert graph.flux_units(folder) == (files, sorted(units))


def kustomize_graph_of(paths: list[str]) -> Graph:
    """The graph of a tree of ``paths`` (a kustomization lists nothing, a manifest is a
    ConfigMap)."""
    found, files = [], {}
    for path in paths:
        if path.endswith("kustomization.yaml"):
            doc = load(FileRecord(path, None, b"resources: []\n")).documents[0]
            found.append(Kustomization(path, posixpath.dirname(path), doc.value, doc))
        else:
            files[path] = load(FileRecord(
                path, None, b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"))
    return Graph(found, files, paths)


_SPEC_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=3),
    max_leaves=8)


@given(st.dictionaries(st.sampled_from(["path", "patches", "postBuild", "sourceRef", "images",
                                        "interval", "commonMetadata", "suspend"]),
                       _SPEC_VALUE, max_size=6),
       st.lists(st.sampled_from(["path", "patches", "postBuild", "sourceRef", "images",
                                 "components"]), unique=True, max_size=6))
def test_a_spec_key_is_the_text_of_its_fields_each_made_once(
        spec: dict[str, Any], fields: list[str]) -> None:
    """``Graph.spec_key`` (each field's text made once per spec object, for the walk's key
    and the build's) is ``repr`` of the (field, value) pairs the spec has, in the order
    asked, whichever fields an earlier key of the same spec asked for."""
    graph = Graph([], {})
    plain = repr([(k, spec[k]) for k in fields if k in spec])
    graph.spec_key(spec, reversed(fields))
    assert graph.spec_key(spec, fields) == plain
    assert graph.spec_key(dict(spec), fields) == plain


@given(st.lists(st.text("# -\t\r\x0b\x85\u2028\u00a0ab.y/ml:", max_size=12), max_size=6))
def test_a_text_without_a_comment_dash_has_no_commented_entry(lines: list[str]) -> None:
    """``commented_entries`` reads a kustomization's lines only when its text holds ``#``,
    blanks, ``-`` and a blank somewhere: every line a commented entry matches holds that,
    whatever ends the lines."""
    text = "\n".join(lines)
    if any(_COMMENTED.match(line) for line in text.splitlines()):
        assert _COMMENT_DASH.search(text)


def _json_text_plain(value: object, indent: int | None = 2) -> str:
    """``escape.json_text`` as it was written before its ASCII shortcut: every text's
    characters checked (the reference)."""
    import unicodedata

    from reviewbot import escape

    text = json.dumps(value, indent=indent, ensure_ascii=False)
    if not text.replace("\n", "").isprintable():
        text = "".join(char if char == "\n" or char.isprintable() or
                       unicodedata.category(char) not in escape._HIDDEN
                       else escape._json_escape(char) for char in text)
    return text.replace("##[", "##\\u005b")


@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(
        "ab :\n\t\r\x00\x1b\x7f\x80\x85\x9f\xa0\u00ad\u2028\u2029\u202e\ud800#[é\U0001f680"),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.text("ab\x7f\u2028#[", max_size=3), children, max_size=4),
    max_leaves=12), st.sampled_from([2, None]))
def test_json_text_writes_what_checking_every_character_writes(value: Any,
                                                               indent: int | None) -> None:
    """Only JSON's escapes below U+0020 and DEL can be unprintable in ASCII JSON text: the
    shortcut that skips the character check there writes what the check writes."""
    from reviewbot.escape import json_text

    assert json_text(value, indent) == _json_text_plain(value, indent)


def test_a_kustomization_s_entries_are_read_once_and_again_for_another_body() -> None:
    """``Graph.entries`` (the walk's and the builder's) is ``path_entries`` of the
    kustomization, the same list when asked again, a new one for another body."""
    body = {"resources": ["a.yaml", "../b", "https://x/y"], "patches": [{"path": "p.yaml"}],
            "configMapGenerator": [{"name": "c", "files": ["k=f.txt"], "envs": ["e.env"]}]}
    doc = _tree_doc()
    k = Kustomization("apps/kustomization.yaml", "apps", body, doc)
    graph = Graph([k], {})
    assert graph.entries(k) == list(path_entries(body))
    assert graph.entries(k) is graph.entries(k)
    other = Kustomization(k.file, k.directory, {"resources": ["c.yaml"]}, doc)
    assert graph.entries(other) == list(path_entries(other.body))


def _tree_doc() -> Any:
    data = b"{}\n"
    return load(FileRecord("apps/kustomization.yaml", blob_id(data), data)).documents[0]


# ---------------------------------------------------------------- the connectivity listing

LISTED = (
    deployment("web", "shop", "{app: web, tier: a}", "ports: [{name: http, containerPort: 8080}]")
    + deployment("web2", "shop", "{app: web, tier: a}",
                 "ports: [{name: http, containerPort: 9090}]")
    + deployment("web3", "shop", "{app: web}", "ports: [{name: http, containerPort: 7070}]")
    + deployment("api", "shop", "{app: api}", "ports: [{name: http, containerPort: 8080}]")
    + deployment("db", "data", "{app: db}", "ports: [{containerPort: 5432}]")
    + deployment("free", "open", "{app: free}")
    + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: in, namespace: shop}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
  ingress:
  - from: [{ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}}]
    ports: [{port: http}]
  - from: [{podSelector: {matchLabels: {app: web}}}, {ipBlock: {cidr: 192.168.0.0/16}}]
    ports: [{port: 8080}, {port: http}]
  egress:
  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: data}}}]
  - to: [{ipBlock: {cidr: 10.2.0.0/16}},
         {podSelector: {matchExpressions: [{key: app, operator: In, values: [api, web]}]}}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: db-in, namespace: data}
spec:
  podSelector: {matchLabels: {app: db}}
  ingress:
  - from: [{namespaceSelector: {}}, {ipBlock: {cidr: 10.0.0.0/9}}]
    ports: [{port: 5432}]
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: deny-some, namespace: shop}
spec:
  endpointSelector: {matchLabels: {app: api}}
  ingressDeny:
  - fromCIDR: [10.5.0.0/16]
  - fromEndpoints: [{matchLabels: {app: web}}]
    toPorts: [{ports: [{port: "9999", protocol: TCP}]}]
"""
)


def test_the_listing_answers_each_pair_as_the_network_does(tmp_path: Path) -> None:
    """connectivity()'s per-listing memo (_pair_conns) and the address-range memo give what
    Network.allowed and the plain address-range walk give, pair by pair and piece by piece:
    named ports resolved per pod, ipBlock excepts, Cilium deny rules, pods with no policy."""
    net = build(tmp_path, LISTED)
    memo = network_mod._pair_conns(net)
    pods = range(len(net.pods))
    pairs = [(s, d) for s in pods for d in pods if s != d]
    assert len(pairs) >= 20
    assert [memo(s, d) for s, d in pairs] == [net.allowed(s, d) for s, d in pairs]
    assert {str(net.allowed(s, d)) for s, d in pairs} >= {"All Connections",
                                                          "No Connections"}
    for direction in ("ingress", "egress"):
        pieces = ip_pieces(net.ip_blocks(direction))
        assert len(pieces) >= 3
        for piece in pieces:
            for i in pods:
                if direction == "ingress":
                    assert net.ip_ingress(piece, i) == net._ip_ingress(piece, i)
                else:
                    assert net.ip_egress(i, piece) == net._np_ip_egress_of(i, piece)
    plain = build(tmp_path, LISTED)
    listed = network_mod.connectivity(net)
    original = network_mod._pair_conns
    try:
        network_mod._pair_conns = lambda network: network.allowed  # type: ignore[assignment]
        assert network_mod.connectivity(plain) == listed
    finally:
        network_mod._pair_conns = original


_YAML_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False)
    | st.sampled_from(["", "a", "${A}", "$", "{", "a, b", "'", '"', "[x]", "a$", "{b"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b", "$", "{"]), inner, max_size=2),
    max_leaves=6)
_SPECS = st.dictionaries(st.sampled_from(["path", "patches", "images", "targetNamespace"]),
                         _YAML_VALUES, max_size=3)


def _spec_id_agrees(graph: Graph, a: dict[str, Any], b: dict[str, Any]) -> None:
    from reviewbot.model.reach import _spells
    fields = ("path", "patches", "images", "targetNamespace")
    key_a, key_b = graph.spec_key(a, fields), graph.spec_key(b, fields)
    id_a, id_b = graph.spec_id(a, fields), graph.spec_id(b, fields)
    assert (id_a == id_b) == (key_a == key_b)
    assert _spells(id_a) == ("${" in key_a)
    assert hash(id_a) == hash(graph.spec_id(a, fields))  # (asked again: the same parts)


@given(_SPECS, _SPECS)
def test_a_spec_s_id_is_equal_exactly_when_its_text_is(a: dict[str, Any],
                                                       b: dict[str, Any]) -> None:
    """``Graph.spec_id`` (the memo key of a Flux build and of the walk) equals for two specs
    exactly when ``Graph.spec_key``'s texts do, and ``reach._spells`` on it says whether that
    text holds ``${`` (generated specs, items shared between them as a parent's patches
    are; and the same values in new objects)."""
    graph = Graph([], {})
    _spec_id_agrees(graph, a, b)
    _spec_id_agrees(graph, a, dict(a))
    _spec_id_agrees(graph, a, json.loads(json.dumps(a)))
    shared = {**b, **{k: [*v, *v] for k, v in a.items() if isinstance(v, list)}}
    _spec_id_agrees(graph, a, shared)


@pytest.mark.skipif(not (Path(__file__).resolve().parents[2] / "shared" / "corpus").is_dir(),
                    reason="no corpus beside the clone")
def test_a_spec_s_id_is_equal_exactly_when_its_text_is_on_the_corpus() -> None:
    """The same on every Flux Kustomization spec of two corpus repositories (specs with
    parents' patches, postBuild variables), each pair of them."""
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus"
    specs: list[dict[str, Any]] = []
    for repo in ("JJGadgets-Biohazard", "hmcts-sds-flux-config"):
        for path in sorted((corpus / repo).rglob("*.yaml")):
            lf = load(FileRecord(str(path), None, path.read_bytes()))
            for doc in lf.documents:
                value = doc.value
                if (isinstance(value, dict) and value.get("kind") == "Kustomization"
                        and str(value.get("apiVersion", "")).startswith("kustomize.toolkit")
                        and isinstance(value.get("spec"), dict)):
                    specs.append(value["spec"])
    assert len(specs) > 100
    graph = Graph([], {})
    for a in specs:
        for b in specs[:60]:
            _spec_id_agrees(graph, a, b)
