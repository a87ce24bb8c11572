"""kustomize's builtin transformer configurations as data, and the ``configurations:`` files
that extend them: where each transformer writes (fieldSpecs) and where names are referenced.

The facts are kustomize v5.5.0's (the kustomize kubectl 1.32 embeds), transcribed entry for
entry from ``api/internal/konfig/builtinpluginconsts/`` (``nameprefix.go``, ``namesuffix.go``,
``commonlabels.go`` with ``metadatalabels.go``, ``templatelabels.go``,
``commonannotations.go``, ``namespace.go``, ``varreference.go``, ``namereference.go``,
``images.go``, ``replicas.go``). How configurations merge (a fieldSpec already present, by
``effectivelyEquals``, is not added twice; ``nameReference`` entries of one kind merge their
fieldSpecs; every list sorted by kind as kustomize's ``Gvk.IsLessThan``) is
``api/internal/plugins/builtinconfig/transformerconfig.go``. Which kinds kustomize takes for
cluster-scoped is ``kyaml/openapi/openapi.go`` (``precomputedIsNamespaceScoped``, Kubernetes
1.21.2's API): any other kind, a custom resource's included, is namespaced to kustomize.

A fieldSpec ``path`` is ``/``-separated (``\\/`` is a slash inside a key); a list on the way is
walked element by element; ``name[]`` expects a list; ``create`` makes missing fields."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# the builtin configuration, one line per fieldSpec: path, group:version:kind (empty parts
# match anything), "+" for create (a path ending in "/" goes on at the next line); under
# [nameReference], "= group:version:kind" opens the referral whose referrers follow
# (kustomize's IngressClass entry names the group "networking.k8s.io/v1", so it never
# matches: transcribed as kustomize has it)
_BUILTIN = r"""
[namePrefix]
metadata/name ::
[nameSuffix]
metadata/name ::
[commonLabels]
spec/selector :v1:Service +
spec/selector :v1:ReplicationController +
spec/selector/matchLabels ::Deployment +
spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/
    podAffinityTerm/labelSelector/matchLabels apps::Deployment
spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/
    labelSelector/matchLabels apps::Deployment
spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/
    podAffinityTerm/labelSelector/matchLabels apps::Deployment
spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/
    labelSelector/matchLabels apps::Deployment
spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels apps::Deployment
spec/selector/matchLabels ::ReplicaSet +
spec/selector/matchLabels ::DaemonSet +
spec/selector/matchLabels apps::StatefulSet +
spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/
    podAffinityTerm/labelSelector/matchLabels apps::StatefulSet
spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/
    labelSelector/matchLabels apps::StatefulSet
spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/
    podAffinityTerm/labelSelector/matchLabels apps::StatefulSet
spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/
    labelSelector/matchLabels apps::StatefulSet
spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels apps::StatefulSet
spec/selector/matchLabels batch::Job
spec/jobTemplate/spec/selector/matchLabels batch::CronJob
spec/selector/matchLabels policy::PodDisruptionBudget
spec/podSelector/matchLabels networking.k8s.io::NetworkPolicy
spec/ingress/from/podSelector/matchLabels networking.k8s.io::NetworkPolicy
spec/egress/to/podSelector/matchLabels networking.k8s.io::NetworkPolicy
metadata/labels :: +
spec/template/metadata/labels :v1:ReplicationController +
spec/template/metadata/labels ::Deployment +
spec/template/metadata/labels ::ReplicaSet +
spec/template/metadata/labels ::DaemonSet +
spec/template/metadata/labels apps::StatefulSet +
spec/volumeClaimTemplates[]/metadata/labels apps::StatefulSet +
spec/template/metadata/labels batch::Job +
spec/jobTemplate/metadata/labels batch::CronJob +
spec/jobTemplate/spec/template/metadata/labels batch::CronJob +
[templateLabels]
metadata/labels :: +
spec/template/metadata/labels :v1:ReplicationController +
spec/template/metadata/labels ::Deployment +
spec/template/metadata/labels ::ReplicaSet +
spec/template/metadata/labels ::DaemonSet +
spec/template/metadata/labels apps::StatefulSet +
spec/volumeClaimTemplates[]/metadata/labels apps::StatefulSet +
spec/template/metadata/labels batch::Job +
spec/jobTemplate/metadata/labels batch::CronJob +
spec/jobTemplate/spec/template/metadata/labels batch::CronJob +
[commonAnnotations]
metadata/annotations :: +
spec/template/metadata/annotations :v1:ReplicationController +
spec/template/metadata/annotations ::Deployment +
spec/template/metadata/annotations ::ReplicaSet +
spec/template/metadata/annotations ::DaemonSet +
spec/template/metadata/annotations ::StatefulSet +
spec/template/metadata/annotations batch::Job +
spec/jobTemplate/metadata/annotations batch::CronJob +
spec/jobTemplate/spec/template/metadata/annotations batch::CronJob +
[namespace]
metadata/name ::Namespace +
spec/service/namespace apiregistration.k8s.io::APIService +
spec/conversion/webhook/clientConfig/service/
    namespace apiextensions.k8s.io::CustomResourceDefinition
[varReference]
spec/jobTemplate/spec/template/spec/containers/args ::CronJob
spec/jobTemplate/spec/template/spec/containers/command ::CronJob
spec/jobTemplate/spec/template/spec/containers/env/value ::CronJob
spec/jobTemplate/spec/template/spec/containers/volumeMounts/mountPath ::CronJob
spec/jobTemplate/spec/template/spec/initContainers/args ::CronJob
spec/jobTemplate/spec/template/spec/initContainers/command ::CronJob
spec/jobTemplate/spec/template/spec/initContainers/env/value ::CronJob
spec/jobTemplate/spec/template/spec/initContainers/volumeMounts/mountPath ::CronJob
spec/jobTemplate/spec/template/volumes/nfs/server ::CronJob
spec/template/spec/containers/args ::DaemonSet
spec/template/spec/containers/command ::DaemonSet
spec/template/spec/containers/env/value ::DaemonSet
spec/template/spec/containers/volumeMounts/mountPath ::DaemonSet
spec/template/spec/initContainers/args ::DaemonSet
spec/template/spec/initContainers/command ::DaemonSet
spec/template/spec/initContainers/env/value ::DaemonSet
spec/template/spec/initContainers/volumeMounts/mountPath ::DaemonSet
spec/template/spec/volumes/nfs/server ::DaemonSet
spec/template/spec/containers/args ::Deployment
spec/template/spec/containers/command ::Deployment
spec/template/spec/containers/env/value ::Deployment
spec/template/spec/containers/volumeMounts/mountPath ::Deployment
spec/template/spec/initContainers/args ::Deployment
spec/template/spec/initContainers/command ::Deployment
spec/template/spec/initContainers/env/value ::Deployment
spec/template/spec/initContainers/volumeMounts/mountPath ::Deployment
spec/template/spec/volumes/nfs/server ::Deployment
spec/template/metadata/annotations ::Deployment
spec/rules/host ::Ingress
spec/tls/hosts ::Ingress
spec/tls/secretName ::Ingress
spec/template/spec/containers/args ::Job
spec/template/spec/containers/command ::Job
spec/template/spec/containers/env/value ::Job
spec/template/spec/containers/volumeMounts/mountPath ::Job
spec/template/spec/initContainers/args ::Job
spec/template/spec/initContainers/command ::Job
spec/template/spec/initContainers/env/value ::Job
spec/template/spec/initContainers/volumeMounts/mountPath ::Job
spec/template/spec/volumes/nfs/server ::Job
spec/containers/args ::Pod
spec/containers/command ::Pod
spec/containers/env/value ::Pod
spec/containers/volumeMounts/mountPath ::Pod
spec/initContainers/args ::Pod
spec/initContainers/command ::Pod
spec/initContainers/env/value ::Pod
spec/initContainers/volumeMounts/mountPath ::Pod
spec/volumes/nfs/server ::Pod
spec/template/spec/containers/args ::ReplicaSet
spec/template/spec/containers/command ::ReplicaSet
spec/template/spec/containers/env/value ::ReplicaSet
spec/template/spec/containers/volumeMounts/mountPath ::ReplicaSet
spec/template/spec/initContainers/args ::ReplicaSet
spec/template/spec/initContainers/command ::ReplicaSet
spec/template/spec/initContainers/env/value ::ReplicaSet
spec/template/spec/initContainers/volumeMounts/mountPath ::ReplicaSet
spec/template/spec/volumes/nfs/server ::ReplicaSet
spec/ports/port ::Service
spec/ports/targetPort ::Service
spec/template/spec/containers/args ::StatefulSet
spec/template/spec/containers/command ::StatefulSet
spec/template/spec/containers/env/value ::StatefulSet
spec/template/spec/containers/volumeMounts/mountPath ::StatefulSet
spec/template/spec/initContainers/args ::StatefulSet
spec/template/spec/initContainers/command ::StatefulSet
spec/template/spec/initContainers/env/value ::StatefulSet
spec/template/spec/initContainers/volumeMounts/mountPath ::StatefulSet
spec/volumeClaimTemplates/spec/nfs/server ::StatefulSet
spec/nfs/server ::PersistentVolume
metadata/labels ::
metadata/annotations ::
[nameReference]
= ::Deployment
  spec/scaleTargetRef/name ::HorizontalPodAutoscaler
= ::ReplicationController
  spec/scaleTargetRef/name ::HorizontalPodAutoscaler
= ::ReplicaSet
  spec/scaleTargetRef/name ::HorizontalPodAutoscaler
= ::StatefulSet
  spec/scaleTargetRef/name ::HorizontalPodAutoscaler
= :v1:ConfigMap
  spec/volumes/configMap/name :v1:Pod
  spec/containers/env/valueFrom/configMapKeyRef/name :v1:Pod
  spec/initContainers/env/valueFrom/configMapKeyRef/name :v1:Pod
  spec/containers/envFrom/configMapRef/name :v1:Pod
  spec/initContainers/envFrom/configMapRef/name :v1:Pod
  spec/volumes/projected/sources/configMap/name :v1:Pod
  template/spec/volumes/configMap/name ::PodTemplate
  template/spec/containers/env/valueFrom/configMapKeyRef/name ::PodTemplate
  template/spec/initContainers/env/valueFrom/configMapKeyRef/name ::PodTemplate
  template/spec/containers/envFrom/configMapRef/name ::PodTemplate
  template/spec/initContainers/envFrom/configMapRef/name ::PodTemplate
  template/spec/volumes/projected/sources/configMap/name ::PodTemplate
  spec/template/spec/volumes/configMap/name ::Deployment
  spec/template/spec/containers/env/valueFrom/configMapKeyRef/name ::Deployment
  spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name ::Deployment
  spec/template/spec/containers/envFrom/configMapRef/name ::Deployment
  spec/template/spec/initContainers/envFrom/configMapRef/name ::Deployment
  spec/template/spec/volumes/projected/sources/configMap/name ::Deployment
  spec/template/spec/volumes/configMap/name ::ReplicaSet
  spec/template/spec/containers/env/valueFrom/configMapKeyRef/name ::ReplicaSet
  spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name ::ReplicaSet
  spec/template/spec/containers/envFrom/configMapRef/name ::ReplicaSet
  spec/template/spec/initContainers/envFrom/configMapRef/name ::ReplicaSet
  spec/template/spec/volumes/projected/sources/configMap/name ::ReplicaSet
  spec/template/spec/volumes/configMap/name ::DaemonSet
  spec/template/spec/containers/env/valueFrom/configMapKeyRef/name ::DaemonSet
  spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name ::DaemonSet
  spec/template/spec/containers/envFrom/configMapRef/name ::DaemonSet
  spec/template/spec/initContainers/envFrom/configMapRef/name ::DaemonSet
  spec/template/spec/volumes/projected/sources/configMap/name ::DaemonSet
  spec/template/spec/volumes/configMap/name ::StatefulSet
  spec/template/spec/containers/env/valueFrom/configMapKeyRef/name ::StatefulSet
  spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name ::StatefulSet
  spec/template/spec/containers/envFrom/configMapRef/name ::StatefulSet
  spec/template/spec/initContainers/envFrom/configMapRef/name ::StatefulSet
  spec/template/spec/volumes/projected/sources/configMap/name ::StatefulSet
  spec/template/spec/volumes/configMap/name ::Job
  spec/template/spec/containers/env/valueFrom/configMapKeyRef/name ::Job
  spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name ::Job
  spec/template/spec/containers/envFrom/configMapRef/name ::Job
  spec/template/spec/initContainers/envFrom/configMapRef/name ::Job
  spec/template/spec/volumes/projected/sources/configMap/name ::Job
  spec/jobTemplate/spec/template/spec/volumes/configMap/name ::CronJob
  spec/jobTemplate/spec/template/spec/volumes/projected/sources/configMap/name ::CronJob
  spec/jobTemplate/spec/template/spec/containers/env/valueFrom/configMapKeyRef/name ::CronJob
  spec/jobTemplate/spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name ::CronJob
  spec/jobTemplate/spec/template/spec/containers/envFrom/configMapRef/name ::CronJob
  spec/jobTemplate/spec/template/spec/initContainers/envFrom/configMapRef/name ::CronJob
  spec/configSource/configMap ::Node
  rules/resourceNames ::Role
  rules/resourceNames ::ClusterRole
  metadata/annotations/nginx.ingress.kubernetes.io\/fastcgi-params-configmap ::Ingress
= :v1:Secret
  spec/volumes/secret/secretName :v1:Pod
  spec/containers/env/valueFrom/secretKeyRef/name :v1:Pod
  spec/initContainers/env/valueFrom/secretKeyRef/name :v1:Pod
  spec/containers/envFrom/secretRef/name :v1:Pod
  spec/initContainers/envFrom/secretRef/name :v1:Pod
  spec/imagePullSecrets/name :v1:Pod
  spec/volumes/projected/sources/secret/name :v1:Pod
  template/spec/volumes/secret/secretName ::PodTemplate
  template/spec/containers/env/valueFrom/secretKeyRef/name ::PodTemplate
  template/spec/initContainers/env/valueFrom/secretKeyRef/name ::PodTemplate
  template/spec/containers/envFrom/secretRef/name ::PodTemplate
  template/spec/initContainers/envFrom/secretRef/name ::PodTemplate
  template/spec/imagePullSecrets/name ::PodTemplate
  template/spec/volumes/projected/sources/secret/name ::PodTemplate
  spec/template/spec/volumes/secret/secretName ::Deployment
  spec/template/spec/containers/env/valueFrom/secretKeyRef/name ::Deployment
  spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name ::Deployment
  spec/template/spec/containers/envFrom/secretRef/name ::Deployment
  spec/template/spec/initContainers/envFrom/secretRef/name ::Deployment
  spec/template/spec/imagePullSecrets/name ::Deployment
  spec/template/spec/volumes/projected/sources/secret/name ::Deployment
  spec/template/spec/volumes/secret/secretName ::ReplicaSet
  spec/template/spec/containers/env/valueFrom/secretKeyRef/name ::ReplicaSet
  spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name ::ReplicaSet
  spec/template/spec/containers/envFrom/secretRef/name ::ReplicaSet
  spec/template/spec/initContainers/envFrom/secretRef/name ::ReplicaSet
  spec/template/spec/imagePullSecrets/name ::ReplicaSet
  spec/template/spec/volumes/projected/sources/secret/name ::ReplicaSet
  spec/template/spec/volumes/secret/secretName ::DaemonSet
  spec/template/spec/containers/env/valueFrom/secretKeyRef/name ::DaemonSet
  spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name ::DaemonSet
  spec/template/spec/containers/envFrom/secretRef/name ::DaemonSet
  spec/template/spec/initContainers/envFrom/secretRef/name ::DaemonSet
  spec/template/spec/imagePullSecrets/name ::DaemonSet
  spec/template/spec/volumes/projected/sources/secret/name ::DaemonSet
  spec/template/spec/volumes/secret/secretName ::StatefulSet
  spec/template/spec/containers/env/valueFrom/secretKeyRef/name ::StatefulSet
  spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name ::StatefulSet
  spec/template/spec/containers/envFrom/secretRef/name ::StatefulSet
  spec/template/spec/initContainers/envFrom/secretRef/name ::StatefulSet
  spec/template/spec/imagePullSecrets/name ::StatefulSet
  spec/template/spec/volumes/projected/sources/secret/name ::StatefulSet
  spec/template/spec/volumes/secret/secretName ::Job
  spec/template/spec/containers/env/valueFrom/secretKeyRef/name ::Job
  spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name ::Job
  spec/template/spec/containers/envFrom/secretRef/name ::Job
  spec/template/spec/initContainers/envFrom/secretRef/name ::Job
  spec/template/spec/imagePullSecrets/name ::Job
  spec/template/spec/volumes/projected/sources/secret/name ::Job
  spec/jobTemplate/spec/template/spec/volumes/secret/secretName ::CronJob
  spec/jobTemplate/spec/template/spec/volumes/projected/sources/secret/name ::CronJob
  spec/jobTemplate/spec/template/spec/containers/env/valueFrom/secretKeyRef/name ::CronJob
  spec/jobTemplate/spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name ::CronJob
  spec/jobTemplate/spec/template/spec/containers/envFrom/secretRef/name ::CronJob
  spec/jobTemplate/spec/template/spec/initContainers/envFrom/secretRef/name ::CronJob
  spec/jobTemplate/spec/template/spec/imagePullSecrets/name ::CronJob
  spec/tls/secretName ::Ingress
  metadata/annotations/ingress.kubernetes.io\/auth-secret ::Ingress
  metadata/annotations/nginx.ingress.kubernetes.io\/auth-secret ::Ingress
  metadata/annotations/nginx.ingress.kubernetes.io\/auth-tls-secret ::Ingress
  spec/tls/secretName ::Ingress
  imagePullSecrets/name ::ServiceAccount
  parameters/secretName ::StorageClass
  parameters/adminSecretName ::StorageClass
  parameters/userSecretName ::StorageClass
  parameters/secretRef ::StorageClass
  rules/resourceNames ::Role
  rules/resourceNames ::ClusterRole
  spec/template/spec/containers/env/valueFrom/secretKeyRef/name serving.knative.dev:v1:Service
  spec/azureFile/secretName ::PersistentVolume
= :v1:Service
  spec/serviceName apps::StatefulSet
  spec/rules/http/paths/backend/serviceName ::Ingress
  spec/backend/serviceName ::Ingress
  spec/rules/http/paths/backend/service/name ::Ingress
  spec/defaultBackend/service/name ::Ingress
  spec/service/name apiregistration.k8s.io::APIService
  webhooks/clientConfig/service admissionregistration.k8s.io::ValidatingWebhookConfiguration
  webhooks/clientConfig/service admissionregistration.k8s.io::MutatingWebhookConfiguration
= rbac.authorization.k8s.io::Role
  roleRef/name rbac.authorization.k8s.io::RoleBinding
= rbac.authorization.k8s.io::ClusterRole
  roleRef/name rbac.authorization.k8s.io::RoleBinding
  roleRef/name rbac.authorization.k8s.io::ClusterRoleBinding
= :v1:ServiceAccount
  subjects rbac.authorization.k8s.io::RoleBinding
  subjects rbac.authorization.k8s.io::ClusterRoleBinding
  spec/serviceAccountName ::Pod
  spec/template/spec/serviceAccountName ::StatefulSet
  spec/template/spec/serviceAccountName ::Deployment
  spec/template/spec/serviceAccountName ::ReplicationController
  spec/jobTemplate/spec/template/spec/serviceAccountName ::CronJob
  spec/template/spec/serviceAccountName ::Job
  spec/template/spec/serviceAccountName ::DaemonSet
= :v1:PersistentVolumeClaim
  spec/volumes/persistentVolumeClaim/claimName ::Pod
  spec/template/spec/volumes/persistentVolumeClaim/claimName ::StatefulSet
  spec/template/spec/volumes/persistentVolumeClaim/claimName ::Deployment
  spec/template/spec/volumes/persistentVolumeClaim/claimName ::ReplicationController
  spec/jobTemplate/spec/template/spec/volumes/persistentVolumeClaim/claimName ::CronJob
  spec/template/spec/volumes/persistentVolumeClaim/claimName ::Job
  spec/template/spec/volumes/persistentVolumeClaim/claimName ::DaemonSet
= :v1:PersistentVolume
  spec/volumeName ::PersistentVolumeClaim
  rules/resourceNames ::ClusterRole
= storage.k8s.io:v1:StorageClass
  spec/storageClassName ::PersistentVolume
  spec/storageClassName ::PersistentVolumeClaim
  spec/volumeClaimTemplates/spec/storageClassName ::StatefulSet
= scheduling.k8s.io:v1:PriorityClass
  spec/priorityClassName ::Pod
  spec/template/spec/priorityClassName ::StatefulSet
  spec/template/spec/priorityClassName ::Deployment
  spec/template/spec/priorityClassName ::ReplicationController
  spec/jobTemplate/spec/template/spec/priorityClassName ::CronJob
  spec/template/spec/priorityClassName ::Job
  spec/template/spec/priorityClassName ::DaemonSet
= networking.k8s.io/v1:v1:IngressClass
  spec/ingressClassName ::Ingress
= admissionregistration.k8s.io::ValidatingAdmissionPolicy
  spec/policyName admissionregistration.k8s.io::ValidatingAdmissionPolicyBinding
[images]
spec/containers[]/image :: +
spec/initContainers[]/image :: +
spec/template/spec/containers[]/image :: +
spec/template/spec/initContainers[]/image :: +
[replicas]
spec/replicas ::Deployment +
spec/replicas ::ReplicationController +
spec/replicas ::ReplicaSet +
spec/replicas ::StatefulSet +
"""


@dataclass(frozen=True)
class FieldSpec:
    """Where a transformer writes in objects of a group/version/kind ('' matches any)."""

    group: str
    version: str
    kind: str
    path: str
    create: bool = False

    @functools.cached_property
    def steps(self) -> tuple[str, ...]:
        """The path's keys (kustomize's PathSplitter: ``\\/`` is a slash inside a key)."""
        out: list[str] = []
        for part in self.path.split("/"):
            if out and out[-1].endswith("\\"):
                out[-1] = out[-1][:-1] + "/" + part
            else:
                out.append(part)
        return tuple(out)

    def selects(self, group: str, version: str, kind: str) -> bool:
        """kustomize's ``Gvk.IsSelected``: every part this spec names is equal."""
        return ((not self.group or self.group == group)
                and (not self.version or self.version == version)
                and (not self.kind or self.kind == kind))

    def _same(self, other: FieldSpec) -> bool:
        # kustomize's effectivelyEquals: this spec selected by the other's kinds, same path
        return self.path == other.path and self.selects(other.group, other.version,
                                                        other.kind)


@dataclass(frozen=True)
class BackReference:
    """A ``nameReference`` entry: objects of this kind are referred to by name at the
    ``referrers`` fieldSpecs of other objects."""

    group: str
    version: str
    kind: str
    referrers: tuple[FieldSpec, ...]


FIELDS = ("namePrefix", "nameSuffix", "namespace", "commonLabels", "labels", "templateLabels",
          "commonAnnotations", "varReference", "images", "replicas")


@dataclass(frozen=True)
class Config:
    """A transformer configuration (kustomize's ``TransformerConfig``): fieldSpecs by
    transformer, and the name references."""

    specs: Mapping[str, tuple[FieldSpec, ...]]  # by FIELDS
    name_reference: tuple[BackReference, ...] = ()
    problems: tuple[str, ...] = field(default=(), compare=False)  # what kustomize refuses
    extends_builtin: bool = field(default=False, compare=False)  # BUILTIN merged in

    def __getitem__(self, key: str) -> tuple[FieldSpec, ...]:
        return self.specs.get(key, ())

    def merge(self, other: Config) -> Config:
        """kustomize's ``TransformerConfig.Merge``: ``other``'s fieldSpecs added where not
        already present; the result sorted as kustomize sorts."""
        if other is self or other is BUILTIN or not other.specs and not other.name_reference:
            return self
        if self is BUILTIN and other.extends_builtin:
            return other
        specs = dict(self.specs)
        problems = list(self.problems) + [p for p in other.problems if p not in self.problems]
        for key in FIELDS:
            merged, clash = _merge_specs(specs.get(key, ()), other[key])
            specs[key] = _sorted(merged)
            if clash:
                problems.append(f"conflicting {key} fieldSpecs")
        refs = list(self.name_reference)
        for incoming in other.name_reference:
            for i, ref in enumerate(refs):
                if (ref.group, ref.version, ref.kind) == (
                        incoming.group, incoming.version, incoming.kind):
                    merged, clash = _merge_specs(ref.referrers, incoming.referrers)
                    refs[i] = BackReference(ref.group, ref.version, ref.kind, merged)
                    if clash:
                        problems.append("conflicting nameReference fieldSpecs")
                    break
            else:
                refs.append(incoming)
        return Config(specs, tuple(_sorted(refs)), tuple(problems),
                      self.extends_builtin or other.extends_builtin)

    @functools.cached_property
    def _memo(self) -> dict[tuple[Any, ...], Any]:
        return {}

    def selecting(self, key: str, group: str, version: str, kind: str
                  ) -> tuple[FieldSpec, ...]:
        """The fieldSpecs of ``key`` that select objects of this group, version and kind."""
        at = (key, group, version, kind)
        found: tuple[FieldSpec, ...] | None = self._memo.get(at)
        if found is None:
            found = self._memo[at] = tuple(s for s in self[key]
                                           if s.selects(group, version, kind))
        return found

    def referrals(self, kinds: frozenset[tuple[str, str, str]]) -> tuple[int, ...]:
        """The indices in ``name_reference`` of the referrals that objects of these
        (group, version, kind) are (kustomize's selectReferral: the referral's group,
        version and kind each empty or equal)."""
        at = ("\0referrals", kinds)
        known: tuple[int, ...] | None = self._memo.get(at)
        if known is None:
            known = self._memo[at] = tuple(
                i for i, ref in enumerate(self.name_reference) if any(
                    (not ref.group or ref.group == g) and (not ref.version or ref.version == v)
                    and (not ref.kind or ref.kind == k) for g, v, k in kinds))
        return known

    def reference_paths(self, group: str, version: str, kind: str,
                        only: tuple[int, ...] | None = None) -> Trie:
        """Where objects of this group, version and kind refer to others by name: the
        referrer fieldSpecs that select them, as a tree of their keys (a node: the keys
        that go on, and the (referral, fieldSpec) whose path ends there). ``only``: the
        referrals to keep, as indices into ``name_reference`` (all when None)."""
        at = ("\0nameReference", group, version, kind, only)
        known: Trie | None = self._memo.get(at)
        if known is not None:
            return known
        found: Trie = ({}, [])
        refs = self.name_reference if only is None else [self.name_reference[i] for i in only]
        for ref in refs:
            for spec in ref.referrers:
                if spec.selects(group, version, kind):
                    node = found
                    for step in spec.steps:
                        node = node[0].setdefault(step.removesuffix("[]"), ({}, []))
                    node[1].append((ref, spec))
        self._memo[at] = found
        return found


Trie = tuple[dict[str, "Trie"], list[tuple[BackReference, FieldSpec]]]


def _merge_specs(mine: Iterable[FieldSpec], incoming: Iterable[FieldSpec]
                 ) -> tuple[tuple[FieldSpec, ...], bool]:
    out = list(mine)
    by_path: dict[str, list[FieldSpec]] = {}  # out's specs by path, in out's order: only
    for s in out:  # a spec of the same path can be the same (the first one is kustomize's)
        by_path.setdefault(s.path, []).append(s)
    clash = False
    for spec in incoming:
        same = by_path.setdefault(spec.path, [])
        found = next((s for s in same if s._same(spec)), None)
        if found is None:
            out.append(spec)
            same.append(spec)
        elif found.create != spec.create:
            clash = True  # kustomize: "conflicting fieldspecs"
    return tuple(out), clash


# kyaml's Gvk.IsLessThan: these kinds first, in this order, the webhook configurations last,
# then by group, version and kind
_FIRST = ("Namespace", "ResourceQuota", "StorageClass", "CustomResourceDefinition",
          "ServiceAccount", "PodSecurityPolicy", "Role", "ClusterRole", "RoleBinding",
          "ClusterRoleBinding", "ConfigMap", "Secret", "Endpoints", "Service", "LimitRange",
          "PriorityClass", "PersistentVolume", "PersistentVolumeClaim", "Deployment",
          "StatefulSet", "CronJob", "PodDisruptionBudget")
_LAST = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
_ORDER = {**{k: i - len(_FIRST) for i, k in enumerate(_FIRST)},
          **{k: i + 1 for i, k in enumerate(_LAST)}}


def _sorted(items: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(sorted(items, key=lambda x: (_ORDER.get(x.kind, 0),
                                              f"{x.group}~G_{x.version}~V_{x.kind}~K")))


def spec(value: Any) -> FieldSpec | None:
    """A fieldSpec as a configuration writes it (None when it has no path)."""
    if not isinstance(value, dict) or not isinstance(value.get("path"), str):
        return None
    return FieldSpec(str(value.get("group") or ""), str(value.get("version") or ""),
                     str(value.get("kind") or ""), value["path"], value.get("create") is True)


def parse(value: Any, source: str = "") -> Config:
    """A ``configurations:`` file's content as a configuration (kustomize reads it strictly:
    a key it does not know, or a malformed entry, is a build kustomize refuses; named in
    ``problems``)."""
    problems: list[str] = []
    if not isinstance(value, dict):
        return Config({}, (), (f"{source}: not a mapping",))
    specs: dict[str, tuple[FieldSpec, ...]] = {}
    refs: list[BackReference] = []
    for key, items in value.items():
        if key == "nameReference":
            for item in items if isinstance(items, list) else []:
                if not isinstance(item, dict) or not isinstance(item.get("kind"), str):
                    problems.append(f"{source}: a nameReference entry without a kind")
                    continue
                referrers = tuple(s for s in map(spec, item.get("fieldSpecs") or [])
                                  if s is not None)
                ref = BackReference(str(item.get("group") or ""),
                                    str(item.get("version") or ""), item["kind"], referrers)
                merged = Config({}, tuple(refs)).merge(Config({}, (ref,)))
                refs = list(merged.name_reference)
            continue
        if key not in FIELDS:
            problems.append(f"{source}: unknown field {key!r}")
            continue
        parsed = [spec(item) for item in (items if isinstance(items, list) else [])]
        if any(p is None for p in parsed):
            problems.append(f"{source}: a {key} entry without a path")
        specs[key], clash = _merge_specs((), (p for p in parsed if p is not None))
        specs[key] = _sorted(specs[key])
    return Config(specs, _sorted(refs), tuple(problems))


def _builtin() -> Config:
    specs: dict[str, list[FieldSpec]] = {}
    refs: list[BackReference] = []
    section = ""
    for line in re.sub(r"/\n\s*", "/", _BUILTIN).splitlines():
        words = line.split()
        if not words:
            continue
        if words[0].startswith("["):
            section = words[0][1:-1]
            continue
        if words[0] == "=":
            group, version, kind = words[1].split(":")
            refs.append(BackReference(group, version, kind, ()))
            continue
        group, version, kind = words[1].split(":")
        spec = FieldSpec(group, version, kind, words[0], words[-1] == "+")
        if section == "nameReference":
            last = refs[-1]
            refs[-1] = BackReference(last.group, last.version, last.kind,
                                     last.referrers + (spec,))
        else:
            specs.setdefault(section, []).append(spec)
    return Config({k: _sorted(_merge_specs((), v)[0]) for k, v in specs.items()},
                  _sorted(refs), (), True)


BUILTIN = _builtin()

# kyaml's precomputedIsNamespaceScoped (Kubernetes 1.21.2): the apiVersion/kind pairs kustomize
# knows as cluster-scoped; every other one (a custom resource's, a newer API's) is namespaced
# to kustomize, which then sets its metadata.namespace
CLUSTER_SCOPED = frozenset(tuple(x.rsplit(" ", 1)) for x in """
admissionregistration.k8s.io/v1 MutatingWebhookConfiguration
admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration
admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration
admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration
apiextensions.k8s.io/v1 CustomResourceDefinition
apiextensions.k8s.io/v1beta1 CustomResourceDefinition
apiregistration.k8s.io/v1 APIService
apiregistration.k8s.io/v1beta1 APIService
certificates.k8s.io/v1 CertificateSigningRequest
certificates.k8s.io/v1beta1 CertificateSigningRequest
flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema
flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration
networking.k8s.io/v1 IngressClass
networking.k8s.io/v1beta1 IngressClass
node.k8s.io/v1 RuntimeClass
node.k8s.io/v1beta1 RuntimeClass
policy/v1beta1 PodSecurityPolicy
rbac.authorization.k8s.io/v1 ClusterRole
rbac.authorization.k8s.io/v1 ClusterRoleBinding
rbac.authorization.k8s.io/v1beta1 ClusterRole
rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding
scheduling.k8s.io/v1 PriorityClass
scheduling.k8s.io/v1beta1 PriorityClass
storage.k8s.io/v1 CSIDriver
storage.k8s.io/v1 CSINode
storage.k8s.io/v1 StorageClass
storage.k8s.io/v1 VolumeAttachment
storage.k8s.io/v1beta1 CSIDriver
storage.k8s.io/v1beta1 CSINode
storage.k8s.io/v1beta1 StorageClass
storage.k8s.io/v1beta1 VolumeAttachment
v1 ComponentStatus
v1 Namespace
v1 Node
v1 NodeProxyOptions
v1 PersistentVolume
""".strip().splitlines())


def cluster_scoped(api_version: str, kind: str) -> bool:
    """Whether kustomize takes objects of ``api_version``/``kind`` for cluster-scoped."""
    return (api_version, kind) in CLUSTER_SCOPED
