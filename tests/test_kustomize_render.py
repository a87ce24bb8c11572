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
from reviewbot.model.render import emit, kustomize_command, render_tree, source_column
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


def test_emit_keeps_a_later_document_on_its_source_lines() -> None:
    """A field the build spelled out (a flow mapping of the source, written a key a line)
    does not push the next document down: the fields that no longer fit before its
    ``---`` are written in flow style, and the next document starts where it starts."""
    source = load(record("all.yaml", """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
        spec:
          template:
            spec:
              containers:
                - name: web
                  resources:
                    requests: {cpu: 10m, memory: 16Mi}
        ---
        apiVersion: policy/v1beta1
        kind: PodDisruptionBudget
        metadata:
          name: web
        """))
    built = [json.loads(json.dumps(d.value)) for d in source.documents]
    out = emit(built, source).encode()
    rendered = load(FileRecord("all.yaml", blob_id(out), out))
    for index in (0, 1):
        for path in [("apiVersion",), ("kind",), ("metadata", "name")]:
            assert rendered.documents[index].position(path)[0] == (
                source.documents[index].position(path)[0]), (index, path)
    assert [d.value for d in rendered.documents] == built


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


# a strategic merge patch of a strategy kustomize does not have ("unknown patch strategy")
STRATEGY = ("- patch: |-\n    apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: c}\n"
            "    $patch: frob\n")


@needs_kustomize
def test_a_failed_build_is_a_finding_unless_a_check_explains_it(tmp_path: Path) -> None:
    write(tmp_path, {
        "README.md": "repo\n",
        "missing/kustomization.yaml": "resources: [gone.yaml]\n",
        "patched/kustomization.yaml": "resources: [cm.yaml]\npatches: [{path: patch.yaml}]\n",
        "patched/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        "patched/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nope}\n",
        # a JSON 6902 operation on a key the object lacks: kustomize-integrity explains it
        "removed/kustomization.yaml": "resources: [cm.yaml]\npatches:\n"
                                      "- target: {kind: ConfigMap, name: c}\n"
                                      "  patch: '[{\"op\": \"remove\", \"path\": \"/data/x\"}]'\n",
        "removed/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        # a JSON 6902 test that fails: kustomize-integrity explains it (new-user trial
        # seventy-one D2)
        "tested/kustomization.yaml": "resources: [cm.yaml]\npatches:\n"
                                     "- target: {kind: ConfigMap, name: c}\n"
                                     "  patch: '[{\"op\": \"test\", \"path\": \"/metadata/name\","
                                     " \"value\": \"d\"}]'\n",
        "tested/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        # a patch strategy kustomize does not have: no check of reviewbot explains it
        "strategy/kustomization.yaml": "resources: [cm.yaml]\npatches:\n" + STRATEGY,
        "strategy/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    })
    result = analyze(render_tree(disk_tree([tmp_path], tmp_path)), Config(),
                     only=["kustomize-integrity"])
    got = [(f.file, f.line, f.message.split(":")[0]) for f in result.findings]
    assert got == [
        ("missing/kustomization.yaml", 1, "resources[0]"),
        ("patched/kustomization.yaml", 2, "patches[0]"),  # the patch names no object here
        ("removed/kustomization.yaml", 3, "patches[0]"),  # (its remove does not apply)
        ("strategy/kustomization.yaml", 1, "kustomize build failed"),
        ("tested/kustomization.yaml", 3, "patches[0]"),  # (its test fails)
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


@needs_kustomize
def test_render_does_not_patch_again_what_kustomize_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rendered objects are what the overlay's build made, its prefix and patches
    applied: its patches are not applied (nor judged) over them again. A patch naming the
    base's `web` was "patches Deployment web, which this build does not hold; it holds
    Deployment prod/prod-web" (an error kustomize itself, which built it, never made), and
    its target "selects no object"; without --render the tree has no finding either."""
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [deployment.yaml]\n",
        "base/deployment.yaml": BASE_DEPLOYMENT,
        "prod/kustomization.yaml": """
            namePrefix: prod-
            namespace: prod
            resources: [../base]
            patches:
              - target: {kind: Deployment, name: web}
                patch: |-
                  - op: replace
                    path: /spec/replicas
                    value: 2
              - patch: |-
                  apiVersion: apps/v1
                  kind: Deployment
                  metadata:
                    name: web
                  spec:
                    replicas: 3
            """,
    })
    for flags in ([], ["--render"]):
        main(["lint", str(tmp_path), *flags, "--rule", "kustomize-integrity", "--format",
              "json"])
        assert json.loads(capsys.readouterr().out)["findings"] == [], flags


def test_render_fixes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--fix would write the rendered text over the source file: refused, before anything
    runs, with the one error and exit code 2; the file stays as it was."""
    write(tmp_path, {"base/kustomization.yaml": "resources: [deployment.yaml]\n",
                     "base/deployment.yaml": BASE_DEPLOYMENT})
    before = (tmp_path / "base/deployment.yaml").read_bytes()
    for flag in ("--fix", "--diff"):
        assert main(["lint", str(tmp_path), "--render", flag]) == 2
        assert "run them without --render" in capsys.readouterr().err
    assert (tmp_path / "base/deployment.yaml").read_bytes() == before


@needs_kustomize
def test_render_quotes_the_source_line_at_its_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A finding in a rendered file is told at the source file's line and column and quotes
    the source's line, as without --render: `image: nginx:1.27` at its value, not the
    rendered `"image": "nginx:1.27"` two columns on."""
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [deployment.yaml]\n",
        "base/deployment.yaml": BASE_DEPLOYMENT.replace(
            "  # reviewbot: ignore[image-digest] local registry", ""),
        "prod/kustomization.yaml": "namespace: prod\nresources: [../base]\n",
    })
    said = []
    for flags in ([], ["--render"]):
        main(["lint", str(tmp_path), *flags, "--rule", "image-digest", "--color", "never"])
        said.append([line for line in capsys.readouterr().out.splitlines()
                     if "image-digest" in line or line.strip().startswith(("|", "^"))])
    assert said[0] == said[1]
    assert any("15:16" in line for line in said[1]) and any(
        "| " in line and line.rstrip().endswith("image: nginx:1.27") for line in said[1])


@pytest.mark.parametrize(("rendered", "source", "column", "expected"), [
    ('          "image": "nginx:1.27"', "          image: nginx:1.27", 20, 18),  # the value
    ('          "image": "nginx:1.27"', "          image: nginx:1.27", 11, 11),  # the key
    ('        - "name": "web"', "        - name: web", 19, 17),  # an item's first key
    ('    "requests": {"cpu": "1"}', "    requests: {cpu: 1}", 17, 15),  # a flow value
    ('    "cpu": "10m"', "    requests: {cpu: 10m, memory: 16Mi}", 12, 21),  # in a flow map
    ('      "team": "a"', "      replicas: 3", 15, 7),  # a field the build added
    ('        - "80"', "        - 80", 11, 11),  # a sequence's item
])
def test_source_column(rendered: str, source: str, column: int, expected: int) -> None:
    assert source_column(rendered, source, column) == expected


@needs_kustomize
def test_render_judges_only_what_the_roots_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --render as without: a kustomization no cluster root applies is not an error
    when kustomize cannot build it (nothing builds it: the `not-applied` info says so); what
    an applied overlay generates is applied with it (its `#generated` objects were "listed
    by no kustomization, so never applied" and "not applied by any cluster root"); two
    findings at one source line stay together, in line order (new-user trial fourteen)."""
    write(tmp_path, {
        "argocd/apps.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: web, namespace: argocd}
            spec:
              project: default
              source: {repoURL: https://github.com/acme/gitops, path: apps/prod}
              destination: {server: https://kubernetes.default.svc, namespace: prod}
            """,
        "base/kustomization.yaml": "resources: [deployment.yaml]\n",
        "base/deployment.yaml": BASE_DEPLOYMENT.replace(
            "  # reviewbot: ignore[image-digest] local registry", ""),
        "apps/prod/kustomization.yaml": """
            namespace: prod
            resources: [../../base, ../../web2]
            configMapGenerator:
              - {name: settings, literals: [level=info]}
            """,
        "web2/kustomization.yaml": "namePrefix: two-\nresources: [../base]\n",
        "broken/kustomization.yaml": "resources: [gone.yaml]\n",
    })
    for flags in ([], ["--render"]):
        main(["lint", str(tmp_path), *flags, "--format", "json"])
        out = json.loads(capsys.readouterr().out)
        got = [(f["severity"], f["rule"], f["file"], f["line"]) for f in out["findings"]]
        assert got == sorted(got, key=lambda g: (g[2], g[3])), got
        assert not [g for g in got if g[0] == "error" and g[1] == "kustomize-integrity"], flags
        assert not [g for g in got if "#generated" in g[2]], flags
        assert not [s for s in out["skipped"] if "#generated" in s["file"]], flags
        assert got.count(("warning", "image-digest", "base/deployment.yaml", 15)) == 2, flags


@needs_kustomize
def test_a_review_with_render_builds_both_sides_with_kustomize(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial fifty-three: `review --render` was taken and did nothing (the head's
    build, which kustomize refuses, reviewed as reviewbot builds it). Both sides are built by
    kustomize first, as `lint --render` builds its tree: the head's failed build is said."""
    from .helpers import GitRepo, run_cli

    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"app/kustomization.yaml": "resources: [cm.yaml]\n", "app/cm.yaml": cm})
    head = repo.commit({"app/kustomization.yaml": (
        "resources: [cm.yaml]\npatches:\n" + STRATEGY)})
    argv = ["review", "--repo", str(repo.path), "--base", base, "--head", head,
            "--platform", "none", "--format", "json"]
    plain = json.loads(run_cli(argv, capsys)[1])
    assert plain["findings"] == []  # (a patch strategy kustomize refuses: not modelled)
    code, out, _ = run_cli([*argv, "--render"], capsys)
    assert code == 1
    assert [f["message"].split(":")[0] for f in json.loads(out)["findings"]] == [
        "kustomize build failed"]
