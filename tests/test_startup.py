"""The start-up code cache (reviewbot/startup.py): a dataclass built from a cached text has
exactly the methods it would have compiled, and a damaged or foreign cache file is ignored."""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import CodeType

import pytest

from reviewbot import startup
from reviewbot.load.loader import PYYAML_ERRORS
from reviewbot.schema.store import kubernetes_schemas, kubernetes_versions, read_definitions

# Imports every module of the package (the rules too), then prints, for every dataclass the
# package defines, a fingerprint of each method dataclasses generated, and how many texts
# this process compiled. argv: the cache file, or "-" for none (plain dataclasses).
PROBE = r"""
import dataclasses, importlib, json, pkgutil, re, sys
from reviewbot import startup
from reviewbot.schema.store import kubernetes_schemas, kubernetes_versions
from reviewbot.schema.store import read_definitions
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
            out[f"{cls.__module__}.{cls.__qualname__}.<fields>"] = [
                [f.name, str(f.type), str(f._field_type), f.kw_only is True]
                for f in cls.__dataclass_fields__.values()]
        if (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")
                and cls.__module__ == module.__name__):  # a NamedTuple: namedtuple's eval
            out[f"{cls.__module__}.{cls.__qualname__}.__new__"] = [
                code(cls.__new__.__code__), repr(cls.__new__.__defaults__),
                [[str(n), code(t.__forward_code__)] for n, t in cls.__annotations__.items()
                 if hasattr(t, "__forward_code__")]]  # typing.ForwardRef's compile
def made_at_run_time():  # what a run derives from its input is not kept
    re.compile("reviewbot-startup-probe-[0-9]+")
    return dataclasses.make_dataclass("ProbeClass", [("probe_field", int)], frozen=True)
made_at_run_time()
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
    texts, patterns = startup.load(cache)
    assert len(texts) + len(patterns) == cold["compiled"] and texts and patterns
    assert not any("reviewbot-startup-probe" in text for text, _ in patterns)
    assert not any("probe_field" in text for text in texts)
    for text, code in texts.items():  # each entry is what exec (or eval) compiles of its text
        mode, source = ("eval", text[len(startup.EVAL):]) if text.startswith(startup.EVAL) \
            else ("exec", text)
        assert code == compile(source, "<string>", mode, dont_inherit=True), text
    assert any(text.startswith(startup.EVAL) for text in texts)  # namedtuples, ForwardRefs
    assert any(name.endswith("._Unmatched.__new__") for name in methods)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    checked = subprocess.run([sys.executable, "-c", SAME_PATTERNS, cache], capture_output=True,
                             text=True, env=env, check=True)
    assert json.loads(checked.stdout) == {"checked": len(patterns), "differ": []}


# Dataclasses whose string annotations name ClassVar, InitVar and KW_ONLY in the ways
# dataclasses tells them (bare, through their module, spaced, aliased, or not at all), made
# with or without startup.install() (argv[1]); prints each field's kind.
KINDS = r'''
import json, sys, types
from reviewbot import startup
if sys.argv[1] == "installed":
    startup.install(sys.argv[2])
source = """
from __future__ import annotations
import dataclasses, typing
import typing as t
from dataclasses import KW_ONLY, InitVar, dataclass, field
from typing import ClassVar
CV = ClassVar
@dataclass
class Base:
    a: int
    b: ClassVar[int] = 1
    c: typing.ClassVar = 2
    d:  t . ClassVar[str] = "x"
    e: CV = 3
    f: InitVar[int] = 0
    g: dataclasses.InitVar[str] = ""
    h: "ClassVar" = 4
    i: tuple[str, ...] = ()
    j: int | None = None
@dataclass(eq=False)
class Later(Base):
    _: KW_ONLY
    k: str = "k"
    m: "(int)" = 0
    n: Classvar = 0
"""
module = types.ModuleType("kinds_probe")
sys.modules["kinds_probe"] = module
exec(compile(source, "kinds_probe.py", "exec"), module.__dict__)
print(json.dumps({c.__name__: [[f.name, str(f._field_type), f.kw_only is True]
                               for f in c.__dataclass_fields__.values()]
                  for c in (module.Base, module.Later)}))
'''


def test_dataclasses_tell_field_kinds_through_the_type_test_as_without(
        tmp_path: Path) -> None:
    """:func:`startup.type_test` answers what ``dataclasses._is_type`` answers, for every
    text, class module and marker, the second time from the names it kept; dataclasses
    whose annotations name ClassVar, InitVar and KW_ONLY (and names like them) get the same
    fields with it as without it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cache = str(tmp_path / "kinds.codes")
    kinds = [json.loads(subprocess.run([sys.executable, "-c", KINDS, how, cache],
                                       capture_output=True, text=True, env=env,
                                       check=True).stdout) for how in ("plain", "installed")]
    assert kinds[0] == kinds[1]
    fields = {name: kind for name, kind, _ in kinds[0]["Base"]}
    assert [fields[n] for n in "bcde"] == ["_FIELD_CLASSVAR"] * 4
    assert [fields[n] for n in "fg"] == ["_FIELD_INITVAR"] * 2
    assert [fields[n] for n in "ahij"] == ["_FIELD"] * 4  # h: the text "'ClassVar'"
    later = {name: kw for name, _, kw in kinds[0]["Later"]}
    assert "_" not in later and later["k"] is later["m"] is later["n"] is True

    import dataclasses
    import types
    import typing

    original = startup._original_is_type()
    assert original.__module__ == "dataclasses" and original.__name__ == "_is_type"
    pattern = re.compile(r"^(?:\s*(\w+)\s*\.)?\s*(\w+)")
    fast = startup.type_test(pattern)
    module = types.ModuleType("type_test_probe")
    module.__dict__.update(ClassVar=typing.ClassVar, CV=typing.ClassVar, t=typing, dc=dataclasses,
                           InitVar=dataclasses.InitVar, KW_ONLY=dataclasses.KW_ONLY,
                           typing=dataclasses, Lookalike=int)
    sys.modules[module.__name__] = module
    try:
        cls = type("Probe", (), {"__module__": module.__name__})
        markers = [(typing, typing.ClassVar, dataclasses._is_classvar),  # type: ignore[attr-defined]
                   (dataclasses, dataclasses.InitVar, dataclasses._is_initvar),  # type: ignore[attr-defined]
                   (dataclasses, dataclasses.KW_ONLY, dataclasses._is_kw_only)]  # type: ignore[attr-defined]
        texts = ["int", " t . ClassVar[str]", "typing.ClassVar", "ClassVar", "CV", "InitVar[int]",
                 "dc.InitVar", "dc . KW_ONLY", "KW_ONLY", "typing.KW_ONLY", "Lookalike",
                 "1nvalid", "", "(x)", "a.b.c", "t.InitVar", "ClassVar[int] | None", "Nowhere"]
        asked = 0
        for _ in range(2):  # the second round from the kept names
            for text in texts:
                for a_module, a_type, predicate in markers:
                    assert fast(text, cls, a_module, a_type, predicate) is \
                        original(text, cls, a_module, a_type, predicate), (text, a_type)
                    asked += original(text, cls, a_module, a_type, predicate)
        # ClassVar 4 ways (t., bare, CV, subscripted), InitVar 2 (bare, dc.), KW_ONLY 3 (bare,
        # dc., and typing. here naming dataclasses); a text through the wrong module never
        assert asked == 2 * 9
    finally:
        del sys.modules[module.__name__]


# In a process without the cache: each pattern a cache entry builds equals the one re
# compiles (a pattern's equality compares its flags, text and matching code), with the
# same groups.
SAME_PATTERNS = r"""
import json, re, sys
from reviewbot import startup
from reviewbot.schema.store import kubernetes_schemas, kubernetes_versions
from reviewbot.schema.store import read_definitions
_, patterns = startup.load(sys.argv[1])
differ = []
for (text, flags), args in patterns.items():
    mine, theirs = startup.built(args), re._compiler.compile(text, flags)
    if (mine != theirs or mine.groups != theirs.groups
            or mine.groupindex != theirs.groupindex):
        differ.append([text, flags])
print(json.dumps({"checked": len(patterns), "differ": differ}))
"""


def test_a_damaged_or_foreign_cache_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "startup.codes"
    nothing: tuple[dict[object, object], dict[object, object]] = ({}, {})
    assert startup.load(str(path)) == nothing  # missing
    path.write_bytes(b"")
    assert startup.load(str(path)) == nothing
    code = compile("x = 1", "<string>", "exec")
    args: tuple[object, ...] = ("a+", 32, [1, 2], 0, {}, (None,))
    body = marshal.dumps(({"x = 1": code}, {("a+", 0): args}))
    path.write_bytes(b"\0\0\0\0" + body)  # another interpreter's magic number
    assert startup.load(str(path)) == nothing
    header = startup.header()
    path.write_bytes(header + body[: len(body) // 2])  # cut short
    assert startup.load(str(path)) == nothing
    path.write_bytes(header + marshal.dumps({"x = 1": code}))  # not the two tables
    assert startup.load(str(path)) == nothing
    path.write_bytes(header + marshal.dumps(({"x = 1": "not code", 2: code},
                                             {("b", 0): args, "a+": args})))
    assert startup.load(str(path)) == nothing  # wrong types; a pattern under another text
    path.write_bytes(header + body)
    texts, patterns = startup.load(str(path))
    assert list(texts) == ["x = 1"] and isinstance(texts["x = 1"], CodeType)
    assert patterns == {("a+", 0): args}


def test_a_derived_value_is_made_once_per_file_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    source = tmp_path / "source.json"
    source.write_text("[1]")
    made: list[object] = []

    def build() -> list[int]:
        value = [len(made), *json.loads(source.read_text())]
        made.append(value)
        return value

    name = f"test-derived-{os.getpid()}"
    kept = Path(startup.__file__).parent / "__pycache__" / \
        f"{name}.{sys.implementation.cache_tag}.data"
    try:
        assert startup.derived(name, str(source), build) == [0, 1]
        assert kept.is_file()
        assert startup.derived(name, str(source), build) == [0, 1]  # read back, not made
        assert len(made) == 1
        source.write_text("[1, 2]")  # another size: made again
        assert startup.derived(name, str(source), build) == [1, 1, 2]
        kept.write_bytes(b"damaged")
        assert startup.derived(name, str(source), build) == [2, 1, 2]
        assert startup.derived(name, str(source), build) == [2, 1, 2]
        assert len(made) == 3
    finally:
        kept.unlink(missing_ok=True)


def test_the_kubernetes_definitions_read_back_as_json_reads_them() -> None:
    """The schema store's definitions come from the per-installation copy: the same
    values, in the same order, as ``_definitions.json``, and the same kinds index."""
    spec = importlib.util.find_spec("kubernetes_validate")
    assert spec is not None and spec.submodule_search_locations
    root = Path(next(iter(spec.submodule_search_locations))) / "kubernetes-json-schema"
    for version in (kubernetes_versions()[0], kubernetes_versions()[-1]):
        path = root / f"v{version}.0-local-strict" / "_definitions.json"
        expected = json.loads(path.read_text(encoding="utf-8"))["$defs"]
        blobs, index, groups = startup.derived(
            f"k8s-definitions-{version}", str(path), lambda p=path: read_definitions(p))
        read = {name: marshal.loads(blob) for name, blob in blobs.items()}
        assert list(read) == list(expected) and read == expected
        assert all(json.dumps(read[n]) == json.dumps(expected[n]) for n in expected)
        schemas = kubernetes_schemas(version)
        assert dict(schemas.index) == index and schemas.groups == frozenset(groups)
        assert ("apps", "v1", "Deployment") in schemas.index and "" in schemas.groups
        assert list(schemas.raw) == list(expected) and len(schemas.raw) == len(expected)


# A class without a docstring made with inspect deferred and without: dataclasses writes its
# __doc__ from inspect.signature, which imports inspect then; argv: "defer" or "plain".
DEFERRED = r"""
import json, sys
from reviewbot import startup
if sys.argv[1] == "defer":
    startup.defer("inspect")
import inspect
stood_in = type(sys.modules["inspect"]) is startup.Deferred and "ast" not in sys.modules
import dataclasses
before = type(sys.modules["inspect"]).__name__
@dataclasses.dataclass(frozen=True)
class Docless:
    size: int
    name: str = "a"
    tags: tuple = ()
print(json.dumps({"stood_in": stood_in, "before": before, "doc": Docless.__doc__,
                  "after": type(sys.modules["inspect"]).__name__,
                  "same": inspect.signature is sys.modules["inspect"].signature,
                  "file": inspect.__file__ == sys.modules["inspect"].__file__}))
"""


def test_a_deferred_module_is_imported_when_first_read_and_is_then_the_module() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = {how: json.loads(subprocess.run([sys.executable, "-c", DEFERRED, how],
                                           capture_output=True, text=True, env=env,
                                           check=True).stdout)
            for how in ("defer", "plain")}
    deferred, plain = runs["defer"], runs["plain"]
    assert deferred["stood_in"] and deferred["before"] == "Deferred"
    assert not plain["stood_in"] and plain["before"] == "module"
    assert deferred["doc"] == plain["doc"] == \
        "Docless(size: int, name: str = 'a', tags: tuple = ())"
    assert deferred["after"] == plain["after"] == "module"
    assert deferred["same"] and deferred["file"]


def test_every_dataclass_of_the_package_says_what_it_is() -> None:
    """A dataclass without a docstring gets one written from ``inspect.signature``, which
    would import ``inspect`` (deferred at start: 9% of a small lint) in every run."""
    import dataclasses
    import pkgutil

    import reviewbot
    import reviewbot.rules

    names = sorted(m.name for p in (reviewbot, reviewbot.rules)
                   for m in pkgutil.walk_packages(p.__path__, p.__name__ + "."))
    docless = []
    for name in names:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) \
                    and value.__module__ == name and "__doc__" in vars(value) \
                    and (value.__doc__ or "").startswith(f"{value.__name__}("):
                docless.append(f"{name}.{value.__qualname__}")
    assert docless == []


def test_a_lint_never_imports_the_deferred_modules(tmp_path: Path) -> None:
    """The example tree (Flux, kustomize, Helm values, NetworkPolicies), a copy outside git,
    linted to JSON: ``inspect`` and the other deferred modules stay deferred, so no lint
    pays for them (a module the interpreter's start imported already, as an editable
    install's finder imports ``ipaddress`` with ``pathlib``, is not deferred: the lint did
    not import it)."""
    examples = tmp_path / "k8s"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / "k8s", examples)
    probe = ("import io, json, sys\n"
             "from reviewbot.startup import DEFERRED\n"
             "before = {n for n in DEFERRED if n in sys.modules}\n"
             "from reviewbot.cli import main\n"
             "from reviewbot import startup\n"
             f"main(['lint', {str(examples)!r}, '--format', 'json', '--output', "
             f"{str(tmp_path / 'out.json')!r}])\n"
             "print(json.dumps([[n in before or type(sys.modules.get(n)) is startup.Deferred"
             " for n in startup.DEFERRED], 'ast' in sys.modules]))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == \
        [[True] * len(startup.DEFERRED), False]
    assert json.loads((tmp_path / "out.json").read_text())["findings"]


def test_a_lint_never_imports_what_only_other_commands_run(tmp_path: Path) -> None:
    """The example tree linted to JSON imports neither ``threading`` (the start-up cache's
    lock is a ``_thread`` lock; only the forges' retries use threads) nor change-safety's
    verdicts (``rules/_change_safety``: the rule judges changes only, in a review or a
    diff), and ``shutil``'s compression modules stay deferred."""
    examples = tmp_path / "k8s"
    shutil.copytree(Path(__file__).resolve().parent.parent / "examples" / "k8s", examples)
    probe = ("import json, sys\n"
             "from reviewbot.cli import main\n"
             f"main(['lint', {str(examples)!r}, '--format', 'json', '--output', "
             f"{str(tmp_path / 'out.json')!r}])\n"
             "print(json.dumps(sorted(n for n in sys.modules if n == 'threading' or "
             "n.startswith('reviewbot.rules._change_safety') or (n in ('zlib', 'bz2', 'lzma') "
             "and type(sys.modules[n]).__name__ != 'Deferred'))))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
    assert json.loads((tmp_path / "out.json").read_text())["findings"]


def test_a_lint_that_hashes_nothing_never_imports_hashlib(tmp_path: Path) -> None:
    """A hash (``hashlib``, or Python's own SHA code for the first bytes a run hashes:
    :func:`startup.digest`) is imported by what hashes: a blob id asked for, a generator's
    name suffix, a cache. A lint of a tree outside git with a Flux Kustomization that sets a
    target namespace (its wrapper's stand-in document) and a kustomization with an inline
    patch, without ``--cache``, hashes nothing; the same tree with a configMapGenerator does,
    and never loads OpenSSL (``_hashlib``: 11.7M instructions) for its few bytes."""
    tree = tmp_path / "k8s"
    (tree / "apps").mkdir(parents=True)
    (tree / "infra").mkdir()
    (tree / "flux.yaml").write_text(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
        "metadata: {name: apps, namespace: flux-system}\nspec: {path: ./apps, prune: true}\n"
        "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
        "metadata: {name: infra, namespace: flux-system}\n"
        "spec: {path: ./infra, prune: true, targetNamespace: infra}\n")
    (tree / "infra" / "ns.yaml").write_text("apiVersion: v1\nkind: Namespace\n"
                                            "metadata: {name: infra}\n")
    (tree / "apps" / "kustomization.yaml").write_text(
        "resources: [web.yaml]\npatches:\n  - target: {kind: Deployment}\n    patch: |\n"
        "      - op: add\n        path: /metadata/labels\n        value: {a: b}\n")
    (tree / "apps" / "web.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
        "  template:\n    spec:\n      containers: [{name: web, image: nginx:latest}]\n")
    probe = ("import json, sys\n"
             "from reviewbot.cli import main\n"
             "main(['lint', sys.argv[1], '--format', 'json', '--output', sys.argv[2]])\n"
             "print(json.dumps([sorted(set(sys.modules) & {'hashlib', '_sha1', '_sha256', "
             "'_sha2'}), '_hashlib' in sys.modules]))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def hashes() -> list[object]:
        done = subprocess.run([sys.executable, "-c", probe, str(tree), str(tmp_path / "o.json")],
                              capture_output=True, text=True, env=env, cwd=tmp_path)
        assert json.loads((tmp_path / "o.json").read_text())["findings"], done.stderr
        return list(json.loads(done.stdout.strip().splitlines()[-1]))

    assert hashes() == [[], False]
    (tree / "apps" / "kustomization.yaml").write_text(
        "resources: [web.yaml]\nconfigMapGenerator:\n  - name: conf\n    literals: [a=b]\n")
    made, openssl = hashes()
    assert made and not openssl


# Digests of a range of sizes through startup.digest, each with whether OpenSSL was loaded
# before it, then hashlib's digests of the same bytes; argv[1] "first": hashlib imported
# before any.
DIGESTS = r"""
import json, sys
if sys.argv[1] == "first":
    import hashlib
from reviewbot import startup
sizes = [0, 1, 55, 56, 64, 1000, 70_000, 300_000, 600_000]
made = []
for size in sizes:
    data = bytes((i * 7 + size) % 256 for i in range(size))
    for name in ("sha1", "sha256"):
        openssl = "_hashlib" in sys.modules
        made.append([size, name, startup.digest(name, data).hexdigest(), openssl])
import hashlib
print(json.dumps([[size, name, hexdigest == hashlib.new(
    name, bytes((i * 7 + size) % 256 for i in range(size))).hexdigest(), openssl]
                  for size, name, hexdigest, openssl in made]))
"""


def test_a_digest_is_hashlibs_whichever_code_makes_it() -> None:
    """:func:`startup.digest` gives hashlib's digest for every size, from Python's own SHA
    code for the first :data:`startup.BUILTIN_HASH_BYTES` a process hashes and from OpenSSL
    after (a run that hashes much takes the faster code), or throughout once it is loaded."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    rows = json.loads(subprocess.run([sys.executable, "-c", DIGESTS, "later"],
                                     capture_output=True, text=True, env=env,
                                     check=True).stdout)
    assert all(same for _, _, same, _ in rows) and len(rows) == 18
    assert [openssl for size, _, _, openssl in rows if size <= 70_000] == [False] * 14
    assert rows[-1][3] is True  # past half a megabyte: OpenSSL's code
    rows = json.loads(subprocess.run([sys.executable, "-c", DIGESTS, "first"],
                                     capture_output=True, text=True, env=env,
                                     check=True).stdout)
    assert all(same and openssl for _, _, same, openssl in rows)


def test_importing_the_cli_leaves_the_collector_as_it_found_it() -> None:
    """The cyclic collector waits while ``cli`` imports its modules, and is on again after
    (off again when it was off before)."""
    probe = ("import gc, sys\n"
             "if sys.argv[1] == 'off':\n"
             "    gc.disable()\n"
             "import reviewbot.cli\n"
             "print(gc.isenabled())\n")
    seen = [subprocess.run([sys.executable, "-c", probe, how], capture_output=True, text=True,
                           check=True).stdout.strip() for how in ("on", "off")]
    assert seen == ["True", "False"]


# The package's names after a parse, then after ``import yaml`` asked it for one; argv:
# "loader" (the loader imported PyYAML's parts first) or "plain" (imported as usual).
UNRUN = r"""
import json, sys
if sys.argv[1] == "loader":
    from reviewbot.load.loader import load
    from reviewbot.sources.tree import FileRecord
    load(FileRecord("a.yaml", "b", b"a: [1, 2]\n"))
parsed = {"loaded": "yaml.loader" in sys.modules, "kind": type(sys.modules["yaml"]).__name__
          if "yaml" in sys.modules else None, "parts": {
              m: type(sys.modules[m]).__name__ for m in sys.modules if m.startswith("yaml.")}}
import yaml
import yaml._yaml
errors = {}
for name in sorted(n for n in vars(yaml._yaml) if n.endswith("Error")):
    cls = getattr(yaml._yaml, name)
    module = sys.modules[cls.__module__]
    errors[name] = {"same": getattr(module, name) is vars(yaml).get(name, cls) is cls,
                    "made": [cls.__module__, cls.__qualname__, cls.__doc__, sorted(vars(cls)),
                             [c.__qualname__ for c in cls.__mro__]]}
try:
    yaml.safe_load("a: [1")
except yaml.parser.ParserError as exc:
    errors["raised"] = type(exc).__qualname__
print(json.dumps({**parsed, "dumped": yaml.safe_dump(yaml.safe_load("a: [1, 2]")),
                  "kind_after": type(yaml).__name__, "libyaml": yaml.__with_libyaml__,
                  "names": sorted(vars(yaml)), "modules": sorted(
                      m for m in sys.modules if m == "yaml" or m.startswith("yaml.")),
                  "module_kinds": sorted({type(m).__name__ for n, m in sys.modules.items()
                                          if n.startswith("yaml.")}),
                  "errors": errors}))
"""


def test_pyyaml_imported_in_parts_is_all_of_pyyaml_when_asked_for() -> None:
    """The loader imports the modules of PyYAML its C wrapper reads, not the package's
    ``__init__`` (the loaders and dumpers: no parse uses them); a later ``import yaml`` that
    reads a name gets PyYAML exactly as a plain import makes it: the same names, the same
    modules, libyaml's C variants, the same results."""
    runs = {how: json.loads(subprocess.run([sys.executable, "-c", UNRUN, how],
                                           capture_output=True, text=True,
                                           check=True).stdout.splitlines()[-1])
            for how in ("loader", "plain")}
    loader, plain = runs["loader"], runs["plain"]
    assert loader["kind"] == "Unrun" and not loader["loaded"]
    assert loader["kind_after"] == plain["kind_after"] == "module"
    assert loader["libyaml"] is plain["libyaml"] is True
    for key in ("dumped", "names", "modules", "module_kinds", "errors"):
        assert loader[key] == plain[key], key
    assert plain["module_kinds"] == ["module"]
    assert len(plain["errors"]) == 10 and plain["errors"].pop("raised") == "ParserError"
    assert all(error["same"] for error in plain["errors"].values())


def test_a_parse_runs_only_the_pyyaml_modules_it_reads() -> None:
    """A parse runs none of PyYAML's pure scanner, parser, composer, constructor, emitter,
    serializer and representer: each stands in holding the error class the C wrapper reads
    (made as the module makes it: the test above compares them, after ``import yaml`` ran
    the modules, with a plain import's, and checks they are the classes the modules and the
    wrapper share)."""
    loader = json.loads(subprocess.run([sys.executable, "-c", UNRUN, "loader"],
                                       capture_output=True, text=True,
                                       check=True).stdout.splitlines()[-1])
    stood = {f"yaml.{part}" for part in PYYAML_ERRORS}
    assert {m for m, kind in loader["parts"].items() if kind == "Standin"} == stood
    assert all(kind == "module" for m, kind in loader["parts"].items() if m not in stood)
