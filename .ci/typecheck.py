"""Type-check reviewbot as the package it is: ``.venv/bin/python .ci/typecheck.py [MYPY ARGS]``.

pyproject's ``package-dir`` maps ``reviewbot`` to ``bot/``, ``reviewbot.rules`` to ``rules/``
and ``reviewbot.schemas`` to ``schemas/``. The editable install resolves those names through
setuptools' import finder, which mypy never runs (it finds modules by path), so ``mypy bot
rules`` checked modules named ``bot.*`` and every ``from reviewbot... import`` was missing,
hence ``Any``. This builds the package as a tree of symbolic links to the clone's files
(``build/typecheck/reviewbot/``, as setuptools' strict editable mode builds one), runs mypy
on it with pyproject's ``[tool.mypy]``, and prints each path as the clone's file
(``reviewbot/rules/x.py`` -> ``rules/x.py``, ``reviewbot/x.py`` -> ``bot/x.py``). The tree
is rebuilt on every run, so a new module is checked at once; the links keep the files'
times, so mypy's cache (``.mypy_cache/``) stays warm. Exit status: mypy's.
"""

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "typecheck"


def package_dirs() -> dict[str, str]:
    """Each package name pyproject maps to a folder of the clone: ``{"reviewbot": "bot"}``."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        dirs: dict[str, str] = tomllib.load(handle)["tool"]["setuptools"]["package-dir"]
    return dirs


def build_tree(dirs: dict[str, str]) -> None:
    """A folder per mapped package holding a link to each entry of its folder in the clone,
    except the subpackages mapped elsewhere (``bot/`` has no ``rules``: ``rules/`` is)."""
    shutil.rmtree(TREE, ignore_errors=True)  # unlinks the links, never what they point at
    for name in sorted(dirs):
        folder = TREE.joinpath(*name.split("."))
        folder.mkdir(parents=True)
        mapped = {child.rpartition(".")[2] for child in dirs if child.rpartition(".")[0] == name}
        for entry in sorted((ROOT / dirs[name]).iterdir()):
            if entry.name != "__pycache__" and entry.name not in mapped:
                (folder / entry.name).symlink_to(entry)


def clone_path(line: str, dirs: dict[str, str]) -> str:
    """``reviewbot/rules/x.py:3: error`` -> ``rules/x.py:3: error`` (the longest name first)."""
    for name in sorted(dirs, key=len, reverse=True):
        prefix = name.replace(".", "/") + "/"
        if line.startswith(prefix):
            return dirs[name].rstrip("/") + "/" + line[len(prefix):]
    return line


def main() -> int:
    dirs = package_dirs()
    build_tree(dirs)
    top = sorted(name for name in dirs if "." not in name)
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
               "--cache-dir", str(ROOT / ".mypy_cache")]
    for name in top:
        command += ["-p", name]
    run = subprocess.run(command + sys.argv[1:], cwd=TREE, capture_output=True, text=True,
                         check=False)
    for line in run.stdout.splitlines():
        print(clone_path(line, dirs))
    sys.stderr.write(run.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
