"""kustomize's transformers and generators, in kustomize's order: generators, patches,
``namespace``, ``namePrefix``/``nameSuffix``, ``commonLabels``/``labels``,
``commonAnnotations``, ``patchesJson6902``, ``replicas``, ``images``, ``replacements``."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from reviewbot.load.loader import Document
from reviewbot.model.patches import (
    Reader,
    apply_patch,
    json_patches,
    patches,
    selected,
    smp_targets,
    strategic_patches,
)
from reviewbot.model.replacements import apply_replacements
from reviewbot.model.resource import (
    CLUSTER_SCOPED,
    Kustomization,
    Path,
    Resource,
    dict_of,
    join,
    list_of,
    text_of,
)
from reviewbot.model.smp import apply_smp


def generate(k: Kustomization, read: Reader, resources: Sequence[Resource] = ()
             ) -> list[Resource]:
    """``resources`` with the ConfigMaps and Secrets ``k``'s generators make (kustomize adds
    them before it applies the kustomization's components: a component's transformations
    reach them): a generator with ``behavior: create`` (the default) adds its object, one
    with ``merge`` or ``replace`` changes the object of its kind and name ``resources``
    hold, in its place (kustomize refuses the build when there is none: nothing added)."""
    out = list(resources)
    for behavior, made in _generated(k, read):
        if behavior not in ("merge", "replace"):
            out.append(made)
            continue
        meta = dict_of(made.body.get("metadata"))
        matches = [i for i, r in enumerate(out) if r.kind == made.kind and r.group == ""
                   and r.name == meta.get("name") and (
                       "namespace" not in meta or r.namespace == meta["namespace"])]
        if len(matches) == 1:
            out[matches[0]] = _merged(out[matches[0]], made, behavior == "merge")
    return out


def _merged(old: Resource, new: Resource, merge: bool) -> Resource:
    """kustomize's ``behavior: merge`` (``replace``: ``merge`` False) of a generated object
    into the one it names: the old name and namespace, labels and annotations of both (the
    new ones win), the data of both (``replace``: the new only); the name is hashed when
    both generators hash it, what is unknown stays unknown."""
    before, after = dict_of(old.body.get("metadata")), dict_of(new.body.get("metadata"))
    notes = {k: v for k, v in dict_of(before.get("annotations")).items() if k != GENERATED_HASH}
    notes.update(dict_of(after.get("annotations")))
    if GENERATED_HASH not in dict_of(before.get("annotations")):
        # hashed only when both are: kustomize takes its build annotations from the old
        # object alone (mergeStringMapsWithBuildAnnotations), then drops the hash mark when
        # the new one lacks it (CopyMergeMetaDataFieldsFrom)
        notes.pop(GENERATED_HASH, None)
    meta: dict[str, Any] = {"name": before.get("name")}
    if "namespace" in before:
        meta["namespace"] = before["namespace"]
    labels = {**dict_of(before.get("labels")), **dict_of(after.get("labels"))}
    if labels:
        meta["labels"] = labels
    if notes:
        meta["annotations"] = notes
    body = {**new.body, "metadata": meta}
    for field_name in ("data", "binaryData") if merge else ():
        values = {**dict_of(old.body.get(field_name)), **dict_of(new.body.get(field_name))}
        if values or field_name in body:
            body[field_name] = values
    return Resource(None, (), body, {**old.origins, **new.origins})


def transform(k: Kustomization, resources: list[Resource], read: Reader,
              deleted: list[Resource] | None = None, generated: bool = False
              ) -> list[Resource]:
    """``resources`` after ``k``'s generators, patches and transformers, in kustomize's order
    (``read``: the tree's files, for patch files; ``deleted`` gets the objects a patch
    deleted, ``$patch: delete``; ``generated``: the generators' objects are in
    ``resources`` already, :func:`generate`)."""
    body = k.body
    gone: list[Resource] = deleted if deleted is not None else []

    def _kept(results: Iterable[tuple[Resource, Resource | None]]) -> list[Resource]:
        kept = []
        for before, after in results:
            if after is None:
                gone.append(before)
            else:
                kept.append(after)
        return kept

    out = list(resources) if generated else generate(k, read, resources)
    for patch in strategic_patches(k, read):
        out = _kept((r, apply_smp(r, patch) if smp_targets(r, patch) else r) for r in out)
    for selector, patch in patches(k, read):
        out = _kept((r, apply_patch(r, patch, selector is not None)
                     if selected(r, selector, patch) else r) for r in out)
    namespace = text_of(body.get("namespace"))
    if namespace:
        out = [_set_namespace(r, namespace) for r in out]
    prefix, suffix = text_of(body.get("namePrefix")) or "", text_of(body.get("nameSuffix")) or ""
    if prefix or suffix:
        out = [_rename(r, prefix, suffix) for r in out]
    common = body.get("commonLabels")
    if isinstance(common, dict) and common:
        out = [_label(r, _labels(common), True, True) for r in out]
    for spec in list_of(body.get("labels")):
        if isinstance(spec, dict) and isinstance(spec.get("pairs"), dict):
            selectors = spec.get("includeSelectors") is True
            templates = selectors or spec.get("includeTemplates") is True
            out = [_label(r, _labels(spec["pairs"]), selectors, templates) for r in out]
    annotations = body.get("commonAnnotations")
    if isinstance(annotations, dict) and annotations:
        out = [_annotate(r, _labels(annotations)) for r in out]
    for selector, patch in json_patches(k, read):
        out = _kept((r, apply_patch(r, patch, True) if selected(r, selector, patch) else r)
                    for r in out)
    for item in list_of(body.get("replicas")):
        if isinstance(item, dict) and isinstance(item.get("count"), int):
            out = [_replicas(r, str(item.get("name")), item["count"]) for r in out]
    images = [i for i in list_of(body.get("images")) if isinstance(i, dict) and i.get("name")]
    if images:
        # a real kustomization file: the images entry that changed an image is where
        # findings about it point (a Flux spec.images wrapper has no such place)
        doc = k.doc if k.doc.value is body else None
        out = [_images(r, images, doc) for r in out]
    if body.get("replacements"):
        out = apply_replacements(k, out, read).resources
    return out


# ---------------------------------------------------------------- generators


def _generated(k: Kustomization, read: Reader) -> Iterator[tuple[Any, Resource]]:
    """ConfigMaps and Secrets the generators make: data from ``literals`` and from the
    ``files``/``envs`` the tree holds (a source it does not hold, or one kustomize would
    refuse, leaves the object marked GENERATED_UNKNOWN); named without the hash suffix,
    which :func:`finish` adds once the whole build is made."""
    options = dict_of(k.body.get("generatorOptions"))
    for key, kind in (("configMapGenerator", "ConfigMap"), ("secretGenerator", "Secret")):
        for index, gen in enumerate(list_of(k.body.get(key))):
            if not isinstance(gen, dict) or not isinstance(gen.get("name"), str):
                continue
            own = dict_of(gen.get("options"))
            meta: dict[str, Any] = {"name": gen["name"]}
            if isinstance(gen.get("namespace"), str):
                meta["namespace"] = gen["namespace"]
            for field_name in ("labels", "annotations"):
                values = {**dict_of(options.get(field_name)), **dict_of(own.get(field_name))}
                if values:
                    meta[field_name] = _labels(values)
            pairs = _generator_pairs(k, gen, read)
            marks: dict[str, str] = {}
            if not (options.get("disableNameSuffixHash") is True
                    or own.get("disableNameSuffixHash") is True):
                marks[GENERATED_HASH] = gen["name"]  # the name references use
            if pairs is None:
                marks[GENERATED_UNKNOWN] = "true"
            if marks:
                meta["annotations"] = {**dict_of(meta.get("annotations")), **marks}
            body: dict[str, Any] = {"apiVersion": "v1", "kind": kind, "metadata": meta}
            data: dict[str, str] = {}
            binary: dict[str, str] = {}
            for name, value in (pairs or {}).items():
                if kind == "Secret":
                    data[name] = _base64(value)
                else:
                    try:
                        data[name] = value.decode("utf-8")
                    except UnicodeDecodeError:  # kustomize: a value that is no UTF-8
                        binary[name] = _base64(value)
            if kind == "Secret":
                body["type"] = gen["type"] if isinstance(gen.get("type"), str) else "Opaque"
            if data or kind == "Secret":  # kustomize writes a Secret's data, even empty
                body["data"] = data
            if binary:
                body["binaryData"] = binary
            if options.get("immutable") is True or own.get("immutable") is True:
                body["immutable"] = True
            yield gen.get("behavior"), Resource(None, (), body, {(): (k.doc, (key, index))})


def _base64(value: bytes) -> str:
    """``value`` as kustomize writes a Secret's value or a ConfigMap's binary one: base64
    in lines of 70 characters, each ended by a newline, when it takes more than one line."""
    text = base64.b64encode(value).decode("ascii")
    if len(text) < _BASE64_LINE:
        return text
    return "".join(text[i:i + _BASE64_LINE] + "\n" for i in range(0, len(text), _BASE64_LINE))


_BASE64_LINE = 70
# Go's unicode.IsSpace: what kustomize trims from the start of an env file's line
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007" \
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_MAX_LINE = 64 * 1024  # bufio.Scanner's token bound: a longer line, kustomize refuses the file


def _generator_pairs(k: Kustomization, gen: Mapping[str, Any], read: Reader
                     ) -> dict[str, bytes] | None:
    """The (key, value) pairs of one generator as kustomize loads them: ``envs`` files'
    lines, then ``literals``, then ``files``; None when a source cannot be read here or
    kustomize would refuse it (what the object holds is unknown)."""
    pairs: list[tuple[str, bytes]] = []
    envs = list_of(gen.get("envs")) + ([gen["env"]] if isinstance(gen.get("env"), str) else [])
    for entry in envs:
        content = _source(k, entry, read)
        found = _env_pairs(content) if content is not None else None
        if found is None:
            return None
        pairs += found
    for text in list_of(gen.get("literals")):
        if not isinstance(text, str) or "=" not in text or text.startswith("="):
            return None  # kustomize: "invalid literal source"
        name, _, value = text.partition("=")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        pairs.append((name, value.encode("utf-8")))
    for entry in list_of(gen.get("files")):
        if not isinstance(entry, str):
            return None
        name, sep, path = entry.partition("=")
        if not sep:
            name, path = _go_base(entry), entry
        elif not name or not path or "=" in path:
            return None  # kustomize: a key or a path missing, or a second "="
        content = _source(k, path, read)
        if content is None:
            return None
        pairs.append((name, content))
    out = dict(pairs)
    return out if len(out) == len(pairs) else None  # a key twice: kustomize refuses


def _env_pairs(content: bytes) -> list[tuple[str, bytes]] | None:
    """An env file's pairs as kustomize reads them: one per line (``\\r\\n`` ends a line
    too), a UTF-8 byte order mark dropped from the first, leading white space trimmed, empty
    lines and ``#`` comments skipped; the key is what comes before the first ``=`` (as
    written: spaces and quotes kept), the value all after it, kept as written (quotes
    too); a line without ``=`` is a key with an empty value (kustomize v5 no longer reads
    it from its environment), a line starting with ``=`` is skipped. None: a line that is
    no UTF-8 or longer than 64 KiB (kustomize refuses the file)."""
    lines = content.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    out: list[tuple[str, bytes]] = []
    for number, raw in enumerate(lines):
        if len(raw) >= _MAX_LINE:
            return None
        raw = raw.removesuffix(b"\r")
        if number == 0:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        try:
            line = raw.decode("utf-8").lstrip(_GO_SPACE)
        except UnicodeDecodeError:
            return None
        if not line or line.startswith("#"):
            continue
        name, _, value = line.partition("=")
        if name:
            out.append((name, value.encode("utf-8")))
    return out


def _go_base(path: str) -> str:
    """Go's ``path.Base``: the last element, trailing slashes dropped ("." for none)."""
    trimmed = path.rstrip("/")
    if not trimmed:
        return "/" if path else "."
    return trimmed.rpartition("/")[2]


def _source(k: Kustomization, entry: Any, read: Reader) -> bytes | None:
    """A generator source's bytes, when the tree holds the file (read from the same side
    as the build: disk, or the git ref of a review's side)."""
    if not isinstance(entry, str) or not entry or "://" in entry:
        return None
    lf = read(join(k.directory, entry))
    if lf is None or (not lf.data and lf.problems):
        return None  # absent, or refused by the loader (too large, not text): unknown
    return lf.data


GENERATED_UNKNOWN = "reviewbot.dev/generated-content-unknown"  # a source the tree lacks


def generated_objects(builds: Iterable[Sequence[Resource]]
                      ) -> list[tuple[Resource, Document, Path]]:
    """The ConfigMaps and Secrets generators made in ``builds`` (what a tree applies), one
    per identity (the first build's), each with the generator entry that made it (its
    kustomization's document, the entry's path there); the build's marks removed, the name
    without its hash suffix (a change of content changes the hash: the object is the same)."""
    out: dict[tuple[str, str, str, str], tuple[Resource, Document, Path]] = {}
    for resources in builds:
        for r in resources:
            where = r.origins.get(()) if r.doc is None else None
            if where is None or r.identity in out:
                continue
            meta = dict_of(r.body.get("metadata"))
            notes = {k: v for k, v in dict_of(meta.get("annotations")).items()
                     if k not in (GENERATED_HASH, GENERATED_UNKNOWN)}
            meta = {k: v for k, v in meta.items() if k != "annotations"}
            if notes:
                meta["annotations"] = notes
            out[r.identity] = (Resource(None, (), {**r.body, "metadata": meta}, r.origins),
                               *where)
    return list(out.values())


def finish(resources: Sequence[Resource]) -> list[Resource]:
    """The objects of a whole build (what ``kustomize build`` of that folder prints): each
    generated ConfigMap and Secret whose content is known named with kustomize's content
    hash (``-<10 characters>``), and the references of the pod templates beside it in its
    namespace renamed too; the build's own marks removed, and an empty ``annotations``
    with them."""
    renamed: dict[tuple[str, str, str], str] = {}
    originals: dict[tuple[str, str, str], str] = {}
    out: list[Resource] = []
    for r in resources:
        meta = dict_of(r.body.get("metadata"))
        if "annotations" in meta and meta["annotations"] in (None, {}):
            # kustomize writes no empty annotations (null or {}): kyaml's ClearEmptyAnnotations
            meta = {k: v for k, v in meta.items() if k != "annotations"}
            r = Resource(r.doc, r.path, {**r.body, "metadata": meta}, r.origins)
        notes = dict_of(meta.get("annotations"))
        if r.doc is not None or not (GENERATED_HASH in notes or GENERATED_UNKNOWN in notes):
            out.append(r)
            continue
        if GENERATED_UNKNOWN in notes:
            out.append(r)  # what kustomize hashes is not known here: left as it is
            continue
        rest = {k: v for k, v in notes.items() if k != GENERATED_HASH}
        new_meta = {k: v for k, v in meta.items() if k != "annotations"}
        if rest:
            new_meta["annotations"] = rest
        name = f"{meta.get('name')}-{content_hash(r.body)}"
        namespace = str(meta.get("namespace") or "")
        renamed[(r.kind, namespace, str(meta.get("name")))] = name
        # a reference written before a namePrefix/nameSuffix renamed the object: the
        # generator's own name (kustomize follows the object's earlier names)
        first = (r.kind, namespace, str(notes[GENERATED_HASH]))
        originals.setdefault(first, name)
        new_meta["name"] = name
        out.append(Resource(r.doc, r.path, {**r.body, "metadata": new_meta}, r.origins))
    renamed = {**originals, **renamed}
    if not renamed:
        return out
    return [_references(r, renamed) for r in out]


def content_hash(body: Mapping[str, Any]) -> str:
    """kustomize's name suffix for a generated ConfigMap or Secret: sha256 of the JSON of
    kind, data (and binaryData / stringData, and a Secret's type) with an empty name (kustomize
    looks the name up by a path it never finds), its first ten hex digits with 0, 1, 3, a and
    e written g, h, k, m and t."""
    kind = str(body.get("kind"))
    fields: dict[str, Any] = {"kind": kind, "name": "", "data": body.get("data", "")}
    if kind == "Secret":
        fields["type"] = body.get("type", "")
        if isinstance(body.get("stringData"), dict):
            fields["stringData"] = body["stringData"]
    elif isinstance(body.get("binaryData"), dict):
        fields["binaryData"] = body["binaryData"]
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
    return digest.translate(str.maketrans("013ae", "ghkmt"))


_REFERENCES: dict[str, tuple[tuple[str, ...], ...]] = {
    # (kind referenced, where in a pod spec: path steps, "*" for every list element)
    "ConfigMap": (("volumes", "*", "configMap", "name"),
                  ("volumes", "*", "projected", "sources", "*", "configMap", "name"),
                  ("containers", "*", "env", "*", "valueFrom", "configMapKeyRef", "name"),
                  ("containers", "*", "envFrom", "*", "configMapRef", "name"),
                  ("initContainers", "*", "env", "*", "valueFrom", "configMapKeyRef", "name"),
                  ("initContainers", "*", "envFrom", "*", "configMapRef", "name")),
    "Secret": (("volumes", "*", "secret", "secretName"),
               ("volumes", "*", "projected", "sources", "*", "secret", "name"),
               ("containers", "*", "env", "*", "valueFrom", "secretKeyRef", "name"),
               ("containers", "*", "envFrom", "*", "secretRef", "name"),
               ("initContainers", "*", "env", "*", "valueFrom", "secretKeyRef", "name"),
               ("initContainers", "*", "envFrom", "*", "secretRef", "name"),
               ("imagePullSecrets", "*", "name")),
}


def _references(r: Resource, renamed: Mapping[tuple[str, str, str], str]) -> Resource:
    template = _TEMPLATE.get(r.kind)
    pod_path: tuple[str, ...] | None = (template + ("spec",)) if template is not None else (
        ("spec",) if r.kind == "Pod" else None)
    if pod_path is None:
        return r
    namespace = str(dict_of(r.body.get("metadata")).get("namespace") or "")
    body: Any = r.body
    for kind, paths in _REFERENCES.items():
        for path in paths:
            body = _rename_at(body, pod_path + path, kind, namespace, renamed)
    return r if body is r.body else Resource(r.doc, r.path, body, r.origins)


def _rename_at(value: Any, path: tuple[str, ...], kind: str, namespace: str,
               renamed: Mapping[tuple[str, str, str], str]) -> Any:
    if not path:
        new = renamed.get((kind, namespace, value)) if isinstance(value, str) else None
        return new if new is not None else value
    head, rest = path[0], path[1:]
    if head == "*":
        if not isinstance(value, list):
            return value
        items = [_rename_at(v, rest, kind, namespace, renamed) for v in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if not isinstance(value, dict) or head not in value:
        return value
    child = _rename_at(value[head], rest, kind, namespace, renamed)
    return value if child is value[head] else {**value, head: child}


GENERATED_HASH = "reviewbot.dev/name-hash-suffix"  # on generator stubs kustomize hashes


def _with_meta(r: Resource, meta: dict[str, Any]) -> Resource:
    return Resource(r.doc, r.path, {**r.body, "metadata": meta}, r.origins)


def _set_namespace(r: Resource, namespace: str) -> Resource:
    meta = dict_of(r.body.get("metadata"))
    if r.kind == "Namespace" and r.group == "":
        # kustomize's namespace transformer names the Namespace objects it builds
        return r if meta.get("name") == namespace else _with_meta(r, {**meta, "name": namespace})
    if r.kind in CLUSTER_SCOPED:
        return r
    if meta.get("namespace") == namespace:
        return r
    out = _with_meta(r, {**meta, "namespace": namespace})
    if r.kind in ("RoleBinding", "ClusterRoleBinding"):
        subjects = out.body.get("subjects")
        if isinstance(subjects, list):
            fixed = [
                {**s, "namespace": namespace}
                if isinstance(s, dict) and s.get("kind") == "ServiceAccount"
                and s.get("namespace") in (None, meta.get("namespace")) else s
                for s in subjects
            ]
            out = Resource(out.doc, out.path, {**out.body, "subjects": fixed}, out.origins)
    return out


def _rename(r: Resource, prefix: str, suffix: str) -> Resource:
    if r.kind in ("CustomResourceDefinition", "Namespace") and r.group in (
            "apiextensions.k8s.io", ""):
        return r
    meta = dict_of(r.body.get("metadata"))
    if not isinstance(meta.get("name"), str):
        return r
    return _with_meta(r, {**meta, "name": f"{prefix}{meta['name']}{suffix}"})


def _labels(value: Mapping[Any, Any]) -> dict[str, str]:
    return {str(k): (str(v).lower() if isinstance(v, bool) else str(v))
            for k, v in value.items() if v is not None}


_TEMPLATE = {
    "Deployment": ("spec", "template"), "StatefulSet": ("spec", "template"),
    "DaemonSet": ("spec", "template"), "ReplicaSet": ("spec", "template"),
    "ReplicationController": ("spec", "template"), "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
}


def _set_in(body: Mapping[str, Any], path: Path, labels: Mapping[str, str]) -> Mapping[str, Any]:
    """``body`` with ``labels`` merged into the mapping at ``path`` (created when absent)."""
    if not path:
        return {**body, **labels}
    head = path[0]
    assert isinstance(head, str)
    child = body.get(head)
    return {**body, head: _set_in(child if isinstance(child, dict) else {}, path[1:], labels)}


def _label(r: Resource, labels: Mapping[str, str], selectors: bool, templates: bool) -> Resource:
    if r.doc is None and r.body.get("metadata") is None:
        return r
    body: Mapping[str, Any] = _set_in(r.body, ("metadata", "labels"), labels)
    template = _TEMPLATE.get(r.kind)
    if template is not None and r.group in ("apps", "batch", "", "extensions"):
        if templates:
            body = _set_in(body, template + ("metadata", "labels"), labels)
        if selectors:
            if r.kind == "ReplicationController":
                body = _set_in(body, ("spec", "selector"), labels)
            elif r.kind not in ("Job", "CronJob"):
                body = _set_in(body, ("spec", "selector", "matchLabels"), labels)
            if r.kind == "CronJob" and templates:
                body = _set_in(body, ("spec", "jobTemplate", "metadata", "labels"), labels)
    elif selectors and r.kind == "Service" and r.group == "":
        body = _set_in(body, ("spec", "selector"), labels)
    return Resource(r.doc, r.path, body, r.origins)


def _annotate(r: Resource, annotations: Mapping[str, str]) -> Resource:
    body = _set_in(r.body, ("metadata", "annotations"), annotations)
    template = _TEMPLATE.get(r.kind)
    if template is not None and r.group in ("apps", "batch", "", "extensions"):
        body = _set_in(body, template + ("metadata", "annotations"), annotations)
    return Resource(r.doc, r.path, body, r.origins)


def _replicas(r: Resource, name: str, count: int) -> Resource:
    if r.name != name or r.kind not in ("Deployment", "StatefulSet", "ReplicaSet",
                                        "ReplicationController"):
        return r
    spec = dict_of(r.body.get("spec"))
    return Resource(r.doc, r.path, {**r.body, "spec": {**spec, "replicas": count}}, r.origins)


def split_image(image: str) -> tuple[str, str, str]:
    """(name, ``:tag`` or '', ``@digest`` or '') as kustomize's image transformer splits."""
    name, at, digest = image.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    tag = ""
    if colon > slash:
        name, tag = name[:colon], name[colon:]
    return name, tag, at + digest


def transform_image(image: str, rules: Sequence[Mapping[str, Any]]) -> str:
    """``image`` after an ``images:`` list (the first rule whose name matches)."""
    name, tag, digest = split_image(image)
    for rule in rules:
        if str(rule.get("name")) != name:
            continue
        new_name = rule.get("newName")
        new_tag, new_digest = rule.get("newTag"), rule.get("digest")
        if new_name:
            name = str(new_name)
        has_tag = new_tag is not None and str(new_tag) != ""
        if has_tag and new_digest:  # either replaces both the tag and the digest
            tag, digest = ":" + str(new_tag), "@" + str(new_digest)
        elif has_tag:
            tag, digest = ":" + str(new_tag), ""
        elif new_digest:
            tag, digest = "", "@" + str(new_digest)
        return name + tag + digest
    return image


def _images(
    r: Resource, rules: Sequence[Mapping[str, Any]], doc: Document | None = None
) -> Resource:
    """``r`` with its container images transformed; with ``doc`` (the kustomization), each
    changed image's origin is the images entry's field that decided it."""
    origins: dict[Path, tuple[Document, Path]] = {}
    body = _walk_images(r.body, (), rules, origins, doc)
    if body is r.body:
        return r
    return Resource(r.doc, r.path, body, {**r.origins, **origins})


def _image_origin(image: str, rules: Sequence[Mapping[str, Any]]) -> Path | None:
    """The ``images`` entry field that sets ``image``: digest, else newTag, else newName."""
    name = split_image(image)[0]
    for i, rule in enumerate(rules):
        if str(rule.get("name")) == name:
            for key in ("digest", "newTag", "newName"):
                if rule.get(key) is not None and str(rule.get(key)) != "":
                    return ("images", i, key)
            return ("images", i)
    return None


def _walk_images(
    value: Any, here: Path, rules: Sequence[Mapping[str, Any]],
    origins: dict[Path, tuple[Document, Path]], doc: Document | None = None,
) -> Any:
    if isinstance(value, dict):
        changed: dict[str, Any] | None = None
        for key, item in value.items():
            if key in ("containers", "initContainers", "ephemeralContainers") and isinstance(
                    item, list):
                new_list = [
                    {**c, "image": transform_image(c["image"], rules)}
                    if isinstance(c, dict) and isinstance(c.get("image"), str)
                    and transform_image(c["image"], rules) != c["image"] else
                    _walk_images(c, here + (key, i), rules, origins, doc)
                    for i, c in enumerate(item)
                ]
                for i, (new_c, old_c) in enumerate(zip(new_list, item, strict=True)):
                    at = _image_origin(old_c["image"], rules) if (
                        doc is not None and new_c is not old_c and isinstance(old_c, dict)
                        and isinstance(old_c.get("image"), str)) else None
                    if at is not None and doc is not None:
                        origins[here + (key, i, "image")] = (doc, at)
                if any(a is not b for a, b in zip(new_list, item, strict=True)):
                    changed = changed if changed is not None else dict(value)
                    changed[key] = new_list
            elif isinstance(item, (dict, list)):
                new = _walk_images(item, here + (key,), rules, origins, doc)
                if new is not item:
                    changed = changed if changed is not None else dict(value)
                    changed[key] = new
        return changed if changed is not None else value
    if isinstance(value, list):
        new_items = [_walk_images(v, here + (i,), rules, origins, doc)
                     for i, v in enumerate(value)]
        if any(a is not b for a, b in zip(new_items, value, strict=True)):
            return new_items
    return value

