"""AdminNetworkPolicy and BaselineAdminNetworkPolicy (``policy.networking.k8s.io/v1alpha1``).

The cluster-scoped tiers around NetworkPolicies, as the network-policy-api defines them. For
one direction of a connection (egress: the source is the subject, the destination the peer;
ingress: the other way round):

1. AdminNetworkPolicies whose ``subject`` selects the subject pod and that have rules for the
   direction, in ascending ``priority`` (0 first), each one's rules in order: the first rule
   whose peers select the peer decides a connection with its ``action``: ``Allow`` or
   ``Deny`` end evaluation, ``Pass`` skips the remaining AdminNetworkPolicies. A policy
   without rules for a direction does not touch it; no implicit isolation: what no rule
   matches goes on.
2. What the AdminNetworkPolicies left undecided (passed or unmatched) goes to the
   NetworkPolicies: when one selects the subject for the direction, their union decides it.
3. Otherwise the BaselineAdminNetworkPolicy (the one named ``default``) decides it with its
   rules in order (``Allow`` / ``Deny``); what it does not match is allowed.

``subject``: ``namespaces`` (a namespace selector) or ``pods`` (``namespaceSelector`` and
``podSelector``). Peers: ``namespaces``, ``pods``, for egress ``networks`` (CIDRs: addresses
outside the cluster; IPv6 ones are not evaluated) and ``nodes`` (node addresses: not in the
model, so they match no pod and no external range). Ports: ``portNumber``, ``portRange``
(inclusive), ``namedPort`` (resolved on the destination pod; no such port: nothing). Several
AdminNetworkPolicies at one priority are undefined upstream: they are ordered by name and
reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reviewbot.model.objects import KObject, Namespace, PodTemplate
from reviewbot.model.selectors import Selector
from reviewbot.netpol.policy import ANP, BANP
from reviewbot.netpol.sets import ALL, NONE, PROTOCOLS, Conns, Interval, cidr_range, union_all

Path = tuple[str | int, ...]
NamedPorts = Mapping[tuple[str, str], tuple[int, ...]]
ACTIONS = frozenset({"Allow", "Deny", "Pass"})


@dataclass(frozen=True, slots=True)
class AdminPort:
    """A port (or range, or named port) of an admin network policy rule."""

    protocol: str
    start: int | None  # None with ``name``
    end: int | None
    name: str | None = None

    def resolve(self, ports: NamedPorts | None) -> Conns:
        if self.protocol not in PROTOCOLS:
            return NONE
        if self.name is None:
            assert self.start is not None and self.end is not None
            return Conns.ports(self.protocol, self.start, self.end)
        if ports is None:  # an address: a named port means nothing there
            return NONE
        return Conns.make([
            (protocol, tuple((n, n) for n in numbers))
            for (name, protocol), numbers in ports.items() if name == self.name
        ])


@dataclass(frozen=True, slots=True)
class AdminPeer:
    """A peer of an admin network policy rule: namespaces, pods or networks."""

    kind: str  # namespaces | pods | networks | nodes | invalid
    namespaces: Selector | None = None
    pods: Selector | None = None
    networks: tuple[Interval, ...] = ()


@dataclass(frozen=True, slots=True)
class AdminRule:
    """One rule of an admin network policy: action, direction, peers, ports."""

    policy: str  # "[ANP] name" / "[BANP] default"
    name: str
    action: str  # Allow | Deny | Pass (anything else: the rule is ignored)
    direction: str  # ingress | egress
    peers: tuple[AdminPeer, ...]
    ports: tuple[AdminPort, ...] | None  # None: every port
    path: Path

    @property
    def uses_names(self) -> bool:
        return any(p.name is not None for p in self.ports or ())

    def conns(self, ports: NamedPorts | None) -> Conns:
        if self.ports is None:
            return ALL
        return union_all(p.resolve(ports) for p in self.ports)


@dataclass(eq=False)
class AdminPolicy:
    """An AdminNetworkPolicy or BaselineAdminNetworkPolicy, compiled."""

    obj: KObject
    kind: str  # AdminNetworkPolicy | BaselineAdminNetworkPolicy
    priority: int | None
    subject: AdminPeer  # kind namespaces or pods
    ingress: tuple[AdminRule, ...]
    egress: tuple[AdminRule, ...]

    @property
    def name(self) -> str:
        return f"[{'ANP' if self.kind == ANP else 'BANP'}] {self.obj.name}"


def compile_admin(obj: KObject) -> AdminPolicy:
    spec = obj.get(("spec",))
    spec = spec if isinstance(spec, dict) else {}
    priority = spec.get("priority")
    kind = obj.kind
    short = f"[{'ANP' if kind == ANP else 'BANP'}] {obj.name}"
    policy = AdminPolicy(
        obj, kind,
        priority if isinstance(priority, int) and not isinstance(priority, bool) else None,
        _subject(spec.get("subject")), (), (),
    )
    policy.ingress = _admin_rules(short, kind, spec.get("ingress"), "ingress", "from")
    policy.egress = _admin_rules(short, kind, spec.get("egress"), "egress", "to")
    return policy


def _subject(raw: Any) -> AdminPeer:
    if not isinstance(raw, dict) or ("namespaces" in raw) == ("pods" in raw):
        return AdminPeer("invalid")
    return _selectors(raw)


def _selectors(raw: dict[str, Any]) -> AdminPeer:
    if "namespaces" in raw:
        return AdminPeer("namespaces", Selector.parse(raw["namespaces"] or {}), None)
    pods = raw.get("pods")
    if not isinstance(pods, dict):
        return AdminPeer("invalid")
    return AdminPeer(
        "pods", Selector.parse(pods.get("namespaceSelector") or {}),
        Selector.parse(pods.get("podSelector") or {}),
    )


def _admin_rules(
    policy: str, kind: str, raw: Any, direction: str, peer_key: str
) -> tuple[AdminRule, ...]:
    if not isinstance(raw, list):
        return ()
    out = []
    for i, entry in enumerate(raw):
        entry = entry if isinstance(entry, dict) else {}
        action = str(entry.get("action") or "")
        if kind == BANP and action == "Pass":
            action = "invalid"  # a baseline has no tier below it to pass to
        peers_raw = entry.get(peer_key)
        peers = tuple(_admin_peer(p) for p in peers_raw) if isinstance(peers_raw, list) else ()
        ports_raw = entry.get("ports")
        ports = (
            tuple(p for p in (_admin_port(x) for x in ports_raw) if p is not None)
            if isinstance(ports_raw, list) else None
        )
        out.append(AdminRule(
            policy, str(entry.get("name") or i), action, direction, peers, ports,
            ("spec", direction, i),
        ))
    return tuple(out)


def _admin_peer(raw: Any) -> AdminPeer:
    if not isinstance(raw, dict):
        return AdminPeer("invalid")
    present = [k for k in ("namespaces", "pods", "networks", "nodes") if k in raw]
    if len(present) != 1:
        return AdminPeer("invalid")
    if present[0] == "networks":
        cidrs = raw["networks"] if isinstance(raw["networks"], list) else []
        ranges = tuple(r for r in (cidr_range(str(c)) for c in cidrs) if r is not None)
        return AdminPeer("networks", networks=ranges)
    if present[0] == "nodes":
        return AdminPeer("nodes")
    return _selectors(raw)


def _admin_port(raw: Any) -> AdminPort | None:
    if not isinstance(raw, dict) or len(raw) != 1:
        return None
    number, span, named = raw.get("portNumber"), raw.get("portRange"), raw.get("namedPort")
    if isinstance(number, dict) and _int(number.get("port")) is not None:
        port = _int(number.get("port"))
        return AdminPort(str(number.get("protocol") or "TCP"), port, port)
    if isinstance(span, dict):
        start, end = _int(span.get("start")), _int(span.get("end"))
        if start is None or end is None or end < start:
            return None
        return AdminPort(str(span.get("protocol") or "TCP"), start, end)
    if isinstance(named, str):
        return AdminPort("TCP", None, None, named)
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# ---------------------------------------------------------------- evaluation


class AdminLayer:
    """The ANP tier and the BANP tier of one repository model, over the Network's pods."""

    def __init__(
        self, objects: Sequence[KObject], pods: Sequence[PodTemplate],
        namespaces: Mapping[str, Namespace], ports_of: Callable[[int], NamedPorts],
        signature: Callable[[int], Any],
    ) -> None:
        compiled = [compile_admin(o) for o in objects]
        anps = [p for p in compiled if p.kind == ANP]
        banps = [p for p in compiled if p.kind == BANP]
        anps.sort(key=lambda p: (p.priority if p.priority is not None else 1 << 30, p.obj.name))
        self.warnings: list[str] = []
        seen: dict[int | None, str] = {}
        for p in anps:
            if p.priority is None or not 0 <= p.priority <= 1000:
                self.warnings.append(
                    f"AdminNetworkPolicy {p.obj.name}: priority {p.priority} is not in 0..1000"
                )
            elif p.priority in seen:
                self.warnings.append(
                    f"AdminNetworkPolicies {seen[p.priority]} and {p.obj.name} share priority "
                    f"{p.priority}: their order is undefined (evaluated by name)"
                )
            else:
                seen[p.priority] = p.obj.name
        named_default = [b for b in banps if b.obj.name == "default"]
        for b in banps:
            if b.obj.name != "default":
                self.warnings.append(
                    f"BaselineAdminNetworkPolicy {b.obj.name} is ignored: the only one "
                    "evaluated is named default"
                )
        self.anps = anps
        self.banp = named_default[0] if named_default else None
        self.policies = anps + ([self.banp] if self.banp is not None else [])
        self.pods = pods
        self.namespaces = namespaces
        self.ports_of = ports_of
        self.signature = signature
        self._subject_rules: dict[tuple[int, str, bool], tuple[AdminRule, ...]] = {}
        self._selects: dict[tuple[int, int], bool] = {}
        self._conns: dict[Any, Conns] = {}

    # -------------------------------------------------- selection

    def _ns_labels(self, name: str) -> Mapping[str, str]:
        ns = self.namespaces.get(name)
        return ns.labels if ns is not None else {"kubernetes.io/metadata.name": name}

    def peer_selects(self, peer: AdminPeer, i: int) -> bool:
        key = (id(peer), i)
        hit = self._selects.get(key)
        if hit is None:
            pod = self.pods[i]
            if peer.kind == "namespaces":
                assert peer.namespaces is not None
                hit = peer.namespaces.matches(self._ns_labels(pod.namespace))
            elif peer.kind == "pods":
                assert peer.namespaces is not None and peer.pods is not None
                hit = peer.pods.matches(pod.labels) and peer.namespaces.matches(
                    self._ns_labels(pod.namespace)
                )
            else:
                hit = False
            self._selects[key] = hit
        return hit

    def rules_for(self, i: int, direction: str, baseline: bool) -> tuple[AdminRule, ...]:
        """The rules, in precedence order, of the policies of one tier whose subject is pod i."""
        key = (i, direction, baseline)
        rules = self._subject_rules.get(key)
        if rules is None:
            pool = ([self.banp] if self.banp is not None else []) if baseline else self.anps
            out: list[AdminRule] = []
            for policy in pool:
                mine = policy.ingress if direction == "ingress" else policy.egress
                if mine and self.peer_selects(policy.subject, i):
                    out.extend(mine)
            rules = self._subject_rules[key] = tuple(out)
        return rules

    def subjects(self, direction: str) -> bool:
        return any(p.ingress if direction == "ingress" else p.egress for p in self.policies)

    def _rule_conns(self, rule: AdminRule, d: int | None) -> Conns:
        key: Any = id(rule)
        if rule.uses_names:
            key = (key, self.signature(d) if d is not None else None)
        conns = self._conns.get(key)
        if conns is None:
            conns = self._conns[key] = rule.conns(self.ports_of(d) if d is not None else None)
        return conns

    # -------------------------------------------------- verdicts

    def _decide(
        self, rules: Sequence[AdminRule], match: Callable[[AdminPeer], bool], d: int | None
    ) -> tuple[Conns, Conns, Conns]:
        """(allowed, denied, passed) by the first matching rule per connection."""
        allowed = denied = passed = NONE
        decided = NONE
        for rule in rules:
            if rule.action not in ACTIONS or not any(match(p) for p in rule.peers):
                continue
            conns = self._rule_conns(rule, d).subtract(decided)
            if not conns:
                continue
            decided = decided.union(conns)
            if rule.action == "Allow":
                allowed = allowed.union(conns)
            elif rule.action == "Deny":
                denied = denied.union(conns)
            else:
                passed = passed.union(conns)
            if decided.is_all:
                break
        return allowed, denied, passed

    def pod_verdict(
        self, subject: int, peer: int, direction: str, dst: int
    ) -> tuple[Conns, Conns]:
        """ANP tier for a pod-to-pod direction: (allowed, undecided) connections."""
        rules = self.rules_for(subject, direction, False)
        if not rules:
            return NONE, ALL
        allowed, denied, _ = self._decide(rules, lambda p: self.peer_selects(p, peer), dst)
        return allowed, ALL.subtract(allowed.union(denied))

    def pod_baseline_denied(self, subject: int, peer: int, direction: str, dst: int) -> Conns:
        rules = self.rules_for(subject, direction, True)
        if not rules:
            return NONE
        return self._decide(rules, lambda p: self.peer_selects(p, peer), dst)[1]

    def ip_verdict(self, s: int, piece: Interval) -> tuple[Conns, Conns]:
        """ANP tier for pod ``s`` sending to the external range ``piece``."""
        rules = self.rules_for(s, "egress", False)
        if not rules:
            return NONE, ALL
        allowed, denied, _ = self._decide(rules, lambda p: _covers(p, piece), None)
        return allowed, ALL.subtract(allowed.union(denied))

    def ip_baseline_denied(self, s: int, piece: Interval) -> Conns:
        rules = self.rules_for(s, "egress", True)
        if not rules:
            return NONE
        return self._decide(rules, lambda p: _covers(p, piece), None)[1]

    def network_blocks(self) -> list[tuple[Interval, ...]]:
        out: list[tuple[Interval, ...]] = []
        for policy in self.policies:
            for rule in policy.egress:
                for peer in rule.peers:
                    if peer.kind == "networks" and peer.networks:
                        out.extend((r,) for r in peer.networks)
        return out


def _covers(peer: AdminPeer, piece: Interval) -> bool:
    return peer.kind == "networks" and any(
        lo <= piece[0] and piece[1] <= hi for lo, hi in peer.networks
    )
