"""Helm releases as the connectivity model sees them: which chart renders their pods, and what
the chart's templates make of the values (pod labels, workload names, Services), when the
chart is one whose templates reviewbot knows.

A Flux ``HelmRelease`` (``helm.toolkit.fluxcd.io``) names its chart with ``spec.chart.spec``
(``chart``, ``version``) or ``spec.chartRef`` (an ``OCIRepository`` of the repository, whose
``url`` ends with the chart's name and ``ref.tag`` is its version); its release name is
``spec.releaseName``, else ``[<targetNamespace>-]<name>`` (Flux's default), and its pods run in
``spec.targetNamespace``, else its own namespace. An Argo CD ``Application`` with
``helm.valuesObject`` names ``source.chart`` and ``targetRevision``.

bjw-s ``app-template`` (the common library, charts/library/common in bjw-s-labs/helm-charts;
app-template sets ``global.nameOverride`` to the release name unless the values do):

- pod labels (``lib/pod/metadata/_labels.tpl``): ``app.kubernetes.io/name`` (the name
  override), ``app.kubernetes.io/instance`` (the release), the controller's identifier under
  ``app.kubernetes.io/controller`` (common 4.x and 5.x), ``app.kubernetes.io/component`` (2.x,
  3.0.1 to 3.7.x) or ``common.bjw-s.dev/controller`` (3.0.0), then ``global.labels`` (with
  ``global.propagateGlobalMetadataToPods``), ``defaultPodOptions.labels`` and the controller's
  ``pod.labels``, each winning over the ones before;
- names (``lib/chart/_names.tpl``, ``lib/common/_determineResourceNameFromValues.tpl``): the
  full name is ``fullnameOverride`` or the release name (``<release>-<name>`` when the release
  does not contain the name); a controller or Service is the full name, suffixed ``-<id>``
  when there are several (4.x and 5.x: ``forceRename``, ``prefix``, ``suffix``; 3.x: a Service's
  ``nameOverride``, and ``primary`` keeps the plain name);
- Services (``classes/_service.tpl``): every enabled ``service.<id>``, its enabled ports
  (``targetPort`` defaulting to ``port``; HTTP and HTTPS are TCP), selecting the name, the
  instance and the controller label of ``service.<id>.controller`` (the only controller when
  there is one), plus ``extraSelectorLabels`` (3.x to 5.x; 2.x merges the common library's
  default ``service.main`` into the values, which are not read here: its Services are left
  out, and the release says so);
- NetworkPolicies (``classes/_networkpolicy.tpl``, ``lib/networkpolicy/_validate.tpl``): the
  ``podSelector`` as written, else the pods of ``controller``; 2.x to 4.x refuse a policy with
  neither, 5.x takes the only controller then and refuses one with both (the chart fails, and
  the release is not evaluated).

Common 5.x changes none of the labels, names and selectors above: the 4.x to 5.x upgrade notes
(bjw-s-labs.github.io/helm-charts/docs/app-template/upgrades/4-to-5/, release notes of
common-5.0.0) list the breaking changes as the ServiceAccount token no longer mounted, a
default ServiceAccount, ``rawResources`` under ``manifest:``, the monitors' ``jobLabel`` and
the NetworkPolicy ``controller``/``podSelector`` rule above.

A kustomization's ``helmCharts`` entry is a release too, rendered only by ``kustomize build
--enable-helm`` (without the flag kustomize refuses the build: "must specify --enable-helm";
Argo CD passes it with ``kustomize.buildOptions``): reviewbot runs no Helm, so its pods are
never evaluated (:func:`kustomize_charts`), and every connectivity output names it as it
names a HelmRelease of an unknown chart.

A release whose pods cannot be known this way is *not evaluated*, with the reason: another
chart, values taken from a ConfigMap or Secret (``valuesFrom``), post-renderers, Flux
substitutions (``${...}``) in the names or labels, an app-template version before 2 or from a
major whose templates are not known here (its controller label is then unknown: the pods keep
the labels that are known, and selectors on the rest match nothing).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from reviewbot.model.kustomize import (
    argo_ref_values,
    argo_sources,
    generated_file,
    generated_files,
)
from reviewbot.model.objects import (
    KObject,
    Model,
    Path,
    PodTemplate,
    Service,
    ServicePort,
    appliers,
    items,
    mapping,
    model_graph,
)
from reviewbot.model.resource import HELM_TEMPLATE
from reviewbot.model.substitute import expand
from reviewbot.model.workload import MAX_DIGITS

APP_TEMPLATE = "app-template"
SUBSTITUTION = re.compile(r"\$\{|\{\{")  # Flux postBuild substitution, Helm templates
# a version's numbers, MAX_DIGITS at most each: longer is no chart's (and past 4,300 digits
# Python refuses to read one: a hostile HelmRelease's version was an internal error)
_N = rf"\d{{1,{MAX_DIGITS}}}"
VERSION = re.compile(rf"v?({_N})\.({_N})\.({_N})")


@dataclass(frozen=True)
class RenderedPolicy:
    """A NetworkPolicy app-template renders from ``networkpolicies.<id>``
    (``classes/_networkpolicy.tpl``): its ``podSelector``, else the release's pods of
    ``controller``; ``policyTypes`` and ``rules.ingress``/``rules.egress`` as written."""

    name: str
    spec: Mapping[str, Any]  # policyTypes, ingress, egress
    rules_at: Path  # where ``ingress``/``egress`` are written (``...rules``)
    selector: Mapping[str, Any]  # the raw label selector


@dataclass(frozen=True)
class RenderedBackend:
    """A backend app-template renders: an Ingress's from
    ``ingress.<id>.hosts[].paths[].service`` (``classes/_ingress.tpl``), the Service of
    ``identifier`` and its ``port`` (a name or a number) as the Ingress's
    ``service.port.name`` or ``.number``; a route's from
    ``route.<id>.rules[].backendRefs[]`` (``classes/_route.tpl``), the Service of
    ``identifier`` at the ``port`` number written."""

    ingress: str  # the ingress's (or route's) identifier
    at: Path  # where ``port`` is written in the release
    service: Service
    identifier: str  # the Service's identifier (``service.<id>``)
    port: int | str
    ports_at: Path  # where the Service's ``ports`` are written
    values_key: str = "ingress"  # ``ingress`` or ``route``: the values that render it


@dataclass(frozen=True)
class Release:
    """One Helm release of the repository, as far as its chart's templates are known."""

    obj: KObject  # the HelmRelease (or Application)
    name: str  # the release name
    namespace: str  # where its pods run
    chart: str  # "" when unknown
    version: str  # "" when unknown
    why_not: str = ""  # why its pods are not evaluated ("" when they are)
    partial: str = ""  # what of its pods is not known though they are evaluated
    controller_key: str | None = None  # the controller label of its app-template version
    services: tuple[Service, ...] = ()
    policies: tuple[RenderedPolicy, ...] = ()
    backends: tuple[RenderedBackend, ...] = ()  # the Ingress backends its values render
    # pod template (by id) -> the pod as the chart renders it (labels, name)
    pods: Mapping[int, PodTemplate] = field(default_factory=dict)
    # where each of ``services`` writes its ports (``spec.values.service.<id>.ports``)
    service_ports: tuple[Path, ...] = ()
    # the names of the HTTPRoutes its ``route.<id>`` values render (app-template: the full
    # name for the primary route, else ``<full>-<id>``, or ``<full>-<nameOverride>``)
    routes: tuple[str, ...] = ()

    @property
    def evaluated(self) -> bool:
        return not self.why_not

    @property
    def ref(self) -> str:
        return self.obj.ref

    @property
    def rendered_by(self) -> str:
        """What renders these pods, for a finding's doubt."""
        version = f" {self.version}" if self.version else ""
        return (f"the chart {self.chart or '?'}{version} itself (its pods, ports and Services "
                f"for {self.obj.ref} are read from the chart's documented templates)")


def ports_written(model: Model, service: Service) -> Path | None:
    """Where a Service a release's values make (``synthesized``) writes its ports in the
    release (``spec.values.service.app.ports``), or None."""
    if not service.synthesized:
        return None
    for release in releases(model):
        if release.obj is service.obj:
            for made, at in zip(release.services, release.service_ports, strict=False):
                if made is service or (made.namespace, made.name) == (
                        service.namespace, service.name):
                    return at
    return None


def releases(model: Model) -> list[Release]:
    """Every Helm release of the model (once per model)."""
    key = ("helm-releases",)
    found = model.derived.get(key)
    if found is None:
        found = model.derived[key] = _releases(model)
    return list(found)


@dataclass(frozen=True)
class KustomizeChart:
    """A chart a kustomization's ``helmCharts`` inflates: never evaluated (no Helm is run)."""

    name: str  # the chart
    release: str  # releaseName, else the chart's name (kustomize's default)
    namespace: str  # the entry's namespace, else the kustomization's; "" when not written
    file: str  # the kustomization
    line: int  # of the helmCharts entry
    why_not: str = ("kustomize renders its chart only with --enable-helm, and reviewbot does "
                    "not run Helm: its pods, Services and policies are not known")

    @property
    def ref(self) -> str:
        return f"helmCharts {self.release} (chart {self.name}) in {self.file}:{self.line}"


def every_service(model: Model) -> Iterator[Service]:
    """The model's Services (KServe's included), then those the charts whose templates are
    known make from their values."""
    yield from model.services
    for release in releases(model):
        yield from release.services


def kustomize_charts(model: Model) -> list[KustomizeChart]:
    """The ``helmCharts`` entries of the kustomizations some cluster receives."""
    out: list[KustomizeChart] = []
    for k in model.kustomizations:
        if k.flux is not None or k.file in model.unapplied:
            continue
        for i, chart in enumerate(items(k.body.get("helmCharts"))):
            if not isinstance(chart, dict):
                continue
            name = str(chart.get("name") or "?")
            ns = chart.get("namespace") or k.body.get("namespace")
            out.append(KustomizeChart(name, str(chart.get("releaseName") or name),
                                      str(ns) if isinstance(ns, str) else "", k.file,
                                      k.doc.position(("helmCharts", i))[0]))
    return out


def keep_releases(model: Model, kept: Mapping[int, KObject]) -> Model:
    """``model`` (a view made for it: :func:`~reviewbot.model.objects.with_kept`) whose
    HelmReleases of ``kept`` (by id, each to the object of the release the cluster keeps:
    the base's, whose chart helm-controller last fetched) render as that object's chart and
    values; the release stays the model's own object (where its findings are placed)."""
    model.derived[("helm-releases",)] = _releases(model, kept)
    return model


def _releases(model: Model, kept: Mapping[int, KObject] | None = None) -> list[Release]:
    pods_of: dict[int, list[PodTemplate]] = {}
    for pod in model.pods:
        if pod.from_values:
            pods_of.setdefault(id(pod.obj), []).append(pod)
    sources = [o for o in model.objects
               if o.kind == "OCIRepository" and o.group == "source.toolkit.fluxcd.io"]
    oci = {(o.namespace or "default", o.name): o for o in sources}
    out: list[Release] = []
    whole = model.derived.get("view-of", model)
    for obj in model.objects:
        if obj.kind == "HelmRelease" and obj.group == "helm.toolkit.fluxcd.io":
            out.append(_flux_release(obj, _Sources(model, oci, sources),
                                     pods_of.get(id(obj), []),
                                     kept.get(id(obj)) if kept else None))
        elif obj.kind == "Application" and obj.group == "argoproj.io" and not (
                whole is not model and _ref_pods(whole, obj.get(("spec",)))):
            release = _argo_release(model, obj, pods_of.get(id(obj), [])) or _local_chart(
                model, obj)
            if release is not None:
                out.append(release)
    # the chart releases of Applications whose values are files of this tree (``$values``),
    # and of the Applications ApplicationSets generate (new-user trial sixty-five:
    # app-template releases of a clusters x git matrix, in no network): in a cluster's view,
    # those whose values pods run in it, their destination's; the Application or set lives
    # in Argo CD's own cluster (trial sixty-five D2: a bootstrap kustomization's Application
    # for cluster `home`, "no app-template controller" in Argo CD's)
    generated = getattr(whole.derived.get("reach"), "generated_charts", {})
    for obj in whole.objects if whole is not model or generated else ():
        if obj.group != "argoproj.io":
            continue
        if obj.kind == "Application" and whole is not model:
            made = [("", mapping(obj.get(("spec",))))]
        elif obj.kind == "ApplicationSet":
            made = generated.get((obj.file, obj.name), [])
        else:
            continue
        for app, spec in made:
            if (whole is not model and not _ref_pods(model, spec)) or (
                    not app and not _ref_pods(whole, spec)):
                continue
            release = _argo_release(model, obj, [], spec, app) if app else _argo_release(
                model, obj, pods_of.get(id(obj), []))
            if release is not None:
                out.append(release)
    return out


def _ref_pods(model: Model, spec: Any) -> bool:
    """Whether a values file of this tree an Argo CD Application's ``spec`` gives its chart
    from another of its sources (``$values/...``: :func:`argo_ref_values`) holds pods in
    ``model`` (a cluster's view: they run there)."""
    pods = _values_pods(model)
    return any(pods.get(f) for _, f in argo_ref_values(mapping(spec)))


def _local_chart(model: Model, obj: KObject) -> Release | None:
    """An Argo CD Application of a chart folder of the repository (its ``Chart.yaml``) whose
    templates hold template text: Helm renders them, reviewbot does not (the plain ones are
    read as written), so its pods, Services and policies are partly unseen."""
    spec = mapping(obj.get(("spec",)))
    for _, source in argo_sources(spec):
        path = source.get("path")
        if not isinstance(path, str) or "{{" in path:
            continue
        folder = model_graph(model).argo_folder(obj.file, path)
        if folder is None or posixpath.join(folder, "Chart.yaml") not in model.files:
            continue
        templated = sorted(p for p, lf in model.files.items()
                           if p.startswith(posixpath.join(folder, "templates") + "/")
                           and lf.skipped == HELM_TEMPLATE)
        if not templated:
            continue
        dest = mapping(spec.get("destination")).get("namespace")
        namespace = dest if isinstance(dest, str) and dest else (obj.namespace or "default")
        name = str(mapping(source.get("helm")).get("releaseName") or obj.name)
        return Release(obj, name, namespace, posixpath.basename(folder), "", (
            f"its chart is the repository's {folder}, whose {len(templated)} template"
            f"{'s hold' if len(templated) > 1 else ' holds'} template text Helm renders and "
            "reviewbot does not (the plain ones are read as written)"))
    return None


class _Sources:
    """The OCIRepositories a HelmRelease's ``chartRef`` may name: those of the repository by
    namespace and name, and those a Flux Kustomization that applies the HelmRelease adds as
    ``spec.components`` (they land in its ``targetNamespace``), their ``${VAR}`` and
    ``${VAR:=default}`` substituted from its ``postBuild.substitute`` (Flux's
    post-build variable substitution)."""

    def __init__(self, model: Model, oci: Mapping[tuple[str, str], KObject],
                 sources: Sequence[KObject]) -> None:
        self.model = model
        self.oci = oci
        self.sources = sources

    def find(self, hr: KObject, namespace: str, name: str) -> tuple[KObject, Mapping[str, str]]:
        found = self.oci.get((namespace, name))
        if found is not None:
            return found, {}
        if not self.sources:
            raise LookupError
        for ks in appliers(self.model).get(hr.file, []):
            if ks.kind != "Kustomization" or ks.group != "kustomize.toolkit.fluxcd.io":
                continue
            spec = mapping(ks.get(("spec",)))
            variables = {str(k): str(v) for k, v in
                         mapping(mapping(spec.get("postBuild")).get("substitute")).items()}
            base = posixpath.normpath(str(spec.get("path") or ".")).lstrip("/")
            folders = [posixpath.normpath(posixpath.join(base, str(c))) for c in
                       items(spec.get("components")) if isinstance(c, str)]
            for repo in self.sources:
                folder = posixpath.dirname(repo.file)
                if folder in folders and flux_substitute(repo.name, variables) == name:
                    return repo, variables
        raise LookupError


def flux_substitute(text: str, variables: Mapping[str, str]) -> str | None:
    """``text`` with Flux post-build variables replaced (``${VAR}``, ``${VAR:=default}``,
    as :func:`~reviewbot.model.substitute.expand` reads them); None when a variable has
    neither a value nor a default."""
    unset: set[str] = set()
    out, _ = expand(text, variables, False, set(), set(), unset)
    return None if unset else out


def _flux_release(obj: KObject, oci: _Sources, pods: Sequence[PodTemplate],
                  kept: KObject | None = None) -> Release:
    """The release of HelmRelease ``obj``; rendered as ``kept`` writes it when given (the
    release the cluster keeps: :func:`keep_releases`)."""
    written_by = kept if kept is not None else obj
    spec = mapping(written_by.get(("spec",)))
    own = obj.namespace or "default"
    target = spec.get("targetNamespace")
    namespace = target if isinstance(target, str) and target else own
    written = spec.get("releaseName")
    if isinstance(written, str) and written:
        name = written
    else:
        name = f"{target}-{obj.name}" if isinstance(target, str) and target else obj.name
    chart, version, source = "", "", ""
    chart_spec = mapping(mapping(spec.get("chart")).get("spec"))
    ref = mapping(spec.get("chartRef"))
    if chart_spec:
        chart = str(chart_spec.get("chart") or "")
        version = str(chart_spec.get("version") or "")
        source = f"{mapping(chart_spec.get('sourceRef')).get('kind') or 'a source'}"
    elif ref:
        kind, ref_name = ref.get("kind"), ref.get("name")
        ref_ns = ref.get("namespace") or own
        try:
            if kind != "OCIRepository":
                raise LookupError
            repo, variables = oci.find(obj, str(ref_ns), str(ref_name))
        except LookupError:
            return Release(obj, name, namespace, "", "", why_not=(
                f"its chart comes from {kind or 'a source'} {ref_ns}/{ref_name}, which the "
                "repository does not define"))
        url = flux_substitute(str(repo.get(("spec", "url")) or ""), variables) or ""
        chart = url.rstrip("/").rsplit("/", 1)[-1]
        tag = repo.get(("spec", "ref", "tag"))
        if not isinstance(tag, (str, int, float)):  # a range: Flux pulls the highest match
            tag = repo.get(("spec", "ref", "semver"))
        version = (flux_substitute(str(tag), variables) or ""
                   if isinstance(tag, (str, int, float)) else "")
        source = "OCIRepository"
    else:
        return Release(obj, name, namespace, "", "", why_not="it names no chart")
    values: Any = spec.get("values")
    taken = values_from(oci.model, written_by) if spec.get("valuesFrom") else None
    if taken:  # helm-controller merges each valuesFrom in order, then `values` over them
        values = _merged([*(v for _, v in taken), mapping(values)])
        by_file = _values_pods(oci.model)
        pods = [*pods, *(p for file, _ in taken for p in by_file.get(file, ()))]
    why = _why_not(obj, spec, chart, version, source, taken is not None)
    return _rendered(Release(obj, name, namespace, chart, version, why), values, pods)


def values_from_files(model: Model, obj: KObject) -> list[str]:
    """The files of the tree a Flux HelmRelease ``obj``'s ``valuesFrom`` entries read
    (generated into a ConfigMap or Secret by a kustomization), each once, in order."""
    generated = _generated(model)
    found = (generated_file(generated, obj.file, ref)
             for ref in items(obj.get(("spec", "valuesFrom"))))
    return list(dict.fromkeys(f for f in found if f is not None))


def values_from(model: Model, obj: KObject) -> list[tuple[str, Mapping[str, Any]]] | None:
    """The values a Flux HelmRelease ``obj`` takes from its ``valuesFrom``, in order, as
    (the file of the tree each is generated from, its values), when every entry is such a
    file whose values reviewbot reads (a ConfigMap's or Secret's generator of the tree, no
    ``targetPath``, not sops-encrypted); an ``optional`` entry of no such file is none
    (helm-controller skips a missing optional reference). None otherwise."""
    generated = _generated(model)
    out: list[tuple[str, Mapping[str, Any]]] = []
    for ref in items(obj.get(("spec", "valuesFrom"))):
        if not isinstance(ref, dict) or ref.get("targetPath"):
            return None
        target = generated_file(generated, obj.file, ref)
        lf = model.files.get(target) if target is not None else None
        if lf is None:
            if ref.get("optional") is True and target is None:
                continue
            return None
        value = lf.documents[0].value if len(lf.documents) == 1 else None
        if not isinstance(value, dict) or "sops" in value:
            return None
        out.append((lf.path, value))
    return out


def _values_pods(model: Model) -> dict[str, list[PodTemplate]]:
    """The pods of values documents by file (a values file's pods are its own; once per
    model: asked of every release whose valuesFrom it reads, 533 of them in the 10k tree)."""
    found = model.derived.get("values-pods")
    if found is None:
        found = {}
        for pod in model.pods:
            if pod.from_values:
                found.setdefault(pod.obj.file, []).append(pod)
        model.derived["values-pods"] = found
    return found


def _generated(model: Model) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """:func:`~reviewbot.model.kustomize.generated_files` of the model (once per model)."""
    found = model.derived.get("generated-values")
    if found is None:
        found = model.derived["generated-values"] = generated_files(model.kustomizations)
    return found


def _merged(layers: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``layers`` merged as helm-controller merges a release's values (transform.MergeMaps):
    a mapping into the mapping under the same key, anything else replaces what was there."""
    out: dict[str, Any] = {}
    for layer in layers:
        out = _merge(out, layer)
    return out


def _merge(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        below = out.get(key)
        out[key] = _merge(below, value) if isinstance(value, dict) and isinstance(
            below, dict) else value
    return out


def _argo_release(model: Model, obj: KObject, pods: Sequence[PodTemplate],
                  generated: Mapping[str, Any] | None = None, app: str = "") -> Release | None:
    """The release of Argo CD Application ``obj`` (or of the Application its ApplicationSet
    ``obj`` generates: its ``generated`` spec, named ``app``)."""
    spec = mapping(obj.get(("spec",))) if generated is None else generated
    charted = [s for _, s in argo_sources(spec) if s.get("chart")]
    if not charted:
        return None
    source = charted[0]
    dest = mapping(spec.get("destination")).get("namespace")
    namespace = dest if isinstance(dest, str) and dest else (obj.namespace or "default")
    helm = mapping(source.get("helm"))
    name = str(helm.get("releaseName") or app or obj.name)
    chart, version = str(source.get("chart")), str(source.get("targetRevision") or "")
    # the values files another source of it gives the chart (``$values/apps/web/values.yaml``)
    # that this tree holds: Helm reads them first, in order, then ``valuesObject`` over them
    # (new-user trial sixty: open-webui's release "not evaluated")
    files = [f for s, f in argo_ref_values(spec) if s is source and f in model.files]
    values: Any = helm.get("valuesObject")
    why = ""
    if helm.get("values") or helm.get("parameters") or (
            len(files) != len(items(helm.get("valueFiles")))):
        why = "its values come from valueFiles, values or parameters too"
    elif chart != APP_TEMPLATE:
        why = f"chart {chart} ({version or 'no version'}): its templates are not known to reviewbot"
    elif files:
        read = [(f, v) for f in files for v in _single_values(model, f)]
        if len(read) != len(files):
            why = "its values come from valueFiles reviewbot does not read as one document"
        else:
            values = _merged([*(v for _, v in read), mapping(values)])
            by_file = _values_pods(model)
            pods = [*pods, *(p for f in files for p in by_file.get(f, ()))]
    release = Release(obj, name, namespace, chart, version, why)
    return _rendered(release, values, pods)


def _single_values(model: Model, file: str) -> list[dict[str, Any]]:
    """The one mapping a values file of the tree holds (none: several documents, or none)."""
    lf = model.files.get(file)
    value = lf.documents[0].value if lf is not None and len(lf.documents) == 1 else None
    return [value] if isinstance(value, dict) else []


def _why_not(obj: KObject, spec: Mapping[str, Any], chart: str, version: str,
             source: str, read: bool = False) -> str:
    """Why the release is not evaluated ("" when it is); ``read``: its ``valuesFrom`` are
    files of the tree reviewbot reads (:func:`~reviewbot.model.values.values_from`)."""
    if chart != APP_TEMPLATE:
        shown = chart or "?"
        if source.startswith("GitRepository") and "/" in shown:  # (a chart of the tree:
            # new-user trial fifty-one read "not known" of templates it had written)
            return (f"chart {shown} (a folder of its {source}): reviewbot does not render its "
                    "templates")
        return (f"chart {shown} ({version or 'no version'}, from {source}): its templates are "
                "not known to reviewbot")
    for ref in ([] if read else items(spec.get("valuesFrom"))):
        ref = mapping(ref)
        return (f"its values come from {ref.get('kind') or 'a ConfigMap'} {ref.get('name')} too "
                "(valuesFrom)")
    if items(spec.get("postRenderers")):
        return "its post-renderers change what the chart renders"
    return ""


def chart_major(version: Any) -> int | None:
    """The major version of a chart version as a HelmRelease writes it (a string, or a YAML
    number): of one version, or of a semver range whose versions share one major
    (:func:`major_of`); else None."""
    if not isinstance(version, (str, int)) or isinstance(version, bool):
        return None
    found = major_of(str(version))
    return found[0] if found is not None else None


def major_of(version: str) -> tuple[int, int, int] | None:
    """The chart version a release runs: one written exactly; for a semver range whose
    versions share one major (``4.x``, ``~4.1``, ``^4.0.0``, ``>=4.0.0 <5.0.0``), the highest
    of that major, which Flux pulls (``(4, 99, 99)``: its labels are the major's); else
    None."""
    text = version.strip()
    match = VERSION.match(text)
    if match and (match.end() == len(text) or text[match.end()] in "-+"):  # (a pre-release)
        return int(match.group(1)), int(match.group(2)), int(match.group(3))
    found = _range_major(text)
    return (found, 99, 99) if found is not None else None


def _range_major(text: str) -> int | None:
    """The one major of a semver range's versions (Masterminds/semver, which Flux and Helm
    read), or None."""
    one = re.fullmatch(rf"[~^=v]*\s*({_N})(?:\.(?:{_N}|[xX*]))?(?:\.(?:{_N}|[xX*]))?", text)
    if one and not (text.startswith("^") and one.group(1) == "0"):
        return int(one.group(1))  # X, X.x, X.Y.x, ~X.Y, ^X.Y.Z (X > 0)
    bounds = re.fullmatch(rf">=?\s*v?({_N})\.{_N}(?:\.{_N})?\s*,?\s*<\s*v?({_N})(?:\.0)?(?:\.0)?",
                          text)
    if bounds and int(bounds.group(2)) == int(bounds.group(1)) + 1:
        return int(bounds.group(1))  # >=X.Y.Z <X+1.0.0
    return None


def controller_key(version: str) -> str | None:
    """The pod label app-template's common library puts the controller's identifier under."""
    found = major_of(version)
    if found is None:
        return None
    if found[0] in (4, 5):
        return "app.kubernetes.io/controller"
    if found == (3, 0, 0):
        return "common.bjw-s.dev/controller"
    if found[0] in (2, 3):
        return "app.kubernetes.io/component"
    return None


def _rendered(release: Release, raw: Any, pods: Sequence[PodTemplate]) -> Release:
    """The release with its pods and Services as app-template renders them."""
    values = mapping(raw)
    if release.why_not:
        return release
    major = major_of(release.version)
    if major is not None and major[0] < 2:
        return replace(release, why_not=(
            f"app-template {release.version}: the templates of its 1.x charts (values without "
            "controllers) are not known to reviewbot"))
    if not any(p.origin is not None and p.origin.chart == APP_TEMPLATE for p in pods):
        return replace(release, why_not="its values hold no app-template controller with "
                       "containers")
    if SUBSTITUTION.search(release.name):
        return replace(release, why_not=f"its release name {release.name} is substituted when "
                       "applied")
    global_values = mapping(values.get("global"))
    name = str(global_values.get("nameOverride") or release.name)
    full = str(global_values.get("fullnameOverride") or values.get("fullnameOverride") or "")
    if not full:
        full = release.name if name in release.name else f"{release.name}-{name}"
    full = full[:63].rstrip("-")
    key = controller_key(release.version)
    selector = {"app.kubernetes.io/name": name, "app.kubernetes.io/instance": release.name}
    controllers = {str(k): mapping(v) for k, v in mapping(values.get("controllers")).items()
                   if isinstance(v, dict) and v.get("enabled") is not False}
    shared: dict[str, str] = {}
    if global_values.get("propagateGlobalMetadataToPods"):
        shared.update(_labels(global_values.get("labels")))
    defaults = _labels(mapping(values.get("defaultPodOptions")).get("labels"))
    rendered: dict[int, PodTemplate] = {}
    for pod in pods:
        if pod.origin is None or pod.origin.chart != APP_TEMPLATE:
            continue
        cid = str(pod.spec_path[-1])
        labels: dict[str, str] = {}
        if key is not None:
            labels[key] = cid
        labels.update(shared)
        labels.update(selector)
        labels.update(defaults)
        labels.update(_labels(mapping(controllers.get(cid, {}).get("pod")).get("labels")))
        if any(SUBSTITUTION.search(k) or SUBSTITUTION.search(v) for k, v in labels.items()):
            return replace(release, why_not="Flux substitutes ${...} in its pod labels")
        workload = _resource_name(full, cid, controllers.get(cid, {}), len(controllers), major,
                                  _always_suffixed(values))
        rendered[id(pod)] = _as_rendered(pod, workload, labels, key is not None)
    by_id = _services(release, values, full, selector, key, controllers, major)
    services = tuple(by_id.values())
    base = _values_path(release.obj)
    refused = _refused_policy(values, controllers, major)
    if refused:
        return replace(release, why_not=f"app-template {release.version or '?'} refuses to "
                       f"render it: {refused}, so Flux applies none of it")
    policies = _policies(values, base, full, selector, key, controllers, major)
    partial = "" if key is not None else (
        f"the controller label and Service names of app-template {release.version or '?'} are "
        "not known to reviewbot (known: 2.x to 5.x), so selectors on them match none of its "
        "pods")
    if key is not None and major is not None and major[0] == 2:
        partial = (f"the Services of app-template {release.version} come from its common "
                   "library's default values (service.main), which reviewbot does not read, so "
                   "URLs to them are not judged")
    return Release(release.obj, release.name, release.namespace, release.chart,
                   release.version, release.why_not, partial, key, services, policies,
                   _backends(values, base, by_id), rendered,
                   tuple((*base, "service", identifier, "ports") for identifier in by_id),
                   _route_names(values, full))


def _route_names(values: Mapping[str, Any], full: str) -> tuple[str, ...]:
    """The HTTPRoutes app-template's enabled ``route.<id>`` values render, by name: the
    primary route (the one marked ``primary: true``, else the only one) takes the full
    name, another ``<full>-<id>``, one with a ``nameOverride`` ``<full>-<nameOverride>``
    (the common library's route naming). With several and none primary, which is primary
    is not known: those without a ``nameOverride`` are left out."""
    routes = {str(k): mapping(v) for k, v in mapping(values.get("route")).items()
              if isinstance(v, dict) and v.get("enabled") is not False}
    marked = [k for k, v in routes.items() if v.get("primary") is True]
    primary = marked[0] if marked else next(iter(routes)) if len(routes) == 1 else None
    out = []
    for key, route in routes.items():
        override = route.get("nameOverride")
        if isinstance(override, str) and override:
            out.append(f"{full}-{override}")
        elif primary is not None:
            out.append(full if key == primary else f"{full}-{key}")
    return tuple(out)


def _backends(values: Mapping[str, Any], base: Path,
              services: Mapping[str, Service]) -> tuple[RenderedBackend, ...]:
    """The backends of the enabled ``ingress.<id>`` and ``route.<id>`` values naming a
    Service by ``identifier`` whose every port the values write as a number (so its ports
    are known). A route's port is judged when written as a number: left out it is the
    Service's primary port, and a name is written as it is (a route the API refuses) by
    3.x and resolved, or refused at render, by later versions."""
    written = {identifier: mapping(mapping(values.get("service")).get(identifier)).get("ports")
               for identifier in services}

    def known(identifier: Any, port: Any) -> Service | None:
        if not isinstance(identifier, str) or identifier not in services or (
                not isinstance(port, (int, str)) or isinstance(port, bool)
                or (isinstance(port, str) and SUBSTITUTION.search(port))):
            return None
        enabled = [p for p in mapping(written[identifier]).values()
                   if mapping(p).get("enabled") is not False]
        # a port the values do not write as a number: not all known
        return services[identifier] if len(enabled) == len(services[identifier].ports) else None

    out = []
    for key, outer, inner, leaf in (("ingress", "hosts", "paths", ("service",)),
                                    ("route", "rules", "backendRefs", ())):
        for name, entry in mapping(values.get(key)).items():
            if not isinstance(entry, dict) or entry.get("enabled") is False:
                continue
            for i, one in enumerate(items(entry.get(outer))):
                for j, ref in enumerate(items(mapping(one).get(inner))):
                    service = mapping(mapping(ref).get(leaf[0]) if leaf else ref)
                    identifier, port = service.get("identifier"), service.get("port")
                    if key == "route" and not isinstance(port, int):
                        continue
                    target = known(identifier, port)
                    if target is None or not isinstance(port, (int, str)):
                        continue
                    out.append(RenderedBackend(
                        str(name), (*base, key, str(name), outer, i, inner, j, *leaf, "port"),
                        target, str(identifier), port, (*base, "service", str(identifier),
                                                        "ports"), key))
    return tuple(out)


# PodTemplate's __init__ stores its fields and nothing else (no __post_init__, every field
# an argument): then :func:`_as_rendered` may copy an instance's fields rather than call it
_PLAIN_POD_INIT = not hasattr(PodTemplate, "__post_init__") and all(
    f.init for f in fields(PodTemplate))
_POD_FIELDS = len(fields(PodTemplate))


def _as_rendered(pod: PodTemplate, name: str, labels: dict[str, str],
                 complete: bool) -> PodTemplate:
    """``replace(pod, name=name, labels=labels, labels_complete=complete)``: the pod as the
    chart renders it. When PodTemplate's __init__ only stores its fields, the same instance
    is made by copying ``pod``'s fields and setting the three (dataclasses.replace reads the
    16 fields' definitions and calls __init__ with all of them: 22% of the releases' time on
    JJGadgets-Biohazard's 100 app-template pods, cProfile); tests/test_netpol_helm.py
    compares both on the corpus' pods."""
    if not _PLAIN_POD_INIT or len(pod.__dict__) != _POD_FIELDS:  # (a value cached in it)
        return replace(pod, name=name, labels=labels, labels_complete=complete)
    made = object.__new__(PodTemplate)
    state = made.__dict__
    state.update(pod.__dict__)
    state["name"], state["labels"], state["labels_complete"] = name, labels, complete
    return made


# the keys app-template's values schema allows (the common library's values.schema.json,
# which app-template's $refs, from common-3.0.0 to common-4.1.1: charts/library/common/
# schemas/controllers.json and containers.json in bjw-s-labs/helm-charts, each with
# ``additionalProperties: false``) in a controller, a container, a container's probes and
# each probe; the union over those versions (a key a later one added is not judged). Any
# other key fails the schema ("Additional property ... is not allowed"): Helm refuses to
# install, upgrade or template the release
APP_TEMPLATE_KEYS: Mapping[str, frozenset[str]] = {
    "controller": frozenset({
        "annotations", "applyDefaultContainerOptionsToInitContainers", "containers", "cronjob",
        "defaultContainerOptions", "defaultContainerOptionsStrategy", "enabled",
        "initContainers", "job", "labels", "nameOverride", "pod", "replicas",
        "revisionHistoryLimit", "rollingUpdate", "serviceAccount", "statefulset", "strategy",
        "type"}),
    "container": frozenset({
        "args", "command", "dependsOn", "enabled", "env", "envFrom", "image", "lifecycle",
        "nameOverride", "ports", "probes", "resources", "restartPolicy", "securityContext",
        "stdin", "terminationMessagePath", "terminationMessagePolicy", "tty", "workingDir"}),
    "probes": frozenset({"liveness", "readiness", "startup"}),
    "probe": frozenset({"custom", "enabled", "path", "port", "service", "spec", "type"}),
}


# the top-level keys app-template's values schema names (the common library's
# values.schema.json, common-3.0.0 to common-5.2.1, bjw-s-labs/helm-charts): its root allows
# other keys (app-template evaluates templates in its values, and a key of one's own may
# hold what they read), so one is judged only where it misspells one of these
APP_TEMPLATE_TOP_KEYS = frozenset({
    "global", "defaultPodOptionsStrategy", "defaultPodOptions", "controllers",
    "serviceAccount", "configMaps", "configMapsFromFolder", "secrets",
    "defaultExternalSecretStoreRef", "externalSecrets", "secretsFromFolder", "ingress", "route",
    "listenerSets", "service", "serviceMonitor", "podMonitor", "networkpolicies",
    "persistence", "rbac", "rawResources"})


def schema_keys(release: Release) -> Mapping[str, frozenset[str]] | None:
    """:data:`APP_TEMPLATE_KEYS` for a release of app-template 3.0.0 to 4.1.1 (a version
    written exactly), else None: another chart, 1.x and 2.x (no values schema), a later
    version (its schema not read here: a key it added would be called unknown)."""
    found = major_of(release.version) if release.chart == APP_TEMPLATE else None
    return APP_TEMPLATE_KEYS if found is not None and (3, 0, 0) <= found <= (4, 1, 1) else None


def later_schema_keys(release: Release) -> Mapping[str, frozenset[str]] | None:
    """:data:`APP_TEMPLATE_KEYS` for a release of a 4.x app-template later than 4.1.1, whose
    schema reviewbot has not read (new-user trial fifty-five: 4.1.2's `resource:` for
    `resources:` went unsaid): its keys are likely the same, not certainly."""
    found = major_of(release.version) if release.chart == APP_TEMPLATE else None
    return APP_TEMPLATE_KEYS if found is not None and (4, 1, 1) < found < (5, 0, 0) else None


def release_values(release: Release) -> tuple[Mapping[str, Any], Path]:
    """The values the release's object writes (``spec.values``, an Argo CD source's
    ``helm.valuesObject``) and where they are in it."""
    base = _values_path(release.obj)
    return mapping(release.obj.get(base)), base


def _values_path(obj: KObject) -> Path:
    return ("spec", "values") if obj.kind == "HelmRelease" else next(
        (path + ("helm", "valuesObject") for path in [("spec", "source")] + [
            ("spec", "sources", i) for i in range(len(items(obj.get(("spec", "sources")))))]
         if isinstance(obj.get(path + ("helm", "valuesObject")), dict)), ("spec", "source"))


def _policies(values: Mapping[str, Any], base: Path, full: str, selector: Mapping[str, str],
              key: str | None, controllers: Mapping[str, Mapping[str, Any]],
              major: tuple[int, int, int] | None) -> tuple[RenderedPolicy, ...]:
    enabled = {str(k): mapping(v) for k, v in mapping(values.get("networkpolicies")).items()
               if isinstance(v, dict) and v.get("enabled") is not False}
    out: list[RenderedPolicy] = []
    for identifier, entry in enabled.items():
        rules = mapping(entry.get("rules"))
        spec = {"policyTypes": entry.get("policyTypes"), "ingress": rules.get("ingress"),
                "egress": rules.get("egress")}
        if SUBSTITUTION.search(repr(spec)):
            continue  # Helm templates (tpl) or Flux variables in its rules: not read
        if "podSelector" in entry:
            chosen: Mapping[str, Any] = mapping(entry.get("podSelector"))
        else:
            controller = entry.get("controller")
            if not controller and len(controllers) == 1:
                controller = next(iter(controllers))
            labels = {**selector, **_labels(entry.get("extraSelectorLabels"))}
            if key is not None and isinstance(controller, str):
                labels[key] = controller
            chosen = {"matchLabels": labels}
        name = _resource_name(full, identifier, entry, len(enabled), major,
                              _always_suffixed(values))
        out.append(RenderedPolicy(name, spec, base + ("networkpolicies", identifier, "rules"),
                                  chosen))
    return tuple(out)


def _refused_policy(values: Mapping[str, Any], controllers: Mapping[str, Mapping[str, Any]],
                    major: tuple[int, int, int] | None) -> str:
    """Why the chart's ``networkpolicy.validate`` fails on the values, "" when it does not:
    a policy needs ``controller`` or ``podSelector`` (2.x to 4.x); 5.x takes the only
    controller when neither is set, and refuses both at once."""
    five = major is not None and major[0] >= 5
    for identifier, entry in mapping(values.get("networkpolicies")).items():
        if not isinstance(entry, dict) or entry.get("enabled") is False:
            continue
        has_selector, controller = "podSelector" in entry, entry.get("controller")
        if five and has_selector and controller:
            return (f"networkpolicies.{identifier} sets both controller and podSelector "
                    "(5.x takes one)")
        if not has_selector and not controller and not (five and len(controllers) == 1):
            return (f"networkpolicies.{identifier} sets neither controller nor podSelector"
                    + ("" if five else " (before 5.x the chart does not pick the only "
                       "controller)"))
    return ""


def _labels(raw: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in mapping(raw).items() if v is not None}


def _resource_name(full: str, identifier: str, values: Mapping[str, Any], count: int,
                   major: tuple[int, int, int] | None, always: bool = False) -> str:
    """A controller's or Service's name (``determineResourceNameFromValues``, 4.x; 3.x and
    2.x suffix the identifier when there are several). From common 4.1.0 the identifier is
    also appended when ``global.alwaysAppendIdentifierToResourceName`` (``always``), and
    never when it is the name itself (new-user trial eighty-two D1: a release `searxng`'s
    controller `searxng` read as `searxng-searxng`)."""
    if major is not None and major[0] >= 4:
        force = values.get("forceRename")
        if isinstance(force, str) and force:
            return force.lower()
        name = full
        prefix = values.get("prefix")
        if isinstance(prefix, str) and prefix and prefix != name:
            name = f"{prefix}-{name}"
        later = major >= (4, 1, 0)
        if (count > 1 or later and always) and not name.endswith(f"-{identifier}") and not (
                later and identifier == name):
            name = f"{name}-{identifier}"
        suffix = values.get("suffix")
        if isinstance(suffix, str) and suffix and not name.endswith(f"-{suffix}"):
            name = f"{name}-{suffix}"
        return name.lower()
    if count > 1 and full != identifier:
        return f"{full}-{identifier}"
    return full


def _always_suffixed(values: Mapping[str, Any]) -> bool:
    """``global.alwaysAppendIdentifierToResourceName`` of app-template values (4.1.0 on)."""
    return mapping(values.get("global")).get("alwaysAppendIdentifierToResourceName") is True


def _services(release: Release, values: Mapping[str, Any], full: str,
              selector: Mapping[str, str], key: str | None,
              controllers: Mapping[str, Mapping[str, Any]],
              major: tuple[int, int, int] | None) -> dict[str, Service]:
    """The Services of the release's enabled ``service.<id>`` values, by identifier."""
    if key is None or major is None or major[0] not in (3, 4, 5):
        return {}  # names and selectors of other versions are not known here
    enabled = {str(k): mapping(v) for k, v in mapping(values.get("service")).items()
               if isinstance(v, dict) and v.get("enabled") is not False}
    out: dict[str, Service] = {}
    for identifier, svc in enabled.items():
        if svc.get("type") == "ExternalName":
            continue
        controller = svc.get("controller")
        if not controller and len(controllers) == 1:
            controller = next(iter(controllers))
        if not isinstance(controller, str) or controller not in controllers:
            continue
        if major[0] >= 4:
            name = _resource_name(full, identifier, svc, len(enabled), major,
                                  _always_suffixed(values))
        elif isinstance(svc.get("nameOverride"), str) and svc["nameOverride"]:
            override = svc["nameOverride"]
            name = full if override == full else f"{full}-{override}"
        elif not svc.get("primary") and len(enabled) > 1 and full != identifier:
            name = f"{full}-{identifier}"
        else:
            name = full
        if SUBSTITUTION.search(name):
            continue
        ports = []
        for port_name, port in mapping(svc.get("ports")).items():
            port = mapping(port)
            number = port.get("port")
            if port.get("enabled") is False or not isinstance(number, int) or isinstance(
                    number, bool):
                continue
            target = port.get("targetPort", number)
            protocol = str(port.get("protocol") or "TCP").upper()
            protocol = "TCP" if protocol in ("HTTP", "HTTPS") else protocol
            ports.append(ServicePort(str(port_name), number,
                                     target if isinstance(target, (int, str)) else number,
                                     protocol))
        chosen = {**selector, key: controller,
                  **_labels(svc.get("extraSelectorLabels"))}
        out[identifier] = Service(release.obj, release.namespace, name, chosen, tuple(ports),
                                  synthesized=True, headless=svc.get("clusterIP") == "None")
    return out
