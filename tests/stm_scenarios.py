"""Short-term memory scenarios, run both on a dict store (unit) and on Flink MapState (flink).

Each scenario takes the root MemoryObject and asserts; the Flink tests run them inside an action.
"""

from __future__ import annotations

from typing import Union

from pydantic import BaseModel

from flink_agents_memory import MemoryObject, MemoryRef


def design_example(root: MemoryObject) -> None:
    """Every example line of the short-term memory design, verbatim."""
    root.set("x", 100)
    root.set("y", "abc")
    obj_z = root.new_object("z")
    assert root.get_field_names() == ["x", "y", "z"]
    assert root.get("x") == 100 and root.get("y") == "abc"
    assert obj_z.get_fields() == {}

    obj_z.set("m", 0.5)
    obj_z.set("n.j", True)

    assert root.get("x") == 100
    assert root.get("z.m") == 0.5

    assert root.get("xx") is None
    assert root.get("z.mm") is None

    assert root.is_exist("x") is True
    assert root.is_exist("xx") is False
    assert root.is_exist("z.m") is True
    assert root.is_exist("z.mm") is False

    obj_n = root.get("z.n")
    assert isinstance(obj_n, MemoryObject)
    assert obj_n.get("j") is True

    assert obj_z.get_field_names() == ["m", "n"]
    fields = obj_z.get_fields()
    assert list(fields) == ["m", "n"]
    assert fields["m"] == 0.5
    assert isinstance(fields["n"], MemoryObject)


def delete_and_values(root: MemoryObject) -> None:
    """delete of a field and of a sub-tree; every supported value type round-trips."""
    values = {
        "none": None,
        "flag": False,
        "int": -(2**62),
        "float": 1.25,
        "text": "héllo ✓",
        "blob": b"\x00\x01\xff",
        "list": [1, "a", None, [b"x"], {"k": 2.5}],
        "dict": {"a": 1, "nested": {"b": [True]}, "$b": "not a tag"},
        "tagdict": {"$b": "looks like a tag"},
    }
    for name, value in values.items():
        root.set(f"vals.{name}", value)
    for name, value in values.items():
        assert root.get(f"vals.{name}") == value, name
        assert type(root.get(f"vals.{name}")) is type(value), name
    root.set("tree.a.b.c", 1)
    root.set("tree.a.d", 2)
    assert root.delete("tree.a.b") is True
    assert root.get_field_names() == ["vals", "tree"]
    assert root.get("tree").get_field_names() == ["a"]
    assert root.get("tree.a").get_field_names() == ["d"]
    assert root.is_exist("tree.a.b.c") is False
    assert root.delete("tree.a.b") is False
    assert root.delete("tree") is True
    assert root.get_field_names() == ["vals"]
    root.set("log", [1, 2, 3, 4])
    assert root.get_recent("log", 2) == [3, 4]
    assert root.get_recent("log", 10) == [1, 2, 3, 4]
    assert root.get_recent("missing", 3) == []


class CustomDataSet(BaseModel):
    """Custom data object (the short-term memory design's MemoryRef example)."""

    id: str
    data: bytes


class Envelope(BaseModel):
    payload: Union[CustomDataSet, MemoryRef]  # noqa: UP007 - verbatim from the seed


def memory_ref_roundtrip(root: MemoryObject) -> None:
    """The short-term memory design's MemoryRef approaches 1 and 2, in one action (the
    Flink test uses two)."""
    data = CustomDataSet(id="large_002", data=b"some large content")
    path = "shared_datasets.large_002.content"
    root.set(path, data)
    ref1 = MemoryRef.create(path, "CustomDataSet")
    ref2 = root.set(path, data)
    assert ref1 == ref2
    resolved = root.get(ref2)
    assert isinstance(resolved, CustomDataSet) and resolved == data
    event = Envelope(payload=ref2)
    assert isinstance(Envelope.model_validate_json(event.model_dump_json()).payload, MemoryRef)
