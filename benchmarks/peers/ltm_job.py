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
from pathlib import Path

import numpy as np

from .agent_job import mark, output_folder, read_rows, run_job


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", required=True)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--batch", type=int, default=1, help="memories added per event (one key)")
    p.add_argument("--vector-candidates", type=int, default=None,
                   help="LongTermMemoryConfig.vector_candidates (default: the config's)")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    out_dir = output_folder("bench-ltm-")
    from .ltm_agents_ours import LtmAgent

    with np.load(a.corpus) as z:
        keys = z["keys"].tolist()
        qkeys = z["query_keys"].tolist()
    n, q, batch = len(keys), len(qkeys), a.batch
    if batch > 1 and len(set(keys)) > 1:
        raise SystemExit("--batch > 1 needs a one-key corpus")
    adds = (n + batch - 1) // batch

    def label(e: int) -> str:
        if e < adds:
            first = e * batch
            return f"a|k{keys[first]}|{first}|{min(batch, n - first)}"
        j = e - adds
        if j == q:  # parallelism 1: one subtask holds every index
            return f"s|k{qkeys[0]}|0|0"
        if j < q:
            return f"q|k{qkeys[j]}|{j}|1"
        j -= q + 1
        return f"q|k{qkeys[j]}|{j}|2"

    agent = LtmAgent(str(Path(a.corpus).resolve()), a.dim, a.vector_candidates)
    wall = run_job("bench-ltm-in-job", [label(e) for e in range(adds + 2 * q + 1)], agent)
    rows = sorted(read_rows(out_dir), key=lambda r: r["q"])
    fresh = [r for r in rows if r["pass"] == 1]
    settled = [r for r in rows if r["pass"] == 2]
    add_s = mark(out_dir, "first_query") - mark(out_dir, "first_add")
    Path(a.out).write_text(json.dumps({
        "items": n, "queries": q, "keys": len(set(keys)), "batch": batch, "job_s": wall,
        "add_s": add_s, "adds_per_s": n / add_s,
        "merge_wait_s": mark(out_dir, "merge_wait"),
        "hnsw_beam": int(mark(out_dir, "hnsw_beam")),
        "fresh_search_us": [r["us"] for r in fresh], "fresh_found": [r["found"] for r in fresh],
        "search_us": [r["us"] for r in settled], "found": [r["found"] for r in settled],
    }))


if __name__ == "__main__":
    main()
