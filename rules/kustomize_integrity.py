"""Kustomizations reference files that exist, list every manifest beside them, and build no
object twice.

`kustomize build` (and Flux's kustomize-controller, which runs it) fails the whole
kustomization when one entry is missing, and a manifest that sits in a kustomization's folder
but is listed nowhere is never applied: the change merges, CI is green, and nothing happens.
reviewbot checks every `kustomization.yaml` in the tree:

- each entry of `resources` (and `bases`), `components`, `patches` / `patchesStrategicMerge` /
  `patchesJson6902` paths, `configMapGenerator` / `secretGenerator` files and env files,
  `helmCharts` values files, `crds`, `replacements`, `configurations`, `generators`,
  `transformers` and `validators` exists; a folder given as a resource or component holds a
  kustomization of its own. Remote entries (URLs, `github.com/...?ref=`) are not fetched;
  entries outside the linted tree are not judged (`missing`, error);
- a YAML manifest (a file with Kubernetes objects) in a kustomization's folder that no
  kustomization references is reported (`unreachable`, warning: it will never be applied);
- two objects with the same identity (group, kind, namespace, name after the kustomizations'
  `namespace`, `namePrefix` and `nameSuffix`) reachable from one kustomization are an error
  (`duplicate`): kustomize refuses to build it;
- a Flux `Kustomization`'s `spec.path` exists (`missing`), judged when another Kustomization
  of the same source resolves in the tree (so the source is this repository), and so do its
  `spec.components`; a path without a `kustomization.yaml` is built the way Flux does
  (every manifest below it) and checked for duplicates;
- with `--render`, a kustomization that `kustomize build` refuses is an error (`build`),
  unless one of the checks above already explains it.

Failing example:

```yaml
# apps/kustomization.yaml
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - deployment.yaml
  - servcie.yaml        # no such file (service.yaml is beside it and never applied)
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
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from reviewbot.engine.findings import Violation
from reviewbot.model.objects import (
    CLUSTER_SCOPED,
    KUSTOMIZATION_FILES,
    KObject,
    Kustomization,
    Model,
    Path,
)

ID = "kustomize-integrity"
SEVERITY = "error"
SUMMARY = "Kustomization entries exist, manifests beside them are listed, no object twice."
RATIONALE = (
    "One missing entry fails the whole kustomize build; a manifest nobody lists is never "
    "applied; a duplicate object makes kustomize refuse the build. All three pass review "
    "unnoticed and surface only when the cluster does not change."
)
FIX = "Fix the path, list the manifest in its kustomization, or remove the duplicate."
KINDS: tuple[str, ...] = ()
SEVERITIES = {"missing": "error", "unreachable": "warning", "duplicate": "error",
              "build": "error"}
RENDERED = "reviewbot.dev/rendered-by"  # set by --render on objects kustomize built
BUILD_FAILED = "kustomize build failed: "
OPTIONS: tuple[Any, ...] = ()

# kustomization fields whose entries are paths: (field, sub-field or None, must be a folder
# holding a kustomization when it is a folder)
_LISTS = (("resources", True), ("bases", True), ("components", True), ("crds", False),
          ("configurations", False), ("generators", False), ("transformers", False),
          ("validators", False), ("patchesStrategicMerge", False))
_OBJECT_LISTS = (("patches", "path"), ("patchesJson6902", "path"), ("replacements", "path"))
_REMOTE_PREFIXES = ("git@", "github.com/", "gitlab.com/", "bitbucket.org/", "ssh://",
                    "https://", "http://", "git::", "oci://")


def check_set(model: Model, opts: Mapping[str, Any]) -> Iterator[Violation]:
    if model.tree is None:
        return
    index = _TreeIndex(model.tree.paths)
    kustomize = [k for k in model.kustomizations if k.flux is None]
    by_dir = {k.directory: k for k in kustomize}
    referenced: set[str] = set()
    missing_in: set[str] = set()
    for k in kustomize:
        for violation in _check_entries(k, index, referenced):
            missing_in.add(k.directory)
            yield violation
    objects_by_file: dict[str, list[KObject]] = {}
    for obj in model.objects:
        if RENDERED not in obj.annotations:  # built objects: kustomize itself checked them
            objects_by_file.setdefault(obj.file, []).append(obj)
    yield from _unreachable(kustomize, objects_by_file, referenced)
    builder = _Builder(by_dir, objects_by_file, index)
    roots = [k for k in kustomize if k.directory not in builder.included]
    reported: set[frozenset[int]] = set()
    for k in sorted(roots, key=lambda k: k.file):
        yield from builder.duplicates(k.directory, k.file, reported)
    yield from _flux_paths(model, index, builder, reported)
    yield from _build_failures(model, builder, missing_in | builder.duplicate_in)


def _build_failures(model: Model, builder: _Builder, explained: set[str]) -> Iterator[Violation]:
    """``--render``: a kustomization kustomize could not build, unless a missing entry or a
    duplicate found in what it includes already explains why."""
    for skipped in model.skipped:
        if not skipped.reason.startswith(BUILD_FAILED):
            continue
        folder = posixpath.dirname(skipped.path)
        if builder.closure(folder) & explained:
            continue
        yield Violation(
            None, (), skipped.reason, kind="build", file=skipped.path, line=1, column=1,
            key=f"{skipped.path}:build", fix="Run kustomize build on it and fix what it reports.",
        )


# ---------------------------------------------------------------- the tree


class _TreeIndex:
    """Every file and folder of the tree, and which paths the tree covers at all."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.files = frozenset(paths)
        dirs: set[str] = set()
        for path in self.files:
            parent = posixpath.dirname(path)
            while parent and parent not in dirs:
                dirs.add(parent)
                parent = posixpath.dirname(parent)
        self.dirs = frozenset(dirs)
        self._bases = _common_bases(self.files)
        # A tree of YAML files only is a partial copy (a CI filter, a corpus): what it says
        # about other files (scripts, .env files of generators) is not evidence.
        self.has_other_files = any(not _is_yaml(p) and "#" not in p for p in self.files)

    def exists(self, path: str) -> bool:
        return path in self.files or self.is_dir(path)

    def is_dir(self, path: str) -> bool:
        return path in self.dirs or path in ("", ".")

    def covers(self, path: str) -> bool:
        """Whether ``path`` lies in the linted part of the repository (else it is not judged)."""
        if path in self.files:
            return True
        if path == ".." or path.startswith("../"):
            return False  # above the repository root
        return any(
            path == base or path.startswith(base.rstrip("/") + "/")
            if base else not path.startswith("/")
            for base in self._bases
        )

    def kustomization_in(self, folder: str) -> str | None:
        for name in KUSTOMIZATION_FILES:
            candidate = posixpath.join(folder, name) if folder not in ("", ".") else name
            if candidate in self.files:
                return candidate
        return None


def _common_bases(files: frozenset[str]) -> list[str]:
    """The deepest folder holding every linted file (per kind of path: relative, absolute);
    a lone file covers only itself."""
    bases = []
    for group in ([p for p in files if p.startswith("/")],
                  [p for p in files if not p.startswith("/")]):
        if len(group) == 1:
            bases.append(group[0])
        elif group:
            bases.append(posixpath.commonpath(group))
    return bases


def _is_yaml(path: str) -> bool:
    return path.endswith((".yaml", ".yml"))


def _remote(entry: str) -> bool:
    return entry.startswith(_REMOTE_PREFIXES) or "://" in entry or "?ref=" in entry


def _resolve(directory: str, entry: str) -> str:
    return posixpath.normpath(posixpath.join(directory, entry)) if directory else (
        posixpath.normpath(entry))


# ---------------------------------------------------------------- entries exist


@dataclass(frozen=True)
class _Entry:
    path: Path  # where in the kustomization
    value: str  # the entry as written
    folder_needs_kustomization: bool


def _entries(body: Mapping[str, Any]) -> Iterator[_Entry]:
    for key, needs in _LISTS:
        items = body.get(key)
        if not isinstance(items, list):
            continue
        for i, item in enumerate(items):
            if isinstance(item, str) and "\n" not in item and not item.lstrip().startswith("{"):
                yield _Entry((key, i), item, needs)
    for key, sub in _OBJECT_LISTS:
        for i, item in enumerate(_list(body.get(key))):
            if isinstance(item, dict) and isinstance(item.get(sub), str):
                yield _Entry((key, i, sub), item[sub], False)
    for key in ("configMapGenerator", "secretGenerator"):
        for i, gen in enumerate(_list(body.get(key))):
            if not isinstance(gen, dict):
                continue
            for j, source in enumerate(_list(gen.get("files"))):
                if isinstance(source, str):
                    yield _Entry((key, i, "files", j), source.partition("=")[2] or source, False)
            for j, env in enumerate(_list(gen.get("envs"))):
                if isinstance(env, str):
                    yield _Entry((key, i, "envs", j), env, False)
            if isinstance(gen.get("env"), str):
                yield _Entry((key, i, "env"), gen["env"], False)
    for i, chart in enumerate(_list(body.get("helmCharts"))):
        if not isinstance(chart, dict):
            continue
        if isinstance(chart.get("valuesFile"), str):
            yield _Entry(("helmCharts", i, "valuesFile"), chart["valuesFile"], False)
        for j, extra in enumerate(_list(chart.get("additionalValuesFiles"))):
            if isinstance(extra, str):
                yield _Entry(("helmCharts", i, "additionalValuesFiles", j), extra, False)
    openapi = body.get("openapi")
    if isinstance(openapi, dict) and isinstance(openapi.get("path"), str):
        yield _Entry(("openapi", "path"), openapi["path"], False)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _check_entries(
    k: Kustomization, index: _TreeIndex, referenced: set[str]
) -> Iterator[Violation]:
    for entry in _entries(k.body):
        text = entry.value.strip()
        if not text or _remote(text) or text.startswith("/") or "${" in text:
            continue
        target = _resolve(k.directory, text)
        referenced.add(target)
        if not index.covers(target) or not (index.has_other_files or _is_yaml(target)):
            continue
        if target in index.files:
            continue
        if index.is_dir(target):
            if entry.folder_needs_kustomization and index.kustomization_in(target) is None:
                yield _at(k, entry.path, f"{_label(entry.path)}: folder {text!r} holds no "
                          "kustomization.yaml", "missing", text)
            continue
        yield _at(k, entry.path, f"{_label(entry.path)}: {text!r} does not exist", "missing", text)


def _label(path: Path) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else ("." if out else "") + step
    return out


def _at(k: Kustomization, path: Path, message: str, kind: str, entry: str) -> Violation:
    line, column = k.doc.position(path)
    fix = "Correct the path, or add the missing file or kustomization."
    return Violation(None, path, message, kind=kind, file=k.file, line=line, column=column,
                     key=f"{k.file}:{_label(path)}:{entry}", fix=fix)


# ---------------------------------------------------------------- manifests nobody lists


def _unreachable(
    kustomize: list[Kustomization], objects_by_file: Mapping[str, list[KObject]],
    referenced: set[str],
) -> Iterator[Violation]:
    folders = {k.directory: k for k in kustomize}
    for file in sorted(objects_by_file):
        folder = posixpath.dirname(file)
        k = folders.get(folder)
        if k is None or file in referenced or posixpath.basename(file) in KUSTOMIZATION_FILES:
            continue
        first = objects_by_file[file][0]
        name = posixpath.basename(file)
        yield Violation(
            first, (), f"{name} is beside {posixpath.basename(k.file)} but listed by no "
            "kustomization, so it is never applied", kind="unreachable",
            fix=f"Add {name} to the resources of {k.file}, or delete it.",
        )


# ---------------------------------------------------------------- duplicates


@dataclass(frozen=True)
class _Item:
    obj: KObject
    group: str
    kind: str
    namespace: str
    name: str

    @property
    def identity(self) -> tuple[str, str, str, str]:
        return (self.group, self.kind, self.namespace, self.name)


class _Builder:
    """What each kustomization builds: its objects with namespace and name transformations."""

    def __init__(
        self, by_dir: Mapping[str, Kustomization], objects_by_file: Mapping[str, list[KObject]],
        index: _TreeIndex,
    ) -> None:
        self.by_dir = by_dir
        self.objects_by_file = objects_by_file
        self.index = index
        self.included: set[str] = set()  # folders some other kustomization builds
        for k in by_dir.values():
            for target in self._children(k):
                if target in by_dir:
                    self.included.add(target)
        self._memo: dict[str, list[_Item]] = {}
        self.duplicate_in: set[str] = set()  # folders whose build has a duplicate

    def _children(self, k: Kustomization) -> Iterator[str]:
        for key in ("resources", "bases", "components"):
            for entry in _list(k.body.get(key)):
                if isinstance(entry, str) and entry.strip() and not _remote(entry.strip()):
                    yield _resolve(k.directory, entry.strip())

    def closure(self, folder: str) -> set[str]:
        """``folder`` and every kustomization folder it includes."""
        out: set[str] = set()
        pending = [folder]
        while pending:
            current = pending.pop()
            if current in out or current not in self.by_dir:
                continue
            out.add(current)
            pending += [c for c in self._children(self.by_dir[current]) if c in self.by_dir]
        return out

    def items(self, folder: str, seen: frozenset[str] = frozenset()) -> list[_Item]:
        if folder in self._memo:
            return self._memo[folder]
        k = self.by_dir[folder]
        items: list[_Item] = []
        for target in self._children(k):
            if target in self.by_dir:
                if target not in seen and target != folder:
                    items += self.items(target, seen | {folder})
            elif target in self.objects_by_file:
                items += [_item(obj) for obj in self.objects_by_file[target]]
        items = _transform(items, k.body)
        self._memo[folder] = items
        return items

    def duplicates(
        self, folder: str, where: str, reported: set[frozenset[int]],
        items: list[_Item] | None = None, seen: frozenset[str] = frozenset(),
    ) -> Iterator[Violation]:
        """Duplicates in what ``folder`` builds, innermost kustomization first."""
        if items is None:
            for child in self._children(self.by_dir[folder]):
                if child in self.by_dir and child not in seen and child != folder:
                    yield from self.duplicates(
                        child, self.by_dir[child].file, reported, seen=seen | {folder}
                    )
            items = self.items(folder)
        first: dict[tuple[str, str, str, str], _Item] = {}
        for item in items:
            other = first.setdefault(item.identity, item)
            if other is item:
                continue
            pair = frozenset((id(other.obj), id(item.obj)))
            if pair in reported:
                continue
            reported.add(pair)
            self.duplicate_in.add(folder)
            line, _ = other.obj.position(())
            what = "twice" if other.obj is item.obj else f"again (first in {other.obj.file}:{line})"
            ident = f"{item.kind}/{item.namespace}/{item.name}" if item.namespace else (
                f"{item.kind}/{item.name}")
            yield Violation(
                item.obj, ("metadata", "name"),
                f"{ident} is built {what} by {where}; kustomize refuses duplicate objects",
                kind="duplicate",
                fix="Remove one of the two, or give them different names or namespaces.",
            )


def _item(obj: KObject) -> _Item:
    meta = obj.metadata
    namespace = meta.get("namespace")
    ns = "" if obj.kind in CLUSTER_SCOPED else (str(namespace) if namespace else "default")
    return _Item(obj, obj.group, obj.kind, ns, obj.name)


def _transform(items: list[_Item], body: Mapping[str, Any]) -> list[_Item]:
    namespace = body.get("namespace")
    prefix = body.get("namePrefix")
    suffix = body.get("nameSuffix")
    if not any(isinstance(v, str) and v for v in (namespace, prefix, suffix)):
        return items
    out = []
    for item in items:
        ns = item.namespace
        if isinstance(namespace, str) and namespace and item.kind not in CLUSTER_SCOPED:
            ns = namespace
        name = item.name
        if item.kind == "Namespace" and item.group == "" and isinstance(namespace, str) \
                and namespace:
            name = namespace  # kustomize's namespace transformer renames Namespace objects
        elif item.kind not in ("Namespace", "CustomResourceDefinition"):
            name = f"{prefix if isinstance(prefix, str) else ''}{name}" \
                   f"{suffix if isinstance(suffix, str) else ''}"
        out.append(_Item(item.obj, item.group, item.kind, ns, name))
    return out


# ---------------------------------------------------------------- Flux spec.path


def _flux_paths(
    model: Model, index: _TreeIndex, builder: _Builder, reported: set[frozenset[int]]
) -> Iterator[Violation]:
    flux = [k.flux for k in model.kustomizations if k.flux is not None]
    resolved: dict[int, str | None] = {}
    sources_here: set[tuple[str, str, str]] = set()
    for obj in flux:
        path = obj.get(("spec", "path"))
        if not isinstance(path, str) or "${" in path:
            continue
        target = _flux_target(obj.file, path, index)
        resolved[id(obj)] = target
        if target is not None:
            sources_here.add(_source(obj))
    for obj in flux:
        if id(obj) not in resolved:
            continue
        target = resolved[id(obj)]
        path = str(obj.get(("spec", "path")))
        if target is None:
            if _source(obj) in sources_here:
                kind, ns, name = _source(obj)
                yield Violation(
                    obj, ("spec", "path"),
                    f"spec.path {path!r} does not exist in this repository (other "
                    f"Kustomizations of {kind} {ns}/{name} resolve here)", kind="missing",
                    fix="Point spec.path at an existing folder of the source.",
                )
            continue
        for i, entry in enumerate(_list(obj.get(("spec", "components")))):
            if not isinstance(entry, str) or _remote(entry) or "${" in entry:
                continue
            folder = _resolve(target, entry.strip())
            if index.covers(folder) and index.kustomization_in(folder) is None:
                what = "holds no kustomization" if index.is_dir(folder) else "does not exist"
                yield Violation(
                    obj, ("spec", "components", i),
                    f"spec.components[{i}]: {entry!r} (from spec.path) {what}", kind="missing",
                    fix="Point the component at a folder holding its kustomization.yaml.",
                )
        if index.kustomization_in(target) is None:
            items = _flux_items(target, builder, index)
            where = f"Flux Kustomization {obj.ref} (path {path})"
            yield from builder.duplicates(target, where, reported, items)


def _flux_target(file: str, path: str, index: _TreeIndex) -> str | None:
    """The folder ``spec.path`` names, resolved against the nearest ancestor holding it."""
    rel = path.strip().lstrip("./") if path.strip() not in (".", "./") else ""
    folder = posixpath.dirname(file)
    while True:
        candidate = posixpath.normpath(posixpath.join(folder, rel)) if rel else folder
        if candidate and index.is_dir(candidate) and index.covers(candidate):
            return candidate
        if folder in ("", "/"):
            return None
        folder = posixpath.dirname(folder)


def _source(obj: KObject) -> tuple[str, str, str]:
    ref = obj.get(("spec", "sourceRef"))
    ref = ref if isinstance(ref, dict) else {}
    return (str(ref.get("kind", "")), str(ref.get("namespace") or obj.namespace or ""),
            str(ref.get("name", "")))


def _flux_items(folder: str, builder: _Builder, index: _TreeIndex) -> list[_Item]:
    """What Flux builds from a folder without kustomization.yaml: every manifest below it,
    a subfolder with a kustomization as that kustomization's build."""
    items: list[_Item] = []
    prefix = folder + "/" if folder else ""
    files = sorted(f for f in builder.objects_by_file if f.startswith(prefix))
    units: set[str] = set()
    for file in files:
        parent = posixpath.dirname(file)
        unit = _nearest_kustomization(parent, folder, index)
        if unit is not None:
            if unit not in units and unit in builder.by_dir:
                units.add(unit)
                items += builder.items(unit)
            continue
        items += [_item(obj) for obj in builder.objects_by_file[file]]
    return items


def _nearest_kustomization(parent: str, top: str, index: _TreeIndex) -> str | None:
    folder = parent
    while True:
        if index.kustomization_in(folder) is not None:
            return folder
        if folder == top or folder in ("", "/"):
            return None
        folder = posixpath.dirname(folder)
