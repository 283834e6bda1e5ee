"""Sensory memory (seed 003): internal, no user API.

* the window: the last W input events of the key, in a built-in history (checkpointed);
* the scratch: per-run state cleared when the run ends. It lives in the interpreter only —
  a checkpoint never happens mid-run (snapshots run on the task thread between elements), so
  writing it to Flink state would only cost writes that are always deleted again.
"""

from __future__ import annotations

from typing import Any

from .history import History
from .memory_object import MemoryObject
from .short_term import ShortTermMemory, StoredMemoryObject
from .store import DictStore


def storable(value: Any) -> Any:
    """The input as stored in the window: itself if memory can hold it, else its repr."""
    from . import serialization

    try:
        serialization.dumps(value)
        return value
    except TypeError:
        return {"repr": repr(value)}


class SensoryMemory:
    """Readable by tests and a future inspector through ``RunContext.sensory``."""

    def __init__(self, window: History | None) -> None:
        self._window = window
        self._scratch_store = DictStore()
        self.scratch: MemoryObject = StoredMemoryObject(ShortTermMemory(self._scratch_store))

    @property
    def has_window(self) -> bool:
        """Whether runs record their input (``AgentConfig.sensory_window`` > 0)."""
        return self._window is not None

    def record_input(self, value: Any) -> None:
        if self._window is not None:
            self._window.append(storable(value))

    def recent_inputs(self, n: int | None = None) -> list[Any]:
        """The last ``n`` (default: all retained) input events of the key, oldest first."""
        if self._window is None:
            return []
        return self._window.all() if n is None else self._window.get_recent(n)

    def end_run(self) -> None:
        """Clear the scratch (the run is over, successfully or not)."""
        if self._scratch_store.data:
            self._scratch_store.data.clear()
