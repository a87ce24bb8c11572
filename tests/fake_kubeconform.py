"""A stand-in for the kubeconform binary (tests only; no network, no schemas).

It reads the YAML/JSON stream on stdin the way kubeconform does (documents split on ``---``
lines), judges each resource with a few hard-coded rules that mimic kubeconform's strict
validation messages, and prints kubeconform's real ``-output json`` format (v0.6+):

    {"resources": [{"filename": "stdin", "kind": ..., "name": ..., "version": ...,
                    "status": "statusInvalid", "msg": "...",
                    "validationErrors": [{"path": "/spec/replicas", "msg": "..."}]}],
     "summary": {"valid": 1, "invalid": 1, "errors": 0, "skipped": 1}}

Results come out in reverse order, as concurrent workers may deliver them. Environment:
FAKE_KUBECONFORM_LOG (write argv and stdin there), FAKE_KUBECONFORM_FORMAT=legacy (no
``validationErrors``; the pointer only inside ``msg``, as kubeconform before v0.6 printed),
FAKE_KUBECONFORM_EXIT (exit code; kubeconform exits 1 when anything is invalid).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

KNOWN = {("apps/v1", "Deployment"), ("v1", "Secret"), ("v1", "ConfigMap"), ("v1", "Service")}
CONTAINER_FIELDS = {"name", "image", "args", "command", "env", "ports", "resources",
                    "imagePullPolicy", "volumeMounts"}


def judge(doc: dict[str, Any]) -> list[tuple[str, str]]:
    errors: list[tuple[str, str]] = []
    spec: dict[str, Any] = doc["spec"] if isinstance(doc.get("spec"), dict) else {}
    if doc.get("kind") == "Deployment":
        if "replicas" in spec and not isinstance(spec["replicas"], int):
            kind = type(spec["replicas"]).__name__.replace("str", "string")
            errors.append(("/spec/replicas", f"expected integer or null, but got {kind}"))
        containers = (((spec.get("template") or {}).get("spec") or {}).get("containers")) or []
        for i, c in enumerate(containers):
            extra = sorted(set(c) - CONTAINER_FIELDS)
            if extra:
                names = ", ".join(f"'{k}'" for k in extra)
                errors.append((f"/spec/template/spec/containers/{i}",
                               f"additionalProperties {names} not allowed"))
            if "name" not in c:
                errors.append((f"/spec/template/spec/containers/{i}", "missing properties: 'name'"))
    if doc.get("kind") == "Secret":
        for key, value in (doc.get("data") or {}).items():
            if not isinstance(value, str):
                errors.append((f"/data/{key}", "expected string or null, but got number"))
            elif value.startswith("!"):
                pattern = "'^[A-Za-z0-9+/=]*$'"
                errors.append((f"/data/{key}", f"'{value}' does not match pattern {pattern}"))
    return errors


def main() -> int:
    stdin = sys.stdin.read()
    log = os.environ.get("FAKE_KUBECONFORM_LOG")
    if log:
        with open(log, "w", encoding="utf-8") as fh:
            json.dump({"argv": sys.argv[1:], "stdin": stdin}, fh)
    legacy = os.environ.get("FAKE_KUBECONFORM_FORMAT") == "legacy"
    parts: list[list[str]] = [[]]
    for line in stdin.splitlines():
        if line.strip() == "---":
            parts.append([])
        else:
            parts[-1].append(line)
    docs = [json.loads("\n".join(p)) for p in parts if "".join(p).strip()]
    results = []
    counts = {"valid": 0, "invalid": 0, "errors": 0, "skipped": 0}
    for doc in docs:
        meta = doc.get("metadata") or {}
        entry: dict[str, Any] = {
            "filename": "stdin", "kind": doc.get("kind", ""), "name": meta.get("name", ""),
            "version": doc.get("apiVersion", ""), "status": "statusValid", "msg": "",
        }
        if (doc.get("apiVersion"), doc.get("kind")) not in KNOWN:
            entry["status"] = "statusSkipped"
            counts["skipped"] += 1
        elif errors := judge(doc):
            entry["status"] = "statusInvalid"
            schema = "https://example.invalid/schema.json#/properties"
            entry["msg"] = " - ".join(
                f"problem validating schema. Check JSON formatting: jsonschema: '{p}' "
                f"does not validate with {schema}: {m}" for p, m in errors
            )
            if not legacy:
                entry["validationErrors"] = [{"path": p, "msg": m} for p, m in errors]
            counts["invalid"] += 1
        else:
            counts["valid"] += 1
        results.append(entry)
    out: dict[str, Any] = {"resources": list(reversed(results))}
    if "-summary" in sys.argv:
        out["summary"] = counts
    print(json.dumps(out, indent=2))
    return int(os.environ.get("FAKE_KUBECONFORM_EXIT", "1" if counts["invalid"] else "0"))


if __name__ == "__main__":
    sys.exit(main())
