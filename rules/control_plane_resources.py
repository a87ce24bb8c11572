"""Pods that can land on a control-plane node declare CPU and memory limits, and stay small.

What it checks:

A control-plane node runs etcd and the API server; a pod without limits there can starve
them, and one with a large limit can take a big share of a small node. The homelab's Forgejo
runs on `talos-cp-3` (11950m allocatable): its 1000m limit throttled Gitea for 16.2% of all
CFS periods, and the fix raised it to 3000m, 25.1% of the node, noting "if Gitea sustains
near this limit, move the workload off the control plane rather than raising the limit
again". That 25.1% is the ceiling the default `max-limit-fraction` (0.3) encodes.

A pod can land on a control-plane node when one of the inventory's control-plane nodes
(label `node-role.kubernetes.io/control-plane` or `.../master`) admits it: its taints are
tolerated (or it has none) and `nodeSelector`, `nodeName` and required node affinity select
it; or when the pod is pinned to such a node by hostname. Without an inventory, the rule
assumes conventional control-plane nodes (tainted `NoSchedule`, labelled with their role),
and selectors on other labels count as matching; a pod that only tolerates the taint (and
does not select control-plane nodes) then reaches one only if the cluster has control-plane
nodes that admit workloads, which managed clusters do not: its `missing` is a warning that
says so. A pod that selects control-plane nodes (`nodeSelector` or required affinity on their
role label) is meant to run there and is judged whether or not it tolerates their taint: one
that does not runs only on control planes left untainted (Talos'
`allowSchedulingOnControlPlanes`, k3s), which is what its author counts on.

Every container and init container of such a pod must set `limits.cpu` and `limits.memory`
(and a request for each, or the limit that Kubernetes copies into it). With an inventory,
the pod's limits (containers summed, init containers at their peak) must stay at or below
`max-limit-fraction` of each such node's allocatable CPU and memory; the message names the
node, the limit and the share. In chart values, a component whose values set no `resources`
at all keeps the chart's defaults, which the repository does not show: it is not reported
(app-template has no default resources, so its containers always are). Helm merges the
values over the chart's defaults key by key: for a chart whose default `resources`
reviewbot has read (`coredns`, `cert-manager`, `forgejo`: bot/model/chart_defaults.py) the
container is judged as the chart renders it (coredns' default cpu limit stays under values
that write `limits: {memory: 128Mi}`); for another chart, what the values leave out of a
`resources` block they write is the chart's, unseen: a warning that says so.

Kinds:

- `missing`: a container or init container lacks a CPU or memory limit (or request).
- `share`: the pod's limits exceed `max-limit-fraction` of a control-plane node's
  allocatable CPU or memory.

When it stays quiet:

Pods no control-plane node admits and that do not select one (its taints not tolerated,
selectors or affinity pointing elsewhere); a container running the pause image (it sleeps,
nothing else); chart components whose values set no `resources`
at all (the chart's defaults are not in the repository; app-template has none, so its
containers are always judged).
Without an inventory, the rule assumes the conventional control-plane nodes.

Failing example:

```yaml
# .reviewbot.yaml
cluster:
  nodes:
  - name: talos-cp-3
    labels: {kubernetes.io/hostname: talos-cp-3, node-role.kubernetes.io/control-plane: ""}
    taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]
    allocatable: {cpu: 11950m, memory: 15Gi}
```

```yaml
# forgejo.yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: forgejo, namespace: forgejo}
spec:
  selector: {matchLabels: {app: forgejo}}
  template:
    metadata: {labels: {app: forgejo}}
    spec:
      nodeSelector: {kubernetes.io/hostname: talos-cp-3}
      tolerations:
      - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
      containers:
      - name: forgejo
        image: codeberg.org/forgejo/forgejo:11.0
        resources:
          requests: {cpu: 500m, memory: 512Mi}
          limits: {cpu: 1000m}   # no memory limit
```

Passing example:

```yaml
# .reviewbot.yaml
cluster:
  nodes:
  - name: talos-cp-3
    labels: {kubernetes.io/hostname: talos-cp-3, node-role.kubernetes.io/control-plane: ""}
    taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]
    allocatable: {cpu: 11950m, memory: 15Gi}
```

```yaml
# forgejo.yaml
apiVersion: apps/v1
kind: Deployment
metadata: {name: forgejo, namespace: forgejo}
spec:
  selector: {matchLabels: {app: forgejo}}
  template:
    metadata: {labels: {app: forgejo}}
    spec:
      nodeSelector: {kubernetes.io/hostname: talos-cp-3}
      tolerations:
      - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
      containers:
      - name: forgejo
        image: codeberg.org/forgejo/forgejo:11.0
        resources:
          requests: {cpu: 500m, memory: 512Mi}
          limits: {cpu: 3000m, memory: 1Gi}   # 25.1% of the node's CPU
```
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

from reviewbot.engine.findings import Violation
from reviewbot.engine.registry import Option
from reviewbot.model.objects import Container, Inventory, Model, Node, PodTemplate, dig, items
from reviewbot.model.quantity import format_quantity, quote
from reviewbot.model.values import chart_resources
from reviewbot.model.workload import (
    CONTROL_PLANE_KEYS,
    admits,
    describe,
    field_path,
    pinned_node,
    required_terms,
    selects,
    share,
    stand_in_control_planes,
    toleration_of,
    untolerated,
    written,
)
from reviewbot.rules._kit import each_pod, views

ID = "control-plane-resources"
SEVERITY = "error"
SUMMARY = "Pods that can run on control-plane nodes set CPU/memory limits within a node share."
RATIONALE = (
    "Control-plane nodes run etcd and the API server; an unbounded or oversized pod there "
    "starves the cluster's own brain."
)
FIX = "Set resources.requests and resources.limits for cpu and memory, within the node share."
OPTIONS = (
    Option("max-limit-fraction", "number", 0.3,
           "Largest share of a control-plane node's allocatable CPU or memory a pod may limit.",
           minimum=0, exclusive_minimum=True, maximum=1),
)
SEVERITIES = {"missing": "error", "share": "error"}
ADMISSION = "admitted"  # its findings hold once the API server admits the object (what it runs)
# a pod that only tolerates the taint reaches a control-plane node only if the cluster has one
# that admits workloads (managed clusters have none): without an inventory, not known
TOLERATES_ONLY = ("whether the cluster has control-plane nodes that admit workloads (no node "
                  "inventory; managed clusters such as GKE, EKS and AKS have none)")
RESOURCES = ("cpu", "memory")
# a chart's values write part of ``resources``; Helm merges them over the chart's defaults,
# which reviewbot does not hold for that chart (model.chart_defaults)
CHART_DEFAULTS = ("the chart's default resources, which Helm merges under these values key "
                  "by key (a limit the chart sets by default stays unless the values set it "
                  "to null)")
_AS_WRITTEN: Any = object()

SCOPE = "object"  # each finding depends on its object, its pods and the configuration only


def check_set(model: Model, opts: Mapping[str, Any]) -> Iterator[Violation]:
    fraction = Fraction(str(opts.get("max-limit-fraction", 0.3)))
    clusters = views(model)
    pods = list(each_pod(model))
    if len(clusters) < 2:
        yield from _cluster(model, model.inventory, pods, fraction)
        return
    # each cluster with its own nodes (a new-user trial: two clusters built one Deployment,
    # and the untainted control plane of the second was never asked); its pods are the
    # model's (a review runs this rule on the changed objects only); what two clusters say
    # alike of one object is said once
    said: set[tuple[str, int, tuple[str | int, ...], str]] = set()
    placed = {id(p.obj): model.clusters.get(id(p.obj)) or frozenset() for p in pods}
    groups = [(view.inventory, [p for p in pods if cluster in placed[id(p.obj)]])
              for cluster, view in clusters]
    groups.append((model.inventory, [p for p in pods if not placed[id(p.obj)]]))
    for inventory, mine in groups:
        for found in _cluster(model, inventory, mine, fraction):
            key = (found.obj.file if found.obj is not None else "",
                   found.obj.doc.index if found.obj is not None and found.obj.doc else 0,
                   found.path, found.message)
            if key not in said:
                said.add(key)
                yield found


def _cluster(model: Model, inventory: Inventory, pods: Sequence[PodTemplate],
             fraction: Fraction) -> Iterator[Violation]:
    planes = [n for n in inventory.nodes if n.control_plane]
    stand_in = not inventory.nodes
    if not planes and not stand_in:
        return  # the inventory lists the cluster's nodes, and none is a control plane
    for pod in pods:
        aimed = _aims_at_control_plane(pod)
        if stand_in:
            nodes = [n for n in stand_in_control_planes()
                     if admits(pod, n, assume_unknown=True)
                     or (aimed and selects(pod, n, assume_unknown=True))]
        else:
            pinned = pinned_node(pod, inventory)
            nodes = [n for n in planes if n is pinned or (
                pinned is None and (admits(pod, n) or (aimed and selects(pod, n))))]
        if not nodes:
            continue
        why = _why(pod, nodes[0], stand_in, pinned_node(pod, inventory))
        complete = True
        for container in pod.containers:
            if container.role == "ephemeralContainer" or _pause(container):
                continue
            rendered = chart_resources(model, pod, container)
            if rendered is not None and rendered[1]:  # the chart's defaults are known
                missing = _missing(container, rendered[0])
            elif not container.declared_resources:
                complete = False
                continue
            else:
                missing = _missing(container)
            if missing:
                complete = False
                doubts = [TOLERATES_ONLY if stand_in and not aimed else None,
                          CHART_DEFAULTS if rendered is not None and not rendered[1] else None]
                yield _missing_violation(pod, container, missing, nodes[0], why,
                                         " and ".join(d for d in doubts if d) or None)
        if complete and not stand_in:
            yield from _shares(pod, nodes, fraction)


def _aims_at_control_plane(pod: PodTemplate) -> bool:
    """nodeSelector or required affinity asks for a control-plane role label (such a pod is
    meant to run there, whether or not it tolerates the taint yet)."""
    if any(k in CONTROL_PLANE_KEYS for k in pod.node_selector):
        return True
    terms = required_terms(pod)
    return bool(terms) and all(
        any(e.get("key") in CONTROL_PLANE_KEYS and e.get("operator") in ("In", "Exists")
            for e in items(t.get("matchExpressions")) if isinstance(e, dict))
        for t in terms or []
    )


def _why(pod: PodTemplate, node: Node, stand_in: bool, inventory_pinned: Node | None) -> str:
    if stand_in:
        taint = node.taints[0]
        if _aims_at_control_plane(pod):
            return f"selects control-plane nodes ({taint['key']})"
        toleration = toleration_of(pod.tolerations, taint)
        if toleration is not None and not toleration.get("key"):
            # operator Exists without a key: every taint (of its effect, if it names one)
            every = f"every {toleration['effect']} taint" if toleration.get("effect") else (
                "every taint")
            return (f"tolerates {every} (a toleration with operator Exists and no key), "
                    f"{taint['key']} among them, so it can run on a control-plane node")
        return f"tolerates the {taint['key']} taint, so it can run on a control-plane node"
    if inventory_pinned is not None and inventory_pinned.name == node.name:
        return f"is pinned to control-plane node {node.name}"
    if not node.taints:
        return f"can run on control-plane node {node.name} (the node has no taints)"
    if untolerated(pod, node):
        return f"selects control-plane node {node.name}"
    return f"tolerates control-plane node {node.name}'s taints, so it can run there"


def _pause(container: Container) -> bool:
    """Whether ``container`` runs the pause image (``registry.k8s.io/pause``, a mirror's
    ``mirrored-pause``): it sleeps, nothing else, the main container of a DaemonSet whose
    init container does the work (a node-tuning sysctl set: judge round BS's rwlove)."""
    image = str(container.body.get("image") or "")
    name = image.split("@")[0].rsplit("/", 1)[-1].split(":")[0]
    return name == "pause" or name.endswith("-pause")


def _missing(container: Container, rendered: Any = _AS_WRITTEN) -> list[str]:
    """What ``container`` lacks, as written or as its chart ``rendered`` its resources."""
    out = []
    for resource in RESOURCES:
        if rendered is _AS_WRITTEN:
            limit = container.quantity("limits", resource)
            request = container.quantity("requests", resource)
        else:
            limit = dig(rendered, ("limits", resource))
            request = dig(rendered, ("requests", resource))
        if limit is None:
            out.append(f"{resource} limit")
            if request is None:
                out.append(f"{resource} request")
    return out


def _join(items: Sequence[str]) -> str:
    said = [f"no {item}" for item in items]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def _missing_violation(pod: PodTemplate, container: Container, missing: Sequence[str],
                       node: Node, why: str, doubt: str | None) -> Violation:
    resources = field_path(container, "resources")
    path = resources + ("limits",) if any("limit" in m for m in missing) else resources
    unbounded = [m.split(" ")[0] for m in missing if m.endswith(" limit")]
    use = unbounded[0] if len(unbounded) == 1 else " and ".join(unbounded)
    return Violation(
        pod.obj, path,
        f"{pod.name} {why}; {describe(container)} sets {_join(missing)}: its {use} use there "
        "has no bound and competes with etcd and the API server",
        fix=_fix(container, missing),
        kind="missing", doubt=doubt,
    )


def _fix(container: Container, missing: Sequence[str]) -> str:
    """The fields to set: only those missing (``cpu limit`` -> ``resources.limits.cpu``)."""
    fields = [f"resources.{kind}s.{resource}"
              for resource, kind in (m.split(" ") for m in missing)]
    said = fields[0] if len(fields) == 1 else ", ".join(fields[:-1]) + " and " + fields[-1]
    bound = any(m.endswith(" limit") for m in missing)
    return (f"Set {said} for {container.name}"
            + (" (requests at or below the limits)" if bound else "")
            + ", sized from measured usage.")


def _shares(pod: PodTemplate, nodes: Sequence[Node], fraction: Fraction) -> Iterator[Violation]:
    for resource in RESOURCES:
        total = _limit_total(pod, resource)
        sized = [n for n in nodes if n.allocatable.get(resource)]
        if not sized or total is None:
            continue
        node = min(sized, key=lambda n: n.allocatable[resource])
        allocatable = node.allocatable[resource]
        if total <= fraction * allocatable:
            continue
        container = _largest(pod, resource)
        ceiling = fraction * allocatable
        limits = written(pod, resource, "limits")
        yield Violation(
            pod.obj, field_path(container, "resources") + ("limits", resource),
            f"{pod.name} limits {resource} to {quote(resource, total, *limits, compared=True)}, "
            f"{share(total, allocatable)} of control-plane node {node.name}'s "
            f"{quote(resource, allocatable, node.written.get(resource), compared=True)} "
            "allocatable; the ceiling is "
            f"{float(fraction):g} of the node ({format_quantity(resource, ceiling)})",
            fix=(f"Lower limits.{resource} to at most {format_quantity(resource, ceiling)}, "
                 "or move the workload off the control plane."),
            kind="share",
        )


def _running(c: Container) -> bool:
    """App containers and native sidecars run together; plain init containers run alone."""
    return c.role == "container" or (
        c.role == "initContainer" and c.body.get("restartPolicy") == "Always")


def _limit_total(pod: PodTemplate, resource: str) -> Fraction | None:
    main = Fraction(0)
    peak = Fraction(0)
    for c in pod.containers:
        if c.role == "ephemeralContainer":
            continue
        value = c.quantity("limits", resource)
        if value is None:
            return None
        if _running(c):
            main += value
        else:
            peak = max(peak, value)
    return max(main, peak)


def _largest(pod: PodTemplate, resource: str) -> Container:
    """The container to point at: the largest limit among those that set the pod's total."""
    def limit(c: Container) -> Fraction:
        return c.quantity("limits", resource) or Fraction(0)

    running = [c for c in pod.containers if _running(c)]
    alone = [c for c in pod.containers if c.role == "initContainer" and not _running(c)]
    main = sum((limit(c) for c in running), Fraction(0))
    group = running if main >= max((limit(c) for c in alone), default=Fraction(0)) else alone
    return max(group or list(pod.containers), key=limit)
