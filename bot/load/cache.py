"""Parsed files, content-addressed by git blob id (``--cache DIR``).

Safe to delete. Entries are JSON (never pickle: a cache restored in CI must not be able to run
code) and live under a folder named after the reviewbot and format version, so a cache is
never trusted across versions. A corrupt pack or entry is ignored and parsed again.

Entries (one parsed file each, keyed by its blob id) are stored in *packs*, one per tree: a
pack is named after the set of blob ids of the tree it was written for, so a tree seen before
loads with one read (measured on a 10k-object tree: 0.1 s for one 8 MB pack, 0.35-0.7 s for
6,800 files of one entry each). A pack may name a parent pack and hold only the entries the
parent lacks (a pull request's head tree next to its base: a few entries). A tree not seen
before takes what it can from the packs this run already read, else from the most recently
used pack, and parses the rest. Only the most recently used packs are kept.

A cache is never read from a place a pull request controls: ``check_location`` refuses a
folder inside the repository or a linted tree (a PR could commit a pack there mapping its
manifests' blob ids to "no documents"). Every pack, result and review file is sealed: its
first line holds a SHA-256 digest of the reviewbot version, the cache format, what the file is
(pack, result or review), its key (the tree's blob ids, or everything the findings or the
review depend on) and the JSON body; a file whose digest does not match is ignored, as a
corrupt one is.

Besides parsed files: what the rules found on a tree (``results/``, see
``engine.keys.result_key``), a review base's connectivity (``connectivity/``, under the same
key) and a review's outcome for two trees (``reviews/``, see ``engine.keys.review_key`` and
``engine.review_cache``), the most recently used of each kept.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reviewbot import __version__, concurrency
from reviewbot.errors import ReviewbotError
from reviewbot.load.loader import Document, LoadedFile, Problem, kustomization_name
from reviewbot.sources.tree import FileRecord

FORMAT = 8  # 8: a kustomization file's entry apart (entry_key); 7: a scaffolder's template
# content is skipped (loader.SCAFFOLD_INPUT)
KEEP_PACKS = 16  # packs kept, most recently used first
KEEP_RESULTS = 64  # rule results (and reviews) kept, most recently used first
MAX_CHAIN = 4  # a pack and its ancestors; deeper, a pack is written whole


def key_bytes(text: str) -> bytes:
    """``text`` (paths, blob ids) as the bytes a cache key digests: UTF-8, and a file name's
    bytes that are no UTF-8 as those bytes (``surrogateescape``), so every name has a key."""
    return text.encode("utf-8", "surrogateescape")


class ParseCache:
    """One run's view of a cache folder.

    ``view(records)`` opens the pack of one tree; ``get``/``put`` read and add entries, and
    ``save`` writes the tree's pack when it is new (``engine.parse.load_files`` drives it).
    """

    def __init__(self, directory: Path) -> None:
        flush()  # packs an earlier cache of this process is still writing
        self.directory = directory / f"v{__version__}-f{FORMAT}"
        self.packs = self.directory / "packs"
        self.entries: dict[str, dict[str, Any]] = {}  # blob -> raw entry, this run
        self.pack_blobs: dict[str, frozenset[str]] = {}  # pack read or written -> its blobs
        self.depth: dict[str, int] = {}  # pack -> length of its parent chain
        self.hits = 0
        self.misses = 0

    def view(self, records: Sequence[FileRecord]) -> TreeView:
        blobs = frozenset(entry_key(r.path, r.blob) for r in records)
        key = _tree_key(blobs)
        found = key in self.pack_blobs or self._read(key)
        if not found and not self.pack_blobs:
            recent = self._recent()
            if recent is not None:
                self._read(recent)
        return TreeView(self, key, blobs, found)

    def prefetch(self, blobs: frozenset[str]) -> None:
        """Read now the pack of the tree whose files have these entry keys (:func:`entry_key`),
        if there is one (a review reads it while git reads the base's blobs; ``view`` then
        finds it read)."""
        key = _tree_key(blobs)
        if key not in self.pack_blobs:
            self._read(key)

    def _path(self, key: str) -> Path:
        return self.packs / f"{key}.json"

    def _read(self, key: str, depth: int = 0) -> bool:
        """Read pack ``key`` (and its parents) into ``entries``; False when it is unusable."""
        if key in self.pack_blobs:
            return True
        if depth >= MAX_CHAIN:
            return False
        path = self._path(key)
        try:
            raw = json.loads(unseal(path.read_bytes(), "pack", key))
            entries = raw["entries"]
            parent = raw["parent"]
            if not isinstance(entries, dict) or not (parent is None or isinstance(parent, str)):
                return False
            blobs = frozenset(entries)
            chain = 0
            if parent is not None:
                if not self._read(parent, depth + 1):
                    return False
                blobs |= self.pack_blobs[parent]
                chain = self.depth[parent] + 1
            os.utime(path)  # recently used: kept by pruning
        except (OSError, ValueError, KeyError, TypeError):
            return False
        for blob, entry in entries.items():
            if isinstance(entry, dict):
                self.entries.setdefault(blob, entry)
        self.pack_blobs[key] = blobs
        self.depth[key] = chain
        return True

    def _recent(self) -> str | None:
        try:
            packs = sorted(self.packs.glob("*.json"), key=_mtime, reverse=True)
        except OSError:
            return None
        return packs[0].stem if packs else None

    def _write(self, key: str, blobs: frozenset[str]) -> None:
        parent = None
        for candidate, held in self.pack_blobs.items():  # the nearest pack already read
            if candidate != key and self.depth[candidate] + 1 < MAX_CHAIN and (
                parent is None or len(blobs - held) < len(blobs - self.pack_blobs[parent])
            ):
                parent = candidate
        base = self.pack_blobs[parent] if parent is not None else frozenset()
        if len(blobs - base) * 2 > len(blobs):  # mostly new: a whole pack
            parent, base = None, frozenset()
        entries = {b: self.entries[b] for b in sorted(blobs - base) if b in self.entries}
        try:
            self.packs.mkdir(parents=True, exist_ok=True)
        except OSError:
            return  # a cache that cannot be written only costs speed
        self.pack_blobs[key] = frozenset(entries) | base
        self.depth[key] = self.depth[parent] + 1 if parent is not None else 0
        if concurrency.workers(2, len(entries), concurrency.limits().background_min_entries) < 1:
            _write_pack(self.packs, key, parent, entries)
            return
        # A whole tree's pack (8 MB of JSON at 10k objects, 0.15 s) is written by a forked
        # child while this process goes on (building the model uses one core).
        concurrency.background(_write_pack, self.packs, key, parent, entries)

    # ------------------------------------------------------------ rule results

    def result(self, key: str) -> dict[str, Any] | None:
        """What the rules found on a tree before (``key``: everything the findings depend on,
        see ``engine.keys.result_key``), or None."""
        return self._sealed("results", "result", key)

    def store_result(self, key: str, raw: dict[str, Any]) -> None:
        self._store("results", "result", key, raw)

    def review(self, key: str) -> dict[str, Any] | None:
        """A review's outcome made before for the same two trees and inputs (``key``: see
        ``engine.keys.review_key``), or None."""
        return self._sealed("reviews", "review", key)

    def store_review(self, key: str, raw: dict[str, Any]) -> None:
        self._store("reviews", "review", key, raw)

    def connectivity(self, key: str) -> dict[str, Any] | None:
        """A tree's connectivity as a review compares it (``netpol.diff.Side``), made before
        for the same tree and inputs (``key``: its ``result_key``), or None."""
        return self._sealed("connectivity", "connectivity", key)

    def store_connectivity(self, key: str, raw: dict[str, Any]) -> None:
        self._store("connectivity", "connectivity", key, raw)

    def _sealed(self, folder: str, kind: str, key: str) -> dict[str, Any] | None:
        path = self.directory / folder / f"{key}.json"
        try:
            raw = json.loads(unseal(path.read_bytes(), kind, key))
            os.utime(path)
        except (OSError, ValueError):
            return None
        return raw if isinstance(raw, dict) else None

    def _store(self, name: str, kind: str, key: str, raw: dict[str, Any]) -> None:
        import tempfile

        folder = self.directory / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            body = json.dumps(raw, separators=(",", ":")).encode()
            with os.fdopen(fd, "wb") as fh:
                fh.write(seal(body, kind, key))
            os.replace(tmp, folder / f"{key}.json")
        except OSError:
            return
        _prune(folder, KEEP_RESULTS)


def check_location(directory: Path, trees: Sequence[Path]) -> None:
    """Refuse a cache folder inside any of ``trees`` (the repository, the linted paths): what a
    pull request commits there would be read as parse results. Refuse a file too (or a path
    under one): nothing could be cached there, and the run would not say so."""
    try:
        where = directory.resolve()
    except (OSError, RuntimeError):
        where = Path(os.path.abspath(directory))
    existing = next((p for p in (where, *where.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise ReviewbotError(f"--cache {directory}: {existing} is not a folder")
    for tree in trees:
        try:
            top = tree.resolve()
        except (OSError, RuntimeError):
            continue
        if where == top or top in where.parents:
            raise ReviewbotError(
                f"--cache {directory} is inside {top}, which the reviewed change controls: "
                "keep the cache outside the work tree (in CI: under $RUNNER_TEMP)")


_SEAL = b"reviewbot-cache "


def _digest(body: bytes, kind: str, key: str) -> str:
    import hashlib  # here: a run without the cache never hashes (OpenSSL's start-up)

    head = f"{__version__}\0{FORMAT}\0{kind}\0{key}\0".encode()
    return hashlib.sha256(head + body).hexdigest()


def seal(body: bytes, kind: str, key: str) -> bytes:
    """``body`` with its first line: the digest binding it to this version, ``kind``, ``key``."""
    return _SEAL + _digest(body, kind, key).encode() + b"\n" + body


def unseal(data: bytes, kind: str, key: str) -> bytes:
    """The body of a sealed file; ValueError when the seal is missing or does not match."""
    first, _, body = data.partition(b"\n")
    if not first.startswith(_SEAL) or first[len(_SEAL):].decode("ascii", "replace") != _digest(
            body, kind, key):
        raise ValueError("cache file not sealed for this version and key")
    return body


def flush() -> None:
    """Wait for the packs being written in the background (then every pack is on disk)."""
    concurrency.join_background()


def _write_pack(folder: Path, key: str, parent: str | None, entries: dict[str, Any]) -> None:
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        text = json.dumps({"parent": parent, "entries": entries}, separators=(",", ":"))
        with os.fdopen(fd, "wb") as fh:  # (json.dump is not the C encoder)
            fh.write(seal(text.encode(), "pack", key))
        os.replace(tmp, folder / f"{key}.json")
    except OSError:
        return  # a cache that cannot be written only costs speed
    _prune(folder, KEEP_PACKS)


def _prune(folder: Path, keep: int) -> None:
    try:
        found = sorted(folder.glob("*.json"), key=_mtime, reverse=True)
        for old in found[keep:]:
            old.unlink()
    except OSError:
        pass


class TreeView:
    """The entries one tree can use; its pack is written by ``save`` when it is new."""

    def __init__(self, cache: ParseCache, key: str, blobs: frozenset[str], found: bool) -> None:
        self.cache = cache
        self.key = key
        self.blobs = blobs
        self.found = found
        self.added = False

    def get(self, record: FileRecord, limit: int) -> LoadedFile | None:
        """The entry of ``record``; none for a file past ``limit`` (the run's
        ``loader.max-file-bytes``): such files are never cached, so no entry depends on it."""
        entry = entry_key(record.path, record.blob)
        raw = self.cache.entries.get(entry) if len(record.data) <= limit else None
        if raw is not None:
            try:
                loaded = thaw(record, raw, limit)
            except (ValueError, KeyError, TypeError):
                self.cache.entries.pop(entry, None)
            else:
                self.cache.hits += 1
                return loaded
        self.cache.misses += 1
        return None

    def put(self, record: FileRecord, loaded: LoadedFile, limit: int) -> None:
        if len(record.data) > limit:
            return
        self.cache.entries[entry_key(record.path, record.blob)] = freeze(loaded)
        self.added = True

    def save(self) -> None:
        if not self.found or self.added:
            self.cache._write(self.key, self.blobs)
            self.found, self.added = True, False


def entry_key(path: str, blob: str) -> str:
    """The cache entry of a file: its blob id, apart for a kustomization file, which the
    loader reads leniently (a key written twice keeps its later value: the same bytes under
    another name are refused)."""
    return f"{blob}:kustomization" if kustomization_name(path) else blob


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _tree_key(blobs: frozenset[str]) -> str:
    """A tree's pack name: made of the blob ids of its files."""
    import hashlib

    return hashlib.sha1("\n".join(sorted(blobs)).encode(), usedforsecurity=False).hexdigest()


def freeze(loaded: LoadedFile) -> dict[str, Any]:
    return {
        "docs": [[d.index, d.line, d.value, d.kyaml_apart, d.refused]
                 for d in loaded.documents],
        "problems": [[p.message, p.line, p.column, p.kustomize_reads]
                     for p in loaded.problems],
        "skipped": loaded.skipped,
        "pure": loaded.pure,
        "ignore": [[line, list(r), reason, col]
                   for line, (r, reason, col) in loaded.ignore_comments.items()],
    }


def thaw(record: FileRecord, raw: dict[str, Any], limit: int) -> LoadedFile:
    data = record.data if len(record.data) <= limit else b""  # as ``load`` keeps it
    out = LoadedFile(record.path, record, data, skipped=raw["skipped"], pure=raw["pure"])
    out.documents = [Document(out, index, value, line, kyaml_apart=apart, refused=refused)
                     for index, line, value, apart, refused in raw["docs"]]
    out.problems = [Problem(m, line, col, reads) for m, line, col, reads in raw["problems"]]
    out.ignore_comments = {
        int(line): (tuple(rules), reason, int(col)) for line, rules, reason, col in raw["ignore"]
    }
    return out
