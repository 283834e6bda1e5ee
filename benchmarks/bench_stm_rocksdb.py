"""Short-term memory vs plain PyFlink state on RocksDB: bench_stm's two jobs, the state backend
``rocksdb`` instead of the heap (issue 14 asks for the short-term benchmark on both).

On RocksDB every state access is a lookup in an LSM tree on local disk (and a serialisation)
instead of a heap map's, so both jobs pay more per access; ours reads a run's paths ahead
with the element, which on RocksDB is one get per path read ahead.

    python -m benchmarks.bench_stm_rocksdb [--events 200000] [--keys 1000] [--reps 3]
"""

from __future__ import annotations

from typing import Any

from . import bench_stm
from .steady import rate_text

NAME = "stm_rocksdb"
TITLE = "Short-term memory vs plain PyFlink state, on RocksDB"
COMMAND = "python -m benchmarks.bench_stm_rocksdb --events 200000 --keys 1000 --reps 3"
BACKEND = "rocksdb"


def run(quick: bool) -> dict[str, Any]:
    """The suite's entry point. Full: 200k events, 1,000 keys, 3 reps; quick: 10k, 1 rep."""
    if quick:
        return bench_stm.measure(events=10_000, keys=1000, reps=1, backend=BACKEND)
    return bench_stm.measure(events=200_000, keys=1000, reps=3, backend=BACKEND)


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    return [{
        "figure": f"STM throughput on RocksDB (`state.backend.type: rocksdb`), 3 ops/event, "
                  f"{r['events']:,} events, {r['keys']:,} keys (steady state)",
        "ours": rate_text(r["ours"]["steady_events_per_s"]),
        "peer": f"{rate_text(r['raw']['steady_events_per_s'])} (plain KeyedProcessFunction, "
                "RocksDB)",
        "ratio": r["ratio_steady"], "target": "(reported; the 0.85x target is the heap's)",
        "met": None, "command": COMMAND,
    }]


def markdown(r: dict[str, Any]) -> str:
    return bench_stm.jobs_markdown(r)


def main() -> None:
    bench_stm.main(__doc__, backend=BACKEND)


if __name__ == "__main__":
    main()
