"""The loader: multi-document files, Lists, Kubernetes scalars, hostile input, Helm templates."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reviewbot.load.loader import TEMPLATE_INPUT, load
from reviewbot.sources.tree import FileRecord, blob_id

from .helpers import lint_text, pairs

SECRET = "hunter2-TOPSECRET"


def _load(text: str | bytes, path: str = "m.yaml"):  # type: ignore[no-untyped-def]
    data = text.encode() if isinstance(text, str) else text
    return load(FileRecord(path, blob_id(data), data))


def test_multi_document_skips_empty_and_comment_only_documents() -> None:
    loaded = _load("a: 1\n---\n# only a comment\n---\n---\nb: 2\n")
    assert [(d.index, d.value) for d in loaded.documents] == [(0, {"a": 1}), (3, {"b": 2})]


def test_positions_are_one_based_and_point_at_scalar_values_or_keys() -> None:
    loaded = _load("spec:\n  containers:\n  - name: web\n    image: nginx:1\n")
    doc = loaded.documents[0]
    assert doc.position(("spec", "containers", 0, "image")) == (4, 12)
    assert doc.position(("spec", "containers")) == (2, 3)
    assert doc.position(("spec", "containers", 0)) == (3, 5)
    assert doc.position(("spec", "missing", "deeper")) == (1, 1)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("v: on", True), ("v: yes", True), ("v: No", False), ("v: 0755", 493),
        ("v: '0755'", "0755"), ("v: 0x1F", 31), ("v: 1e3", 1000.0), ("v: ~", None),
        ("v: 1_000", 1000), ("v: ${VAR}", "${VAR}"), ('v: "{{ .x }}"', "{{ .x }}"),
        ("v: !!str 12", "12"), ("v: !env_var HOME", "HOME"), ("v: =", "="),
    ],
)
def test_scalars_read_as_kubernetes_reads_them(text: str, value: object) -> None:
    assert _load(text).documents[0].value == {"v": value}


def test_keys_stay_text_and_merge_keys_merge() -> None:
    loaded = _load("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\ny: 4\n")
    assert loaded.documents[0].value["use"] == {"x": 1, "y": 3}
    assert "y" in loaded.documents[0].value


def test_redefined_anchor_is_valid_yaml() -> None:
    loaded = _load("a: &x 1\nb: &x 2\nc: *x\n")
    assert loaded.problems == [] and loaded.documents[0].value["c"] == 2


def test_list_items_are_expanded(tmp_path: Path) -> None:
    result = lint_text(tmp_path, """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: ConfigMap
          metadata: {name: a, namespace: x}
        - apiVersion: v1
          kind: ConfigMap
          metadata: {name: b, namespace: x}
    """)
    assert [o.ref for o in result.model.objects] == ["ConfigMap/x/a", "ConfigMap/x/b"]
    assert result.model.objects[1].position(("metadata", "name")) == (9, 20)


BILLION_LAUGHS = "a: &a [" + ",".join(['"lol"'] * 9) + "]\n" + "".join(
    f"{n}: &{n} [" + ",".join([f"*{p}"] * 9) + "]\n"
    for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)

HOSTILE = {
    "billion-laughs": (BILLION_LAUGHS, "alias bomb"),
    "deep-nesting": ("a: " + "[" * 10000 + "]" * 10000 + "\n", "nesting deeper"),
    "duplicate-key": (f"kind: Secret\npassword: {SECRET}\npassword: {SECRET}\n",
                      "duplicate mapping key"),
    "tab-indent": (f"data:\n\tpassword: {SECRET}\n", "tab"),
    "bad-escape": (f'password: "{SECRET}\\q"\n', "escape"),
    "unterminated": (f"password: '{SECRET}\n", "syntax error"),
    "undefined-alias": ("a: *nowhere\n", "undefined anchor"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_input_is_a_located_finding_fast_and_never_quoted(
    case: str, tmp_path: Path
) -> None:
    text, words = HOSTILE[case]
    start = time.perf_counter()
    result = lint_text(tmp_path, text, only=["yaml-syntax"])
    assert time.perf_counter() - start < 1.0
    [finding] = result.findings
    assert finding.rule == "yaml-syntax" and finding.line >= 1 and finding.column >= 1
    assert words in finding.message
    assert SECRET not in finding.message and "lol" not in finding.message


@pytest.mark.parametrize(("text", "fix"), [
    ("data:\n  k: a: b\n", "Quote the value that holds ': ' on this line (`key: 'a: b'`), or "
     "put the key on a line of its own, indented under its parent."),
    ("metadata:\n\tname: x\n", "Indent this line with spaces: YAML does not allow tabs in "
     "indentation."),
    ("data:\n  k: @x\n", "Quote the value that starts with this character (`@` and `` ` `` "
     "are reserved in YAML)."),
    ("metadata:\n  name: x\n labels: {}\n", "Align this line with the keys (or list items) it "
     "belongs to: its indentation is between two levels."),
    ("data: [1, 2\n", "Close the `[` list before this point, or separate its items with "
     "commas."),
    ("a: *nope\n", "Fix the YAML at the reported line and column."),  # (the rule's)
])
def test_the_usual_syntax_errors_say_what_to_change(text: str, fix: str,
                                                     tmp_path: Path) -> None:
    # new-user trial sixteen: "Fix the YAML at the reported line and column" told nothing
    result = lint_text(tmp_path, "apiVersion: v1\nkind: ConfigMap\n" + text,
                       only=["yaml-syntax"])
    [finding] = result.findings
    assert finding.fix == fix


def test_bad_encoding_and_size(tmp_path: Path) -> None:
    (tmp_path / "latin1.yaml").write_bytes(b"a: 1\nname: caf\xe9\n")
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: " + b"x" * (5 * 1024 * 1024) + b"\n")
    from .helpers import lint_dir

    result = lint_dir(tmp_path, only=["yaml-syntax"])
    got = {(Path(f.file).name, f.line): f.message for f in result.findings}
    assert "not valid UTF-8" in got[("latin1.yaml", 2)]
    assert "larger than" in got[("big.yaml", 1)]


@pytest.mark.parametrize("case", ["billion-laughs", "deep-nesting", "duplicate-key"])
def test_hostile_input_through_the_cli_exits_1_without_traceback(case: str, tmp_path: Path) -> None:
    (tmp_path / "evil.yaml").write_text(HOSTILE[case][0])
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "reviewbot.cli", "lint", str(tmp_path)],
        capture_output=True, text=True, timeout=30, cwd=tmp_path,
    )
    # a key written twice in a file applied as written is applied with the later value
    # (kubectl keeps it): a warning; the bombs are errors
    assert proc.returncode == (0 if case == "duplicate-key" else 1), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert SECRET not in proc.stdout + proc.stderr
    assert "evil.yaml" in proc.stdout
    assert time.perf_counter() - start < 10  # interpreter start-up included


def test_helm_templates_are_skipped_not_misparsed(tmp_path: Path) -> None:
    chart = tmp_path / "chart" / "templates"
    chart.mkdir(parents=True)
    (chart / "deploy.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\n"
                                       "metadata:\n  name: {{ .Release.Name }}\n")
    (tmp_path / "raw-template.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n"
        "  ports:\n  {{- range .Values.ports }}\n  - port: {{ . }}\n  {{- end }}\n"
    )
    (tmp_path / "external-secret.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n"
        "  config: |\n    password: {{ .password }}\n  url: \"{{ .url }}\"\n"
    )
    from .helpers import lint_dir

    result = lint_dir(tmp_path)
    assert pairs(result, "yaml-syntax") == []
    skipped = {Path(s.path).name: s.reason for s in result.skipped}
    assert skipped == {"deploy.yaml": "helm template", "raw-template.yaml": "helm template"}
    assert [o.ref for o in result.model.objects] == ["ConfigMap/default/t"]


@pytest.mark.parametrize("directive", [
    "<#if config.mail>\n    mail: ${config.email}\n</#if>",  # FreeMarker
    "{% if mail %}\n    mail: on\n{% endif %}",  # Jinja
])
def test_another_template_engines_input_is_skipped_not_a_syntax_error(
        tmp_path: Path, directive: str) -> None:
    # cloudogu/gitops-playground renders its *.ftl.yaml with FreeMarker before pushing the
    # output: 6 false yaml-syntax errors on the directive lines
    (tmp_path / "app.ftl.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n"
        f"{directive}\ndata: {{k: v}}\n")
    (tmp_path / "broken.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: [\n")
    from .helpers import lint_dir

    result = lint_dir(tmp_path)
    assert [(f.file, f.severity) for f in result.findings if f.rule == "yaml-syntax"] == [
        ("broken.yaml", "error")]  # a file without directives is still a syntax error
    skipped = {Path(s.path).name: s.reason for s in result.skipped}
    assert skipped == {"app.ftl.yaml": TEMPLATE_INPUT}


def test_a_scaffolder_s_template_content_is_skipped_not_judged(tmp_path: Path) -> None:
    """Azure-Samples/aks-platform-engineering (judge round AY): a Backstage software
    template's content (`repoURL: ${{ values.appRepoUrl }}.git`, `${{ parameters.name }}`)
    was judged as an Application the cluster receives (a false schema error); no controller
    fills `${{ values.x }}`, the repository the scaffolder writes receives it rendered. A
    ConfigMap holding a GitHub workflow's `${{ github.sha }}` is judged as before."""
    from reviewbot.load.loader import SCAFFOLD_INPUT

    (tmp_path / "app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: "
        "'${{ values.name }}', namespace: argocd}\nspec:\n  template: {}\n  source: "
        "{repoURL: '${{ values.appRepoUrl }}.git', path: '.'}\n")
    (tmp_path / "workflow.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: wf}\ndata:\n  ci.yaml: "
        "'run: echo ${{ github.sha }}'\n")
    from .helpers import lint_dir

    result = lint_dir(tmp_path)
    assert {Path(s.path).name: s.reason for s in result.skipped} == {"app.yaml": SCAFFOLD_INPUT}
    assert [o.ref for o in result.model.objects] == ["ConfigMap/default/wf"]


ANNOTATED_TWICE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: kafka
  namespace: posthog
  annotations:
    coroot.com/slo-latency-threshold: "10s"
    a: "1"
    a: "2"
  annotations:
    argocd.argoproj.io/sync-wave: "0"
    a: "3"
spec:
  selector: {matchLabels: {app: kafka}}
  template:
    metadata: {labels: {app: kafka}}
    spec:
      containers:
      - name: kafka
        image: redpanda:latest
"""


def test_a_duplicate_annotation_key_is_read_as_kustomize_reads_it() -> None:
    # kubectl kustomize (v5.5): the later value within one annotations, and a second
    # annotations adds the keys the first lacks
    loaded = _load(ANNOTATED_TWICE)
    doc = loaded.documents[0]
    assert doc.value["metadata"]["annotations"] == {
        "coroot.com/slo-latency-threshold": "10s", "a": "2",
        "argocd.argoproj.io/sync-wave": "0"}
    assert doc.refused
    assert [(p.line, p.kustomize_reads) for p in loaded.problems] == [(9, True)]
    assert doc.position(("spec", "template", "spec", "containers", 0, "image")) == (20, 16)
    # a second one left empty adds nothing (judge round EG: kenmoini/ocp4-gitops-config's
    # vault Service; kubectl kustomize keeps the first's keys)
    empty = _load(ANNOTATED_TWICE.replace(
        '  annotations:\n    argocd.argoproj.io/sync-wave: "0"\n    a: "3"\n', "  annotations:\n"))
    assert empty.documents[0].value["metadata"]["annotations"] == {
        "coroot.com/slo-latency-threshold": "10s", "a": "2"}
    assert [(p.line, p.kustomize_reads) for p in empty.problems] == [(9, True)]


@pytest.mark.parametrize("text", [
    "metadata:\n  labels: {a: '1'}\n  labels: {b: '2'}\n",
    "metadata:\n  name: a\n  name: b\n",
    "metadata:\n  annotations: {a: '1'}\n  annotations: 5\n",
    "spec:\n  annotations: {a: '1'}\n  annotations: {b: '2'}\n",
    "spec:\n  metadata:\n    annotations: {a: '1', a: '2'}\n",
])
def test_every_other_duplicate_key_is_refused_by_kustomize_too(text: str) -> None:
    loaded = _load(text)
    assert loaded.documents == [] and not loaded.problems[0].kustomize_reads


def test_a_duplicate_annotation_key_is_an_error_only_where_kubectl_applies_it(
        tmp_path: Path) -> None:
    # mitchross/talos-argocd-proxmox's posthog kafka.yaml: an Argo CD Application builds its
    # folder with kustomize, which merges the two annotations
    assert pairs(lint_text(tmp_path / "plain", ANNOTATED_TWICE, only=["yaml-syntax"])) == [
        ("yaml-syntax", 9)]
    (tmp_path / "built").mkdir()
    (tmp_path / "built" / "kustomization.yaml").write_text("resources: [manifest.yaml]\n")
    result = lint_text(tmp_path / "built", ANNOTATED_TWICE,
                       only=["yaml-syntax", "image-digest"])
    assert pairs(result) == [("image-digest", 20)]
    assert result.findings[0].object == "Deployment/posthog/kafka"


@pytest.mark.skipif(shutil.which("kubectl") is None and not os.environ.get("CI"),
                    reason="needs kubectl")
@pytest.mark.parametrize("annotations", [
    "  annotations:\n    a: '1'\n    a: '2'\n",
    "  annotations: {a: '1', b: '1'}\n  annotations: {b: '2', c: '2'}\n",
    "  annotations:\n    a: '1'\n    a: '2'\n  annotations:\n    a: '3'\n    w: '3'\n    w: '4'\n",
    "  annotations: {}\n  annotations: {x: '1'}\n",
])
def test_kubectl_kustomize_reads_a_duplicate_annotation_key_as_the_loader_does(
        annotations: str, tmp_path: Path) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n" + annotations
    (tmp_path / "cm.yaml").write_text(text)
    (tmp_path / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    out = subprocess.run([shutil.which("kubectl") or "kubectl", "kustomize", str(tmp_path)],
                         capture_output=True, check=True, timeout=120).stdout.decode()
    assert _load(text).documents[0].value == _load(out).documents[0].value


def test_without_roots_a_file_naming_no_kind_that_does_not_parse_is_not_certain(
        tmp_path: Path) -> None:
    # kubernetes-sigs/kueue's keps/*/kep.yaml (KEP metadata) got yaml-syntax errors: in a
    # repository without roots every file is applied as written, but nothing shows that
    # anything applies a file that names no apiVersion or kind
    from .helpers import lint_dir, write

    write(tmp_path, {
        "keps/1432/kep.yaml": "title: Admission\nauthors:\n  - @someone\n",
        "manifests/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [a\n",
        "chart/values.yaml": "image:\n  tag: @latest\n",
    })
    result = lint_dir(tmp_path, only=["yaml-syntax"])
    assert sorted((f.file, f.severity) for f in result.findings) == [
        ("chart/values.yaml", "error"), ("keps/1432/kep.yaml", "warning"),
        ("manifests/cm.yaml", "error")]
    kep = next(f for f in result.findings if f.file.startswith("keps"))
    assert kep.message.endswith(
        "Not certain: reviewbot could not see whether anything applies this file: it names no "
        "apiVersion or kind, as a manifest does (a tool's configuration or metadata is YAML "
        "too).")


def test_a_file_only_a_generator_reads_that_does_not_parse_is_not_certain(
        tmp_path: Path) -> None:
    # soulwhisper/home-ops: authentik blueprints (`provider: !KeyOf *provider`, which
    # libyaml refuses) go into a ConfigMap; authentik parses them, not kubectl (17 errors)
    from .helpers import lint_dir, write

    write(tmp_path, {
        "kustomization.yaml": """
            resources: [cm.yaml]
            configMapGenerator:
            - name: blueprints
              files: [blueprints/app.yaml, values=chart/values.yaml, pipeline.yaml,
                      services.yaml]
        """,
        # homepage's js-yaml reads `{ { VAR } }` as a mapping whose key is one (judge round
        # CZ, spiceratops/k8s-gitops: an error at 1:1 of a file kubectl never parses)
        "services.yaml": "- Infra:\n    - UniFi:\n        widget:\n"
                         "          username: { { HOMEPAGE_VAR_USER } }\n",
        # Fluent Bit reads a key written twice as two settings (oscaromeu/home-ops)
        "pipeline.yaml": "filters:\n  - name: modify\n    rename: a b\n    rename: c d\n",
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        "blueprints/app.yaml": "entries:\n  - attrs:\n      name: &p x\n"
                               "      provider: !KeyOf *p\n",
        "chart/values.yaml": "image:\n  tag: @latest\n",  # Helm parses values: an error
    })
    result = lint_dir(tmp_path, only=["yaml-syntax"])
    assert sorted((f.file, f.severity) for f in result.findings) == [
        ("blueprints/app.yaml", "warning"), ("chart/values.yaml", "error"),
        ("pipeline.yaml", "warning"), ("services.yaml", "warning")]
    # (at the key that is a collection, where the first line that starts with one was named)
    assert [(f.line, f.column) for f in result.findings if f.file == "services.yaml"] == [
        (4, 23)]
    blueprint = next(f for f in result.findings if f.file.startswith("blueprints"))
    assert "only a ConfigMap or Secret generator reads it" in blueprint.message


@pytest.mark.parametrize(("post_build", "values", "found"), [
    # substituted before Helm reads it, and a word there parses: nothing to say
    ("postBuild: {substitute: {DOMAIN: example.org}}", "targets: [vault.${DOMAIN}:8200]\n",
     []),
    # not substituted: Helm reads `${DOMAIN}` as written, which does not parse
    ("", "targets: [vault.${DOMAIN}:8200]\n", [(1, "error")]),
    # substituted, but broken whatever the value
    ("postBuild: {substitute: {DOMAIN: example.org}}", "targets: [vault.${DOMAIN}:8200\n",
     [(1, "error")]),
])
def test_a_variable_in_a_file_only_a_generator_reads_is_judged_once_flux_substitutes_it(
        tmp_path: Path, post_build: str, values: str, found: list[tuple[int, str]]) -> None:
    """Judge round DN (ricsanfre/pi-cluster): a Helm values file a ConfigMap generator
    reads (`files: [values.yaml]`), `[vault.${CLUSTER_DOMAIN}:8200]` in it: "kustomize
    parses the file before Flux's postBuild substitutes", an error; kustomize reads a
    generator's file as text, Flux substitutes the ConfigMap, and Helm parses
    `[vault.homelab.example:8200]`."""
    from .helpers import lint_dir, write

    write(tmp_path, {
        "clusters/home/sync.yaml": (
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: apps, namespace: flux-system}\n"
            f"spec: {{interval: 1h, prune: true, path: ./apps, "
            f"{post_build + ', ' if post_build else ''}"
            "sourceRef: {kind: GitRepository, name: flux-system}}\n"),
        "apps/kustomization.yaml": ("configMapGenerator:\n- name: monitoring-values\n"
                                    "  namespace: monitoring\n  files: [values.yaml]\n"),
        "apps/values.yaml": values,
    })
    result = lint_dir(tmp_path, only=["yaml-syntax"])
    got = [(f.line, f.severity) for f in result.findings if f.file == "apps/values.yaml"]
    assert got == found
    # (never "kustomize parses the file": it reads a generator's file as text)
    assert not any("kustomize parses" in f.message for f in result.findings)


def test_a_variable_that_breaks_the_yaml_of_a_flux_build_fails_the_build(tmp_path: Path) -> None:
    """New-user trial sixty-seven (D1): `hosts: [blog.${CLUSTER_DOMAIN}]` in a file a Flux
    Kustomization builds was a `placeholder` warning, "Flux's postBuild substitutes before
    anything parses the file": kustomize-controller runs kustomize first, which parses it,
    so the build fails. An error that says so (the same file no build reads stays a
    warning, what applies it must substitute its text first: the fixture
    yaml-syntax/fail/flux-variable.yaml)."""
    from .helpers import lint_dir, write

    ingress = ("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: blog, "
               "namespace: web}\nspec:\n  tls:\n    - hosts: [blog.${CLUSTER_DOMAIN}]\n")
    write(tmp_path, {
        "clusters/home/sync.yaml": (
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n"
            "metadata: {name: flux-system, namespace: flux-system}\n"
            "spec: {interval: 1h, url: https://github.com/acme/home, ref: {branch: main}}\n"
            "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: flux-system, namespace: flux-system}\n"
            "spec: {interval: 1h, prune: true, path: ./clusters/home, "
            "sourceRef: {kind: GitRepository, name: flux-system}}\n"
            "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: apps, namespace: flux-system}\n"
            "spec: {interval: 1h, prune: true, path: ./apps, "
            "sourceRef: {kind: GitRepository, name: flux-system}}\n"),
        "apps/kustomization.yaml": "resources: [ingress.yaml]\n",
        "apps/ingress.yaml": ingress,
    })
    result = lint_dir(tmp_path, only=["yaml-syntax"])
    got = {f.file: (f.line, f.severity, f.kind, f.message.partition("; ")[2], f.fix)
           for f in result.findings}
    assert got["apps/ingress.yaml"] == (
        6, "error", "", "kustomize parses the file before Flux's postBuild substitutes its "
        "variables (kustomize-controller builds first), so the build that reads it fails: "
        "quote the value that holds the variable",
        "Quote the value that holds the variable (`hosts: ['blog.${DOMAIN}']`).")
