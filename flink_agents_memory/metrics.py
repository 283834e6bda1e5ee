"""Metrics of the agent loop and every memory kind, named ``agents.memory.<kind>.<name>``.

Figures are accumulated in plain Python numbers and handed to the operator's Java
``AgentMetrics`` in a few calls per flush interval, never per event: a state access costs about
a microsecond and a metric update through PEMJA as much, so per-event updates would cost more
than the 5% budget. See docs/operations.md for the list.
"""

from __future__ import annotations

import time
from array import array
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .jvm import AgentMetrics

DEFAULT_FLUSH_S = 0.2


class MetricsRecorder:
    """Counters, gauges and histogram samples, flushed to a sink (Java AgentMetrics) at most
    every ``flush_s`` seconds; with no sink it only accumulates (unit tests read it)."""

    def __init__(self, sink: AgentMetrics | None = None, flush_s: float = DEFAULT_FLUSH_S,
                 enabled: bool = True) -> None:
        self.enabled = enabled
        self._sink = sink if enabled else None
        self._flush_s = flush_s
        self._last_flush = time.monotonic()
        self.counters: defaultdict[str, int] = defaultdict(int)
        self.gauges: dict[str, int] = {}
        self._samples: defaultdict[str, array] = defaultdict(lambda: array("q"))
        self._collectors: list[Callable[[], dict[str, int]]] = []

    def add_collector(self, collect: Callable[[], dict[str, int]]) -> None:
        """``collect()`` returns counter deltas; called at each flush (for figures that are
        cheaper to keep as plain attributes on the hot path than to count per run)."""
        self._collectors.append(collect)

    def inc(self, name: str, n: int = 1) -> None:
        self.counters[name] += n

    def gauge(self, name: str, value: int) -> None:
        self.gauges[name] = int(value)

    def observe(self, name: str, value: float) -> None:
        """A histogram sample (latencies in microseconds, sizes in units)."""
        self._samples[name].append(int(value))

    def maybe_flush(self) -> None:
        """Flush if the interval has passed (called at the start and end of every run)."""
        if self.enabled and time.monotonic() - self._last_flush >= self._flush_s:
            self.flush()

    def flush(self) -> None:
        self._last_flush = time.monotonic()
        for collect in self._collectors:
            for name, n in collect().items():
                self.counters[name] += n
        for name, n in self.counters.items():
            if n and self._sink is not None:
                self._sink.count(name, n)
        self.counters.clear()
        if self._sink is not None:
            for name, value in self.gauges.items():
                self._sink.gauge(name, value)
            for name, samples in self._samples.items():
                if samples:
                    self._sink.observe(name, samples.tobytes())
        self._samples.clear()


class Timer:
    """``with Timer(metrics, "long_term.search_us.hybrid"):`` records elapsed microseconds."""

    __slots__ = ("_metrics", "_name", "_start")

    def __init__(self, metrics: MetricsRecorder, name: str) -> None:
        self._metrics = metrics
        self._name = name
        self._start = 0.0

    def __enter__(self) -> Timer:
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._metrics.observe(self._name, (time.perf_counter() - self._start) * 1e6)
