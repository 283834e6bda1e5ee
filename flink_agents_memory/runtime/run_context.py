"""The RunnerContext implementation handed to actions; one per subtask, reset every run."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..context import RunnerContext
from ..errors import ConfigurationError
from ..events import Event, InputEvent
from ..memory.filters import check_knowledge_search
from ..memory.history import History
from ..memory.long_term import LongTermMemory
from ..memory.memory_object import MemoryObject
from ..memory.sensory import SensoryMemory
from .memory_runtime import MemoryRuntime

if TYPE_CHECKING:
    from ..knowledge.items import KnowledgeItem


class RunContext(RunnerContext):
    """Scoped to one key for one run; memory writes are buffered until the run ends."""

    def __init__(self, runtime: MemoryRuntime) -> None:
        self.runtime = runtime
        self._scope = runtime.scope
        self._sent: list[Event] = []

    def begin(self, key: Callable[[], Any], now_ms: int, value: Any = None) -> None:
        """Start a run for the key ``key()`` returns, at time ``now_ms``, on input ``value``."""
        self._scope.begin(key, now_ms)
        # A guard: the agent loop takes each action's events and rollback drops a failed
        # run's, so this list is empty here and is replaced only if that ever breaks.
        if self._sent:
            self._sent = []
        sensory = self.runtime.sensory
        if sensory.enabled:
            sensory.record(InputEvent(input=value))

    def begin_maintenance(self, key: Callable[[], Any], now_ms: int) -> None:
        """Start a maintenance pass (a run without input) for ``key()`` at ``now_ms``."""
        self._scope.begin(key, now_ms)
        self._scope.action = "maintenance"
        self._sent = []

    @property
    def current_action(self) -> str | None:
        """The action running now (set by the agent loop)."""
        return self._scope.action

    @current_action.setter
    def current_action(self, name: str | None) -> None:
        self._scope.action = name

    @property
    def key(self) -> Any:
        return self._scope.key()

    def now_ms(self) -> int:
        return self._scope.now_ms()

    def send_event(self, event: Event) -> None:
        if not isinstance(event, Event):
            raise TypeError(
                f"send_event expects an Event, got {type(event).__name__} "
                f"(from action {self.current_action!r})"
            )
        self._sent.append(event)
        sensory = self.runtime.sensory
        if sensory.enabled:
            sensory.record(event)

    @property
    def has_sent_events(self) -> bool:
        """Whether an action sent an event since the last :meth:`take_sent_events`."""
        return bool(self._sent)

    def take_sent_events(self) -> list[Event]:
        """Events sent since the last call, in order."""
        sent, self._sent = self._sent, []
        return sent

    def get_short_term_memory(self) -> MemoryObject:
        return self.runtime.stm_root

    def named_history(self, name: str) -> History:
        return self.runtime.history(name)

    @property
    def memory(self) -> LongTermMemory:
        """Long-term memory, recent memories and audit trail of this key."""
        memory = self.runtime.long_term
        if memory is None:
            raise ConfigurationError(
                "long-term memory needs MemoryAgentOperator (build the job with "
                "AgentsExecutionEnvironment)"
            )
        return memory

    def search_knowledge(self, query: str, source: str | None = None,
                         limit: int = 10) -> list[KnowledgeItem]:
        from ..knowledge.base import search_all

        check_knowledge_search(query, source, limit, self.runtime.config.limits)
        bases = self.runtime.knowledge_bases
        metrics = self.runtime.metrics
        metrics.inc("knowledge.calls")
        start = time.perf_counter()
        try:
            return search_all(bases, query, source, limit)
        except Exception:
            metrics.inc("knowledge.failures")
            raise
        finally:
            metrics.observe("knowledge.latency_us", (time.perf_counter() - start) * 1e6)
            for i, base in enumerate(bases):
                metrics.gauge(f"knowledge.base{i}.warnings", base.warning_count)
                metrics.gauge(f"knowledge.base{i}.circuit_open",
                              {"closed": 0, "half-open": 1, "open": 2}.get(base.breaker.state, 0))

    @property
    def sensory(self) -> SensoryMemory:
        """Internal: the sensory memory (for tests and inspectors, not for actions)."""
        return self.runtime.sensory

    def rollback(self) -> None:
        """Drop the run's memory writes (the run failed)."""
        self.runtime.rollback()
        self._sent = []
