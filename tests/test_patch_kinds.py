"""A build's patches are tried only on the objects of the kind they target
(transform._Kinds, bot/model/transform.py): the same objects patched, in the same order,
the same deleted, as trying every patch on every object does; patches one after another,
some changing the list (the kinds made again) and some not."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.model.patches import Target, smp_targets
from reviewbot.model.resource import Patch, Resource
from reviewbot.model.transform import _Kinds

_KINDS = st.sampled_from(["Deployment", "Service", "", None, 1, "deployment", "Deploy"])
_NAMES = st.sampled_from(["a", "b", "c"])
_RESOURCES = st.lists(st.builds(
    lambda kind, name: Resource(None, (), {"apiVersion": "v1", "kind": kind,
                                           "metadata": {"name": name}}),
    _KINDS, _NAMES), max_size=8)
_SMP = st.builds(lambda kind, name: ("smp", {"kind": kind, "metadata": {"name": name}}),
                 _KINDS, _NAMES)
_UNTARGETED = st.one_of(  # a `patches:` entry without a target: its body names its own
    st.builds(lambda kind, name: ("untargeted", {"kind": kind, "metadata": {"name": name}}),
              _KINDS, _NAMES),
    st.just(("untargeted", [{"op": "add", "path": "/x", "value": 1}])))
_TARGETED = st.builds(
    lambda kind, name: ("target", {k: v for k, v in (("kind", kind), ("name", name))
                                   if v is not None}),
    st.sampled_from(["Deployment", "Service", "Deploy.*", "", None, "(", "Deployment|Service"]),
    st.one_of(st.none(), _NAMES))


def _reference(out: list[Resource], selects: Any, apply: Any, gone: list[Resource]
               ) -> list[Resource]:
    kept = []
    for r in out:
        after = apply(r) if selects(r) else r
        if after is None:
            gone.append(r)
        else:
            kept.append(after)
    return kept


def _apply(r: Resource) -> Resource | None:
    """Deletes the objects named c, renames the others' kind (a list that changes)."""
    if r.body["metadata"]["name"] == "c":
        return None
    return r.with_body({**r.body, "kind": "Service", "patched": r.body.get("patched", 0) + 1})


@settings(max_examples=400, deadline=None)
@given(_RESOURCES, st.lists(st.one_of(_SMP, _TARGETED, _UNTARGETED), max_size=5))
def test_patches_tried_by_kind_patch_what_trying_every_object_patches(
        resources: list[Resource], patches: list[tuple[str, Any]]) -> None:
    out, ref = list(resources), list(resources)
    gone: list[Resource] = []
    ref_gone: list[Resource] = []
    kinds = _Kinds()
    for how, body in patches:
        if how == "smp":
            patch = Patch(body, None, ())
            kind = body.get("kind")
            out = kinds.patched(out, kind if isinstance(kind, str) else None,
                                lambda r, p=patch: smp_targets(r, p), _apply, gone)
            ref = _reference(ref, lambda r, p=patch: smp_targets(r, p), _apply, ref_gone)
        elif how == "untargeted":
            target = Target(None, Patch(body, None, ()))
            out = kinds.patched(out, target.only, target.selects, _apply, gone)
            ref = _reference(ref, target.selects, _apply, ref_gone)
        else:
            target = Target(body, Patch({}, None, ()))
            out = kinds.patched(out, target.only, target.selects, _apply, gone)
            ref = _reference(ref, target.selects, _apply, ref_gone)
        assert [(r.body, r.origins) for r in out] == [(r.body, r.origins) for r in ref]
        assert [id(r) for r in gone] == [id(r) for r in ref_gone]
