"""The LLM-bound agent for Apache Flink Agents 0.2 (runs in the flink-agents venv only): the
same two LLM calls per input through its ``durable_execute_async``, the same short-term
counter, one output (benchmarks/bench_async.py)."""

from __future__ import annotations

import os
from typing import Any

from flink_agents.api.agents.agent import Agent
from flink_agents.api.core_options import AgentExecutionOptions
from flink_agents.api.decorators import action
from flink_agents.api.events.event import Event, InputEvent, OutputEvent
from flink_agents.api.runner_context import RunnerContext

from .llm_call import ask
from .stm_agents_fa import short_term_memory

URL = os.environ.get("BENCH_LLM_URL", "")
CALLS = int(os.environ.get("BENCH_CALLS", "2"))
_LISTENS: Any = getattr(InputEvent, "EVENT_TYPE", InputEvent)


def configure(agents_env: Any, limit: int) -> None:
    """Its in-flight limit: the thread pool its async calls run on."""
    agents_env.get_config().set(AgentExecutionOptions.NUM_ASYNC_THREADS, limit)


class AskTwiceAgent(Agent):
    @action(_LISTENS)
    @staticmethod
    async def reply(event: Event, ctx: RunnerContext) -> None:
        answer = ""
        for n in range(CALLS):
            answer = await ctx.durable_execute_async(ask, URL, f"{event.input}#{n}")
        stm = short_term_memory(ctx)
        stm.set("runs", (stm.get("runs") or 0) + 1)
        ctx.send_event(OutputEvent(output=answer))
