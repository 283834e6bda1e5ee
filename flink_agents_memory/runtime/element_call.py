"""Short-term memory's state accesses carried by each element's own call into Python.

A run reads the paths the previous run read in one call into Java (the run buffer's read
ahead) and commits its writes in another, and each crossing costs more than the state accesses
it makes. MemoryAgentOperator (its ``ElementCallState``) instead reads those paths for the
element's key before it calls Python, hands the values over with the element, and applies the
writes the call returns. :class:`ElementCallStore` is the Python side: the store under short-term
memory's run buffer, answering its read ahead from the values that came with the element and
keeping its writes for the call's return. Outside an element's call (timers) it reads and writes
Java state directly, as does any read the values brought do not answer.
"""

from __future__ import annotations

from typing import Any

from ..memory.store import GetMany


class ElementCallStore:
    """The store under short-term memory's run buffer when MemoryAgentOperator hosts the job."""

    def __init__(self, java_state: Any, get_many: GetMany | None) -> None:
        self._java_get = java_state.get
        self._java_remove = java_state.remove
        self._java_put_all = java_state.putAll
        self._java_get_many = get_many
        #: Reads several keys in one call (None where reading ahead is off, see FlinkStates).
        self.get_many: GetMany | None = self._get_many if get_many is not None else None
        #: The paths the operator reads ahead for every element, as it was last told.
        self._sent: list[str] = []
        #: Paths the operator must read ahead from the next element on (None: unchanged).
        self._new_keys: list[str] | None = None
        #: The values of ``_sent`` that came with the element, until the run asks for them.
        self._ahead: list[str | None] | None = None
        #: Writes kept for the call's return.
        self._puts: dict[str, str] | None = None
        self._in_call = False
        #: Reads ahead answered by the values that came with elements (for tests and profiles).
        self.carried_reads = 0

    # -- the element's call (bridge.DirectEntry) -------------------------------------------------
    def begin(self, ahead: list[str | None] | None) -> None:
        """An element's call starts; ``ahead`` holds the values of the paths last sent."""
        self._in_call = True
        self._ahead = ahead

    def end(self) -> tuple[list[str] | None, dict[str, str] | None]:
        """The call ends: what to return to the operator, ``(new paths to read ahead, writes)``."""
        keys, puts = self._new_keys, self._puts
        if keys is not None:
            self._sent = keys
        self.abandon()
        return keys, puts

    def abandon(self) -> None:
        """The call failed: nothing goes back (the operator keeps the paths it had)."""
        self._in_call = False
        self._ahead = self._new_keys = self._puts = None

    # -- the store (RunBuffer) -------------------------------------------------------------------
    def get(self, key: str) -> str | None:
        if self._puts is not None and key in self._puts:
            return self._puts[key]
        return self._java_get(key)

    def _get_many(self, keys: list[str]) -> list[str | None]:
        ahead, self._ahead = self._ahead, None
        if ahead is not None and keys == self._sent:
            self.carried_reads += 1
            return ahead
        if self._in_call and keys != self._sent:
            self._new_keys = list(keys)
        assert self._java_get_many is not None
        return self._java_get_many(keys)

    def put(self, key: str, value: str) -> None:
        self.put_all({key: value})

    def put_all(self, values: dict[str, str]) -> None:
        if not self._in_call:
            self._java_put_all(values)
            return
        self._ahead = None  # values read before a write are stale after it
        if self._puts is None:
            self._puts = values
        else:
            self._puts.update(values)

    def remove(self, key: str) -> None:
        self._ahead = None
        if self._puts is not None:
            self._puts.pop(key, None)
        self._java_remove(key)
