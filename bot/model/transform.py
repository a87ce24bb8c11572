"""kustomize's transformers and generators, in kustomize's order: generators, patches,
``namespace``, ``namePrefix``/``nameSuffix``, ``commonLabels``/``labels``,
``commonAnnotations``, ``patchesJson6902``, ``replicas``, ``images``, ``replacements``."""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from reviewbot import startup
from reviewbot.load.loader import Document
from reviewbot.model.fieldspecs import (
    BUILTIN,
    BackReference,
    Config,
    FieldSpec,
    Trie,
    cluster_scoped,
)
from reviewbot.model.fieldspecs import parse as parse_config
from reviewbot.model.fieldspecs import spec as field_spec
from reviewbot.model.patches import (
    Reader,
    Refused,
    Target,
    Unmatched,
    json_patches,
    names_target,
    patcher,
    patches,
    smp_targets,
    strategic_patches,
)
from reviewbot.model.patches import unmatched as patch_unmatched
from reviewbot.model.replacements import apply_replacements
from reviewbot.model.resource import (
    GENERATED_UNKNOWN,
    Id,
    Kustomization,
    Path,
    Renames,
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
        # by any name the object had (kustomize's GetMatchingResourcesByAnyId): a base's
        # prefix renamed it after its generator named it
        matches = [i for i, r in enumerate(out) if r.kind == made.kind and r.group == ""
                   and (r.name == meta.get("name") and (
                       "namespace" not in meta or r.namespace == meta["namespace"])
                        or any(p[2] == meta.get("name") and (
                            "namespace" not in meta or p[1] == (meta["namespace"] or "default"))
                            for p in r.renames.previous))]
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
    return Resource(None, (), body, {**old.origins, **new.origins}, old.renames)


def configuration(k: Kustomization, read: Reader) -> Config:
    """kustomize's builtin transformer configuration with the ``configurations:`` files of
    ``k`` merged in (read through the build's reader; a file it cannot read, or not as
    kustomize would, is named in the result's ``problems``)."""
    config = BUILTIN
    for entry in list_of(k.body.get("configurations")):
        if not isinstance(entry, str) or not entry.strip():
            continue
        lf = read(join(k.directory, entry.strip()))
        docs = [d for d in lf.documents if d.value is not None] if lf is not None else []
        if len(docs) != 1:
            config = config.merge(Config({}, (), (f"{entry}: not one YAML document",)))
            continue
        config = config.merge(parse_config(docs[0].value, entry))
    return config


def transform(k: Kustomization, resources: list[Resource], read: Reader,
              deleted: list[Resource] | None = None, generated: bool = False,
              config: Config | None = None,
              unmatched: list[Unmatched] | None = None,
              plugins: Sequence[Mapping[str, Any]] = ()) -> list[Resource]:
    """``resources`` after ``k``'s generators, patches and transformers, in kustomize's order
    (``read``: the tree's files, for patch files; ``deleted`` gets the objects a patch
    deleted, ``$patch: delete``; ``generated``: the generators' objects are in
    ``resources`` already, :func:`generate`; ``config``: the transformer configuration the
    build has merged so far, else ``k``'s own, :func:`configuration`; ``unmatched`` gets
    the strategic merge patches without a target that patched no object, which kustomize
    refuses: :class:`Unmatched`; ``plugins``: the configurations of the builtin
    transformers its ``transformers:`` entries name, which run last, in order:
    :func:`builtin_transformer`). Renames are recorded
    on each object; the name references follow once the whole build is made
    (:func:`finish`)."""
    body = k.body
    cfg = config if config is not None else configuration(k, read)
    gone: list[Resource] = deleted if deleted is not None else []

    out = list(resources) if generated else generate(k, read, resources)
    by_kind = _Kinds()
    for entry, patch in strategic_patches(k, read):
        kind = patch.body.get("kind")  # (a strategic merge patch targets its own kind)
        before = out
        out = by_kind.patched(out, kind if isinstance(kind, str) else None,
                              functools.partial(smp_targets, patch=patch),
                              functools.partial(apply_smp, patch=patch), gone)
        if out is before and unmatched is not None and names_target(patch):
            unmatched.append(patch_unmatched(entry, patch, out))
    for entry, selector, patch in patches(k, read):
        target = Target(selector, patch)
        before = out
        try:
            out = by_kind.patched(out, target.only, target.selects,
                                  _storing_id(patcher(patch, selector is not None)), gone)
        except Refused as refused:  # kustomize refuses the build: said where it is judged
            if unmatched is not None:
                unmatched.append(Unmatched(entry, patch, (), selector, str(refused),
                                           refused.lacks, refused.said))
            out = before
            continue
        # (a patch with a target that selects nothing is no error to kustomize v5: it does
        # nothing, which the build keeps apart)
        if (out is before and unmatched is not None and selector is None
                and names_target(patch)):
            unmatched.append(patch_unmatched(entry, patch, out))
        elif out is before and unmatched is not None and selector is not None and not (
                any(target.selects(r) for r in out)):
            unmatched.append(Unmatched(entry, patch, (), selector))
    namespace = text_of(body.get("namespace"))
    if namespace:
        kinds: dict[tuple[str, str], tuple[bool, tuple[FieldSpec, ...]]] = {}
        out = [_set_namespace(r, namespace, cfg, kinds) for r in out]
    prefix, suffix = text_of(body.get("namePrefix")), text_of(body.get("nameSuffix"))
    if prefix:
        out = [_affix(r, prefix, "", cfg, "namePrefix") for r in out]
    if suffix:
        out = [_affix(r, "", suffix, cfg, "nameSuffix") for r in out]
    for spec in list_of(body.get("labels")):
        if isinstance(spec, dict) and isinstance(spec.get("pairs"), dict) and spec["pairs"]:
            specs = _label_specs(spec, cfg)
            out = [_set_entries(r, _labels(spec["pairs"]), _selecting(specs, r))
                   for r in out]
    common = body.get("commonLabels")
    if isinstance(common, dict) and common:
        out = [_set_entries(r, _labels(common), cfg.selecting("commonLabels", *_gvk(r)))
               for r in out]
    annotations = body.get("commonAnnotations")
    if isinstance(annotations, dict) and annotations:
        out = [_set_entries(r, _labels(annotations),
                            cfg.selecting("commonAnnotations", *_gvk(r))) for r in out]
    for selector, patch in json_patches(k, read):
        target = Target(selector, patch)
        with contextlib.suppress(Refused):  # (kustomize refuses the build; not said here)
            out = by_kind.patched(out, target.only, target.selects,
                                  _storing_id(patcher(patch, True)), gone)
    for i, item in enumerate(list_of(body.get("replicas"))):
        if isinstance(item, dict) and isinstance(item.get("count"), int):
            # (the entry is where the count is written: the diff says "set in" it)
            where = ((k.doc, ("replicas", i, "count")) if k.doc is not None and k.doc.value is body
                     else None)
            out = [_replicas(r, str(item.get("name")), item["count"],
                             cfg.selecting("replicas", *_gvk(r)), where) for r in out]
    images = [i for i in list_of(body.get("images")) if isinstance(i, dict) and i.get("name")]
    if images:
        # a real kustomization file: the images entry that changed an image is where
        # findings about it point (a Flux spec.images wrapper has no such place)
        doc = k.doc if k.doc.value is body else None
        out = [_images(r, images, doc) for r in out]
        extra = [s for s in cfg["images"] if s not in BUILTIN["images"]]
        if extra:
            out = [_set_at(r, _selecting(extra, r), lambda v: transform_image(v, images)
                           if isinstance(v, str) else v) for r in out]
    if body.get("replacements"):
        out = apply_replacements(k, out, read).resources
    for plugin in plugins:
        if plugin.get("kind") == "PatchTransformer":  # as a ``patches:`` entry of k's
            item = {key: plugin[key] for key in ("patch", "path", "target", "options")
                     if key in plugin}
            wrapper = Kustomization(k.file, k.directory, {"patches": [item]}, k.doc)
            out = transform(wrapper, out, read, gone, True, cfg)
        else:
            out = _run_builtin(plugin, out)
    return out


# The builtin transformers (kustomize's api/builtins) a ``transformers:`` entry may configure
# (``apiVersion: builtin``) that reviewbot runs, each with the step the kustomization field of
# the same transformer runs (``namespace``, ``namePrefix``/``nameSuffix``, ``labels``,
# ``commonAnnotations``, ``images``, ``replicas``, ``patches``), its fieldSpecs the
# configuration's own.
# Another plugin's output is not known (kustomize-integrity and the objects' doubts say so).
BUILTIN_TRANSFORMERS = frozenset({
    "NamespaceTransformer", "PrefixSuffixTransformer", "PrefixTransformer",
    "SuffixTransformer", "LabelTransformer",
    "AnnotationsTransformer", "ImageTagTransformer", "ReplicaCountTransformer",
    "PatchTransformer",
})


def builtin_transformer(config: Any) -> bool:
    """Whether ``config`` (an object a ``transformers:`` entry holds or builds) configures
    a builtin transformer reviewbot runs as kustomize does."""
    return (isinstance(config, dict) and config.get("apiVersion") == "builtin"
            and config.get("kind") in BUILTIN_TRANSFORMERS)


def _run_builtin(config: Mapping[str, Any], out: list[Resource]) -> list[Resource]:
    """``out`` after the builtin transformer ``config`` configures (kustomize's plugin:
    every object, an empty one left alone; the fieldSpecs the configuration lists)."""
    kind = config.get("kind")
    specs = [s for s in map(field_spec, list_of(config.get("fieldSpecs"))) if s is not None]
    if kind == "NamespaceTransformer":
        namespace = text_of(dict_of(config.get("metadata")).get("namespace"))
        if not namespace:
            return out  # (the plugin sets nothing without one)
        own = Config({"namespace": tuple(specs)})
        kinds: dict[tuple[str, str], tuple[bool, tuple[FieldSpec, ...]]] = {}
        unset_only = config.get("unsetOnly") is True
        return [_set_namespace(r, namespace, own, kinds, unset_only) for r in out]
    if kind in ("PrefixSuffixTransformer", "PrefixTransformer", "SuffixTransformer"):
        # (kustomize v5's two halves of the first: each reads its own field only)
        prefix = (text_of(config.get("prefix")) or "") if kind != "SuffixTransformer" else ""
        suffix = (text_of(config.get("suffix")) or "") if kind != "PrefixTransformer" else ""
        if not prefix and not suffix:
            return out
        own = Config({"namePrefix": tuple(specs)})
        return [_affix(r, prefix, suffix, own, "namePrefix") for r in out]
    if kind in ("LabelTransformer", "AnnotationsTransformer"):
        entries = config.get("labels" if kind == "LabelTransformer" else "annotations")
        if not isinstance(entries, dict) or not entries:
            return out
        return [_set_entries(r, _labels(entries), _selecting(specs, r)) for r in out]
    if kind == "ImageTagTransformer":
        tag = config.get("imageTag")
        if not isinstance(tag, dict) or not tag.get("name"):
            return out
        out = [_images(r, [tag]) for r in out]  # every container's image, then the fields
        return [_set_at(r, _selecting(specs, r), lambda v: transform_image(v, [tag])
                        if isinstance(v, str) else v) for r in out]
    if kind == "ReplicaCountTransformer":
        replica = config.get("replica")
        if not isinstance(replica, dict) or not isinstance(replica.get("count"), int):
            return out
        return [_replicas(r, str(replica.get("name")), replica["count"], _selecting(specs, r))
                for r in out]
    return out


class _Kinds:
    """The kind of each object of a build's list (``Resource.kind``), made once for the
    patches that follow one another: a patch is tried only on the objects of the kind it
    targets (the first test of ``smp_targets`` and of a ``Target`` with a plain kind; a
    test keeps the two ways equal). A patch that changes the list carries the kinds over
    to the new one, made again only for the objects it patched."""

    def __init__(self) -> None:
        self._of: list[Resource] | None = None
        self._kinds: list[str] = []

    def patched(self, out: list[Resource], kind: str | tuple[()] | None,
                selects: Callable[[Resource], bool],
                apply: Callable[[Resource], Resource | None],
                gone: list[Resource]) -> list[Resource]:
        """``out`` with ``apply`` done, in order, to each object ``selects`` picks (None: the
        object deleted, added to ``gone``); ``out`` itself when it picks none. ``kind``:
        the only kind ``selects`` can pick (None: none; ``()``: any)."""
        if kind is None:
            return out
        kinds = self._kinds if self._of is out else None
        if kind == ():
            picked = [n for n, r in enumerate(out) if selects(r)]
        else:
            if kinds is None:
                # (Resource.kind of each, without the property's call)
                kinds = [str(r.body.get("kind") or "") for r in out]
                self._of, self._kinds = out, kinds
            picked = [n for n, found in enumerate(kinds) if found == kind and selects(out[n])]
        if not picked:
            return out
        kept = out[:picked[0]]
        kept_kinds = kinds[:picked[0]] if kinds is not None else None
        at = set(picked)
        for n in range(picked[0], len(out)):
            r = out[n]
            if n in at:
                after = apply(r)
                if after is None:
                    gone.append(r)
                    continue
                r = after
                if kept_kinds is not None:
                    kept_kinds.append(str(r.body.get("kind") or ""))
            elif kept_kinds is not None:
                kept_kinds.append(kinds[n])  # type: ignore[index]
            kept.append(r)
        if kept_kinds is not None:
            self._of, self._kinds = kept, kept_kinds
        return kept


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
    import base64  # here: only a generator encodes (0.8% of a one-file lint's instructions)

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


def finish(resources: Sequence[Resource], config: Config = BUILTIN,
           variables: Sequence[Mapping[str, Any]] = ()) -> list[Resource]:
    """The objects of a whole build (what ``kustomize build`` of that folder prints), the
    steps kustomize takes last, once, on the whole build: each generated ConfigMap and
    Secret whose content is known named with kustomize's content hash (``-<10 characters>``);
    then every name reference to an object a build renamed (prefix, suffix, hash, namespace)
    follows it, at the fieldSpecs of ``config`` (:func:`references`); then ``$(VAR)`` of the
    build's ``vars`` is substituted (:func:`resolve_vars`); the build's own marks removed, and
    an empty ``annotations`` with them."""
    out: list[Resource] = []
    for r in resources:
        meta = dict_of(r.body.get("metadata"))
        if "annotations" in meta and meta["annotations"] in (None, {}):
            # kustomize writes no empty annotations (null or {}): kyaml's ClearEmptyAnnotations
            meta = {k: v for k, v in meta.items() if k != "annotations"}
            r = r.with_body({**r.body, "metadata": meta})
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
        new_meta["name"] = f"{meta.get('name')}-{content_hash(r.body)}"
        out.append(Resource(r.doc, r.path, {**r.body, "metadata": new_meta}, r.origins,
                            _previous(r)))
    out = references(out, config)
    return resolve_vars(out, variables, config) if variables else out


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
    hashed = str(startup.digest("sha256", text.encode("utf-8")).hexdigest())[:10]
    return hashed.translate(str.maketrans("013ae", "ghkmt"))


GENERATED_HASH = "reviewbot.dev/name-hash-suffix"  # on generator stubs kustomize hashes


# ---------------------------------------------------------------- ids, as kustomize keeps them


def _gv(r: Resource) -> tuple[str, str]:
    api = str(r.body.get("apiVersion") or "")
    group, _, version = api.rpartition("/")
    return group, version


def _gvk(r: Resource, kind: str | None = None) -> tuple[str, str, str]:
    group, version = _gv(r)
    return group, version, r.kind if kind is None else kind


def _scoped(r: Resource) -> bool:
    return cluster_scoped(str(r.body.get("apiVersion") or ""), r.kind)


def _effective(r: Resource) -> str:
    """kustomize's EffectiveNamespace: ``~X`` for what it takes for cluster-scoped,
    ``default`` for none."""
    if _scoped(r):
        return "~X"
    namespace = dict_of(r.body.get("metadata")).get("namespace")
    return str(namespace) if namespace not in (None, "", "default") else "default"


def _current(r: Resource) -> Id:
    return r.kind, _effective(r), str(dict_of(r.body.get("metadata")).get("name") or "")


def _previous(r: Resource, prefix: str = "", suffix: str = "") -> Renames:
    """``r``'s renames with its current id stored as a previous one (kustomize's
    StorePreviousId), and a prefix or suffix it is about to get."""
    h = r.renames
    return Renames(h.previous + (_current(r),), h.prefixes + ((prefix,) if prefix else ()),
                   h.suffixes + ((suffix,) if suffix else ()))


def _storing_id(apply: Callable[[Resource], Resource | None]
                ) -> Callable[[Resource], Resource | None]:
    """``apply`` (a patch) recording the id an object had when the patch changed its name,
    namespace or kind (kustomize's StorePreviousId, which its PatchTransformer calls): the
    later patches' targets still match the name it first had, and name references to it
    follow the new one (kubectl kustomize 5.5: a JSON 6902 ``replace /metadata/name``, then
    a target naming the old name patches it, and a ConfigMap's volume follows the rename)."""
    def patched(r: Resource) -> Resource | None:
        after = apply(r)
        if after is None or after is r:
            return after
        was, now = r.body, after.body
        if now.get("kind") == was.get("kind"):
            meta, meta_was = dict_of(now.get("metadata")), dict_of(was.get("metadata"))
            if (meta.get("name") == meta_was.get("name")
                    and meta.get("namespace") == meta_was.get("namespace")):
                return after
        return Resource(after.doc, after.path, after.body, after.origins, _previous(r))
    return patched


def _original_kind(r: Resource) -> str:
    return r.renames.previous[0][0] if r.renames.previous else r.kind


# ---------------------------------------------------------------- fieldSpecs


def _set_at(r: Resource, specs: Iterable[FieldSpec], setter: Any, create: Any = None
            ) -> Resource:
    """``r`` with ``setter`` applied to the value at each of ``specs`` (which select it)
    (kustomize's fieldspec filter: lists on the way walked element by element; with the
    spec's ``create``, missing mappings made and the last field made as ``create()``)."""
    body: Any = r.body
    for spec in specs:
        body = _walk(body, spec.steps, setter, create if spec.create else None)
    return r if body is r.body else r.with_body(body)


def _selecting(specs: Iterable[FieldSpec], r: Resource, kind: str | None = None
               ) -> list[FieldSpec]:
    group, version = _gv(r)
    kind = r.kind if kind is None else kind
    return [s for s in specs if s.selects(group, version, kind)]


def _walk(node: Any, steps: Sequence[str], setter: Any, create: Any) -> Any:
    if not steps:
        return setter(node)
    if isinstance(node, list):
        items = [_walk(v, steps, setter, create) for v in node]
        return items if any(a is not b for a, b in zip(items, node, strict=True)) else node
    if not isinstance(node, dict):
        return node  # kustomize refuses a scalar on the way
    key = steps[0]
    listed = key.endswith("[]")
    key = key[:-2] if listed else key
    child = node.get(key)
    if child is None:
        if create is None or listed:
            return node
        child = create() if len(steps) == 1 else {}
    new = _walk(child, steps[1:], setter, create)
    return node if new is child and key in node else {**node, key: new}


def _set_entries(r: Resource, entries: Mapping[str, str], specs: Iterable[FieldSpec]
                 ) -> Resource:
    """Labels or annotations ``entries`` set in the mappings at ``specs`` (created where
    the spec says)."""
    def put(node: Any) -> Any:
        if not isinstance(node, dict):
            return node  # kustomize refuses a label field that is no mapping
        if all(node.get(k) == v for k, v in entries.items()):
            return node
        return {**node, **entries}
    return _set_at(r, specs, put, create=dict)


def _label_specs(spec: Mapping[str, Any], cfg: Config) -> list[FieldSpec]:
    """Where a ``labels`` entry writes: its ``fields``, the configuration's ``labels``, and
    with ``includeSelectors`` every commonLabels fieldSpec, else with ``includeTemplates``
    the templates', and ``metadata/labels``."""
    own = [s for s in map(field_spec, list_of(spec.get("fields"))) if s is not None]
    out = own + list(cfg["labels"])
    if spec.get("includeSelectors") is True:
        return out + list(cfg["commonLabels"])
    if spec.get("includeTemplates") is True:
        out += list(cfg["templateLabels"])
    return out + [FieldSpec("", "", "", "metadata/labels", True)]


def _set_namespace(r: Resource, namespace: str, cfg: Config,
                   kinds: dict[tuple[str, str], tuple[bool, tuple[FieldSpec, ...]]],
                   unset_only: bool = False) -> Resource:
    """kustomize's NamespaceTransformer: ``metadata.namespace`` of every object it does not
    take for cluster-scoped, a v1 Namespace's name, RoleBinding and ClusterRoleBinding
    subjects named ``default``, and the configuration's other namespace fieldSpecs
    (APIService and CRD conversion webhook services); the id before it kept. ``kinds``:
    by (apiVersion, kind), whether cluster-scoped and the fieldSpecs, as found so far;
    ``unset_only`` (a NamespaceTransformer's ``unsetOnly``): only fields not set yet."""
    body = r.body
    if not body:
        return r
    # (once per object of every build with a namespace: str() only where not text already)
    api, kind = body.get("apiVersion"), body.get("kind")
    if type(api) is not str:
        api = str(api or "")
    if type(kind) is not str:
        kind = str(kind or "")
    meta = body.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    binding = kind in ("RoleBinding", "ClusterRoleBinding")
    known = kinds.get((api, kind))
    if known is None:
        group, _, version = api.rpartition("/")
        specs = tuple(s for s in cfg.selecting("namespace", group, version, kind)
                      if s.path != "metadata/namespace"
                      and (s.path != "metadata/name" or api == "v1")
                      and not (binding and s.path == "subjects/namespace"))
        known = kinds[(api, kind)] = (cluster_scoped(api, kind), specs)
    scoped, specs = known
    was = meta.get("namespace")
    effective = "~X" if scoped else str(was) if was not in (None, "", "default") else "default"
    name = meta.get("name")
    h = r.renames
    renames = Renames(h.previous + ((kind, effective, name if type(name) is str
                                     else str(name or "")),), h.prefixes, h.suffixes)
    if not scoped and was != namespace and not (unset_only and was):
        body = {**body, "metadata": {**meta, "namespace": namespace}}
    if binding and isinstance(body.get("subjects"), list):
        subjects = [{**s, "namespace": namespace}
                    if isinstance(s, dict) and s.get("name") == "default"
                    and s.get("namespace") != namespace
                    and not (unset_only and s.get("namespace")) else s
                    for s in body["subjects"]]
        if any(a is not b for a, b in zip(subjects, body["subjects"], strict=True)):
            body = {**body, "subjects": subjects}
    r = Resource(r.doc, r.path, body, r.origins, renames)
    if not specs:
        return r
    return _set_at(r, specs, (lambda v: v if v else namespace) if unset_only
                   else (lambda _: namespace), create=str)


_AFFIX_SKIPS = (("", "CustomResourceDefinition"), ("apiregistration.k8s.io", "APIService"),
                ("", "Namespace"))


def _affix(r: Resource, prefix: str, suffix: str, cfg: Config, key: str) -> Resource:
    """kustomize's PrefixTransformer or SuffixTransformer: the name (and any other field
    the configuration names) of every object but CRDs, APIServices and Namespaces, the id
    before it kept."""
    kind = _original_kind(r)
    group, version = _gv(r)
    if any(kind == k and (not g or g == group) for g, k in _AFFIX_SKIPS):
        return r
    specs = cfg.selecting(key, group, version, kind)
    for spec in specs:
        if spec.path == "metadata/name":
            r = Resource(r.doc, r.path, r.body, r.origins, _previous(r, prefix, suffix))
    return _set_at(r, specs, lambda v: f"{prefix}{'' if v is None else v}{suffix}"
                   if not isinstance(v, (dict, list)) else v, create=str)


def _labels(value: Mapping[Any, Any]) -> dict[str, str]:
    return {str(k): (str(v).lower() if isinstance(v, bool) else str(v))
            for k, v in sorted(value.items(), key=lambda kv: str(kv[0])) if v is not None}


def _replicas(r: Resource, name: str, count: int, specs: Sequence[FieldSpec],
              where: tuple[Document, Path] | None = None) -> Resource:
    """kustomize's ReplicaCountTransformer: the object named ``name`` now or before a
    rename, of a kind its fieldSpecs select; ``where``: the entry that writes the count,
    recorded as the origin of the fields it sets (new-user trial twenty-nine: the diff
    placed an overlay's replica count at the base's line, "set in" nothing)."""
    if name != r.name and all(p[2] != name for p in r.renames.previous):
        return r
    out = _set_at(r, specs, lambda _: count, create=lambda: count)
    if out is r or where is None:
        return out
    paths = [tuple(s.steps) for s in specs if not any(x.endswith("[]") for x in s.steps)]
    return out.with_body(out.body, {**out.origins, **{p: where for p in paths}})


# ---------------------------------------------------------------- name references


def references(resources: Sequence[Resource], config: Config = BUILTIN) -> list[Resource]:
    """kustomize's name reference transformer, over a whole build: every field that
    ``config``'s nameReference says refers to an object of some kind, holding a name the
    build renamed (or moved to another namespace), gets the object's current name (and,
    where the field is a mapping with a namespace, its namespace). Candidates and their
    order of elimination are kustomize's (api/filters/nameref): a previous name equal to
    the reference, of the referral's kind, of the roleRef's kind for a roleRef, in the
    referrer's namespace (cluster-scoped objects and ServiceAccounts from anywhere), then
    the same prefixes and suffixes as the referrer. Several left that differ: kustomize
    refuses the build; the field is left as written."""
    named = _Named(resources)
    # what a reference to an object can become: its name, when a build renamed it (any
    # reference); its namespace, when it has one (a reference that is a mapping)
    moved: set[tuple[str, str, str]] = set()  # (group, version, previous kind): renamed
    placed: set[tuple[str, str, str]] = set()  # the same, in a namespace
    # (the loops below run once per object of every build: written out, not with helpers)
    for r in resources:
        previous = r.renames.previous
        if not previous:
            continue
        body = r.body
        meta = body.get("metadata")
        if not isinstance(meta, dict):
            meta = {}
        current = str(meta.get("name") or "")  # Resource.name
        renamed = False
        for p in previous:
            if p[2] != current:
                renamed = True
                break
        if renamed or meta.get("namespace"):
            group, _, version = str(body.get("apiVersion") or "").rpartition("/")  # _gv
            for p in previous:
                key = (group, version, p[0])
                placed.add(key)
                if renamed:
                    moved.add(key)
    live = config.referrals(frozenset(placed))
    if not live:
        return list(resources)  # no reference can change: kustomize leaves every field
    renaming = {id(config.name_reference[i]) for i in config.referrals(frozenset(moved))}
    tries: dict[tuple[str, str], Trie] = {}  # by (apiVersion, original kind)
    out = []
    for r in resources:
        previous = r.renames.previous
        at = (str(r.body.get("apiVersion") or ""), previous[0][0] if previous else r.kind)
        paths = tries.get(at)
        if paths is None:
            paths = tries[at] = config.reference_paths(*_gvk(r, at[1]), live)
        if paths[0]:
            scope = _Scope(r, named, renaming)
            body = _follow(r.body, paths, scope)
            if body is not r.body:
                r = r.with_body(body)
        out.append(r)
    return out


def _follow(node: Any, trie: Trie, scope: _Scope) -> Any:
    """``node`` with the references at the paths of ``trie`` renamed (lists on the way walked
    element by element, as kustomize's fieldspec filter does)."""
    children, ends = trie
    for ref, spec in ends:
        node = _refer(scope, ref, spec, node)
    if not children or node is None:
        return node
    if isinstance(node, list):
        inner: Trie = (children, [])
        items: list[Any] | None = None  # copied at the first element that changes
        for i, v in enumerate(node):
            new = _follow(v, inner, scope)
            if new is not v:
                if items is None:
                    items = list(node)
                items[i] = new
        return items if items is not None else node
    if not isinstance(node, dict):
        return node
    changed: dict[str, Any] | None = None
    for key, child in children.items():
        value = node.get(key)
        if value is None:
            continue
        new = _follow(value, child, scope)
        if new is not value:
            changed = changed if changed is not None else dict(node)
            changed[key] = new
    return changed if changed is not None else node


class _Named:
    """The objects of a build by each name they had (their previous ids), indexed when a
    reference first asks (in most builds no field holds a reference that could change)."""

    def __init__(self, resources: Sequence[Resource]) -> None:
        self.resources = resources
        self._index: dict[str, list[Resource]] | None = None

    def get(self, name: str) -> Sequence[Resource]:
        index = self._index
        if index is None:
            index = self._index = {}
            for r in self.resources:
                for p in r.renames.previous:
                    found = index.get(p[2])
                    if found is None:
                        index[p[2]] = [r]
                    elif found[-1] is not r:
                        found.append(r)
        return index.get(name, ())


class _Scope:
    """What one referrer may refer to (kustomize's SubsetThatCouldBeReferencedByResource)."""

    def __init__(self, referrer: Resource, named: _Named,
                 renaming: set[int]) -> None:
        self.referrer = referrer
        self.named = named
        self.renaming = renaming  # ids of the referrals some object of the build renamed
        self._ready = False
        self.scoped = False
        self.namespace = ""
        self.bound: set[str] = set()

    def _prepare(self) -> None:
        referrer = self.referrer
        self.scoped = _scoped(referrer)
        self.namespace = _effective(referrer)
        if referrer.kind == "RoleBinding":
            for s in list_of(referrer.body.get("subjects")):
                if isinstance(s, dict) and s.get("kind") == "ServiceAccount" and isinstance(
                        s.get("namespace"), str):
                    self.bound.add(s["namespace"])
        self._ready = True

    def candidates(self, name: str) -> Sequence[Resource]:
        found = self.named.get(name)
        if not found:
            return []
        if not self._ready:
            self._prepare()
        if self.scoped:
            return found
        return [c for c in found if _scoped(c) or _effective(c) == self.namespace or str(
            dict_of(c.body.get("metadata")).get("namespace") or "") in self.bound]


def _refer(scope: _Scope, ref: BackReference, spec: FieldSpec, node: Any) -> Any:
    if isinstance(node, list):
        items = [_refer_one(scope, ref, spec, v) for v in node]
        return items if any(a is not b for a, b in zip(items, node, strict=True)) else node
    return _refer_one(scope, ref, spec, node)


def _refer_one(scope: _Scope, ref: BackReference, spec: FieldSpec, node: Any) -> Any:
    if isinstance(node, str):
        if id(ref) not in scope.renaming:
            return node  # every candidate has the name the field holds
        found = _select(scope, ref, spec, node, scope.candidates(node), False)
        return found.name if found is not None and found.name != node else node
    if not isinstance(node, dict) or node.get("name") is None:
        return node
    old = str(node["name"])
    pool = scope.candidates(old)
    if "namespace" in node:
        namespace = str(node["namespace"])
        namespace = "default" if namespace == "" else namespace
        original = [c for c in pool if _org_namespace(c) == namespace]
        pool = original if any(_org_namespace(c) == namespace for c in scope.named.get(
            old)) else [c for c in pool if _effective(c) == namespace]
    found = _select(scope, ref, spec, old, pool, True)
    if found is None:
        return node
    target_ns = str(dict_of(found.body.get("metadata")).get("namespace") or "")
    if found.name == old and not target_ns:
        return node
    new = {**node, "name": found.name}
    if target_ns:
        new["namespace"] = target_ns
    return node if new == node else new


def _org_namespace(r: Resource) -> str:
    return r.renames.previous[0][1] if r.renames.previous else _effective(r)


def _select(scope: _Scope, ref: BackReference, spec: FieldSpec, old: str,
            candidates: Sequence[Resource], mapping: bool) -> Resource | None:
    """kustomize's selectReferral."""
    group_of = {id(c): _gv(c) for c in candidates}

    def of_kind(c: Resource, group: str, version: str, kind: str) -> bool:
        g, v = group_of[id(c)]
        return any((not group or group == g) and (not version or version == v)
                   and (not kind or kind == p[0]) for p in c.renames.previous)

    found = [c for c in candidates if any(p[2] == old for p in c.renames.previous)
             and of_kind(c, ref.group, ref.version, ref.kind)]
    if spec.path.endswith("roleRef/name"):
        role = dict_of(scope.referrer.body.get("roleRef"))
        if role.get("apiGroup") is not None and role.get("kind") is not None:
            found = [c for c in found if of_kind(c, str(role["apiGroup"]), "",
                                                 str(role["kind"]))]
    if not scope.scoped:
        found = [c for c in found if _scoped(c) or c.kind == "ServiceAccount"
                 or _effective(c) == scope.namespace]
    if len(found) == 1:
        return found[0]
    mine = scope.referrer.renames
    found = [c for c in found if _affixes_equal(c.renames, mine, True)]
    if len(found) > 1:
        found = [c for c in found if _affixes_equal(c.renames, mine, False)]
    if len(found) == 1:
        return found[0]
    if not found:
        return None
    same = {(c.name, str(dict_of(c.body.get("metadata")).get("namespace") or "")
             if mapping else "") for c in found}
    return found[0] if len(same) == 1 else None


def _affixes_equal(a: Renames, b: Renames, allow_empty: bool) -> bool:
    def ending(x: tuple[str, ...], y: tuple[str, ...]) -> bool:
        short, long_ = (x, y) if len(x) <= len(y) else (y, x)
        if not short:
            return len(long_) == 0
        return long_[len(long_) - len(short):] == short
    if allow_empty:
        return (not a.prefixes or not b.prefixes or ending(a.prefixes, b.prefixes)) and (
            not a.suffixes or not b.suffixes or ending(a.suffixes, b.suffixes))
    return ending(a.prefixes, b.prefixes) and ending(a.suffixes, b.suffixes)


# ---------------------------------------------------------------- vars


def resolve_vars(resources: Sequence[Resource], variables: Sequence[Mapping[str, Any]],
                 config: Config = BUILTIN) -> list[Resource]:
    """kustomize's ``vars``: each var's value read from the object its ``objref`` names
    (by any of its ids: group, version, kind and name, and namespace when given) at its
    ``fieldref.fieldPath`` (``metadata.name`` by default), then ``$(NAME)`` replaced in
    the fields of ``config``'s varReference (a field that is only ``$(NAME)`` takes the
    value's type; ``$$`` escapes; an unknown name stays as written)."""
    values: dict[str, Any] = {}
    for var in sorted(variables, key=lambda v: str(_field(v, "name"))):
        found = _var_object(var, resources)
        if found is not None:
            value = _field_value(found[0].body, found[1])
            if isinstance(value, (str, int, float, bool)):
                values[str(_field(var, "name"))] = value
    if not values:
        return list(resources)

    def substitute(node: Any) -> Any:
        if isinstance(node, str):
            return _expand(node, values)
        if isinstance(node, dict):
            new = {k: _expand(v, values) if isinstance(v, str) else v for k, v in node.items()}
            return node if all(new[k] is node[k] for k in node) else new
        if isinstance(node, list):
            items = [_expand(v, values) if isinstance(v, str) else v for v in node]
            return items if any(a is not b for a, b in zip(items, node, strict=True)) else node
        return node
    return [_set_at(r, config.selecting("varReference", *_gvk(r)), substitute)
            for r in resources]


def _var_object(var: Mapping[str, Any], resources: Sequence[Resource]
                ) -> tuple[Resource, str] | None:
    """The object a var's ``objref`` names in ``resources`` (the first), with the field path
    its value is read at, or None."""
    ref = dict_of(_field(var, "objref"))
    api = str(_field(ref, "apiVersion") or "")
    group, _, version = api.rpartition("/") if api else (
        str(_field(ref, "group") or ""), "", str(_field(ref, "version") or ""))
    name, namespace = _field(ref, "name"), _field(ref, "namespace")
    path = str(_field(dict_of(_field(var, "fieldref")), "fieldPath") or "metadata.name")
    for r in resources:
        if _gv(r) != (group, version) or r.kind != _field(ref, "kind"):
            continue
        ids = [(r.name, _effective(r))] + [(p[2], p[1]) for p in r.renames.previous]
        if any(n == name and (not namespace or ns == namespace) for n, ns in ids):
            return r, path
    return None


def var_refusal(resources: Sequence[Resource], variables: Sequence[Mapping[str, Any]]
                ) -> tuple[str, str] | None:
    """The first var (by name, as kustomize resolves them) for which kustomize refuses the
    whole build, with why: its ``objref`` names no object of the build ("cannot be mapped
    to a field in the set of known resources"), or that object does not set the field it
    reads ("field specified in var ... not found in corresponding resource"; kubectl
    kustomize 5.5 measured: a base whose var reads a ``metadata.namespace`` only an overlay
    sets fails alone); None when every var resolves."""
    for var in sorted(variables, key=lambda v: str(_field(v, "name"))):
        name = str(_field(var, "name"))
        ref = dict_of(_field(var, "objref"))
        what = f"{_field(ref, 'kind')}/{_field(ref, 'name')}"
        found = _var_object(var, resources)
        if found is None:
            return name, (f"names {what}, which the build does not hold (kustomize: the var "
                          "cannot be mapped to a field in the set of known resources)")
        if _field_value(found[0].body, found[1]) is None:
            return name, (f"reads {found[1]}, which {what} does not set (kustomize: field "
                          "specified in var not found in corresponding resource)")
    return None


def _field(value: Mapping[str, Any], key: str) -> Any:
    """``value[key]``, the key's case aside (kustomize reads a kustomization as Go reads
    JSON: ``fieldpath`` is ``fieldPath``)."""
    if key in value:
        return value[key]
    lower = key.lower()
    return next((v for k, v in value.items() if isinstance(k, str) and k.lower() == lower),
                None)


def _field_value(body: Any, path: str) -> Any:
    node = body
    for part in _field_path(path):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, list) and part.startswith("[") and "=" in part:
            key, _, want = part[1:-1].partition("=")
            node = next((x for x in node if isinstance(x, dict) and str(x.get(key)) == want),
                        None)
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def _field_path(path: str) -> list[str]:
    out: list[str] = []
    for part in re.split(r"\.(?![^\[]*\])", path):
        match = re.fullmatch(r"(.*)\[(\d+)\]", part)
        if match:
            out += [match.group(1), match.group(2)] if match.group(1) else [match.group(2)]
        else:
            out.append(part)
    return out


def _expand(text: str, values: Mapping[str, Any]) -> Any:
    """kustomize's DoReplacements of ``$(NAME)`` in ``text``."""
    if "$" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "$" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "$":
            out.append("$")
            i += 2
        elif nxt == "(":
            close = text.find(")", i + 2)
            if close < 0:
                out.append("$(")
                i += 2
                continue
            name = text[i + 2:close]
            if name in values:
                value = values[name]
                if text == f"$({name})":
                    return value
                out.append(_go_text(value))
            else:
                out.append(f"$({name})")
            i = close + 1
        else:
            out.append(c + nxt)
            i += 2
    return "".join(out)


def _go_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def split_image(image: str) -> tuple[str, str, str]:
    """(name, ``:tag`` or '', ``@digest`` or '') as kustomize's image transformer splits."""
    name, at, digest = image.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    tag = ""
    if colon > slash:
        name, tag = name[:colon], name[colon:]
    return name, tag, at + digest


def image_matches(image: str, name: str) -> bool:
    """Whether an ``images:`` entry's ``name`` names ``image``, as kustomize's
    ``image.IsImageMatched`` decides: the name, then an optional tag, then an optional
    digest (the name is a pattern there; a name with a tag, `jenkins-image:latest`, names
    that tag's image only: judge round BL)."""
    base = split_image(image)[0]
    if name == base:
        return True
    if not image.startswith(name):
        return False
    return _IMAGE_REST.fullmatch(image[len(name):]) is not None


# what may follow an images entry's name in the image it names (kustomize v5's pattern)
_IMAGE_REST = re.compile(r"(:[a-zA-Z0-9_.{}-]*)?(@sha256:[a-zA-Z0-9_.{}-]*)?")


def transform_image(image: str, rules: Sequence[Mapping[str, Any]]) -> str:
    """``image`` after an ``images:`` list: kustomize runs one image transformer per entry,
    in order, each on what the ones before made, so a later entry matches a name an
    earlier one gave (`newName: registry.io/app2`, then `name: registry.io/app2, digest:`)
    and the last of two entries of one name wins (kubectl kustomize 5.5, measured: judge
    round BU's madfam-io/enclii, whose digests reviewbot did not see)."""
    for rule in rules:
        if image_matches(image, str(rule.get("name"))):
            image = _one_image_rule(image, rule)
    return image


def _one_image_rule(image: str, rule: Mapping[str, Any]) -> str:
    """``image`` after one ``images:`` entry that matches it."""
    name, tag, digest = split_image(image)
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


def _images(
    r: Resource, rules: Sequence[Mapping[str, Any]], doc: Document | None = None
) -> Resource:
    """``r`` with its container images transformed; with ``doc`` (the kustomization), each
    changed image's origin is the images entry's field that decided it."""
    origins: dict[Path, tuple[Document, Path]] = {}
    body = _walk_images(r.body, (), rules, origins, doc)
    if body is r.body and not origins:
        return r
    return r.with_body(body, {**r.origins, **origins})


def _image_origin(image: str, rules: Sequence[Mapping[str, Any]]) -> Path | None:
    """The ``images`` entry field that sets ``image`` (the last entry of the chain
    :func:`transform_image` runs that matches): digest, else newTag, else newName."""
    found: Path | None = None
    for i, rule in enumerate(rules):
        if image_matches(image, str(rule.get("name"))):
            found = next((("images", i, key) for key in ("digest", "newTag", "newName")
                          if rule.get(key) is not None and str(rule.get(key)) != ""),
                         ("images", i))
            image = _one_image_rule(image, rule)
    return found


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
                        doc is not None and isinstance(old_c, dict)
                        and isinstance(old_c.get("image"), str)) else None
                    # (an entry whose newTag or digest writes the image as it was decides it
                    # too: a digest added where it was would be dropped; new-user trial
                    # eighty-one D1, staging's `newTag: 1.4.2` over the base's 1.4.2)
                    if at is not None and doc is not None and (
                            new_c is not old_c or len(at) == 3 and at[2] != "newName"):
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

