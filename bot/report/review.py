"""The parts of a review's report that are not a format: change-safety verdicts marked on the
diff's entries, the lines the text output adds under the diff (the verdicts, the pull
request's own configuration changes, the changed files no cluster receives), and the inline
comments a forge is handed."""

from __future__ import annotations

import json
import posixpath
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reviewbot.engine.findings import Finding, severity_rank, sort_key
from reviewbot.engine.outcome import ReviewSummary, Unapplied
from reviewbot.escape import md_code, md_text, term
from reviewbot.report.base import UnappliedSaid, alike_runs, alike_said
from reviewbot.report.markdown import finding_comment, suggestion_block
from reviewbot.sources.tree import shown_path
from reviewbot.words import plural


def mark_verdicts(entries: Sequence[dict[str, Any]],
                  verdicts: Sequence[Finding]) -> tuple[dict[str, Any], ...]:
    """Each diff entry with ``change_safety``: the verdicts on its object (severity, kind of
    change, message, fix, file, line). A verdict on an object no entry names (one its
    kustomization no longer lists) goes to the entry of the kustomization file nearest it."""
    by_ref: dict[str, list[dict[str, Any]]] = {}
    for f in sorted(verdicts, key=sort_key):
        entry = next((e for e in entries if e["object"] == f.object), None)
        if entry is None:
            folders = [e for e in entries if e["kind"] == "Kustomization" and e["file"]
                       and f.file.startswith(posixpath.dirname(e["file"]) + "/")]
            entry = max(folders, key=lambda e: len(e["file"]), default=None)
        if entry is None:
            continue
        by_ref.setdefault(entry["object"], []).append({
            "severity": f.severity, "kind": f.kind or None, "message": f.message,
            "fix": f.fix, "file": f.file, "line": f.line, "object": f.object, "path": f.path,
        })
    return tuple({**e, "change_safety": by_ref.get(e["object"], [])} for e in entries)


def verdict_text(verdicts: Sequence[Finding]) -> str:
    """The change-safety verdicts under the text diff, one line each (terminal-safe)."""
    if not verdicts:
        return ""
    lines = ["", "what applying this change does (change-safety):"]
    for f in sorted(verdicts, key=sort_key):
        lines.append(term(f"  {f.severity:<7} {f.file}:{f.line}  {f.message}"))
    return "\n".join(lines) + "\n"


def config_note(review: ReviewSummary) -> str:
    """The PR's own configuration changes, for the text output (not applied)."""
    changes, error = review.config.changes, review.config.error
    if not changes and not error:
        return ""
    lines = ["", "configuration changed by this pull request (applies after merge; this review "
             "used the base branch's):"]
    if error:
        lines.append(f"  the new configuration does not load: {error}")
    for change in changes:
        old = json.dumps(change.get("old"), default=str) if "old" in change else ""
        new = json.dumps(change.get("new"), default=str) if "new" in change else ""
        lines.append(f"  {change.get('path')}: {change.get('op')} {old}"
                     f"{' -> ' if old and new else ''}{new}".rstrip())
    return "\n".join(term(line) for line in lines) + "\n"


def unapplied_note(unapplied: Sequence[Unapplied], doing: str) -> str:
    """The changed files no cluster receives, for the text output under the diff (``doing``:
    "review judges", "diff shows"): how many, the first folders with why, the lint command."""
    said = UnappliedSaid.of(unapplied)
    if said is None:
        return ""
    lines = ["", said.headline(doing) + ":"]
    lines += [f"  {u.path} ({plural(u.files, 'file')}): {u.reason}" for u in said.shown]
    if said.more():
        lines.append(f"  {said.more()}")
    lines.append(f"  to lint {said.them} as written: {said.lint_command()}")
    return "\n".join(term(line) for line in lines) + "\n"


@dataclass(frozen=True)
class InlineComment:
    """A comment a forge may post on one line (or span) of the head, or fold into the summary."""

    path: str  # repo-relative, '/' separators
    line: int  # 1-based line in the head file
    start_line: int | None  # first line of a multi-line span, or None
    body: str  # markdown, already escaped by the caller
    fingerprint: str  # stable id: sha of (rule, object, field path); embedded hidden
    # a comment placed on its suggestion's lines: the finding's own line and the body
    # without the suggestion, where those lines are not in the pull request's diff
    plain: tuple[int, str] | None = None
    # where it goes when neither is in the diff: the change that makes it, in another file
    # (Finding.anchor), with a body that says what it is about
    elsewhere: tuple[str, int, str] | None = None


def inline_comments(findings: Sequence[Finding],
                    platform: str = "github") -> tuple[InlineComment, ...]:
    """One inline comment candidate per new finding (or one the PR makes worse),
    fingerprinted by its stable key. A finding whose fix is a replacement of lines sits on
    those lines and offers it (GitHub: a suggestion block; Forgejo, which has none: the
    replacement as a diff block)."""
    out: list[tuple[Sequence[Finding], InlineComment]] = []
    shown = [f for f in findings if (f.new or f.worse) and f.file and f.line >= 1]
    for f, others in alike_runs(shown):
        fingerprint, alike = f.fingerprint, ""
        if others:  # one comment for one problem at one line (new-user trial eleven: one
            # images entry, three tag-moved comments alike); its id changes with the group
            alike = alike_said(f, others, md_text) + "."
            fingerprint = _group_fingerprint([f.fingerprint, *(o.fingerprint for o in others)])
        body, line, start = finding_comment(f, alike), f.line, None
        plain: tuple[int, str] | None = None
        about = (f"{md_code(f.object, False)} at " if f.object else "")  # (a file's own)
        elsewhere = None if f.anchor is None else (
            f.anchor[0], f.anchor[1], f"About {about}{md_code(shown_path(f.file), False)} "
            f"line {f.line}, which this change affects:\n\n{body}")
        s = f.suggestion
        if s is not None:
            plain = (line, body)
            body += "\n\n" + suggestion_block(s, platform)
            line, start = s.end_line, (s.start_line if s.start_line < s.end_line else None)
        out.append(([f, *others], InlineComment(f.file, line, start, body, fingerprint, plain,
                                                elsewhere)))
    return tuple(_one_per_line(out))


def _group_fingerprint(fingerprints: Sequence[str]) -> str:
    """The id of one comment standing for several findings: it changes with the group."""
    import hashlib  # (as engine.identity's fingerprint: only where one is made)

    return hashlib.sha256("\0".join(fingerprints).encode()).hexdigest()[:16]


def _one_per_line(comments: Sequence[tuple[Sequence[Finding], InlineComment]]
                  ) -> list[InlineComment]:
    """The comments of one rule at one line (each of its findings, with those alike it
    shows; those placed at the change that makes them, at its line), none offering a
    suggestion, as one comment, the most
    severe first (new-user trial twenty-four: the six objects a removed Kustomization's
    pruning deletes were six comments stacked on the removed line); its id changes with the
    group, as an alike group's."""
    def key(fs: Sequence[Finding], c: InlineComment) -> tuple[Any, ...] | None:
        if c.plain is not None:  # one suggestion the findings offer alike: one comment
            # offering it once (new-user trial fifty: each cluster's gpu-rollout finding at
            # one line, two comments with one suggestion)
            return (c.path, c.line, c.start_line, fs[0].rule, c.body[len(c.plain[1]):])
        if c.start_line is not None:
            return None
        # (one placed at the change that makes it goes there: its own file is unchanged)
        return (c.path, c.line, fs[0].rule) if c.elsewhere is None else (
            c.elsewhere[0], c.elsewhere[1], fs[0].rule)

    groups: dict[tuple[Any, ...], list[tuple[Sequence[Finding], InlineComment]]] = {}
    for fs, c in comments:
        if (k := key(fs, c)) is not None:
            groups.setdefault(k, []).append((fs, c))
    out: list[InlineComment] = []
    done: set[tuple[Any, ...]] = set()
    for fs, c in comments:
        at = key(fs, c)
        group = groups.get(at, []) if at is not None else []
        if at is None or len(group) < 2:
            out.append(c)
            continue
        if at in done:
            continue
        done.add(at)
        ordered = sorted(group, key=lambda fc: -severity_rank(fc[0][0].severity))
        counts = Counter(f.severity for members, _ in ordered for f in members)
        said = ", ".join(plural(n, sev) for sev, n in sorted(
            counts.items(), key=lambda kv: -severity_rank(kv[0])))
        head = (f"{sum(counts.values())} findings of {md_code(fs[0].rule, False)} at this "
                f"line ({said}):\n\n")
        fingerprint = _group_fingerprint([g.fingerprint for _, g in ordered])
        if c.plain is not None:  # (their bodies without the suggestion, it once after)
            plain = head + "\n\n---\n\n".join(
                g.plain[1] for _, g in ordered if g.plain is not None)
            out.append(InlineComment(c.path, c.line, c.start_line, plain + at[-1],
                                     fingerprint, (c.plain[0], plain)))
            continue
        body = head + "\n\n---\n\n".join(
            g.body if g.elsewhere is None else g.elsewhere[2] for _, g in ordered)
        out.append(InlineComment(at[0], at[1], None, body, fingerprint))
    return out
