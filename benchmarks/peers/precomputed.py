"""Corpus files shared by the long-term memory benchmarks, and an embedder that looks the
vectors up instead of computing them (so embedding is excluded from every timing, on every
side). Needs only numpy: it is imported by our job and by the mem0 worker alike.

A corpus file (``.npz``) holds ``vectors`` (n, dim) and ``queries`` (q, dim), float32 unit
rows, ``keys`` (n,) and ``query_keys`` (q,) as int32 key numbers. Memory ``i``'s text is
``"#<i> <words>"`` and query ``j``'s is ``"?<j>"``; the embedder parses the number.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def memory_text(i: int) -> str:
    return f"#{i} memory number {i}"


def query_text(j: int) -> str:
    return f"?{j}"


class PrecomputedEmbedder:
    """``embed(texts)`` -> the stored rows (memories ``#i``, queries ``?j``); loads lazily."""

    def __init__(self, path: str, dim: int) -> None:
        self.path = path
        self._dim = dim
        self._data: Any = None

    @property
    def dim(self) -> int:
        return self._dim

    def _load(self) -> Any:
        if self._data is None:
            with np.load(self.path) as z:
                self._data = {"#": z["vectors"], "?": z["queries"]}
        return self._data

    @property
    def query_count(self) -> int:
        return len(self._load()["?"])

    def row(self, text: str) -> np.ndarray:
        head = text.split(" ", 1)[0]
        return self._load()[head[0]][int(head[1:])]

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.row(t) for t in texts]).astype(np.float32)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_data": None}
