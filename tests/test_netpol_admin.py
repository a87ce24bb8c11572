"""AdminNetworkPolicy / BaselineAdminNetworkPolicy tiers, written from the network-policy-api
spec: ANPs by ascending priority, first matching rule decides, Pass hands over to the
NetworkPolicies, then the BaselineAdminNetworkPolicy named default, then allow."""

from __future__ import annotations

from pathlib import Path

from reviewbot.netpol.sets import ALL, Conns

from .helpers import build, deployment, pod

PODS = (
    deployment("a", "ns1", "{app: a}")
    + deployment("b", "ns2", "{app: b}", "ports: [{name: web, containerPort: 8080}]")
)
NS = """
---
apiVersion: v1
kind: Namespace
metadata: {name: ns1, labels: {team: one}}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns2, labels: {team: two}}
"""


def anp(name: str, priority: int, egress: str) -> str:
    return f"""
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: AdminNetworkPolicy
metadata: {{name: {name}}}
spec:
  priority: {priority}
  subject: {{namespaces: {{matchLabels: {{team: one}}}}}}
  egress:
{egress}
"""


TO_TWO = "    to: [{namespaces: {matchLabels: {team: two}}}]"


def test_lower_priority_number_wins_and_first_rule_decides(tmp_path: Path) -> None:
    net = build(tmp_path, PODS + NS + anp("late", 20, f"""
  - name: allow
    action: Allow
{TO_TWO}""") + anp("early", 10, f"""
  - name: deny-80
    action: Deny
{TO_TWO}
    ports: [{{portNumber: {{port: 80}}}}]
  - name: allow-70-90
    action: Allow
{TO_TWO}
    ports: [{{portRange: {{start: 70, end: 90}}}}]"""))
    a, b = pod(net, "ns1/a[Deployment]"), pod(net, "ns2/b[Deployment]")
    # early: 80 denied, 70-79 and 81-90 allowed; the rest goes to "late", which allows it
    assert str(net.egress_conns(a, b)) == "SCTP 1-65535,TCP 1-79,81-65535,UDP 1-65535"
    assert net.ingress_conns(a, b) is ALL  # no policy on b's ingress


def test_pass_goes_to_network_policies_then_baseline(tmp_path: Path) -> None:
    netpol = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: only-53, namespace: ns1}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress: [{ports: [{port: 53, protocol: UDP}]}]
"""
    banp = """
---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec:
  subject: {namespaces: {}}
  egress:
  - {name: deny, action: Deny, to: [{namespaces: {}}]}
"""
    passing = anp("pass", 5, f"""
  - name: pass
    action: Pass
{TO_TWO}""")
    net = build(tmp_path, PODS + NS + passing + netpol + banp)
    a, b = pod(net, "ns1/a[Deployment]"), pod(net, "ns2/b[Deployment]")
    assert str(net.egress_conns(a, b)) == "UDP 53"  # the NetworkPolicy decides passed traffic
    assert not net.egress_conns(b, a)  # b: no ANP, no NetworkPolicy: the baseline denies
    (tmp_path / "m.yaml").unlink()
    net = build(tmp_path, PODS + NS + passing + banp)
    a, b = pod(net, "ns1/a[Deployment]"), pod(net, "ns2/b[Deployment]")
    assert not net.egress_conns(a, b)  # passed, no NetworkPolicy: the baseline denies


def test_named_port_resolves_on_the_destination(tmp_path: Path) -> None:
    net = build(tmp_path, PODS + NS + anp("named", 1, f"""
  - name: web
    action: Allow
{TO_TWO}
    ports: [{{namedPort: web}}]
  - name: rest
    action: Deny
{TO_TWO}"""))
    a, b = pod(net, "ns1/a[Deployment]"), pod(net, "ns2/b[Deployment]")
    assert net.allowed(a, b) == Conns.ports("TCP", 8080, 8080)


def test_networks_peer_cuts_external_ranges(tmp_path: Path) -> None:
    net = build(tmp_path, PODS + NS + anp("dns", 1, """
  - name: no-dns
    action: Deny
    to: [{networks: [8.8.8.8/32]}]
  - name: nodes-are-not-modelled
    action: Deny
    to: [{nodes: {matchLabels: {}}}]"""))
    a = pod(net, "ns1/a[Deployment]")
    blocks = net.ip_blocks("egress")
    assert ((134744072, 134744072),) in blocks
    assert not net.ip_egress(a, (134744072, 134744072))
    assert net.ip_egress(a, (0, 134744071)) is ALL
    assert net.allowed(a, pod(net, "ns2/b[Deployment]")) is ALL


LAZY = """
import sys, tempfile, textwrap
from pathlib import Path
from reviewbot.config import Config
from reviewbot.engine.run import analyze
from reviewbot.netpol.network import Network
from reviewbot.sources.tree import disk_tree

def network(text):
    root = Path(tempfile.mkdtemp())
    (root / "m.yaml").write_text(textwrap.dedent(text).lstrip("\\n"))
    model = analyze(disk_tree([root], root), Config(), only=["yaml-syntax"]).model
    return Network(model, exact=False)

plain = network(sys.argv[1])
print(plain.admin is None, "reviewbot.netpol.admin" in sys.modules,
      "reviewbot.netpol.ingress" in sys.modules)
tiers = network(sys.argv[1] + sys.argv[2])
print(tiers.admin is not None, "reviewbot.netpol.admin" in sys.modules)
"""


def test_the_admin_tiers_and_the_ingress_controller_are_imported_for_trees_that_have_them(
) -> None:
    """A network without AdminNetworkPolicies, asked without an ingress controller (every
    lint), imports neither admin.py nor ingress.py (their dataclasses cost a sixth of the
    network's import); one with an AdminNetworkPolicy imports the tiers and evaluates them."""
    import subprocess
    import sys

    policy = anp("a1", 10, "  - {name: r, action: Deny, to: [{namespaces: {}}]}")
    done = subprocess.run([sys.executable, "-c", LAZY, PODS + NS, policy],
                          capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.split("\n")[:2] == ["True False False", "True True"]
