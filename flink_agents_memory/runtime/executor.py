"""One run from input to committed memory, with the agent's error policy and its metrics.

Shared by the Flink function and the local runner, so both behave the same:
* the run and the *prepare* half of the commit are guarded: a failure there leaves memory as
  it was, and the policy decides (``fail`` re-raises, ``skip`` logs and counts,
  ``dead_letter`` returns a :class:`DeadLetter`);
* the *write* half is not guarded: an error while writing state or the index is an
  infrastructure failure and always fails the job, which restores from its checkpoint. User
  data never gets that far unchecked (memory/validation.py refuses it while preparing), and
  whatever the write left buffered is dropped, so the next run does not write it again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from ..errors import ActionFailedError
from ..memory.llm_steps import as_calls
from ..metrics import MetricsRecorder
from .calls import PendingCall
from .config import AgentConfig
from .run_context import RunContext
from .runner import AgentRunner

log = logging.getLogger(__name__)

SAMPLE_EVERY = 16


@dataclass(frozen=True)
class DeadLetter:
    """A failed run's input, what went wrong and in which action."""

    key: Any
    input: Any
    error: str
    error_type: str
    action: str | None


@dataclass
class Run:
    """A run that may wait on calls: its own context, its input and where it stands."""

    id: int
    ctx: RunContext
    value: Any
    steps: Generator[PendingCall, PendingCall, list[Any]] = field(repr=False)
    #: The call it waits on (None: not waiting).
    call: PendingCall | None = None
    #: A maintenance pass (no input; its failure is retried, never the error policy's).
    maintenance: bool = False
    #: The maintenance timer the ended run asks for (None: none).
    timer: int | None = None


class RunExecutor:
    def __init__(self, runner: AgentRunner, ctx: RunContext, config: AgentConfig,
                 metrics: MetricsRecorder) -> None:
        self._runner = runner
        self._ctx = ctx
        self._policy = config.on_error
        self._metrics = metrics
        self._runs = 0
        metrics.add_collector(self._collect)

    def _collect(self) -> dict[str, int]:
        runs, self._runs = self._runs, 0
        return {"agent.runs": runs}

    def execute(self, value: Any, key: Callable[[], Any], now_ms: int) -> list[Any]:
        """The run's outputs (or ``[DeadLetter]``); raises only under the ``fail`` policy or
        when writing the committed memory fails."""
        metrics = self._metrics
        self._runs += 1
        # Latency histograms take one run in SAMPLE_EVERY: timing every run would cost more
        # than the 5% metrics budget; counts stay exact.
        sampled = self._runs % SAMPLE_EVERY == 0 and metrics.enabled
        start = time.perf_counter() if sampled else 0.0
        ctx = self._ctx
        try:
            ctx.begin(key, now_ms, value)
            outputs = self._runner.run(value, ctx)
            plan = ctx.runtime.prepare_commit()
        except Exception as e:
            self._runs -= 1
            ctx.rollback()
            ctx.end_durable()
            return self._failed(value, e, ctx.key)
        try:
            ctx.runtime.write(plan, sampled)
        except BaseException:
            ctx.rollback()
            raise
        finally:
            ctx.end_durable()
        if sampled:
            metrics.observe("agent.events_per_run", self._runner.last_events)
            metrics.observe("agent.run_latency_us", (time.perf_counter() - start) * 1e6)
            metrics.maybe_flush()
        return outputs

    def begin(self, run_id: int, ctx: RunContext, value: Any, key: Callable[[], Any],
              now_ms: int) -> Run:
        """A run in ``ctx`` (a context of its own) that :meth:`advance` takes forward."""
        self._runs += 1
        ctx.begin(key, now_ms, value)
        return Run(run_id, ctx, value, self._runner.steps(value, ctx))

    def begin_maintenance(self, run_id: int, ctx: RunContext, key: Callable[[], Any],
                          now_ms: int) -> Run:
        """A maintenance pass as a run of its own, whose LLM calls are made off the task
        thread (memory/llm_steps.py)."""
        ctx.begin_maintenance(key, now_ms)
        runtime = ctx.runtime

        def steps() -> Generator[PendingCall, PendingCall, list[Any]]:
            yield from as_calls(runtime.maintenance_steps(), runtime.llm)
            return []

        return Run(run_id, ctx, None, steps(), maintenance=True)

    def advance(self, run: Run) -> list[Any] | None:
        """Take ``run`` on until it awaits a call (None; ``run.call`` is that call) or ends
        (its outputs, or ``[DeadLetter]``, as :meth:`execute` returns them; a maintenance pass
        ends with none and sets ``run.timer``)."""
        ctx = run.ctx
        settled, run.call = run.call, None
        try:
            try:
                run.call = run.steps.send(settled)  # type: ignore[arg-type]
                return None
            except StopIteration as done:
                outputs: list[Any] = done.value
            plan = ctx.runtime.prepare_commit()
        except Exception as e:
            ctx.rollback()
            ctx.end_durable()
            if run.maintenance:
                run.timer = self._maintenance_failed(ctx, e)
                return []
            self._runs -= 1
            return self._failed(run.value, e, ctx.key)
        try:
            ctx.runtime.write(plan)
        except BaseException:
            ctx.rollback()
            raise
        finally:
            ctx.end_durable()
        if run.maintenance:
            run.timer = ctx.runtime.take_timer()
        return outputs

    def _maintenance_failed(self, ctx: RunContext, error: Exception) -> int:
        """A pass that failed (rolled back already): logged, counted, retried later."""
        self._metrics.inc("maintenance.failures")
        log.warning("maintenance of key %r failed, retried later: %s", ctx.key, error)
        return ctx.runtime.retry_maintenance()

    def maintain(self, key: Callable[[], Any], now_ms: int) -> int | None:
        """One maintenance pass for ``key()`` at ``now_ms``, committed like a run; returns the
        next timer to register (None: none). A pass that fails is rolled back, logged, counted
        and retried a maintenance interval later, whatever the error policy: there is no input
        to skip or dead-letter, and failing the job would only replay the same pass."""
        ctx = self._ctx
        runtime = ctx.runtime
        try:
            ctx.begin_maintenance(key, now_ms)
            runtime.maintain()
            plan = runtime.prepare_commit()
        except Exception as e:
            ctx.rollback()
            return self._maintenance_failed(ctx, e)
        try:
            runtime.write(plan)
        except BaseException:
            ctx.rollback()
            raise
        return runtime.take_timer()

    def _failed(self, value: Any, error: Exception, key: Any) -> list[Any]:
        self._metrics.inc("agent.failed_runs")
        if self._policy == "fail":
            raise error
        action = error.action if isinstance(error, ActionFailedError) else None
        if self._policy == "skip":
            self._metrics.inc("agent.skipped_runs")
            log.warning("skipped a failed run for key %r: %s", key, error)
            return []
        self._metrics.inc("agent.dead_lettered_runs")
        return [DeadLetter(key=key, input=value, error=str(error),
                           error_type=type(error).__name__, action=action)]
