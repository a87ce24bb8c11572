"""`reviewbot lint --fix [--diff] [--unsafe-fixes]` on copies of the seed defects, and the
round-trip editor it writes with."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from pathlib import Path

import pytest

from reviewbot.cli import main
from reviewbot.commands import fix as fix_command
from reviewbot.engine.fixer import FixOutcome
from reviewbot.load.roundtrip import Change, RoundTripError, apply_changes
from tests.helpers import lint_dir

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "tests" / "fixtures" / "seed-repo"
GOLDEN = ROOT / "tests" / "golden" / "fix"


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _texts(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*.yaml"))}


def _comments(text: str) -> list[str]:
    """Every comment of a file (``# ...`` to the line end), in order."""
    out = []
    for line in text.splitlines():
        hit = re.search(r"(?:^|\s)(#.*)$", line)
        if hit:
            out.append(hit.group(1))
    return out


def _keys(root: Path) -> set[tuple[str, str, str]]:
    return {f.identity for f in lint_dir(root).findings}


def _run(root: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    cwd = os.getcwd()
    os.chdir(root)
    try:
        code = main(["lint", *args, "."])
    finally:
        os.chdir(cwd)
    return code, capsys.readouterr().out


def _golden(name: str, text: str) -> None:
    golden = GOLDEN / name
    if os.environ.get("REVIEWBOT_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.is_file(), f"{golden} is missing: run with REVIEWBOT_UPDATE_GOLDEN=1"
    assert text == golden.read_text()


# what each seed state's --fix must remove: (rule, file) of the findings
CASES = {
    "examples": (ROOT / "examples", ["--unsafe-fixes"], {
        ("gpu-rollout", "k8s/apps/llm-serving/coder.yaml"),
        ("probe-headroom", "k8s/apps/llm-serving/coder.yaml"),
        ("shm-size", "k8s/apps/llm-serving/coder.yaml"),
        ("kustomize-integrity", "k8s/apps/llm-serving/kustomization.yaml"),
        ("kustomize-integrity", "k8s/apps/llm-serving/models-pvc.yaml"),
        ("netpol-pairing", "k8s/apps/poimen/networkpolicy.yaml"),
        ("netpol-pairing", "k8s/apps/poimen/poimen-memory.yaml"),
    }),
    "step1": (SEEDS / "step1", [], {
        ("netpol-pairing", "k8s/apps/poimen/poimen-memory.yaml"),
    }),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fix_removes_the_findings_adds_none_keeps_comments(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, extra, wanted = CASES[name]
    root = _copy(source, tmp_path / name)
    before_findings = lint_dir(root).findings
    before = {f.identity for f in before_findings}
    targeted = {f.identity for f in before_findings if (f.rule, f.file) in wanted}
    assert {(f.rule, f.file) for f in before_findings} >= wanted
    original = _texts(root)

    code, diff = _run(root, "--fix", "--diff", *extra, capsys=capsys)
    assert code == 1
    _golden(f"{name}.diff", diff)
    assert _texts(root) == original  # --diff writes nothing

    _run(root, "--fix", *extra, capsys=capsys)
    after = _keys(root)
    assert not after & targeted, "the fixed findings are gone"
    assert after <= before, "no finding added"
    fixed = _texts(root)
    for path, text in original.items():
        assert _comments(fixed[path]) == _comments(text), f"a comment of {path} was lost"

    code, again = _run(root, "--fix", "--diff", *extra, capsys=capsys)
    assert (code, again) == (0, "")
    _run(root, "--fix", *extra, capsys=capsys)
    assert _texts(root) == fixed  # a second --fix changes nothing


def test_a_fix_that_would_add_a_finding_is_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """examples: coder runs TP=2 on 1 GPU, but worker-1's 4 GPUs are all requested, so
    requesting 2 would make it unschedulable: the gpu-parallelism fix stays text."""
    root = _copy(ROOT / "examples", tmp_path / "examples")
    _run(root, "--fix", capsys=capsys)
    rules = {f.rule for f in lint_dir(root).findings}
    assert "gpu-parallelism" in rules and "schedulability" in rules


def test_gpu_count_follows_tensor_parallel_when_it_fits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """step2 with the examples' defect put back (TP=2 on 1 GPU): the count becomes 2."""
    root = _copy(SEEDS / "step2", tmp_path / "step2")
    coder = root / "k8s/apps/llm-serving/coder.yaml"
    coder.write_text(coder.read_text().replace('nvidia.com/gpu: "2"', 'nvidia.com/gpu: "1"'))
    assert {f.rule for f in lint_dir(root).findings} >= {"gpu-parallelism"}
    original = coder.read_text()
    code, diff = _run(root, "--fix", "--diff", capsys=capsys)
    _golden("step2-gpu.diff", diff)
    _run(root, "--fix", capsys=capsys)
    assert not lint_dir(root).findings
    assert coder.read_text() == original.replace('nvidia.com/gpu: "1"', 'nvidia.com/gpu: "2"')


def test_unsafe_fixes_only_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(SEEDS / "step1", tmp_path / "step1")
    kustomization = root / "k8s/apps/llm-serving/kustomization.yaml"
    _run(root, "--fix", capsys=capsys)
    text = kustomization.read_text()
    assert "- ornith.yaml" in text
    assert "models-pvc.yaml" not in text  # listing a manifest deploys it: unsafe
    _run(root, "--fix", "--unsafe-fixes", capsys=capsys)
    text = kustomization.read_text()
    assert "- ornith.yaml" not in text
    assert "- models-pvc.yaml\n" in text
    assert "  # expect: kustomize-integrity[missing]\n" in text  # its comment stays
    assert not [f for f in lint_dir(root).findings if f.rule == "kustomize-integrity"]


def test_shm_size_from_the_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(ROOT / "examples", tmp_path / "examples")
    config = root / ".reviewbot.yaml"
    text = config.read_text()
    assert "shm-size" not in text
    config.write_text(text.replace("rules:\n", "rules:\n  shm-size: {fix-size: 4Gi}\n", 1))
    _, diff = _run(root, "--fix", "--diff", "--rule", "shm-size", capsys=capsys)
    assert "+        sizeLimit: 4Gi\n" in diff
    assert "failureThreshold" not in diff  # --rule: only that rule's fixes


CALL_TO_DB = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: web}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: api
          image: "api@sha256:DIGEST"
          env: [{name: DB, value: "postgres://db.db.svc:5432/app"}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: db, namespace: db}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
        - {name: db, image: "postgres@sha256:DIGEST", ports: [{containerPort: 5432}]}
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: db}
spec:
  selector: {app: db}
  ports: [{port: 5432}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny, namespace: db}
spec:
  podSelector: {}
  policyTypes: [Ingress]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-egress, namespace: web}
spec:
  podSelector: {matchLabels: {app: api}}
  policyTypes: [Egress]
  egress:
    - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: db}}}]
      ports: [{port: 5432}]
""".replace("DIGEST", "0" * 64)


def test_one_missing_ingress_rule_is_written_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A call (an env URL) and the egress rule that allows it both lack the ingress rule:
    two findings, one rule written (the egress rule's ports say no protocol, the call's
    are TCP: the same rule)."""
    (tmp_path / "all.yaml").write_text(CALL_TO_DB)
    _, diff = _run(tmp_path, "--fix", "--diff", "--rule", "netpol-pairing", capsys=capsys)
    assert diff.count("+    - from:\n") == 1, diff
    assert "+        - protocol: TCP\n+          port: 5432\n" in diff



def test_a_cilium_egress_rule_s_missing_ingress_rule_is_written_with_its_ports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial seventy-eight D1: the callers' egress rule a CiliumNetworkPolicy
    (`toPorts`), the ingress rule the fix wrote had no `ports:`: every port."""
    egress = CALL_TO_DB.split("---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
                              "metadata: {name: api-egress")[0]
    (tmp_path / "all.yaml").write_text(egress + """\
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: api-egress, namespace: web}
spec:
  endpointSelector: {matchLabels: {app: api}}
  egress:
    - toEndpoints: [{matchLabels: {io.kubernetes.pod.namespace: db}}]
      toPorts: [{ports: [{port: "5432", protocol: TCP}]}]
""")
    _, diff = _run(tmp_path, "--fix", "--diff", "--rule", "netpol-pairing", capsys=capsys)
    assert diff.count("+    - from:\n") == 1, diff
    assert "+        - protocol: TCP\n+          port: 5432\n" in diff


def test_the_missing_ingress_rule_of_a_cilium_policy_is_written_as_cilium_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial seventy-nine D8: the destination isolated by a CiliumNetworkPolicy got
    no fix, even with --unsafe-fixes: its rule is written as Cilium's (the namespace's pods
    as `fromEndpoints`, the ports as `toPorts`)."""
    (tmp_path / "all.yaml").write_text(CALL_TO_DB.replace(
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: default-deny, "
        "namespace: db}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress]\n",
        "apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: db, namespace: "
        "db}\nspec:\n  endpointSelector: {matchLabels: {app: db}}\n  ingress:\n"
        "    - fromEndpoints: [{matchLabels: {app: db}}]\n"))
    _, diff = _run(tmp_path, "--fix", "--diff", "--rule", "netpol-pairing", capsys=capsys)
    assert ("+    - fromEndpoints:\n+        - matchLabels:\n"
            "+            io.kubernetes.pod.namespace: web\n+      toPorts:\n+        - ports:\n"
            "+            - port: \"5432\"\n+              protocol: TCP\n") in diff, diff


def test_beside_a_default_deny_the_destination_s_own_policy_takes_the_ingress_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial eighty W6: a namespace's default-deny (no rule: it admits nothing)
    and the database's own allow policy both isolate it: no fix was written, even with
    --unsafe-fixes. The rule goes into the policy that selects the destination alone; with
    two such, the author chooses."""
    own = ("---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
           "metadata: {name: db-allow, namespace: db}\nspec:\n"
           "  podSelector: {matchLabels: {app: db}}\n  policyTypes: [Ingress]\n  ingress:\n"
           "    - from: [{podSelector: {matchLabels: {app: db}}}]\n")
    (tmp_path / "all.yaml").write_text(CALL_TO_DB + own)
    _, diff = _run(tmp_path, "--fix", "--diff", "--rule", "netpol-pairing", capsys=capsys)
    assert "+++ b/all.yaml" in diff and diff.count("+    - from:\n") == 1, diff
    assert diff.index("+    - from:") > diff.index("    - from: [{podSelector"), diff
    (tmp_path / "all.yaml").write_text(CALL_TO_DB + own + own.replace("db-allow", "db-more"))
    _, diff = _run(tmp_path, "--fix", "--diff", "--unsafe-fixes", "--rule", "netpol-pairing",
                   capsys=capsys)
    assert diff == ""


def test_beside_a_cilium_default_deny_of_an_empty_rule_the_own_policy_takes_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial 85 D5: Cilium's default deny is written `ingress: [{}]` (a rule of no peer,
    which admits nobody); beside it the destination's own CiliumNetworkPolicy takes the
    rule, as beside a NetworkPolicy's default-deny of no rule."""
    cilium = CALL_TO_DB.replace(
        "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: default-deny, "
        "namespace: db}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress]\n",
        "apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: default-deny, "
        "namespace: db}\nspec:\n  endpointSelector: {}\n  ingress:\n    - {}\n---\n"
        "apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: db, namespace: "
        "db}\nspec:\n  endpointSelector: {matchLabels: {app: db}}\n  ingress:\n"
        "    - fromEndpoints: [{matchLabels: {app: db}}]\n")
    assert cilium != CALL_TO_DB
    (tmp_path / "all.yaml").write_text(cilium)
    _, diff = _run(tmp_path, "--fix", "--diff", "--rule", "netpol-pairing", capsys=capsys)
    assert diff.count("+    - fromEndpoints:\n") == 1, diff
    assert diff.index("+    - fromEndpoints:") > diff.index("    - fromEndpoints: [{matchLabels: "
                                                            "{app: db}}]"), diff


def test_an_ingress_rule_that_would_admit_more_than_the_finding_is_an_unsafe_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial seventy-eight D2: the policy the ingress rule goes into is a base two
    overlays build (dev's fix opened prod's namespace too), or isolates pods beyond the
    destination (another workload of the namespace on the same port): written only with
    `--unsafe-fixes`."""
    (tmp_path / "base").mkdir()
    (tmp_path / "base/all.yaml").write_text(CALL_TO_DB)
    (tmp_path / "base/kustomization.yaml").write_text("resources: [all.yaml]\n")
    for overlay in ("dev", "prod"):
        (tmp_path / overlay).mkdir()
        (tmp_path / overlay / "kustomization.yaml").write_text(
            f"resources: [../base]\nlabels:\n- pairs: {{env: {overlay}}}\n")
    (tmp_path / ".reviewbot.yaml").write_text(
        "clusters:\n- {name: dev, paths: [dev]}\n- {name: prod, paths: [prod]}\n")
    _, diff = _run(tmp_path, "--fix", "--diff", "--rule", "netpol-pairing", capsys=capsys)
    assert diff == ""
    _, diff = _run(tmp_path, "--fix", "--diff", "--unsafe-fixes", "--rule", "netpol-pairing",
                   capsys=capsys)
    assert diff.count("+    - from:\n") == 1, diff
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "all.yaml").write_text(CALL_TO_DB.replace(  # (the egress rule to db's pods)
        "kubernetes.io/metadata.name: db}}}]", "kubernetes.io/metadata.name: db}}, "
        "podSelector: {matchLabels: {app: db}}}]") + """\
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cache, namespace: db}
spec:
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec:
      containers:
        - {name: cache, image: "redis@sha256:%s", ports: [{containerPort: 5432}]}
""" % ("0" * 64))
    _, diff = _run(alone, "--fix", "--diff", "--rule", "netpol-pairing", capsys=capsys)
    assert diff == ""
    _, diff = _run(alone, "--fix", "--diff", "--unsafe-fixes", "--rule", "netpol-pairing",
                   capsys=capsys)
    assert diff.count("+    - from:\n") == 1, diff



def test_a_value_an_overlay_s_patch_writes_is_fixed_in_the_patch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial seventy-eight D4: prod's patch file set the startup probe's
    failureThreshold: the fix raised it in the base, which the patch still overrode, so no
    fix was offered. It is written where the value is, in the patch; a value an inline
    patch writes (the kustomization's text) is not edited."""
    deployment = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  namespace: llm
  annotations: {reviewbot.dev/measured-boot-seconds: "420"}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
        - name: vllm
          image: "vllm/vllm-openai:v0.8.4@sha256:%s"
          startupProbe:
            httpGet: {path: /health, port: 8000}
            failureThreshold: 90
            periodSeconds: 10
""" % ("0" * 64)
    patch = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: llm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          startupProbe:
            failureThreshold: 30   # 300s
"""
    (tmp_path / "base").mkdir()
    (tmp_path / "base/deployment.yaml").write_text(deployment)
    (tmp_path / "base/kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    (tmp_path / "prod").mkdir()
    (tmp_path / "prod/patch.yaml").write_text(patch)
    (tmp_path / "prod/kustomization.yaml").write_text(
        "resources: [../base]\npatches:\n- path: patch.yaml\n")
    _, diff = _run(tmp_path, "--fix", "--diff", "--rule", "probe-headroom", capsys=capsys)
    assert diff.splitlines()[:2] == ["--- a/prod/patch.yaml", "+++ b/prod/patch.yaml"], diff
    assert ("-            failureThreshold: 30   # 300s\n"
            "+            failureThreshold: 63   # 630s\n") in diff
    inline = "resources: [../base]\npatches:\n- patch: |-\n" + "".join(
        f"    {line}\n" for line in patch.splitlines())
    (tmp_path / "prod/kustomization.yaml").write_text(inline)
    code, diff = _run(tmp_path, "--fix", "--diff", "--rule", "probe-headroom", capsys=capsys)
    assert (code, diff) == (0, "")

# ---------------------------------------------------------------- the round-trip editor


def test_set_keeps_quoting_and_every_other_byte() -> None:
    text = 'a:\n  b: "1"   # the count\n  c: x\n'
    assert apply_changes(text, [Change(("a", "b"), "set", "2")]) == (
        'a:\n  b: "2"   # the count\n  c: x\n')


def test_set_rewrites_the_word_its_comment_spells_of_the_old_value() -> None:
    """New-user trial forty-two: a probe's `failureThreshold: 40   # 400s` raised to 63 kept
    "# 400s", a comment that now lies. The word the edit names, where the comment ending the
    value's line holds it as a word, is rewritten; a word elsewhere (the value itself, a
    longer number) is not."""
    text = "p:\n  failureThreshold: 40   # 400s, not 1400s\n  periodSeconds: 10  # 400s\n"
    out = apply_changes(text, [Change(("p", "failureThreshold"), "set", 63, 0,
                                      ("400s", "630s"))])
    assert out == "p:\n  failureThreshold: 63   # 630s, not 1400s\n  periodSeconds: 10  # 400s\n"
    assert apply_changes("p:\n- 40  # 400s\n", [Change(("p", 0), "set", 63, 0, (
        "400s", "630s"))]) == "p:\n- 63  # 630s\n"
    assert apply_changes("a: 40\n", [Change(("a",), "set", 63, 0, ("400s", "630s"))]) == (
        "a: 63\n")


def test_set_creates_missing_mappings_at_the_siblings_column() -> None:
    text = "spec:\n    predictor:\n        minReplicas: 1\n# end\n"
    out = apply_changes(text, [Change(("spec", "predictor", "strategy", "type"), "set",
                                      "Recreate")])
    assert out == ("spec:\n    predictor:\n        minReplicas: 1\n        strategy:\n"
                   "          type: Recreate\n# end\n")


@pytest.mark.parametrize(("text", "added"), [
    ("a:\n- x\n", "- name: shm\n  k:\n  - 1\n"),
    ("a:\n  - x\n", "  - name: shm\n    k:\n      - 1\n"),
])
def test_append_follows_the_files_sequence_style(text: str, added: str) -> None:
    out = apply_changes(text, [Change(("a",), "append", {"name": "shm", "k": [1]})])
    assert out == text + added


def test_strings_that_read_as_other_types_are_quoted() -> None:
    out = apply_changes("a: []\n", [Change(("a",), "append", v) for v in ("y", "2", "on")])
    assert out == 'a: ["y", "2", "on"]\n'
    # a command line's flag is plain, as the words beside it; a number after `-` is not
    out = apply_changes("a:\n- --port\n", [Change(("a",), "append", v)
                                           for v in ("--disable-custom-all-reduce", "-.5")])
    assert out == 'a:\n- --port\n- --disable-custom-all-reduce\n- "-.5"\n'


def test_comments_closing_a_block_stay_with_it() -> None:
    text = "spec:\n  volumes:\n  - name: a\n    # commented-out options\n    # b: 1\n\n# tail\n"
    out = apply_changes(text, [Change(("spec", "strategy", "type"), "set", "Recreate")])
    assert out == ("spec:\n  volumes:\n  - name: a\n    # commented-out options\n    # b: 1\n"
                   "  strategy:\n    type: Recreate\n\n# tail\n")


def test_flow_collections_stay_flow() -> None:
    text = "a: {b: 1}  # note\nc: [x, y]\n"
    out = apply_changes(text, [Change(("a", "d"), "set", "z"), Change(("c",), "append", "w")])
    assert out == "a: {b: 1, d: z}  # note\nc: [x, y, w]\n"


def test_remove_keeps_the_comments_of_the_removed_lines() -> None:
    text = "r:\n  # why\n  - a.yaml  # gone\n  - b.yaml\n"
    assert apply_changes(text, [Change(("r", 0), "remove")]) == (
        "r:\n  # why\n  # gone\n  - b.yaml\n")


def test_other_documents_are_untouched() -> None:
    text = "a: 1\n---\n# second\nb:   2\n---\nc: 3\n"
    assert apply_changes(text, [Change(("b",), "set", 5, document=1)]) == (
        "a: 1\n---\n# second\nb:   5\n---\nc: 3\n")


@pytest.mark.parametrize(("text", "change"), [
    ("a: |\n  x\n", Change(("a",), "set", "y")),
    ("a:\n  b: 1\n", Change(("a",), "set", "y")),
    ("a: [x,\n  y]\n", Change(("a",), "append", "z")),
    ("a: 1\n", Change(("a", "b"), "set", 2)),
    ("a: " + "9" * 5000 + "\nb: 1\n", Change(("b",), "set", 2)),  # an int Python won't read
])
def test_what_cannot_be_written_in_place_is_refused(text: str, change: Change) -> None:
    with pytest.raises(RoundTripError):
        apply_changes(text, [change])


@pytest.mark.parametrize(("text", "change", "expected"), [
    # a plain scalar in a flow collection ends at its `}`, `,` or `]` (new-user trial
    # seventy-five: `{nvidia.com/gpu: 1}` set to 2 lost its brace, and the fix was refused)
    ("r: {x/y: 1}\n", Change(("r", "x/y"), "set", 2), "r: {x/y: 2}\n"),
    ("r: {a: 1, b: 3}\n", Change(("r", "a"), "set", 4), "r: {a: 4, b: 3}\n"),
    ("s: [1, 2]  # two\n", Change(("s", 1), "set", 5), "s: [1, 5]  # two\n"),
])
def test_a_scalar_in_a_flow_collection_is_set_in_place(text: str, change: Change,
                                                       expected: str) -> None:
    assert apply_changes(text, [change]) == expected


GPU_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: llm, namespace: ai}}
spec:
  strategy: {{type: Recreate}}
  selector: {{matchLabels: {{app: llm}}}}
  template:
    metadata: {{labels: {{app: llm}}}}
    spec:
      containers:
      - name: {name}
        image: {image}@sha256:014a95f21c9edf6abe0aea6b07353f96baa4ec291c427bb1176dc7c93a85845c
        args: [{args}]
        resources:
{resources}
        volumeMounts: [{{mountPath: /dev/shm, name: shm}}]
      volumes:
      - name: shm
        emptyDir: {{medium: Memory, sizeLimit: 8Gi}}
"""


@pytest.mark.parametrize(("image", "args", "resources", "fixed"), [
    # requests 2, limits 1, TP=2: the limit is the side that disagrees
    ("vllm/vllm-openai:v0.11.0", "--tensor-parallel-size=2",
     '          requests: {nvidia.com/gpu: "2"}\n          limits: {nvidia.com/gpu: "1"}',
     '          requests: {nvidia.com/gpu: "2"}\n          limits: {nvidia.com/gpu: "2"}'),
    # a count written as a number stays one (new-user trial seventy-five W8: `"2"`)
    ("vllm/vllm-openai:v0.11.0", "--tensor-parallel-size=2",
     '          requests: {nvidia.com/gpu: 1}\n          limits: {nvidia.com/gpu: 1}',
     '          requests: {nvidia.com/gpu: 2}\n          limits: {nvidia.com/gpu: 2}'),
    # a request without a limit: the limit takes the request
    ("vllm/vllm-openai:v0.11.0", "--tensor-parallel-size=1",
     '          requests:\n            nvidia.com/gpu: "1"',
     '          requests:\n            nvidia.com/gpu: "1"\n          limits:\n'
     '            nvidia.com/gpu: "1"'),
    # no parallelism flag says which of 2 and 1 is meant: text only
    ("ghcr.io/example/trainer:1.0", "--epochs=3",
     '          requests: {nvidia.com/gpu: "2"}\n          limits: {nvidia.com/gpu: "1"}', None),
])
def test_gpu_requests_and_limits_made_equal_when_one_side_is_sure(
    image: str, args: str, resources: str, fixed: str | None, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    manifest = tmp_path / "llm.yaml"
    text = GPU_POD.format(name="llm", image=image, args=args, resources=resources)
    manifest.write_text(text)
    assert "gpu-parallelism" in {f.rule for f in lint_dir(tmp_path).findings}
    _run(tmp_path, "--fix", capsys=capsys)
    if fixed is None:
        assert manifest.read_text() == text
    else:
        assert manifest.read_text() == text.replace(resources, fixed)
        assert "gpu-parallelism" not in {f.rule for f in lint_dir(tmp_path).findings}


def test_the_fix_summary_says_what_stays(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial seventy-six W10: `--fix --diff` said "would fix 0 findings" of a tree
    whose 2 errors have no mechanical fix, and nothing more."""
    (tmp_path / "web.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec:\n"
        "  containers:\n  - {name: web, image: 'web:latest'}\n")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        main(["lint", "--fix", "--diff", "--rule", "image-digest", "."])
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err
    assert ("reviewbot: would fix 0 findings; 1 error or warning has no mechanical fix (the "
            "fix is said in `reviewbot lint`)\n") in err, err
    # a fix a lint of the fixed tree refused is said apart, of the rules asked for alone (new-
    # user trial seventy-eight W4: one sentence for both; examples/' second GPU for coder
    # would overfill worker-1)
    root = _copy(ROOT / "examples", tmp_path / "examples")
    os.chdir(root)
    try:
        main(["lint", "--fix", "--diff", "--rule", "gpu-parallelism", "."])
    finally:
        os.chdir(cwd)
    assert capsys.readouterr().err.endswith(
        "reviewbot: would fix 0 findings; 1 fix not written: a lint of the fixed tree did not "
        "pass (the fix would leave its finding or add another)\n")


def test_the_fix_summary_counts_the_findings_as_lint_shows_them(
        capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial eighty D5: a base two clusters' different builds hold gave each
    cluster's view its own finding, equal but for its clusters; lint showed one (one place,
    one finding), `--fix` said "2 errors or warnings have no mechanical fix"."""
    result = lint_dir(ROOT / "tests/fixtures/netpol-pairing/fail/ingress-port-moved",
                      only=["netpol-pairing"])
    [found] = result.findings
    apart = dataclasses.replace(result, findings=[
        dataclasses.replace(found, clusters=(c,)) for c in ("dev", "prod")])
    fix_command._summary(FixOutcome(result=apart), written=False)
    assert capsys.readouterr().err == (
        "reviewbot: would fix 0 findings; 1 error or warning has no mechanical fix (the fix is "
        "said in `reviewbot lint`)\n")
    # and what it fixes, or would with --unsafe-fixes, alike (new-user trial eighty-three W7:
    # "would fix 2 findings" of lint's one)
    copies = [dataclasses.replace(found, clusters=(c,)) for c in ("dev", "prod")]
    fix_command._summary(FixOutcome(texts={"a.yaml": ""}, fixed=copies,
                                    unsafe_skipped=copies), written=False)
    assert capsys.readouterr().err.startswith(
        "reviewbot: would fix 1 finding in 1 file; 1 more with --unsafe-fixes")


def test_an_alias_bomb_is_not_expanded() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, "
              f"*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 9)]
    with pytest.raises(RoundTripError):
        apply_changes("\n".join(lines) + "\nb: 1\n", [Change(("b",), "set", 2)])
