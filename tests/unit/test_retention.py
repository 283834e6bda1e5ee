"""Sizing items against a Retention, shared by declared histories and retained lists: both
must measure an item the same way, or the same limits would keep different items."""

from __future__ import annotations

import pytest

from flink_agents_memory import MemoryValueError, Retention
from flink_agents_memory.memory import serialization
from flink_agents_memory.memory.history import History, PyListBackend
from flink_agents_memory.memory.list_retention import ListRetention
from flink_agents_memory.memory.retention import Entry, room_after, sized_entry
from flink_agents_memory.memory.store import DictStore


def test_an_entry_holds_the_encoded_value_its_size_and_time():
    entry = sized_entry({"role": "user", "text": "hi"}, Retention(), "list 'x'", at_ms=42)
    assert entry.payload == serialization.dumps({"role": "user", "text": "hi"})
    assert entry.size == serialization.encoded_size(entry.payload)
    assert entry.at_ms == 42
    assert entry.tokens == 0, "tokens are counted only under max_tokens"


def test_tokens_count_the_text_of_a_string_and_the_encoding_of_anything_else():
    words = Retention(max_tokens=100, token_counter=lambda text: len(text.split()))
    assert sized_entry("three short words", words, "list 'x'").tokens == 3
    # '{"a": "b c"}' splits into two words.
    assert sized_entry({"a": "b c"}, words, "list 'x'").tokens == len(
        serialization.dumps({"a": "b c"}).split())


@pytest.mark.parametrize(("retention", "max_value_bytes", "message"), [
    (Retention(max_bytes=5), None,
     r"item of \d+ bytes is over max_bytes=5 of history 'h' on its own"),
    (Retention(max_tokens=2), None,
     r"item of 4 tokens is over max_tokens=2 of history 'h' on its own"),
    (Retention(max_bytes=5), 3, r"item of \d+ bytes is over max_value_bytes=3 \(history 'h'\)"),
])
def test_an_item_that_could_never_be_kept_is_refused_naming_its_owner(retention, max_value_bytes,
                                                                        message):
    with pytest.raises(MemoryValueError, match=message):
        sized_entry("one two three four", retention, "history 'h'", max_value_bytes=max_value_bytes)


def test_room_after_replacements_shrinks_every_limit():
    retention = Retention(max_items=5, max_bytes=100, max_tokens=50)
    room = room_after(retention, [Entry(0, 30, 10, "a"), Entry(0, 20, 5, "b")], "list 'x'")
    assert (room.max_items, room.max_bytes, room.max_tokens) == (3, 50, 35)
    assert room_after(Retention(max_items=2), [], "list 'x'").max_bytes is None


def test_replacements_over_the_retention_on_their_own_are_refused():
    with pytest.raises(MemoryValueError,
                       match="reducer of list 'x' returned 3 items that do not fit its retention"):
        room_after(Retention(max_items=2), [Entry(0, 1, 0, "")] * 3, "list 'x'")


@pytest.mark.parametrize("retention", [
    Retention(max_bytes=40),
    Retention(max_tokens=12),
    Retention(max_items=3, max_bytes=60, max_tokens=11),
])
def test_a_history_and_a_retained_list_keep_the_same_items(retention):
    values = ["a few words", {"k": "v w"}, [1, 2, 3], "x", "the newest item here"]
    history = History("h", retention, PyListBackend(), DictStore(), now_ms=lambda: 0)
    for value in values:
        history.append(value)
    write = history.prepare()
    assert write is not None
    write()
    history.discard()
    trimmed = ListRetention({"l": retention}).apply("l", values)
    assert history.all() == trimmed
    assert 0 < len(trimmed) < len(values)
