"""Words: the one place every output (text, Markdown, netpol) spells a number of things, so
that none writes "file(s)" or "NetworkPolicy(ies)"; and the one guess of which name a
misspelt one meant (a rule an ignore names, a field the schema does not have, a label
value a selector misspells)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence


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
    one with two neighbouring letters swapped (:func:`transposed`); "" when none. A name
    that differs from ``word`` by a whole word, the words both begin and end with set aside
    (:func:`same_words_apart`: ``prod-db`` for ``prod-web``), is another thing's name, not
    a misspelling."""
    names = sorted(names)
    near = closest(word, names)
    if near and not same_words_apart(word, near):
        near = closest(word, [n for n in names if same_words_apart(word, n)])
    return near or next((n for n in names if transposed(word, n)), "")


def meant_key(name: str, keys: Sequence[str]) -> str:
    """The key of ``keys`` (variables, a ConfigMap's keys: words joined by ``_``) that
    ``name`` most likely means: one whose words are its own and one more (``API_BASE_URL``
    for ``API_URL``), one of a close spelling (:func:`misspelt`), or one whose words are its
    own but one, in that order; "" when none, or several."""
    def words(key: str) -> list[str]:  # (by `_`, `-` or `.`: `smtp-password` for
        # `password`, new-user trial seventy's Secret key)
        return re.split(r"[_.-]", key)

    mine = words(name)
    more = [k for k in keys if len(words(k)) == len(mine) + 1 and set(mine) <= set(words(k))]
    fewer = [k for k in keys if len(words(k)) == len(mine) - 1 and set(words(k)) <= set(mine)]
    # (a name that lacks a whole word of this one names another thing, not a misspelling:
    # SECRET_DOMAIN beside SECRET_DOMAIN_2, which its own line reads already)
    return (more[0] if len(more) == 1 else "") or misspelt(
        name, [k for k in keys if k not in fewer]) or (fewer[0] if len(fewer) == 1 else "")


def same_words_apart(a: str, b: str) -> bool:
    """Whether what ``a`` and ``b`` write apart, once the dash-separated words they both
    begin and end with are set aside, is still alike (one holds the other, two neighbouring
    letters swapped, or difflib's ratio at least 0.75): ``prod-wbe`` and ``prod-web`` are;
    ``prod-web`` and ``prod-db`` (a namePrefix before two workloads' names, difflib's 0.8)
    and ``redis-master`` and ``redis-replica`` are not."""
    wa, wb = a.lower().split("-"), b.lower().split("-")
    start = 0
    while start < min(len(wa), len(wb)) and wa[start] == wb[start]:
        start += 1
    end = 0
    while end < min(len(wa), len(wb)) - start and wa[-1 - end] == wb[-1 - end]:
        end += 1
    if not start and not end:
        return True  # no word in common: the ratio over the whole names judged
    ra, rb = "-".join(wa[start:len(wa) - end]), "-".join(wb[start:len(wb) - end])
    if not ra or not rb or ra in rb or rb in ra or transposed(ra, rb):
        return True
    import difflib

    return difflib.SequenceMatcher(None, ra, rb).ratio() >= 0.75


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
