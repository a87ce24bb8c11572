"""The loader: the only module that imports ruamel.yaml.

YAML from a pull request is untrusted. Parsing runs on libyaml's event stream (ruamel's C
parser) with a composer of our own, which

- reads scalars the way Kubernetes does (sigs.k8s.io/yaml, YAML 1.1: ``on``/``yes``/``no``
  are booleans, ``0755`` is octal), honours ``<<`` merge keys, and accepts re-defined anchors
  and unknown tags (valid YAML that libyaml-based loaders refuse);
- bounds alias expansion (billion laughs), nesting depth and file size, and refuses duplicate
  keys, bad encodings and syntax errors with a located problem whose text never quotes a
  value (parser messages can carry Secret values);
- records no positions on the fast path. Positions (field path -> 1-based line/column) are
  composed again, lazily, for the few documents that get a finding.

Helm templates are recognised and skipped, never misparsed into findings. Comments that carry
``# reviewbot: ignore[...]`` are found by a cheap scan of the text.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML, YAMLError
from ruamel.yaml.cyaml import CParser
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from .sources import MAX_FILE_BYTES, FileRecord

_c_module = sys.modules[CParser.__module__]
MAX_DEPTH = 100
MAX_EXPANSION = 100_000  # nodes reachable through aliases, per document, beyond the nodes written

Path = tuple[str | int, ...]
Position = tuple[int, int]

_C_EVENTS: dict[str, type] = {}


class ProblemError(Exception):
    """A located problem with a file; the message never quotes file content."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True)
class Problem:
    message: str
    line: int
    column: int


@dataclass(eq=False, slots=True)
class Document:
    """One YAML document of a file: its value, and positions composed on demand."""

    file: LoadedFile
    index: int
    value: Any
    line: int
    _positions: dict[Path, Position] | None = None

    def position(self, path: Path) -> Position:
        """1-based (line, column) of the narrowest node at ``path`` (or its nearest parent).

        A scalar value points at the value, a mapping or sequence value at its key.
        """
        if self._positions is None:
            self._positions = self.file.positions(self.index)
        positions = self._positions
        probe = tuple(path)
        while probe:
            hit = positions.get(probe)
            if hit is not None:
                return hit
            probe = probe[:-1]
        return positions.get((), (self.line, 1))

    def key_position(self, path: Path) -> Position:
        """Where the key of the mapping entry at ``path`` is (falls back to ``position``)."""
        if self._positions is None:
            self._positions = self.file.positions(self.index)
        return self._positions.get((_KEY, *path)) or self.position(path)


@dataclass(eq=False)
class LoadedFile:
    path: str
    blob: str
    text: str
    documents: list[Document] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    skipped: str | None = None
    pure: bool = False
    ignore_comments: dict[int, tuple[tuple[str, ...], str, int]] = field(default_factory=dict)
    _position_cache: dict[int, dict[Path, Position]] | None = None

    def positions(self, index: int) -> dict[Path, Position]:
        if self._position_cache is None:
            self._position_cache = {}
            try:
                for doc_index, positions in _compose_positions(self.text, self.pure):
                    self._position_cache[doc_index] = positions
            except (YAMLError, ProblemError):
                pass
        return self._position_cache.get(index, {})


def load(record: FileRecord) -> LoadedFile:
    """Parse one file into documents, problems, or a skip reason. Never raises."""
    if len(record.data) > MAX_FILE_BYTES:
        out = LoadedFile(record.path, record.blob, "")
        out.problems.append(
            Problem(f"file is larger than the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit", 1, 1)
        )
        return out
    try:
        text = _decode(record.data)
    except ProblemError as exc:
        out = LoadedFile(record.path, record.blob, "")
        out.problems.append(Problem(exc.message, exc.line, exc.column))
        return out
    out = LoadedFile(record.path, record.blob, text)
    if "{{" in text and _in_templates_dir(record.path):
        out.skipped = "helm template"
        return out
    if "reviewbot:" in text:
        out.ignore_comments = _ignore_comments(text)
    try:
        try:
            _fill(out, False)
        except YAMLError:
            # libyaml refuses some valid YAML (a ':' inside a flow scalar, ...): the pure
            # parser of ruamel reads it, slower, for this file only.
            out.documents.clear()
            out.pure = True
            _fill(out, True)
    except ComplexKeyError:
        out.documents.clear()
        out.skipped = "helm template" if "{{" in text else None
        if out.skipped is None:
            out.problems.append(Problem("a mapping key is not a scalar", *_first_complex(text)))
    except (YAMLError, ProblemError) as exc:
        if "{{" in text and _looks_templated(text):
            out.documents.clear()
            out.skipped = "helm template"
        else:
            out.problems.append(_problem(exc))
    except RecursionError:
        out.problems.append(Problem("document nests too deeply", 1, 1))
    return out


def decode_text(data: bytes) -> str:
    """The text of a file as the loader reads it ("" when it cannot be decoded)."""
    try:
        return _decode(data)
    except ProblemError:
        return ""


class ComplexKeyError(Exception):
    pass


def _fill(out: LoadedFile, pure: bool) -> None:
    for index, (value, line, _) in enumerate(_compose_stream(out.text, False, pure)):
        if value is not None:
            out.documents.append(Document(out, index, value, line))


def _in_templates_dir(path: str) -> bool:
    return "/templates/" in f"/{path}"


_TEMPLATE_LINE = re.compile(r"^\s*(?:-\s+)?(?:[^\s:#'\"][^:#]*:\s+)?\{\{", re.M)


def _looks_templated(text: str) -> bool:
    return bool(_TEMPLATE_LINE.search(text))


def _first_complex(text: str) -> Position:
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith(("{", "[", "? ")):
            return number, len(line) - len(stripped) + 1
    return 1, 1


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ProblemError("file is not valid UTF-16", 1, 1) from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ProblemError(
            f"file is not valid UTF-8 (byte offset {exc.start})", line, column
        ) from exc


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_SAFE_QUOTE = re.compile(r"'[^A-Za-z0-9']{1,3}'|'<[a-z ]+>'")


def _problem(exc: Exception) -> Problem:
    if isinstance(exc, ProblemError):
        return Problem(exc.message, exc.line, exc.column)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = (mark.line + 1) if mark is not None else 1
    column = (mark.column + 1) if mark is not None else 1
    problem = getattr(exc, "problem", None) or "invalid YAML"
    context = getattr(exc, "context", None)
    # Parser texts may quote the offending characters; they can be secret, so drop quotes.
    text = _unquote(str(problem))
    if context:
        text = f"{_unquote(str(context))}: {text}"
    if "\t" in str(problem) or "'\\t'" in str(problem):
        text += " (a tab in indentation)"
    return Problem(f"YAML syntax error: {text}", line, column)


def _unquote(text: str) -> str:
    """Drop quoted text (it may be secret) but keep quoted punctuation and token names."""
    kept = _QUOTED.sub(lambda m: m.group(0) if _SAFE_QUOTE.fullmatch(m.group(0)) else "", text)
    return " ".join(kept.split())


# ---------------------------------------------------------------- scalars, the Kubernetes way

_TRUE = ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")
_FALSE = ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")
_BOOL = {**dict.fromkeys(_TRUE, True), **dict.fromkeys(_FALSE, False)}
_NULL = frozenset(("", "~", "null", "Null", "NULL"))
_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9_]*)$")
_OCT = re.compile(r"^[-+]?0[0-7_]+$")
_HEX = re.compile(r"^[-+]?0x[0-9a-fA-F_]+$")
_BIN = re.compile(r"^[-+]?0b[01_]+$")
_FLOAT = re.compile(
    r"^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?$|^[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+$"
)
_INF = frozenset((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"))
_NINF = frozenset(("-.inf", "-.Inf", "-.INF"))
_NAN = frozenset((".nan", ".NaN", ".NAN"))
_FIRST = frozenset("0123456789+-.~nNtTfFyYoO")


def resolve_plain(value: str) -> Any:
    """Resolve an untagged plain scalar as YAML 1.1 (go-yaml v2, which Kubernetes uses)."""
    if not value:
        return None
    if value[0] not in _FIRST:
        return value
    if value in _NULL:
        return None
    hit = _BOOL.get(value)
    if hit is not None:
        return hit
    c = value[0]
    if c.isdigit() or c in "+-.":
        try:
            if _INT.match(value):
                return int(value.replace("_", ""))
            if _OCT.match(value):
                return int(value.replace("_", "").replace("0", "0o", 1), 8)
            if _HEX.match(value):
                return int(value.replace("_", ""), 16)
            if _BIN.match(value):
                return int(value.replace("_", ""), 2)
            if _FLOAT.match(value) and value not in (".", "+.", "-."):
                return float(value.replace("_", ""))
        except ValueError:
            return value
        if value in _INF:
            return float("inf")
        if value in _NINF:
            return float("-inf")
        if value in _NAN:
            return float("nan")
    return value


def _scalar(event: Any) -> Any:
    tag = event.ctag
    value = event.value
    if tag is None or tag == "!":
        if event.style == "" or event.style is None:
            return resolve_plain(value)
        return value
    if tag in ("tag:yaml.org,2002:str", "tag:yaml.org,2002:binary"):
        return value
    if tag == "tag:yaml.org,2002:int":
        resolved = resolve_plain(value)
        return resolved if isinstance(resolved, int) and not isinstance(resolved, bool) else value
    if tag == "tag:yaml.org,2002:float":
        resolved = resolve_plain(value)
        return float(resolved) if isinstance(resolved, (int, float)) else value
    if tag == "tag:yaml.org,2002:bool":
        return _BOOL.get(value, value)
    if tag == "tag:yaml.org,2002:null":
        return None
    # Unknown and custom tags (!env_var, tag:yaml.org,2002:value) keep the text.
    return value


# ---------------------------------------------------------------- composer

_MERGE = "<<"


def _compose_positions(text: str, pure: bool) -> Iterator[tuple[int, dict[Path, Position]]]:
    for index, (_, _, positions) in enumerate(_compose_stream(text, True, pure)):
        yield index, positions or {}


def _compose_stream(
    text: str, marks: bool, pure: bool
) -> Iterator[tuple[Any, int, dict[Path, Position] | None]]:
    """Yield (value, first line, positions or None) per document."""
    if pure:
        get = iter(YAML(typ="rt", pure=True).parse(text)).__next__
        dispose = None
    else:
        parser = CParser(text)
        get, dispose = parser.get_event, parser.dispose
    try:
        while True:
            event = get()
            if isinstance(event, DocumentStartEvent):
                yield _compose_document(get, event.start_mark.line + 1, marks)
            elif isinstance(event, StreamEndEvent):
                return
    finally:
        if dispose is not None:
            dispose()


def _compose_document(
    get: Any, start_line: int, marks: bool
) -> tuple[Any, int, dict[Path, Position] | None]:
    """Compose one document iteratively (no recursion: depth is bounded, not the C stack)."""
    anchors: dict[str, Any] = {}
    anchor_sizes: dict[int, int] = {}
    positions: dict[Path, Position] | None = {} if marks else None
    # Each frame: [container, path, pending_key, key_mark, anchor, size, keys_seen]
    stack: list[list[Any]] = []
    root: Any = None
    written = 0
    expanded = 0
    first_line = start_line

    def attach(value: Any, size: int, mark: Any, is_scalar: bool) -> None:
        nonlocal root, first_line
        if not stack:
            root = value
            first_line = mark.line + 1
            if positions is not None:
                positions[()] = (mark.line + 1, mark.column + 1)
            return
        frame = stack[-1]
        container = frame[0]
        frame[5] += size
        if isinstance(container, list):
            if positions is not None:
                positions[frame[1] + (len(container),)] = (mark.line + 1, mark.column + 1)
            container.append(value)
            return
        if frame[2] is _NO_KEY:
            if not isinstance(value, (str, int, float, bool)) and value is not None:
                raise ComplexKeyError()
            key = value if isinstance(value, str) else _key_text(value)
            if key in frame[6]:
                raise ProblemError(
                    f"duplicate mapping key (first defined on line {frame[6][key]})",
                    mark.line + 1, mark.column + 1,
                )
            frame[6][key] = mark.line + 1
            frame[2] = key
            frame[3] = mark
            return
        key = frame[2]
        frame[2] = _NO_KEY
        if key == _MERGE and frame[3] is not None:
            _merge_into(container, value, mark)
            return
        container[key] = value
        if positions is not None:
            where = mark if is_scalar else frame[3]
            positions[frame[1] + (key,)] = (where.line + 1, where.column + 1)
            positions[(_KEY,) + frame[1] + (key,)] = (frame[3].line + 1, frame[3].column + 1)

    while True:
        event = get()
        cls = _KIND.get(type(event), 0)
        if cls is _SCALAR:
            written += 1
            if stack and stack[-1][2] is _NO_KEY and isinstance(stack[-1][0], dict):
                value = event.value  # keys stay text: `y:` is a key, not a boolean
            else:
                value = _scalar(event)
            if event.anchor:
                anchors[event.anchor] = value
                anchor_sizes[id(value)] = 1
            attach(value, 1, event.start_mark, True)
        elif cls is _MAP_START or cls is _SEQ_START:
            written += 1
            if len(stack) >= MAX_DEPTH:
                m = event.start_mark
                raise ProblemError(
                    f"nesting deeper than {MAX_DEPTH} levels", m.line + 1, m.column + 1
                )
            path: Path = ()
            if positions is not None and stack:
                parent = stack[-1]
                path = parent[1] + (
                    (len(parent[0]),) if isinstance(parent[0], list) else (parent[2],)
                )
            container: dict[str, Any] | list[Any] = {} if cls is _MAP_START else []
            stack.append([container, path, _NO_KEY, None, event.anchor, 1, {}, event.start_mark])
        elif cls is _END:
            frame = stack.pop()
            container, size = frame[0], frame[5]
            if frame[4]:
                anchors[frame[4]] = container
                anchor_sizes[id(container)] = size
            attach(container, size, frame[7], False)
        elif cls is _ALIAS:
            m = event.start_mark
            if event.anchor not in anchors:
                raise ProblemError("alias to an undefined anchor", m.line + 1, m.column + 1)
            target = anchors[event.anchor]
            size = anchor_sizes.get(id(target), 1)
            expanded += size
            if expanded > MAX_EXPANSION and expanded > 10 * written:
                raise ProblemError(
                    f"aliases expand to more than {MAX_EXPANSION} nodes (alias bomb)",
                    m.line + 1, m.column + 1,
                )
            attach(target, size, m, not isinstance(target, (dict, list)))
        elif cls is _DOC_END:
            return root, first_line, positions


def _merge_into(container: dict[str, Any], value: Any, mark: Any) -> None:
    sources = value if isinstance(value, list) else [value]
    for source in sources:
        if not isinstance(source, dict):
            raise ProblemError("merge key needs a mapping", mark.line + 1, mark.column + 1)
        for k, v in source.items():
            container.setdefault(k, v)


def _key_text(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


_NO_KEY = object()


# Event classes the C parser instantiates, with an __init__ that only stores fields: the stock
# ones run a comment check per event (about 40% of parse time measured on a 10k-object tree).
# They subclass the stock classes, so any other user of ruamel's C parser is unaffected.
class _FastScalar(ScalarEvent):
    __slots__ = ()

    def __init__(
        self, anchor: Any, tag: Any, implicit: Any, value: Any, start_mark: Any = None,
        end_mark: Any = None, style: Any = None, comment: Any = None,
    ) -> None:
        self.anchor, self.ctag, self.implicit, self.value = anchor, tag, implicit, value
        self.start_mark, self.end_mark, self.style, self.comment = (
            start_mark, end_mark, style, comment
        )


class _FastMappingStart(MappingStartEvent):
    __slots__ = ()

    def __init__(
        self, anchor: Any, tag: Any, implicit: Any, start_mark: Any = None,
        end_mark: Any = None, flow_style: Any = None, comment: Any = None, nr_items: Any = None,
    ) -> None:
        self.anchor, self.ctag, self.implicit, self.flow_style = anchor, tag, implicit, flow_style
        self.start_mark, self.end_mark, self.comment, self.nr_items = (
            start_mark, end_mark, comment, nr_items
        )


class _FastSequenceStart(SequenceStartEvent):
    __slots__ = ()
    __init__ = _FastMappingStart.__init__


class _FastMappingEnd(MappingEndEvent):
    __slots__ = ()

    def __init__(self, start_mark: Any = None, end_mark: Any = None, comment: Any = None) -> None:
        self.start_mark, self.end_mark, self.comment = start_mark, end_mark, comment


class _FastSequenceEnd(SequenceEndEvent):
    __slots__ = ()
    __init__ = _FastMappingEnd.__init__


for _name, _cls in (
    ("ScalarEvent", _FastScalar), ("MappingStartEvent", _FastMappingStart),
    ("SequenceStartEvent", _FastSequenceStart), ("MappingEndEvent", _FastMappingEnd),
    ("SequenceEndEvent", _FastSequenceEnd),
):
    if hasattr(_c_module, _name):
        setattr(_c_module, _name, _cls)

_SCALAR, _MAP_START, _SEQ_START, _END, _ALIAS, _DOC_END = 1, 2, 3, 4, 5, 6
_KIND: dict[type, int] = {
    ScalarEvent: _SCALAR, _FastScalar: _SCALAR, MappingStartEvent: _MAP_START,
    _FastMappingStart: _MAP_START, SequenceStartEvent: _SEQ_START,
    _FastSequenceStart: _SEQ_START, MappingEndEvent: _END, _FastMappingEnd: _END,
    SequenceEndEvent: _END, _FastSequenceEnd: _END, AliasEvent: _ALIAS,
    DocumentEndEvent: _DOC_END,
}
_KEY = "\0key"  # positions[(_KEY, *path)]: where the key of a mapping entry is

# ---------------------------------------------------------------- suppression comments

_IGNORE = re.compile(r"#\s*reviewbot:\s*ignore\[([^\]]*)\]\s*(.*)$")


def _ignore_comments(text: str) -> dict[int, tuple[tuple[str, ...], str, int]]:
    found: dict[int, tuple[tuple[str, ...], str, int]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if "reviewbot:" not in line:
            continue
        match = _IGNORE.search(line)
        if match:
            rules = tuple(r.strip() for r in match.group(1).split(",") if r.strip())
            found[number] = (rules, match.group(2).strip(), match.start() + 1)
    return found
