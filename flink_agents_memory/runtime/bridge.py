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

from ..jvm import AgentMetrics, LongTermMemoryStore, StateReads

_local = threading.local()

Offered = tuple[LongTermMemoryStore | None, AgentMetrics | None, StateReads | None]


def offer(store: LongTermMemoryStore | None, metrics: AgentMetrics | None = None,
          state_reads: StateReads | None = None) -> None:
    """Called by the operator (Java) with this subtask's LongTermMemoryStore, AgentMetrics and
    StateReads."""
    _local.objects = (store, metrics, state_reads)


def on_checkpoint_call(callback: Callable[[], None]) -> None:
    """Called by the Python function: ``callback()`` runs at every checkpoint of its operator."""
    _local.callbacks = [*getattr(_local, "callbacks", []), callback]


def on_checkpoint() -> None:
    """Called by the operator (Java) in snapshotState, on the task thread: metrics reach
    Flink at least once per checkpoint, also when no element arrives."""
    for callback in getattr(_local, "callbacks", []):
        callback()


def take() -> Offered:
    """``(store, metrics, state_reads)`` offered on this thread, once; Nones when not run by the
    operator."""
    objects = getattr(_local, "objects", (None, None, None))
    _local.objects = (None, None, None)
    return objects


class PyFlinkOperation(Protocol):
    """PyFlink's embedded ``OneInputFunctionOperation``: converters, the function, its chained
    functions and side outputs, yielding the converted outputs."""

    def process_element(self, value: Any) -> Iterable[Any]: ...


class DirectEntry:
    """What MemoryAgentOperator calls per element: PyFlink's operation, its outputs collected
    here, in Python. PyFlink's operator walks the operation's generator from Java (a call to
    start it, ``hasNext``, ``close``), three crossings of the JVM-Python boundary per element
    instead of this one (docs/architecture.md)."""

    def __init__(self, operation: PyFlinkOperation) -> None:
        self._process = operation.process_element

    def process_element(self, value: Any) -> list[Any]:
        return list(self._process(value))
