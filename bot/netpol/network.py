"""The connectivity model: Kubernetes NetworkPolicy semantics over the repository model.

``Network(model)`` compiles every ``networking.k8s.io/v1`` NetworkPolicy and indexes the pod
templates by namespace and label, then answers, for a source and a destination pod template,
which connections egress (source side) and ingress (destination side) each allow:

- a pod is isolated for a direction when some policy in its namespace selects it and lists that
  direction in ``policyTypes`` (omitted: ``Ingress``, plus ``Egress`` when ``egress`` has rules);
  a direction that is not isolated allows everything; an isolated one allows the union of the
  rules of the policies that select the pod;
- a rule with no (or empty) ``from``/``to`` admits every peer, with no (or empty) ``ports``
  every port; peers are ORed; within one peer ``namespaceSelector`` and ``podSelector`` are
  ANDed (``podSelector`` alone: the policy's namespace; ``namespaceSelector`` alone: every pod
  of the selected namespaces); an empty selector selects everything; ``ipBlock`` (cidr minus
  ``except``) matches addresses outside the cluster only;
- ports: protocol defaults to TCP, ``endPort`` makes a range, a named port is resolved on the
  destination pod's container ports of that name and protocol (no match: no port);
- namespaces match by their labels, which always include ``kubernetes.io/metadata.name``.

CiliumNetworkPolicy and CiliumClusterwideNetworkPolicy compile into the same policies
(:mod:`reviewbot.netpol.cilium`): their allow rules add to the NetworkPolicies' as Cilium adds
them, their ``ingressDeny``/``egressDeny`` rules win over every allow, and a clusterwide
policy selects pods in every namespace its selector allows. What they hold that is not
evaluated (L7 rules, ``toServices``, ``toGroups``, ``fromRequires``) is named in the notes.

Undefined namespaces (referenced but without a Namespace object) carry only that name label.
Pods known only from Helm chart values are left out: the chart, not the repository, decides
their labels and ports. With ``exact=False``, ``hostNetwork`` pods are left out too: they use
the node's address, so policies do not select them and how peers see them is unknown.
With ``exact=False`` (what rules use) any other label requirement on such a namespace is
*unknown*: callers choose whether unknown counts as a match (when asking "could this flow be
allowed?") or not (when asking "does this rule certainly select these pods?").

``reviewbot netpol connectivity`` (:mod:`reviewbot.commands.netpol`) prints the allowed flows
between workloads (and IPv4 ranges) in np-guard netpol-analyzer's ``list`` format
(``--format connlist``), as text or as JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from reviewbot.escape import json_text, term
from reviewbot.model.doubts import runs_doubt
from reviewbot.model.kustomize import Graph, argo_sources
from reviewbot.model.objects import (
    NAME_LABEL,
    KObject,
    Model,
    Namespace,
    PodTemplate,
    Service,
    cluster_phrase,
    label_text,
    mapping,
    model_graph,
)
from reviewbot.model.releases import every_service, kustomize_charts, releases
from reviewbot.model.selectors import Selector
from reviewbot.model.values import ValuesObject
from reviewbot.netpol.policy import (
    NamedPorts,
    Peer,
    Policy,
    Rule,
    admin_objects,
    compile_policy,
    compile_spec,
)
from reviewbot.netpol.sets import (
    ALL,
    NONE,
    Conns,
    Interval,
    format_range,
    ip_pieces,
    union_all,
)
from reviewbot.words import plural

if TYPE_CHECKING:  # imported where a tree has AdminNetworkPolicies, or an ingress controller
    from reviewbot.netpol.admin import AdminLayer
    from reviewbot.netpol.ingress import IngressController

# policy kinds of other APIs: present in home-ops trees, not evaluated here
UNEVALUATED = frozenset({
    ("crd.projectcalico.org", "NetworkPolicy"), ("projectcalico.org", "NetworkPolicy"),
    ("crd.projectcalico.org", "GlobalNetworkPolicy"), ("projectcalico.org", "GlobalNetworkPolicy"),
    ("k8s.cni.cncf.io", "MultiNetworkPolicy"),
})
CLUSTER_WIDE = frozenset({"GlobalNetworkPolicy"})
CILIUM = frozenset({("cilium.io", "CiliumNetworkPolicy"),
                    ("cilium.io", "CiliumClusterwideNetworkPolicy")})
ACCOUNT_KEY = "io.cilium.k8s.policy.serviceaccount"
MAX_PLACES = 3  # places a note names before it counts the rest
ACROSS = 8  # from this many namespaces, select_across reads the index of every namespace



def named_ports(pod: PodTemplate) -> NamedPorts:
    """(name, protocol) -> container port numbers, over the pod's regular containers."""
    out: dict[tuple[str, str], list[int]] = {}
    for container in pod.containers:
        if container.role != "container":
            continue
        for port in container.ports:
            name, number = port.get("name"), port.get("containerPort")
            if isinstance(name, str) and isinstance(number, int) and not isinstance(number, bool):
                key = (name, str(port.get("protocol") or "TCP"))
                out.setdefault(key, []).append(number)
    return {k: tuple(v) for k, v in out.items()}


# ---------------------------------------------------------------- the network


def _loose_files(model: Model) -> frozenset[str]:
    """Of a tree applied as written (no GitOps root), the files no kustomization root builds:
    applied file by file (``kubectl apply -f``), each where its ``-n`` puts it. What one
    build makes lands in one namespace, whichever it is, so its objects' relations hold."""
    if model.derived.get("reach") is not None or "view-of" in model.derived:
        return frozenset()  # (a cluster's view: the model has roots)
    from reviewbot.model.objects import model_graph

    graph = model_graph(model)
    built = {f for folder in graph.roots for f in graph.build(folder).files}
    return frozenset(o.file for o in model.objects if o.file not in built)


def _unwritten_namespace(obj: KObject) -> str | None:
    """Of a file applied as written on its own (no GitOps root, no kustomization): which
    namespace a namespaced object that names none lands in (kubectl's ``-n``, else its
    context's: "default" is a guess; d-uzlov/k8s-homelab's runbooks apply its namespace-less
    Pods and deny-all policy with ``-n nitrox`` and "add -n <namespace>"), as a doubt; None
    when it names one."""
    meta = obj.body.get("metadata")
    if obj.namespace == "" or (isinstance(meta, dict) and meta.get("namespace")):
        return None
    return (f"which namespace {obj.kind} {obj.name} is applied in (it names none and no build "
            "sets one: kubectl's -n or its context decides)")


class Network:
    """Policies compiled and pods indexed; the evaluator of one repository model."""

    def __init__(
        self, model: Model, *, exact: bool = True, controller: IngressController | None = None
    ) -> None:
        self.model = model
        self.exact = exact
        # Pods described only by Helm chart values are unknown, unless their chart is one whose
        # templates are known (app-template): then they are the pods the chart renders, and a
        # finding about them says it could not see the chart itself (rendered_by).
        self.releases = releases(model)
        self.charts = kustomize_charts(model)  # helmCharts: never evaluated
        rendered: dict[int, tuple[PodTemplate, str]] = {}
        for release in self.releases:
            for pod_id, pod_made in release.pods.items():
                rendered[pod_id] = (pod_made, release.rendered_by)
        self.pods: list[PodTemplate] = []
        self.host_network: list[PodTemplate] = []  # left out: policies do not select them
        # pod index -> what could not be seen of it (a doubt): the chart that renders it, or
        # the build that fails to make it
        self.rendered_by: dict[int, str] = {}
        # pod index -> rendered by a chart whose templates are known (app-template): what its
        # values write of a container (env, args) is the container's as written
        self.from_chart: set[int] = set()
        # values pods of charts whose templates are not rendered (a chart of the tree an Argo
        # CD Application's path names): their flows are not judged, and a review reaching
        # their namespace says so (new-user trial fifty: a gateway's ingress dropped, "no new
        # problems", nothing said of the chart's pods)
        self.unrendered: list[PodTemplate] = []
        released = {id(r.obj) for r in self.releases}
        for p in model.pods:
            found = rendered.get(id(p)) if p.from_values else None
            if p.from_values and found is None:
                if id(p.obj) not in released and isinstance(p.obj, ValuesObject) and (
                        p.obj.own):
                    self.unrendered.append(p)  # (a values file beside its chart's Chart.yaml)
                continue
            # hostNetwork pods use the node's address: policies do not select them, and
            # whether their traffic is admitted depends on the plugin (unknown to rules)
            if not exact and p.spec.get("hostNetwork") is True:
                self.host_network.append(p)
                continue
            if found is not None:
                self.rendered_by[len(self.pods)] = found[1]
                self.from_chart.add(len(self.pods))
                p = found[0]
            elif (failing := runs_doubt(model, (p,))) is not None:
                # a pod of builds that all fail: the cluster runs it as an earlier revision
                # built it, or not at all (a doubt of the findings that lean on it)
                self.rendered_by[len(self.pods)] = failing
            self.pods.append(p)
        loose = _loose_files(model)  # applied as written, file by file: kubectl's namespace
        if loose:
            for i, p in enumerate(self.pods):
                if i not in self.rendered_by and p.obj.file in loose and (
                        unwritten := _unwritten_namespace(p.obj)) is not None:
                    self.rendered_by[i] = unwritten
        # the ingress controller, a stand-in pod, when Ingress/Route objects send it traffic
        self.ingresses: list[KObject] = []
        if controller is not None:
            from reviewbot.netpol.ingress import controller_pod, ingress_objects

            self.ingresses = ingress_objects(model)
        self.controller: int | None = None
        if controller is not None and self.ingresses:
            self.controller = len(self.pods)
            self.pods.append(controller_pod(controller, self.ingresses[0]))
        self.namespaces: dict[str, Namespace] = dict(model.namespaces)
        for pod in self.pods:
            if pod.namespace not in self.namespaces:
                self.namespaces[pod.namespace] = Namespace(
                    pod.namespace, {NAME_LABEL: pod.namespace}, None
                )
        self.by_ns: dict[str, list[int]] = {}
        self.by_label: dict[tuple[str, str, str], list[int]] = {}
        for i, pod in enumerate(self.pods):
            self.by_ns.setdefault(pod.namespace, []).append(i)
            for key, value in pod.labels.items():
                self.by_label.setdefault((pod.namespace, key, value), []).append(i)
        self._ns_cache: dict[tuple[int, str], bool | None] = {}
        self._namespaces_cache: dict[tuple[int, bool], tuple[Selector, list[str]]] = {}
        # the same, by the selector's value: policies write equal namespace selectors as
        # distinct objects (JJGadgets-Biohazard: 100 selections of 52 values, 15 of them
        # `kubernetes.io/metadata.name` exists, each matched against its 95 namespaces)
        self._namespaces_by_value: dict[tuple[Selector, bool], list[str]] = {}
        self._subjects: dict[int, tuple[Policy, list[int]]] = {}
        self.policies = [compile_policy(obj) for obj in model.network_policies]
        for release in self.releases:  # the NetworkPolicies a known chart renders
            for made in release.policies:
                self.policies.append(compile_spec(
                    release.obj, made.spec, release.namespace, made.rules_at,
                    Selector.parse(made.selector),
                    f"{release.namespace}/{made.name}", release.rendered_by,
                    made.rules_at[:-1]))
        if loose:
            self.policies = [replace(p, rendered_by=unwritten) if p.rendered_by is None and (
                p.obj.file in loose) and p.namespace and (
                unwritten := _unwritten_namespace(p.obj)) is not None else p
                for p in self.policies]
        # Cilium policies compile into the same rules ("as Cilium combines them": allow rules
        # of every kind add up, deny rules win); what they hold that is not evaluated is noted
        self.unevaluated_parts: list[Any] = []
        cilium = [o for o in model.objects if (o.group, o.kind) in CILIUM]
        if cilium:
            from reviewbot.netpol.cilium import compile_cilium

            for obj in cilium:
                compiled, skipped = compile_cilium(obj)
                self.policies += compiled
                self.unevaluated_parts += skipped
        ingress: dict[int, list[int]] = {}
        egress: dict[int, list[int]] = {}
        isolated: set[tuple[int, str]] = set()
        ingress_deny: dict[int, list[int]] = {}
        egress_deny: dict[int, list[int]] = {}
        for n, policy in enumerate(self.policies):
            for i in self.subjects(policy):
                if policy.isolates_ingress or policy.ingress:
                    ingress.setdefault(i, []).append(n)
                    if policy.isolates_ingress:
                        isolated.add((i, "ingress"))
                if policy.isolates_egress or policy.egress:
                    egress.setdefault(i, []).append(n)
                    if policy.isolates_egress:
                        isolated.add((i, "egress"))
                if policy.ingress_deny:
                    ingress_deny.setdefault(i, []).append(n)
                if policy.egress_deny:
                    egress_deny.setdefault(i, []).append(n)
        # pod -> the policies isolating it, per direction (empty: not isolated); a Cilium
        # policy whose enableDefaultDeny is off adds its rules once another one isolates
        self.ingress_of: list[tuple[int, ...]] = [
            tuple(ingress.get(i, ())) if (i, "ingress") in isolated else ()
            for i in range(len(self.pods))
        ]
        self.egress_of: list[tuple[int, ...]] = [
            tuple(egress.get(i, ())) if (i, "egress") in isolated else ()
            for i in range(len(self.pods))
        ]
        # pod -> the Cilium policies whose deny rules apply to it, per direction
        self.ingress_deny_of: list[tuple[int, ...]] = [
            tuple(ingress_deny.get(i, ())) for i in range(len(self.pods))
        ]
        self.egress_deny_of: list[tuple[int, ...]] = [
            tuple(egress_deny.get(i, ())) for i in range(len(self.pods))
        ]
        self.has_deny = bool(ingress_deny or egress_deny)
        self._peer_cache: dict[tuple[int, bool], frozenset[int]] = {}
        self._rule_cache: dict[tuple[int, bool], frozenset[int]] = {}
        self._ports: dict[int, NamedPorts] = {}
        self._signatures: dict[int, tuple[Any, ...]] = {}
        self._conns_cache: dict[Any, Conns] = {}
        self._ingress_cache: dict[tuple[Any, ...], tuple[dict[int, Conns], bool]] = {}
        # (address piece, the policies that decide, named ports) -> conns: what an address
        # range may do depends on nothing else, and a connectivity listing asks it of every
        # piece and every pod (pieces x pods x rules: 256 ipBlock rules over 1,024 pods of one
        # signature took minutes)
        self._ip_cache: dict[tuple[Any, ...], Conns] = {}
        self.notes: list[str] = []
        admin = admin_objects(model.objects)
        # the AdminNetworkPolicy and BaselineAdminNetworkPolicy tiers (None: no such object)
        self.admin: AdminLayer | None = None
        if admin:
            from reviewbot.netpol.admin import AdminLayer

            self.admin = AdminLayer(
                admin, self.pods, self.namespaces, self.ports_of, self.port_signature)

    # -------------------------------------------------- peers and notes

    @cached_property
    def groups(self) -> dict[str, list[int]]:
        """Peer name -> its pods. Pods of one owner are one peer, unless they differ in labels
        that a selector tells apart: then each is its own peer (``ns/pod[Pod]``), and a note
        says so (the owner's union would answer for pods it does not describe)."""
        groups: dict[str, list[int]] = {}
        for i, pod in enumerate(self.pods):
            if i != self.controller:
                groups.setdefault(pod.peer, []).append(i)
        for name, members in list(groups.items()):
            if len(members) < 2:
                continue
            if len({tuple(sorted(self.pods[i].labels.items())) for i in members}) < 2:
                continue
            selector = self._telling_apart(members)
            if selector is None:
                continue
            del groups[name]
            for i in members:
                pod = self.pods[i]
                groups.setdefault(f"{pod.namespace}/{pod.obj.name}[Pod]", []).append(i)
            self.notes.append(
                f"{name}: its pods differ in labels that {selector} tells apart; each pod is "
                "listed as its own peer"
            )
        return groups

    def _telling_apart(self, members: Sequence[int]) -> str | None:
        """A selector (described) that selects some of ``members`` and not others."""
        labels = [self.pods[i].labels for i in members]
        candidates: list[tuple[str, Selector]] = []
        for policy in self.policies:
            candidates.append((policy.described, policy.selector))
            for rule in policy.ingress + policy.egress + policy.ingress_deny + policy.egress_deny:
                for peer in rule.peers or ():
                    if peer.pods is not None:
                        candidates.append((policy.described, peer.pods))
        if self.admin is not None:
            for admin in self.admin.policies:
                for admin_peer in (admin.subject, *(p for r in admin.ingress + admin.egress
                                                    for p in r.peers)):
                    if admin_peer.pods is not None:
                        candidates.append((admin.name, admin_peer.pods))
        for what, selector in candidates:
            if len({selector.matches(x) for x in labels}) > 1:
                return f"{what} (selector {selector.describe()})"
        return None

    @cached_property
    def unevaluated(self) -> dict[str, list[KObject]]:
        """Policy kinds present in the tree that are not evaluated (Cilium, Calico,
        MultiNetworkPolicy): kind (with group) -> objects."""
        out: dict[str, list[KObject]] = {}
        for obj in self.model.objects:
            if (obj.group, obj.kind) in UNEVALUATED:
                out.setdefault(f"{obj.kind} ({obj.group})", []).append(obj)
        return out

    @cached_property
    def unevaluated_namespaces(self) -> frozenset[str] | None:
        """Namespaces whose pods an unevaluated policy may select; None: every namespace
        (a cluster-wide one)."""
        out: set[str] = set()
        for objects in self.unevaluated.values():
            for obj in objects:
                if obj.kind in CLUSTER_WIDE:
                    return None
                out.add(obj.namespace or "default")
        return frozenset(out)

    def all_notes(self) -> list[str]:
        """What every netpol output says besides the flows: kinds not evaluated, peers split,
        AdminNetworkPolicy warnings."""
        self.groups  # noqa: B018 (splitting peers adds its notes)
        out = [
            f"{kind}: {len(objects)} object(s) present and not evaluated; the flows shown "
            "ignore them" for kind, objects in sorted(self.unevaluated.items())
        ]
        out += [f"not evaluated: {r.ref}: {r.why_not}" for r in self.releases if r.why_not]
        out += [f"not evaluated: {c.ref}: {c.why_not}" for c in self.charts]
        out += self.unrendered_notes()
        out += [f"partly evaluated: {r.ref}: {r.partial}" for r in self.releases if r.partial]
        out += self._unevaluated_notes()
        out += self.notes
        if self.admin is not None:
            out += self.admin.warnings
        return out

    def unrendered_notes(self, namespaces: Collection[str] | None = None) -> list[str]:
        """One note per values file whose chart's pods are not judged (in ``namespaces``,
        when given): ``not evaluated: the pods chart X renders in ns (values f): ...``."""
        out: dict[str, None] = {}
        for p in self.unrendered:
            if namespaces is not None and p.namespace not in namespaces:
                continue
            vobj = p.obj
            assert isinstance(vobj, ValuesObject)
            chart = vobj.chart or vobj.release or vobj.name
            out[f"not evaluated: the pods chart {chart} renders in {p.namespace} (values "
                f"{vobj.file}): reviewbot does not render its templates, so their flows are "
                "not judged"] = None
        return list(out)

    def cilium_notes(self, objects: Collection[tuple[str, str, str]]) -> list[str]:
        """The notes on what is not evaluated in these Cilium policies (kind, namespace or "",
        name)."""
        return self._unevaluated_notes(objects)

    def _unevaluated_notes(
            self, objects: Collection[tuple[str, str, str]] | None = None) -> list[str]:
        """One note per construct of the Cilium policies that is not evaluated, naming the
        first places it is written (``file:line``) and how many more."""
        by_what: dict[str, list[str]] = {}
        for part in self.unevaluated_parts:
            if objects is not None and (part.obj.kind, part.obj.namespace or "",
                                        part.obj.name) not in objects:
                continue
            line, _ = part.obj.position(part.path)
            scoped = part.obj.namespace and part.obj.kind != "CiliumClusterwideNetworkPolicy"
            where = f"{part.obj.kind} {part.obj.namespace + '/' if scoped else ''}"
            where += f"{part.obj.name} ({part.obj.file}:{line})"
            if where not in by_what.setdefault(part.what, []):
                by_what[part.what].append(where)
        out = []
        for what, places in sorted(by_what.items()):
            shown = ", ".join(places[:MAX_PLACES])
            more = f" and {len(places) - MAX_PLACES} more" if len(places) > MAX_PLACES else ""
            out.append(f"not evaluated: Cilium {what} in {shown}{more}; the flows shown are "
                       "what the rest of those policies allows at L3/L4")
        return out

    # -------------------------------------------------- selection

    def namespace_defined(self, name: str) -> bool:
        ns = self.namespaces.get(name)
        return ns is not None and ns.obj is not None

    def namespace_match(self, selector: Selector, name: str) -> bool | None:
        key = (id(selector), name)  # selectors live as long as self.policies
        if key in self._ns_cache:
            return self._ns_cache[key]
        hit = self._namespace_match(selector, name)
        self._ns_cache[key] = hit
        return hit

    def _namespace_match(self, selector: Selector, name: str) -> bool | None:
        ns = self.namespaces.get(name)
        labels = ns.labels if ns else {NAME_LABEL: name}
        if self.exact or (ns is not None and ns.obj is not None):
            return selector.matches(labels)
        return selector.matches_partial(labels, frozenset({NAME_LABEL}))

    def subjects(self, policy: Policy) -> list[int]:
        """The pods a policy selects: in its namespace, or (a clusterwide Cilium policy) in
        the namespaces its selector allows; a namespace match that is unknown selects none
        (isolation is never assumed). Worked out once per policy (the network and three of
        netpol-pairing's checks ask); the list is shared: callers only read it."""
        cached = self._subjects.get(id(policy))
        if cached is not None and cached[0] is policy:
            return cached[1]
        found = self._subjects_of(policy)
        self._subjects[id(policy)] = (policy, found)
        return found

    def _subjects_of(self, policy: Policy) -> list[int]:
        if policy.subject_namespaces is None:
            found = self.select_in(policy.namespace, policy.selector)
        else:
            found = self.select_across(
                self.namespaces_selected(policy.subject_namespaces, False), policy.selector)
        if policy.subject_accounts is not None:
            accounts = policy.subject_accounts
            found = [i for i in found if accounts.matches(self.account_of(i))]
        return found

    def account_of(self, i: int) -> Mapping[str, str]:
        """The pod's service account as Cilium labels it."""
        spec = self.pods[i].spec
        name = spec.get("serviceAccountName") or spec.get("serviceAccount") or "default"
        return {ACCOUNT_KEY: str(name)}

    def select_in(self, namespace: str, selector: Selector) -> list[int]:
        """Pods of ``namespace`` that ``selector`` matches (through the label index)."""
        if not selector.valid:
            return []
        pairs = selector.pairs
        if not selector.exprs:
            if len(pairs) == 1:  # the index answers exactly
                return self.by_label.get((namespace, pairs[0][0], pairs[0][1]), [])
            if not pairs:  # the empty selector: every pod of the namespace, unmatched
                return list(self.by_ns.get(namespace, ()))
        candidates: list[int] | None = None
        for key, value in pairs:
            hits = self.by_label.get((namespace, key, value), [])
            if candidates is None or len(hits) < len(candidates):
                candidates = hits
            if not hits:
                return []
        if candidates is None:
            candidates = self.by_ns.get(namespace, [])
        return [i for i in candidates if selector.matches(self.pods[i].labels)]

    def select_across(self, namespaces: Sequence[str], selector: Selector) -> list[int]:
        """``[i for ns in namespaces for i in self.select_in(ns, selector)]`` (``namespaces``
        distinct). Over many namespaces (a clusterwide Cilium policy, a peer selecting every
        namespace) the pods are found once in the index of every namespace and put in that
        order (within a namespace in pod order, as :meth:`select_in` gives them), not looked
        up namespace by namespace (JJGadgets-Biohazard: 10,344 lookups, most finding
        nothing)."""
        if len(namespaces) < ACROSS or not selector.valid or not selector.pairs:
            if selector.valid and not selector.pairs and not selector.exprs:
                # the empty selector (a peer of every pod in every namespace): the pods of
                # those namespaces, matched against nothing (JJGadgets-Biohazard: 95
                # namespaces a lookup each, every pod matched against no requirement)
                by_ns = self.by_ns
                return [i for ns in namespaces for i in by_ns.get(ns, ())]
            return [i for ns in namespaces for i in self.select_in(ns, selector)]
        candidates: list[int] | None = None
        by_pair = self._by_pair
        for pair in selector.pairs:
            hits = by_pair.get(pair)
            if not hits:
                return []
            if candidates is None or len(hits) < len(candidates):
                candidates = hits
        assert candidates is not None
        rank = {ns: n for n, ns in enumerate(namespaces)}
        pods = self.pods
        found = [i for i in candidates if pods[i].namespace in rank
                 and selector.matches(pods[i].labels)]
        found.sort(key=lambda i: rank[pods[i].namespace])  # stable: pod order within one
        return found

    @cached_property
    def _by_pair(self) -> dict[tuple[str, str], list[int]]:
        """(label, value) -> the pods carrying it in any namespace, in pod order."""
        out: dict[tuple[str, str], list[int]] = {}
        for i, pod in enumerate(self.pods):
            for pair in pod.labels.items():
                out.setdefault(pair, []).append(i)
        return out

    def namespaces_selected(self, selector: Selector, unknown: bool) -> list[str]:
        """The namespaces ``selector`` matches (``unknown`` decides undecidable matches),
        in the network's order; once per selector value (the list is shared: callers only
        read it). What :meth:`_namespaces_selected` finds depends on the selector's value
        alone, so an equal selector's list is reused; the lookup by identity comes first
        (hashing a selector costs more than finding it by id)."""
        key = (id(selector), unknown)
        cached = self._namespaces_cache.get(key)
        if cached is not None and cached[0] is selector:
            return cached[1]
        by_value = (selector, unknown)
        found = self._namespaces_by_value.get(by_value)
        if found is None:
            found = self._namespaces_by_value[by_value] = self._namespaces_selected(
                selector, unknown)
        self._namespaces_cache[key] = (selector, found)
        return found

    def _namespaces_selected(self, selector: Selector, unknown: bool) -> list[str]:
        names = selector.names()
        pool = [n for n in names if n in self.namespaces] if names is not None else list(
            self.namespaces
        )
        out = []
        for name in pool:
            hit = self.namespace_match(selector, name)
            if hit or (hit is None and unknown):
                out.append(name)
        return out

    def peer_pods(self, peer: Peer, namespace: str, unknown: bool = False) -> frozenset[int]:
        """The pods one ``from``/``to`` entry selects; ``unknown`` decides undecidable
        namespace matches (only when ``exact`` is off)."""
        if unknown and not self._uncertain(peer):
            unknown = False  # the same answer either way: share the cache entry
        key = (id(peer), unknown)
        cached = self._peer_cache.get(key)
        if cached is not None:
            return cached
        result: set[int] = set()
        if peer.unknown and (self.exact or not unknown):
            pass  # not evaluated (Cilium toServices, toGroups, ...): never certainly a match
        elif peer.ip is not None and unknown and not self.exact:
            # Whether an ipBlock matches pod addresses depends on the network plugin: unknown.
            result.update(range(len(self.pods)))
        elif peer.unknown and peer.pods is None and peer.namespaces is None:
            result.update(range(len(self.pods)))  # it may be any pod
        elif peer.ip is None and peer.valid:
            pods = peer.pods if peer.pods is not None else Selector()
            if peer.namespaces is None:
                result.update(self.select_in(namespace, pods))
            else:
                result.update(self.select_across(
                    self.namespaces_selected(peer.namespaces, unknown), pods))
            if peer.accounts is not None:
                accounts = peer.accounts
                result = {i for i in result if accounts.matches(self.account_of(i))}
        frozen = frozenset(result)
        self._peer_cache[key] = frozen  # peers live as long as self.policies: ids are stable
        return frozen

    def _uncertain(self, peer: Peer) -> bool:
        """Whether ``unknown`` can change what ``peer`` selects."""
        if self.exact:
            return False
        if peer.ip is not None or peer.unknown:
            return True
        return peer.namespaces is not None and bool(peer.namespaces.keys - {NAME_LABEL})

    def rule_pods(self, rule: Rule, unknown: bool = False) -> frozenset[int] | None:
        """Pods a rule's peers select; None means every peer (no ``from``/``to``)."""
        if rule.peers is None:
            return None
        key = (id(rule), unknown)
        cached = self._rule_cache.get(key)
        if cached is None:
            if len(rule.peers) == 1:
                cached = self.peer_pods(rule.peers[0], rule.namespace, unknown)
            else:
                cached = frozenset().union(
                    *(self.peer_pods(p, rule.namespace, unknown) for p in rule.peers)
                )
            self._rule_cache[key] = cached
        return cached

    def outside_namespaces(self) -> list[str]:
        """The namespaces the policies' peers name (``kubernetes.io/metadata.name``) where the
        repository shows no workload: ingress-nginx, kube-system's DNS; flows with their pods
        are not among those listed (new-user trial seventeen found them missing unsaid)."""
        named: set[str] = set()
        for policy in self.policies:
            for rule in policy.ingress + policy.egress:
                for peer in rule.peers or ():
                    names = peer.namespaces.names() if peer.namespaces is not None else None
                    named.update(names or ())
        return sorted(n for n in named if n not in self.by_ns)

    @cached_property
    def opaque_namespaces(self) -> frozenset[str]:
        """Namespaces that may hold pods the model cannot see (:attr:`unseen`)."""
        return frozenset(self.unseen)

    @cached_property
    def unseen(self) -> dict[str, list[str]]:
        """Namespace -> what in it may run pods the model cannot see: Helm charts (HelmRelease,
        Argo CD Application, values files) and custom resources of operators whose pods the
        repository does not describe (a CloudNativePG Cluster, a VolSync ReplicationSource)."""
        return {ns: [what for what, _ in made] for ns, made in self.unseen_makers.items()}

    def unseen_selected(self, namespace: str, selector: Selector) -> list[str]:
        """What in ``namespace`` may run pods the model cannot see that ``selector`` may
        select (:attr:`unseen`): an operator whose pods' labels its documentation lists
        (:data:`OPERATOR_POD_LABELS`) only where they may carry the selector's (new-user
        trial sixty-five: a misspelt PodDisruptionBudget beside a CloudNativePG Cluster,
        whose pods are `app.kubernetes.io/name=postgresql`, was not reported)."""
        return [what for what, obj in self.unseen_makers.get(namespace, ())
                if obj is None or operator_pods_may_match(obj, selector)]

    @cached_property
    def unseen_makers(self) -> dict[str, list[tuple[str, KObject | None]]]:
        """:attr:`unseen`, each with the custom resource that makes the pods (None: a chart)."""
        out: dict[str, list[tuple[str, KObject | None]]] = {}

        def add(namespace: str, what: str, maker: KObject | None = None) -> None:
            known = out.setdefault(namespace, [])  # one entry per object, the first said
            head = what.split(" (", 1)[0]
            if all(w.split(" (", 1)[0] != head for w, _ in known):
                known.append((what, maker))

        evaluated = {id(r.obj) for r in self.releases if r.evaluated}
        rendered = {id(r.obj) for r in self.releases if not r.evaluated}  # (a chart folder the
        # walk follows still renders what it does not see)
        followed = _followed_applications(self.model)
        drawn = {pod_id for r in self.releases if r.evaluated for pod_id in r.pods}  # (values
        # files an Application or ApplicationSet gives its chart: the release is the set's)
        for pod in self.model.pods:
            if pod.from_values and id(pod.obj) not in evaluated and id(pod) not in drawn:
                add(pod.namespace, f"{pod.obj.kind} {pod.obj.name} (Helm chart values)")
        seen = {id(p.obj) for p in self.model.pods}
        for obj in self.model.objects:
            ns = obj.namespace or "default"
            if id(obj) in evaluated:
                continue
            if obj.kind == "HelmRelease":
                add(ns, f"HelmRelease {obj.name}")
                target = obj.get(("spec", "targetNamespace"))
                if isinstance(target, str) and target:
                    add(target, f"HelmRelease {ns}/{obj.name}")
            elif obj.kind == "Application" and obj.group == "argoproj.io":
                target = obj.get(("spec", "destination", "namespace"))
                if isinstance(target, str) and target and (
                        id(obj) not in followed or id(obj) in rendered):
                    add(target, f"Argo CD Application {obj.name}")
            elif id(obj) not in seen and may_run_pods(obj):
                add(ns, f"{obj.kind} {obj.name} ({obj.group})", obj)
        for chart in self.charts:  # (a kustomization's helmCharts: never evaluated)
            if chart.namespace:
                add(chart.namespace, f"chart {chart.name} of {chart.file}")
        for ns, folder in self._template_charts():
            add(ns, f"chart {folder} (templates reviewbot does not render)")
        return out

    def _template_charts(self) -> list[tuple[str, str]]:
        """(namespace, chart folder) of the charts of the tree whose workload templates the
        loader skipped (reviewbot renders no chart) while their plain templates are objects
        of this view: the chart renders pods in the namespaces those objects are in (new-user
        trial forty-eight: an Argo CD Application renders `charts/vllm`, its NetworkPolicy
        template plain YAML, its Deployment's skipped; "matches no pod in llm")."""
        from reviewbot.model.resource import templates_declaring

        charts = {path.partition("/templates/")[0] for path in templates_declaring(
            self.model.files, _TEMPLATE_WORKLOADS, tuple(k.encode() for k in _TEMPLATE_WORKLOADS))}
        if not charts:
            return []
        return sorted({(obj.namespace or "default", folder) for obj in self.model.objects
                       if (folder := obj.file.partition("/templates/")[0]) in charts
                       and "/templates/" in obj.file})

    # -------------------------------------------------- ports

    def ports_of(self, d: int) -> NamedPorts:
        ports = self._ports.get(d)
        if ports is None:
            ports = self._ports[d] = named_ports(self.pods[d])
        return ports

    def port_signature(self, d: int) -> tuple[Any, ...]:
        sig = self._signatures.get(d)
        if sig is None:
            sig = self._signatures[d] = tuple(sorted(self.ports_of(d).items()))
        return sig

    def rule_conns(self, rule: Rule, d: int | None) -> Conns:
        """What ``rule`` allows towards pod ``d`` (None: an IP address), named ports resolved."""
        key: Any = id(rule)  # numbers only: the same towards every pod
        if rule.uses_names:
            key = (key, self.port_signature(d) if d is not None else None)
        conns = self._conns_cache.get(key)
        if conns is None:
            conns = rule.conns(self.ports_of(d) if d is not None else None)
            self._conns_cache[key] = conns
        return conns

    # -------------------------------------------------- evaluation

    def isolated_ingress(self, d: int) -> bool:
        return bool(self.ingress_of[d])

    def isolated_egress(self, s: int) -> bool:
        return bool(self.egress_of[s])

    def ingress_map(self, d: int, unknown: bool = False) -> tuple[dict[int, Conns], bool]:
        """Sources admitted into pod ``d``: (source -> conns, admits-every-source conns?).

        The bool is True when some rule admits every peer; then ``every`` conns apply to all
        sources and the map holds the extra, source-specific part."""
        key = (self.ingress_of[d], self.port_signature(d), unknown)
        cached = self._ingress_cache.get(key)
        if cached is not None:
            return cached
        result = self._build_map(
            [r for n in self.ingress_of[d] for r in self.policies[n].ingress],
            lambda r: self.rule_conns(r, d), unknown,
        )
        self._ingress_cache[key] = result
        return result

    def ingress_sources(self, d: int, wanted: Conns, unknown: bool = False
                        ) -> frozenset[int] | None:
        """The sources whose flows on ``wanted`` pod ``d``'s ingress admits on some
        connection (None: every source): ``{s for s, c in ingress_map(d)[0].items() if
        c.intersect(wanted)}``, None when ``every_ingress(d).intersect(wanted)`` and the map
        admits every source. A source's connections are the union of those of the rules
        selecting it, and a union meets ``wanted`` when one of its parts does: so the sources
        are the union of the peers of the rules whose connections meet ``wanted``, found
        without the map's per-source unions (JJGadgets-Biohazard: 2,596 unions and 2,035
        intersections for 51 maps). Deny rules are not read (nor by ingress_map)."""
        found: set[int] = set()
        for n in self.ingress_of[d]:
            for rule in self.policies[n].ingress:
                if not self.rule_conns(rule, d).intersect(wanted):
                    continue
                sources = self.rule_pods(rule, unknown)
                if sources is None:
                    return None
                found.update(sources)
        return frozenset(found)

    def _build_map(
        self, rules: Sequence[Rule], conns_of: Any, unknown: bool
    ) -> tuple[dict[int, Conns], bool]:
        result: dict[int, Conns] = {}
        every = False
        for rule in rules:
            c = conns_of(rule)
            if not c:
                continue
            sources = self.rule_pods(rule, unknown)
            if sources is None:
                every = True
                continue
            for s in sources:
                result[s] = result.get(s, NONE).union(c)
        return result, every

    def _rule_matches(self, rule: Rule, i: int, unknown: bool) -> bool:
        if rule.peers is None:
            return True
        cached = self._rule_cache.get((id(rule), unknown))
        if cached is not None:
            return i in cached
        ns = rule.namespace
        return any(self.peer_matches(peer, ns, i, unknown) for peer in rule.peers)

    def peer_matches(self, peer: Peer, namespace: str, i: int, unknown: bool = False) -> bool:
        """Whether one ``from``/``to`` entry of a policy in ``namespace`` selects pod ``i``
        (the same answer as ``i in peer_pods(...)``, without building the set)."""
        if peer.unknown and (self.exact or not unknown):
            return False
        if peer.ip is not None:
            return unknown and not self.exact
        if not peer.valid:
            return False
        if peer.unknown and peer.pods is None and peer.namespaces is None:
            return True
        if peer.accounts is not None and not peer.accounts.matches(self.account_of(i)):
            return False
        pod = self.pods[i]
        if peer.namespaces is None:
            if pod.namespace != namespace:
                return False
        else:
            hit = self.namespace_match(peer.namespaces, pod.namespace)
            if not (hit or (hit is None and unknown)):
                return False
        return peer.pods is None or peer.pods.matches(pod.labels)

    def ingress_conns(self, s: int, d: int, unknown: bool = False) -> Conns:
        """What ``d``'s ingress side admits from pod ``s`` (all tiers)."""
        if self.admin is not None:
            allowed, undecided = self.admin.pod_verdict(d, s, "ingress", d)
            if not undecided:
                return allowed
            if self.ingress_of[d]:
                rest = self._np_ingress(s, d, unknown)
            else:
                rest = ALL.subtract(self.admin.pod_baseline_denied(d, s, "ingress", d))
            return allowed.union(undecided.intersect(rest))
        return self._np_ingress(s, d, unknown)

    def _np_ingress(self, s: int, d: int, unknown: bool) -> Conns:
        if not self.ingress_of[d]:
            out = ALL
        else:
            out = NONE
            for n in self.ingress_of[d]:
                for rule in self.policies[n].ingress:
                    if self._rule_matches(rule, s, unknown):
                        out = out.union(self.rule_conns(rule, d))
        if self.ingress_deny_of[d] and out:
            out = out.subtract(self._denied(self.ingress_deny_of[d], "ingress", s, d, unknown))
        return out

    def _denied(self, policies: Sequence[int], direction: str, peer: int, d: int | None,
                unknown: bool) -> Conns:
        """What Cilium deny rules of ``policies`` deny towards/from pod ``peer`` (ports
        resolved on ``d``). Deny wins; an unknown match counts as a denial only when the
        question is whether a flow is certainly allowed (``unknown`` False)."""
        out = NONE
        for n in policies:
            policy = self.policies[n]
            for rule in policy.ingress_deny if direction == "ingress" else policy.egress_deny:
                if self._rule_matches(rule, peer, not unknown):
                    out = out.union(self.rule_conns(rule, d))
        return out

    def egress_conns(self, s: int, d: int, unknown: bool = False) -> Conns:
        """What ``s``'s egress side lets out towards pod ``d`` (all tiers)."""
        if self.admin is not None:
            allowed, undecided = self.admin.pod_verdict(s, d, "egress", d)
            if not undecided:
                return allowed
            if self.egress_of[s]:
                rest = self._np_egress(s, d, unknown)
            else:
                rest = ALL.subtract(self.admin.pod_baseline_denied(s, d, "egress", d))
            return allowed.union(undecided.intersect(rest))
        return self._np_egress(s, d, unknown)

    def _np_egress(self, s: int, d: int, unknown: bool) -> Conns:
        if not self.egress_of[s]:
            out = ALL
        else:
            out = NONE
            for n in self.egress_of[s]:
                for rule in self.policies[n].egress:
                    if self._rule_matches(rule, d, unknown):
                        out = out.union(self.rule_conns(rule, d))
        if self.egress_deny_of[s] and out:
            out = out.subtract(self._denied(self.egress_deny_of[s], "egress", d, d, unknown))
        return out

    def ingress_allows(self, s: int, d: int, conns: Conns, unknown: bool = False) -> bool:
        """Whether ``d``'s ingress side admits any of ``conns`` from pod ``s``."""
        if self.admin is not None or self.ingress_deny_of[d]:
            return self.ingress_conns(s, d, unknown).overlaps(conns)
        if not self.ingress_of[d]:
            return bool(conns)
        for n in self.ingress_of[d]:
            for rule in self.policies[n].ingress:
                if self.rule_conns(rule, d).overlaps(conns) and self._rule_matches(
                    rule, s, unknown
                ):
                    return True
        return False

    def labels_decide(self, s: int, d: int, conns: Conns) -> bool:
        """Whether ``d``'s ingress verdict on ``conns`` from pod ``s`` could change with
        ``s``'s labels (or what is not evaluated): some rule of a policy selecting ``d`` that
        covers ``conns`` has a peer that may select a pod of ``s``'s namespace, or an IP
        block, or a deny or admin tier decides. When none does, the verdict holds whatever
        labels ``s`` carries: a chart's pod whose labels are read from its documented
        templates is as certain there as one written (new-user trial thirty-one: a plain
        NetworkPolicy admitting only namespace selfhosted, the caller an app-template pod
        in ai, was "Not certain")."""
        if self.admin is not None or self.ingress_deny_of[d]:
            return True
        namespace = self.pods[s].namespace
        for n in self.ingress_of[d]:
            for rule in self.policies[n].ingress:
                if not self.rule_conns(rule, d).overlaps(conns):
                    continue
                if rule.peers is None:
                    return True
                for peer in rule.peers:
                    if peer.ip is not None or peer.unknown or peer.accounts is not None:
                        return True
                    if peer.namespaces is None:
                        if namespace == rule.namespace:
                            return True
                    elif self.namespace_match(peer.namespaces, namespace) is not False:
                        return True
        return False

    def egress_allows(self, s: int, d: int, conns: Conns, unknown: bool = False) -> bool:
        """Whether ``s``'s egress side lets any of ``conns`` out towards pod ``d``."""
        if self.admin is not None or self.egress_deny_of[s]:
            return self.egress_conns(s, d, unknown).overlaps(conns)
        if not self.egress_of[s]:
            return bool(conns)
        for n in self.egress_of[s]:
            for rule in self.policies[n].egress:
                if self.rule_conns(rule, d).overlaps(conns) and self._rule_matches(
                    rule, d, unknown
                ):
                    return True
        return False

    def every_ingress(self, d: int) -> Conns:
        return union_all(
            self.rule_conns(r, d) for n in self.ingress_of[d] for r in self.policies[n].ingress
            if r.peers is None
        )

    def allowed(self, s: int, d: int, unknown: bool = False) -> Conns:
        egress = self.egress_conns(s, d, unknown)
        if not egress:
            return NONE
        return egress.intersect(self.ingress_conns(s, d, unknown))

    # -------------------------------------------------- IP addresses

    def ip_ingress(self, piece: Interval, d: int) -> Conns:
        """What pod ``d`` admits from the external address range ``piece``."""
        key = ("in", piece, self.ingress_of[d], self.ingress_deny_of[d], self.port_signature(d))
        out = self._ip_cache.get(key)
        if out is None:
            out = self._ip_cache[key] = self._ip_ingress(piece, d)
        return out

    def _ip_ingress(self, piece: Interval, d: int) -> Conns:
        if not self.ingress_of[d]:
            out = ALL
        else:
            out = union_all(
                self.rule_conns(r, d) for n in self.ingress_of[d]
                for r in self.policies[n].ingress if _admits_ip(r, piece)
            )
        if self.ingress_deny_of[d] and out:
            out = out.subtract(union_all(
                self.rule_conns(r, d) for n in self.ingress_deny_of[d]
                for r in self.policies[n].ingress_deny if _admits_ip(r, piece)))
        return out

    def ip_egress(self, s: int, piece: Interval) -> Conns:
        """What pod ``s`` may send to the external address range ``piece`` (all tiers)."""
        if self.admin is not None:
            allowed, undecided = self.admin.ip_verdict(s, piece)
            if not undecided:
                return allowed
            if self.egress_of[s]:
                rest = self._np_ip_egress(s, piece)
            else:
                rest = ALL.subtract(self.admin.ip_baseline_denied(s, piece))
            return allowed.union(undecided.intersect(rest))
        return self._np_ip_egress(s, piece)

    def _np_ip_egress(self, s: int, piece: Interval) -> Conns:
        key = ("out", piece, self.egress_of[s], self.egress_deny_of[s])
        out = self._ip_cache.get(key)
        if out is None:
            out = self._ip_cache[key] = self._np_ip_egress_of(s, piece)
        return out

    def _np_ip_egress_of(self, s: int, piece: Interval) -> Conns:
        if not self.egress_of[s]:
            out = ALL
        else:
            out = union_all(
                self.rule_conns(r, None) for n in self.egress_of[s]
                for r in self.policies[n].egress if _admits_ip(r, piece)
            )
        if self.egress_deny_of[s] and out:
            out = out.subtract(union_all(
                self.rule_conns(r, None) for n in self.egress_deny_of[s]
                for r in self.policies[n].egress_deny if _admits_ip(r, piece)))
        return out

    def ip_blocks(self, direction: str) -> list[tuple[Interval, ...]]:
        out = []
        for policy in self.policies:
            rules = (policy.ingress + policy.ingress_deny if direction == "ingress"
                     else policy.egress + policy.egress_deny)
            for rule in rules:
                for peer in rule.peers or ():
                    if peer.ip is not None and peer.ip.ranges:
                        out.append(peer.ip.ranges)
        if direction == "egress" and self.admin is not None:
            out += self.admin.network_blocks()
        return list(dict.fromkeys(out))

    # -------------------------------------------------- services

    @cached_property
    def services(self) -> dict[tuple[str, str], Service]:
        """The repository's Services, KServe's, and those the known charts make."""
        return services_of(self.model)

    def service_pods(self, service: Service) -> list[int]:
        if not service.selector:
            return []
        selector = Selector(tuple(service.selector.items()))
        return self.select_in(service.namespace, selector)


def _followed_applications(model: Model) -> set[int]:
    """Argo CD Applications whose every source is a folder of this tree (no Helm chart, no
    path this tree lacks), which the walk from the roots follows as it follows the sources of
    the Applications it applies (model.reach): what they deploy is in the model, so their
    destination namespace holds no pod it cannot see on their account."""
    graph = model_graph(model)
    out: set[int] = set()
    for obj in model.objects:
        if obj.kind != "Application" or obj.group != "argoproj.io":
            continue
        spec = mapping(obj.get(("spec",)))
        sources = [s for _, s in argo_sources(spec) if s]
        if sources and all(_in_tree(graph, obj.file, s) for s in sources):
            out.add(id(obj))
    return out


def _in_tree(graph: Graph, file: str, source: Any) -> bool:
    """Whether an Argo CD source is a plain folder of this tree (what the walk follows)."""
    if not isinstance(source, dict) or source.get("chart"):
        return False
    path = source.get("path")
    if not isinstance(path, str) or not path or "{{" in path:
        return False
    folder = graph.argo_folder(file, path)
    return folder is not None and (not folder or folder in graph.dirs)


def services_of(model: Model) -> dict[tuple[str, str], Service]:
    """(namespace, name) -> Service: the first of :func:`every_service` of each name."""
    out: dict[tuple[str, str], Service] = {}
    for service in every_service(model):
        out.setdefault((service.namespace, service.name), service)
    return out


# Custom resources known to run no pod of their own (policies, certificates, secrets, Flux and
# monitoring configuration); any other custom resource may have an operator that runs pods.
POD_FREE_GROUPS = (
    "fluxcd.io", "cilium.io", "cert-manager.io", "external-secrets.io", "kyverno.io",
    "cni.cncf.io", "objectbucket.io", "reviewbot.dev", "barmancloud.cnpg.io",
    "projectcalico.org", "kyverno.io", "istio.io",
)
POD_FREE_KINDS = frozenset({
    ("monitoring.coreos.com", k) for k in (
        "ServiceMonitor", "PodMonitor", "PrometheusRule", "Probe", "ScrapeConfig",
        "AlertmanagerConfig")
} | {
    ("grafana.integreatly.org", k) for k in (
        "GrafanaDashboard", "GrafanaDatasource", "GrafanaFolder", "GrafanaServiceAccount",
        "GrafanaAlertRuleGroup", "GrafanaContactPoint", "GrafanaNotificationPolicy")
} | {("serving.kserve.io", "ServingRuntime"), ("serving.kserve.io", "ClusterServingRuntime"),
     ("fluxcd.controlplane.io", "FluxInstance")})


# the kinds of a chart's templates that run pods (a template declaring one: the chart's pods)
_TEMPLATE_WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Pod")


def may_run_pods(obj: KObject) -> bool:
    """Whether a custom resource may have an operator that runs pods reviewbot cannot see."""
    group = obj.group
    if "." not in group or (group.endswith(".k8s.io") and not group.endswith(".x-k8s.io")):
        return False  # Kubernetes' own kinds: their pods are in the model
    if group == "fluxcd.controlplane.io":
        return (group, obj.kind) not in POD_FREE_KINDS  # a ResourceSet makes anything
    if group.endswith(POD_FREE_GROUPS) or (group, obj.kind) in POD_FREE_KINDS:
        return False
    if group == "argoproj.io":  # Argo CD's own kinds; Workflows, Sensors and Rollouts run pods
        return obj.kind not in ("Application", "ApplicationSet", "AppProject",
                                "WorkflowTemplate", "ClusterWorkflowTemplate")
    return True


# the labels an operator's pods carry, from its documentation and sources, for the custom
# resources whose pods the repository does not describe: (group, kind) -> (label -> value,
# "{name}" the resource's name; label keys and prefixes whose values are the operator's,
# unknown here; the resource's fields whose labels its pods inherit). A label not listed is
# one the pods do not carry. Older releases of an operator that do not set a label listed
# are allowed for (absent). CloudNativePG: docs/src/labels_annotations.md (`cnpg.io/*`,
# the deprecated `role` and `postgresql`; "no label ... in the cluster's metadata is
# inherited" unless the operator is configured so: taken as may be) and its pod specs'
# `app.kubernetes.io/*` labels (name `postgresql`, managed-by `cloudnative-pg`).
OPERATOR_POD_LABELS: Mapping[tuple[str, str], tuple[Mapping[str, str], tuple[str, ...],
                                                    tuple[tuple[str, ...], ...]]] = {
    ("postgresql.cnpg.io", "Cluster"): (
        {"cnpg.io/cluster": "{name}", "cnpg.io/podRole": "instance",
         "app.kubernetes.io/name": "postgresql", "app.kubernetes.io/instance": "{name}",
         "app.kubernetes.io/component": "database",
         "app.kubernetes.io/managed-by": "cloudnative-pg"},
        ("cnpg.io/", "role", "postgresql", "app.kubernetes.io/version"),
        (("metadata", "labels"), ("spec", "inheritedMetadata", "labels"))),
}


def operator_pods_may_match(obj: KObject, selector: Selector) -> bool:
    """Whether pods the operator of custom resource ``obj`` makes may carry what
    ``selector`` requires: True unless the operator's labels are listed
    (:data:`OPERATOR_POD_LABELS`) and some ``key=value`` (or ``key in (...)``) requirement
    names a label they never carry with that value."""
    known = OPERATOR_POD_LABELS.get((obj.group, obj.kind))
    if known is None or not selector.valid:
        return known is None
    fixed, free, inherited = known
    for r in selector.requirements:
        if r.operator != "In" or r.key.startswith(free) or r.key in free:
            continue
        values = {fixed[r.key].replace("{name}", obj.name)} if r.key in fixed else set()
        for path in inherited:
            labels = obj.get(path)
            value = labels.get(r.key) if isinstance(labels, dict) else None
            if value is not None:
                values.add(label_text(value))
        if not values & r.values:
            return False
    return True


def _admits_ip(rule: Rule, piece: Interval) -> bool:
    if rule.peers is None:
        return True
    return any(p.ip is not None and p.ip.contains(piece) for p in rule.peers)


# ---------------------------------------------------------------- connectivity listing


@dataclass(frozen=True)
class Flow:
    """The connections allowed from one workload to another."""

    src: str
    dst: str
    conns: Conns

    def line(self) -> str:
        return f"{term(self.src)} => {term(self.dst)} : {self.conns}"


def workload_groups(network: Network) -> dict[str, list[int]]:
    """Peer name (``ns/name[Kind]``) -> its pod templates (Pods of one owner are one peer)."""
    return network.groups


def ingress_flows(network: Network, groups: Mapping[str, list[int]]) -> list[Flow]:
    """``{ingress-controller}`` -> workload flows: what Ingress/Route objects send, as far
    as the policies allow it."""
    c = network.controller
    if c is None:
        return []
    from reviewbot.netpol.ingress import INGRESS_PEER, requested

    wanted = requested(
        network.ingresses, network.services, network.service_pods, network.pods
    )
    found: dict[str, Conns] = {}
    for name, members in groups.items():
        for d in members:
            if d in wanted:
                conns = network.allowed(c, d).intersect(wanted[d])
                if conns:
                    found[name] = found.get(name, NONE).union(conns)
    return [Flow(INGRESS_PEER, name, conns) for name, conns in found.items()]


def connectivity(network: Network) -> list[Flow]:
    """Every ordered pair of peers with a non-empty allowed set, sorted as np-guard sorts."""
    groups = workload_groups(network)
    group_of = {i: name for name, members in groups.items() for i in members}
    flows: list[Flow] = []
    names = sorted(groups)
    everyone = [i for i in range(len(network.pods)) if i != network.controller]
    allowed = _pair_conns(network)
    for src in names:
        found: dict[str, Conns] = {}
        for s in groups[src]:
            # Only the destinations the source's egress rules reach can be allowed: in repos
            # with default-deny egress this keeps the listing linear in what it prints.
            for d in _egress_candidates(network, s, everyone):
                dst = group_of.get(d)  # None: the ingress controller's stand-in
                if dst == src or dst is None:
                    continue
                conns = allowed(s, d)
                if conns:
                    found[dst] = found.get(dst, NONE).union(conns)
        flows += [Flow(src, dst, conns) for dst, conns in found.items()]
    for piece in ip_pieces(network.ip_blocks("ingress")):
        name = f"{format_range(piece)}[External]"
        for dst in names:
            conns = union_all(network.ip_ingress(piece, d) for d in groups[dst])
            if conns:
                flows.append(Flow(name, dst, conns))
    for piece in ip_pieces(network.ip_blocks("egress")):
        name = f"{format_range(piece)}[External]"
        for src in names:
            conns = union_all(network.ip_egress(s, piece) for s in groups[src])
            if conns:
                flows.append(Flow(src, name, conns))
    flows += ingress_flows(network, groups)
    flows.sort(key=lambda f: (f.src.encode(), f.dst.encode()))
    return flows


def _pair_conns(network: Network) -> Callable[[int, int], Conns]:
    """``network.allowed`` for one listing, each side's answer computed once per class of
    pods it cannot tell apart. Without the admin tiers, what ``s``'s egress lets out
    towards ``d`` depends on ``d`` and on the policies that decide for ``s`` alone, and what
    ``d``'s ingress admits from ``s`` on ``s``, the policies that decide for ``d`` and
    ``d``'s named ports: pods built alike (a base a diamond of overlays builds 512 times)
    share one answer instead of every pair walking every rule (pairs x rules)."""
    if network.admin is not None:
        return network.allowed
    out_of: dict[tuple[Any, ...], Conns] = {}
    into: dict[tuple[Any, ...], Conns] = {}

    def allowed(s: int, d: int) -> Conns:
        key = (network.egress_of[s], network.egress_deny_of[s], d)
        egress = out_of.get(key)
        if egress is None:
            egress = out_of[key] = network.egress_conns(s, d)
        if not egress:
            return NONE
        pair = (s, network.ingress_of[d], network.ingress_deny_of[d], network.port_signature(d))
        ingress = into.get(pair)
        if ingress is None:
            ingress = into[pair] = network.ingress_conns(s, d)
        return egress.intersect(ingress)

    return allowed


def _egress_candidates(network: Network, s: int, everyone: Iterable[int]) -> Iterable[int]:
    if not network.egress_of[s] or network.admin is not None:
        return everyone
    out: set[int] = set()
    for n in network.egress_of[s]:
        for rule in network.policies[n].egress:
            targets = network.rule_pods(rule)
            if targets is None:
                return everyone
            out |= targets
    return sorted(out)


Listing = Sequence[tuple[str, Sequence[Flow], Network]]  # per cluster: name, flows, network


def render_connlist(flows: Iterable[Flow]) -> str:
    return "".join(f.line() + "\n" for f in flows)


def render_text(found: Listing, notes: Sequence[str]) -> str:
    out: list[str] = []
    for name, flows, network in found:
        if name:
            out.append(f"{term(cluster_phrase(name))}:")
        current = None
        for flow in flows:
            if flow.src != current:
                current = flow.src
                out.append(term(flow.src))
            out.append(f"  -> {term(flow.dst)}  {flow.conns}")
        workloads = len(workload_groups(network))
        kubernetes = sum(1 for p in network.policies if p.kind == "NetworkPolicy")
        cilium = len(network.policies) - kubernetes
        out.append(
            f"{plural(len(flows), 'allowed flow')} among {plural(workloads, 'workload')}, "
            f"{plural(kubernetes, 'NetworkPolicy', 'NetworkPolicies')}"
            + (f", {plural(cilium, 'Cilium policy rule set')}" if cilium else "")
            + (f" in {term(cluster_phrase(name))}" if name else "")
        )
        outside = network.outside_namespaces()
        if outside:
            shown = ", ".join(outside[:5]) + (f" and {len(outside) - 5} more" if len(
                outside) > 5 else "")
            out.append(term(f"not listed: flows with pods of {shown}, which the policies "
                            "name and the repository shows no workload of"))
    out += [f"note: {term(note)}" for note in notes]
    return "\n".join(out) + "\n"


def render_json(found: Listing, notes: Sequence[str]) -> str:
    """``{"version", "workloads", "policies", "notes", "flows"}``; where the tree holds several
    clusters, each flow names its cluster (``"cluster"``), and the workloads and policies
    are those of every cluster, each once."""
    doc = {
        "version": 1,
        "workloads": sorted({p for _, _, net in found for p in workload_groups(net)}),
        "policies": list(dict.fromkeys(p.name for _, _, net in found for p in net.policies)),
        "notes": list(notes),
        "flows": [
            {"src": f.src, "dst": f.dst, "connections": str(f.conns),
             "ports": f.conns.as_json(), **({"cluster": name} if name else {})}
            for name, flows, _ in found for f in flows
        ],
    }
    return json_text(doc) + "\n"
