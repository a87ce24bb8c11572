"""Findings of one cause, as a review shows them: one problem, one comment, blamed on the change.

A rule names the cause of a finding (``Violation.cause``: the node and resource that is
overcommitted, the destination and port no ingress rule admits) when several objects cause it
or several places show it, and gives the same problem as each of those objects sees it
(``Violation.others``). A review then:

1. *groups* the head's findings of one rule and one cause (in clusters that overlap) into one
   finding, **placed on the object the pull request added or changed** (a line it changed
   first, then an object it changed, then the rule's own choice), the other places listed
   (:attr:`Finding.others`): a pod added to a full node gets the comment, not an untouched
   pod beside it; the egress rule and the URL that one missing ingress rule breaks are one
   comment;
2. judges the group *new*, *worse* or *existing* as one (:func:`judge`): new when the base
   has no finding of its cause, or (a cause the rule cannot measure) when one of its places
   is new (a new caller of a destination nobody admits); *worse* when the rule measures it
   (:class:`Amount`) and it grew ("worse: 68Gi -> 72Gi of 63,495Mi"); else existing;
3. calls a base finding *fixed* only when its cause is gone for its object (:func:`fixed`):
   no head finding has its identity, at any place of a group, and no head finding of its
   cause names its object. A finding absorbed into another (the old caller now counted in
   the new caller's finding) is still present.

Findings without a cause are judged by their identity alone (:mod:`engine.identity`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from reviewbot.diff.objects import TreeDiff
from reviewbot.engine.findings import Finding, not_applied, sort_key, undoubted
from reviewbot.engine.identity import among

GroupKey = tuple[str, str]  # (rule, cause)


@dataclass(frozen=True)
class Changed:
    """What the pull request changed, as placement reads it."""

    added: frozenset[str] = frozenset()  # refs of objects it adds
    touched: frozenset[str] = frozenset()  # refs of objects it adds, modifies or renames
    lines: frozenset[tuple[str, int]] = frozenset()  # (head file, line) of changed fields

    @classmethod
    def of(cls, diff: TreeDiff) -> Changed:
        lines = {(o.file, c.line) for o in diff.objects if o.file
                 for c in o.changes if c.line is not None}
        return cls(frozenset(o.ref for o in diff.objects if o.status == "added"), diff.touched,
                   frozenset(lines))

    def rank(self, f: Finding) -> int:
        """0: on a line the pull request changed or an object it added; 1: on an object it
        changed; 2: elsewhere."""
        if f.object in self.added or (f.file, f.line) in self.lines:
            return 0
        return 1 if f.object in self.touched else 2


def _places(f: Finding) -> list[Finding]:
    """``f`` and the same problem at its other places, each without places of its own."""
    return [replace(f, others=()), *(replace(o, others=()) for o in f.others)]


def _overlap(a: Sequence[str], b: Sequence[str]) -> bool:
    return not a or not b or bool(set(a) & set(b))


def _groups(findings: Iterable[Finding]) -> list[list[Finding]]:
    """Findings of one rule and one cause (clusters overlapping those of any finding of the
    group: one egress rule two clusters build alike joins each cluster's caller, new-user
    trial seventy-seven W1) together, in order; a finding without a cause alone."""
    out: list[list[Finding]] = []
    by_cause: dict[GroupKey, list[list[Finding]]] = {}
    for f in findings:
        if not f.cause:
            out.append([f])
            continue
        groups = by_cause.setdefault((f.rule, f.cause), [])
        joined = [g for g in groups if any(_overlap(h.clusters, f.clusters) for h in g)]
        if not joined:
            groups.append([f])
            out.append(groups[-1])
            continue
        joined[0].append(f)
        for other in joined[1:]:  # (f's clusters join groups apart until now)
            joined[0].extend(other)
            groups.remove(other)
            out.remove(other)
    return out


def _merge(group: Sequence[Finding], changed: Changed | None) -> Finding:
    """One finding of a group: at the best place (:meth:`Changed.rank`; the rule's first
    without a change), the rest its ``others``."""
    places = [p for f in sorted(group, key=sort_key) for p in _places(f)]
    if len(places) == 1:
        return group[0]
    seen: dict[tuple[str, str, int, str], Finding] = {}
    for p in places:  # one place once (a value two callers share)
        seen.setdefault((p.object, p.file, p.line, p.message), p)
    unique = list(seen.values())
    best = min(range(len(unique)), key=lambda i: (changed.rank(unique[i]) if changed else 0, i))
    first = unique[best]
    # (a finding said of an object no cluster receives, "Not applied", is not made certain by
    # its other places: the fact needs that object too; new-user trial seventy-one D2's
    # egress rules of a build kustomize refuses, errors by the ingress side's places)
    severity = max((f.severity if not_applied(f.message)[1] is not None else
                    max((p.severity for p in _places(f)), key=_rank) for f in group), key=_rank)
    if _rank(severity) > _rank(first.severity):
        # a place of the cause that is certain makes the cause certain: what the best place
        # could not see is no doubt of it (new-user trial thirty-eight: an error "Not
        # certain" of a chart's caller, made an error by the egress rule's own finding)
        bare = undoubted(first.message)
        if bare is not None:
            first = replace(first, message=bare)
    return replace(first, severity=severity,
                   others=tuple(p for i, p in enumerate(unique) if i != best))


def _rank(severity: str) -> int:
    return {"info": 0, "warning": 1, "error": 2}.get(severity, -1)


def group(findings: Iterable[Finding], changed: Changed | None = None) -> list[Finding]:
    """Each cause's findings as one (placed by ``changed``; without it, where the rule put
    it), in report order."""
    return sorted((_merge(g, changed) for g in _groups(findings)), key=sort_key)


def judge(head: Sequence[Finding], base: Sequence[Finding],
          renames: Mapping[str, str] | None = None) -> list[Finding]:
    """The head's grouped findings marked new, worse or existing against the base's (both
    grouped): see the module's docstring."""
    known = among([p for b in base for p in _places(b)], renames)
    # the same problem the base branch had at a lower severity (a tag-pinned image, a
    # warning, that the PR moves to :latest, an error): worse, "warning -> error"
    was_error = among([p for b in base if b.severity == "error" for p in _places(b)], renames)
    was_warning = among([p for b in base if b.severity == "warning" for p in _places(b)],
                        renames)
    by_cause: dict[GroupKey, list[Finding]] = {}
    as_renamed = _cause_renamer(renames)
    for b in base:
        if b.cause:
            by_cause.setdefault((b.rule, as_renamed(b.cause)), []).append(b)
    out = []
    for f in head:
        before = [b for b in by_cause.get((f.rule, f.cause), ())
                  if _overlap(b.clusters, f.clusters)] if f.cause else []
        amounts = [b.amount for b in before if b.amount is not None]
        if f.cause and not before:
            out.append(replace(f, new=True))
        elif f.amount is not None and amounts:
            was = max(amounts, key=lambda a: a.value)
            worse = ""
            if f.amount.value > was.value:
                worse = f"{was.text} -> {f.amount.text}" + (
                    f" of {f.amount.limit}" if f.amount.limit else "")
            out.append(replace(f, new=False, worse=worse))
        else:
            new = any(not known(p, None) for p in _places(f))
            worse = ""
            # (worse than the base in any cluster: an error the base had in prod is not
            # made worse where staging's build, failing on the base, now makes it too; a
            # new-user trial's "worse: warning -> error")
            anywhere = [replace(p, clusters=()) for p in _places(f)]
            if not new and f.severity == "error" and not any(
                    was_error(p, None) for p in anywhere):
                worse = ("warning" if any(was_warning(p, None) for p in anywhere)
                         else "info") + " -> error"
            out.append(replace(f, new=new, worse=worse))
    return out


def _cause_renamer(renames: Mapping[str, str] | None) -> Callable[[str], str]:
    """A base finding's cause as the head says it: the objects the change renamed named by
    their new names (``namespace/name``, as causes name them: an object the pull request
    renamed keeps its findings, new-user trial thirty-four's DNS warning of pods a dropped
    ``namePrefix`` renamed)."""
    names = {}
    for old, new in (renames or {}).items():
        was, now = old.split("/")[1:], new.split("/")[1:]
        if was and now and was != now:
            names["/".join(was)] = "/".join(now)
    if not names:
        return lambda cause: cause
    import re

    pattern = re.compile(r"(?<![\w./-])(" + "|".join(
        re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![\w./-])")
    return lambda cause: pattern.sub(lambda m: names[m.group(1)], cause)


def fixed(base: Sequence[Finding], head: Sequence[Finding],
          renames: Mapping[str, str] | None = None) -> list[Finding]:
    """The base's (grouped) findings the pull request fixes: none of their places' identities
    is in the head, and no head finding of their cause names one of their objects."""
    now = among([p for h in head for p in _places(h)])
    causes: dict[GroupKey, list[Finding]] = {}
    for h in head:
        if h.cause:
            causes.setdefault((h.rule, h.cause), []).append(h)
    out = []
    for b in base:
        if any(now(p, renames) for p in _places(b)):
            continue
        if b.cause:
            mine = {renames.get(o, o) if renames else o for o in b.parties}
            if any(_overlap(h.clusters, b.clusters) and mine & h.parties
                   for h in causes.get((b.rule, b.cause), ())):
                continue
        out.append(replace(b, new=False))
    return out
