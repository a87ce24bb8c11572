"""change-safety's external resources: custom resources whose deletion in the cluster makes a
controller delete what they stand for outside it (a database, a bucket, an IAM user).

- Crossplane managed resources (the groups of Upbound's and crossplane-contrib's providers,
  ``*.upbound.io``, ``*.crossplane.io`` but Crossplane's own): ``spec.deletionPolicy: Delete``
  is the default, ``Orphan`` keeps the external resource; v2 (namespaced, ``*.m.upbound.io``)
  replaces it by ``spec.managementPolicies``, which keep it unless they hold ``*`` or
  ``Delete`` (docs.crossplane.io, managed resources).
- Crossplane composites and claims of a CompositeResourceDefinition in the tree (its
  ``spec.group`` with ``names.kind`` or ``claimNames.kind``): deleting one deletes what its
  Composition composes.
- Google Config Connector (``*.cnrm.cloud.google.com``): the annotation
  ``cnrm.cloud.google.com/deletion-policy: abandon`` keeps the Google Cloud resource.
- AWS Controllers for Kubernetes (``*.services.k8s.aws``): the annotation
  ``services.k8s.aws/deletion-policy: retain`` keeps the AWS resource; so may the namespace's
  ``{service}.services.k8s.aws/deletion-policy`` and the controller's ``--deletion-policy``,
  which a repository rarely shows: a doubt.

A claim or composite of an XRD in the tree is doubted too: what its Composition composes,
and their deletion policies, are not read.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewbot.model.objects import KObject, Model, items

XRD_GROUP = "apiextensions.crossplane.io"
CROSSPLANE_OWN = frozenset({XRD_GROUP, "pkg.crossplane.io", "protection.crossplane.io",
                            "ops.crossplane.io", "crossplane.io"})
NOT_MANAGED = frozenset({"ProviderConfig", "ClusterProviderConfig", "ProviderConfigUsage",
                         "ClusterProviderConfigUsage", "StoreConfig", "ConfigConnector",
                         "ConfigConnectorContext", "AdoptedResource", "FieldExport"})
CNRM_POLICY = "cnrm.cloud.google.com/deletion-policy"
ACK_POLICY = "services.k8s.aws/deletion-policy"
COMPOSITE_FIELDS = ("crossplane", "compositionRef", "compositionSelector",
                    "compositionRevisionRef", "compositeDeletePolicy", "resourceRef")


@dataclass(frozen=True)
class External:
    """What deleting ``obj`` deletes outside the cluster (``loss``, after "which deletes"),
    the policy that would keep it (``keep``, merged on the object), and what reviewbot could
    not see to be sure (``doubt``)."""

    loss: str
    keep: str
    doubt: str | None = None


def external_loss(obj: KObject, base: Model) -> External | None:
    """None when deleting ``obj`` deletes nothing outside the cluster that reviewbot knows
    of, or its deletion policy keeps it."""
    group, notes = obj.group, obj.annotations
    if obj.kind in NOT_MANAGED or not group:
        return None
    if group.endswith(".cnrm.cloud.google.com"):
        if str(notes.get(CNRM_POLICY, "")).lower() == "abandon":
            return None
        return External("the Google Cloud resource it manages (Config Connector deletes it "
                        "unless told to abandon it)", f"the annotation {CNRM_POLICY}: abandon")
    if group.endswith(".services.k8s.aws"):
        if str(notes.get(ACK_POLICY, "")).lower() == "retain":
            return None
        service = group.split(".", 1)[0]
        return External("the AWS resource it manages (the ACK controller deletes it unless "
                        "told to retain it)", f"the annotation {ACK_POLICY}: retain",
                        doubt=f"the {service}.{ACK_POLICY} annotation of its namespace and "
                              "the ACK controller's --deletion-policy, which may retain it")
    xrd = _definition(obj, base)
    if xrd is not None:
        return External(f"what its Composition composes (CompositeResourceDefinition "
                        f"{xrd.name}), and with it their external resources",
                        "spec.deletionPolicy: Orphan (v2: spec.managementPolicies without "
                        "Delete) on the resources its Composition composes",
                        doubt="the deletion policies its Composition sets on what it composes")
    spec = obj.get(("spec",))
    spec = spec if isinstance(spec, dict) else {}
    if _crossplane_provider(group):
        if "deletionPolicy" in spec or ".m." not in f".{group}":
            if spec.get("deletionPolicy", "Delete") == "Orphan":
                return None
            return External("the external resource it manages (Crossplane's spec."
                            "deletionPolicy: Delete, the default)", "spec.deletionPolicy: Orphan")
        policies = [str(p) for p in items(spec.get("managementPolicies"))]
        if policies and "*" not in policies and "Delete" not in policies:
            return None
        return External("the external resource it manages (Crossplane's spec."
                        "managementPolicies include Delete by default)",
                        'spec.managementPolicies: ["Create", "Update", "Observe", '
                        '"LateInitialize"] (without Delete)')
    if any(f in spec for f in COMPOSITE_FIELDS):
        return External("what its Composition composes, and with it their external resources",
                        "spec.deletionPolicy: Orphan (v2: spec.managementPolicies without "
                        "Delete) on the resources its Composition composes",
                        doubt=f"the CompositeResourceDefinition and Composition of {group} "
                              "(not in this repository)")
    if "forProvider" in spec:
        return External("the external resource it manages (a Crossplane managed resource's "
                        "spec.deletionPolicy is Delete by default)", "spec.deletionPolicy: Orphan",
                        doubt=f"the provider of {group} (not a known managed-resource group)")
    return None


def _crossplane_provider(group: str) -> bool:
    return group not in CROSSPLANE_OWN and group.endswith((".upbound.io", ".crossplane.io"))


def _definition(obj: KObject, base: Model) -> KObject | None:
    """The CompositeResourceDefinition in the tree of which ``obj`` is a composite or a
    claim."""
    for xrd in base.objects:
        if xrd.kind != "CompositeResourceDefinition" or xrd.group != XRD_GROUP:
            continue
        if xrd.get(("spec", "group")) == obj.group and obj.kind in (
                xrd.get(("spec", "names", "kind")), xrd.get(("spec", "claimNames", "kind"))):
            return xrd
    return None
