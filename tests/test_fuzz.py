"""The hostile-input campaign, in the test suite: generated Kubernetes-shaped trees (every kind
the model reads, with wrong types, odd scalars and hostile YAML) and mutated corpus files go
through the real command line. Every run must exit 0, 1 or 2 within 20 s of CPU and 1 GiB resident
(each runs in a forked child, measured), print valid JSON, no control character and no line
that starts a workflow command, and never a planted Secret value, ciphertext or token.

Bounded in CI by the ``ci`` profile (tests/conftest.py); longer by hand:
``pytest -m fuzz --hypothesis-profile=long`` (or ``REVIEWBOT_FUZZ_PROFILE=long``, with
``REVIEWBOT_FUZZ_EXAMPLES=N`` examples per test). Sizes stay small (a few files of a few
documents): a file of thousands of documents is the speed benchmark's business.
"""

from __future__ import annotations

import copy
import json
import os
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.report.formats import FORMATS

from .helpers import (
    Bounded,
    GitRepo,
    assert_log_safe,
    assert_markdown_safe,
    bounded_cli,
    value_paths,
)

pytestmark = pytest.mark.fuzz

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


def run(argv: list[str], cwd: Path | None = None) -> tuple[int, str, str]:
    """The command line in a forked child (stdout strict UTF-8, as a pipe to a file is),
    held to 20 s of CPU and 1 GiB resident."""
    done = bounded_cli(argv, cwd)
    done.assert_bounded(" ".join(argv))
    return done.code, done.out, done.err


def check(code: int, out: str, err: str, fmt: str = "json") -> None:
    assert code in (0, 1, 2), f"exit {code}: {err[-1500:]}"
    assert PLANTED not in out + err and TOKEN not in out + err
    for text, stream in ((out, "stdout"), (err, "stderr")):
        assert_log_safe(text, stream)
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


# ---------------------------------------------------------------- hostile shapes (issue 29)
# Names that are no UTF-8 or hold control characters, control characters in values, inline
# patches that write a Secret, SOPS files, deep and diamond kustomization graphs, huge rule
# lists and Flux paths many Kustomizations apply. Each command runs in a forked child
# (helpers.bounded_cli): every case stays under 20 s of CPU and 1 GiB resident, prints no
# control character and no line that starts a workflow command, and no Secret value,
# ciphertext or token. The long profile makes the graphs and lists larger.

CIPHER = "planted0CIPHER0text"  # in every ENC[...] and sops: blob: must never be printed
EVILS = [
    "e\x1b[31mred", "osc\x1b]0;title\x07", "cr\rCR", "bidi\u202e", "nl\n::error file=a::PWNED",
    "::warning::PWNED", "##[error]legacy", "nul\x00", "del\x7f", "c1\x9b31m", "ls\u2028x",
    "nel\x85x", "zw\u200b", "bom\ufeff", "tick`@team <img src=x> <!-- ", "\t::error::tab",
]
EVIL_ALPHABET = list("ab:#[]!@<>`- \n\r\t\x00\x07\x1b\x7f\x85\x9b\u200b\u202e\u2028\ufeff")
NAMES = [  # file names a pull request can add (bytes: some are no UTF-8)
    b"bad\xff.yaml", b"\xc3\x28.yaml", b"dir\xfe/x.yaml", b"esc\x1b[31m.yaml",
    b"nl\n::error file=x::NL.yaml", b"::error::PWNED.yaml", b"cr\rbell\x07.yaml",
    "bidi\u202e.yaml".encode(), "ls\u2028.yaml".encode(), b"tick`@team <img src=x> <!--.yaml",
    b"##[error]x.yaml", b"q\"uote\\.yaml", b"tab\t.yaml", b"-rf.yaml",
]


def _long() -> bool:
    """The long profile is running (graphs and lists grow with it)."""
    return settings.default.max_examples > 100


def evil_text() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(EVILS),
                     st.text(alphabet=st.sampled_from(EVIL_ALPHABET), min_size=1, max_size=16))


def _workload(name: str, container: str = "c", image: str = "web:latest",
              ns: str = "shop", labels: dict[str, str] | None = None) -> dict[str, Any]:
    labels = labels or {"app": "web"}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"selector": {"matchLabels": labels}, "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": container, "image": image}]}}}}


def _secret(name: str, values: dict[str, str], ns: str = "shop") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": ns},
            "type": "Opaque", "stringData": values}


def _docs(*bodies: Any) -> bytes:
    return ("\n---\n".join(to_yaml(b) for b in bodies) + "\n").encode("utf-8", "surrogatepass")


Shape = dict[str, Any]  # what a shape drew; _files(shape, side) writes one side of a PR


@st.composite
def named_files(draw: st.DrawFn) -> Shape:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
    return {"shape": "names", "names": names, "listed": draw(st.booleans()),
            "values": [draw(evil_text()) for _ in names]}


@st.composite
def evil_values(draw: st.DrawFn) -> Shape:
    fields = ["name", "container", "image", "namespace", "label", "annotation", "port"]
    return {"shape": "values",
            "set": {f: draw(evil_text()) for f in draw(st.lists(
                st.sampled_from(fields), min_size=1, max_size=len(fields), unique=True))}}


@st.composite
def secret_patches(draw: st.DrawFn) -> Shape:
    kinds = ["json6902", "smp", "psm", "json6902-path", "psm-file"]
    return {"shape": "patches",
            "kinds": draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=5)),
            "keys": [draw(st.one_of(st.sampled_from(["token", "pass word", "a/b", "~1"]),
                                    evil_text())) for _ in range(5)],
            "target": draw(st.sampled_from([{"kind": "Secret", "name": "db"},
                                            {"kind": "Secret"}, {"name": "db"}]))}


@st.composite
def sops_files(draw: st.DrawFn) -> Shape:
    return {"shape": "sops", "keys": draw(st.lists(
                st.sampled_from(["password", "user", "token", "a.b", "tls.crt"]),
                min_size=1, max_size=4, unique=True)),
            "recipients": draw(st.lists(st.sampled_from(["age1aaa", "age1bbb", "age1ccc"]),
                                        min_size=0, max_size=3, unique=True)),
            "head_recipients": draw(st.lists(st.sampled_from(["age1aaa", "age1bbb"]),
                                             max_size=2, unique=True)),
            "regex": draw(st.sampled_from(["^(data|stringData)$", "^password$", "[", None])),
            "plain": draw(st.booleans()), "block": draw(st.integers(0, 4)) != 0,
            "values_file": draw(st.booleans()), "mutations": draw(st.integers(0, 3)),
            "seed": draw(st.integers(0, 2**16))}


@st.composite
def kustomize_graphs(draw: st.DrawFn) -> Shape:
    return {"shape": "graph", "form": draw(st.sampled_from(["chain", "diamond", "cycle"])),
            "depth": draw(st.integers(1, 80 if _long() else 30)),
            "levels": draw(st.integers(1, 10 if _long() else 6)),
            "objects": draw(st.integers(1, 4))}


@st.composite
def rule_lists(draw: st.DrawFn) -> Shape:
    return {"shape": "rules", "count": draw(st.integers(1, 4000 if _long() else 300)),
            "distinct": draw(st.integers(1, 300)), "ports": draw(st.integers(1, 5)),
            "seed": draw(st.integers(0, 2**16)), "kind": draw(st.sampled_from(
                ["ingress", "egress", "both"]))}


@st.composite
def flux_fanout(draw: st.DrawFn) -> Shape:
    return {"shape": "fanout", "appliers": draw(st.integers(1, 120 if _long() else 25)),
            "objects": draw(st.integers(1, 40 if _long() else 10)),
            "clusters": draw(st.integers(1, 3)), "substitute": draw(st.booleans())}


SHAPES = [named_files(), evil_values(), secret_patches(), sops_files(), kustomize_graphs(),
          rule_lists(), flux_fanout()]


def _files(shape: Shape, side: int) -> dict[str, bytes]:
    """The files of one shape on one side of a pull request (0 base, 1 head)."""
    return _WRITERS[shape["shape"]](shape, side)


def _names(shape: Shape, side: int) -> dict[str, bytes]:
    files = {}
    for i, (raw, value) in enumerate(zip(shape["names"], shape["values"], strict=True)):
        image = "web:latest" if side else f"web:1@sha256:{'a' * 64}"
        files["names/" + os.fsdecode(raw)] = _docs(_workload(f"n{i}", image=image),
                                                   _secret(f"s{i}", {value: PLANTED}))
    if shape["listed"]:  # a kustomization names them (as YAML can: escaped)
        listed = [os.fsdecode(n) for n in shape["names"] if b"/" not in n]
        files["names/kustomization.yaml"] = _docs({"resources": listed})
    return files


def _values(shape: Shape, side: int) -> dict[str, bytes]:
    got = shape["set"]
    body = _workload(got.get("name", "w"), got.get("container", "c"),
                     got.get("image", "web:latest") + (":2" if side else ""),
                     got.get("namespace", "shop"),
                     {"app": got["label"]} if "label" in got else None)
    if "annotation" in got:
        body["metadata"]["annotations"] = {got["annotation"]: got["annotation"],
                                           "reviewbot.dev/ignore": got["annotation"]}
    if "port" in got:
        body["spec"]["template"]["spec"]["containers"][0]["ports"] = [
            {"name": got["port"], "containerPort": 8080}]
    policy = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
              "metadata": {"name": got.get("name", "p"), "namespace": got.get("namespace", "shop")},
              "spec": {"podSelector": {"matchLabels": body["metadata"]["labels"]},
                       "policyTypes": ["Ingress"],
                       "ingress": [{"ports": [{"port": got.get("port", 80)}]}]}}
    return {"values/w.yaml": _docs(body, policy, _secret("s", {"k": PLANTED}))}


def _patches(shape: Shape, side: int) -> dict[str, bytes]:
    keys = shape["keys"]
    planted = f"{PLANTED}-{side}"
    secret = _secret("db", {"password": PLANTED})
    patches: list[Any] = []
    merges: list[Any] = []
    files: dict[str, bytes] = {"patches/secret.yaml": _docs(secret)}
    for i, kind in enumerate(shape["kinds"]):
        key = keys[i % len(keys)]
        pointer = "/stringData/" + key.replace("~", "~0").replace("/", "~1")
        ops = [{"op": "add", "path": pointer, "value": planted},
               {"op": "replace", "path": "/stringData/password", "value": planted}]
        merge = _secret("db", {key: planted})
        if kind == "json6902":
            patches.append({"target": shape["target"], "patch": to_yaml(ops)})
        elif kind == "json6902-path":
            files[f"patches/p{i}.yaml"] = _docs(ops)
            patches.append({"target": shape["target"], "path": f"p{i}.yaml"})
        elif kind == "smp":
            patches.append({"patch": to_yaml(merge)})
        elif kind == "psm":
            merges.append(to_yaml(merge))
        else:
            files[f"patches/m{i}.yaml"] = _docs(merge)
            merges.append(f"m{i}.yaml")
    kustomization: dict[str, Any] = {"resources": ["secret.yaml"]}
    if patches:
        kustomization["patches"] = patches
    if merges:
        kustomization["patchesStrategicMerge"] = merges
    files["patches/kustomization.yaml"] = _docs(kustomization)
    return files


def _enc(shape: Shape, side: int, key: str) -> str:
    return (f"ENC[AES256_GCM,data:{CIPHER}{side}{key},iv:{CIPHER}iv{side},"
            f"tag:{CIPHER}tag==,type:str]")


def _sops(shape: Shape, side: int) -> dict[str, bytes]:
    keys = shape["keys"]
    values = {k: _enc(shape, side if i == 0 else 0, k) for i, k in enumerate(keys)}
    if shape["plain"] and side:
        values["added"] = PLANTED
    recipients = shape["head_recipients"] if side else shape["recipients"]
    body = _secret("enc", values)
    if shape["block"]:
        block: dict[str, Any] = {
            "age": [{"recipient": r, "enc": f"-----BEGIN AGE ENCRYPTED FILE-----\n{CIPHER}{r}\n"
                     "-----END AGE ENCRYPTED FILE-----\n"} for r in recipients],
            "lastmodified": f"2024-0{1 + side}-01T00:00:00Z",
            "mac": f"ENC[AES256_GCM,data:{CIPHER}mac{side},iv:x,tag:y,type:str]",
            "version": "3.8.1"}
        if shape["regex"] is not None:
            block["encrypted_regex"] = shape["regex"]
        body["sops"] = block
    body = _mutate_sops(body, shape, side)
    files = {"sops/enc.sops.yaml": _docs(body)}
    if shape["values_file"]:
        values_doc = {"db": {"password": _enc(shape, side, "v"), "host": "db"},
                      "sops": {"mac": _enc(shape, side, "mac"), "encrypted_regex": "^password$"}}
        files["sops/values.yaml"] = _docs(values_doc)
    return files


def _mutate_sops(body: dict[str, Any], shape: Shape, side: int) -> dict[str, Any]:
    """Wrong types where a SOPS reader looks (the sops: block, its recipients, the values):
    the ciphertext and the Secret's values stay where they are."""
    rng = random.Random(shape["seed"] + side)
    wrong: list[Any] = [5, None, "x", [], {}, [5], {"a": [1]}, True]

    def any_wrong() -> Any:  # a copy each time: a shared {} set inside itself is a cycle
        return copy.deepcopy(rng.choice(wrong))

    for _ in range(shape["mutations"]):
        block = body.get("sops")
        where = rng.randrange(4)
        if where == 0 and isinstance(block, dict):
            block[rng.choice(["age", "pgp", "lastmodified", "encrypted_regex", "kms",
                              "unencrypted_suffix", "mac"])] = any_wrong()
        elif where == 1 and isinstance(block, dict) and isinstance(block.get("age"), list) and (
                block["age"]):  # (a mutation before may have made it a mapping or a number)
            recipient = rng.choice(block["age"])
            if isinstance(recipient, dict):
                recipient["recipient"] = any_wrong()
        elif where == 2:
            body["sops"] = any_wrong()
        else:
            body["stringData"]["nested"] = {"list": [_enc(shape, side, "n")]}
    return body


def _graph(shape: Shape, side: int) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    image = "web:latest" if side else "web:1"
    leaf = _docs(*[_workload(f"g{i}", image=image) for i in range(shape["objects"])])
    if shape["form"] == "diamond":  # two folders per level, each listing both of the next
        levels = shape["levels"]
        for level in range(levels):
            below = [f"../l{level + 1}a", f"../l{level + 1}b"] if level + 1 < levels else [
                "../leaf"]
            for half in "ab":
                files[f"graph/l{level}{half}/kustomization.yaml"] = _docs(
                    {"resources": below, "namePrefix": half, "commonLabels": {"l": half}})
        files["graph/leaf/kustomization.yaml"] = _docs({"resources": ["w.yaml"]})
        files["graph/leaf/w.yaml"] = leaf
        return files
    depth = shape["depth"]
    for level in range(depth):
        below = f"../k{level + 1}" if level + 1 < depth else "w.yaml"
        if shape["form"] == "cycle" and level + 1 == depth:
            below = "../k0"
        files[f"graph/k{level}/kustomization.yaml"] = _docs(
            {"resources": [below], "namespace": f"n{level % 3}"})
    files[f"graph/k{depth - 1}/w.yaml"] = leaf
    return files


def _rules(shape: Shape, side: int) -> dict[str, bytes]:
    count, distinct, ports = shape["count"], shape["distinct"], shape["ports"]
    rules = [(f"10.{i % distinct // 250}.{i % distinct % 250}.0/24", 80 + i % ports)
             for i in range(count)]
    if side:  # half of them changed, shuffled
        rules = [(c, p + 10) if i % 2 else (c, p) for i, (c, p) in enumerate(rules)]
        random.Random(shape["seed"]).shuffle(rules)
    spec: dict[str, Any] = {"podSelector": {}, "policyTypes": []}
    if shape["kind"] in ("ingress", "both"):
        spec["policyTypes"].append("Ingress")
        spec["ingress"] = [{"from": [{"ipBlock": {"cidr": c}}],
                            "ports": [{"port": p, "protocol": "TCP"}]} for c, p in rules]
    if shape["kind"] in ("egress", "both"):
        spec["policyTypes"].append("Egress")
        spec["egress"] = [{"to": [{"ipBlock": {"cidr": c}}],
                           "ports": [{"port": p, "protocol": "UDP"}]} for c, p in rules]
    policy = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
              "metadata": {"name": "big", "namespace": "shop"}, "spec": spec}
    return {"rules/np.yaml": _docs(policy, _workload("w"))}


def _fanout(shape: Shape, side: int) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    image = "web:latest" if side else "web:1"
    files["fan/apps/w.yaml"] = _docs(*[_workload(f"f{i}", image=image, ns="${NS:=shop}"
                                                 if shape["substitute"] else "shop")
                                       for i in range(shape["objects"])])
    for cluster in range(shape["clusters"]):
        appliers = []
        for i in range(shape["appliers"]):
            spec: dict[str, Any] = {"path": "./fan/apps", "interval": "10m", "prune": True,
                                    "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}
            if shape["substitute"]:
                spec["postBuild"] = {"substitute": {"NS": f"ns{i % 7}"}}
            appliers.append({"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
                             "kind": "Kustomization",
                             "metadata": {"name": f"a{i}", "namespace": "flux-system"},
                             "spec": spec})
        files[f"fan/clusters/c{cluster}/apps.yaml"] = _docs(*appliers)
        files[f"fan/clusters/c{cluster}/flux-system/gotk-sync.yaml"] = _docs({
            "apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": "flux-system", "namespace": "flux-system"},
            "spec": {"path": f"./fan/clusters/c{cluster}", "interval": "10m",
                     "sourceRef": {"kind": "GitRepository", "name": "flux-system"}}})
    return files


_WRITERS = {"names": _names, "values": _values, "patches": _patches, "sops": _sops,
            "graph": _graph, "rules": _rules, "fanout": _fanout}


@st.composite
def shaped(draw: st.DrawFn) -> list[Shape]:
    """One to three hostile shapes, each in a folder of its own, beside a planted Secret."""
    return draw(st.lists(st.one_of(SHAPES), min_size=1, max_size=3,
                         unique_by=lambda s: s["shape"]))


def _tree(shapes: list[Shape], side: int) -> dict[str, bytes]:
    files = {"secret.yaml": to_yaml(skeleton("v1", "Secret", 9)).encode()}
    for shape in shapes:
        files.update(_files(shape, side))
    return files


def _write_any(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


SECRETS = (PLANTED, TOKEN, CIPHER, "ENC[AES256_GCM,")  # (rule docs name ENC[...])


def bounded(argv: list[str], cwd: Path | None = None, fmt: str = "json") -> Bounded:
    """One command in a forked child, held to every promise of issue 29's acceptance."""
    done = bounded_cli(argv, cwd, {"GITHUB_TOKEN": TOKEN})
    where = " ".join(argv)
    done.assert_bounded(where)
    assert done.code in (0, 1, 2), f"{where}: exit {done.code}: {done.err[-1500:]}"
    for text, stream in ((done.out, "stdout"), (done.err, "stderr")):
        leaked = [s for s in SECRETS if s in text]
        assert not leaked, (where, stream, leaked)
        assert_log_safe(text, f"{where} ({stream})")
    if fmt == "markdown" or argv[0] == "review":
        assert_markdown_safe(done.out if fmt == "markdown" else done.err, where)
    if done.code != 2 and fmt in ("json", "sarif", "rdjson"):
        json.loads(done.out)
    return done


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Schemas and rules loaded once in this process: every forked run shares them."""
    with tempfile.TemporaryDirectory() as tmp:
        _write_any(Path(tmp), {"w.yaml": _docs(_workload("w"))})
        run(["lint", ".", "--format", "json"], cwd=Path(tmp))


@settings(max_examples=max(10, settings.default.max_examples // 2))  # CI's share: measured
@given(shapes=shaped(), fmt=st.sampled_from(FORMATS))
def test_hostile_shapes_lint_within_bounds(shapes: list[Shape], fmt: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write_any(root, _tree(shapes, 1))
        bounded(["lint", ".", "--format", fmt], root, fmt)


@settings(max_examples=max(8, settings.default.max_examples // 5))  # a repository each
@given(shapes=shaped(), fmt=st.sampled_from(FORMATS),
       diff_fmt=st.sampled_from(["text", "json", "markdown"]))
def test_hostile_shapes_review_within_bounds(shapes: list[Shape], fmt: str,
                                             diff_fmt: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = GitRepo(Path(tmp) / "repo")
        _write_any(repo.path, _tree(shapes, 0))
        base = repo.commit()
        for child in list(repo.path.iterdir()):
            if child.name != ".git":
                _rmtree(child)
        _write_any(repo.path, _tree(shapes, 1))
        head = repo.commit()
        bounded(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                 "--platform", "none", "--format", fmt, "--scope", "all"], fmt=fmt)
        bounded(["diff", base, head, "--repo", str(repo.path), "--format", diff_fmt],
                fmt=diff_fmt)
