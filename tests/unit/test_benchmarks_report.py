"""docs/benchmarks.md carries the summary rows of every module's committed JSON: a merge that
keeps an older report (as one once dropped the maintenance and retrieval rows) fails here.
Rebuild the report with ``python -m benchmarks.run --render``."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from benchmarks.run import MODULES

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "docs" / "benchmarks.md"


def committed(module: str) -> tuple[object, dict] | None:
    mod = importlib.import_module(f"benchmarks.{module}")
    path = ROOT / "docs" / "benchmarks" / f"{mod.NAME}.json"
    return (mod, json.loads(path.read_text())) if path.exists() else None


@pytest.mark.parametrize("module", MODULES)
def test_every_committed_result_is_in_the_report(module):
    found = committed(module)
    if found is None:
        pytest.skip(f"no docs/benchmarks JSON for {module}")
    mod, result = found
    report = REPORT.read_text()
    for row in mod.rows(result):
        line = f"| {row['figure']} | {row['ours']} | {row['peer']} | "
        assert line in report, f"{module}: row missing or stale in docs/benchmarks.md: {line}"
