"""CiliumNetworkPolicy and CiliumClusterwideNetworkPolicy at L3/L4, from docs.cilium.io.

Each case is one of the documentation's examples (examples/policies/... in cilium/cilium,
written by hand here) or a sentence of its text, quoted; the expected flows come from that
text, not from running the evaluator.
"""

from __future__ import annotations

from pathlib import Path

from reviewbot.model.selectors import Selector
from reviewbot.netpol import cilium
from reviewbot.netpol.diff import changes_of
from reviewbot.netpol.diff import render_connlist as render_diff_connlist
from reviewbot.netpol.network import Network, connectivity, render_connlist

from .helpers import build, deployment, lint_text


def lines(net: Network) -> list[str]:
    return [line for line in render_connlist(connectivity(net)).splitlines()
            if "External" not in line]


def flows(net: Network, src: str) -> list[str]:
    return [line.split(" => ")[1] for line in lines(net) if line.startswith(src + " =>")]


PODS = (deployment("frontend", "default", "{role: frontend}")
        + deployment("backend", "default", "{role: backend}")
        + deployment("other", "default", "{role: other}"))


def test_simple_ingress_allow(tmp_path: Path) -> None:
    # Layer 3 > Endpoints based > "Simple Ingress Allow" (l3/simple/l3.yaml)
    net = build(tmp_path, PODS + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: l3-rule, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: backend}}
  ingress:
  - fromEndpoints:
    - matchLabels: {role: frontend}
""")
    assert "default/backend[Deployment] : All Connections" in flows(
        net, "default/frontend[Deployment]")
    assert "default/backend[Deployment] : All Connections" not in " ".join(
        flows(net, "default/other[Deployment]"))
    # "policy must be configured on both sides": backend's egress is not restricted
    assert "default/other[Deployment] : All Connections" in flows(
        net, "default/backend[Deployment]")


def test_egress_allow_all_endpoints_is_the_policy_namespace(tmp_path: Path) -> None:
    # "An empty EndpointSelector will select all egress endpoints from an endpoint based on
    # the CiliumNetworkPolicy namespace" (l3/egress-allow-all)
    net = build(tmp_path, PODS + deployment("elsewhere", "other-ns", "{role: backend}") + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: allow-all-from-frontend, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: frontend}}
  egress:
  - toEndpoints:
    - {}
""")
    got = flows(net, "default/frontend[Deployment]")
    assert "default/backend[Deployment] : All Connections" in got
    assert not any(g.startswith("other-ns/") for g in got)


def test_egress_deny_wins_over_allow(tmp_path: Path) -> None:
    # "If an egressDeny rule matches, egress traffic is denied even if the policy contains
    # egress rules that would otherwise allow it." (l3/egress-deny/egress-deny.yaml)
    net = build(tmp_path, PODS + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: deny-egress-example, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: frontend}}
  egress:
  - toEntities: [all]
  egressDeny:
  - toEndpoints:
    - matchLabels: {role: backend}
""")
    got = flows(net, "default/frontend[Deployment]")
    assert got == ["default/other[Deployment] : All Connections"]
    external = [line for line in render_connlist(connectivity(net)).splitlines()
                if line.startswith("default/frontend[Deployment] => 0.0.0.0")]
    assert external == ["default/frontend[Deployment] => 0.0.0.0-255.255.255.255[External] "
                        ": All Connections"]


def test_namespaces_by_label_and_clusterwide_selectors(tmp_path: Path) -> None:
    pods = (deployment("leia", "ns1", "{name: leia}") + deployment("luke", "ns2", "{name: luke}")
            + deployment("luke", "ns1", "{name: luke}"))
    # "Example: Expose pods across namespaces" (kubernetes/namespace/namespace-policy.yaml)
    net = build(tmp_path, pods + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: k8s-expose-across-namespace, namespace: ns1}
spec:
  endpointSelector: {matchLabels: {name: leia}}
  ingress:
  - fromEndpoints:
    - matchLabels: {k8s:io.kubernetes.pod.namespace: ns2, name: luke}
""")
    assert flows(net, "ns2/luke[Deployment]") == ["ns1/leia[Deployment] : All Connections",
                                                  "ns1/luke[Deployment] : All Connections"]
    assert "ns1/leia[Deployment] : All Connections" not in flows(net, "ns1/luke[Deployment]")
    # "Clusterwide Policies": "allow ingress traffic from pods matching the label name=luke from
    # any namespace to pods matching the labels name=leia in any namespace"
    net = build(tmp_path, pods + """
---
apiVersion: cilium.io/v2
kind: CiliumClusterwideNetworkPolicy
metadata: {name: clusterwide-policy-example}
spec:
  endpointSelector: {matchLabels: {name: leia}}
  ingress:
  - fromEndpoints:
    - matchLabels: {name: luke}
""")
    assert "ns1/leia[Deployment] : All Connections" in flows(net, "ns1/luke[Deployment]")
    assert "ns1/leia[Deployment] : All Connections" in flows(net, "ns2/luke[Deployment]")


def test_ports_ranges_and_any_protocol(tmp_path: Path) -> None:
    # Layer 4: "Labels-dependent Layer 4 rule" (l4/l3_l4_combined.yaml), "Example Port
    # Ranges", and "Protocol ... If omitted or empty, any protocol matches"
    policy = """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: l3-l4, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: backend}}
  ingress:
  - fromEndpoints:
    - matchLabels: {role: frontend}
    toPorts:
    - ports:
      - {port: "80", protocol: TCP}
      - {port: "8000", endPort: 8010, protocol: TCP}
      - {port: "53"}
"""
    net = build(tmp_path, PODS + policy)
    assert "default/backend[Deployment] : SCTP 53,TCP 53,80,8000-8010,UDP 53" in flows(
        net, "default/frontend[Deployment]")


def test_a_rule_without_l3_peers_admits_every_peer_on_its_ports(tmp_path: Path) -> None:
    # "Layer 4 policy can be specified in addition to layer 3 policies or independently"
    # (l4/l4.yaml: "to any layer 3 destination")
    net = build(tmp_path, PODS + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: l4-rule, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: frontend}}
  egress:
  - toPorts:
    - ports:
      - {port: "80", protocol: TCP}
""")
    assert flows(net, "default/frontend[Deployment]") == [
        "default/backend[Deployment] : TCP 80", "default/other[Deployment] : TCP 80"]


def test_an_empty_rule_admits_no_peer_and_isolates(tmp_path: Path) -> None:
    # "Ingress/Egress Default Deny": l3/egress-default-deny puts the endpoint in default deny
    # "without whitelisting other peers" with `egress: [{}]`; an empty deny rule denies no
    # peer either (Cilium's mergeIngress wildcards the peers of an L4 rule only), so the
    # holes other policies punch stay open
    net = build(tmp_path, PODS + deployment("outside", "ext", "{role: outside}") + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: deny-all-egress, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: frontend}}
  egress:
  - {}
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: default-deny, namespace: default}
spec:
  endpointSelector: {}
  ingressDeny:
  - {}
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: backend-from-other, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: backend}}
  ingress:
  - fromEndpoints: [{matchLabels: {role: other}}]
""")
    assert flows(net, "default/frontend[Deployment]") == []  # not even to ext, unisolated
    assert flows(net, "default/backend[Deployment]") == [
        "ext/outside[Deployment] : All Connections"]
    assert flows(net, "default/other[Deployment]") == [
        "default/backend[Deployment] : All Connections",
        "ext/outside[Deployment] : All Connections"]


def test_entities_and_cidr_sets(tmp_path: Path) -> None:
    # "Entities based": world is "identical to allowing to CIDR 0.0.0.0/0"; cluster is every
    # endpoint of the cluster. "IP/CIDR based" (l3/cidr/cidr.yaml): a toCIDRSet with except.
    net = build(tmp_path, PODS + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: cidr-rule, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: frontend}}
  egress:
  - toCIDR: [20.1.1.1/32]
  - toCIDRSet:
    - {cidr: 10.0.0.0/8, except: [10.96.0.0/12]}
""")
    text = render_connlist(connectivity(net))
    assert "default/frontend[Deployment] => 20.1.1.1-20.1.1.1[External] : All Connections" in text
    assert "default/frontend[Deployment] => 10.96.0.0-10.111.255.255[External]" not in text
    assert "default/frontend[Deployment] => 10.0.0.0-10.95.255.255[External]" in text
    assert flows(net, "default/frontend[Deployment]") == []  # no pod is a CIDR
    net = build(tmp_path, PODS + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: to-cluster, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: frontend}}
  egress:
  - toEntities: [cluster, kube-apiserver]
""")
    assert len(flows(net, "default/frontend[Deployment]")) == 2
    assert "frontend[Deployment] => 0.0.0.0" not in render_connlist(connectivity(net))


def test_kubernetes_and_cilium_policies_on_one_pod_add_up(tmp_path: Path) -> None:
    # Rule Basics: "traffic matching the union of those rules will be allowed"; a Kubernetes
    # NetworkPolicy is one more rule set for Cilium
    net = build(tmp_path, PODS + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: from-frontend, namespace: default}
spec:
  podSelector: {matchLabels: {role: backend}}
  ingress:
  - from: [{podSelector: {matchLabels: {role: frontend}}}]
    ports: [{port: 8080}]
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: from-other, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: backend}}
  ingress:
  - fromEndpoints: [{matchLabels: {role: other}}]
    toPorts: [{ports: [{port: "9090", protocol: TCP}]}]
""")
    assert "default/backend[Deployment] : TCP 8080" in flows(net, "default/frontend[Deployment]")
    assert "default/backend[Deployment] : TCP 9090" in flows(net, "default/other[Deployment]")


def test_default_deny_needs_a_rule_and_can_be_turned_off(tmp_path: Path) -> None:
    # "Rules with EnableDefaultDeny disabled are ignored when determining the default mode"
    # (intro: the intercept-all-dns example); "If omitted or empty, this rule does not apply"
    net = build(tmp_path, PODS + """
---
apiVersion: cilium.io/v2
kind: CiliumClusterwideNetworkPolicy
metadata: {name: intercept-all-dns}
spec:
  endpointSelector:
    matchExpressions:
    - {key: io.kubernetes.pod.namespace, operator: NotIn, values: [kube-system]}
  enableDefaultDeny: {egress: false, ingress: false}
  egress:
  - toEndpoints:
    - matchLabels: {io.kubernetes.pod.namespace: kube-system, k8s-app: kube-dns}
    toPorts:
    - ports: [{port: "53", protocol: UDP}]
      rules:
        dns: [{matchPattern: "*"}]
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: empty, namespace: default}
spec:
  endpointSelector: {}
  ingress: []
""")
    assert len(flows(net, "default/frontend[Deployment]")) == 2
    assert "default/frontend[Deployment] : All Connections" in flows(
        net, "default/backend[Deployment]")
    assert any(n.startswith("not evaluated: Cilium L7 rules (dns) in "
                            "CiliumClusterwideNetworkPolicy intercept-all-dns (m.yaml:")
               for n in net.all_notes())


def test_constructs_not_evaluated_are_named_never_guessed(tmp_path: Path) -> None:
    net = build(tmp_path, PODS + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: svc, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: frontend}}
  egress:
  - toServices:
    - k8sService: {serviceName: backend, namespace: default}
  - toEndpoints: [{matchLabels: {role: other}}]
    toPorts:
    - ports: [{port: "80", protocol: TCP}]
      rules:
        http: [{method: GET, path: "/public"}]
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: requires, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: backend}}
  ingress:
  - fromRequires: [{matchLabels: {env: prod}}]
""")
    notes = net.all_notes()
    assert [n.split(" in ")[0] for n in notes] == [
        "not evaluated: Cilium L7 rules (http)",
        "not evaluated: Cilium fromRequires (left out: the flows shown may be broader)",
        "not evaluated: Cilium toServices"]
    # the toServices rule is not evaluated: the listing shows what the rest allows
    assert flows(net, "default/frontend[Deployment]") == ["default/other[Deployment] : TCP 80"]


def test_selectors_with_source_prefixes_and_namespace_expressions(tmp_path: Path) -> None:
    # Labels are matched with their source (k8s:, any:) or without; a namespace expression
    # (Exists) lifts the policy-namespace default ("Using Kubernetes Constructs in Policy")
    net = build(tmp_path, PODS + deployment("client", "apps", "{egress.home.arpa/ntfy: allow}")
                + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: ntfy, namespace: default}
spec:
  endpointSelector: {matchLabels: {any:role: backend}}
  ingress:
  - fromEndpoints:
    - matchLabels: {egress.home.arpa/ntfy: allow}
      matchExpressions:
      - {key: io.kubernetes.pod.namespace, operator: Exists}
    toPorts:
    - ports: [{port: "8443"}]
""")
    assert "default/backend[Deployment] : SCTP 8443,TCP 8443,UDP 8443" in flows(
        net, "apps/client[Deployment]")
    assert "default/backend[Deployment]" not in " ".join(flows(net, "default/other[Deployment]"))


def test_netpol_pairing_judges_cilium_policies(tmp_path: Path) -> None:
    text = (deployment("client", "poimen", "{app: client}")
            + deployment("llm", "llm-serving", "{app: llm}") + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: client-egress, namespace: poimen}
spec:
  endpointSelector: {matchLabels: {app: client}}
  egress:
  - toEndpoints:
    - matchLabels: {app: llm, k8s:io.kubernetes.pod.namespace: llm-serving}
    toPorts:
    - ports: [{port: "8080", protocol: TCP}]
  - toEndpoints: [{matchLabels: {k8s:io.kubernetes.pod.namespace: kube-system, k8s-app: kube-dns}}]
    toPorts: [{ports: [{port: "53", protocol: ANY}], rules: {dns: [{matchPattern: "*"}]}}]
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: llm-ingress, namespace: llm-serving}
spec:
  endpointSelector: {matchLabels: {app: llm}}
  ingress:
  - fromEndpoints: [{}]
""")
    result = lint_text(tmp_path, text, only=["netpol-pairing"])
    assert [(f.line, f.kind, f.severity) for f in result.findings] == [
        (34, "egress-unmatched", "error")]
    message = result.findings[0].message
    assert message == ("poimen/client: egress to llm-serving/llm (pods app=llm) on TCP 8080 has "
                       "no matching ingress in llm-serving (isolated by CiliumNetworkPolicy "
                       "llm-serving/llm-ingress at manifest.yaml:45)")
    fixed = text.replace("  - fromEndpoints: [{}]", "  - fromEndpoints: [{}]\n  - fromEndpoints:\n"
                         "    - matchLabels: {k8s:io.kubernetes.pod.namespace: poimen}")
    assert lint_text(tmp_path / "fixed", fixed, only=["netpol-pairing"]).findings == []
    # theepicsaxguy/homelab: a clusterwide policy with enableDefaultDeny off adds rules and
    # isolates nothing, so the finding does not name it; and its `- {}` rules admit no peer,
    # so they say nothing of "ingress admits  to pods (all)" (the names were empty)
    audit = text + """
---
apiVersion: cilium.io/v2
kind: CiliumClusterwideNetworkPolicy
metadata: {name: audit}
spec:
  endpointSelector: {}
  enableDefaultDeny: {ingress: false, egress: false}
  ingress: [{}]
  egress: [{}]
"""
    result = lint_text(tmp_path / "audit", audit, only=["netpol-pairing"])
    assert [(f.line, f.kind) for f in result.findings] == [(34, "egress-unmatched")]
    assert result.findings[0].message == message


FQDN = """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: to-fqdn, namespace: default}
spec:
  endpointSelector: {matchLabels: {role: frontend}}
  egress:
  - toFQDNs:
    - matchName: my-remote-service.com
  - toGroups:
    - aws: {securityGroupsIds: [sg-0f2146100a88d03c3]}
---
apiVersion: cilium.io/v2
kind: CiliumClusterwideNetworkPolicy
metadata: {name: host-fw}
spec:
  nodeSelector: {matchLabels: {role: worker}}
  ingress:
  - fromEntities: [cluster]
"""


def test_dns_based_group_based_and_host_policies(tmp_path: Path) -> None:
    # "DNS based" (l3/fqdn): toFQDNs allows the addresses the names resolve to, outside the
    # cluster, so frontend reaches no pod; "Group based" (toGroups) and a host policy
    # ("nodeSelector": nodes, not pods) are named, never guessed
    net = build(tmp_path, PODS + FQDN)
    assert flows(net, "default/frontend[Deployment]") == []
    assert "default/frontend[Deployment] : All Connections" in flows(
        net, "default/other[Deployment]")
    assert [n.split(" in ")[0] for n in net.all_notes()] == [
        "not evaluated: Cilium host policies (nodeSelector: they apply to nodes, not pods)",
        "not evaluated: Cilium toFQDNs (the outside addresses its names resolve to are not "
        "among the flows shown)",
        "not evaluated: Cilium toGroups"]


def test_the_connectivity_diff_sees_cilium_policies(tmp_path: Path) -> None:
    # a PR adding the DNS-based egress policy takes frontend's flows to the pods away
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old, new = build(tmp_path / "old", PODS), build(tmp_path / "new", PODS + FQDN)
    changes = changes_of([("", old)], [("", new)])
    got = [line for line in render_diff_connlist(changes, ("old", "new")).splitlines()
           if "External" not in line]
    assert got == [
        "Connectivity diff:",
        "diff-type: removed, source: default/frontend[Deployment], destination: "
        "default/backend[Deployment], old: All Connections, new: No Connections",
        "diff-type: removed, source: default/frontend[Deployment], destination: "
        "default/other[Deployment], old: All Connections, new: No Connections"]


def test_an_endpoint_selector_split_once_is_the_split_made_anew() -> None:
    """Endpoint selectors are split once per selector (kept): the kept split and its notes
    equal a fresh split's, for pod, namespace, account and Cilium-only labels, clusterwide or
    not, a policy's subjects or its peers."""
    raws = [
        {"matchLabels": {"app": "web"}},
        {"matchLabels": {"k8s:app": "web", "k8s:io.kubernetes.pod.namespace": "shop"}},
        {"matchLabels": {"io.cilium.k8s.namespace.labels.team": "a", "any:tier": "db"}},
        {"matchLabels": {"io.cilium.k8s.policy.serviceaccount": "sa"}},
        {"matchLabels": {"io.cilium.k8s.policy.cluster": "c1", "app": "x"}},
        {"matchLabels": {"app": "x", "reserved:host": ""}},
        {"matchExpressions": [{"key": "k8s:io.kubernetes.pod.namespace", "operator": "In",
                               "values": ["a", "b"]},
                              {"key": "app", "operator": "Exists"}]},
        {},
    ]
    for raw in raws:
        parsed = Selector.parse(raw)
        for clusterwide in (False, True):
            for subject in (False, True):
                fresh = cilium._split.__wrapped__(parsed, clusterwide, subject)
                assert cilium._split(parsed, clusterwide, subject) == fresh
                assert cilium._split(parsed, clusterwide, subject) == fresh  # kept


def test_notes_of_a_kept_selector_are_said_for_each_policy(tmp_path: Path) -> None:
    """Two policies with the same unevaluated selector both get its note (the split is kept,
    its notes are said again at each place)."""
    policy = """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {{name: {name}, namespace: shop}}
spec:
  endpointSelector: {{matchLabels: {{app: web}}}}
  ingress:
  - fromEndpoints: [{{matchLabels: {{io.cilium.k8s.policy.cluster: c1, app: api}}}}]
"""
    net = build(tmp_path, deployment("web", "shop", "{app: web}") + policy.format(name="one")
                + policy.format(name="two"))
    notes = [(part.what, part.obj.name) for part in net.unevaluated_parts]
    assert notes == [("the io.cilium.k8s.policy.cluster label", "one"),
                     ("the io.cilium.k8s.policy.cluster label", "two")]


def test_an_ingress_rule_whose_endpoint_selector_misses_the_caller_says_so(
        tmp_path: Path) -> None:
    """New-user trial seventeen: ollama's ingress admits `name: openwebui` where the pods
    are `name: open-webui`; the fix "Widen the ingress rule ... to admit" pointed away from
    the typo."""
    text = (deployment("open-webui", "ai", "{name: open-webui}")
            + deployment("ollama", "ai", "{name: ollama}", "ports: [{containerPort: 11434}]")
            + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: open-webui, namespace: ai}
spec:
  endpointSelector: {matchLabels: {name: open-webui}}
  egress:
  - toEndpoints: [{matchLabels: {name: ollama}}]
    toPorts: [{ports: [{port: "11434", protocol: TCP}]}]
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: ollama, namespace: ai}
spec:
  endpointSelector: {matchLabels: {name: ollama}}
  ingress:
  - fromEndpoints: [{matchLabels: {name: openwebui}}]
    toPorts: [{ports: [{port: "11434", protocol: TCP}]}]
""")
    result = lint_text(tmp_path, text, only=["netpol-pairing"])
    unmatched = [f for f in result.findings if f.kind == "egress-unmatched"]
    assert [f.fix for f in unmatched] == [
        "Widen the ingress rule spec.ingress[0] of CiliumNetworkPolicy ai/ollama to admit "
        "pods name=open-webui on 11434: its fromEndpoints[0] name=openwebui selects no pod "
        "of ai/open-webui (whose pods carry name=open-webui)."]


def test_an_egress_rule_mirroring_the_ingress_of_its_clients_is_not_certain_traffic(
        tmp_path: Path) -> None:
    """Judge round CX (gabe565/home-ops): prowlarr's policy admits the pods labelled as its
    clients and copies that selector into an egress rule, on any port. It never connects to
    them, and Cilium, stateful, passes the replies to their calls: "egress has no matching
    ingress" was an error of traffic nobody sends. Said as a warning that names the mirror;
    an egress rule the ingress rules do not mirror stays an error."""
    def tree(ingress: str) -> str:
        return (deployment("api", "api", "{app: api}") + deployment(
            "dashboard", "dashboard", "{app: dashboard, client-of-api: 'true', public: 'true'}")
            + f"""
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {{name: api, namespace: api}}
spec:
  endpointSelector: {{matchLabels: {{app: api}}}}
  egress:
  - toEndpoints:
    - matchLabels: {{client-of-api: 'true'}}
      matchExpressions: [{{key: io.kubernetes.pod.namespace, operator: Exists}}]
  ingress:
  - fromEndpoints:
    - matchLabels: {{{ingress}}}
      matchExpressions: [{{key: io.kubernetes.pod.namespace, operator: Exists}}]
---
apiVersion: cilium.io/v2
kind: CiliumClusterwideNetworkPolicy
metadata: {{name: ingress-public}}
spec:
  endpointSelector: {{matchLabels: {{public: 'true'}}}}
  ingress:
  - fromEndpoints: [{{matchLabels: {{io.kubernetes.pod.namespace: gateway}}}}]
""")

    found = [(f.severity, f.message.partition("Not certain: ")[2][:57]) for f in lint_text(
        tmp_path / "mirror", tree("client-of-api: 'true'"), only=["netpol-pairing"]).findings
        if f.kind == "egress-unmatched"]
    assert found == [("warning", "reviewbot could not see whether the pods of api/api open ")]
    assert [f.severity for f in lint_text(
        tmp_path / "other", tree("app: gateway"), only=["netpol-pairing"]).findings
        if f.kind == "egress-unmatched"] == ["error"]


def test_to_fqdns_without_a_dns_rule_resolves_no_address(tmp_path: Path) -> None:
    """Judge round DE (Diixtra's flux-system to github.com): a Cilium egress rule naming
    `toFQDNs`, and DNS allowed on 53 without `rules: dns`: Cilium learns the names'
    addresses only from the lookups its DNS proxy sees (cilium/cilium#32567: "no port 53
    rules to trigger DNS interception, which is also required for ToFQDN rules to work"),
    so the egress to github.com is dropped. With the DNS rule, nothing is said."""
    policy = """
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: flux-egress, namespace: flux-system}
spec:
  endpointSelector: {}
  egress:
  - toEndpoints:
    - matchLabels: {k8s:io.kubernetes.pod.namespace: kube-system, k8s-app: kube-dns}
    toPorts:
    - ports: [{port: "53", protocol: ANY}]
  - toFQDNs: [{matchName: github.com}]
    toPorts:
    - ports: [{port: "443", protocol: TCP}]
"""
    text = deployment("source-controller", "flux-system", "{app: source}") + "---" + policy
    result = lint_text(tmp_path / "a", text, only=["netpol-pairing"])
    assert [(f.kind, f.severity, f.line) for f in result.findings] == [
        ("fqdn-unresolved", "error", 24)]
    assert result.findings[0].message.startswith(
        "flux-system/source-controller: egress to github.com (CiliumNetworkPolicy "
        "flux-system/flux-egress) is allowed by toFQDNs, but no Cilium policy selecting these "
        "pods has a DNS rule")
    # the DNS egress rule the fix changes is its other place, where a review that took its
    # `rules: dns` away places it (new-user trial seventy-nine D2)
    assert [(o.object, o.line) for o in result.findings[0].others] == [
        ("CiliumNetworkPolicy/flux-system/flux-egress", 22)]
    proxied = text.replace('    - ports: [{port: "53", protocol: ANY}]\n',
                           '    - ports: [{port: "53", protocol: ANY}]\n'
                           '      rules: {dns: [{matchPattern: "*"}]}\n')
    assert lint_text(tmp_path / "b", proxied, only=["netpol-pairing"]).findings == []


CILIUM_ROUTE = """apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: internal, namespace: network}
spec:
  gatewayClassName: CLASS
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: feeds, namespace: web}
spec:
  parentRefs: [{name: internal, namespace: network}]
  rules: [{backendRefs: [{name: feeds, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: feeds, namespace: web}
spec:
  selector: {app: feeds}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: feeds, namespace: web}
spec:
  selector: {matchLabels: {app: feeds}}
  template:
    metadata: {labels: {app: feeds}}
    spec: {containers: [{name: f, image: f:1, ports: [{containerPort: 8080}]}]}
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: feeds, namespace: web}
spec:
  endpointSelector: {matchLabels: {app: feeds}}
  ingress:
  - FROM
    toPorts: [{ports: [{port: "8080", protocol: TCP}]}]
"""
PROMETHEUS = ("fromEndpoints: [{matchLabels: {io.kubernetes.pod.namespace: observability, "
              "app: prometheus}}]")


def test_a_route_of_ciliums_gateway_to_pods_admitting_other_endpoints_only(
        tmp_path: Path) -> None:
    """New-user trial eighty-seven: the rule `fromEntities: [ingress]` of a backend's policy
    replaced by one admitting Prometheus alone; Cilium's gateway sends as its `ingress`
    entity, every request of the route dropped, and nothing said because someone was still
    admitted on the port."""
    def found(name: str, gateway_class: str, peers: str, extra: str = "") -> list[tuple[
            str, str, int]]:
        text = CILIUM_ROUTE.replace("CLASS", gateway_class).replace("FROM", peers) + extra
        return [(f.kind, f.file, f.line) for f in lint_text(
            tmp_path / name, text, only=["netpol-pairing"]).findings
            if f.kind == "backend-denied"]

    assert found("prom", "cilium", PROMETHEUS) == [("backend-denied", "manifest.yaml", 13)]
    [denied] = [f for f in lint_text(
        tmp_path / "again", CILIUM_ROUTE.replace("CLASS", "cilium").replace("FROM", PROMETHEUS),
        only=["netpol-pairing"]).findings if f.kind == "backend-denied"]
    assert denied.severity == "error"
    assert denied.message == (
        "HTTPRoute web/feeds: its backend Service feeds port 80 sends to TCP 8080 of web/feeds, "
        "which CiliumNetworkPolicy web/feeds (its ingress[0]) admits only from the endpoints it "
        "selects, not from Cilium's gateway: Gateway network/internal (class cilium) sends as "
        "the `ingress` entity, so its requests for this route are dropped")
    assert denied.fix == ("Add `fromEntities: [ingress]` on TCP 8080 to an ingress rule of "
                          "CiliumNetworkPolicy web/feeds.")
    assert [(o.object, o.line) for o in denied.others] == [
        ("CiliumNetworkPolicy/web/feeds", 37)]
    # the entities that are or may be the gateway, an address, no peer named: admitted
    for i, peers in enumerate(["fromEntities: [ingress]", "fromEntities: [cluster]",
                               "fromEntities: [all]", "fromEntities: [world]",
                               "fromCIDR: [10.0.0.0/8]", "{}"]):
        assert found(f"ok{i}", "cilium", peers) == [], peers
    # another gateway's class: its pods' identity is not judged here
    assert found("envoy", "envoy", PROMETHEUS) == []
    # a GatewayClass of the tree says whose controller serves it
    gateway_class = ("---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\n"
                     "metadata: {name: CLS}\nspec: {controllerName: CONTROLLER}\n")
    assert found("ours", "mesh", PROMETHEUS, gateway_class.replace("CLS", "mesh").replace(
        "CONTROLLER", "io.cilium/gateway-controller")) == [
        ("backend-denied", "manifest.yaml", 13)]
    assert found("theirs", "cilium", PROMETHEUS, gateway_class.replace("CLS", "cilium").replace(
        "CONTROLLER", "gateway.envoyproxy.io/gatewayclass-controller")) == []
