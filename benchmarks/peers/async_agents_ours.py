"""The LLM-bound agent for flink_agents_memory: per input, two durable LLM calls awaited off
the task thread, a short-term counter, one output (benchmarks/bench_async.py)."""

from __future__ import annotations

import os
from typing import Any

from flink_agents_memory import Agent, InputEvent, OutputEvent, action

from .llm_call import ask

URL = os.environ.get("BENCH_LLM_URL", "")
CALLS = int(os.environ.get("BENCH_CALLS", "2"))


class AskTwiceAgent(Agent):
    @action(InputEvent)
    @staticmethod
    async def reply(event: InputEvent, ctx: Any) -> None:
        answer = ""
        for n in range(CALLS):
            answer = await ctx.durable_execute_async(ask, URL, f"{event.input}#{n}")
        stm = ctx.get_short_term_memory()
        stm.set("runs", (stm.get("runs") or 0) + 1)
        ctx.send_event(OutputEvent(output=answer))


class SyncNoCallAgent(Agent):
    """The same run with a sync action and no call: the per-record floor async runs add to."""

    @action(InputEvent)
    @staticmethod
    def reply(event: InputEvent, ctx: Any) -> None:
        stm = ctx.get_short_term_memory()
        stm.set("runs", (stm.get("runs") or 0) + 1)
        ctx.send_event(OutputEvent(output=str(event.input)))


class AsyncNoCallAgent(Agent):
    """An async action that makes no call: what the async machinery costs a run by itself."""

    @action(InputEvent)
    @staticmethod
    async def reply(event: InputEvent, ctx: Any) -> None:
        stm = ctx.get_short_term_memory()
        stm.set("runs", (stm.get("runs") or 0) + 1)
        ctx.send_event(OutputEvent(output=str(event.input)))
