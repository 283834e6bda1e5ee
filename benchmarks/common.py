"""What every benchmark shares: the machine description, timing, medians."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

from pyflink.common import Configuration, Types, WatermarkStrategy
from pyflink.datastream import DataStream, StreamExecutionEnvironment
from pyflink.datastream.connectors.number_seq import NumberSequenceSource


def machine() -> dict[str, Any]:
    """Cores, memory and versions, stated beside every figure."""
    from pyflink import version

    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "cores": os.cpu_count(),
        "memory_gb": round(mem_gb, 1),
        "python": platform.python_version(),
        "apache_flink": version.__version__,
    }


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def summary(samples: list[float]) -> dict[str, float]:
    """Median with min and max (the figures in docs/benchmarks.md)."""
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def bench_env(parallelism: int = 1) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    env.set_parallelism(parallelism)
    return env


def keyed_input(env: StreamExecutionEnvironment, events: int, keys: int) -> DataStream:
    """``"k<i % keys>|<i>"`` from a bounded sequence source."""
    return env.from_source(
        NumberSequenceSource(0, events - 1), WatermarkStrategy.no_watermarks(), "events"
    ).map(lambda i: f"k{i % keys}|{i}", output_type=Types.STRING())
