"""All memory of one subtask: the states, declared once in ``open()``, and the run commit.

A run's writes are buffered everywhere; :meth:`MemoryRuntime.commit` first *prepares* every
kind (history trims and reducers, long-term embedding and checks) without writing, then writes
them all, so a failure while preparing leaves every kind of memory as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..agent import Agent
from ..errors import MemoryValueError
from ..memory.audit import AuditTrail
from ..memory.history import History, ListBackend
from ..memory.long_term import LongTermMemory
from ..memory.retention import Retention
from ..memory.sensory import SensoryMemory
from ..memory.short_term import ShortTermMemory, StoredMemoryObject
from ..memory.store import KeyValueStore, RunBuffer
from ..metrics import MetricsRecorder
from .config import AgentConfig

AUDIT = "__audit__"
RECENT = "__recent__"
SENSORY = "__sensory__"


class StateFactory:
    """Creates the keyed states (Flink's in a job, in-memory ones in unit tests)."""

    def map_state(self, name: str) -> KeyValueStore:
        raise NotImplementedError

    def list_state(self, name: str) -> ListBackend:
        raise NotImplementedError


class MemoryRuntime:
    """Owns every memory kind of a subtask; one run at a time uses it."""

    def __init__(self, agent: Agent, config: AgentConfig, states: StateFactory,
                 store: Any | None, now_ms: Callable[[], int], key: Callable[[], Any],
                 actor: Callable[[], str | None], metrics: MetricsRecorder | None = None) -> None:
        self.config = config
        self.metrics = metrics or MetricsRecorder(enabled=False)
        #: Histories and long-term memory this run used: a run touching none (the common
        #: short-term-only case) commits and resets without visiting them.
        self._touched: set[Any] = set()
        self.metrics.add_collector(self._short_term_stats)
        #: The agent's shared knowledge bases (``Agent.knowledge_bases``), for search_knowledge.
        self.knowledge_bases = list(getattr(agent, "knowledge_bases", None) or [])
        self.stm_buffer = RunBuffer(states.map_state("flink_agents_memory.short_term"))
        self.meta = RunBuffer(states.map_state("flink_agents_memory.meta"))
        self._now_ms = now_ms
        self._actor = actor
        self._store = store

        def history(name: str, retention: Retention) -> History:
            backend = states.list_state(f"flink_agents_memory.history.{name}")
            return History(name, retention, backend, self.meta, now_ms, self._evict_to_long_term,
                           self.metrics, self._touched)

        self.histories = {name: history(name, r) for name, r in agent.histories.items()}
        ltm = agent.long_term_memory
        self.audit = AuditTrail(history(AUDIT, ltm.audit))
        self._builtin = [self.audit._history, history(RECENT, ltm.recent)]
        window = history(SENSORY, Retention(max_items=config.sensory_window)) \
            if config.sensory_window else None
        if window is not None:
            self._builtin.append(window)
        self.sensory = SensoryMemory(window)
        listener = self._audit_short_term if config.audit_short_term else None
        self.stm_root = StoredMemoryObject(
            ShortTermMemory(self.stm_buffer, config.max_value_bytes, listener))
        self.long_term = None if store is None else LongTermMemory(
            store, ltm, self._builtin[1], self.audit, self.meta, now_ms, key, actor, self.metrics,
            self._touched)

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
        if self.long_term is None:
            raise MemoryValueError(
                f"history {name!r} moves evicted items to long-term memory, which is not "
                "available here (the job does not run in MemoryAgentOperator)"
            )
        for value in values:
            text = value if isinstance(value, str) else str(value)
            self.long_term.add(text, metadata={"source": "history", "history": name})

    def on_checkpoint(self) -> None:
        """Before the index is written into a checkpoint: purge expired long-term memories
        (they are never returned; this keeps them out of the snapshot)."""
        if self.long_term is not None and self.long_term.config.ttl_ms is not None:
            # processing time moves on without elements; event time only with them
            now = (int(time.time() * 1000) if self.config.retention_time == "processing"
                   else self._now_ms())
            if now > 0:
                self.metrics.inc("long_term.purged", self._store.purgeExpired(now))

    def prepare_commit(self) -> list[Callable[[], None]]:
        """Everything that can fail on bad input (reducers, embedding, checks), no writes."""
        if not self._touched:
            return []
        writers = [w for h in self.histories.values() if (w := h.prepare()) is not None]
        if self.long_term is not None:
            ltm_writer = self.long_term.prepare()
            if ltm_writer is not None:
                writers.insert(0, ltm_writer)
        writers += [w for h in self._builtin if (w := h.prepare()) is not None]
        return writers

    def write(self, writers: list[Callable[[], None]], timed: bool = False) -> None:
        """Apply prepared writes: the index, the histories, then the map states (``timed``:
        this run's flush is a histogram sample)."""
        for write in writers:
            write()
        if self.meta.pending_writes:
            self.meta.flush()
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
        self.stm_buffer.discard()
        self._reset()

    def _reset(self) -> None:
        if self._touched:
            for part in self._touched:
                part.discard()
            self._touched.clear()
        self.sensory.end_run()
