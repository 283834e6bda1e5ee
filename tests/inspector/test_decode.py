"""The display trees of stored values: what the page shows for each tag, without importing
the classes of stored models."""

from __future__ import annotations

import json

import pytest

from flink_agents_memory.inspector import decode
from flink_agents_memory.memory.retention import Entry
from flink_agents_memory.memory.serialization import dumps


def test_tree_follows_object_markers_in_their_order():
    entries = {
        "": '\x01["profile","count"]',
        "profile": '\x01["name","address"]',
        "profile.name": "\x00" + dumps("Alice"),
        "profile.address": '\x01["city"]',
        "profile.address.city": "\x00" + dumps("Lisbon"),
        "count": "\x00" + dumps(3),
    }
    tree = decode.short_term_tree(entries)
    assert [name for name, _ in tree["fields"]] == ["profile", "count"]
    profile = dict(tree["fields"])["profile"]
    assert profile["type"] == "object"
    address = dict(profile["fields"])["address"]
    assert dict(address["fields"])["city"] == {"type": "str", "value": "Lisbon"}
    assert dict(tree["fields"])["count"] == {"type": "int", "value": 3}


def test_model_shows_its_stored_type_without_importing_it():
    raw = '{"$m":["somewhere.not.importable:Prefs",{"language":"en","tags":["a"]}]}'
    tree = decode.short_term_tree({"": '\x01["prefs"]', "prefs": "\x00" + raw})
    prefs = dict(tree["fields"])["prefs"]
    assert prefs["type"] == "somewhere.not.importable:Prefs" and prefs["model"] is True
    fields = dict(prefs["fields"])
    assert fields["language"] == {"type": "str", "value": "en"}
    assert fields["tags"]["type"] == "list"


@pytest.mark.parametrize(("value", "expected"), [
    (None, {"type": "null", "value": None}),
    (True, {"type": "bool", "value": True}),
    (1.5, {"type": "float", "value": 1.5}),
    (b"\x00\x01\x02", {"type": "bytes", "value": "3 bytes"}),
])
def test_leaves(value, expected):
    assert decode.node(json.loads(dumps(value))) == expected


def test_escaped_user_dict_is_a_dict_not_a_tag():
    node = decode.node(json.loads(dumps({"$m": "just a user key"})))
    assert node == {"type": "dict", "fields": [["$m", {"type": "str", "value": "just a user key"}]]}


def test_paths_no_marker_reaches_are_still_shown():
    tree = decode.short_term_tree({"": '\x01["a"]', "a": "\x00" + dumps(1),
                                   "lost.field": "\x00" + dumps(2)})
    names = [name for name, _ in tree["fields"]]
    assert names == ["a", "(unreachable)"]
    assert dict(dict(tree["fields"])["(unreachable)"]["fields"])["lost.field"]["value"] == 2


def test_history_entries_and_plain_models():
    raw = Entry(5, 10, 0, dumps({"$m": 1})).encode()
    [entry] = decode.history_entries([raw])
    assert entry.at_ms == 5 and decode.payload(entry) == {"$d": {"$m": 1}}
    assert decode.plain(decode.payload(entry)) == {"$m": 1}
    model = {"$m": ["x:MemoryEvent", {"memory_id": "m1", "event": "ADD"}]}
    assert decode.plain(model) == {"memory_id": "m1", "event": "ADD"}
