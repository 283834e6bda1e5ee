"""The job builder users see: ``AgentsExecutionEnvironment.get_execution_environment(env)
.from_datastream(ds, key_selector).apply(agent).to_datastream()``.

These are interfaces only. The Flink runtime (``flink_agents_memory.runtime.environment``)
implements them and registers itself here with :func:`register_execution_environment`, so
importing the API never imports PyFlink, and the API never imports the runtime's classes.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agent import Agent
    from .runtime.config import AgentConfig

#: The runtime that registers itself when imported (loaded on first use).
DEFAULT_RUNTIME = "flink_agents_memory.runtime.environment"

_factory: Callable[[Any], AgentsExecutionEnvironment] | None = None


def register_execution_environment(factory: Callable[[Any], AgentsExecutionEnvironment]) -> None:
    """Called by a runtime module: ``factory(env)`` builds its AgentsExecutionEnvironment."""
    global _factory
    _factory = factory


class AgentBuilder(ABC):
    """Collects the agent and its config for one keyed stream, then builds the operator."""

    @abstractmethod
    def apply(self, agent: Agent, config: AgentConfig | None = None,
              uid: str | None = None) -> AgentBuilder:
        """Run ``agent`` on the keyed stream; its definition is checked now. ``uid``: the
        operator's uid, by which savepoints map its memory (default: from the agent's class)."""

    @abstractmethod
    def to_datastream(self, output_type: Any = None) -> Any:
        """The stream of every OutputEvent's ``output`` (pickled unless ``output_type``)."""

    @abstractmethod
    def dead_letters(self) -> Any:
        """Failed runs as JSON text, under ``AgentConfig(on_error="dead_letter")``."""


class AgentsExecutionEnvironment(ABC):
    """A StreamExecutionEnvironment set up for agent jobs (thread mode, the jar, the path)."""

    @staticmethod
    def get_execution_environment(env: Any = None) -> AgentsExecutionEnvironment:
        """Use ``env`` (a PyFlink StreamExecutionEnvironment, or a new one) for agent jobs;
        rejects settings that would not run."""
        if _factory is None:
            importlib.import_module(DEFAULT_RUNTIME)
        assert _factory is not None, f"{DEFAULT_RUNTIME} did not register itself"
        return _factory(env)

    @abstractmethod
    def from_datastream(self, ds: Any, key_selector: Callable[[Any], Any],
                        key_type: Any = None) -> AgentBuilder:
        """Key ``ds`` by ``key_selector``; each key has its own memory."""
