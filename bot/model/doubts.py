"""What a finding could not see of its object: the variables a Flux postBuild left in the
fields the finding depends on, else how the object reaches its cluster.

``Model.unseen`` holds, per object, every variable whose value reviewbot could not read
(a Secret outside the repository). A finding names only the ones in the fields it depends on
(:func:`doubt_of`): those of the container it points into, with its pod's own fields (not
the other containers), or of the pod it points into; any other finding depends on the whole
object (a HelmRelease's finding outside its values: on the release without them). A rule
whose findings are about a container's image alone (its ``READS``) depends on that image
reference only. A finding that depends on no such variable is as certain as without them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reviewbot.load.paths import Path
from reviewbot.model.objects import Container, KObject, Model, PodTemplate
from reviewbot.model.substitute import names_in

_CONTAINER_LISTS = frozenset({"containers", "initContainers", "ephemeralContainers"})


def doubt_of(model: Model, obj: KObject, path: Path, reads: str = "fields") -> str | None:
    """What a finding on ``obj`` at ``path`` could not see (a noun phrase), or None;
    ``reads``: the rule's ``READS`` (``"image"``: the finding depends on the image reference
    of the container it points into, nothing else of it)."""
    if obj.origins and (unset := unset_by_replacement(obj, path)) is not None:
        return unset
    unseen = model.unseen.get(id(obj))
    if unseen is not None:
        used: set[str] = set()
        if any(step in _ENV_KEYS for step in path):
            # (a finding at an environment value depends on that value, not on the other
            # variables beside it: judge round EJ, mrwulf/home-cluster's mealie calling
            # ollama on 11424 was "Not certain" for ${SECRET_DOMAIN} and ${TIMEZONE} of
            # other variables of its container)
            names_in(obj.get(tuple(path)), used)
        for part in depends_on(model, obj, path, reads):
            _names_but_env(part, used)
        names = [n for n in unseen.names if n in used]
        if names:
            return unseen.doubt(names)
    doubt = model.doubts.get(id(obj))
    if doubt is None and id(obj) in model.chart_doubts and not (
            path and path[0] in getattr(obj, "subcharts", {})):
        doubt = model.chart_doubts[id(obj)]  # (a subchart renders what is under its key)
    return doubt


# a container's environment: read by its process at run time, never by a rule judging the
# container's other fields (its resources, probes, ports, image) or another object's
_ENV_KEYS = frozenset({"env", "envFrom"})


def _names_but_env(value: Any, out: set[str]) -> None:
    """:func:`names_in` of ``value`` but what its ``env``/``envFrom`` lists hold (new-user
    trial forty-three: `BASE_URL: https://a.${SECRET_DOMAIN}`, whose value a SOPS Secret
    holds, made a release's missing cpu limit and its route's closed port "Not certain"
    warnings where the same release without it had errors)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in _ENV_KEYS:
                names_in(key, out)
                _names_but_env(item, out)
    elif isinstance(value, list):
        for item in value:
            _names_but_env(item, out)
    else:
        names_in(value, out)


def unset_by_replacement(obj: KObject, path: Path) -> str | None:
    """What a finding at ``path`` could not see when a kustomize replacement whose source
    is not in the build sets that field or one above it (:func:`~reviewbot.model.
    replacements.unresolved_at`): the value the cluster gets."""
    from reviewbot.model.replacements import unresolved_at

    probe = tuple(path)
    while probe:
        found = unresolved_at(obj.origins.get(probe))
        if found is not None:
            source = found["source"]
            what = "/".join(str(source[k]) for k in ("kind", "name") if source.get(k))
            field = source.get("fieldPath") or "metadata.name"
            return (f"the value a replacement sets there from {what or 'its source'} "
                    f"({field}), which the build as the tree holds it lacks (made from a "
                    "file a script writes, or not there)")
        probe = probe[:-1]
    return None


def unserved_doubt(model: Model, obj: KObject) -> str | None:
    """What a finding on ``obj`` could not see when its built-in ``apiVersion`` is one the
    cluster's Kubernetes (its version set, else the newest known) does not serve: whether
    the cluster still serves it, since the API server refuses the object otherwise and
    nothing of it runs (judge round BR: untagged images of `apps/v1beta1` Deployments were
    errors beside api-lifecycle's "no Kubernetes from 1.25 on serves it"). api-lifecycle's
    own finding says the refusal."""
    from reviewbot.schema.lifecycle import api_table, parse_minor
    from reviewbot.schema.store import NOT_API, split_api_version

    group, version = split_api_version(obj.api_version)
    table = api_table()
    gvk = (group, version, obj.kind)
    if not version or gvk in NOT_API or group not in table.groups:
        return None  # (a custom resource's: api-lifecycle judges it against its CRD)
    set_minor = parse_minor(model.inventory.kubernetes_version)
    minor = set_minor if set_minor is not None and table.known(set_minor) else table.newest
    if table.serves(minor, gvk):
        return None
    shown = ".".join(str(n) for n in minor)
    return (f"whether the cluster serves {obj.api_version} {obj.kind}: Kubernetes {shown}"
            f"{'' if set_minor is not None else ' (the newest known; no version is set)'} "
            "does not, and its API server refuses the object")


def runs_doubt(model: Model, pods: Iterable[PodTemplate]) -> str | None:
    """What a finding that counts ``pods`` (a node's sum, a policy's peers) could not see
    when some of them are made only by builds that fail (``Model.unbuilt``): whether the
    cluster runs them at all (Flux keeps the last revision that built, ``kubectl apply -k``
    applies nothing), as a noun phrase naming them and the first build's failure; None when
    every one of them is built."""
    unbuilt = model.unbuilt
    failing = [(p, unbuilt[id(p.obj)]) for p in pods if id(p.obj) in unbuilt]
    if not failing:
        return None
    names = list(dict.fromkeys(f"{p.namespace}/{p.name}" for p, _ in failing))
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return (f"whether the cluster runs {shown}: {failing[0][1]}, so none of it is applied "
            "until it builds")


def depends_on(model: Model, obj: KObject, path: Path, reads: str = "fields") -> list[Any]:
    """The fields a finding on ``obj`` at ``path`` depends on: the container it points into
    and its pod's own fields (labels, placement, volumes), or only its image reference when
    the rule ``reads`` ``"image"``; else the pod it points into, else the whole object."""
    pods = _pods(model).get(id(obj), ())
    for pod in pods:
        for c in pod.containers:
            if _under(path, c):
                if reads == "image":
                    return [c.image, c.image_ref.text if c.image_ref is not None else None]
                own = {k: v for k, v in pod.spec.items() if k not in _CONTAINER_LISTS}
                return [c.body, own, dict(pod.labels)]
    for pod in pods:
        if path[: len(pod.spec_path)] == pod.spec_path:
            return [pod.spec, dict(pod.labels)]
    if obj.kind == "HelmRelease" and path[:2] != ("spec", "values"):
        # a release's values are what its chart renders, read by findings in them: one on
        # its other fields (dependsOn, the chart's source) does not depend on them (judge
        # round BW: a dependency on a release no cluster has was "Not certain" for a
        # ${SECRET_DOMAIN} of its ingress values)
        spec = obj.body.get("spec")
        if isinstance(spec, dict) and "values" in spec:
            return [{**obj.body, "spec": {k: v for k, v in spec.items() if k != "values"}}]
    return [obj.body]


def _under(path: Path, c: Container) -> bool:
    """Whether ``path`` is in container ``c`` (where a chart's values write its fields too)."""
    if path[: len(c.path)] == c.path:
        return True
    where = c.origin.where if c.origin is not None else {}
    return any(path[: len(p)] == p for p in where.values())


def _pods(model: Model) -> dict[int, list[PodTemplate]]:
    """Object ``id()`` -> its pod templates (workloads' and those no pod runs as written)."""
    found = model.derived.get("pods-by-object")
    if found is None:
        found = {}
        for pod in (*model.pods, *model.templates):
            found.setdefault(id(pod.obj), []).append(pod)
        model.derived["pods-by-object"] = found
    return found


def roots_apart(model: Model, objs: Iterable[KObject]) -> str | None:
    """What a finding relating ``objs`` (a quota and the pods it counts) could not see when
    they come from different roots applied by hand (Argo CD Applications no other object of
    the tree applies) that apply one object unalike, as alternatives of one another do:
    whether those roots are applied together (judge round EC: christianh814/gitops-examples'
    five examples of one app in namespace pricelist, each its own Application, their
    workloads summed against one example's quota: 16 false errors). None otherwise."""
    alternatives = model.derived.get(("roots-apart",))
    if alternatives is None:
        alternatives = model.derived[("roots-apart",)] = _alternatives(model)
    if not alternatives:
        return None
    groups = list(dict.fromkeys(g for o in objs if (g := _root_of(model, o)) is not None))
    for i, first in enumerate(groups):
        for second in groups[i + 1:]:
            found = alternatives.get(frozenset((first, second)))
            if found is not None:
                names = sorted(found[1:])
                return (f"whether {names[0]} and {names[1]}, each applied by hand, are "
                        f"applied together (they apply {found[0]} unalike, as alternatives "
                        "of one another do)")
    return None


def _root_of(model: Model, obj: KObject) -> str | None:
    """The one root applied by hand whose build holds ``obj``, or None (``model``: a
    cluster's view, or the whole model, whose reach walk tells)."""
    from reviewbot.model.objects import owners

    whole = model.derived.get("view-of", model)
    guessed = whole.derived.get(("roots-guessed",))
    if guessed is None:
        from reviewbot.model.reach import GUESSED_ROOTS

        reach = whole.derived.get("reach")
        guessed = whole.derived[("roots-guessed",)] = frozenset(
            r.file for r in (reach.roots if reach is not None else ())
            if r.how in GUESSED_ROOTS and r.file)
    files = {k.file for k in owners(whole, obj)}
    return next(iter(files)) if len(files) == 1 and files <= guessed else None


def _alternatives(model: Model) -> dict[frozenset[str], tuple[str, str, str]]:
    """Pairs of roots applied by hand that apply one object (group, kind, namespace, name)
    with different content -> (that object, named; the two roots' files)."""
    reach = model.derived.get("view-of", model).derived.get("reach")
    if reach is None or sum(1 for r in reach.roots if r.file) < 2:
        return {}
    found: dict[frozenset[str], tuple[str, str, str]] = {}
    for copies in model.by_identity.values():
        if len(copies) < 2:
            continue
        rooted = [(root, o) for o in copies if (root := _root_of(model, o)) is not None]
        for i, (first, a) in enumerate(rooted):
            for second, b in rooted[i + 1:]:
                if first != second and a.body != b.body:
                    named = f"{a.kind} {a.namespace}/{a.name}" if a.namespace else (
                        f"{a.kind} {a.name}")
                    found.setdefault(frozenset((first, second)), (named, first, second))
    return found
