"""The calibrated default HNSW beam against explicit beams, side by side on one settled index.

    python -m benchmarks.calibrated_beam_ab --data clustered --count 30000 --beams 100 200
    python -m benchmarks.text_shaped --write java_udf/target/text-shaped.f32 --count 100500
    python -m benchmarks.calibrated_beam_ab --data java_udf/target/text-shaped.f32 --beams 200

Builds one key's index of ``--count`` vectors (bench_ltm's clustered ones, or the first rows of
a float32 file), lets it fold, searches ``--queries`` more vectors once at the default beam so it
calibrates, then alternates passes over the same queries at the default and at each of
``--beams`` (py4j; ``--rounds`` rounds) and prints each one's p50 / p95. Why: bench_ltm measures
the default and an explicit beam in two jobs one after the other, and the machine moves between
them; here they share a process, an index and the minutes they ran in.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from .data import clustered_unit_vectors
from .index_store import IndexStore


def vectors(data: str, count: int) -> np.ndarray:
    if data == "clustered":
        return clustered_unit_vectors(count, 384, seed=count)[0]
    return np.fromfile(data, dtype="<f4").reshape(-1, 384)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default="clustered", help="clustered, or a float32 file")
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--beams", type=int, nargs="+", default=[200])
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    rows = vectors(args.data, args.count + args.queries)
    data, queries = rows[:args.count], rows[args.count:]
    with tempfile.TemporaryDirectory(prefix="calibrated-beam-ab-") as tmp:
        store = IndexStore(Path(tmp))
        try:
            store.load_settled(data)
            for q in queries:  # untimed: the calibration's sample, and the JIT's warm-up
                store.search(q, 10)
            print(f"{store.segments()} segment(s), calibrated beam {store.await_calibration()}")
            passes: dict[int | None, list[float]] = {None: [], **{b: [] for b in args.beams}}
            for _ in range(args.rounds):
                for beam, latencies in passes.items():
                    for q in queries:
                        t = time.perf_counter_ns()
                        store.search(q, 10, vector_candidates=beam)
                        latencies.append((time.perf_counter_ns() - t) / 1000)
            for beam, latencies in passes.items():
                name = "default (calibrated)" if beam is None else f"vector_candidates {beam}"
                print(f"{name}: p50 {np.percentile(latencies, 50):,.0f} us, "
                      f"p95 {np.percentile(latencies, 95):,.0f} us")
        finally:
            store.close()


if __name__ == "__main__":
    main()
