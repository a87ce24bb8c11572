"""The report a renderer is given: findings, skipped files, and in review mode the diff."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reviewbot.engine.findings import Finding, Quiet
from reviewbot.sources.tree import Skipped

FORMATS = ("text", "json", "sarif", "github", "rdjson", "markdown")


@dataclass(frozen=True)
class Report:
    """Everything a reporter may show. ``review`` is set by `reviewbot review`."""

    findings: tuple[Finding, ...]
    skipped: tuple[Skipped, ...] = ()
    quiet: tuple[Quiet, ...] = ()  # where a rule stayed quiet on purpose, and why
    review: bool = False
    diff: tuple[dict[str, Any], ...] = ()
    stats: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # file -> text, for excerpts
    extra: dict[str, Any] = field(default_factory=dict)  # review summary facts (markdown)
    fixed: tuple[Finding, ...] = ()  # review: findings of the base the head no longer has
    # review: flows the PR opens/closes/changes (DESIGN.md's connectivity_diff entries)
    connectivity_diff: tuple[dict[str, str], ...] = ()
