"""The NetworkPolicy evaluator, written as a specification of Kubernetes semantics.

Every expectation here is derived from the NetworkPolicy API documentation, not from running
the evaluator. The recipe fixtures in tests/fixtures/netpol/<recipe>/ carry hand-written
connectivity (np-guard's connlist format) in expected.txt.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewbot.cli import main
from reviewbot.config import Config
from reviewbot.engine.run import analyze
from reviewbot.netpol.network import Network, Selector, connectivity, render_connlist
from reviewbot.netpol.sets import (
    ALL,
    NONE,
    Conns,
    IPBlock,
    cidr_range,
    format_range,
    ip_pieces,
)
from reviewbot.sources.tree import disk_tree

from .helpers import build, deployment, pod

RECIPES = Path(__file__).parent / "fixtures" / "netpol"
SEED = Path(__file__).parent / "fixtures" / "seed-repo"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def lines(net: Network) -> list[str]:
    return render_connlist(connectivity(net)).splitlines()


# ---------------------------------------------------------------- recipes


@pytest.mark.parametrize(
    "recipe", sorted(p for p in RECIPES.iterdir() if p.is_dir()), ids=lambda p: p.name
)
def test_recipe_connectivity(recipe: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    code = main(["netpol", "connectivity", str(recipe / "manifests"), "--format", "connlist",
                 "--output", str(out)])
    assert code == 0
    assert out.read_text() == (recipe / "expected.txt").read_text()


def test_recipes_exist() -> None:
    names = {p.name for p in RECIPES.iterdir()}
    assert {"deny-all", "deny-all-ingress", "allow-same-namespace", "allow-from-namespace",
            "allow-only-some-pods", "egress-to-dns", "ipblock", "mirror-pods",
            "same-owner-different-labels"} <= names


# ---------------------------------------------------------------- isolation and defaulting


def test_policy_types_default_to_ingress_plus_egress_when_egress_rules_exist(
    tmp_path: Path,
) -> None:
    net = build(tmp_path, deployment("a", "ns", "{app: a}") + deployment("b", "ns", "{app: b}")
                + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {matchLabels: {app: a}}
  egress:
  - to: [{podSelector: {matchLabels: {app: b}}}]
""")
    a, b = pod(net, "ns/a[Deployment]"), pod(net, "ns/b[Deployment]")
    # no policyTypes + egress rules: isolated both ways, and no ingress rule admits anything
    assert net.isolated_egress(a) and net.isolated_ingress(a)
    assert net.allowed(a, b) == ALL
    assert net.allowed(b, a) == NONE


def test_empty_egress_list_does_not_isolate_egress(tmp_path: Path) -> None:
    net = build(tmp_path, deployment("a", "ns", "{app: a}") + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {}
  egress: []
""")
    a = pod(net, "ns/a[Deployment]")
    assert net.isolated_ingress(a) and not net.isolated_egress(a)


def test_rules_of_a_direction_not_in_policy_types_are_ignored(tmp_path: Path) -> None:
    net = build(tmp_path, deployment("a", "ns", "{app: a}") + deployment("b", "ns", "{app: b}")
                + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {matchLabels: {app: a}}
  policyTypes: [Egress]
  ingress:
  - {}
  egress:
  - to: [{podSelector: {matchLabels: {app: b}}}]
    ports: [{port: 80}]
""")
    a, b = pod(net, "ns/a[Deployment]"), pod(net, "ns/b[Deployment]")
    assert not net.isolated_ingress(a)
    assert str(net.allowed(a, b)) == "TCP 80"
    assert net.allowed(b, a) == ALL


def test_policies_add_up_and_empty_rule_admits_everything(tmp_path: Path) -> None:
    net = build(tmp_path, deployment("a", "ns", "{app: a}") + deployment("b", "ns", "{app: b}")
                + deployment("c", "other", "{app: c}") + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: one, namespace: ns}
spec:
  podSelector: {matchLabels: {app: a}}
  ingress:
  - from: [{podSelector: {matchLabels: {app: b}}}]
    ports: [{port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: two, namespace: ns}
spec:
  podSelector: {matchLabels: {app: a}}
  ingress:
  - ports: [{port: 443}, {port: 53, protocol: UDP}]
""")
    a, b, c = (pod(net, n) for n in ("ns/a[Deployment]", "ns/b[Deployment]",
                                     "other/c[Deployment]"))
    assert str(net.allowed(b, a)) == "TCP 80,443,UDP 53"
    assert str(net.allowed(c, a)) == "TCP 443,UDP 53"  # no `from`: every source


# ---------------------------------------------------------------- selectors


def test_match_expressions_operators() -> None:
    labels = {"app": "web", "tier": "front"}
    assert Selector.parse({"matchExpressions": [
        {"key": "app", "operator": "In", "values": ["web", "api"]}]}).matches(labels)
    assert not Selector.parse({"matchExpressions": [
        {"key": "app", "operator": "NotIn", "values": ["web"]}]}).matches(labels)
    # NotIn matches when the key is absent
    assert Selector.parse({"matchExpressions": [
        {"key": "env", "operator": "NotIn", "values": ["prod"]}]}).matches(labels)
    assert Selector.parse({"matchExpressions": [
        {"key": "tier", "operator": "Exists"}]}).matches(labels)
    assert Selector.parse({"matchExpressions": [
        {"key": "env", "operator": "DoesNotExist"}]}).matches(labels)
    assert not Selector.parse({"matchExpressions": [
        {"key": "tier", "operator": "DoesNotExist"}]}).matches(labels)
    # matchLabels and matchExpressions are ANDed
    assert not Selector.parse({"matchLabels": {"app": "web"}, "matchExpressions": [
        {"key": "tier", "operator": "In", "values": ["back"]}]}).matches(labels)
    assert Selector.parse({}).matches(labels) and Selector.parse({}).empty


def test_invalid_selectors_select_nothing() -> None:
    for raw in (
        {"matchExpressions": [{"key": "app", "operator": "Equals", "values": ["web"]}]},
        {"matchExpressions": [{"key": "app", "operator": "In", "values": []}]},
        {"matchExpressions": [{"key": "app", "operator": "Exists", "values": ["web"]}]},
        {"matchLabels": ["app"]},
    ):
        assert not Selector.parse(raw).matches({"app": "web"}), raw


def test_peer_selectors_anded_within_a_peer_ored_across(tmp_path: Path) -> None:
    net = build(tmp_path, """
apiVersion: v1
kind: Namespace
metadata: {name: mon, labels: {team: ops}}
""" + deployment("prom", "mon", "{app: prom}") + deployment("graf", "mon", "{app: graf}")
        + deployment("prom", "ns", "{app: prom}") + deployment("db", "ns", "{app: db}") + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {matchLabels: {app: db}}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {team: ops}}
      podSelector: {matchLabels: {app: prom}}
""")
    db = pod(net, "ns/db[Deployment]")
    assert net.allowed(pod(net, "mon/prom[Deployment]"), db) == ALL
    assert net.allowed(pod(net, "mon/graf[Deployment]"), db) == NONE  # AND: wrong pod
    assert net.allowed(pod(net, "ns/prom[Deployment]"), db) == NONE  # AND: wrong namespace


def test_two_peers_are_ored(tmp_path: Path) -> None:
    net = build(tmp_path, """
apiVersion: v1
kind: Namespace
metadata: {name: mon, labels: {team: ops}}
""" + deployment("graf", "mon", "{app: graf}") + deployment("prom", "ns", "{app: prom}")
        + deployment("web", "ns", "{app: web}") + deployment("db", "ns", "{app: db}") + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {matchLabels: {app: db}}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {team: ops}}
    - podSelector: {matchLabels: {app: prom}}
""")
    db = pod(net, "ns/db[Deployment]")
    assert net.allowed(pod(net, "mon/graf[Deployment]"), db) == ALL  # every pod of mon
    assert net.allowed(pod(net, "ns/prom[Deployment]"), db) == ALL  # own namespace only
    assert net.allowed(pod(net, "ns/web[Deployment]"), db) == NONE


def test_namespace_selector_alone_and_empty_selectors(tmp_path: Path) -> None:
    net = build(tmp_path, deployment("a", "x", "{app: a}") + deployment("b", "yy", "{app: b}")
                + deployment("db", "ns", "{app: db}") + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: x}}}]
    ports: [{port: 1}]
  - from: [{namespaceSelector: {}}]
    ports: [{port: 2}]
  - from: [{podSelector: {}}]
    ports: [{port: 3}]
""")
    db = pod(net, "ns/db[Deployment]")
    assert str(net.allowed(pod(net, "x/a[Deployment]"), db)) == "TCP 1-2"
    assert str(net.allowed(pod(net, "yy/b[Deployment]"), db)) == "TCP 2"


def test_undefined_namespace_has_only_its_name_label(tmp_path: Path) -> None:
    text = deployment("a", "x", "{app: a}") + deployment("db", "ns", "{app: db}") + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {team: ops}}}]
"""
    exact = build(tmp_path, text)
    a, db = pod(exact, "x/a[Deployment]"), pod(exact, "ns/db[Deployment]")
    assert exact.allowed(a, db) == NONE  # np-guard semantics: x carries only its name label
    rule = build(tmp_path, text, exact=False)
    # for rules, the labels of a namespace without manifest are unknown
    assert rule.allowed(a, db, unknown=True) == ALL
    assert rule.allowed(a, db, unknown=False) == NONE


# ---------------------------------------------------------------- ports


def test_named_ports_resolve_on_destination_with_protocol(tmp_path: Path) -> None:
    net = build(tmp_path, deployment("a", "ns", "{app: a}") + deployment(
        "b", "ns", "{app: b}",
        "ports: [{name: web, containerPort: 8080}, {name: dns, containerPort: 5353, "
        "protocol: UDP}]",
    ) + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
  ingress:
  - ports: [{port: web}, {port: dns}, {port: dns, protocol: UDP}, {port: nope}]
  egress:
  - ports: [{port: web}]
""")
    a, b = pod(net, "ns/a[Deployment]"), pod(net, "ns/b[Deployment]")
    # `dns` with the default protocol TCP has no TCP container port of that name
    assert str(net.ingress_conns(a, b)) == "TCP 8080,UDP 5353"
    assert str(net.allowed(a, b)) == "TCP 8080"  # egress: only `web`, resolved on b
    assert net.allowed(b, a) == NONE  # a has no port named web
    # a named port can not be resolved for an IP address
    assert net.ip_egress(a, (0, 10)) == NONE


def test_end_port_and_protocol_default(tmp_path: Path) -> None:
    net = build(tmp_path, deployment("a", "ns", "{app: a}") + deployment("b", "ns", "{app: b}")
                + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {matchLabels: {app: b}}
  ingress:
  - ports:
    - {port: 32000, endPort: 32768}
    - {port: 7000, protocol: SCTP}
    - {protocol: UDP}
""")
    a, b = pod(net, "ns/a[Deployment]"), pod(net, "ns/b[Deployment]")
    assert str(net.allowed(a, b)) == "SCTP 7000,TCP 32000-32768,UDP 1-65535"


def test_ip_block_matches_addresses_not_pods(tmp_path: Path) -> None:
    net = build(tmp_path, deployment("a", "ns", "{app: a}") + deployment("b", "ns", "{app: b}")
                + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {matchLabels: {app: b}}
  ingress:
  - from: [{ipBlock: {cidr: 0.0.0.0/0, except: [10.0.0.0/8]}}]
""")
    a, b = pod(net, "ns/a[Deployment]"), pod(net, "ns/b[Deployment]")
    assert net.allowed(a, b) == NONE
    assert net.ip_ingress((0, 0), b) == ALL
    assert net.ip_ingress((10 << 24, (10 << 24) + 5), b) == NONE


# ---------------------------------------------------------------- peers and lists


def test_pods_of_one_owner_are_one_peer_unless_a_selector_tells_them_apart(tmp_path: Path) -> None:
    net = build(tmp_path, """
apiVersion: v1
kind: PodList
items:
- metadata:
    name: web-1
    namespace: ns
    labels: {app: web, slot: a}
    ownerReferences: [{kind: ReplicaSet, name: web-7d9, controller: true}]
  spec: {containers: [{name: c, image: x}]}
- metadata:
    name: web-2
    namespace: ns
    labels: {app: web, slot: b}
    ownerReferences: [{kind: ReplicaSet, name: web-7d9, controller: true}]
  spec: {containers: [{name: c, image: x}]}
- metadata: {name: solo, namespace: ns, labels: {app: solo}}
  spec: {containers: [{name: c, image: x}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: ns}
spec:
  podSelector: {matchLabels: {app: solo}}
  ingress:
  - from: [{podSelector: {matchLabels: {slot: a}}}]
""")
    got = [line for line in lines(net) if "External" not in line]
    # slot tells web-1 and web-2 apart for the policy: one peer would admit both
    assert got == [
        "ns/solo[Pod] => ns/web-1[Pod] : All Connections",
        "ns/solo[Pod] => ns/web-2[Pod] : All Connections",
        "ns/web-1[Pod] => ns/solo[Pod] : All Connections",
        "ns/web-1[Pod] => ns/web-2[Pod] : All Connections",
        "ns/web-2[Pod] => ns/web-1[Pod] : All Connections",
    ]
    assert net.all_notes() == [
        "ns/web-7d9[ReplicaSet]: its pods differ in labels that NetworkPolicy ns/p (selector "
        "slot=a) tells apart; each pod is listed as its own peer"
    ]
    # labels that no selector tells apart: still one peer, as np-guard lists it
    (tmp_path / "m.yaml").write_text((tmp_path / "m.yaml").read_text().replace(
        "slot: a}}}]", "app: web}}}]"))
    net = build(tmp_path, (tmp_path / "m.yaml").read_text())
    assert "ns/web-7d9[ReplicaSet] => ns/solo[Pod] : All Connections" in lines(net)
    assert net.all_notes() == []


# ---------------------------------------------------------------- sets


def test_connection_formatting() -> None:
    assert str(ALL) == "All Connections"
    assert str(Conns.make([("TCP", ((1, 79), (81, 65535)))])) == "TCP 1-79,81-65535"
    assert str(Conns.make([("UDP", ((53, 53),)), ("TCP", ((8080, 8080), (9090, 9090)))])) == (
        "TCP 8080,9090,UDP 53"
    )
    assert Conns.make([(p, ((1, 65535),)) for p in ("TCP", "UDP", "SCTP")]) == ALL
    assert str(Conns.ports("TCP")) == "TCP 1-65535"
    assert Conns.ports("TCP", 80, 90).intersect(Conns.ports("TCP", 85, 100)) == Conns.ports(
        "TCP", 85, 90
    )


def test_ip_pieces_keep_venn_regions_apart() -> None:
    block = IPBlock.parse("10.0.0.0/8", ["10.1.0.0/16"])
    pieces = [format_range(p) for p in ip_pieces([block.ranges])]
    assert pieces == [
        "0.0.0.0-9.255.255.255", "10.0.0.0-10.0.255.255", "10.1.0.0-10.1.255.255",
        "10.2.0.0-10.255.255.255", "11.0.0.0-255.255.255.255",
    ]
    assert [format_range(p) for p in ip_pieces([])] == ["0.0.0.0-255.255.255.255"]


# ---------------------------------------------------------------- the seed repository


def _seed_states() -> list[Path]:
    states = [EXAMPLES] + [SEED / s for s in ("step1", "step2", "ingress-only")]
    return [s for s in states if s.is_dir()]


# Hand-derived in tests/fixtures/seed-repo/EXPECTED.md ("Expected connectivity"):
# destination -> (egress allows, ingress allows) for poimen-memory -> it on TCP 8080.
SEED_TABLE = {
    "examples": {
        "reasoning-predictor": (True, False), "embeddings-predictor": (True, False),
        "reranker-predictor": (True, False), "coder-predictor": (False, False),
        "clef-serve-predictor": (False, False), "vllm-probe": (False, False),
    },
    "step1": {
        "reasoning-predictor": (True, True), "embeddings-predictor": (True, True),
        "reranker-predictor": (True, True), "coder-predictor": (False, True),
        "clef-serve-predictor": (False, True),
    },
    "step2": {
        "reasoning-predictor": (True, True), "embeddings-predictor": (True, True),
        "reranker-predictor": (True, True), "coder-predictor": (True, True),
        "clef-serve-predictor": (True, True),
    },
    "ingress-only": {"reasoning-predictor": (False, True)},
}


@pytest.mark.parametrize("state", _seed_states(), ids=lambda p: p.name)
def test_seed_connectivity_table(state: Path) -> None:
    model = analyze(disk_tree([state], state), Config(), only=["yaml-syntax"]).model
    net = Network(model)
    src = next(i for i, p in enumerate(net.pods) if p.name == "poimen-memory")
    want = SEED_TABLE[state.name]
    got = {}
    for d, p in enumerate(net.pods):
        if p.namespace == "llm-serving":
            got[p.name] = (
                net.egress_conns(src, d).contains("TCP", 8080),
                net.ingress_conns(src, d).contains("TCP", 8080),
            )
    assert got == want


def test_connectivity_json_and_text(tmp_path: Path) -> None:
    recipe = RECIPES / "egress-to-dns" / "manifests"
    out = tmp_path / "out.json"
    assert main(["netpol", "connectivity", str(recipe), "--format", "json",
                 "--output", str(out)]) == 0
    doc = json.loads(out.read_text())
    flow = next(f for f in doc["flows"] if f["src"] == "app/api[Deployment]")
    assert flow == {"src": "app/api[Deployment]", "dst": "kube-system/coredns[Deployment]",
                    "connections": "TCP 53,UDP 53", "ports": {"TCP": [[53, 53]],
                                                              "UDP": [[53, 53]]}}
    text = tmp_path / "out.txt"
    assert main(["netpol", "connectivity", str(recipe), "--output", str(text)]) == 0
    assert "  -> kube-system/coredns[Deployment]  TCP 53,UDP 53" in text.read_text()
    assert text.read_text().endswith("\n14 allowed flows among 4 workloads, 1 NetworkPolicy\n")


@pytest.mark.parametrize("flag", [["--fail-on", "warning"], ["--rule", "schema"],
                                  ["--kubernetes-version", "1.30"], ["--color", "never"],
                                  ["--kubeconform", "kubeconform"],
                                  ["--target-kubernetes-version", "1.33"]])
@pytest.mark.parametrize("command", [["connectivity", "."], ["diff", "a", "b"]])
def test_the_netpol_commands_refuse_the_options_that_would_do_nothing(
    command: list[str], flag: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The netpol commands run no rule and exit 0: lint's --fail-on, --rule, --kubeconform,
    Kubernetes versions and --color would change nothing (`--fail-on warning` read as a
    gate that never closes), so they are usage errors; the options they use
    (docs/netpol.md) stay."""
    assert main(["netpol", *command, *flag]) == 2
    assert "unrecognized arguments: " + flag[0] in capsys.readouterr().err
    recipe = str(RECIPES / "egress-to-dns" / "manifests")
    assert main(["netpol", "connectivity", recipe, "--config", "/dev/null", "--format",
                 "connlist", "--output", "/dev/null", "--debug"]) == 0


def test_the_map_says_which_named_namespaces_it_does_not_list(tmp_path: Path) -> None:
    """New-user trial seventeen: flows from ingress-nginx and to kube-system's DNS were
    missing from the map, unsaid: the repository shows no workload there."""
    (tmp_path / "app.yaml").write_text(deployment("web", "app", "{app: web}") + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web, namespace: app}
spec:
  podSelector: {}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ingress-nginx}}}]
  egress:
  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}}]
    ports: [{port: 53, protocol: UDP}]
  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: app}}}]
""")
    text = tmp_path / "out.txt"
    assert main(["netpol", "connectivity", str(tmp_path), "--output", str(text)]) == 0
    assert text.read_text().splitlines()[-1] == (
        "not listed: flows with pods of ingress-nginx, kube-system, which the policies name "
        "and the repository shows no workload of")


def test_overlaps_agrees_with_intersect() -> None:
    sets = [
        NONE, ALL, Conns.ports("TCP", 80, 90), Conns.ports("TCP", 91, 100),
        Conns.ports("UDP", 53, 53), Conns.make([("TCP", ((1, 79), (81, 65535)))]),
        Conns.ports("TCP", 80, 80), Conns.ports("SCTP"),
    ]
    for a in sets:
        for b in sets:
            assert a.overlaps(b) == bool(a.intersect(b)), (a, b)


def test_select_across_equals_selecting_namespace_by_namespace(tmp_path: Path) -> None:
    """The index of every namespace (many namespaces) gives what select_in gives namespace by
    namespace, in the same order: the namespaces' order, then pod order within one."""
    namespaces = [f"ns{n}" for n in range(12)]
    text = "".join(
        deployment(f"w{k}", namespaces[(k * 5) % 12],
                   f"{{app: a{k % 3}, tier: t{k % 2}, k: v{k}}}") for k in range(40))
    net = build(tmp_path, text)
    selectors = [Selector.parse(raw) for raw in (
        {"matchLabels": {"app": "a1"}},
        {"matchLabels": {"app": "a2", "tier": "t0"}},
        {"matchLabels": {"app": "a0"}, "matchExpressions": [
            {"key": "k", "operator": "NotIn", "values": ["v3", "v9"]}]},
        {"matchLabels": {"app": "none"}},
        {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["t1"]}]},
        {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
        {}, {"matchLabels": {"app": 5}}, {"matchExpressions": [{"key": "x"}]},
    )]
    orders = [namespaces, namespaces[::-1], namespaces[3:], namespaces[:4],
              [*namespaces[7:], "absent", *namespaces[:7]]]
    for selector in selectors:
        for order in orders:
            plain = [i for ns in order for i in net.select_in(ns, selector)]
            assert net.select_across(order, selector) == plain
    assert net.select_across(namespaces, selectors[0])  # the index path found pods


def test_selecting_pods_equals_matching_every_pod(tmp_path: Path) -> None:
    """select_in and select_across (whose empty selector takes the namespace's pods without
    matching them) give the pods the selector matches, namespace by namespace in pod order."""
    namespaces = [f"ns{n}" for n in range(10)]
    text = "".join(
        deployment(f"w{k}", namespaces[(k * 3) % 10], f"{{app: a{k % 3}, k: v{k}}}")
        for k in range(30))
    net = build(tmp_path, text)
    selectors = [Selector.parse(raw) for raw in (
        {}, {"matchLabels": {}}, {"matchLabels": {"app": "a1"}},
        {"matchLabels": {"app": "a1", "k": "v4"}},
        {"matchExpressions": [{"key": "k", "operator": "Exists"}]},
        {"matchLabels": {"app": 5}}, {"matchExpressions": [{"key": "x"}]},
    )]

    def plain(ns: str, selector: Selector) -> list[int]:
        return [i for i, p in enumerate(net.pods)
                if p.namespace == ns and selector.matches(p.labels)]

    for selector in selectors:
        for ns in [*namespaces, "absent"]:
            assert net.select_in(ns, selector) == plain(ns, selector), (selector, ns)
        for order in (namespaces, namespaces[::-1], namespaces[:3], ["absent", "ns1"]):
            assert net.select_across(order, selector) == [
                i for ns in order for i in plain(ns, selector)], (selector, order)
    assert sorted(net.select_across(namespaces, selectors[0])) == list(range(len(net.pods)))


def test_namespaces_selected_by_equal_selectors(tmp_path: Path) -> None:
    """namespaces_selected reuses what an equal selector selected: each of several equal but
    distinct selectors, asked with ``unknown`` both ways, gets what it alone selects."""
    text = """
---
apiVersion: v1
kind: Namespace
metadata: {name: a, labels: {team: x}}
---
apiVersion: v1
kind: Namespace
metadata: {name: b, labels: {team: y}}
""" + deployment("w", "a", "{app: w}") + deployment("v", "c", "{app: v}")
    for exact in (True, False):
        net = build(tmp_path, text, exact=exact)
        raws = [{"matchLabels": {"team": "x"}}, {"matchLabels": {"team": "y"}},
                {"matchExpressions": [{"key": "team", "operator": "Exists"}]},
                {"matchExpressions": [{"key": "kubernetes.io/metadata.name",
                                       "operator": "Exists"}]},
                {"matchLabels": {"kubernetes.io/metadata.name": "c"}}, {}]
        for _ in range(2):  # equal selectors, new objects (their parses are not kept)
            for raw in raws:
                selector = Selector._parse(raw)
                for unknown in (False, True, False):
                    assert net.namespaces_selected(selector, unknown) == (
                        net._namespaces_selected(selector, unknown)), (exact, raw, unknown)
        team = Selector._parse(raws[2])
        if not exact:  # namespace c has no object: whether it has a team label is unknown
            assert net.namespaces_selected(team, True) != net.namespaces_selected(team, False)


def test_cidr_ranges_are_kept_as_ipaddress_reads_them() -> None:
    """cidr_range, kept per text, answers as the parse it keeps (asked twice, in any order)."""
    texts = ["10.0.0.0/8", " 10.0.0.1/8", "0.0.0.0/0", "192.168.1.7/32", "::/0", "fd00::/8",
             "300.1.1.1/8", "", "10.0.0.0/33", "172.16.0.0/12 "]
    for text in texts + texts[::-1]:
        assert cidr_range(text) == cidr_range.__wrapped__(text)
    assert cidr_range("10.0.0.0/8") == (10 << 24, (11 << 24) - 1)
