"""KnowledgeBase on a real Chroma server: ingest (CLI), ranking, idempotence, errors."""

from __future__ import annotations

import json

import pytest
from knowledge_corpus import DOCS, QUERIES
from knowledge_http import StatusServer

from flink_agents_memory.cli import main
from flink_agents_memory.knowledge import (
    EmbedderMismatchError,
    KnowledgeAuthError,
    KnowledgeBase,
    KnowledgeSourceNotFoundError,
    ingest_files,
)
from flink_agents_memory.models import HashingEmbedder


def test_ingest_rank_and_reingest(chroma, corpus, capsys):
    assert main(["knowledge", "ingest", "--url", chroma.url, "--source", "labelled",
                 str(corpus)]) == 0
    out = capsys.readouterr()
    assert f"{len(DOCS)} added, 0 already there" in out.out
    assert f"{len(DOCS)}/{len(DOCS)} chunks" in out.err          # the progress on stderr

    kb = KnowledgeBase(chroma.url, sources=["labelled"])
    for query, expected in QUERIES.items():
        hits = kb.search(query, limit=3)
        assert hits[0].metadata["doc"] == expected, (query, [h.metadata for h in hits])
        assert hits[0].score > hits[1].score
        assert hits[0].source == "labelled" and hits[0].content == DOCS[expected]

    # same files again: every chunk id (a content hash) is found and skipped
    assert main(["knowledge", "ingest", "--url", chroma.url, "--source", "labelled",
                 "--no-progress", str(corpus)]) == 0
    assert f"0 added, {len(DOCS)} already there" in capsys.readouterr().out
    info = kb.get_source_info("labelled")
    assert info["count"] == len(DOCS) and info["embedder"] == "hashing:256"

    assert main(["knowledge", "list", "--url", chroma.url, "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"name": "labelled", "count": len(DOCS)}.items() <= \
        next(s for s in listed if s["name"] == "labelled").items()


def test_unknown_source_is_a_clear_error(chroma):
    kb = KnowledgeBase(chroma.url, on_error="empty")   # not swallowed: it is configuration
    with pytest.raises(KnowledgeSourceNotFoundError, match="no knowledge source 'no-such-source'"):
        kb.search("x", knowledge_source="no-such-source")
    with pytest.raises(KnowledgeSourceNotFoundError):
        KnowledgeBase(chroma.url, sources=["no-such-source"]).search("x")


def test_embedder_mismatch_is_a_clear_error(chroma, corpus):
    kb = KnowledgeBase(chroma.url, embedder=HashingEmbedder(64))
    report = ingest_files(kb, "small-dim", [corpus], HashingEmbedder(64))
    assert report.added == len(DOCS)
    with pytest.raises(EmbedderMismatchError, match="'hashing:64'.*'hashing:256'"):
        KnowledgeBase(chroma.url, embedder=HashingEmbedder(256)).search(
            "x", knowledge_source="small-dim")
    with pytest.raises(EmbedderMismatchError, match="would mix vector spaces"):
        ingest_files(kb, "small-dim", [corpus], HashingEmbedder(256))
    # without an embedder the source's own is used
    hit = KnowledgeBase(chroma.url).search("kafka topic partitions", "small-dim", limit=1)[0]
    assert hit.metadata["doc"] == "kafka"


@pytest.mark.parametrize("status", [401, 403])
def test_wrong_api_key(status):
    # Chroma's open-source server (1.x, Rust) has no token auth to configure, so a loopback
    # server rejecting the credentials stands in for an authenticating deployment.
    with StatusServer(status) as server:
        kb = KnowledgeBase(server.url, api_key="wrong-key", on_error="empty")
        with pytest.raises(KnowledgeAuthError, match="rejected the credentials"):
            kb.search("x")
