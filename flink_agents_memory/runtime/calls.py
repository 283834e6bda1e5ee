"""Calls that an async run awaits: made off the task thread, handed back to it when done.

``await ctx.durable_execute_async(fn, ...)`` gives the run's driver a :class:`PendingCall`
(the coroutine yields it). The host submits it to a :class:`CallPool`, which runs a plain
function on a worker thread and an ``async def`` function on one event loop thread (so a call
that waits on a socket needs no thread of its own), and records the outcome. The task thread
asks :meth:`CallPool.completed` which runs can go on; only the task thread ever resumes a run,
so memory and Flink state are touched from that thread alone, under the run's key.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections import deque
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ..errors import CallTimeoutError

T = TypeVar("T")


class PendingCall:
    """One awaited call: what to run, and once settled its result or error."""

    __slots__ = ("fn", "args", "kwargs", "run_id", "deadline", "result", "error", "settled",
                 "on_settled")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> None:
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.run_id = -1
        self.deadline = 0.0
        self.result: Any = None
        self.error: BaseException | None = None
        self.settled = False
        #: Called on the worker thread once the outcome is known, before the run may go on
        #: (the durable log writes its record here).
        self.on_settled: Callable[[PendingCall], None] | None = None

    def __await__(self) -> Generator[PendingCall, PendingCall, Any]:
        """The driver sends the call back once settled (one protocol for every generator of
        calls, see runner._drive): its result, or its error raised."""
        settled = yield self
        if settled.error is not None:
            raise settled.error
        return settled.result

    @property
    def name(self) -> str:
        return getattr(self.fn, "__qualname__", None) or repr(self.fn)

    def run_inline(self) -> None:
        """Make the call on this thread (a host that runs everything synchronously)."""
        try:
            outcome = self.fn(*self.args, **self.kwargs)
            self.result = asyncio.run(outcome) if inspect.isawaitable(outcome) else outcome
        except Exception as e:
            self.error = e
        self.settled = True
        if self.on_settled is not None:
            self.on_settled(self)


def run_inline(steps: Generator[PendingCall, PendingCall, T]) -> T:
    """Drive a generator of calls to its end, making each call on this thread (a host that runs
    everything synchronously: the local runner, a sync job's maintenance, ``add_messages``)."""
    settled: PendingCall | None = None
    while True:
        try:
            call = steps.send(settled)  # type: ignore[arg-type]
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        call.run_inline()
        settled = call


class CallPool:
    """Worker threads and an event loop for the calls of runs in flight, with timeouts."""

    def __init__(self, workers: int, timeout_s: float) -> None:
        self._timeout_s = timeout_s
        self._workers = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fam-call")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        #: Calls settled by a worker or the loop, not yet handed to the task thread.
        self._settled: deque[PendingCall] = deque()
        #: Calls submitted and not handed back, by run id (to find the ones past their deadline).
        self._waiting: dict[int, PendingCall] = {}
        self._next_deadline = float("inf")

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def submit(self, call: PendingCall) -> None:
        call.deadline = time.monotonic() + self._timeout_s
        self._waiting[call.run_id] = call
        self._next_deadline = min(self._next_deadline, call.deadline)
        if inspect.iscoroutinefunction(call.fn):
            future = asyncio.run_coroutine_threadsafe(
                call.fn(*call.args, **call.kwargs), self._event_loop())
            future.add_done_callback(lambda f: self._settle_future(call, f))
        else:
            self._workers.submit(self._run, call)

    def _run(self, call: PendingCall) -> None:
        try:
            result, error = call.fn(*call.args, **call.kwargs), None
        except BaseException as e:  # noqa: BLE001 - whatever it was, the run gets it back
            result, error = None, e
        self._settle(call, result, error)

    def _settle_future(self, call: PendingCall, future: Any) -> None:
        error = future.exception()
        self._settle(call, None if error else future.result(), error)

    def _settle(self, call: PendingCall, result: Any, error: BaseException | None) -> None:
        with self._lock:
            if call.settled:  # timed out already
                return
            call.result, call.error, call.settled = result, error, True
        if call.on_settled is not None:
            call.on_settled(call)
        self._settled.append(call)

    def completed(self) -> list[int]:
        """Run ids whose call has settled (or timed out) since the last call, on the task
        thread; each is handed back once."""
        ready = []
        while self._settled:
            call = self._settled.popleft()
            if self._waiting.pop(call.run_id, None) is call:
                ready.append(call.run_id)
        now = time.monotonic()
        if now >= self._next_deadline:
            ready.extend(self._expire(now))
        return ready

    def _expire(self, now: float) -> list[int]:
        expired = []
        self._next_deadline = float("inf")
        for run_id, call in list(self._waiting.items()):
            if call.deadline > now:
                self._next_deadline = min(self._next_deadline, call.deadline)
                continue
            with self._lock:
                if call.settled:
                    continue
                call.error = CallTimeoutError(
                    f"call {call.name} did not finish within {self._timeout_s:g} s "
                    "(AgentConfig.call_timeout_ms)")
                call.settled = True
            del self._waiting[run_id]
            if call.on_settled is not None:
                call.on_settled(call)
            expired.append(run_id)
        return expired

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="fam-call-loop", daemon=True).start()
            self._loop = loop
        return self._loop

    def close(self) -> None:
        self._workers.shutdown(wait=False, cancel_futures=True)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
