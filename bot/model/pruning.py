"""What Flux's and Argo CD's garbage collection does with an object a change takes out of
what its applier builds: whether the applier prunes it, whether its annotations keep it, and
the objects that therefore stay in the cluster after the merge. The one implementation that
change-safety's verdicts (`deleted`, `orphaned`) and a review's "the head as the cluster has
it" share."""

from __future__ import annotations

from collections.abc import Sequence

from reviewbot.model.objects import KObject, Model, departure

FLUX = "kustomize.toolkit.fluxcd.io"
PRUNE = f"{FLUX}/prune"
RECONCILE = f"{FLUX}/reconcile"
ARGO_SYNC = "argocd.argoproj.io/sync-options"
# Argo CD deletes an Application's resources with it only under this finalizer (or its
# ``/background`` form): user-guide/app_deletion.md
ARGO_FINALIZER = "resources-finalizer.argocd.argoproj.io"


def is_flux_kustomization(obj: KObject) -> bool:
    return obj.kind == "Kustomization" and obj.group == FLUX


def argo_spec(applier: KObject) -> tuple[str, ...]:
    """Where an Argo CD applier's Application spec is: its own, or an ApplicationSet's
    template's (the Applications it generates prune as it says)."""
    return ("spec", "template", "spec") if applier.kind == "ApplicationSet" else ("spec",)


def applier_prunes(applier: KObject) -> bool:
    """A Flux Kustomization with ``spec.prune: true``, an Argo CD Application (or the ones an
    ApplicationSet generates) with ``syncPolicy.automated.prune: true``: what it no longer
    builds it deletes from the cluster (Flux's garbage collection; Argo CD's automated
    pruning, off by default: user-guide/auto_sync.md)."""
    if is_flux_kustomization(applier):
        return applier.get(("spec", "prune")) is True
    return applier.get((*argo_spec(applier), "syncPolicy", "automated", "prune")) is True


def gc_exempt(obj: KObject, cascade: bool) -> bool:
    """Annotated so that garbage collection leaves it: Flux's prune: disabled or reconcile:
    disabled; Argo CD's Prune=false, or Delete=false when its Application is deleted with the
    resources finalizer (``cascade``)."""
    notes = obj.annotations
    if str(notes.get(PRUNE, "")).lower() == "disabled":
        return True
    if str(notes.get(RECONCILE, "")).lower() == "disabled":
        return True
    options = [o.strip() for o in str(notes.get(ARGO_SYNC, "")).split(",")]
    return ("Delete=false" if cascade else "Prune=false") in options


def lingering(base: Model, head: Model, of: Sequence[KObject] | None = None
              ) -> list[KObject]:
    """The objects of ``base`` (or of ``of``, base objects) the head's appliers no longer
    apply that stay in the cluster after the merge: their applier is still there and does
    not prune (or their annotations keep them from its pruning). They keep running, and a
    NetworkPolicy among them keeps allowing what it allowed, until deleted by hand
    (change-safety's `orphaned`: new-user trial sixty-eight's DNS policy, removed from the
    tree under `prune: false`, was said both to stay and to be gone)."""
    out = []
    for obj in base.objects if of is None else of:
        gone = departure(base, head, obj)
        if gone is None or gone.now is None or gone.ungenerated:
            continue  # (applied still; or its applier is gone too, which decides)
        if not applier_prunes(gone.now) or gc_exempt(obj, False):
            out.append(obj)
    return out
