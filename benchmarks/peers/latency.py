"""Per-event timings recorded inside a running job (the embedded interpreter in the JVM).

Two figures per event, both in microseconds:

* ``action``: the memory operations inside the action body;
* ``service``: the gap between the starts of two consecutive actions on the same subtask
  thread. The source is never slower than the agent here (the job is saturated), so this is the
  whole per-event cost as the framework sees it: deserialisation, the run, the commit of its
  memory writes and the framework's own bookkeeping. Gaps over 1 s (job boundaries) are dropped.

Samples are buffered per thread and appended to ``$BENCH_LAT_DIR/<pid>-<thread>.txt`` every
``FLUSH`` events; the driver empties the folder before a timed job and reads it after.
"""

from __future__ import annotations

import os
import threading
import time

FLUSH = 500
_local = threading.local()


def _state():
    st = getattr(_local, "st", None)
    if st is None:
        st = _local.st = {"last": None, "buf": []}
    return st


def start() -> int:
    """Call first thing in the action; returns the start time for :func:`stop`."""
    now = time.perf_counter_ns()
    st = _state()
    last = st["last"]
    st["last"] = now
    st["gap"] = now - last if last is not None and now - last < 1_000_000_000 else -1
    return now


def stop(started: int) -> None:
    st = _state()
    st["buf"].append(f"{(time.perf_counter_ns() - started) // 1000} {st['gap'] // 1000}\n")
    if len(st["buf"]) >= FLUSH:
        folder = os.environ.get("BENCH_LAT_DIR")
        if folder:
            name = f"{os.getpid()}-{threading.get_ident()}.txt"
            with open(os.path.join(folder, name), "a") as f:
                f.writelines(st["buf"])
        st["buf"] = []
        st["last"] = None  # the flush itself is not an event's cost


def read(folder: str) -> tuple[list[int], list[int]]:
    """(action, service) samples in microseconds from every file in ``folder``."""
    action: list[int] = []
    service: list[int] = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            for line in f:
                a, s = line.split()
                action.append(int(a))
                if int(s) >= 0:
                    service.append(int(s))
    return action, service


def clear(folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))


def windows(samples: list[int], count: int) -> list[float]:
    """Median of each of ``count`` consecutive, equal slices of ``samples`` (in stream order)."""
    import statistics

    if not samples:
        return []
    size = max(1, len(samples) // count)
    return [statistics.median(samples[i:i + size]) for i in range(0, size * count, size)
            if samples[i:i + size]]
