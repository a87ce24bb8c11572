"""The documentation as a front door: the README is short and starts with the two commands,
shows the rules table the rule modules generate, and every link between the documents leads
to a file and a heading that exist (so every section moved out of the README is reachable)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reviewbot.commands.rules import rules_table
from reviewbot.engine.registry import all_rules

from .helpers import ROOT

README = ROOT / "README.md"
DOCS = sorted([README, ROOT / "CONTRIBUTING.md", ROOT / "SECURITY.md", ROOT / "CHANGELOG.md",
               ROOT / "bench" / "README.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^(```|~~~).*?^\1", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
    assert lines[:5] == [
        "# reviewbot", "", "```sh",
        "python3 -m venv .venv && .venv/bin/pip install -q -c constraints.txt -e . && "
        ".venv/bin/reviewbot lint examples/",
        "python3 -m venv .venv && .venv/bin/pip install -q -c constraints.txt -e '.[dev]' && "
        ".venv/bin/pytest"]


def test_the_readme_shows_the_generated_rules_table() -> None:
    assert "\n".join(rules_table(all_rules(), "docs/rules.md")) in README.read_text(
        encoding="utf-8")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_to_a_file_and_heading(doc: Path) -> None:
    broken = []
    text = re.sub(r"^(```|~~~).*?^\1", "", doc.read_text(encoding="utf-8"), flags=re.M | re.S)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        where = (doc.parent / path).resolve() if path else doc
        missing = not where.exists() or (
            bool(anchor) and where.suffix == ".md" and anchor not in _anchors(where))
        if missing:
            broken.append(target)
    assert broken == []


def test_every_document_is_reachable_from_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in LINK.findall(text)}
    assert [str(d.relative_to(ROOT)) for d in DOCS if d != README and d not in linked] == []
