"""Parsing a tree's files: from the parse cache, from the files already parsed this run
(:class:`Memo`), or over the available cores (:func:`parse_files`), each file refused past the
run's ``loader.max-file-bytes``."""

from __future__ import annotations

import marshal
from collections.abc import Callable, Sequence
from typing import Any

from reviewbot import concurrency
from reviewbot.config import Config
from reviewbot.load.cache import ParseCache, freeze, thaw
from reviewbot.load.loader import LoadedFile, load
from reviewbot.model.builder import Built
from reviewbot.model.kustomize import Graph
from reviewbot.sources.tree import MAX_FILE_BYTES, FileRecord, Tree


class Memo(dict[tuple[str, str], LoadedFile]):
    """What one run already loaded and built: files by (path, blob), and by document the
    objects a model made of it (``build_model``'s ``shared``)."""

    def __init__(self) -> None:
        super().__init__()
        self.built: dict[int, Built] = {}
        self.graph: Graph | None = None  # the kustomization graph of the last model built


def load_files(
    tree: Tree, config: Config, loader: Any = None, memo: Memo | None = None
) -> list[LoadedFile]:
    """Parse every YAML file of ``tree``.

    ``loader`` is a :class:`~reviewbot.load.cache.ParseCache` (entries by blob id) or a function
    of one record; ``memo`` holds files already loaded in this run by (path, blob) (a review
    loads base and head, which share nearly every file: each is parsed once, and both models
    hold the same objects for it).
    """
    records = [r for r in tree.files if not config.excluded(r.path)] if config.exclude else list(
        tree.files)
    if loader is not None and not isinstance(loader, ParseCache):
        return [loader(r) for r in records]
    limit = config.max_file_bytes
    out: list[LoadedFile | None] = [None] * len(records)
    view = loader.view(records) if loader is not None else None
    todo: list[int] = []
    for i, record in enumerate(records):
        hit = memo.get((record.path, record.blob)) if memo is not None else None
        if hit is None and view is not None:
            hit = view.get(record, limit)
        if hit is None:
            todo.append(i)
        else:
            out[i] = hit
    parsed = parse_files([records[i] for i in todo], limit)
    for i, loaded in zip(todo, parsed, strict=True):
        out[i] = loaded
        if view is not None:
            view.put(records[i], loaded, limit)
    if view is not None:
        view.save()
    done = [f for f in out if f is not None]
    if memo is not None:
        memo.update(((f.path, f.blob), f) for f in done)
    return done


def parse_files(records: Sequence[FileRecord], limit: int = MAX_FILE_BYTES) -> list[LoadedFile]:
    """Parse ``records`` (each refused past ``limit`` bytes), over the available cores when
    the work is large enough to pay.

    Each extra core gets a forked worker that inherits its share (nothing is pickled to it)
    and spools its results back as plain data, one ``marshal`` record per file, while this
    process parses its own share (measured on a 25k-object share: parsing 2.0 s, sending it
    back 0.1 s, unmarshalling and rebuilding it here 0.25 s). Record by record, neither
    process holds the worker's whole result twice. A worker that fails costs only time: its
    share is parsed here.
    """
    workers = concurrency.workers(8, sum(len(r.data) for r in records),
                                  concurrency.limits().parse_min_bytes)
    if workers < 1:
        return [load(r, limit) for r in records]
    n = workers + 1
    shares = [records[i::n] for i in range(n)]
    started = [concurrency.Spool(_parse_share, share, limit) for share in shares[1:]]
    results = [[load(r, limit) for r in shares[0]]]
    for share, worker in zip(shares[1:], started, strict=True):
        spooled = worker.result()
        try:
            if spooled is None:
                raise ValueError("the worker sent nothing")
            with spooled:
                results.append([thaw(r, _record(spooled), limit) for r in share])
        except (EOFError, ValueError, TypeError, KeyError):
            results.append([load(r, limit) for r in share])
    out: list[Any] = [None] * len(records)
    for i, result in enumerate(results):
        out[i::n] = result
    return out


def _parse_share(records: Sequence[FileRecord], limit: int,
                 write: Callable[[bytes], Any]) -> None:
    """In a worker: parse each file and write its plain data (one ``marshal`` record each)."""
    for record in records:
        loaded = load(record, limit)
        data = marshal.dumps(freeze(loaded))
        write(len(data).to_bytes(8, "little") + data)
        loaded.documents.clear()  # documents name their file: freed now, the collector paused


def _record(spooled: Any) -> Any:
    """The next record ``_parse_share`` wrote (its length, then its ``marshal`` data):
    ``marshal.load`` on a file reads each object's bytes with a call of its own."""
    size = int.from_bytes(spooled.read(8), "little")
    data = spooled.read(size)
    if len(data) != size:
        raise EOFError("a record is cut short")
    return marshal.loads(data)
