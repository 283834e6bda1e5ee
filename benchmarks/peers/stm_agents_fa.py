"""The same agent for Apache Flink Agents (runs in the flink-agents venv only).

Its actions are static and found by module name, so k comes from the environment
(``BENCH_K``, set before the JVM starts; the embedded interpreter inherits it).
"""

from __future__ import annotations

import os

from flink_agents.api.agents.agent import Agent
from flink_agents.api.decorators import action
from flink_agents.api.events.event import Event, InputEvent
from flink_agents.api.runner_context import RunnerContext

from . import latency

FIELDS = [f"f{i}" for i in range(10)][: int(os.environ.get("BENCH_K", "3"))]


class KOpsAgent(Agent):
    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    def touch(event: Event, ctx: RunnerContext) -> None:
        t0 = latency.start()
        stm = ctx.short_term_memory
        for name in FIELDS:
            stm.set(name, (stm.get(name) or 0) + 1)
        latency.stop(t0)
