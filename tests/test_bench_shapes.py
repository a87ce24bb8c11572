"""bench/gen.py's repository shapes: the bundle layout holds the same objects as the file per
app layout, and the large CRDs are the sizes asked for and parse as one CRD each; bench/
hostile.py's fleet is reached whole from its roots."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from reviewbot.load.loader import load
from reviewbot.sources.tree import MAX_FILE_BYTES, FileRecord

from .helpers import lint_dir

_GEN = Path(__file__).resolve().parent.parent / "bench" / "gen.py"


def _gen():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_gen", _GEN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_gen"] = module
    spec.loader.exec_module(module)
    return module


def _objects(root: Path) -> list[str]:
    out = []
    for p in sorted(root.rglob("*.yaml")):
        if p.name == ".reviewbot.yaml":
            continue
        loaded = load(FileRecord(str(p), "blob", p.read_bytes()))
        assert not loaded.problems, (p, loaded.problems)
        out += [json.dumps(d.value, sort_keys=True) for d in loaded.documents
                if isinstance(d.value, dict) and "apiVersion" in d.value]
    return sorted(out)


def test_bundle_layout_holds_the_same_objects_in_twenty_files(tmp_path: Path) -> None:
    gen = _gen()
    gen.generate(600, tmp_path / "apps", 8, 0.02, False, 0, True)
    stats = gen.generate(600, tmp_path / "bundle", 8, 0.02, False, 0, True, layout="bundle")
    bundles = sorted((tmp_path / "bundle" / "install").glob("*.yaml"))
    assert len(bundles) == 20
    assert stats["objects"] == 600
    apps = _objects(tmp_path / "apps")
    assert len(apps) == 600
    assert _objects(tmp_path / "bundle") == apps
    assert (tmp_path / "bundle" / ".reviewbot.yaml").read_text() == \
        (tmp_path / "apps" / ".reviewbot.yaml").read_text()


def test_large_crds_are_one_to_four_megabytes_and_parse_as_crds() -> None:
    gen = _gen()
    files = gen.crd_files(4, 1, 8)
    sizes = sorted(len(text.encode()) for text in files.values())
    assert len(sizes) == 4
    assert 1_000_000 <= sizes[0] < 1_100_000
    assert 3_900_000 <= sizes[-1] < MAX_FILE_BYTES  # under the default loader limit
    path, text = next(iter(files.items()))
    loaded = load(FileRecord(path, "blob", text.encode()))
    assert not loaded.problems
    [doc] = loaded.documents
    assert doc.value["kind"] == "CustomResourceDefinition"
    schema = doc.value["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec = schema["properties"]["spec"]["properties"]
    assert len(spec) > 20
    first = next(iter(spec.values()))
    assert first["type"] == "object" and first["properties"]


def test_shapes_keep_the_object_count(tmp_path: Path) -> None:
    gen = _gen()
    stats = gen.generate(300, tmp_path / "crds", 8, 0.02, False, 0, True, crds=3)
    assert stats["objects"] == 300 and stats["crds"] == 3
    assert len(_objects(tmp_path / "crds")) == 300


def _run():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(_GEN.parent))  # run.py imports gen by name, as when run
    try:
        spec = importlib.util.spec_from_file_location("bench_run", _GEN.parent / "run.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_run"] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(_GEN.parent))
    return module


def test_the_pushed_pr_is_the_pr_and_one_more_commit(tmp_path: Path) -> None:
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                              check=True).stdout.strip()

    repo = tmp_path / "repo"
    _gen().generate(300, repo, 8, 0.02, True, 5, True)
    run = _run()
    assert run.pushed_branch(repo) == "pr-pushed"
    first = git("rev-parse", "pr-pushed")
    assert git("rev-parse", "pr-pushed^") == git("rev-parse", "pr")
    changed = git("diff", "--name-only", "pr", "pr-pushed").splitlines()
    assert len(changed) == 1
    assert git("diff", "--name-only", "main", "pr-pushed") == git("diff", "--name-only", "main",
                                                                   "pr")
    assert git("status", "--porcelain") == ""  # the work tree and index are not touched
    assert run.pushed_branch(repo) == "pr-pushed" and git("rev-parse", "pr-pushed") == first


def _hostile():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_hostile", _GEN.parent / "hostile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("shape", ["flux", "generated", "argo"])
def test_the_fleet_shape_is_reached_whole_from_its_roots(tmp_path: Path, shape: str) -> None:
    """bench/reach.py times the walk on ``hostile.py fleet``: every file is applied, each
    cluster gets every app (a Flux Kustomization and three objects; an Argo CD Application
    and three), each with its cluster's postBuild values."""
    _hostile().fleet(tmp_path, 3, 2, shape == "argo", shape == "generated")
    result = lint_dir(tmp_path)
    reach = result.model.derived["reach"]
    assert not result.model.unapplied
    applied = sum(len(a.resources) for a in reach.applied)
    if shape == "argo":
        assert reach.clusters == ["in-cluster"]  # (Argo CD names kubernetes.default.svc so)
        assert applied == 4 * 3
        return
    assert reach.clusters == ["clusters/cluster-0", "clusters/cluster-1"]
    assert applied == 2 * (4 * 3 + 4)  # + the sync pair, settings and apps per cluster
    images = sorted(o.body["spec"]["template"]["spec"]["containers"][0]["image"].split("@")[0]
                    for o in result.model.objects if o.kind == "Deployment")
    assert images == sorted(f"registry-{c}.example.com/app-0000{i}"
                            for c in range(2) for i in range(3))
    assert [f.rule for f in result.findings if f.severity == "error"] == []
