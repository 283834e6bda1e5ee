"""bench_ltm_writes' write streams inside a running job (own process).

    python -m benchmarks.peers.ltm_stream_job --corpus C.npz --items N --seconds 60 \
        [--keys K] --out r.json

One job, parallelism 1, checkpoints every 10 s to a scratch folder (each commits the index, as
the py4j stream's commits do): load the corpus's first N memories, settle, search the queries
(settled), then the stream (benchmarks/peers/ltm_stream_agent.py) for the given seconds, then
the queries again over the segments the stream left. The corpus holds at least N + 200 x seconds
memories. One key (K = 1): all N under it, and every 50 ms 10 memories added to it, searches in
between. Many keys (K > 1): N / K memories under each, and 200 runs a second (10 a tick), each
searching one key and then adding a memory to it, keys in turn.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from .agent_job import jvm_has_vector_module, mark, output_folder, read_rows, run_job

LOAD_BATCH = 500
CHECKPOINT_MS = 10_000
#: The stream's searches are also reported by windows of this many seconds.
WINDOW_S = 30.0


def events(items: int, queries: int, ticks: int, per_tick: int, keys: int = 1) -> list[str]:
    """The job's input, in order."""
    if keys == 1:
        out = [f"a|k0|{i}|{min(LOAD_BATCH, items - i)}" for i in range(0, items, LOAD_BATCH)]
    else:
        per_key = items // keys
        out = [f"a|k{k}|{k * per_key}|{per_key}" for k in range(keys)]
    out.append("s|k0|0|0")
    out += [f"q|k{j % keys}|{j}|1" for j in range(queries)]
    for t in range(ticks):
        if keys == 1:
            out += [f"w|k0|{t}|{items + t * per_tick}", f"r|k0|{t}|0"]
        else:
            runs = range(t * per_tick, (t + 1) * per_tick)
            out += [f"m|k{run % keys}|{t}|{items + run}" for run in runs] + [f"p|k0|{t}|0"]
    out += [f"q|k{j % keys}|{j}|2" for j in range(queries)]
    return out


def windows(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stream's search times by :data:`WINDOW_S` window of the stream, in order: whether
    they change as the stream goes on (small segments pile up until merged)."""
    by_window: dict[int, list[float]] = {}
    for row in stream:
        by_window.setdefault(int(row["t"] // WINDOW_S), []).append(row["us"])
    return [{"from_s": w * WINDOW_S, "to_s": (w + 1) * WINDOW_S, "us": by_window[w]}
            for w in sorted(by_window)]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", required=True)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--items", type=int, required=True)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--keys", type=int, default=1)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    out_dir = output_folder("bench-ltm-stream-")
    from .ltm_stream_agent import PER_TICK, TICK_S, StreamAgent

    with np.load(a.corpus) as z:
        corpus_items, queries = len(z["vectors"]), len(z["queries"])
    ticks = int(a.seconds / TICK_S)
    if corpus_items < a.items + ticks * PER_TICK:
        raise SystemExit(f"the corpus holds {corpus_items} memories, the stream needs "
                         f"{a.items + ticks * PER_TICK}")
    agent = StreamAgent(str(Path(a.corpus).resolve()), a.dim)
    checkpoints = Path(out_dir, "checkpoints").as_uri()
    wall = run_job("bench-ltm-stream-in-job", events(a.items, queries, ticks, PER_TICK, a.keys),
                   agent,
                   {"execution.checkpointing.dir": checkpoints}, checkpoint_ms=CHECKPOINT_MS)
    rows = read_rows(out_dir)
    stream = [r for r in rows if r["pass"] == 0]
    stream_s = mark(out_dir, "stream_end")
    Path(a.out).write_text(json.dumps({
        "items": a.items, "keys": a.keys, "ticks": ticks, "adds": ticks * PER_TICK,
        "stream_s": stream_s,
        "vector_module": jvm_has_vector_module(),
        "adds_per_s": ticks * PER_TICK / stream_s, "job_s": wall,
        "hnsw_beam": int(mark(out_dir, "hnsw_beam")),
        "settled_search_us": [r["us"] for r in rows if r["pass"] == 1],
        "search_us": [r["us"] for r in stream],
        "search_after_add_us": [r["us"] for r in stream if r["first"]],
        "search_windows": windows(stream),
        "left_search_us": [r["us"] for r in rows if r["pass"] == 2],
    }))


if __name__ == "__main__":
    main()
