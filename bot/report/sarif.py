"""``--format sarif``: SARIF 2.1.0 with exact regions and rule metadata (help text).

Columns count Unicode code points (``columnKind``: SARIF's default is UTF-16 code units,
which differ after any character outside the BMP); every ``uri`` is relative to
``%SRCROOT%``, the repository root, declared in ``originalUriBaseIds``.
"""

from __future__ import annotations

from typing import Any

from reviewbot import __version__
from reviewbot.engine.findings import sentence
from reviewbot.engine.registry import all_rules
from reviewbot.escape import json_text
from reviewbot.report.base import MAX_PER_RULE, Report, not_shown_lines
from reviewbot.sources.tree import uri_path

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def render_sarif(report: Report, color: bool = False) -> str:
    rules = list(all_rules())
    index = {r.id: i for i, r in enumerate(rules)}
    descriptors = [
        {
            "id": r.id,
            "name": "".join(part.capitalize() for part in r.id.split("-")),
            "shortDescription": {"text": r.summary},
            "fullDescription": {"text": r.rationale},
            "help": {"text": f"{r.rationale}\n\nFix: {r.fix}", "markdown": r.doc},
            "defaultConfiguration": {"level": _LEVEL[r.severity]},
            "properties": {"tags": ["kubernetes", "gitops"]},
        }
        for r in rules
    ]
    results: list[dict[str, Any]] = []
    gone = report.review.fixed if report.review is not None else ()
    fixed = set(range(len(report.findings), len(report.findings) + len(gone)))
    for n, f in enumerate((*report.findings, *gone)):
        result: dict[str, Any] = {
            "ruleId": f.rule,
            "level": _LEVEL.get(f.severity, "warning"),
            "message": {"text": f"{sentence(f.message)} Fix: {f.fix}" if f.fix else f.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": uri_path(f.file) if f.file else ".",
                                         "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": max(f.line, 1), "startColumn": max(f.column, 1)},
                },
            }],
            "partialFingerprints": {"reviewbot/v1": f.fingerprint},
            "properties": {"check": f.check},  # rule[kind], as `reviewbot explain` takes it
        }
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        if f.object:
            result["locations"][0]["logicalLocations"] = [
                {"fullyQualifiedName": f.object, "kind": "resource"}
            ]
        if report.review is not None:  # a finding the PR fixes is on the base only: absent
            result["baselineState"] = "absent" if n in fixed else (
                "new" if f.new else "updated" if f.worse else "unchanged")
        results.append(result)
    log: dict[str, Any] = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "reviewbot", "version": __version__,
                "rules": descriptors,
            }},
            "originalUriBaseIds": {"%SRCROOT%": {
                "description": {"text": "The repository root (git's top level)."},
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    if report.not_shown:  # findings past the first MAX_PER_RULE of a rule, counted by rule
        run = log["runs"][0]
        run["properties"] = {"notShown": {"limitPerRule": MAX_PER_RULE,
                                          "rules": dict(report.not_shown)}}
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [
            {"level": "note", "message": {"text": line}} for line in not_shown_lines(report)]}]
    return json_text(log) + "\n"
