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
from reviewbot.load.loader import LoadedFile, fast_events, load, load_alike, parse_key
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
        # the repositories the last model's Argo CD Applications showed are this one (their
        # paths resolved): a review's head knows a path its change misspells is local
        self.local_urls: frozenset[str] = frozenset()
        # the files of its Argo CD Applications whose paths resolved: a review's head knows
        # an Application whose path its change misspells applied them (no leftover)
        self.resolved_apps: frozenset[str] = frozenset()


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
    """Parse ``records`` (each refused past ``limit`` bytes), PyYAML's wrapper holding the
    fast event classes for all of them (:func:`~reviewbot.load.loader.fast_events`).

    Records alike (:func:`~reviewbot.load.loader.parse_key`: the same bytes, a manifest
    vendored into each cluster's folder) are parsed once, the others copied from it
    (:func:`~reviewbot.load.loader.load_alike`): a third of hmcts-sds-flux-config's bytes
    are its clusters' identical ``gotk-components.yaml``."""
    first: dict[tuple[bytes, bool, bool], int] = {}
    alike: list[tuple[int, int]] = []  # (a record, the first record of its key)
    for i, record in enumerate(records):
        j = first.setdefault(parse_key(record), i)
        if j != i:
            alike.append((i, j))
    if not alike:
        with fast_events():
            return _parse_files(records, limit)
    unique = sorted(first.values())
    with fast_events():
        parsed = _parse_files([records[i] for i in unique], limit)
    done = dict(zip(unique, parsed, strict=True))
    for i, j in alike:
        done[i] = load_alike(records[i], done[j]) or load(records[i], limit)
    return [done[i] for i in range(len(records))]


def _parse_files(records: Sequence[FileRecord], limit: int) -> list[LoadedFile]:
    """Parse ``records`` (each refused past ``limit`` bytes), over the available cores when
    the work is large enough to pay.

    The files are cut into runs of about equal bytes (:func:`_runs`), handed out one at a
    time, the largest first, to whichever process asks first
    (:class:`~reviewbot.concurrency.Tickets`): this one or a forked worker per extra core,
    which inherits the files (nothing is pickled to it) and streams its results back as plain
    data, one ``marshal`` record per run (:class:`~reviewbot.concurrency.Stream`): the keys
    and values files repeat are written once a run, not once a file (taking in the records
    of the 20k tree cost 0.22 s of unmarshalling with a record a file, 0.15 s with one of 16
    files). Between two of its files this process takes in the records the workers have
    written so far, so
    it takes fewer runs, and every process ends within about one run of the others, whatever
    the take-in, the files or the machine's other load cost. Record by record, neither
    process holds a worker's whole result twice. A worker that fails costs only time: what
    it did not send is parsed here.
    """
    workers = concurrency.workers(8, sum(len(r.data) for r in records),
                                  concurrency.limits().parse_min_bytes)
    if workers < 1:
        return [load(r, limit) for r in records]
    runs = _runs(records, concurrency.Tickets.MOST)
    out: list[Any] = [None] * len(records)
    tickets = concurrency.Tickets(len(runs))
    try:
        streams = [concurrency.Stream(_parse_runs, records, runs, tickets, limit)
                   for _ in range(workers)]

        def take(got: Sequence[bytes]) -> None:
            for raw in got:
                try:
                    for i, frozen in marshal.loads(raw):
                        out[i] = thaw(records[i], frozen, limit)
                except (EOFError, ValueError, TypeError, KeyError, IndexError):
                    continue  # the run's files not taken in are parsed here below

        while (ticket := tickets.take()) is not None:
            start, end = runs[ticket]
            for i in range(start, end):
                out[i] = load(records[i], limit)
                if (i - start) % _TAKE_EVERY == 0:
                    for stream in streams:
                        take(stream.ready())
        for stream in streams:
            take(stream.rest() or ())
    finally:
        tickets.close()
    for i, loaded in enumerate(out):  # what a worker did not send
        if loaded is None:
            out[i] = load(records[i], limit)
    return out


_TAKE_EVERY = 8  # this process's files parsed between two looks at what the workers sent


def _runs(records: Sequence[FileRecord], most: int) -> list[tuple[int, int]]:
    """``records`` cut into at most ``most`` runs ``(start, end)`` of about equal bytes (a
    file larger than a run's share is a run of its own), the largest first: the last runs
    handed out are the shortest, so the processes end close together."""
    share = sum(len(r.data) + 1 for r in records) / max(1, most - 1)  # most - 1 full runs
    sized: list[tuple[int, int, int]] = []  # (-bytes, start, end): the largest sorts first
    start, size = 0, 0
    for i, record in enumerate(records):
        size += len(record.data) + 1
        if size >= share:
            sized.append((-size, start, i + 1))
            start, size = i + 1, 0
    if start < len(records):
        sized.append((-size, start, len(records)))
    sized.sort()
    return [(start, end) for _, start, end in sized]


def _parse_runs(records: Sequence[FileRecord], runs: Sequence[tuple[int, int]],
                tickets: concurrency.Tickets, limit: int, send: Callable[[bytes], Any]) -> None:
    """In a worker: parse the runs it takes, sending each run's files as one ``marshal``
    record, a list of (index, plain data)."""
    while (ticket := tickets.take()) is not None:
        files = []
        for i in range(*runs[ticket]):
            loaded = load(records[i], limit)
            files.append((i, freeze(loaded)))
            loaded.documents.clear()  # documents name their file: freed now, the collector paused
        send(marshal.dumps(files))
