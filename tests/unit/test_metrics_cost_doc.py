"""What docs/operations.md and docs/architecture.md say metrics cost is the figure that the
short-term benchmark last measured (docs/benchmarks/stm.json), not an older run's."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_operations_doc_quotes_the_measured_metrics_cost():
    run = json.loads((ROOT / "docs" / "benchmarks" / "stm.json").read_text())
    on = run["ours"]["steady_events_per_s"]
    off = run["ours_metrics_off"]["steady_events_per_s"]
    text = " ".join((ROOT / "docs" / "operations.md").read_text().split())
    assert f"{on:,.0f} events/s with metrics and {off:,.0f} without" in text
    architecture = " ".join((ROOT / "docs" / "architecture.md").read_text().split())
    assert f"metrics on {on / off:.2f}x off" in architecture
