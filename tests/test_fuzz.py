"""The hostile-input campaign, in the test suite: generated Kubernetes-shaped trees (every kind
the model reads, with wrong types, odd scalars and hostile YAML) and mutated corpus files go
through the real command line. Every run must exit 0, 1 or 2 within a time bound, print valid
JSON, and never print a planted Secret value or token.

Bounded in CI by the ``ci`` profile (tests/conftest.py); longer by hand:
``pytest -m fuzz --hypothesis-profile=long``. Sizes stay small (a few files of a few
documents): a file of thousands of documents is the speed benchmark's business.
"""

from __future__ import annotations

import io
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.cli import main
from reviewbot.report.base import FORMATS

from .helpers import GitRepo, value_paths

pytestmark = pytest.mark.fuzz

TIME_BOUND = 30.0  # seconds per command (the slowest CI example runs well under 2 s)
PLANTED = "planted-s3cr3t-VALUE-7f1c"  # in every Secret: must never be printed
TOKEN = "ghp_planted0token0value0which0never0prints"
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"

# ---------------------------------------------------------------- generated trees

ODD_SCALARS = [  # written plain into the YAML, so they are read as YAML 1.1 reads them
    ".inf", "-.inf", ".nan", "1e400", "1e99999999", '"1e99999999"', '"1e-99999999"', "~",
    "null", "yes", "no", "on", "0x1F", "0o17", "0755", "1_000", "-0", "+12", "12:30:00",
    "2001-12-14", '"\\uD800"', '"\\ud83d\\ude80"', '"\\udc80x"', '"\\x00"', "''", '""',
    "!!binary aGVsbG8=", "!env_var FOO", "!!str 5", "'{{ .Values.x }}'", "'${VAR}'",
    '"' + "9" * 5000 + '"', "9" * 5000, "'" + "a" * 300 + "'", "'-rf'", "'a: b'",
    "'# reviewbot: ignore[schema] x'", "&anchor 5", "[]", "{}", "[1, [2, [3]]]",
]
WRONG_TYPES: list[Any] = [5, -1, 0, 3.5, True, None, "x", [], {}, [5], ["x"], {"a": 5},
                          [None], [{"a": [1]}]]

KINDS: list[tuple[str, str]] = [
    ("apps/v1", "Deployment"), ("apps/v1", "StatefulSet"), ("apps/v1", "DaemonSet"),
    ("apps/v1", "ReplicaSet"), ("batch/v1", "Job"), ("batch/v1", "CronJob"), ("v1", "Pod"),
    ("v1", "Service"), ("v1", "Namespace"), ("v1", "ConfigMap"), ("v1", "Secret"),
    ("networking.k8s.io/v1", "NetworkPolicy"),
    ("policy.networking.k8s.io/v1alpha1", "AdminNetworkPolicy"),
    ("serving.kserve.io/v1beta1", "InferenceService"),
    ("serving.kserve.io/v1alpha1", "ServingRuntime"),
    ("kustomize.toolkit.fluxcd.io/v1", "Kustomization"),
    ("helm.toolkit.fluxcd.io/v2", "HelmRelease"), ("argoproj.io/v1alpha1", "Application"),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"), ("skaffold/v4beta11", "Config"),
    ("networking.k8s.io/v1", "Ingress"), ("route.openshift.io/v1", "Route"),
    ("v1", "PersistentVolumeClaim"), ("rbac.authorization.k8s.io/v1", "RoleBinding"),
]


def _container(i: int) -> dict[str, Any]:
    return {
        "name": f"c{i}", "image": "vllm/vllm-openai:v0.11.0",
        "args": ["--tensor-parallel-size=2", "--max-model-len", "65536",
                 "--disable-custom-all-reduce"],
        "env": [{"name": "URL", "value": "http://svc.other.svc.cluster.local:80"},
                {"name": "S", "valueFrom": {"secretKeyRef": {"name": "s", "key": "token"}}}],
        "ports": [{"containerPort": 8080, "protocol": "TCP"}],
        "resources": {"requests": {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "2"},
                      "limits": {"cpu": "2", "memory": "2Gi", "nvidia.com/gpu": "2"}},
        "startupProbe": {"httpGet": {"path": "/health", "port": 8080},
                         "failureThreshold": 30, "periodSeconds": 10},
        "volumeMounts": [{"name": "shm", "mountPath": "/dev/shm"}],
    }


def _pod_spec() -> dict[str, Any]:
    return {
        "containers": [_container(0)], "initContainers": [_container(1)],
        "nodeSelector": {"kubernetes.io/hostname": "worker-1"},
        "tolerations": [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["worker-1"]}]}]}}},
        "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}],
    }


def skeleton(api: str, kind: str, n: int) -> dict[str, Any]:
    """A plausible object of ``kind``: the fields the model reads are all there to break."""
    meta = {"name": f"o{n}", "namespace": "ns", "labels": {"app": "web"},
            "annotations": {"reviewbot.dev/measured-boot-seconds": "600",
                            "reviewbot.dev/ignore": "gpu-rollout",
                            "reviewbot.dev/ignore-reason": "fuzz"}}
    body: dict[str, Any] = {"apiVersion": api, "kind": kind, "metadata": meta}
    template = {"metadata": {"labels": {"app": "web"}}, "spec": _pod_spec()}
    spec: dict[str, Any]
    if kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"):
        spec = {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template,
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}}}
    elif kind == "Job":
        spec = {"parallelism": 2, "template": template}
    elif kind == "CronJob":
        spec = {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": template}}}
    elif kind == "Pod":
        spec = _pod_spec()
        meta["ownerReferences"] = [{"kind": "ReplicaSet", "name": "rs", "controller": True}]
    elif kind == "Service":
        spec = {"selector": {"app": "web"},
                "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]}
    elif kind == "Secret":
        body["type"] = "Opaque"
        body["stringData"] = {"token": PLANTED}
        body["data"] = {"key": "cGxhbnRlZA=="}
        return body
    elif kind == "ConfigMap":
        body["data"] = {"url": "http://svc.other.svc.cluster.local:8080/x"}
        return body
    elif kind == "Namespace":
        meta.pop("namespace")
        return body
    elif kind == "NetworkPolicy":
        spec = {"podSelector": {"matchLabels": {"app": "web"}},
                "policyTypes": ["Ingress", "Egress"],
                "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {
                    "kubernetes.io/metadata.name": "other"}}, "podSelector": {}}],
                    "ports": [{"protocol": "TCP", "port": 8080, "endPort": 8090}]}],
                "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}},
                                   {"podSelector": {"matchExpressions": [
                                       {"key": "app", "operator": "In", "values": ["db"]}]}}],
                            "ports": [{"port": "http"}]}]}
    elif kind == "AdminNetworkPolicy":
        meta.pop("namespace")
        spec = {"priority": 10, "subject": {"namespaces": {"matchLabels": {"a": "b"}}},
                "ingress": [{"action": "Deny", "from": [{"namespaces": {}}],
                             "ports": [{"portNumber": {"protocol": "TCP", "port": 80}}]}]}
    elif kind == "InferenceService":
        spec = {"predictor": {"minReplicas": 1, "deploymentStrategy": {"type": "Recreate"},
                              "containers": [_container(0)], "nodeSelector": {"a": "b"},
                              "volumes": _pod_spec()["volumes"],
                              "model": {"modelFormat": {"name": "huggingface"},
                                        "runtime": "vllm", "storageUri": "hf://x"}}}
    elif kind == "ServingRuntime":
        spec = {"containers": [_container(0)], "supportedModelFormats": [{"name": "x"}]}
    elif kind == "Kustomization":
        spec = {"path": "./apps", "targetNamespace": "ns", "prune": True,
                "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}
    elif kind == "HelmRelease":
        spec = {"chart": {"spec": {"chart": "app", "version": "1.0.0"}},
                "values": {"image": {"repository": "nginx", "tag": "1.27"},
                           "controllers": {"main": {"containers": {"app": {
                               "image": {"repository": "nginx", "tag": "1"}}}}},
                           "persistence": {"data": {"enabled": True, "globalMounts": [{}]}}},
                "valuesFrom": [{"kind": "ConfigMap", "name": "vals"}], "targetNamespace": "ns"}
    elif kind == "Config":  # skaffold: what it builds (image names) and deploys (globs)
        meta.pop("namespace")
        body["build"] = {"artifacts": [{"image": "nginx"}, {"image": "api", "context": "."}]}
        body["manifests"] = {"rawYaml": ["a.yaml", "k8s/*.yaml"]}
        body["deploy"] = {"kubectl": {"manifests": ["b.yaml"]}}
        body["profiles"] = [{"name": "p", "build": {"artifacts": [{"image": "web"}]},
                             "manifests": {"rawYaml": ["c.yaml"]}}]
        return body
    elif kind == "Ingress":  # the ingress controller's backends (netpol)
        spec = {"defaultBackend": {"service": {"name": "web", "port": {"number": 80}}},
                "rules": [{"http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {
                    "service": {"name": "web", "port": {"name": "http"}}}}]}}]}
    elif kind == "Route":
        spec = {"to": {"kind": "Service", "name": "web"}, "port": {"targetPort": 8080},
                "alternateBackends": [{"kind": "Service", "name": "web2"}]}
    elif kind == "PersistentVolumeClaim":  # change-safety: immutable fields, shrinking storage
        spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                "resources": {"requests": {"storage": "10Gi"}}}
    elif kind == "RoleBinding":  # kustomize's namespace transformer rewrites its subjects
        body["roleRef"] = {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}
        body["subjects"] = [{"kind": "ServiceAccount", "name": "sa", "namespace": "ns"}]
        return body
    elif kind == "Application":
        spec = {"source": {"repoURL": "https://x", "path": "apps"},
                "sources": [{"chart": "c", "helm": {"values": "a: 1"}}],
                "destination": {"namespace": "ns"}}
    else:  # CustomResourceDefinition
        meta.pop("namespace")
        spec = {"group": "example.com", "names": {"kind": "Thing"}, "versions": [
            {"name": "v1", "served": True, "schema": {"openAPIV3Schema": {"type": "object"}}}]}
    body["spec"] = spec
    return body


KUSTOMIZATION = {
    "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
    "namespace": "ns", "resources": ["a.yaml", "b.yaml", "missing.yaml", "../up"],
    "images": [{"name": "nginx", "newTag": "1.28"}],
    "helmCharts": [{"name": "c", "valuesFile": "values.yaml", "valuesInline": {"a": 1}}],
    "configMapGenerator": [{"name": "vals", "files": ["values.yaml=values.yaml"]}],
    "secretGenerator": [{"name": "creds", "literals": [f"password={PLANTED}"]}],
    "patches": [{"path": "a.yaml", "target": {"kind": "Deployment"}}],
}
VALUES = {"image": {"repository": "nginx", "tag": "latest"},
          "resources": {"requests": {"cpu": "1"}}, "auth": {"password": PLANTED}}


class Raw(str):
    """A scalar written into the YAML text as it is (an odd scalar, read as YAML reads it)."""


def _set(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    *parent, last = path
    target = body
    for step in parent:
        target = target[step]
    target[last] = value
    return body


def _protected(path: tuple[Any, ...], body: dict[str, Any]) -> bool:
    """The planted value stays where it is secret: a Secret's values and kind are not mutated
    (a Secret mutated into another kind would rightly show its fields)."""
    if not isinstance(body, dict) or body.get("kind") != "Secret":
        return False
    return (not path or path[0] in ("kind", "apiVersion", "stringData", "data")
            or path == ("metadata",))


@st.composite
def mutated(draw: st.DrawFn, body: dict[str, Any]) -> Any:
    body = json.loads(json.dumps(body))
    paths = [p for p in value_paths(body) if not _protected(p, body)]
    for _ in range(draw(st.integers(0, 4))):
        path = draw(st.sampled_from(paths))
        choice = draw(st.integers(0, 2))
        if choice == 0:
            value: Any = json.loads(json.dumps(draw(st.sampled_from(WRONG_TYPES))))  # a copy
        elif choice == 1:
            value = Raw(draw(st.sampled_from(ODD_SCALARS)))
        else:
            value = draw(st.text(max_size=12))
        try:
            body = _set(body, path, value)
        except (KeyError, IndexError, TypeError):
            continue
        paths = [p for p in value_paths(body) if not _protected(p, body)]
        if not paths:
            break
    return body


def to_yaml(value: Any, indent: int = 0) -> str:
    """Block YAML; strings JSON-quoted (valid YAML) unless ``Raw``."""
    pad = " " * indent
    if isinstance(value, dict) and value:
        lines = []
        for k, v in value.items():
            key = json.dumps(str(k))
            if isinstance(v, (dict, list)) and v:
                lines.append(f"{pad}{key}:\n{to_yaml(v, indent + 2)}")
            else:
                lines.append(f"{pad}{key}: {_scalar(v)}")
        return "\n".join(lines)
    if isinstance(value, list) and value:
        lines = []
        for v in value:
            if isinstance(v, (dict, list)) and v:
                inner = to_yaml(v, indent + 2)
                lines.append(f"{pad}- {inner.lstrip()}")
            else:
                lines.append(f"{pad}- {_scalar(v)}")
        return "\n".join(lines)
    return pad + _scalar(value)


def _scalar(value: Any) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return json.dumps(value)


HOSTILE_TEXTS = [
    "a: &a [1, 2]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
    "x: " + "[" * 300 + "]" * 300 + "\n",
    "a0: &a0 " + "[" * 60 + "1" + "]" * 60 + "\n"
    + "".join(f"a{i}: &a{i} " + "[" * 60 + f"*a{i - 1}" + "]" * 60 + "\n" for i in range(1, 6)),
    "kind: Deployment\nkind: Service\n",
    "a: *undefined\n",
    "\ta: 1\n",
    "key: [unclosed\n",
    "? [complex, key]\n: value\n",
    "<<: *nothing\n",
    "a: {b: c: d}\n",
    "%YAML 1.1\n%TAG ! tag:x,2000:\n--- !foo\na: 1\n",
    "a: !!python/object:os.system echo\n",
    "a: 'it''s' \"\\u0000\"\n",
    "--- |\n  block\n--- >-\n  folded\n...\n",
    "apiVersion: v1\nkind: Secret\nmetadata: {name: t}\nstringData:\n  v: |\n"
    f"    {PLANTED}\n    # reviewbot: ignore[{PLANTED}] leak\n",
    f"apiVersion: v1\nkind: Secret\nmetadata: {{name: u}}\nstringData:\n  token: {PLANTED}"
    "  # reviewbot: ignore[schema] vendor\n",
    "{{ if .Values.x }}\nkind: {{ .Kind }}\n{{ end }}\n",
]
BAD_BYTES = [b"\xff\xfe\x00a", b"\xef\xbb\xbfa: 1\n", b"a: \x00\n", b"a: \xc3\x28\n",
             b"\x1b[31mred\n"]


@st.composite
def documents(draw: st.DrawFn) -> str:
    choice = draw(st.integers(0, 9))
    if choice <= 6:
        api, kind = draw(st.sampled_from(KINDS))
        body = draw(mutated(skeleton(api, kind, draw(st.integers(0, 3)))))
        return to_yaml(body) if draw(st.booleans()) else json.dumps(body)
    if choice == 7:
        return draw(st.sampled_from(HOSTILE_TEXTS))
    if choice == 8:
        return to_yaml(draw(mutated(VALUES)))
    return draw(st.text(max_size=60))


@st.composite
def trees(draw: st.DrawFn) -> dict[str, bytes]:
    files: dict[str, bytes] = {
        # one well-formed Secret always: its value must never be printed
        "secret.yaml": to_yaml(skeleton("v1", "Secret", 9)).encode(),
    }
    names = ["a.yaml", "b.yaml", "apps/c.yaml", "apps/values.yaml", "templates/t.yaml",
             "we ird/ü.yaml", "-rf.yaml"]
    for name in draw(st.lists(st.sampled_from(names), min_size=1, max_size=4, unique=True)):
        docs = draw(st.lists(documents(), min_size=1, max_size=4))
        text = "\n---\n".join(docs) + "\n"
        if draw(st.integers(0, 12)) == 0:
            files[name] = draw(st.sampled_from(BAD_BYTES)) + text.encode("utf-8", "replace")
        else:
            files[name] = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        kz = draw(mutated(KUSTOMIZATION))
        files["kustomization.yaml"] = to_yaml(kz).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        files["apps/values.yaml"] = to_yaml(draw(mutated(VALUES))).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 3)) == 0:
        files[".reviewbot.yaml"] = draw(st.sampled_from(CONFIGS)).encode()
    return files


CONFIGS = [
    "cluster:\n  nodes:\n    - name: worker-1\n      labels: {kubernetes.io/hostname: worker-1}\n"
    "      allocatable: {cpu: '32', memory: 63495Mi, nvidia.com/gpu: '4'}\n",
    "rules: {probe-headroom: {factor: .inf}}\n",
    "rules: {schema: {kubernetes-version: '9.99'}}\n",
    "rules: 5\n",
    "cluster: {nodes: 5}\n",
    "rules: {schema: {kubeconform: ./evil.sh}}\n",
    "[unclosed\n",
]


# ---------------------------------------------------------------- running the command line


@contextmanager
def _time_bound(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no answer within {seconds:.0f} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run(argv: list[str], cwd: Path | None = None) -> tuple[int, str, str]:
    """The command line in-process; stdout is strict UTF-8, as a pipe to a file is."""
    out_bytes, err = io.BytesIO(), io.StringIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="strict", newline="")
    old = sys.stdout, sys.stderr, os.getcwd()
    sys.stdout, sys.stderr = out, err
    started = time.monotonic()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with _time_bound(TIME_BOUND):
            code = main(argv)
        out.flush()
    finally:
        sys.stdout, sys.stderr = old[0], old[1]
        os.chdir(old[2])
    elapsed = time.monotonic() - started
    assert elapsed < TIME_BOUND, f"{argv[0]} took {elapsed:.1f} s"
    return code, out_bytes.getvalue().decode("utf-8"), err.getvalue()


def check(code: int, out: str, err: str, fmt: str = "json") -> None:
    assert code in (0, 1, 2), f"exit {code}: {err[-500:]}"
    assert PLANTED not in out + err and TOKEN not in out + err
    if code != 2 and fmt == "json":
        data = json.loads(out)
        assert isinstance(data["findings"], list)


def _write(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


@given(files=trees(), fmt=st.sampled_from(FORMATS))
def test_generated_trees_lint_cleanly(files: dict[str, bytes], fmt: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write(root, files)
        check(*run(["lint", ".", "--format", "json"], cwd=root))
        code, out, err = run(["lint", ".", "--format", fmt], cwd=root)
        check(code, out, err, fmt)


@settings(max_examples=max(10, settings.default.max_examples // 4))  # two commits and two runs each
@given(base=trees(), head=trees())
def test_generated_changes_review_cleanly(base: dict[str, bytes], head: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = GitRepo(Path(tmp) / "repo")
        _write(repo.path, base)
        first = repo.commit()
        for child in list(repo.path.iterdir()):
            if child.name != ".git":
                _rmtree(child)
        _write(repo.path, head)
        second = repo.commit()
        os.environ["GITHUB_TOKEN"] = TOKEN
        try:
            check(*run(["review", "--repo", str(repo.path), "--base", first, "--head", second,
                        "--platform", "none", "--format", "json", "--scope", "all"]))
            code, out, err = run(["diff", first, second, "--repo", str(repo.path),
                                  "--format", "json"])
            assert code in (0, 2), err[-500:]
            assert PLANTED not in out + err
            if code == 0:
                json.loads(out)
        finally:
            os.environ.pop("GITHUB_TOKEN", None)


def _rmtree(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        for child in path.iterdir():
            _rmtree(child)
        path.rmdir()
    else:
        path.unlink()


# ---------------------------------------------------------------- mutated corpus files


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    found = sorted(p for p in CORPUS.rglob("*.y*ml") if p.is_file() and p.stat().st_size < 16_000)
    return random.Random(13).sample(found, min(len(found), 400))


CORPUS_FILES = _corpus_files()
INSERTS = [t for t in HOSTILE_TEXTS if PLANTED not in t]


def _mutate(data: bytes, draw: st.DrawFn) -> bytes:
    lines = data.split(b"\n")
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [b""]
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.integers(0, 7))
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            lines[i] = b"  " + lines[i] if draw(st.booleans()) else lines[i].lstrip()
        elif op == 4:
            key, _, _ = lines[i].partition(b":")
            odd = draw(st.sampled_from(ODD_SCALARS)).encode("utf-8", "surrogatepass")
            lines[i] = key + b": " + odd if key.strip() else odd
        elif op == 5:
            lines = lines[: i + 1]
        elif op == 6 and lines[i]:
            j = draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:j] + bytes([draw(st.integers(0, 255))]) + lines[i][j + 1:]
        else:
            text = draw(st.sampled_from(INSERTS))  # (a Secret spliced into another object
            lines.insert(i, text.encode("utf-8", "surrogatepass"))  # is no Secret: no plant)
    return b"\n".join(lines)


@pytest.mark.skipif(not CORPUS_FILES, reason="the shared corpus is not beside the clone")
@settings(max_examples=settings.default.max_examples * 2)  # one small file each: cheap
@given(data=st.data())
def test_mutated_corpus_files_lint_cleanly(data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(CORPUS_FILES))
    original = source.read_bytes()
    mutated_bytes = data.draw(st.composite(lambda draw: _mutate(original, draw))())
    secret = to_yaml(skeleton("v1", "Secret", 9)).encode()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write(root, {source.name: mutated_bytes, "secret.yaml": secret})
        check(*run(["lint", ".", "--format", "json"], cwd=root))
