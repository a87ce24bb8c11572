"""change-safety's `deleted-data`, `deleted` and `orphaned` verdicts: objects the base applied
that the head no longer does, and what the applier's garbage collection does with them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from reviewbot.engine.findings import Violation
from reviewbot.model.objects import KObject, Model, appliers
from reviewbot.rules._change_safety.common import (
    ARGO_SYNC,
    PRUNE,
    RECONCILE,
    count_text,
    is_flux_kustomization,
    object_name,
)

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import TreeDiff


def may_delete(diff: TreeDiff, base: Model, head: Model) -> bool:
    """False when no object can have left what the appliers apply: nothing removed or
    renamed, no kustomization, Flux Kustomization or Argo CD Application changed, and every
    object still in the file it was in (the check that follows costs a walk of both trees)."""
    if any(e.status in ("removed", "renamed") or e.kind in ("Kustomization", "Application")
           for e in diff.objects):
        return True
    here = {(o.identity, o.file) for o in head.objects}
    return any((o.identity, o.file) not in here for o in base.objects)


def deletion_verdicts(diff: TreeDiff, base: Model, head: Model,
                      data_kinds: frozenset[str]) -> Iterator[Violation]:
    base_by, head_by = appliers(base), appliers(head)
    if not base_by:
        return
    applied = {o.identity for o in head.objects if head_by.get(o.file)}
    renamed = {e.base.identity: e.ref for e in diff.objects
               if e.status == "renamed" and e.base is not None}
    for obj in base.objects:
        by = base_by.get(obj.file)
        if not by or obj.identity in applied or _kept_from_pruning(obj):
            continue
        applier = by[0]
        pruning = _applier_prunes(applier)
        how = _how_gone_text(obj, head, renamed.get(obj.identity))
        who = f"{obj.kind} {object_name(obj)}"
        if not pruning:
            yield Violation(
                obj, ("metadata", "name"),
                f"{who} {how}, but {_applier_text(applier)} does not prune: it stays in the "
                "cluster and keeps running, with nothing managing it",
                fix=f"Delete {obj.kind} {object_name(obj)} by hand after the merge if it should "
                    "go, or keep it in the tree.",
                kind="orphaned",
            )
            continue
        loss = _data_lost(obj, base) if obj.kind in data_kinds else None
        text = f"{who} {how}, and {_applier_text(applier)} prunes: it is deleted in the cluster"
        if loss is not None:
            yield Violation(obj, ("metadata", "name"), f"{text}, which deletes {loss}",
                            fix=_keep_fix(obj), kind="deleted-data")
            continue
        if obj.kind == "HelmRelease" and obj.group == "helm.toolkit.fluxcd.io":
            text += ("; helm-controller uninstalls the release, and every object of the chart "
                     "goes with it")
        yield Violation(
            obj, ("metadata", "name"), text,
            fix=(f"Nothing to do if removing it is intended; to keep it running, first merge "
                 f"{PRUNE}: disabled on it."),
            kind="deleted",
        )


def _kept_from_pruning(obj: KObject) -> bool:
    """Annotated in the base so that garbage collection leaves it."""
    notes = obj.annotations
    if str(notes.get(PRUNE, "")).lower() == "disabled":
        return True
    if str(notes.get(RECONCILE, "")).lower() == "disabled":
        return True
    options = [o.strip() for o in str(notes.get(ARGO_SYNC, "")).split(",")]
    return "Prune=false" in options


def _applier_prunes(applier: KObject) -> bool:
    if is_flux_kustomization(applier):
        return applier.get(("spec", "prune")) is True
    return applier.get(("spec", "syncPolicy", "automated", "prune")) is True


def _applier_text(applier: KObject) -> str:
    if is_flux_kustomization(applier):
        return f"Kustomization {object_name(applier)} (spec.prune: {_flag_text(applier, 'prune')})"
    return (f"Argo CD Application {object_name(applier)} (syncPolicy.automated.prune: "
            f"{_flag_text(applier, 'syncPolicy', 'automated', 'prune')})")


def _flag_text(obj: KObject, *path: str) -> str:
    value = obj.get(("spec", *path))
    return "true" if value is True else "false" if value is False else "unset"


def _how_gone_text(obj: KObject, head: Model, renamed_to: str | None) -> str:
    if renamed_to is not None:
        return f"is renamed to {renamed_to} (a new object; the old one goes)"
    if obj.identity in head.by_identity or obj.file in head.unapplied:
        return "is no longer applied (its file is no longer listed)"
    return "is removed from the tree"


def _data_lost(obj: KObject, base: Model) -> str | None:
    kind = obj.kind
    if kind == "PersistentVolumeClaim" and obj.group == "":
        return "the claim and, with reclaim policy Delete, the data of its volume"
    if kind == "Namespace" and obj.group == "":
        inside = [o for o in base.objects if o.namespace == obj.name and o is not obj]
        return (f"everything in namespace {obj.name} ({count_text(inside)} of this repository, "
                "and whatever else runs there)")
    if kind == "CustomResourceDefinition" and obj.group == "apiextensions.k8s.io":
        group = obj.get(("spec", "group"))
        crd_kind = obj.get(("spec", "names", "kind"))
        inside = [o for o in base.objects if o.group == group and o.kind == crd_kind]
        return (f"every {crd_kind or 'custom'} resource in the cluster ({count_text(inside)} "
                "of this repository)")
    if kind == "StatefulSet" and obj.group == "apps":
        policy = obj.get(("spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted"))
        claims = [str(t.get("metadata", {}).get("name")) for t in
                  obj.get(("spec", "volumeClaimTemplates")) or [] if isinstance(t, dict)]
        if policy == "Delete" and claims:
            return (f"its pods and, with whenDeleted: Delete, the data of its claims "
                    f"({', '.join(claims)})")
        return "its pods at once" + (
            f"; its claims ({', '.join(claims)}) are retained, unused" if claims else "")
    return None


def _keep_fix(obj: KObject) -> str:
    return (f"If {obj.kind} {object_name(obj)} must stay, first merge the annotation {PRUNE}: "
            "disabled on it (Argo CD: argocd.argoproj.io/sync-options: Prune=false), then "
            "remove it; if it must go, back up its data first.")
