"""flink_agents_memory: memory for event-driven agents that lives inside Apache Flink."""

from .agent import Agent, action
from .context import RunnerContext
from .errors import (
    ActionFailedError,
    AgentDefinitionError,
    ConfigurationError,
    FlinkAgentsMemoryError,
    MemoryPathError,
    MemoryTypeError,
    MemoryValueError,
    RunawayRunError,
    RunError,
    UnhandledEventError,
)
from .events import Event, InputEvent, OutputEvent
from .memory.audit import MemoryEvent
from .memory.items import MemoryAPI, MemoryItem
from .memory.limits import MemoryLimits
from .memory.long_term import LongTermMemoryConfig, MemoryNotFoundError
from .memory.memory_object import MemoryObject
from .memory.ref import MemoryRef
from .memory.retention import Retention
from .memory.serialization import register_type
from .runtime.config import AgentConfig
from .runtime.environment import AgentBuilder, AgentsExecutionEnvironment
from .runtime.state_ttl import StateTtl

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
    "LongTermMemoryConfig",
    "MemoryAPI",
    "MemoryEvent",
    "MemoryItem",
    "MemoryLimits",
    "MemoryNotFoundError",
    "MemoryObject",
    "MemoryPathError",
    "MemoryTypeError",
    "MemoryRef",
    "MemoryValueError",
    "OutputEvent",
    "Retention",
    "RunError",
    "RunawayRunError",
    "RunnerContext",
    "StateTtl",
    "UnhandledEventError",
    "action",
    "register_type",
]
