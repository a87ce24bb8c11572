"""The diff of two models: what ``reviewbot diff`` shows and a review judges."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from reviewbot.diff.objects import Item, ObjectDiff, TreeDiff, diff_items, items_of
from reviewbot.model.objects import Model, makers, refused_build

Identity = tuple[str, str, str, str]


def diff_models(base: Model, head: Model) -> TreeDiff:
    """The diff of two models (``diff_items`` of their ``items_of``), without the identities
    whose one item on each side is the same parsed body in the same file (files both sides
    share: the diff would find nothing there).

    Objects are told apart before any diff item is made for them (most of a tree), from the
    models' identity index; kustomization files and values documents are diff items first.
    """
    base_rest, head_rest = items_of(replace(base, objects=[])), items_of(replace(head, objects=[]))
    others = {i.identity for i in base_rest} | {i.identity for i in head_rest}
    shared: set[Identity] = set()
    for identity, found in base.by_identity.items():
        other = head.by_identity.get(identity)
        if (len(found) == 1 and other is not None and len(other) == 1
                and identity not in others and found[0].body is other[0].body
                and found[0].file == other[0].file):
            shared.add(identity)

    def objects_only(model: Model) -> Model:
        kept = [o for o in model.objects if o.identity not in shared]
        return replace(model, objects=kept, kustomizations=[], files={}, derived={})

    base_items = items_of(objects_only(base)) + base_rest
    head_items = items_of(objects_only(head)) + head_rest
    groups: dict[Identity, list[Item]] = {}
    for item in base_items:
        groups.setdefault(item.identity, []).append(item)
    heads: dict[Identity, list[Item]] = {}
    for item in head_items:
        heads.setdefault(item.identity, []).append(item)
    same = set()
    for identity, olds in groups.items():
        news = heads.get(identity)
        if len(olds) == 1 and news is not None and len(news) == 1:
            b, h = olds[0], news[0]
            if b.body is h.body and b.file == h.file and (b.strip, b.secret) == (h.strip, h.secret):
                same.add(identity)
    diffed = diff_items([i for i in base_items if i.identity not in same],
                        [i for i in head_items if i.identity not in same])
    refs = Counter(o.ref for o in diffed.objects)
    return TreeDiff(tuple(_as_built(o, base, head, refs[o.ref] > 1) for o in diffed.objects))


def _as_built(o: ObjectDiff, base: Model, head: Model, several: bool) -> ObjectDiff:
    """``o`` with what its builds say: kustomize refuses every build that makes it on the
    head (or, else, on the base), so that side applies nothing of it and comparing it says
    nothing of the cluster; and which builds make it, when several make its identity."""
    unbuilt = None
    if o.head is not None:
        refused = refused_build(head, o.head)
    else:
        refused = refused_build(base, o.base, head) if o.base is not None else None
    if refused is not None:
        unbuilt = ("head", *refused)
    elif o.base is not None and (refused := refused_build(base, o.base)) is not None:
        unbuilt = ("base", *refused)
    builds: tuple[str, ...] = ()
    if several:
        obj, model = (o.head, head) if o.head is not None else (o.base, base)
        builds = tuple(m.name for m in makers(model, obj)) if obj is not None else ()
    return replace(o, unbuilt=unbuilt, builds=builds) if unbuilt or builds else o
