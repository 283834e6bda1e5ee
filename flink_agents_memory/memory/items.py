"""MemoryItem and the MemoryAPI of the memory system design (long-term memory, the recent
memories, the audit trail)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Literal

from pydantic import BaseModel, Field

from .audit import MemoryEvent

SearchMode = Literal["vector", "keyword", "hybrid"]


class MemoryItem(BaseModel):
    """One long-term memory. ``id`` may be left empty on add: the runtime assigns one."""

    id: str = Field("", description="The unique identifier for the text data")
    memory: str = Field(..., description="The memory deduced from the text data")
    metadata: dict[str, Any] | None = Field(None, description="Additional metadata")
    created_at: str | None = Field(None, description="When the memory was created (ISO-8601)")
    updated_at: str | None = Field(None, description="When the memory was updated (ISO-8601)")
    score: float | None = Field(None, description="Relevance, set by search only")


class MemoryAPI(ABC):
    """``ctx.memory``: long-term memory of the run's key.

    The design calls the last memories ``get_history(n)`` and one memory's changes
    ``history(id)``; both names stay, as aliases of :meth:`recent_memories` and
    :meth:`audit_trail`, whose names do not collide with the agent's declared histories.
    """

    @abstractmethod
    def add(self, memory: MemoryItem | str) -> str:
        """Store a memory item; returns its id."""

    @abstractmethod
    def update(self, memory_id: str, data: MemoryItem | str) -> MemoryItem:
        """Update a memory by id (re-embeds its text)."""

    @abstractmethod
    def delete(self, memory_id: str) -> None:
        """Delete a memory by id."""

    @abstractmethod
    def get(self, memory_id: str) -> MemoryItem | None:
        """Retrieve a memory by id."""

    @abstractmethod
    def recent_memories(self, n: int = 10) -> list[MemoryItem]:
        """The last n memories stored (added or updated), oldest first."""

    def get_history(self, n: int = 10) -> list[MemoryItem]:
        """Alias of :meth:`recent_memories` (the design's name)."""
        return self.recent_memories(n)

    @abstractmethod
    def search(self, query: str, limit: int = 10, filters: dict[str, Any] | None = None,
               mode: SearchMode | None = None,
               min_score: float | None = None) -> list[MemoryItem]:
        """Search memories by semantic similarity (vector), keywords (BM25) or both (hybrid)."""

    @abstractmethod
    def audit_trail(self, memory_id: str) -> list[MemoryEvent]:
        """The changes of one memory (ADD, UPDATE, DELETE), oldest first."""

    def history(self, memory_id: str) -> list[MemoryEvent]:
        """Alias of :meth:`audit_trail` (the design's and mem0's name)."""
        return self.audit_trail(memory_id)
