"""Short-term memory flattening on a dict store: the short-term memory design's scenarios and
the path rules."""

from __future__ import annotations

import pytest
import stm_scenarios
from pydantic import BaseModel

from flink_agents_memory import MemoryPathError, MemoryRef, MemoryValueError
from flink_agents_memory.memory.short_term import ShortTermMemory, StoredMemoryObject
from flink_agents_memory.memory.store import DictStore, RunBuffer


def make_root(max_value_bytes: int = 1 << 20) -> tuple[StoredMemoryObject, DictStore]:
    store = DictStore()
    return StoredMemoryObject(ShortTermMemory(store, max_value_bytes)), store


@pytest.mark.parametrize(
    "scenario",
    [
        stm_scenarios.design_example,
        stm_scenarios.delete_and_values,
        stm_scenarios.memory_ref_roundtrip,
    ],
)
def test_scenarios_on_dict_store(scenario):
    root, _ = make_root()
    scenario(root)


def test_layout_is_absolute_paths_with_object_markers():
    root, store = make_root()
    root.set("z.n.j", True)
    assert store.data["z.n.j"] == "\x00true"
    assert store.data["z.n"] == '\x01["j"]'
    assert store.data["z"] == '\x01["n"]'
    assert store.data[""] == '\x01["z"]'


@pytest.mark.parametrize("path", ["", "a..b", ".a", "a.", "."])
def test_malformed_paths_are_clear_errors(path):
    root, store = make_root()
    with pytest.raises(MemoryPathError):
        root.set(path, 1)
    with pytest.raises(MemoryPathError):
        root.get(path)
    assert store.data == {}


def test_set_under_a_primitive_is_an_error_and_changes_nothing():
    root, store = make_root()
    root.set("a", 1)
    before = dict(store.data)
    with pytest.raises(MemoryPathError, match="'a' holds a int value"):
        root.set("a.b", 2)
    with pytest.raises(MemoryPathError):
        root.new_object("a.b")
    assert store.data == before


def test_new_object_over_existing_field_needs_overwrite():
    root, _ = make_root()
    root.set("a", 1)
    root.set("o.x", 1)
    with pytest.raises(MemoryPathError, match="overwrite=True"):
        root.new_object("a")
    with pytest.raises(MemoryPathError, match="already holds an object"):
        root.new_object("o")
    fresh = root.new_object("o", overwrite=True)
    assert fresh.get_field_names() == [] and root.get("o.x") is None
    root.new_object("a", overwrite=True)
    assert root.get("a").get_field_names() == []


def test_set_over_object_replaces_subtree():
    root, store = make_root()
    root.set("o.x.y", 1)
    root.set("o", "flat")
    assert root.get("o") == "flat"
    assert "o.x" not in store.data and "o.x.y" not in store.data
    assert root.get_field_names() == ["o"]


def test_set_memory_object_copies_subtree():
    root, _ = make_root()
    root.set("src.a", 1)
    root.set("src.b.c", [1, 2])
    ref = root.set("dst", root.get("src"))
    assert ref == MemoryRef(path="dst", type_name="MemoryObject")
    assert root.get("dst.a") == 1 and root.get("dst.b.c") == [1, 2]
    root.set("src.a", 2)
    assert root.get("dst.a") == 1


class Unsupported:
    pass


@pytest.mark.parametrize("value", [Unsupported(), {1: "int key"}, {1, 2}, float("nan"), [object()]])
def test_unsupported_values_raise_type_error(value):
    root, store = make_root()
    with pytest.raises(TypeError):
        root.set("v", value)
    assert store.data == {}


def test_value_over_max_value_bytes_is_rejected():
    root, store = make_root(max_value_bytes=100)
    root.set("small", "x" * 50)
    with pytest.raises(MemoryValueError, match="over the limit of 100 bytes"):
        root.set("big", "x" * 200)
    assert root.get("small") == "x" * 50 and not root.is_exist("big")


def test_stale_memory_ref_is_a_clear_error():
    root, _ = make_root()
    ref = root.set("p", [1, 2])
    root.set("p", "now a string")
    with pytest.raises(MemoryValueError, match="expects a list"):
        root.get(ref)
    assert root.get(MemoryRef.create("absent", "list")) is None


class Nested(BaseModel):
    name: str
    tags: list[str]


class Outer(BaseModel):
    inner: Nested
    raw: bytes
    maybe: Nested | None = None


def test_nested_models_come_back_as_their_classes():
    root, _ = make_root()
    value = Outer(inner=Nested(name="n", tags=["a"]), raw=b"\xff\x00")
    root.set("m", value)
    back = root.get("m")
    assert isinstance(back, Outer) and isinstance(back.inner, Nested) and back == value


def test_run_buffer_flush_and_discard():
    store = DictStore()
    buffer = RunBuffer(store)
    root = StoredMemoryObject(ShortTermMemory(buffer))
    root.set("a", 1)
    assert root.get("a") == 1 and store.data == {}
    buffer.discard()
    assert root.get("a") is None
    root.set("a", 2)
    root.set("b", 3)
    root.delete("b")
    assert buffer.pending_writes == 3
    assert buffer.flush() > 0
    assert store.data["a"] == "\x002" and "b" not in store.data


def test_run_buffer_writes_a_runs_puts_in_one_call_where_the_store_can():
    calls: list[tuple[str, object]] = []

    class BatchingStore(DictStore):
        def put(self, key, value):
            calls.append(("put", key))
            super().put(key, value)

        def put_all(self, values):
            calls.append(("put_all", sorted(values)))
            self.data.update(values)

        def remove(self, key):
            calls.append(("remove", key))
            super().remove(key)

    store = BatchingStore()
    store.data["old"] = "\x00true"
    buffer = RunBuffer(store)
    root = StoredMemoryObject(ShortTermMemory(buffer))
    root.set("a", 1)
    root.set("b", 2)
    buffer.remove("old")
    buffer.flush()
    assert sorted(calls) == [("put_all", ["", "a", "b"]), ("remove", "old")]
    assert store.data["a"] == "\x001" and store.data["b"] == "\x002" and "old" not in store.data
    calls.clear()
    root.set("a", 3)
    buffer.flush()
    assert calls == [("put", "a")], "a single put needs no map built"


def test_run_buffer_reads_each_path_once():
    reads: list[str] = []

    class CountingStore(DictStore):
        def get(self, key):
            reads.append(key)
            return super().get(key)

    buffer = RunBuffer(CountingStore())
    root = StoredMemoryObject(ShortTermMemory(buffer))
    for _ in range(5):
        root.get("x")
    assert reads == ["x"]


@pytest.mark.parametrize("n", [-1, 1.5, "3", True])
def test_get_recent_needs_non_negative_int(n):
    root, _ = make_root()
    root.set("log", [1, 2, 3])
    with pytest.raises(ValueError, match=r"get_recent\('log', n\) needs an int n >= 0"):
        root.get_recent("log", n)
    assert root.get_recent("log", 2) == [2, 3]


@pytest.mark.parametrize("path", ["a.\ud800", "\udfff", "x.é\ud800y"])
def test_lone_surrogate_paths_are_refused_by_every_call(path):
    root, store = make_root()
    root.set("é.ok", 1)  # valid non-ASCII paths still take the checked route and work
    assert root.get("é.ok") == 1
    for call in (lambda: root.get(path), lambda: root.set(path, 1),
                 lambda: root.is_exist(path), lambda: root.new_object(path)):
        with pytest.raises(MemoryPathError, match="surrogate"):
            call()
    assert set(store.data) == {"", "é", "é.ok"}


class ReadAheadStore(DictStore):
    """A store with ``get_many`` that records every call into it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, object]] = []

    def get(self, key):
        self.calls.append(("get", key))
        return super().get(key)

    def get_many(self, keys):
        self.calls.append(("get_many", list(keys)))
        return [self.data.get(k) for k in keys]


def test_run_buffer_reads_ahead_what_the_previous_run_read():
    store = ReadAheadStore()
    store.data.update({"a": "1", "b": "2", "c": "3"})
    buffer = RunBuffer(store)
    assert [buffer.get(k) for k in "abc"] == ["1", "2", "3"]
    assert [name for name, _ in store.calls] == ["get"] * 3, "the first run has nothing to go on"
    buffer.flush()
    store.data["b"] = "changed between runs"
    store.calls.clear()
    assert [buffer.get(k) for k in "abc"] == ["1", "changed between runs", "3"]
    assert store.calls == [("get_many", ["a", "b", "c"])]
    buffer.flush()
    store.calls.clear()
    # A run that reads something else: one read ahead, then a call per unpredicted path.
    assert buffer.get("d") is None and buffer.get("a") == "1" and buffer.get("e") is None
    assert store.calls == [("get_many", ["a", "b", "c", "d"]), ("get", "e")]
    assert buffer.reads == 3 + 3 + 4 + 1, "reads count the keys read, ahead or not"
    buffer.discard()  # a failed run teaches the next one too
    store.calls.clear()
    assert buffer.get("a") == "1"
    assert store.calls == [("get_many", ["d", "a", "e"])]


def test_run_buffer_read_ahead_sees_the_runs_own_writes():
    store = ReadAheadStore()
    store.data.update({"a": "1", "b": "2"})
    buffer = RunBuffer(store)
    buffer.get("a"), buffer.get("b")
    buffer.flush()
    buffer.put("b", "mine")
    buffer.remove("a")
    assert buffer.get("a") is None and buffer.get("b") == "mine"
    assert store.calls == [("get", "a"), ("get", "b")], "no read for paths the run wrote"
    buffer.put("c", "new")
    buffer.flush()
    assert store.data == {"b": "mine", "c": "new"}


def test_run_buffer_never_reads_long_values_ahead():
    store = ReadAheadStore()
    store.data.update({"short": "s", "long": "x" * 2000, "other": "o"})
    buffer = RunBuffer(store)
    for key in ("short", "long", "other"):
        buffer.get(key)
    buffer.flush()
    store.calls.clear()
    assert buffer.get("short") == "s" and buffer.get("long") == "x" * 2000
    assert store.calls == [("get_many", ["short", "other"]), ("get", "long")]
