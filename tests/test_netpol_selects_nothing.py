"""netpol-pairing[selects-nothing]: a policy's pod selector, or a rule's peer selector, that
matches no workload the cluster receives is a warning naming the nearest label set; where the
namespace may hold pods reviewbot cannot see, a note instead (tests/fixtures/netpol-pairing/
fail/selects-nothing holds the sock-shop case)."""

from __future__ import annotations

from pathlib import Path

from .helpers import deployment, lint_text

SHOP = deployment("carts", "sock-shop", "{name: carts}") + deployment(
    "orders", "sock-shop", "{name: orders, tier: backend}")


def test_a_cilium_endpoint_selector_that_selects_nothing(tmp_path: Path) -> None:
    text = SHOP + """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: orders, namespace: sock-shop}
spec:
  endpointSelector: {matchLabels: {name: order, tier: backend}}
  ingress:
  - fromEndpoints: [{matchLabels: {name: carts}}]
"""
    result = lint_text(tmp_path, text, only=["netpol-pairing"])
    assert [(f.line, f.kind, f.severity, f.message) for f in result.findings] == [
        (32, "selects-nothing", "warning",
         "CiliumNetworkPolicy sock-shop/orders: endpointSelector name=order, tier=backend "
         "matches no pod in sock-shop (Deployment orders has name=orders, tier=backend)")]


def test_a_namespace_with_pods_reviewbot_cannot_see_gets_a_note(tmp_path: Path) -> None:
    text = SHOP + """
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: queue, namespace: sock-shop}
spec:
  chart:
    spec: {chart: rabbitmq, version: 14.0.0, sourceRef: {kind: HelmRepository, name: bitnami}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: queue, namespace: sock-shop}
spec:
  podSelector: {matchLabels: {app.kubernetes.io/name: rabbitmq}}
  ingress:
  - from: [{podSelector: {matchLabels: {name: orders}}}]
"""
    result = lint_text(tmp_path, text, only=["netpol-pairing"])
    assert result.findings == []
    (note,) = result.quiet
    assert (note.rule, note.line) == ("netpol-pairing", 39)
    assert note.reason == (
        "NetworkPolicy sock-shop/queue: podSelector app.kubernetes.io/name=rabbitmq matches no "
        "pod in sock-shop, but it may hold pods reviewbot cannot see (sock-shop: HelmRelease "
        "queue)")


def test_what_cannot_be_judged_is_left_alone(tmp_path: Path) -> None:
    text = SHOP + deployment("migrate", "jobs", "{app: migrate}").replace(
        "kind: Deployment", "kind: Job") + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: jobs, namespace: jobs}
spec:
  podSelector: {matchLabels: {job-name: migrate}}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {team: web}}
      podSelector: {matchLabels: {app: anything}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: dns, namespace: kube-system}
spec:
  podSelector: {matchLabels: {k8s-app: kube-dns}}
  ingress: [{}]
"""
    # job-name is the Job controller's label; team=web namespaces may be outside the
    # repository; kube-system holds no workload of the repository
    result = lint_text(tmp_path, text, only=["netpol-pairing"])
    assert result.findings == [] and list(result.quiet) == []
