"""What a run hands to the outputs: the findings, what was skipped or left alone on purpose,
and in review mode what the pull request changes (:class:`ReviewSummary`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from reviewbot.engine.findings import Finding, Quiet
from reviewbot.sources.tree import Skipped

if TYPE_CHECKING:  # a lint never imports the connectivity diff (nor the netpol evaluator)
    from reviewbot.netpol.diff import FlowChange


@dataclass(frozen=True)
class Links:
    """Where a review's links point (made by :func:`reviewbot.report.links.links_from_env`):
    the head commit's lines in the repository's web pages, the rules' documentation."""

    base: str  # the repository's web address, no trailing slash
    head: str  # the head commit
    platform: str = "github"  # the path shape: github or forgejo
    docs: str | None = None  # the rules' documentation page (anchors are rule ids)

    def line(self, path: str, line: int | None) -> str:
        where = "blob" if self.platform != "forgejo" else "src/commit"
        url = f"{self.base}/{where}/{self.head}/{quote(path)}"
        return f"{url}#L{line}" if line else url

    def rule(self, rule: str) -> str | None:
        return f"{self.docs}#{quote(rule)}" if self.docs else None


@dataclass(frozen=True)
class ConfigReview:
    """The configuration a review applied (the base branch's), and what the PR changes in it."""

    source: str = "the defaults"  # "`.reviewbot.yaml` of the base branch", a path, the defaults
    changes: tuple[dict[str, Any], ...] = ()  # the PR's own changes (path, op, old, new)
    error: str | None = None  # the PR's configuration does not load


@dataclass(frozen=True)
class Ignore:
    """An ignore annotation or comment as a review lists it: where, which rules, why."""

    file: str
    line: int
    rules: tuple[str, ...]
    reason: str  # "" when none is given
    object: str = ""  # the annotated object's ref ("" for a comment)


@dataclass(frozen=True)
class Unapplied:
    """Files a change touched that no cluster receives, by the folder (or file) the run
    skipped them under: the review and the diff judge nothing in them, and say so."""

    path: str  # the folder or file, as ``skipped`` names it
    reason: str  # why no cluster receives it, as ``skipped`` says it
    files: int  # how many of the changed files it holds


@dataclass(frozen=True)
class ReviewSummary:
    """What `reviewbot review` knows beyond the findings, for the summary and the JSON.

    ``new``/``existing`` count every finding of the head (before the scope hides some);
    ``base``/``head`` are commit ids (``head`` None: the work tree); ``base_ref`` is the base
    as given. ``max_chars`` caps the Markdown summary (None: the renderer's default)."""

    diff: tuple[dict[str, Any], ...] = ()  # one entry per changed object (DESIGN.md's diff)
    fixed: tuple[Finding, ...] = ()  # findings of the base the head no longer has
    connectivity: tuple[FlowChange, ...] = ()  # flows the PR opens, closes or changes
    # what the connectivity does not evaluate where the PR reaches ("not evaluated: ...")
    connectivity_notes: tuple[str, ...] = ()
    # ignore annotations and comments the pull request adds: they apply to its own findings
    ignores: tuple[Ignore, ...] = ()
    new: int = 0
    existing: int = 0
    scope: str = "new"
    base: str | None = None
    base_ref: str = ""
    head: str | None = None
    config: ConfigReview = ConfigReview()
    max_chars: int | None = None
    links: Links | None = None  # where the head's lines and the rules' docs are (None: no links)
    unapplied: tuple[Unapplied, ...] = ()  # changed files no cluster receives, by folder


@dataclass(frozen=True)
class Report:
    """Everything a reporter may show. ``review`` is set by `reviewbot review` (and the JSON
    of `reviewbot diff`); None for `lint`."""

    findings: tuple[Finding, ...]
    skipped: tuple[Skipped, ...] = ()
    quiet: tuple[Quiet, ...] = ()  # where a rule stayed quiet on purpose, and why
    review: ReviewSummary | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # file -> text, for excerpts
    # findings past MAX_PER_RULE of one rule, counted by rule (``capped``), not shown
    not_shown: dict[str, int] = field(default_factory=dict)
    # ``--quiet``: the text format shows the findings and nothing else (no counts, roots,
    # schema or skipped lines), as ruff's ``--quiet`` prints its diagnostics alone
    terse: bool = False
