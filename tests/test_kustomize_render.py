"""`--render`: kustomize builds linted, findings mapped back to the source files and lines."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from reviewbot.cli import main
from reviewbot.config import Config
from reviewbot.engine.run import analyze
from reviewbot.errors import ReviewbotError
from reviewbot.load.loader import load
from reviewbot.model.render import emit, kustomize_command, render_tree
from reviewbot.sources.tree import FileRecord, blob_id, disk_tree

needs_kustomize = pytest.mark.skipif(
    not (shutil.which("kustomize") or shutil.which("kubectl")),
    reason="needs kustomize or kubectl on PATH",
)

BASE_DEPLOYMENT = """
# the base
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: "80"   # reviewbot: ignore[image-digest] local registry
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def record(path: str, text: str) -> FileRecord:
    data = textwrap.dedent(text).lstrip("\n").encode()
    return FileRecord(path, blob_id(data), data)


def test_emit_round_trips_values() -> None:
    objects = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {}},
         "data": {"yes": "no", "n": "0755", "multi": "a\nb: c\n", "e": "", "uni": "ünï"}},
        {"kind": "X", "spec": {"ints": [1, -2, 3.5, 1e-05, True, None], "nested": [[1], []],
                               "items": [{"a": 1, "b": {"c": [{"d": "e"}]}}, {}]}},
    ]
    text = emit(objects, None)
    loaded = load(FileRecord("out.yaml", blob_id(text.encode()), text.encode()))
    assert [d.value for d in loaded.documents] == objects


def test_emit_keeps_fields_on_their_source_lines() -> None:
    source = load(record("deploy.yaml", BASE_DEPLOYMENT))
    built = json.loads(json.dumps(source.documents[0].value))
    built["metadata"].update({"name": "prod-web", "namespace": "prod",
                              "labels": {"team": "a", "tier": "web"}})
    built["spec"]["template"]["spec"]["containers"][0]["resources"] = {
        "limits": {"cpu": "1", "memory": "1Gi"}}
    out = emit([built], source).encode()
    rendered = load(FileRecord("deploy.yaml", blob_id(out), out))
    for path in [("spec", "replicas"), ("spec", "template"),
                 ("spec", "template", "spec", "containers", 0, "image"),
                 ("spec", "template", "spec", "containers", 0, "ports", 0, "containerPort")]:
        assert rendered.documents[0].position(path)[0] == source.documents[0].position(path)[0]
    assert rendered.documents[0].value == built
    assert {n: c[:2] for n, c in rendered.ignore_comments.items()} == {
        n: c[:2] for n, c in source.ignore_comments.items()}


@needs_kustomize
def test_render_maps_findings_to_source_lines(tmp_path: Path) -> None:
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [deployment.yaml]\n",
        "base/deployment.yaml": BASE_DEPLOYMENT,
        "prod/kustomization.yaml": """
            namespace: prod
            namePrefix: prod-
            resources: [../base]
            configMapGenerator:
            - name: settings
              literals: [level=info]
        """,
    })
    tree = render_tree(disk_tree([tmp_path], tmp_path))
    paths = {r.path for r in tree.files}
    assert "prod/kustomization.yaml#generated" in paths
    result = analyze(tree, Config(), only=["schema"])
    got = [(f.file, f.line, f.object, f.message) for f in result.findings]
    assert got == [(
        "base/deployment.yaml", 17, "Deployment/prod/prod-web",
        'spec.template.spec.containers[0].ports[0].containerPort: expected integer, '
        'got string "80"',
    )]
    assert result.stats["schema"]["validated"] == 2  # the Deployment and the generated ConfigMap


@needs_kustomize
def test_failing_and_remote_builds_are_skipped_and_linted_unrendered(tmp_path: Path) -> None:
    write(tmp_path, {
        "broken/kustomization.yaml": "resources: [missing.yaml]\n",
        "remote/kustomization.yaml": "resources: [github.com/org/repo//deploy?ref=v1]\n",
        "chart/kustomization.yaml": "helmCharts: [{name: redis, repo: https://x, version: 1}]\n",
        "plain/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    })
    tree = render_tree(disk_tree([tmp_path], tmp_path))
    reasons = {s.path: s.reason for s in tree.skipped}
    assert reasons["remote/kustomization.yaml"] == (
        "kustomize build not run: remote resource github.com/org/repo//deploy?ref=v1")
    assert reasons["chart/kustomization.yaml"] == (
        "kustomize build not run: helmCharts need Helm (--enable-helm is never used)")
    assert reasons["broken/kustomization.yaml"].startswith("kustomize build failed")
    assert reasons["broken/kustomization.yaml"].endswith("no such file or directory")
    assert "plain/cm.yaml" in {r.path for r in tree.files}


def test_render_without_kustomize_or_kubectl_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ReviewbotError, match="needs kustomize or kubectl"):
        kustomize_command()


@needs_kustomize
def test_cli_render_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, {
        "app/kustomization.yaml": "namespace: app\nresources: [deployment.yaml]\n",
        "app/deployment.yaml": BASE_DEPLOYMENT,
    })
    code = main(["lint", str(tmp_path), "--render", "--rule", "schema", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [(Path(f["file"]).name, f["line"], f["object"]) for f in out["findings"]] == [
        ("deployment.yaml", 17, "Deployment/app/web")]


@needs_kustomize
def test_a_failed_build_is_a_finding_unless_a_check_explains_it(tmp_path: Path) -> None:
    write(tmp_path, {
        "README.md": "repo\n",
        "missing/kustomization.yaml": "resources: [gone.yaml]\n",
        "patched/kustomization.yaml": "resources: [cm.yaml]\npatches: [{path: patch.yaml}]\n",
        "patched/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        "patched/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nope}\n",
        # a JSON 6902 operation on a key the object lacks: no check of reviewbot explains it
        "removed/kustomization.yaml": "resources: [cm.yaml]\npatches:\n"
                                      "- target: {kind: ConfigMap, name: c}\n"
                                      "  patch: '[{\"op\": \"remove\", \"path\": \"/data/x\"}]'\n",
        "removed/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    })
    result = analyze(render_tree(disk_tree([tmp_path], tmp_path)), Config(),
                     only=["kustomize-integrity"])
    got = [(f.file, f.line, f.message.split(":")[0]) for f in result.findings]
    assert got == [
        ("missing/kustomization.yaml", 1, "resources[0]"),
        ("patched/kustomization.yaml", 2, "patches[0]"),  # the patch names no object here
        ("removed/kustomization.yaml", 1, "kustomize build failed"),
    ]
@needs_kustomize
def test_render_agrees_with_the_in_process_build_and_reports_each_container_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One floating image in a base two overlays build: one image-digest finding per built
    Deployment, the same with and without ``--render``, each on a line of the source file
    (the second copy of the base is not pointed past the file's end)."""
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [deployment.yaml]\n",
        "base/deployment.yaml": BASE_DEPLOYMENT.replace(
            "  # reviewbot: ignore[image-digest] local registry", ""),
        "prod/kustomization.yaml": "namespace: prod\nresources: [../base]\n"
                                   "images: [{name: nginx, newTag: '1.28'}]\n",
        "staging/kustomization.yaml": "namespace: staging\nresources: [../base]\n",
    })

    def findings(*flags: str) -> dict[str, tuple[str, str, int]]:
        main(["lint", str(tmp_path), *flags, "--format", "json", "--rule", "image-digest"])
        out = json.loads(capsys.readouterr().out)
        got = [(f["object"], (f["message"], (tmp_path / f["file"]).relative_to(tmp_path).as_posix(),
                              f["line"])) for f in out["findings"]]
        assert len(got) == len(dict(got))  # one finding per object
        return dict(got)

    in_process, rendered = findings(), findings("--render")
    assert sorted(in_process) == sorted(rendered) == [
        "Deployment/prod/web", "Deployment/staging/web"]
    image_line = 15  # base/deployment.yaml
    assert rendered["Deployment/staging/web"] == in_process["Deployment/staging/web"] == (
        rendered["Deployment/staging/web"][0], "base/deployment.yaml", image_line)
    # the overlay's images: entry set the tag: the in-process build points at it; kustomize
    # does not say which transformer changed a field, so --render points at the base's line
    assert in_process["Deployment/prod/web"][1:] == ("prod/kustomization.yaml", 3)
    assert rendered["Deployment/prod/web"][1:] == ("base/deployment.yaml", image_line)
    assert rendered["Deployment/prod/web"][0] == in_process["Deployment/prod/web"][0]


@needs_kustomize
def test_render_reports_no_duplicate_for_a_base_two_overlays_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both copies of a base land in its rendered file; kustomize built them into two
    namespaces, so they are no duplicate objects (it refuses those itself)."""
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [deployment.yaml]\n",
        "base/deployment.yaml": BASE_DEPLOYMENT,
        "dev/kustomization.yaml": "namespace: dev\nresources: [../base]\n",
        "prod/kustomization.yaml": "namespace: prod\nresources: [../base]\n",
    })
    main(["lint", str(tmp_path), "--render", "--rule", "kustomize-integrity", "--format",
          "json"])
    assert json.loads(capsys.readouterr().out)["findings"] == []
