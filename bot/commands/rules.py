"""The `rules` and `explain` commands: the rules' documentation, from their modules."""

from __future__ import annotations

import argparse
import json
from typing import Any

from reviewbot.engine.registry import Option, Rule, all_rules, doc_sections, get_rule
from reviewbot.errors import ReviewbotError
from reviewbot.output import emit


def rules_command(args: argparse.Namespace) -> int:
    rules = all_rules()
    if args.format == "json":
        text = json.dumps([_rule_json(r) for r in rules], indent=2) + "\n"
    elif args.format == "markdown":
        text = rules_markdown(rules)
    else:
        width = max(len(r.id) for r in rules)
        text = "".join(f"{r.id:<{width}}  {r.severity:<7}  {r.summary}\n" for r in rules)
    emit(text, args.output)
    return 0


def explain_command(args: argparse.Namespace) -> int:
    """``explain RULE``; a finding's check, as its JSON names it (``netpol-pairing[no-such-
    port]``) or alone (``no-such-port``), explains its rule, after a line naming the check."""
    name = str(args.rule).strip()
    rule_id, bracket, kind = name.partition("[")
    kind = kind.rstrip("]") if bracket else ""
    if not kind and name not in {r.id for r in all_rules()}:
        owners = [r for r in all_rules() if name in r.severities]
        if len(owners) == 1:
            rule_id, kind = owners[0].id, name
        elif owners:
            raise ReviewbotError(f"{name!r} is a check of several rules: "
                                 f"{', '.join(f'{r.id}[{name}]' for r in owners)}")
    rule = get_rule(rule_id)
    head = ""
    if kind:
        if kind not in rule.severities:
            known = ", ".join(rule.severities) or "none"
            raise ReviewbotError(f"rule {rule.id} has no check {kind!r}; its checks: {known}")
        said = check_paragraphs(rule, kind)
        if said:  # the check alone (a new-user trial read 200 lines to find its paragraph)
            emit(f"{rule.id}[{kind}] ({rule.severities[kind]} by default), a check of rule "
                 f"{rule.id}:\n\n" + "\n\n".join(said) + f"\n\n(reviewbot explain {rule.id} "
                 "explains the whole rule.)\n", None)
            return 0
        head = (f"{rule.id}[{kind}] ({rule.severities[kind]} by default) is a check of rule "
                f"{rule.id}, explained below.\n\n")
    emit(head + explain(rule), None)
    return 0


def check_paragraphs(rule: Rule, kind: str) -> list[str]:
    """The paragraphs of ``rule``'s documentation that a bullet for check ``kind`` opens
    (``- `no-endpoints` (warning, ...): ...``), each to the next bullet or blank line; where
    only the Kinds section's bullet opens with it, that one and the bullets that tell the
    check inside another's (new-user trial fifty: `explain patch-dropped` printed its name
    alone)."""
    sections = doc_sections(rule)
    told = [b for name, body in sections.items() if name != "Kinds"
            for b in _bullets(body, kind, opens=True)]
    if told:
        return told
    return _bullets(sections.get("Kinds", ""), kind, opens=True) + [
        b for name, body in sections.items() if name != "Kinds"
        for b in _bullets(body, kind, opens=False)]


def _bullets(body: str, kind: str, opens: bool) -> list[str]:
    """The bullets of ``body`` that check ``kind`` opens (``opens``), else that name it."""
    out: list[str] = []
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if not line.lstrip().startswith(f"- `{kind}`" if opens else "- "):
            continue
        indent = len(line) - len(line.lstrip())
        block = [line]
        for more in lines[i + 1:]:
            if not more.strip() or (more.lstrip().startswith("- ") and (
                    len(more) - len(more.lstrip()) <= indent)):
                break
            block.append(more)
        text = "\n".join(block)
        if opens or f"`{kind}`" in text:
            out.append(text)
    return out


# a docstring section as a reader finds it: the checks a rule makes (a finding's ``kind``)
HEADINGS = {"Kinds": "Checks and their default severities"}


def explain(rule: Rule) -> str:
    """``reviewbot explain RULE``: the rule's documentation, sections in their fixed order."""
    lines = [f"{rule.id} ({rule.severity})", ""]
    for name, body in doc_sections(rule).items():
        if name == "Why":
            body = f"{rule.rationale}\n\n{body}".strip()
        elif name == "Options":
            name = f"Options (.reviewbot.yaml: rules: {{{rule.id}: {{...}}}})"
        name = HEADINGS.get(name, name)
        lines += ([f"{name}:"] if name else []) + [body, ""]
        if name == "What it checks" and "Why" not in doc_sections(rule):
            lines += ["Why:", rule.rationale, ""]
    lines += [f"Fix: {rule.fix}", ""]
    return "\n".join(lines).rstrip() + "\n"


def _rule_json(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id, "severity": rule.severity, "summary": rule.summary,
        "rationale": rule.rationale, "fix": rule.fix, "kinds": list(rule.severities),
        "options": [
            {"name": o.name, "type": o.type, "default": o.default, "help": o.help,
             **({"range": o.range_text} if o.range_text else {})}
            for o in rule.options
        ],
    }


def _type_text(option: Option) -> str:
    """``number``, or ``number, >= 1`` when the option has a range."""
    return f"{option.type}, {option.range_text}" if option.range_text else option.type


def rules_table(rules: tuple[Rule, ...], page: str = "") -> list[str]:
    """The rules as a Markdown table, each id linked to its section of ``page`` (docs/rules.md;
    empty: this page); the README shows the same table."""
    return ["| id | severity | checks |", "|---|---|---|", *(
        f"| [`{r.id}`]({page}#{r.id}) | {r.severity} | {r.summary} |" for r in rules)]


def rules_markdown(rules: tuple[Rule, ...]) -> str:
    """The generated rules reference (docs/rules.md)."""
    out = ["# reviewbot rules", "", "Generated by `reviewbot rules --format markdown`.", "",
           *rules_table(rules)]
    for r in rules:
        sections = doc_sections(r)
        out += ["", f"## {r.id}", "", f"Default severity: **{r.severity}**. {r.summary}", ""]
        for name, body in sections.items():
            if not name:
                out += [body, ""] if body and body != r.summary else []
                continue
            if name == "Options":
                body = "| option | type | default | meaning |\n|---|---|---|---|\n" + "\n".join(
                    f"| `{o.name}` | {_type_text(o)} | `{o.default!r}` | {o.help} |"
                    for o in r.options)
            if name == "Why":
                body = f"{r.rationale}\n\n{body}".strip()
            out += [f"### {HEADINGS.get(name, name)}", "", body, ""]
            if name == "What it checks" and "Why" not in sections:
                out += ["### Why", "", r.rationale, ""]
        out += ["### Fix", "", r.fix]
    return "\n".join(out).rstrip() + "\n"
