"""Unified-diff parsing: which lines of a PR's head files can take an inline comment.

Both forges only accept inline comments on lines the pull request's diff shows. On the
new ("RIGHT") side those are the context and added lines of each hunk, and for a hunk
``@@ -a,b +c,d @@`` they are exactly the new-file lines ``c .. c+d-1``. A multi-line comment
must stay inside one hunk. This module turns a GitHub per-file ``patch`` or a whole
``git diff`` (Forgejo's ``pulls/{n}.diff``) into those ranges (a hunk's header as
:data:`~reviewbot.sources.tree.HUNK_HEADER` reads it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from reviewbot.sources.tree import HUNK_HEADER

_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


@dataclass(frozen=True)
class FileLines:
    """The commentable new-side lines of one file: one inclusive range per hunk."""

    path: str
    hunks: tuple[tuple[int, int], ...] = ()

    def contains(self, line: int) -> bool:
        return any(first <= line <= last for first, last in self.hunks)

    def span_ok(self, start_line: int, line: int) -> bool:
        """True when ``start_line .. line`` lies inside a single hunk."""
        if start_line > line:
            return False
        return any(first <= start_line and line <= last for first, last in self.hunks)


@dataclass(frozen=True)
class DiffMap:
    """Commentable lines of every file a pull request touches (deleted files excluded)."""

    files: Mapping[str, FileLines] = field(default_factory=dict)

    def can_comment(self, path: str, line: int, start_line: int | None = None) -> bool:
        lines = self.files.get(path)
        if lines is None or not lines.contains(line):
            return False
        return start_line is None or lines.span_ok(start_line, line)

    def can_span(self, path: str, start_line: int, line: int) -> bool:
        lines = self.files.get(path)
        return lines is not None and lines.span_ok(start_line, line)


def _hunk_ranges(lines: list[str]) -> Iterator[tuple[int, int] | str]:
    """Yield a new-side range per hunk and every line outside hunk bodies as a str.

    Hunk bodies are consumed by their line counts, so a removed line that reads
    ``--- x`` or an added one that reads ``+++ y`` is never mistaken for a file header.
    """
    i = 0
    while i < len(lines):
        raw = lines[i]
        i += 1
        match = HUNK_HEADER.match(raw)
        if match is None:
            yield raw
            continue
        old_left = int(match.group(2)) if match.group(2) is not None else 1
        new_start = int(match.group(3))
        new_left = int(match.group(4)) if match.group(4) is not None else 1
        if new_left > 0:
            yield (new_start, new_start + new_left - 1)
        while (old_left > 0 or new_left > 0) and i < len(lines):
            tag = lines[i][:1]
            if tag == "\\":  # "\ No newline at end of file"
                pass
            elif tag == "+":
                new_left -= 1
            elif tag == "-":
                old_left -= 1
            elif tag in (" ", ""):  # an empty line is a context line whose space was trimmed
                old_left -= 1
                new_left -= 1
            else:  # a truncated hunk: hand the line back to the caller
                break
            i += 1
        while i < len(lines) and lines[i].startswith("\\"):
            i += 1


def parse_patch(path: str, patch: str | None) -> FileLines:
    """Parse one file's hunks (GitHub's ``files[].patch``, which has no file headers)."""
    if not patch:
        return FileLines(path)
    ranges = [item for item in _hunk_ranges(patch.split("\n")) if isinstance(item, tuple)]
    return FileLines(path, tuple(ranges))


def unquote_path(text: str) -> str:
    """Undo git's C-style path quoting (``"a/caf\\303\\251.yaml"``); plain paths pass through."""
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return text
    out = bytearray()
    body = text[1:-1]
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 >= len(body):
            out += char.encode("utf-8")
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in "01234567":
            digits = body[i + 1 : i + 4]
            octal = ""
            for digit in digits:
                if digit not in "01234567":
                    break
                octal += digit
            out.append(int(octal, 8) & 0xFF)
            i += 1 + len(octal)
        else:
            out.append(_ESCAPES.get(nxt, ord(nxt)))
            i += 2
    return out.decode("utf-8", errors="replace")


def _header_path(rest: str) -> str | None:
    """The path of a ``+++ `` header, without the ``b/`` prefix; None for /dev/null."""
    rest = rest.rstrip("\r")
    if not rest.startswith('"') and "\t" in rest:
        rest = rest.split("\t", 1)[0]
    if rest == "/dev/null":
        return None
    path = unquote_path(rest)
    if path.startswith("b/"):
        path = path[2:]
    return path


def parse_git_diff(text: str) -> DiffMap:
    """Parse a whole ``git diff`` into commentable ranges per new-side path."""
    files: dict[str, list[tuple[int, int]]] = {}
    current: str | None = None
    for item in _hunk_ranges(text.split("\n")):
        if isinstance(item, tuple):
            if current is not None:
                files[current].append(item)
            continue
        if item.startswith("diff --git ") or item.startswith("diff --cc "):
            current = None
        elif item.startswith("+++ "):
            current = _header_path(item[4:])
            if current is not None:
                files.setdefault(current, [])
    return DiffMap({path: FileLines(path, tuple(ranges)) for path, ranges in files.items()})
