"""kustomize ``replacements``: a value copied from one object's field into fields of others,
the last of a kustomization's transformations (after ``images``), as kustomize's
ReplacementTransformer documents it.

A replacement (inline, or the list in a file a ``path:`` entry names) has a ``source``
(group/version/kind/name/namespace selecting exactly one object, ``fieldPath`` defaulting to
``metadata.name``, ``options.delimiter``/``index`` taking one part of the value) and
``targets`` (``select`` and ``reject`` selectors, ``fieldPaths``, ``options.delimiter``/
``index`` replacing one part of the target's value, a negative index prefixing it and one
past the end suffixing it, ``options.create`` making a missing field). A field path is dotted:
``spec.template.spec.containers.[name=web].image``, a number indexes a list, ``*`` is every
element. A scalar target keeps its type (kustomize copies the text into the node: ``8080``
stays a number, ``"8080"`` a string).

What kustomize refuses (no object or several for a source, a source field missing, a target
field missing without ``create``) leaves the objects as they were and is said in
:class:`Outcome.problems`; kustomize-integrity does not judge it yet.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reviewbot.load.loader import Document, LoadedFile
from reviewbot.load.paths import dig
from reviewbot.model.patches import label_match
from reviewbot.model.resource import (
    GENERATED_UNKNOWN,
    Kustomization,
    Path,
    Resource,
    dict_of,
    join,
    list_of,
)

Reader = Callable[[str], LoadedFile | None]
DEFAULT_SOURCE = "metadata.name"


@dataclass
class Outcome:
    """The resources after kustomize's replacements, and what could not be replaced."""

    resources: list[Resource]
    problems: list[str] = field(default_factory=list)


def replacements(k: Kustomization, read: Reader) -> Iterator[tuple[Mapping[str, Any],
                                                                  Document, Path]]:
    """Each replacement ``k`` lists: (its mapping, the document it is in, its path there)."""
    for i, item in enumerate(list_of(k.body.get("replacements"))):
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("path"), str):
            lf = read(join(k.directory, item["path"].strip()))
            for doc in lf.documents if lf is not None else ():
                values = doc.value if isinstance(doc.value, list) else [doc.value]
                for j, value in enumerate(values):
                    if isinstance(value, dict):
                        where: Path = (j,) if isinstance(doc.value, list) else ()
                        yield value, doc, where
        else:
            yield item, k.doc, ("replacements", i)


def apply_replacements(k: Kustomization, resources: list[Resource], read: Reader) -> Outcome:
    outcome = Outcome(list(resources))
    for spec, doc, where in replacements(k, read):
        _apply(spec, doc, where, outcome)
    return outcome


def _apply(spec: Mapping[str, Any], doc: Document, where: Path, outcome: Outcome) -> None:
    source = dict_of(spec.get("source"))
    found = [r for r in outcome.resources if _selected(r, source)]
    if len(found) != 1:
        outcome.problems.append(
            f"replacement source {_describe(source)} selects {len(found)} objects")
        _unresolved(spec, doc, where, outcome)
        return
    path = source.get("fieldPath") if isinstance(source.get("fieldPath"), str) else None
    values = list(_find(found[0].body, _split(path or DEFAULT_SOURCE)))
    if not values or values[0][1] is None or values[0][1] in ({}, []):  # "" is a value
        outcome.problems.append(f"replacement source field {path or DEFAULT_SOURCE} is missing")
        _unresolved(spec, doc, where, outcome)
        return
    value = values[0][1]
    options = dict_of(source.get("options"))
    delimiter = options.get("delimiter")
    if isinstance(delimiter, str) and delimiter:
        if isinstance(value, (dict, list)):
            outcome.problems.append("replacement source with a delimiter is not a scalar")
            return
        parts = _text(value).split(delimiter)
        given = options.get("index")
        index = given if isinstance(given, int) else 0
        if not 0 <= index < len(parts):
            outcome.problems.append("replacement source index out of range")
            return
        value = parts[index]
    for t, target, n, r in _targeted(spec, outcome.resources):
        opts = dict_of(target.get("options"))
        body: Any = r.body
        origins = dict(r.origins)
        for f, text in enumerate(list_of(target.get("fieldPaths"))):
            if not isinstance(text, str):
                continue
            steps = _split(text)
            hits = [p for p, _ in _find(body, steps)]
            if not hits and opts.get("create") is True:
                body, made = _create(body, steps)
                hits = [made] if made is not None else []
            if not hits:
                outcome.problems.append(f"replacement target field {text} is missing in "
                                        f"{r.kind}/{r.name}")
                continue
            for hit in hits:
                body = _set(body, hit, value, opts)
                origins[hit] = (doc, where + ("targets", t, "fieldPaths", f))
        if body is not r.body:
            outcome.resources[n] = r.with_body(body, origins)




def _unresolved(spec: Mapping[str, Any], doc: Document, where: Path, outcome: Outcome) -> None:
    """The targets of a replacement whose source is not in the build as reviewbot has it (a
    ConfigMap generated from an env file a script writes, or none): their fields keep what
    is written, which is not what the cluster gets (kustomize sets them, or refuses the
    build). Their origin is the replacement's ``source`` (:func:`unresolved_at`): a finding
    on them says it could not see the value (GoogleCloudPlatform/accelerated-platforms'
    `image: replaced-by-kustomize`, set from a generated ConfigMap: judge round BN)."""
    for _, target, n, r in _targeted(spec, outcome.resources):
        origins = dict(r.origins)
        for text in list_of(target.get("fieldPaths")):
            if isinstance(text, str):
                for hit, _ in _find(r.body, _split(text)):
                    origins[hit] = (doc, (*where, "source"))
        if origins != r.origins:
            outcome.resources[n] = r.with_body(r.body, origins)


def unresolved_at(origin: tuple[Document, Path] | None) -> Mapping[str, Any] | None:
    """The replacement whose source a field's ``origin`` is (:func:`_unresolved`: the
    replacement could not set it), or None: a replacement that set a field is its origin at
    the target's ``fieldPaths`` entry, a patch at its own field."""
    if origin is None or origin[1][-1:] != ("source",):
        return None
    found = dig(origin[0].value, origin[1][:-1])
    return found if isinstance(found, dict) and "targets" in found and isinstance(
        found.get("source"), dict) else None


def _targeted(spec: Mapping[str, Any], resources: Sequence[Resource]
              ) -> Iterator[tuple[int, Mapping[str, Any], int, Resource]]:
    """(the target's index, the target, the resource's index, the resource) for each
    resource a replacement's target selects (``select``, and none of its ``reject``)."""
    for t, target in enumerate(list_of(spec.get("targets"))):
        select = target.get("select") if isinstance(target, dict) else None
        if not isinstance(select, dict):
            continue
        rejects = [x for x in list_of(target.get("reject")) if isinstance(x, dict)]
        for n, r in enumerate(resources):
            if _selected(r, select) and not any(_selected(r, x) for x in rejects):
                yield t, target, n, r


def source_matches(resources: Sequence[Resource], source: Mapping[str, Any]) -> int:
    """How many of a build's ``resources`` a replacement's ``source`` selects (kustomize
    refuses the build unless it is one)."""
    return sum(1 for r in resources if _selected(r, source))


def source_field_missing(resources: Sequence[Resource], source: Mapping[str, Any]) -> bool:
    """Whether the one object a replacement's ``source`` selects lacks the source's field:
    kustomize refuses the build ("fieldPath ... is missing for replacement source"). A
    source a generator makes of what the tree does not hold (a file a script writes) may
    hold it where the tree does not show it: not judged; one of literals, or of files the
    tree holds, is known whole (new-user trial fifty-three: `data.MODLE` of a literal
    `MODEL`, "no findings")."""
    found = [r for r in resources if _selected(r, source)]
    if len(found) != 1 or (found[0].doc is None and GENERATED_UNKNOWN in dict_of(
            dict_of(found[0].body.get("metadata")).get("annotations"))):
        return False  # (generated of a source the tree lacks: its fields are not known)
    path = source.get("fieldPath") if isinstance(source.get("fieldPath"), str) else None
    values = list(_find(found[0].body, _split(path or DEFAULT_SOURCE)))
    return not values or values[0][1] is None


def source_field_near(resources: Sequence[Resource], source: Mapping[str, Any]) -> str | None:
    """The field of a close name the one source object holds beside the source's missing
    ``fieldPath`` (``data.MODEL`` for ``data.MODLE``), or None."""
    from reviewbot.words import misspelt

    found = [r for r in resources if _selected(r, source)]
    path = source.get("fieldPath") if isinstance(source.get("fieldPath"), str) else None
    steps = _split(path or DEFAULT_SOURCE)
    if len(found) != 1 or not steps:
        return None
    for _, parent in _find(found[0].body, steps[:-1]):
        if isinstance(parent, dict):
            near = misspelt(steps[-1], [str(key) for key in parent])
            if near:
                return ".".join([*steps[:-1], near])
    return None


def _describe(selector: Mapping[str, Any]) -> str:
    return "/".join(str(selector.get(k)) for k in ("kind", "name") if selector.get(k))


def _selected(r: Resource, selector: Mapping[str, Any]) -> bool:
    """A source or target selector (group, version, kind, name, namespace; a target's
    labelSelector and annotationSelector) matches ``r``; the name is its current name or the
    one its document gives (kustomize matches original names too)."""
    api = str(r.body.get("apiVersion") or "")
    checks = (("group", r.group), ("version", api.rpartition("/")[2]), ("kind", r.kind),
              ("namespace", r.namespace))
    for key, have in checks:
        want = selector.get(key)
        if isinstance(want, str) and want and want != have:
            return False
    name = selector.get("name")
    if isinstance(name, str) and name and name != r.name and name != _original_name(r) and (
            all(name != previous[2] for previous in r.renames.previous)):
        return False  # (a generated object's names before a prefix and its hash: new-user
        # trial forty's `api-config` under `namePrefix: dev-` and `namespace: shop`)
    meta = dict_of(r.body.get("metadata"))
    for key, where in (("labelSelector", "labels"), ("annotationSelector", "annotations")):
        wanted = selector.get(key)
        if isinstance(wanted, str) and wanted and not label_match(wanted, dict_of(
                meta.get(where))):
            return False
    return True


def _original_name(r: Resource) -> str:
    if r.doc is None:
        return ""
    value = dig(r.doc.value, r.path)
    return str(dict_of(dict_of(value).get("metadata")).get("name") or "")


def _split(text: str) -> list[str]:
    """A field path's steps: dots separate them, except inside brackets and where a
    backslash escapes one (``annotations.acme\\.example/log-level``, a key with a dot:
    kubectl kustomize 5.5 sets that key; new-user trial twelve: reviewbot split it and made
    a nested object the schema refused, a false error)."""
    out: list[str] = []
    for part in re.split(r"(?<!\\)\.(?![^\[]*\])", text.strip()):
        if part:
            out.append(part.replace("\\.", "."))
    return out


def _find(value: Any, steps: Sequence[str], here: Path = ()) -> Iterator[tuple[Path, Any]]:
    if not steps:
        yield here, value
        return
    step, rest = steps[0], steps[1:]
    if isinstance(value, dict):
        if step.startswith("[") and step.endswith("]") and "=" not in step:
            step = step[1:-1]  # a key with dots, bracketed (`annotations.[a.io/b]`)
        if step == "*":
            for key, item in value.items():
                yield from _find(item, rest, here + (key,))
        elif step in value:
            yield from _find(value[step], rest, here + (step,))
    elif isinstance(value, list):
        if step == "*":
            for i, item in enumerate(value):
                yield from _find(item, rest, here + (i,))
        elif step.startswith("[") and step.endswith("]") and "=" in step:
            key, _, want = step[1:-1].partition("=")
            for i, item in enumerate(value):
                if (isinstance(item, dict) and key in item and _text(item[key]) == want) or (
                        not key and not isinstance(item, (dict, list)) and _text(item) == want):
                    yield from _find(item, rest, here + (i,))
        elif step.isdigit() and int(step) < len(value):
            yield from _find(value[int(step)], rest, here + (int(step),))


def _create(body: Any, steps: Sequence[str]) -> tuple[Any, Path | None]:
    """``body`` with the mappings (and ``[key=value]`` elements) of ``steps`` made where
    missing; the path made."""
    if not steps:
        return body, ()
    step, rest = steps[0], steps[1:]
    if isinstance(body, dict) and not step.startswith("[") and step != "*":
        child, made = _create(body.get(step, {} if rest and not rest[0].startswith("[")
                                       else [] if rest else None), rest)
        if made is None:
            return body, None
        return {**body, step: child}, (step,) + made
    if isinstance(body, list) and step.startswith("[") and "=" in step:
        key, _, want = step[1:-1].partition("=")
        for i, item in enumerate(body):
            if isinstance(item, dict) and _text(item.get(key)) == want:
                child, made = _create(item, rest)
                if made is None:
                    return body, None
                out = list(body)
                out[i] = child
                return out, (i,) + made
        child, made = _create({key: want}, rest)
        if made is None:
            return body, None
        return [*body, child], (len(body),) + made
    return body, None


def _set(body: Any, path: Path, value: Any, options: Mapping[str, Any]) -> Any:
    if not path:
        return _new_value(body, value, options)
    head, rest = path[0], path[1:]
    if isinstance(body, dict):
        return {**body, head: _set(body.get(head), rest, value, options)}
    if isinstance(body, list) and isinstance(head, int):
        out = list(body)
        out[head] = _set(out[head], rest, value, options)
        return out
    return body


def _new_value(old: Any, value: Any, options: Mapping[str, Any]) -> Any:
    delimiter = options.get("delimiter")
    if isinstance(delimiter, str) and delimiter and not isinstance(old, (dict, list)):
        parts = _text(old).split(delimiter) if old is not None else [""]
        given = options.get("index")
        index = given if isinstance(given, int) else 0
        if index < 0:
            parts = [_text(value), *parts]
        elif index >= len(parts):
            parts = [*parts, _text(value)]
        else:
            parts[index] = _text(value)
        value = delimiter.join(parts)
    if old is None or isinstance(old, (dict, list)) or isinstance(value, (dict, list)):
        return value
    return _typed(_text(value), old)


def _typed(text: str, like: Any) -> Any:
    """``text`` in the type of the scalar it replaces (kustomize keeps the node's tag)."""
    if isinstance(like, bool):
        return {"true": True, "false": False}.get(text.lower(), text)
    if isinstance(like, int):
        try:
            return int(text)
        except ValueError:
            return text
    if isinstance(like, float):
        try:
            return float(text)
        except ValueError:
            return text
    return text


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)
