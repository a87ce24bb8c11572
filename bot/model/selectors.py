"""Label selectors as Kubernetes evaluates them: ``matchLabels`` and ``matchExpressions``.

One implementation for NetworkPolicy, AdminNetworkPolicy and Service selectors, and the
post-selectors of Argo CD ApplicationSet generators.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from reviewbot.model.objects import NAME_LABEL, label_text

OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})


@dataclass(frozen=True, slots=True)
class Requirement:
    """One requirement of a label selector: key, operator, values."""

    key: str
    operator: str  # In | NotIn | Exists | DoesNotExist
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.operator == "In":
            return self.key in labels and labels[self.key] in self.values
        if self.operator == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if self.operator == "Exists":
            return self.key in labels
        return self.key not in labels

    def describe(self) -> str:
        if self.operator == "In":
            if len(self.values) == 1:
                return f"{self.key}={next(iter(self.values))}"
            return f"{self.key} in ({','.join(sorted(self.values))})"
        if self.operator == "NotIn":
            return f"{self.key} notin ({','.join(sorted(self.values))})"
        if self.operator == "Exists":
            return self.key
        return f"!{self.key}"


@dataclass(frozen=True, slots=True)
class Selector:
    """A label selector: ``matchLabels`` and ``matchExpressions``, all requirements ANDed.

    ``pairs`` holds the ``key=value`` requirements (``matchLabels``, and ``In`` with one
    value), which the label index answers; ``exprs`` the others. An invalid selector (unknown
    operator, In/NotIn without values, values for Exists) is one the API server would reject:
    it selects nothing."""

    pairs: tuple[tuple[str, str], ...] = ()
    exprs: tuple[Requirement, ...] = ()
    valid: bool = True

    @staticmethod
    def parse(raw: Any) -> Selector:
        if raw is None:
            return Selector()
        if not isinstance(raw, dict):
            return Selector(valid=False)
        if not raw:
            return EVERYTHING
        labels = raw.get("matchLabels")
        if len(raw) == 1 and isinstance(labels, dict) and all(
            isinstance(v, str) for v in labels.values()
        ):  # the common shape: the same selectors recur across policies
            return _labels_selector(tuple(labels.items()))
        return Selector._parse(raw)

    @staticmethod
    def _parse(raw: dict[str, Any]) -> Selector:
        pairs: list[tuple[str, str]] = []
        exprs: list[Requirement] = []
        valid = True
        labels = raw.get("matchLabels")
        if isinstance(labels, dict):
            pairs += [(str(k), label_text(v)) for k, v in labels.items()]
        elif labels is not None:
            valid = False
        raw_exprs = raw.get("matchExpressions")
        if isinstance(raw_exprs, list):
            for e in raw_exprs:
                req = _requirement(e)
                if req is None:
                    valid = False
                elif req.operator == "In" and len(req.values) == 1:
                    pairs.append((req.key, next(iter(req.values))))
                else:
                    exprs.append(req)
        elif raw_exprs is not None:
            valid = False
        return Selector(tuple(pairs), tuple(exprs), valid)

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        return tuple(Requirement(k, "In", frozenset({v})) for k, v in self.pairs) + self.exprs

    @property
    def keys(self) -> frozenset[str]:
        return frozenset([k for k, _ in self.pairs] + [r.key for r in self.exprs])

    @property
    def empty(self) -> bool:
        return self.valid and not self.pairs and not self.exprs

    def matches(self, labels: Mapping[str, str]) -> bool:
        if not self.valid:
            return False
        for key, value in self.pairs:
            if labels.get(key) != value:
                return False
        return all(r.matches(labels) for r in self.exprs)

    def matches_partial(
        self, labels: Mapping[str, str], known: frozenset[str] | None
    ) -> bool | None:
        """Like ``matches``, but requirements on keys outside ``known`` are unknown (None),
        unless another requirement already fails."""
        if not self.valid:
            return False
        unknown = False
        for r in self.requirements:
            if known is not None and r.key not in known:
                unknown = True
            elif not r.matches(labels):
                return False
        return None if unknown else True

    def describe(self) -> str:
        if not self.valid:
            return "(invalid selector)"
        return ", ".join(r.describe() for r in self.requirements) or "(all)"

    def equality(self) -> tuple[tuple[str, str], ...]:
        """The ``key=value`` requirements, for index lookups."""
        return self.pairs

    def names(self) -> frozenset[str] | None:
        """The namespace names this selector pins through kubernetes.io/metadata.name."""
        for key, value in self.pairs:
            if key == NAME_LABEL:
                return frozenset({value})
        for r in self.exprs:
            if r.key == NAME_LABEL and r.operator == "In":
                return r.values
        return None


EVERYTHING = Selector()  # the empty selector


@lru_cache(maxsize=65536)
def _labels_selector(items: tuple[tuple[Any, str], ...]) -> Selector:
    return Selector(tuple((str(k), v) for k, v in items))


def _requirement(raw: Any) -> Requirement | None:
    if not isinstance(raw, dict):
        return None
    key, op, values = raw.get("key"), raw.get("operator"), raw.get("values")
    if not isinstance(key, str) or not isinstance(op, str) or op not in OPERATORS:
        return None
    vals = [label_text(v) for v in values] if isinstance(values, list) else []
    if values is not None and not isinstance(values, list):
        return None
    if op in ("In", "NotIn") and not vals:
        return None
    if op in ("Exists", "DoesNotExist") and vals:
        return None
    return Requirement(key, str(op), frozenset(vals))
