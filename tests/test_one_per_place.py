"""What a reader cannot tell apart is shown once: one release two clusters apply alike, found
wanting in each, is one finding of both clusters (one line of text, one JSON entry, one SARIF
result, one inline comment), not the same line twice. Its identity still holds each cluster: a
pull request that takes the problem into another cluster makes it new."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reviewbot.engine.findings import Finding, clusters_said, doubted, one_per_place

from .helpers import GitRepo, lint_dir, run_cli

CONFIG = """\
clusters:
- {name: production, paths: [clusters/production]}
- {name: staging, paths: [clusters/staging]}
"""
WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:latest
"""
KUSTOMIZATION = "resources:\n%s"
BOTH = {
    ".reviewbot.yaml": CONFIG,
    "apps/web/kustomization.yaml": KUSTOMIZATION % "- web.yaml\n",
    "apps/web/web.yaml": WEB,
    "clusters/staging/kustomization.yaml": KUSTOMIZATION % "- ../../apps/web\n",
    # production labels its objects: its Deployment is another object than staging's, with
    # the same image at the same line
    "clusters/production/kustomization.yaml": KUSTOMIZATION % "- ../../apps/web\n"
    + "labels:\n- pairs: {env: production}\n",
}


def _f(message: str = "web: image nginx:latest floats", clusters: tuple[str, ...] = (),
       new: bool | None = None, worse: str = "") -> Finding:
    return Finding("image-digest", "error", "apps/web/web.yaml", 11, 16, "Deployment/shop/web",
                   message, "pin it", path="spec.template", clusters=clusters, new=new,
                   worse=worse)


def test_findings_equal_but_for_their_clusters_are_one_of_all_their_clusters() -> None:
    other = _f("web: something else", ("production",))
    merged = one_per_place([_f(clusters=("staging",)), other, _f(clusters=("production",))])
    assert [(f.message, f.clusters) for f in merged] == [
        ("web: image nginx:latest floats", ("production", "staging")),
        ("web: something else", ("production",))]
    # ... and, as reported, told apart by their clusters (new-user trial eighty-four W2: two
    # errors at one `--tensor-parallel-size`, dev's and prod's, nothing said which was which)
    assert [f.message for f in clusters_said(merged)] == [
        "web: image nginx:latest floats (clusters production, staging)",
        "web: something else (cluster production)"]
    said = clusters_said([_f("web: floats.", ("staging",)), _f(doubted(
        "error", "web: floats here.", "the chart")[1], ("production",))])
    assert [f.message for f in said] == [
        "web: floats (cluster staging).",
        "web: floats here (cluster production). Not certain: reviewbot could not see the "
        "chart."]
    assert [f.message for f in clusters_said([_f("web: a", ("staging",)),
                                              replace(_f("web: b", ("production",)),
                                                      line=12)])] == ["web: a", "web: b"]
    # a review: new when one of them is new, worse as the first that is
    (one,) = one_per_place([_f(clusters=("staging",), new=False),
                            _f(clusters=("production",), new=True, worse="warning -> error")])
    assert (one.new, one.worse, one.clusters) == (True, "warning -> error",
                                                  ("production", "staging"))
    assert one_per_place([_f(), _f()]) == [_f()]  # no clusters: the same finding once
    assert one_per_place([]) == []
    # their other places told apart by theirs alike (new-user trial thirty-six: an HPA's
    # scale-target of two clusters' builds, its other place each cluster's: said twice)
    hpa = _f("hpa", ())
    (one,) = one_per_place([
        replace(_f(clusters=("staging",)), others=(replace(hpa, clusters=("staging",)),)),
        replace(_f(clusters=("production",)), others=(replace(hpa, clusters=("production",)),))])
    assert one.clusters == ("production", "staging")
    # one of them names a place more (new-user trial forty-nine: a denied call, its egress
    # policy another place in one cluster only, printed twice alike): one, both places
    egress = replace(_f("egress", ()), line=59)
    (one,) = one_per_place([
        replace(_f(clusters=("staging",)), others=(hpa,)),
        replace(_f(clusters=("production",)), others=(hpa, egress))])
    assert (one.clusters, [o.line for o in one.others]) == (("production", "staging"), [11, 59])


def _merged_by_replacing(findings: list[Finding]) -> list[Finding]:
    """one_per_place as first written: each finding of clusters keyed by a copy without its
    clusters, newness and worsening."""
    merged: dict[Finding, Finding] = {}
    for f in findings:
        key = replace(f, clusters=(), new=None, worse="") if f.clusters else f
        first = merged.get(key)
        if first is None:
            merged[key] = f
            continue
        merged[key] = replace(
            first, clusters=tuple(sorted({*first.clusters, *f.clusters})),
            new=None if first.new is None and f.new is None else bool(first.new or f.new),
            worse=first.worse or f.worse)
    return list(merged.values())


_FINDINGS = st.builds(
    lambda message, line, clusters, new, worse, path: replace(
        _f(message, clusters, new, worse), line=line, path=path),
    st.sampled_from(["a", "b"]), st.sampled_from([11, 12]),
    st.sampled_from([(), ("production",), ("staging",), ("production", "staging")]),
    st.sampled_from([None, False, True]), st.sampled_from(["", "warning -> error"]),
    st.sampled_from(["spec.template", ""]))


@given(st.lists(_FINDINGS, max_size=12))
def test_one_per_place_keys_as_a_copy_without_clusters_would(findings: list[Finding]) -> None:
    assert one_per_place(findings) == _merged_by_replacing(findings)  # clusters, new, worse too


def test_a_release_two_clusters_apply_is_reported_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.commit(BOTH)
    by_cluster = lint_dir(repo.path, only=["image-digest"]).findings
    assert [f.clusters for f in by_cluster] == [("production",), ("staging",)]
    code, out, _ = run_cli(["lint", str(repo.path), "--rule", "image-digest", "--format",
                            "json"], capsys)
    assert code == 1
    found = [(f["rule"], f["file"], f["line"]) for f in json.loads(out)["findings"]]
    assert found == [("image-digest", "apps/web/web.yaml", 11)]
    code, out, _ = run_cli(["lint", str(repo.path), "--rule", "image-digest", "--format",
                            "sarif"], capsys)
    assert len(json.loads(out)["runs"][0]["results"]) == 1


def test_a_problem_the_pr_takes_into_another_cluster_is_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({**BOTH, "clusters/production/kustomization.yaml": "resources: []\n"})
    head = repo.commit(BOTH)
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", "json", "--rule",
                              "image-digest", "--scope", "all"], capsys)
    assert code == 1, err
    data = json.loads(out)
    assert [(f["file"], f["line"], f["new"]) for f in data["findings"]] == [
        ("apps/web/web.yaml", 11, True)]  # staging's is not new, production's is
    assert data["fixed"] == []


def test_a_problem_made_worse_in_both_clusters_is_one_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({**BOTH, "apps/web/web.yaml": WEB.replace("latest", "1.27.0")})
    head = repo.commit(BOTH)
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", "json", "--rule",
                              "image-digest"], capsys)
    assert code == 1, err
    data = json.loads(out)
    assert [(f["line"], f["new"], f["worse"]) for f in data["findings"]] == [
        (11, False, "warning -> error")]


def _unbuilt(overlay: str, cluster: str) -> Finding:
    severity, message = doubted(
        "error", "web: image nginx:latest floats", None,
        f"the build of Flux Kustomization flux-system/apps fails (apps/{overlay}/"
        "kustomization.yaml: '../../rbac/reader.yaml' does not exist)")
    return replace(_f(message, (cluster,)), severity=severity)


def test_a_build_failing_alike_in_each_cluster_is_one_finding_naming_the_first_and_the_others(
) -> None:
    merged = one_per_place([_unbuilt("ptl", "ptl"), _unbuilt("sbox", "sbox"),
                            _unbuilt("prod", "prod")])
    assert [(f.severity, f.clusters) for f in merged] == [("warning", ("prod", "ptl", "sbox"))]
    assert merged[0].message == (
        "web: image nginx:latest floats. Not applied: the build of Flux Kustomization "
        "flux-system/apps fails (apps/ptl/kustomization.yaml: '../../rbac/reader.yaml' does "
        "not exist; alike in apps/sbox/kustomization.yaml and apps/prod/kustomization.yaml), "
        "so none of this is applied until it builds.")


def test_the_same_finding_applied_in_one_cluster_is_said_once_where_it_is_applied() -> None:
    """New-user trial twenty read one line's error twice, the second a warning "Not applied"
    for the cluster whose build failed (a failure its kustomization's own finding says): the
    finding a cluster applies is the one shown. Another text at that place stays."""
    applied = _f(clusters=("prod",))
    merged = one_per_place([_unbuilt("ptl", "ptl"), applied])
    assert [(f.severity, f.clusters, "Not applied" in f.message) for f in merged] == [
        ("error", ("prod",), False)]
    other = _f("web: something else", ("prod",))
    merged = one_per_place([_unbuilt("ptl", "ptl"), other])
    assert [(f.clusters, "Not applied" in f.message) for f in merged] == [
        (("ptl",), True), (("prod",), False)]


def test_a_finding_certain_in_one_cluster_is_not_said_again_not_certain_for_another() -> None:
    """New-user trial fifty-three: one line's egress error in production, and the same
    sentence again for staging, a warning "Not certain" (its chart not seen there): what to
    do is the same, said once, the certain one. Alone, the uncertain one stays."""
    message = "web/web calls ollama:11434, but no ingress rule in ai admits it"
    sure = _f(message, ("production",))
    unsure = replace(_f(doubted("error", message, "the chart app-template")[1], ("staging",)),
                     severity="warning")
    assert one_per_place([sure, unsure]) == [sure]
    assert one_per_place([unsure]) == [unsure]


# two clusters' overlays generate the same ConfigMap (one name, one hash) naming a Service of
# another namespace that admits nobody
GENERATED = {
    ".reviewbot.yaml": CONFIG,
    "apps/ml/kustomization.yaml": KUSTOMIZATION % "- vllm.yaml\n",
    "apps/ml/vllm.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: ml}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - {name: vllm, image: 'vllm:1', ports: [{containerPort: 8000}]}
---
apiVersion: v1
kind: Service
metadata: {name: vllm, namespace: ml}
spec:
  selector: {app: vllm}
  ports: [{port: 8000}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny, namespace: ml}
spec:
  podSelector: {}
  policyTypes: [Ingress]
""",
    "apps/web/base/kustomization.yaml": KUSTOMIZATION % "- web.yaml\n",
    "apps/web/base/web.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: web:1
        envFrom: [{configMapRef: {name: web-config}}]
""",
    **{f"apps/web/overlays/{c}/kustomization.yaml": KUSTOMIZATION % "- ../../base\n"
       + "configMapGenerator:\n- name: web-config\n  namespace: web\n  literals:\n"
       + "  - LLM_URL=http://vllm.ml.svc.cluster.local:8000/v1\n"
       for c in ("production", "staging")},
    **{f"clusters/{c}/kustomization.yaml": KUSTOMIZATION
       % f"- ../../apps/ml\n- ../../apps/web/overlays/{c}\n" for c in ("production", "staging")},
}


def test_a_generated_configmap_alike_in_two_clusters_is_placed_at_each_cluster_s_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial seventy-seven D4: staging and production generate the same ConfigMap;
    production's finding (its Service removed there alone) was placed at staging's
    generator entry, untouched and still served."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(GENERATED)
    assert [(f.file, f.line, f.clusters) for f in lint_dir(
        repo.path, only=["netpol-pairing"]).findings] == [
        ("apps/web/overlays/production/kustomization.yaml", 7, ("production",)),
        ("apps/web/overlays/staging/kustomization.yaml", 7, ("staging",))]
    head = repo.commit({"clusters/production/kustomization.yaml": KUSTOMIZATION
                        % "- ../../apps/web/overlays/production\n"})
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", "json", "--rule",
                              "netpol-pairing"], capsys)
    assert code == 1, err
    assert [(f["file"], f["line"], f["message"].partition(", but ")[2])
            for f in json.loads(out)["findings"] if f["new"]] == [
        ("apps/web/overlays/production/kustomization.yaml", 7,
         "Service ml/vllm is no longer in cluster production: this change removes it")]


def test_one_egress_rule_two_clusters_build_and_each_cluster_s_caller_are_one_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial seventy-seven W1: an egress rule both clusters build (one cause, the
    missing ingress rule) and each cluster's caller were two errors for one fix: the rule's
    finding joins both clusters' callers."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(GENERATED)
    egress = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-out, namespace: web}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Egress]
  egress:
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ml}}
    ports: [{port: 8000}]
"""
    head = repo.commit({"apps/web/base/kustomization.yaml": KUSTOMIZATION
                        % "- web.yaml\n- egress.yaml\n", "apps/web/base/egress.yaml": egress})
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", "json", "--rule",
                              "netpol-pairing", "--scope", "all"], capsys)
    assert code == 1, err
    found = [f for f in json.loads(out)["findings"] if "ingress in ml" in f["message"]]
    assert [(f["file"], f["line"], f["message"]) for f in found] == [
        ("apps/web/base/egress.yaml", 8,
         "web/web: egress to every pod in ml on TCP 8000 has no matching ingress in ml")]
    assert [(a["file"], a["line"]) for a in found[0]["also"]] == [
        ("apps/ml/vllm.yaml", 24), ("apps/web/overlays/production/kustomization.yaml", 7),
        ("apps/web/overlays/staging/kustomization.yaml", 7)]
