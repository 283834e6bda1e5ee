"""The short-term path's shortcuts behave like the long way round: the run's InputEvent is a
full pydantic model, action calls still reach the metrics, the Java-bound state adapter still
reads and writes."""

from __future__ import annotations

from typing import Any

import pytest

from flink_agents_memory import Agent, AgentConfig, Event, InputEvent, OutputEvent, action
from flink_agents_memory.memory.store import MapStateStore
from flink_agents_memory.metrics import MetricsRecorder
from flink_agents_memory.runtime.executor import RunExecutor
from flink_agents_memory.runtime.local import InMemoryStates
from flink_agents_memory.runtime.runner import input_event
from flink_agents_memory.runtime.wiring import wire_agent


class Sink:
    """Collects what the recorder hands to Java's AgentMetrics."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def count(self, name: str, n: int) -> None:
        self.counts[name] = self.counts.get(name, 0) + n

    def gauge(self, name: str, value: int) -> None:
        pass

    def observe(self, name: str, samples: bytes) -> None:
        pass


class Ping(Event):
    n: int


class Echo(Agent):
    @action(InputEvent)
    @staticmethod
    def start(event: InputEvent, ctx: Any) -> None:
        ctx.get_short_term_memory().set("last", event.input)
        ctx.send_event(Ping(n=1))

    @action(Ping)
    @staticmethod
    def ping(event: Ping, ctx: Any) -> None:
        ctx.send_event(OutputEvent(output=event.n))


@pytest.mark.parametrize("value", ["text", 7, None, {"a": [1, 2]}, b"\x00raw"])
def test_input_event_is_the_validated_model(value):
    fast, slow = input_event(value), InputEvent(input=value)
    assert fast == slow and type(fast) is InputEvent
    assert fast.model_dump() == slow.model_dump()
    assert fast.model_fields_set == {"input"}
    assert fast.model_copy(update={"input": "other"}).input == "other"
    assert fast.input is value  # never copied
    assert repr(fast) == repr(slow)


def executor(metrics: MetricsRecorder) -> tuple[RunExecutor, InMemoryStates]:
    states = InMemoryStates()
    return wire_agent(Echo(), AgentConfig(), states, None, metrics).executor, states


def test_action_calls_reach_the_metrics_sink_at_each_flush():
    sink = Sink()
    metrics = MetricsRecorder(sink, flush_s=3600)
    ex, states = executor(metrics)
    for i in range(5):
        states.set_key(f"k{i % 2}")
        assert ex.execute(i, lambda: "k", 0) == [1]
    metrics.flush()
    assert sink.counts["agent.action.start.calls"] == 5
    assert sink.counts["agent.action.ping.calls"] == 5
    assert sink.counts["agent.runs"] == 5
    ex.execute(9, lambda: "k", 0)
    metrics.flush()  # counted once: the second flush adds only the new run
    assert sink.counts["agent.action.start.calls"] == 6


def test_a_failed_action_is_counted_as_call_and_failure():
    class Boom(Agent):
        @action(InputEvent)
        @staticmethod
        def explode(event: InputEvent, ctx: Any) -> None:
            raise ValueError("no")

    sink = Sink()
    metrics = MetricsRecorder(sink, flush_s=3600)
    ex = wire_agent(Boom(), AgentConfig(on_error="skip"), InMemoryStates(), None,
                    metrics).executor
    assert ex.execute(1, lambda: "k", 0) == []
    metrics.flush()
    assert sink.counts["agent.action.explode.calls"] == 1
    assert sink.counts["agent.action.explode.failures"] == 1


def test_map_state_store_calls_the_state_it_is_given():
    class JavaMap:  # what PyFlink's thread-mode MapState wrapper keeps in ``_state``
        def __init__(self) -> None:
            self.data: dict[str, str] = {}

        def get(self, k: str) -> str | None:
            return self.data.get(k)

        def put(self, k: str, v: str) -> None:
            self.data[k] = v

        def remove(self, k: str) -> None:
            self.data.pop(k, None)

        def putAll(self, values: dict[str, str]) -> None:  # noqa: N802 (Java's name)
            self.data.update(values)

    java = JavaMap()
    store = MapStateStore(java)
    store.put("a", "1")
    assert store.get("a") == "1" and java.data == {"a": "1"}
    store.remove("a")
    assert store.get("a") is None and java.data == {}
    assert store.put_all is not None
    store.put_all({"b": "2", "c": "3"})
    assert java.data == {"b": "2", "c": "3"}
    del JavaMap.putAll
    assert MapStateStore(JavaMap()).put_all is None, "a state without putAll is written put by put"
