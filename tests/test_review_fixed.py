"""What a pull request fixes: the base's findings the head no longer has, in the summary
(see the golden seed summaries), in JSON (``fixed``) and in SARIF (``baselineState: absent``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import SEEDS, GitRepo, run_cli


def _review(tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str,
            monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(SEEDS / "step1", "001: coder on one V100")
    head = repo.commit_tree(SEEDS / "step2", "000: coder at TP=2, the reviewed state")
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", fmt], capsys)
    assert code in (0, 1), err
    return out


def test_json_lists_the_findings_the_pr_fixes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = json.loads(_review(tmp_path, capsys, "json", monkeypatch))
    fixed = {(f["rule"], f["file"], f["line"]) for f in data["fixed"]}
    # step1's five findings (tests/fixtures/seed-repo/EXPECTED.md), where they were on the base
    assert fixed == {
        ("netpol-pairing", "k8s/apps/poimen/poimen-memory.yaml", 39),
        ("image-digest", "k8s/apps/poimen/poimen-memory.yaml", 30),
        ("control-plane-resources", "k8s/bootstrap/phase3-forgejo/forgejo-values.yaml", 87),
        ("kustomize-integrity", "k8s/apps/llm-serving/kustomization.yaml", 16),
        ("kustomize-integrity", "k8s/apps/llm-serving/models-pvc.yaml", 4),
    }
    assert all(set(f) == set(data["findings"][0]) for f in data["fixed"])
    assert all(f["new"] is False for f in data["fixed"])
    assert not {(f["rule"], f["object"]) for f in data["findings"]} & {
        (f["rule"], f["object"]) for f in data["fixed"]}


def test_sarif_marks_fixed_findings_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    log = json.loads(_review(tmp_path, capsys, "sarif", monkeypatch))
    results = log["runs"][0]["results"]
    absent = [r for r in results if r["baselineState"] == "absent"]
    assert len(absent) == 5
    assert {r["ruleId"] for r in absent} == {
        "netpol-pairing", "image-digest", "control-plane-resources", "kustomize-integrity"}
    assert {r["baselineState"] for r in results} <= {"new", "unchanged", "absent"}


def test_a_finding_whose_object_is_no_longer_applied_is_not_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # two apps with a floating tag each: the pull request pins one and stops applying the
    # other (its file stays): only the pinned one is fixed; the other went with its object
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    deploy = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: NAME, namespace: shop}
        spec:
          selector: {matchLabels: {app: NAME}}
          template:
            metadata: {labels: {app: NAME}}
            spec: {containers: [{name: app, image: "IMAGE"}]}
    """
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "clusters/apps.yaml": """
            apiVersion: kustomize.toolkit.fluxcd.io/v1
            kind: Kustomization
            metadata: {name: apps, namespace: flux-system}
            spec:
              sourceRef: {kind: GitRepository, name: flux-system}
              path: ./apps
              prune: true
        """,
        "apps/kustomization.yaml": "resources: [web.yaml, old.yaml]\n",
        "apps/web.yaml": deploy.replace("NAME", "web").replace("IMAGE", "web:latest"),
        "apps/old.yaml": deploy.replace("NAME", "old").replace("IMAGE", "old:latest"),
    })
    head = repo.commit({
        "apps/kustomization.yaml": "resources: [web.yaml]\n",
        "apps/web.yaml": deploy.replace("NAME", "web").replace(
            "IMAGE", "web:1.0@sha256:" + "a" * 64),
    })
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", "json"], capsys)
    assert code in (0, 1), err
    fixed = [(f["rule"], f["object"]) for f in json.loads(out)["fixed"]]
    assert fixed == [("image-digest", "Deployment/shop/web")]


SYNC = """
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: %s, namespace: flux-system}
spec: {interval: 10m, path: %s, prune: true,
       sourceRef: {kind: GitRepository, name: flux-system}}
"""
WEB = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: ghcr.io/acme/web:latest
        imagePullPolcy: IfNotPresent
"""


def _two_clusters(repo: GitRepo) -> str:
    """prod and staging build base/ through their overlays (prod patches replicas);
    staging's overlay lists a file that does not exist."""
    files = {"base/kustomization.yaml": "resources: [web.yaml]\n", "base/web.yaml": WEB,
             "overlays/prod/kustomization.yaml": "resources: [../../base]\npatches:\n- patch: "
             "'{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: "
             "{replicas: 3}}'\n",
             "overlays/staging/kustomization.yaml": "resources: [../../base, missing.yaml]\n"}
    for env in ("prod", "staging"):
        files[f"clusters/{env}/flux-system/gotk-sync.yaml"] = SYNC % (
            "flux-system", f"./clusters/{env}")
        files[f"clusters/{env}/app.yaml"] = SYNC % ("app", f"./overlays/{env}")
    return repo.commit(files)


def test_a_finding_one_cluster_no_longer_applies_and_another_still_finds_is_not_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trials seventy-five D7 and seventy-seven D3: production's Kustomization of
    the app stuck (or gone) while staging's still applies it; the image's finding, found in
    both clusters before and in staging now, was "Fixed by this pull request"."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = _two_clusters(repo)
    head = repo.commit({"clusters/prod/app.yaml": None})  # prod applies the app no more
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", "json"], capsys)
    assert code in (0, 1), err
    assert [(f["rule"], f["object"]) for f in json.loads(out)["fixed"]] == []


def test_a_finding_an_ignore_silences_is_not_fixed_and_an_error_elsewhere_not_worse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new-user trial: the pull request fixes staging's missing entry and silences the
    :latest image with an ignore comment. The image was listed (twice) as "Fixed by this
    pull request"; the typo, an error in prod on the base, was "worse: warning -> error"
    because staging's build, failing on the base, now makes it too."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = _two_clusters(repo)
    head = repo.commit({
        "overlays/staging/kustomization.yaml": "resources: [../../base]\n",
        "base/web.yaml": WEB.replace("        image: ghcr.io", "        # reviewbot: ignore["
                                     "image-digest] CI pins it\n        image: ghcr.io")})
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", "json", "--scope",
                              "all"], capsys)
    assert code in (0, 1), err
    data = json.loads(out)
    assert [(f["rule"], f["file"]) for f in data["fixed"]] == [
        ("kustomize-integrity", "overlays/staging/kustomization.yaml")]
    typo = [f for f in data["findings"] if f["rule"] == "schema"]
    assert [(f["severity"], f["new"], f.get("worse")) for f in typo] == [("error", False, None)]


def test_the_summary_counts_each_fixed_finding_as_the_count_line_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial eleven: one egress rule's findings for several destinations, fixed
    by one ingress rule, were "5 fixed" on the count line and "Fixed by this pull request
    (1)": the entries read alike (rule, object, place). The heading counts each, as the count
    line does; one entry says how many it stands for."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    deploy = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: llm}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}, part-of: llm}}}}
    spec:
      containers: [{{name: c, image: "vllm:1@sha256:{digest}", ports: [{{containerPort: 8000}}]}}]
"""
    files = {
        "llm/a.yaml": deploy.format(name="a", digest="a" * 64),
        "llm/b.yaml": deploy.format(name="b", digest="b" * 64),
        "llm/deny.yaml": "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
                         "metadata: {name: deny, namespace: llm}\n"
                         "spec: {podSelector: {}, policyTypes: [Ingress]}\n",
        "mon/prom.yaml": deploy.format(name="prom", digest="c" * 64).replace(
            "namespace: llm", "namespace: mon"),
        "mon/egress.yaml": """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: prom-egress, namespace: mon}
spec:
  podSelector: {matchLabels: {app: prom}}
  policyTypes: [Egress]
  egress:
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: llm}}
      podSelector: {matchLabels: {part-of: llm}}
    ports: [{port: 8000}]
""",
    }
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(files)
    head = repo.commit({**files, "llm/allow.yaml": """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: from-mon, namespace: llm}
spec:
  podSelector: {}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: mon}}}]
    ports: [{port: 8000}]
"""})
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                              head, "--platform", "none", "--format", "markdown",
                              "--rule", "netpol-pairing"], capsys)
    assert code in (0, 1), err
    assert "2 fixed" in out
    section = out.split("### Fixed by this pull request (2)\n", 1)[1].split("###", 1)[0]
    assert [line for line in section.splitlines() if line.startswith("- ")] == [
        "- `netpol-pairing[egress-unmatched]` · `NetworkPolicy/mon/prom-egress`, was at "
        "`mon/egress.yaml:8`; same cause at `llm/deny.yaml:4` (`NetworkPolicy/llm/deny`) "
        "(2 findings)"]
