"""The package assumes no repository checkout: no paths out of the package (``parents[2]``), no
Maven output (``java_udf/target``), no side environment (``.venv-chroma``) in library code;
the Chroma executable is found through ``$CHROMA_BIN`` or ``PATH`` only."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from flink_agents_memory.knowledge.server import find_chroma

PACKAGE = Path(__file__).resolve().parents[2] / "flink_agents_memory"
CHECKOUT_PATHS = re.compile(r"parents\[[2-9]\]|java_udf/target|\.venv-chroma|\.venv\b")


@pytest.mark.parametrize("source", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_library_code_names_no_checkout_path(source):
    found = [f"{n}: {line.strip()}" for n, line in enumerate(source.read_text().splitlines(), 1)
             if CHECKOUT_PATHS.search(line)]
    assert found == []


def fake_chroma(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_find_chroma_ignores_a_checkout_layout_in_the_current_directory(tmp_path, monkeypatch):
    fake_chroma(tmp_path / ".venv-chroma" / "bin" / "chroma")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CHROMA_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr("sys.prefix", str(tmp_path / "prefix"))
    assert find_chroma() is None


def test_find_chroma_takes_the_explicit_then_the_environment(tmp_path, monkeypatch):
    explicit = fake_chroma(tmp_path / "a" / "chroma")
    from_env = fake_chroma(tmp_path / "b" / "chroma")
    monkeypatch.setenv("CHROMA_BIN", from_env)
    assert find_chroma(explicit) == explicit
    assert find_chroma() == from_env
    assert os.access(find_chroma(), os.X_OK)
