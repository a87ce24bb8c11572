"""The review: what a change does, and what it newly breaks.

1. the configuration is read from the base tree, so a pull request cannot switch a rule off
   for itself; its own changes to it are reported in the summary (:func:`review_config`);
2. the rules run on the whole base tree and the whole head tree (an object-scoped rule runs
   on the base only where its objects differ from the head's: the rest of its findings are
   the head's, :mod:`reviewbot.engine.sharing`); a head finding is *new*
   when no base finding has the same rule, object and field path (list indices replaced by
   item names, renamed objects followed), so a finding on an object the change did not touch
   is new exactly when the change caused it; findings of one cause (a node's overcommitted
   resource, a destination no ingress rule admits) are one finding placed on the object the
   change added or changed, judged new, worse or existing as one, and fixed only when the
   cause is gone for their objects (:mod:`reviewbot.engine.causes`); the change rules
   (``check_change``) judge the transition, and each of their findings is new;
3. with a cache, a review of the same two trees with the same inputs made before is read
   back (:mod:`reviewbot.engine.review_cache`) once the trees are listed and the
   configuration read: before any other blob is read or any file parsed.

Nothing here prints or publishes: :func:`review` returns the report; the command writes it.
"""

from __future__ import annotations

import atexit
import os
import posixpath
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reviewbot.config import (
    CONFIG_NAME,
    Config,
    Overrides,
    config_candidates,
    guard_binaries,
    load_config_file,
    parse_config,
)
from reviewbot.engine.findings import (
    Finding,
    clusters_said,
    in_order,
    one_per_place,
    sort_key,
    undoubted,
)
from reviewbot.engine.findings import lingering as lingering_finding
from reviewbot.engine.identity import identity
from reviewbot.engine.keys import result_key, review_key
from reviewbot.engine.options import check_options
from reviewbot.engine.outcome import ConfigReview, Report, ReviewSummary, Unapplied
from reviewbot.engine.review_cache import freeze_report, thaw_report
from reviewbot.errors import ReviewbotError
from reviewbot.load.cache import ParseCache, entry_key
from reviewbot.load.loader import LoadedFile, decode_text
from reviewbot.sources.refs import (
    Sides,
    changed_files,
    file_at,
    head_tree,
    in_repo,
    json_files_at,
    listed_blobs,
    repo_prefixes,
)
from reviewbot.sources.tree import NOT_APPLIED, PendingTree, Skipped, Tree, git_tree

if TYPE_CHECKING:  # a review read back from the cache imports none of these
    from reviewbot.diff.objects import ObjectDiff, TreeDiff
    from reviewbot.engine.run import Change, Result
    from reviewbot.model.objects import KObject, Model
    from reviewbot.netpol.diff import FlowChange, Side
    from reviewbot.netpol.ingress import IngressController

SUMMARY_LIMIT = 60_000  # the forge keeps the summary whole up to this, folds after it
SCOPES = ("new", "changed", "all")


@dataclass(frozen=True)
class ReviewSettings:
    """A review's own inputs besides the two sides."""

    config_file: str | None = None  # --config: in the repository, read from the base
    only: tuple[str, ...] = ()  # the rules asked for (empty: every enabled rule)
    scope: str = "new"  # which findings the report shows: new | changed | all
    overrides: Overrides = Overrides()  # what the command line sets over the configuration
    # --render: both sides' kustomizations built by kustomize first, as lint --render builds
    # them (new-user trial fifty-three: the flag was taken and did nothing)
    render: bool = False


@dataclass(frozen=True)
class ReviewResult:
    """What a review decided: the report, the findings reported, the new ones."""

    report: Report
    findings: tuple[Finding, ...]  # as reported (scope applied), new flag set
    new: tuple[Finding, ...]  # every new finding (what the exit code counts)
    config: Config  # what the review applied


# ---------------------------------------------------------------- configuration


@dataclass(frozen=True)
class ConfigSides:
    """The configuration a review applies and what the pull request changes in it."""

    config: Config  # what the review applies: the base branch's
    source: str  # where it came from, for the summary
    changes: tuple[dict[str, Any], ...] = ()  # the PR's own changes to it
    head_error: str | None = None  # the PR's config does not parse


Listings = tuple[Tree | PendingTree, Tree | PendingTree | None, bool]


def review_config(sides: Sides, config_file: str | None,
                  trees: Listings | None = None, *, check: bool = True) -> ConfigSides:
    """The base tree's configuration, and how the head changes it (reported, not applied).

    ``trees``: the base and head trees when already read or listed, and whether they are
    whole (read without path prefixes). ``check``: the rules' options in the base's
    configuration are checked (False: the caller checks them, :func:`check_options`)."""
    base_tree, head_side, whole = trees if trees is not None else (None, None, False)
    checked = check_options if check else _as_read
    rel: str | None = CONFIG_NAME
    if config_file:
        rel = in_repo(Path(config_file), sides.root)
        if rel is None:  # outside the repository: the workflow's own file, not the PR's
            return ConfigSides(checked(load_config_file(Path(config_file))), config_file)
    elif sides.prefixes:  # the nearest to the reviewed paths, as lint finds it
        rel = _nearest_config(sides, base_tree, head_side, whole)
    assert rel is not None
    base_data = file_at(sides.root, sides.base, rel, base_tree, whole)
    base = (checked(parse_config(base_data, f"{rel} (base)")) if base_data is not None
            else Config())
    source = f"`{rel}` of the base branch" if base_data is not None else "the defaults"
    if (isinstance(base_tree, PendingTree) and isinstance(head_side, PendingTree)
            and base_data is not None and base_tree.sha_of(rel) == head_side.sha_of(rel)):
        return ConfigSides(base, source)  # the same blob: the same text, not read again
    head_data = file_at(sides.root, sides.head, rel, head_side, whole)
    if head_data == base_data:
        return ConfigSides(base, source)
    if head_data is None:
        changes = ({"path": rel, "op": "removed"},)
        return ConfigSides(base, source, changes)
    try:
        head = check_options(parse_config(head_data, f"{rel} (head)"))
    except ReviewbotError as exc:
        return ConfigSides(base, source, (), exc.message)
    from reviewbot.diff.objects import compare  # here: only a PR that changes the config

    found = compare(dict(base.raw), dict(head.raw))
    return ConfigSides(base, source, tuple(c.as_json() for c in found))


def _nearest_config(sides: Sides, base_tree: Any, head_side: Any, whole: bool) -> str:
    """The configuration of a review limited to ``sides.prefixes``: the nearest
    `.reviewbot.yaml` from their common folder up to the root that the base branch holds
    (else the nearest the head adds, whose change is reported, not applied)."""
    start = posixpath.commonpath(list(sides.prefixes))
    candidates = config_candidates(start)
    for side, tree in ((sides.base, base_tree), (sides.head, head_side)):
        for rel in candidates:
            if file_at(sides.root, side, rel, tree, whole) is not None:
                return rel
    return CONFIG_NAME


def _as_read(config: Config) -> Config:
    return config


def base_schema_locations(config: Config, sides: Sides) -> Config:
    """``config`` with its repository-relative ``schema-locations`` read from the base commit,
    like the configuration itself: a pull request cannot weaken the schemas it is checked
    against. The base's schema files are written to a temporary folder (removed at exit)."""
    schema = config.section("rules").get("schema")
    locations = schema.get("schema-locations") if isinstance(schema, dict) else None
    if not isinstance(locations, list) or not locations:
        return config
    folder = Path(tempfile.mkdtemp(prefix="reviewbot-schemas-"))
    atexit.register(shutil.rmtree, folder, True)
    out: list[str] = []
    for raw in locations:
        text = str(raw)
        if text == "default" or text.startswith(("http://", "https://")) or os.path.isabs(text):
            out.append(text)
            continue
        fixed_part = text.split("{{")[0]
        prefix = posixpath.normpath(fixed_part if "{{" not in text
                                    else posixpath.dirname(fixed_part))
        if prefix.startswith(".."):
            out.append(text)  # outside the repository: not the pull request's
            continue
        for path, data in json_files_at(sides.root, sides.base,
                                        "" if prefix == "." else prefix).items():
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        out.append(str(folder / text))
    return config.with_options("schema", {"schema-locations": out})


def review_prefixes(sides: Sides, paths: Sequence[str], config_file: str | None) -> Sides:
    """``sides`` limited to ``paths`` (relative to the current directory); a configuration
    error is reported before a path outside the repository, as the configuration comes
    first."""
    try:
        return replace(sides, prefixes=repo_prefixes(paths, sides.root))
    except ReviewbotError:
        review_config(sides, config_file)
        raise


# ---------------------------------------------------------------- the review


def select(findings: Iterable[Finding], scope: str, touched: frozenset[str],
           touched_files: frozenset[str]) -> list[Finding]:
    """``new``: new findings; ``changed``: those plus all on touched objects; ``all``."""
    def wanted(f: Finding) -> bool:
        if scope == "all" or _changed(f):
            return True
        touches = f.object in touched or (not f.object and f.file in touched_files)
        return scope == "changed" and touches

    return sorted((f for f in findings if wanted(f)), key=sort_key)


def _changed(f: Finding) -> bool:
    """New, or an existing problem the pull request makes worse: what the review reports
    under scope ``new``, comments inline and counts for the exit code."""
    return bool(f.new or f.worse)


def _said_once(marked: list[Finding], changes: Sequence[Finding]) -> list[Finding]:
    """The head's findings and the change's, each fact said once:

    - a finding of the change that tells a head finding's fact at one of its places and
      what the change did to it (same rule, a place in common, its message the head one's
      and more: `endpoints-lost`'s "...; before this change it selected Deployment web"
      beside `no-endpoints`) is that finding told with its cause: it alone is shown;
    - a stuck rollout (change-safety) says what the pull request starts where gpu-rollout's
      own finding on the object is old; where that finding is new or made worse, it says it
      already (a new-user trial: two errors of one cause, "6 errors" for 5 problems)."""
    told: dict[tuple[str, str, int, int], list[str]] = {}
    # (rule, kind, place) -> the clusters of the change's findings that tell it there
    kinds: dict[tuple[str, str, str, int, int], list[tuple[str, ...]]] = {}
    for c in changes:
        for place in _places_of(c):
            told.setdefault((c.rule, *place), []).append(c.message)
            for k in TOLD_BY.get((c.rule, c.kind), ()):
                kinds.setdefault((c.rule, k, *place), []).append(c.clusters)
    kept = [f for f in marked if not _told_again(f, told) and not any(
        _same_cluster(f.clusters, clusters) for place in _places_of(f)
        for clusters in kinds.get((f.rule, f.kind, *place), ()))]
    # the other places of a cause a change's finding tells go with it (new-user trial
    # fifty-one: a chart's caller of a Service's port gone, the same cause as open-webui's
    # call, left with the head finding the change's replaced)
    dropped = [f for f in marked if f not in kept and f.others]
    if dropped:
        # (of its own cluster: new-user trial seventy-four D5 read staging's finding "also
        # at" dev's copy of the base line)
        changes = [_with_places_of(c, [f for f in dropped if f.rule == c.rule and any(
            p in _places_of(c) for p in _places_of(f)) and _same_cluster(f.clusters,
                                                                         c.clusters)])
                   for c in changes]
    both = [*kept, *changes]
    loud = {f.object for f in both if f.rule == "gpu-rollout" and _changed(f)}
    return [f for f in both if not (
        f.rule == "change-safety" and f.kind == "stuck-rollout" and f.object in loud)]


# a change's finding that says what the change took away, and the head's guesses at the same
# place it tells with its cause (new-user trial thirty-nine: a renamed Service's route, "which
# namespace apps does not have (did you mean ...?)" beside "which this change removes")
TOLD_BY: dict[tuple[str, str], tuple[str, ...]] = {
    ("netpol-pairing", "backend-removed"): ("no-backend",),
    ("netpol-pairing", "endpoints-lost"): ("no-endpoints", "port-unserved"),
    ("schedulability", "scale-target-lost"): ("scale-target",),
    # (new-user trial forty-five: "this change removes it", an error, beside the head's "its
    # cluster has no Service db/postgres ... Not certain", a warning, of the same call)
    ("netpol-pairing", "dependency-missing"): ("dependency-missing",),
    # (new-user trial forty-seven: a patch whose target the change renamed away)
    ("kustomize-integrity", "patch-dropped"): ("idle-patch",),
    # (new-user trials seventy-eight D6, seventy-nine D7: the digest a change drops)
    ("image-digest", "pin-dropped"): ("unpinned",),
    # (new-user trials sixty-six W3, sixty-seven D4: a reference to what the change renamed)
    ("kustomize-integrity", "dependency"): ("dependency",),
    ("kustomize-integrity", "source"): ("source",),
    ("kustomize-integrity", "image-policy"): ("image-policy",),
}


def _same_cluster(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether findings of clusters ``a`` and ``b`` may be of one cluster (none: any)."""
    return not a or not b or bool(set(a) & set(b))


def _with_places_of(c: Finding, told: Sequence[Finding]) -> Finding:
    """``c`` with the places of the head findings it tells that it lacks, as others."""
    have = set(_places_of(c))
    more: list[Finding] = []
    for f in told:
        for p in (f, *f.others):
            if (p.file, p.line, p.column) not in have:
                have.add((p.file, p.line, p.column))
                more.append(replace(p, others=()))
    return replace(c, others=(*c.others, *more)) if more else c


def _places_of(f: Finding) -> list[tuple[str, int, int]]:
    return [(p.file, p.line, p.column) for p in (f, *f.others)]


def _told_again(f: Finding, told: Mapping[tuple[str, str, int, int], list[str]]) -> bool:
    # (a doubt both end with is no part of the fact: trial 84 D4's call on its scheme's
    # port, "...refused. Not certain: ..." beside "...refused; this change took port 80
    # away. Not certain: ...")
    head = (undoubted(f.message) or f.message).rstrip(".")
    return any(message != f.message and (undoubted(message) or message).startswith(head)
               for place in _places_of(f) for message in told.get((f.rule, *place), ()))


def review(sides: Sides, settings: ReviewSettings, cache: ParseCache | None) -> ReviewResult:
    """Review the change from ``sides.base`` to ``sides.head`` (None: the work tree)."""
    # git reads both sides' blobs (in two processes) while this one reads the configuration
    # and the parse cache; with a cache, once the review is not found in it
    pending = PendingTree(sides.root, sides.base, sides.prefixes, top=True, start=cache is None)
    head_pending = (PendingTree(sides.root, sides.head, sides.prefixes, top=True,
                                skip=pending.shas, start=cache is None)
                    if sides.head is not None else None)
    try:
        # With a cache, the rules' options are checked once the review is not found in it: a
        # review stored under this configuration (its text is part of the key) is one made
        # after they passed. Errors come in the order they always did.
        cfg = review_config(sides, settings.config_file,
                            (pending, head_pending, not sides.prefixes), check=cache is None)
        try:
            guard_binaries(cfg.config, [sides.root])
            config = settings.overrides.apply(base_schema_locations(cfg.config, sides))
        except ReviewbotError:
            check_options(cfg.config)
            raise
        run = ReviewSummary(base=sides.base, base_ref=sides.base_ref, head=sides.head,
                            config=ConfigReview(cfg.source, cfg.changes, cfg.head_error))
        key = None
        if cache is not None and head_pending is not None:
            key = review_key((pending, head_pending), config,
                             [str(sides.root), list(settings.only), settings.scope,
                              settings.render,
                              settings.config_file or "", list(sides.prefixes), cfg.config.raw])
            found = cache.review(key) if key is not None else None
            listed = head_pending
            report = (thaw_report(found, run, lambda names: _texts(sides.root, listed, names))
                      if found is not None else None)
            if report is not None:
                pending.close()
                head_pending.close()
                new = tuple(f for f in report.findings if _changed(f))
                return ReviewResult(report, report.findings, new, config)
        if cache is not None:
            check_options(cfg.config)
    except BaseException:  # a refused configuration: git need not read on
        pending.close()
        if head_pending is not None:
            head_pending.close()
        raise
    return _made(sides, settings, cache, config, run, key, pending, head_pending)


def _made(sides: Sides, settings: ReviewSettings, cache: ParseCache | None, config: Config,
          run: ReviewSummary, key: str | None, pending: PendingTree,
          head_pending: PendingTree | None) -> ReviewResult:
    """The review made (not read back): both trees read, parsed, built, checked, diffed."""
    # here, not at the top: a review read back from the cache needs none of it
    from reviewbot.diff.models import diff_models
    from reviewbot.engine.causes import Changed, fixed, group, judge
    from reviewbot.engine.fixer import with_suggestions
    from reviewbot.engine.parse import Memo
    from reviewbot.engine.run import (
        Change,
        analyze,
        cached_rules,
        load_model,
        start_rules,
    )
    from reviewbot.engine.suppression import added
    from reviewbot.netpol.diff import review_connectivity
    from reviewbot.netpol.ingress import IngressController

    pending.start()
    if head_pending is not None:
        head_pending.start()
    if cache is not None:
        cache.prefetch(frozenset(entry_key(path, sha) for path, sha in pending.entries))
    base_tree = pending.tree(max_file_bytes=config.max_file_bytes)
    # the base's limit: work-tree files are read to it, every file parsed under it
    head = head_tree(sides, base_tree, head_pending, config.max_file_bytes)
    if settings.render:
        from reviewbot.model.render import render_tree

        base_tree, head = render_tree(base_tree), render_tree(head)
    memo = Memo()  # base and head share nearly every file: each is parsed once
    base_model = load_model(base_tree, config, cache, memo)
    # The base's rules run in a worker while the head is loaded and checked, and the diff
    # made; its object-scoped rules then run only where the base's objects are not the head's.
    # A base reviewed before (the pull request pushed to again) has its result in the cache:
    # then the head's object-scoped rules run only where its objects are not the base's.
    known = cached_rules(base_tree, base_model, config, settings.only, cache)
    base_rules = (start_rules(base_tree, base_model, config, only=settings.only, loader=cache,
                              background=True, share=True)
                  if known is None else lambda head=None: known)
    try:
        head_result = analyze(head, config, only=settings.only, loader=cache, memo=memo,
                              other=known)
        diff = diff_models(base_model, head_result.model)
    except Exception:
        base_rules()  # an error on the base side is reported first, as it always was
        raise
    base_result = base_rules(head_result)
    kept = diff.kept(base_model, head_result.model)  # (what a refused head build keeps)
    kept_model = _kept_model(head_result.model, kept, base_model)
    head_result = _as_kept(head_result, kept_model, config, settings.only)
    head_result = _as_lingering(head_result, kept_model or head_result.model, base_model,
                                diff, config, settings.only)
    base_found = group(base_result.findings)
    marked = judge(group(head_result.findings, Changed.of(diff)), base_found, diff.renames)
    controller = IngressController.from_config(config.section("netpol"))
    found = review_connectivity(diff, base_model, head_result.model, controller,
                                _base_side(cache, base_tree, base_model, config, controller),
                                kept)
    flows, flow_notes = found if found is not None else (None, [])
    changes = _changes(head_result.model, kept_model, config, settings.only,
                       Change(diff, base_result.model))
    marked = _said_once(marked, changes.findings)
    marked.sort(key=sort_key)
    marked = clusters_said(one_per_place(with_suggestions(head, config, head_result, marked,
                                                          _changed, memo)))
    marked = at_removed_entries(marked, base_result.model, head_result.model)
    marked = _kept_applied(marked, kept)
    changed = changed_files(base_tree, head)
    marked = at_causes(marked, base_result.model, head_result.model, changed)
    marked = near_changes(marked, base_result.model, head_result.model, changed)
    marked = at_removed_policies(marked, diff, base_result.model, head_result.model)
    # a finding about an object's own content is fixed when the object is still applied
    # without it: one whose object the head no longer applies (removed, or its applier
    # gone) went with it, unfixed; a finding of a cause between objects (a flow nobody
    # admits) is fixed when its object leaves, as the cause's relation does
    left = ({o.ref for o in base_result.model.objects} - {o.ref for o in head_result.model.objects}
            - set(diff.renames))
    still = [b for b in base_found if b.cause or b.object not in left]
    # (one the head silences with an ignore is not fixed: it is still there, said to be
    # accepted; a new-user trial's "Fixed by this pull request")
    gone = sorted(one_per_place(fixed(still, [*marked, *head_result.silenced], diff.renames)),
                  key=sort_key)
    # nor one the head still finds at its object's field in a cluster that applies it still:
    # what a build that now fails, or a cluster that no longer applies the object, took
    # away is not fixed (new-user trials seventy-five D7 and seventy-seven D3: "Fixed by this
    # pull request" of an image no change touched, production's Kustomization now stuck)
    still_found = {(h.rule, h.object, h.key) for h in (*marked, *head_result.silenced)}
    gone = [f for f in gone if (f.rule, diff.renames.get(f.object, f.object), f.key)
            not in still_found]
    # nor one whose place the head leaves unjudged, saying why (an image now `${IMAGE}`, a
    # port no longer a number: new-user trial thirty-nine's "1 fixed" of a call still made)
    unjudged = {(q.rule, q.object, q.key) for q in head_result.quiet if q.object and q.key}
    if unjudged:
        gone = [f for f in gone if not _unjudged(identity(f, diff.renames), unjudged)]
    reported = select(marked, settings.scope, diff.touched, changed)
    new = tuple(f for f in marked if _changed(f))
    summary = replace(
        run, diff=tuple(diff.as_json()), fixed=tuple(gone), connectivity=tuple(flows or ()),
        connectivity_notes=tuple(flow_notes),
        ignores=added(base_result.model, head_result.model), new=sum(1 for f in new if f.new),
        existing=len(marked) - len(new),
        scope=settings.scope, max_chars=SUMMARY_LIMIT,
        unapplied=unapplied_changes(base_model, head_result.model),
    )
    report = Report(
        findings=tuple(reported),
        skipped=(*head_result.skipped,
                 *_measured_lost(base_model, head_result.model, diff.renames,
                                 frozenset(o.ref for o in kept))),
        review=summary,
        # the places a rule stayed quiet on purpose in what the pull request changed (new-user
        # trial twenty-seven read the tree's nine, about files it did not touch, under
        # every review); `lint` lists them all
        quiet=tuple(in_order(q for q in (*head_result.quiet, *changes.quiet)
                             if q.file in changed)),
        stats=dict(head_result.stats),
        sources=_sources(head_result, reported),
    )
    if cache is not None and key is not None:
        frozen = freeze_report(report)
        if frozen is not None:
            cache.store_review(key, frozen)
    return ReviewResult(report, tuple(reported), new, config)


# rules whose findings are relations between objects (a policy and the pods it selects)
KEPT_RULES = ("netpol-pairing",)


def _kept_model(head: Model, kept: Sequence[ObjectDiff], base: Model) -> Model | None:
    """The head as the cluster keeps it (:meth:`~reviewbot.diff.objects.TreeDiff.kept`):
    where the head refuses a build, the objects it applied stay; None when it refuses none."""
    if not kept:
        return None
    from reviewbot.diff.objects import as_kept

    return as_kept(head, base, kept)


def _as_kept(result: Result, kept: Model | None, config: Config,
             only: Sequence[str]) -> Result:
    """``result`` with the findings of relations between objects judged on the head as the
    cluster keeps it (``kept``: :func:`_kept_model`): where the head refuses a build, the
    objects it applied stay, and so do the pods a policy selects (new-user trial
    twenty-seven: a Flux path typo beside two "selects no pod" warnings on policies of pods
    the cluster keeps). Its own findings, those of the head as built, stand for the objects
    that build applies."""
    from reviewbot.engine.run import run_rules

    rules = [r for r in KEPT_RULES if not only or r in only]
    if kept is None or not rules:
        return result
    return _relations_from(result, run_rules(kept, config, only=rules), rules)


def _as_lingering(result: Result, view: Model, base: Model, diff: TreeDiff, config: Config,
                  only: Sequence[str]) -> Result:
    """``result`` with the findings of relations between objects that hold only once the
    objects the change takes out of the tree and the cluster keeps are deleted by hand
    (:func:`~reviewbot.model.pruning.lingering`: their applier does not prune) said so, and
    a warning where they were errors: until then the cluster still has them, a NetworkPolicy
    still allowing what it allowed (new-user trial sixty-eight D6: an allow-dns policy
    removed under `prune: false`, "these pods cannot resolve any name", an error beside the
    warning that it stays). ``view``: the head as the cluster keeps it otherwise."""
    rules = [r for r in KEPT_RULES if not only or r in only]
    if not rules or not any(f.rule in rules for f in result.findings) or not any(
            e.status in ("removed", "renamed") for e in diff.objects):
        return result
    from reviewbot.engine.run import run_rules
    from reviewbot.model.objects import with_kept
    from reviewbot.model.pruning import lingering

    staying = lingering(base, result.model)
    if not staying:
        return result
    later = {f.identity for f in run_rules(with_kept(view, base, staying), config,
                                           only=rules).findings}
    names = sorted({f"{o.kind} {o.namespace}/{o.name}" if o.namespace else f"{o.kind} {o.name}"
                    for o in staying})
    return replace(result, findings=[
        lingering_finding(f, names) if f.rule in rules and f.identity not in later else f
        for f in result.findings])


def _relations_from(result: Result, kept: Result, rules: Sequence[str]) -> Result:
    """``result`` with the findings and quiet places of ``rules`` (relations between
    objects) taken from ``kept``, what those rules decided of the head as the cluster keeps
    it."""
    ids = set(rules)
    return replace(result, findings=[
        *(f for f in result.findings if f.rule not in ids),
        *(f for f in kept.findings if f.rule in ids)], quiet=[
        *(q for q in result.quiet if q.rule not in ids),
        *(q for q in kept.quiet if q.rule in ids)])


def _changes(head: Model, kept: Model | None, config: Config, only: Sequence[str],
             change: Change) -> Result:
    """The change's own findings (``check_change``): those of relations between objects
    judged on the head as the cluster keeps it (``kept``), as :func:`_as_kept` judges the
    head's (new-user trial thirty-four: an Application's path typo keeps the Services it
    applied, yet a caller's was "no longer in this cluster: this change removes it")."""
    from reviewbot.engine.run import run_rules

    found = run_rules(head, config, only=only, change=change)
    rules = [r for r in KEPT_RULES if not only or r in only]
    if kept is None or not rules:
        return found
    return _relations_from(found, run_rules(kept, config, only=rules, change=change), rules)


def _kept_applied(findings: Sequence[Finding], kept: Sequence[ObjectDiff]) -> list[Finding]:
    """Without the new `not-applied` infos of the files whose objects the cluster keeps
    (:meth:`~reviewbot.diff.objects.TreeDiff.kept`): their applier's entry is refused on the
    head, which that entry's own error says, and the cluster keeps what it applied (new-user
    trial thirty-four: an Application's path typo, and its folder "not applied by any
    cluster root" beside it)."""
    files = {o.base_file for o in kept if o.status == "removed"}
    return [f for f in findings if not (
        f.new and (f.rule, f.kind) == ("kustomize-integrity", "not-applied") and f.file in files)]


UNLISTED = ("kustomize-integrity", "unreachable")  # a manifest no kustomization lists


def at_removed_entries(findings: Sequence[Finding], base: Model, head: Model) -> list[Finding]:
    """A new finding that a file is listed by no kustomization, where the base's listed it
    and the pull request took the entry out, placed on the line that now stands where the
    entry was (the change; the file itself may be untouched, with no line an inline comment
    can sit on), as change-safety places what the removal deletes
    (:class:`~reviewbot.diff.anchors.Anchors`)."""
    anchors = None
    out = []
    for f in findings:
        if f.new and (f.rule, f.kind) == UNLISTED and f.file in head.files:
            if anchors is None:
                from reviewbot.diff.anchors import Anchors  # (a review of a removal only)
                anchors = Anchors(base, head)
            found = anchors.unlisted(f.file)
            if found is not None and found[1][0] in head.files:
                file, line, column = found[1]
                f = replace(f, file=file, line=line, column=column)
        out.append(f)
    return out


def at_causes(findings: Sequence[Finding], base: Model, head: Model,
              changed: frozenset[str]) -> list[Finding]:
    """A new finding whose place is in a file the pull request does not change, about an
    object a changed file builds differently (a kustomization whose build holds it: an
    overlay's ``commonLabels`` or patch; or the Flux Kustomization or Argo CD Application
    that applies it: its patches, substitutions, target namespace), anchored at that
    change's first line: its inline comment goes there when its own line is off the diff
    (new-user trial twenty-five: the DNS finding an overlay's commonLabels caused sat in
    the base's policy, and in the summary only)."""
    from reviewbot.model.kustomize import is_kustomization_file

    maybe = [f for f in findings if (f.new or f.worse) and f.file and (
        f.file not in changed or f.others) and (f.object or is_kustomization_file(f.file))]
    if not maybe or not changed:
        return list(findings)
    from reviewbot.diff.anchors import Anchors  # (a review whose change sits elsewhere)
    from reviewbot.model.objects import makers, model_graph

    anchors = Anchors(base, head)
    # (their line is in no diff: in a file the change leaves, or off its lines, the same
    # cause's other place changed: new-user trial sixty's postgres port, the finding at the
    # callers' egress rule in the same file)
    wanted = [f for f in maybe if f.file not in changed or not _in_diff(anchors, f)]
    if not wanted:
        return list(findings)

    graph = model_graph(head)
    builds: dict[str, set[str]] = {}  # a changed kustomization -> the files its build reads
    for file in sorted(changed):
        folder = posixpath.dirname(file)
        if is_kustomization_file(file) and file in head.files and folder in graph.by_dir:
            closure = graph.closure(folder)
            builds[file] = closure | {c for d in closure for c in graph.children(d)}
    by_ref: dict[str, list[KObject]] = {}
    for obj in head.objects:
        by_ref.setdefault(obj.ref, []).append(obj)
    chosen = {id(f) for f in wanted}
    out = []
    for f in findings:
        if id(f) in chosen and (other := next((o for o in f.others if o.file in changed
                                                and o.line >= 1 and _in_diff(anchors, o)),
                                               None)) is not None:
            # (the same cause's other place is in the change: a renamed Service its
            # callers still name)
            out.append(replace(f, anchor=(other.file, other.line)))
            continue
        if id(f) in chosen and f.file in changed:
            pass  # (off the change's lines in a changed file: its other places alone)
        elif id(f) in chosen and not f.object:  # a kustomization's own finding (a patch
            # whose object a changed base renamed: new-user trial thirty-two): the first
            # changed file its build reads
            folder = posixpath.dirname(f.file)
            read = ({r for d in graph.closure(folder) for r in graph.build(d).files}
                    if folder in graph.by_dir else set())
            cause = next((c for c in sorted(changed) if c in read and c in head.files), None)
            if cause is not None:
                f = replace(f, anchor=(cause, anchors.first_change(cause)))
        elif id(f) in chosen:
            objs = sorted(by_ref.get(f.object, ()), key=lambda o: o.file != f.file)[:1]
            # then the same cause's other places (a Service a changed overlay renamed, its
            # callers' finding: new-user trial thirty-four)
            objs += [o for other in f.others for o in by_ref.get(other.object, ())[:1]]
            cause = next((k for obj in objs for k, read in builds.items()
                          if obj.file in read or posixpath.dirname(obj.file) in read), None)
            if cause is None:
                cause = next((m.applier.file for obj in objs for m in makers(head, obj)
                              if m.applier is not None and m.applier.file in changed
                              and m.applier.file in head.files), None)
            if cause is None:  # a value its applier's postBuild substitutes from a changed
                # ConfigMap or Secret (new-user trial thirty-six: STORAGE_CLASS changed in the
                # cluster's settings, its immutable error at the unchanged `${...}`)
                cause = next((file for obj in objs for m in makers(head, obj)
                              if m.applier is not None
                              for file in _substitution_files(head, m.applier)
                              if file in changed), None)
            if cause is not None:
                f = replace(f, anchor=(cause, anchors.first_change(cause)))
        out.append(f)
    return out


def _measured_lost(base: Model, head: Model, renames: Mapping[str, str],
                   kept: frozenset[str] = frozenset()) -> list[Skipped]:
    """The configuration's ``measured:`` entries the base's workloads matched and the head's
    do not (a workload renamed or removed): the facts this change takes off what it judges
    (new-user trial fifty: vllm renamed qwen-32b, its startup probe no longer judged
    against the measured boot, and nothing said). Not those of a workload the cluster keeps
    (``kept``: its head build fails, :meth:`~reviewbot.diff.objects.TreeDiff.kept`): the
    entry still names what runs (new-user trial sixty-nine D5: a path typo's ollama, "did
    you mean HelmRelease/ai/vllm?")."""
    from reviewbot.model.workload import unapplied_holding, unmatched_measured

    before = {key for key, _ in unmatched_measured(base)}
    return [Skipped(".reviewbot.yaml", (
        f"measured entry {key} names a workload of {aside}, which no cluster root of the "
        "head applies: its facts reach nothing" if (aside := unapplied_holding(head, key))
        else f"measured entry {key} names no workload of the head (this change renames or "
        f"removes it{f'; did you mean {meant}?' if (meant := renames.get(key) or near) else ''}"
        "): its facts reach nothing"))
        for key, near in unmatched_measured(head) if key not in before and key not in kept]


POLICY_KINDS = ("NetworkPolicy", "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy")


def at_removed_policies(findings: Sequence[Finding], diff: TreeDiff, base: Model,
                        head: Model) -> list[Finding]:
    """A new netpol-pairing finding whose place the pull request's diff does not show, where
    the change removes a network policy of its namespace (or a clusterwide one): anchored
    where the policy was, the line that now stands there, or the entry that listed its file
    (new-user trial sixty-nine D2: allow-dns removed, its denials at untouched policies'
    `egress:`, and the one inline comment an info that the policy is deleted)."""
    removed = [e.base for e in diff.objects if e.status == "removed" and e.base is not None
               and e.kind in POLICY_KINDS]
    narrowed = [e for e in diff.objects if e.status == "modified" and e.kind in POLICY_KINDS
                and e.base is not None and e.head is not None and _lets_dns_out(e.base)]
    if not removed and not narrowed:
        return list(findings)
    from reviewbot.diff.anchors import Anchors

    anchors = Anchors(base, head)
    out = []
    for f in findings:
        f = _restoring(f, removed)
        if f.rule == "netpol-pairing" and (f.new or f.worse) and f.anchor is None and (
                f.file not in head.files or f.file not in base.files
                or not _in_diff(anchors, f)):
            namespace = f.object.split("/")[1] if f.object.count("/") == 2 else ""
            policy = next((o for o in removed if not o.namespace or o.namespace == namespace),
                          None)
            changed = next((e for e in narrowed if _narrowed_for(e, namespace)), None) if (
                policy is None and f.kind == "dns-denied") else None
            if changed is not None and changed.file and changed.line:
                # (new-user trial seventy-five D3: a clusterwide DNS policy that stopped
                # selecting namespace web, its denial at web's untouched policy, no comment)
                held = changed.head
                assert held is not None
                what = (f"{held.kind} {held.namespace}/{held.name}" if held.namespace
                        else f"{held.kind} {held.name}")
                fix = f.fix[:1].lower() + f.fix[1:] if f.fix else "add an egress rule to kube-dns."
                f = replace(f, anchor=(changed.file, changed.line),
                            fix=f"Undo this change to {what}, which let these pods reach DNS "
                                f"before it, or {fix}")
            if policy is not None:
                line = policy.position(("metadata", "name"))[0]
                place: tuple[str, int, int] | None
                if policy.file in head.files:
                    place = anchors.moved(policy.file, line)
                else:
                    listed = anchors.unlisted(policy.file)
                    place = listed[1] if listed is not None and listed[1][0] in head.files \
                        else None
                if place is not None:
                    f = replace(f, anchor=(place[0], place[1]))
        out.append(f)
    return out


def _restoring(f: Finding, removed: Sequence[KObject]) -> Finding:
    """A new DNS denial whose pods' namespace had a policy letting DNS out that the change
    removes: its fix names that policy first (new-user trial seventy-one W2: allow-dns
    dropped from a Component, the fix said to add an egress rule to kube-dns, and the
    deletion's info beside it "nothing to do if removing it is intended")."""
    if f.rule != "netpol-pairing" or f.kind != "dns-denied" or not (f.new or f.worse):
        return f
    spaces = {p.object.split("/")[1] for p in (f, *f.others) if p.object.count("/") == 2}
    lost = sorted({f"{o.kind} {o.namespace}/{o.name}" if o.namespace else f"{o.kind} {o.name}"
                   for o in removed if (not o.namespace or o.namespace in spaces)
                   and _lets_dns_out(o)})
    if not lost:
        return f
    restore = " and ".join(lost[:2]) + (f" and {len(lost) - 2} more" if len(lost) > 2 else "")
    fix = f.fix[:1].lower() + f.fix[1:] if f.fix else "add an egress rule to kube-dns."
    they = "they" if len(lost) > 1 else "it"
    return replace(f, fix=f"Restore {restore}, which this change removes ({they} let these "
                          f"pods reach DNS), or {fix}")


def _narrowed_for(entry: ObjectDiff, namespace: str) -> bool:
    """Whether a network policy the change modifies, which let DNS out as it was, may have
    stopped doing so for pods of ``namespace``: one of that namespace, or a clusterwide one,
    that lets DNS out no more, or whose selection named the namespace and names it no more."""
    before, after = entry.base, entry.head
    if before is None or after is None or (before.namespace and before.namespace != namespace):
        return False
    if not _lets_dns_out(after):
        return True
    return not before.namespace and bool(namespace) and _names(before, namespace) and not (
        _names(after, namespace))


def _names(policy: KObject, word: str) -> bool:
    """Whether a policy's selection (its ``endpointSelector`` or ``podSelector``, or a
    clusterwide one's ``namespaceSelector``) writes ``word`` as a value."""
    from reviewbot.model.reach import strings

    spec = policy.get(("spec",))
    return isinstance(spec, dict) and any(
        text == word for key in ("endpointSelector", "podSelector", "nodeSelector",
                                 "namespaceSelector") for text in strings(spec.get(key)))


def _lets_dns_out(policy: KObject) -> bool:
    """Whether a network policy as written has an egress rule naming port 53 (a
    NetworkPolicy's ``ports``, a Cilium policy's ``toPorts[].ports``)."""
    spec = policy.get(("spec",))
    rules = spec.get("egress") if isinstance(spec, dict) else None
    for rule in rules if isinstance(rules, list) else ():
        if not isinstance(rule, dict):
            continue
        written = rule.get("ports") or rule.get("toPorts")
        for item in written if isinstance(written, list) else ():
            inner = item.get("ports") if isinstance(item, dict) and "ports" in item else [item]
            for port in inner if isinstance(inner, list) else ():
                if isinstance(port, dict) and str(port.get("port")) in ("53", "dns", "dns-tcp"):
                    return True
    return False


def _in_diff(anchors: Any, place: Finding) -> bool:
    """Whether ``place``'s line is one the pull request's diff shows (a changed line, or
    within :data:`DIFF_CONTEXT` of one): an other place in a changed file, off its diff, is
    no anchor (new-user trial thirty-six: a generator literal's line far below the changed
    entry took the egress finding off the diff)."""
    lines = anchors.changed_lines(place.file)
    return any(abs(n - place.line) <= DIFF_CONTEXT for n in lines)


def _substitution_files(head: Model, applier: KObject) -> list[str]:
    """The files of the ConfigMaps and Secrets a Flux Kustomization's
    ``postBuild.substituteFrom`` reads (in its namespace)."""
    out = []
    for source in applier.get(("spec", "postBuild", "substituteFrom")) or ():
        if isinstance(source, dict) and source.get("kind") in ("ConfigMap", "Secret"):
            for obj in head.by_identity.get(("", str(source["kind"]), applier.namespace or "",
                                             str(source.get("name"))), ()):
                out.append(obj.file)
    return out


# the lines of context git's unified diff shows around a change: what a forge lets an inline
# comment sit on beside the changed lines
DIFF_CONTEXT = 3


def near_changes(findings: Sequence[Finding], base: Model, head: Model,
                 changed: frozenset[str]) -> list[Finding]:
    """A new finding in a file the pull request changes, at a line its diff does not show
    (more than :data:`DIFF_CONTEXT` lines from every change), anchored at the first change
    inside the node it is at (a rule whose port changed): the change that made it (new-user
    trial thirty-one: a CiliumNetworkPolicy rule's port changed at its end, its finding at
    the rule's `ingress:`, five lines above: no inline comment at all). A change beside the
    node, not in it, is no cause of it, but for a kustomization's own finding: the change
    changed its build, at the file's first change."""
    from reviewbot.diff.anchors import Anchors
    from reviewbot.model.kustomize import is_kustomization_file

    anchors: Anchors | None = None
    out = []
    for f in findings:
        if (f.new or f.worse) and f.anchor is None and f.file in changed and f.line and (
                f.file in head.files and f.file in base.files):
            if anchors is None:
                anchors = Anchors(base, head)
            lines = anchors.changed_lines(f.file)
            if lines and f.line not in lines and _in_diff(anchors, f):
                # shown as context of a change beside it, as these files align; git's diff
                # may align a removal otherwise (lines repeated around it) and show it not:
                # then its comment goes to that change (new-user trial fifty's DNS error)
                f = replace(f, anchor=(f.file, min(lines, key=lambda n: abs(n - f.line))))
            elif lines and not _in_diff(anchors, f):
                span = _node_span(head.files[f.file], f.line, f.column)
                inside = [n for n in lines if span is not None and span[0] <= n <= span[1]]
                if inside:
                    f = replace(f, anchor=(f.file, inside[0]))
                elif not f.object and is_kustomization_file(f.file):
                    # a kustomization's own new finding: its build is what the change
                    # changed (new-user trial thirty-five: a component entry removed, its
                    # patch of what the component made idle, far below)
                    f = replace(f, anchor=(f.file, lines[0]))
        out.append(f)
    return out


def _node_span(lf: LoadedFile, line: int, column: int) -> tuple[int, int] | None:
    """The first and last line of the node at ``line``:``column`` of ``lf`` (its value and
    everything below it), or None when no node starts there."""
    doc = max((d for d in lf.documents if d.line <= line), key=lambda d: d.line, default=None)
    if doc is None:
        return None
    positions = lf.positions(doc.index)
    at = next((p for p, pos in positions.items() if pos == (line, column)), None)
    if at is None:
        return None
    lines = [pos[0] for p, pos in positions.items() if p[:len(at)] == at]
    return min(lines), max(lines)


def _unjudged(place: tuple[str, str, str], unjudged: set[tuple[str, str, str]]) -> bool:
    """Whether a finding of identity ``place`` is at a field the head leaves unjudged: a quiet
    place of its rule and object at that field (a rule's key that extends the field's stable
    path, ``... -> postgres:5432``, is at that field)."""
    rule, obj, key = place
    return place in unjudged or (rule, obj, key.partition(" -> ")[0]) in unjudged


def _base_side(cache: ParseCache | None, tree: Tree, model: Model, config: Config,
               controller: IngressController) -> Callable[[], Side]:
    """The base's connectivity, for the connectivity diff when the change can alter a flow:
    from the cache when a review of this base tree made it before (a pull request pushed to
    again, another pull request against the same base), else made, and stored."""
    from reviewbot.netpol.diff import Side, side_of

    def side() -> Side:
        key = result_key(tree, config, ()) if cache is not None else None
        if cache is None or key is None:
            return side_of(model, controller)
        raw = cache.connectivity(key)
        found = Side.from_json(raw) if raw is not None else None
        if found is None:
            found = side_of(model, controller)
            raw = found.as_json()
            if Side.from_json(raw) == found:
                cache.store_connectivity(key, raw)
        return found

    return side


def _texts(root: Path, head: PendingTree, names: Sequence[str]) -> dict[str, str] | None:
    """The texts of head files ``names`` as the loader decodes them; None if one is not
    listed."""
    blobs = listed_blobs(root, head, names)
    return None if blobs is None else {name: decode_text(data) for name, data in blobs.items()}


def _sources(result: Result, findings: Sequence[Finding]) -> dict[str, str]:
    files = result.model.files
    return {f.file: files[f.file].text for f in findings if f.file in files}


def unapplied_changes(base: Model, head: Model) -> tuple[Unapplied, ...]:
    """The manifests the change added, changed or deleted that no cluster receives on either
    side (``Model.unapplied``: no cluster root reaches them; without roots, no build reads
    them), counted under the folder (or file) the run lists as skipped for it: the rules and
    the diff judge nothing in them, and the outputs say so, so that silence is not read as
    approval. A file the base applied and the head no longer does is not among them (the diff
    shows its objects go); neither is one skipped for its own reason (a Helm template)."""
    before = {f.path: f.blob for f in base.tree.files} if base.tree is not None else {}
    after = {f.path: f.blob for f in head.tree.files} if head.tree is not None else {}
    counts: dict[tuple[str, str], int] = {}
    for path in sorted(set(before) | set(after)):
        if before.get(path) == after.get(path):
            continue
        sides = [m for m in (head, base) if path in m.files]
        if not sides or any(path not in m.unapplied or m.files[path].skipped for m in sides):
            continue
        model = sides[0]  # the head's reason for a file it holds, the base's for one deleted
        covering = [s for s in model.skipped
                    if s.path == path or path.startswith(s.path.rstrip("/") + "/")]
        top = min(covering, key=lambda s: len(s.path), default=None)
        where = (top.path, top.reason) if top is not None else (
            path, NOT_APPLIED if model.derived.get("reach") is not None
            else "no kustomization build reads it")
        counts[where] = counts.get(where, 0) + 1
    return tuple(Unapplied(path, reason, n) for (path, reason), n in sorted(counts.items()))


# ---------------------------------------------------------------- the diff


@dataclass(frozen=True)
class Comparison:
    """Two sides loaded and diffed (``reviewbot diff``)."""

    config: Config
    base: Model
    head: Model
    diff: TreeDiff

    def verdicts(self) -> list[Finding]:
        """What applying the change does: change-safety's findings."""
        from reviewbot.engine.run import Change, run_rules

        return run_rules(self.head, self.config, only=("change-safety",),
                         change=Change(self.diff, self.base)).findings

    def flows(self) -> tuple[FlowChange, ...]:
        """The flows the change opens, closes or changes."""
        from reviewbot.netpol.diff import review_changes
        from reviewbot.netpol.ingress import IngressController

        return tuple(review_changes(self.diff, self.base, self.head, IngressController.from_config(
            self.config.section("netpol"))) or ())

    def unapplied(self) -> tuple[Unapplied, ...]:
        """The changed manifests no cluster receives (:func:`unapplied_changes`)."""
        return unapplied_changes(self.base, self.head)


def compare_sides(sides: Sides, config: Config, loader: Any) -> Comparison:
    """Load both sides with ``config`` (the base's: :func:`review_config`; ``loader``: a parse
    cache or None) and diff them."""
    from reviewbot.diff.models import diff_models
    from reviewbot.engine.parse import Memo
    from reviewbot.engine.run import load_model

    memo = Memo()
    base = load_model(git_tree(sides.root, sides.base, sides.prefixes,
                               max_file_bytes=config.max_file_bytes), config, loader, memo)
    head = load_model(head_tree(sides, max_file_bytes=config.max_file_bytes), config, loader,
                      memo)
    return Comparison(config, base, head, diff_models(base, head))
