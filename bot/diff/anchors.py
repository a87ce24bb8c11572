"""Where a pull request made the change that took something out, on a line its diff shows.

A kustomization entry the change removed names no line of the head: the line that now stands
where it was (the next kept one, the last when it was at the end) is the line the diff's hunk
shows beside the removal, where an inline comment can sit. change-safety points a deletion's
verdicts there, and the review places there a new finding on a file the removal left listed
by no kustomization (whose own file the change did not touch). Only the standard library and
the model: a review imports it, a lint never does.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from reviewbot.model.kustomize import path_entries
from reviewbot.model.objects import Model
from reviewbot.model.resource import join

Place = tuple[str, int, int]  # (file, line, column)


class Anchors:
    """The places of one change from ``base`` to ``head``, each file's found once."""

    def __init__(self, base: Model, head: Model) -> None:
        self.base, self.head = base, head
        self._unlisted: dict[str, tuple[str, Place] | None] = {}
        self._listed_in_head: set[tuple[str, str]] | None = None
        self._lines: dict[str, tuple[Sequence[tuple[str, int, int, int, int]], int]] = {}
        self._blobs: list[dict[str, str]] = []  # (the base's and the head's, once asked)
        self._gone: set[str] | None = None  # (see _renamed_whole)

    def unlisted(self, file: str) -> tuple[str, Place] | None:
        """:func:`unlisted` of ``file``, the entry's place in the head when it has the
        kustomization's file (once per file: many objects share one)."""
        if file not in self._unlisted:
            if self._listed_in_head is None:
                self._listed_in_head = {(k.file, join(k.directory, e.value.strip()))
                                        for k in self.head.kustomizations
                                        for e in path_entries(k.body)}
            found = unlisted(file, self.base, self.head, self._listed_in_head)
            if found is not None and found[1][0] in self.head.files:
                found = found[0], self.moved(found[1][0], found[1][1])
            self._unlisted[file] = found
        return self._unlisted[file]

    def first_change(self, file: str) -> int:
        """The first line of the head's ``file`` the pull request added or changed (the
        line a removal left in its place when it only removed; 1 for a new file)."""
        if file not in self.base.files:
            return 1
        self.moved(file, 1)  # (the file's opcodes, made once)
        ops, last = self._lines[file]
        return next((min(j1 + 1, max(last, 1)) for tag, _, _, j1, _ in ops if tag != "equal"),
                    1)

    def changed_lines(self, file: str) -> list[int]:
        """The lines of the head's ``file`` the pull request added or changed (for a removal
        alone, the line that took its place), in order."""
        if file not in self.base.files:
            if self._renamed_whole(file):
                return []  # (git shows a file moved unchanged as a rename, with no lines)
            return list(range(1, len(self.head.files[file].text.splitlines()) + 1))
        self.moved(file, 1)  # (the file's opcodes, made once)
        ops, last = self._lines[file]
        out: list[int] = []
        for tag, _, _, j1, j2 in ops:
            if tag != "equal":
                out.extend(range(j1 + 1, j2 + 1) if j2 > j1 else [min(j1 + 1, max(last, 1))])
        return out

    def _renamed_whole(self, file: str) -> bool:
        """Whether the head's new ``file`` is a base file moved with its text unchanged (the
        base's path gone from the head): a rename git's diff shows without a line, where a
        forge takes no inline comment (new-user trial eighty-nine D6: a ClusterIssuer moved
        beside the cert-manager release, its finding placed on the moved file's lines)."""
        if self._gone is None:  # (the texts of the base's files the head lacks, once)
            self._gone = {lf.text for path, lf in self.base.files.items()
                          if path not in self.head.files}
        return self.head.files[file].text in self._gone

    def moved(self, file: str, line: int) -> Place:
        """Where line ``line`` of the base's ``file`` stands in the head's: itself when the
        pull request kept it, else the line that took its place (the next kept one; the last
        when it was at the end), the line the diff's hunk shows beside the removal."""
        found = self._lines.get(file)
        if found is None and file not in self.base.files:
            return self.head_place(file, line)
        if found is None:
            old = self.base.files[file].text.splitlines()
            new = self.head.files[file].text.splitlines()
            hunks = self._git_opcodes(file, len(old), len(new))
            found = self._lines[file] = (hunks if hunks is not None else difflib.SequenceMatcher(
                None, old, new, autojunk=False).get_opcodes(), len(new))
        ops, at = found  # (past every block: the last line)
        for tag, i1, i2, j1, _ in ops:
            if i1 <= line - 1 < i2:
                at = j1 + (line - 1 - i1) + 1 if tag == "equal" else j1 + 1
                break
        return self.head_place(file, at)

    def _git_opcodes(self, file: str, old: int, new: int
                     ) -> list[tuple[str, int, int, int, int]] | None:
        """The hunks git's own diff makes of ``file``'s two blobs, as difflib's opcodes
        (what a forge shows and takes comments on: of alike documents, difflib and git may
        cut a removal apart; new-user trial seventy-six D7 had difflib's "line 6", off the
        pull request's hunk at 23, and no inline comment); None outside git."""
        from reviewbot.sources.tree import blob_diff, hunk_counts

        base, head = self.base.tree, self.head.tree
        if base is None or head is None:
            return None
        if not self._blobs:  # (each side's files by path, made once)
            self._blobs = [{r.path: r.blob for r in tree.files} for tree in (base, head)]
        blobs = [side.get(file) for side in self._blobs]
        if blobs[0] is None or blobs[1] is None or blobs[0] == blobs[1]:
            return None
        text = blob_diff(head.root, blobs[0], blobs[1])
        if text is None:
            return None
        ops: list[tuple[str, int, int, int, int]] = []
        i = j = 0  # (0-based: the next line of each side not yet in an opcode)
        for a, removed, c, added in hunk_counts(text):
            i1 = a - (1 if removed else 0)  # (a count of 0 names the line before)
            j1 = c - (1 if added else 0)
            if i1 - i < 0 or j1 - j != i1 - i:
                return None  # (not a diff of these two texts)
            if i1 > i:
                ops.append(("equal", i, i1, j, j1))
            tag = "replace" if removed and added else "delete" if removed else "insert"
            ops.append((tag, i1, i1 + removed, j1, j1 + added))
            i, j = i1 + removed, j1 + added
        if old - i != new - j or old < i:
            return None
        if i < old:
            ops.append(("equal", i, old, j, new))
        return ops

    def head_place(self, file: str, line: int) -> Place:
        """``line`` of the head's ``file`` (its last when shorter), at its first character
        that is not a space."""
        lines = self.head.files[file].text.splitlines()
        line = max(1, min(line, len(lines)))
        text = lines[line - 1] if lines else ""
        return file, line, len(text) - len(text.lstrip()) + 1


def unlisted(file: str, base: Model, head: Model,
             listed_in_head: set[tuple[str, str]]) -> tuple[str, Place] | None:
    """"<kustomization> no longer lists <entry>" for the base kustomization whose resource
    entry named ``file`` (or a folder above it) and whose head version does not
    (``listed_in_head``: (kustomization, entry's path) of the head's), and where that entry
    was in the base."""
    for k in base.kustomizations:
        for entry in path_entries(k.body):
            if entry.field not in ("resources", "bases", "components"):
                continue
            target = join(k.directory, entry.value.strip())
            if (target == file or file.startswith(target + "/")) and (
                    (k.file, target) not in listed_in_head):
                line, column = k.doc.position(entry.path)
                if k.file not in head.files:
                    return f"{k.file}, which listed it, is removed", (k.file, line, column)
                return f"{k.file} no longer lists {entry.value.strip()}", (k.file, line, column)
    return None
