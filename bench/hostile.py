"""Hostile shapes that once blew up lint or review, generated for measuring by hand.

    python bench/hostile.py dense --workloads 1000 --out /tmp/dense-1k [--calls 100]
    python bench/hostile.py aliases --keys 35000 --copies 9 --out /tmp/aliases

``dense``: N workloads in one namespace, each with a Service and a NetworkPolicy allowed out
to every pod labelled ``tier: api`` (all of them) on 8080 and admitting only the workload
before it: N x (N - 1) unadmitted (caller, destination) pairs. ``--calls K`` adds K env URLs
per workload naming the next K Services (the first admits it, the others do not).

``aliases``: a git repository of two commits whose one file holds a mapping of --keys
entries aliased --copies times (under the loader's per-file expansion bound), every value
changed by the second commit; review it with ``--base HEAD~1 --head HEAD``.

Measured on the 2-core machine (``/usr/bin/time -v``), before and after the fixes:

    reviewbot lint /tmp/dense-1k --format json --rule netpol-pairing
        999,000 findings, 416 MB JSON, 3.2 GB max RSS, 53 s user  ->  1,000, 0.5 MB, 0.5 GB, 24 s
    reviewbot review --repo /tmp/aliases --base HEAD~1 --head HEAD --platform none --format json
        (35,000 keys x 9 copies, 888 KB) 45 s user, 1.6 GB, 63 MB JSON  ->  1.0 s, 66 MB, 0.7 KB

``fleet``: what a GitOps repository's roots apply, --apps N times over: per cluster
(--clusters C) a Flux bootstrap (``clusters/<c>/flux-system/gotk-sync.yaml``) applying
``clusters/<c>``, whose Kustomization ``apps`` builds ``fleet/`` with patches for every child
Kustomization (JJGadgets' shape) and postBuild values from the cluster's ConfigMap; ``fleet/``
lists N Flux Kustomizations, each applying ``apps/app-<i>`` (a Deployment whose image names
``${REGISTRY}``, a Service, a ConfigMap) into its own namespace (``--generated``: ``fleet/``
holds no kustomization.yaml, kustomize-controller generates it). ``--argo``: the same apps as
Argo CD Applications of one app of apps (``argocd/root.yaml`` applies ``argocd/apps``) instead.
Every object file is reached: C x 4N objects applied. ``bench/reach.py`` times the walk at
N, 2N and 4N.

Only the standard library (and git for ``aliases``) is needed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

DIGEST = "sha256:" + "a" * 64


def dense(out: Path, workloads: int, calls: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "base.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: dense}\n---\n"
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
        "metadata: {name: default-deny, namespace: dense}\n"
        "spec: {podSelector: {}, policyTypes: [Ingress, Egress]}\n"
    )
    n = workloads
    for i in range(n):
        env = "".join(
            f"\n            - {{name: U{j - 1}, value: 'http://w{(i + j) % n}.dense:8080'}}"
            for j in range(1, calls + 1)) or " []"
        (out / f"w{i}.yaml").write_text(f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: w{i}, namespace: dense}}
spec:
  selector: {{matchLabels: {{app: w{i}}}}}
  template:
    metadata: {{labels: {{app: w{i}, tier: api}}}}
    spec:
      containers:
        - name: c
          image: x@{DIGEST}
          ports: [{{containerPort: 8080}}]
          env:{env}
---
apiVersion: v1
kind: Service
metadata: {{name: w{i}, namespace: dense}}
spec: {{selector: {{app: w{i}}}, ports: [{{port: 8080}}]}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: w{i}, namespace: dense}}
spec:
  podSelector: {{matchLabels: {{app: w{i}}}}}
  policyTypes: [Ingress, Egress]
  egress:
    - to:
        - podSelector: {{matchLabels: {{tier: api}}}}
      ports: [{{protocol: TCP, port: 8080}}]
  ingress:
    - from:
        - podSelector: {{matchLabels: {{app: w{(i - 1) % n}}}}}
      ports: [{{protocol: TCP, port: 8080}}]
""")


def _aliased(keys: int, copies: int, value: str) -> str:
    lines = ["apiVersion: example.com/v1", "kind: Blob", "metadata: {name: b0, namespace: x}",
             "spec:", "  base: &big"]
    lines += [f"    k{i}: value-{i}-{value}" for i in range(keys)]
    lines += ["  copies:"] + ["    - *big"] * copies
    return "\n".join(lines) + "\n"


def aliases(out: Path, keys: int, copies: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", "-C", str(out), "init", "-q", "-b", "main"], check=True)
    for value in ("a", "b"):
        (out / "blob.yaml").write_text(_aliased(keys, copies, value))
        subprocess.run(["git", "-C", str(out), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(out), *env, "commit", "-q", "-m", value], check=True)


def _write(out: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _flux(name: str, path: str, extra: str = "") -> str:
    return f"""apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {{name: {name}, namespace: flux-system}}
spec:
  interval: 10m
  path: {path}
  prune: true
  sourceRef: {{kind: GitRepository, name: flux-system}}
{extra}"""


def _app(i: int) -> dict[str, str]:
    name = f"app-{i:05d}"
    return {
        f"apps/{name}/kustomization.yaml": "resources: [deploy.yaml, service.yaml, config.yaml]\n",
        f"apps/{name}/deploy.yaml": f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, labels: {{app: {name}}}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
        - name: web
          image: ${{REGISTRY}}/{name}@{DIGEST}
          env: [{{name: CLUSTER, value: "${{CLUSTER}}"}}]
          ports: [{{containerPort: 8080}}]
          resources:
            requests: {{cpu: 10m, memory: 16Mi}}
            limits: {{cpu: 100m, memory: 64Mi}}
""",
        f"apps/{name}/service.yaml": f"""apiVersion: v1
kind: Service
metadata: {{name: {name}}}
spec:
  selector: {{app: {name}}}
  ports: [{{port: 80, targetPort: 8080}}]
""",
        f"apps/{name}/config.yaml": f"""apiVersion: v1
kind: ConfigMap
metadata: {{name: {name}}}
data: {{cluster: "${{CLUSTER}}", replicas: "1"}}
""",
    }


def fleet(out: Path, apps: int, clusters: int, argo: bool, generated: bool = False) -> None:
    files: dict[str, str] = {}
    for i in range(apps):
        name = f"app-{i:05d}"
        files.update(_app(i))
        if argo:
            files[f"argocd/apps/{name}.yaml"] = f"""apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: {name}, namespace: argocd}}
spec:
  project: default
  source: {{repoURL: "https://git.example.com/fleet.git", path: apps/{name}}}
  destination: {{server: "https://kubernetes.default.svc", namespace: {name}}}
"""
        else:
            files[f"fleet/{name}.yaml"] = _flux(name, f"./apps/{name}", f"""\
  targetNamespace: {name}
  postBuild:
    substitute: {{APP: {name}}}
""")
    if argo:
        files["argocd/root.yaml"] = """apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: root, namespace: argocd}
spec:
  project: default
  source: {repoURL: "https://git.example.com/fleet.git", path: argocd/apps}
  destination: {server: "https://kubernetes.default.svc", namespace: argocd}
"""
        _write(out, files)
        return
    if not generated:  # else kustomize-controller generates it: every manifest of fleet/
        files["fleet/kustomization.yaml"] = "resources:\n" + "".join(
            f"  - app-{i:05d}.yaml\n" for i in range(apps))
    for c in range(clusters):
        cluster = f"cluster-{c}"
        files[f"clusters/{cluster}/flux-system/gotk-sync.yaml"] = f"""\
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {{name: flux-system, namespace: flux-system}}
spec: {{interval: 1m, url: "https://git.example.com/fleet.git", ref: {{branch: main}}}}
---
{_flux("flux-system", f"./clusters/{cluster}")}"""
        files[f"clusters/{cluster}/flux-system/kustomization.yaml"] = \
            "resources: [gotk-sync.yaml]\n"
        files[f"clusters/{cluster}/settings.yaml"] = f"""apiVersion: v1
kind: ConfigMap
metadata: {{name: cluster-settings, namespace: flux-system}}
data: {{CLUSTER: {cluster}, REGISTRY: registry-{c}.example.com}}
"""
        files[f"clusters/{cluster}/apps.yaml"] = _flux("apps", "./fleet", """\
  postBuild:
    substitute: {TIER: apps}
  patches:
    - target: {group: kustomize.toolkit.fluxcd.io, kind: Kustomization}
      patch: |
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata: {name: any}
        spec:
          postBuild:
            substituteFrom:
              - {kind: ConfigMap, name: cluster-settings}
""")
    _write(out, files)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="shape", required=True)
    d = sub.add_parser("dense")
    d.add_argument("--workloads", type=int, default=1000)
    d.add_argument("--calls", type=int, default=0)
    d.add_argument("--out", type=Path, required=True)
    a = sub.add_parser("aliases")
    a.add_argument("--keys", type=int, default=35000)
    a.add_argument("--copies", type=int, default=9)
    a.add_argument("--out", type=Path, required=True)
    f = sub.add_parser("fleet")
    f.add_argument("--apps", type=int, default=1000)
    f.add_argument("--clusters", type=int, default=2)
    f.add_argument("--argo", action="store_true")
    f.add_argument("--generated", action="store_true")
    f.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.shape == "dense":
        dense(args.out, args.workloads, args.calls)
    elif args.shape == "fleet":
        fleet(args.out, args.apps, args.clusters, args.argo, args.generated)
    else:
        aliases(args.out, args.keys, args.copies)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
