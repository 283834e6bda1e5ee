"""The RunnerContext implementation handed to actions during one run."""

from __future__ import annotations

from typing import Any

from ..context import RunnerContext
from ..events import Event
from ..memory.memory_object import MemoryObject
from ..memory.short_term import ShortTermMemory, StoredMemoryObject
from ..memory.store import RunBuffer


class RunContext(RunnerContext):
    """Scoped to one key for one run; memory writes go to run buffers until the run ends."""

    def __init__(self, key: Any, stm_buffer: RunBuffer, max_value_bytes: int) -> None:
        self._key = key
        self._stm_buffer = stm_buffer
        self._stm_root = StoredMemoryObject(ShortTermMemory(stm_buffer, max_value_bytes))
        self._sent: list[Event] = []
        self.current_action: str | None = None

    @property
    def key(self) -> Any:
        return self._key

    def send_event(self, event: Event) -> None:
        if not isinstance(event, Event):
            raise TypeError(
                f"send_event expects an Event, got {type(event).__name__} "
                f"(from action {self.current_action!r})"
            )
        self._sent.append(event)

    def take_sent_events(self) -> list[Event]:
        """Events sent since the last call, in order."""
        sent, self._sent = self._sent, []
        return sent

    def get_short_term_memory(self) -> MemoryObject:
        return self._stm_root

    def commit(self) -> None:
        """Flush the run's memory writes (the run succeeded)."""
        self._stm_buffer.flush()

    def rollback(self) -> None:
        """Drop the run's memory writes (the run failed)."""
        self._stm_buffer.discard()
        self._sent.clear()
