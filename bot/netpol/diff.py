"""The connectivity diff: which flows two versions of a tree allow differently.

For every ordered pair of peers (workloads, external ranges, ``{ingress-controller}``) whose
allowed connections differ between ``ref1`` (old) and ``ref2`` (new): ``added`` (nothing
before), ``removed`` (nothing after) or ``changed`` (both non-empty, different sets); a
peer present on one side only is named in ``workloads-diff-info``. Renderings: np-guard
netpol-analyzer's diff txt format (``connlist``), JSON, a Markdown table and a Mermaid graph.
"""

from __future__ import annotations

import bisect
import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

from reviewbot.diff.objects import ObjectDiff, TreeDiff, as_kept
from reviewbot.escape import json_text, term
from reviewbot.model.objects import CUSTOM_KINDS, Model, views_of
from reviewbot.netpol.ingress import INGRESS_PEER, IngressController
from reviewbot.netpol.network import Network, connectivity, workload_groups
from reviewbot.netpol.policy import ADMIN_KINDS
from reviewbot.netpol.sets import Interval, format_range, normalize

NO_CONNS = "No Connections"
ORDER = ("changed", "added", "removed")


@dataclass(frozen=True)
class FlowChange:
    """One flow added, removed or changed between two trees."""

    diff_type: str  # added | removed | changed
    source: str
    destination: str
    ref1: str
    ref2: str
    info: str = ""  # "workload X added", "workload X and Y removed"
    # the cluster both ends run in, where the tree holds several (flows never cross two
    # clusters); "" in a tree of one cluster
    cluster: str = ""

    def as_json(self) -> dict[str, str]:
        out = {"diff_type": self.diff_type, "source": self.source,
               "destination": self.destination, "ref1": self.ref1, "ref2": self.ref2}
        if self.cluster:
            out["cluster"] = self.cluster
        return out

    def line(self, names: tuple[str, str] = ("ref1", "ref2")) -> str:
        text = (f"diff-type: {self.diff_type}, source: {term(self.source)}, destination: "
                f"{term(self.destination)}, {names[0]}: {self.ref1}, {names[1]}: {self.ref2}")
        text += f", workloads-diff-info: {term(self.info)}" if self.info else ""
        return text + (f", cluster: {term(self.cluster)}" if self.cluster else "")


@dataclass(frozen=True)
class Side:
    """One version's connectivity: its flows (cluster, source, destination, the allowed
    connections as text) and its workload peers (cluster, peer); the cluster is "" in a tree
    of one cluster. Plain data, so a review's base side can be cached."""

    flows: tuple[tuple[str, str, str, str], ...]
    peers: frozenset[tuple[str, str]]

    @staticmethod
    def of(network: Network, cluster: str = "") -> Side:
        return Side(tuple((cluster, f.src, f.dst, str(f.conns)) for f in connectivity(network)),
                    frozenset((cluster, p) for p in workload_groups(network)))

    def cluster(self, name: str) -> Side:
        """The flows and peers of one cluster."""
        return Side(tuple(f for f in self.flows if f[0] == name),
                    frozenset(p for p in self.peers if p[0] == name))

    def clusters(self) -> set[str]:
        return {f[0] for f in self.flows} | {p[0] for p in self.peers}

    def as_json(self) -> dict[str, list[Any]]:
        return {"flows": [list(f) for f in self.flows], "peers": sorted(map(list, self.peers))}

    @staticmethod
    def from_json(raw: Any) -> Side | None:
        """The side :meth:`as_json` wrote; None when ``raw`` is not one."""
        try:
            flows = tuple((str(k), str(a), str(b), str(c)) for k, a, b, c in raw["flows"])
            peers = frozenset((str(k), str(p)) for k, p in raw["peers"])
        except (KeyError, TypeError, ValueError):
            return None
        return Side(flows, peers)


def networks(model: Model, controller: IngressController | None = None
             ) -> list[tuple[str, Network]]:
    """One evaluator per cluster of ``model`` (:func:`cluster_views`: pods of two clusters
    never reach each other, whatever their namespaces' names), each with its cluster's name,
    "" when the tree holds one cluster."""
    return [(name or "", Network(view, controller=controller))
            for name, view in views_of(model)]


def side_of(model: Model, controller: IngressController) -> Side:
    """``model``'s connectivity as :func:`review_connectivity` compares it."""
    return sides_of(networks(model, controller))


def sides_of(nets: Sequence[tuple[str, Network]]) -> Side:
    """The connectivity of every cluster's network, each flow and peer with its cluster."""
    parts = [Side.of(net, name) for name, net in nets]
    return Side(tuple(f for part in parts for f in part.flows),
                frozenset(p for part in parts for p in part.peers))


def diff_sides(old: Side, new: Side, compact: bool = False) -> list[FlowChange]:
    """The changed flows, in np-guard's order: changed, added, removed (each sorted), the
    ingress controller's after all the others; cluster by cluster, as each flow runs in one.

    External ranges differ between the sides (each cut at its own ipBlocks): both are cut at
    every boundary of either, compared piece by piece, and pieces with the same other peer
    and the same change are merged again where they touch. ``compact`` (a review's, not
    `netpol diff`'s np-guard format): ranges that span every address but a few holes are one
    flow, named by those holes (:func:`_range_names`)."""
    out: list[FlowChange] = []
    for name in sorted(old.clusters() | new.clusters()):
        out += [replace(c, cluster=name) if name else c
                for c in _diff_cluster(old.cluster(name), new.cluster(name), compact)]
    out.sort(key=lambda c: (c.source == INGRESS_PEER, ORDER.index(c.diff_type), c.cluster,
                            c.line()))
    return out


def _diff_cluster(old: Side, new: Side, compact: bool = False) -> list[FlowChange]:
    cuts: set[int] = set()
    for _, flow_src, flow_dst, _ in old.flows + new.flows:
        for name in (flow_src, flow_dst):
            block = _ip(name)
            if block is not None:
                cuts.update((block[0], block[1] + 1))
    points = sorted(cuts)
    before = _split(old.flows, points)
    after = _split(new.flows, points)
    plain: list[FlowChange] = []
    ranged: dict[tuple[str, bool, str, str, str], list[Interval]] = {}
    for key in before.keys() | after.keys():
        a, b = before.get(key, NO_CONNS), after.get(key, NO_CONNS)
        if a == b:
            continue
        kind = "added" if a == NO_CONNS else "removed" if b == NO_CONNS else "changed"
        src, dst = key
        if isinstance(src, tuple) or isinstance(dst, tuple):
            src_ip = isinstance(src, tuple)
            other = dst if src_ip else src
            piece = src if src_ip else dst
            assert isinstance(other, str) and isinstance(piece, tuple)
            ranged.setdefault((other, src_ip, kind, a, b), []).append(piece)
            continue
        assert isinstance(src, str) and isinstance(dst, str)
        plain.append(FlowChange(kind, src, dst, a, b, _info(kind, (src, dst), old, new)))
    for (other, src_ip, kind, a, b), pieces in ranged.items():
        for name in _range_names(normalize(pieces), compact):
            pair = (name, other) if src_ip else (other, name)
            plain.append(FlowChange(kind, pair[0], pair[1], a, b, _info(kind, pair, old, new)))
    return plain


_EVERY_IP = (0, 2 ** 32 - 1)


def _range_names(intervals: Sequence[Interval], compact: bool) -> list[str]:
    """How a flow change names the external addresses ``intervals`` hold: each range, or,
    where they span the whole IPv4 space but for a few holes, that space and its holes as
    CIDRs (new-user trials eighty W9 and eighty-one W2: a rule's `0.0.0.0/0` except the
    private ranges was four flows, `0.0.0.0-9.255.255.255[External]`, ...)."""
    if compact and len(intervals) > 1 and intervals[0][0] == _EVERY_IP[0] and (
            intervals[-1][1] == _EVERY_IP[1]):
        holes = [(intervals[i][1] + 1, intervals[i + 1][0] - 1)
                 for i in range(len(intervals) - 1)]
        cidrs = [str(net) for lo, hi in holes for net in ipaddress.summarize_address_range(
            ipaddress.IPv4Address(lo), ipaddress.IPv4Address(hi))]
        if len(cidrs) <= 8:
            return [f"0.0.0.0/0 except {', '.join(cidrs)}[External]"]
    return [f"{format_range(piece)}[External]" for piece in intervals]


Key: TypeAlias = str | Interval


def _ip(name: str) -> Interval | None:
    if not name.endswith("[External]"):
        return None
    lo, _, hi = name[: -len("[External]")].partition("-")
    return int(ipaddress.IPv4Address(lo)), int(ipaddress.IPv4Address(hi))


def _split(flows: Iterable[tuple[str, str, str, str]], points: list[int]
           ) -> dict[tuple[Key, Key], str]:
    out: dict[tuple[Key, Key], str] = {}
    for _, source, destination, conns in flows:
        src, dst = _ip(source), _ip(destination)
        piece = src or dst
        if piece is None:
            out[(source, destination)] = conns
            continue
        at = bisect.bisect_left(points, piece[0])
        while at + 1 < len(points) and points[at] <= piece[1]:
            atom = (points[at], points[at + 1] - 1)
            out[(atom, destination) if src else (source, atom)] = conns
            at += 1
    return out


def _info(kind: str, key: tuple[str, str], old: Side, new: Side) -> str:
    before = {p for _, p in old.peers}
    after = {p for _, p in new.peers}
    moved = [p for p in key if (p in before) != (p in after)]
    if not moved:
        return ""
    return f"workload {' and '.join(moved)} {kind}"


# ---------------------------------------------------------------- renderings


def render_connlist(
    changes: Sequence[FlowChange], names: tuple[str, str] = ("ref1", "ref2")
) -> str:
    """np-guard's diff txt format; ``names``: what the two sides are called."""
    if not changes:
        return ""
    return "Connectivity diff:\n" + "".join(c.line(names) + "\n" for c in changes)


def render_json(changes: Sequence[FlowChange]) -> str:
    doc = {"version": 1, "connectivity_diff": [c.as_json() for c in changes]}
    return json_text(doc) + "\n"


Code = Callable[[str], str]  # untrusted text -> a Markdown code span safe in a table cell


def render_table(changes: Sequence[FlowChange], code: Code, limit: int | None = None) -> str:
    """A Markdown table of the changes (at most ``limit`` rows, then a count of the rest);
    peer names go through ``code`` (they come from the tree: untrusted)."""
    if not changes:
        return ""
    rows = list(changes if limit is None else changes[:limit])
    out = ["| change | source | destination | before | after |",
           "|---|---|---|---|---|"]
    out += [f"| {c.diff_type} | {code(c.source)} | {code(c.destination)} | "
            f"{c.ref1} | {c.ref2} |" for c in rows]
    if len(rows) < len(changes):
        out.append(f"\n{len(changes) - len(rows)} more changed flow(s) not shown.")
    return "\n".join(out) + "\n"


_ARROWS = {"added": "-->", "removed": "-.->", "changed": "==>"}


_UNSAFE = re.compile(r"[^A-Za-z0-9._/:,{}\[\] -]")


def _label(text: str) -> str:
    """A Mermaid label: names come from the tree, so anything but the characters of peer
    names and connection sets is replaced (no quote, backtick, angle bracket or @)."""
    return _UNSAFE.sub("_", text)


# what the review calls each kind of change (its text says "opened" and "closed")
REVIEW_WORDS = {"added": "opened", "removed": "closed", "changed": "changed"}


def render_mermaid(changes: Sequence[FlowChange], limit: int | None = None,
                   words: Mapping[str, str] | None = None) -> str:
    """A Mermaid graph of the changed flows: added solid, removed dotted, changed thick;
    each edge labelled with its kind (``words``: in other words, :data:`REVIEW_WORDS`)."""
    rows = list(changes if limit is None else changes[:limit])
    ids: dict[str, str] = {}
    nodes: list[str] = []

    def node(name: str) -> str:
        if name not in ids:
            ids[name] = f"n{len(ids)}"
            nodes.append(f'  {ids[name]}["{_label(name)}"]')
        return ids[name]

    edges = []
    for c in rows:
        a, b = node(c.source), node(c.destination)
        text = c.ref2 if c.diff_type == "added" else c.ref1 if c.diff_type == "removed" else (
            f"{c.ref1} to {c.ref2}"
        )
        kind = words.get(c.diff_type, c.diff_type) if words else c.diff_type
        edges.append(f'  {a} {_ARROWS[c.diff_type]}|"{kind}: {_label(text)}"| {b}')
    return "graph LR\n" + "".join(line + "\n" for line in nodes + edges)


def render_markdown(changes: Sequence[FlowChange], code: Code) -> str:
    if not changes:
        return "No connectivity changes.\n"
    return (f"{len(changes)} flow(s) changed.\n\n" + render_table(changes, code)
            + "\n```mermaid\n" + render_mermaid(changes) + "```\n")


def changes_of(old: Sequence[tuple[str, Network]], new: Sequence[tuple[str, Network]]
               ) -> list[FlowChange]:
    """The changed flows between two trees' networks (:func:`networks`), cluster by cluster."""
    return diff_sides(sides_of(old), sides_of(new))


def summarize(changes: Iterable[FlowChange]) -> dict[str, int]:
    counts = dict.fromkeys(ORDER, 0)
    for c in changes:
        counts[c.diff_type] += 1
    return counts


# ---------------------------------------------------------------- in a review

# Kinds whose change can change who may talk to whom (besides the pods' own labels and ports).
POLICY_KINDS = frozenset({
    "NetworkPolicy", *ADMIN_KINDS, "Namespace", "Service", "Ingress", "Route",
    "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy",
    # a chart's values make pods, Services and NetworkPolicies (app-template); its source names
    # the chart and version that decide what they are
    "HelmRelease", "OCIRepository", "Application",
})
POD_KINDS = frozenset({
    "Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController",
    "Job", "CronJob", "InferenceService", *CUSTOM_KINDS,
})
# a change under one of these keys of a workload can change its peer, selection or ports
POD_FIELDS = frozenset({"labels", "ports", "hostNetwork", "ownerReferences", "namespace"})


def affects_connectivity(diff: TreeDiff) -> bool:
    """Whether a change set can change the connectivity at all: a policy, Namespace, Service,
    Ingress or Route changed, or a workload was added, removed, renamed, or had its labels,
    ports or containers changed. Anything else (images, replicas, resources, args) cannot."""
    return any(_affects(obj) for obj in diff.objects)


def _affects(obj: ObjectDiff) -> bool:
    """Whether one object's change can change the connectivity (:func:`affects_connectivity`)."""
    if obj.kind in POLICY_KINDS:
        return True
    if obj.kind not in POD_KINDS:
        return False
    if obj.status != "modified":
        return True
    for change in obj.changes:
        if POD_FIELDS.intersection(change.path):
            return True
        if "containers" in change.path[:-1] and change.path.index("containers") == len(
            change.path
        ) - 2 and change.op in ("added", "removed"):
            return True  # a container (and its ports) added or removed
    return False


# the note that says the flows a change makes wait for its head build (its start: the
# summary's counts line says "once the head builds" beside them)
WAITING = "not applied yet:"


def waiting_note(diff: TreeDiff, moving: Sequence[ObjectDiff] | None = None) -> str | None:
    """When every change that can alter a flow (of ``moving``: those of one cluster) is in
    a build kustomize refuses on the head (``ObjectDiff.unbuilt``), the note that says the
    flows shown are the sources' only: the cluster keeps its flows until the build is fixed
    (new-user trial sixteen read "1 closed flow" beside "the cluster keeps what it has")."""
    if moving is None:
        moving = [obj for obj in diff.objects if _affects(obj)]
    if not moving or any(o.unbuilt is None or o.unbuilt[0] != "head" for o in moving):
        return None
    unbuilt = moving[0].unbuilt
    assert unbuilt is not None
    _, file, entry, why = unbuilt
    return (f"{WAITING} the flows shown change when the head builds: {file}: {entry!r} {why}, "
            "so the build fails and the cluster keeps the flows it has")


def review_changes(
    diff: TreeDiff, base: Model, head: Model, controller: IngressController
) -> list[FlowChange] | None:
    """The flows a pull request opens, closes or changes; None when it cannot change any
    (nothing is evaluated then)."""
    found = review_connectivity(diff, base, head, controller)
    return None if found is None else found[0]


def review_connectivity(
    diff: TreeDiff, base: Model, head: Model, controller: IngressController,
    old: Callable[[], Side] | None = None, kept: Sequence[ObjectDiff] | None = None,
) -> tuple[list[FlowChange], list[str]] | None:
    """The flows a pull request opens, closes or changes, and what the head's connectivity
    does not evaluate where the change reaches ("not evaluated: HelmRelease ...": a chart whose
    pods are unknown, a Cilium construct); None when it cannot change any flow.

    ``old``: gives the base's side (``side_of(base, controller)``: a review reads it from its
    cache when it has it); ``kept``: ``diff.kept(base, head)``, when the caller has it."""
    if kept is None:
        kept = diff.kept(base, head)
    if kept:
        gone = {id(o) for o in kept}
        diff = replace(diff, objects=tuple(o for o in diff.objects if id(o) not in gone))
    if not affects_connectivity(diff):
        return None
    viewed = as_kept(head, base, kept)
    new = networks(viewed, controller)
    before = old() if old is not None else side_of(base, controller)
    if len(new) == 1 and not new[0][0] and before.clusters() - {""}:
        # the head holds one cluster of the base's several (an ApplicationSet no longer
        # deploys to the others): its flows are that cluster's, not unnamed ones (new-user
        # trial seventy: every in-cluster flow "closed (cluster in-cluster)" and "opened")
        named = {c for cs in viewed.clusters.values() for c in cs} or {
            r.cluster for r in getattr(viewed.derived.get("reach"), "roots", ())}
        if len(named) == 1 and (sole := next(iter(named))) in before.clusters():
            new = [(sole, new[0][1])]
    changes = diff_sides(before, sides_of(new), compact=True)
    notes: dict[str, list[str]] = {}
    for name, net in new:
        mine = [c for c in changes if c.cluster == name]
        for note in _relevant_notes(diff, net, mine, len(new) > 1):
            notes.setdefault(note, []).append(name)
    said = waiting_note(diff) if changes else None
    waiting = [said] if said else []
    if changes and not waiting and len(new) > 1:  # one cluster's head build fails
        for name, _ in new:
            if any(c.cluster == name for c in changes) and (
                    own := waiting_note(diff, _moving_in(diff, head, name))):
                waiting.append(merged_note(own, [name], len(new)))
    return changes, waiting + [
        merged_note(note, names, len(new)) for note, names in notes.items()]


def _moving_in(diff: TreeDiff, head: Model, cluster: str) -> list[ObjectDiff]:
    """The changes of ``diff`` that can alter a flow of ``cluster`` (an entry cut to some
    clusters, ``ObjectDiff.clusters``, is theirs; else its head object's)."""
    out = []
    for o in diff.objects:
        if not _affects(o):
            continue
        clusters = o.clusters or (head.clusters.get(id(o.head), frozenset())
                                  if o.head is not None else frozenset())
        if not clusters or cluster in clusters:
            out.append(o)
    return out


def merged_note(note: str, clusters: Sequence[str], of: int) -> str:
    """A note every cluster of ``clusters`` gives alike, once: naming them when the tree holds
    ``of`` clusters and some do not give it; each once (new-user trial eighty W7: "clusters
    dev, dev, dev, prod, ...", a note each of a cluster's views gave)."""
    clusters = list(dict.fromkeys(clusters))
    if not any(clusters) or len(clusters) == of:
        return note
    return f"{note} (cluster{'s' if len(clusters) > 1 else ''} {', '.join(clusters)})"


def _relevant_notes(diff: TreeDiff, net: Network, changes: Sequence[FlowChange],
                    several: bool) -> list[str]:
    """The head's "not evaluated" notes about the namespaces the change reaches in one
    cluster: those of its objects, those its changed policies name, and those of the flows it
    changes there (every one when a changed policy reaches namespaces by labels or
    cluster-wide)."""
    if several:  # one cluster of several: what the change holds in it
        here = {(o.kind, o.namespace, o.name) for o in net.model.objects}
        diff_objects = [o for o in diff.objects if (o.kind, o.namespace, o.name) in here]
    else:
        diff_objects = list(diff.objects)
    reached: set[str] | None = set()
    changed = {(o.kind, o.namespace, o.name) for o in diff.objects}
    for obj in diff_objects:
        if obj.namespace and reached is not None:
            reached.add(obj.namespace)
        if reached is not None and obj.kind in POLICY_KINDS:  # the namespaces its changed
            # rules named, the removed ones too (new-user trial fifty: the ingress from
            # llm-gateway dropped, whose chart's pods are not judged: nothing was said)
            for part in obj.changes:
                _namespaces_named(part.old, reached)
                _namespaces_named(part.new, reached)
    for policy in net.policies:
        if (policy.obj.kind, policy.obj.namespace, policy.obj.name) not in changed:
            continue
        if policy.subject_namespaces is not None:
            reached = None
            break
        assert reached is not None
        for rule in policy.ingress + policy.egress + policy.ingress_deny + policy.egress_deny:
            for peer in rule.peers or ():
                if peer.namespaces is None:
                    continue
                names = peer.namespaces.names()
                if names is None:
                    reached = None
                    break
                reached |= names
            if reached is None:
                break
        if reached is None:
            break
    if reached is not None:
        for change in changes:
            for end in (change.source, change.destination):
                reached.add(end.split("/", 1)[0])
    out = []
    for release in net.releases:
        if release.why_not and (reached is None or release.namespace in reached):
            out.append(f"not evaluated: {release.ref}: {release.why_not}")
    for chart in net.charts:  # a chart's namespace unwritten: the Flux or Argo CD one's
        if reached is None or not chart.namespace or chart.namespace in reached:
            out.append(f"not evaluated: {chart.ref}: {chart.why_not}")
    out += net.unrendered_notes(reached)
    touched = {(o.kind, o.namespace or "", o.name) for o in diff.objects}
    out += [n for n in net.cilium_notes(touched)]
    return out


# the labels a policy's peer names a namespace by (Kubernetes' and Cilium's)
_NAMESPACE_KEYS = frozenset({"kubernetes.io/metadata.name", "io.kubernetes.pod.namespace",
                             "k8s:io.kubernetes.pod.namespace"})


def _namespaces_named(value: Any, out: set[str], depth: int = 0) -> None:
    """Add to ``out`` each namespace ``value`` (a policy's changed part) names by label."""
    if depth > 20:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _NAMESPACE_KEYS and isinstance(item, str):
                out.add(item)
            elif key == "values" and isinstance(item, list) and value.get("key") in (
                    _NAMESPACE_KEYS):
                out.update(v for v in item if isinstance(v, str))
            else:
                _namespaces_named(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _namespaces_named(item, out, depth + 1)


REVIEW_ROWS = 30
REVIEW_ORDER = ("removed", "changed", "added")  # what can break traffic first


def _review_order(changes: Sequence[FlowChange]) -> list[FlowChange]:
    return sorted(changes, key=lambda c: REVIEW_ORDER.index(c.diff_type))  # stable


REVIEW_NOTES = 10  # "not evaluated" notes the review's section names before it counts


def review_section(changes: Sequence[FlowChange], code: Code,
                   notes: Sequence[str] = ()) -> str:
    """The review summary's section: a short table and a Mermaid graph of the changed flows
    (closed ones first, at most ``REVIEW_ROWS`` of each), then what the connectivity does not
    evaluate where the change reaches (``notes``, already escaped for Markdown)."""
    counts = summarize(changes)
    ordered = _review_order(changes)
    title = (f"### Connectivity ({counts['removed']} closed, {counts['changed']} changed, "
             f"{counts['added']} opened)\n\n")
    out = title
    if changes:
        out += (render_table(ordered, code, REVIEW_ROWS) + "\n```mermaid\n"
                + render_mermaid(ordered, REVIEW_ROWS) + "```\n")
    if notes:
        shown = [f"> {note}\n" for note in notes[:REVIEW_NOTES]]
        if len(notes) > REVIEW_NOTES:
            shown.append(f"> and {len(notes) - REVIEW_NOTES} more not evaluated\n")
        out += ("\n" if changes else "") + "".join(shown)
    return out


def review_line(changes: Sequence[FlowChange], code: Code) -> str:
    """One sentence for the summary's head: the flows the pull request closes, changes, opens."""
    counts = summarize(changes)
    closed = [c for c in changes if c.diff_type == "removed"]
    named = "; ".join(f"{code(c.source)} -> {code(c.destination)} {c.ref1}" for c in closed[:3])
    more = f" and {len(closed) - 3} more" if len(closed) > 3 else ""
    head = (f"**It closes {len(closed)} flow(s)** ({named}{more})" if closed
            else "It closes no flow")
    return (f"Connectivity: {head}, changes {counts['changed']} and opens {counts['added']} "
            "(table and graph below).")
