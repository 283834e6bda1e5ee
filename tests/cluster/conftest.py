"""A real standalone cluster (JobManager + 2 TaskManagers from the wheel) for the cluster tests.

Module scope: the cluster tests live in one module, so this is one cluster for the whole
suite, and it is gone before the MiniCluster tests that run after it in `make test`.

It lives under ``var/pytest-cluster`` with free loopback ports, so it never collides with a
cluster started by ``make cluster-up``; every process it starts is stopped after the module,
also when a test fails (and a cluster left over by a killed session is stopped first).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from flink_agents_memory import cluster

ROOT = Path(__file__).resolve().parents[2]
STATE_DIR = ROOT / "var" / "pytest-cluster"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def flink_cluster() -> Iterator[cluster.ClusterSettings]:
    settings = cluster.ClusterSettings(base_dir=STATE_DIR, rest_port=free_port(),
                                       rpc_port=free_port(), taskmanagers=2, slots=2)
    cluster.stop(settings)  # a cluster left behind by an interrupted session
    cluster.start(settings, timeout=180)
    try:
        yield settings
    finally:
        stopped = cluster.stop(settings)
        print(f"\ncluster stopped: {stopped}")
