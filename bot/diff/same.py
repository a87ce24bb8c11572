"""The same data, value for value and type for type: one comparison for the review's two
questions that ask it, "did the change leave this body alone?" (:mod:`reviewbot.diff.objects`,
before comparing field by field) and "does a rule read the same of this base part as of the
head's?" (:mod:`reviewbot.engine.sharing`). Only the standard library: the engine imports it
on every lint."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from fractions import Fraction
from typing import Any

_PLAIN = frozenset({str, int, float, bool, type(None), bytes, Fraction})


def same_data(a: Any, b: Any) -> bool:
    """The same data, value for value and type for type (``1`` is not ``1.0`` nor ``True``;
    mappings with their keys, of the same types, in the same order): what is read of one is
    read of the other. Sufficient for "no change", never necessary: an object compared by
    identity (a ``KObject``) is only itself, and a type not known here is never claimed the
    same (the caller then takes the long way: compares field by field, or checks again)."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:  # (most nodes: a parsed mapping)
        return _same_items(a, b)
    if kind in _PLAIN:
        return bool(a == b)
    if kind is list or kind is tuple:
        return len(a) == len(b) and all(same_data(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping):
        return _same_items(a, b)
    params = getattr(kind, "__dataclass_params__", None)  # a dataclass: its fields
    if params is not None and params.eq:
        return all(same_data(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return False


def _same_items(a: Mapping[Any, Any], b: Mapping[Any, Any]) -> bool:
    """Two mappings of the same data, their keys in the same order."""
    return len(a) == len(b) and all(
        same_data(ka, kb) and same_data(va, vb)
        for (ka, va), (kb, vb) in zip(a.items(), b.items(), strict=True))
