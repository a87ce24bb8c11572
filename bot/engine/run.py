"""The engine's rule execution: load a tree's model, run the rules (on a large model, shared
with a forked worker), apply policy.

Policy is the engine's, never a rule's: which rules run, severity overrides, suppression
(:mod:`reviewbot.engine.suppression`). Parsing the files is :mod:`reviewbot.engine.parse`'s;
the keys under which results are cached are :mod:`reviewbot.engine.keys`'.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import TYPE_CHECKING, Any

from reviewbot import concurrency
from reviewbot.config import Config, RuleSettings
from reviewbot.engine.findings import (
    Amount,
    Decision,
    Edit,
    Finding,
    Quiet,
    QuietPlace,
    Violation,
    doubted,
    in_order,
    refused,
    sort_key,
)
from reviewbot.engine.identity import clusters_of, stable_key
from reviewbot.engine.parse import Memo, load_files
from reviewbot.engine.registry import Rule, all_rules
from reviewbot.engine.suppression import UNUSED, Suppressions
from reviewbot.errors import ReviewbotError
from reviewbot.load.cache import ParseCache
from reviewbot.load.loader import Document
from reviewbot.load.paths import Path, format_path
from reviewbot.model.builder import build_model
from reviewbot.model.doubts import doubt_of, unserved_doubt
from reviewbot.model.objects import Model, model_graph, object_at
from reviewbot.model.values import (
    VALUES_KIND,
    guessed_default,
    overridden_default,
    unrendered_value,
)
from reviewbot.sources.tree import Skipped, Tree

if TYPE_CHECKING:  # the diff's type only: a lint never imports the diff
    from reviewbot.diff.objects import TreeDiff


@dataclass
class Result:
    """What the rules decided about ``model``: findings (policy applied), how many were
    suppressed, where a rule stayed quiet on purpose (``quiet``, in file and line order) and
    the counts for the summary (``stats``: files, objects, rules and the rules' notes)."""

    findings: list[Finding]
    model: Model
    suppressed: int = 0
    stats: dict[str, Any] = field(default_factory=dict)
    quiet: list[Quiet] = field(default_factory=list)
    # what each rule decided before policy, by rule id (the rules ran here: not read from the
    # cache); a review shares the head's object-scoped findings with its base from it
    outputs: dict[str, RuleOutput] | None = field(default=None, compare=False, repr=False)
    # the findings an ignore annotation or comment silenced: a review does not call the
    # base's finding fixed when the head silences it
    silenced: list[Finding] = field(default_factory=list, compare=False, repr=False)

    @property
    def skipped(self) -> list[Skipped]:
        return self.model.skipped


def load_model(
    tree: Tree, config: Config, loader: Any = None, memo: Memo | None = None
) -> Model:
    """Parse ``tree`` and build its model with the config's inventory and values settings."""
    files = load_files(tree, config, loader, memo)
    shared = memo.built if memo is not None else None
    clusters = config.raw.get("clusters")
    model = build_model(files, config.inventory, str(tree.root), tree, shared,
                        clusters if isinstance(clusters, list) else (),
                        memo.graph if memo is not None else None,
                        measured=config.section("measured"),
                        values_files=list(config.raw.get("values-files") or ()),
                        local_urls=memo.local_urls if memo is not None else frozenset(),
                        resolved_before=memo.resolved_apps if memo is not None else frozenset())
    if memo is not None:
        memo.graph = model_graph(model)
        reach = model.derived.get("reach")
        memo.local_urls = memo.local_urls | (reach.local_urls if reach is not None else frozenset())
        if reach is not None:
            memo.resolved_apps = memo.resolved_apps | reach.resolved_apps()
    return model


def analyze(
    tree: Tree, config: Config, *, only: Sequence[str] = (), loader: Any = None,
    memo: Memo | None = None, other: Result | None = None,
) -> Result:
    """Load ``tree``, build its model, run the rules.

    With a parse cache, what the rules found is cached too, under a key made of everything
    it depends on (:func:`result_key`): a tree analysed before (a pull request's base, pushed
    to again) gets its findings without running a rule. ``other``: the other side's result
    (a review's base read from the cache), whose object-scoped decisions this side shares.
    """
    model = load_model(tree, config, loader, memo)
    return start_rules(tree, model, config, only=only, loader=loader, other=other)()


def cached_rules(tree: Tree, model: Model, config: Config, only: Sequence[str],
                 loader: Any) -> Result | None:
    """What the rules found on ``tree`` before, from the result cache (``loader``: a parse
    cache), or None."""
    cache = loader if isinstance(loader, ParseCache) else None
    return _restored(cache, _result_key(tree, config, only) if cache is not None else None, model)


def _result_key(tree: Tree, config: Config, only: Sequence[str]) -> str | None:
    """:func:`reviewbot.engine.keys.result_key`, imported when a run has a result cache."""
    from reviewbot.engine.keys import result_key

    return result_key(tree, config, only)


def _sharing() -> ModuleType:
    """:mod:`reviewbot.engine.sharing` (with the diff's comparison it imports), imported when
    a run shares or caches what rules decided: a lint does neither (its four modules were
    1.7M instructions of a one-file lint's imports)."""
    from reviewbot.engine import sharing

    return sharing


def _restored(cache: ParseCache | None, key: str | None, model: Model) -> Result | None:
    cached = cache.result(key) if cache is not None and key is not None else None
    return _thaw_result(model, cached) if cached is not None else None


def start_rules(
    tree: Tree, model: Model, config: Config, *, only: Sequence[str] = (), loader: Any = None,
    background: bool = False, share: bool = False, other: Result | None = None,
) -> Callable[..., Result]:
    """The rules of ``model`` (from the result cache when ``loader`` is a parse cache that
    holds them); call the returned function for the :class:`Result`.

    ``background``: a large model's rules run in a forked worker meanwhile (a review builds
    the head's model and diffs while the base's rules run); the worker sends back what the
    rules decided, so the result is the same. If the worker fails, the rules run here when
    the result is asked for.

    ``share`` (a review's base): the object-scoped rules wait for the call, which may pass
    the head's :class:`Result`; where the head's objects are the base's, their findings are
    taken from it (:func:`reviewbot.engine.sharing.base_outputs`), the same as running them.
    ``other``: the same, with the other side's result known now (a review's base read from
    the cache, with its object-scoped decisions).
    """
    cache = loader if isinstance(loader, ParseCache) else None
    key = _result_key(tree, config, only) if cache is not None else None
    restored = _restored(cache, key, model)
    if restored is not None:
        return lambda head=None: restored
    rules = enabled_rules(config, only)
    checked = [r for r in rules if r.id != UNUSED]
    known = other if other is not None and other.outputs is not None else None
    later = [r for r in checked if r.scope == _sharing().OBJECT] if (
        share or known is not None) and _sharing().enabled() else []
    now = [r for r in checked if r not in later]

    def finish(done: Sequence[RuleOutput], head: Result | None,
               suppressions: Suppressions | None = None) -> Result:
        by_id = {r.id: out for r, out in zip(now, done, strict=True)}
        partner = head if head is not None else known
        if later:
            outs = (_sharing().base_outputs(later, model, partner.model, partner.outputs,
                                         lambda rs, m: rule_outputs(rs, m, config))
                    if partner is not None and partner.outputs is not None
                    else rule_outputs(later, model, config))
            by_id.update((r.id, out) for r, out in zip(later, outs, strict=True))
        result = _policy(rules, [by_id[r.id] for r in checked], model, config,
                         suppressions=suppressions)
        if cache is not None and key is not None:
            frozen = _freeze_result(result,
                                    [r.id for r in checked if r.scope == _sharing().OBJECT])
            if frozen is not None:
                cache.store_result(key, frozen)
        return result

    if not background or not now or concurrency.workers(
            2, len(model.objects), concurrency.limits().rules_min_objects) < 1:
        def here(head: Result | None = None) -> Result:
            # the suppressions read the model only (rules never write it): built while the
            # worker, if any, finishes its last rules, not after
            ready: list[Suppressions] = []
            done = rule_outputs(now, model, config,
                                meanwhile=lambda: ready.append(Suppressions(model)))
            return finish(done, head, ready[0] if ready else None)

        return here
    worker = concurrency.Worker(_outputs_worker, now, model, config)

    def wait(head: Result | None = None) -> Result:
        import pickle  # here and in the workers: a run without one never imports it

        data = worker.result()
        try:
            if data is None:
                raise ValueError("the worker sent nothing")
            done = pickle.loads(data)
        except Exception:  # noqa: BLE001 - the rules run here instead
            done = rule_outputs(now, model, config)
        return finish(done, head)

    return wait


def _outputs_worker(rules: Sequence[Rule], model: Model, config: Config) -> bytes:
    import pickle

    return pickle.dumps(rule_outputs(rules, model, config), protocol=pickle.HIGHEST_PROTOCOL)


def _freeze_result(result: Result, shareable: Sequence[str] = ()) -> dict[str, Any] | None:
    """The findings, counts and quiet places as JSON data, and what the ``shareable`` rules
    decided before policy (:func:`reviewbot.engine.sharing.freeze_outputs`); None when some
    of it is not plain data that reads back the same."""
    if any(f.new is not None or f.suggestion is not None for f in result.findings):
        return None
    raw = {
        "findings": [_freeze_finding(f) for f in result.findings],
        "suppressed": result.suppressed,
        "silenced": [_freeze_finding(f) for f in result.silenced],
        "stats": result.stats,
        "quiet": [q.as_data() for q in result.quiet],
    }
    outputs = result.outputs or {}
    if shareable and not any(f.new is not None or f.suggestion is not None
                             for out in outputs.values() for f in out.findings):
        raw["outputs"] = _sharing().freeze_outputs(outputs, result.model, shareable,
                                                   _freeze_finding)
    try:
        back = json.loads(json.dumps(raw))
    except (TypeError, ValueError):
        return None
    return raw if back == raw else None


def _freeze_finding(f: Finding) -> list[Any]:
    a = f.amount
    return [f.rule, f.severity, f.file, f.line, f.column, f.object, f.message, f.fix, f.path,
            f.key, f.kind, [e.as_json() for e in f.edits], list(f.clusters), f.cause,
            None if a is None else [a.value, a.text, a.limit],
            [_freeze_finding(o) for o in f.others]]


def _thaw_finding(raw: list[Any]) -> Finding:
    r, s, f, ln, c, o, m, x, p, k, kd, edits, cl, cause, a, others = raw
    return Finding(rule=str(r), severity=str(s), file=str(f), line=int(ln), column=int(c),
                   object=str(o), message=str(m), fix=str(x), path=str(p), key=str(k),
                   kind=str(kd), edits=tuple(Edit.from_json(e) for e in edits),
                   clusters=tuple(str(n) for n in cl), cause=str(cause),
                   amount=None if a is None else Amount(float(a[0]), str(a[1]), str(a[2])),
                   others=tuple(_thaw_finding(x) for x in others))


def _thaw_result(model: Model, raw: dict[str, Any]) -> Result | None:
    try:
        findings = [_thaw_finding(f) for f in raw["findings"]]
        suppressed, stats = int(raw["suppressed"]), raw["stats"]
        silenced = [_thaw_finding(f) for f in raw["silenced"]]
        quiet = [Quiet.from_data(q) for q in raw["quiet"]]
        if not isinstance(stats, dict):
            return None
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    outputs = _sharing().thaw_outputs(raw.get("outputs"), model, _thaw_finding, RuleOutput)
    return Result(findings, model, suppressed, stats, quiet, outputs, silenced)


def enabled_rules(config: Config, only: Sequence[str] = ()) -> list[Rule]:
    rules = [r for r in all_rules() if config.settings(r).enabled]
    if only:
        unknown = set(only) - {r.id for r in all_rules()}
        if unknown:
            raise ReviewbotError(f"unknown rule(s): {', '.join(sorted(unknown))}; known rules: "
                                 f"{', '.join(sorted(r.id for r in all_rules()))}")
        rules = [r for r in rules if r.id in only]
    return rules


@dataclass(frozen=True)
class Change:
    """What the change rules judge besides the head model: the diff from ``base`` to it."""

    diff: TreeDiff
    base: Model


def run_rules(model: Model, config: Config, *, only: Sequence[str] = (),
              change: Change | None = None) -> Result:
    """What the enabled rules decide about ``model``, policy applied (severity, suppression).

    Without ``change``: every rule's ``check_set`` (the repository as it is; on a large model
    shared with a worker), then ``unused-suppression``. With ``change``: every rule's
    ``check_change`` (what applying the change does), each finding new.
    """
    rules = enabled_rules(config, only)
    if change is not None:
        outputs = _outputs([_decided(r, model, config, change) for r in rules
                            if r.check_change is not None], model)
        return _policy(rules, outputs, model, config, change=True)
    return _policy(rules, rule_outputs([r for r in rules if r.id != UNUSED], model, config),
                   model, config)


def _policy(rules: Sequence[Rule], outputs: Sequence[RuleOutput], model: Model, config: Config,
            *, change: bool = False, suppressions: Suppressions | None = None) -> Result:
    """The :class:`Result` of what ``rules`` decided (``outputs``, in their order, without
    ``unused-suppression``'s): duplicates dropped, suppressions applied, severity set, the
    findings in one order whatever order the rules found them in."""
    if suppressions is None and (not change or any(out.findings for out in outputs)):
        suppressions = Suppressions(model)
    if not change:
        outputs = refusals(rules, outputs, suppressions)
    # one finding once: objects a build makes alike (a base two overlays include unchanged,
    # a --render output holding it twice) give the same finding at the same place
    raw = list(dict.fromkeys(f for out in outputs for f in out.findings))
    kept: list[Finding] = []
    silenced: list[Finding] = []
    for f in raw:
        (silenced if suppressions is not None and suppressions.matches(f) else kept).append(f)
    quiet = in_order(q for out in outputs for q in out.quiet)
    result = Result(kept, model, suppressed=len(silenced), quiet=quiet, silenced=silenced)
    if change:
        result.findings = [replace(f, new=True) for f in kept]
        return result
    unused = next((r for r in rules if r.id == UNUSED), None)
    if unused is not None and suppressions is not None:
        settings = config.settings(unused)
        active = {r.id for r in rules}
        for violation in suppressions.unused(active):
            result.findings.append(make_finding(unused, violation,
                                                settings.severity_for(violation.kind)))
    result.findings.sort(key=total_order)
    result.stats = {
        "files": len(model.files), "objects": len(model.objects), "rules": len(rules),
    }
    if not model.cluster_entries:  # (several clusters: the summary lists each with its roots)
        result.stats["roots"] = _roots_said(model)
    for out in outputs:
        result.stats.update(out.notes)
    result.outputs = {r.id: out for r, out in zip(
        (r for r in rules if r.id != UNUSED), outputs, strict=True)}
    return result


def _roots_said(model: Model) -> str:
    """What applies the tree to its cluster, as the text output's ``roots:`` line says it:
    the roots found, or that none was and every file is judged as written (new-user trial
    forty-six: a tree whose root reviewbot did not find read like one whose root it did)."""
    reach = model.derived.get("reach")
    roots = list(reach.roots) if reach is not None else []
    outside = model.tree.roots_outside if model.tree is not None else None
    if not roots and outside:  # (new-user trial fifty-six read "none found" beside findings
        # naming the root outside the linted folder that applies it)
        more = f" and {len(outside) - 1} more" if len(outside) > 1 else ""
        return (f"none in the linted files; outside them, {outside[0]}{more}: what they apply "
                "here is judged as written, its findings warnings (lint the repository's top "
                "level to judge what its clusters receive)")
    if not roots and model.scope_doubt:  # (roots whose reach is unseen: judge round CX read
        # "no ... FluxInstance" beside findings naming the FluxInstance)
        return (f"none followed (reviewbot could not see {model.scope_doubt.split('; ')[0]}): "
                "the tree is judged as applied as written, its findings warnings")
    if not roots:
        return ("none found (no Flux sync or bootstrap Kustomization, FluxInstance, Argo CD "
                "Application or configured cluster): the tree is judged as applied as written, "
                "its kustomizations as kustomize builds them")
    shown = [f"{r.file or r.path or '.'} ({r.how})" for r in roots[:3]]
    more = f" and {len(roots) - 3} more" if len(roots) > 3 else ""
    return ", ".join(shown) + more


def refusals(rules: Sequence[Rule], outputs: Sequence[RuleOutput],
             suppressions: Suppressions | None) -> Sequence[RuleOutput]:
    """``outputs`` (of ``rules`` without ``unused-suppression``, in their order), where an
    object the API server refuses as written (an error, not suppressed, of a rule whose
    errors are that refusal: ``ADMISSION = "refusal"``, the schema's) has the errors of the
    rules whose findings hold once it is admitted (``"admitted"``: what it runs) made
    warnings that say so (:func:`~reviewbot.engine.findings.refused`): an error is a promise
    about what a cluster receives, and no cluster receives this object as it is written
    (redhat-na-ssa's CronJob with its pod fields misplaced: its ``:latest`` was an error)."""
    paired = list(zip((r for r in rules if r.id != UNUSED), outputs, strict=True))
    refused_by: dict[int, Finding] = {}
    for rule, out in paired:
        if rule.admission == "refusal":
            for f, owner in zip(out.findings, out.owners, strict=True):
                if owner and f.severity == "error" and owner not in refused_by and (
                        suppressions is None or not suppressions.matches(f)):
                    refused_by[owner] = f
    if not refused_by:
        return outputs
    amended: list[RuleOutput] = []
    for rule, out in paired:
        if rule.admission == "admitted" and any(o in refused_by for o in out.owners):
            out = replace(out, findings=[
                refused(f, refused_by[o]) if f.severity == "error" and o in refused_by else f
                for f, o in zip(out.findings, out.owners, strict=True)])
        amended.append(out)
    return amended


def total_order(f: Finding) -> tuple[Any, ...]:
    """:func:`sort_key`, then what else tells two findings apart (two objects a build makes
    from one document, found at one place with one message): the order of a tree's findings
    never depends on the order a rule walked the model in."""
    return (*sort_key(f), f.object, f.path, f.key, f.severity, f.kind, f.fix, f.cause,
            f.clusters)


@dataclass
class RuleOutput:
    """What one rule decided: its findings (located, severity set, not yet suppressed), the
    places it stayed quiet about, its notes for the summary."""

    findings: list[Finding] = field(default_factory=list)
    quiet: list[Quiet] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)
    # id() of the object each finding and quiet place names (0: none), in their order
    owners: list[int] = field(default_factory=list)
    quiet_owners: list[int] = field(default_factory=list)


def rule_outputs(rules: Sequence[Rule], model: Model, config: Config,
                 meanwhile: Callable[[], object] | None = None) -> list[RuleOutput]:
    """What each rule decided, in the order of ``rules``; ``meanwhile`` is called once, by
    this process, when its own rules are done: before it waits for the worker's (work that
    reads the model only, which the caller needs next), or after the rules when they are not
    shared.

    On a large model the rules are shared with a forked worker, which inherits the model and
    sends back what its rules decided (positions resolved). Neither side is given a fixed
    list: both take the next rule from :class:`~reviewbot.concurrency.Tickets`, the costliest
    first (each rule's ``COST``), so whoever is free runs it and both finish together however
    the costs turn out on this tree and this machine. If anything fails, the rules the
    worker did not send run here (a rule's error is raised exactly as without a worker).
    """
    if len(rules) < 2 or len(rules) > concurrency.Tickets.MOST or concurrency.workers(
            2, len(model.objects), concurrency.limits().rules_min_objects) < 1:
        outputs = _outputs([_decided(r, model, config) for r in rules], model)
        if meanwhile is not None:
            meanwhile()
        return outputs
    import pickle

    order = sorted(range(len(rules)), key=lambda i: -rules[i].cost)  # stable: ties in order
    tickets = concurrency.Tickets(len(order))
    try:
        worker = concurrency.Worker(_rules_worker, rules, order, tickets, model, config)
        done: dict[int, RuleOutput] = {}
        try:
            done.update(_take_rules(rules, order, tickets, model, config))
        except Exception:  # noqa: BLE001 - the sequential run below raises what matters
            worker.result()
            return _outputs([_decided(r, model, config) for r in rules], model)
        try:
            if meanwhile is not None:
                meanwhile()
        finally:
            data = worker.result()
    finally:
        tickets.close()
    if data is not None:
        with contextlib.suppress(Exception):  # what it sent is run here instead
            done.update(pickle.loads(data))
    missing = [i for i in range(len(rules)) if i not in done]
    done.update(zip(missing, _outputs([_decided(rules[i], model, config) for i in missing],
                                      model), strict=True))
    return [done[i] for i in range(len(rules))]


def _take_rules(rules: Sequence[Rule], order: Sequence[int], tickets: concurrency.Tickets,
                model: Model, config: Config) -> dict[int, RuleOutput]:
    """Run rules as long as tickets last: ticket ``t`` is rule ``order[t]``."""
    decided: dict[int, Decided] = {}
    while (ticket := tickets.take()) is not None:
        i = order[ticket]
        decided[i] = _decided(rules[i], model, config)
    return dict(zip(decided, _outputs(list(decided.values()), model), strict=True))


# a rule, its settings, and what its check decided
Decided = tuple[Rule, RuleSettings, list[Decision]]


def _decided(rule: Rule, model: Model, config: Config, change: Change | None = None) -> Decided:
    """What ``rule`` decides about ``model`` (its check run through)."""
    settings = config.settings(rule)
    return rule, settings, list(_decisions(rule, model, settings.options, change))


def _outputs(decided: Sequence[Decided], model: Model) -> list[RuleOutput]:
    """The output of each rule of ``decided``, its findings and quiet places located; every
    document they name is first told all the paths they ask of it, so that one walk of its
    events locates them all (``Document.locate_all``), not one walk per finding."""
    wanted: dict[int, tuple[Document, list[Path]]] = {}
    for _, _, decisions in decided:
        for decision in decisions:
            if isinstance(decision, Violation):
                _wanted(decision, wanted)
            elif isinstance(decision, QuietPlace):
                doc = decision.obj.doc
                wanted.setdefault(id(doc), (doc, []))[1].append(
                    decision.obj.path + tuple(decision.path))
    for doc, paths in wanted.values():
        doc.locate_all(paths)
    return [_output(rule, settings, decisions, model) for rule, settings, decisions in decided]


def _wanted(v: Violation, wanted: dict[int, tuple[Document, list[Path]]]) -> None:
    """Add the place :func:`make_finding` locates for ``v`` and its others to ``wanted``."""
    if v.obj is not None and v.line is None:
        doc, at = v.obj.written(v.path)
        wanted.setdefault(id(doc), (doc, []))[1].append(at)
    for other in v.others:
        _wanted(other, wanted)


def _output(rule: Rule, settings: RuleSettings, decisions: Iterable[Decision],
            model: Model) -> RuleOutput:
    """What one rule decided (``decisions``, under ``settings``): findings made of its
    violations, its quiet places located, its notes."""
    out = RuleOutput()
    for decision in decisions:
        if isinstance(decision, Violation):
            out.findings.append(make_finding(rule, decision, settings.severity_for(decision.kind),
                                             model))
            out.owners.append(id(decision.obj) if decision.obj is not None else 0)
        elif isinstance(decision, QuietPlace):
            line, _ = decision.obj.position(decision.path)
            out.quiet.append(Quiet(rule.id, decision.obj.file, line, decision.reason,
                                   decision.obj.ref,
                                   stable_key(decision.obj, decision.path, None)))
            out.quiet_owners.append(id(decision.obj))
        else:
            out.notes[decision.key] = decision.value
    return out


def _rules_worker(rules: Sequence[Rule], order: Sequence[int], tickets: concurrency.Tickets,
                  model: Model, config: Config) -> bytes:
    """In a worker: run rules as long as tickets last, return what they decided."""
    import pickle

    out = _take_rules(rules, order, tickets, model, config)
    return pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)


def _decisions(rule: Rule, model: Model, options: Any,
               change: Change | None) -> Iterable[Decision]:
    if change is None:
        found = rule.check_set(model, options) if rule.check_set is not None else ()
    else:
        found = rule.check_change(change.diff, change.base, model, options) if (
            rule.check_change is not None) else ()
    return _received(found, model)


def _received(decisions: Iterable[Decision], model: Model) -> Iterator[Decision]:
    """``decisions``, a violation of a chart's default that every consumer of the chart
    overrides (``model.values.overridden_default``), or that no template of the chart reads
    (``unrendered_value``), made a quiet place: no cluster receives the value it judges; one
    that only consumers applied on a guess leave as it is (``guessed_default``) doubted."""
    for decision in decisions:
        # (a finding about a key's name, ``at_key``, judges no value: a key no template reads,
        # written in an override file, is the finding itself)
        if isinstance(decision, Violation) and decision.obj is not None and (
                decision.obj.kind == VALUES_KIND) and not decision.at_key:
            if (why := overridden_default(model, decision.obj, decision.path) or (
                    unrendered_value(model, decision.obj, decision.path))) is not None:
                yield QuietPlace(decision.obj, decision.path, why)
                continue
            if decision.doubt is None and (
                    guess := guessed_default(model, decision.obj, decision.path)) is not None:
                yield replace(decision, doubt=guess)
                continue
        yield decision


def _clusters(model: Model | None, v: Violation) -> tuple[str, ...]:
    """The clusters a finding is of: its object's (:func:`clusters_of`), or the one its
    rule's view judged (``Violation.cluster``) where the object reaches it."""
    found = clusters_of(model, v.obj)
    return (v.cluster,) if v.cluster is not None and v.cluster in found else found


def make_finding(rule: Rule, v: Violation, severity: str | None,
                 model: Model | None = None) -> Finding:
    """The finding of ``v``: located, its severity the configured one or the rule's for its
    kind, at most a warning when the rule or the model (``Model.doubts``: how the object
    reaches its cluster; of the postBuild variables an object holds, those in the fields the
    finding depends on: :func:`~reviewbot.model.doubts.doubt_of`; ``Model.scope_doubt``:
    the linted files are part of a repository whose cluster roots lie outside them) could
    not see everything the promise of an error needs, or the object's built-in apiVersion is
    one the cluster's Kubernetes does not serve (:func:`~reviewbot.model.doubts.
    unserved_doubt`; api-lifecycle's own finding says the refusal); and when every build that
    makes the object fails
    (``Model.unbuilt``: nothing of it is applied, so how it would be built is moot)."""
    doubt = v.doubt
    unbuilt = v.unbuilt or (model.unbuilt.get(id(v.obj)) if (
        v.obj is not None and model is not None) else None)
    if unbuilt is not None and doubt is not None and unbuilt in doubt:
        # what the rule doubts of the object's own failing build is said once, below
        doubt = "; ".join(part for part in doubt.split("; ") if unbuilt not in part) or None
    if doubt is None and unbuilt is None and v.obj is not None and model is not None and (
            model.doubts or model.chart_doubts or model.unseen or v.obj.origins):
        doubt = doubt_of(model, v.obj, v.path, rule.reads)
    if doubt is None and unbuilt is None and v.obj is not None and model is not None and (
            rule.id != "api-lifecycle"):  # (its own finding is the refusal)
        doubt = unserved_doubt(model, v.obj)
    if doubt is None and unbuilt is None and v.obj is None and model is not None and (
            model.file_doubts):
        doubt = model.file_doubts.get(v.file or "")  # (about a file: its kustomization's)
    if doubt is None and model is not None and model.scope_doubt:
        # part of a repository whose roots are elsewhere: what it says fails or waits is
        # judged without them too (judge round CV: "Not applied: ... waits for a
        # Kustomization the cluster does not have", said without the doubt)
        doubt = model.scope_doubt
    level, message = doubted(severity or rule.severity_of(v.kind), v.message, doubt, unbuilt)
    shown = v.key or format_path(v.path)  # the field an inline comment's footer names
    if v.obj is None:
        line, column, file = v.line or 1, v.column or 1, v.file or ""
        # placed by line alone (a marker in a comment): the object written there, if any
        at = object_at(model, file, line) if model is not None and v.line else None
        ref = at.ref if at is not None else ""
    else:
        ref = v.obj.ref
        if v.line is None:
            file, line, column = v.obj.where(v.path, key=v.at_key)
        else:  # placed by the rule: in the object's own file, or the one it names
            file, line, column = v.file or v.obj.file, v.line, v.column or 1
            if file != v.obj.file:  # (a deletion at a patch's `$patch: delete`): the field
                shown = ""  # is not where the finding is shown; its identity keeps it (key)
    return Finding(
        rule=rule.id, severity=level, file=file or "",
        line=line, column=column, object=ref, message=message, fix=v.fix or rule.fix,
        path=shown, key=stable_key(v.obj, v.path, v.key),
        kind=v.kind or "",
        edits=v.edits, clusters=_clusters(model, v),
        cause=v.cause or "", amount=v.amount,
        others=tuple(make_finding(rule, o, severity, model) for o in v.others),
    )


