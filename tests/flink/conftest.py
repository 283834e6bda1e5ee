"""Every test in tests/flink runs real jobs on a MiniCluster."""

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/flink/" in str(item.fspath):
            item.add_marker(pytest.mark.flink)
