"""Human text: findings grouped by file, the offending line shown, colour on a terminal.

Every string from the repository (names, messages, quoted lines, skipped files) goes
through :func:`reviewbot.escape.term`: this is the action's log format, and a line a
file name starts could otherwise be a workflow command."""

from __future__ import annotations

import posixpath
from itertools import groupby
from typing import Any

from reviewbot.diff.secrets import KUSTOMIZATION_FILES, hidden_lines
from reviewbot.engine.findings import (
    NOT_APPLIED_AGAIN,
    Finding,
    doubt_once,
    not_applied,
)
from reviewbot.escape import term
from reviewbot.model.objects import cluster_phrase, rooted_cluster
from reviewbot.report.base import (
    NOT_SHOWN_SEVERITIES,
    Report,
    alike_runs,
    alike_said,
    existing_said,
    not_shown_lines,
    object_words,
)
from reviewbot.words import plural

# more infos than this for folders not applied are not printed one by one: the skipped list
# names each (a template repository: 360 of them, 1,440 lines before its errors)
FOLDED_NOT_APPLIED = 5
_COLOR = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


def render_text(report: Report, color: bool = False) -> str:
    def paint(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    out: list[str] = []
    said: str | None = None  # the "Not applied" clause of the finding just printed
    doubted_before: str | None = None  # and its "Not certain" one
    folded = _folded_not_applied(report)
    shown = [f for f in report.findings if id(f) not in folded] if folded else report.findings
    for file, group in groupby(shown, key=lambda f: f.file):
        out.append(paint(_BOLD, term(file) if file else "(repository)"))
        text = report.sources.get(file, "")
        lines = text.splitlines()
        hidden: frozenset[int] | None = None  # the lines never quoted (secret values)
        for f, others in alike_runs(list(group)):
            # what could not be seen, and the failing build: each long sentence once in a row
            # (one doubt of a whole lint, the objects of one failing build), "as above" after
            rest, clause = not_applied(f.message)
            message, doubt = doubt_once(rest, doubted_before)
            message += ("" if clause is None else NOT_APPLIED_AGAIN if clause == said
                        else f.message[len(rest):])
            said, doubted_before = clause, doubt
            new = " [new]" if report.review is not None and f.new else ""
            if report.review is not None and f.worse:
                new = f" [worse: {term(f.worse)}]"
            where = f"{f.line}:{f.column}"
            label = paint(_COLOR.get(f.severity, ""), f.severity)
            named = " ".join(w for w in object_words(f.object, f.file) if w)
            obj = f" {paint(_DIM, term(named))}" if f.object else ""
            out.append(f"  {where:>8}  {label:<7} {term(message)}  [{term(f.check)}]{new}{obj}")
            quote = 0 < f.line <= len(lines) and _may_quote(f, file)
            if quote and hidden is None:
                hidden = hidden_lines(file, text)
            if quote and f.line not in (hidden or ()):
                source = term(lines[f.line - 1].rstrip(), tabs=True)
                if len(source) > 160:
                    source = source[:157] + "..."
                out.append(paint(_DIM, f"            | {source}"))
                caret = " " * (max(f.column, 1) - 1) + "^"
                out.append(paint(_DIM, f"            | {caret}"))
            if f.fix:
                out.append(f"            fix: {term(f.fix)}")
            elsewhere = _also(f)
            if elsewhere:  # (the other places of its cause: new-user trial sixty-nine W1,
                # the policy to edit named in the PR comment alone)
                out.append(f"            also at: {term(elsewhere)}")
            if others:
                out.append(f"            and {alike_said(f, others, term)}")
        out.append("")
    if report.terse:  # (--quiet: the findings alone)
        return "\n".join(out)
    counts = {s: sum(1 for f in report.findings if f.severity == s)
              for s in ("error", "warning", "info")}
    past: dict[str, int] = (report.stats.get(NOT_SHOWN_SEVERITIES) or {}
                            ) if report.review is None else {}
    summary = ", ".join(plural(n + past.get(s, 0), s) for s, n in counts.items()
                        if n + past.get(s, 0))
    if past:  # (the findings past a rule's cap: the lines below say which)
        summary += f" ({len(report.findings)} shown)"
    objects = report.stats.get("objects")
    files = report.stats.get("files", 0)
    # what was linted, apart from the counts ("2 errors in 14 objects" read as the objects found
    # wanting); "looked in N objects" is also what ../shared/tools/precision.py counts objects by
    scanned = (f"; looked in {plural(objects, 'object')} from {plural(files, 'file')}"
               if objects else "")
    out.append(f"{_counts_line(report, summary)}{scanned}")
    if isinstance(roots := report.stats.get("roots"), str):
        out.append(f"roots: {term(roots)}")
    if report.review is not None and report.review.connectivity:
        from reviewbot.report.markdown import flow_lines  # (a review's: not a lint's)

        out.append("changed flows:")  # (the counts line above counts them)
        out.extend(flow_lines(report.review.connectivity, term))
    if report.review is not None and report.review.ignores:
        # (they silence the pull request's own findings: said as the summary comment says
        # them; new-user trial seventy-one W9 read "no new findings" of a PR adding one)
        ignores = report.review.ignores
        out.append(f"ignores added by this pull request ({len(ignores)}), each silencing its "
                   "rules' findings, which are not shown:")
        out.extend(f"  {term(f'{i.file}:{i.line}')}: {', '.join(i.rules)}"
                   + (f" on {term(i.object)}" if i.object else "")
                   + (f": reason: {term(i.reason)}" if i.reason else ": no reason given")
                   for i in ignores)
    if folded:
        out.append(f"{plural(len(folded), 'info')} not shown one by one: files and folders not "
                   "applied (kustomize-integrity), each listed under skipped with why")
    out.extend(not_shown_lines(report))
    schema = report.stats.get("schema")
    lifecycle = report.stats.get("api-lifecycle")
    if isinstance(lifecycle, dict):
        out.append(lifecycle_summary(lifecycle))
    if isinstance(schema, dict):
        out.append(schema_summary(schema))
    if report.quiet:
        out.append(f"not reported on purpose ({len(report.quiet)}):")
        out.extend(_quiet_lines(report))
    clusters = [s for s in report.skipped if s.kind == "cluster"]
    if clusters:  # what the tree applies, by cluster: nothing of it was left out
        out.append(f"clusters ({len(clusters)}):")
        out.extend(f"  {term(s.path)}: {term(s.reason)}" for s in clusters)
    skipped = [s for s in report.skipped if s.kind != "cluster"]
    if skipped:
        out.append(f"skipped ({len(skipped)}):")  # files and folders alike
        out.extend(f"  {term(s.path)}: {term(s.reason)}" for s in skipped)
    return "\n".join(out) + "\n"


def _folded_not_applied(report: Report) -> set[int]:
    """The infos (ids) of folders not applied (no cluster root reaches them, or the
    repository keeps them aside) that the skipped list names, when there are more than
    :data:`FOLDED_NOT_APPLIED`; none otherwise."""
    listed = {s.path for s in report.skipped}
    found = {id(f) for f in report.findings if f.kind == "not-applied" and f.severity == "info"
             and f.message.split(" ", 1)[0] in listed}
    return found if len(found) > FOLDED_NOT_APPLIED else set()


def _quiet_lines(report: Report) -> list[str]:
    """The places rules stayed quiet at, one line each; several at one line of one file for
    one rule (a shared component built for nine apps) show the first in full and name the
    others by what each reason is about (its text before the first ': '), as a terminal
    reader scans them. Places whose reason says the same past its subject and field (forty
    policies admitting ``app.kubernetes.io/name=envoy`` from a namespace whose pods a chart
    makes) show the first and list the others' places. The JSON ``skipped`` list keeps every
    one whole."""
    out: list[str] = []
    groups: dict[tuple[str, int, str], list[str]] = {}
    for q in report.quiet:
        groups.setdefault((q.file, q.line, q.rule), []).append(q.reason)
    alike: dict[tuple[str, ...], list[tuple[str, int, str]]] = {}
    for place, reasons in groups.items():
        gist = _gist(reasons[0])
        key = (place[2], gist) if gist is not None else (place[0], str(place[1]), place[2])
        alike.setdefault(key, []).append(place)
    for places in alike.values():
        file, line, rule = places[0]
        reasons = groups[places[0]]
        out.append(f"  {term(file)}:{line}: [{term(rule)}] {term(reasons[0])}")
        if len(reasons) > 1:
            subjects = [r.split(": ", 1)[0] for r in reasons[1:]]
            if all(": " in r and len(x) <= 80
                   for r, x in zip(reasons[1:], subjects, strict=True)):
                shown = ", ".join(term(x) for x in subjects[:3])
                more = f" and {len(subjects) - 3} more" if len(subjects) > 3 else ""
                out.append(f"    and {len(subjects)} more at this line, alike: {shown}{more}")
            else:
                out.append(f"    and {len(subjects)} more at this line (`--format json` lists "
                           "each)")
        if len(places) > 1:
            shown = ", ".join(f"{term(f)}:{n}" for f, n, _ in places[1:4])
            more = f" and {len(places) - 4} more" if len(places) > 4 else ""
            out.append(f"    and {len(places) - 1} more {'place' if len(places) == 2 else 'places'}"
                       f" alike: {shown}{more}")
    return out


def _gist(reason: str) -> str | None:
    """What a quiet reason says past its subject and field ("NetworkPolicy a/b: ingress[0]...
    app=x matches no pod in c, but ..." -> "app=x matches no pod in c, but ..."), or None
    when it is not written that way."""
    _, sep, rest = reason.partition(": ")
    field, space, gist = rest.partition(" ")
    return gist if sep and space and "[" in field else None


def _counts_line(report: Report, counts: str) -> str:
    """The findings shown, counted by severity; in a review, as the summary comment counts
    them: which are new, which made worse, how many the pull request fixes, those already
    on the base branch, shown or not, and the flows it opens or closes ("no new findings; 1
    fixed; 16 already on the base branch (not shown: scope new); connectivity: 2 opened
    flows")."""
    review = report.review
    if review is None:
        return counts or "no findings"
    new = sum(1 for f in report.findings if f.new)
    worse = sum(1 for f in report.findings if f.worse and not f.new)
    changed = new + worse
    if not counts:
        line = "no new findings"
    elif new == len(report.findings):
        line = f"{counts}, all new" if review.existing else counts
    elif worse:  # (as the summary comment counts them: "1 new · 1 made worse")
        line = f"{counts}, {new or 'none'} of them new, {worse} made worse"
    else:
        line = f"{counts}, {new or 'none'} of them new"
    if review.fixed:  # (the summary comment's parts, in its order)
        line += f"; {len(review.fixed)} fixed"
    if review.existing:
        shown = len(report.findings) - changed
        line += (f"; {plural(review.existing, 'finding')} already on the base branch"
                 + existing_said(review.existing, shown, review.scope or "new", "above"))
    if review.connectivity:
        from reviewbot.report.markdown import connectivity_counts  # (a review's: not a lint's)

        line += f"; {connectivity_counts(review)}"
    return line


def _may_quote(f: Finding, file: str) -> bool:
    """Only lines of an object that is no Secret, or of a kustomization file, are shown (and
    of them only those :func:`hidden_lines` does not hide: a secretGenerator's literals, a
    patch writing a Secret): the lines of a Secret, of a file that does not parse and of
    other findings that belong to no object (a suppression comment on a Secret's line) may
    hold secret values. A finding about a whole file (no object, at 1:1: not applied, a
    build that fails) points at no line of it."""
    if f.rule == "yaml-syntax":
        return False
    if not f.object:
        return posixpath.basename(file) in KUSTOMIZATION_FILES and (f.line, f.column) != (1, 1)
    return not f.object.startswith("Secret/")


def lifecycle_summary(notes: dict[str, Any]) -> str:
    """One line on the Kubernetes version each cluster was judged against, and where from;
    clusters judged alike said once ("1.37 (the newest known, none set) in all 5 clusters")."""
    found = notes.get("clusters")
    clusters: dict[str, Any] = found if isinstance(found, dict) else {}
    alike: dict[str, list[str]] = {}
    for name, entry in sorted(clusters.items()):
        if not isinstance(entry, dict):
            continue
        text = f"{entry.get('kubernetes-version', '?')}"
        if entry.get("judged-as") != "set":
            text += f" ({entry.get('judged-as', '?')})"
        alike.setdefault(text, []).append(name)
    if len(clusters) <= 1 or not alike:
        parts = list(alike)
    elif len(alike) == 1:
        parts = [f"{text} in {_all_clusters(names)}" for text, names in alike.items()]
    else:
        parts = [f"{text} in {', '.join(_cluster_name(n) for n in names)}"
                 for text, names in alike.items()]
    line = f"api-lifecycle: judged against Kubernetes {'; '.join(parts) or '?'}"
    if notes.get("target"):
        line += f"; upgrade planned to {notes['target']}"
    return line


def _cluster_name(name: str) -> str:
    """A cluster as a list names it: by its name, or by what it holds (:func:`cluster_phrase`
    for a cluster no root names)."""
    return name if rooted_cluster(name) else cluster_phrase(name)


def _all_clusters(names: list[str]) -> str:
    """"all 5 clusters"; the clusters no root names (the objects no root applies, what a
    Terraform file applies) said apart, by what they hold."""
    named = [n for n in names if rooted_cluster(n)]
    text = "both clusters" if len(named) == 2 else f"all {len(named)} clusters" if len(
        named) > 2 else f"cluster {named[0]}" if named else ""
    for name in names:
        if name not in named:
            text = f"{text} and {_cluster_name(name)}" if text else _cluster_name(name)
    return text


def schema_summary(schema: dict[str, Any]) -> str:
    """One line on what the schema rule validated and what it could not (no schema)."""
    line = (f"schema: {plural(schema.get('validated', 0), 'object')} validated against Kubernetes "
            f"{schema.get('kubernetes-version', '?')} ({schema.get('engine', '?')})")
    missing = schema.get("no-schema") or {}
    if schema.get("not-validated"):
        kinds = sorted(missing.items(), key=lambda kv: (-kv[1], kv[0]))
        shown = ", ".join(f"{term(k)} x{n}" for k, n in kinds[:5])
        more = f", {len(kinds) - 5} more kinds" if len(kinds) > 5 else ""
        line += f"; {schema['not-validated']} not validated (no schema): {shown}{more}"
    return line


def _also(f: Finding, limit: int = 5) -> str:
    """The other places of ``f``'s cause, each once and not its own: "b.yaml:3
    (NetworkPolicy database/redis), ..." (the PR comment's "Same cause at")."""
    objects: dict[tuple[str, int], list[str]] = {}  # a place -> its objects, each once
    for o in f.others:  # (one place of two builds' objects: new-user trial seventy-six W3
        # read `rollout.yaml:29` twice)
        if (o.file, o.line) != (f.file, f.line) and o.file:
            at = objects.setdefault((o.file, o.line), [])
            if o.object and o.object not in at:
                at.append(o.object)
    places = list(objects.items())
    named = [f"{file}:{line}" + (f" ({', '.join(objs)})" if objs else "")
             for (file, line), objs in places[:limit]]
    return ", ".join(named) + (f" and {len(places) - limit} more" if len(places) > limit
                               else "")
