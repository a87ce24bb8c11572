"""vLLM/SGLang arguments and env match the GPUs of the node the pod lands on.

What it checks:

Every app container that runs vLLM, SGLang or TGI (named in its image,
command or args; a KServe InferenceService's model server with its ServingRuntime's or
ClusterServingRuntime's container merged under it, as KServe merges them: the runtime's
command unless the model sets one, its args then the model's, its env) and requests a GPU,
against the GPU facts of the node it is pinned to
(`nodeSelector`/affinity on `kubernetes.io/hostname`, `nodeName`; unpinned: every inventory
node that admits it and offers the GPU resource, and only when all of them fail). The GPU
facts are the node's inventory labels: the compute capability from GPU feature discovery's
`nvidia.com/gpu.compute.major`/`minor`, else from `nvidia.com/gpu.product` through NVIDIA's
table of CUDA GPUs (`reviewbot.model.inventory.COMPUTE_CAPABILITY`: V100 7.0, T4 7.5, A100
8.0, A10/A40/RTX 30xx 8.6, L4/L40/RTX 40xx 8.9, H100/H200 9.0, B200 10.0); the interconnect
from the product name (`PCIE`, or `SXM` for NVLink). Each message names the fact and where it
came from (label, table, annotation, inventory entry, config option).

Why:

The seeds' most expensive failures were serving-runtime facts no linter knew: a TP=2 engine
that hung 14 minutes after graph capture, an image release that could not see the GPU, FP8
and bf16 checkpoints that do not run on Volta. They are measured once and then checked.

Kinds:

- `bf16`: `--dtype bfloat16` (or `auto`, vLLM's default, with a bf16-only checkpoint: a model
  name with a `BF16` token, or one listed in `bf16-checkpoints`) below compute capability 8.0.
  vLLM refuses it: "Bfloat16 is only supported on GPUs with compute capability of at least
  8.0" (vllm-project/vllm#946, #1157).
  For TGI the refusal is vLLM's, not measured: a warning that says so.
- `bf16-fallback`: SGLang with `--dtype bfloat16` below 8.0. It does not refuse it: its model
  runner serves float16 instead ("Compute capability below sm80. Use float16 due to lack of
  bfloat16 support."), so the server runs in a dtype its flag does not say (an info).
- `engine-gpu`: SGLang on a GPU its model runner refuses before loading the model: major
  below 8 and minor below 5 (V100's 7.0; T4's 7.5 passes this check): "SGLang only supports sm75 and
  above" (since sgl-project/sglang#1136, August 2024; an image tag older than 0.3 is not
  judged).
  The server's other facts are not reported then.
- `fp8-weights`: FP8 weights (`--quantization fp8`, or a model name with an `FP8` token)
  below 8.0: there are no FP8 kernels at all, not even the weight-only Marlin ones (the seed:
  "FP8 (no FP8 on Volta)", which is why it serves 4-bit GPTQ in float16).
- `quantization`: vLLM with a 4-bit method whose kernels need Turing (`--quantization awq`,
  `awq_marlin`, `gptq_marlin`, `marlin`, or an AWQ checkpoint, a model name with an `AWQ`
  token and no `--quantization`, which vLLM reads from its config) below compute capability
  7.5: "The quantization method awq is not supported for the current GPU. Minimum
  capability: 75. Current capability: 70." (AWQConfig's `get_min_capability`; vLLM's
  quantization hardware table marks AWQ and Marlin unsupported on Volta). GPTQ runs there.
- `fp8-weight-only`: between 8.0 and 8.9 vLLM runs FP8 checkpoints weight-only
  (Marlin W8A16), without FP8 compute: it works, slower than the name promises.
- `fp8-kv-cache`: `--kv-cache-dtype fp8*` where the chosen attention backend
  (`VLLM_ATTENTION_BACKEND` or `--attention-backend`) is documented not to store an FP8 KV
  cache: `FLASH_ATTN` below 9.0 (FlashAttention-2 keeps `auto`/`bfloat16` only; FA3, on 9.x,
  has FP8) and `FLEX_ATTENTION`, per the backend feature table of vLLM's
  `docs/design/attention_backends.md`; and `TRITON_ATTN` below 8.9 with `fp8`/`fp8_e4m3`:
  it stores float8_e4m3fn, Triton's `fp8e4nv`, which has no kernels there ("type fp8e4nv not
  supported in this architecture": vLLM issue 26431; the backend refuses it at start since
  vLLM PR 43914); `fp8_e5m2` is left alone (it ran on Volta before that PR). Without a chosen
  backend vLLM picks one that fits, and the rule says nothing: it never guesses.
- `fp8-kv-fallback`: the same FP8 KV cache with `VLLM_ATTENTION_BACKEND=FLASH_ATTN` under a
  release before 0.11 named by the image's tag: its V1 engine falls back to V0, whose
  selector serves the FP8 KV cache with XFormers ("Cannot use FlashAttention-2 backend for
  FP8 KV cache"): the server runs, without the backend chosen (a warning).
- `custom-all-reduce`: `--tensor-parallel-size 2` on two PCIe Volta GPUs without
  `--disable-custom-all-reduce`. The seed's TP=2 engine finished graph capture and then hung
  14 minutes ("No available shared memory broadcast block found in 60 seconds") until its
  startup probe killed it; custom all-reduce deadlocks on that Volta/PCIe pair. vLLM itself
  turns custom all-reduce off on more than two PCIe-only GPUs, so only TP=2 is checked there.
  Other products only where the hang is measured: option `custom-all-reduce-hangs` lists
  their product names (globs; there any TP of 2 or more is checked when the GPUs are not
  PCIe, TP=2 when they are). `lint --fix` appends the flag where the flags are a list of
  words (`args: [--tensor-parallel-size, "2"]`), not inside a shell line.
- `sampler`: below 7.5, vLLM with `VLLM_USE_FLASHINFER_SAMPLER` not `0` (unset counts: the
  FlashInfer sampler is used when it is not switched off, and flashinfer's `check_cuda_arch`
  raises on 7.0). The fix is the seed's env: `VLLM_USE_FLASHINFER_SAMPLER=0`. An image of a
  release before 0.10.2 runs vLLM's V0 engine below 8.0, whose sampler uses FlashInfer only
  when the variable is 1: unset, it is quiet there.
- `attention-backend`: an attention backend that needs a newer GPU (`FLASHINFER`: 7.5, the
  seed's measurement; `FLASH_ATTN`: 8.0, FlashAttention-2 needs Ampere). The fix is the
  seed's env: `VLLM_ATTENTION_BACKEND=TRITON_ATTN`. SGLang's `--attention-backend fa3` runs
  on 8.x and 9.x only (its backend asserts "FlashAttention v3 Backend requires SM>=80 and
  SM<=90"); SGLang's fixes name its own backends (`triton`, `flashinfer`).
- `kv-cache`: `--max-model-len` (SGLang: `--context-length`; `32k` = 32,000, `32K` = 32,768 as
  vLLM reads them) above the measured KV cache capacity, from the annotation
  `reviewbot.dev/measured-kv-cache-tokens` or the inventory's `measured:` entry for the
  workload. The engine refuses to start ("The model's max seq len ... is larger than the
  maximum number of tokens that can be stored in KV cache"); the seed measured 132,672
  tokens on one V100 and 436,112 on TP=2.
- `image`: an image release at or above a release that needs a newer GPU, from the table in
  option `images` (repository -> `[{from: "0.15.0", min-compute-capability: "7.5"}]`),
  the way the seed measured v0.15.0 failing on sm70 with error 803 before any model load.

When it stays quiet:

Containers that run no LLM server or request no GPU; pods whose
node the inventory does not know, or whose labels give no compute capability (nothing is
assumed about an unknown GPU); values it cannot read (`$(DTYPE)`, a `valueFrom` env);
image tags that are not versions (where the release decides, as for the sampler of vLLM's
V0 engine below 8.0, a warning that says so); a KV cache capacity nobody measured.

Options:

`bf16-checkpoints` and `custom-all-reduce-hangs` (glob lists), `images` (the release table),
`gpu-resources`.

Failing example:

```yaml
# .reviewbot.yaml
cluster:
  nodes:
  - name: worker-1
    labels: {kubernetes.io/hostname: worker-1, nvidia.com/gpu.product: Tesla-V100-PCIE-32GB}
    allocatable: {cpu: "32", memory: 63495Mi, nvidia.com/gpu: "4"}
```

```yaml
# coder.yaml
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: coder, namespace: llm-serving}
spec:
  predictor:
    nodeSelector: {kubernetes.io/hostname: worker-1}
    containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.11.0
      args: [--dtype=bfloat16, --tensor-parallel-size=2]
      resources:
        limits: {nvidia.com/gpu: "2"}
```

Passing example:

```yaml
# .reviewbot.yaml
cluster:
  nodes:
  - name: worker-1
    labels: {kubernetes.io/hostname: worker-1, nvidia.com/gpu.product: Tesla-V100-PCIE-32GB}
    allocatable: {cpu: "32", memory: 63495Mi, nvidia.com/gpu: "4"}
```

```yaml
# coder.yaml
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: coder, namespace: llm-serving}
spec:
  predictor:
    nodeSelector: {kubernetes.io/hostname: worker-1}
    containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.11.0
      args: [--dtype=float16, --tensor-parallel-size=2, --disable-custom-all-reduce]
      env:
      - {name: VLLM_USE_FLASHINFER_SAMPLER, value: "0"}
      - {name: VLLM_ATTENTION_BACKEND, value: TRITON_ATTN}
      resources:
        limits: {nvidia.com/gpu: "2"}
```
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from reviewbot.engine.findings import Edit, Violation, edit
from reviewbot.engine.registry import Option
from reviewbot.model.images import parse_image
from reviewbot.model.objects import (
    Container,
    KObject,
    Model,
    Node,
    Path,
    PodTemplate,
    runtime_container,
)
from reviewbot.model.workload import (
    DEFAULT_GPU_RESOURCES,
    DIGITS,
    MEASURED_KV_CACHE,
    TP_FLAGS,
    Flag,
    Placement,
    admits,
    argv,
    container_gpus,
    describe,
    env_entries,
    field_path,
    flag,
    image_ref,
    measured_source,
    parse_int,
    pinned_host,
)
from reviewbot.rules._kit import argv_of, views

if TYPE_CHECKING:
    from reviewbot.model.inventory import GpuFacts

ID = "serving-runtime"
SEVERITY = "error"
SUMMARY = "vLLM/SGLang arguments and env fit the compute capability of the pinned node's GPUs."
RATIONALE = (
    "An engine started with a dtype, kernel or backend the GPU lacks fails at start or hangs "
    "after minutes of loading, and the manifests look fine: only the node's GPU facts tell."
)
FIX = "Change the flag or env the message names to what the node's GPU supports."
IMAGES_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "additionalProperties": {
        "type": "array",
        "items": {
            "type": "object", "additionalProperties": False,
            "required": ["from", "min-compute-capability"],
            "properties": {
                "from": {"type": "string", "pattern": r"^v?[0-9]+(\.[0-9]+)*$"},
                "min-compute-capability": {"type": ["string", "number"],
                                           "pattern": r"^[0-9]+\.[0-9]$"},
            },
        },
    },
}
OPTIONS = (
    Option("bf16-checkpoints", "list", [],
           "Checkpoints (glob patterns of --model values) that ship only as bfloat16, so "
           "--dtype auto means bf16."),
    Option("custom-all-reduce-hangs", "list", [],
           "GPU products (globs of nvidia.com/gpu.product) where custom all-reduce was measured "
           "to hang; PCIe Volta is always checked."),
    Option("images", "map", {},
           "Image releases that need a newer GPU: repository -> "
           "[{from: VERSION, min-compute-capability: \"7.5\"}].", schema=IMAGES_SCHEMA),
    Option("gpu-resources", "list", list(DEFAULT_GPU_RESOURCES),
           "Extended resources that are GPUs (glob patterns)."),
)
SEVERITIES = {
    "bf16": "error", "bf16-fallback": "info", "engine-gpu": "error", "fp8-weights": "error",
    "fp8-kv-fallback": "warning",
    "fp8-weight-only": "info", "fp8-kv-cache": "error",
    "custom-all-reduce": "error", "sampler": "error", "attention-backend": "error",
    "kv-cache": "error", "image": "error", "quantization": "error",
}
ADMISSION = "admitted"  # its findings hold once the API server admits the object (what it runs)

ENGINES = (("vllm", "vllm"), ("sglang", "sglang"), ("text-generation-inference", "tgi"),
           ("text-generation-launcher", "tgi"))
DTYPE_FLAGS = ("--dtype",)
QUANT_FLAGS = {"vllm": ("--quantization", "-q"), "sglang": ("--quantization",),
               "tgi": ("--quantize",)}
KV_DTYPE_FLAGS = ("--kv-cache-dtype",)
MODEL_FLAGS = ("--model", "--model-path", "--model-id")
MAX_LEN_FLAGS = {"vllm": ("--max-model-len",), "sglang": ("--context-length",), "tgi": ()}
BACKEND_FLAGS = ("--attention-backend",)
NO_CUSTOM_AR = "--disable-custom-all-reduce"
SAMPLER_ENV = "VLLM_USE_FLASHINFER_SAMPLER"
BACKEND_ENV = "VLLM_ATTENTION_BACKEND"
# Attention backends and the compute capability they need (FLASHINFER: the seed measured
# flashinfer's check_cuda_arch raising on 7.0; FLASH_ATTN: FlashAttention-2 needs 8.0).
BACKEND_MIN = {"FLASHINFER": (7, 5), "FLASHINFER_VLLM_V1": (7, 5), "FLASH_ATTN": (8, 0),
               "FLASH_ATTN_VLLM_V1": (8, 0)}
_BACKEND_WHY = {"FLASHINFER": "flashinfer's check_cuda_arch raises below it",
                "FLASHINFER_VLLM_V1": "flashinfer's check_cuda_arch raises below it",
                "FLASH_ATTN": "FlashAttention-2 runs on Ampere and newer",
                "FLASH_ATTN_VLLM_V1": "FlashAttention-2 runs on Ampere and newer"}
BF16 = ("bfloat16", "bf16")
# vLLM quantization methods whose kernels need compute capability 7.5 or more in every
# release (AWQ's own kernel, "Turing or newer"; the Marlin kernels, 8.0 before 0.8): vLLM's
# quantization hardware table marks each unsupported on Volta
TURING_METHODS = frozenset({"awq", "awq_marlin", "gptq_marlin", "marlin", "gptq_marlin_24"})


@dataclass(frozen=True)
class _Server:
    """A model server container and the engine flags and environment it is given."""

    pod: PodTemplate
    container: Container
    engine: str
    tokens: list[tuple[str, Path]]
    env: Mapping[str, tuple[str | None, Path]]  # name -> (value, None for valueFrom)
    # a KServe InferenceService's ServingRuntime: what it writes (paths under its
    # ``spec.containers``) is found there, where a change to it is made
    runtime: tuple[KObject, Path] | None = None  # (the runtime, its container's path)


def check_set(model: Model, opts: Mapping[str, Any]) -> Iterator[Violation]:
    for _, view in views(model):  # each cluster with its own nodes
        yield from _cluster(view, opts)


def _cluster(model: Model, opts: Mapping[str, Any]) -> Iterator[Violation]:
    patterns = tuple(str(p) for p in opts.get("gpu-resources") or DEFAULT_GPU_RESOURCES)
    placement: Placement | None = None
    seen: set[tuple[int, Path]] = set()
    for pod in model.pods:
        for container in pod.main_containers:
            key = (id(pod.obj), container.path)
            if key in seen or not container_gpus(container, patterns):
                continue
            seen.add(key)
            server = _server(model, pod, container)
            if server is None:
                continue
            if placement is None:
                placement = Placement(model.pods, model.inventory)
            nodes = _nodes(pod, placement, model, patterns)
            # here: the inventory's module is imported by a lint with a model server (1.2% of
            # a one-file lint)
            from reviewbot.model.inventory import gpu_facts

            facts = [gpu_facts(n) for n in nodes]
            known = [f for f in facts if f is not None and f.compute is not None]
            if not nodes or len(known) != len(nodes):
                yield from _kv_cache(server, model)
                continue
            found = list(_checks(server, known, opts))
            if len(known) > 1:  # unpinned: only what fails on every node it can land on
                every = set.intersection(*(
                    {(v.kind, v.path) for v in _checks(server, [g], opts)} for g in known))
                found = [v for v in found if (v.kind, v.path) in every]
            yield from found
            yield from _kv_cache(server, model)


# ---------------------------------------------------------------- the checks


def _checks(s: _Server, gpus: Sequence[GpuFacts], opts: Mapping[str, Any]) -> Iterator[Violation]:
    low = min(gpus, key=lambda g: g.compute or (0, 0))  # the node that decides (all fail)
    cc = low.compute or (0, 0)
    where = _where(gpus)
    dtype = flag(s.tokens, DTYPE_FLAGS)
    model_flag = flag(s.tokens, MODEL_FLAGS) or _positional_model(s)
    model_name = model_flag.value if model_flag else ""
    sglang = s.engine == "sglang" and _sglang_checks_device(s)
    if sglang and cc[0] < 8 and cc[1] < 5:
        # (SGLang's model runner, before it loads the model: below sm80 it switches to
        # float16, and raises when the minor version is below 5 as well: V100's 7.0 fails,
        # T4's 7.5 runs. Every other fact is moot then.)
        yield _violation(
            s, _image_path(s) or s.container.path,
            "engine-gpu",
            f"SGLang on {where}: SGLang's model runner refuses the GPU before it loads the "
            "model (\"SGLang only supports sm75 and above\")",
            "Serve this model with vLLM on this GPU (it runs compute capability 7.0 with "
            "--dtype=float16), or pin the pod to a GPU of compute capability 7.5 or newer.")
        return
    # bf16
    bf16_ckpt = _token(model_name, "bf16") or any(
        fnmatch.fnmatchcase(model_name, str(p)) for p in opts.get("bf16-checkpoints") or ())
    wants_bf16 = dtype is not None and dtype.value.lower() in BF16
    auto_bf16 = (dtype is None or dtype.value.lower() == "auto") and bf16_ckpt and model_flag
    if sglang and cc < (8, 0) and wants_bf16:
        assert dtype is not None
        yield _violation(
            s, dtype.path, "bf16-fallback",
            f"{dtype.spelling} on {where}: SGLang serves float16 instead below compute "
            "capability 8.0 (its model runner: \"Compute capability below sm80. Use float16 "
            "due to lack of bfloat16 support.\"), so the server runs, in a dtype the flag "
            "does not say",
            "Set --dtype=float16, the dtype the server runs on this GPU.")
    elif s.engine != "sglang" and cc < (8, 0) and (wants_bf16 or auto_bf16):
        anchor = dtype if wants_bf16 else model_flag
        assert anchor is not None
        why = (f"{anchor.spelling}" if wants_bf16 else
               f"--dtype {'auto' if dtype else 'unset (auto)'} with the bf16-only checkpoint "
               f"{model_name}")
        found = _violation(
            s, anchor.path, "bf16",
            f"{why} on {where}: vLLM refuses bfloat16 below compute capability 8.0 "
            "(\"Bfloat16 is only supported on GPUs with compute capability of at least 8.0\")"
            if s.engine == "vllm" else
            f"{why} on {where}: the GPU has no bfloat16 below compute capability 8.0 (vLLM "
            "refuses it: \"Bfloat16 is only supported on GPUs with compute capability of at "
            "least 8.0\")",
            "Use --dtype=float16 (a bf16 checkpoint loads in float16).")
        # (TGI's own handling of bfloat16 there is not known: its error is not promised)
        yield found if s.engine == "vllm" else replace(
            found, doubt=f"what {s.engine.upper()} does with bfloat16 on this GPU (the refusal "
                         "quoted is vLLM's)")
    # FP8 weights
    quant = flag(s.tokens, QUANT_FLAGS.get(s.engine, ()))
    fp8_quant = quant is not None and quant.value.lower().startswith("fp8")
    fp8_ckpt = model_flag is not None and _token(model_name, "fp8") and quant is None
    if fp8_quant or fp8_ckpt:
        anchor = quant if fp8_quant else model_flag
        assert anchor is not None
        what = anchor.spelling if fp8_quant else f"the FP8 checkpoint {model_name}"
        if cc < (8, 0):
            yield _violation(
                s, anchor.path, "fp8-weights",
                f"{what} on {where}: no FP8 kernels exist below compute capability 8.0, not "
                "even weight-only Marlin, so the engine cannot load the weights",
                "Serve a float16 checkpoint or a quantization the GPU runs (GPTQ/AWQ 4-bit "
                "in float16).")
        elif cc < (8, 9):
            yield _violation(
                s, anchor.path, "fp8-weight-only",
                f"{what} on {where}: below compute capability 8.9 there is no FP8 compute; "
                "vLLM runs FP8 weights weight-only (Marlin W8A16), without the FP8 speed-up",
                "Expect weight-only FP8 here, or serve a checkpoint made for this GPU.")
    # 4-bit methods whose kernels need Turing (vLLM's AWQConfig and the Marlin kernels:
    # get_min_capability 75 and more; the engine refuses the method before loading weights)
    method = quant.value.lower() if quant is not None else ""
    awq_ckpt = model_flag is not None and _token(model_name, "awq") and quant is None
    if s.engine == "vllm" and cc < (7, 5) and (method in TURING_METHODS or awq_ckpt):
        anchor = quant if quant is not None else model_flag
        assert anchor is not None
        named = method or "awq"
        what = anchor.spelling if quant is not None else (
            f"the AWQ checkpoint {model_name} (vLLM reads its quantization from the "
            "checkpoint's config)")
        yield _violation(
            s, anchor.path, "quantization",
            f"{what} on {where}: vLLM's {named} kernels need compute capability 7.5, and "
            f"the engine refuses the method (\"The quantization method {named} is not "
            f"supported for the current GPU. Minimum capability: 75. Current capability: "
            f"{cc[0]}{cc[1]}.\")",
            "Serve a GPTQ checkpoint (--quantization gptq runs in float16 on Volta) or "
            "float16 weights.")
    # FP8 KV cache, where the chosen backend is documented not to store one
    kv = flag(s.tokens, KV_DTYPE_FLAGS)
    backend, backend_path = _backend(s)
    if kv is not None and kv.value.lower().startswith("fp8") and backend is not None:
        name = backend.upper()
        lacks = (name.startswith("FLASH_ATTN") and cc < (9, 0)) or name.startswith("FLEX_ATTENTION")
        # (the Triton backend stores FP8 as float8_e4m3fn, Triton's fp8e4nv, which has no
        # lowering below 8.9: "type fp8e4nv not supported in this architecture", vLLM issue
        # 26431; since PR 43914 the backend refuses it at start. e5m2 worked before that.)
        e4m3 = kv.value.lower() in ("fp8", "fp8_e4m3")
        if name.startswith("TRITON_ATTN") and e4m3 and cc < (8, 9):
            yield _violation(
                s, kv.path, "fp8-kv-cache",
                f"{kv.spelling} with attention backend {name} on {where}: the Triton backend "
                "stores an FP8 KV cache as float8_e4m3fn (Triton's fp8e4nv), which has no "
                "kernels below compute capability 8.9, so the engine fails at start (\"type "
                "fp8e4nv not supported in this architecture\")",
                "Drop the FP8 KV cache (--kv-cache-dtype auto).")
        elif lacks and name.startswith("FLASH_ATTN") and (
                fallback := _falls_back(s, kv.spelling, name, where)) is not None:
            yield fallback
        elif lacks:
            yield _violation(
                s, kv.path, "fp8-kv-cache",
                f"{kv.spelling} with attention backend {name} on {where}: {name} keeps no FP8 "
                "KV cache there (vLLM's attention backend table: FlashAttention-2 and "
                "FlexAttention store auto/bfloat16 only; FA3's FP8 needs 9.x)",
                "Drop the FP8 KV cache, or let vLLM choose the backend (unset "
                f"{BACKEND_ENV})." if cc >= (8, 9) else
                "Drop the FP8 KV cache (--kv-cache-dtype auto); below compute capability 8.9 "
                "the Triton backend cannot store it either.")
    # custom all-reduce
    tp = flag(s.tokens, TP_FLAGS)
    size = parse_int(tp.value) if tp is not None else None
    if tp is not None and size is not None and size >= 2 and NO_CUSTOM_AR not in _words(s):
        hang = _custom_ar_hangs(gpus, size, opts)
        if hang is not None:
            found = _violation(
                s, tp.path, "custom-all-reduce",
                f"{tp.spelling} on {where} without {NO_CUSTOM_AR}: {hang}",
                f"Add {NO_CUSTOM_AR} (NCCL then does the all-reduce; on PCIe it costs "
                "nothing).")
            yield replace(found, edits=_flag_added(found, tp.path, NO_CUSTOM_AR))
    # sm75+ sampler and attention backends
    if s.engine == "vllm" and cc < (7, 5):
        entry = s.env.get(SAMPLER_ENV)
        value = entry[0] if entry is not None else ""
        if entry is None and _v0_engine(s, cc):
            pass  # (vLLM's V0 engine samples with FlashInfer only when it is 1)
        elif value is not None and value.strip().lower() not in ("0", "false"):
            state = f"is {value!r}" if entry is not None else "is not set"
            path = entry[1] if entry is not None else (
                field_path(s.container, "env") if "env" in s.container.body
                else s.container.path)
            found = _violation(
                s, path, "sampler",
                f"{SAMPLER_ENV} {state} on {where}: vLLM samples with FlashInfer unless it "
                "is 0, and flashinfer's check_cuda_arch raises below compute capability 7.5",
                f"Set env {SAMPLER_ENV}=\"0\" (and {BACKEND_ENV}=TRITON_ATTN).")
            release = _unknown_release(s) if entry is None and cc < (8, 0) else None
            yield found if release is None else replace(found, doubt=release)
    if s.engine == "sglang" and backend is not None and backend.lower() == "fa3" and (
            cc[0] not in (8, 9)):
        # (SGLang's fa3 backend asserts the device's major capability is 8 or 9; new-user
        # trial fifty-nine's T4, 7.5)
        yield _violation(
            s, backend_path or s.container.path, "attention-backend",
            f"--attention-backend fa3 on {where}: SGLang's FlashAttention 3 backend runs on "
            "compute capability 8.x and 9.x only, so the server fails at start "
            "(\"FlashAttention v3 Backend requires SM>=80 and SM<=90\")",
            "Use --attention-backend flashinfer." if (7, 5) <= cc < (8, 0) or cc >= (10, 0)
            else "Use --attention-backend triton.")
    elif backend is not None and backend.upper() in BACKEND_MIN:
        need = BACKEND_MIN[backend.upper()]
        if cc < need:
            yield _violation(
                s, backend_path or s.container.path, "attention-backend",
                f"attention backend {backend.upper()} on {where}: it needs compute capability "
                f"{need[0]}.{need[1]} ({_BACKEND_WHY.get(backend.upper(), '')})",
                "Use --attention-backend triton (Triton attention runs on 7.0)."
                if s.engine == "sglang" else
                f"Set {BACKEND_ENV}=TRITON_ATTN (Triton attention runs on 7.0).")
    # image releases
    yield from _image(s, gpus, low, where, opts)


def _falls_back(s: _Server, kv: str, backend: str, where: str) -> Violation | None:
    """An FP8 KV cache with ``VLLM_ATTENTION_BACKEND=FLASH_ATTN`` under a vLLM release before
    :data:`V0_REMOVED`, named by the image's tag: FlashAttention-2 stores none, and the
    release does not fail: its V1 engine falls back to V0 for the FP8 KV cache (arg_utils'
    `_is_v1_supported_oracle`), whose selector then takes XFormers ("Cannot use
    FlashAttention-2 backend for FP8 KV cache"), and it serves, without the backend chosen
    (new-user trial sixty-one: 0.8.5 on an L4 was an error). None otherwise."""
    ref = image_ref(s.container)
    version = _version(ref.tag) if ref is not None and ref.tag else None
    if s.engine != "vllm" or version is None or version >= V0_REMOVED or (
            BACKEND_ENV not in s.env):
        return None
    return _violation(
        s, s.env[BACKEND_ENV][1], "fp8-kv-fallback",
        f"{kv} with attention backend {backend} on {where}: {backend} keeps no FP8 KV cache "
        f"there, and vLLM {ref.tag if ref else ''} falls back to its V0 engine, which serves "
        "it with XFormers instead (\"Cannot use FlashAttention-2 backend for FP8 KV cache\"): "
        "the server runs, without the backend chosen, slower",
        f"Unset {BACKEND_ENV} (or drop the FP8 KV cache); from vLLM "
        f"{'.'.join(map(str, V0_REMOVED))} on the engine refuses this pair.")


def _kv_cache(s: _Server, model: Model) -> Iterator[Violation]:
    found = flag(s.tokens, MAX_LEN_FLAGS.get(s.engine, ()))
    length = _human_int(found.value) if found is not None else None
    if found is None or length is None:
        return
    fact = measured_source(s.pod, MEASURED_KV_CACHE, model.inventory)
    if fact is None:
        return
    capacity = parse_int(fact[0].replace(",", "").replace("_", ""))
    if capacity is None or length <= capacity:
        return
    yield _violation(
        s, found.path, "kv-cache",
        f"{found.spelling} is {length:,} tokens, but the measured KV cache holds {capacity:,} "
        f"({fact[1]}): the engine refuses to start (\"max seq len ... is larger than the "
        "maximum number of tokens that can be stored in KV cache\")",
        f"Lower {found.spelling.split('=')[0].split()[0]} to at most {capacity}, or give the "
        "engine more KV cache (more GPUs with tensor parallelism, a higher "
        "--gpu-memory-utilization) and measure again.")


def _image(s: _Server, gpus: Sequence[GpuFacts], low: GpuFacts, where: str,
           opts: Mapping[str, Any]) -> Iterator[Violation]:
    table = opts.get("images") or {}
    ref = image_ref(s.container)
    if not isinstance(table, Mapping) or ref is None or ref.repository is None or not ref.tag:
        return
    version = _version(ref.tag)
    entries = table.get(ref.repository) or table.get(ref.repository.removeprefix("docker.io/"))
    if version is None or not isinstance(entries, list):
        return
    cc = low.compute or (0, 0)
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        start = _version(str(entry.get("from", "")))
        need = _cc(entry.get("min-compute-capability"))
        if start is None or need is None or version < start or cc >= need:
            continue
        yield _violation(
            s, _image_path(s) or field_path(s.container, "image"), "image",
            f"{ref.repository}:{ref.tag} is at or above {entry.get('from')}, which needs "
            f"compute capability {need[0]}.{need[1]} (rules.serving-runtime.images in "
            f".reviewbot.yaml), but it lands on {where}",
            f"Keep the image below {entry.get('from')} on this node (the last release "
            "measured to work), or move the pod to a newer GPU.")
        return


# ---------------------------------------------------------------- facts and helpers


def _server(model: Model, pod: PodTemplate, container: Container) -> _Server | None:
    tokens = argv_of(model, container)
    image = container.image
    env: dict[str, tuple[str | None, Path]] = {}
    merged = runtime_container(model, pod, container)
    runtime_at = (merged[0], merged[1]) if merged is not None else None
    if merged is not None:  # (KServe merges its runtime's container under this one: the
        # runtime's command unless this one has its own, the runtime's args first; what
        # the runtime writes is said where the runtime writes it, trial seventy-three D5:
        # a pull request changing the runtime's --dtype had its errors at the models)
        _, at, runtime = merged
        own = {k: v for k, v in runtime.items() if k in ("command", "args") and (
            k == "args" or "command" not in container.body)}
        tokens = argv(Container(container.name, own, at, "container")) + tokens
        image = image or runtime.get("image")
        if not container.image and isinstance(runtime.get("image"), str) and (
                runtime["image"].strip()):  # (the release the runtime runs)
            container = replace(container, image_ref=parse_image(runtime["image"].strip()))
        for item, where in env_entries(runtime.get("env")):
            if isinstance(item.get("name"), str):
                value = item.get("value")
                env[item["name"]] = (None if "valueFrom" in item else
                                     ("" if value is None else str(value)),
                                     at + ("env",) + where[1:])
    text = " ".join(t for t, _ in tokens).lower() + " " + str(image or "").lower()
    engine = next((name for word, name in ENGINES if word in text), None)
    if engine is None:
        return None
    base = field_path(container, "env")
    for item, at in env_entries(container.body.get("env")):
        if isinstance(item.get("name"), str):
            value = item.get("value")
            env[item["name"]] = (None if "valueFrom" in item else
                                 ("" if value is None else str(value)), base + at[1:])
    return _Server(pod, container, engine, tokens, env, runtime_at)


def _nodes(pod: PodTemplate, placement: Placement, model: Model,
           patterns: Sequence[str]) -> list[Node]:
    node = placement.node_of(pod)
    if node is not None:
        return [node]
    if pinned_host(pod) is not None:
        return []  # pinned to a host the inventory does not list
    return [n for n in model.inventory.nodes
            if admits(pod, n) and any(fnmatch.fnmatchcase(r, p) for r in n.allocatable
                                      for p in patterns if n.allocatable[r] > 0)]


def _where(gpus: Sequence[GpuFacts]) -> str:
    def one(g: GpuFacts) -> str:
        product = f"'s {g.product}" if g.product else ""
        return (f"{g.node}{product}, compute capability {g.compute_text} "
                f"({g.compute_source})")
    if len(gpus) == 1:
        return one(gpus[0])
    return "every node it can land on (" + "; ".join(one(g) for g in gpus) + ")"


def _custom_ar_hangs(gpus: Sequence[GpuFacts], size: int, opts: Mapping[str, Any]) -> str | None:
    listed = [str(p) for p in opts.get("custom-all-reduce-hangs") or ()]
    reasons = []
    for g in gpus:
        product = g.product or ""
        measured = any(fnmatch.fnmatchcase(product, p) for p in listed)
        volta_pcie = g.interconnect == "pcie" and g.compute is not None and g.compute[0] == 7 \
            and g.compute < (7, 5)
        if g.interconnect == "pcie" and size != 2:
            return None  # vLLM disables custom all-reduce on more than two PCIe-only GPUs
        if volta_pcie:
            reasons.append("vLLM's custom all-reduce deadlocks on PCIe Volta pairs after CUDA "
                           "graph capture (measured: \"No available shared memory broadcast "
                           "block found in 60 seconds\" for 14 minutes, until the startup "
                           "probe killed the pod)")
        elif measured:
            reasons.append(f"custom all-reduce was measured to hang on {product} "
                           "(rules.serving-runtime.custom-all-reduce-hangs)")
        else:
            return None
    return reasons[0] if reasons else None


def _backend(s: _Server) -> tuple[str | None, Path | None]:
    found = flag(s.tokens, BACKEND_FLAGS)
    if found is not None:
        return found.value, found.path
    value, path = s.env.get(BACKEND_ENV, (None, None))
    return (value or None), path


def _words(s: _Server) -> set[str]:
    return {t.split("=", 1)[0] for t, _ in s.tokens}


def _positional_model(s: _Server) -> Flag | None:
    """``vllm serve MODEL`` / ``python -m sglang.launch_server``: the word after ``serve``."""
    for i, (token, path) in enumerate(s.tokens[:-1]):
        if token == "serve" and not s.tokens[i + 1][0].startswith("-"):
            return Flag(s.tokens[i + 1][0], path, f"serve {s.tokens[i + 1][0]}")
    return None


# patterns compiled while importing (the start-up cache keeps them), not at a run's first call
_SEPARATORS = re.compile(r"[-_/.:]")
_HUMAN_INT = re.compile(rf"\s*({DIGITS})([kKmMgG]?)\s*")
# a release's tag, a post-release's of it too (`v0.6.3.post1`: PEP 440's, as vLLM tags them)
_VERSION = re.compile(rf"v?({DIGITS}(?:\.{DIGITS})*)(?:\.?post{DIGITS})?")
_CAPABILITY = re.compile(rf"({DIGITS})\.([0-9])")


def _token(name: str, word: str) -> bool:
    return word in (t.lower() for t in _SEPARATORS.split(name))


def _human_int(value: str) -> int | None:
    """vLLM's human-readable integers: ``32768``, ``32k`` (x1000), ``32K`` (x1024), m/M."""
    match = _HUMAN_INT.fullmatch(value.replace("_", ""))
    if not match:
        return None
    number, unit = int(match.group(1)), match.group(2)
    scale = {"": 1, "k": 10**3, "K": 2**10, "m": 10**6, "M": 2**20, "g": 10**9, "G": 2**30}
    return number * scale[unit]


# the first vLLM release whose V1 engine runs below compute capability 8.0 (v0.10.2, "Extended
# V1 support to compute capability < 8.0", PRs 23614 and 24022); before it vLLM falls back to
# its V0 engine there, whose sampler uses FlashInfer only with VLLM_USE_FLASHINFER_SAMPLER=1
V1_BELOW_SM80 = (0, 10, 2)
# the first vLLM release line without the V0 engine to fall back to (V0 removed in 0.11)
V0_REMOVED = (0, 11)
# The first SGLang release line whose model runner checks the device before loading: float16
# below sm80, and a refusal below 7.5 (sgl-project/sglang#1136, merged in August 2024; taken
# from 0.3 on, to leave no doubt about the releases of that month)
SGLANG_DEVICE_CHECK = (0, 3)


def _v0_engine(s: _Server, cc: tuple[int, int]) -> bool:
    """Whether ``s`` runs vLLM's V0 engine on a GPU of compute capability ``cc``: a vLLM
    image tagged with a release before :data:`V1_BELOW_SM80` on a GPU below 8.0 (a new-user
    trial: vllm/vllm-openai:v0.8.5 on a V100 was an error for an unset sampler variable)."""
    ref = image_ref(s.container)
    version = _version(ref.tag) if ref is not None and ref.tag else None
    return (cc < (8, 0) and version is not None and version < V1_BELOW_SM80
            and ref is not None and "vllm" in (ref.repository or "").rsplit("/", 1)[-1])


def _unknown_release(s: _Server) -> str | None:
    """What could not be seen of ``s``'s vLLM release, where it decides the engine below
    compute capability 8.0 (:func:`_v0_engine`): an image tag that is no version (`latest`,
    `nightly`, none) names no release (new-user trial forty-two: an error built on a
    guess the message hid)."""
    ref = image_ref(s.container)
    if ref is None or "vllm" not in (ref.repository or "").rsplit("/", 1)[-1]:
        return None
    if ref.tag and _version(ref.tag) is not None:
        return None
    return (f"which vLLM release the image runs (its tag, {ref.tag or 'none'}, names none): "
            f"releases before {'.'.join(map(str, V1_BELOW_SM80))} run the V0 engine here, "
            f"whose sampler uses FlashInfer only when {SAMPLER_ENV} is 1")


def _sglang_checks_device(s: _Server) -> bool:
    """Whether ``s``'s SGLang release checks the GPU before it loads the model (below sm80
    float16 instead of bfloat16; below 7.5 a refusal): every release since
    :data:`SGLANG_DEVICE_CHECK` (August 2024), and an image tag that names no release (the
    newest, which needs sm80 for its kernels, fails there all the more)."""
    ref = image_ref(s.container)
    version = _version(ref.tag) if ref is not None and ref.tag else None
    return version is None or version >= SGLANG_DEVICE_CHECK


def _version(tag: str) -> tuple[int, ...] | None:
    match = _VERSION.fullmatch(tag.strip())
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


def _cc(value: Any) -> tuple[int, int] | None:
    match = _CAPABILITY.fullmatch(str(value).strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


def _image_path(s: _Server) -> Path | None:
    """Where the server's image is written: its container's, else its runtime's."""
    if "image" in s.container.body:
        return field_path(s.container, "image")
    return s.runtime[1] + ("image",) if s.runtime is not None else None


def _flag_added(found: Violation, at: Path, flag: str) -> tuple[Edit, ...]:
    """The edit that appends ``flag`` to the list of words the flag at ``at`` is one of (a
    container's ``args`` or ``command`` written a word an item, where ``lint --fix`` adds a
    word as one more; new-user trial eighty-eight W5); none where that item is a shell line
    (`sh -c "vllm serve ..."`: the flag is not a word of its own) or the list is not the
    finding's object's."""
    obj = found.obj
    if obj is None or len(at) < 2 or not isinstance(at[-1], int) or at[-2] not in (
            "args", "command"):
        return ()
    items = obj.get(at[:-1])
    word = obj.get(at)
    if not isinstance(items, list) or not isinstance(word, str) or any(
            c.isspace() for c in word.strip()) or flag in items:
        return ()
    return (edit(obj, at[:-1], "append", flag),)


def _violation(s: _Server, path: Path, kind: str, message: str, fix: str) -> Violation:
    """At ``path`` of the pod's object, or of its ServingRuntime where the runtime writes
    it (an InferenceService's own paths are under ``spec.predictor``)."""
    obj = s.runtime[0] if s.runtime is not None and path[:2] == ("spec", "containers") else (
        s.pod.obj)
    return Violation(obj, path, f"{s.pod.name}, {describe(s.container)}: {message}",
                     fix=fix, kind=kind)
