"""Work in forked processes: the only module that forks a process to share reviewbot's work.

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
  rules of the 20k-object tree), and the parent goes on meanwhile. A child ended is reaped
  at the next fork; at exit every child is (one whose work was never taken is killed first),
  so its CPU time counts in this process's, as ``time`` and the benchmark read it.
- :func:`background` starts a child nobody waits for until :func:`join_background`.
- :class:`Tickets` hands out the pieces of a piece of work one at a time to whichever
  process asks first, this one or its forked children: the work balances itself.

:class:`Limits` say when forking pays and :func:`workers` decides it, the one place that
does. :func:`override` is the seam tests use to take the parallel paths on small inputs (or
to make every worker fail), instead of patching names.
An equivalence test runs each parallel path against its sequential twin.

A child is a plain :func:`os.fork` that ends with :func:`os._exit` (0 when its function
returned, 1 when it raised): it runs nothing of the parent's at its end (no ``atexit``, no
flush of buffers it inherited). :mod:`multiprocessing` did the same for a fork and cost
every forking run its import (21 modules, 9-13 ms) and :mod:`tempfile`'s (a Stream's file
is an anonymous ``memfd`` where the system has one).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from typing import IO, Any


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
_children: dict[int, bool] = {}  # Worker and Stream children not reaped yet: work taken?
_background: list[int] = []  # background children, waited for by join_background
_exit_hook = False


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


def _fork(body: Callable[[], object]) -> int:
    """Run ``body()`` in a forked child, which then ends; the child's pid. The children
    that ended since the last fork are reaped first."""
    global _exit_hook
    _reap()
    if not _exit_hook:
        import atexit

        atexit.register(_at_exit)
        _exit_hook = True
    pid = os.fork()
    if pid == 0:  # the child: it does its share sequentially and forks no further
        global _in_worker
        _in_worker = True
        _children.clear()
        _background.clear()
        code = 1
        try:
            body()
            code = 0
        except BaseException:  # noqa: BLE001, S110 - the parent sees nothing sent: its fallback runs
            pass
        finally:
            os._exit(code)
    return pid


def _reap() -> None:
    """Reap the Worker and Stream children that have ended (never waits)."""
    for pid in list(_children):
        try:
            done = os.waitpid(pid, os.WNOHANG)[0] != 0
        except ChildProcessError:  # reaped by someone else
            done = True
        if done:
            del _children[pid]


def _at_exit() -> None:
    """At this process's exit: children whose work was never taken (a caller that failed
    before asking) are killed; every child is waited for (reaped here, its CPU time counts
    in this process's, as ``time`` and the benchmark measure it)."""
    import signal

    for pid, taken in _children.items():
        if not taken:
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    for pid in _children:
        with suppress(ChildProcessError):
            os.waitpid(pid, 0)
    _children.clear()
    join_background()


def _taken(pid: int) -> None:
    """The parent asks for ``pid``'s work: the child ends by itself, never killed."""
    if pid in _children:
        _children[pid] = True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exactly(fd: int, size: int) -> bytes | None:
    """``size`` bytes from ``fd``, or None if it ends before."""
    chunks: list[bytes] = []
    while size > 0:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


class Worker:
    """``fn(*args)`` in a forked child; its ``bytes`` come back through :meth:`result`."""

    def __init__(self, fn: Callable[..., bytes], *args: Any) -> None:
        self._receive, send = os.pipe()

        def child() -> None:
            os.close(self._receive)
            try:
                if not _limits.fail:
                    data = fn(*args)
                    _write_all(send, len(data).to_bytes(8, "little"))
                    _write_all(send, data)
            finally:
                os.close(send)  # the end of the pipe now, not at the end of the exit

        try:
            self._pid = _fork(child)
            _children[self._pid] = False
        finally:
            os.close(send)

    def result(self) -> bytes | None:
        """What the child sent, or None if it sent nothing (it failed, or was made to). A
        message arrives whole or not at all (its length first); the child's exit is not
        waited for."""
        _taken(self._pid)
        try:
            head = _read_exactly(self._receive, 8)
            return None if head is None else _read_exactly(
                self._receive, int.from_bytes(head, "little"))
        except OSError:
            return None
        finally:
            os.close(self._receive)


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
        self._started = False
        self._at = 0  # bytes of the file taken as records
        try:
            self._file = _temporary_file(self.BLOCK)
        except OSError:  # no temporary folder to write: no child, the caller does the work
            return
        # the child writes a byte here once every record is written; its end of the pipe
        # is closed here at once, so the read sees the end of the pipe when the child exits
        # without that byte (and no later child inherits it)
        self._done, done = os.pipe()
        try:
            self._pid = _fork(lambda: _stream_child(fn, args, self._file, done))
            _children[self._pid] = False
            self._started = True
        finally:
            os.close(done)

    def ready(self) -> list[bytes]:
        """The records written whole since the last call, in order (none without a child).
        Read with ``pread``: the file's offset is the writing child's."""
        if not self._started or self._file.closed:
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
        if not self._started:
            return None
        _taken(self._pid)
        try:
            whole = os.read(self._done, 1) == _DONE  # b"" once the child ended without it
            return self.ready() if whole else None
        finally:
            os.close(self._done)
            self._file.close()


_DONE = b"\1"


def _temporary_file(buffering: int) -> IO[bytes]:
    """An anonymous file (a ``memfd``; where the system has none, :mod:`tempfile`'s)."""
    if hasattr(os, "memfd_create"):
        try:
            return open(os.memfd_create("reviewbot-stream", os.MFD_CLOEXEC), "w+b",  # noqa: SIM115
                        buffering=buffering)
        except OSError:
            pass
    import tempfile

    return tempfile.TemporaryFile(buffering=buffering)  # noqa: SIM115 - closed by rest()


def _stream_child(fn: Callable[..., None], args: tuple[Any, ...], file: IO[bytes],
                  done: int) -> None:
    def send(record: bytes) -> None:
        file.write(len(record).to_bytes(8, "little"))
        file.write(record)

    if _limits.fail:
        raise RuntimeError("made to fail")
    fn(*args, send)
    file.flush()
    os.write(done, _DONE)


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
    _background.append(_fork(lambda: fn(*args)))


def join_background() -> None:
    """Wait for every :func:`background` child."""
    while _background:
        with suppress(ChildProcessError):
            os.waitpid(_background.pop(), 0)


def pending_background() -> int:
    return len(_background)
