"""The kubeconform wrapper: the only module that runs kubeconform.

kubeconform runs once over every object: the objects go in as JSON documents on stdin
(``-strict -output json -verbose -ignore-missing-schemas``), each renamed to a marker
(``reviewbot-<index>``) so that every result line maps back to exactly one object whatever
order kubeconform's workers finish in (a string name is replaced by a string, which no schema
tells apart). Schema locations: kubeconform's default registry, the user's folders, then the
tree's CRDs and reviewbot's bundled schemas written standalone to a temporary folder.

kubeconform's JSON output (v0.6+): ``{"resources": [{"filename", "kind", "name", "version",
"status": "statusValid|statusInvalid|statusError|statusSkipped", "msg", "validationErrors":
[{"path": "/spec/replicas", "msg": "..."}]}], "summary": {...}}``. Older releases have no
``validationErrors``; their ``msg`` is parsed for the JSON pointer instead.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

from reviewbot.errors import ReviewbotError
from reviewbot.load.paths import dig
from reviewbot.schema.store import SchemaStore

Path = tuple[str | int, ...]
MARK = "reviewbot-"
FLAT_LAYOUT = "{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"
GROUP_LAYOUT = "{{ .Group }}/" + FLAT_LAYOUT
TIMEOUT_SECONDS = 300
_EXTRA = re.compile(r"additional ?propert(?:y|ies) ((?:'[^']*'(?:, )?)+) (?:is|are )?not allowed",
                    re.IGNORECASE)
_MISSING = re.compile(r"missing propert(?:y|ies):? ((?:'[^']*'(?:, )?)+)", re.IGNORECASE)
_POINTER_MSG = re.compile(r"jsonschema: '([^']*)' does not validate with [^:]*(?::[^:]*)*?: (.*)$")
_FIELD_MSG = re.compile(r"For field ([^:]+): (.*)$")
_ABSENT = object()
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


@dataclass(frozen=True)
class Problem:
    """A problem kubeconform reported, mapped to a path in the object."""

    path: Path  # where (the object, for a missing field)
    key: Path  # identity (path plus the unknown or missing field)
    message: str
    redacted: str  # the message with every quoted value removed (Secret data)
    value: Any = None
    value_known: bool = False  # ``value`` is the instance value at ``path``
    unknown: str = ""  # an unknown field's name (the finding points at the key)


@dataclass(frozen=True)
class Result:
    """kubeconform's verdict on one object."""

    validated: bool
    reason: str = ""
    problems: tuple[Problem, ...] = field(default=())


def find_kubeconform(option: str) -> str | None:
    """``auto``: kubeconform on PATH, if any; ``never``: none; else the named binary."""
    choice = option.strip()
    if choice in ("", "auto"):
        return shutil.which("kubeconform")
    if choice in ("never", "off", "false", "no"):
        return None
    found = shutil.which(choice)
    if found is None:
        raise ReviewbotError(f"kubeconform binary {choice!r} not found or not executable")
    return found


def run_kubeconform(
    binary: str, bodies: Sequence[Mapping[str, Any]], store: SchemaStore, *,
    kubernetes_version: str = "", locations: Sequence[str] = (),
) -> list[Result]:
    """One kubeconform run over ``bodies``; one Result per body, in order."""
    if not bodies:
        return []
    stream = "".join(
        "---\n" + json.dumps(_marked(body, i), separators=(",", ":")) + "\n"
        for i, body in enumerate(bodies)
    )
    import tempfile  # kubeconform runs: a lint without it never imports it

    with tempfile.TemporaryDirectory(prefix="reviewbot-schemas-") as tmp:
        store.export(FsPath(tmp))
        args = [binary, "-strict", "-output", "json", "-verbose", "-summary",
                "-ignore-missing-schemas"]
        if kubernetes_version:
            args += ["-kubernetes-version", _full_version(kubernetes_version)]
        args += ["-schema-location", "default"]
        for location in locations:
            for text in _locations(location, store.root):
                args += ["-schema-location", text]
        args += ["-schema-location", os.path.join(tmp, GROUP_LAYOUT), "-"]
        try:
            proc = subprocess.run(
                args, input=stream.encode(), capture_output=True, check=False,
                timeout=TIMEOUT_SECONDS,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ReviewbotError(f"cannot run kubeconform: {exc}") from exc
    err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    try:
        output = json.loads(proc.stdout.decode("utf-8", "replace"))
    except ValueError:
        output = None
    if not isinstance(output, dict):
        raise ReviewbotError(
            f"kubeconform printed no JSON (exit {proc.returncode}): {err[-1] if err else ''}"
        )
    return parse_output(output, bodies)


def parse_output(output: Mapping[str, Any], bodies: Sequence[Mapping[str, Any]]) -> list[Result]:
    results: list[Result | None] = [None] * len(bodies)
    unmatched: list[Mapping[str, Any]] = []
    for entry in output.get("resources") or ():
        if not isinstance(entry, dict):
            continue
        index = _index(entry.get("name"), len(bodies))
        if index is None:
            unmatched.append(entry)
            continue
        results[index] = _result(entry, bodies[index])
    for entry in unmatched:  # objects without a string name: match by kind and version
        for i, body in enumerate(bodies):
            if results[i] is None and _same(entry, body):
                results[i] = _result(entry, body)
                break
    return [r if r is not None else Result(False, "no result from kubeconform") for r in results]


def _result(entry: Mapping[str, Any], body: Mapping[str, Any]) -> Result:
    status = str(entry.get("status") or "")
    message = str(entry.get("msg") or "")
    if status in ("statusValid", "VALID"):
        return Result(True)
    if status in ("statusSkipped", "SKIPPED", "statusEmpty", ""):
        return Result(False, "no schema")
    if status in ("statusError", "ERROR"):
        reason = "no schema" if "could not find schema" in message else (
            "kubeconform error: " + message[:120])
        return Result(False, reason)
    problems: list[Problem] = []
    details = entry.get("validationErrors")
    if isinstance(details, list) and details:
        for item in details:
            if isinstance(item, dict):
                pointer = str(item.get("path", item.get("Path", "")))
                text = str(item.get("msg", item.get("Message", "")))
                problems += _problems(pointer, text, body)
    else:
        for part in message.split(" - "):
            pointer, text = _split_message(part)
            problems += _problems(pointer, text, body)
    return Result(True, problems=tuple(problems))


def _problems(pointer: str, text: str, body: Mapping[str, Any]) -> list[Problem]:
    path = pointer_path(pointer, body)
    extra = _EXTRA.search(text)
    if extra:
        keys = re.findall(r"'([^']*)'", extra.group(1))
        return [Problem(path + (k,), path + (k,), f"unknown field {k!r}", f"unknown field {k!r}",
                        unknown=k) for k in keys]
    missing = _MISSING.search(text)
    if missing:
        keys = re.findall(r"'([^']*)'", missing.group(1))
        return [Problem(path, path + (k,), f"missing required field {k!r}",
                        f"missing required field {k!r}") for k in keys]
    clean = text.replace(" or null", "").replace("[null, ", "[").strip()
    known, value = _value_at(body, path)
    return [Problem(path, path, clean, _QUOTED.sub("(value not shown)", clean), value, known)]


def _split_message(part: str) -> tuple[str, str]:
    match = _POINTER_MSG.search(part)
    if match:
        return match.group(1), match.group(2)
    match = _FIELD_MSG.search(part)
    if match:
        return "/" + match.group(1).replace(".", "/"), match.group(2)
    return "", part.strip()


def pointer_path(pointer: str, body: Mapping[str, Any]) -> Path:
    """A JSON pointer (``/spec/containers/0/image``) as a field path, list indexes as ints."""
    out: list[str | int] = []
    node: Any = body
    for raw in pointer.split("/")[1:] if pointer.startswith("/") else []:
        step = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list) and step.isdigit():
            out.append(int(step))
            node = node[int(step)] if int(step) < len(node) else None
        else:
            out.append(step)
            node = node.get(step) if isinstance(node, dict) else None
    return tuple(out)


def _value_at(body: Mapping[str, Any], path: Path) -> tuple[bool, Any]:
    value = dig(body, path, _ABSENT)
    return (False, None) if value is _ABSENT else (True, value)


def _marked(body: Mapping[str, Any], index: int) -> Mapping[str, Any]:
    meta = body.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
        return body
    out = dict(body)
    out["metadata"] = copy.copy(meta)
    out["metadata"]["name"] = f"{MARK}{index}"
    return out


def _index(name: Any, size: int) -> int | None:
    if isinstance(name, str) and name.startswith(MARK) and name[len(MARK):].isdigit():
        index = int(name[len(MARK):])
        return index if index < size else None
    return None


def _same(entry: Mapping[str, Any], body: Mapping[str, Any]) -> bool:
    return entry.get("kind") == body.get("kind") and entry.get("version") == body.get("apiVersion")


def _full_version(version: str) -> str:
    text = version.strip().lstrip("vV")
    return text if text.count(".") >= 2 else text + ".0"


def _locations(text: str, root: FsPath) -> list[str]:
    """kubeconform -schema-location values for one configured location."""
    if text == "default":
        return []  # always passed first
    if text.startswith(("http://", "https://")):
        return [text]
    path = str(FsPath(text) if os.path.isabs(text) else root / text)
    if "{{" in text:
        return [path]
    return [os.path.join(path, GROUP_LAYOUT), os.path.join(path, FLAT_LAYOUT)]
