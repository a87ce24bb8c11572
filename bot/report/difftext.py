"""The semantic diff as lines: for the terminal (coloured), and for the markdown summary.

It renders the JSON form of the diff (``TreeDiff.as_json()``, the ``diff`` key of the JSON
contract), so every output format shows the same facts. Values are already redacted by
:mod:`reviewbot.diff.objects`; here every string from the repository also goes through
:func:`reviewbot.escape.term` (control and bidi characters shown, no workflow command).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reviewbot.diff.objects import text_diff
from reviewbot.escape import term
from reviewbot.load.loader import resolve_kyaml, resolve_plain
from reviewbot.report.base import entry_words
from reviewbot.words import plural

MAX_VALUE_LINES = 30
MAX_LINE = 240
_PLAIN = re.compile(r"^[^\s\"'{}\[\],&*#?|<>=!%@`-][^\n]*$")

_STATUS_MARK = {"added": "+", "removed": "-", "modified": "~", "renamed": ">"}
# what a diff entry is when it is a file the diff compares, not an object (entry_words)
FILE_WORDS = ("kustomize file", "Helm values file")
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


_WHO = ("object", "namespace", "name", "builds")  # what tells alike entries apart


@dataclass(frozen=True)
class Alike:
    """Diff entries that show one change: equal in every field but which object it is and
    which build made it. One document that several objects come from changes alike in each:
    a Deployment written once and applied to four namespaces, a base three overlays build
    (one object each); equal blocks tell a reader nothing apart, so they are one."""

    entries: tuple[Mapping[str, Any], ...]

    @property
    def entry(self) -> Mapping[str, Any]:
        return self.entries[0]

    @property
    def refs(self) -> list[str]:
        """The objects, in order, each once."""
        return list(dict.fromkeys(str(e.get("object")) for e in self.entries))

    def subject(self) -> tuple[str, str, str, list[str]]:
        """(words before the name, the name, words before the other objects, the other
        objects), as :func:`~reviewbot.report.base.entry_words`: ("", "Deployment/web", "in
        namespaces", [a, b]) when the objects differ only in their namespace."""
        words, name = entry_words(self.entry)
        refs = self.refs
        if len(refs) == 1:
            return words, name, "", []
        kinds = {(e.get("kind"), e.get("name")) for e in self.entries}
        if len(kinds) == 1 and all(e.get("namespace") for e in self.entries):
            spaces = list(dict.fromkeys(str(e.get("namespace")) for e in self.entries))
            return (words, f"{self.entry.get('kind')}/{self.entry.get('name')}",
                    "in namespaces", spaces)
        return words, name, "and", refs[1:]

    def builds(self) -> tuple[int, list[str]]:
        """(how many builds make one of its objects alike, their names when known): (0, [])
        when each object is made once."""
        per_ref = max(sum(1 for e in self.entries if e.get("object") == r) for r in self.refs)
        if per_ref < 2:
            return 0, []
        names = list(dict.fromkeys(str(b) for e in self.entries for b in e.get("builds") or ()))
        return max(per_ref, len(names)), names


def listed(names: Sequence[str], shown: Callable[[str], str], most: int = 5) -> str:
    """Names joined by commas (each through ``shown``, the medium's escaping), the first
    ``most`` and how many more."""
    out = ", ".join(shown(n) for n in names[:most])
    return out if len(names) <= most else f"{out} and {len(names) - most} more"


def builds_note(group: Alike, shown: Callable[[str], str]) -> str:
    """"(the same change in 3 builds: overlays/a, overlays/b, overlays/c)"; "(in Flux Kustomization
    flux-system/apps of cluster clusters/staging)" for an object several builds make, each
    otherwise (its entries said apart: a new-user trial read two headers alike, no cluster
    named); "" for an object made once."""
    count, names = group.builds()
    if not count:
        made = list(dict.fromkeys(str(b) for e in group.entries for b in e.get("builds") or ()))
        return f"(in {listed(made, shown)})" if made else ""
    return f"(the same change in {count} builds: {listed(names, shown)})" if names else (
        f"(the same change in {count} builds)")


def alike(diff: Sequence[Mapping[str, Any]]) -> list[Alike]:
    """The entries with those of one change merged (:class:`Alike`), in order."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for entry in diff:
        out.setdefault(_change_key(entry), []).append(entry)
    return [Alike(tuple(entries)) for entries in out.values()]


def _change_key(entry: Mapping[str, Any]) -> str:
    """An entry's change, whichever object and build it is of."""
    return json.dumps({k: v for k, v in entry.items() if k not in _WHO}, sort_keys=True,
                      default=str)


def made_again(diff: Sequence[Mapping[str, Any]]) -> int:
    """How many of :func:`distinct`'s entries another build makes too (the same object, the
    same change)."""
    seen: dict[tuple[str, str], int] = {}
    for e in diff:
        key = (str(e.get("object")), _change_key(e))
        seen[key] = seen.get(key, 0) + 1
    return sum(1 for n in seen.values() if n > 1)


def build_fails(entry: Mapping[str, Any]) -> tuple[str, str] | None:
    """(what the header says after its status, the reason) of an entry whose build kustomize
    refuses on one side (``build_fails``), or None. On the head nothing of it is applied:
    the cluster keeps what it has, and the change is the source's only; on the base the
    cluster never got the base's object, so the comparison says nothing of what runs."""
    fails = entry.get("build_fails")
    if not isinstance(fails, Mapping):
        return None
    side = str(fails.get("side"))
    # (neutral on who fails it: kustomize for a kustomization's entry, Argo CD for an
    # Application's source path, kustomize-controller for a Flux Kustomization's path)
    why = (f"{fails.get('file')}: {fails.get('entry')!r} {fails.get('why')}, so the {side} "
           "build fails")
    if side == "head":
        return " in the source only: its head build fails", (
            f"{why}: nothing of it is applied, the cluster keeps what it has")
    return ", not compared: its base build fails", (
        f"{why}: the cluster never got the base's object")


def object_header(entry: Mapping[str, Any], group: Alike | None = None) -> tuple[str, str]:
    """(mark, one-line description) of one changed object (``group``: the entries it
    stands for, all named)."""
    status = str(entry.get("change"))
    mark = _STATUS_MARK.get(status, "~")
    words, name, lead, others = group.subject() if group is not None else (
        *entry_words(entry), "", [])
    ref = term(" ".join(w for w in (words, name, lead) if w))
    if others:
        ref += " " + listed(others, term)
    file, base_file = entry.get("file"), entry.get("base_file")
    shown = status if (fails := build_fails(entry)) is None else status + fails[0]
    if words in FILE_WORDS and status == "modified":  # the name is the file: its line follows
        return mark, f"{ref}:{entry.get('line') or 1}  {shown}"
    if (said := shown_status(entry)) != status:
        return mark, f"{ref}  {said}  ({READ_WHY[said]})"
    if by := entry.get("generated_by"):  # an Application only an ApplicationSet makes
        where = (f"(was generated by {term(str(by))} in {term(str(base_file))})"
                 if status == "removed" else
                 f"(generated by {term(str(by))} in {term(str(file))}:{entry.get('line') or 1})")
    elif status == "removed":
        where = f"(was in {term(str(base_file))})"
    elif status == "renamed":
        old = str(entry.get("renamed_from"))
        where = f"from {term(old)}"
        if base_file and base_file != file and str(file) not in ref:
            where += f", {term(str(base_file))} -> {term(str(file))}"
    else:
        where = f"{term(str(file))}:{entry.get('line') or 1}"
        changes = [c for c in entry.get("changes") or () if isinstance(c, Mapping)]
        if status == "modified" and changes and all(c.get("file") for c in changes):
            # every change is a patch's (new-user trial seventy-eight W1: the header named
            # the base file's first line, the change at prod's patch)
            where = (f"{term(str(changes[0]['file']))}:{changes[0].get('line') or 1} "
                     f"(object of {term(str(file))})")
    return mark, f"{ref}  {shown}  {where}"


def change_lines(changes: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(style, text) lines: a path line, then ``-``/``+``/``~`` lines under it."""
    out: list[tuple[str, str]] = []
    last_path: str | None = None
    for change in changes:
        path = term(str(change.get("path") or "(document)"))
        if change.get("file"):  # set by a patch in another file: where
            path += f"  (set in {term(str(change['file']))}:{change.get('line') or 1})"
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
    for group in alike(diff):
        entry = group.entry
        mark, header = object_header(entry, group)
        note = f"  {said}" if (said := builds_note(group, term)) else ""
        out.append(paint(mark, mark) + " " + paint("header", header) + paint("note", note))
        if (fails := build_fails(entry)) is not None:
            out.append("    " + paint("note", term(fails[1])))
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
    shown = distinct(diff)
    merged = made_again(diff)
    again = f", {merged} of them made by another build too" if merged else ""
    failing = sum(1 for e in shown if e.get("build_fails"))
    fails = f", {failing} of them in a failing build" if failing else ""
    return ", ".join(tally(shown)) + f" ({counted(shown)}{again}{fails})"


def distinct(diff: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``diff``'s entries, an object's one change that several builds make once (as the
    outputs show it: new-user trial seventy-five W2 counted "6 renamed" above 5)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for e in diff:
        key = (str(e.get("object")), _change_key(e))
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def tally(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """"2 modified", "1 added", ... of ``entries``, in that order, the statuses they are
    shown with (:func:`shown_status`)."""
    counts = {s: sum(1 for e in entries if shown_status(e) == s) for s in SHOWN_ORDER}
    return [f"{n} {s}" for s, n in counts.items() if n]


SHOWN_ORDER = ("modified", "added", "removed", "renamed", "now read", "no longer read")
READ_WHY = {"now read": "a release of the head reads it",
            "no longer read": "no release of the head reads it"}


def shown_status(entry: Mapping[str, Any]) -> str:
    """An entry's status as outputs say it: a Helm values file a release reads on one side
    only is "now read" or "no longer read", what a release reads and not the file itself
    (new-user trial seventy-six D3: a valueFiles entry renamed to a file that does not exist
    said "values-prod.yaml removed" of a file still there); else its status."""
    status = str(entry.get("change"))
    if status in ("added", "removed") and not entry.get("build_fails") and (
            entry_words(entry)[0] == "Helm values file"):
        return "now read" if status == "added" else "no longer read"
    return status


def counted(entries: Sequence[Mapping[str, Any]]) -> str:
    """How many objects and files ``entries`` are ("4 objects, 1 file"): a kustomization
    file or a Helm values file is a file the diff compares, no object."""
    files = sum(1 for e in entries if entry_words(e)[0] in FILE_WORDS)
    return ", ".join(plural(n, w) for n, w in ((len(entries) - files, "object"), (files, "file"))
                     if n)


