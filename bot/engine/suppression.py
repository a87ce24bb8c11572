"""Suppression: ``reviewbot.dev/ignore`` annotations and ``# reviewbot: ignore[...]``
comments, which findings they silence, and ``unused-suppression`` for those that silence
nothing (the engine's policy, never a rule's)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from reviewbot.engine.findings import Finding, Violation
from reviewbot.engine.outcome import Ignore
from reviewbot.engine.registry import all_rules
from reviewbot.load.loader import ignored_names
from reviewbot.model.objects import KObject, Model
from reviewbot.words import closest

IGNORE = "reviewbot.dev/ignore"
IGNORE_REASON = "reviewbot.dev/ignore-reason"
UNUSED = "unused-suppression"


@dataclass
class _Entry:
    """One ignore annotation or comment: the rules it names and which of them it silenced."""

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
            # the raw annotations first: the object's keys are text (``obj.annotations``
            # would convert every object's annotations to find the few that say it)
            meta = obj.body.get("metadata")
            notes = meta.get("annotations") if isinstance(meta, dict) else None
            if not isinstance(notes, dict) or IGNORE not in notes:
                continue
            value = obj.annotations.get(IGNORE)
            if value is not None:  # "" names no rule: reported, not silently nothing
                rules = ignored_names(str(value))
                line, _ = obj.position(("metadata", "annotations", IGNORE))
                entry = _Entry(rules, obj.annotations.get(IGNORE_REASON, ""), obj.file, line, obj)
                self.by_object[(obj.file, obj.ref)] = entry
                self.entries.append(entry)
        for lf in model.files.values():
            if lf.path in model.unapplied:
                continue  # nothing is reported there: its suppressions are not judged
            for line, (rules, reason, column) in lf.ignore_comments.items():
                entry = _Entry(rules, reason, lf.path, line, None, column)
                self.entries.append(entry)
                for target in (line, line + 1):
                    self.by_line.setdefault((lf.path, target), []).append(entry)

    def matches(self, finding: Finding) -> bool:
        hit = False
        named = (finding.rule, f"{finding.rule}[{finding.kind}]" if finding.kind else None)
        entry = self.by_object.get((finding.file, finding.object))
        if entry is not None:
            for name in named:
                if name in entry.rules:
                    entry.used.add(name)
                    hit = True
        # a comment on the line of any place of the finding (its cause's other places: a
        # review may show it at one of them; new-user trial seventy-two D8, an ignore of
        # quota-surge on the Deployment's maxSurge, where the review showed it, "matches no
        # finding", the finding itself at the quota)
        for place in (finding, *finding.others):
            for entry in self.by_line.get((place.file, place.line), ()):
                for name in named:
                    if name in entry.rules:
                        entry.used.add(name)
                        hit = True
        return hit

    def unused(self, active: set[str]) -> Iterable[Violation]:
        for entry in self.entries:
            if not entry.rules:
                where = "annotation" if entry.obj is not None else "comment"
                message = (f"ignore {where} names no rule (write "
                           + ('reviewbot.dev/ignore: "rule-a,rule-b"' if entry.obj is not None
                              else "# reviewbot: ignore[rule-a,rule-b] reason") + ")")
                if entry.obj is not None:
                    yield Violation(entry.obj, ("metadata", "annotations", IGNORE), message)
                else:
                    yield Violation(None, (), message, file=entry.file, line=entry.line,
                                    column=entry.column, key=f"{entry.file}:{entry.line}:")
                continue
            for rule in entry.rules:
                base, _, check = rule.partition("[")
                check = check.rstrip("]")
                if rule in entry.used or (base in _known() and base not in active):
                    continue
                where = "annotation" if entry.obj is not None else "comment"
                checks = _checks().get(base, frozenset())
                if base in _known() and (not check or check in checks):
                    message = f"ignore {where} for {rule} matches no finding"
                elif base in _known():  # (new-user trial eighty-nine D8: checks are named so)
                    close = closest(check, checks)
                    hint = f" (did you mean {base}[{close}]?)" if close else ""
                    message = f"ignore {where} names no known check of {base}{hint}"
                else:  # the name is not echoed: it may be text of a value (a Secret's)
                    close = closest(base, _known())
                    hint = f" (did you mean {close}?)" if close else ""
                    message = f"ignore {where} names no known rule{hint}"
                if entry.obj is not None:
                    yield Violation(entry.obj, ("metadata", "annotations", IGNORE), message)
                else:
                    yield Violation(None, (), message, file=entry.file, line=entry.line,
                                    column=entry.column, key=f"{entry.file}:{rule}")


def added(base: Model, head: Model) -> tuple[Ignore, ...]:
    """The ignore annotations and comments of ``head`` that ``base`` does not have (the same
    rules and reason on the same object, or in the same file: a line that moved is the same
    comment), in file and line order: what a pull request silences for itself."""
    def ignores(model: Model) -> list[Ignore]:
        return [Ignore(e.file, e.line, e.rules, e.reason, e.obj.ref if e.obj is not None else "")
                for e in Suppressions(model).entries if e.rules]

    def key(i: Ignore) -> tuple[str, str, tuple[str, ...], str]:
        return (i.object, "" if i.object else i.file, i.rules, i.reason)

    left = Counter(key(i) for i in ignores(base))
    out = []
    for ignore in sorted(ignores(head), key=lambda i: (i.file, i.line)):
        if left[key(ignore)] > 0:
            left[key(ignore)] -= 1
        else:
            out.append(ignore)
    return tuple(out)


def _known() -> frozenset[str]:
    return frozenset(r.id for r in all_rules())


def _checks() -> dict[str, frozenset[str]]:
    """Each rule's checks (the kinds of its findings, as the output names them)."""
    return {r.id: frozenset(r.severities) for r in all_rules()}
