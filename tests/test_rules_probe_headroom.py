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
    assert pairs(result) == [("probe-headroom", 15)]  # failureThreshold, what the fix raises
    (finding,) = result.findings
    assert finding.message == (
        "coder-predictor, container kserve-container: the startupProbe allows 600s "
        "(initialDelaySeconds 0 + failureThreshold 40 x periodSeconds 15), but the measured "
        "boot is 600s and 1.5 x 600s = 900s: a boot a little slower than the last is killed "
        "mid-way")
    assert finding.fix == "Raise failureThreshold to at least 60 (60 x 15s + 0s >= 900s)."
    # 60 x 15 s is exactly enough; the reviewed 120 x 15 s has room to spare
    assert pairs(lint_text(tmp_path / "a", coder("600", startup(60)),
                           only=["probe-headroom"])) == []
    assert pairs(lint_text(tmp_path / "b", coder("600", startup(120)),
                           only=["probe-headroom"])) == []


def test_a_probe_shorter_than_the_boot_itself_kills_every_boot(tmp_path: Path) -> None:
    # new-user trial twenty-four: 20 x 15 s = 300 s against a 600 s boot read "a boot a
    # little slower than the last is killed mid-way"; every boot is
    (finding,) = lint_text(tmp_path, coder("600", startup(20)), only=["probe-headroom"]).findings
    assert finding.message.endswith(
        "1.5 x 600s = 900s: it gives up before even the measured boot ends, so every boot is "
        "killed and the pod restarts over and over")


def test_initial_delay_counts_and_factor_is_an_option(tmp_path: Path) -> None:
    text = coder("600", startup(40, delay=100))  # 100 + 600 = 700 s
    assert pairs(lint_text(tmp_path, text, only=["probe-headroom"])) == [("probe-headroom", 15)]
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


WEB = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{name: http, containerPort: 80}]
        readinessProbe:
          httpGet: {path: /, port: http}
        livenessProbe:
          tcpSocket: {port: htpp}
        startupProbe:
          httpGet: {path: /, port: 8080}
      - name: metrics
        image: exporter:1.0
        livenessProbe:
          httpGet: {path: /metrics, port: http}
"""


def test_a_probe_port_name_its_container_does_not_declare(tmp_path: Path) -> None:
    # the kubelet looks a named port up in the probed container's own ports
    # (prober's findPortByName): 'htpp' is nobody's, and the metrics container's 'http' is
    # its neighbour's; a number need not be declared. An errored try is thrown away by the
    # probe worker: the probe never decides (a readiness probe: never ready)
    result = lint_text(tmp_path, WEB, only=["probe-headroom"])
    assert [(f.rule, f.kind, f.severity, f.line) for f in result.findings] == [
        ("probe-headroom", "port", "error", 16), ("probe-headroom", "port", "error", 22)]
    assert result.findings[0].message == (
        "web, container web: the livenessProbe's tcpSocket port 'htpp' is no port name of "
        "this container (its ports: http); the kubelet looks a probe's named port up in the "
        "probed container's own ports, so every try errs and is discarded: the probe never "
        "reaches a verdict: the kubelet never restarts the container when it hangs")
    assert "(it declares no ports)" in result.findings[1].message
    assert result.findings[1].message.endswith(
        "discarded: the probe never reaches a verdict: the kubelet never restarts the "
        "container when it hangs")
    assert result.findings[1].fix == (
        "Add {name: http, containerPort: <the port it serves>} to the ports of container "
        "metrics, or write the port's number in the probe.")


def test_a_named_probe_port_in_a_pod_an_operator_makes_is_not_judged(tmp_path: Path) -> None:
    # KServe (and operators of custom resources) may add the ports a probe names
    probe = """      readinessProbe:
        httpGet: {path: /health, port: user-port}"""
    assert pairs(lint_text(tmp_path, coder("600", probe), only=["probe-headroom"])) == []


def test_what_a_probe_with_an_unknown_port_name_does(tmp_path: Path) -> None:
    # the probe worker discards an errored try ("Prober error, throw away the result"): a
    # startup probe never lets the container start, a readiness probe never lets it be ready
    text = WEB.replace("tcpSocket: {port: htpp}", "tcpSocket: {port: 80}").replace(
        "httpGet: {path: /, port: 8080}", "httpGet: {path: /, port: web}").replace(
        "httpGet: {path: /, port: http}", "httpGet: {path: /, port: https}")
    found = [(f.line, f.message.split("discarded: ", 1)[1]) for f in
             lint_text(tmp_path, text, only=["probe-headroom"]).findings]
    assert found == [
        (14, "the pod is never ready: no Service sends it traffic and a rollout waits for it"),
        (18, "the container never counts as started: its readiness and liveness probes never "
             "run and the pod is never ready"),
        (22, "the probe never reaches a verdict: the kubelet never restarts the container "
             "when it hangs"),
    ]
