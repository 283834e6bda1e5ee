"""ctx.search_knowledge inside a Flink MiniCluster job, and the server stopped mid-job."""

from __future__ import annotations

import json

from flink import jobs
from knowledge_agent import KnowledgeProbe
from knowledge_corpus import QUERIES, start_server

from flink_agents_memory.knowledge import KnowledgeBase, ingest_files
from flink_agents_memory.models import HashingEmbedder


def test_search_in_job_and_server_stopped_mid_job(tmp_path, corpus):
    server = start_server(tmp_path / "chroma")     # this test's own server: it gets stopped
    try:
        kb = KnowledgeBase(server.url, on_error="empty", retries=1, backoff_s=0.05,
                           timeout_s=5, failure_threshold=2, reset_timeout_s=600)
        ingest_files(kb, "labelled", [corpus], HashingEmbedder(256))
        ingest_files(kb, "other", [corpus], HashingEmbedder(256))
        queries = list(QUERIES.items())
        inputs = [f"k|{q}" for q, _ in queries[:3]]
        inputs += [f"k|source=other|{queries[3][0]}", "k|STOP", "k|after one", "k|after two"]
        agent = KnowledgeProbe([kb], stop_pid=server.process.pid)
        lines = jobs.run_agent(agent, inputs, env=jobs.make_env(parallelism=1))
    finally:
        server.stop()
    outs = [json.loads(line) for line in lines]
    assert len(outs) == len(inputs), "the job must survive the outage and answer every event"
    for out, (_query, expected) in zip(outs[:3], queries[:3], strict=True):
        assert out["hits"][0][1] == expected
        assert {h[0] for h in out["hits"]} == {"labelled", "other"}   # both sources merged
        assert out["warnings"] == 0
    assert outs[3]["hits"][0][:2] == ["other", queries[3][1]]
    assert {h[0] for h in outs[3]["hits"]} == {"other"}
    for out in outs[4:]:
        assert out["hits"] == []
        assert out["warnings"] > 0
    assert outs[-1]["warnings"] > outs[4]["warnings"]
