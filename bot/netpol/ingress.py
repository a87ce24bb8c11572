"""The ingress controller as a peer: Ingress and OpenShift Route objects, followed to pods.

An Ingress (``networking.k8s.io``) or a Route (``route.openshift.io``) sends traffic from the
ingress controller to the pods of the Services it names, on their target ports. The
controller is one peer, printed ``{ingress-controller}``, placed in a namespace with labels
(``.reviewbot.yaml``: ``netpol: {ingress-controller: {namespace, labels}}``; default: the
ingress-nginx chart's namespace and controller labels). What it may open towards a pod is:

- the ports the Ingress/Route objects name: an Ingress backend (``defaultBackend`` and every
  ``rules[].http.paths[].backend``) names a Service of its own namespace and a port (number
  or Service port name); a Route names ``spec.to`` and ``alternateBackends`` (kind Service)
  and optionally ``spec.port.targetPort``; no port named: every port of the Service. The
  Service port leads to its ``targetPort`` (a name is resolved on the pod), TCP only, and
  only a port the pod declares among its containers' ports counts;
- intersected with what the policies (every tier) allow from the controller to the pod.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from reviewbot.model.objects import KObject, Model, PodTemplate, Service, mapping
from reviewbot.netpol.sets import NONE, Conns

INGRESS_PEER = "{ingress-controller}"
DEFAULT_NAMESPACE = "ingress-nginx"
DEFAULT_LABELS: Mapping[str, str] = {
    "app.kubernetes.io/name": "ingress-nginx",
    "app.kubernetes.io/component": "controller",
}


@dataclass(frozen=True)
class IngressController:
    """Where the ingress controller's pods are: namespace and labels."""

    namespace: str = DEFAULT_NAMESPACE
    labels: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_LABELS))

    @staticmethod
    def from_config(section: Mapping[str, Any]) -> IngressController:
        raw = mapping(section.get("ingress-controller"))
        namespace = raw.get("namespace")
        labels = raw.get("labels")
        return IngressController(
            namespace if isinstance(namespace, str) and namespace else DEFAULT_NAMESPACE,
            {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict)
            else dict(DEFAULT_LABELS),
        )


def is_ingress_object(obj: KObject) -> bool:
    return (obj.kind == "Ingress" and obj.group in ("networking.k8s.io", "extensions")) or (
        obj.kind == "Route" and obj.group == "route.openshift.io"
    )


def ingress_objects(model: Model) -> list[KObject]:
    return [o for o in model.objects if is_ingress_object(o)]


# Gateway API routes (``gateway.networking.k8s.io``): their ``rules[].backendRefs`` name
# Services; the gateway's own pods send, not the ingress controller, so they are backends
# (:func:`backends`) but no ingress object of the connectivity map
GATEWAY_GROUP = "gateway.networking.k8s.io"
ROUTE_KINDS = frozenset({"HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"})


def gateway_routes(model: Model) -> list[KObject]:
    return [o for o in model.objects if o.kind in ROUTE_KINDS and o.group == GATEWAY_GROUP]


def controller_pod(controller: IngressController, anchor: KObject) -> PodTemplate:
    """A stand-in pod for the controller (``anchor``: the object it is reported against)."""
    return PodTemplate(
        anchor, "IngressController", "ingress-controller", controller.namespace,
        dict(controller.labels), {}, (), (), 1, None,
    )


@dataclass(frozen=True)
class Backend:
    """A Service an Ingress or Route sends traffic to, and the port."""

    obj: KObject  # the Ingress or Route
    path: tuple[str | int, ...]  # the backend's place in it
    service: str
    port: int | str | None  # None: every port of the Service
    namespace: str | None = None  # a Gateway API backendRef's own (None: the route's)


# ingress-nginx's annotations that return a redirect "instead of sending data to the
# upstream" (its annotations reference): the Ingress's backend is a placeholder, never sent
# to (judge round CA: swaptacular's redirect Ingress naming a port its Service lacks, "503")
_REDIRECTS = ("permanent-redirect", "temporal-redirect")


def backends(obj: KObject) -> Iterator[Backend]:
    spec = mapping(obj.get(("spec",)))
    if obj.kind in ROUTE_KINDS:  # Gateway API: rules[].backendRefs[] of kind Service
        rules = spec.get("rules")
        for i, rule in enumerate(rules if isinstance(rules, list) else []):
            refs = mapping(rule).get("backendRefs")
            for j, ref in enumerate(refs if isinstance(refs, list) else []):
                ref = mapping(ref)
                port = ref.get("port")
                namespace = ref.get("namespace")
                if ref.get("group") in (None, "") and ref.get("kind") in (None, "Service") and (
                        isinstance(ref.get("name"), str)):
                    yield Backend(obj, ("spec", "rules", i, "backendRefs", j), ref["name"],
                                  port if isinstance(port, int) and not isinstance(port, bool)
                                  else None,
                                  namespace if isinstance(namespace, str) and namespace
                                  else None)
        return
    if obj.kind == "Route":
        port = mapping(spec.get("port")).get("targetPort")
        wanted = port if isinstance(port, (int, str)) and not isinstance(port, bool) else None
        to = mapping(spec.get("to"))
        if to.get("kind") in (None, "", "Service") and isinstance(to.get("name"), str):
            yield Backend(obj, ("spec", "to"), to["name"], wanted)
        alternates = spec.get("alternateBackends")
        for i, alt in enumerate(alternates if isinstance(alternates, list) else []):
            alt = mapping(alt)
            if alt.get("kind") in (None, "", "Service") and isinstance(alt.get("name"), str):
                yield Backend(obj, ("spec", "alternateBackends", i), alt["name"], wanted)
        return
    if any(str(obj.annotations.get(f"nginx.ingress.kubernetes.io/{key}") or "").strip()
           for key in _REDIRECTS):
        return  # ingress-nginx answers every request with the redirect, sending none on
    default = mapping(spec.get("defaultBackend") or spec.get("backend"))
    found = _ingress_backend(obj, default, ("spec", "defaultBackend"))
    if found is not None:
        yield found
    rules = spec.get("rules")
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        paths = mapping(mapping(rule).get("http")).get("paths")
        for j, item in enumerate(paths if isinstance(paths, list) else []):
            backend = mapping(mapping(item).get("backend"))
            found = _ingress_backend(
                obj, backend, ("spec", "rules", i, "http", "paths", j, "backend")
            )
            if found is not None:
                yield found


def _ingress_backend(
    obj: KObject, raw: Mapping[str, Any], path: tuple[str | int, ...]
) -> Backend | None:
    service = mapping(raw.get("service"))
    if isinstance(service.get("name"), str):  # networking.k8s.io/v1
        port = mapping(service.get("port"))
        number, name = port.get("number"), port.get("name")
        wanted: int | str | None = None
        if isinstance(number, int) and not isinstance(number, bool) and number:
            wanted = number
        elif isinstance(name, str) and name:
            wanted = name
        return Backend(obj, path + ("service",), service["name"], wanted)
    if isinstance(raw.get("serviceName"), str):  # extensions/v1beta1
        service_port = raw.get("servicePort")
        return Backend(obj, path, raw["serviceName"],
                       service_port if isinstance(service_port, (int, str))
                       and not isinstance(service_port, bool) else None)
    return None


def target_ports(service: Service, wanted: int | str | None) -> list[int | str]:
    """The pod ports one backend reaches through ``service`` (the first matching port)."""
    out: list[int | str] = []
    for sp in service.ports:
        if wanted is None:
            out.append(sp.target_port)
        elif (isinstance(wanted, str) and sp.name == wanted) or sp.port == wanted or (
            sp.target_port == wanted
        ):
            return [sp.target_port]
    return out


def pod_tcp_port(pod: PodTemplate, port: int | str) -> int | None:
    """The TCP container port ``port`` (a number, or a name) is on ``pod``; None: not declared."""
    for container in pod.containers:
        if container.role != "container":
            continue
        for p in container.ports:
            number = p.get("containerPort")
            if not isinstance(number, int) or str(p.get("protocol") or "TCP") != "TCP":
                continue
            if (isinstance(port, int) and number == port) or (
                isinstance(port, str) and (p.get("name") == port or str(number) == port)
            ):
                return number
    return None


def requested(
    objects: list[KObject], services: Mapping[tuple[str, str], Service],
    select: Any, pods: list[PodTemplate],
) -> dict[int, Conns]:
    """Pod index -> the TCP ports the Ingress/Route objects send it (before policies).

    ``select(namespace, service) -> pod indices`` resolves a Service's selector."""
    out: dict[int, Conns] = {}
    for obj in objects:
        ns = obj.namespace or "default"
        for backend in backends(obj):
            service = services.get((ns, backend.service))
            if service is None or not service.selector:
                continue
            for d in select(service):
                conns = NONE
                for target in target_ports(service, backend.port):
                    number = pod_tcp_port(pods[d], target)
                    if number is not None:
                        conns = conns.union(Conns.ports("TCP", number, number))
                if conns:
                    out[d] = out.get(d, NONE).union(conns)
    return out
