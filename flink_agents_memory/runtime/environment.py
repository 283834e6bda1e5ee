"""The Flink implementation of the job builder (the interfaces are in environment.py of the
package); it registers itself there when imported."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyflink.common.typeinfo import TypeInformation, Types
from pyflink.datastream import DataStream, StreamExecutionEnvironment

from ..agent import Agent
from ..environment import AgentBuilder, AgentsExecutionEnvironment, register_execution_environment
from ..errors import ConfigurationError
from .config import AgentConfig
from .function import DEAD_LETTER_TAG, AgentProcessFunction
from .maintenance_timers import check_maintenance
from .pyflink_internals import apply_memory_operator, process_mode_operators
from .python_env import configure_environment

#: What an agent operator's uid starts with unless ``apply(uid=...)`` names another.
UID_PREFIX = "flink-agents-memory:"


def default_uid(agent: Agent) -> str:
    """The agent operator's uid when the job names none. Without one Flink derives the
    operator's id from the graph around it, so a change upstream (or of parallelism) would leave
    a savepoint's memory unmapped; the agent's class name survives such changes."""
    return UID_PREFIX + type(agent).__qualname__


class FlinkAgentsExecutionEnvironment(AgentsExecutionEnvironment):
    """Wraps a StreamExecutionEnvironment configured for agent jobs (thread mode, jar, path)."""

    def __init__(self, env: StreamExecutionEnvironment | None = None) -> None:
        env = env or StreamExecutionEnvironment.get_execution_environment()
        if not isinstance(env, StreamExecutionEnvironment):
            raise ConfigurationError(
                f"get_execution_environment expects a StreamExecutionEnvironment, got {env!r}"
            )
        configure_environment(env)
        self.env = env

    def from_datastream(
        self,
        ds: DataStream,
        key_selector: Callable[[Any], Any],
        key_type: TypeInformation | None = None,
    ) -> AgentBuilder:
        """Key ``ds`` by ``key_selector``; each key has its own memory."""
        if not callable(key_selector):
            raise ConfigurationError("from_datastream needs a key_selector callable")
        stale = process_mode_operators(ds)
        if stale:
            raise ConfigurationError(
                f"Python operators {stale} were built before "
                "AgentsExecutionEnvironment.get_execution_environment(env) switched the job to "
                "thread mode, so they would run in process mode; call it right after creating "
                "the environment, before building the stream"
            )
        return FlinkAgentBuilder(ds, key_selector, key_type or Types.STRING())


class FlinkAgentBuilder(AgentBuilder):
    """Collects the agent and its config, then builds MemoryAgentOperator."""

    def __init__(
        self, ds: DataStream, key_selector: Callable[[Any], Any], key_type: TypeInformation
    ) -> None:
        self._ds = ds
        self._key_selector = key_selector
        self._key_type = key_type
        self._agent: Agent | None = None
        self._config = AgentConfig()
        self._uid: str | None = None
        self._stream: DataStream | None = None

    def apply(self, agent: Agent, config: AgentConfig | None = None,
              uid: str | None = None) -> AgentBuilder:
        """Run ``agent`` on the keyed stream; its definition is checked now. ``uid``: the
        operator's uid, by which savepoints map its memory (default: from the agent's class)."""
        if not isinstance(agent, Agent):
            raise ConfigurationError(f"apply expects an Agent instance, got {agent!r}")
        if uid is not None and (not isinstance(uid, str) or not uid.strip()):
            raise ConfigurationError(f"apply(uid=...) needs a non-empty string, got {uid!r}")
        agent.validate()
        self._agent = agent
        self._uid = uid
        if config is not None:
            self._config = config
        check_maintenance(agent, self._config)
        return self

    def to_datastream(self, output_type: TypeInformation | None = None) -> DataStream:
        """The stream of every OutputEvent's ``output`` (pickled unless ``output_type``)."""
        if self._agent is None:
            raise ConfigurationError("call apply(agent) before to_datastream()")
        if self._stream is None:
            keyed = self._ds.key_by(self._key_selector, key_type=self._key_type)
            func = AgentProcessFunction(self._agent, self._config)
            name = f"agent:{type(self._agent).__name__}"
            stream = apply_memory_operator(keyed, func, output_type, name)
            # A later .uid(...) on the returned stream still replaces it, as before.
            self._stream = stream.uid(self._uid or default_uid(self._agent))
        return self._stream

    def dead_letters(self) -> DataStream:
        """Failed runs as JSON text (key, input, error, error_type, action); needs
        ``AgentConfig(on_error="dead_letter")`` and to_datastream() called first."""
        if self._config.on_error != "dead_letter":
            raise ConfigurationError(
                f"dead_letters() needs AgentConfig(on_error='dead_letter'), "
                f"not on_error={self._config.on_error!r}"
            )
        if self._stream is None:
            raise ConfigurationError("call to_datastream() before dead_letters()")
        return self._stream.get_side_output(DEAD_LETTER_TAG)


register_execution_environment(FlinkAgentsExecutionEnvironment)
