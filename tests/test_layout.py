"""The house as the pipeline: no import cycle, packages in layers that import only downward,
argparse only in the command layer, each library wrapped by one module. Built from the
sources (every import, lazy ones and those for type checking included)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import ROOT

PACKAGES = {"bot": "reviewbot", "rules": "reviewbot.rules"}

# library -> the only modules that may import it
OWNERS = {
    "argparse": None,  # the command layer: bot/cli.py and bot/commands/
    "multiprocessing": {"reviewbot.concurrency"},
    "ruamel": {"reviewbot.load.loader", "reviewbot.load.roundtrip"},
    "yaml": {"reviewbot.load.loader"},  # PyYAML: libyaml's events for the parse
    "deepdiff": {"reviewbot.diff.objects"},
    "github": {"reviewbot.forge.github"},
    "httpx": {"reviewbot.forge.forgejo"},
    "jsonschema": {"reviewbot.schema.validate"},
    "jsonschema_rs": {"reviewbot.schema.validate"},
}


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if folder == "bot" and parts and parts[0] == "rules":
                continue
            out[".".join([package, *parts])] = path
    return out


def _imports(name: str, path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module
            for alias in node.names:  # `from reviewbot import concurrency`
                yield f"{module}.{alias.name}"


MODULES = _modules()
GRAPH = {name: {m for m in _imports(name, path) if m in MODULES and m != name}
         for name, path in MODULES.items()}


def test_the_sources_are_found() -> None:
    assert "reviewbot.cli" in MODULES and "reviewbot.rules.image_digest" in MODULES
    assert "reviewbot.engine.identity" in GRAPH["reviewbot.engine.run"] or any(
        "reviewbot.engine.identity" in deps for deps in GRAPH.values())


def test_no_import_cycle() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in GRAPH:
        if v not in index:
            visit(v)
    assert cycles == []


# The pipeline, lowest first: a package (or top-level module) imports only from its own
# layer or the ones before it. sources -> load -> model -> diff -> engine -> report -> forge
# -> commands, with the schema store beside the loader, the connectivity model (netpol) on the
# diff, the configuration just below the engine that applies it, and the rules, which the
# engine finds at run time, above it.
LAYERS: tuple[frozenset[str], ...] = tuple(frozenset(names.split()) for names in (
    "reviewbot errors escape words concurrency startup",
    "sources",
    "load",
    "schema",
    "model",
    "diff",
    "netpol",
    "config",
    "engine",
    "rules",
    "report",
    "forge",
    "output",
    "commands",
    "cli",
))


def _layer(module: str) -> int:
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else parts[0]
    return next(i for i, names in enumerate(LAYERS) if name in names)


def test_every_package_has_a_layer() -> None:
    tops = {m.split(".")[1] if "." in m else m for m in MODULES}
    assert tops - set().union(*LAYERS) == set()


def test_packages_import_only_downward() -> None:
    upward = sorted(f"{m} -> {d}" for m, deps in GRAPH.items() for d in deps
                    if _layer(d) > _layer(m))
    assert upward == []


def test_nothing_imports_the_cli() -> None:
    assert [m for m, deps in GRAPH.items() if "reviewbot.cli" in deps] == []


@pytest.mark.parametrize("library", sorted(OWNERS))
def test_each_library_has_one_wrapper(library: str) -> None:
    importers = set()
    for name, path in MODULES.items():
        for module in _imports(name, path):
            if module == library or module.startswith(library + "."):
                importers.add(name)
    allowed = OWNERS[library]
    if allowed is None:  # argparse: the command layer only
        assert {m for m in importers
                if m != "reviewbot.cli" and not m.startswith("reviewbot.commands.")} == set()
    else:
        assert importers <= allowed, f"{library} imported by {sorted(importers - allowed)}"


def test_no_test_module_imports_another() -> None:
    """Shared test code lives in helpers.py, conftest.py and the forge's fake_forge.py."""
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or "", *(a.name for a in node.names if not node.module)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if any(part.startswith("test_") for n in names for part in n.split(".")):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_no_test_patches_a_private_name() -> None:
    """Tests take the parallel paths through ``concurrency.override`` and replace public
    names only (a rule's ``check_set``, a forge factory), never a module's ``_private``."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "setattr" and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant)
                    and str(node.args[1].value).rsplit(".", 1)[-1].startswith("_")):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def _code_in_package_init(path: Path) -> list[str]:
    """What a package ``__init__.py`` holds besides its docstring and ``from __future__``
    imports (the top package may also say its ``__version__``, as a string literal)."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    out = []
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if (path == ROOT / "bot" / "__init__.py" and isinstance(node, ast.Assign)
                and [ast.unparse(t) for t in node.targets] == ["__version__"]
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            continue
        out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node).splitlines()[0]}")
    return out


def test_package_inits_hold_only_a_docstring() -> None:
    """A package's face is its docstring; the code lives in modules named for it."""
    inits = sorted(p for folder in PACKAGES for p in (ROOT / folder).rglob("__init__.py"))
    assert len(inits) >= 12 and ROOT / "bot" / "forge" / "__init__.py" in inits
    for path in inits:
        assert ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))), path
    assert [line for path in inits for line in _code_in_package_init(path)] == []
