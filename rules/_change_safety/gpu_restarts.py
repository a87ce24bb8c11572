"""change-safety's verdicts on a GPU pod's template change: `gpu-restart` (replaced without
surge, and its measured downtime) and `stuck-rollout` (a surge that cannot finish)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

from reviewbot.engine.findings import Violation
from reviewbot.model.objects import Model, Path, PodTemplate
from reviewbot.model.quantity import parse_quantity
from reviewbot.model.workload import (
    MEASURED_BOOT,
    field_path,
    measured,
    number,
    parse_seconds,
    pod_gpus,
    unavailable_pods,
)
from reviewbot.rules._kit import each_pod, parallelism_of
from reviewbot.rules.gpu_rollout import SURGING, judged, rollout_fix


def pods_by_object(model: Model) -> dict[int, list[PodTemplate]]:
    out: dict[int, list[PodTemplate]] = {}
    for pod in each_pod(model):
        out.setdefault(id(pod.obj), []).append(pod)
    return out


def _killed_booting(pod: PodTemplate, boot: Fraction) -> str | None:
    """The probe of ``pod``'s main containers that gives up before ``boot`` seconds (a
    startup probe, else a liveness probe, as probe-headroom judges them: :func:`budget`),
    said as ``startupProbe (240 s)``; None when each lets the boot end."""
    from reviewbot.rules.probe_headroom import budget

    for container in pod.main_containers:
        for name in ("startupProbe", "livenessProbe"):
            probe = container.body.get(name)
            if not isinstance(probe, dict):
                continue
            parts = budget(probe)
            if parts is not None:
                delay, threshold, period = parts
                total = delay + threshold * period
                if total < boot:
                    return f"{name} ({total} s)"
            break  # (the startup probe, when there is one, is the one that judges a boot)
    return None


def _engine_short(pod: PodTemplate, model: Model, patterns: Sequence[str]
                  ) -> tuple[int, Fraction, str] | None:
    """(workers, GPUs, resource) of a container of ``pod`` whose engine starts more GPU
    workers than the GPUs it requests (gpu-parallelism's ``workers_short``): the new pod
    fails or hangs, never ready."""
    from reviewbot.rules.gpu_parallelism import workers_short

    return next((found for c in pod.main_containers
                 if (found := workers_short(model, c, patterns)) is not None), None)


def _never_scheduled(pod: PodTemplate, gpus: dict[str, Fraction], model: Model) -> str | None:
    """Why ``pod``'s new pod is never scheduled, where the inventory knows the nodes it may
    run on: none of them has as many of a GPU resource as it requests ("no node it may run
    on has 4 nvidia.com/gpu (gpu-1 has 2)"), said as schedulability judges the node; None
    otherwise (new-user trial thirty-one: "at least 540 s of downtime" beside a pod that
    never runs)."""
    from reviewbot.rules.schedulability import too_big

    found = too_big(pod, model.inventory.nodes, gpus)
    if found is None:
        return None
    node, resource, wanted, have = found
    return f"no node it may run on has {number(wanted)} {resource} ({node.name} has {number(have)})"


def _unselected(pod: PodTemplate, model: Model) -> str | None:
    """Why ``pod``'s new pod is never scheduled where its ``nodeSelector`` names a label no
    node of the inventory carries ("no node of the inventory has nvidia.com/gpu.product=
    NVIDIA-L4 (gpu-1 has NVIDIA-A10G)"), or None (no inventory, or some node carries them
    all). New-user trial sixty-four: a vLLM moved to a GPU no node has read "at least 600 s
    of downtime"; its pod stays Pending."""
    nodes = model.inventory.nodes
    selector = pod.spec.get("nodeSelector")
    if not nodes or not isinstance(selector, dict) or not selector:
        return None
    wanted = {str(k): "" if v is None else str(v) for k, v in selector.items()}
    if any(all(n.labels.get(k) == v for k, v in wanted.items()) for n in nodes):
        return None
    key, value = next((k, v) for k, v in wanted.items()
                      if not any(n.labels.get(k) == v for n in nodes))
    have = sorted({(n.name, n.labels[key]) for n in nodes if key in n.labels})
    return (f"no node of the inventory has {key}={value or '(empty)'}"
            + (f" ({', '.join(f'{n} has {v}' for n, v in have[:3])})" if have else
               f" (none has {key})"))


@dataclass(frozen=True)
class Rollouts:
    """The head's GPU rollouts that cannot finish: gpu-rollout's ``surge`` findings (one
    implementation of when a rollout waits for a GPU), judged once, when a change first asks."""

    head: Model
    patterns: tuple[str, ...]

    @cached_property
    def _stuck(self) -> dict[tuple[int, Path], Violation]:
        return {(id(pod.obj), pod.spec_path): found
                for pod, found in judged(self.head, {"gpu-resources": list(self.patterns)})
                if found.kind == "surge"}

    def stuck(self, pod: PodTemplate) -> Violation | None:
        """gpu-rollout's finding that ``pod``'s rollout surges with no GPU to surge into;
        None too where every build that makes it fails: nothing of the change is applied,
        so no rollout starts (the seed pull request that left llm-serving's build broken)."""
        if id(pod.obj) in self.head.unbuilt:
            return None
        return self._stuck.get((id(pod.obj), pod.spec_path))


def gpu_restart_verdicts(old_pods: Sequence[PodTemplate], new_pods: Sequence[PodTemplate],
                         patterns: Sequence[str], head: Model,
                         rollouts: Rollouts) -> Iterator[Violation]:
    before = {p.name: p for p in old_pods}
    for pod in new_pods:
        old = before.get(pod.name)
        gpus = pod_gpus(pod, patterns)
        if old is None or not gpus:
            continue
        how = _replacement_without_surge(pod)
        if how is None and (pod.strategy is None or pod.strategy.type not in SURGING):
            continue
        changed = _changed_template_fields(old, pod)
        if not changed:
            continue
        fields = ", ".join(name for name, _ in changed)
        if how is None:
            yield from _stuck_rollout(pod, fields, changed[0][1], rollouts)
            continue
        gpu_text = " and ".join(f"{number(v)} {r}" for r, v in gpus.items())
        raw = measured(pod, MEASURED_BOOT, head.inventory)
        boot = parse_seconds(raw) if raw is not None else None
        killed = _killed_booting(pod, boot) if boot is not None else None
        unplaced = _never_scheduled(pod, gpus, head)
        unselected = _unselected(pod, head) if unplaced is None else None
        short = _engine_short(pod, head, patterns) if (
            unplaced is None and unselected is None) else None
        if unplaced is not None:
            tail = (f"restarts {pod.name}, and the new pod is never scheduled: {unplaced}, so "
                    "the downtime lasts until the request fits a node")
        elif unselected is not None:
            tail = (f"restarts {pod.name}, and the new pod is never scheduled: {unselected}, "
                    "so, unless a node the inventory does not list carries it, the downtime "
                    "lasts until the nodeSelector matches a node")
        elif short is not None:
            tail = (f"restarts {pod.name}, and the new pod never gets ready: its engine starts "
                    f"{short[0]} GPU workers on {number(short[1])} {short[2]}, which fails or "
                    "hangs, so the downtime lasts until they match")
        elif boot is not None and killed is not None:
            # (new-user trial twenty-nine: "at least 900 s" beside a probe that kills every
            # boot: the downtime has no end)
            tail = (f"restarts {pod.name}, and the new pod never gets ready: its {killed} "
                    f"gives up before its measured boot, {number(boot)} s, ends, so each "
                    "boot is killed and the downtime lasts until the probe is fixed")
        elif boot is not None:
            tail = (f"restarts {pod.name}: at least its measured boot, {number(boot)} s, of "
                    "downtime")  # (more if the new pod never gets ready: a new-user trial)
        else:
            tail = (f"restarts {pod.name}: down for one boot, which is not measured "
                    f"(annotate {MEASURED_BOOT})")
        # a model server's restart reloads its weights; a media server's iGPU share is no engine
        engine = any(parallelism_of(head, c) is not None for c in pod.main_containers)
        # (KServe's word for its own pods only: new-user trial forty-five read "a GPU
        # predictor" of a Deployment)
        server = ("a GPU predictor" if pod.obj.group == "serving.kserve.io"
                  else "a model server's")
        why = (f"{server} restart is a weights reload, not a rolling update" if engine
               else "no second pod serves while it restarts")
        fix = (f"Merge when {pod.name} may be down for "
               f"{f'at least {number(boot)} s' if boot is not None else 'one boot'} ({why}), or "
               "batch this with the next change that restarts it.")
        if unplaced is not None:  # (the outage has no end: the fix is the request's)
            fix = (f"Request what a node {pod.name} may run on has before merging: as it is, "
                   f"{pod.name} stays down.")
        elif unselected is not None:
            fix = (f"Select labels a node carries before merging (or add the node first): as "
                   f"it is, {pod.name} stays down.")
        elif short is not None:
            fix = ("Make tensor x pipeline parallel size match the GPUs before merging, as "
                   f"gpu-parallelism's finding says: as it is, {pod.name} stays down.")
        elif boot is not None and killed is not None:
            fix = (f"Fix the {killed.split(' (')[0]} before merging, as probe-headroom's "
                   f"finding at it says (past the measured boot, {number(boot)} s, with its "
                   f"margin): as it is, {pod.name} stays down.")
        yield Violation(
            pod.obj, changed[0][1],
            f"{pod.name} requests {gpu_text} and rolls out {how}: this change to its pod "
            f"template ({fields}) stops the old pod before the new one is ready, so it {tail}",
            fix=fix, kind="gpu-restart",
        )


def _stuck_rollout(pod: PodTemplate, fields: str, where: Path,
                   rollouts: Rollouts) -> Iterator[Violation]:
    """The rollout a template change starts, when gpu-rollout finds that it cannot finish (the
    finding exists on the base too, so the review would call it old: the change is what starts
    the rollout)."""
    surge = rollouts.stuck(pod)
    if surge is None:
        return
    yield Violation(
        pod.obj, where,
        f"{pod.name}'s pod template changes ({fields}), which starts a rollout now: "
        f"{surge.message}",
        fix=rollout_fix(pod, "so the rollout this pull request starts can finish"),
        kind="stuck-rollout", edits=surge.edits, doubt=surge.doubt,
    )


def _replacement_without_surge(pod: PodTemplate) -> str | None:
    strategy = pod.strategy
    if pod.kind == "StatefulSet":
        if strategy is not None and strategy.type == "OnDelete":
            return None
        return "in place (StatefulSet, one replica)" if pod.replicas <= 1 else None
    if strategy is None:
        return None
    if strategy.type == "Recreate":
        return "with strategy Recreate"
    if strategy.type == "RollingUpdate" and str(strategy.max_surge).strip() in ("0", "0%"):
        # the old pods it stops at once (the Deployment controller's fenceposts: 25% by
        # default, rounded down, at least one where nothing surges); fewer than the replicas
        # leave others serving: less capacity for a while, no downtime (new-user trial
        # thirty-eight: "420 s of downtime" of two replicas replaced one at a time)
        written = strategy.max_unavailable if strategy.max_unavailable is not None else "25%"
        at_once = unavailable_pods(written, pod.replicas)
        if at_once is not None and max(at_once, 1) < pod.replicas:
            return None
        return "with strategy RollingUpdate and maxSurge 0"
    return None


CONTAINER_FIELDS = ("image", "args", "command", "env", "envFrom", "resources", "volumeMounts")


def _changed_template_fields(old: PodTemplate, new: PodTemplate) -> list[tuple[str, Path]]:
    """(what changed, where in the head) for the pod template fields that differ."""
    out: list[tuple[str, Path]] = []
    olds = {(c.role, c.name): c for c in old.containers}
    for c in new.containers:
        was = olds.pop((c.role, c.name), None)
        if was is None:
            out.append((f"{c.role} {c.name} added", c.path))
            continue
        for key in sorted(set(c.body) | set(was.body),
                          key=lambda k: (k not in CONTAINER_FIELDS, CONTAINER_FIELDS.index(k)
                                         if k in CONTAINER_FIELDS else 0, str(k))):
            if key != "name" and not _same_value(c.body.get(key), was.body.get(key)):
                at, before, after = field_path(c, key), was.body.get(key), c.body.get(key)
                written = new.obj.get(at)
                if isinstance(written, dict) and not isinstance(after, dict):
                    # (a chart's values image, `{repository, tag}`, that the pod reads as one
                    # reference: the key the change wrote, its `tag:` line; new-user trial
                    # twenty-seven's comment sat on `image:`)
                    before, after = old.obj.get(field_path(was, key)), written
                out.append((str(key), _narrowest(new, at, before, after)))
    for role, name in olds:
        out.append((f"{role} {name} removed", new.spec_path))
    containers = ("containers", "initContainers", "ephemeralContainers")
    for key in sorted(set(new.spec) | set(old.spec)):
        if key not in containers and not _same_value(new.spec.get(key), old.spec.get(key)):
            out.append((str(key), _narrowest(new, new.spec_path + (key,), old.spec.get(key),
                                             new.spec.get(key))))
    names: list[str] = []
    unique = []
    for name, path in out:
        if name not in names:
            names.append(name)
            unique.append((name, path))
    return unique


def _narrowest(pod: PodTemplate, path: Path, old: Any, new: Any) -> Path:
    """Where below ``path`` (``new``'s place in the head object) the change is: the first
    item or key whose value differs, descended while both sides are alike collections and the
    head object holds that value there (so the finding sits on a line the diff shows: the
    changed argument, not the ``args:`` key above it); of a mapping's keys, a GPU's first
    (new-user trial eighty-one W6: the info sat at `cpu: "8"`, beside the nvidia.com/gpu
    it spoke of)."""
    while True:
        step: str | int | None = None
        if isinstance(new, dict) and isinstance(old, dict):
            differ = [k for k in new if k not in old or not _same_value(new[k], old[k])]
            step = next((k for k in differ if "gpu" in str(k).lower()),
                        differ[0] if differ else None)
            if step is None:
                return path
            old, new = old.get(step), new[step]
        elif isinstance(new, list) and isinstance(old, list):
            step = next((i for i, v in enumerate(new)
                         if i >= len(old) or not _same_value(v, old[i])), None)
            if step is None:
                return path
            old, new = (old[step] if step < len(old) else None), new[step]
        else:
            return path
        if pod.obj.get(path + (step,)) != new:  # values: the pod's fields are not the text's
            return path
        path = path + (step,)


def _same_value(a: Any, b: Any) -> bool:
    if a == b:
        return True
    qa, qb = _quantity_or_none(a), _quantity_or_none(b)
    if qa is not None and qb is not None:
        return qa == qb
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    return False


def _quantity_or_none(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return parse_quantity(value)
