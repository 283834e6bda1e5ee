"""Agents with async actions for the runs-in-flight tests: each run asks a loopback LLM."""

from __future__ import annotations

from typing import Any

from flink_agents_memory import Agent, InputEvent, OutputEvent, action
from flink_agents_memory.models.llm import OpenAICompatibleLLM


def ask(url: str, text: str) -> str:
    """One chat completion on the loopback server (a real HTTP call)."""
    llm = OpenAICompatibleLLM(url, "scripted", retries=0, timeout_s=30)
    return llm.complete([{"role": "user", "content": text}])


class AskingAgent(Agent):
    """Per input ``"k|i"``: read the key's list of seen inputs, await ``calls`` durable LLM
    calls, append ``i`` and emit ``"k|i|<seen before>|<answer>"``."""

    def __init__(self, url: str, calls: int = 1) -> None:
        self.url = url
        self.calls = calls

    @action(InputEvent)
    async def handle(self, event: InputEvent, ctx: Any) -> None:
        key, i = str(event.input).split("|")
        stm = ctx.get_short_term_memory()
        seen = stm.get("seen") or []
        answer = ""
        for n in range(self.calls):
            answer = await ctx.durable_execute_async(ask, self.url, f"{key}|{i}|{n}")
        stm.set("seen", [*seen, int(i)])
        ctx.send_event(OutputEvent(output=f"{key}|{i}|{len(seen)}|{answer}"))
