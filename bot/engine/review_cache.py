"""A review's outcome as plain data, for the cache (``--cache``): the same two trees reviewed
again with the same inputs (a job run again, a commit amended without a change to its files)
get their report without parsing a file or building a model.

The key (``engine.review_key``) names both trees as git lists them, the configuration, the
environment and the review's own inputs. The report is stored as JSON (never pickle), and
only when it reads back equal to what was computed; the file texts the outputs quote are
stored by name and read again from the head's blobs. What names the refs (the commit ids,
the base as given) and the configuration's review are the run's own, never the cache's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from reviewbot.engine.findings import Amount, Edit, Finding, Quiet, Suggestion
from reviewbot.engine.outcome import Ignore, Report, ReviewSummary, Unapplied
from reviewbot.sources.tree import Skipped


def freeze_report(report: Report) -> dict[str, Any] | None:
    """``report`` as JSON data; None when it would not read back the same."""
    review = report.review
    if review is None:
        return None
    raw: dict[str, Any] = {
        "findings": [_finding(f) for f in report.findings],
        "skipped": [[s.path, s.reason] for s in report.skipped],
        "quiet": [q.as_data() for q in report.quiet],
        "stats": report.stats,
        "sources": sorted(report.sources),
        "not_shown": report.not_shown,
        "diff": list(review.diff),
        "fixed": [_finding(f) for f in review.fixed],
        "connectivity": [[c.diff_type, c.source, c.destination, c.ref1, c.ref2, c.info]
                         for c in review.connectivity],
        "connectivity_notes": list(review.connectivity_notes),
        "ignores": [[i.file, i.line, list(i.rules), i.reason, i.object] for i in review.ignores],
        "counts": [review.new, review.existing, review.scope, review.max_chars],
        "unapplied": [[u.path, u.reason, u.files] for u in review.unapplied],
    }
    # read back into what a run knows before the cache answers (its refs and configuration):
    # a part of the review not stored here makes the check fail, and nothing is stored
    run = ReviewSummary(base=review.base, base_ref=review.base_ref, head=review.head,
                        config=review.config, links=review.links)
    try:
        back = json.loads(json.dumps(raw))
        thawed = thaw_report(back, run, lambda names: dict.fromkeys(names, ""))
    except (TypeError, ValueError):
        return None
    if thawed is None or not same_report(thawed, replace(
            report, sources=dict.fromkeys(report.sources, ""))):
        return None
    return back


def thaw_report(raw: Mapping[str, Any], run: ReviewSummary,
                texts: Callable[[list[str]], dict[str, str] | None]) -> Report | None:
    """The report ``freeze_report`` made, with ``run``'s refs and configuration review, and
    the quoted files' ``texts`` (None: they cannot be read); None when ``raw`` is not one."""
    try:
        new, existing, scope, max_chars = raw["counts"]
        review = replace(
            run, diff=tuple(dict(e) for e in raw["diff"]),
            fixed=tuple(_thaw_finding(f) for f in raw["fixed"]),
            connectivity=_flows(raw["connectivity"]),
            connectivity_notes=tuple(str(n) for n in raw["connectivity_notes"]),
            ignores=tuple(Ignore(str(f), int(n), tuple(str(r) for r in rules), str(why),
                                 str(obj)) for f, n, rules, why, obj in raw["ignores"]),
            new=int(new), existing=int(existing), scope=str(scope),
            max_chars=None if max_chars is None else int(max_chars),
            unapplied=tuple(Unapplied(str(p), str(r), int(n)) for p, r, n in raw["unapplied"]))
        sources = texts([str(n) for n in raw["sources"]])
        if sources is None:
            return None
        stats, not_shown = raw["stats"], raw["not_shown"]
        if not isinstance(stats, dict) or not isinstance(not_shown, dict):
            return None
        return Report(
            findings=tuple(_thaw_finding(f) for f in raw["findings"]),
            skipped=tuple(Skipped(str(p), str(r)) for p, r in raw["skipped"]),
            quiet=tuple(Quiet.from_data(q) for q in raw["quiet"]),
            review=review, stats=stats, sources=sources,
            not_shown={str(k): int(v) for k, v in not_shown.items()})
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None


def _flows(raw: list[Any]) -> tuple[Any, ...]:
    if not raw:
        return ()
    from reviewbot.netpol.diff import FlowChange  # here: most reviews change no flow

    return tuple(FlowChange(*(str(x) for x in c)) for c in raw)


def same_report(a: Report, b: Report) -> bool:
    """Equal, the findings' suggestions and edits included (their equality leaves them out)."""
    def extra(r: Report) -> list[Any]:
        fixed = r.review.fixed if r.review is not None else ()
        return [(f.suggestion, f.edits, f.anchor) for f in (*r.findings, *fixed)]

    return a == b and extra(a) == extra(b)


def _finding(f: Finding) -> list[Any]:
    s = f.suggestion
    return [f.rule, f.severity, f.file, f.line, f.column, f.object, f.message, f.fix, f.path,
            f.new, f.key, f.kind,
            None if s is None else [s.file, s.start_line, s.end_line, list(s.original),
                                    list(s.replacement)],
            [e.as_json() for e in f.edits], list(f.clusters), f.cause,
            None if f.amount is None else [f.amount.value, f.amount.text, f.amount.limit],
            [_finding(o) for o in f.others], f.worse,
            None if f.anchor is None else list(f.anchor)]


def _thaw_finding(raw: list[Any]) -> Finding:
    (rule, severity, file, line, column, obj, message, fix, path, new, key, kind, s,
     edits, clusters, cause, amount, others, worse, anchor) = raw
    suggestion = None if s is None else Suggestion(
        str(s[0]), int(s[1]), int(s[2]), tuple(str(x) for x in s[3]),
        tuple(str(x) for x in s[4]))
    return Finding(rule=str(rule), severity=str(severity), file=str(file), line=int(line),
                   column=int(column), object=str(obj), message=str(message), fix=str(fix),
                   path=str(path), new=None if new is None else bool(new), key=str(key),
                   kind=str(kind), suggestion=suggestion,
                   edits=tuple(Edit.from_json(e) for e in edits),
                   clusters=tuple(str(c) for c in clusters), cause=str(cause),
                   amount=None if amount is None else Amount(
                       float(amount[0]), str(amount[1]), str(amount[2])),
                   others=tuple(_thaw_finding(o) for o in others), worse=str(worse),
                   anchor=None if anchor is None else (str(anchor[0]), int(anchor[1])))
