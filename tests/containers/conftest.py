"""What every containers test shares: a reachable Docker engine, or a skip with the reason
(a failure where ``CI=true``, by tests/conftest.py's rule), and the engine's objects as they
were before the run, so the last test can prove the run left nothing behind.

Ryuk (testcontainers' reaper) cannot be pulled where no registry is reachable, so it is
disabled and every test removes what it starts itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest
from compose_cluster import CHROMA_IMAGE, FLINK_IMAGE

os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")


@dataclass(frozen=True)
class Engine:
    """The Docker engine the tests use, with its objects as they were at the start."""

    client: Any
    containers: frozenset[str]
    networks: frozenset[str]
    volumes: frozenset[str]

    def leftovers(self) -> dict[str, list[str]]:
        """Containers, networks and volumes created since the start that still exist."""
        now = snapshot(self.client)
        return {kind: sorted(ids - getattr(self, kind)) for kind, ids in now.items()
                if ids - getattr(self, kind)}


def snapshot(client: Any) -> dict[str, frozenset[str]]:
    return {"containers": frozenset(c.id for c in client.containers.list(all=True)),
            "networks": frozenset(n.id for n in client.networks.list()),
            "volumes": frozenset(v.name for v in client.volumes.list())}


def engine_unavailable() -> tuple[Any, str | None]:
    """A client of the engine, or why there is none."""
    try:
        import docker

        client = docker.from_env(timeout=10)
        client.ping()
    except Exception as e:  # any failure to reach an engine is a reason to skip
        return None, f"no Docker engine reachable ({type(e).__name__}: {e})"
    missing = [image for image in (FLINK_IMAGE, CHROMA_IMAGE) if not client.images.list(image)]
    if missing:
        return None, f"images {missing} are not built (make docker-build)"
    return client, None


@pytest.fixture(scope="session")
def engine() -> Engine:
    client, reason = engine_unavailable()
    if reason:
        pytest.skip(reason)
    return Engine(client, **snapshot(client))
