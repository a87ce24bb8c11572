"""netpol-pairing: flows that only one side allows, written as a specification.

The seed states (tests/fixtures/seed-repo/*; step0 is examples/ with markers) carry
`# expect: netpol-pairing` on the lines hand-derived in tests/fixtures/seed-repo/EXPECTED.md;
the inline cases below pin the three sub-checks, their severities, the wording and what
counts as unknown.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reviewbot.config import Config
from reviewbot.engine.run import Result, analyze
from reviewbot.netpol.deps import HOST_PORT, URL, endpoints
from reviewbot.sources.tree import disk_tree

from .helpers import (
    GitRepo,
    deployment,
    expected_pairs,
    lint_dir,
    lint_text,
    pairs,
    run_cli,
    write,
)

RULE = "netpol-pairing"
ROOT = Path(__file__).resolve().parents[1]
STATES = [ROOT / "tests/fixtures/seed-repo/step0"] + [
    ROOT / "tests/fixtures/seed-repo" / s for s in ("step1", "step2", "ingress-only")
]


@pytest.mark.parametrize("state", [s for s in STATES if s.is_dir()], ids=lambda p: p.name)
def test_seed_states(state: Path) -> None:
    # The states' own .reviewbot.yaml configures other rules; this rule needs no option.
    result = analyze(disk_tree([state], state), Config(), only=[RULE])
    got = sorted((f.file, f.line) for f in result.findings)
    assert got == expected_pairs(state, RULE), [f.message for f in result.findings]


def test_examples_findings_in_detail() -> None:
    state = ROOT / "examples"
    if not state.is_dir():
        pytest.skip("examples/ not present")
    result = analyze(disk_tree([state], state), Config(), only=[RULE])
    egress = [f for f in result.findings if f.file.endswith("poimen/networkpolicy.yaml")]
    # the destinations are made only by llm-serving's build, which kustomize refuses
    # (ornith.yaml does not exist): whether the cluster runs them could not be seen
    assert [(f.severity, f.line, f.column) for f in egress] == [("warning", 32, 7)] * 3
    assert sorted(f.message.split(" to ")[1].split(" ")[0] for f in egress) == [
        "llm-serving/embeddings-predictor", "llm-serving/reasoning-predictor",
        "llm-serving/reranker-predictor",
    ]
    assert "on TCP 8080 has no matching ingress in llm-serving. Not certain: reviewbot could " \
           "not see whether the cluster runs llm-serving/" in egress[0].message
    # and so is llm-serving's ingress policy, which alone isolates them: the denial rests on
    # a policy that may not be in the cluster
    assert egress[0].message.endswith(
        ": the build of k8s/apps/llm-serving fails (kustomization.yaml: 'ornith.yaml' does "
        "not exist), so none of it is applied until it builds; whether the cluster has "
        "NetworkPolicy llm-serving/llm-serving-ingress: without it, the flow is allowed (also "
        "of that failing build).")
    assert egress[0].fix == "Add an ingress rule in llm-serving admitting namespace poimen on 8080."
    assert len({f.fingerprint for f in egress}) == 3  # one per destination, told apart
    env = [f for f in result.findings if f.file.endswith("poimen-memory.yaml")]
    assert [f.line for f in env] == [35, 39, 41]
    assert env[0].message == (
        "poimen/poimen-memory calls reasoning-predictor.llm-serving.svc.cluster.local:80 "
        "(llm-serving/reasoning-predictor on TCP 8080), but no ingress rule in llm-serving "
        "admits it. Not certain: reviewbot could not see whether the cluster runs "
        "llm-serving/reasoning-predictor: the build of k8s/apps/llm-serving fails "
        "(kustomization.yaml: 'ornith.yaml' does not exist), so none of it is applied until "
        "it builds; whether the cluster has NetworkPolicy llm-serving/llm-serving-ingress: "
        "without it, the flow is allowed (also of that failing build)."
    )


SHOP_TREE = {
    "apps/kustomization.yaml": "resources: [web.yaml, api.yaml]\n",
    "apps/web.yaml": """
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
                  image: web:1.0
                  env: [{name: API_URL, value: "http://api.shop.svc.cluster.local:8080"}]
        """,
    "apps/api.yaml": """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: api, namespace: shop}
        spec:
          selector: {matchLabels: {app: api}}
          template:
            metadata: {labels: {app: api}}
            spec:
              containers: [{name: api, image: api:1.0, ports: [{containerPort: 8080}]}]
        ---
        apiVersion: v1
        kind: Service
        metadata: {name: api, namespace: shop}
        spec:
          selector: {app: api}
          ports: [{port: 8080}]
        """,
}
ISOLATE_API = """
    apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata: {name: api-isolated, namespace: shop}
    spec:
      podSelector: {matchLabels: {app: api}}
      policyTypes: [Ingress]
    """
ADMIT_WEB = """
    apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata: {name: api-from-web, namespace: shop}
    spec:
      podSelector: {matchLabels: {app: api}}
      ingress:
        - from: [{podSelector: {matchLabels: {app: web}}}]
          ports: [{port: 8080}]
    """


def _shop(tmp_path: Path, built: dict[str, str], failing: dict[str, str],
          ) -> list[tuple[str, str, int, str]]:
    """shop/web calls api:8080; the policies ``built`` are in apps' build, the ``failing``
    ones in policies/, whose build kustomize refuses (gone.yaml does not exist)."""
    files = dict(SHOP_TREE)
    files["apps/kustomization.yaml"] = f"resources: {['web.yaml', 'api.yaml', *built]}\n"
    files.update({f"apps/{n}": text for n, text in built.items()})
    files["policies/kustomization.yaml"] = f"resources: {[*failing, 'gone.yaml']}\n"
    files.update({f"policies/{n}": text for n, text in failing.items()})
    write(tmp_path, files)
    result = analyze(disk_tree([tmp_path], tmp_path), Config(), only=[RULE])
    return [(f.severity, f.file, f.line, f.message) for f in result.findings]


FAILS = ("(the build of policies fails (kustomization.yaml: 'gone.yaml' does not exist), so "
         "none of it is applied until it builds).")
CALLS = ("shop/web calls api.shop.svc.cluster.local:8080 (shop/api on TCP 8080), but no "
         "ingress rule in shop admits it")


def test_a_denial_only_a_policy_of_a_failing_build_makes_is_a_warning(tmp_path: Path) -> None:
    """shop/api is isolated only by api-isolated, whose build kustomize refuses: the cluster
    holds it as an earlier revision built it, or not at all, so web's call is denied only if
    it is there."""
    assert _shop(tmp_path, {}, {"isolate.yaml": ISOLATE_API}) == [
        ("warning", "apps/web.yaml", 12, f"{CALLS}. Not certain: reviewbot could not see "
         "whether the cluster has NetworkPolicy shop/api-isolated: without it, the flow is "
         f"allowed {FAILS}")]


def test_a_denial_a_built_policy_makes_too_stays_an_error(tmp_path: Path) -> None:
    # a policy of a failing build only adds allow rules or isolation: a built one isolates
    # api and admits nothing, so the call is denied whatever the failing build holds
    assert _shop(tmp_path, {"isolate.yaml": ISOLATE_API},
                 {"isolate-too.yaml": ISOLATE_API.replace("api-isolated", "api-too")}) == [
        ("error", "apps/web.yaml", 12, CALLS)]


def test_a_flow_only_a_policy_of_a_failing_build_admits_is_a_warning(tmp_path: Path) -> None:
    """api-isolated is applied and admits nothing; api-from-web, which admits web, is of a
    failing build: the cluster receives the isolation and not the admission (it may hold an
    earlier revision of it), so the call is denied unless it does."""
    assert _shop(tmp_path, {"isolate.yaml": ISOLATE_API}, {"admit.yaml": ADMIT_WEB}) == [
        ("warning", "apps/web.yaml", 12, f"{CALLS}. Not certain: reviewbot could not see "
         "whether the cluster still has NetworkPolicy shop/api-from-web from an earlier "
         f"revision: with it, the flow is allowed {FAILS}")]
    # its fix is the failing build's (new-user trial forty-six was told to remove an ingress
    # rule the app's own waiting egress policy matched)
    result = analyze(disk_tree([tmp_path], tmp_path), Config(), only=[RULE])
    assert [f.fix for f in result.findings] == [
        "Fix what keeps NetworkPolicy shop/api-from-web from being applied (the build of "
        "policies fails (kustomization.yaml: 'gone.yaml' does not exist)): with it, the flow "
        "is allowed."]
    # admitted by a built policy too: allowed either way
    assert _shop(tmp_path, {"isolate.yaml": ISOLATE_API, "admit.yaml": ADMIT_WEB},
                 {"admit-too.yaml": ADMIT_WEB.replace("api-from-web", "again")}) == []


# ---------------------------------------------------------------- inline cases

NAMESPACES = """
apiVersion: v1
kind: Namespace
metadata: {name: client}
---
apiVersion: v1
kind: Namespace
metadata: {name: server}
"""
CLIENT = """
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: client}
spec:
  template:
    metadata: {labels: {app: app}}
    spec:
      containers:
      - name: app
        image: x
        env: [{name: API, value: "http://api.server:8080/v1"}]
"""
SERVER = """
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: server}
spec:
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: x, ports: [{name: http, containerPort: 8080}]}]
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: server}
spec:
  selector: {app: api}
  ports: [{port: 8080, targetPort: http}]
"""
CLIENT_EGRESS = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: egress, namespace: client}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: server}}
      podSelector: {matchLabels: {app: api}}
    ports: [{port: 8080}]
  - to: [{namespaceSelector: {}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]
    ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]
"""
SERVER_INGRESS = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: ingress, namespace: server}
spec:
  podSelector: {}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: client}}
    ports: [{port: http}]
"""
DENY_SERVER = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: server}
spec:
  podSelector: {}
  policyTypes: [Ingress]
"""
DENY_CLIENT = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: client}
spec:
  podSelector: {}
  policyTypes: [Egress]
"""


def run(tmp_path: Path, text: str) -> Result:
    return lint_text(tmp_path, text, only=[RULE])


def line_of(tmp_path: Path, needle: str, nth: int = 0) -> int:
    """The line of the nth occurrence of ``needle`` in the linted manifest."""
    numbers = [n for n, line in enumerate((tmp_path / "manifest.yaml").read_text().splitlines(), 1)
               if needle in line]
    return numbers[nth]


def kinds(result: Result) -> list[tuple[str, str, int]]:
    return sorted((f.severity, f.path.split(" ")[0], f.line) for f in result.findings)


def test_both_halves_give_nothing(tmp_path: Path) -> None:
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + CLIENT_EGRESS + SERVER_INGRESS)
    assert pairs(result, RULE) == []


def test_egress_without_ingress_is_an_error_on_the_to_entry(tmp_path: Path) -> None:
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + CLIENT_EGRESS + DENY_SERVER)
    assert kinds(result) == [
        # the `- to:` line of the egress rule
        ("error", "spec.egress[0].to[0]", line_of(tmp_path, "- to:")),
        ("error", "spec.template.spec.containers[0].env[0].value", line_of(tmp_path, "API")),
    ]
    egress = next(f for f in result.findings if f.object == "NetworkPolicy/client/egress")
    assert egress.message == (
        "client/app: egress to server/api (pods app=api) on TCP 8080 has no matching "
        "ingress in server"
    )
    assert egress.fix == "Add an ingress rule in server admitting namespace client on 8080."
    dep = next(f for f in result.findings if f.object == "Deployment/client/app")
    assert dep.message == (
        "client/app calls api.server:8080 (server/api on TCP 8080), but no ingress rule in "
        "server admits it"
    )




def test_a_denied_call_through_a_target_port_no_pod_declares_names_it_first(
        tmp_path: Path) -> None:
    """New-user trial forty-eight: the api's Service moved to `targetPort: 8000`, its pods on
    8080, the policies admitting 8080: the caller's denial said to admit 8000, and followed
    it left the Service sending where nothing listens. The target is named first."""
    drift = SERVER.replace("ports: [{port: 8080, targetPort: http}]",
                           "ports: [{port: 8080, targetPort: 9000}]")
    result = run(tmp_path, NAMESPACES + CLIENT + drift + CLIENT_EGRESS + SERVER_INGRESS)
    dep = next(f for f in result.findings if f.object == "Deployment/client/app")
    assert dep.fix is not None and dep.fix.startswith(
        "First check Service server/api: its port 8080 sends to 9000, which no container it "
        "selects declares (they declare 8080); if they listen on 8080, set targetPort: 8080 "
        "and the policies may admit it already. Else: ")
    # and that targetPort is one of its places: a review that moved it comments there (new-
    # user trial eighty W2: the errors sat at the callers' unchanged generator entries)
    assert [(o.object, o.path.split(" ")[0]) for o in dep.others
            if o.object.startswith("Service/")] == [("Service/server/api",
                                                     "spec.ports[0].targetPort")]
    # a target the pods declare: the policies are the fix
    result = run(tmp_path / "declared", NAMESPACES + CLIENT + SERVER + CLIENT_EGRESS
                 + DENY_SERVER)
    assert not any("First check" in (f.fix or "") for f in result.findings)


def test_an_absolute_name_is_no_service_address(tmp_path: Path) -> None:
    """New-user trial forty-nine: `https://chat.${DOMAIN}`, its variable Flux wrote empty, was
    "calls chat.:443, but no Service chat/chat". A name ending in a dot is looked up as
    written, never in the pod's search domains: no Service, unless it is one's full name."""
    absolute = CLIENT.replace("http://api.server:8080/v1", "http://api.server.:8080/v1")
    result = run(tmp_path, NAMESPACES + absolute + SERVER + CLIENT_EGRESS + DENY_SERVER)
    assert not any(f.object == "Deployment/client/app" for f in result.findings)
    full = CLIENT.replace("http://api.server:8080/v1",
                          "http://api.server.svc.cluster.local.:8080/v1")
    result = run(tmp_path / "full", NAMESPACES + full + SERVER + CLIENT_EGRESS + DENY_SERVER)
    assert any(f.object == "Deployment/client/app" for f in result.findings)

def test_a_kyverno_rule_generating_network_policies_makes_a_denial_a_warning(
        tmp_path: Path) -> None:
    """Judge round CA: project-cantaloupe's Kyverno ClusterPolicy generates
    `allow-same-namespace` in every namespace; six calls within `monitoring` were "denied",
    errors. The policies the tree shows are not all the cluster has: a warning saying so.
    A Kyverno policy generating something else changes nothing."""
    kyverno = """
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: default-policies}
spec:
  rules:
  - name: allow-same-namespace
    match: {any: [{resources: {kinds: [Namespace]}}]}
    generate:
      apiVersion: networking.k8s.io/v1
      kind: NetworkPolicy
      name: allow-same-namespace
      namespace: "{{request.object.metadata.name}}"
      synchronize: true
      data: {spec: {podSelector: {}, ingress: [{from: [{podSelector: {}}]}]}}
"""
    text = NAMESPACES + CLIENT + SERVER + CLIENT_EGRESS + DENY_SERVER
    result = run(tmp_path / "generated", text + kyverno)
    assert kinds(result) == [
        ("warning", "spec.egress[0].to[0]", line_of(tmp_path / "generated", "- to:")),
        ("warning", "spec.template.spec.containers[0].env[0].value",
         line_of(tmp_path / "generated", "API"))]
    assert all(f.message.endswith(
        "Not certain: reviewbot could not see what the NetworkPolicies Kyverno ClusterPolicy "
        "default-policies generate allow (reviewbot does not run Kyverno's generate rules).")
        for f in result.findings)
    quota = kyverno.replace("kind: NetworkPolicy", "kind: ResourceQuota")
    assert [s for s, _, _ in kinds(run(tmp_path / "quota", text + quota))] == ["error", "error"]

def test_ingress_without_egress_is_a_warning_on_the_from(tmp_path: Path) -> None:
    result = run(tmp_path, NAMESPACES + CLIENT.replace("http://api.server:8080/v1", "none")
                 + SERVER + SERVER_INGRESS + DENY_CLIENT)
    # the deny-all egress also cuts DNS (f): a warning, as client/app names no address
    assert kinds(result) == [
        ("warning", "spec.ingress[0].from", line_of(tmp_path, "- from:")),
        ("warning", "spec.policyTypes", line_of(tmp_path, "policyTypes: [Egress]")),
    ]
    unused = next(f for f in result.findings if f.path == "spec.ingress[0].from")
    assert unused.message == (
        "server/ingress: ingress admits client/app to every pod in server on TCP http, but "
        "the egress policies of client allow none of these flows"
    )


def test_dependency_denied_by_egress_names_the_egress_side(tmp_path: Path) -> None:
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + SERVER_INGRESS + DENY_CLIENT)
    # the ingress rule is unused too (b), the declared flow is denied (c), and the deny-all
    # egress cuts DNS for a pod that names an address (f)
    assert kinds(result) == [
        ("error", "spec.policyTypes", line_of(tmp_path, "policyTypes: [Egress]")),
        ("error", "spec.template.spec.containers[0].env[0].value", line_of(tmp_path, "API")),
        ("warning", "spec.ingress[0].from", line_of(tmp_path, "- from:")),
    ]
    dep = next(f for f in result.findings if f.severity == "error")
    assert dep.message.endswith("but no egress rule in client allows it")
    assert dep.fix == (
        "Add an egress rule in client allowing client/app to reach server/api on 8080."
    )


def test_unknown_service_and_unknown_namespace_are_not_findings(tmp_path: Path) -> None:
    text = NAMESPACES + CLIENT.replace("api.server:8080", "grafana.monitoring.svc:3000") + (
        DENY_CLIENT + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: dns, namespace: client}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}
"""
    )
    assert pairs(run(tmp_path, text), RULE) == []


def test_port_not_admitted_is_still_unpaired(tmp_path: Path) -> None:
    ingress_9090 = SERVER_INGRESS.replace("port: http", "port: 9090")
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + CLIENT_EGRESS + ingress_9090)
    # both halves disagree on the port: the egress rule (8080) is unpaired, the ingress rule
    # (9090) admits nothing client's egress lets out, and the declared flow is denied
    assert [k[:2] for k in kinds(result)] == [
        ("error", "spec.egress[0].to[0]"),
        ("error", "spec.template.spec.containers[0].env[0].value"),
        ("warning", "spec.ingress[0].from"),
    ]
    egress = next(f for f in result.findings if f.object == "NetworkPolicy/client/egress")
    assert egress.fix == (
        "Widen the ingress rule spec.ingress[0] of server/ingress to admit namespace client "
        "on 8080."
    )
    # the declared flow's fix says the port is what is missing (new-user trial twenty-one:
    # "widen ... on 6379" of a rule that admits the caller on 6380)
    declared = next(f for f in result.findings if "env" in f.path)
    assert declared.fix == (
        "Admit 8080 in the ingress rule spec.ingress[0] of server/ingress: it admits namespace "
        "client on TCP 9090 only.")


def test_a_rule_admitting_the_namespace_but_not_the_caller_s_pods_says_which_selector(
        tmp_path: Path) -> None:
    # new-user trial sixteen: a podSelector added beside the caller's namespace keeps the
    # caller out; "admit namespace client" told of a rule that names client already
    narrowed = SERVER_INGRESS.replace(
        "- namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: client}}",
        "- namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: client}}\n"
        "      podSelector: {matchLabels: {app: open-webui}}")
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + narrowed)
    (denied,) = [f for f in result.findings if f.severity == "error"]
    assert denied.fix == (
        "Widen the ingress rule spec.ingress[0] of server/ingress to admit client/app on "
        "8080: its from[0].podSelector app=open-webui selects no pod of client/app (whose "
        "pods carry app=app).")
    # its place in the policy is the label that keeps the caller out, where a review comments
    # when the pull request changed it (new-user trial seventy D6: at `ingress:` before)
    assert [(o.object, o.path.split(" -> ")[0], o.line) for o in denied.others] == [(
        "NetworkPolicy/server/ingress", "spec.ingress[0].from[0].podSelector.matchLabels.app",
        line_of(tmp_path, "podSelector: {matchLabels: {app: open-webui}}"))]


def test_configmap_key_and_named_target_port(tmp_path: Path) -> None:
    text = NAMESPACES + SERVER + DENY_SERVER + """
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: client}
data:
  upstream: |
    [api]
    url = http://api.server.svc.cluster.local:8080
  unrelated: "api.server:9999"
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: client}
spec:
  template:
    metadata: {labels: {app: app}}
    spec:
      containers:
      - name: app
        image: x
        env:
        - name: UPSTREAM
          valueFrom: {configMapKeyRef: {name: cfg, key: upstream}}
"""
    result = run(tmp_path, text)
    assert [(f.object, f.path.split(" ")[0], f.line) for f in result.findings] == [
        ("ConfigMap/client/cfg", "data.upstream", line_of(tmp_path, "upstream: |")),
    ]
    assert "(server/api on TCP 8080)" in result.findings[0].message


def test_no_network_policy_no_finding(tmp_path: Path) -> None:
    assert pairs(run(tmp_path, NAMESPACES + CLIENT + SERVER), RULE) == []


def test_ip_block_ingress_may_admit_pods(tmp_path: Path) -> None:
    # Whether an ipBlock matches pod addresses depends on the network plugin: unknown.
    ip_ingress = SERVER_INGRESS.replace(
        "- namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: client}}",
        "- ipBlock: {cidr: 10.0.0.0/8}",
    )
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + CLIENT_EGRESS + ip_ingress)
    assert pairs(result, RULE) == []


# ---------------------------------------------------------------- endpoints


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("http://svc.ns.svc.cluster.local:8080/v1", [("svc", "ns", 8080)]),
        ("http://reasoning-predictor.llm-serving.svc.cluster.local/v1",
         [("reasoning-predictor", "llm-serving", 80)]),
        ("https://svc.ns.svc", [("svc", "ns", 443)]),
        ("svc.ns.svc:80", [("svc", "ns", 80)]),
        ("svc.ns:443", [("svc", "ns", 443)]),
        ("svc:8080", [("svc", "own", 8080)]),
        ("postgres://user:pw@db.data:5432/app", [("db", "data", 5432)]),
        ("redis://cache", [("cache", "own", 6379)]),
        ("pg-0.db.data.svc.cluster.local:5432", [("db", "data", 5432)]),
        ("--upstream=api.server.svc:8080,api2:9090", [("api", "server", 8080),
                                                      ("api2", "own", 9090)]),
        ("nginx:1.27", []),  # an image tag, not a port
        ("12:30", []),
        ("a.b.c.example.com:443", []),  # not an in-cluster name
        ("plain text", []),
    ],
)
def test_endpoints(text: str, want: list[tuple[str, str, int]]) -> None:
    assert [(e.service, e.namespace, e.port) for e in endpoints(text, "own")] == want


@given(st.text(alphabet="ab-.:/@0189 \n", max_size=40))
def test_endpoints_searched_only_where_a_pattern_can_match(text: str) -> None:
    """``endpoints`` skips a text without ":" and the URL search of one without "://": each
    pattern matches nothing there."""
    if "://" not in text:
        assert next(URL.finditer(text), None) is None
    if ":" not in text:
        assert next(HOST_PORT.finditer(text), None) is None
        assert endpoints(text, "own") == ()


DB = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: x}]
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: data}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{port: 5432, targetPort: 6543}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: db, namespace: data}
spec:
  podSelector: {}
  ingress:
  - ports: [{port: 5432}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: data}
spec:
  template:
    metadata: {labels: {app: app}}
    spec:
      containers:
      - name: app
        image: x
        env: [{name: DB, value: "postgres://app@db:5432/app"}]
"""


def test_headless_service_is_dialled_on_the_named_port(tmp_path: Path) -> None:
    # a headless name resolves to the pods: the client dials 5432, which db admits
    assert pairs(run(tmp_path, DB), RULE) == []


def test_cluster_ip_service_goes_to_the_target_port(tmp_path: Path) -> None:
    result = run(tmp_path, DB.replace("  clusterIP: None\n", ""))
    assert [f.message for f in result.findings] == [
        "data/app calls db:5432 (data/db on TCP 6543), but no ingress rule in data admits it"
    ]


def test_host_network_pods_are_unknown(tmp_path: Path) -> None:
    text = DB.replace("  clusterIP: None\n", "").replace(
        "    spec:\n      containers:\n      - name: app",
        "    spec:\n      hostNetwork: true\n      containers:\n      - name: app",
    )
    assert "hostNetwork: true" in text
    assert pairs(run(tmp_path, text), RULE) == []


# ---------------------------------------------------------------- the fast path's equivalence


def _mixed_namespace(n: int) -> str:
    """``n`` workloads in one namespace, each allowed out to every ``tier: api`` pod (on a port
    number, on a named port every third policy, or without ports), each admitting only some
    callers: the one before it, every fifth one its whole namespace, every seventh one a
    denied port through a CiliumNetworkPolicy ingressDeny; plus a namespace-wide egress entry
    towards a second namespace whose one workload admits nothing."""
    docs = ["apiVersion: v1\nkind: Namespace\nmetadata: {name: dense}",
            "apiVersion: v1\nkind: Namespace\nmetadata: {name: other}",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: lone, namespace: other}\n"
            "spec:\n  selector: {matchLabels: {app: lone}}\n  template:\n"
            "    metadata: {labels: {app: lone}}\n"
            "    spec: {containers: [{name: c, image: x, ports: [{containerPort: 80}]}]}",
            "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
            "metadata: {name: lone, namespace: other}\n"
            "spec: {podSelector: {}, policyTypes: [Ingress]}"]
    for i in range(n):
        ports = ("[{protocol: TCP, port: http}]" if i % 3 == 1 else
                 "[{protocol: TCP, port: 8080}]")
        egress = "    - to: [{podSelector: {matchLabels: {tier: api}}}]\n"
        egress += f"      ports: {ports}\n" if i % 3 != 2 else ""
        if i % 4 == 0:
            egress += ("    - to: [{namespaceSelector: {matchLabels: "
                       "{kubernetes.io/metadata.name: other}}}]\n")
        source = ("{podSelector: {}}" if i % 5 == 0 else
                  f"{{podSelector: {{matchLabels: {{app: w{(i - 1) % n}}}}}}}")
        docs.append(
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: w{i}, namespace: dense}}\n"
            f"spec:\n  selector: {{matchLabels: {{app: w{i}}}}}\n  template:\n"
            f"    metadata: {{labels: {{app: w{i}, tier: api}}}}\n    spec:\n      containers:\n"
            f"        - {{name: c, image: x, ports: [{{name: http, containerPort: 8080}}]}}")
        docs.append(
            f"apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
            f"metadata: {{name: w{i}, namespace: dense}}\nspec:\n"
            f"  podSelector: {{matchLabels: {{app: w{i}}}}}\n  policyTypes: [Ingress, Egress]\n"
            f"  egress:\n{egress}  ingress:\n    - from: [{source}]\n"
            f"      ports: [{{protocol: TCP, port: 8080}}]")
        if i % 7 == 3:
            docs.append(
                f"apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\n"
                f"metadata: {{name: deny-w{i}, namespace: dense}}\nspec:\n"
                f"  endpointSelector: {{matchLabels: {{app: w{i}}}}}\n"
                f"  ingressDeny: [{{fromEndpoints: [{{}}], "
                f"toPorts: [{{ports: [{{port: '8080', protocol: TCP}}]}}]}}]")
    return "\n---\n".join(docs) + "\n"


def test_destination_rows_give_what_asking_each_caller_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Callers whose `to:` entry names the same pods on the same connections share one row per
    destination (group key and admitted sources, worked out once); the findings are those of
    judging every (caller, destination) on its own, which the fallback path does."""
    from reviewbot.rules import netpol_pairing

    text = _mixed_namespace(24)
    fast = run(tmp_path / "fast", text)
    monkeypatch.setattr(netpol_pairing._Memo, "rows", lambda *args: None)
    each = run(tmp_path / "each", text)
    assert fast.findings == each.findings
    kinds_seen = {f.path.split(" ")[0] for f in fast.findings}
    assert len(fast.findings) > 24 and kinds_seen  # the shapes above do give findings
    assert any("other workloads" in f.message for f in fast.findings)


# ---------------------------------------------------------------- d. calls to no Service (review)

SHOP = """
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
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
        image: x
        env:
        - {name: CATALOG_ADDR, value: "catalog:3550"}
        - {name: CART_ADDR, value: "cart.shop.svc.cluster.local:7070"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: catalog, namespace: shop}
spec:
  selector: {matchLabels: {app: catalog}}
  template:
    metadata: {labels: {app: catalog}}
    spec:
      containers: [{name: catalog, image: x, ports: [{containerPort: 3550}]}]
"""
CATALOG = """
apiVersion: v1
kind: Service
metadata: {{name: {name}, namespace: shop}}
spec:
  selector: {{app: catalog}}
  ports: [{{port: 3550}}]
"""


def review_findings(repo: GitRepo, base: str, head: str,
                    capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "json", "--rule", RULE], capsys)
    assert code in (0, 1), err
    return [f for f in json.loads(out)["findings"] if f["rule"] == RULE]


def shop_repo(tmp_path: Path, extra: str = "") -> tuple[GitRepo, str]:
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"shop.yaml": SHOP + extra,
                        "catalog.yaml": CATALOG.format(name="catalog")})
    return repo, base


def test_a_call_to_a_service_the_change_renames_is_an_error_at_the_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, base = shop_repo(tmp_path)
    head = repo.commit({"catalog.yaml": CATALOG.format(name="product-catalog")})
    found = review_findings(repo, base, head, capsys)
    line = SHOP.lstrip("\n").splitlines().index('        - {name: CATALOG_ADDR, value: '
                                                '"catalog:3550"}') + 1
    assert [(f["severity"], f["file"], f["line"]) for f in found] == [
        ("error", "shop.yaml", line)]
    assert found[0]["message"] == (
        "shop/web calls catalog:3550, but Service shop/catalog is no longer in this cluster: "
        "this change removes it (Service shop/product-catalog selects the same pods)")
    assert found[0]["fix"] == (
        "Point the address at product-catalog or keep the Service named catalog.")


def test_a_doubted_call_is_doubted_at_the_service_port_the_change_moved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trial 84 D4: a call a lint gives as a warning (its doubt: a chart's values, a URL on its
    scheme's port) was an error in the review that moved the Service's port, placed at that
    port, whose own place had no doubt: one cause, two severities."""
    repo = GitRepo(tmp_path / "repo")
    web = deployment("web", "shop", "{app: web}").replace(
        "image: x", "image: x\n        env:\n"
        "        - {name: CATALOG_URL, value: 'http://catalog.shop.svc.cluster.local/v1'}")
    base = repo.commit({"shop.yaml": web,
                        "catalog.yaml": CATALOG.format(name="catalog").replace("3550", "80")})
    head = repo.commit({"catalog.yaml": CATALOG.format(name="catalog").replace("3550", "8080")})
    found = review_findings(repo, base, head, capsys)
    assert [(f["severity"], f["file"], f["line"], f["message"].split(". Not certain")[0],
             [(o["file"], o["line"]) for o in f["also"]]) for f in found] == [
        ("warning", "shop.yaml", 13, "shop/web calls http://catalog.shop.svc.cluster.local/v1 "
         "(port 80, its scheme's), but Service shop/catalog has no port 80 (it has 8080): a "
         "ClusterIP Service forwards only the ports it lists, so the connection is refused; "
         "this change took port 80 away", [("catalog.yaml", 6)])]
    assert "Not certain: reviewbot could not see whether the program calls the URL on the " \
        "port its scheme gives" in found[0]["message"]


def test_a_service_port_the_change_moves_off_the_port_its_pods_declare_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial forty-seven: Redis's Service port 6379 -> 6380 with the container's 6379
    kept; the callers' fix said to call 6380, and following it left Redis unreachable."""
    repo, base = shop_repo(tmp_path)
    moved = CATALOG.format(name="catalog").replace("{port: 3550}", "{port: 3551}")
    head = repo.commit({"catalog.yaml": moved})
    found = [f for f in review_findings(repo, base, head, capsys)
             if f["message"].startswith("Service shop/catalog: port")]
    assert [(f["severity"], f["file"], f["line"]) for f in found] == [
        ("warning", "catalog.yaml", moved.lstrip("\n").splitlines().index(
            "  ports: [{port: 3551}]") + 1)]
    assert (found[0]["message"], found[0]["fix"]) == (
        "Service shop/catalog: port 3551 now sends to TCP 3551, which no container it selects "
        "declares (they declare 3550); before this change it sent to 3550: unless the process "
        "listens on it undeclared, no connection through it reaches a pod",
        "Set targetPort: 3550 on port 3551 (the port the containers declare), or make the "
        "container listen on 3551 and declare it.")
    # a number the pods declare, or a named target port, is what they listen on: quiet
    kept = CATALOG.format(name="catalog").replace("{port: 3550}", "{port: 80, targetPort: 3550}")
    assert [f for f in review_findings(repo, base, repo.commit({"catalog.yaml": kept}), capsys)
            if f["message"].startswith("Service shop/catalog: port")] == []



def test_a_service_one_cluster_loses_names_that_cluster_and_the_shared_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trials forty-seven and forty-eight: staging's overlay dropped the cache, in a
    repository of two clusters: "no longer in this cluster" said not which, and its fix
    ("point the address at ...") changed a base file production builds too."""
    repo = GitRepo(tmp_path / "repo")
    overlay = "resources: [../../base/shop, ../../base/catalog]\n"
    base = repo.commit({
        ".reviewbot.yaml": "clusters:\n  - {name: home, paths: [overlays/home]}\n"
                           "  - {name: lab, paths: [overlays/lab]}\n",
        "base/shop/kustomization.yaml": "resources: [shop.yaml]\n", "base/shop/shop.yaml": SHOP,
        "base/catalog/kustomization.yaml": "resources: [catalog.yaml]\n",
        "base/catalog/catalog.yaml": CATALOG.format(name="catalog"),
        "overlays/home/kustomization.yaml": overlay, "overlays/lab/kustomization.yaml": overlay})
    head = repo.commit({"overlays/lab/kustomization.yaml": "resources: [../../base/shop]\n"})
    found = [f for f in review_findings(repo, base, head, capsys) if "3550" in f["message"]]
    assert [(f["file"], f["message"], f["fix"]) for f in found] == [(
        "base/shop/shop.yaml",
        "shop/web calls catalog:3550, but Service shop/catalog is no longer in cluster lab: "
        "this change removes it",
        "Restore Service shop/catalog, or point the address at the Service that replaces it. "
        "base/shop/shop.yaml is built for cluster home too, which keeps the Service: change "
        "the address in the build of cluster lab only (a patch of its overlay).")]

def test_a_service_replaced_by_an_external_name_or_never_there_gives_no_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # cart.shop:7070 names no Service on either side, in a value the change leaves alone
    repo, base = shop_repo(tmp_path)
    external = ("apiVersion: v1\nkind: Service\nmetadata: {name: catalog, namespace: shop}\n"
                "spec: {type: ExternalName, externalName: catalog.example.com}\n")
    head = repo.commit({"catalog.yaml": external})
    assert review_findings(repo, base, head, capsys) == []


def test_a_deleted_service_file_its_kustomization_still_lists_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, base = shop_repo(tmp_path)
    repo.commit({"kustomization.yaml": "resources: [shop.yaml, catalog.yaml]\n"})
    base = repo.git("rev-parse", "HEAD")
    head = repo.commit({"catalog.yaml": None})
    found = review_findings(repo, base, head, capsys)
    assert [(f["severity"], f["file"]) for f in found] == [("warning", "shop.yaml")]
    # the caller is of that build too: nothing of it is applied, said once
    assert found[0]["message"].endswith(
        "this change removes it. Not applied: the build of the repository's root folder "
        "fails (kustomization.yaml: 'catalog.yaml' does not exist), so none of this is "
        "applied until it builds.")


def test_a_value_the_change_adds_naming_no_service_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, base = shop_repo(tmp_path)
    added = SHOP.replace('        - {name: CART_ADDR',
                         '        - {name: PAY_ADDR, value: "payments:9000"}\n'
                         '        - {name: LOCAL, value: "localhost:9000"}\n'
                         '        - {name: CART_ADDR')
    head = repo.commit({"shop.yaml": added})
    found = review_findings(repo, base, head, capsys)
    assert [(f["severity"], f["line"]) for f in found] == [
        ("warning", added.lstrip("\n").splitlines().index(
            '        - {name: PAY_ADDR, value: "payments:9000"}') + 1)]
    assert found[0]["message"].startswith(
        "shop/web calls payments:9000, but no Service shop/payments is in this repository. "
        "Not certain: reviewbot could not see whether Service shop/payments comes from outside")


def test_a_value_naming_no_service_beside_one_of_a_close_name_offers_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial forty-three: `postgres-rw` changed to `postgres-r` in a DATABASE_URL
    beside Service postgres-rw: the warning said nothing of the near name."""
    repo, base = shop_repo(tmp_path)
    added = SHOP.replace('        - {name: CART_ADDR',
                         '        - {name: CAT_ADDR, value: "catalg:9000"}\n'
                         '        - {name: CART_ADDR')
    head = repo.commit({"shop.yaml": added})
    (found,) = review_findings(repo, base, head, capsys)
    assert (found["message"].split(". Not certain")[0], found["fix"]) == (
        "shop/web calls catalg:9000, but no Service shop/catalg is in this repository (did "
        "you mean catalog?)",
        "Point the address at Service shop/catalog, or add Service shop/catalg.")
    # or the one named after it with a word more (new-user trial eighty-two W2: `searxng`
    # for app-template's `searxng-app`)
    repo, base = shop_repo(tmp_path / "longer")
    head = repo.commit({"shop.yaml": SHOP.replace(
        '        - {name: CART_ADDR', '        - {name: CAT_ADDR, value: "cat:9000"}\n'
        '        - {name: CART_ADDR'), "catalog.yaml": CATALOG.format(name="cat-api")})
    found_longer = [f for f in review_findings(repo, base, head, capsys)
                    if "cat:9000" in f["message"]]
    assert [f["message"].split(". Not certain")[0] for f in found_longer] == [
        "shop/web calls cat:9000, but no Service shop/cat is in this repository (did you "
        "mean cat-api?)"]


def test_a_value_naming_a_namespace_the_repository_does_not_show_offers_the_service_s_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial forty-six: `ollama.ai` changed to `ollama.default`, a namespace with no
    workload of the repository (its Services are not all seen): "no findings". A Service of
    that name in one other namespace says which was meant."""
    repo, base = shop_repo(tmp_path)
    added = SHOP.replace('        - {name: CART_ADDR',
                         '        - {name: CAT_ADDR, value: "catalog.default:9000"}\n'
                         '        - {name: CART_ADDR')
    head = repo.commit({"shop.yaml": added})
    (found,) = review_findings(repo, base, head, capsys)
    assert (found["severity"], found["message"].split(". Not certain")[0], found["fix"]) == (
        "warning", "shop/web calls catalog.default:9000, but no Service default/catalog is in "
        "this repository (Service shop/catalog is: did you mean catalog.shop?)",
        "Point the address at catalog.shop, or add Service default/catalog.")


def test_a_value_naming_a_service_only_another_cluster_has_says_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial twenty-four: lab's values named home's Service; the warning said "no
    Service llm/embeddings is in this repository", which holds it (for home)."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        ".reviewbot.yaml": "clusters:\n  - {name: home, paths: [home]}\n"
                           "  - {name: lab, paths: [lab]}\n",
        "home/shop.yaml": SHOP, "home/catalog.yaml": CATALOG.format(name="payments"),
        "lab/shop.yaml": SHOP, "lab/catalog.yaml": CATALOG.format(name="catalog")})
    added = SHOP.replace('        - {name: CART_ADDR',
                         '        - {name: PAY_ADDR, value: "payments:9000"}\n'
                         '        - {name: CART_ADDR')
    head = repo.commit({"lab/shop.yaml": added})
    found = review_findings(repo, base, head, capsys)
    assert [(f["severity"], f["file"], f["message"].split(". Not certain")[0])
            for f in found if "payments" in f["message"]] == [
        ("warning", "lab/shop.yaml", "shop/web calls payments:9000, but its cluster has no "
         "Service shop/payments (only cluster home has it)")]


def test_a_lint_says_a_call_only_another_cluster_can_answer(tmp_path: Path) -> None:
    """Recorded after new-user trial thirty-six: a review said lab's call to home's Service
    when the change added it, a lint never: lab's pods call a name lab has no Service for.
    A warning (a Service may come from outside the repository); a name no cluster of the
    repository has stays unsaid (it may come from anywhere), and so does one that objects
    no cluster reaches hold."""
    added = SHOP.replace('        - {name: CART_ADDR',
                         '        - {name: PAY_ADDR, value: "payments:9000"}\n'
                         '        - {name: BILL_ADDR, value: "billing:9000"}\n'
                         '        - {name: CART_ADDR')
    write(tmp_path, {
        ".reviewbot.yaml": "clusters:\n  - {name: home, paths: [home]}\n"
                           "  - {name: lab, paths: [lab]}\n",
        "home/shop.yaml": SHOP, "home/catalog.yaml": CATALOG.format(name="catalog"),
        "home/payments.yaml": CATALOG.format(name="payments"),
        "lab/shop.yaml": added, "lab/catalog.yaml": CATALOG.format(name="catalog"),
        "loose/billing.yaml": CATALOG.format(name="billing"),
        # (a build of lab that renames a Service of its own, elsewhere: new-user trial
        # thirty-nine's preview overlay silenced the check)
        "lab/preview/kustomization.yaml": "namePrefix: preview-\nresources: [web.yaml]\n",
        "lab/preview/web.yaml": CATALOG.format(name="web").replace("shop", "preview")})
    found = [f for f in lint_dir(tmp_path, only=[RULE]).findings
             if f.kind == "dependency-missing"]
    assert [(f.severity, f.file, f.line, f.message.split(". Not certain")[0]) for f in found] == [
        ("warning", "lab/shop.yaml", added.lstrip("\n").splitlines().index(
            '        - {name: PAY_ADDR, value: "payments:9000"}') + 1,
         "shop/web calls payments:9000, but its cluster has no Service shop/payments (only "
         "cluster home has it)")]


# ---------------------------------------------------------------- namespaces Argo CD fills

ARGO_APP = """
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: {name}, namespace: argocd}}
spec:
  project: default
  source: {{repoURL: https://example.com/r.git, targetRevision: HEAD, {source}}}
  destination: {{server: https://kubernetes.default.svc, namespace: {ns}}}
"""
WEB_POLICY = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: x, ports: [{containerPort: 8080}]}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress, Egress]
  ingress:
  - from: [{podSelector: {}}]
  egress:
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: b}}
    ports: [{protocol: TCP, port: 8080}]
  - ports: [{protocol: UDP, port: 53}]
"""


def argo_tree(tmp_path: Path, chart_in_b: bool) -> Result:
    apps = [ARGO_APP.format(name=f"web-{ns}", ns=ns, source="path: manifests")
            for ns in ("a", "b")]
    if chart_in_b:
        apps.append(ARGO_APP.format(name="db", ns="b", source="chart: postgresql"))
    write(tmp_path, {"apps.yaml": "---\n".join(apps), "manifests/web.yaml": WEB_POLICY})
    return analyze(disk_tree([tmp_path], tmp_path), Config(), only=[RULE])


def test_a_namespace_only_entry_into_a_namespace_argo_cd_fills_from_this_tree(
    tmp_path: Path
) -> None:
    """The docs' table: an entry naming only namespaces is judged for the whole entry. Namespace
    b holds only what Applications of this tree's folders deploy (every pod seen), and its
    policy admits its own namespace only: a's egress to b on 8080 is admitted by no pod."""
    result = argo_tree(tmp_path, chart_in_b=False)
    assert [(f.severity, f.file, f.line, f.column) for f in result.findings] == [
        ("error", "manifests/web.yaml", 20, 5)]
    assert result.findings[0].message == (
        "a/web: egress to every pod in b on TCP 8080 has no matching ingress in b")


def test_a_namespace_a_chart_also_fills_is_not_judged_as_a_whole(tmp_path: Path) -> None:
    assert argo_tree(tmp_path, chart_in_b=True).findings == []


# ---------------------------------------------------------------- f. egress without DNS

EGRESS_ONLY = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: egress, namespace: client}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: server}}}]
    ports: [{port: 8080}]
"""


def test_an_egress_policy_without_dns_is_an_error_at_its_egress_key(tmp_path: Path) -> None:
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + EGRESS_ONLY)
    assert kinds(result) == [("error", "spec.egress", line_of(tmp_path, "  egress:"))]
    assert result.findings[0].message == (
        "client/app: egress is isolated by NetworkPolicy client/egress and no egress rule allows "
        "DNS (53/UDP to kube-dns): these pods cannot resolve any name, api.server (which they "
        "call) among them")
    assert result.findings[0].fix == "Add an egress rule to kube-dns on 53/UDP and 53/TCP."


def test_a_dns_rule_on_another_port_is_named_and_pointed_at(tmp_path: Path) -> None:
    # new-user trial seventeen: allow-dns's port changed to 5353; the finding sat at another
    # policy's `egress:` and told to add the rule that is there
    astray = ("  - to: [{namespaceSelector: {}, podSelector: {matchLabels: {k8s-app: "
              "kube-dns}}}]\n    ports: [{port: 5353, protocol: UDP}]\n")
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + EGRESS_ONLY + astray)
    (dns,) = [f for f in result.findings if f.kind == "dns-denied"]
    assert (dns.line, dns.path) == (line_of(tmp_path, "ports: [{port: 5353"),
                                    "spec.egress[1].ports")
    assert dns.message == (
        "client/app: egress is isolated by NetworkPolicy client/egress and no egress rule "
        "allows DNS (53/UDP to kube-dns); NetworkPolicy client/egress's spec.egress[1] reaches "
        "DNS pods on UDP 5353, not 53: these pods cannot resolve any name, api.server (which "
        "they call) among them")
    assert dns.fix == ("Set the port of NetworkPolicy client/egress's spec.egress[1] to 53 "
                       "(UDP and TCP).")


def test_a_dns_rule_to_a_misspelt_namespace_is_named_and_pointed_at(tmp_path: Path) -> None:
    """New-user trial forty-five: the DNS rule's namespaceSelector `kube-system` misspelt
    `kube-sytem`, "no findings": any rule on port 53 counted as DNS. One whose every peer
    names only namespaces the cluster lacks, one a misspelling of the DNS pods' namespace,
    reaches no DNS server; a namespace of the repository's own, or kube-system, still may."""
    def dns(namespace: str) -> str:
        return ("  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: "
                f"{namespace}}}}}, podSelector: {{matchLabels: {{k8s-app: kube-dns}}}}}}]\n"
                "    ports: [{port: 53, protocol: UDP}]\n")

    result = run(tmp_path / "typo", NAMESPACES + CLIENT + SERVER + EGRESS_ONLY + dns("kube-sytem"))
    (found,) = [f for f in result.findings if f.kind == "dns-denied"]
    assert (found.line, found.path) == (line_of(tmp_path / "typo", "kube-sytem"),
                                        "spec.egress[1].to")
    assert found.message == (
        "client/app: egress is isolated by NetworkPolicy client/egress and no egress rule "
        "allows DNS (53/UDP to kube-dns); NetworkPolicy client/egress's spec.egress[1] allows 53 "
        "to namespace kube-sytem, which the cluster does not have (did you mean kube-system?): "
        "these pods cannot resolve any name, api.server (which they call) among them")
    assert found.fix == ("Name namespace kube-system in NetworkPolicy client/egress's "
                         "spec.egress[1].")
    for namespace in ("kube-system", "server"):
        result = run(tmp_path / namespace, NAMESPACES + CLIENT + SERVER + EGRESS_ONLY
                     + dns(namespace))
        assert [f for f in result.findings if f.kind == "dns-denied"] == [], namespace


def test_a_pod_that_names_no_address_gets_a_warning(tmp_path: Path) -> None:
    client = CLIENT.replace("http://api.server:8080/v1", "none")
    result = run(tmp_path, NAMESPACES + client + SERVER + EGRESS_ONLY)
    assert kinds(result) == [("warning", "spec.egress", line_of(tmp_path, "  egress:"))]
    assert result.findings[0].message.endswith(
        " Not certain: reviewbot could not see whether these pods resolve names (their "
        "configuration names no in-cluster address).")
    # new-user trial seventy-two (D4): the same pods let out to the internet on 443 (a model
    # download) reach hosts by name: an error where the tree lets DNS out elsewhere (it
    # manages DNS egress); a narrow ipBlock, another port, or a tree that never writes a DNS
    # rule (judge round DN's StatCan gateways: the cluster's) is a warning
    dns_elsewhere = ("---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
                     "metadata: {name: dns, namespace: server}\nspec:\n  podSelector: {}\n"
                     "  policyTypes: [Egress]\n  egress:\n  - ports: [{port: 53, "
                     "protocol: UDP}]\n")
    for cidr, port, dns, severity in (
            ("0.0.0.0/0", 443, dns_elsewhere, "error"), ("10.20.0.0/16", 443, dns_elsewhere,
                                                         "warning"),
            ("0.0.0.0/0", 5432, dns_elsewhere, "warning"), ("0.0.0.0/0", 443, "", "warning")):
        web = (f"  - to: [{{ipBlock: {{cidr: {cidr}, except: [10.0.0.0/8]}}}}]\n"
               f"    ports: [{{port: {port}, protocol: TCP}}]\n")
        path = tmp_path / f"web-{port}-{cidr.split('.')[1]}-{bool(dns)}"
        (found,) = [f for f in run(path, NAMESPACES + client + SERVER + EGRESS_ONLY + web
                                   + dns).findings if f.kind == "dns-denied"]
        assert found.severity == severity, (cidr, port, bool(dns))
        if severity == "error":
            assert found.message.endswith(
                "these pods cannot resolve any name, the internet hosts NetworkPolicy "
                "client/egress lets them reach on TCP 443 among them")


@pytest.mark.parametrize("dns", [
    # the usual entry: kube-dns pods of any namespace on 53
    "  - to: [{namespaceSelector: {}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]\n"
    "    ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]\n",
    # every destination on 53 (`to: []`)
    "  - to: []\n    ports: [{port: 53, protocol: UDP}]\n",
    # every port to kube-system, which the repository does not show
    "  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}}]\n",
    # a named port: the destination's
    "  - ports: [{port: dns, protocol: UDP}]\n",
    # an address block (a node-local cache)
    "  - to: [{ipBlock: {cidr: 169.254.20.10/32}}]\n",
    # OpenShift's DNS pods listen on 5353, behind Service dns-default's 53 (judge round BC):
    # by their namespace, or by their label
    "  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: openshift-dns}}}]"
    "\n    ports: [{port: 5353, protocol: UDP}, {port: 5353, protocol: TCP}]\n",
    "  - to: [{namespaceSelector: {}, podSelector: {matchLabels: "
    "{dns.operator.openshift.io/daemonset-dns: default}}}]\n"
    "    ports: [{port: 5353, protocol: UDP}]\n",
], ids=["kube-dns", "to-all-on-53", "kube-system", "named-port", "ip-block",
        "openshift-dns-namespace", "openshift-dns-pods"])
def test_the_usual_dns_entries_allow_dns(tmp_path: Path, dns: str) -> None:
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + EGRESS_ONLY + dns)
    assert [f for f in result.findings if f.kind == "dns-denied"] == []


def test_dns_allowed_by_another_policy_of_the_same_pods(tmp_path: Path) -> None:
    allow_dns = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-dns, namespace: client}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress: [{ports: [{port: 53, protocol: UDP}]}]
"""
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + EGRESS_ONLY + DENY_CLIENT + allow_dns)
    assert [f for f in result.findings if f.kind == "dns-denied"] == []


def test_a_call_the_change_cuts_with_a_new_egress_policy_is_placed_on_that_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a review, a flow its caller's own egress denies is shown where the pull request made
    it fail: the egress of the policy it added, the caller's unchanged value listed."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"apps.yaml": NAMESPACES + CLIENT + SERVER})
    head = repo.commit({"policy.yaml": EGRESS_ONLY.replace(
        "{port: 8080}]", "{port: 9090}]\n  - ports: [{port: 53, protocol: UDP}]")})
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "json", "--rule", RULE], capsys)
    found = json.loads(out)["findings"]
    api = (NAMESPACES + CLIENT).lstrip("\n").splitlines().index(
        '        env: [{name: API, value: "http://api.server:8080/v1"}]') + 1
    port = (NAMESPACES + CLIENT + SERVER).lstrip("\n").splitlines().index(
        "      containers: [{name: api, image: x, ports: [{name: http, containerPort: 8080}]}]"
    ) + 1
    # (and the port the server listens on: the policy admits it on 9090 only)
    assert [(f["file"], f["line"], f["also"]) for f in found] == [
        ("policy.yaml", 8, [{"object": "Deployment/client/app", "file": "apps.yaml",
                             "line": api},
                            {"object": "Deployment/server/api", "file": "apps.yaml",
                             "line": port}])]
    assert found[0]["message"] == (
        "client/app calls api.server:8080 (server/api on TCP 8080), but no egress rule in "
        "client allows it")


def test_a_cluster_is_one_build_whatever_kustomization_applies_each_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With GitOps roots, the Service and its caller reach the cluster through different Flux
    Kustomizations (each its own kustomization root): the cluster is what loses the name."""
    flux = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 10m\n"
            "  sourceRef: {{kind: GitRepository, name: flux-system}}\n  path: ./apps/{name}\n"
            "  prune: true\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        ".reviewbot.yaml": "clusters:\n  - name: prod\n    paths: [clusters/prod]\n",
        "clusters/prod/apps.yaml": flux.format(name="web") + "---\n" + flux.format(name="catalog"),
        "apps/web/kustomization.yaml": "resources: [shop.yaml]\n",
        "apps/web/shop.yaml": SHOP,
        "apps/catalog/kustomization.yaml": "resources: [catalog.yaml]\n",
        "apps/catalog/catalog.yaml": CATALOG.format(name="catalog"),
    })
    head = repo.commit({"apps/catalog/catalog.yaml": CATALOG.format(name="product-catalog")})
    found = review_findings(repo, base, head, capsys)
    assert [(f["severity"], f["file"]) for f in found] == [("error", "apps/web/shop.yaml")]


def test_a_call_the_change_cuts_with_a_new_ingress_policy_is_placed_on_that_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same at the destination: a new ingress policy admitting the wrong namespace gets
    the comment (on its ingress rules), the caller's unchanged value listed."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({"apps.yaml": NAMESPACES + CLIENT + SERVER})
    head = repo.commit({"policy.yaml": SERVER_INGRESS.replace(
        "metadata.name: client", "metadata.name: other")})
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "json", "--rule", RULE], capsys)
    found = json.loads(out)["findings"]
    api = (NAMESPACES + CLIENT).lstrip("\n").splitlines().index(
        '        env: [{name: API, value: "http://api.server:8080/v1"}]') + 1
    assert [(f["file"], f["line"], f["also"]) for f in found] == [
        ("policy.yaml", 7, [{"object": "Deployment/client/app", "file": "apps.yaml",
                             "line": api}])]
    assert found[0]["message"] == (
        "client/app calls api.server:8080 (server/api on TCP 8080), but no ingress rule in "
        "server admits it")


def test_a_call_to_a_port_the_change_takes_off_its_service_is_an_error_at_the_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the Service keeps its name and pods, its port 3550 becomes 8080: a ClusterIP forwards
    # only the ports it lists, so catalog:3550 is refused
    repo, base = shop_repo(tmp_path)
    head = repo.commit({"catalog.yaml": CATALOG.format(name="catalog").replace(
        "{port: 3550}", "{port: 8080, targetPort: 3550}")})
    found = review_findings(repo, base, head, capsys)
    line = SHOP.lstrip("\n").splitlines().index('        - {name: CATALOG_ADDR, value: '
                                                '"catalog:3550"}') + 1
    assert [(f["severity"], f["file"], f["line"]) for f in found] == [
        ("error", "shop.yaml", line)]
    assert found[0]["message"] == (
        "shop/web calls catalog:3550, but Service shop/catalog has no port 3550 (it has 8080): "
        "a ClusterIP Service forwards only the ports it lists, so the connection is refused; "
        "this change took port 3550 away")
    assert found[0]["fix"] == (
        "Point the address at a port Service shop/catalog has (8080), or add port 3550 to it.")
    # a port added beside the one called closes nothing
    both = repo.commit({"catalog.yaml": CATALOG.format(name="catalog").replace(
        "{port: 3550}", "{port: 3550}, {port: 8080, name: b}")})
    assert review_findings(repo, base, both, capsys) == []


def test_a_removed_service_s_doubt_names_three_makers_of_services_and_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    charts = "".join(f"---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n"
                     f"metadata: {{name: chart{i}, namespace: shop}}\nspec: {{}}\n"
                     for i in range(5))
    repo, base = shop_repo(tmp_path, "---\n" + charts)
    head = repo.commit({"catalog.yaml": None})
    found = review_findings(repo, base, head, capsys)
    assert [f["severity"] for f in found] == ["warning"]
    assert ("the Services HelmRelease chart0, HelmRelease chart1, HelmRelease chart2 and 2 more "
            "may make in shop") in found[0]["message"]


def test_a_host_and_its_port_in_two_env_values_are_one_call(tmp_path: Path) -> None:
    # xunholy's cmangos-realmd: MANGOS_DBHOST: cmangos-database, MANGOS_DBPORT: "3306"
    client = CLIENT.replace(
        '        env: [{name: API, value: "http://api.server:8080/v1"}]',
        '        env:\n        - {name: API_HOST, value: api.server}\n'
        '        - {name: API_PORT, value: "8080"}\n'
        '        - {name: CACHE_HOST, value: localhost}\n'
        '        - {name: CACHE_PORT, value: "6379"}\n'
        '        - {name: OTHER_HOST, value: api.server}\n'
        '        - {name: OTHER_PORTS, value: "8080"}')
    result = run(tmp_path, NAMESPACES + client + SERVER + DENY_SERVER)
    assert kinds(result) == [("error", "spec.template.spec.containers[0].env[0].value",
                              line_of(tmp_path, "name: API_HOST"))]
    assert result.findings[0].message.startswith(
        "client/app calls api.server:8080 (server/api on TCP 8080), but no ingress rule in "
        "server admits it")


def test_a_host_and_its_port_read_by_configmapkeyref_are_one_call(tmp_path: Path) -> None:
    """New-user trial seventy-one D4: DATABASE_HOST and DATABASE_PORT each read by
    `configMapKeyRef` from the overlay's ConfigMap: no call was read, and the only error,
    an egress rule's, sent its fix to the wrong namespace. One call, at the host's env."""
    client = CLIENT.replace(
        '        env: [{name: API, value: "http://api.server:8080/v1"}]',
        '        env:\n'
        '        - name: API_HOST\n'
        '          valueFrom: {configMapKeyRef: {name: app-config, key: api-host}}\n'
        '        - name: API_PORT\n'
        '          valueFrom: {configMapKeyRef: {name: app-config, key: api-port}}') + """
---
apiVersion: v1
kind: ConfigMap
metadata: {name: app-config, namespace: client}
data:
  api-host: api.server
  api-port: "8080"
"""
    result = run(tmp_path, NAMESPACES + client + SERVER + DENY_SERVER)
    assert [(f.severity, f.object, f.path, f.line) for f in result.findings] == [
        ("error", "Deployment/client/app",
         "spec.template.spec.containers[0].env[0] -> api.server:8080",
         line_of(tmp_path, "name: API_HOST"))]
    assert result.findings[0].message.startswith(
        "client/app calls api.server:8080 (server/api on TCP 8080), but no ingress rule in "
        "server admits it")


def test_a_host_and_its_port_in_an_envfrom_configmap_are_one_call(tmp_path: Path) -> None:
    """New-user trial twenty-nine: `DB_HOST` and `DB_PORT` of a ConfigMap the container
    loads whole with `envFrom` are env values too: one call, said at the host's key."""
    client = CLIENT.replace(
        '        env: [{name: API, value: "http://api.server:8080/v1"}]',
        '        envFrom: [{configMapRef: {name: app-config}}]') + """
---
apiVersion: v1
kind: ConfigMap
metadata: {name: app-config, namespace: client}
data:
  API_HOST: api.server
  API_PORT: "8080"
"""
    result = run(tmp_path, NAMESPACES + client + SERVER + DENY_SERVER)
    assert [(f.severity, f.object, f.line) for f in result.findings] == [
        ("error", "ConfigMap/client/app-config", line_of(tmp_path, "API_HOST: api.server"))]
    assert result.findings[0].message.startswith(
        "client/app calls api.server:8080 (server/api on TCP 8080), but no ingress rule in "
        "server admits it")
    # mounted as files, its keys are no env
    mounted = client.replace("envFrom: [{configMapRef: {name: app-config}}]",
                             "volumeMounts: [{name: c, mountPath: /c}]").replace(
        "      containers:", "      volumes: [{name: c, configMap: {name: app-config}}]\n"
        "      containers:")
    assert run(tmp_path, NAMESPACES + mounted + SERVER + DENY_SERVER).findings == []


@pytest.mark.parametrize(("command", "host_item"), [
    # xunholy's cmangos jobs: an init container that waits for its database
    ("['sh', '-c', 'until nc -z api.server 8080; do echo \"Waiting...\"; sleep 2; done']", 2),
    ("['nc', '-w', '2', '-zv', 'api.server', '8080']", 4),
    ("['sh', '-c', 'until pg_isready -h api.server -p 8080 -U app; do sleep 1; done']", 2),
    ("['redis-cli', '-h', 'api.server', '-p', '8080', 'ping']", 2),
    ("['pg_isready', '--host=api.server', '--port=8080']", 1),
    # new-user trial sixty-three: a backup CronJob's dump, alone or in a shell pipeline;
    # MySQL's clients read -P as the port (-p is the password)
    ("['pg_dumpall', '-h', 'api.server', '-p', '8080']", 2),
    ("['sh', '-c', 'pg_dump -h api.server -p 8080 app | gzip > /backup/app.sql.gz']", 2),
    ("['mysqldump', '-h', 'api.server', '-P', '8080', '-psecret', 'app']", 2),
    # a listener calls nobody; a variable is not read; an -p after the call is another's
    ("['nc', '-l', '-p', '8080', 'api.server', '9']", None),
    ("['sh', '-c', 'nc -z \"${DB}\" 8080']", None),
    ("['sh', '-c', 'redis-cli -h api.server ping; echo -p 8080']", None),
])
def test_a_host_and_port_given_to_a_client_in_the_command_are_a_call(
    tmp_path: Path, command: str, host_item: int | None
) -> None:
    client = CLIENT.replace(
        '        env: [{name: API, value: "http://api.server:8080/v1"}]',
        f'        command: {command}')
    result = run(tmp_path, NAMESPACES + client + SERVER + DENY_SERVER)
    if host_item is None:
        assert kinds(result) == []
        return
    assert kinds(result) == [("error", f"spec.template.spec.containers[0].command[{host_item}]",
                              line_of(tmp_path, "command:"))]
    assert result.findings[0].message.startswith(
        "client/app calls api.server:8080 (server/api on TCP 8080), but no ingress rule "
        "in server admits it")


NO_NAMESPACE = """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny-egress%s}
spec: {podSelector: {}, policyTypes: [Egress]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: game%s}
spec:
  selector: {matchLabels: {app: game}}
  template:
    metadata: {labels: {app: game}}
    spec:
      containers:
      - name: game
        image: "game@sha256:0000000000000000000000000000000000000000000000000000000000000000"
        args: ["--backend=http://backend:4445"]
---
apiVersion: v1
kind: Service
metadata: {name: backend%s}
spec:
  selector: {app: backend}
  ports: [{port: 4445}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: backend%s}
spec:
  selector: {matchLabels: {app: backend}}
  template:
    metadata: {labels: {app: backend}}
    spec:
      containers:
      - name: backend
        image: "backend@sha256:0000000000000000000000000000000000000000000000000000000000000000"
"""


def test_a_tree_applied_as_written_does_not_guess_a_namespace_none_is_written(
        tmp_path: Path) -> None:
    """d-uzlov/k8s-homelab, in short: its runbooks apply the deny-all policy "with -n
    <namespace>" and the game with `-n nitrox`. With no namespace written and no root or
    build setting one, "default" is kubectl's context's guess: the denials are warnings that
    say so. Written namespaces make them the errors they were."""
    result = lint_text(tmp_path, NO_NAMESPACE % ("", "", "", ""), only=["netpol-pairing"])
    assert [(f.severity, f.kind, f.line) for f in result.findings] == [
        ("warning", "dns-denied", 4), ("warning", "dependency-denied", 17)]
    assert result.findings[1].message == (
        "default/game calls backend:4445 (default/backend on TCP 4445), but no egress rule in "
        "default allows it. Not certain: reviewbot could not see which namespace Deployment "
        "game is applied in (it names none and no build sets one: kubectl's -n or its context "
        "decides).")
    assert "which namespace NetworkPolicy default-deny-egress is applied in" in (
        result.findings[0].message)
    written = NO_NAMESPACE % ((", namespace: nitrox",) * 4)
    result = lint_text(tmp_path / "written", written, only=["netpol-pairing"])
    assert [(f.severity, f.kind) for f in result.findings] == [
        ("error", "dns-denied"), ("error", "dependency-denied")]


def test_a_cluster_s_view_of_a_rooted_tree_guesses_no_kubectl_namespace(tmp_path: Path) -> None:
    """The per-cluster views of a tree with roots are no tree applied as written: the flows
    of a namespace-less folder a Flux Kustomization applies are judged alike with one
    cluster or two (a new-user trial: a second cluster made them warnings naming
    kubectl's -n)."""
    sync = """
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {url: https://github.com/you/homelab, ref: {branch: main}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {path: ./clusters/%s, sourceRef: {kind: GitRepository, name: flux-system}}
"""
    apps = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: demo, namespace: flux-system}\n"
            "spec: {path: ./apps/demo, sourceRef: {kind: GitRepository, name: flux-system}}\n")
    files = {"clusters/home/flux-system/gotk-sync.yaml": sync % "home",
             "clusters/home/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
             "clusters/home/apps.yaml": apps,
             "apps/demo/all.yaml": NO_NAMESPACE % ("", "", "", "")}
    write(tmp_path / "one", files)
    one = [(f.severity, f.kind) for f in analyze(
        disk_tree([tmp_path / "one"], tmp_path / "one"), Config(),
        only=["netpol-pairing"]).findings]
    write(tmp_path / "two", {**files, "clusters/lab/flux-system/gotk-sync.yaml": sync % "lab",
                             "clusters/lab/flux-system/kustomization.yaml":
                             "resources: [gotk-sync.yaml]\n"})
    two = analyze(disk_tree([tmp_path / "two"], tmp_path / "two"), Config(),
                  only=["netpol-pairing"]).findings
    assert [(f.severity, f.kind) for f in two] == one
    assert not any("kubectl's -n" in f.message for f in two)


def test_a_caller_reviewbot_sees_makes_the_finding_certain_beside_one_it_does_not(
        tmp_path: Path) -> None:
    """New-user trial twelve: one base egress policy, built by prod and by staging, calls
    vLLM pods nobody admits; staging's build fails, so whether staging runs its caller is
    not certain, and the one finding for both callers was a warning. Prod's caller is seen:
    the finding holds (an error); staging alone would be a warning."""
    from .helpers import lint_dir, write

    base = {
        "shop/base/kustomization.yaml": "resources: [web.yaml, egress.yaml]\n",
        "shop/base/web.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web}
            spec:
              selector: {matchLabels: {app: web}}
              template:
                metadata: {labels: {app: web}}
                spec: {containers: [{name: web, image: "web:1@sha256:%s"}]}
        """ % ("a" * 64),
        "shop/base/egress.yaml": """
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata: {name: web-egress}
            spec:
              podSelector: {matchLabels: {app: web}}
              policyTypes: [Egress]
              egress:
              - to:
                - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: inference}}
                  podSelector: {matchLabels: {app: vllm}}
                ports: [{port: 8000}]
        """,
        "shop/staging/kustomization.yaml": "namespace: staging\nresources: [../base]\n"
                                           "patches: [{path: gone.yaml}]\n",
        "shop/staging/gone.yaml": "apiVersion: apps/v1\nkind: Deployment\n"
                                  "metadata: {name: nothing}\nspec: {replicas: 2}\n",
        "inference/vllm.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: vllm, namespace: inference}
            spec:
              selector: {matchLabels: {app: vllm}}
              template:
                metadata: {labels: {app: vllm}}
                spec:
                  containers: [{name: vllm, image: "vllm:1@sha256:%s",
                                ports: [{containerPort: 8000}]}]
            ---
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata: {name: deny, namespace: inference}
            spec: {podSelector: {}, policyTypes: [Ingress]}
        """ % ("b" * 64),
    }
    for severity, overlays in (("warning", ["staging"]), ("error", ["staging", "prod"])):
        root = tmp_path / "-".join(overlays)
        files = dict(base)
        if "prod" in overlays:  # (each overlay a build of its own, as its Application's)
            files["shop/prod/kustomization.yaml"] = "namespace: prod\nresources: [../base]\n"
        write(root, files)
        found = [(f.file, f.severity) for f in lint_dir(root, only=["netpol-pairing"]).findings
                 if "has no matching ingress" in f.message]
        assert found == [("shop/base/egress.yaml", severity)], overlays


CRON_LIKE_API = """
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: api-cleanup, namespace: server}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        metadata: {labels: {app: api}}
        spec:
          restartPolicy: OnFailure
          containers: [{name: cleanup, image: x}]
"""


def test_an_egress_selector_wider_than_its_upstream_means_the_pods_that_serve_the_port(
    tmp_path: Path
) -> None:
    """nextcloud's nginx (judge round BC): its egress to `db: nextcloud-pg` on 9000 also
    selects two CronJobs of that label that listen nowhere; the pods that serve 9000 (a
    declared port, a Service's target) admit it, so nothing is dropped. Where no pod the
    selector names serves the port, each is judged as before."""
    result = run(tmp_path, NAMESPACES + CLIENT + SERVER + CRON_LIKE_API + CLIENT_EGRESS
                 + SERVER_INGRESS)
    assert [f.message for f in result.findings if f.severity == "error"] == []
    alone = run(tmp_path, NAMESPACES + CLIENT + CRON_LIKE_API + CLIENT_EGRESS
                + SERVER_INGRESS)
    assert [f.message for f in alone.findings if f.severity == "error"] == [
        "client/app: egress to server/api-cleanup (pods app=api) on TCP 8080 has no matching "
        "ingress in server"]


def test_common_labels_written_into_the_dns_rule_deny_dns(tmp_path: Path) -> None:
    """New-user trial twenty-four: the lab overlay moved `labels:` to `commonLabels:`, which
    kustomize also writes into a NetworkPolicy's peer selectors (kubectl kustomize 1.32:
    `homelab/cluster: lab` beside `k8s-app: kube-dns`); the cluster's DNS pods, which this
    build does not make, do not carry it: every pod of the namespace lost DNS, and nothing
    was said. `labels:` without includeSelectors leaves the selector as written."""
    from .helpers import lint_dir, write

    policy = """
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata: {name: allow-dns, namespace: llm}
        spec:
          podSelector: {}
          policyTypes: [Egress]
          egress:
          - to:
            - namespaceSelector: {}
              podSelector: {matchLabels: {k8s-app: kube-dns}}
            ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: llm}
        spec:
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              containers:
              - {name: web, image: x, env: [{name: API, value: "http://api.llm:8080"}]}
    """
    write(tmp_path, {
        "base/np.yaml": policy, "base/kustomization.yaml": "resources: [np.yaml]\n",
        "lab/kustomization.yaml": "resources: [../base]\ncommonLabels: {homelab/cluster: lab}\n",
    })
    result = lint_dir(tmp_path, only=[RULE])
    assert [(f.kind, f.file, f.line, f.severity) for f in result.findings] == [
        ("dns-denied", "base/np.yaml", 8, "error")]
    assert ("kustomize added homelab/cluster=lab to the podSelector of NetworkPolicy "
            "llm/allow-dns's spec.egress[0] (commonLabels, or labels with includeSelectors), "
            "which the cluster's DNS pods, not made by this build, do not carry"
            ) in result.findings[0].message
    write(tmp_path, {"lab/kustomization.yaml": (
        "resources: [../base]\nlabels:\n- pairs: {homelab/cluster: lab}\n")})
    assert [f.kind for f in lint_dir(tmp_path, only=[RULE]).findings] == []


def test_a_workload_of_a_failing_build_is_judged_with_its_own_policies(
        tmp_path: Path) -> None:
    """New-user trial thirty-two: the worker's build fails (a patch whose object a base
    renamed); its Deployment and its NetworkPolicy both come from that build. The calls
    its own policy allows were "denied" (the policy left out as not applied, the Deployment
    kept): where the worker is applied, so is its policy. Nothing to say."""
    from .helpers import lint_dir

    write(tmp_path, {
        "shared/kustomization.yaml": "resources: [deny.yaml, api.yaml]\n",
        "shared/deny.yaml": """
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata: {name: deny, namespace: shop}
            spec: {podSelector: {}, policyTypes: [Egress]}
            """,
        "shared/api.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: api, namespace: shop}
            spec:
              selector: {matchLabels: {app: api}}
              template:
                metadata: {labels: {app: api}}
                spec: {containers: [{name: api, image: x, ports: [{containerPort: 8080}]}]}
            ---
            apiVersion: v1
            kind: Service
            metadata: {name: api, namespace: shop}
            spec: {selector: {app: api}, ports: [{port: 8080}]}
            """,
        "worker/kustomization.yaml": "resources: [worker.yaml, gone.yaml]\n",
        "worker/worker.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: worker, namespace: shop}
            spec:
              selector: {matchLabels: {app: worker}}
              template:
                metadata: {labels: {app: worker}}
                spec:
                  containers:
                  - {name: worker, image: y, env: [{name: API, value: "http://api:8080"}]}
            ---
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata: {name: worker, namespace: shop}
            spec:
              podSelector: {matchLabels: {app: worker}}
              policyTypes: [Egress]
              egress: [{to: [{podSelector: {matchLabels: {app: api}}}], ports: [{port: 8080}]}]
            """})
    result = lint_dir(tmp_path, only=["netpol-pairing"])
    assert [(f.kind, f.message) for f in result.findings
            if f.kind in ("dependency-denied", "egress-unmatched")] == []


def test_pods_of_a_failing_build_are_not_judged_without_their_own_policy(
        tmp_path: Path) -> None:
    """New-user trial fifty-five: web's Kustomization waits for a misspelt dependency; its
    pods and its egress policy come from it. The cluster has both (an earlier revision) or
    neither (a fresh cluster), never the pods without their policy: yet the shared
    default-deny's "no egress rule allows DNS" for web's pods, and api's ingress rule that
    admits web "unused", were said of the pods alone."""
    from .helpers import lint_dir

    write(tmp_path, {
        "shared/kustomization.yaml": "resources: [deny.yaml, api.yaml]\n",
        "shared/deny.yaml": """
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata: {name: deny, namespace: shop}
            spec: {podSelector: {}, policyTypes: [Ingress, Egress]}
            """,
        "shared/api.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: api, namespace: shop}
            spec:
              selector: {matchLabels: {app: api}}
              template:
                metadata: {labels: {app: api}}
                spec: {containers: [{name: api, image: x, ports: [{containerPort: 8080}]}]}
            ---
            apiVersion: v1
            kind: Service
            metadata: {name: api, namespace: shop}
            spec: {selector: {app: api}, ports: [{port: 8080}]}
            ---
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata: {name: api, namespace: shop}
            spec:
              podSelector: {matchLabels: {app: api}}
              policyTypes: [Ingress]
              ingress: [{from: [{podSelector: {matchLabels: {app: web}}}], ports: [{port: 8080}]}]
            """,
        "web/kustomization.yaml": "resources: [web.yaml, gone.yaml]\n",
        "web/web.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web, namespace: shop}
            spec:
              selector: {matchLabels: {app: web}}
              template:
                metadata: {labels: {app: web}}
                spec:
                  containers:
                  - {name: web, image: y, env: [{name: API, value: "http://api:8080"}]}
            ---
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata: {name: web, namespace: shop}
            spec:
              podSelector: {matchLabels: {app: web}}
              policyTypes: [Egress]
              egress:
              - {to: [{podSelector: {matchLabels: {app: api}}}], ports: [{port: 8080}]}
              - to: [{namespaceSelector: {}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]
                ports: [{port: 53, protocol: UDP}]
            """})
    # (api's own egress, isolated by deny, resolves nothing it names: said, not certain)
    assert [(f.kind, f.message.split(":")[0]) for f in lint_dir(
        tmp_path, only=[RULE]).findings] == [("dns-denied", "shop/api")]


def test_an_operator_s_pods_may_be_allowed_dns_by_a_policy_of_labels_it_adds(
        tmp_path: Path) -> None:
    """Judge round CS (aumer-amr-labv2): grafana-operator labels its pods `app: <name>`,
    which the Grafana resource does not write. NetworkPolicy grafana selects `app: grafana`
    and allows DNS; policies are a union, so the pods resolve names. "No egress rule allows
    DNS" was said of the labels reviewbot lists alone. A policy whose selector fails on a
    label the pods do list still cannot select them: the denial stands."""
    from .helpers import lint_dir

    def files(selector: str) -> dict[str, str]:
        return {
            "kustomization.yaml": "namespace: obs\nresources: [grafana.yaml, policies.yaml]\n",
            "grafana.yaml": """
                apiVersion: grafana.integreatly.org/v1beta1
                kind: Grafana
                metadata: {name: grafana}
                spec:
                  deployment:
                    spec:
                      template:
                        metadata: {labels: {example.com/extra: "yes"}}
                        spec: {containers: [{name: grafana}]}
                """,
            "policies.yaml": f"""
                apiVersion: networking.k8s.io/v1
                kind: NetworkPolicy
                metadata: {{name: default-deny}}
                spec: {{podSelector: {{}}, policyTypes: [Ingress, Egress]}}
                ---
                apiVersion: networking.k8s.io/v1
                kind: NetworkPolicy
                metadata: {{name: grafana}}
                spec:
                  podSelector: {{matchLabels: {selector}}}
                  policyTypes: [Egress]
                  egress:
                  - to:
                    - namespaceSelector: {{}}
                      podSelector: {{matchLabels: {{k8s-app: kube-dns}}}}
                    ports: [{{port: 53, protocol: UDP}}, {{port: 53, protocol: TCP}}]
                """}

    write(tmp_path / "added", files("{app: grafana}"))
    assert [f.kind for f in lint_dir(tmp_path / "added", only=[RULE]).findings] == []
    write(tmp_path / "listed", files("{example.com/extra: 'no'}"))
    assert [f.kind for f in lint_dir(tmp_path / "listed", only=[RULE]).findings] == [
        "dns-denied"]


def test_a_lint_of_part_says_policies_outside_it_may_allow_a_denied_flow(
        tmp_path: Path) -> None:
    """New-user trial fifty-eight: `lint apps/vllm/overlays/prod` said no egress rule allows
    DNS; the platform Application's allow-dns, outside the linted folder, does (policies add
    up). A denial of a lint of part says what it could not see: the policies outside."""
    from reviewbot.config import Config
    from reviewbot.engine.run import analyze
    from reviewbot.sources.tree import disk_tree

    write(tmp_path, {
        "argocd/app.yaml": """
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata: {name: app, namespace: argocd}
            spec:
              source: {repoURL: https://example.com/x.git, path: app}
              destination: {server: https://kubernetes.default.svc, namespace: llm}
            """,
        "platform/allow-dns.yaml": """
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata: {name: allow-dns, namespace: llm}
            spec:
              podSelector: {}
              policyTypes: [Egress]
              egress: [{ports: [{port: 53, protocol: UDP}]}]
            """,
        "app/vllm.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: vllm, namespace: llm}
            spec:
              selector: {matchLabels: {app: vllm}}
              template:
                metadata: {labels: {app: vllm}}
                spec: {containers: [{name: vllm, image: x}]}
            ---
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata: {name: vllm, namespace: llm}
            spec:
              podSelector: {matchLabels: {app: vllm}}
              policyTypes: [Egress]
              egress: [{ports: [{port: 443}]}]
            """})
    part = analyze(disk_tree([tmp_path / "app"], tmp_path), Config(), only=[RULE])
    assert [f.message.rpartition("; ")[2] for f in part.findings] == [
        "what the network policies outside the linted files allow (policies add up)."]


def test_a_policy_and_pods_separate_scripts_apply_may_meet_in_no_cluster(tmp_path: Path) -> None:
    """Judge round BK (jkershawrh/fleet-llm-d, three clusters): without roots, deploy/arena's
    script applies a default-deny policy in namespace fleet, deploy/oberon's a Job there. Which
    cluster each script's kubectl talks to is not in the repository: the Job's DNS "denied"
    by arena's policy was an error. Not certain; one script applying both, certain."""
    policy = """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny-all, namespace: fleet}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress]
"""
    job = """apiVersion: batch/v1
kind: Job
metadata: {name: soak, namespace: fleet}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: soak, image: x, args: ["--url=http://controller.fleet.svc:8080"]}]
"""
    write(tmp_path / "apart", {
        "deploy/arena/deploy.sh": "oc apply -f deploy/arena/policies.yaml\n",
        "deploy/arena/policies.yaml": policy,
        "deploy/oberon/deploy.sh": "oc apply -f deploy/oberon/soak.yaml\n",
        "deploy/oberon/soak.yaml": job})
    (found,) = [f for f in lint_dir(tmp_path / "apart", only=[RULE]).findings
                if f.kind == "dns-denied"]
    assert (found.severity, found.message.partition("Not certain: ")[2]) == (
        "warning", "reviewbot could not see whether deploy/arena/deploy.sh and "
        "deploy/oberon/deploy.sh apply to one cluster (a script's kubectl talks to the "
        "cluster of its context).")
    write(tmp_path / "one", {
        "deploy/deploy.sh": "oc apply -f deploy/policies.yaml\noc apply -f deploy/soak.yaml\n",
        "deploy/policies.yaml": policy, "deploy/soak.yaml": job})
    (found,) = [f for f in lint_dir(tmp_path / "one", only=[RULE]).findings
                if f.kind == "dns-denied"]
    assert found.severity == "error"


def test_a_call_to_a_port_its_service_does_not_list_is_refused(tmp_path: Path) -> None:
    """New-user trial thirty-four: the api's `redis://redis.data...:6379/0` beside a Service
    of port 6380: a ClusterIP Service forwards only the ports it lists, so the connection is
    refused, yet a lint said nothing (a review said it of the change alone). A port the URL
    does not write (a scheme's) is a warning; a headless Service (its name is the pods'), an
    ExternalName, and a script's text (judge round AZ: `registry:3`, an image's tag in a
    comment) are not judged."""
    api = deployment("api", "web", "{app: api}").replace(
        "image: x", "image: x\n        env:\n"
        "        - {name: A, value: 'redis://redis.data.svc.cluster.local:6379/0'}\n"
        "        - {name: B, value: 'redis://redis.data.svc.cluster.local:6380/0'}\n"
        "        - {name: C, value: 'http://redis.data.svc.cluster.local/'}\n"
        "        - {name: D, value: 'redis-headless.data:6379'}\n"
        "        args: ['--redis=redis.data:6379', \"# on redis.data:3 the leaf var\\nrun\"]")
    redis = deployment("redis", "data", "{app: redis}") + """
---
apiVersion: v1
kind: Service
metadata: {name: redis, namespace: data}
spec:
  selector: {app: redis}
  ports:
  - {name: redis, port: 6380, targetPort: 6379}
---
apiVersion: v1
kind: Service
metadata: {name: redis-headless, namespace: data}
spec:
  clusterIP: None
  selector: {app: redis}
  ports: [{port: 6380}]
"""
    result = lint_text(tmp_path, api + redis, only=[RULE])
    assert [(f.line, f.kind, f.severity) for f in result.findings][1:] == [
        (15, "dependency-port", "warning"),  # (the scheme's port 80: a warning, new-user
        # trial thirty-eight)
        (17, "dependency-port", "error")]  # (the flag's; not the script's)
    assert [(f.line, f.kind, f.severity, f.message, f.fix) for f in result.findings][:1] == [(
        13, "dependency-port", "error",
        "web/api calls redis.data.svc.cluster.local:6379, but Service data/redis has no port "
        "6379 (it has 6380): a ClusterIP Service forwards only the ports it lists, so the "
        "connection is refused",
        "Point the address at a port Service data/redis has (6380), or add port 6379 to it.")]


def test_a_wrong_port_in_a_configmap_the_named_service_s_own_pods_load_is_not_certain(
        tmp_path: Path) -> None:
    """Judge round EL: immich's settings ConfigMap, loaded whole (`envFrom`) by the server,
    its microservices and its machine learning, kept `IMMICH_SERVER_URL: ...:3001` after the
    server moved to 2283; no part of Immich reads that key any more. A map the pods behind
    the Service it names read too holds the application's own addresses, each part's, not
    one caller's dependency: which reader dials it, if any, is not written (a warning). A
    map the named Service's pods do not read stays a caller's call (an error)."""
    reads = "image: x\n        envFrom: [{configMapRef: {name: %s}}]"
    server = deployment("server", "photos", "{app: server}").replace(
        "image: x", reads % "settings")
    ml = deployment("ml", "photos", "{app: ml}").replace("image: x", reads % "settings")
    worker = deployment("worker", "photos", "{app: worker}").replace(
        "image: x", reads % "worker")
    rest = """
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: photos}
data:
  SERVER_URL: http://server.photos.svc.cluster.local:3001
---
apiVersion: v1
kind: ConfigMap
metadata: {name: worker, namespace: photos}
data:
  SERVER_URL: http://server.photos.svc.cluster.local:3001
---
apiVersion: v1
kind: Service
metadata: {name: server, namespace: photos}
spec:
  selector: {app: server}
  ports: [{port: 2283}]
"""
    result = lint_text(tmp_path, server + ml + worker + rest, only=[RULE])
    found = [(f.line, f.kind, f.severity) for f in result.findings]
    assert found == [(48, "dependency-port", "warning"), (54, "dependency-port", "error")]
    assert "is loaded whole by photos/server too, the workload behind the Service it " \
        "names" in result.findings[0].message


def test_a_call_by_the_name_a_prefix_renamed_reaches_no_service(tmp_path: Path) -> None:
    """New-user trial thirty-seven: prod's overlay sets `namePrefix: prod-`, and the web's
    `DB_HOST: db:5432` stays as written (kustomize renames a Service's references in the
    fields it knows, never in an env value): prod's pods call a name no Service has, and a
    lint said nothing. Staging, without a prefix, calls its `db`; an overlay whose patch
    writes `prod-db` is quiet; a namespace holding a HelmRelease may have a Service `db`
    reviewbot cannot see: a warning that says so."""
    web = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: x
        env:
        - {name: DB_HOST, value: "db:5432"}
"""
    db = """apiVersion: v1
kind: Service
metadata: {name: db}
spec: {selector: {app: db}, ports: [{port: 5432}]}
"""
    patch = """- op: replace
  path: /spec/template/spec/containers/0/env/0/value
  value: prod-db:5432
"""
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [web.yaml, db.yaml]\n",
        "base/web.yaml": web, "base/db.yaml": db,
        "staging/kustomization.yaml": "namespace: staging\nresources: [../base]\n",
        "prod/kustomization.yaml": "namespace: shop\nnamePrefix: prod-\nresources: [../base]\n",
        "fixed/kustomization.yaml": (
            "namespace: fixed\nnamePrefix: prod-\nresources: [../base]\npatches:\n"
            "- {path: db-host.yaml, target: {kind: Deployment, name: web}}\n"),
        "fixed/db-host.yaml": patch,
        "charted/kustomization.yaml": (
            "namespace: charted\nnameSuffix: -v2\nresources: [../base, release.yaml]\n"),
        "charted/release.yaml": """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: postgres}
spec:
  chart: {spec: {chart: postgresql, sourceRef: {kind: HelmRepository, name: bitnami}}}
"""})
    result = lint_dir(tmp_path, only=[RULE])
    (error,) = [f for f in result.findings if f.kind == "dependency-missing"]
    assert (error.file, error.line, error.severity, error.object, error.message, error.fix) == (
        "base/web.yaml", 13, "error", "Deployment/shop/prod-web",
        "shop/prod-web calls db:5432, but its build renames Service shop/db to prod-db "
        "(namePrefix prod-), and kustomize renames no address written in a value: no "
        "Service shop/db answers (so does charted/web-v2, built from the same line)",
        "Write prod-db in the address (a patch of the overlay, or a replacement from "
        "Service shop/prod-db's metadata.name).")
    (tmp_path / "prod/kustomization.yaml").unlink()
    (doubted,) = [f for f in lint_dir(tmp_path, only=[RULE]).findings
                  if f.kind == "dependency-missing"]
    assert (doubted.severity, doubted.object, doubted.message.partition("Not certain: ")[2]) == (
        "warning", "Deployment/charted/web-v2",
        "reviewbot could not see whether HelmRelease postgres-v2 in charted makes a Service db.")


def test_an_address_keeping_an_old_name_prefix_names_no_service(tmp_path: Path) -> None:
    """New-user trial eighty-eight D5: staging's `namePrefix: stg-` became `staging-`, its
    ConfigMap still calls `stg-postgres:5432`: the review said every address names a Service
    the change removes, a lint nothing. An address naming no Service of its cluster that is
    a renamed Service's written name under another prefix is `dependency-missing`, a warning
    (a Service of that name may be made outside the repository)."""
    app = deployment("api", "", "{app: api}").replace(", namespace: }", "}").replace(
        "image: x", "image: x\n        env: [{name: DB, value: 'stg-postgres:5432'}]") + (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: postgres}\n"
        "spec: {selector: {app: postgres}, ports: [{port: 5432}]}\n")
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [app.yaml]\n",
        "base/app.yaml": app,
        "staging/kustomization.yaml": "namespace: shop\nnamePrefix: staging-\n"
                                      "resources: [../base]\n"})
    found = [f for f in lint_dir(tmp_path, only=[RULE]).findings
             if f.kind == "dependency-missing"]
    assert [(f.severity, f.message.split(". Not certain")[0], f.fix) for f in found] == [(
        "warning", "shop/staging-api calls stg-postgres:5432, but no Service shop/stg-postgres "
        "is in its cluster: its build names Service postgres staging-postgres (namePrefix "
        "staging-), and kustomize renames no address written in a value",
        "Write staging-postgres in the address (a patch of the overlay, or a replacement "
        "from Service shop/staging-postgres's metadata.name).")]
    # the prefix the address writes is the build's: nothing
    (tmp_path / "staging/kustomization.yaml").write_text(
        "namespace: shop\nnamePrefix: stg-\nresources: [../base]\n")
    assert [f for f in lint_dir(tmp_path, only=[RULE]).findings
            if f.kind == "dependency-missing"] == []


def test_two_overlays_of_one_namespace_each_name_their_own_renamed_service(
        tmp_path: Path) -> None:
    """New-user trial forty: dev (`namePrefix: dev-`) and staging (`stg-`) overlays of one
    namespace in one cluster, neither fixing `ORDERS_HOST=orders`: staging's finding said
    "renames Service shop/orders to dev-orders" and its fix "Write dev-orders". Each
    caller's own build renamed it as it renamed the caller."""
    app = deployment("api", "", "{app: api}").replace(", namespace: }", "}").replace(
        "image: x", "image: x\n        envFrom: [{configMapRef: {name: api-config}}]") + (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: orders}\n"
        "spec: {selector: {app: orders}, ports: [{port: 8081}]}\n")
    overlay = ("namespace: shop\nnamePrefix: PREFIX-\nresources: [../../base]\n"
               "configMapGenerator:\n- {name: api-config, behavior: merge, "
               "literals: [LOG_LEVEL=debug]}\n")
    write(tmp_path, {
        ".reviewbot.yaml": "clusters:\n  - {name: nonprod, paths: [overlays/dev, "
                           "overlays/staging]}\n",
        "base/kustomization.yaml": "resources: [app.yaml]\nconfigMapGenerator:\n"
                                   "- {name: api-config, literals: [ORDERS_HOST=orders:8081]}\n",
        "base/app.yaml": app,
        "overlays/dev/kustomization.yaml": overlay.replace("PREFIX", "dev"),
        "overlays/staging/kustomization.yaml": overlay.replace("PREFIX", "stg")})
    said = sorted(f.message.split(", and kustomize")[0] for f in lint_dir(
        tmp_path, only=[RULE]).findings if f.kind == "dependency-missing")
    assert said == [
        "shop/dev-api calls orders:8081, but its build renames Service shop/orders to "
        "dev-orders (namePrefix dev-)",
        "shop/stg-api calls orders:8081, but its build renames Service shop/orders to "
        "stg-orders (namePrefix stg-)"]


def test_an_app_template_value_naming_a_service_a_prefix_renamed_is_said(
        tmp_path: Path) -> None:
    """New-user trial thirty-nine: lab's data stack took `namePrefix: lab-`; paperless, an
    app-template release, keeps `redis.data.svc.cluster.local:6379` in its values: lint said
    "its cluster has no Service data/redis (only cluster home has it)", fix "Add Service
    data/redis", where the build renamed it lab-redis. The values are written into the
    container as they are: the renamed call, said as a plain workload's."""
    release = """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: paperless, namespace: apps}
spec:
  interval: 1h
  chartRef: {kind: OCIRepository, name: app-template}
  values:
    controllers:
      main:
        containers:
          app:
            image: {repository: ghcr.io/paperless, tag: 2.0.0}
            env:
              REDIS: redis://redis.data.svc.cluster.local:6379
"""
    redis = ("apiVersion: v1\nkind: Service\nmetadata: {name: redis, namespace: data}\n"
             "spec: {selector: {app: redis}, ports: [{port: 6379}]}\n")
    write(tmp_path, {"lab/kustomization.yaml": "namePrefix: lab-\nresources: [app.yaml, "
                                               "redis.yaml]\n",
                     "lab/app.yaml": release, "lab/redis.yaml": redis})
    (found,) = [f for f in lint_dir(tmp_path, only=[RULE]).findings
                if f.kind == "dependency-missing"]
    assert found.message.startswith(
        "apps/lab-paperless calls redis.data.svc.cluster.local:6379, but its build renames "
        "Service data/redis to lab-redis (namePrefix lab-)"), found.message


def test_a_change_adding_a_prefix_the_address_does_not_follow_is_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The change adds prod's `namePrefix`: the Service `db` the web calls leaves the build
    (renamed), which the change's check says, and the head's own finding says it with its
    cause (kustomize renames no address in a value): one finding, not two of one fact."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "base/kustomization.yaml": "resources: [web.yaml, db.yaml]\n",
        "base/web.yaml": deployment("web", "shop", "{app: web}").replace(
            "image: x", "image: x\n        env: [{name: DB_HOST, value: 'db:5432'}]"),
        "base/db.yaml": ("apiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\n"
                         "spec: {selector: {app: db}, ports: [{port: 5432}]}\n"),
        "prod/kustomization.yaml": "resources: [../base]\n"})
    head = repo.commit({"prod/kustomization.yaml": "namePrefix: prod-\nresources: [../base]\n"})
    found = review_findings(repo, base, head, capsys)
    assert [(f["severity"], f["file"], f["line"], f["message"].split(", but ")[1][:28])
            for f in found] == [("error", "base/web.yaml", 12, "its build renames Service sh")]


def test_a_url_on_its_scheme_s_port_the_service_lacks_is_a_warning(tmp_path: Path) -> None:
    """New-user trial thirty-eight: the webui's `http://vllm.llm.svc.cluster.local/v1` lost
    its `:8000`; the Service's only port is 8000: the program connects to 80, the scheme's,
    and is refused, and nothing was said. A warning (a URL may be a setting the program
    rewrites): an env value only; an https URL asks 443; the URL on a port the Service has,
    or with its port written right, is quiet."""
    webui = deployment("webui", "chat", "{app: webui}").replace(
        "image: x", "image: x\n        env:\n"
        "        - {name: A, value: 'http://vllm.llm.svc.cluster.local/v1'}\n"
        "        - {name: B, value: 'https://vllm.llm.svc.cluster.local'}\n"
        "        - {name: C, value: 'http://vllm.llm.svc.cluster.local:8000/v1'}\n"
        "        - {name: D, value: 'http://web.llm.svc.cluster.local/'}")
    services = """
---
apiVersion: v1
kind: Service
metadata: {name: vllm, namespace: llm}
spec: {selector: {app: vllm}, ports: [{port: 8000}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: llm}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}
"""
    result = lint_text(tmp_path, webui + services, only=[RULE])
    assert [(f.line, f.kind, f.severity, f.message.split(". Not certain")[0])
            for f in result.findings] == [
        (13, "dependency-port", "warning",
         "chat/webui calls http://vllm.llm.svc.cluster.local/v1 (port 80, its scheme's), but "
         "Service llm/vllm has no port 80 (it has 8000): a ClusterIP Service forwards only the "
         "ports it lists, so the connection is refused"),
        (14, "dependency-port", "warning",
         "chat/webui calls https://vllm.llm.svc.cluster.local (port 443, its scheme's), but "
         "Service llm/vllm has no port 443 (it has 8000): a ClusterIP Service forwards only "
         "the ports it lists, so the connection is refused")]
    assert result.findings[0].fix == (
        "Write the port in the URL (vllm.llm.svc.cluster.local:8000), or add port 80 to "
        "Service llm/vllm.")
    # a ConfigMap key the pod reads as env (envFrom) alike; one it mounts as a file is not
    # judged (new-user trial forty)
    config = """
---
apiVersion: v1
kind: ConfigMap
metadata: {name: NAME, namespace: chat}
data: {LLM_URL: 'http://vllm.llm.svc.cluster.local/v1'}
"""
    reader = deployment("reader", "chat", "{app: reader}").replace(
        "image: x", "image: x\n        envFrom: [{configMapRef: {name: env-config}}]").replace(
        "      containers:", "      volumes: [{name: c, configMap: {name: file-config}}]\n"
        "      containers:")
    result = lint_text(tmp_path / "cm", reader + config.replace("NAME", "env-config")
                       + config.replace("NAME", "file-config") + services, only=[RULE])
    assert [(f.object, f.kind, f.severity) for f in result.findings] == [
        ("ConfigMap/chat/env-config", "dependency-port", "warning")]


def test_a_denied_call_says_its_namespace_selector_matches_no_namespace(tmp_path: Path) -> None:
    """New-user trial thirty-four: the api's egress rule selects namespaces `team: llm`, the
    llm Namespace is labelled `team: ml-platform`: the call is denied, and the message did
    not say the selector matches no namespace; the fix said to add an egress rule beside it."""
    text = """
apiVersion: v1
kind: Namespace
metadata: {name: llm, labels: {team: ml-platform}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-egress, namespace: web}
spec:
  podSelector: {matchLabels: {app: api}}
  policyTypes: [Egress]
  egress:
  - to: [{namespaceSelector: {matchLabels: {team: llm}}}]
    ports: [{port: 8000}]
""" + deployment("api", "web", "{app: api}").replace(
        "image: x", "image: x\n        env: [{name: LLM, value: 'http://vllm.llm:8000/v1'}]"
    ) + deployment("vllm", "llm", "{app: vllm}", "ports: [{containerPort: 8000}]") + """
---
apiVersion: v1
kind: Service
metadata: {name: vllm, namespace: llm}
spec:
  selector: {app: vllm}
  ports: [{port: 8000}]
"""
    result = lint_text(tmp_path, text, only=[RULE])
    (denied,) = [f for f in result.findings if f.kind == "dependency-denied"]
    assert denied.message.endswith(
        "but no egress rule in web allows it (the namespaceSelector team=llm of spec.egress[0] "
        "of NetworkPolicy web/api-egress matches no namespace: Namespace llm has "
        "team=ml-platform)")
    assert denied.fix == ("Select namespace llm in the namespaceSelector of spec.egress[0] of "
                          "NetworkPolicy web/api-egress (it has team=ml-platform).")
    # the same of the destination's ingress rule, its label one no namespace carries but
    # naming the namespace (new-user trial fifty-nine: `team: chat` for the chat namespace)
    ingress = text.replace("{team: llm}}}]\n    ports: [{port: 8000}]",
                           "{kubernetes.io/metadata.name: llm}}}]\n    ports: [{port: 8000}]")
    ingress += """
---
apiVersion: v1
kind: Namespace
metadata: {name: web}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: vllm-ingress, namespace: llm}
spec:
  podSelector: {matchLabels: {app: vllm}}
  policyTypes: [Ingress]
  ingress:
  - from: [{namespaceSelector: {matchLabels: {team: web}}}]
    ports: [{port: 8000}]
"""
    result = lint_text(tmp_path / "ingress", ingress, only=[RULE])
    (denied,) = [f for f in result.findings if f.kind == "dependency-denied"]
    assert denied.message.endswith(
        "but no ingress rule in llm admits it (the namespaceSelector team=web of "
        "spec.ingress[0] of NetworkPolicy llm/vllm-ingress matches no namespace: Namespace "
        "web has no team label)")
    assert denied.fix == ("Select namespace web in the namespaceSelector of spec.ingress[0] of "
                          "NetworkPolicy llm/vllm-ingress (by its name: "
                          "kubernetes.io/metadata.name: web).")


def test_a_shared_config_map_s_address_denied_to_one_reader_is_not_certain(
        tmp_path: Path) -> None:
    """New-user trial fifty-six: the app's settings ConfigMap, loaded whole (`envFrom`) by
    the api, allowed to call the model server, and by a migration Job, which never calls it:
    the Job's "call" was an error. Which of a ConfigMap's readers dials an address it holds
    is not written: where some are allowed and others not, a warning that says so; where
    none of its readers is allowed, an error."""
    allowed = """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-api, namespace: llm}
spec:
  podSelector: {matchLabels: {app: model}}
  policyTypes: [Ingress]
  ingress: [{from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: chat}},
                     podSelector: {matchLabels: {app: %s}}}], ports: [{port: 8080}]}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: chat}
data: {LLM_URL: 'http://model.llm.svc.cluster.local:8080/v1'}
---
apiVersion: v1
kind: Service
metadata: {name: model, namespace: llm}
spec: {selector: {app: model}, ports: [{port: 8080}]}
"""
    reads = "image: x\n        envFrom: [{configMapRef: {name: settings}}]"
    text = deployment("model", "llm", "{app: model}", "ports: [{containerPort: 8080}]") + \
        deployment("api", "chat", "{app: api}").replace("image: x", reads) + \
        deployment("migrate", "chat", "{app: migrate}").replace("image: x", reads)
    some = lint_text(tmp_path / "some", text + allowed % "api", only=[RULE])
    denied = [f for f in some.findings if f.kind == "dependency-denied"]
    assert [(f.severity, f.message.split(" calls ")[0]) for f in denied] == [
        ("warning", "chat/migrate")]
    assert "ConfigMap chat/settings is read by chat/api too, whose call is allowed" in (
        denied[0].message)
    none = lint_text(tmp_path / "none", text + allowed % "other", only=[RULE])
    assert [f.severity for f in none.findings if f.kind == "dependency-denied"] == ["error"]
    # a reader that names the key itself (`configMapKeyRef`) writes its intent: an error
    # (judge round BZ: neobank's ledger-service reads IDENTITY_SERVICE_URL by its key)
    named = deployment("model", "llm", "{app: model}", "ports: [{containerPort: 8080}]") + \
        deployment("api", "chat", "{app: api}").replace("image: x", reads) + \
        deployment("migrate", "chat", "{app: migrate}").replace(
            "image: x", "image: x\n        env: [{name: LLM_URL, valueFrom: {configMapKeyRef: "
            "{name: settings, key: LLM_URL}}}]")
    keyed = lint_text(tmp_path / "named", named + allowed % "api", only=[RULE])
    assert [f.severity for f in keyed.findings if f.kind == "dependency-denied"] == ["error"]


def test_a_config_map_volume_no_container_mounts_makes_no_call(tmp_path: Path) -> None:
    """Judge round CU: StackRox's scanner-db declares the scanner's config volume and mounts
    it in no container; the sensor URL in the ConfigMap was "its" call, denied (an error).
    A volume no container mounts is read by none; the pod that mounts it calls."""
    text = """
apiVersion: v1
kind: ConfigMap
metadata: {name: config, namespace: scan}
data: {config.yaml: 'sensorEndpoint: https://sensor.scan.svc:8443'}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: sensor, namespace: scan}
spec:
  podSelector: {matchLabels: {app: sensor}}
  policyTypes: [Ingress]
  ingress: [{from: [{podSelector: {matchLabels: {app: collector}}}]}]
---
apiVersion: v1
kind: Service
metadata: {name: sensor, namespace: scan}
spec: {selector: {app: sensor}, ports: [{port: 8443}]}
""" + deployment("sensor", "scan", "{app: sensor}", "ports: [{containerPort: 8443}]") + \
        deployment("db", "scan", "{app: db}").replace(
            "        image: x\n", "        image: x\n      volumes: [{name: config, configMap: "
            "{name: config}}]\n") + deployment("scanner", "scan", "{app: scanner}").replace(
            "        image: x\n", "        image: x\n        volumeMounts: [{name: config, "
            "mountPath: /etc/scanner}]\n      volumes: [{name: config, configMap: "
            "{name: config}}]\n")
    result = lint_text(tmp_path, text, only=[RULE])
    denied = [f for f in result.findings if f.kind == "dependency-denied"]
    assert len(denied) == 1 and denied[0].message.startswith("scan/scanner calls ")


def test_a_denied_call_says_its_namespace_name_is_misspelt(tmp_path: Path) -> None:
    """New-user trial fifty-four: chat-api's egress rule names namespace `lm` (for `llm`) by
    `kubernetes.io/metadata.name`; the fix said to add an egress rule beside the broken one,
    and llm's ingress-unused warning said the same. Both name the misspelt namespace."""
    text = """
apiVersion: v1
kind: Namespace
metadata: {name: llm}
---
apiVersion: v1
kind: Namespace
metadata: {name: web}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-egress, namespace: web}
spec:
  podSelector: {matchLabels: {app: api}}
  policyTypes: [Egress]
  egress:
  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: lm}}}]
    ports: [{port: 8000}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: vllm, namespace: llm}
spec:
  podSelector: {matchLabels: {app: vllm}}
  policyTypes: [Ingress]
  ingress:
  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: web}},
            podSelector: {matchLabels: {app: api}}}]
    ports: [{port: 8000}]
""" + deployment("api", "web", "{app: api}").replace(
        "image: x", "image: x\n        env: [{name: LLM, value: 'http://vllm.llm:8000/v1'}]"
    ) + deployment("vllm", "llm", "{app: vllm}", "ports: [{containerPort: 8000}]") + """
---
apiVersion: v1
kind: Service
metadata: {name: vllm, namespace: llm}
spec:
  selector: {app: vllm}
  ports: [{port: 8000}]
"""
    result = lint_text(tmp_path, text, only=[RULE])
    found = {f.kind: f for f in result.findings}
    said = (" (spec.egress[0] of NetworkPolicy web/api-egress names namespace lm, which the "
            "cluster does not have: did you mean llm?)")
    fix = "Name namespace llm in the namespaceSelector of spec.egress[0] of NetworkPolicy " \
          "web/api-egress."
    assert found["dependency-denied"].message.endswith(said)
    assert found["ingress-unused"].message.endswith(said)
    assert found["dependency-denied"].fix == found["ingress-unused"].fix == fix


def test_one_flow_s_two_findings_give_one_fix(tmp_path: Path) -> None:
    """New-user trial thirty-four: the indexer's egress to vLLM, whose ingress rule admits
    namespace web's api pods only: egress-unmatched's fix said "admit namespace web", then
    that the podSelector selects no pod of the indexer; dependency-denied's said "admit
    web/indexer". Both admit the workloads."""
    text = """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: indexer, namespace: web}
spec:
  podSelector: {matchLabels: {app: indexer}}
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
  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: web}},
            podSelector: {matchLabels: {app: api}}}]
    ports: [{port: 8000}]
""" + deployment("indexer", "web", "{app: indexer}").replace(
        "image: x", "image: x\n        env: [{name: LLM, value: 'http://vllm.llm:8000/v1'}]"
    ) + deployment("api", "web", "{app: api}") + deployment(
        "vllm", "llm", "{app: vllm}", "ports: [{containerPort: 8000}]") + """
---
apiVersion: v1
kind: Service
metadata: {name: vllm, namespace: llm}
spec:
  selector: {app: vllm}
  ports: [{port: 8000}]
"""
    result = lint_text(tmp_path, text, only=[RULE])
    fixes = {f.kind: f.fix.split(":")[0] for f in result.findings
             if f.kind in ("egress-unmatched", "dependency-denied")}
    assert fixes == {
        "egress-unmatched": "Widen the ingress rule spec.ingress[0] of llm/vllm to admit "
                            "web/indexer on 8000",
        "dependency-denied": "Widen the ingress rule spec.ingress[0] of llm/vllm to admit "
                             "web/indexer on 8000"}


def test_a_call_two_overlays_lose_is_said_of_each_namespace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """New-user trial thirty-five: a base's caller, built by staging and prod into their
    namespaces, loses its Service in both: the finding of one line was said once, of prod's
    namespace only (one place, one finding), in every format. Each namespace's is said."""
    api = deployment("api", "shop", "{app: api}").replace(
        "image: x", "image: x\n        env: [{name: DB, value: 'postgres://db:5432/shop'}]")
    db = deployment("db", "shop", "{app: db}") + (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\n"
        "spec:\n  selector: {app: db}\n  ports: [{port: 5432}]\n")
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit({
        "base/kustomization.yaml": "resources: [api.yaml, db.yaml]\n",
        "base/api.yaml": api, "base/db.yaml": db,
        "overlays/staging/kustomization.yaml": "namespace: staging\nresources: [../../base]\n",
        "overlays/prod/kustomization.yaml": "namespace: prod\nresources: [../../base]\n"})
    head = repo.commit({"base/db.yaml": deployment("db", "shop", "{app: db}")})
    found = review_findings(repo, base, head, capsys)
    assert sorted(f["message"].split(", but ")[1].split(" is ")[0] for f in found
                  if "no longer in this cluster" in f["message"]) == [
        "Service prod/db", "Service staging/db"]


def test_an_address_in_a_config_map_generator_s_literals_is_read(tmp_path: Path) -> None:
    """New-user trial thirty-five: `DATABASE_URL=postgres://shop@db:5432/shop` in a
    configMapGenerator the api loads with envFrom, beside Service db of port 5433: the
    generated ConfigMap is no object of the tree, its keys were never read, and nothing was
    said (a plain ConfigMap's was). Said at the literal; a user before the host is no
    matter."""
    write(tmp_path, {
        "kustomization.yaml": "namespace: shop\nresources: [app.yaml]\nconfigMapGenerator:\n"
                              "- name: api-config\n  literals:\n  - LOG=debug\n"
                              "  - DATABASE_URL=postgres://shop@db:5432/shop\n",
        "app.yaml": deployment("api", "shop", "{app: api}").replace(
            "image: x", "image: x\n        envFrom: [{configMapRef: {name: api-config}}]")
        + deployment("db", "shop", "{app: db}") + (
            "---\napiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\n"
            "spec:\n  selector: {app: db}\n  ports: [{port: 5433}]\n")})
    result = lint_dir(tmp_path, only=[RULE])
    assert [(f.file, f.line, f.kind, f.message.split(" (it has")[0]) for f in result.findings
            ] == [("kustomization.yaml", 7, "dependency-port",
                   "shop/api calls db:5432, but Service shop/db has no port 5432")]


def test_a_refused_call_one_base_line_makes_in_two_overlays_names_both(tmp_path: Path) -> None:
    """New-user trial forty-two: a base ConfigMap's `postgres:5432` beside a Service listing
    5433 only, built by two overlays into namespaces a and b: the lint said a's error and
    dropped b's, JSON alike. One finding at the line, naming the other caller."""
    base = {
        "base/kustomization.yaml": "resources: [app.yaml]\n",
        "base/app.yaml": """
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data:
  DATABASE_URL: postgres://postgres:5432/app
---
apiVersion: v1
kind: Service
metadata: {name: postgres}
spec:
  selector: {app: postgres}
  ports: [{port: 5433}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: web, envFrom: [{configMapRef: {name: cfg}}]}]
""",
        "a/kustomization.yaml": "namespace: a\nresources: [../base]\n",
        "b/kustomization.yaml": "namespace: b\nresources: [../base]\n"}
    write(tmp_path, base)
    result = lint_dir(tmp_path, only=["netpol-pairing"])
    assert [(f.file, f.line, f.kind, f.message) for f in result.findings] == [
        ("base/app.yaml", 5, "dependency-port",
         "a/web calls postgres:5432, but Service a/postgres has no port 5432 (it has 5433): a "
         "ClusterIP Service forwards only the ports it lists, so the connection is refused "
         "(so does b/web, built from the same line)")]


def test_a_host_a_variable_or_template_continues_names_no_service() -> None:
    """New-user trial forty-three: `WEBUI_URL: https://chat.${SECRET_DOMAIN}` (a domain a
    SOPS Secret holds) was read as Service `chat` ("calls chat.:443"). A host a variable or
    a template expression continues is another name, unseen; a URL ending a sentence is
    still read."""
    assert endpoints("https://chat.${SECRET_DOMAIN}", "default") == ()
    assert endpoints("https://api.{{ .Values.domain }}/v1", "default") == ()
    assert [e.text for e in endpoints("see http://web:8080.", "d")] == ["web"]
    assert [(e.text, e.port) for e in endpoints("redis://redis.data:6379/0", "d")] == [
        ("redis.data", 6379)]


def test_judge_round_ek_s_dns_of_localhost_and_an_egress_port_nothing_serves(
        tmp_path: Path) -> None:
    """Judge round EK (shaman007/home-k3s): a Postgres pod whose one named address is its
    exporter sidecar's `localhost:5432` (the pod's own, from /etc/hosts: no DNS) and an egress
    rule to monitoring on 3100, where no pod listens (Loki runs in `loki`): errors, each
    certain only of a name that needs DNS and a port some pod serves."""
    deny = ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
            "metadata: {name: deny, namespace: NS}\nspec:\n  podSelector: {}\n"
            "  policyTypes: [Ingress, Egress]\n")
    db = deployment("pg", "db", "{app: pg}", "ports: [{containerPort: 5432}]").replace(
        "        image: x\n",
        "        image: x\n        env: [{name: DATA_SOURCE, value: 'localhost:5432'}]\n")
    result = lint_text(tmp_path / "dns", db + "---\n" + deny.replace("NS", "db"),
                       only=["netpol-pairing"])
    assert [(f.kind, f.severity) for f in result.findings if f.kind == "dns-denied"] == [
        ("dns-denied", "warning")]
    egress = ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
              "metadata: {name: out, namespace: unifi}\nspec:\n  podSelector: {}\n"
              "  policyTypes: [Egress]\n  egress:\n  - to:\n"
              "    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}\n"
              "    ports: [{port: PORT, protocol: TCP}]\n")
    report = deployment("report", "monitoring", "{app: report}").replace(
        "kind: Deployment", "kind: Job").replace("  selector: {matchLabels: {app: report}}\n",
                                                 "")
    text = (deployment("poller", "unifi", "{app: poller}") + "---\n"
            + deployment("grafana", "monitoring", "{app: grafana}",
                         "ports: [{containerPort: 3000}]") + "---\n" + report
            + "---\n" + deny.replace("NS", "monitoring").replace(", Egress", ""))
    for port, said in (("3100", "warning"), ("3000", "error")):
        result = lint_text(tmp_path / port, text + "---\n" + egress.replace("PORT", port),
                           only=["netpol-pairing"])
        found = [(f.severity, "no pod there declares it (Deployment grafana declares TCP "
                  "3000)" in f.message) for f in result.findings
                 if f.kind == "egress-unmatched"]
        assert found == [(said, said == "warning")], port


def test_a_peer_only_an_unapplied_workload_carries_names_that_workload(
        tmp_path: Path) -> None:
    """New-user trial eighty-seven D7: miniflux's Kustomization path misspelt, its folder
    applied by no root; the postgres policy's peer `app.kubernetes.io/name=miniflux` then
    "matches no pod", doubting another release's chart, with the fix "delete the policy if
    those pods are gone". The workload that would carry it is named, and its file."""
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: %s, namespace: flux-system}\n"
            "spec:\n  interval: 1h\n  prune: true\n  path: %s\n"
            "  sourceRef: {kind: GitRepository, name: flux-system}\n")
    policy = ("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
              "metadata: {name: db, namespace: db}\nspec:\n  podSelector: {}\n"
              "  policyTypes: [Ingress]\n  ingress:\n  - from:\n"
              "    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: web}}\n"
              "      podSelector: {matchLabels: {app: web}}\n")
    write(tmp_path, {
        "clusters/home/flux-system/gotk-sync.yaml": sync % ("flux-system", "./clusters/home"),
        "clusters/home/apps.yaml": sync % ("db", "./apps/db") + "---\n" + sync % (
            "web", "./apps/wbe"),
        "apps/db/policy.yaml": policy + "---\n" + deployment("pg", "db", "{app: pg}"),
        "apps/db/other.yaml": deployment("other", "web", "{app: other}"),
        "apps/web/deploy.yaml": deployment("web", "web", "{app: web}"),
    })
    (found,) = [f for f in lint_dir(tmp_path, only=["netpol-pairing"]).findings
                if f.kind == "selects-nothing"]
    assert found.message.endswith(
        "(no workload of web carries app=web; Deployment web in apps/web/deploy.yaml would, a "
        "file no cluster root applies)")
    assert found.fix.startswith("Apply apps/web/deploy.yaml")


def test_a_call_is_not_doubted_for_the_unseen_variables_of_other_env_values(
        tmp_path: Path) -> None:
    """Judge round EJ (mrwulf/home-cluster): mealie's `OPENAI_BASE_URL` names ollama's port
    11424 (11434), a certain error, made "Not certain" by ${SECRET_DOMAIN} of its other
    variables, whose values a Secret outside the tree holds. The call's own value decides;
    a variable in it still makes the doubt."""
    sync = ("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"
            "metadata: {name: %s, namespace: flux-system}\n"
            "spec:\n  interval: 1h\n  prune: true\n  path: %s\n"
            "  sourceRef: {kind: GitRepository, name: flux-system}\n%s")
    post = "  postBuild:\n    substituteFrom: [{kind: Secret, name: cluster-secrets}]\n"
    app = deployment("mealie", "home", "{app: mealie}").replace(
        "        image: x\n", "        image: x\n        env:\n"
        "        - {name: OPENAI_BASE_URL, value: 'URL'}\n"
        "        - {name: BASE_URL, value: 'https://mealie.${SECRET_DOMAIN}'}\n")
    ollama = deployment("ollama", "ai", "{app: ollama}", "ports: [{containerPort: 11434}]") + (
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: ollama, namespace: ai}\n"
        "spec: {selector: {app: ollama}, ports: [{port: 11434}]}\n")
    for url, said in (("http://ollama.ai.svc.cluster.local:11424/v1", "error"),
                      ("http://ollama.ai.svc.cluster.local:${OLLAMA_PORT}/v1", None)):
        write(tmp_path / str(said), {
            "clusters/home/flux-system/gotk-sync.yaml": sync % (
                "flux-system", "./clusters/home", ""),
            "clusters/home/apps.yaml": sync % ("apps", "./apps", post),
            "apps/mealie.yaml": app.replace("URL", url), "apps/ollama.yaml": ollama})
        found = [(f.kind, f.severity) for f in lint_dir(
            tmp_path / str(said), only=["netpol-pairing"]).findings
            if f.kind == "dependency-port"]
        assert found == ([("dependency-port", said)] if said else []), url


def test_a_call_a_policy_would_admit_but_for_its_pod_selector_names_the_selector(
        tmp_path: Path) -> None:
    """New-user trial forty-five: the llm namespace's allow-from-web policy's podSelector
    `vllm` misspelt `vlm`; web's call was refused with "Add an ingress rule in llm admitting
    namespace web on 8000", a rule the policy holds. The selector is the cause, and one of
    the finding's places."""
    text = (deployment("web", "web", "{app: web}").replace(
        "image: x", "image: x\n        env: [{name: LLM, value: 'http://vllm.llm:8000/v1'}]")
        + deployment("vllm", "llm", "{app: vllm}", "ports: [{containerPort: 8000}]") + """
---
apiVersion: v1
kind: Service
metadata: {name: vllm, namespace: llm}
spec: {selector: {app: vllm}, ports: [{port: 8000}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny, namespace: llm}
spec: {podSelector: {}, policyTypes: [Ingress]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-from-web, namespace: llm}
spec:
  podSelector: {matchLabels: {app: vlm}}
  policyTypes: [Ingress]
  ingress:
  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: web}}}]
    ports: [{port: 8000}]
""")
    result = lint_text(tmp_path, text, only=["netpol-pairing"])
    (denied,) = [f for f in result.findings if f.kind == "dependency-denied"]
    assert denied.message == (
        "web/web calls vllm.llm:8000 (llm/vllm on TCP 8000), but no ingress rule in llm admits "
        "it (NetworkPolicy llm/allow-from-web would: its podSelector app=vlm selects no pod of "
        "llm/vllm)")
    assert denied.fix == ("Make the podSelector of NetworkPolicy llm/allow-from-web match "
                          "llm/vllm (app=vllm).")
    assert ("NetworkPolicy/llm/allow-from-web", 43) in {(o.object, o.line)
                                                       for o in denied.others}
    # a policy of other pods (it selects some) is theirs, not the call's astray one
    other = text.replace("{app: vlm}", "{app: other}") + deployment("other", "llm",
                                                                    "{app: other}")
    result = lint_text(tmp_path / "other", other, only=["netpol-pairing"])
    (denied,) = [f for f in result.findings if f.kind == "dependency-denied"]
    assert denied.fix == "Add an ingress rule in llm admitting namespace web on 8000."


def test_an_egress_port_no_destination_pod_declares_is_fixed_at_the_egress_rule(
        tmp_path: Path) -> None:
    """New-user trial fifty: api's egress rule to redis names 6739 (a typo of 6379, the
    port redis's pods declare and its ingress admits): the fix said to widen redis's
    ingress to admit api on 6739, which followed opens a port nothing listens on, and the
    error stays. The port is the egress rule's to correct."""
    text = (deployment("api", "web", "{app: api}") + deployment(
        "redis", "web", "{app: redis}", "ports: [{containerPort: 6379}]") + """
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api, namespace: web}
spec:
  podSelector: {matchLabels: {app: api}}
  policyTypes: [Egress]
  egress:
  - to: [{podSelector: {matchLabels: {app: redis}}}]
    ports: [{port: 6739}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: redis, namespace: web}
spec:
  podSelector: {matchLabels: {app: redis}}
  policyTypes: [Ingress]
  ingress:
  - from: [{podSelector: {matchLabels: {app: api}}}]
    ports: [{port: 6379}]
""")
    found = [f for f in lint_text(tmp_path, text, only=[RULE]).findings
             if f.kind == "egress-unmatched"]
    assert [f.fix for f in found] == [
        "Correct the port of this egress rule: the pods of web/redis declare TCP 6379, not "
        "6739 (did you mean 6379?)."]
    # pods that declare no port (a chart's) are sent to on their Services' target ports
    # (new-user trial seventy-nine D3: open-webui's egress moved to 8080, vllm served on 8000)
    service = ("---\napiVersion: v1\nkind: Service\nmetadata: {name: redis, namespace: web}\n"
               "spec:\n  selector: {app: redis}\n  ports: [{port: 6379, targetPort: %s}]\n")
    bare = text.replace("ports: [{containerPort: 6379}]", "")
    found = [f for f in lint_text(tmp_path / "served", bare + service % "6379",
                                  only=[RULE]).findings if f.kind == "egress-unmatched"]
    assert [f.fix for f in found] == [
        "Correct the port of this egress rule: the pods of web/redis are sent to on TCP 6379 "
        "(their Services' target ports), not 6739 (did you mean 6379?)."]
    for unknown in (bare, bare + service % "redis"):  # no Service, or one by port name
        found = [f for f in lint_text(tmp_path / str(len(unknown)), unknown,
                                      only=[RULE]).findings if f.kind == "egress-unmatched"]
        assert [f.fix.split(" ")[0] for f in found] == ["Widen"]


@pytest.mark.parametrize("runs, calls", [
    ("backup.sh", False), ("bootstrap.sh", True), ("main.sh", True)])
def test_a_mounted_script_s_calls_are_made_only_where_it_runs(
        tmp_path: Path, runs: str, calls: bool) -> None:
    """Judge round CI (proompteng/lab): a backup Job mounts the ConfigMap of the bootstrap
    scripts and runs backup-once.sh; another script of it clones from github.com, and the
    Job was "cut off from DNS, github.com (which they call) among them", an error. A script
    is code: its calls are the pod's where its command runs it, or a script run calls it
    (main.sh sources bootstrap.sh)."""
    text = (deployment("api", "web", "{app: api}", "ports: [{containerPort: 8080}]") + """
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: web}
spec: {selector: {app: api}, ports: [{port: 8080}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: scripts, namespace: jobs}
data:
  backup.sh: "tar czf /backups/x.tgz /data"
  bootstrap.sh: "curl -s http://api.web:8080/register"
  main.sh: ". /opt/scripts/bootstrap.sh"
---
apiVersion: batch/v1
kind: Job
metadata: {name: task, namespace: jobs}
spec:
  template:
    metadata: {labels: {app: task}}
    spec:
      restartPolicy: Never
      containers:
      - name: task
        image: x
        command: [/bin/sh, /opt/scripts/RUNS]
        volumeMounts: [{name: scripts, mountPath: /opt/scripts}]
      volumes: [{name: scripts, configMap: {name: scripts}}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: jobs}
spec: {podSelector: {}, policyTypes: [Egress]}
""").replace("RUNS", runs)
    found = [f for f in lint_text(tmp_path, text, only=[RULE]).findings
             if f.kind == "dependency-denied"]
    assert [f.message.split(" calls ")[1].split(" ")[0] for f in found] == (
        ["api.web:8080"] if calls else [])


@pytest.mark.parametrize("data, calls", [
    ("""--data '{"uri":"http://api.web:8080"}'""", []),
    ('-d "uri=http://api.web:8080"', []),
    ("--json '{\"uri\": \"http://api.web:8080\"}' http://api.web:8080/ping", ["api.web:8080"]),
    # (psql's -d is the database it calls, no payload)
    ("&& psql -d postgres://api.web:8080/app", ["api.web:8080"])])
def test_an_address_a_client_sends_as_data_is_no_call_of_its_own(
        tmp_path: Path, data: str, calls: list[str]) -> None:
    """Judge round CI (proompteng/lab): a register Job posts `{"uri": "http://restate-
    example...:9080"}` to restate, which calls it: "the Job calls :9080, but no ingress
    rule admits it", an error. What a client sends as a request's body is the receiver's
    address to call, not the sender's."""
    text = (deployment("api", "web", "{app: api}", "ports: [{containerPort: 8080}]") + """
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: web}
spec: {selector: {app: api}, ports: [{port: 8080}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: register, namespace: jobs}
spec:
  template:
    metadata: {labels: {app: register}}
    spec:
      restartPolicy: Never
      containers:
      - name: register
        image: curl
        command: [sh, -ec]
        args: ['curl -sSf --request POST DATA']
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: jobs}
spec: {podSelector: {}, policyTypes: [Egress]}
""").replace("DATA", data.replace("'", "''"))
    found = [f for f in lint_text(tmp_path, text, only=[RULE]).findings
             if f.kind == "dependency-denied"]
    assert [f.message.split(" calls ")[1].split(" ")[0] for f in found] == calls


@pytest.mark.parametrize(("command", "env", "called"), [
    # libpq's clients call 5432 when no -p and no PGPORT is given
    ("['pg_dump', '-h', 'api.server', 'app']", "", True),
    ("['pg_dump', '-h', 'api.server', 'app']", "        env: [{name: PGPORT, value: '6432'}]\n",
     False),
    ("['pg_dump', '-h', 'api.server', 'app']", "        envFrom: [{configMapRef: {name: pg}}]\n",
     False),
    # a Unix socket is no call
    ("['psql', '-h', '/var/run/postgresql']", "", False),
])
def test_a_database_client_without_a_port_option_calls_its_default_port(
    tmp_path: Path, command: str, env: str, called: bool
) -> None:
    client = CLIENT.replace(
        '        env: [{name: API, value: "http://api.server:8080/v1"}]\n',
        f'        command: {command}\n{env}')
    server = SERVER.replace("containerPort: 8080", "containerPort: 5432").replace(
        "port: 8080", "port: 5432")
    result = run(tmp_path, NAMESPACES + client + server + DENY_SERVER)
    assert [f.kind for f in result.findings] == (["dependency-denied"] if called else [])
    if called:
        assert result.findings[0].message.startswith(
            "client/app calls api.server:5432 (server/api on TCP 5432)")


def _env_tree(caller_namespaces: tuple[str, ...]) -> str:
    """data and data-staging each run postgres; data admits shop's storefront only; a
    catalog-sync in each of ``caller_namespaces`` has an egress rule to data's postgres."""
    out = []
    for ns in ("shop", "shop-staging", "data", "data-staging"):
        out.append(f"apiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}}}\n")
    for ns in ("data", "data-staging"):
        out.append(f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: postgres, namespace: {ns}}}
spec:
  selector: {{matchLabels: {{app: postgres}}}}
  template:
    metadata: {{labels: {{app: postgres}}}}
    spec: {{containers: [{{name: pg, image: postgres, ports: [{{containerPort: 5432}}]}}]}}
""")
    out.append("""apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: postgres, namespace: data}
spec:
  podSelector: {matchLabels: {app: postgres}}
  policyTypes: [Ingress]
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: shop}}
      podSelector: {matchLabels: {app: storefront}}
    ports: [{port: 5432}]
""")
    for ns in caller_namespaces:
        out.append(f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: catalog-sync, namespace: {ns}}}
spec:
  selector: {{matchLabels: {{app: catalog-sync}}}}
  template:
    metadata: {{labels: {{app: catalog-sync}}}}
    spec: {{containers: [{{name: sync, image: sync}}]}}
""")
        out.append(f"""apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {{name: catalog-sync, namespace: {ns}}}
spec:
  podSelector: {{matchLabels: {{app: catalog-sync}}}}
  policyTypes: [Egress]
  egress:
  - to:
    - namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: data}}}}
      podSelector: {{matchLabels: {{app: postgres}}}}
    ports: [{{port: 5432}}]
""")
    return "---\n".join(out)


def test_an_egress_fix_widens_only_a_rule_of_the_caller_s_namespace_and_names_its_copy(
        tmp_path: Path) -> None:
    """New-user trial seventy-one D3: staging's catalog-sync still naming production's `data`;
    the fix said to widen data's rule of namespace shop to admit shop-staging's pods, which
    its namespaceSelector never admits, opening production's database if it could. The
    rule widened is one of the caller's namespace; the namesake in the caller's environment
    is named."""
    result = run(tmp_path / "staging", _env_tree(("shop-staging",)))
    (egress,) = [f for f in result.findings if f.kind == "egress-unmatched"]
    assert egress.fix == (
        "Add an ingress rule in data admitting namespace shop-staging on 5432. Or, if "
        "shop-staging's pods mean data-staging/postgres (its environment's copy), point this "
        "egress rule at namespace data-staging instead.")
    # (staging's and production's callers, one finding at staging's: before, "Widen the
    # ingress rule spec.ingress[0] of data/postgres to admit shop-staging/catalog-sync")
    result = run(tmp_path / "both", _env_tree(("shop-staging", "shop")))
    (egress,) = [f for f in result.findings if f.kind == "egress-unmatched"]
    assert egress.object == "NetworkPolicy/shop-staging/catalog-sync"
    assert egress.fix.startswith("Add an ingress rule in data admitting namespace shop-staging "
                                 "and the 1 other calling workload on 5432. Or, if")
    result = run(tmp_path / "prod", _env_tree(("shop",)))
    (egress,) = [f for f in result.findings if f.kind == "egress-unmatched"]
    assert egress.fix == (
        "Widen the ingress rule spec.ingress[0] of data/postgres to admit shop/catalog-sync on "
        "5432: its from[0].podSelector app=storefront selects no pod of shop/catalog-sync "
        "(whose pods carry app=catalog-sync).")


QWEN_DENIED = """apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen, namespace: llm}
spec:
  selector: {matchLabels: {app: qwen}}
  template:
    metadata: {labels: {app: qwen}}
    spec: {containers: [{name: q, image: q:1, ports: [{containerPort: 8080}]}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: llm}
spec:
  podSelector: {}
  policyTypes: [Ingress]
"""
# a web of namespace NS whose egress policy lets it call llm/qwen on 8080
WEB_TO_QWEN = """---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: NS}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: w, image: w:1}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web, namespace: NS}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Egress]
  egress:
  - to:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: llm}}
      podSelector: {matchLabels: {app: qwen}}
    ports: [{protocol: TCP, port: 8080}]
"""
TWO_WEBS = QWEN_DENIED + "".join(WEB_TO_QWEN.replace("NS", ns)
                                 for ns in ("shop-staging", "shop-prod"))


def test_callers_of_other_namespaces_than_the_one_named_are_named_too(tmp_path: Path) -> None:
    """New-user trial seventy-six W2: "shop-staging/web and 1 other workload in shop-prod"
    read as a web of shop-prod; one or two callers of another namespace are named."""
    found = run(tmp_path, TWO_WEBS)
    assert [f.message.split(":")[0] for f in found.findings
            if f.kind == "egress-unmatched"] == ["shop-staging/web and shop-prod/web"]


def test_an_ingress_backend_denied_by_a_policy_selecting_no_pod_names_that_selector() -> None:
    """New-user trial eighty D2: the policy admitting the ingress controller selects
    `app: wbe`; the error's fix said to admit the port in default-deny, the one policy no one
    should widen, and never named the typo its own warning found."""
    result = lint_dir(ROOT / "tests/fixtures/netpol-pairing/fail/ingress-selector-typo",
                      only=[RULE])
    [denied] = [f for f in result.findings if f.kind == "backend-denied"]
    assert denied.message.endswith(
        "which no ingress rule of NetworkPolicy web/default-deny admits from any peer (they "
        "admit nothing) (NetworkPolicy web/web would: its podSelector app=wbe selects no pod "
        "of web/web): the ingress controller's requests for this path are dropped")
    assert denied.fix == "Make the podSelector of NetworkPolicy web/web match web/web (app=web)."
    assert [(o.file.rsplit("/", 1)[-1], o.line) for o in denied.others] == [("web.yaml", 71)]


def test_a_url_host_beside_its_port_key_calls_that_port(tmp_path: Path) -> None:
    """Judge round EA (soulwhisper/home-ops): `MQTT_HOST: http://mosquitto` beside
    `MQTT_PORT: "1883"` was read as port 80, the scheme's: "Service has no port 80". The
    port key beside it names the port."""
    text = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: sgcc, namespace: home}
spec:
  selector: {matchLabels: {app: sgcc}}
  template:
    metadata: {labels: {app: sgcc}}
    spec:
      containers:
      - name: sgcc
        image: sgcc:1
        env:
        - {name: MQTT_HOST, value: "http://mosquitto"}
        - {name: MQTT_PORT, value: "%s"}
---
apiVersion: v1
kind: Service
metadata: {name: mosquitto, namespace: home}
spec:
  selector: {app: mosquitto}
  ports: [{port: 1883}]
"""
    assert [f.kind for f in lint_text(tmp_path, text % "1883", only=[RULE]).findings
            if f.kind == "dependency-port"] == []
    assert [f.kind for f in lint_text(tmp_path / "other", text % "8883", only=[RULE]).findings
            if f.kind == "dependency-port"] == ["dependency-port"]


def test_a_call_in_a_chart_s_values_its_destination_admits_from_no_peer_is_a_warning(
        tmp_path: Path) -> None:
    """Trial 84 D3: the gateway's values (a chart of the tree) call reranker:8082, and
    llm-serving's policies admit 8000 and 8080 only: whoever the chart's pods are, the call
    is dropped; "no new findings". A warning (the chart's templates are not rendered);
    quiet where a rule admits the port from some peer (the pods' labels would decide)."""
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
    ai = ("apiVersion: v1\nkind: Service\nmetadata: {name: vllm, namespace: ai}\n"
          "spec: {selector: {app: vllm}, ports: [{port: 8000}]}\n"
          + deployment("vllm", "ai", "{app: vllm}") + "---\n"
          "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n"
          "metadata: {name: from-chat, namespace: ai}\nspec:\n  podSelector: {}\n"
          "  ingress:\n    - from: [{namespaceSelector: {matchLabels: "
          "{kubernetes.io/metadata.name: chat}}}]\n      ports: [{port: PORT}]\n")
    files = {
        "clusters/prod/flux-system/gotk-sync.yaml": sync,
        "clusters/prod/kustomization.yaml": "resources: [chat-api.yaml, ai.yaml]\n",
        "clusters/prod/chat-api.yaml": release,
        "clusters/prod/ai.yaml": ai.replace("PORT", "9000"),
        "charts/chat-api/Chart.yaml": "apiVersion: v2\nname: chat-api\nversion: 1.0.0\n",
        "charts/chat-api/values.yaml": ("image: {repository: chat-api, tag: '1'}\n"
                                        "llm: {url: 'http://vllm.ai.svc.cluster.local:8000/v1'}\n"),
        "charts/chat-api/templates/deploy.yaml": "kind: Deployment\nmetadata: "
                                                 "{name: '{{ .Release.Name }}'}\nspec: "
                                                 "{url: '{{ .Values.llm.url }}'}\n"}
    write(tmp_path, files)
    found = [f for f in lint_dir(tmp_path, only=[RULE]).findings if f.kind == "dependency-denied"]
    assert [(f.severity, f.file, f.line, f.message, f.fix) for f in found] == [
        ("warning", "charts/chat-api/values.yaml", 2,
         "chat/chat-api calls vllm.ai.svc.cluster.local:8000 (TCP 8000 of ai/vllm), which no "
         "ingress rule of NetworkPolicy ai/from-chat admits from any peer (they admit TCP "
         "9000): the connection is dropped. Not certain: reviewbot could not see whether the "
         "templates of the chart beside charts/chat-api/values.yaml pass llm.url to its pods "
         "as an address they call (reviewbot does not render them).",
         "Admit TCP 8000 from namespace chat in an ingress rule of NetworkPolicy ai/from-chat.")]
    write(tmp_path, {"clusters/prod/ai.yaml": ai.replace("PORT", "8000")})
    assert [f for f in lint_dir(tmp_path, only=[RULE]).findings
            if f.kind == "dependency-denied"] == []
