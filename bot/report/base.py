"""The report a renderer is given: findings, skipped files, and in review mode the summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from reviewbot.engine.findings import Finding, Quiet
from reviewbot.sources.tree import Skipped, shown_path

if TYPE_CHECKING:  # a lint never imports the connectivity diff (nor the netpol evaluator)
    from reviewbot.netpol.diff import FlowChange

FORMATS = ("text", "json", "sarif", "github", "rdjson", "markdown")
MAX_PER_RULE = 1000  # findings of one rule an output shows; the rest are counted by rule


@dataclass(frozen=True)
class ConfigReview:
    """The configuration a review applied (the base branch's), and what the PR changes in it."""

    source: str = "the defaults"  # "`.reviewbot.yaml` of the base branch", a path, the defaults
    changes: tuple[dict[str, Any], ...] = ()  # the PR's own changes (path, op, old, new)
    error: str | None = None  # the PR's configuration does not load


@dataclass(frozen=True)
class ReviewSummary:
    """What `reviewbot review` knows beyond the findings, for the summary and the JSON.

    ``new``/``existing`` count every finding of the head (before the scope hides some);
    ``base``/``head`` are commit ids (``head`` None: the work tree); ``base_ref`` is the base
    as given. ``max_chars`` caps the Markdown summary (None: the renderer's default)."""

    diff: tuple[dict[str, Any], ...] = ()  # one entry per changed object (DESIGN.md's diff)
    fixed: tuple[Finding, ...] = ()  # findings of the base the head no longer has
    connectivity: tuple[FlowChange, ...] = ()  # flows the PR opens, closes or changes
    new: int = 0
    existing: int = 0
    scope: str = "new"
    base: str | None = None
    base_ref: str = ""
    head: str | None = None
    config: ConfigReview = ConfigReview()
    max_chars: int | None = None


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


def shown(report: Report) -> Report:
    """``report`` with every file name as outputs show it (``shown_path``: a name that is no
    UTF-8 in git's quoting, losslessly); the same report when every name is UTF-8."""
    review = report.review
    names = [f.file for f in (*report.findings, *(review.fixed if review else ()))]
    names += [s.path for s in report.skipped] + [q.file for q in report.quiet]
    names += [str(e.get(k)) for e in (review.diff if review else ())
              for k in ("file", "base_file") if e.get(k)]
    if all(shown_path(n) == n for n in names):
        return report
    if review is not None:
        review = replace(
            review, diff=shown_entries(review.diff),
            fixed=tuple(replace(f, file=shown_path(f.file)) for f in review.fixed))
    return replace(
        report,
        findings=tuple(replace(f, file=shown_path(f.file)) for f in report.findings),
        skipped=tuple(Skipped(shown_path(s.path), s.reason) for s in report.skipped),
        quiet=tuple(replace(q, file=shown_path(q.file)) for q in report.quiet),
        review=review,
        sources={shown_path(k): v for k, v in report.sources.items()},
    )


def shown_entries(entries: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
    """Diff entries (``DiffResult.as_json``) with their file names as outputs show them."""
    out = []
    for entry in entries:
        entry = dict(entry)
        for key in ("file", "base_file"):
            if isinstance(entry.get(key), str):
                entry[key] = shown_path(entry[key])
        out.append(entry)
    return tuple(out)


def capped(report: Report) -> Report:
    """``report`` with at most MAX_PER_RULE findings of each rule, new ones first, then in
    file and line order; the rest counted by rule in ``not_shown`` (every output says how
    many). The exit code is the command's, from every finding."""
    limit = MAX_PER_RULE
    counts = Counter(f.rule for f in report.findings)
    if all(n <= limit for n in counts.values()):
        return report
    order = sorted(range(len(report.findings)), key=lambda i: report.findings[i].new is False)
    taken: Counter[str] = Counter()
    keep: set[int] = set()
    for i in order:
        rule = report.findings[i].rule
        if taken[rule] < limit:
            taken[rule] += 1
            keep.add(i)
    left = {rule: n - limit for rule, n in sorted(counts.items()) if n > limit}
    return replace(report, findings=tuple(f for i, f in enumerate(report.findings) if i in keep),
                   not_shown={**report.not_shown, **left})


def not_shown_lines(report: Report) -> list[str]:
    """One line per rule whose findings were capped (``capped``)."""
    return [
        f"{n:,} more {rule} finding{'s' if n != 1 else ''} not shown: an output shows "
        f"the first {MAX_PER_RULE:,} of a rule"
        for rule, n in report.not_shown.items()
    ]
