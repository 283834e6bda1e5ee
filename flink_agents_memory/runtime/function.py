"""The Python function MemoryAgentOperator hosts: one agent run per input element."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyflink.common.typeinfo import Types
from pyflink.datastream import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import ListStateDescriptor, MapStateDescriptor

from ..agent import Agent
from ..errors import ConfigurationError
from ..memory.serialization import register_type
from ..memory.store import MapStateStore
from . import bridge
from .config import AgentConfig
from .memory_runtime import MemoryRuntime, StateFactory
from .run_context import RunContext
from .runner import AgentRunner


class FlinkStates(StateFactory):
    """Keyed states of the runtime context, all with string values (see docs/architecture.md)."""

    def __init__(self, runtime_context: RuntimeContext, config: AgentConfig) -> None:
        self._rc = runtime_context
        self._ttl = config.state_ttl.to_flink() if config.state_ttl else None

    def _with_ttl(self, descriptor: Any) -> Any:
        if self._ttl is not None:
            descriptor.enable_time_to_live(self._ttl)
        return descriptor

    def map_state(self, name: str) -> MapStateStore:
        descriptor = self._with_ttl(MapStateDescriptor(name, Types.STRING(), Types.STRING()))
        return MapStateStore(self._rc.get_map_state(descriptor))

    def list_state(self, name: str) -> Any:
        return self._rc.get_list_state(self._with_ttl(ListStateDescriptor(name, Types.STRING())))


class AgentProcessFunction(KeyedProcessFunction):
    """Declares the memory states in ``open`` and runs the agent loop per element."""

    def __init__(self, agent: Agent, config: AgentConfig) -> None:
        self._agent = agent
        self._config = config

    def open(self, runtime_context: RuntimeContext) -> None:
        for cls in self._agent.memory_types:
            register_type(cls)
        self._runner = AgentRunner(self._agent.validate(), self._config)
        self._ctx = RunContext()
        self._ctx.bind(MemoryRuntime(
            self._agent, self._config, FlinkStates(runtime_context, self._config), bridge.take(),
            self._ctx.now_ms, lambda: self._ctx.key, lambda: self._ctx.current_action))
        self._event_time = self._config.retention_time == "event"

    def _now(self, ctx: KeyedProcessFunction.Context) -> int:
        if self._event_time:
            timestamp = ctx.timestamp()
            if timestamp is None:
                raise ConfigurationError(
                    "retention_time='event' needs timestamps on the input stream "
                    "(assign them with a WatermarkStrategy)"
                )
            return int(timestamp)
        return int(ctx.timer_service().current_processing_time())

    def process_element(self, value: Any, ctx: KeyedProcessFunction.Context) -> Iterable[Any]:
        run = self._ctx
        run.begin(ctx.get_current_key, self._now(ctx), value)
        try:
            outputs = self._runner.run(value, run)
        except BaseException:
            run.rollback()
            raise
        run.commit()
        return outputs
