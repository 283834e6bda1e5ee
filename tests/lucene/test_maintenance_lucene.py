"""Maintenance passes (forgetting, consolidation) on the real Lucene index, driven by the
local runner's timers exactly as the Flink function drives them: timers, access counts, the
audit trail, LLM merges and every bad LLM answer."""

from __future__ import annotations

import json
import logging

import pytest
from llm_server import ScriptedLLMServer
from lucene_store import LuceneRunner

from flink_agents_memory import (
    Agent,
    AgentConfig,
    Compression,
    Consolidation,
    Forgetting,
    HashingEmbedder,
    InputEvent,
    LongTermMemoryConfig,
    MaintenanceConfig,
    OpenAICompatibleLLM,
    OutputEvent,
    Retention,
    Synthesis,
    action,
)
from flink_agents_memory.errors import ConfigurationError
from flink_agents_memory.memory.compression import extractive
from flink_agents_memory.runtime.maintenance_timers import TIMER

T0 = 1_700_000_000_000
HOUR = 3_600_000


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now


class Call(Agent):
    """Runs the callable given as input against ctx, and outputs its result."""

    @action(InputEvent)
    @staticmethod
    def call(event, ctx):
        ctx.send_event(OutputEvent(output=event.input(ctx)))


def agent_with(maintenance: MaintenanceConfig, llm=None, embedder=None) -> Call:
    agent = Call()
    agent.long_term_memory = LongTermMemoryConfig(
        embedder=embedder or HashingEmbedder(256), llm=llm, maintenance=maintenance)
    return agent


def do(runner: LuceneRunner, key: str, fn):
    return runner.run(key, fn)[0]


def texts(runner: LuceneRunner, key: str) -> list[str]:
    return sorted(m.memory for m in do(runner, key, lambda c: c.memory.get_all()))


def make_runner(lucene, maintenance, clock, **kw) -> LuceneRunner:
    return LuceneRunner(agent_with(maintenance, **kw), lucene, clock=clock)


def test_a_long_term_write_registers_one_timer_and_a_pass_clears_it(lucene):
    clock = Clock()
    runner = make_runner(lucene, MaintenanceConfig(interval_ms=HOUR,
                                                   forgetting=Forgetting(budget=10)), clock)
    do(runner, "k", lambda c: c.get_short_term_memory().set("x", 1))
    assert runner.timers == {}, "no long-term write, no timer"
    do(runner, "k", lambda c: c.memory.add("first"))
    assert runner.timers == {"k": T0 + HOUR}
    clock.now += 10
    do(runner, "k", lambda c: c.memory.add("second"))
    assert runner.timers == {"k": T0 + HOUR}, "one pending timer per key"
    assert runner.fire_timers(T0 + HOUR - 1) == []
    assert runner.fire_timers(T0 + HOUR) == ["k"]
    assert runner.timers == {}
    assert runner.states._maps["flink_agents_memory.meta"]["k"].get(TIMER) is None
    clock.now = T0 + 2 * HOUR
    do(runner, "k", lambda c: c.memory.add("third"))
    assert runner.timers == {"k": T0 + 3 * HOUR}


def test_over_budget_the_lowest_scores_are_forgotten_with_an_audit_entry(lucene):
    clock = Clock()
    forgetting = Forgetting(budget=3, half_life_ms=HOUR, access_weight=2.0)
    runner = make_runner(lucene, MaintenanceConfig(interval_ms=HOUR, forgetting=forgetting),
                         clock)
    ids = {}
    for i, text in enumerate(["coffee in the morning", "walks the dog daily", "plays chess",
                              "reads poetry", "likes rainy days", "collects stamps"]):
        clock.now = T0 + i * HOUR // 4
        meta = {"importance": 1.0} if text == "plays chess" else {}
        ids[text] = do(runner, "k", lambda c, t=text, m=meta: c.memory.add(t, metadata=m))
    clock.now = T0 + 2 * HOUR
    for _ in range(3):  # "coffee", the oldest, is searched for: accesses keep it
        hits = do(runner, "k", lambda c: c.memory.search("coffee morning", limit=1,
                                                         mode="keyword"))
        assert [h.memory for h in hits] == ["coffee in the morning"]
    runner.fire_timers(T0 + 2 * HOUR)
    kept = texts(runner, "k")
    assert len(kept) == 3
    assert "coffee in the morning" in kept and "plays chess" in kept
    assert "collects stamps" in kept, "the newest of the rest"
    for text in ["walks the dog daily", "reads poetry", "likes rainy days"]:
        trail = do(runner, "k", lambda c, i=ids[text]: c.memory.history(i))
        assert [(e.event, e.actor) for e in trail] == [
            ("ADD", "call"), ("DELETE", "maintenance:forgetting")]
        assert trail[-1].old_value == text
        assert trail[-1].new_value["forgotten"]["budget"] == 3


def test_accesses_are_counted_at_commit_and_dropped_with_a_failed_run(lucene):
    clock = Clock()
    runner = make_runner(lucene, MaintenanceConfig(interval_ms=HOUR,
                                                   forgetting=Forgetting(budget=5)), clock)
    memory_id = do(runner, "k", lambda c: c.memory.add("green tea"))
    access = runner.states._maps["flink_agents_memory.access"]
    clock.now += 5
    do(runner, "k", lambda c: c.memory.search("green tea", mode="keyword"))
    assert access["k"].get(memory_id) == f"1:{T0 + 5}"

    def search_then_fail(c):
        c.memory.search("green tea", mode="keyword")
        raise RuntimeError("boom")

    with pytest.raises(Exception, match="boom"):
        runner.run("k", search_then_fail)
    assert access["k"].get(memory_id) == f"1:{T0 + 5}"
    do(runner, "k", lambda c: c.memory.search("green tea", mode="keyword"))
    assert access["k"].get(memory_id) == f"2:{T0 + 5}"
    assert access.get("other") is None, "counts are per key"


def test_near_duplicates_keep_the_newest_and_record_the_merge(lucene):
    clock = Clock()
    consolidation = Consolidation(threshold=0.95)
    runner = make_runner(lucene, MaintenanceConfig(interval_ms=HOUR,
                                                   consolidation=consolidation), clock)
    old = do(runner, "k", lambda c: c.memory.add("Alice likes green tea"))
    clock.now += 1
    other = do(runner, "k", lambda c: c.memory.add("Alice plays the cello"))
    clock.now += 1
    new = do(runner, "k", lambda c: c.memory.add("alice likes GREEN tea!"))
    do(runner, "j", lambda c: c.memory.add("Alice likes green tea"))
    runner.fire_timers(T0 + 2 * HOUR)
    assert texts(runner, "k") == ["Alice plays the cello", "alice likes GREEN tea!"]
    assert texts(runner, "j") == ["Alice likes green tea"], "keys never merge across"
    trail = do(runner, "k", lambda c: c.memory.history(old))
    assert (trail[-1].event, trail[-1].actor, trail[-1].new_value) == (
        "DELETE", "maintenance:consolidation", {"merged_into": new})
    kept = do(runner, "k", lambda c: c.memory.get(new))
    assert kept.metadata["merged_from"] == [old]
    assert do(runner, "k", lambda c: c.memory.history(new))[-1].actor == \
        "maintenance:consolidation"
    assert len(do(runner, "k", lambda c: c.memory.history(other))) == 1


def test_a_second_pass_only_compares_what_was_written_since(lucene):
    clock = Clock()
    runner = make_runner(lucene, MaintenanceConfig(
        interval_ms=HOUR, consolidation=Consolidation(threshold=0.95)), clock)
    do(runner, "k", lambda c: c.memory.add("walks the dog"))
    runner.fire_timers(T0 + HOUR)
    clock.now = T0 + 2 * HOUR
    do(runner, "k", lambda c: c.memory.add("Walks the dog."))
    assert runner.fire_timers(T0 + 3 * HOUR) == ["k"]
    assert texts(runner, "k") == ["Walks the dog."]


def test_the_llm_merges_a_group_under_one_of_its_ids(lucene):
    clock = Clock()
    with ScriptedLLMServer() as server:
        llm = OpenAICompatibleLLM(server.url, "m", retries=0)
        runner = make_runner(lucene, MaintenanceConfig(
            interval_ms=HOUR, consolidation=Consolidation(threshold=0.95)), clock, llm=llm)
        a = do(runner, "k", lambda c: c.memory.add("Bob drinks tea"))
        clock.now += 1
        b = do(runner, "k", lambda c: c.memory.add("bob drinks TEA"))
        server.replies.append(json.dumps({"keep": "1", "memory": "Bob drinks tea daily"}))
        runner.fire_timers(T0 + HOUR)
        shown = json.loads(server.requests[-1]["messages"][1]["content"])["memories"]
    assert [m["id"] for m in shown] == ["0", "1"]
    survivor = b if shown[1]["text"] == "bob drinks TEA" else a
    merged = a if survivor == b else b
    assert texts(runner, "k") == ["Bob drinks tea daily"]
    trail = do(runner, "k", lambda c: c.memory.history(survivor))
    assert (trail[-1].event, trail[-1].new_value) == ("UPDATE", "Bob drinks tea daily")
    assert do(runner, "k", lambda c: c.memory.history(merged))[-1].new_value == \
        {"merged_into": survivor}


@pytest.mark.parametrize("reply", [
    "this is not json",
    json.dumps(["keep", "0"]),
    json.dumps({"keep": "7", "memory": "made-up id"}),
    json.dumps({"keep": "c0ffee", "memory": "made-up id"}),
    json.dumps({"keep": "0", "memory": "   "}),
    json.dumps({"keep": "0", "memory": "x" * (256 * 1024 + 1)}),  # over max_memory_bytes
    500,
    "timeout",
])
def test_bad_llm_output_is_a_logged_skip_and_memory_is_unchanged(lucene, caplog, reply):
    clock = Clock()
    with ScriptedLLMServer() as server:
        llm = OpenAICompatibleLLM(server.url, "m", retries=0, timeout_s=0.3)
        runner = make_runner(lucene, MaintenanceConfig(
            interval_ms=HOUR, consolidation=Consolidation(threshold=0.95)), clock, llm=llm)
        do(runner, "k", lambda c: c.memory.add("Carol runs marathons"))
        clock.now += 1
        do(runner, "k", lambda c: c.memory.add("carol runs MARATHONS"))
        before = sorted((m.id, m.memory, json.dumps(m.metadata))
                        for m in do(runner, "k", lambda c: c.memory.get_all()))
        if reply == "timeout":
            server.delay_s = 1.0
        else:
            server.replies.append(reply)
        with caplog.at_level(logging.WARNING, logger="flink_agents_memory"):
            assert runner.fire_timers(T0 + HOUR) == ["k"]
        assert len(server.requests) == 1
    after = sorted((m.id, m.memory, json.dumps(m.metadata))
                   for m in do(runner, "k", lambda c: c.memory.get_all()))
    assert after == before
    assert any("left unmerged" in r.getMessage() for r in caplog.records)
    assert runner.timers == {}, "a skip is not a failure: no retry"


class FailingEmbedder(HashingEmbedder):
    """A real embedder that starts failing when told to (a model server going away)."""

    failing = False

    def embed(self, texts):
        if FailingEmbedder.failing:
            raise RuntimeError("embedding service down")
        return super().embed(texts)


def test_a_failed_pass_is_rolled_back_and_retried_an_interval_later(lucene, caplog):
    clock = Clock()
    runner = make_runner(lucene, MaintenanceConfig(
        interval_ms=HOUR, consolidation=Consolidation(threshold=0.95),
        forgetting=Forgetting(budget=1)), clock, embedder=FailingEmbedder(256))
    do(runner, "k", lambda c: c.memory.add("Dan sails"))
    do(runner, "k", lambda c: c.memory.add("Dan bakes bread"))
    FailingEmbedder.failing = True
    try:
        with caplog.at_level(logging.WARNING, logger="flink_agents_memory"):
            runner.fire_timers(T0 + HOUR)
    finally:
        FailingEmbedder.failing = False
    assert any("failed, retried later" in r.getMessage() for r in caplog.records)
    assert texts(runner, "k") == ["Dan bakes bread", "Dan sails"], "nothing forgotten"
    assert runner.timers == {"k": T0 + 2 * HOUR}
    runner.fire_timers(T0 + 2 * HOUR)
    assert len(texts(runner, "k")) == 1
    assert runner.timers == {}


def test_a_maintenance_clock_other_than_the_agents_is_refused(lucene):
    agent = agent_with(MaintenanceConfig(interval_ms=HOUR, time="event",
                                         forgetting=Forgetting(budget=1)))
    with pytest.raises(ConfigurationError, match="retention_time='processing'"):
        LuceneRunner(agent, lucene, AgentConfig())


def test_synthesis_writes_a_profile_and_rewrites_it_on_later_passes(lucene):
    clock = Clock()
    with ScriptedLLMServer() as server:
        llm = OpenAICompatibleLLM(server.url, "m", retries=0)
        runner = make_runner(lucene, MaintenanceConfig(
            interval_ms=HOUR, synthesis=Synthesis(max_memories=2),
            forgetting=Forgetting(budget=2)), clock, llm=llm)
        for text in ["Eve lives in Oslo", "Eve likes skiing", "Eve is a nurse"]:
            clock.now += 1
            do(runner, "k", lambda c, t=text: c.memory.add(t))
        server.replies.append(json.dumps({"memory": "Eve: a nurse who likes skiing"}))
        assert runner.fire_timers(T0 + HOUR + 1) == ["k"]
        first = json.loads(server.requests[-1]["messages"][1]["content"])
        clock.now = T0 + 2 * HOUR
        do(runner, "k", lambda c: c.memory.add("Eve moved to Bergen"))
        server.replies.append("```json\n" + json.dumps(
            {"memory": "Eve: a nurse in Bergen who likes skiing"}) + "\n```")
        runner.fire_timers(T0 + 3 * HOUR)
        second = json.loads(server.requests[-1]["messages"][1]["content"])
    assert first == {"current": None, "memories": ["Eve is a nurse", "Eve likes skiing"]}
    assert second == {"current": "Eve: a nurse who likes skiing",
                      "memories": ["Eve moved to Bergen", "Eve is a nurse"]}
    profile = do(runner, "k", lambda c: c.memory.get("profile"))
    assert profile.memory == "Eve: a nurse in Bergen who likes skiing"
    assert [(e.event, e.actor) for e in do(runner, "k", lambda c: c.memory.history("profile"))] \
        == [("ADD", "maintenance:synthesis"), ("UPDATE", "maintenance:synthesis")]
    kept = texts(runner, "k")
    assert len(kept) == 3, "the budget of 2 does not count the profile"
    assert "Eve: a nurse in Bergen who likes skiing" in kept


@pytest.mark.parametrize("reply", ["junk", json.dumps({"memory": ""}),
                                   json.dumps({"text": "wrong field"}), 503])
def test_a_bad_synthesis_answer_leaves_the_profile_as_it_was(lucene, caplog, reply):
    clock = Clock()
    with ScriptedLLMServer() as server:
        llm = OpenAICompatibleLLM(server.url, "m", retries=0)
        runner = make_runner(lucene, MaintenanceConfig(interval_ms=HOUR, synthesis=Synthesis()),
                             clock, llm=llm)
        do(runner, "k", lambda c: c.memory.add("Finn plays bass"))
        server.replies.append(json.dumps({"memory": "Finn: a bassist"}))
        runner.fire_timers(T0 + HOUR)
        clock.now = T0 + 2 * HOUR
        do(runner, "k", lambda c: c.memory.add("Finn plays drums too"))
        server.replies.append(reply)
        with caplog.at_level(logging.WARNING, logger="flink_agents_memory"):
            runner.fire_timers(T0 + 3 * HOUR)
    assert do(runner, "k", lambda c: c.memory.get("profile")).memory == "Finn: a bassist"
    assert any("synthesis: memory left unchanged" in r.getMessage() for r in caplog.records)


def test_synthesis_without_an_llm_and_a_config_without_tasks_are_refused(lucene):
    with pytest.raises(ConfigurationError, match="needs an LLM"):
        LuceneRunner(agent_with(MaintenanceConfig(interval_ms=HOUR, synthesis=Synthesis())),
                     lucene)
    with pytest.raises(ValueError, match="runs no task"):
        MaintenanceConfig(interval_ms=HOUR)


class Chatty(Call):
    histories = {"chat": Retention(max_items=100)}


def chatty_runner(lucene, clock, llm=None) -> LuceneRunner:
    agent = Chatty()
    agent.long_term_memory = LongTermMemoryConfig(
        embedder=HashingEmbedder(256), llm=llm, maintenance=MaintenanceConfig(
            interval_ms=HOUR, compression=Compression(history="chat",
                                                      older_than_ms=HOUR - 100)))
    return LuceneRunner(agent, lucene, clock=clock)


def chat(runner, clock, at_ms: int, message) -> None:
    clock.now = at_ms
    do(runner, "k", lambda c: c.named_history("chat").append(message))


def test_old_history_items_are_compressed_into_one_memory_extractively(lucene):
    clock = Clock()
    runner = chatty_runner(lucene, clock)
    chat(runner, clock, T0, {"role": "user", "content": "I adopted a cat named Miso"})
    assert runner.timers == {"k": T0 + HOUR}, "a history append schedules a pass"
    chat(runner, clock, T0 + 10, "ok")
    chat(runner, clock, T0 + 20, {"role": "user", "content": "Miso the cat likes tuna"})
    chat(runner, clock, T0 + HOUR // 2, "what should I cook tonight?")
    assert runner.fire_timers(T0 + HOUR) == ["k"]
    assert do(runner, "k", lambda c: c.named_history("chat").all()) == [
        "what should I cook tonight?"]
    [summary] = do(runner, "k", lambda c: c.memory.get_all())
    assert summary.memory == "user: I adopted a cat named Miso\nok\nuser: Miso the cat likes tuna"
    assert summary.metadata == {"source": "compression", "history": "chat", "items": 3}
    assert [(e.event, e.actor) for e in do(runner, "k", lambda c: c.memory.history(summary.id))] \
        == [("ADD", "maintenance:compression")]
    assert runner.timers == {"k": T0 + 2 * HOUR}, "an item is left: the next pass is due"
    runner.fire_timers(T0 + 2 * HOUR)
    assert do(runner, "k", lambda c: c.named_history("chat").all()) == []
    assert len(do(runner, "k", lambda c: c.memory.get_all())) == 2
    assert runner.timers == {}


def test_the_llm_compresses_and_a_bad_answer_leaves_the_history_as_it_was(lucene, caplog):
    clock = Clock()
    with ScriptedLLMServer() as server:
        runner = chatty_runner(lucene, clock, OpenAICompatibleLLM(server.url, "m", retries=0))
        chat(runner, clock, T0, "I moved to Porto")
        chat(runner, clock, T0 + 1, "I work at a bakery")
        server.replies.append("no json here")
        with caplog.at_level(logging.WARNING, logger="flink_agents_memory"):
            runner.fire_timers(T0 + HOUR + 1)
        assert do(runner, "k", lambda c: c.named_history("chat").all()) == [
            "I moved to Porto", "I work at a bakery"]
        assert do(runner, "k", lambda c: c.memory.get_all()) == []
        assert any("items left in the history" in r.getMessage() for r in caplog.records)
        server.replies.append(json.dumps({"memory": "Lives in Porto, works at a bakery"}))
        runner.fire_timers(T0 + 3 * HOUR)
        asked = json.loads(server.requests[-1]["messages"][1]["content"])
    assert asked == {"items": ["I moved to Porto", "I work at a bakery"]}
    assert do(runner, "k", lambda c: c.named_history("chat").all()) == []
    assert [m.memory for m in do(runner, "k", lambda c: c.memory.get_all())] == [
        "Lives in Porto, works at a bakery"]


def test_compressing_an_undeclared_history_is_refused(lucene):
    agent = agent_with(MaintenanceConfig(
        interval_ms=HOUR, compression=Compression(history="nope", older_than_ms=1)))
    with pytest.raises(ConfigurationError, match="'nope' is not a declared history"):
        LuceneRunner(agent, lucene)


def test_extractive_summary_keeps_the_most_shared_items_in_order_within_max_chars():
    texts = ["the cat eats tuna", "lol", "the cat sleeps", "tuna for the cat", "zzz qqq"]
    assert extractive(texts, 52) == "the cat eats tuna\nthe cat sleeps\ntuna for the cat"
    assert extractive(texts, 500) == "\n".join(texts), "all fit: nothing is left out"
    assert extractive(texts, 18) == "the cat sleeps", "the best; 'lol' does not fill the gap"
    assert extractive(["x" * 80], 50) == "x" * 50


def test_maintenance_leaves_the_ttl_as_it_was(lucene):
    """A merge rewrites the kept memory (metadata, audit) but keeps its expiry, and forgetting
    does not stand in for the TTL: memories still expire ttl_ms after their last write."""
    clock, ttl = Clock(), 10 * HOUR
    agent = agent_with(MaintenanceConfig(interval_ms=HOUR,
                                         consolidation=Consolidation(threshold=0.95),
                                         forgetting=Forgetting(budget=10)))
    agent.long_term_memory = agent.long_term_memory.model_copy(update={"ttl_ms": ttl})
    runner = LuceneRunner(agent, lucene, clock=clock)
    old = do(runner, "k", lambda c: c.memory.add("Alice likes green tea"))
    clock.now += 1
    new = do(runner, "k", lambda c: c.memory.add("alice likes GREEN tea!"))
    clock.now = T0 + 2 * HOUR
    assert runner.fire_timers(T0 + 2 * HOUR) == ["k"]
    kept = do(runner, "k", lambda c: c.memory.get(new))
    assert kept is not None and kept.metadata["merged_from"] == [old]
    clock.now = T0 + 1 + ttl - 1
    assert do(runner, "k", lambda c: c.memory.get(new)) is not None
    clock.now = T0 + 1 + ttl
    assert do(runner, "k", lambda c: c.memory.get(new)) is None, "the merge moved the expiry"
    assert texts(runner, "k") == []
