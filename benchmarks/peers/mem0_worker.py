"""mem0 (``mem0ai``) over the same corpus and queries as our job (runs in the mem0 venv).

    python -m benchmarks.peers.mem0_worker --corpus C.npz --dim 384 --out result.json

``Memory.from_config`` with its default local vector store (Qdrant in local mode, in a fresh
folder) and history DB (SQLite, in the same folder); ``add(..., infer=False)`` one memory per
call (no LLM), ``search(query, top_k=10, filters={"user_id": key}, threshold=0)``. The embedder
is mem0's embedding_model slot filled with an object that looks the precomputed vectors up
(benchmarks/peers/precomputed.py), exactly the vectors our side gets: embedding is excluded
on both sides. The configured provider (openai, with a dummy key) is never called.
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


class Mem0Embedder:
    """mem0's EmbeddingBase shape: ``embed(text, memory_action) -> list[float]``."""

    def __init__(self, path: str, dim: int) -> None:
        sys.path.insert(0, str(ROOT))
        from benchmarks.peers.precomputed import PrecomputedEmbedder

        self.inner = PrecomputedEmbedder(path, dim)
        self.config = None

    def embed(self, text, memory_action=None):
        return self.inner.row(text).tolist()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", required=True)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    os.environ.setdefault("MEM0_TELEMETRY", "False")
    os.environ.setdefault("OPENAI_API_KEY", "unused-by-this-benchmark")
    sys.path.insert(0, str(ROOT))
    from mem0 import Memory

    from benchmarks.peers.precomputed import memory_text, query_text

    work = tempfile.mkdtemp(prefix="bench-mem0-")
    config = {
        "vector_store": {"provider": "qdrant", "config": {
            "collection_name": "bench", "embedding_model_dims": a.dim,
            "path": os.path.join(work, "qdrant")}},
        "embedder": {"provider": "openai", "config": {"embedding_dims": a.dim}},
        "history_db_path": os.path.join(work, "history.db"),
    }
    memory = Memory.from_config(config)
    memory.embedding_model = Mem0Embedder(str(Path(a.corpus).resolve()), a.dim)
    with np.load(a.corpus) as z:
        keys = z["keys"].tolist()
        qkeys = z["query_keys"].tolist()

    start = time.perf_counter()
    ids: dict[str, int] = {}
    for i, key in enumerate(keys):
        res = memory.add([{"role": "user", "content": memory_text(i)}], user_id=f"k{key}",
                         infer=False)
        for r in res.get("results", []):
            ids[r["id"]] = i
    add_s = time.perf_counter() - start

    def search_pass() -> tuple[list[float], list[list[int]]]:
        lat: list[float] = []
        found: list[list[int]] = []
        for j, key in enumerate(qkeys):
            t0 = time.perf_counter_ns()
            res = memory.search(query_text(j), top_k=10, filters={"user_id": f"k{key}"},
                                threshold=0.0)
            lat.append((time.perf_counter_ns() - t0) / 1000)
            hits = res.get("results", res) if isinstance(res, dict) else res
            found.append([int(h["memory"].split(" ", 1)[0][1:]) for h in hits])
        return lat, found

    # Two passes over the same queries, like our job (fresh, then again).
    fresh_lat, fresh_found = search_pass()
    lat, found = search_pass()
    import mem0

    Path(a.out).write_text(json.dumps({
        "items": len(keys), "queries": len(qkeys), "keys": len(set(keys)), "add_s": add_s,
        "adds_per_s": len(keys) / add_s, "search_us": lat, "found": found,
        "fresh_search_us": fresh_lat, "fresh_found": fresh_found,
        "mem0_version": getattr(mem0, "__version__", None) or _version("mem0ai"),
    }))


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


if __name__ == "__main__":
    main()
