"""Work in forked processes: the only module that imports :mod:`multiprocessing`.

Every "do this elsewhere" of reviewbot goes through here, with one protocol:

- :class:`Worker` runs a function in a forked child, which inherits the parent's memory
  (nothing is pickled *to* it) and sends back the ``bytes`` the function returned. The parent
  collects them with :meth:`Worker.result`, which gives ``None`` when the child failed in any
  way; the caller then does the work itself, so a worker only ever saves time.
- :class:`Stream` is a :class:`Worker` whose function sends its result record by record into
  a temporary file as it goes (``send(bytes)``), so the child never holds the whole result,
  and the parent takes in the records already written while it does its own share, the rest
  once the child is done: what a large parse sends. The same rule holds: ``None`` when the
  child failed in any way (the records taken before are whole and stay good).
- Neither waits for a child to *exit* once it has what the child sends: the kernel takes
  milliseconds to tear down a child that shares a large heap (measured 3-56 ms after the
  rules of the 20k-object tree), and the parent goes on meanwhile. multiprocessing reaps the
  child at its next start or at exit.
- :func:`background` starts a child nobody waits for until :func:`join_background`.
- :class:`Tickets` hands out the pieces of a piece of work one at a time to whichever
  process asks first, this one or its forked children: the work balances itself.

:class:`Limits` say when forking pays and :func:`workers` decides it, the one place that
does. :func:`override` is the seam tests use to take the parallel paths on small inputs (or
to make every worker fail), instead of patching names.
An equivalence test runs each parallel path against its sequential twin.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, BinaryIO


@dataclass(frozen=True)
class Limits:
    """When work is shared with forked children (sizes measured on the benchmark trees)."""

    cores: int | None = None  # None: os.cpu_count()
    parse_min_bytes: int = 4 * 1024 * 1024  # below this, a parse worker costs more than it saves
    rules_min_objects: int = 5_000  # below this, sharing the rules costs more than it saves
    background_min_entries: int = 1_000  # cache packs this large are written by a child
    fail: bool = False  # tests: every worker sends nothing (the callers' fallback runs)


_limits = Limits()
_in_worker = False
_background: list[Any] = []


def limits() -> Limits:
    return _limits


def cores() -> int:
    return _limits.cores if _limits.cores is not None else (os.cpu_count() or 1)


def workers(most: int, size: int, least: int) -> int:
    """How many forked children share a piece of work of ``size`` (bytes, objects, entries)
    with this process, which uses at most ``most`` cores in all: none in a worker (it does
    its share sequentially), none below ``least`` (a child would cost more than it saves),
    else one per core beyond this process's own. The one fork decision of reviewbot."""
    if _in_worker or size < least:
        return 0
    return max(0, min(cores(), most) - 1)


def in_worker() -> bool:
    """True in a forked child: it does its share sequentially and forks no further."""
    return _in_worker


@contextmanager
def override(**changes: Any) -> Iterator[Limits]:
    """Change the limits for a block (``override(cores=2, rules_min_objects=0)``)."""
    global _limits
    before = _limits
    _limits = replace(before, **changes)
    try:
        yield _limits
    finally:
        _limits = before


def _context() -> Any:
    import multiprocessing  # here: most runs never fork, and importing it costs at start-up

    return multiprocessing.get_context("fork")


class Worker:
    """``fn(*args)`` in a forked child; its ``bytes`` come back through :meth:`result`."""

    def __init__(self, fn: Callable[..., bytes], *args: Any) -> None:
        context = _context()
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(target=_child, args=(fn, args, send), daemon=True)
        self._process.start()
        send.close()

    def result(self) -> bytes | None:
        """What the child sent, or None if it sent nothing (it failed, or was made to). A
        message arrives whole or not at all; the child's exit is not waited for."""
        try:
            return bytes(self._receive.recv_bytes())
        except (EOFError, OSError):
            return None
        finally:
            self._receive.close()


class Stream:
    """``fn(*args, send)`` in a forked child, ``send`` appending one record (``bytes``) at a
    time to a temporary file. The parent takes the records written whole so far with
    :meth:`ready`, which never waits (it goes on with its own share between two calls), and
    the others with :meth:`rest` once the child says it wrote them all (a byte on a pipe,
    after its last write): None if the child ended without saying so, having failed (the
    records taken before stay good: each was read only once written whole). The child
    writes in blocks of :attr:`BLOCK` bytes (a record larger than that at once): a record
    is ready once the block holding its end is written."""

    BLOCK = 64 * 1024
    def __init__(self, fn: Callable[..., None], *args: Any) -> None:
        import tempfile  # here: a lint of a small tree never streams

        self._process: Any = None
        self._at = 0  # bytes of the file taken as records
        try:
            self._file = tempfile.TemporaryFile(  # noqa: SIM115 - closed by rest()
                buffering=self.BLOCK)
        except OSError:  # no temporary folder to write: no child, the caller does the work
            return
        # the child writes a byte here once every record is written; its end of the pipe
        # is closed here at once, so the read sees the end of the pipe when the child exits
        # without that byte (and no later child inherits it)
        self._done, done = os.pipe()
        try:
            self._process = _context().Process(target=_stream_child,
                                               args=(fn, args, self._file, done), daemon=True)
            self._process.start()
        finally:
            os.close(done)

    def ready(self) -> list[bytes]:
        """The records written whole since the last call, in order (none without a child).
        Read with ``pread``: the file's offset is the writing child's."""
        if self._process is None or self._file.closed:
            return []
        fd = self._file.fileno()
        size = os.fstat(fd).st_size - self._at
        if size < 8:
            return []
        data = os.pread(fd, size, self._at)
        out: list[bytes] = []
        at = 0
        while size - at >= 8:
            end = at + 8 + int.from_bytes(data[at:at + 8], "little")
            if end > size:
                break
            out.append(data[at + 8:end])
            at = end
        self._at += at
        return out

    def rest(self) -> list[bytes] | None:
        """Once the child has written every record: those not taken yet; None if it ended
        without (it failed). Its exit is not waited for."""
        if self._process is None:
            return None
        try:
            whole = os.read(self._done, 1) == _DONE  # b"" once the child ended without it
            return self.ready() if whole else None
        finally:
            os.close(self._done)
            self._file.close()


_DONE = b"\1"


def _stream_child(fn: Callable[..., None], args: tuple[Any, ...], file: BinaryIO,
                  done: int) -> None:
    global _in_worker
    _in_worker = True

    def send(record: bytes) -> None:
        file.write(len(record).to_bytes(8, "little") + record)

    try:
        if _limits.fail:
            raise RuntimeError("made to fail")
        fn(*args, send)
        file.flush()
    except Exception:  # noqa: BLE001 - no done byte tells the parent to do the work itself
        raise SystemExit(1) from None
    os.write(done, _DONE)


def _child(fn: Callable[..., bytes], args: tuple[Any, ...], send: Any) -> None:
    global _in_worker
    _in_worker = True
    try:
        if not _limits.fail:
            send.send_bytes(fn(*args))
    except Exception:  # noqa: BLE001 - the parent sees the pipe close and does the work itself
        pass
    finally:
        send.close()


class Tickets:
    """The numbers ``0 .. n-1``, each handed out once, in order, to whichever process asks
    first: this one or a child forked after it was made (they share one pipe holding a byte
    per number; a one-byte read of a pipe is atomic). Pieces of work handed out so balance
    themselves: whoever is free takes the next, whatever each piece turns out to cost."""

    MOST = 256  # one byte per number

    def __init__(self, n: int) -> None:
        if not 0 <= n <= self.MOST:
            raise ValueError(f"{n} tickets: at most {self.MOST}")
        self._fd, write = os.pipe()
        try:
            os.write(write, bytes(range(n)))  # far below a pipe's buffer: never blocks
        finally:
            os.close(write)  # with no writer left, an empty pipe reads as the end

    def take(self) -> int | None:
        """The next number, or None when every one was taken."""
        got = os.read(self._fd, 1)
        return got[0] if got else None

    def close(self) -> None:
        os.close(self._fd)


def background(fn: Callable[..., Any], *args: Any) -> None:
    """Run ``fn(*args)`` in a forked child while this process goes on."""
    process = _context().Process(target=fn, args=args)
    process.start()
    _background.append(process)


def join_background() -> None:
    """Wait for every :func:`background` child."""
    while _background:
        _background.pop().join()


def pending_background() -> int:
    return len(_background)
