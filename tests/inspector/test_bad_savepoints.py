"""A missing, corrupt or foreign savepoint is a clear error naming the problem."""

from __future__ import annotations

import shutil

import pytest
from savepoints import take_foreign_savepoint

from flink_agents_memory.inspector import InspectorError, SavepointView
from flink_agents_memory.inspector.savepoint_view import local_path


def test_missing_directory(tmp_path):
    with pytest.raises(InspectorError, match="the directory does not exist"):
        SavepointView(str(tmp_path / "nope"))


def test_directory_without_metadata(tmp_path):
    with pytest.raises(InspectorError, match="has no _metadata file"):
        SavepointView(str(tmp_path))


def test_remote_savepoints_are_refused():
    with pytest.raises(InspectorError, match="only local savepoints"):
        SavepointView("s3://bucket/savepoint-1")


@pytest.mark.flink
@pytest.mark.slow
def test_corrupt_metadata(savepoint, tmp_path):
    copy = shutil.copytree(local_path(savepoint), tmp_path / "sp")
    (copy / "_metadata").write_bytes(b"\x00garbage" * 50)
    with pytest.raises(InspectorError, match="corrupt or not a Flink savepoint"):
        SavepointView(str(copy))


@pytest.mark.flink
@pytest.mark.slow
def test_truncated_state_file(savepoint, tmp_path):
    copy = shutil.copytree(local_path(savepoint), tmp_path / "sp")
    files = [p for p in copy.iterdir() if p.name != "_metadata"]
    assert files, "the savepoint should keep its state in files (inline threshold 0)"
    for p in files:
        p.write_bytes(p.read_bytes()[:7])
    with pytest.raises(InspectorError, match="unreadable|corrupt"):
        SavepointView(str(copy))


@pytest.mark.flink
@pytest.mark.slow
def test_missing_state_file(savepoint, tmp_path):
    copy = shutil.copytree(local_path(savepoint), tmp_path / "sp")
    for p in copy.iterdir():
        if p.name != "_metadata":
            p.unlink()
    with pytest.raises(InspectorError, match="unreadable|missing|No such file"):
        SavepointView(str(copy))


@pytest.mark.flink
@pytest.mark.slow
def test_another_jobs_savepoint(tmp_path):
    foreign = take_foreign_savepoint(tmp_path)
    with pytest.raises(InspectorError, match="no flink_agents_memory operator") as e:
        SavepointView(foreign)
    assert "another job's savepoint" in str(e.value)
