"""The `schema` rule through kubeconform (a fake binary on PATH that prints the real format)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from reviewbot.errors import ReviewbotError
from reviewbot.schema.kubeconform import find_kubeconform, parse_output, pointer_path

from .helpers import lint_text

FAKE = Path(__file__).parent / "fake_kubeconform.py"

OBJECTS = """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: two
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
        imagePulPolicy: Always
      - image: sidecar
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
data:
  pin: 4711
  key: "!notbase64"
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ok}
data: {a: b}
---
apiVersion: extensions/v1beta1
kind: Deployment
metadata: {name: old}
"""


@pytest.fixture
def fake_kubeconform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `kubeconform` on PATH that runs tests/fake_kubeconform.py; returns its log file."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "kubeconform"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    log = tmp_path / "kubeconform.log"
    monkeypatch.setenv("FAKE_KUBECONFORM_LOG", str(log))
    return log


def test_kubeconform_on_path_is_used_and_results_map_to_lines(
    tmp_path: Path, fake_kubeconform: Path
) -> None:
    repo = tmp_path / "repo"
    result = lint_text(repo, OBJECTS, only=["schema"])
    got = [(f.line, f.object, f.message) for f in result.findings]
    assert got == [
        (6, "Deployment/default/web", "spec.replicas: expected integer, but got string"),
        (14, "Deployment/default/web",
         "spec.template.spec.containers[0].imagePulPolicy: unknown field 'imagePulPolicy'"),
        (15, "Deployment/default/web",
         "spec.template.spec.containers[1]: missing required field 'name'"),
        (21, "Secret/default/creds", "data.pin: expected string, but got number"),
        (22, "Secret/default/creds",
         "data.key: (value not shown) does not match pattern (value not shown)"),
    ]  # the extensions/v1beta1 Deployment on line 33 is api-lifecycle's to report
    unknown = result.findings[1]  # points at the misspelt name, not at its value
    assert (unknown.column, unknown.fix) == (
        9, "Remove imagePulPolicy, or move it where the schema has it: the API server refuses "
           "the field, or drops it without a word.")
    stats = result.stats["schema"]
    assert stats["engine"] == "kubeconform"
    assert stats["validated"] == 3 and stats["not-validated"] == 2
    assert stats["no-schema"] == {"example.com/v1 Widget": 1,
                                  "extensions/v1beta1 Deployment": 1}


def test_kubeconform_runs_once_strict_json_on_stdin(tmp_path: Path, fake_kubeconform: Path) -> None:
    lint_text(tmp_path / "repo", OBJECTS, only=["schema"])
    call = json.loads(fake_kubeconform.read_text())
    argv = call["argv"]
    assert argv[:3] == ["-strict", "-output", "json"]
    assert "-ignore-missing-schemas" in argv and argv[-1] == "-"
    locations = [argv[i + 1] for i, a in enumerate(argv) if a == "-schema-location"]
    assert locations[0] == "default"
    assert locations[-1].endswith("{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json")
    documents = [json.loads(d) for d in call["stdin"].split("---\n") if d.strip()]
    # every object but the unserved one, each renamed to its index marker
    assert [d["metadata"]["name"] for d in documents] == [
        "reviewbot-0", "reviewbot-1", "reviewbot-2", "reviewbot-3"]
    assert documents[0]["spec"]["replicas"] == "two"


def test_kubeconform_legacy_message_format(
    tmp_path: Path, fake_kubeconform: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_KUBECONFORM_FORMAT", "legacy")
    result = lint_text(tmp_path / "repo", OBJECTS, only=["schema"])
    assert [(f.line, f.path) for f in result.findings][:3] == [
        (6, "spec.replicas"),
        (14, "spec.template.spec.containers[0].imagePulPolicy"),
        (15, "spec.template.spec.containers[1].name"),
    ]


def test_kubeconform_never_validates_in_process(tmp_path: Path, fake_kubeconform: Path) -> None:
    result = lint_text(tmp_path / "repo", OBJECTS, only=["schema"],
                       config="rules:\n  schema: {kubeconform: never}\n")
    assert result.stats["schema"]["engine"] == "in-process"
    assert not fake_kubeconform.exists()
    assert result.findings[0].message == 'spec.replicas: expected integer, got string "two"'


def test_flux_substitutions_are_dropped_from_kubeconform_results(
    tmp_path: Path, fake_kubeconform: Path
) -> None:
    text = """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      replicas: ${REPLICAS}
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: nginx}]}
    """
    assert lint_text(tmp_path / "repo", text, only=["schema"]).findings == []


def test_named_binary_must_exist() -> None:
    with pytest.raises(ReviewbotError):
        find_kubeconform("/nonexistent/kubeconform")
    assert find_kubeconform("never") is None


def test_parse_output_matches_by_marker_and_falls_back_to_kind() -> None:
    bodies = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 7}},
              {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]
    output = {"resources": [
        {"filename": "stdin", "kind": "Pod", "name": "reviewbot-1", "version": "v1",
         "status": "statusError", "msg": "could not find schema for Pod"},
        {"filename": "stdin", "kind": "ConfigMap", "name": "", "version": "v1",
         "status": "statusInvalid", "msg": "",
         "validationErrors": [{"path": "/metadata/name",
                               "msg": "expected string or null, but got number"}]},
    ]}
    first, second = parse_output(output, bodies)
    assert first.validated and [p.message for p in first.problems] == [
        "expected string, but got number"]
    assert not second.validated and second.reason == "no schema"


def test_pointer_path_turns_list_indexes_into_ints() -> None:
    body = {"spec": {"containers": [{"env": [{"name": "a/b"}]}], "1": {"x": 1}}}
    assert pointer_path("/spec/containers/0/env/0/name", body) == (
        "spec", "containers", 0, "env", 0, "name")
    assert pointer_path("/spec/1/x", body) == ("spec", "1", "x")
    assert pointer_path("/a~1b/c~0d", {}) == ("a/b", "c~d")
    assert pointer_path("", body) == ()
