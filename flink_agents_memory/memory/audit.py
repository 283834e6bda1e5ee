"""The audit trail: every memory change as a MemoryEvent, oldest first (mem0's ``history``)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel

from .history import History

AuditEventType = Literal["ADD", "UPDATE", "DELETE"]


class MemoryEvent(BaseModel):
    """One change of one memory: long-term items by id, short-term fields by path."""

    memory_id: str
    old_value: Any = None
    new_value: Any = None
    event: AuditEventType
    at: str
    actor: str | None = None


def iso_utc(ms: int) -> str:
    """ISO-8601 UTC timestamp of epoch milliseconds."""
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat(timespec="milliseconds")


class AuditTrail:
    """Appends MemoryEvents to a built-in history; reads them back per memory id."""

    def __init__(self, history: History) -> None:
        #: The built-in history holding the events (committed with the other histories).
        self.history = history

    def record(self, memory_id: str, event: AuditEventType, old: Any, new: Any,
               at_ms: int, actor: str | None) -> None:
        self.history.append(MemoryEvent(memory_id=memory_id, old_value=old, new_value=new,
                                         event=event, at=iso_utc(at_ms), actor=actor))

    def events_of(self, memory_id: str) -> list[MemoryEvent]:
        """The events of ``memory_id`` still retained, oldest first."""
        return [e for e in self.history.all() if e.memory_id == memory_id]
