"""The review summary as a reviewer reads it: the verdict first, one entry per finding with a
link to its line in the head commit, connectivity per workload in plain words."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.engine.findings import Finding
from reviewbot.engine.outcome import Report, ReviewSummary
from reviewbot.netpol.diff import FlowChange
from reviewbot.report.links import Links, links_from_env
from reviewbot.report.markdown import (
    connectivity_section,
    finding_entry,
    render_markdown,
    verdict,
)
from reviewbot.report.text import render_text

from .helpers import ROOT, SEEDS, GitRepo, run_cli

HEAD = "0123456789abcdef0123456789abcdef01234567"
CI = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "home/lab"}


def finding(severity: str = "error", new: bool = True, **extra: object) -> Finding:
    fields: dict[str, object] = {
        "rule": "netpol-pairing", "severity": severity, "message": "m", "file": "k8s/a b.yaml",
        "line": 3, "column": 1, "object": "Deployment/poimen/poimen-memory", "new": new,
        "fix": "",
    }  # fmt: skip
    fields.update(extra)
    return Finding(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(("found", "said"), [
    ([finding(), finding(), finding("warning")], "2 errors to fix before merging (and 1 warning)"),
    ([finding("warning"), finding("info")], "No new errors: 1 new warning and 1 info to look at"),
    ([finding("info")], "No new errors: 1 new info"),
    ([finding(new=False)], "No new problems"),  # an existing error never changes the verdict
    ([], "No new problems"),
])  # fmt: skip
def test_the_verdict(found: list[Finding], said: str) -> None:
    assert verdict(found) == said


def test_links_follow_the_platforms_path_shape() -> None:
    github = links_from_env(CI, "github", HEAD)
    assert github is not None
    assert github.line("k8s/a b.yaml", 3) == f"https://github.com/home/lab/blob/{HEAD}/k8s/a%20b.yaml#L3"
    forgejo = links_from_env({"GITHUB_SERVER_URL": "https://code.example.org",
                              "GITHUB_REPOSITORY": "home/lab"}, "forgejo", HEAD)
    assert forgejo is not None
    assert forgejo.line("k8s/x.yaml", 9) == (
        f"https://code.example.org/home/lab/src/commit/{HEAD}/k8s/x.yaml#L9")
    given = links_from_env({}, "none", HEAD, "https://git.example/home/lab/")
    assert given is not None and given.line("a.yaml", 1).startswith(
        f"https://git.example/home/lab/blob/{HEAD}/")


@pytest.mark.parametrize(("env", "head", "base"), [
    ({}, HEAD, None),  # no address: no links
    (CI, None, None),  # the work tree: no commit to link to
    (CI, "main", None),  # a ref is not a commit
    ({**CI, "GITHUB_REPOSITORY": "home/lab) [x](javascript:alert(1)"}, HEAD, None),
    ({**CI, "GITHUB_SERVER_URL": "javascript:alert(1)//"}, HEAD, None),
    ({}, HEAD, "javascript:alert(1)"),
])  # fmt: skip
def test_without_a_safe_address_or_a_commit_there_are_no_links(
    env: dict[str, str], head: str | None, base: str | None
) -> None:
    assert links_from_env(env, "github", head, base) is None


def test_the_rules_documentation_is_the_running_actions() -> None:
    env = {**CI, "GITHUB_ACTION_REPOSITORY": "tools/reviewbot", "GITHUB_ACTION_REF": "v0.2.0"}
    links = links_from_env(env, "github", HEAD)
    assert links is not None
    assert links.rule("netpol-pairing") == (
        "https://github.com/tools/reviewbot/blob/v0.2.0/docs/rules.md#netpol-pairing")
    assert links_from_env(CI, "github", HEAD).rule("x") is None  # type: ignore[union-attr]


def test_a_finding_entry_links_its_rule_and_its_line() -> None:
    links = Links("https://github.com/home/lab", HEAD, "github",
                  "https://github.com/tools/reviewbot/blob/v0.2.0/docs/rules.md")
    entry = finding_entry(finding(message="no ingress", fix="Add one."), links)
    assert entry == (
        "- **[`netpol-pairing`](https://github.com/tools/reviewbot/blob/v0.2.0/docs/rules.md"
        "#netpol-pairing)** · `Deployment/poimen/poimen-memory` · "
        f"[`k8s/a b.yaml:3`](https://github.com/home/lab/blob/{HEAD}/k8s/a%20b.yaml#L3)"
        "<br>no ingress<br>**Fix:** Add one."
    )
    assert finding_entry(finding(message="m"), None) == (
        "- **`netpol-pairing`** · `Deployment/poimen/poimen-memory` · `k8s/a b.yaml:3`<br>m")


def test_connectivity_in_words_a_reviewer_knows() -> None:
    everything = "0.0.0.0-255.255.255.255[External]"
    changes = [
        FlowChange("added", "chat/open-webui[Deployment]", everything, "No Connections",
                   "All Connections", "workload chat/open-webui[Deployment] added"),
        FlowChange("added", everything, "chat/open-webui[Deployment]", "No Connections",
                   "All Connections", "workload chat/open-webui[Deployment] added"),
        FlowChange("removed", "poimen/poimen-memory[Deployment]",
                   "llm-serving/coder-predictor[InferenceService]", "TCP 8080",
                   "No Connections"),
    ]
    text = connectivity_section(changes)
    lines = text.splitlines()
    assert lines[0] == "### Connectivity (1 closed, 2 opened flows)"
    assert lines[2] == ("- `poimen/poimen-memory`: no longer reaches "
                        "`llm-serving/coder-predictor` (TCP 8080)")  # what breaks comes first
    assert lines[3] == ("- `chat/open-webui`: new, not isolated: reaches and is reached by "
                        "everything (no NetworkPolicy restricts it)")
    assert "- `chat/open-webui` → outside the cluster: opened (all ports)" in lines
    assert "0.0.0.0" not in text and "No Connections" not in text and "[External]" not in text
    assert "```mermaid" in text  # three edges: small enough to draw
    many = [FlowChange("added", f"a/w{i}[Deployment]", "b/x[Deployment]", "No Connections",
                       "TCP 80") for i in range(13)]
    assert "```mermaid" not in connectivity_section(many)


def test_format_markdown_prints_the_posted_summary_once_with_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--format markdown`` with ``--platform none`` prints exactly the summary that would be
    posted (marker, findings folded into it), once, on stdout; the preview on stderr has the
    inline comments only. ``--link-base`` links each finding to its line in the head."""
    for name in ("GITHUB_EVENT_PATH", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(SEEDS / "step1", "before")
    head = repo.commit_tree(ROOT / "examples", "after")
    args = ["review", "--repo", str(repo.path), "--base", base, "--head", head,
            "--platform", "none", "--format", "markdown"]
    code, out, err = run_cli(args, capsys)
    # step1 already lacked ornith.yaml: its finding is not new; kustomize refuses
    # llm-serving's build on both sides, so what it makes gives warnings, no new error (and
    # nothing of the coder's changed template is applied: no rollout starts)
    assert code == 0
    assert out.startswith("<!-- reviewbot:summary -->\n## No new errors: 9 new warnings to "
                          "look at")
    assert "](https://" not in out  # no address: no links
    assert "## No new errors" not in err and "inline comment(s) in one review" in err
    code, out, _ = run_cli([*args, "--link-base", "https://git.example/home/lab"], capsys)
    assert f"](https://git.example/home/lab/blob/{head}/k8s/apps/llm-serving/coder.yaml#L20)" \
        in out
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://code.example.org")
    monkeypatch.setenv("GITHUB_REPOSITORY", "home/lab")
    code, out, _ = run_cli([*args[:-4], "--platform", "forgejo", "--dry-run", "--format",
                            "markdown"], capsys)
    assert f"](https://code.example.org/home/lab/src/commit/{head}/k8s/apps/" in out


def test_a_fix_names_its_image_reference_as_a_code_span_and_stays_inert() -> None:
    """A fix's image reference is copied as written (a code span: no zero-width space, no
    backslash); the rest of the fix, repository text included, is no HTML and no mention."""
    cmarkgfm = pytest.importorskip("cmarkgfm")
    ref = "forgejo.homelab.lan/poimen/poimen-memory:<version>@sha256:<digest>"
    fix = f"Pin a version and its digest: {ref}. Ask @team <img src=x> about `{ref}`x."
    entry = finding_entry(finding(fix=fix))
    html = cmarkgfm.github_flavored_markdown_to_html(entry)
    code = "forgejo.homelab.lan/poimen/poimen-memory:&lt;version&gt;@sha256:&lt;digest&gt;"
    assert f"<code>{code}</code>." in html
    assert "\u200b" not in html.split("Ask")[0]
    assert "<img" not in html and "@team" not in html.replace("@\u200bteam", "")


def test_a_renamed_workload_is_one_line_after_the_workloads_whose_own_flows_changed() -> None:
    """A chart's fullnameOverride renames mosquitto to mqtt-broker: every flow to and from it
    closes under the old name and opens under the new one. That is one line, with the flows
    it accounts for; zigbee2mqtt's new egress policy (both ends on both sides) comes first."""
    old, new = "home-automation/mosquitto[Deployment]", "home-automation/mqtt-broker[Deployment]"
    zig = "home-automation/zigbee2mqtt[Deployment]"
    callers = [f"media/app{i}[Deployment]" for i in range(5)]
    changes = [FlowChange("removed", zig, old, "All Connections", "No Connections",
                          f"workload {old} removed")]
    for peer in callers:
        changes += [
            FlowChange("removed", peer, old, "All Connections", "No Connections",
                       f"workload {old} removed"),
            FlowChange("added", peer, new, "No Connections", "All Connections",
                       f"workload {new} added"),
            FlowChange("removed", zig, peer, "All Connections", "No Connections"),
        ]
    lines = connectivity_section(changes).splitlines()
    # every flow counted; the old name's flows are gone with it, not closed by a policy
    assert lines[0] == "### Connectivity (5 closed, 5 opened flows, 6 gone with a removed workload)"
    assert lines[2].startswith("- `home-automation/zigbee2mqtt`: no longer reaches `media/app0`")
    assert lines[3] == (
        "- `home-automation/mosquitto` is now `home-automation/mqtt-broker` (renamed, as its "
        "flows show): the 5 workloads that reached it reach the new name alike; "
        "`home-automation/zigbee2mqtt` no longer reaches it (6 flows closed, 5 opened)")
    assert lines[4] == ""  # nothing else: no caller repeats the rename
    # a workload only the outside of the cluster reaches, and it reaches (no policy at all:
    # new-user trial thirty-three read "the outside the cluster that reached it")
    world = "0.0.0.0-255.255.255.255[External]"
    web, frontend = "web/web[Deployment]", "web/web-frontend[Deployment]"
    alone = [FlowChange("removed", world, web, "All Connections", "No Connections",
                        f"workload {web} removed"),
             FlowChange("removed", web, world, "All Connections", "No Connections",
                        f"workload {web} removed"),
             FlowChange("added", world, frontend, "No Connections", "All Connections",
                        f"workload {frontend} added"),
             FlowChange("added", frontend, world, "No Connections", "All Connections",
                        f"workload {frontend} added")]
    assert [line for line in connectivity_section(alone).splitlines() if "renamed" in line] == [
        "- `web/web` is now `web/web-frontend` (renamed, as its flows show): outside the "
        "cluster reaches the new name alike; it reaches outside the cluster alike (2 flows "
        "closed, 2 opened)"]


def test_flows_of_a_removed_workload_are_not_counted_as_closed() -> None:
    """Deleting vllm-probe ends its 12 flows: the headline says they went with it, apart
    from what a policy closed (a reviewer reads "12 closed" as 12 calls now refused)."""
    probe = "llm-serving/vllm-probe[Deployment]"
    peers = [f"llm-serving/p{i}[Deployment]" for i in range(6)]
    changes = [FlowChange("removed", probe, p, "All Connections", "No Connections",
                          f"workload {probe} removed") for p in peers]
    changes += [FlowChange("removed", p, probe, "All Connections", "No Connections",
                           f"workload {probe} removed") for p in peers]
    assert connectivity_section(changes).splitlines()[0] == (
        "### Connectivity (12 flows gone with a removed workload)")
    changes.append(FlowChange("removed", peers[0], peers[1], "TCP 80", "No Connections"))
    assert connectivity_section(changes).splitlines()[0] == (
        "### Connectivity (1 closed flow, 12 gone with a removed workload)")


def test_not_evaluated_notes_fold_into_one_list_the_changed_objects_first() -> None:
    """22 charts the PR never touched were 22 paragraphs: now one collapsed list, whose
    title says how many concern what the PR changed, and those come first."""
    flow = FlowChange("removed", "a/x[Deployment]", "b/y[Deployment]", "TCP 80", "No Connections")
    notes = tuple(f"not evaluated: HelmRelease/monitoring/c{i}: chart c{i} (1.0.0, from "
                  "HelmRepository): its templates are not known to reviewbot" for i in range(5))
    review = ReviewSummary(diff=({"object": "HelmRelease/monitoring/c3", "status": "modified"},),
                           connectivity=(flow,), connectivity_notes=notes)
    text = render_markdown(Report(findings=(), review=review))
    section = text.split("### Connectivity", 1)[1]
    fold = section.split("<details><summary>What the connectivity does not evaluate", 1)[1]
    assert fold.startswith(" (5, 1 about objects this PR changed)</summary>\n\n"
                           "- not evaluated: HelmRelease/monitoring/c3: ")
    assert fold.splitlines()[2].endswith("(changed in this PR)")
    assert fold.count("- not evaluated: ") == 5 and "\n</details>" in fold
    few = connectivity_section([flow], notes=notes[:2])
    assert "- not evaluated: HelmRelease/monitoring/c0" in few and few.count("<details>") == 1


def test_findings_that_differ_only_in_their_namespace_are_one_entry_naming_the_objects() -> None:
    # trial 3: one file applied by three Argo CD Applications into three namespaces, one
    # selector change: three errors on deployment.yml:10 that differ only in the namespace
    # and the Application named after it
    def selector(ns: str, app: str, **extra: object) -> Finding:
        fields: dict[str, object] = {
            "rule": "change-safety", "kind": "immutable", "file": "deployment.yml", "line": 10,
            "object": f"Deployment/{ns}/web",
            "message": f"Deployment {ns}/web: spec.selector changes, but it is immutable: the "
                       f"sync of Argo CD Application argocd/{app} fails",
            "fix": "Revert spec.selector.", **extra}  # fmt: skip
        return finding(**fields)

    found = [selector("default", "demo"), selector("demo1", "demo-app1"),
             selector("demo2", "demo-app2"),
             selector("demo3", "demo-app3", line=11),  # another line: its own entry
             selector("demo4", "demo-app4", fix="Recreate it.")]  # another fix: its own entry
    text = render_markdown(Report(findings=tuple(found), review=ReviewSummary(new=5)))
    assert "### Errors (5 in 3 entries)" in text  # five findings, three entries
    assert text.count("- **`change-safety[immutable]`**") == 3
    assert (
        "- **`change-safety[immutable]`** · Deployment `web` in 3 namespaces: `default`, "
        "`demo1`, `demo2` · "
        "`deployment.yml:10`<br>Deployment \\{default, demo1, demo2\\}/web: spec.selector "
        "changes, but it is immutable: the sync of Argo CD Application argocd/\\{demo, "
        "demo-app1, demo-app2\\} fails<br>**Fix:** Revert spec.selector.\n") in text
    assert "· `Deployment/demo3/web` · `deployment.yml:11`" in text
    assert "· `Deployment/demo4/web` · `deployment.yml:10`" in text
    # messages that differ in more than a few words stay apart
    words = " ".join(f"w{i}" for i in range(6))
    other = [selector("a", "x", message=words), selector("b", "y", message=words.replace("w", "v"))]
    text = render_markdown(Report(findings=tuple(other), review=ReviewSummary(new=2)))
    assert text.count("- **`change-safety[immutable]`**") == 2


def test_one_base_line_of_a_name_prefixed_overlay_joins_the_entry_of_the_others() -> None:
    """New-user trial seventy-four W1: one base DNS policy built into shop-dev, shop-prod and
    staging's ``namePrefix: stg-`` overlay read as three entries (twelve in all); its other
    place named once per entry, by each build's object."""
    def dns(ns: str, prefix: str = "", **extra: object) -> Finding:
        def name(n: str) -> str:
            return f"{ns}/{prefix}{n}"
        fields: dict[str, object] = {
            "rule": "netpol-pairing", "kind": "dns-denied", "file": "base/np/api.yaml",
            "line": 21, "object": f"NetworkPolicy/{name('api')}",
            "message": f"{name('db-backup')}, {name('worker')}: egress is isolated by "
                       f"NetworkPolicy {name('api')}, NetworkPolicy {name('deny')}: these pods "
                       f"cannot resolve any name, {prefix}postgres (which they call) among them",
            "fix": f"Restore NetworkPolicy {name('allow-dns')}.",
            "others": (finding(rule="netpol-pairing", file="base/np/deny.yaml", line=7,
                               object=f"NetworkPolicy/{name('deny')}"),), **extra}
        return finding(**fields)

    found = (dns("shop-dev"), dns("shop-prod"), dns("shop-staging", "stg-"))
    text = render_markdown(Report(findings=found, review=ReviewSummary(new=3)))
    assert "### Errors (3 in 1 entry)" in text
    entry = text.split("- **`netpol-pairing[dns-denied]`** · ")[1]
    assert text.count("- **`netpol-pairing[dns-denied]`**") == 1
    assert entry.startswith("NetworkPolicy `shop-dev/api`, `shop-prod/api`, "
                            "`shop-staging/stg-api` · `base/np/api.yaml:21`<br>")
    assert "\\(said of shop-dev/api; alike in the others, each with its own names\\)" in entry
    assert ("Same cause at `base/np/deny.yaml:7` (`NetworkPolicy/{shop-dev/deny, "
            "shop-prod/deny, shop-staging/stg-deny}`)") in entry
    # the text output says them at the line once, named by their own subjects
    out = render_text(Report(findings=found), color=False)
    assert out.count("egress is isolated") == 1
    assert "2 more at this line with this fix in its own namespace, alike: " \
        "shop-prod/db-backup, shop-staging/stg-db-backup" in out
    # a name no prefix or suffix makes of the first's is another object: its own entry; so
    # is a suffixed name of the same namespace (new-user trial seventy-six W5: `qdrant` and
    # `qdrant-headless`, two Services, said "in 2 builds")
    other = dns("shop-qa", object="NetworkPolicy/shop-qa/apiserver")
    text = render_markdown(Report(findings=(*found, other), review=ReviewSummary(new=4)))
    assert text.count("- **`netpol-pairing[dns-denied]`**") == 2
    headless = dns("shop-dev", object="NetworkPolicy/shop-dev/api-headless")
    text = render_markdown(Report(findings=(found[0], headless), review=ReviewSummary(new=2)))
    assert text.count("- **`netpol-pairing[dns-denied]`**") == 2


def test_one_base_line_wanting_in_each_overlay_namespace_is_one_entry_with_one_fix() -> None:
    """New-user trial forty-two: one base line's egress error, built by two overlays into
    shop-prod and shop-staging, listed twice: its fix names each one's namespace too."""
    def egress(ns: str, **extra: object) -> Finding:
        fields: dict[str, object] = {
            "rule": "netpol-pairing", "kind": "egress-unmatched", "file": "base/np.yaml",
            "line": 27, "object": f"CiliumNetworkPolicy/{ns}/vllm",
            "path": f"spec.egress[1] -> {ns}/redis[Deployment]",
            "message": f"{ns}/vllm: egress to {ns}/redis on TCP 6379 has no matching ingress "
                       f"in {ns}",
            "fix": f"Widen the ingress rule of {ns}/redis to admit pods app=vllm.",
            **extra}
        return finding(**fields)

    found = [egress("shop-prod"), egress("shop-staging"),
             egress("shop-dev", fix="Widen it.")]  # another fix: its own entry
    text = render_markdown(Report(findings=tuple(found), review=ReviewSummary(new=3)))
    assert text.count("- **`netpol-pairing[egress-unmatched]`**") == 2
    assert (
        "- **`netpol-pairing[egress-unmatched]`** · CiliumNetworkPolicy `vllm` in 2 "
        "namespaces: `shop-prod`, "
        "`shop-staging` · `base/np.yaml:27`<br>\\{shop-prod, shop-staging\\}/vllm: egress to "
        "\\{shop-prod, shop-staging\\}/redis on TCP 6379 has no matching ingress in "
        "\\{shop-prod, shop-staging\\}<br>**Fix:** Widen the ingress rule of \\{shop-prod, "
        "shop-staging\\}/redis to admit pods app=vllm.\n") in text


def test_findings_of_one_namespace_in_several_builds_are_counted_as_builds() -> None:
    """New-user trial forty-five read "Deployment `web` in 2 namespaces: `web`, `web`": two
    clusters' builds of one base, alike. Counted as builds (a finding's clusters are its
    object's, not always where the problem is: trial forty-seven read staging's deletion
    "in cluster production", so no cluster is named)."""
    def renamed(**extra: object) -> Finding:
        fields: dict[str, object] = {
            "rule": "change-safety", "kind": "deleted", "severity": "info", "file": "web.yaml",
            "line": 4, "object": "Deployment/web/web",
            "message": "Deployment web/web is renamed", "fix": "Nothing to do.", **extra}
        return finding(**fields)

    text = render_markdown(Report(findings=(renamed(clusters=("staging",)),
                                            renamed(clusters=("prod",))),
                                  review=ReviewSummary(new=2)))
    assert "· Deployment `web/web` in 2 builds · `web.yaml:4`" in text


def test_infos_of_one_place_and_one_fix_are_one_entry_listing_each_message() -> None:
    """New-user trial sixty-nine W2: an app removed, its objects' deletions five entries of
    one place and one fix. One entry: the rule, the count, the place and the fix once, each
    object's message below. Errors and warnings, fewer than three, keep an entry each."""
    def deleted(kind: str, severity: str = "info", **extra: object) -> Finding:
        fields: dict[str, object] = {
            "rule": "change-safety", "kind": "deleted", "severity": severity,
            "file": "apps/kustomization.yaml", "line": 6, "object": f"{kind}/default/webui",
            "message": f"{kind} default/webui is no longer applied", "fix": "Nothing to do.",
            **extra}
        return finding(**fields)

    found = [deleted("PersistentVolumeClaim", "error"), deleted("Service", "warning"),
             deleted("Deployment", "warning"), deleted("HelmRelease"), deleted("Secret"),
             deleted("ConfigMap", fix="Keep it."),  # another fix: its own entry
             deleted("Role", line=9)]  # another place: its own entry
    text = render_markdown(Report(findings=tuple(found), review=ReviewSummary(new=7)))
    assert text.count("- **`change-safety[deleted]`**") == 6
    assert (
        "- **`change-safety[deleted]`** · 2 objects · `apps/kustomization.yaml:6`<br>**Fix:** "
        "Nothing to do.\n"
        "  - HelmRelease default/webui is no longer applied\n"
        "  - Secret default/webui is no longer applied\n") in text
    assert "· `ConfigMap/default/webui` · `apps/kustomization.yaml:6`<br>" in text
    assert "· `Role/default/webui` · `apps/kustomization.yaml:9`<br>" in text
    # three errors of one place and one fix are one entry too (new-user trial seventy-six
    # W1: one ApplicationSet typo's fifteen deletions, fifteen entries)
    three = [deleted(k, "error") for k in ("Deployment", "Service", "Ingress")]
    text = render_markdown(Report(findings=tuple(three), review=ReviewSummary(new=3)))
    assert "### Errors (3 in 1 entry)" in text and (
        "- **`change-safety[deleted]`** · 3 objects · `apps/kustomization.yaml:6`") in text


def test_text_says_a_failing_build_s_sentence_once_in_a_row() -> None:
    """hmcts: 80 findings ended with the same long "Not applied" sentence of their failing
    build. In text, a finding right after one with the same sentence says "as above"; the
    JSON message keeps it whole."""
    from reviewbot.engine.findings import doubted
    from reviewbot.report.render import render

    build = ("the build of Flux Kustomization flux-system/mailrelay fails (apps/mailrelay/prod/"
             "base/kustomization.yaml: '../rbac/role.yaml' does not exist)")
    other = build.replace("mailrelay", "toffee")
    said = [doubted("error", f"image {n} is floating", None, b)[1]
            for n, b in (("a", build), ("b", build), ("c", build), ("d", build), ("f", other))]
    found = [finding(message=m, file=f, line=i + 1, rule="image-digest")
             for i, (m, f) in enumerate(zip(said, ["x.yaml", "x.yaml", "y.yaml", "y.yaml",
                                                   "y.yaml"], strict=True))]
    found.insert(3, finding(message="image e is floating", file="y.yaml", line=3))
    text = render(Report(findings=tuple(found)), "text")
    ends = [line.split("  [")[0].split(". ", 1)[1] for line in text.splitlines()
            if "is floating" in line and ". Not" in line]
    assert ends == [
        f"Not applied: {build}, so none of this is applied until it builds.",
        "Not applied: as above.",
        "Not applied: as above.",  # the same build, in the next file too
        f"Not applied: {build}, so none of this is applied until it builds.",  # after e's
        f"Not applied: {other}, so none of this is applied until it builds."]  # another build
    assert "image e is floating  [" in text
    assert found[1].message == said[1]  # (the JSON's)


def test_text_says_what_it_could_not_see_once_in_a_row() -> None:
    """A lint of part of a repository gives every finding the same "Not certain" sentence:
    in text, the next finding with the same one says "as above"; another doubt is said
    whole, and a "Not applied" sentence after it stays."""
    from reviewbot.engine.findings import doubted
    from reviewbot.report.render import render

    far = "what the cluster roots outside the linted files (clusters/a.yaml) apply"
    build = "the build of apps/web fails (apps/web/kustomization.yaml: 'x.yaml' does not exist)"
    said = [doubted("error", "a is floating", far)[1], doubted("error", "b is floating", far)[1],
            doubted("error", "c is floating", "the value of ${TAG}")[1],
            doubted("error", "d is floating", "the value of ${TAG}", build)[1]]
    found = tuple(finding(message=m, line=i + 1) for i, m in enumerate(said))
    lines = [line.split("  [")[0].strip() for line in
             render(Report(findings=found), "text").splitlines() if "is floating" in line]
    assert [line.split("error   ", 1)[1] for line in lines] == [
        f"a is floating. Not certain: reviewbot could not see {far}.",
        "b is floating. Not certain: as above.",
        "c is floating. Not certain: reviewbot could not see the value of ${TAG}.",
        f"d is floating. Not certain: as above. Not applied: {build}, so none of this is "
        "applied until it builds."]


def test_the_review_summary_says_a_doubt_once_in_a_row() -> None:
    """New-user trial thirty-one: one chart's "Not certain" sentence four times in one
    summary. As the text output does, the next entry with the same doubt says "as above"
    (an inline comment, read alone, keeps it whole)."""
    from reviewbot.engine.findings import doubted

    far = "the chart app-template 3.7.1 itself"
    said = [doubted("error", f"{n} is floating", far)[1] for n in "ab"]
    found = tuple(finding(message=m, line=i + 1, object=f"Deployment/apps/{n}", new=True)
                  for i, (n, m) in enumerate(zip("ab", said, strict=True)))
    text = render_markdown(Report(findings=found, review=ReviewSummary(new=2)))
    assert f"a is floating. Not certain: reviewbot could not see {far}." in text
    assert "b is floating. Not certain: as above." in text


def test_a_section_with_findings_already_on_the_base_counts_the_new_ones_apart() -> None:
    # new-user trial sixteen (`--scope changed`): "2 errors to fix before merging" sat above
    # "### Errors (5)", three of them on the base branch already
    found = [finding(rule="image-digest", file=f"app{i}.yaml", line=3,
                     object=f"Deployment/apps/app{i}", message=f"app{i}: image has no digest",
                     new=i < 2) for i in range(5)]
    text = render_markdown(Report(findings=tuple(found), review=ReviewSummary(new=2)))
    assert text.startswith("## 2 errors to fix before merging")
    assert "### Errors (2 new, 3 already there)\n" in text
    only_new = render_markdown(Report(findings=tuple(found[:2]), review=ReviewSummary(new=2)))
    assert "### Errors (2)\n" in only_new
