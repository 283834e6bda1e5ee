"""Our long-term memory inside a running job: add a corpus, then search it (own process).

    python -m benchmarks.peers.ltm_job --corpus C.npz --dim 384 --out result.json

One job, parallelism 1, one source subtask: first the add events (each adds ``--batch``
memories with ``ctx.memory.add`` in one run, on the corpus's keys), then the queries ("fresh":
Lucene may still be merging the segments the adds made), then one event that waits for the
merges to finish, then the same queries again ("settled"). Searches are timed inside the action.
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


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", required=True)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--batch", type=int, default=1, help="memories added per event (one key)")
    p.add_argument("--vector-candidates", type=int, default=None,
                   help="LongTermMemoryConfig.vector_candidates (default: the config's)")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    out_dir = tempfile.mkdtemp(prefix="bench-ltm-")
    os.environ["BENCH_LTM_OUT"] = out_dir
    sys.path.insert(0, str(ROOT))
    from pyflink.common import Configuration, Types, WatermarkStrategy
    from pyflink.datastream import StreamExecutionEnvironment
    from pyflink.datastream.connectors.number_seq import NumberSequenceSource

    from flink_agents_memory import AgentsExecutionEnvironment

    from .ltm_agents_ours import LtmAgent

    with np.load(a.corpus) as z:
        keys = z["keys"].tolist()
        qkeys = z["query_keys"].tolist()
    n, q, batch = len(keys), len(qkeys), a.batch
    if batch > 1 and len(set(keys)) > 1:
        raise SystemExit("--batch > 1 needs a one-key corpus")
    adds = (n + batch - 1) // batch
    key_list = np.asarray(keys, dtype=np.int32)
    qkey_list = np.asarray(qkeys, dtype=np.int32)

    def label(e: int) -> str:
        if e < adds:
            first = e * batch
            return f"a|k{key_list[first]}|{first}|{min(batch, n - first)}"
        j = e - adds
        if j == q:  # parallelism 1: one subtask holds every index
            return f"s|k{qkey_list[0]}|0|0"
        if j < q:
            return f"q|k{qkey_list[j]}|{j}|1"
        j -= q + 1
        return f"q|k{qkey_list[j]}|{j}|2"

    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    env.set_parallelism(1)
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = env.from_source(NumberSequenceSource(0, adds + 2 * q),
                         WatermarkStrategy.no_watermarks(), "corpus") \
        .map(label, output_type=Types.STRING())
    agent = LtmAgent(str(Path(a.corpus).resolve()), a.dim, a.vector_candidates)
    agents.from_datastream(ds, lambda v: v.split("|")[1]).apply(agent) \
        .to_datastream(Types.STRING()).print()
    start = time.perf_counter()
    env.execute("bench-ltm-in-job")
    wall = time.perf_counter() - start
    rows = []
    for name in os.listdir(out_dir):
        if name.endswith(".jsonl"):
            with open(os.path.join(out_dir, name)) as f:
                rows += [json.loads(line) for line in f]
    rows.sort(key=lambda r: r["q"])
    fresh = [r for r in rows if r["pass"] == 1]
    settled = [r for r in rows if r["pass"] == 2]

    def mark(name: str) -> float:
        return float(Path(out_dir, f"{name}.mark").read_text())

    add_s = mark("first_query") - mark("first_add")
    Path(a.out).write_text(json.dumps({
        "items": n, "queries": q, "keys": len(set(keys)), "batch": batch, "job_s": wall,
        "add_s": add_s, "adds_per_s": n / add_s,
        "merge_wait_s": mark("merge_wait"), "hnsw_beam": int(mark("hnsw_beam")),
        "fresh_search_us": [r["us"] for r in fresh], "fresh_found": [r["found"] for r in fresh],
        "search_us": [r["us"] for r in settled], "found": [r["found"] for r in settled],
    }))


if __name__ == "__main__":
    main()
