"""One real savepoint of a real MiniCluster job, shared by the inspector tests that read one."""

from __future__ import annotations

import pytest
from inspector_agent import EMBEDDER_DIM, InspectorAgent
from savepoints import take_savepoint

from flink_agents_memory.inspector import SavepointView
from flink_agents_memory.models import HashingEmbedder


@pytest.fixture(scope="session")
def savepoint(tmp_path_factory) -> str:
    return take_savepoint(tmp_path_factory.mktemp("inspector-job"))


@pytest.fixture(scope="session")
def view(savepoint):
    opened = SavepointView(savepoint, embedder=HashingEmbedder(EMBEDDER_DIM), agent=InspectorAgent)
    yield opened
    opened.close()
