"""The benchmark suite (what `make bench-quick` runs) fails when a peer cannot be run: a missing
comparison must never read as a win, and a CI run leaves the committed reports alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def snapshot(folder: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_a_missing_peer_fails_the_run_and_the_report_says_so(tmp_path):
    docs_before = snapshot(ROOT / "docs")
    report = tmp_path / "report"
    env = {**os.environ, "BENCH_PEER_VENVS": str(tmp_path / "no-venvs")}
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--quick", "--only",
         "bench_flink_agents,bench_mem0", "--reuse", "--report-dir", str(report)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAILED: bench_flink_agents, bench_mem0 (peer comparison missing)" in proc.stderr
    md = (report / "benchmarks.md").read_text()
    assert "| bench_flink_agents: FAILED |" in md and "| bench_mem0: FAILED |" in md
    assert "peer venv" in md and "no-venvs/flink-agents/bin/python is missing" in md
    assert "| yes |" not in md  # no row claims a met target
    assert not list(report.glob("*.json"))  # no result file stands in for the comparison
    assert snapshot(ROOT / "docs") == docs_before  # the committed reports are untouched
