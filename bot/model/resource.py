"""What a kustomize build is made of: kustomizations, the objects a build makes
(:class:`Resource`, each with where its fields came from), patches, and the objects a file's
documents hold. Below :mod:`reviewbot.model.kustomize` (the graph) and the build semantics
(:mod:`reviewbot.model.patches`, :mod:`reviewbot.model.smp`,
:mod:`reviewbot.model.transform`), which all import it."""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from reviewbot.load.loader import Document, LoadedFile, load
from reviewbot.sources.tree import FileRecord, blob_id

Path = tuple[str | int, ...]
Origins = Mapping[Path, tuple[Document, Path]]

@functools.lru_cache(maxsize=1 << 16)
def join(folder: str, entry: str) -> str:
    """``entry`` of a kustomization in ``folder`` as a tree path."""
    return posixpath.normpath(posixpath.join(folder, entry)) if folder else (
        posixpath.normpath(entry))

CLUSTER_SCOPED = frozenset({
    "Namespace", "Node", "PersistentVolume", "StorageClass", "ClusterRole", "ClusterRoleBinding",
    "CustomResourceDefinition", "PriorityClass", "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding", "APIService", "IngressClass", "RuntimeClass",
    "CSIDriver", "CSINode", "VolumeSnapshotClass", "ClusterIssuer", "ClusterSecretStore",
    "ClusterServingRuntime", "ClusterStorageContainer", "GatewayClass", "ClusterPolicy",
    "ClusterExternalSecret", "PodSecurityPolicy", "VolumeAttachment",
})


@dataclass(frozen=True)
class Kustomization:
    """A kustomization file, or a Flux ``Kustomization`` object (``flux``: the model's
    KObject; ``directory`` empty: its folder is what ``spec.path`` resolves to)."""

    file: str
    directory: str
    body: Mapping[str, Any]
    doc: Document
    flux: Any = None

    @property
    def is_component(self) -> bool:
        return self.body.get("kind") == "Component"



@dataclass(frozen=True)
class Resource:
    """One object as a build makes it."""

    doc: Document | None  # None: made by a generator
    path: Path  # where the object sits in its document
    body: Mapping[str, Any]
    origins: Origins = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return str(self.body.get("kind") or "")

    @property
    def group(self) -> str:
        api = str(self.body.get("apiVersion") or "")
        return api.rpartition("/")[0] if "/" in api else ""

    @property
    def name(self) -> str:
        return str(dict_of(self.body.get("metadata")).get("name") or "")

    @property
    def namespace(self) -> str:
        if self.kind in CLUSTER_SCOPED:
            return ""
        return str(dict_of(self.body.get("metadata")).get("namespace") or "")

    @property
    def identity(self) -> tuple[str, str, str, str]:
        """(group, kind, namespace or ``default``, name); ``""`` for a cluster-scoped kind."""
        body = self.body
        meta = dict_of(body.get("metadata"))
        kind = str(body.get("kind") or "")
        api = str(body.get("apiVersion") or "")
        namespace = "" if kind in CLUSTER_SCOPED else str(meta.get("namespace") or "default")
        return (api.rpartition("/")[0] if "/" in api else "", kind, namespace,
                str(meta.get("name") or ""))



@dataclass(frozen=True)
class Patch:
    """A patch as a kustomization gives it."""

    body: Any  # a mapping (strategic merge) or a list of JSON 6902 operations
    doc: Document
    path: Path  # where the patch body sits in ``doc``


def file_objects(lf: LoadedFile | None) -> Iterator[Resource]:
    if lf is None:
        return
    for doc in lf.documents:
        yield from document_objects(doc)


def document_objects(doc: Document) -> Iterator[Resource]:
    """The objects a document holds, as written: itself when it has a ``kind`` and an
    ``apiVersion``, the items of a ``*List`` (each with the list's kind and version when it
    names none). The one place that decides it, for the builds and the model alike."""
    value = doc.value
    if not isinstance(value, dict):
        return
    kind, api = value.get("kind"), value.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api, str):
        return
    if kind.endswith("List") and isinstance(value.get("items"), list):
        for i, item in enumerate(value["items"]):
            if isinstance(item, dict):
                body = item
                if "kind" not in item or "apiVersion" not in item:
                    body = {"apiVersion": api, "kind": kind[: -len("List")], **item}
                yield Resource(doc, ("items", i), body)
        return
    yield Resource(doc, (), value)


@functools.lru_cache(maxsize=4096)
def parse_text(name: str, text: str) -> list[Document]:
    """Documents of an inline patch (``patch: |``), located in ``name``. A text seen before
    under another name (a parent's patches copied into 150 children) is parsed once: its
    documents are given again in a file of that name (the values shared: never written)."""
    parsed = _parsed(text)
    if parsed.path == name:
        return parsed.documents
    lf = LoadedFile(name, parsed.blob, parsed.data, problems=list(parsed.problems),
                    skipped=parsed.skipped, pure=parsed.pure)
    lf.documents = [Document(lf, d.index, d.value, d.line) for d in parsed.documents]
    return lf.documents


@functools.lru_cache(maxsize=1024)
def _parsed(text: str) -> LoadedFile:
    data = text.encode("utf-8")
    return load(FileRecord("inline patch", blob_id(data), data))



def dict_of(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def list_of(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def text_of(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None

