"""The k-reads-k-writes agent of the peer comparison, for flink_agents_memory."""

from __future__ import annotations

from typing import Any

from flink_agents_memory import Agent, InputEvent, action

from . import latency

FIELDS = [f"f{i}" for i in range(10)]


class KOpsAgent(Agent):
    """k short-term memory reads and k writes per event (k from the instance, pickled)."""

    def __init__(self, k: int) -> None:
        self.k = k

    @action(InputEvent)
    def touch(self, event: InputEvent, ctx: Any) -> None:
        t0 = latency.start()
        stm = ctx.get_short_term_memory()
        for name in FIELDS[: self.k]:
            stm.set(name, (stm.get(name) or 0) + 1)
        latency.stop(t0)
