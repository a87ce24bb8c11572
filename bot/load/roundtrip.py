"""Round-trip edits of YAML text: change one node, keep every other byte.

``apply_changes(text, changes)`` sets, appends to or removes the nodes the changes name and
returns the new text. ruamel.yaml's round-trip parser says where each node is (line, column,
block or flow style); the change is spliced into the text at that place, so comments, key
order, quoting and indentation of everything else stay byte for byte. New nodes are written
in the style of their neighbours (the column of the sibling keys or ``-`` items; a flow
collection stays flow). Comments are never dropped: a removed line's trailing comment stays
as a comment line.

Every result is checked: the new text is parsed again and must hold exactly the old data
with the change applied, in every document. A change that cannot be written that way
(a multi-line scalar, a multi-line flow collection, a path through a scalar) raises
:class:`RoundTripError` and the text is left alone.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML, YAMLError
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from reviewbot.errors import ReviewbotError

Path = tuple[str | int, ...]
OPS = ("set", "append", "remove")


class RoundTripError(ReviewbotError):
    """A change that cannot be written into the text faithfully."""


@dataclass(frozen=True)
class Change:
    """In document ``document`` of a text: ``set`` the value at ``path`` (missing mappings on
    the way are created), ``append`` ``value`` to the sequence at ``path`` (created when
    missing), or ``remove`` the mapping key or sequence item at ``path``."""

    path: Path
    op: str = "set"
    value: Any = None
    document: int = 0
    comment: tuple[str, str] | None = None  # a set's (old, new) word of the line's comment


def apply_changes(text: str, changes: Iterable[Change]) -> str:
    """``text`` with ``changes`` applied one after the other (see the module docstring)."""
    ordered = list(changes)
    for change in ordered:
        if change.op not in OPS:
            raise RoundTripError(f"unknown change operation {change.op!r}")
    # removals of sequence items last and from the end, so earlier indexes stay valid
    ordered.sort(key=lambda c: (c.op == "remove", _desc(c.path) if c.op == "remove" else ()))
    for change in ordered:
        text = _apply_one(text, change)
    return text


MAX_NODES = 200_000  # nodes a round trip compares, aliases counted as often as they expand


def plain(value: Any, budget: list[int] | None = None) -> Any:
    """Round-trip data as plain dicts, lists and scalars (raises RoundTripError past
    ``MAX_NODES`` nodes: an alias bomb is not expanded)."""
    if budget is None:
        budget = [MAX_NODES]
    budget[0] -= 1
    if budget[0] < 0:
        raise RoundTripError("the file is too large to edit in place")
    if isinstance(value, dict):
        return {plain(k, budget): plain(v, budget) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v, budget) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return value


def load_documents(text: str) -> list[Any]:
    """Every document of ``text`` with round-trip positions (raises RoundTripError)."""
    try:
        return list(_yaml().load_all(text))
    except (YAMLError, ValueError) as exc:  # ValueError: an integer of over 4,300 digits
        raise RoundTripError("the file does not parse for a round trip") from exc


# ---------------------------------------------------------------- one change


def _desc(path: Path) -> tuple[Any, ...]:
    return tuple((0, -p) if isinstance(p, int) else (1, p) for p in path)


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    return yaml


def _apply_one(text: str, change: Change) -> str:
    try:
        return _apply_checked(text, change)
    except RecursionError as exc:
        raise RoundTripError("the file nests too deeply to edit in place") from exc


def _apply_checked(text: str, change: Change) -> str:
    docs = load_documents(text)
    if not 0 <= change.document < len(docs) or docs[change.document] is None:
        raise RoundTripError(f"document {change.document} does not exist")
    budget = [MAX_NODES]
    expected = [plain(d, budget) for d in docs]
    _change_data(expected, change)
    edit = _Splice(text, docs[change.document])
    if change.op == "set":
        new = edit.set(change.path, change.value)
        if change.comment is not None:
            new = edit.recomment(new, change.path, *change.comment)
    elif change.op == "append":
        new = edit.append(change.path, change.value)
    else:
        new = edit.remove(change.path)
    budget = [MAX_NODES]
    got = [plain(d, budget) for d in load_documents(new)]
    if got != expected:
        raise RoundTripError(f"cannot write {_show(change.path)} in place")
    return new


def _change_data(docs: list[Any], change: Change) -> None:
    """The change applied to plain data (what the new text must hold)."""
    node = docs[change.document]
    path = change.path
    if not path:
        if change.op != "set":
            raise RoundTripError("a document cannot be appended to or removed")
        docs[change.document] = copy.deepcopy(change.value)
        return
    for i, step in enumerate(path[:-1]):
        nxt = _child(node, step)
        if nxt is None:
            if change.op == "remove":
                raise RoundTripError(f"{_show(path)} does not exist")
            if not isinstance(step, str) or not isinstance(node, dict):
                raise RoundTripError(f"cannot create {_show(path[: i + 1])}")
            nxt = node[step] = {} if isinstance(path[i + 1], str) else []
        node = nxt
    last = path[-1]
    if change.op == "set":
        settable = isinstance(node, dict) and isinstance(last, str) or (
            isinstance(node, list) and isinstance(last, int) and 0 <= last < len(node))
        if settable:
            node[last] = copy.deepcopy(change.value)
        else:
            raise RoundTripError(f"cannot set {_show(path)}")
    elif change.op == "append":
        seq = _child(node, last)
        if seq is None and isinstance(node, dict) and isinstance(last, str):
            seq = node[last] = []
        if not isinstance(seq, list):
            raise RoundTripError(f"{_show(path)} is not a sequence")
        seq.append(copy.deepcopy(change.value))
    else:
        if _child(node, last) is None and not (isinstance(node, dict) and last in node):
            raise RoundTripError(f"{_show(path)} does not exist")
        del node[last]


def _child(node: Any, step: str | int) -> Any:
    if isinstance(node, dict) and isinstance(step, str):
        return node.get(step)
    if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
        return node[step]
    return None


def _show(path: Path) -> str:
    return ".".join(str(p) for p in path) or "(document)"


class _Splice:
    """Text edits of one document at the positions its round-trip nodes carry."""

    def __init__(self, text: str, root: Any) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.root = root

    # ------------------------------------------------------------ operations

    def set(self, path: Path, value: Any) -> str:
        if not path:
            raise RoundTripError("cannot replace a whole document")
        parent, rest = self._walk(path[:-1])
        if rest:  # create the missing mappings with the value inside
            value = _nest(rest[1:] + (path[-1],), value)
            return self._add_key(parent, str(rest[0]), value)
        last = path[-1]
        if isinstance(parent, CommentedMap) and isinstance(last, str):
            if last not in parent:
                return self._add_key(parent, last, value)
            return self._replace(parent, last, value)
        if isinstance(parent, CommentedSeq) and isinstance(last, int) and last < len(parent):
            return self._replace(parent, last, value)
        raise RoundTripError(f"cannot set {_show(path)}")

    def recomment(self, new: str, path: Path, old_word: str, new_word: str) -> str:
        """``new`` (this document's text after a ``set`` at ``path``, which kept the value's
        line) with ``old_word`` made ``new_word`` in the comment ending the value's line,
        where it stands as a word; unchanged where the value was not on a line of its own
        key, or the line has no comment."""
        parent, rest = self._walk(path[:-1])
        last = path[-1]
        if rest:
            return new
        if isinstance(parent, CommentedMap) and last in parent:
            line = parent.lc.value(last)[0]
        elif isinstance(parent, CommentedSeq) and isinstance(last, int) and last < len(parent):
            line = parent.lc.item(last)[0]
        else:
            return new
        lines = new.splitlines(keepends=True)
        if not 0 <= line < len(lines):
            return new
        at = lines[line].find(" #")
        if at < 0:
            return new
        head, tail = lines[line][:at], lines[line][at:]
        lines[line] = head + re.sub(rf"(?<![\w.]){re.escape(old_word)}(?![\w.])",
                                    new_word.replace("\\", "\\\\"), tail, count=1)
        return "".join(lines)

    def append(self, path: Path, value: Any) -> str:
        parent, rest = self._walk(path)
        if rest:
            return self.set(path, [value])
        if not isinstance(parent, CommentedSeq):
            raise RoundTripError(f"{_show(path)} is not a sequence")
        if parent.fa.flow_style() or not parent:
            return self._flow_insert(parent, _flow(value))
        last = len(parent) - 1
        line, col = parent.lc.item(last)
        dash = self._dash(line, col)
        end = self._end(line, dash, item=True)
        lines = _item_lines(value, dash, self._seq_offset())
        return self._insert(self._after(end, dash), lines)

    def remove(self, path: Path) -> str:
        parent, rest = self._walk(path[:-1])
        last = path[-1]
        if rest or _child(parent, last) is None and not (
                isinstance(parent, CommentedMap) and last in parent):
            raise RoundTripError(f"{_show(path)} does not exist")
        if parent.fa.flow_style():
            data = plain(parent)
            del data[last]
            return self._reflow(path[:-1], parent, data)
        if isinstance(parent, CommentedMap):
            line, col = parent.lc.key(last)
            start, end = line, self._end(line, col, item=False)
        else:
            line, col = parent.lc.item(last)
            col = self._dash(line, col)
            start, end = line, self._end(line, col, item=True)
        kept = []
        for number in range(start, end + 1):
            comment = _comment_of(self.lines[number])
            if comment is not None:
                kept.append(" " * col + comment + self.newline)
        lines = self.lines[:start] + kept + self.lines[end + 1:]
        return "".join(lines)

    # ------------------------------------------------------------ helpers

    def _walk(self, path: Path) -> tuple[Any, Path]:
        """The deepest existing node on ``path`` and the steps below it that are missing."""
        node = self.root
        for i, step in enumerate(path):
            nxt = _child(node, step)
            if nxt is None:
                if isinstance(node, CommentedMap) and isinstance(step, str) and step in node:
                    raise RoundTripError(f"{_show(path[: i + 1])} is null")
                if not isinstance(node, CommentedMap) or not isinstance(step, str):
                    raise RoundTripError(f"cannot create {_show(path[: i + 1])}")
                return node, path[i:]
            if not isinstance(nxt, CommentedMap | CommentedSeq) and i < len(path) - 1:
                raise RoundTripError(f"{_show(path[: i + 1])} is a scalar")
            node = nxt
        return node, ()

    def _add_key(self, mapping: Any, key: str, value: Any) -> str:
        if not isinstance(mapping, CommentedMap):
            raise RoundTripError("not a mapping")
        if mapping.fa.flow_style() or not mapping:
            return self._flow_insert(mapping, f"{_scalar(key)}: {_flow(value)}")
        last = list(mapping)[-1]
        line, col = mapping.lc.key(last)
        end = self._end(line, col, item=False)
        lines = _entry_lines(key, value, col, self._seq_offset())
        return self._insert(self._after(end, col), lines)

    def _replace(self, parent: Any, key: str | int, value: Any) -> str:
        old = parent[key]
        if isinstance(old, CommentedMap | CommentedSeq):
            if old.fa.flow_style():
                return self._reflow(self._path_of(old), old, value)
            raise RoundTripError("cannot replace a block collection in place")
        if isinstance(parent, CommentedMap):
            line, col = parent.lc.value(key)
        else:
            line, col = parent.lc.item(key)
        return self._replace_scalar(line, col, value, bool(parent.fa.flow_style()))

    def _replace_scalar(self, line: int, col: int, value: Any, flow: bool = False) -> str:
        text = self.lines[line]
        end = _scalar_end(text, col, flow)
        old = text[col:end]
        if old.startswith(("|", ">", "&", "!", "*")):
            raise RoundTripError("cannot replace a block, anchored or tagged scalar")
        quote = old[0] if old[:1] in ("'", '"') else '"'
        if isinstance(value, dict | list):
            new = _flow(value)
        else:
            new = _scalar(value, quote, force=old[:1] in ("'", '"') and isinstance(value, str))
        self.lines[line] = text[:col] + new + text[end:]
        return "".join(self.lines)

    def _reflow(self, path: Path, node: Any, value: Any) -> str:
        """Write the one-line collection at ``path`` again, in flow style, as ``value``."""
        line, col = node.lc.line, node.lc.col
        text = self.lines[line]
        if node.fa.flow_style() or text[col:col + 1] in ("[", "{"):
            end = _flow_end(text, col)
            if end is None:
                raise RoundTripError("cannot rewrite a multi-line flow collection")
            self.lines[line] = text[:col] + _flow(value) + text[end:]
            return "".join(self.lines)
        raise RoundTripError(f"cannot rewrite {_show(path)}")

    def _flow_insert(self, node: Any, item: str) -> str:
        """``item`` written as the last entry of the one-line flow collection ``node``."""
        line, col = node.lc.line, node.lc.col
        text = self.lines[line]
        end = _flow_end(text, col) if text[col:col + 1] in ("[", "{") else None
        if end is None:
            raise RoundTripError("cannot add to a multi-line flow collection")
        inner = text[col + 1:end - 1]
        sep = ", " if inner.strip() else ""
        close = len(inner.rstrip()) + col + 1
        self.lines[line] = text[:close] + sep + item + text[close:]
        return "".join(self.lines)

    def _path_of(self, target: Any) -> Path:
        found = _find(self.root, target, ())
        if found is None:
            raise RoundTripError("node not found")
        return found

    def _dash(self, line: int, col: int) -> int:
        text = self.lines[line]
        i = text.rfind("-", 0, col)
        if i < 0 or text[i + 1: col].strip():
            raise RoundTripError("a sequence item not on its dash's line")
        return i

    def _end(self, line: int, col: int, item: bool) -> int:
        """The last content line of the entry (``item``: sequence item) starting at ``line``,
        whose key (or dash) is at column ``col``."""
        end = line
        for number in range(line + 1, len(self.lines)):
            text = self.lines[number]
            stripped = text.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if text.startswith(("---", "...")):
                break
            indent = len(text) - len(text.lstrip(" "))
            if indent < col:
                break
            if indent == col and (item or not stripped.startswith("-")):
                break
            end = number
        return end

    def _after(self, end: int, col: int) -> int:
        """Where to insert after the entry ending on line ``end``: past the comment lines
        indented deeper than ``col`` that follow it (they belong to the entry's block)."""
        at = end + 1
        for number in range(end + 1, len(self.lines)):
            text = self.lines[number]
            stripped = text.strip()
            if not stripped:
                continue
            if not stripped.startswith("#") or len(text) - len(text.lstrip(" ")) <= col:
                break
            at = number + 1
        return at

    def _insert(self, at: int, lines: Sequence[str]) -> str:
        before = self.lines[:at]
        if before and not before[-1].endswith(("\n", "\r")):
            before[-1] += self.newline
        body = [text + self.newline for text in lines]
        return "".join(before + body + self.lines[at:])

    def _seq_offset(self) -> int:
        """How far this file indents a block sequence under its key (0 or 2, as it does)."""
        for line_no, text in enumerate(self.lines[:-1]):
            stripped = text.rstrip()
            if not stripped.endswith(":") or stripped.lstrip().startswith("#"):
                continue
            nxt = self.lines[line_no + 1]
            if nxt.lstrip().startswith("- "):
                key_col = len(text) - len(text.lstrip(" "))
                if stripped.lstrip().startswith("- "):
                    key_col += 2
                return max(0, min(2, len(nxt) - len(nxt.lstrip(" ")) - key_col))
        return 0


def _find(node: Any, target: Any, path: Path) -> Path | None:
    if node is target:
        return path
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, dict | list):
                hit = _find(v, target, (*path, k))
                if hit is not None:
                    return hit
    elif isinstance(node, list):
        for i, v in enumerate(node):
            if isinstance(v, dict | list):
                hit = _find(v, target, (*path, i))
                if hit is not None:
                    return hit
    return None


def _nest(path: Path, value: Any) -> Any:
    for step in reversed(path):
        if not isinstance(step, str):
            raise RoundTripError("cannot create a sequence item")
        value = {step: value}
    return value


# ---------------------------------------------------------------- writing values

# (a command line's flag, `--port`, as the words beside it are written: plain)
_PLAIN = re.compile(r"--?[A-Za-z][A-Za-z0-9_./=+-]*|[A-Za-z0-9_/.][A-Za-z0-9_./=+-]*")
_RESERVED = re.compile(
    r"(?i)(y|n|yes|no|true|false|on|off|null|~|[-+]?[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?"
    r"|0x[0-9a-f_]+|0o?[0-7_]+|[-+]?\.(inf|nan)|[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?)"
)


def _scalar(value: Any, quote: str = '"', force: bool = False) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    if not force and _PLAIN.fullmatch(text) and not _RESERVED.fullmatch(text):
        return text
    if quote == "'":
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text, ensure_ascii=False)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_scalar(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _scalar(value)


def _entry_lines(key: str, value: Any, col: int, offset: int) -> list[str]:
    pad = " " * col
    if isinstance(value, dict) and value:
        out = [f"{pad}{_scalar(key)}:"]
        for k, v in value.items():
            out += _entry_lines(k, v, col + 2, offset)
        return out
    if isinstance(value, list) and value:
        out = [f"{pad}{_scalar(key)}:"]
        for item in value:
            out += _item_lines(item, col + offset, offset)
        return out
    return [f"{pad}{_scalar(key)}: {_flow(value)}"]


def _item_lines(value: Any, dash: int, offset: int) -> list[str]:
    pad = " " * dash
    if isinstance(value, dict) and value:
        inner: list[str] = []
        for k, v in value.items():
            inner += _entry_lines(k, v, dash + 2, offset)
        return [pad + "- " + inner[0][dash + 2:]] + inner[1:]
    if isinstance(value, list) and value:
        return [pad + "- " + _flow(value)]
    return [pad + "- " + _flow(value)]


# ---------------------------------------------------------------- reading text


def _scalar_end(text: str, col: int, flow: bool = False) -> int:
    """Where the one-line scalar starting at ``col`` ends (before a comment or line end; in
    a flow collection, ``flow``, a plain one also before the `,`, `]` or `}` after it: YAML's
    plain scalars hold no flow indicator there; new-user trial seventy-five's `{nvidia.com/
    gpu: 1}` lost its brace)."""
    first = text[col:col + 1]
    if first == '"':
        i = col + 1
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == '"':
                return i + 1
            i += 1
        raise RoundTripError("cannot replace a multi-line scalar")
    if first == "'":
        i = col + 1
        while i < len(text):
            if text[i] == "'":
                if text[i + 1: i + 2] == "'":
                    i += 2
                    continue
                return i + 1
            i += 1
        raise RoundTripError("cannot replace a multi-line scalar")
    body = text[col:].rstrip("\r\n")
    hit = re.search(r"\s#", body)
    if hit:
        body = body[: hit.start()]
    if flow and (hit := re.search(r"[,\]}]", body)):
        body = body[: hit.start()]
    return col + len(body.rstrip())


def _flow_end(text: str, col: int) -> int | None:
    depth = 0
    quote = ""
    i = col
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _comment_of(line: str) -> str | None:
    """The comment of a line (``# ...``), None when it has none."""
    stripped = line.strip()
    if stripped.startswith("#"):
        return stripped
    hit = re.search(r"\s(#.*)$", line.rstrip("\r\n"))
    if hit and '"' not in line[: hit.start()] and "'" not in line[: hit.start()]:
        return hit.group(1)
    return None
