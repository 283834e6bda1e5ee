"""Sensory memory (the memory system design): the agent's events as they arrive; internal, no
user API.

* the window: the events of the key's runs (each input, each event an action sent), in a
  built-in history (checkpointed), bounded by count (``AgentConfig.sensory_window``) and/or
  by age (``sensory_window_ms``);
* the scratch: per-run state cleared when the run ends. It lives in the interpreter only —
  a checkpoint never happens mid-run (snapshots run on the task thread between elements), so
  writing it to Flink state would only cost writes that are always deleted again.
"""

from __future__ import annotations

from typing import Any

from ..events import Event, InputEvent
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
        #: Whether runs are recorded (a window is configured); read at every run's start.
        self.enabled = window is not None

    def record(self, event: Event) -> None:
        """Keep ``event`` in the window as ``{"type": class name, "data": its fields}`` (fields
        memory cannot hold are kept as their repr), so reading the window back never needs
        the event classes of the job."""
        if self._window is not None:
            data = {name: storable(getattr(event, name), self._limits, self._max_bytes)
                    for name in type(event).model_fields}
            self._window.append({"type": type(event).__name__, "data": data})

    def recent_events(self, n: int | None = None) -> list[dict[str, Any]]:
        """The last ``n`` (default: all retained) events of the key, oldest first."""
        if self._window is None:
            return []
        return self._window.all() if n is None else self._window.get_recent(n)

    def recent_inputs(self, n: int | None = None) -> list[Any]:
        """The inputs among the retained events (the last ``n`` of them), oldest first."""
        inputs = [e["data"]["input"] for e in self.recent_events()
                  if e["type"] == InputEvent.__name__]
        return inputs if n is None else inputs[max(0, len(inputs) - n):]

    def end_run(self) -> None:
        """Clear the scratch (the run is over, successfully or not)."""
        if self._scratch_store.data:
            self._scratch_store.data.clear()
