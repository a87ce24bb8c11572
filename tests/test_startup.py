"""The start-up code cache (reviewbot/startup.py): a dataclass built from a cached text has
exactly the methods it would have compiled, and a damaged or foreign cache file is ignored."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path
from types import CodeType

from reviewbot import startup

# Imports every module of the package (the rules too), then prints, for every dataclass the
# package defines, a fingerprint of each method dataclasses generated, and how many texts
# this process compiled. argv: the cache file, or "-" for none (plain dataclasses).
PROBE = r"""
import dataclasses, importlib, json, pkgutil, sys
from reviewbot import startup
if sys.argv[1] != "-":
    startup.install(sys.argv[1])
import reviewbot, reviewbot.rules
names = sorted(m.name for p in (reviewbot, reviewbot.rules)
               for m in pkgutil.walk_packages(p.__path__, p.__name__ + "."))
modules = [importlib.import_module(n) for n in names]

def code(c):
    return [c.co_name, c.co_qualname, c.co_argcount, c.co_posonlyargcount,
            c.co_kwonlyargcount, c.co_flags, c.co_code.hex(), c.co_names, c.co_varnames,
            c.co_freevars, c.co_cellvars, c.co_linetable.hex(), c.co_exceptiontable.hex(),
            c.co_stacksize,
            [code(k) if hasattr(k, "co_code") else repr(k) for k in c.co_consts]]

out = {}
for module in modules:
    for cls in vars(module).values():
        if (isinstance(cls, type) and dataclasses.is_dataclass(cls)
                and cls.__module__ == module.__name__):
            for name, fn in sorted(vars(cls).items()):
                if getattr(fn, "__code__", None) is not None \
                        and fn.__code__.co_filename == "<string>":
                    out[f"{cls.__module__}.{cls.__qualname__}.{name}"] = [
                        code(fn.__code__), repr(fn.__defaults__), repr(fn.__kwdefaults__),
                        sorted(map(str, fn.__annotations__.items()))]
compiled = startup.compiled_since_saved()
sys.dont_write_bytecode = False
if sys.argv[1] != "-":
    startup.save(sys.argv[1])
print(json.dumps({"methods": out, "compiled": compiled}))
"""


def _probe(cache: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", PROBE, cache], capture_output=True,
                          text=True, env=env, check=True)
    return dict(json.loads(done.stdout))


def test_classes_built_from_the_cache_have_the_methods_dataclasses_compiles(
        tmp_path: Path) -> None:
    cache = str(tmp_path / "dataclasses.codes")
    plain = _probe("-")
    cold = _probe(cache)  # compiles every text and writes the file
    warm = _probe(cache)  # reads every text from the file
    methods = plain["methods"]
    assert isinstance(methods, dict) and "reviewbot.engine.findings.Finding.__init__" in methods
    assert cold["methods"] == methods
    assert warm["methods"] == methods
    assert warm["compiled"] == 0 and isinstance(cold["compiled"], int) and cold["compiled"] > 0
    entries = startup.load(cache)
    assert len(entries) == cold["compiled"]
    for text, code in entries.items():  # each entry is what exec compiles of its text
        assert code == compile(text, "<string>", "exec", dont_inherit=True), text


def test_a_damaged_or_foreign_cache_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "dataclasses.codes"
    assert startup.load(str(path)) == {}  # missing
    path.write_bytes(b"")
    assert startup.load(str(path)) == {}
    code = compile("x = 1", "<string>", "exec")
    body = marshal.dumps({"x = 1": code})
    path.write_bytes(b"\0\0\0\0" + body)  # another interpreter's magic number
    assert startup.load(str(path)) == {}
    header = startup.header()
    path.write_bytes(header + body[: len(body) // 2])  # cut short
    assert startup.load(str(path)) == {}
    path.write_bytes(header + marshal.dumps({"x = 1": "not code", 2: code}))
    assert startup.load(str(path)) == {}
    path.write_bytes(header + body)
    loaded = startup.load(str(path))
    assert list(loaded) == ["x = 1"] and isinstance(loaded["x = 1"], CodeType)
