"""``--format markdown``: the pull-request summary comment (review), or a findings table (lint).

The summary is findings by severity, the PR's configuration changes, then the semantic
diff with one collapsible block per object. Everything from the repository is untrusted:
names, paths, values and messages (which quote names). Each goes through one of the three
escapes of :mod:`reviewbot.escape`: ``md_text`` for running markdown, ``md_code`` for
code spans (tables included) and ``html_code`` inside HTML, so that a resource named
``@team<img src=x>`` shows as text, mentions nobody and loads nothing.

The comment is capped (60,000 characters by default, ``ReviewSummary.max_chars``); it is
cut between rows and blocks, never inside one, and says how many findings and changed
objects were left out.
"""

from __future__ import annotations

import html
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from reviewbot.engine.findings import (
    Finding,
    Suggestion,
    doubt_once,
    not_applied,
    sort_key,
)
from reviewbot.engine.outcome import ConfigReview, Ignore, Report, ReviewSummary, Unapplied
from reviewbot.escape import html_code, md_code, md_prose, md_text, term
from reviewbot.report.base import (
    VALUES_PREFIX,
    UnappliedSaid,
    existing_said,
    not_shown_lines,
    object_words,
    renamed,
    renamed_alike,
)
from reviewbot.report.difftext import (
    READ_WHY,
    Alike,
    alike,
    build_fails,
    builds_note,
    change_lines,
    counted,
    distinct,
    listed,
    made_again,
    object_header,
    shown_status,
    tally,
)
from reviewbot.report.links import Links
from reviewbot.words import plural

if TYPE_CHECKING:  # the flows' module is imported where a review changed some
    from reviewbot.netpol.diff import FlowChange

DEFAULT_LIMIT = 60_000
_SEVERITIES = (("error", "Errors"), ("warning", "Warnings"), ("info", "Info"))


# ---------------------------------------------------------------- findings


def _where(f: Finding) -> str:
    if not f.file:
        return "(repository)"
    return f"{f.file}:{f.line}" if f.line else f.file


def finding_row(f: Finding, with_new: bool) -> str:
    cells = [md_code(f.check), md_code(f.object) if f.object else "", md_code(_where(f))]
    text = md_text(f.message)
    if f.fix:
        text += f"<br>**Fix:** {md_prose(f.fix)}"
    cells.append(text)
    if with_new:
        cells.insert(0, _label(f, "{}"))
    return "| " + " | ".join(cells) + " |"


def _table_head(with_new: bool) -> str:
    head = ["Rule", "Object", "Where", "Finding"]
    if with_new:
        head.insert(0, "")
    return "| " + " | ".join(head) + " |\n|" + "---|" * len(head)


def _label(f: Finding, shape: str) -> str:
    """new, worse (how much), or existing, put in ``shape``."""
    if f.new:
        return shape.format("new")
    if f.worse:
        return shape.format(md_text(f"worse: {f.worse}"))
    return shape.format("existing")


def also_at(f: Finding, links: Links | None = None, limit: int = 5, inline: bool = False) -> str:
    """The other places of a finding's cause ("Same cause at `b.yaml:3` (Deployment/ns/b)
    ..."), the first ``limit`` named and the rest counted; empty without any. ``inline``:
    for the comment at the finding's anchor (the change), where the finding's own line is
    not "this line"."""
    if not f.others:
        return ""
    # the others at this finding's own place (one base file two overlays build) are named
    # by their objects once, not as its place again (new-user trial twelve: "Same cause at
    # `x.yaml:21` ..., `x.yaml:21`")
    here = [o for o in f.others if (o.file, o.line) == (f.file, f.line)]
    # each other place once, and not the one the comment sits at (new-user trial thirty-six:
    # a comment at the Service's port said "Same cause at" that port; a policy's places twice)
    seen = {f.anchor} if f.anchor is not None else set()
    elsewhere = []
    for o in f.others:
        if (o.file, o.line) != (f.file, f.line) and (o.file, o.line) not in seen:
            seen.add((o.file, o.line))
            elsewhere.append(o)
    named = []
    for o in elsewhere[:limit]:
        where = md_code(_where(o), False)
        if o.file and links is not None:
            where = f"[{where}]({links.line(o.file, o.line)})"
        named.append(where + (f" ({_object(o.object, o.file)})" if o.object else ""))
    more = len(elsewhere) - limit
    said = ("Same cause at " + ", ".join(named) + (f" and {more} more" if more > 0 else "")
            if named else "")
    objects = list(dict.fromkeys(_object(o.object, o.file) for o in here if o.object))
    if objects:
        shown = ", ".join(objects[:limit]) + (
            f" and {len(objects) - limit} more" if len(objects) > limit else "")
        if inline and f.anchor is not None and f.anchor != (f.file, f.line):
            # the comment sits at the change, not at the finding's own line, where the others
            # are (new-user trial forty-two: "Same cause at this line for staging/vllm" on
            # prod's replicas patch, staging's Deployment being at the base's line)
            where = md_code(_where(f), False)
            if f.file and links is not None:
                where = f"[{where}]({links.line(f.file, f.line)})"
            mine = _object(f.object, f.file) if f.object else ""
            at = f"{where} ({', '.join(dict.fromkeys([mine, *objects] if mine else objects))})"
            said += (", " if said else "Same cause at ") + at
        else:
            said += ("; at this line, also for " if said else "Same cause at this line for "
                     ) + shown
    return said


def finding_comment(f: Finding, alike: str = "") -> str:
    """The body of an inline comment for one finding (``alike``: a sentence naming the
    findings alike at its line it stands for)."""
    head = f"**{md_text(f.severity)}** {md_code(f.check, False)}"
    if f.worse:
        head += f" ({md_text('worse: ' + f.worse)})"
    lines = [f"{head}: {md_text(f.message)}"]
    if f.fix:
        lines += ["", f"**Fix:** {md_prose(f.fix)}"]
    if also := also_at(f, inline=True):
        lines += ["", also + "."]
    if alike:
        lines += ["", alike]
    if f.object:
        where = md_code(f.object, False)
        if f.path:
            where += f", field {md_code(f.path, False)}"
        lines += ["", f"<sub>{where}</sub>"]
    return "\n".join(lines)


def suggestion_block(s: Suggestion, platform: str) -> str:
    """A fix that replaces lines, for an inline comment on exactly those lines: GitHub's
    one-click ```suggestion block, or (Forgejo has none) the replacement as a diff block."""
    exact = all(term(line) == line for line in (*s.original, *s.replacement))
    if platform == "github" and exact:  # applied as written: only text shown as it is
        body = "\n".join(s.replacement)
        return f"{_fence(body)}suggestion\n{body}\n{_fence(body)}"
    lines = [f"-{term(line)}" for line in s.original]
    lines += [f"+{term(line)}" for line in s.replacement]
    body = "\n".join(lines)
    return f"**Suggested change:**\n\n{_fence(body)}diff\n{body}\n{_fence(body)}"


def _fence(body: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", body)), default=2)
    return "`" * (longest + 1)


# ---------------------------------------------------------------- the diff


def diff_block(group: Alike, max_lines: int = 200) -> str:
    """One changed object (or several changed alike: ``group``, every one named) as a
    ``<details>`` block with a diff-highlighted body."""
    entry = group.entry
    changes = entry.get("changes") or ()
    mark, _ = object_header(entry)
    status = str(entry.get("change"))
    words, name, lead, others = group.subject()
    fails = build_fails(entry)
    shown = status if fails is None else status + fails[0]
    named = f"{words + ' ' if words else ''}{html_code(name)}"
    if others:
        named += f" {lead} {listed(others, html_code)}"
    parts = [f"{named} <b>{html.escape(shown)}</b>"]
    if status == "renamed":
        parts.append(f"from {html_code(str(entry.get('renamed_from')))}")
    file = entry.get("file") or entry.get("base_file")
    if file and file != name:
        parts.append(f"in {html_code(str(file))}")
    if changes:
        parts.append(f"({plural(len(changes), 'change')})")
    if said := builds_note(group, _html_text):
        parts.append(said)
    body_lines: list[str] = [f"# {term(fails[1])}"] if fails is not None else []
    for style, text in change_lines(changes):
        body_lines.append(f"  {text}" if style == "path" else f"{style}   {text}")
    if status == "added":
        body_lines.append(f"+ new object at line {entry.get('line') or 1}")
    elif status == "removed":
        body_lines.append("- removed")
    elif status == "renamed":
        base_file = entry.get("base_file")
        moved = f", moved from {term(str(base_file))}" if base_file != entry.get("file") else ""
        body_lines.append(f"> renamed from {term(str(entry.get('renamed_from')))}{moved}")
    if len(body_lines) > max_lines:
        left = len(body_lines) - max_lines
        body_lines = body_lines[:max_lines] + [f"  ... {left} more lines"]
    body = "\n".join(body_lines)
    longest = max((len(run) for run in re.findall(r"`{3,}", body)), default=2)
    fence = "`" * (longest + 1)
    return (
        f"<details><summary>{html.escape(mark)} {' '.join(parts)}</summary>\n\n"
        f"{fence}diff\n{body}\n{fence}\n\n</details>"
    )


def render_diff_section(diff: Sequence[Mapping[str, Any]], limit: int = DEFAULT_LIMIT,
                        unapplied: Sequence[Unapplied] = ()) -> str:
    """`reviewbot diff --format markdown`: the diff blocks alone, capped like the summary,
    then the changed files no cluster receives."""
    builder = _Builder(limit)
    if diff:
        diff_blocks(builder, diff)
    else:
        builder.add("### Changes\n\nNo object changed.\n")
    if unapplied:
        builder.add(unapplied_paragraph(unapplied, "diff shows").lstrip("\n"))
    return builder.finish(0, len(diff))


_GROUPS = (("added", "+", "added"), ("removed", "-", "removed"), ("renamed", ">", "renamed"),
           ("now read", "+", "now read"), ("no longer read", "-", "no longer read"))


def diff_blocks(builder: _Builder, diff: Sequence[Mapping[str, Any]]) -> None:
    """The diff under a cap: one block per modified object, then one collapsible list each
    of added, removed and renamed objects (entries beyond the cap are counted as left out).
    """
    if not builder.add(f"### Changes ({_counts(diff)})\n"):
        return
    merged = alike(diff)
    for one in merged:
        if one.entry.get("change") == "modified" and not builder.add(
                diff_block(one) + "\n", objects=len(one.entries)):
            return
    for status, mark, word in _GROUPS:
        group = [one for one in merged if shown_status(one.entry) == status]
        if not group:
            continue
        # (counted as the heading counts them: one object of several builds alike once;
        # new-user trial eighty-three D5 read "2 added" over "+ 4 objects added")
        head = (f"<details><summary>{mark} {counted([one.entry for one in group])}"
                f" {word}</summary>\n\n")
        tail = "\n\n</details>\n"
        lines: list[str] = []
        budget = builder.room() - len(head) - len(tail)
        shown = 0
        notes = _by_note(group)
        for (fails, made), ones in notes:
            count = sum(len(one.entries) for one in ones)
            line = (_entry_line(ones[0]) + fails + (f" {made}" if made else "")
                    if len(ones) == 1 else "\n".join(
                        [f"- {counted([one.entry for one in ones])}"
                         f"{f' {made}' if made else ''}{fails}:"]
                        + ["  " + _entry_line(one) for one in ones]))
            if budget - len(line) - 1 < 0:
                break
            lines.append(line)
            shown += count
            budget -= len(line) + 1
        if not lines or not builder.add(head + "\n".join(lines) + tail, objects=shown):
            builder.full = True
            return
        if len(lines) < len(notes):
            builder.full = True
            return


def _by_note(group: Sequence[Alike]) -> list[tuple[tuple[str, str], list[Alike]]]:
    """``group``'s entries by what is said after each (why its build fails, which builds
    make it), in order: a sentence said of several is said once, the entries listed under
    it (new-user trial twenty-three: a `spec.path` typo repeated it under each object of
    the cluster)."""
    out: list[tuple[tuple[str, str], list[Alike]]] = []
    at: dict[tuple[str, str], list[Alike]] = {}
    for one in group:
        fails = build_fails(one.entry)
        said = (f"; {md_text(fails[1])}" if fails is not None else "",
                builds_note(one, md_text))
        if said in at and said != ("", ""):  # (nothing said: each a line, in its place)
            at[said].append(one)
        else:
            out.append((said, [one]))
            at[said] = out[-1][1]
    return out


def _html_text(text: str) -> str:
    return html.escape(term(text))


def _entry_line(group: Alike) -> str:
    entry = group.entry
    status = entry.get("change")
    words, name, lead, others = group.subject()
    ref = (f"{words} " if words else "") + md_code(name, False)
    if others:
        ref += f" {lead} {listed(others, lambda n: md_code(n, False))}"
    if status == "renamed":
        old = md_code(str(entry.get("renamed_from")), False)
        moved = ""
        if entry.get("base_file") != entry.get("file"):
            moved = (f", {md_code(str(entry.get('base_file')), False)} → "
                     f"{md_code(str(entry.get('file')), False)}")
        return f"- {ref} from {old}{moved}"
    if by := entry.get("generated_by"):  # an Application only an ApplicationSet makes
        where = (f"{entry.get('base_file')}" if status == "removed" else
                 f"{entry.get('file')}:{entry.get('line') or 1}")
        made = "was generated" if status == "removed" else "generated"
        return f"- {ref} ({made} by {md_code(str(by), False)} in {md_code(where, False)})"
    if (said := shown_status(entry)) != status:
        return f"- {ref} ({READ_WHY[said]})"
    if status == "removed":
        if entry.get("base_file") == name:  # (a file's entry, named by its path: trial
            return f"- {ref}"  # seventy-nine W3 read the path twice)
        return f"- {ref} (was in {md_code(str(entry.get('base_file')), False)})"
    if entry.get("file") == name:
        return f"- {ref} (line {entry.get('line') or 1})"
    where = f"{entry.get('file')}:{entry.get('line') or 1}"
    return f"- {ref} in {md_code(where, False)}"


def _counts(diff: Sequence[Mapping[str, Any]]) -> str:
    shown = distinct(diff)
    merged = made_again(diff)
    again = f"; {merged} of them made by another build too" if merged else ""
    failing = sum(1 for e in shown if e.get("build_fails"))
    fails = f"; {failing} of them in a failing build" if failing else ""
    return (", ".join(tally(shown)) or "none") + again + fails


# ---------------------------------------------------------------- assembling under a cap


class _Builder:
    """Blocks in order until the next one would pass the cap; then a line on what is left."""

    RESERVE = 400

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.full = False
        self.findings = 0
        self.objects = 0

    def add(self, block: str, *, findings: int = 0, objects: int = 0) -> bool:
        if self.full or self.size + len(block) + 1 > self.limit - self.RESERVE:
            self.full = True
            return False
        self.parts.append(block)
        self.size += len(block) + 1
        self.findings += findings
        self.objects += objects
        return True

    def room(self) -> int:
        return self.limit - self.RESERVE - self.size - 1

    def finish(self, total_findings: int, total_objects: int) -> str:
        text = "\n".join(self.parts).rstrip() + "\n"
        left_f = total_findings - self.findings
        left_o = total_objects - self.objects
        if left_f or left_o:
            what = []
            if left_f:
                what.append(plural(left_f, "finding"))
            if left_o:
                what.append(plural(left_o, "changed object"))
            text += (
                f"\n**{' and '.join(what)} left out**: this comment is capped at "
                f"{self.limit:,} characters. The job log and the JSON/SARIF output have "
                "everything.\n"
            )
        return text


# ---------------------------------------------------------------- the comment


def render_markdown(report: Report, color: bool = False) -> str:
    """``--format markdown``: for a review, the summary comment (linked to the head's lines
    and the rules' documentation when the review knows where they are: ``review.links``);
    for a lint, a table."""
    if report.review is not None:
        return _render_review(report, report.review, report.review.links)
    builder = _Builder(DEFAULT_LIMIT)
    findings = list(report.findings)
    builder.add(_header(report.findings))
    for severity, title in _SEVERITIES:
        group = [f for f in findings if f.severity == severity]
        if not group:
            continue
        if not builder.add(f"### {title} ({len(group)})\n"):
            break
        table = [_table_head(False)]
        for f in group:
            row = finding_row(f, False)
            room = DEFAULT_LIMIT - builder.RESERVE
            if builder.size + len("\n".join(table)) + len(row) + 2 > room:
                break
            table.append(row)
        rows = len(table) - 1
        if rows:
            builder.add("\n".join(table) + "\n", findings=rows)
        if rows < len(group):
            builder.full = True
            break
    others = [f for f in findings if f.severity not in {s for s, _ in _SEVERITIES}]
    if others and not builder.full:
        table = [_table_head(False)] + [finding_row(f, False) for f in others]
        builder.add("### Other\n\n" + "\n".join(table) + "\n", findings=len(others))
    text = builder.finish(len(findings), 0)
    return text + "".join(f"\n**{line}.**\n" for line in not_shown_lines(report))


# ---------------------------------------------------------------- the review summary


def _render_review(report: Report, review: ReviewSummary, links: Links | None) -> str:
    """The summary a reviewer reads in five seconds: the verdict, one line of counts, each
    finding as a short entry (rule, object, a link to its line, message, fix), what the
    pull request fixes, connectivity per workload, configuration changes, then the diff."""
    limit = review.max_chars or DEFAULT_LIMIT
    builder = _Builder(limit)
    findings = list(report.findings)
    with_new = any(not f.new and not f.worse for f in findings)  # existing ones shown
    builder.add(_review_header(report.findings, review))
    for severity, title in (*_SEVERITIES, ("", "Other")):
        group = [f for f in findings if (f.severity == severity if severity else
                                         f.severity not in {s for s, _ in _SEVERITIES})]
        if not group:
            continue
        fresh = sum(1 for f in group if f.new or f.worse)
        count = (f"{fresh} new, {len(group) - fresh} already there" if with_new and (
            fresh < len(group)) else str(len(group)))  # (new-user trial sixteen: "2 errors
        entries = infos_at_one_place(alike_in_namespaces(group))  # to fix" above "Errors (5)")
        if len(entries) < len(group):  # (new-user trial seventy-three W2 counted 3 errors
            count += f" in {plural(len(entries), 'entry', 'entries')}"  # and read 2 entries)
        if not builder.add(f"### {title} ({count})\n"):
            break
        doubted: str | None = None  # the "Not certain" sentence of the entry just added
        for same, placed in entries:
            if placed:  # (new-user trial sixty-nine W2: a removed app's five deletions, five
                # entries of one place and one fix)
                if not builder.add(place_entry(same, links, with_new) + "\n",
                                   findings=len(same)):
                    break
                continue
            first, doubt = same[0], None
            if not_applied(first.message)[1] is None:  # (new-user trial thirty-one read one
                # chart's doubt four times)
                message, doubt = doubt_once(first.message, doubted)
                first = replace(first, message=message)
            doubted = doubt
            if not builder.add(finding_entry(first, links, with_new, [first, *same[1:]])
                               + "\n", findings=len(same)):
                break
        if builder.full:
            break
    _fixed_section(builder, review.fixed)
    _ignores_section(builder, review.ignores)
    if review.connectivity or review.connectivity_notes:
        notes, touched = _notes_changed_first(review.connectivity_notes, review.diff)
        builder.add(connectivity_section(review.connectivity, notes=[md_text(n) for n in notes],
                                         touched=touched))
    _config_section(builder, review.config)
    if review.diff:
        diff_blocks(builder, review.diff)
    text = builder.finish(len(findings), len(review.diff))
    text += "".join(f"\n**{line}.**\n" for line in not_shown_lines(report))
    return text + "\n" + _compared(review) + "\n"


def verdicts_section(verdicts: Sequence[Finding]) -> str:
    """change-safety's verdicts under ``diff --format markdown``, as the text diff prints
    them under its changes: what applying the change does (deletions, immutable fields)."""
    if not verdicts:
        return ""
    lines = [f"### What applying this change does ({len(verdicts)})", ""]
    order = {"error": 0, "warning": 1, "info": 2}
    for f in sorted(verdicts, key=lambda f: (order.get(f.severity, 3), sort_key(f))):
        lines.append(finding_entry(f).replace("- ", f"- *{f.severity}* · ", 1))
    return "\n" + "\n".join(lines) + "\n"


def finding_entry(f: Finding, links: Links | None = None, with_new: bool = False,
                  alike: Sequence[Finding] = ()) -> str:
    """One finding in the summary: rule (linked to its documentation), object, a link to
    its line in the head commit, then the message and the fix. A list item, never a table
    row: a long name wraps instead of pushing the comment sideways. ``alike``: the findings
    it stands for (:func:`alike_in_namespaces`, ``f`` first): their objects are named, and
    the words of the message that differ between them are listed in their order."""
    rule = md_code(f.check, False)
    doc = links.rule(f.rule) if links is not None else None
    head = [f"**[{rule}]({doc})**" if doc else f"**{rule}**"]
    message, fix = f.message, f.fix
    if len(alike) > 1:
        kind, _, name = f.object.split("/", 2)
        spaces = [a.object.split("/", 2)[1] for a in alike]
        if len(set(spaces)) == 1:  # one namespace of several clusters' builds (new-user
            # trial forty-five read "in 2 namespaces: `web`, `web`"); one object said of
            # several pods and clusters is in its clusters (trial seventy-three read one
            # ServingRuntime of two models and two clusters "in 4 builds")
            where = (f"in clusters {', '.join(md_code(c, False) for c in f.clusters)}"
                     if len({a.object for a in alike}) == 1 and len(f.clusters) > 1
                     else f"in {len(alike)} builds")
            head.append(f"{md_text(kind)} {md_code(f'{spaces[0]}/{name}', False)} {where}")
        elif len({a.object.split("/", 2)[2] for a in alike}) > 1:  # names a build prefixed
            head.append(f"{md_text(kind)} " + ", ".join(
                md_code(a.object.split("/", 1)[1], False) for a in alike))
        else:
            head.append(f"{md_text(kind)} {md_code(name, False)} in {len(alike)} namespaces: "
                        f"{', '.join(md_code(s, False) for s in spaces)}")
        message = merged_message([a.message for a in alike]) or (
            f"{f.message} (said of {f.object.split('/', 1)[1]}; alike in the others, each "
            "with its own names)")
        fix = merged_message([a.fix for a in alike]) or fix
        f = replace(f, others=tuple(  # each other place's objects said as one
            replace(o, object=merged_message([a.others[i].object for a in alike]) or o.object)
            for i, o in enumerate(f.others)))
    elif f.object:
        head.append(_object(f.object, f.file))
    where = md_code(_where(f), False)
    if f.file and links is not None:
        where = f"[{where}]({links.line(f.file, f.line)})"
    head.append(where)
    if with_new or f.worse:
        head.insert(0, _label(f, "*{}*"))
    text = md_text(message)
    if fix:
        text += f"<br>**Fix:** {md_prose(fix)}"
    if also := also_at(f, links):
        text += "<br>" + also
    return "- " + " · ".join(head) + "<br>" + text


MAX_WORDS_APART = 4  # words in which the messages of findings shown as one may differ


def infos_at_one_place(groups: Sequence[list[Finding]]) -> list[tuple[list[Finding], bool]]:
    """``groups`` (of :func:`alike_in_namespaces`) in their order, the single findings given
    at one place with one fix (a removed application's objects, each deleted) gathered into
    one group at the first's place: (the group, True) for those, (the group as it was,
    False) for the rest. Infos two or more; errors and warnings :data:`AT_ONE_PLACE` or more
    (new-user trial seventy-six W1: one ApplicationSet typo's 15 deletions, 15 entries with
    one place and one fix), fewer each an entry of its own."""
    out: list[tuple[list[Finding], bool]] = []
    by_key: dict[tuple[Any, ...], list[Finding]] = {}
    for group in groups:
        f = group[0]
        if len(group) > 1 or f.others or not f.file:
            out.append((group, False))
            continue
        key = (f.rule, f.kind, f.severity, f.file, f.line, f.fix, f.new, f.worse)
        if (same := by_key.get(key)) is not None:
            same.append(f)
            continue
        by_key[key] = [f]
        out.append((by_key[key], True))
    placed: list[tuple[list[Finding], bool]] = []
    for group, one_place in out:
        enough = len(group) > 1 if group[0].severity == "info" else len(group) >= AT_ONE_PLACE
        if one_place and not enough and len(group) > 1:
            placed += [([f], False) for f in group]  # (each its own entry, as before)
        else:
            placed.append((group, one_place and enough))
    return placed


AT_ONE_PLACE = 3  # errors or warnings of one place and one fix said in one entry


def place_entry(findings: Sequence[Finding], links: Links | None = None,
                with_new: bool = False) -> str:
    """The findings of one place and one fix (:func:`infos_at_one_place`) as one entry: the
    rule, how many objects, the place and the fix once, each finding's message below it."""
    f = findings[0]
    rule = md_code(f.check, False)
    doc = links.rule(f.rule) if links is not None else None
    head = [f"**[{rule}]({doc})**" if doc else f"**{rule}**",
            md_text(plural(len({g.object for g in findings}), "object"))]
    where = md_code(_where(f), False)
    if links is not None:
        where = f"[{where}]({links.line(f.file, f.line)})"
    head.append(where)
    if with_new or f.worse:
        head.insert(0, _label(f, "*{}*"))
    text = f"<br>**Fix:** {md_prose(f.fix)}" if f.fix else ""
    return "- " + " · ".join(head) + text + "".join(
        f"\n  - {md_text(g.message)}" for g in findings)


def alike_in_namespaces(findings: Sequence[Finding]) -> list[list[Finding]]:
    """``findings`` in their order, those that differ only in their object's namespace (the
    same rule, check, severity, place, field, fix and status, field and fix but for each
    one's own namespace (:func:`~reviewbot.report.base.without_namespace`); one kind and
    name; messages that differ in at most MAX_WORDS_APART words, the namespaces and what is
    named after them) gathered into one group at the first's place: a file that three Argo CD
    Applications apply into three namespaces, with one selector change, is one entry; one
    base line's egress rule two overlays build into staging and prod, one entry whose
    message and fix name `shop-{prod, staging}/redis`."""
    groups: list[list[Finding]] = []
    by_key: dict[tuple[Any, ...], list[list[Finding]]] = {}
    for f in findings:
        parts = f.object.split("/")
        key = None
        if len(parts) == 3 and not f.object.startswith(VALUES_PREFIX):
            key = (f.rule, f.kind, f.severity, f.file, f.line, f.column, f.new, f.worse,
                   parts[0], tuple((o.file, o.line) for o in f.others))
        group = next((g for g in by_key.get(key, ()) if _joins(g, f)), None) if key else None
        if group is not None:
            group.append(f)
            continue
        groups.append([f])
        if key is not None:
            by_key.setdefault(key, []).append(groups[-1])
    return groups


def _joins(group: Sequence[Finding], f: Finding) -> bool:
    """Whether ``f`` is said with ``group`` (:func:`alike_in_namespaces`): its object the
    first's in another namespace, or as another build names it (a ``namePrefix``: new-user
    trial seventy-four W1 read one base line's DNS finding in three entries, one per
    overlay), its field, fix and other places' objects alike, its message in few words
    apart."""
    first = group[0]
    return renamed_alike(first, f, lambda g: g.path, lambda g: g.fix) and all(
        a.object == b.object or renamed(a, b) is not None
        for a, b in zip(first.others, f.others, strict=True)) and (
        merged_message([g.message for g in group] + [f.message]) is not None
        or renamed_alike(first, f, lambda g: g.message))


def merged_message(messages: Sequence[str]) -> str | None:
    """One message for ``messages`` that differ in a few words (at most MAX_WORDS_APART):
    each such word written once with its differing part listed in the messages' order,
    "Deployment {default, demo1}/web: ... Application argocd/{demo, demo-app1} fails";
    None when they differ in more, or in their spacing."""
    split = [re.split(r"(\s+)", m) for m in messages]
    if any(len(words) != len(split[0]) for words in split):
        return None
    out: list[str] = []
    apart = 0
    for words in zip(*split, strict=True):
        if all(w == words[0] for w in words):
            out.append(words[0])
            continue
        apart += 1
        if apart > MAX_WORDS_APART or not words[0].strip():
            return None
        out.append(_variants(words))
    return "".join(out)


def _variants(words: Sequence[str]) -> str:
    """Words that differ, as one: the common start up to a ``/`` (or the brackets and
    quotes it opens with) and the common end from a ``/`` (or the possessive and the
    punctuation it ends with) kept, the parts between listed in braces ("({gpu-east-1,
    gpu-west-1}'s": trial seventy-three read "{(gpu-east-1's, (gpu-west-1's}")."""
    start = os.path.commonprefix(list(words))
    slash = start.rfind("/")
    start = start[:slash + 1] if slash >= 0 else start[:len(start) - len(start.lstrip("([\"'"))]
    rest = [w[len(start):] for w in words]
    end = os.path.commonprefix([w[::-1] for w in rest])[::-1]
    slash = end.find("/")
    if slash >= 0:
        end = end[slash:]
    else:
        tail = end[len(end.rstrip(":,.;)")):]
        end = ("'s" + tail) if end[:len(end) - len(tail)].endswith("'s") else tail
    middles = list(dict.fromkeys(w[:len(w) - len(end)] if end else w for w in rest))
    return f"{start}{{{', '.join(middles)}}}{end}"


def _header(findings: Sequence[Finding]) -> str:
    counts = ", ".join(
        plural(n, s) for s, n in
        ((s, sum(1 for f in findings if f.severity == s)) for s, _ in _SEVERITIES) if n
    )
    title = f"## reviewbot: {plural(len(findings), 'finding')}"
    return f"{title}\n\n{counts or 'Nothing to report.'}\n"


def verdict(findings: Sequence[Finding]) -> str:
    """The summary's first line: what the reviewer has to do, from the new findings and those
    the pull request makes worse ("2 errors to fix before merging", "No new errors: 1 new
    warning to look at", "No new problems"); existing findings never change it. Infos are
    called so, as the text output and the severity call them (a new-user trial read
    "notes", then "Info")."""
    counts = {s: sum(1 for f in findings if (f.new or f.worse) and f.severity == s)
              for s, _ in _SEVERITIES}
    errors, warnings, notes = counts["error"], counts["warning"], counts["info"]
    if errors:
        rest = [plural(n, w) for n, w in ((warnings, "warning"), (notes, "info")) if n]
        return (f"{plural(errors, 'error')} to fix before merging"
                + (f" (and {' and '.join(rest)})" if rest else ""))
    if warnings:
        return (f"No new errors: {plural(warnings, 'new warning')}"
                + (f" and {plural(notes, 'info')}" if notes else "") + " to look at")
    if notes:
        return f"No new errors: {plural(notes, 'new info')}"
    return "No new problems"


def _review_header(findings: Sequence[Finding], review: ReviewSummary) -> str:
    """The verdict, then one line: what is new, what is fixed, what is already there."""
    counts = [plural(n, word) for n, word in (
        (sum(1 for f in findings if f.new and f.severity == s), w)
        for s, w in (("error", "error"), ("warning", "warning"), ("info", "info"))) if n]
    parts = [f"{plural(review.new, 'new finding')}"
             + (f" ({', '.join(counts)})" if counts else "")]
    worse = sum(1 for f in findings if f.worse)
    if worse:
        parts.append(f"{worse} made worse")
    if review.fixed:
        parts.append(f"{len(review.fixed)} fixed")
    if review.existing:
        shown = sum(1 for f in findings if not f.new and not f.worse)
        scope = md_code(review.scope or "new", False)
        parts.append(f"{plural(review.existing, 'finding')} already on the base branch"
                     + existing_said(review.existing, shown, scope, "below"))
    if review.connectivity:
        parts.append(connectivity_counts(review))
    head = f"## {verdict(findings)}\n\n" + " · ".join(parts) + ".\n"
    return head + unapplied_paragraph(review.unapplied, "review judges")


def unapplied_paragraph(unapplied: Sequence[Unapplied], doing: str) -> str:
    """The changed files no cluster receives, said under the verdict so that the silence on
    them is not read as approval: how many, the first folders with why, the lint command."""
    said = UnappliedSaid.of(unapplied)
    if said is None:
        return ""
    named = [f"{md_code(u.path, False)} ({plural(u.files, 'file')}: {md_text(u.reason)})"
             for u in said.shown]
    if said.more():
        named.append(said.more())
    return (f"\n**{said.headline(doing)}:** {', '.join(named)}. To lint {said.them} as written: "
            f"{md_code(said.lint_command(), False)}.\n")


def _compared(review: ReviewSummary) -> str:
    """The last line: what was compared with what, and where the rules came from."""
    sides = [f"head {md_code(review.head[:12], False)}" if review.head else "the work tree"]
    if review.base:
        base_ref = review.base_ref
        label = f" (merge base with {md_code(base_ref, False)})" if base_ref and not re.fullmatch(
            r"[0-9a-f]{40}|[0-9a-f]{64}", base_ref) else " (merge base)"
        sides.append(f"base {md_code(review.base[:12], False)}{label}")
    ignores = "; the ignores it adds are listed above" if review.ignores else ""
    return ("<sub>reviewbot compared " + " with ".join(sides) + ". Rules and options come from "
            f"{_config_source(review.config)}, so a pull request cannot switch them off for "
            f"itself{ignores}.</sub>")


def _fixed_section(builder: _Builder, fixed: Sequence[Finding]) -> None:
    """The findings of the base branch this pull request fixes: rule, object, and where
    they were on the base (no link: the line may be gone at the head)."""
    if not fixed:
        return
    entries: list[str] = []
    for f in fixed:
        what = [md_code(f.check, False)] + (
            [_object(f.object, f.file)] if f.object else [])
        also = also_at(f)
        entries.append(f"- {' · '.join(what)}, was at {md_code(_where(f), False)}"
                       + (f"; {also[0].lower()}{also[1:]}" if also else ""))
    counted = Counter(entries)  # (one per line a reader tells apart: the same finding fixed
    # in two clusters, its messages differing in what each says, is one; so are one
    # policy's findings for five destinations, counted, as the count line counts them)
    shown = [e if counted[e] == 1 else f"{e} ({counted[e]} findings)" for e in counted]
    lines = [f"### Fixed by this pull request ({len(fixed)})", "", *shown]
    builder.add("\n".join(lines) + "\n")


def _ignores_section(builder: _Builder, ignores: Sequence[Ignore]) -> None:
    """The ignore annotations and comments the pull request adds: they silence its own
    findings, so the reviewer reads them as findings."""
    if not ignores:
        return
    lines = [f"### Ignores added by this pull request ({len(ignores)})", "",
             "Each silences its rules' findings on its object or line, in this review too "
             "(those findings are not shown):", ""]
    for i in ignores:
        what = ", ".join(md_code(r, False) for r in i.rules)
        on = f" on {_object(i.object, i.file)}" if i.object else " (comment)"
        why = f"reason: {md_text(i.reason)}" if i.reason else "**no reason given**"
        lines.append(f"- {what}{on} at {md_code(f'{i.file}:{i.line}', False)}: {why}")
    builder.add("\n".join(lines) + "\n")


def _object(ref: str, file: str = "") -> str:
    """An object as a reviewer knows it: ``Kind/ns/name``; a values file a Helm chart is
    given (reviewbot's ``HelmValues`` objects, in ``file``) is "Helm values file <path>"."""
    words, name = object_words(ref, file)
    return (f"{words} " if words else "") + md_code(name, False)


# ---------------------------------------------------------------- connectivity


_EVERYWHERE = "0.0.0.0-255.255.255.255"


def _peer(name: str) -> str:
    """A peer as a reviewer names it: ``ns/name`` (a code span), "outside the cluster",
    "the ingress controller"."""
    match = re.fullmatch(r"(.*)\[(\w+)\]", name)
    if match and match.group(2) == "External":
        ranges = match.group(1)
        return "outside the cluster" if ranges == _EVERYWHERE else (
            f"outside the cluster ({md_text(ranges)})")
    if name == "{ingress-controller}":
        return "the ingress controller"
    return md_code(match.group(1) if match else name, False)


def _conns(text: str, escape: Callable[[str], str] = md_text) -> str:
    if text == "No Connections":
        return "denied"
    if text == "All Connections":
        return "all ports"
    return escape(text)


def _flow_change(c: FlowChange, escape: Callable[[str], str] = md_text,
                 arrow: str = "→") -> str:
    """What changed on one flow: "opened (all ports)", "closed (was TCP 8080)", "TCP 8080 ->
    all ports" (``escape``: how the text is made safe for the output; the text report's
    is the terminal's)."""
    if c.diff_type == "added" or c.ref1 == "No Connections":
        return f"opened ({_conns(c.ref2, escape)})"
    if c.diff_type == "removed" or c.ref2 == "No Connections":
        return f"closed (was {_conns(c.ref1, escape)})"
    return f"{_conns(c.ref1, escape)} {arrow} {_conns(c.ref2, escape)}"


def flow_lines(changes: Sequence[FlowChange], escape: Callable[[str], str],
               limit: int = 20) -> list[str]:
    """The changed flows as the text report lists them, closed first, at most ``limit``
    ("webui/web[Deployment] -> db/postgres[StatefulSet]: closed (was TCP 5432)"), then how
    many more (the Markdown summary lists them all)."""
    ordered = _closed_first(changes)
    out = [f"  {escape(c.source)} -> {escape(c.destination)}: "
           f"{_flow_change(c, escape, '->')}"
           + (f"  (cluster {escape(c.cluster)})" if c.cluster else "") for c in ordered[:limit]]
    if len(ordered) > limit:
        out.append(f"  and {len(ordered) - limit} more (--format markdown lists every flow)")
    return out


def _external(name: str) -> bool:
    return name.endswith("[External]") or name == "{ingress-controller}"


def connectivity_counts(review: ReviewSummary) -> str:
    """``connectivity: `` and :func:`flow_counts` of the review's flows; ``connectivity once
    the head builds: `` when every change that makes them is in a head build kustomize
    refuses (the note that says so)."""
    from reviewbot.netpol.diff import WAITING

    waits = any(note.startswith(WAITING) for note in review.connectivity_notes)
    return (f"connectivity{' once the head builds' if waits else ''}: "
            + flow_counts(review.connectivity))


def flow_counts(changes: Sequence[FlowChange]) -> str:
    """"1 closed, 2 opened flows"; a flow of a workload the PR removes is counted apart ("3
    opened flows, 12 gone with a removed workload"): no policy closed it, its end is gone. A
    new workload's flows are opened: what it may reach is for the reviewer to judge."""
    from reviewbot.netpol.diff import summarize

    gone = _moved(changes)[0]
    out: list[FlowChange] = []
    staying: list[FlowChange] = []
    for c in changes:
        (out if c.diff_type == "removed" and _ends(c) & gone else staying).append(c)
    counts = summarize(staying)
    said = [f"{counts['removed']} closed", f"{counts['changed']} changed",
            f"{counts['added']} opened"]
    parts = [", ".join(part for part in said if not part.startswith("0 ")) + " flow" + (
        "s" if len(staying) != 1 else "")] if staying else []
    if out:
        owners = {e for c in out for e in _ends(c) & gone}
        whose = "a removed workload" if len(owners) == 1 else "removed workloads"
        count = str(len(out)) if parts else plural(len(out), "flow")
        parts.append(f"{count} gone with {whose}")
    return ", ".join(parts)


def connectivity_section(changes: Sequence[FlowChange], max_workloads: int = 12,
                         notes: Sequence[str] = (), touched: int = 0) -> str:
    """Who can now talk to whom, in words a reviewer knows: first the workloads whose flows
    changed while both ends stay (their own policies, labels or ports changed in this PR),
    then a workload renamed (one gone, one new with the same peers) as one line, then those
    gone and those new, each with its flows; every changed flow folded below (capped), and
    the graph when it is small enough to read. ``notes`` (Markdown): what the evaluation
    could not see, the first ``touched`` of them about objects this PR changed."""
    if not changes:
        return "### Connectivity\n\n" + _notes_block(notes, touched)
    from reviewbot.netpol.diff import REVIEW_ROWS, REVIEW_WORDS, render_mermaid

    entries: list[str] = []
    rows: list[str] = []
    # flows never cross two clusters: each cluster's are read apart, each line naming it
    for cluster in sorted({c.cluster for c in changes}):
        mine = [c for c in changes if c.cluster == cluster]
        where = f"in cluster {md_code(cluster, False)}: " if cluster else ""
        found, flows = _cluster_lines(mine)
        entries += ["- " + where + e[2:] for e in found]
        rows += ["- " + where + r[2:] for r in flows]
    lines = [f"### Connectivity ({flow_counts(changes)})", "", *entries[:max_workloads]]
    if len(entries) > max_workloads:
        lines.append(f"- and {len(entries) - max_workloads} more workloads (every flow below)")
    shown = rows[:REVIEW_ROWS]
    more = f"\n- ... and {len(rows) - len(shown)} more" if len(rows) > len(shown) else ""
    lines += ["", f"<details><summary>Every changed flow ({len(rows)})</summary>", "",
              *shown]
    text = "\n".join(lines) + more + "\n\n</details>\n"
    text += "\n" + _notes_block(notes, touched) if notes else ""
    if len(changes) <= 12:  # a graph of more edges is not read, only scrolled
        graph = render_mermaid(_plain_flows(changes), words=REVIEW_WORDS)
        text += "\n```mermaid\n" + graph + "```\n"
    return text


def _cluster_lines(changes: Sequence[FlowChange]) -> tuple[list[str], list[str]]:
    """The changed flows of one cluster: one entry per workload (:func:`connectivity_section`)
    and one row per flow, closed first."""
    gone, new = _moved(changes)
    staying = [c for c in changes if not _ends(c) & (gone | new)]
    entries = _staying_entries(staying)
    ends = _moved_ends(changes, gone | new)
    renames = _renames(gone, new, ends)
    for old, now in renames:
        entries.append(_rename_entry(old, now, ends[old], ends[now]))
    renamed = {p for pair in renames for p in pair}
    for peer in sorted(gone - renamed):
        entries.append(f"- {_peer(peer)}: gone in this PR; "
                       f"{_workload_sentence(peer, _flows_of(ends[peer], 'removed'), set())}")
    for peer in sorted(new - renamed):
        flows = _flows_of(ends[peer], "added")
        entries.append(f"- {_peer(peer)}: {_workload_sentence(peer, flows, new)}")
    ordered = sorted(_closed_first(changes), key=lambda c: bool(_ends(c) & (gone | new)))
    rows = [f"- {_peer(c.source)} → {_peer(c.destination)}: {_flow_change(c)}" for c in ordered]
    return entries, rows


FOLDED_NOTES = 3  # more "not evaluated" notes than this are one collapsed list


def _notes_block(notes: Sequence[str], touched: int) -> str:
    """What the evaluation could not see: a list, folded when long (those about objects the
    PR changed first, marked, and counted in the fold's title)."""
    items = [f"- {n}" + (" (changed in this PR)" if i < touched else "")
             for i, n in enumerate(notes)]
    if len(items) <= FOLDED_NOTES:
        return "".join(item + "\n" for item in items)
    title = (f"What the connectivity does not evaluate ({len(items)}, "
             + (f"{touched} about objects this PR changed)" if touched
                else "none about an object this PR changed)"))
    return (f"<details><summary>{title}</summary>\n\n" + "\n".join(items)
            + "\n\n</details>\n")


def _notes_changed_first(notes: Sequence[str], diff: Sequence[Mapping[str, Any]]
                         ) -> tuple[list[str], int]:
    """The notes about objects the PR changed first ("not evaluated: Kind/ns/name: why"),
    and how many those are."""
    changed = {str(e.get("object")) for e in diff}

    def about(note: str) -> str:
        return note.split(": ", 2)[1] if note.count(": ") >= 2 else ""

    first = [n for n in notes if about(n) in changed]
    return first + [n for n in notes if about(n) not in changed], len(first)


def _ends(c: FlowChange) -> set[str]:
    return {c.source, c.destination}


def _moved(changes: Sequence[FlowChange]) -> tuple[set[str], set[str]]:
    """The workloads on one side only (the flows' ``workloads-diff-info``): gone, new."""
    gone: set[str] = set()
    new: set[str] = set()
    for c in changes:
        match = re.fullmatch(r"workload (.+) (added|removed)", c.info)
        if match:
            named = set(match.group(1).split(" and ")) & _ends(c)
            (new if match.group(2) == "added" else gone).update(named)
    return gone, new


# a moved workload's flows: (into it, out of it), each other end -> its connections
Ends = tuple[dict[str, str], dict[str, str]]


def _moved_ends(changes: Sequence[FlowChange], moved: set[str]) -> dict[str, Ends]:
    """Each moved workload's flows, a flow between two moved ones in both (a CronJob removed
    with the Redis it alone called had no entry: the summary failed, new-user trial
    twenty-one)."""
    out: dict[str, Ends] = {}
    for c in changes:
        conns = c.ref2 if c.diff_type == "added" else c.ref1
        if c.destination in moved:
            out.setdefault(c.destination, ({}, {}))[0][c.source] = conns
        if c.source in moved:
            out.setdefault(c.source, ({}, {}))[1][c.destination] = conns
    return out


def _renames(gone: set[str], new: set[str], ends: Mapping[str, Ends]) -> list[tuple[str, str]]:
    """A gone workload and a new one of its namespace that share at least half of their
    peers (greedy, the best pairs first): a rename as the flows show it."""
    def peers(name: str) -> set[tuple[str, str]]:
        into, out = ends.get(name, ({}, {}))
        return {("in", p) for p in into} | {("out", p) for p in out}

    scored = []
    for old in gone:
        for now in new:
            if old.split("/", 1)[0] != now.split("/", 1)[0]:
                continue
            a, b = peers(old), peers(now)
            share = len(a & b) / max(len(a), len(b), 1)
            if share >= 0.5:
                scored.append((-share, old, now))
    pairs: list[tuple[str, str]] = []
    for _, old, now in sorted(scored):
        if all(old != o and now != n for o, n in pairs):
            pairs.append((old, now))
    return sorted(pairs)


def _flows_of(ends: Ends, kind: str) -> dict[str, list[str]]:
    """A moved workload's flows (all ``kind``: removed when it is gone, added when new) as
    :func:`_workload_sentence` reads them."""
    into, out = ends
    return {key: [f"{_peer(p)} ({_conns(conns)})" for p, conns in sorted(side.items())]
            for key, side in ((f"from-{kind}", into), (f"to-{kind}", out)) if side}


def _rename_entry(old: str, now: str, before: Ends, after: Ends) -> str:
    """One line for a rename: who reaches the new name as they reached the old one, who no
    longer does, who newly does, and the flows it accounts for."""
    said: list[str] = []
    for side, was, is_ in (("in", before[0], after[0]), ("out", before[1], after[1])):
        same = [p for p in was if is_.get(p) == was[p]]
        gone = sorted(p for p in was if p not in is_)
        lost = _listed(gone)
        gained = _listed(sorted(p for p in is_ if p not in was))
        ports = _listed([f"{p} ({_conns(was[p])} → {_conns(is_[p])})"
                         for p in sorted(was) if p in is_ and is_[p] != was[p]], raw=True)
        outside = bool(same) and all(_external(p) for p in same)  # (no workload to name:
        # new-user trial thirty-three read "the outside the cluster that reached it")
        if side == "in":
            said += [("outside the cluster reaches the new name alike" if outside else
                      f"the {_many(same)} that reached it reach the new name alike")
                     if same else "",
                     f"{lost} no longer reach{'es' if len(gone) == 1 else ''} it" if lost else "",
                     f"{gained} can now reach it" if gained else "",
                     f"reached on other ports from {ports}" if ports else ""]
        else:
            said += [("it reaches outside the cluster alike" if outside else
                      f"it reaches the same {_many(same)}") if same else "",
                     f"it no longer reaches {lost}" if lost else "",
                     f"it can now reach {gained}" if gained else "",
                     f"it reaches on other ports {ports}" if ports else ""]
    closed = len(before[0]) + len(before[1])
    opened = len(after[0]) + len(after[1])
    return (f"- {_peer(old)} is now {_peer(now)} (renamed, as its flows show): "
            + "; ".join(part for part in said if part)
            + f" ({plural(closed, 'flow')} closed, {opened} opened)")


def _many(peers: Sequence[str]) -> str:
    """"54 workloads and outside the cluster", "1 workload"."""
    inside = [p for p in peers if not _external(p)]
    outside = len(inside) < len(peers)
    if not inside:
        return "outside the cluster"
    return plural(len(inside), "workload") + (" and outside the cluster" if outside else "")


def _listed(peers: Sequence[str], raw: bool = False) -> str:
    """Up to four peers by name (``raw``: already words), then how many more."""
    named = [p if raw else _peer(p) for p in peers[:4]]
    return ", ".join(named) + (f" and {len(peers) - 4} more" if len(peers) > 4 else "")


def _staying_entries(changes: Sequence[FlowChange]) -> list[str]:
    """Flows whose both ends are on both sides: each under the end that has more of them
    (the workload whose own policy, labels or ports changed), what breaks first."""
    count: dict[str, int] = {}
    for c in changes:
        for end in _ends(c):
            count[end] = count.get(end, 0) + 1
    per: dict[str, dict[str, list[str]]] = {}
    for c in changes:
        src_first = _external(c.destination) or (
            not _external(c.source) and count[c.source] >= count[c.destination])
        if src_first:
            subject, key, other = c.source, f"to-{c.diff_type}", c.destination
        else:
            subject, key, other = c.destination, f"from-{c.diff_type}", c.source
        entry = per.setdefault(subject, {})
        if c.diff_type == "changed":
            entry.setdefault(key, []).append(
                f"{_peer(other)} ({_conns(c.ref1)} → {_conns(c.ref2)})")
        else:
            entry.setdefault(key, []).append(
                f"{_peer(other)} ({_conns(c.ref2 if c.diff_type == 'added' else c.ref1)})")
    order = sorted(per, key=lambda w: ("to-removed" not in per[w] and "from-removed" not in per[w],
                                       w))
    return [f"- {_peer(w)}: {_workload_sentence(w, per[w], set())}" for w in order]


def _plain_flows(changes: Sequence[FlowChange]) -> list[FlowChange]:
    """The flows with the graph's labels in plain words (the graph escapes them itself)."""
    from reviewbot.netpol.diff import FlowChange

    def name(peer: str, cluster: str) -> str:
        plain = re.sub(r"`", "", _peer(peer)).replace("\\", "")
        return f"{cluster}: {plain}" if cluster else plain

    def conns(text: str) -> str:
        return _conns(text).replace("\\", "")

    return [FlowChange(c.diff_type, name(c.source, c.cluster), name(c.destination, c.cluster),
                       conns(c.ref1),
                       conns(c.ref2)) for c in _closed_first(changes)]


def _closed_first(changes: Sequence[FlowChange]) -> list[FlowChange]:
    order = ("removed", "changed", "added")
    return sorted(changes, key=lambda c: order.index(c.diff_type))


def _workload_sentence(subject: str, flows: Mapping[str, list[str]], added: set[str]) -> str:
    def listed(items: list[str]) -> str:
        return ", ".join(items[:4]) + (f" and {len(items) - 4} more" if len(items) > 4 else "")

    everything = "outside the cluster (all ports)"
    said: list[str] = []
    if subject in added:
        if everything in flows.get("to-added", []) and everything in flows.get("from-added", []):
            return ("new, not isolated: reaches and is reached by everything (no "
                    "NetworkPolicy restricts it)")
        said.append("new")
    phrases = (("to-removed", "no longer reaches"), ("from-removed", "no longer reached from"),
               ("to-changed", "reaches, changed:"), ("from-changed", "reached, changed:"),
               ("to-added", "can now reach"), ("from-added", "can now be reached from"))
    for key, words in phrases:
        if flows.get(key):
            said.append(f"{words} {listed(flows[key])}")
    return "; ".join(said)


def _config_source(config: ConfigReview) -> str:
    source = config.source or "the defaults"
    match = re.fullmatch(r"`([^`]+)` of the base branch", source)
    if match:
        return f"{md_code(match.group(1))} of the base branch"
    return md_text(source)


def _config_section(builder: _Builder, config: ConfigReview) -> None:
    changes, error = config.changes, config.error
    if not changes and not error:
        return
    lines = ["### Configuration changes in this pull request", "",
             "They take effect once merged; this review used the base branch's configuration.",
             ""]
    if error:
        lines.append(f"- the new configuration does not load: {md_text(error)}")
    for change in changes:
        lines.append(f"- {md_code(str(change.get('path')))}: {_config_change(change)}")
    builder.add("\n".join(lines) + "\n")


def _config_change(change: Mapping[str, Any]) -> str:
    op = change.get("op")
    if op == "removed" and "old" not in change:
        return "file removed"
    if op == "added":
        return f"added {md_code(_value(change.get('new')))}"
    if op == "removed":
        return f"removed (was {md_code(_value(change.get('old')))})"
    return f"{md_code(_value(change.get('old')))} → {md_code(_value(change.get('new')))}"


def _value(value: Any) -> str:
    import json
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 200 else text[:197] + "..."

