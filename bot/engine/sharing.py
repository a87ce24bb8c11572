"""A review's base and head share what object-scoped rules found on the objects they share.

A rule whose module says ``SCOPE = "object"`` (see :mod:`reviewbot.engine.registry`)
promises that every violation and quiet place it yields names an object and depends only on
that object, its pods and the configuration. A review loads both sides through one memo, so
a document the change left alone, built alike, is the *same* object in both models, with the
same pod templates (:func:`reviewbot.model.builder.build_model`'s ``shared``). For such an
object, and the same doubt and clusters in both models (the engine adds those to a finding),
the base's findings are the head's: :func:`base_outputs` runs the object-scoped rules on the
base only for the objects that differ (a view of the base model holding just them) and takes
the rest from the head's run. The outcome is the same as running every rule on the whole
base, which ``tests/test_review_sharing.py`` checks on the golden pull requests, the homelab
pull requests and corpus-shaped trees (:func:`override` turns sharing off for the old path).

Where the promise cannot be checked it is not relied on: a rule's output with a violation
that names no object, or with a note for the summary, makes that rule run on the whole base.

The same holds the other way: a pull request pushed to again finds its base's result in the
cache (``--cache``), and with it what the object-scoped rules decided about each base object
(:func:`freeze_outputs`: each owner named by its place among the model's objects, checked by
its reference and file when read back, :func:`thaw_outputs`); the head's object-scoped rules
then run only on the head objects that are not the base's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from reviewbot.diff.same import same_data
from reviewbot.engine.findings import Quiet
from reviewbot.engine.identity import clusters_of
from reviewbot.engine.registry import Rule
from reviewbot.model.objects import Model, add_identity

OBJECT = "object"  # a rule's SCOPE: what it decides about an object depends on that object
_enabled = True


def enabled() -> bool:
    return _enabled


@contextmanager
def override(enabled: bool) -> Iterator[None]:
    """Share (True) or run every rule on both whole sides (False) for a block: the seam the
    equivalence test takes the old path through."""
    global _enabled
    before = _enabled
    _enabled = enabled
    try:
        yield
    finally:
        _enabled = before


def shared_objects(base: Model, head: Model) -> set[int]:
    """``id()`` of the base objects whose object-scoped findings are the head's: the same
    object in both models, with the same pod templates and Services (the same ones, or made
    again alike: :func:`same_data`; a KServe InferenceService's pods are made per model), the
    same doubt and the same clusters."""
    in_head = {id(o) for o in head.objects}
    base_parts, head_parts = _parts(base), _parts(head)
    return {
        key for o in base.objects
        if (key := id(o)) in in_head
        and _same_parts(base_parts.get(key, ()), head_parts.get(key, ()))
        and base.doubts.get(key) == head.doubts.get(key)
        and base.chart_doubts.get(key) == head.chart_doubts.get(key)
        and base.unseen.get(key) == head.unseen.get(key)
        and base.unbuilt.get(key) == head.unbuilt.get(key)
        and clusters_of(base, o) == clusters_of(head, o)
    }


def _parts(model: Model) -> dict[int, list[tuple[str, Any]]]:
    """Object ``id()`` -> its pods, pod templates and Services (tagged), in order."""
    parts: dict[int, list[tuple[str, Any]]] = {}
    for tag, group in (("pod", model.pods), ("template", model.templates),
                       ("service", model.services)):
        for part in group:
            parts.setdefault(id(part.obj), []).append((tag, part))
    return parts


def _same_parts(base: Sequence[tuple[str, Any]], head: Sequence[tuple[str, Any]]) -> bool:
    return len(base) == len(head) and all(
        a == b and same_data(x, y) for (a, x), (b, y) in zip(base, head, strict=True))


def view(model: Model, shared: set[int]) -> Model:
    """``model`` without the objects ``shared`` names (nor their pods, templates, Services and
    NetworkPolicies; a pod of a Helm values file, whose object no model lists, stays); files,
    documents, kustomizations, inventory, doubts and clusters are the model's own, so a
    finding made in the view is the one the model gives."""
    out = Model(
        root=model.root, files=model.files,
        objects=[o for o in model.objects if id(o) not in shared], documents=model.documents,
        skipped=model.skipped, inventory=model.inventory, tree=model.tree,
        pods=[p for p in model.pods if id(p.obj) not in shared],
        templates=[p for p in model.templates if id(p.obj) not in shared],
        services=[s for s in model.services if id(s.obj) not in shared],
        network_policies=[o for o in model.network_policies if id(o) not in shared],
        namespaces=model.namespaces, kustomizations=model.kustomizations,
        clusters=model.clusters, pod_clusters=model.pod_clusters,
        cluster_entries=model.cluster_entries,
        cluster_inventories=model.cluster_inventories, values_patterns=model.values_patterns,
        doubts=model.doubts, chart_doubts=model.chart_doubts, unseen=model.unseen,
        unbuilt=model.unbuilt,
        unapplied=model.unapplied,
    )
    for obj in out.objects:
        add_identity(out.by_identity, obj)
    return out


class Output(Protocol):
    """What one rule decided (``engine.run.RuleOutput``, which imports this module)."""

    findings: list[Any]
    quiet: list[Any]
    notes: dict[str, Any]
    owners: list[int]  # id() of the object each finding names (0: none)
    quiet_owners: list[int]


Out = TypeVar("Out", bound=Output)


def base_outputs(rules: Sequence[Rule], base: Model, head: Model,
                 head_outputs: Mapping[str, Out],
                 run: Callable[[Sequence[Rule], Model], list[Out]]) -> list[Out]:
    """What the object-scoped ``rules`` decide about ``base``, in their order: ``run`` on the
    base objects the head does not share, the head's decisions on those it does. (The two
    sides may be either way round: a head whose base's decisions are known shares them.)"""
    shared = shared_objects(base, head)
    rest = view(base, shared)
    out: list[Out] = []
    for rule, own in zip(rules, run(rules, rest), strict=True):
        theirs = head_outputs.get(rule.id)
        if theirs is None or not _checkable(own) or not _checkable(theirs):
            out.extend(run([rule], base))  # the promise cannot be checked: the whole base
            continue
        mine = [i for i, owner in enumerate(theirs.owners) if owner in shared]
        quiet = [i for i, owner in enumerate(theirs.quiet_owners) if owner in shared]
        own.findings += [theirs.findings[i] for i in mine]  # the view's run: ours to add to
        own.owners += [theirs.owners[i] for i in mine]
        own.quiet += [theirs.quiet[i] for i in quiet]
        own.quiet_owners += [theirs.quiet_owners[i] for i in quiet]
        out.append(own)
    return out


def _checkable(output: Output) -> bool:
    """Every decision names its object, and there is no note (a count over the model)."""
    return not output.notes and 0 not in output.owners


def freeze_outputs(outputs: Mapping[str, Output], model: Model, rules: Sequence[str],
                   finding: Callable[[Any], list[Any]]) -> dict[str, Any]:
    """What the object-scoped ``rules`` decided about ``model`` (``outputs``), as JSON data:
    findings (``finding`` freezes one) and quiet places, each owner as ``[index, ref, file]``
    of its object in ``model.objects`` (None: a pod no object of the model holds); a rule
    whose decisions cannot be shared (:func:`_checkable`) is left out."""
    places = {id(o): i for i, o in enumerate(model.objects)}

    def owner(key: int) -> list[Any] | None:
        at = places.get(key)
        if at is None:
            return None
        obj = model.objects[at]
        return [at, obj.ref, obj.file]

    kept: dict[str, Any] = {}
    for rule in rules:
        out = outputs.get(rule)
        if out is None or not _checkable(out):
            continue
        kept[rule] = {
            "findings": [finding(f) for f in out.findings],
            "owners": [owner(k) for k in out.owners],
            "quiet": [q.as_data() for q in out.quiet],
            "quiet_owners": [owner(k) for k in out.quiet_owners],
        }
    return {"objects": len(model.objects), "rules": kept}


def thaw_outputs(raw: Any, model: Model, finding: Callable[[Any], Any],
                 make: Callable[[], Out]) -> dict[str, Out] | None:
    """The decisions :func:`freeze_outputs` froze, their owners the objects of ``model`` (the
    same tree built again: the same objects in the same order, each checked by its reference
    and file); None when ``raw`` is not such data or names another model's objects."""
    if raw is None:
        return None
    objects = model.objects
    gone = -1  # owner of a pod no object holds: never shared, so its decision is made again

    def owner(place: Any) -> int:
        if place is None:
            return gone
        at, ref, file = place
        if not isinstance(at, int) or at < 0:
            raise ValueError("not a place")
        obj = objects[at]
        if obj.ref != ref or obj.file != file:
            raise ValueError("another model's object")
        return id(obj)

    try:
        if raw["objects"] != len(objects):
            return None
        out: dict[str, Out] = {}
        for rule, data in raw["rules"].items():
            made = make()
            made.findings = [finding(f) for f in data["findings"]]
            made.owners = [owner(p) for p in data["owners"]]
            made.quiet = [Quiet.from_data(q) for q in data["quiet"]]
            made.quiet_owners = [owner(p) for p in data["quiet_owners"]]
            if len(made.owners) != len(made.findings) or len(made.quiet_owners) != len(
                    made.quiet):
                return None
            out[str(rule)] = made
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None
    return out
