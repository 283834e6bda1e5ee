"""flink_agents_memory: memory for event-driven agents that lives inside Apache Flink."""

from .agent import Agent, action
from .context import RunnerContext
from .errors import (
    ActionFailedError,
    AgentDefinitionError,
    ConfigurationError,
    FlinkAgentsMemoryError,
    MemoryPathError,
    MemoryValueError,
    RunawayRunError,
    RunError,
    UnhandledEventError,
)
from .events import Event, InputEvent, OutputEvent
from .memory.memory_object import MemoryObject
from .memory.ref import MemoryRef
from .memory.serialization import register_type
from .runtime.config import AgentConfig
from .runtime.environment import AgentBuilder, AgentsExecutionEnvironment

__all__ = [
    "ActionFailedError",
    "Agent",
    "AgentBuilder",
    "AgentConfig",
    "AgentDefinitionError",
    "AgentsExecutionEnvironment",
    "ConfigurationError",
    "Event",
    "FlinkAgentsMemoryError",
    "InputEvent",
    "MemoryObject",
    "MemoryPathError",
    "MemoryRef",
    "MemoryValueError",
    "OutputEvent",
    "RunError",
    "RunawayRunError",
    "RunnerContext",
    "UnhandledEventError",
    "action",
    "register_type",
]
