"""Sensory memory (seed 003): internal, no user API.

* the window: the last W input events of the key, in a built-in history (checkpointed);
* the scratch: per-run state cleared when the run ends. It lives in the interpreter only —
  a checkpoint never happens mid-run (snapshots run on the task thread between elements), so
  writing it to Flink state would only cost writes that are always deleted again.
"""

from __future__ import annotations

from typing import Any

from .history import History
from .limits import MemoryLimits
from .memory_object import MemoryObject
from .short_term import DEFAULT_MAX_VALUE_BYTES, ShortTermMemory, StoredMemoryObject
from .store import DictStore
from .validation import DEFAULT_LIMITS, check_value


def storable(value: Any, limits: MemoryLimits = DEFAULT_LIMITS,
             max_bytes: int = DEFAULT_MAX_VALUE_BYTES) -> Any:
    """The input as stored in the window: itself if memory can hold it, else its repr (cut to
    ``max_bytes``): recording an input must never fail the run, whatever the input is."""
    from . import serialization

    try:
        check_value(value, "input", limits)
        if serialization.encoded_size(serialization.dumps(value)) <= max_bytes:
            return value
    except (TypeError, ValueError):
        pass
    # repr escapes lone surrogates; a quarter of the budget leaves room for 4-byte chars
    return {"repr": repr(value)[: max(16, max_bytes // 4 - 32)]}


class SensoryMemory:
    """Readable by tests and a future inspector through ``RunContext.sensory``."""

    def __init__(self, window: History | None, limits: MemoryLimits = DEFAULT_LIMITS,
                 max_bytes: int = DEFAULT_MAX_VALUE_BYTES) -> None:
        self._window = window
        self._limits = limits
        self._max_bytes = max_bytes
        self._scratch_store = DictStore()
        self.scratch: MemoryObject = StoredMemoryObject(ShortTermMemory(self._scratch_store))

    def record_input(self, value: Any) -> None:
        if self._window is not None:
            self._window.append(storable(value, self._limits, self._max_bytes))

    def recent_inputs(self, n: int | None = None) -> list[Any]:
        """The last ``n`` (default: all retained) input events of the key, oldest first."""
        if self._window is None:
            return []
        return self._window.all() if n is None else self._window.get_recent(n)

    def end_run(self) -> None:
        """Clear the scratch (the run is over, successfully or not)."""
        if self._scratch_store.data:
            self._scratch_store.data.clear()
