"""Words: the one place every output (text, Markdown, netpol) spells a number of things, so
that none writes "file(s)" or "NetworkPolicy(ies)"; and the one guess of which name a
misspelt one meant (a rule an ignore names, a field the schema does not have, a label
value a selector misspells)."""

from __future__ import annotations

from collections.abc import Iterable


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word`` in the number it takes ("1 file", "2 files", "2 NetworkPolicies"
    with ``many``)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def closest(word: str, names: Iterable[str], cutoff: float = 0.8) -> str:
    """The name of ``names`` that ``word`` most likely misspells: one that differs only in
    case, else the closest by difflib's ratio if at least ``cutoff`` (0.8: a letter or two
    in a word of ten, ``replica`` for ``replicas``); "" when none is that close."""
    names = sorted(names)
    lowered = {name.lower(): name for name in names}
    if word.lower() in lowered:
        return lowered[word.lower()]
    import difflib  # (a misspelt name only: not imported by a clean run)

    close = difflib.get_close_matches(word, names, n=1, cutoff=cutoff)
    return close[0] if close else ""


def misspelt(word: str, names: Iterable[str]) -> str:
    """The name of ``names`` that ``word`` most likely misspells: :func:`closest`'s, else
    one with two neighbouring letters swapped (:func:`transposed`); "" when none."""
    names = sorted(names)
    return closest(word, names) or next((n for n in names if transposed(word, n)), "")


def one_word_apart(a: str, b: str) -> bool:
    """Whether one of ``a`` and ``b`` is the other with one dash-separated word more, first
    or last (``vllm-server`` and ``vllm``; ``api`` and ``api-server``)."""
    short, long = sorted((a, b), key=len)
    return (long.startswith(short + "-") or long.endswith("-" + short)) and (
        long.count("-") == short.count("-") + 1)


def transposed(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with two neighbouring letters swapped (``wbe`` for ``web``,
    ``ngnix`` for ``nginx``): the typo a ratio of likeness undervalues in a short word
    (difflib rates ``wbe``/``web`` 0.67)."""
    if len(a) != len(b) or a == b:
        return False
    at = next(i for i in range(len(a)) if a[i] != b[i])
    return at + 1 < len(a) and a[at] == b[at + 1] and a[at + 1] == b[at] and (
        a[at + 2:] == b[at + 2:])
