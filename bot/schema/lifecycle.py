"""Which Kubernetes minor serves which apiVersion/kind, derived from the per-minor schemas.

``kubernetes-validate`` installs one folder of strict JSON Schemas per Kubernetes minor
(1.25 to 1.37 in the pinned 1.37.0); each folder's ``_definitions.json`` names the
group/version/kind of every top-level type (``x-kubernetes-group-version-kind``). A kind is
*served* by a minor when that minor's definitions name it; the minors serving it give its
life (``batch/v1 CronJob``: 1.25-1.37; ``flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema``:
1.26-1.31, so removed in 1.32). ``DeleteOptions`` lists every group version the API
machinery of that minor knows, removed ones included (``extensions/v1beta1``): a group
version it names that serves no kind is one Kubernetes removed before the oldest minor known.

Reading thirteen folders' definitions takes about 0.3 s of every run, so the facts are kept
in ``api_versions.json`` beside this module (15 KiB; read and indexed in 1.5-3 ms, only when
``api-lifecycle`` runs or its docs are made; the rule module imports in about 2.5 ms):
:func:`generate` writes it from the installed schemas (``python -m
reviewbot.schema.lifecycle``), and a test checks that it is what the installed schemas give.

What the schemas cannot say, this module does not claim: a minor older than the oldest
folder is unknown (a kind absent from 1.25 on may or may not be served by 1.24), and a
minor newer than the newest may remove what it serves. Two facts of Kubernetes' deprecation
policy (https://kubernetes.io/docs/reference/using-api/deprecation-policy/) extend the
range where they apply: an API version, once no longer served, is not served again, and
"API elements may only be removed by incrementing the version of the API group", so a GA
group version (``v1``, ``v2``) served by the oldest minor known served no other kinds in
older minors (``v1 Deployment`` was never served).

For each apiVersion/kind that a minor stops serving, the data also records how its
replacement's fields differ (``changes``): the field paths only the old version has and
the ones only the new one has, under the same parent (PriorityLevelConfiguration
``flowcontrol.apiserver.k8s.io/v1beta2`` -> ``v1``: ``spec.limited.assuredConcurrencyShares``
gone, ``spec.limited.nominalConcurrencyShares`` new).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from reviewbot import startup
from reviewbot.errors import ReviewbotError

DATA = "api_versions.json"
FORMAT = 1
Minor = tuple[int, int]
Gvk = tuple[str, str, str]  # (group, version, kind)
GVK = "x-kubernetes-group-version-kind"
DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
MAX_DEPTH = 12
_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")
_MINOR = re.compile(r"^v?(\d{1,4})\.(\d{1,4})(?:\.(\d{1,6}))?(?:[-+][0-9A-Za-z.+-]*)?$")


def minor_text(minor: Minor) -> str:
    return f"{minor[0]}.{minor[1]}"


def parse_minor(text: Any) -> Minor | None:
    """``"1.31"``, ``"v1.31.4"``, ``"1.31.4+k3s1"``, ``"v1.30.2-eks-1552ad0"`` -> (1, 31);
    None for anything else (a YAML number such as ``1.30`` is not a version: it reads 1.3)."""
    if not isinstance(text, str):
        return None
    match = _MINOR.match(text.strip())
    if not match:
        return None
    return int(match.group(1)), int(match.group(2))


def version_problem(value: Any) -> str | None:
    """Why ``value`` is no Kubernetes version (None when it is one): the config and the
    command line refuse it (exit 2)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return f"expected a Kubernetes version such as \"1.31\", got {_shown(value)}"
    if isinstance(value, (int, float)):
        return (f"{value!r} is a number; write the version as text, quoted (\"1.30\": "
                "unquoted, 1.30 reads as the number 1.3)")
    minor = parse_minor(value)
    if minor is None:
        return f"{_shown(value)} is not a Kubernetes version such as \"1.31\" or \"v1.31.4\""
    if minor[0] != 1:
        return f"{_shown(value)}: Kubernetes versions are 1.x"
    return None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def stability(version: str) -> tuple[int, int, int]:
    """Sort key of an API version, most stable and newest last: v1alpha1 < v1beta2 < v1 < v2."""
    match = _VERSION.match(version)
    if not match:
        return (-1, 0, 0)
    track = {"alpha": 0, "beta": 1, None: 2}[match.group(2)]
    return (track, int(match.group(1)), int(match.group(3) or 0))


def is_ga(version: str) -> bool:
    return bool(_VERSION.match(version)) and "alpha" not in version and "beta" not in version


def api_version_of(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def crd_versions(body: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """A CustomResourceDefinition's versions by name (``spec.versions``; apiextensions
    v1beta1's single ``spec.version`` is one served storage version)."""
    spec = body.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    out: dict[str, Mapping[str, Any]] = {}
    versions = spec.get("versions")
    for entry in versions if isinstance(versions, list) else ():
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            out[entry["name"]] = entry
    if not out and isinstance(spec.get("version"), str):
        out[spec["version"]] = {"name": spec["version"], "served": True, "storage": True}
    return out


@dataclass(frozen=True)
class FieldChange:
    """Field paths (``spec.rules[].http``) only the old apiVersion has, and only the new one."""

    removed: tuple[str, ...]
    added: tuple[str, ...]

    def added_beside(self, path: str) -> list[str]:
        """The new fields under the same parent as ``path`` (a rename's likely other half)."""
        parent = path.rpartition(".")[0]
        return [a for a in self.added if a.rpartition(".")[0] == parent]


@dataclass(frozen=True)
class ApiTable:
    """The facts of :data:`DATA`: the known minors, each kind's serving minors, the group
    versions the API machinery names, and the field changes to each replacement."""

    source: str  # "kubernetes-validate 1.37.0"
    minors: tuple[Minor, ...]  # oldest first
    kinds: Mapping[Gvk, frozenset[Minor]]
    group_versions: frozenset[tuple[str, str]]  # every (group, version) DeleteOptions names
    changes: Mapping[tuple[Gvk, str], FieldChange]  # (old gvk, new apiVersion) -> fields

    @property
    def oldest(self) -> Minor:
        return self.minors[0]

    @property
    def newest(self) -> Minor:
        return self.minors[-1]

    @cached_property
    def groups(self) -> frozenset[str]:
        """Every built-in API group (the core group is "")."""
        return frozenset(g for g, _ in self.group_versions) | {g for g, _, _ in self.kinds}

    def known(self, minor: Minor) -> bool:
        return minor in self.minors

    def serving(self, gvk: Gvk) -> frozenset[Minor]:
        return self.kinds.get(gvk, frozenset())

    def serves(self, minor: Minor, gvk: Gvk) -> bool:
        """Whether a known ``minor`` serves ``gvk``."""
        return minor in self.kinds.get(gvk, ())

    def first_after(self, minor: Minor, gvk: Gvk) -> Minor | None:
        """The first known minor after ``minor`` that does not serve ``gvk`` (its removal)."""
        return next((m for m in self.minors if m > minor and m not in self.serving(gvk)), None)

    def served_as(self, minor: Minor, group: str, kind: str) -> list[str]:
        """The apiVersions that serve ``kind`` in a known ``minor``, the likeliest replacement
        first: the same group before others, then the most stable and newest version."""
        found = [(g, v) for (g, v, k), minors in self.kinds.items()
                 if k == kind and minor in minors]
        found.sort(key=lambda gv: (gv[0] == group, stability(gv[1])), reverse=True)
        return [api_version_of(g, v) for g, v in found]

    def never_served(self, gvk: Gvk) -> bool:
        """True when no Kubernetes minor up to the newest known ever served ``gvk``: none of
        the known minors does, and its group version is GA and served by the oldest known
        (a GA group version keeps every kind it ever had: none was removed before)."""
        group, version, _ = gvk
        if self.serving(gvk) or not is_ga(version):
            return False
        return any(g == group and v == version and self.oldest in minors
                   for (g, v, _), minors in self.kinds.items())

    def change(self, gvk: Gvk, replacement: str) -> FieldChange | None:
        return self.changes.get((gvk, replacement))

    def rows(self) -> list[tuple[str, str, str, str, str]]:
        """The table the docs show: (apiVersion, kind, served, removed in, replacement) for
        every kind whose life begins or ends inside the known minors, then every group
        version the API machinery names that no known minor serves (removed before the
        oldest, or never served as a resource: ``admission.k8s.io/v1`` is a webhook's
        payload)."""
        out = []
        for (group, version, kind), minors in sorted(
                self.kinds.items(), key=lambda kv: (kv[0][0], kv[0][2], stability(kv[0][1]))):
            if kind.endswith("List") or (self.oldest in minors and self.newest in minors):
                continue
            first, last = min(minors), max(minors)
            removed = self.first_after(last, (group, version, kind))
            start = minor_text(first) + (" or earlier" if first == self.oldest else "")
            served = start if first == last else f"{start} to {minor_text(last)}"
            instead = ""
            if removed is not None:
                others = [a for a in self.served_as(removed, group, kind)
                          if a != api_version_of(group, version)]
                instead = others[0] if others else "(none)"
                fields = self.change((group, version, kind), instead) if others else None
                if fields is not None and fields.removed:
                    instead += ": " + _change_text(fields)
            out.append((api_version_of(group, version), kind, served,
                        minor_text(removed) if removed else "", instead))
        served_gv = {(g, v) for g, v, _ in self.kinds}
        for group, version in sorted(self.group_versions - served_gv):
            out.append((api_version_of(group, version), "(every kind)",
                        f"by none from {minor_text(self.oldest)}", "", ""))
        return out


def _change_text(fields: FieldChange) -> str:
    gone = ", ".join(f"`{p}`" for p in fields.removed[:5])
    if len(fields.removed) > 5:
        gone += f" and {len(fields.removed) - 5} more"
    text = f"{gone} gone"
    if fields.added:
        new = ", ".join(f"`{p}`" for p in fields.added[:5])
        text += f"; new: {new}" + (f" and {len(fields.added) - 5} more"
                                   if len(fields.added) > 5 else "")
    return text


@cache
def api_table() -> ApiTable:
    """The facts of :data:`DATA` (read once a run; made of the JSON once per installation and
    kept marshalled, :func:`~reviewbot.startup.derived`: expanding every kind's spans of
    minors was 1-2 ms of every lint)."""
    path = Path(__file__).with_name(DATA)
    try:
        source, minors, kinds, group_versions, changes = startup.derived(
            "api-versions", str(path), lambda: _table_data(path))
    except (OSError, ValueError) as exc:
        raise ReviewbotError(f"cannot read the API version table {DATA}: {exc}", 3) from exc
    return ApiTable(source, minors, kinds, group_versions,
                    {key: FieldChange(*fields) for key, fields in changes.items()})


def _table_data(path: Path) -> tuple[
        str, tuple[Minor, ...], dict[Gvk, frozenset[Minor]], frozenset[tuple[str, str]],
        dict[tuple[Gvk, str], tuple[tuple[str, ...], tuple[str, ...]]]]:
    """:func:`table_from_json` of the file ``path`` as values marshal writes."""
    table = table_from_json(json.loads(path.read_text(encoding="utf-8")))
    return (table.source, table.minors, dict(table.kinds), table.group_versions,
            {key: (c.removed, c.added) for key, c in table.changes.items()})


def table_from_json(raw: Mapping[str, Any]) -> ApiTable:
    minors = tuple(m for m in (parse_minor(t) for t in raw["minors"]) if m is not None)
    kinds: dict[Gvk, frozenset[Minor]] = {}
    for api_version, by_kind in raw["kinds"].items():
        group, _, version = api_version.rpartition("/")
        for kind, spans in by_kind.items():
            kinds[(group, version, kind)] = frozenset(_expand(spans, minors))
    gvs = frozenset(tuple(api_version.rpartition("/")[::2]) for api_version in
                    raw["group-versions"])
    changes = {}
    for entry in raw["changes"]:
        group, _, version = entry["from"].rpartition("/")
        changes[((group, version, entry["kind"]), entry["to"])] = FieldChange(
            tuple(entry["removed"]), tuple(entry["added"]))
    return ApiTable(str(raw["source"]), minors, kinds,
                    frozenset((str(g), str(v)) for g, v in gvs), changes)


def _expand(spans: str, minors: Sequence[Minor]) -> Iterator[Minor]:
    for span in spans.split(","):
        first, _, last = span.partition("-")
        low, high = parse_minor(first), parse_minor(last or first)
        if low is None or high is None:
            continue
        yield from (m for m in minors if low <= m <= high)


def _spans(minors: Iterable[Minor], known: Sequence[Minor]) -> str:
    """``1.25-1.31`` (runs of consecutive known minors, comma-separated)."""
    have = set(minors)
    runs: list[list[Minor]] = []
    previous = False
    for minor in known:
        if minor in have:
            if previous:
                runs[-1].append(minor)
            else:
                runs.append([minor])
        previous = minor in have
    return ",".join(minor_text(r[0]) if len(r) == 1 else
                    f"{minor_text(r[0])}-{minor_text(r[-1])}" for r in runs)


# ---------------------------------------------------------------- generating the data


_FOLDER = re.compile(r"^v(\d+)\.(\d+)\.\d+-local-strict$")


def schema_root() -> Path:
    from reviewbot.schema.store import _schema_root
    return _schema_root()


def generate(root: Path | None = None) -> dict[str, Any]:
    """The data of :data:`DATA`, from the installed per-minor schemas under ``root``."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as distribution_version

    folder = root or schema_root()
    minors = sorted(
        (int(m.group(1)), int(m.group(2))) for m in (_FOLDER.match(p.name) for p in
                                                     folder.iterdir())
        if m and (folder / m.group(0) / "_definitions.json").is_file())
    if not minors:
        raise ReviewbotError(f"{folder}: no per-minor schema folders", 3)
    kinds: dict[Gvk, set[Minor]] = {}
    group_versions: set[tuple[str, str]] = set()
    defs_of: dict[Minor, Mapping[str, Any]] = {}
    names: dict[tuple[Minor, Gvk], str] = {}
    for minor in minors:
        path = folder / f"v{minor[0]}.{minor[1]}.0-local-strict" / "_definitions.json"
        defs: Mapping[str, Any] = json.loads(path.read_text(encoding="utf-8"))["$defs"]
        defs_of[minor] = defs
        for name, definition in defs.items():
            for gvk in definition.get(GVK) or ():
                key = (str(gvk.get("group", "")), str(gvk["version"]), str(gvk["kind"]))
                if name == DELETE_OPTIONS:
                    group_versions.add(key[:2])
                if name.endswith((".DeleteOptions", ".WatchEvent")):
                    continue
                kinds.setdefault(key, set()).add(minor)
                names[(minor, key)] = name
    try:
        source = f"kubernetes-validate {distribution_version('kubernetes-validate')}"
    except PackageNotFoundError:  # pragma: no cover - a schema folder given by hand
        source = str(folder)
    table = ApiTable(source, tuple(minors), {k: frozenset(v) for k, v in kinds.items()},
                     frozenset(group_versions), {})
    changes = []
    for gvk, served in sorted(kinds.items()):
        last = max(served)
        removed = table.first_after(last, gvk)
        if removed is None or gvk[2].endswith("List"):
            continue
        for replacement in dict.fromkeys(table.served_as(last, gvk[0], gvk[2])
                                         + table.served_as(removed, gvk[0], gvk[2])):
            group, _, version = replacement.rpartition("/")
            new = (group, version, gvk[2])
            if new == gvk:
                continue
            at = last if last in kinds[new] else removed
            old_paths = field_paths(defs_of[last], names[(last, gvk)])
            new_paths = field_paths(defs_of[at], names[(at, new)])
            if old_paths != new_paths:
                changes.append({
                    "kind": gvk[2], "from": api_version_of(gvk[0], gvk[1]), "to": replacement,
                    "removed": _tops(old_paths - new_paths),
                    "added": _tops(new_paths - old_paths),
                })
    by_version: dict[str, dict[str, str]] = {}
    for (group, version, kind), served in sorted(kinds.items()):
        if kind.endswith("List"):
            continue
        by_version.setdefault(api_version_of(group, version), {})[kind] = _spans(served, minors)
    return {
        "format": FORMAT,
        "source": source,
        "minors": [minor_text(m) for m in minors],
        "kinds": by_version,
        "group-versions": sorted(api_version_of(g, v) for g, v in group_versions),
        "changes": changes,
    }


def _tops(paths: set[str]) -> list[str]:
    """The paths whose parent is not among them (a removed field's fields go with it)."""
    return sorted(p for p in paths if not any(
        p.startswith(q) and p[len(q)] in ".[" for q in paths if len(q) < len(p)))


def field_paths(defs: Mapping[str, Any], name: str) -> set[str]:
    """Every field path of definition ``name`` (``spec.rules[].host``), ``$ref``s followed
    (each definition once on a path), ``metadata`` and ``status`` left out (the first is
    ObjectMeta everywhere, the second is the server's)."""
    out: set[str] = set()

    def walk(node: Any, prefix: str, stack: tuple[str, ...]) -> None:
        if not isinstance(node, dict) or len(stack) > MAX_DEPTH:
            return
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = ref[len("#/$defs/"):]
            if target in stack or target == OBJECT_META:
                return
            walk(defs.get(target), prefix, (*stack, target))
            return
        for keyword in ("allOf", "anyOf", "oneOf"):
            for branch in node.get(keyword) or ():
                walk(branch, prefix, stack)
        props = node.get("properties")
        if isinstance(props, dict):
            for key, value in props.items():
                if not prefix and key in ("apiVersion", "kind", "metadata", "status"):
                    continue
                path = f"{prefix}.{key}" if prefix else str(key)
                out.add(path)
                walk(value, path, stack)
        items = node.get("items")
        if isinstance(items, dict):
            walk(items, prefix + "[]", stack)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            walk(extra, prefix + ".*", stack)

    walk(defs.get(name), "", (name,))
    return out


def object_paths(value: Any, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, tuple[
        str | int, ...]]]:
    """The field paths an object sets, in :func:`field_paths`'s form, each with the first
    place it is set (``("spec", "rules", 0, "host")``)."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not prefix and key in ("apiVersion", "kind", "metadata", "status"):
                continue
            path = f"{prefix}.{key}" if prefix else str(key)
            yield path, (str(key),)
            for sub, where in object_paths(item, path, depth + 1):
                yield sub, (str(key), *where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            for sub, where in object_paths(item, prefix + "[]", depth + 1):
                yield sub, (i, *where)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m reviewbot.schema.lifecycle [--check]``: write :data:`DATA` from the
    installed schemas (``--check``: exit 1 when it differs)."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    target = Path(__file__).with_name(DATA)
    text = dumps(generate())
    if "--check" in args:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            print(f"{target} is not what the installed schemas give: regenerate it with "
                  "python -m reviewbot.schema.lifecycle", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    return 0


def dumps(data: Mapping[str, Any]) -> str:
    """The data file's text: one kind's entry, one change, one line."""
    lines = ["{", f'  "format": {json.dumps(data["format"])},',
             f'  "source": {json.dumps(data["source"])},',
             f'  "minors": {json.dumps(data["minors"])},', '  "kinds": {']
    kinds = list(data["kinds"].items())
    for i, (api_version, by_kind) in enumerate(kinds):
        comma = "," if i < len(kinds) - 1 else ""
        lines.append(f"    {json.dumps(api_version)}: {json.dumps(by_kind)}{comma}")
    lines.append("  },")
    lines.append(f'  "group-versions": {json.dumps(data["group-versions"])},')
    lines.append('  "changes": [')
    changes = data["changes"]
    for i, change in enumerate(changes):
        comma = "," if i < len(changes) - 1 else ""
        lines.append(f"    {json.dumps(change)}{comma}")
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
