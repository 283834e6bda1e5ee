"""Every value ``set`` accepts comes back through the MemoryRef that ``set`` returned."""

from __future__ import annotations

import datetime
import enum
import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from flink_agents_memory import MemoryValueError
from flink_agents_memory.memory.short_term import ShortTermMemory, StoredMemoryObject
from flink_agents_memory.memory.store import DictStore


class Point(BaseModel):
    x: int
    label: str


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Colour(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


class Metres(float):
    pass


class Stamped(BaseModel):
    """A model whose leaves only pydantic knows how to store (and validates back)."""

    at: datetime.datetime
    ident: uuid.UUID
    colour: Colour


def reads_back_as(value: Any) -> Any:
    """What memory returns for ``value``: JSON has no tuple, bytearray or IntEnum."""
    if isinstance(value, (list, tuple)):
        return [reads_back_as(v) for v in value]
    if isinstance(value, dict):
        return {k: reads_back_as(v) for k, v in value.items()}
    if isinstance(value, bytearray):
        return bytes(value)
    if isinstance(value, enum.IntEnum):
        return int(value)
    if isinstance(value, Colour):
        return value.value
    if isinstance(value, Metres):
        return float(value)
    return value


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.text(), st.binary(max_size=20), st.binary(max_size=20).map(bytearray),
    st.sampled_from(Level), st.sampled_from(Colour),
    st.floats(allow_nan=False, allow_infinity=False).map(Metres),
    st.builds(Point, x=st.integers(-5, 5), label=st.text(max_size=5)),
    st.builds(Stamped, at=st.datetimes(), ident=st.uuids(), colour=st.sampled_from(Colour)),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.one_of(st.text(max_size=4), st.sampled_from(["$b", "$m", "$d"])),
                        inner, max_size=3),
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(value=values)
def test_a_value_comes_back_through_its_memory_ref(value):
    root = StoredMemoryObject(ShortTermMemory(DictStore()))
    ref = root.set("a.p", value)
    back = root.get(ref)
    assert back == reads_back_as(value)
    assert type(back).__name__ == ref.type_name
    assert ref.resolve(_Ctx(root)) == back


class _Ctx:
    def __init__(self, root: StoredMemoryObject) -> None:
        self._root = root

    def get_short_term_memory(self) -> StoredMemoryObject:
        return self._root


@settings(max_examples=100, deadline=None)
@given(fields=st.dictionaries(st.sampled_from(["a", "b", "c"]), values, max_size=3),
       nested=st.dictionaries(st.sampled_from(["x", "y"]), values, max_size=2))
def test_a_memory_object_comes_back_through_its_memory_ref(fields, nested):
    """``set`` also accepts a MemoryObject (copied with its subtree)."""
    source = StoredMemoryObject(ShortTermMemory(DictStore()))
    for name, value in fields.items():
        source.set(name, value)
    inner = source.new_object("inner")
    for name, value in nested.items():
        inner.set(name, value)
    root = StoredMemoryObject(ShortTermMemory(DictStore()))
    ref = root.set("a.copy", source)
    back = root.get(ref)
    assert ref.type_name == "MemoryObject" and isinstance(back, StoredMemoryObject)
    assert sorted(back.get_field_names()) == sorted([*fields, "inner"])
    for name, value in fields.items():
        assert back.get(name) == reads_back_as(value)
    for name, value in nested.items():
        assert back.get(f"inner.{name}") == reads_back_as(value)
    assert ref.resolve(_Ctx(root)).get_field_names() == back.get_field_names()


def test_tuple_from_the_issue():
    root = StoredMemoryObject(ShortTermMemory(DictStore()))
    assert root.get(root.set("p", (1, 2))) == [1, 2]


def test_a_ref_still_catches_a_changed_type():
    root = StoredMemoryObject(ShortTermMemory(DictStore()))
    ref = root.set("p", (1, 2))
    root.set("p", b"now bytes")
    with pytest.raises(MemoryValueError, match="expects a list, but that path now holds a bytes"):
        root.get(ref)
