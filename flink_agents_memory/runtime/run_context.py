"""The RunnerContext implementation handed to actions; one per subtask, reset every run."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..context import RunnerContext
from ..errors import AgentDefinitionError, ConfigurationError
from ..events import Event, InputEvent
from ..memory.filters import check_knowledge_search
from ..memory.history import History
from ..memory.long_term import LongTermMemory
from ..memory.memory_object import MemoryObject
from ..memory.sensory import SensoryMemory
from .calls import PendingCall
from .durable import CallIdentity, DurableCalls, DurableLog
from .memory_runtime import MemoryRuntime

if TYPE_CHECKING:
    from ..knowledge.items import KnowledgeItem

T = TypeVar("T")


class Durability:
    """What every run context of a subtask shares for durable calls: the subtask's log (None
    where the job has no local checkpoint directory: then a replay calls again)."""

    def __init__(self) -> None:
        self._log: DurableLog | None = None
        #: Where the log goes once a durable call is made: (folder, subtask, attempt, earlier).
        self._log_place: tuple[Path, int, int, list[Path]] | None = None

    def log_at(self, directory: Path, subtask: int, attempt: int, earlier: list[Path]) -> None:
        self._log_place = (directory, subtask, attempt, earlier)

    @property
    def log(self) -> DurableLog | None:
        """The subtask's log, opened (and the earlier attempts' records read) on first use."""
        if self._log is None and self._log_place is not None:
            self._log = DurableLog(*self._log_place)
        return self._log

    def checkpoint(self, checkpoint_id: int, completed: bool,
                   waiting: Callable[[], list[str]]) -> None:
        """A barrier (``waiting()``: the records of the runs waiting now) or a completion."""
        if self._log is None:
            return
        if completed:
            self._log.trim(checkpoint_id)
        else:
            self._log.roll(checkpoint_id, waiting())


class RunContext(RunnerContext):
    """Scoped to one key for one run; memory writes are buffered until the run ends."""

    def __init__(self, runtime: MemoryRuntime, durability: Durability | None = None) -> None:
        self.runtime = runtime
        self._scope = runtime.scope
        self._sent: list[Event] = []
        self._durability = durability
        self._durable: DurableCalls | None = None
        self._value: Any = None

    def begin(self, key: Callable[[], Any], now_ms: int, value: Any = None) -> None:
        """Start a run for the key ``key()`` returns, at time ``now_ms``, on input ``value``."""
        self._scope.begin(key, now_ms)
        self._value = value
        if self._durable is not None:
            self._durable.begin(value)
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

    async def search_knowledge_async(self, query: str, source: str | None = None,
                                     limit: int = 10) -> list[KnowledgeItem]:
        """:meth:`search_knowledge` off the task thread: the run waits, the subtask goes on."""
        from ..knowledge.base import search_all

        check_knowledge_search(query, source, limit, self.runtime.config.limits)
        metrics = self.runtime.metrics
        metrics.inc("knowledge.calls")
        start = time.perf_counter()
        try:
            return await PendingCall(search_all, (self.runtime.knowledge_bases, query, source,
                                                  limit), {})
        except Exception:
            metrics.inc("knowledge.failures")
            raise
        finally:
            metrics.observe("knowledge.latency_us", (time.perf_counter() - start) * 1e6)

    # -- durable calls (runtime/durable.py) ------------------------------------------------------
    def _durable_calls(self) -> DurableCalls:
        if self._durable is None:
            durability = self._durability
            if durability is None:
                raise AgentDefinitionError("durable calls need a run host (a job or the "
                                           "local runner)")
            self._durable = DurableCalls(self.runtime.meta, lambda: durability.log)
            self._durable.begin(self._value)
        return self._durable

    def durable_execute(self, fn: Callable[..., T], *args: Any,
                        reconciler: Callable[[], T] | None = None, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` with its outcome recorded: a run executed again after a
        restore gets the recorded result (or failure) instead of calling again. With a
        ``reconciler``, a call that an earlier attempt started without recording its outcome
        is settled by ``reconciler()`` instead of being made again."""
        call, identity, found, result = self._durable_call(fn, args, kwargs, reconciler)
        if found:
            return result  # type: ignore[no-any-return]
        call.run_inline()
        self._durable_calls().keep(identity, call)
        if call.error is not None:
            raise call.error
        return call.result  # type: ignore[no-any-return]

    async def durable_execute_async(self, fn: Callable[..., Any], *args: Any,
                                    reconciler: Callable[[], Any] | None = None,
                                    **kwargs: Any) -> Any:
        """:meth:`durable_execute` off the task thread (``fn`` may be ``async def``): the run
        waits while the subtask runs other keys' inputs."""
        call, identity, found, result = self._durable_call(fn, args, kwargs, reconciler)
        if found:
            return result
        try:
            await call
        finally:
            if call.settled:  # not when the run is dropped while it waits
                self._durable_calls().keep(identity, call)
        return call.result

    def _durable_call(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                      reconciler: Callable[[], Any] | None,
                      ) -> tuple[PendingCall, CallIdentity, bool, Any]:
        if not callable(fn):
            raise TypeError(f"durable_execute expects a callable, got {fn!r}")
        if reconciler is not None and not callable(reconciler):
            raise TypeError(f"reconciler must be a callable taking no arguments, got "
                            f"{reconciler!r}")
        durable = self._durable_calls()
        identity = durable.next_identity(self.key, fn)
        found, result = durable.recorded(identity)
        if found:
            self.runtime.metrics.inc("calls.replayed")
            return PendingCall(fn, args, kwargs), identity, True, result
        if reconciler is not None and durable.started_earlier(identity):
            call = PendingCall(reconciler, (), {})
        else:
            call = PendingCall(fn, args, kwargs)
        durable.log_call(identity, call, started=reconciler is not None)
        return call, identity, False, None

    def end_durable(self) -> None:
        """The run ended, committed or not: its call records are carried no more."""
        if self._durable is not None:
            self._durable.end()

    @property
    def durable_records(self) -> list[str]:
        """The outcomes of this run's durable calls so far (carried while it waits)."""
        return [] if self._durable is None else self._durable.kept

    @property
    def sensory(self) -> SensoryMemory:
        """Internal: the sensory memory (for tests and inspectors, not for actions)."""
        return self.runtime.sensory

    def rollback(self) -> None:
        """Drop the run's memory writes (the run failed)."""
        self.runtime.rollback()
        self._sent = []
