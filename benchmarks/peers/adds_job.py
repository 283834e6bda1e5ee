"""Our side of the real-text add benchmark: a job adds texts with MiniLM (own process).

    python -m benchmarks.peers.adds_job --texts T.json --keys 10 --batch 20 --out result.json

One job, parallelism 1, one source subtask: a warm-up event that loads the model, the add
events (``--batch`` texts of one key per event, keys in turn), then an end mark. The add
phase is timed inside the TaskManager from the first add's start to the end mark.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--texts", required=True, help="JSON list of texts")
    p.add_argument("--keys", type=int, default=10)
    p.add_argument("--batch", type=int, default=20)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    out_dir = tempfile.mkdtemp(prefix="bench-adds-")
    os.environ["BENCH_ADDS_OUT"] = out_dir
    os.environ["BENCH_ADDS_TEXTS"] = str(Path(a.texts).resolve())
    sys.path.insert(0, str(ROOT))
    from pyflink.common import Configuration, Types, WatermarkStrategy
    from pyflink.datastream import StreamExecutionEnvironment
    from pyflink.datastream.connectors.number_seq import NumberSequenceSource

    from flink_agents_memory import AgentsExecutionEnvironment

    from .adds_agent import AddsAgent

    n = len(json.loads(Path(a.texts).read_text(encoding="utf-8")))
    adds = (n + a.batch - 1) // a.batch

    def label(e: int) -> str:
        if e == 0:
            return "w|k0|0|0"
        if e > adds:
            return "m|k0|0|0"
        first = (e - 1) * a.batch
        return f"a|k{(e - 1) % a.keys}|{first}|{min(a.batch, n - first)}"

    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    env.set_parallelism(1)
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = env.from_source(NumberSequenceSource(0, adds + 1), WatermarkStrategy.no_watermarks(),
                         "texts").map(label, output_type=Types.STRING())
    agents.from_datastream(ds, lambda v: v.split("|")[1]).apply(AddsAgent()) \
        .to_datastream(Types.STRING()).print()
    env.execute("bench-adds-real-text")

    start, end = (json.loads(Path(out_dir, f"{m}.json").read_text()) for m in ("start", "end"))
    k0_adds = sum(min(a.batch, n - (e * a.batch)) for e in range(0, adds, a.keys))
    if end["k0_memories"] != k0_adds:
        raise SystemExit(f"key k0 holds {end['k0_memories']} memories, {k0_adds} were added")
    add_s = end["t"] - start["t"]
    Path(a.out).write_text(json.dumps({"texts": n, "keys": a.keys, "batch": a.batch,
                                       "add_s": add_s, "adds_per_s": n / add_s}))


if __name__ == "__main__":
    main()
