"""The engine: load a tree, build the model, run the rules, apply policy.

Policy is the engine's, never a rule's: which rules run, severity overrides, suppression by
annotation or comment (and `unused-suppression` when one matches nothing).
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import json
import marshal
import os
import pickle
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from reviewbot import concurrency
from reviewbot.config import Config
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
    sort_key,
)
from reviewbot.engine.identity import clusters_of, stable_key
from reviewbot.engine.registry import Rule, all_rules
from reviewbot.errors import ReviewbotError
from reviewbot.load.cache import ParseCache, freeze, key_bytes, thaw
from reviewbot.load.loader import LoadedFile, load
from reviewbot.load.paths import format_path
from reviewbot.model.builder import Built, build_model
from reviewbot.model.kustomize import Graph
from reviewbot.model.objects import KObject, Model, model_graph
from reviewbot.sources.tree import MAX_FILE_BYTES, FileRecord, PendingTree, Skipped, Tree

if TYPE_CHECKING:  # the diff's type only: a lint never imports the diff
    from reviewbot.diff.objects import TreeDiff

IGNORE = "reviewbot.dev/ignore"
IGNORE_REASON = "reviewbot.dev/ignore-reason"
UNUSED = "unused-suppression"


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

    @property
    def skipped(self) -> list[Skipped]:
        return self.model.skipped


class Memo(dict[tuple[str, str], LoadedFile]):
    """What one run already loaded and built: files by (path, blob), and by document the
    objects a model made of it (``build_model``'s ``shared``)."""

    def __init__(self) -> None:
        super().__init__()
        self.built: dict[int, Built] = {}
        self.graph: Graph | None = None  # the kustomization graph of the last model built


def load_files(
    tree: Tree, config: Config, loader: Any = None, memo: Memo | None = None
) -> list[LoadedFile]:
    """Parse every YAML file of ``tree``.

    ``loader`` is a :class:`~reviewbot.load.cache.ParseCache` (entries by blob id) or a function
    of one record; ``memo`` holds files already loaded in this run by (path, blob) (a review
    loads base and head, which share nearly every file: each is parsed once, and both models
    hold the same objects for it).
    """
    records = [r for r in tree.files if not config.excluded(r.path)] if config.exclude else list(
        tree.files)
    if loader is not None and not isinstance(loader, ParseCache):
        return [loader(r) for r in records]
    limit = config.max_file_bytes
    out: list[LoadedFile | None] = [None] * len(records)
    view = loader.view(records) if loader is not None else None
    todo: list[int] = []
    for i, record in enumerate(records):
        hit = memo.get((record.path, record.blob)) if memo is not None else None
        if hit is None and view is not None:
            hit = view.get(record, limit)
        if hit is None:
            todo.append(i)
        else:
            out[i] = hit
    parsed = parse_files([records[i] for i in todo], limit)
    for i, loaded in zip(todo, parsed, strict=True):
        out[i] = loaded
        if view is not None:
            view.put(records[i], loaded, limit)
    if view is not None:
        view.save()
    done = [f for f in out if f is not None]
    if memo is not None:
        memo.update(((f.path, f.blob), f) for f in done)
    return done


def parse_files(records: Sequence[FileRecord], limit: int = MAX_FILE_BYTES) -> list[LoadedFile]:
    """Parse ``records`` (each refused past ``limit`` bytes), over the available cores when
    the work is large enough to pay.

    Each extra core gets a forked worker that inherits its share (nothing is pickled to it)
    and spools its results back as plain data, one ``marshal`` record per file, while this
    process parses its own share (measured on a 25k-object share: parsing 2.0 s, sending it
    back 0.1 s, unmarshalling and rebuilding it here 0.25 s). Record by record, neither
    process holds the worker's whole result twice. A worker that fails costs only time: its
    share is parsed here.
    """
    workers = concurrency.workers(8, sum(len(r.data) for r in records),
                                  concurrency.limits().parse_min_bytes)
    if workers < 1:
        return [load(r, limit) for r in records]
    n = workers + 1
    shares = [records[i::n] for i in range(n)]
    started = [concurrency.Spool(_parse_share, share, limit) for share in shares[1:]]
    results = [[load(r, limit) for r in shares[0]]]
    for share, worker in zip(shares[1:], started, strict=True):
        spooled = worker.result()
        try:
            if spooled is None:
                raise ValueError("the worker sent nothing")
            with spooled:
                results.append([thaw(r, _record(spooled), limit) for r in share])
        except (EOFError, ValueError, TypeError, KeyError):
            results.append([load(r, limit) for r in share])
    out: list[Any] = [None] * len(records)
    for i, result in enumerate(results):
        out[i::n] = result
    return out


def _parse_share(records: Sequence[FileRecord], limit: int,
                 write: Callable[[bytes], Any]) -> None:
    """In a worker: parse each file and write its plain data (one ``marshal`` record each)."""
    for record in records:
        loaded = load(record, limit)
        data = marshal.dumps(freeze(loaded))
        write(len(data).to_bytes(8, "little") + data)
        loaded.documents.clear()  # documents name their file: freed now, the collector paused


def _record(spooled: Any) -> Any:
    """The next record ``_parse_share`` wrote (its length, then its ``marshal`` data):
    ``marshal.load`` on a file reads each object's bytes with a call of its own."""
    size = int.from_bytes(spooled.read(8), "little")
    data = spooled.read(size)
    if len(data) != size:
        raise EOFError("a record is cut short")
    return marshal.loads(data)


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
                        values_files=list(config.raw.get("values-files") or ()))
    if memo is not None:
        memo.graph = model_graph(model)
    return model


def analyze(
    tree: Tree, config: Config, *, only: Sequence[str] = (), loader: Any = None,
    memo: Memo | None = None,
) -> Result:
    """Load ``tree``, build its model, run the rules.

    With a parse cache, what the rules found is cached too, under a key made of everything
    it depends on (:func:`result_key`): a tree analysed before (a pull request's base, pushed
    to again) gets its findings without running a rule.
    """
    model = load_model(tree, config, loader, memo)
    return start_rules(tree, model, config, only=only, loader=loader)()


def start_rules(
    tree: Tree, model: Model, config: Config, *, only: Sequence[str] = (), loader: Any = None,
    background: bool = False,
) -> Callable[[], Result]:
    """The rules of ``model`` (from the result cache when ``loader`` is a parse cache that
    holds them); call the returned function for the :class:`Result`.

    ``background``: a large model's rules run in a forked worker meanwhile (a review builds
    the head's model and diffs while the base's rules run); the worker sends back what
    ``run_rules`` returned, so the result is the same. If the worker fails, the rules run
    here when the result is asked for.
    """
    cache = loader if isinstance(loader, ParseCache) else None
    key = result_key(tree, config, only) if cache is not None else None
    if cache is not None and key is not None:
        cached = cache.result(key)
        restored = _thaw_result(model, cached) if cached is not None else None
        if restored is not None:
            return lambda: restored

    def finish(result: Result) -> Result:
        if cache is not None and key is not None:
            frozen = _freeze_result(result)
            if frozen is not None:
                cache.store_result(key, frozen)
        return result

    if not background or concurrency.workers(
            2, len(model.objects), concurrency.limits().rules_min_objects) < 1:
        return lambda: finish(run_rules(model, config, only=only))
    worker = concurrency.Worker(_analysis_worker, model, config, only)

    def wait() -> Result:
        data = worker.result()
        try:
            if data is None:
                raise ValueError("the worker sent nothing")
            findings, suppressed, stats, quiet = pickle.loads(data)
        except Exception:  # noqa: BLE001 - the rules run here instead
            return finish(run_rules(model, config, only=only))
        return finish(Result(findings, model, suppressed, stats, quiet))

    return wait


def _analysis_worker(model: Model, config: Config, only: Sequence[str]) -> bytes:
    result = run_rules(model, config, only=only)
    payload = (result.findings, result.suppressed, result.stats, result.quiet)
    return pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)


RESULT_FORMAT = 6


def result_key(tree: Tree, config: Config, only: Sequence[str]) -> str | None:
    """A digest of everything the findings of ``tree`` depend on, or None when some of it
    cannot be named (schema files read from outside the tree).

    The tree's files (path and blob id) and every path it holds (existence checks), the
    configuration, the rules asked for, the root (findings name files relative to it); the
    reviewbot version and cache format (the cache folder's name); the installed distributions
    (validator and schema versions); the kubeconform binary the schema rule would run.
    """
    digest = _digest(config, [RESULT_FORMAT, str(tree.root), list(only)])
    if digest is None:
        return None
    for record in tree.files + tree.texts:
        digest.update(key_bytes(f"\n{record.path}\0{record.blob}"))
    digest.update(b"\n\0paths")
    for path in sorted(tree.paths):
        digest.update(key_bytes(f"\n{path}"))
    return digest.hexdigest()


REVIEW_FORMAT = 2


def review_key(listings: Sequence[PendingTree], config: Config, parts: Sequence[Any]) -> str | None:
    """A digest of everything a review's outcome depends on, or None (as :func:`result_key`).

    ``listings``: the base and head trees as git lists them (every path, blob id and what was
    skipped: the blob ids name the contents); ``parts``: the review's own inputs (the
    repository root, the rules asked for, the scope, the configuration file named).
    """
    digest = _digest(config, [REVIEW_FORMAT, *parts])
    if digest is None:
        return None
    for listing in listings:
        digest.update(b"\n\0tree")
        for path, sha in (*listing.entries, *listing.sides, *listing.jsons.items()):
            digest.update(key_bytes(f"\n{path}\0{sha}"))
        digest.update(b"\n\0paths")
        for path in sorted(listing.paths):
            digest.update(key_bytes(f"\n{path}"))
        digest.update(b"\n\0skipped")
        for skipped in listing.skipped:
            digest.update(key_bytes(f"\n{skipped.path}\0{skipped.reason}"))
    return digest.hexdigest()


def _digest(config: Config, head: list[Any]) -> Any:
    """A SHA-1 of ``head``, the configuration and the environment, to add a tree to; None
    when the schemas come from files outside the tree (they cannot be named)."""
    schema = config.section("rules").get("schema") or {}
    if not isinstance(schema, dict) or schema.get("schema-locations"):
        return None
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(json.dumps([*head, config.raw, _environment(schema)], default=repr).encode())
    return digest


def _environment(schema: Mapping[str, Any]) -> list[Any]:
    """Where the validators and schemas come from and which versions are installed, and the
    kubeconform binaries the schema rule could run (path, size, modification time)."""
    found: list[Any] = []
    for module in ("jsonschema_rs", "ruamel.yaml", "kubernetes_validate"):
        spec = importlib.util.find_spec(module)
        found.append(spec.origin if spec is not None else None)
    site = os.path.dirname(os.path.dirname(found[0])) if found[0] else ""
    try:
        found.append(sorted(n for n in os.listdir(site) if n.endswith(".dist-info")))
    except OSError:
        found.append(None)
    for name in ("kubeconform", str(schema.get("kubeconform") or "")):
        binary = shutil.which(name) if name else None
        try:
            stat = os.stat(binary) if binary else None
        except OSError:
            stat = None
        found.append([binary, stat.st_size, stat.st_mtime_ns] if stat else binary)
    return found


def _freeze_result(result: Result) -> dict[str, Any] | None:
    """The findings, counts and quiet places as JSON data; None when some of it is not plain
    data that reads back the same."""
    if any(f.new is not None or f.suggestion is not None for f in result.findings):
        return None
    raw = {
        "findings": [_freeze_finding(f) for f in result.findings],
        "suppressed": result.suppressed,
        "stats": result.stats,
        "quiet": [[q.rule, q.file, q.line, q.reason] for q in result.quiet],
    }
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
        quiet = [Quiet(str(r), str(f), int(n), str(why)) for r, f, n, why in raw["quiet"]]
        if not isinstance(stats, dict):
            return None
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    return Result(findings, model, suppressed, stats, quiet)


def enabled_rules(config: Config, only: Sequence[str] = ()) -> list[Rule]:
    rules = [r for r in all_rules() if config.settings(r).enabled]
    if only:
        unknown = set(only) - {r.id for r in all_rules()}
        if unknown:
            raise ReviewbotError(f"unknown rule(s): {', '.join(sorted(unknown))}")
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
        outputs = [_rule_run(r, model, config, change) for r in rules
                   if r.check_change is not None]
    else:
        outputs = rule_outputs([r for r in rules if r.id != UNUSED], model, config)
    # one finding once: objects a build makes alike (a base two overlays include unchanged,
    # a --render output holding it twice) give the same finding at the same place
    raw = list(dict.fromkeys(f for out in outputs for f in out.findings))
    suppressions = Suppressions(model) if raw or change is None else None
    kept = [f for f in raw if suppressions is None or not suppressions.matches(f)]
    quiet = in_order(q for out in outputs for q in out.quiet)
    result = Result(kept, model, suppressed=len(raw) - len(kept), quiet=quiet)
    if change is not None:
        result.findings = [replace(f, new=True) for f in kept]
        return result
    unused = next((r for r in rules if r.id == UNUSED), None)
    if unused is not None and suppressions is not None:
        settings = config.settings(unused)
        active = {r.id for r in rules}
        for violation in suppressions.unused(active):
            result.findings.append(make_finding(unused, violation, settings.severity))
    result.findings.sort(key=sort_key)
    result.stats = {
        "files": len(model.files), "objects": len(model.objects), "rules": len(rules),
    }
    for out in outputs:
        result.stats.update(out.notes)
    return result


@dataclass
class RuleOutput:
    """What one rule decided: its findings (located, severity set, not yet suppressed), the
    places it stayed quiet about, its notes for the summary."""

    findings: list[Finding] = field(default_factory=list)
    quiet: list[Quiet] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)


def rule_outputs(rules: Sequence[Rule], model: Model, config: Config) -> list[RuleOutput]:
    """What each rule decided, in the order of ``rules``.

    On a large model the rules are shared with a forked worker, which inherits the model and
    sends back what its rules decided (positions resolved). If anything fails, the rules run
    here, one after the other (an error is raised exactly as without a worker).
    """
    if len(rules) < 2 or concurrency.workers(
            2, len(model.objects), concurrency.limits().rules_min_objects) < 1:
        return [_rule_run(r, model, config) for r in rules]
    mine, theirs = _share(rules)
    worker = concurrency.Worker(_rules_worker, rules, theirs, model, config)
    done: dict[int, RuleOutput] = {}
    try:
        for i in mine:
            done[i] = _rule_run(rules[i], model, config)
        data = worker.result()
        if data is not None:
            done.update(pickle.loads(data))
    except Exception:  # noqa: BLE001 - the sequential run below raises what matters
        done = {}
        worker.result()
    if len(done) != len(rules):
        return [_rule_run(r, model, config) for r in rules]
    return [done[i] for i in range(len(rules))]


def _share(rules: Sequence[Rule]) -> tuple[list[int], list[int]]:
    """Indexes of the rules for this process and for the worker, about equal in cost (each
    rule's ``COST``)."""
    loads = [0, 0]
    shares: tuple[list[int], list[int]] = ([], [])
    for i in sorted(range(len(rules)), key=lambda i: -rules[i].cost):
        side = 0 if loads[0] <= loads[1] else 1
        shares[side].append(i)
        loads[side] += rules[i].cost
    return shares


def _rule_run(rule: Rule, model: Model, config: Config,
              change: Change | None = None) -> RuleOutput:
    """What one rule decided: its check's values, findings made of its violations."""
    settings = config.settings(rule)
    out = RuleOutput()
    for decision in _decisions(rule, model, settings.options, change):
        if isinstance(decision, Violation):
            out.findings.append(make_finding(rule, decision, settings.severity, model))
        elif isinstance(decision, QuietPlace):
            line, _ = decision.obj.position(decision.path)
            out.quiet.append(Quiet(rule.id, decision.obj.file, line, decision.reason))
        else:
            out.notes[decision.key] = decision.value
    return out


def _rules_worker(rules: Sequence[Rule], indexes: Sequence[int], model: Model,
                  config: Config) -> bytes:
    """In a worker: run some rules, return what they decided."""
    out = {i: _rule_run(rules[i], model, config) for i in indexes}
    return pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)


def _decisions(rule: Rule, model: Model, options: Any,
               change: Change | None) -> Iterable[Decision]:
    if change is None:
        return rule.check_set(model, options) if rule.check_set is not None else ()
    return rule.check_change(change.diff, change.base, model, options) if (
        rule.check_change is not None) else ()


def make_finding(rule: Rule, v: Violation, severity: str | None,
                 model: Model | None = None) -> Finding:
    """The finding of ``v``: located, its severity the configured one or the rule's for its
    kind, at most a warning when the rule or the model (``Model.doubts``: how the object
    reaches its cluster) could not see everything the promise of an error needs."""
    doubt = v.doubt
    if doubt is None and v.obj is not None and model is not None and model.doubts:
        doubt = model.doubts.get(id(v.obj))
    level, message = doubted(severity or rule.severity_of(v.kind), v.message, doubt)
    if v.obj is not None:
        file, line, column = v.obj.where(v.path)
        ref = v.obj.ref
    else:
        line, column, file, ref = v.line or 1, v.column or 1, v.file or "", ""
    if v.line is not None and v.obj is not None:
        file, line, column = v.obj.file, v.line, v.column or 1
    return Finding(
        rule=rule.id, severity=level, file=file or "",
        line=line, column=column, object=ref, message=message, fix=v.fix or rule.fix,
        path=v.key or format_path(v.path), key=stable_key(v.obj, v.path, v.key),
        kind=v.kind or "",
        edits=v.edits, clusters=clusters_of(model, v.obj),
        cause=v.cause or "", amount=v.amount,
        others=tuple(make_finding(rule, o, severity, model) for o in v.others),
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
            # the raw annotations first: the object's keys are text (``obj.annotations``
            # would convert every object's annotations to find the few that say it)
            meta = obj.body.get("metadata")
            notes = meta.get("annotations") if isinstance(meta, dict) else None
            if not isinstance(notes, dict) or IGNORE not in notes:
                continue
            value = obj.annotations.get(IGNORE)
            if value is not None:  # "" names no rule: reported, not silently nothing
                rules = tuple(r.strip() for r in str(value).split(",") if r.strip())
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
                if rule in entry.used or (rule in _known() and rule not in active):
                    continue
                where = "annotation" if entry.obj is not None else "comment"
                if rule in _known():
                    message = f"ignore {where} for {rule} matches no finding"
                else:  # the name is not echoed: it may be text of a value (a Secret's)
                    close = difflib.get_close_matches(rule, sorted(_known()), n=1, cutoff=0.8)
                    hint = f" (did you mean {close[0]}?)" if close else ""
                    message = f"ignore {where} names no known rule{hint}"
                if entry.obj is not None:
                    yield Violation(entry.obj, ("metadata", "annotations", IGNORE), message)
                else:
                    yield Violation(None, (), message, file=entry.file, line=entry.line,
                                    column=entry.column, key=f"{entry.file}:{rule}")


def _known() -> frozenset[str]:
    return frozenset(r.id for r in all_rules())
