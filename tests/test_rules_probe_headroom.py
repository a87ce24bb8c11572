"""probe-headroom: the budget that kills a slow boot, against the measured boot."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.rules.probe_headroom import budget

from .helpers import lint_text, pairs


def coder(boot: str, probe: str) -> str:
    return f"""
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: coder
  namespace: llm-serving
  annotations: {{reviewbot.dev/measured-boot-seconds: "{boot}"}}
spec:
  predictor:
    containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.11.0
{probe}
"""


def startup(threshold: int, period: int = 15, delay: int = 0) -> str:
    return f"""      startupProbe:
        httpGet: {{path: /health, port: 8080}}
        initialDelaySeconds: {delay}
        failureThreshold: {threshold}
        periodSeconds: {period}"""


def test_the_seed_numbers(tmp_path: Path) -> None:
    # 40 x 15 s = 600 s against a 600 s boot; 1.5 x 600 s = 900 s is the floor
    result = lint_text(tmp_path, coder("600", startup(40)), only=["probe-headroom"])
    assert pairs(result) == [("probe-headroom", 12)]
    (finding,) = result.findings
    assert finding.message == (
        "coder-predictor, container kserve-container: the startupProbe allows 600s "
        "(initialDelaySeconds 0 + failureThreshold 40 x periodSeconds 15), but the measured "
        "boot is 600s and 1.5 x 600s = 900s: a boot a little slower than the last is killed "
        "mid-way")
    assert finding.fix == "Raise failureThreshold to 60 (60 x 15s + 0s >= 900s)."
    # 60 x 15 s is exactly enough; the reviewed 120 x 15 s has room to spare
    assert pairs(lint_text(tmp_path / "a", coder("600", startup(60)),
                           only=["probe-headroom"])) == []
    assert pairs(lint_text(tmp_path / "b", coder("600", startup(120)),
                           only=["probe-headroom"])) == []


def test_initial_delay_counts_and_factor_is_an_option(tmp_path: Path) -> None:
    text = coder("600", startup(40, delay=100))  # 100 + 600 = 700 s
    assert pairs(lint_text(tmp_path, text, only=["probe-headroom"])) == [("probe-headroom", 12)]
    config = "rules:\n  probe-headroom: {factor: 1.1}\n"  # 660 s: covered
    assert pairs(lint_text(tmp_path / "c", text, only=["probe-headroom"], config=config)) == []


def test_liveness_without_startup_is_the_finding(tmp_path: Path) -> None:
    liveness = """      livenessProbe:
        httpGet: {path: /health, port: 8080}
        failureThreshold: 5"""
    result = lint_text(tmp_path, coder("120", liveness), only=["probe-headroom"])
    assert pairs(result) == [("probe-headroom", 12)]
    assert "allows 50s" in result.findings[0].message
    assert "with no startupProbe the liveness probe kills a boot slower than 50s" in (
        result.findings[0].message)
    assert "Add a startupProbe with failureThreshold 18 x periodSeconds 10" in (
        result.findings[0].fix)


def test_a_bad_fact_is_a_warning(tmp_path: Path) -> None:
    result = lint_text(tmp_path, coder("about ten minutes", startup(40)),
                       only=["probe-headroom"])
    assert [(f.line, f.severity) for f in result.findings] == [(6, "warning")]


@pytest.mark.parametrize(("probe", "parts"), [
    ({}, (0, 3, 10)),
    ({"periodSeconds": 15, "failureThreshold": 120}, (0, 120, 15)),
    ({"initialDelaySeconds": "30"}, (30, 3, 10)),
    ({"failureThreshold": "many"}, None),
])
def test_budget_defaults(probe: dict[str, object], parts: tuple[int, int, int] | None) -> None:
    assert budget(probe) == parts
