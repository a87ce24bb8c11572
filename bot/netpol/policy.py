"""Compiled network policies: what a NetworkPolicy (or a Cilium rule set, or a policy a chart
renders) says, as the evaluator (:mod:`reviewbot.netpol.network`) reads it: the pods it
selects, its rules per direction, their peers and ports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reviewbot.model.objects import KObject, mapping
from reviewbot.model.selectors import Selector
from reviewbot.netpol.sets import ALL, NONE, PROTOCOLS, Conns, IPBlock, union_all

# the AdminNetworkPolicy API (evaluated by admin.py, which the network imports only for a tree
# that holds such an object)
ADMIN_GROUP = "policy.networking.k8s.io"
ANP, BANP = "AdminNetworkPolicy", "BaselineAdminNetworkPolicy"
ADMIN_KINDS = frozenset({ANP, BANP})


def admin_objects(objects: Sequence[KObject]) -> list[KObject]:
    """The AdminNetworkPolicy and BaselineAdminNetworkPolicy objects of ``objects``."""
    return [o for o in objects if o.kind in ADMIN_KINDS and o.group == ADMIN_GROUP]

Path = tuple[str | int, ...]
NamedPorts = Mapping[tuple[str, str], tuple[int, ...]]  # (name, protocol) -> port numbers


# ---------------------------------------------------------------- policies


@dataclass(frozen=True, slots=True)
class PortSpec:
    """A port entry of a network policy rule."""

    protocol: str
    port: int | str | None  # None: every port
    end_port: int | None
    path: Path

    def resolve(self, ports: NamedPorts | None) -> Conns:
        """The connections this entry allows to a pod with these named ports (None: an IP
        address, where a named port means nothing)."""
        if self.protocol not in PROTOCOLS:
            if self.protocol == "ANY":  # Cilium: an omitted protocol matches every one
                return union_all([PortSpec(p, self.port, self.end_port, self.path).resolve(ports)
                                  for p in PROTOCOLS])
            return NONE
        if self.port is None:
            return Conns.ports(self.protocol)
        if isinstance(self.port, int):
            end = self.end_port if self.end_port is not None else self.port
            return Conns.ports(self.protocol, self.port, end)
        if ports is None:
            return NONE
        numbers = ports.get((self.port, self.protocol), ())
        return Conns.make([(self.protocol, tuple((n, n) for n in numbers))])

    def describe(self) -> str:
        if self.protocol == "ANY":
            return ("every port" if self.port is None else f"{self.port}") + " (any protocol)"
        if self.port is None:
            return f"{self.protocol} (all ports)"
        if self.end_port is not None and isinstance(self.port, int):
            return f"{self.protocol} {self.port}-{self.end_port}"
        return f"{self.protocol} {self.port}"


@dataclass(frozen=True, slots=True)
class Peer:
    """A peer of a network policy rule: pods, namespaces or an IP block."""

    pods: Selector | None
    namespaces: Selector | None
    ip: IPBlock | None
    path: Path
    # Cilium: a requirement on the pod's service account (io.cilium.k8s.policy.serviceaccount)
    accounts: Selector | None = None
    # Cilium: a peer that needs what is not evaluated (toServices, toGroups, the cluster name):
    # it may match (its known part), never certainly
    unknown: bool = False

    @property
    def valid(self) -> bool:
        return (self.ip is not None or self.pods is not None or self.namespaces is not None
                or self.unknown)


@dataclass(frozen=True, slots=True)
class Rule:
    """One ingress or egress rule of a network policy, compiled."""

    namespace: str  # the policy's (no back reference: compiled policies hold no cycles)
    direction: str  # ingress | egress
    index: int
    peers: tuple[Peer, ...] | None  # None: every peer
    ports: tuple[PortSpec, ...] | None  # None: every port
    path: Path
    uses_names: bool = False  # some port is named: what it allows depends on the pod
    peers_at: Path | None = None  # where the peers are written (Cilium: toEndpoints, ...)

    @property
    def peer_field(self) -> Path:
        """The path of the rule's peer list (``from``/``to``; Cilium's first L3 field)."""
        if self.peers_at is not None:
            return self.peers_at
        return self.path + ("from" if self.direction == "ingress" else "to",)

    def conns(self, ports: NamedPorts | None) -> Conns:
        """What the rule allows to a pod with these named ports (None: an IP address)."""
        if self.ports is None:
            return ALL
        if len(self.ports) == 1:
            return self.ports[0].resolve(ports)
        return union_all([p.resolve(ports) for p in self.ports])

    def describe_ports(self) -> str:
        if self.ports is None:
            return "any port"
        return ", ".join(p.describe() for p in self.ports) or "no port"


@dataclass(eq=False)
class Policy:
    """A NetworkPolicy (or Cilium policy), compiled: whom it selects, what it allows."""

    obj: KObject
    namespace: str  # "" for a clusterwide policy
    selector: Selector
    isolates_ingress: bool
    isolates_egress: bool
    ingress: tuple[Rule, ...] = ()
    egress: tuple[Rule, ...] = ()
    kind: str = "NetworkPolicy"  # or CiliumNetworkPolicy, CiliumClusterwideNetworkPolicy
    # the namespaces whose pods it selects (None: its own namespace only)
    subject_namespaces: Selector | None = None
    subject_accounts: Selector | None = None  # Cilium: the pods' service accounts
    ingress_deny: tuple[Rule, ...] = ()  # Cilium ingressDeny / egressDeny: deny wins
    egress_deny: tuple[Rule, ...] = ()
    spec_path: Path = ("spec",)  # Cilium: one item of ``specs``
    title: str = ""  # a NetworkPolicy a chart renders: how it is named
    rendered_by: str | None = None  # what renders it (a doubt), when a chart does

    @property
    def name(self) -> str:
        """``ns/name`` for a NetworkPolicy (as np-guard names it); Cilium's with their kind."""
        if self.title:
            return self.title
        if self.kind == "NetworkPolicy":
            return f"{self.namespace}/{self.obj.name}"
        if not self.namespace:
            return f"{self.kind} {self.obj.name}"
        return f"{self.kind} {self.namespace}/{self.obj.name}"

    @property
    def described(self) -> str:
        """``NetworkPolicy ns/name``, ``CiliumNetworkPolicy ns/name``: the kind always said."""
        return self.name if self.kind != "NetworkPolicy" else f"NetworkPolicy {self.name}"

    @property
    def selector_path(self) -> Path:
        return self.spec_path + ("podSelector" if self.kind == "NetworkPolicy"
                                 else "endpointSelector",)


def compile_policy(obj: KObject) -> Policy:
    return compile_spec(obj, mapping(obj.get(("spec",))), obj.namespace or "default")


def compile_spec(obj: KObject, spec: Mapping[str, Any], namespace: str,
                 rules_at: Path = ("spec",), selector: Selector | None = None,
                 title: str = "", rendered_by: str | None = None,
                 spec_path: Path = ("spec",)) -> Policy:
    """A NetworkPolicy's ``spec`` (``rules_at``: where its ``ingress``/``egress`` lists are
    written; a chart's values keep them elsewhere, with the pod selector the chart makes)."""
    types = spec.get("policyTypes")
    egress_raw = spec.get("egress")
    if isinstance(types, list) and types:
        kinds = {str(t) for t in types}
    else:  # the API server's defaulting
        kinds = {"Ingress"}
        if isinstance(egress_raw, list) and egress_raw:
            kinds.add("Egress")
    policy = Policy(
        obj, namespace, selector if selector is not None else Selector.parse(
            mapping(spec.get("podSelector"))),
        "Ingress" in kinds, "Egress" in kinds, title=title, rendered_by=rendered_by,
        spec_path=spec_path,
    )
    if policy.isolates_ingress:
        policy.ingress = _rules(policy, spec.get("ingress"), "ingress", "from", rules_at)
    if policy.isolates_egress:
        policy.egress = _rules(policy, egress_raw, "egress", "to", rules_at)
    return policy


def _rules(policy: Policy, raw: Any, direction: str, peer_key: str,
           rules_at: Path = ("spec",)) -> tuple[Rule, ...]:
    if not isinstance(raw, list):
        return ()
    out = []
    for i, entry in enumerate(raw):
        path: Path = rules_at + (direction, i)
        if not isinstance(entry, dict):
            entry = {}
        peers_raw = entry.get(peer_key)
        peers: tuple[Peer, ...] | None = None
        if isinstance(peers_raw, list) and peers_raw:
            peers = tuple(_peer(p, path + (peer_key, j)) for j, p in enumerate(peers_raw))
        ports_raw = entry.get("ports")
        ports: tuple[PortSpec, ...] | None = None
        if isinstance(ports_raw, list) and ports_raw:
            ports = tuple(_port(p, path + ("ports", j)) for j, p in enumerate(ports_raw))
        named = any(isinstance(p.port, str) for p in ports or ())
        out.append(Rule(policy.namespace, direction, i, peers, ports, path, named))
    return tuple(out)


def _peer(raw: Any, path: Path) -> Peer:
    if not isinstance(raw, dict):
        return Peer(None, None, None, path)
    block = raw.get("ipBlock")
    if isinstance(block, dict):
        return Peer(None, None, IPBlock.parse(block.get("cidr"), block.get("except")), path)
    pods = Selector.parse(raw["podSelector"]) if "podSelector" in raw else None
    namespaces = (
        Selector.parse(raw["namespaceSelector"]) if "namespaceSelector" in raw else None
    )
    return Peer(pods, namespaces, None, path)


def _port(raw: Any, path: Path) -> PortSpec:
    if not isinstance(raw, dict):
        return PortSpec("invalid", None, None, path)
    protocol = str(raw.get("protocol") or "TCP")
    port = raw.get("port")
    end = raw.get("endPort")
    value: int | str | None
    if isinstance(port, bool):
        value = str(port)
    elif isinstance(port, (int, str)):
        value = port
    else:
        value = None
    end_port = end if isinstance(end, int) and not isinstance(end, bool) else None
    if isinstance(value, int) and end_port is not None and end_port < value:
        return PortSpec("invalid", None, None, path)
    return PortSpec(protocol, value, end_port, path)
