"""Retention on list fields of short-term memory: drop oldest, reducer, move to long-term
memory; declared on the agent, applied by every ``set`` of a matching path."""

from __future__ import annotations

import pytest

from flink_agents_memory import (
    ActionFailedError,
    Agent,
    AgentDefinitionError,
    InputEvent,
    OutputEvent,
    Retention,
    action,
)
from flink_agents_memory.memory.list_retention import ListRetention
from flink_agents_memory.runtime.local import LocalAgentRunner


class Chat(Agent):
    """Appends the input to conv.messages (or sessions.<s>.messages for "s:text")."""

    short_term_retention = {
        "conv.messages": Retention(max_items=3),
        "sessions.*.messages": Retention(max_bytes=20),
    }

    @action(InputEvent)
    @staticmethod
    def add(event, ctx):
        stm = ctx.get_short_term_memory()
        session, _, text = event.input.rpartition(":")
        path = f"sessions.{session}.messages" if session else "conv.messages"
        messages = stm.get(path) or []
        stm.set(path, (*messages, text))      # a tuple is a list too
        ctx.send_event(OutputEvent(output=stm.get(path)))


def test_drop_oldest_by_items_and_by_bytes_with_a_pattern():
    runner = LocalAgentRunner(Chat())
    outputs = [runner.run("k", m)[0] for m in ["a", "b", "c", "d", "e"]]
    assert outputs[-1] == ["c", "d", "e"]
    # '"aaaaaa"' is 8 bytes encoded: two fit in 20, three do not
    outputs = [runner.run("k", f"s1:{w}")[0] for w in ["aaaaaa", "bbbbbb", "cccccc"]]
    assert outputs == [["aaaaaa"], ["aaaaaa", "bbbbbb"], ["bbbbbb", "cccccc"]]
    assert runner.run("k", "s2:x")[0] == ["x"]          # another session, its own list
    assert runner.run("other", "z")[0] == ["z"]         # another key, its own list


def test_paths_without_a_rule_keep_everything():
    rules = ListRetention({"a.b": Retention(max_items=1)})
    assert rules.apply("a.c", [1, 2, 3]) == [1, 2, 3]
    assert rules.apply("a.b.c", [1, 2, 3]) == [1, 2, 3]
    assert rules.apply("a.b", [1, 2, 3]) == [3]


def test_reducer_replaces_the_evicted_items():
    calls = []

    def summarise(evicted):
        calls.append(list(evicted))
        return [f"summary of {len(evicted)}"]

    class Summarised(Chat):
        short_term_retention = {"conv.messages": Retention(max_items=3, on_overflow=summarise)}

    runner = LocalAgentRunner(Summarised())
    outputs = [runner.run("k", m)[0] for m in ["a", "b", "c", "d", "e"]]
    # "a" evicted; its summary leaves room for two kept items, so "b" is reduced too
    assert outputs[3] == ["summary of 2", "c", "d"]
    # the summary itself is the oldest item next time, and is reduced with the next one
    assert outputs[4] == ["summary of 2", "d", "e"]
    assert calls == [["a"], ["a", "b"], ["summary of 2"], ["summary of 2", "c"]]


def test_reducer_result_that_crowds_out_kept_items_reduces_them_too():
    def keep_two(evicted):
        return [f"s{len(evicted)}a", f"s{len(evicted)}b"]

    rules = ListRetention({"l": Retention(max_items=3, on_overflow=keep_two)})
    # 5 items, keep 3 -> evict 2 -> two replacements leave room for 1 kept item
    assert rules.apply("l", [1, 2, 3, 4, 5]) == ["s4a", "s4b", 5]


class Failing(Chat):
    short_term_retention = {"conv.messages": Retention(
        max_items=1, on_overflow=lambda evicted: 1 / 0)}


def test_failing_reducer_fails_the_run_and_writes_nothing():
    runner = LocalAgentRunner(Failing())
    assert runner.run("k", "a")[0] == ["a"]
    with pytest.raises(ActionFailedError, match="reducer of list 'conv.messages' failed on 1 "
                                                "evicted items: ZeroDivisionError"):
        runner.run("k", "b")
    runner.states.set_key("k")
    assert runner.ctx.get_short_term_memory().get("conv.messages") == ["a"]


@pytest.mark.parametrize("reducer, message", [
    (lambda evicted: "not a list", "must return a list of items or None, got str"),
    (lambda evicted: ["x"] * 5, "returned 5 items that do not fit"),
])
def test_bad_reducer_results_are_clear(reducer, message):
    rules = ListRetention({"l": Retention(max_items=2, on_overflow=reducer)})
    with pytest.raises(ValueError, match=message):
        rules.apply("l", [1, 2, 3])


def test_reducer_returning_none_drops_the_evicted():
    rules = ListRetention({"l": Retention(max_items=2, on_overflow=lambda evicted: None)})
    assert rules.apply("l", [1, 2, 3]) == [2, 3]


def test_an_item_over_the_limit_on_its_own_is_rejected():
    rules = ListRetention({"l": Retention(max_bytes=5)})
    with pytest.raises(ValueError, match="item of 12 bytes is over max_bytes=5 of list 'l'"):
        rules.apply("l", ["a", "0123456789"])


def test_token_limit():
    rules = ListRetention({"l": Retention(max_tokens=4)})
    assert rules.apply("l", ["one two", "three four", "five"]) == ["three four", "five"]


def test_move_to_long_term_needs_long_term_memory():
    class Moving(Chat):
        short_term_retention = {"conv.messages": Retention(max_items=1,
                                                           on_overflow="move_to_long_term")}

    runner = LocalAgentRunner(Moving())          # no Lucene store: no long-term memory
    runner.run("k", "a")
    with pytest.raises(ActionFailedError, match="list 'conv.messages' moves evicted items to "
                                                "long-term memory, which is not available"):
        runner.run("k", "b")


@pytest.mark.parametrize("rules, message", [
    ({"conv..messages": Retention(max_items=1)}, "empty segments"),
    ({"": Retention(max_items=1)}, "empty segments"),
    ({"conv.messages": {"max_items": 1}}, "must map to a Retention"),
    ({"conv.messages": Retention(ttl_ms=10)}, "ttl_ms cannot apply"),
])
def test_bad_declarations_fail_when_the_job_is_built(rules, message):
    class Bad(Chat):
        short_term_retention = rules

    with pytest.raises(AgentDefinitionError, match=message):
        Bad().validate()
