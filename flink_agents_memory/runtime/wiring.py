"""Wires one agent for runs: context, memory runtime, agent loop and executor, in one place
for both hosts (the Flink function and the local runner), so they cannot drift apart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..agent import Agent
from ..jvm import LongTermMemoryStore
from ..metrics import MetricsRecorder
from .config import AgentConfig
from .executor import RunExecutor
from .memory_runtime import MemoryRuntime, StateFactory
from .run_context import Durability, RunContext
from .run_scope import RunScope
from .runner import AgentRunner


@dataclass(frozen=True)
class WiredAgent:
    """What a host keeps: the context (for inspection and maintenance), the executor (to run),
    and a maker of further contexts, one per run in flight for an agent with async actions."""

    ctx: RunContext
    executor: RunExecutor
    new_context: Callable[[], RunContext]
    durability: Durability


def wire_agent(agent: Agent, config: AgentConfig, states: StateFactory,
               store: LongTermMemoryStore | None, metrics: MetricsRecorder) -> WiredAgent:
    """Check the agent's actions and build everything one of its runs needs."""
    runner = AgentRunner(agent.validate(), config, metrics)
    durability = Durability()

    def new_context() -> RunContext:
        runtime = MemoryRuntime(agent, config, states, store, RunScope(), metrics)
        return RunContext(runtime, durability)

    ctx = new_context()
    return WiredAgent(ctx, RunExecutor(runner, ctx, config, metrics), new_context, durability)
