"""Field paths in a document: the steps to a node (``("spec", "containers", 0, "image")``),
written as text (:func:`format_path`), followed (:func:`dig`), and made to survive reordering
(:func:`stable_path`: the items of a list named by what names them, containers by name, ports
by number and protocol, ``args`` by flag).

Below every layer that speaks of places: the config names its bad keys with them, the model
reads its objects with them, finding identity (:mod:`reviewbot.engine.identity`) and the diff
(:mod:`reviewbot.diff.objects`) pair list items by these names, one implementation for all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

Segment = str | int
Path = tuple[Segment, ...]

FLAG_LISTS = frozenset({"args", "command"})
# Identifier candidates per list name (tried in order), then the generic ones.
LIST_KEYS: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "volumeMounts": (("mountPath",),),
    "volumeDevices": (("devicePath",),),
    "tolerations": (("key",), ("key", "effect")),
    "hostAliases": (("ip",),),
}
GENERIC_KEYS: tuple[tuple[str, ...], ...] = (("name",), ("key",), ("id",))
_NUMBER = re.compile(r"^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def format_path(path: Sequence[Segment]) -> str:
    """``spec.template.spec.containers[0].image`` style."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += ("." if out else "") + (step if "." not in step else f'"{step}"')
    return out


def dig(value: Any, path: Sequence[Segment], default: Any = None) -> Any:
    """The node at ``path`` below ``value``, or ``default`` where the path leads nowhere."""
    for step in path:
        if isinstance(value, dict) and isinstance(step, str):
            if step not in value:
                return default
            value = value[step]
        elif isinstance(value, list) and isinstance(step, int):
            if not -len(value) <= step < len(value):
                return default
            value = value[step]
        else:
            return default
    return value


def parse_flags(
    raw: Sequence[Any],
) -> Iterator[tuple[str, tuple[str, ...] | None, int, int]]:
    """(key, values or None for a bare flag, first index, end index) per flag or positional.

    ``--flag=value`` and ``--flag value ...`` (every item up to the next flag) are the same
    flag; items before any flag, or after ``--``, are positionals keyed ``[i]``.
    """
    items = [str(a) for a in raw]
    i, options = 0, True
    while i < len(items):
        item = items[i]
        if options and item == "--":
            options = False
            i += 1
            continue
        if options and _is_flag(item):
            if "=" in item and item.startswith("--"):
                name, _, value = item.partition("=")
                yield name, (value,), i, i + 1
                i += 1
                continue
            j = i + 1
            while j < len(items) and not (_is_flag(items[j]) or items[j] == "--"):
                j += 1
            yield item, (tuple(items[i + 1 : j]) or None), i, j
            i = j
            continue
        yield f"[{i}]", (item,), i, i + 1
        i += 1


def _is_flag(item: str) -> bool:
    return len(item) > 1 and item.startswith("-") and not _NUMBER.match(item)


def scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def identifier(list_name: str, items: Sequence[Any]) -> tuple[str, ...] | None:
    """The fields that name each item of a list of mappings uniquely, or None."""
    if list_name == "ports":
        candidates: tuple[tuple[str, ...], ...] = (
            ("name",), ("containerPort", "protocol"), ("port", "protocol"),
        )
    else:
        candidates = LIST_KEYS.get(list_name, ()) + GENERIC_KEYS
    for fields in candidates:
        if not all(isinstance(v, dict) and _scalar_key(v.get(fields[0])) for v in items):
            continue
        keys = [item_key(fields, v) for v in items]
        if len(set(keys)) == len(keys):
            return fields
    return None


def _scalar_key(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool) and value != ""


def item_key(fields: tuple[str, ...], item: Mapping[str, Any]) -> str:
    first = str(item.get(fields[0]))
    if len(fields) == 1:
        return first
    rest = [str(item.get(f) if item.get(f) is not None else ("TCP" if f == "protocol" else ""))
            for f in fields[1:]]
    return "/".join([first, *rest]) if fields[1] == "protocol" else ":".join([first, *rest])


def stable_path(body: Any, path: Sequence[Segment]) -> str:
    """A field path with list indices replaced by item names where the list has them.

    Findings match across base and head by (rule, object, this path): a container moved in
    its list, a flag moved in ``args``, keeps its path.
    """
    out: list[str] = []
    node = body
    parent_key = ""
    for step in path:
        if isinstance(node, list) and isinstance(step, int):
            if parent_key in FLAG_LISTS and all(scalar(v) for v in node):
                owner = _flag_at(node, step)
                out.append(owner)
                return ".".join(out)
            named = all(isinstance(v, dict) for v in node)
            fields = identifier(parent_key, node) if named else None
            if fields is not None and 0 <= step < len(node):
                out.append(item_key(fields, node[step]))
            else:
                out.append(str(step))
            node = node[step] if 0 <= step < len(node) else None
        elif isinstance(node, dict):
            out.append(str(step))
            node = node.get(step)
        else:
            out.append(str(step))
            node = None
        parent_key = str(step)
    return ".".join(out)


def _flag_at(items: Sequence[Any], index: int) -> str:
    for key, _, start, end in parse_flags(items):
        if start <= index < end:
            return key
    return f"[{index}]"
