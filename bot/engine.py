"""The engine: load a tree, build the model, run the rules, apply policy.

Policy is the engine's, never a rule's: which rules run, severity overrides, suppression by
annotation or comment (and `unused-suppression` when one matches nothing).
"""

from __future__ import annotations

import marshal
import multiprocessing
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .cache import freeze, thaw
from .config import Config
from .errors import ReviewbotError
from .findings import Finding, Violation, format_path, sort_key
from .loader import LoadedFile, load
from .model import KObject, Model, build_model
from .registry import Rule, all_rules
from .sources import FileRecord, Skipped, Tree
from .values import configure as configure_values

IGNORE = "reviewbot.dev/ignore"
IGNORE_REASON = "reviewbot.dev/ignore-reason"
UNUSED = "unused-suppression"


@dataclass
class Result:
    findings: list[Finding]
    model: Model
    suppressed: int = 0
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def skipped(self) -> list[Skipped]:
        return self.model.skipped


PARALLEL_MIN_BYTES = 4 * 1024 * 1024  # below this, starting a worker costs more than it saves


def load_files(tree: Tree, config: Config, loader: Any = None) -> list[LoadedFile]:
    """Parse every YAML file of ``tree`` (through ``loader`` when given, e.g. a cache).

    Large trees are shared with forked workers (one per extra core) while this process parses
    its own share; workers send plain data back as one ``marshal`` blob each (measured on a
    10k-object tree: parsing 1.5 s, unmarshalling the result 0.3 s per half).
    """
    records = [r for r in tree.files if not config.excluded(r.path)]
    if loader is not None:
        return [loader(r) for r in records]
    workers = min(os.cpu_count() or 1, 8) - 1
    if workers < 1 or sum(len(r.data) for r in records) < PARALLEL_MIN_BYTES:
        return [load(r) for r in records]
    shares = [records[i :: workers + 1] for i in range(workers + 1)]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = [pool.submit(_parse_share, share) for share in shares[1:]]
        by_path = {r.path: load(r) for r in shares[0]}
        for share, future in zip(shares[1:], futures, strict=True):
            for record, raw in zip(share, marshal.loads(future.result()), strict=True):
                by_path[record.path] = thaw(record, raw)
    return [by_path[r.path] for r in records]


def _parse_share(records: list[FileRecord]) -> bytes:
    return marshal.dumps([freeze(load(r)) for r in records])


def load_model(tree: Tree, config: Config, loader: Any = None) -> Model:
    """Parse ``tree`` and build its model with the config's inventory and values settings."""
    model = build_model(load_files(tree, config, loader), config.inventory, str(tree.root), tree)
    configure_values(model, config.section("measured"), list(config.raw.get("values-files") or ()))
    return model


def analyze(
    tree: Tree, config: Config, *, only: Sequence[str] = (), loader: Any = None
) -> Result:
    return run_rules(load_model(tree, config, loader), config, only=only)


def enabled_rules(config: Config, only: Sequence[str] = ()) -> list[Rule]:
    rules = [r for r in all_rules() if config.settings(r).enabled]
    if only:
        unknown = set(only) - {r.id for r in all_rules()}
        if unknown:
            raise ReviewbotError(f"unknown rule(s): {', '.join(sorted(unknown))}")
        rules = [r for r in rules if r.id in only]
    return rules


def run_rules(model: Model, config: Config, *, only: Sequence[str] = ()) -> Result:
    rules = enabled_rules(config, only)
    raw: list[Finding] = []
    for rule in rules:
        if rule.id == UNUSED:
            continue
        settings = config.settings(rule)
        for violation in _violations(rule, model, settings.options):
            raw.append(_finding(rule, violation, settings.severity))
    suppressions = Suppressions(model)
    kept = [f for f in raw if not suppressions.matches(f)]
    result = Result(kept, model, suppressed=len(raw) - len(kept))
    unused = next((r for r in rules if r.id == UNUSED), None)
    if unused is not None:
        settings = config.settings(unused)
        active = {r.id for r in rules}
        for violation in suppressions.unused(active):
            result.findings.append(_finding(unused, violation, settings.severity))
    result.findings.sort(key=sort_key)
    result.stats = {
        "files": len(model.files), "objects": len(model.objects), "rules": len(rules),
    }
    result.stats.update(model.notes)
    return result


def _violations(rule: Rule, model: Model, options: Any) -> Iterable[Violation]:
    if rule.check_set is not None:
        yield from rule.check_set(model, options)
    if rule.check is not None:
        kinds = set(rule.kinds)
        for obj in model.objects:
            if "*" in kinds or obj.kind in kinds:
                yield from rule.check(obj, options)


def _finding(rule: Rule, v: Violation, severity: str | None) -> Finding:
    if v.obj is not None:
        line, column = v.obj.position(v.path)
        file = v.obj.file
        ref = v.obj.ref
    else:
        line, column, file, ref = v.line or 1, v.column or 1, v.file or "", ""
    if v.line is not None and v.obj is not None:
        line, column = v.line, v.column or 1
    return Finding(
        rule=rule.id, severity=severity or rule.severity_of(v.kind), file=file or "",
        line=line, column=column, object=ref, message=v.message, fix=v.fix or rule.fix,
        path=v.key or format_path(v.path),
    )


@dataclass
class _Entry:
    rules: tuple[str, ...]
    reason: str
    file: str
    line: int
    obj: KObject | None
    column: int = 1
    used: set[str] = field(default_factory=set)


class Suppressions:
    """Ignore annotations on objects and ``# reviewbot: ignore[rule] reason`` comments."""

    def __init__(self, model: Model) -> None:
        self.by_object: dict[tuple[str, str], _Entry] = {}
        self.by_line: dict[tuple[str, int], list[_Entry]] = {}
        self.entries: list[_Entry] = []
        for obj in model.objects:
            value = obj.annotations.get(IGNORE)
            if value:
                rules = tuple(r.strip() for r in value.split(",") if r.strip())
                line, _ = obj.position(("metadata", "annotations", IGNORE))
                entry = _Entry(rules, obj.annotations.get(IGNORE_REASON, ""), obj.file, line, obj)
                self.by_object[(obj.file, obj.ref)] = entry
                self.entries.append(entry)
        for lf in model.files.values():
            for line, (rules, reason, column) in lf.ignore_comments.items():
                entry = _Entry(rules, reason, lf.path, line, None, column)
                self.entries.append(entry)
                for target in (line, line + 1):
                    self.by_line.setdefault((lf.path, target), []).append(entry)

    def matches(self, finding: Finding) -> bool:
        hit = False
        entry = self.by_object.get((finding.file, finding.object))
        if entry is not None and finding.rule in entry.rules:
            entry.used.add(finding.rule)
            hit = True
        for entry in self.by_line.get((finding.file, finding.line), ()):
            if finding.rule in entry.rules:
                entry.used.add(finding.rule)
                hit = True
        return hit

    def unused(self, active: set[str]) -> Iterable[Violation]:
        for entry in self.entries:
            for rule in entry.rules:
                if rule in entry.used or (rule in _known() and rule not in active):
                    continue
                what = "names no known rule" if rule not in _known() else "matches no finding"
                where = "annotation" if entry.obj is not None else "comment"
                message = f"ignore {where} for {rule} {what}"
                if entry.obj is not None:
                    yield Violation(entry.obj, ("metadata", "annotations", IGNORE), message)
                else:
                    yield Violation(None, (), message, file=entry.file, line=entry.line,
                                    column=entry.column, key=f"{entry.file}:{rule}")


def _known() -> frozenset[str]:
    return frozenset(r.id for r in all_rules())
