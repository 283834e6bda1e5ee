"""Hands Java objects from MemoryAgentOperator to the Python function of the same subtask, and
runs each element's PyFlink operation in one call from the operator (:class:`DirectEntry`).

The operator calls :func:`offer` in ``openPythonInterpreter()`` on the task thread, right before
PyFlink creates the Python function and calls its ``open()`` on that same thread; ``open()``
then calls :func:`take`. Thread-local, because subtasks of one TaskManager share the
interpreter but each opens on its own thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from ..jvm import AgentMetrics, ElementCallState, LongTermMemoryStore, StateReads
from .element_call import ElementCallStore

_local = threading.local()

Offered = tuple[LongTermMemoryStore | None, AgentMetrics | None, StateReads | None,
                ElementCallState | None]
_NOTHING: Offered = (None, None, None, None)


def offer(store: LongTermMemoryStore | None, metrics: AgentMetrics | None = None,
          state_reads: StateReads | None = None,
          element_call_state: ElementCallState | None = None) -> None:
    """Called by the operator (Java) with this subtask's LongTermMemoryStore, AgentMetrics,
    StateReads and ElementCallState."""
    _local.objects = (store, metrics, state_reads, element_call_state)


def carry(store: ElementCallStore) -> None:
    """Called by the Python function's ``open()``: the store whose state accesses travel with
    each element's call, for the :class:`DirectEntry` the operator creates next."""
    _local.carried = store


class AsyncHost(Protocol):
    """The Python function's side of runs in flight (runtime/function.py)."""

    def async_settings(self) -> list[int] | None: ...

    def take_waiting(self) -> int | None: ...

    def resume_next(self, run_id: int) -> None: ...

    def restart_next_pass(self) -> None: ...

    def take_chained_at(self) -> int | None: ...

    def settled(self) -> list[int]: ...

    def durable_log_at(self, directory: str, subtask: int, attempt: int,
                       restored_from: str | None) -> None: ...

    def durable_checkpoint(self, checkpoint_id: int, completed: bool) -> None: ...


def host(function: AsyncHost) -> None:
    """Called by the Python function's ``open()``: the :class:`DirectEntry` created next goes
    on with waiting runs through it."""
    _local.host = function


def on_checkpoint_call(callback: Callable[[], None]) -> None:
    """Called by the Python function: ``callback()`` runs at every checkpoint of its operator."""
    _local.callbacks = [*getattr(_local, "callbacks", []), callback]


def on_checkpoint() -> None:
    """Called by the operator (Java) in snapshotState, on the task thread: metrics reach
    Flink at least once per checkpoint, also when no element arrives."""
    for callback in getattr(_local, "callbacks", []):
        callback()


def take() -> Offered:
    """``(store, metrics, state_reads, element_call_state)`` offered on this thread, once; Nones
    when not run by the operator."""
    objects = getattr(_local, "objects", _NOTHING)
    _local.objects = _NOTHING
    return objects


class PyFlinkOperation(Protocol):
    """PyFlink's embedded ``OneInputFunctionOperation``: converters, the function, its chained
    functions and side outputs, yielding the converted outputs."""

    def process_element(self, value: Any) -> Iterable[Any]: ...


    def on_timer(self, timestamp: int) -> Iterable[Any]: ...


#: What an element's call returns to the operator: its outputs, the paths to read ahead from
#: the next element on (None: unchanged), short-term memory's writes (None: none) and the id of
#: its run if the run waits on a call (None: it ended).
Returned = tuple[list[Any], list[str] | None, dict[str, str] | None, int | None]


class DirectEntry:
    """What MemoryAgentOperator calls per element: PyFlink's operation, its outputs collected
    here, in Python. PyFlink's operator walks the operation's generator from Java (a call to
    start it, ``hasNext``, ``close``), three crossings of the JVM-Python boundary per element
    instead of this one (docs/architecture.md). Short-term memory's reads ahead come with the
    element and its writes go back with the outputs (runtime/element_call.py)."""

    def __init__(self, operation: PyFlinkOperation) -> None:
        self._process = operation.process_element
        self._on_timer = operation.on_timer
        self._carried: ElementCallStore | None = getattr(_local, "carried", None)
        _local.carried = None
        self._host: AsyncHost | None = getattr(_local, "host", None)
        _local.host = None

    def process_element(self, value: Any, ahead: list[str | None] | None) -> Returned:
        carried = self._carried
        if carried is None:
            outputs = list(self._process(value))
            return outputs, None, None, self._host.take_waiting() if self._host else None
        carried.begin(ahead)
        try:
            outputs = list(self._process(value))
        except BaseException:
            carried.abandon()
            raise
        keys, puts = carried.end()
        return outputs, keys, puts, None

    # -- runs in flight (an agent with async actions) ---------------------------------------------
    def async_settings(self) -> list[int] | None:
        """``[max runs in flight, max inputs waiting]``, or None for an agent without async
        actions (every run then ends in its element's call)."""
        return None if self._host is None else self._host.async_settings()

    def resume(self, run_id: int) -> tuple[list[Any], int | None, int | None]:
        """Go on with run ``run_id`` (the operator has set its key): ``(outputs, its id if it
        waits again, the time of the next maintenance pass it became if it did)``. It goes
        through PyFlink's timer path, the one other way into the
        operation that applies chained functions, side outputs and converters as an element's
        call does; the function tells the resumption from a timer (runtime/function.py)."""
        assert self._host is not None
        self._host.resume_next(run_id)
        outputs = list(self._on_timer(0))
        return outputs, self._host.take_waiting(), self._host.take_chained_at()

    def settled(self) -> list[int]:
        """Ids of waiting runs whose calls settled (or timed out) since the last time."""
        return [] if self._host is None else self._host.settled()

    def take_waiting(self) -> int | None:
        """The run a timer just started, if it waits on a call (a maintenance pass)."""
        return None if self._host is None else self._host.take_waiting()

    def restart_pass(self, timestamp: int) -> tuple[list[Any], int | None]:
        """Run again the maintenance pass of the current key that was waiting when the
        restored checkpoint was taken (its timer had fired, so the checkpoint holds none):
        ``(outputs, its run id if it waits)``. Through the timer path, as :meth:`resume`."""
        assert self._host is not None
        self._host.restart_next_pass()
        outputs = list(self._on_timer(timestamp))
        return outputs, self._host.take_waiting()

    # -- durable calls (runtime/durable.py) -------------------------------------------------------
    def durable_log_at(self, directory: str, subtask: int, attempt: int,
                       restored_from: str | None) -> None:
        """Where this subtask attempt logs durable call outcomes (a local or mounted folder
        under the job's checkpoint directory), and the earlier job's folder when it was
        restored from a retained checkpoint."""
        if self._host is not None:
            self._host.durable_log_at(directory, subtask, attempt, restored_from)

    def durable_checkpoint(self, checkpoint_id: int, completed: bool) -> None:
        """A checkpoint's barrier (``completed`` False) or its completion."""
        if self._host is not None:
            self._host.durable_checkpoint(checkpoint_id, completed)
