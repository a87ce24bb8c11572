"""change-safety's `deleted-data`, `deleted-in-use`, `deleted` and `orphaned` verdicts:
objects the base applied that the head no longer does, and what the applier's garbage
collection does with them."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reviewbot.diff.anchors import Anchors, Place
from reviewbot.engine.findings import Violation
from reviewbot.load.paths import format_path
from reviewbot.model.kustomize import FLUX_BUILD_FIELDS
from reviewbot.model.objects import (
    Departure,
    KObject,
    Model,
    Path,
    PodTemplate,
    appliers,
    cluster_phrase,
    clusters_phrase,
    departure,
    dig,
    items,
    mapping,
    model_graph,
)
from reviewbot.model.pruning import applier_prunes, argo_spec, gc_exempt
from reviewbot.model.values import renders_claim
from reviewbot.model.workload import config_refs
from reviewbot.rules._change_safety.common import (
    ARGO_FINALIZER,
    ARGO_SYNC,
    PRUNE,
    count_text,
    is_flux_kustomization,
    object_name,
)
from reviewbot.rules._change_safety.external import external_loss

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import TreeDiff


def may_delete(diff: TreeDiff, base: Model, head: Model) -> bool:
    """False when no object can have left what the appliers apply: nothing removed or
    renamed, no kustomization, Flux Kustomization or Argo CD Application (or ApplicationSet:
    an element of its generator removed, new-user trial fifty) changed, and every object
    still in the file it was in (the check that follows costs a walk of both trees)."""
    if any(e.status in ("removed", "renamed") or e.kind in (
            "Kustomization", "Application", "ApplicationSet") for e in diff.objects):
        return True
    if any(g.status == "removed" for g in diff.generated):
        return True  # (an ApplicationSet's Application gone with no change of its own: a
        # cluster Secret's label it selects misspelt, new-user trial seventy D2)
    here = {(o.identity, o.file) for o in head.objects}
    return any((o.identity, o.file) not in here for o in base.objects)


def deletion_verdicts(diff: TreeDiff, base: Model, head: Model,
                      data_kinds: frozenset[str], failing: frozenset[str] = frozenset()
                      ) -> Iterator[Violation]:
    """The deletions and orphans of the change; ``failing``: the refs of the appliers whose
    apply the change makes fail (a new namespace nothing creates): they prune nothing."""
    if not appliers(base):
        return
    fates = _Fates(diff, base, head)
    # the namespaces this change deletes (their Namespace pruned): what is in them goes too
    emptied = frozenset(o.name for o in base.objects if o.kind == "Namespace" and o.group == ""
                        and (f := fates.of(o)) is not None and f.deleter is not None
                        and not _kept(o, f))
    for obj in base.objects:
        fate = fates.of(obj)
        if fate is None or _kept(obj, fate) or (fate.deleter is not None
                                                and fate.owner.ref in failing):
            continue  # (an apply that fails prunes nothing: new-user trial forty-three's
            # "it is deleted in the cluster" beside the namespace-missing warning)
        who = f"{obj.kind} {object_name(obj)}"
        file, line, column = fate.place
        if fate.deleter is None:
            yield Violation(
                obj, ("metadata", "name"),
                f"{who} {fate.how}, but {fate.stays}: it stays in the cluster and keeps "
                "running, with nothing managing it",
                fix=f"Delete {obj.kind} {object_name(obj)} by hand after the merge if it should "
                    "go, or keep it in the tree.",
                kind="orphaned", file=file, line=line, column=column,
            )
            continue
        loss = _data_lost(obj, base, emptied) if obj.kind in data_kinds else None
        text = f"{who} {fate.how}, and {fate.deleter}"
        outside = external_loss(obj, base) if loss is None else None
        if outside is not None:
            yield Violation(obj, ("metadata", "name"), f"{text}, which deletes {outside.loss}",
                            fix=(f"If the resource {who} stands for must stay, first merge "
                                 f"{outside.keep} on it, then remove it; if it must go, back "
                                 "up its data first."),
                            kind="deleted-data", file=file, line=line, column=column,
                            doubt=outside.doubt)
            continue
        if loss is not None:
            yield Violation(obj, ("metadata", "name"),
                            f"{text}, which deletes {loss}"
                            f"{_still_mounted(head, obj, departure(base, head, obj))}",
                            fix=_keep_fix(obj, fate), kind="deleted-data", file=file,
                            line=line, column=column)
            continue
        collected = _collected(obj, base, head, data_kinds) if is_flux_kustomization(
            obj) else []
        if collected:  # (new-user trial sixty-six: infrastructure renamed infra-controllers,
            # "deleted" an info while its finalizer deletes the data Namespace and claim)
            shown = [f"{o.kind} {object_name(o)} ({_data_lost(o, base, emptied)})"
                     for o in collected]
            named = "; ".join(shown[:3]) + (f"; and {len(shown) - 3} more" if len(shown) > 3
                                             else "")
            fix = (f"First merge spec.prune: false on Kustomization {object_name(obj)} (its "
                   "deletion then deletes nothing), then rename or remove it.")
            stalled = _never_applied_again(collected, head)
            if stalled:  # (nothing takes them over: new-user trial sixty-nine D3, moved to a
                # namespace whose Kustomization cannot read its substituteFrom)
                yield Violation(
                    obj, ("metadata", "name"),
                    f"{text}; kustomize-controller's finalizer then deletes what it applied "
                    f"and that still carries its labels: {named}; the head would apply "
                    f"{'it' if len(collected) == 1 else 'them'} again, but {stalled}, so "
                    "nothing does",
                    fix=fix, kind="deleted-data", file=file, line=line, column=column)
                continue
            yield Violation(
                obj, ("metadata", "name"),
                f"{text}; kustomize-controller's finalizer then deletes what it applied and "
                f"that still carries its labels: {named}, which the head applies again, "
                "empty",
                fix=fix, kind="deleted-data", file=file, line=line, column=column,
                doubt=(f"whether kustomize-controller deletes them before the Kustomization "
                       "that applies them now takes them over (their labels then name it, "
                       f"and {object_name(obj)}'s finalizer skips them): the two run at once"))
            continue
        if obj.kind == "HelmRelease" and obj.group == "helm.toolkit.fluxcd.io":
            text += ("; helm-controller uninstalls the release, and every object of the chart "
                     "goes with it")
            claims = _chart_claims_deleted(obj, base)
            if claims:
                yield Violation(
                    obj, ("metadata", "name"),
                    f"{text}, the claims app-template renders for "
                    f"{', '.join(f'persistence.{c}' for c in claims)} too (no retain: "
                    "true): with reclaim policy Delete, the data of their volumes",
                    fix=(f"If the data must stay, first merge retain: true on "
                         f"{', '.join(f'persistence.{c}' for c in claims)} (Helm then keeps "
                         "the claims), then remove the release; if it must go, back up its "
                         "data first."),
                    kind="deleted-data", file=file, line=line, column=column)
                continue
        gone = departure(base, head, obj)
        readers = [r for r in _readers(head, obj, gone.clusters if gone is not None
                                       else frozenset()) if not fates.deleted(r[0].obj)] if (
            obj.kind in ("ConfigMap", "Secret") and obj.group == "") else []
        if readers:  # (new-user trial thirty-two: "Nothing to do if removing it is
            # intended" while the api's envFrom still named it)
            shown = [f"{p.obj.kind} {object_name(p.obj)}" for p, _, _ in readers]
            names = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3
                                            else "")
            pod, at, read = readers[0]
            where = "{}:{}".format(*pod.obj.where(at)[:2])
            as_written = ("" if read == obj.name else f", as {read}: kustomize renames a "
                          "reference with what it names only")
            yield Violation(
                obj, ("metadata", "name"),
                f"{text}, while {names} still {'reads' if len(readers) == 1 else 'read'} it "
                f"({format_path(at[max(i for i, p in enumerate(at) if p in _READING):])} at "
                f"{where}{as_written}): its new pods "
                "fail to start (CreateContainerConfigError) until it is back",
                fix=(f"Keep {who}, or first stop {pod.obj.kind} {object_name(pod.obj)} "
                     "reading it (or mark the reference optional: true)."),
                kind="deleted-in-use", file=file, line=line, column=column)
            continue
        release = _chart_takes_over(head, obj)
        if release is not None:  # (new-user trial eighty-seven D8: a route moved into the
            # release's `route:` values, "deleted", and the fix, prune: disabled, would keep
            # the object Helm cannot adopt)
            yield Violation(
                obj, ("metadata", "name"),
                f"{text}; {release} renders {obj.kind} {object_name(obj)} in its place, which "
                "Helm creates once the prune deleted this one (an upgrade before it fails: "
                "the object exists and carries no Helm ownership)",
                fix="Nothing to do: let the prune delete it (prune: disabled would keep an "
                    "object Helm never adopts); the release retries its upgrade.",
                kind="deleted", file=file, line=line, column=column)
            continue
        # (a rename: the new object takes its place, and nothing is to keep; new-user trial
        # sixty-seven W4 read "to keep it running, first merge ... prune: disabled" of each)
        renamed = fate.how.startswith("is renamed to")
        # (a generator's entry that misspells the folders deletes what nobody meant to:
        # new-user trial sixty-eight D2, a whole app's Deployments, Services and Ingress
        # deleted in prod by `overlay/*`, 26 infos and exit 0)
        yield Violation(
            obj, ("metadata", "name"), text,
            fix=(f"{fate.typo} Nothing else to do." if fate.typo else
                 "Nothing to do if the new name is meant: the renamed object takes its place."
                 if renamed else
                 f"Nothing to do if removing it is intended; to keep it running, first merge "
                 f"{_keep_annotation(fate)} on it."),
            kind="deleted-by-typo" if fate.typo else "deleted", file=file, line=line,
            column=column,
        )


_READING = ("envFrom", "env", "volumes")  # where a pod reads a ConfigMap or Secret


def _chart_takes_over(head: Model, obj: KObject) -> str | None:
    """The release of ``head`` (``HelmRelease ns/name``) whose chart renders an object of
    ``obj``'s kind and name in its namespace, where app-template's templates say: its
    Services and the HTTPRoutes of its ``route`` values; None."""
    if obj.kind not in ("Service", "HTTPRoute"):
        return None
    from reviewbot.model.releases import releases

    namespace = obj.namespace or "default"
    for release in releases(head):
        if release.namespace != namespace or not release.evaluated:
            continue
        names = release.routes if obj.kind == "HTTPRoute" else tuple(
            s.name for s in release.services)
        if obj.name in names:
            return f"{release.obj.kind} {release.obj.namespace}/{release.obj.name}"
    return None


def _collected(kustomization: KObject, base: Model, head: Model,
               data_kinds: frozenset[str]) -> list[KObject]:
    """The objects of ``data_kinds`` the deleted Flux Kustomization applied on the base that
    the head still applies (through another Kustomization: a rename): its finalizer deletes
    its inventory's objects that carry its owner labels, unless its ``spec.deletionPolicy``
    is ``Orphan`` (or, by default ``MirrorPrune``, ``spec.prune`` is not true), it is
    suspended, or an object is annotated ``kustomize.toolkit.fluxcd.io/prune: disabled``
    (kustomize-controller's ``finalize``)."""
    from reviewbot.model.objects import owners

    policy = kustomization.get(("spec", "deletionPolicy"))
    if policy == "Orphan" or kustomization.get(("spec", "suspend")) is True or (
            policy not in ("Delete", "WaitForTermination")
            and kustomization.get(("spec", "prune")) is not True):
        return []
    return [o for o in base.objects if o.kind in data_kinds
            and _data_lost(o, base) is not None
            and str(mapping(o.get(("metadata", "annotations"))).get(PRUNE)) != "disabled"
            and any(k is kustomization for k in owners(base, o))
            and departure(base, head, o) is None]


def _never_applied_again(collected: Sequence[KObject], head: Model) -> str:
    """Why none of ``collected`` (base objects the head still builds) is applied again: each
    Flux Kustomization of the head that builds them is one no cluster ever applies (a
    ``dependsOn`` or ``substituteFrom`` its cluster lacks: :func:`waiting`), said of the
    first; "" when some of them may be."""
    from reviewbot.model.dependencies import waiting
    from reviewbot.model.objects import owners

    stalled: dict[int, str] | None = None
    first = ""
    for o in collected:
        appliers_now = [k for h in head.by_identity.get(o.identity, ())
                        for k in owners(head, h)]
        if not appliers_now:
            return ""
        if stalled is None:
            stalled = {id(k): why for k, why in waiting(head)}
        if any(id(k) not in stalled for k in appliers_now):
            return ""
        first = first or stalled[id(appliers_now[0])]
    return first


def _readers(model: Model, obj: KObject, clusters: frozenset[str] = frozenset()
             ) -> list[tuple[PodTemplate, Path, str]]:
    """The pods of ``model`` in ``obj``'s namespace that read ConfigMap or Secret ``obj``
    without ``optional: true`` (``envFrom``, an env ``valueFrom``, a volume, a projected
    volume's source), each with the first place it does and the name it reads there; one
    per workload. A reference names ``obj`` by its name, or by the name its document writes
    where a build renamed it and ``model`` has nothing of that name: kustomize renamed the
    reference with ``obj`` while ``obj`` was of its build, and leaves it as written once
    ``obj`` is gone (new-user trial thirty-four: `namePrefix: prod-`). ``clusters``: the ones
    ``obj`` leaves (none: all), whose pods alone lose it (new-user trial forty-seven: staging's
    api, reading staging's api-config, was said to read production's, renamed)."""
    kind = obj.kind
    names = {obj.name}
    namespace = obj.namespace or "default"
    if obj.name_as_written != obj.name and not model.by_identity.get(
            (obj.group, kind, obj.namespace or "", obj.name_as_written)):
        names.add(obj.name_as_written)
    out: list[tuple[PodTemplate, Path, str]] = []
    seen: set[int] = set()
    for pod in model.pods:
        if pod.namespace != namespace or id(pod.obj) in seen or pod.origin is not None or (
                clusters and not clusters & model.clusters.get(id(pod.obj), clusters)):
            continue
        found = next(((at, name) for at, read, name, optional in config_refs(pod)
                      if read == kind and name in names and not optional), None)
        if found is not None:
            seen.add(id(pod.obj))
            out.append((pod, *found))
    return out


def dangling_references(diff: TreeDiff, base: Model, head: Model,
                        pods: Mapping[int, Sequence[PodTemplate]]) -> Iterator[Violation]:
    """``deleted-in-use``: a workload whose reference to a ConfigMap or Secret the change
    turns from one the change removes into a name nothing of the head makes, not
    ``optional``: a generator removed (new-user trial thirty-four: the base read the
    generated chat-template-<hash>, kustomize renaming the reference with it; without it,
    the reference stays `chat-template` as written), so new pods fail to start
    (``pods``: the pods of each object of both sides, by the object's id)."""
    from reviewbot.model.kustomize import unhashed

    # the ConfigMaps and Secrets the change removes, or renames (a generator renamed: the
    # diff names a generated one without its hash)
    removed: dict[tuple[str, str], set[str]] = {}
    made: set[tuple[str, str, str]] = set()  # what the head's builds make (generated too)
    for o in diff.objects:
        if o.kind in ("ConfigMap", "Secret") and o.api_version == "v1" and (
                o.status == "removed" or o.status == "renamed" and o.renamed_from):
            name = o.name if o.status == "removed" else str(o.renamed_from).rpartition("/")[2]
            removed.setdefault((o.namespace or "default", o.kind), set()).add(name)
        if o.kind in ("ConfigMap", "Secret") and o.status != "removed":
            made.add((o.namespace or "default", o.kind, o.name))
    if not removed:
        return
    renamed_to = {(o.namespace or "default", o.kind, str(o.renamed_from).rpartition("/")[2]):
                  o.name for o in diff.objects if o.status == "renamed" and o.renamed_from}
    changed = {id(o.head) for o in diff.objects if o.head is not None}
    for obj in head.objects:  # (a HelmRelease the change leaves, reading what it removes)
        if id(obj) not in changed and obj.kind == "HelmRelease":
            yield from _unchanged_values_from(obj, removed, made, renamed_to, head)
    for entry in diff.objects:
        if entry.status != "modified" or entry.base is None or entry.head is None:
            continue
        yield from _dangling_values_from(entry.base, entry.head, removed, made, head)
        before = {p.name: p for p in pods.get(id(entry.base), ())}
        for pod in pods.get(id(entry.head), ()):
            old = before.get(pod.name)
            if old is None or pod.origin is not None:
                continue
            was = {at: (kind, name) for at, kind, name, _ in config_refs(old)}
            for at, kind, name, optional in config_refs(pod):
                then = was.get(at)
                gone = removed.get((pod.namespace, kind), set())
                if optional or then is None or then == (kind, name) or (
                        then[1] not in gone and unhashed(then[1]) not in gone) or (
                        head.by_identity.get(("", kind, pod.obj.namespace or "", name))) or (
                        unhashed(name) != name or (pod.namespace, kind, name) in made):
                    continue  # (a generated name: kustomize renamed the reference with the
                    # ConfigMap its head build makes; new-user trial thirty-six's content
                    # change was said "nothing makes")
                field = format_path(at[max(i for i, p in enumerate(at) if p in _READING):])
                yield Violation(
                    pod.obj, at,
                    f"{pod.obj.kind} {object_name(pod.obj)} reads {kind} {name} ({field}), "
                    "which nothing the cluster receives makes: the change removes "
                    f"{kind} {pod.namespace}/{then[1]} it read before (kustomize renames a "
                    "reference with what it names only), so its new pods fail to start "
                    "(CreateContainerConfigError)",
                    fix=(f"Keep what made {kind} {then[1]} (a generator, an object), or stop "
                         f"reading {name} (or mark the reference optional: true)."),
                    kind="deleted-in-use")


def _values_from(obj: KObject) -> list[tuple[Path, str, str, bool]]:
    """A Flux HelmRelease's ``valuesFrom`` references to ConfigMaps and Secrets: (where its
    name is, the kind, the name, optional)."""
    if obj.kind != "HelmRelease" or obj.group != "helm.toolkit.fluxcd.io":
        return []
    out: list[tuple[Path, str, str, bool]] = []
    refs = obj.get(("spec", "valuesFrom"))
    for i, ref in enumerate(refs if isinstance(refs, list) else ()):
        if isinstance(ref, dict) and ref.get("kind") in ("ConfigMap", "Secret") and isinstance(
                ref.get("name"), str):
            out.append((("spec", "valuesFrom", i, "name"), str(ref["kind"]), ref["name"],
                        ref.get("optional") is True))
    return out


def _dangling_values_from(old: KObject, new: KObject, removed: Mapping[tuple[str, str], set[str]],
                          made: set[tuple[str, str, str]], head: Model) -> Iterator[Violation]:
    """:func:`dangling_references` of a Flux HelmRelease's ``valuesFrom``: a ConfigMap or
    Secret it read, which the change removes (a generator renamed), named now by a name
    nothing of the head makes, not ``optional``: helm-controller cannot compose the
    release's values ("could not find ConfigMap", ValuesError) and neither installs nor
    upgrades it (new-user trial sixty-one: `redis-values` renamed `redis-chart-values`, the
    reference kustomize renamed with it left as written, and "no new findings")."""
    from reviewbot.model.kustomize import unhashed

    namespace = new.namespace or "default"
    was = {at: (kind, name) for at, kind, name, _ in _values_from(old)}
    for at, kind, name, optional in _values_from(new):
        then = was.get(at)
        gone = removed.get((namespace, kind), set())
        if optional or then is None or then == (kind, name) or (
                then[1] not in gone and unhashed(then[1]) not in gone) or (
                head.by_identity.get(("", kind, new.namespace or "", name))) or (
                unhashed(name) != name or (namespace, kind, name) in made):
            continue
        yield Violation(
            new, at,
            f"HelmRelease {object_name(new)} reads {kind} {name} (valuesFrom), which nothing "
            f"the cluster receives makes: the change removes {kind} {namespace}/{then[1]} it "
            "read before (kustomize renames a reference with what it names only), so "
            f"helm-controller cannot compose its values (\"could not find {kind} "
            f"'{namespace}/{name}'\") and neither installs nor upgrades it",
            fix=(f"Keep what made {kind} {then[1]} (a generator, an object), or name the one "
                 "the change makes instead (or mark the reference optional: true)."),
            kind="deleted-in-use")


def _unchanged_values_from(obj: KObject, removed: Mapping[tuple[str, str], set[str]],
                           made: set[tuple[str, str, str]],
                           renamed_to: Mapping[tuple[str, str, str], str],
                           head: Model) -> Iterator[Violation]:
    """:func:`dangling_references` of a Flux HelmRelease the change leaves as it was, whose
    ``valuesFrom`` names a ConfigMap or Secret the change removes or renames, which nothing
    of the head makes (new-user trial sixty-four: the generator of `redis-values`, its hash
    suffix disabled, renamed `redis-helm-values`, the HelmRelease untouched)."""
    namespace = obj.namespace or "default"
    for at, kind, name, optional in _values_from(obj):
        if optional or name not in removed.get((namespace, kind), set()) or (
                namespace, kind, name) in made or head.by_identity.get(
                ("", kind, obj.namespace or "", name)):
            continue
        now = renamed_to.get((namespace, kind, name))
        yield Violation(
            obj, at,
            f"HelmRelease {object_name(obj)} reads {kind} {name} (valuesFrom), which the "
            "change " + (f"renames to {now}" if now else "removes") + ", and nothing the "
            "cluster receives makes it now: helm-controller cannot compose its values "
            f"(\"could not find {kind} '{namespace}/{name}'\") and neither installs nor "
            "upgrades it",
            fix=(f"Name {kind} {now} in valuesFrom, or keep the name {name}." if now else
                 f"Keep what made {kind} {name} (a generator, an object), or stop reading it "
                 "(or mark the reference optional: true)."),
            kind="deleted-in-use")


def _chart_claims_deleted(obj: KObject, model: Model) -> list[str]:
    """The persistence items an app-template HelmRelease's inline values render as claims
    Helm deletes with the release: type persistentVolumeClaim (the default), no
    ``existingClaim``, not disabled, no ``retain: true`` (which makes the claim
    `helm.sh/resource-policy: keep`; new-user trial twenty-seven: a deleted release's 10Gi
    claim went unsaid)."""
    from reviewbot.model.releases import releases

    release = next((r for r in releases(model) if r.obj is obj), None)
    if release is None or release.chart != "app-template":
        return []
    items = obj.get(("spec", "values", "persistence"))
    return sorted(str(name) for name, item in (items.items() if isinstance(items, dict) else ())
                  if renders_claim(item) and item.get("retain") is not True)


def unrendered_claims(old: KObject, new: KObject, base: Model, head: Model
                      ) -> Iterator[Violation]:
    """``deleted-data``: an app-template release the change keeps (a Flux HelmRelease's
    inline values, an Argo CD Application's ``helm.valuesObject``) whose values rendered a
    claim of its own for a ``persistence`` item (:func:`renders_claim`, no ``retain: true``)
    and no longer do (the item gone, disabled, given an ``existingClaim``, or ``persistence``
    misspelt): the upgrade drops the claim from the release and Helm deletes it, or Argo CD
    prunes it (with automated prune): with reclaim policy Delete, the data of its volume
    (new-user trial thirty-four: `persistance`, and only a values-unread warning). Values
    from elsewhere (``valuesFrom``, ``valueFiles``) may render it still: not judged."""
    from reviewbot.model.releases import release_values

    pair = _app_template_pair(old, new, base, head)
    if pair is None:
        return
    was, now = pair
    if new.kind == "HelmRelease":
        if new.get(("spec", "valuesFrom")) or old.get(("spec", "valuesFrom")):
            return
        deleter = "helm-controller's upgrade deletes it"
    else:
        source = new.get(release_values(now)[1][:-1])
        if not isinstance(source, dict) or source.get("valueFiles") or source.get("values"):
            return
        if new.get(("spec", "syncPolicy", "automated", "prune")) is not True:
            return  # (out of sync, not deleted)
        deleter = "Argo CD prunes it (syncPolicy.automated.prune: true)"
    before, _ = release_values(was)
    after, at = release_values(now)
    had = {str(k): v for k, v in mapping(before.get("persistence")).items()
           if renders_claim(v) and v.get("retain") is not True}
    has = mapping(after.get("persistence"))
    lost = [k for k in sorted(had) if not renders_claim(has.get(k))]
    if not lost:
        return
    spelt = _misspelt_top(after, "persistence")
    for name in lost:
        item = has.get(name)
        why = (f"{spelt} is no key app-template reads: did you mean persistence?" if spelt
               else "the item is gone" if not isinstance(item, dict)
               else "it has an existingClaim" if item.get("existingClaim")
               else "it is disabled" if item.get("enabled") is False
               else "it is no persistentVolumeClaim")
        where = ((*at, spelt) if spelt else (*at, "persistence", name)
                 if isinstance(item, dict) else (*at, "persistence") if has else at)
        yield Violation(
            new, where,
            f"{new.kind} {object_name(new)}: its values no longer render the claim of "
            f"persistence.{name} ({why}), and {deleter}: with reclaim policy Delete, the data "
            "of its volume",
            fix=(f"Keep persistence.{name} rendering its claim (or set retain: true on it "
                 "first, which keeps the claim); if its data must go, back it up first."),
            kind="deleted-data")


def unrendered_workloads(old: KObject, new: KObject, base: Model, head: Model
                         ) -> Iterator[Violation]:
    """``workload-lost``: an app-template release the change keeps whose inline values
    rendered workloads (enabled ``controllers`` with containers) and render none now (the
    key misspelt, `controller:`; every controller disabled or gone): helm-controller's
    upgrade deletes them, and the app stops (new-user trial forty-three: a values-unread
    warning, the Deployment's disappearance said only by the connectivity section). Values
    from elsewhere (``valuesFrom``) may render them still: not judged; nor an Argo CD
    Application's."""
    from reviewbot.model.releases import release_values

    if new.kind != "HelmRelease" or new.get(("spec", "valuesFrom")) or old.get(
            ("spec", "valuesFrom")):
        return
    pair = _app_template_pair(old, new, base, head)
    if pair is None:
        return
    before, _ = release_values(pair[0])
    after, at = release_values(pair[1])
    rendered = _rendering_controllers(before)
    if not rendered or _rendering_controllers(after):
        return
    spelt = _misspelt_top(after, "controllers")
    why = (f"{spelt} is no key app-template reads: did you mean controllers?" if spelt
           else "no controller of them is enabled with a container")
    where = (*at, spelt) if spelt else (*at, "controllers") if "controllers" in after else at
    shown = ", ".join(rendered[:3]) + (f" and {len(rendered) - 3} more" if len(
        rendered) > 3 else "")
    yield Violation(
        new, where,
        f"HelmRelease {object_name(new)}: its values rendered the workloads of controllers "
        f"{shown} and render none now ({why}), so helm-controller's upgrade deletes them and "
        "the app stops",
        fix="Keep the controllers' values (`controllers:` with an enabled controller and its "
            "containers), or remove the release if the app must go.",
        kind="workload-lost")


def _app_template_pair(old: KObject, new: KObject, base: Model, head: Model
                       ) -> tuple[Any, Any] | None:
    """The app-template release ``old`` of ``base`` is and the one ``new`` of ``head`` is
    (:func:`~reviewbot.model.releases.releases`), or None: not both app-template's."""
    from reviewbot.model.releases import releases

    was = next((r for r in releases(base) if r.obj is old), None)
    now = next((r for r in releases(head) if r.obj is new), None)
    if was is None or now is None or was.chart != "app-template" or now.chart != was.chart:
        return None
    return was, now


def _misspelt_top(values: Mapping[str, Any], key: str) -> str:
    """The top-level key of app-template ``values`` that misspells ``key`` where ``key`` is
    not there (`persistance`, `controller`), else ""."""
    from reviewbot.model.releases import APP_TEMPLATE_TOP_KEYS
    from reviewbot.words import misspelt

    if key in values:
        return ""
    return next((k for k in values if isinstance(k, str) and k not in APP_TEMPLATE_TOP_KEYS
                 and misspelt(k, [key])), "")


def _rendering_controllers(values: Mapping[str, Any]) -> list[str]:
    """The app-template controllers of ``values`` that render a workload: enabled, with a
    container."""
    return sorted(str(k) for k, c in mapping(values.get("controllers")).items()
                  if isinstance(c, dict) and c.get("enabled") is not False
                  and mapping(c.get("containers")))


def _misspelt_cluster_label(base: Model, head: Model, appset: KObject,
                            lost: frozenset[str]) -> tuple[KObject, Path, str] | None:
    """The cluster Secret of one of ``lost`` (the clusters an object leaves) whose label a
    clusters generator of ApplicationSet ``appset`` selects the pull request misspelt (the
    base's value, which the selector names; the head's, a close spelling), with where the
    label is and the value meant; or None."""
    from reviewbot.model.reach import secret_data
    from reviewbot.words import misspelt

    wanted = [dig(g, ("clusters", "selector", "matchLabels")) for _, g in _generators(appset)]
    for secret in head.objects:
        labels = secret.labels if secret.kind == "Secret" and secret.group == "" else {}
        if labels.get("argocd.argoproj.io/secret-type") != "cluster" or (
                secret_data(secret.body).get("name") not in lost):
            continue
        was = next((o for o in base.by_identity.get(secret.identity, ())), None)
        for selector in wanted:
            for key, value in (selector.items() if isinstance(selector, dict) else ()):
                now = labels.get(key)
                if was is not None and was.labels.get(key) == value and isinstance(
                        now, str) and now != value and misspelt(now, [str(value)]):
                    return secret, ("metadata", "labels", key), str(value)
    return None


def _generators(appset: KObject) -> list[tuple[Path, Any]]:
    """ApplicationSet ``appset``'s generators with where each is: its own, and the children
    of a matrix or merge."""
    found: list[tuple[Path, Any]] = []
    for i, generator in enumerate(items(appset.get(("spec", "generators")))):
        found.append((("spec", "generators", i), generator))
        for key in ("matrix", "merge"):
            inner = generator.get(key) if isinstance(generator, dict) else None
            for k, child in enumerate(items(inner.get("generators")) if isinstance(
                    inner, dict) else ()):
                found.append((("spec", "generators", i, key, "generators", k), child))
    return found


def _misspelt_selector(base: KObject, head: KObject) -> tuple[Path, str] | None:
    """Where ApplicationSet ``head``'s clusters generator selects a label value the pull
    request misspelt (the base's at the same place, a close spelling: ``egde`` for
    ``edge``), with the base's value; or None."""
    from reviewbot.words import misspelt

    before = dict(_generators(base))
    for at, generator in _generators(head):
        labels = dig(generator, ("clusters", "selector", "matchLabels"))
        was = dig(before.get(at), ("clusters", "selector", "matchLabels"))
        if not isinstance(labels, dict) or not isinstance(was, dict):
            continue
        for key, value in labels.items():
            old = was.get(key)
            if isinstance(value, str) and isinstance(old, str) and value != old and misspelt(
                    value, [old]):
                return (*at, "clusters", "selector", "matchLabels", key), old
    return None


def _correction(entry: str, folder: str, appset: str) -> str:
    """The fix of a git directory entry that misspells ``folder``'s names: the entry as it
    would name it, each written name that does not match replaced by the folder's (the same
    for every object its typo deletes, so the findings at the entry share one fix: new-user
    trial sixty-eight's 26 findings each named another folder)."""
    import fnmatch

    written, parts = entry.strip("/").split("/"), folder.split("/")
    if len(written) != len(parts):
        return f"Correct the entry {entry!r} of {appset}, which misspells {folder}'s folder names."
    meant = "/".join(w if fnmatch.fnmatchcase(have, re.sub(r"\{\{.*?\}\}", "*", w)) else have
                     for w, have in zip(written, parts, strict=True))
    return f"Correct the entry {entry!r} of {appset} to {meant!r}."


def _misspelt_entry(appset: KObject, folder: str, dirs: Any) -> Path | None:
    """Where ApplicationSet ``appset``'s git directory entry is that names no folder and
    would name ``folder`` but for misspelt names (``apps/*/overlay/prod`` for
    ``apps/llm/overlays/prod``: a glob name matches as it does, a written one is a
    misspelling of the folder's), or None."""
    import fnmatch

    from reviewbot.words import misspelt

    parts = folder.split("/")
    # (the generators of a matrix or merge too, and a path a parameter fills read as a
    # glob: new-user trial sixty-five's `cluster/{{.name}}/*` in a matrix with clusters)
    for at, generator in _generators(appset):
        git = generator.get("git") if isinstance(generator, dict) else None
        for j, entry in enumerate(items(git.get("directories")) if isinstance(git, dict)
                                  else ()):
            pattern = entry.get("path") if isinstance(entry, dict) else None
            if not isinstance(pattern, str) or entry.get("exclude"):
                continue
            pattern = re.sub(r"\{\{.*?\}\}", "*", pattern)
            written = pattern.strip("/").split("/")
            if len(written) != len(parts) or any(fnmatch.fnmatchcase(d, pattern.strip("/"))
                                                 for d in dirs):
                continue  # (another depth, or an entry that names folders)
            if all(fnmatch.fnmatchcase(have, want) or misspelt(want, [have])
                   for want, have in zip(written, parts, strict=True)):
                return (*at, "git", "directories", j, "path")
    return None


@dataclass(frozen=True)
class _Fate:
    """What becomes of an object the base applied and the head does not: how it left
    (``how``, after its name), and what deletes it in the cluster (``deleter``: "Kustomization
    ... prunes: it is deleted in the cluster"), or why it stays (``stays``). ``place`` is
    where the pull request made the change that took it out, which the finding points at:
    the line that stands where a kustomization's removed entry was, the changed build field
    of its applier (``spec.path``, a removed ``spec.components`` entry's place, an Argo CD
    source), the deleted file of its Application; the object's own line when its own file is
    deleted."""

    how: str
    owner: KObject  # the Kustomization or Application that applied it on the base
    place: Place
    deleter: str | None = None
    stays: str = ""
    cascade: bool = False  # deleted with its deleted Application (Argo CD's finalizer)
    # the misspelt entry that took it out, as a fix names it ("" for none): the fix is the
    # entry's, not a keep annotation (new-user trial sixty-five's `cluster/` for `clusters/`)
    typo: str = ""


class _Fates:
    """The fate of each base object the head no longer applies (model.departure), through
    the Flux Kustomization or Argo CD Application whose build held it on the base: it prunes
    the object while the head still applies it, and its own deletion decides when the head
    no longer does."""

    def __init__(self, diff: TreeDiff, base: Model, head: Model) -> None:
        self.base, self.head = base, head
        self.renamed = {e.base.identity: e for e in diff.objects
                        if e.status == "renamed" and e.base is not None}
        # (each by its file first: the same identity renamed in two clusters' folders is
        # two renames, each at its own line; new-user trial sixty-six had both at staging's)
        self.renamed_at = {(e.base.identity, e.base.file): e for e in diff.objects
                           if e.status == "renamed" and e.base is not None}
        self.modified = {id(e.head): e for e in diff.objects
                         if e.status == "modified" and e.head is not None}
        self.memo: dict[int, _Fate | None] = {}
        self.anchors = Anchors(base, head)
        self.deleting: list[tuple[str, Any]] | None = None  # the head's `$patch: delete`s
        # the kustomization files the pull request changed, in the diff's order
        self.edited = [e for e in diff.objects if e.status == "modified" and e.kind ==
                       "Kustomization" and e.ref == f"Kustomization/{e.file}"]

    def deleted(self, obj: KObject) -> bool:
        """Whether ``obj`` of the head is an object the change deletes in the cluster too (its
        base self's fate): a reader deleted with what it reads loses nothing (new-user trial
        seventy-three W4: "while Deployment gateway/llm-gateway still reads it" of a
        ConfigMap its Application deleted with the Deployment)."""
        return any((fate := self.of(o)) is not None and fate.deleter is not None
                   and not _kept(o, fate) for o in self.base.by_identity.get(obj.identity, ()))

    def of(self, obj: KObject) -> _Fate | None:
        """None: nothing is known to happen to it (no applier in the tree; the applier's
        head build fails, so it applies and prunes nothing; or the applier itself stays)."""
        if id(obj) not in self.memo:
            self.memo[id(obj)] = None  # (a cycle of appliers decides nothing)
            self.memo[id(obj)] = self._fate(obj)
        return self.memo[id(obj)]

    def _fate(self, obj: KObject) -> _Fate | None:
        gone = departure(self.base, self.head, obj)
        if gone is None:
            return None
        owner = gone.owners[0]
        others = _distinct(owner, gone.owners[1:])
        also = _also_text(self.base, owner, others)
        now = gone.now
        if now is not None and gone.ungenerated:
            paths, lost = self._ungenerated_together(obj, gone)
            return self._ungenerated(obj, owner, now, paths[0], lost, paths[1:])
        if now is not None and now.kind == "ApplicationSet" and gone.clusters and (
                label := _misspelt_cluster_label(self.base, self.head, now, gone.clusters)
        ) is not None:
            # (a cluster Secret's label the generator selects, misspelt: the cluster's
            # Application goes with all it applied there; new-user trial seventy D2)
            secret, path, meant = label
            name = f"ApplicationSet {object_name(now)}"
            how = (f"is no longer applied: {name} no longer generates its Application for "
                   f"{clusters_phrase(sorted(gone.clusters))} (Secret {object_name(secret)}'s "
                   f"label {path[-1]}: {secret.get(path)!r} misspells the selector's "
                   f"{meant!r})")
            typo = (f"Correct the label {path[-1]}: {secret.get(path)!r} of Secret "
                    f"{object_name(secret)} to {meant!r}.")
            return _Fate(how, owner, secret.where(path), "Argo CD deletes that Application, "
                         f"whose resources finalizer ({ARGO_FINALIZER}, which the "
                         "ApplicationSet controller sets on the Applications it generates) "
                         f"deletes it in {_where(self.base, obj, gone.clusters)}", cascade=True,
                         typo=typo)
        if now is not None:
            how, place = self._how(obj, now)
            named = _applier_text(now)
            clusters = sorted({c for o in (owner, *others)
                               for c in self.base.clusters.get(id(o), ())})
            if others and len(clusters) > 1 and all(
                    (o.kind, object_name(o)) == (owner.kind, object_name(owner)) for o in others):
                # one name in each cluster's folder: said once, with the clusters
                named, also = _applier_text(now, clusters_phrase(clusters)), ""
            if applier_prunes(now):
                return _Fate(how, owner, place, f"{named}{also} prunes: it is "
                             f"deleted in {_where(self.base, obj, gone.clusters)}")
            return _Fate(how, owner, place, stays=f"{named}{also} does not prune")
        up = self.of(owner)
        if up is None or up.deleter is None:
            return None  # the applier stays in the cluster, still applying: its verdict says
        how = (f"is no longer applied: {owner.kind} {object_name(owner)}, which applied it"
               f"{also}, {up.how}")
        if is_flux_kustomization(owner):
            if owner.get(("spec", "prune")) is True:
                return _Fate(how, owner, up.place, "Flux's garbage collection of the deleted "
                             "Kustomization (spec.prune: true) deletes it in "
                             f"{_where(self.base, obj, gone.clusters)}")
            return _Fate(how, owner, up.place, stays="the deleted Kustomization does not "
                         f"prune (spec.prune: {_flag_text(owner, 'prune')})")
        finalizers = [str(f) for f in items(owner.metadata.get("finalizers"))]
        if any(f.startswith(ARGO_FINALIZER) for f in finalizers):
            return _Fate(how, owner, up.place, f"Argo CD's resources finalizer of the deleted "
                         f"Application ({ARGO_FINALIZER}) deletes it in "
                         f"{_where(self.base, obj, gone.clusters)}", cascade=True)
        return _Fate(how, owner, up.place, stays=f"the deleted Application has no "
                     f"{ARGO_FINALIZER} finalizer, so Argo CD deletes the Application alone")

    def _ungenerated_together(self, obj: KObject, gone: Departure
                              ) -> tuple[list[str], frozenset[str]]:
        """The source paths of the Applications no longer generated that took ``obj`` out,
        and the clusters it leaves. An object of a base file is one body per build that
        differs (an overlay's replicas): when each body of the file leaves through
        Applications the same ApplicationSet no longer generates, they are said together,
        one text at one place (the per-place finding names every path and cluster); else
        this body's own, in its own clusters (new-user trial sixty-eight: dev's Application
        alone "deletes it in clusters dev, prod and staging")."""
        paths = {gone.ungenerated, *gone.also_ungenerated}
        own = frozenset(self.base.clusters.get(id(obj), ()))
        if gone.clusters:
            return sorted(paths), gone.clusters
        together = set(own)
        for other in self.base.by_identity.get(obj.identity, ()):
            if other is obj or other.file != obj.file:
                continue
            went = departure(self.base, self.head, other)
            if (went is None or not went.ungenerated or went.clusters or went.now is None
                    or gone.now is None or went.now.identity != gone.now.identity):
                return sorted(paths), own
            paths |= {went.ungenerated, *went.also_ungenerated}
            together |= self.base.clusters.get(id(other), frozenset())
        return sorted(paths), frozenset(together)

    def _ungenerated(self, obj: KObject, owner: KObject, now: KObject, path: str,
                     lost: frozenset[str] = frozenset(), also: Sequence[str] = ()) -> _Fate:
        """``obj``'s Application is no longer generated by ApplicationSet ``now`` (its git
        directory deleted, or left out by its generator): the ApplicationSet controller
        deletes the Application (its default policy, `sync`), and the resources finalizer the
        controller sets on every Application it generates deletes what it applied ("if
        .syncPolicy.preserveResourcesOnDeletion is set to false", Argo CD's Application
        Pruning & Resource Deletion; whatever the template's finalizers: new-user trial
        twenty-six read "it stays in the cluster"), unless the policy keeps Applications
        (`create-only`, `create-update`) or `preserveResourcesOnDeletion` keeps resources."""
        name = f"ApplicationSet {object_name(now)}"
        folder = posixpath.normpath(path.strip("/")) if path.strip("./") else ""
        dirs = model_graph(self.head).dirs
        # the entry meant for the folder, a misspelt one, when there is one (new-user trial
        # twenty-nine: `overlay/prod` for `overlays/prod`, the deletions said at the staging
        # entry above it)
        meant = _misspelt_entry(now, folder, dirs) if folder in dirs else None
        # a clusters generator's selector value misspelt (new-user trial seventy: `env:
        # egde` for `edge`, two clusters' app deleted, an info and exit 0)
        label = _misspelt_selector(owner, now) if meant is None else None
        why = (f"its entry {now.get(meant)!r} misspells the folder" if meant is not None
               else f"its selector {label[0][-1]}: {now.get(label[0])!r} misspells the "
               f"clusters' {label[1]!r}" if label is not None
               else "its generator leaves the folder out" if folder and folder in dirs
               else "its folder is gone")
        which = (f"the Application for {path}" if not also else
                 f"the Applications for {', '.join([path, *also][:-1])} and {[path, *also][-1]}")
        how = f"is no longer applied: {name} no longer generates {which} ({why})"
        place = obj.where(("metadata", "name"))
        if now.file in self.head.files and now.file in self.base.files and (
                self.head.files[now.file].text != self.base.files[now.file].text):
            place = self.anchors.head_place(now.file, self.anchors.first_change(now.file))
            # (the generator's change, where an inline comment can sit: its own file may
            # be untouched, new-user trial twenty-six)
            if meant is not None:
                place = now.where(meant)
            elif label is not None:
                place = now.where(label[0])
        policy = now.get(("spec", "syncPolicy", "applicationsSync"))
        if policy in ("create-only", "create-update"):
            return _Fate(how, owner, place, stays=f"{name} keeps its Applications "
                         f"(applicationsSync: {policy}), so that one stays, syncing nothing")
        if now.get(("spec", "syncPolicy", "preserveResourcesOnDeletion")) is True:
            return _Fate(how, owner, place, stays=f"Argo CD deletes the Application, and {name} "
                         "keeps its resources (preserveResourcesOnDeletion: true)")
        those, verb = (("those Applications, whose resources finalizers", "delete") if also
                       else ("that Application, whose resources finalizer", "deletes"))
        typo = (_correction(str(now.get(meant)), folder, name) if meant is not None else
                f"Correct the selector {label[0][-1]}: {now.get(label[0])!r} of {name} to "
                f"{label[1]!r}." if label is not None else "")
        return _Fate(how, owner, place, f"Argo CD deletes {those} ({ARGO_FINALIZER}, which "
                     "the ApplicationSet controller sets on the Applications it generates) "
                     f"{verb} it in {_where(self.base, obj, lost)}", cascade=True, typo=typo)

    def _how(self, obj: KObject, applier: KObject) -> tuple[str, Place]:
        """How ``obj`` left what ``applier`` (the head's) applies, and where the pull request
        made that change."""
        own = obj.where(("metadata", "name"))
        renamed = self.renamed_at.get((obj.identity, obj.file)) or self.renamed.get(
            obj.identity)
        if renamed is not None:
            kind, _, rest = renamed.ref.partition("/")  # named as the message names the old
            place = renamed.head.where(("metadata", "name")) if renamed.head else own
            if obj.file in self.head.files and self.head.files[obj.file].text == (
                    self.base.files[obj.file].text) and (
                    changed := self._build_change(applier)
                    or self._kustomization_change(applier)) is not None:
                place = changed[1]  # (its file as it was: its applier renamed it, a
                # targetNamespace the pull request changed, new-user trial thirty-one; or a
                # kustomization its build reads, a namePrefix: trial thirty-two)
            new = renamed.head
            if new is not None and new.name == obj.name and new.namespace != obj.namespace:
                # (new-user trial thirty-four: an Application's destination moved, "renamed")
                return (f"moves to namespace {new.namespace} (a new object there; the old one "
                        "goes)", place)
            return (f"is renamed to {kind} {rest} (a new object; the old one goes)", place)
        unlisted = self.anchors.unlisted(obj.file)
        if obj.file not in self.head.files:
            # its file deleted: the line of its kustomization that listed it, when the head
            # has that file (an inline comment can sit there), else its own in the base
            if unlisted is not None and unlisted[1][0] in self.head.files:
                return "is removed from the tree", unlisted[1]
            return "is removed from the tree", own
        if unlisted is not None:
            return f"is no longer applied ({unlisted[0]})", unlisted[1]
        changed = self._build_change(applier)
        moved = changed[1] if changed is not None else None
        if obj.file in self.head.unapplied:
            return "is no longer applied (its file is no longer listed)", moved or own
        if changed is not None and obj.file in self.head.files and (
                self.head.files[obj.file].text == self.base.files[obj.file].text):
            # (its own file as it was: what its applier builds changed, a component dropped)
            return f"is no longer applied ({changed[0]})", changed[1]
        unchanged = obj.file in self.head.files and (
            self.head.files[obj.file].text == self.base.files[obj.file].text)
        if obj.identity not in self.head.by_identity and not unchanged:
            # (its file unchanged, what builds it named it otherwise: a namePrefix, new-user
            # trial twenty-six's "no longer in apps/web/base/ingress.yaml", which held it)
            return (f"is no longer in {obj.file}",
                    self.anchors.moved(obj.file, obj.position(("metadata", "name"))[0]))
        if moved is None and (patch := self._deleting_patch(obj, applier)) is not None:
            return f"is no longer applied (a patch in {patch[0]} deletes it)", patch
        if moved is None and (edited := self._kustomization_change(applier)) is not None:
            return f"is no longer applied ({edited[0]} changed what it builds)", edited[1]
        return "is no longer applied", moved or own

    def _deleting_patch(self, obj: KObject, applier: KObject) -> Place | None:
        """Where a patch file ``applier`` (the head's) builds with deletes ``obj`` (``$patch:
        delete`` of its kind and name): its ``$patch`` line, or None."""
        if self.deleting is None:  # (the head's files read once, however many depart)
            self.deleting = [
                (path, doc) for path, lf in self.head.files.items() if "$patch" in lf.text
                for doc in lf.documents if isinstance(doc.value, dict)
                and doc.value.get("$patch") == "delete"]
        for path, doc in self.deleting:
            meta = doc.value.get("metadata")
            if (doc.value.get("kind") == obj.kind and isinstance(meta, dict)
                    and meta.get("name") == obj.name
                    and applier in appliers(self.head).get(path, ())):
                line, column = doc.position(("$patch",))
                return path, line, column
        return None

    def _kustomization_change(self, applier: KObject) -> tuple[str, Place] | None:
        """A kustomization file the pull request changed that ``applier`` (the head's)
        builds, and its first changed line (a patch that deletes the object, a resource
        entry replaced), when its own object's file is unchanged."""
        for entry in self.edited:
            if entry.file and entry.line is not None and applier in appliers(self.head).get(
                    entry.file, ()):
                return entry.file, self.anchors.head_place(
                    entry.file, self.anchors.first_change(entry.file))
        return None

    def _build_change(self, applier: KObject) -> tuple[str, Place] | None:
        """How the pull request changed a field of ``applier`` that decides what its build
        makes (a Flux Kustomization's ``spec.path``, ``spec.components``, ``spec.postBuild``
        ..., an Argo CD source), if it did, and where: the changed line, or for a removed
        entry the line that now stands where it was."""
        entry = self.modified.get(id(applier))
        if entry is None or not entry.file:
            return None
        # (what the build reads before the variables it substitutes: new-user trial eighty-
        # two D3 dropped a component and its variable, and the finding named the variable)
        for change in sorted(entry.changes, key=lambda c: c.path[:2] == ("spec", "postBuild")):
            if change.line is not None and change.path[:2] in _BUILD_FIELDS:
                who = f"{applier.kind} {object_name(applier)}"
                field = ".".join(str(p) for p in change.path)
                old = entry.base
                written = items(old.get(change.path)) if old is not None else []
                gone = [i for i, v in enumerate(written) if v in change.items_removed]
                if not gone and written and entry.head is not None and (
                        entry.head.get(change.path) is None):
                    gone = list(range(len(written)))  # (the whole list removed, its key too)
                if old is not None and gone and old.file == entry.file:
                    # a removed entry (a component): the line that now stands where it was
                    return (f"{who} no longer lists {written[gone[0]]} in {field}",
                            self.anchors.moved(old.file,
                                               old.position((*change.path, gone[0]))[0]))
                return (f"{who} changed {field}",
                        self.anchors.head_place(entry.file, change.line))
        return None


# the fields of a Flux Kustomization's or Argo CD Application's spec that decide what its build
# makes (kustomize.FLUX_BUILD_FIELDS, the postBuild that substitutes names; Argo CD's sources)
_BUILD_FIELDS = frozenset(("spec", f) for f in (
    *FLUX_BUILD_FIELDS, "postBuild", "source", "sources", "destination"))


def _still_mounted(head: Model, obj: KObject, gone: Any) -> str:
    """"; Deployment shop/web still mounts it: ..." when a pod of the head mounts the
    deleted claim ``obj`` (its namespace, its name): the claim waits on its protection
    finalizer while that pod runs, and the next pod (a rollout, a drain) stays Pending with
    the claim not found (new-user trials eighteen and twenty-two)."""
    if obj.kind != "PersistentVolumeClaim" or obj.group != "":
        return ""
    lost = gone.clusters if gone is not None else frozenset()  # (the clusters it leaves)
    mounting = sorted({f"{p.obj.kind} {object_name(p.obj)}" for p in head.pods
                       if p.namespace == (obj.namespace or "default") and (
                           not lost or lost & head.clusters.get(id(p.obj), frozenset()))
                       and any(
                           isinstance(v, dict) and isinstance(v.get("persistentVolumeClaim"),
                                                              dict)
                           and v["persistentVolumeClaim"].get("claimName") == obj.name
                           for v in items(p.spec.get("volumes")))})
    if not mounting:
        return ""
    who = mounting[0] + (f" and {len(mounting) - 1} more" if len(mounting) > 1 else "")
    return (f"; {who} still mount{'s' if len(mounting) == 1 else ''} it: its next pod stays "
            "Pending, the claim not found")


def _distinct(owner: KObject, others: Sequence[KObject]) -> list[KObject]:
    """``others`` but ``owner`` and each document once (one document two builds made alike
    is one applier: a new-user trial's deletion named its own Kustomization as another)."""
    seen = {(owner.file, owner.identity)}
    out = []
    for o in others:
        if (o.file, o.identity) not in seen:
            seen.add((o.file, o.identity))
            out.append(o)
    return out


def _also_text(model: Model, owner: KObject, others: list[KObject]) -> str:
    """" (Kustomization flux-system/infra applied it too)"; one of the owner's own name (the
    same Kustomization in another cluster's folder) named with its cluster (a new-user trial
    read "flux-system/apps (spec.prune: true) (Kustomization flux-system/apps applied it
    too)")."""
    if not others:
        return ""

    def name(o: KObject) -> str:
        text = f"{o.kind} {object_name(o)}"
        clusters = sorted(model.clusters.get(id(o), ()))
        if (o.kind, object_name(o)) == (owner.kind, object_name(owner)) and clusters:
            text += f" of {' and '.join(cluster_phrase(c) for c in clusters)}"
        return text

    return " (" + ", ".join(name(o) for o in others) + " applied it too)"


def _where(model: Model, obj: KObject, lost: frozenset[str]) -> str:
    """Where garbage collection deletes ``obj``: "the cluster", or with several clusters the
    ones it leaves, and those that keep it ("cluster staging (cluster production keeps
    it)")."""
    if not lost:  # (each cluster's build of it: new-user trial forty-seven's overlays)
        everywhere = sorted({c for o in model.by_identity.get(obj.identity, (obj,))
                             if o.file == obj.file  # (another file's is its own finding)
                             for c in model.clusters.get(id(o), ())})
        several = len(everywhere) > 1 or (everywhere and len(model.cluster_entries) > 1)
        return clusters_phrase(everywhere) if several else "the cluster"
    kept = sorted(model.clusters.get(id(obj), frozenset()) - lost)
    text = clusters_phrase(sorted(lost))
    if kept:
        text += f" ({clusters_phrase(kept)} {'keeps' if len(kept) == 1 else 'keep'} it)"
    return text


def _kept(obj: KObject, fate: _Fate) -> bool:
    """Annotated in the base so that garbage collection leaves it (:func:`gc_exempt`)."""
    return gc_exempt(obj, fate.cascade)


def _keep_annotation(fate: _Fate) -> str:
    """The annotation that keeps an object from the garbage collection that deletes it."""
    if is_flux_kustomization(fate.owner):
        return f"{PRUNE}: disabled"
    return f"{ARGO_SYNC}: {'Delete=false' if fate.cascade else 'Prune=false'}"


def _applier_text(applier: KObject, clusters: str = "") -> str:
    """"Kustomization flux-system/apps (spec.prune: true)"; ``clusters``: the clusters whose
    folders each hold one of that name ("... flux-system/apps of clusters prod and staging
    (spec.prune: true)")."""
    of = f" of {clusters}" if clusters else ""
    if is_flux_kustomization(applier):
        return (f"Kustomization {object_name(applier)}{of} (spec.prune: "
                f"{_flag_text(applier, 'prune')})")
    if applier.kind == "ApplicationSet":
        return (f"the Application that Argo CD ApplicationSet {object_name(applier)}{of} generates "
                "(its template's syncPolicy.automated.prune: "
                f"{_flag_text(applier, 'syncPolicy', 'automated', 'prune')})")
    return (f"Argo CD Application {object_name(applier)}{of} (syncPolicy.automated.prune: "
            f"{_flag_text(applier, 'syncPolicy', 'automated', 'prune')})")


def _flag_text(obj: KObject, *path: str) -> str:
    value = obj.get((*argo_spec(obj), *path) if not is_flux_kustomization(obj) else (
        "spec", *path))
    return "true" if value is True else "false" if value is False else "unset"


def _listed(names: Sequence[str], most: int = 3) -> str:
    """``names`` joined, at most ``most`` of them, then a count."""
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most
                                      else "")


def _data_lost(obj: KObject, base: Model, emptied: frozenset[str] = frozenset()
               ) -> str | None:
    kind = obj.kind
    if kind == "PersistentVolumeClaim" and obj.group == "":
        return "the claim and, with reclaim policy Delete, the data of its volume"
    if kind == "Namespace" and obj.group == "":
        mine = base.clusters.get(id(obj))  # (of its cluster: another's namespace of its name
        # stays: new-user trial forty-five counted staging's objects in prod's)
        inside = [o for o in base.objects if o.namespace == obj.name and o is not obj and (
            not mine or mine & base.clusters.get(id(o), frozenset()))]
        # the data among them, named (new-user trial seventy-one W5: "11 objects" of a
        # namespace holding a backup claim and two databases' claims)
        claims = sorted({o.name for o in inside
                         if o.kind == "PersistentVolumeClaim" and o.group == ""})
        stateful = sorted({o.name for o in inside if o.kind == "StatefulSet" and o.group == "apps"
                           and o.get(("spec", "volumeClaimTemplates"))})
        named = [f"PersistentVolumeClaim{'s' if len(claims) > 1 else ''} {_listed(claims)}"
                 ] if claims else []
        if stateful:
            named.append(f"the claims of StatefulSet{'s' if len(stateful) > 1 else ''} "
                         f"{_listed(stateful)}")
        among = f", among them {' and '.join(named)}" if named else ""
        if not inside:  # (a chart's objects reviewbot does not render: trial seventy-three
            # W4 read "0 objects of this repository" of a namespace of its DaemonSet)
            return f"everything in namespace {obj.name} (whatever runs there)"
        return (f"everything in namespace {obj.name} ({count_text(inside)} of this repository"
                f"{among}, and whatever else runs there)")
    if kind == "CustomResourceDefinition" and obj.group == "apiextensions.k8s.io":
        group = obj.get(("spec", "group"))
        crd_kind = obj.get(("spec", "names", "kind"))
        inside = [o for o in base.objects if o.group == group and o.kind == crd_kind]
        return (f"every {crd_kind or 'custom'} resource in the cluster ({count_text(inside)} "
                "of this repository)")
    if kind == "StatefulSet" and obj.group == "apps":
        policy = obj.get(("spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted"))
        claims = [str(dig(t, ("metadata", "name"))) for t in
                  obj.get(("spec", "volumeClaimTemplates")) or [] if isinstance(t, dict)]
        if policy == "Delete" and claims:
            return (f"its pods and, with whenDeleted: Delete, the data of its claims "
                    f"({', '.join(claims)})")
        if claims and obj.namespace in emptied:  # (a new-user trial: "retained", beside
            # the same change deleting their namespace)
            return (f"its pods at once, and its claims ({', '.join(claims)}) with namespace "
                    f"{obj.namespace}, which this change deletes: with reclaim policy Delete, "
                    "the data of their volumes")
        return "its pods at once" + (
            f"; its claims ({', '.join(claims)}) are retained, unused" if claims else "")
    if kind == "Cluster" and obj.group == "postgresql.cnpg.io":
        return ("its PostgreSQL instances and their claims (CloudNativePG makes the Cluster "
                "their owner, so Kubernetes' garbage collection deletes them with it) and, "
                "with reclaim policy Delete, the data of their volumes")
    return None


def _keep_fix(obj: KObject, fate: _Fate) -> str:
    if fate.typo:  # (a misspelt entry took it out: the entry is the fix)
        return f"{fate.typo} If removing {obj.kind} {object_name(obj)} is intended, back up " \
               "its data first."
    return (f"If {obj.kind} {object_name(obj)} must stay, first merge the annotation "
            f"{_keep_annotation(fate)} on it, then remove it; if it must go, back up its data "
            "first.")


def renamed_claims(diff: TreeDiff, head: Model) -> Iterator[Violation]:
    """``claims-renamed``: a StatefulSet of the base that the head makes under another name
    (renamed, or made from the same manifest: a ``namePrefix`` the change adds): its
    ``volumeClaimTemplates`` name claims after it (``<template>-<name>-<ordinal>``), so the
    head's pods start on new, empty volumes while the data stays in the old claims, which
    none of them mounts (new-user trial forty: "No new findings" of a prefix added to the
    prod overlay of a Postgres StatefulSet). At the head StatefulSet's name."""
    claiming = [e for e in diff.objects if e.kind == "StatefulSet" and e.base is not None
                and e.status in ("removed", "renamed")
                and items(e.base.get(("spec", "volumeClaimTemplates")))]
    if not claiming:
        return
    added = [e.head for e in diff.objects if e.status == "added" and e.kind == "StatefulSet"
             and e.head is not None]
    # each head StatefulSet made from the same manifest is one base's at most, one of its
    # own namespace first (new-user trial eighty-eight D1: staging's stg-postgres paired
    # with production's postgresql, "becomes shop-prod/postgresql")
    made: dict[int, KObject] = {}
    used: set[int] = set()
    for same in (True, False):
        for entry in claiming:
            old = entry.base
            assert old is not None
            if entry.status == "renamed" or id(entry) in made:
                continue
            found = next((h for h in added if id(h) not in used and h.file == old.file
                          and h.path == old.path and h.doc.index == old.doc.index
                          and (h.namespace == old.namespace) == same), None)
            if found is not None:
                made[id(entry)] = found
                used.add(id(found))
    for entry in claiming:
        old = entry.base
        assert old is not None
        new = entry.head if entry.status == "renamed" else made.get(id(entry))
        if new is None:
            continue
        template = next((str(name) for t in items(old.get(("spec", "volumeClaimTemplates")))
                         if (name := mapping(mapping(t).get("metadata")).get("name"))), "")
        if not template:
            continue
        was, now = f"{template}-{old.name}-0", f"{template}-{new.name}-0"
        written = new.name_as_written
        how = (f" (namePrefix {new.name[:-len(written)]})" if new.name != written
               and new.name.endswith(written) and old.name == written else "")
        if old.name == new.name:  # (another namespace: claims are namespaced; new-user
            # trial forty-eight read "named after it" and "copy data-postgres-0 to
            # data-postgres-0")
            was, now = f"{old.namespace}/{was}", f"{new.namespace}/{now}"
            why, keep = "a StatefulSet's claims are in its namespace", "namespace"
        else:
            why, keep = "a StatefulSet's claims are named after it", "name"
        yield Violation(
            new, ("metadata", "name"),
            f"StatefulSet {old.namespace}/{old.name} becomes {new.namespace}/{new.name} in this "
            f"change{how}: {why}, so the pods of {new.namespace}/{new.name} start on new, empty "
            f"volumes ({now}) and the data stays in {was}, which none of them mounts",
            fix=f"Keep the StatefulSet's {keep}, or copy each claim's data to its new claim "
                f"({was} to {now}) before the new pods start.",
            kind="claims-renamed")
