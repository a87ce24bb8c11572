"""The rule registry: one module per rule in ``reviewbot.rules``, metadata first.

A rule module defines ``ID``, ``SEVERITY``, ``SUMMARY``, ``RATIONALE``, ``FIX`` (ending in a
period), ``OPTIONS`` (typed, with defaults), ``SEVERITIES`` (default severity per violation
kind: "kinds" are always violation kinds), optionally ``COST`` (its CPU cost relative to
the others, 1 by default: how the engine shares the rules with a worker) and ``SCOPE``
(:data:`SCOPES`: ``"object"`` when what it decides about an object depends on that object
alone, its pods and the configuration: a review then runs it on the base only where the base's
objects differ from the head's, :mod:`reviewbot.engine.sharing`) and ``READS`` (:data:`READS`:
``"image"`` when every finding of it is about a container's image reference alone: what the
engine says it could not see of the object is narrowed to that, :mod:`reviewbot.model.doubts`)
and ``ADMISSION`` (:data:`ADMISSIONS`: ``"refusal"`` when its errors are the API server's
refusal of the object as written, ``"admitted"`` when its findings hold only once the object
is admitted: what it runs; :func:`reviewbot.engine.run.refusals`), then its checks:

- ``check_set(model, opts)``: the whole repository (lint, and both sides of a review);
- ``check_change(diff, base, head, opts)``: a change (review and ``reviewbot diff``): the
  :class:`~reviewbot.diff.objects.TreeDiff` from the ``base`` model to the ``head`` model.

A check returns what it decides, one value at a time (:data:`~reviewbot.engine.findings.Decision`):
a :class:`~reviewbot.engine.findings.Violation` (a fact), a
:class:`~reviewbot.engine.findings.QuietPlace` (where it stays quiet on purpose, and why) or a
:class:`~reviewbot.engine.findings.Note` (a count for the summary). It reads the model and
writes nothing: severity, suppression and new-vs-existing are the engine's.

Its docstring is its documentation, in fixed sections, each opened by its name alone on a
line followed by a colon (:data:`DOC_SECTIONS`): a title line, then ``What it checks:``,
optionally ``Why:`` (the rationale's story), ``When it stays quiet:``, ``Failing example:``
and ``Passing example:``. The examples run in the suite (``tests/test_rule_docs.py``): each
fenced ``yaml`` block is one file, named by its first line (``# apps/kustomization.yaml``;
``# .reviewbot.yaml`` is the configuration; ``# base: PATH``/``# head: PATH`` for a rule that
judges changes only), and the failing one must give a finding of its rule, the passing one
none. The ``Kinds`` and ``Options`` sections are generated from
``SEVERITIES`` and ``OPTIONS`` (:func:`doc_sections`), so they cannot drift from the code;
so is ``Reference``, from the module's ``reference()`` when it has one (a table the rule
derives from its data).
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

from reviewbot.engine.findings import SEVERITIES, Decision
from reviewbot.errors import ReviewbotError

ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
# "model": a rule reads the whole repository (the default); "object": every violation and
# quiet place names an object and depends only on it, its pods and the configuration
SCOPES = ("model", "object")
# what a finding of a rule depends on within the container it points into: "fields" (the
# default: the container and its pod's own fields), "image" (the image reference alone)
READS = ("fields", "image")
# how a rule's findings relate to the API server admitting their object: "" (neither, the
# default), "refusal" (an error of it is a refusal of the object as written: a schema error),
# "admitted" (a finding of it holds only once the object is admitted: what it runs)
ADMISSIONS = ("", "refusal", "admitted")
_TYPES: dict[str, tuple[type, ...]] = {
    "bool": (bool,), "int": (int,), "number": (int, float), "string": (str,),
    "list": (list,), "map": (dict,),
}


@dataclass(frozen=True)
class Option:
    """A typed rule option. Numbers may carry a range (``minimum``/``maximum``, inclusive
    unless ``exclusive_minimum``/``exclusive_maximum``): a value outside it would disarm the
    rule (a headroom ``factor`` below 1, a node share of 30 instead of 0.3), so the config
    refuses it."""

    name: str
    type: str  # bool | int | number | string | list | map
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    schema: Mapping[str, Any] | None = None  # JSON Schema of a structured value (list, map)

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool) and self.type in ("int", "number"):
            return False
        return isinstance(value, _TYPES[self.type])

    def in_range(self, value: Any) -> bool:
        """True unless ``value`` (already of the option's type) is outside the range."""
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return True
        if value != value:  # NaN compares false with everything
            return self.minimum is None and self.maximum is None
        if self.minimum is not None and (
            value < self.minimum or (self.exclusive_minimum and value == self.minimum)
        ):
            return False
        return self.maximum is None or not (
            value > self.maximum or (self.exclusive_maximum and value == self.maximum)
        )

    @property
    def range_text(self) -> str:
        """The range as the docs and errors print it: ``>= 1``, ``> 0 and <= 1`` ('' if none)."""
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.exclusive_minimum else '>='} {self.minimum:g}")
        if self.maximum is not None:
            parts.append(f"{'<' if self.exclusive_maximum else '<='} {self.maximum:g}")
        return " and ".join(parts)


@dataclass(frozen=True)
class Rule:
    """A rule module's metadata and checks, as the registry reads them."""

    id: str
    severity: str
    summary: str
    rationale: str
    fix: str
    options: tuple[Option, ...]
    severities: Mapping[str, str]
    doc: str
    module: ModuleType = field(compare=False, repr=False)
    cost: int = 1  # relative CPU cost (the module's COST)
    scope: str = "model"  # what its findings depend on (the module's SCOPE, see SCOPES)
    reads: str = "fields"  # what in a container they depend on (the module's READS, see READS)
    admission: str = ""  # the module's ADMISSION (see ADMISSIONS)

    @property
    def check_set(self) -> Callable[..., Iterable[Decision]] | None:
        """``check_set(model, opts)``: the module's, looked up when called for."""
        return getattr(self.module, "check_set", None)

    @property
    def check_change(self) -> Callable[..., Iterable[Decision]] | None:
        """``check_change(diff, base, head, opts)``: the module's, if it judges changes."""
        return getattr(self.module, "check_change", None)

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)

    def severity_of(self, violation_kind: str | None) -> str:
        if violation_kind is not None and violation_kind in self.severities:
            return self.severities[violation_kind]
        return self.severity


def rule_from_module(module: ModuleType) -> Rule:
    name = module.__name__
    try:
        rule = Rule(
            id=module.ID, severity=module.SEVERITY, summary=module.SUMMARY,
            rationale=module.RATIONALE, fix=module.FIX,
            options=tuple(getattr(module, "OPTIONS", ())),
            severities=dict(getattr(module, "SEVERITIES", {})),
            doc=(module.__doc__ or "").strip(), module=module,
            cost=int(getattr(module, "COST", 1)), scope=getattr(module, "SCOPE", "model"),
            reads=getattr(module, "READS", "fields"), admission=getattr(module, "ADMISSION", ""),
        )
    except AttributeError as exc:
        raise ReviewbotError(f"rule module {name} lacks metadata: {exc}", 3) from exc
    if not ID_PATTERN.match(rule.id) or rule.severity not in SEVERITIES:
        raise ReviewbotError(f"rule module {name} has a bad id or severity", 3)
    if rule.scope not in SCOPES:
        raise ReviewbotError(f"rule module {name} has a bad SCOPE {rule.scope!r}", 3)
    if rule.reads not in READS:
        raise ReviewbotError(f"rule module {name} has a bad READS {rule.reads!r}", 3)
    if rule.admission not in ADMISSIONS:
        raise ReviewbotError(f"rule module {name} has a bad ADMISSION {rule.admission!r}", 3)
    return rule


DOC_SECTIONS = ("What it checks", "Why", "Kinds", "When it stays quiet", "Options",
                "Reference", "Failing example", "Passing example")
REQUIRED_SECTIONS = ("What it checks", "When it stays quiet", "Failing example",
                     "Passing example")
_HEADING = re.compile(r"^(" + "|".join(map(re.escape, DOC_SECTIONS)) + r"):\s*$", re.M)


def doc_sections(rule: Rule) -> dict[str, str]:
    """The rule's documentation by section: the title (``""``), then :data:`DOC_SECTIONS` in
    their order. ``Kinds`` lists ``SEVERITIES`` (kind and default severity; a docstring's own
    Kinds text follows it) and ``Options`` is made from ``OPTIONS``, so neither drifts."""
    parts = _HEADING.split(rule.doc)
    written: dict[str, str] = {"": parts[0].strip()}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        written[name] = body.strip()
    out: dict[str, str] = {"": written[""]}
    for name in DOC_SECTIONS:
        body = written.get(name, "")
        if name == "Kinds" and rule.severities:
            body = _kinds(rule.severities, body)
        if name == "Reference" and callable(getattr(rule.module, "reference", None)):
            body = rule.module.reference()  # data the rule derives (api-lifecycle's table)
        if name == "Options" and rule.options:
            body = "\n".join(
                f"- `{o.name}` ({o.type}{', ' + o.range_text if o.range_text else ''}, "
                f"default `{o.default!r}`): {o.help}" for o in rule.options)
        if body:
            out[name] = body
    return out


_KIND_LINE = re.compile(r"^- `([a-z0-9-]+)`(?: \([^)]*\))?:\s*(.*)$")


def _kinds(severities: Mapping[str, str], written: str) -> str:
    """One line a kind, ``- `kind` (error by default): what the docstring says of it``, then
    whatever else the docstring's Kinds section says."""
    described: dict[str, str] = {}
    rest: list[str] = []
    current: str | None = None
    for line in written.splitlines():
        m = _KIND_LINE.match(line)
        if m and m.group(1) in severities:
            current = m.group(1)
            described[current] = m.group(2).strip()
        elif current is not None and line.startswith("  ") and line.strip():
            described[current] += " " + line.strip()
        else:
            current = None
            rest.append(line)
    lines = [f"- `{kind}` ({severity} by default)"
             + (f": {described[kind]}" if described.get(kind) else "")
             for kind, severity in severities.items()]
    tail = "\n".join(rest).strip()
    return "\n".join(lines) + (f"\n\n{tail}" if tail else "")


def rule_modules(folders: Iterable[str]) -> list[str]:
    """The names of the rule modules in the package's ``folders``, sorted: each ``NAME.py``
    and each ``NAME/`` package, less the private ``_NAME``s (what ``pkgutil.iter_modules``
    lists, read without importing pkgutil at every start)."""
    names: set[str] = set()
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("_"):
                continue
            if name.endswith(".py") and name[:-3].isidentifier():
                names.add(name[:-3])
            elif name.isidentifier() and entry.is_dir() \
                    and os.path.exists(os.path.join(entry.path, "__init__.py")):
                names.add(name)
    return sorted(names)


@cache
def all_rules() -> tuple[Rule, ...]:
    package = importlib.import_module("reviewbot.rules")
    rules = []
    for name in rule_modules(package.__path__):
        module = importlib.import_module(f"reviewbot.rules.{name}")
        if hasattr(module, "ID"):
            rules.append(rule_from_module(module))
    ids = [r.id for r in rules]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ReviewbotError(f"duplicate rule ids: {', '.join(sorted(duplicates))}", 3)
    return tuple(sorted(rules, key=lambda r: r.id))


def get_rule(rule_id: str) -> Rule:
    for rule in all_rules():
        if rule.id == rule_id:
            return rule
    known = ", ".join(r.id for r in all_rules())
    raise ReviewbotError(f"unknown rule {rule_id!r}; known rules: {known}")


