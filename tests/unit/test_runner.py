"""The agent loop without Flink: routing, outputs, and each failure mode of a run."""

from __future__ import annotations

import pytest

from flink_agents_memory import (
    ActionFailedError,
    Agent,
    AgentConfig,
    AgentDefinitionError,
    Event,
    InputEvent,
    OutputEvent,
    RunawayRunError,
    UnhandledEventError,
    action,
)
from flink_agents_memory.memory.store import DictStore
from flink_agents_memory.runtime.local import LocalAgentRunner


class Step(Event):
    n: int


class Orphan(Event):
    pass


class Chain(Agent):
    @action(InputEvent)
    @staticmethod
    def start(event, ctx):
        ctx.get_short_term_memory().set("seen", event.input)
        ctx.send_event(Step(n=1))

    @action(Step)
    def step(self, event, ctx):  # instance methods are actions too
        if event.n < 3:
            ctx.send_event(Step(n=event.n + 1))
        ctx.send_event(OutputEvent(output=event.n))


def run(agent, value, config=None, runner=None):
    runner = runner or LocalAgentRunner(agent, config)
    out = runner.run("k", value)
    return out, runner


def stored(runner):
    return runner.states._maps["flink_agents_memory.short_term"].get("k", DictStore()).data


def test_events_flow_until_queue_is_empty():
    out, runner = run(Chain(), "hello")
    assert out == [1, 2, 3]
    assert stored(runner)["seen"] == '\x00"hello"'


def test_unhandled_event_fails_the_run_and_writes_nothing():
    class Bad(Agent):
        @action(InputEvent)
        @staticmethod
        def go(event, ctx):
            ctx.get_short_term_memory().set("x", 1)
            ctx.send_event(Orphan())

    runner = LocalAgentRunner(Bad())
    with pytest.raises(UnhandledEventError, match="Orphan"):
        run(Bad(), 1, runner=runner)
    assert stored(runner) == {}


def test_runaway_loop_is_cut():
    class Loop(Agent):
        @action(InputEvent, Step)
        @staticmethod
        def again(event, ctx):
            ctx.send_event(Step(n=0))

    with pytest.raises(RunawayRunError, match="max_events_per_run=5"):
        run(Loop(), 1, config=AgentConfig(max_events_per_run=5))


def test_action_exception_names_action_and_event():
    class Boom(Agent):
        @action(InputEvent)
        @staticmethod
        def explode(event, ctx):
            ctx.get_short_term_memory().set("x", 1)
            raise ValueError("kaput")

    runner = LocalAgentRunner(Boom())
    with pytest.raises(ActionFailedError) as info:
        run(Boom(), "payload", runner=runner)
    message = str(info.value)
    assert "'explode'" in message and "payload" in message and "kaput" in message
    assert "test_runner.py" in message
    assert stored(runner) == {}


def test_send_event_rejects_non_events():
    class Wrong(Agent):
        @action(InputEvent)
        @staticmethod
        def go(event, ctx):
            ctx.send_event("not an event")

    with pytest.raises(ActionFailedError, match="send_event expects an Event"):
        run(Wrong(), 1)


def test_agent_definition_errors():
    class Empty(Agent):
        pass

    with pytest.raises(AgentDefinitionError, match="no @action"):
        Empty().get_actions()
    with pytest.raises(AgentDefinitionError):
        action(str)
    with pytest.raises(AgentDefinitionError):
        action()

    class WrongArity(Agent):
        @action(InputEvent)
        @staticmethod
        def go(event):
            pass

    with pytest.raises(AgentDefinitionError, match="must accept"):
        WrongArity().get_actions()


def test_config_rejects_bad_values():
    with pytest.raises(ValueError):
        AgentConfig(max_events_per_run=0)
    with pytest.raises(ValueError):
        AgentConfig(unknown_setting=1)
