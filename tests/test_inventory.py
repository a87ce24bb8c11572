"""`reviewbot inventory`: the cluster's measured facts from recorded kubectl output, and the
config's refusal of inventory values and rule options the rules could not use."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from reviewbot.cli import main
from reviewbot.config import parse_config
from reviewbot.engine.options import check_options
from reviewbot.errors import ReviewbotError
from reviewbot.load.loader import update_sections
from reviewbot.model.inventory import boots, compute_from_product, owner_chain, pod_boot
from reviewbot.model.quantity import quantity_error

from .helpers import lint_text, pairs

DATA = Path(__file__).parent / "data" / "kubectl"
NODES = str(DATA / "nodes.json")
PODS = str(DATA / "pods.json")
SEED_CONFIG = Path(__file__).parent / "fixtures/seed-repo/step2/.reviewbot.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["inventory", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_the_cluster_section_from_recorded_kubectl_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "--nodes", NODES, "--pods", PODS)
    assert code == 0
    raw = parse_config(out.encode(), "printed").raw  # what it prints is a valid config
    nodes = {n["name"]: n for n in raw["cluster"]["nodes"]}
    assert sorted(nodes) == ["talos-cp-3", "worker-1"]
    worker = nodes["worker-1"]
    assert worker["allocatable"] == {
        "cpu": "32", "memory": "63495Mi", "ephemeral-storage": "936714599513", "pods": "110",
        "hugepages-1Gi": "0", "hugepages-2Mi": "0", "nvidia.com/gpu": "4",
    }
    gfd = {k: v for k, v in worker["labels"].items() if k.startswith("nvidia.com/gpu.")}
    assert gfd["nvidia.com/gpu.product"] == "Tesla-V100-PCIE-32GB"
    assert (gfd["nvidia.com/gpu.count"], gfd["nvidia.com/gpu.memory"]) == ("4", "32768")
    assert (gfd["nvidia.com/gpu.compute.major"], gfd["nvidia.com/gpu.compute.minor"]) == ("7", "0")
    assert "nvidia.com/gfd.timestamp" not in worker["labels"]  # changes on every scan
    assert "taints" not in worker
    plane = nodes["talos-cp-3"]
    assert plane["taints"] == [{"key": "node-role.kubernetes.io/control-plane",
                                "effect": "NoSchedule"}]
    assert plane["labels"]["node-role.kubernetes.io/control-plane"] == ""
    assert plane["allocatable"]["cpu"] == "11950m" and plane["allocatable"]["memory"] == "15Gi"
    # the KServe predictor pod resolves to its InferenceService; two poimen pods: the longest;
    # the failed Job pod was never Ready, so it measures nothing
    assert raw["measured"] == {
        "DaemonSet/gpu-operator/nvidia-device-plugin-daemonset": {"measured-boot-seconds": 3},
        "Deployment/forgejo/forgejo": {"measured-boot-seconds": 47},
        "Deployment/poimen/poimen-memory": {"measured-boot-seconds": 21},
        "InferenceService/llm-serving/coder": {"measured-boot-seconds": 616},
        "InferenceService/llm-serving/reasoning": {"measured-boot-seconds": 192},
    }
    assert "coder-predictor-6f7c9d8b5-x2k4q" in out  # the header names the pod measured


def test_nodes_only_prints_no_measured_section(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--nodes", NODES)
    assert code == 0 and "measured:" not in out and out.count("- name: ") == 2


def test_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO((DATA / "pods.json").read_text()))
    code, out, _ = run(capsys, "--nodes", NODES, "--pods", "-")
    assert code == 0 and "InferenceService/llm-serving/coder:" in out
    assert run(capsys, "--nodes", "-", "--pods", "-")[0] == 2


def test_write_keeps_every_byte_outside_the_sections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    config = tmp_path / ".reviewbot.yaml"
    original = SEED_CONFIG.read_text() + (
        "# Helm values facts, by path (kept as they are)\n"
        "measured:\n"
        "  k8s/bootstrap/phase3-forgejo/forgejo-values.yaml:\n"
        "    measured-boot-seconds: 60   # forgejo's first boot\n"
        "  InferenceService/llm-serving/coder:\n"
        "    measured-kv-cache-tokens: 436112\n"
        "    measured-boot-seconds: 540\n"
        "\n"
        "# trailing comment\n"
        "fail-on: error\n"
    )
    config.write_text(original)
    code, _, err = run(capsys, "--nodes", NODES, "--pods", PODS, "--write", str(config))
    assert code == 0 and "updated" in err
    written = config.read_text()
    before = original.split("cluster:\n", 1)[0]
    assert written.startswith(before + "cluster:\n  nodes:\n")
    rules = original[original.index("rules:\n"):original.index("# Helm values facts")]
    assert rules in written  # the rules section and its comments, byte for byte
    assert written.endswith("\n# trailing comment\nfail-on: error\n")
    assert "# Helm values facts, by path (kept as they are)\nmeasured:\n" in written
    assert "    measured-boot-seconds: 60   # forgejo's first boot\n" in written
    raw = parse_config(written.encode(), "written").raw
    assert raw["measured"]["InferenceService/llm-serving/coder"] == {
        "measured-kv-cache-tokens": 436112, "measured-boot-seconds": 616}
    assert raw["measured"]["Deployment/poimen/poimen-memory"] == {"measured-boot-seconds": 21}
    assert raw["rules"] == {"probe-headroom": {"factor": 1.5},
                            "control-plane-resources": {"max-limit-fraction": 0.3}}
    # a second scan of the same cluster changes nothing, and says so
    mtime = config.stat().st_mtime_ns
    code, _, err = run(capsys, "--nodes", NODES, "--pods", PODS, "--write", str(config))
    assert code == 0 and "already up to date" in err and "updated" not in err
    assert config.read_text() == written and config.stat().st_mtime_ns == mtime


def test_an_items_list_without_kind_is_a_list_and_one_node_is_one_node(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"items": []}')
    code, _, err = run(capsys, "--nodes", str(empty))
    assert code == 2 and "no Node objects" in err
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"items": [{"metadata": {"name": "n1"},
                                          "status": {"allocatable": {"cpu": "4"}}}]}))
    code, out, _ = run(capsys, "--nodes", str(one))
    assert code == 0 and f"# reviewbot inventory: 1 node from {one}" in out


def test_write_creates_a_missing_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "new.yaml"
    assert run(capsys, "--nodes", NODES, "--write", str(config))[0] == 0
    raw = parse_config(config.read_bytes(), "new").raw
    assert [n["name"] for n in raw["cluster"]["nodes"]] == ["talos-cp-3", "worker-1"]


def test_write_refuses_a_config_that_does_not_parse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    config = tmp_path / ".reviewbot.yaml"
    config.write_text("rules:\n  probe-headroom: {factor: -1}\n")
    code, _, err = run(capsys, "--nodes", NODES, "--write", str(config))
    assert code == 2 and "rules.probe-headroom.factor" in err
    assert config.read_text() == "rules:\n  probe-headroom: {factor: -1}\n"


def test_lists_of_another_type_in_kubectl_output_are_read_as_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = tmp_path / "nodes.json"
    nodes.write_text(json.dumps({"kind": "NodeList", "items": [
        {"kind": "Node", "metadata": {"name": "n1"}, "spec": {"taints": 5},
         "status": {"allocatable": {"cpu": "4"}}}]}))
    pods = tmp_path / "pods.json"
    pods.write_text(json.dumps({"kind": "PodList", "items": [
        {"kind": "Pod", "metadata": {"name": "p", "namespace": "a", "ownerReferences": 5},
         "status": {"conditions": 5, "containerStatuses": "x"}}]}))
    code, out, err = run(capsys, "--nodes", str(nodes), "--pods", str(pods))
    assert code == 0, err
    assert "- name: n1" in out and "taints" not in out


def test_write_refuses_a_config_with_an_integer_python_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".reviewbot.yaml"
    text = "exclude: [" + "9" * 5000 + "]\n"
    config.write_text(text)
    code, _, err = run(capsys, "--nodes", NODES, "--write", str(config))
    assert code == 2 and "over 4,300 digits" in err
    assert config.read_text() == text


def test_update_sections_appends_a_missing_section_and_keeps_flow_style_elsewhere() -> None:
    text = "# top\nrules: {probe-headroom: {factor: 2}}  # inline\n"
    out = update_sections(text, {"cluster": lambda old: {"nodes": [{"name": "a"}]}})
    assert out == text + "cluster:\n  nodes:\n    - name: a\n"


@pytest.mark.parametrize("text", ["not json", "[1]", '{"kind": "List", "items": []}'])
def test_unreadable_kubectl_output_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
) -> None:
    bad = tmp_path / "nodes.json"
    bad.write_text(text)
    code, _, err = run(capsys, "--nodes", str(bad))
    assert code == 2 and str(bad) in err


def test_owner_chain_follows_listed_owners_up_to_the_inferenceservice() -> None:
    # kubectl get pods,rs,deploy -A -o json: the owners are listed, so their ownerReferences
    # are followed (a Knative-style ReplicaSet name that does not end in the template hash)
    def owned(kind: str, name: str, owner: tuple[str, str] | None) -> dict[str, object]:
        meta: dict[str, object] = {"name": name, "namespace": "llm-serving"}
        if owner:
            meta["ownerReferences"] = [{"kind": owner[0], "name": owner[1], "controller": True}]
        return {"kind": kind, "metadata": meta}

    pod = owned("Pod", "coder-predictor-00001-deployment-5c-abcde",
                ("ReplicaSet", "coder-predictor-00001-deployment-5c"))
    pod["metadata"]["labels"] = {"serving.kserve.io/inferenceservice": "coder",  # type: ignore[index]
                                 "component": "predictor", "pod-template-hash": "zz"}
    owners = {("llm-serving", o["kind"], o["metadata"]["name"]): o for o in (  # type: ignore[index]
        owned("ReplicaSet", "coder-predictor-00001-deployment-5c",
              ("Deployment", "coder-predictor-00001-deployment")),
        owned("Deployment", "coder-predictor-00001-deployment", None),
    )}
    assert owner_chain(pod, owners) == [
        "Pod/llm-serving/coder-predictor-00001-deployment-5c-abcde",
        "ReplicaSet/llm-serving/coder-predictor-00001-deployment-5c",
        "Deployment/llm-serving/coder-predictor-00001-deployment",
        "InferenceService/llm-serving/coder",
    ]
    pod["metadata"]["labels"]["component"] = "transformer"  # type: ignore[index]
    assert owner_chain(pod, owners)[-1] == "InferenceService/llm-serving/coder/transformer"


def test_boot_is_first_container_start_to_ready() -> None:
    items = json.loads((DATA / "pods.json").read_text())["items"]
    by_name = {p["metadata"]["name"]: p for p in items}
    # forgejo: init containers ran 10:00:22-10:00:30, the app started 10:00:31, Ready 10:01:18
    assert pod_boot(by_name["forgejo-7b9c5d6f4-k8s2p"]) == 47
    assert pod_boot(by_name["vllm-probe-x9k2l"]) is None
    found = {b.workload: b for b in boots(items)}
    assert (found["Deployment/poimen/poimen-memory"].seconds,
            found["Deployment/poimen/poimen-memory"].pods) == (21, 2)


def test_rules_read_measured_entries_like_annotations(tmp_path: Path) -> None:
    manifest = """
        apiVersion: serving.kserve.io/v1beta1
        kind: InferenceService
        metadata:
          name: coder
          namespace: llm-serving
          {annotations}
        spec:
          predictor:
            containers:
            - name: kserve-container
              image: vllm/vllm-openai:v0.11.0
              startupProbe:
                httpGet: {{path: /health, port: 8080}}
                failureThreshold: 40
                periodSeconds: 15
    """
    config = """
        measured:
          InferenceService/llm-serving/coder: {measured-boot-seconds: 616}
    """
    result = lint_text(tmp_path, manifest.format(annotations=""), ["probe-headroom"], config)
    assert pairs(result) == [("probe-headroom", 14)]  # the failureThreshold
    assert "measured boot is 616s" in result.findings[0].message
    # an annotation wins over the inventory: 300 s x 1.5 fits 40 x 15 s
    wins = manifest.format(
        annotations='annotations: {reviewbot.dev/measured-boot-seconds: "300"}')
    assert pairs(lint_text(tmp_path, wins, ["probe-headroom"], config)) == []
    # every cluster's, a `clusters:` entry with its own nodes too (new-user trial
    # fifty-seven: they were dropped there, and the probe cut below the boot passed)
    clusters = config.rstrip() + "\n" + (
        "        clusters:\n        - name: prod\n          nodes:\n          - name: gpu-1\n"
        "            allocatable: {nvidia.com/gpu: '2'}\n")
    assert pairs(lint_text(tmp_path, manifest.format(annotations=""), ["probe-headroom"],
                           clusters)) == [("probe-headroom", 14)]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("cluster:\n  nodes:\n  - name: worker-1\n    allocatable: {memory: 64GB}\n",
         ".reviewbot.yaml:4:27: cluster.nodes[0].allocatable.memory: '64GB' is not a quantity:"
         " write 64G (powers of 1000) or 64Gi (powers of 1024)"),
        ("cluster:\n  nodes:\n  - name: worker-1\n    allocatable:\n      nvidia.com/gpu: four\n",
         ".reviewbot.yaml:5:23: cluster.nodes[0].allocatable.\"nvidia.com/gpu\": 'four' is not a"
         " quantity"),
        ("cluster:\n  nodes:\n  - name: w\n    allocatable: {nvidia.com/gpu: '1.5'}\n",
         ".reviewbot.yaml:4:35: cluster.nodes[0].allocatable.\"nvidia.com/gpu\": nvidia.com/gpu is"
         " an extended resource, counted in whole units"),
        ("cluster:\n  nodes:\n  - name: w\n    allocatable: {cpu: '-2'}\n",
         ".reviewbot.yaml:4:24: cluster.nodes[0].allocatable.cpu: '-2' is negative"),
        ("cluster:\n  nodes:\n  - name: w\n    labels: {nvidia.com/gpu.compute.major: seven}\n",
         ".reviewbot.yaml:4:44: cluster.nodes[0].labels.\"nvidia.com/gpu.compute.major\":"
         " nvidia.com/gpu.compute.major is a whole number"),
        ("measured:\n  Deployment/a/b: {measured-boot-seconds: soon}\n",
         ".reviewbot.yaml:2:43: measured.Deployment/a/b.measured-boot-seconds: 'soon' is not a"
         " duration"),
        ("measured:\n  Deployment/a/b:\n    measured-kv-cache-tokens: 0\n",
         ".reviewbot.yaml:3:31: measured.Deployment/a/b.measured-kv-cache-tokens: 0 is not a"
         " positive whole number"),
        ("rules:\n  probe-headroom: {factor: -1}\n",
         ".reviewbot.yaml:2:28: rules.probe-headroom.factor: option 'factor' of rule"
         " probe-headroom must be >= 1 (got -1)"),
        ("rules:\n  probe-headroom:\n    factor: 0.9\n",
         ".reviewbot.yaml:3:13: rules.probe-headroom.factor: option 'factor' of rule"
         " probe-headroom must be >= 1 (got 0.9)"),
        ("rules:\n  control-plane-resources: {max-limit-fraction: 30}\n",
         ".reviewbot.yaml:2:49: rules.control-plane-resources.max-limit-fraction: option"
         " 'max-limit-fraction' of rule control-plane-resources must be > 0 and <= 1 (got 30)"),
        ("rules:\n  control-plane-resources: {max-limit-fraction: 0}\n",
         ".reviewbot.yaml:2:49: rules.control-plane-resources.max-limit-fraction: option"
         " 'max-limit-fraction' of rule control-plane-resources must be > 0 and <= 1 (got 0)"),
    ],
)
def test_unusable_inventory_values_and_options_name_key_and_line(
    config: str, expected: str,
) -> None:
    with pytest.raises(ReviewbotError) as info:
        check_options(parse_config(config.encode(), ".reviewbot.yaml"))
    assert info.value.message.startswith(expected), info.value.message
    assert info.value.exit_code == 2


@pytest.mark.parametrize("config", [
    "rules:\n  probe-headroom: {factor: 1}\n",
    "rules:\n  control-plane-resources: {max-limit-fraction: 1}\n",
    "cluster:\n  nodes:\n  - name: w\n    allocatable: {cpu: 1.5, memory: 64G, pods: 110}\n",
])
def test_edge_values_are_accepted(config: str) -> None:
    assert check_options(parse_config(config.encode(), ".reviewbot.yaml")).raw


def test_lint_exits_2_on_an_unusable_inventory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / ".reviewbot.yaml").write_text(
        "cluster:\n  nodes:\n  - name: worker-1\n    allocatable: {memory: 64GB}\n")
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    assert main(["lint", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert ".reviewbot.yaml:4:27: cluster.nodes[0].allocatable.memory: '64GB'" in err


@pytest.mark.parametrize(("value", "ok"), [
    ("1Gi", True), ("11950m", True), ("1.5", True), (".5", True), ("1.", True), ("+1", True),
    ("2e3", True), ("1E", True), (4, True), (1.5, True),
    ("64GB", False), ("1K", False), ("1ki", False), ("1e", False), (" 1Gi", False),
    ("", False), (True, False), (None, False), ("1.2.3", False),
])
def test_quantity_grammar_is_kubernetes(value: object, ok: bool) -> None:
    assert (quantity_error(value) is None) is ok


@pytest.mark.parametrize(("product", "cc"), [
    ("Tesla-V100-PCIE-32GB", (7, 0)), ("Tesla-V100-SXM2-16GB", (7, 0)), ("Tesla-T4", (7, 5)),
    ("NVIDIA-A100-SXM4-80GB", (8, 0)), ("NVIDIA-A10G", (8, 6)), ("NVIDIA-L4", (8, 9)),
    ("NVIDIA-L40S", (8, 9)), ("NVIDIA-H100-80GB-HBM3", (9, 0)), ("NVIDIA-GeForce-RTX-4090", (8, 9)),
    ("NVIDIA-GeForce-RTX-3090", (8, 6)), ("NVIDIA-A30", (8, 0)), ("NVIDIA-B200", (10, 0)),
    ("Some-Future-GPU", None),
])
def test_compute_capability_table(product: str, cc: tuple[int, int] | None) -> None:
    assert compute_from_product(product) == cc


# ---------------------------------------------------------------- the Kubernetes version


def _nodes_with(tmp_path: Path, versions: dict[str, str | None]) -> str:
    """The recorded nodes, each node's kubeletVersion replaced (None: removed)."""
    data = json.loads((DATA / "nodes.json").read_text())
    for node in data["items"]:
        info = node["status"]["nodeInfo"]
        version = versions.get(node["metadata"]["name"], info["kubeletVersion"])
        if version is None:
            del info["kubeletVersion"]
        else:
            info["kubeletVersion"] = version
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_records_the_kubernetes_version_from_the_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--nodes", NODES)
    raw = parse_config(out.encode(), "printed").raw
    assert code == 0 and raw["cluster"]["kubernetes-version"] == "1.33"
    assert "# kubernetes-version 1.33: the lowest kubelet minor\n" in out
    assert 'kubernetes-version: "1.33"' in out  # quoted: 1.30 unquoted would read 1.3


def test_the_lowest_kubelet_minor_is_the_version_and_the_spread_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    nodes = _nodes_with(tmp_path, {"worker-1": "v1.32.4+k3s1"})
    code, out, _ = run(capsys, "--nodes", nodes)
    assert code == 0 and parse_config(out.encode(), "p").raw["cluster"][
        "kubernetes-version"] == "1.32"
    assert ("# kubernetes-version 1.32: the lowest kubelet minor (kubelets: v1.32.4+k3s1 "
            "(worker-1), v1.33.1 (talos-cp-3))") in out
    nodes = _nodes_with(tmp_path, {"worker-1": None})
    code, out, _ = run(capsys, "--nodes", nodes)
    assert "(kubelets: v1.33.1 (talos-cp-3), no readable version (worker-1))" in out
    nodes = _nodes_with(tmp_path, {"worker-1": None, "talos-cp-3": "unknown"})
    code, out, _ = run(capsys, "--nodes", nodes)
    assert code == 0 and "kubernetes-version:" not in out
    assert "no node reports a kubelet version" in out


def test_write_sets_the_version_in_the_cluster_and_in_a_named_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    config = tmp_path / ".reviewbot.yaml"
    config.write_text('cluster:\n  kubernetes-version: "1.29"  # set by hand\n  nodes: []\n')
    code, _, err = run(capsys, "--nodes", NODES, "--write", str(config))
    assert code == 0 and "(2 nodes, Kubernetes 1.33)" in err
    assert "kubernetes-version 1.33: the lowest kubelet minor" in err
    assert parse_config(config.read_bytes(), "c").raw["cluster"]["kubernetes-version"] == "1.33"
    config.write_text("clusters:\n  - name: prod\n    paths: [prod]\n"
                      "  - name: lab\n    paths: [lab]\n")
    nodes = _nodes_with(tmp_path, {"worker-1": "v1.31.0"})
    code, _, _ = run(capsys, "--nodes", nodes, "--write", str(config), "--cluster", "lab")
    raw = parse_config(config.read_bytes(), "c").raw
    assert code == 0 and raw["clusters"][1]["kubernetes-version"] == "1.31"
    assert "kubernetes-version" not in raw["clusters"][0]
