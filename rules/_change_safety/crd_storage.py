"""change-safety's `crd-storage` verdict: a CustomResourceDefinition update that drops a
version its objects are stored in.

Objects are persisted in the storage version of the time they are written and are never
converted by themselves; the CRD's ``status.storedVersions`` lists every version ever
persisted, and versions "may not be removed from spec.versions while they exist in this
list" (the API server's CRD validation: ``status.storedVersions[0]: Invalid value:
"v1alpha2": must appear in spec.versions``, which cert-manager's 1.6 upgrade met). So a
change that drops the base's storage version, or a version the manifest's own
``status.storedVersions`` lists, is refused when applied, and the Kustomization applying it
fails, until the stored objects are rewritten in the new storage version and the version
leaves ``status.storedVersions`` (Kubernetes docs, "Versions in CustomResourceDefinitions":
upgrade existing objects to a new stored version).
"""

from __future__ import annotations

from collections.abc import Iterator

from reviewbot.engine.findings import Violation
from reviewbot.model.objects import KObject, items, mapping
from reviewbot.schema.lifecycle import crd_versions

CRD = ("apiextensions.k8s.io", "CustomResourceDefinition")


def storage_verdicts(old: KObject, new: KObject) -> Iterator[Violation]:
    if (old.group, old.kind) != CRD or (new.group, new.kind) != CRD:
        return
    was, now = crd_versions(old.body), crd_versions(new.body)
    if not now:
        return  # no versions at all: the schema rule's to report
    stored = {n: "the storage version in the base" for n, e in was.items()
              if e.get("storage") is True}
    listed = mapping(old.body.get("status")).get("storedVersions")
    for version in items(listed):
        if isinstance(version, str):
            stored.setdefault(version, "listed in the base's status.storedVersions")
    storage = next((n for n, e in now.items() if e.get("storage") is True), None)
    into = f" as {storage}" if storage else ""
    for version, why in stored.items():
        if version in now:
            continue
        yield Violation(
            new, ("spec", "versions"),
            f"CustomResourceDefinition {new.name}: spec.versions drops {version}, {why}: "
            f"objects stored as {version} stay so, status.storedVersions lists it, and the API "
            f"server refuses the update (status.storedVersions: \"{version}\" must appear in "
            "spec.versions), so the Kustomization applying it fails",
            fix=(f"Keep {version} in spec.versions (served: false is allowed) until every "
                 f"stored object is rewritten{into} (kube-storage-version-migrator, or read "
                 f"and write each) and status.storedVersions no longer lists {version}; drop "
                 "it in a later change."),
            kind="crd-storage",
        )
