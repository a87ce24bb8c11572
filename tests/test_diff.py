"""`reviewbot diff`: objects matched by identity, field changes named like dyff's.

Acceptance tests run on real git repositories made here, commit by commit.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from reviewbot.cli import main
from reviewbot.diff.objects import Change, compare, parse_path
from reviewbot.load.paths import stable_path
from reviewbot.report.difftext import render_diff_text

from .helpers import ROOT, SEEDS, GitRepo, run_cli


def diff_json(repo: GitRepo, base: str, head: str | None,
              capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    argv = ["diff", base, *([head] if head else []), "--repo", str(repo.path), "--format", "json"]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["findings"] == []
    diff: list[dict[str, Any]] = data["diff"]
    return diff


def changes_of(entry: Mapping[str, Any]) -> set[tuple[str, str | None, str, Any, Any]]:
    return {(c["path"], c.get("flag"), c["op"], c.get("old"), c.get("new"))
            for c in entry["changes"]}


DEPLOY = """
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      namespace: shop
      labels: {app: web, tier: front}
    spec:
      replicas: 2
      selector:
        matchLabels: {app: web}
      template:
        metadata:
          labels: {app: web}
        spec:
          containers:
          - name: app
            image: registry.example/web:1.0@sha256:DIGEST
            env:
            - {name: A, value: "1"}
            - {name: B, value: "2"}
            resources:
              requests: {cpu: 500m, memory: 1Gi}
              limits: {cpu: "1", memory: 1Gi}
""".replace("DIGEST", "0" * 64)
SERVICE = """
    apiVersion: v1
    kind: Service
    metadata: {name: web, namespace: shop}
    spec:
      selector: {app: web}
      ports:
      - {name: http, port: 80, targetPort: 8080}
"""


# ---------------------------------------------------------------- acceptance, on git repos


def test_reorder_and_comments_only_is_an_empty_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"app.yaml": DEPLOY + "---\n" + SERVICE})
    # Documents swapped, keys reordered, env entries swapped, comments and quoting changed,
    # quantities written differently (1000m == "1", 1024Mi == 1Gi, 0.5 == 500m).
    head = repo.commit({"app.yaml": """
        # the service first now
        kind: Service
        apiVersion: v1
        spec:
          ports:
          - {targetPort: 8080, port: 80, name: http}
          selector: {app: web}
        metadata: {namespace: shop, name: web}
        ---
        kind: Deployment   # same object
        apiVersion: apps/v1
        metadata:
          namespace: shop
          name: web
          labels:
            tier: front
            app: web
        spec:
          selector:
            matchLabels: {app: web}
          replicas: 2
          template:
            metadata:
              labels: {app: web}
            spec:
              containers:
              - image: "registry.example/web:1.0@sha256:DIGEST"
                name: app
                resources:
                  limits: {memory: 1024Mi, cpu: 1000m}
                  requests: {memory: 1Gi, cpu: "0.5"}
                env:
                - {value: "2", name: B}
                - {name: A, value: "1"}
    """.replace("DIGEST", "0" * 64)})
    assert diff_json(repo, base, head, capsys) == []
    code, out, _ = run_cli(["diff", base, head, "--repo", str(repo.path)], capsys)
    assert (code, out) == (0, "no changes\n")


def test_object_moved_between_files_is_no_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"app.yaml": DEPLOY + "---\n" + SERVICE})
    head = repo.commit({"app.yaml": DEPLOY, "svc/service.yaml": SERVICE})
    assert diff_json(repo, base, head, capsys) == []


def test_container_renamed_is_one_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"app.yaml": DEPLOY})
    head = repo.commit({"app.yaml": DEPLOY.replace("- name: app", "- name: server")})
    diff = diff_json(repo, base, head, capsys)
    assert [(d["object"], d["change"]) for d in diff] == [("Deployment/shop/web", "modified")]
    assert changes_of(diff[0]) == {
        ("spec.template.spec.containers.server.name", None, "changed", "app", "server"),
    }


def test_seed_coder_tp1_to_tp2_shows_exactly_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(SEEDS / "step1")
    head = repo.commit_tree(SEEDS / "step2")
    diff = diff_json(repo, base, head, capsys)
    coder = next(d for d in diff if d["object"] == "InferenceService/llm-serving/coder")
    c = "spec.predictor.containers.kserve-container."
    args = c + "args"
    assert changes_of(coder) == {
        ("metadata.annotations.reviewbot.dev/measured-boot-seconds", None, "added", None, "600"),
        (args, "--max-model-len", "changed", "65536", "262144"),
        (args, "--tensor-parallel-size", "changed", "1", "2"),
        (args, "--max-num-seqs", "changed", "16", "4"),
        (args, "--disable-custom-all-reduce", "added", None, True),
        (c + "startupProbe.failureThreshold", None, "changed", 80, 120),
        (c + "resources.requests.cpu", None, "changed", "4", "8"),
        (c + "resources.requests.nvidia.com/gpu", None, "changed", "1", "2"),
        (c + "resources.limits.cpu", None, "changed", "8", "16"),
        (c + "resources.limits.memory", None, "changed", "36Gi", "40Gi"),
        (c + "resources.limits.nvidia.com/gpu", None, "changed", "1", "2"),
        ("spec.predictor.volumes.shm.emptyDir.sizeLimit", None, "changed", "2Gi", "8Gi"),
    }
    # Lines point into the head file, at the changed field.
    head_text = (SEEDS / "step2/k8s/apps/llm-serving/coder.yaml").read_text().splitlines()
    for change in coder["changes"]:
        line = head_text[change["line"] - 1]
        key = change.get("flag") or change["path"].rsplit(".", 1)[-1]
        assert key.split("/")[-1] in line, (change, line)
    # The text form: flags as flags.
    code, out, _ = run_cli(["diff", base, head, "--repo", str(repo.path)], capsys)
    assert "      - --tensor-parallel-size 1\n      + --tensor-parallel-size 2\n" in out
    assert "    spec.predictor.containers.kserve-container.resources.limits.nvidia.com/gpu\n" in out


def test_seed_coder_versions_from_the_seed_commits(tmp_path: Path) -> None:
    """The two coder.yaml versions the seeds' commit messages carry, diffed directly."""
    seeds = ROOT.parent / "shared" / "seeds"
    if not seeds.is_dir():
        pytest.skip("the seed commit messages are not on this machine")
    from reviewbot.load.loader import load
    from reviewbot.sources.tree import FileRecord

    def coder(name: str) -> Any:
        text = next(seeds.glob(name)).read_text()
        start = text.index("k8s/apps/llm-serving/coder.yaml")
        body = text[start:].split("\n\n", 2)[1]
        hunk = "\n".join(line[1:] for line in body.splitlines()[1:] if line.startswith("+"))
        return load(FileRecord("coder.yaml", "0", hunk.encode())).documents[0].value

    changes = compare(coder("001_*.txt"), coder("000_*.txt"))
    flags = {(c.flag, c.old, c.new) for c in changes if c.flag}
    assert flags == {
        ("--max-model-len", "65536", "262144"), ("--tensor-parallel-size", "1", "2"),
        ("--max-num-seqs", "16", "4"), ("--disable-custom-all-reduce", None, True),
    }
    others = {(c.dotted, c.old, c.new) for c in changes if not c.flag}
    c = "spec.predictor.containers.kserve-container."
    assert others == {
        (c + "startupProbe.failureThreshold", 80, 120),
        (c + "resources.requests.cpu", "4", "8"),
        (c + "resources.requests.nvidia.com/gpu", "1", "2"),
        (c + "resources.limits.cpu", "8", "16"),
        (c + "resources.limits.memory", "36Gi", "40Gi"),
        (c + "resources.limits.nvidia.com/gpu", "1", "2"),
        ("spec.predictor.volumes.shm.emptyDir.sizeLimit", "2Gi", "8Gi"),
    }


SECRET_VALUES = ("hunter2-old-password", "n3w-p4ssw0rd-value", "tok-AAAA-1111", "tok-BBBB-2222",
                 "added-secret-value", "removed-secret-value")


def test_secret_values_appear_in_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import base64

    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    old_applied = json.dumps({"data": {"password": b64("hunter2-old-password")}})
    new_applied = json.dumps({"data": {"password": b64("n3w-p4ssw0rd-value")}})
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"secret.yaml": f"""
        apiVersion: v1
        kind: Secret
        metadata:
          name: db
          namespace: shop
          annotations:
            kubectl.kubernetes.io/last-applied-configuration: '{old_applied}'
        data:
          password: {b64("hunter2-old-password")}
          gone: {b64("removed-secret-value")}
        stringData:
          token: tok-AAAA-1111
    """})
    head = repo.commit({"secret.yaml": f"""
        apiVersion: v1
        kind: Secret
        metadata:
          name: db
          namespace: shop
          annotations:
            kubectl.kubernetes.io/last-applied-configuration: '{new_applied}'
        data:
          password: {b64("n3w-p4ssw0rd-value")}
          extra: {b64("added-secret-value")}
        stringData:
          token: tok-BBBB-2222
    """, "broken-secret.yaml": """
        apiVersion: v1
        kind: Secret
        metadata: {name: broken, namespace: shop}
        stringData:
          key: "tok-BBBB-2222
    """})
    outputs = []
    for fmt in ("text", "json", "markdown"):
        code, out, err = run_cli(["diff", base, head, "--repo", str(repo.path), "--format", fmt,
                                  "--color", "always"], capsys)
        assert code == 0, err
        outputs.append(out + err)
    code, out, err = run_cli(["review", "--base", base, "--head", head, "--repo",
                              str(repo.path), "--platform", "none", "--format", "json"], capsys)
    outputs.append(out + err)
    code, out, err = run_cli(["review", "--base", base, "--head", head, "--repo",
                              str(repo.path), "--dry-run", "--format", "markdown"], capsys)
    outputs.append(out + err)
    everything = "\n".join(outputs)
    for value in SECRET_VALUES:
        assert value not in everything
        assert b64(value) not in everything
    assert "hunter2" not in everything and "tok-" not in everything
    entry = next(d for d in json.loads(outputs[1])["diff"] if d["object"] == "Secret/shop/db")
    redacted = {(c["path"], c["op"], c.get("old_length"), c.get("new_length"))
                for c in entry["changes"]}
    assert redacted == {
        ("data.password", "changed", 20, 18),
        ("data.gone", "removed", 20, None),
        ("data.extra", "added", None, 18),
        ("stringData.token", "changed", 13, 13),
        ("metadata.annotations.kubectl.kubernetes.io/last-applied-configuration", "changed",
         len(old_applied), len(new_applied)),
    }
    assert all(c["redacted"] and "old" not in c and "new" not in c for c in entry["changes"])
    assert "data.password" in outputs[0]
    assert "changed (20 -> 18 bytes, value redacted)" in outputs[0]


def test_work_tree_is_the_default_head(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"app.yaml": DEPLOY, ".gitignore": "ignored/\n"})
    repo.write({"app.yaml": DEPLOY.replace("replicas: 2", "replicas: 3"),
                "ignored/extra.yaml": SERVICE, "new.yaml": SERVICE})
    diff = diff_json(repo, base, None, capsys)
    assert [(d["object"], d["change"], d["file"]) for d in diff] == [
        ("Deployment/shop/web", "modified", "app.yaml"),
        ("Service/shop/web", "added", "new.yaml"),
    ]
    assert changes_of(diff[0]) == {("spec.replicas", None, "changed", 2, 3)}


def test_an_object_s_header_points_at_its_first_changed_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The header of a modified object names the line of its first changed field (the
    narrowest node), not the file's or the object's first line; an added one its first."""
    def two(deploy: str) -> str:
        return textwrap.dedent(SERVICE).lstrip() + "---\n" + textwrap.dedent(deploy).lstrip()

    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"app.yaml": two(DEPLOY)})
    head = repo.commit({"app.yaml": two(DEPLOY.replace('cpu: "1"', 'cpu: "2"').replace(
        "replicas: 2", "replicas: 3")), "new.yaml": SERVICE.replace("name: web,", "name: api,")})
    # app.yaml: the Service is lines 1-7, the Deployment 9-31 (replicas: line 16, the
    # changed limit: line 31)
    diff = diff_json(repo, base, head, capsys)
    assert [(d["object"], d["line"]) for d in diff] == [
        ("Deployment/shop/web", 16), ("Service/shop/api", 1)]
    assert [c["line"] for c in diff[0]["changes"]] == [16, 31]
    code, out, _ = run_cli(["diff", base, head, "--repo", str(repo.path)], capsys)
    assert code == 0 and "app.yaml:16" in out and "app.yaml:9" not in out


def test_added_removed_renamed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"app.yaml": DEPLOY, "svc.yaml": SERVICE,
                        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"})
    head = repo.commit({
        "svc.yaml": SERVICE.replace("name: web,", "name: web-v2,"),
        "cm.yaml": None,
        "cm2.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {k: v}\n",
    })
    diff = diff_json(repo, base, head, capsys)
    got = {(d["object"], d["change"], d["renamed_from"]) for d in diff}
    assert got == {
        ("Service/shop/web-v2", "renamed", "Service/shop/web"),
        ("ConfigMap/default/a", "removed", None),
        ("ConfigMap/default/b", "added", None),
    }


def test_a_release_moved_to_another_namespace_renames_no_values_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial twenty-nine: an Argo CD Application's destination namespace changed;
    the diff said its values files were "renamed from HelmValues/cache-prod/values-prod"
    (their pseudo-objects take the release's namespace). A values file is its file."""
    app = textwrap.dedent("""
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: cache-prod, namespace: argocd}
        spec:
          project: default
          source:
            repoURL: https://git.example.com/platform/gitops.git
            path: charts/cache
            helm: {valueFiles: [values-prod.yaml]}
          destination: {server: 'https://kubernetes.default.svc', namespace: %s}
    """)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"argocd/cache-prod.yaml": app % "cache-prod",
                        "charts/cache/Chart.yaml": "apiVersion: v2\nname: cache\nversion: 1.0.0\n",
                        "charts/cache/values.yaml": "replicaCount: 1\n",
                        "charts/cache/values-prod.yaml": "replicaCount: 2\n"})
    head = repo.commit({"argocd/cache-prod.yaml": app % "cache"})
    diff = diff_json(repo, base, head, capsys)
    assert [(d["object"], d["change"]) for d in diff] == [
        ("Application/argocd/cache-prod", "modified")]


def test_a_values_file_is_diffed_as_written_not_as_merged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial fifty: an Application's valueFiles entry renamed to a file that does
    not exist; values-production.yaml, untouched, was "modified", the chart defaults it no
    longer merges over listed as removed. A values file is its file: the defaults a change
    edits are the chart's values.yaml's change."""
    app = textwrap.dedent("""
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: gw, namespace: argocd}
        spec:
          project: default
          source:
            repoURL: https://git.example.com/platform/gitops.git
            path: charts/gw
            helm: {valueFiles: [%s]}
          destination: {server: 'https://kubernetes.default.svc', namespace: gw}
    """)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"argocd/gw.yaml": app % "values-production.yaml",
                        "charts/gw/Chart.yaml": "apiVersion: v2\nname: gw\nversion: 1.0.0\n",
                        "charts/gw/values.yaml": "image: {repository: gw, tag: '1'}\n",
                        "charts/gw/values-production.yaml": "replicaCount: 2\n"})
    head = repo.commit({"argocd/gw.yaml": app % "values-prod.yaml"})
    assert [(d["object"], d["change"]) for d in diff_json(repo, base, head, capsys)] == [
        ("Application/argocd/gw", "modified")]
    bumped = repo.commit({"argocd/gw.yaml": app % "values-production.yaml",
                          "charts/gw/values.yaml": "image: {repository: gw, tag: '2'}\n"})
    assert [(d["file"], [c["path"] for c in d["changes"]])
            for d in diff_json(repo, base, bumped, capsys)] == [
        ("charts/gw/values.yaml", ["image.tag"])]


def test_helm_values_and_helmrelease_values_diff_like_objects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = """
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: app, namespace: apps}
        spec:
          chart: {spec: {chart: app-template, version: 3.0.0}}
          values:
            controllers:
              main:
                containers:
                  app:
                    image: {repository: ghcr.io/x/app, tag: "1.0"}
                    env:
                      TZ: UTC
                    resources: {limits: {memory: 512Mi}}
    """
    values = """
        replicaCount: 1
        image: {repository: gitea/gitea, tag: "1.21"}
        resources:
          requests: {cpu: 200m, memory: 512Mi}
        extraVolumes:
        - {name: data, emptyDir: {}}
    """
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"hr.yaml": release, "forgejo/values.yaml": values})
    head = repo.commit({
        "hr.yaml": release.replace('tag: "1.0"', 'tag: "1.1"').replace("512Mi", "0.5Gi"),
        "forgejo/values.yaml": values.replace("200m", "0.75").replace("replicaCount: 1",
                                                                        "replicaCount: 2"),
    })
    diff = diff_json(repo, base, head, capsys)
    by_object = {d["object"]: changes_of(d) for d in diff}
    assert by_object == {
        "HelmRelease/apps/app": {
            ("spec.values.controllers.main.containers.app.image.tag", None, "changed",
             "1.0", "1.1"),
        },
        "HelmValues/values": {
            ("replicaCount", None, "changed", 1, 2),
            ("resources.requests.cpu", None, "changed", "200m", 0.75),
        },
    }


# ---------------------------------------------------------------- field changes


def _paths(changes: tuple[Change, ...]) -> list[tuple[str, str, Any, Any]]:
    """(path [flag], op, old, new), sorted: the comparable form of a change list."""
    out = [(c.dotted + (f" {c.flag}" if c.flag else ""), c.op, c.old, c.new) for c in changes]
    return sorted(out, key=lambda t: json.dumps(t, sort_keys=True))


def _sorted(*expected: tuple[str, str, Any, Any]) -> list[tuple[str, str, Any, Any]]:
    return sorted(expected, key=lambda t: json.dumps(t, sort_keys=True))


def test_named_lists_match_by_key_not_index() -> None:
    base = {"spec": {
        "containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}],
        "tolerations": [{"key": "gpu", "operator": "Exists"},
                        {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
        "volumes": [{"name": "v1", "emptyDir": {}}],
    }}
    head = {"spec": {
        "containers": [{"name": "b", "image": "y"}, {"name": "a", "image": "x2",
                                                     "volumeMounts": [{"name": "v1",
                                                                       "mountPath": "/data"}]}],
        "tolerations": [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoExecute"},
                        {"key": "gpu", "operator": "Exists"}],
        "volumes": [{"name": "v1", "emptyDir": {}}],
    }}
    assert _paths(compare(base, head)) == _sorted(
        ("spec.containers.a.image", "changed", "x", "x2"),
        ("spec.containers.a.volumeMounts", "added", None, [{"name": "v1", "mountPath": "/data"}]),
        ("spec.tolerations.node-role.kubernetes.io/control-plane.effect", "changed",
         "NoSchedule", "NoExecute"),
    )


def test_ports_env_and_volume_mounts_keys() -> None:
    base = {"ports": [{"containerPort": 8080}, {"containerPort": 9090, "protocol": "TCP"}],
            "env": [{"name": "A", "value": "1"}],
            "volumeMounts": [{"name": "shm", "mountPath": "/dev/shm"},
                             {"name": "data", "mountPath": "/a", "subPath": "a"},
                             {"name": "data", "mountPath": "/b", "subPath": "b"}]}
    head = {"ports": [{"containerPort": 9090}, {"containerPort": 8080, "protocol": "TCP",
                                                "name": "http"}],
            "env": [{"name": "A", "value": "2"}],
            "volumeMounts": [{"name": "data", "mountPath": "/b", "subPath": "b2"},
                             {"name": "data", "mountPath": "/a", "subPath": "a"},
                             {"name": "shm", "mountPath": "/dev/shm"}]}
    assert _paths(compare(base, head)) == _sorted(
        ("ports.8080/TCP.protocol", "added", None, "TCP"),
        ("ports.8080/TCP.name", "added", None, "http"),
        ("ports.9090/TCP.protocol", "removed", "TCP", None),
        ("env.A.value", "changed", "1", "2"),
        ("volumeMounts./b.subPath", "changed", "b", "b2"),
    )


def test_args_are_flags() -> None:
    base = {"args": ["serve", "--model", "m", "--tensor-parallel-size", "1", "--port=80",
                     "--served-model-name", "a", "b", "--enforce-eager"]}
    head = {"args": ["serve", "--port", "80", "--model=m", "--tensor-parallel-size=2",
                     "--served-model-name", "a", "c", "--max-num-seqs", "-1"]}
    assert _paths(compare(base, head)) == _sorted(
        ("args --tensor-parallel-size", "changed", "1", "2"),
        ("args --served-model-name", "changed", "a b", "a c"),
        ("args --enforce-eager", "removed", True, None),
        ("args --max-num-seqs", "added", None, "-1"),
    )
    # Positionals keep their place; moving flags around is reported once, as an order change.
    moved = compare({"command": ["python", "-m", "x", "--a", "1", "--b"]},
                    {"command": ["python", "-m", "x", "--b", "--a", "1"]})
    assert [(c.dotted, c.op) for c in moved] == [("command", "reordered")]
    positional = compare({"args": ["run", "x"]}, {"args": ["serve", "x"]})
    assert _paths(positional) == [("args [0]", "changed", "run", "serve")]


def test_quantities_compare_by_value_and_yaml11_scalars_as_kubernetes_reads_them() -> None:
    from reviewbot.load.loader import load
    from reviewbot.sources.tree import FileRecord

    def value(text: str) -> Any:
        return load(FileRecord("x.yaml", "0", textwrap.dedent(text).encode())).documents[0].value

    base = value("""
        resources: {requests: {cpu: 1000m, memory: 1Gi}, limits: {nvidia.com/gpu: 1}}
        emptyDir: {sizeLimit: 8Gi}
        hostNetwork: yes
        mode: 0644
    """)
    head = value("""
        resources: {requests: {cpu: "1", memory: 1073741824}, limits: {nvidia.com/gpu: "1"}}
        emptyDir: {sizeLimit: 8192Mi}
        hostNetwork: true
        mode: 420
    """)
    assert compare(base, head) == ()
    bigger = value("resources: {requests: {cpu: 1001m}}")
    assert _paths(compare({"resources": {"requests": {"cpu": "1"}}}, bigger)) == _sorted(
        ("resources.requests.cpu", "changed", "1", "1001m"),
    )


def test_unnamed_list_insert_is_one_added_entry() -> None:
    def rule(ns: str, port: int) -> dict[str, Any]:
        return {"from": [{"namespaceSelector": {"matchLabels": {"name": ns}}}],
                "ports": [{"port": port}]}

    base = {"spec": {"ingress": [rule("a", 80), rule("b", 80), rule("c", 8000)]}}
    head = {"spec": {"ingress": [rule("a", 80), rule("b", 80), rule("poimen", 8080),
                                 rule("c", 8000)]}}
    assert _paths(compare(base, head)) == [("spec.ingress.2", "added", None, rule("poimen", 8080))]
    edited = {"spec": {"ingress": [rule("a", 80), rule("b", 81), rule("c", 8000)]}}
    assert _paths(compare(base, edited)) == _sorted(
        ("spec.ingress.1.ports.80/TCP", "removed", {"port": 80}, None),
        ("spec.ingress.1.ports.81/TCP", "added", None, {"port": 81}),
    )
    moved = {"spec": {"ingress": [rule("a", 80), rule("b", 80), rule("c", 8001)]}}
    assert _paths(compare(base, moved)) == _sorted(
        ("spec.ingress.2.ports.8000/TCP", "removed", {"port": 8000}, None),
        ("spec.ingress.2.ports.8001/TCP", "added", None, {"port": 8001}),
    )


def test_scalar_lists_show_items_added_and_removed() -> None:
    changes = compare({"resources": ["a.yaml", "b.yaml", "c.yaml"]},
                      {"resources": ["c.yaml", "a.yaml", "d.yaml"]})
    assert [(c.dotted, c.items_added, c.items_removed) for c in changes] == [
        ("resources", ("d.yaml",), ("b.yaml",)),
    ]


def test_a_string_yaml_would_read_as_another_type_is_shown_quoted() -> None:
    from reviewbot.report.difftext import scalar
    assert [scalar(v) for v in ("34", "off", "1.10", "0o17", "3.5.1", "v35", 34, True)] == [
        '"34"', '"off"', '"1.10"', '"0o17"', "3.5.1", "v35", "34", "true"]
    text = render_diff_text([{
        "change": "modified", "kind": "HelmRelease", "namespace": "echo", "name": "echo",
        "file": "hr.yaml", "line": 1, "changes": [
            {"op": "changed", "path": "spec.values.image.tag", "old": "34", "new": "35"}]}])
    assert '      - "34"\n      + "35"\n' in text


def test_stable_paths_name_list_items() -> None:
    body = {"spec": {"template": {"spec": {"containers": [
        {"name": "side"},
        {"name": "app", "args": ["--a", "1", "--tensor-parallel-size=2"],
         "resources": {"limits": {"nvidia.com/gpu": 2}}},
    ]}}}}
    path = parse_path('spec.template.spec.containers[1].resources.limits."nvidia.com/gpu"')
    assert path == ("spec", "template", "spec", "containers", 1, "resources", "limits",
                    "nvidia.com/gpu")
    assert stable_path(body, path) == (
        "spec.template.spec.containers.app.resources.limits.nvidia.com/gpu"
    )
    assert stable_path(body, parse_path("spec.template.spec.containers[1].args[1]")) == (
        "spec.template.spec.containers.app.args.--a"
    )
    assert stable_path(body, parse_path("spec.template.spec.containers[1].args[2]")) == (
        "spec.template.spec.containers.app.args.--tensor-parallel-size"
    )


def test_text_output_escapes_control_characters_and_colours_only_when_asked() -> None:
    entry = {"object": "ConfigMap/x/evil\x1b[2J", "change": "modified", "file": "a.yaml",
             "line": 3, "changes": [{"path": "data.k", "op": "changed", "old": "a\u202eb",
                                     "new": "c"}]}
    plain = render_diff_text([entry], color=False)
    assert "\x1b" not in plain and "\u202e" not in plain
    assert "evil\\u001b[2J" in plain and "a\\u202eb" in plain
    assert "\x1b[31m" in render_diff_text([entry], color=True)


def test_multiline_strings_show_a_line_diff() -> None:
    changes = compare({"data": {"script": "set -e\necho one\necho two\n"}},
                      {"data": {"script": "set -e\necho one\necho three\n"}})
    text = render_diff_text([{"object": "ConfigMap/a/b", "change": "modified", "file": "f",
                              "line": 1, "changes": [c.as_json() for c in changes]}])
    assert "      - echo two\n      + echo three\n" in text


def test_markdown_diff_is_collapsible_per_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"app.yaml": DEPLOY, "svc.yaml": SERVICE})
    head = repo.commit({"app.yaml": DEPLOY.replace("replicas: 2", "replicas: 3"),
                        "svc.yaml": None,
                        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
    code, out, _ = run_cli(["diff", base, head, "--repo", str(repo.path), "--format",
                            "markdown"], capsys)
    assert code == 0
    assert out.startswith("### Changes (1 modified, 1 added, 1 removed)\n")
    assert ("<details><summary>~ <code>Deployment/shop/web</code> <b>modified</b> in "
            "<code>app.yaml</code> (1 change)</summary>\n\n```diff\n  spec.replicas\n-   2\n+   3\n"
            "```\n\n</details>") in out
    assert "<details><summary>+ 1 object added</summary>\n\n- `ConfigMap/default/c` in " \
           "`cm.yaml:1`\n\n</details>" in out
    assert "- `Service/shop/web` (was in `svc.yaml`)" in out
    assert out.count("<details>") == out.count("</details>") == 3
    # a kustomization file added with the objects it lists is a file, not an object
    # (new-user trial thirty-one: "+ 5 objects added" beside the text's "4 objects, 1 file")
    app = repo.commit({"apps/web/kustomization.yaml": "resources: [cm.yaml]\n",
                       "apps/web/cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"
                                           "metadata: {name: d}\n"})
    code, out, _ = run_cli(["diff", head, app, "--repo", str(repo.path), "--format",
                            "markdown"], capsys)
    assert "<details><summary>+ 1 object, 1 file added</summary>" in out
    # named by its path, a file's entry says the path once (new-user trial seventy-nine W3)
    assert "- kustomize file `apps/web/kustomization.yaml` (line 1)\n" in out
    gone = repo.commit({"apps/web/kustomization.yaml": None, "apps/web/cm.yaml": None})
    out = run_cli(["diff", app, gone, "--repo", str(repo.path), "--format", "markdown"],
                  capsys)[1]
    assert "- kustomize file `apps/web/kustomization.yaml`\n" in out


@pytest.mark.parametrize(("base", "head"), [
    ({"data": "not-a-map-SECRET1"}, {"data": "not-a-map-SECRET2"}),
    ({"data": {"k": "U0VDUkVUMQ=="}}, {"data": {"k": "U0VDUkVUMg==", "n": ["SECRET3"]}}),
    ({"stringData": {"k": {"deep": "SECRET1"}}}, {"stringData": {"k": {"deep": "SECRET2"}}}),
    ({}, {"stringData": {"k": "SECRET1"}, "data": {"j": "SECRET2"}}),
    ({"stringData": {"k": "SECRET1"}}, {}),
    ({"kind": "SealedSecret", "spec": {"encryptedData": {"k": "SECRET1"}}},
     {"kind": "SealedSecret", "spec": {"encryptedData": {"k": "SECRET2"},
                                       "template": {"data": {"x": "SECRET3"}}}}),
])
def test_secret_values_never_leave_compare(base: dict[str, Any], head: dict[str, Any]) -> None:
    changes = compare(base, head, secret=True)
    assert changes
    shown = json.dumps([c.as_json() for c in changes]) + render_diff_text(
        [{"object": "Secret/a/b", "change": "modified", "file": "f", "line": 1,
          "changes": [c.as_json() for c in changes]}])
    assert "SECRET" not in shown and "U0VDUkVU" not in shown


def test_booleans_are_not_numbers() -> None:
    """Python says True == 1 == 1.0; YAML and Kubernetes do not."""
    assert _paths(compare({"a": True, "b": [True]}, {"a": 1, "b": [1]})) == _sorted(
        ("a", "changed", True, 1), ("b", "changed", [True], [1]),
    )
    assert compare({"a": 1, "b": [2.5]}, {"a": 1, "b": [2.5]}) == ()


def test_diff_exit_code_flag_and_formats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    cm = repo / "cm.yaml"
    cm.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: one}\n")
    git_env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=git_env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "one"], check=True, env=git_env)
    args = ["diff", "HEAD", "--repo", str(repo)]
    assert main([*args, "--exit-code"]) == 0
    cm.write_text(cm.read_text().replace("one", "two"))
    assert main(args) == 0
    assert main([*args, "--exit-code"]) == 1
    assert "data.k" in capsys.readouterr().out
    assert main([*args, "--format", "sarif"]) == 2
    # a kustomization rewritten to build the same objects changes none (new-user trial
    # seventy-one W7: a refactor's `diff --exit-code` exit 1)
    (repo / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=git_env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "two"], check=True, env=git_env)
    (repo / "kustomization.yaml").write_text("resources:\n- ./cm.yaml\n")
    assert main([*args, "--exit-code"]) == 0
    assert "kustomize file kustomization.yaml" in capsys.readouterr().out


def test_a_kustomization_file_is_named_as_a_file_not_a_flux_kustomization(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The diff's JSON names a kustomization file ``Kustomization/<path>`` (its contract);
    the text and Markdown name it as a file, which a Flux Kustomization is not; the text
    header names the line of its first change, as an object's does (docs/review.md)."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"app/kustomization.yaml": "resources: []\n"})
    head = repo.commit({"app/kustomization.yaml": "resources: []\nnamePrefix: a-\n"})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert out.splitlines()[0] == "~ kustomize file app/kustomization.yaml:2  modified"
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "markdown", base,
                            head], capsys)
    assert ("~ kustomize file <code>app/kustomization.yaml</code> <b>modified</b> "
            "(1 change)</summary>") in out
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base,
                            head], capsys)
    assert json.loads(out)["diff"][0]["object"] == "Kustomization/app/kustomization.yaml"


def test_a_helm_values_file_s_text_header_names_its_first_changed_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Helm values file's text header is its path and the line of its first change, as
    an object's header names its first changed field (a new-user trial: it named the file
    alone, though docs/review.md says every header names its line)."""
    repo = GitRepo(tmp_path / "repo")
    chart = "apiVersion: v2\nname: web\nversion: 1.0.0\n"
    values = "replicas: 1\nimage:\n  repository: nginx\n  tag: '{tag}'\n"
    base = repo.commit({"web/Chart.yaml": chart, "web/values.yaml": values.format(tag="1.27")})
    head = repo.commit({"web/values.yaml": values.format(tag="1.28")})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert out.splitlines()[0] == "~ Helm values file web/values.yaml:4  modified"
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base,
                            head], capsys)
    assert [(e["file"], e["line"]) for e in json.loads(out)["diff"]] == [("web/values.yaml", 4)]


def test_a_values_file_no_release_reads_any_more_is_no_longer_read_not_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial seventy-six D3: the Application's `$values` entry renamed to a file
    that does not exist; the diff said "- Helm values file values-prod.yaml removed" of a
    file still in the tree. What changed is that no release reads it (the JSON keeps its
    status, `removed`)."""
    app = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
           "metadata: {name: pg, namespace: argocd}\nspec:\n  project: default\n"
           "  sources:\n  - repoURL: https://charts.bitnami.com/bitnami\n"
           "    chart: postgresql\n    targetRevision: 15.5.0\n"
           "    helm: {valueFiles: [$values/values/%s]}\n"
           "  - {repoURL: 'https://git.example.com/x.git', targetRevision: main, ref: values}\n"
           "  destination: {server: 'https://kubernetes.default.svc', namespace: db}\n")
    root = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
            "metadata: {name: root, namespace: argocd}\nspec:\n  project: default\n"
            "  source: {repoURL: 'https://git.example.com/x.git', targetRevision: main, "
            "path: argocd/apps}\n"
            "  destination: {server: 'https://kubernetes.default.svc', namespace: argocd}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"argocd/root.yaml": root, "argocd/apps/pg.yaml": app % "values-prod.yaml",
                        "values/values-prod.yaml": "primary: {persistence: {size: 8Gi}}\n"})
    head = repo.commit({"argocd/apps/pg.yaml": app % "values-production.yaml"})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert ("- Helm values file values/values-prod.yaml  no longer read  (no release of the "
            "head reads it)") in out.splitlines()
    assert "1 modified, 1 no longer read (1 object, 1 file)" in out.splitlines()
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "markdown", base,
                            head], capsys)
    assert "<summary>- 1 file no longer read</summary>" in out
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base,
                            head], capsys)
    assert [e["change"] for e in json.loads(out)["diff"]] == ["modified", "removed"]


def test_an_object_two_clusters_build_apart_names_each_cluster_s_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial eighteen: a Deployment both clusters build changed differently in each,
    and the two headers read alike ("~ Deployment/ai/vllm  modified ...", twice), both
    builds named `flux-system/apps`. Each header names its build and that build's cluster;
    the JSON entry's `builds` says the same."""
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\n"
            "spec: {{interval: 10m, path: {path}, prune: true, "
            "sourceRef: {{kind: GitRepository, name: flux-system}}}}\n")
    web = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: apps}\n"
           "spec:\n  template:\n    spec:\n      containers: [{name: web, image: web}]\n")
    overlay = ("resources: [../../base]\nimages: [{{name: web, newTag: '{tag}'}}]\n")
    files = {"base/kustomization.yaml": "resources: [web.yaml]\n", "base/web.yaml": web}
    for env, tag in (("prod", "1.0"), ("staging", "1.0")):
        files[f"clusters/{env}/flux-system/gotk-sync.yaml"] = sync.format(
            name="flux-system", path=f"./clusters/{env}")
        files[f"clusters/{env}/apps.yaml"] = sync.format(name="apps", path=f"./overlays/{env}")
        files[f"overlays/{env}/kustomization.yaml"] = overlay.format(tag=tag)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(files)
    head = repo.commit({"overlays/prod/kustomization.yaml": overlay.format(tag="1.1"),
                        "overlays/staging/kustomization.yaml": overlay.format(tag="2.0")})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    headers = [line for line in out.splitlines() if line.startswith("~ Deployment")]
    assert headers == [  # (at the entry each overlay sets the image with: trial 78 W1)
        "~ Deployment/apps/web  modified  overlays/prod/kustomization.yaml:2 (object of "
        "base/web.yaml)  (in Flux Kustomization flux-system/apps of cluster clusters/prod)",
        "~ Deployment/apps/web  modified  overlays/staging/kustomization.yaml:2 (object of "
        "base/web.yaml)  (in Flux Kustomization flux-system/apps of cluster clusters/staging)"]
    # (the image each overlay's `images` entry sets: there, not at the base's line)
    assert "image  (set in overlays/prod/kustomization.yaml:2)" in out
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base,
                            head], capsys)
    assert [e.get("builds") for e in json.loads(out)["diff"] if e["kind"] == "Deployment"] == [
        ["Flux Kustomization flux-system/apps of cluster clusters/prod"],
        ["Flux Kustomization flux-system/apps of cluster clusters/staging"]]


def test_an_object_two_clusters_build_changed_in_one_names_that_cluster_s_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial fifty-nine: a base's `${GPU_COUNT}` only production's variables left
    unset changed production's copy alone, and its entry named no build: a reader took
    production's `--tp ''` for every cluster's. An object other builds make too names the
    build whose copy changed."""
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\n"
            "spec: {{interval: 10m, path: {path}, prune: true, "
            "sourceRef: {{kind: GitRepository, name: flux-system}}}}\n")
    web = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: apps}\n"
           "spec:\n  template:\n    spec:\n      containers: [{name: web, image: web}]\n")
    overlay = ("resources: [../../base]\nimages: [{{name: web, newTag: '{tag}'}}]\n")
    files = {"base/kustomization.yaml": "resources: [web.yaml]\n", "base/web.yaml": web}
    for env in ("prod", "staging"):
        files[f"clusters/{env}/flux-system/gotk-sync.yaml"] = sync.format(
            name="flux-system", path=f"./clusters/{env}")
        files[f"clusters/{env}/apps.yaml"] = sync.format(name="apps", path=f"./overlays/{env}")
        files[f"overlays/{env}/kustomization.yaml"] = overlay.format(tag="1.0")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(files)
    head = repo.commit({"overlays/prod/kustomization.yaml": overlay.format(tag="1.1")})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert [line for line in out.splitlines() if line.startswith("~ Deployment")] == [
        "~ Deployment/apps/web  modified  overlays/prod/kustomization.yaml:2 (object of "
        "base/web.yaml)  (in Flux Kustomization flux-system/apps of cluster clusters/prod)"]
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base,
                            head], capsys)
    assert [e.get("builds") for e in json.loads(out)["diff"] if e["kind"] == "Deployment"] == [
        ["Flux Kustomization flux-system/apps of cluster clusters/prod"]]
    # copies apart made alike by the change: each cluster's entry names its own build alone
    # (new-user trial eighty-one D5: "apps of cluster staging, apps to cluster staging")
    apart = repo.commit({"overlays/prod/kustomization.yaml": overlay.format(tag="2.0"),
                         "overlays/staging/kustomization.yaml": overlay.format(tag="2.0")})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", head,
                            apart], capsys)
    assert sorted(tuple(e.get("builds") or ()) for e in json.loads(out)["diff"]
                  if e["kind"] == "Deployment") == [
        ("Flux Kustomization flux-system/apps of cluster clusters/prod",),
        ("Flux Kustomization flux-system/apps of cluster clusters/staging",)]


def test_an_argo_application_s_build_is_named_by_the_cluster_it_deploys_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial forty-five: a base policy changed, built for staging and prod by two
    Argo CD Applications (living in Argo CD's cluster) over the clusters' configured paths,
    read "the same change in 4 builds: Argo CD Application argocd/platform-staging of cluster
    in-cluster, overlays/staging, ...": each Application and its cluster's path are one
    build, named by the cluster the Application deploys to."""
    app = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
           "metadata: {{name: platform-{env}, namespace: argocd}}\nspec:\n  project: default\n"
           "  source: {{repoURL: https://git.example.com/gitops.git, targetRevision: main, "
           "path: overlays/{env}}}\n  destination: {{name: {env}}}\n")
    web = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: apps}\n"
           "spec:\n  template:\n    spec:\n      containers: [{name: web, image: 'web:1'}]\n")
    files = {".reviewbot.yaml": "clusters:\n  - {name: staging, paths: [overlays/staging]}\n"
                                "  - {name: prod, paths: [overlays/prod]}\n",
             "argocd/kustomization.yaml": "resources: [staging.yaml, prod.yaml]\n",
             "base/kustomization.yaml": "resources: [web.yaml]\n", "base/web.yaml": web}
    for env in ("staging", "prod"):
        files[f"argocd/{env}.yaml"] = app.format(env=env)
        files[f"overlays/{env}/kustomization.yaml"] = (
            f"resources: [../../base]\nlabels:\n- pairs: {{env: {env}}}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(files)
    head = repo.commit({"base/web.yaml": web.replace("web:1", "web:2")})
    _, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert [line for line in out.splitlines() if line.startswith("~ Deployment")] == [
        "~ Deployment/apps/web  modified  base/web.yaml:7  (the same change in 2 builds: Argo "
        "CD Application argocd/platform-staging to cluster staging, Argo CD Application "
        "argocd/platform-prod to cluster prod)"]


def test_an_object_one_cluster_drops_while_another_keeps_it_is_removed_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial eighteen: a claim both clusters build alike from one base, which the
    staging overlay's `$patch: delete` takes out of its build, read "1 modified (1 file)":
    the claim was paired with production's, the same body. It is removed in staging, and the
    entry names that cluster's build; a PR putting the patch back adds it there."""
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\n"
            "spec: {{interval: 10m, path: {path}, prune: true, "
            "sourceRef: {{kind: GitRepository, name: flux-system}}}}\n")
    pvc = ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: "
           "shop}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n")
    files = {"base/kustomization.yaml": "resources: [pvc.yaml]\n", "base/pvc.yaml": pvc}
    for env in ("prod", "staging"):
        files[f"clusters/{env}/flux-system/gotk-sync.yaml"] = sync.format(
            name="flux-system", path=f"./clusters/{env}")
        files[f"clusters/{env}/apps.yaml"] = sync.format(name="apps", path=f"./overlays/{env}")
        files[f"overlays/{env}/kustomization.yaml"] = "resources: [../../base]\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(files)
    head = repo.commit({"overlays/staging/kustomization.yaml": (
        "resources: [../../base]\npatches:\n  - patch: |\n      $patch: delete\n"
        "      apiVersion: v1\n      kind: PersistentVolumeClaim\n"
        "      metadata: {name: data, namespace: shop}\n")})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert ("- PersistentVolumeClaim/shop/data  removed  (was in base/pvc.yaml)  (in Flux "
            "Kustomization flux-system/apps of cluster clusters/staging)") in out.splitlines()
    assert "1 modified, 1 removed (1 object, 1 file)" in out
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base,
                            head], capsys)
    assert [(e["object"], e["change"], e.get("builds")) for e in json.loads(out)["diff"]
            if e["kind"] == "PersistentVolumeClaim"] == [
        ("PersistentVolumeClaim/shop/data", "removed",
         ["Flux Kustomization flux-system/apps of cluster clusters/staging"])]
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), head, base], capsys)
    assert ("+ PersistentVolumeClaim/shop/data  added  base/pvc.yaml:1  (in Flux "
            "Kustomization flux-system/apps of cluster clusters/staging)") in out.splitlines()


def test_a_generated_configmap_one_cluster_makes_anew_is_changed_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial eighty D4: both clusters build the base's generated ConfigMap alike;
    staging's overlay merges a key into it, so staging's build names it by a new hash (Argo
    CD or Flux prunes the old one there, where prod keeps it): the diff listed the new one
    alone (its generated objects were of no cluster, paired with prod's)."""
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\n"
            "spec: {{interval: 10m, path: {path}, prune: true, "
            "sourceRef: {{kind: GitRepository, name: flux-system}}}}\n")
    files = {"base/kustomization.yaml": (
        "configMapGenerator:\n- {name: web, namespace: shop, literals: [A=1]}\n")}
    for env in ("prod", "staging"):
        files[f"clusters/{env}/flux-system/gotk-sync.yaml"] = sync.format(
            name="flux-system", path=f"./clusters/{env}")
        files[f"clusters/{env}/apps.yaml"] = sync.format(name="apps", path=f"./overlays/{env}")
        files[f"overlays/{env}/kustomization.yaml"] = "resources: [../../base]\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(files)
    head = repo.commit({"overlays/staging/kustomization.yaml": (
        "resources: [../../base]\nconfigMapGenerator:\n"
        "- {name: web, namespace: shop, behavior: merge, literals: [B=2]}\n")})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base,
                            head], capsys)
    # one change of staging's copy, key by key, named as its generator names it (new-user
    # trial eighty W4: a hash-named ConfigMap added, another removed, its data unsaid)
    [entry] = [e for e in json.loads(out)["diff"] if e["kind"] == "ConfigMap"]
    assert (entry["object"], entry["change"], entry["file"]) == (
        "ConfigMap/shop/web", "modified", "overlays/staging/kustomization.yaml")
    assert [c["path"] for c in entry["changes"]] == ["data.B"]


def test_a_change_one_cluster_s_failing_build_holds_back_is_said_for_that_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both clusters build one base alike; the PR changes the base's image and breaks the
    staging overlay (an entry naming a file that does not exist). Production gets the new
    image; staging keeps the old one: two entries, the second "in the source only" with the
    staging build's refused entry (it was one entry, as if both clusters got it)."""
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\n"
            "spec: {{interval: 10m, path: {path}, prune: true, "
            "sourceRef: {{kind: GitRepository, name: flux-system}}}}\n")
    web = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: apps}}\n"
           "spec:\n  template:\n    spec:\n      containers: [{{name: web, image: 'web:{tag}'}}]\n")
    files = {"base/kustomization.yaml": "resources: [web.yaml]\n",
             "base/web.yaml": web.format(tag="1.0")}
    for env in ("prod", "staging"):
        files[f"clusters/{env}/flux-system/gotk-sync.yaml"] = sync.format(
            name="flux-system", path=f"./clusters/{env}")
        files[f"clusters/{env}/apps.yaml"] = sync.format(name="apps", path=f"./overlays/{env}")
        files[f"overlays/{env}/kustomization.yaml"] = "resources: [../../base]\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(files)
    head = repo.commit({"base/web.yaml": web.format(tag="1.1"),
                        "overlays/staging/kustomization.yaml": (
                            "resources: [../../base, gone.yaml]\n")})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    headers = [line for line in out.splitlines() if line.startswith("~ Deployment")]
    assert headers == [
        "~ Deployment/apps/web  modified  base/web.yaml:7  (in Flux Kustomization "
        "flux-system/apps of cluster clusters/prod)",
        "~ Deployment/apps/web  modified in the source only: its head build fails  "
        "base/web.yaml:7  (in Flux Kustomization flux-system/apps of cluster clusters/staging)"]
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base,
                            head], capsys)
    assert [(e.get("builds"), e.get("build_fails")) for e in json.loads(out)["diff"]
            if e["kind"] == "Deployment"] == [
        (["Flux Kustomization flux-system/apps of cluster clusters/prod"], None),
        (["Flux Kustomization flux-system/apps of cluster clusters/staging"],
         {"side": "head", "file": "overlays/staging/kustomization.yaml", "entry": "gone.yaml",
          "why": "does not exist"})]


def test_each_application_an_application_set_generates_builds_on_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial twenty-one: an ApplicationSet's two Applications build one base; the
    PR removes a claim the production overlay patches, so production's build fails and
    staging's works. The diff said the claim was removed "in the source only" in both."""
    appset = textwrap.dedent("""
        apiVersion: argoproj.io/v1alpha1
        kind: ApplicationSet
        metadata: {name: shop, namespace: argocd}
        spec:
          generators:
            - list: {elements: [{env: staging}, {env: production}]}
          template:
            metadata: {name: "shop-{{env}}"}
            spec:
              project: default
              source: {repoURL: "https://git.example/shop.git", path: "envs/{{env}}"}
              destination: {server: "https://kubernetes.default.svc", namespace: "shop-{{env}}"}
              syncPolicy: {automated: {prune: true}}
    """)
    root = textwrap.dedent("""
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {name: root, namespace: argocd}
        spec:
          project: default
          source: {repoURL: "https://git.example/shop.git", path: argocd/apps}
          destination: {server: "https://kubernetes.default.svc", namespace: argocd}
    """)
    pvc = ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\n"
           "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "argocd/root.yaml": root, "argocd/apps/appset.yaml": appset,
        "base/kustomization.yaml": "resources: [pvc.yaml, cm.yaml]\n", "base/pvc.yaml": pvc,
        "base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
        "envs/staging/kustomization.yaml": "resources: [../../base]\n",
        "envs/production/kustomization.yaml": (
            "resources: [../../base]\npatches:\n  - path: pvc-patch.yaml\n"),
        "envs/production/pvc-patch.yaml": (
            "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\n"
            "spec: {resources: {requests: {storage: 5Gi}}}\n"),
    })
    head = repo.commit({"base/kustomization.yaml": "resources: [cm.yaml]\n",
                        "base/pvc.yaml": None})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert [line for line in out.splitlines() if line.startswith("- PersistentVolumeClaim")
            ] == [
        "- PersistentVolumeClaim/shop-production/data  removed in the source only: its head "
        "build fails  (was in base/pvc.yaml)",
        "- PersistentVolumeClaim/shop-staging/data  removed  (was in base/pvc.yaml)"]


def test_a_cluster_s_flux_path_that_does_not_exist_removes_nothing_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial twenty-two: dev's `path: ./apps/dve` (a typo) listed dev's objects
    removed, and paired dev's Deployment of the base with prod's of the head, a prod change
    nobody made. kustomize-controller applies nothing of a path not found: dev's objects are
    "removed in the source only", and prod's are as they were."""
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\n"
            "spec: {{interval: 10m, path: {path}, prune: true, "
            "sourceRef: {{kind: GitRepository, name: flux-system}}}}\n")
    web = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: apps}\n"
           "spec:\n  template:\n    spec:\n      containers: [{name: web, image: web}]\n")
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: apps}\n"
    files = {"base/kustomization.yaml": "resources: [web.yaml, cm.yaml]\n",
             "base/web.yaml": web, "base/cm.yaml": cm}
    for env, replicas in (("prod", 3), ("dev", 1)):
        files[f"clusters/{env}/flux-system/gotk-sync.yaml"] = sync.format(
            name="flux-system", path=f"./clusters/{env}")
        files[f"clusters/{env}/apps.yaml"] = sync.format(name="apps", path=f"./overlays/{env}")
        files[f"overlays/{env}/kustomization.yaml"] = (
            f"resources: [../../base]\nreplicas: [{{name: web, count: {replicas}}}]\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(files)
    head = repo.commit({"clusters/dev/apps.yaml": sync.format(name="apps",
                                                              path="./overlays/dve")})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    lines = [line for line in out.splitlines() if "Deployment" in line]
    assert len(lines) == 1 and lines[0].startswith(
        "- Deployment/apps/web  removed in the source only: its head build fails  (was in "
        "base/web.yaml)  (in ") and lines[0].endswith(
        "Flux Kustomization flux-system/apps of cluster clusters/dev)")
    # Markdown says why once, the objects it holds back listed under it (new-user trial
    # twenty-three: the sentence was repeated after each object of the cluster), each
    # object once (dev's Deployment, built apart from prod's, was listed twice)
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "markdown", base,
                            head], capsys)
    assert "### Changes (1 modified, 2 removed; 2 of them in a failing build)" in out
    removed = out.split("removed</summary>\n\n", 1)[1].split("\n\n</details>", 1)[0]
    assert removed.splitlines() == [
        "- 2 objects (in Flux Kustomization flux-system/apps of cluster clusters/dev); "
        "clusters/dev/apps.yaml: './overlays/dve' does not exist, so the head build "
        "fails: nothing of it is applied, the cluster keeps what it has:",
        "  - `ConfigMap/apps/web` (was in `base/cm.yaml`)",
        "  - `Deployment/apps/web` (was in `base/web.yaml`)"]


def test_one_document_that_two_builds_make_changes_once_and_a_kustomization_is_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two overlays build one base into two objects of one identity (the overlays differ in
    a label): the same change in each is one entry that says so and names the builds, in
    text and Markdown (JSON keeps one entry per object, each naming its build); a
    kustomization file's entry names it as a file, not as a Flux Kustomization."""
    deploy = textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: web, namespace: shop}}
        spec:
          selector: {{matchLabels: {{app: web}}}}
          template:
            metadata: {{labels: {{app: web}}}}
            spec:
              containers:
              - {{name: web, image: "nginx:{tag}"}}
        """)
    overlay = "resources: [../../base]\nlabels:\n- pairs: {{env: {env}}}\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "base/kustomization.yaml": "resources: [deploy.yaml]\n",
        "base/deploy.yaml": deploy.format(tag="1.27"),
        "overlays/a/kustomization.yaml": overlay.format(env="a"),
        "overlays/b/kustomization.yaml": overlay.format(env="b"),
    })
    head = repo.commit({"base/deploy.yaml": deploy.format(tag="1.28"),
                        "overlays/b/kustomization.yaml": overlay.format(env="b") + "# b\n"
                        "namePrefix: ''\n"})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    headers = [line for line in out.splitlines() if line[:2] in ("~ ", "+ ", "- ")]
    assert headers == [
        "~ Deployment/shop/web  modified  base/deploy.yaml:10  "
        "(the same change in 2 builds: overlays/a, overlays/b)",
        "~ kustomize file overlays/b/kustomization.yaml:5  modified",  # its first change
    ]
    # counted as shown: one entry for the change two builds make (new-user trial
    # seventy-five W2 read "6 renamed" above 5)
    assert "2 modified (1 object, 1 file, 1 of them made by another build too)" in out
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "markdown", base,
                            head], capsys)
    assert out.count("<code>Deployment/shop/web</code>") == 1
    assert "### Changes (2 modified; 1 of them made by another build too)" in out
    assert "(1 change) (the same change in 2 builds: overlays/a, overlays/b)</summary>" in out
    assert ("~ kustomize file <code>overlays/b/kustomization.yaml</code> <b>modified</b> "
            "(1 change)</summary>") in out
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base,
                            head], capsys)
    assert [(e["object"], e.get("builds")) for e in json.loads(out)["diff"]][:2] == [
        ("Deployment/shop/web", ["overlays/a"]), ("Deployment/shop/web", ["overlays/b"])]
    # objects two builds add alike: counted once in the list's summary too (new-user trial
    # eighty-three D5 read "2 added" above "+ 4 objects added", two listed)
    added = repo.commit({"base/kustomization.yaml": "resources: [deploy.yaml, cm.yaml]\n",
                         "base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"
                                         "metadata: {name: c, namespace: shop}\n"})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "markdown", head,
                            added], capsys)
    assert "<summary>+ 1 object added</summary>" in out, out


def test_the_same_change_to_one_document_in_four_namespaces_is_one_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One file applied to four namespaces (four Argo CD Applications, the codefresh
    examples' simple-deployment) changes alike in each: the text and Markdown show one entry
    naming the four namespaces; JSON keeps one entry per changed object, its contract."""
    deploy = textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: web}}
        spec:
          selector: {{matchLabels: {{app: web}}}}
          template:
            metadata: {{labels: {{app: web}}}}
            spec:
              containers:
              - {{name: web, image: "nginx:{tag}"}}
        """)
    app = textwrap.dedent("""\
        ---
        apiVersion: argoproj.io/v1alpha1
        kind: Application
        metadata: {{name: web-{ns}, namespace: argocd}}
        spec:
          project: default
          source: {{repoURL: https://example.com/r.git, path: manifests}}
          destination: {{server: https://kubernetes.default.svc, namespace: {ns}}}
        """)
    repo = GitRepo(tmp_path / "repo")
    apps = "".join(app.format(ns=ns) for ns in ("default", "a", "b", "c"))
    base = repo.commit({"apps.yaml": apps, "manifests/deploy.yaml": deploy.format(tag="1.27")})
    head = repo.commit({"manifests/deploy.yaml": deploy.format(tag="1.28")})
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert out.splitlines()[0] == (
        "~ Deployment/web in namespaces a, b, c, default  modified  manifests/deploy.yaml:10")
    assert out.count("nginx:1.28") == 1
    assert "4 modified (4 objects)" in out
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "markdown", base,
                            head], capsys)
    assert ("~ <code>Deployment/web</code> in namespaces <code>a</code>, <code>b</code>, "
            "<code>c</code>, <code>default</code> <b>modified</b>") in out
    assert out.count("<details>") == 1
    assert [e["object"] for e in diff_json(repo, base, head, capsys)] == [
        "Deployment/a/web", "Deployment/b/web", "Deployment/c/web", "Deployment/default/web"]


def test_an_object_whose_build_kustomize_refuses_is_not_shown_as_applied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The pull request bumps a base's image and deletes a file its overlay still patches:
    ``kubectl kustomize overlays/prod`` fails, so nothing of that build reaches the cluster.
    The diff does not claim the Deployment modified as the cluster gets it: it says the head
    build fails and why (text, Markdown, JSON ``build_fails``); the staging overlay, which
    builds, is an ordinary change. A base build that failed says its comparison means
    nothing of what runs."""
    deploy = textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: web, namespace: shop}}
        spec:
          selector: {{matchLabels: {{app: web}}}}
          template:
            metadata: {{labels: {{app: web}}}}
            spec:
              containers:
              - {{name: web, image: "nginx:{tag}"}}
        """)
    patch = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "base/kustomization.yaml": "resources: [deploy.yaml, cm.yaml]\n",
        "base/deploy.yaml": deploy.format(tag="1.27"),
        "base/cm.yaml": patch + "data: {k: v}\n",
        "overlays/prod/kustomization.yaml": "resources: [../../base]\nnamePrefix: prod-\n"
                                            "patchesStrategicMerge: [cm.yaml]\n",
        "overlays/prod/cm.yaml": patch + "data: {k: prod}\n",
        "overlays/staging/kustomization.yaml": "resources: [../../base]\n"
                                               "namePrefix: staging-\n",
    })
    head = repo.commit({"base/deploy.yaml": deploy.format(tag="1.28"),
                        "overlays/prod/cm.yaml": None})
    entries = {e["object"]: e for e in diff_json(repo, base, head, capsys)}
    assert entries["Deployment/shop/prod-web"]["build_fails"] == {
        "side": "head", "file": "overlays/prod/kustomization.yaml", "entry": "cm.yaml",
        "why": "does not exist"}
    assert "build_fails" not in entries["Deployment/shop/staging-web"]
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert (
        "~ Deployment/shop/prod-web  modified in the source only: its head build fails  "
        "base/deploy.yaml:10\n"
        "    overlays/prod/kustomization.yaml: 'cm.yaml' does not exist, so the head build "
        "fails: nothing of it is applied, the cluster keeps what it has\n") in out
    assert "~ Deployment/shop/staging-web  modified  base/deploy.yaml:10\n" in out
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "markdown", base,
                            head], capsys)
    assert ("<code>Deployment/shop/prod-web</code> <b>modified in the source only: its head "
            "build fails</b>") in out
    # the other way round: the pull request restores the file, the base build failed
    entries = {e["object"]: e for e in diff_json(repo, head, base, capsys)}
    assert entries["Deployment/shop/prod-web"]["build_fails"]["side"] == "base"
    code, out, _ = run_cli(["diff", "--repo", str(repo.path), head, base], capsys)
    assert "~ Deployment/shop/prod-web  modified, not compared: its base build fails" in out


def test_an_applicationsets_cluster_whose_head_build_fails_keeps_its_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial fifty-four: an Application applies an ApplicationSet that generates an
    Application per overlay (dev, prod), each deploying to its own cluster. The base drops
    an env entry whose value prod's JSON 6902 operation replaces, so prod's build fails
    (kubectl kustomize: "replace operation does not apply"), while dev's builds into the
    same object prod's would. The diff said both clusters' copies "modified", both "of
    cluster in-cluster" (where the ApplicationSet lives): prod's change is in the source
    only, dev's is applied, each named by the cluster it deploys to."""
    root = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: root, "
            "namespace: argocd}\nspec:\n  project: default\n  source: {repoURL: "
            "https://git.example.com/gitops.git, targetRevision: main, path: argocd}\n"
            "  destination: {server: https://kubernetes.default.svc, namespace: argocd}\n")
    appset = textwrap.dedent("""\
        apiVersion: argoproj.io/v1alpha1
        kind: ApplicationSet
        metadata: {name: apps, namespace: argocd}
        spec:
          goTemplate: true
          generators:
          - git:
              repoURL: https://git.example.com/gitops.git
              revision: main
              directories: [{path: 'apps/*/overlays/*'}]
          template:
            metadata: {name: '{{index .path.segments 1}}-{{.path.basename}}'}
            spec:
              project: default
              source: {repoURL: https://git.example.com/gitops.git, targetRevision: main,
                       path: '{{.path.path}}'}
              destination: {name: '{{.path.basename}}', namespace: shop}
        """)
    deploy = textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: api}}
        spec:
          selector: {{matchLabels: {{app: api}}}}
          template:
            metadata: {{labels: {{app: api}}}}
            spec:
              containers:
              - name: api
                image: api:1.0
                env:
                - {{name: UPSTREAM, value: "http://llm"}}{level}
        """)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "bootstrap/root.yaml": root,
        "argocd/kustomization.yaml": "resources: [appset.yaml]\n",
        "argocd/appset.yaml": appset,
        "apps/api/base/kustomization.yaml": "resources: [deploy.yaml]\n",
        "apps/api/base/deploy.yaml": deploy.format(
            level="\n        - {name: LOG_LEVEL, value: info}"),
        "apps/api/overlays/dev/kustomization.yaml": "resources: [../../base]\n",
        # (dev's and staging's one body: its build is named by both clusters it deploys to,
        # not "of cluster in-cluster", the ApplicationSet's own: new-user trial 68 D4)
        "apps/api/overlays/staging/kustomization.yaml": "resources: [../../base]\n",
        "apps/api/overlays/prod/kustomization.yaml": (
            "resources: [../../base]\npatches:\n- target: {kind: Deployment, name: api}\n"
            "  patch: |-\n    - op: replace\n      path: /spec/template/spec/containers/0/env"
            "/1/value\n      value: warn\n"),
    })
    head = repo.commit({"apps/api/base/deploy.yaml": deploy.format(level="")})
    entries = diff_json(repo, base, head, capsys)
    assert [(e["object"], e.get("build_fails", {}).get("file"), e.get("builds"))
            for e in entries] == [
        ("Deployment/shop/api", None,
         ["Argo CD ApplicationSet argocd/apps to clusters dev and staging"]),
        ("Deployment/shop/api", "apps/api/overlays/prod/kustomization.yaml",
         ["Argo CD ApplicationSet argocd/apps to cluster prod"]),
    ]


def test_a_patch_whose_object_the_base_renamed_fails_the_overlay_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The base renames Service demo to demo-web while the overlay still patches demo (the
    third trial's codefresh overlay): ``kubectl kustomize`` fails "no matches for Id
    Service.v1.[noGrp]/demo.[noNs]", so the renamed Service is in the source only."""
    service = "apiVersion: v1\nkind: Service\nmetadata: {{name: {name}}}\nspec:\n" \
              "  selector: {{app: demo}}\n  ports: [{{port: 80}}]\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "base/kustomization.yaml": "resources: [service.yaml]\n",
        "base/service.yaml": service.format(name="demo"),
        "prod/kustomization.yaml": "resources: [../base]\nnamespace: prod\n"
                                   "patchesStrategicMerge: [patch.yaml]\n",
        "prod/patch.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: demo}\n"
                           "spec: {type: NodePort}\n",
    })
    head = repo.commit({"base/service.yaml": service.format(name="demo-web")})
    prod = {e["object"]: e for e in diff_json(repo, base, head, capsys)
            if e["namespace"] == "prod"}
    assert {ref: e["change"] for ref, e in prod.items()} == {
        "Service/prod/demo-web": "added", "Service/prod/demo": "removed"}
    for entry in prod.values():  # neither reaches the cluster: it keeps Service demo
        assert entry["build_fails"] == {
            "side": "head", "file": "prod/kustomization.yaml", "entry": "patch.yaml",
            "why": "patches an object the build does not hold (kustomize: no matches for Id "
                   "Service.v1.[noGrp]/demo.[noNs])"}


TENANTS = """\
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: tenants, namespace: argocd}
spec:
  generators:
    - git:
        repoURL: https://github.com/acme/platform.git
        revision: HEAD
        directories: [{path: tenants/*}]
  template:
    metadata: {name: 'tenant-{{path.basename}}'}
    spec:
      project: default
      source: {repoURL: https://github.com/acme/platform.git, targetRevision: HEAD,
               path: '{{path}}'}
      destination: {server: https://kubernetes.default.svc, namespace: '{{path.basename}}'}
"""


def test_an_application_an_applicationset_stops_generating_is_removed_in_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial twenty-two: a tenant's folder deleted took its generated Application
    away with its objects; the diff listed the objects, not the Application. An Application
    only an ApplicationSet makes comes and goes with what its generators read; one whose
    generators reviewbot cannot evaluate on a side says nothing of it."""
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cfg}}\ndata: {{t: {}}}\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"argocd/tenants.yaml": TENANTS, "tenants/a/cm.yaml": cm.format("a"),
                        "tenants/b/cm.yaml": cm.format("b")})
    head = repo.commit({"tenants/b/cm.yaml": None, "tenants/c/cm.yaml": cm.format("c")})
    _, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert [line for line in out.splitlines() if line.startswith(("+ ", "- "))] == [
        "+ ConfigMap/c/cfg  added  tenants/c/cm.yaml:1",
        "- ConfigMap/b/cfg  removed  (was in tenants/b/cm.yaml)",
        "- Application/argocd/tenant-b  removed  (was generated by ApplicationSet/argocd/"
        "tenants in argocd/tenants.yaml)",
        "+ Application/argocd/tenant-c  added  (generated by ApplicationSet/argocd/tenants in "
        "argocd/tenants.yaml:1)"]
    _, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base, head],
                        capsys)
    made = [(e["object"], e["change"], e["generated_by"]) for e in json.loads(out)["diff"]
            if "generated_by" in e]
    assert made == [("Application/argocd/tenant-b", "removed", "ApplicationSet/argocd/tenants"),
                    ("Application/argocd/tenant-c", "added", "ApplicationSet/argocd/tenants")]
    _, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "markdown", base,
                         head], capsys)
    assert ("- `Application/argocd/tenant-b` (was generated by `ApplicationSet/argocd/tenants` "
            "in `argocd/tenants.yaml`)") in out.splitlines()
    # the ApplicationSet deleted: its Applications go with it
    gone = repo.commit({"argocd/tenants.yaml": None})
    _, out, _ = run_cli(["diff", "--repo", str(repo.path), head, gone], capsys)
    assert [line.split("  ")[0] for line in out.splitlines() if "Application/" in line] == [
        "- Application/argocd/tenant-a and Application/argocd/tenant-c"]
    # generators it does not evaluate on the head (a plugin generator): nothing said of them
    unknown = repo.commit({"argocd/tenants.yaml": TENANTS.replace(
        "    - git:\n        repoURL: https://github.com/acme/platform.git\n"
        "        revision: HEAD\n        directories: [{path: tenants/*}]\n",
        "    - plugin: {configMapRef: {name: tenants}}\n")})
    _, out, _ = run_cli(["diff", "--repo", str(repo.path), head, unknown], capsys)
    assert "Application/" not in out


def test_an_applicationset_its_kustomization_places_generates_each_application_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial sixty-three: an ApplicationSet written without a namespace, in the
    kustomization of argocd/ that sets `namespace: argocd`, listed each Application it
    generates twice, as written (`Application/b`) and as built (`Application/argocd/b`)."""
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n"
    root = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
            "metadata: {name: root, namespace: argocd}\n"
            "spec:\n  source: {repoURL: https://github.com/acme/platform.git, path: argocd}\n"
            "  destination: {server: https://kubernetes.default.svc, namespace: argocd}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "bootstrap/root.yaml": root,
        "argocd/kustomization.yaml": "namespace: argocd\nresources: [tenants.yaml]\n",
        "argocd/tenants.yaml": TENANTS.replace("{name: tenants, namespace: argocd}",
                                               "{name: tenants}"),
        "tenants/a/cm.yaml": cm})
    head = repo.commit({"tenants/b/cm.yaml": cm})
    _, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
    assert [line for line in out.splitlines() if "Application/" in line] == [
        "+ Application/argocd/tenant-b  added  (generated by ApplicationSet/argocd/tenants in "
        "argocd/tenants.yaml:1)"]


def test_a_values_volume_named_data_is_shown_a_secrets_data_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial twenty-four: app-template's `persistence.data.storageClass` read
    "changed (16 -> 8 characters, value redacted)", as a Secret's `data` would; a volume's
    or a ConfigMap's `data` is no secret material, a secret's still is."""
    release = textwrap.dedent("""\
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {{name: web, namespace: shop}}
        spec:
          chart: {{spec: {{chart: app-template, sourceRef: {{kind: HelmRepository, name: bjw-s}}}}}}
          values:
            persistence:
              data: {{storageClass: {cls}, size: 1Gi}}
            secret:
              data: {{token: {token}}}
        """)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web.yaml": release.format(cls="local-path", token="tok-aaaa")})
    head = repo.commit({"web.yaml": release.format(cls="ceph-rbd", token="tok-bbbb")})
    _, out, _ = run_cli(["diff", "--repo", str(repo.path), "--format", "json", base, head],
                        capsys)
    (entry,) = json.loads(out)["diff"]
    changes = {c["path"]: (c.get("old"), c.get("new"), bool(c.get("redacted")))
               for c in entry["changes"]}
    assert changes == {
        "spec.values.persistence.data.storageClass": ("local-path", "ceph-rbd", False),
        "spec.values.secret.data.token": (None, None, True)}
    assert "tok-" not in out


def test_a_json_patch_of_a_config_map_s_data_is_shown_of_a_secret_s_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial eighty-six D7: an overlay's JSON 6902 patch `replace /data/LOG_LEVEL`
    of a ConfigMap read "added (3 bytes, value redacted)" in the diff: a ConfigMap's data is
    no secret. A patch of a target whose kind is not named, or a Secret, stays redacted."""
    kustomization = textwrap.dedent("""\
        resources: [cm.yaml]
        patches:
          - target: {kind: KIND, name: api}
            patch: |
              - op: replace
                path: /data/LOG_LEVEL
                value: VALUE
        """)
    repo = GitRepo(tmp_path / "repo")
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api}\ndata: {LOG_LEVEL: info}\n"
    base = repo.commit({"cm.yaml": cm, "kustomization.yaml": "resources: [cm.yaml]\n"})
    for kind, shown in (("ConfigMap", True), ("Secret", False), ("", False)):
        head = repo.commit({"kustomization.yaml": kustomization.replace(
            "VALUE", f"dbg{kind}").replace("kind: KIND, " if not kind else "KIND", kind)})
        _, out, _ = run_cli(["diff", "--repo", str(repo.path), base, head], capsys)
        # (the patch's own value; the ConfigMap it builds shows its data either way)
        assert ("value redacted" in out) is not shown, (kind, out)


def test_a_field_an_overlay_patch_sets_is_placed_in_the_patch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial twenty-six: an env entry the dev overlay's patch adds was placed at the
    base's line (apps/api/base/deployment.yaml:36). A field a patch sets is where the patch
    writes it: the change names that file (JSON ``file``) and its line; a field of the
    object's own file keeps its line there."""
    patch = textwrap.dedent("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: shop}
        spec:
          template:
            spec:
              containers:
              - name: app
                env:
                - {name: A, value: "9"}
                - {name: C, value: "3"}
    """)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "base/kustomization.yaml": "resources: [web.yaml]\n",
        "base/web.yaml": textwrap.dedent(DEPLOY),
        "overlays/dev/kustomization.yaml": "resources: [../../base]\npatches: [{path: env.yaml}]\n",
        "overlays/dev/env.yaml": patch.replace('    - {name: C, value: "3"}\n', "")})
    assert "name: C" not in (repo.path / "overlays/dev/env.yaml").read_text()
    head = repo.commit({"overlays/dev/env.yaml": patch,
                        "base/web.yaml": textwrap.dedent(DEPLOY).replace("replicas: 2",
                                                                         "replicas: 3")})
    (entry,) = diff_json(repo, base, head, capsys)
    by_path = {c["path"]: c for c in entry["changes"]}
    env = by_path["spec.template.spec.containers.app.env.C"]
    assert (env.get("file"), env["line"]) == ("overlays/dev/env.yaml", 11)
    assert "file" not in by_path["spec.replicas"] and by_path["spec.replicas"]["line"] == 8
    assert (entry["file"], entry["line"]) == ("base/web.yaml", 8)
    code, out, _ = run_cli(["diff", base, head, "--repo", str(repo.path)], capsys)
    assert "env.C  (set in overlays/dev/env.yaml:11)" in out
    assert "modified  base/web.yaml:8\n" in out  # (a change of its own file: its line)
    # every change a patch's: the header names the patch's line (new-user trial
    # seventy-eight W1 read the base file's first line)
    only = repo.commit({"overlays/dev/env.yaml": patch.replace('value: "3"', 'value: "4"')})
    out = run_cli(["diff", head, only, "--repo", str(repo.path)], capsys)[1]
    assert "modified  overlays/dev/env.yaml:11 (object of base/web.yaml)\n" in out, out


def test_a_field_the_head_lacks_is_set_in_no_patch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial fifty-two: tolerations removed from the base Deployment, which the
    overlay's patch sets resources of: "spec.template.spec.tolerations (set in
    envs/prod/llm/vllm-resources.yaml:7)", the patch that wrote their parent. A removed
    field is set nowhere."""
    patch = textwrap.dedent("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: shop}
        spec:
          template:
            spec:
              containers:
              - name: app
                resources: {limits: {memory: 2Gi}}
    """)
    tolerated = textwrap.dedent(DEPLOY).replace(
        "      containers:\n", "      tolerations: [{key: gpu, operator: Exists}]\n"
        "      containers:\n", 1)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "base/kustomization.yaml": "resources: [web.yaml]\n",
        "base/web.yaml": tolerated,
        "overlays/prod/kustomization.yaml": "resources: [../../base]\n"
                                            "patches: [{path: res.yaml}]\n",
        "overlays/prod/res.yaml": patch})
    head = repo.commit({"base/web.yaml": textwrap.dedent(DEPLOY)})
    removed = [c for e in diff_json(repo, base, head, capsys) for c in e["changes"]
               if c["path"] == "spec.template.spec.tolerations"]
    assert removed and all(c["op"] == "removed" and "file" not in c for c in removed)
    code, out, _ = run_cli(["diff", base, head, "--repo", str(repo.path)], capsys)
    assert "tolerations" in out and "(set in overlays/prod/res.yaml" not in out


def test_a_replica_count_an_overlay_writes_is_set_in_its_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial twenty-nine: prod's `replicas: [{name: web, count: 3}]` made 4 was
    placed at the base's `replicas:` line, "set in" nothing: the overlay's entry writes it."""
    overlay = "resources: [../../base]\nreplicas:\n- name: web\n  count: %d\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"base/kustomization.yaml": "resources: [web.yaml]\n",
                        "base/web.yaml": textwrap.dedent(DEPLOY),
                        "overlays/prod/kustomization.yaml": overlay % 3})
    head = repo.commit({"overlays/prod/kustomization.yaml": overlay % 4})
    entries = diff_json(repo, base, head, capsys)
    (change,) = [c for e in entries if e["object"].startswith("Deployment/")
                 for c in e["changes"]]
    assert (change["path"], change.get("file"), change["line"]) == (
        "spec.replicas", "overlays/prod/kustomization.yaml", 4)


def test_a_values_size_written_with_another_unit_is_no_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial twenty-seven: an app-template `persistence.data.size` rewritten `5Gi` ->
    `5120Mi` in a refactor read as a change, though quantities compare by value. A values
    `size` with a unit is a quantity; another value, a change; a plain number as written."""
    release = textwrap.dedent("""
        apiVersion: helm.toolkit.fluxcd.io/v2
        kind: HelmRelease
        metadata: {name: webui, namespace: ui}
        spec:
          values:
            persistence:
              data: {size: SIZE}
            cache: {size: COUNT}
    """)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"hr.yaml": release.replace("SIZE", "5Gi").replace("COUNT", "10")})
    same = repo.commit({"hr.yaml": release.replace("SIZE", "5120Mi").replace("COUNT", "10")})
    assert diff_json(repo, base, same, capsys) == []
    grown = repo.commit({"hr.yaml": release.replace("SIZE", "6Gi").replace("COUNT", "10.0")})
    (entry,) = diff_json(repo, base, grown, capsys)
    assert changes_of(entry) == {
        ("spec.values.persistence.data.size", None, "changed", "5Gi", "6Gi"),
        ("spec.values.cache.size", None, "changed", 10, 10.0)}


def test_an_object_two_builds_apply_in_one_cluster_stays_while_one_of_them_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial thirty-one: two apps' kustomizations each apply OCIRepository
    app-template in namespace ai, each with its own labels; one app moved to namespace llm.
    The diff said ai/app-template was "renamed" to llm/app-template, while the other app
    still applies it: llm/app-template is added, and ai/app-template stays."""
    oci = ("apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\n"
           "metadata: {name: app-template}\n"
           "spec: {interval: 12h, url: oci://ghcr.io/bjw-s/helm/app-template, "
           "ref: {tag: 3.7.1}}\n")
    app = "namespace: %s\nlabels: [{pairs: {app: %s}}]\nresources: [oci.yaml]\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"kustomization.yaml": "resources: [vllm, webui]\n",
                        "vllm/kustomization.yaml": app % ("ai", "vllm"), "vllm/oci.yaml": oci,
                        "webui/kustomization.yaml": app % ("ai", "webui"),
                        "webui/oci.yaml": oci})
    head = repo.commit({"webui/kustomization.yaml": app % ("llm", "webui")})
    found = [(e["object"], e["change"], e.get("renamed_from"))
             for e in diff_json(repo, base, head, capsys) if e["kind"] != "Kustomization"]
    assert found == [("OCIRepository/llm/app-template", "added", None)]


def test_a_field_a_flux_kustomization_s_inline_patch_sets_is_set_at_the_patch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial sixty-nine D7: fields the `spec.patches` inline patch of a Flux
    Kustomization sets were "set in clusters/home/cluster-apps.yaml:1" (a stand-in document
    of no lines); they are set at the patch its document writes."""
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: flux-system, namespace: flux-system}\n"
            "spec:\n  interval: 10m\n  path: ./clusters/home\n  prune: true\n"
            "  sourceRef: {kind: GitRepository, name: flux-system}\n")
    apps = """apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
  patches:
    - patch: |-
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: _}
        data: {LEVEL: VALUE}
      target: {kind: ConfigMap}
"""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"clusters/home/flux-system/gotk-sync.yaml": sync,
                        "clusters/home/apps.yaml": apps.replace("VALUE", "info"),
                        "apps/cm.yaml": ("apiVersion: v1\nkind: ConfigMap\n"
                                         "metadata: {name: settings, namespace: web}\n"
                                         "data: {A: b}\n")})
    head = repo.commit({"clusters/home/apps.yaml": apps.replace("VALUE", "debug")})
    code, out, _ = run_cli(["diff", base, head, "--repo", str(repo.path)], capsys)
    assert "data.LEVEL  (set in clusters/home/apps.yaml:10)" in out, out
