"""Shared test helpers: lint inline YAML or a folder, get (rule, line) pairs."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from pathlib import Path

from reviewbot.config import Config, find_config, load_config_file, parse_config
from reviewbot.engine.run import Result, analyze
from reviewbot.sources.tree import disk_tree

EXPECT = re.compile(r"#\s*expect:\s*([a-z0-9, -]+)")


def lint_dir(path: Path, only: Sequence[str] = (), config: Config | None = None) -> Result:
    root = path if path.is_dir() else path.parent
    if config is None:
        found = find_config(root, root)
        config = load_config_file(found) if found else Config()
    return analyze(disk_tree([path], root), config, only=only)


def lint_text(
    tmp_path: Path, text: str, only: Sequence[str] = (), config: str | None = None,
    name: str = "manifest.yaml",
) -> Result:
    """Lint one inline YAML file (dedented) in a fresh folder."""
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(textwrap.dedent(text).lstrip("\n"))
    cfg = parse_config(textwrap.dedent(config).encode(), ".reviewbot.yaml") if config else Config()
    return analyze(disk_tree([tmp_path], tmp_path), cfg, only=only)


def pairs(result: Result, rule: str | None = None) -> list[tuple[str, int]]:
    return sorted((f.rule, f.line) for f in result.findings if rule is None or f.rule == rule)


def expected_pairs(path: Path, rule: str) -> list[tuple[str, int]]:
    """`# expect: rule-a, rule-b` comments mark the lines where findings must be."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    out = []
    root = path if path.is_dir() else path.parent
    for file in files:
        if file.suffix not in (".yaml", ".yml"):
            continue
        for number, line in enumerate(file.read_text().splitlines(), 1):
            match = EXPECT.search(line)
            if match:
                for r in match.group(1).split(","):
                    if r.strip() == rule:
                        out.append((file.relative_to(root).as_posix(), number))
    return sorted(out)
