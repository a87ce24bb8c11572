"""Bounds of a kustomize build (issue 29.4, 29.17; issue 32.6): nested kustomizations past
MAX_DEPTH and builds past MAX_OBJECTS are cut with a located kustomize-integrity warning,
never a crash; each folder is built (and walked for duplicates) once per run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewbot.model.kustomize import MAX_DEPTH, MAX_OBJECTS
from reviewbot.model.objects import model_graph

from .helpers import GitRepo, lint_dir, run_cli

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"


def nested(depth: int) -> dict[str, str]:
    """``depth`` kustomizations, each listing the next folder; a ConfigMap at the bottom."""
    files = {}
    folder = "k8s"
    for _ in range(depth):
        files[f"{folder}/kustomization.yaml"] = "resources:\n- d\n"
        folder += "/d"
    files[f"{folder}/kustomization.yaml"] = "resources:\n- cm.yaml\n"
    files[f"{folder}/cm.yaml"] = CM
    return files


def diamond(levels: int) -> dict[str, str]:
    """``levels`` levels of two kustomizations, each listing both of the next (31 files for
    15): the objects double per level."""
    files = {}
    for level in range(levels):
        for side in "ab":
            folder = f"k8s/l{level}{side}"
            if level < levels - 1:
                files[f"{folder}/kustomization.yaml"] = (
                    f"resources:\n- ../l{level + 1}a\n- ../l{level + 1}b\nnameSuffix: -{side}\n")
            else:
                files[f"{folder}/kustomization.yaml"] = "resources:\n- cm.yaml\n"
                files[f"{folder}/cm.yaml"] = CM.replace("name: a", f"name: c{side}")
    return files


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def limits(findings: list[tuple[str, str, str, int]]) -> list[tuple[str, str, str, int]]:
    return [f for f in findings if f[0] == "kustomize-integrity"]


def test_500_nested_kustomizations_are_cut_at_the_entry_past_the_depth(tmp_path: Path) -> None:
    write(tmp_path, nested(500))
    result = lint_dir(tmp_path)
    found = [(f.rule, f.severity, f.file, f.line, f.message) for f in result.findings]
    deepest = "k8s" + "/d" * (MAX_DEPTH - 1) + "/kustomization.yaml"
    assert found == [("kustomize-integrity", "warning", deepest, 2,
                      f"'d' is a kustomization nested more than {MAX_DEPTH} deep: what it "
                      "includes is not built; reviewbot judges none of the rest")]


def test_500_nested_kustomizations_review_and_diff_without_a_crash(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"README.md": "x\n"})
    repo.git("checkout", "-q", "-b", "pr")
    repo.commit(nested(500))
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", "main", "--head",
                              "pr", "--platform", "none", "--format", "json"], capsys)
    assert code in (0, 1), err
    rules = [(f["rule"], f["severity"]) for f in json.loads(out)["findings"]]
    assert ("kustomize-integrity", "warning") in rules
    code, out, err = run_cli(["diff", "main", "pr", "--repo", str(repo.path), "--format",
                              "json"], capsys)
    assert code in (0, 1), err
    assert isinstance(json.loads(out), (dict, list))


def test_a_diamond_of_15_levels_is_built_once_per_folder_and_capped(tmp_path: Path) -> None:
    write(tmp_path, diamond(15))
    result = lint_dir(tmp_path)
    # l0a and l0b would make 16,384 objects each: both stop at MAX_OBJECTS, at the entry
    assert [(f.rule, f.severity, f.file, f.line) for f in result.findings] == [
        ("kustomize-integrity", "warning", "k8s/l0a/kustomization.yaml", 3),
        ("kustomize-integrity", "warning", "k8s/l0b/kustomization.yaml", 3)]
    assert f"more than {MAX_OBJECTS:,} objects" in result.findings[0].message
    assert len(result.model.objects) == 2 * MAX_OBJECTS


def test_a_diamond_under_the_cap_builds_every_object(tmp_path: Path) -> None:
    write(tmp_path, diamond(10))
    result = lint_dir(tmp_path)
    assert result.findings == []
    names = {o.name for o in result.model.objects}
    assert len(names) == 2 ** 10  # two roots, each 2**9 distinct names: -a/-b suffix chains


def test_a_flux_path_to_a_kustomization_meets_the_limits_of_its_build(tmp_path: Path) -> None:
    """A Flux Kustomization's spec.path naming a kustomization folder: its path-only build is
    that folder's kustomize build (kustomize-integrity reads the limits there), and the limit
    is said once however many roots and paths meet it."""
    files = nested(MAX_DEPTH + 3)
    files["clusters/x/apps.yaml"] = "".join(
        f"---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
        f"metadata: {{name: {name}, namespace: flux-system}}\n"
        f"spec: {{path: {path}, sourceRef: {{kind: GitRepository, name: repo}}}}\n"
        for name, path in (("top", "./k8s"), ("inner", "./k8s/d/d"), ("again", "./k8s/d/d")))
    write(tmp_path, files)
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    graph = model_graph(result.model)
    for folder in ("k8s", "k8s/d/d"):
        assert graph.folder_build(folder, {}, "clusters/x/apps.yaml").limits == (
            graph.build(folder).limits)
    limits = [f for f in result.findings if f.kind == "limit"]
    assert len(limits) == 1 and limits[0].file.endswith("/kustomization.yaml")
