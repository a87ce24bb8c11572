"""change-safety's `suspended` and `resumed` verdicts: changes under a suspended Flux
Kustomization or HelmRelease, and what resuming one applies at once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from reviewbot.engine.findings import Violation
from reviewbot.model.objects import KObject, Model, Path, owners
from reviewbot.rules._change_safety.common import count_text, is_flux_kustomization, object_name

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import ObjectDiff, TreeDiff


def any_suspended(model: Model) -> bool:
    return any(o.get(("spec", "suspend")) is True for o in model.of_kind("Kustomization")
               if is_flux_kustomization(o))


def suspended_verdicts(entry: ObjectDiff, head: Model, base: Model,
                       any_kustomization: bool) -> Iterator[Violation]:
    obj = entry.head if entry.head is not None else entry.base
    if obj is None:
        return
    line = entry.changes[0].line if entry.changes else None
    where: Path = tuple(entry.changes[0].path[:1]) if entry.changes else ()
    if (obj.kind == "HelmRelease" and obj.group == "helm.toolkit.fluxcd.io"
            and entry.head is not None and obj.get(("spec", "suspend")) is True
            and entry.status == "modified"
            and not (entry.base is not None and entry.base.get(("spec", "suspend")) is not True
                     and _only_suspend_changes(entry))):
        yield Violation(
            obj, where,
            f"HelmRelease {object_name(obj)} is suspended (spec.suspend: true): helm-controller "
            "does not upgrade the release, so this change does not roll out until it is "
            "resumed",
            fix="Resume the HelmRelease (spec.suspend: false) when the change should apply.",
            kind="suspended", line=line,
        )
        return
    if not any_kustomization:
        return
    # the Kustomizations whose build holds the object (model.owners: of a template many
    # Kustomizations read, each its own), as the head has them: a removal is pruned, or not,
    # by the head's revision of the Kustomization that applied it
    by = owners(head, obj) if entry.head is not None else [
        next((k for k in head.by_identity.get(o.identity, ()) if k.file == o.file), o)
        for o in owners(base, obj)]
    for k in by:
        if is_flux_kustomization(k) and k.get(("spec", "suspend")) is True:
            what = {"removed": "this removal is not pruned", "added": "this object is not "
                    "created"}.get(entry.status, "this change does not roll out")
            yield Violation(
                obj, where,
                f"{obj.kind} {object_name(obj)} is applied by Kustomization {object_name(k)}, "
                f"which is suspended (spec.suspend: true): {what} until it is resumed",
                fix=f"Resume Kustomization {object_name(k)} when the change should apply.",
                kind="suspended", line=line,
            )
            return


def _only_suspend_changes(entry: ObjectDiff) -> bool:
    return all(c.path[:2] == ("spec", "suspend") for c in entry.changes)


def resumed_verdicts(old: KObject, new: KObject, base: Model, head: Model,
                     diff: TreeDiff) -> Iterator[Violation]:
    if old.get(("spec", "suspend")) is not True or new.get(("spec", "suspend")) is True:
        return
    where: Path = ("spec", "suspend") if new.get(("spec", "suspend")) is not None else ("spec",)
    if is_flux_kustomization(new):
        # what its build holds (model.owners), not every object of the files it reads: a
        # template every app's Kustomization substitutes is each app's own
        under = [o for o in head.objects if new in owners(head, o)]
        changed = [e for e in diff.objects
                   if (e.head is not None and new in owners(head, e.head))
                   or (e.head is None and e.base is not None and old in owners(base, e.base))]
        yield Violation(
            new, where,
            f"Kustomization {object_name(new)} is resumed: it applies everything under its path at "
            f"once, {count_text(under)}, {len(changed)} of them changed by this pull request, "
            "plus every change merged while it was suspended (in the git history since "
            "suspend was set; this review compares with the base only)",
            fix="Read what changed under its path since it was suspended, or resume it in a "
                "pull request of its own.",
            kind="resumed",
        )
    elif new.kind == "HelmRelease" and new.group == "helm.toolkit.fluxcd.io":
        yield Violation(
            new, where,
            f"HelmRelease {object_name(new)} is resumed: helm-controller upgrades the release to "
            "the current chart and values at once, including every change merged while it was "
            "suspended",
            fix="Compare the release's deployed values (helm get values) with the current "
                "ones before merging.",
            kind="resumed",
        )
