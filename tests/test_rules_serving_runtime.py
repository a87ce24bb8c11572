"""serving-runtime: engine flags and env against the GPU facts of the node the pod lands on."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.config import parse_config
from reviewbot.engine.options import check_options
from reviewbot.errors import ReviewbotError

from .helpers import lint_text, pairs


def node(name: str, product: str, cc: str | None = None, host: bool = True) -> str:
    labels = f"nvidia.com/gpu.product: {product}"
    if cc is not None:
        major, minor = cc.split(".")
        labels += (f", nvidia.com/gpu.compute.major: \"{major}\", "
                   f"nvidia.com/gpu.compute.minor: \"{minor}\"")
    if host:
        labels += f", kubernetes.io/hostname: {name}"
    return (f"    - name: {name}\n      labels: {{{labels}}}\n"
            "      allocatable: {cpu: \"32\", memory: 64Gi, nvidia.com/gpu: \"4\"}\n")


V100_PCIE = "cluster:\n  nodes:\n" + node("worker-1", "Tesla-V100-PCIE-32GB", "7.0")


def server(args: list[str], *, pin: str | None = "worker-1",
           image: str = "vllm/vllm-openai:v0.11.0",
           env: str = "[{name: VLLM_USE_FLASHINFER_SAMPLER, value: \"0\"}]",
           gpus: int = 2) -> str:
    selector = f"\n              nodeSelector: {{kubernetes.io/hostname: {pin}}}" if pin else ""
    return f"""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: llm, namespace: serving}}
        spec:
          strategy: {{type: Recreate}}
          template:
            spec:{selector}
              containers:
              - name: engine
                image: {image}
                args: [{", ".join(args)}]
                env: {env}
                resources:
                  limits: {{nvidia.com/gpu: "{gpus}"}}
    """


def kinds(tmp_path: Path, text: str, config: str) -> list[tuple[str, str]]:
    result = lint_text(tmp_path, text, ["serving-runtime"], config)
    return sorted((f.severity, f.message.split(": ", 2)[1].split(" on ")[0])
                  for f in result.findings)


def test_tp2_on_pcie_volta_needs_the_flag_and_tp4_does_not(tmp_path: Path) -> None:
    assert kinds(tmp_path, server(["--tensor-parallel-size", "2"]), V100_PCIE) == [
        ("error", "--tensor-parallel-size 2")]
    # vLLM turns custom all-reduce off on more than two PCIe-only GPUs by itself
    assert kinds(tmp_path, server(["-tp", "4"], gpus=4), V100_PCIE) == []
    assert kinds(tmp_path, server(["-tp=2", "--disable-custom-all-reduce"]), V100_PCIE) == []


def test_the_flag_the_fix_adds_is_a_mechanical_edit(tmp_path: Path) -> None:
    """New-user trial eighty-eight W5: `lint --fix` fixed none of the custom all-reduce
    hang. Where the flags are a list of words, the edit appends the one flag; in a shell
    line (`sh -c "vllm serve ..."`), no edit: the fix says it."""
    def edits(name: str, args: list[str]) -> list[list[tuple[str, tuple[object, ...], object]]]:
        result = lint_text(tmp_path / name, server(args), ["serving-runtime"], V100_PCIE)
        return [[(e.op, e.path, e.value) for e in f.edits] for f in result.findings]

    assert edits("words", ["--model", "qwen", "--tensor-parallel-size", "2"]) == [[
        ("append", ("spec", "template", "spec", "containers", 0, "args"),
         "--disable-custom-all-reduce")]]
    assert edits("shell", ["'vllm serve qwen --tensor-parallel-size 2'"]) == [[]]


def test_measured_hangs_on_other_products_come_from_the_option(tmp_path: Path) -> None:
    config = "cluster:\n  nodes:\n" + node("worker-1", "NVIDIA-L40S", "8.9")
    text = server(["--tensor-parallel-size=2"])
    assert kinds(tmp_path, text, config) == []
    listed = config + "rules:\n  serving-runtime: {custom-all-reduce-hangs: ['NVIDIA-L40*']}\n"
    result = lint_text(tmp_path, text, ["serving-runtime"], listed)
    assert pairs(result) == [("serving-runtime", 12)]
    assert "measured to hang on NVIDIA-L40S" in result.findings[0].message


def test_compute_capability_from_the_product_table_when_gfd_has_no_compute_labels(
    tmp_path: Path,
) -> None:
    config = "cluster:\n  nodes:\n" + node("worker-1", "Tesla-T4")
    result = lint_text(tmp_path, server(["--dtype=bf16"], gpus=1), ["serving-runtime"], config)
    assert pairs(result) == [("serving-runtime", 12)]
    message = result.findings[0].message
    assert "compute capability 7.5 (nvidia.com/gpu.product=Tesla-T4 in NVIDIA's" in message
    # 7.5 has the FlashInfer sampler: only the bf16 finding
    assert len(result.findings) == 1


def test_unpinned_pods_are_judged_only_when_every_gpu_node_fails(tmp_path: Path) -> None:
    both_old = ("cluster:\n  nodes:\n" + node("a", "Tesla-V100-PCIE-32GB", "7.0")
                + node("b", "Tesla-V100-PCIE-16GB", "7.0"))
    text = server(["--dtype=bfloat16"], pin=None, gpus=1)
    result = lint_text(tmp_path, text, ["serving-runtime"], both_old)
    assert pairs(result) == [("serving-runtime", 11)]
    assert "every node it can land on (a's" in result.findings[0].message
    mixed = "cluster:\n  nodes:\n" + node("a", "Tesla-V100-PCIE-32GB", "7.0") + node(
        "b", "NVIDIA-A100-SXM4-80GB", "8.0")
    assert pairs(lint_text(tmp_path, text, ["serving-runtime"], mixed)) == []


def test_each_cluster_s_own_nodes_give_the_gpu_facts(tmp_path: Path) -> None:
    """New-user trial twenty: `--dtype bfloat16` on a V100 node given in a `clusters:` entry
    (its own `nodes`) gave no finding; given as `cluster.nodes` it was an error."""
    from .helpers import lint_dir, write

    config = "clusters:\n" + "".join(
        f"  - name: {env}\n    paths: [{env}]\n    nodes:\n"
        + node("worker-1", product, cc).replace("    ", "      ", 1).replace("\n      ",
                                                                           "\n        ")
        for env, product, cc in (("home", "Tesla-V100-PCIE-32GB", "7.0"),
                                 ("lab", "NVIDIA-A100-SXM4-80GB", "8.0")))
    write(tmp_path, {".reviewbot.yaml": config,
                     "home/llm.yaml": server(["--dtype=bfloat16"], gpus=1),
                     "lab/llm.yaml": server(["--dtype=bfloat16"], gpus=1)})
    result = lint_dir(tmp_path, only=["serving-runtime"])
    assert [(f.file, f.severity) for f in result.findings] == [("home/llm.yaml", "error")]
    assert "bfloat16" in result.findings[0].message
    # one cluster configured: its nodes are the tree's (they were read for two or more only)
    write(tmp_path, {".reviewbot.yaml": config.split("  - name: lab")[0]})
    (tmp_path / "lab" / "llm.yaml").unlink()
    result = lint_dir(tmp_path, only=["serving-runtime"])
    assert [(f.file, f.severity) for f in result.findings] == [("home/llm.yaml", "error")]


T4 = "cluster:\n  nodes:\n" + node("worker-1", "Tesla-T4", "7.5")


def test_sglang_context_length_and_vllm_human_readable_lengths(tmp_path: Path) -> None:
    text = server(["--context-length", "131072"], image="lmsysorg/sglang:v0.5.2", gpus=1)
    text = text.replace("metadata: {name: llm, namespace: serving}",
                        "metadata: {name: llm, namespace: serving, annotations: "
                        "{reviewbot.dev/measured-kv-cache-tokens: \"132672\"}}")
    assert kinds(tmp_path, text, T4) == []
    over = text.replace("131072", "256K")  # 262,144 as vLLM and SGLang read K
    result = lint_text(tmp_path, over, ["serving-runtime"], T4)
    assert [f.message.split(": ", 1)[1] for f in result.findings] == [
        "--context-length 256K is 262,144 tokens, but the measured KV cache holds 132,672 "
        "(annotation reviewbot.dev/measured-kv-cache-tokens): the engine refuses to start "
        "(\"max seq len ... is larger than the maximum number of tokens that can be stored in "
        "KV cache\")"]


def test_sglang_refuses_gpus_below_sm75_and_serves_float16_for_bfloat16_below_sm80(
    tmp_path: Path,
) -> None:
    """SGLang's model runner checks the device before it loads the model: below sm80 it
    switches to float16 ("Compute capability below sm80. Use float16 due to lack of bfloat16
    support."), and raises when the minor version is below 5 too ("SGLang only supports sm75
    and above"). New-user trial fifty-nine: `--dtype bfloat16` under SGLang on a T4 was an
    error quoting vLLM's refusal; the server runs there, in float16."""
    bf16 = server(["--dtype=bfloat16", "--attention-backend=flashinfer"],
                  image="lmsysorg/sglang:v0.4.6.post5-cu124", gpus=1)
    result = lint_text(tmp_path, bf16, ["serving-runtime"], T4)
    assert [(f.severity, f.line) for f in result.findings] == [("info", 12)]
    assert "SGLang serves float16 instead below compute capability 8.0" in (
        result.findings[0].message)
    # on a V100 (7.0) the server never starts, whatever its flags: one error, at the image
    result = lint_text(tmp_path, bf16, ["serving-runtime"], V100_PCIE)
    assert [(f.severity, f.line) for f in result.findings] == [("error", 11)]
    assert result.findings[0].message.endswith(
        "SGLang's model runner refuses the GPU before it loads the model (\"SGLang only "
        "supports sm75 and above\")")
    assert "Serve this model with vLLM" in (result.findings[0].fix or "")
    # a release from before the check, named by its tag, is judged on its flags alone
    old = bf16.replace("v0.4.6.post5-cu124", "v0.2.9")
    assert [f.kind for f in lint_text(tmp_path, old, ["serving-runtime"], V100_PCIE).findings
            ] == ["attention-backend"]
    # vLLM on the same T4 refuses bfloat16
    assert kinds(tmp_path, server(["--dtype=bfloat16"], gpus=1), T4) == [
        ("error", "--dtype=bfloat16")]


def test_tgi_bfloat16_below_sm80_is_a_warning_the_refusal_being_vllm_s(tmp_path: Path) -> None:
    text = server(["--dtype", "bfloat16"], gpus=1,
                  image="ghcr.io/huggingface/text-generation-inference:3.0")
    result = lint_text(tmp_path, text, ["serving-runtime"], V100_PCIE)
    assert [(f.severity, f.line) for f in result.findings] == [("warning", 12)]
    message = result.findings[0].message
    assert "the GPU has no bfloat16 below compute capability 8.0" in message
    assert "Not certain: reviewbot could not see what TGI does with bfloat16" in message


def test_unreadable_values_are_not_judged(tmp_path: Path) -> None:
    text = server(["--dtype=$(DTYPE)", "--max-model-len=$(LEN)", "--tensor-parallel-size=$(TP)"],
                  env="[{name: VLLM_USE_FLASHINFER_SAMPLER, valueFrom: "
                      "{configMapKeyRef: {name: c, key: k}}}]")
    assert kinds(tmp_path, text, V100_PCIE) == []


def test_images_option_is_validated_with_its_line() -> None:
    config = ("rules:\n  serving-runtime:\n    images:\n      vllm/vllm-openai:\n"
              "        - {from: latest, min-compute-capability: \"7.5\"}\n")
    with pytest.raises(ReviewbotError) as info:
        check_options(parse_config(config.encode(), ".reviewbot.yaml"))
    assert info.value.message.startswith(
        ".reviewbot.yaml:5:18: rules.serving-runtime.images.vllm/vllm-openai[0].from: expected a "
        "string matching")


def test_releases_below_the_table_entry_pass(tmp_path: Path) -> None:
    config = V100_PCIE + ("rules:\n  serving-runtime:\n    images:\n"
                          "      vllm/vllm-openai: [{from: \"0.15.0\", "
                          "min-compute-capability: \"7.5\"}]\n")
    assert kinds(tmp_path, server(["--dtype=half"], gpus=1, image="vllm/vllm-openai:v0.14.1"),
                 config) == []
    assert kinds(tmp_path, server(["--dtype=half"], gpus=1, image="vllm/vllm-openai:v0.16.0"),
                 config) == [("error", "vllm/vllm-openai:v0.16.0 is at or above 0.15.0, which "
                              "needs compute capability 7.5 (rules.serving-runtime.images in "
                              ".reviewbot.yaml), but it lands")]


def test_an_unset_sampler_variable_is_quiet_on_a_release_that_runs_the_v0_engine(
        tmp_path: Path) -> None:
    """A new-user trial: vllm/vllm-openai:v0.8.5 on a V100 was an error for an unset
    VLLM_USE_FLASHINFER_SAMPLER. Before v0.10.2 vLLM runs its V0 engine below compute
    capability 8.0, whose sampler uses FlashInfer only when the variable is 1."""
    unset = {"env": "[]", "args": ["--disable-custom-all-reduce"]}
    old = server(unset["args"], image="vllm/vllm-openai:v0.8.5", env=unset["env"])
    assert kinds(tmp_path / "a", old, V100_PCIE) == []
    forced = server(unset["args"], image="vllm/vllm-openai:v0.8.5",
                    env="[{name: VLLM_USE_FLASHINFER_SAMPLER, value: \"1\"}]")
    assert [k for _, k in kinds(tmp_path / "b", forced, V100_PCIE)] == [
        "VLLM_USE_FLASHINFER_SAMPLER is '1'"]
    new = server(unset["args"], image="vllm/vllm-openai:v0.10.2", env=unset["env"])
    assert [k for _, k in kinds(tmp_path / "c", new, V100_PCIE)] == [
        "VLLM_USE_FLASHINFER_SAMPLER is not set"]
    # a post-release's tag names its release (new-user trial seventy-five: v0.6.3.post1, a
    # vLLM tag, was "names none", a warning on a clean tree)
    post = server(unset["args"], image="vllm/vllm-openai:v0.6.3.post1", env=unset["env"])
    assert kinds(tmp_path / "d", post, V100_PCIE) == []
    newer = server(unset["args"], image="vllm/vllm-openai:v0.10.2.post1", env=unset["env"])
    assert [k for _, k in kinds(tmp_path / "e", newer, V100_PCIE)] == [
        "VLLM_USE_FLASHINFER_SAMPLER is not set"]


def test_an_unset_sampler_variable_under_a_tag_naming_no_release_is_a_warning(
        tmp_path: Path) -> None:
    """New-user trial forty-two: `vllm/vllm-openai:latest` (or `nightly`) on a V100 was an
    error that took the tag for a release of the V1 engine: the release decides, and the
    tag names none. A warning that says so; a release tag keeps its verdict."""
    unset = ["--disable-custom-all-reduce"]
    for n, tag in enumerate(("latest", "nightly")):
        text = server(unset, image=f"vllm/vllm-openai:{tag}", env="[]")
        result = lint_text(tmp_path / str(n), text, ["serving-runtime"], V100_PCIE)
        assert [(f.severity, f.message.split("Not certain: ")[-1]) for f in result.findings] == [
            ("warning", f"reviewbot could not see which vLLM release the image runs (its tag, "
                        f"{tag}, names none): releases before 0.10.2 run the V0 engine here, "
                        "whose sampler uses FlashInfer only when VLLM_USE_FLASHINFER_SAMPLER "
                        "is 1.")]
    released = server(unset, image="vllm/vllm-openai:v0.11.0", env="[]")
    assert kinds(tmp_path / "r", released, V100_PCIE) == [
        ("error", "VLLM_USE_FLASHINFER_SAMPLER is not set")]


def test_app_template_s_env_mapping_is_read_as_the_list_is(tmp_path: Path) -> None:
    """New-user trial thirty-one: an app-template release setting the sampler variable in
    the mapping its values allow (`NAME: value`) was an error, "is not set", and a backend
    written there went unjudged."""
    def release(env: str) -> str:
        return f"""
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata: {{name: vllm, namespace: ai}}
            spec:
              chart:
                spec:
                  chart: app-template
                  version: 3.7.1
                  sourceRef: {{kind: HelmRepository, name: bjw-s, namespace: flux-system}}
              values:
                controllers:
                  vllm:
                    strategy: Recreate
                    pod:
                      nodeSelector: {{kubernetes.io/hostname: worker-1}}
                    containers:
                      app:
                        image: {{repository: vllm/vllm-openai, tag: v0.11.0}}
                        args: [--disable-custom-all-reduce, --tensor-parallel-size=2]
                        env:
                          {env}
                        resources:
                          limits: {{nvidia.com/gpu: 2}}
        """
    assert kinds(tmp_path / "a", release('VLLM_USE_FLASHINFER_SAMPLER: "0"'), V100_PCIE) == []
    assert kinds(tmp_path / "b", release('VLLM_USE_FLASHINFER_SAMPLER: {value: "0"}'),
                 V100_PCIE) == []
    flash = release('VLLM_USE_FLASHINFER_SAMPLER: "0"\n                          '
                    'VLLM_ATTENTION_BACKEND: FLASH_ATTN')
    result = lint_text(tmp_path / "c", flash, ["serving-runtime"], V100_PCIE)
    assert [(f.severity, f.line, f.message.split(" on ")[0]) for f in result.findings] == [
        ("error", 22, "vllm, container app (values controllers.vllm): attention backend "
                      "FLASH_ATTN")]


def test_an_inference_service_s_engine_is_its_serving_runtime_s(tmp_path: Path) -> None:
    """New-user trial sixty-one: vLLM named in a ClusterServingRuntime (image, command),
    the InferenceService giving the model's args: KServe merges the runtime's container
    under the InferenceService's (MergeRuntimeContainers: the runtime's args, then the
    InferenceService's), yet no GPU check ran. The runtime's env counts too: its sampler
    setting is no error."""
    isvc = """
        apiVersion: serving.kserve.io/v1beta1
        kind: InferenceService
        metadata: {name: chat, namespace: llm}
        spec:
          predictor:
            nodeSelector: {kubernetes.io/hostname: worker-1}
            model:
              modelFormat: {name: vllm}
              runtime: vllm-openai
              args: [--dtype=bfloat16]
              resources: {limits: {nvidia.com/gpu: "1"}}
        ---
        apiVersion: serving.kserve.io/v1alpha1
        kind: ClusterServingRuntime
        metadata: {name: vllm-openai}
        spec:
          supportedModelFormats: [{name: vllm, autoSelect: true}]
          containers:
          - name: kserve-container
            image: vllm/vllm-openai:v0.11.0
            command: [python3, -m, vllm.entrypoints.openai.api_server]
            args: [--port=8080]
            env: [{name: VLLM_USE_FLASHINFER_SAMPLER, value: "0"}]
    """
    result = lint_text(tmp_path, isvc, ["serving-runtime"], V100_PCIE)
    assert [(f.line, f.kind, f.severity) for f in result.findings] == [(10, "bf16", "error")]
    # the runtime chosen by its model format when none is named
    auto = isvc.replace("              runtime: vllm-openai\n", "")
    assert [f.kind for f in lint_text(tmp_path / "auto", auto, ["serving-runtime"],
                                      V100_PCIE).findings] == ["bf16"]
    # new-user trial seventy-three (D5): the runtime's own --dtype is said where the runtime
    # writes it (a pull request changing it had its errors at the models, none inline)
    runtime = isvc.replace("args: [--dtype=bfloat16]", "args: [--max-model-len=8192]").replace(
        "args: [--port=8080]", "args: [--port=8080, --dtype=bfloat16]")
    result = lint_text(tmp_path / "runtime", runtime, ["serving-runtime"], V100_PCIE)
    assert [(f.line, f.column, f.kind, f.object) for f in result.findings] == [
        (22, 25, "bf16", "ClusterServingRuntime/vllm-openai")]
    assert result.findings[0].message.startswith("chat-predictor, container kserve-container: "
                                                 "--dtype=bfloat16 on worker-1")


def test_an_fp8_kv_cache_a_release_with_v0_serves_otherwise_is_a_warning(tmp_path: Path) -> None:
    """New-user trial sixty-one: `--kv-cache-dtype=fp8` with VLLM_ATTENTION_BACKEND=FLASH_ATTN
    on an L4 (8.9) under vLLM 0.8.5 was an error; that release's V1 engine falls back to V0,
    whose selector serves the FP8 KV cache with XFormers. From 0.11 there is no V0."""
    l4 = "cluster:\n  nodes:\n" + node("worker-1", "NVIDIA-L4", "8.9")
    env = ("[{name: VLLM_ATTENTION_BACKEND, value: FLASH_ATTN}, "
           "{name: VLLM_USE_FLASHINFER_SAMPLER, value: \"0\"}]")
    old = server(["--kv-cache-dtype=fp8"], image="vllm/vllm-openai:v0.8.5", env=env, gpus=1)
    result = lint_text(tmp_path / "old", old, ["serving-runtime"], l4)
    assert [(f.kind, f.severity, f.line) for f in result.findings] == [
        ("fp8-kv-fallback", "warning", 13)]
    assert "falls back to its V0 engine, which serves it with XFormers" in (
        result.findings[0].message)
    new = old.replace("v0.8.5", "v0.11.0")
    assert [(f.kind, f.severity) for f in lint_text(tmp_path / "new", new, ["serving-runtime"],
                                                    l4).findings] == [("fp8-kv-cache", "error")]
