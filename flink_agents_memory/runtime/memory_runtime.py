"""All memory of one subtask: the states, declared once in ``open()``, and the run commit.

A run's writes are buffered everywhere. The commit first *prepares* (:meth:`MemoryRuntime.
prepare_commit`) in named phases, each of which may still add work for the next, and writes
nothing; a failure there leaves every kind of memory as it was:

1. evictions: declared histories trim, call reducers, move items to long-term memory;
2. long-term: ``max_items_per_key`` retention (with its audit events), one embedding batch;
3. built-in histories: the audit trail, the recent memories and the sensory window, which
   by now hold every event of phases 1 and 2.

Then :meth:`MemoryRuntime.write` applies the :class:`CommitPlan`: the index, the declared
histories, the built-in histories, the meta map, the search-hit counts, short-term memory.

A maintenance pass (:meth:`MemoryRuntime.maintain`, on a timer) is a run without input whose
writes take the same path.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..agent import Agent
from ..errors import MemoryValueError
from ..jvm import LongTermMemoryStore
from ..memory.access import AccessLog
from ..memory.audit import AuditTrail
from ..memory.history import History, ListBackend
from ..memory.list_retention import ListRetention
from ..memory.llm_steps import LLMSteps, answer_inline
from ..memory.long_term import LongTermMemory
from ..memory.maintenance import PassReport, run_pass
from ..memory.retention import Retention
from ..memory.sensory import SensoryMemory
from ..memory.short_term import ShortTermMemory, StoredMemoryObject
from ..memory.store import KeyValueStore, RunBuffer
from ..metrics import MetricsRecorder
from .config import AgentConfig
from .maintenance_timers import MaintenanceTimers, check_maintenance
from .run_scope import RunScope

AUDIT = "__audit__"
RECENT = "__recent__"
SENSORY = "__sensory__"


Writer = Callable[[], None]


@dataclass
class CommitPlan:
    """The prepared writes of one run, by phase, applied in this order by ``write``."""

    index: Writer | None = None
    histories: list[Writer] = field(default_factory=list)
    builtin_histories: list[Writer] = field(default_factory=list)

    def apply(self) -> None:
        if self.index is not None:
            self.index()
        for write in self.histories:
            write()
        for write in self.builtin_histories:
            write()


#: The plan of a run that touched no history and no long-term memory (shared, never changed).
NOTHING_TO_WRITE = CommitPlan()


class StateFactory:
    """Creates the keyed states (Flink's in a job, in-memory ones in unit tests)."""

    def map_state(self, name: str) -> KeyValueStore:
        raise NotImplementedError

    def list_state(self, name: str) -> ListBackend:
        raise NotImplementedError

    def element_call_map_state(self, name: str) -> KeyValueStore:
        """Short-term memory's map state: where the host can, its reads ahead and writes travel
        with each element's call (runtime/element_call.py); elsewhere a map state as any."""
        return self.map_state(name)


class MemoryRuntime:
    """Owns every memory kind of a subtask; one run at a time uses it."""

    def __init__(self, agent: Agent, config: AgentConfig, states: StateFactory,
                 store: LongTermMemoryStore | None, scope: RunScope,
                 metrics: MetricsRecorder | None = None) -> None:
        #: The current run's key, clock and action, read by every memory kind.
        self.scope = scope
        now_ms, key, actor = scope.now_ms, scope.key, scope.current_action
        self.config = config
        self.metrics = metrics or MetricsRecorder(enabled=False)
        #: Histories and long-term memory this run used: a run touching none (the common
        #: short-term-only case) commits and resets without visiting them.
        self._touched: set[Any] = set()
        self.metrics.add_collector(self._short_term_stats)
        #: The agent's shared knowledge bases (``Agent.knowledge_bases``), for search_knowledge.
        self.knowledge_bases = list(getattr(agent, "knowledge_bases", None) or [])
        self.stm_buffer = RunBuffer(
            states.element_call_map_state("flink_agents_memory.short_term"))
        self.meta = RunBuffer(states.map_state("flink_agents_memory.meta"))
        self._now_ms = now_ms
        self._actor = actor
        self._store = store

        # Built-in histories wrap values already checked (a MemoryItem holds the metadata, a
        # MemoryEvent the short-term value): two levels more than a value may have.
        builtin_limits = config.limits.model_copy(
            update={"max_depth": config.limits.max_depth + 2})

        def history(name: str, retention: Retention, declared: bool = False) -> History:
            backend = states.list_state(f"flink_agents_memory.history.{name}")
            return History(name, retention, backend, self.meta, now_ms, self._evict_to_long_term,
                           self.metrics, self._touched,
                           config.limits if declared else builtin_limits,
                           config.max_value_bytes if declared else None)

        self.histories = {name: history(name, r, declared=True)
                          for name, r in agent.histories.items()}
        ltm = agent.long_term_memory
        self.audit = AuditTrail(history(AUDIT, ltm.audit))
        recent = history(RECENT, ltm.recent)
        self._builtin = [self.audit.history, recent]
        window = None
        if config.sensory_window or config.sensory_window_ms:
            window = history(SENSORY, Retention(max_items=config.sensory_window or None,
                                                ttl_ms=config.sensory_window_ms))
            self._builtin.append(window)
        self.sensory = SensoryMemory(window, config.limits, config.max_value_bytes)
        listener = self._audit_short_term if config.audit_short_term else None
        lists = ListRetention(dict(agent.short_term_retention), self._list_to_long_term) \
            if agent.short_term_retention else None
        self.stm_root = StoredMemoryObject(
            ShortTermMemory(self.stm_buffer, config.max_value_bytes, listener, lists,
                            config.limits))
        self.maintenance = check_maintenance(agent, config) if store is not None else None
        #: Search hits per memory, kept only when maintenance forgets by score.
        self.access = AccessLog(RunBuffer(states.map_state("flink_agents_memory.access"))) \
            if self.maintenance is not None and self.maintenance.forgetting is not None else None
        self._timers = None if self.maintenance is None else \
            MaintenanceTimers(self.maintenance, self.meta)
        self._maintaining = False
        #: The history maintenance compresses: its appends schedule a pass too.
        self._compressed = None if self.maintenance is None or \
            self.maintenance.compression is None else \
            self.histories[self.maintenance.compression.history]
        #: The maintenance timer the last committed run asks for (see take_timer).
        self._next_timer: int | None = None
        self.long_term = None if store is None else LongTermMemory(
            store, ltm, recent, self.audit, self.meta, now_ms, key, actor, self.metrics,
            self._touched, config.limits, self.access)

    def history(self, name: str) -> History:
        history = self.histories.get(name)
        if history is None:
            raise MemoryValueError(
                f"unknown history {name!r}; declared histories: {sorted(self.histories)} "
                "(declare it in the agent's `histories`)"
            )
        return history

    def _audit_short_term(self, op: str, path: str, old: Any, new: Any) -> None:
        event = "DELETE" if op == "delete" else ("ADD" if old is None else "UPDATE")
        self.audit.record(f"stm:{path}", event, old, new, self._now_ms(), self._actor())

    def _evict_to_long_term(self, name: str, values: list[Any]) -> None:
        self._move_to_long_term(f"history {name!r}", values,
                                {"source": "history", "history": name})

    def _list_to_long_term(self, path: str, values: list[Any]) -> None:
        self._move_to_long_term(f"list '{path}'", values, {"source": "short_term", "path": path})

    def _move_to_long_term(self, what: str, values: list[Any], metadata: dict[str, str]) -> None:
        if self.long_term is None:
            raise MemoryValueError(
                f"{what} moves evicted items to long-term memory, which is not available here "
                "(the job does not run in MemoryAgentOperator)"
            )
        for value in values:
            text = value if isinstance(value, str) else str(value)
            self.long_term.add(text, metadata=dict(metadata))

    def on_checkpoint(self) -> None:
        """Before the index is written into a checkpoint: purge expired long-term memories
        (they are never returned; this keeps them out of the snapshot)."""
        if self.long_term is not None and self.long_term.config.ttl_ms is not None:
            # processing time moves on without elements; event time only with them
            now = (int(time.time() * 1000) if self.config.retention_time == "processing"
                   else self._now_ms())
            if now > 0:
                self.metrics.inc("long_term.purged", self._store.purgeExpired(now))

    def prepare_commit(self) -> CommitPlan:
        """Everything that can fail on bad input (reducers, embedding, checks), in the phases
        of the module docstring; writes nothing."""
        if not self._touched:
            return NOTHING_TO_WRITE
        plan = CommitPlan()
        plan.histories = self._prepare_evictions()
        plan.index = self._prepare_long_term()
        if self._timers is not None and not self._maintaining and (
                plan.index is not None
                or (self._compressed is not None and self._compressed.has_appends)):
            self._next_timer = self._timers.after_write(self._now_ms())
        plan.builtin_histories = self._prepare_builtin_histories()
        return plan

    def take_timer(self) -> int | None:
        """The maintenance timer (its time) the host must register for the run just committed,
        once; None: none needed."""
        at, self._next_timer = self._next_timer, None
        return at

    def maintain(self) -> PassReport:
        """One maintenance pass for the current key (buffered; commit it like a run), its LLM
        calls made on this thread. When it leaves work, :meth:`take_timer` returns the next
        timer."""
        return answer_inline(self.maintenance_steps(), self.llm)

    @property
    def llm(self) -> Any:
        """The LLM maintenance and the add pipeline ask (None: none configured)."""
        return None if self.long_term is None else self.long_term.llm

    def maintenance_steps(self) -> LLMSteps[PassReport]:
        """:meth:`maintain` as a step generator (memory/llm_steps.py): an async job's pass
        waits for its LLM calls off the task thread."""
        assert self.maintenance is not None and self.long_term is not None
        assert self._timers is not None
        self._maintaining = True
        self._timers.fired()
        now = self._now_ms()
        report = yield from run_pass(self.long_term, self.maintenance, self.meta, now,
                                     self.histories)
        if report.work_left:
            self._next_timer = self._timers.schedule(now)
        self.metrics.inc("maintenance.passes")
        self.metrics.inc("maintenance.compressed", report.compressed)
        self.metrics.inc("maintenance.merged", report.merged)
        self.metrics.inc("maintenance.forgotten", report.forgotten)
        self.metrics.inc("maintenance.synthesized", int(report.synthesized))
        return report

    def retry_maintenance(self) -> int:
        """A pass failed and was rolled back: record and return a timer to retry it (written
        at once, outside any run)."""
        assert self._timers is not None
        at = self._timers.schedule(self._now_ms())
        self.meta.flush()
        return at

    def _prepare_evictions(self) -> list[Writer]:
        """Phase 1: declared histories (their evictions may add long-term memories)."""
        return [w for h in self.histories.values() if (w := h.prepare()) is not None]

    def _prepare_long_term(self) -> Writer | None:
        """Phase 2: long-term retention and its audit events, then the embedding batch."""
        return None if self.long_term is None else self.long_term.prepare()

    def _prepare_builtin_histories(self) -> list[Writer]:
        """Phase 3: audit trail, recent memories, sensory window (after 1 and 2 added theirs)."""
        return [w for h in self._builtin if (w := h.prepare()) is not None]

    def write(self, plan: CommitPlan, timed: bool = False) -> None:
        """Apply a prepared plan, then the meta and short-term maps (``timed``: this run's
        flush is a histogram sample)."""
        plan.apply()
        # flushed even without writes: that also drops the run's cached reads of this key
        self.meta.flush()
        if self.access is not None:
            self.access.buffer.flush()
        stm = self.stm_buffer
        if timed and stm.pending_writes:
            start = time.perf_counter()
            stm.flush()
            self.metrics.observe("short_term.flush_us", (time.perf_counter() - start) * 1e6)
        else:
            stm.flush()  # also clears the run's cached reads, with or without writes
        self._reset()

    def _short_term_stats(self) -> dict[str, int]:
        """Pulled by the metrics recorder at each flush (no per-run cost)."""
        reads, writes, deletes, written = self.stm_buffer.take_stats()
        return {"short_term.reads": reads, "short_term.writes": writes,
                "short_term.deletes": deletes, "short_term.bytes_written": written}

    def rollback(self) -> None:
        """Drop the run's writes."""
        self.meta.discard()
        if self.access is not None:
            self.access.buffer.discard()
        self.stm_buffer.discard()
        self._next_timer = None
        self._reset()

    def _reset(self) -> None:
        self._maintaining = False
        if self._touched:
            for part in self._touched:
                part.discard()
            self._touched.clear()
        self.sensory.end_run()
