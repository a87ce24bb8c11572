"""KObject's own __init__ (bot/model/objects.py: the fields set in the instance's dictionary,
a model makes one per object) gives what the frozen dataclass's generated __init__ gives:
the same fields in the same order, a new empty ``origins`` when none is given, frozen."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from reviewbot.model.objects import KObject


@dataclasses.dataclass(eq=False, frozen=True)
class _Generated:
    api_version: str
    kind: str
    namespace: str | None
    name: str
    doc: Any
    body: Any
    path: tuple[Any, ...] = ()
    origins: Any = dataclasses.field(default_factory=dict, repr=False)


def _state(obj: Any) -> list[tuple[str, Any]]:
    return list(vars(obj).items())


@pytest.mark.parametrize("args", [
    ("v1", "Pod", "ns", "web", None, {"kind": "Pod"}),
    ("apps/v1", "Deployment", None, "d", None, {}, ("items", 0)),
    ("v1", "ConfigMap", "default", "c", None, {}, (), {("data",): (None, ("data",))}),
])
def test_the_fields_are_the_generated_init_s(args: tuple[Any, ...]) -> None:
    mine, generated = KObject(*args), _Generated(*args)
    assert _state(mine) == _state(generated)
    assert [f.name for f in dataclasses.fields(mine)] == list(vars(mine))
    assert repr(mine).replace("KObject", "_Generated") == repr(generated)


def test_origins_default_to_a_new_mapping_each_and_the_object_stays_frozen() -> None:
    a = KObject("v1", "Pod", "ns", "a", None, {})
    b = KObject("v1", "Pod", "ns", "b", None, {})
    assert a.origins == {} and a.origins is not b.origins
    assert KObject(**{f.name: getattr(a, f.name) for f in dataclasses.fields(a)}).origins \
        is a.origins
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.name = "c"  # type: ignore[misc]
    assert dataclasses.replace(a, name="c").name == "c"
    assert a.group == "" and KObject("apps/v1", "D", None, "d", None, {}).group == "apps"
