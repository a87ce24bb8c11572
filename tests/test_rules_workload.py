"""The shared workload helpers, as Kubernetes defines them: requests, flags, placement."""

from __future__ import annotations

import fnmatch
import shlex
from fractions import Fraction
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.model.objects import Node, PodTemplate
from reviewbot.model.workload import (
    DEFAULT_GPU_RESOURCES,
    admits,
    argv,
    flag,
    is_gpu,
    parse_image,
    parse_seconds,
    pinned_host,
    pod_request,
    request,
    shlex_split,
    stand_in_control_planes,
    tolerates,
)

from .helpers import lint_text


# The seeds' measured inventory, shared by the workload rule tests.
def pod_of(tmp_path: Path, spec: str) -> PodTemplate:
    text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n" + spec
    (tmp_path / "p.yaml").write_text(text)
    model = lint_text(tmp_path, text, only=["yaml-syntax"], name="p.yaml").model
    return model.pods[0]


def test_requests_as_the_scheduler_reserves_them(tmp_path: Path) -> None:
    pod = pod_of(tmp_path, """
  initContainers:
  - {name: init, image: x, resources: {requests: {memory: 3Gi}}}
  - name: sidecar
    image: x
    restartPolicy: Always
    resources: {requests: {memory: 1Gi}}
  - {name: late-init, image: x, resources: {requests: {memory: 2Gi}}}
  containers:
  - {name: a, image: x, resources: {limits: {memory: 1Gi, cpu: 1500m}}}
  - {name: b, image: x, resources: {requests: {memory: 512Mi, cpu: "0.5"}}}
""")
    a = pod.containers[3]
    assert request(a, "cpu") == Fraction(3, 2)  # the limit, copied into the request
    # app containers 1.5Gi + sidecar 1Gi = 2.5Gi; init peak: 3Gi, or 1Gi sidecar + 2Gi = 3Gi
    assert pod_request(pod, "memory") == 3 * 2**30
    assert pod_request(pod, "cpu") == 2


def test_flags_in_every_spelling(tmp_path: Path) -> None:
    pod = pod_of(tmp_path, """
  containers:
  - name: a
    image: x
    command: [sh, -c, "vllm serve m --tensor-parallel-size 4 --pipeline-parallel-size=2"]
    args: [-tp, "8"]
""")
    tokens = argv(pod.containers[0])
    names = ("--tensor-parallel-size", "-tp")
    found = flag(tokens, names)
    assert found is not None and (found.value, found.path) == ("8", ("spec", "containers", 0,
                                                                     "args", 0))
    pp = flag(tokens, ("--pipeline-parallel-size",))
    assert pp is not None and (pp.value, pp.path[-2:]) == ("2", ("command", 2))
    assert flag(tokens, ("--data-parallel-size",)) is None


def test_tolerations() -> None:
    cp = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
    assert tolerates([{"operator": "Exists"}], cp)
    assert tolerates([{"key": cp["key"], "operator": "Exists"}], cp)
    assert not tolerates([{"key": cp["key"], "operator": "Exists", "effect": "NoExecute"}], cp)
    assert tolerates([{"key": "gpu", "operator": "Equal", "value": "v100"}],
                     {"key": "gpu", "value": "v100", "effect": "NoSchedule"})
    assert not tolerates([{"key": "other", "operator": "Exists"}], cp)


def test_placement(tmp_path: Path) -> None:
    worker = Node("worker-1", {"kubernetes.io/hostname": "worker-1", "gpu": "v100"}, (), {})
    pinned = pod_of(tmp_path, """
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: kubernetes.io/hostname, operator: In, values: [worker-1]}
          - {key: gpu, operator: NotIn, values: [k80]}
  containers: [{name: a, image: x}]
""")
    assert pinned_host(pinned) == "worker-1"
    assert admits(pinned, worker)
    cp, _ = stand_in_control_planes()
    assert not admits(pinned, cp)  # no such hostname, and the taint is not tolerated
    tolerant = pod_of(tmp_path, """
  nodeSelector: {kubernetes.io/hostname: talos-cp-3}
  tolerations: [{operator: Exists}]
  containers: [{name: a, image: x}]
""")
    # on the stand-ins, labels other than node roles are unknown and count as matching
    assert admits(tolerant, cp, assume_unknown=True) and not admits(tolerant, cp)


def test_empty_toleration_value_matches(tmp_path: Path) -> None:
    # operator defaults to Equal, and an absent value equals an absent value
    assert tolerates([{"key": "k"}], {"key": "k", "effect": "NoSchedule"})


def test_parse_helpers() -> None:
    ref = parse_image("localhost:5000/team/app:1.0@sha256:" + "a" * 64)
    assert (ref.repository, ref.tag) == ("localhost:5000/team/app", "1.0")
    assert parse_image("localhost:5000/app").tag is None
    assert [parse_seconds(v) for v in (600, "600", "600s", "10m", "1h", "soon", -1)] == [
        600, 600, 600, 600, 3600, None, None]


# ---------------------------------------------------------------- argv: shlex's words, faster

SHELL_TEXT = st.lists(st.sampled_from(
    list("ab-=./2 \t\r\n\x0b\x0c\xa0\u2003'\"\\#;$") + ["--tp", " -tp "]), max_size=30).map("".join)


@settings(max_examples=600, deadline=None)
@given(SHELL_TEXT)
def test_shlex_split_are_shlex_split(text: str) -> None:
    """``shlex_split`` splits as ``shlex.split(text, comments=False)`` does (POSIX mode):
    words, quotes, backslashes, shlex's four whitespace characters and the others it keeps
    in a word (vertical tab, no-break space), and the same error on an unclosed quote."""
    try:
        expected: list[str] | str = shlex.split(text, comments=False)
    except ValueError as exc:
        expected = str(exc)
    try:
        got: list[str] | str = shlex_split(text)
    except ValueError as exc:
        got = str(exc)
    assert got == expected


def _last_flag(tokens: list[tuple[str, tuple[str | int, ...]]],
               names: tuple[str, ...]) -> tuple[str, tuple[str | int, ...], str] | None:
    """The last occurrence, every token against every name, as ``flag`` promises."""
    found = None
    for i, (token, path) in enumerate(tokens):
        for name in names:
            if token == name and i + 1 < len(tokens):
                found = (tokens[i + 1][0], path, f"{name} {tokens[i + 1][0]}")
            elif token.startswith(name + "="):
                found = (token[len(name) + 1:], path, token)
    return found


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["-tp", "--tp", "--tp=2", "-tp=x", "2", "", "=", "-", "x=1",
                                 "--tensor-parallel-size", "--tp-size=4", "vllm"]), max_size=8),
       st.lists(st.sampled_from(["-tp", "--tp", "--tp-size", "--tensor-parallel-size", "x",
                                 "", "-", "--tp=", "x=1"]), max_size=4))
def test_flag_is_the_last_occurrence_of_any_name(words: list[str], names: list[str]) -> None:
    """``flag`` looks a token's text before "=" up among the names: what it finds is the
    last occurrence of any name, every token compared with every name (names holding "="
    too, and the empty name)."""
    tokens = [(w, ("args", i)) for i, w in enumerate(words)]
    found = flag(tokens, names)
    got = (found.value, found.path, found.spelling) if found is not None else None
    assert got == _last_flag(tokens, tuple(names))


@given(st.lists(st.sampled_from(["nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915",
                                 "gpu.intel.com/", "gpu.intel.com", "nvidia.com/gpu.shared",
                                 "NVIDIA.com/gpu", "cpu", "memory", "google.com/tpu",
                                 "gpu.intel.com/xe\n"]), min_size=1, max_size=4),
       st.sampled_from([DEFAULT_GPU_RESOURCES, ("nvidia.com/*",), (*DEFAULT_GPU_RESOURCES,
                                                                   "example.com/[ab]*")]))
def test_gpu_resources_match_as_fnmatchcase_matches_them(
        names: list[str], patterns: tuple[str, ...]) -> None:
    """The default patterns, compiled while importing, match as fnmatch.fnmatchcase does."""
    for name in names:
        assert is_gpu(name, patterns) == any(fnmatch.fnmatchcase(name, p) for p in patterns)
