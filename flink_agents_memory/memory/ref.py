"""MemoryRef: a persistent, serialisable handle to a value in short-term memory (seed 000)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict


class _HasShortTermMemory(Protocol):
    def get_short_term_memory(self) -> Any: ...


class MemoryRef(BaseModel):
    """Points at ``path`` (absolute) in short-term memory; ``type_name`` is the stored type's
    name (``type(value).__name__``), checked again when the reference is resolved. Immutable,
    so equal references can be shared."""

    model_config = ConfigDict(frozen=True)

    path: str
    type_name: str

    @staticmethod
    def create(path: str, type_name: str) -> MemoryRef:
        """Create a reference to the absolute ``path`` holding a value of ``type_name``."""
        return MemoryRef(path=path, type_name=type_name)

    def resolve(self, ctx: _HasShortTermMemory) -> Any:
        """Read the referenced value from the short-term memory of ``ctx``'s current key."""
        return ctx.get_short_term_memory().get(self)


@lru_cache(maxsize=4096)
def memory_ref(path: str, type_name: str) -> MemoryRef:
    """A shared MemoryRef: every ``set`` returns one, and the same few paths repeat for every
    key, so building a pydantic model each time would cost more than the state access."""
    return MemoryRef(path=path, type_name=type_name)
