"""Knowledge integration tests: a real Chroma server (`chroma run`) on a free loopback port."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from knowledge_corpus import DOCS, start_server


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/knowledge/" in str(item.fspath):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def chroma(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("chroma"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def corpus(tmp_path) -> Path:
    f = tmp_path / "corpus.jsonl"
    f.write_text("".join(json.dumps({"text": t, "doc": d}) + "\n" for d, t in DOCS.items()))
    return f
