"""What the inspector reads from a real savepoint of InspectorAgent (tests/inspector/
inspector_agent.py): every kind of memory, key by key, and that reading changes nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import urlparse

import pytest
from savepoints import latest_checkpoint

from flink_agents_memory.inspector import InspectorError, SavepointView
from flink_agents_memory.inspector.savepoint_view import local_path

pytestmark = [pytest.mark.flink, pytest.mark.slow]


def fields(node: dict) -> dict:
    return dict(node["fields"])


def test_keys_are_listed_searched_and_paged(view):
    assert [k["key"] for k in view.keys()["items"]] == ["alice", "bob"]
    assert [k["key"] for k in view.keys("LIC")["items"]] == ["alice"]
    page = view.keys("", offset=1, limit=1)
    assert page["total"] == 2 and [k["key"] for k in page["items"]] == ["bob"]
    assert view.keys("nobody")["total"] == 0


def test_short_term_tree_with_nested_objects_and_model_types(view):
    tree = view.key("alice")["short_term"]
    profile = fields(tree)["profile"]
    assert fields(fields(profile)["address"])["city"] == {"type": "str", "value": "Lisbon"}
    prefs = fields(profile)["preferences"]
    assert prefs["type"] == "inspector_agent:Preferences" and prefs["model"]
    assert fields(prefs)["language"]["value"] == "en"
    assert fields(fields(tree)["stats"])["messages"] == {"type": "int", "value": 3}
    assert fields(fields(view.key("bob")["short_term"])["stats"])["messages"]["value"] == 2


def test_histories_with_retention_and_recent_interactions(view):
    alice = view.key("alice")
    [chat] = alice["histories"]
    assert chat["name"] == "chat"
    assert chat["retention"]["max_items"] == 3 and chat["retention"]["ttl_ms"] == 86_400_000
    assert [i["value"] for i in chat["items"]] == [
        "I love green tea in the morning", "I am allergic to peanuts", "My sister lives in Lisbon"]
    assert all(i["retained"] for i in chat["items"])
    assert alice["recent"][0]["memory"] == "My sister lives in Lisbon and my brother in Porto"


def test_long_term_memories_paged_newest_first(view):
    everything = view.memories("alice")
    assert everything["total"] == 3
    texts = [m["memory"] for m in everything["items"]]
    assert set(texts) == {"I love green tea in the morning", "I am allergic to peanuts",
                          "My sister lives in Lisbon and my brother in Porto"}
    assert all(m["created_at"] and m["updated_at"] for m in everything["items"])
    assert view.memories("alice", offset=2, limit=2)["items"] == everything["items"][2:]
    assert view.key("alice")["memories"] == 3


@pytest.mark.parametrize("mode", ["vector", "keyword", "hybrid"])
def test_search_finds_the_memory_with_scores(view, mode):
    hits = view.search("alice", "allergic to peanuts", mode=mode)["items"]
    assert hits[0]["memory"] == "I am allergic to peanuts"
    assert all(isinstance(h["score"], float) for h in hits)
    assert hits == sorted(hits, key=lambda h: -h["score"])
    # key isolation: bob's memories never show up for alice
    others = view.search("alice", "piano", mode=mode)["items"]
    assert not any("piano" in h["memory"] for h in others)


def test_audit_trail_of_an_updated_memory(view):
    updated = next(m for m in view.memories("alice")["items"] if "brother" in m["memory"])
    trail = view.audit("alice", updated["id"])
    assert [e["event"] for e in trail["events"]] == ["ADD", "UPDATE"]
    assert trail["events"][1]["old_value"] == "My sister lives in Lisbon"
    assert trail["memory"]["memory"] == updated["memory"]


def test_unknown_key_is_an_empty_result(view):
    key = view.key("nobody")
    assert key["found"] is False and key["short_term"]["fields"] == [] and key["histories"] == []
    assert view.memories("nobody") == {"total": 0, "offset": 0, "items": []}
    assert view.search("nobody", "peanuts")["items"] == []
    assert view.audit("nobody", "some-id")["events"] == []


def test_subtasks_and_key_groups(view):
    summary = view.subtasks()
    assert summary["parallelism"] == 2 and summary["max_parallelism"] == 128
    assert summary["checkpoint_id"] >= 1 and summary["keys"] == 2
    assert sum(s["memories"] for s in summary["subtasks"]) == 5
    groups = [g for s in summary["subtasks"] for g in s["key_groups"]]
    assert {g["key_group"] for g in groups} == {view.key("alice")["key_group"],
                                                view.key("bob")["key_group"]}
    assert all(g["segments"] >= 1 and g["bytes"] > 0 for g in groups)
    for s in summary["subtasks"]:
        assert all(s["first_key_group"] <= g["key_group"] <= s["last_key_group"]
                   for g in s["key_groups"])


@pytest.mark.parametrize(("call", "message"), [
    (lambda v: v.search("alice", "x", mode="fuzzy"), "search mode must be one of"),
    (lambda v: v.keys(limit=0), "limit must be between"),
    (lambda v: v.memories("alice", offset=-1), "offset must be >= 0"),
])
def test_bad_requests_are_clear_errors(view, call, message):
    with pytest.raises(InspectorError, match=message):
        call(view)


def test_vector_search_without_an_embedder_says_what_is_missing(savepoint):
    bare = SavepointView(savepoint)
    try:
        with pytest.raises(InspectorError, match="needs the agent's embedder"):
            bare.search("alice", "peanuts", mode="vector")
        assert bare.search("alice", "peanuts", mode="keyword")["items"]
        assert bare.key("alice")["histories"][0]["retention"] is None
    finally:
        bare.close()


def digest(directory: Path) -> dict[str, str]:
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def test_reading_changes_nothing_in_the_savepoint(savepoint, view):
    directory = local_path(savepoint)
    before = digest(directory)
    for key in ("alice", "bob", "nobody"):
        view.key(key)
        view.memories(key)
        view.search(key, "peanuts tea piano")
    assert digest(directory) == before
    assert urlparse(savepoint).scheme == "file"


def test_a_retained_checkpoint_reads_like_the_savepoint(savepoint, view):
    """A hashmap backend's retained checkpoint is not in the canonical savepoint format: its
    keyed state goes through the State Processor API instead, with the same result."""
    checkpoint = latest_checkpoint(local_path(savepoint).parents[1] / "chk")
    assert checkpoint is not None, "the job retains its last checkpoint"
    retained = SavepointView(str(checkpoint), embedder=view.embedder, agent=view.agent)
    try:
        assert retained.keys() == view.keys()
        for key in ("alice", "bob"):
            assert retained.key(key) == view.key(key)
            assert retained.memories(key) == view.memories(key)
    finally:
        retained.close()
