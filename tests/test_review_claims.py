"""Claims a review makes must be true (issue 30, part 1), on the bundled homelab (examples/):

- "It fixes 1 finding of the base branch" only when the cause is gone. A new caller that joins
  a destination nobody admits absorbs the base's finding for the old caller into one finding
  ("chat/open-webui and poimen/poimen-memory call ..."): the old caller's problem is
  still there, so nothing was fixed. Lowering a request until the node fits is a fix.
- Blame the change: a PR that adds a fifth 1-GPU pod to a full node gets the overcommit
  finding on the pod it added (an inline comment on its own file), the other pods named and
  listed as the other places, not on an untouched pod with "lower clef-serve-predictor's
  request".
- An existing problem the PR makes worse (the node's memory, 68Gi -> 72Gi) is reported as
  such ("worse: 68Gi -> 72Gi of 63495Mi", the allocatable as the message writes it), shown
  and counted; one the PR shrinks but leaves is existing.
- One cause, one comment: the egress rule and the URL that one missing ingress rule breaks
  are one finding, at a place the PR changed, listing the other.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from reviewbot.engine.causes import Changed, fixed, group, judge
from reviewbot.engine.findings import Amount, Finding

from .helpers import ROOT, GitRepo, deployment, lint_dir, run_cli
from .render.homelab import GPU_PROBE, OPEN_WEBUI, homelab_pr


def review_json(repo: GitRepo, base: str, head: str, rule: str,
                capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "json", "--rule", rule], capsys)
    assert code in (0, 1), err
    data: dict[str, Any] = json.loads(out)
    return data


def test_a_finding_absorbed_by_a_new_caller_is_not_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo, base, head = homelab_pr(tmp_path, {"k8s/apps/chat/open-webui.yaml": OPEN_WEBUI})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    (new,) = [f for f in data["findings"] if f["new"]]
    assert new["object"] == "Deployment/chat/open-webui"
    # the old caller is still failing, named (of another namespace than the new one's)
    assert "chat/open-webui and poimen/poimen-memory call" in new["message"]
    assert [f for f in data["fixed"] if f["object"] == "Deployment/poimen/poimen-memory"] == []


def test_an_overcommit_the_pr_causes_is_placed_on_the_pod_it_adds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo, base, head = homelab_pr(tmp_path, {"k8s/apps/llm-serving/gpu-probe.yaml": GPU_PROBE})
    data = review_json(repo, base, head, "schedulability", capsys)
    gpus = [f for f in data["findings"] if f["new"] and "nvidia.com/gpu" in f["message"]]
    assert len(gpus) == 1, gpus  # once, not once per pod on the node
    (finding,) = gpus
    assert finding["object"] == "Deployment/llm-serving/gpu-probe"
    assert finding["file"] == "k8s/apps/llm-serving/gpu-probe.yaml"
    assert "clef-serve-predictor" in finding["message"]  # the others are named
    assert "lower clef-serve-predictor's request" not in finding["fix"]


def review_out(repo: GitRepo, base: str, head: str, fmt: str, capsys: pytest.CaptureFixture[str],
               *extra: str) -> tuple[int, str, str]:
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", fmt, *extra], capsys)
    assert code in (0, 1), err
    return code, out, err


def test_the_inline_comment_of_the_overcommit_is_on_the_added_pod(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo, base, head = homelab_pr(tmp_path, {"k8s/apps/llm-serving/gpu-probe.yaml": GPU_PROBE})
    _, out, err = review_out(repo, base, head, "markdown", capsys, "--rule", "schedulability")
    inline = err.split("inline comment(s)", 1)[1]
    assert inline.count("\nk8s/apps/llm-serving/gpu-probe.yaml:22\n") == 1  # gpu and memory
    assert "2 findings of `schedulability` at this line (2 warnings)" in inline
    assert "clef-serve.yaml:52\n" not in inline
    assert "Not shown inline" not in out
    # the other pods are the other places, each once
    assert "Same cause at `k8s/apps/llm-serving/clef-serve.yaml:52`" in inline
    assert out.count("k8s/apps/llm-serving/clef-serve.yaml:52") == 1


def test_an_existing_problem_the_pr_makes_worse_is_reported_worse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo, base, head = homelab_pr(tmp_path, {"k8s/apps/llm-serving/gpu-probe.yaml": GPU_PROBE})
    data = review_json(repo, base, head, "schedulability", capsys)
    (memory,) = [f for f in data["findings"] if "request 72Gi memory" in f["message"]]
    assert memory["new"] is False
    assert memory["worse"] == "68Gi -> 72Gi of 63495Mi"
    assert memory["object"] == "Deployment/llm-serving/gpu-probe"
    assert data["fixed"] == []
    # examples/ lists ornith.yaml, which does not exist: kustomize refuses llm-serving's
    # build on both sides, so its overcommits are warnings ("Not applied"), still worse
    code, out, err = review_out(repo, base, head, "markdown", capsys, "--rule", "schedulability",
                                "--fail-on", "warning")
    assert code == 1
    assert "*worse: 68Gi -&gt; 72Gi of 63495Mi*" in out
    assert "## No new errors: 2 new warnings to look at" in out  # the new one, the worse one
    assert "1 made worse" in out
    assert "(worse: 68Gi -&gt; 72Gi of 63495Mi)" in err  # its inline comment says so


def test_a_probe_budget_already_short_that_the_pr_cuts_further_is_worse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial seventy-one D1: the base's startup probe allowed 900s of an 1080s need
    (an existing finding); the PR cut it to 300s, short of the boot itself, and the review
    called it existing and passed. Its shortfall is measured: worse."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    coder = (ROOT / "examples/k8s/apps/llm-serving/coder.yaml").read_text()
    repo, base, _ = homelab_pr(tmp_path / "a", {})
    for threshold, worse in (("20", "600s -> 300s of 900s"), ("50", None)):
        cut = coder.replace("        failureThreshold: 40\n",
                            f"        failureThreshold: {threshold}\n", 1)
        assert cut != coder
        head = repo.commit({"k8s/apps/llm-serving/coder.yaml": cut}, f"threshold {threshold}")
        data = review_json(repo, base, head, "probe-headroom", capsys)
        found = [(f["new"], f["worse"]) for f in data["findings"]]
        # 50 x 15s is still short of 900s, but less so: existing (hidden)
        assert found == ([(False, worse)] if worse else []), threshold


def test_an_existing_problem_the_pr_shrinks_is_existing_and_one_it_removes_is_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    coder = (ROOT / "examples/k8s/apps/llm-serving/coder.yaml").read_text()
    probe = (ROOT / "examples/k8s/apps/llm-serving/vllm-probe.yaml").read_text()
    smaller = probe.replace("            memory: 4Gi\n", "            memory: 2Gi\n", 1)
    assert smaller != probe
    repo, base, head = homelab_pr(tmp_path / "a", {})
    head = repo.commit({"k8s/apps/llm-serving/vllm-probe.yaml": smaller}, "smaller")
    data = review_json(repo, base, head, "schedulability", capsys)
    assert [f for f in data["findings"] if "memory" in f["message"]] == []  # existing: hidden
    assert data["fixed"] == []  # 66Gi is still more than 63495Mi
    _, out, _ = review_out(repo, base, head, "json", capsys, "--rule", "schedulability",
                           "--scope", "all")
    (memory,) = [f for f in json.loads(out)["findings"] if "memory" in f["message"]]
    assert (memory["new"], memory["worse"]) == (False, None)
    assert memory["object"] == "Deployment/llm-serving/vllm-probe"  # the changed pod
    fits = coder.replace("          memory: 24Gi\n", "          memory: 12Gi\n", 1)
    assert fits != coder
    repo, base, head = homelab_pr(tmp_path / "b", {})
    head = repo.commit({"k8s/apps/llm-serving/coder.yaml": fits}, "fits")
    data = review_json(repo, base, head, "schedulability", capsys)
    assert [(f["rule"], f["object"]) for f in data["fixed"]] == [
        ("schedulability", "InferenceService/llm-serving/coder")]


def test_one_missing_ingress_rule_is_one_finding_per_destination_one_comment_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The PR adds poimen: its egress policy's `to:` and its env URLs reach three predictors
    nobody admits; one finding per destination and port, the other place listed. At one
    line with one fix, the three are one inline comment naming the other two (new-user trial
    eleven: five comments alike at one line); JSON keeps each."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    poimen = {str(p.relative_to(ROOT / "examples")): p.read_text()
              for p in (ROOT / "examples/k8s/apps/poimen").iterdir()}
    repo = GitRepo(tmp_path / "repo")
    repo.commit_tree(ROOT / "examples", "homelab")
    base = repo.commit(dict.fromkeys(poimen), "without poimen")
    head = repo.commit(poimen, "poimen")
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    new = [f for f in data["findings"] if f["new"]]
    destinations = sorted(d for f in new for d in ("embeddings", "reasoning", "reranker")
                          if f"{d}-predictor" in f["message"])
    assert destinations == ["embeddings", "reasoning", "reranker"]  # once each, not twice
    for f in new:  # the caller's URL, its egress rule, the destination's isolating policy
        assert {f["object"], *(o["object"] for o in f["also"])} == {
            "Deployment/poimen/poimen-memory", "NetworkPolicy/poimen/poimen-memory-llm-egress",
            "NetworkPolicy/llm-serving/llm-serving-ingress"}
        assert f["object"] != "NetworkPolicy/llm-serving/llm-serving-ingress"  # unchanged
    _, _, err = review_out(repo, base, head, "markdown", capsys, "--rule", "netpol-pairing")
    assert "--- 1 inline comment(s)" in err
    assert "2 more at this line with this fix, alike: " in err


def test_a_caller_that_leaves_a_destination_others_still_call_is_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cause (llm-serving admits nobody on 8080) remains for open-webui, but poimen-memory
    no longer calls: its finding is fixed, open-webui's is new."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo, base, head = homelab_pr(tmp_path, {"k8s/apps/chat/open-webui.yaml": OPEN_WEBUI})
    gone = repo.commit(dict.fromkeys(
        str(p.relative_to(ROOT / "examples"))
        for p in (ROOT / "examples/k8s/apps/poimen").iterdir()), "without poimen")
    data = review_json(repo, base, gone, "netpol-pairing", capsys)
    assert {f["object"] for f in data["findings"] if f["new"]} == {"Deployment/chat/open-webui"}
    fixed = [{f["object"], *(o["object"] for o in f["also"])} for f in data["fixed"]]
    assert {"Deployment/poimen/poimen-memory", "NetworkPolicy/poimen/poimen-memory-llm-egress",
            "NetworkPolicy/llm-serving/llm-serving-ingress"
            } in fixed  # the URL, the egress rule, the isolating policy: one finding, fixed


# ---------------------------------------------------------------- the policy on plain findings


def _f(obj: str, line: int, cause: str = "worker-1 memory", value: float | None = None,
       clusters: tuple[str, ...] = (), others: tuple[Finding, ...] = ()) -> Finding:
    amount = None if value is None else Amount(value, f"{value:g}Gi", "62Gi")
    return Finding("schedulability", "error", f"{obj}.yaml", line, 1, f"Deployment/ns/{obj}",
                   f"{obj}: the node is full", "lower it", path="requests", cause=cause,
                   amount=amount, clusters=clusters, others=others)


def test_one_cause_is_one_finding_placed_where_the_change_is_and_clusters_stay_apart() -> None:
    a, b = _f("a", 3), _f("b", 7)
    (one,) = group([a, b])
    assert (one.object, [o.object for o in one.others]) == ("Deployment/ns/a", ["Deployment/ns/b"])
    (moved,) = group([a, b], Changed(touched=frozenset({"Deployment/ns/b"})))
    assert (moved.object, [o.object for o in moved.others]) == ("Deployment/ns/b",
                                                                ["Deployment/ns/a"])
    line = Changed(touched=frozenset({"Deployment/ns/a", "Deployment/ns/b"}),
                   lines=frozenset({("b.yaml", 7)}))
    assert group([a, b], line)[0].object == "Deployment/ns/b"  # the changed line wins
    apart = group([_f("a", 3, clusters=("prod",)), _f("b", 7, clusters=("staging",))])
    assert len(apart) == 2
    # a place of both clusters (one base file) joins them, whatever the order
    prod, staging = _f("a", 3, clusters=("prod",)), _f("b", 7, clusters=("staging",))
    both = _f("c", 9, clusters=("prod", "staging"))
    for order in ([prod, staging, both], [both, prod, staging], [prod, both, staging]):
        (joined,) = group(order)
        assert sorted([joined.object, *(o.object for o in joined.others)]) == [
            "Deployment/ns/a", "Deployment/ns/b", "Deployment/ns/c"]
    assert len(group([_f("a", 3, cause=""), _f("b", 7, cause="")])) == 2  # no cause: alone


def test_a_cause_one_place_is_certain_of_is_said_without_another_place_s_doubt() -> None:
    """New-user trial thirty-eight: a denied call of a chart's caller, doubted (how the chart
    renders it), and the same flow's egress rule finding, certain, are one cause: shown at
    the changed policy as an error whose text said "Not certain". The cause is certain: the
    shown place's doubt goes; a "Not applied" sentence stays."""
    doubted = replace(_f("a", 3), severity="warning", message=(
        "a: the node is full. Not certain: reviewbot could not see the chart x itself."))
    (one,) = group([doubted, _f("b", 7)], Changed(touched=frozenset({"Deployment/ns/a"})))
    assert (one.object, one.severity, one.message) == (
        "Deployment/ns/a", "error", "a: the node is full")
    unapplied = replace(doubted, message=doubted.message + " Not applied: the build of a "
                        "fails (a/kustomization.yaml: 'x' missing), so none of this is applied "
                        "until it builds.")
    (kept,) = group([unapplied, _f("b", 7)], Changed(touched=frozenset({"Deployment/ns/a"})))
    assert kept.message == unapplied.message
    # a finding of an object no cluster receives is not made certain by its own other places:
    # its fact needs that object (new-user trial seventy-one D2: the egress rules of a build
    # kustomize refuses, errors by their ingress side's places)
    (alone,) = group([replace(unapplied, others=(_f("b", 7),))],
                     Changed(touched=frozenset({"Deployment/ns/a"})))
    assert (alone.severity, alone.message) == ("warning", unapplied.message)


def test_new_worse_existing_and_fixed_by_cause() -> None:
    base = group([_f("a", 3, value=68), _f("b", 7, value=68)])
    grown = judge(group([_f("a", 3, value=72), _f("b", 7, value=72), _f("c", 1, value=72)]),
                  base)
    assert [(f.new, f.worse) for f in grown] == [(False, "68Gi -> 72Gi of 62Gi")]
    same = judge(group([_f("a", 3, value=66)]), base)
    assert [(f.new, f.worse) for f in same] == [(False, "")]
    other = judge(group([_f("a", 3, cause="worker-1 cpu", value=40)]), base)
    assert [(f.new, f.worse) for f in other] == [(True, "")]
    # a cause the rule does not measure: new when one of its places is new
    unmeasured = group([_f("b", 7)])
    assert [f.new for f in judge(group([_f("a", 3), _f("b", 7)]), unmeasured)] == [True]
    assert [f.new for f in judge(unmeasured, unmeasured)] == [False]
    # fixed: only when no finding of the cause names the object any more
    absorbed = group([_f("c", 1, others=(_f("b", 7),))])
    assert fixed(unmeasured, absorbed) == []
    assert [f.object for f in fixed(unmeasured, group([_f("c", 1)]))] == ["Deployment/ns/b"]
    assert fixed(unmeasured, group([_f("b", 9)])) == []  # moved lines: the same place


WEB = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: %s
"""


def test_a_warning_the_pr_turns_into_an_error_is_reported_worse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # nginx:1.27.0 (pinned by tag only: a warning) moved to nginx:latest (an error) is the
    # same finding by identity (rule, object, field path): not new, but worse, and reported
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"k8s/web.yaml": WEB % "nginx:1.27.0"})
    head = repo.commit({"k8s/web.yaml": WEB % "nginx:latest"})
    data = review_json(repo, base, head, "image-digest", capsys)
    (image,) = data["findings"]
    assert (image["severity"], image["new"], image["worse"], image["line"]) == (
        "error", False, "warning -> error", 11)
    code, out, _ = review_out(repo, base, head, "markdown", capsys, "--rule", "image-digest")
    assert code == 1
    assert "*worse: warning -&gt; error*" in out


def test_a_finding_an_overlay_change_makes_in_an_unchanged_base_file_sits_at_the_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-five: an overlay's `commonLabels` made the base's Deployment
    selector change (immutable) and wrote its label into the base policy's DNS selector;
    both findings sit in base files the pull request does not change, so neither had an
    inline comment ("Not shown inline"). Each is posted at the overlay's changed line,
    saying what it is about; a finding whose own line is in the diff stays there."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    deployment = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27@sha256:%s
""" % ("a" * 64)
    overlay = "resources: [../../base]\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"base/kustomization.yaml": "resources: [web.yaml]\n",
                        "base/web.yaml": deployment,
                        "overlays/home/kustomization.yaml": overlay})
    head = repo.commit({"overlays/home/kustomization.yaml":
                        overlay + "commonLabels:\n  env: home\n"})
    _, out, err = review_out(repo, base, head, "markdown", capsys, "--rule", "change-safety")
    inline = err.split("inline comment(s)", 1)[1]
    assert "\noverlays/home/kustomization.yaml:2\nAbout `Deployment/shop/web` at " \
           "`base/web.yaml` line 5, which this change affects:\n\n**error** " \
           "`change-safety[immutable]`: Deployment shop/web: spec.selector changes" in inline
    assert "Not shown inline" not in out
    # its own line in the diff: there, as before
    again = repo.commit({"base/web.yaml": deployment.replace("app: web}}\n  template",
                                                             "app: web, tier: a}}\n  template")})
    _, out, err = review_out(repo, head, again, "markdown", capsys, "--rule", "change-safety")
    assert "\nbase/web.yaml:5\n**error** `change-safety[" in err


def test_the_deletions_a_removed_entry_prunes_are_one_comment_on_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-four: the objects a Flux Kustomization pruned with its removed
    entry were six comments stacked on one line. Findings of one rule at one line are one
    comment, the errors first, counting each finding; another rule's stays apart."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\n"
            "spec: {{interval: 10m, path: {path}, prune: true, "
            "sourceRef: {{kind: GitRepository, name: flux-system}}}}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "clusters/home/sync.yaml": sync.format(name="flux-system", path="./clusters/home"),
        "clusters/home/apps.yaml": sync.format(name="apps", path="./apps/shop"),
        "clusters/home/kustomization.yaml": "resources: [sync.yaml, apps.yaml]\n",
        "apps/shop/all.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n"
                              "apiVersion: v1\nkind: PersistentVolumeClaim\n"
                              "metadata: {name: data, namespace: shop}\n"
                              "spec: {accessModes: [ReadWriteOnce], resources: {requests: "
                              "{storage: 1Gi}}}\n---\napiVersion: v1\nkind: ConfigMap\n"
                              "metadata: {name: c, namespace: shop}\n"})
    head = repo.commit({"clusters/home/kustomization.yaml": "resources:\n  - sync.yaml\n"})
    _, _, err = review_out(repo, base, head, "markdown", capsys)
    inline = err.split("inline comment(s)", 1)[1]
    assert inline.count("\nclusters/home/kustomization.yaml:1\n") == 2  # + kustomize-integrity
    (merged,) = [c for c in inline.split("<!-- reviewbot:fp:") if "findings of" in c]
    assert "\n4 findings of `change-safety` at this line (2 errors, 2 infos):\n\n" \
           "**error** `change-safety[deleted-data]`: Namespace shop is no longer applied" in merged
    assert merged.count("\n---\n") == 3 and merged.index("PersistentVolumeClaim shop/data") \
        < merged.index("ConfigMap shop/c")


def test_a_review_lists_the_quiet_places_of_what_it_changed_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-seven: the places a rule stays quiet on purpose in the whole
    tree ("not reported on purpose (9)", about files the pull request did not touch) stood
    under every review; a review lists those of the files it changed (`lint` lists all)."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n"
           "  containers: [{{name: c, image: 'ghcr.io/x/{name}:${{TAG}}'}}]\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"a.yaml": pod.format(name="a"), "b.yaml": pod.format(name="b")})
    head = repo.commit({"b.yaml": pod.format(name="b") + "---\n" + pod.format(name="c")})
    _, out, _ = review_out(repo, base, head, "text", capsys, "--rule", "image-digest")
    quiet = out.split("not reported on purpose (", 1)[1].split("\n")
    assert quiet[0] == "2):" and "a.yaml" not in "\n".join(quiet[:4])


def test_a_call_to_a_renamed_service_is_commented_at_the_rename(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-six: a Service renamed (`llm` -> `vllm`, the same pods) broke
    the calls its clients' unchanged env still makes; those errors sat in files the pull
    request did not change and were shown nowhere inline. The rename is the same cause's
    other place: the comment sits at the renamed Service's name."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    service = ("apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: ai\n"
               "spec:\n  selector: {{app: llm}}\n  ports: [{{port: 8000}}]\n")
    api = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: web}\n"
           "spec:\n  selector: {matchLabels: {app: api}}\n  template:\n"
           "    metadata: {labels: {app: api}}\n    spec:\n      containers:\n"
           "      - name: api\n        image: api:1\n        env:\n"
           "        - {name: LLM_URL, value: 'http://llm.ai.svc.cluster.local:8000'}\n")
    llm = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: llm, namespace: ai}\n"
           "spec:\n  selector: {matchLabels: {app: llm}}\n  template:\n"
           "    metadata: {labels: {app: llm}}\n    spec:\n      containers:\n"
           "      - {name: llm, image: 'llm:1', ports: [{containerPort: 8000}]}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"ai/service.yaml": service.format(name="llm"), "ai/llm.yaml": llm,
                        "web/api.yaml": api})
    head = repo.commit({"ai/service.yaml": service.format(name="vllm")})
    _, out, err = review_out(repo, base, head, "markdown", capsys, "--rule", "netpol-pairing")
    inline = err.split("inline comment(s)", 1)[1]
    assert "\nai/service.yaml:4\nAbout `Deployment/web/api` at `web/api.yaml` line 13, which " \
           "this change affects:\n\n**error** `netpol-pairing[dependency-missing]`: " \
           "web/api calls " in inline
    assert "Not shown inline" not in out


def test_an_ingress_whose_service_the_change_renames_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-eight: Service `web` renamed `web-svc`, the Ingress backend kept
    `web`: "no new errors", only a closed flow. Its backend names a Service the change
    removes: the controller answers 503 for that path; the comment sits at the rename."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    service = ("apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: shop\n"
               "spec:\n  selector: {{app: web}}\n  ports: [{{port: 80, targetPort: 8080}}]\n")
    ingress = ("apiVersion: networking.k8s.io/v1\nkind: Ingress\n"
               "metadata: {name: web, namespace: shop}\nspec:\n  rules:\n  - http:\n"
               "      paths:\n      - path: /\n        pathType: Prefix\n        backend:\n"
               "          service:\n            name: web\n            port: {number: 80}\n")
    web = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
           "spec:\n  selector: {matchLabels: {app: web}}\n  template:\n"
           "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
           "      - {name: web, image: 'web:1', ports: [{containerPort: 8080}]}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"service.yaml": service.format(name="web"), "ingress.yaml": ingress,
                        "web.yaml": web})
    head = repo.commit({"service.yaml": service.format(name="web-svc")})
    code, out, err = review_out(repo, base, head, "markdown", capsys, "--rule",
                                "netpol-pairing")
    assert code == 1 and ("Ingress shop/web: its backend names Service web, which this change "
                          "removes \\(Service web-svc selects the same pods\\)") in out
    inline = err.split("inline comment(s)", 1)[1]
    assert "\nservice.yaml:4\nAbout `Ingress/shop/web` at `ingress.yaml` line 12" in inline
    # a Gateway API route alike (new-user trial thirty-two: an overlay's namePrefix renamed
    # the Service, kustomize leaves an HTTPRoute's backendRefs as written): a gateway
    # answers 500
    route = ("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"
             "metadata: {name: web, namespace: shop}\nspec:\n  parentRefs: [{name: gw}]\n"
             "  rules:\n  - backendRefs:\n    - {name: web, port: 80}\n")
    base = repo.commit({"service.yaml": service.format(name="web"), "ingress.yaml": None,
                        "route.yaml": route})
    head = repo.commit({"service.yaml": service.format(name="web-svc")})
    code, out, err = review_out(repo, base, head, "markdown", capsys, "--rule",
                                "netpol-pairing")
    assert code == 1 and ("HTTPRoute shop/web: its backend names Service web, which this "
                          "change removes \\(Service web-svc selects the same pods\\): the "
                          "gateway cannot resolve it and answers 500") in out
    # the Service's file moved (`git mv`) and its entry left: that build fails, the cluster
    # keeps the Service, and the missing entry alone says it (new-user trial sixty-seven D5:
    # "which this change removes ... answers 503")
    base = repo.commit({"route.yaml": None, "ingress.yaml": ingress,
                        "service.yaml": service.format(name="web"),
                        "kustomization.yaml": "resources: [service.yaml, ingress.yaml, "
                                              "web.yaml]\n"})
    head = repo.commit({"service.yaml": None, "svc.yaml": service.format(name="web")})
    code, out, err = review_out(repo, base, head, "markdown", capsys)
    assert "which this change removes" not in out + err
    assert "'service.yaml' does not exist" in out


def test_a_route_a_prefix_leaves_behind_is_said_by_a_lint_and_once_by_a_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-eight: staging's overlay (`namePrefix: stg-`) renames Service
    `web` and leaves its HTTPRoute's `backendRefs` as written (kustomize renames an Ingress
    backend, not a route's): the gateway answers 500, and a lint said nothing. A lint says
    it; a review of the change adding the prefix says it once, as the head's finding, at
    the prefix."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    app = ("apiVersion: v1\nkind: Service\nmetadata: {name: web}\n"
           "spec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n---\n"
           "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"
           "metadata: {name: web}\nspec:\n  parentRefs: [{name: gw, namespace: gateway}]\n"
           "  rules:\n  - backendRefs:\n    - {name: web, port: 80}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"base/app.yaml": app,
                        "base/kustomization.yaml": "resources: [app.yaml]\n",
                        "staging/kustomization.yaml": "namespace: staging\nresources: [../base]\n"})
    head = repo.commit({"staging/kustomization.yaml": (
        "namespace: staging\nnamePrefix: stg-\nresources: [../base]\n")})
    (found,) = [f for f in lint_dir(repo.path, only=["netpol-pairing"]).findings]
    assert (found.file, found.line, found.kind, found.severity, found.message, found.fix) == (
        "base/app.yaml", 15, "backend-removed", "error",
        "HTTPRoute staging/stg-web: its backend names Service web, which its build renames "
        "stg-web (namePrefix stg-), and kustomize leaves the backend as written: the gateway "
        "cannot resolve it and answers 500 to the requests routed there "
        "(the Gateway API's rule; some implementations answer 503)",
        "Name Service stg-web in the backend (a patch of the overlay).")
    code, out, err = review_out(repo, base, head, "markdown", capsys, "--rule",
                                "netpol-pairing")
    assert code == 1 and out.count("its backend names Service web") == 1, out
    assert "which its build renames" in out
    inline = err.split("inline comment(s)", 1)[1]
    assert "\nstaging/kustomization.yaml:2\nAbout `HTTPRoute/staging/stg-web`" in inline


def test_a_route_whose_service_the_change_renames_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-nine: Service `preview-linkding` renamed `preview-linkding-http`,
    the route kept `preview-linkding`: the review said "which this change removes" (an error)
    and, at the same place, the head's guess "which namespace apps does not have (did you
    mean preview-linkding-http?)" (a warning). The change's finding tells that fact with its
    cause."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    service = ("apiVersion: v1\nkind: Service\nmetadata: {name: NAME, namespace: apps}\n"
               "spec:\n  selector: {app: linkding}\n  ports: [{port: 80}]\n")
    route = ("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"
             "metadata: {name: linkding, namespace: apps}\nspec:\n  parentRefs: [{name: gw}]\n"
             "  rules:\n  - backendRefs:\n    - {name: linkding, port: 80}\n")
    repo = GitRepo(tmp_path / "repo")
    route = route.replace("{name: linkding, port", "{name: preview-linkding, port")
    base = repo.commit({"service.yaml": service.replace("NAME", "preview-linkding"),
                        "route.yaml": route})
    head = repo.commit({"service.yaml": service.replace("NAME", "preview-linkding-http")})
    _, out, _ = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    assert [(f["file"], f["line"], f["severity"], f["message"].split(", which ")[1][:24])
            for f in json.loads(out)["findings"]] == [
        ("route.yaml", 8, "error", "this change removes (Ser")]


def test_policies_of_pods_a_refused_build_keeps_still_select_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-seven: a Flux Kustomization's path misspelt, and beside its
    error two "matches no pod" warnings on policies of the pods it applied. kustomize-
    controller refuses the build and prunes nothing: the cluster keeps those pods, and the
    policies select them still."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    ks = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
          "metadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 10m\n"
          "  path: {path}\n  prune: true\n"
          "  sourceRef: {{kind: GitRepository, name: flux-system}}\n")
    web = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
           "spec:\n  selector: {matchLabels: {app: web}}\n  template:\n"
           "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
           "      - {name: web, image: 'web:1', ports: [{containerPort: 8080}]}\n")
    policy = ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
              "metadata: {name: db, namespace: shop}\nspec:\n"
              "  podSelector: {matchLabels: {app: db}}\n  policyTypes: [Ingress]\n"
              "  ingress:\n  - from: [{podSelector: {matchLabels: {app: web}}}]\n"
              "    ports: [{port: 5432}]\n---\n"
              + web.replace("web", "db").replace("8080", "5432"))
    repo = GitRepo(tmp_path / "repo")
    sync = ("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n"
            "metadata: {name: flux-system, namespace: flux-system}\nspec:\n  interval: 1m\n"
            "  url: https://github.com/me/home\n  ref: {branch: main}\n---\n"
            + ks.format(name="flux-system", path="./clusters/home"))
    base = repo.commit({
        "clusters/home/flux-system/gotk-sync.yaml": sync,
        "clusters/home/web.yaml": ks.format(name="web", path="./apps/web"),
        "clusters/home/policies.yaml": ks.format(name="policies", path="./apps/policies"),
        "apps/web/kustomization.yaml": "resources: [web.yaml]\n", "apps/web/web.yaml": web,
        "apps/policies/kustomization.yaml": "resources: [web.yaml]\n",
        "apps/policies/web.yaml": policy})
    head = repo.commit({"clusters/home/web.yaml": ks.format(name="web", path="./apps/wbe")})
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "json"], capsys)
    assert code == 1, err
    assert [(f["rule"], f["file"], f["line"], f["severity"])
            for f in json.loads(out)["findings"] if f["new"]] == [
        # (apps/web is not "not applied by any cluster root": the cluster keeps it, and the
        # path's error says why its build is refused)
        ("kustomize-integrity", "clusters/home/web.yaml", 6, "error")]


def test_a_service_the_change_leaves_without_pods_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-nine: a canary's `track: stable` patched into the Service's
    selector, which no pod carries (the stable pods have no `track`): "no new findings",
    though the Service selected the web pods before. Its selector alike none of the
    namespace's pods is no lint finding (pods the repository does not show); the base shows
    it had pods."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    web = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: shop}}\n"
           "spec:\n  selector: {{matchLabels: {labels}}}\n  template:\n"
           "    metadata: {{labels: {labels}}}\n    spec:\n      containers:\n"
           "      - {{name: web, image: 'web:1', ports: [{{containerPort: 8080}}]}}\n")
    service = ("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n"
               "spec:\n  selector:\n    app: web\n%s  ports: [{port: 80, targetPort: 8080}]\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web.yaml": web.format(name="web", labels="{app: web}"),
                        "service.yaml": service % ""})
    head = repo.commit({
        "canary.yaml": web.format(name="web-canary", labels="{app: web, track: canary}"),
        "service.yaml": service % "    track: stable\n"})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    assert [(f["severity"], f["file"], f["line"], f["message"], f["fix"])
            for f in data["findings"] if f["new"]] == [(
                "error", "service.yaml", 7,
                "Service shop/web: selector app=web, track=stable matches no pod in shop "
                "(Deployment web has app=web), so the Service has no "
                "endpoints: no connection to it reaches a pod; before this change it selected "
                "Deployment web",
                "Select the pods it is for by labels they carry (Deployment web has app=web), "
                "or add the labels it asks for to their template.")]
    # a lint of the head says nothing: the selector is like none of the pods
    assert run_cli(["lint", str(repo.path), "--rule", "netpol-pairing"], capsys)[0] == 0


def test_the_fix_of_a_service_whose_pods_were_relabelled_names_their_labels_now(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial forty: the api's labels became `app.kubernetes.io/name: api`, the
    Service kept `app: api`: the fix said "(Deployment api has app=api)", the labels the
    pods carried before the change. It names the labels they carry now."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    api = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: api, namespace: shop}}\n"
           "spec:\n  selector: {{matchLabels: {labels}}}\n  template:\n"
           "    metadata: {{labels: {labels}}}\n    spec:\n      containers:\n"
           "      - {{name: api, image: 'api:1', ports: [{{containerPort: 8080}}]}}\n")
    service = ("apiVersion: v1\nkind: Service\nmetadata: {name: api, namespace: shop}\n"
               "spec:\n  selector: {app: api}\n  ports: [{port: 80, targetPort: 8080}]\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"api.yaml": api.format(labels="{app: api}"), "service.yaml": service})
    head = repo.commit({"api.yaml": api.format(labels="{app.kubernetes.io/name: api}")})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    assert [f["fix"] for f in data["findings"] if f["new"]] == [
        "Select the pods it is for by labels they carry (Deployment api has "
        "app.kubernetes.io/name=api), or add the labels it asks for to their template."]
    # new-user trial forty-seven: the message named another workload (Deployment orders),
    # the closest of the namespace's, not the pods the Service selected before
    orders = api.replace("name: api,", "name: orders,").replace("api:1", "orders:1")
    repo.commit({"orders.yaml": orders.format(labels="{app: orders}"),
                 "api.yaml": api.format(labels="{app: api}")})
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"api.yaml": api.format(labels="{app: api-server}")})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    assert [f["message"].split(", so ")[0] for f in data["findings"] if f["new"]] == [
        "Service shop/api: selector app=api matches no pod in shop (Deployment api has "
        "app=api-server)"]


def test_a_selector_typo_that_loses_the_service_s_pods_is_said_once_as_the_change_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`app: web` became `app: web-app`: the head's `no-endpoints` warning and the change's
    `endpoints-lost` error said one fact twice at one line (the error adds what the change
    did): the change's finding alone, the warning it tells with its cause dropped."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    service = ("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n"
               "spec:\n  selector:\n    app: %s\n  ports: [{port: 80, targetPort: 8080}]\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web.yaml": deployment("web", "shop", "{app: web}"),
                        "service.yaml": service % "web"})
    head = repo.commit({"service.yaml": service % "web-app"})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    assert [(f["severity"], f["file"], f["line"], f["message"].split("; ")[-1])
            for f in data["findings"]] == [
        ("error", "service.yaml", 6, "before this change it selected Deployment web")]
    # lint of the head still says the fact, as a warning
    _, out, _ = run_cli(["lint", str(repo.path), "--rule", "netpol-pairing", "--format",
                         "json"], capsys)
    assert [(f["severity"], f["line"]) for f in json.loads(out)["findings"]] == [
        ("warning", 6)]


def test_a_service_an_application_s_path_typo_leaves_in_the_cluster_is_not_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-four: an Argo CD Application's `path: redis` misspelt `rediss`.
    Argo CD fails to generate its manifests and prunes nothing (the diff said "the cluster
    keeps what it has"), yet the api's call to prod-redis was "no longer in this cluster:
    this change removes it". The change's checks of relations judge the head as the
    cluster keeps it, as the head's own do."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    app = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
           "metadata: {{name: {name}, namespace: argocd}}\nspec:\n  project: default\n"
           "  source: {{repoURL: 'https://git.example.com/x.git', targetRevision: main, "
           "path: {path}}}\n  destination: {{server: 'https://kubernetes.default.svc', "
           "namespace: {ns}}}\n  syncPolicy: {{automated: {{prune: true}}}}\n")
    redis = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: redis, namespace: data}\n"
             "spec:\n  serviceName: redis\n  selector: {matchLabels: {app: redis}}\n"
             "  template:\n    metadata: {labels: {app: redis}}\n    spec:\n      containers:\n"
             "      - {name: redis, image: 'redis:7', ports: [{containerPort: 6379}]}\n---\n"
             "apiVersion: v1\nkind: Service\nmetadata: {name: redis, namespace: data}\n"
             "spec:\n  selector: {app: redis}\n  ports: [{port: 6379}]\n")
    api = deployment("api", "web", "{app: api}").replace(
        "image: x", "image: x\n        env: [{name: REDIS_URL, value: "
        "'redis://prod-redis.data.svc.cluster.local:6379/0'}]")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "argocd/redis.yaml": app.format(name="redis", path="redis", ns="data"),
        "argocd/web.yaml": app.format(name="web", path="web", ns="web"),
        "redis/kustomization.yaml": "namePrefix: prod-\nresources: [all.yaml]\n",
        "redis/all.yaml": redis, "web/api.yaml": api})
    head = repo.commit({"argocd/redis.yaml": app.format(name="redis", path="rediss", ns="data")})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    assert [(f["file"], f["message"]) for f in data["findings"]] == []
    # nor is its folder "not applied by any cluster root": the cluster keeps it; the path's
    # error says why, once
    _, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                         "--platform", "none", "--format", "json"], capsys)
    assert [(f["rule"], f["file"]) for f in json.loads(out)["findings"] if f["new"]] == [
        ("kustomize-integrity", "argocd/redis.yaml")]


def test_an_app_of_apps_path_a_change_misspells_is_an_error_though_its_apps_look_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial sixty: the app of apps' `path: bootstrap/argocd` misspelt
    `bootstrap/argo-cd`. In the head its two Applications are applied by nothing, so they
    are taken as applied by hand, and the root's missing path was a warning, "whether anyone
    applies this Application ... as a leftover's would be": the base resolved that very
    path, so the change broke what applied them: an error. A lint of the head alone still
    cannot tell a leftover from a typo."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    app = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
           "metadata: {{name: {name}, namespace: argocd}}\nspec:\n  project: default\n"
           "  source: {{repoURL: 'https://git.example.org/r.git', targetRevision: main, "
           "path: {path}}}\n  destination: {{server: 'https://kubernetes.default.svc', "
           "namespace: {ns}}}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "bootstrap/root.yaml": app.format(name="root", path="bootstrap/argocd", ns="argocd"),
        "bootstrap/argocd/web.yaml": app.format(name="web", path="apps/web", ns="web"),
        "bootstrap/argocd/api.yaml": app.format(name="api", path="apps/api", ns="api"),
        "apps/web/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n",
        "apps/api/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api}\n"})
    head = repo.commit({"bootstrap/root.yaml": app.format(
        name="root", path="bootstrap/argo-cd", ns="argocd")})
    _, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                         "--platform", "none", "--format", "json"], capsys)
    assert [(f["rule"], f["file"], f["severity"]) for f in json.loads(out)["findings"]
            if f["new"]] == [("kustomize-integrity", "bootstrap/root.yaml", "error")]
    result = lint_dir(repo.path, only=["kustomize-integrity"])  # (the work tree: the head)
    assert [(f.file, f.severity) for f in result.findings] == [
        ("bootstrap/root.yaml", "warning")]


def test_a_release_whose_new_chart_source_is_missing_keeps_its_service_and_flows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial fifty-five: searxng's `chartRef` pointed at an OCIRepository nobody
    defines. helm-controller cannot fetch the chart and performs no Helm action: the release
    the cluster has (the base's) stays, its Service and flows with it. The error said so,
    yet open-webui's call was "no longer in this cluster: this change removes it" and four
    flows "gone with a removed workload"."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    oci = ("apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\n"
           "metadata: {name: app-template, namespace: ai}\nspec:\n  interval: 15m\n"
           "  ref: {tag: 4.1.2}\n  url: oci://ghcr.io/bjw-s-labs/helm/app-template\n")
    release = ("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n"
               "metadata: {{name: {name}, namespace: ai}}\nspec:\n  interval: 1h\n"
               "  chartRef: {{kind: OCIRepository, name: {chart}}}\n  values:\n"
               "    controllers:\n      {name}:\n        containers:\n          app:\n"
               "            image: {{repository: ghcr.io/x/{name}, tag: '1.0'}}\n{env}"
               "    service:\n      app:\n        ports:\n          http: {{port: 8080}}\n")
    env = ("            env:\n              SEARXNG_QUERY_URL: "
           "'http://searxng.ai.svc.cluster.local:8080/search'\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "ai.yaml": "---\n".join([
            oci, release.format(name="searxng", chart="app-template", env=""),
            release.format(name="open-webui", chart="app-template", env=env)])})
    head = repo.commit({
        "ai.yaml": "---\n".join([
            oci, release.format(name="searxng", chart="searxng", env=""),
            release.format(name="open-webui", chart="app-template", env=env)])})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    assert [(f["file"], f["message"]) for f in data["findings"]] == []
    _, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                         "--platform", "none", "--format", "json"], capsys)
    review = json.loads(out)
    assert [(f["rule"], f["line"]) for f in review["findings"] if f["new"]] == [
        ("kustomize-integrity", 14)]  # (the chartRef's: the one finding)
    assert review["connectivity_diff"] == []


def test_a_budget_a_relabel_leaves_names_the_pods_it_protected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial fifty-seven: frontend's labels moved from `app` to
    `app.kubernetes.io/name`, its PodDisruptionBudget left on `app: frontend`. The pods it
    no longer protects are frontend's, yet "a node drain may evict every pod of Deployment
    redis" (the closest by label key), and the fix matched redis's labels: a budget that
    would block every drain of redis's node."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    budget = ("apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
              "metadata: {name: frontend, namespace: web}\n"
              "spec:\n  minAvailable: 1\n  selector:\n    matchLabels:\n      app: frontend\n")
    redis = deployment("redis", "web", "{app: redis}")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"apps.yaml": deployment("frontend", "web", "{app: frontend}")
                        + redis + "---\n" + budget})
    head = repo.commit({"apps.yaml": deployment(
        "frontend", "web", "{app.kubernetes.io/name: frontend}") + redis + "---\n" + budget})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    assert [(f["message"], f["fix"]) for f in data["findings"]
            if f["rule"] == "netpol-pairing"] == [(
        "PodDisruptionBudget web/frontend: selector app=frontend matches no pod in web "
        "(Deployment frontend has app.kubernetes.io/name=frontend), so it protects no pod: a "
        "node drain may evict every pod of Deployment frontend at once; before this change "
        "it selected Deployment frontend",
        "Remove app from the selector, or add app: frontend to the pod labels of Deployment "
        "frontend.")]


def test_a_port_renamed_under_an_unchanged_ingress_is_said_at_the_rename_for_each_overlay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-nine: the base Service's port `http` renamed `web`, the base
    Ingress kept `port: {name: http}`: both overlays' Ingresses answer 503, yet the error
    named staging's alone, on the unchanged Ingress line (no inline comment)."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    service = ("apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n"
               "  selector: {app: web}\n  ports:\n  - name: %s\n    port: 80\n"
               "    targetPort: 8080\n")
    ingress = ("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\n"
               "spec:\n  rules:\n  - http:\n      paths:\n      - path: /\n"
               "        pathType: Prefix\n        backend:\n          service:\n"
               "            name: web\n            port: {name: http}\n")
    web = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
           "  selector: {matchLabels: {app: web}}\n  template:\n"
           "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
           "      - {name: web, image: 'web:1', ports: [{containerPort: 8080}]}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "base/kustomization.yaml": "resources: [web.yaml, service.yaml, ingress.yaml]\n",
        "base/web.yaml": web, "base/service.yaml": service % "http",
        "base/ingress.yaml": ingress,
        "staging/kustomization.yaml": "namespace: staging\nresources: [../base]\n",
        "prod/kustomization.yaml": "namespace: prod\nresources: [../base]\n"})
    head = repo.commit({"base/service.yaml": service % "web"})
    code, out, err = review_out(repo, base, head, "markdown", capsys, "--rule",
                                "netpol-pairing")
    assert code == 1
    inline = err.split("inline comment(s)", 1)[1]
    assert "\nbase/service.yaml:7\n**error** `netpol-pairing[backend-port]`: Service " in inline
    assert "`Ingress/" in inline and "Service/prod/web" in inline  # both overlays named
    lint = run_cli(["lint", str(repo.path), "--rule", "netpol-pairing", "--format", "json"],
                   capsys)[1]
    assert [f["message"].rpartition(" (so does ")[2] for f in json.loads(lint)["findings"]] == [
        "Ingress staging/web, built from the same lines)"]


def test_a_finding_off_the_diff_in_a_changed_document_sits_at_its_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial thirty-one: a policy's port changed (8000 -> 8080) at the end of its
    ingress rule; the findings it caused sat at the rule's `ingress:` and `from:`, more than
    three lines above, which the diff does not show: no inline comment at all. Anchored at
    the first change inside the node a finding is at (the rule); a change beside it is no
    cause of it."""
    web = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: x, ports: [{containerPort: 8000}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8000}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: client, namespace: shop}
spec:
  selector: {matchLabels: {app: client}}
  template:
    metadata: {labels: {app: client}}
    spec:
      containers:
      - name: client
        image: y
        env: [{name: API, value: "http://web.shop.svc.cluster.local:80"}]
"""
    policy = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web, namespace: shop}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress]
  ingress:
  - from:
    - podSelector:
        matchLabels:
          app: client
    ports:
    - protocol: TCP
      port: PORT
"""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web.yaml": web, "np.yaml": policy.replace("PORT", "8000")})
    head = repo.commit({"np.yaml": policy.replace("PORT", "8080")})
    _, out, err = review_out(repo, base, head, "markdown", capsys, "--rule", "netpol-pairing")
    inline = err.split("inline comment(s)", 1)[1]
    # (at the rule's `ports`, which the diff shows, two lines above the port it changed:
    # new-user trial thirty-eight)
    assert "\nnp.yaml:12\n" in inline
    assert "Not shown inline" not in out


def test_a_probe_s_port_a_rename_leaves_unnamed_sits_at_the_renamed_port(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial fifty-two: a container's port renamed http -> openai, its three probes
    still naming http: three errors twenty lines below the change, "not shown inline", the
    change's line carrying only an info. The port's name is the mistake's other half: the
    findings sit there, and the fix names the one port the container declares."""
    vllm = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: llm}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm:1
        ports:
        - name: PORT
          containerPort: 8000
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
        - {name: C, value: "3"}
        readinessProbe:
          httpGet: {path: /health, port: http}
        livenessProbe:
          httpGet: {path: /health, port: http}
"""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"vllm.yaml": vllm.replace("PORT", "http")})
    head = repo.commit({"vllm.yaml": vllm.replace("PORT", "openai")})
    code, out, err = review_out(repo, base, head, "markdown", capsys, "--rule",
                                "probe-headroom")
    assert code == 1
    inline = err.split("inline comment(s)", 1)[1]
    assert "\nvllm.yaml:13\n" in inline and "Not shown inline" not in out
    assert "**Fix:** Name openai in the probe" in inline
    assert "Same cause at `vllm.yaml:20`" in inline  # (the probe, named)


def test_a_kustomization_s_refusal_a_changed_base_causes_sits_at_that_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial thirty-two: a base renamed its Deployment worker -> order-worker, the
    prod overlay's patch still names worker: kustomize refuses the overlay's build, and the
    error, in the overlay's unchanged kustomization, had no inline comment. Anchored at the
    first change of a file its build reads."""
    deployment = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: NAME
spec:
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec:
      containers:
      - {name: worker, image: "busybox:1.36@sha256:%s"}
""" % ("b" * 64)
    patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: worker}\nspec: {replicas: 3}\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"base/kustomization.yaml": "resources: [deployment.yaml]\n",
                        "base/deployment.yaml": deployment.replace("NAME", "worker"),
                        "prod/kustomization.yaml": "resources: [../base]\n"
                                                   "patches: [{path: replicas.yaml}]\n",
                        "prod/replicas.yaml": patch})
    head = repo.commit({"base/deployment.yaml": deployment.replace("NAME", "order-worker")})
    _, out, err = review_out(repo, base, head, "markdown", capsys, "--rule",
                             "kustomize-integrity")
    inline = err.split("inline comment(s)", 1)[1]
    assert "\nbase/deployment.yaml:4\nAbout `prod/kustomization.yaml` line 2, which this " \
           "change affects:" in inline


def test_a_call_the_change_breaks_elsewhere_is_commented_where_the_change_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-four: the redis overlay's `namePrefix: prod-` dropped, and the
    api's URL to prod-redis broken: its error sat at the api's unchanged env, with no inline
    comment, and its fix named redis-headless, not redis (the Service of the same written
    name). Then the Service's port moved 6379 -> 6380: the call's error alike. Each is
    commented at the change: the renamed Service's build (the overlay's kustomization), the
    Service's port."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    app = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
           "metadata: {{name: {name}, namespace: argocd}}\nspec:\n  project: default\n"
           "  source: {{repoURL: 'https://git.example.com/x.git', targetRevision: main, "
           "path: {name}}}\n  destination: {{server: 'https://kubernetes.default.svc', "
           "namespace: {ns}}}\n  syncPolicy: {{automated: {{prune: true}}}}\n")
    redis = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: redis, namespace: data}\n"
             "spec:\n  serviceName: redis-headless\n  selector: {matchLabels: {app: redis}}\n"
             "  template:\n    metadata: {labels: {app: redis}}\n    spec:\n      containers:\n"
             "      - {name: redis, image: 'redis:7', ports: [{containerPort: 6379}]}\n---\n"
             "apiVersion: v1\nkind: Service\nmetadata: {name: redis-headless, namespace: data}\n"
             "spec:\n  clusterIP: None\n  selector: {app: redis}\n  ports: [{port: 6379}]\n---\n"
             "apiVersion: v1\nkind: Service\nmetadata: {name: redis, namespace: data}\n"
             "spec:\n  selector: {app: redis}\n  ports:\n  - port: 6379\n")
    api = deployment("api", "web", "{app: api}").replace(
        "image: x", "image: x\n        env: [{name: REDIS_URL, value: "
        "'redis://prod-redis.data.svc.cluster.local:6379/0'}]")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "argocd/redis.yaml": app.format(name="redis", ns="data"),
        "argocd/web.yaml": app.format(name="web", ns="web"),
        "redis/kustomization.yaml": "resources: [all.yaml]\nnamePrefix: prod-\n",
        "redis/all.yaml": redis, "web/api.yaml": api})
    head = repo.commit({"redis/kustomization.yaml": "resources: [all.yaml]\n"})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    (call,) = json.loads(out)["findings"]
    assert (call["file"], call["fix"]) == (
        "web/api.yaml", "Point the address at redis or keep the Service named prod-redis.")
    assert "(Service data/redis, data/redis-headless select the same pods)" in call["message"]
    assert "\nredis/kustomization.yaml:1\n" in err.split("inline comment(s)", 1)[1]
    back = repo.commit({"redis/kustomization.yaml": "resources: [all.yaml]\nnamePrefix: prod-\n"})
    moved = repo.commit({"redis/all.yaml": redis.replace("  - port: 6379\n", "  - port: 6380\n")})
    _, out, err = review_out(repo, back, moved, "json", capsys, "--rule", "netpol-pairing")
    moved_off, call = sorted(json.loads(out)["findings"], key=lambda f: f["severity"], reverse=True)
    # (and the Service's own port now sends where redis does not listen: trial forty-seven)
    assert (moved_off["severity"], moved_off["line"], moved_off["message"].split(";")[0]) == (
        "warning", 27, "Service data/prod-redis: port 6380 now sends to TCP 6380, which no "
        "container it selects declares (they declare 6379)")
    assert call["message"].endswith("has no port 6379 (it has 6380): a ClusterIP Service "
                                    "forwards only the ports it lists, so the connection is "
                                    "refused; this change took port 6379 away")
    assert "\nredis/all.yaml:27\n" in err.split("inline comment(s)", 1)[1]


def test_a_flow_a_moved_port_denies_is_commented_at_the_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-four: vLLM's container port moved 8000 -> 8080 (its Service
    targets it by name), the policies still admit 8000: the api's call is denied, and its
    error sat at the api's unchanged URL, with no inline comment. The port the destination
    listens on is the same cause's other place: commented there."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    api = deployment("api", "web", "{app: api}").replace(
        "image: x", "image: x\n        env: [{name: LLM_URL, value: "
        "'http://vllm.llm.svc.cluster.local:8000/v1'}]")
    vllm = deployment("vllm", "llm", "{app: vllm}", "ports: [{name: http, containerPort: 8000}]")
    service = ("---\napiVersion: v1\nkind: Service\nmetadata: {name: vllm, namespace: llm}\n"
               "spec:\n  selector: {app: vllm}\n  ports: [{port: 8000, targetPort: http}]\n")
    policies = """---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api, namespace: web}
spec:
  podSelector: {matchLabels: {app: api}}
  policyTypes: [Egress]
  egress:
  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: llm}}}]
    ports: [{port: 8000}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: vllm, namespace: llm}
spec:
  podSelector: {matchLabels: {app: vllm}}
  policyTypes: [Ingress]
  ingress:
  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: web}}}]
    ports: [{port: 8000}]
"""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web/api.yaml": api, "llm/vllm.yaml": vllm + service,
                        "policies.yaml": policies})
    head = repo.commit({"llm/vllm.yaml": (vllm + service).replace("containerPort: 8000",
                                                                  "containerPort: 8080")})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    assert [(f["file"], f["severity"], f["message"].split(" (")[0])
            for f in json.loads(out)["findings"] if f["new"]] == [
        ("llm/vllm.yaml", "error", "web/api calls vllm.llm.svc.cluster.local:8000")]
    assert "\nllm/vllm.yaml:12\n" in err.split("inline comment(s)", 1)[1]


def test_a_flow_a_policy_s_moved_port_denies_is_commented_at_that_rule_s_ports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-eight: a CiliumNetworkPolicy's `toPorts` moved 8000 -> 8080,
    the caller still calls 8000: the denied call was commented at the policy's `ingress:`,
    lines above the change. The rule that admits the caller on other ports is where the
    fix goes: its ports (a NetworkPolicy's `ports`, a Cilium policy's `toPorts`)."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    api = deployment("api", "web", "{app: api}").replace(
        "image: x", "image: x\n        env: [{name: LLM_URL, value: "
        "'http://vllm.llm.svc.cluster.local:8000/v1'}]")
    vllm = deployment("vllm", "llm", "{app: vllm}", "ports: [{containerPort: 8000}]") + (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: vllm, namespace: llm}\n"
        "spec:\n  selector: {app: vllm}\n  ports: [{port: 8000}]\n")
    policy = """apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: vllm, namespace: llm}
spec:
  endpointSelector: {matchLabels: {app: vllm}}
  ingress:
  - fromEndpoints:
    - matchLabels: {k8s:io.kubernetes.pod.namespace: web}
    toPorts:
    - ports:
      - {port: "PORT", protocol: TCP}
"""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web/api.yaml": api, "llm/vllm.yaml": vllm,
                        "llm/policy.yaml": policy.replace("PORT", "8000")})
    head = repo.commit({"llm/policy.yaml": policy.replace("PORT", "8080")})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    assert [(f["file"], f["line"], f["severity"], f["message"].split(" (")[0])
            for f in json.loads(out)["findings"] if f["new"]] == [
        ("llm/policy.yaml", 9, "error", "web/api calls vllm.llm.svc.cluster.local:8000")]


def test_an_unmatched_egress_a_moved_ingress_port_leaves_is_commented_at_that_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial sixty: postgres' ingress `toPorts` moved 5432 -> 5433 in the file
    that holds pg-backup's egress policy too; the error stood at pg-backup's unchanged
    egress rule, off the diff, so the review had no inline comment for it. The same finding
    has a place at the ports of the rule that admits the callers elsewhere."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    pods = (deployment("backup", "db", "{app: backup}") + "---\n"
            + deployment("postgres", "db", "{app: postgres}", "ports: [{containerPort: 5432}]"))
    policies = """apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: postgres, namespace: db}
spec:
  endpointSelector: {matchLabels: {app: postgres}}
  ingress:
  - fromEndpoints:
    - matchLabels: {app: backup}
    toPorts:
    - ports:
      - {port: "PORT", protocol: TCP}
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: backup, namespace: db}
spec:
  endpointSelector: {matchLabels: {app: backup}}
  egress:
  - toEndpoints:
    - matchLabels: {app: postgres}
    toPorts:
    - ports:
      - {port: "5432", protocol: TCP}
"""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"db/pods.yaml": pods,
                        "db/policies.yaml": policies.replace("PORT", "5432")})
    head = repo.commit({"db/policies.yaml": policies.replace("PORT", "5433")})
    _, out, _ = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    assert sorted((f["file"], f["line"], f["severity"], f["message"].split(" (")[0])
                  for f in json.loads(out)["findings"] if f["new"]) == [
        ("db/policies.yaml", 7, "warning", "CiliumNetworkPolicy db/postgres: ingress admits "
         "db/backup to db pods app=postgres on TCP 5433, but the egress policies of db allow "
         "none of these flows"),
        ("db/policies.yaml", 9, "error", "db/backup: egress to db/postgres")]


def test_a_container_port_renamed_under_a_service_s_target_port_loses_its_endpoints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-eight: the orders' container port renamed `http` -> `api`, its
    Service's `targetPort: http` kept (in two overlays): a warning, "no new errors", no
    inline comment, staging's Service unsaid. The change took the port's endpoints away:
    an error, naming each build's Service, commented at the container ports it changed."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    orders = deployment("orders", "", "{app: orders}", "ports: [{name: PORT, containerPort: 8080}]"
                        ).replace(", namespace: }", "}")
    service = ("apiVersion: v1\nkind: Service\nmetadata: {name: orders}\nspec:\n"
               "  selector: {app: orders}\n  ports: [{port: 8080, targetPort: http}]\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "base/orders.yaml": orders.replace("PORT", "http"), "base/service.yaml": service,
        "base/kustomization.yaml": "resources: [orders.yaml, service.yaml]\n",
        "prod/kustomization.yaml": "namespace: orders\nresources: [../base]\n",
        "staging/kustomization.yaml": (
            "namespace: staging\nnamePrefix: stg-\nresources: [../base]\n")})
    head = repo.commit({"base/orders.yaml": orders.replace("PORT", "api")})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    (found,) = json.loads(out)["findings"]
    assert (found["file"], found["severity"], found["message"]) == (
        "base/service.yaml", "error",
        "Service orders/orders: port 8080 targets the port named http, which no pod it selects "
        "declares (Deployment orders names api), so the Service has no endpoints on port 8080: "
        "no connection to it reaches a pod (so does Service staging/stg-orders, built from the "
        "same lines); before this change its pods declared port http")
    ports = orders.lstrip("\n").splitlines().index("        ports: [{name: PORT, containerPort: "
                                                   "8080}]") + 1
    assert f"\nbase/orders.yaml:{ports}\n" in err.split("inline comment(s)", 1)[1]


def test_a_service_s_target_port_renamed_to_a_name_no_pod_declares_loses_its_endpoints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial forty-two: the Service's `targetPort: http` renamed `web`, the pods
    still naming `http`: the same outage as a container port renamed, yet a warning and a
    green CI. The Service port had endpoints before and has none after: an error."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    web = deployment("web", "shop", "{app: web}", "ports: [{name: http, containerPort: 8080}]")
    service = ("---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n"
               "spec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: TARGET}]\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"app.yaml": web + service.replace("TARGET", "http")})
    head = repo.commit({"app.yaml": web + service.replace("TARGET", "web")})
    code, out, _ = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    assert [(f["severity"], f["message"].split("; ")[-1]) for f in json.loads(out)["findings"]
            ] == [("error", "before this change it targeted port http, which they declare")]
    assert code == 1


def test_a_finding_of_objects_the_change_renamed_stays_existing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-four: a `namePrefix: prod-` dropped renames a policy and its
    pods; their DNS warning, there before, was "new" (its cause names the pods, by their
    old names on the base). An object the pull request renamed keeps its findings."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    np = ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
          "metadata: {name: default-deny, namespace: data}\nspec:\n  podSelector: {}\n"
          "  policyTypes: [Ingress, Egress]\n---\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"redis/kustomization.yaml": "resources: [np.yaml]\nnamePrefix: prod-\n",
                        "redis/np.yaml": np + deployment("cache", "data", "{app: cache}")})
    head = repo.commit({"redis/kustomization.yaml": "resources: [np.yaml]\n"})
    _, out, _ = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing",
                           "--scope", "all")
    assert [(f["message"].split(":")[0], f["new"]) for f in json.loads(out)["findings"]] == [
        ("data/cache", False)]


def test_a_kustomization_s_new_finding_off_its_diff_sits_at_its_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-five: prod's `components:` entry removed, and its patch of the
    policy the component added now patches nothing: the idle-patch warning sat at the patch
    entry, far below the removed line, with no inline comment. A new finding of a changed
    kustomization's own is its change's: commented at the file's first change."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {A: b}\n"
    extra = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {A: b}\n"
    patch = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {A: c}\n"
    kustomization = ("resources: [cm.yaml]\ncomponents: [comp]\n" + "# a note\n" * 6
                     + "patches:\n- path: patch.yaml\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "app/kustomization.yaml": kustomization, "app/cm.yaml": cm, "app/patch.yaml": patch,
        "app/comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\n"
        "kind: Component\nresources: [extra.yaml]\n", "app/comp/extra.yaml": extra})
    head = repo.commit({"app/kustomization.yaml": kustomization.replace(
        "components: [comp]\n", "")})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "kustomize-integrity")
    assert ("app/kustomization.yaml", 9, "error") in [
        (f["file"], f["line"], f["severity"]) for f in json.loads(out)["findings"]]
    assert "\napp/kustomization.yaml:2\n" in err.split("inline comment(s)", 1)[1]


def test_a_budget_a_label_change_leaves_behind_is_commented_at_the_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-six: the api's pod label renamed `shop-api`, its
    PodDisruptionBudget kept `app: api`: the warning sat at the unchanged budget, with no
    inline comment. The label the selector misses is the same cause's other place."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    pdb = ("apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
           "metadata: {name: api, namespace: shop}\nspec:\n  maxUnavailable: 1\n"
           "  selector:\n    matchLabels: {app: api}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"api.yaml": deployment("api", "shop", "{app: api}"), "pdb.yaml": pdb})
    head = repo.commit({"api.yaml": deployment("api", "shop", "{app: shop-api}")})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    assert [(f["file"], f["line"], f["severity"]) for f in json.loads(out)["findings"]] == [
        ("api.yaml", 7, "warning")]  # (the label line, as the change made it)
    assert "\napi.yaml:7\n" in err.split("inline comment(s)", 1)[1]


def test_a_budget_a_label_change_leaves_without_a_near_miss_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-eight: the web's labels renamed `app.kubernetes.io/name:
    storefront`, its PodDisruptionBudget kept `app: web`: no label is near enough for a lint
    to guess the budget meant them, yet the change is what left it protecting nothing: the
    budget selected Deployment web before. Said at the label the change wrote."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    pdb = ("apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
           "metadata: {name: web, namespace: shop}\nspec:\n  maxUnavailable: 1\n"
           "  selector:\n    matchLabels: {app: web}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web.yaml": deployment("web", "shop", "{app: web}"), "pdb.yaml": pdb})
    head = repo.commit({"web.yaml": deployment(
        "web", "shop", "{app.kubernetes.io/name: storefront}")})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    (found,) = json.loads(out)["findings"]
    assert (found["file"], found["line"], found["severity"]) == ("pdb.yaml", 7, "warning")
    assert found["message"] == (
        "PodDisruptionBudget shop/web: selector app=web matches no pod in shop (Deployment web "
        "has app.kubernetes.io/name=storefront), so it protects no pod: a node drain may evict "
        "every pod of Deployment web at once; before this change it selected Deployment web")
    assert "\nweb.yaml:7\n" in err.split("inline comment(s)", 1)[1]


def test_a_service_moved_to_another_namespace_is_named_and_commented_at_the_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-six: the api moved from shop to backend (its kustomization's
    `namespace:`), the web UI kept calling api.shop: the call's error named no new place,
    and sat at the web's unchanged value, not inline. The Service of its name in the new
    namespace is named, and the review comments at the move."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    api = deployment("api", "shop", "{app: api}").replace("namespace: shop", "namespace: x") + (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec:\n"
        "  selector: {app: api}\n  ports: [{port: 8080}]\n")
    web = deployment("web", "web", "{app: web}").replace(
        "image: x", "image: x\n        env: [{name: API, value: 'http://api.shop.svc:8080'}]")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"kustomization.yaml": "resources: [api, web.yaml]\n",
                        "api/kustomization.yaml": "namespace: shop\nresources: [api.yaml]\n",
                        "api/api.yaml": api.replace("{name: api, namespace: x}", "{name: api}"),
                        "web.yaml": web})
    head = repo.commit({"api/kustomization.yaml": "namespace: backend\nresources: [api.yaml]\n"})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    (call,) = [f for f in json.loads(out)["findings"] if "no longer" in f["message"]]
    assert call["message"].endswith(
        "(Service backend/api selects the same pods, in namespace backend now)")
    assert call["fix"] == ("Point the address at api.backend (its namespace now), or keep "
                           "Service api in shop.")
    assert "\napi/kustomization.yaml:1\n" in err.split("inline comment(s)", 1)[1]


def test_a_finding_a_changed_substitution_source_causes_is_commented_at_the_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-six: STORAGE_CLASS changed in the cluster's settings, which the
    apps Kustomization's postBuild substitutes into a claim's storageClass: the immutable
    error sat at the unchanged `${STORAGE_CLASS}`, with no inline comment. Commented at the
    settings' change."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    sync = ("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n"
            "metadata: {name: flux-system, namespace: flux-system}\nspec:\n  interval: 1m\n"
            "  url: https://github.com/me/home\n  ref: {branch: main}\n---\n"
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: flux-system, namespace: flux-system}\nspec:\n  interval: 10m\n"
            "  path: ./clusters/prod\n  prune: true\n"
            "  sourceRef: {kind: GitRepository, name: flux-system}\n")
    apps = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: apps, namespace: flux-system}\nspec:\n  interval: 10m\n"
            "  path: ./app\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n"
            "  postBuild:\n    substituteFrom: [{kind: ConfigMap, name: cluster-settings}]\n")
    settings = ("apiVersion: v1\nkind: ConfigMap\n"
                "metadata: {name: cluster-settings, namespace: flux-system}\n"
                "data:\n  STORAGE_CLASS: %s\n")
    claim = ("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: web}"
             "\nspec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: ${STORAGE_CLASS}\n"
             "  resources: {requests: {storage: 5Gi}}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"clusters/prod/flux-system/gotk-sync.yaml": sync,
                        "clusters/prod/apps.yaml": apps,
                        "clusters/prod/settings.yaml": settings % "longhorn",
                        "app/kustomization.yaml": "resources: [claim.yaml]\n",
                        "app/claim.yaml": claim})
    head = repo.commit({"clusters/prod/settings.yaml": settings % "longhorn-ssd"})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "change-safety")
    assert [(f["file"], f["severity"]) for f in json.loads(out)["findings"]] == [
        ("app/claim.yaml", "error")]
    assert "\nclusters/prod/settings.yaml:5\n" in err.split("inline comment(s)", 1)[1]


def test_a_flow_a_removed_policy_closes_is_commented_at_the_removal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-six: the policy admitting the api into db removed (its entry
    unlisted); the api's address is a generator literal of the same kustomization, far
    below the entry. The egress finding (at the api's Cilium rule) was anchored at the
    literal's line, which the diff does not show: no inline comment. An other place off the
    diff is no anchor; the build's change is."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    sync = ("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n"
            "metadata: {name: flux-system, namespace: flux-system}\n"
            "spec: {interval: 1m, ref: {branch: main}, url: 'https://example.com/r.git'}\n---\n"
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: flux-system, namespace: flux-system}\n"
            "spec: {interval: 10m, path: ./clusters/prod, prune: true, "
            "sourceRef: {kind: GitRepository, name: flux-system}}\n")
    apps = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: apps, namespace: flux-system}\n"
            "spec: {interval: 10m, path: ./app, prune: true, "
            "sourceRef: {kind: GitRepository, name: flux-system}}\n")
    client = deployment("api", "shop", "{app: api}").replace(
        "image: x", "image: x\n        envFrom: [{configMapRef: {name: api-config}}]") + """---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: api, namespace: shop}
spec:
  endpointSelector: {matchLabels: {app: api}}
  egress:
    - toEndpoints:
        - matchLabels: {k8s:io.kubernetes.pod.namespace: db, app: postgres}
      toPorts:
        - ports: [{port: "5432", protocol: TCP}]
"""
    db = deployment("postgres", "db", "{app: postgres}", "ports: [{containerPort: 5432}]") + """---
apiVersion: v1
kind: Service
metadata: {name: postgres, namespace: db}
spec:
  selector: {app: postgres}
  ports: [{port: 5432}]
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: default-deny, namespace: db}
spec:
  endpointSelector: {}
  ingress:
    - {}
"""
    allow = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-api, namespace: db}
spec:
  podSelector: {matchLabels: {app: postgres}}
  policyTypes: [Ingress]
  ingress:
  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: shop}},
            podSelector: {matchLabels: {app: api}}}]
    ports: [{port: 5432}]
"""
    generator = ("configMapGenerator:\n  - name: api-config\n    namespace: shop\n    literals:\n"
                 "      - DATABASE_URL=postgres://api@postgres.db.svc.cluster.local:5432/api\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"clusters/prod/flux-system/gotk-sync.yaml": sync,
                        "clusters/prod/apps.yaml": apps,
                        "app/kustomization.yaml": "resources: [client.yaml, db.yaml, allow.yaml]\n"
                        + generator, "app/client.yaml": client, "app/db.yaml": db,
                        "app/allow.yaml": allow})
    head = repo.commit({"app/kustomization.yaml": "resources: [client.yaml, db.yaml]\n"
                        + generator, "app/allow.yaml": None})
    _, out, err = review_out(repo, base, head, "markdown", capsys, "--rule", "netpol-pairing")
    assert "Not shown inline" not in out + err
    assert "\napp/kustomization.yaml:1\n" in err.split("inline comment(s)", 1)[1]


def test_an_address_a_generator_literal_changes_is_judged_as_a_value_the_change_adds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-seven: a generator's literal changed to name `db.shop.svc`, a
    Service no side has (the build names it prod-db), and the review said nothing: the
    generated ConfigMap's new hash made it no object the change touched. Its other literals
    changed keep their addresses old, not added."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    api = deployment("api", "shop", "{app: api}").replace(
        "image: x", "image: x\n        envFrom: [{configMapRef: {name: api-config}}]")
    db = deployment("db", "shop", "{app: db}") + (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\nspec:\n"
        "  selector: {app: db}\n  ports: [{port: 5432}]\n")
    kustomization = ("namePrefix: prod-\nresources: [api.yaml, db.yaml]\nconfigMapGenerator:\n"
                     "- name: api-config\n  namespace: shop\n  literals:\n"
                     "  - DATABASE_URL=postgres://%s.shop.svc:5432/app\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"kustomization.yaml": kustomization % "prod-db", "api.yaml": api,
                        "db.yaml": db})
    head = repo.commit({"kustomization.yaml": kustomization % "db"})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    # (the build names it prod-db: said as the head's own finding, with its cause)
    assert [(f["severity"], f["message"].split(". Not certain")[0]) for f in data["findings"]] == [
        ("error", "shop/prod-api calls db.shop.svc:5432, but its build renames Service shop/db "
         "to prod-db (namePrefix prod-), and kustomize renames no address written in a value: "
         "no Service shop/db answers")]
    other = repo.commit({"kustomization.yaml": kustomization % "prod-db" + "  - LOG=info\n"})
    assert review_json(repo, base, other, "netpol-pairing", capsys)["findings"] == []


FLOATING_WEB = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: "%s"}
"""


def test_a_finding_whose_place_the_head_leaves_unjudged_is_not_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`nginx:latest` made `${IMAGE}`: the head does not judge the image (a variable whose
    value the repository does not show, said under skipped), so the floating image is not
    "fixed"; pinned, it is."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web.yaml": FLOATING_WEB % "nginx:latest"})
    head = repo.commit({"web.yaml": FLOATING_WEB % "${IMAGE}"})
    data = review_json(repo, base, head, "image-digest", capsys)
    assert data["fixed"] == []
    assert [s["reason"].partition(":")[0] for s in data["skipped"]] == [
        "image-digest (line 10)"]
    pinned = repo.commit({"web.yaml": FLOATING_WEB % ("nginx:1.27.0@sha256:" + "a" * 64)})
    assert [f["line"] for f in review_json(repo, base, pinned, "image-digest",
                                           capsys)["fixed"]] == [10]


def test_a_call_whose_port_stopped_being_a_number_is_not_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial thirty-nine: an overlay's JSON6902 patch by index, shifted by an env
    item the pull request inserted above, now writes `linkding_preview` into LD_DB_PORT:
    the host/port pair no longer reads as a call, and the review said "1 fixed" of the call
    to `postgres` its build still renames. Not judged, said so, not fixed; an item inserted
    above a call keeps the call's finding (not new, not fixed)."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    deploy = """
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: linkding, namespace: apps}
    spec:
      selector: {matchLabels: {app: linkding}}
      template:
        metadata: {labels: {app: linkding}}
        spec:
          containers:
            - name: linkding
              image: linkding:1.39.1@sha256:DIGEST
              env:ENV
                - {name: LD_DB_HOST, value: postgres}
                - {name: LD_DB_PORT, value: "5432"}
                - {name: LD_DB_DATABASE, value: linkding}
    """.replace("DIGEST", "e" * 64)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "base/kustomization.yaml": "resources: [deployment.yaml, service.yaml]\n",
        "base/service.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: postgres, "
                             "namespace: apps}\nspec:\n  selector: {app: postgres}\n"
                             "  ports: [{port: 5432}]\n",
        "base/deployment.yaml": deploy.replace("ENV", ""),
        "preview/kustomization.yaml": """
            namePrefix: preview-
            resources: [../base]
            patches:
              - target: {kind: Deployment, name: linkding}
                patch: |-
                  - op: replace
                    path: /spec/template/spec/containers/0/env/2/value
                    value: linkding_preview
            """})
    inserted = deploy.replace("ENV", "\n                - {name: TZ, value: UTC}")
    head = repo.commit({"base/deployment.yaml": inserted})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    assert data["fixed"] == []
    assert [s["reason"] for s in data["skipped"]] == [
        "netpol-pairing (line 14): apps/preview-linkding: LD_DB_HOST names host postgres, but "
        "LD_DB_PORT (linkding_preview) is no port number: the call is not judged"]
    # the same item inserted with the patch moved along: the call's finding, the same
    # problem, is neither new nor fixed
    repo.git("checkout", "-q", base)
    moved = repo.commit({"base/deployment.yaml": inserted, "preview/kustomization.yaml": (
        repo.path / "preview/kustomization.yaml").read_text().replace("env/2", "env/3")})
    data = review_json(repo, base, moved, "netpol-pairing", capsys)
    assert data["fixed"] == []
    assert [f["message"] for f in data["findings"] if f["new"]] == []


def test_a_call_whose_service_the_change_removes_from_one_cluster_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial forty-five: staging's overlay dropped `../../base/db`; the web's call to
    postgres was an error "this change removes it" and, at the same line, a warning "its
    cluster has no Service db/postgres (only cluster prod has it). Not certain: ...", one
    call told twice in words that contradict each other. The change's finding tells it."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    db = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: postgres, namespace: db}\n"
          "spec:\n  serviceName: postgres\n  selector: {matchLabels: {app: postgres}}\n"
          "  template:\n    metadata: {labels: {app: postgres}}\n    spec:\n      containers:\n"
          "      - {name: pg, image: 'postgres:16', ports: [{containerPort: 5432}]}\n---\n"
          "apiVersion: v1\nkind: Service\nmetadata: {name: postgres, namespace: db}\n"
          "spec:\n  selector: {app: postgres}\n  ports: [{port: 5432}]\n")
    web = deployment("web", "web", "{app: web}").replace(
        "image: x", "image: x\n        env: [{name: DATABASE_HOST, value: "
        "'postgres.db.svc.cluster.local:5432'}]")
    files = {
        ".reviewbot.yaml": "clusters:\n  - {name: staging, paths: [overlays/staging]}\n"
                           "  - {name: prod, paths: [overlays/prod]}\n",
        "base/db/kustomization.yaml": "resources: [db.yaml]\n", "base/db/db.yaml": db,
        "base/web/kustomization.yaml": "resources: [web.yaml]\n", "base/web/web.yaml": web}
    for env in ("staging", "prod"):
        files[f"overlays/{env}/kustomization.yaml"] = (
            "resources:\n  - ../../base/db\n  - ../../base/web\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(files)
    head = repo.commit({"overlays/staging/kustomization.yaml": "resources:\n  - ../../base/web\n"})
    data = review_json(repo, base, head, "netpol-pairing", capsys)
    said = [(f["severity"], f["file"], f["message"]) for f in data["findings"]
            if "postgres.db" in f["message"]]
    assert said == [("error", "base/web/web.yaml", "web/web calls "
                     "postgres.db.svc.cluster.local:5432, but Service db/postgres is no longer "
                     "in cluster staging: this change removes it")]


def test_policies_whose_selector_a_relabel_leaves_without_pods_are_one_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial forty-seven: one relabel of the api, seven policies selecting its old
    label, seven warnings in the review. One label set no pod of the namespace carries is
    one cause: one entry, its other places named."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    policy = ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
              "metadata: {{name: {name}, namespace: shop}}\nspec:\n"
              "  podSelector: {{matchLabels: {{app: api}}}}\n  policyTypes: [Ingress]\n"
              "  ingress: [{{from: [{{podSelector: {{}}}}]}}]\n")
    files = {f"p{i}.yaml": policy.format(name=f"p{i}") for i in range(3)}
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({**files, "api.yaml": deployment("api", "shop", "{app: api}"),
                        "web.yaml": deployment("web", "shop", "{app: web}")})
    head = repo.commit({"api.yaml": deployment("api", "shop", "{app: api-server}")})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    assert [f["file"] for f in json.loads(out)["findings"]
            if "matches no pod" in f["message"]] == ["p0.yaml"]  # (the problem's first place)
    summary = err.split("the review that would be posted", 1)[1]
    assert "### Warnings (1)" in summary and "Same cause at `p1.yaml:5`" in summary


def test_a_finding_beside_a_removal_git_aligns_elsewhere_still_gets_its_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial fifty: allow-dns removed from the middle of a file of policies; the
    default-deny above it, now isolating api from DNS, has its error at line 8, three lines
    from the removal as reviewbot aligns the files, but git's diff aligns the removal lower
    (its hunk shows from line 9): the error had no inline comment, the removal's info had.
    Off git's hunk, its comment goes to the change beside it, saying what it is about."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    deny = ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
            "metadata: {name: default-deny, namespace: web}\nspec:\n  podSelector: {}\n"
            "  policyTypes: [Ingress, Egress]\n")
    dns = ("---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n"
           "  name: allow-dns\n  namespace: web\nspec:\n  podSelector: {}\n"
           "  policyTypes: [Egress]\n  egress:\n  - to:\n    - namespaceSelector: {}\n"
           "      podSelector: {matchLabels: {k8s-app: kube-dns}}\n"
           "    ports: [{protocol: UDP, port: 53}, {protocol: TCP, port: 53}]\n")
    api = ("---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n"
           "  name: api\n  namespace: web\nspec:\n  podSelector: {matchLabels: {app: api}}\n"
           "  policyTypes: [Egress]\n  egress:\n  - to: [{podSelector: {matchLabels: "
           "{app: redis}}}]\n")
    client = deployment("api", "web", "{app: api}").replace(
        "image: x", "image: x\n        env: [{name: REDIS, value: 'redis.web:6379'}]")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"policies.yaml": deny + dns + api, "api.yaml": client,
                        "redis.yaml": deployment("redis", "web", "{app: redis}") + (
                            "---\napiVersion: v1\nkind: Service\nmetadata: {name: redis, "
                            "namespace: web}\nspec: {selector: {app: redis}, ports: "
                            "[{port: 6379}]}\n")})
    head = repo.commit({"policies.yaml": deny + api})
    assert "@@ -7,20 +7,6 @@" in repo.git("diff", base, head)  # (its hunk: from line 7)
    _, out, err = review_out(repo, base, head, "markdown", capsys, "--rule", "netpol-pairing")
    inline = err.split("inline comment(s)", 1)[1]
    assert "Not shown inline" not in out
    assert "About `NetworkPolicy/web/default-deny` at `policies.yaml` line 6" in inline


def test_the_most_severe_finding_at_one_place_comes_first(tmp_path: Path) -> None:
    """New-user trial fifty: change-safety's info ("the new pod never gets ready ... as
    probe-headroom's finding at it says") was printed and commented before that error, at
    the same line and column."""
    from reviewbot.engine.findings import sort_key

    from .helpers import lint_text

    [f] = lint_text(tmp_path, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                    "  containers: [{name: c, image: 'nginx:latest'}]\n",
                    only=["image-digest"]).findings
    info = replace(f, rule="change-safety", severity="info")
    error = replace(f, rule="probe-headroom", severity="error")
    assert sorted([info, error], key=sort_key) == [error, info]


def test_a_measured_entry_a_rename_leaves_behind_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial fifty: vllm renamed qwen-32b; the base's `.reviewbot.yaml` measured
    its boot, which now reaches nothing: probe-headroom went quiet, and nothing said so."""
    config = "measured:\n  Deployment/ai/vllm: {measured-boot-seconds: 600}\n"
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({".reviewbot.yaml": config,
                        "vllm.yaml": deployment("vllm", "ai", "{app: vllm}").lstrip("-\n")})
    head = repo.commit({"vllm.yaml": deployment("qwen-32b", "ai", "{app: vllm}").lstrip("-\n")})
    _, out, _ = review_out(repo, base, head, "json", capsys)
    assert [s["reason"] for s in json.loads(out)["skipped"] if s["file"] == ".reviewbot.yaml"] == [
        "measured entry Deployment/ai/vllm names no workload of the head (this change renames "
        "or removes it; did you mean Deployment/ai/qwen-32b?): its facts reach nothing"]
    # a workload whose head build fails is the one the cluster keeps: its entry still names
    # what runs (new-user trial sixty-nine D5: a path typo, "did you mean" another)
    flux = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: ai, namespace: flux-system}\nspec: {interval: 10m, "
            "path: ./PATH, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n")
    other = GitRepo(tmp_path / "other")
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: flux-system, namespace: flux-system}\nspec: {interval: 10m, "
            "path: ./clusters/prod, prune: true, sourceRef: {kind: GitRepository, "
            "name: flux-system}}\n")
    base = other.commit({".reviewbot.yaml": config,
                         "clusters/prod/flux-system/gotk-sync.yaml": sync,
                         "clusters/prod/ai.yaml": flux.replace("PATH", "apps"),
                         "apps/vllm.yaml": deployment("vllm", "ai", "{app: vllm}").lstrip("-\n")})
    head = other.commit({"clusters/prod/ai.yaml": flux.replace("PATH", "aps")})
    _, out, _ = review_out(other, base, head, "json", capsys)
    assert [s["reason"] for s in json.loads(out)["skipped"]
            if s["file"] == ".reviewbot.yaml"] == []


def test_a_call_in_the_values_of_a_chart_of_the_tree_to_a_port_gone_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial fifty-one: vllm's Service port 8000 removed; open-webui's call was said,
    chat-api's (`llm.url` in the values of a chart of the tree, which reviewbot does not
    render) was not. It is a warning in a lint, which the templates' passing on of the value
    leaves not certain, and a place of the review's finding of the same cause."""
    sync = ("apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n"
            "metadata: {name: flux-system, namespace: flux-system}\n"
            "spec: {url: https://github.com/acme/fleet, ref: {branch: main}}\n---\n"
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: flux-system, namespace: flux-system}\n"
            "spec: {path: ./clusters/prod, prune: true, sourceRef: {kind: GitRepository, "
            "name: flux-system}}\n")
    release = ("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n"
               "metadata: {name: chat-api, namespace: chat}\nspec:\n  chart:\n    spec:\n"
               "      chart: ./charts/chat-api\n      sourceRef: {kind: GitRepository, "
               "name: flux-system, namespace: flux-system}\n")
    service = ("apiVersion: v1\nkind: Service\nmetadata: {name: vllm, namespace: ai}\n"
               "spec: {selector: {app: vllm}, ports: [{port: PORT, targetPort: 8000}]}\n")
    webui = deployment("webui", "ai", "{app: webui}").lstrip("-\n").replace(
        "image: x", "image: x\n        env: [{name: URL, value: "
        "'http://vllm.ai.svc.cluster.local:8000/v1'}]")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "clusters/prod/flux-system/gotk-sync.yaml": sync,
        "clusters/prod/kustomization.yaml": "resources: [chat-api.yaml, ai.yaml]\n",
        "clusters/prod/chat-api.yaml": release,
        "clusters/prod/ai.yaml": service.replace("PORT", "8000") + "---\n" + webui,
        "charts/chat-api/Chart.yaml": "apiVersion: v2\nname: chat-api\nversion: 1.0.0\n",
        "charts/chat-api/values.yaml": ("image: {repository: chat-api, tag: '1'}\n"
                                        "llm: {url: 'http://vllm.ai.svc.cluster.local:8000/v1'}\n"),
        "charts/chat-api/templates/deploy.yaml": "kind: Deployment\nmetadata: "
                                                 "{name: '{{ .Release.Name }}'}\nspec: "
                                                 "{url: '{{ .Values.llm.url }}'}\n"})
    head = repo.commit({"clusters/prod/ai.yaml": service.replace("PORT", "80") + "---\n" + webui})
    repo.git("checkout", "-q", head)
    found = [f for f in lint_dir(repo.path, only=["netpol-pairing"]).findings
             if "no port 8000" in f.message]
    assert [(f.severity, f.file, f.line, f.message.split(" call")[0]) for f in found] == [
        ("warning", "charts/chat-api/values.yaml", 2, "chat/chat-api"),  # (its release's)
        ("error", "clusters/prod/ai.yaml", 16, "ai/webui")]
    # a review: one cause, the chart's place the other of what the change did to the call
    repo.git("checkout", "-q", "-")
    _, out, _ = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    told = [f for f in json.loads(out)["findings"] if "no port 8000" in f["message"]]
    assert ("charts/chat-api/values.yaml", 2) in [
        (p["file"], p["line"]) for f in told for p in (f, *f["also"])]


def test_a_port_renamed_under_its_policy_is_commented_at_the_rename(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial sixty-three: postgres' container port renamed `postgres` ->
    `tcp-postgresql` (its Service's targetPort with it), the NetworkPolicy still admitting
    `port: postgres`. The caller's error sat at its unchanged URL, the policy's warning at
    its unchanged port: no inline comment at all. Both are commented at the rename."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    digest = "@sha256:" + "0" * 63 + "1"
    db = f"""apiVersion: v1
kind: Service
metadata: {{name: postgres, namespace: data}}
spec:
  selector: {{app: postgres}}
  ports: [{{name: postgres, port: 5432, targetPort: postgres}}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: postgres, namespace: data}}
spec:
  serviceName: postgres
  selector: {{matchLabels: {{app: postgres}}}}
  template:
    metadata: {{labels: {{app: postgres}}}}
    spec:
      containers:
        - name: pg
          image: "postgres:16.4{digest}"
          ports:
            - {{name: postgres, containerPort: 5432}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: pg-ingress, namespace: data}}
spec:
  podSelector: {{matchLabels: {{app: postgres}}}}
  policyTypes: [Ingress]
  ingress:
    - from: [{{namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: web}}}}}}]
      ports: [{{port: postgres}}]
"""
    web = deployment("web", "web", "{app: web}").replace(
        "image: x", 'image: x\n        env: [{name: DATABASE_URL, value: '
        '"postgres://u@postgres.data.svc.cluster.local:5432/web"}]')
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"db.yaml": db, "web.yaml": web})
    head = repo.commit({"db.yaml": db.replace("name: postgres, port: 5432, targetPort: postgres",
                                              "name: tcp-postgresql, port: 5432, "
                                              "targetPort: tcp-postgresql").replace(
        "- {name: postgres, containerPort: 5432}",
        "- {name: tcp-postgresql, containerPort: 5432}")})
    _, out, err = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    assert sorted((f["file"], f["line"], f["severity"]) for f in json.loads(out)["findings"]) == [
        ("db.yaml", 21, "error"), ("db.yaml", 21, "warning")]
    assert "\ndb.yaml:21\n" in err.split("inline comment(s)", 1)[1]


# a web Deployment of namespace NS calling api there, and the policy isolating its egress
WEB_CALLING_API = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: NS}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: web:1
        env: [{name: API, value: "http://api.NS.svc.cluster.local:8080"}]
"""
WEB_TO_API = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web, namespace: NS}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Egress]
  egress:
  - to: [{podSelector: {matchLabels: {app: api}}}]
    ports: [{protocol: TCP, port: 8080}]
"""


def test_denials_a_removed_policy_causes_sit_where_it_was(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial sixty-nine D2: allow-dns removed from a file of policies; the DNS
    denials sat at the other policies' `egress:`, far from the removal ("Not shown
    inline"), and the one inline comment was an info that the policy is deleted. They sit
    where the removed policy was."""
    deny = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web, namespace: shop}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Egress]
  egress:
  - to:
    - podSelector:
        matchLabels:
          app: api
    ports:
    - protocol: TCP
      port: 8080
"""
    dns = """---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-dns, namespace: shop}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
  - to: [{namespaceSelector: {}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]
    ports: [{protocol: UDP, port: 53}, {protocol: TCP, port: 53}]
"""
    web = WEB_CALLING_API.replace("NS", "shop")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web.yaml": web, "np.yaml": dns.removeprefix("---\n") + "---\n" + deny})
    head = repo.commit({"np.yaml": deny})
    code, out, err = review_out(repo, base, head, "markdown", capsys, "--rule", "netpol-pairing")
    assert code == 1
    inline = err.split("inline comment(s)", 1)[1]
    # (beside the removal's hunk as git cuts it, what the forge shows)
    hunk = repo.git("diff", "-U0", base, head, "--", "np.yaml").split("\n@@ ", 1)[1]
    after = int(hunk.split("+", 1)[1].split(",", 1)[0])
    assert f"\nnp.yaml:{after + 1}\n" in inline and "Not shown inline" not in out
    assert "no egress rule allows DNS" in inline
    # its fix restores what the change removed first (new-user trial seventy-one W2: "Add
    # an egress rule to kube-dns", beside the deletion's "nothing to do if intended")
    fix = inline.split("**Fix:** ", 1)[1].split("\n", 1)[0].replace("\\", "")
    assert fix.startswith("Restore NetworkPolicy shop/allow-dns, which this change removes (it "
                          "let these pods reach DNS), or add an egress rule to kube-dns"), fix


def test_a_removal_among_alike_documents_is_placed_where_git_s_hunk_shows_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial seventy-six D7: one of three alike allow-dns policies removed; difflib
    cut the removal apart from git's hunk (the staging policy's `spec:`, line 6), so the
    denials and the deletion had no inline comment. Placed by git's own diff, what the
    forge shows: at the line beside its hunk."""
    policy = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: allow-dns
  namespace: NS
spec:
  podSelector: {}
  policyTypes:
    - Egress
  egress:
    - to:
        - namespaceSelector:
            matchLabels:
              kubernetes.io/metadata.name: kube-system
          podSelector:
            matchLabels:
              k8s-app: kube-dns
      ports:
        - protocol: UDP
          port: 53
"""
    deny, web = WEB_TO_API.replace("NS", "prod"), WEB_CALLING_API.replace("NS", "prod")
    three = [policy.replace("NS", ns) for ns in ("staging", "prod", "dev")]
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web.yaml": web, "deny.yaml": deny, "dns.yaml": "---\n".join(three)})
    head = repo.commit({"dns.yaml": "---\n".join([three[0], three[2]])})
    hunk = repo.git("diff", "-U0", base, head, "--", "dns.yaml").split("\n@@ ", 1)[1]
    after = int(hunk.split("+", 1)[1].split(",", 1)[0])  # (the head's line before it)
    code, out, err = review_out(repo, base, head, "markdown", capsys)
    inline = err.split("inline comment(s)", 1)[1]
    assert f"\ndns.yaml:{after + 1}\n" in inline and "no egress rule allows DNS" in inline
    assert "Not shown inline" not in out


def test_denials_a_clusterwide_dns_policy_s_narrowing_causes_sit_at_the_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial seventy-five D3: a CiliumClusterwideNetworkPolicy letting DNS out for
    the namespaces it names stopped naming `web`; web's denial sat at web's untouched
    policy, with no inline comment and a fix that never named the change."""
    ccnp = """apiVersion: cilium.io/v2
kind: CiliumClusterwideNetworkPolicy
metadata: {name: allow-kube-dns}
spec:
  endpointSelector:
    matchExpressions:
    - key: k8s:io.kubernetes.pod.namespace
      operator: In
      values:
      - llm
      - web
  egress:
  - toEndpoints:
    - matchLabels: {k8s:io.kubernetes.pod.namespace: kube-system, k8s-app: kube-dns}
    toPorts:
    - ports: [{port: "53", protocol: ANY}]
"""
    web = """apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: web, namespace: web}
spec:
  endpointSelector: {matchLabels: {app: web}}
  egress:
  - toEndpoints:
    - matchLabels: {k8s:io.kubernetes.pod.namespace: llm, app: vllm}
    toPorts:
    - ports: [{port: "8000", protocol: TCP}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: web:1
        env: [{name: LLM, value: "http://vllm.llm.svc.cluster.local:8000"}]
"""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"web.yaml": web, "dns.yaml": ccnp})
    head = repo.commit({"dns.yaml": ccnp.replace("      - web\n", "")})
    code, out, err = review_out(repo, base, head, "markdown", capsys, "--rule", "netpol-pairing")
    assert code == 1 and "Not shown inline" not in out
    # a clusterwide policy is named without a namespace (trial seventy-five D2: "default")
    assert "<code>CiliumClusterwideNetworkPolicy/allow-kube-dns</code> <b>modified</b>" in out
    inline = err.split("inline comment(s)", 1)[1]
    assert "\ndns.yaml:9\n" in inline and "no egress rule allows DNS" in inline
    fix = inline.split("**Fix:** ", 1)[1].split("\n", 1)[0].replace("\\", "")
    assert fix.startswith("Undo this change to CiliumClusterwideNetworkPolicy allow-kube-dns, "
                          "which let these pods reach DNS before it, or add an egress rule"), fix


def test_a_finding_of_one_cluster_takes_the_other_places_of_its_own_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial seventy-four (D5): the base Service's selector misspelt, built into dev
    and into staging (`namePrefix: stg-`), each a cluster of the configuration: staging's
    finding was "also at" the base Deployment's line as dev's copy, Deployment/shop-dev/api."""
    service = ("apiVersion: v1\nkind: Service\nmetadata: {name: api}\n"
               "spec: {selector: {app: SELECT}, ports: [{port: 80}]}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        ".reviewbot.yaml": "clusters:\n  - {name: dev, paths: [overlays/dev]}\n"
                           "  - {name: staging, paths: [overlays/staging]}\n",
        "base/kustomization.yaml": "resources: [api.yaml, service.yaml]\n",
        "base/api.yaml": deployment("api", "shop", "{app: api}").lstrip("-\n"),
        "base/service.yaml": service.replace("SELECT", "api"),
        "overlays/dev/kustomization.yaml": "namespace: shop-dev\nresources: [../../base]\n",
        "overlays/staging/kustomization.yaml": "namespace: shop-staging\nnamePrefix: stg-\n"
                                               "resources: [../../base]\n"})
    head = repo.commit({"base/service.yaml": service.replace("SELECT", "apii")})
    _, out, _ = review_out(repo, base, head, "json", capsys, "--rule", "netpol-pairing")
    lost = [f for f in json.loads(out)["findings"] if f["file"] == "base/service.yaml"]
    assert sorted((f["object"], [a["object"] for a in f["also"]]) for f in lost) == [
        ("Service/shop-dev/api", ["Deployment/shop-dev/api"]),
        ("Service/shop-staging/stg-api", ["Deployment/shop-staging/stg-api"])]


def test_a_file_moved_unchanged_is_commented_at_the_entry_that_now_lists_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial eighty-nine D6: the ClusterIssuers moved (`git mv`) beside the
    cert-manager release, into its Flux Kustomization: crd-order's warning sat on the moved
    file, whose lines git shows as a rename without a line, and had no inline comment. A
    file moved unchanged has no changed line; the finding's other place, the entry that now
    lists it, takes the comment."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    ks = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
          "metadata: {name: NAME, namespace: flux-system}\n"
          "spec: {interval: 10m, path: ./NAME, prune: true, "
          "sourceRef: {kind: GitRepository, name: flux-system}}\n")
    release = (
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\n"
        "metadata: {name: jetstack, namespace: flux-system}\n"
        "spec: {interval: 1h, url: https://charts.jetstack.io}\n---\n"
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n"
        "metadata: {name: cert-manager, namespace: cert-manager}\n"
        "spec:\n  interval: 30m\n  chart:\n    spec: {chart: cert-manager, version: v1.19.3, "
        "sourceRef: {kind: HelmRepository, name: jetstack, namespace: flux-system}}\n")
    issuer = ("apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\n"
              "metadata: {name: letsencrypt}\nspec: {selfSigned: {}}\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "clusters/home/flux-system/gotk-sync.yaml": ks.replace("NAME", "flux-system").replace(
            "./flux-system", "./clusters/home"),
        "clusters/home/infra.yaml": ks.replace("NAME", "infra"),
        "clusters/home/configs.yaml": ks.replace("NAME", "configs").replace(
            "spec: {", "spec: {dependsOn: [{name: infra}], wait: true, "),
        "infra/kustomization.yaml": "resources:\n  - release.yaml\n",
        "infra/release.yaml": release,
        "configs/kustomization.yaml": "resources:\n  - issuer.yaml\n",
        "configs/issuer.yaml": issuer})
    repo.git("mv", "configs/issuer.yaml", "infra/issuer.yaml")
    head = repo.commit({"infra/kustomization.yaml": "resources:\n  - release.yaml\n"
                                                    "  - issuer.yaml\n",
                        "configs/kustomization.yaml": "resources: []\n"})
    _, out, err = review_out(repo, base, head, "markdown", capsys, "--rule",
                             "kustomize-integrity")
    inline = err.split("inline comment(s)", 1)[1]
    assert "\ninfra/kustomization.yaml:3\n" in inline, inline
    assert "`kustomize-integrity[crd-order]`" in inline
    assert "Not shown inline" not in out
