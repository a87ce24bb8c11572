"""What the checks of change-safety share: the Flux and Argo CD names they read, and how
objects are named in messages."""

from __future__ import annotations

from collections.abc import Sequence

from reviewbot.model.objects import KObject

FLUX = "kustomize.toolkit.fluxcd.io"
FORCE = f"{FLUX}/force"
PRUNE = f"{FLUX}/prune"
RECONCILE = f"{FLUX}/reconcile"
ARGO_SYNC = "argocd.argoproj.io/sync-options"
# Argo CD deletes an Application's resources with it only under this finalizer (or its
# ``/background`` form): user-guide/app_deletion.md
ARGO_FINALIZER = "resources-finalizer.argocd.argoproj.io"
# the sync options that make Argo CD delete and recreate an object (user-guide/sync-options.md)
ARGO_RECREATE = "Force=true,Replace=true"


def is_flux_kustomization(obj: KObject) -> bool:
    return obj.kind == "Kustomization" and obj.group == FLUX


def object_name(obj: KObject) -> str:
    return f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name


def count_text(objects: Sequence[KObject]) -> str:
    return f"{len(objects)} object" + ("" if len(objects) == 1 else "s")
