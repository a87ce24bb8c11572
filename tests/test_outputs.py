"""Output formats: the JSON contract, SARIF 2.1.0 (schema-valid), GitHub annotations, rdjson,
text with the offending line; `rules` and `explain` come from the rule modules."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from reviewbot.cli import main

DATA = Path(__file__).parent / "data"
MANIFEST = """apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  annotations:
    reviewbot.dev/ignore: "yaml-syntax"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: broken
  name: again
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "app.yaml").write_text(MANIFEST)
    # kustomize reads the file, and refuses its key written twice: an error
    (tmp_path / "k8s" / "kustomization.yaml").write_text("resources: [app.yaml]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(repo: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["lint", "k8s", "--format", fmt])
    return code, capsys.readouterr().out


def test_json_matches_the_contract(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(repo, "json", capsys)
    assert code == 1
    data = json.loads(out)
    assert set(data) == {"version", "findings", "skipped"} and data["version"] == 1
    by_rule = {f["rule"]: f for f in data["findings"]}
    assert by_rule["yaml-syntax"] == {
        "rule": "yaml-syntax", "severity": "error", "file": "k8s/app.yaml", "line": 12,
        "column": 3, "object": "",
        "message": "duplicate mapping key `name` (first defined on line 11)",
        "fix": "Fix the YAML at the reported line and column.",
    }
    unused = by_rule["unused-suppression"]
    assert (unused["object"], unused["line"], unused["column"]) == ("ConfigMap/default/app", 6, 27)
    for finding in data["findings"]:
        assert list(finding) == ["rule", "severity", "file", "line", "column", "object",
                                 "message", "fix"]


def test_output_file_and_stdout_agree(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _run(repo, "json", capsys)
    assert main(["lint", "k8s", "--format", "json", "--output", "report.json"]) == 1
    assert capsys.readouterr().out == ""
    assert (repo / "report.json").read_text() == out


def test_sarif_is_valid_sarif_2_1_0(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _run(repo, "sarif", capsys)
    log = json.loads(out)
    schema = json.loads((DATA / "sarif-2.1.0-rtm.5.json").read_text())
    jsonschema.validate(log, schema, cls=jsonschema.Draft4Validator)
    run = log["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert "yaml-syntax" in rules and rules["yaml-syntax"]["help"]["text"]
    result = next(r for r in run["results"] if r["ruleId"] == "yaml-syntax")
    assert result["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 12, "startColumn": 3}
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "k8s/app.yaml"
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "yaml-syntax"
    # the check, rule[kind] as `reviewbot explain` takes it, in the result's property bag
    # (new-user trial seventy-one W1: a CI filter could not tell change-safety[deleted-data]
    # from change-safety[deleted]; the JSON contract's keys stay as they are)
    assert result["properties"] == {"check": "yaml-syntax"}
    assert all(r["properties"]["check"].partition("[")[0] == r["ruleId"]
               for r in run["results"])


def test_github_annotations(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _run(repo, "github", capsys)
    assert ("::error file=k8s/app.yaml,line=12,col=3,title=yaml-syntax::duplicate mapping key "
            "`name` "
            "(first defined on line 11). Fix the YAML at the reported line and column.") in out
    assert "::warning file=k8s/app.yaml,line=6,col=27,title=unused-suppression::" in out


def test_rdjson_for_reviewdog(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _run(repo, "rdjson", capsys)
    data = json.loads(out)
    assert data["source"]["name"] == "reviewbot"
    diag = next(d for d in data["diagnostics"] if d["code"]["value"] == "yaml-syntax")
    assert diag["location"] == {"path": "k8s/app.yaml",
                                "range": {"start": {"line": 12, "column": 3}}}
    assert diag["severity"] == "ERROR"


def test_rdjson_codes_are_the_checks_text_names(
        capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trials seventy-nine W5 and eighty W10: rdjson's code was the rule alone, so a
    reviewdog filter on `probe-headroom[startup]` matched nothing that the text says."""
    from tests.helpers import lint_dir

    examples = Path(__file__).resolve().parents[1] / "examples"
    checks = {f.check for f in lint_dir(examples).findings}
    main(["lint", str(examples), "--format", "rdjson"])
    codes = {d["code"]["value"] for d in json.loads(capsys.readouterr().out)["diagnostics"]}
    assert any("[" in c for c in checks) and codes == checks


def test_text_groups_by_file_and_shows_the_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = _run(repo, "text", capsys)
    assert out.startswith("k8s/app.yaml\n")
    assert '    reviewbot.dev/ignore: "yaml-syntax"' in out
    assert "\033[" not in out
    assert "\n1 error, 1 warning; looked in 1 object from 2 files\n" in out
    assert out.rstrip().splitlines()[-1].startswith("schema: 1 object validated against Kubernetes")


def test_rules_and_explain_come_from_modules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--format", "json"]) == 0
    rules = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rules["yaml-syntax"]["severity"] == "error"
    assert main(["explain", "yaml-syntax"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("yaml-syntax (error)") and "Failing example" in out
    assert main(["explain", "nope"]) == 2


def test_generated_rules_doc_is_current() -> None:
    from reviewbot.commands.rules import rules_markdown
    from reviewbot.engine.registry import all_rules

    doc = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
    assert doc.read_text() == rules_markdown(all_rules()), (
        "regenerate: reviewbot rules --format markdown --output docs/rules.md")


def test_markdown_keeps_image_references_copyable_and_mentions_inert() -> None:
    from markdown_it import MarkdownIt

    from reviewbot.report.markdown import md_text

    ref = "vllm/vllm-openai:v0.11.0@sha256:" + "0" * 64
    rendered = MarkdownIt("commonmark").render(md_text(f"Pin {ref} and tell @team"))
    assert ref in rendered  # copying the fix pastes a valid image reference
    assert "@team" not in rendered and "@\u200bteam" in rendered


def test_a_fix_s_code_spans_render_as_code_and_nothing_else_does() -> None:
    """New-user trial thirty-one: a fix's `kubectl delete --cascade=orphan` showed its
    backticks, escaped; the text around it stays inert (no mention, no link)."""
    from markdown_it import MarkdownIt

    from reviewbot.escape import md_prose

    fix = ("Delete it with `kubectl delete --cascade=orphan` (its pods keep running); "
           "tell @team, see [x](http://a), and `` ` `` is reserved; `a|b` and `unclosed")
    rendered = MarkdownIt("commonmark").render(md_prose(fix))
    assert "<code>kubectl delete --cascade=orphan</code>" in rendered
    assert "<code>`</code>" in rendered
    assert "@team" not in rendered and "<a " not in rendered
    assert "`a|b` and `unclosed" in rendered  # (a | would end a table cell: kept as text)


def test_text_counts_what_it_skipped_files_and_folders_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from reviewbot.words import plural
    chart = tmp_path / "chart" / "templates"
    chart.mkdir(parents=True)
    (chart / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                   "  name: {{ .Values.name }}\n")
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    assert main(["lint", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "\nskipped (1):\n  chart/templates/cm.yaml: helm template\n" in out
    assert "file(s)" not in out
    assert [plural(n, "NetworkPolicy", "NetworkPolicies") for n in (0, 1, 2)] == [
        "0 NetworkPolicies", "1 NetworkPolicy", "2 NetworkPolicies"]
    assert plural(2, "file") == "2 files"


def test_text_names_the_others_quiet_at_one_line_and_json_keeps_each() -> None:
    """Nine apps built from one shared component: the rule stays quiet at the same line for
    each. The terminal shows the first reason in full and names the others; JSON lists all."""
    from reviewbot.engine.findings import Quiet
    from reviewbot.report.base import Report
    from reviewbot.report.render import render

    reason = "NetworkPolicy {}/{}-metrics: podSelector app={} matches no pod in {}, but ..."
    apps = [("games", "romm"), ("llm", "litellm"), ("llm", "miso"), ("llm", "webui"),
            ("web", "blog")]
    quiet = tuple(Quiet("netpol-pairing", "components/np.yaml", 7, reason.format(ns, a, a, ns))
                  for ns, a in apps) + (
        Quiet("netpol-pairing", "components/np.yaml", 19, "peer app=prometheus: unseen"),
        Quiet("netpol-pairing", "components/np.yaml", 19, "no subject here"))
    report = Report(findings=(), skipped=(), quiet=quiet)
    text = render(report, "text")
    assert text.split("not reported on purpose (7):\n", 1)[1].splitlines() == [
        "  components/np.yaml:7: [netpol-pairing] "
        "NetworkPolicy games/romm-metrics: podSelector app=romm matches no pod in games, but ...",
        "    and 4 more at this line, alike: NetworkPolicy llm/litellm-metrics, "
        "NetworkPolicy llm/miso-metrics, NetworkPolicy llm/webui-metrics and 1 more",
        "  components/np.yaml:19: [netpol-pairing] peer app=prometheus: unseen",
        "    and 1 more at this line (`--format json` lists each)",
    ]
    assert len(json.loads(render(report, "json"))["skipped"]) == 7


def test_text_prints_one_problem_at_one_line_once_and_json_keeps_each() -> None:
    """New-user trial eleven: one missing ingress rule for five destination pods was five
    errors at one line, each with the same fix. The terminal shows the first whole and names
    the others by what tells them apart; the count and JSON keep each. Findings with another
    fix, or whose messages differ in more than a name, are each printed."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.render import render

    message = ("monitoring/prometheus: egress to llm/{} (pods app=llm) on TCP 8000 has no "
               "matching ingress in llm")
    fix = "Add an ingress rule in llm admitting namespace monitoring on 8000."
    alike = tuple(Finding("netpol-pairing", "error", "np.yaml", 22, 7, "NetworkPolicy/x",
                          message.format(name), fix, kind="egress-unmatched")
                  for name in ("vllm-coder", "vllm-dp", "vllm-embed", "vllm-main", "vllm-x"))
    other = Finding("netpol-pairing", "error", "np.yaml", 22, 7, "NetworkPolicy/x",
                    message.format("web"), "Another fix.", kind="egress-unmatched")
    report = Report(findings=(*alike, other), skipped=(), quiet=())
    lines = render(report, "text").splitlines()
    check = "netpol-pairing[egress-unmatched]"
    assert [line.strip() for line in lines if "22:7" in line or "fix:" in line
            or "more at this line" in line] == [
        f"22:7  error   {message.format('vllm-coder')}  [{check}] NetworkPolicy/x",
        f"fix: {fix}",
        "and 4 more at this line with this fix, alike: llm/vllm-dp, llm/vllm-embed, "
        "llm/vllm-main and 1 more",
        f"22:7  error   {message.format('web')}  [{check}] NetworkPolicy/x",
        "fix: Another fix."]
    assert "6 errors" in lines[-1]
    assert len(json.loads(render(report, "json"))["findings"]) == 6


def test_text_prints_one_message_of_several_objects_once_naming_them() -> None:
    """New-user trial twenty-one: one file two namespaces' builds make alike gave a probe
    finding twice, word for word, told apart by the object alone. Printed once, the other
    object named; JSON keeps each."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.render import render

    said = Finding("probe-headroom", "error", "base/worker.yaml", 46, 21, "", "worker: port "
                   "'http' is no port name of this container", "Name the port.", kind="port")
    report = Report(findings=tuple(
        replace(said, object=f"Deployment/shop-{env}/worker") for env in ("prod", "staging")),
        skipped=(), quiet=())
    lines = render(report, "text").splitlines()
    assert [line.strip() for line in lines if "46:21" in line or "more at this line" in line] == [
        "46:21  error   worker: port 'http' is no port name of this container  "
        "[probe-headroom[port]] Deployment/shop-prod/worker",
        "and 1 more at this line with this fix, alike: Deployment/shop-staging/worker"]
    assert len(json.loads(render(report, "json"))["findings"]) == 2


def test_one_base_line_found_wanting_in_each_overlay_namespace_is_printed_once() -> None:
    """New-user trial forty-two: a base's egress rule that two overlays build into shop-prod
    and shop-staging, its error printed twice at one line, message and fix apart by the
    namespace only. Printed once, the other named; JSON keeps each. A fix apart by more than
    the namespace, or another object's name, stays apart."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.render import render

    def of(space: str, name: str = "vllm", fix: str = "") -> Finding:
        return Finding(
            "netpol-pairing", "error", "base/np.yaml", 27, 7,
            f"CiliumNetworkPolicy/{space}/{name}", f"{space}/{name}: egress to {space}/redis on "
            f"TCP 6379 has no matching ingress in {space}",
            fix or f"Widen the ingress rule of {space}/redis to admit pods app={name}.",
            kind="egress-unmatched", path=f"spec.egress[1] -> {space}/redis[Deployment]")

    lines = render(Report(findings=(of("shop-prod"), of("shop-staging")), skipped=(),
                          quiet=()), "text").splitlines()
    assert [line.strip() for line in lines if "fix:" in line or "more at" in line] == [
        "fix: Widen the ingress rule of shop-prod/redis to admit pods app=vllm.",
        "and 1 more at this line with this fix in its own namespace, alike: "
        "shop-staging/vllm"]
    apart = (of("shop-prod"), of("shop-staging", fix="Widen it."), of("shop-dev", "web"))
    lines = render(Report(findings=apart, skipped=(), quiet=()), "text").splitlines()
    assert sum("fix:" in line for line in lines) == 3
    assert not any("more at" in line for line in lines)
    # a namespace's name inside another word, or spelt in another sense, is not set aside
    from reviewbot.report.base import same_fix, without_namespace

    prod = of("prod", fix="Raise prod-timeout; the default is 30s.")
    default = of("default", fix="Raise prod-timeout; the default is 30s.")
    assert without_namespace(prod, prod.fix) == prod.fix
    assert without_namespace(default, default.fix) == "Raise prod-timeout; the \0 is 30s."
    assert same_fix(prod, default)  # the same words: alike as they always were
    assert not same_fix(of("prod", fix="Admit prod/web in default."),
                        of("default", fix="Admit default/web in default."))


def test_alike_findings_that_differ_in_a_kind_and_a_name_are_named_by_both() -> None:
    """New-user trial thirty-four: five objects an Application's move deletes, one info each
    at its changed line, printed once and the others named "alike: NetworkPolicy,
    PodDisruptionBudget, Service": the kind alone, the first word that differs. Words that
    differ side by side are one name."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.render import render

    message = ("{} moves to namespace cache (a new object there; the old one goes), and Argo "
               "CD Application argocd/redis prunes: it is deleted in the cluster")
    fix = "Nothing to do if removing it is intended."
    report = Report(findings=tuple(
        Finding("change-safety", "info", "argocd/redis.yaml", 16, 5, f"{kind}/data/{name}",
                message.format(f"{kind} data/{name}"), fix, kind="deleted")
        for kind, name in (("NetworkPolicy", "default-deny"), ("Service", "redis"),
                           ("PodDisruptionBudget", "redis"))), skipped=(), quiet=())
    lines = render(report, "text").splitlines()
    assert [line.strip() for line in lines if "more at this line" in line] == [
        "and 2 more at this line with this fix, alike: Service data/redis, "
        "PodDisruptionBudget data/redis"]


def test_alike_findings_of_one_object_each_cluster_builds_name_the_cluster() -> None:
    """New-user trial forty-eight: dev's and prod's builds of one budget, found wanting at one
    base line, their messages apart by a count: "alike: 2 pods". Which cluster it is."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.render import render

    message = "PodDisruptionBudget web/api: minAvailable 2 of the {} it selects"
    report = Report(findings=tuple(
        Finding("schedulability", "warning", "base/pdb.yaml", 6, 17,
                "PodDisruptionBudget/web/api", message.format(pods), "Set maxUnavailable: 1.",
                kind="drain-blocked", clusters=(cluster,))
        for cluster, pods in (("dev", "1 pod"), ("prod", "2 pods"))), skipped=(), quiet=())
    lines = render(report, "text").splitlines()
    assert [line.strip() for line in lines if "more at this line" in line] == [
        "and 1 more at this line with this fix, alike: cluster prod (2 pods)"]


@pytest.mark.parametrize("count", [5, 6])
def test_text_lists_many_unapplied_folders_once_under_skipped(count: int) -> None:
    """A template repository's folders no cluster root applies: past five, the terminal
    names them under skipped alone, not once more each as an info of four lines; the error
    stays in view. JSON keeps every info."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.render import render
    from reviewbot.sources.tree import NOT_APPLIED, Skipped

    folders = [f"templates/app{n}" for n in range(count)]
    infos = tuple(Finding("kustomize-integrity", "info", f"{f}/deploy.yaml", 1, 1, "",
                          f"{f} is {NOT_APPLIED}, so nothing in it is judged", "List it ...",
                          kind="not-applied") for f in folders)
    error = Finding("image-digest", "error", "apps/web.yaml", 3, 14, "Deployment/web/web",
                    "web, container web: image nginx has no tag", "Pin it.")
    report = Report(findings=(error, *infos),
                    skipped=tuple(Skipped(f, NOT_APPLIED) for f in folders))
    text = render(report, "text")
    shown = [f for f in folders if f"\n{f}/deploy.yaml\n" in text]
    assert "apps/web.yaml\n" in text and all(f"  {f}: {NOT_APPLIED}\n" in text for f in folders)
    if count == 5:
        assert shown == folders and "not shown one by one" not in text
    else:
        assert shown == []
        assert (f"{count} infos not shown one by one: files and folders not applied "
                "(kustomize-integrity), each listed under skipped with why\n") in text
    assert len(json.loads(render(report, "json"))["findings"]) == count + 1


def test_text_lists_many_folders_kept_aside_once_under_skipped() -> None:
    """argoproj/argo-cd keeps 380 testdata folders aside: each is in the skipped list with
    why, so the terminal does not repeat them as infos."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.render import render
    from reviewbot.sources.tree import Skipped

    why = "kept aside (vendored code or test data no build reads)"
    folders = [f"pkg/p{n}/testdata" for n in range(6)]
    infos = tuple(Finding("kustomize-integrity", "info", f"{f}/a.yaml", 1, 1, "",
                          f"{f} is {why}, so nothing in it is judged", "Delete it ...",
                          kind="not-applied") for f in folders)
    report = Report(findings=infos, skipped=tuple(Skipped(f, f"{why}: not applied")
                                                  for f in folders))
    text = render(report, "text")
    assert "6 infos not shown one by one" in text and "/a.yaml\n" not in text
    assert all(f"  {f}: {why}: not applied\n" in text for f in folders)


def test_text_names_places_quiet_for_the_same_reason_once() -> None:
    """Forty Cilium policies admit app.kubernetes.io/name=envoy from a namespace whose pods
    a chart makes (rwlove/home-ops: 241 lines): the terminal shows the first in full and
    lists the other places; a reason said once, or not of that shape, stays its own line."""
    from reviewbot.engine.findings import Quiet
    from reviewbot.report.base import Report
    from reviewbot.report.render import render

    gist = ("app.kubernetes.io/name=envoy matches no pod in network, but it may hold pods "
            "reviewbot cannot see (network: HelmRelease envoy-gateway (Helm chart values))")
    apps = ["ai/khoj", "ai/ollama", "collab/glance", "home/atuin", "media/plex"]
    quiet = tuple(Quiet("netpol-pairing", f"apps/{a}/cnp.yaml", 20,
                        f"CiliumNetworkPolicy {a}-allow: ingress[0].fromEndpoints[0] {gist}")
                  for a in apps) + (
        Quiet("netpol-pairing", "apps/ai/khoj/cnp.yaml", 31, "CiliumNetworkPolicy ai/khoj-"
              "allow: egress[0].toEndpoints[0] cnpg.io/cluster=pg matches no pod in db"),
        Quiet("schedulability", "apps/x.yaml", 3, "no node inventory"),
        Quiet("schedulability", "apps/y.yaml", 3, "no node inventory"))
    text = render(Report(findings=(), skipped=(), quiet=quiet), "text")
    assert text.split("not reported on purpose (8):\n", 1)[1].splitlines() == [
        f"  apps/ai/khoj/cnp.yaml:20: [netpol-pairing] CiliumNetworkPolicy ai/khoj-allow: "
        f"ingress[0].fromEndpoints[0] {gist}",
        "    and 4 more places alike: apps/ai/ollama/cnp.yaml:20, apps/collab/glance/cnp.yaml:20,"
        " apps/home/atuin/cnp.yaml:20 and 1 more",
        "  apps/ai/khoj/cnp.yaml:31: [netpol-pairing] CiliumNetworkPolicy ai/khoj-allow: "
        "egress[0].toEndpoints[0] cnpg.io/cluster=pg matches no pod in db",
        "  apps/x.yaml:3: [schedulability] no node inventory",
        "  apps/y.yaml:3: [schedulability] no node inventory",
    ]
    assert len(json.loads(render(Report(findings=(), skipped=(), quiet=quiet), "json"))[
        "skipped"]) == 8


def _json_values() -> list[object]:
    """Values of every shape ``escape.indented_json`` writes itself or leaves to json."""
    import random

    class Number(int):
        pass

    class Text(str):
        pass

    rng = random.Random(32)
    texts = ["", "a", "é", "\u2028", "\x00\x1f\x7f", '"\\/', "##[x", "\ud800", "日本", "\t\n"]
    scalars: list[object] = [*texts, 0, -1, 2**70, 1.5, -0.0, 1e300, float("nan"),
                             float("inf"), float("-inf"), True, False, None]

    def value(depth: int) -> object:
        pick = rng.random()
        if depth > 3 or pick < 0.45:
            return rng.choice(scalars)
        if pick < 0.7:
            return {rng.choice(texts) + str(i): value(depth + 1) for i in range(rng.randrange(4))}
        items = [value(depth + 1) for _ in range(rng.randrange(4))]
        return tuple(items) if pick < 0.75 else items

    cyclic: list[object] = [1]
    cyclic.append(cyclic)
    deep: object = []
    for _ in range(80):
        deep = [deep, {"k": deep}] if _ % 20 == 0 else [deep]
    odd = [{1: "a"}, {"a": Number(3)}, [Text("t")], {"a": {2.5: None, None: 1, True: 0}},
           {"a": object()}, cyclic, deep, {"a": {"b": ["c", {"d": []}, {}]}}, (), {}, [],
           "top", 7, None]
    return [value(0) for _ in range(400)] + odd


def test_indented_json_is_what_json_writes(capsys: pytest.CaptureFixture[str]) -> None:
    """``json_text``'s writer of indented JSON gives the json module's text, byte for byte, on
    rendered reports and on generated values (containers of every plain type, strings json
    escapes, numbers json spells its own way); what it leaves to json (keys that are no
    ``str``, subclasses, other objects, cycles, deep nesting) is json's, errors included."""
    from reviewbot.escape import indented_json

    examples = Path(__file__).parent.parent / "examples"
    for fmt in ("json", "sarif", "rdjson"):
        main(["lint", str(examples), "--format", fmt])
        out = capsys.readouterr().out
        assert out == json.dumps(json.loads(out), indent=2, ensure_ascii=False) + "\n", fmt
    for value in _json_values():
        for indent in (0, 1, 2, 4):
            try:
                expected: object = json.dumps(value, indent=indent, ensure_ascii=False)
            except (TypeError, ValueError) as exc:
                expected = type(exc)
            try:
                got: object = indented_json(value, indent)
            except (TypeError, ValueError) as exc:
                got = type(exc)
            assert got == expected, (value, indent)


def test_a_message_that_ends_a_sentence_takes_no_second_stop_before_its_fix() -> None:
    # a new-user trial: "... so none of this runs until it is fixed.. Raise failureThreshold"
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.render import render

    done = Finding("probe-headroom", "error", "apps/api.yaml", 37, 31, "Deployment/shop/api",
                   "api: the startupProbe allows 100s. Refused: until it is fixed.",
                   "Raise failureThreshold to 18.")
    bare = replace(done, message="api: the startupProbe allows 100s")
    report = Report(findings=(done, bare))
    github = render(report, "github")
    assert "until it is fixed. Raise failureThreshold" in github and ".." not in github
    assert "allows 100s. Raise failureThreshold" in github
    texts = [r["message"]["text"] for r in json.loads(render(report, "sarif"))["runs"][0][
        "results"]]
    assert texts == ["api: the startupProbe allows 100s. Refused: until it is fixed. Fix: "
                     "Raise failureThreshold to 18.",
                     "api: the startupProbe allows 100s. Fix: Raise failureThreshold to 18."]


def test_same_cause_names_each_other_place_once_and_not_the_comment_s_own() -> None:
    """New-user trial thirty-six: a comment anchored at the Service's port said "Same cause
    at" that port (the finding's other place, where the comment sits), and a DNS warning
    named each policy's place twice."""
    from dataclasses import replace

    from reviewbot.engine.findings import Finding
    from reviewbot.report.markdown import also_at

    f = Finding("netpol-pairing", "error", "api.yaml", 27, 9, "Deployment/shop/api", "m", "x")
    port = replace(f, file="service.yaml", line=12, object="Service/db/postgres")
    policy = replace(f, file="np.yaml", line=7, object="NetworkPolicy/shop/np")
    said = also_at(replace(f, others=(port, policy, policy), anchor=("service.yaml", 12)))
    assert said == "Same cause at `np.yaml:7` (`NetworkPolicy/shop/np`)"


def test_alike_findings_named_inside_brackets_are_named_without_them() -> None:
    """New-user trial fifty: "Kubernetes 1.31 (cluster https://prod...:6443) does not
    serve ...", once per cluster: "alike: https://k8s-staging.example.net:6443)", a stray
    bracket."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.render import render

    message = ("api: Kubernetes 1.31 (cluster {}) does not serve HorizontalPodAutoscaler in "
               "autoscaling/v2beta2: removed in 1.26")
    report = Report(findings=tuple(
        Finding("api-lifecycle", "error", "apps/hpa.yaml", 1, 13, "HorizontalPodAutoscaler/web/api",
                message.format(url), "Use autoscaling/v2.", kind="unserved")
        for url in ("https://prod:6443", "https://staging:6443")), skipped=(), quiet=())
    lines = render(report, "text").splitlines()
    assert [line.strip() for line in lines if "more at this line" in line] == [
        "and 1 more at this line with this fix, alike: https://staging:6443"]


def test_alike_findings_of_pods_and_clusters_say_each_name_once() -> None:
    """New-user trial seventy-three (W1): one ServingRuntime's --dtype found wanting for two
    models in two clusters, their messages apart by pod and node names: the text said
    "alike: gpu-west-v100-1's", the Markdown "{(gpu-east-v100-1's, (gpu-west-v100-1's}" and
    "in 4 builds". Each name once, without the bracket and the possessive it stands in."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.markdown import finding_entry
    from reviewbot.report.render import render

    message = "{}-predictor: --dtype=bfloat16 on every node it can land on ({}-1's V100)"
    findings = tuple(
        Finding("serving-runtime", "error", "runtime.yaml", 20, 11,
                "ServingRuntime/llm/vllm", message.format(pod, cluster), "Use float16.",
                kind="bf16", clusters=("east", "west"))
        for pod in ("chat", "embed") for cluster in ("east", "west"))
    lines = render(Report(findings=findings, skipped=(), quiet=()), "text").splitlines()
    assert [line.strip() for line in lines if "more at this line" in line] == [
        "and 3 more at this line with this fix, alike: chat-predictor, embed-predictor"]
    entry = finding_entry(findings[0], alike=findings)
    assert "ServingRuntime `llm/vllm` in clusters `east`, `west`" in entry
    assert "\\{chat-predictor, embed-predictor\\}:" in entry
    assert "\\(\\{east-1, west-1\\}'s V100\\)" in entry


def test_alike_findings_named_by_their_objects_name_say_its_namespace() -> None:
    """New-user trial seventy-four (W4): one base line's probe finding in three overlays'
    namespaces read "alike: api, stg-api": each name of another namespace with its own."""
    from reviewbot.engine.findings import Finding
    from reviewbot.report.base import Report
    from reviewbot.report.render import render

    findings = tuple(
        Finding("probe-headroom", "error", "base/api.yaml", 22, 11, f"Deployment/{ns}/{name}",
                f"{name}, container api: readinessProbe port admin is no port it declares",
                "Name a declared port.", kind="probe-port")
        for ns, name in (("shop-dev", "api"), ("shop-prod", "api"), ("shop-staging", "stg-api")))
    lines = render(Report(findings=findings, skipped=(), quiet=()), "text").splitlines()
    assert [line.strip() for line in lines if "more at this line" in line] == [
        "and 2 more at this line with this fix, alike: shop-prod/api, shop-staging/stg-api"]


def test_the_json_names_each_other_place_of_a_cause_once() -> None:
    """New-user trial sixty-seven (D8): a review's JSON listed a policy twice in `also`
    where the text named it once (two findings of one cause at the same place)."""
    from reviewbot.engine.findings import Finding

    place = Finding("netpol-pairing", "error", "ai/deny.yaml", 4, 1, "NetworkPolicy/ai/deny",
                    "m", "f")
    found = Finding("netpol-pairing", "error", "web/np.yaml", 37, 5, "NetworkPolicy/web/out",
                    "m", "f", others=(place, replace(place, message="another"), place))
    assert found.as_json(review=True)["also"] == [
        {"object": "NetworkPolicy/ai/deny", "file": "ai/deny.yaml", "line": 4}]


def test_text_names_the_other_places_of_a_finding_s_cause(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial sixty-nine W1: the PR comment said "Same cause at" the policy to edit;
    the terminal never named it. A request above its limit is one problem at the request
    and at the limit: the text names the limit's place too."""
    (tmp_path / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: snap, namespace: ops}\nspec:\n"
        "  template:\n    spec:\n      restartPolicy: Never\n      containers:\n"
        "      - name: snap\n        image: snap:1\n        resources:\n"
        "          requests: {memory: 150Mi}\n          limits:\n            memory: 128Mi\n")
    code = main(["lint", str(tmp_path), "--rule", "schedulability", "--color", "never"])
    out = capsys.readouterr().out
    assert code == 1
    assert "            also at: job.yaml:14 (Job/ops/snap)\n" in out, out
    # one place of two builds' objects is named once, with both (new-user trial seventy-six
    # W3 read `rollout.yaml:29` twice)
    from dataclasses import replace as copy

    from reviewbot.engine.findings import Finding
    from reviewbot.report.text import _also

    at = Finding("netpol-pairing", "error", "web/rollout.yaml", 29, 1, "Rollout/staging/web",
                 "m", "f")
    found = Finding("netpol-pairing", "error", "web/np.yaml", 28, 7, "NetworkPolicy/staging/web",
                    "m", "f", others=(at, copy(at, object="Rollout/prod/web"), at))
    assert _also(found) == "web/rollout.yaml:29 (Rollout/staging/web, Rollout/prod/web)"
