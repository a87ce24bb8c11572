"""``--render``: build each kustomization with kustomize (or ``kubectl kustomize``) and lint
what it builds, with findings mapped back to the files the objects come from.

Each top-level kustomization of the tree (one no other kustomization includes) is built from
a temporary wrapper kustomization that adds ``buildMetadata: [originAnnotations]``, so every
built object carries ``config.kubernetes.io/origin`` naming its source file. The returned tree
holds, for each source file, the built objects that came from it, written so that every
field sits on the line where the source file has it (built fields the source lacks, added by
patches or transformers, follow the nearest source field; a base built twice by two overlays
appears twice, the second copy after the first). Objects a generator made are filed under
``<kustomization>#generated``. ``# reviewbot: ignore[...]`` comments are carried over to the
same lines. Files no build consumed are kept as they are.

Nothing in the tree is executed: kustomize runs without ``--enable-helm``, exec or alpha
plugins, and a build that references a remote resource or inflates a Helm chart
(``helmCharts``) is not run at all (listed as skipped). A build that fails is listed as
skipped and its files are linted unrendered.
"""

from __future__ import annotations

import json
import math
import os
import posixpath
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path as FsPath
from typing import Any

from reviewbot.errors import ReviewbotError
from reviewbot.load.loader import LoadedFile, load
from reviewbot.model.kustomize import (
    GENERATED_FILE,
    RENDERED,
    Graph,
    Kustomization,
    is_kustomization_file,
)
from reviewbot.sources.tree import FileRecord, Skipped, Tree, blob_id

ORIGIN = "config.kubernetes.io/origin"
TIMEOUT_SECONDS = 120
Path = tuple[str | int, ...]
Positions = Mapping[Path, tuple[int, int]]


def kustomize_command() -> list[str]:
    """``kustomize build`` when kustomize is on PATH, else ``kubectl kustomize``."""
    kustomize = shutil.which("kustomize")
    if kustomize:
        return [kustomize, "build"]
    kubectl = shutil.which("kubectl")
    if kubectl:
        return [kubectl, "kustomize"]
    raise ReviewbotError("--render needs kustomize or kubectl on PATH; neither was found")


def render_tree(tree: Tree, command: Sequence[str] | None = None) -> Tree:
    """The tree with every kustomization's build in place of the files it consumed."""
    cmd = list(command) if command is not None else kustomize_command()
    records = {r.path: r for r in tree.files}
    graph = _graph(tree.files)
    kustomizations = graph.by_dir
    roots = graph.roots
    skipped: list[Skipped] = []
    built: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="reviewbot-render-") as tmp:
        base = _source_folder(tree, records, kustomizations, FsPath(tmp))
        for i, folder in enumerate(roots):
            k = kustomizations[folder]
            if k.is_component:
                continue  # built only as part of the kustomization that uses it
            reason = _not_buildable(folder, graph)
            if reason is not None:
                skipped.append(Skipped(k.file, f"kustomize build not run: {reason}"))
                continue
            wrapper = FsPath(tmp) / f"build-{i}"
            wrapper.mkdir()
            target = os.path.relpath(_on_disk(base, folder), wrapper)
            (wrapper / "kustomization.yaml").write_text(json.dumps({
                "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                "resources": [target], "buildMetadata": ["originAnnotations"],
            }), encoding="utf-8")
            output, error = _build(cmd, wrapper)
            if error is not None:
                skipped.append(Skipped(k.file, error.replace(target, folder or ".")))
                continue
            for obj in output:
                source = _origin_file(obj, wrapper, base, tree.root)
                meta = obj.setdefault("metadata", {})
                if isinstance(meta, dict):
                    meta.setdefault("annotations", {})[RENDERED] = k.file
                built.setdefault(source or f"{k.file}{GENERATED_FILE}", []).append(obj)
    out = [r for path, r in records.items() if path not in built]
    shifted = []
    for path, objects in sorted(built.items()):
        original = records.get(path)
        text, shifts = emit_lines(objects, load(original) if original is not None else None)
        data = text.encode("utf-8")
        out.append(FileRecord(path, blob_id(data), data))
        if shifts:
            shifted.append((path, shifts))
    out.sort(key=lambda r: r.path)
    paths = frozenset(tree.paths | {p for p in built})
    return replace(tree, files=tuple(out), paths=paths, skipped=(*tree.skipped, *skipped),
                   shifted=tuple(shifted),
                   sources=tuple(records[p] for p in sorted(built) if p in records))


# ---------------------------------------------------------------- which builds


def _graph(records: Iterable[FileRecord]) -> Graph:
    found: list[Kustomization] = []
    for record in records:
        if not is_kustomization_file(record.path):
            continue
        loaded = load(record)
        if loaded.documents and isinstance(loaded.documents[0].value, dict):
            doc = loaded.documents[0]
            found.append(Kustomization(record.path, posixpath.dirname(record.path), doc.value,
                                       doc))
    return Graph(found, {})


def _not_buildable(folder: str, graph: Graph) -> str | None:
    """Why a build is not run: it would fetch (remote resources) or run Helm (helmCharts)."""
    if graph.uses_helm(folder):
        return "helmCharts need Helm (--enable-helm is never used)"
    remote = graph.remote(folder)
    if remote:  # (the first named: it may sit in a kustomization the build includes)
        return f"remote resource {remote[0]}" + (
            f" and {len(remote) - 1} more" if len(remote) > 1 else "")
    return None


# ---------------------------------------------------------------- running kustomize


def _source_folder(
    tree: Tree, records: Mapping[str, FileRecord], kustomizations: Mapping[str, Kustomization],
    tmp: FsPath,
) -> FsPath:
    """Where the tree's files are on disk: the work tree itself when the kustomization files
    there are the tree's, else a copy of the tree's YAML files (a tree read from git)."""
    root = FsPath(tree.root)
    if all(_same_on_disk(root, records[k.file]) for k in kustomizations.values()):
        return root
    copy = tmp / "tree"
    for record in records.values():
        if record.path.startswith("/"):
            continue
        target = copy / record.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(record.data)
    return copy


def _same_on_disk(root: FsPath, record: FileRecord) -> bool:
    path = FsPath(record.path) if record.path.startswith("/") else root / record.path
    try:
        return blob_id(path.read_bytes()) == record.blob
    except OSError:
        return False


def _on_disk(base: FsPath, folder: str) -> FsPath:
    if folder.startswith("/"):
        return FsPath(folder)
    return base / folder if folder else base


def _build(cmd: Sequence[str], folder: FsPath) -> tuple[list[dict[str, Any]], str | None]:
    try:
        proc = subprocess.run(
            [*cmd, str(folder)], capture_output=True, check=False, timeout=TIMEOUT_SECONDS,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [], f"kustomize build failed: {type(exc).__name__}"
    if proc.returncode != 0:
        return [], f"kustomize build failed: {_first_line(proc.stderr)}"
    record = FileRecord("rendered.yaml", blob_id(proc.stdout), proc.stdout)
    loaded = load(record)
    if loaded.problems:
        return [], "kustomize build printed unreadable YAML"
    return [d.value for d in loaded.documents if isinstance(d.value, dict)], None


_PARSE_ERROR = re.compile(
    r"yaml: (line \d+|unmarshal|did not find|mapping values|could not find|found)|"
    r"json: (cannot unmarshal|invalid)|invalid character"
)


def _first_line(stderr: bytes) -> str:
    """The gist of kustomize's error, never text quoted from a manifest (it may be secret)."""
    raw = stderr.decode("utf-8", "replace")
    block = re.search(r"err=<\n(.*?)\n\s*>", raw, re.S)  # kubectl's multi-line log form
    if block:
        text = " ".join(line.strip() for line in block.group(1).splitlines() if line.strip())
    else:
        lines = [x.strip() for x in raw.splitlines() if x.strip()]
        text = lines[0] if lines else "no error message"
        quoted = re.search(r'err="(.*)"\s*$', text)  # kubectl's one-line log form
        if quoted:
            text = quoted.group(1).replace('\\"', '"')
    text = re.sub(r"^Error: ", "", text)
    if _PARSE_ERROR.search(text):
        return "a file does not parse"
    return text if len(text) <= 240 else "..." + text[-240:]  # the cause is at the end


def _origin_file(obj: dict[str, Any], wrapper: FsPath, base: FsPath, root: FsPath) -> str | None:
    """Pop the origin annotation; the tree path of the file the object came from, if any."""
    meta = obj.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if not isinstance(meta, dict) or not isinstance(annotations, dict) or ORIGIN not in annotations:
        return None
    origin = _yaml_value(str(annotations.pop(ORIGIN)))
    if not annotations:
        del meta["annotations"]
    if not isinstance(origin, dict) or not isinstance(origin.get("path"), str):
        return None
    absolute = os.path.normpath(os.path.join(wrapper, origin["path"]))
    if base != FsPath(root):  # a copy of a git tree: paths relative to the copy
        relative = os.path.relpath(absolute, base)
        return None if relative.startswith("..") else FsPath(relative).as_posix()
    relative = os.path.relpath(absolute, root)  # as sources.disk_tree names files
    return FsPath(absolute).as_posix() if relative.startswith("..") else (
        FsPath(relative).as_posix())


def _yaml_value(text: str) -> Any:
    data = text.encode("utf-8")
    loaded = load(FileRecord("origin.yaml", blob_id(data), data))
    return loaded.documents[0].value if loaded.documents else None


# ---------------------------------------------------------------- writing, lines aligned


def emit(objects: Sequence[Mapping[str, Any]], source: LoadedFile | None) -> str:
    """YAML text of ``objects``, each field on the line the source file has it on."""
    return emit_lines(objects, source)[0]


Shift = tuple[int, int, int]  # lines first..last of the rendered text are source line + n


def emit_lines(
    objects: Sequence[Mapping[str, Any]], source: LoadedFile | None
) -> tuple[str, tuple[Shift, ...]]:
    """YAML text of ``objects``, each field on the line the source file has it on, and the
    line ranges that are shifted copies.

    A field the build added takes the line after its predecessor; when a subtree no longer
    fits before the next source field, it is written in flow style on one line, so the
    fields after it keep their lines. A document built again (a base two overlays build) is
    written after the others with its lines shifted by a constant, its suppression comments
    too; the shifts map a finding's line back to the source line.
    """
    out: list[str] = []
    used: set[int] = set()
    docs = source.documents if source is not None else []
    placed = [(obj, _matching_document(obj, docs, used)) for obj in objects]
    placed.sort(key=lambda pair: pair[1].line if pair[1] is not None else 1 << 30)
    copies: list[tuple[Mapping[str, Any], Any]] = []
    # the last line each placed document may use: the line before the next one's ``---``
    starts = [doc.line for _, doc in placed if doc is not None]
    for obj, doc in placed:
        if doc is None and source is not None:
            again = _matching_document(obj, docs, set())
            if again is not None:
                copies.append((obj, again))
                continue
        positions: Positions = source.positions(doc.index) if (source and doc) else {}
        if out:
            out.append("---")
        limit = next((start - 2 for start in starts if doc is not None and start > doc.line),
                     None)
        _map(obj, (), 0, out, positions, None, limit)
    originals = sorted(source.ignore_comments.items()) if source is not None else []
    comments = list(originals)
    shifts: list[Shift] = []
    for obj, doc in copies:
        assert source is not None
        positions = source.positions(doc.index)
        first = min((line for line, _ in positions.values()), default=doc.line)
        last = max((line for line, _ in positions.values()), default=doc.line)
        if out:
            out.append("---")
        shift = len(out) + 1 - first
        _map(obj, (), 0, out, {p: (line + shift, col) for p, (line, col) in positions.items()},
             None, None)
        shifts.append((first + shift, max(len(out), last + shift), shift))
        comments += [(line + shift, entry) for line, entry in originals
                     if first <= line <= last]
    for line, (rules, reason, _) in sorted(comments):
        _pad(out, line + 1)
        comment = f"# reviewbot: ignore[{','.join(rules)}] {reason}".rstrip()
        out[line - 1] = f"{out[line - 1]}  {comment}" if out[line - 1].strip() else comment
    return "\n".join(out) + "\n", tuple(shifts)


def source_line(shifts: Sequence[Shift], line: int) -> int:
    """The source line of line ``line`` of a rendered file with ``shifts``."""
    for first, last, shift in shifts:
        if first <= line <= last:
            return line - shift
    return line


# a rendered line: its indentation and sequence dashes, then a key as JSON writes it
_RENDERED_KEY = re.compile(r'^[ -]*("(?:[^"\\]|\\.)*"): ')


def source_column(rendered: str, source: str, column: int) -> int:
    """The column of ``source`` (a source file's line) that column ``column`` of
    ``rendered`` (the line of a rendered file that stands for it, keys and values written
    as JSON) points at: a key at the key, a value at the value, as the source writes them
    (``image: nginx:1.27`` for ``"image": "nginx:1.27"``). A line whose key the source line
    does not hold (a field the build added) points at the source line's first character."""
    first = len(source) - len(source.lstrip(" -")) + 1
    match = _RENDERED_KEY.match(rendered)
    if match is None:  # a sequence's item: where the source writes it
        return first
    key = json.loads(match.group(1))
    at = re.search(r"(?:^|[\s{,-])(['\"]?)" + re.escape(key) + r"\1\s*:(?:\s|$)", source)
    if at is None:
        return first
    key_at = at.start(1) + 1
    if column <= match.start(1) + 1 + len(match.group(1)):
        return key_at  # the key (or the dashes before it)
    value_at = at.end()
    while value_at < len(source) and source[value_at] == " ":
        value_at += 1
    return value_at + 1


def _matching_document(obj: Mapping[str, Any], docs: Sequence[Any], used: set[int]) -> Any:
    """The source document an object was built from: same kind, name contained in the built
    name (prefixes, suffixes), else the first unused document of the kind."""
    kind = obj.get("kind")
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    best = None
    for doc in docs:
        value = doc.value
        if doc.index in used or not isinstance(value, dict) or value.get("kind") != kind:
            continue
        source_meta = value.get("metadata")
        source_name = source_meta.get("name") if isinstance(source_meta, dict) else None
        if isinstance(name, str) and isinstance(source_name, str) and source_name in name:
            best = doc
            break
        if best is None:
            best = doc
    if best is not None:
        used.add(best.index)
    return best


def _pad(out: list[str], line: int) -> None:
    """Blank lines until the next line written is ``line``."""
    while len(out) < line - 1:
        out.append("")


def _line(positions: Positions, path: Path) -> int | None:
    hit = positions.get(path)
    return hit[0] if hit is not None else None


def _order(value: Mapping[str, Any], path: Path, positions: Positions) -> list[str]:
    keyed = []
    last = 0
    for i, key in enumerate(value):
        line = _line(positions, path + (key,))
        last = line if line is not None else last
        keyed.append((last, i, key))
    return [key for _, _, key in sorted(keyed)]


def _limits(lines: list[int | None], limit: int | None) -> list[int | None]:
    """For each entry, the last line it may use: before the next entry the source places."""
    out: list[int | None] = []
    for i in range(len(lines)):
        following = [n for n in lines[i + 1:] if n is not None]
        out.append(following[0] - 1 if following else limit)
    return out


def _entry(
    label: str, item: Any, here: Path, indent: int, out: list[str], positions: Positions,
    limit: int | None, inline: bool = False,
) -> None:
    start = len(out)
    if isinstance(item, dict) and item:
        if inline:
            _map(item, here, indent, out, positions, label, limit)
        else:
            out.append(label.rstrip())
            _map(item, here, indent + 2, out, positions, None, limit)
    elif isinstance(item, list) and item:
        out.append(label.rstrip())
        _seq(item, here, indent + 2, out, positions, limit)
    else:
        out.append(f"{label}{_scalar(item)}")
    if limit is not None and len(out) > limit and len(out) - start > 1:
        del out[start:]
        out.append(f"{label}{_flow(item)}")


def _map(
    value: Mapping[str, Any], path: Path, indent: int, out: list[str], positions: Positions,
    first: str | None, limit: int | None,
) -> None:
    keys = _order(value, path, positions)
    lines = [_line(positions, path + (k,)) for k in keys]
    for i, (key, end) in enumerate(zip(keys, _limits(lines, limit), strict=True)):
        if lines[i] is not None:
            _pad(out, lines[i] or 0)
        prefix = first if (i == 0 and first is not None) else " " * indent
        _entry(f"{prefix}{json.dumps(str(key))}: ", value[key], path + (key,), indent, out,
               positions, end)
    if not value and first is not None:
        out.append(f"{first}{{}}")


def _seq(
    value: Sequence[Any], path: Path, indent: int, out: list[str], positions: Positions,
    limit: int | None,
) -> None:
    lines = [_line(positions, path + (i,)) for i in range(len(value))]
    for i, (item, end) in enumerate(zip(value, _limits(lines, limit), strict=True)):
        if lines[i] is not None:
            _pad(out, lines[i] or 0)
        _entry(" " * indent + "- ", item, path + (i,), indent + 2, out, positions, end,
               inline=True)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _scalar(value)


def _scalar(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        if "e" in text and "." not in text:
            mantissa, _, exponent = text.partition("e")
            text = f"{mantissa}.0e{exponent}"
        return text
    return json.dumps(value)
