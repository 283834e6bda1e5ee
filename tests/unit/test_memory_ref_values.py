"""Every value ``set`` accepts comes back through the MemoryRef that ``set`` returned."""

from __future__ import annotations

import enum
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
    return value


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.text(), st.binary(max_size=20), st.binary(max_size=20).map(bytearray),
    st.sampled_from(Level),
    st.builds(Point, x=st.integers(-5, 5), label=st.text(max_size=5)),
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


def test_tuple_from_the_issue():
    root = StoredMemoryObject(ShortTermMemory(DictStore()))
    assert root.get(root.set("p", (1, 2))) == [1, 2]


def test_a_ref_still_catches_a_changed_type():
    root = StoredMemoryObject(ShortTermMemory(DictStore()))
    ref = root.set("p", (1, 2))
    root.set("p", b"now bytes")
    with pytest.raises(MemoryValueError, match="expects a list, but that path now holds a bytes"):
        root.get(ref)
