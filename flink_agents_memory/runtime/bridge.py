"""Hands Java objects from MemoryAgentOperator to the Python function of the same subtask.

The operator calls :func:`offer` in ``openPythonInterpreter()`` on the task thread, right before
PyFlink creates the Python function and calls its ``open()`` on that same thread; ``open()``
then calls :func:`take`. Thread-local, because subtasks of one TaskManager share the
interpreter but each opens on its own thread.
"""

from __future__ import annotations

import threading
from typing import Any

_local = threading.local()


def offer(store: Any) -> None:
    """Called by the operator (Java) with this subtask's LongTermMemoryStore."""
    _local.store = store


def take() -> Any | None:
    """The store offered on this thread, once; None when not run by MemoryAgentOperator."""
    store = getattr(_local, "store", None)
    _local.store = None
    return store
