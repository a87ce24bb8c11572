"""The cluster inventory: measured facts read from the cluster, checked, and what the GPU ones say.

- :func:`from_kubectl`: the ``cluster:`` and ``measured:`` sections of ``.reviewbot.yaml``
  from ``kubectl get nodes -o json`` and ``kubectl get pods -A -o json`` (what
  ``reviewbot inventory`` prints or writes). Per node: its name, labels (NVIDIA GPU feature
  discovery's ``nvidia.com/gpu.*`` among them), taints and allocatable. The cluster's
  ``kubernetes-version``: the lowest minor of the nodes' ``status.nodeInfo.kubeletVersion``
  (``v1.31.4+k3s1`` is 1.31), the spread said when they differ (a rolling upgrade half
  done). Kubelets may lag the API server by up to three minors (Kubernetes' version skew
  policy), never lead it: what the lowest kubelet's minor no longer serves, the API server
  does not serve either. Per workload: the measured boot, the longest over its pods of
  "first app container start -> Ready".
- :func:`allocatable_problem`, :func:`label_problem`, :func:`measured_problem`: why an
  inventory value is unusable (the config refuses it, exit 2, with its key and line).
- :func:`gpu_facts`: a node's GPU product, count, memory, interconnect and compute
  capability (GFD's ``gpu.compute.major``/``minor`` labels, else the product name through
  :data:`COMPUTE_CAPABILITY`, NVIDIA's table), each fact with where it came from.

Pods are resolved to the workload the repository declares, up their owner chain: Pod ->
ReplicaSet -> Deployment (the ReplicaSet's name less the pod's ``pod-template-hash``, unless
the input lists the ReplicaSet itself) -> KServe InferenceService (the pod's
``serving.kserve.io/inferenceservice`` label; a component other than the predictor adds
``/<component>``). Keys read ``Kind/namespace/name``, as findings print objects.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from reviewbot.errors import ReviewbotError
from reviewbot.model.objects import Node, items
from reviewbot.model.quantity import parse_quantity, quantity_error
from reviewbot.model.workload import MAX_DIGITS, parse_seconds
from reviewbot.schema.lifecycle import parse_minor, version_problem

GFD_PRODUCT = "nvidia.com/gpu.product"
GFD_COUNT = "nvidia.com/gpu.count"
GFD_MEMORY = "nvidia.com/gpu.memory"  # MiB per GPU
GFD_MAJOR = "nvidia.com/gpu.compute.major"
GFD_MINOR = "nvidia.com/gpu.compute.minor"
GFD_WHOLE_LABELS = (GFD_COUNT, GFD_MEMORY, GFD_MAJOR, GFD_MINOR)

MEASURED_BOOT = "measured-boot-seconds"
MEASURED_KV_CACHE = "measured-kv-cache-tokens"
MEASURED_KEYS = (MEASURED_BOOT, "measured-cpu", "measured-memory", MEASURED_KV_CACHE)
NATIVE_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage", "pods", "storage"})
KSERVE_ISVC_LABEL = "serving.kserve.io/inferenceservice"
KSERVE_COMPONENT_LABELS = ("component", "serving.kserve.io/component")

# NVIDIA's CUDA GPU table (developer.nvidia.com/cuda-gpus), by the product names GFD writes
# (`nvidia-smi --query-gpu=name` with spaces as dashes: Tesla-V100-PCIE-32GB,
# NVIDIA-A100-SXM4-80GB, NVIDIA-GeForce-RTX-4090). First match wins, so the specific
# names come before the families that contain them.
COMPUTE_CAPABILITY: tuple[tuple[str, tuple[int, int]], ...] = (
    (r"GB200|B200|B100", (10, 0)),
    (r"RTX-50[0-9]{2}|RTX-PRO-[0-9]+-BLACKWELL", (12, 0)),
    (r"GH200|H200|H100|H800|H20\b", (9, 0)),
    (r"L40S?|L4\b|RTX-40[0-9]{2}|RTX-[0-9]+-ADA|L20\b", (8, 9)),
    (r"A100|A800|A30\b", (8, 0)),
    (r"A10G?\b|A16\b|A2\b|A40\b|RTX-A[0-9]+|RTX-30[0-9]{2}", (8, 6)),
    (r"T4\b|RTX-20[0-9]{2}|TITAN-RTX|QUADRO-RTX|GTX-16[0-9]{2}", (7, 5)),
    (r"V100|TITAN-V\b|GV100", (7, 0)),
    (r"P100|GP100", (6, 0)),
    (r"P40\b|P4\b|GTX-10[0-9]{2}|TITAN-XP?", (6, 1)),
    (r"K80\b", (3, 7)),
)
_TABLE = tuple((re.compile(rf"(?:^|-)(?:{pattern})"), cc) for pattern, cc in COMPUTE_CAPABILITY)


# ---------------------------------------------------------------- GPU facts


@dataclass(frozen=True)
class GpuFacts:
    """What the inventory says about one node's GPUs; ``*_source`` says where each came from."""

    node: str
    product: str | None
    count: int | None
    memory_mib: int | None
    compute: tuple[int, int] | None
    compute_source: str
    interconnect: str | None  # "pcie" | "sxm" (NVLink) | None when the name does not say

    @property
    def compute_text(self) -> str:
        return f"{self.compute[0]}.{self.compute[1]}" if self.compute else "unknown"


def compute_from_product(product: str) -> tuple[int, int] | None:
    """The compute capability of an NVIDIA product name (None when the table lacks it)."""
    name = re.sub(r"[\s_]+", "-", product.strip().upper())
    for pattern, cc in _TABLE:
        if pattern.search(name):
            return cc
    return None


def interconnect_of(product: str) -> str | None:
    name = product.upper()
    if "PCIE" in name:
        return "pcie"
    if "SXM" in name or "NVL" in name or name.startswith(("NVIDIA-GH200", "NVIDIA-GB200")):
        return "sxm"
    return None


def gpu_facts(node: Node) -> GpuFacts | None:
    """The node's GPU facts, or None when its labels name no NVIDIA GPU."""
    labels = node.labels
    product = labels.get(GFD_PRODUCT) or None
    major, minor = _whole(labels.get(GFD_MAJOR)), _whole(labels.get(GFD_MINOR))
    compute: tuple[int, int] | None = None
    source = ""
    if major is not None:
        compute = (major, minor or 0)
        source = f"label {GFD_MAJOR}={major}" + (f", {GFD_MINOR}={minor}" if minor is not None
                                                 else "")
    elif product:
        compute = compute_from_product(product)
        if compute is not None:
            source = f"{GFD_PRODUCT}={product} in NVIDIA's compute capability table"
    if product is None and compute is None:
        return None
    return GpuFacts(
        node.name, product, _whole(labels.get(GFD_COUNT)), _whole(labels.get(GFD_MEMORY)),
        compute, source, interconnect_of(product) if product else None,
    )


def _whole(value: Any) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() and len(text) <= MAX_DIGITS else None


# ---------------------------------------------------------------- validation


def allocatable_problem(resource: str, value: Any) -> str | None:
    """Why an allocatable value cannot be used (None when it can)."""
    problem = quantity_error(value)
    if problem:
        return problem
    amount = parse_quantity(value)
    if amount is None:  # pragma: no cover - quantity_error said it parses
        return f"{value!r} is not a quantity"
    if amount < 0:
        return f"{value!r} is negative; allocatable is what the node offers"
    extended = resource not in NATIVE_RESOURCES and not resource.startswith("hugepages-")
    if extended and amount.denominator != 1:
        return f"{resource} is an extended resource, counted in whole units: {value!r}"
    return None


def label_problem(key: str, value: Any) -> str | None:
    """GFD's numeric labels must be whole numbers (the rules compute with them)."""
    if key in GFD_WHOLE_LABELS and _whole(value) is None:
        return f"{key} is a whole number (GPU feature discovery writes digits), not {value!r}"
    return None


def measured_problem(key: str, value: Any) -> str | None:
    """Why a ``measured:`` fact cannot be read (None when it can; unknown keys are the
    schema's to refuse)."""
    if key == MEASURED_BOOT and parse_seconds(value) is None:
        return f"{value!r} is not a duration in seconds (600, \"600s\", \"10m\")"
    if key in ("measured-cpu", "measured-memory"):
        return quantity_error(value)
    if key == MEASURED_KV_CACHE and (
        isinstance(value, bool) or _whole(value) is None or not _whole(value)
    ):
        return f"{value!r} is not a positive whole number of tokens"
    return None


# ---------------------------------------------------------------- from kubectl


@dataclass(frozen=True)
class Boot:
    """A workload's measured boot time: its longest-booting ready pod."""

    workload: str
    seconds: int
    pod: str  # the pod whose boot was the longest
    pods: int  # ready pods seen for the workload


def read_objects(text: str, name: str) -> list[Mapping[str, Any]]:
    """The objects of ``kubectl get ... -o json`` output (a List, or one object)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ReviewbotError(f"{name}: not kubectl's JSON output ({exc})") from None
    if not isinstance(data, dict):
        raise ReviewbotError(f"{name}: expected a JSON object (kubectl get ... -o json)")
    listed = str(data.get("kind", "")).endswith("List") or ("items" in data and "kind" not in data)
    items = data.get("items") if listed else [data]
    if not isinstance(items, list):
        raise ReviewbotError(f"{name}: its items are not a list")
    return [i for i in items if isinstance(i, dict)]


def nodes_section(objects: Iterable[Mapping[str, Any]], name: str) -> list[dict[str, Any]]:
    """``cluster.nodes`` entries for the Node objects, in name order."""
    out = []
    for obj in objects:
        if obj.get("kind", "Node") != "Node":
            continue
        meta = _map(obj.get("metadata"))
        node_name = meta.get("name")
        if not isinstance(node_name, str) or not node_name:
            raise ReviewbotError(f"{name}: a Node without metadata.name")
        entry: dict[str, Any] = {"name": node_name}
        labels = {str(k): _text(v) for k, v in sorted(_map(meta.get("labels")).items())
                  if not _volatile(str(k))}
        if labels:
            entry["labels"] = labels
        taints = []
        for taint in items(_map(obj.get("spec")).get("taints")):
            if isinstance(taint, dict) and taint.get("key") and taint.get("effect"):
                item = {"key": str(taint["key"])}
                if taint.get("value"):
                    item["value"] = str(taint["value"])
                item["effect"] = str(taint["effect"])
                taints.append(item)
        if taints:
            entry["taints"] = taints
        allocatable = {}
        for key, value in _map(_map(obj.get("status")).get("allocatable")).items():
            problem = allocatable_problem(str(key), value)
            if problem:
                raise ReviewbotError(f"{name}: node {node_name} allocatable {key}: {problem}")
            allocatable[str(key)] = _exact(str(key), value)
        entry["allocatable"] = dict(sorted(allocatable.items(), key=_resource_order))
        out.append(entry)
    if not out:
        raise ReviewbotError(f"{name}: no Node objects (kubectl get nodes -o json)")
    return sorted(out, key=lambda e: str(e["name"]))


def boots(objects: Sequence[Mapping[str, Any]]) -> list[Boot]:
    """The measured boot of each workload whose pods are Ready, longest pod first kept."""
    owners = {(str(_map(o.get("metadata")).get("namespace") or ""), str(o.get("kind")),
               str(_map(o.get("metadata")).get("name"))): o
              for o in objects if o.get("kind") != "Pod"}
    best: dict[str, Boot] = {}
    for pod in objects:
        if pod.get("kind", "Pod") != "Pod":
            continue
        seconds = pod_boot(pod)
        if seconds is None:
            continue
        workload = owner_chain(pod, owners)[-1]
        seen = best.get(workload)
        pods = (seen.pods if seen else 0) + 1
        name = str(_map(pod.get("metadata")).get("name"))
        if seen is None or seconds > seen.seconds:
            best[workload] = Boot(workload, seconds, name, pods)
        else:
            best[workload] = Boot(workload, seen.seconds, seen.pod, pods)
    return [best[k] for k in sorted(best)]


def pod_boot(pod: Mapping[str, Any]) -> int | None:
    """Seconds from the first app container start to the Ready condition (None when the pod
    is not Ready or a time is missing). Init containers run before the probes count."""
    status = _map(pod.get("status"))
    ready = next((c for c in items(status.get("conditions"))
                  if isinstance(c, dict) and c.get("type") == "Ready"
                  and c.get("status") == "True"), None)
    if ready is None:
        return None
    ready_at = _time(ready.get("lastTransitionTime"))
    starts = [_time(_map(_map(c.get("state")).get("running")).get("startedAt"))
              for c in items(status.get("containerStatuses")) if isinstance(c, dict)]
    started = [s for s in starts if s is not None]
    if ready_at is None or not started:
        return None
    seconds = (ready_at - min(started)).total_seconds()
    return int(seconds) if seconds >= 0 else None


def owner_chain(
    pod: Mapping[str, Any], owners: Mapping[tuple[str, str, str], Mapping[str, Any]]
) -> list[str]:
    """``Kind/namespace/name`` from the pod up to the workload the repository declares."""
    meta = _map(pod.get("metadata"))
    namespace = str(meta.get("namespace") or "default")
    labels = _map(meta.get("labels"))
    chain = [f"Pod/{namespace}/{meta.get('name')}"]
    current: Mapping[str, Any] = pod
    hops = 0
    while hops < 10:
        hops += 1
        ref = _controller(current)
        if ref is None:
            break
        kind, name = str(ref.get("kind")), str(ref.get("name"))
        chain.append(f"{kind}/{namespace}/{name}")
        found = owners.get((namespace, kind, name))
        if found is not None:
            current = found
            continue
        hash_ = str(labels.get("pod-template-hash") or "")
        if kind == "ReplicaSet" and hash_ and name.endswith("-" + hash_):
            chain.append(f"Deployment/{namespace}/{name[: -len(hash_) - 1]}")
            found = owners.get((namespace, "Deployment", name[: -len(hash_) - 1]))
            if found is not None:
                current = found
                continue
        break
    isvc = labels.get(KSERVE_ISVC_LABEL)
    if isinstance(isvc, str) and isvc and not chain[-1].startswith("InferenceService/"):
        component = next((str(labels[k]) for k in KSERVE_COMPONENT_LABELS if labels.get(k)),
                         "predictor")
        suffix = "" if component == "predictor" else f"/{component}"
        chain.append(f"InferenceService/{namespace}/{isvc}{suffix}")
    return chain


@dataclass(frozen=True)
class KubeletVersions:
    """The nodes' ``status.nodeInfo.kubeletVersion``: the cluster's Kubernetes version is the
    lowest minor among them (``minor``, "1.31"; None when no node reports one)."""

    minor: str | None
    nodes: Mapping[str, tuple[str, ...]]  # kubelet version as reported -> node names
    unread: tuple[str, ...]  # nodes whose kubeletVersion is missing or no version

    @property
    def spread(self) -> str:
        """``v1.31.4 (2 nodes), v1.32.1 (worker-3)``; "" when every node reports the same."""
        if len(self.nodes) < 2 and not self.unread:
            return ""
        parts = [f"{v} ({_nodes_text(n)})" for v, n in self.nodes.items()]
        if self.unread:
            parts.append(f"no readable version ({_nodes_text(self.unread)})")
        return ", ".join(parts)


def _nodes_text(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{len(names)} nodes"


def kubelet_versions(objects: Iterable[Mapping[str, Any]]) -> KubeletVersions:
    """The kubelet versions of the Node objects, and the lowest minor among them."""
    found: dict[str, list[str]] = {}
    unread: list[str] = []
    minors: list[tuple[int, int]] = []
    for obj in objects:
        if obj.get("kind", "Node") != "Node":
            continue
        name = str(_map(obj.get("metadata")).get("name") or "")
        text = _map(_map(obj.get("status")).get("nodeInfo")).get("kubeletVersion")
        minor = parse_minor(text) if isinstance(text, str) else None
        if minor is None or version_problem(f"{minor[0]}.{minor[1]}"):
            unread.append(name)
            continue
        minors.append(minor)
        found.setdefault(str(text).strip(), []).append(name)
    ordered = sorted(found.items(), key=lambda kv: (parse_minor(kv[0]) or (0, 0), kv[0]))
    lowest = min(minors) if minors else None
    return KubeletVersions(
        f"{lowest[0]}.{lowest[1]}" if lowest else None,
        {v: tuple(sorted(n)) for v, n in ordered}, tuple(sorted(unread)))


@dataclass(frozen=True)
class Scan:
    """What ``reviewbot inventory`` read: ``cluster.nodes``, the ``measured:`` entries, the
    boots behind them, and the nodes' Kubernetes version."""

    nodes: list[dict[str, Any]]
    measured: dict[str, dict[str, Any]]
    boots: list[Boot]
    versions: KubeletVersions


def from_kubectl(
    nodes_text: str, nodes_name: str, pods_text: str | None = None, pods_name: str = "pods"
) -> Scan:
    node_objects = read_objects(nodes_text, nodes_name)
    nodes = nodes_section(node_objects, nodes_name)
    measured: dict[str, dict[str, Any]] = {}
    found: list[Boot] = []
    if pods_text is not None:
        found = boots(read_objects(pods_text, pods_name))
        measured = {b.workload: {MEASURED_BOOT: b.seconds} for b in found}
    return Scan(nodes, measured, found, kubelet_versions(node_objects))


def _controller(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    refs = [r for r in items(_map(obj.get("metadata")).get("ownerReferences"))
            if isinstance(r, dict) and r.get("kind") and r.get("name")]
    return next((r for r in refs if r.get("controller")), refs[0] if refs else None)


def _volatile(label: str) -> bool:
    """Labels left out: ones that change on every scan (GFD's timestamp) and the deprecated
    ``beta.kubernetes.io/arch|os`` twins of ``kubernetes.io/arch|os``."""
    return label == "nvidia.com/gfd.timestamp" or label in (
        "beta.kubernetes.io/arch", "beta.kubernetes.io/os")


def _exact(resource: str, value: Any) -> str:
    """Byte quantities in the largest binary unit that keeps them exact (kubelet writes
    ``65018880Ki``; the same amount reads ``63495Mi``); everything else as reported."""
    text = _text(value)
    if resource != "memory" and not resource.startswith("hugepages-"):
        return text
    amount = parse_quantity(value)
    if not amount or amount.denominator != 1:
        return text
    for suffix, size in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if amount % size == 0:
            return f"{amount // size}{suffix}"
    return text


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _resource_order(item: tuple[str, Any]) -> tuple[int, str]:
    order = ("cpu", "memory", "ephemeral-storage", "pods")
    return (order.index(item[0]) if item[0] in order else len(order), item[0])


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Fraction):
        return str(value)
    return "" if value is None else str(value)
