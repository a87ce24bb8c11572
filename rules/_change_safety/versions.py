"""change-safety's `chart-major`, `oci-tag` and `chart-unversioned` verdicts: a HelmRelease's
chart major version or an OCIRepository's tag changes, whose rendered change is out of
reach; a chart of the tree edited without its version, which Flux does not package again."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from reviewbot.engine.findings import Violation
from reviewbot.model.objects import KObject, Model, Path
from reviewbot.rules._change_safety.common import object_name

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import ObjectDiff


def version_verdicts(entry: ObjectDiff, old: KObject, new: KObject,
                     head: Model | None = None) -> Iterator[Violation]:
    if new.kind == "HelmRelease" and new.group == "helm.toolkit.fluxcd.io":
        # (the releases module when a review asks: a lint imports none of this rule's diff)
        from reviewbot.model.releases import chart_major

        path: Path = ("spec", "chart", "spec", "version")
        was, now = old.get(path), new.get(path)
        a, b = chart_major(was), chart_major(now)
        if a is not None and b is not None and a != b and head is not None:
            yield from _selectors_changed(head, new, path, [new], was, now)
        if a is not None and b is not None and a != b:
            chart = new.get(("spec", "chart", "spec", "chart")) or "the chart"
            yield Violation(
                new, path,
                f"HelmRelease {object_name(new)}: chart {chart} {was} -> {now} changes the major "
                f"version ({a} -> {b}): templates, values and defaults may change "
                "incompatibly, and the rendered change is out of reach without the chart "
                "(reviewbot does not render Helm charts)",
                fix=f"Read the chart's upgrade notes for {now} and diff its rendered output "
                    "(helm template, flux diff) before merging.",
                kind="chart-major",
            )
    elif new.kind == "OCIRepository" and new.group == "source.toolkit.fluxcd.io":
        from reviewbot.model.releases import chart_major

        tag: Path = ("spec", "ref", "tag")
        was, now = old.get(tag), new.get(tag)
        a, b = chart_major(was), chart_major(now)
        users = _chart_users(head, new) if head is not None and a != b else []
        if a is not None and b is not None and a != b and users and head is not None:
            yield from _selectors_changed(head, new, tag, users, was, now)
        if a is not None and b is not None and a != b and users:
            # (a chart through chartRef: new-user trial thirty-six's app-template 4 -> 5 was
            # an oci-tag info that said nothing of a major version)
            named = ", ".join(f"HelmRelease {object_name(u)}" for u in users[:3]) + (
                f" and {len(users) - 3} more" if len(users) > 3 else "")
            yield Violation(
                new, tag,
                f"OCIRepository {object_name(new)}: tag {was} -> {now} changes the major version "
                f"({a} -> {b}) of the chart {named} {'uses' if len(users) == 1 else 'use'}: "
                "templates, values and defaults may change incompatibly, and the rendered "
                "change is out of reach without the chart (reviewbot does not render Helm "
                "charts)",
                fix=f"Read the chart's upgrade notes for {now} and diff its rendered output "
                    "(helm template, flux diff) before merging.",
                kind="chart-major",
            )
        elif was is not None and now is not None and None not in (
                _prefix(str(was)), _prefix(str(now))) and _prefix(str(was)) != _prefix(str(now)):
            # (new-user trial seventy-nine D6: reloader's `2.2.3` -> `v2.2.4`, an info)
            written = "adds a `v` the old tag has not" if _prefix(str(now)) else (
                "drops the `v` the old tag has")
            yield Violation(
                new, tag,
                f"OCIRepository {object_name(new)}: tag {was} -> {now} {written}: the registry "
                "matches a tag exactly (a chart's is its version as pushed), so where it holds "
                f"{str(now).removeprefix('v') if _prefix(str(now)) else 'v' + str(now)} and not "
                f"{now}, source-controller fails to pull it and everything built from this "
                f"artifact stays at {was}",
                fix=f"Write the tag as the registry lists it ({'' if _prefix(str(was)) else 'no '}"
                    "`v`, as the old one), or check that the registry holds "
                    f"{now}.",
                kind="oci-tag-form", doubt=f"whether the registry holds the tag {now}")
        elif was is not None and now is not None and str(was) != str(now):
            yield Violation(
                new, tag,
                f"OCIRepository {object_name(new)}: tag {was} -> {now}: everything built from this "
                "artifact changes with it, and the rendered change is out of reach (the "
                "artifact is not in this repository)",
                fix=f"Diff the artifact's content at {was} and {now} (flux diff artifact) "
                    "before merging.",
                kind="oci-tag",
            )



def _selectors_changed(head: Model, obj: KObject, at: Path, users: list[KObject], was: object,
                       now: object) -> Iterator[Violation]:
    """``chart-selector`` (error): the change moves app-template releases (``users``, their
    chart's version written at ``at`` of ``obj``) to a version whose common library puts
    the controller's identifier under another pod label (3.x `app.kubernetes.io/component`,
    4.x `app.kubernetes.io/controller`): the label is in each Deployment's, StatefulSet's
    and DaemonSet's selector, which Kubernetes refuses to change ("field is immutable"), so
    helm-controller's upgrade fails, and the release stays at the old version until they are
    deleted (the chart's upgrade notes, 3.x to 4.0.x; new-user trial eighty-two D2)."""
    from reviewbot.model.releases import APP_TEMPLATE, controller_key, releases

    old_key, new_key = controller_key(str(was)), controller_key(str(now))
    if old_key is None or new_key is None or old_key == new_key:
        return
    mine = {id(u) for u in users}
    held = [f"{p.kind} {p.namespace}/{p.name}" for r in releases(head)
            if id(r.obj) in mine and r.chart == APP_TEMPLATE
            for p in r.pods.values() if p.kind in ("Deployment", "StatefulSet", "DaemonSet")]
    if not held:
        return
    shown = ", ".join(held[:3]) + (f" and {len(held) - 3} more" if len(held) > 3 else "")
    yield Violation(
        obj, at,
        f"{', '.join(f'HelmRelease {object_name(u)}' for u in users[:3])}: app-template "
        f"{was} -> {now} moves the controller label of {shown} from {old_key} to "
        f"{new_key}, which is in {'its' if len(held) == 1 else 'their'} selector: "
        "Kubernetes refuses a changed selector (\"field is immutable\"), so helm-controller's "
        f"upgrade fails and the release stays at {was}",
        fix=f"Delete {shown} as the upgrade is applied (the chart's upgrade notes: they are "
            "recreated), or stay on the major version.",
        kind="chart-selector")


_VERSION_TAG = re.compile(r"v?[0-9]+(\.[0-9]+)*([-+.].*)?")


def _prefix(tag: str) -> bool | None:
    """Whether a version tag is written with a ``v`` (``v2.2.4``), or None for a tag that is
    no version (``latest``, ``main``)."""
    return tag.startswith("v") if _VERSION_TAG.fullmatch(tag) else None


def _chart_users(head: Model, source: KObject) -> list[KObject]:
    """The HelmReleases of ``head`` whose ``chartRef`` names OCIRepository ``source``."""
    out = []
    for obj in head.objects:
        ref = obj.get(("spec", "chartRef")) if obj.kind == "HelmRelease" else None
        if isinstance(ref, dict) and ref.get("kind") == "OCIRepository" and ref.get(
                "name") == source.name and (ref.get("namespace") or obj.namespace) == (
                source.namespace):
            out.append(obj)
    return out


def unversioned_chart_verdicts(base: Model, head: Model) -> Iterator[Violation]:
    """``chart-unversioned``: a Flux HelmRelease renders a chart of its own GitRepository
    (``spec.chart.spec.chart`` a folder of the tree holding a Chart.yaml) with the default
    ``reconcileStrategy: ChartVersion``, and the change edits what the release reads of it
    (its templates and other files, its ``values.yaml``, or the ``valuesFiles`` it names
    instead; not another release's values file beside it) while its Chart.yaml ``version``
    stays: source-controller packages such a chart again only when that version changes, so
    the edit never reaches the cluster (judge round CH: three releases of local charts
    without ``Revision``). The releases one edit leaves behind are one finding."""
    import posixpath

    from reviewbot.diff.anchors import Anchors
    from reviewbot.model.kustomize import git_chart

    found: dict[tuple[str, str], list[KObject]] = {}  # (folder, first file) -> releases
    edits: dict[tuple[str, str], list[str]] = {}
    for obj in head.objects:
        if obj.kind != "HelmRelease" or obj.group != "helm.toolkit.fluxcd.io" or (
                obj.file in head.unapplied):
            continue
        spec = obj.get(("spec", "chart", "spec"))
        local = git_chart(spec)
        if local is None or spec.get("reconcileStrategy") not in (None, "ChartVersion"):
            continue
        folder, values_files = local
        chart = posixpath.join(folder, "Chart.yaml")
        version = _chart_version(head, chart)
        if version is None or version != _chart_version(base, chart):
            continue
        read = set(values_files) or {posixpath.join(folder, "values.yaml")}
        files = sorted(p for p in {*base.files, *head.files} if p in read or (
            p.startswith(folder + "/") and not _VALUES_FILE.match(posixpath.basename(p))))
        edited = [p for p in files if p in head.files and (
            p not in base.files or base.files[p].data != head.files[p].data)]
        if edited:
            key = (folder, edited[0])
            if not any(o.ref == obj.ref for o in found.get(key, ())):
                found.setdefault(key, []).append(obj)
                edits[key] = sorted({*edits.get(key, ()), *edited})
    anchors = Anchors(base, head) if found else None
    for (folder, first), releases in found.items():
        assert anchors is not None
        file, line, column = anchors.head_place(first, anchors.first_change(first))
        edited = edits[(folder, first)]
        shown = ", ".join(edited[:3]) + (f" and {len(edited) - 3} more" if len(edited) > 3
                                         else "")
        names = ", ".join(object_name(o) for o in releases)
        version = _chart_version(head, posixpath.join(folder, "Chart.yaml"))
        yield Violation(
            None, (),
            f"HelmRelease{'s' if len(releases) > 1 else ''} {names} render"
            f"{'' if len(releases) > 1 else 's'} the chart in {folder}, which this change "
            f"edits ({shown}), but its Chart.yaml version stays {version}: source-controller "
            "packages a chart of a GitRepository again only when that version changes "
            "(spec.chart.spec.reconcileStrategy: ChartVersion, the default), so the cluster "
            "keeps the release as it was",
            fix=f"Bump version in {folder}/Chart.yaml, or set spec.chart.spec."
                f"reconcileStrategy: Revision on HelmRelease {names}.",
            kind="chart-unversioned", file=file, line=line, column=column)


# a values file beside a chart (values.yaml, values-prod.yaml): read only by the releases
# that name it (or, for values.yaml, that name none)
_VALUES_FILE = re.compile(r"^values(?:[-._][^/]*)?\.ya?ml$")


def _chart_version(model: Model, path: str) -> str | None:
    lf = model.files.get(path)
    value = lf.documents[0].value if lf is not None and lf.documents else None
    version = value.get("version") if isinstance(value, dict) else None
    return str(version) if version is not None else None
