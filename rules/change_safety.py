"""What applying the pull request does: fails, deletes data, does nothing, or costs downtime.

What it checks:

The other rules judge the head tree. This one judges the *transition* from the base branch to
the head, the way the cluster will live it when Flux (or Argo CD) applies the merge. It runs
in `reviewbot review` and in `reviewbot diff` (whose JSON marks each changed object with these
verdicts), never in `lint`, which sees one tree.

- `immutable` (error): a field the API server refuses to change. The apply fails with
  "field is immutable" (or "Forbidden") until the object is deleted and recreated, and the
  Kustomization stays failed meanwhile, so every later change waits too. Each check mirrors
  one validation of the Kubernetes API server:
  - Deployment, ReplicaSet, DaemonSet `spec.selector` (apps/v1 update strategies:
    `ValidateImmutableField` on the selector);
  - StatefulSet: every `spec` field except `replicas`, `ordinals`, `template`,
    `updateStrategy`, `revisionHistoryLimit`, `persistentVolumeClaimRetentionPolicy` and
    `minReadySeconds` (`ValidateStatefulSetUpdate`: "updates to statefulset spec for fields
    other than ... are forbidden"): `selector`, `serviceName`, `volumeClaimTemplates`,
    `podManagementPolicy` ...;
  - Job `spec.selector` and `spec.template` (`ValidateJobSpecUpdate`);
  - PersistentVolumeClaim: `spec` is immutable after creation except
    `resources.requests` and `volumeAttributesClassName`
    (`ValidatePersistentVolumeClaimUpdate`): `storageClassName`, `accessModes`,
    `volumeName`, `volumeMode`, `selector`, `dataSource(Ref)`; and
    `resources.requests.storage` may not shrink ("field can not be less than previous value");
  - Service `spec.clusterIP` / `spec.clusterIPs` (`ValidateServiceUpdate`; a change to or
    from `type: ExternalName` is allowed);
  - RoleBinding / ClusterRoleBinding `roleRef` ("cannot change roleRef");
  - ConfigMap / Secret with `immutable: true`: `data`, `binaryData` (and a Secret's
    `stringData`, `type`), and `immutable` itself ("field is immutable when `immutable` is
    set"); Secret values are never shown, only the keys that change;
  - CustomResourceDefinition `spec.scope` (`ValidateCustomResourceDefinitionUpdate`).
- `recreated` (info): the same change where Flux recreates the object itself: the object
  carries `kustomize.toolkit.fluxcd.io/force: enabled`, or the Flux Kustomization applying it
  has `spec.force: true`. kustomize-controller then deletes and recreates the object, so the
  apply succeeds; for a StatefulSet that deletes every pod at once, for a
  PersistentVolumeClaim the claim (and, with reclaim policy Delete, its volume's data).
- `deleted-data` (error) and `deleted` (info): an object the base applied through a Flux
  Kustomization with `spec.prune: true`, or an Argo CD Application with
  `syncPolicy.automated.prune: true`, that the head no longer applies (removed from the tree,
  renamed, no longer listed by its kustomization, or its Kustomization removed): the
  controller's garbage collection deletes it in the cluster. PersistentVolumeClaim (its
  data), Namespace (everything in it), CustomResourceDefinition (every custom resource of
  it) and StatefulSet (its pods; its claims too with
  `persistentVolumeClaimRetentionPolicy.whenDeleted: Delete`) are `deleted-data`; other kinds
  `deleted`.
- `orphaned` (warning): the same removal where the applier does not prune: the object stays
  in the cluster and keeps running, and nothing manages it any more.
- `suspended` (info): a change to an object under a Flux Kustomization with
  `spec.suspend: true`, or to a HelmRelease with `spec.suspend: true`: nothing rolls out until
  it is resumed.
- `resumed` (info): `spec.suspend` goes from true to false (or away): everything the
  Kustomization applies, or the HelmRelease's current chart and values, is applied at once,
  including what was merged while it was suspended (which the repository alone cannot show).
- `gpu-restart` (info): a change to the pod template (args, env, image, resources, volumes
  ...) of a pod that requests GPUs and is replaced without surge (Recreate, RollingUpdate with
  `maxSurge: 0`, a one-replica StatefulSet): the old pod stops before the new one is ready, so
  the service is down for one boot. With a measured boot (the
  `reviewbot.dev/measured-boot-seconds` annotation, or the config's `measured:` entry for a
  values file) the message says how long: "restarts coder-predictor: measured boot 600 s of
  downtime". A GPU predictor restart is a weights reload, not a rolling update.
- `chart-major` (info): a HelmRelease's `spec.chart.spec.version` changes its major version.
- `oci-tag` (info): an OCIRepository's `spec.ref.tag` changes. For both, the rendered change
  is out of reach without the chart or artifact, and the message says so.

Messages name the field and point at its line in the head; deletions point at the object's
line in the base (they appear in the summary, not inline).

Why:

The most expensive pull-request mistakes are valid manifests whose apply fails, deletes data
or does nothing. A selector edit blocks a whole Kustomization; a PVC dropped from a pruning
Kustomization deletes the volume; an edit under a suspended Kustomization is silently
not deployed; a GPU predictor restart is minutes of downtime, measured, not assumed.

Kinds:

Deployment, ReplicaSet, DaemonSet, StatefulSet, Job, PersistentVolumeClaim, Service,
RoleBinding, ClusterRoleBinding, ConfigMap, Secret, CustomResourceDefinition (immutable
fields); every kind for deletion and suspension; workloads and KServe InferenceService
components (and Helm values pseudo-workloads) for GPU restarts; Flux Kustomization,
HelmRelease and OCIRepository.

When it stays quiet:

- in `lint` (one tree has no transition);
- a field added where the base left it to the API server's default (a PVC's
  `storageClassName`, a Service's `clusterIP`, a PVC's `volumeName`): the live value is
  unknown, so whether it changes is too;
- a removed object that no Flux Kustomization or Argo CD Application of the tree applied (the
  applier is outside the repository: what it does is unknown), and objects annotated
  `kustomize.toolkit.fluxcd.io/prune: disabled`, `kustomize.toolkit.fluxcd.io/reconcile:
  disabled` or Argo CD's `argocd.argoproj.io/sync-options: Prune=false` in the base;
- GPU pods that surge (gpu-rollout judges those), and pod template changes of pods without
  GPUs: an ordinary image bump says nothing;
- chart versions that are ranges (`>=1.0.0`, `6.x`), not versions.

Flux and Argo CD semantics relied on: a Flux Kustomization applies `spec.path` of its
source (a kustomization there is built; a folder without one gets every manifest below it),
`spec.prune` garbage-collects what the previous revision applied and this one does not,
`spec.suspend` stops reconciliation, `spec.force` and the `force: enabled` annotation
recreate objects whose patch fails on an immutable field. An Argo CD Application applies
`source.path` (a plain folder non-recursively unless `directory.recurse`), and prunes only with
`syncPolicy.automated.prune`. Paths are matched against the tree's folders by suffix, as the
model resolves Flux paths for `targetNamespace`.

Options:

- `gpu-resources`: extended resources that are GPUs (glob patterns).
- `data-kinds`: kinds whose deletion deletes data (`deleted-data` rather than `deleted`).

Severities are per finding kind as above; `rules: {change-safety: {severity: ...}}`
overrides them all, like every rule.

Failing example:

```yaml
# base: the claim Flux created, applied by a Kustomization with spec.prune: true
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: llm-models, namespace: llm-serving}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local-path
  resources: {requests: {storage: 200Gi}}
# head: storageClassName: longhorn   (immutable: the apply fails)
```

Passing example:

```yaml
# head: the claim grows, which the API server allows (the class expands volumes)
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: llm-models, namespace: llm-serving}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local-path
  resources: {requests: {storage: 300Gi}}
```
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from reviewbot.engine.findings import Violation
from reviewbot.engine.registry import Option
from reviewbot.model.objects import KObject, Model, Path, PodTemplate, appliers
from reviewbot.model.quantity import parse_quantity
from reviewbot.model.workload import (
    DEFAULT_GPU_RESOURCES,
    MAX_DIGITS,
    MEASURED_BOOT,
    field_path,
    measured,
    number,
    parse_seconds,
    pod_gpus,
)
from reviewbot.rules._kit import each_pod

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import Change, ObjectDiff, TreeDiff

ID = "change-safety"
SEVERITY = "error"
SUMMARY = ("What applying the change does: immutable fields, deletions under prune, "
           "suspended reconcilers, GPU restarts, chart major bumps.")
RATIONALE = (
    "A valid manifest can still fail to apply, delete a volume when its Kustomization prunes, "
    "never roll out under a suspended Kustomization, or cost a measured boot of downtime."
)
FIX = "Recreate the object under a new name, keep what prune would delete, or plan the downtime."
KINDS: tuple[str, ...] = ()
OPTIONS = (
    Option("gpu-resources", "list", list(DEFAULT_GPU_RESOURCES),
           "Extended resources that are GPUs (glob patterns)."),
    Option("data-kinds", "list",
           ["PersistentVolumeClaim", "Namespace", "CustomResourceDefinition", "StatefulSet"],
           "Kinds whose deletion under prune deletes data (an error, not info)."),
)
SEVERITIES = {
    "immutable": "error", "recreated": "info", "deleted-data": "error", "deleted": "info",
    "orphaned": "warning", "suspended": "info", "resumed": "info", "gpu-restart": "info",
    "chart-major": "info", "oci-tag": "info",
}

FLUX = "kustomize.toolkit.fluxcd.io"
FORCE = f"{FLUX}/force"
PRUNE = f"{FLUX}/prune"
RECONCILE = f"{FLUX}/reconcile"
ARGO_SYNC = "argocd.argoproj.io/sync-options"
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
_VERSION = re.compile(rf"^v?(\d{{1,{MAX_DIGITS}}})(?:\.\d+){{0,2}}(?:[-+][0-9A-Za-z.-]+)?$")


def check_change(diff: TreeDiff, base: Model, head: Model,
                 opts: Mapping[str, Any]) -> Iterator[Violation]:
    """The verdicts of one change: ``diff`` from ``base`` to ``head`` (whole models)."""
    patterns = tuple(str(p) for p in opts.get("gpu-resources") or DEFAULT_GPU_RESOURCES)
    data_kinds = frozenset(str(k) for k in opts.get("data-kinds") or ())
    pods: dict[int, list[PodTemplate]] = {}
    if any(e.status == "modified" for e in diff.objects):
        pods = _pods_by_object(base)
        pods.update(_pods_by_object(head))
    suspended = _any_suspended(base) or _any_suspended(head)
    for entry in diff.objects:
        if entry.status == "modified" and entry.base is not None and entry.head is not None:
            yield from _immutable(entry, entry.base, entry.head, head)
            yield from _gpu_restart(pods.get(id(entry.base), []),
                                    pods.get(id(entry.head), []), patterns, head)
            yield from _versions(entry, entry.base, entry.head)
            yield from _resumed(entry.base, entry.head, head, diff)
        yield from _suspended(entry, head, base, suspended)
    if _may_delete(diff, base, head):
        yield from _deletions(diff, base, head, data_kinds)


def _any_suspended(model: Model) -> bool:
    return any(o.get(("spec", "suspend")) is True for o in model.of_kind("Kustomization")
               if _is_flux(o))


def _may_delete(diff: TreeDiff, base: Model, head: Model) -> bool:
    """False when no object can have left what the appliers apply: nothing removed or
    renamed, no kustomization, Flux Kustomization or Argo CD Application changed, and every
    object still in the file it was in (the check that follows costs a walk of both trees)."""
    if any(e.status in ("removed", "renamed") or e.kind in ("Kustomization", "Application")
           for e in diff.objects):
        return True
    here = {(o.identity, o.file) for o in head.objects}
    return any((o.identity, o.file) not in here for o in base.objects)


# ---------------------------------------------------------------- immutable fields


def _immutable(entry: ObjectDiff, old: KObject, new: KObject,
               head: Model) -> Iterator[Violation]:
    found = _immutable_changes(old, new, entry.changes)
    if not found:
        return
    force = _force(new, appliers(head).get(new.file, []))
    for path, what, rule, change in found:
        who = f"{new.kind} {_name(new)}"
        shown = _shown(change, new)
        if force is not None:
            yield Violation(
                new, path,
                f"{who}: {what} changes{shown}, which the API server refuses ({rule}); "
                f"{force} makes Flux delete and recreate the object, so the apply succeeds"
                f"{_recreate_cost(new)}",
                fix=_recreate_fix(new), kind="recreated", line=change.line,
            )
        else:
            yield Violation(
                new, path,
                f"{who}: {what} changes{shown}, but {rule}: the apply fails with \"field is "
                f"immutable\" until the object is deleted and recreated, and everything else "
                f"its Kustomization applies waits meanwhile",
                fix=_immutable_fix(new, what), kind="immutable", line=change.line,
            )


def _immutable_changes(
    old: KObject, new: KObject, changes: Sequence[Change]
) -> list[tuple[Path, str, str, Change]]:
    """(path in the head, field named, the validation it breaks, the change) per field."""
    kind, group = new.kind, new.group
    out: list[tuple[Path, str, str, Change]] = []
    seen: set[Path] = set()

    def add(path: Path, rule: str, change: Change) -> None:
        if path in seen:
            return
        if change.op == "added" and len(path) >= 2 and (kind, str(path[-1])) in DEFAULTED:
            return
        seen.add(path)
        out.append((path, ".".join(str(p) for p in path), rule, change))

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
            elif p[:4] == ("spec", "resources", "requests", "storage") and _shrinks(change):
                add(p[:4], "a PersistentVolumeClaim's storage request can not be less than "
                    "its previous value (volumes do not shrink)", change)
        elif group == "" and kind == "Service":
            if p[:2] in (("spec", "clusterIP"), ("spec", "clusterIPs")) and not _external(
                    old, new):
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


def _shrinks(change: Change) -> bool:
    old, new = parse_quantity(change.old), parse_quantity(change.new)
    return old is not None and new is not None and new < old


def _external(old: KObject, new: KObject) -> bool:
    return "ExternalName" in (old.get(("spec", "type")), new.get(("spec", "type")))


def _shown(change: Change, obj: KObject) -> str:
    """`` (old -> new)`` for display; nothing for redacted (Secret) values."""
    if change.redacted or obj.kind == "Secret" and obj.group == "":
        return ""
    if change.op == "removed":
        return f" ({_compact(change.old)} -> removed)"
    if change.op == "added":
        return f" (set to {_compact(change.new)})"
    return f" ({_compact(change.old)} -> {_compact(change.new)})"


def _compact(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _force(obj: KObject, by: Sequence[KObject]) -> str | None:
    """What makes Flux recreate ``obj`` when its patch fails, or None."""
    if str(obj.annotations.get(FORCE, "")).lower() == "enabled" or str(
            obj.labels.get(FORCE, "")).lower() == "enabled":
        return f"the {FORCE}: enabled annotation"
    for k in by:
        if _is_flux(k) and k.get(("spec", "force")) is True:
            return f"spec.force: true on Kustomization {_name(k)}"
    return None


def _recreate_cost(obj: KObject) -> str:
    if obj.kind == "StatefulSet":
        return ("; deleting a StatefulSet deletes all its pods at once, not one by one")
    if obj.kind == "PersistentVolumeClaim":
        return ("; deleting the claim releases its volume, and with reclaim policy Delete the "
                "volume and its data are deleted: the new claim starts empty")
    if obj.kind == "Job":
        return "; the Job runs again from the start"
    return ""


def _recreate_fix(obj: KObject) -> str:
    if obj.kind in ("StatefulSet", "PersistentVolumeClaim"):
        return (f"Make sure the {obj.kind}'s data survives the recreation (a Retain reclaim "
                "policy, a backup), or drop the force and recreate it by hand.")
    return "Nothing to change if recreating the object is intended."


def _immutable_fix(obj: KObject, what: str) -> str:
    if obj.kind == "PersistentVolumeClaim":
        return (f"Keep {what} as it is; for a different class or mode, create a new claim "
                "under a new name and move the data.")
    if obj.kind in ("ConfigMap", "Secret"):
        return (f"Create the {obj.kind} under a new name (a content hash suffix, as kustomize's "
                "generators do) and point its users at it.")
    return (f"Revert {what}, or recreate the {obj.kind}: a new name, or "
            f"{FORCE}: enabled so Flux deletes and recreates it.")


# ---------------------------------------------------------------- deletion under prune


def _deletions(diff: TreeDiff, base: Model, head: Model,
               data_kinds: frozenset[str]) -> Iterator[Violation]:
    base_by, head_by = appliers(base), appliers(head)
    if not base_by:
        return
    applied = {o.identity for o in head.objects if head_by.get(o.file)}
    renamed = {e.base.identity: e.ref for e in diff.objects
               if e.status == "renamed" and e.base is not None}
    for obj in base.objects:
        by = base_by.get(obj.file)
        if not by or obj.identity in applied or _keeps(obj):
            continue
        applier = by[0]
        pruning = _prunes(applier)
        how = _how_gone(obj, head, renamed.get(obj.identity))
        who = f"{obj.kind} {_name(obj)}"
        if not pruning:
            yield Violation(
                obj, ("metadata", "name"),
                f"{who} {how}, but {_applier(applier)} does not prune: it stays in the cluster "
                "and keeps running, with nothing managing it",
                fix=f"Delete {obj.kind} {_name(obj)} by hand after the merge if it should go, "
                    "or keep it in the tree.",
                kind="orphaned",
            )
            continue
        loss = _data_loss(obj, base) if obj.kind in data_kinds else None
        text = f"{who} {how}, and {_applier(applier)} prunes: it is deleted in the cluster"
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


def _keeps(obj: KObject) -> bool:
    """Annotated in the base so that garbage collection leaves it."""
    notes = obj.annotations
    if str(notes.get(PRUNE, "")).lower() == "disabled":
        return True
    if str(notes.get(RECONCILE, "")).lower() == "disabled":
        return True
    options = [o.strip() for o in str(notes.get(ARGO_SYNC, "")).split(",")]
    return "Prune=false" in options


def _prunes(applier: KObject) -> bool:
    if _is_flux(applier):
        return applier.get(("spec", "prune")) is True
    return applier.get(("spec", "syncPolicy", "automated", "prune")) is True


def _applier(applier: KObject) -> str:
    if _is_flux(applier):
        return f"Kustomization {_name(applier)} (spec.prune: {_flag(applier, 'prune')})"
    return (f"Argo CD Application {_name(applier)} (syncPolicy.automated.prune: "
            f"{_flag(applier, 'syncPolicy', 'automated', 'prune')})")


def _flag(obj: KObject, *path: str) -> str:
    value = obj.get(("spec", *path))
    return "true" if value is True else "false" if value is False else "unset"


def _how_gone(obj: KObject, head: Model, renamed_to: str | None) -> str:
    if renamed_to is not None:
        return f"is renamed to {renamed_to} (a new object; the old one goes)"
    if obj.identity in head.by_identity:
        return "is no longer applied (its file is no longer listed)"
    return "is removed from the tree"


def _data_loss(obj: KObject, base: Model) -> str | None:
    kind = obj.kind
    if kind == "PersistentVolumeClaim" and obj.group == "":
        return "the claim and, with reclaim policy Delete, the data of its volume"
    if kind == "Namespace" and obj.group == "":
        inside = [o for o in base.objects if o.namespace == obj.name and o is not obj]
        return (f"everything in namespace {obj.name} ({_count(inside)} of this repository, "
                "and whatever else runs there)")
    if kind == "CustomResourceDefinition" and obj.group == "apiextensions.k8s.io":
        group = obj.get(("spec", "group"))
        crd_kind = obj.get(("spec", "names", "kind"))
        inside = [o for o in base.objects if o.group == group and o.kind == crd_kind]
        return (f"every {crd_kind or 'custom'} resource in the cluster ({_count(inside)} "
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


def _count(objects: Sequence[KObject]) -> str:
    return f"{len(objects)} object" + ("" if len(objects) == 1 else "s")


def _keep_fix(obj: KObject) -> str:
    return (f"If {obj.kind} {_name(obj)} must stay, first merge the annotation {PRUNE}: "
            "disabled on it (Argo CD: argocd.argoproj.io/sync-options: Prune=false), then "
            "remove it; if it must go, back up its data first.")


# ---------------------------------------------------------------- suspended reconcilers


def _suspended(entry: ObjectDiff, head: Model, base: Model,
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
                     and _only_suspend(entry))):
        yield Violation(
            obj, where,
            f"HelmRelease {_name(obj)} is suspended (spec.suspend: true): helm-controller "
            "does not upgrade the release, so this change does not roll out until it is "
            "resumed",
            fix="Resume the HelmRelease (spec.suspend: false) when the change should apply.",
            kind="suspended", line=line,
        )
        return
    if not any_kustomization:
        return
    by = appliers(head if entry.head is not None else base).get(obj.file, [])
    for k in by:
        if _is_flux(k) and k.get(("spec", "suspend")) is True:
            what = {"removed": "this removal is not pruned", "added": "this object is not "
                    "created"}.get(entry.status, "this change does not roll out")
            yield Violation(
                obj, where,
                f"{obj.kind} {_name(obj)} is applied by Kustomization {_name(k)}, which is "
                f"suspended (spec.suspend: true): {what} until it is resumed",
                fix=f"Resume Kustomization {_name(k)} when the change should apply.",
                kind="suspended", line=line,
            )
            return


def _only_suspend(entry: ObjectDiff) -> bool:
    return all(c.path[:2] == ("spec", "suspend") for c in entry.changes)


def _resumed(old: KObject, new: KObject, head: Model, diff: TreeDiff) -> Iterator[Violation]:
    if old.get(("spec", "suspend")) is not True or new.get(("spec", "suspend")) is True:
        return
    head_by = appliers(head)
    where: Path = ("spec", "suspend") if new.get(("spec", "suspend")) is not None else ("spec",)
    if _is_flux(new):
        files = {f for f, by in head_by.items() if new in by}
        under = [o for o in head.objects if o.file in files]
        changed = [e for e in diff.objects
                   if (e.head is not None and e.head.file in files)
                   or (e.head is None and e.base is not None and e.base.file in files)]
        yield Violation(
            new, where,
            f"Kustomization {_name(new)} is resumed: it applies everything under its path at "
            f"once, {_count(under)}, {len(changed)} of them changed by this pull request, "
            "plus every change merged while it was suspended (in the git history since "
            "suspend was set; this review compares with the base only)",
            fix="Read what changed under its path since it was suspended, or resume it in a "
                "pull request of its own.",
            kind="resumed",
        )
    elif new.kind == "HelmRelease" and new.group == "helm.toolkit.fluxcd.io":
        yield Violation(
            new, where,
            f"HelmRelease {_name(new)} is resumed: helm-controller upgrades the release to "
            "the current chart and values at once, including every change merged while it was "
            "suspended",
            fix="Compare the release's deployed values (helm get values) with the current "
                "ones before merging.",
            kind="resumed",
        )


# ---------------------------------------------------------------- GPU restarts


def _pods_by_object(model: Model) -> dict[int, list[PodTemplate]]:
    out: dict[int, list[PodTemplate]] = {}
    for pod in each_pod(model):
        out.setdefault(id(pod.obj), []).append(pod)
    return out


def _gpu_restart(old_pods: Sequence[PodTemplate], new_pods: Sequence[PodTemplate],
                 patterns: Sequence[str], head: Model) -> Iterator[Violation]:
    before = {p.name: p for p in old_pods}
    for pod in new_pods:
        old = before.get(pod.name)
        gpus = pod_gpus(pod, patterns)
        if old is None or not gpus:
            continue
        how = _replaced_without_surge(pod)
        if how is None:
            continue
        changed = _template_changes(old, pod)
        if not changed:
            continue
        fields = ", ".join(name for name, _ in changed)
        gpu_text = " and ".join(f"{number(v)} {r}" for r, v in gpus.items())
        raw = measured(pod, MEASURED_BOOT, head.inventory)
        boot = parse_seconds(raw) if raw is not None else None
        if boot is not None:
            tail = f"restarts {pod.name}: measured boot {number(boot)} s of downtime"
        else:
            tail = (f"restarts {pod.name}: down for one boot, which is not measured "
                    f"(annotate {MEASURED_BOOT})")
        yield Violation(
            pod.obj, changed[0][1],
            f"{pod.name} requests {gpu_text} and is replaced {how}: this change to its pod "
            f"template ({fields}) stops the old pod before the new one is ready, so it {tail}",
            fix=(f"Merge when {pod.name} may be down for "
                 f"{f'{number(boot)} s' if boot is not None else 'one boot'} (a GPU "
                 "predictor restart is a weights reload, not a rolling update), or batch "
                 "this with the next change that restarts it."),
            kind="gpu-restart",
        )


def _replaced_without_surge(pod: PodTemplate) -> str | None:
    strategy = pod.strategy
    if pod.kind == "StatefulSet":
        if strategy is not None and strategy.type == "OnDelete":
            return None
        return "in place (StatefulSet, one replica)" if pod.replicas <= 1 else None
    if strategy is None:
        return None
    if strategy.type == "Recreate":
        return "with Recreate"
    if strategy.type == "RollingUpdate" and str(strategy.max_surge).strip() in ("0", "0%"):
        return "with RollingUpdate and maxSurge 0"
    return None


CONTAINER_FIELDS = ("image", "args", "command", "env", "envFrom", "resources", "volumeMounts")


def _template_changes(old: PodTemplate, new: PodTemplate) -> list[tuple[str, Path]]:
    """(what changed, where in the head) for the pod template fields that differ."""
    out: list[tuple[str, Path]] = []
    olds = {(c.role, c.name): c for c in old.containers}
    for c in new.containers:
        was = olds.pop((c.role, c.name), None)
        if was is None:
            out.append((f"{c.role} {c.name} added", c.path))
            continue
        for key in sorted(set(c.body) | set(was.body),
                          key=lambda k: (k not in CONTAINER_FIELDS, CONTAINER_FIELDS.index(k)
                                         if k in CONTAINER_FIELDS else 0, str(k))):
            if key != "name" and not _same(c.body.get(key), was.body.get(key)):
                out.append((str(key), field_path(c, key)))
    for role, name in olds:
        out.append((f"{role} {name} removed", new.spec_path))
    containers = ("containers", "initContainers", "ephemeralContainers")
    for key in sorted(set(new.spec) | set(old.spec)):
        if key not in containers and not _same(new.spec.get(key), old.spec.get(key)):
            out.append((str(key), new.spec_path + (key,)))
    names: list[str] = []
    unique = []
    for name, path in out:
        if name not in names:
            names.append(name)
            unique.append((name, path))
    return unique


def _same(a: Any, b: Any) -> bool:
    if a == b:
        return True
    qa, qb = _quantity(a), _quantity(b)
    if qa is not None and qb is not None:
        return qa == qb
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return False


def _quantity(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return parse_quantity(value)


# ---------------------------------------------------------------- chart and artifact versions


def _versions(entry: ObjectDiff, old: KObject, new: KObject) -> Iterator[Violation]:
    if new.kind == "HelmRelease" and new.group == "helm.toolkit.fluxcd.io":
        path: Path = ("spec", "chart", "spec", "version")
        was, now = old.get(path), new.get(path)
        a, b = _major(was), _major(now)
        if a is not None and b is not None and a != b:
            chart = new.get(("spec", "chart", "spec", "chart")) or "the chart"
            yield Violation(
                new, path,
                f"HelmRelease {_name(new)}: chart {chart} {was} -> {now} changes the major "
                f"version ({a} -> {b}): templates, values and defaults may change "
                "incompatibly, and the rendered change is out of reach without the chart "
                "(reviewbot does not render Helm charts)",
                fix=f"Read the chart's upgrade notes for {now} and diff its rendered output "
                    "(helm template, flux diff) before merging.",
                kind="chart-major",
            )
    elif new.kind == "OCIRepository" and new.group == "source.toolkit.fluxcd.io":
        tag: Path = ("spec", "ref", "tag")
        was, now = old.get(tag), new.get(tag)
        if was is not None and now is not None and str(was) != str(now):
            yield Violation(
                new, tag,
                f"OCIRepository {_name(new)}: tag {was} -> {now}: everything built from this "
                "artifact changes with it, and the rendered change is out of reach (the "
                "artifact is not in this repository)",
                fix=f"Diff the artifact's content at {was} and {now} (flux diff artifact) "
                    "before merging.",
                kind="oci-tag",
            )


def _major(version: Any) -> int | None:
    if not isinstance(version, (str, int)) or isinstance(version, bool):
        return None
    match = _VERSION.match(str(version).strip())
    return int(match.group(1)) if match else None


# ---------------------------------------------------------------- helpers


def _is_flux(obj: KObject) -> bool:
    return obj.kind == "Kustomization" and obj.group == FLUX


def _name(obj: KObject) -> str:
    return f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name
