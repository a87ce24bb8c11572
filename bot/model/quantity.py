"""Kubernetes resource quantities, parsed exactly (``11950m``, ``63495Mi``, ``1.5``, ``2e3``)."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache
from typing import Any

_SUFFIX = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
    "Ki": Fraction(2**10), "Mi": Fraction(2**20), "Gi": Fraction(2**30), "Ti": Fraction(2**40),
    "Pi": Fraction(2**50), "Ei": Fraction(2**60),
}
_QUANTITY = re.compile(
    r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$"
)


def parse_quantity(value: Any) -> Fraction | None:
    """The exact value of a quantity, or None when it is not one."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):  # beyond MAX_VALUE, as for floats: no resource is that large
        return Fraction(value) if abs(value) < MAX_VALUE else None
    if isinstance(value, float):  # .inf, .nan and 1e400 (a float too large) are no quantities
        return Fraction(str(value)) if math.isfinite(value) and abs(value) < MAX_VALUE else None
    if not isinstance(value, str):
        return None
    return _parse_text(value)


MAX_TEXT = 64  # characters: Kubernetes quantities are short; longer text is no quantity
MAX_EXPONENT = 30  # |e|: beyond it, no real resource (Kubernetes caps quantities near 2**63)
MAX_VALUE = 1e30


@lru_cache(maxsize=8192)
def _parse_text(value: str) -> Fraction | None:
    """Text quantities repeat (``500m``, ``1Gi``): parsed once each (Fractions are immutable)."""
    if len(value) > MAX_TEXT:
        return None
    match = _QUANTITY.match(value.strip())
    if not match:
        return None
    number, exponent, suffix = match.groups()
    base = Fraction(number)
    if exponent:
        power = int(exponent[1:])
        if abs(power) > MAX_EXPONENT:  # "1e99999999": 10**99999999 would never finish
            return None
        return base * Fraction(10) ** power
    return base * _SUFFIX[suffix or ""]


_BYTE_UNITS = re.compile(r"^([0-9.]+)\s*([KMGTPE])i?B$", re.IGNORECASE)


def quantity_error(value: Any) -> str | None:
    """Why ``value`` is not a quantity the Kubernetes API server accepts (None when it is).

    The grammar is :data:`_QUANTITY`'s, which :func:`parse_quantity` reads; the API server
    also refuses surrounding spaces, which the manifest rules forgive. The text names the
    value and what was meant when the mistake is a common one (``64GB``: ``64G`` or ``64Gi``).
    """
    if isinstance(value, bool) or value is None or not isinstance(value, (int, float, str)):
        return f"{value!r} is not a quantity (a number with an optional suffix)"
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return f"{value!r} is not a quantity"
    if isinstance(value, str):
        if value != value.strip():
            return f"{value!r} is not a quantity: it has surrounding spaces"
        if _parse_text(value) is None:
            units = _BYTE_UNITS.match(value)
            if units:
                number, prefix = units.group(1), units.group(2).upper()
                prefix = "k" if prefix == "K" else prefix
                return (f"{value!r} is not a quantity: write {number}{prefix} (powers of 1000) "
                        f"or {number}{prefix.upper()}i (powers of 1024)")
            return (f"{value!r} is not a quantity (a number with an optional suffix such as "
                    "500m, 4, 15Gi, 64G or 1e3)")
    return None


def format_cpu(value: Fraction) -> str:
    millis = value * 1000
    if millis.denominator == 1 and millis % 1000:
        return f"{int(millis)}m"
    return f"{float(value):g}"


def format_bytes(value: Fraction) -> str:
    # a whole number of a binary unit, else of a decimal one (2 x 64G is 128G, not
    # 125000000Ki), else of Ki
    for suffix, size in (("Gi", 2**30), ("Mi", 2**20), ("G", 10**9), ("M", 10**6),
                         ("Ki", 2**10)):
        if value >= size and (value / size).denominator == 1:
            return f"{int(value / size)}{suffix}"
    if value >= 2**30:
        return f"{float(value / 2**30):.2f}Gi"
    if value >= 2**20:
        return f"{float(value / 2**20):.1f}Mi"
    return f"{float(value):g}"


def format_quantity(resource: str, value: Fraction) -> str:
    if resource == "cpu":
        return format_cpu(value)
    if _in_bytes(resource):
        return format_bytes(value)
    return f"{float(value):g}"


def _in_bytes(resource: str) -> bool:
    return resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")


def quote(resource: str, value: Fraction, *written: Any, compared: bool = False) -> str:
    """``value`` for a message, as the user wrote it: the first of ``written`` (the texts
    that may hold it: the field, each container's) that is this value (``64G``), else the
    normalized form (:func:`format_quantity`). ``compared``: a message that compares bytes
    written in decimal units with other values adds them in binary units (``64G
    (59.60Gi)``)."""
    normal = format_quantity(resource, value)
    for text in written:
        if isinstance(text, (str, int, float)) and not isinstance(text, bool) and (
                parse_quantity(text) == value):
            said = str(text).strip()
            if compared and _in_bytes(resource) and _BYTES.fullmatch(said):
                binary = _binary(value)  # 64G beside a limit in Gi: (59.60Gi)
                return said if binary == said else f"{said} ({binary})"
            return said
    return normal


_BYTES = re.compile(r"[0-9.]+[kMGTPE]")  # a decimal byte unit, compared with binary ones


def _binary(value: Fraction) -> str:
    """Bytes in Gi or Mi (whole when they are, else rounded)."""
    for suffix, size in (("Gi", 2**30), ("Mi", 2**20)):
        if value >= size and (value / size).denominator == 1:
            return f"{int(value / size)}{suffix}"
    if value >= 2**30:
        return f"{float(value / 2**30):.2f}Gi"
    return f"{float(value / 2**20):.1f}Mi"
