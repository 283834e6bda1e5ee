"""The helper's class-data-sharing archive: where it lives, when a new one is made, and that
the first helper writes it at exit and the next one maps it."""

from __future__ import annotations

import os

import pytest

from flink_agents_memory.inspector import helper
from flink_agents_memory.inspector.helper import SavepointHelper, class_archive, prune_archives


def test_archive_is_in_the_cache_directory_and_named_by_the_classpath(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("FLINK_AGENTS_MEMORY_INSPECTOR_CDS", raising=False)
    jar = tmp_path / "a.jar"
    jar.write_bytes(b"one")
    monkeypatch.setattr(helper, "classpath", lambda: str(jar))
    archive, exists = class_archive()
    assert archive is not None and not exists
    assert archive.parent == tmp_path / "cache" / "flink-agents-memory"
    assert archive.name.startswith("inspector-") and archive.suffix == ".jsa"
    jar.write_bytes(b"a rebuilt jar")  # another size: another archive
    assert class_archive()[0] != archive


def test_archive_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("FLINK_AGENTS_MEMORY_INSPECTOR_CDS", "0")
    assert class_archive() == (None, False)


def test_no_writable_cache_means_no_archive(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.delenv("FLINK_AGENTS_MEMORY_INSPECTOR_CDS", raising=False)
    assert class_archive() == (None, False)


def test_pruning_removes_old_archives_and_stale_half_written_ones(tmp_path):
    now = 10_000_000.0
    files = {name: tmp_path / name for name in (
        "inspector-current.jsa", "inspector-old.jsa", "inspector-recent.jsa",
        "inspector-x.1.2.tmp", "inspector-y.3.4.tmp", "other.txt")}
    for path in files.values():
        path.write_bytes(b"x")
    ages = {"inspector-current.jsa": 30 * 86400, "inspector-old.jsa": 8 * 86400,
            "inspector-recent.jsa": 86400, "inspector-x.1.2.tmp": 3600,
            "inspector-y.3.4.tmp": 60, "other.txt": 30 * 86400}
    for name, age in ages.items():
        os.utime(files[name], (now - age, now - age))
    prune_archives(tmp_path, files["inspector-current.jsa"], now=now)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "inspector-current.jsa", "inspector-recent.jsa", "inspector-y.3.4.tmp", "other.txt"]


@pytest.mark.flink
@pytest.mark.slow
def test_first_helper_writes_the_archive_and_the_next_maps_it(savepoint, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("FLINK_AGENTS_MEMORY_INSPECTOR_CDS", raising=False)
    first = SavepointHelper(savepoint, tmp_path / "w1", tmp_path / "h1.log")
    assert first.class_archive == "writing"
    first.close()
    archive, exists = class_archive()
    assert exists and archive is not None and archive.stat().st_size > 0
    assert [p.name for p in archive.parent.iterdir()] == [archive.name], "no temporary left"
    second = SavepointHelper(savepoint, tmp_path / "w2", tmp_path / "h2.log")
    try:
        assert second.class_archive == "used"
        assert second.summary["ok"]
    finally:
        second.close()
    assert not os.access(tmp_path / "w2" / "index", os.F_OK) or not any(
        (tmp_path / "w2" / "index").iterdir()), "a savepoint's indexes are read in place"
