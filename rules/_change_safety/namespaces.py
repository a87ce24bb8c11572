"""change-safety's `namespace-missing` verdict: a Flux Kustomization's `targetNamespace`
changed to a namespace nothing in the repository creates: the apply fails ("namespaces ...
not found") unless the namespace is made outside the repository (new-user trial
twenty-seven: `targetNamespace: iot`, no Namespace iot anywhere, "partly caught"). Objects
written in a new namespace are not judged: such a namespace is often made elsewhere."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from reviewbot.engine.findings import Violation
from reviewbot.model.objects import KObject, Model, makers
from reviewbot.model.resource import Kustomization
from reviewbot.rules._change_safety.common import is_flux_kustomization, object_name

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import TreeDiff

# namespaces every cluster has, or its GitOps bootstrap makes before applying anything
ALWAYS = frozenset({"default", "kube-system", "kube-public", "kube-node-lease",
                    "flux-system", "argocd"})


def namespace_verdicts(diff: TreeDiff, base: Model, head: Model) -> Iterator[Violation]:
    """One warning per namespace a changed Flux Kustomization's `targetNamespace` puts
    objects in that the base put none in and nothing of the head creates: a Namespace
    object, a HelmRelease's `install.createNamespace`, an Argo CD Application's
    `CreateNamespace=true`."""
    used_before = {o.namespace for o in base.objects if o.namespace}
    fresh: dict[str, list[KObject]] = {}
    for o in head.objects:
        if o.namespace and o.namespace not in used_before and o.namespace not in ALWAYS and (
                "${" not in o.namespace):
            fresh.setdefault(o.namespace, []).append(o)
    if not fresh:
        return
    made = _created(head)
    changed = {id(e.head): e for e in diff.objects if e.head is not None}
    for namespace, objects in sorted(fresh.items()):
        if namespace in made:
            continue
        from reviewbot.words import misspelt  # (a namespace no object had before)

        near = misspelt(namespace, sorted(made | used_before))
        count = f"{len(objects)} object{'s' if len(objects) > 1 else ''}"
        applier = _moving_applier(head, objects, changed, namespace)
        if applier is None:
            moved = _moving_kustomization(base, head, objects, namespace)
            if moved is not None:
                yield _kustomization_moves(moved, namespace, count, near)
            continue  # (objects written in a new namespace: it is often made elsewhere)
        what = (f"Flux Kustomization {object_name(applier)} now puts {count} in namespace "
                f"{namespace} (spec.targetNamespace)")
        meant = f" (did you mean {near}?)" if near else ""  # (new-user trial forty-three:
        # `defualt`, said without the namespace it misspells)
        yield Violation(
            applier, ("spec", "targetNamespace"),
            f"{what}, which nothing in the repository creates{meant}: the apply fails "
            f"(namespaces \"{namespace}\" not found), and the prune of what it applied before "
            "waits with it, unless the namespace is made outside the repository",
            fix=(f"Write {near} for {namespace} in spec.targetNamespace, or add" if near
                 else "Add") + f" a Namespace {namespace} to what applies these objects, or "
                 "keep them in a namespace the cluster has.",
            # a misspelling of a namespace the tree creates is made nowhere else: an error
            # (new-user trial seventy-seven D2: `team-wbe`, a warning beside errors that took
            # the apply for done)
            kind="namespace-misspelt" if near else "namespace-missing",
        )


def create_namespace_dropped(diff: TreeDiff, base: Model, head: Model) -> Iterator[Violation]:
    """``namespace-missing``: an Argo CD Application the change stops syncing with
    ``CreateNamespace=true`` into a namespace nothing else of the head creates: the cluster
    keeps the namespace the earlier syncs created, but a new cluster's first sync fails
    ("namespaces ... not found"; new-user trial sixty-seven D6, a miss)."""
    made = None
    for entry in diff.objects:
        obj, old = entry.head, entry.base
        if obj is None or old is None or obj.kind != "Application" or (
                obj.group != "argoproj.io") or not _creates(old) or _creates(obj):
            continue
        namespace = str(obj.get(("spec", "destination", "namespace")) or "")
        if not namespace or namespace in ALWAYS or "{{" in namespace:
            continue
        made = _created(head) if made is None else made
        if namespace in made:
            continue
        yield Violation(
            obj, ("spec", "syncPolicy", "syncOptions") if obj.get(
                ("spec", "syncPolicy", "syncOptions")) else ("spec", "destination", "namespace"),
            f"Application {object_name(obj)} no longer syncs with CreateNamespace=true, and "
            f"nothing else in the repository creates namespace {namespace}: the namespace its "
            "earlier syncs created stays, but a new cluster's first sync fails (namespaces "
            f"\"{namespace}\" not found)",
            fix=f"Keep CreateNamespace=true, or add a Namespace {namespace} to what the "
                "Application applies.",
            kind="namespace-missing",
            doubt=f"whether namespace {namespace} is made outside the repository")


def _creates(app: KObject) -> bool:
    """Whether an Argo CD Application syncs with ``CreateNamespace=true``."""
    return any(str(s).replace(" ", "") == "CreateNamespace=true"
               for s in _list(app.get(("spec", "syncPolicy", "syncOptions"))))


def moved_releases(diff: TreeDiff, base: Model, head: Model) -> Iterator[Violation]:
    """``release-moved``: an Argo CD Application with automated prune whose
    ``destination.namespace`` the change moves, installing a chart reviewbot does not
    render (a ``chart`` source, or a source path holding a Chart.yaml): Argo CD creates the
    chart's objects in the new namespace and prunes those in the old one, and addresses
    naming the old one stop reaching them (new-user trial twenty-nine: cache-prod moved to
    cache, shop-prod's `REDIS_HOST: cache.cache-prod.svc.cluster.local` kept; "no new
    findings")."""
    for entry in diff.objects:
        obj, old = entry.head, entry.base
        if obj is None or old is None or obj.kind != "Application" or (
                obj.group != "argoproj.io") or not any(
                c.path[:3] == ("spec", "destination", "namespace") for c in entry.changes):
            continue
        was, now = (str(o.get(("spec", "destination", "namespace")) or "") for o in (old, obj))
        if not was or not now or was == now or "{{" in was + now or old.get(
                ("spec", "syncPolicy", "automated", "prune")) is not True:
            continue
        if not _installs_chart(head, obj):
            continue
        address = _naming(head, obj, was)
        names = (f"; {address} still names {was}" if address else "")
        if now not in ALWAYS and now not in _created(head):  # (new-user trial thirty-two:
            # `shop-production`, no Namespace, no CreateNamespace=true: the sync fails first)
            names += (f"; nothing in the repository creates namespace {now} and the "
                      "Application does not sync with CreateNamespace=true, so its sync fails "
                      f"(namespaces \"{now}\" not found) until the namespace exists")
        yield Violation(
            obj, ("spec", "destination", "namespace"),
            f"Application {object_name(obj)} moves what it installs from namespace {was} to "
            f"{now}: Argo CD creates the chart's objects in {now} and prunes those in {was} "
            f"(any claim it makes, and its data, with them){names}",
            fix=(f"If the move is meant, point what calls the release at {now} and move its "
                 "data first; else keep destination.namespace " + was + "."),
            kind="release-moved", doubt="the chart's objects (reviewbot does not render it)")


def _installs_chart(model: Model, app: KObject) -> bool:
    """Whether an Application's source is a Helm chart (a ``chart``, or a path holding a
    Chart.yaml of the tree)."""
    from reviewbot.model.kustomize import argo_sources
    from reviewbot.model.objects import model_graph

    spec = app.get(("spec",))
    graph = model_graph(model)
    for _, source in argo_sources(spec if isinstance(spec, dict) else {}):
        if source.get("chart"):
            return True
        path = source.get("path")
        folder = graph.argo_folder(app.file, path) if isinstance(path, str) else None
        if folder is not None and (folder + "/Chart.yaml").lstrip("/") in model.files:
            return True
    return False


def _naming(model: Model, app: KObject, namespace: str) -> str:
    """The first value of the model (but ``app``'s) naming a Service address in
    ``namespace`` (``cache.cache-prod.svc``), said as where it is."""
    pattern = re.compile(r"\b[a-z0-9]([-a-z0-9]*[a-z0-9])?\." + re.escape(namespace)
                         + r"\.svc\b")
    for o in model.objects:
        if o is app:
            continue
        for text in _strings(o.body):
            found = pattern.search(text)
            if found:
                return f"{o.kind} {object_name(o)} ({found.group(0)})"
    return ""


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _created(model: Model) -> set[str]:
    """The namespaces the model's objects create: Namespace objects, HelmReleases that
    install with `createNamespace`, Argo CD Applications that sync with CreateNamespace."""
    out: set[str] = set()
    for o in model.objects:
        if o.kind == "Namespace" and o.group == "":
            out.add(o.name)
        elif o.kind == "HelmRelease" and o.get(("spec", "install", "createNamespace")) is True:
            out.add(str(o.get(("spec", "targetNamespace")) or o.namespace or ""))
        elif o.kind == "Application" and o.group == "argoproj.io" and any(
                str(s).replace(" ", "") == "CreateNamespace=true"
                for s in _list(o.get(("spec", "syncPolicy", "syncOptions")))):
            out.add(str(o.get(("spec", "destination", "namespace")) or ""))
    return out


def _moving_applier(model: Model, objects: list[KObject], changed: dict[int, Any],
                    namespace: str) -> KObject | None:
    """The Flux Kustomization that applies the objects and whose `targetNamespace` the change
    set to ``namespace``, when there is one."""
    for obj in objects[:1]:
        for maker in makers(model, obj):
            k = maker.applier
            if k is None or not is_flux_kustomization(k) or id(k) not in changed:
                continue
            if k.get(("spec", "targetNamespace")) == namespace and any(
                    c.path[:2] == ("spec", "targetNamespace") for c in changed[id(k)].changes):
                return k
    return None


def _moving_kustomization(base: Model, head: Model, objects: list[KObject], namespace: str
                          ) -> Kustomization | None:
    """The kustomization whose ``namespace:`` the change set to ``namespace`` and whose build
    makes the objects (new-user trial thirty-eight: staging's `namespace: stagging`, no such
    Namespace, the Application without CreateNamespace: Argo CD's sync fails, and the review
    said only what moving would do). None where an ApplicationSet's template creates its
    Applications' namespaces (the namespace it names is templated)."""
    if any(o.kind == "ApplicationSet" and any(
            str(s).replace(" ", "") == "CreateNamespace=true" for s in _list(o.get(
                ("spec", "template", "spec", "syncPolicy", "syncOptions"))))
           for o in head.objects):
        return None
    from reviewbot.model.objects import model_graph

    was = {k.file: k.body.get("namespace") for k in base.kustomizations if k.flux is None}
    graph = model_graph(head)
    for k in head.kustomizations:
        if k.flux is not None or k.body.get("namespace") != namespace or was.get(
                k.file, namespace) == namespace or k.directory not in graph.by_dir:
            continue
        built = graph.build(k.directory).files
        if any(o.file in built for o in objects):
            return k
    return None


def _kustomization_moves(k: Kustomization, namespace: str, count: str, near: str | None
                         ) -> Violation:
    line, column = k.doc.position(("namespace",))
    meant = f" (did you mean {near}?)" if near else ""
    return Violation(
        None, ("namespace",),
        f"{k.file} now puts {count} in namespace {namespace}{meant}, which nothing in the "
        f"repository creates: the apply fails (namespaces \"{namespace}\" not found), "
        "and the prune of what it applied before waits with it, unless the namespace is made "
        "outside the repository",
        fix=f"Add a Namespace {namespace} to what applies these objects, or keep them in a "
            "namespace the cluster has.",
        kind="namespace-missing", file=k.file, line=line, column=column,
        key=f"{k.file}:namespace:{namespace}")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
