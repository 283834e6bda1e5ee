"""The same agent for Apache Flink Agents (runs in the flink-agents venv only).

Works with the releases on PyPI: 0.2.x routes actions by event class (``@action(InputEvent)``),
0.3.x by type name (``@action(InputEvent.EVENT_TYPE)``). Short-term memory is the
``ctx.short_term_memory`` property in both (checked on 0.2.0); ``get_short_term_memory()`` is
used where a release has that method instead.

Its actions are static and found by module name, so k comes from the environment
(``BENCH_K``, set before the JVM starts; the embedded interpreter inherits it).
"""

from __future__ import annotations

import os
from typing import Any

from flink_agents.api.agents.agent import Agent
from flink_agents.api.decorators import action
from flink_agents.api.events.event import Event, InputEvent
from flink_agents.api.runner_context import RunnerContext

from . import latency

FIELDS = [f"f{i}" for i in range(10)][: int(os.environ.get("BENCH_K", "3"))]

#: What the installed release listens with: a type name (0.3) or the event class (0.2).
_LISTENS: Any = getattr(InputEvent, "EVENT_TYPE", InputEvent)
_STM_PROPERTY = isinstance(getattr(RunnerContext, "short_term_memory", None), property)


def short_term_memory(ctx: RunnerContext) -> Any:
    """The run's short-term memory under either API."""
    return ctx.short_term_memory if _STM_PROPERTY else ctx.get_short_term_memory()


class KOpsAgent(Agent):
    @action(_LISTENS)
    @staticmethod
    def touch(event: Event, ctx: RunnerContext) -> None:
        t0 = latency.start()
        stm = short_term_memory(ctx)
        for name in FIELDS:
            stm.set(name, (stm.get(name) or 0) + 1)
        latency.stop(t0)
