"""Runs in flight on one subtask, for an agent with async actions (the Python side of the
operator's AsyncRunDriver).

Each run gets a run context of its own, so its buffered memory writes stay apart from the
other runs' until it commits; contexts are reused once their run ends. A run that awaits a
call is suspended here while the call runs on the :class:`CallPool`; the operator polls
:meth:`InFlightRuns.settled`, sets the run's key and calls :meth:`InFlightRuns.resume`.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from ..metrics import MetricsRecorder
from .calls import CallPool
from .config import AgentConfig
from .executor import Run, RunExecutor
from .run_context import RunContext

#: What a step of a run gives the host: its outputs (empty while it waits) and its id while it
#: waits (None once it ended).
Step = tuple[list[Any], int | None]


class InFlightRuns:
    """Starts, suspends and resumes runs; one per subtask."""

    def __init__(self, executor: RunExecutor, new_context: Callable[[], RunContext],
                 config: AgentConfig, metrics: MetricsRecorder) -> None:
        self._executor = executor
        self._new_context = new_context
        self._metrics = metrics
        self._pool = CallPool(config.max_runs_in_flight, config.call_timeout_ms / 1000)
        self._free: list[RunContext] = []
        self._runs: dict[int, Run] = {}
        self._next_id = 0
        #: Keys with a run waiting (maintenance passes on them wait until it ends), and those
        #: whose waiting run is a maintenance pass.
        self._busy: Counter[Any] = Counter()
        self._passes: set[Any] = set()
        self._started: dict[int, float] = {}
        #: The run that ended last (its maintenance timer is registered next).
        self.last_ended: Run | None = None

    def start(self, value: Any, key: Any, now_ms: int) -> Step:
        ctx = self._free.pop() if self._free else self._new_context()
        run_id = self._next_id
        self._next_id += 1
        run = self._executor.begin(run_id, ctx, value, lambda: key, now_ms)
        return self._step(run, key)

    def start_maintenance(self, key: Any, now_ms: int) -> Step:
        """A maintenance pass for ``key`` as a run: its LLM calls wait off the task thread."""
        ctx = self._free.pop() if self._free else self._new_context()
        run_id = self._next_id
        self._next_id += 1
        run = self._executor.begin_maintenance(run_id, ctx, lambda: key, now_ms)
        return self._step(run, key)

    def chain_maintenance(self, ended: Run, at: int) -> Step:
        """The next pass of the key whose pass just ended, at ``at``, under the same run id (the
        operator keeps the key's inputs behind it as for the pass before)."""
        key = ended.ctx.key
        self._free.remove(ended.ctx)
        run = self._executor.begin_maintenance(ended.id, ended.ctx, lambda: key, at)
        return self._step(run, key)

    def resume(self, run_id: int) -> Step:
        run = self._runs[run_id]
        call = run.call
        assert call is not None and call.settled
        self._metrics.observe("async.call_latency_us",
                              (time.perf_counter() - self._started.pop(run_id)) * 1e6)
        if isinstance(call.error, TimeoutError):
            self._metrics.inc("async.call_timeouts")
        return self._step(run, run.ctx.key)

    def _step(self, run: Run, key: Any) -> Step:
        outputs = self._executor.advance(run)
        call = run.call
        if call is not None:
            if run.id not in self._runs:
                self._runs[run.id] = run
                self._busy[_hashable(key)] += 1
                if run.maintenance:
                    self._passes.add(_hashable(key))
            call.run_id = run.id
            self._started[run.id] = time.perf_counter()
            self._pool.submit(call)
            self._metrics.inc("async.calls")
            return [], run.id
        if self._runs.pop(run.id, None) is not None:
            self._busy[_hashable(key)] -= 1
            if not self._busy[_hashable(key)]:
                del self._busy[_hashable(key)]
            if run.maintenance:
                self._passes.discard(_hashable(key))
        self._free.append(run.ctx)
        self.last_ended = run
        assert outputs is not None
        return outputs, None

    def settled(self) -> list[int]:
        return self._pool.completed()

    def durable_records(self) -> list[str]:
        """The durable call outcomes of every waiting run (a checkpoint's log segment starts
        with them)."""
        return [record for run in self._runs.values() for record in run.ctx.durable_records]

    def is_busy(self, key: Any) -> bool:
        """Whether a run of ``key`` waits on a call."""
        return _hashable(key) in self._busy

    def is_maintaining(self, key: Any) -> bool:
        """Whether a maintenance pass of ``key`` waits on a call."""
        return _hashable(key) in self._passes

    def close(self) -> None:
        self._pool.close()


def _hashable(key: Any) -> Any:
    try:
        hash(key)
    except TypeError:
        return repr(key)
    return key
