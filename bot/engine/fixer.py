"""Applying the mechanical fixes findings carry (``lint --fix``).

A rule's violation may carry :class:`~reviewbot.engine.findings.Edit` s beside its fix text.
The fixer writes them into the files' text with the round-trip editor (every other byte
kept), then lints the fixed tree again, in memory, with every rule: a fix is kept only when
its finding is gone and no finding appears that was not there before. When applying every
fix at once passes that test, that is the result; otherwise each rule's fixes are tried
together, and one finding at a time where that fails, and only those that pass are kept.
So a fix that would, say, overfill a node with GPUs is not written, and a second run finds
nothing more to do.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from reviewbot.config import Config
from reviewbot.engine.findings import Edit, Finding, Suggestion
from reviewbot.engine.parse import Memo
from reviewbot.engine.run import Result, analyze
from reviewbot.load.roundtrip import Change, RoundTripError, apply_changes
from reviewbot.sources.tree import FileRecord, Tree, blob_id

BOM = b"\xef\xbb\xbf"


@dataclass
class FixOutcome:
    """What a fix run changed: the new text of each changed file, the findings fixed, the
    findings whose fix needs ``--unsafe-fixes``, and the lint of the fixed tree."""

    texts: dict[str, str] = field(default_factory=dict)
    originals: dict[str, str] = field(default_factory=dict)
    fixed: list[Finding] = field(default_factory=list)
    unsafe_skipped: list[Finding] = field(default_factory=list)
    result: Result | None = None
    tree: Tree | None = None


def usable_edits(finding: Finding, unsafe: bool) -> tuple[Edit, ...]:
    """The finding's edits when all of them may be applied (none unsafe unless allowed)."""
    if not finding.edits or (not unsafe and any(e.unsafe for e in finding.edits)):
        return ()
    return finding.edits


def apply_edits(texts: Mapping[str, str], edits: Iterable[Edit]) -> dict[str, str]:
    """New text of each file ``edits`` touch (identical edits once). Raises RoundTripError."""
    by_file: dict[str, list[Change]] = {}
    seen: set[str] = set()
    for e in edits:
        if e.key in seen:
            continue
        seen.add(e.key)
        by_file.setdefault(e.file, []).append(Change(e.path, e.op, e.value, e.document,
                                                     e.comment))
    out: dict[str, str] = {}
    for file, changes in by_file.items():
        if file not in texts:
            raise RoundTripError(f"{file} is not in the linted tree")
        out[file] = apply_changes(texts[file], changes)
    return out


def fix_tree(
    tree: Tree, config: Config, result: Result, *, only: Sequence[str] = (),
    unsafe: bool = False, pick: Callable[[Finding], bool] | None = None,
    max_tries: int | None = None, memo: Memo | None = None,
) -> FixOutcome:
    """Plan, apply and verify the fixes of ``result`` (the lint of ``tree``).

    ``pick`` chooses the findings to fix (default: all of ``only``'s rules); ``max_tries``
    bounds the one-by-one lints when fixing everything at once does not pass; ``memo``
    shares the parsed files the fixed tree did not change.
    """
    outcome = FixOutcome()
    wanted = [f for f in result.findings if (not only or f.rule in only)
              and (pick is None or pick(f))]
    outcome.unsafe_skipped = [f for f in wanted if f.edits and not usable_edits(f, unsafe)]
    broken = {p for p, lf in result.model.files.items() if lf.problems}
    candidates = [f for f in wanted if usable_edits(f, unsafe)
                  and not any(e.file in broken for e in f.edits)]
    if not candidates:
        outcome.result, outcome.tree = result, tree
        return outcome
    decoded = {r.path: _text(r) for r in tree.files}
    texts = {p: t for p, t in decoded.items() if t is not None}
    # the baseline is every rule's findings (a fix must add none of any rule)
    baseline = result if not only else analyze(tree, config)
    before = {f.identity for f in baseline.findings}

    def attempt(edits: list[Edit]) -> tuple[dict[str, str], Tree, Result] | None:
        try:
            changed = apply_edits(texts, edits)
        except RoundTripError:
            return None
        changed = {p: t for p, t in changed.items() if t != texts[p]}
        fixed_tree = _replace(tree, changed)
        return changed, fixed_tree, analyze(fixed_tree, config, memo=memo)

    def passes(found: Result, targets: Iterable[Finding]) -> bool:
        after = {f.identity for f in found.findings}
        return after <= before and not any(t.identity in after for t in targets)

    kept: list[Finding] = []
    every = [e for f in candidates for e in usable_edits(f, unsafe)]
    tried = attempt(every)
    if tried is not None and passes(tried[2], candidates):
        changed, fixed_tree, found = tried
        kept = list(candidates)
    else:  # one rule's fixes together, then one finding at a time where that fails
        accepted: list[Edit] = []
        state: list[Any] = [{}, tree, baseline]
        tries = [0]

        def add(group: Sequence[Finding]) -> bool:
            tries[0] += 1
            edits = [e for f in group for e in usable_edits(f, unsafe)]
            step = attempt(accepted + edits)
            if step is None or not passes(step[2], [*kept, *group]):
                return False
            accepted.extend(edits)
            kept.extend(group)
            state[:] = step
            return True

        by_rule: dict[str, list[Finding]] = {}
        for f in candidates:
            by_rule.setdefault(f.rule, []).append(f)
        for group in by_rule.values():
            if max_tries is not None and tries[0] >= max_tries:
                break
            if add(group) or len(group) == 1:
                continue
            for f in group:
                if max_tries is not None and tries[0] >= max_tries:
                    break
                add([f])
        changed, fixed_tree, found = state
    remaining = {g.identity for g in found.findings}
    outcome.fixed = [f for f in kept if f.identity not in remaining]
    outcome.texts = changed
    outcome.originals = {p: texts[p] for p in changed}
    outcome.tree = fixed_tree
    outcome.result = found
    return outcome


SUGGESTION_SPAN = 36  # the most lines one suggestion replaces


def suggestion(finding: Finding, texts: Mapping[str, str]) -> Suggestion | None:
    """The finding's fix as one replacement of lines of its own file, or None (edits in
    other files, several separate places, or edits that do not apply)."""
    if not finding.edits or any(e.file != finding.file or e.unsafe for e in finding.edits):
        return None
    text = texts.get(finding.file)
    if text is None:
        return None
    try:
        new = apply_edits(texts, finding.edits).get(finding.file, text)
    except RoundTripError:
        return None
    old_lines, new_lines = text.splitlines(), new.splitlines()
    changes = [op for op in difflib.SequenceMatcher(None, old_lines, new_lines,
                                                    autojunk=False).get_opcodes()
               if op[0] != "equal"]
    if not changes:
        return None
    i1, j1 = changes[0][1], changes[0][3]
    i2, j2 = changes[-1][2], changes[-1][4]
    if i1 == i2:  # a pure insertion: replace the line before it with itself and the new ones
        if i1 == 0:
            return None
        i1, j1 = i1 - 1, j1 - 1
    if i2 - i1 > SUGGESTION_SPAN:
        return None
    return Suggestion(finding.file, i1 + 1, i2, tuple(old_lines[i1:i2]),
                      tuple(new_lines[j1:j2]))


SUGGEST_MAX_OBJECTS = 5_000  # above this, checking the suggestions costs a lint too many


def with_suggestions(
    tree: Tree, config: Config, result: Result, findings: Sequence[Finding],
    pick: Callable[[Finding], bool], memo: Memo | None = None,
) -> list[Finding]:
    """``findings`` with ``suggestion`` set where ``pick`` chose the finding, its fix
    passes the fixer's check on ``tree`` (``result`` is its lint) and it is one replacement
    of lines of the finding's own file (never in a file that holds a Secret)."""
    wanted = {f.identity for f in findings if f.edits and pick(f)}
    if not wanted or len(result.model.objects) > SUGGEST_MAX_OBJECTS:
        return list(findings)
    outcome = fix_tree(tree, config, result, pick=lambda f: f.identity in wanted,
                       max_tries=10, memo=memo)
    secret_files = {o.file for o in result.model.objects if o.kind == "Secret"}
    texts = {p: lf.text for p, lf in result.model.files.items() if p not in secret_files}
    found: dict[tuple[str, str, str], Suggestion] = {}
    for f in outcome.fixed:
        s = suggestion(f, texts)
        if s is not None:
            found[f.identity] = s
    return [replace(f, suggestion=found[f.identity])
            if f.identity in found else f for f in findings]


def encode(original: bytes, text: str) -> bytes:
    """The bytes to write for ``text``, keeping a UTF-8 byte-order mark the file had."""
    data = text.encode("utf-8")
    return BOM + data if original.startswith(BOM) else data


def _text(record: FileRecord) -> str | None:
    data = record.data[3:] if record.data.startswith(BOM) else record.data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _replace(tree: Tree, texts: Mapping[str, str]) -> Tree:
    if not texts:
        return tree
    files = []
    for record in tree.files:
        text = texts.get(record.path)
        if text is None:
            files.append(record)
        else:
            data = encode(record.data, text)
            files.append(FileRecord(record.path, blob_id(data), data))
    return Tree(tree.root, tuple(files), tree.paths, tree.skipped, top=tree.top)
