"""Deterministic generator of synthetic GitOps repositories for the benchmark.

    python bench/gen.py --objects 10000 --out /tmp/synth-10k [--seed 8] [--git --pr-files 20]
    python bench/gen.py --objects 1000 --out /tmp/synth-1k --check

The repository has exactly N Kubernetes objects (YAML documents with apiVersion and kind):
namespaces, kustomizations (kustomize and Flux), Deployments, StatefulSets, DaemonSets,
CronJobs, GPU KServe InferenceServices, Services, NetworkPolicies, ConfigMaps, Flux
HelmReleases (bjw-s app-template values) with OCIRepositories and Helm values files, plus a
`.reviewbot.yaml` inventory at the root. The same seed and N always give the same bytes
(and, with --git, the same commit ids).

A small share of objects carries the defects the rules look for (--defect-rate): a flow whose
ingress half is missing, an image without a digest, a GPU InferenceService rolling out with
RollingUpdate, a startup probe shorter than the measured boot. Everything else is clean.

With --git the tree becomes a git repository with one commit on `main`, and a branch `pr`
on top of it whose commit touches --pr-files files (image bumps, replica and resource
changes, one tag bumped while its digest stayed, a new ConfigMap and its kustomization
entry). The work tree is left on `main`.

Only the standard library is needed; --check additionally parses every file with PyYAML's
libyaml loader (the strictest common loader: it refuses re-defined anchors) and counts.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

WORDS_A = (
    "amber", "azure", "brisk", "calm", "cedar", "coral", "crisp", "dusk", "ember", "fable",
    "fern", "frost", "gale", "glade", "harbor", "hazel", "iron", "ivory", "jade", "juniper",
    "kelp", "lark", "lumen", "maple", "marsh", "mesa", "mist", "nova", "oak", "onyx", "opal",
    "pine", "plume", "quartz", "rapid", "raven", "reef", "ridge", "river", "rowan", "sable",
    "sage", "slate", "solar", "spruce", "stone", "storm", "swift", "thorn", "tidal", "topaz",
    "tundra", "umber", "vale", "velvet", "willow", "zephyr",
)
WORDS_B = (
    "api", "auth", "billing", "cache", "catalog", "checkout", "gateway", "indexer", "ingest",
    "inventory", "ledger", "mailer", "metrics", "notify", "orders", "payments", "profile",
    "queue", "ranker", "render", "reports", "search", "session", "shipping", "signer", "store",
    "sync", "tracker", "uploader", "users", "vault", "worker",
)
TEAMS = (
    "core", "data", "edge", "finance", "growth", "infra", "media", "ml", "platform", "risk",
    "search", "storage", "trust", "web",
)
REGISTRIES = (
    "ghcr.io/acme",
    "quay.io/acme",
    "registry.example.com/team",
    "docker.io/acme",
    "ghcr.io/home-operations",
)
MODELS = (
    ("Qwen/Qwen3-8B", 1),
    ("Qwen/Qwen3-30B-A3B-GPTQ-Int4", 2),
    ("meta-llama/Llama-3.1-8B-Instruct", 1),
    ("mistralai/Mistral-Small-24B-Instruct-2501", 2),
    ("google/gemma-3-12b-it", 1),
)
GPU_NODE_ALLOC = {"cpu_m": 64000, "mem_mi": 512000, "gpus": 8}
AUTHOR_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


class GenError(Exception):
    """A generator failure with a message for the user."""


@dataclass(frozen=True)
class Image:
    repository: str
    tag: str
    digest: str | None  # None: not pinned (a deliberate defect)

    def ref(self) -> str:
        base = f"{self.repository}:{self.tag}"
        return f"{base}@sha256:{self.digest}" if self.digest else base

    def tag_field(self) -> str:
        """The app-template `image.tag` form: `v1.2.3@sha256:...`."""
        return f"{self.tag}@sha256:{self.digest}" if self.digest else self.tag


@dataclass(frozen=True)
class Flow:
    """A client pod calling a server through its Service."""

    server_ns: str
    server_name: str
    server_kind: str
    host: str  # the in-cluster DNS name of the Service
    svc_port: int
    pod_port: int
    port_name: str
    ingress_missing: bool  # defect: the server's ingress policy forgets this client


@dataclass(frozen=True)
class Unit:
    """One application: a workload and what comes with it, rendered into files."""

    kind: str  # deploy | sts | isvc | helm | daemon | cron | cm
    ns: str
    name: str
    image: Image
    port: int
    replicas: int
    cpu_m: int
    mem_mi: int
    boot_s: int
    startup_failures: int
    flows: tuple[Flow, ...] = ()
    has_config: bool = False
    gpus: int = 0
    node: str = ""
    strategy: str = "RollingUpdate"
    model: str = ""
    max_num_seqs: int = 16
    named_port_in_policy: bool = False
    anchors: bool = False
    log_level: str = "info"
    config_rev: int = 1


@dataclass(frozen=True)
class Namespace:
    name: str
    team: str


@dataclass
class Plan:
    namespaces: list[Namespace]
    units: dict[str, list[Unit]]  # by namespace, in creation order
    gpu_nodes: list[str]
    objects: int
    kinds: Counter[str]


# ---------------------------------------------------------------------------- planning


def bump(tag: str, part: int) -> str:
    """`v1.2.3` -> `v1.2.4` (part 2) or `v1.3.0` (part 1)."""
    nums = [int(x) for x in tag.lstrip("v").split(".")]
    nums[part] += 1
    nums[part + 1:] = [0] * (len(nums) - part - 1)
    return "v" + ".".join(map(str, nums))


def _digest(rng: random.Random) -> str:
    return f"{rng.getrandbits(256):064x}"


def _image(rng: random.Random, name: str, defect_rate: float) -> Image:
    repo = f"{rng.choice(REGISTRIES)}/{name}"
    tag = f"v{rng.randint(0, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 12)}"
    digest = None if rng.random() < defect_rate else _digest(rng)
    return Image(repo, tag, digest)


def unit_objects(u: Unit) -> Counter[str]:
    """The Kubernetes objects a unit renders to, by kind."""
    c: Counter[str] = Counter()
    if u.kind == "deploy":
        c.update(["Deployment", "Service", "NetworkPolicy"])
        if u.flows:
            c["NetworkPolicy"] += 1
        if u.has_config:
            c["ConfigMap"] += 1
    elif u.kind == "sts":
        c.update(["StatefulSet", "Service", "Service", "NetworkPolicy"])
    elif u.kind == "isvc":
        c.update(["InferenceService", "NetworkPolicy"])
    elif u.kind == "helm":
        c.update(["Kustomization(flux)", "Kustomization", "HelmRelease", "OCIRepository"])
    elif u.kind == "daemon":
        c["DaemonSet"] += 1
    elif u.kind == "cron":
        c["CronJob"] += 1
    elif u.kind == "cm":
        c["ConfigMap"] += 1
    else:
        raise GenError(f"unknown unit kind {u.kind}")
    return c


NS_BASE_OBJECTS = Counter({"Namespace": 1, "Kustomization": 1, "NetworkPolicy": 2})
UNIT_WEIGHTS = (("deploy", 50), ("helm", 22), ("sts", 9), ("isvc", 7), ("cron", 7), ("cm", 5))


class Planner:
    def __init__(self, objects: int, seed: int, defect_rate: float) -> None:
        self.target = objects
        self.rng = random.Random(seed)
        self.defect_rate = defect_rate
        self.namespaces: list[Namespace] = []
        self.units: dict[str, list[Unit]] = {}
        self.names: set[tuple[str, str]] = set()
        self.servers: list[Unit] = []
        self.kinds: Counter[str] = Counter()
        self.count = 0
        self.daemons = 0
        # GPU nodes: list of [free cpu_m, free mem_mi, free gpus]
        self.gpu_free: list[list[int]] = []

    def _name(self, ns: str, prefix: str = "") -> str:
        rng = self.rng
        for _ in range(50):
            base = f"{rng.choice(WORDS_A)}-{rng.choice(WORDS_B)}"
            name = f"{prefix}{base}"
            if (ns, name) not in self.names:
                self.names.add((ns, name))
                return name
        i = 2
        while (ns, f"{prefix}{base}-{i}") in self.names:
            i += 1
        self.names.add((ns, f"{prefix}{base}-{i}"))
        return f"{prefix}{base}-{i}"

    def _place_gpu(self, cpu_m: int, mem_mi: int, gpus: int) -> str:
        for i, free in enumerate(self.gpu_free):
            if free[0] >= cpu_m and free[1] >= mem_mi and free[2] >= gpus:
                free[0] -= cpu_m
                free[1] -= mem_mi
                free[2] -= gpus
                return f"gpu-{i + 1}"
        alloc = GPU_NODE_ALLOC
        self.gpu_free.append([alloc["cpu_m"] - cpu_m, alloc["mem_mi"] - mem_mi,
                              alloc["gpus"] - gpus])
        return f"gpu-{len(self.gpu_free)}"

    def _flows(self, ns: str) -> tuple[Flow, ...]:
        rng = self.rng
        if not self.servers:
            return ()
        n = rng.choices((0, 1, 2, 3), weights=(25, 40, 25, 10))[0]
        local = [s for s in self.units.get(ns, []) if s.kind in ("deploy", "sts", "isvc")]
        picked: dict[tuple[str, str], Unit] = {}
        for _ in range(n):
            pool = local if local and rng.random() < 0.6 else self.servers
            s = rng.choice(pool)
            picked[(s.ns, s.name)] = s
        flows = []
        for s in picked.values():
            if s.kind == "isvc":
                host, svc_port = f"{s.name}-predictor.{s.ns}.svc.cluster.local", 80
            elif s.kind == "sts":
                host, svc_port = f"{s.name}.{s.ns}.svc.cluster.local", s.port
            else:
                host, svc_port = f"{s.name}.{s.ns}.svc.cluster.local", 80
            port_name = "tcp-pg" if s.kind == "sts" else "http"
            missing = rng.random() < self.defect_rate
            flows.append(Flow(s.ns, s.name, s.kind, host, svc_port, s.port, port_name, missing))
        return tuple(flows)

    def _unit(self, kind: str, ns: str) -> Unit:
        rng = self.rng
        d = self.defect_rate
        if kind == "cm":
            name = self._name(ns, "cfg-")
            return Unit("cm", ns, name, Image("", "", None), 0, 0, 0, 0, 0, 0,
                        config_rev=rng.randint(1, 9))
        name = self._name(ns)
        image = _image(rng, name.split("-")[1], d)
        boot = rng.randint(5, 120)
        period = 10
        # startup budget = failureThreshold * period; clean units keep >= 1.5x the boot
        need = math.ceil(boot * 1.5 / period)
        failures = need + rng.randint(1, 12)
        if rng.random() < d:
            failures = max(1, math.ceil(boot * 0.7 / period))
        cpu_m = rng.choice((50, 100, 250, 500, 1000))
        mem_mi = rng.choice((64, 128, 256, 512, 1024, 2048))
        if kind == "deploy":
            return Unit("deploy", ns, name, image, rng.choice((8080, 8000, 3000, 9090)),
                        rng.choice((1, 2, 2, 3)), cpu_m, mem_mi, boot, failures,
                        flows=self._flows(ns), has_config=rng.random() < 0.6,
                        named_port_in_policy=rng.random() < 0.5,
                        log_level=rng.choice(("info", "debug", "warn")))
        if kind == "sts":
            return Unit("sts", ns, name, image, 5432, rng.choice((1, 3)), cpu_m, mem_mi,
                        boot, failures)
        if kind == "isvc":
            model, gpus = rng.choice(MODELS)
            boot = rng.randint(240, 1500)
            failures = math.ceil(boot * 1.5 / 10) + rng.randint(5, 60)
            if rng.random() < d:
                failures = math.ceil(boot * 0.8 / 10)
            cpu_m = 4000 * gpus
            mem_mi = rng.choice((12288, 16384, 24576)) * gpus
            strategy = "RollingUpdate" if rng.random() < d else "Recreate"
            image = Image("docker.io/vllm/vllm-openai", rng.choice(("v0.10.2", "v0.11.0")),
                          None if rng.random() < d else _digest(rng))
            return Unit("isvc", ns, name, image, 8080, 1, cpu_m, mem_mi, boot, failures,
                        gpus=gpus, strategy=strategy, model=model,
                        max_num_seqs=rng.choice((4, 8, 16)))
        if kind == "helm":
            return Unit("helm", ns, name, image, rng.choice((8080, 3000, 80, 9000)), 1,
                        cpu_m, mem_mi, boot, failures, anchors=rng.random() < 0.5,
                        has_config=True)
        if kind == "daemon":
            return Unit("daemon", ns, name, image, 9100, 1, 50, 64, boot, failures)
        if kind == "cron":
            return Unit("cron", ns, name, image, 0, 1, cpu_m, mem_mi, boot, failures)
        raise GenError(f"unknown unit kind {kind}")

    def _add(self, u: Unit) -> None:
        if u.kind == "isvc":  # placed only once kept, so no node stays empty
            u = dataclasses.replace(u, node=self._place_gpu(u.cpu_m, u.mem_mi, u.gpus))
        self.units.setdefault(u.ns, []).append(u)
        c = unit_objects(u)
        self.kinds.update(c)
        self.count += sum(c.values())
        if u.kind in ("deploy", "sts", "isvc"):
            self.servers.append(u)

    def plan(self) -> Plan:
        rng = self.rng
        if self.target < 10:
            raise GenError("--objects must be at least 10")
        while self.count < self.target:
            remaining = self.target - self.count
            if remaining < 12 and self.namespaces:
                ns = self.namespaces[-1].name
                self._add(self._unit("cm", ns))
                continue
            team = rng.choice(TEAMS)
            ns = f"{team}-{len(self.namespaces) + 1:04d}"
            self.namespaces.append(Namespace(ns, team))
            self.units[ns] = []
            self.kinds.update(NS_BASE_OBJECTS)
            self.count += sum(NS_BASE_OBJECTS.values())
            budget = min(self.count + rng.randint(20, 100), self.target)
            if self.daemons < 20 and rng.random() < 0.15:
                self.daemons += 1
                self._add(self._unit("daemon", ns))
            while self.count < budget:
                kinds, weights = zip(*UNIT_WEIGHTS, strict=True)
                u = self._unit(rng.choices(kinds, weights=weights)[0], ns)
                cost = sum(unit_objects(u).values())
                if self.count + cost > self.target:
                    u = self._unit("cm", ns)
                self._add(u)
        if self.count != self.target:
            raise GenError(f"planned {self.count} objects, wanted {self.target}")
        gpu_nodes = [f"gpu-{i + 1}" for i in range(len(self.gpu_free))]
        return Plan(self.namespaces, self.units, gpu_nodes, self.count, self.kinds)


# ---------------------------------------------------------------------------- rendering


def _ind(text: str, n: int) -> str:
    pad = " " * n
    return "".join(pad + line if line.strip() else line for line in text.splitlines(True))


def _resources(u: Unit, limits_cpu: bool = False) -> str:
    lim_cpu = f"\n    cpu: {u.cpu_m * 2}m" if limits_cpu else ""
    return (
        "resources:\n"
        "  requests:\n"
        f"    cpu: {u.cpu_m}m\n"
        f"    memory: {u.mem_mi}Mi\n"
        f"  limits:{lim_cpu}\n"
        f"    memory: {u.mem_mi * 2}Mi\n"
    )


def _probes(u: Unit, port: str) -> str:
    return (
        "startupProbe:\n"
        "  httpGet:\n"
        "    path: /healthz\n"
        f"    port: {port}\n"
        "  periodSeconds: 10\n"
        f"  failureThreshold: {u.startup_failures}\n"
        "livenessProbe:\n"
        "  httpGet:\n"
        "    path: /healthz\n"
        f"    port: {port}\n"
        "  periodSeconds: 20\n"
        "  timeoutSeconds: 2\n"
        "  failureThreshold: 3\n"
        "readinessProbe:\n"
        "  httpGet:\n"
        "    path: /ready\n"
        f"    port: {port}\n"
        "  periodSeconds: 5\n"
    )


def _security() -> str:
    return (
        "securityContext:\n"
        "  allowPrivilegeEscalation: false\n"
        "  readOnlyRootFilesystem: true\n"
        "  capabilities:\n"
        "    drop: [ALL]\n"
    )


def _labels(u: Unit) -> str:
    return (
        f"app.kubernetes.io/name: {u.name}\n"
        f"app.kubernetes.io/part-of: {u.ns}\n"
    )


def flow_url(f: Flow) -> str:
    if f.server_kind == "sts":
        return f"postgresql://app@{f.host}:{f.svc_port}/app"
    return f"http://{f.host}:{f.svc_port}"


def render_configmap(u: Unit, data_urls: list[str]) -> str:
    urls = "".join(f"    - {url}\n" for url in data_urls)
    upstream = f"  upstreams.yaml: |\n    upstreams:\n{_ind(urls, 2)}" if urls else ""
    return (
        "apiVersion: v1\n"
        "kind: ConfigMap\n"
        "metadata:\n"
        f"  name: {u.name}-config\n"
        f"  namespace: {u.ns}\n"
        "  labels:\n"
        f"{_ind(_labels(u), 4)}"
        "data:\n"
        f"  LOG_LEVEL: {u.log_level}\n"
        '  LOG_FORMAT: "json"\n'
        '  WORKERS: "4"\n'
        f"{upstream}"
    )


def render_deploy(u: Unit) -> str:
    env = "".join(
        f"- name: UPSTREAM_{i}_URL\n  value: {flow_url(f)}\n" for i, f in enumerate(u.flows)
    )
    env += '- name: TZ\n  value: "Etc/UTC"\n'
    env_from = (f"envFrom:\n- configMapRef:\n    name: {u.name}-config\n"
                if u.has_config else "")
    container = (
        "- name: app\n"
        f"  image: {u.image.ref()}\n"
        "  ports:\n"
        "  - name: http\n"
        f"    containerPort: {u.port}\n"
        "    protocol: TCP\n"
        "  env:\n"
        f"{_ind(env, 2)}"
        f"{_ind(env_from, 2)}"
        f"{_ind(_resources(u), 2)}"
        f"{_ind(_probes(u, 'http'), 2)}"
        f"{_ind(_security(), 2)}"
    )
    docs = []
    if u.has_config:
        docs.append(render_configmap(u, [flow_url(f) for f in u.flows]))
    docs.append(
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata:\n"
        f"  name: {u.name}\n"
        f"  namespace: {u.ns}\n"
        "  labels:\n"
        f"{_ind(_labels(u), 4)}"
        "  annotations:\n"
        f'    reviewbot.dev/measured-boot-seconds: "{u.boot_s}"\n'
        "spec:\n"
        f"  replicas: {u.replicas}\n"
        "  revisionHistoryLimit: 3\n"
        "  strategy:\n"
        "    type: RollingUpdate\n"
        "    rollingUpdate:\n"
        "      maxSurge: 1\n"
        "      maxUnavailable: 0\n"
        "  selector:\n"
        "    matchLabels:\n"
        f"      app.kubernetes.io/name: {u.name}\n"
        "  template:\n"
        "    metadata:\n"
        "      labels:\n"
        f"{_ind(_labels(u), 8)}"
        "    spec:\n"
        "      automountServiceAccountToken: false\n"
        "      securityContext:\n"
        "        runAsNonRoot: true\n"
        "        runAsUser: 10001\n"
        "      containers:\n"
        f"{_ind(container, 6)}"
    )
    docs.append(render_service(u, 80, "http"))
    return "---\n" + "---\n".join(docs)


def render_service(u: Unit, port: int, target: str, name: str = "",
                   headless: bool = False) -> str:
    cluster_ip = "  clusterIP: None\n" if headless else ""
    return (
        "apiVersion: v1\n"
        "kind: Service\n"
        "metadata:\n"
        f"  name: {name or u.name}\n"
        f"  namespace: {u.ns}\n"
        "  labels:\n"
        f"{_ind(_labels(u), 4)}"
        "spec:\n"
        f"{cluster_ip}"
        "  selector:\n"
        f"    app.kubernetes.io/name: {u.name}\n"
        "  ports:\n"
        f"  - name: {'tcp-pg' if target == 'tcp-pg' else 'http'}\n"
        f"    port: {port}\n"
        f"    targetPort: {target}\n"
        "    protocol: TCP\n"
    )


def render_sts(u: Unit) -> str:
    container = (
        "- name: postgres\n"
        f"  image: {u.image.ref()}\n"
        "  ports:\n"
        "  - name: tcp-pg\n"
        f"    containerPort: {u.port}\n"
        "  env:\n"
        "  - name: PGDATA\n"
        "    value: /var/lib/postgresql/data/pgdata\n"
        f"{_ind(_resources(u, limits_cpu=True), 2)}"
        "  startupProbe:\n"
        "    tcpSocket:\n"
        "      port: tcp-pg\n"
        "    periodSeconds: 10\n"
        f"    failureThreshold: {u.startup_failures}\n"
        "  livenessProbe:\n"
        "    exec:\n"
        '      command: ["pg_isready", "-U", "postgres"]\n'
        "    periodSeconds: 20\n"
        "  readinessProbe:\n"
        "    tcpSocket:\n"
        "      port: tcp-pg\n"
        "    periodSeconds: 5\n"
        "  volumeMounts:\n"
        "  - name: data\n"
        "    mountPath: /var/lib/postgresql/data\n"
    )
    sts = (
        "apiVersion: apps/v1\n"
        "kind: StatefulSet\n"
        "metadata:\n"
        f"  name: {u.name}\n"
        f"  namespace: {u.ns}\n"
        "  labels:\n"
        f"{_ind(_labels(u), 4)}"
        "  annotations:\n"
        f'    reviewbot.dev/measured-boot-seconds: "{u.boot_s}"\n'
        "spec:\n"
        f"  serviceName: {u.name}-headless\n"
        f"  replicas: {u.replicas}\n"
        "  podManagementPolicy: OrderedReady\n"
        "  updateStrategy:\n"
        "    type: RollingUpdate\n"
        "  selector:\n"
        "    matchLabels:\n"
        f"      app.kubernetes.io/name: {u.name}\n"
        "  template:\n"
        "    metadata:\n"
        "      labels:\n"
        f"{_ind(_labels(u), 8)}"
        "    spec:\n"
        "      terminationGracePeriodSeconds: 60\n"
        "      containers:\n"
        f"{_ind(container, 6)}"
        "  volumeClaimTemplates:\n"
        "  - metadata:\n"
        "      name: data\n"
        "    spec:\n"
        "      accessModes: [ReadWriteOnce]\n"
        "      storageClassName: fast-ssd\n"
        "      resources:\n"
        "        requests:\n"
        f"          storage: {u.replicas * 10}Gi\n"
    )
    return (
        f"---\n# {u.name}: PostgreSQL for {u.ns}\n{sts}"
        f"---\n{render_service(u, u.port, 'tcp-pg', name=f'{u.name}-headless', headless=True)}"
        f"---\n{render_service(u, u.port, 'tcp-pg')}"
    )


def render_isvc(u: Unit) -> str:
    comment = ("    # A rolling update needs a GPU the old pod still holds: replace in place.\n"
               if u.strategy == "Recreate" else "")
    shm = ""
    shm_vol = ""
    if u.gpus > 1:
        shm = "  volumeMounts:\n  - name: dshm\n    mountPath: /dev/shm\n"
        shm_vol = ("volumes:\n- name: dshm\n  emptyDir:\n    medium: Memory\n"
                   "    sizeLimit: 8Gi\n")
    container = (
        "- name: kserve-container\n"
        f"  image: {u.image.ref()}\n"
        "  args:\n"
        f"  - --model={u.model}\n"
        "  - --served-model-name\n"
        f"  - {u.name}\n"
        "  - --dtype=float16\n"
        f"  - --tensor-parallel-size={u.gpus}\n"
        "  - --pipeline-parallel-size=1\n"
        "  - --gpu-memory-utilization=0.90\n"
        f"  - --max-num-seqs={u.max_num_seqs}\n"
        "  - --host=0.0.0.0\n"
        f"  - --port={u.port}\n"
        "  env:\n"
        "  - name: HF_HOME\n"
        "    value: /models/cache\n"
        "  - name: VLLM_USE_FLASHINFER_SAMPLER\n"
        '    value: "0"\n'
        "  ports:\n"
        f"  - containerPort: {u.port}\n"
        "    name: http\n"
        "    protocol: TCP\n"
        "  resources:\n"
        "    requests:\n"
        f'      cpu: "{u.cpu_m // 1000}"\n'
        f"      memory: {u.mem_mi}Mi\n"
        f'      nvidia.com/gpu: "{u.gpus}"\n'
        "    limits:\n"
        f'      cpu: "{u.cpu_m // 1000 * 2}"\n'
        f"      memory: {u.mem_mi}Mi\n"
        f'      nvidia.com/gpu: "{u.gpus}"\n'
        "  startupProbe:\n"
        "    httpGet:\n"
        "      path: /health\n"
        f"      port: {u.port}\n"
        "    periodSeconds: 10\n"
        f"    failureThreshold: {u.startup_failures}\n"
        "  readinessProbe:\n"
        "    httpGet:\n"
        "      path: /health\n"
        f"      port: {u.port}\n"
        "    periodSeconds: 10\n"
        f"{shm}"
    )
    return (
        "---\n"
        "apiVersion: serving.kserve.io/v1beta1\n"
        "kind: InferenceService\n"
        "metadata:\n"
        f"  name: {u.name}\n"
        f"  namespace: {u.ns}\n"
        "  labels:\n"
        f"{_ind(_labels(u), 4)}"
        "  annotations:\n"
        "    serving.kserve.io/deploymentMode: RawDeployment\n"
        f'    reviewbot.dev/measured-boot-seconds: "{u.boot_s}"\n'
        "spec:\n"
        "  predictor:\n"
        "    minReplicas: 1\n"
        "    maxReplicas: 1\n"
        "    nodeSelector:\n"
        f"      kubernetes.io/hostname: {u.node}\n"
        "    tolerations:\n"
        "    - key: nvidia.com/gpu\n"
        "      operator: Exists\n"
        "      effect: NoSchedule\n"
        f"{comment}"
        "    deploymentStrategy:\n"
        f"      type: {u.strategy}\n"
        f"{_ind(shm_vol, 4)}"
        "    containers:\n"
        f"{_ind(container, 4)}"
    )


def render_daemon(u: Unit) -> str:
    return (
        "---\n"
        "apiVersion: apps/v1\n"
        "kind: DaemonSet\n"
        "metadata:\n"
        f"  name: {u.name}\n"
        f"  namespace: {u.ns}\n"
        "  labels:\n"
        f"{_ind(_labels(u), 4)}"
        "spec:\n"
        "  selector:\n"
        "    matchLabels:\n"
        f"      app.kubernetes.io/name: {u.name}\n"
        "  template:\n"
        "    metadata:\n"
        "      labels:\n"
        f"{_ind(_labels(u), 8)}"
        "    spec:\n"
        "      priorityClassName: system-node-critical\n"
        "      tolerations:\n"
        "      - key: node-role.kubernetes.io/control-plane\n"
        "        operator: Exists\n"
        "        effect: NoSchedule\n"
        "      containers:\n"
        "      - name: agent\n"
        f"        image: {u.image.ref()}\n"
        "        ports:\n"
        "        - name: metrics\n"
        f"          containerPort: {u.port}\n"
        "        resources:\n"
        "          requests:\n"
        f"            cpu: {u.cpu_m}m\n"
        f"            memory: {u.mem_mi}Mi\n"
        "          limits:\n"
        f"            cpu: {u.cpu_m * 4}m\n"
        f"            memory: {u.mem_mi * 4}Mi\n"
        "        livenessProbe:\n"
        "          httpGet:\n"
        "            path: /metrics\n"
        "            port: metrics\n"
        "          periodSeconds: 30\n"
    )


def render_cron(u: Unit) -> str:
    return (
        "---\n"
        "apiVersion: batch/v1\n"
        "kind: CronJob\n"
        "metadata:\n"
        f"  name: {u.name}\n"
        f"  namespace: {u.ns}\n"
        "  labels:\n"
        f"{_ind(_labels(u), 4)}"
        "spec:\n"
        f'  schedule: "{u.boot_s % 60} {u.cpu_m % 24} * * *"\n'
        "  concurrencyPolicy: Forbid\n"
        "  jobTemplate:\n"
        "    spec:\n"
        "      backoffLimit: 2\n"
        "      template:\n"
        "        metadata:\n"
        "          labels:\n"
        f"{_ind(_labels(u), 12)}"
        "        spec:\n"
        "          restartPolicy: OnFailure\n"
        "          containers:\n"
        "          - name: job\n"
        f"            image: {u.image.ref()}\n"
        "            args: [--once, --verbose]\n"
        f"{_ind(_resources(u), 12)}"
    )


def render_fill_cm(u: Unit) -> str:
    return (
        "---\n"
        "apiVersion: v1\n"
        "kind: ConfigMap\n"
        "metadata:\n"
        f"  name: {u.name}\n"
        f"  namespace: {u.ns}\n"
        "data:\n"
        f'  revision: "{u.config_rev}"\n'
        "  settings.ini: |\n"
        "    [main]\n"
        f"    name = {u.name}\n"
        "    retries = 3\n"
    )


def _peer(ns: str, name: str, own_ns: str) -> str:
    if ns == own_ns:
        return f"- podSelector:\n    matchLabels:\n      app.kubernetes.io/name: {name}\n"
    return (
        "- namespaceSelector:\n"
        "    matchLabels:\n"
        f"      kubernetes.io/metadata.name: {ns}\n"
        "  podSelector:\n"
        "    matchLabels:\n"
        f"      app.kubernetes.io/name: {name}\n"
    )


def render_netpols(u: Unit, clients: list[tuple[str, str]]) -> str:
    port: str | int = u.port
    if u.kind == "sts":
        port = "tcp-pg" if u.named_port_in_policy else u.port
    elif u.named_port_in_policy:
        port = "http"
    sources = "".join(_peer(ns, name, u.ns) for ns, name in clients)
    sources += (
        "- namespaceSelector:\n"
        "    matchLabels:\n"
        "      kubernetes.io/metadata.name: ingress-nginx\n"
        "  podSelector:\n"
        "    matchLabels:\n"
        "      app.kubernetes.io/name: ingress-nginx\n"
    )
    docs = [
        "apiVersion: networking.k8s.io/v1\n"
        "kind: NetworkPolicy\n"
        "metadata:\n"
        f"  name: {u.name}-ingress\n"
        f"  namespace: {u.ns}\n"
        "spec:\n"
        "  podSelector:\n"
        "    matchLabels:\n"
        f"      app.kubernetes.io/name: {u.name}\n"
        "  policyTypes: [Ingress]\n"
        "  ingress:\n"
        "  - from:\n"
        f"{_ind(sources, 4)}"
        "    ports:\n"
        "    - protocol: TCP\n"
        f"      port: {port}\n"
    ]
    if u.kind == "deploy" and u.flows:
        rules = ""
        for f in u.flows:
            p: str | int = f.port_name if u.named_port_in_policy else f.pod_port
            rules += (
                "- to:\n"
                f"{_ind(_peer(f.server_ns, f.server_name, u.ns), 2)}"
                "  ports:\n"
                "  - protocol: TCP\n"
                f"    port: {p}\n"
            )
        docs.append(
            "apiVersion: networking.k8s.io/v1\n"
            "kind: NetworkPolicy\n"
            "metadata:\n"
            f"  name: {u.name}-egress\n"
            f"  namespace: {u.ns}\n"
            "spec:\n"
            "  podSelector:\n"
            "    matchLabels:\n"
            f"      app.kubernetes.io/name: {u.name}\n"
            "  policyTypes: [Egress]\n"
            "  egress:\n"
            f"{_ind(rules, 2)}"
        )
    return "---\n" + "---\n".join(docs)


def render_ns_base(ns: Namespace) -> dict[str, str]:
    namespace = (
        "---\n"
        "apiVersion: v1\n"
        "kind: Namespace\n"
        "metadata:\n"
        f"  name: {ns.name}\n"
        "  labels:\n"
        f"    team: {ns.team}\n"
        "    pod-security.kubernetes.io/enforce: baseline\n"
    )
    policies = (
        "---\n"
        "# Default deny: every flow below needs an egress rule here and an ingress rule there.\n"
        "apiVersion: networking.k8s.io/v1\n"
        "kind: NetworkPolicy\n"
        "metadata:\n"
        "  name: default-deny\n"
        f"  namespace: {ns.name}\n"
        "spec:\n"
        "  podSelector: {}\n"
        "  policyTypes: [Ingress, Egress]\n"
        "---\n"
        "apiVersion: networking.k8s.io/v1\n"
        "kind: NetworkPolicy\n"
        "metadata:\n"
        "  name: allow-dns\n"
        f"  namespace: {ns.name}\n"
        "spec:\n"
        "  podSelector: {}\n"
        "  policyTypes: [Egress]\n"
        "  egress:\n"
        "  - to:\n"
        "    - namespaceSelector:\n"
        "        matchLabels:\n"
        "          kubernetes.io/metadata.name: kube-system\n"
        "      podSelector:\n"
        "        matchLabels:\n"
        "          k8s-app: kube-dns\n"
        "    ports:\n"
        "    - protocol: UDP\n"
        "      port: 53\n"
        "    - protocol: TCP\n"
        "      port: 53\n"
    )
    return {"namespace.yaml": namespace, "networkpolicies.yaml": policies}


def render_kustomization(resources: list[str], namespace: str = "",
                         generator: str = "") -> str:
    ns_line = f"namespace: {namespace}\n" if namespace else ""
    res = "".join(f"  - {r}\n" for r in resources)
    return (
        "---\n"
        "# yaml-language-server: $schema=https://json.schemastore.org/kustomization\n"
        "apiVersion: kustomize.config.k8s.io/v1beta1\n"
        "kind: Kustomization\n"
        f"{ns_line}"
        "resources:\n"
        f"{res}"
        f"{generator}"
    )


def render_helm(u: Unit, base: str) -> dict[str, str]:
    """Files of a Flux app-template release, relative to the namespace folder."""
    a_name = "&app " if u.anchors else ""
    full = "*app" if u.anchors else u.name
    a_port = "&port " if u.anchors else ""
    svc_port = "*port" if u.anchors else str(u.port)
    a_probe = " &probes\n" if u.anchors else "\n"
    probe_spec = (
        "  enabled: true\n"
        "  custom: true\n"
        "  spec:\n"
        "    httpGet:\n"
        "      path: /healthz\n"
        f"      port: {a_port}{u.port}\n"
        "    initialDelaySeconds: 0\n"
        "    periodSeconds: 10\n"
        "    timeoutSeconds: 1\n"
        "    failureThreshold: 3\n"
    )
    readiness = "readiness: *probes\n" if u.anchors else (
        "readiness:\n" + probe_spec
    )
    startup = (
        "startup:\n"
        "  enabled: true\n"
        "  spec:\n"
        f"    failureThreshold: {u.startup_failures}\n"
        "    periodSeconds: 10\n"
    )
    container = (
        "image:\n"
        f"  repository: {u.image.repository}\n"
        f"  tag: {u.image.tag_field()}\n"
        "env:\n"
        "  TZ: Etc/UTC\n"
        f"  {u.name.split('-')[1].upper()}__PORT: &envport \"{u.port}\"\n"
        "  METRICS_PORT: *envport\n"
        f"probes:\n  liveness:{a_probe}{_ind(probe_spec, 2)}"
        f"{_ind(readiness, 2)}"
        f"{_ind(startup, 2)}"
        "securityContext:\n"
        "  allowPrivilegeEscalation: false\n"
        "  readOnlyRootFilesystem: true\n"
        "  capabilities: {drop: [\"ALL\"]}\n"
        "resources:\n"
        "  requests:\n"
        f"    cpu: {u.cpu_m}m\n"
        f"    memory: {u.mem_mi}Mi\n"
        "  limits:\n"
        f"    memory: {u.mem_mi * 2}Mi\n"
    )
    release = (
        "---\n"
        "# yaml-language-server: $schema=https://k8s-schemas.example.com/helmrelease_v2.json\n"
        "apiVersion: helm.toolkit.fluxcd.io/v2\n"
        "kind: HelmRelease\n"
        "metadata:\n"
        f"  name: {a_name}{u.name}\n"
        f"  namespace: {u.ns}\n"
        "spec:\n"
        "  interval: 1h\n"
        "  chartRef:\n"
        "    kind: OCIRepository\n"
        f"    name: {u.name}\n"
        "  install:\n"
        "    remediation:\n"
        "      retries: -1\n"
        "  upgrade:\n"
        "    cleanupOnFail: true\n"
        "    remediation:\n"
        "      retries: 3\n"
        "  valuesFrom:\n"
        "    - kind: ConfigMap\n"
        f"      name: {u.name}-values\n"
        "  values:\n"
        f"    fullnameOverride: {full}\n"
        "    controllers:\n"
        "      main:\n"
        "        annotations:\n"
        '          reloader.stakater.com/auto: "true"\n'
        "        containers:\n"
        "          app:\n"
        f"{_ind(container, 12)}"
        "    defaultPodOptions:\n"
        "      securityContext:\n"
        "        runAsNonRoot: true\n"
        "        runAsUser: 568\n"
        "        runAsGroup: 568\n"
        "    service:\n"
        "      app:\n"
        "        controller: main\n"
        "        ports:\n"
        "          http:\n"
        f"            port: {svc_port}\n"
        "    ingress:\n"
        "      app:\n"
        "        className: internal\n"
        "        hosts:\n"
        f'          - host: "{u.name}.${{SECRET_DOMAIN}}"\n'
        "            paths:\n"
        "              - path: /\n"
        "                service:\n"
        "                  identifier: app\n"
        "                  port: http\n"
    )
    oci = (
        "---\n"
        "apiVersion: source.toolkit.fluxcd.io/v1\n"
        "kind: OCIRepository\n"
        "metadata:\n"
        f"  name: {u.name}\n"
        f"  namespace: {u.ns}\n"
        "spec:\n"
        "  interval: 15m\n"
        "  layerSelector:\n"
        "    mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip\n"
        "    operation: copy\n"
        "  ref:\n"
        "    tag: 4.2.0\n"
        "  url: oci://ghcr.io/bjw-s-labs/helm/app-template\n"
    )
    values = (
        f"# Helm values for {u.name}, merged into the HelmRelease through valuesFrom.\n"
        "persistence:\n"
        "  config:\n"
        "    existingClaim: " + u.name + "\n"
        "    globalMounts:\n"
        "      - path: /config\n"
        "  tmp:\n"
        "    type: emptyDir\n"
        "    medium: Memory\n"
        "    sizeLimit: 256Mi\n"
        "serviceMonitor:\n"
        "  app:\n"
        "    serviceName: " + u.name + "\n"
        "    endpoints:\n"
        "      - port: http\n"
        "        scheme: http\n"
        "        path: /metrics\n"
        "        interval: 1m\n"
        f"logLevel: {u.log_level}\n"
    )
    ks = (
        "---\n"
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\n"
        "kind: Kustomization\n"
        "metadata:\n"
        f"  name: {u.name}\n"
        f"  namespace: {u.ns}\n"
        "spec:\n"
        "  interval: 1h\n"
        f"  path: ./{base}/{u.name}/app\n"
        "  prune: true\n"
        "  sourceRef:\n"
        "    kind: GitRepository\n"
        "    name: flux-system\n"
        "    namespace: flux-system\n"
        f"  targetNamespace: {u.ns}\n"
        "  wait: false\n"
        "  postBuild:\n"
        "    substituteFrom:\n"
        "      - kind: Secret\n"
        "        name: cluster-secrets\n"
    )
    generator = (
        "configMapGenerator:\n"
        f"  - name: {u.name}-values\n"
        "    files:\n"
        "      - values.yaml=./values.yaml\n"
        "generatorOptions:\n"
        "  disableNameSuffixHash: true\n"
    )
    return {
        f"{u.name}/ks.yaml": ks,
        f"{u.name}/app/kustomization.yaml": render_kustomization(
            ["./helmrelease.yaml", "./ocirepository.yaml"], generator=generator),
        f"{u.name}/app/helmrelease.yaml": release,
        f"{u.name}/app/ocirepository.yaml": oci,
        f"{u.name}/app/values.yaml": values,
    }


def render_namespace(ns: Namespace, units: list[Unit],
                     clients: dict[tuple[str, str], list[tuple[str, str]]]) -> dict[str, str]:
    """All files of one namespace folder, relative to the repository root."""
    base = f"kubernetes/apps/{ns.name}"
    files = render_ns_base(ns)
    listed = ["./namespace.yaml", "./networkpolicies.yaml"]
    for u in units:
        key = (u.ns, u.name)
        if u.kind == "deploy":
            files[f"{u.name}.yaml"] = render_deploy(u)
        elif u.kind == "sts":
            files[f"{u.name}.yaml"] = render_sts(u)
        elif u.kind == "isvc":
            files[f"{u.name}.yaml"] = render_isvc(u)
        elif u.kind == "daemon":
            files[f"{u.name}.yaml"] = render_daemon(u)
        elif u.kind == "cron":
            files[f"{u.name}.yaml"] = render_cron(u)
        elif u.kind == "cm":
            files[f"{u.name}.yaml"] = render_fill_cm(u)
        elif u.kind == "helm":
            files.update(render_helm(u, base))
            listed.append(f"./{u.name}/ks.yaml")
            continue
        listed.append(f"./{u.name}.yaml")
        if u.kind in ("deploy", "sts", "isvc"):
            files[f"{u.name}-netpol.yaml"] = render_netpols(u, clients.get(key, []))
            listed.append(f"./{u.name}-netpol.yaml")
    files["kustomization.yaml"] = render_kustomization(listed, namespace=ns.name)
    return {f"{base}/{k}": v for k, v in files.items()}


def render_inventory(plan: Plan) -> str:
    nodes = ""
    for i in range(1, 4):
        nodes += (
            f"  - name: talos-cp-{i}\n"
            f"    labels: {{kubernetes.io/hostname: talos-cp-{i}, "
            'node-role.kubernetes.io/control-plane: ""}\n'
            "    taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]\n"
            "    allocatable: {cpu: 11950m, memory: 15Gi}\n"
        )
    workers = max(3, len(plan.namespaces) // 4)
    for i in range(1, workers + 1):
        nodes += (
            f"  - name: worker-{i}\n"
            f"    labels: {{kubernetes.io/hostname: worker-{i}}}\n"
            "    allocatable: {cpu: \"32\", memory: 126000Mi}\n"
        )
    a = GPU_NODE_ALLOC
    for name in plan.gpu_nodes:
        nodes += (
            f"  - name: {name}\n"
            f"    labels: {{kubernetes.io/hostname: {name}, nvidia.com/gpu.present: \"true\"}}\n"
            "    taints: [{key: nvidia.com/gpu, effect: NoSchedule}]\n"
            f"    allocatable: {{cpu: {a['cpu_m']}m, memory: {a['mem_mi']}Mi, "
            f"nvidia.com/gpu: \"{a['gpus']}\"}}\n"
        )
    return (
        "# reviewbot configuration and the cluster's measured inventory (synthetic).\n"
        "cluster:\n"
        "  nodes:\n"
        f"{nodes}"
        "rules:\n"
        "  probe-headroom: {factor: 1.5}\n"
        "  control-plane-resources: {max-limit-fraction: 0.3}\n"
    )


def ingress_clients(plan: Plan) -> dict[tuple[str, str], list[tuple[str, str]]]:
    clients: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for units in plan.units.values():
        for u in units:
            for f in u.flows:
                if not f.ingress_missing:
                    clients.setdefault((f.server_ns, f.server_name), []).append((u.ns, u.name))
    return clients


def render(plan: Plan) -> dict[str, str]:
    clients = ingress_clients(plan)
    files: dict[str, str] = {".reviewbot.yaml": render_inventory(plan)}
    files["README.md"] = (
        "# Synthetic GitOps repository\n\n"
        f"Generated by reviewbot's bench/gen.py: {plan.objects} Kubernetes objects "
        f"in {len(plan.namespaces)} namespaces.\n"
    )
    for ns in plan.namespaces:
        files.update(render_namespace(ns, plan.units[ns.name], clients))
    return files


# ---------------------------------------------------------------------------- other shapes

BUNDLE_DIR = "install"
CRD_DIR = "kubernetes/crds"
_DOC_SPLIT = re.compile(r"(?m)^---[ \t]*\n")


def bundle(files: dict[str, str], n_bundles: int) -> dict[str, str]:
    """The same objects as multi-document release bundles: n_bundles files of equal count.

    Every document with apiVersion and kind, in path order, each under a `# Source: PATH`
    comment (as `helm template` writes them), is concatenated into install/bundle-NN.yaml;
    files that hold no object (Helm values) are left out. The inventory stays at the root.
    """
    docs: list[str] = []
    for path in sorted(files):
        if not path.endswith(".yaml") or path == ".reviewbot.yaml":
            continue
        for doc in _DOC_SPLIT.split(files[path]):
            if re.search(r"(?m)^apiVersion:", doc) and re.search(r"(?m)^kind:", doc):
                docs.append(f"# Source: {path}\n{doc}")
    n = max(1, min(n_bundles, len(docs)))
    out = {k: v for k, v in files.items() if not k.endswith(".yaml") or k == ".reviewbot.yaml"}
    for b in range(n):
        part = docs[len(docs) * b // n: len(docs) * (b + 1) // n]
        out[f"{BUNDLE_DIR}/bundle-{b:02d}.yaml"] = "".join(f"---\n{d}" for d in part)
    return out


_CRD_TYPES = (
    ("string", ""), ("integer", "format: int32"), ("boolean", ""), ("string", "format: date-time"),
    ("integer", "format: int64"), ("string", "enum: [Always, IfNotPresent, Never]"),
)


def _crd_leaf(rng: random.Random, name: str, ind: str) -> str:
    typ, extra = _CRD_TYPES[rng.randrange(len(_CRD_TYPES))]
    words = " ".join(rng.choice(WORDS_A + WORDS_B) for _ in range(rng.randrange(8, 24)))
    out = (f"{ind}{name}:\n{ind}  description: |-\n{ind}    {name} sets the {words}.\n"
           f"{ind}    Defaults to the controller's value when unset.\n{ind}  type: {typ}\n")
    return out + (f"{ind}  {extra}\n" if extra else "")


def _crd_object(rng: random.Random, name: str, ind: str, depth: int) -> str:
    """An object property in controller-gen style: leaves, an array of objects, nesting."""
    lines = [f"{ind}{name}:\n{ind}  description: {name} configures the {rng.choice(WORDS_B)}"
             f" {rng.choice(WORDS_B)} of the resource.\n{ind}  properties:\n"]
    for j in range(6):
        lines.append(_crd_leaf(rng, f"{rng.choice(WORDS_A)}{rng.choice(WORDS_B).title()}{j}",
                               ind + "    "))
    if depth > 0:
        lines.append(_crd_object(rng, f"{name}Spec", ind + "    ", depth - 1))
        lines.append(f"{ind}    {name}Items:\n{ind}      items:\n")
        lines.append(_crd_object(rng, "item", ind + "        ", depth - 1)
                     .replace(f"{ind}        item:\n", "", 1))
        lines.append(f"{ind}      type: array\n")
    lines.append(f"{ind}  required: [{rng.choice(WORDS_A)}Api0]\n{ind}  type: object\n")
    return "".join(lines)


SERVED = {False: "true", True: '"yes"'}


def render_crd(i: int, size: int, seed: int, defect: bool = False) -> str:
    """One CustomResourceDefinition of about `size` bytes (its openAPIV3Schema grows to it);
    with ``defect``, its last version says ``served: "yes"`` (a schema error at the end of
    the document, the farthest a finding's position can be looked for)."""
    rng = random.Random(seed * 104729 + i)
    group = f"{WORDS_A[i % len(WORDS_A)]}.operator{i // len(WORDS_A)}.example.io"
    kind = f"{WORDS_B[i % len(WORDS_B)].title()}{WORDS_A[(i * 7) % len(WORDS_A)].title()}{i}"
    plural = kind.lower() + "s"
    head = (f"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
            f"  annotations:\n    controller-gen.kubebuilder.io/version: v0.16.1\n"
            f"  name: {plural}.{group}\nspec:\n  group: {group}\n  names:\n"
            f"    kind: {kind}\n    listKind: {kind}List\n    plural: {plural}\n"
            f"    singular: {kind.lower()}\n  scope: Namespaced\n  versions:\n  - name: v1\n"
            f"    schema:\n      openAPIV3Schema:\n        description: {kind} is the Schema"
            f" for the {plural} API.\n        properties:\n          apiVersion:\n"
            f"            type: string\n          kind:\n            type: string\n"
            f"          metadata:\n            type: object\n          spec:\n"
            f"            description: {kind}Spec defines the desired state.\n"
            f"            properties:\n")
    tail = ("            type: object\n          status:\n"
            "            x-kubernetes-preserve-unknown-fields: true\n            type: object\n"
            "        type: object\n    served: " + SERVED[defect] + "\n    storage: true\n"
            "    subresources:\n      status: {}\n")
    parts = [head]
    total = len(head) + len(tail)
    j = 0
    while total < size:
        prop = _crd_object(rng, f"{rng.choice(WORDS_A)}{rng.choice(WORDS_B).title()}{j}",
                           "              ", 2)
        parts.append(prop)
        total += len(prop)
        j += 1
    parts.append(tail)
    return "".join(parts)


def crd_files(n_crds: int, per_file: int, seed: int, defects: int = 0) -> dict[str, str]:
    """n_crds CRDs of 1.0-3.9 MB each (spread evenly), per_file to a file.

    One to a file by default, as operators ship their large CRDs: every file then stays under
    reviewbot's default loader.max-file-bytes (4 MiB), so all of them are parsed; with more per
    file, files past the limit are refused unread (a yaml-syntax finding), not measured.
    """
    out: dict[str, str] = {}
    for f in range(0, n_crds, per_file):
        docs = []
        for i in range(f, min(f + per_file, n_crds)):
            size = 1_000_000 + (2_900_000 * ((i * 17) % n_crds)) // max(1, n_crds - 1)
            docs.append("---\n" + render_crd(i, size, seed, i < defects))
        out[f"{CRD_DIR}/operator-{f // per_file:02d}.yaml"] = "".join(docs)
    return out


# ---------------------------------------------------------------------------- the PR


def pr_changes(plan: Plan, n_files: int, seed: int) -> dict[str, str]:
    """Files (path -> new text) of a PR that touches exactly n_files files."""
    rng = random.Random(seed * 7919 + 1)
    clients = ingress_clients(plan)
    by_kind: dict[str, list[Unit]] = {}
    for namespace in plan.namespaces:
        for unit in plan.units[namespace.name]:
            by_kind.setdefault(unit.kind, []).append(unit)
    for lst in by_kind.values():
        rng.shuffle(lst)
    ns_of = {n.name: n for n in plan.namespaces}
    changed: dict[str, str] = {}
    new_units: dict[str, list[Unit]] = {}
    edits = 0

    def replace(u: Unit, v: Unit) -> None:
        units = new_units.setdefault(u.ns, list(plan.units[u.ns]))
        units[units.index(u)] = v

    def take(kind: str, pinned: bool = False) -> Unit | None:
        lst = by_kind.get(kind, [])
        for j in range(len(lst) - 1, -1, -1):
            if not pinned or lst[j].image.digest:
                return lst.pop(j)
        return None

    if n_files >= 2 and plan.namespaces:
        # a new ConfigMap and its kustomization entry
        target = rng.choice(plan.namespaces).name
        cm = Unit("cm", target, f"cfg-pr-{seed}-added", Image("", "", None), 0, 0, 0, 0, 0, 0,
                  config_rev=1)
        new_units.setdefault(target, list(plan.units[target])).append(cm)
        edits += 2
    plan_edits = ("image", "image", "image", "replicas", "resources", "tag-only", "isvc",
                  "helm", "values")
    i = 0
    guard = 0
    while edits < n_files:
        guard += 1
        if guard > 10 * n_files + 100:
            raise GenError("not enough workloads to build the PR; use more --objects")
        what = plan_edits[i % len(plan_edits)]
        i += 1
        if what == "isvc":
            u = take("isvc")
            if u is None:
                continue
            replace(u, dataclasses.replace(u, max_num_seqs=u.max_num_seqs * 2))
        elif what in ("helm", "values"):
            u = take("helm")
            if u is None:
                continue
            if what == "helm":
                img = dataclasses.replace(u.image, tag=bump(u.image.tag, 2), digest=_digest(rng))
                replace(u, dataclasses.replace(u, image=img))
            else:
                replace(u, dataclasses.replace(u, log_level="trace"))
        else:
            # a tag bumped while its digest stays needs a digest to begin with
            u = take("deploy", pinned=what == "tag-only")
            if u is None:
                continue
            if what == "image":
                img = dataclasses.replace(u.image, tag=bump(u.image.tag, 2), digest=_digest(rng))
                v = dataclasses.replace(u, image=img)
            elif what == "tag-only":  # the digest stays: the tag lies
                v = dataclasses.replace(u, image=dataclasses.replace(u.image,
                                                                      tag=bump(u.image.tag, 1)))
            elif what == "replicas":
                v = dataclasses.replace(u, replicas=u.replicas + 1)
            else:
                v = dataclasses.replace(u, cpu_m=u.cpu_m * 2, mem_mi=u.mem_mi * 2)
            replace(u, v)
        edits += 1
    old = {}
    for ns_name, units in new_units.items():
        old.update(render_namespace(ns_of[ns_name], plan.units[ns_name], clients))
        new = render_namespace(ns_of[ns_name], units, clients)
        for path, text in new.items():
            if old.get(path) != text:
                changed[path] = text
    if len(changed) != n_files:
        raise GenError(f"PR touches {len(changed)} files, wanted {n_files}")
    return changed


# ---------------------------------------------------------------------------- output


def write_files(root: Path, files: dict[str, str]) -> int:
    total = 0
    made: set[Path] = set()
    for rel, text in files.items():
        p = root / rel
        if p.parent not in made:
            p.parent.mkdir(parents=True, exist_ok=True)
            made.add(p.parent)
        data = text.encode()
        p.write_bytes(data)
        total += len(data)
    return total


def _git(root: Path, *args: str, date: str) -> None:
    env = dict(os.environ, **AUTHOR_ENV, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null",
                    *args], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)


def make_git(root: Path, pr: dict[str, str]) -> None:
    d1, d2 = "2026-01-01T00:00:00+00:00", "2026-01-02T00:00:00+00:00"
    _git(root, "init", "-q", "-b", "main", date=d1)
    _git(root, "add", "-A", date=d1)
    _git(root, "commit", "-q", "-m", "synthetic repository", date=d1)
    if pr:
        _git(root, "checkout", "-q", "-b", "pr", date=d2)
        write_files(root, pr)
        _git(root, "add", "-A", date=d2)
        _git(root, "commit", "-q", "-m", f"synthetic PR touching {len(pr)} files", date=d2)
        _git(root, "checkout", "-q", "main", date=d2)


def check_tree(root: Path) -> dict[str, object]:
    """Parse every YAML file with libyaml (PyYAML's CSafeLoader) and count objects."""
    import yaml  # only for --check

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    objects = 0
    kinds: Counter[str] = Counter()
    files = 0
    missing: list[str] = []
    for p in sorted(root.rglob("*.yaml")):
        if ".git" in p.parts:
            continue
        files += 1
        text = p.read_text()
        for doc in yaml.load_all(text, Loader=loader):
            if isinstance(doc, dict) and "apiVersion" in doc and "kind" in doc:
                objects += 1
                kinds[str(doc["kind"])] += 1
                if p.name == "kustomization.yaml":
                    for r in doc.get("resources", []):
                        if not (p.parent / r).exists():
                            missing.append(f"{p}: {r}")
    return {"files": files, "objects": objects, "kinds": dict(sorted(kinds.items())),
            "missing_resources": missing, "loader": loader.__name__}


def generate(objects: int, out: Path, seed: int, defect_rate: float, git: bool,
             pr_files: int, force: bool, layout: str = "apps", crds: int = 0,
             crds_per_file: int = 1, bundles: int = 20, crd_defects: int = 0
             ) -> dict[str, object]:
    """Write the repository; layout "apps" (a file per app) or "bundle" (see bundle()).

    With crds > 0, that many of the objects are large CustomResourceDefinitions (crd_files).
    The PR (git and pr_files) exists only for the "apps" layout.
    """
    if layout not in ("apps", "bundle"):
        raise GenError(f"unknown layout {layout!r} (apps or bundle)")
    if not 0 <= crds < objects:
        raise GenError(f"--crds must be between 0 and {objects - 1}")
    if out.exists():
        if not force and any(out.iterdir()):
            raise GenError(f"{out} exists and is not empty (use --force to replace it)")
        shutil.rmtree(out)
    t0 = time.perf_counter()
    plan = Planner(objects - crds, seed, defect_rate).plan()
    files = render(plan)
    if layout == "bundle":
        files = bundle(files, bundles)
    if crds:
        files.update(crd_files(crds, crds_per_file, seed, crd_defects))
    t_render = time.perf_counter()
    size = write_files(out, files)
    t_write = time.perf_counter()
    pr = pr_changes(plan, pr_files, seed) if git and pr_files > 0 and layout == "apps" else {}
    if git:
        make_git(out, pr)
    t_git = time.perf_counter()
    flows = [f for units in plan.units.values() for u in units for f in u.flows]
    all_units = [u for units in plan.units.values() for u in units]
    defects = {
        "flows_missing_ingress": sum(f.ingress_missing for f in flows),
        "images_without_digest": Counter(u.kind for u in all_units
                                         if u.kind != "cm" and u.image.digest is None),
        "startup_budget_short": Counter(
            u.kind for u in all_units
            if u.kind in ("deploy", "sts", "isvc", "helm")
            and u.startup_failures * 10 < u.boot_s * 1.5),
        "gpu_rolling_update": sum(u.kind == "isvc" and u.strategy != "Recreate"
                                  for u in all_units),
    }
    return {
        "out": str(out),
        "seed": seed,
        "objects": plan.objects + crds,
        "layout": layout,
        "crds": crds,
        "files": len(files),
        "bytes": size,
        "namespaces": len(plan.namespaces),
        "kinds": dict(sorted(plan.kinds.items())),
        "flows": len(flows),
        "defects": defects,
        "gpu_nodes": len(plan.gpu_nodes),
        "pr_files": sorted(pr),
        "seconds": {"plan_render": round(t_render - t0, 3),
                    "write": round(t_write - t_render, 3),
                    "git": round(t_git - t_write, 3),
                    "total": round(t_git - t0, 3)},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--objects", type=int, required=True, help="exact number of objects")
    ap.add_argument("--out", type=Path, required=True, help="output folder")
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--defect-rate", type=float, default=0.02,
                    help="share of units carrying a deliberate defect (default 0.02)")
    ap.add_argument("--git", action="store_true", help="make a git repo (branch main)")
    ap.add_argument("--pr-files", type=int, default=20,
                    help="with --git: files touched by the commit on branch `pr` (0: none)")
    ap.add_argument("--layout", choices=("apps", "bundle"), default="apps",
                    help="apps: a file per app (default); bundle: the same objects in"
                         " --bundles multi-document files, like release bundles")
    ap.add_argument("--bundles", type=int, default=20, help="files of the bundle layout")
    ap.add_argument("--crds", type=int, default=0,
                    help="of the objects, this many are CustomResourceDefinitions of 1-4 MB")
    ap.add_argument("--crds-per-file", type=int, default=1)
    ap.add_argument("--crd-defects", type=int, default=0,
                    help="of the CRDs, this many carry a schema error at their end (served:"
                         " \"yes\"): findings whose position is looked up in a 1-4 MB document")
    ap.add_argument("--force", action="store_true", help="replace a non-empty --out")
    ap.add_argument("--check", action="store_true",
                    help="re-parse the tree with libyaml and verify the object count")
    args = ap.parse_args(argv)
    try:
        stats = generate(args.objects, args.out, args.seed, args.defect_rate, args.git,
                         args.pr_files, args.force, args.layout, args.crds,
                         args.crds_per_file, args.bundles, args.crd_defects)
        if args.check:
            t0 = time.perf_counter()
            checked = check_tree(args.out)
            checked["seconds"] = round(time.perf_counter() - t0, 3)
            stats["check"] = checked
            if checked["objects"] != args.objects or checked["missing_resources"]:
                print(json.dumps(stats, indent=2))
                print("check FAILED", file=sys.stderr)
                return 1
    except (GenError, OSError, subprocess.CalledProcessError) as e:
        print(f"gen.py: {e}", file=sys.stderr)
        return 2
    print(json.dumps(stats, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
