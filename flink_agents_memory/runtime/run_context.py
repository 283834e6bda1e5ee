"""The RunnerContext implementation handed to actions; one per subtask, reset every run."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..context import RunnerContext
from ..errors import ConfigurationError
from ..events import Event
from ..memory.history import History
from ..memory.long_term import LongTermMemory
from ..memory.memory_object import MemoryObject
from ..memory.sensory import SensoryMemory
from .memory_runtime import MemoryRuntime

if TYPE_CHECKING:
    from ..knowledge.items import KnowledgeItem

_UNSET = object()


class RunContext(RunnerContext):
    """Scoped to one key for one run; memory writes are buffered until the run ends."""

    def __init__(self) -> None:
        self._runtime: MemoryRuntime | None = None
        self._key_supplier: Callable[[], Any] = lambda: None
        self._key: Any = _UNSET
        self._now_ms = 0
        self._sent: list[Event] = []
        self.current_action: str | None = None
        self._stm_root: MemoryObject | None = None
        self._record_input: Callable[[Any], None] | None = None

    def bind(self, runtime: MemoryRuntime) -> None:
        self._runtime = runtime
        # Looked up once: every run reads these.
        self._stm_root = runtime.stm_root
        self._record_input = runtime.sensory.record_input if runtime.sensory.has_window \
            else None

    @property
    def runtime(self) -> MemoryRuntime:
        assert self._runtime is not None, "RunContext used before bind()"
        return self._runtime

    def begin(self, key: Callable[[], Any], now_ms: int, value: Any = None) -> None:
        """Start a run for the key ``key()`` returns, at time ``now_ms``, on input ``value``."""
        self._key_supplier = key
        self._key = _UNSET
        self._now_ms = now_ms
        self._sent = []
        self.current_action = None
        if self._record_input is not None:
            self._record_input(value)

    @property
    def key(self) -> Any:
        # Fetched on first use: crossing into Java for the key costs more than most actions.
        if self._key is _UNSET:
            self._key = self._key_supplier()
        return self._key

    def now_ms(self) -> int:
        """The run's clock (processing or event time, see AgentConfig.retention_time)."""
        return self._now_ms

    def send_event(self, event: Event) -> None:
        if not isinstance(event, Event):
            raise TypeError(
                f"send_event expects an Event, got {type(event).__name__} "
                f"(from action {self.current_action!r})"
            )
        self._sent.append(event)

    @property
    def has_sent_events(self) -> bool:
        """Whether an action sent an event since the last :meth:`take_sent_events`."""
        return bool(self._sent)

    def take_sent_events(self) -> list[Event]:
        """Events sent since the last call, in order."""
        sent, self._sent = self._sent, []
        return sent

    def get_short_term_memory(self) -> MemoryObject:
        assert self._stm_root is not None, "RunContext used before bind()"
        return self._stm_root

    def history(self, name: str) -> History:
        """A history declared in the agent's ``histories``."""
        return self.runtime.history(name)

    @property
    def memory(self) -> LongTermMemory:
        """Long-term memory, recent history and audit trail of this key (seed 003 MemoryAPI)."""
        memory = self.runtime.long_term
        if memory is None:
            raise ConfigurationError(
                "long-term memory needs MemoryAgentOperator (build the job with "
                "AgentsExecutionEnvironment)"
            )
        return memory

    def search_knowledge(self, query: str, source: str | None = None,
                         limit: int = 10) -> list[KnowledgeItem]:
        """Search the agent's knowledge bases (``Agent.knowledge_bases``): results of all bases
        (or of those having ``source``) merged by score, the best ``limit`` (seed 003)."""
        from ..knowledge.base import search_all

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
