"""change-safety's `impersonation-dropped` verdict: a Flux Kustomization that stops
impersonating a ServiceAccount."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from reviewbot.engine.findings import Violation
from reviewbot.model.objects import Model
from reviewbot.rules._change_safety.common import is_flux_kustomization, object_name

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import TreeDiff


_LOCKDOWN = "--default-service-account"  # kustomize-controller's flag: no identity of its own


def impersonation_dropped(diff: TreeDiff, model: Model) -> Iterator[Violation]:
    """A Flux Kustomization whose ``spec.serviceAccountName`` the change removes: without it
    kustomize-controller applies the Kustomization's path with its own identity, which may
    change any object of the cluster, unless the controller runs with
    ``--default-service-account`` (Flux's multi-tenancy lockdown): a tenant's path is no
    longer held to its namespace's role (new-user trial seventy-two D3: team-a's
    Kustomization lost `serviceAccountName: team-a`, and only the diff showed it). Quiet where
    the tree sets that flag (a patch of flux-system's kustomize-controller)."""
    locked: bool | None = None
    for entry in diff.objects:
        base, now = entry.base, entry.head
        if entry.status != "modified" or base is None or now is None or not (
                is_flux_kustomization(now)):
            continue
        was = base.get(("spec", "serviceAccountName"))
        if not isinstance(was, str) or not was or now.get(("spec", "serviceAccountName")):
            continue
        if locked is None:
            locked = any(_LOCKDOWN in lf.text for lf in model.files.values() if lf.documents)
        if locked:
            return
        yield Violation(
            now, ("spec",),
            f"Kustomization {object_name(now)} no longer sets spec.serviceAccountName (it "
            f"impersonated ServiceAccount {now.namespace}/{was}): kustomize-controller "
            "applies its path as itself, which may change any object of the cluster, unless "
            "the controller runs with --default-service-account",
            kind="impersonation-dropped",
            fix=(f"Keep serviceAccountName: {was}, or run kustomize-controller with "
                 "--default-service-account (Flux's multi-tenancy lockdown)."))
