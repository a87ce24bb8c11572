"""Counts in words: the one place every output (text, Markdown, netpol) spells a number of
things, so that none writes "file(s)" or "NetworkPolicy(ies)"."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word`` in the number it takes ("1 file", "2 files", "2 NetworkPolicies"
    with ``many``)."""
    return f"{n} {word if n == 1 else many or word + 's'}"
