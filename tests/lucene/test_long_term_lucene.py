"""ctx.memory (the memory system design's MemoryAPI) on the real Lucene index: CRUD, search
modes, audit, retention, run atomicity, bad input, and the mem0 add pipeline against a
scripted HTTP LLM."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llm_server import ScriptedLLMServer
from lucene_store import CallAgent, LuceneRunner, LuceneStore

from flink_agents_memory.errors import ActionFailedError
from flink_agents_memory.memory.items import MemoryItem
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.models import HashingEmbedder, OpenAICompatibleLLM


class Clock:
    def __init__(self):
        self.now = 1_700_000_000_000

    def __call__(self):
        return self.now


def runner_for(lucene, agent=None, clock=None):
    return LuceneRunner(agent or CallAgent(), lucene, clock=clock or Clock())


def do(runner, key, fn):
    return runner.run(key, fn)[0]


def test_crud_and_search_modes(lucene):
    r = runner_for(lucene)
    ids = [do(r, "alice", lambda c, t=t, m=m: c.memory.add(MemoryItem(memory=t, metadata=m)))
           for t, m in [("I like green tea in the morning", {"topic": "drink", "n": 1}),
                        ("My dog is called Rex", {"topic": "pets", "n": 2}),
                        ("I am allergic to peanuts", {"topic": "health", "n": 3})]]
    assert do(r, "alice", lambda c: c.memory.get(ids[1]).memory) == "My dog is called Rex"
    for mode in ("vector", "keyword", "hybrid"):
        hits = do(r, "alice", lambda c, m=mode: c.memory.search("green tea", limit=2, mode=m))
        assert hits[0].id == ids[0] and hits[0].score > 0, mode
    assert [h.id for h in do(r, "alice", lambda c: c.memory.search(
        "tea dog peanuts", filters={"topic": {"in": ["pets", "health"]}}))] != []
    assert {h.id for h in do(r, "alice", lambda c: c.memory.search(
        "tea dog peanuts", mode="keyword", filters={"n": {"gte": 2}}))} == {ids[1], ids[2]}
    updated = do(r, "alice", lambda c: c.memory.update(ids[1], "My dog is called Max"))
    assert updated.memory == "My dog is called Max"
    assert do(r, "alice", lambda c: c.memory.search("Max", mode="keyword")[0].id) == ids[1]
    do(r, "alice", lambda c: c.memory.delete(ids[2]))
    assert do(r, "alice", lambda c: c.memory.get(ids[2])) is None
    assert len(do(r, "alice", lambda c: c.memory.get_all())) == 2
    assert do(r, "bob", lambda c: c.memory.get(ids[0])) is None
    assert do(r, "bob", lambda c: c.memory.search("green tea")) == []


def test_history_and_audit_trail(lucene):
    r = runner_for(lucene)
    memory_id = do(r, "k", lambda c: c.memory.add("first"))
    do(r, "k", lambda c: c.memory.update(memory_id, "second"))
    do(r, "k", lambda c: c.memory.delete(memory_id))
    events = do(r, "k", lambda c: c.memory.history(memory_id))
    assert [(e.event, e.old_value, e.new_value) for e in events] == [
        ("ADD", None, "first"), ("UPDATE", "first", "second"), ("DELETE", "second", None)]
    assert all(e.actor == "call" for e in events)
    recent = do(r, "k", lambda c: c.memory.get_history(5))
    assert [m.memory for m in recent] == ["first", "second"]


def test_ttl_and_max_items_per_key(lucene):
    class Limited(CallAgent):
        long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(64), ttl_ms=1000,
                                                max_items_per_key=3)

    clock = Clock()
    r = runner_for(lucene, Limited(), clock)
    ids = []
    for i in range(5):
        clock.now += 10
        ids.append(do(r, "k", lambda c, i=i: c.memory.add(f"fact number {i}")))
    kept = do(r, "k", lambda c: [m.id for m in c.memory.get_all()])
    assert set(kept) == set(ids[2:])
    deleted = do(r, "k", lambda c: c.memory.history(ids[0]))
    assert deleted[-1].event == "DELETE" and deleted[-1].actor == "retention:max_items_per_key"
    clock.now += 2000
    assert do(r, "k", lambda c: c.memory.get_all()) == []
    assert do(r, "k", lambda c: c.memory.search("fact number")) == []


def test_failed_run_leaves_the_index_unchanged(lucene):
    r = runner_for(lucene)
    do(r, "k", lambda c: c.memory.add("kept"))

    def add_then_fail(c):
        c.memory.add("lost")
        raise RuntimeError("boom")

    with pytest.raises(ActionFailedError):
        r.run("k", add_then_fail)
    assert [m.memory for m in do(r, "k", lambda c: c.memory.get_all())] == ["kept"]
    assert [m.memory for m in do(r, "k", lambda c: c.memory.get_history(10))] == ["kept"]


class WrongDim:
    dim = 64

    def embed(self, texts):
        return np.ones((len(texts), 32), dtype=np.float32)


def test_bad_input_is_clear_and_stores_nothing(lucene):
    r = runner_for(lucene)
    do(r, "k", lambda c: c.memory.add("one"))
    bad = [
        (lambda c: c.memory.add(""), "non-empty str"),
        (lambda c: c.memory.add(MemoryItem(memory="x", metadata={"f": object()})), "JSON"),
        (lambda c: c.memory.update("no-such-id", "x"), "no memory 'no-such-id'"),
        (lambda c: c.memory.delete("no-such-id"), "no memory 'no-such-id'"),
        (lambda c: c.memory.search("x", mode="fuzzy"), "unknown search mode"),
        (lambda c: c.memory.search("x", limit=0), "positive int"),
    ]
    for fn, message in bad:
        with pytest.raises(ActionFailedError, match=message):
            r.run("k", fn)

    class Wrong(CallAgent):
        long_term_memory = LongTermMemoryConfig(embedder=WrongDim())

    with pytest.raises(ActionFailedError, match="returned shape"):
        runner_for(lucene, Wrong()).run("k", lambda c: c.memory.search("x"))

    class OtherDim(CallAgent):
        long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(32))

    with pytest.raises(Exception, match="does not match the index's dimension"):
        runner_for(lucene, OtherDim()).run(
            "k", lambda c: c.memory.add(MemoryItem(id="two", memory="two")))
    assert [m.memory for m in do(r, "k", lambda c: c.memory.get_all())] == ["one"]


def test_ids_are_deterministic_per_key_and_sequence(tmp_path):
    seen = []
    for run in range(2):
        lucene = LuceneStore(tmp_path / f"run{run}")
        r = runner_for(lucene)
        seen.append([do(r, k, lambda c, k=k: c.memory.add(f"text of {k}")) for k in "abab"])
        lucene.close()
    assert seen[0] == seen[1] and len(set(seen[0])) == 4


def test_add_messages_without_inference_deduplicates(lucene):
    r = runner_for(lucene)
    first = do(r, "k", lambda c: c.memory.add_messages(
        [{"role": "user", "content": "I love hiking in the Alps"},
         {"role": "assistant", "content": "Noted, the Alps"}], infer=False))
    assert [x["event"] for x in first] == ["ADD", "ADD"]
    again = do(r, "k", lambda c: c.memory.add_messages("I love hiking in the Alps", infer=False))
    assert again[0]["event"] == "NONE" and again[0]["id"] == first[0]["id"]
    near = do(r, "k", lambda c: c.memory.add_messages("i LOVE hiking in the alps!", infer=False))
    assert near[0]["event"] == "NONE"
    assert len(do(r, "k", lambda c: c.memory.get_all())) == 2
    stored = do(r, "k", lambda c: c.memory.get(first[1]["id"]))
    assert stored.metadata["role"] == "assistant"


def test_add_messages_pipeline_with_scripted_llm(lucene, caplog):
    with ScriptedLLMServer() as llm:
        class Inferring(CallAgent):
            long_term_memory = LongTermMemoryConfig(
                embedder=HashingEmbedder(64),
                llm=OpenAICompatibleLLM(llm.url, "scripted", api_key="sk-secret", retries=1))

        r = runner_for(lucene, Inferring())
        llm.replies.extend([
            '{"facts": ["Name is Ada", "Likes tea"]}',
            '{"memory": [{"id": "new", "text": "Name is Ada", "event": "ADD"},'
            ' {"id": "x", "text": "Likes tea", "event": "ADD"}]}',
        ])
        added = do(r, "ada", lambda c: c.memory.add_messages("Hi, I'm Ada and I like tea"))
        assert [(a["event"], a["memory"]) for a in added] == [
            ("ADD", "Name is Ada"), ("ADD", "Likes tea")]
        assert llm.headers[0]["Authorization"] == "Bearer sk-secret"

        # the update step sees existing memories under small ids and may only use those
        llm.replies.extend([
            '```json\n{"facts": ["Likes coffee, not tea"]}\n```',
            '{"memory": [{"id": "0", "text": "Likes coffee, not tea", "event": "UPDATE"},'
            ' {"id": "99", "text": "hallucinated", "event": "DELETE"},'
            ' {"id": "1", "event": "NONE"}]}',
        ])
        with caplog.at_level(logging.WARNING):
            changed = do(r, "ada", lambda c: c.memory.add_messages("Actually I prefer coffee"))
        shown = json.loads(llm.requests[-1]["messages"][1]["content"])["existing_memories"]
        assert [m["id"] for m in shown] == [str(i) for i in range(len(shown))]
        assert {m["text"] for m in shown} <= {"Name is Ada", "Likes tea"}
        assert "unknown memory id '99'" in caplog.text
        assert len(changed) == 1 and changed[0]["event"] == "UPDATE"
        assert changed[0]["id"] in {a["id"] for a in added}
        texts = {m.memory for m in do(r, "ada", lambda c: c.memory.get_all())}
        assert texts == {"Name is Ada", "Likes coffee, not tea"}
        assert "sk-secret" not in caplog.text

        # malformed output and a failing server are logged skips; memory is unchanged
        llm.replies.extend(["this is not json", 500, 500])
        with caplog.at_level(logging.WARNING):
            assert do(r, "ada", lambda c: c.memory.add_messages("blah")) == []
            assert do(r, "ada", lambda c: c.memory.add_messages("blah blah")) == []
        assert "malformed LLM answer" in caplog.text and "LLM call failed" in caplog.text
        assert {m.memory for m in do(r, "ada", lambda c: c.memory.get_all())} == texts


def test_infer_without_llm_stores_verbatim_and_warns_once(lucene, caplog):
    r = runner_for(lucene)
    with caplog.at_level(logging.WARNING):
        do(r, "k", lambda c: c.memory.add_messages("remember this"))
        do(r, "k", lambda c: c.memory.add_messages("and this"))
    assert caplog.text.count("without an LLM configured") == 1
    assert len(do(r, "k", lambda c: c.memory.get_all())) == 2


keys = st.sampled_from([f"user{i}" for i in range(12)])
words = st.lists(st.sampled_from(["tea", "dog", "alps", "code", "jazz", "rain"]),
                 min_size=1, max_size=3).map(" ".join)
operations = st.lists(st.tuples(st.sampled_from(["add", "delete", "search", "get"]), keys, words),
                      min_size=1, max_size=40)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations)
def test_no_api_reaches_another_keys_memories(tmp_path_factory, ops):
    lucene = LuceneStore(tmp_path_factory.mktemp("iso"))
    r = runner_for(lucene)
    owned: dict[str, set[str]] = {}
    try:
        for op, key, text in ops:
            mine = owned.setdefault(key, set())
            others = set().union(*(v for k, v in owned.items() if k != key))
            if op == "add":
                mine.add(do(r, key, lambda c, t=text: c.memory.add(t)))
            elif op == "delete" and others:
                victim = sorted(others)[0]
                with pytest.raises(ActionFailedError, match="no memory"):
                    r.run(key, lambda c, v=victim: c.memory.delete(v))
            elif op == "search":
                for mode in ("vector", "keyword", "hybrid"):
                    hits = do(r, key, lambda c, t=text, m=mode: c.memory.search(t, mode=m))
                    assert {h.id for h in hits} <= mine
            elif others:
                victim = sorted(others)[0]
                assert do(r, key, lambda c, v=victim: c.memory.get(v)) is None
            assert {m.id for m in do(r, key, lambda c: c.memory.get_all(limit=1000))} == mine
    finally:
        lucene.close()
