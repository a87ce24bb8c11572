"""What every output shares: file names as outputs show them, and the cap on
findings per rule. The report itself (:class:`~reviewbot.engine.outcome.Report`) is the
engine's outcome."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from reviewbot.engine.outcome import Report
from reviewbot.sources.tree import Skipped, shown_path

MAX_PER_RULE = 1000  # findings of one rule an output shows; the rest are counted by rule


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
    order = sorted(range(len(report.findings)),
                   key=lambda i: not (report.findings[i].new or report.findings[i].worse))
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


VALUES_PREFIX = "HelmValues/"  # reviewbot's objects for the values a Helm chart is given


def object_words(ref: str) -> tuple[str, str]:
    """An object as a reader knows it, as (words before the name, the name): ``Kind/ns/name``
    is ("", ref); the values a Helm chart is given are ("Helm values", "ns/name")."""
    if ref.startswith(VALUES_PREFIX):
        return "Helm values", ref[len(VALUES_PREFIX):]
    return "", ref



KUSTOMIZE_API = "kustomize.config.k8s.io/"  # a kustomization file's apiVersion group


def entry_words(entry: Mapping[str, Any]) -> tuple[str, str]:
    """A diff entry's object as a reader knows it (:func:`object_words`); a kustomization
    file (the diff's ``Kustomization/<path>``, which would read as a Flux Kustomization) is
    ("kustomize file", its path)."""
    if entry.get("kind") == "Kustomization" and str(entry.get("apiVersion") or "").startswith(
            KUSTOMIZE_API) and entry.get("namespace") is None:
        return "kustomize file", str(entry.get("file") or entry.get("base_file")
                                     or entry.get("name"))
    return object_words(str(entry.get("object")))
