"""`make help` is how a newcomer finds the targets, so it must list every one of them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make on PATH")


def make(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def phony_targets() -> set[str]:
    """The .PHONY targets as make itself expands them (variables such as $(PHONY_EMBED))."""
    database = make("-pq", "help").stdout
    lines = [line for line in database.splitlines() if line.startswith(".PHONY:")]
    assert lines, "make printed no .PHONY line"
    return set(lines[0].split(":", 1)[1].split())


def help_lines() -> dict[str, str]:
    done = make("help")
    assert done.returncode == 0, done.stderr
    rows = [re.match(r"\s+(\S+)\s+(.*)", line) for line in done.stdout.splitlines()]
    assert all(rows), done.stdout
    return {row[1]: row[2] for row in rows}


def test_make_help_lists_every_phony_target_with_a_description():
    listed = help_lines()
    assert sorted(phony_targets() - listed.keys()) == []
    assert [name for name, text in listed.items() if not text.strip()] == []


def test_make_help_lists_nothing_that_is_not_a_target():
    # A comment line that happens to start "## word: " would show up as a bogus target.
    assert sorted(help_lines().keys() - phony_targets()) == []


def test_a_bare_make_prints_the_help():
    done = make()
    assert done.returncode == 0, done.stderr
    assert done.stdout == make("help").stdout


def test_the_readme_points_to_make_help_and_names_the_docker_targets():
    readme = (ROOT / "README.md").read_text()
    docker = sorted(t for t in phony_targets() if "docker" in t)
    assert docker
    assert [t for t in ["help", *docker] if f"make {t}" not in readme] == []
