"""testcontainers-python with the project's Chroma image: a test that starts its own container,
uses it as a knowledge base, and removes it, also when the test body fails.

Ryuk is disabled (conftest.py), so the container's removal is the context manager's job: the
second test proves that a failing body still removes it. The port is published on loopback
only.
"""

from __future__ import annotations

import time
import urllib.request
from pathlib import Path

import pytest
from compose_cluster import CHROMA_IMAGE
from testcontainers.core.container import DockerContainer

from flink_agents_memory.knowledge import KnowledgeBase, ingest_files
from flink_agents_memory.models import HashingEmbedder

pytestmark = [pytest.mark.containers]

DOCS = {
    "checkpoint.md": "Checkpoint barriers flow with the records; each operator snapshots its "
                     "state to durable storage when the barrier arrives on all inputs.",
    "watermark.md": "A watermark with timestamp t declares that no events older than t will "
                    "arrive, so event time windows up to t can fire.",
    "savepoint.md": "A savepoint is a manually triggered snapshot used to upgrade, rescale or "
                    "migrate a job to another cluster.",
}


def chroma_container() -> DockerContainer:
    """The Chroma image, its port 8000 published on a free loopback port (with_bind_ports
    takes no host address; the Docker SDK's ``(address, None)`` form does)."""
    container = DockerContainer(CHROMA_IMAGE)
    container.ports["8000/tcp"] = ("127.0.0.1", None)  # type: ignore[assignment]
    return container


def wait_heartbeat(url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=3):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_knowledge_base_on_a_chroma_container_of_its_own(engine, tmp_path: Path):
    with chroma_container() as chroma:
        container_id = chroma.get_wrapped_container().id
        bindings = engine.client.api.inspect_container(container_id)["HostConfig"]["PortBindings"]
        assert all(b["HostIp"] == "127.0.0.1" for b in bindings["8000/tcp"]), bindings
        url = f"http://127.0.0.1:{chroma.get_exposed_port(8000)}"
        wait_heartbeat(url)
        for name, text in DOCS.items():
            (tmp_path / name).write_text(text)
        kb = KnowledgeBase(url, embedder=HashingEmbedder(64))
        report = ingest_files(kb, "flink-docs", sorted(tmp_path.glob("*.md")), HashingEmbedder(64))
        assert report.files == 3
        assert kb.get_sources() == ["flink-docs"]
        hits = kb.search("a manually triggered savepoint to rescale a job", limit=3)
        assert hits[0].metadata["file"] == "savepoint.md", hits
    assert not engine.client.containers.list(all=True, filters={"id": container_id})


def test_its_container_is_removed_when_the_test_body_fails(engine):
    container_id = None
    with pytest.raises(RuntimeError, match="the test body failed"), chroma_container() as chroma:
        container_id = chroma.get_wrapped_container().id
        assert engine.client.containers.get(container_id).status == "running"
        raise RuntimeError("the test body failed")
    assert container_id is not None
    assert not engine.client.containers.list(all=True, filters={"id": container_id}), \
        "a failing test left its container behind"
