"""Synthetic data of the long-term memory benchmarks (stated in docs/benchmarks.md).

Vectors: ``clusters`` random unit centres in ``dim`` dimensions; each item is its centre plus
isotropic Gaussian noise (``noise`` per dimension, so the noise vector has length ~noise*sqrt(dim)),
renormalised. Queries are fresh draws from the same mixture (not stored items). Exact top-k is
numpy's brute-force dot product over the same rows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .peers.precomputed import memory_text


def clustered_unit_vectors(n: int, dim: int = 384, clusters: int = 1000, noise: float = 0.05,
                           seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(vectors (n, dim) float32 unit rows, cluster id of each row)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    labels = rng.integers(0, clusters, n)
    out = np.empty((n, dim), dtype=np.float32)
    step = 100_000
    for s in range(0, n, step):
        e = min(n, s + step)
        block = centres[labels[s:e]] + noise * rng.standard_normal((e - s, dim), dtype=np.float32)
        out[s:e] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out, labels


def exact_topk(vectors: np.ndarray, queries: np.ndarray, k: int = 10) -> np.ndarray:
    """Indices (q, k) of each query's k highest dot products, best first."""
    out = np.empty((len(queries), k), dtype=np.int64)
    for s in range(0, len(queries), 64):
        scores = queries[s:s + 64] @ vectors.T
        part = np.argpartition(-scores, k, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(scores, part, axis=1), axis=1)
        out[s:s + 64] = np.take_along_axis(part, order, axis=1)
    return out


def recall_at_k(found: list[list[int]], truth: np.ndarray, k: int = 10) -> float:
    hits = sum(len(set(f[:k]) & set(list(t)[:k])) for f, t in zip(found, truth, strict=True))
    return hits / (k * len(truth))


def write_corpus(path: Path, n: int, keys: int, queries: int, dim: int = 384,
                 seed: int = 0) -> dict[str, np.ndarray]:
    """Memories spread round-robin over ``keys`` keys; queries likewise. Returns the arrays."""
    vectors, _ = clustered_unit_vectors(n + queries, dim, seed=seed)
    data = {"vectors": vectors[:n], "queries": vectors[n:],
            "keys": (np.arange(n) % keys).astype(np.int32),
            "query_keys": (np.arange(queries) % keys).astype(np.int32)}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **data)
    return data


def truth_per_key(data: dict[str, np.ndarray], k: int = 10) -> list[list[int]]:
    """Exact top-k memory numbers of each query among its own key's memories."""
    out: list[list[int]] = []
    for j, q in enumerate(data["queries"]):
        rows = np.nonzero(data["keys"] == data["query_keys"][j])[0]
        scores = data["vectors"][rows] @ q
        top = rows[np.argsort(-scores)[:k]]
        out.append(top.tolist())
    return out


def texts(n: int) -> list[str]:
    return [memory_text(i) for i in range(n)]
