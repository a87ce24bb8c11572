"""The semantic diff as lines: for the terminal (coloured), and for the markdown summary.

It renders the JSON form of the diff (``TreeDiff.as_json()``, the ``diff`` key of the JSON
contract), so every output format shows the same facts. Values are already redacted by
:mod:`reviewbot.diff.objects`; here every string from the repository also goes through
:func:`reviewbot.escape.term` (control and bidi characters shown, no workflow command).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from reviewbot.diff.objects import text_diff
from reviewbot.escape import term
from reviewbot.load.loader import resolve_kyaml, resolve_plain
from reviewbot.report.base import entry_words

MAX_VALUE_LINES = 30
MAX_LINE = 240
_PLAIN = re.compile(r"^[^\s\"'{}\[\],&*#?|<>=!%@`-][^\n]*$")

_STATUS_MARK = {"added": "+", "removed": "-", "modified": "~", "renamed": ">"}
_COLORS = {
    "+": "\033[32m", "-": "\033[31m", "~": "\033[33m", ">": "\033[35m",
    "path": "\033[36m", "header": "\033[1m", "note": "\033[2m",
}
_RESET = "\033[0m"


def scalar(value: Any) -> str:
    """A value on one line: plain strings bare, others as JSON (quoted when ambiguous: a
    string YAML would read as another type, the tag ``"34"`` or ``"off"``, is quoted, so it
    reads apart from the number 34 and the boolean)."""
    if isinstance(value, str):
        if _PLAIN.match(value) and value == value.strip() and ": " not in value and (
                resolve_plain(value) == value == resolve_kyaml(value)):
            return term(value)
        return term(json.dumps(value, ensure_ascii=False))
    if isinstance(value, (dict, list)):
        return term(json.dumps(value, ensure_ascii=False, default=str))
    return term(json.dumps(value, default=str))


def _short(text: str) -> str:
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 3] + "..."


def value_lines(value: Any) -> list[str]:
    """A value as YAML-like lines (nested mappings and lists indented), bounded."""
    out = list(_yamlish(value, ""))
    if len(out) > MAX_VALUE_LINES:
        out = out[:MAX_VALUE_LINES] + [f"... ({len(out) - MAX_VALUE_LINES} more lines)"]
    return [_short(line) for line in out]


def _yamlish(value: Any, indent: str) -> Iterator[str]:
    if isinstance(value, dict):
        if not value:
            yield indent + "{}"
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                yield f"{indent}{scalar(k)}:"
                yield from _yamlish(v, indent + "  ")
            else:
                yield f"{indent}{scalar(k)}: {_inline(v)}"
    elif isinstance(value, list):
        if not value:
            yield indent + "[]"
        for v in value:
            if isinstance(v, (dict, list)) and v:
                lines = list(_yamlish(v, indent + "  "))
                yield indent + "- " + lines[0][len(indent) + 2:]
                yield from lines[1:]
            else:
                yield f"{indent}- {_inline(v)}"
    elif isinstance(value, str) and "\n" in value:
        yield indent + "|"
        for line in value.splitlines():
            yield indent + "  " + term(line)
    else:
        yield indent + _inline(value)


def _inline(value: Any) -> str:
    if isinstance(value, dict) and not value:
        return "{}"
    if isinstance(value, list) and not value:
        return "[]"
    return scalar(value)


def alike(diff: Sequence[Mapping[str, Any]]) -> list[tuple[Mapping[str, Any], int]]:
    """The entries with those equal in every field merged, in order, each with how many it
    stands for: one document that several kustomize builds make into one object each (a
    base in three overlays) changes alike in each, and three equal blocks tell a reader
    nothing apart."""
    out: dict[str, list[Any]] = {}
    for entry in diff:
        key = json.dumps(entry, sort_keys=True, default=str)
        if key in out:
            out[key][1] += 1
        else:
            out[key] = [entry, 1]
    return [(entry, n) for entry, n in out.values()]


def builds_note(copies: int) -> str:
    """What a merged entry says of its copies ("" for one)."""
    return f"(in {copies} builds alike)" if copies > 1 else ""


def object_header(entry: Mapping[str, Any]) -> tuple[str, str]:
    """(mark, one-line description) of one changed object."""
    status = str(entry.get("change"))
    mark = _STATUS_MARK.get(status, "~")
    words, name = entry_words(entry)
    ref = term(f"{words} {name}" if words else name)
    file, base_file = entry.get("file"), entry.get("base_file")
    if words == "kustomize file" and status == "modified":
        return mark, f"{ref}  {status}"  # the name is the file, the line its first
    if status == "removed":
        where = f"(was in {term(str(base_file))})"
    elif status == "renamed":
        old = str(entry.get("renamed_from"))
        where = f"from {term(old)}"
        if base_file and base_file != file and str(file) not in ref:
            where += f", {term(str(base_file))} -> {term(str(file))}"
    else:
        where = f"{term(str(file))}:{entry.get('line') or 1}"
    return mark, f"{ref}  {status}  {where}"


def change_lines(changes: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(style, text) lines: a path line, then ``-``/``+``/``~`` lines under it."""
    out: list[tuple[str, str]] = []
    last_path: str | None = None
    for change in changes:
        path = term(str(change.get("path") or "(document)"))
        if path != last_path:
            out.append(("path", path))
            last_path = path
        out.extend(_change_body(change))
    return out


def _change_body(change: Mapping[str, Any]) -> list[tuple[str, str]]:
    op = change.get("op")
    if change.get("redacted"):
        unit = str(change.get("unit") or "")
        if unit == "encrypted":  # SOPS ciphertext: not even its size
            mark = {"changed": "~", "added": "+"}.get(str(op), "-")
            return [(mark, f"{op} (encrypted)")]
        old, new = change.get("old_length"), change.get("new_length")
        if op == "changed":
            return [("~", f"changed ({old} -> {new} {unit}, value redacted)")]
        if op == "added":
            return [("+", f"added ({new} {unit}, value redacted)")]
        return [("-", f"removed ({old} {unit}, value redacted)")]
    flag = change.get("flag")
    if flag is not None:
        return _flag_lines(str(flag), change)
    if op == "reordered":
        return [("~", "order changed")]
    if "items_added" in change or "items_removed" in change:
        items = [("-", _short(scalar(v))) for v in change.get("items_removed") or ()]
        items += [("+", _short(scalar(v))) for v in change.get("items_added") or ()]
        return items or [("~", "order changed")]
    old, new = change.get("old"), change.get("new")
    if op == "changed" and isinstance(old, str) and isinstance(new, str) and (
        "\n" in old or "\n" in new
    ):
        return [_diff_line(line) for line in text_diff(old, new)]
    lines: list[tuple[str, str]] = []
    if op in ("removed", "changed"):
        lines += [("-", line) for line in value_lines(old)]
    if op in ("added", "changed"):
        lines += [("+", line) for line in value_lines(new)]
    return lines


def _diff_line(line: str) -> tuple[str, str]:
    if line[:1] in ("+", "-", " "):
        return line[:1], _short(term(line[1:]))
    return " ", _short(term(line))


def _flag_lines(flag: str, change: Mapping[str, Any]) -> list[tuple[str, str]]:
    def shown(value: Any) -> str:
        name = term(flag)
        if value is True or value is None:
            return name
        if name.startswith("["):  # a positional argument: the value alone
            return _short(term(str(value)))
        return _short(f"{name} {term(str(value))}")

    op = change.get("op")
    lines: list[tuple[str, str]] = []
    if op in ("removed", "changed"):
        lines.append(("-", shown(change.get("old"))))
    if op in ("added", "changed"):
        lines.append(("+", shown(change.get("new"))))
    return lines


def render_diff_text(diff: Sequence[Mapping[str, Any]], color: bool = False) -> str:
    """The diff for a terminal: one block per changed object."""

    def paint(style: str, text: str) -> str:
        code = _COLORS.get(style)
        return f"{code}{text}{_RESET}" if color and code else text

    out: list[str] = []
    for entry, copies in alike(diff):
        mark, header = object_header(entry)
        note = f"  {builds_note(copies)}" if copies > 1 else ""
        out.append(paint(mark, mark) + " " + paint("header", header) + paint("note", note))
        for style, text in change_lines(entry.get("changes") or ()):
            if style == "path":
                out.append("    " + paint("path", text))
            else:
                out.append("      " + paint(style, f"{style} {text}"))
        out.append("")
    counts = _counts(diff)
    out.append(counts if diff else "no changes")
    return "\n".join(out) + "\n"


def _counts(diff: Sequence[Mapping[str, Any]]) -> str:
    order = ("modified", "added", "removed", "renamed")
    tally = {s: sum(1 for e in diff if e.get("change") == s) for s in order}
    merged = len(diff) - len(alike(diff))
    again = f", {merged} of them made again alike by another build" if merged else ""
    return ", ".join(f"{n} {s}" for s, n in tally.items() if n) + (
        f" ({len(diff)} object{'s' if len(diff) != 1 else ''}{again})"
    )


