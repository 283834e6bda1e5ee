"""Bad input thrown at the public API (hypothesis): every failed run is a clear error and the
memory of that key and of every other key is exactly as before — short-term, histories and
long-term memory on the real Lucene index."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lucene_store import LuceneRunner, LuceneStore

from flink_agents_memory import (
    Agent,
    AgentConfig,
    Event,
    FlinkAgentsMemoryError,
    InputEvent,
    MemoryItem,
    OutputEvent,
    action,
)
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.memory.retention import Retention
from flink_agents_memory.models import HashingEmbedder
from flink_agents_memory.runtime.executor import DeadLetter

KEYS = ["alice", "bob", "carol"]


class Unlistened(Event):
    pass


class WrongDimension:
    """An embedder whose vectors do not have the dimension it announces."""

    dim = 32

    def embed(self, texts):
        return np.ones((len(texts), 16), dtype=np.float32) / 4


class Fuzzed(Agent):
    histories = {"chat": Retention(max_items=5, max_bytes=400)}
    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(32))

    @action(InputEvent)
    @staticmethod
    def run(event, ctx):
        valid, bad = event.input
        if valid:  # writes of every kind first: the failure must undo all of them
            stm = ctx.get_short_term_memory()
            stm.set("profile.visits", (stm.get("profile.visits") or 0) + 1)
            ctx.history("chat").append(f"message {stm.get('profile.visits')}")
            ctx.memory.add(f"fact number {stm.get('profile.visits')} of {ctx.key}")
        result = bad(ctx) if bad else None
        ctx.send_event(OutputEvent(output=result))


class WrongDimensionAgent(Fuzzed):
    long_term_memory = LongTermMemoryConfig(embedder=WrongDimension())


def raise_in_action(ctx):
    raise RuntimeError("the action itself fails")


BAD = {
    "empty path": lambda ctx: ctx.get_short_term_memory().set("", 1),
    "empty segment": lambda ctx: ctx.get_short_term_memory().set("a..b", 1),
    "non-str path": lambda ctx: ctx.get_short_term_memory().get(5),
    "under a primitive": lambda ctx: ctx.get_short_term_memory().set("profile.visits.x", 1),
    "huge value": lambda ctx: ctx.get_short_term_memory().set("big", "x" * 5000),
    "unsupported type": lambda ctx: ctx.get_short_term_memory().set("obj", object()),
    "int dict keys": lambda ctx: ctx.get_short_term_memory().set("d", {1: 2}),
    "nan": lambda ctx: ctx.get_short_term_memory().set("f", float("nan")),
    "unknown history": lambda ctx: ctx.history("nope").append(1),
    "history item too big": lambda ctx: ctx.history("chat").append("y" * 1000),
    "negative n": lambda ctx: ctx.history("chat").get_recent(-1),
    "unknown event type": lambda ctx: ctx.send_event(Unlistened()),
    "not an event": lambda ctx: ctx.send_event({"not": "an event"}),
    "action raises": raise_in_action,
    "non-JSON metadata": lambda ctx: ctx.memory.add(MemoryItem(memory="m",
                                                                metadata={"x": object()})),
    "NaN metadata": lambda ctx: ctx.memory.add(MemoryItem(memory="m",
                                                           metadata={"x": float("nan")})),
    "empty memory": lambda ctx: ctx.memory.add("   "),
    "unknown memory id": lambda ctx: ctx.memory.update("no-such-id", "x"),
    "bad search mode": lambda ctx: ctx.memory.search("x", mode="semantic"),
    "bad filter operator": lambda ctx: ctx.memory.search("x", filters={"a": {"near": 1}}),
}


def snapshot(runner: LuceneRunner) -> dict:
    """Every key's memory, read through a read-only run."""

    def read(ctx):
        stm = ctx.get_short_term_memory()
        return {"visits": stm.get("profile.visits"), "fields": stm.get_field_names(),
                "chat": ctx.history("chat").all(),
                "ltm": sorted((m.id, m.memory) for m in ctx.memory.get_all(limit=1000)),
                "recent": [m.memory for m in ctx.memory.get_history(100)]}

    return {key: runner.run(key, (False, read))[0] for key in KEYS}


@pytest.mark.parametrize("policy", ["fail", "dead_letter"])
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(ops=st.lists(st.tuples(st.sampled_from(KEYS), st.sampled_from(sorted(BAD))),
                    min_size=1, max_size=6))
def test_failed_runs_leave_every_key_as_it_was(tmp_path_factory, policy, ops):
    lucene = LuceneStore(tmp_path_factory.mktemp("fuzz"))
    runner = LuceneRunner(Fuzzed(), lucene, AgentConfig(max_value_bytes=1000, on_error=policy))
    try:
        for key in KEYS:
            runner.run(key, (True, None))
        for key, name in ops:
            before = snapshot(runner)
            if policy == "fail":
                with pytest.raises(FlinkAgentsMemoryError):
                    runner.run(key, (True, BAD[name]))
            else:
                letter = runner.run(key, (True, BAD[name]))[0]
                assert isinstance(letter, DeadLetter) and letter.key == key and letter.error
            assert snapshot(runner) == before, name
            runner.run(key, (True, None))  # the key still works afterwards
    finally:
        lucene.close()


def test_wrong_embedder_dimension_is_clear_and_stores_nothing(tmp_path):
    lucene = LuceneStore(tmp_path / "index")
    try:
        good = LuceneRunner(Fuzzed(), lucene)
        good.run("alice", (True, None))
        before = snapshot(good)
        bad = LuceneRunner(WrongDimensionAgent(), lucene)
        with pytest.raises(FlinkAgentsMemoryError, match="returned shape"):
            bad.run("bob", (True, None))
        assert snapshot(good) == before
    finally:
        lucene.close()
