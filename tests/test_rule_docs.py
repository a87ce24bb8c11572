"""Every rule module documents itself in the fixed sections, and every kind it reports."""

from __future__ import annotations

import re

import pytest

from reviewbot.commands.rules import explain
from reviewbot.engine.registry import REQUIRED_SECTIONS, Rule, all_rules, doc_sections

RULES = all_rules()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_the_docstring_has_the_fixed_sections(rule: Rule) -> None:
    sections = doc_sections(rule)
    assert [s for s in REQUIRED_SECTIONS if s not in sections] == []
    order = [s for s in sections if s]
    assert order == sorted(order, key=list(sections).index)
    for example in ("Failing example", "Passing example"):
        assert "```yaml" in sections[example], example


@pytest.mark.parametrize("rule", [r for r in RULES if r.severities], ids=lambda r: r.id)
def test_every_kind_is_documented_and_generated(rule: Rule) -> None:
    written = rule.doc
    for kind, severity in rule.severities.items():
        assert f"`{kind}`" in written, f"{rule.id}: kind {kind} is not documented"
        assert f"- `{kind}` ({severity} by default)" in doc_sections(rule)["Kinds"]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_explain_shows_the_sections_in_order(rule: Rule) -> None:
    text = explain(rule)
    heads = [h for h in re.findall(r"^([A-Z][A-Za-z ]+)(?: \(.*\))?:$", text, flags=re.M)]
    assert heads[:2] == ["What it checks", "Why"]
    assert heads.index("When it stays quiet") < heads.index("Failing example")
    if rule.options:
        assert all(f"`{o.name}`" in text for o in rule.options)
