"""Applying the mechanical fixes findings carry (``lint --fix``).

A rule's violation may carry :class:`~reviewbot.engine.findings.Edit` s beside its fix text.
The fixer writes them into the files' text with the round-trip editor (every other byte
kept), then lints the fixed tree again, in memory, with every rule: a fix is kept only when
its finding is gone and no finding appears that was not there before. When applying every
fix at once passes that test, that is the result; otherwise the fixes are tried one finding
at a time, in file order, and only those that pass are kept. So a fix that would, say,
overfill a node with GPUs is not written, and a second run finds nothing more to do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from reviewbot.config import Config
from reviewbot.engine.findings import Edit, Finding
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
        by_file.setdefault(e.file, []).append(Change(e.path, e.op, e.value, e.document))
    out: dict[str, str] = {}
    for file, changes in by_file.items():
        if file not in texts:
            raise RoundTripError(f"{file} is not in the linted tree")
        out[file] = apply_changes(texts[file], changes)
    return out


def fix_tree(
    tree: Tree, config: Config, result: Result, *, only: Sequence[str] = (),
    unsafe: bool = False,
) -> FixOutcome:
    """Plan, apply and verify the fixes of ``result`` (the lint of ``tree``)."""
    outcome = FixOutcome()
    wanted = [f for f in result.findings if not only or f.rule in only]
    outcome.unsafe_skipped = [f for f in wanted if f.edits and not usable_edits(f, unsafe)]
    candidates = [f for f in wanted if usable_edits(f, unsafe)]
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
        return changed, fixed_tree, analyze(fixed_tree, config)

    def passes(found: Result, targets: Iterable[Finding]) -> bool:
        after = {f.identity for f in found.findings}
        return after <= before and not any(t.identity in after for t in targets)

    kept: list[Finding] = []
    every = [e for f in candidates for e in usable_edits(f, unsafe)]
    tried = attempt(every)
    if tried is not None and passes(tried[2], candidates):
        changed, fixed_tree, found = tried
        kept = list(candidates)
    else:
        accepted: list[Edit] = []
        changed, fixed_tree, found = {}, tree, baseline
        for f in candidates:
            step = attempt(accepted + list(usable_edits(f, unsafe)))
            if step is None or not passes(step[2], [*kept, f]):
                continue
            accepted += usable_edits(f, unsafe)
            kept.append(f)
            changed, fixed_tree, found = step
    remaining = {g.identity for g in found.findings}
    outcome.fixed = [f for f in kept if f.identity not in remaining]
    outcome.texts = changed
    outcome.originals = {p: texts[p] for p in changed}
    outcome.tree = fixed_tree
    outcome.result = found
    return outcome


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
    return Tree(tree.root, tuple(files), tree.paths, tree.skipped)
