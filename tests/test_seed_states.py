"""The seeds' repository in each state gives exactly the findings marked `# expect: <rule>`.

`seed-repo/step0` is the homelab before both seed commits (the bundled `examples/` with the
markers: a test keeps the two the same), `seed-repo/step1` after the first,
`seed-repo/step2` the final reviewed state (no finding at all), `seed-repo/ingress-only` the
"ingress from a namespace whose egress forbids it" case. The expectations were written by hand
from the rules' semantics (see tests/fixtures/seed-repo/EXPECTED.md), not by running the rules.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reviewbot.config import Config, load_config_file
from reviewbot.engine.options import check_options
from reviewbot.engine.registry import all_rules

from .helpers import expected_marks, expected_pairs, kinds_hold, lint_dir

ROOT = Path(__file__).resolve().parents[1]
STATES = {
    "examples": ROOT / "tests/fixtures/seed-repo/step0",
    "step1": ROOT / "tests/fixtures/seed-repo/step1",
    "step2": ROOT / "tests/fixtures/seed-repo/step2",
    "ingress-only": ROOT / "tests/fixtures/seed-repo/ingress-only",
}
RULES = sorted(r.id for r in all_rules())


@pytest.mark.parametrize("state", sorted(STATES))
@pytest.mark.parametrize("rule", RULES)
def test_state_gives_exactly_the_marked_findings(state: str, rule: str) -> None:
    folder = STATES[state]
    result = lint_dir(folder)
    got = sorted(
        ((Path(result.model.root) / f.file).resolve().relative_to(folder).as_posix(), f.line)
        for f in result.findings if f.rule == rule
    )
    assert got == expected_pairs(folder, rule), [
        (f.file, f.line, f.message) for f in result.findings if f.rule == rule
    ]
    marks = expected_marks(folder, rule)
    config = check_options(load_config_file(folder / ".reviewbot.yaml")) if (
        folder / ".reviewbot.yaml").is_file() else Config()
    assert kinds_hold(result.findings, folder, Path(result.model.root), marks, config) == []


def test_final_state_is_clean() -> None:
    result = lint_dir(STATES["step2"])
    assert [(f.rule, f.file, f.line, f.message) for f in result.findings] == []


def test_the_bundled_examples_are_the_marked_state_without_markers() -> None:
    marked, plain = STATES["examples"], ROOT / "examples"
    files = sorted(p.relative_to(marked) for p in marked.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(plain) for p in plain.rglob("*")
                           if p.is_file() and p.name != "README.md")
    for rel in files:
        stripped = re.sub(r"[ \t]+# expect: [a-z0-9, \[\]-]+(?: \(doubted\))?$", "",
                          (marked / rel).read_text(), flags=re.M)
        assert stripped == (plain / rel).read_text(), rel
        assert "# expect:" not in (plain / rel).read_text(), rel
