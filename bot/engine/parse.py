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
    and streams its results back as plain data, one ``marshal`` record per file
    (:class:`~reviewbot.concurrency.Stream`), while this process parses its own share and,
    between two of its files, takes in the records the workers have written so far: taking
    one in costs about 0.15 of parsing it (measured on the 20k-object tree), so this
    process's share is that much smaller (by bytes, :func:`_shares`) and every process ends
    about together. Record by record, neither process holds a worker's whole result twice.
    A worker that fails costs only time: what it did not send is parsed here.
    """
    workers = concurrency.workers(8, sum(len(r.data) for r in records),
                                  concurrency.limits().parse_min_bytes)
    if workers < 1:
        return [load(r, limit) for r in records]
    shares = _shares(records, workers)
    out: list[Any] = [None] * len(records)
    streams = [concurrency.Stream(_parse_share, [records[i] for i in share], limit)
               for share in shares[1:]]
    taken = [0] * len(streams)  # records taken in from each worker

    def take(k: int, got: Sequence[bytes]) -> None:
        share = shares[k + 1]
        for raw in got:
            i = share[taken[k]]
            taken[k] += 1
            try:
                out[i] = thaw(records[i], marshal.loads(raw), limit)
            except (EOFError, ValueError, TypeError, KeyError):
                out[i] = load(records[i], limit)

    for n, i in enumerate(shares[0]):
        out[i] = load(records[i], limit)
        if n % _TAKE_EVERY == 0:
            for k, stream in enumerate(streams):
                take(k, stream.ready())
    for k, stream in enumerate(streams):
        rest = stream.rest()
        if rest is not None:
            take(k, rest[:len(shares[k + 1]) - taken[k]])
        for i in shares[k + 1][taken[k]:]:  # what the worker did not send
            out[i] = load(records[i], limit)
    return out


_TAKE_EVERY = 8  # this process's files parsed between two looks at what the workers sent
_TAKE_IN = 0.15  # taking in a worker's record costs this much of parsing it (20k tree: 0.13 s
# for a share parsed in 0.85 s)


def _shares(records: Sequence[FileRecord], workers: int) -> list[list[int]]:
    """Indexes of ``records``: this process's share first, then each worker's. Each file goes
    to the share least loaded so far, by bytes, this process's bytes weighing ``1 +
    _TAKE_IN * workers`` times (it takes in what every worker sends)."""
    weight = [1.0 + _TAKE_IN * workers] + [1.0] * workers
    load_of = [0.0] * (workers + 1)
    shares: list[list[int]] = [[] for _ in range(workers + 1)]
    parts = range(workers + 1)
    least = load_of.__getitem__  # min() keeps the first of equal loads: the lowest share
    for i, record in enumerate(records):
        k = min(parts, key=least)
        shares[k].append(i)
        load_of[k] += (len(record.data) + 1) * weight[k]
    return shares


def _parse_share(records: Sequence[FileRecord], limit: int,
                 send: Callable[[bytes], Any]) -> None:
    """In a worker: parse each file and send its plain data (one ``marshal`` record each)."""
    for record in records:
        loaded = load(record, limit)
        send(marshal.dumps(freeze(loaded)))
        loaded.documents.clear()  # documents name their file: freed now, the collector paused
