"""HNSW recall@10 on embeddings of real text: every REALTALK and LoCoMo turn's cached MiniLM
vector in one key's index (the real Java store over py4j), their questions as queries, against
numpy's exact top 10. The data is downloaded by `make bench-retrieval-data`, never committed;
turns not embedded yet are embedded here (MiniLM) and cached.
"""

from __future__ import annotations

import functools
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from .common import percentiles
from .data import exact_topk, recall_at_k
from .index_store import IndexStore
from .realtalk import LOCOMO, REALTALK, cached_vectors, load, missing_data


@functools.cache
def _minilm() -> Any:
    from flink_agents_memory.models import MiniLMEmbedder

    return MiniLMEmbedder()


def _embed(texts: list[str]) -> np.ndarray:
    """Turns not embedded yet (by `make bench-retrieval` or an earlier run): MiniLM, once."""
    return np.asarray(_minilm().embed(texts), dtype=np.float32)


def real_vectors() -> tuple[np.ndarray, np.ndarray] | str:
    """(every turn's vector, every question's vector), or why the data is missing."""
    turns: list[np.ndarray] = []
    questions: list[np.ndarray] = []
    for dataset in (REALTALK, LOCOMO):
        if why := missing_data(dataset):
            return why
        for chat in load(dataset.chats):
            turns.append(cached_vectors("minilm", [t.memory() for t in chat.turns], _embed,
                                        dataset.cache))
            questions.append(cached_vectors("minilm", [q.question for q in chat.questions],
                                            _embed, dataset.cache))
    return np.concatenate(turns), np.concatenate(questions)


def recall_by_beam(data: np.ndarray, queries: np.ndarray,
                   beams: tuple[int | None, ...]) -> dict[str, dict[str, Any]]:
    """``data`` in one key's index, merged; per HNSW beam (None: the default) recall@10 of
    ``queries`` against exact search and their search latency (py4j, after a warm-up pass)."""
    truth = exact_topk(data, queries)
    out: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ltm-real-") as tmp:
        store = IndexStore(Path(tmp))
        try:
            store.load_settled(data)
            for beam in beams:
                for q in queries:  # untimed: the JVM compiles the search path first
                    store.search(q, 10, vector_candidates=beam)
                # The default beam: calibrated on the latest 64 of these queries.
                hnsw_beam = store.await_calibration() if beam is None else beam
                found, lat = [], []
                for q in queries:
                    t = time.perf_counter_ns()
                    found.append([int(i) for i in store.search(q, 10, vector_candidates=beam)])
                    lat.append((time.perf_counter_ns() - t) / 1000)
                out[str(beam or "default")] = {"recall_at_10": recall_at_k(found, truth),
                                               "search_us": percentiles(lat),
                                               "hnsw_beam": hnsw_beam}
        finally:
            store.close()
    return out


def real_text_recall(beams: tuple[int | None, ...] = (None,)) -> dict[str, Any]:
    """HNSW recall@10 against exact search over every cached real turn vector, one key; one
    figure per HNSW beam in ``beams`` (None: the default), the first as ``recall_at_10``."""
    real = real_vectors()
    if isinstance(real, str):
        return {"skipped": real}
    data, queries = real
    measured = recall_by_beam(data, queries, beams)
    by_beam = {beam: m["recall_at_10"] for beam, m in measured.items()}
    return {"items": len(data), "queries": len(queries),
            "default_hnsw_beam": measured.get("default", {}).get("hnsw_beam"),
            "recall_at_10": by_beam[str(beams[0] or "default")], "by_beam": by_beam}
