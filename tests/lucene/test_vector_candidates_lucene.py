"""LongTermMemoryConfig.vector_candidates reaches the HNSW search, None (the default) calibrates
it on the job's queries; bad values are refused."""

from __future__ import annotations

import time
import zlib

import numpy as np
import pytest
from lucene_store import CallAgent, LuceneRunner
from pydantic import ValidationError

from flink_agents_memory import AgentConfig
from flink_agents_memory.memory.limits import MemoryLimits
from flink_agents_memory.memory.long_term import LongTermMemoryConfig

DIM, MEMORIES, QUERIES, K = 64, 10000, 40, 10
CLUSTERED_DIM = 40


class RandomEmbedder:
    """A uniformly random unit vector per text (seeded by the text): HNSW's hard case."""

    dim = DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = [np.random.default_rng(zlib.crc32(t.encode())).standard_normal(DIM) for t in texts]
        vectors = np.asarray(rows, dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class ClusteredEmbedder:
    """A unit vector near one of 20 centres per text (seeded by the text): easy for HNSW. Its
    dimension is its own: the calibration samples the JVM's latest queries of the segment's
    dimension, so other tests' searches stay out of its sample."""

    dim = CLUSTERED_DIM
    centres = np.random.default_rng(7).standard_normal((20, CLUSTERED_DIM))

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = []
        for t in texts:
            rng = np.random.default_rng(zlib.crc32(t.encode()))
            rows.append(self.centres[rng.integers(20)] + 0.2 * rng.standard_normal(CLUSTERED_DIM))
        vectors = np.asarray(rows, dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class DefaultBeam(CallAgent):
    long_term_memory = LongTermMemoryConfig(embedder=RandomEmbedder())


class NarrowBeam(CallAgent):
    long_term_memory = LongTermMemoryConfig(embedder=RandomEmbedder(), vector_candidates=1)


class CalibratedBeam(CallAgent):
    long_term_memory = LongTermMemoryConfig(embedder=ClusteredEmbedder())


def recall(runner: LuceneRunner, memories: np.ndarray, queries: list[str],
           embedder: object = RandomEmbedder()) -> float:
    found = 0
    for q, vector in zip(queries, embedder.embed(queries), strict=True):
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


def test_the_default_is_the_calibrated_beam():
    assert LongTermMemoryConfig().vector_candidates is None


def test_the_default_beam_is_calibrated_on_the_jobs_queries(lucene):
    """Easy vectors: once 64 searches asked for no beam, the folded segment gets the narrowest
    beam (100, not the 200 it had), and recall holds at it for queries it was not calibrated on."""
    texts = [f"m{i}" for i in range(MEMORIES)]
    one_run = AgentConfig(limits=MemoryLimits(max_memory_writes_per_run=MEMORIES))
    runner = LuceneRunner(CalibratedBeam(), lucene, one_run)
    runner.run("alice", lambda c: [c.memory.add(t) for t in texts])
    time.sleep(5.5)  # quiet for KeyGroupIndex.DEFAULT_QUIET_MILLIS: the next read folds the index
    runner.run("alice", lambda c: c.memory.search("fold", limit=1, mode="vector"))
    lucene.store.awaitMerges()
    assert lucene.indexes.segmentCount() == 1
    assert lucene.store.hnswBeam() == 200, "calibrated before 64 queries were seen"
    embedder, memories = ClusteredEmbedder(), ClusteredEmbedder().embed(texts)
    recall(runner, memories, [f"sample{j}" for j in range(64)], embedder)
    assert lucene.store.awaitCalibration(60_000)
    assert lucene.store.hnswBeam() == 100
    assert recall(runner, memories, [f"q{j}" for j in range(QUERIES)], embedder) >= 0.98


@pytest.mark.parametrize("bad", [0, -1, 10_001, 1.5, "many"])
def test_bad_vector_candidates_are_refused_at_declaration(bad):
    with pytest.raises(ValidationError, match="vector_candidates"):
        LongTermMemoryConfig(vector_candidates=bad)
