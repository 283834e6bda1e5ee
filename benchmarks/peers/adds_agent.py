"""Our agent for the real-text add benchmark (importable, so not __main__): MiniLM embeds."""

from __future__ import annotations

import json
import os
import time
from typing import Any

from flink_agents_memory import Agent, InputEvent, LongTermMemoryConfig, MiniLMEmbedder, action

_texts: list[str] = []


def _text(i: int) -> str:
    if not _texts:
        with open(os.environ["BENCH_ADDS_TEXTS"], encoding="utf-8") as f:
            _texts.extend(json.load(f))
    return _texts[i]


def _mark(name: str, **fields: Any) -> None:
    with open(os.path.join(os.environ["BENCH_ADDS_OUT"], f"{name}.json"), "w") as f:
        json.dump({"t": time.perf_counter(), **fields}, f)


class AddsAgent(Agent):
    """``"w|<key>|0|0"`` loads the model (one search); ``"a|<key>|<i>|<n>"`` adds texts
    i..i+n-1 in one run (their commit embeds them in one batch); ``"m|<key>|0|0"``, after
    every add, marks the end with the number of memories key k0 holds. The first add marks
    the start: one source subtask and parallelism 1, so the end mark comes after every add
    committed."""

    long_term_memory = LongTermMemoryConfig(embedder=MiniLMEmbedder())

    @action(InputEvent)
    @staticmethod
    def handle(event: InputEvent, ctx: Any) -> None:
        op, _key, num, count = event.input.split("|")
        if op == "w":
            ctx.memory.search("load the model before anything is timed", limit=1)
            return
        if op == "m":  # key k0: its count shows the adds were stored, not only timed
            _mark("end", k0_memories=len(ctx.memory.get_all(limit=10_000)))
            return
        first = int(num)
        if first == 0:
            _mark("start")
        for i in range(first, first + int(count)):
            ctx.memory.add(_text(i))
