"""MemoryAgentOperator hands each element to PyFlink's Python operation in one call
(DirectEntry), and what a job emits is what PyFlink's own path would: outputs, a Python map
after the agent, and the dead-letter side output."""

from __future__ import annotations

import inspect
import json

import jobs
from pyflink.common import Types

from flink_agents_memory import (
    Agent,
    AgentConfig,
    AgentsExecutionEnvironment,
    InputEvent,
    OutputEvent,
    action,
)


def _through_direct_entry() -> bool:
    return any(frame.function == "process_element" and frame.filename.endswith("bridge.py")
               for frame in inspect.stack())


class Echo(Agent):
    @action(InputEvent)
    @staticmethod
    def echo(event, ctx):
        key, payload = event.input.split("|")
        if payload == "bad":
            raise ValueError(f"cannot handle {event.input}")
        ctx.send_event(OutputEvent(output=f"{key}:{payload}:{_through_direct_entry()}"))


def test_every_element_goes_through_the_direct_entry():
    outputs = jobs.run_agent(Echo(), ["a|1", "b|2", "a|3"], env=jobs.make_env(parallelism=1))
    assert sorted(outputs) == ["a:1:True", "a:3:True", "b:2:True"]


def test_a_python_map_after_the_agent_and_dead_letters_come_out_as_before():
    env = jobs.make_env(parallelism=1)
    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = env.from_collection(["a|1", "a|bad", "b|2"], type_info=Types.STRING())
    builder = agents_env.from_datastream(ds, lambda v: v.split("|")[0]).apply(
        Echo(), AgentConfig(on_error="dead_letter"))
    mapped = builder.to_datastream(Types.STRING()).map(lambda s: s.upper(), Types.STRING())
    letters = builder.dead_letters()
    with mapped.union(letters).execute_and_collect() as results:
        collected = list(results)
    outputs = sorted(r for r in collected if not r.startswith("{"))
    dead = [json.loads(r) for r in collected if r.startswith("{")]
    assert outputs == ["A:1:TRUE", "B:2:TRUE"]
    assert [(d["input"], d["error_type"], d["action"]) for d in dead] == [
        ("a|bad", "ActionFailedError", "echo")]
