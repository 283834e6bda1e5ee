"""Paths into long-term memory on the real Lucene index that other tests leave out: items
moved there by history and list retention, the short-term audit trail, min_score, and the
self-explaining names next to the designs' aliases."""

from __future__ import annotations

import pytest
from lucene_store import LuceneRunner

from flink_agents_memory import (
    Agent,
    AgentConfig,
    HashingEmbedder,
    InputEvent,
    LongTermMemoryConfig,
    OutputEvent,
    Retention,
    action,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        self.now += 1
        return self.now


class Call(Agent):
    """Runs the callable given as input against ctx, and outputs its result."""

    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(64))
    histories = {"chat": Retention(max_items=2, slack=0, on_overflow="move_to_long_term")}
    short_term_retention = {"conv.messages": Retention(max_items=2,
                                                       on_overflow="move_to_long_term")}

    @action(InputEvent)
    @staticmethod
    def call(event, ctx):
        ctx.send_event(OutputEvent(output=event.input(ctx)))


def do(runner: LuceneRunner, key: str, fn):
    return runner.run(key, fn)[0]


@pytest.fixture
def runner(lucene):
    return LuceneRunner(Call(), lucene, AgentConfig(audit_short_term=True), clock=Clock())


def test_history_overflow_moves_items_to_long_term_memory(runner):
    for text in ["the sky is blue", "grass is green", "snow is white"]:
        do(runner, "k", lambda c, t=text: c.named_history("chat").append(t))
    assert do(runner, "k", lambda c: c.history("chat").all()) == ["grass is green",
                                                                  "snow is white"]
    moved = do(runner, "k", lambda c: c.memory.get_all())
    assert [(m.memory, m.metadata) for m in moved] == [
        ("the sky is blue", {"source": "history", "history": "chat"})]
    hits = do(runner, "k", lambda c: c.memory.search("sky blue", mode="keyword"))
    assert [h.memory for h in hits] == ["the sky is blue"]
    # commit phases in order: the eviction (1) became an add (2) whose audit event and recent
    # entry reached the built-in histories (3) in the same commit
    assert [m.memory for m in do(runner, "k", lambda c: c.memory.recent_memories(5))] == [
        "the sky is blue"]
    events = do(runner, "k", lambda c, i=moved[0].id: c.memory.audit_trail(i))
    assert [(e.event, e.new_value) for e in events] == [("ADD", "the sky is blue")]
    assert do(runner, "other", lambda c: c.memory.get_all()) == []    # only its key's


def test_list_overflow_moves_items_to_long_term_memory(runner):
    def add(text):
        def fn(c):
            stm = c.get_short_term_memory()
            stm.set("conv.messages", [*(stm.get("conv.messages") or []), text])
            return stm.get("conv.messages")
        return fn

    outputs = [do(runner, "k", add(t)) for t in ["one", "two", "three", "four"]]
    assert outputs[-1] == ["three", "four"]
    moved = sorted((m.memory, m.metadata["path"], m.metadata["source"])
                   for m in do(runner, "k", lambda c: c.memory.get_all()))
    assert moved == [("one", "conv.messages", "short_term"),
                     ("two", "conv.messages", "short_term")]
    # the moved items are the key's most recent memories
    recent = do(runner, "k", lambda c: [m.memory for m in c.memory.recent_memories(5)])
    assert recent == ["one", "two"]


def test_a_failed_run_moves_nothing(runner):
    do(runner, "k", lambda c: c.get_short_term_memory().set("conv.messages", ["a", "b"]))

    def overflow_then_fail(c):
        c.get_short_term_memory().set("conv.messages", ["a", "b", "c"])
        raise RuntimeError("boom")

    with pytest.raises(Exception, match="boom"):
        runner.run("k", overflow_then_fail)
    assert do(runner, "k", lambda c: c.memory.get_all()) == []
    assert do(runner, "k", lambda c: c.get_short_term_memory().get("conv.messages")) == ["a",
                                                                                         "b"]


def test_short_term_changes_are_audited(runner):
    do(runner, "k", lambda c: c.get_short_term_memory().set("profile.name", "Ann"))
    do(runner, "k", lambda c: c.get_short_term_memory().set("profile.name", "Anna"))
    do(runner, "k", lambda c: c.get_short_term_memory().delete("profile.name"))
    events = do(runner, "k", lambda c: c.memory.audit_trail("stm:profile.name"))
    assert [(e.event, e.old_value, e.new_value, e.actor) for e in events] == [
        ("ADD", None, "Ann", "call"), ("UPDATE", "Ann", "Anna", "call"),
        ("DELETE", "Anna", None, "call")]
    assert do(runner, "k", lambda c: c.memory.history("stm:profile.name")) == events
    assert do(runner, "other", lambda c: c.memory.audit_trail("stm:profile.name")) == []


def test_short_term_audit_is_off_by_default(lucene):
    quiet = LuceneRunner(Call(), lucene, clock=Clock())
    do(quiet, "k", lambda c: c.get_short_term_memory().set("profile.name", "Ann"))
    assert do(quiet, "k", lambda c: c.memory.audit_trail("stm:profile.name")) == []


def test_min_score_keeps_only_hits_at_or_above_it(runner):
    for text in ["green tea in the morning", "green tea and black tea", "my dog is called Rex"]:
        do(runner, "k", lambda c, t=text: c.memory.add(t))
    for mode in ("vector", "keyword", "hybrid"):
        hits = do(runner, "k", lambda c, m=mode: c.memory.search("green tea", mode=m))
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True) and len(scores) >= 2, mode
        cut = scores[1]
        kept = do(runner, "k", lambda c, m=mode, s=cut: c.memory.search(
            "green tea", mode=m, min_score=s))
        assert [h.id for h in kept] == [h.id for h in hits if h.score >= cut], mode
        none = do(runner, "k", lambda c, m=mode, s=scores[0]: c.memory.search(
            "green tea", mode=m, min_score=s + 1.0))
        assert none == [], mode


def test_recent_memories_and_get_history_are_the_same(runner):
    for text in ["a fact", "another fact"]:
        do(runner, "k", lambda c, t=text: c.memory.add(t))
    assert do(runner, "k", lambda c: c.memory.recent_memories(5)) == do(
        runner, "k", lambda c: c.memory.get_history(5))
