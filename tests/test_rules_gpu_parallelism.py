"""gpu-parallelism: one worker per GPU, and GPU requests equal to limits."""

from __future__ import annotations

from pathlib import Path

from .helpers import lint_text, pairs


def container(args: str, resources: str, image: str = "vllm/vllm-openai:v0.11.0") -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: llm, namespace: default}}
spec:
  containers:
  - name: server
    image: {image}
    args: {args}
    resources: {resources}
"""


def test_seed_tp2_on_one_gpu(tmp_path: Path) -> None:
    text = container("[--tensor-parallel-size=2, --pipeline-parallel-size=1]",
                     "{limits: {nvidia.com/gpu: 1}}")
    result = lint_text(tmp_path, text, only=["gpu-parallelism"])
    assert pairs(result) == [("gpu-parallelism", 8)]
    assert result.findings[0].message == (
        "llm, container server: --tensor-parallel-size=2 x --pipeline-parallel-size=1 = 2 GPU "
        "workers, but it requests 1 nvidia.com/gpu: the engine starts more workers than the "
        "pod has GPUs and fails or hangs")
    assert result.findings[0].fix.startswith("Request 2 nvidia.com/gpu (requests and limits)")
    # pinned to a node of one GPU (new-user trial twenty: "Request 2" came first, a request
    # that node cannot meet)
    one_gpu = ("cluster:\n  nodes:\n    - name: worker-1\n"
               "      labels: {kubernetes.io/hostname: worker-1}\n"
               "      allocatable: {cpu: '8', memory: 30Gi, nvidia.com/gpu: '1'}\n")
    pinned = text.replace("spec:\n  containers:",
                          "spec:\n  nodeSelector: {kubernetes.io/hostname: worker-1}\n"
                          "  containers:")
    result = lint_text(tmp_path / "pinned", pinned, only=["gpu-parallelism"], config=one_gpu)
    assert [(f.message.partition(", and ")[2], f.fix) for f in result.findings] == [(
        "worker-1, where it is pinned, has 1: the engine starts more workers than the pod "
        "has GPUs and fails or hangs", "Make tensor x pipeline parallel size equal 1.")]
    # (the node in the message, the fix alike: two clusters' copies are one finding that
    # names both nodes; new-user trial fifty-nine read one error twice)


def test_workers_with_no_gpu_requested_are_fixed_by_requesting_them(tmp_path: Path) -> None:
    """New-user trial seventy-five D7: resources written where app-template does not read
    them left the server requesting none; the fix offered "make tensor x pipeline parallel
    size equal 0", no size an engine can run."""
    text = container("[--tensor-parallel-size=2]", "{limits: {cpu: '4'}}")
    result = lint_text(tmp_path, text, only=["gpu-parallelism"])
    assert [f.fix for f in result.findings] == [
        "Request 2 nvidia.com/gpu (requests and limits)."]


def test_products_and_idle_gpus(tmp_path: Path) -> None:
    ok = container("[-tp, '2', -pp, '2']", "{limits: {nvidia.com/gpu: 4}}")
    assert pairs(lint_text(tmp_path / "ok", ok, only=["gpu-parallelism"])) == []
    idle = container("[--tensor-parallel-size, '2']", "{limits: {nvidia.com/gpu: 4}}")
    result = lint_text(tmp_path / "idle", idle, only=["gpu-parallelism"])
    assert "2 requested GPU(s) sit idle" in result.findings[0].message


def test_vllm_omni_s_stages_place_themselves(tmp_path: Path) -> None:
    """vllm-project/aibrix's qwen2.5-omni sample (judge round AO): `vllm serve --omni` runs a
    multi-stage pipeline whose stage config puts stage 0 on device 0 and stage 1 on device
    1: two GPUs without a parallelism flag is not one idle GPU for certain."""
    omni = container("[serve, qwen2-5-omni-7b, --omni]", "{limits: {nvidia.com/gpu: 2}}",
                     image="vllm/vllm-omni:v0.20.0")
    result = lint_text(tmp_path, omni, only=["gpu-parallelism"])
    assert [(f.severity, f.line) for f in result.findings] == [("warning", 9)]
    assert result.findings[0].message.endswith(
        "Not certain: reviewbot could not see how vllm-omni places its stages on the GPUs "
        "(`--omni` runs a multi-stage pipeline whose stage config gives stages devices of "
        "their own).")


def test_vllms_underscore_spellings_count(tmp_path: Path) -> None:
    # vLLM's parser takes --pipeline_parallel_size as well: 4 x 2 = the 8 GPUs requested
    ok = container("[--tensor-parallel-size, '4', --pipeline_parallel_size, '2']",
                   "{limits: {nvidia.com/gpu: 8}}")
    assert pairs(lint_text(tmp_path / "ok", ok, only=["gpu-parallelism"])) == []
    short = container("[--tensor_parallel_size=4]", "{limits: {nvidia.com/gpu: 8}}")
    result = lint_text(tmp_path / "short", short, only=["gpu-parallelism"])
    assert ("--tensor_parallel_size=4 x pipeline parallel size 1 = 4 GPU workers"
            in result.findings[0].message)


def test_requests_must_equal_limits(tmp_path: Path) -> None:
    text = container("[]", "{requests: {nvidia.com/gpu: 2}, limits: {nvidia.com/gpu: 2}}",
                     image="registry.local/tool:1")
    assert pairs(lint_text(tmp_path / "eq", text, only=["gpu-parallelism"])) == []
    text = container("[]", "{requests: {nvidia.com/gpu: 2}, limits: {nvidia.com/gpu: '1'}}",
                     image="registry.local/tool:1")
    result = lint_text(tmp_path / "ne", text, only=["gpu-parallelism"])
    assert "requests 2 nvidia.com/gpu but limits 1" in result.findings[0].message


def test_init_containers_are_not_servers(tmp_path: Path) -> None:
    text = """
apiVersion: v1
kind: Pod
metadata: {name: llm, namespace: default}
spec:
  initContainers:
  - name: warmup
    image: vllm/vllm-openai:v0.11.0
    args: [--tensor-parallel-size=2]
  containers:
  - {name: server, image: x, resources: {limits: {nvidia.com/gpu: 1}}}
"""
    assert pairs(lint_text(tmp_path, text, only=["gpu-parallelism"])) == []


def test_mig_slices_are_gpus_one_worker_each(tmp_path: Path) -> None:
    """Judge round BZ: TP=2 over two MIG slices (`nvidia.com/mig-4g.96gb: "2"`, a setup its
    benchmarks list as working) was "2 GPU workers, but it requests 0": a MIG slice is one
    GPU device to its container."""
    slices = "{requests: {nvidia.com/mig-4g.96gb: 2}, limits: {nvidia.com/mig-4g.96gb: 2}}"
    assert pairs(lint_text(tmp_path / "tp2", container("[--tensor-parallel-size=2]", slices),
                           only=["gpu-parallelism"])) == []
    result = lint_text(tmp_path / "tp4", container("[--tensor-parallel-size=4]", slices),
                       only=["gpu-parallelism"])
    assert [f.message.split(": ", 1)[1] for f in result.findings] == [
        "--tensor-parallel-size=4 x pipeline parallel size 1 = 4 GPU workers, but it requests 2 "
        "nvidia.com/mig-4g.96gb: the engine starts more workers than the pod has GPUs and "
        "fails or hangs"]
