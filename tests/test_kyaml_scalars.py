"""Plain scalars as the tool that reads them reads them.

Kubernetes (kubectl apply, Argo CD applying a plain folder, Helm values) reads YAML 1.1 with
go-yaml v2: ``on``, ``yes``, ``n`` are booleans. kustomize (and so Flux, which always builds
with it) reads the files a kustomization lists with kyaml over go-yaml v3 and writes JSON:
``on`` stays text, ``0o17`` is 15, ``08`` is 8, ``2024-01-01`` is "2024-01-01T00:00:00Z".
A Deployment's ``value: off`` is the string "off" in the cluster when kustomize built it, and
a schema error (a boolean) when applied as written.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from reviewbot.load.cache import freeze, thaw
from reviewbot.load.loader import load, resolve_kyaml, resolve_plain
from reviewbot.model.resource import file_objects
from reviewbot.sources.tree import FileRecord, blob_id

from .helpers import lint_dir, pairs, write

KUBECTL = shutil.which("kubectl")

DEPLOY = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: web:1.0@sha256:0000000000000000000000000000000000000000000000000000000000000000
        env:
        - name: GOGC
          value: off
"""


def _loaded(text: str, name: str = "x.yaml") -> list:  # type: ignore[type-arg]
    data = text.encode()
    return load(FileRecord(name, blob_id(data), data)).documents


def test_an_env_value_off_applied_as_written_is_a_boolean_the_schema_refuses(
        tmp_path: Path) -> None:
    write(tmp_path, {"deploy.yaml": DEPLOY})
    assert pairs(lint_dir(tmp_path, only=["schema"])) == [("schema", 14)]


def test_an_env_value_off_kustomize_builds_is_the_text_off(tmp_path: Path) -> None:
    write(tmp_path, {"deploy.yaml": DEPLOY, "kustomization.yaml": "resources: [deploy.yaml]\n"})
    assert pairs(lint_dir(tmp_path, only=["schema"])) == []


def test_an_argo_cd_plain_folder_is_applied_as_kubernetes_reads_it(tmp_path: Path) -> None:
    app = """
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: %s, namespace: argocd}
        spec:
          project: default
          source: {repoURL: https://github.com/acme/fleet, path: %s}
          destination: {server: https://kubernetes.default.svc, namespace: apps}
    """
    write(tmp_path, {
        "plain-app.yaml": app % ("plain", "plain"), "plain/deploy.yaml": DEPLOY,
        "built-app.yaml": app % ("built", "built"),
        "built/deploy.yaml": DEPLOY.replace("web", "api"),
        "built/kustomization.yaml": "resources: [deploy.yaml]\n",
    })
    result = lint_dir(tmp_path, only=["schema"])
    assert sorted((f.file, f.line) for f in result.findings) == [("plain/deploy.yaml", 14)]


@pytest.mark.parametrize(("text", "kubernetes", "kustomize"), [
    ("on", True, "on"), ("Off", False, "Off"), ("y", True, "y"), ("NO", False, "NO"),
    ("yes", True, "yes"), ("true", True, True), ("FALSE", False, False),
    ("0755", 493, 493), ("0o17", "0o17", 15), ("-0o17", "-0o17", -15), ("0O17", "0O17", 15),
    ("0x1F", 31, 31), ("0X1F", "0X1F", 31), ("+0x1F", 31, 31), ("0B101", "0B101", 5),
    ("0b1_01", 5, 5), ("-0b11", -3, -3), ("08", "08", 8), ("00", 0, 0), ("1_000", 1000, 1000),
    ("1.", 1.0, 1), (".5", 0.5, 0.5), ("1e3", 1000.0, 1000), ("12:30", "12:30", "12:30"),
    ("~", None, None), ("0.0.0.0/0", "0.0.0.0/0", "0.0.0.0/0"), ("1.2.3", "1.2.3", "1.2.3"),
    ("2024-01-01", "2024-01-01", "2024-01-01T00:00:00Z"),
    ("2024-1-2 3:4:5", "2024-1-2 3:4:5", "2024-01-02T03:04:05Z"),
    ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00",
     "2001-12-14T21:59:43.1-05:00"),
    ("2024-01-01T10:00:00+00:00", "2024-01-01T10:00:00+00:00", "2024-01-01T10:00:00Z"),
    ("2024-01-01T00:00:00", "2024-01-01T00:00:00", "2024-01-01T00:00:00"),  # T needs a zone
    ("2024-02-30", "2024-02-30", "2024-02-30"), ("2024-01-01T24:00:00Z", "2024-01-01T24:00:00Z",
                                                 "2024-01-01T24:00:00Z"),
    ("18446744073709551615", 18446744073709551615, 18446744073709551615), ("1.5e7", 15000000.0,
                                                                          15000000),
    ("-9223372036854775809", -9223372036854775809, -9.223372036854776e18),
])
def test_a_plain_scalar_as_kubernetes_and_as_kustomize_read_it(
        text: str, kubernetes: object, kustomize: object) -> None:
    assert (resolve_plain(text), resolve_kyaml(text)) == (kubernetes, kustomize)
    assert type(resolve_kyaml(text)) is type(kustomize)


def test_the_loader_marks_the_documents_kustomize_reads_apart() -> None:
    docs = _loaded("a: on\n---\na: 0o17\n---\na: 2024-01-01\n---\n"
                   "a: [true, 0.0.0.0/0, '00:00', 0 * * * *, 100Mi, 1.2.3, \"on\"]\n---\n"
                   "a: &x off\nb: *x\n---\n'on': 1\n")
    assert [d.kyaml_apart for d in docs] == [True, True, True, False, True, False]
    assert [d.value["a"] for d in docs[:3]] == [True, "0o17", "2024-01-01"]
    assert [d.kustomize_value["a"] for d in docs[:3]] == ["on", 15, "2024-01-01T00:00:00Z"]
    assert docs[4].kustomize_value == {"a": "off", "b": "off"}
    assert docs[3].kustomize_value is docs[3].value  # nothing apart: the same value


def test_the_mark_survives_the_parse_hand_over_and_the_cache() -> None:
    data = b"a: on\n---\na: 1\n"
    record = FileRecord("x.yaml", blob_id(data), data)
    again = thaw(record, freeze(load(record)), 1 << 20)
    assert [(d.kyaml_apart, d.kustomize_value) for d in again.documents] == [
        (True, {"a": "on"}), (False, {"a": 1})]


def _scalars(rng: random.Random) -> list[str]:
    """Plain scalars around the edges of both readings: numbers in every base and sign,
    underscores, leading zeros, dates and times, the YAML 1.1 words."""
    words = ["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON",
             "off", "Off", "OFF", "true", "True", "TRUE", "false", "False", "FALSE", "null",
             "Null", "~"]  # (.inf and .nan: JSON has none, kustomize fails)
    out = list(words)
    for _ in range(400):
        shape = rng.randrange(5)
        sign = rng.choice(["", "", "-", "+"])
        if shape == 0:
            prefix = rng.choice(["0x", "0X", "0o", "0O", "0b", "0B", "0", "", "00"])
            digits = "".join(rng.choice("0123456789abcdefABCDEF_"[:rng.choice([2, 8, 10, 22, 23])])
                             for _ in range(rng.randrange(1, 6)))
            out.append(sign + prefix + digits)
        elif shape == 1:
            out.append(sign + str(rng.randrange(100)) + rng.choice([".", "", "."]) +
                       str(rng.randrange(1000)) + rng.choice(["", "e3", "E-2", "e+1"]))
        elif shape == 2:
            out.append(f"{rng.randrange(1990, 2040)}-{rng.randrange(0, 14)}-{rng.randrange(0, 33)}")
        elif shape == 3:
            day = f"{rng.randrange(2000, 2030)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29)}"
            sep = rng.choice(["T", "t", " "])
            time = f"{rng.randrange(0, 25)}:{rng.randrange(0, 61):02d}:{rng.randrange(0, 61)}"
            fraction = rng.choice(["", ".5", ".123456789123", ",25", ".000"])
            zone = rng.choice(["", "Z", "+05:30", "-00:00", "+00:00", "z"])
            out.append(day + sep + time + fraction + zone)
        else:
            out.append(sign + str(rng.randrange(1 << 62)))  # (floats past 1e16: see _json_number)
    return out


def test_a_document_is_marked_whenever_kustomize_reads_a_scalar_of_it_apart() -> None:
    # the mark is what makes the loader compose a document again for kustomize: a scalar
    # read apart in an unmarked document would reach the builds as Kubernetes reads it
    for text in _scalars(random.Random(7)) + ["0_x1F", "0_8", "+0b11", "1__0", "0.0.0.0"]:
        doc = _loaded(f"a: {text}\n")[0]
        assert resolve_kyaml(text) == doc.kustomize_value["a"], text
        assert doc.kyaml_apart or resolve_kyaml(text) == resolve_plain(text), text


@pytest.mark.skipif(KUBECTL is None and not os.environ.get("CI"), reason="needs kubectl")
def test_kubectl_kustomize_writes_every_scalar_as_resolve_kyaml_reads_it(tmp_path: Path) -> None:
    assert KUBECTL is not None, "CI installs kubectl (.ci/run): it must be on PATH"
    scalars = _scalars(random.Random(20261203))
    keys = [f"k{i}" for i in range(len(scalars))]
    body = "".join(f"  {k}: {s}\n" for k, s in zip(keys, scalars, strict=True))
    write(tmp_path, {"kustomization.yaml": "resources: [cm.yaml]\n",
                     "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t}\ndata:\n"
                                + body})
    out = subprocess.run([KUBECTL, "kustomize", str(tmp_path)], capture_output=True, check=True,
                         timeout=120).stdout.decode()
    written = _loaded(out)[0].value["data"]  # kubectl's output quotes what must stay text
    for key, text in zip(keys, scalars, strict=True):
        assert resolve_kyaml(text) == written[key], text


CABUNDLE = """
apiVersion: v1
kind: ConfigMap
metadata:
  name: config-service-cabundle
  namespace: gitops
  annotations:
    service.beta.openshift.io/inject-cabundle: true
"""


def test_an_annotation_true_applied_as_written_is_a_boolean_the_schema_refuses(
        tmp_path: Path) -> None:
    write(tmp_path, {"cm.yaml": CABUNDLE})
    assert pairs(lint_dir(tmp_path, only=["schema"])) == [("schema", 7)]


def test_an_annotation_true_kustomize_builds_is_the_text_true(tmp_path: Path) -> None:
    # gnunn-gitops/cluster-config's gitops-operator base, built by an Argo CD Application:
    # kustomize writes every annotation value as text, so the cluster gets "true"
    write(tmp_path, {"cm.yaml": CABUNDLE, "kustomization.yaml": "resources: [cm.yaml]\n"})
    assert pairs(lint_dir(tmp_path, only=["schema"])) == []


def test_an_annotation_a_patch_sets_is_text_in_the_build(tmp_path: Path) -> None:
    write(tmp_path, {
        "cm.yaml": CABUNDLE.replace("  annotations:\n", "").replace(
            "    service.beta.openshift.io/inject-cabundle: true\n", ""),
        "kustomization.yaml": """
            resources: [cm.yaml]
            patches:
            - patch: |
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: config-service-cabundle
                  namespace: gitops
                  annotations: {service.beta.openshift.io/inject-cabundle: true, replicas: 2}
        """,
    })
    assert pairs(lint_dir(tmp_path, only=["schema"])) == []


@pytest.mark.skipif(KUBECTL is None and not os.environ.get("CI"), reason="needs kubectl")
def test_kubectl_kustomize_writes_every_annotation_as_the_text_of_its_scalar(
        tmp_path: Path) -> None:
    assert KUBECTL is not None, "CI installs kubectl (.ci/run): it must be on PATH"
    scalars = _scalars(random.Random(20261204)) + ["", "{a: 1}", "[1, 2]", "1 # a comment"]
    keys = [f"k{i}" for i in range(len(scalars))]
    body = "".join(f"    {k}: {s}\n" for k, s in zip(keys, scalars, strict=True))
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n  annotations:\n" + body
    write(tmp_path, {"kustomization.yaml": "resources: [cm.yaml]\n", "cm.yaml": text})
    out = subprocess.run([KUBECTL, "kustomize", str(tmp_path)], capture_output=True, check=True,
                         timeout=120).stdout.decode()
    written = _loaded(out)[0].value["metadata"]["annotations"]
    data = text.encode()
    loaded = load(FileRecord("cm.yaml", blob_id(data), data))
    built = next(file_objects(loaded)).body["metadata"]["annotations"]
    as_written = next(file_objects(loaded, kustomize=False)).body["metadata"]["annotations"]
    assert built == written
    assert as_written["k0"] is True  # as kubectl apply reads the file: a boolean
