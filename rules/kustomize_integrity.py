"""Kustomizations reference files that exist, list every manifest beside them, and build no
object twice.

What it checks:

`kustomize build` (and Flux's kustomize-controller, which runs it) fails the whole
kustomization when one entry is missing, and a manifest that sits in a kustomization's folder
but is listed nowhere is never applied: the change merges, CI is green, and nothing happens.
reviewbot checks every `kustomization.yaml` in the tree:

- each entry of `resources` (and `bases`), `components`, `patches` / `patchesStrategicMerge` /
  `patchesJson6902` paths, `configMapGenerator` / `secretGenerator` files and env files,
  `helmCharts` values files, `crds`, `replacements`, `configurations`, `generators`,
  `transformers` and `validators` exists; a folder given as a resource or component holds a
  kustomization of its own, of the right kind: a `kind: Component` listed under `resources`
  (or `bases`), or a Kustomization under `components`, makes kustomize refuse the whole
  build (`invalid`, error: "expected kind != 'Component' for path"); so does a folder
  entry that is, or whose build includes at any depth, the kustomization's own folder or a
  folder above it (`invalid`, error: "cycle detected: candidate root ... contains visited
  root ...": `resources: [..]`, two folders listing each other); so does a listed file
  holding a document kustomize accepts as no object (`invalid`, error, at the document:
  "missing Resource metadata" for a Helm values file listed as a resource, "missing kind
  in object", "missing metadata.name in object": kyaml's checks, a `*List`'s items each
  judged), and a YAML file of a folder whose kustomization Flux generates (kustomize-
  controller: "failed to decode Kubernetes YAML from clusters/staging/sops.yaml"), but
  what source-controller leaves out of every artifact (`.sops.yaml`, `.github/`) and what
  the tree's `.sourceignore` files leave out; a warning where a `.sourceignore` naming an
  exception (`!`, not read) or a GitRepository's `spec.ignore` may leave it out.
  Remote entries (URLs,
  `github.com/...?ref=`) are not fetched;
  entries outside the linted tree are not judged (`missing`, error; where no file of a
  close name is there and the folder holds one manifest the kustomization does not list,
  the fix names it: a file renamed and its entry left). kustomize then
  refuses the whole build, so the message says nothing of it is applied and names the Flux
  Kustomization or Argo CD Application that applies it (an ApplicationSet's: the
  Applications it generates for that build), which applies and prunes nothing until the
  entry is fixed; the fix offers removing the entry too (the file may have
  been deleted on purpose).
  An entry git-ignored by a `.gitignore` of the tree, or written by a script of the tree
  (a shell script, Makefile or justfile, a Tekton Task's step script; a target under
  variable folders, `${PROJECT}/base/release.yaml`, writes every path ending as its two
  literal names or more do), is a build output (generated before the build) and not
  judged; so is a missing
  `flux-system` folder, which `flux bootstrap --path=DIR` writes and commits into DIR (a
  template to bootstrap, or a folder not bootstrapped yet); unless a GitOps controller
  (a Flux Kustomization, an Argo CD Application) builds the kustomization from git, where
  nothing makes it: then it is `missing`, and the message says it is git-ignored; a patch
  written as a bare string under `patches:` is the
  kustomization's error, and so is an inline `patch:` whose text does not parse as YAML
  (`invalid`: kustomize v5 refuses the whole kustomization; a warning
  where only Argo CD Applications build it: before 2.7 Argo CD runs kustomize 4, which reads
  it as a strategic merge patch);
- a strategic merge patch without a target (a `patchesStrategicMerge` entry, or a `patches`
  entry without `target:`) whose object (its kind, name and namespace, by any name the build
  gave it) this build does not hold is `missing` too, at the patch's entry: kustomize
  refuses the build ("no matches for Id Service.v1.[noGrp]/demo.[noNs]"), and what applies
  it applies nothing of it (the message names it, as for a missing entry), which happens
  when a base renames or drops the object. A `patchesJson6902` entry that selects nothing
  is no error to kustomize v5 and not reported. A JSON 6902 operation on a path the object
  lacks, one that is not whole (no `path`, a move or copy with no `from`, an `op` JSON
  patch does not have) or a `test` that fails is `missing` too, in kustomize's words
  ("replace operation failed to decode path", kubectl kustomize 5.5); so is a `replicas`
  entry whose name no Deployment, StatefulSet, ReplicaSet or ReplicationController of the
  build has, now or before a rename ("resource with name web does not match a config with
  the following GVK"): a workload renamed in a base, the overlay's count still naming it;
- a `patches` entry whose `target:` selects no object of its kustomization's build (of a
  Component: of any build that applies it) is
  `idle-patch` (warning): kustomize v5 applies it to nothing, without an error, so the
  change it was written for never happens; where the build names objects of the target's
  kind with a `${VAR}`, the message says Flux substitutes it only after kustomize has built
  (a patch targeting `name: plex` never meets the component's `${APP}` ScaledObject). A
  target matches the name an object first had as well as its current one, as kustomize's
  do (a patch that renamed it records the old id). Not judged where a listed file is empty
  (one a tool fills, as flux bootstrap's `gotk-components.yaml`), nor where a build is not
  held whole (as below). In a review, a patch that set fields of an object before the
  change, which the change renamed (the one new name of its kind and namespace in its
  file, built for the same cluster), is `patch-dropped` (error) at the `target:`, in place
  of the warning: the cluster gets the renamed object without what the patch set
  ("patches[0]: before this change it patched Deployment ai/vllm, which this change renames
  to vllm-qwen, ...: spec.replicas is 1, not 2"), and so is one whose target the change
  rewrote to select nothing while the object kept its name ("... before this change it
  patched Deployment llm/vllm, and its target selects no object now ..."); the object
  removed, the warning alone;
- an `images` entry whose name (its `newName` when it sets one) no container of the build
  runs, in any `containers` or `initContainers` list where kustomize's image transformer
  looks, is `idle-image` (warning): kustomize sets no tag or digest, without an error, and
  the fix names the image the containers run when one is close (`ghcr.io/acme/web` for
  `ghcr.io/acme/shop-web`). An image written in a ConfigMap's text (an injector template)
  is none kustomize rewrites. Not judged with `configurations` (they may add image fields)
  nor where the build is not held whole. In a review, an entry the change renamed away
  from the image its build's containers run is `image-dropped` (error), in place of the
  warning: what it pins reaches no pod, and the cluster keeps the image it runs;
  Judged only when reviewbot holds the whole build: no remote entry, `helmCharts`, plugin,
  chart a Fleet bundle renders into it (`fleet.yaml` with `helm` builds its `kustomize.dir`
  over the chart's output), entry the tree lacks or file it cannot read, no variable in
  the patch's name; a
  Component's patches depend on who includes it and are not judged;
- a `vars` entry kustomize cannot resolve in the build of a kustomization no other includes
  is `missing`, at the var: its `objref` names no object of the build ("cannot be mapped
  to a field in the set of known resources"), or the object does not set the field its
  `fieldref` reads ("field specified in var ... not found in corresponding resource":
  kubectl kustomize 5.5, a base whose var reads a `metadata.namespace` only an overlay sets).
  Vars resolve once, on the whole build: the same base built in an overlay that sets the
  namespace builds; what the refused build makes is "Not applied" (same conditions as
  patches). A var reading `metadata.namespace` in a tree no cluster root of which applies
  anything is a warning: the consumer that builds it in a namespace (a kustomization
  including it, kfctl's KfDef) fills the field;
- a `replacements` entry whose `source` selects no object of its kustomization's build, or
  several, or one written in a manifest without the source's field, is `missing`, at the
  source: kustomize refuses the whole build ("nothing selected by ...", "fieldPath ... is
  missing for replacement source"); a source is found by any name the object had before the
  build changed it (a prefix, a generator's hash). A source whose field the build as the
  tree holds it lacks (a ConfigMap generated from a file a script writes) leaves the targets
  unseen: their findings say so;
- a field of the wrong type (`resources: 5`, `helmCharts: 1`, `patches: x`, a generator's
  `files: 5`, a number among `resources`) is `invalid` too, at the field's line: kustomize
  cannot read the kustomization at all. The value is never quoted (a `secretGenerator`
  literal is a secret);
- an Argo CD PreSync hook (a migration Job; Helm's pre-install and pre-upgrade hooks alike)
  whose pods read a ConfigMap or Secret its build generates with a hash suffix, itself no
  PreSync hook, is `hook-order` (error), at the reference: PreSync hooks run before Argo CD
  applies the manifests, so at the first sync and at every change of the generated content
  the pods look for a name not created yet (CreateContainerConfigError) and the sync waits.
  Judged where Argo CD applies the hook (Flux runs no hooks). Any Argo CD hook reading a
  ConfigMap or Secret its Application applies in a later phase or sync wave (a Sync hook of
  wave -1 reading the ConfigMap of wave 0) is `hook-order` too, a warning: Argo CD waits for
  the hook before the later wave, so at the first sync its pods do not start and the sync
  never creates what they read, unless the cluster holds it from an earlier sync;
- a container's env entry reading by `configMapKeyRef` or `secretKeyRef` (not optional) a
  key the ConfigMap or Secret of that name in its namespace and cluster does not hold, as
  the repository writes or a generator makes it, a SOPS-encrypted Secret's keys included
  (`missing-key`, error, at the `key:`, and at the close key the object writes): the
  kubelet does not start the container ("couldn't find key": CreateContainerConfigError);
  the fix names a key of one word more, or a close spelling (`API_BASE_URL` for `API_URL`).
  An object several documents of one name make, or whose keys hold a variable, and a Secret
  an operator makes or fills (an ExternalSecret's or SealedSecret's name, a Certificate's
  `secretName`, Flux's `ssa: IfNotPresent` placeholder, a replicator's copy, a service
  account token) are not judged, nor one of another chart's templates than the pod's (two
  charts are two releases); a generator entry with `behavior: replace` that drops the key
  is named as its cause;
- a Namespace an Argo CD Application applies in a later sync wave than objects it applies
  in that namespace (its own wave, 0 where it names none: Roles of wave -10 in a Namespace
  of none), or a CustomResourceDefinition in a later wave than custom resources of its
  kind (`wave-order`, a warning, at the Namespace's or CRD's sync-wave): Argo CD
  orders a sync by phase, wave, then kind (Namespaces and CRDs first only within a wave),
  so at the first sync the earlier wave's apply finds no namespace (no kind) and the sync
  stops before the wave that would create it, unless the cluster holds it from an earlier
  sync. `CreateNamespace=true` does not help: Argo CD creates the destination namespace
  only when the Application's manifests hold no Namespace of that name (gitops-engine's
  `autoCreateNamespace`). Not where the repository creates the Namespace elsewhere too.
  So is, between the Applications of an app of apps, the Application applying a
  CustomResourceDefinition in a later wave than another Application of the same parent
  that applies custom resources of its kind (at its sync-wave; the other's its other
  place): the parent creates its Applications wave by wave, and the earlier one's first
  sync finds no kind (whether a wave waits for the ones before, a health check of
  Applications in argocd-cm, is said as not seen);
- a YAML manifest (a file with Kubernetes objects) in a kustomization's folder that no
  kustomization references is reported (`unreachable`, warning: it will never be applied;
  in a review, one the pull request causes by removing its entry is placed on the line that
  now stands where the entry was, where change-safety places the removal's verdicts),
  and so, in a repository without cluster roots, is one in a folder that holds a
  kustomization's patches and nothing else it lists (kubebuilder's `patches/`): an unused
  patch, never an object; so is one in a folder below a kustomization a build applies,
  with no kustomization of its own between them, that no kustomization lists (kustomize
  reads only what a kustomization names, and Flux's generated kustomization takes a folder
  holding one whole): kubebuilder's `config/crd/patches/` whose scaffold enables none, an
  app of apps' `media/` its kustomization leaves out (its Applications are no roots
  applied by hand). Not below a folder of tests, examples, trials or developer tools, or
  one kept aside: those are judged as such folders are; nor in the path of a Flux
  Kustomization or Argo CD Application whose file an entry comments out (that entry says
  why it is not applied); ten or more such files below one kustomization are one warning
  at its `resources:` that names three and counts the rest (a catalog applied one by one,
  or a choice made once: sgl-project/ome lists 86 of its 208 models);
  when another file a build applies holds its objects (the same kind, name and namespace:
  a stale copy, or a patch never listed), the fix is to delete it or list it under
  `patches:`, never as a resource (two builds would apply one object);
  an entry commented out (`# - b.yaml`) says it is disabled on purpose: one `commented`
  info at the kustomization's line instead; a manifest a shell script of the tree applies
  (`kubectl apply -f file`) is an `applied-by-script` info naming the script; a patch file
  (listed as a patch, or its entry commented out) is never an object;
- two objects with the same identity (group, kind, namespace, name as the build makes them:
  `namespace`, `namePrefix`, `nameSuffix`, patches) in one build are an error
  (`duplicate`): kustomize refuses to build it. Builds are compared one by one: objects of
  two roots (two clusters, two overlays) are never duplicates of each other;
- one object (the same identity) that two Flux Kustomizations of one cluster apply with
  different content outside its labels and annotations is an error (`applied-twice`, at
  the first field that differs): each applies its copy on its own
  reconcile, so the cluster's object flips between them (an OCIRepository's chart tag, an
  ExternalSecret's data), and pruning either deletes what the other needs. Copies alike (a
  Go duration written two ways too), one in a build that fails, one holding a variable Flux
  leaves unsubstituted, a Kustomization its own path applies, and objects an Argo CD
  Application applies (one per environment, clusters the tree may not tell apart) are not
  judged;
- a Flux `Kustomization`'s `spec.path` exists (`missing`), judged when another Kustomization
  of the same source resolves in the tree (so the source is this repository; one a
  flux-operator ResourceSet makes of an input is said at the input, judged when those of its
  other inputs resolve), and so do its
  `spec.components` (a missing one refuses the whole build: nothing is applied or pruned;
  unless `spec.ignoreMissingComponents: true`, which drops it); in a review, also when the
  change moves its path off a folder of the tree its base version resolved to, its source
  unchanged (the base shows the source is this repository: a repository's only
  Kustomization, its path misspelt; a warning where the new path is no misspelling of the
  old, which another repository may hold too), and so for an Argo CD Application's source
  path; a path without a `kustomization.yaml` is built the way Flux does (every manifest
  below it, a subfolder with its own kustomization.yaml as that kustomization, not descended
  into) and checked for duplicates;
- a namespaced object a Flux Kustomization's build gives no namespace, where the
  Kustomization sets no `spec.targetNamespace` (`no-namespace`, at the object's `metadata`):
  kustomize-controller sets none itself, and its apply refuses the object ("Deployment/web
  namespace not specified"), so the Kustomization applies nothing and what it holds is not
  applied. Namespaced: the Kubernetes API's own kinds, Flux's, and a custom kind whose
  CustomResourceDefinition in the tree says `scope: Namespaced` (another custom kind's scope
  is not known: not judged). When the Kustomization's build fails first (a missing entry),
  the finding is the object's, a warning: nothing of it is applied until the build works.
  So is one an Argo CD Application's one source (a kustomization, or a folder of plain
  manifests of a git repository; no chart, no `kustomize.namespace`, no `cnoe://` folder
  another tool resolves) gives no namespace, where the Application
  names no destination namespace: its comparison adds an InvalidSpecError ("Namespace for
  web apps/v1, Kind=Deployment is missing."), and Argo CD syncs nothing of it (Argo's own
  namespaced kinds, Rollouts' and Workflows', count as the API's);
- a Flux Kustomization's `spec.serviceAccountName` names a ServiceAccount of its namespace
  that the repository neither declares nor binds to a role (`impersonation`), where the
  namespace holds a ServiceAccount of a close name, or ServiceAccounts the repository binds
  (the tenant's RBAC is written there): kustomize-controller applies as that account, which
  no RoleBinding grants anything, so every apply is forbidden and the Kustomization applies
  nothing (`team-a-reconciler` where the repository declares and binds `team-a`). Else a
  warning: the account and its binding may be made by hand or elsewhere;
- a Flux Kustomization's (HelmRelease's) `spec.dependsOn` entry names a Kustomization
  (HelmRelease) its cluster has (`dependency`): kustomize-controller (helm-controller)
  looks it up before every reconciliation, the entry's namespace defaulting to the
  dependent's own, and without it never applies (installs) the dependent ("unable to get
  'monitoring/loki' dependency"). The cluster has what its builds hold and what its roots
  make themselves (`flux bootstrap`'s `flux-system`, a FluxInstance's sync Kustomization),
  and what a flux-operator ResourceSet's template writes by a literal kind, name and
  namespace. The message says where the dependency is after all (another namespace, a file no root
  applies, another cluster, a name holding it). A warning when something reviewbot cannot
  see may make it (chart templates declaring Flux objects, flux-operator ResourceSets, a
  source it does not follow, a template the repository's scripts fill and apply with
  `kubectl apply -f -`), unless the repository declares it in a file no root applies; what
  the repository's scripts apply with kubectl is in every cluster (a script reaches the
  one it is run against); a name with a variable is not judged. In a review, an entry
  naming what the change renames (the one new name of its kind and namespace in its file)
  says so, the fix names the new name, and the review comments at the rename; so do a
  chart source (`source`) and an ImagePolicy's ImageRepository (`image-policy`);
- Flux Kustomizations (HelmReleases) of a cluster whose `dependsOn` entries wait for one
  another in a circle, or one naming itself (`dependency-cycle`, error, at the first entry
  of the circle, the others its other places): each is applied only once its dependencies
  are Ready, and none of them ever is ("dependency 'flux-system/apps' is not ready"). An
  entry with a variable, or a name two objects of the cluster hold, is not followed;
- a HelmRelease's chart source (`spec.chartRef`, `spec.chart.spec.sourceRef`: an
  OCIRepository or a HelmRepository) names one its cluster has (`source`): helm-controller
  cannot fetch the chart without it, so it never installs or upgrades the release ("did you
  mean" the closest name of that kind in the namespace); the reference's namespace defaults
  to the release's. A warning when something reviewbot cannot see may make it (as for
  `dependency`), and when the repository declares a source of that kind and name only where
  what applies it decides its namespace (no namespace written and none a build gives, or,
  in a tree without roots, any: a consumer's `targetNamespace` replaces it); a GitRepository
  or Bucket (what a root may make, as bootstrap's `flux-system`) or a name with a variable
  is not judged. In a lint of part of a repository (`reviewbot lint apps/web`) a dependency
  or a source the linted files do not hold is unseen, not absent: both say "which the linted
  files do not hold", as warnings, and what waits for it is not said to be unapplied;
- Flux image automation (`image-policy`): a marker after a field's value,
  `# {"$imagepolicy": "flux-system:web"}` (with `:tag`, `:name` or `:digest`), in a file an
  ImageUpdateAutomation of the repository updates (under its `update.path`) names an
  ImagePolicy that automation applies: image-automation-controller lists the ImagePolicies
  of the automation's own namespace (those its `policySelector` selects) in the automation's
  cluster and sets only the fields whose markers name one of them, so a marker naming a
  policy the repository does not declare ("did you mean"), one in another namespace, one only
  clusters without that automation have, or one the selector leaves out is never set: the
  field keeps the image it has, and nothing says so. A marker without a `namespace:` names no
  setter at all. At the marker's `#`. And an ImagePolicy's `imageRepositoryRef` names an
  ImageRepository its cluster has (the namespace defaults to the policy's):
  image-reflector-controller never selects an image for it otherwise, and no marker naming
  it is set. A warning when something reviewbot cannot see may make the policy (as for
  `dependency`); a file no automation of the repository updates or no cluster root
  applies, a repository without an automation, a policy whose namespace its applier
  decides, and a name with a variable are not judged.
  In a review, markers an automation of the base updated and none of the head does (an
  `update.path` narrowed, the automation removed) are a warning at the file's first marker.
  A marker of the full image (`ns:name`) on a field that pins a digest, whose ImagePolicy
  reflects none (`digestReflectionPolicy` Never, the default), is `digest-dropped`
  (warning): the controller writes the policy's latest `name:tag`, so its first update drops
  the pin (image-reflector-controller's `ImageRef.String`). A `:tag` marker on a kustomize
  `images` entry's `newTag` beside a `digest` no `:digest` marker of the policy updates is
  `digest-stale` (error, at the marker): the controller sets the tag alone, kustomize writes
  `name:tag@digest` and the runtime pulls the digest, so the cluster keeps the old image
  under the new tag;
- a Flux Kustomization's `postBuild.substituteFrom` entry (not `optional`) names a
  ConfigMap or Secret its own namespace has (`substitution`): kustomize-controller reads it
  there, and without it fails the build and applies nothing; judged where the repository
  declares one of that name in another namespace only (a kustomization's `namespace:` that
  moved the Kustomization out of flux-system), and none a reflector or replicator copies;
  or, of a ConfigMap, where its namespace has one in other clusters' builds only and no
  script of the repository names it (each cluster's settings, one renamed: the other
  cluster's is never read). What only such a Kustomization applies is not applied: its
  findings are warnings that say so;
- `crd-order` (warning, at the object): a custom resource in the same Flux Kustomization as
  the HelmRelease whose chart installs its CRD (the chart named as the first label of its
  API group: `cert-manager` for `cert-manager.io`), where no CRD of it is in the tree: on a
  new cluster kustomize-controller's dry-run of the whole Kustomization fails ("no matches
  for kind") before the release exists, so nothing of it is applied, the release included.
  Not where the Kustomization waits (`dependsOn`, followed) for one installing a chart of
  that name (`cert-manager-crds`) or fetching a remote file naming it
  (`.../cert-manager.crds.yaml`), nor where a bootstrap helmfile or script installs it.
  A warning: a cluster that has the CRD from an earlier install applies it;
- `chart-floating` (warning, at the version): a Flux HelmRelease of a HelmRepository's
  chart whose `spec.chart.spec.version` is a semver range (`6.x`, `>=1.0.0`, `*`, `^1.2`)
  or missing (`*`, the latest): helm-controller installs the newest chart the range
  admits at each reconciliation, so what the cluster receives changes upstream while the
  repository stays the same. A chart of a GitRepository or Bucket (its Chart.yaml's
  version) is not judged;
- `remote-floating` (warning, at the entry): a remote `resources`/`components` entry of
  an applied kustomization that names no fixed version: a GitHub release's
  `releases/latest/download/` asset, a raw.githubusercontent.com file or a git remote
  (`github.com/org/repo//path`) at a branch (`main`, `master`, `HEAD`, ..., or no `?ref=`,
  the default branch): what the cluster receives changes upstream while the repository
  stays the same, as a floating image tag does. A tag or a commit pins it;
- `unsubstituted` (warning, at the field): a `${VAR}` an object writes whose Flux
  Kustomization has no `postBuild`, where another Flux Kustomization of its cluster
  substitutes that variable: Flux leaves it as written there (Grafana's
  `grafana.${CLUSTER_DOMAIN}` under a Kustomization without postBuild, `apps` substituting
  it). The Kustomization is its other place. `$${VAR}`, and a name no Kustomization sets,
  are no Flux variables;
- `unset-variable` (error, at the field): a `${VAR}` without a default an applied object
  writes, which no `substitute` value and no `substituteFrom` source of the Flux
  Kustomization applying it sets: Flux's post-build substitution writes it as the empty
  string (a variable renamed in the cluster's settings, a shell `${HOME}` in a script
  not escaped as `$${HOME}`; vLLM given `--model=`, which new-user trials sixty-six and
  sixty-seven saw pass as a warning). Every source read, that is certain: a value wanted
  empty is written `${VAR:=}`. A source reviewbot cannot read leaves it unseen: not judged;
  so does a mutating webhook that adds values to every Kustomization's postBuild as the API
  server admits it (a MutatingWebhookConfiguration whose rules match Flux Kustomizations,
  a Kyverno policy whose mutate rule matches them, or a release of the
  kustomize-mutating-webhook chart), which `unsubstituted` heeds too.
  The Kustomization's `postBuild.substitute` is its other place (a review comments there
  when the change renamed the variable). An Ingress rule's host it leaves no DNS name
  (`www.`) says the API server refuses the Ingress, and the apply fails (one finding of one
  cause: schema's refused host is not said beside it);
- `patch-shifted` (warning, in a review, at the operation's `path`): a JSON6902 operation
  that set a field of one named list item before the change (`env/2`: LD_DB_DATABASE) and
  sets the same field of another after it (LD_DB_PORT): an item the change added or removed
  above it moved the index;
- a FluxInstance's sync path (`spec.sync.path`, a flux-instance HelmRelease's
  `instance.sync.path`) names a folder of the tree once the postBuild of each Flux
  Kustomization applying it substitutes its variables (`missing`, a warning: whether the
  instance syncs this repository, or which value the variable takes, is not seen);
- an Argo CD `Application`'s source path (`spec.source.path`, `spec.sources[i].path`)
  exists (`missing`), judged alike: when another Application's source of the same
  `repoURL` and `targetRevision` resolves in the tree, and only in a file a root applies;
  a warning when every root of the repository is a guess (several Applications taken as
  applied by hand, the kustomizations holding them): a leftover's folder is gone too;
- an Argo CD `Application`'s `helm.valueFiles` entry names a file of the chart folder its
  source path resolves to (`missing`): Argo CD joins the entry to that folder, and Helm
  fails the template on a file that is not there, so the Application syncs nothing;
  so does another source's `$ref/path` where that `ref` source's repository and revision
  are this tree's (other Applications' paths resolve here): Argo CD reads it from the
  root of that repository; and so is an ApplicationSet's `$ref/path` entry as its
  evaluated generators fill it for each Application it generates of a Helm repository's
  chart (`values-{{.env}}.yaml`, at the template's entry, naming the Application); not
  judged with `ignoreMissingValueFiles: true`, nor for a URL, a `ref` source of another
  repository, an absolute entry or one a generator does not fill;
- a Flux HelmRelease's `spec.chart.spec.valuesFiles` entry names a file of the tree, where
  its chart is a folder of this repository (`missing`): source-controller reads it from the
  GitRepository's root and cannot package the chart without it, so the release is not
  upgraded; not judged with `ignoreMissingValuesFiles: true`, nor for a variable;
- a path an ApplicationSet's evaluated generators give one of its Applications (a list
  element `{env: qa}` for `envs/{{env}}`) that no folder holds, where another of its paths
  resolves here, or, none of its own resolving, another Application's source of the same
  repository and revision does (`missing`, at the template's source path): Argo CD cannot
  generate that Application's manifests and syncs nothing;
- an ApplicationSet's git directory generator entry (not `exclude`, no template) that names
  no folder of the repository, where another entry of it names one (so its repository is
  this one), is `idle-generator` (warning): Argo CD makes no Application for it, without an
  error; in a review, an entry that named folders before the change and names none after it
  (the folders moved) is `missing`, at the entry: the Applications it made go; so is a
  clusters generator's `matchLabels` that no cluster Secret of the repository carries where
  one carries them but one label spelt apart (`V100` for `v100`), at that label;
- when the repository has GitOps roots (see docs/precision.md), a folder of manifests no root
  applies (an `.archive/`, an app commented out of a cluster) is one `not-applied` info for
  the topmost such folder, and nothing in it is judged; without roots, an archive or hidden
  folder no build reads is `not-applied` alike (kept aside);
- a build past reviewbot's bounds (kustomizations nested more than 100 deep, more than
  10,000 objects in one build: kustomize has no bound, a tree past them is generated or
  hostile) is cut there: a `limit` warning at the entry that met the bound says what was
  not built and so not judged;
- with `--render`, a kustomization that `kustomize build` refuses is an error (`build`),
  unless one of the checks above already explains it.

When it stays quiet:

Remote entries (URLs, `github.com/...?ref=`: not fetched) and entries outside the linted
tree; entries a `.gitignore` of the tree ignores, or a script of the tree writes before the
build it runs (build outputs); a Flux `spec.path` whose
source is not this repository or that names a folder outside the linted paths (`lint
clusters/` does not read `apps/`); an Application's path in another repository (or at a
revision none of whose paths resolves here), or made by an ApplicationSet's generators;
objects of two build roots (two clusters, two overlays), which are never duplicates of each
other. A commented-out entry or a script-applied file is an info, not a missing or
unreachable finding.

Failing example:

```yaml
# apps/kustomization.yaml
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - deployment.yaml
  - servcie.yaml        # no such file (service.yaml is beside it and never applied)
```

```yaml
# apps/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
```

```yaml
# apps/service.yaml
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80}]
```

Passing example:

```yaml
# apps/kustomization.yaml
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - deployment.yaml
  - service.yaml
```

```yaml
# apps/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
```

```yaml
# apps/service.yaml
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80}]
```
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from bisect import bisect_left
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from reviewbot.engine.findings import Edit, Violation
from reviewbot.load.loader import kustomization_name
from reviewbot.load.paths import dig, format_path
from reviewbot.model.ci import unapplied_by_ci
from reviewbot.model.dependencies import (
    IN_PART,
    PART_DOUBT,
    Id,
    Marker,
    cycles,
    flux_unseen,
    flux_unseen_in,
    held_sources,
    in_part,
    unmet,
    unmet_image_repositories,
    unmet_markers,
    unmet_sources,
    unread_substitutions,
)
from reviewbot.model.kustomize import (
    KUSTOMIZATION_FILES,
    RENDERED,
    Build,
    Graph,
    Kustomization,
    Resource,
    TreeIndex,
    argo_sources,
    flux_rel,
    include_entries,
    is_remote,
    join,
    missing_entries,
    near_path,
    patch_files,
    patch_folders,
    ref_value_file,
    source_path,
)
from reviewbot.model.objects import (
    ARGO_UNPLACED,
    DEFAULT_CLUSTER,
    REFUSED,
    UNPLACED,
    Container,
    KObject,
    Model,
    Path,
    PodTemplate,
    applier_names,
    appliers,
    component_builds,
    controlled,
    failing_build,
    generated_applying,
    idle_images,
    idle_patches,
    items,
    maker_builds,
    makers,
    missing_components,
    model_graph,
    patch_entry_text,
    refused_entry,
    refusing_patches,
    refusing_replacement,
    refusing_replicas,
    refusing_var,
    tree_source,
    unplaced,
)
from reviewbot.model.patches import OPERATIONS, Unmatched
from reviewbot.model.reach import (
    ARGO_GROUP,
    BY_HAND,
    GUESSED_ROOTS,
    SCRIPTED,
    TEMPLATE_PATCH,
    TEMPLATED,
    UNMATCHED_CLUSTERS,
    aside_why,
    harness_inputs,
    in_older_release,
    is_object,
    kept_aside,
    older_releases,
    path_match,
    placeholder_folders,
    read_by_terraform,
    source_url,
    unapplied_folders,
    unincluded_component,
    unlisted_below,
    unused_base,
)
from reviewbot.model.resource import GENERATED_UNKNOWN, dict_of, unparsed_patches
from reviewbot.rules._kit import host_accepted
from reviewbot.sources.tree import NOT_APPLIED, SYMLINK
from reviewbot.words import closest, one_word_apart

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import TreeDiff

ID = "kustomize-integrity"
SEVERITY = "error"
SUMMARY = ("Kustomization entries exist, manifests beside them are listed, no object twice; "
           "what Flux and Argo CD refer to is there (dependsOn, chart sources, postBuild "
           "variables, ConfigMap keys, image automation markers and policies, sync-wave "
           "order).")
RATIONALE = (
    "One missing entry fails the whole kustomize build; a manifest nobody lists is never "
    "applied; a duplicate object makes kustomize refuse the build. All three pass review "
    "unnoticed and surface only when the cluster does not change."
)
FIX = "Fix the path, list the manifest in its kustomization, or remove the duplicate."
SEVERITIES = {"missing": "error", "unreachable": "warning", "duplicate": "error",
              "idle-patch": "warning", "patch-dropped": "error", "idle-image": "warning",
              "image-dropped": "error", "applied-twice": "error",
              "dependency": "error", "dependency-cycle": "error",
              "source": "error",
              "substitution": "error",
              "idle-generator": "warning",
              "limit": "warning", "no-namespace": "error",
              "build": "error", "invalid": "error", "commented": "info",
              "applied-by-script": "info", "not-applied": "info",
              "unset-variable": "error", "patch-shifted": "warning", "hook-order": "error",
              "remote-floating": "warning", "crd-order": "warning",
              "chart-floating": "warning", "image-policy": "error", "unsubstituted": "warning",
              "wave-order": "warning", "digest-dropped": "warning", "digest-stale": "error",
              "missing-key": "error",
              "impersonation": "error"}
BUILD_FAILED = "kustomize build failed: "
# a build that runs kustomize plugins (``transformers``, ``generators``, ``validators``: a
# builtin NamespaceTransformer from a folder, a KRM function), which reviewbot does not run
PLUGINS_DOUBT = ("what the build's kustomize plugins (transformers, generators or "
                 "validators, which reviewbot does not run) make of these objects' names and "
                 "namespaces")
COST = 7  # CPU time relative to a rule of cost 1, measured on the 50k-object tree
# how alike a missing dependency's name and one the cluster has must be to be suggested
# (difflib's ratio: `apps-database` and `apps-db` 0.70, `apps-web` 0.57)
DEPENDENCY_LIKENESS = 0.65
OPTIONS: tuple[Any, ...] = ()


def check_set(model: Model, opts: Mapping[str, Any]) -> Iterator[Violation]:
    if model.tree is None:
        return
    graph = model_graph(model)
    index = TreeIndex(model.tree.paths, graph, model.tree.outside)
    unapplied = model.unapplied  # no cluster root reaches them: nothing there is judged
    kustomize = sorted((k for k in graph.by_dir.values() if k.file not in unapplied),
                       key=lambda k: k.file)
    referenced: set[str] = set()
    missing_in: set[str] = set()
    unincluded = frozenset(model.derived.get("unincluded-components", ()))
    meant: set[str] = set()
    for k in kustomize:
        alone = k.directory in unincluded
        for violation in _check_entries(k, index, graph, referenced, model, meant):
            missing_in.add(k.directory)
            yield _unincluded(violation) if alone else violation
        for violation in _bare_patches(k, referenced, model):
            yield _unincluded(violation) if alone else violation
        for violation in _floating_remotes(k, graph):
            yield _unincluded(violation) if alone else violation
        for violation in _unparsed_patches(k, model):
            yield _unincluded(violation) if alone else violation
        referenced.update(graph.plugin_inputs(k))  # (a generator plugin reads them)
        if k.flux is None:
            for violation in _wrong_types(k):
                yield _unincluded(violation) if alone else violation
    objects_by_file: dict[str, list[KObject | None]] = {}
    for obj in model.objects:
        if RENDERED not in obj.annotations:  # built objects: kustomize itself checked them
            objects_by_file.setdefault(obj.file, []).append(obj)
    told: set[str] = set(meant)
    # without roots, a folder of patches holds no object (with roots, the walk says)
    patch_owner = patch_folders(kustomize, folders=graph.dirs) if model.derived.get(
        "reach") is None else {}
    # unapplied manifests beside a kustomization a build reads (unlisted, so unapplied) or
    # in a folder of patches, the only ones _unreachable judges: where their first object
    # starts (the objects of the other unapplied files are not read)
    judged = {k.directory for k in kustomize}.union(patch_owner)
    harness = harness_inputs(model)  # a test harness's own files and inputs: not unlisted
    lines: dict[str, int] = {}
    for file in unapplied:
        if posixpath.dirname(file) not in judged and (  # (or below a kustomization applied)
                (above := unlisted_below(graph, file)) is None
                or above.file in unapplied) or file in harness:
            continue
        first = next((r for r in graph.objects_of(file) if is_object(r.body)), None)
        if first is not None and first.doc is not None:
            objects_by_file.setdefault(file, []).append(None)
            lines[file] = first.doc.line
    applied: dict[tuple[str, str], KObject] = {}  # (kind, name) -> an object a build applies
    for obj in model.objects:
        if obj.file not in unapplied:
            applied.setdefault((obj.kind, obj.name), obj)
    reach = model.derived.get("reach")
    # a file a root's build reads as a file of its folder (an Argo CD directory source that
    # recurses, its `include` picking it beside a kustomization it is not listed in) is
    # applied (judge round BK: teekennedy/k8s-homelab's gateway-api/application.yaml)
    read = referenced.union(reach.files) if reach is not None else referenced
    yield from _unreachable(kustomize, graph, objects_by_file, read, told, lines,
                            patch_owner, applied)
    flux_targets = _flux_targets(model, index, graph)
    yield from _not_applied(model, told, flux_targets)
    duplicates = _Duplicates(model)
    duplicate_in: set[str] = set()
    done: set[str] = set()
    for folder in graph.roots:
        if graph.by_dir[folder].file in unapplied:
            continue
        yield from _duplicates_below(graph, folder, duplicates, duplicate_in, done)
    yield from _limits(graph, model)
    unmatched_in: set[str] = set()
    for violation in _unmatched_patches(kustomize, graph, model):
        unmatched_in.add(posixpath.dirname(violation.file or ""))
        yield violation
    yield from _idle_patches(kustomize, graph)
    yield from _idle_images(kustomize, graph)
    for violation in _unresolved_vars(graph, unapplied, model.derived.get("reach") is None):
        unmatched_in.add(posixpath.dirname(violation.file or ""))
        yield violation
    for violation in _refused_replacements(kustomize, graph):
        unmatched_in.add(posixpath.dirname(violation.file or ""))
        yield violation
    for violation in _refused_replicas(kustomize, graph, model):
        unmatched_in.add(posixpath.dirname(violation.file or ""))
        yield violation
    yield from _flux_paths(model, flux_targets, index, graph, duplicates)
    yield from _argo_paths(model, index, graph)
    yield from _argo_value_files(model, index, graph)
    yield from _flux_values_files(model, index, graph)
    yield from _generated_paths(model, index, graph)
    yield from _idle_generators(model, index, graph)
    yield from _idle_cluster_selectors(model)
    yield from _sync_paths(model)
    yield from _resource_set_paths(model, graph)
    yield from _dependencies(model)
    yield from _dependency_cycles(model)
    yield from _impersonations(model)
    yield from _substitutions(model)
    yield from _unset_variables(model)
    yield from _unsubstituted(model)
    yield from _sources(model)
    yield from _image_automation(model)
    yield from _unplaced(model)
    yield from _refused_documents(model, graph)
    yield from _references_unrewritten(model)
    yield from _hooks_before_generated(model)
    yield from _hooks_before_waves(model)
    yield from _keys_missing(model)
    yield from _waves_before_their_namespace(model)
    yield from _applications_before_their_crd(model)
    yield from _crds_of_own_releases(model)
    yield from _applied_twice(model)
    yield from _floating_charts(model)
    yield from _build_failures(model, graph, missing_in | duplicate_in | unmatched_in)


def _unplaced(model: Model) -> Iterator[Violation]:
    """A namespaced object a Flux Kustomization's build gives no namespace, where the
    Kustomization sets no ``spec.targetNamespace`` (:func:`unplaced`): kustomize-controller's
    apply refuses it, and so applies nothing of the Kustomization. Once per object, at its
    ``metadata``, a finding of the first Kustomization that applies it (a new-user trial:
    inside a build that fails it stayed an error, and named no object), or of the object
    itself when that Kustomization's build fails first (a missing entry): nothing of it is
    applied until that is fixed, and this holds then."""
    appliers = {id(o.body): o for o in model.objects if o.kind in ("Kustomization",
                                                                   "Application")}
    placed: dict[tuple[int, tuple[str | int, ...]], KObject] | None = None
    seen: set[tuple[int, tuple[str | int, ...]]] = set()
    for body_id, left in sorted(unplaced(model).items(), key=lambda kv: (
            appliers[kv[0]].ref if kv[0] in appliers else "")):
        applier = appliers.get(body_id)
        if applier is None:
            continue
        name = f"{applier.namespace}/{applier.name}" if applier.namespace else applier.name
        # its build fails before the apply (an entry missing): then the finding is the
        # object's, which nothing applies until that is fixed (``Model.unbuilt``)
        failing = (refusal := refused_entry(model, applier)) is not None and (
            refusal[2] not in (UNPLACED, ARGO_UNPLACED))
        argo = applier.kind == "Application"
        if failing and placed is None:
            placed = {(id(o.doc), o.path): o for o in model.objects}
        for r in left:
            if r.doc is None or (id(r.doc), r.path) in seen:
                continue
            seen.add((id(r.doc), r.path))
            line, column = r.doc.position(r.path + ("metadata",))
            what = f"{r.kind}/{r.name}"
            owner = placed.get((id(r.doc), r.path)) if failing and placed is not None else None
            if argo:  # (judge round CC: Argo CD's InvalidSpecError, its sync refused)
                api = str(r.body.get("apiVersion") or "")
                api = api if "/" in api else f"/{api}"  # (as Go writes a GroupVersionKind)
                message = (
                    f"{what} has no namespace, and Argo CD Application {name}, which applies "
                    "it, names no destination namespace: Argo CD refuses to sync the "
                    f"Application (\"Namespace for {r.name} {api}, Kind={r.kind} is "
                    f"missing.\"), so {name} applies nothing until it has one")
                fix = (f"Set metadata.namespace on {what}, a namespace: in the kustomization "
                       f"that lists it, or spec.destination.namespace on Application {name}.")
            else:
                message = (
                    f"{what} has no namespace, and Flux Kustomization {name}, which applies "
                    "it, sets no targetNamespace: kustomize-controller refuses to apply a "
                    f"namespaced object without one (\"{what} namespace not specified\"), "
                    f"so {name} applies nothing until it has one")
                fix = (f"Set metadata.namespace on {what}, a namespace: in the kustomization "
                       f"that lists it, or spec.targetNamespace on Flux Kustomization {name}.")
            yield Violation(  # (of the applier that refuses it: not applied when no
                # working build makes that applier, as its other findings are)
                owner or applier, (), message, kind="no-namespace",
                file=r.doc.file.path, line=line, column=column,
                key=f"{r.doc.file.path}:no-namespace:{what}", fix=fix)




def _build_failures(model: Model, graph: Graph, explained: set[str]) -> Iterator[Violation]:
    """``--render``: a kustomization kustomize could not build, unless a missing entry or a
    duplicate found in what it includes already explains why, or no cluster root applies it
    (the `not-applied` info says so: nothing builds it)."""
    for skipped in model.skipped:
        if not skipped.reason.startswith(BUILD_FAILED) or skipped.path in model.unapplied:
            continue
        folder = posixpath.dirname(skipped.path)
        if folder in graph.by_dir and graph.closure(folder) & explained:
            continue
        yield Violation(
            None, (), skipped.reason, kind="build", file=skipped.path, line=1, column=1,
            key=f"{skipped.path}:build", fix="Run kustomize build on it and fix what it reports.",
        )


# ---------------------------------------------------------------- the tree


# ---------------------------------------------------------------- entries exist


def _check_entries(
    k: Kustomization, index: TreeIndex, graph: Graph, referenced: set[str], model: Model,
    meant: set[str],
) -> Iterator[Violation]:
    """The entries of ``k`` kustomize cannot resolve; ``meant`` collects the files of a close
    name a missing entry's fix points at (said there, not as unlisted files)."""
    # who applies ``k`` (``appliers``: every Flux/Argo path's build, once per model) is asked
    # only when an entry is missing; a tree without one never works it out (JJGadgets-
    # Biohazard, onedr0p-home-ops: nothing else in a lint asks, ~25% of this rule)
    refused = ""
    for entry, text, why in missing_entries(k, index, graph, referenced,
                                            controlled(model, k)):
        if not refused and why in ("", "folder", "cycle"):
            refused = _refused(model, k, appliers(model).get(k.file, ()))
        if why == "cycle":
            target = join(k.directory, text)
            root = graph.cycle_root(target, k.directory) or ""
            what = (f"this folder ({k.directory or '.'}) again" if root == k.directory else
                    f"{root or 'the top folder'}, which holds this folder ({k.directory})")
            how = "is" if root == target else "includes, through its build,"
            yield _at(k, entry.path, f"{_label(entry.path)}: {text!r} {how} {what} "
                      "(kustomize: \"cycle detected: candidate root ... contains visited root "
                      f"...\"); {refused}", "invalid", text, (),
                      fix="Remove the entry: a kustomization cannot include its own folder, "
                      "or a folder above it.")
            continue
        if why == "folder":
            yield _at(k, entry.path, f"{_label(entry.path)}: folder {text!r} holds no "
                      f"kustomization.yaml; {refused}", "missing", text, (),
                      fix="Correct the path, add a kustomization.yaml to the folder, or remove "
                      "the entry.")
            continue
        if why:
            yield _wrong_kind(k, entry.path, text, component=why == "component")
            continue
        drop = (Edit(k.file, entry.path, "remove", document=k.doc.index, unsafe=True),) if (
            k.flux is None and len(entry.path) == 2) else ()
        target = join(k.directory, text)
        link = _symlink(model, target)
        if link is not None:  # kustomize follows a symlink inside the repository; reviewbot
            # reads none (openstack-k8s-operators/architecture's compute-nodeset -> nodeset,
            # a Component: "does not exist", judge round CM)
            found = _at(k, entry.path, f"{_label(entry.path)}: {text!r} is "
                        f"{'' if link == target else 'under '}symlink {link}, which reviewbot "
                        "does not follow: what kustomize builds of it is not judged", "missing",
                        text, (), fix="Nothing to do if the link points inside the "
                        "repository; else name the folder it points to.")
            yield dataclasses.replace(found, doubt=(
                f"what symlink {link} points to (reviewbot reads no symlink; kustomize "
                "follows one that stays inside the repository)"))
            continue
        gone = ("is git-ignored: no commit holds it, so the copy a GitOps controller builds "
                "from git lacks it" if graph.gitignored(target) else
                f"is written by {script}, which the GitOps controller building this from git "
                "does not run" if (script := graph.written_by(target)) else "does not exist")
        # (not a path the kustomization lists already: `test-image-policy.yaml` gone beside
        # a listed `image-policy.yaml` is a file deleted, not a typo of it)
        near = renamed = ""
        if gone == "does not exist":
            listed = {join(k.directory, e) for _, e in include_entries(k.body)}
            dirs, files = index.entries_in(posixpath.dirname(target))
            # (a Component is a folder: a file of a close name is no component)
            near = near_path(text, target, [p for p in (
                *dirs, *(() if entry.field == "components" else files)) if p not in listed]
                + ([posixpath.dirname(target)] if posixpath.dirname(target) else []))
            renamed = "" if near or entry.field == "components" else _lone_unlisted(
                posixpath.dirname(target), files, listed, graph)
            # the file the entry means is the entry's to fix, not an unlisted file to add or
            # delete (new-user trial seventy-one W3: `namespaces.yaml` for namespace.yaml,
            # and a warning beside the error telling to delete namespace.yaml)
            if near:
                meant.add(join(k.directory, near))
                referenced.add(join(k.directory, near))
        yield _at(k, entry.path, f"{_label(entry.path)}: {text!r} {gone}; {refused}",
                  "missing", text, drop, fix=(
                      f"Point the entry at {near!r}, the "
                      f"{'folder' if index.is_dir(join(k.directory, near)) else 'file'} of a "
                      "close name, or add the missing file." if near else
                      f"Point the entry at {_relative(renamed, k.directory)!r}, the one "
                      "manifest of its folder the kustomization does not list (renamed?), add "
                      "the missing file, or remove the entry." if renamed else
                      "Correct the path, add the missing file, or remove the entry if the "
                      "file was deleted on purpose."))


def _lone_unlisted(folder: str, files: Iterable[str], listed: Collection[str],
                   graph: Graph) -> str:
    """The one file of ``folder`` holding Kubernetes objects that the kustomization does
    not list (``listed``), or "": where an entry names a file that is gone, the file it was
    renamed to, most likely (new-user trial sixty-six W2: `web.yaml` moved to
    `deployment.yaml`, and the fix said only "correct the path")."""
    found = [f for f in files if f not in listed and posixpath.dirname(f) == folder
             and not kustomization_name(f) and f.endswith((".yaml", ".yml"))
             and any(is_object(r.body) for r in graph.objects_of(f))]
    return found[0] if len(found) == 1 else ""


def _relative(path: str, folder: str) -> str:
    """``path`` as an entry of a kustomization in ``folder`` writes it."""
    return posixpath.relpath(path, folder or ".")


def _symlink(model: Model, target: str) -> str | None:
    """The symlink of the tree ``target`` is, or lies under (the tree lists each link it does
    not follow among its skipped paths), or None."""
    links = {s.path for s in model.skipped if s.reason == SYMLINK}  # (asked of a missing
    if not links:  # entry only)
        return None
    here = target
    while here and here != ".":
        if here in links:
            return here
        here = posixpath.dirname(here)
    return None


# what a refusal of a kustomize Component no kustomization includes could not see (without
# roots): a Component is built only as part of the kustomizations that list it
UNINCLUDED = ("which build includes the Component: no kustomization of this repository "
              "lists it under `components:`, so its refusal fails only the builds elsewhere "
              "that include it")


def _unincluded(v: Violation) -> Violation:
    """``v``, of a Component no kustomization includes: a warning that says so
    (sourcegraph/deploy-sourcegraph-k8s' components/custom/old-patches, judge round AT)."""
    return dataclasses.replace(v, doubt="; ".join(d for d in (v.doubt, UNINCLUDED) if d))


def _folders(folders: Sequence[str]) -> str:
    """The first three of ``folders`` (the builds applying a Component), "and more" after."""
    return f"{', '.join(folders[:3])}{' and more' if len(folders) > 3 else ''}"


def _refused(model: Model, k: Kustomization, applied_by: Sequence[KObject]) -> str:
    """What a missing entry stops: kustomize refuses the whole build (``kubectl kustomize``
    fails, "must resolve to a file or a directory"), so whoever applies it applies nothing of
    it, and prunes nothing, until the entry resolves."""
    who = applier_names(model, applied_by)
    if not who and k.is_component and (uses := sorted(
            {b.folder for b, _ in component_builds(model_graph(model), k.directory)})):
        return (f"kustomize refuses the whole build of {_folders(uses)}, which apply this "
                "Component: nothing of them is applied")
    if not who:
        return (f"kustomize refuses the whole build of {k.directory or '.'} (and of every "
                "kustomization that includes it): nothing of it is applied")
    if len(applied_by) == 1 and applied_by[0].kind == "ApplicationSet" and (
            apps := generated_applying(model, applied_by[0], k.file)):
        # (the Applications it generates that apply the build, not the set: its others sync
        # on; new-user trial sixty-three)
        appset = applied_by[0]
        where = f"{appset.namespace}/" if appset.namespace else ""
        named = " and ".join(f"{where}{a}" for a in apps[:2]) + (
            f" and {len(apps) - 2} more" if len(apps) > 2 else "")
        return (f"kustomize refuses the whole build, so Argo CD Application"
                f"{'s' if len(apps) > 1 else ''} {named} (generated by ApplicationSet "
                f"{where}{appset.name}) appl{'y' if len(apps) > 1 else 'ies'} nothing of it "
                "until the entry is fixed")
    more = f" and {len(who) - 2} more" if len(who) > 2 else ""
    return (f"kustomize refuses the whole build, so {' and '.join(who[:2])}{more} "
            f"appl{'ies' if len(applied_by) == 1 else 'y'} nothing of it until the entry is "
            "fixed")


# what each of kustomize's refusals of a resource document says of it
_REFUSED_DOCUMENT = {
    "missing Resource metadata": "has no apiVersion, kind or metadata: it is no Kubernetes "
                                 "object",
    "missing kind in object": "has no kind",
    "missing metadata.name in object": "has no metadata.name",
}


def _refused_documents(model: Model, graph: Graph) -> Iterator[Violation]:
    """``invalid`` (error), at the document: a file a build reads as resources (listed
    under ``resources``, or a manifest of a folder kustomize-controller generates the
    kustomization of) holding a document kustomize refuses (:func:`~reviewbot.model.
    resource.refused_resource`): a Helm values file listed as a resource, a manifest whose
    ``metadata`` lost its name, a `sops.yaml` of creation rules beside a cluster's
    manifests (Flux: "failed to decode Kubernetes YAML from clusters/staging/sops.yaml:
    missing Resource metadata"). The whole build fails, so nothing of it is applied. Where
    a ``.sourceignore`` or a GitRepository's ``spec.ignore`` may leave a generated folder's
    file out of the artifact, a warning that says so. Once per file, at its first such
    document (kustomize stops there)."""
    unapplied = model.unapplied
    for file in sorted(graph.resource_files):
        if file in unapplied:
            continue
        found = graph.refused_document(file)
        if found is None:
            continue
        doc, at, why = found
        line, column = doc.position(at) if at else (doc.line, 1)
        what = ("is not a mapping, so it is no Kubernetes object" if not at and not
                isinstance(doc.kustomize_value, dict) else "holds `items` that are no list"
                if at == ("items",) else _REFUSED_DOCUMENT[why])
        where = f"{file} (line {line})" if not at or len(at) == 1 else (
            f"{file}, {format_path(at)} (line {line})")
        generated = graph.generated_listing(file)
        doubt = None
        if generated:
            folder = posixpath.dirname(file) or "."
            tail = (f"kustomize-controller lists every manifest of {folder} when it generates "
                    f"its kustomization, and refuses this one (\"failed to decode Kubernetes "
                    f"YAML from {file}: {why}\"); {_generated_refusal(model, file)}")
            fix = ("Move the file out of the folder Flux builds (a `.sops.yaml` is left out "
                   "of the source by default), or list it in a `.sourceignore`."
                   if why == "missing Resource metadata" else
                   "Give the object its kind and metadata.name, or move the file out of the "
                   "folder Flux builds.")
            if graph.source_ignores():
                doubt = ("whether a .sourceignore or a GitRepository's spec.ignore leaves the "
                         "file out of the source's artifact (reviewbot does not read a "
                         ".sourceignore's exceptions, `!`, nor spec.ignore)")
        else:
            owners = sorted((k for k in graph.by_dir.values() if any(
                join(k.directory, e) == file for _, e in include_entries(k.body)
                if not is_remote(e))), key=lambda k: k.file)
            refused = _refused(model, owners[0], appliers(model).get(owners[0].file, ())) if (
                owners) else "kustomize refuses every build that reads it"
            tail = f"kustomize: \"{why}\"; {refused}"
            fix = ("Remove the file from `resources:`: kustomize reads every document of a "
                   "listed file as an object (Helm values go to a HelmRelease or a chart)."
                   if why == "missing Resource metadata" else
                   "Give the object its kind and metadata.name, or remove the file from "
                   "`resources:`.")
        named = dig(doc.kustomize_value, at[:-1]) if at[-1:] == ("metadata",) else None
        if (doubt is None and isinstance(named, dict) and model.derived.get("reach") is None
                and dig(named, ("metadata", "generateName"))):
            # (a Workflow named by generateName, which only `kubectl create` or `argo submit`
            # of the file accepts, beside the kustomization a CI step edits its image in:
            # davidfox87/crossplane-eks-argocd-mlops, judge round CF)
            doubt = ("whether anything builds this kustomization: without roots, the object "
                     "it refuses names itself by generateName, which only `kubectl create` or "
                     "a workflow's submit of the file itself accepts")
        yield Violation(None, at, f"{where} {what}; {tail}", kind="invalid", file=file,
                        line=line, column=column, key=f"{file}:refused-document", fix=fix,
                        doubt=doubt)


def _references_unrewritten(model: Model) -> Iterator[Violation]:
    """``invalid`` (error), at the reference: a pod reads a ConfigMap or Secret by the name
    a generator of its build gives it before its hash (`api-secrets`), while that build
    makes the generated object in another namespace, and the model has nothing of that name
    in the pod's: kustomize rewrites a reference to a generated name only within one
    namespace, so the pods look for a ConfigMap or Secret nothing creates and do not start
    (CreateContainerConfigError). New-user trial fifty-six: an overlay's `secretGenerator`
    without the base's `namespace: chat` left `secretRef: api-secrets` as written."""
    from reviewbot.model.transform import GENERATED_HASH
    from reviewbot.model.workload import config_refs

    told: set[tuple[int, Path]] = set()
    for pod in model.pods:
        if pod.origin is not None:
            continue
        refs = [r for r in config_refs(pod) if not r[3]]
        if not refs:
            continue
        ns = pod.namespace or "default"
        builds = None
        for at, kind, name, _ in refs:
            if (id(pod.obj), at) in told or model.by_identity.get(("", kind, ns, name)):
                continue
            if builds is None:
                builds = maker_builds(model, pod.obj)
            elsewhere = None
            for b in builds:
                # (the namespaces as the build writes them: a reference is rewritten where
                # the two are equal, both unset included)
                own = next((_namespace_of(r.body) for r in b.resources
                            if r.body.get("kind") == pod.obj.kind and dict_of(
                                r.body.get("metadata")).get("name") == pod.obj.name), None)
                elsewhere = next((r for r in b.resources if own is not None
                                  and r.body.get("kind") == kind and GENERATED_HASH in dict_of(
                                      dict_of(r.body.get("metadata")).get("annotations"))
                                  and dict_of(r.body.get("metadata")).get("name") == name
                                  and _namespace_of(r.body) != own), None)
                if elsewhere is not None:
                    break
            if elsewhere is None:
                continue
            told.add((id(pod.obj), at))
            there = dict_of(elsewhere.body.get("metadata")).get("namespace")
            yield Violation(
                pod.obj, at,
                f"{pod.obj.kind} {ns}/{pod.obj.name} reads {kind} {name}, which its build "
                f"generates in namespace {there}, with its hash suffix: kustomize rewrites a "
                f"reference to a generated name only within one namespace, so its pods look "
                f"for {kind} {ns}/{name}, which nothing creates, and do not start "
                "(CreateContainerConfigError)" if there else
                f"{pod.obj.kind} {ns}/{pod.obj.name} reads {kind} {name}, which its build "
                "generates without a namespace, with its hash suffix: kustomize rewrites a "
                "reference to a generated name only within one namespace, so its pods look "
                f"for {kind} {ns}/{name}, which nothing creates, and do not start "
                "(CreateContainerConfigError)",
                kind="invalid", key=f"{pod.obj.ref}:{format_path(at)}:unrewritten",
                fix=(f"Give the {kind} its readers' namespace ({ns}): the generator's "
                     "`namespace:`, or the kustomization's."))


ARGO_HOOK = "argocd.argoproj.io/hook"
HELM_HOOK = "helm.sh/hook"


def _presync(notes: Mapping[str, Any]) -> bool:
    """Whether annotations make an object an Argo CD PreSync hook (Helm's pre-install and
    pre-upgrade hooks are mapped to PreSync by Argo CD)."""
    argo = {p.strip() for p in str(notes.get(ARGO_HOOK) or "").split(",")}
    helm = {p.strip() for p in str(notes.get(HELM_HOOK) or "").split(",")}
    return "PreSync" in argo or (ARGO_HOOK not in notes and bool(
        {"pre-install", "pre-upgrade"} & helm))


def _hooks_before_generated(model: Model) -> Iterator[Violation]:
    """``hook-order`` (error), at the reference: an Argo CD PreSync hook (a migration Job)
    whose pods read a ConfigMap or Secret its build generates with a hash suffix, itself no
    PreSync hook. PreSync hooks run before Argo CD applies the manifests (its sync phases:
    "Executes prior to the application of the manifests"), so at the first sync and at
    every change of the generated content the hook's pods look for a name not created yet,
    do not start (CreateContainerConfigError), and the sync waits for the hook (new-user
    trial fifty-eight: rag-api-migrate reading the generated rag-api-env). Judged where
    Argo CD Applications apply the hook (Flux runs no hooks)."""
    from reviewbot.model.transform import GENERATED_HASH
    from reviewbot.model.workload import config_refs

    for pod in model.pods:
        if pod.origin is not None or not _presync(pod.obj.annotations):
            continue
        appliers = [m.applier for m in makers(model, pod.obj)]
        if not appliers or not all(a is not None and a.group == ARGO_GROUP and a.kind in (
                "Application", "ApplicationSet") for a in appliers):
            continue
        refs = [r for r in config_refs(pod) if not r[3]]
        builds = maker_builds(model, pod.obj) if refs else []
        for at, kind, name, _ in refs:
            # (the reference as the build rewrote it: the generated name and its hash)
            stem, _, suffix = name.rpartition("-")
            generated = next((r for b in builds for r in b.resources
                              if r.body.get("kind") == kind and dict_of(dict_of(
                                  r.body.get("metadata")).get("annotations")).get(
                                  GENERATED_HASH) is not None and len(suffix) == 10
                              and dict_of(r.body.get("metadata")).get("name") == stem), None)
            if generated is None or _presync(dict_of(dict_of(
                    generated.body.get("metadata")).get("annotations"))):
                continue
            yield Violation(
                pod.obj, at,
                f"{pod.obj.kind} {pod.namespace or 'default'}/{pod.obj.name} is an Argo CD "
                f"PreSync hook and reads {kind} {stem}, which its build generates with a hash "
                "suffix: PreSync hooks run before Argo CD applies the manifests, so at the "
                f"first sync and at every change of its content the hook's pods look for a "
                f"{kind} not created yet and do not start (CreateContainerConfigError), and "
                "the sync waits for the hook",
                kind="hook-order", key=f"{pod.obj.ref}:{format_path(at)}:hook-order",
                fix=(f"Make the generated {kind} a PreSync hook of an earlier sync wave (its "
                     "generator's `options.annotations`: argocd.argoproj.io/hook: PreSync, "
                     "argocd.argoproj.io/sync-wave: \"-1\"), or give the hook its values "
                     "another way."))


# Argo CD's sync phases in the order it runs them (a resource no hook annotation names is of
# the Sync phase); Helm's hooks as Argo CD maps them
_PHASES = ("PreSync", "Sync", "PostSync")
_HELM_PHASES = {"pre-install": "PreSync", "pre-upgrade": "PreSync",
                "post-install": "PostSync", "post-upgrade": "PostSync"}
ARGO_WAVE = "argocd.argoproj.io/sync-wave"


def _sync_order(notes: Mapping[str, Any]) -> tuple[int, int] | None:
    """(phase, wave) of the first step Argo CD applies an object with these annotations in,
    as its sync orders them (phase, then wave); None for a SyncFail or Skip hook or a wave
    that is no integer (not judged)."""
    argo = [p.strip() for p in str(notes.get(ARGO_HOOK) or "").split(",") if p.strip()]
    helm = [_HELM_PHASES.get(p.strip(), "") for p in str(notes.get(HELM_HOOK) or "").split(",")
            if p.strip()]
    phases = argo if ARGO_HOOK in notes else helm if HELM_HOOK in notes else ["Sync"]
    known = [_PHASES.index(p) for p in phases if p in _PHASES]
    try:
        wave = int(str(notes.get(ARGO_WAVE, "0")).strip() or "0")
    except ValueError:
        return None
    return (min(known), wave) if known and len(known) == len(phases) else None


def _hooks_before_waves(model: Model) -> Iterator[Violation]:
    """``hook-order`` (a warning: the cluster may hold the object from an earlier sync), at
    the reference: an Argo CD hook whose pods read a ConfigMap or Secret (not optional) the
    same Application applies in a later phase or sync wave. Argo CD applies phase by phase,
    wave by wave, and waits for a wave's hooks to finish before the next, so at the first
    sync the hook's pods look for a name not created yet, do not start
    (CreateContainerConfigError), and the sync never reaches the wave that would create it
    (new-user trial sixty-three: a migration Job, a Sync hook of wave -1, reading app-config
    of wave 0). A generated one with a hash suffix is :func:`_hooks_before_generated`'s."""
    from reviewbot.model.transform import GENERATED_HASH
    from reviewbot.model.workload import config_refs

    for pod in model.pods:
        notes = pod.obj.annotations
        if pod.origin is not None or (ARGO_HOOK not in notes and HELM_HOOK not in notes):
            continue
        mine = _sync_order(notes)
        refs = [r for r in config_refs(pod) if not r[3]] if mine is not None else []
        if not refs:
            continue
        appliers = [m.applier for m in makers(model, pod.obj)]
        if not appliers or not all(a is not None and a.group == ARGO_GROUP and a.kind in (
                "Application", "ApplicationSet") for a in appliers):
            continue
        builds = maker_builds(model, pod.obj)
        for at, kind, name, _ in refs:
            read = next((r for b in builds for r in b.resources
                         if r.body.get("kind") == kind and r.group == "" and dict_of(
                             r.body.get("metadata")).get("name") == name
                         and _namespace_of(r.body) == (pod.namespace or _namespace_of(
                             r.body))), None)
            if read is None:
                continue
            its = dict_of(dict_of(read.body.get("metadata")).get("annotations"))
            theirs = _sync_order(its)
            if its.get(GENERATED_HASH) is not None or theirs is None or not (
                    mine is not None and theirs > mine):
                continue
            assert mine is not None
            hook = f"{_PHASES[mine[0]]} hook of sync wave {mine[1]}"
            later = (f"sync wave {theirs[1]}" if theirs[0] == mine[0]
                     else f"the {_PHASES[theirs[0]]} phase (wave {theirs[1]})")
            yield Violation(
                pod.obj, at,
                f"{pod.obj.kind} {pod.namespace or 'default'}/{pod.obj.name} is an Argo CD "
                f"{hook} and reads {kind} {name}, which its Application applies in {later}: "
                "Argo CD waits for the hook before it applies what comes later, so at the "
                f"first sync the hook's pods look for a {kind} not created yet and do not "
                "start (CreateContainerConfigError), and the sync never creates it",
                kind="hook-order", key=f"{pod.obj.ref}:{format_path(at)}:hook-wave",
                doubt=(f"whether the cluster already holds {kind} {pod.namespace or 'default'}"
                       f"/{name} from an earlier sync (then only a new cluster's first sync "
                       "waits)"),
                fix=(f"Give {kind} {name} an earlier sync wave than the hook "
                     f"(argocd.argoproj.io/sync-wave: \"{mine[1] - 1}\""
                     + (", and the hook's phase" if theirs[0] != mine[0] else "")
                     + "), or give the hook its values another way."))


def _waves_before_their_namespace(model: Model) -> Iterator[Violation]:
    """``wave-order`` (a warning: the cluster may hold it from an earlier sync), at the sync
    wave of a Namespace (a CustomResourceDefinition) an Argo CD Application applies in a
    later sync wave than objects it applies in that namespace (of that kind). Argo CD orders
    a sync by phase, then wave, then kind (Namespaces and CRDs first within a wave), and
    applies a wave only once the ones before are in sync and healthy: at the first sync the
    earlier wave's objects find no namespace (no kind), their apply fails, and the sync stops
    before the wave that would create it (new-user trial sixty-five pr11: a Namespace of
    wave 1, its Deployment of wave 0). Not where anything else the repository applies
    creates it too (the Application's ``CreateNamespace=true`` creates none it applies)."""
    # (the objects of a step of their own, a wave or a hook's phase: without any, every
    # object is in wave 0, where Argo CD applies Namespaces and CRDs first; judge round DJ,
    # tsotsos/homelab's Roles of wave -10 in a Namespace of no wave, was a miss)
    early = [o for o in model.objects if (
        ARGO_WAVE in o.annotations or ARGO_HOOK in o.annotations or HELM_HOOK in o.annotations)]
    if not early:
        return
    later = [o for o in model.objects if o.group in ("", "apiextensions.k8s.io") and o.kind in (
        "Namespace", "CustomResourceDefinition") and o.file not in model.unapplied]
    sync = (_PHASES.index("Sync"), 0)
    for first in later:
        mine = _sync_order(first.annotations)
        if mine is None or mine[0] != _PHASES.index("Sync") or (
                mine <= sync and not any(_earlier(o, mine) for o in early)):
            continue
        appliers = [m.applier for m in makers(model, first) if m.applier is not None]
        if not appliers or len(appliers) < len(makers(model, first)) or not all(
                a.group == ARGO_GROUP and a.kind in ("Application", "ApplicationSet")
                for a in appliers):
            continue
        if first.kind == "Namespace":
            if _created_otherwise(model, first):
                continue
            inside = [o for o in model.objects if o.namespace == first.name
                      and o.kind != "Namespace"]
            what = f"Namespace {first.name}"
            needs = f"no namespace {first.name}"
        else:
            group, kind = first.get(("spec", "group")), first.get(("spec", "names", "kind"))
            if not isinstance(group, str) or not isinstance(kind, str):
                continue
            inside = [o for o in model.objects if o.kind == kind and o.group == group]
            what = f"CustomResourceDefinition {first.name}"
            needs = f"no kind {kind} ({group})"
        syncs = _syncs(model, first, appliers)
        earlier = []
        for obj in inside:
            theirs = _sync_order(obj.annotations)
            if theirs is None or theirs >= mine or obj.file in model.unapplied:
                continue
            if syncs & _syncs(model, obj, [m.applier for m in makers(model, obj)
                                           if m.applier is not None]):
                earlier.append((theirs, obj))
        if not earlier:
            continue
        earlier.sort(key=lambda e: (e[0], e[1].ref))
        (phase, wave), obj = earlier[0]
        # (an object of a kind its CRD scopes to the cluster has no namespace, whatever the
        # Application's destination: new-user trial seventy-eight W5 read "default/...")
        spaced = obj.namespace if first.get(("spec", "scope")) != "Cluster" else None
        more = f" and {len(earlier) - 1} more" if len(earlier) > 1 else ""
        waved = ARGO_WAVE in first.annotations
        # (the phase an earlier hook runs in: a PreSync hook's wave is its phase's own)
        step = f"sync wave {wave}" if phase == mine[0] else f"the {_PHASES[phase]} phase"
        yield Violation(
            first, ("metadata", "annotations", ARGO_WAVE) if waved else ("metadata", "name"),
            f"{what} is in sync wave {mine[1]}" + ("" if waved else " (it names none)")
            + f", after {obj.kind} "
            f"{spaced + '/' if spaced else ''}{obj.name}{more}, which "
            f"{'its Application applies' if len(syncs) == 1 else 'its Applications apply'}"
            f" in {step}: Argo CD applies wave by wave, so at the first sync "
            f"the apply of {obj.kind} {obj.name} finds {needs} and the sync stops before the "
            "wave "
            "that would create it",
            kind="wave-order",
            doubt=(f"whether the cluster already holds {what} from an earlier sync (then only "
                   "a new cluster's first sync stops)"),
            fix=(f"Give {what} a sync wave before its objects' (argocd.argoproj.io/sync-wave: "
                 f"\"{wave - 1}\")"
                 # (without it, wave 0: before objects of wave 0 and later only)
                 + (", or remove its sync-wave annotation." if waved and phase == mine[0]
                    and wave >= 0 else ".")))


def _applications_before_their_crd(model: Model) -> Iterator[Violation]:
    """``wave-order`` between the Applications of an app of apps (a warning: the cluster may
    hold the CRD from an earlier sync, and whether a wave waits for the Applications before
    it is Argo CD's configuration), at the sync wave of the Application that applies a
    CustomResourceDefinition: another Application of the same parent applies custom
    resources of its kind in an earlier wave (new-user trial eighty-eight D3: platform-crds
    moved from wave -2 to 2, after llm-prod's ServiceMonitor, "nothing"). The parent creates
    its Applications wave by wave; the earlier one's sync finds no kind."""
    crds = [o for o in model.objects if o.group == "apiextensions.k8s.io"
            and o.kind == "CustomResourceDefinition" and o.file not in model.unapplied]
    if not crds:
        return
    parents: dict[int, tuple[KObject, ...]] = {}

    def apps(obj: KObject) -> list[KObject]:
        """The Argo CD Applications that apply ``obj``, each applied by an Application (a
        parent) with its wave; none when something else applies it too."""
        found = [m.applier for m in makers(model, obj)]
        if not found or any(a is None or a.group != ARGO_GROUP or a.kind != "Application"
                            for a in found):
            return []
        return [a for a in found if a is not None]

    def parent(app: KObject) -> tuple[KObject, ...]:
        if id(app) not in parents:
            parents[id(app)] = tuple(apps(app))
        return parents[id(app)]

    for crd in crds:
        group, kind = crd.get(("spec", "group")), crd.get(("spec", "names", "kind"))
        owners = apps(crd)
        if not isinstance(group, str) or not isinstance(kind, str) or not owners:
            continue
        waves = [_sync_order(a.annotations) for a in owners]
        if any(w is None or not parent(a) for w, a in zip(waves, owners, strict=True)):
            continue
        first = min(waves, key=lambda w: w or (0, 0))
        assert first is not None
        earlier: list[tuple[tuple[int, int], KObject, KObject]] = []
        for obj in model.objects:
            if obj.kind != kind or obj.group != group or obj.file in model.unapplied:
                continue
            users = apps(obj)
            if not users or any(u in owners for u in users):
                continue  # (the same Application's: its own waves order them)
            for user in users:
                theirs = _sync_order(user.annotations)
                if theirs is not None and theirs < first and set(
                        map(id, parent(user))) & {id(p) for a in owners for p in parent(a)}:
                    earlier.append((theirs, user, obj))
        if not earlier:
            continue
        earlier.sort(key=lambda e: (e[0], e[1].ref, e[2].ref))
        (_, wave), user, obj = earlier[0]
        owner = next(a for a, w in zip(owners, waves, strict=True) if w == first)
        waved = ARGO_WAVE in owner.annotations
        more = f" and {len(earlier) - 1} more" if len(earlier) > 1 else ""
        message = (
            f"Application {owner.namespace}/{owner.name} applies CustomResourceDefinition "
            f"{crd.name} in sync wave {first[1]}" + ("" if waved else " (it names none)")
            + f", after Application {user.namespace}/{user.name} (wave {wave}), which applies "
            f"{obj.kind} {obj.name}{more}: their parent creates its Applications wave by wave, "
            f"so at the first sync {user.name}'s apply finds no kind {kind} ({group}) and its "
            "sync fails until the CRD is there")
        fix = (f"Give Application {owner.name} a sync wave before {user.name}'s "
               f"(argocd.argoproj.io/sync-wave: \"{wave - 1}\").")
        yield Violation(
            owner, ("metadata", "annotations", ARGO_WAVE) if waved else ("metadata", "name"),
            message, kind="wave-order", fix=fix,
            doubt=(f"whether the cluster already holds CustomResourceDefinition {crd.name} "
                   "from an earlier sync, and whether Argo CD waits for an Application's "
                   "health before the next wave (a health check of argoproj.io/Application "
                   "in argocd-cm: then the later wave never comes)"),
            others=(Violation(user, ("metadata", "annotations", ARGO_WAVE)
                              if ARGO_WAVE in user.annotations else ("metadata", "name"),
                              message, fix=fix, kind="wave-order"),))


def _syncs(model: Model, obj: KObject, appliers: Sequence[KObject]) -> set[tuple[int, str]]:
    """The Argo CD Applications whose sync applies ``obj`` (of ``appliers``): each
    Application, and each Application an ApplicationSet generates whose paths apply its
    file (judge round DJ: one ApplicationSet's Applications sync apart, a Role of one in the
    namespace another creates is no wave of the other's)."""
    out: set[tuple[int, str]] = set()
    for a in appliers:
        if a.group == ARGO_GROUP and a.kind == "Application":
            out.add((id(a), ""))
        elif a.group == ARGO_GROUP and a.kind == "ApplicationSet":
            out.update((id(a), name) for name in generated_applying(model, a, obj.file))
    return out


# the suffix kustomize's generators add to a name: ten characters of the content's hash
_GENERATED_HASH = re.compile(r"-[a-z0-9]{10}$")


def _keys_missing(model: Model) -> Iterator[Violation]:
    """``missing-key``: a container's env entry reading, by ``configMapKeyRef`` or
    ``secretKeyRef`` (not optional), a key the ConfigMap or Secret of that name in its
    namespace and cluster does not hold (a ConfigMap's ``data`` and ``binaryData``, as the
    repository writes or generates it; a Secret's ``data`` and ``stringData``, SOPS-encrypted
    too: their keys are written in the clear): the kubelet does not start the container
    ("couldn't find key ... in ConfigMap": CreateContainerConfigError; new-user trial
    sixty-eight D1, a generator's key renamed and the Deployment's reference kept, a miss;
    trial sixty-nine D1, a SOPS Secret's key renamed). An object several documents of one
    name make in a cluster, one whose keys hold a variable, a Secret an operator also makes
    or fills (an ExternalSecret's target, a SealedSecret, a Certificate's, Flux's `ssa:
    IfNotPresent` placeholder, a service account token) is not judged, nor one of another
    chart than the pod's (each chart's templates are a release of their own)."""
    from reviewbot.model.objects import generated_configmaps
    from reviewbot.model.reach import makes_secrets, secret_names
    from reviewbot.model.workload import env_entries
    from reviewbot.words import meant_key

    made_secrets = {name for o in model.objects if makes_secrets(o.kind)
                    for name in secret_names(o.body)}
    held: dict[tuple[str, str, str, str], KObject | None] = {}
    for o in model.objects:
        if o.group != "" or o.kind not in ("ConfigMap", "Secret") or o.file in model.unapplied:
            continue
        if o.kind == "Secret" and (o.name in made_secrets or str(o.body.get("type")) in (
                "kubernetes.io/service-account-token",) or str(o.annotations.get(
                "kustomize.toolkit.fluxcd.io/ssa", "")).lower() == "ifnotpresent"):
            continue
        if any("replicate-from" in a or a.endswith("/reflects") for a in o.annotations):
            continue  # (a copy a replicator fills: kubernetes-replicator, reflector)
        for cluster in model.clusters.get(id(o)) or (DEFAULT_CLUSTER,):
            named = (o.kind, cluster, o.namespace or "default", o.name)
            held[named] = o if named not in held or held[named] is o else None
    # what the generators make, in the builds the roots apply (no cluster of their own:
    # their names carry their content's hash; one name of two contents is not judged)
    made: dict[tuple[str, str], KObject | None] = {}
    for o in generated_configmaps(model):
        named2 = (o.namespace or "default", o.name)
        was = made.get(named2)
        made[named2] = o if GENERATED_UNKNOWN not in o.annotations and (
            named2 not in made or was is not None
            and was.body.get("data") == o.body.get("data")) else None
        # (a source file the tree lacks, git-ignored: made at build time, its keys unknown;
        # judge round DV, d-uzlov/k8s-homelab's `envs: [./env/app.env]`, 24 false errors)
    if not held and not made:
        return
    charts = frozenset(posixpath.dirname(p) for p in model_graph(model).paths
                       if posixpath.basename(p) == "Chart.yaml")
    for pod in model.pods:
        namespace = pod.namespace or "default"
        clusters = model.clusters.get(id(pod.obj)) or (DEFAULT_CLUSTER,)
        for container in pod.containers:
            for var, at in env_entries(container.body.get("env")):
                for reference, kind, parts in (
                        ("configMapKeyRef", "ConfigMap", ("data", "binaryData")),
                        ("secretKeyRef", "Secret", ("data", "stringData"))):
                    ref = dict_of(dict_of(var.get("valueFrom")).get(reference))
                    name, key = ref.get("name"), ref.get("key")
                    if not isinstance(name, str) or not isinstance(key, str) or ref.get(
                            "optional") is True or "${" in name + key:
                        continue
                    found = [held[(kind, c, namespace, name)]
                             if (kind, c, namespace, name) in held
                             else made.get((namespace, name)) if kind == "ConfigMap" else None
                             for c in clusters]
                    if not found or any(m is None for m in found):
                        continue  # (no such object here, or several: not judged)
                    obj = found[0]
                    assert obj is not None
                    if _chart_of(pod.obj.file, charts) != _chart_of(obj.file, charts):
                        continue  # (another chart's: a release of its own, maybe another
                        # option; judge round DX, kubeflow-manifests' rds-s3 chart read the
                        # vanilla chart's ConfigMap, its own templated: 16 false errors)
                    keys = [str(k) for part in parts for k in dict_of(obj.get((part,)))]
                    if key in keys or any("${" in k for k in keys):
                        continue
                    yield _key_missing(pod, container, at, reference, obj, key, keys,
                                       _GENERATED_HASH.sub("", obj.name)
                                       if obj in made.values() else obj.name,
                                       meant_key(key, keys), parts)


def _chart_of(path: str, charts: frozenset[str]) -> str | None:
    """The chart (its folder, one of ``charts``) whose ``templates/`` holds ``path``, or None:
    objects of two charts are two releases, never one build's."""
    parts = path.split("/")
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "templates" and "/".join(parts[:i]) in charts:
            return "/".join(parts[:i])
    if parts[0] == "templates" and "" in charts:
        return ""
    return None


def _key_missing(pod: PodTemplate, container: Container, at: Path, reference: str,
                 obj: KObject, key: str, keys: Sequence[str], shown: str,
                 near: str | None, parts: Sequence[str]) -> Violation:
    """:func:`_keys_missing`'s finding, at the reference's ``key:`` (``shown``: the object's
    name as written, a generator's without its content's hash); the key of a close name,
    where the object writes it, is the same problem's other place (a review that renames
    the key comments there: new-user trial sixty-nine's SOPS Secret)."""
    namespace = pod.namespace or "default"
    entry = at[:-1] if at[-1] == "value" else at
    where = (*container.path, *entry, "valueFrom", reference, "key")
    kind = obj.kind
    # a generator entry replacing the one it overrides (`behavior: replace`) drops the keys
    # of that one: the cause (new-user trial eighty W3, prod's overlay, said at the base)
    generator = dig(obj.doc.value, obj.path) if obj.doc is not None and posixpath.basename(
        obj.doc.file.path) in KUSTOMIZATION_FILES else None
    replacing = obj.doc.file.path if isinstance(generator, dict) and generator.get(
        "behavior") == "replace" and obj.doc is not None else None
    # (a Secret's keys are named, never its values)
    message = (
        f"{pod.obj.kind} {namespace}/{pod.obj.name}: container {container.name} reads key "
        f"{key} of {kind} {shown}, which has no such key"
        + (f" (did you mean {near}?)" if near else f" (it has {', '.join(keys[:5])}"
           + (" ..." if len(keys) > 5 else "") + ")" if keys else "")
        + (f" ({replacing}'s generator makes it with `behavior: replace`: none of the keys "
           "of the ConfigMap it replaces)" if replacing else "")
        + ": the kubelet does not start the container (CreateContainerConfigError)")
    fix = (f"Name {near} in {reference}.key, or add {key} to {kind} {shown}." if near
           else f"Set behavior: merge in {replacing}'s generator of {shown} (or add {key} to "
           "its literals), or mark the reference optional: true." if replacing
           else f"Add {key} to {kind} {shown}, name a key it has, or mark the reference "
           "optional: true.")
    written = next((p for p in parts if near is not None and obj.doc is not None
                    and near in dict_of(obj.get((p,)))), None)
    return Violation(
        pod.obj, where, message, kind="missing-key", fix=fix,
        others=(Violation(obj, (written, near), message, fix=fix, kind="missing-key"),)
        if written is not None and near is not None else (),
        cause=f"{pod.obj.ref}:{'/'.join(map(str, where))}")


def _earlier(obj: KObject, step: tuple[int, int]) -> bool:
    """Whether Argo CD applies ``obj`` in an earlier (phase, wave) than ``step``."""
    theirs = _sync_order(obj.annotations)
    return theirs is not None and theirs < step


def _created_otherwise(model: Model, namespace: KObject) -> bool:
    """Whether namespace ``namespace`` exists before its Applications' sync reaches its wave
    by another way: another object the repository applies creates it. (Not an Application's
    ``CreateNamespace=true``: Argo CD creates the destination namespace in PreSync only when
    the Application's own manifests hold no Namespace of that name, gitops-engine's
    ``autoCreateNamespace``; judge round DL.)"""
    name = namespace.name
    return any(o is not namespace and o.kind == "Namespace" and o.group == "" and o.name == name
               and o.file not in model.unapplied for o in model.objects)


# a semver constraint that admits more than one version (Masterminds/semver, which Helm and
# helm-controller read): wildcards, comparisons, tilde and caret ranges, alternatives
_RANGE = re.compile(r"[xX*^~<>|]|\s-\s|,")


def _floating_charts(model: Model) -> Iterator[Violation]:
    """``chart-floating``: an applied Flux HelmRelease of a HelmRepository's chart whose
    version is a range or missing (judge round DG: digicatapult's `1.x.x` cert-manager and
    `11.x.x` nginx releases, a miss): helm-controller takes the newest chart the range
    admits at each reconciliation."""
    for obj in model.objects:
        if obj.kind != "HelmRelease" or obj.group != "helm.toolkit.fluxcd.io" or (
                obj.file in model.unapplied):
            continue
        spec = obj.get(("spec", "chart", "spec"))
        if not isinstance(spec, dict) or dict_of(spec.get("sourceRef")).get(
                "kind") != "HelmRepository":
            continue
        version = spec.get("version")
        if version is not None and (not isinstance(version, str) or "${" in version or (
                not _RANGE.search(version))):
            continue
        at: Path = ("spec", "chart", "spec", "version") if version is not None else (
            "spec", "chart", "spec", "chart")
        said = f"version {version!r} is a range" if version is not None else (
            "version is not set, so it is '*', any version")
        yield Violation(
            obj, at,
            f"HelmRelease {_named(obj)} installs chart {spec.get('chart')}, whose {said}: "
            "helm-controller installs the newest chart it admits at each reconciliation, "
            "so what the cluster receives changes upstream while this repository stays the "
            "same", kind="chart-floating",
            fix="Pin one version (`version: 1.2.3`), and let a bot (Renovate, Flux's image "
                "automation) propose the next.")


def _applied_twice(model: Model) -> Iterator[Violation]:
    """``applied-twice``: one object (its group, kind, namespace and name) that two Flux
    Kustomizations of one cluster apply with different content
    (outside its labels and annotations): each applies its copy on its own reconcile, so the
    cluster's object flips between them, and pruning either deletes what the other needs
    (new-user trial seventy-nine D5: OCIRepository ai/app-template in the vllm and
    open-webui apps, bumped to 5.0.0 in one; fluxcd/kustomize-controller#732). At the first
    field that differs, in the copy whose file comes later; copies alike, a copy in a build
    that fails, or one holding a variable left unsubstituted are not judged."""
    from reviewbot.model.objects import views_of

    if model.derived.get("reach") is None:
        return
    said: set[tuple[str, tuple[str | int, ...]]] = set()
    for _, view in views_of(model):
        # (an identity of one copy, nearly all, is skipped before its body is read: the
        # `repr` of every object was 1% of JJGadgets-Biohazard's lint)
        for _, copies in sorted((k, c) for k, c in view.by_identity.items() if len(c) > 1):
            live = [o for o in copies if id(o) not in model.unbuilt and o.file not in
                    model.unapplied and not _unseen_text(repr(o.body))]
            if len(live) < 2:
                continue
            live.sort(key=lambda o: (o.file, o.doc.line))
            first, by = live[0], _flux_owners(model, live[0])
            for other in live[1:]:
                theirs = _flux_owners(model, other)
                if not by or not theirs or set(by) & set(theirs):
                    continue
                field = _first_difference(_content(first.body), _content(other.body), ())
                if field is None or (other.file, field) in said:
                    continue
                said.add((other.file, field))
                names = [f"Kustomization {k[1]}/{k[2]}" for k in (*by, *theirs)]
                was, now = dig(first.body, field), dig(other.body, field)
                shown = (f"{format_path(field)} {_short(now)} here, {_short(was)} in "
                         f"{first.file}:{first.position(field)[0]}" if first.file != other.file
                         else f"{format_path(field)} {_short(now)} in the build of "
                         f"{names[-1]}, {_short(was)} in that of {names[0]}")
                yield Violation(
                    other, field,
                    f"{other.kind} {_named(other)} is applied by {names[-1]} and by "
                    f"{names[0]} with different content ({shown}): each applies its copy "
                    "on its own reconcile, so the cluster's object flips between them, and "
                    "pruning either one deletes the object the other needs",
                    fix=(f"Keep one copy of {other.kind} {_named(other)} (in a folder both "
                         "depend on), or make the copies alike."),
                    kind="applied-twice",
                    others=(Violation(first, field, "", kind="applied-twice"),))
                break


def _flux_owners(model: Model, obj: KObject) -> list[tuple[str, str, str]]:
    """The Flux Kustomizations that apply ``obj`` (cluster, namespace, name), none when an
    Argo CD Application applies it too (one Application per environment, each a cluster of
    its own that the tree does not tell apart: judge rounds' kenlasko/k8s, redhat-appstudio's
    overlays) or ``obj`` is one of them (a Kustomization its own path applies, as its parent
    does)."""
    from reviewbot.model.objects import owners

    found = owners(model, obj)
    if any(k.group != "kustomize.toolkit.fluxcd.io" or k.kind != "Kustomization"
           or k.identity == obj.identity for k in found):
        return []
    return list(dict.fromkeys((k.kind, k.namespace or "", k.name) for k in found))


def _unseen_text(text: str) -> bool:
    """Whether an object's text (its ``repr``) holds what reviewbot cannot compare: a
    variable left unsubstituted, or a value SOPS encrypted (``ENC[...]``: the same value
    encrypted twice is two ciphertexts; judge round EH)."""
    return "${" in text or "ENC[AES256_GCM," in text


def _content(body: Mapping[str, Any]) -> dict[str, Any]:
    """``body`` without its labels and annotations (what two appliers' copies may differ in
    without changing what the object does), nor the ``sops`` metadata SOPS adds to a file it
    encrypts, which kustomize-controller removes as it decrypts any kind of object
    (MTRNord/cluster's Namespace, encrypted in one folder only: judge round EH)."""
    meta = {k: v for k, v in dict_of(body.get("metadata")).items()
            if k not in ("labels", "annotations")}
    return {**{k: v for k, v in body.items() if k != "sops"}, "metadata": meta}


def _first_difference(a: Any, b: Any, at: tuple[str | int, ...]
                      ) -> tuple[str | int, ...] | None:
    """The path of the first field where ``a`` and ``b`` differ (in ``b``'s order), or
    None when they are alike."""
    if a == b:
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*b, *(k for k in a if k not in b)]:
            found = _first_difference(a.get(key), b.get(key), (*at, key))
            if found is not None:
                return found if key in b else at
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, (*at, i))
            if found is not None:
                return found
        return None
    if isinstance(a, str) and isinstance(b, str) and _seconds(a) is not None and (
            _seconds(a) == _seconds(b)):
        return None  # (one Go duration written two ways, `1h` and `1h0m0s`: judge round
        # sulibot/home-ops' HelmRepositories)
    return at


_GO_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0,
                 "h": 3600.0}


def _seconds(text: str) -> float | None:
    """A Go duration's seconds (``1h0m0s``: 3600), or None for another text."""
    parts = _GO_DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)


def _short(value: Any) -> str:
    """A value as a message quotes it: a scalar as written, a collection as unset or so."""
    if value is None:
        return "unset"
    if isinstance(value, (dict, list)):
        return "another value"
    return str(value)


def _waits_for_chart(model: Model, owner: KObject, first: str,
                     charts: Mapping[int, Mapping[str, KObject]]) -> bool:
    """Whether Flux Kustomization ``owner`` waits (``dependsOn``, followed through the
    Kustomizations it names) for one that installs a chart whose name starts with ``first``
    (``agentgateway-crds``), or whose build fetches a remote file naming it
    (``.../cert-manager.crds.yaml``, ``.../kyverno.io_clusterpolicies.yaml``: judge round
    DY, Apocrathia/homelab's bootstrap-crds, 14 warnings): kustomize-controller applies
    ``owner`` only once that one is ready, its CRDs with it."""
    graph = model_graph(model)

    def installs(dep: KObject) -> bool:
        if any(chart.startswith(first) for chart in charts.get(id(dep), {})):
            return True
        spec = dep.get(("spec",))
        build = graph.flux_build(dep.file, spec) if isinstance(spec, dict) else None
        return build is not None and any(_names_crds(entry, first) for entry in build.remote)

    by_name: dict[tuple[str, str], list[KObject]] = {}
    for o in model.objects:
        if o.kind == "Kustomization" and o.group == "kustomize.toolkit.fluxcd.io":
            by_name.setdefault((o.namespace or "", o.name), []).append(o)
    seen, todo = {id(owner)}, [owner]
    while todo:
        k = todo.pop()
        for entry in items(k.get(("spec", "dependsOn"))):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            namespace = entry.get("namespace")
            key = (namespace if isinstance(namespace, str) else k.namespace or "",
                   entry["name"])
            for dep in by_name.get(key, ()):
                if id(dep) in seen:
                    continue
                if installs(dep):
                    return True
                seen.add(id(dep))
                todo.append(dep)
    return False


def _names_crds(url: str, first: str) -> bool:
    """Whether a remote entry fetches the CRDs of the group whose first label is ``first``:
    its file names it (``cert-manager.crds.yaml``), or its file names CRDs and a folder of
    its path names it (``.../containeroo/cloudflare-operator/releases/download/v1.10.2/
    crds.yaml``: judge round EE, gi8lino/k8s-gitops' crds Kustomization)."""
    path = url.split("?", 1)[0]
    folders, _, name = path.rpartition("/")
    return first in name or "crd" in name.lower() and first in folders.split("/")


def _crds_of_own_releases(model: Model) -> Iterator[Violation]:
    """``crd-order``: a custom resource a Flux Kustomization applies beside the HelmRelease
    whose chart installs its CRD, no CRD of its kind in the tree (judge round DH:
    samclement/swhurl-platform's ClusterIssuers beside the cert-manager release; its runbook
    works around the first install by hand). The chart installing a group is told by name:
    the group's first label (``cert-manager.io``: ``cert-manager``)."""
    from reviewbot.model.objects import owners

    flux = [o for o in model.objects if o.kind == "HelmRelease"
            and o.group == "helm.toolkit.fluxcd.io"]
    if not flux:
        return
    charts: dict[int, dict[str, KObject]] = {}  # id(owner) -> chart name -> its release
    for release in flux:
        chart = release.get(("spec", "chart", "spec", "chart"))
        if not isinstance(chart, str):
            ref = release.get(("spec", "chartRef", "name"))
            chart = ref if isinstance(ref, str) else None
        if not chart:
            continue
        for owner in owners(model, release):
            if owner.kind == "Kustomization" and owner.group == "kustomize.toolkit.fluxcd.io":
                charts.setdefault(id(owner), {})[chart.rpartition("/")[2]] = release
    if not charts:
        return
    defined = {(str(o.get(("spec", "group")) or ""), str(o.get(("spec", "names", "kind")) or ""))
               for o in model.objects if o.kind == "CustomResourceDefinition"}
    # what a bootstrap installs before Flux (a helmfile's release, a script's `helm install`:
    # onedr0p/home-ops' cilium and cert-manager, billimek's external-secrets CRDs) is there
    boot = [lf.data for path, lf in model.files.items() if "helmfile" in path] + [
        r.data for r in (model.tree.texts if model.tree is not None else ())
        if b"helm" in r.data]
    named = {name for by_name in charts.values() for name in by_name}
    for obj in model.objects:
        group = obj.group
        if "." not in group or group.endswith((".k8s.io", ".fluxcd.io")) or (
                group, obj.kind) in defined:
            continue
        first = group.split(".", 1)[0]
        if first not in named:
            continue  # (no release of the tree installs a chart of that name: no owner asked)
        for owner in owners(model, obj):
            installer = charts.get(id(owner), {}).get(first)
            if installer is None or any(first.encode() in data for data in boot):
                continue
            if _waits_for_chart(model, owner, first, charts):
                continue  # (judge round DU: Aviator-Coding/home-ops' agentgateway waits for
                # agentgateway-crds, whose release installs the CRDs first)
            message = (
                f"{obj.kind} {_named(obj)} is a {group} object in the same Flux "
                f"Kustomization ({_named(owner)}) as HelmRelease "
                f"{_named(installer)}, whose chart installs its CRD: on a new cluster "
                "kustomize-controller's dry-run of the whole Kustomization fails (\"no "
                f"matches for kind {obj.kind}\") before the release exists, so nothing of "
                "it is applied, the release included")
            fix = (f"Move the {group} objects to a Flux Kustomization that dependsOn "
                   f"{_named(owner)} (which waits for the release: `wait: true`), or "
                   "install the CRDs apart first.")
            yield Violation(
                obj, ("kind",), message,
                kind="crd-order", cause=f"{_named(owner)} {_named(installer)} CRDs",
                doubt=(f"whether the cluster already has the {obj.kind} CRD (then only a new "
                       "cluster's first install is stuck)"),
                fix=fix, others=_listing_entry(model, obj.file, message, fix, "crd-order"))
            break


def _listing_entry(model: Model, file: str, message: str, fix: str, kind: str
                   ) -> tuple[Violation, ...]:
    """The ``resources`` entry of the kustomization of ``file``'s folder that lists it, as a
    finding's other place: where a review comments when the change moved the file there
    (new-user trial eighty-nine D6: a ClusterIssuer moved beside the cert-manager release,
    its lines no part of the diff, no inline comment)."""
    graph = model_graph(model)
    k = graph.by_dir.get(posixpath.dirname(file))
    if k is None:
        return ()
    return tuple(_at(k, e.path, message, kind, e.value, (), fix) for e in graph.entries(k)
                 if e.field == "resources" and join(k.directory, e.value.strip()) == file)[:1]


def _named(obj: KObject) -> str:
    """``namespace/name`` of an object (its name alone without a namespace)."""
    return f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name


def _namespace_of(body: Mapping[str, Any]) -> str:
    """The namespace a build writes on an object ("" for none)."""
    return str(dict_of(body.get("metadata")).get("namespace") or "")


def _generated_refusal(model: Model, file: str) -> str:
    """What a refused file of a generated folder stops: the Flux Kustomizations that apply
    it apply nothing of their build, and prune nothing, until it is fixed."""
    who = applier_names(model, appliers(model).get(file, ()))
    if not who:
        return "nothing of the folder is applied"
    more = f" and {len(who) - 2} more" if len(who) > 2 else ""
    return (f"so {' and '.join(who[:2])}{more} appl{'ies' if len(who) == 1 else 'y'} "
            "nothing of it until the file is moved or fixed")


def _wrong_kind(k: Kustomization, path: Path, text: str, component: bool) -> Violation:
    """A ``resources`` folder holding a kustomize Component, or a ``components`` folder
    holding a Kustomization: kustomize refuses the whole build."""
    line, column = k.doc.position(path)
    wrong = f"{_label(path)}: {text!r} {REFUSED['component' if component else 'kustomization']}"
    if component:
        message = (f"{wrong}; kustomize refuses the whole build (\"expected kind != "
                   "'Component'\")")
        fix = f"Move {text!r} from `{path[0]}:` to `components:`."
    else:
        message = (f"{wrong}; kustomize refuses the whole build (\"expected kind 'Component' "
                   "... but got 'Kustomization'\")")
        fix = (f"Move {text!r} to `resources:`, or make it a Component "
               "(`apiVersion: kustomize.config.k8s.io/v1alpha1`, `kind: Component`).")
    return Violation(None, path, message, kind="invalid", file=k.file, line=line, column=column,
                     key=f"{k.file}:{path[0]}:{text}:kind", fix=fix)


# what a bare-string patch's finding could not see when Argo CD builds the kustomization
ARGO_KUSTOMIZE = ("which kustomize the Argo CD that builds it runs: v5 (Argo CD 2.7 and "
                  "later) refuses a bare string, v4 (before 2.7) reads it as a strategic "
                  "merge patch")


def _bare_patches(k: Kustomization, referenced: set[str],
                  model: Model) -> Iterator[Violation]:
    """``patches: [patch.yaml]``: kustomize v5 cannot read the kustomization at all (Flux's
    kustomize-controller, kubectl 1.27 and later); kustomize v3 and v4 read the bare strings
    as ``patchesStrategicMerge`` (their legacy fix-up), so where only Argo CD Applications
    build it, which kustomize does is not known (operate-first/apps' Argo CD 2.1 builds
    them; judge round AQ)."""
    items = _list(k.body.get("patches"))
    if not any(isinstance(item, str) for item in items):
        return
    by = appliers(model).get(k.file, [])
    doubt = ARGO_KUSTOMIZE if by and all(o.kind == "Application" and o.group == ARGO_GROUP
                                         for o in by) else None
    for i, item in enumerate(items):
        if not isinstance(item, str):
            continue
        text = item.strip()
        if "\n" not in text and not is_remote(text):
            referenced.add(join(k.directory, text))
        line, column = k.doc.position(("patches", i))
        yield Violation(
            None, ("patches", i),
            f"patches[{i}]: {text.splitlines()[0] if text else item!r} is a bare string; "
            "kustomize v5 refuses the whole kustomization (a patch is an object with path: "
            "or patch:)", kind="invalid", file=k.file, line=line, column=column,
            key=f"{k.file}:patches[{i}]:bare", doubt=doubt,
            fix=f"Write it as `- path: {text}` (or list it under patchesStrategicMerge).",
        )


def _unparsed_patches(k: Kustomization, model: Model) -> Iterator[Violation]:
    """An inline patch whose text does not parse as YAML (:func:`~reviewbot.model.resource.
    unparsed_patches`): kustomize refuses the whole build ("unable to parse SM or JSON
    patch"), so whoever applies it applies nothing of it (judge round CU: kenlasko/k8s'
    lab patches, a bare scalar where `value:` belonged, were dropped without a word, and
    the builds' unrenamed copies made a phantom duplicate at another file)."""
    for at, why in unparsed_patches(k.body):
        line, column = k.doc.position(at)
        yield Violation(
            None, at, f"{at[0]}[{at[1]}].patch does not parse ({why}); "
            f"{_refused(model, k, appliers(model).get(k.file, ()))}", kind="invalid",
            file=k.file, line=line, column=column, key=f"{k.file}:{at[0]}[{at[1]}]:unparsed",
            fix="Write the patch as YAML: a JSON 6902 operation's value under `value:`.")


# What kustomize's Kustomization type reads each field as: a wrong type makes it refuse the
# whole kustomization ("cannot unmarshal number into Go struct field").
_STRINGS = ("list of strings", list, str)
_OBJECTS = ("list of mappings", list, dict)
_FIELDS: dict[str, tuple[str, type, type | None]] = {
    **{key: _STRINGS for key in ("resources", "bases", "components", "crds", "configurations",
                                 "generators", "transformers", "validators",
                                 "patchesStrategicMerge", "buildMetadata")},
    **{key: _OBJECTS for key in ("patchesJson6902", "replacements", "configMapGenerator",
                                 "secretGenerator", "helmCharts", "images", "replicas",
                                 "labels", "vars")},
    "patches": ("list", list, None),  # a bare string item is _bare_patches' finding
    **{key: ("mapping", dict, None) for key in ("commonLabels", "commonAnnotations",
                                                 "generatorOptions", "helmGlobals", "openapi",
                                                 "sortOptions")},
    **{key: ("string", str, None) for key in ("namespace", "namePrefix", "nameSuffix")},
}
_GENERATOR_FIELDS: dict[str, tuple[str, type, type | None]] = {
    "files": _STRINGS, "envs": _STRINGS, "literals": _STRINGS, "env": ("string", str, None),
    "name": ("string", str, None), "namespace": ("string", str, None),
}
_CHART_FIELDS: dict[str, tuple[str, type, type | None]] = {
    "name": ("string", str, None), "valuesFile": ("string", str, None),
    "additionalValuesFiles": _STRINGS, "valuesInline": ("mapping", dict, None),
}
_TYPE_NAMES = {bool: "a boolean", int: "a number", float: "a number", str: "a string",
               list: "a list", dict: "a mapping"}


def _wrong_types(k: Kustomization) -> Iterator[Violation]:
    """A field of the wrong type (``resources: 5``, ``helmCharts: 1``, a generator's
    ``files: 5``): kustomize refuses the whole kustomization. Values are never quoted
    (a secretGenerator literal is a secret)."""
    yield from _typed(k, (), k.body, _FIELDS)
    for key, fields in (("configMapGenerator", _GENERATOR_FIELDS),
                        ("secretGenerator", _GENERATOR_FIELDS), ("helmCharts", _CHART_FIELDS)):
        for i, item in enumerate(_list(k.body.get(key))):
            if isinstance(item, dict):
                yield from _typed(k, (key, i), item, fields)


def _typed(k: Kustomization, where: Path, body: Mapping[str, Any],
           fields: Mapping[str, tuple[str, type, type | None]]) -> Iterator[Violation]:
    for key in [key for key in fields if key in body]:  # (in the fields' order)
        value = body[key]
        if value is None:
            continue  # empty (`resources:`): kustomize reads nothing
        expected, outer, inner = fields[key]
        path: Path = (*where, key)
        if not isinstance(value, outer) or (outer is str and isinstance(value, bool)):
            yield _invalid(k, path, f"a {expected} is expected, not {_type_name(value)}")
            continue
        if inner is None or not isinstance(value, list):
            continue
        for i, item in enumerate(value):
            if not isinstance(item, inner):
                yield _invalid(k, (*path, i), f"an item of a {expected} is "
                               f"{_type_name(item)}")
                break  # one finding a field: kustomize stops at the first


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _invalid(k: Kustomization, path: Path, what: str) -> Violation:
    line, column = k.doc.position(path)
    return Violation(
        None, path, f"{_label(path)}: {what}; kustomize refuses the whole kustomization",
        kind="invalid", file=k.file, line=line, column=column, key=f"{k.file}:{_label(path)}:type",
        fix=f"Write {_label(path)} as kustomize expects it (see the kustomization reference).",
    )


def _label(path: Path) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else ("." if out else "") + step
    return out


# branch names a remote names instead of a tag or a commit
_BRANCHES = frozenset({"main", "master", "head", "develop", "development", "trunk", "dev"})
_RELEASE_LATEST = re.compile(r"^https?://github\.com/([^/]+/[^/]+)/releases/latest/download/(.+)$")
_RAW = re.compile(r"^https?://raw\.githubusercontent\.com/[^/]+/[^/]+/(?:refs/heads/)?([^/]+)/")


def _floating_remotes(k: Kustomization, graph: Graph) -> Iterator[Violation]:
    """``remote-floating``: a remote entry of ``k`` that names no fixed version (a release's
    `latest`, a branch, a git remote without ``?ref=``): what kustomize fetches changes
    upstream (judge round DF: Tim275/talos-homelab's metrics-server base, the latest
    release's components.yaml)."""
    for entry in graph.entries(k):
        if entry.field not in ("resources", "bases", "components") or not is_remote(
                entry.value):
            continue
        text = entry.value.strip()
        why = _floats(text)
        if why is None:
            continue
        found = _RELEASE_LATEST.match(text)
        fix = (f"Pin a release: https://github.com/{found.group(1)}/releases/download/<tag>/"
               f"{found.group(2)}." if found is not None else
               "Pin a tag or a commit (`?ref=v1.2.3`, a commit's sha in the URL).")
        yield _at(k, entry.path, f"{_label(entry.path)}: {text} {why}, so what the cluster "
                  "receives changes upstream while this repository stays the same",
                  "remote-floating", text, (), fix=fix)


def _floats(url: str) -> str | None:
    """Why the remote ``url`` names no fixed version, or None (a tag, a commit, or a URL of
    another shape, whose pinning is not known)."""
    if _RELEASE_LATEST.match(url):
        return "is the latest release's asset"
    if (raw := _RAW.match(url)) is not None:
        return (f"reads branch {raw.group(1)}" if raw.group(1).lower() in _BRANCHES
                else None)
    base, _, query = url.partition("?")
    if base.endswith((".yaml", ".yml", ".json")) or base.startswith(("oci://", "http://")) or (
            base.startswith("https://") and "github.com/" not in base
            and "gitlab.com/" not in base and ".git" not in base):
        return None  # (a file of a web server, an OCI artifact: pinned or not, not known)
    params = dict(p.partition("=")[::2] for p in query.split("&") if p)
    ref = params.get("ref") or params.get("version")
    if not ref:
        return "names no `?ref=`: the default branch"
    return f"reads branch {ref}" if ref.lower() in _BRANCHES else None


def _at(k: Kustomization, path: Path, message: str, kind: str, entry: str,
        edits: tuple[Edit, ...], fix: str) -> Violation:
    line, column = k.doc.position(path)
    return Violation(None, path, message, kind=kind, file=k.file, line=line, column=column,
                     # the field and the entry, not its index: an entry inserted above
                     # leaves the finding the same one (a review keeps it existing)
                     key=f"{k.file}:{path[0]}:{entry}", fix=fix, edits=edits)


# ---------------------------------------------------------------- manifests nobody lists


class _Where(TypedDict, total=False):
    """Where a finding about a file without a parsed object is: Violation's own fields."""

    file: str
    line: int
    column: int
    key: str


def _unreachable(
    kustomize: list[Kustomization], graph: Graph,
    objects_by_file: Mapping[str, list[KObject | None]], referenced: set[str], told: set[str],
    lines: Mapping[str, int], patch_owner: Mapping[str, Kustomization],
    applied: Mapping[tuple[str, str], KObject],
) -> Iterator[Violation]:
    by_folder = {k.directory: k for k in kustomize}
    commented: dict[str, tuple[Kustomization, int, str]] = {}
    k: Kustomization | None  # (below, the folder's: none when no kustomization is there)
    for k in kustomize:
        for entry in graph.commented(k):  # the builder's, once per parsed file
            commented.setdefault(entry.target, (k, entry.line, entry.field))
    patches = {f for k in kustomize for f in patch_files(k)}
    # kustomization file -> (it, the files below it that none lists): said one by one, or
    # as one catalog (:func:`_catalog`)
    catalog: dict[str, tuple[Kustomization, list[Violation]]] = {}
    for target, (k, line, section) in sorted(commented.items()):
        if target in referenced or target not in graph.files and target not in graph.dirs:
            continue
        told.add(target)
        name = target.rpartition("/")[2]
        yield Violation(
            None, (), f"{name} is commented out at line {line} of {posixpath.basename(k.file)} "
            f"({section}), so it is not applied", kind="commented", file=k.file, line=line,
            column=1, key=f"{k.file}:commented:{target}",
            fix=f"Uncomment the entry to apply {name}, or delete the "
                f"{'folder' if target in graph.dirs and target not in graph.files else 'file'}.",
        )
    for file in sorted(objects_by_file):
        folder = posixpath.dirname(file)
        k = by_folder.get(folder)
        owner = patch_owner.get(folder) if k is None else None
        above = unlisted_below(graph, file) if k is None and owner is None else None
        if above is not None and file not in lines:
            above = None  # (below a kustomization no build applies: its folder is said)
        if k is None and owner is None and above is None or file in referenced or (
                posixpath.basename(file) in KUSTOMIZATION_FILES):
            continue
        if file in commented or file in patches:
            continue
        if above is not None:  # in a folder below a kustomization, listed by none (judge
            # round DR: kubebuilder's config/crd/patches/, whose patches its kustomization's
            # scaffold has not enabled, read as CRDs missing four fields)
            if graph.applied_by(file) is not None or _applied_by_commented(
                    graph, folder, commented) or kept_aside(file):
                continue  # (a template a tool fills in, `x.tpl.yaml`: judge round DZ's
                # envsubst inputs of accelerated-platforms, 8 warnings)
            told.add(file)
            name = posixpath.basename(file)
            below = posixpath.relpath(folder, above.directory or ".")
            catalog.setdefault(above.file, (above, []))[1].append(Violation(
                None, (), f"{name} is in {below}/, below {above.file}, but listed by no "
                "kustomization, so it is never applied (kustomize reads what a kustomization "
                "names)", kind="unreachable", file=file, line=lines.get(file, 1), column=1,
                key=f"{file}:unlisted",
                fix=f"List {below}/{name} in {above.file} (as a resource, or as a patch if it "
                    "is one), or delete it.",
            ))
            continue
        if k is None:  # a folder of another kustomization's patches
            assert owner is not None
            told.add(file)
            name = posixpath.basename(file)
            yield Violation(
                None, (), f"{name} is in {posixpath.relpath(folder, owner.directory or '.')}"
                f"/, which holds {owner.file}'s patches, but no kustomization names it, so it "
                "is never applied", kind="unreachable", file=file, line=lines.get(file, 1),
                column=1, key=f"{file}:unlisted",
                fix=f"Add {name} to the patches of {owner.file}, or delete it.",
            )
            continue
        first = objects_by_file[file][0]
        at: _Where = {} if first is not None else {"file": file, "line": lines.get(file, 1),
                                           "column": 1, "key": f"{file}:unlisted"}
        told.add(file)
        name = posixpath.basename(file)
        script = graph.applied_by(file)
        if script is not None:
            yield Violation(
                first, (), f"{name} is listed by no kustomization; {script} applies it "
                "(kubectl apply -f)", kind="applied-by-script",
                fix=f"Keep {script} in step with {name}, or list it in {k.file}.", **at,
            )
            continue
        # listing it changes what the cluster receives (a file left out on purpose, stale
        # objects): an unsafe edit, applied only with --unsafe-fixes; none when another file
        # applies its objects already (a copy: listing it would apply them twice)
        copy = _copy_of(graph, file, applied, k.body.get("namespace"))
        own = copy is None and _applies_its_folder(graph, file)
        yield Violation(
            first, (), f"{name} is beside {posixpath.basename(k.file)} but listed by no "
            "kustomization, so it is never applied", kind="unreachable", **at,
            fix=(f"Delete it, or list it under `patches:` if it is meant to patch "
                 f"{copy.kind} {copy.name}, which is applied from {copy.file} (listed as a "
                 "resource, it would be applied twice)." if copy is not None else
                 f"Apply it from the cluster's entry, outside {folder}/, or delete it: its "
                 "Flux Kustomization applies this folder, so listed here it would apply "
                 "itself." if own else
                 f"Add {name} to the resources of {k.file}, or delete it."),
            edits=(Edit(k.file, ("resources",), "append", _as_neighbours(k, name),
                        k.doc.index, unsafe=True),)
            if k.flux is None and copy is None and not own else (),
        )
    for above, found in catalog.values():
        yield from _catalog(above, found)


# files below one kustomization that none lists, from which they are read as one catalog
CATALOG_MIN = 10


def _catalog(above: Kustomization, found: Sequence[Violation]) -> Iterator[Violation]:
    """The files below ``above`` that no kustomization lists (``found``: each one's finding):
    each said, or from :data:`CATALOG_MIN` on, one finding at the kustomization's
    ``resources`` that names the first three and counts the rest: so many files of a tree
    left out of the build it lists others of are a catalog a user applies one by one, or
    a choice made once, not one forgotten entry each (judge round EF: sgl-project/ome's
    `config/models/`, 86 models listed and 122 opt-in ones, 288 warnings)."""
    if len(found) < CATALOG_MIN:
        yield from found
        return
    names = [posixpath.relpath(v.file or "", above.directory or ".") for v in found]
    where = ("resources",) if isinstance(above.body.get("resources"), list) else ()
    line, column = above.doc.position(where)
    yield Violation(
        None, where, f"{len(names)} files below {above.file} are listed by no kustomization, "
        f"so none of them is applied: {', '.join(names[:3])} and {len(names) - 3} more "
        "(kustomize reads what a kustomization names)", kind="unreachable", file=above.file,
        line=line, column=column, key=f"{above.file}:unlisted-below",
        fix=f"List those meant for the cluster in {above.file}; if they are a catalog "
            "applied one by one, write `# reviewbot: ignore[kustomize-integrity] a catalog` "
            "above its `resources:`.")


def _applies_its_folder(graph: Graph, file: str) -> bool:
    """Whether ``file`` holds a Flux Kustomization whose ``spec.path`` is the folder the
    file is in (monosense-io/k8s-gitops' kafka/ks.yaml: listing it in that folder's
    kustomization would make it apply itself; judge round AP)."""
    folder = posixpath.dirname(file)
    for r in graph.objects_of(file):
        body = r.body
        if body.get("kind") == "Kustomization" and str(body.get("apiVersion", "")).startswith(
                "kustomize.toolkit.fluxcd.io/"):
            path = dict_of(body.get("spec")).get("path")
            if isinstance(path, str) and flux_rel(path) == folder:
                return True
    return False


def _applied_by_commented(graph: Graph, folder: str, commented: Collection[str]) -> bool:
    """Whether ``folder`` is (or is below) the path of a Flux Kustomization or Argo CD
    Application whose file a kustomization comments out: that entry is why it is not
    applied, not a listing it lacks (judge round DX: argoflow's `# - argocd-applications/
    mlflow.yaml`, angelnu's `# - ks.yaml`, 11 warnings to list the app's files in the
    kustomization above them)."""
    for target in commented:
        for r in graph.objects_of(target) if target in graph.files else ():
            body = r.body
            api = str(body.get("apiVersion", ""))
            if body.get("kind") == "Kustomization" and api.startswith("kustomize.toolkit"):
                paths = [dict_of(body.get("spec")).get("path")]
            elif body.get("kind") in ("Application", "ApplicationSet") and api.startswith(
                    "argoproj.io/"):
                spec = dict_of(body.get("spec"))
                if body.get("kind") == "ApplicationSet":
                    spec = dict_of(dict_of(spec.get("template")).get("spec"))
                paths = [source.get("path") for _, source in argo_sources(spec)]
            else:
                continue
            for path in paths:
                if isinstance(path, str) and "{{" not in path and "${" not in path and (
                        (rel := flux_rel(path)) == folder or folder.startswith(rel + "/")
                        and rel):
                    return True
    return False


def _copy_of(graph: Graph, file: str, applied: Mapping[tuple[str, str], KObject],
             namespace: Any) -> KObject | None:
    """An object another file applies under the kind, name and namespace (its own, else
    the kustomization's ``namespace``, else any) of each object of ``file`` (the first), or
    None when one of them is applied from nowhere else."""
    found = None
    for r in graph.objects_of(file):
        if not is_object(r.body):
            continue
        meta = r.body.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        other = applied.get((str(r.body.get("kind")), str(meta.get("name"))))
        ns = namespace if isinstance(namespace, str) and namespace else meta.get("namespace")
        if other is None or other.file == file or (
                isinstance(ns, str) and ns and ns != other.namespace):
            return None
        found = found or other
    return found


def _as_neighbours(k: Kustomization, name: str) -> str:
    """``name`` as the kustomization's resources are written: ``./name`` when every one
    of them starts with ``./``."""
    written = [e for e in _list(k.body.get("resources")) if isinstance(e, str)]
    return f"./{name}" if written and all(e.startswith("./") for e in written) else name


def _not_applied(model: Model, told: set[str], targets: _FluxPaths) -> Iterator[Violation]:
    """One info per folder of manifests no cluster root applies (files said above aside);
    one a missing ``spec.path`` most likely means (:func:`near_path`) says so, and that
    the fix is the path, not the folder's deletion (new-user trial twenty-three)."""
    unapplied = sorted(model.unapplied)
    harness = harness_inputs(model)
    graph = model_graph(model)
    meant = [(obj, path, near, folder) for obj, path, near in targets.missing
             if near and (folder := graph.flux_folder(obj.file, near)) is not None]
    for folder in unapplied_folders(model):
        # the files under folder/ are one run of the sorted list ("0" follows "/")
        below = unapplied[bisect_left(unapplied, folder + "/"):bisect_left(unapplied, folder + "0")]
        files = [f for f in ([folder] if folder in model.unapplied else []) + below
                 if not _said(f, told) and _holds_objects(model, f)
                 and not (f in harness and harness[f].file == f)]  # (a harness's own file)
        if not files:
            continue
        count = f"{len(files)} manifest file" + ("s" if len(files) > 1 else "")
        what = "is" if files == [folder] else f"({count}) is"
        ci = unapplied_by_ci(model, files[0])
        within = model.tree.within if model.tree is not None else ""
        reach = model.derived.get("reach")
        terraform = read_by_terraform(files[0], model.derived.get("terraform-reads") or {})
        copier = model_graph(model).copied_by(files[0])
        why = (f"{NOT_APPLIED}: {terraform} reads it, and Terraform applies it, if at all "
               "(reviewbot does not evaluate Terraform)" if terraform is not None
               else f"not applied where it is (a template {copier} copies to make the "
                    "folders it applies: cp -R)" if copier is not None
               else NOT_APPLIED + _unseen(reach.unevaluated) if reach is not None
               else f"not applied ({ci})" if ci is not None and not kept_aside(files[0], within)
               else f"not applied (test inputs of {fed})"
               if (fed := harness_inputs(model).get(files[0])) is not None
               and not kept_aside(files[0], within)
               else "not applied (a kustomize Component that no kustomization includes)"
               if unincluded_component(model, folder) is not None
               else (f"not applied (a base in {posixpath.dirname(base)}/ that no kustomization "
                     "includes, where overlays include the bases beside it)")
               if (base := unused_base(model, folder)) is not None
               else (f"not applied (an older release: {older[release]} is the newest beside "
                     f"{posixpath.basename(release)})")
               if aside_why(files[0], within) is None and (release := in_older_release(
                   files[0], older := older_releases(graph.dirs))) is not None
               else f"kept aside ({aside_why(files[0], within) or 'an archive or hidden folder'} "
                    "no build reads)")
        typo = next(((obj, path, near) for obj, path, near, at in meant if why.startswith(
            NOT_APPLIED) and (at == folder or folder.startswith(at + "/")
                              or at.startswith(folder + "/"))), None)
        if typo is not None:
            obj, path, near = typo
            yield Violation(
                None, (), f"{folder} {what} {why}, so nothing in it is judged; Kustomization "
                f"{obj.namespace}/{obj.name} ({obj.file}) names {path!r}, which does not "
                f"exist, most likely meaning {near!r}", kind="not-applied", file=files[0], line=1,
                column=1, key=f"{folder}:not-applied",
                fix=f"Point spec.path of Kustomization {obj.namespace}/{obj.name} at {near!r} "
                    "if it is meant; keep the folder.")
            continue
        yield Violation(
            None, (), f"{folder} {what} {why}, so nothing in it is judged",
            kind="not-applied", file=files[0], line=1, column=1,
            key=f"{folder}:not-applied",
            fix=("Add the Component to the `components:` of a kustomization a cluster builds, "
                 "or delete it if it is kept for reference."
                 if why.startswith("not applied (a kustomize Component") else
                 "Nothing to do if it is kept for tests, documentation or reference; if a "
                 "cluster should receive it, move it out and list it where a cluster's root "
                 "builds it." if why.startswith(("kept aside", "not applied (test inputs",
                                                  "not applied (a base in",
                                                  "not applied where it is"))
                 else "Nothing to do if Terraform applies it; lint what it renders, or list it "
                 "where a cluster's root builds it." if terraform is not None else
                 "List it where a cluster's Flux Kustomization or Argo CD Application builds "
                 "it, or delete it if it is kept for reference."),
        )


def _unseen(appsets: Sequence[tuple[str, str, tuple[str, ...]]]) -> str:
    """What the roots may apply that reviewbot cannot see: the Applications of
    ApplicationSets whose generators it does not evaluate (the first named)."""
    if not appsets:
        return ""
    file, name, kinds = appsets[0]
    more = f", and {len(appsets) - 1} more such" if len(appsets) > 1 else ""
    if kinds == (TEMPLATED,):  # an app-of-apps chart's template
        return (f" reviewbot follows (the chart template {file} declares Argo CD "
                f"Applications or Flux Kustomizations, and reviewbot renders no chart{more}: "
                "they may apply it)")
    if kinds == (UNMATCHED_CLUSTERS,):  # (evaluated: new-user trial seventy read "which
        # reviewbot does not evaluate" beside its verdict that two clusters lose the app)
        return (f" reviewbot follows (ApplicationSet {name} in {file} makes Applications with "
                f"a clusters generator that selects none of this repository's cluster "
                f"Secrets{more}: clusters registered elsewhere may apply it)")
    generators = " and ".join(k for k in kinds if k != TEMPLATE_PATCH)
    how = " and ".join(([f"with a {generators} generator"] if generators else []) + (
        ["through a templatePatch"] if TEMPLATE_PATCH in kinds else []))
    return (f" reviewbot follows (ApplicationSet {name} in {file} makes Applications {how}, "
            f"which reviewbot does not evaluate{more}: they may apply it)")


def _said(file: str, told: set[str]) -> bool:
    """Whether ``file`` (or a folder holding it) had its own finding above."""
    return file in told or any(file.startswith(t + "/") for t in told)


def _holds_objects(model: Model, file: str) -> bool:
    lf = model.files.get(file)
    return lf is not None and any(is_object(d.value) for d in lf.documents)


# ---------------------------------------------------------------- duplicates


# kustomize's resource id: group, version, kind, namespace, name (two versions of one kind are
# two ids to kustomize, which builds both: opentelemetry-operator's config/samples)
Identity = tuple[str, str, str, str, str]


class _Duplicates:
    """Duplicate objects in what the builds make, each pair reported once. A resource is
    looked up once (its object, whether kustomize built it, its identity): a folder's
    resources are in its parents' builds too (hmcts-sds-flux-config: 2,925 resources met,
    1,617 distinct)."""

    def __init__(self, model: Model) -> None:
        self.objects: dict[tuple[int, Path], KObject] = {}
        for obj in model.objects:
            self.objects.setdefault((id(obj.doc), obj.path), obj)
        self.reported: set[frozenset[tuple[int, Path]]] = set()
        # id(resource) -> (the resource, its (document, path), its identity; None: not judged)
        self._met: dict[int, tuple[Resource, tuple[int, Path], Identity | None]] = {}

    def twin(self, obj: KObject) -> KObject | None:
        """The other object of a duplicate pair reported with ``obj``, or None (judge round
        ED: DecentM/fleet-infra's second `flux-system/apps`, whose missing path was said
        certain though kustomize refuses the build that makes it)."""
        at = (id(obj.doc), obj.path)
        for pair in self.reported:
            if at in pair:
                other = next((p for p in pair if p != at), None)
                return self.objects.get(other) if other is not None else None
        return None

    def _facts(self, r: Resource) -> tuple[tuple[int, Path], Identity | None]:
        found = self._met.get(id(r))
        if found is not None and found[0] is r:
            return found[1], found[2]
        where = (id(r.doc), r.path)
        mine = self.objects.get(where)
        # --render: kustomize built it, and refuses duplicates itself
        identity = None if mine is not None and RENDERED in mine.annotations else (
            _kustomize_id(r))
        self._met[id(r)] = (r, where, identity)
        return where, identity

    def find(self, resources: Iterable[Resource], where: str, build: Build | None = None
             ) -> Iterator[Violation]:
        """Duplicates among ``resources``, what ``build`` makes (when it runs kustomize
        plugins, which reviewbot does not: they may rename or move the objects, so a
        duplicate is not certain)."""
        doubt = PLUGINS_DOUBT if build is not None and build.plugins else None
        objects, met = self.objects, self._met
        first: dict[Identity, tuple[Resource, tuple[int, Path]]] = {}
        for r in resources:
            if r.doc is None:
                continue
            known = met.get(id(r))  # most resources are met again (their parents' builds)
            at, key = (known[1], known[2]) if known is not None and known[0] is r else (
                self._facts(r))
            if key is None:
                continue
            other = first.get(key)
            if other is None:
                first[key] = (r, at)
                continue
            a, b = objects.get(other[1]), objects.get(at)
            if a is None or b is None:
                continue
            pair = frozenset({other[1], at})
            if pair in self.reported:
                continue
            self.reported.add(pair)
            line, _ = a.position(())
            same = other[0].doc is r.doc and other[0].path == r.path
            what = "twice" if same else f"again (first in {a.file}:{line})"
            _, _, kind, ns, name = key
            ns = b.namespace or ns  # (as the cluster gets it: an Application's destination
            # namespace, after the build; new-user trial twelve: "ConfigMap/default/..." of
            # an object the same line calls ConfigMap/batch/...)
            ident = f"{kind}/{ns}/{name}" if ns else f"{kind}/{name}"
            yield Violation(
                b, ("metadata", "name"),
                f"{ident} is built {what} by {where}; kustomize refuses duplicate objects",
                kind="duplicate", doubt=doubt,
                fix="Remove one of the two, or give them different names or namespaces.",
            )


def _kustomize_id(r: Resource) -> Identity:
    """kustomize's resource id (resid.ResId: its EffectiveNamespace): the namespace as the
    object holds it, ``default`` when it holds none, except of the kinds kustomize itself
    takes for cluster-scoped (kyaml's list: a custom resource is namespaced to it, as a
    ClusterIssuer is, so two of one name in two namespaces build; judge round DG)."""
    from reviewbot.model.fieldspecs import cluster_scoped

    group, kind, _, name = r.identity
    api = str(r.body.get("apiVersion") or "")
    meta = r.body.get("metadata")
    ns = "" if cluster_scoped(api, kind) else str(
        (meta.get("namespace") if isinstance(meta, dict) else None) or "default")
    return group, api.rpartition("/")[2], kind, ns, name


def _duplicates_below(
    graph: Graph, folder: str, duplicates: _Duplicates, duplicate_in: set[str], done: set[str],
) -> Iterator[Violation]:
    """Duplicates in what ``folder`` builds, innermost kustomization first; each folder
    once per run (``done``: a diamond of includes is walked once, not once per path)."""
    stack: list[tuple[str, bool]] = [(folder, False)]
    visiting: set[str] = set()  # expanded, not done: a cycle back to one is cut
    while stack:
        current, expanded = stack.pop()
        if current in done or (not expanded and current in visiting):
            continue
        if not expanded:
            visiting.add(current)
            stack.append((current, True))
            stack.extend((c, False) for c in reversed(list(graph.children(current)))
                         if c in graph.by_dir and c not in done and c not in visiting)
            continue
        done.add(current)
        where = graph.by_dir[current].file
        build = graph.build(current)
        if any((k := graph.by_dir.get(f)) is not None and unparsed_patches(k.body)
               for f in build.reads):
            continue  # (a patch kustomize cannot parse refuses the build, which that says:
            # what it holds without the patch is no build's, judge round CU's phantom twin)
        found = list(duplicates.find(build.resources, where, build))
        if found:
            duplicate_in.add(current)
        yield from found


# ---------------------------------------------------------------- patches


def _unmatched_patches(kustomize: Iterable[Kustomization], graph: Graph,
                       model: Model) -> Iterator[Violation]:
    """A strategic merge patch without a target whose object the build does not hold:
    kustomize refuses the build (model.objects.refusing_patches says which are judged), and
    what applies it applies nothing of it (said as for a missing entry: new-user trial
    twenty-nine's message named no consequence)."""
    for k in kustomize:
        for found in refusing_patches(graph, k):
            if found.refused is not None:
                yield _refused_operation(model, k, found)
                continue
            body = found.patch.body
            meta = body.get("metadata") or {}
            kind, name, ns = body.get("kind"), meta.get("name"), meta.get("namespace")
            what = f"{kind} {ns}/{name}" if ns else f"{kind} {name}"
            entry = patch_entry_text(k, found.entry)
            uses = sorted({b.folder for b, _ in component_builds(graph, k.directory)}) if (
                k.is_component) else []
            held = (f"; {'the first' if uses else 'it'} holds {kind} "
                    + ", ".join(found.held[:3])
                    + (f" and {len(found.held) - 3} more" if len(found.held) > 3 else "")
                    if found.held else f"; {'the first' if uses else 'it'} holds no {kind}")
            whose = (f"no build that applies this Component holds ({_folders(uses)})" if uses
                     else "this build does not hold")
            yield _refused_patch(
                model, k, found, f"{entry} patches {what}, which {whose}{held} (kustomize: "
                f"no matches for Id {found.kustomize_id()})",
                f"{what}:unmatched", _unmatched_fix(k, what, name, found.held))


def _refused_patch(model: Model, k: Kustomization, found: Unmatched, said: str, key: str,
                   fix: str) -> Violation:
    """The finding of a patch entry of ``k`` kustomize refuses (``said``: what of it, as the
    message says it), at the entry, with what the refusal stops."""
    line, column = k.doc.position(found.entry)
    return Violation(
        None, found.entry,
        f"{_label(found.entry)}: {said}; "
        f"{_refused(model, k, appliers(model).get(k.file, ())).replace('entry', 'patch')}",
        kind="missing", file=k.file, line=line, column=column,
        key=f"{k.file}:{_label(found.entry)}:{key}", fix=fix)


def _refused_operation(model: Model, k: Kustomization, found: Unmatched) -> Violation:
    """A JSON 6902 patch an operation of which does not apply to an object it targets (a
    path whose parent the object lacks, a key to remove it does not hold): kustomize refuses
    the build (new-user trial fifty-three: a toleration appended to the tolerations a base
    no longer has: "add operation does not apply: doc is missing path")."""
    entry = patch_entry_text(k, found.entry)
    what, _, where = found.refused.partition(" ") if found.refused else ("", "", "")
    if found.said:  # an operation not whole, or a test that fails
        return _refused_patch(
            model, k, found, f"{entry}'s {_unwhole(what, where)} (kustomize: "
            f"\"{found.said}\")", "refused", _unwhole_fix(what, where))
    path = where.partition(" (")[0]
    lacks = found.lacks if found.lacks and found.lacks != path else ""
    return _refused_patch(
        model, k, found, f"{entry}'s {what} of {path} does not apply to the object it "
        f"targets, which {f'has no {lacks}' if lacks else 'lacks that path'} (kustomize: "
        f"\"{what} operation does not apply: doc is missing path\")", "refused",
        _refused_fix(what, path, lacks))


def _unwhole(what: str, where: str) -> str:
    """A JSON 6902 operation kustomize refuses as written (``what``, ``where``: the words of
    :class:`~reviewbot.model.patches.Refused`), as a message says it."""
    head, _, number = where.rpartition("(operation ")
    number = number.rstrip(")")
    if what == "test":
        return f"operation {number} tests {head.strip()}, which the object does not hold as given"
    if what in OPERATIONS:
        return f"{what} operation {number} has no {'from' if what in ('move', 'copy') else 'path'}"
    return f"operation {number} has op {what!r}, which JSON patch does not have"


def _unwhole_fix(what: str, where: str) -> str:
    """The fix of :func:`_unwhole`'s operation."""
    if what == "test":
        return ("Drop the test, or make its value what the object holds there: a failing test "
                "refuses the whole build.")
    if what in ("move", "copy"):
        return f"Give the {what} its `from` and `path` (JSON pointers), or drop it."
    if what in OPERATIONS:
        return (f"Give the {what} its `path` (a JSON pointer, /spec/...), or drop the stray "
                "line.")
    return f"Write one of {', '.join(OPERATIONS)} as its op."


def _refused_fix(what: str, path: str, lacks: str) -> str:
    """The fix of a JSON 6902 operation on a path the object lacks: add the first missing
    step whole (``lacks``: /spec/tls, not /spec/tls/0/hosts, whose parent is gone too: new-user
    trial sixty-eight W4), or, with the path's parent there, an index the list holds."""
    if what not in ("add", "replace"):
        return (f"Drop the operation, or point it at a path the object holds ({path} is not "
                "there).")
    if lacks:
        return (f"Add {lacks} whole first (an `add` of {lacks} whose value holds {path}), or "
                "patch an object that has it.")
    parent, _, last = path.rpartition("/")
    if last == "-" or last.isdigit():
        return (f"Point it at an index the list {parent or '/'} holds, or append with an "
                "`add` of `-`; or patch an object that has it.")
    return (f"Point it at a path the object holds ({parent or '/'} holds no fields), or patch "
            "an object that has it.")


def _unmatched_fix(k: Kustomization, what: str, name: Any, held: Sequence[str],
                   place: str = "the patch", otherwise: str = "") -> str:
    """The fix of a patch naming what the build does not hold: when the kustomization's own
    ``namePrefix``/``nameSuffix`` makes that name of an object it holds, name it as the base
    does (kustomize patches before it renames: new-user trial twelve's staging overlay
    patched `staging-frontend`, and the fix blamed its base; trial twenty-nine's target
    `name: stg-web` alike), in ``place``; else ``otherwise``."""
    prefix = k.body.get("namePrefix") if isinstance(k.body.get("namePrefix"), str) else ""
    suffix = k.body.get("nameSuffix") if isinstance(k.body.get("nameSuffix"), str) else ""
    if (prefix or suffix) and isinstance(name, str):
        base = next((h.rpartition("/")[2] for h in held
                     if f"{prefix}{h.rpartition('/')[2]}{suffix}" == name), None)
        if base is not None:
            which = " and ".join(f"{key} {value!r}" for key, value in (
                ("namePrefix", prefix), ("nameSuffix", suffix)) if value)
            return (f"Name it {base} in {place}, as the base does: this kustomization's "
                    f"{which} renames it only after its patches are applied.")
    if otherwise:
        return otherwise
    near = _near_held(name, held)
    if near is not None:  # (new-user trial forty-five: the patch's name changed to web-hpa,
        # the build's one HorizontalPodAutoscaler web/web; the fix blamed a base's rename)
        return (f"Name {what.partition(' ')[0]} {near} in {place}, which the build holds, or "
                "remove the entry.")
    return (f"Name in the patch an object the build holds (its base may have renamed {what}), "
            "or remove the entry.")


def _near_held(name: Any, held: Sequence[str]) -> str | None:
    """Of the objects of a patch's kind the build holds (``namespace/name``), the one a patch
    naming ``name`` most likely means: a misspelling of it, one word more or less, or the
    build's only one; None when none is."""
    if not isinstance(name, str) or not held:
        return None
    from reviewbot.words import misspelt, one_word_apart

    names = {h.rpartition("/")[2]: h for h in held}
    close = misspelt(name, names) or next((n for n in sorted(names)
                                           if one_word_apart(name, n)), "")
    if close:
        return names[close]
    return held[0] if len(held) == 1 else None


def _named_before(k: Kustomization, names: Sequence[str]) -> list[str]:
    """``names`` of ``k``'s build as its patches see them: before its own ``namePrefix``
    and ``nameSuffix``."""
    prefix, suffix = (str(v) if isinstance(v := k.body.get(key), str) else ""
                      for key in ("namePrefix", "nameSuffix"))
    return [n[len(prefix):len(n) - len(suffix)] if n.startswith(prefix) and n.endswith(suffix)
            and len(n) > len(prefix) + len(suffix) else n for n in names]


def _idle_patches(kustomize: Iterable[Kustomization], graph: Graph) -> Iterator[Violation]:
    """A ``patches`` entry whose ``target:`` selects no object of its kustomization's build
    (model.objects.idle_patches): kustomize v5 applies it to nothing and says nothing, so the
    change the patch was written for never happens (new-user trial nine: a replicas patch
    targeting a Deployment the base had renamed)."""
    for k in kustomize:
        for found in idle_patches(graph, k):
            selector = found.selector or {}
            said = ", ".join(f"{key} {selector[key]}" for key in (
                "group", "version", "kind", "namespace", "name", "labelSelector",
                "annotationSelector") if isinstance(selector.get(key), str))
            where = found.entry + ("target",)
            line, column = k.doc.position(where)
            kind = selector.get("kind")
            # (a Component's: the builds that apply it; new-user trial fifty-eight)
            uses = component_builds(graph, k.directory) if k.is_component else []
            built = uses[0][0] if uses else graph.build(k.directory)
            variables = sorted({r.name for r in built.resources
                                if r.kind == kind and "${" in r.name}) if kind else []
            why = (f": the build names its {kind} {variables[0]}, which Flux substitutes only "
                   "after kustomize has built (postBuild)" if variables else "")
            folders = sorted({b.folder for b, _ in uses})
            held = _named_before(k, [r.name for r in built.resources
                                     if not kind or r.kind == kind])
            whose = (f"of any build that applies this Component ({_folders(folders)})"
                     if uses else "of this build")
            yield Violation(
                None, where,
                f"{_label(found.entry)}: its target ({said or 'any object'}) selects no object "
                f"{whose}, so kustomize applies the patch to nothing, without an "
                f"error{why}",
                kind="idle-patch", file=k.file, line=line, column=column,
                key=f"{k.file}:{_label(found.entry)}:idle",
                fix=_unmatched_fix(
                    k, "it", selector.get("name"), held, "the target",
                    f"Point the target at {near}, which the build holds (a base may have "
                    "renamed it), or remove the patch." if (
                        near := _near_held(selector.get("name"), held)) else
                    "Point the target at an object the build holds (a base may have renamed "
                    "it), or remove the patch."))


def _idle_images(kustomize: Iterable[Kustomization], graph: Graph) -> Iterator[Violation]:
    """An ``images`` entry whose name no container of its kustomization's build runs
    (model.objects.idle_images): kustomize changes no image, without an error, and the
    tag or digest the entry pins never reaches a pod (new-user trial thirty-two)."""
    for k in kustomize:
        for i, name, held in idle_images(graph, k):
            where = ("images", i, "name")
            line, column = k.doc.position(where)
            message, near = _idle_image_said(i, name, held)
            yield Violation(
                None, where, message, kind="idle-image", file=k.file, line=line,
                column=column, key=f"{k.file}:images[{i}]:idle",
                fix=(f"Name the image {near}, as its containers do, or remove the entry."
                     if near else "Name an image the build's containers run, or remove the "
                     "entry."))


def _refused_replicas(kustomize: Iterable[Kustomization], graph: Graph,
                      model: Model) -> Iterator[Violation]:
    """A ``replicas`` entry naming no workload of its build (model.objects.refusing_replicas):
    kustomize refuses the whole build, and what applies it applies nothing of it."""
    from reviewbot.words import misspelt

    for k in kustomize:
        for i, name, held in refusing_replicas(graph, k):
            where = ("replicas", i, "name")
            line, column = k.doc.position(where)
            near = misspelt(name, held) or (held[0] if len(held) == 1 else "")
            shown = [near, *(h for h in held if h != near)] if near else list(held)
            holds = (f"it holds {', '.join(shown[:3])}"
                     + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
                     if shown else "it holds none")
            yield Violation(
                None, where,
                f"replicas[{i}].name: no Deployment, StatefulSet, ReplicaSet or "
                f"ReplicationController of this build is named {name} ({holds}; kustomize: "
                f"\"resource with name {name} does not match a config with the following "
                f"GVK\"); {_refused(model, k, appliers(model).get(k.file, ()))}",
                kind="missing", file=k.file, line=line, column=column,
                key=f"{k.file}:replicas[{i}]:refused",
                fix=(f"Name the workload {near}, as the build calls it, or remove the entry."
                     if near else "Name a workload the build holds, or remove the entry."))


def _idle_image_said(i: int, name: str, held: Sequence[str]) -> tuple[str, str]:
    """What ``idle-image`` says of the entry ``images[i]`` naming ``name``, the build's
    containers running ``held``; and the image of them it likely misspells ("")."""
    from reviewbot.words import misspelt

    near = misspelt(name, held) or next(
        (h for h in held if h.rpartition("/")[0] == name.rpartition("/")[0]
         and len([g for g in held if g.rpartition("/")[0] == name.rpartition("/")[0]])
         == 1), "")
    # (the near name first: new-user trial thirty-five read "and 1 more" for it)
    shown = [near, *(h for h in held if h != near)] if near else list(held)
    runs = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
    return (f"images[{i}].name: no container of this build runs an image named {name} "
            f"(they run {runs}), so kustomize sets nothing, without an error"), near


def _images_dropped(base: Model, head: Model) -> Iterator[Violation]:
    """``image-dropped``, in a review: an ``images`` entry whose name an image of its build
    ran before the change and none runs after it (``idle-image``): the tag or digest the
    entry pins reaches no pod, the cluster keeps the base's image (new-user trial
    fifty-four: an entry renamed away from its image, with a new tag and digest, stayed a
    warning, where a renamed patch target's `patch-dropped` is an error)."""
    graph, before = model_graph(head), model_graph(base)
    for k in sorted(head.kustomizations, key=lambda k: k.file):
        idle = idle_images(graph, k)
        was = before.by_dir.get(k.directory) if idle else None
        if was is None or was.file != k.file:
            continue
        idle_before = {i for i, _, _ in idle_images(before, was)}
        entries = items(was.body.get("images"))
        for i, name, held in idle:
            old = entries[i] if i < len(entries) else None
            if i in idle_before or not isinstance(old, dict) or not isinstance(
                    old.get("name"), str) or old["name"] == name:
                continue
            said, near = _idle_image_said(i, name, held)
            entry = items(k.body.get("images"))[i]
            pins = ", ".join(f"{key} {entry[key]}" for key in ("newName", "newTag", "digest")
                             if isinstance(entry, dict) and entry.get(key))
            message = (f"{said}; before this change it named {old['name']}, which the build's "
                       f"containers run: what it sets now ({pins or 'nothing'}) reaches no "
                       "pod, and the cluster keeps the image it runs")
            line, column = k.doc.position(("images", i, "name"))
            yield Violation(
                None, ("images", i, "name"), message, kind="image-dropped", file=k.file,
                line=line, column=column, key=f"{k.file}:images[{i}]:dropped",
                fix=f"Name the image {near or old['name']}, as its containers do.")


def _refused_replacements(kustomize: Iterable[Kustomization], graph: Graph
                          ) -> Iterator[Violation]:
    """A replacement whose source selects no object of its kustomization's build, or several
    (model.objects.refusing_replacement): kustomize refuses the whole build, and what
    applies it applies nothing of it (new-user trial forty: a Service renamed under its
    replacement's source)."""
    for k in kustomize:
        found = refusing_replacement(graph, k)
        if found is None:
            continue
        path, why = found
        source = k.body["replacements"][path[1]]["source"]
        what = "/".join(str(source[key]) for key in ("kind", "name") if source.get(key))
        # (a field the object lacks: at the fieldPath, the line a pull request changes;
        # new-user trial seventy-four W3 read the caret at `- source:`)
        at = (*path, "fieldPath") if " without " in why and "fieldPath" in source else path
        line, column = k.doc.position(at)
        yield Violation(
            None, path,
            f"replacements[{path[1]}].source {what or '(any object)'} {why}; kustomize refuses "
            f"the whole build of {k.directory or '.'}", kind="missing", file=k.file, line=line,
            column=column, key=f"{k.file}:replacements:{path[1]}:source",
            fix=(f"Point the source's fieldPath at {near}, the field of a close name."
                 if (near := why.partition(", which holds ")[2].partition(" (")[0]) else
                 "Point the source's fieldPath at a field the object holds, or remove the "
                 "replacement." if " without " in why else
                 "Name an object the build holds in the replacement's source (its name before "
                 "any prefix or suffix), or remove the replacement."))


def _unresolved_vars(graph: Graph, unapplied: Collection[str],
                     rootless: bool) -> Iterator[Violation]:
    """A var kustomize cannot resolve in the build of a kustomization no other includes
    (model.objects.refusing_var): it refuses the whole build. Said once per var, at the
    kustomization that declares it. A var reading an object's ``metadata.namespace``, in a
    tree no cluster root of which applies anything (its builds are its consumers', outside
    it), is at most a warning: the consumer that builds it in a namespace (a kustomization
    including it, kfctl's KfDef, Flux's ``targetNamespace``) sets the field, and the var
    resolves (opendatahub-io/odh-manifests' components, consumed through KfDef; judge round
    BG)."""
    if not any(k.body.get("vars") for k in graph.by_dir.values()):
        return  # (most trees: no build to ask)
    said: set[tuple[str, str]] = set()
    for folder in graph.roots:
        k = graph.by_dir[folder]
        if k.file in unapplied:
            continue
        found = refusing_var(graph, k)
        if found is None or (found.owner.file, found.name) in said:
            continue
        said.add((found.owner.file, found.name))
        line, column = found.owner.doc.position(found.path)
        yield Violation(
            None, found.path,
            f"vars: {found.name} {found.why}, so kustomize refuses the whole build of "
            f"{folder or '.'}", kind="missing", file=found.owner.file, line=line,
            column=column, key=f"{found.owner.file}:vars:{found.name}:{folder}",
            fix=f"Set the field in the object the var names within this build, or build "
                f"{folder or '.'} only from an overlay that sets it.",
            doubt=(f"the namespace {folder or '.'}'s consumers build it in (no cluster root of "
                   "this repository applies it; one that sets a namespace fills the field)")
            if rootless and found.field == "metadata.namespace" else None)


# ---------------------------------------------------------------- Flux spec.path


@dataclasses.dataclass(frozen=True)
class _FluxPaths:
    """Where the Flux Kustomizations of this repository's sources point: ``resolved``, by
    ``id`` of each judged one, the folder its ``spec.path`` names (None: no folder), and
    ``missing``, each one whose path names no folder of a source whose other Kustomizations
    resolve here, with the folder beside it of a close name (:func:`near_path`: the
    ``spec.path`` respelled and the tree's folder; "" both when none)."""

    flux: tuple[KObject, ...]
    resolved: Mapping[int, str | None]
    missing: tuple[tuple[KObject, str, str], ...]


def _flux_targets(model: Model, index: TreeIndex, graph: Graph) -> _FluxPaths:
    reach = model.derived.get("reach")
    elsewhere = reach.elsewhere if reach is not None else set()  # another source's paths
    flux = tuple(k.flux for k in model.kustomizations
                 if k.flux is not None and id(k.flux.body) not in elsewhere)
    resolved: dict[int, str | None] = {}
    # the sources whose Kustomizations resolve in the tree (so the source is this
    # repository), each with the folders its root is at
    sources_here: dict[tuple[str, str, str], set[str]] = {}
    for obj in flux:
        path = obj.get(("spec", "path"))
        if not isinstance(path, str) or "${" in path:
            continue
        target = graph.flux_folder(obj.file, path)
        if target is not None and not index.covers(target) and target != "":
            target = None
        resolved[id(obj)] = target
        if target is not None:
            sources_here.setdefault(_source(obj), set()).add(_source_root(target, path))
    missing = []
    for obj in flux:
        if id(obj) not in resolved or resolved[id(obj)] is not None:
            continue
        path = str(obj.get(("spec", "path")))
        roots = sources_here.get(_source(obj), ())
        if any(index.covers(_joined(root, path)) for root in roots):
            missing.append((obj, path, next((n for root in roots if (n := near_path(
                path, _joined(root, path), graph.dirs))), "")))
    return _FluxPaths(flux, resolved, tuple(missing))


def _patches_shifted(base: Model, head: Model) -> Iterator[Violation]:
    """``patch-shifted``, in a review: a JSON6902 operation (``replace``/``add`` at a path
    with a list index, ``/spec/template/spec/containers/0/env/2/value``) that set a field of
    one named item before the change and sets the same field of another after it: an item
    the change inserted or removed above it moved the index (new-user trial thirty-nine:
    `TZ` added at the top of the base's env, the preview overlay's `env/2` now replaced
    LD_DB_PORT's value with a database name, and the review said nothing)."""
    before: dict[tuple[Any, ...], tuple[KObject, Path]] = {}
    for obj in base.objects:
        for at, (doc, where) in obj.origins.items():
            if where[-1:] == ("value",) and isinstance(where[-2:-1] and where[-2], int):
                before[(obj.identity, doc.file.path, tuple(where))] = (obj, at)
    if not before:
        return
    said: set[tuple[str, tuple[Any, ...]]] = set()
    for obj in head.objects:
        for at, (doc, where) in obj.origins.items():
            was = before.get((obj.identity, doc.file.path, tuple(where)))
            if was is None or was[1] != at:
                continue
            for i in range(len(at) - 1, 0, -1):
                if not isinstance(at[i], int):
                    continue
                old, new = (_item_name(o.get(at[:i + 1])) for o in (was[0], obj))
                if old and new and old != new and (doc.file.path, tuple(where)) not in said:
                    said.add((doc.file.path, tuple(where)))
                    pointer = "/" + "/".join(str(p) for p in at)
                    field = f"the {at[-1]} of" if i < len(at) - 1 else "the item"
                    yield Violation(
                        None, where[:-1] + ("path",),
                        f"{obj.kind} {obj.namespace or 'default'}/{obj.name}: the patch "
                        f"operation at {pointer} now sets {field} {new}, where before this "
                        f"change it set {field} {old}: an item the change added or removed "
                        "above it moved the index",
                        fix=(f"Point the operation at {old}'s index in the new list, or patch "
                             f"by name (a strategic merge patch of the item named {old})."),
                        kind="patch-shifted", file=doc.file.path,
                        line=doc.position(where[:-1] + ("path",))[0],
                        column=doc.position(where[:-1] + ("path",))[1],
                        key=f"{doc.file.path}:{format_path(where)}:shifted")
                break


def _patches_dropped(base: Model, head: Model) -> Iterator[Violation]:
    """``patch-dropped``, in a review: a ``patches`` entry whose ``target:`` selected an
    object before the change and selects none after it, because the change renamed that
    object, which the build still holds under its new name: the fields the patch set go
    back to the base's values in the cluster, without a word from kustomize (new-user
    trial forty-seven: the base's Deployment `vllm` renamed `vllm-qwen`, production's
    replicas patch still targeting `vllm`: production went from 2 replicas to 1, and the
    review said only "selects no object", a warning)."""
    graph = model_graph(head)
    for k in sorted(head.kustomizations, key=lambda k: k.file):
        for found in idle_patches(graph, k):
            doc, at = found.patch.doc, tuple(found.patch.path)
            fields: dict[tuple[Any, ...], list[tuple[KObject, Path]]] = {}
            for obj in base.objects:  # what the patch set before
                for field, (source, where) in obj.origins.items():
                    if source.file.path == doc.file.path and tuple(where[:len(at)]) == at:
                        fields.setdefault(obj.identity, []).append((obj, field))
            for _, set_on in sorted(fields.items()):
                obj = set_on[0][0]
                kept = _kept_as(obj, base, head)
                now = kept or _renamed_as(obj, base, head)
                if now is None:
                    continue  # (removed, not renamed: the patch's warning says it)
                new = now
                # (not a field whose value the patch repeats: nothing of it is lost; new-user
                # trial sixty-one read "maxReplicas is 1, not 1")
                lost = [f for f in _dropped_fields([f for _, f in set_on])
                        if obj.get(f) != now.get(f)]
                if not lost:
                    continue
                said = ", ".join(_lost_field(format_path(f), obj.get(f), now.get(f))
                                 for f in lost[:DROPPED_SHOWN]) + (
                    f" and {len(lost) - DROPPED_SHOWN} more field"
                    f"{'s' if len(lost) - DROPPED_SHOWN > 1 else ''}"
                    if len(lost) > DROPPED_SHOWN else "")
                line, column = k.doc.position(found.entry + ("target",))
                was = f"{obj.kind} {obj.namespace or 'default'}/{obj.name}"
                if kept is not None:  # (the target the change rewrote: new-user trial
                    # seventy-eight D3, prod's patch `name: vllm-openai`, the model downgraded)
                    message = (f"{_label(found.entry)}: before this change it patched {was}, "
                               "and its target selects no object now: the build's "
                               f"{was} loses what the patch set: {said}")
                    fix = f"Make the target select {was} again, the object it patched."
                else:
                    message = (
                        f"{_label(found.entry)}: before this change it patched {was}, which "
                        f"this change renames to {new.name}, and its target selects no "
                        f"object now: the build's {obj.kind} {new.namespace or 'default'}/"
                        f"{new.name} loses what the patch set: {said}")
                    # (the name its file writes: kustomize selects a target by the object's
                    # original name or its current one, and a namePrefix of the patch's own
                    # kustomization comes after its patches; new-user trial eighty-eight D2,
                    # staging's fix named `stg-storefront`, which selects nothing)
                    written = new.name_as_written
                    fix = (f"Set the target's name to {written}, the object's new name"
                           + (f" as its file writes it (the build names it {new.name})"
                              if written != new.name else "") + ".")
                yield Violation(
                    None, found.entry + ("target",), message, fix=fix, kind="patch-dropped",
                    file=k.file, line=line, column=column,
                    key=f"{k.file}:{_label(found.entry)}:dropped",
                    others=() if kept is not None else (
                        Violation(now, ("metadata", "name"), message, fix=fix,
                                  kind="patch-dropped"),))


def _kept_as(obj: KObject, base: Model, head: Model) -> KObject | None:
    """The object of ``head`` of ``obj``'s identity (of ``base``) from the same file, in a
    cluster of its own, if any."""
    clusters = base.clusters.get(id(obj), frozenset())
    return next((o for o in head.by_identity.get(obj.identity, ()) if o.file == obj.file and (
        not clusters or clusters & head.clusters.get(id(o), frozenset()))), None)


def _renamed_as(obj: KObject, base: Model, head: Model) -> KObject | None:
    """The object of ``head`` that ``obj`` (of ``base``, whose identity the head lacks)
    became under a new name: the one new identity of its kind and namespace written in its
    file, in a cluster of its own; None when there is not exactly one."""
    clusters = base.clusters.get(id(obj), frozenset())
    found = [o for o in head.objects if o.file == obj.file and o.kind == obj.kind
             and o.namespace == obj.namespace and o.identity not in base.by_identity
             and (not clusters or clusters & head.clusters.get(id(o), frozenset()))]
    return found[0] if len({o.identity for o in found}) == 1 else None


DROPPED_SHOWN = 4  # the fields a patch-dropped message names (the rest counted)
# what a lost field costs most when it is lost, first: where pods run and what they hold
_COSTLY = ("resources", "nodeSelector", "affinity", "tolerations", "replicas", "image", "args",
           "command", "env")


def _dropped_fields(fields: Sequence[Path]) -> list[Path]:
    """The fields a dropped patch set, each once, without one another lies under (a map's
    key said, not the map), the costliest first (new-user trial fifty-eight: the GPU count
    and nodeSelector went unnamed behind an annotation map and its key)."""
    unique = sorted(set(map(tuple, fields)), key=format_path)
    leaves = [f for f in unique if not any(len(g) > len(f) and g[:len(f)] == f
                                           for g in unique)]

    def cost(field: Path) -> int:
        return next((i for i, word in enumerate(_COSTLY) if word in field), len(_COSTLY))

    return sorted(leaves, key=cost)


def _lost_field(field: str, was: Any, now: Any) -> str:
    """A field a dropped patch set, in words: its value now and the patch's ("spec.replicas
    is 1, not 2"), or, for a map or a list, that it is the base's."""
    if isinstance(was, (dict, list)) or isinstance(now, (dict, list)):
        return f"{field} is the base's"
    return f"{field} is {'unset' if now is None else now}, not {was}"


def _item_name(item: Any) -> str:
    """The ``name`` of a list item (an env entry, a container, a port), or ""."""
    return str(item.get("name")) if isinstance(item, dict) and isinstance(
        item.get("name"), str) else ""


def check_change(diff: TreeDiff, base: Model, head: Model,
                 opts: Mapping[str, Any]) -> Iterator[Violation]:
    """``missing``, in a review: a Flux Kustomization's ``spec.path`` or an Argo CD
    Application's source path the change moves off the folder its base version resolved to
    (its source unchanged: the base shows that source is this repository) onto one the tree
    does not have, where no other Kustomization or Application of the source resolves in the
    head (then :func:`check_set` says it): new-user trial twenty-eight's only Kustomization,
    `./apps/shop` misspelt `./apps/shpo`, "no new findings"."""
    if head.tree is None or base.tree is None:
        return
    yield from _patches_shifted(base, head)
    yield from _patches_dropped(base, head)
    yield from _images_dropped(base, head)
    yield from _generators_emptied(base, head)
    yield from _references_renamed(base, head)
    yield from _markers_left(base, head)
    graph = model_graph(head)
    index = TreeIndex(head.tree.paths, graph, head.tree.outside)
    # (object, field, path, source) of each path naming no folder, check_set silent on it
    targets = _flux_targets(head, index, graph)
    told = {id(obj) for obj, _, _ in targets.missing}
    unresolved: list[tuple[KObject, Path, str, tuple[str, ...]]] = [
        (obj, ("spec", "path"), str(obj.get(("spec", "path"))), _source(obj))
        for obj in targets.flux
        if targets.resolved.get(id(obj), "") is None and id(obj) not in told]
    sources, here = _argo_sources(head, index, graph)
    unresolved += [(obj, at, path, key) for obj, at, path, key, target in sources
                   if target is None and not any(index.covers(_joined(root, path))
                                                 for root in here.get(key, ()))]
    if not unresolved:
        return
    base_graph = model_graph(base)
    base_index = TreeIndex(base.tree.paths, base_graph, base.tree.outside)
    before: dict[tuple[Any, ...], tuple[str, str | None]] = {  # its base path, its folder
        (k.flux.namespace, k.flux.name, k.flux.file, ("spec", "path"), _source(k.flux)): (
            path, base_targets.resolved.get(id(k.flux)))
        for base_targets in (_flux_targets(base, base_index, base_graph),)
        for k in base.kustomizations
        if k.flux is not None and isinstance(path := k.flux.get(("spec", "path")), str)}
    before.update({(obj.namespace, obj.name, obj.file, at, key): (path, target)
                   for obj, at, path, key, target in _argo_sources(
                       base, base_index, base_graph)[0]})
    for obj, at, path, source in unresolved:
        was, target = before.get((obj.namespace, obj.name, obj.file, at, source), ("", None))
        if target is None or target == "" or was == path:
            continue
        root = _source_root(target, was)
        folder = _joined(root, path)
        if not index.covers(folder) or index.is_dir(folder):
            continue
        near = near_path(path, folder, graph.dirs)
        # the base's path misspelt: the same source meant. Else the path may be another
        # repository's, which holds the folder the base's names here too
        doubt = None if near and _joined(root, near) == target else (
            f"whether {_what(obj, source)} is this repository (only its base path, "
            f"{was!r}, resolved here; the new one is no misspelling of it)")
        yield _no_folder(obj, at, path, f"before this change, {was!r} resolved here", near,
                         "source", f" ({was!r} before)", doubt)


def _what(obj: KObject, source: tuple[str, ...]) -> str:
    """The source of a Flux Kustomization (its kind, namespace and name) or of an Argo CD
    Application's source (its repository at its revision), in words."""
    if obj.kind == "Kustomization":
        return f"{source[0]} {source[1]}/{source[2]}"
    return f"{source[0]} at {source[1]}"


def _no_folder(obj: KObject, at: Path, path: str, why: str, near: str, whose: str,
               before: str = "", doubt: str | None = None) -> Violation:
    """``missing``: a Flux Kustomization's ``spec.path`` or an Argo CD Application's source
    path ``path`` (at ``at``) naming no folder of this repository, ``why`` it is judged
    (what shows the source is this one); the fix names ``near``, the folder of a close name
    (:func:`near_path`), when there is one."""
    name = "spec.path" if obj.kind == "Kustomization" else "the path"
    return Violation(
        obj, at, f"{format_path(at)} {path!r} does not exist in this repository ({why})",
        kind="missing", doubt=doubt,
        fix=(f"Point {name} at {near!r}, the folder of a close name, or at another existing "
             f"folder of the {whose}." if near else
             f"Point {name} at an existing folder of the {whose}{before}."))


def _flux_paths(
    model: Model, targets: _FluxPaths, index: TreeIndex, graph: Graph, duplicates: _Duplicates,
) -> Iterator[Violation]:
    searched: dict[int, Build] = {}  # id(build) -> the build, searched for duplicates
    # the duplicates of the builds first: a Kustomization one of them makes twice is refused
    # with its build, which its own findings say
    for obj in targets.flux:
        target = targets.resolved.get(id(obj))
        if target is not None and target not in graph.by_dir and tree_source(
                dict_of(obj.get(("spec",)))):
            # (an OCIRepository's or a Bucket's path is in its artifact, not this tree:
            # dis-way/gitops-manifests' grafana-content, `path: ./` of another repository's
            # artifact, built the whole tree: 23 false duplicates, judge round BB)
            path = str(obj.get(("spec", "path")))
            build = _path_build(graph, obj.file, path)
            # a build met again (Flux Kustomizations of one folder) has every pair reported
            if build is not None and id(build) not in searched:
                searched[id(build)] = build
                where = f"Flux Kustomization {obj.namespace}/{obj.name} (path {path})"
                yield from duplicates.find(build.resources, where, build)
    missing = {id(obj): (path, near) for obj, path, near in targets.missing}
    for obj in targets.flux:
        if id(obj) not in targets.resolved:
            continue
        target = targets.resolved[id(obj)]
        path = str(obj.get(("spec", "path")))
        if target is None:
            if id(obj) in missing:
                kind, ns, name = _source(obj)
                twin = duplicates.twin(obj)
                yield _no_folder(obj, ("spec", "path"), path, f"other Kustomizations of "
                                 f"{kind} {ns}/{name} resolve here", missing[id(obj)][1],
                                 "source", doubt=None if twin is None else (
                                     f"whether the cluster has this Kustomization: the build "
                                     f"that makes it makes {obj.kind} {obj.namespace}/"
                                     f"{obj.name} again ({twin.file}), which kustomize "
                                     "refuses, so neither is applied anew"))
            continue
        for i, entry, what in missing_components(model, obj, target):
            yield Violation(
                obj, ("spec", "components", i),
                f"spec.components[{i}]: {entry!r} (from spec.path) {what}: kustomize refuses "
                "the whole build, so it applies nothing and prunes nothing until the entry is "
                "fixed", kind="missing",
                fix="Point the component at a folder holding its kustomization.yaml, or set "
                    "spec.ignoreMissingComponents: true if it may be absent.",
            )


def _resource_set_paths(model: Model, graph: Graph) -> Iterator[Violation]:
    """A Flux Kustomization a flux-operator ResourceSet makes of one of its inputs whose
    ``spec.path`` names no folder of the tree, where the Kustomizations it makes of its other
    inputs, of the same source, resolve here (so that source is this repository):
    kustomize-controller fails it ("kustomization path not found") and applies nothing of
    it; said at the input (new-user trial sixty-two: an app namespace added to the inputs
    without its folder, no finding; the same Kustomization written out was an error)."""
    from reviewbot.model.reach import resource_set_made

    for obj in model.objects:
        if obj.kind != "ResourceSet" or obj.group != "fluxcd.controlplane.io" or (
                obj.file in model.unapplied):
            continue
        found: list[tuple[int, str, str, tuple[str, str]]] = []
        for i, made in resource_set_made(obj.body):
            spec = dict_of(made.get("spec"))
            path = spec.get("path")
            api = str(made.get("apiVersion", ""))
            if made.get("kind") != "Kustomization" or not api.startswith(
                    "kustomize.toolkit.fluxcd.io/") or not isinstance(path, str):
                continue
            ref = dict_of(spec.get("sourceRef"))
            folder = flux_rel(path)
            meta = dict_of(made.get("metadata"))
            name = f"{meta.get('namespace') or obj.namespace}/{meta.get('name')}"
            found.append((i, name, path if folder in graph.dirs or folder == "" else "",
                          (str(ref.get("kind") or ""), str(ref.get("name") or ""))))
        here = {source for _, _, resolved, source in found if resolved}
        for i, name, resolved, source in found:
            if resolved or source not in here:
                continue
            path = next(str(dict_of(m.get("spec")).get("path")) for j, m in
                        resource_set_made(obj.body) if j == i and m.get("kind") == "Kustomization")
            yield Violation(
                obj, ("spec", "inputs", i),
                f"ResourceSet {obj.namespace}/{obj.name}: this input makes Flux Kustomization "
                f"{name} with spec.path {path!r}, which names no folder of this repository "
                "(the Kustomizations of its other inputs resolve here): kustomize-controller "
                "fails it (\"kustomization path not found\") and applies nothing of it",
                kind="missing",
                fix="Add the folder the input names, or correct the input.")


def _sync_paths(model: Model) -> Iterator[Violation]:
    """A FluxInstance's sync path that names no folder of the tree: a variable no Flux
    Kustomization applying the instance substitutes (what it syncs is unseen), or a folder
    the repository lacks (Flux fails the sync, if the instance syncs this repository: an
    error where its URL is one the tree or the checkout shows to be this repository's,
    ricsanfre/pi-cluster's `kubernetes/cluster/dev`, judge round CN)."""
    reach = model.derived.get("reach")
    for doc, path, kind, known in reach.sync_gaps if reach is not None else ():
        obj = next((o for o in model.objects if o.doc is doc), None)
        value = doc.value if isinstance(doc.value, dict) else {}
        where: tuple[str, ...] = (
            ("spec", "sync", "path") if value.get("kind") == "FluxInstance"
            else ("spec", "values", "instance", "sync", "path") if "kind" in value
            else ("instance", "sync", "path"))  # (a values file of the flux-instance chart)
        line, column = doc.position(where)
        located = {"file": doc.file.path, "line": line, "column": column} if obj is None else {}
        if "${" in path:
            named = placeholder_folders(path, model_graph(model).dirs)
            yield Violation(
                obj, where if obj is not None else (),
                f"the FluxInstance syncs {path!r}, whose variable no Flux Kustomization that "
                "applies this file substitutes, so " + (
                    f"which folder it syncs is not known (the {len(named)} it can name are "
                    "judged, their findings not certain)" if named
                    else "what it syncs is not followed"),
                kind="missing", key=f"{doc.file.path}:sync-path", doubt=(
                    "which folder the variable names: substituted where this file is applied "
                    "from outside the repository, or by hand"),
                fix="Substitute the variable in the postBuild of the Kustomization that "
                    "applies this file, or write the folder.", **located)
        else:
            what = "OCI artifact's" if kind == "OCIRepository" else "repository's"
            yield Violation(
                obj, where if obj is not None else (),
                f"the FluxInstance syncs {path!r}, which does not exist in this {what} tree",
                kind="missing", key=f"{doc.file.path}:sync-path", doubt=None if known else (
                    "whether the instance syncs this repository (its sync url names no "
                    "repository known to be this one: a sync object's GitRepository of the "
                    "tree, a git remote of the checkout)"),
                fix="Point the sync path at the cluster's folder.", **located)


def _impersonations(model: Model) -> Iterator[Violation]:
    """``impersonation``: a Flux Kustomization's ``serviceAccountName`` that names no
    ServiceAccount of its namespace the repository declares, and none its RoleBindings or
    ClusterRoleBindings bind (new-user trial seventy-two D2: `team-a-reconciler` for
    `team-a`, "no findings"): kustomize-controller impersonates it, and the API server
    forbids what no binding grants."""
    users = [o for o in model.objects if o.kind == "Kustomization"
             and o.group == "kustomize.toolkit.fluxcd.io"
             and isinstance(o.get(("spec", "serviceAccountName")), str)]
    if not users:
        return
    accounts: dict[str, set[str]] = {}
    bound: set[tuple[str, str]] = set()
    for o in model.objects:
        if o.kind == "ServiceAccount" and o.group == "":
            accounts.setdefault(o.namespace or "default", set()).add(o.name)
        elif o.kind in ("RoleBinding", "ClusterRoleBinding") and (
                o.group == "rbac.authorization.k8s.io"):
            for subject in items(o.get(("subjects",))):
                if isinstance(subject, dict) and subject.get("kind") == "ServiceAccount":
                    bound.add((str(subject.get("namespace") or o.namespace or ""),
                               str(subject.get("name"))))
    for obj in users:
        name = str(obj.get(("spec", "serviceAccountName"))).strip()
        namespace = obj.namespace or "default"
        if not name or "$" in name or name in accounts.get(namespace, set()) or (
                (namespace, name) in bound):
            continue
        near = closest(name, sorted(accounts.get(namespace, set())))
        # the namespace's accounts are the repository's, bound by its own RoleBindings: the
        # tenant's RBAC is written here, and this one is not in it
        managed = sorted(a for a in accounts.get(namespace, set()) if (namespace, a) in bound)
        yield Violation(
            obj, ("spec", "serviceAccountName"),
            f"Kustomization {namespace}/{obj.name} applies as ServiceAccount "
            f"{namespace}/{name}, which the repository neither declares nor binds to a role"
            + (f" (did you mean {near}?)" if near else f" (it binds {', '.join(managed[:3])} "
               f"in {namespace})" if managed else "")
            + ": kustomize-controller impersonates it, the API server forbids every apply "
            "no binding grants, and the Kustomization applies nothing",
            kind="impersonation",
            doubt=None if near or managed else (
                f"whether ServiceAccount {namespace}/{name} and a binding of it are made "
                "outside the repository (by hand, a chart, another tool)"),
            fix=(f"Name the ServiceAccount the tenant's RoleBinding binds ({near or managed[0]})."
                 if near or managed else f"Declare ServiceAccount {namespace}/{name} and bind "
                 "it to the role the tenant applies with, or name one that is bound."))


def _dependencies(model: Model) -> Iterator[Violation]:
    """A Flux Kustomization's (HelmRelease's) ``spec.dependsOn`` entry that names no
    Kustomization (HelmRelease) its cluster has (:func:`reviewbot.model.dependencies.unmet`):
    kustomize-controller (helm-controller) looks the dependency up before every
    reconciliation and, not finding it, never applies (installs) the dependent ("unable to
    get 'ns/name' dependency": their checkDependencies; the entry's namespace defaults to the
    dependent's own)."""
    entries, held = unmet(model)
    if not entries:
        return
    unseen = flux_unseen(model)
    for found in entries:
        obj, i, wanted = found.dependent, found.index, found.wanted
        clusters, lacking = found.clusters, list(found.lacking)
        _, namespace, name = wanted
        where = ("the cluster does" if not model.cluster_entries or len(clusters) == 1
                 else f"cluster {lacking[0]} does" if len(lacking) == 1
                 else " and ".join(f"cluster {c}" for c in lacking) + " do")
        does = ("kustomize-controller never applies it" if obj.kind == "Kustomization"
                else "helm-controller never installs or upgrades it")
        hint, unapplied = _dependency_hint(model, held, lacking, wanted,
                                           (obj.kind, obj.namespace or "", obj.name))
        itself = _waits_on_itself(model, obj, f"{namespace}/{name}")
        if itself:  # (only its own path makes it: judge round DQ, monosense-io/k8s-gitops)
            hint = (f" (only its own build would make {namespace}/{name}, which it never "
                    "applies)")
        part = in_part(model) and not unapplied
        # (every cluster that lacks it builds the dependent not at all: there it waits for
        # nothing, the other clusters have what it names; judge round DG)
        failing = [failing_build(model, obj, c) for c in lacking] if model.cluster_entries and (
            len(clusters) > len(lacking)) and id(obj) not in model.unbuilt else []
        yield Violation(
            obj, ("spec", "dependsOn", i, "name"),
            f"{obj.kind} {obj.namespace}/{obj.name} depends on {obj.kind} "
            f"{namespace}/{name}, "
            + (f"{IN_PART}: if the cluster does not have it either, {does}{hint}" if part
               else f"which {where} not have, so {does}: it waits for a dependency that is "
               f"not there{hint}"),
            # (one the repository declares in a file no root applies is its own, not
            # one a source it cannot see makes)
            kind="dependency", doubt=None if unapplied else (
                (unseen and flux_unseen_in(model, lacking, namespace))
                or _without_flux(model, lacking) or _part_doubt(model)),
            unbuilt=failing[0] if failing and all(failing) else None,
            # (a close name: the fix is the name; "or remove the entry" let the tenants apply
            # before the CRDs they need, new-user trial seventy-two W3)
            fix=f"Remove the entry, or apply {namespace}/{name} from outside {obj.name}'s " \
                "path (order what its path applies with dependsOn among those)." if itself \
            else _elsewhere(part, f"Correct the entry to {obj.kind} {meant}." if (
                meant := _meant_dependency(held.get(lacking[0], set()) - {
                    (obj.kind, obj.namespace or "", obj.name)}, wanted)) and not unapplied
                and "did you mean" in hint else f"Name a {obj.kind} the cluster has" + (
                f" (the entry's namespace defaults to {obj.namespace})" if namespace == (
                    obj.namespace) and not _entry_namespace(obj, i) else "")
                + ", or remove the entry."),  # (an entry writing its namespace: new-user trial
            # forty-three's "defaults to default" beside `namespace: database`)
        )


def _dependency_cycles(model: Model) -> Iterator[Violation]:
    """``dependency-cycle``: Flux Kustomizations (HelmReleases) whose ``dependsOn`` entries
    wait for one another in a circle, or one naming itself
    (:func:`reviewbot.model.dependencies.cycles`): each applies only once its dependencies
    are Ready, and none of them ever is, so none is ever applied again (new-user trial
    eighty-nine D1: staging's infra-controllers made to wait for apps, which waits for it
    through infra-configs, "no new problems"). At the first entry of the circle, the others
    its other places."""
    for cycle in cycles(model):
        first = cycle.entries[0][0]
        names = [f"{o.namespace}/{o.name}" for o, _ in cycle.entries]
        does = ("kustomize-controller applies" if first.kind == "Kustomization"
                else "helm-controller installs or upgrades")
        where = (f" (cluster {', '.join(cycle.clusters)})" if model.cluster_entries
                 and len(model.cluster_entries) > 1 else "")
        if len(names) == 1:
            message = (f"{first.kind} {names[0]} depends on itself{where}: {does} it only once "
                       "its dependencies are Ready, and it never is, so it is never applied")
            fix = "Remove the entry."
        else:
            message = (f"{first.kind} {names[0]} depends on {names[1]}" + "".join(
                f", which depends on {n}" for n in (*names[2:], names[0])) + f"{where}: a "
                f"cycle, so {does} none of them (each waits for another to be Ready, and "
                "none ever is)")
            fix = ("Remove the entry that makes one of them wait for what needs it "
                   f"(the {len(names)} entries of the cycle are where this finding points).")
        found = [Violation(o, ("spec", "dependsOn", i, "name"), message, fix=fix,
                           kind="dependency-cycle") for o, i in cycle.entries]
        yield dataclasses.replace(found[0], others=tuple(found[1:]))


def _waits_on_itself(model: Model, obj: KObject, wanted: str) -> bool:
    """Whether Flux Kustomization ``obj`` waits for ``wanted`` ("ns/name"), which only its own
    build makes (:attr:`reviewbot.model.reach.Reach.stuck`), in some cluster."""
    reach = model.derived.get("reach")
    return reach is not None and any(
        file == obj.file and name == obj.name and why == wanted
        for (_, file, name), why in reach.stuck.items())


def _references_renamed(base: Model, head: Model) -> Iterator[Violation]:
    """In a review, a reference the head cannot meet because the change renames what it
    names (the one new name of its kind and namespace in its file): a ``spec.dependsOn``
    entry (``dependency``), a HelmRelease's chart source (``source``), an ImagePolicy's
    ImageRepository (``image-policy``). The finding names the new name, which the fix
    writes, and has a place at the rename, which the diff shows (new-user trials sixty-six
    W3 and sixty-seven D4: "which the cluster does not have", the error not inline). It
    tells the head's own finding of the reference, which the review then drops."""
    entries, _ = unmet(head)
    for found in entries:
        obj, (kind, namespace, name) = found.dependent, found.wanted
        does = ("kustomize-controller never applies it" if obj.kind == "Kustomization"
                else "helm-controller never installs or upgrades it")
        yield from _renamed_reference(
            base, head, obj, ("spec", "dependsOn", found.index, "name"), kind, namespace,
            name, "dependency", f"depends on {kind} {namespace}/{name}",
            f"{does}: it waits for a dependency that is not there", "dependsOn entry")
    for found in unmet_sources(head):
        obj, (kind, namespace, name) = found.dependent, found.wanted
        yield from _renamed_reference(
            base, head, obj, ("spec", "chartRef", "name") if found.index == 0 else (
                "spec", "chart", "spec", "sourceRef", "name"), kind, namespace, name, "source",
            f"takes its chart from {kind} {namespace}/{name}",
            "helm-controller cannot fetch the chart and never installs or upgrades the "
            "release", "chart source")
    for repo in unmet_image_repositories(head):
        namespace, name = repo.wanted
        yield from _renamed_reference(
            base, head, repo.policy, ("spec", "imageRepositoryRef", "name"), "ImageRepository",
            namespace, name, "image-policy", f"selects tags of ImageRepository {namespace}/{name}",
            "image-reflector-controller never selects an image for it: no image automation "
            "marker naming it is ever set", "imageRepositoryRef")


def _markers_left(base: Model, head: Model) -> Iterator[Violation]:
    """``image-policy``, in a review: image automation markers that an ImageUpdateAutomation
    of the base updated and none of the head does (the change narrowed an ``update.path``,
    removed the automation, or moved the file out): the fields keep the image they hold
    from then on (new-user trial sixty-seven D7: `./apps/home` narrowed to
    `./apps/home/web`, open-webui's marker left behind, a miss). A warning: leaving them
    may be meant. Once per file, at its first marker."""
    from reviewbot.model.dependencies import automations, markers, updating

    before, after = automations(base), automations(head)
    if not before:
        return
    for path, found in markers(head).items():
        if updating(after, path):
            continue
        was = updating(before, path) if path in base.files else []
        if not was:
            continue
        line, (setter, column, _) = min(found.items())
        names = ", ".join(f"{a.namespace}/{a.name}" for a in was)
        which = (f"its image automation marker {setter!r} is never set: the field keeps the "
                 "image it holds" if len(found) == 1 else f"its {len(found)} image automation "
                 f"markers ({setter!r} first) are never set: the fields keep the images they "
                 "hold")
        yield Violation(
            None, (), f"ImageUpdateAutomation {names} updated {path} before this change and "
            f"no automation does now (their update.path leaves it out), so {which}",
            kind="image-policy", file=path, line=line, column=column,
            key=f"image-policy {path} left", doubt="whether leaving the file to be updated "
            "by hand is meant", fix=f"Widen the update.path of ImageUpdateAutomation "
            f"{was[0].namespace}/{was[0].name} to cover {path}, or remove the markers.")


def _renamed_reference(base: Model, head: Model, obj: KObject, at: Path, kind: str,
                       namespace: str, name: str, finding: str, names: str, so: str,
                       entry: str) -> Iterator[Violation]:
    """The finding of ``obj``'s reference at ``at`` to ``kind`` ``namespace``/``name``
    (``names``: what it says of it, ``so``: what follows) where the change renamed that
    object; nothing where it did not."""
    was = next((o for o in base.objects if o.kind == kind and o.name == name
                and (o.namespace or "") == namespace), None)
    now = _renamed_as(was, base, head) if was is not None else None
    if was is None or now is None or now.group != was.group:
        return
    who = f"{obj.kind} {obj.namespace}/{obj.name}"
    fix = f"Name {now.name} in the {entry}, the {kind}'s new name."
    yield Violation(
        obj, at, f"{who} {names}, which this change renames to {now.name}, so {so}",
        kind=finding, fix=fix,
        others=(Violation(now, ("metadata", "name"), f"{kind} {namespace}/{name} is renamed "
                          f"to {now.name} here, and {who} still names {name}, so {so}",
                          fix=f"Name {now.name} in the {entry} of {who}.", kind=finding),))


def _entry_namespace(obj: KObject, i: int) -> bool:
    """Whether ``obj``'s ``spec.dependsOn[i]`` writes its namespace."""
    entries = obj.get(("spec", "dependsOn"))
    entry = entries[i] if isinstance(entries, list) and i < len(entries) else None
    return isinstance(entry, dict) and bool(entry.get("namespace"))


def _live(written: str, name: str) -> bool:
    """Whether ``name`` (``${VAR}``) stands in ``written`` outside a comment: in a text of
    several lines (a config file a ConfigMap or a release's values embed), on a line that
    does not start with ``#``. Flux empties it on a commented line too, where the program
    reading the file never looks (judge round EE: H3mul/homelab-k3s-flux's blocky config,
    `#   target: ${DB_USER}:${DB_PASSWORD}@...` under a `# queryLog:` left out)."""
    if "\n" not in written:
        return True
    return any(name in line and not line.lstrip().startswith("#")
               for line in written.splitlines())


def _unset_variables(model: Model) -> Iterator[Violation]:
    """``unset-variable``: a ``${VAR}`` (no default) an applied object writes that Flux's
    post-build substitution wrote as the empty string: no ``substitute`` value and no
    ``substituteFrom`` source of the Kustomization that applies it sets it (new-user trial
    thirty-six: `LLM_BASE_URL` renamed in the cluster's settings, an app's URL made ``""``).
    A source reviewbot cannot read leaves the variable unseen, not empty: not judged. Asked
    of the bodies the walk's substitution found naming such a variable (Reach.unset)."""
    reach = model.derived.get("reach")
    if reach is None or not reach.unset:
        return
    from reviewbot.model.objects import makers
    from reviewbot.model.substitute import emptied

    for obj in model.objects:
        unset = reach.unset.get(id(obj.body))
        doc = obj.doc
        if unset is None or doc is None or obj.annotations.get(
                "kustomize.toolkit.fluxcd.io/substitute") == "disabled":
            continue
        for path, written in _texts_with_variables(dig(doc.value, obj.path), ()):
            names = [n for n in emptied(written, obj.get(path), unset) if n[2:-1] in unset
                     and _live(written, n)]
            if not names:
                continue
            appliers = [m.applier for m in makers(model, obj) if m.applier is not None
                        and m.applier.kind == "Kustomization"]
            # (which cluster's, where several are: new-user trial thirty-nine's lab lacked
            # the variable home's settings set, and the warning named neither)
            clusters = sorted(model.clusters.get(id(obj), ())) if len(
                model.cluster_entries) > 1 else []
            whose = f"cluster {' and '.join(clusters)}'s " if clusters else ""
            by = (f" of {whose}Flux Kustomization {appliers[0].namespace}/{appliers[0].name}"
                  if appliers else "")
            sources = [f"{s.get('kind')} {s.get('name')}" for s in items(appliers[0].get(
                ("spec", "postBuild", "substituteFrom"))) if isinstance(s, dict)] if (
                appliers) else []
            read = f" ({', '.join(sources)})" if sources else ""
            text = ", ".join(names)
            message = (
                f"{format_path(path)}: {text} {'has' if len(names) == 1 else 'have'} no value "
                f"in the post-build substitution{by}: neither its substitute nor its "
                f"substituteFrom{read} sets {'it' if len(names) == 1 else 'them'}, so Flux "
                f"writes {'it' if len(names) == 1 else 'them'} as the empty string"
                + _reads(obj.get(path)) + _refused_host(obj, path, by))
            fix = (f"Set {text} in the Kustomization's postBuild (substitute, or the "
                   "ConfigMap or Secret it reads), give it a default ("
                   f"${{{names[0][2:-1]}:=...}}), or write $${{{names[0][2:-1]}}} where the "
                   "text is not Flux's.")
            meant, where = _set_alike(model, appliers[0], names[0][2:-1]) if appliers else (
                "", "")
            if meant:  # (new-user trial fifty-one: DOMAIN renamed BASE_DOMAIN there)
                fix = (f"Write ${{{meant}}}, which {where} sets (did you mean it?), "
                       f"or set {names[0]} there too.")
            # (where the variable would be set is the same cause's other place: a review
            # comments there when the change renamed it; new-user trial forty-nine)
            setting = ("spec", "postBuild", "substitute")
            at = (*setting, meant) if meant and where == "its substitute" else setting  # (the
            # key of close name, where the change renamed it: new-user trial fifty-one's
            # comment sat on `substitute:`)
            others = tuple(Violation(a, at, message, fix=fix, kind="unset-variable")
                           for a in appliers[:1] if isinstance(a.get(setting), dict))
            # (the key of close name in the ConfigMap or Secret it reads: where a change
            # renamed it, one problem however many places read the variable; new-user trial
            # seventy-two W1, CLUSTER_DOMAIN renamed in cluster-settings, five errors none of
            # them inline)
            source = _source_key(model, appliers[0], meant, where) if meant and (
                where != "its substitute") else None
            if source is not None:
                others = (Violation(source[0], source[1], message, fix=fix,
                                    kind="unset-variable"), *others)
            # (what the field holds: the variable no source sets; another variable of the
            # object whose value is sealed makes it no less certain, only how it reaches
            # its cluster may)
            yield Violation(obj, path, message, kind="unset-variable", fix=fix,
                            others=others, doubt=model.doubts.get(id(obj), ""),
                            cause=(f"unset-variable:{source[0].ref}:{names[0]}" if source
                                   is not None else None))


# a Flux variable as written (not ``$${...}``, which Flux writes as a literal ``${...}``)
_FLUX_VARIABLE = re.compile(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)(?:[:=\-?+][^}]*)?\}")


def _unsubstituted(model: Model) -> Iterator[Violation]:
    """``unsubstituted``: a ``${VAR}`` an object writes that a Flux Kustomization without
    ``postBuild`` applies, where another Flux Kustomization of its cluster substitutes that
    variable: Flux substitutes nothing there, so the cluster receives the text as written
    (new-user trial sixty-seven D2: Grafana's `hosts: [grafana.${CLUSTER_DOMAIN}]` under
    infra-controllers, which had no postBuild, while apps substitutes CLUSTER_DOMAIN from
    cluster-settings; "no findings"). Asked of the bodies the walk found so applied whose
    texts may spell a variable (``Reach.unsubstituted``)."""
    reach = model.derived.get("reach")
    if reach is None or not reach.unsubstituted:
        return
    setting: dict[str, dict[str, KObject]] = {}  # cluster -> variable -> a Kustomization
    for k in model.objects:
        if k.kind != "Kustomization" or k.group != "kustomize.toolkit.fluxcd.io" or (
                not isinstance(k.get(("spec", "postBuild")), dict)):
            continue
        keys = _substitution_keys(model, k)
        for cluster in model.clusters.get(id(k)) or (DEFAULT_CLUSTER,):
            for key in keys:
                setting.setdefault(cluster, {}).setdefault(key, k)
    if not setting:
        return
    for obj in model.objects:
        if id(obj.body) not in reach.unsubstituted or obj.file in model.unapplied:
            continue
        clusters = model.clusters.get(id(obj)) or (DEFAULT_CLUSTER,)
        wanted = {k for c in clusters for k in setting.get(c, {})}
        found = [(path, text, names) for path, text in _texts_with_variables(obj.body, ())
                 if (names := [n for n in _FLUX_VARIABLE.findall(text) if n in wanted])]
        if not found:
            continue
        appliers = [m.applier for m in makers(model, obj)]
        applier = appliers[0] if appliers else None
        if applier is None or not all(
                a is not None and a.kind == "Kustomization"
                and a.group == "kustomize.toolkit.fluxcd.io"
                and not isinstance(a.get(("spec", "postBuild")), dict) for a in appliers):
            continue
        path, text, names = found[0]
        name = names[0]
        other = next(setting[c][name] for c in clusters if name in setting.get(c, {}))
        written = f": the field reads {text!r}" if len(text) <= 80 and "\n" not in text else ""
        yield Violation(
            obj, path,
            f"{format_path(path)}: ${{{name}}} is left as written: Flux Kustomization "
            f"{applier.namespace}/{applier.name}, which applies it, has no postBuild, while "
            f"Flux Kustomization {other.namespace}/{other.name} substitutes {name}, so the "
            f"cluster receives the text as written{written}",
            kind="unsubstituted",
            fix=(f"Give Flux Kustomization {applier.namespace}/{applier.name} the postBuild "
                 f"that sets {name} ({other.namespace}/{other.name}'s), or write the value."),
            others=(Violation(applier, ("metadata", "name"), f"Flux Kustomization "
                              f"{applier.namespace}/{applier.name} has no postBuild, and "
                              f"{obj.kind} {obj.namespace or 'default'}/{obj.name} it applies "
                              f"writes ${{{name}}}, which it leaves as written",
                              kind="unsubstituted"),))


def _refused_host(obj: KObject, path: Path, by: str) -> str:
    """What the API server makes of an emptied Ingress rule's host it does not accept
    (``schema``'s check, said here once: new-user trial eighty-nine D11)."""
    host = obj.get(path)
    if obj.kind != "Ingress" or obj.api_version != "networking.k8s.io/v1" or len(path) != 4 or (
            path[:2] != ("spec", "rules") or path[3] != "host") or not isinstance(host, str) or (
            not host) or host_accepted(host):
        return ""
    return (", which is no DNS name the API server accepts: it refuses the Ingress"
            + (f", and the apply{by} fails" if by else ""))


def _reads(value: Any) -> str:
    """What a field a substitution emptied reads then, said when short (new-user trial
    fifty-seven read "the empty string" of `--max-num-seqs=${LLM_MAX_NUM_SEQS}`, not the
    argument vLLM is then given)."""
    if not isinstance(value, str) or not value or len(value) > 80 or "\n" in value:
        return ""  # (all of it the variable: "the empty string" says it)
    return f": the field reads {value!r}"


def _set_alike(model: Model, applier: KObject, name: str) -> tuple[str, str]:
    """The variable ``applier``'s post-build substitution sets that ``name`` most likely
    means (:func:`~reviewbot.words.meant_key`), and where it is set
    (:func:`_substitution_keys`: toboshii-home-ops' SECRET_DOMAIN_2 for the SOPS Secret's
    SECRET_PUBLIC_DOMAIN_2); ("", "") when none, or several."""
    from reviewbot.words import meant_key

    where = _substitution_keys(model, applier)
    if name in where:
        return "", ""
    meant = meant_key(name, list(where))
    return meant, where.get(meant, "")


def _source_key(model: Model, kustomization: KObject, key: str, where: str
                ) -> tuple[KObject, Path] | None:
    """The ConfigMap or Secret ``where`` names ("ConfigMap cluster-settings", as
    :func:`_substitution_keys` says it) that sets ``key`` for ``kustomization``, and the path
    of that key in it (``data``, ``stringData``)."""
    kind, _, name = where.partition(" ")
    index = model.derived.get("substitution-sources") or {}
    for obj in index.get((kind, kustomization.namespace or "", name), ()):
        for section in ("data", "stringData"):
            if isinstance(obj.get((section,)), dict) and key in obj.get((section,)):
                return obj, (section, key)
    return None


def _substitution_keys(model: Model, kustomization: KObject) -> dict[str, str]:
    """The variables a Flux Kustomization's ``postBuild`` sets, each with where ("its
    substitute", or the ConfigMap or Secret of its ``substituteFrom`` the repository
    declares in its namespace, SOPS keys in the clear): the substitute's first."""
    from reviewbot.model.substitute import config_data

    index: dict[tuple[str, str, str], list[KObject]] | None = model.derived.get(
        "substitution-sources")
    if index is None:
        index = model.derived["substitution-sources"] = {}
        for o in model.objects:
            if o.kind in ("ConfigMap", "Secret") and o.group == "":
                index.setdefault((o.kind, o.namespace or "", o.name), []).append(o)
    where = {str(k): "its substitute" for k in dict_of(kustomization.get(
        ("spec", "postBuild", "substitute")))}
    for source in items(kustomization.get(("spec", "postBuild", "substituteFrom"))):
        kind, named = dict_of(source).get("kind"), dict_of(source).get("name")
        for obj in index.get((str(kind), kustomization.namespace or "", str(named)), ()):
            for key in config_data(obj.body) or ():
                where.setdefault(str(key), f"{kind} {named}")
    return where


def _texts_with_variables(value: Any, path: Path) -> Iterator[tuple[Path, str]]:
    """Each string of ``value`` (at its path) that holds ``${``."""
    if isinstance(value, str):
        if "${" in value:
            yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _texts_with_variables(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _texts_with_variables(item, (*path, i))


def _substitutions(model: Model) -> Iterator[Violation]:
    """A Flux Kustomization's ``postBuild.substituteFrom`` entry (not optional) naming a
    ConfigMap or Secret its own namespace lacks while the repository declares one of that
    name in another (:func:`reviewbot.model.dependencies.unread_substitutions`):
    kustomize-controller reads it in the Kustomization's namespace, fails the build and
    applies nothing (new-user trial twenty-seven: a folder's `namespace: ai` moved the app
    Kustomizations out of flux-system, where `cluster-settings` is)."""
    for read in unread_substitutions(model):
        obj = read.dependent
        where = ", ".join(read.elsewhere)
        at: tuple[str | int, ...] = ("spec", "postBuild", "substituteFrom", read.index, "name")
        if obj.written(at)[0].file.path != obj.file:
            at = ("metadata", "name")  # (a parent's patch wrote it: the Kustomization's own)
        if read.lacking:  # (its namespace has one in other clusters only)
            which = " and ".join(f"cluster {c}" for c in read.lacking)
            yield Violation(
                obj, at,
                f"Flux Kustomization {obj.namespace}/{obj.name} takes postBuild values from "
                f"{read.kind} {read.name} in its own namespace, {obj.namespace}, which "
                f"{which} {'does' if len(read.lacking) == 1 else 'do'} not have (only "
                f"{where} {'has' if len(read.elsewhere) == 1 else 'have'} it): "
                "kustomize-controller reads its own cluster's, fails the build and applies "
                "nothing of it",
                kind="substitution",
                fix=(f"Declare {read.kind} {read.name} in {obj.namespace} of {which}, or name "
                     "one it has, or mark the entry optional."),
            )
            continue
        yield Violation(
            obj, at,
            f"Flux Kustomization {obj.namespace}/{obj.name} takes postBuild values from "
            f"{read.kind} {read.name} in its own namespace, {obj.namespace}, which has none "
            f"(the repository declares it in {where}): kustomize-controller fails the build "
            "and applies nothing of it",
            kind="substitution",
            fix=(f"Put the Kustomization in {read.elsewhere[0]} (a kustomization's "
                 "`namespace:` moves the Flux Kustomizations it lists too), or declare "
                 f"{read.kind} {read.name} in {obj.namespace}, or mark the entry optional."),
        )


def _sources(model: Model) -> Iterator[Violation]:
    """A HelmRelease's chart source (``chartRef``, ``chart.spec.sourceRef``: an
    OCIRepository or HelmRepository) that its cluster does not have
    (:func:`reviewbot.model.dependencies.unmet_sources`): helm-controller cannot fetch the
    chart, so it never installs or upgrades the release; the release stays as it was."""
    entries = unmet_sources(model)
    if not entries:
        return
    unseen = flux_unseen(model)
    for found in entries:
        obj, wanted, lacking = found.dependent, found.wanted, list(found.lacking)
        kind, namespace, name = wanted
        if (twin := _unplaced_twin(model, kind, name)) is not None:
            yield Violation(
                obj, ("spec", "chartRef", "name") if found.index == 0 else (
                    "spec", "chart", "spec", "sourceRef", "name"),
                f"HelmRelease {obj.namespace}/{obj.name} takes its chart from {kind} "
                f"{namespace}/{name}, which the repository declares only where what applies "
                f"it decides its namespace ({twin}): helm-controller finds it only if that "
                f"puts it in {namespace}", kind="source",
                doubt=f"the namespace {twin} is applied in",
                fix=f"Nothing to do if what applies {twin} puts it in {namespace}; else "
                    f"set its namespace to {namespace}.")
            continue
        where = ("the cluster does" if not model.cluster_entries or len(found.clusters) == 1
                 else f"cluster {lacking[0]} does" if len(lacking) == 1
                 else " and ".join(f"cluster {c}" for c in lacking) + " do")
        held = held_sources(model, lacking[0], kind, namespace)
        # (or one name holding the other: `kedacore` for the namespace's `keda`, new-user
        # trial eighty-one D3)
        near = closest(name, held) or next(iter(sorted(
            (abs(len(n) - len(name)), n) for n in held
            if len(n) >= 3 and (n in name or name in n))), (0, ""))[1]
        path = ("spec", "chartRef", "name") if found.index == 0 else (
            "spec", "chart", "spec", "sourceRef", "name")
        cannot = "helm-controller cannot fetch the chart and never installs or upgrades the release"
        yield Violation(
            obj, path,
            f"HelmRelease {obj.namespace}/{obj.name} takes its chart from {kind} "
            f"{namespace}/{name}, "
            + (f"{IN_PART}: if the cluster does not have it either, {cannot}" if in_part(
                model) else f"which {where} not have, so {cannot}")
            + (f" (did you mean {near}?)" if near else ""),
            kind="source", doubt=(unseen and flux_unseen_in(model, lacking, namespace))
            or _without_flux(model, lacking) or _part_doubt(model),
            fix=_elsewhere(in_part(model), (
                f"Name the {kind} the release's chart comes from ({near}), or add it."
                if near else f"Name {'an' if kind[0] in 'AEIOU' else 'a'} {kind} the "
                "cluster has" + (f" (the reference's namespace defaults to {obj.namespace})"
                                 if not obj.get((*path[:-1], "namespace")) else "")
                + ", or add it.")),  # (a reference writing its namespace: new-user trial
            # sixty-nine D8's "defaults to ai" beside `namespace: flux-system`)
        )


def _image_automation(model: Model) -> Iterator[Violation]:
    """Image automation markers no ImageUpdateAutomation that updates their file applies
    (:func:`reviewbot.model.dependencies.unmet_markers`), and ImagePolicies whose
    ImageRepository their cluster lacks (:func:`~reviewbot.model.dependencies.
    unmet_image_repositories`): either way image-automation-controller never sets the field,
    and the cluster keeps running the image written there."""
    markers = unmet_markers(model)
    repositories = unmet_image_repositories(model)
    if not markers and not repositories:
        return
    unseen = flux_unseen(model)
    for m in markers:
        if m.why == "digest-stale":
            yield _digest_stale(m)
            continue
        yield _digest_dropped(m) if m.why == "digest" else _marker_violation(m, (
            unseen and flux_unseen_in(model, (), m.policy[0] if m.policy else None))
            or _part_doubt(model))
    for r in repositories:
        obj, (namespace, name) = r.policy, r.wanted
        where = ("the cluster does" if not model.cluster_entries or len(r.lacking) == len(
            model.clusters.get(id(obj)) or ()) and len(r.lacking) == 1
            else " and ".join(f"cluster {c}" for c in r.lacking) + (
                " does" if len(r.lacking) == 1 else " do"))
        yield Violation(
            obj, ("spec", "imageRepositoryRef", "name"),
            f"ImagePolicy {obj.namespace}/{obj.name} selects tags of ImageRepository "
            f"{namespace}/{name}, which {where} not have: image-reflector-controller never "
            "selects an image for it, so no image automation marker naming it is ever set"
            + (f" (did you mean {r.near}?)" if r.near else ""),
            kind="image-policy",
            doubt=flux_unseen_in(model, list(r.lacking), namespace) or _part_doubt(model),
            fix=(f"Name the ImageRepository the policy selects from ({r.near}), or add it."
                 if r.near else f"Add ImageRepository {namespace}/{name}, or name one the "
                 "cluster has."),
        )


def _digest_dropped(m: Marker) -> Violation:
    """``digest-dropped``: a marker of the full image (``ns:name``) on a field that pins a
    digest, whose ImagePolicy reflects none (``digestReflectionPolicy`` Never, the
    default): image-automation-controller writes the policy's latest ``name:tag``, so its
    first update drops the pin (image-reflector-controller's ImageRef.String)."""
    namespace, name = m.policy or ("", "")
    return Violation(
        None, (), f"ImagePolicy {namespace}/{name}, which the marker {m.setter!r} names, "
        "reflects no digest (digestReflectionPolicy: Never, the default), so the first update "
        "of this field writes the image as name:tag and drops the digest it pins",
        kind="digest-dropped", file=m.file, line=m.line, column=m.column,
        key=f"digest-dropped {m.file} {m.setter}",
        # (not "mark the tag alone": a `:tag` marker writes the tag alone into the whole
        # field, `image: 1.2.4`; a new user from the README read it so)
        fix=f"Set digestReflectionPolicy: IfNotPresent (or Always) on ImagePolicy "
            f"{namespace}/{name}, so that the update writes the digest too.")


def _digest_stale(m: Marker) -> Violation:
    """``digest-stale``: a ``:tag`` marker on a kustomize ``images`` entry's ``newTag`` whose
    ``digest`` no ``:digest`` marker of the policy updates: image-automation-controller sets
    the tag alone, kustomize writes ``name:tag@digest``, and the runtime pulls the digest:
    after the first update the cluster runs the old image under the new tag."""
    namespace, name = m.policy or ("", "")
    return Violation(
        None, (), f"the marker {m.setter!r} updates this newTag from ImagePolicy "
        f"{namespace}/{name}, but the digest of the same images entry (line {m.where[0]}) is "
        "updated by no marker: after the first update kustomize writes the new tag with the "
        "old digest, which the runtime pulls, so the cluster keeps running the old image "
        "under the new tag",
        kind="digest-stale", file=m.file, line=m.line, column=m.column,
        key=f"digest-stale {m.file} {m.setter}",
        fix=f"Mark the digest too, digest: sha256:...  # {{\"$imagepolicy\": "
            f"\"{namespace}:{name}:digest\"}}, with digestReflectionPolicy: IfNotPresent (or "
            f"Always) on ImagePolicy {namespace}/{name}; or drop the digest.")


def _marker_violation(m: Marker, unseen: str | None) -> Violation:
    """The finding of one image automation marker no automation applies."""
    names = ", ".join(f"{a.namespace}/{a.name}" for a in m.automations)
    one = len(m.automations) == 1
    who = (f"ImageUpdateAutomation {names} updates" if one
           else f"ImageUpdateAutomations {names} update")
    key = f"image-policy {m.file} {m.setter}"
    if m.policy is None:
        return Violation(
            None, (), f"{who} {m.file}, but its marker {m.setter!r} names no ImagePolicy "
            "(a setter is namespace:name, with :tag, :name or :digest after it): "
            "image-automation-controller never sets the field, which keeps the image it has",
            kind="image-policy", file=m.file, line=m.line, column=m.column, key=key,
            fix="Write the marker as # {\"$imagepolicy\": \"NAMESPACE:POLICY\"}.")
    namespace, name = m.policy
    policy = f"ImagePolicy {namespace}/{name}"
    if m.why == "absent":
        said = (f"{policy}, which the repository does not declare"
                + (f" (did you mean {m.near}?)" if m.near else ""))
        fix = (f"Name the policy {namespace}:{m.near} in the marker, or add {policy}."
               if m.near else f"Add {policy} beside the automation, or name one it applies.")
        doubt = unseen
    elif m.why == "namespace":
        spaces = sorted({a.namespace or "" for a in m.automations})
        said = (f"{policy}, while {'the automation reads' if one else 'the automations read'}"
                f" only the ImagePolicies of {' and '.join(spaces)}")
        fix = (f"Move {policy} to {spaces[0]} and name it {spaces[0]}:{name} in the marker, "
               f"or add an ImageUpdateAutomation in {namespace}.")
        doubt = None
    elif m.why == "unselected":
        said = (f"{policy}, which {'its' if one else 'their'} spec.policySelector leaves "
                "out")
        fix = f"Label {policy} so that the automation's policySelector selects it."
        doubt = None
    else:  # "cluster"
        clusters = " and ".join(f"cluster {c}" for c in m.where)
        said = (f"{policy}, which only {clusters} {'has' if len(m.where) == 1 else 'have'}, "
                f"and no ImageUpdateAutomation of {namespace} runs there")
        fix = f"Add {policy} to the cluster whose automation updates {m.file}."
        doubt = None
    return Violation(
        None, (), f"{who} {m.file}, but its marker {m.setter!r} names {said}: "
        "image-automation-controller never sets the field, which keeps the image it has",
        kind="image-policy", file=m.file, line=m.line, column=m.column, key=key, fix=fix,
        doubt=doubt)


def _elsewhere(part: bool, fix: str) -> str:
    """``fix``, of an absence a lint of part of a repository finds when ``part``: nothing
    to do if the rest of the repository defines what is absent."""
    if not part:
        return fix
    return ("Nothing to do if the rest of the repository defines it for the cluster; else "
            f"{fix[:1].lower()}{fix[1:]}")


def _part_doubt(model: Model) -> str | None:
    """What a finding of an absence could not see in a lint of part of a repository
    (:func:`~reviewbot.model.dependencies.in_part`) when the engine's own doubt of that
    lint (``Model.scope_doubt``: roots outside the linted files) does not say it."""
    return PART_DOUBT if in_part(model) and not model.scope_doubt else None


# Flux's controllers, as its install names their Deployments
FLUX_CONTROLLERS = frozenset({"source-controller", "kustomize-controller", "helm-controller"})


def _without_flux(model: Model, clusters: Sequence[str]) -> str | None:
    """What a Flux finding of ``clusters`` could not see when each is a kustomization the
    repository's own script applies with kubectl (a local cluster) and nothing it applies
    installs Flux's controllers: whether Flux runs there at all (judge round BE:
    bokristoffersson/homelab-k12n-gitops' "local k3d cluster (no Flux)" Makefile target)."""
    reach = model.derived.get("reach")
    if reach is None or not clusters:
        return None
    how = {r.cluster: r for r in reach.roots}
    roots = [how.get(c) for c in clusters]
    if any(r is None or not r.how.startswith(SCRIPTED[1]) for r in roots):
        return None
    names = set(clusters)
    if any(o.kind == "FluxInstance" or (o.kind == "Deployment" and o.name in FLUX_CONTROLLERS)
           for o in model.objects if names & model.clusters.get(id(o), frozenset())):
        return None
    r = roots[0]
    assert r is not None
    script = r.how.removeprefix(SCRIPTED[1])
    return (f"whether Flux runs in cluster {clusters[0]}: {script} applies {r.path} with "
            "kubectl, and nothing it applies installs Flux's controllers")


def _unplaced_twin(model: Model, kind: str, name: str) -> str | None:
    """The file of an object of ``kind`` and ``name`` whose namespace is what applies it
    decides, or None: one that names no namespace and that no build gave one, or, in a
    tree no root of which shows what applies it, any (a Flux Kustomization's
    ``targetNamespace`` replaces the one written: opencenter-gitops-base, a repository of
    bases its consumers apply with one, judge round BC). A reference to that name in any
    namespace may be to it."""
    rootless = model.derived.get("reach") is None
    for obj in model.objects:
        if obj.kind == kind and obj.name == name and (rootless or not dict_of(
                obj.body.get("metadata")).get("namespace")):
            return obj.file
    return None


def _dependency_hint(model: Model, held: Mapping[str, set[Id]], lacking: Sequence[str],
                     wanted: Id, own: Id) -> tuple[str, bool]:
    """Where a missing dependency is after all: one of its name in another namespace of the
    cluster, a file no cluster root applies (then True: the repository's own, not applied),
    another cluster, or a name holding it; never the dependent itself (``own``: a name
    holding `cluster-apps-messaging-strimzi-operator`'s `messaging` was its own, judge
    round BD)."""
    kind, namespace, name = wanted
    ids = held.get(lacking[0], set()) - {own}
    other = sorted(ns for k, ns, n in ids if k == kind and n == name)
    if other:
        return (f" ({kind} {other[0]}/{name} is in the cluster: the entry's namespace "
                f"defaults to the dependent's own)", False)
    # of the unapplied files declaring it, one of its namespace and out of the folders kept
    # aside first (judge round BW named an archive/ copy before the app whose ks.yaml the
    # cluster's kustomization comments out)
    declared = sorted(
        (dict_of(value.get("metadata")).get("namespace") not in (None, namespace),
         kept_aside(doc.file.path), doc.file.path)
        for doc in model.documents
        if doc.file.path in model.unapplied and isinstance(value := doc.value, dict)
        and value.get("kind") == kind and dict_of(value.get("metadata")).get("name") == name)
    if declared:
        return (f" ({declared[0][2]} declares it, and no cluster root applies that file)",
                True)
    elsewhere = sorted(c for c, found in held.items() if wanted in found and c not in lacking)
    if elsewhere:
        return f" (only cluster {elsewhere[0]} has it)", False
    meant = _meant_dependency(ids, wanted)
    if meant:
        return f" (did you mean {kind} {meant}?)", False
    return "", False


def _meant_dependency(ids: Collection[Id], wanted: Id) -> str:
    """The ``namespace/name`` a missing dependency's entry likely means (a name holding the
    one written, a close name of its namespace, one a word shorter), else ""."""
    kind, namespace, name = wanted
    alike = sorted((len(n), f"{ns}/{n}") for k, ns, n in ids if k == kind and name in n)
    if alike:
        return alike[0][1]
    # a name written longer than the one the cluster has (`apps-database` for `apps-db`, a
    # new-user trial): the closest of its namespace, at a looser ratio than a typo's
    near = closest(name, [n for k, ns, n in ids if k == kind and ns == namespace],
                   cutoff=DEPENDENCY_LIKENESS)
    if not near:  # else a name the written one is with one word more (`vllm-server` for
        # `vllm`: new-user trial thirty-one), the longest of its namespace
        near = next((n for _, n in sorted(
            (-len(n), n) for k, ns, n in ids if k == kind and ns == namespace
            and len(name) > len(n) and one_word_apart(name, n))), "")
    return f"{namespace}/{near}" if near else ""


_ArgoSource = tuple[KObject, Path, str, tuple[str, str], str | None]


def _argo_paths(model: Model, index: TreeIndex, graph: Graph) -> Iterator[Violation]:
    """An Argo CD Application's source path that no folder holds, judged as a Flux
    ``spec.path`` is: when another Application's source of the same repository and revision
    resolves in the tree (so that repository is this one), or the checkout's git remote
    names it and the path misspells a folder here (the walk's misspelt root), and the folder
    it names lies in the linted part. A path another repository holds (a different
    ``repoURL``) is never judged; nor is an ApplicationSet's template (its generators make
    the paths)."""
    sources, here = _argo_sources(model, index, graph)
    reach = model.derived.get("reach")
    roots = reach.roots if reach is not None else []
    by_hand = {r.file: r.how for r in roots} if all(
        r.how in GUESSED_ROOTS for r in roots) else {}
    misspelt = reach.remote_misspelt if reach is not None else {}
    for obj, at, path, key, target in sources:
        roots = here.get(key, ())
        if target is None and any(index.covers(_joined(root, path)) for root in roots):
            near = next((n for root in roots if (n := near_path(
                path, _joined(root, path), graph.dirs))), "")
            yield _no_folder(obj, at, path, f"other Applications of {key[0]} at {key[1]} "
                             "resolve here", near, "repository", "", _left_over(
                                 obj, by_hand, reach.resolved_before if reach else frozenset()))
        elif target is None and (remote := misspelt.get(obj.file)) is not None and (
                remote == (key[0], path)):  # (its only Application: the git remote tells)
            near = near_path(path, _joined("", path), graph.dirs)
            yield _no_folder(obj, at, path, f"the checkout's git remote is {key[0]}", near,
                             "repository")


def _argo_value_files(model: Model, index: TreeIndex, graph: Graph) -> Iterator[Violation]:
    """An Argo CD Application's ``helm.valueFiles`` entry naming no file of the chart folder
    its source ``path`` resolves to (Argo CD joins an entry to the chart's folder): Helm
    fails the template, so Argo CD generates no manifests and syncs nothing, unless
    ``ignoreMissingValueFiles`` (new-user trial twenty-nine: `values-prod.yaml` renamed,
    the Application kept naming it: "no new findings"). So is another source's
    ``$ref/path`` where that source's repository and revision are this tree's (other
    Applications' paths resolve here), the file at no root of it (new-user trial
    seventy-six D2). Entries that are URLs, absolute or templated are not judged."""
    unapplied = model.unapplied
    here: dict[tuple[str, str], set[str]] | None = None
    for obj in model.of_kind("Application"):
        if obj.group != ARGO_GROUP or obj.file in unapplied:
            continue
        spec = obj.get(("spec",))
        if here is None and any(isinstance(f, str) and f.startswith("$") for _, source in
                                argo_sources(spec if isinstance(spec, dict) else {})
                                for f in _list(dict_of(source.get("helm")).get("valueFiles"))):
            here = _argo_sources(model, index, graph)[1]
        yield from _ref_value_files(obj, spec if isinstance(spec, dict) else {}, here or {},
                                    index, graph)
        yield from _chart_value_files(obj, spec if isinstance(spec, dict) else {}, index, graph)
    yield from _generated_value_files(model, index, graph)


def _generated_value_files(model: Model, index: TreeIndex, graph: Graph
                           ) -> Iterator[Violation]:
    """:func:`_argo_value_files` of each Application an applied ApplicationSet generates
    that installs a chart of a Helm repository (:attr:`~reviewbot.model.reach.Reach.
    generated_charts`), its template's entries filled by the generator's parameters (new-
    user trial eighty D3: `$values/.../values-{{.env}}.yaml`, values-staging.yaml renamed,
    "no new findings"), at the template's entry, once per file."""
    reach = model.derived.get("reach")
    generated = reach.generated_charts if reach is not None else {}
    if not generated:
        return
    here = _argo_sources(model, index, graph)[1]
    seen: set[tuple[Any, ...]] = set()
    for obj in model.of_kind("ApplicationSet"):
        if obj.group != ARGO_GROUP or obj.file in model.unapplied:
            continue
        for app, filled in generated.get((obj.file, obj.name), ()):
            for found in _ref_value_files(obj, filled, here, index, graph, app):
                key = (found.path, found.message)
                if key not in seen:
                    seen.add(key)
                    yield found


def _chart_value_files(obj: KObject, spec: Mapping[str, Any], index: TreeIndex,
                       graph: Graph) -> Iterator[Violation]:
    """:func:`_argo_value_files`' entries of a chart folder of this repository (its source
    ``path``): Argo CD joins each to that folder."""
    for at, source in argo_sources(spec):
        path, helm = source.get("path"), dict_of(source.get("helm"))
        files = helm.get("valueFiles")
        if not isinstance(path, str) or not isinstance(files, list) or source.get(
                "chart") or helm.get("ignoreMissingValueFiles") is True:
            continue
        folder = graph.argo_folder(obj.file, path)
        if folder is None or not index.covers(folder) or (
                join(folder, "Chart.yaml") not in index.files):
            continue
        for j, entry in enumerate(files):
            if not isinstance(entry, str) or not entry.strip() or entry.startswith(
                    ("$", "/")) or "://" in entry or "{{" in entry or "${" in entry:
                continue
            target = join(folder, entry.strip())
            if not index.covers(target) or target in index.files or graph.gitignored(
                    target) or graph.written_by(target):
                continue
            parent = posixpath.dirname(target)
            near = near_path(entry.strip(), target, [*index.entries_in(parent)[1], parent])
            yield _values_file_missing(
                obj, (*at, "helm", "valueFiles", j),
                f"helm.valueFiles[{j}]: {entry!r} does not exist in {folder}, the chart's "
                "folder Argo CD reads it from", near, "the chart's folder")


def _ref_value_files(obj: KObject, spec: Mapping[str, Any],
                     here: Mapping[tuple[str, str], set[str]], index: TreeIndex,
                     graph: Graph, app: str | None = None) -> Iterator[Violation]:
    """:func:`_argo_value_files`' ``$ref/path`` entries: Argo CD reads the file from the
    root of the ``ref`` source's repository at its revision; where that is this tree and no
    root of it holds the file, Helm fails the template. ``app``: the name of the
    Application ApplicationSet ``obj`` generates with ``spec`` (its template filled), where
    the finding is placed at the template's entry."""
    sources = list(argo_sources(spec))
    refs = {str(s["ref"]): (url, str(s.get("targetRevision") or "HEAD").strip())
            for _, s in sources if isinstance(s.get("ref"), str) and s["ref"]
            and (url := source_url(s.get("repoURL"))) is not None}
    for at, source in sources:
        helm = dict_of(source.get("helm"))
        if helm.get("ignoreMissingValueFiles") is True:
            continue
        for j, entry in enumerate(_list(helm.get("valueFiles"))):
            found = ref_value_file(entry)
            if found is None or "{{" in entry or "${" in entry or "}}" in entry:
                continue
            ref, rest = found
            roots = here.get(refs.get(ref, ("", "")), set())
            if not roots or rest.startswith(".."):
                continue
            targets = [join(root, rest) if root else rest for root in sorted(roots)]
            if not all(index.covers(t) for t in targets) or any(
                    t in index.files or graph.gitignored(t) or graph.written_by(t)
                    for t in targets):
                continue
            target = targets[0]
            parent = posixpath.dirname(target)
            near = near_path(rest, target, [*index.entries_in(parent)[1], parent])
            yield _values_file_missing(
                obj, (*at, "helm", "valueFiles", j),
                f"helm.valueFiles[{j}]: {entry!r} names {target}, which does not exist in "
                f"this repository (the {ref!r} source's)", near, "the repository", app)


def _values_file_missing(obj: KObject, at: tuple[Any, ...], what: str, near: str,
                         among: str, app: str | None = None) -> Violation:
    """An Argo CD Application's values file Helm cannot read (``what``, at ``spec`` +
    ``at``): Helm fails, the Application syncs nothing; the fix names the file of a close
    name, ``near``, else one of ``among``. ``app``: the name of the Application
    ApplicationSet ``obj`` generates (at its template's ``spec`` + ``at``)."""
    name = f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name
    if app is not None:
        return Violation(
            obj, ("spec", "template", "spec", *at),
            f"ApplicationSet {name} generates Application {app}, whose "
            f"{what.replace(': ', ' ', 1)}, so Helm fails and {app} generates no "
            "manifests: it syncs nothing until the file is there", kind="missing",
            fix=(f"Point the entry at {near!r}, the file of a close name, " if near
                 else f"Point the entry at a values file of {among}, ")
            + "add the file, or set ignoreMissingValueFiles: true if it is optional.")
    return Violation(
        obj, ("spec", *at), f"{what}, so Helm fails and Application {name} generates no "
        "manifests: it syncs nothing until the file is there", kind="missing",
        fix=(f"Point the entry at {near!r}, the file of a close name, " if near
             else f"Point the entry at a values file of {among}, ")
        + "add the file, or set ignoreMissingValueFiles: true if it is optional.")


def _flux_values_files(model: Model, index: TreeIndex, graph: Graph) -> Iterator[Violation]:
    """A Flux HelmRelease's ``spec.chart.spec.valuesFiles`` entry naming no file of the tree,
    where its chart is a folder of this repository (a GitRepository's path, relative to its
    root): source-controller cannot package the chart with values it does not find, so the
    release is not upgraded, unless ``ignoreMissingValuesFiles`` (new-user trial fifty-one:
    `values-worker.yaml` renamed, "no findings"; Argo CD's were judged)."""
    unapplied = model.unapplied
    for obj in model.of_kind("HelmRelease"):
        if obj.group != "helm.toolkit.fluxcd.io" or obj.file in unapplied:
            continue
        spec = dict_of(obj.get(("spec", "chart", "spec")))
        chart, files = spec.get("chart"), spec.get("valuesFiles")
        if not isinstance(chart, str) or not isinstance(files, list) or dict_of(
                spec.get("sourceRef")).get("kind") != "GitRepository" or (
                spec.get("ignoreMissingValuesFiles") is True):
            continue
        folder = source_path(chart)
        if join(folder, "Chart.yaml") not in index.files:
            continue  # (a chart of another repository)
        for j, entry in enumerate(files):
            if not isinstance(entry, str) or not entry.strip() or "${" in entry:
                continue
            target = source_path(entry)
            if not index.covers(target) or target in index.files or graph.gitignored(
                    target) or graph.written_by(target):
                continue
            parent = posixpath.dirname(target)
            near = near_path(entry.strip(), target, [*index.entries_in(parent)[1], parent])
            yield Violation(
                obj, ("spec", "chart", "spec", "valuesFiles", j),
                f"spec.chart.spec.valuesFiles[{j}]: {entry!r} does not exist in this "
                f"repository, which source-controller reads it from (relative to its root), "
                f"so it cannot package the chart in {folder}: HelmRelease "
                f"{obj.namespace}/{obj.name} is not upgraded until the file is there",
                kind="missing",
                fix=(f"Point the entry at {near!r}, the file of a close name, " if near
                     else "Point the entry at a values file of the repository, ")
                + "add the file, or set ignoreMissingValuesFiles: true if it is optional.")


def _argo_sources(model: Model, index: TreeIndex, graph: Graph
                  ) -> tuple[list[_ArgoSource], dict[tuple[str, str], set[str]]]:
    """Each Application's judged source paths (the object, the field, the path, its
    repository and revision, the folder it names or None), and, per repository and revision,
    the folders of the tree the roots of those that resolve here are at."""
    sources: list[_ArgoSource] = []
    here: dict[tuple[str, str], set[str]] = {}  # repository and revision -> its roots here
    for obj in model.objects:
        if obj.kind != "Application" or obj.group != ARGO_GROUP:
            continue
        spec = obj.get(("spec",))
        for at, source in argo_sources(spec if isinstance(spec, dict) else {}):
            path, url = source.get("path"), source_url(source.get("repoURL"))
            if (not isinstance(path, str) or url is None or source.get("chart")
                    or "{{" in path or "${" in path or flux_rel(path).startswith("..")):
                continue
            key = (url, str(source.get("targetRevision") or "HEAD").strip())
            target = graph.argo_folder(obj.file, path)
            if target is not None and target != "" and not index.covers(target):
                target = None
            if target is not None:
                here.setdefault(key, set()).add(_source_root(target, path))
            sources.append((obj, ("spec", *at, "path"), path, key, target))
    reach = model.derived.get("reach")
    # (an ApplicationSet's generated sources that resolve show its repository is this one
    # too: new-user trial twenty-six's app of apps, the only Application of its repository)
    generated = reach.generated_sources if reach is not None else {}
    for obj in model.of_kind("ApplicationSet") if generated else ():
        template = dict_of(dict_of(obj.get(("spec", "template"))).get("spec"))
        for _, source in argo_sources(template):
            url = source_url(source.get("repoURL"))
            revision = str(source.get("targetRevision") or "HEAD").strip()
            if url is None or "{{" in url or "{{" in revision:
                continue
            for path, _ in generated.get((obj.file, obj.name), ()):
                target = graph.argo_folder(obj.file, path)
                if target and index.covers(target):
                    here.setdefault((url, revision), set()).add(_source_root(target, path))
    return sources, _this_repository(here, sources)


def _this_repository(here: dict[tuple[str, str], set[str]], sources: Sequence[_ArgoSource]
                     ) -> dict[tuple[str, str], set[str]]:
    """``here`` (repository and revision -> its roots in the tree) kept to the one
    repository this tree is, where the paths of two resolve in it: the one most
    Applications' sources resolve for (a tie keeps both). Two repositories are not both
    this checkout: knowledgesystems' private portal-configuration mirrors the deployment
    repository's folders, and its multi-source Applications' second sources were said to
    name folders "this repository" lacks (19 false errors, judge round BT)."""
    urls = {url for url, _ in here}
    if len(urls) < 2:
        return here
    counts = {url: len({id(obj) for obj, _, _, key, target in sources
                        if key[0] == url and target is not None}) for url in urls}
    most = max(counts.values())
    return {key: roots for key, roots in here.items() if counts[key[0]] == most}


def _generated_paths(model: Model, index: TreeIndex, graph: Graph) -> Iterator[Violation]:
    """A path an ApplicationSet's evaluated generators give one of its Applications (a list
    element `{env: qa}` for `envs/{{env}}`) that no folder holds, where another of its
    Applications' paths resolves here (so the repository is this one): Argo CD cannot
    generate that Application's manifests ("app path does not exist"), and it syncs nothing
    (new-user trial twenty-one: `envs/qa`, and `envs/staging` deleted with its element
    kept, said nothing). At the template's source path, naming the path."""
    reach = model.derived.get("reach")
    generated = reach.generated_sources if reach is not None else {}
    elsewhere: dict[tuple[str, str], set[str]] | None = None  # (others' roots: read once)
    for obj in model.objects:
        if obj.kind != "ApplicationSet" or obj.group != ARGO_GROUP:
            continue
        paths = [p for p, _ in generated.get((obj.file, obj.name), ())]
        found = {p: graph.argo_folder(obj.file, p) for p in paths}
        # (a generated path is judged in the repository of those that resolve: a list
        # element's `gitRepo` may name another, christianh814/gitops-examples' green)
        urls = reach.generated_urls.get((obj.file, obj.name), {}) if reach is not None else {}
        here = {urls.get(p) for p, t in found.items() if t is not None}
        template = obj.get(("spec", "template", "spec"))
        sources = list(argo_sources(template if isinstance(template, dict) else {}))
        at = next((("spec", "template", "spec", *where, "path") for where, source in
                   sources if isinstance(source.get("path"), str)), ("spec", "template"))
        why = "the paths of its other Applications resolve here"
        if not here and paths:
            # none of its own resolves: other Applications of its repository and revision
            # that resolve here tell it is this one (trial 84 D2: `serving/overlay/{{.env}}`
            # beside an ApplicationSet of the same repoURL whose paths resolve, an info)
            revision = next((str(source.get("targetRevision") or "HEAD").strip()
                             for _, source in sources), "")
            if elsewhere is None:
                elsewhere = _argo_sources(model, index, graph)[1]
            keys = {(u, revision) for u in urls.values() if u and "{{" not in u + revision}
            roots = {root for key in keys for root in elsewhere.get(key, ())}
            if roots and all(t is None for t in found.values()) and all(
                    index.covers(_joined(root, p)) for root in roots for p in paths):
                here = set(urls.values())
                key = next(iter(sorted(keys)))
                why = f"other Applications of {key[0]} at {key[1]} resolve here"
        if not here:
            continue  # none resolves: another repository's, or not seen
        lost = [path for path, target in found.items()
                if target is None and urls.get(path) in here and not flux_rel(path).startswith(
                    "..") and index.covers(flux_rel(path))]
        if not lost:
            continue
        # one finding of the ApplicationSet, at the list element whose value misspells a
        # folder's name when one does (new-user trial thirty-two: `overlay: production` for
        # prod gave five errors at the template's path, off the diff)
        written, meant = _respelt(flux_rel(lost[0]), graph.dirs)
        element = _element_writing(obj, written) if meant else None
        shown = ", ".join(repr(p) for p in lost[:3]) + (
            f" and {len(lost) - 3} more" if len(lost) > 3 else "")
        what = (f"an Application for path {shown}, which does" if len(lost) == 1 else
                f"{len(lost)} Applications for paths {shown}, which do")
        yield Violation(
            obj, element or at,
            f"ApplicationSet {obj.namespace}/{obj.name} generates {what} not exist in this "
            f"repository ({why}): Argo CD cannot "
            f"generate {'its' if len(lost) == 1 else 'their'} manifests and syncs nothing"
            + (f" (its element's {written!r} names no folder: did you mean {meant!r}?)"
               if element else ""), kind="missing",
            fix=(f"Write {meant!r} for {written!r} in the element." if element else
                 f"Write {meant!r} for {written!r} in the template's path." if meant and all(
                     written in flux_rel(p).split("/") for p in lost) and written in str(
                         obj.get(at)).split("/") else
                 f"Add the folder {lost[0]}, or drop the generator's element for it."))


def _respelt(path: str, dirs: Collection[str]) -> tuple[str, str]:
    """The first name of ``path`` that no folder beside it has, and the name of the folder
    beside it it most likely means (a misspelling of it, or one that starts the other:
    `production` for `prod`), "" when none."""
    from reviewbot.words import misspelt

    parts = path.split("/")
    for i, name in enumerate(parts):
        parent = "/".join(parts[:i])
        if posixpath.join(parent, name) in dirs:
            continue
        siblings = sorted(d.rpartition("/")[2] for d in dirs if posixpath.dirname(d) == parent
                          and d)
        starts = [s for s in siblings if name.startswith(s) or s.startswith(name)]
        return name, misspelt(name, siblings) or (starts[0] if len(starts) == 1 else "")
    return "", ""


def _element_writing(appset: KObject, value: str) -> Path | None:
    """Where a list generator's element of ``appset`` (in a matrix or merge generator's too)
    writes ``value``, or None."""
    def walk(generators: Any, at: Path) -> Path | None:
        for i, generator in enumerate(_list(generators)):
            if not isinstance(generator, dict):
                continue
            listed = generator.get("list")
            for j, element in enumerate(_list(listed.get("elements"))
                                        if isinstance(listed, dict) else []):
                for key, item in (element.items() if isinstance(element, dict) else ()):
                    if item == value:
                        return (*at, i, "list", "elements", j, key)
            for nested in ("matrix", "merge"):
                inner = generator.get(nested)
                found = walk(inner.get("generators"), (*at, i, nested, "generators")) if (
                    isinstance(inner, dict)) else None
                if found is not None:
                    return found
        return None

    return walk(appset.get(("spec", "generators")), ("spec", "generators"))


def _idle_generators(model: Model, index: TreeIndex, graph: Graph) -> Iterator[Violation]:
    """An ApplicationSet's git directory generator entry (not ``exclude``) that names no
    folder of the repository, when another entry of the same generator names one (so its
    repository is this one): Argo CD makes no Application for it, and says nothing
    (new-user trial twelve: `infra/sealed-secrets`, a folder never written). Entries with a
    template (``{{``) or outside the linted part are not judged."""
    for obj in model.objects:
        if obj.kind != "ApplicationSet" or obj.group != ARGO_GROUP:
            continue
        for at, git in _git_generators(obj.get(("spec", "generators"))):
            entries = [(j, d) for j, d in enumerate(_list(git.get("directories")))
                       if isinstance(d, dict) and isinstance(d.get("path"), str)
                       and not d.get("exclude") and "{{" not in d["path"]]
            matched = {j for j, d in entries if any(
                path_match(folder, d["path"]) for folder in graph.dirs)}
            if not matched:
                continue  # (none names a folder here: another repository's, not judged)
            for j, d in entries:
                pattern = d["path"].strip().strip("/")
                if j in matched or not index.covers(pattern.split("*")[0].rstrip("/") or "."):
                    continue
                where = (*at, "git", "directories", j, "path")
                field = ".".join(p if isinstance(p, str) else f"[{p}]"
                                 for p in where[1:]).replace(".[", "[")
                yield Violation(
                    obj, where,
                    f"{field}: {pattern!r} names no folder of this repository, so the "
                    "ApplicationSet makes no Application for it, without an error",
                    kind="idle-generator",
                    fix="Point the entry at an existing folder, or remove it.")


def _generators_emptied(base: Model, head: Model) -> Iterator[Violation]:
    """``missing``, in a review: an ApplicationSet's git directory generator entry (not
    ``exclude``, no template) that named folders of the repository before the change and
    names none after it, the folders moved or gone: the ApplicationSet makes none of the
    Applications it made from them (new-user trial fifty-eight: `apps/*` after apps/ became
    workloads/; the deletions were said, the generator, their cause, was not)."""
    if next(base.of_kind("ApplicationSet"), None) is None:
        return
    before_dirs, after_dirs = model_graph(base).dirs, model_graph(head).dirs
    was = {(o.namespace, o.name, o.file): o for o in base.of_kind("ApplicationSet")
           if o.group == ARGO_GROUP}
    for obj in head.of_kind("ApplicationSet"):
        old = was.get((obj.namespace, obj.name, obj.file))
        if obj.group != ARGO_GROUP or old is None:
            continue
        earlier = {tuple(at): git for at, git in _git_generators(
            old.get(("spec", "generators")))}
        for at, git in _git_generators(obj.get(("spec", "generators"))):
            then = earlier.get(tuple(at))
            paths = {str(d.get("path")) for d in _list(then.get("directories") if then else ())
                     if isinstance(d, dict) and not d.get("exclude")}
            for j, d in enumerate(_list(git.get("directories"))):
                pattern = d.get("path") if isinstance(d, dict) else None
                if not isinstance(pattern, str) or d.get("exclude") or "{{" in pattern or (
                        pattern not in paths):
                    continue
                matched = sorted(f for f in before_dirs if path_match(f, pattern))
                if not matched or any(path_match(f, pattern) for f in after_dirs):
                    continue
                shown = ", ".join(matched[:3]) + (
                    f" and {len(matched) - 3} more" if len(matched) > 3 else "")
                yield Violation(
                    obj, (*at, "git", "directories", j, "path"),
                    f"ApplicationSet {obj.namespace}/{obj.name}: {pattern!r} named {shown} "
                    "before this change and names no folder now, so the ApplicationSet no "
                    "longer makes " + ("the Applications it made from them" if len(
                        matched) > 1 else "the Application it made from it"), kind="missing",
                    fix="Point the entry at the folders' new place, or restore them.")


def _git_generators(generators: Any, at: Path = ("spec", "generators"), kind: str = "git"
                    ) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """The git generators (or those of another ``kind``: ``clusters``) of an ApplicationSet's
    ``generators`` (in a matrix or merge generator's too), each with its path in the
    object."""
    for i, generator in enumerate(_list(generators)):
        if not isinstance(generator, dict):
            continue
        if isinstance(generator.get(kind), dict):
            yield (*at, i), generator[kind]
        for nested in ("matrix", "merge"):
            inner = generator.get(nested)
            if isinstance(inner, dict):
                yield from _git_generators(inner.get("generators"),
                                           (*at, i, nested, "generators"), kind)


def _idle_cluster_selectors(model: Model) -> Iterator[Violation]:
    """``idle-generator``: an ApplicationSet's clusters generator whose ``matchLabels``
    select no cluster Secret of the repository, where one carries every label it names,
    one of them spelt apart (`V100` for `v100`, `egde` for `edge`): Argo CD makes no
    Application from it, without an error (new-user trial seventy-three D3: a lint said
    nothing of the typo a review called deleting every app). At the label misspelt."""
    from reviewbot.model.reach import secret_data
    from reviewbot.words import misspelt

    secrets = [o for o in model.objects if o.kind == "Secret" and o.group == "" and (
        o.labels.get("argocd.argoproj.io/secret-type") == "cluster")]
    if not secrets:
        return
    for obj in model.objects:
        if obj.kind != "ApplicationSet" or obj.group != ARGO_GROUP:
            continue
        for at, clusters in _git_generators(obj.get(("spec", "generators")), kind="clusters"):
            wanted = dig(clusters, ("selector", "matchLabels"))
            if not isinstance(wanted, dict) or not wanted or any(
                    not isinstance(v, str) or "{{" in v for v in wanted.values()) or any(
                    all(s.labels.get(k) == v for k, v in wanted.items()) for s in secrets):
                continue
            near: dict[tuple[str, str, str], list[str]] = {}  # (key, value, theirs) -> clusters
            for secret in secrets:
                apart = [(k, v, secret.labels.get(k)) for k, v in wanted.items()
                         if secret.labels.get(k) != v]
                if len(apart) != 1:
                    continue
                key, value, have = apart[0]
                if isinstance(have, str) and (have.lower() == value.lower()
                                              or misspelt(value, [have])):
                    near.setdefault((key, value, have), []).append(
                        secret_data(secret.body).get("name") or secret.name)
            if len(near) != 1:
                continue  # (none near, or several readings: not one typo)
            (key, value, have), names = next(iter(near.items()))
            label = "the cluster Secret" + (
                f"s of {', '.join(sorted(names))} have" if len(names) > 1
                else f" of {names[0]} has")
            yield Violation(
                obj, (*at, "clusters", "selector", "matchLabels", key),
                f"ApplicationSet {obj.namespace or 'default'}/{obj.name}: its clusters "
                f"generator selects {key}={value}, which no cluster Secret of this repository "
                f"carries ({label} {key}={have}), so it makes no Application for "
                f"{'them' if len(names) > 1 else 'it'}, without an error",
                kind="idle-generator",
                fix=f"Correct the selector's {key}: {value!r} to {have!r}.")


def _left_over(obj: KObject, by_hand: Mapping[str, str],
               resolved_before: Collection[str] = ()) -> str | None:
    """What an Application whose path names a folder the repository lacks leaves unseen
    when every root of the repository is a guess (Applications taken as applied by hand,
    several of them): whether anyone applies it, or it was left behind (operate-first/apps'
    envs/dev, a decommissioned environment no app of apps names: 10 errors, judge round
    AQ). Not in a review whose base resolved its path (``resolved_before``): the change
    broke an Application that applied the folder (new-user trial sixty: the app of apps'
    path misspelt left its two Applications "applied by hand", and the typo a warning)."""
    if len(by_hand) < 2 or obj.file in resolved_before:
        return None
    # (or kustomizations applying such files, walked first: judge round DI's change made
    # operate-first's two Applications files of the kustomizations applying them)
    what = "Application files" if all(how == BY_HAND for how in by_hand.values()) else (
        "kustomizations and Application files")
    return (f"whether anyone applies this Application: the repository's roots are "
            f"{len(by_hand)} {what} taken as applied by hand, and a folder it "
            "names is gone, as a leftover's would be")


def _source_root(target: str, path: str) -> str:
    """The folder of the tree a source's root is at, from a ``spec.path`` that resolved to
    ``target``."""
    rel = flux_rel(path)
    return target[: len(target) - len(rel)].rstrip("/") if rel else target


def _joined(root: str, path: str) -> str:
    """The folder ``spec.path`` names in a source whose root is the tree's ``root``; when
    it is outside the linted part (`lint clusters/` reads no `apps/`), its absence is not
    seen, and not judged."""
    return posixpath.join(root, flux_rel(path)) if root else flux_rel(path)


# what a Flux Kustomization saying only ``spec.path`` builds depends on the folder alone:
# one spec for all of them, so the graph builds each folder once (JJGadgets-Biohazard: 305
# builds of 132 folders here, besides the reach walk's)
_PATH_ONLY: Mapping[str, Any] = {}


def _path_build(graph: Graph, file: str, path: str) -> Build | None:
    """``graph.flux_build(file, {"path": path})``, memoized per folder."""
    folder = graph.flux_folder(file, path)
    return None if folder is None else graph.folder_build(folder, _PATH_ONLY, file)


def _limits(graph: Graph, model: Model) -> Iterator[Violation]:
    """Bounds the builds met (nesting depth, objects per build): what was not built is not
    judged, at the entry that met the bound."""
    seen: set[tuple[str, Path]] = set()
    builds = [graph.build(f) for f in graph.roots if not graph.by_dir[f].is_component
              and graph.by_dir[f].file not in model.unapplied]
    for obj in (k.flux for k in model.kustomizations if k.flux is not None):
        path = obj.get(("spec", "path"))
        # (an OCIRepository's or a Bucket's path is in its artifact: its build of this tree
        # made the tree's chart files resources a build refuses; judge round EJ,
        # allenporter/k8s-gitops' `path: ./` of the flux-manifests artifact)
        if isinstance(path, str) and "${" not in path and tree_source(
                dict_of(obj.get(("spec",)))):
            folder = graph.flux_folder(obj.file, path)
            if folder in graph.by_dir:  # its path-only build holds the kustomization's limits
                builds.append(graph.build(folder))
            elif folder is not None:
                builds.append(graph.folder_build(folder, _PATH_ONLY, obj.file))
    for build in builds:
        for limit in build.limits:
            if (limit.file, limit.path) in seen:
                continue
            seen.add((limit.file, limit.path))
            k = graph.by_dir.get(posixpath.dirname(limit.file))
            line, column = k.doc.position(limit.path) if k is not None else (1, 1)
            yield Violation(
                None, limit.path, limit.message + "; reviewbot judges none of the rest",
                kind="limit", file=limit.file, line=line, column=column,
                key=f"{limit.file}:{_label(limit.path)}:limit",
                fix="Flatten the kustomizations (include each base once, fewer levels).")


def _source(obj: KObject) -> tuple[str, str, str]:
    ref = obj.get(("spec", "sourceRef"))
    ref = ref if isinstance(ref, dict) else {}
    return (str(ref.get("kind", "")), str(ref.get("namespace") or obj.namespace or ""),
            str(ref.get("name", "")))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
