"""Start-up: the code ``dataclasses`` generates, compiled once per installation, not per run.

Python writes each method a dataclass gets (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, and a frozen class's ``__setattr__``/``__delattr__``) as source text and
compiles it with ``exec`` when the class is created: 462 compilations for the 86 dataclasses
a lint creates, 36 ms of the 140 ms a one-file lint spends in the interpreter (measured with
``time.process_time`` around ``compile``). The interpreter keeps a module's compiled code in
``__pycache__`` so that no run compiles it twice; this does the same for those generated
texts, and nothing else.

:func:`install` gives the ``dataclasses`` module an ``exec`` of its own (its ``exec`` is
looked up in its globals before the builtins): a text compiled once is kept, with its code
object, in one file beside the package's bytecode
(``__pycache__/dataclasses.<cache tag>.codes``), read at the next start. A text always
compiles to the same code (the cache is keyed by the whole text, the interpreter's cache tag
and bytecode magic number and the optimization level), so a class is built from exactly the
code it would have compiled; ``tests/test_startup.py`` checks every entry against a fresh
compilation and the methods of every dataclass of the package with and without the cache.

The file is written as the interpreter writes bytecode: only when it is allowed to
(``sys.dont_write_bytecode``), atomically (a temporary file renamed over it), when a run
compiled something new, and never at the cost of the run (a folder it may not write to, a
damaged file: the cache is skipped). It lives in the installed package, never in a linted
tree, and holds only what this interpreter compiled from ``dataclasses``' own texts.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import dataclasses
import importlib.util
import marshal
import os
import sys
from types import CodeType
from typing import Any

#: entries kept at most (the package's dataclasses need ~500; a host process's own classes
#: could add more, and the file is read whole at every start)
MAX_ENTRIES = 4096

_codes: dict[str, CodeType] = {}
_state = {"installed": False, "new": 0}


def cache_file() -> str:
    """Where the compiled texts are kept: beside this package's bytecode."""
    tag = sys.implementation.cache_tag or "none"
    opt = f".opt-{sys.flags.optimize}" if sys.flags.optimize else ""
    return os.path.join(os.path.dirname(__file__), "__pycache__", f"dataclasses.{tag}{opt}.codes")


def header() -> bytes:
    """What a cache file starts with: the interpreter's bytecode magic number and marshal
    version (a file another interpreter wrote is not read)."""
    return importlib.util.MAGIC_NUMBER + marshal.version.to_bytes(4, "little")


def compiled(source: str) -> CodeType:
    """``source`` as ``exec`` compiles it when ``dataclasses`` calls it (no ``__future__``
    flag is inherited: the ``dataclasses`` module has none), from the cache when it is there."""
    code = _codes.get(source)
    if code is None:
        code = compile(source, "<string>", "exec", dont_inherit=True)
        if len(_codes) < MAX_ENTRIES:
            _codes[source] = code
            _state["new"] += 1
    return code


def compiled_since_saved() -> int:
    """How many texts this process compiled that the cache file does not hold yet."""
    return _state["new"]


def _exec(source: Any, globals: Any = None, locals: Any = None) -> None:
    if type(source) is str:
        source = compiled(source)
    builtins.exec(source, globals, locals)


def load(path: str) -> dict[str, CodeType]:
    """The entries of a cache file; none when it is missing, damaged, or from another
    interpreter."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return {}
    start = header()
    if not data.startswith(start):
        return {}
    try:
        entries = marshal.loads(data[len(start):])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items()
            if type(k) is str and type(v) is CodeType}


def save(path: str) -> None:
    """Write the entries (atomically) when this run compiled new ones and may write."""
    if not _state["new"] or sys.dont_write_bytecode:
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(header() + marshal.dumps(_codes))
        os.replace(tmp, path)
        _state["new"] = 0
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def install(path: str | None = None) -> None:
    """Route ``dataclasses``' compilations through the cache file ``path`` (default
    :func:`cache_file`), once per process; the file is written at exit if the run compiled
    something new."""
    if _state["installed"]:
        return
    _state["installed"] = True
    path = path or cache_file()
    _codes.update(load(path))
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(save, path)
