"""change-safety's `suspended` and `resumed` verdicts: changes under a suspended Flux
Kustomization or HelmRelease, or an Argo CD Application that syncs by hand, and what resuming
one (turning automated sync on) applies at once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from reviewbot.engine.findings import Violation
from reviewbot.model.objects import KObject, Model, Path, owners
from reviewbot.rules._change_safety.common import count_text, is_flux_kustomization, object_name

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import ObjectDiff, TreeDiff


def any_suspended(model: Model) -> bool:
    """Whether some Flux Kustomization is suspended or some Argo CD Application syncs by
    hand (else no change can be held back by its applier)."""
    return any(o.get(("spec", "suspend")) is True for o in model.of_kind("Kustomization")
               if is_flux_kustomization(o)) or any(
        _by_hand(o) is not None for o in model.of_kind("Application"))


def _by_hand(app: KObject) -> str | None:
    """Why an Argo CD Application syncs only when someone syncs it, or None: without
    ``syncPolicy.automated`` (or with ``automated.enabled: false``) Argo CD shows what git
    changed as OutOfSync and applies nothing (user-guide/auto_sync.md; ``automated: {}``
    and ``enabled`` unset are automated)."""
    if app.kind != "Application" or app.group != "argoproj.io":
        return None
    automated = app.get(("spec", "syncPolicy", "automated"))
    if not isinstance(automated, dict):
        return "no syncPolicy.automated"
    return "syncPolicy.automated.enabled: false" if automated.get("enabled") is False else None


def suspended_verdicts(entry: ObjectDiff, head: Model, base: Model,
                       any_held: bool) -> Iterator[Violation]:
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
            kind="suspended", line=line, doubt="",  # (the suspension is its fact, not a doubt)
        )
        return
    if not any_held:
        return
    # the Kustomizations and Applications whose build holds the object (model.owners: of a
    # template many Kustomizations read, each its own), as the head has them: a removal is
    # pruned, or not, by the head's revision of the one that applied it
    by = owners(head, obj) if entry.head is not None else [
        next((k for k in head.by_identity.get(o.identity, ()) if k.file == o.file), o)
        for o in owners(base, obj)]
    what = {"removed": "this removal is not pruned", "added": "this object is not "
            "created"}.get(entry.status, "this change does not roll out")
    for k in by:
        if is_flux_kustomization(k) and k.get(("spec", "suspend")) is True:
            yield Violation(
                obj, where,
                f"{obj.kind} {object_name(obj)} is applied by Kustomization {object_name(k)}, "
                f"which is suspended (spec.suspend: true): {what} until it is resumed",
                fix=f"Resume Kustomization {object_name(k)} when the change should apply.",
                kind="suspended", line=line, doubt="",  # (the suspension is its fact)
            )
            return
        why = _by_hand(k) if entry.status != "removed" else None  # (deletions: orphaned)
        if why is not None:
            yield Violation(
                obj, where,
                f"{obj.kind} {object_name(obj)} is applied by Argo CD Application "
                f"{object_name(k)}, which syncs by hand ({why}): {what} until someone syncs it",
                fix=f"Sync Application {object_name(k)} after the merge (argocd app sync "
                    f"{k.name}), or set syncPolicy.automated on it.",
                kind="suspended", line=line,
            )
            return


def _only_suspend_changes(entry: ObjectDiff) -> bool:
    return all(c.path[:2] == ("spec", "suspend") for c in entry.changes)


def resumed_verdicts(old: KObject, new: KObject, base: Model, head: Model,
                     diff: TreeDiff) -> Iterator[Violation]:
    was = _by_hand(old)
    if was is not None and _by_hand(new) is None:
        under, changed = _held(old, new, base, head, diff)
        yield Violation(
            new, ("spec", "syncPolicy", "automated"),
            f"Argo CD Application {object_name(new)} syncs automatically now (was: {was}): it "
            f"applies everything it holds at once, {count_text(under)}, {len(changed)} of "
            "them changed by this pull request, plus every change merged while it synced by "
            "hand and was not synced (the live state decides; this review compares with the "
            "base only)",
            fix=f"Compare the Application with the cluster first (argocd app diff {new.name}), "
                "or turn automated sync on in a pull request of its own.",
            kind="resumed",
        )
        return
    if old.get(("spec", "suspend")) is not True or new.get(("spec", "suspend")) is True:
        return
    where: Path = ("spec", "suspend") if new.get(("spec", "suspend")) is not None else ("spec",)
    if is_flux_kustomization(new):
        under, changed = _held(old, new, base, head, diff)
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


def _held(old: KObject, new: KObject, base: Model, head: Model,
          diff: TreeDiff) -> tuple[list[KObject], list[ObjectDiff]]:
    """What applier ``new`` (``old`` on the base) holds, and the changes among it: what its
    build holds (model.owners), not every object of the files it reads (a template every
    app's Kustomization substitutes is each app's own)."""
    under = [o for o in head.objects if new in owners(head, o)]
    changed = [e for e in diff.objects
               if (e.head is not None and new in owners(head, e.head))
               or (e.head is None and e.base is not None and old in owners(base, e.base))]
    return under, changed
