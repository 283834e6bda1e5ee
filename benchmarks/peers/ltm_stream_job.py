"""bench_ltm_writes' one-key stream inside a running job (own process).

    python -m benchmarks.peers.ltm_stream_job --corpus C.npz --items N --seconds 60 --out r.json

One job, parallelism 1, checkpoints every 10 s to a scratch folder (each commits the index, as
the py4j stream's commits do): load the corpus's first N memories under one key, settle, search
the queries (settled), then the stream (benchmarks/peers/ltm_stream_agent.py: 10 memories every
50 ms, searches in between) for the given seconds, then the queries again over the segments the
stream left. The corpus holds at least N + 200 x seconds memories.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
LOAD_BATCH = 500
CHECKPOINT_MS = 10_000


def events(items: int, queries: int, ticks: int, per_tick: int) -> list[str]:
    """The job's input, in order."""
    out = [f"a|k0|{i}|{min(LOAD_BATCH, items - i)}" for i in range(0, items, LOAD_BATCH)]
    out.append("s|k0|0|0")
    out += [f"q|k0|{j}|1" for j in range(queries)]
    for t in range(ticks):
        out += [f"w|k0|{t}|{items + t * per_tick}", f"r|k0|{t}|0"]
    out += [f"q|k0|{j}|2" for j in range(queries)]
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", required=True)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--items", type=int, required=True)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    out_dir = tempfile.mkdtemp(prefix="bench-ltm-stream-")
    os.environ["BENCH_LTM_OUT"] = out_dir
    sys.path.insert(0, str(ROOT))
    from pyflink.common import Configuration, Types, WatermarkStrategy
    from pyflink.datastream import StreamExecutionEnvironment
    from pyflink.datastream.connectors.number_seq import NumberSequenceSource

    from flink_agents_memory import AgentsExecutionEnvironment

    from .ltm_stream_agent import PER_TICK, TICK_S, StreamAgent

    with np.load(a.corpus) as z:
        corpus_items, queries = len(z["vectors"]), len(z["queries"])
    ticks = int(a.seconds / TICK_S)
    if corpus_items < a.items + ticks * PER_TICK:
        raise SystemExit(f"the corpus holds {corpus_items} memories, the stream needs "
                         f"{a.items + ticks * PER_TICK}")
    labels = events(a.items, queries, ticks, PER_TICK)

    conf = Configuration()
    conf.set_string("execution.checkpointing.dir", Path(out_dir, "checkpoints").as_uri())
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    env.enable_checkpointing(CHECKPOINT_MS)
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = env.from_source(NumberSequenceSource(0, len(labels) - 1),
                         WatermarkStrategy.no_watermarks(), "stream") \
        .map(lambda e: labels[e], output_type=Types.STRING())
    agent = StreamAgent(str(Path(a.corpus).resolve()), a.dim)
    agents.from_datastream(ds, lambda v: v.split("|")[1]).apply(agent) \
        .to_datastream(Types.STRING()).print()
    start = time.perf_counter()
    env.execute("bench-ltm-stream-in-job")
    wall = time.perf_counter() - start
    rows: list[dict] = []
    for name in os.listdir(out_dir):
        if name.endswith(".jsonl"):
            with open(os.path.join(out_dir, name)) as f:
                rows += [json.loads(line) for line in f]
    stream = [r for r in rows if r["pass"] == 0]
    stream_s = float(Path(out_dir, "stream_end.mark").read_text())
    Path(a.out).write_text(json.dumps({
        "items": a.items, "ticks": ticks, "adds": ticks * PER_TICK, "stream_s": stream_s,
        "adds_per_s": ticks * PER_TICK / stream_s, "job_s": wall,
        "hnsw_beam": int(float(Path(out_dir, "hnsw_beam.mark").read_text())),
        "settled_search_us": [r["us"] for r in rows if r["pass"] == 1],
        "search_us": [r["us"] for r in stream],
        "search_after_add_us": [r["us"] for r in stream if r["first"]],
        "left_search_us": [r["us"] for r in rows if r["pass"] == 2],
    }))


if __name__ == "__main__":
    main()
