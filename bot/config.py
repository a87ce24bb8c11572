"""`.reviewbot.yaml`: read, validate against `schemas/config.schema.json` and the inventory's
values, and resolve per-rule settings. Every error names the bad key and its line (exit 2).

The rules' typed options are checked beside the registry that knows them
(:func:`reviewbot.engine.options.check_options`), through :meth:`Config.fail`.
"""

from __future__ import annotations

import fnmatch
import json
import os
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from reviewbot.errors import ReviewbotError
from reviewbot.load.loader import Document, load
from reviewbot.load.paths import format_path
from reviewbot.model.objects import Inventory, parse_inventory
from reviewbot.schema.lifecycle import parse_minor, version_problem
from reviewbot.sources.tree import MAX_FILE_BYTES, FileRecord, blob_id

CONFIG_NAME = ".reviewbot.yaml"
RESERVED = frozenset({"enabled", "severity"})
VERSION_KEY = "kubernetes-version"
TARGET_KEY = "target-kubernetes-version"
# the schema rule's own option, kept as a deprecated alias of the clusters' version
SCHEMA_VERSION = ("rules", "schema", VERSION_KEY)


class RuleDefaults(Protocol):
    """What :meth:`Config.settings` needs of a rule (a :class:`~reviewbot.engine.registry.Rule`)."""

    @property
    def id(self) -> str: ...

    def defaults(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class RuleSettings:
    """What a configuration sets for one rule: on or off, its severity (the rule's, or one
    per check: ``severity: {drain-blocked: error}``), its options."""

    enabled: bool
    severity: str | None
    options: Mapping[str, Any]
    checks: Mapping[str, str] = field(default_factory=dict)  # check -> its severity

    def severity_for(self, check: str | None) -> str | None:
        """The severity the configuration sets for a finding of ``check`` (None: the
        rule's own for that check)."""
        return self.checks.get(check or "", self.severity) if self.checks else self.severity


@dataclass(frozen=True)
class Config:
    """A `.reviewbot.yaml` as read (``raw``), where it came from, and its parsed document."""

    raw: Mapping[str, Any] = field(default_factory=dict)
    source: str | None = None
    # the parsed file, for the positions of errors found after parsing (None: not parsed)
    document: Document | None = field(default=None, compare=False, repr=False)

    @property
    def inventory(self) -> Inventory:
        measured = self.raw.get("measured")
        inventory = parse_inventory(self.raw.get("cluster"),
                                    measured if isinstance(measured, dict) else None)
        alias = self.deprecated_version
        if alias and not inventory.kubernetes_version:
            return replace(inventory, kubernetes_version=alias)
        return inventory

    @property
    def deprecated_version(self) -> str:
        """``rules.schema.kubernetes-version``: the version of every cluster that sets none
        (deprecated: the clusters' ``kubernetes-version`` is the one setting)."""
        schema = self.section("rules").get("schema")
        value = schema.get(VERSION_KEY) if isinstance(schema, dict) else None
        return value.strip() if isinstance(value, str) else ""

    @property
    def clusters(self) -> list[Any]:
        """The ``clusters:`` entries as written (each with its own ``kubernetes-version``
        or none: it then takes the ``cluster:`` section's, see ``cluster_inventory``)."""
        value = self.raw.get("clusters")
        return list(value) if isinstance(value, list) else []

    def with_kubernetes_version(self, version: str) -> Config:
        """A copy where every cluster runs ``version`` (``--kubernetes-version``)."""
        raw = dict(self.raw)
        cluster = raw.get("cluster")
        raw["cluster"] = {**(cluster if isinstance(cluster, dict) else {}), VERSION_KEY: version}
        if self.clusters:
            raw["clusters"] = [{**c, VERSION_KEY: version} if isinstance(c, dict) else c
                               for c in self.clusters]
        return Config(raw, self.source)

    @property
    def fail_on(self) -> str | None:
        value = self.raw.get("fail-on")
        return value if isinstance(value, str) else None

    @property
    def max_file_bytes(self) -> int:
        """``loader.max-file-bytes``: the size past which a file is refused (default 4 MiB)."""
        value = self.section("loader").get("max-file-bytes")
        return value if isinstance(value, int) and not isinstance(value, bool) else MAX_FILE_BYTES

    @property
    def exclude(self) -> tuple[str, ...]:
        return tuple(self.raw.get("exclude") or ())

    def excluded(self, path: str) -> bool:
        return any(fnmatch.fnmatch(path, pattern) for pattern in self.exclude)

    def section(self, name: str) -> Mapping[str, Any]:
        value = self.raw.get(name)
        return value if isinstance(value, dict) else {}

    def with_options(self, rule_id: str, options: Mapping[str, Any]) -> Config:
        """A copy with ``options`` set for ``rule_id`` (command-line overrides)."""
        raw = dict(self.raw)
        rules = dict(self.section("rules"))
        rules[rule_id] = {**(rules.get(rule_id) or {}), **options}
        raw["rules"] = rules
        return Config(raw, self.source)

    def fail(self, path: tuple[str | int, ...], message: str) -> ReviewbotError:
        """The error for a bad value at ``path``: ``name:line:column: key: message``."""
        return self.fail_all([(path, message)])

    def fail_all(self, problems: Sequence[tuple[tuple[str | int, ...], str]]) -> ReviewbotError:
        """One error for every bad value (path, message): a line each, in the file's order,
        so that one run names every mistake."""
        name = self.source or CONFIG_NAME
        if self.document is None:
            return ReviewbotError("\n".join(
                f"{name}: {format_path(path) or '(top level)'}: {message}"
                for path, message in problems))
        return _errors(self.document, problems, name)

    def settings(self, rule: RuleDefaults) -> RuleSettings:
        entry = self.section("rules").get(rule.id) or {}
        options = rule.defaults()
        options.update({k: v for k, v in entry.items() if k not in RESERVED})
        severity = entry.get("severity")
        return RuleSettings(
            enabled=entry.get("enabled", True) is not False,
            severity=severity if isinstance(severity, str) else None,
            options=options,
            checks=({str(k): str(v) for k, v in severity.items()}
                    if isinstance(severity, dict) else {}),
        )


@cache
def config_schema() -> Mapping[str, Any]:
    from reviewbot.schema.files import FOLDER

    with open(os.path.join(FOLDER, "config.schema.json"), encoding="utf-8") as f:
        schema: Mapping[str, Any] = json.load(f)
    return schema


@dataclass(frozen=True)
class Overrides:
    """What the command line sets over a configuration: a kubeconform binary, the Kubernetes
    version every cluster runs, the version an upgrade plans for (None: not set)."""

    kubeconform: str | None = None
    kubernetes_version: str | None = None
    target_kubernetes_version: str | None = None

    def apply(self, config: Config) -> Config:
        """``config`` with these set over it; a version that is no version is an error."""
        if self.kubeconform:
            config = config.with_options("schema", {"kubeconform": self.kubeconform})
        for flag, value in (("--kubernetes-version", self.kubernetes_version),
                            ("--target-kubernetes-version", self.target_kubernetes_version)):
            if value is None:
                continue
            problem = version_problem(value)
            if problem:
                raise ReviewbotError(f"{flag}: {problem}")
        if self.kubernetes_version:
            config = config.with_kubernetes_version(self.kubernetes_version.strip())
        if self.target_kubernetes_version:
            config = config.with_options("api-lifecycle", {
                "target-kubernetes-version": self.target_kubernetes_version.strip()})
        return config


_NOT_A_PATH = ("", "auto", "never", "off", "false", "no")


def guard_binaries(config: Config, trees: Sequence[Path]) -> None:
    """A kubeconform binary that the configuration names is never run from inside ``trees``
    (``kubeconform: ./evil.sh`` in the linted tree's own .reviewbot.yaml, or the pull
    request's copy of a repository-relative binary): only one outside them, or one named on
    the command line (``--kubeconform``), is run."""
    schema = config.section("rules").get("schema")
    option = schema.get("kubeconform") if isinstance(schema, dict) else None
    if not isinstance(option, str) or option.strip() in _NOT_A_PATH:
        return
    named = option.strip()
    import shutil  # here: a configuration that names no binary never pays for it

    for candidate in (shutil.which(named), os.path.abspath(named)):
        if candidate is None:
            continue
        try:
            real = Path(candidate).resolve()
        except (OSError, RuntimeError):
            continue
        for tree in trees:
            top = tree.resolve()
            if real == top or top in real.parents:
                raise ReviewbotError(
                    f"the configuration names kubeconform {named!r}, which is inside {top}: a "
                    "binary the reviewed tree holds is never run (install it outside the "
                    "tree, or name it with --kubeconform)")


def config_candidates(folder: str) -> list[str]:
    """Where a configuration is looked for, nearest first, as repository-relative paths:
    ``folder``'s `.reviewbot.yaml`, then each parent's, up to the repository root's (what
    :func:`find_config` walks on the disk, for a git ref)."""
    out: list[str] = []
    folder = folder.strip("/")
    while True:
        out.append(f"{folder}/{CONFIG_NAME}" if folder else CONFIG_NAME)
        if not folder:
            return out
        folder = posixpath.dirname(folder)


def find_config(start: Path, root: Path) -> Path | None:
    """The nearest `.reviewbot.yaml` from ``start`` up to ``root`` (inclusive)."""
    here = start.resolve()
    if here.is_file():
        here = here.parent
    root = root.resolve()
    while True:
        candidate = here / CONFIG_NAME
        if candidate.is_file() and not candidate.is_symlink():
            return candidate
        if here == root or here.parent == here or root not in here.parents:
            return None
        here = here.parent


def load_config_file(path: Path, display: str | None = None) -> Config:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ReviewbotError(f"cannot read config {path}: {exc.strerror}") from exc
    return parse_config(data, display or str(path))


def parse_config(data: bytes, name: str) -> Config:
    loaded = load(FileRecord(name, blob_id(data), data))
    if loaded.problems:
        p = loaded.problems[0]
        raise ReviewbotError(f"{name}:{p.line}:{p.column}: {p.message}")
    if not loaded.documents:
        return Config({}, name)
    if len(loaded.documents) > 1:
        raise ReviewbotError(f"{name}: the config holds more than one YAML document")
    doc = loaded.documents[0]
    raw = doc.value
    if not isinstance(raw, dict):
        raise ReviewbotError(f"{name}:{doc.line}: the config must be a mapping")
    from reviewbot.schema.validate import Validator  # jsonschema-rs: read when a file is

    problems = [(p.path, p.message + (f" (unquoted, YAML reads it as a {p.unquoted}: quote it)"
                                      if p.unquoted else ""))
                for p in Validator(config_schema()).problems(raw)]
    problems += _inventory_problems(raw)
    if problems:
        raise _errors(doc, problems, name)
    return Config(raw, name, doc)


Problems = list[tuple[tuple[str | int, ...], str]]  # (path, message) of each bad value


def _inventory_problems(raw: Mapping[str, Any]) -> Problems:
    """Inventory values the rules compute with: a value they could not read would silently
    drop a finding (``memory: 64GB``) or invent one (``nvidia.com/gpu: four`` read as 0)."""
    # here: the inventory's module is imported by a configuration that has one (1.2% of a
    # one-file lint)
    from reviewbot.model.inventory import allocatable_problem, label_problem, measured_problem

    out: Problems = []
    cluster = raw.get("cluster")
    nodes = cluster.get("nodes") if isinstance(cluster, dict) else None
    for i, node in enumerate(nodes if isinstance(nodes, list) else ()):
        if not isinstance(node, dict):
            continue
        base: tuple[str | int, ...] = ("cluster", "nodes", i)
        for key, value in (node.get("allocatable") or {}).items():
            problem = allocatable_problem(str(key), value)
            if problem:
                out.append(((*base, "allocatable", key), problem))
        for key, value in (node.get("labels") or {}).items():
            problem = label_problem(str(key), value)
            if problem:
                out.append(((*base, "labels", key), problem))
    out += _version_problems(raw)
    measured = raw.get("measured")
    for workload, facts in (measured.items() if isinstance(measured, dict) else ()):
        for key, value in (facts.items() if isinstance(facts, dict) else ()):
            problem = measured_problem(str(key), value)
            if problem:
                out.append((("measured", workload, key), problem))
    return out


def _version_problems(raw: Mapping[str, Any]) -> Problems:
    """Every ``kubernetes-version`` is a version (``"1.31"``; a YAML number is refused: 1.30
    reads as 1.3), and the deprecated ``rules.schema.kubernetes-version`` agrees with the
    clusters' (they are one setting)."""
    found: list[tuple[tuple[str | int, ...], Any]] = []
    cluster = raw.get("cluster")
    if isinstance(cluster, dict) and VERSION_KEY in cluster:
        found.append((("cluster", VERSION_KEY), cluster[VERSION_KEY]))
    clusters = raw.get("clusters")
    for i, entry in enumerate(clusters if isinstance(clusters, list) else ()):
        if isinstance(entry, dict) and VERSION_KEY in entry:
            found.append((("clusters", i, VERSION_KEY), entry[VERSION_KEY]))
    rules = raw.get("rules")
    schema = rules.get("schema") if isinstance(rules, dict) else None
    alias = schema.get(VERSION_KEY) if isinstance(schema, dict) else None
    if alias is not None:
        found.append((SCHEMA_VERSION, alias))
    lifecycle = rules.get("api-lifecycle") if isinstance(rules, dict) else None
    target = lifecycle.get(TARGET_KEY) if isinstance(lifecycle, dict) else None
    if target is not None and target != "":
        found.append((("rules", "api-lifecycle", TARGET_KEY), target))
    out: Problems = []
    for path, value in found:
        problem = version_problem(value)
        if problem:
            out.append((path, problem))
    if alias is None:
        return out
    for path, value in found:
        if path != SCHEMA_VERSION and parse_minor(value) != parse_minor(alias):
            out.append((SCHEMA_VERSION,
                        f"says {alias} but {format_path(path)} says {value}: the clusters' "
                        f"kubernetes-version is the one setting now (this option is its "
                        "deprecated alias); drop it"))
            break
    return out


def _errors(doc: Document, problems: Sequence[tuple[tuple[str | int, ...], str]],
            name: str) -> ReviewbotError:
    """Every problem as ``name:line:column: key: message``, one line each, in the file's
    order (the CLI writes each line as its own message)."""
    lines: set[tuple[int, int, str]] = set()
    for path, message in problems:
        unknown = message.startswith(("unknown field", "unknown rule", "unknown option"))
        line, column = doc.key_position(path) if unknown else doc.position(path)
        where = format_path(path) or "(top level)"
        lines.add((line, column, f"{name}:{line}:{column}: {where}: {message}"))
    return ReviewbotError("\n".join(text for *_, text in sorted(lines)))
