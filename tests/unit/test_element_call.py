"""ElementCallStore: short-term memory's reads ahead and writes carried by an element's call.

The Java side (ElementCallState) has its JUnit test; the whole path runs in
tests/flink/test_short_term_flink.py. Here the Java MapState is a recording stand-in, so each
test can say which calls would have crossed into Java.
"""

from __future__ import annotations

import pytest

from flink_agents_memory.memory.short_term import ShortTermMemory, StoredMemoryObject
from flink_agents_memory.memory.store import RunBuffer
from flink_agents_memory.runtime.bridge import DirectEntry, carry
from flink_agents_memory.runtime.element_call import ElementCallStore


class JavaMapState:
    """Records every call a Java MapState would receive from Python."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}
        self.calls: list[str] = []

    def get(self, key: str) -> str | None:
        self.calls.append(f"get {key}")
        return self.data.get(key)

    def put(self, key: str, value: str) -> None:
        self.calls.append(f"put {key}")
        self.data[key] = value

    def putAll(self, values: dict[str, str]) -> None:  # noqa: N802 (Java's name)
        self.calls.append(f"putAll {sorted(values)}")
        self.data.update(values)

    def remove(self, key: str) -> None:
        self.calls.append(f"remove {key}")
        self.data.pop(key, None)

    def get_all(self, keys: list[str]) -> list[str | None]:
        self.calls.append(f"getAll {keys}")
        return [self.data.get(k) for k in keys]


def store_over(java: JavaMapState) -> ElementCallStore:
    return ElementCallStore(java, java.get_all)


def store_that_named(java: JavaMapState, paths: list[str]) -> ElementCallStore:
    """A store whose first call read ``paths`` and so named them for the operator to read."""
    store = store_over(java)
    store.begin(None)
    assert store.get_many is not None
    store.get_many(paths)
    assert store.end() == (paths, None)
    return store


def test_outside_a_call_every_access_goes_to_java():
    java = JavaMapState()
    store = store_over(java)
    store.put_all({"a": "1", "b": "2"})
    assert store.get("a") == "1"
    assert store.get_many is not None and store.get_many(["a", "b"]) == ["1", "2"]
    store.remove("a")
    assert java.calls == ["putAll ['a', 'b']", "get a", "getAll ['a', 'b']", "remove a"]
    assert java.data == {"b": "2"}


def test_a_call_names_the_paths_to_read_ahead_then_reads_come_with_the_element():
    java = JavaMapState()
    java.data = {"a": "1", "b": "2"}
    store = store_over(java)
    store.begin(None)
    assert store.get_many is not None and store.get_many(["a", "b"]) == ["1", "2"]
    assert store.end() == (["a", "b"], None)  # the operator reads these from now on
    java.calls.clear()
    store.begin(["10", None])  # what the operator read for the next element's key
    assert store.get_many(["a", "b"]) == ["10", None]
    assert store.end() == (None, None)  # unchanged
    assert java.calls == [] and store.carried_reads == 1


def test_other_paths_are_read_from_java_and_become_the_new_ones():
    java = JavaMapState()
    java.data = {"a": "1", "c": "3"}
    store = store_that_named(java, ["a", "b"])
    store.begin(["1", None])
    assert store.get_many is not None and store.get_many(["a", "c"]) == ["1", "3"]
    assert store.end() == (["a", "c"], None)
    assert java.calls[-1] == "getAll ['a', 'c']"


def test_a_calls_writes_go_back_with_it_and_its_reads_see_them():
    java = JavaMapState()
    java.data = {"gone": "x"}
    store = store_over(java)
    store.begin(None)
    store.put_all({"a": "1", "b": "2"})
    store.put("c", "3")
    assert store.get("a") == "1"
    store.remove("b")  # a removal runs at once and drops the kept write
    store.remove("gone")
    keys, puts = store.end()
    assert keys is None and puts == {"a": "1", "c": "3"}
    assert java.calls == ["remove b", "remove gone"]
    assert java.data == {}


def test_values_brought_are_not_used_after_a_write():
    java = JavaMapState()
    java.data = {"a": "1", "b": "2"}
    store = store_that_named(java, ["a", "b"])
    store.begin(["stale", "stale"])
    store.put("a", "5")
    assert store.get_many is not None
    assert store.get_many(["a", "b"]) == ["1", "2"]  # from Java, not the values brought


def test_a_failed_call_returns_nothing_and_keeps_the_paths_the_operator_has():
    java = JavaMapState()
    java.data = {"a": "1", "b": "2", "c": "3"}
    store = store_that_named(java, ["a", "b"])
    store.begin(["1", "2"])
    assert store.get_many is not None
    store.get_many(["b", "c"])  # would become the new paths...
    store.put("a", "9")
    store.abandon()  # ...but the call failed: the operator still reads a and b
    store.begin(["1", "2"])
    assert store.get_many(["a", "b"]) == ["1", "2"]
    assert store.end() == (None, None)


def test_no_read_ahead_where_reads_change_state():
    store = ElementCallStore(JavaMapState(), None)
    assert store.get_many is None


class Operation:
    """PyFlink's operation for one element: runs a short-term memory run over the store."""

    def __init__(self, store: ElementCallStore, fail: bool = False) -> None:
        self.buffer = RunBuffer(store)
        self.stm = StoredMemoryObject(ShortTermMemory(self.buffer))
        self.fail = fail

    def process_element(self, value: int) -> list[str]:
        count = self.stm.get("count") or 0
        self.stm.set("count", count + 1)
        self.stm.set("last", value)
        if self.fail:
            self.buffer.discard()
            raise RuntimeError("the run failed")
        self.buffer.flush()
        return [f"{value}:{count + 1}"]

    def on_timer(self, timestamp: int) -> list[str]:
        return []


def test_an_element_entry_returns_outputs_paths_and_writes():
    java = JavaMapState()
    store = store_over(java)
    carry(store)
    entry = DirectEntry(Operation(store))
    paths: list[str] = []  # what the operator reads ahead (ElementCallState)
    crossings = []
    for value in range(1, 6):
        java.calls = []
        ahead = [java.data.get(p) for p in paths] if paths else None
        outputs, keys, puts, waiting = entry.process_element(value, ahead)
        assert outputs == [f"{value}:{value}"] and waiting is None
        paths = keys if keys is not None else paths
        java.data.update(puts or {})
        crossings.append(java.calls)
    # The first run reads each path (and the root, to add the new names); the next learns
    # which paths runs read; the one after reads the paths the second read, which the first
    # did not; from then on the whole run crosses into Java not once.
    assert crossings[0] == ["get count", "get ", "get last"]
    assert crossings[1] == ["getAll ['count', '', 'last']"]
    assert crossings[2] == ["getAll ['count', 'last']"]
    assert crossings[3:] == [[], []]
    assert paths == ["count", "last"]
    assert java.data == {"": '\x01["count","last"]', "count": "\x005", "last": "\x005"}


def test_an_element_entry_that_fails_returns_no_writes():
    java = JavaMapState()
    store = store_over(java)
    carry(store)
    entry = DirectEntry(Operation(store, fail=True))
    with pytest.raises(RuntimeError, match="the run failed"):
        entry.process_element(1, None)
    assert store.end() == (None, None)
    assert java.data == {}


def test_an_entry_without_a_store_returns_outputs_only():
    entry = DirectEntry(Operation(store_over(JavaMapState())))  # nothing carried on this thread
    outputs, keys, puts, waiting = entry.process_element(1, None)
    assert outputs == ["1:1"] and keys is None and puts is None and waiting is None
