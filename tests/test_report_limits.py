"""What reviewdog, GitHub's annotations and code scanning actually show of reviewbot's
findings: the fix in rdjson's ``message`` with UTF-8 byte columns, at most 10 annotations
per level and step with the rest counted, SARIF's column kind and base URI."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from reviewbot.engine.findings import Finding
from reviewbot.engine.outcome import Report, ReviewSummary
from reviewbot.report.github import render_github
from reviewbot.report.rdjson import byte_column, render_rdjson
from reviewbot.report.sarif import render_sarif

DATA = Path(__file__).parent / "data"
TEXT = 'metadata:\n  name: "café-𐐀"\n  labels: {tier: ü}\n'


def finding(rule: str, severity: str, line: int, column: int = 1, *, new: bool | None = None,
            fix: str = "Pin the image by digest.") -> Finding:
    return Finding(rule, severity, "k8s/app.yaml", line, column, "Deployment/apps/web",
                   f"{rule} at {line}", fix, new=new)


def test_rdjson_message_carries_the_fix() -> None:
    report = Report((finding("image-digest", "error", 2, 9),), sources={"k8s/app.yaml": TEXT})
    (diag,) = json.loads(render_rdjson(report))["diagnostics"]

    assert diag["message"] == (
        "image-digest at 2 (Deployment/apps/web). Fix: Pin the image by digest."
    )
    assert "original_output" not in diag  # reviewdog's PR reporter never shows it


def test_rdjson_columns_are_utf8_bytes() -> None:
    # line 3 "  labels: {tier: ü}": code point 18 is "ü", then "}" at 19 (byte 20)
    report = Report((finding("schema", "warning", 3, 19),), sources={"k8s/app.yaml": TEXT})
    (diag,) = json.loads(render_rdjson(report))["diagnostics"]
    assert diag["location"]["range"]["start"] == {"line": 3, "column": 20}
    # reviewdog.proto's own example: in 'a𐐀b', b is column 6
    assert byte_column("a𐐀b", 1, 3) == 6
    assert byte_column("x\nabc", 2, 3) == 3
    assert byte_column(None, 4, 7) == 7


def annotations(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("::")]


def test_github_annotations_are_capped_per_level_and_ordered() -> None:
    found = [finding("gpu-rollout", "warning", n, new=n % 2 == 0) for n in range(1, 16)]
    found += [finding("image-digest", "error", 100 + n, new=n < 3) for n in range(12)]
    found += [finding("schema", "info", 200)]
    out = render_github(Report(tuple(found), review=ReviewSummary()))
    shown = annotations(out)

    errors = [a for a in shown if a.startswith("::error ")]
    warnings = [a for a in shown if a.startswith("::warning ")]
    assert len(errors) == 10 and len(warnings) == 10  # 9 findings + the closing one
    assert shown[:3] == [a for a in errors[:3]]  # errors first
    assert [a.split("line=")[1].split(",")[0] for a in errors[:3]] == ["100", "101", "102"]
    assert "title=reviewbot::" in shown[-1] and shown[-1].startswith("::error ")
    assert "8 more finding(s) not annotated (3 errors, 5 warnings)" in shown[-1]
    # new warnings (even lines) come before existing ones
    lines = [int(a.split("line=")[1].split(",")[0]) for a in warnings[:7]]
    assert lines == [2, 4, 6, 8, 10, 12, 14]
    assert any(a.startswith("::notice ") for a in shown)
    # everything left out is still in the log, as plain lines that are no commands
    plain = [line for line in out.splitlines() if not line.startswith("::")]
    assert len(plain) == 8 and all(line.startswith("k8s/app.yaml:") for line in plain)
    assert out.rstrip("\n").splitlines()[-1] == shown[-1]


def test_github_annotations_under_the_cap_are_all_shown() -> None:
    found = tuple(finding("image-digest", "error", n) for n in range(1, 11))
    out = render_github(Report(found))
    assert len(annotations(out)) == 10 and "more finding" not in out


def test_sarif_declares_column_kind_and_base_uri() -> None:
    log = json.loads(render_sarif(Report((finding("image-digest", "error", 2, 9),))))
    schema = json.loads((DATA / "sarif-2.1.0-rtm.5.json").read_text())
    jsonschema.validate(log, schema, cls=jsonschema.Draft4Validator)
    (run,) = log["runs"]
    assert run["columnKind"] == "unicodeCodePoints"
    assert "%SRCROOT%" in run["originalUriBaseIds"]
    uri = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri["uriBaseId"] == "%SRCROOT%"
