"""ctx.memory (the memory system design's MemoryAPI) on the real Lucene index: CRUD, search
modes, audit, retention, run atomicity, bad input, and the mem0 add pipeline against a
scripted HTTP LLM."""

from __future__ import annotations

import itertools
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


def test_mem0_filter_grammar(lucene):
    """nin, contains/icontains, the * wildcard and nested AND/OR/NOT, in get_all and in every
    search mode, never past the key."""
    r = runner_for(lucene)
    metadata = {
        "t1": {"topic": "Drinks", "stars": 5, "tags": ["hot", "Tea"], "note": "Morning ritual"},
        "t2": {"topic": "pets", "stars": 2, "note": None},
        "t3": {"topic": "health", "flag": True, "info": {"k": 1}},
        "t4": {},
    }
    ids = {name: do(r, "alice", lambda c, n=name, m=m: c.memory.add(
        MemoryItem(memory=f"green tea note {n}", metadata=m))) for name, m in metadata.items()}
    bob = do(r, "bob", lambda c: c.memory.add(MemoryItem(
        memory="green tea note", metadata={"topic": "Drinks", "stars": 5})))
    cases = [
        ({"topic": {"nin": ["pets", "health"]}}, {"t1", "t4"}),
        ({"note": {"contains": "ritual"}}, {"t1"}),
        ({"note": {"contains": "RITUAL"}}, set()),
        ({"note": {"icontains": "MORNING R"}}, {"t1"}),
        ({"tags": {"icontains": "tea"}}, {"t1"}),
        ({"flag": {"contains": "ru"}}, set()),  # a boolean is not a string
        ({"note": "*"}, {"t1"}),  # t2's note is null
        ({"info": "*"}, {"t3"}),
        ({"topic": {"eq": "*"}}, set()),
        ({"OR": [{"topic": "pets"}, {"flag": True}]}, {"t2", "t3"}),
        ({"NOT": [{"topic": "*"}]}, {"t4"}),
        ({"NOT": [{"topic": "pets"}, {"stars": 5}]}, {"t3", "t4"}),
        ({"AND": [{"stars": {"gte": 2}}, {"NOT": [{"topic": {"icontains": "PET"}}]}]}, {"t1"}),
        ({"stars": {"lt": 5}, "OR": [{"note": "*"}, {"AND": [{"note": {"nin": ["x"]}}]}]},
         {"t2"}),
        ({"OR": [{"topic": "Drinks"}, {"NOT": [{"topic": "Drinks"}]}]}, set(metadata)),
    ]
    for filters, expected in cases:
        want = {ids[name] for name in expected}
        got = {m.id for m in do(r, "alice", lambda c, f=filters: c.memory.get_all(filters=f))}
        assert got == want, filters
        for mode in ("vector", "keyword", "hybrid"):
            hits = do(r, "alice", lambda c, f=filters, m=mode: c.memory.search(
                "green tea note", mode=m, filters=f))
            assert {h.id for h in hits} == want, (filters, mode)
    for filters in ({"NOT": [{"stars": 5}]}, {"OR": [{"topic": "pets"}, {"info": "*"}]}):
        assert do(r, "bob", lambda c, f=filters: c.memory.get_all(filters=f)) == []
    tautology = {"OR": [{"stars": 5}, {"NOT": [{"stars": 5}]}]}
    assert [m.id for m in do(r, "bob", lambda c: c.memory.get_all(filters=tautology))] == [bob]
    with pytest.raises(ActionFailedError, match=r"filter on 'b' \(in OR\[1\]\): unknown operator"):
        r.run("alice", lambda c: c.memory.search(
            "tea", filters={"OR": [{"a": 1}, {"b": {"x": 1}}]}))


def _terms(value):
    """The index's view of a metadata value: its scalars (list elements), objects and null left
    out, each as (canonical term, number or None, str or None)."""
    out = []
    for v in value if isinstance(value, list) else [value]:
        if isinstance(v, bool):
            out.append(("true" if v else "false", None, None))
        elif isinstance(v, (int, float)):
            term = str(int(v)) if float(v).is_integer() else repr(float(v))
            out.append((term, float(v), None))
        elif isinstance(v, str):
            out.append((v, None, v))
    return out


def _term(x):
    return _terms(x)[0][0]


def _fold(text):
    """Letter by letter, upper- then lower-cased (Java's equalsIgnoreCase)."""
    return "".join(c.upper().lower() if len(c.upper()) == 1 else c.lower() for c in text)


def _passes(metadata, filters):
    """mem0's filter grammar, evaluated in Python: the oracle for the index."""
    return all(_entry(metadata, name, cond) for name, cond in filters.items())


def _entry(metadata, name, cond):
    if name in ("AND", "OR", "NOT"):
        results = [_passes(metadata, f) for f in cond]
        return {"AND": all, "OR": any, "NOT": lambda r: not any(r)}[name](results)
    terms = _terms(metadata.get(name))
    if cond == "*":
        return metadata.get(name) is not None
    if not isinstance(cond, dict):
        return _term(cond) in {t for t, _, _ in terms}
    ok = True
    for op, x in cond.items():
        if op in ("eq", "ne"):
            ok &= (_term(x) in {t for t, _, _ in terms}) == (op == "eq")
        elif op in ("in", "nin"):
            ok &= bool({_term(v) for v in x} & {t for t, _, _ in terms}) == (op == "in")
        elif op == "contains":
            ok &= any(s is not None and x in s for _, _, s in terms)
        elif op == "icontains":
            ok &= any(s is not None and _fold(x) in _fold(s) for _, _, s in terms)
    bounds = {op: x for op, x in cond.items() if op in ("gte", "gt", "lte", "lt")}
    if bounds:  # one value must meet every bound
        ok &= any(n is not None and all(
            {"gte": n >= b, "gt": n > b, "lte": n <= b, "lt": n < b}[op]
            for op, b in bounds.items()) for _, n, _ in terms)
    return ok


# Few fields and values, so that filters keep some memories and drop others.
_meta_scalars = st.one_of(st.sampled_from(["x", "Tea", "tea", "é", "É", "true", "2"]),
                          st.integers(1, 3), st.booleans(), st.just(2.5), st.none())
_meta = st.dictionaries(st.sampled_from(["a", "b"]), st.one_of(
    _meta_scalars, _meta_scalars, st.lists(_meta_scalars, max_size=3), st.just({"k": 1})),
    max_size=2)
_operand = st.one_of(st.sampled_from(["x", "Tea", "tea", "é", "true", "2"]), st.integers(1, 3),
                     st.booleans(), st.just(2.5))
_substring = st.sampled_from(["e", "E", "ea", "TE", "é", "É", "a", "ru", "2"])
_condition = st.one_of(
    _operand, st.just("*"),
    st.dictionaries(st.sampled_from(["eq", "ne"]), _operand, min_size=1, max_size=2),
    st.dictionaries(st.sampled_from(["in", "nin"]), st.lists(_operand, max_size=3), min_size=1,
                    max_size=1),
    st.dictionaries(st.sampled_from(["gte", "gt", "lte", "lt"]), st.integers(0, 4), min_size=1,
                    max_size=2),
    st.dictionaries(st.sampled_from(["contains", "icontains"]), _substring, min_size=1))
_fields = st.dictionaries(st.sampled_from(["a", "b"]), _condition, min_size=1, max_size=2)
_grammar = st.recursive(_fields, lambda inner: st.builds(
    lambda logic, fields: {**fields, **logic},
    st.dictionaries(st.sampled_from(["AND", "OR", "NOT"]), st.lists(inner, min_size=1, max_size=3),
                    min_size=1, max_size=2),
    st.dictionaries(st.sampled_from(["a", "b"]), _condition, max_size=1)), max_leaves=8)
_oracle_keys = itertools.count()


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(metadatas=st.lists(_meta, min_size=10, max_size=20), filters=_grammar)
def test_filters_agree_with_a_python_oracle(lucene, metadatas, filters):
    """Random well-formed filters over random metadata: the index returns exactly the memories
    the grammar's Python reading keeps, by get_all and by vector search."""
    r = runner_for(lucene)
    key = f"k{next(_oracle_keys)}"  # one index for all examples, a fresh key for each
    ids = do(r, key, lambda c: [c.memory.add(MemoryItem(memory="tea", metadata=m))
                                for m in metadatas])
    want = {i for i, m in zip(ids, metadatas, strict=True) if _passes(m, filters)}
    assert {m.id for m in do(r, key, lambda c: c.memory.get_all(filters=filters))} == want
    hits = do(r, key, lambda c: c.memory.search(
        "tea", limit=50, mode="vector", filters=filters))
    assert {h.id for h in hits} == want


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
