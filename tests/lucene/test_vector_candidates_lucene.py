"""LongTermMemoryConfig.vector_candidates reaches the HNSW search; bad values are refused."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from lucene_store import CallAgent, LuceneRunner
from pydantic import ValidationError

from flink_agents_memory import AgentConfig
from flink_agents_memory.memory.limits import MemoryLimits
from flink_agents_memory.memory.long_term import LongTermMemoryConfig

DIM, MEMORIES, QUERIES, K = 64, 10000, 40, 10


class RandomEmbedder:
    """A uniformly random unit vector per text (seeded by the text): HNSW's hard case."""

    dim = DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = [np.random.default_rng(zlib.crc32(t.encode())).standard_normal(DIM) for t in texts]
        vectors = np.asarray(rows, dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class DefaultBeam(CallAgent):
    long_term_memory = LongTermMemoryConfig(embedder=RandomEmbedder())


class NarrowBeam(CallAgent):
    long_term_memory = LongTermMemoryConfig(embedder=RandomEmbedder(), vector_candidates=1)


def recall(runner: LuceneRunner, memories: np.ndarray, queries: list[str]) -> float:
    found = 0
    for q, vector in zip(queries, RandomEmbedder().embed(queries), strict=True):
        exact = {f"m{i}" for i in np.argsort(-(memories @ vector))[:K]}
        hits = runner.run("alice", lambda c, q=q: c.memory.search(q, limit=K, mode="vector"))[0]
        found += len(exact & {h.memory for h in hits})
    return found / (len(queries) * K)


def test_a_narrow_beam_finds_fewer_true_neighbours(lucene):
    texts = [f"m{i}" for i in range(MEMORIES)]
    # One run: few, large segments (a small segment's graph is easy at any beam).
    one_run = AgentConfig(limits=MemoryLimits(max_memory_writes_per_run=MEMORIES))
    default = LuceneRunner(DefaultBeam(), lucene, one_run)
    default.run("alice", lambda c: [c.memory.add(t) for t in texts])
    memories = RandomEmbedder().embed(texts)
    queries = [f"q{j}" for j in range(QUERIES)]
    wide = recall(default, memories, queries)
    narrow = recall(LuceneRunner(NarrowBeam(), lucene), memories, queries)
    assert wide >= 0.95, wide
    assert narrow < wide - 0.2, (narrow, wide)


@pytest.mark.parametrize("bad", [0, -1, 10_001, 1.5, "many", None])
def test_bad_vector_candidates_are_refused_at_declaration(bad):
    with pytest.raises(ValidationError, match="vector_candidates"):
        LongTermMemoryConfig(vector_candidates=bad)
