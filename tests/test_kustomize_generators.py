"""kustomize generators that read files (issue 27 §3): a ``configMapGenerator`` or
``secretGenerator`` names ``files:`` (``key=path`` or ``path``, keyed by its base name) and
``envs:`` (``KEY=VALUE`` lines). The tree reads exactly the files some kustomization names,
from the side the build reads (the disk for lint, each git ref of a review), under the
loader's size limit; the build makes the object kustomize makes, its hash suffix over the
result. A review where only an ``.env`` changes shows its ConfigMap's change; a generated
Secret's values print nowhere."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reviewbot.load.loader import load
from reviewbot.model.transform import GENERATED_UNKNOWN, content_hash, finish
from reviewbot.report.formats import FORMATS
from reviewbot.sources.tree import FileRecord, blob_id, disk_tree, git_tree, too_large

from .helpers import GitRepo, kustomize_graph, run_cli, write

KUBECTL = shutil.which("kubectl")

DEPLOYMENT = """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers:
          - name: app
            image: web:1.0
            envFrom: [{configMapRef: {name: settings}}, {secretRef: {name: creds}}]
"""


def built(root: Path, folder: str = "app") -> dict[tuple[str, str], dict[str, Any]]:
    """(kind, name) -> body of what the kustomization in ``folder`` builds, as kustomize
    prints it (hash suffixes added)."""
    graph = kustomize_graph(root)
    return {(r.kind, r.name): dict(r.body) for r in finish(graph.build(folder).resources)}


def generated(root: Path, kind: str, name: str, folder: str = "app") -> dict[str, Any]:
    """The one generated object of ``kind`` whose name is ``name`` plus its hash suffix."""
    found = [b for (k, n), b in built(root, folder).items()
             if k == kind and n.rpartition("-")[0] == name]
    assert len(found) == 1, built(root, folder)
    return found[0]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# ---------------------------------------------------------------- what the build makes


def test_env_file_lines_are_read_as_kustomize_reads_them(tmp_path: Path) -> None:
    write(tmp_path, {"app/kustomization.yaml": """
        configMapGenerator:
        - name: settings
          envs: [app.env]
    """})
    (tmp_path / "app/app.env").write_bytes(
        b"\xef\xbb\xbfA=1\r\n"  # a byte order mark on the first line, a CRLF ending
        b"# a comment\n"
        b"   B = \"q\"\n"  # leading space trimmed; the key's space and the quotes kept
        b"C='x'\n"
        b"EMPTY\n"  # no '=': an empty value (kustomize v5 reads no environment)
        b"=no key\n"  # no key: skipped
        b"D=a=b\n"  # the value is all after the first '='
        b"\n"
        b"E=last")  # no newline at the end
    body = generated(tmp_path, "ConfigMap", "settings")
    assert body["data"] == {"A": "1", "B ": ' "q"', "C": "'x'", "EMPTY": "", "D": "a=b",
                            "E": "last"}
    assert body["metadata"]["name"] == f"settings-{content_hash(body)}"


def test_files_are_keyed_by_base_name_or_by_their_key(tmp_path: Path) -> None:
    write(tmp_path, {
        "app/kustomization.yaml": """
            configMapGenerator:
            - name: settings
              files: [conf/nginx.conf, entry=scripts/run.sh, "./init.lua"]
        """,
        "app/conf/nginx.conf": "worker_processes 1;\n",
        "app/scripts/run.sh": "#!/bin/sh\nexec nginx\n",
        "app/init.lua": "print('hi')\n",
    })
    assert generated(tmp_path, "ConfigMap", "settings")["data"] == {
        "nginx.conf": "worker_processes 1;\n", "entry": "#!/bin/sh\nexec nginx\n",
        "init.lua": "print('hi')\n"}


def test_content_that_is_no_utf8_is_binary_data_and_a_secret_is_base64(tmp_path: Path) -> None:
    write(tmp_path, {"app/kustomization.yaml": """
        configMapGenerator:
        - name: assets
          files: [logo.png, readme.txt]
        secretGenerator:
        - name: creds
          files: [logo.png, key=token.txt]
          type: kubernetes.io/opaque-ish
    """, "app/readme.txt": "plain\n"})
    logo = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    (tmp_path / "app/logo.png").write_bytes(logo)
    (tmp_path / "app/token.txt").write_bytes(b"t0ken")
    assets = generated(tmp_path, "ConfigMap", "assets")
    encoded = b64(logo)  # 356 characters: lines of 70, each ended by a newline
    assert assets["binaryData"] == {
        "logo.png": "".join(encoded[i:i + 70] + "\n" for i in range(0, len(encoded), 70))}
    assert assets["data"] == {"readme.txt": "plain\n"}
    creds = generated(tmp_path, "Secret", "creds")
    assert creds["data"] == {"logo.png": assets["binaryData"]["logo.png"], "key": b64(b"t0ken")}
    assert creds["type"] == "kubernetes.io/opaque-ish"
    assert creds["metadata"]["name"] == f"creds-{content_hash(creds)}"


def test_behavior_merge_and_replace_change_the_base_object(tmp_path: Path) -> None:
    write(tmp_path, {
        "base/kustomization.yaml": """
            resources: [deploy.yaml]
            configMapGenerator:
            - name: settings
              envs: [base.env]
              options: {labels: {tier: base}}
        """,
        "base/deploy.yaml": DEPLOYMENT,
        "base/base.env": "A=1\nB=2\n",
        "merge/kustomization.yaml": """
            resources: [../base]
            namePrefix: staging-
            configMapGenerator:
            - name: settings
              behavior: merge
              envs: [over.env]
              options: {labels: {env: staging}}
        """,
        "merge/over.env": "B=20\nC=30\n",
        "replace/kustomization.yaml": """
            resources: [../base]
            configMapGenerator:
            - name: settings
              behavior: replace
              literals: [ONLY=1]
        """,
    })
    merged = generated(tmp_path, "ConfigMap", "staging-settings", "merge")
    assert merged["data"] == {"A": "1", "B": "20", "C": "30"}
    assert merged["metadata"]["labels"] == {"tier": "base", "env": "staging"}
    deploy = built(tmp_path, "merge")[("Deployment", "staging-web")]
    refs = deploy["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert refs[0]["configMapRef"]["name"] == merged["metadata"]["name"]  # the hashed name
    assert generated(tmp_path, "ConfigMap", "settings", "replace")["data"] == {"ONLY": "1"}


@pytest.mark.parametrize(("files", "why"), [
    ({"app/kustomization.yaml": "configMapGenerator:\n- name: settings\n  envs: [gone.env]\n"},
     "a source the tree does not hold"),
    ({"app/kustomization.yaml": "configMapGenerator:\n- name: settings\n  envs: [a.env]\n",
      "app/a.env": "A=1\nB=\udcff\n"}, "an env line that is no UTF-8: kustomize refuses"),
    ({"app/kustomization.yaml":
      "configMapGenerator:\n- name: settings\n  envs: [a.env]\n  literals: [A=2]\n",
      "app/a.env": "A=1\n"}, "a key twice: kustomize refuses"),
    ({"app/kustomization.yaml": "configMapGenerator:\n- name: settings\n  files: [=a.txt]\n",
      "app/a.txt": "x"}, "a file source without its key: kustomize refuses"),
])
def test_what_cannot_be_known_leaves_the_object_unknown(
        tmp_path: Path, files: dict[str, str], why: str) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(text.encode("utf-8", "surrogateescape"))
    (body,) = built(tmp_path).values()
    assert body["metadata"]["annotations"][GENERATED_UNKNOWN] == "true", why
    assert "data" not in body, why


def test_a_generated_secret_without_sources_has_empty_data(tmp_path: Path) -> None:
    write(tmp_path, {"app/kustomization.yaml": """
        secretGenerator: [{name: empty}]
        configMapGenerator: [{name: nothing}]
    """})
    assert generated(tmp_path, "Secret", "empty")["data"] == {}
    assert "data" not in generated(tmp_path, "ConfigMap", "nothing")


@pytest.mark.skipif(KUBECTL is None, reason="needs kubectl (Debian's kubectl package)")
def test_the_generators_build_as_kubectl_kustomize_builds(tmp_path: Path) -> None:
    write(tmp_path, {
        "base/kustomization.yaml": """
            resources: [deploy.yaml]
            configMapGenerator:
            - name: settings
              envs: [app.env]
              files: [conf/app.conf, entry=run.sh, dash.json, logo.bin]
            - name: plain
              files: [conf/app.conf]
              options: {disableNameSuffixHash: true}
            secretGenerator:
            - name: creds
              files: [password.txt]
              literals: [user=admin]
        """,
        "base/deploy.yaml": DEPLOYMENT,
        "base/conf/app.conf": "listen 80;\n",
        "base/run.sh": "#!/bin/sh\n",
        "base/dash.json": '{"panels": []}\n',
        "base/password.txt": "s" * 80,
        "app/kustomization.yaml": """
            resources: [../base]
            namePrefix: prod-
            namespace: shop
            configMapGenerator:
            - name: settings
              behavior: merge
              envs: [prod.env]
        """,
        "app/prod.env": "LEVEL=warn\n",
    })
    (tmp_path / "base/app.env").write_bytes(b"\xef\xbb\xbfLEVEL=info\r\n# c\n  K = 'v'\nNOVAL\n")
    (tmp_path / "base/logo.bin").write_bytes(bytes(range(200)))
    for folder in ("base", "app"):
        out = subprocess.run([str(KUBECTL), "kustomize", str(tmp_path / folder)],
                             capture_output=True, check=True, timeout=120).stdout
        want = {(d.value["kind"], d.value["metadata"]["name"]): d.value
                for d in load(FileRecord("o.yaml", blob_id(out), out)).documents}
        got = {key: json.loads(json.dumps(body)) for key, body in built(tmp_path, folder).items()}
        assert got == want, folder


# ---------------------------------------------------------------- what the tree reads


def test_the_tree_reads_only_the_files_a_kustomization_names(tmp_path: Path) -> None:
    write(tmp_path, {
        "app/kustomization.yaml": """
            configMapGenerator:
            - name: settings
              envs: [app.env]  # notes.txt is named in a comment only
              files: [big=big.txt]
        """,
        "app/app.env": "A=1\n",
        "app/notes.txt": "not read\n",
        "app/big.txt": "x" * 2000,
    })
    tree = disk_tree([tmp_path], tmp_path, max_file_bytes=1000)
    assert [t.path for t in tree.texts] == ["app/app.env"]
    assert [(s.path, s.reason) for s in tree.skipped] == [("app/big.txt", too_large(1000))]
    repo = GitRepo(tmp_path)
    head = repo.commit()
    at_ref = git_tree(tmp_path, head, max_file_bytes=1000)
    assert [(t.path, t.data) for t in at_ref.texts] == [("app/app.env", b"A=1\n")]
    assert [(s.path, s.reason) for s in at_ref.skipped] == [("app/big.txt", too_large(1000))]


# ---------------------------------------------------------------- review


def _app(env: str, password: str) -> dict[str, str | None]:
    return {
        "app/kustomization.yaml": """
            resources: [deploy.yaml]
            configMapGenerator:
            - name: settings
              envs: [app.env]
            secretGenerator:
            - name: creds
              files: [password.txt]
        """,
        "app/deploy.yaml": DEPLOYMENT,
        "app/app.env": env,
        "app/password.txt": password,
    }


def _diff(out: str) -> dict[str, list[tuple[str, Any, Any]]]:
    return {d["object"]: [(c["path"], c.get("old"), c.get("new")) for c in d["changes"]]
            for d in json.loads(out)["diff"]}


def _assert_rollout(changes: dict[str, list[tuple[str, Any, Any]]],
                    data: tuple[str, Any, Any]) -> None:
    """The ConfigMap's data changed, and the Deployment with it: it names the ConfigMap by
    its hashed name, which a change of content changes (the cluster rolls it out)."""
    assert changes.pop("ConfigMap/settings") == [data]
    [(path, old, new)] = changes.pop("Deployment/default/web")
    assert path.endswith("envFrom.0.configMapRef.name") and old != new
    assert old.startswith("settings-") and new.startswith("settings-")
    assert not changes


def test_a_review_where_only_the_env_file_changes_shows_the_configmap_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(_app("LEVEL=info\n", "pw"))
    head = repo.commit({"app/app.env": "LEVEL=debug\n"})
    again = repo.commit({"app/app.env": "LEVEL=trace\n"})
    cache = str(tmp_path / "cache")
    for target, level in ((head, "debug"), (head, "debug"), (again, "trace")):
        # the second run answers from the cache; the third differs only in the .env file
        code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base,
                                  "--head", target, "--platform", "none", "--format", "json",
                                  "--cache", cache], capsys)
        assert code == 0, err
        _assert_rollout(_diff(out), ("data.LEVEL", "info", level))
    # the work tree as the head: read from the disk
    repo.write({"app/app.env": "LEVEL=warn\n"})
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base,
                              "--platform", "none", "--format", "json"], capsys)
    assert code == 0, err
    _assert_rollout(_diff(out), ("data.LEVEL", "info", "warn"))


PLANTED = "PLANTED-s3cr3t-value"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_secret_generated_from_a_file_prints_in_no_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(_app("LEVEL=info\n", PLANTED))
    head = repo.commit({"app/password.txt": PLANTED + "-2"})
    forms = [PLANTED, b64(PLANTED.encode()), b64((PLANTED + "-2").encode()), "s3cr3t"]
    runs = [["lint", str(repo.path / "app"), "--format", fmt],
            ["review", "--repo", str(repo.path), "--base", base, "--head", head,
             "--platform", "none", "--format", fmt]]
    if fmt in ("text", "json", "markdown"):
        runs.append(["diff", base, head, "--repo", str(repo.path), "--format", fmt])
    for argv in runs:
        code, out, err = run_cli(argv, capsys)
        assert code in (0, 1), err
        assert not any(form in out + err for form in forms), argv
    if fmt == "json":  # the change is there, as sizes
        code, out, _ = run_cli(runs[-1], capsys)
        (change,) = [c for d in json.loads(out)["diff"] if d["object"] == "Secret/creds"
                     for c in d["changes"]]
        assert (change["path"], change["redacted"], change["old_length"],
                change["new_length"]) == ("data.password.txt", True, 20, 22)
