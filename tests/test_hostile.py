"""Hostile input and hostile pull requests: every reproducer of the reliability and security
campaign, one test each. Nothing a PR contains is trusted, executed or printed when secret;
nothing crashes (exit 3) or hangs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reviewbot import __version__
from reviewbot.load import cache as cache_mod

from .test_diff import GitRepo, run_cli

DIGEST = "sha256:" + "a" * 64

BAD = """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: shop}
    spec:
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers:
          - {name: app, image: "web:latest"}
"""


def review_json(repo: GitRepo, base: str, head: str, capsys: pytest.CaptureFixture[str],
                *extra: str) -> tuple[int, Any, str]:
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "json", *extra], capsys)
    return code, (json.loads(out) if out.strip() else None), err


# ---------------------------------------------------------------- 1. cache poisoning


def _poisoned_pack(repo: GitRepo, path: str) -> str:
    """A pack mapping the blob of ``path`` to "no documents", as a PR could commit it."""
    blob = repo.git("hash-object", str(repo.path / path))
    entry = {"docs": [], "problems": [], "skipped": None, "pure": False, "ignore": []}
    return json.dumps({"parent": None, "entries": {blob: entry}})


def test_a_cache_inside_the_repository_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"README.md": "x\n"})
    repo.write({"web.yaml": BAD})
    folder = f".reviewbot-cache/v{__version__}-f{cache_mod.FORMAT}/packs"
    head = repo.commit({f"{folder}/x.json": _poisoned_pack(repo, "web.yaml")})
    code, _, err = review_json(repo, base, head, capsys, "--cache", str(repo.path /
                                                                          ".reviewbot-cache"))
    assert code == 2 and "--cache" in err and "outside the work tree" in err
    # lint refuses it too (inside a linted tree), git or not
    code, _, err = run_cli(["lint", str(repo.path), "--cache", str(repo.path / "c")], capsys)
    assert code == 2 and "outside the work tree" in err
    # outside the repository the same cache works, and the findings are there
    code, data, _ = review_json(repo, base, head, capsys, "--cache", str(tmp_path / "cache"))
    assert code == 1 and [f["object"] for f in data["findings"]] == ["Deployment/shop/web"]


def test_an_unsealed_or_foreign_pack_is_never_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"README.md": "x\n"})
    head = repo.commit({"web.yaml": BAD})
    store = tmp_path / "cache"
    packs = store / f"v{__version__}-f{cache_mod.FORMAT}" / "packs"
    packs.mkdir(parents=True)
    body = _poisoned_pack(repo, "web.yaml").encode()
    (packs / "plain.json").write_bytes(body)  # no seal: the most recent pack, ignored
    (packs / "copied.json").write_bytes(cache_mod.seal(body, "pack", "another-key"))
    code, data, _ = review_json(repo, base, head, capsys, "--cache", str(store))
    assert code == 1 and [f["object"] for f in data["findings"]] == ["Deployment/shop/web"]
    with pytest.raises(ValueError):
        cache_mod.unseal(cache_mod.seal(body, "pack", "k"), "result", "k")
    assert cache_mod.unseal(cache_mod.seal(body, "pack", "k"), "pack", "k") == body
