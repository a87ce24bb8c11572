"""The review comment as a reviewer sees it: rendered as GitHub and Forgejo render it, at
GitHub's comment width, in headless Chromium (tests/render/browser.py says how faithful).

For each golden pull request: the first line is the verdict; nothing scrolls sideways; every
link points at the head commit and at a line that exists there; no tag and no event handler
came from repository content. A screenshot of each lands under
``build/test-output/summaries/`` for a human to look at (1,000 px wide).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .helpers import ROOT, SEEDS, GitRepo, run_cli
from .render.browser import Browser, Shown, open_browser, render_forgejo, render_github
from .render.homelab import GPU_PROBE, OPEN_WEBUI, homelab_pr

# The verdict, the summary's first line (bot/report/markdown.py: verdict)
VERDICT = re.compile(
    r"^(\d+ errors? to fix before merging|No new errors: \d+ new warnings?( and \d+ infos?)? "
    r"to look at|No new errors: \d+ new infos?|No new problems)( \(.*\))?$"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with open_browser() as opened:
        yield opened


@dataclass(frozen=True)
class Pr:
    repo: GitRepo
    base: str
    head: str


def seed_pr(tmp_path: Path, before: Path, after: Path) -> Pr:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(before, "before")
    return Pr(repo, base, repo.commit_tree(after, "after"))


SEED_PRS = {
    "seed-pr-001-coder-tp1": (ROOT / "examples", SEEDS / "step1"),
    "seed-pr-000-coder-tp2": (SEEDS / "step1", SEEDS / "step2"),
    "seed-pr-unfixed": (SEEDS / "step1", ROOT / "examples"),
}


def summary(pr: Pr, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[str, str]:
    """The summary (stdout) and the preview of what would be posted (stderr)."""
    code, out, err = run_cli(["review", "--repo", str(pr.repo.path), "--base", pr.base,
                              "--head", pr.head, "--format", "markdown", *extra], capsys)
    assert code in (0, 1), err
    return out, err


def line_links(shown: Shown, pr: Pr) -> list[tuple[str, int]]:
    """Every link, checked: a line of a file at the head commit (GitHub's
    ``/blob/<sha>/<path>#L<n>``, Forgejo's ``/src/commit/<sha>/<path>#L<n>``) or a rule's
    documentation. Returns the (path, line) pairs."""
    places = []
    for href in shown.links:
        match = re.fullmatch(r"https://[^/]+/[^/]+/[^/]+/(?:blob|src/commit)/([0-9a-f]{40})/"
                             r"([^#]+)#L(\d+)", href)
        if match is None:
            assert re.fullmatch(r"https://[^ ]+/docs/rules\.md#[a-z0-9-]+", href), href
            continue
        sha, path, line = match.group(1), match.group(2), int(match.group(3))
        assert sha == pr.head, href
        text = pr.repo.git("show", f"{pr.head}:{path}")
        assert 1 <= line <= len(text.splitlines()), href
        places.append((path, line))
    return places


def assert_reads_well(shown: Shown, pr: Pr) -> None:
    assert VERDICT.match(shown.first_line), shown.first_line
    assert shown.overflow == [], shown.overflow
    assert shown.foreign_tags == [] and shown.handlers == []
    line_links(shown, pr)
    assert shown.screenshot is not None and shown.screenshot.stat().st_size > 10_000


@pytest.mark.parametrize("name", sorted(SEED_PRS))
def test_seed_pr_summaries_read_well_on_github(
    name: str, browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    pr = seed_pr(tmp_path, *SEED_PRS[name])
    markdown, _ = summary(pr, capsys, "--platform", "none")
    shown = browser.show(render_github(markdown), f"{name}-github")
    assert_reads_well(shown, pr)


def test_forgejo_comments_read_well_and_suggestions_render_as_diffs(
    browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Forgejo has no suggestion blocks: the inline comments carry the replacement as a
    ```diff block, which Forgejo colours line by line."""
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    pr = seed_pr(tmp_path, *SEED_PRS["seed-pr-unfixed"])
    # the summary as posted on stdout, the inline comments in the preview on stderr
    summary_md, preview = summary(pr, capsys, "--platform", "forgejo", "--dry-run")
    _, _, inline = re.split(r"\n--- (\d+) inline comment\(s\) in one review ---\n", preview,
                            maxsplit=1)
    shown = browser.show(render_forgejo(summary_md), "seed-pr-unfixed-forgejo")
    assert_reads_well(shown, pr)
    # each inline comment: "path:line" then its body, up to the next "path:line" line
    bodies = re.split(r"\n(?=[\w./-]+\.ya?ml:\d+(?:-\d+)?\n)", inline.strip("\n"))
    with_diff = [b.split("\n", 1)[1] for b in bodies if "```diff" in b]
    assert with_diff, "the seed PR has fixes to suggest"
    shown = browser.show(render_forgejo("\n\n---\n\n".join(with_diff)),
                         "seed-pr-unfixed-forgejo-inline")
    assert shown.overflow == [] and shown.foreign_tags == [] and shown.handlers == []
    removed = [text for cls, text in shown.diff_lines if cls == "gd"]
    added = [text for cls, text in shown.diff_lines if cls == "gi"]
    assert removed and added
    assert all(t.startswith("-") for t in removed) and all(t.startswith("+") for t in added)


HOSTILE = "@team<img src=x onerror=alert(1)>|`x`**b**<script>alert(2)</script>"

HOMELAB_PRS = {
    # issue 30 part 1's two cases: a new caller of a destination nobody admits; a fifth
    # 1-GPU pod on a full node
    "homelab-open-webui": {"k8s/apps/chat/open-webui.yaml": OPEN_WEBUI},
    "homelab-gpu-probe": {"k8s/apps/llm-serving/gpu-probe.yaml": GPU_PROBE},
    # names, paths and values from the repository that try to be HTML, mentions, Markdown
    "homelab-hostile": {
        f"k8s/apps/chat/{HOSTILE.replace('/', '_')}.yaml": OPEN_WEBUI.replace(
            "name: open-webui\n  namespace", f"name: open-webui\n  annotations: {{x: '{HOSTILE}'}}"
            "\n  namespace").replace("v0.6.5@", f"{HOSTILE.replace(' ', '')}@"),
    },
}


@pytest.mark.parametrize("name", sorted(HOMELAB_PRS))
def test_homelab_pr_summaries_read_well_on_github(
    name: str, browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Multi-finding pull requests against the bundled homelab, hostile names included."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo, base, head = homelab_pr(tmp_path, HOMELAB_PRS[name])
    pr = Pr(repo, base, head)
    markdown, _ = summary(pr, capsys, "--platform", "none")
    assert markdown.count("\n- **`") >= 1  # findings to show
    shown = browser.show(render_github(markdown), f"{name}-github")
    assert_reads_well(shown, pr)


@pytest.mark.parametrize("platform", ["github", "forgejo"])
def test_every_link_points_at_a_line_of_the_head_commit(
    platform: str, browser: Browser, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The findings of a seed PR as the summary lists them with the CI's links (GitHub's
    /blob/ and Forgejo's /src/commit/ shapes): each link, clicked in the page, names the
    head commit and a line that exists there."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.links import links_from_env
    from reviewbot.report.markdown import finding_entry

    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    pr = seed_pr(tmp_path, *SEED_PRS["seed-pr-unfixed"])
    code, out, err = run_cli(["review", "--repo", str(pr.repo.path), "--base", pr.base,
                              "--head", pr.head, "--platform", "none", "--format", "json"],
                             capsys)
    assert code in (0, 1), err
    fields = ("rule", "severity", "file", "line", "column", "object", "message", "fix")
    findings = [Finding(**{k: f.get(k) or ("" if k != "line" and k != "column" else 0)
                           for k in fields}, new=f["new"])
                for f in json.loads(out)["findings"]]
    env = {"GITHUB_SERVER_URL": "https://code.example.org", "GITHUB_REPOSITORY": "home/lab",
           "GITHUB_ACTION_REPOSITORY": "tools/reviewbot", "GITHUB_ACTION_REF": "v0.2.0"}
    links = links_from_env(env, platform, pr.head)
    assert links is not None
    markdown = "## 1 error to fix before merging\n\n" + "\n".join(
        finding_entry(f, links) for f in findings)
    render = render_github if platform == "github" else render_forgejo
    shown = browser.show(render(markdown), f"seed-pr-unfixed-links-{platform}")
    assert_reads_well(shown, pr)
    places = line_links(shown, pr)
    assert len(places) == len(findings) >= 9  # one per finding, each checked
