"""RunScope: what the current run is (its key, its clock, the action running), owned by the
memory runtime, so the memory kinds read it without pointing back into the RunContext."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_UNSET = object()


class RunScope:
    """One per subtask; :meth:`begin` starts each run."""

    def __init__(self) -> None:
        self._key_supplier: Callable[[], Any] = lambda: None
        self._key: Any = _UNSET
        self._now_ms = 0
        #: The action running now (set by the agent loop), for audit events and errors.
        self.action: str | None = None

    def begin(self, key: Callable[[], Any], now_ms: int) -> None:
        """A run for the key ``key()`` returns, at ``now_ms``."""
        self._key_supplier = key
        self._key = _UNSET
        self._now_ms = now_ms
        self.action = None

    def key(self) -> Any:
        # Fetched on first use: crossing into Java for the key costs more than most actions.
        if self._key is _UNSET:
            self._key = self._key_supplier()
        return self._key

    def now_ms(self) -> int:
        return self._now_ms

    def current_action(self) -> str | None:
        return self.action
