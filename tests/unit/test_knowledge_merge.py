"""Merging results across sources and bases (AgentWithMemory.search_knowledge of the
memory system design), over an in-memory KnowledgeBackend (the extension point
Qdrant/pgvector backends implement)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from flink_agents_memory.knowledge import (
    EmbedderMismatchError,
    KnowledgeBackend,
    KnowledgeBase,
    KnowledgeItem,
    KnowledgeSourceNotFoundError,
    merge_results,
    search_all,
)
from flink_agents_memory.models import HashingEmbedder


class MemoryBackend:
    """Exact cosine search over dicts; satisfies KnowledgeBackend."""

    def __init__(self, url: str = "mem://test") -> None:
        self.service_url = url
        self.sources: dict[str, dict[str, Any]] = {}

    def list_sources(self) -> list[str]:
        return sorted(self.sources)

    def get_source(self, name: str) -> dict[str, Any] | None:
        s = self.sources.get(name)
        return None if s is None else {"name": name, "metadata": s["metadata"],
                                       "dimension": s["dim"]}

    def create_source(self, name: str, metadata: dict[str, Any]) -> dict[str, Any]:
        self.sources.setdefault(name, {"metadata": metadata, "dim": None, "rows": {}})
        return self.get_source(name)  # type: ignore[return-value]

    def count(self, name: str) -> int:
        return len(self.sources[name]["rows"])

    def existing_ids(self, name: str, ids: list[str]) -> set[str]:
        return set(ids) & set(self.sources[name]["rows"])

    def upsert(self, name, ids, embeddings, documents, metadatas) -> None:
        s = self.sources[name]
        for i, e, d, m in zip(ids, embeddings, documents, metadatas, strict=True):
            s["rows"][i] = (np.asarray(e), d, m)
            s["dim"] = len(e)

    def query(self, name: str, embedding: list[float], limit: int) -> list[dict[str, Any]]:
        q = np.asarray(embedding)
        rows = [{"id": i, "content": d, "metadata": m, "score": float(v @ q)}
                for i, (v, d, m) in self.sources[name]["rows"].items()]
        return sorted(rows, key=lambda r: -r["score"])[:limit]


def add(backend: MemoryBackend, source: str, texts: list[str], tag: str = "hashing:256"):
    emb = HashingEmbedder(int(tag.split(":")[1]))
    backend.create_source(source, {"embedder": tag})
    backend.upsert(source, [f"{source}-{i}" for i in range(len(texts))],
                   [list(v) for v in emb.embed(texts)], texts, [{} for _ in texts])


def item(source: str, score: float, ident: str | None = None) -> KnowledgeItem:
    return KnowledgeItem(content=f"{source}{score}", source=source, score=score, id=ident)


def test_memory_backend_is_a_knowledge_backend():
    assert isinstance(MemoryBackend(), KnowledgeBackend)


def test_merge_by_score_filter_dedupe_limit():
    a = [item("a", 0.9, "1"), item("a", 0.2, "2")]
    b = [item("b", 0.5, "1"), item("a", 0.9, "1")]   # the same chunk of a, found twice
    merged = merge_results([a, b], limit=10)
    assert [(i.source, i.score) for i in merged] == [("a", 0.9), ("b", 0.5), ("a", 0.2)]
    assert [i.source for i in merge_results([a, b], 10, source="b")] == ["b"]
    assert len(merge_results([a, b], 2)) == 2


def test_search_merges_sources_and_bases_by_score():
    one, two = MemoryBackend("mem://one"), MemoryBackend("mem://two")
    add(one, "flink", ["checkpoints snapshot operator state", "watermarks track event time"])
    add(one, "cooking", ["bake bread with flour and water"])
    add(two, "kafka", ["kafka topics have partitions", "kafka consumer offsets and state"])
    bases = [KnowledgeBase("mem://one", backend=one), KnowledgeBase("mem://two", backend=two)]

    hits = search_all(bases, "operator state checkpoints", limit=3)
    assert hits[0].content == "checkpoints snapshot operator state"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {h.source for h in hits} <= {"flink", "cooking", "kafka"}

    only = search_all(bases, "state", source="kafka", limit=5)
    assert only and {h.source for h in only} == {"kafka"}
    assert only[0].content == "kafka consumer offsets and state"
    assert bases[0].search("bread", knowledge_source="cooking", limit=1)[0].source == "cooking"


def test_unknown_source_is_a_clear_error():
    one = MemoryBackend()
    add(one, "flink", ["checkpoints"])
    kb = KnowledgeBase("mem://test", backend=one)
    with pytest.raises(KnowledgeSourceNotFoundError, match="'nope'.*available: \\['flink'\\]"):
        search_all([kb], "x", source="nope")
    with pytest.raises(KnowledgeSourceNotFoundError, match="no knowledge source 'nope'"):
        kb.search("x", knowledge_source="nope")
    with pytest.raises(KnowledgeSourceNotFoundError, match="no knowledge bases declared"):
        search_all([], "x", source="flink")
    assert search_all([], "x") == []


def test_embedder_mismatch_is_a_clear_error():
    one = MemoryBackend()
    add(one, "flink", ["checkpoints"], tag="hashing:64")
    kb = KnowledgeBase("mem://test", backend=one, embedder=HashingEmbedder(256))
    with pytest.raises(EmbedderMismatchError, match="'hashing:64'.*'hashing:256'"):
        kb.search("checkpoints")
    with pytest.raises(EmbedderMismatchError):
        kb.connect()
    # embedder=None: the source's own embedder, rebuilt from its tag
    auto = KnowledgeBase("mem://test", backend=one)
    assert auto.search("checkpoints")[0].score == pytest.approx(1.0, abs=1e-5)
    assert auto.get_source_info()["embedder"] == "hashing:64"
