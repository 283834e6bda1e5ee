"""Fixtures for tests that drive the real Lucene store over py4j (no Flink job)."""

from __future__ import annotations

import pytest
from lucene_store import LuceneStore


@pytest.fixture
def lucene(tmp_path):
    store = LuceneStore(tmp_path / "index")
    yield store
    store.close()
