"""Agents with async actions for the runs-in-flight tests: each run asks a loopback LLM."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flink_agents_memory import Agent, InputEvent, LongTermMemoryConfig, OutputEvent, action
from flink_agents_memory.models import HashingEmbedder, OpenAIEmbedder
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
        ctx.send_event(OutputEvent(output=f"{key}|{i}|{','.join(map(str, seen))}|{answer}"))


class FailingAskingAgent(AskingAgent):
    """AskingAgent that fails one run (once, marked by a file) once a checkpoint of the job
    has completed and its input is ``fail_from`` or later: the job restores with runs in flight."""

    def __init__(self, url: str, calls: int, checkpoint_dir: str, marker: str,
                 fail_from: int) -> None:
        super().__init__(url, calls)
        self.checkpoint_dir = checkpoint_dir
        self.marker = marker
        self.fail_from = fail_from

    @action(InputEvent)
    async def handle(self, event: InputEvent, ctx: Any) -> None:
        await AskingAgent.handle(self, event, ctx)
        i = int(str(event.input).split("|")[1])
        if i >= self.fail_from and not Path(self.marker).exists() and any(
                Path(self.checkpoint_dir).glob("*/chk-*/_metadata")):
            Path(self.marker).write_text(str(i))
            raise RuntimeError(f"injected failure at {i}")


class RememberingAgent(Agent):
    """Per input ``"k|i"``: ``await ctx.memory.add_messages_async`` (two LLM calls), then emit
    ``"k|i|<the key's memories>"``."""

    def __init__(self, url: str) -> None:
        self.long_term_memory = LongTermMemoryConfig(
            embedder=HashingEmbedder(64), llm=OpenAICompatibleLLM(url, "scripted", retries=0))

    @action(InputEvent)
    async def handle(self, event: InputEvent, ctx: Any) -> None:
        key, i = str(event.input).split("|")
        await ctx.memory.add_messages_async(f"my number is {i}")
        texts = sorted(m.memory for m in ctx.memory.get_all())
        ctx.send_event(OutputEvent(output=f"{key}|{i}|{';'.join(texts)}"))


class ClientsAgent(Agent):
    """Per input ``"k|i"``: the package's LLM client and HTTP embedder, awaited; emits
    ``"k|i|<answer>|<embedding dimension>"``."""

    def __init__(self, url: str) -> None:
        self.url = url

    @action(InputEvent)
    async def handle(self, event: InputEvent, ctx: Any) -> None:
        llm = OpenAICompatibleLLM(self.url, "scripted", retries=0)
        embedder = OpenAIEmbedder(self.url, "scripted", dim=4, retries=0)
        answer = await llm.complete_async([{"role": "user", "content": str(event.input)}])
        vectors = await embedder.embed_async([answer])
        ctx.send_event(OutputEvent(output=f"{event.input}|{answer}|{vectors.shape[1]}"))
