"""The rules' fast paths give the answers of the plain ones: a CRD's defaults applied through
the compiled plan, the network's pods and namespaces of a selector worked out once,
kustomize-integrity's resources looked up once and builds searched once, the files of an
unapplied folder found in the sorted list, the clusters' views made once per model."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.model.objects import cluster_views
from reviewbot.model.workload import argv, parallelism
from reviewbot.netpol.network import Network
from reviewbot.rules._kit import argv_of, file_of, parallelism_of, views
from reviewbot.schema.store import defaults_of, json_copy

from .helpers import build, deployment, lint_dir, value_paths, write


def plain_defaults(schema: Mapping[str, Any], value: Any) -> Any:
    """The API server's defaulting, walked along the whole schema (what ``Defaults`` does)."""
    if isinstance(value, dict):
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        extra = schema.get("additionalProperties")
        out: dict[str, Any] | None = None
        for key, sub in props.items():
            if not isinstance(sub, dict):
                continue
            current = value.get(key)
            if "default" in sub and (key not in value or (
                    current is None and sub.get("nullable") is not True)):
                current = copy.deepcopy(sub["default"])
            elif key not in value:
                continue
            new = plain_defaults(sub, current)
            if key not in value or new is not value[key]:
                out = out if out is not None else dict(value)
                out[key] = new
        if isinstance(extra, dict):
            for key, item in value.items():
                if key not in props:
                    new = plain_defaults(extra, item)
                    if new is not item:
                        out = out if out is not None else dict(value)
                        out[key] = new
        return out if out is not None else value
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        items = [plain_defaults(schema["items"], item) for item in value]
        if any(a is not b for a, b in zip(items, value, strict=True)):
            return items
    return value


NAMES = st.sampled_from(["a", "b", "c"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["x", ""]))
VALUES = st.recursive(
    SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                     st.dictionaries(NAMES, inner, max_size=3)), max_leaves=12)


@st.composite
def schemas(draw: st.DrawFn, depth: int = 3) -> Any:
    """A schema node: properties (now and then not a schema), additionalProperties, items,
    defaults and nullable at every level."""
    node: dict[str, Any] = {}
    if draw(st.booleans()):
        node["default"] = draw(VALUES)
    if draw(st.booleans()):
        node["nullable"] = draw(st.booleans())
    if depth > 0:
        if draw(st.integers(0, 5)):
            node["properties"] = {name: draw(schemas(depth - 1)) if draw(st.integers(0, 5))
                                  else draw(SCALARS) for name in draw(st.sets(NAMES))}
        if draw(st.integers(0, 2)) == 0:
            node["additionalProperties"] = draw(st.one_of(schemas(depth - 1), st.booleans()))
        if draw(st.integers(0, 2)) == 0:
            node["items"] = draw(schemas(depth - 1))
    return node


@st.composite
def instances(draw: st.DrawFn, schema: Any) -> Any:
    """A value shaped like ``schema`` now and then: fields present, missing or null."""
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return draw(VALUES)
    if choice == 1:
        return None
    props = schema.get("properties")
    if isinstance(props, dict) and (choice > 2 or "items" not in schema):
        out: dict[str, Any] = {}
        for name in ["a", "b", "c", "d"]:
            sub = props.get(name)
            sub = sub if isinstance(sub, dict) else schema.get("additionalProperties")
            if draw(st.booleans()):
                out[name] = draw(instances(sub)) if isinstance(sub, dict) else draw(VALUES)
        return out
    if isinstance(schema.get("items"), dict):
        return draw(st.lists(instances(schema["items"]), max_size=3))
    return draw(VALUES)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Any, Any]:
    schema = draw(schemas())
    return schema, draw(instances(schema))


@settings(max_examples=400, deadline=None)
@given(cases())
def test_compiled_defaults_equal_the_walk_of_the_whole_schema(case: tuple[Any, Any]) -> None:
    schema, value = case
    before = json.dumps(value, sort_keys=True)
    want = plain_defaults(schema, value)
    plan = defaults_of(schema)
    got = plan.apply(value) if plan is not None else value
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    assert (got is value) == (want is value)  # unchanged objects are the caller's own
    assert json.dumps(value, sort_keys=True) == before  # copy on write


def _containers(value: Any) -> list[int]:
    if isinstance(value, dict):
        return [id(value), *(i for v in value.values() for i in _containers(v))]
    if isinstance(value, list):
        return [id(value), *(i for v in value for i in _containers(v))]
    return []


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_json_copy_is_deepcopy_of_json_data(value: Any) -> None:
    """A default's copy (json_copy) equals copy.deepcopy's and shares no dict or list with
    the schema's value (a defaulted body never aliases the schema)."""
    got = json_copy(value)
    assert got == copy.deepcopy(value)
    assert json.dumps(got, sort_keys=True) == json.dumps(value, sort_keys=True)
    assert not set(_containers(got)) & set(_containers(value))


def test_a_helmrelease_schema_defaults_only_where_it_says() -> None:
    schema = {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "interval": {"type": "string"},
            "install": {"type": "object", "properties": {
                "remediation": {"type": "object", "default": {}, "properties": {
                    "retries": {"type": "integer", "default": 3}}}}},
            "values": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}
    body = {"spec": {"interval": "1h", "install": {}, "values": {"a": 1}}}
    plan = defaults_of(schema)
    assert plan is not None
    assert plan.apply(body) == {"spec": {"interval": "1h", "values": {"a": 1},
                                         "install": {"remediation": {"retries": 3}}}}
    assert body == {"spec": {"interval": "1h", "install": {}, "values": {"a": 1}}}
    assert defaults_of(schema["properties"]["spec"]["properties"]["values"]) is None


CLUSTERWIDE = """
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {tier: front}}
---
apiVersion: cilium.io/v2
kind: CiliumClusterwideNetworkPolicy
metadata: {name: front-only}
spec:
  endpointSelector:
    matchLabels: {app: web, k8s:io.kubernetes.pod.namespace: shop}
  ingress:
  - fromEndpoints: [{matchLabels: {app: api}}]
---
apiVersion: cilium.io/v2
kind: CiliumClusterwideNetworkPolicy
metadata: {name: everyone-to-dns}
spec:
  endpointSelector: {}
  egress:
  - toEndpoints: [{matchLabels: {k8s:io.kubernetes.pod.namespace: kube-system}}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api, namespace: shop}
spec:
  podSelector: {matchLabels: {app: api}}
  ingress:
  - from:
    - namespaceSelector: {matchLabels: {tier: front}}
    - namespaceSelector: {matchExpressions: [{key: team, operator: Exists}]}
      podSelector: {matchLabels: {app: web}}
"""


def _selectors(net: Network) -> list[Any]:
    found = [p.subject_namespaces for p in net.policies if p.subject_namespaces is not None]
    for policy in net.policies:
        for rule in (*policy.ingress, *policy.egress):
            found += [peer.namespaces for peer in rule.peers or () if peer.namespaces]
    return found


def test_subjects_and_namespaces_are_worked_out_once_and_as_the_plain_walk(
        tmp_path: Path) -> None:
    pods = (deployment("web", "shop", "{app: web}") + deployment("api", "shop", "{app: api}")
            + deployment("web", "other", "{app: web}")
            + deployment("dns", "kube-system", "{app: dns}"))
    for exact in (True, False):
        (tmp_path / str(exact)).mkdir()
        net = build(tmp_path / str(exact), pods + CLUSTERWIDE, exact=exact)
        selectors = _selectors(net)
        assert len(net.policies) == 3 and len(selectors) >= 3
        for policy in net.policies:
            first = net.subjects(policy)
            assert net.subjects(policy) is first and first == net._subjects_of(policy)
        for selector in selectors:
            for unknown in (False, True):
                first = net.namespaces_selected(selector, unknown)
                assert net.namespaces_selected(selector, unknown) is first
                assert first == net._namespaces_selected(selector, unknown)
        chosen = [net.pods[i] for i in net.subjects(net.policies[1])]  # only shop's web
        assert [(p.namespace, p.labels.get("app")) for p in chosen] == [("shop", "web")]


WEB = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: %s, namespace: apps}
spec:
  template:
    spec:
      containers: [{name: web, image: "web:1"}]
"""
FLUX = """
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: %s, namespace: flux-system}
spec:
  path: %s
  sourceRef: {kind: GitRepository, name: flux-system}
"""
SYNC = """
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {url: https://github.com/acme/fleet, ref: {branch: main}}
---
""" + FLUX % ("flux-system", "./clusters/prod")


def test_duplicates_and_unapplied_folders_of_shared_builds_and_sibling_names(
        tmp_path: Path) -> None:
    """Two Flux Kustomizations of one folder, a diamond of includes, folders whose names
    extend another's (old, old-2, old.yaml): each duplicate and each folder said once (the
    findings the plain walks gave)."""
    write(tmp_path, {
        "clusters/prod/flux-system/gotk-sync.yaml": SYNC,
        "clusters/prod/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
        "clusters/prod/apps.yaml": FLUX % ("apps", "./apps"),
        "clusters/prod/apps-again.yaml": FLUX % ("apps-again", "./apps"),
        "clusters/prod/base.yaml": FLUX % ("base", "./base"),
        "apps/web.yaml": WEB % "web",
        "apps/web-copy.yaml": WEB % "web",
        "base/kustomization.yaml": "resources: [one, two]\n",
        "base/one/kustomization.yaml": "resources: [../shared]\n",
        "base/two/kustomization.yaml": "resources: [../shared, db.yaml]\n",
        "base/two/db.yaml": WEB % "db",
        "base/shared/kustomization.yaml": "resources: [a.yaml, b.yaml]\n",
        "base/shared/a.yaml": WEB % "a",
        "base/shared/b.yaml": WEB % "a",
        "old/x.yaml": WEB % "x",
        "old/deeper/y.yaml": WEB % "y",
        "old-2/z.yaml": WEB % "z",
        "old.yaml": WEB % "o",
    })
    result = lint_dir(tmp_path, only=["kustomize-integrity"])
    assert sorted((f.kind, f.file, f.message) for f in result.findings) == [
        ("duplicate", "apps/web.yaml", "Deployment/apps/web is built again (first in "
         "apps/web-copy.yaml:1) by Flux Kustomization flux-system/apps-again "
         "(path ./apps); kustomize refuses duplicate objects"),
        ("duplicate", "base/shared/a.yaml", "Deployment/apps/a is built twice by "
         "base/kustomization.yaml; kustomize refuses duplicate objects"),
        ("duplicate", "base/shared/b.yaml", "Deployment/apps/a is built again (first in "
         "base/shared/a.yaml:1) by base/shared/kustomization.yaml; kustomize refuses duplicate "
         "objects"),
        ("not-applied", "old-2/z.yaml", "old-2 (1 manifest file) is not applied by any "
         "cluster root, so nothing in it is judged"),
        ("not-applied", "old.yaml", "old.yaml is not applied by any cluster root, so nothing "
         "in it is judged"),
        ("not-applied", "old/deeper/y.yaml", "old (2 manifest files) is not applied by any "
         "cluster root, so nothing in it is judged"),
    ]


def test_the_views_of_the_clusters_are_made_once_and_as_cluster_views_makes_them(
        tmp_path: Path) -> None:
    write(tmp_path, {
        ".reviewbot.yaml": "clusters:\n  - {name: prod, paths: [clusters/prod]}\n"
                           "  - {name: staging, paths: [clusters/staging]}\n",
        "clusters/prod/apps.yaml": FLUX % ("apps", "./apps"),
        "clusters/staging/apps.yaml": FLUX % ("apps", "./staging"),
        "apps/web.yaml": WEB % "web",
        "staging/kustomization.yaml": "resources: [../apps, db.yaml]\n",
        "staging/db.yaml": WEB % "db",
    })
    model = lint_dir(tmp_path, only=["api-lifecycle", "schema"]).model
    kept = views(model)
    assert views(model) is kept
    fresh = cluster_views(model)
    assert [name for name, _ in kept] == [name for name, _ in fresh] == ["prod", "staging"]
    for (_, mine), (_, theirs) in zip(kept, fresh, strict=True):
        assert [id(o) for o in mine.objects] == [id(o) for o in theirs.objects]
        assert [id(p) for p in mine.pods] == [id(p) for p in theirs.pods]
        assert mine.namespaces == theirs.namespaces and mine.by_identity == theirs.by_identity
        assert mine.inventory == theirs.inventory
    assert kept[0][1].objects and kept[0][1].objects != kept[1][1].objects


def test_the_file_of_a_field_is_the_file_where_names(tmp_path: Path) -> None:
    """``file_of`` names the file ``KObject.where`` names, for every field of every object
    (fields a kustomize patch or images entry set, fields below them, fields they did not
    touch, and paths that are not there), without locating the line."""
    write(tmp_path, {
        "base/kustomization.yaml": "resources: [app.yaml]\n",
        "base/app.yaml": deployment("web", "shop", "{app: web}"),
        "overlay/kustomization.yaml": """
            resources: [../base]
            images: [{name: x, newTag: "2.0"}]
            patches:
            - path: patch.yaml
            """,
        "overlay/patch.yaml": """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web, namespace: shop}
            spec:
              replicas: 3
              template:
                spec:
                  containers:
                  - name: main
                    resources: {limits: {cpu: "1"}}
            """,
    })
    model = lint_dir(tmp_path, only=["yaml-syntax"]).model
    patched = [obj for obj in model.objects if obj.origins]
    assert patched, "the overlay's patch and images entry set fields"
    files = set()
    for obj in model.objects:
        for path in [*value_paths(obj.body), ("spec", "nowhere", 3)]:
            assert file_of(obj, path) == obj.where(path)[0], (obj.ref, path)
            files.add(file_of(obj, path))
    assert {"overlay/patch.yaml", "overlay/kustomization.yaml", "base/app.yaml"} <= files


def test_the_argv_and_parallelism_of_a_container_are_found_once_and_as_workload_finds_them(
        tmp_path: Path) -> None:
    """``argv_of`` and ``parallelism_of`` give what ``argv`` and ``parallelism`` give for
    every container (a shell line, quoted and not, flags in args, no server at all), the
    same value however often asked, kept per model."""
    write(tmp_path, {"m.yaml": """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: llm, namespace: ai}
        spec:
          template:
            spec:
              containers:
              - name: shell
                image: vllm/vllm-openai:v0.9.0
                command: [sh, -c]
                args: ["vllm serve m --tensor-parallel-size 2 --max-model-len=4096"]
              - name: quoted
                image: lmsysorg/sglang:v0.4
                command: [sh, -c, "python -m sglang.launch_server --tp 4 --model 'a b'"]
              - name: flags
                image: vllm/vllm-openai:v0.9.0
                args: [--model, m, -tp, "2", --pipeline-parallel-size=2]
              - name: plain
                image: nginx:1.27
                args: [nginx, -g, daemon off;]
        """})
    model = lint_dir(tmp_path, only=["yaml-syntax"]).model
    containers = [c for pod in model.pods for c in pod.containers]
    assert len(containers) == 4
    for c in containers:
        assert argv_of(model, c) == argv(c) and argv_of(model, c) is argv_of(model, c)
        assert parallelism_of(model, c) == parallelism(c)
        assert parallelism_of(model, c) is parallelism_of(model, c)
    assert [parallelism(c) is not None for c in containers] == [True, True, True, False]
    assert len(model.derived["argv"]) == len(model.derived["parallelism"]) == 4  # one each


def test_the_folders_kustomize_integrity_indexes_are_the_folders_of_the_tree(
        tmp_path: Path) -> None:
    """kustomize-integrity's index takes the graph's folders when the graph holds the same
    paths (it made them already); they are the folders of the tree's files either way."""
    from reviewbot.model.kustomize import TreeIndex as _TreeIndex
    from reviewbot.model.kustomize import folders
    from reviewbot.model.objects import model_graph

    write(tmp_path, {
        "apps/base/kustomization.yaml": "resources: [app.yaml]\n",
        "apps/base/app.yaml": deployment("web", "shop", "{app: web}"),
        "apps/prod/kustomization.yaml": "resources: [../base]\n",
        "notes/readme.md": "x\n",
    })
    model = lint_dir(tmp_path, only=["yaml-syntax"]).model
    assert model.tree is not None
    graph = model_graph(model)
    assert graph.paths == frozenset(model.tree.paths)  # the index takes the graph's
    index = _TreeIndex(model.tree.paths, graph)
    assert index.dirs == folders(frozenset(model.tree.paths)) == _TreeIndex(model.tree.paths).dirs
    assert {"apps", "apps/base", "apps/prod", "notes"} <= index.dirs
