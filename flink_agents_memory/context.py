"""RunnerContext: what an action sees of the runtime (seed 000 and seed 003)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

from .events import Event
from .memory.memory_object import MemoryObject

if TYPE_CHECKING:
    from .knowledge.items import KnowledgeItem


class RunnerContext(ABC):
    """Handed to every action of a run; scoped to the run's key."""

    @property
    @abstractmethod
    def key(self) -> Any:
        """The key of the current run (the keyed stream's key)."""

    @abstractmethod
    def send_event(self, event: Event) -> None:
        """Queue an event for the actions that listen to its type (OutputEvent goes downstream)."""

    @abstractmethod
    def get_short_term_memory(self) -> MemoryObject:
        """The root object of this key's short-term memory."""

    @abstractmethod
    def search_knowledge(self, query: str, source: str | None = None,
                         limit: int = 10) -> list[KnowledgeItem]:
        """Search the agent's shared knowledge bases (``Agent.knowledge_bases``); results of
        every base (or of those having ``source``) merged by score, best ``limit`` first."""
