"""What the workload rules share: resources, GPUs, argv flags, placement against the inventory.

Every helper takes a :class:`~reviewbot.model.objects.PodTemplate` (a workload's pods, a KServe
component, or a Helm values pseudo-workload from :mod:`reviewbot.model.values`) and answers one
question the way Kubernetes does:

- ``request(container, resource)``: the request, or the limit when no request is set (the API
  server copies limits into missing requests); ``pod_request(pod, resource)``: what the
  scheduler reserves (the larger of the app containers plus native sidecars and the largest
  init container plus the sidecars started before it).
- ``gpus(...)``: extended resources that name GPUs (``nvidia.com/gpu``, ``amd.com/gpu``,
  ``gpu.intel.com/*`` by default; glob patterns); ``NCCL_GPU_RESOURCES`` are those whose
  collectives (NCCL, RCCL) move through ``/dev/shm``.
- ``flag(argv, names)``: ``--x=N``, ``--x N`` and short ``-tp N`` forms, also inside a single
  shell string (``sh -c "vllm serve ... --tensor-parallel-size 2"``).
- ``tolerates`` / ``admits``: taints, tolerations, nodeSelector, nodeName and required node
  affinity, as the scheduler's filters evaluate them.
- ``field_path(owner, key)``: where a pod-spec or container field sits in the object, also
  for values pseudo-workloads whose fields live at chart-specific paths.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from reviewbot.model.images import ImageRef, parse_image
from reviewbot.model.objects import (
    Container,
    Inventory,
    Model,
    Node,
    Path,
    PodTemplate,
    Strategy,
    dig,
    items,
)


def env_entries(env: Any) -> Iterator[tuple[Mapping[str, Any], Path]]:
    """A container's ``env`` entries, each with its ``name``, and where its value is (the
    path below the container): a list as in a pod spec, or the mapping chart values write
    (app-template: ``NAME: value``, ``NAME: {value: ...}`` or ``NAME: {valueFrom: ...}``).
    The one reader of a container's env (new-user trial thirty-one: serving-runtime read
    the list alone, and said a variable the map sets was not set)."""
    if isinstance(env, list):
        for i, var in enumerate(env):
            if isinstance(var, dict):
                yield var, (("env", i, "value") if "value" in var else ("env", i))
    elif isinstance(env, dict):
        for name, var in env.items():
            if isinstance(var, dict):
                yield {**var, "name": str(name)}, (
                    ("env", str(name), "value") if "value" in var else ("env", str(name)))
            else:
                yield {"name": str(name), "value": var}, ("env", str(name))


# (a MIG slice, `nvidia.com/mig-4g.96gb`, is one GPU device to its container: one engine
# worker each; judge round BZ's TP=2 over two slices was "0 GPUs")
DEFAULT_GPU_RESOURCES: tuple[str, ...] = ("nvidia.com/gpu", "nvidia.com/mig-*", "amd.com/gpu",
                                          "gpu.intel.com/*")
# the GPUs a multi-GPU engine joins with collectives through /dev/shm: NCCL on NVIDIA's, RCCL on
# AMD's (vLLM's ROCm image runs with --ipc=host "for multi-GPU"); Intel's device plugin
# resources (gpu.intel.com/i915, xe, millicores) are media iGPU shares (sharedDevNum) as often
# as not, and count no GPUs that NCCL joins
NCCL_GPU_RESOURCES: tuple[str, ...] = ("nvidia.com/gpu", "amd.com/gpu")
HOSTNAME = "kubernetes.io/hostname"
CONTROL_PLANE_KEYS: tuple[str, ...] = (
    "node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master",
)
MEASURED_PREFIX = "reviewbot.dev/"
MEASURED_BOOT = "reviewbot.dev/measured-boot-seconds"
MEASURED_KV_CACHE = "reviewbot.dev/measured-kv-cache-tokens"


# ---------------------------------------------------------------- images


def config_refs(pod: PodTemplate) -> Iterator[tuple[Path, str, str, bool]]:
    """Each ConfigMap and Secret ``pod`` reads: (where, its kind, its name, optional: true),
    from ``envFrom``, an env ``valueFrom`` and a volume, in that order."""
    for container in pod.containers:
        for i, source in enumerate(items(container.body.get("envFrom"))):
            for kind, key in (("ConfigMap", "configMapRef"), ("Secret", "secretRef")):
                ref = source.get(key) if isinstance(source, dict) else None
                if isinstance(ref, dict) and isinstance(ref.get("name"), str):
                    yield ((*container.path, "envFrom", i, key, "name"), kind, ref["name"],
                           ref.get("optional") is True)
        for var, at in env_entries(container.body.get("env")):
            source = var.get("valueFrom")
            for kind, key in (("ConfigMap", "configMapKeyRef"), ("Secret", "secretKeyRef")):
                ref = source.get(key) if isinstance(source, dict) else None
                if isinstance(ref, dict) and isinstance(ref.get("name"), str):
                    yield ((*container.path, *at, "valueFrom", key, "name"), kind, ref["name"],
                           ref.get("optional") is True)
    for i, volume in enumerate(items(pod.spec.get("volumes"))):
        for kind, key, field in (("ConfigMap", "configMap", "name"),
                                 ("Secret", "secret", "secretName")):
            ref = volume.get(key) if isinstance(volume, dict) else None
            if isinstance(ref, dict) and isinstance(ref.get(field), str):
                yield ((*pod.spec_path, "volumes", i, key, field), kind, ref[field],
                       ref.get("optional") is True)


def image_ref(container: Container) -> ImageRef | None:
    """The container's image (values pseudo-containers carry theirs pre-split)."""
    if container.image_ref is not None:
        return container.image_ref
    image = container.image
    if not isinstance(image, str) or not image.strip():
        return None
    return parse_image(image.strip())


# ---------------------------------------------------------------- field paths


def field_path(owner: PodTemplate | Container, key: str) -> Path:
    """The path (within ``owner.obj``/the container's object) of a pod-spec or container field.

    Values pseudo-workloads keep a ``where`` map, because chart values put fields at their
    own paths (``controllers.main.pod.tolerations``, ``probes.startup.spec``).
    """
    where = where_of(owner)
    if key in where:
        return where[key]
    if isinstance(owner, PodTemplate):
        return owner.spec_path + (key,)
    return owner.path + (key,)


def where_of(owner: PodTemplate | Container) -> Mapping[str, Path]:
    """Fields the owner's origin keeps elsewhere than at the pod-spec path (values)."""
    return owner.origin.where if owner.origin is not None else {}


def describe(container: Container) -> str:
    """How messages name a container: ``init container setup``, ``values initContainers``."""
    if container.origin is not None and container.origin.label:
        return container.origin.label
    role = {"initContainer": "init container", "ephemeralContainer": "ephemeral container"}
    return f"{role.get(container.role, 'container')} {container.name}"


def is_values_pod(pod: PodTemplate) -> bool:
    """True for pseudo-workloads read from Helm values (their labels are not the rendered ones)."""
    return pod.from_values


def pod_annotations(pod: PodTemplate) -> dict[str, str]:
    """The object's annotations, then the pod template's (the pod's win)."""
    out = dict(pod.obj.annotations)
    if pod.annotations is not None:
        out.update(pod.annotations)
        return out
    meta = dig(pod.obj.body, pod.spec_path[:-1] + ("metadata", "annotations"))
    if pod.component is not None:
        meta = dig(pod.obj.body, pod.spec_path + ("annotations",))
    if isinstance(meta, dict):
        out.update({str(k): str(v) for k, v in meta.items()})
    return out


def measured(pod: PodTemplate, key: str, inventory: Inventory | None = None) -> str | None:
    """A measured fact (``reviewbot.dev/measured-*``) for the pod: the pod template's
    annotation, else the object's (values files: the config's ``measured`` section by path),
    else the inventory's ``measured:`` entry for the workload (``reviewbot inventory
    --pods`` writes those). An annotation wins."""
    found = measured_source(pod, key, inventory)
    return found[0] if found else None


def measured_source(
    pod: PodTemplate, key: str, inventory: Inventory | None = None
) -> tuple[str, str] | None:
    """``(value, where it came from)``: ``annotation reviewbot.dev/...`` or
    ``.reviewbot.yaml measured.<workload>``."""
    value = pod_annotations(pod).get(key)
    if value is not None:
        return value, f"annotation {key}"
    if inventory is None or not inventory.measured:
        return None
    short = key.removeprefix(MEASURED_PREFIX)
    for name in workload_keys(pod):
        facts = inventory.measured.get(name)
        if isinstance(facts, Mapping) and facts.get(short) is not None:
            return str(facts[short]), f"the inventory's measured.{name}.{short}"
    return None


def workload_keys(pod: PodTemplate) -> tuple[str, ...]:
    """The keys a ``measured:`` entry may use for ``pod``: its object as findings name it
    (a KServe component other than the predictor adds ``/<component>``), and its pods' own
    workload (``Deployment/forgejo/forgejo`` for a Helm chart's values)."""
    ref = pod.obj.ref
    if pod.component not in (None, "predictor"):
        ref = f"{ref}/{pod.component}"
    if pod.from_values and pod.kind == pod.obj.kind:  # (the values object's own kind)
        # a chart whose workload's kind is not known: the cluster's, as `reviewbot inventory
        # --pods` writes it (trial 84 D6: `Deployment/llm-gateway/llm-gateway` of an
        # in-repo chart's values reached nothing, and the hint named HelmValues/...)
        return (ref, *(f"{kind}/{pod.namespace}/{pod.name}" for kind in _CONTROLLERS))
    own = f"{pod.kind}/{pod.namespace}/{pod.name}"
    return (ref,) if own == ref else (ref, own)


_CONTROLLERS = ("Deployment", "StatefulSet", "DaemonSet")


def unmatched_measured(model: Model) -> list[tuple[str, str]]:
    """The config's ``measured:`` entries that name no workload of the model (no pod's
    :func:`workload_keys`, no values file's path), each with the key it most likely
    misspells ("" when none is close): their facts reach nothing, so a misspelt key
    silently turned probe-headroom off (new-user trial nine: ``HelmRelease/llm/vlm``)."""
    entries = set(model.inventory.measured)
    for inventory in model.cluster_inventories.values():
        entries |= set(inventory.measured)
    if not entries:
        return []
    from reviewbot.words import closest  # (only a configuration with measured entries)

    known = {key for pod in (*model.pods, *model.templates) for key in workload_keys(pod)}
    known |= set(model.files)
    return [(key, closest(key, known)) for key in sorted(entries - known)]


def unapplied_holding(model: Model, key: str) -> str | None:
    """The file no cluster root applies that declares the object ``key`` names
    (``Kind/namespace/name`` as written; a ``measured:`` entry's), or None: the workload is
    in the tree, not applied (new-user trial eighty W8: an Application's path typo left
    Deployment/inference/vllm "no workload of this tree")."""
    kind, _, rest = key.partition("/")
    namespace, _, name = rest.partition("/")
    if not model.unapplied or not name:
        return None
    for doc in model.documents:
        value = doc.value
        if doc.file.path in model.unapplied and isinstance(value, dict) and (
                value.get("kind") == kind):
            meta = value.get("metadata")
            meta = meta if isinstance(meta, dict) else {}
            if meta.get("name") == name and meta.get("namespace") in (namespace, None):
                return doc.file.path
    return None


# ---------------------------------------------------------------- resources


def quantity(container: Container, section: str, resource: str) -> Fraction | None:
    return container.quantity(section, resource)


def written(pod: PodTemplate, resource: str, *sections: str) -> list[Any]:
    """What the pod's containers write for ``resource`` in ``sections``, as written: the
    texts a message quotes a value by (:func:`reviewbot.model.quantity.quote`)."""
    out = []
    for c in pod.containers:
        for section in sections:
            block = c.resources.get(section)
            if isinstance(block, dict) and resource in block:
                out.append(block[resource])
    return out


def request(container: Container, resource: str) -> Fraction | None:
    """The effective request: ``requests``, else ``limits`` (Kubernetes copies the limit)."""
    value = container.quantity("requests", resource)
    if value is None:
        value = container.quantity("limits", resource)
    return value


def _sidecar(container: Container) -> bool:
    return container.role == "initContainer" and container.body.get("restartPolicy") == "Always"


_ZERO = Fraction(0)


def pod_request(pod: PodTemplate, resource: str) -> Fraction:
    """What the scheduler reserves for one pod of ``pod`` (init containers and sidecars too)."""
    running = _ZERO
    peak = _ZERO
    main = _ZERO
    for c in pod.containers:
        role = c.role
        if role == "container":
            value = request(c, resource)
            if value:
                main = main + value if main else value
        elif role == "initContainer":
            value = request(c, resource) or _ZERO
            if _sidecar(c):
                running += value
            else:
                peak = max(peak, running + value)
    return max(main + running, peak)


def resource_names(pod: PodTemplate) -> list[str]:
    """Every resource any container of ``pod`` requests or limits, in first-seen order."""
    seen: dict[str, None] = {}
    for c in pod.containers:
        for section in ("requests", "limits"):
            block = c.resources.get(section)
            if isinstance(block, dict):
                for key in block:
                    seen.setdefault(str(key), None)
    return list(seen)


@lru_cache(maxsize=4096)
def _matches(resource: str, patterns: tuple[str, ...]) -> bool:
    return any(_DEFAULT_GLOBS[p](resource) is not None if p in _DEFAULT_GLOBS
               else fnmatch.fnmatchcase(resource, p) for p in patterns)


# the default GPU patterns as fnmatchcase matches them (re.compile(fnmatch.translate(p))),
# compiled while importing, so that the start-up cache keeps them (fnmatch compiles a pattern
# when first matched, in every run)
_DEFAULT_GLOBS = {p: re.compile(fnmatch.translate(p)).match for p in DEFAULT_GPU_RESOURCES}


def is_gpu(resource: str, patterns: Sequence[str]) -> bool:
    return _matches(resource, patterns if isinstance(patterns, tuple) else tuple(patterns))


def gpu_names(pod: PodTemplate, patterns: Sequence[str]) -> list[str]:
    return [r for r in resource_names(pod) if is_gpu(r, patterns)]


def container_gpus(container: Container, patterns: Sequence[str]) -> dict[str, Fraction]:
    """GPU resource -> effective request, for the GPU resources this container names."""
    out: dict[str, Fraction] = {}
    for section in ("requests", "limits"):
        block = container.resources.get(section)
        if not isinstance(block, dict):
            continue
        for key in block:
            name = str(key)
            if name in out or not is_gpu(name, patterns):
                continue
            value = request(container, name)
            if value:
                out[name] = value
    return out


def _asked(container: Container) -> Iterator[str]:
    """The resource names the container requests or limits."""
    for b in ("requests", "limits"):
        block = container.resources.get(b)
        if isinstance(block, dict):
            yield from (str(name) for name in block)


def asks_tpus(container: Container) -> bool:
    """Whether the container asks for TPU chips (``google.com/tpu``): an engine's
    parallel workers are then TPU chips, not GPUs, and NCCL's /dev/shm is not used."""
    return any(name.endswith("/tpu") for name in _asked(container))


# accelerators an engine's parallel workers run on instead of GPUs: TPU chips, AWS Neuron
# devices and cores (vLLM --device neuron: a device holds two or more cores), Intel Gaudi
OTHER_ACCELERATORS = ("aws.amazon.com/neuron", "aws.amazon.com/neuroncore",
                      "aws.amazon.com/neurondevice", "habana.ai/gaudi")


def asks_other_accelerators(container: Container) -> bool:
    """Whether the container asks for accelerators other than GPUs (TPU chips, AWS Neuron,
    Intel Gaudi): an engine's parallel workers are then those, not GPUs."""
    return any(name.endswith("/tpu") or name in OTHER_ACCELERATORS
               for name in _asked(container))


def pod_gpus(pod: PodTemplate, patterns: Sequence[str]) -> dict[str, Fraction]:
    """GPU resource -> what one pod reserves (zero entries dropped)."""
    out = {}
    for name in gpu_names(pod, patterns):
        value = pod_request(pod, name)
        if value:
            out[name] = value
    return out


# ---------------------------------------------------------------- argv flags


@dataclass(frozen=True)
class Flag:
    """A command-line flag of a container, as written and where."""

    value: str
    path: Path  # the argv item holding the flag (within the object)
    spelling: str  # as written: "--tensor-parallel-size=2", "-tp 2"


_SPACE = re.compile(r"\s")  # compiled while importing (the start-up cache keeps it)


def argv(container: Container) -> list[tuple[str, Path]]:
    """``command`` then ``args``, one (token, path of its item) per token.

    An item holding a shell line (whitespace and a ``-`` flag) is split like a shell would.
    """
    out: list[tuple[str, Path]] = []
    for key in ("command", "args"):
        items = container.body.get(key)
        if isinstance(items, str):
            items = [items]
        if not isinstance(items, list):
            continue
        base = field_path(container, key)
        for i, item in enumerate(items):
            if item is None or isinstance(item, (dict, list)):
                continue
            text = str(item)
            path = base + (i,) if not isinstance(container.body.get(key), str) else base
            if _SPACE.search(text.strip()) and " -" in f" {text}":
                try:
                    tokens = shlex_split(text)
                except ValueError:
                    tokens = text.split()
                out.extend((t, path) for t in tokens)
            else:
                out.append((text, path))
    return out


_SHELL_SPECIAL = re.compile(r"[\\'\"]")
_SHELL_WORD = re.compile(r"[^ \t\r\n]+")


def shlex_split(text: str) -> list[str]:
    """``shlex.split(text, comments=False)``: a text without quotes or backslashes is split
    at shlex's whitespace (space, tab, CR, LF) by a regular expression, which is what shlex
    does to it at a fraction of the cost (shlex reads a character at a time: 40% of
    shm-size's CPU on GoogleCloudPlatform's samples); any other text goes to shlex."""
    if _SHELL_SPECIAL.search(text) is None:
        return _SHELL_WORD.findall(text)
    import shlex  # here: a text without quotes never needs it (0.3% of a one-file lint)

    return shlex.split(text, comments=False)


def flag(tokens: Sequence[tuple[str, Path]], names: Iterable[str]) -> Flag | None:
    """The last occurrence of any of ``names`` (``--x=N``, ``--x N``, ``-x N``, ``-x=N``)."""
    wanted = tuple(names)
    if any("=" in name for name in wanted):
        return _flag_by_name(tokens, wanted)
    # a token is ``name`` or starts with ``name=`` only when its text before the first "="
    # is ``name``: one set lookup a token (a server's argv holds dozens of tokens)
    known = set(wanted)
    found: Flag | None = None
    for i, (token, path) in enumerate(tokens):
        name, equals, value = token.partition("=")
        if name not in known:
            continue
        if equals:
            found = Flag(value, path, token)
        elif i + 1 < len(tokens):
            found = Flag(tokens[i + 1][0], path, f"{name} {tokens[i + 1][0]}")
    return found


def _flag_by_name(tokens: Sequence[tuple[str, Path]], wanted: Sequence[str]) -> Flag | None:
    """:func:`flag` for names that hold "=" themselves: every token against every name."""
    found: Flag | None = None
    for i, (token, path) in enumerate(tokens):
        for name in wanted:
            if token == name and i + 1 < len(tokens):
                found = Flag(tokens[i + 1][0], path, f"{name} {tokens[i + 1][0]}")
            elif token.startswith(name + "="):
                found = Flag(token[len(name) + 1:], path, token)
    return found


def mentions(tokens: Sequence[tuple[str, Path]], image: Any, words: Iterable[str]) -> bool:
    """Whether the argv or the image names one of ``words`` (``vllm``, ``sglang``)."""
    text = " ".join(t for t, _ in tokens).lower() + " " + (str(image).lower() if image else "")
    return any(w in text for w in words)


# vLLM's argument parser takes its long flags with underscores too (FlexibleArgumentParser)
TP_FLAGS = ("--tensor-parallel-size", "-tp", "--tp-size", "--tp", "--tensor_parallel_size")
PP_FLAGS = ("--pipeline-parallel-size", "-pp", "--pp-size", "--pipeline_parallel_size")
DP_FLAGS = ("--data-parallel-size", "-dp", "--dp-size", "--dp", "--data-parallel-size-local",
            "--data_parallel_size", "--data_parallel_size_local")
SERVERS = ("vllm", "sglang")


@dataclass(frozen=True)
class Parallelism:
    """The parallelism flags of a vLLM/SGLang-style server container."""

    tp: Flag | None
    pp: Flag | None
    dp: Flag | None

    def sizes(self) -> tuple[int, int] | None:
        """(tensor, pipeline) sizes, absent flags as 1; None when a value is not a number."""
        out = []
        for found in (self.tp, self.pp):
            size = 1 if found is None else parse_int(found.value)
            if size is None:
                return None
            out.append(size)
        return out[0], out[1]

    @property
    def spelled(self) -> str:
        return " x ".join(f.spelling for f in (self.tp, self.pp) if f is not None)


def parallelism(container: Container, read: Callable[[Container], Sequence[tuple[str, Path]]]
                = argv) -> Parallelism | None:
    """The server's parallelism, or None when the container runs no vLLM/SGLang-style server
    (named in image, command or args, or using the long vLLM flags); ``read`` gives the
    container's :func:`argv` (the rules' memo of it)."""
    written = [container.body.get("command"), container.body.get("args")]
    text = " ".join(
        " ".join(str(x) for x in part) if isinstance(part, list) else str(part)
        for part in written if part
    ).lower()
    image = str(container.image or "").lower()
    if "parallel-size" not in text and "parallel_size" not in text and not any(
            w in text or w in image for w in SERVERS):
        return None  # the cheap test first: most containers run no LLM server
    tokens = read(container)
    long_form = flag(tokens, (TP_FLAGS[0], PP_FLAGS[0], TP_FLAGS[-1], PP_FLAGS[-1]))
    if long_form is None and not mentions(tokens, container.image, SERVERS):
        return None
    return Parallelism(flag(tokens, TP_FLAGS), flag(tokens, PP_FLAGS), flag(tokens, DP_FLAGS))


# ---------------------------------------------------------------- placement


def tolerates(tolerations: Sequence[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    """Whether any toleration tolerates ``taint`` (Kubernetes' ToleratesTaint)."""
    return toleration_of(tolerations, taint) is not None


def toleration_of(tolerations: Sequence[Mapping[str, Any]],
                  taint: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The first toleration that tolerates ``taint`` (Kubernetes' ToleratesTaint), or None."""
    key, value, effect = taint.get("key"), taint.get("value") or "", taint.get("effect")
    for t in tolerations:
        t_effect = t.get("effect")
        if t_effect and t_effect != effect:
            continue
        t_key = t.get("key")
        operator = t.get("operator") or "Equal"
        if not t_key:
            if operator == "Exists":
                return t
            continue
        if t_key != key:
            continue
        if operator == "Exists":
            return t
        if operator == "Equal" and str(t.get("value") or "") == str(value):
            return t
    return None


def untolerated(pod: PodTemplate, node: Node) -> list[Mapping[str, Any]]:
    """The node's NoSchedule/NoExecute taints the pod does not tolerate."""
    return [
        t for t in node.taints
        if t.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(pod.tolerations, t)
    ]


def _known(key: str, assume: bool) -> bool:
    return not assume or key.startswith("node-role.kubernetes.io/")


def _expression(expr: Mapping[str, Any], labels: Mapping[str, str], assume: bool) -> bool:
    key = str(expr.get("key") or "")
    if not _known(key, assume):
        return True
    op = expr.get("operator")
    values = [str(v) for v in items(expr.get("values"))]
    present = key in labels
    if op == "In":
        return present and labels[key] in values
    if op == "NotIn":
        return not present or labels[key] not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and values:
        try:
            have, want = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want
    return False


def _term(term: Mapping[str, Any], node: Node, assume: bool) -> bool:
    exprs = [e for e in items(term.get("matchExpressions")) if isinstance(e, dict)]
    fields = [e for e in items(term.get("matchFields")) if isinstance(e, dict)]
    if not exprs and not fields:
        return False  # an empty term matches no node
    if not all(_expression(e, node.labels, assume) for e in exprs):
        return False
    for e in fields:
        if e.get("key") != "metadata.name" or assume:
            continue
        if not _expression({**e, "key": "metadata.name"}, {"metadata.name": node.name}, False):
            return False
    return True


def required_terms(pod: PodTemplate) -> list[Mapping[str, Any]] | None:
    """Required node-affinity terms (ORed), or None when there is no such requirement."""
    affinity = pod.spec.get("affinity")
    required = dig(affinity, ("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"))
    if not isinstance(required, dict):
        return None
    terms = required.get("nodeSelectorTerms")
    if not isinstance(terms, list):
        return None
    return [t for t in terms if isinstance(t, dict)]


def selects(pod: PodTemplate, node: Node, assume_unknown: bool = False) -> bool:
    """nodeName, nodeSelector and required node affinity admit ``node`` (taints aside).

    ``assume_unknown``: labels other than ``node-role.kubernetes.io/*`` are unknown and count
    as matching (used for the stand-in control-plane node when there is no inventory).
    """
    node_name = pod.spec.get("nodeName")
    if isinstance(node_name, str) and node_name and not assume_unknown and node_name != node.name:
        return False
    for key, value in pod.node_selector.items():
        if not _known(key, assume_unknown):
            continue
        if node.labels.get(key) != value:
            return False
    terms = required_terms(pod)
    return terms is None or any(_term(t, node, assume_unknown) for t in terms)


def admits(pod: PodTemplate, node: Node, assume_unknown: bool = False) -> bool:
    """The scheduler's node filters: selection and taints."""
    return selects(pod, node, assume_unknown) and not untolerated(pod, node)


def pinned_host(pod: PodTemplate) -> str | None:
    """The one host a pod is pinned to: nodeName, nodeSelector on hostname, or required
    affinity that allows a single hostname (or ``metadata.name``)."""
    node_name = pod.spec.get("nodeName")
    if isinstance(node_name, str) and node_name:
        return node_name
    host = pod.node_selector.get(HOSTNAME)
    if host:
        return host
    terms = required_terms(pod)
    if terms and len(terms) == 1:
        for key in ("matchExpressions", "matchFields"):
            for e in items(terms[0].get(key)):
                if not isinstance(e, dict) or e.get("operator") != "In":
                    continue
                values = items(e.get("values"))
                if e.get("key") in (HOSTNAME, "metadata.name") and len(values) == 1:
                    return str(values[0])
    return None


def pinned_node(pod: PodTemplate, inventory: Inventory) -> Node | None:
    """The inventory node a pod is pinned to (None: not pinned, or to a host not listed)."""
    host = pinned_host(pod)
    if host is None:
        return None
    if pod.spec.get("nodeName") == host:
        return inventory.node(host)
    return _hosts(inventory).get(host)


def _hosts(inventory: Inventory) -> dict[str, Node]:
    """hostname label -> node (a node without the label answers to its name)."""
    out: dict[str, Node] = {}
    for node in inventory.nodes:
        out.setdefault(node.labels.get(HOSTNAME, node.name), node)
    return out


class Placement:
    """Where each pod template runs, computed once per check: pinned nodes, and every node's
    pods (pinned there, or DaemonSets that admit it). A pod whose nodeSelector or required
    affinity admits one inventory node only (the GPU node by its feature-discovery labels,
    taints counted) runs there as surely as one pinned by hostname (new-user trial
    twenty-six: three GPUs asked of a two-GPU node so selected, "no findings")."""

    def __init__(self, pods: Iterable[PodTemplate], inventory: Inventory) -> None:
        hosts = _hosts(inventory)
        self.pinned: dict[int, Node | None] = {}
        self.on: dict[str, list[PodTemplate]] = {n.name: [] for n in inventory.nodes}
        for pod in pods:
            host = pinned_host(pod)
            node = None
            if host is not None:
                node = (inventory.node(host) if pod.spec.get("nodeName") == host
                        else hosts.get(host))
            if host is None and pod.kind != "DaemonSet" and (
                    pod.node_selector or required_terms(pod)):
                admitted = [n for n in inventory.nodes if admits(pod, n)]
                node = admitted[0] if len(admitted) == 1 else None
            self.pinned[id(pod)] = node
            if node is not None:
                self.on[node.name].append(pod)
            elif pod.kind == "DaemonSet":
                for candidate in inventory.nodes:
                    if admits(pod, candidate):
                        self.on[candidate.name].append(pod)

    def node_of(self, pod: PodTemplate) -> Node | None:
        return self.pinned.get(id(pod))

    def pods_on(self, node: Node) -> list[PodTemplate]:
        return self.on.get(node.name, [])

    def room_for(self, pod: PodTemplate, more: int, pods: Sequence[PodTemplate],
                 nodes: Sequence[Node], wanted: Mapping[str, Fraction],
                 asks: Callable[[PodTemplate], Mapping[str, Fraction]]) -> list[Node] | None:
        """The nodes of ``nodes`` (an inventory's) on which ``more`` pods like ``pod``, each
        asking ``wanted``, fit once every pod of ``pods`` runs (``asks``: what one of them
        asks of those resources): each node's allocatable less what the pods pinned there
        ask, then each replica of the others, largest first, on the node that admits it with
        the most room left (one placement that fits, as the scheduler may find it); None
        when a replica of them, or of the ``more``, finds no room. The resources are extended
        ones (GPUs): a node that does not list one has none."""
        left = {n.name: {r: n.allocatable.get(r, Fraction(0)) for r in wanted} for n in nodes}
        loose: list[tuple[Fraction, PodTemplate, Mapping[str, Fraction]]] = []
        for other in pods:
            ask = {r: v for r, v in asks(other).items() if r in wanted and v}
            if not ask:
                continue
            node = self.node_of(other)
            if node is not None or other.kind == "DaemonSet":
                for n in ([node] if node is not None else
                          [n for n in nodes if any(o is other for o in self.pods_on(n))]):
                    for r, v in ask.items():  # (a DaemonSet's count: one on each node)
                        left[n.name][r] -= v * count(other)
                continue
            loose += [(max(ask.values()), other, ask)] * count(other)
        loose.sort(key=lambda item: (-item[0], item[1].name))
        admitted: dict[int, list[Node]] = {}
        for _, other, need in [*loose, *[(Fraction(0), pod, wanted)] * more]:
            if id(other) not in admitted:
                admitted[id(other)] = [n for n in nodes if admits(other, n)]
            fits = [n for n in admitted[id(other)]
                    if all(left[n.name][r] >= v for r, v in need.items())]
            if not fits:
                return None
            best = max(fits, key=lambda n: (sum(left[n.name].values()), n.name))
            for r, v in need.items():
                left[best.name][r] -= v
        return admitted[id(pod)]


def stand_in_control_planes() -> tuple[Node, ...]:
    """Conventional control-plane nodes, for when the inventory lists none."""
    return tuple(
        Node(f"a {key.rsplit('/', 1)[1]} node", {key: ""},
             ({"key": key, "effect": "NoSchedule"},), {})
        for key in CONTROL_PLANE_KEYS
    )


def replicas(pod: PodTemplate) -> int:
    return max(pod.replicas, 0)


def count(pod: PodTemplate) -> int:
    """Pods one template runs on one node (DaemonSets: one per node)."""
    return 1 if pod.kind == "DaemonSet" else replicas(pod)


# ---------------------------------------------------------------- text


def share(part: Fraction, whole: Fraction) -> str:
    return f"{float(part * 100 / whole):.1f}%" if whole else "n/a"



def number(value: Fraction) -> str:
    return str(int(value)) if value.denominator == 1 else f"{float(value):g}"


MAX_DIGITS = 30  # a count (seconds, replicas, pods) longer than this is none a cluster has
DIGITS = rf"[0-9]{{1,{MAX_DIGITS}}}"  # such a count in a pattern (Python converts <= 4,300)
# patterns compiled while importing (the start-up cache keeps them), not at a run's first call
_SECONDS = re.compile(rf"\s*({DIGITS}(?:\.{DIGITS})?)\s*(s|m|h)?\s*")
_INT = re.compile(rf"\s*{DIGITS}\s*")


# ---------------------------------------------------------------- rolling updates

_PERCENT = re.compile(rf"({DIGITS})%")  # compiled while importing (the start-up cache keeps it)


def surge_pods(max_surge: Any, replicas: int) -> int | None:
    """Pods a rolling update adds at once (percentages round up), None when unreadable."""
    if isinstance(max_surge, bool):
        return None
    if isinstance(max_surge, int):
        return max(max_surge, 0)
    if isinstance(max_surge, str):
        text = max_surge.strip()
        match = _PERCENT.fullmatch(text)
        if match:
            return math.ceil(int(match.group(1)) * max(replicas, 1) / 100)
        if text.isdigit() and len(text) <= MAX_DIGITS:
            return int(text)
    return None


def unavailable_pods(max_unavailable: Any, replicas: int) -> int | None:
    """Pods a rolling update may stop before their replacements are ready (percentages
    round down, as the Deployment controller rounds them), None when unreadable."""
    if isinstance(max_unavailable, str) and max_unavailable.strip().endswith("%"):
        match = _PERCENT.fullmatch(max_unavailable.strip())
        return int(match.group(1)) * max(replicas, 1) // 100 if match else None
    return surge_pods(max_unavailable, replicas)


def surge_field(pod: PodTemplate, strategy: Strategy) -> Path:
    """Where a surge finding points: the ``maxSurge`` the strategy writes (a new-user trial:
    the caret sat on ``strategy:``, three lines above it; app-template's
    ``rollingUpdate.surge``, new-user trial sixty-nine D6), else the ``type: RollingUpdate``
    that leaves it to its default (new-user trial twenty-nine: the text said `strategy:`'s
    line, the review's comment the changed `type:` below it), else the strategy block."""
    for written in (where_of(pod).get("maxSurge"), strategy.path + ("rollingUpdate", "maxSurge"),
                    strategy.path + ("type",)):
        if written is not None and pod.obj.get(written) is not None:
            return written
    return strategy.path


def stops_first(pod: PodTemplate, strategy: Strategy, replicas: int | None = None) -> bool:
    """A Deployment's RollingUpdate (KServe's and chart values' alike) whose maxUnavailable
    lets an old pod stop before its replacement is ready, of ``replicas`` pods (its written
    replicas unless given: an autoscaler's floor, which a percentage rounds down from;
    new-user trial eighty D1 read 25% of an HPA's 4 pods from the 2 written). Operators'
    rollouts (LeaderWorkerSet groups, Argo Rollouts) and DaemonSets keep their own rules."""
    return (strategy.type == "RollingUpdate" and strategy.unit == 1 and pod.controller is None
            and pod.kind != "DaemonSet" and (unavailable_pods(
                strategy.max_unavailable, pod.replicas if replicas is None else replicas)
                or 0) >= 1)



def parse_seconds(value: Any) -> Fraction | None:
    """A duration in seconds: ``600``, ``"600"``, ``"600s"``, ``"10m"``, ``"1h"``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return Fraction(value) if 0 <= value < 10**MAX_DIGITS else None
    if isinstance(value, float):  # .inf and .nan are no durations
        return Fraction(str(value)) if 0 <= value < 10.0**MAX_DIGITS else None
    match = _SECONDS.fullmatch(str(value))
    if not match:
        return None
    scale = {"s": 1, None: 1, "m": 60, "h": 3600}[match.group(2)]
    return Fraction(match.group(1)) * scale


def parse_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 10**MAX_DIGITS else None
    if isinstance(value, str) and _INT.fullmatch(value):
        return int(value)
    return None


