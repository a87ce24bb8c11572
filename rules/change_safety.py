"""What applying the pull request does: fails, deletes data, does nothing, or costs downtime.

What it checks:

The other rules judge the head tree. This one judges the *transition* from the base branch to
the head, the way the cluster will live it when Flux (or Argo CD) applies the merge. It runs
in `reviewbot review` and in `reviewbot diff` (whose JSON marks each changed object with these
verdicts), never in `lint`, which sees one tree.

- `immutable` (error): a field the API server refuses to change (not of an Argo CD sync
  hook Argo CD deletes and creates anew at each sync: BeforeHookCreation, its default, or
  HookSucceeded; a Helm hook alike). The apply fails with
  "field is immutable" (or "Forbidden") until the object is deleted and recreated: the
  Flux Kustomization applying it stays failed meanwhile, so every later change waits too;
  the Argo CD Application's sync fails; a plain `kubectl apply` fails. The message and the
  fix name the object's own applier (the one whose build holds it) and its way to recreate
  it: Flux's `kustomize.toolkit.fluxcd.io/force: enabled`, Argo CD's
  `argocd.argoproj.io/sync-options: Force=true,Replace=true` (Replace alone is a `kubectl
  replace`, which the API server refuses alike), `kubectl replace --force` without either.
  Each check mirrors one validation of the Kubernetes API server:
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
  - CustomResourceDefinition `spec.scope` (`ValidateCustomResourceDefinitionUpdate`);
  - an app-template HelmRelease's inline `persistence.<item>.storageClass` or `accessMode`
    changed, or its `size` made smaller (a claim's request only grows), where the chart
    renders the item as a PersistentVolumeClaim (type `persistentVolumeClaim`, the default,
    no `existingClaim`): helm-controller's upgrade fails on that claim;
  - a CloudNativePG Cluster's `spec.storage.size` or `spec.walStorage.size` made smaller:
    the operator's webhook refuses it ("can't shrink existing storage from 20Gi to 10Gi").
- `impersonation-dropped` (warning, at the Kustomization's `spec`): a Flux Kustomization
  whose `spec.serviceAccountName` the change removes: kustomize-controller applies its path
  as itself, which may change any object of the cluster, unless it runs with
  `--default-service-account` (Flux's multi-tenancy lockdown): a tenant's path is no longer
  held to its namespace's role. Quiet where the tree sets that flag.
- `namespace-missing` (warning): a Flux Kustomization's `targetNamespace` the change set
  puts objects in a namespace the base used for none and nothing of the head creates (a
  Namespace object, a HelmRelease's `install.createNamespace`, an Argo CD Application's
  `CreateNamespace=true`; `default`, `kube-system`, `flux-system`, `argocd` always are):
  the apply fails ("namespaces ... not found"), and the prune of what it applied before
  waits with it (none of its objects is said deleted), unless the namespace is made outside
  the repository; a namespace that misspells one the tree has is named ("did you mean
  default?"), and is `namespace-misspelt` (error): a typo of a namespace the repository
  creates is made nowhere else. So is a
  kustomization's `namespace:` the change set (at that line, naming the namespace it likely
  misspells: `stagging` for `staging`), but where an ApplicationSet's template syncs with
  `CreateNamespace=true`. Objects written in a new namespace are not judged (it is often
  made elsewhere). So is an Argo CD Application the change stops syncing with
  `CreateNamespace=true` into a namespace nothing else creates (at its sync options): the
  cluster keeps the namespace earlier syncs made, but a new cluster's first sync fails.
- `release-moved` (warning): an Argo CD Application with automated prune whose
  `destination.namespace` the change moves, where what it installs is a chart reviewbot
  does not render: Argo CD creates the chart's objects in the new namespace and prunes
  those in the old one (any claim it makes, and its data), and an address naming the old
  namespace (`cache.cache-prod.svc`) no longer reaches them; the message names one such
  address in the repository, and says the sync fails first when nothing creates the new
  namespace (no Namespace, no `CreateNamespace=true`). A warning: the chart's objects are
  not seen.
- `workload-lost` (error, at the values' misspelt key): an app-template HelmRelease the change
  keeps whose inline values rendered workloads (enabled `controllers` with containers) and
  render none now (`controller:` for `controllers:`, every controller disabled or gone):
  helm-controller's upgrade deletes them and the app stops. A release with `valuesFrom` is
  not judged (its other values may render them).
- `claims-renamed` (error, at the StatefulSet's name): a StatefulSet with
  `volumeClaimTemplates` that the change renames (a `namePrefix` added to its overlay,
  another namespace): its claims are named after it (`<template>-<name>-<ordinal>`), so the
  renamed StatefulSet's pods start on new, empty volumes while the data stays in the old
  claims, which none of them mounts ("the pods of shop-postgres start on new, empty volumes
  (data-shop-postgres-0) and the data stays in data-postgres-0"); the inline comment sits at
  the change that renames it. Moved to another namespace under its name, its claims are
  in its namespace: said so ("db/data-postgres-0 ... shop/data-postgres-0"). So is a claim
  template the change renames where the object carries the annotation that makes Flux or
  Argo CD recreate it (`recreated` below): the apply succeeds, and the pods start empty;
  without it, the `immutable` error's fix says that a recreation leaves the data behind.
- `kept` (warning): a Service's `clusterIP` (`clusterIPs`) removed from the manifest: the
  API server keeps the value it allocated when an update leaves it unset (it copies the old
  clusterIPs in), so the apply succeeds and the Service keeps it (`None`: it stays
  headless); recreating the Service changes it.
- `recreated` (info): the same change where Flux or Argo CD recreates the object itself: the
  object carries `kustomize.toolkit.fluxcd.io/force: enabled`, or the Flux Kustomization
  applying it has `spec.force: true`, or it carries `argocd.argoproj.io/sync-options:
  Force=true,Replace=true`. The controller then deletes and recreates the object, so the
  apply succeeds; for a StatefulSet that deletes every pod at once, for a
  PersistentVolumeClaim the claim (and, with reclaim policy Delete, its volume's data).
- `deleted-data` (error) and `deleted` (info): an object the base applied through a Flux
  Kustomization with `spec.prune: true`, or an Argo CD Application with
  `syncPolicy.automated.prune: true`, that the head no longer applies (removed from the tree,
  renamed, no longer listed by its kustomization, or its Kustomization removed): the
  controller's garbage collection deletes it in the cluster. Every object the applier's
  build made is judged, as the diff lists it: those of its path's files and of the
  components it adds (a kustomization's `components:`, a Flux Kustomization's
  `spec.components`), after its postBuild substitution. The applier is the one whose
  build held the object on the base (a template every app's Kustomization reads and
  substitutes belongs to each app's own), and when that applier is itself no longer applied,
  what deletes the object is the applier's deletion: Flux's garbage collection of the deleted
  Kustomization (with `spec.prune: true`), or Argo CD's cascade of the deleted Application
  (only under the `resources-finalizer.argocd.argoproj.io` finalizer; an object annotated
  `argocd.argoproj.io/sync-options: Delete=false` stays). A deleted Flux Kustomization
  (renamed: `infrastructure` to `infra-controllers`, the same path) whose objects of the
  kinds above the head still applies through another is `deleted-data` too, a warning:
  kustomize-controller's finalizer deletes its inventory's objects that still carry its
  labels (`spec.prune: true` under the default `deletionPolicy`, or `Delete`; not
  `Orphan`, not suspended, not annotated `kustomize.toolkit.fluxcd.io/prune: disabled`)
  while the Kustomization that applies them now takes them over: which runs first is
  not known. The Applications an ApplicationSet
  generates prune as its template's `syncPolicy` says, each on its own: one whose build
  fails prunes nothing; one it no longer generates (a git directory generator's folder
  deleted, a list element removed: the cluster only its destination named is left, not
  renamed) is deleted by the ApplicationSet (its default `applicationsSync` policy), and the
  template's resources finalizer deletes what it applied, unless `preserveResourcesOnDeletion`
  keeps them; said at the generator's entry that misspells the folder, when one does
  (`apps/*/overlay/prod` for `apps/shop/overlays/prod`), at a clusters generator's
  selector value the change misspells (`env: egde` for `edge`), or at a cluster Secret's
  label the selector names that the change misspells: then `deleted-by-typo`
  (error), as nobody meant the deletion; else at the change of the generator. "Removed from the
  tree" means its file is gone; otherwise it is "no longer applied", with the kustomization
  that no longer lists it (or the kustomization file the pull request changed, a
  `$patch: delete` in it).
  In a repository of several clusters each cluster's applier prunes its own: an object one
  cluster stops applying is deleted there though another cluster applies the same identity
  (a staging overlay that drops a claim production keeps), and the verdict names the
  cluster. PersistentVolumeClaim (its
  data), Namespace (everything in it), CustomResourceDefinition (every custom resource of
  it), StatefulSet (its pods; its claims too with
  `persistentVolumeClaimRetentionPolicy.whenDeleted: Delete`) and CloudNativePG's `Cluster`
  (`postgresql.cnpg.io`: the operator makes the Cluster the owner of its instances' claims,
  so Kubernetes' garbage collection deletes them with it; CloudNativePG has no policy that
  keeps them, only a volume's reclaim policy `Retain` keeps its data) are `deleted-data`;
  so is an app-template HelmRelease whose inline values render claims (`persistence.<item>`
  of type persistentVolumeClaim, no `existingClaim`, no `retain: true`): helm-controller
  uninstalls it and Helm deletes those claims; so is an app-template release the change
  keeps (a HelmRelease's inline values, an Argo CD Application's `helm.valuesObject` with
  automated prune) whose values no longer render such a claim (the item gone, disabled,
  given an `existingClaim`, `persistence` misspelt): the upgrade deletes it, or Argo CD
  prunes it (values from `valuesFrom` or `valueFiles` may render it still: not judged); so
  are
  custom resources whose deletion makes a controller delete the external resource they stand
  for (a database, a bucket, an IAM user), unless their deletion policy keeps it, which the
  fix names: Crossplane managed resources of a provider's group (`*.upbound.io`,
  `*.crossplane.io` but Crossplane's own) with `spec.deletionPolicy: Delete`, the default
  (`Orphan` keeps it), or, in v2's namespaced groups (`*.m.upbound.io`),
  `spec.managementPolicies` unset or holding `*` or `Delete`; composites and claims of a
  CompositeResourceDefinition in the tree (its `spec.group` and `names`/`claimNames` kind),
  whose Composition's resources go with them; Google Config Connector resources
  (`*.cnrm.cloud.google.com`) without `cnrm.cloud.google.com/deletion-policy: abandon`; AWS
  ACK resources (`*.services.k8s.aws`) without `services.k8s.aws/deletion-policy: retain`.
  Errors only for what the object itself decides (Crossplane managed resources, Config
  Connector); a warning that says what it could not see for an ACK resource (its namespace's
  annotation and the controller's `--deletion-policy` may retain it), a claim or composite
  (its Composition's deletion policies are not read), a Crossplane composite of a group whose
  CompositeResourceDefinition is not in the tree (`spec.crossplane`, `spec.compositionRef`
  ...), and a managed-resource shape (`spec.forProvider`) of an unknown group. Other kinds are
  `deleted`.
- `deleted-in-use` (error): a ConfigMap or Secret deleted so while a workload of its
  namespace the head applies still reads it without `optional: true` (`envFrom`, an env
  `valueFrom`, a volume): the running pods keep what they read, and every new pod fails to
  start (CreateContainerConfigError) until it is back ("ConfigMap shop/api-config ... while
  Deployment shop/api still reads it (envFrom[0].configMapRef.name at deployment.yaml:25)").
  A reference names it too as its document writes it, where a build renamed it (a
  `namePrefix`: kustomize renames a reference with its referent only); and a reference the
  change turns from a ConfigMap or Secret it removes into a name nothing of the head makes
  (a `configMapGenerator` removed: the reference stays as written) is `deleted-in-use` at
  the reference; so is a Flux HelmRelease's `valuesFrom` the change leaves so (a generator
  renamed), or leaves naming one the change removes or renames (the release untouched):
  helm-controller cannot compose the release's values ("could not find ConfigMap") and
  neither installs nor upgrades it.
- `orphaned` (warning): the same removal where the applier does not prune (or is deleted
  without pruning: a Flux Kustomization without `spec.prune: true`, an Argo CD Application
  without the resources finalizer): the object stays in the cluster and keeps running, and
  nothing manages it any more.
- `suspended` (info): a change to an object under a Flux Kustomization with
  `spec.suspend: true`, or to a HelmRelease with `spec.suspend: true`: nothing rolls out until
  it is resumed; or under an Argo CD Application that syncs by hand (no
  `syncPolicy.automated`, or `automated.enabled: false`): nothing rolls out until someone
  syncs it (a removal there is `orphaned`). The Kustomization or Application is the one whose
  build holds the object, as for deletions (a change to a template many apps' Kustomizations
  read is suspended for the suspended app's own object only).
- `resumed` (info): `spec.suspend` goes from true to false (or away), or an Application's
  automated sync is turned on: everything the Kustomization's or Application's build holds
  (counted as such, not every object of the files it reads), or the HelmRelease's current
  chart and values, is applied at once, including what was merged while it was suspended
  (which the repository alone cannot show).
- `gpu-restart` (info): a change to the pod template (args, env, image, resources, volumes ...)
  of a pod that requests GPUs and is replaced without surge (Recreate, RollingUpdate with
  `maxSurge: 0`, a one-replica StatefulSet): the old pod stops before the new one is ready, so
  the service is down for one boot. A rolling update that stops fewer old pods at once than the
  replicas (`maxUnavailable` as the Deployment controller resolves it: 25% by default, rounded
  down, at least one) leaves the others serving: no downtime, not said. With a measured boot
  (the `reviewbot.dev/measured-boot-seconds` annotation, or the config's `measured:` entry for
  a values file) the message says how long: "restarts coder-predictor: measured boot 600 s of
  downtime"); where the new pod's startup probe (else its liveness probe) gives up before that
  boot ends, it says the new pod never gets ready and the downtime lasts until the probe is
  fixed, and where no node the inventory has that the pod may run on has the GPUs it requests,
  or no node of the inventory carries a label its `nodeSelector` names (`nvidia.com/gpu.product:
  NVIDIA-L4` where the nodes are A10Gs), that the new pod is never scheduled (the fix is then
  the probe's, the request's or the selector's). Otherwise
  the fix says a model server's (vLLM, SGLang) restart is a weights reload, and of any other
  GPU pod (a media server on an iGPU share) that no second pod serves meanwhile.
- `stuck-rollout` (error): a change to the pod template of a pod that requests GPUs and
  rolls out with surge, where gpu-rollout finds no GPU for the surge pod (its `surge`
  finding, with the node and who holds its GPUs): the change starts a rollout whose new pod
  sits Pending forever, the old one keeps serving the old template, and the Flux
  Kustomization or HelmRelease that waits for it fails. gpu-rollout's own finding is on the
  base too (the running pod got its GPU before), so the review would call it old: this
  verdict is what the pull request starts. Without a node inventory it is a warning that
  says what could not be seen, as gpu-rollout's is. Quiet where every build that makes the
  pod fails (nothing of the change is applied), and, in a review, where gpu-rollout's own
  finding on the object is new or made worse (it says so already). A change that also
  stops the surge (`Recreate`, `maxSurge: 0`) is a `gpu-restart`; scaling or a strategy
  edit alone changes no template and starts no rollout.
- `chart-major` (info): a HelmRelease's `spec.chart.spec.version` changes its major version
  (a semver range whose versions share one major, `^7.0.0` or `>=8.0.0 <9.0.0`, is that
  major; a range across majors is none), or an OCIRepository's `spec.ref.tag` a
  HelmRelease's `chartRef` names does (the chart's major, the HelmReleases named).
- `chart-selector` (error, beside `chart-major`): an app-template release's chart moves to a
  version whose common library puts the controller's identifier under another pod label
  (3.x `app.kubernetes.io/component`, 4.x and 5.x `app.kubernetes.io/controller`): the label
  is in each of its Deployments', StatefulSets' and DaemonSets' selectors, which Kubernetes
  refuses to change ("field is immutable"), so helm-controller's upgrade fails and the
  release stays at the old version until they are deleted (the chart's upgrade notes).
- `oci-tag` (info): an OCIRepository's `spec.ref.tag` changes. For both, the rendered change
  is out of reach without the chart or artifact, and the message says so.
- `oci-tag-form` (warning, in place of `oci-tag`): the new tag is a version written with a
  `v` where the old had none, or the reverse (`2.2.3` -> `v2.2.4`): a registry matches a tag
  exactly and a chart's tag is its version as pushed, so the pull may fail and everything
  built from the artifact stay at the old tag; not certain (whether the registry holds it).
- `chart-unversioned` (warning, at the first change of the chart): a Flux HelmRelease renders
  a chart of its own GitRepository (`spec.chart.spec.chart: ./charts/web`) with the default
  `reconcileStrategy: ChartVersion`, and the change edits what the release reads of the
  chart (its templates and files, its `values.yaml`, or the `valuesFiles` it names instead;
  not another release's values file beside it), keeping the Chart.yaml `version`:
  source-controller packages such a chart again only when that version changes, so the
  edit never reaches the cluster; the releases one edit leaves behind are one finding. Not
  said with `reconcileStrategy: Revision`, nor where the version changes.
- `sops-recipient` (warning): a SOPS-encrypted object is no longer encrypted to a recipient
  it had (an age key, a PGP fingerprint, a KMS key ...): a cluster whose decryption key that
  is cannot decrypt it, and the Flux Kustomization applying it fails.
- `sops-plaintext` (warning): an object of a SOPS-encrypted file holds a value in clear that
  the file's rules encrypt (`encrypted_regex`, `encrypted_suffix`, or the default: everything
  but `*_unencrypted`): a secret committed in clear, and the file's MAC no longer matches, so
  decryption fails.
- `sops-unreadable` (warning): an object holds SOPS ciphertext (`ENC[...]`) but its document
  has no `sops:` block: nothing can decrypt it, and the cluster gets the ciphertext.
  Which values sops encrypts follows getsops/sops `shouldBeEncrypted`; no value or
  ciphertext is ever shown, only keys and recipients.
- `crd-storage` (error): a CustomResourceDefinition update drops from `spec.versions` the
  version that was its storage version in the base (or one the base manifest's
  `status.storedVersions` lists). Objects stored in it stay so, and the API server refuses
  the update while `status.storedVersions` lists it ("must appear in spec.versions"), so the
  Kustomization fails; keep the version (`served: false`) until the objects are rewritten.

Messages name the field and what changed below it (`spec.selector changes
(matchLabels.tier added: backend)`) and point at the narrowest node in the head: the changed
or added value, else the field's line. A deletion names the object and points where the pull
request made the change that took it out, on a line its diff shows: the line that now stands
where the kustomization's removed entry was (`- ./scrypted/ks.yaml`, for everything the
Kustomization it listed applied), the renamed object's new name, the changed field of its
applier that decides what its build makes (`spec.path`, `spec.postBuild`, an Argo CD source;
for a component its `spec.components` no longer lists, "no longer lists
../../components/postgres in spec.components", the line that now stands where the entry was),
the line that took the place of its removed document; when the
file that held the change is deleted (the object's own, its deleted Application's), its line
there in the base (the summary shows it, no inline comment can).

Why:

The most expensive pull-request mistakes are valid manifests whose apply fails, deletes data
or does nothing. A selector edit blocks a whole Kustomization; a PVC dropped from a pruning
Kustomization deletes the volume; an edit under a suspended Kustomization is silently
not deployed; a GPU predictor restart is minutes of downtime, measured, not assumed.

Kinds:

Deployment, ReplicaSet, DaemonSet, StatefulSet, Job, PersistentVolumeClaim, Service,
RoleBinding, ClusterRoleBinding, ConfigMap, Secret, CustomResourceDefinition (immutable
fields); every kind for deletion and suspension; workloads and KServe InferenceService
components (and Helm values pseudo-workloads) for GPU restarts and stuck rollouts; Flux
Kustomization, HelmRelease and OCIRepository.

When it stays quiet:

- in `lint` (one tree has no transition);
- a field added where the base left it to the API server's default (a PVC's
  `storageClassName`, a Service's `clusterIP`, a PVC's `volumeName`): the live value is
  unknown, so whether it changes is too;
- a removed object whose applier's head build fails (a deleted file its kustomization still
  lists: kustomize refuses the whole build, so the applier applies and prunes nothing and
  stays at its last applied revision; kustomize-integrity reports the entry), or whose
  applier is itself no longer applied but stays in the cluster (its own verdict says so);
- a ConfigMap or Secret a kustomize generator made (`configMapGenerator`,
  `secretGenerator`): the diff lists it removed, but no verdict judges it;
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
`source.path` (a plain folder non-recursively unless `directory.recurse`), syncs when git
changes only with `syncPolicy.automated` (`automated: {}` and `enabled` unset are automated;
user-guide/auto_sync.md), and prunes only with `syncPolicy.automated.prune`. Paths are
matched against the tree's folders by suffix, as the model resolves Flux paths for
`targetNamespace`.

Options:

- `gpu-resources`: extended resources that are GPUs (glob patterns).
- `data-kinds`: kinds whose deletion deletes data (`deleted-data` rather than `deleted`);
  `Cluster` is CloudNativePG's (another group's Cluster is `deleted`).

Severities are per finding kind as above; `rules: {change-safety: {severity: ...}}`
overrides them all, like every rule.

Failing example:

```yaml
# base: apps/pvc.yaml
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: llm-models, namespace: llm-serving}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local-path
  resources: {requests: {storage: 200Gi}}
```

```yaml
# head: apps/pvc.yaml
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: llm-models, namespace: llm-serving}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: longhorn   # immutable: the apply fails
  resources: {requests: {storage: 200Gi}}
```

Passing example:

```yaml
# base: apps/pvc.yaml
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: llm-models, namespace: llm-serving}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local-path
  resources: {requests: {storage: 200Gi}}
```

```yaml
# head: apps/pvc.yaml
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: llm-models, namespace: llm-serving}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local-path
  resources: {requests: {storage: 300Gi}}   # the claim grows: the API server allows it
```
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from reviewbot.engine.findings import Violation
from reviewbot.engine.registry import Option
from reviewbot.model.objects import Model, PodTemplate
from reviewbot.model.workload import DEFAULT_GPU_RESOURCES

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import TreeDiff

ID = "change-safety"
SEVERITY = "error"
SUMMARY = ("What applying the change does: immutable fields, deletions under prune, "
           "suspended reconcilers, GPU restarts, chart major bumps.")
RATIONALE = (
    "A valid manifest can still fail to apply, delete a volume when its Kustomization prunes, "
    "never roll out under a suspended Kustomization, or cost a measured boot of downtime."
)
FIX = "Recreate the object under a new name, keep what prune would delete, or plan the downtime."
OPTIONS = (
    Option("gpu-resources", "list", list(DEFAULT_GPU_RESOURCES),
           "Extended resources that are GPUs (glob patterns)."),
    Option("data-kinds", "list",
           ["PersistentVolumeClaim", "Namespace", "CustomResourceDefinition", "StatefulSet",
            "Cluster"],
           "Kinds whose deletion under prune deletes data (an error, not info)."),
)
SEVERITIES = {
    "immutable": "error", "recreated": "info", "deleted-data": "error", "deleted": "info",
    "deleted-by-typo": "error",
    "deleted-in-use": "error",
    "orphaned": "warning", "suspended": "info", "resumed": "info", "gpu-restart": "info",
    "stuck-rollout": "error", "kept": "warning",
    "chart-major": "info", "chart-selector": "error", "oci-tag": "info",
    "oci-tag-form": "warning",
    "sops-recipient": "warning",
    "sops-plaintext": "warning", "sops-unreadable": "warning", "crd-storage": "error",
    "namespace-missing": "warning", "namespace-misspelt": "error", "release-moved": "warning",
    "claims-renamed": "error",
    "workload-lost": "error", "chart-unversioned": "warning",
    "impersonation-dropped": "warning",
}


def check_change(diff: TreeDiff, base: Model, head: Model,
                 opts: Mapping[str, Any]) -> Iterator[Violation]:
    """The verdicts of one change: ``diff`` from ``base`` to ``head`` (whole models)."""
    # here: a lint judges no change, so it never imports the verdicts (start-up cost)
    from reviewbot.rules._change_safety.crd_storage import storage_verdicts
    from reviewbot.rules._change_safety.deletions import (
        dangling_references,
        deletion_verdicts,
        may_delete,
        renamed_claims,
        unrendered_claims,
        unrendered_workloads,
    )
    from reviewbot.rules._change_safety.gpu_restarts import (
        Rollouts,
        gpu_restart_verdicts,
        pods_by_object,
    )
    from reviewbot.rules._change_safety.immutable import immutable_verdicts
    from reviewbot.rules._change_safety.namespaces import (
        create_namespace_dropped,
        moved_releases,
        namespace_verdicts,
    )
    from reviewbot.rules._change_safety.sops import sops_verdicts
    from reviewbot.rules._change_safety.suspension import (
        any_suspended,
        resumed_verdicts,
        suspended_verdicts,
    )
    from reviewbot.rules._change_safety.tenancy import impersonation_dropped
    from reviewbot.rules._change_safety.versions import (
        unversioned_chart_verdicts,
        version_verdicts,
    )

    patterns = tuple(str(p) for p in opts.get("gpu-resources") or DEFAULT_GPU_RESOURCES)
    data_kinds = frozenset(str(k) for k in opts.get("data-kinds") or ())
    pods: dict[int, list[PodTemplate]] = {}
    if any(e.status == "modified" for e in diff.objects):
        pods = pods_by_object(base)
        pods.update(pods_by_object(head))
    suspended = any_suspended(base) or any_suspended(head)
    rollouts = Rollouts(head, patterns)
    for entry in diff.objects:
        if entry.status == "modified" and entry.base is not None and entry.head is not None:
            yield from immutable_verdicts(entry, entry.base, entry.head, head)
            yield from gpu_restart_verdicts(pods.get(id(entry.base), []),
                                            pods.get(id(entry.head), []), patterns, head,
                                            rollouts)
            yield from version_verdicts(entry, entry.base, entry.head, head)
            yield from storage_verdicts(entry.base, entry.head)
            yield from resumed_verdicts(entry.base, entry.head, base, head, diff)
            if entry.kind in ("HelmRelease", "Application"):
                yield from unrendered_claims(entry.base, entry.head, base, head)
                yield from unrendered_workloads(entry.base, entry.head, base, head)
        yield from suspended_verdicts(entry, head, base, suspended)
        yield from sops_verdicts(entry)
    yield from unversioned_chart_verdicts(base, head)
    namespaces = list(namespace_verdicts(diff, base, head))
    failing = frozenset(v.obj.ref for v in namespaces if v.kind in (
        "namespace-missing", "namespace-misspelt") and v.obj is not None
        and v.obj.kind == "Kustomization")
    if may_delete(diff, base, head):
        yield from deletion_verdicts(diff, base, head, data_kinds, failing)
        yield from dangling_references(diff, base, head, pods)
    yield from renamed_claims(diff, head)
    yield from namespaces
    yield from moved_releases(diff, base, head)
    yield from create_namespace_dropped(diff, base, head)
    yield from impersonation_dropped(diff, head)
