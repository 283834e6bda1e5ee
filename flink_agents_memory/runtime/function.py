"""The Python function MemoryAgentOperator hosts: one agent run per input element."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyflink.common.typeinfo import Types
from pyflink.datastream import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import MapStateDescriptor

from ..agent import Agent
from ..memory.serialization import register_type
from ..memory.store import MapStateStore, RunBuffer
from .config import AgentConfig
from .run_context import RunContext
from .runner import AgentRunner

SHORT_TERM_STATE = "flink_agents_memory.short_term"


class AgentProcessFunction(KeyedProcessFunction):
    """Declares the memory states in ``open`` and runs the agent loop per element."""

    def __init__(self, agent: Agent, config: AgentConfig) -> None:
        self._agent = agent
        self._config = config

    def open(self, runtime_context: RuntimeContext) -> None:
        for cls in self._agent.memory_types:
            register_type(cls)
        self._runner = AgentRunner(self._agent.get_actions(), self._config)
        stm_state = runtime_context.get_map_state(
            MapStateDescriptor(SHORT_TERM_STATE, Types.STRING(), Types.STRING())
        )
        self._stm_buffer = RunBuffer(MapStateStore(stm_state))

    def process_element(self, value: Any, ctx: KeyedProcessFunction.Context) -> Iterable[Any]:
        run = RunContext(ctx.get_current_key(), self._stm_buffer, self._config.max_value_bytes)
        try:
            outputs = self._runner.run(value, run)
        except BaseException:
            run.rollback()
            raise
        run.commit()
        return outputs
