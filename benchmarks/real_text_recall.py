"""HNSW recall@10 on embeddings of real text: every REALTALK and LoCoMo turn's cached MiniLM
vector in one key's index (the real Java store over py4j), their questions as queries, against
numpy's exact top 10. The data is downloaded by `make bench-retrieval-data`, never committed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from .data import exact_topk, recall_at_k
from .index_store import IndexStore
from .realtalk import LOCOMO, REALTALK, cached_vectors, load, missing_data


def _not_cached(texts: list[str]) -> np.ndarray:
    raise RuntimeError(f"{len(texts)} turns have no cached MiniLM vectors: run "
                       "`make bench-retrieval` first (it embeds them)")


def real_text_recall(beams: tuple[int | None, ...] = (None,)) -> dict[str, Any]:
    """HNSW recall@10 against exact search over every cached real turn vector, one key; one
    figure per HNSW beam in ``beams`` (None: the default), the first as ``recall_at_10``."""
    turns: list[np.ndarray] = []
    questions: list[np.ndarray] = []
    for dataset in (REALTALK, LOCOMO):
        if why := missing_data(dataset):
            return {"skipped": why}
        for chat in load(dataset.chats):
            turns.append(cached_vectors("minilm", [t.memory() for t in chat.turns], _not_cached,
                                        dataset.cache))
            questions.append(cached_vectors("minilm", [q.question for q in chat.questions],
                                            _not_cached, dataset.cache))
    data, queries = np.concatenate(turns), np.concatenate(questions)
    truth = exact_topk(data, queries)
    by_beam: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ltm-real-") as tmp:
        store = IndexStore(Path(tmp))
        try:
            store.set_key("k0")
            for s in range(0, len(data), 2000):
                ids = [str(i) for i in range(s, min(s + 2000, len(data)))]
                store.add_batch(ids, [f"#{i}" for i in ids], data[s:s + 2000])
            store.commit()
            store.await_merges()
            for beam in beams:
                found = [[int(i) for i in store.search(q, 10, vector_candidates=beam)]
                         for q in queries]
                by_beam[str(beam or "default")] = recall_at_k(found, truth)
        finally:
            store.close()
    return {"items": len(data), "queries": len(queries),
            "recall_at_10": by_beam[str(beams[0] or "default")], "by_beam": by_beam}
