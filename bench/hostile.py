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
    args = parser.parse_args(argv)
    if args.shape == "dense":
        dense(args.out, args.workloads, args.calls)
    else:
        aliases(args.out, args.keys, args.copies)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
