"""apiVersions the cluster's Kubernetes version serves, derived from the per-version schemas.

What it checks:

Kubernetes stops serving API versions (`policy/v1beta1` PodDisruptionBudget in 1.25,
`flowcontrol.apiserver.k8s.io/v1beta3` in 1.32, ...). An object in such a version is refused
by the API server, and the whole Flux Kustomization that carries it fails to apply. This rule judges
every object's apiVersion/kind against the Kubernetes version of the cluster that receives
it:

- the version is the cluster's `kubernetes-version` in `.reviewbot.yaml` (`cluster:`, or
  each entry of `clusters:`): what `reviewbot inventory --nodes` measures (the lowest kubelet
  minor) or what is set by hand; `--kubernetes-version V` overrides it for a run. Without
  one, the rule judges against the newest version it knows and says so: an object that
  version does not serve may be served by the older one the cluster runs, so the finding is
  at most a warning, unless no Kubernetes ever served it (`v1` `Deployment`);
- which minor serves which group/version/kind comes from the per-minor OpenAPI schemas that
  `kubernetes-validate` installs (1.25 to 1.37 in the pinned 1.37.0), kept as a small table
  beside the code and shown under Reference below. The schemas do not reach further back:
  a removal before the oldest of them is said as "1.25 or earlier" (they cannot tell 1.22
  from 1.25; the deprecation guide dates those), and on a cluster older than 1.25 a kind
  they never serve is at most a warning (whether that cluster serves it cannot be seen);
- `unserved` (error): the cluster's version does not serve it ("Kubernetes 1.31 does not
  serve PodDisruptionBudget in policy/v1beta1: no Kubernetes from 1.25 on serves it"); the
  fix names the version that serves the kind, and the fields the object sets that the replacement
  lacks, with the new fields beside them, when the schemas show a renamed or moved field;
- `removed-later` (warning): served now, but a later minor stops serving it ("removed in
  1.32"): it breaks on that upgrade;
- `upgrade` (error, only with `--target-kubernetes-version V` or the option): upgrading the
  cluster to V would break it: V does not serve what the cluster serves today. Every cluster
  of the repository is planned (`clusters:` or the Flux entry points), each from its own
  version;
- custom resources: an object whose CustomResourceDefinition is in the tree and lists its
  version with `served: false`, or does not list it, is `crd-unserved` (error); a version
  marked `deprecated: true` is `crd-deprecated` (warning), quoting the CRD's
  `deprecationWarning` (without one, the API server warns that the version is deprecated);
- objects a Helm chart renders are judged where reviewbot sees the apiVersion: objects
  written in Helm values (`rawResources`, `extraObjects`: a mapping with `apiVersion`,
  `kind` and `metadata` or `spec`) and templates of charts in the tree whose `apiVersion:`
  and `kind:` lines are literal. Those are at most warnings (the chart decides what it
  renders), and a template line inside a `{{ if }}` on `.Capabilities` is not judged (the
  chart picks the version the cluster serves).

The `schema` rule validates against the same version (its `kubernetes-version` option is a
deprecated alias of the clusters' `kubernetes-version`), and leaves served versions to this
rule: each problem is reported once.

Kinds:

- `unserved`: the cluster's Kubernetes version does not serve this apiVersion/kind.
- `removed-later`: served by the cluster's version, removed in a later minor.
- `upgrade`: `--target-kubernetes-version` does not serve what the cluster serves today.
- `crd-unserved`: the tree's CustomResourceDefinition does not serve this version.
- `crd-deprecated`: the tree's CustomResourceDefinition marks this version deprecated.

When it stays quiet:

Custom resources whose CustomResourceDefinition is not in the tree (Pluto and kubepug cannot
see CRDs at all; reviewbot reads the ones the repository holds); kustomize patches and
plugin configurations; documents of other tools (no API group, not `v1`, no `metadata`:
Talos machine configs, `apiVersion: v1alpha1`); objects whose apiVersion or kind is a
Flux `${VAR}` or a Helm
template; a cluster newer than the newest schemas for what that newest minor serves
(removals after it are unknown); a cluster older than the oldest schemas for kinds that
oldest minor serves.

Failing example:

```yaml
# .reviewbot.yaml
cluster: {kubernetes-version: "1.31"}
```

```yaml
# pdb.yaml
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web}
```

Passing example:

```yaml
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web}
```
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from reviewbot.engine.findings import Note, Violation
from reviewbot.engine.registry import Option
from reviewbot.model.objects import (
    DEFAULT_CLUSTER,
    KObject,
    Model,
    Path,
    cluster_phrase,
    failing_build,
    in_chart,
    mapping,
)
from reviewbot.model.reach import is_object
from reviewbot.model.values import object_values, values_documents
from reviewbot.rules._kit import record_doubt, views
from reviewbot.rules.schema import not_api_files, templated
from reviewbot.schema.lifecycle import (
    ApiTable,
    Gvk,
    Minor,
    api_table,
    api_version_of,
    crd_versions,
    minor_text,
    object_paths,
    parse_minor,
    stability,
)
from reviewbot.schema.store import NOT_API, split_api_version

ID = "api-lifecycle"
SEVERITY = "error"
SUMMARY = ("apiVersions the cluster's Kubernetes version serves (and the tree's CRDs), "
           "derived from the per-version schemas; upgrade planning.")
RATIONALE = (
    "An apiVersion the API server no longer serves is refused, and the whole Flux "
    "Kustomization carrying the object fails to apply; the review is where the cluster's "
    "measured version and the object meet."
)
FIX = "Move the object to an apiVersion the cluster's Kubernetes version serves."
SEVERITIES = {"unserved": "error", "removed-later": "warning", "upgrade": "error",
              "crd-unserved": "error", "crd-deprecated": "warning"}
TARGET = "target-kubernetes-version"
OPTIONS = (
    Option(TARGET, "string", "",
           "Plan an upgrade: report what every cluster's objects lose when it runs this "
           "version, e.g. \"1.34\" (the command line's --target-kubernetes-version)."),
)

CRD_KIND = "CustomResourceDefinition"
CRD_GROUP = "apiextensions.k8s.io"
CHART_DOUBT = "what the Helm chart renders (reviewbot does not run Helm)"
_OBJECT_KEYS = ("metadata", "spec")


def check_set(model: Model, opts: Mapping[str, Any]) -> Iterator[Violation | Note]:
    table = api_table()
    target = parse_minor(str(opts.get(TARGET) or ""))
    skip = not_api_files(model)
    crds_everywhere = _Crds(model.objects)
    summary: dict[str, Any] = {}
    clusters = views(model)
    # (clusters judged against one version say the same of an object both receive: their
    # findings name no cluster, and are one finding of both; a new-user trial read an error
    # per cluster, equal but for "(cluster clusters/prod)")
    several = len({view.inventory.kubernetes_version for _, view in clusters}) > 1
    for name, view in clusters:
        cluster = _Cluster.of(name, view, table, several=several, target=target)
        summary[cluster.title] = cluster.note(target)
        crds = _Crds(view.objects) if name is not None else crds_everywhere
        # (apiVersion, kind)s judged fine on this cluster: what _judge says of an object's
        # own apiVersion depends on its kind alone when it says nothing (the object only
        # names a finding), so the other objects of that kind are not judged again
        fine: set[tuple[str, str]] = set()
        for obj in view.objects:
            if obj.file in skip or templated(obj) or obj.api_version == "builtin" or (
                    _other_tool(obj)):
                continue
            pair = (obj.api_version, obj.kind)
            if pair in fine:
                continue
            found = list(_judge(obj, ("apiVersion",), obj.api_version, obj.kind, cluster,
                                crds, crds_everywhere, target, table, record_doubt(obj)))
            if not found:
                fine.add(pair)
            elif len(clusters) > 1 and name is not None and id(obj) not in model.unbuilt and (
                    unbuilt := failing_build(model, obj, name)) is not None:
                # (this cluster's builds of it fail, another's works: it reaches this one
                # not at all, a new-user trial's staging)
                found = [replace(v, unbuilt=unbuilt) if isinstance(v, Violation) else v
                         for v in found]
            yield from found
    default = _Cluster.of(None, model, table, several=False, target=target)
    yield from _values_objects(model, default, crds_everywhere, target, table)
    yield from _chart_templates(model, default, target, table)
    yield Note(ID, {"schemas": f"{minor_text(table.oldest)}-{minor_text(table.newest)} "
                               f"({table.source})",
                    **({"target": minor_text(target)} if target else {}),
                    "clusters": summary})  # the summary's line


def _other_tool(obj: KObject) -> bool:
    """A document of another tool that has a kind and an apiVersion: one with no API group
    that is not ``v1`` and no ``metadata`` (Talos machine configs: ``apiVersion: v1alpha1``,
    ``kind: RawVolumeConfig``, ``name:`` at the top). Never sent to the Kubernetes API."""
    return not is_object(obj.body) and not isinstance(obj.body.get("metadata"), dict)


def reference() -> str:
    """The derived table the docs show (generated, like Options)."""
    table = api_table()
    head = (f"Derived from the schemas of Kubernetes {minor_text(table.oldest)} to "
            f"{minor_text(table.newest)} ({table.source}): every apiVersion/kind whose life "
            f"begins or ends inside that range, and the group versions the API machinery "
            f"still names that none of those minors serves. \"(or earlier)\": the oldest "
            f"schemas serve it, so it may be older; a removal \"{minor_text(table.oldest)} or "
            "earlier\" happened before the schemas reviewbot has (the deprecation guide "
            "dates those: 1.16, 1.22, 1.25). \"What changed\": fields of the old version the "
            "replacement lacks, with the new fields beside them.")
    rows = ["| apiVersion | kind | served | removed in | use instead, what changed |",
            "|---|---|---|---|---|"]
    rows += [f"| `{a}` | {k} | {s} | {r} | {u} |" for a, k, s, r, u in table.rows()]
    return head + "\n\n" + "\n".join(rows)


# ---------------------------------------------------------------- the cluster's version


@dataclass(frozen=True)
class _Cluster:
    """The version one cluster is judged against."""

    name: str | None
    minor: Minor  # the cluster's version, or the newest known when none is set
    measured: bool  # a version is set (measured, by hand or on the command line)
    label: str  # " (cluster production)" when the clusters are judged against several versions
    planning: bool = False  # no version set, a target given: judged as the target
    # (gvk, target) judged fine on this cluster already (a run judges thousands of objects
    # of a few dozen kinds)
    quiet: set[tuple[Gvk, Minor | None]] = field(default_factory=set, compare=False)

    @staticmethod
    def of(name: str | None, view: Model, table: ApiTable, several: bool,
           target: Minor | None) -> _Cluster:
        minor = parse_minor(view.inventory.kubernetes_version)
        label = f" ({cluster_phrase(name)})" if several and name not in (
            None, DEFAULT_CLUSTER) else ""
        if minor is None and target is not None:
            return _Cluster(name, target, False, label, planning=True)
        return _Cluster(name, minor or table.newest, minor is not None, label)

    @property
    def subject(self) -> str:
        return cluster_phrase(self.name) if self.label and self.name else "the cluster"

    @property
    def title(self) -> str:
        return self.name or DEFAULT_CLUSTER

    @property
    def version(self) -> str:
        return minor_text(self.minor)

    def note(self, target: Minor | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kubernetes-version": self.version,
            "judged-as": ("set" if self.measured else "the target, none set"
                          if self.planning else "the newest known, none set")}
        if target is not None and self.measured and target <= self.minor:
            out["upgrade"] = f"already at {self.version}, at or past the target"
        return out

    @property
    def unmeasured(self) -> str:
        """The doubt of a finding that holds only if the cluster runs the newest version."""
        return (f"the cluster's Kubernetes version (none is set: judged against {self.version}, "
                "the newest reviewbot knows; set kubernetes-version, or run reviewbot "
                "inventory --nodes)")


# ---------------------------------------------------------------- built-in kinds


def _judge(obj: KObject, where: Path, api_version: str, kind: str, cluster: _Cluster,
           crds: _Crds, everywhere: _Crds, target: Minor | None, table: ApiTable,
           doubt: str | None = None) -> Iterator[Violation]:
    group, version = split_api_version(api_version)
    if not version or (group, version, kind) in NOT_API:
        return
    gvk = (group, version, kind)
    if group not in table.groups:
        yield from _custom(obj, where, gvk, crds, everywhere, doubt)
        return
    body = obj.get(where[:-1]) if len(where) > 1 else obj.body
    key = (gvk, target)
    if key in cluster.quiet:  # a kind already judged fine on this cluster: most objects
        return
    found = verdict(gvk, cluster, target, table, body if isinstance(body, dict) else {})
    if found is None:
        cluster.quiet.add(key)
    if found is not None:
        yield Violation(obj, where, f"{_object_name(obj, where)}: {found.message}", kind=found.kind,
                        fix=found.fix, doubt=doubt or found.doubt)


def _object_name(obj: KObject, where: Path) -> str:
    """The object's name; for an object written in Helm values, where in the values."""
    inner = [str(p) if isinstance(p, str) else f"[{p}]" for p in where[:-1]]
    if inner[:2] == ["spec", "values"]:
        inner = inner[2:]
    elif "valuesObject" in inner:  # an Argo CD source's helm.valuesObject
        inner = inner[inner.index("valuesObject") + 1:]
    name = obj.name or obj.ref  # a document without metadata.name (a Talos config)
    if not inner:
        return name
    return f"{name} (values {'.'.join(inner).replace('.[', '[')})"


@dataclass(frozen=True)
class Verdict:
    """What api-lifecycle says of an object's apiVersion, and how to fix it."""

    kind: str  # unserved | removed-later | upgrade
    message: str
    fix: str
    doubt: str | None = None


def served_in(table: ApiTable, minor: Minor, gvk: Gvk) -> bool | None:
    """Whether Kubernetes ``minor`` serves ``gvk``; None when the schemas cannot say (a minor
    outside the known range, for a kind whose life reaches that end of it)."""
    if table.known(minor):
        return table.serves(minor, gvk)
    serving = table.serving(gvk)
    if minor > table.newest:
        return False if serving and table.newest not in serving else None
    if serving:  # older than the oldest known
        return False if table.oldest not in serving else None
    return False if table.never_served(gvk) else None


def verdict(gvk: Gvk, cluster: _Cluster, target: Minor | None, table: ApiTable,
            body: Mapping[str, Any]) -> Verdict | None:
    """What ``cluster`` does with an object of built-in ``gvk`` (``body``: its fields, for the
    fix), or with ``target``, what upgrading it does; None when nothing is wrong."""
    group, version, kind = gvk
    api_version = api_version_of(group, version)
    minor = cluster.minor
    here = served_in(table, minor, gvk)
    if here is None and minor > table.newest and table.serving(gvk):
        return None  # served by the newest schemas; what a newer minor removed is unknown
    if here is not True and (here is False or not table.serving(gvk)):
        doubt = None
        if here is None:
            edge = (f"end at {minor_text(table.newest)}" if minor > table.newest else
                    f"start at {minor_text(table.oldest)}")
            doubt = (f"whether Kubernetes {cluster.version} serves it (reviewbot's schemas "
                     f"{edge})")
        elif not cluster.measured and not cluster.planning and not table.never_served(gvk):
            doubt = cluster.unmeasured
        instead = [a for a in table.served_as(_clamp(table, minor), group, kind)
                   if a != api_version]
        fix = _fix(body, gvk, instead, table, minor)
        life = _life(table, minor, gvk)
        if cluster.planning:
            return Verdict("upgrade", f"Kubernetes {cluster.version}{cluster.label} (the "
                           "upgrade target; the cluster's version is not set) does not serve "
                           f"{kind} in {api_version}: {life}", fix)
        return Verdict("unserved", f"Kubernetes {cluster.version}{cluster.label} does not "
                       f"serve {kind} in {api_version}: {life}", fix, doubt)
    removed = _removal_after(table, minor, gvk)
    if removed is None:
        return None
    fix = _fix(body, gvk, _instead(table, removed, gvk), table, minor)
    if target is not None and target > minor and removed <= target:
        return Verdict("upgrade", f"upgrading {cluster.subject} from Kubernetes "
                       f"{cluster.version} to {minor_text(target)} breaks it: {api_version} "
                       f"{kind} is removed in {minor_text(removed)}", fix)
    return Verdict("removed-later", f"{api_version} {kind} is served by Kubernetes "
                   f"{cluster.version}{cluster.label} but removed in {minor_text(removed)}", fix)


def _life(table: ApiTable, minor: Minor, gvk: Gvk) -> str:
    """When ``gvk`` was served, as an unserved finding says it."""
    group, version, kind = gvk
    serving = table.serving(gvk)
    if serving and max(serving) < minor:
        return f"removed in {minor_text(table.first_after(max(serving), gvk) or minor)}"
    if serving:
        return f"served from {minor_text(min(serving))} on"
    if table.never_served(gvk):
        return f"no Kubernetes version has served it ({api_version_of(group, version)} " \
               f"has no {kind})"
    if (group, version) in table.group_versions:
        return f"no Kubernetes from {minor_text(table.oldest)} on serves it"
    return (f"no Kubernetes from {minor_text(table.oldest)} to {minor_text(table.newest)} "
            "serves it")


def _removal_after(table: ApiTable, minor: Minor, gvk: Gvk) -> Minor | None:
    """The first minor after ``minor`` that no longer serves ``gvk`` (None: none known)."""
    serving = table.serving(gvk)
    if not serving:
        return table.oldest if minor < table.oldest else None
    return table.first_after(max(minor, table.oldest), gvk)


def _clamp(table: ApiTable, minor: Minor) -> Minor:
    return min(max(minor, table.oldest), table.newest)


def _instead(table: ApiTable, removed: Minor, gvk: Gvk) -> list[str]:
    """What to use when ``gvk`` is removed in ``removed``: the apiVersions serving the kind
    then, the one the schemas serve longest (then the same group, the most stable) first."""
    group, version, kind = gvk
    found = [a for a in table.served_as(_clamp(table, removed), group, kind)
             if a != api_version_of(group, version)]

    def life(api_version: str) -> tuple[Minor, bool, tuple[int, int, int]]:
        g, _, v = api_version.rpartition("/")
        return (max(table.serving((g, v, kind)), default=(0, 0)), g == group, stability(v))

    return sorted(found, key=life, reverse=True)


def _fix(body: Mapping[str, Any], gvk: Gvk, instead: Sequence[str], table: ApiTable,
         minor: Minor) -> str:
    kind = gvk[2]
    if not instead:
        return (f"Kubernetes {minor_text(_clamp(table, minor))} serves {kind} in no "
                "apiVersion: remove the object, or replace what it does.")
    best = instead[0]
    g, _, v = best.rpartition("/")
    since = min(table.serving((g, v, kind)), default=None)
    text = f"Use apiVersion {best}"
    if since is not None and since > minor:
        text = (f"Move to apiVersion {best} once the cluster runs {minor_text(since)} or "
                f"later (it is served from {minor_text(since)} on)")
    elif since is not None and since > table.oldest:
        text += f" (served since {minor_text(since)})"
    change = table.change(gvk, best)
    if change is not None and change.removed:
        sets = dict(object_paths(body))
        lost = [p for p in change.removed if p in sets]
        if lost:
            parts = []
            for path in lost[:4]:
                beside = change.added_beside(path)
                parts.append(path + (f" (it has {', '.join(beside[:3])})" if beside else ""))
            text += f"; {best} has no {'; no '.join(parts)}, which this object sets"
    return text + "."


# ---------------------------------------------------------------- custom resources


@dataclass(frozen=True)
class _CrdCopy:
    """A CustomResourceDefinition's versions, by name."""

    crd: KObject
    versions: Mapping[str, Mapping[str, Any]]  # version name -> its entry

    def served(self) -> list[str]:
        return [n for n, e in self.versions.items() if e.get("served", True) is not False]

    def storage(self) -> str | None:
        return next((n for n, e in self.versions.items() if e.get("storage") is True), None)


class _Crds:
    """The CustomResourceDefinitions among ``objects``, by (group, kind)."""

    def __init__(self, objects: Sequence[KObject]) -> None:
        self.by_kind: dict[tuple[str, str], list[_CrdCopy]] = {}
        for obj in objects:
            if obj.kind != CRD_KIND or obj.group != CRD_GROUP:
                continue
            spec = mapping(obj.body.get("spec"))
            names = mapping(spec.get("names"))
            group, kind = spec.get("group"), names.get("kind")
            if not isinstance(group, str) or not isinstance(kind, str):
                continue
            versions = crd_versions(obj.body)
            if versions:
                self.by_kind.setdefault((group, kind), []).append(_CrdCopy(obj, versions))


def _custom(obj: KObject, where: Path, gvk: Gvk, crds: _Crds, everywhere: _Crds,
            doubt: str | None) -> Iterator[Violation]:
    group, version, kind = gvk
    copies = crds.by_kind.get((group, kind))
    if not copies:
        copies = everywhere.by_kind.get((group, kind))
        if not copies:
            return
        doubt = doubt or (f"which copy of the CustomResourceDefinition the cluster has (the "
                          f"one in {copies[0].crd.file} is applied by another cluster)")
    api_version = api_version_of(group, version)
    serving = [c for c in copies if version in c.served()]
    if not serving:
        crd = copies[0]
        entry = crd.versions.get(version)
        served = crd.served()
        what = ("sets served: false for it" if entry is not None else
                f"lists no version {version}")
        also = f"; it serves {', '.join(served)}" if served else "; it serves no version"
        if len(copies) > 1:
            also += f" (nor do its {len(copies) - 1} other copies)"
        best = _crd_best(crd)
        yield Violation(
            obj, where,
            f"{_object_name(obj, where)}: {api_version} {kind} is not served: the "
            f"CustomResourceDefinition {crd.crd.name} ({crd.crd.file}) {what}{also}",
            kind="crd-unserved",
            fix=(f"Use apiVersion {api_version_of(group, best)}." if best else
                 f"Serve {version} in the CustomResourceDefinition, or drop the object."),
            doubt=doubt)
        return
    entries = [c.versions[version] for c in serving]
    if all(e.get("deprecated") is True for e in entries):
        crd = serving[0]
        text = entries[0].get("deprecationWarning")
        said = (f": \"{text}\"" if isinstance(text, str) and text.strip() else
                " (no deprecationWarning: the API server warns that it is deprecated)")
        best = _crd_best(crd, version)
        yield Violation(
            obj, where,
            f"{_object_name(obj, where)}: {api_version} {kind} is deprecated by the "
            f"CustomResourceDefinition {crd.crd.name} ({crd.crd.file}){said}",
            kind="crd-deprecated",
            fix=(f"Use apiVersion {api_version_of(group, best)}." if best else
                 "Move to a version the CustomResourceDefinition does not deprecate."),
            doubt=doubt)


def _crd_best(crd: _CrdCopy, besides: str | None = None) -> str | None:
    """The served, not deprecated version to move to: the storage version, else the most
    stable and newest."""
    fine = [n for n in crd.served() if n != besides
            and crd.versions[n].get("deprecated") is not True]
    storage = crd.storage()
    if storage in fine:
        return storage
    return max(fine, key=stability) if fine else None


# ---------------------------------------------------------------- what charts render


def _values_objects(model: Model, cluster: _Cluster, crds: _Crds, target: Minor | None,
                    table: ApiTable) -> Iterator[Violation]:
    """Objects written whole in Helm values (HelmRelease ``spec.values``, an Argo CD
    Application's ``helm.valuesObject``, values files)."""
    for obj in model.objects:
        if obj.kind not in ("HelmRelease", "Application"):
            continue
        for values, path, _, _ in object_values(obj):
            if _mentions_api_version(values):
                yield from _embedded(obj, values, path, cluster, crds, target, table)
    for vobj, values, base in values_documents(model, model.values_patterns):
        if _mentions_api_version(values):
            yield from _embedded(vobj, values, base, cluster, crds, target, table)


def _mentions_api_version(values: Any) -> bool:
    """Whether some text of ``values`` holds ``apiVersion`` (so whether any key of it may be
    ``apiVersion``: a gate before the walk, never a verdict). One C-speed pass: most values
    hold no object, and walking them all in Python cost 0.1 s on a large repo. marshal
    writes every text of ``values`` as its bytes, in half the time ``repr`` takes to write
    them (JJGadgets-Biohazard's 113 charts' values: 4.0 -> 1.9 ms); a value marshal does not
    write (a type of its own, a str subclass) is asked of ``repr``, which writes a key named
    apiVersion as ``'apiVersion'``."""
    try:
        return b"apiVersion" in marshal.dumps(values)
    except ValueError:
        return "'apiVersion'" in repr(values)


def _embedded(obj: KObject, value: Any, path: Path, cluster: _Cluster, crds: _Crds,
              target: Minor | None, table: ApiTable, depth: int = 0) -> Iterator[Violation]:
    if depth > 12:
        return
    if isinstance(value, dict):
        api_version, kind = value.get("apiVersion"), value.get("kind")
        if (isinstance(api_version, str) and isinstance(kind, str)
                and any(isinstance(value.get(k), dict) for k in _OBJECT_KEYS)
                and not _templated_text(api_version) and not _templated_text(kind)):
            yield from _judge(obj, (*path, "apiVersion"), api_version.strip(), kind.strip(),
                              cluster, crds, crds, target, table, CHART_DOUBT)
            return
        for key, item in value.items():
            if isinstance(item, (dict, list)):  # (a text or number holds no object)
                yield from _embedded(obj, item, (*path, key), cluster, crds, target, table,
                                     depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, (dict, list)):
                yield from _embedded(obj, item, (*path, i), cluster, crds, target, table,
                                     depth + 1)


def _templated_text(text: str) -> bool:
    return "{{" in text or "${" in text


_ACTION = re.compile(r"\{\{-?\s*(?:/\*.*?\*/\s*)?(\w+)?([^}]*)\}\}", re.S)
_TOP_KEY = re.compile(r"^(apiVersion|kind):[ \t]*(['\"]?)([^'\"#\s]+)\2[ \t]*(?:#.*)?$")
_OPENERS = frozenset({"if", "with", "range", "define", "block"})


def _chart_templates(model: Model, cluster: _Cluster, target: Minor | None,
                     table: ApiTable) -> Iterator[Violation]:
    """Templates of charts in the tree: each document's literal top-level ``apiVersion:``
    and ``kind:`` lines, unless they sit in a block whose condition asks ``.Capabilities``
    (the chart picks the version the cluster serves)."""
    for path, loaded in sorted(model.files.items()):
        if loaded.skipped != "helm template" or path in model.unapplied or not in_chart(
                model, path):
            continue  # (a file with template text of no chart is no chart's template: a
            # Go template a configMapGenerator packs as data; judge round DC)
        for line, api_version, kind in template_objects(loaded.text):
            gvk_group, version = split_api_version(api_version)
            if gvk_group not in table.groups:
                continue  # a custom resource: the chart's CRDs are the chart's
            found = verdict((gvk_group, version, kind), cluster, target, table, {})
            if found is not None:
                name = path.rpartition("/")[2]
                yield Violation(None, (), f"{name}: {found.message}", fix=found.fix,
                                kind=found.kind,
                                file=path, line=line, column=1 + len("apiVersion: "),
                                key=f"{path}:{line}:{api_version}", doubt=CHART_DOUBT)


def template_objects(text: str) -> Iterator[tuple[int, str, str]]:
    """(line of ``apiVersion:``, apiVersion, kind) of each template document whose two lines
    are literal and outside any ``.Capabilities`` condition."""
    stack: list[bool] = []  # per open block: does its condition ask .Capabilities?
    found: dict[str, tuple[int, str]] = {}
    gated_doc = False

    def flush() -> Iterator[tuple[int, str, str]]:
        if "apiVersion" in found and "kind" in found and not gated_doc:
            yield found["apiVersion"][0], found["apiVersion"][1], found["kind"][1]

    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("---"):
            yield from flush()
            found, gated_doc = {}, False
        match = _TOP_KEY.match(line)
        if match and "{{" not in line:
            found.setdefault(match.group(1), (number, match.group(3)))
            if any(stack):
                gated_doc = True
        for action in _ACTION.finditer(line):
            word, rest = action.group(1) or "", action.group(2)
            if word in _OPENERS:
                stack.append("Capabilities" in rest)
            elif word == "else":
                if stack and "Capabilities" in rest:
                    stack[-1] = True
            elif word == "end" and stack:
                stack.pop()
    yield from flush()
