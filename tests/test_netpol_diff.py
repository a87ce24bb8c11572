"""`reviewbot netpol diff`: np-guard netpol-analyzer's diff output on its fixtures, git refs,
the Markdown/Mermaid/JSON renderings, and the ingress controller peer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewbot.cli import main
from reviewbot.netpol.diff import FlowChange, merged_note, render_markdown, render_mermaid
from reviewbot.netpol.ingress import IngressController
from reviewbot.netpol.network import Network, connectivity, render_connlist
from reviewbot.report.markdown import md_code

from .helpers import NETPOL_ORACLE, GitRepo, build, deployment, run_cli

DIFF_ORACLE = NETPOL_ORACLE.parent / "netpol-oracle-diff"
FIXTURES = sorted(p for p in DIFF_ORACLE.glob("*") if (p / "expected.txt").is_file())


@pytest.mark.skipif(not FIXTURES, reason=f"netpol diff oracle not found at {DIFF_ORACLE}")
@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_diff_matches_np_guard(fixture: Path, tmp_path: Path) -> None:
    out = tmp_path / "diff.txt"
    names = ["--ref-names", "old,new"] if fixture.name.startswith("TsetOutputWithArgNames") else []
    code = main(["netpol", "diff", str(fixture / "ref1"), str(fixture / "ref2"),
                 "--output", str(out), *names])
    assert code == 0
    assert out.read_text() == (fixture / "expected.txt").read_text()


@pytest.mark.skipif(not FIXTURES, reason=f"netpol diff oracle not found at {DIFF_ORACLE}")
def test_diff_oracle_is_not_trivial() -> None:
    assert len(FIXTURES) >= 20
    texts = [(f / "expected.txt").read_text() for f in FIXTURES]
    assert sum(1 for t in texts if t.startswith("Connectivity diff:")) >= 18
    assert any("{ingress-controller}" in t for t in texts)
    assert any("workloads-diff-info" in t for t in texts)


POLICY = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-in, namespace: shop}
spec:
  podSelector: {matchLabels: {app: api}}
  ingress:
  - from: [{podSelector: {matchLabels: {app: web}}}]
    ports: [{port: 8080}]
"""


def test_diff_between_git_refs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = GitRepo(tmp_path / "repo")
    pods = (deployment("web", "shop", "{app: web}")
            + deployment("api", "shop", "{app: api}", "ports: [{containerPort: 8080}]"))
    old = repo.commit({"a.yaml": pods + POLICY})
    new = repo.commit({"a.yaml": pods + POLICY.replace("port: 8080", "port: 9090")})
    code, out, _ = run_cli(["netpol", "diff", old, new, "--repo", str(repo.path)], capsys)
    assert code == 0
    assert out == (
        "Connectivity diff:\n"
        "diff-type: changed, source: shop/web[Deployment], destination: shop/api[Deployment], "
        "ref1: TCP 8080, ref2: TCP 9090\n"  # a numbered port needs no declared containerPort
    )
    code, out, _ = run_cli(["netpol", "diff", old, new, "--repo", str(repo.path),
                            "--format", "json"], capsys)
    assert json.loads(out)["connectivity_diff"] == [{
        "diff_type": "changed", "source": "shop/web[Deployment]",
        "destination": "shop/api[Deployment]", "ref1": "TCP 8080", "ref2": "TCP 9090",
    }]
    code, out, err = run_cli(["netpol", "diff", "no-such-ref", new, "--repo", str(repo.path)],
                             capsys)
    assert code == 2 and "no-such-ref" in err
    # no change: connlist stays empty, as np-guard's, and stderr says so, as np-guard's log
    # does (new-user trial eighteen: "prints nothing at all")
    code, out, err = run_cli(["netpol", "diff", new, new, "--repo", str(repo.path)], capsys)
    assert (code, out, err) == (0, "", "reviewbot: note: no connectivity changes\n")


def test_the_object_diff_in_json_carries_the_connectivity_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reviewbot diff --format json`` has the review's ``connectivity_diff``: the same
    flows, and an empty list when the change touches no policy or pod."""
    repo = GitRepo(tmp_path / "repo")
    pods = (deployment("web", "shop", "{app: web}")
            + deployment("api", "shop", "{app: api}", "ports: [{containerPort: 8080}]"))
    old = repo.commit({"a.yaml": pods + POLICY})
    new = repo.commit({"a.yaml": pods + POLICY.replace("port: 8080", "port: 9090")})
    code, out, _ = run_cli(["diff", old, new, "--repo", str(repo.path), "--format", "json"],
                           capsys)
    assert code == 0
    assert json.loads(out)["connectivity_diff"] == [{
        "diff_type": "changed", "source": "shop/web[Deployment]",
        "destination": "shop/api[Deployment]", "ref1": "TCP 8080", "ref2": "TCP 9090",
    }]
    same = repo.commit({"b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
    code, out, _ = run_cli(["diff", new, same, "--repo", str(repo.path), "--format", "json"],
                           capsys)
    assert code == 0 and json.loads(out)["connectivity_diff"] == []


def test_a_review_names_every_address_but_the_private_ranges_as_one_peer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trials eighty W9 and eighty-one W2: an egress rule to `0.0.0.0/0` except the
    private ranges closed read as four flows, `0.0.0.0-9.255.255.255[External]`, ... A review
    names them as one; `netpol diff` keeps np-guard's ranges."""
    repo = GitRepo(tmp_path / "repo")
    pods = deployment("web", "shop", "{app: web}")
    egress = ("---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
              "metadata: {name: web, namespace: shop}\nspec:\n"
              "  podSelector: {matchLabels: {app: web}}\n  policyTypes: [Egress]\n"
              "  egress:\n  - to: [{ipBlock: {cidr: 0.0.0.0/0, except: [10.0.0.0/8, "
              "172.16.0.0/12, 192.168.0.0/16]}}]\n    ports: [{port: 443}]\n")
    old = repo.commit({"a.yaml": pods + egress})
    new = repo.commit({"a.yaml": pods + egress.replace("port: 443", "port: 8443")})
    _, out, _ = run_cli(["diff", old, new, "--repo", str(repo.path), "--format", "json"],
                        capsys)
    assert [(c["destination"], c["ref1"], c["ref2"]) for c in json.loads(out)[
        "connectivity_diff"]] == [("0.0.0.0/0 except 10.0.0.0/8, 172.16.0.0/12, "
                                   "192.168.0.0/16[External]", "TCP 443", "TCP 8443")]
    _, out, _ = run_cli(["netpol", "diff", old, new, "--repo", str(repo.path)], capsys)
    assert "0.0.0.0-9.255.255.255[External]" in out


def test_flows_of_a_change_whose_head_build_fails_wait_for_the_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial sixteen: a pull request that also breaks its build said "1 closed flow"
    beside "the cluster keeps what it has". The flows are the sources' and are said to wait
    for the head build; a change that builds says plainly what it changes."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    repo = GitRepo(tmp_path / "repo")
    pods = (deployment("web", "shop", "{app: web}")
            + deployment("api", "shop", "{app: api}", "ports: [{containerPort: 8080}]"))
    old = repo.commit({"a.yaml": pods + POLICY, "kustomization.yaml": "resources: [a.yaml]\n"})
    changed = pods + POLICY.replace("port: 8080", "port: 9090")
    broken = repo.commit({"a.yaml": changed,
                          "kustomization.yaml": "resources: [a.yaml, gone.yaml]\n"})
    args = ["review", "--repo", str(repo.path), "--base", old, "--platform", "none",
            "--color", "never"]
    _, out, _ = run_cli([*args, "--head", broken], capsys)
    assert "; connectivity once the head builds: 1 changed flow;" in out
    _, md, _ = run_cli([*args, "--head", broken, "--format", "markdown"], capsys)
    assert ("- not applied yet: the flows shown change when the head builds: "
            "kustomization.yaml: 'gone.yaml' does not exist, so the build fails "
            "and the cluster keeps the flows it has") in md
    # `netpol diff` says it too (new-user trial nineteen: the flow alone, as if applied)
    note = ("not applied yet: the flows shown change when the head builds: kustomization.yaml: "
            "'gone.yaml' does not exist, so the build fails and the cluster keeps "
            "the flows it has")
    _, out, _ = run_cli(["netpol", "diff", old, broken, "--repo", str(repo.path),
                         "--format", "json"], capsys)
    assert json.loads(out)["notes"] == [note]
    _, out, err = run_cli(["netpol", "diff", old, broken, "--repo", str(repo.path)], capsys)
    assert err == f"reviewbot: note: {note}\n"
    built = repo.commit({"kustomization.yaml": "resources: [a.yaml]\n"})
    _, out, _ = run_cli([*args, "--head", built], capsys)
    assert "; connectivity: 1 changed flow;" in out
    # the text lists the flows it counts (new-user trial twenty: the count alone)
    assert ("changed flows:\n  shop/web[Deployment] -> shop/api[Deployment]: TCP 8080 -> "
            "TCP 9090\n") in out
    _, out, _ = run_cli(["netpol", "diff", old, built, "--repo", str(repo.path),
                         "--format", "json"], capsys)
    assert json.loads(out)["notes"] == []


def test_flows_of_the_cluster_whose_head_build_fails_wait_for_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty: the change closed a flow of a cluster whose head build
    kustomize refuses, while the other cluster built; the review said "1 closed flow" with no
    note (the note waited for every cluster's build to fail). Each cluster's flows wait for
    its own build: the note names lab's."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\n"
            "spec: {{interval: 10m, path: {path}, prune: true, "
            "sourceRef: {{kind: GitRepository, name: flux-system}}}}\n")
    pods = (deployment("web", "shop", "{app: web}")
            + deployment("api", "shop", "{app: api}", "ports: [{containerPort: 8080}]"))
    files = {"base/kustomization.yaml": "resources: [a.yaml]\n", "base/a.yaml": pods + POLICY,
             "overlays/lab/kustomization.yaml": "resources: [../../base]\n"}
    for env in ("home", "lab"):
        files[f"clusters/{env}/flux-system/gotk-sync.yaml"] = sync.format(
            name="flux-system", path=f"./clusters/{env}")
        files[f"clusters/{env}/apps.yaml"] = sync.format(
            name="apps", path="./overlays/lab" if env == "lab" else "./base")
    repo = GitRepo(tmp_path / "repo")
    old = repo.commit(files)
    new = repo.commit({
        "base/a.yaml": pods + POLICY.replace("port: 8080", "port: 9090"),
        "overlays/lab/kustomization.yaml": "resources: [../../base, gone.yaml]\n"})
    _, md, _ = run_cli(["review", "--repo", str(repo.path), "--base", old, "--head", new,
                        "--platform", "none", "--format", "markdown"], capsys)
    assert ("- not applied yet: the flows shown change when the head builds: "
            "overlays/lab/kustomization.yaml: 'gone.yaml' does not exist, so the build fails "
            "and the cluster keeps the flows it has \\(cluster clusters/lab\\)") in md


def test_a_path_typo_keeps_the_clusters_flows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-five: a Flux Kustomization's spec.path typo removes nothing from
    the cluster (kustomize refuses the build; the diff says the cluster keeps what it has),
    yet the connectivity said shop's flows were "gone with a removed workload". Objects a
    refused head build leaves out are kept, with their flows; a change beside the typo that
    builds is said alone."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\n"
            "spec: {{interval: 10m, path: {path}, prune: true, "
            "sourceRef: {{kind: GitRepository, name: flux-system}}}}\n")
    pods = (deployment("web", "shop", "{app: web}")
            + deployment("api", "shop", "{app: api}", "ports: [{containerPort: 8080}]"))
    other = (deployment("cron", "ops", "{app: cron}")
             + deployment("db", "ops", "{app: db}", "ports: [{containerPort: 5432}]"))
    db_policy = POLICY.replace("shop", "ops").replace("app: api", "app: db").replace(
        "app: web", "app: cron").replace("8080", "5432")
    repo = GitRepo(tmp_path / "repo")
    old = repo.commit({
        "clusters/home/flux-system/gotk-sync.yaml": sync.format(
            name="flux-system", path="./clusters/home"),
        "clusters/home/apps.yaml": sync.format(name="apps", path="./apps/home"),
        "clusters/home/ops.yaml": sync.format(name="ops", path="./apps/ops"),
        "apps/home/a.yaml": pods + POLICY, "apps/ops/a.yaml": other + db_policy})
    typo = repo.commit({"clusters/home/apps.yaml": sync.format(name="apps", path="./apps/hme")})
    args = ["review", "--repo", str(repo.path), "--base", old, "--platform", "none"]
    _, out, _ = run_cli([*args, "--head", typo, "--format", "json"], capsys)
    assert json.loads(out)["connectivity_diff"] == []
    _, md, _ = run_cli([*args, "--head", typo, "--format", "markdown"], capsys)
    assert "gone" not in md and "### Connectivity" not in md
    assert "the cluster keeps what it has" in md  # (the diff's)
    both = repo.commit({"apps/ops/a.yaml": other + db_policy.replace("5432", "5433")})
    _, out, _ = run_cli([*args, "--head", both, "--format", "json"], capsys)
    assert json.loads(out)["connectivity_diff"] == [{
        "diff_type": "changed", "source": "ops/cron[Deployment]",
        "destination": "ops/db[Deployment]", "ref1": "TCP 5432", "ref2": "TCP 5433",
    }]


def test_a_misspelt_kustomization_entry_keeps_its_flows_a_removed_one_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same for a kustomization's folder misspelt ('shpo' for 'shop'): kept. An entry the
    PR removes while another entry is missing is removed once the head builds: its flows go,
    and the summary says they wait for the build."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\n"
            "spec: {{interval: 10m, path: {path}, prune: true, "
            "sourceRef: {{kind: GitRepository, name: flux-system}}}}\n")
    files = {"clusters/home/sync.yaml": sync.format(name="flux-system", path="./clusters/home")
             + "---\n" + sync.format(name="apps", path="./apps"),
             "apps/kustomization.yaml": "resources: [shop, ops]\n"}
    for ns in ("shop", "ops"):
        files[f"apps/{ns}/kustomization.yaml"] = "resources: [a.yaml]\n"
        files[f"apps/{ns}/a.yaml"] = (deployment("web", ns, "{app: web}") + deployment(
            "api", ns, "{app: api}", "ports: [{containerPort: 8080}]")
            + POLICY.replace("shop", ns))
    repo = GitRepo(tmp_path / "repo")
    old = repo.commit(files)
    typo = repo.commit({"apps/kustomization.yaml": "resources: [shpo, ops]\n"})
    args = ["review", "--repo", str(repo.path), "--base", old, "--platform", "none",
            "--format", "json"]
    _, out, _ = run_cli([*args, "--head", typo], capsys)
    assert json.loads(out)["connectivity_diff"] == []
    removed = repo.commit({"apps/kustomization.yaml": "resources: [ops, gone]\n"})
    _, out, _ = run_cli([*args, "--head", removed], capsys)
    assert {(c["source"], c["destination"]) for c in json.loads(out)["connectivity_diff"]
            } >= {("shop/web[Deployment]", "shop/api[Deployment]")}
    _, out, _ = run_cli([*args[:-2], "--head", removed], capsys)
    assert "connectivity once the head builds: " in out


def test_markdown_and_mermaid_show_each_change() -> None:
    changes = [
        FlowChange("changed", "a/x[Deployment]", "b/y[Deployment]", "TCP 80", "TCP 80,443"),
        FlowChange("added", "{ingress-controller}", "b/y[Deployment]", "No Connections",
                   "TCP 8080"),
        FlowChange("removed", "a/x[Deployment]", "c/z[StatefulSet]", "UDP 53",
                   "No Connections"),
    ]
    md = render_markdown(changes, md_code)
    assert "| changed | `a/x[Deployment]` | `b/y[Deployment]` | TCP 80 | TCP 80,443 |" in md
    assert md.count("\n| ") == 4  # the header and three rows
    graph = render_mermaid(changes)
    assert graph.splitlines() == [
        "graph LR",
        '  n0["a/x[Deployment]"]',
        '  n1["b/y[Deployment]"]',
        '  n2["{ingress-controller}"]',
        '  n3["c/z[StatefulSet]"]',
        '  n0 ==>|"changed: TCP 80 to TCP 80,443"| n1',
        '  n2 -->|"added: TCP 8080"| n1',
        '  n0 -.->|"removed: UDP 53"| n3',
    ]
    # the review's graph says what its text says (new-user trial thirty-one: "added" edges
    # beside "opened" flows)
    from reviewbot.netpol.diff import REVIEW_WORDS

    assert [line.split("|")[1] for line in render_mermaid(changes, words=REVIEW_WORDS)
            .splitlines()[5:]] == ['"changed: TCP 80 to TCP 80,443"', '"opened: TCP 8080"',
                                   '"closed: UDP 53"']


INGRESS = """
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop}
spec:
  selector: {app: api}
  ports: [{name: http, port: 80, targetPort: web}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: api, namespace: shop}
spec:
  rules:
  - http:
      paths:
      - path: /
        pathType: Prefix
        backend: {service: {name: api, port: {name: http}}}
"""
API = deployment("api", "shop", "{app: api}", "ports: [{name: web, containerPort: 8080}]")


def test_ingress_controller_reaches_backend_target_ports(tmp_path: Path) -> None:
    net = build(tmp_path, API + INGRESS)
    assert net.controller is None  # only callers that ask for the controller get it
    net = Network(net.model, controller=IngressController())
    lines = render_connlist(connectivity(net)).splitlines()
    assert "{ingress-controller} => shop/api[Deployment] : TCP 8080" in lines
    assert not [line for line in lines if "=> {ingress-controller}" in line]


def test_ingress_controller_namespace_and_labels_meet_the_policies(tmp_path: Path) -> None:
    admit = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-in, namespace: shop}
spec:
  podSelector: {}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ingress-nginx}}
      podSelector: {matchLabels: {app.kubernetes.io/name: ingress-nginx}}
"""
    model = build(tmp_path, API + INGRESS + admit).model
    default = render_connlist(connectivity(Network(model, controller=IngressController())))
    assert "{ingress-controller} => shop/api[Deployment] : TCP 8080" in default
    traefik = IngressController("traefik", {"app.kubernetes.io/name": "traefik"})
    other = render_connlist(connectivity(Network(model, controller=traefik)))
    assert "{ingress-controller}" not in other


def test_controller_placement_comes_from_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    admit_traefik = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-in, namespace: shop}
spec:
  podSelector: {}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: traefik}}}]
"""
    (tmp_path / "m.yaml").write_text(API + INGRESS + admit_traefik)
    args = ["netpol", "connectivity", str(tmp_path), "--format", "connlist"]
    code, out, _ = run_cli(args, capsys)
    assert "{ingress-controller}" not in out  # the default namespace is not admitted
    (tmp_path / ".reviewbot.yaml").write_text(
        "netpol:\n  ingress-controller: {namespace: traefik, labels: {app: traefik}}\n"
    )
    code, out, _ = run_cli(args, capsys)
    assert "{ingress-controller} => shop/api[Deployment] : TCP 8080" in out.splitlines()
    (tmp_path / ".reviewbot.yaml").write_text("netpol:\n  ingress-controler: {}\n")
    code, _, err = run_cli(args, capsys)
    assert code == 2 and "ingress-controler" in err


def test_policy_kinds_not_evaluated_are_named_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calico = """
---
apiVersion: crd.projectcalico.org/v1
kind: NetworkPolicy
metadata: {name: l7, namespace: shop}
spec: {selector: all()}
"""
    (tmp_path / "m.yaml").write_text(API + calico)
    note = "NetworkPolicy (crd.projectcalico.org): 1 object(s) present and not evaluated"
    base = ["netpol", "connectivity", str(tmp_path)]
    _, out, err = run_cli([*base, "--format", "connlist"], capsys)
    assert note not in out and note in err  # np-guard's format stays as it is
    _, out, _ = run_cli([*base, "--format", "text"], capsys)
    assert f"note: {note}" in out
    _, out, _ = run_cli([*base, "--format", "json"], capsys)
    assert any(n.startswith(note) for n in json.loads(out)["notes"])
    for fmt in ("json", "markdown", "mermaid", "connlist"):
        _, out, err = run_cli(["netpol", "diff", str(tmp_path), str(tmp_path),
                               "--format", fmt], capsys)
        assert note in (out + err).replace("\\", ""), fmt  # markdown escapes ( and )
        # (both sides give it: said once, naming both; new-user trial seventeen read it twice)
        assert (out + err).replace("\\", "").count(note) == 1, fmt
        assert "ref1 and ref2: " in (out + err), fmt


TWO_CLUSTERS = {
    ".reviewbot.yaml": """
        clusters:
          - name: main
            paths: [main]
          - name: utility
            paths: [utility]
        """,
    "main/kustomization.yaml": "resources: [apps.yaml]\n",
    # a same-named namespace pair in main: its pods never meet utility's
    "main/apps.yaml": (deployment("autobrr", "downloads", "{app: autobrr}")
                       + deployment("caddy", "network", "{app: caddy}")
                       + deployment("hass", "home-automation", "{app: hass}")),
    "utility/kustomization.yaml": "resources: [apps.yaml]\n",
    "utility/apps.yaml": (deployment("zigbee", "home-automation", "{app: zigbee}")
                          + deployment("proxy", "network", "{app: proxy}")
                          + deployment("hass", "home-automation", "{app: hass}",
                                       "ports: [{containerPort: 8123}]")),
}
ONLY_NETWORK = """
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: hass-ingress, namespace: home-automation}
spec:
  endpointSelector: {matchLabels: {app: hass}}
  ingress:
  - fromEndpoints: [{matchLabels: {k8s:io.kubernetes.pod.namespace: network}}]
    toPorts: [{ports: [{port: "8123", protocol: TCP}]}]
"""


def test_flows_are_computed_per_cluster(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Pods of two clusters never reach each other by a namespace selector: a policy added in
    utility closes and changes utility's flows only, each named with its cluster; main's
    downloads/autobrr -> home-automation/hass (a same-named pair) stays as it was, and main's
    pods are no callers of utility's hass."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit(TWO_CLUSTERS)
    head = repo.commit({"utility/kustomization.yaml": "resources: [apps.yaml, policy.yaml]\n",
                        "utility/policy.yaml": ONLY_NETWORK})
    hass = "home-automation/hass[Deployment]"
    expected = [
        {"diff_type": "changed", "source": "network/proxy[Deployment]", "destination": hass,
         "ref1": "All Connections", "ref2": "TCP 8123", "cluster": "utility"},
        {"diff_type": "removed", "source": "0.0.0.0-255.255.255.255[External]",
         "destination": hass, "ref1": "All Connections", "ref2": "No Connections",
         "cluster": "utility"},
        {"diff_type": "removed", "source": "home-automation/zigbee[Deployment]",
         "destination": hass, "ref1": "All Connections", "ref2": "No Connections",
         "cluster": "utility"},
    ]
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "json"], capsys)
    assert json.loads(out)["connectivity_diff"] == expected
    code, out, _ = run_cli(["netpol", "diff", base, head, "--repo", str(repo.path),
                            "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["connectivity_diff"] == expected
    code, out, _ = run_cli(["netpol", "diff", base, head, "--repo", str(repo.path)], capsys)
    assert out.splitlines()[1] == (
        "diff-type: changed, source: network/proxy[Deployment], destination: "
        f"{hass}, ref1: All Connections, ref2: TCP 8123, cluster: utility")
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "markdown"], capsys)
    assert "### Connectivity (2 closed, 1 changed flows)" in out
    assert ("- in cluster `utility`: `home-automation/zigbee` → `home-automation/hass`: closed "
            "(was all ports)") in out
    repo.git("checkout", "-q", head)
    code, out, _ = run_cli(["netpol", "connectivity", str(repo.path), "--format", "json"],
                           capsys)
    into_hass = {(f["cluster"], f["src"], f["connections"])
                 for f in json.loads(out)["flows"] if f["dst"] == hass}
    assert into_hass == {("main", "downloads/autobrr[Deployment]", "All Connections"),
                         ("main", "network/caddy[Deployment]", "All Connections"),
                         ("main", "0.0.0.0-255.255.255.255[External]", "All Connections"),
                         ("utility", "network/proxy[Deployment]", "TCP 8123")}


def test_two_workloads_gone_together_are_said_in_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial twenty-one: a PR removing a CronJob and the Redis it alone called
    failed the summary (KeyError: the CronJob's one flow was kept under Redis only), and
    with `--platform none` the job exited 0 with nothing shown. Each gone workload is said
    with its flows."""
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("FORGEJO_EVENT_PATH", raising=False)
    report = """
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: report, namespace: shop}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        metadata: {labels: {app: report}}
        spec: {restartPolicy: Never, containers: [{name: main, image: x}]}
"""
    redis = deployment("redis", "shop", "{app: redis}", "ports: [{containerPort: 6379}]")
    web = deployment("web", "shop", "{app: web}")
    policy = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: shop}
spec: {podSelector: {}, policyTypes: [Ingress, Egress]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: to-redis, namespace: shop}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
  - to: [{podSelector: {matchLabels: {app: redis}}}]
    ports: [{port: 6379}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: redis-in, namespace: shop}
spec:
  podSelector: {matchLabels: {app: redis}}
  ingress:
  - from: [{podSelector: {matchLabels: {app: report}}}, {podSelector: {matchLabels: {app: web}}}]
    ports: [{port: 6379}]
"""
    repo = GitRepo(tmp_path / "repo")
    old = repo.commit({"a.yaml": web + redis + report + policy})
    new = repo.commit({"a.yaml": web + policy})
    code, md, err = run_cli(["review", "--repo", str(repo.path), "--base", old, "--head", new,
                             "--platform", "none", "--format", "markdown"], capsys)
    assert code == 0, err
    assert "- `shop/report`: gone in this PR; no longer reaches `shop/redis` (TCP 6379)" in md


def test_a_policy_change_that_reaches_pods_of_an_unrendered_chart_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial fifty: the Cilium policy's ingress from llm-gateway removed, whose pods
    a chart of the tree renders (an Argo CD Application to a server-URL destination, its
    values file there): "No new problems", nothing said of what was not judged. The
    namespaces a changed policy named, the removed rule's too, have their unjudged charts
    named."""
    app = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
           "metadata: {name: gw, namespace: argocd}\nspec:\n  project: default\n"
           "  source: {repoURL: 'https://git.example.org/ops.git', path: charts/gw, "
           "helm: {valueFiles: [values-prod.yaml]}}\n"
           "  destination: {server: 'https://prod.example.org:6443', namespace: gw}\n"
           "---\napiVersion: argoproj.io/v1alpha1\nkind: Application\n"
           "metadata: {name: llm, namespace: argocd}\nspec:\n  project: default\n"
           "  source: {repoURL: 'https://git.example.org/ops.git', path: llm}\n"
           "  destination: {server: 'https://prod.example.org:6443', namespace: llm}\n")
    policy = ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
              "metadata: {name: llm, namespace: llm}\nspec:\n  podSelector: {}\n"
              "  policyTypes: [Ingress]\n  ingress:\n  - from: [{namespaceSelector: "
              "{matchLabels: {kubernetes.io/metadata.name: web}}}]\n")
    gateway = ("  - from: [{namespaceSelector: {matchLabels: "
               "{kubernetes.io/metadata.name: gw}}}]\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "argocd/apps.yaml": app,
        "charts/gw/Chart.yaml": "apiVersion: v2\nname: gw\nversion: 1.0.0\n",
        "charts/gw/values.yaml": "image: {repository: gw, tag: '1'}\n",
        "charts/gw/values-prod.yaml": "replicaCount: 2\n",
        "charts/gw/templates/deploy.yaml": "kind: Deployment\nmetadata: {name: "
                                           "'{{ .Release.Name }}'}\n",
        "llm/policy.yaml": policy + gateway,
        "llm/vllm.yaml": deployment("vllm", "llm", "{app: vllm}").lstrip("-\n")})
    head = repo.commit({"llm/policy.yaml": policy})
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "markdown"], capsys)
    assert "not evaluated: the pods chart gw renders in gw \\(values " in out


def test_the_cluster_a_head_keeps_alone_keeps_its_flows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial seventy: an ApplicationSet's selector no longer matching its edge
    clusters left the head one cluster, unnamed: every flow of in-cluster was "closed
    (cluster in-cluster)" and "opened" again, "10 gone". Only the edge clusters' flows go."""
    root = ("apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
            "metadata: {name: root, namespace: argocd}\nspec:\n"
            "  source: {repoURL: https://git.example/repo.git, path: argocd}\n"
            "  destination: {server: https://kubernetes.default.svc, namespace: argocd}\n")
    shop = root.replace("name: root", "name: shop").replace("path: argocd", "path: shop")
    appset = ("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\n"
              "metadata: {name: guestbook, namespace: argocd}\nspec:\n  generators:\n"
              "  - clusters: {selector: {matchLabels: {env: ENV}}}\n  template:\n"
              "    metadata: {name: 'guestbook-{{name}}'}\n    spec:\n"
              "      source: {repoURL: https://git.example/repo.git, path: guestbook}\n"
              "      destination: {server: '{{server}}', namespace: guestbook}\n")
    secret = ("apiVersion: v1\nkind: Secret\nmetadata: {name: edge-a, namespace: argocd, "
              "labels: {argocd.argoproj.io/secret-type: cluster, env: edge}}\n"
              "stringData: {name: edge-a, server: 'https://a.example:6443'}\n")
    pods = (deployment("web", "shop", "{app: web}")
            + deployment("api", "shop", "{app: api}", "ports: [{containerPort: 8080}]"))
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"root.yaml": root, "argocd/shop.yaml": shop,
                        "argocd/appset.yaml": appset.replace("ENV", "edge"),
                        "argocd/edge-a.yaml": secret, "shop/a.yaml": pods + POLICY,
                        "guestbook/a.yaml": deployment("guestbook", "guestbook", "{app: gb}")})
    head = repo.commit({"argocd/appset.yaml": appset.replace("ENV", "egde")})
    code, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                            "--platform", "none", "--format", "json"], capsys)
    flows = json.loads(out)["connectivity_diff"]
    assert flows and all(f.get("cluster") == "edge-a" and f["diff_type"] == "removed"
                         for f in flows), flows


def test_a_note_several_views_of_one_cluster_give_names_that_cluster_once() -> None:
    """New-user trial eighty W7: "(clusters dev, dev, dev, prod, prod, prod, staging, ...)":
    each of a cluster's views gave the note; a note of every cluster names none."""
    note = "not evaluated: chart x"
    assert merged_note(note, ["dev", "dev", "prod", "prod"], 3) == (
        "not evaluated: chart x (clusters dev, prod)")
    assert merged_note(note, ["dev", "dev", "prod", "staging"], 3) == note
