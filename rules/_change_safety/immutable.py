"""change-safety's `immutable` and `recreated` verdicts: a field the API server refuses to
change, each check mirroring one of its update validations."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from reviewbot.engine.findings import Violation
from reviewbot.model.objects import KObject, Model, Path, owners
from reviewbot.model.quantity import parse_quantity
from reviewbot.model.values import renders_claim
from reviewbot.rules._change_safety.common import (
    ARGO_RECREATE,
    ARGO_SYNC,
    FORCE,
    is_flux_kustomization,
    object_name,
)

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import Change, ObjectDiff


STATEFULSET_MUTABLE = frozenset({
    "replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy", "minReadySeconds",
})
PVC_MUTABLE = frozenset({"resources", "volumeAttributesClassName"})
# Fields the API server fills in when the manifest leaves them out: adding one is not known to
# change the live value, so only a change or removal of a written value is judged.
DEFAULTED = frozenset({
    ("PersistentVolumeClaim", "storageClassName"), ("PersistentVolumeClaim", "volumeName"),
    ("PersistentVolumeClaim", "volumeMode"), ("Service", "clusterIP"),
    ("Service", "clusterIPs"), ("StatefulSet", "podManagementPolicy"),
    ("StatefulSet", "serviceName"), ("CustomResourceDefinition", "scope"),
})


def immutable_verdicts(entry: ObjectDiff, old: KObject, new: KObject,
                       head: Model) -> Iterator[Violation]:
    if new.kind == "HelmRelease" and new.group == "helm.toolkit.fluxcd.io":
        yield from _chart_claims(entry, old, new, head)
        return
    if new.kind == "Cluster" and new.group == "postgresql.cnpg.io":
        yield from _cnpg_shrunk(entry, new, head)
        return
    changes: Sequence[Change] = entry.changes
    if id(new) in head.unbuilt:  # (its build fails: a `${VAR}` it shows is one the failing
        # substitution left, not the value the cluster gets once it builds; new-user trial
        # sixty-nine: "storageClassName changes (ceph-block -> ${STORAGE_CLASS})")
        changes = [c for c in changes if not _placeholder(c.new) or _placeholder(c.old)]
    found = _refused_changes(old, new, changes)
    if not found:
        return
    by = owners(head, new)
    if _hook_recreated(new, by):
        return  # (Argo CD deletes the hook and creates it anew at each sync: no patch)
    force = _forced_by(new, by)
    applier = by[0] if by else None
    for path, what, rule, changes in found:
        who = f"{new.kind} {object_name(new)}"
        line, at = _narrowest(new, path, changes)
        point = path
        if line is None and at is None:  # set elsewhere: placed where its origin is
            point, line, at = _set_elsewhere(new, changes) or (path, changes[0].line, None)
        shown = _changes_text(path, changes, new)
        if new.kind == "Service" and all(c.op == "removed" for c in changes):
            # a clusterIP left unset: the API server keeps the allocated one (its update
            # copies the old clusterIPs into an object that leaves them empty), so the apply
            # succeeds and changes nothing (new-user trial twenty-one: "kubectl apply fails")
            was = ", ".join(str(c.old) for c in changes if c.old is not None) or "its value"
            yield Violation(
                new, point,
                f"{who}: {what} is removed (was {was}), but the API server keeps the value it "
                f"allocated when a Service leaves it unset: the apply succeeds and the Service "
                f"keeps {what} {was}",
                fix=(f"Keep {what} written as it is, or, to change it, recreate the Service: "
                     f"{_immutable_fix(new, what, applier).split(': ', 1)[1]}"),
                kind="kept", line=line, column=at,
            )
            continue
        renamed = _template_renamed(new, changes) if force is not None else None
        if renamed is not None:  # (new-user trial forty-eight followed the fix that forces
            # the recreation: the recreated pods start empty, said as an info)
            was, now = (f"{name}-{new.name}-0" for name in renamed)
            yield Violation(
                new, point,
                f"{who}: its claim template {renamed[0]} is renamed {renamed[1]}, and "
                f"{force} delete and recreate it: its pods start on new, empty volumes ({now}) "
                f"and the data stays in {was}, which none of them mounts",
                fix=(f"Keep the claim template's name, or copy each claim's data to its new "
                     f"claim ({was} to {now}) before the new pods start."),
                kind="claims-renamed", line=line, column=at)
        elif force is not None:
            yield Violation(
                new, point,
                f"{who}: {what} changes{shown}, which the API server refuses ({rule}); "
                f"{force} delete and recreate the object, so the apply succeeds"
                f"{_recreation_cost(new)}",
                fix=_recreation_fix(new), kind="recreated", line=line, column=at,
            )
        else:
            yield Violation(
                new, point,
                f"{who}: {what} changes{shown}, but {rule}: "
                f"{_failure_text(applier, _refusal(new, path))}",
                fix=_immutable_fix(new, what, applier, changes), kind="immutable", line=line,
                column=at,
            )


# what app-template (bjw-s common library) writes of a ``persistence`` item into the
# PersistentVolumeClaim it renders for it (type persistentVolumeClaim, the default, without
# ``existingClaim``): the fields the API server keeps as they were made
_CLAIM_FIELDS = {"storageClass": "storageClassName", "accessMode": "accessModes"}


def _placeholder(value: Any) -> bool:
    """A text holding a Flux variable (``${STORAGE_CLASS}``)."""
    return isinstance(value, str) and "${" in value


def _chart_claims(entry: ObjectDiff, old: KObject, new: KObject,
                  head: Model) -> Iterator[Violation]:
    """An app-template release's inline ``persistence.<item>.storageClass`` (or
    ``accessMode``) changed where the chart renders the item as a PersistentVolumeClaim:
    helm-controller's upgrade patches the claim, which the API server refuses, so the
    release fails to upgrade (a new-user trial changed a home storage class through
    substitution: the raw claims were said, the chart's was not)."""
    from reviewbot.model.releases import releases

    release = next((r for r in releases(head) if r.obj is new), None)
    if release is None or release.chart != "app-template":
        return
    for change in entry.changes:
        p = change.path
        if len(p) == 5 and p[:3] == ("spec", "values", "persistence") and p[4] == "size" and (
                change.op == "changed"):
            found = _chart_claim_shrunk(new, p, change)
            if found is not None:
                yield found
            continue
        if (len(p) != 5 or p[:3] != ("spec", "values", "persistence") or p[4] not in
                _CLAIM_FIELDS or change.op not in ("changed", "removed")):
            continue
        if not renders_claim(new.get(("spec", "values", "persistence", p[3]))):
            continue
        what = ".".join(p[2:])
        now = "removed" if change.op == "removed" else f"{change.old} -> {change.new}"
        line, at = _narrowest(new, tuple(p), [change])
        yield Violation(
            new, tuple(p),
            f"HelmRelease {object_name(new)}: {what} changes ({now}), and app-template "
            f"renders persistence.{p[3]} as a PersistentVolumeClaim, whose "
            f"{_CLAIM_FIELDS[p[4]]} is immutable after creation: helm-controller's upgrade "
            "fails with \"field is immutable\", and the release stays as it was until the "
            "claim is deleted and made again",
            fix=(f"Keep {what} as it is; for a different class or mode, add a persistence "
                 "item under a new name (a new claim) and move the data."),
            kind="immutable", line=line, column=at,
        )


def _cnpg_shrunk(entry: ObjectDiff, new: KObject, head: Model) -> Iterator[Violation]:
    """A CloudNativePG Cluster's ``spec.storage.size`` (or ``walStorage.size``) made smaller:
    the operator's validating webhook refuses the update ("can't shrink existing storage
    from 20Gi to 10Gi", its ClusterCustomValidator), so the apply fails and the Cluster stays
    as it was (new-user trial seventy-two D6: "no new findings")."""
    for change in entry.changes:
        p = tuple(change.path)
        if change.op != "changed" or p not in (("spec", "storage", "size"),
                                               ("spec", "walStorage", "size")):
            continue
        old_size, new_size = parse_quantity(change.old), parse_quantity(change.new)
        if old_size is None or new_size is None or new_size >= old_size:
            continue
        by = owners(head, new)
        line, at = _narrowest(new, p, [change])
        refusal = f"can't shrink existing storage from {change.old} to {change.new}"
        yield Violation(
            new, p,
            f"Cluster {object_name(new)}: {'.'.join(p[1:])} shrinks ({change.old} -> "
            f"{change.new}), which CloudNativePG's webhook refuses: "
            + _failure_text(by[0] if by else None, refusal).replace(
                " until the object is deleted and recreated", ""),
            fix=(f"Keep {'.'.join(p[1:])} at least {change.old}; for smaller volumes, make a "
                 "new Cluster (a replica or a restore) and move to it."),
            kind="immutable", line=line, column=at)


def _chart_claim_shrunk(new: KObject, p: Path, change: Change) -> Violation | None:
    """An app-template release's ``persistence.<item>.size`` made smaller where the chart
    renders the item as a claim: the API server refuses a claim's smaller request ("field
    can not be less than previous value"), so helm-controller's upgrade fails (new-user
    trial twenty-seven: 5Gi -> 2Gi, "no new findings")."""
    old_size, new_size = parse_quantity(change.old), parse_quantity(change.new)
    if old_size is None or new_size is None or new_size >= old_size:
        return None
    if not renders_claim(new.get(("spec", "values", "persistence", p[3]))):
        return None
    what = ".".join(str(x) for x in p[2:])
    line, at = _narrowest(new, tuple(p), [change])
    return Violation(
        new, tuple(p),
        f"HelmRelease {object_name(new)}: {what} shrinks ({change.old} -> {change.new}), and "
        f"app-template renders persistence.{p[3]} as a PersistentVolumeClaim, whose request "
        "can only grow: helm-controller's upgrade fails (\"field can not be less than "
        "previous value\"), and the release stays as it was",
        fix=(f"Keep {what} at least {change.old}; for a smaller volume, add a persistence "
             "item under a new name (a new claim) and move the data."),
        kind="immutable", line=line, column=at,
    )


def _refused_changes(
    old: KObject, new: KObject, changes: Sequence[Change]
) -> list[tuple[Path, str, str, list[Change]]]:
    """(path in the head, field named, the validation it breaks, its changes) per field."""
    kind, group = new.kind, new.group
    out: list[tuple[Path, str, str, list[Change]]] = []
    seen: dict[Path, list[Change]] = {}

    def add(path: Path, rule: str, change: Change) -> None:
        if path in seen:
            seen[path].append(change)
            return
        if change.op == "added" and len(path) >= 2 and (kind, str(path[-1])) in DEFAULTED:
            return
        seen[path] = [change]
        out.append((path, ".".join(str(p) for p in path), rule, seen[path]))

    for change in changes:
        p = change.path
        top = p[:2]
        if group == "apps" and kind in ("Deployment", "ReplicaSet", "DaemonSet"):
            if top == ("spec", "selector"):
                add(top, f"a {kind}'s selector is immutable in apps/v1", change)
        elif group == "apps" and kind == "StatefulSet":
            if len(p) >= 2 and p[0] == "spec" and p[1] not in STATEFULSET_MUTABLE:
                add(top, "a StatefulSet's spec may change only in replicas, ordinals, "
                    "template, updateStrategy, revisionHistoryLimit, "
                    "persistentVolumeClaimRetentionPolicy and minReadySeconds", change)
        elif group == "batch" and kind == "Job":
            if top in (("spec", "selector"), ("spec", "template")):
                add(top, f"a Job's {p[1]} is immutable", change)
        elif group == "" and kind == "PersistentVolumeClaim":
            if len(p) >= 2 and p[0] == "spec" and p[1] not in PVC_MUTABLE:
                add(top, "a PersistentVolumeClaim's spec is immutable after creation "
                    "except resources.requests and volumeAttributesClassName", change)
            elif p[:4] == ("spec", "resources", "requests", "storage") and _storage_shrinks(change):
                add(p[:4], "a PersistentVolumeClaim's storage request can not be less than "
                    "its previous value (volumes do not shrink)", change)
        elif group == "" and kind == "Service":
            if p[:2] in (("spec", "clusterIP"), ("spec", "clusterIPs")) and (
                    not _external_name_involved(old, new)):
                add(top, "a Service's clusterIP is immutable", change)
        elif group == "rbac.authorization.k8s.io" and kind in ("RoleBinding",
                                                               "ClusterRoleBinding"):
            if p[:1] == ("roleRef",):
                add(("roleRef",), f"a {kind}'s roleRef cannot change", change)
        elif group == "" and kind in ("ConfigMap", "Secret") and old.get(("immutable",)) is True:
            fields = ("data", "binaryData", "stringData", "type", "immutable")
            if p[:1] and p[0] in fields:
                add((p[0],), f"a {kind} with immutable: true can not change its {p[0]}", change)
        elif (group == "apiextensions.k8s.io" and kind == "CustomResourceDefinition"
              and top == ("spec", "scope")):
            add(top, "a CustomResourceDefinition's scope is immutable", change)
    return out


def _claim_name(obj: KObject, template: Any) -> str:
    """The claims a StatefulSet makes of the claim template ``template`` (its index or its
    name, as a change names it): ``<template>-<statefulset>-<ordinal>``."""
    entries = obj.get(("spec", "volumeClaimTemplates"))
    name = template
    at = int(template) if isinstance(template, str) and template.isdigit() else template
    if isinstance(at, int) and isinstance(entries, list) and at < len(entries):
        meta = entries[at].get("metadata") if isinstance(entries[at], dict) else None
        name = meta.get("name") if isinstance(meta, dict) else template
    return f"{name}-{obj.name}-N"


def _storage_shrinks(change: Change) -> bool:
    old, new = parse_quantity(change.old), parse_quantity(change.new)
    return old is not None and new is not None and new < old


def _external_name_involved(old: KObject, new: KObject) -> bool:
    return "ExternalName" in (old.get(("spec", "type")), new.get(("spec", "type")))


def _narrowest(obj: KObject, field: Path,
               changes: Sequence[Change]) -> tuple[int | None, int | None]:
    """(line, column) of the narrowest node the changes of ``field`` show in the head: the
    first changed or added value (a selector's label), else the field's own value on the
    first change's line; a change the head's positions do not place (a removal, a list entry
    named by its name) keeps the change's line, and its start."""
    for change in changes:
        if change.op != "removed":
            path = _indexed(obj.body, change.path) or tuple(change.path)  # (entries by name)
            file, line, column = obj.where(path)
            if file == obj.file and line == change.line:
                return line, column
    file, line, column = obj.where(field)
    if file == obj.file and line == changes[0].line:
        return line, column
    return None, None


def _set_elsewhere(obj: KObject, changes: Sequence[Change]
                   ) -> tuple[Path, None, None] | None:
    """The first changed value a file other than the object's own sets (a kustomize
    `images:` entry, an overlay's patch): the finding is placed there, where the pull
    request changed it (a new-user trial: a Job's template changed by an overlay's image
    bump was placed on the base's untouched line, "not shown inline"); None when every
    change is the object's own."""
    for change in changes:
        if change.op != "removed" and (at := _indexed(obj.body, change.path)) is not None:
            file, _, _ = obj.where(at)
            if file != obj.file:
                return at, None, None
    return None


def _indexed(body: Any, path: Sequence[Any]) -> Path | None:
    """``path`` of a change (a list entry named by its ``name``) as the body's own path (the
    entry's index), or None where the body lacks it."""
    out: list[str | int] = []
    node = body
    for step in path:
        if (isinstance(node, dict) and step in node or isinstance(node, list)
                and isinstance(step, int) and 0 <= step < len(node)):
            out.append(step)
            node = node[step]
        elif isinstance(node, list) and isinstance(step, str):
            index = next((i for i, e in enumerate(node)
                          if isinstance(e, dict) and e.get("name") == step), None)
            if index is None and step.isdigit() and int(step) < len(node):
                index = int(step)  # (an entry without a name: by its index)
            if index is None:
                return None
            out.append(index)
            node = node[index]
        else:
            return None
    return tuple(out)


def _changes_text(field: Path, changes: Sequence[Change], obj: KObject) -> str:
    """`` (what changed)`` below ``field``: ``matchLabels.tier added: backend``,
    ``matchLabels.app: web -> web2``, ``old -> new`` for the field itself; nothing for
    redacted (Secret) values."""
    if obj.kind == "Secret" and obj.group == "" or any(c.redacted for c in changes):
        return ""
    parts = []
    for change in changes:
        below = ".".join(str(p) for p in change.path[len(field):])
        if change.flag is not None:  # an argument of a command (new-user trial fifty-eight
            # read "command added: true" of `--create-missing-only`)
            flag = change.flag
            if change.op == "added":
                value = change.new
                parts.append(f"{below} adds {flag}" + (
                    f" {_compact_text(value)}" if value not in (True, None) else ""))
            elif change.op == "removed":
                parts.append(f"{below} drops {flag}")
            else:
                parts.append(f"{below} {flag}: {_compact_text(change.old)} -> "
                             f"{_compact_text(change.new)}")
            continue
        if change.op == "removed":
            parts.append(f"{below} removed" if below else
                         f"{_compact_text(change.old)} -> removed")
        elif change.op == "added":
            parts.append(f"{below} added: {_compact_text(change.new)}" if below else
                         f"set to {_compact_text(change.new)}")
        else:
            shown = f"{_compact_text(change.old)} -> {_compact_text(change.new)}"
            parts.append(f"{below}: {shown}" if below else shown)
    return f" ({'; '.join(parts)})"


def _compact_text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _hook_recreated(obj: KObject, by: Sequence[KObject]) -> bool:
    """Whether ``obj`` is a sync hook that Argo CD Applications (every applier of it) delete
    and create anew at each sync, so a change is never a patch of the one in the cluster:
    an ``argocd.argoproj.io/hook`` whose delete policy is BeforeHookCreation (Argo CD's
    default, when none is given) or HookSucceeded, or a ``helm.sh/hook`` (Argo CD maps it)
    whose ``helm.sh/hook-delete-policy`` is before-hook-creation (Helm's default) or
    hook-succeeded. New-user trial fifty-six: a PreSync migration Job with
    BeforeHookCreation was "immutable" at every image bump; fifty-eight: the same of an
    ApplicationSet's generated Application."""
    if not by or not all(k.kind in ("Application", "ApplicationSet")
                         and k.group == "argoproj.io" for k in by):
        return False
    notes = obj.annotations
    if "argocd.argoproj.io/hook" in notes:
        policy = str(notes.get("argocd.argoproj.io/hook-delete-policy") or
                     "BeforeHookCreation")
        return bool({"BeforeHookCreation", "HookSucceeded"} & {
            p.strip() for p in policy.split(",")})
    if "helm.sh/hook" in notes:
        policy = str(notes.get("helm.sh/hook-delete-policy") or "before-hook-creation")
        return bool({"before-hook-creation", "hook-succeeded"} & {
            p.strip() for p in policy.split(",")})
    return False


def _forced_by(obj: KObject, by: Sequence[KObject]) -> str | None:
    """What makes Flux or Argo CD recreate ``obj`` when its patch fails ("... makes Flux"),
    or None. Argo CD: the Force=true,Replace=true sync options together (Replace alone is a
    kubectl replace, which the API server refuses alike: Argo CD's TestSyncWithForceReplace)."""
    if str(obj.annotations.get(FORCE, "")).lower() == "enabled" or str(
            obj.labels.get(FORCE, "")).lower() == "enabled":
        return f"the {FORCE}: enabled annotation makes Flux"
    for k in by:
        if is_flux_kustomization(k) and k.get(("spec", "force")) is True:
            return f"spec.force: true on Kustomization {object_name(k)} makes Flux"
    options = {o.strip() for o in str(obj.annotations.get(ARGO_SYNC, "")).split(",")}
    if {"Force=true", "Replace=true"} <= options:
        return f"the {ARGO_SYNC}: {ARGO_RECREATE} annotation makes Argo CD"
    return None


def _refusal(obj: KObject, path: Path) -> str:
    """What the API server answers the change at ``path`` (its validation's words): a
    claim's shrunk storage request "field can not be less than previous value" (a new-user
    trial read "field is immutable" of it), a StatefulSet's spec "Forbidden: updates to
    statefulset spec for fields other than ...", the rest "field is immutable"."""
    if obj.kind == "PersistentVolumeClaim" and tuple(path[:4]) == (
            "spec", "resources", "requests", "storage"):
        return "field can not be less than previous value"
    if obj.kind == "StatefulSet" and obj.group == "apps" and path[:1] == ("spec",):
        # (apps validation's words for a StatefulSet; new-user trial forty read "field is
        # immutable" of a volumeClaimTemplates resize)
        return ("spec: Forbidden: updates to statefulset spec for fields other than ... are "
                "forbidden")
    return "field is immutable"


def _failure_text(applier: KObject | None, refusal: str = "field is immutable") -> str:
    """What the refused apply does to the applier, which the fix then names."""
    tail = "until the object is deleted and recreated"
    if applier is None:
        return f"kubectl apply fails with \"{refusal}\" {tail}"
    if is_flux_kustomization(applier):
        return (f"the apply fails with \"{refusal}\" {tail}, and everything else "
                f"Kustomization {object_name(applier)} applies waits meanwhile")
    if applier.kind == "ApplicationSet":
        return (f"the sync of the Application that Argo CD ApplicationSet {object_name(applier)} "
                f"generates fails with \"{refusal}\" {tail}")
    return (f"the sync of Argo CD Application {object_name(applier)} fails with \"{refusal}\" "
            f"{tail}")


def _recreation_cost(obj: KObject) -> str:
    if obj.kind == "StatefulSet":
        return ("; deleting a StatefulSet deletes all its pods at once, not one by one")
    if obj.kind == "PersistentVolumeClaim":
        return ("; deleting the claim releases its volume, and with reclaim policy Delete the "
                "volume and its data are deleted: the new claim starts empty")
    if obj.kind == "Job":
        return "; the Job runs again from the start"
    return ""


def _template_renamed(obj: KObject, changes: Sequence[Change]) -> tuple[str, str] | None:
    """(old, new) of a StatefulSet's claim template ``changes`` rename, or None."""
    for c in changes:
        if obj.kind == "StatefulSet" and len(c.path) == 5 and tuple(c.path[:2]) == (
                "spec", "volumeClaimTemplates") and tuple(c.path[3:]) == ("metadata", "name") and (
                isinstance(c.old, str) and isinstance(c.new, str)):
            return c.old, c.new
    return None


def _recreation_fix(obj: KObject) -> str:
    if obj.kind in ("StatefulSet", "PersistentVolumeClaim"):
        return (f"Make sure the {obj.kind}'s data survives the recreation (a Retain reclaim "
                "policy, a backup), or drop the force and recreate it by hand.")
    return "Nothing to change if recreating the object is intended."


def _immutable_fix(obj: KObject, what: str, applier: KObject | None,
                   changes: Sequence[Change] = ()) -> str:
    if obj.kind == "StatefulSet" and changes and all(
            len(c.path) >= 4 and tuple(c.path[:2]) == ("spec", "volumeClaimTemplates")
            and tuple(c.path[-3:]) == ("resources", "requests", "storage") for c in changes):
        # a claim template's size: recreating the StatefulSet grows no claim it made
        names = sorted({_claim_name(obj, c.path[2]) for c in changes})
        sizes = [(parse_quantity(c.old), parse_quantity(c.new)) for c in changes]
        if any(old is not None and new is not None and new < old for old, new in sizes):
            # (a claim never shrinks: new-user trial twenty-six's fix told how to grow one)
            return (f"Revert {what}: a bound claim's size can only grow (the API server: "
                    f"\"field can not be less than previous value\"), and a new template sizes "
                    f"new claims only. For smaller volumes ({', '.join(names)}), create new "
                    "claims under new names and move the data.")
        return (f"Revert {what}: a new template sizes new claims only. To grow the existing "
                f"claims ({', '.join(names)}), expand each claim itself (its StorageClass must "
                "allow volume expansion), then delete the StatefulSet with `kubectl delete "
                "--cascade=orphan` (its pods keep running) and let the new template be "
                "applied.")
    renamed = _template_renamed(obj, changes)
    if renamed is not None:  # (new-user trials forty-seven and forty-eight: its fix offered
        # a forced recreation, which leaves the data behind without a word)
        return (f"Revert {what}: a StatefulSet recreated with it starts its pods on new, empty "
                f"claims ({renamed[1]}-{obj.name}-N), and the data stays in "
                f"{renamed[0]}-{obj.name}-N. To move to the new name, copy each claim's data "
                "to its new claim before the new pods start.")
    if obj.kind == "PersistentVolumeClaim" and changes and all(
            tuple(c.path[:4]) == ("spec", "resources", "requests", "storage") for c in changes):
        return (f"Keep {what} at least its previous value; for a smaller volume, create a new "
                "claim under a new name and move the data.")
    if obj.kind == "PersistentVolumeClaim":
        return (f"Keep {what} as it is; for a different class or mode, create a new claim "
                "under a new name and move the data.")
    if obj.kind in ("ConfigMap", "Secret"):
        return (f"Create the {obj.kind} under a new name (a content hash suffix, as kustomize's "
                "generators do) and point its users at it.")
    if applier is None:
        how = ("delete it and apply again (kubectl replace --force, or kubectl delete then "
               "kubectl apply)")
    elif is_flux_kustomization(applier):
        how = f"{FORCE}: enabled on it so Flux deletes and recreates it"
    else:
        how = (f"{ARGO_SYNC}: {ARGO_RECREATE} on it so Argo CD deletes and recreates it (at "
               "every sync while it stays)")
    return f"Revert {what}, or recreate the {obj.kind}: a new name, or {how}."
