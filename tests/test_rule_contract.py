"""The rule contract: rules read the model and write nothing. The model of each tree is the
same after every rule ran on it as when it was built (objects, their bodies and facts, pods,
Services, policies, namespaces, kustomizations, clusters, doubts, skipped files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reviewbot.config import Config, find_config, load_config_file
from reviewbot.engine.options import check_options
from reviewbot.engine.run import load_model, run_rules
from reviewbot.model.objects import Model, PodTemplate
from reviewbot.sources.tree import disk_tree

from .helpers import ROOT

TREES = [ROOT / "examples", *sorted(p for p in (ROOT / "tests" / "fixtures").glob("*/fail/*")
                                    if p.is_dir())]


def _state(model: Model) -> str:
    """Everything a rule could change, as text (objects by position, their bodies in full)."""
    def shown(value: Any) -> Any:
        return json.loads(json.dumps(value, default=repr, sort_keys=True))

    return json.dumps({
        "objects": [(o.ref, shown(o.body), shown(getattr(o, "facts", None)))
                    for o in model.objects],
        "pods": [_pod(p) for p in model.pods],
        "templates": [_pod(p) for p in model.templates],
        "services": [(s.obj.ref, s.namespace, s.name, shown(s.selector), repr(s.ports))
                     for s in model.services],
        "policies": [o.ref for o in model.network_policies],
        "namespaces": sorted((key, n.name, shown(n.labels), n.obj.ref if n.obj else None)
                             for key, n in model.namespaces.items()),
        "kustomizations": [(k.file, k.directory, shown(k.body)) for k in model.kustomizations],
        "by_identity": sorted(str(k) for k in model.by_identity),
        "clusters": sorted(map(repr, model.clusters.values())),
        "doubts": sorted(model.doubts.values()),
        "skipped": [(s.path, s.reason) for s in model.skipped],
        "documents": len(model.documents), "files": sorted(model.files),
    }, sort_keys=True, default=repr)


def _pod(p: PodTemplate) -> Any:
    return json.loads(json.dumps([
        p.obj.ref, p.kind, p.name, p.namespace, p.labels, p.spec, p.spec_path, p.replicas,
        repr(p.strategy), p.component, p.annotations, p.controller, p.labels_complete,
        [(c.name, c.body, c.path, c.role, repr(c.image_ref), c.declared_resources)
         for c in p.containers]], default=repr, sort_keys=True))


@pytest.mark.parametrize("tree", TREES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_rule_writes_the_model(tree: Path) -> None:
    found = find_config(tree, tree)
    config = check_options(load_config_file(found)) if found else Config()
    model = load_model(disk_tree([tree], tree), config)
    before = _state(model)
    run_rules(model, config)
    assert _state(model) == before
