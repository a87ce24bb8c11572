"""Start-up: what Python compiles at every start, compiled once per installation.

A one-file lint spent most of its CPU importing, and two kinds of work in the imports are
the same at every run: the methods ``dataclasses`` generates and the regular expressions
modules compile. Python writes each method a dataclass gets (``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, a frozen class's ``__setattr__``/``__delattr__``) as source text
and compiles it with ``exec`` when the class is created: 462 compilations for the 86
dataclasses a lint creates, 36 ms of the 140 ms it spends in the interpreter. ``re`` parses
each pattern and generates its matching code in Python: ~100 patterns, 10-17 ms. The
interpreter keeps a module's compiled code in ``__pycache__`` so that no run compiles it
twice; this does the same for those two, and nothing else.

:func:`install` routes both through one cache file beside the package's bytecode
(``__pycache__/startup.<cache tag>.codes``), read at the next start:

- ``dataclasses``' ``exec`` (looked up in its module's globals before the builtins) compiles
  a text once; the cache keeps the text's code object. So do ``collections``' ``eval`` (the
  ``__new__`` of a ``namedtuple``: ``urllib.parse`` makes six at import, a ``NamedTuple`` is
  one) and ``typing``'s ``compile`` (a ``ForwardRef``: each annotation of a ``NamedTuple``),
  in ``eval`` mode (:data:`EVAL`): 11M instructions, 3% of a one-file lint.
- ``re``'s compiler (``re._compiler.compile``, which ``re.compile`` calls on a miss of its own
  in-process cache) keeps, for a pattern and its flags, the arguments its last step gives
  ``_sre.compile`` (the final flags, the matching code, the groups), as the compiler made
  them; a cached pattern is built from exactly those.
- ``dataclasses``' test of an annotation text (is it ``ClassVar``, ``InitVar``, ``KW_ONLY``?)
  keeps what its pattern finds in a text, by text, in the process (:func:`type_test`; it
  matched ~1,500 annotation texts a start, 4.3M instructions, and went through a match
  object at each call, 3.5M more).

The same text always compiles to the same code: the cache is keyed by the whole text (or
pattern and flags), the interpreter's bytecode magic number, marshal version and
optimization level, so a class or a pattern is built from exactly what it would have
compiled. ``tests/test_startup.py`` checks every entry against a fresh compilation (a
pattern's equality compares its matching code), and the methods of every dataclass of the
package with a cold cache, a warm one and none.

The file is written as the interpreter writes bytecode: only when it is allowed to
(``sys.dont_write_bytecode``), atomically (a temporary file renamed over it), when a run
compiled something new, and never at the cost of the run (a folder it may not write to, a
damaged file, another interpreter's file: the cache is not used). It lives in the installed
package, never in a linted tree, and holds only what modules compile while they are
imported (:func:`importing`), at most :data:`MAX_ENTRIES` of each kind.
"""

from __future__ import annotations

import _sre
import _thread
import atexit
import builtins
import contextlib
import importlib
import importlib.util
import marshal
import mmap
import os
import re
import sys
import types
from collections.abc import Callable, Sequence
from types import CodeType
from typing import Any, TypeVar

#: modules imported at every start by a module that needs them only on a path a run rarely
#: takes, imported when first used instead (:func:`defer`): ``dataclasses`` imports
#: ``inspect`` (and with it ast, dis, tokenize: 9% of a small lint's instructions) to write
#: the ``__doc__`` of a class that has none, and every dataclass of the package has one;
#: jsonschema-rs imports ``email.utils``, which imports ``socket``, ``random`` and
#: ``calendar`` for functions a validation never calls (5% of a small lint); ``pathlib``
#: imports ``urllib.parse``, which imports ``ipaddress`` for URLs with a bracketed host
#: (NetworkPolicy ``ipBlock`` peers read it when a tree has them); ``subprocess`` (with
#: ``selectors`` and ``signal``), imported by the git sources and kubeconform's runner,
#: starts no process in a lint of a folder outside git without kubeconform; ``shutil``
#: (whose ``which`` finds kubeconform) imports ``zlib``, ``bz2`` and ``lzma`` only to say
#: whether it can write compressed archives, which no command asks it to; ``email.utils``
#: (jsonschema-rs reads its date parser) imports ``email.charset``, which imports the email
#: package's 26 exception classes and its quoted-printable and base64 header codecs for
#: its methods alone (1.3% of a one-file lint); ``dataclasses`` imports ``copy`` (with
#: ``weakref``) for the deep copies of ``asdict`` and ``astuple``, which no lint makes
#: (1% of a one-file lint)
DEFERRED = ("inspect", "socket", "random", "calendar", "ipaddress", "subprocess", "zlib", "bz2",
            "lzma", "email.errors", "email.quoprimime", "email.base64mime", "copy")

#: entries a table keeps at most (the package needs ~500 texts and ~150 patterns; the file
#: is read whole at every start)
MAX_ENTRIES = 2048

_codes: dict[str, CodeType] = {}
_patterns: dict[tuple[str, int], tuple[Any, ...]] = {}
_state: dict[str, Any] = {"installed": False, "new": 0}
_lock = _thread.allocate_lock()  # not threading's: a lint never imports threading
T = TypeVar("T")


def cache_file() -> str:
    """Where the compiled texts and patterns are kept: beside this package's bytecode."""
    tag = sys.implementation.cache_tag or "none"
    opt = f".opt-{sys.flags.optimize}" if sys.flags.optimize else ""
    return os.path.join(os.path.dirname(__file__), "__pycache__", f"startup.{tag}{opt}.codes")


def header() -> bytes:
    """What a cache file starts with: the interpreter's bytecode magic number and marshal
    version (a file another interpreter wrote is not read)."""
    return importlib.util.MAGIC_NUMBER + marshal.version.to_bytes(4, "little")


def importing() -> bool:
    """True while a module's top-level code runs (an import; the main script's own does not
    count): what the cache keeps is what modules define, never what a run derives from its
    input (a pattern made of a path glob, a class a function makes)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") != "__main__":
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


#: what starts the key of an expression compiled in ``eval`` mode (no source text Python
#: compiles holds a NUL character), in the table keyed by the texts ``exec`` compiles
EVAL = "\0eval\0"


def compiled(source: str, mode: str = "exec") -> CodeType:
    """``source`` as ``exec`` (``mode``: or ``eval``) compiles it when ``dataclasses`` (or
    ``collections.namedtuple``, ``typing.ForwardRef``) calls it (no ``__future__`` flag is
    inherited: those modules have none), from the cache when it is there."""
    key = source if mode == "exec" else EVAL + source
    code = _codes.get(key)
    if code is None:
        code = compile(source, "<string>", mode, dont_inherit=True)
        if len(_codes) < MAX_ENTRIES and importing():
            _codes[key] = code
            _state["new"] += 1
    return code


def compiled_since_saved() -> int:
    """How many texts and patterns this process compiled that the cache file lacks."""
    return int(_state["new"])


def _exec(source: Any, globals: Any = None, locals: Any = None) -> None:
    if type(source) is str:
        source = compiled(source)
    builtins.exec(source, globals, locals)


def _eval(source: Any, globals: Any = None, locals: Any = None) -> Any:
    """``eval`` for ``collections`` (``namedtuple`` evaluates its ``__new__``'s text)."""
    if type(source) is str:
        source = compiled(source, "eval")
    return builtins.eval(source, globals, locals)


def _compile(source: Any, filename: Any, mode: str, flags: int = 0,
             dont_inherit: bool = False, optimize: int = -1) -> Any:
    """``compile`` for ``typing`` (a ``ForwardRef`` compiles its annotation's text); the
    ``typing`` module has no ``__future__`` flag to pass on, so nothing is inherited."""
    if type(source) is str and filename == "<string>" and mode == "eval" and not flags \
            and optimize == -1:
        return compiled(source, "eval")
    return builtins.compile(source, filename, mode, flags, True, optimize)


class _Recorder:
    """``re._compiler``'s ``_sre`` while it compiles a pattern the cache lacks: the real
    module, except that the arguments of ``compile`` are kept."""

    def __init__(self, sre: Any) -> None:
        self.sre = sre
        self.args: tuple[Any, ...] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sre, name)

    def compile(self, *args: Any) -> Any:
        self.args = args
        return self.sre.compile(*args)


#: ``re.DEBUG`` as a plain int: ``int & re.DEBUG`` runs ``enum.Flag``'s ``__and__`` in Python
#: (7.7K instructions; once for every pattern a start compiles)
_DEBUG = int(re.DEBUG)


def _pattern_compiler(original: Callable[..., Any], module: Any) -> Callable[..., Any]:
    sre = module._sre

    def compile_pattern(p: Any, flags: int = 0) -> Any:
        if type(p) is not str or type(flags) is not int or flags & _DEBUG:
            return original(p, flags)
        args = _patterns.get((p, flags))
        if args is not None:
            return sre.compile(*args)
        with _lock:  # one pattern at a time through the recorder
            recorder = _Recorder(sre)
            module._sre = recorder
            try:
                pattern = original(p, flags)
            finally:
                module._sre = sre
        if recorder.args is not None and recorder.args[0] == p \
                and len(_patterns) < MAX_ENTRIES and importing():
            text, final, code, groups, groupindex, indexgroup = recorder.args
            # the opcodes are int subclasses (named constants), which marshal does not write
            _patterns[(p, flags)] = (text, int(final), [int(c) for c in code], int(groups),
                                     {str(k): int(v) for k, v in groupindex.items()},
                                     tuple(indexgroup))
            _state["new"] += 1
        return pattern

    return compile_pattern


#: what :func:`type_test` keeps of a text it has not seen
_UNSEEN = object()


def type_test(pattern: re.Pattern[str]) -> Callable[..., bool]:
    """``dataclasses._is_type`` (does a field's annotation text name ``a_type``, the
    ``ClassVar``, ``InitVar`` or ``KW_ONLY`` marker, as the class's module binds the names?)
    with the two names ``pattern`` (its ``_MODULE_IDENTIFIER_RE``) finds in a text kept by
    text. ``dataclasses`` asks it three times of every field's annotation, and the package's
    ~500 fields repeat few texts (``str``, ``int``, ``tuple[str, ...]``); what the names
    are bound to is looked up at every call, in the same namespaces, in the same order, as
    ``dataclasses`` does, without a match object's methods: a one-file lint asks 1,608 times
    and takes 4.3M instructions less than through the original with its matches kept. At most
    :data:`MAX_ENTRIES` texts are kept; a text that is no ``str`` is the original's."""
    original = _original_is_type()
    names: dict[str, Any] = {}  # text -> the two names found in it (None: no match)
    modules = sys.modules

    def is_type(annotation: Any, cls: type, a_module: Any, a_type: Any,
                is_type_predicate: Callable[[Any, Any], bool]) -> bool:
        if type(annotation) is not str:
            return bool(original(annotation, cls, a_module, a_type, is_type_predicate))
        found = names.get(annotation, _UNSEEN)
        if found is _UNSEEN:
            match = pattern.match(annotation)
            found = match.groups() if match else None
            if len(names) < MAX_ENTRIES:
                names[annotation] = found
        if found is None:
            return False
        module_name, name = found
        if not module_name:  # the class's module did ``from typing import ClassVar``
            ns = modules.get(cls.__module__).__dict__
        else:  # ``typing.ClassVar``: the module's name for a_module, then a_type's module
            module = modules.get(cls.__module__)
            if not (module and module.__dict__.get(module_name) is a_module):
                return False
            ns = modules.get(a_type.__module__).__dict__
        return bool(ns and is_type_predicate(ns.get(name), a_module))

    is_type.original = original  # type: ignore[attr-defined]
    return is_type


def _original_is_type() -> Callable[..., bool]:
    import dataclasses

    found = dataclasses._is_type  # type: ignore[attr-defined]
    return getattr(found, "original", found)


def built(args: tuple[Any, ...]) -> re.Pattern[str]:
    """The pattern a cache entry's arguments build."""
    pattern: re.Pattern[str] = _sre.compile(*args)
    return pattern


def load(path: str) -> tuple[dict[str, CodeType], dict[tuple[str, int], tuple[Any, ...]]]:
    """The texts and patterns of a cache file; none when it is missing, damaged, or from
    another interpreter."""
    try:
        tables = _marshalled(path, header())
    except (OSError, EOFError, ValueError, TypeError, BufferError):
        return {}, {}
    if not (isinstance(tables, tuple) and len(tables) == 2
            and all(isinstance(t, dict) for t in tables)):
        return {}, {}
    codes = {k: v for k, v in tables[0].items() if type(k) is str and type(v) is CodeType}
    patterns = {k: v for k, v in tables[1].items()
                if type(k) is tuple and len(k) == 2 and type(k[0]) is str
                and type(k[1]) is int and type(v) is tuple and len(v) == 6 and v[0] == k[0]}
    return codes, patterns


def save(path: str) -> None:
    """Write the entries (atomically) when this run compiled new ones and may write."""
    if not _state["new"] or sys.dont_write_bytecode:
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(header() + marshal.dumps((_codes, _patterns)))
        os.replace(tmp, path)
        _state["new"] = 0
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(tmp)


#: bytes a process hashes with Python's own SHA code before it takes OpenSSL's (:func:`digest`)
BUILTIN_HASH_BYTES = 512 * 1024
#: where Python keeps its own implementation of each hash (``_sha2`` from Python 3.12)
_BUILTIN_HASHES = {"sha1": ("_sha1",), "sha256": ("_sha256", "_sha2")}
_hashed = {"bytes": 0}


def digest(name: str, data: bytes) -> Any:
    """The hash ``name`` (``sha1`` or ``sha256``) of ``data``, as ``hashlib.new(name, data)``
    makes it: the same digest, from Python's own SHA code while the process has hashed fewer
    than :data:`BUILTIN_HASH_BYTES` that way and has not loaded OpenSSL, else from
    ``hashlib`` (OpenSSL). Loading OpenSSL costs 11.7M instructions, 1.2% of a lint of a
    repository whose ten generator files are all it hashes; Python's own code hashes 7x
    slower (250 against 1,700 MB/s here), so a run that hashes more (a parse cache's keys,
    every blob of a tree) takes OpenSSL once it has hashed half a megabyte."""
    if "_hashlib" not in sys.modules and _hashed["bytes"] + len(data) <= BUILTIN_HASH_BYTES:
        for module in _BUILTIN_HASHES.get(name, ()):
            try:
                make = getattr(importlib.import_module(module), name)
            except (ImportError, AttributeError):
                continue
            _hashed["bytes"] += len(data)
            return make(data)
    import hashlib

    return hashlib.new(name, data, usedforsecurity=False)


def _marshalled(path: str, start: bytes) -> Any:
    """The value marshalled in the file ``path`` after ``start`` (None when the file starts
    otherwise), read from the file mapped into memory: marshal copies what it makes, and
    the page cache's pages are mapped (several a fault) rather than copied into a buffer
    of fresh pages first (a lint of onedr0p's tree maps 2.6 MB of Kubernetes definitions:
    8% fewer page faults)."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped, \
            memoryview(mapped) as view:
        if view[:len(start)] != start:
            return None
        with view[len(start):] as body:
            return marshal.loads(body)


def derived(name: str, source: str, build: Callable[[], T]) -> T:
    """What ``build()`` makes of the file ``source`` (a value marshal can write), kept in
    ``__pycache__/<name>.<cache tag>.data`` beside the package's bytecode and made again
    when that file's path, size or modification time differ from the kept one's. Written
    like the code cache (atomically, not under ``PYTHONDONTWRITEBYTECODE``, never failing
    the run); a file it cannot read is made again."""
    try:
        stat = os.stat(source)
    except OSError:
        return build()  # the caller's build reports the missing file
    key = (source, stat.st_size, stat.st_mtime_ns)
    tag = sys.implementation.cache_tag or "none"
    path = os.path.join(os.path.dirname(__file__), "__pycache__", f"{name}.{tag}.data")
    start = header()
    try:
        kept = _marshalled(path, start)
        if isinstance(kept, tuple) and len(kept) == 2 and kept[0] == key:
            return kept[1]
    except (OSError, EOFError, ValueError, TypeError, BufferError):
        pass
    value = build()
    written: Any = (key, value)
    if not sys.dont_write_bytecode:
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(start + marshal.dumps(written))
            os.replace(tmp, path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return value


class Deferred(types.ModuleType):
    """A module imported when one of its attributes is first read (:func:`defer`): it stands
    in ``sys.modules`` with the module's spec, so ``import name`` finds it without running
    the module; the first attribute asked for imports the module itself (which then takes
    its place in ``sys.modules``), and every attribute is read from that module."""

    def __getattr__(self, attr: str) -> Any:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        return getattr(importlib.import_module(name), attr)


def defer(name: str) -> None:
    """Import module ``name`` when it is first used (:class:`Deferred`): ``import name``
    costs nothing until an attribute of it is read, and the module is then exactly what
    importing it makes. Nothing changes for a module already imported or one that cannot be
    found."""
    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return
    if spec is None or spec.loader is None:
        return
    module = Deferred(name)
    module.__spec__ = spec
    module.__loader__ = spec.loader
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:  # as an import binds a submodule to its package
        setattr(sys.modules[parent], child, module)


class Unrun(types.ModuleType):
    """A package in ``sys.modules`` whose ``__init__`` has not run (:func:`submodules`): its
    submodules import as usual (the spec gives its path); the first name read that it does
    not hold runs the ``__init__``, and it is then the package as importing it makes it."""

    def __getattr__(self, name: str) -> Any:
        self.__class__ = types.ModuleType  # type: ignore[assignment]
        spec = self.__spec__
        assert spec is not None and spec.loader is not None
        spec.loader.exec_module(self)
        return getattr(self, name)


def submodules(package: str, names: Sequence[str]) -> None:
    """Import the submodules ``names`` of ``package`` without running the package's
    ``__init__`` (:class:`Unrun`: it runs when a name of its own is first read, so anyone
    else importing ``package`` gets all of it). A package imported already, or one that
    cannot be found, is imported as usual."""
    if package not in sys.modules:
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.loader is not None \
                and spec.submodule_search_locations is not None:
            module = importlib.util.module_from_spec(spec)
            module.__class__ = Unrun
            sys.modules[package] = module
    for name in names:
        importlib.import_module(f"{package}.{name}")


class Standin(types.ModuleType):
    """A module in ``sys.modules`` that holds only some of its names, made before it runs
    (:func:`standin`): ``from module import Name`` of one of them costs nothing; the first
    other name read runs the module in it, as importing it would, and then puts back the
    names it held, so whoever took one and whoever reads the module later share one object."""

    def __getattr__(self, name: str) -> Any:
        if name == "__path__":  # asked by ``from module import ...``: a module is no package
            raise AttributeError(name)
        held = _HELD.pop(self.__name__, {})
        self.__class__ = types.ModuleType  # type: ignore[assignment]
        spec = self.__spec__
        assert spec is not None and spec.loader is not None
        spec.loader.exec_module(self)
        vars(self).update(held)
        return getattr(self, name)


def standin(name: str, held: dict[str, Any]) -> None:
    """Put module ``name`` in ``sys.modules`` holding only ``held`` (:class:`Standin`: it runs
    when another of its names is first read), unless it is imported already or cannot be
    found. ``held`` must be what the module itself defines under those names (a test
    compares them with what running the module makes)."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    module.__class__ = Standin
    vars(module).update(held)
    _HELD[name] = dict(held)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:  # as an import binds a submodule to its package
        setattr(sys.modules[parent], child, module)


_HELD: dict[str, dict[str, Any]] = {}  # what each Standin holds, by module name


def install(path: str | None = None) -> None:
    """Route ``dataclasses``' and ``re``'s compilations through the cache file ``path``
    (default :func:`cache_file`), once per process; the file is written at exit if the run
    compiled something new. The :data:`DEFERRED` modules are imported when first used;
    ``dataclasses`` tests annotation texts through :func:`type_test`."""
    if _state["installed"]:
        return
    _state["installed"] = True
    for name in DEFERRED:
        defer(name)
    path = path or cache_file()
    codes, patterns = load(path)
    _codes.update(codes)
    _patterns.update(patterns)
    module = getattr(re, "_compiler", None)  # Python 3.11+: re._compiler.compile
    if module is not None and callable(getattr(module, "compile", None)) \
            and hasattr(module, "_sre"):
        module.compile = _pattern_compiler(module.compile, module)
    import collections
    import dataclasses  # after inspect is deferred (dataclasses imports it), and after re's
    import typing  # compiler is routed through the cache (it compiles a pattern at import)

    dataclasses.exec = _exec  # type: ignore[attr-defined]
    pattern = getattr(dataclasses, "_MODULE_IDENTIFIER_RE", None)
    if isinstance(pattern, re.Pattern) and callable(getattr(dataclasses, "_is_type", None)):
        dataclasses._is_type = type_test(pattern)  # type: ignore[attr-defined]
    collections.eval = _eval  # type: ignore[attr-defined]
    typing.compile = _compile  # type: ignore[attr-defined]
    atexit.register(save, path)
