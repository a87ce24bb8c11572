"""What rules share to walk the model: pods once each, containers once each, their images.

``each_pod(model)`` yields every pod the repository runs (workloads, KServe components, Helm
values pods) once; ``each_container(model, roles=...)`` yields (pod, container) once per
container; ``templates=True`` adds pod templates no pod runs as written (ServingRuntimes,
LLMInferenceServices), whose images still matter. The one dedupe: a pod is its object and the
path of its pod spec, a container its object and its path, so a document reached twice (a
kustomize base and a rendered copy) is judged once. ``views(model)`` gives the model once per
cluster, made once for every rule that judges each cluster on its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewbot.model.images import DIGEST, ImageRef, parse_image
from reviewbot.model.objects import Container, KObject, Model, Path, PodTemplate, views_of
from reviewbot.model.workload import Parallelism, argv, image_ref, parallelism

__all__ = ["DIGEST", "ImageRef", "argv_of", "each_container", "each_pod", "file_of",
           "host_accepted", "image_ref", "parallelism_of", "parse_image", "record_doubt",
           "template_doubt", "views"]

ALL_ROLES = ("container", "initContainer", "ephemeralContainer")
RUNNING = ("container", "initContainer")  # containers that hold resources and take GPUs


def views(model: Model) -> list[tuple[str | None, Model]]:
    """:func:`~reviewbot.model.objects.views_of` ``model``: its clusters, made once per model
    for every rule (and the connectivity map) that judges each cluster on its own."""
    return views_of(model)


def argv_of(model: Model, container: Container) -> list[tuple[str, Path]]:
    """:func:`~reviewbot.model.workload.argv` of a container of ``model``, made once per
    container and kept in the model's ``derived`` values (shm-size, gpu-parallelism and
    serving-runtime split the same servers' shell lines); the list is read, never changed."""
    memo: dict[int, tuple[Container, list[tuple[str, Path]]]] = model.derived.setdefault(
        "argv", {})
    hit = memo.get(id(container))
    if hit is None or hit[0] is not container:
        hit = memo[id(container)] = (container, argv(container))
    return hit[1]


def parallelism_of(model: Model, container: Container) -> Parallelism | None:
    """:func:`~reviewbot.model.workload.parallelism` of a container of ``model``, found once
    per container (shm-size and gpu-parallelism both ask) from :func:`argv_of`."""
    memo: dict[int, tuple[Container, Parallelism | None]] = model.derived.setdefault(
        "parallelism", {})
    hit = memo.get(id(container))
    if hit is None or hit[0] is not container:
        found = parallelism(container, lambda c: argv_of(model, c))
        hit = memo[id(container)] = (container, found)
    return hit[1]


def file_of(obj: KObject, path: Path) -> str:
    """The file of the field at ``path``: ``obj.where(path)[0]`` (the patch that set it, if
    one did), without locating its line, which composes the document's positions: a rule
    that asks which file an image is written in, for every container, paid for the lines of
    images it reports nothing about (image-digest on GoogleCloudPlatform's samples)."""
    return obj.written(path)[0].file.path


def each_pod(model: Model, *, templates: bool = False) -> Iterator[PodTemplate]:
    """Every pod of the model once (``templates``: pod templates too)."""
    seen: set[tuple[int, tuple[str | int, ...]]] = set()
    for group in (model.pods, model.templates) if templates else (model.pods,):
        for pod in group:
            key = (id(pod.obj), pod.spec_path)
            if key not in seen:
                seen.add(key)
                yield pod


def each_container(
    model: Model, roles: tuple[str, ...] = ALL_ROLES, *, templates: bool = False
) -> Iterator[tuple[PodTemplate, Container]]:
    """Every container of the given roles once, with its pod."""
    seen: set[tuple[int, tuple[str | int, ...]]] = set()
    for group in (model.pods, model.templates) if templates else (model.pods,):
        for pod in group:
            for container in pod.containers:
                if container.role not in roles:
                    continue
                key = (id(pod.obj), container.path)
                if key not in seen:
                    seen.add(key)
                    yield pod, container


def template_doubt(pod: PodTemplate) -> str | None:
    """What a finding on a pod template no pod runs as written (a KServe ServingRuntime,
    ClusterServingRuntime, LLMInferenceService) cannot see: the fields KServe merges over its
    containers from the resources that use it. None for pods that run as written."""
    if pod.origin is None or pod.origin.source != "template":
        return None
    return (f"the fields KServe merges over the containers of {pod.obj.kind} {pod.obj.name} "
            "from the resources that use it")



def record_doubt(obj: KObject, unknown: frozenset[str] | None = None) -> str | None:
    """What a finding on ``obj`` could not see when its document has a kind and an
    apiVersion but no ``metadata``, so no API server accepts it as written (no name), and
    none of its other keys is a field of its kind (``unknown``: the top-level keys its
    schema has no field for; None when reviewbot knows no schema of the kind): whether it
    is a Kubernetes object at all. A
    Hive SelectorSyncSet's patch record (`kind`, `name`, `patch`, `patchType` at the top)
    reads so (judge round CR: 50 false errors of openshift-managed-cluster-config's). A
    manifest whose metadata lost its indentation keeps its kind's fields (`spec`): its
    findings stay certain."""
    if isinstance(obj.body.get("metadata"), dict):
        return None
    keys = [k for k in obj.body if k not in ("apiVersion", "kind")]
    if unknown is not None and any(k not in unknown for k in keys):
        return None
    shown = ", ".join(str(k) for k in keys[:4]) + (", ..." if len(keys) > 4 else "")
    keys_are = (f"its keys ({shown or 'none'}) are no {obj.kind}'s fields" if unknown is not None
                else f"no schema of {obj.kind} shows its keys ({shown or 'none'}) are fields")
    return (f"whether this document is a Kubernetes object at all: it has no metadata, "
            f"so no API server accepts it as written, and {keys_are}; another tool may read "
            "it (a Hive SyncSet's patch, a generator's input)")


# a DNS-1123 subdomain, as the API server checks an Ingress rule's host (a wildcard's rest)
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def host_accepted(host: str) -> bool:
    """Whether the API server accepts ``host`` as an Ingress rule's host: a DNS-1123
    subdomain (or ``*.`` one), at most 253 characters, each part at most 63."""
    name = host[2:] if host.startswith("*.") else host
    return len(host) <= 253 and bool(_SUBDOMAIN.fullmatch(name)) and all(
        len(part) <= 63 for part in name.split("."))
