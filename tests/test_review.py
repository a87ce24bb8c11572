"""`reviewbot review`: only the findings a pull request introduces, on real git repositories."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

import reviewbot.forge.factory as forge_pkg
from reviewbot.forge.base import ForgeError, PublishResult, PullRequestRef, ReviewPayload
from reviewbot.report.markdown import md_code, md_text

from .helpers import ROOT, SEEDS, GitRepo, run_cli

DIGEST = "sha256:" + "a" * 64
OTHER = "sha256:" + "b" * 64


def deployment(name: str, image: str, replicas: int = 1, namespace: str = "shop") -> str:
    return f"""
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: "{name}"
          namespace: {namespace}
        spec:
          replicas: {replicas}
          selector: {{matchLabels: {{app: web}}}}
          template:
            metadata: {{labels: {{app: web}}}}
            spec:
              containers:
              - name: app
                image: {image}
    """


def review(repo: GitRepo, base: str, head: str, capsys: pytest.CaptureFixture[str],
           *extra: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "json", "--rule", "image-digest",
                              *extra], capsys)
    return code, json.loads(out), err


def found(data: dict[str, Any]) -> list[tuple[str, str, bool]]:
    return sorted((f["object"], f["message"].split(":")[0], f["new"]) for f in data["findings"])


def objects(data: dict[str, Any], new: bool | None = None) -> list[str]:
    return sorted(f["object"] for f in data["findings"] if new is None or f["new"] is new)


# ---------------------------------------------------------------- new vs existing


def test_existing_finding_is_not_new_and_an_introduced_one_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": deployment("old", "web:latest")})
    # Lines move (a comment block above) and the object changes elsewhere: still not new.
    head = repo.commit({
        "a.yaml": "# moved down\n# by a comment\n" + deployment("old", "web:latest", replicas=3),
        "b.yaml": deployment("fresh", "api:latest"),
    })
    code, data, _ = review(repo, base, head, capsys, "--scope", "all")
    assert objects(data, new=False) == ["Deployment/shop/old"]
    assert objects(data, new=True) == ["Deployment/shop/fresh"]
    assert code == 1  # a new error
    code, data, _ = review(repo, base, head, capsys)  # scope new: the old one is not shown
    assert objects(data) == ["Deployment/shop/fresh"]
    # A PR that only touches the replicas of the already-broken object: nothing new, exit 0.
    only_old = repo.commit({"b.yaml": None})
    code, data, _ = review(repo, head, only_old, capsys)
    assert (code, data["findings"]) == (0, [])


def test_container_moved_in_its_list_keeps_its_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    two = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: web, namespace: shop}}
        spec:
          selector: {{matchLabels: {{app: web}}}}
          template:
            metadata: {{labels: {{app: web}}}}
            spec:
              containers:
              - {{name: {first}, image: "{first}:latest"}}
              - {{name: {second}, image: "{second}@{digest}"}}
    """
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": two.format(first="app", second="side", digest=DIGEST)})
    head = repo.commit({"a.yaml": two.format(first="side", second="app", digest=DIGEST)
                        .replace('"side:latest"', f'"side@{DIGEST}"')
                        .replace(f'"app@{DIGEST}"', '"app:latest"')})
    code, data, _ = review(repo, base, head, capsys, "--scope", "all")
    # The finding moved from containers[0] to containers[1]: same container, not new.
    assert [(f["object"], f["new"]) for f in data["findings"]] == [("Deployment/shop/web", False)]
    assert code == 0


def test_untouched_object_made_wrong_by_a_change_elsewhere_is_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The seed incident backwards: llm-serving stops admitting poimen; poimen's egress
    policy (not touched by the PR) now sends traffic nobody admits."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(SEEDS / "step2")
    policy = repo.path / "k8s/apps/llm-serving/networkpolicy.yaml"
    text = policy.read_text()
    assert "kubernetes.io/metadata.name: poimen\n" in text
    policy.write_text(text.replace("kubernetes.io/metadata.name: poimen\n",
                                   "kubernetes.io/metadata.name: poimen-old\n"))
    head = repo.commit()
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "json"], capsys)
    data = json.loads(out)
    changed = {d["object"] for d in data["diff"]}
    assert changed == {"NetworkPolicy/llm-serving/llm-serving-ingress"}
    new = [f for f in data["findings"] if f["rule"] == "netpol-pairing"]
    assert new and all(f["new"] for f in new)
    # findings of objects the PR did not touch (poimen's egress policy, its caller), placed
    # where the PR changed something when the same cause has a place there
    assert {o["object"] for f in new for o in (f, *f["also"])} - changed
    assert code == 1


def test_scopes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": deployment("touched", "a:latest"),
                        "c.yaml": deployment("untouched", "c:latest")})
    head = repo.commit({"a.yaml": deployment("touched", "a:latest", replicas=2),
                        "b.yaml": deployment("added", "b:latest")})
    scopes = {}
    for scope in ("new", "changed", "all"):
        code, data, _ = review(repo, base, head, capsys, "--scope", scope)
        scopes[scope] = objects(data)
        assert code == 1  # the exit code counts new findings, whatever the scope shows
    assert scopes == {
        "new": ["Deployment/shop/added"],
        "changed": ["Deployment/shop/added", "Deployment/shop/touched"],
        "all": ["Deployment/shop/added", "Deployment/shop/touched", "Deployment/shop/untouched"],
    }


def test_config_comes_from_the_base_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({".reviewbot.yaml": "rules:\n  image-digest: {severity: error}\n",
                        "a.yaml": deployment("ok", f"web@{DIGEST}")})
    head = repo.commit({".reviewbot.yaml": "rules:\n  image-digest: {enabled: false}\n",
                        "a.yaml": deployment("ok", "web:latest")})
    code, data, _ = review(repo, base, head, capsys)
    assert objects(data, new=True) == ["Deployment/shop/ok"]
    assert code == 1
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "markdown"], capsys)
    assert "### Configuration changes in this pull request" in out
    assert "`rules.image-digest.enabled`: added `false`" in out
    assert "`rules.image-digest.severity`: removed" in out


def test_a_review_of_paths_takes_their_nearest_config_as_lint_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`review ... apps/` reads apps/.reviewbot.yaml of the base branch, the file
    `lint apps/` uses, not the root's; a nearer one only the head adds changes nothing."""
    repo = GitRepo(tmp_path / "repo")
    off = "rules:\n  image-digest: {enabled: false}\n"
    on = "rules:\n  image-digest: {severity: error}\n"
    base = repo.commit({".reviewbot.yaml": off, "apps/.reviewbot.yaml": on,
                        "apps/a.yaml": deployment("ok", f"web@{DIGEST}"),
                        "other/b.yaml": deployment("b", f"web@{DIGEST}")})
    head = repo.commit({"apps/a.yaml": deployment("ok", "web:latest"),
                        "other/b.yaml": deployment("b", "web:latest"),
                        "other/.reviewbot.yaml": on})
    monkeypatch.chdir(repo.path)
    code, data, _ = review(repo, base, head, capsys, "apps")
    assert objects(data, new=True) == ["Deployment/shop/ok"] and code == 1
    code, data, _ = review(repo, base, head, capsys)  # the whole repository: the root's
    assert objects(data, new=True) == [] and code == 0
    code, data, _ = review(repo, base, head, capsys, "other")  # the base has none there
    assert objects(data, new=True) == [] and code == 0


def test_base_and_head_from_the_ci_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": deployment("a", f"a@{DIGEST}")})
    head = repo.commit({"a.yaml": deployment("a", "a:latest")})
    repo.commit({"a.yaml": deployment("a", f"a@{DIGEST}")})  # HEAD is fixed again
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1, "base": {"sha": base},
                                                  "head": {"sha": head}}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--platform", "none",
                            "--format", "json"], capsys)
    assert code == 1
    assert [f["object"] for f in json.loads(out)["findings"]] == ["Deployment/shop/a"]
    event.write_text(json.dumps({"pull_request": {"base": {"sha": "--output=/tmp/x"},
                                                  "head": {"sha": head}}}))
    code, _, err = run_cli(["review", "--repo", str(repo.path), "--platform", "none"], capsys)
    assert code == 2 and "not a commit sha" in err


def test_no_base_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    repo.commit({"a.yaml": deployment("a", "a:latest")})
    code, _, err = run_cli(["review", "--repo", str(repo.path)], capsys)
    assert code == 2 and "--base" in err


def test_tag_moved_with_the_same_digest_is_a_diff_time_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": deployment("vllm", f"vllm/vllm-openai:v0.11.0@{DIGEST}")})
    head = repo.commit({"a.yaml": deployment("vllm", f"vllm/vllm-openai:v0.15.0@{DIGEST}")})
    code, data, _ = review(repo, base, head, capsys)
    assert [(f["object"], f["new"], f["line"]) for f in data["findings"]] == [
        ("Deployment/shop/vllm", True, 14),
    ]
    assert "v0.11.0 -> v0.15.0" in data["findings"][0]["message"]
    assert code == 1
    moved = repo.commit({"a.yaml": deployment("vllm", f"vllm/vllm-openai:v0.16.0@{OTHER}")})
    code, data, _ = review(repo, head, moved, capsys)
    assert (code, data["findings"]) == (0, [])
    # the digest dropped with the bump: an error of the change, in place of the head's
    # `unpinned` warning (new-user trials seventy-eight D6, seventy-nine D7)
    dropped = repo.commit({"a.yaml": deployment("vllm", "vllm/vllm-openai:v0.17.0")})
    code, data, _ = review(repo, moved, dropped, capsys)
    assert (code, [(f["rule"], f["severity"], f["line"], f["new"]) for f in data["findings"]]) == (
        1, [("image-digest", "error", 14, True)])
    assert data["findings"][0]["message"].endswith(
        "vllm/vllm-openai:v0.17.0: this change drops the digest the image was pinned by; the "
        "tag can be re-pointed, so the manifest no longer says what runs")
    # (a bump of a tag never pinned: the head's warning, existing, as before)
    code, data, _ = review(repo, dropped, repo.commit({"a.yaml": deployment(
        "vllm", "vllm/vllm-openai:v0.18.0")}), capsys)
    assert (code, data["findings"]) == (0, [])


def test_tag_moved_compares_the_same_clusters_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial fifty-four: an ApplicationSet builds one base through a dev and a
    prod overlay (each its own cluster), an Application applies the ApplicationSet; prod's
    `images:` tag bumped with its old digest was compared with dev's copy of the object,
    whose digest differs, and the review said nothing."""
    root = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: root, "
            "namespace: argocd}\nspec:\n  project: default\n  source: {repoURL: "
            "https://git.example.com/gitops.git, targetRevision: main, path: argocd}\n"
            "  destination: {server: https://kubernetes.default.svc, namespace: argocd}\n")
    appset = """apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: apps, namespace: argocd}
spec:
  goTemplate: true
  generators:
  - git:
      repoURL: https://git.example.com/gitops.git
      revision: main
      directories: [{path: 'apps/*/overlays/*'}]
  template:
    metadata: {name: '{{index .path.segments 1}}-{{.path.basename}}'}
    spec:
      project: default
      source: {repoURL: https://git.example.com/gitops.git, targetRevision: main,
               path: '{{.path.path}}'}
      destination: {name: '{{.path.basename}}', namespace: shop}
"""
    overlay = ("resources: [../../base]\nimages:\n- name: vllm/vllm-openai\n  newTag: %s\n"
               "  digest: %s\n")
    files = {
        "bootstrap/root.yaml": root,
        "argocd/kustomization.yaml": "resources: [appset.yaml]\n",
        "argocd/appset.yaml": appset,
        "apps/api/base/kustomization.yaml": "resources: [a.yaml]\n",
        "apps/api/base/a.yaml": deployment("vllm", f"vllm/vllm-openai:v0.11.0@{DIGEST}"),
        "apps/api/overlays/dev/kustomization.yaml": overlay % ("v0.12.0", OTHER),
        "apps/api/overlays/prod/kustomization.yaml": overlay % ("v0.11.0", DIGEST),
    }
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(files)
    head = repo.commit({**files, "apps/api/overlays/prod/kustomization.yaml":
                        overlay % ("v0.15.0", DIGEST)})
    code, data, _ = review(repo, base, head, capsys)
    assert [(f["rule"], f["file"], f["line"], f["new"]) for f in data["findings"]] == [
        ("image-digest", "apps/api/overlays/prod/kustomization.yaml", 5, True)]
    assert "v0.11.0 -> v0.15.0" in data["findings"][0]["message"] and code == 1


# ---------------------------------------------------------------- the markdown summary


def _rendered(markdown: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(markdown)


def test_untrusted_names_render_inert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": deployment("ok", f"a@{DIGEST}")})
    evil = "@team<img src=x onerror=alert(1)>|`x`**b**"
    head = repo.commit({"a.yaml": deployment("ok", f"a@{DIGEST}"),
                        "b.yaml": deployment(evil.replace('"', ""), "b:latest")})
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "markdown"], capsys)
    assert code == 1
    html = _rendered(out)
    assert "<img" not in html and "<b>b</b>" not in html and "<strong>b" not in html
    outside_code = re.sub(r"<code>.*?</code>", "", html, flags=re.S)
    assert "@team" not in outside_code  # no mention outside code (code is never a mention)
    assert "&lt;img src=x onerror=alert(1)&gt;" in html  # shown, as text
    # The entry survived the backticks and the pipe in the name: one list item, its object
    # one code span, then the message
    (entry,) = [line for line in out.splitlines() if line.startswith("- **`image-digest")]
    assert entry.count("<br>") == 2 and "**Fix:**" in entry


def test_escapes() -> None:
    assert md_text("@team <b>*x*</b> [l](http://e)") == (
        "@\u200bteam &lt;b&gt;\\*x\\*&lt;/b&gt; \\[l\\]\\(http://e\\)"
    )
    assert md_code("a|b") == "`a\\|b`"
    assert md_code("x `y` z") == "``x `y` z``"
    assert md_code("`edge") == "`` `edge ``"


def test_summary_is_capped_at_a_boundary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"keep.yaml": deployment("keep", f"k@{DIGEST}")})
    many = "\n---\n".join(
        deployment(f"workload-with-a-rather-long-name-{i:04d}", f"registry.example/img{i}:latest")
        for i in range(400)
    )
    head = repo.commit({"many.yaml": many})
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "markdown", "--rule",
                            "image-digest"], capsys)
    assert code == 1
    assert len(out) <= 65_000  # the comment as posted (GitHub refuses bodies over 65,536)
    rows = [line for line in out.splitlines() if line.startswith("- **`image-digest")]
    match = re.search(r"\*\*(\d+) findings and (\d+) changed objects left out\*\*", out)
    assert match, out[-500:]
    assert int(match.group(1)) == 400 - len(rows) > 0
    assert int(match.group(2)) == 400
    assert out.count("<details>") == out.count("</details>")
    assert out.count("```") % 2 == 0


# ---------------------------------------------------------------- publishing


class FakeForge:
    def __init__(self, output: Path | None, fail: Exception | None = None) -> None:
        self.output = output
        self.fail = fail
        self.calls: list[tuple[PullRequestRef, ReviewPayload, str]] = []

    def publish(self, pr: PullRequestRef, payload: ReviewPayload) -> PublishResult:
        written = self.output.read_text() if self.output and self.output.exists() else ""
        self.calls.append((pr, payload, written))
        if self.fail is not None:
            raise self.fail
        return PublishResult(True, len(payload.comments), 0, 0, "posted a review")


@pytest.fixture
def ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[GitRepo, str, str]:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": deployment("old", "old:latest")})
    head = repo.commit({"a.yaml": deployment("old", "old:latest"),
                        "b.yaml": deployment("new", "new:latest")})
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 5, "base": {"sha": base},
                                                  "head": {"sha": head}}}))
    for name in ("FORGEJO_ACTIONS", "GITEA_ACTIONS", "FORGEJO_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.setenv("GITHUB_REPOSITORY", "homelab/gitops")
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_TOPSECRETTOKEN123")
    return repo, base, head


def test_findings_are_written_before_the_forge_call_and_survive_its_failure(
    ci: tuple[GitRepo, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _, _ = ci
    output = tmp_path / "out.json"
    fake = FakeForge(output, ForgeError("502 Bad Gateway (token ghs_TOPSECRETTOKEN123)"))
    monkeypatch.setattr(forge_pkg, "make_forge", lambda platform, env: fake)
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--format", "json",
                              "--output", str(output), "--rule", "image-digest"], capsys)
    assert code == 1  # by the new finding, not by the forge error
    (pr, payload, written_before), = fake.calls
    assert pr.number == 5
    assert "Deployment/shop/new" in written_before  # --output was complete before the call
    assert "nothing posted: 502 Bad Gateway" in err
    assert "TOPSECRET" not in out + err
    assert [c.path for c in payload.comments] == ["b.yaml"]  # new findings only
    fake.fail = RuntimeError("boom")
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--rule", "image-digest"],
                             capsys)
    assert code == 1
    assert "Deployment/shop/new" in out and "nothing posted" in err


def test_a_published_review_has_stable_fingerprints(
    ci: tuple[GitRepo, str, str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _, _ = ci
    fake = FakeForge(None)
    monkeypatch.setattr(forge_pkg, "make_forge", lambda platform, env: fake)
    for _ in range(2):
        code, _, err = run_cli(["review", "--repo", str(repo.path), "--rule", "image-digest"],
                               capsys)
        assert code == 1 and "posted a review" in err
    first, second = (call[1] for call in fake.calls)
    assert first == second
    assert len(first.comments) == 1 and first.comments[0].line == 14
    assert first.summary_markdown.startswith("## 1 error to fix before merging")
    assert len(first.summary_markdown) < 60_000


def test_dry_run_prints_the_review_it_would_post(
    ci: tuple[GitRepo, str, str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo, _, _ = ci
    fake = FakeForge(None)
    monkeypatch.setattr(forge_pkg, "make_forge", lambda platform, env: fake)
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--rule", "image-digest",
                              "--dry-run"], capsys)
    assert code == 1 and fake.calls == []
    assert "the review that would be posted" in err
    assert "<!-- reviewbot:summary -->" in err and "Deployment/shop/new" in err
    # with --format markdown the summary goes to stdout: stderr holds the inline comments
    # under their own heading, not the review's above an empty section (new-user trial
    # seventy-six W7)
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--rule", "image-digest",
                              "--dry-run", "--format", "markdown"], capsys)
    assert out.startswith("<!-- reviewbot:summary -->")
    assert "the review that would be posted" not in err
    assert "inline comment(s) in one review ---" in err


# ---------------------------------------------------------------- golden summaries


GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize(("name", "before", "after"), [
    ("seed-pr-001-coder-tp1.md", ROOT / "examples", SEEDS / "step1"),
    ("seed-pr-000-coder-tp2.md", SEEDS / "step1", SEEDS / "step2"),
    # The seed change as first written, before the incidents' fixes: what the bot says.
    ("seed-pr-unfixed.md", SEEDS / "step1", ROOT / "examples"),
])
def test_golden_summaries_of_the_seed_prs(
    name: str, before: Path, after: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The summary comments of the seed PRs. Regenerate after a deliberate change with
    ``REVIEWBOT_UPDATE_GOLDEN=1 pytest tests/test_review.py -k golden`` and read the diff."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(before, "before")
    head = repo.commit_tree(after, "after")
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "markdown"], capsys)
    assert code in (0, 1), err
    golden = GOLDEN / name
    if os.environ.get("REVIEWBOT_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(out)
    assert golden.is_file(), f"{golden} is missing: run with REVIEWBOT_UPDATE_GOLDEN=1"
    assert out == golden.read_text()


def test_a_values_files_glob_is_diffed_and_tag_checked_like_the_rules_read_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = """
        image:
          repository: vllm/vllm-openai
          tag: {tag}@{digest}
    """
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        ".reviewbot.yaml": 'values-files: ["k8s/settings.yaml"]\n',
        "k8s/settings.yaml": settings.format(tag="v0.11.0", digest=DIGEST),
    })
    head = repo.commit({"k8s/settings.yaml": settings.format(tag="v0.15.0", digest=DIGEST)})
    code, out, _ = run_cli(["diff", base, head, "--repo", str(repo.path), "--format", "json"],
                           capsys)
    changed = json.loads(out)["diff"]
    assert [e["object"] for e in changed] == ["HelmValues/settings"]
    assert "v0.15.0" in json.dumps(changed)
    code, data, _ = review(repo, base, head, capsys)
    assert [(f["object"], f["new"], f["line"]) for f in data["findings"]] == [
        ("HelmValues/settings", True, 3),
    ]
    assert "v0.11.0 -> v0.15.0" in data["findings"][0]["message"]
    assert code == 1


# ---------------------------------------------------------------- connectivity diff


def test_seed_pr_shows_the_flow_it_closes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seed's 34-day outage, in the PR that caused it: the removed flow is in the JSON, the
    summary's first lines, the table and the Mermaid graph."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(SEEDS / "step1", "before")
    head = repo.commit_tree(ROOT / "examples", "after")
    args = ["review", "--repo", str(repo.path), "--base", base, "--head", head,
            "--platform", "none"]
    _, out, _ = run_cli([*args, "--format", "json"], capsys)
    removed = {"diff_type": "removed", "source": "poimen/poimen-memory[Deployment]",
               "destination": "llm-serving/reasoning-predictor[InferenceService]",
               "ref1": "TCP 8080", "ref2": "No Connections"}
    assert removed in json.loads(out)["connectivity_diff"]
    _, md, _ = run_cli([*args, "--format", "markdown"], capsys)
    head_lines = "\n".join(md.splitlines()[:4])  # the marker, the verdict, the counts
    assert "connectivity once the head builds: 3 closed, 12 opened flows" in head_lines
    # per workload, closed first, in words a reviewer knows
    section = md.split("### Connectivity", 1)[1]
    first = section.split("\n- ", 1)[1].split("\n", 1)[0]
    assert first.startswith("`poimen/poimen-memory`: no longer reaches "
                            "`llm-serving/embeddings-predictor` (TCP 8080), "
                            "`llm-serving/reasoning-predictor` (TCP 8080)")
    assert "- `poimen/poimen-memory` → `llm-serving/reasoning-predictor`: closed (was TCP 8080)" \
        in section
    assert "No Connections" not in md and "[External]" not in md
    assert "```mermaid" not in md  # 15 flows: a graph only up to a dozen edges
    # a small change keeps its graph: the seed PR that opens two flows
    base2 = repo.commit_tree(SEEDS / "step1", "before 2")
    head2 = repo.commit_tree(SEEDS / "step2", "after 2")
    _, md2, _ = run_cli(["review", "--repo", str(repo.path), "--base", base2, "--head", head2,
                         "--platform", "none", "--format", "markdown"], capsys)
    graph = md2.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert graph.startswith("graph LR") and graph.count("-->") + graph.count("-.->") <= 12


def test_review_without_policy_or_label_change_evaluates_no_connectivity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import reviewbot.netpol.diff as netpol_diff

    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("connectivity evaluated for a change that cannot alter it")

    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": deployment("web", f"web:1@{DIGEST}")})
    head = repo.commit({"a.yaml": deployment("web", f"web:2@{OTHER}", replicas=3)})
    monkeypatch.setattr(netpol_diff, "Network", refuse)
    code, data, _ = review(repo, base, head, capsys)
    assert data["connectivity_diff"] == []
    labelled = repo.commit({"a.yaml": deployment("web", f"web:2@{OTHER}", replicas=3)
                            .replace("app: web}}", "app: web, tier: front}}")})
    code, _, err = run_cli(["review", "--repo", str(repo.path), "--base", head, "--head",
                            labelled, "--platform", "none", "--format", "json"], capsys)
    assert code == 3 and "connectivity evaluated" in err  # a label change is evaluated


# ---------------------------------------------------------------- the engine's review


def test_the_review_is_the_engine_s_and_needs_no_arguments(tmp_path: Path) -> None:
    """``engine.review.review`` takes the two sides, the settings and a cache: no argparse,
    no output, nothing published."""
    from reviewbot.engine.review import ReviewSettings
    from reviewbot.engine.review import review as run
    from reviewbot.sources.refs import find_sides

    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": deployment("old", "web:latest")})
    head = repo.commit({
        "a.yaml": deployment("old", f"web:1.0@{DIGEST}", replicas=2),
        "b.yaml": deployment("fresh", "api:latest"),
    })
    sides = find_sides(repo.path, base, head, None)
    assert (sides.base, sides.head) == (base, head)
    result = run(sides, ReviewSettings(only=("image-digest",), scope="all"), None)
    assert [(f.object, f.new) for f in result.new] == [("Deployment/shop/fresh", True)]
    assert result.report.review is not None and result.report.review.new == 1
    assert [f.object for f in result.report.review.fixed] == ["Deployment/shop/old"]
    assert {e["object"] for e in result.report.review.diff} == {
        "Deployment/shop/old", "Deployment/shop/fresh"}
    # the scope decides what is reported, never what is new
    narrow = run(sides, ReviewSettings(only=("image-digest",), scope="new"), None)
    assert narrow.findings == result.new and narrow.new == result.new


def test_the_ignores_a_pull_request_adds_are_listed_in_its_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pull request may silence its own new finding with an ignore annotation: the review
    still applies it (as a linter applies noqa) but lists it, with its reason or the lack of
    one; ignores the base already had are not listed."""
    repo = GitRepo(tmp_path / "repo")
    old = deployment("old", "web:latest").replace(
        "namespace: shop\n", "namespace: shop\n          annotations:\n"
        "            reviewbot.dev/ignore: image-digest\n"
        "            reviewbot.dev/ignore-reason: built here\n")
    base = repo.commit({"a.yaml": old})
    fresh = deployment("fresh", "api:latest").replace(
        "namespace: shop\n", "namespace: shop\n          annotations:\n"
        "            reviewbot.dev/ignore: image-digest\n")
    head = repo.commit({"a.yaml": "# moved\n" + old, "b.yaml": fresh})
    code, data, _ = review(repo, base, head, capsys)
    assert (code, data["findings"]) == (0, [])
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "markdown",
                              "--rule", "image-digest"], capsys)
    err = out + err
    assert "### Ignores added by this pull request (1)\n" in err
    assert ("- `image-digest` on `Deployment/shop/fresh` at `b.yaml:7`: **no reason given**"
            in err)
    assert "Deployment/shop/old" not in err
    assert "the ignores it adds are listed above" in err
    # the text review lists them too (new-user trial seventy-one W9: "no new findings" alone)
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--rule", "image-digest"], capsys)
    assert ("ignores added by this pull request (1), each silencing its rules' findings, "
            "which are not shown:\n  b.yaml:7: image-digest on Deployment/shop/fresh: no "
            "reason given\n") in out


# ---------------------------------------------------------------- files no cluster receives


FLUX_ROOT = {
    "clusters/prod/flux-system/gotk-sync.yaml": """
        apiVersion: source.toolkit.fluxcd.io/v1
        kind: GitRepository
        metadata: {name: flux-system, namespace: flux-system}
        spec: {url: https://github.com/acme/fleet, ref: {branch: main}}
        ---
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: flux-system, namespace: flux-system}
        spec:
          path: ./clusters/prod
          sourceRef: {kind: GitRepository, name: flux-system}
    """,
    "clusters/prod/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
    "clusters/prod/apps.yaml": """
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: apps, namespace: flux-system}
        spec:
          path: ./apps
          sourceRef: {kind: GitRepository, name: flux-system}
    """,
    "apps/kustomization.yaml": "resources: [web.yaml]\n",
    "apps/web.yaml": deployment("web", f"web:1@{DIGEST}"),
}


def test_a_pr_whose_changes_no_cluster_receives_says_so_and_exits_as_its_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # trial 4: the PR changes only kustomize-apps/, which no root applies: `lint` of that
    # folder finds the break, the review judges nothing there; silence must not read as approval
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({**FLUX_ROOT, "kustomize-apps/kustomization.yaml": "resources: [a.yaml]\n",
                        "kustomize-apps/a.yaml": deployment("a", f"a:1@{DIGEST}"),
                        "kustomize-apps/patch.yaml": deployment("a", f"a:1@{DIGEST}")})
    head = repo.commit({"kustomize-apps/a.yaml": deployment("a", "a:latest"),
                        "kustomize-apps/patch.yaml": None})
    args = ["review", "--repo", str(repo.path), "--base", base, "--head", head, "--platform",
            "none", "--rule", "image-digest"]
    code, out, _ = run_cli(args, capsys)
    assert code == 0  # the exit code counts findings, as DESIGN.md's exit codes say
    assert out.startswith("no new findings; looked in")
    assert out.endswith(
        "no changes\n\n"
        "2 changed files reach no cluster, so this review judges nothing in them:\n"
        "  kustomize-apps (2 files): not applied by any cluster root\n"
        "  to lint them as written: reviewbot lint kustomize-apps\n")
    cached = [*args, "--cache", str(tmp_path / "cache")]
    assert run_cli(cached, capsys)[1] == out == run_cli(cached, capsys)[1]  # read back alike
    code, out, err = run_cli([*args, "--format", "markdown"], capsys)
    assert code == 0
    # the summary is on stdout and no comment goes inline: stderr shows no empty preview
    # heading (new-user trial twenty-three)
    assert "would be posted" not in err
    assert ("## No new problems\n\n0 new findings.\n\n**2 changed files reach no cluster, so "
            "this review judges nothing in them:** `kustomize-apps` (2 files: not applied by "
            "any cluster root). To lint them as written: `reviewbot lint kustomize-apps`.\n"
            ) in out
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert code == 0
    assert out == ("no changes\n\n2 changed files reach no cluster, so this diff shows nothing "
                   "in them:\n  kustomize-apps (2 files): not applied by any cluster root\n"
                   "  to lint them as written: reviewbot lint kustomize-apps\n")
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "markdown", base,
                            head], capsys)
    assert out.endswith("No object changed.\n\n**2 changed files reach no cluster, so this diff "
                        "shows nothing in them:** `kustomize-apps` (2 files: not applied by any "
                        "cluster root). To lint them as written: `reviewbot lint "
                        "kustomize-apps`.\n")


def test_changed_files_no_cluster_receives_are_named_by_at_most_three_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(FLUX_ROOT)
    # six files in five folders no root reaches, and one applied file changed: the applied
    # change is diffed, the first three folders named, the rest counted
    head = repo.commit({**{f"old-{n}/d.yaml": deployment(n, f"{n}:1@{DIGEST}")
                           for n in ("a", "b", "c", "d", "e")},
                        "old-e/e.yaml": deployment("e2", f"e:1@{DIGEST}"),
                        "apps/web.yaml": deployment("web", f"web:2@{OTHER}")})
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--rule", "image-digest"], capsys)
    assert code == 0, out
    assert "~ Deployment/shop/web  modified" in out
    assert out.endswith(
        "6 changed files reach no cluster, so this review judges nothing in them:\n"
        "  old-a (1 file): not applied by any cluster root\n"
        "  old-b (1 file): not applied by any cluster root\n"
        "  old-c (1 file): not applied by any cluster root\n"
        "  and 2 more folders (3 files), listed under skipped\n"
        "  to lint them as written: reviewbot lint old-a old-b old-c\n")


def test_a_file_the_pr_stops_applying_is_a_change_not_a_file_no_cluster_receives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the PR unlists apps/web.yaml and changes it: its Deployment leaves the cluster (the
    # diff says so), which is not "no cluster receives it" on both sides
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(FLUX_ROOT)
    head = repo.commit({"apps/kustomization.yaml": "resources: []\n",
                        "apps/web.yaml": deployment("web", f"web:2@{DIGEST}")})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert "- Deployment/shop/web  removed" in out
    assert "reach no cluster" not in out and "reaches no cluster" not in out


def test_the_review_s_count_line_does_not_contradict_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # trial 4: stdout "no findings" beside the summary's "16 findings already on the base branch"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": deployment("old", "web:latest")})
    same = repo.commit({"a.yaml": deployment("old", "web:latest", replicas=2)})
    args = ["review", "--repo", str(repo.path), "--platform", "none", "--rule", "image-digest"]
    _, out, _ = run_cli([*args, "--base", base, "--head", same], capsys)
    assert out.splitlines()[0] == ("no new findings; 1 finding already on the base branch (not "
                                   "shown: scope new); looked in 1 object from 1 file")
    _, out, _ = run_cli([*args, "--base", base, "--head", same, "--scope", "all"], capsys)
    assert "1 error, none of them new; 1 finding already on the base branch (shown above)" in out
    worse = repo.commit({"b.yaml": deployment("new", "api:latest")})
    _, out, _ = run_cli([*args, "--base", base, "--head", worse], capsys)
    # (the added workload's flows: opened, as the summary counts them)
    assert ("1 error, all new; 1 finding already on the base branch (not shown: scope new); "
            "connectivity: 4 opened flows; looked in 2 objects from 2 files") in out
    _, out, _ = run_cli([*args, "--base", base, "--head", worse, "--scope", "all"], capsys)
    assert "2 errors, 1 of them new; 1 finding already on the base branch (shown above)" in out
    # trial 8: `--scope changed` shows the existing findings on what the pull request
    # changes only, and said "(shown above)" of all of them
    scaled = repo.commit({"a.yaml": deployment("old", "web:latest", replicas=3),
                          "b.yaml": deployment("new", "api:latest")})
    _, out, _ = run_cli([*args, "--base", worse, "--head", scaled, "--scope", "changed"],
                        capsys)
    assert ("1 error, none of them new; 2 findings already on the base branch (1 of them shown "
            "above, on what this pull request changes; the rest not shown: scope changed)"
            ) in out
    # trial 7: a finding made worse was counted "all new" beside the summary's "0 new
    # findings · 1 made worse"
    pinned = repo.commit({"a.yaml": deployment("old", "web:1.0"), "b.yaml": None})
    moved = repo.commit({"a.yaml": deployment("old", "web:latest")})
    _, out, _ = run_cli([*args, "--base", pinned, "--head", moved], capsys)
    assert "\n1 error, none of them new, 1 made worse; looked in 1 object" in out
    # the text counts what the pull request fixes as the summary does ("1 fixed")
    digested = repo.commit({"a.yaml": deployment("old", f"web:1.0@{DIGEST}")})
    _, out, _ = run_cli([*args, "--base", moved, "--head", digested], capsys)
    assert out.startswith("no new findings; 1 fixed; looked in 1 object")


def test_a_file_the_change_unlists_is_reported_where_its_entry_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a seventh new-user trial removed `- worker.yaml` from a kustomization: the warning sat
    # on apps/worker.yaml:1, a file the pull request does not touch (no inline comment can
    # sit there); it is placed on the line that now stands where the entry was, as
    # change-safety places what the removal deletes
    repo = GitRepo(tmp_path / "repo")
    listed = ("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
              "resources:\n  - web.yaml\n  - worker.yaml\n  - cache.yaml\n")
    files: dict[str, str | None] = {
        f"apps/{n}.yaml": f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {n}}}\n"
        for n in ("web", "worker", "cache", "old")}
    base = repo.commit({"apps/kustomization.yaml": listed, **files})
    head = repo.commit({"apps/kustomization.yaml": listed.replace("  - worker.yaml\n", "")})
    _, data, _ = review(repo, base, head, capsys, "--rule", "kustomize-integrity", "--scope",
                        "all")
    unlisted = [(f["file"], f["line"], f["column"], f["message"].split(" is ")[0], f["new"])
                for f in data["findings"] if f["rule"] == "kustomize-integrity"]
    assert unlisted == [
        # old.yaml was listed by no kustomization before the change: it stays on its file
        ("apps/kustomization.yaml", 5, 3, "worker.yaml", True),  # `  - cache.yaml`
        ("apps/old.yaml", 1, 1, "old.yaml", False),
    ]
    # the last entry removed: the kustomization's last line, `  - web.yaml`
    last = repo.commit({"apps/kustomization.yaml": listed.replace("  - worker.yaml\n", "")
                        .replace("  - cache.yaml\n", "")})
    _, data, _ = review(repo, head, last, capsys, "--rule", "kustomize-integrity")
    assert [(f["file"], f["line"], f["message"].split(" is ")[0]) for f in data["findings"]
            if f["new"]] == [("apps/kustomization.yaml", 4, "cache.yaml")]


def test_one_problem_at_one_line_is_one_inline_comment_naming_the_others() -> None:
    """New-user trial eleven: one bumped `images:` entry moved the tag of three workloads
    without their digest: three inline comments alike at one line. One comment stands for
    them, naming the others; its id is the group's (it changes when the group does); a
    finding with another fix is said apart, in the rule's one comment at that line."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.review import inline_comments

    message = ("{}, container vllm: the tag changed v0.6.3 -> v0.6.4 but the digest stayed "
               "sha256:3c1f...: the digest wins at pull time")
    fix = "Replace the digest with the one of vllm/vllm-openai:v0.6.4, or revert the tag."

    def finding(name: str, fix: str = fix) -> Finding:
        return Finding("image-digest", "error", "overlay/kustomization.yaml", 11, 13,
                       f"Deployment/llm/{name}", message.format(name), fix, new=True,
                       kind="tag-moved", path="spec.template.spec.containers[0].image")

    alike = [finding("model-warmup"), finding("vllm-dp"), finding("vllm-main")]
    (comment,) = inline_comments(alike)
    assert (comment.path, comment.line) == ("overlay/kustomization.yaml", 11)
    assert "2 more at this line with this fix, alike: vllm-dp, vllm-main." in comment.body
    assert comment.body.index("alike:") < comment.body.index("<sub>")
    assert comment.fingerprint != alike[0].fingerprint
    assert inline_comments(alike[:2])[0].fingerprint != comment.fingerprint
    # one with another fix at that line: the rule's one comment there holds both, apart
    # (new-user trial twenty-four: six comments stacked on one line)
    (both,) = inline_comments([*alike, finding("other", "Another fix.")])
    assert both.body.startswith("4 findings of `image-digest` at this line (4 errors):\n\n")
    assert both.body.split("\n\n---\n\n") == [
        both.body.split("\n\n", 1)[0] + "\n\n" + comment.body,
        inline_comments([finding("other", "Another fix.")])[0].body]
    assert both.fingerprint != comment.fingerprint


def test_findings_of_one_rule_offering_one_suggestion_at_one_line_are_one_comment() -> None:
    """New-user trial fifty: each cluster's gpu-rollout finding of one base Deployment (an
    error in staging, a warning in production), two comments at one line each offering the
    same suggestion. One comment, the error first, the suggestion once."""
    from reviewbot.engine.findings import Finding, Suggestion
    from reviewbot.report.review import inline_comments

    change = Suggestion("apps/base/vllm.yaml", 21, 24,
                        ("    type: RollingUpdate", "    rollingUpdate:", "      maxSurge: 1",
                         "      maxUnavailable: 0"), ("    type: Recreate",))

    def finding(severity: str, message: str) -> Finding:
        return Finding("gpu-rollout", severity, "apps/base/vllm.yaml", 23, 17,
                       "Deployment/llm-serving/vllm", message, "Set spec.strategy.type: "
                       "Recreate.", new=True, kind="surge", suggestion=change,
                       path="spec.strategy.rollingUpdate.maxSurge")

    (comment,) = inline_comments([finding("warning", "prod: the surge fits today only."),
                                  finding("error", "staging: the surge pod waits forever.")])
    assert comment.body.startswith("2 findings of `gpu-rollout` at this line (1 error, "
                                   "1 warning):\n\n**error**")
    assert comment.body.count("```suggestion") == 1
    assert (comment.start_line, comment.line) == (21, 24)
    assert comment.plain is not None and "type: Recreate\n```" not in comment.plain[1]


def test_one_suggestion_of_two_builds_is_offered_once_and_changes_elsewhere_are_one_comment(
) -> None:
    """New-user trial twenty-six: a base's startupProbe two overlays build gave two comments
    with one suggestion at one line; an overlay's commonLabels gave six comments placed at
    its line. The first is one comment offering the suggestion once, naming the other
    object; the findings of one rule placed at one change are one comment there."""
    from reviewbot.engine.findings import Finding, Suggestion
    from reviewbot.report.review import inline_comments

    fix = Suggestion("base/llm.yaml", 53, 53, ("  failureThreshold: 30",),
                     ("  failureThreshold: 63",))

    def probe(ns: str) -> Finding:
        return replace(Finding(
            "probe-headroom", "error", "base/llm.yaml", 53, 21, f"Deployment/{ns}/llm",
            f"{ns}/llm: the startup probe allows 300s", "Raise failureThreshold to 63.",
            new=True, kind="startup", path="spec.template.spec.containers[0].startupProbe"),
            suggestion=fix)

    (comment,) = inline_comments([probe("llm-dev"), probe("llm-prod")])
    assert comment.body.count("```suggestion") == 1 and (comment.line, comment.start_line) == (
        53, None)
    assert "1 more at this line with this fix, alike: llm-prod/llm." in comment.body

    def moved(name: str, severity: str) -> Finding:
        return replace(Finding("netpol-pairing", severity, "base/np.yaml", 7, 3,
                               f"NetworkPolicy/db/{name}", f"{name} selects nothing",
                               f"Fix {name}.", new=True), anchor=("overlays/prod/k.yaml", 4))

    (together,) = inline_comments([moved("a", "warning"), moved("b", "error")])
    assert (together.path, together.line, together.elsewhere) == (
        "overlays/prod/k.yaml", 4, None)
    assert together.body.startswith(
        "2 findings of `netpol-pairing` at this line (1 error, 1 warning):\n\nAbout "
        "`NetworkPolicy/db/b` at `base/np.yaml` line 7, which this change affects:")


def test_the_same_cause_at_this_finding_s_own_line_is_named_by_its_objects() -> None:
    """New-user trial twelve: one base egress policy built by two overlays: "Same cause at
    `base/np.yaml:21` ..., `base/np.yaml:21`", the finding's own line again. The others at
    its place are named by their objects; those elsewhere by their places."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.markdown import also_at

    def finding(obj: str, file: str = "base/np.yaml", line: int = 21) -> Finding:
        return Finding("netpol-pairing", "error", file, line, 7, obj, "m", "f")

    here = finding("NetworkPolicy/qa/egress")
    there = finding("Deployment/shop/web", "shop/web.yaml", 9)
    f = replace(finding("NetworkPolicy/prod/egress"), others=(here, there))
    assert also_at(f) == ("Same cause at `shop/web.yaml:9` (`Deployment/shop/web`); at this "
                          "line, also for `NetworkPolicy/qa/egress`")
    assert also_at(replace(f, others=(here,))) == (
        "Same cause at this line for `NetworkPolicy/qa/egress`")
    # the inline comment at the change that caused it (new-user trial forty-two: prod's
    # replicas patch) is not at the finding's own line: that line is named
    moved = replace(f, others=(here,), anchor=("prod/replicas.yaml", 5))
    assert also_at(moved, inline=True) == (
        "Same cause at `base/np.yaml:21` (`NetworkPolicy/prod/egress`, "
        "`NetworkPolicy/qa/egress`)")
    assert also_at(moved) == "Same cause at this line for `NetworkPolicy/qa/egress`"


def test_an_internal_error_that_keeps_the_review_from_being_shown_fails_the_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-one: the summary failed to render (a bug), `--platform none`
    said "nothing posted: internal error in publishing" and exited 0: CI stayed green with
    nothing shown. A bug there exits 3 (internal error) unless the findings already fail."""
    import reviewbot.report.render as rendering

    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    real = rendering.render

    def broken(report: Any, fmt: str, *args: Any, **kwargs: Any) -> str:
        if fmt == "markdown":
            raise KeyError("a bug")
        return real(report, fmt, *args, **kwargs)

    monkeypatch.setattr(rendering, "render", broken)
    repo = GitRepo(tmp_path / "repo")
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\ndata: {a: '%s'}\n"
    base = repo.commit({"cm.yaml": cm % "1"})
    head = repo.commit({"cm.yaml": cm % "2"})
    code, _, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none"], capsys)
    assert code == 3
    assert "nothing posted: internal error in publishing (KeyError)" in err
