"""The CI event file is read once a `reviewbot review` run: the refs and the pull request
come from the same read. Counted through Python's audit hook for ``open`` (every open of a
file, by ``open``, ``Path.read_bytes`` or ``os.open``), on a real run against the fake forge."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from ..helpers import GitRepo, run_cli
from .fake_forge import FakeForge, ci_env, files_from_git, write_event

_WATCHED: dict[str, int] = {}  # path -> opens seen while a test watches it


def _count_opens(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _WATCHED and args and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.fsdecode(os.fspath(args[0]))
        if path in _WATCHED:
            _WATCHED[path] += 1


sys.addaudithook(_count_opens)  # a hook stays for the process; it counts only watched paths

IMAGE = """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {{name: {name}, namespace: shop}}
    spec:
      selector: {{matchLabels: {{app: {name}}}}}
      template:
        metadata: {{labels: {{app: {name}}}}}
        spec:
          containers:
          - name: app
            image: {image}
"""


def _opens_in_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    flavor: str, argv: list[str],
) -> tuple[int, int, FakeForge]:
    """Run `reviewbot review ARGV` as CI runs it; the event file's opens and the exit code."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": IMAGE.format(name="a", image="a:1.0@sha256:" + "a" * 64)})
    head = repo.commit({"b.yaml": IMAGE.format(name="b", image="b:latest")})
    forge = FakeForge(flavor).start()
    try:
        pull = forge.add_pull("homelab", "gitops", 7, files=files_from_git(repo.path, base, head),
                              head_sha=head, base_sha=base)
        event = write_event(tmp_path / "event.json", pull)
        for name in ("FORGEJO_ACTIONS", "GITEA_ACTIONS", "FORGEJO_EVENT_PATH", "GITHUB_ACTIONS",
                     "GITHUB_EVENT_PATH", "REVIEWBOT_PR_NUMBER"):
            monkeypatch.delenv(name, raising=False)
        for name, value in ci_env(forge, pull, event).items():
            monkeypatch.setenv(name, value)
        argv = [a.replace("BASE", base).replace("HEAD", head) for a in argv]
        _WATCHED[str(event)] = 0
        try:
            code, _, err = run_cli(["review", "--repo", str(repo.path), *argv], capsys)
        finally:
            opens = _WATCHED.pop(str(event))
        assert "posted" in err and "nothing posted" not in err, err
    finally:
        forge.stop()
    return code, opens, forge


@pytest.mark.parametrize("flavor", ["github", "forgejo"])
def test_a_review_reads_the_event_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    flavor: str,
) -> None:
    code, opens, forge = _opens_in_review(tmp_path, monkeypatch, capsys, flavor,
                                          ["--rule", "image-digest"])
    assert code == 1  # b:latest is new
    assert opens == 1  # the refs and the pull request number from one read
    comments = forge.review_comments("homelab", "gitops", 7)
    assert [c["path"] for c in comments] == ["b.yaml"]  # posted to the event's pull request


def test_with_base_and_head_given_only_the_forge_needs_the_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--rule", "image-digest", "--base", "BASE", "--head", "HEAD"]
    code, opens, _ = _opens_in_review(tmp_path, monkeypatch, capsys, "github", argv)
    assert (code, opens) == (1, 1)
