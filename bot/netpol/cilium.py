"""CiliumNetworkPolicy and CiliumClusterwideNetworkPolicy at L3/L4, as docs.cilium.io documents
them (Security > Network Policy: "Policy Enforcement Modes", "Rule Basics", "Layer 3 Policies",
"Layer 4 Policies", "Deny Policies", "Using Kubernetes Constructs in Policy"). Each rule set
(``spec``, or each item of ``specs``) compiles into the evaluator's :class:`Policy`, so the
connectivity model combines Kubernetes NetworkPolicies and Cilium policies as Cilium does:
allow rules of every kind add up, deny rules win over all of them.

- Subjects ("Endpoint Selector", "Namespaces"): ``endpointSelector`` selects pods of the
  policy's namespace (a CiliumNetworkPolicy's selector cannot leave it); a clusterwide policy's
  selects pods of every namespace, narrowed by ``io.kubernetes.pod.namespace``.
  ``nodeSelector`` selects nodes (host policies): no pod.
- Default deny ("Endpoint default policy"): a rule set that selects a pod and has at least one
  ``ingress`` (``egress``) rule, or an ``ingressDeny`` (``egressDeny``) rule ("Deny Policies":
  pods enter default-deny as soon as a policy selects them), isolates that direction, unless
  ``enableDefaultDeny`` turns it off for that direction. An omitted or empty section does not
  apply ("Rule Basics": "If omitted or empty, this rule does not apply").
- Peers ("Endpoints based"): ``fromEndpoints``/``toEndpoints`` are endpoint selectors over the
  pod's labels plus ``io.kubernetes.pod.namespace``, ``io.cilium.k8s.policy.serviceaccount``
  and (clusterwide policies only) ``io.cilium.k8s.namespace.labels.<key>``; label keys may
  carry the ``k8s:`` or ``any:`` source. A CiliumNetworkPolicy's selector that names no
  namespace selects in the policy's namespace ("Egress Allow All Endpoints": "based on the
  CiliumNetworkPolicy namespace"); a clusterwide one's, in every namespace. An empty selector
  selects every endpoint there; an empty list selects none.
- Entities ("Entities based"): ``world`` is every address outside the cluster (as
  ``0.0.0.0/0``), ``cluster`` every pod, ``all`` both; ``host``, ``remote-node``,
  ``kube-apiserver``, ``health``, ``init``, ``ingress`` and ``unmanaged`` are no pod of the
  repository.
- ``fromCIDR``/``toCIDR`` and ``fromCIDRSet``/``toCIDRSet`` (``cidr`` minus ``except``) are
  addresses outside the cluster ("IP/CIDR based"); ``toFQDNs`` names external hosts ("DNS
  based"): no pod, and the addresses the names resolve to are not known here, so the egress
  it allows to them is named in the notes, not shown as a flow. ``fromNodes``/``toNodes``
  select nodes: no pod.
- Ports ("Layer 4 Policies"): ``toPorts[].ports[]`` with ``port`` (a number, a name resolved on
  the destination pod, ``0`` for every port), ``endPort`` and ``protocol`` (TCP, UDP, SCTP;
  omitted or ``ANY``: all of them); no ``toPorts``: every port. A rule with no L3 peer field
  allows every peer on its ports; one with neither peers nor ports (``- {}``) allows, or
  denies, no peer at all: it only puts the endpoint in default deny ("Ingress/Egress Default
  Deny"; Cilium's ``mergeIngress`` wildcards the peers of an L4 rule alone). ``icmps`` (ICMP)
  is not a TCP/UDP/SCTP connection.

Not evaluated, and named in the output (never guessed): L7 ``rules`` (http, dns, kafka; the
connection they ride on is evaluated at L4), TLS interception and Envoy listeners,
``toServices``, ``toGroups`` and ``cidrGroupRef`` (a peer that may match: a rule that needs
them is unknown, never a denial), ``fromRequires``/``toRequires`` (left out: the flows shown
may be broader), and the cluster name label ``io.cilium.k8s.policy.cluster``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from reviewbot.model.objects import NAME_LABEL, KObject, items, mapping
from reviewbot.model.selectors import EVERYTHING, Requirement, Selector
from reviewbot.netpol.policy import Path, Peer, Policy, PortSpec, Rule
from reviewbot.netpol.sets import IPBlock

GROUP = "cilium.io"
CNP, CCNP = "CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"
KINDS = frozenset({CNP, CCNP})
NAMESPACE_KEY = "io.kubernetes.pod.namespace"
NAMESPACE_LABELS = "io.cilium.k8s.namespace.labels."
ACCOUNT_KEY = "io.cilium.k8s.policy.serviceaccount"
SOURCES = ("k8s:", "any:")  # label sources a pod's labels match
L3_INGRESS = ("fromEndpoints", "fromEntities", "fromCIDR", "fromCIDRSet", "fromNodes",
              "fromGroups")
L3_EGRESS = ("toEndpoints", "toEntities", "toCIDR", "toCIDRSet", "toFQDNs", "toNodes",
             "toServices", "toGroups")
WORLD = IPBlock.parse("0.0.0.0/0", None)
NOTHING = Selector(valid=False)  # selects no pod


@dataclass(frozen=True)
class Unevaluated:
    """A construct of a Cilium policy that is not evaluated: what, and where."""

    what: str  # "L7 rules (dns)", "toServices", ...
    obj: KObject
    path: Path


def cilium_objects(objects: Iterable[KObject]) -> list[KObject]:
    return [o for o in objects if o.kind in KINDS and o.group == GROUP]


def compile_cilium(obj: KObject) -> tuple[list[Policy], list[Unevaluated]]:
    """The rule sets of one Cilium policy (``spec``, then each of ``specs``), and what in
    them is not evaluated."""
    out: list[Policy] = []
    skipped: list[Unevaluated] = []
    places: list[Path] = []
    if isinstance(obj.get(("spec",)), dict):
        places.append(("spec",))
    places += [("specs", i) for i, s in enumerate(items(obj.get(("specs",))))
               if isinstance(s, dict)]
    for at in places:
        compiler = _Compiler(obj, at, skipped)
        out.append(compiler.policy())
    return out, skipped


class _Compiler:
    def __init__(self, obj: KObject, at: Path, skipped: list[Unevaluated]) -> None:
        self.obj = obj
        self.at = at
        self.spec = mapping(obj.get(at))
        self.clusterwide = obj.kind == CCNP
        self.namespace = "" if self.clusterwide else (obj.namespace or "default")
        self.skipped = skipped

    def note(self, what: str, path: Path) -> None:
        self.skipped.append(Unevaluated(what, self.obj, path))

    # ------------------------------------------------ the policy

    def policy(self) -> Policy:
        spec = self.spec
        defaults = mapping(spec.get("enableDefaultDeny"))
        if "endpointSelector" in spec and spec.get("endpointSelector") is not None:
            subject = self.selector(spec.get("endpointSelector"), self.at + ("endpointSelector",),
                                    subject=True)
        else:
            if spec.get("nodeSelector") is not None:
                self.note("host policies (nodeSelector: they apply to nodes, not pods)",
                          self.at + ("nodeSelector",))
            subject = _Split(NOTHING, None, None, False)
        ingress = self.rules("ingress", "from", deny=False)
        egress = self.rules("egress", "to", deny=False)
        ingress_deny = self.rules("ingressDeny", "from", deny=True)
        egress_deny = self.rules("egressDeny", "to", deny=True)
        isolates_ingress = bool(ingress or ingress_deny) and defaults.get("ingress") is not False
        isolates_egress = bool(egress or egress_deny) and defaults.get("egress") is not False
        namespaces = subject.namespaces
        if self.clusterwide and namespaces is None:
            namespaces = EVERYTHING
        if not self.clusterwide:
            namespaces = None  # a CiliumNetworkPolicy selects in its own namespace only
        return Policy(
            self.obj, self.namespace, subject.pods, isolates_ingress, isolates_egress,
            ingress, egress, kind=self.obj.kind, subject_namespaces=namespaces,
            subject_accounts=subject.accounts, ingress_deny=ingress_deny,
            egress_deny=egress_deny, spec_path=self.at,
        )

    # ------------------------------------------------ rules

    def rules(self, section: str, side: str, deny: bool) -> tuple[Rule, ...]:
        raw = self.spec.get(section)
        out: list[Rule] = []
        direction = "ingress" if section.startswith("ingress") else "egress"
        for i, entry in enumerate(items(raw)):
            path = self.at + (section, i)
            entry = mapping(entry)
            peers, where = self.peers(entry, path, side)
            ports = self.ports(entry, path)
            named = any(isinstance(p.port, str) for p in ports or ())
            out.append(Rule(self.namespace, direction, i, peers, ports, path, named,
                            peers_at=where))
        return tuple(out)

    def peers(self, entry: Mapping[str, Any], path: Path,
              side: str) -> tuple[tuple[Peer, ...] | None, Path]:
        """The rule's L3 peers (None: no L3 field, every peer) and where the first L3 field
        is (findings point there)."""
        fields = L3_INGRESS if side == "from" else L3_EGRESS
        present = [f for f in fields if entry.get(f) is not None]
        for key in ("fromRequires", "toRequires"):
            if entry.get(key) is not None:
                self.note(f"{key} (left out: the flows shown may be broader)", path + (key,))
        if not present:
            if entry.get("fromRequires") is not None or entry.get("toRequires") is not None:
                return (), path  # requirements alone allow nothing
            if not items(entry.get("toPorts")) and entry.get("icmps") is None:
                return (), path  # ``{}``: no peer (the documented default deny)
            return None, path
        out: list[Peer] = []
        for key in present:
            at = path + (key,)
            values = items(entry.get(key))
            if key in ("fromEndpoints", "toEndpoints"):
                out += [self.endpoint_peer(v, at + (j,)) for j, v in enumerate(values)]
            elif key in ("fromEntities", "toEntities"):
                for j, name in enumerate(values):
                    out += _entity(str(name), at + (j,))
            elif key in ("fromCIDR", "toCIDR"):
                out += [Peer(None, None, IPBlock.parse(v, None), at + (j,))
                        for j, v in enumerate(values)]
            elif key in ("fromCIDRSet", "toCIDRSet"):
                for j, v in enumerate(values):
                    v = mapping(v)
                    if v.get("cidr") is not None:
                        out.append(Peer(None, None, IPBlock.parse(v.get("cidr"), v.get("except")),
                                        at + (j,)))
                    else:
                        self.note("cidrGroupRef (CiliumCIDRGroup)", at + (j,))
                        out.append(Peer(None, None, None, at + (j,), unknown=True))
            elif key in ("toServices", "toGroups", "fromGroups"):
                self.note(key, at)
                out += [Peer(None, None, None, at + (j,), unknown=True)
                        for j in range(len(values))]
            else:  # toFQDNs (external names), fromNodes/toNodes (nodes): no pod
                if key == "toFQDNs":
                    self.note("toFQDNs (the outside addresses its names resolve to are not "
                              "among the flows shown)", at)
                out += [Peer(NOTHING, None, None, at + (j,)) for j in range(len(values))]
        return tuple(out), path + (present[0],)

    def endpoint_peer(self, raw: Any, path: Path) -> Peer:
        split = self.selector(raw, path, subject=False)
        namespaces = split.namespaces
        if namespaces is None and self.clusterwide:
            namespaces = EVERYTHING
        return Peer(split.pods, namespaces, None, path, accounts=split.accounts,
                    unknown=split.unknown)

    def ports(self, entry: Mapping[str, Any], path: Path) -> tuple[PortSpec, ...] | None:
        to_ports = items(entry.get("toPorts"))
        icmp = entry.get("icmps") is not None
        if not to_ports:
            return () if icmp else None  # ICMP only: no TCP/UDP/SCTP connection
        out: list[PortSpec] = []
        for i, block in enumerate(to_ports):
            block = mapping(block)
            at = path + ("toPorts", i)
            rules = mapping(block.get("rules"))
            kinds = sorted(str(k) for k, v in rules.items() if v)
            if kinds:
                self.note(f"L7 rules ({', '.join(kinds)})", at + ("rules",))
            for key in ("terminatingTLS", "originatingTLS", "listener", "serverNames"):
                if block.get(key) is not None:
                    self.note(f"L7 {key}", at + (key,))
            ports = items(block.get("ports"))
            if not ports:
                out.append(PortSpec("ANY", None, None, at))
            out += [_port(p, at + ("ports", j)) for j, p in enumerate(ports)]
        return tuple(out)

    # ------------------------------------------------ selectors

    def selector(self, raw: Any, path: Path, subject: bool) -> _Split:
        """An endpoint selector split into what the evaluator reads: the pod labels part, the
        namespace part, the service account part; unknown when it requires what the model
        does not hold (the cluster name)."""
        if raw is None:
            return _Split(EVERYTHING, None, None, False)
        parsed = Selector.parse(raw)
        if not parsed.valid:
            return _Split(NOTHING, None, None, False)
        split, notes = _split(parsed, self.clusterwide, subject)
        for what in notes:
            self.note(what, path)
        return split


@lru_cache(maxsize=4096)
def _split(parsed: Selector, clusterwide: bool, subject: bool) -> tuple[_Split, tuple[str, ...]]:
    """A valid endpoint selector split (:meth:`_Compiler.selector`), and what it notes as not
    evaluated, in order; kept per selector (policies repeat the same few: kube-dns, the
    ingress controller, the namespace's own pods)."""
    pods: list[Requirement] = []
    namespaces: list[Requirement] = []
    accounts: list[Requirement] = []
    notes: list[str] = []
    unknown = False
    for req in parsed.requirements:
        key = req.key
        for source in SOURCES:
            if key.startswith(source):
                key = key[len(source):]
                break
        if ":" in key:  # another source (reserved:, cidr:, ...): no pod's label
            return _Split(NOTHING, None, None, False), tuple(notes)
        if key == NAMESPACE_KEY:
            namespaces.append(Requirement(NAME_LABEL, req.operator, req.values))
        elif key.startswith(NAMESPACE_LABELS):
            if clusterwide:
                namespaces.append(Requirement(key[len(NAMESPACE_LABELS):], req.operator,
                                              req.values))
            else:  # "ignored in CiliumNetworkPolicy resources"
                notes.append(f"{NAMESPACE_LABELS}* in a CiliumNetworkPolicy")
                unknown = True
        elif key == ACCOUNT_KEY:
            accounts.append(Requirement(ACCOUNT_KEY, req.operator, req.values))
        elif key.startswith("io.cilium.k8s.policy."):
            notes.append(f"the {key} label")
            unknown = True
        else:
            pods.append(Requirement(key, req.operator, req.values))
    if subject and not clusterwide and namespaces:
        namespaces = []  # the endpointSelector never leaves the policy's namespace
    return _Split(_selector(pods), _selector(namespaces) if namespaces else None,
                  _selector(accounts) if accounts else None, unknown), tuple(notes)


@dataclass(frozen=True)
class _Split:
    """A Cilium endpoint selector split into pod, namespace and account requirements."""

    pods: Selector
    namespaces: Selector | None  # None: no namespace requirement
    accounts: Selector | None
    unknown: bool


def _selector(requirements: Sequence[Requirement]) -> Selector:
    pairs = tuple((r.key, next(iter(r.values))) for r in requirements
                  if r.operator == "In" and len(r.values) == 1)
    exprs = tuple(r for r in requirements if not (r.operator == "In" and len(r.values) == 1))
    return Selector(pairs, exprs)


def _entity(name: str, path: Path) -> Iterator[Peer]:
    """The peers an entity stands for ("Entities based")."""
    if name in ("world", "all"):
        yield Peer(None, None, WORLD, path)
    if name in ("cluster", "all"):
        yield Peer(EVERYTHING, EVERYTHING, None, path)
    if name not in ("world", "all", "cluster"):
        yield Peer(NOTHING, None, None, path)  # host, remote-node, kube-apiserver, ...


def _port(raw: Any, path: Path) -> PortSpec:
    """One ``toPorts[].ports[]`` entry ("Layer 4 Policies")."""
    raw = mapping(raw)
    protocol = str(raw.get("protocol") or "ANY").upper()
    if protocol not in ("TCP", "UDP", "SCTP", "ANY"):
        return PortSpec("invalid", None, None, path)
    port = raw.get("port")
    end = raw.get("endPort")
    end_port = end if isinstance(end, int) and not isinstance(end, bool) and end > 0 else None
    text = str(port).strip() if port is not None and not isinstance(port, bool) else ""
    if not text or text == "0":
        return PortSpec(protocol, None, None, path)
    if text.isdigit():
        number = int(text)
        if not 0 < number < 65536 or (end_port is not None and end_port < number):
            return PortSpec("invalid", None, None, path)
        return PortSpec(protocol, number, end_port, path)
    return PortSpec(protocol, text, None, path)  # a named port: endPort is ignored
