"""The diff of two models: what ``reviewbot diff`` shows and a review judges."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from reviewbot.diff.objects import Generated, Item, ObjectDiff, TreeDiff, diff_items, items_of
from reviewbot.model.objects import (
    KObject,
    Maker,
    Model,
    add_identity,
    applied_identities,
    appliers,
    clusters_phrase,
    departure,
    generated_clusters,
    generated_holding,
    makers,
    owners,
    refused_build,
    refused_clusters,
)

Identity = tuple[str, str, str, str]


def diff_models(base: Model, head: Model) -> TreeDiff:
    """The diff of two models (``diff_items`` of their ``items_of``), without the identities
    whose one item on each side is the same parsed body in the same file (files both sides
    share: the diff would find nothing there).

    Objects are told apart before any diff item is made for them (most of a tree), from the
    models' identity index; kustomization files and values documents are diff items first.
    An object one side applies through a Flux Kustomization or Argo CD Application and the
    other side's appliers do not (:func:`departure`: an entry removed from the build that
    held it, or put back) is removed (added), though a repository without roots holds its
    file as written on the other side.
    """
    built = base, head
    base, head = _applied(base, head)  # (items from these; builds are asked of ``built``)
    base_rest, head_rest = items_of(replace(base, objects=[])), items_of(replace(head, objects=[]))
    others = {i.identity for i in base_rest} | {i.identity for i in head_rest}
    shared: set[Identity] = set()
    for identity, found in base.by_identity.items():
        other = head.by_identity.get(identity)
        if (len(found) == 1 and other is not None and len(other) == 1
                and identity not in others and found[0].body is other[0].body
                and found[0].file == other[0].file
                and base.clusters.get(id(found[0])) == head.clusters.get(id(other[0]))):
            shared.add(identity)

    def objects_only(model: Model) -> Model:
        kept = [o for o in model.objects if o.identity not in shared]
        return replace(model, objects=kept, kustomizations=[], files={}, derived={})

    base_items = items_of(objects_only(base)) + base_rest
    head_items = items_of(objects_only(head)) + head_rest
    groups: dict[Identity, list[Item]] = {}
    for item in base_items:
        groups.setdefault(item.identity, []).append(item)
    heads: dict[Identity, list[Item]] = {}
    for item in head_items:
        heads.setdefault(item.identity, []).append(item)
    same = set()
    for identity, olds in groups.items():
        news = heads.get(identity)
        if len(olds) == 1 and news is not None and len(news) == 1:
            b, h = olds[0], news[0]
            if b.body is h.body and b.file == h.file and (b.strip, b.secret, b.clusters) == (
                    h.strip, h.secret, h.clusters):
                same.add(identity)
    diffed = diff_items([i for i in base_items if i.identity not in same],
                        [i for i in head_items if i.identity not in same],
                        frozenset(base.cluster_entries.keys() & head.cluster_entries.keys()))
    entries = [part for o in diffed.objects for part in _by_build(o, *built)]
    refs = Counter(o.ref for o in entries)
    return TreeDiff(tuple(_as_built(o, *built, refs[o.ref] > 1 or _made_apart(o, *built))
                          for o in entries), _generated(*built))


def _made_apart(o: ObjectDiff, base: Model, head: Model) -> bool:
    """Whether other copies of ``o``'s object are made apart on its side (two clusters'
    builds of one base): the entry then names the build whose copy changed (new-user trial
    fifty-nine: production's copy alone changed, and its entry named no build)."""
    obj, model = (o.head, head) if o.head is not None else (o.base, base)
    return obj is not None and len(model.by_identity.get(obj.identity, ())) > 1


def _generated(base: Model, head: Model) -> tuple[Generated, ...]:
    """The Applications an ApplicationSet generates on one side only, where the walk
    evaluated it on both sides (or it is in one tree alone: a side without roots walks
    nothing): one whose generators it could not evaluate on a side says nothing of what
    that side generates."""
    walked = base.derived.get("reach"), head.derived.get("reach")
    if walked[0] is None and walked[1] is None:
        return ()
    before, after = (w.generated_apps if w is not None else {} for w in walked)
    out: list[Generated] = []
    for key in sorted(before.keys() | after.keys()):
        if any(key not in side and _appset(model, key) is not None
               for side, model in ((before, base), (after, head))):
            continue  # (in that tree, not evaluated there)
        old, new = before.get(key, ("", set())), after.get(key, ("", set()))
        by = f"ApplicationSet/{key[0]}/{key[1]}" if key[0] else f"ApplicationSet/{key[1]}"
        made = _appset(head, key)
        line = made.doc.line if made is not None and made.doc is not None else None
        out += [Generated(ns, name, "removed", by, old[0]) for ns, name in sorted(old[1] - new[1])]
        out += [Generated(ns, name, "added", by, new[0], line)
                for ns, name in sorted(new[1] - old[1])]
    return tuple(out)


def _appset(model: Model, key: tuple[str, str]) -> KObject | None:
    """The ApplicationSet of ``key`` in ``model`` (one the walk met without a namespace:
    of that name in any)."""
    return next((o for o in model.objects if o.kind == "ApplicationSet" and o.name == key[1]
                 and (not key[0] or (o.namespace or "") == key[0])), None)


def _by_build(o: ObjectDiff, base: Model, head: Model) -> list[ObjectDiff]:
    """``o``, or where kustomize refuses the head builds of some of the clusters that get
    it while the others' build, two entries: the change those clusters get, and the same
    change in the source only for the clusters whose build fails (they keep what they have;
    a new-user trial's failing staging build went unsaid beside production's change). A
    change from a base copy of some clusters alone (dev's and prod's copies were two, the
    head's one) is split among those (new-user trial fifty-four: each copy's change was
    said twice, once as applied and once as failing)."""
    if o.head is None or o.clusters or o.status == "removed":
        return [o]
    split = refused_clusters(head, o.head)
    if split is None:
        return [o]
    working, failing, (file, entry, why) = split
    if o.base is not None and (had := base.clusters.get(id(o.base))):
        working, failing = working & had, failing & had
        if not failing:
            return [o]
        if not working:
            return [replace(o, clusters=failing, unbuilt=("head", file, entry, why))]
    return [replace(o, clusters=working),
            replace(o, clusters=failing, unbuilt=("head", file, entry, why))]


def _applied(base: Model, head: Model) -> tuple[Model, Model]:
    """``base`` and ``head`` without what their appliers no longer apply, each way
    (:func:`_unapplied`)."""
    return _without(base, _unapplied(base, head)), _without(head, _unapplied(head, base))


def _unapplied(model: Model, other: Model) -> set[int]:
    """The objects of ``model`` in files its appliers do not reach that are not what its
    cluster receives: their identity departs (:func:`departure`: ``other`` applies it
    through an applier, ``model``'s appliers no longer do: an entry removed, or put back),
    or a file ``other``'s appliers reach still holds a copy of an identity ``model``'s
    appliers apply from elsewhere (a moved ``spec.path``)."""
    if not appliers(other):
        return set()
    there = appliers(other)
    applied = applied_identities(model)
    return {id(o) for o in model.objects if not owners(model, o) and (
        o.identity in applied and there.get(o.file) or any(
            departure(other, model, b) is not None
            for b in other.by_identity.get(o.identity, ())))}


def _build_name(model: Model, maker: Maker, into: frozenset[str] = frozenset()) -> str:
    """A build that makes an object, named: its applier, with its cluster where the tree
    holds several (two clusters' ``flux-system/apps`` are two builds), else its folder. An
    applier of another cluster than ``into`` (the object's, an Argo CD Application living in
    Argo CD's own) is named by the clusters it deploys to (new-user trial forty-five read
    "Application argocd/platform-staging of cluster in-cluster" of staging's objects)."""
    clusters = model.clusters.get(id(maker.applier)) if (
        maker.applier is not None and model.cluster_entries) else None
    if clusters and into and not clusters & into:
        # (several: one body dev and staging both get, new-user trial sixty-eight D4's
        # "ApplicationSet argocd/apps of cluster in-cluster", the ApplicationSet's own)
        return f"{maker.name} to {clusters_phrase(sorted(into))}"
    if clusters and len(clusters) == 1:
        return f"{maker.name} of cluster {next(iter(clusters))}"
    return maker.name


def _without(model: Model, gone: set[int]) -> Model:
    if not gone:
        return model
    kept = [o for o in model.objects if id(o) not in gone]
    by_identity: dict[Identity, list[KObject]] = {}
    for o in kept:
        add_identity(by_identity, o)
    return replace(model, objects=kept, by_identity=by_identity)


def _as_built(o: ObjectDiff, base: Model, head: Model, several: bool) -> ObjectDiff:
    """``o`` with what its builds say: kustomize refuses every build that makes it on the
    head (or, else, on the base), so that side applies nothing of it and comparing it says
    nothing of the cluster; and which builds make it, when several make its identity."""
    unbuilt = o.unbuilt  # (:func:`_by_build`: the clusters whose head build fails)
    if unbuilt is None:
        one = next(iter(o.clusters)) if len(o.clusters) == 1 else None  # (cut to one)
        if o.head is not None:
            refused = refused_build(head, o.head, None, one if _of_appset(head, o.head)
                                    else None)
        else:
            refused = refused_build(base, o.base, head, one) if o.base is not None else None
        if refused is not None:
            unbuilt = ("head", *refused)
        elif o.base is not None and (refused := refused_build(base, o.base)) is not None:
            unbuilt = ("base", *refused)
    builds: tuple[str, ...] = ()
    if several or o.clusters:
        obj, model = (o.head, head) if o.head is not None else (o.base, base)
        into = frozenset(o.clusters) or model.clusters.get(id(obj), frozenset())
        if not o.clusters and o.base is not None and o.head is not None and (
                narrowed := into & base.clusters.get(id(o.base), frozenset())):
            into = narrowed  # (the change of the base copy of these clusters)
        builds = tuple(dict.fromkeys(  # (one document two builds made alike: one name)
            _build_name(model, m, into) for m in makers(model, obj) if (not o.clusters or (
                o.clusters & _applier_clusters(model, m, obj))) and not _elsewhere(
                model, m, into))) if obj is not None else ()
    return replace(o, unbuilt=unbuilt, builds=builds) if unbuilt or builds else o


def _elsewhere(model: Model, maker: Maker, into: frozenset[str]) -> bool:
    """Whether ``maker``'s applier is a Flux Kustomization of clusters none of ``into``: it
    applies into its own cluster, so it makes none of their copies (new-user trial
    eighty-one D5: production's apps was named "to cluster staging" of a route both
    clusters' heads build alike)."""
    applier = maker.applier
    if applier is None or not into or applier.kind != "Kustomization" or (
            applier.group != "kustomize.toolkit.fluxcd.io"):
        return False
    clusters = model.clusters.get(id(applier), frozenset())
    return bool(clusters) and not clusters & into


def _of_appset(model: Model, obj: KObject) -> bool:
    """Whether an ApplicationSet's generated Applications make ``obj`` (each deploying
    its copy to its own cluster: the entry of one cluster is judged by that one's build)."""
    return any(m.applier is not None and m.applier.kind == "ApplicationSet"
               for m in makers(model, obj))


def _applier_clusters(model: Model, maker: Maker, obj: KObject | None = None
                      ) -> frozenset[str]:
    """The clusters of the applier of ``maker`` (none when it has none); of an
    ApplicationSet, those its Applications that made ``obj`` deploy to."""
    if maker.applier is None:
        return frozenset()
    if maker.applier.kind == "ApplicationSet" and obj is not None:
        return frozenset(c for p, _ in generated_holding(model, maker.applier, obj)
                         for c in generated_clusters(model, maker.applier, p))
    return model.clusters.get(id(maker.applier), frozenset())
