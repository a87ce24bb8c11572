"""What the checks of change-safety share: the Flux and Argo CD names they read, and how
objects are named in messages."""

from __future__ import annotations

from collections.abc import Sequence

from reviewbot.model.objects import KObject
from reviewbot.model.pruning import (  # noqa: F401  (the names the checks import from here)
    ARGO_FINALIZER,
    ARGO_SYNC,
    FLUX,
    PRUNE,
    RECONCILE,
    is_flux_kustomization,
)

FORCE = f"{FLUX}/force"
# the sync options that make Argo CD delete and recreate an object (user-guide/sync-options.md)
ARGO_RECREATE = "Force=true,Replace=true"


def object_name(obj: KObject) -> str:
    return f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name


def count_text(objects: Sequence[KObject]) -> str:
    return f"{len(objects)} object" + ("" if len(objects) == 1 else "s")
