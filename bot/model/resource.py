"""What a kustomize build is made of: kustomizations, the objects a build makes
(:class:`Resource`, each with where its fields came from), patches, and the objects a file's
documents hold. Below :mod:`reviewbot.model.kustomize` (the graph) and the build semantics
(:mod:`reviewbot.model.patches`, :mod:`reviewbot.model.smp`,
:mod:`reviewbot.model.transform`), which all import it."""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from reviewbot.load.loader import Document, LoadedFile, load, resolve_plain
from reviewbot.model.sops import is_encrypted
from reviewbot.sources.tree import FileRecord

Path = tuple[str | int, ...]
Origins = Mapping[Path, tuple[Document, Path]]


# the mark of a generated ConfigMap or Secret whose content the tree does not show whole (a
# generator's file or env the tree lacks): kustomize hashes, and a replacement reads, what
# is not known here
GENERATED_UNKNOWN = "reviewbot.dev/generated-content-unknown"


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
    # the rest of Kubernetes' own (`kubectl api-resources --namespaced=false`, 1.32), but
    # IPAddress and ServiceCIDR, whose names Cluster API's namespaced kinds share (trial 84
    # D5: a FlowSchema named `FlowSchema/default/...`)
    "FlowSchema", "PriorityLevelConfiguration", "CertificateSigningRequest",
    "ClusterTrustBundle", "ComponentStatus", "VolumeAttributesClass", "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding", "StorageVersionMigration", "DeviceClass",
    # Cilium's cluster-scoped CRDs (docs.cilium.io: "a cluster-scoped CustomResourceDefinition")
    "CiliumClusterwideNetworkPolicy", "CiliumClusterwideEnvoyConfig", "CiliumLoadBalancerIPPool",
    "CiliumL2AnnouncementPolicy", "CiliumBGPPeeringPolicy", "CiliumBGPClusterConfig",
    "CiliumBGPPeerConfig", "CiliumBGPAdvertisement", "CiliumCIDRGroup", "CiliumPodIPPool",
    "CiliumNode", "CiliumIdentity",
})


@dataclass(frozen=True)
class Kustomization:
    """A kustomization file, or a Flux ``Kustomization`` object (``flux``: the model's
    KObject; ``directory`` empty: its folder is what ``spec.path`` resolves to). ``at``:
    where ``body`` sits in ``doc`` (``("spec",)`` for the kustomization a Flux
    Kustomization's own patches and images make: their places are in its document)."""

    file: str
    directory: str
    body: Mapping[str, Any]
    doc: Document
    flux: Any = None
    at: tuple[Any, ...] = ()

    @property
    def is_component(self) -> bool:
        return self.body.get("kind") == "Component"



Id = tuple[str, str, str]  # (kind, namespace, name) as kustomize keeps an object's ids


@dataclass(frozen=True, init=False)
class Renames:
    """What a build did to an object's name, as kustomize records it: its ids before each
    change (``previous``: kustomize's previous names, namespaces and kinds, the namespace
    ``""`` when cluster-scoped), and the name prefixes and suffixes it got, innermost first.
    Name references to any previous id are renamed (:mod:`reviewbot.model.transform`)."""

    previous: tuple[Id, ...] = ()
    prefixes: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()

    def __init__(self, previous: tuple[Id, ...] = (), prefixes: tuple[str, ...] = (),
                 suffixes: tuple[str, ...] = ()) -> None:
        # the fields set in the instance's dictionary, as a frozen dataclass's own __init__
        # sets them one object.__setattr__ at a time: a build makes one per object and
        # transformer (half the cost of a namespace transformer, measured)
        fields = self.__dict__
        fields["previous"] = previous
        fields["prefixes"] = prefixes
        fields["suffixes"] = suffixes


NO_RENAMES = Renames()


@dataclass(frozen=True, init=False)
class Resource:
    """One object as a build makes it."""

    doc: Document | None  # None: made by a generator
    path: Path  # where the object sits in its document
    body: Mapping[str, Any]
    origins: Origins = field(default_factory=dict)
    renames: Renames = NO_RENAMES

    def __init__(self, doc: Document | None, path: Path, body: Mapping[str, Any],
                 origins: Origins | None = None, renames: Renames = NO_RENAMES) -> None:
        # as Renames: a build makes one per object and step
        fields = self.__dict__
        fields["doc"] = doc
        fields["path"] = path
        fields["body"] = body
        fields["origins"] = {} if origins is None else origins
        fields["renames"] = renames

    def with_body(self, body: Mapping[str, Any], origins: Origins | None = None) -> Resource:
        """This object with another body (and origins), the same history of renames."""
        return Resource(self.doc, self.path, body,
                        self.origins if origins is None else origins, self.renames)

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
    # ``options.allowNameChange``: a targeted strategic merge patch renames its target to
    # the patch's name (kustomize keeps the target's name otherwise; its namespace always)
    renames: bool = False
    # ``options.allowKindChange``: a targeted strategic merge patch makes its target of the
    # patch's kind (its apiVersion stays the target's: resWrangler.ApplySmPatch)
    kind_change: bool = False


def file_objects(lf: LoadedFile | None, kustomize: bool = True) -> Iterator[Resource]:
    """The objects of a file a kustomization lists, as kustomize reads them: any file is
    YAML to it (one the loader took for a Helm template by its ``templates/`` folder is
    parsed), its plain scalars read as kyaml reads them (``Document.kustomize_value``: ``on``
    is text), and its folded scalars come out as kyaml writes them (:func:`as_written`).
    ``kustomize`` False: its plain scalars as Kubernetes reads them (Argo CD applying a plain
    folder)."""
    if lf is None:
        return
    if lf.skipped == HELM_TEMPLATE and not lf.documents and not lf.problems:
        lf = _as_yaml(lf)
    folded = _folded_lines(lf)
    for doc in lf.documents:
        if doc.refused and not kustomize:
            continue  # Kubernetes' reader refuses it (a duplicate annotation key)
        for r in document_objects(doc, doc.kustomize_value if kustomize else doc.value):
            if kustomize and (doc.kyaml_apart or typed_annotations(r.body)):
                r = Resource(r.doc, r.path, annotations_as_text(r.body, doc, r.path))
            yield r if not folded else Resource(r.doc, r.path, as_written(
                r.body, doc, r.path, folded))


HELM_TEMPLATE = "helm template"  # the loader's skip reason for a chart's template


def templates_declaring(files: Mapping[str, LoadedFile], kinds: tuple[str, ...],
                        marker: tuple[bytes, ...]) -> list[str]:
    """The chart templates among ``files`` (skipped: reviewbot renders no chart) whose text
    declares an object of one of ``kinds`` (a ``kind:`` line of its own), sorted; only
    those holding one of ``marker`` (an API group, a word of the kind) are searched."""
    pattern = _kind_lines(kinds)
    return sorted(path for path, lf in files.items()
                  if lf.skipped == HELM_TEMPLATE and any(m in lf.data for m in marker)
                  and pattern.search(lf.data.decode("utf-8", "replace")))


@functools.cache
def _kind_lines(kinds: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"^\s*kind:\s*[\"']?(?:" + "|".join(map(re.escape, kinds))
                      + r")[\"']?\s*$", re.M)


def _as_yaml(lf: LoadedFile) -> LoadedFile:
    """``lf`` parsed as YAML whatever its folder (documents located in ``lf``'s path)."""
    parsed = _parsed(lf.text)
    out = LoadedFile(lf.path, lf.blob, lf.data, problems=list(parsed.problems),
                     skipped=parsed.skipped, pure=parsed.pure)
    out.documents = [Document(out, d.index, d.value, d.line, kyaml_apart=d.kyaml_apart)
                     for d in parsed.documents]
    return out


# ---------------------------------------------------------------- folded scalars


_FOLDED_HEADER = re.compile(r">[-+1-9]{0,2}[ \t]*(?:#.*)?$", re.M)


def _folded_lines(lf: LoadedFile) -> frozenset[int]:
    """The lines of ``lf`` that may open a folded block scalar (``key: >``)."""
    if b">" not in lf.data:
        return frozenset()
    text = lf.text
    return frozenset(text.count("\n", 0, m.start()) + 1 for m in _FOLDED_HEADER.finditer(text))


def document_as_written(doc: Document) -> Any:
    """A patch document's value as kustomize reads it (``Document.kustomize_value``) and writes
    what it merges (:func:`as_written`, :func:`annotations_as_text`)."""
    folded = _folded_lines(doc.file)
    value = doc.kustomize_value
    if isinstance(value, dict) and (doc.kyaml_apart or typed_annotations(value)):
        value = annotations_as_text(value, doc, ())
    return as_written(value, doc, (), folded) if folded else value


def typed_annotations(body: Any) -> bool:
    """Whether ``body`` (an object, or a List of them) has an annotation whose value is not
    text (``inject-cabundle: true``): Kubernetes refuses it, kustomize writes it as text."""
    if not isinstance(body, dict):
        return False
    if isinstance(body.get("items"), list) and str(body.get("kind", "")).endswith("List"):
        return any(typed_annotations(item) for item in body["items"])
    meta = body.get("metadata")
    notes = meta.get("annotations") if isinstance(meta, dict) else None
    return isinstance(notes, dict) and not all(isinstance(v, str) for v in notes.values())


_BLOCK_END = re.compile(r"\s+#|\s*$")
_FLOW_END = re.compile(r"\s+#|\s*[,\]}]|\s*$")
_NULL_TEXTS = frozenset({"null", "Null", "NULL", "~"})


def annotations_as_text(body: Mapping[str, Any], doc: Document, path: Path
                        ) -> Mapping[str, Any]:
    """``body`` (at ``path`` of ``doc``, read as kustomize reads it) with each annotation value
    as kustomize writes it: kyaml reads the annotations as text (``RNode.GetAnnotations``: a
    scalar's own text, so ``true`` is "true", ``1.0`` "1.0", ``~`` "~", ``2024-1-2`` itself,
    an empty value or a collection "") and writes them back as strings whenever it sets one
    (each build sets and removes its own ``config.kubernetes.io/`` annotations), so every
    object kustomize builds carries text there (measured against ``kubectl kustomize``,
    kustomize v5.5). A List's items each; ``body`` itself when nothing changes."""
    if isinstance(body.get("items"), list) and str(body.get("kind", "")).endswith("List"):
        items = [annotations_as_text(item, doc, path + ("items", i))
                 if isinstance(item, dict) else item for i, item in enumerate(body["items"])]
        same = all(a is b for a, b in zip(items, body["items"], strict=True))
        return body if same else {**body, "items": items}
    meta = body.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("annotations"), dict):
        return body
    notes: dict[str, Any] = meta["annotations"]
    plain = _dig(doc.value, (*path, "metadata", "annotations"))
    plain = plain if isinstance(plain, dict) else {}
    texts = {k: v if isinstance(v, str) and plain.get(k) == v else _scalar_text(
        v, plain.get(k), doc, (*path, "metadata", "annotations", k)) for k, v in notes.items()}
    if texts == notes:
        return body
    return {**body, "metadata": {**meta, "annotations": texts}}


def _dig(value: Any, path: Path) -> Any:
    for step in path:
        if isinstance(value, dict) and isinstance(step, str):
            value = value.get(step)
        elif isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
            value = value[step]
        else:
            return None
    return value


def _scalar_text(value: Any, plain: Any, doc: Document, path: Path) -> str:
    """The text of the plain scalar at ``path`` of ``doc`` as the file writes it (``1e3``,
    ``0x1F``, ``True``, ``2024-1-2 3:4:5``), ``plain`` its value as Kubernetes reads it and
    ``value`` as kustomize does; "" for a collection or an empty value. The scalar runs to a
    comment or the line's end, or in a flow mapping to its comma or brace: the one of the two
    whose text reads as ``plain``."""
    if isinstance(value, (dict, list)):
        return ""
    line, column = doc.position(path)
    lines = doc.file.text.splitlines()
    rest = lines[line - 1][column - 1:] if 0 < line <= len(lines) else ""
    text = ""
    for end in (_BLOCK_END, _FLOW_END):
        found = end.search(rest)
        text = rest[:found.start()] if found else rest
        read = resolve_plain(text) if text else None
        if read == plain and type(read) is type(plain):
            break
    if value is None:
        return text if text in _NULL_TEXTS else ""
    if text:
        return text
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def as_written(value: Any, doc: Document, path: Path, folded: frozenset[int]) -> Any:
    """``value`` (at ``path`` of ``doc``) with each folded block scalar (``>``) as kustomize
    writes it: kyaml encodes every object with go-yaml v3 and reads it back
    (``RNode.MarshalJSON``), and go-yaml's folded writer looks for the line after a break from
    the start of the text instead of from the break (go-yaml/yaml#827, #804), so a break
    before a more-indented line gains an empty line (and one that begins more-indented
    loses the ones between plain lines). ``folded``: the lines that may open one
    (:func:`_folded_lines`). The same object when nothing changes."""
    if isinstance(value, str):
        if "\n" not in value or not _refold_changes(value):
            return value
        line, column = doc.position(path)
        if line not in folded:
            return value
        text = doc.file.text.splitlines()[line - 1]
        return refolded(value) if text[column - 1:column] == ">" else value
    if isinstance(value, dict):
        out: dict[str, Any] | None = None
        for k, v in value.items():
            if isinstance(v, (str, dict, list)):
                w = as_written(v, doc, path + (k,), folded)
                if w is not v:
                    out = dict(value) if out is None else out
                    out[k] = w
        return value if out is None else out
    if isinstance(value, list):
        items: list[Any] | None = None
        for i, v in enumerate(value):
            if isinstance(v, (str, dict, list)):
                w = as_written(v, doc, path + (i,), folded)
                if w is not v:
                    items = list(value) if items is None else items
                    items[i] = w
        return value if items is None else items
    return value


def _refold_changes(value: str) -> bool:
    """Whether go-yaml's folded writer puts an empty line where a correct one would not, or
    leaves one out (what :func:`refolded` would change), without writing anything: the
    correct writer adds one after a plain line's break when the next line is plain."""
    first = value.lstrip("\n")
    doubles = bool(first) and first[0] not in " \t"
    n = len(value)
    breaks, leading = True, True
    for i, c in enumerate(value):
        if c == "\n":
            if not breaks and not leading:
                j = i
                while j < n and value[j] == "\n":
                    j += 1
                if j == n:  # the end: only a kept (`>+`) end shows the extra line
                    if doubles and j - i >= 2:
                        return True
                elif doubles != (value[j] not in " \t"):
                    return True
            breaks = True
        else:
            if breaks:
                leading = c in " \t"
            breaks = False
    return False


def refolded(value: str) -> str:
    """``value``, the text of a folded scalar, once go-yaml v3 has written it as a folded
    scalar and read it back (indent 2, no line wrapping). Unchanged when go-yaml would not
    write it folded: a space before a line break or at the end, a control character."""
    if not value or value.endswith(" ") or " \n" in value or any(
            ord(c) < 32 and c not in "\n\t" or c == "\x7f" for c in value):
        return value
    first = value.lstrip("\n")
    doubles = bool(first) and first[0] not in " \t"  # go-yaml's test, at the text's start
    lines: list[str] = []
    breaks, leading = True, True
    for c in value:
        if c == "\n":
            if not breaks and not leading and doubles:
                lines.append("\n")
            lines.append("\n")
            breaks = True
        else:
            if breaks:
                lines.append("  ")
                leading = c in " \t"
            lines.append(c)
            breaks = False
    indent = "2" if value[0] in " \n" else ""
    chomp = "-" if value[-1] != "\n" else "+" if len(value) == 1 or value[-2] == "\n" else ""
    parsed = _parsed(f"k: >{indent}{chomp}\n" + "".join(lines))
    found = parsed.documents[0].value if parsed.documents else None
    return found["k"] if isinstance(found, dict) and isinstance(found.get("k"), str) else value


def document_objects(doc: Document, value: Any = None) -> Iterator[Resource]:
    """The objects a document holds, as written: itself when it has a ``kind`` and an
    ``apiVersion`` (not one sops encrypted), the items of a ``*List`` (each with the list's
    kind and version when it names none). The one place that decides it, for the builds
    and the model alike.
    ``value``: the document's value as its reader reads it (kustomize's), else ``doc.value``."""
    if value is None:
        value = doc.value
    if not isinstance(value, dict):
        return
    kind, api = value.get("kind"), value.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api, str) or is_encrypted(api):
        return  # (a file sops encrypted whole, a kubeconfig: its apiVersion is ciphertext)
    if kind.endswith("List") and isinstance(value.get("items"), list):
        for i, item in enumerate(value["items"]):
            if isinstance(item, dict):
                body = item
                if "kind" not in item or "apiVersion" not in item:
                    body = {"apiVersion": api, "kind": kind[: -len("List")], **item}
                yield Resource(doc, ("items", i), body)
        return
    yield Resource(doc, (), value)


def refused_resource(value: Any) -> tuple[Path, str] | None:
    """Where and why kustomize refuses a document of a file it reads as resources (listed
    under ``resources``, or a folder's file kustomize-controller lists when it generates the
    kustomization), else None: kyaml's ``GetMeta`` and ``GetValidatedMetadata``, measured
    with ``kubectl kustomize`` (kustomize v5.5), which refuse the whole build:

    - "missing Resource metadata": a document that is not a mapping (a text, a number, a
      non-empty list), or a mapping without ``apiVersion``, ``kind`` and ``metadata`` (a
      Helm values file listed as a resource; ``metadata`` counts only with a name, namespace,
      labels or annotations), or a ``*List``'s ``items`` that is not a list;
    - "missing kind in object": no ``kind`` (absent, null, "", or not a scalar);
    - "missing metadata.name in object": no ``metadata.name`` (absent, null, "", not a
      scalar: ``generateName`` is not enough), but for a kind ending in ``List``, whose
      ``items`` are each judged so (a typed list's item names its own kind).

    Null and empty documents (``{}``, ``[]``, a comment) are skipped, as kustomize does."""
    if value is None or value == {} or value == []:
        return None
    if not isinstance(value, dict):
        return (), "missing Resource metadata"
    meta = value.get("metadata")
    named = isinstance(meta, dict) and any(
        _present(meta.get(k)) for k in ("name", "namespace", "labels", "annotations"))
    if not (_present(value.get("apiVersion")) or _present(value.get("kind")) or named):
        return (), "missing Resource metadata"
    kind = _scalar_word(value.get("kind"))
    if not kind:
        return ("kind",) if "kind" in value else (), "missing kind in object"
    if kind.endswith("List"):
        items = value.get("items")
        if items is None:
            return None
        if not isinstance(items, list):
            return ("items",), "missing Resource metadata"
        for i, item in enumerate(items):
            found = refused_resource(item)
            if found is not None:
                return ("items", i, *found[0]), found[1]
        return None
    if not _scalar_word(meta.get("name") if isinstance(meta, dict) else None):
        return ("metadata",) if isinstance(meta, dict) else (), (
            "missing metadata.name in object")
    return None


def _present(value: Any) -> bool:
    """kyaml's "not nil or empty": a field holding null, ``{}`` or ``[]`` is absent."""
    return value is not None and value != {} and value != []


def _scalar_word(value: Any) -> str:
    """A scalar field as kyaml reads its text ("" for null and for a mapping or a list)."""
    if value is None or isinstance(value, (dict, list)):
        return ""
    return value if isinstance(value, str) else str(value)


@functools.lru_cache(maxsize=4096)
def inline_values(text: str) -> tuple[Any, ...]:
    """The values of an inline patch's documents (``patch: |``) as kustomize merges them: a
    mapping as kyaml writes it (:func:`document_as_written`), anything else as parsed. Made
    once per text, whatever kustomization holds it (a parent's patches copied into 150
    children's specs): the values are shared, never written. What the documents of the
    text parsed as a file of any name give (a name changes no value or position)."""
    return tuple(document_as_written(d) if isinstance(d.value, dict) else d.value
                 for d in _parsed(text).documents)



def unparsed_patches(body: Mapping[str, Any]) -> list[tuple[Path, str]]:
    """The inline patches of a kustomization (``patches`` and ``patchesJson6902`` entries'
    ``patch:`` texts) that do not parse as YAML: (the entry's ``patch`` path, the parser's
    problem with its line in the text). kustomize refuses the whole build ("unable to parse
    SM or JSON patch"; judge round CU: kenlasko/k8s' lab patches, a bare scalar where
    `value:` belonged, were dropped without a word)."""
    out: list[tuple[Path, str]] = []
    for key in ("patches", "patchesJson6902"):
        entries = body.get(key)
        for i, item in enumerate(entries if isinstance(entries, list) else ()):
            text = item.get("patch") if isinstance(item, dict) else None
            if not isinstance(text, str) or not text.strip():
                continue
            problem = next(iter(_parsed(text).problems), None)
            if problem is not None:
                out.append(((key, i, "patch"), f"{problem.message} at its line {problem.line}"))
    return out


@functools.lru_cache(maxsize=1024)
def _parsed(text: str) -> LoadedFile:
    data = text.encode("utf-8")
    return load(FileRecord("inline patch", None, data))  # its blob id when asked



def dict_of(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def list_of(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def text_of(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None

