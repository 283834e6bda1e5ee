"""Agent runs without Flink, on in-memory states: unit tests and quick local experiments."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..agent import Agent
from ..jvm import LongTermMemoryStore
from ..memory.history import PyListBackend
from ..memory.store import DictStore
from ..metrics import MetricsRecorder
from .config import AgentConfig
from .memory_runtime import StateFactory
from .wiring import wire_agent


class InMemoryStates(StateFactory):
    """Per-key dict/list states, switched with :meth:`set_key` like Flink's keyed states."""

    def __init__(self) -> None:
        self._maps: dict[str, dict[Any, DictStore]] = {}
        self._lists: dict[str, dict[Any, PyListBackend]] = {}
        self.key: Any = None

    def set_key(self, key: Any) -> None:
        self.key = key

    def map_state(self, name: str) -> Any:
        per_key = self._maps.setdefault(name, {})
        states = self

        class _Scoped:
            def _s(self) -> DictStore:
                return per_key.setdefault(states.key, DictStore())

            def get(self, k: str) -> str | None:
                return self._s().get(k)

            def put(self, k: str, v: str) -> None:
                self._s().put(k, v)

            def remove(self, k: str) -> None:
                self._s().remove(k)

        return _Scoped()

    def list_state(self, name: str) -> Any:
        per_key = self._lists.setdefault(name, {})
        states = self

        class _Scoped:
            def _l(self) -> PyListBackend:
                return per_key.setdefault(states.key, PyListBackend())

            def get(self) -> list[str]:
                return self._l().get()

            def tail(self, n: int) -> list[str]:
                return self._l().tail(n)

            def add_all(self, values: list[str]) -> None:
                self._l().add_all(values)

            def update(self, values: list[str]) -> None:
                self._l().update(values)

            def clear(self) -> None:
                self._l().clear()

        return _Scoped()


class LocalAgentRunner:
    """Runs an agent's runs one by one on :class:`InMemoryStates`, like the operator does."""

    def __init__(self, agent: Agent, config: AgentConfig | None = None,
                 store: LongTermMemoryStore | None = None,
                 clock: Callable[[], int] | None = None) -> None:
        self.config = config or AgentConfig()
        self.states = InMemoryStates()
        self.metrics = MetricsRecorder(enabled=False)
        self._clock = clock or (lambda: int(time.time() * 1000))
        wired = wire_agent(agent, self.config, self.states, store, self.metrics)
        self.ctx = wired.ctx
        self._executor = wired.executor
        #: Pending maintenance timer per key (Flink's timer service in a job).
        self.timers: dict[Any, int] = {}

    def _use_key(self, key: Any) -> None:
        """Scope the states to ``key`` (as Flink does before each element and timer)."""
        self.states.set_key(key)

    def run(self, key: Any, value: Any) -> list[Any]:
        """One run for ``key``: its outputs (a DeadLetter under on_error="dead_letter");
        its writes are committed, or discarded if it fails."""
        self._use_key(key)
        outputs = self._executor.execute(value, lambda: key, self._clock())
        at = self.ctx.runtime.take_timer()
        if at is not None:
            self.timers[key] = at
        return outputs

    def fire_timers(self, until_ms: int) -> list[Any]:
        """Run the maintenance passes due at ``until_ms`` (like a watermark or the clock
        reaching it), earliest first, each at its timer's time; returns the keys maintained."""
        maintained = []
        while due := [(at, i) for i, at in enumerate(self.timers.values()) if at <= until_ms]:
            at, i = min(due)
            key = list(self.timers)[i]
            del self.timers[key]
            self._use_key(key)
            after = self._executor.maintain(lambda k=key: k, at)
            if after is not None:
                self.timers[key] = after
            maintained.append(key)
        return maintained
