"""on_error policies on a MiniCluster: skip and dead_letter keep the job running and leave the
failed run's memory untouched; the dead-letter side output carries input, error and action."""

from __future__ import annotations

import json

import jobs
from pyflink.common import Types

from flink_agents_memory import (
    Agent,
    AgentConfig,
    AgentsExecutionEnvironment,
    ConfigurationError,
    InputEvent,
    OutputEvent,
    action,
)


class Fragile(Agent):
    @action(InputEvent)
    @staticmethod
    def count(event, ctx):
        key, payload = event.input.split("|")
        stm = ctx.get_short_term_memory()
        stm.set("count", (stm.get("count") or 0) + 1)
        if payload == "bad":
            raise ValueError(f"cannot handle {event.input}")
        ctx.send_event(OutputEvent(output=f"{key}:{stm.get('count')}"))


INPUTS = ["a|1", "a|bad", "b|1", "a|2", "b|bad", "b|2"]


def test_skip_policy_drops_the_failed_run_and_its_writes():
    outputs = jobs.run_agent(Fragile(), INPUTS, env=jobs.make_env(parallelism=1),
                             config=AgentConfig(on_error="skip"))
    assert sorted(outputs) == ["a:1", "a:2", "b:1", "b:2"]


def test_dead_letter_policy_emits_failed_runs_on_the_side_output():
    env = jobs.make_env(parallelism=1)
    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = env.from_collection(INPUTS, type_info=Types.STRING())
    builder = agents_env.from_datastream(ds, jobs.key_of).apply(
        Fragile(), AgentConfig(on_error="dead_letter"))
    main = builder.to_datastream(Types.STRING())
    tagged = main.map(lambda s: f"out:{s}", output_type=Types.STRING()).union(
        builder.dead_letters().map(lambda s: f"dead:{s}", output_type=Types.STRING()))
    with tagged.execute_and_collect() as results:
        collected = list(results)
    outs = sorted(c[4:] for c in collected if c.startswith("out:"))
    dead = [json.loads(c[5:]) for c in collected if c.startswith("dead:")]
    assert outs == ["a:1", "a:2", "b:1", "b:2"]
    assert sorted(d["input"] for d in dead) == ["a|bad", "b|bad"]
    for letter in dead:
        assert letter["action"] == "count" and letter["error_type"] == "ActionFailedError"
        assert "cannot handle" in letter["error"] and letter["key"] == letter["input"][0]


def test_dead_letters_need_the_policy():
    env = jobs.make_env(parallelism=1)
    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    builder = agents_env.from_datastream(
        env.from_collection(INPUTS, type_info=Types.STRING()), jobs.key_of).apply(Fragile())
    builder.to_datastream(Types.STRING())
    try:
        builder.dead_letters()
    except ConfigurationError as e:
        assert "on_error='dead_letter'" in str(e)
    else:
        raise AssertionError("expected ConfigurationError")


def test_python_operators_built_before_thread_mode_are_rejected():
    from pyflink.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    early = env.from_collection(INPUTS, type_info=Types.STRING()).map(
        lambda s: s, output_type=Types.STRING())
    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    try:
        agents_env.from_datastream(early, jobs.key_of)
    except ConfigurationError as e:
        assert "process mode" in str(e) and "Map" in str(e)
    else:
        raise AssertionError("expected ConfigurationError")
