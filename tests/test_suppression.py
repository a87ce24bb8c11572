"""Suppressions that name no rule are reported, never silently nothing."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_text, pairs

MALFORMED = """
    apiVersion: v1
    kind: Pod
    metadata:
      name: web
      annotations:
        reviewbot.dev/ignore: ""
    spec:
      containers:
      - name: web  # reviewbot: ignore
        image: nginx  # reviewbot: ignore[]
"""


def test_malformed_suppressions_name_no_rule(tmp_path: Path) -> None:
    result = lint_text(tmp_path, MALFORMED, only=["image-digest", "unused-suppression"])
    assert pairs(result, "unused-suppression") == [
        ("unused-suppression", 6), ("unused-suppression", 9), ("unused-suppression", 10)]
    assert all("names no rule" in f.message for f in result.findings
               if f.rule == "unused-suppression")
    assert pairs(result, "image-digest") == [("image-digest", 10)]  # nothing suppressed


def test_a_well_formed_suppression_still_works(tmp_path: Path) -> None:
    text = MALFORMED.replace("ignore[]", "ignore[image-digest] local registry")
    result = lint_text(tmp_path, text, only=["image-digest", "unused-suppression"])
    assert pairs(result, "image-digest") == []
    assert pairs(result, "unused-suppression") == [
        ("unused-suppression", 6), ("unused-suppression", 9)]


def test_a_suppression_inside_a_quoted_value_is_text(tmp_path: Path) -> None:
    text = """
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          containers:
          - name: c
            args: ["--motd=hi # reviewbot: ignore[image-digest]", '# reviewbot: ignore']
            image: nginx:latest
    """
    result = lint_text(tmp_path, text, only=["image-digest", "unused-suppression"])
    assert [(f.rule, f.line) for f in result.findings] == [("image-digest", 8)]
