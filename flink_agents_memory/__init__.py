"""flink_agents_memory: memory for event-driven agents that lives inside Apache Flink.

This package is the whole user API: agents and actions, the context an action sees, events,
errors, every configuration type, the memory interfaces, knowledge bases and the models.
Declaring an agent imports neither PyFlink nor numpy: the job builder's Flink implementation
registers itself on first use (see environment.py), and the names in ``_LAZY`` (embedders,
LLM clients, knowledge bases, the local runner) load their modules when first touched.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .agent import Agent, action
from .context import RunnerContext
from .environment import AgentBuilder, AgentsExecutionEnvironment
from .errors import (
    ActionFailedError,
    AgentDefinitionError,
    ConfigurationError,
    FlinkAgentsMemoryError,
    MemoryNotFoundError,
    MemoryPathError,
    MemoryTypeError,
    MemoryValueError,
    RunawayRunError,
    RunError,
    UnhandledEventError,
)
from .events import Event, InputEvent, OutputEvent
from .memory.audit import MemoryEvent
from .memory.history import History
from .memory.items import MemoryAPI, MemoryItem
from .memory.limits import MemoryLimits
from .memory.long_term_config import LongTermMemoryConfig
from .memory.maintenance_config import (
    Compression,
    Consolidation,
    Forgetting,
    MaintenanceConfig,
    Synthesis,
)
from .memory.memory_object import MemoryObject
from .memory.ref import MemoryRef
from .memory.retention import Retention
from .memory.serialization import register_type
from .runtime.config import AgentConfig
from .runtime.state_ttl import StateTtl

if TYPE_CHECKING:
    from .knowledge.base import KnowledgeBase
    from .knowledge.items import KnowledgeItem
    from .models.embedders import Embedder, HashingEmbedder, MiniLMEmbedder, OpenAIEmbedder
    from .models.llm import LLM, OpenAICompatibleLLM
    from .runtime.local import LocalAgentRunner

#: Names whose modules need numpy (or more); loaded on first access.
_LAZY = {
    "KnowledgeBase": ".knowledge.base",
    "KnowledgeItem": ".knowledge.items",
    "Embedder": ".models.embedders",
    "HashingEmbedder": ".models.embedders",
    "MiniLMEmbedder": ".models.embedders",
    "OpenAIEmbedder": ".models.embedders",
    "LLM": ".models.llm",
    "OpenAICompatibleLLM": ".models.llm",
    "LocalAgentRunner": ".runtime.local",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "LLM",
    "ActionFailedError",
    "Agent",
    "AgentBuilder",
    "AgentConfig",
    "AgentDefinitionError",
    "AgentsExecutionEnvironment",
    "Compression",
    "ConfigurationError",
    "Consolidation",
    "Embedder",
    "Event",
    "FlinkAgentsMemoryError",
    "Forgetting",
    "HashingEmbedder",
    "History",
    "InputEvent",
    "KnowledgeBase",
    "KnowledgeItem",
    "LocalAgentRunner",
    "LongTermMemoryConfig",
    "MaintenanceConfig",
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
    "MiniLMEmbedder",
    "OpenAICompatibleLLM",
    "OpenAIEmbedder",
    "OutputEvent",
    "Retention",
    "RunError",
    "RunawayRunError",
    "RunnerContext",
    "StateTtl",
    "Synthesis",
    "UnhandledEventError",
    "action",
    "register_type",
]
