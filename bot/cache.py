"""Parsed files, content-addressed by git blob id (``--cache DIR``).

Safe to delete. Entries are JSON (never pickle: a cache restored in CI must not be able to run
code) and live under a folder named after the reviewbot and format version, so a cache is
never trusted across versions. A corrupt entry is ignored and parsed again.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from . import __version__
from .loader import Document, LoadedFile, Problem, decode_text, load
from .sources import FileRecord

FORMAT = 1


class ParseCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory / f"v{__version__}-f{FORMAT}"
        self.hits = 0
        self.misses = 0

    def _entry(self, blob: str) -> Path:
        return self.directory / blob[:2] / f"{blob}.json"

    def load(self, record: FileRecord) -> LoadedFile:
        entry = self._entry(record.blob)
        try:
            raw = json.loads(entry.read_bytes())
            loaded = thaw(record, raw)
        except (OSError, ValueError, KeyError, TypeError):
            loaded = None
        if loaded is not None:
            self.hits += 1
            return loaded
        self.misses += 1
        loaded = load(record)
        self._store(entry, freeze(loaded))
        return loaded

    def _store(self, entry: Path, raw: dict[str, Any]) -> None:
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(raw, fh, separators=(",", ":"))
            os.replace(tmp, entry)
        except OSError:
            pass  # a cache that cannot be written only costs speed


def freeze(loaded: LoadedFile) -> dict[str, Any]:
    return {
        "docs": [[d.index, d.line, d.value] for d in loaded.documents],
        "problems": [[p.message, p.line, p.column] for p in loaded.problems],
        "skipped": loaded.skipped,
        "pure": loaded.pure,
        "ignore": [[line, list(r), reason, col]
                   for line, (r, reason, col) in loaded.ignore_comments.items()],
    }


def thaw(record: FileRecord, raw: dict[str, Any]) -> LoadedFile:
    text = decode_text(record.data)
    out = LoadedFile(record.path, record.blob, text, skipped=raw["skipped"], pure=raw["pure"])
    out.documents = [Document(out, index, value, line) for index, line, value in raw["docs"]]
    out.problems = [Problem(m, line, col) for m, line, col in raw["problems"]]
    out.ignore_comments = {
        int(line): (tuple(rules), reason, int(col)) for line, rules, reason, col in raw["ignore"]
    }
    return out
