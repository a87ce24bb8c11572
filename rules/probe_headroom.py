"""The startup probe's budget covers the measured boot time with headroom.

What it checks:

The kubelet kills a container whose startup probe has failed `failureThreshold` times, so
`initialDelaySeconds + failureThreshold x periodSeconds` is the longest boot a pod
survives. The homelab's first TP=2 attempt of `coder` died on its startup probe at 20 minutes;
the reviewed state measured ~10 minutes before the API binds and gave it 120 x 15 s = 30
minutes. A budget sized from an older, smaller boot (40 x 15 s, carried over from a one-card
manifest) kills every boot that is only a little slower than the last.

With the measured boot time on the object or pod template as the annotation
`reviewbot.dev/measured-boot-seconds` (seconds: `600`, `600s`, `10m`; for a Helm values file,
the config's `measured: {<path>: {measured-boot-seconds: 600}}`), each app container's
startup budget must be at least `factor` (default 1.5) times the boot. Without a
startupProbe, the liveness probe's budget is the one that kills a slow boot, and it is held
to the same bound. Fields left out take Kubernetes' defaults (0 s delay, period 10 s,
threshold 3); app-template's probes take that chart's defaults (startup 30 x 5 s). Without
a measured boot time the rule has nothing to compare and says nothing.

A probe's `httpGet` or `tcpSocket` port given by name (`port: http`) is resolved by the kubelet
against the `ports[].name` of the probed container alone (kubelet's `findPortByName`: not the
pod's other containers, not a Service). A name that container does not declare makes every
try of the probe err, and the kubelet's probe worker throws an errored result away ("Prober
error, throw away the result"): the probe never passes and never fails. A startup probe
then never lets the container count as started (its liveness and readiness probes never
run, the pod is never ready), a readiness probe never lets the pod be ready, and a liveness
probe never restarts the container however it hangs (`port`). A port number need not be
declared (container ports are informational), and a name of digits is read as its number.

Kinds:

- `startup`: the startup probe's budget is below `factor` times the measured boot.
- `liveness`: no startupProbe, and the liveness probe's budget is below it.
- `bad-fact`: the measured boot is not a duration in seconds.
- `port`: a probe names a port its container does not declare.

When it stays quiet:

Without a measured boot time (the `reviewbot.dev/measured-boot-seconds` annotation, or the
config's `measured:` entry for a values file) the rule has nothing to compare and says
nothing; a container with neither a startup nor a liveness probe has no budget that kills
it. A named probe port is judged only in pods that run as written: not in Helm values (the
chart writes the probes and ports), nor in a custom resource's or a KServe component's pod
template (the operator or KServe may add the ports it names).

Failing example:

```yaml
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: coder
  namespace: llm-serving
  annotations:
    reviewbot.dev/measured-boot-seconds: "600"
spec:
  predictor:
    containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.11.0
      startupProbe:
        httpGet: {path: /health, port: 8080}
        failureThreshold: 40   # 40 x 15 s = 600 s: no headroom over the 600 s boot
        periodSeconds: 15
```

Passing example:

```yaml
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: coder
  namespace: llm-serving
  annotations:
    reviewbot.dev/measured-boot-seconds: "600"
spec:
  predictor:
    containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.11.0
      startupProbe:
        httpGet: {path: /health, port: 8080}
        failureThreshold: 120  # 120 x 15 s = 1800 s
        periodSeconds: 15
```
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from fractions import Fraction
from typing import Any

from reviewbot.engine.findings import Amount, Violation, edit
from reviewbot.engine.registry import Option
from reviewbot.model.objects import Container, Model, PodTemplate
from reviewbot.model.workload import (
    MEASURED_BOOT,
    describe,
    field_path,
    is_values_pod,
    measured,
    number,
    parse_int,
    parse_seconds,
)
from reviewbot.rules._kit import each_pod

ID = "probe-headroom"
SEVERITY = "error"
SUMMARY = ("The startup probe budget covers the measured boot time times a headroom factor; "
           "a probe's named port is one its container declares.")
RATIONALE = (
    "A startup (or liveness) probe whose budget is shorter than a real boot kills the "
    "container mid-boot, again and again: the pod never becomes ready."
)
FIX = "Raise failureThreshold (or periodSeconds) until the budget covers factor x the boot."
OPTIONS = (
    Option("factor", "number", 1.5,
           "Headroom: the probe budget must be at least factor x the measured boot time.",
           minimum=1),
)
SEVERITIES = {"startup": "error", "liveness": "error", "bad-fact": "warning", "port": "error"}
ADMISSION = "admitted"  # its findings hold once the API server admits the object (what it runs)
PROBES = {  # what a probe whose every try errs does (the kubelet discards an errored try)
    "startupProbe": "the container never counts as started: its readiness and liveness probes "
                    "never run and the pod is never ready",
    "readinessProbe": "the pod is never ready: no Service sends it traffic and a rollout waits "
                      "for it",
    "livenessProbe": "the probe never reaches a verdict: the kubelet never restarts the "
                     "container when it hangs",
}
# kubelet's findPortByName: an IANA service name (a letter at least); digits are a number
_PORT_NAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?")
DEFAULTS = {"initialDelaySeconds": 0, "periodSeconds": 10, "failureThreshold": 3}

SCOPE = "object"  # each finding depends on its object, its pods and the configuration only


def check_set(model: Model, opts: Mapping[str, Any]) -> Iterator[Violation]:
    factor = Fraction(str(opts.get("factor", 1.5)))
    for pod in each_pod(model):
        if pod.origin is None and pod.controller is None and pod.component is None:
            for container in pod.containers:
                yield from _named_ports(pod, container)
        raw = measured(pod, MEASURED_BOOT, model.inventory)
        if raw is None:
            continue
        boot = parse_seconds(raw)
        if boot is None:
            where = ("metadata", "annotations", MEASURED_BOOT)
            yield Violation(
                pod.obj, where if MEASURED_BOOT in pod.obj.annotations else pod.spec_path,
                f"{pod.name}: measured-boot-seconds {raw!r} is not a duration in seconds",
                fix="Write the measured boot as seconds: \"600\", \"600s\" or \"10m\".",
                kind="bad-fact",
            )
            continue
        for container in pod.main_containers:
            yield from _check(pod, container, boot, factor)


def budget(probe: Mapping[str, Any]) -> tuple[int, int, int] | None:
    """(initialDelaySeconds, failureThreshold, periodSeconds) with Kubernetes' defaults."""
    values = []
    for name, default in DEFAULTS.items():
        raw = probe.get(name, default)
        value = parse_int(raw) if raw is not None else default
        if value is None:
            return None
        values.append(value)
    delay, period, threshold = values
    return delay, threshold, period


def _check(pod: PodTemplate, container: Container, boot: Fraction,
           factor: Fraction) -> Iterator[Violation]:
    startup = container.body.get("startupProbe")
    liveness = container.body.get("livenessProbe")
    if isinstance(startup, dict):
        probe, name, kind = startup, "startupProbe", "startup"
    elif isinstance(liveness, dict):
        probe, name, kind = liveness, "livenessProbe", "liveness"
    else:
        return
    parts = budget(probe)
    if parts is None:
        return
    delay, threshold, period = parts
    total = delay + threshold * period
    need = factor * boot
    if total >= need:
        return
    needed = max(math.ceil((need - delay) / period), 1) if period > 0 else threshold
    formula = (f"initialDelaySeconds {delay} + failureThreshold {threshold} x periodSeconds "
               f"{period}")
    head = (f"{pod.name}, {describe(container)}: the {name} allows {total}s ({formula}), "
            f"but the measured boot is {number(boot)}s and {float(factor):g} x "
            f"{number(boot)}s = {number(need)}s")
    if kind == "liveness":
        message = (f"{head}; with no startupProbe the liveness probe kills a boot slower than "
                   f"{total}s, over and over")
        fix = (f"Add a startupProbe with failureThreshold {needed} x periodSeconds {period} "
               f"(>= {number(need)}s), or raise the liveness failureThreshold to {needed}.")
    else:
        message = (f"{head}: it gives up before even the measured boot ends, so every boot is "
                   "killed and the pod restarts over and over" if total < boot else
                   # (a new-user trial: 300s against a 420s boot read "a little slower")
                   f"{head}: a boot a little slower than the last is killed mid-way")
        fix = (f"Raise failureThreshold to at least {needed} ({needed} x {period}s + {delay}s >= "
               f"{number(need)}s).")
    # (a comment ending the line that spells the budget in seconds, "# 400s", spells the new
    # one: new-user trial forty-two's suggestion left "63   # 400s")
    edits = () if kind == "liveness" else (
        edit(pod.obj, field_path(container, name) + ("failureThreshold",), "set", needed,
             comment=(f"{total}s", f"{delay + needed * period}s")),
    )
    # (the startupProbe's failureThreshold, where written: what the fix raises; a new-user
    # trial's caret sat on `startupProbe:`, five lines above it)
    where = field_path(container, name) + (
        ("failureThreshold",) if kind == "startup" and "failureThreshold" in probe else ())
    # (its shortfall measured: a pull request that cuts a budget already short is worse, not
    # an existing finding: new-user trial seventy-one D1, 900s -> 300s of a 1080s need, exit 0)
    yield Violation(pod.obj, where, message, fix=fix, kind=kind, edits=edits,
                    cause=f"{pod.namespace}/{pod.name} {container.name} {name}",
                    amount=Amount(float(need - total), f"{total}s", f"{number(need)}s"))


def _named_ports(pod: PodTemplate, container: Container) -> Iterator[Violation]:
    """A probe's port named by none of its container's ``ports[].name``."""
    declared = [name for p in container.ports if isinstance(name := p.get("name"), str)]
    for probe_key, outcome in PROBES.items():
        probe = container.body.get(probe_key)
        if not isinstance(probe, dict):
            continue
        for action in ("httpGet", "tcpSocket"):
            handler = probe.get(action)
            port = handler.get("port") if isinstance(handler, dict) else None
            if (not isinstance(port, str) or port in declared or port.isdigit()
                    or not _PORT_NAME.fullmatch(port)):
                continue
            has = f"its ports: {', '.join(declared)}" if declared else "it declares no ports"
            message = (f"{pod.name}, {describe(container)}: the {probe_key}'s {action} port "
                       f"{port!r} is no port name of this container ({has}); the kubelet looks "
                       f"a probe's named port up in the probed container's own ports, so every "
                       f"try errs and is discarded: {outcome}")
            fix = (f"Name {declared[0]} in the probe (the port the container declares), or "
                   f"write the port's number in it." if len(declared) == 1 else
                   f"Add {{name: {port}, containerPort: <the port it serves>}} to the ports "
                   f"of {describe(container)}, or write the port's number in the probe.")
            # the container's port names are the other half of the mistake: a review of
            # the port's rename puts the finding there (new-user trial fifty-two: `http`
            # renamed `openai`, three probes' errors with no inline comment)
            ports = field_path(container, "ports")
            others = tuple(Violation(pod.obj, ports + (i, "name"), message, fix=fix,
                                     kind="port")
                           for i, p in enumerate(container.ports)
                           if isinstance(p.get("name"), str)) if not is_values_pod(pod) else ()
            yield Violation(
                pod.obj, field_path(container, probe_key) + (action, "port"), message,
                fix=fix, kind="port", others=others,
            )
