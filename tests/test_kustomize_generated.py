"""Generated kustomizations checked against `kubectl kustomize` (issue 27 §3): a base of a
Deployment, a Service, a webhook configuration, a CRD and a custom resource, and the objects
the Deployment, the webhooks and a RoleBinding refer to by name (ConfigMap, Secret,
ServiceAccount, Service); an overlay with name prefixes/suffixes, a namespace, labels,
images, strategic merge and JSON 6902 patches on each kind, replacements, a component, a
configMapGenerator of literals, an env file and files (binary content too), a
secretGenerator of a file and a ``configurations:`` file (a nameReference of the custom
resource). The in-process build (hash suffixes, name references and vars by :func:`finish`)
must equal kubectl's on every whole object.

Bounded in CI (REVIEWBOT_KUSTOMIZE_EXAMPLES, 25 by default); a long run by hand:
`REVIEWBOT_KUSTOMIZE_EXAMPLES=2000 .venv/bin/pytest tests/test_kustomize_generated.py`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewbot.load.loader import load
from reviewbot.model.transform import finish
from reviewbot.sources.tree import FileRecord, blob_id

from .helpers import kustomize_graph

KUBECTL = shutil.which("kubectl")
EXAMPLES = int(os.environ.get("REVIEWBOT_KUSTOMIZE_EXAMPLES", "25"))

names = st.sampled_from(["a", "b", "web", "api"])
values = st.sampled_from(["1", "2", "x", "on", "8080"])


def _dump(docs: list[Any]) -> str:
    """Documents as YAML (JSON is YAML: flow style throughout)."""
    return "\n---\n".join(json.dumps(d) for d in docs) + "\n"


@st.composite
def base(draw: st.DrawFn) -> list[dict[str, Any]]:
    containers = [{"name": n, "image": draw(st.sampled_from(["nginx:1", "envoy", "r.io/x:2"])),
                   "env": [{"name": e, "value": draw(values)} for e in
                           draw(st.lists(st.sampled_from(["A", "B", "C"]), unique=True))],
                   "ports": [{"containerPort": p} for p in
                             draw(st.lists(st.sampled_from([80, 443, 8080]), unique=True))]}
                  for n in draw(st.lists(names, min_size=1, max_size=3, unique=True))]
    # name references kustomize renames with the objects (envFrom, volumes, the account)
    containers[0]["envFrom"] = [{"configMapRef": {"name": "conf"}}]
    pod: dict[str, Any] = {"containers": containers}
    if draw(st.booleans()):
        pod["serviceAccountName"] = draw(st.sampled_from(["runner", "elsewhere"]))
    if draw(st.booleans()):
        pod["volumes"] = [{"name": "token", "secret": {"secretName": "token"}}]
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod}}}
    ports = [{"port": p, "protocol": proto, "name": f"p{p}{proto.lower()}"}
             for p, proto in draw(st.lists(st.tuples(st.sampled_from([53, 80, 443]),
                                                     st.sampled_from(["TCP", "UDP"])),
                                           min_size=1, max_size=4, unique=True))]
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
               "spec": {"selector": {"app": "web"}, "ports": ports}}
    hooks = {"apiVersion": "admissionregistration.k8s.io/v1",
             "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "policy"},
             "webhooks": [{"name": f"{n}.example.com", "admissionReviewVersions": ["v1"],
                           "sideEffects": "None", "failurePolicy": "Fail",
                           "clientConfig": draw(st.sampled_from([
                               {"url": f"https://{n}.example.com/v"},
                               {"service": {"name": "web", "namespace": "default"}},
                               {"service": {"name": "web", "namespace": "other"}}]))}
                          for n in draw(st.lists(names, min_size=1, max_size=3, unique=True))]}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"kind": "Widget", "plural": "widgets"},
                    "versions": [{"name": "v1", "served": True, "storage": True,
                                  "schema": {"openAPIV3Schema": {"type": "object"}}}]}}
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
              "spec": {"image": "nginx:1",
                       "parts": [{"name": n, "size": draw(values)}
                                 for n in draw(st.lists(names, max_size=3, unique=True))]}}
    refs = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "conf"},
             "data": {"A": "1"}},
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "token"},
             "data": {"t": "eA=="}},
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "runner"}},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
             "metadata": {"name": "run"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                         "name": "view"},
             "subjects": [{"kind": "ServiceAccount", "name": "runner"},
                          {"kind": "ServiceAccount", "name": "default"}]}]
    return [deploy, service, hooks, crd, widget, *refs]


# env file lines (kustomize's api/kv): comments, blank lines, spaces and quotes kept, a key
# without "=", a value holding "="
env_lines = st.sampled_from(["A=1", "# c", "", "  B = 'q'", 'C="x y"', "NOVAL", "D=a=b",
                             "E="])


@st.composite
def overlay(draw: st.DrawFn, objects: list[dict[str, Any]]) -> tuple[dict[str, Any],
                                                                    dict[str, str]]:
    files: dict[str, str] = {}
    k: dict[str, Any] = {"resources": ["../base"]}
    if draw(st.booleans()):
        k["namePrefix"] = "p-"
    if draw(st.booleans()):
        k["namespace"] = "apps"
    if draw(st.booleans()):
        k["nameSuffix"] = "-s"
    if draw(st.booleans()):
        k["labels"] = [{"pairs": {"team": draw(names)},
                        "includeSelectors": draw(st.booleans())}]
    if draw(st.booleans()):
        k["images"] = [{"name": "nginx", **draw(st.sampled_from(
            [{"newTag": "2"}, {"newName": "r.io/nginx"}, {"digest": "sha256:" + "a" * 64}]))}]
    patches: list[dict[str, Any]] = []
    deploy, service, hooks, _, widget = objects[:5]
    if draw(st.booleans()):
        first = deploy["spec"]["template"]["spec"]["containers"][0]["name"]
        patches.append({"patch": _dump([{
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"template": {"spec": {"containers": [
                {"name": draw(st.sampled_from([first, "new"])), "image": "busybox",
                 "env": [{"name": draw(st.sampled_from(["A", "D"])), "value": "9"}],
                 "ports": [{"containerPort": draw(st.sampled_from([80, 9090]))}]}]}}}}])})
    if draw(st.booleans()):
        port = draw(st.sampled_from([53, 80, 8443]))
        patches.append({"patch": _dump([{
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
            "spec": {"ports": [{"port": port, "protocol": draw(st.sampled_from(["TCP", "UDP"])),
                                "targetPort": 9000}]}}])})
    if draw(st.booleans()):
        name = draw(st.sampled_from([hooks["webhooks"][0]["name"], "z.example.com"]))
        patches.append({"patch": _dump([{
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "policy"},
            "webhooks": [{"name": name, "failurePolicy": "Ignore"}]}])})
    if draw(st.booleans()):
        patches.append({"patch": _dump([{
            "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"parts": [{"name": draw(names), "size": "3"}]}}])})
    if draw(st.booleans()):
        patches.append({"target": {"kind": draw(st.sampled_from(
            ["Deployment", "Service", "Widget", "CustomResourceDefinition"]))},
            "patch": _dump([[{"op": "add", "path": "/metadata/annotations",
                              "value": {"patched": "yes"}}]])})
    if patches:
        k["patches"] = patches
    if draw(st.booleans()):
        k["replacements"] = [{
            "source": {"kind": "Deployment", "name": "web",
                       "fieldPath": "spec.template.spec.containers.0.image"},
            "targets": [{"select": {"kind": "Widget"}, "fieldPaths": ["spec.image"]}]}]
    if draw(st.booleans()):
        k["configMapGenerator"] = [{"name": "settings", "literals": [
            f"{key}={draw(values)}" for key in draw(st.lists(st.sampled_from(["K", "L"]),
                                                                min_size=1, unique=True))]}]
        if draw(st.booleans()):  # an env file and files (binary content too): read as bytes
            lines = draw(st.lists(env_lines, min_size=1, max_size=6,
                                  unique_by=lambda x: x.split("=")[0]))
            ending = draw(st.sampled_from(["\n", "\r\n"]))
            files["overlay/app.env"] = draw(st.sampled_from(["", "\ufeff"])) + "".join(
                line + ending for line in lines)
            files["overlay/conf.txt"] = draw(st.sampled_from(["a: 1\n", "", "x" * 90]))
            files["overlay/logo.bin"] = draw(st.sampled_from(["\udcff\udcfe", "ok"]))
            k["configMapGenerator"][0].update(envs=["app.env"], files=["conf.txt",
                                                                       "logo=logo.bin"])
        if draw(st.booleans()):
            files["overlay/password.txt"] = draw(st.sampled_from(["pw", "s" * 80]))
            k["secretGenerator"] = [{"name": "creds", "files": ["password.txt"]}]
    if draw(st.booleans()):
        # a configuration the overlay reads: the Widget refers to a ConfigMap by name
        k["configurations"] = ["names.yaml"]
        files["overlay/names.yaml"] = _dump([{"nameReference": [{
            "kind": "ConfigMap", "version": "v1",
            "fieldSpecs": [{"kind": "Widget", "path": "spec/config"}]}]}])
        widget["spec"]["config"] = "conf"
    if draw(st.booleans()):
        k["components"] = ["../component"]
        files["component/kustomization.yaml"] = _dump([{
            "apiVersion": "kustomize.config.k8s.io/v1alpha1", "kind": "Component",
            "commonAnnotations": {"component": "on"}}])
    return k, files


@pytest.mark.skipif(KUBECTL is None and not os.environ.get("CI"), reason="needs kubectl")
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_generated_kustomizations_build_as_kubectl_kustomize(data: st.DataObject) -> None:
    assert KUBECTL is not None, "CI installs kubectl (.ci/run)"
    objects = data.draw(base())
    k, files = data.draw(overlay(objects))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = {**files, "base/objects.yaml": _dump(objects),
                 "base/kustomization.yaml": _dump([{"resources": ["objects.yaml"]}]),
                 "overlay/kustomization.yaml": _dump([k])}
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(text.encode("utf-8", "surrogateescape"))
        proc = subprocess.run([KUBECTL, "kustomize", str(root / "overlay")],
                              capture_output=True, check=False, timeout=60)
        assert proc.returncode == 0, proc.stderr.decode()
        record = FileRecord("built.yaml", blob_id(proc.stdout), proc.stdout)
        want = sorted(json.dumps(d.value, sort_keys=True) for d in load(record).documents
                      if isinstance(d.value, dict))
        build = kustomize_graph(root).build("overlay")
        made = finish(build.resources, build.config, build.variables)
        got = sorted(json.dumps(r.body, sort_keys=True, default=str) for r in made)
        assert got == want
