"""The peer report's arithmetic for what the 5x target leaves the memory operations, from each
framework's run with an empty action (benchmarks/bench_flink_agents.py)."""

from __future__ import annotations

from benchmarks.bench_flink_agents import EMPTY, HEADLINE, _empty_rows, _empty_text, memory_cost_us


def report(ours: float | None, ours_empty: float, theirs: float, theirs_empty: float) -> dict:
    def side(rate: float | None) -> dict:
        return {"steady_events_per_s": rate}

    head = {**HEADLINE, "ours": side(ours), f"ours{EMPTY}": side(ours_empty),
            "flink-agents": side(theirs), f"flink-agents{EMPTY}": side(theirs_empty)}
    return {"results": [head], "flink_agents": "0.2.0 2.2.1", "machine": {}}


def test_memory_cost_is_the_time_an_event_above_the_empty_action():
    r = report(8_000, 16_000, 2_000, 2_500)
    assert memory_cost_us(r["results"][0], "ours") == 62.5
    assert memory_cost_us(r["results"][0], "flink-agents") == 100.0


def test_the_text_says_what_the_target_leaves_the_memory_operations():
    text = _empty_text(report(8_000, 16_000, 2_000, 2_500))
    # 5x 2,000 = 10,000 ev/s: 100 us an event, 62.5 of which the empty action already takes.
    assert "leaves ours' 3 reads and 3 writes 38 us an event, against the 62 us" in text
    assert "0.62x of ours' floor" in text


def test_a_target_above_the_floor_is_called_out_of_reach():
    text = _empty_text(report(8_000, 9_000, 2_000, 2_500))
    assert "no speed-up of the memory path alone can meet it" in text


def test_rates_startup_hides_are_not_computed():
    r = report(None, 16_000, 2_000, 2_500)
    assert "not resolvable" in _empty_text(r)
    assert _empty_rows(r, r["results"][0])[0]["ratio"] == 6.4
