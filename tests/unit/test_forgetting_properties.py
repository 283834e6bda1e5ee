"""Properties of the retention score and of the budget (memory/forgetting.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flink_agents_memory import Forgetting
from flink_agents_memory.memory.forgetting import (
    Scored,
    importance_of,
    over_budget,
    retention_score,
)

configs = st.builds(
    Forgetting,
    budget=st.integers(1, 50),
    half_life_ms=st.integers(1, 10**10),
    access_weight=st.floats(0, 10),
    importance_weight=st.floats(0, 10),
)
ages = st.integers(0, 10**12)
counts = st.integers(0, 10**6)
importances = st.floats(0, 1)


@given(configs, ages, ages, counts, importances)
def test_score_never_grows_with_age(config, a, b, count, importance):
    young, old = min(a, b), max(a, b)
    assert retention_score(old, count, importance, config) <= \
        retention_score(young, count, importance, config)


@given(configs, ages, counts, counts, importances)
def test_score_never_falls_with_more_accesses(config, age, a, b, importance):
    few, many = min(a, b), max(a, b)
    assert retention_score(age, many, importance, config) >= \
        retention_score(age, few, importance, config)


@given(configs, ages, counts, importances, importances)
def test_score_never_falls_with_more_importance(config, age, count, a, b):
    low, high = min(a, b), max(a, b)
    assert retention_score(age, count, high, config) >= retention_score(age, count, low, config)


@given(configs, st.integers(0, 10**9), counts, importances)
def test_score_halves_every_half_life(config, age, count, importance):
    now = retention_score(age, count, importance, config)
    later = retention_score(age + config.half_life_ms, count, importance, config)
    assert later == pytest.approx(now / 2, rel=1e-9, abs=1e-300)


@given(configs, ages, counts, importances)
def test_score_is_positive_and_bounded(config, age, count, importance):
    score = retention_score(age, count, importance, config)
    assert 0 <= score <= (1 + config.access_weight * 14) * (1 + config.importance_weight)


def test_importance_reads_numbers_in_range_only():
    assert importance_of({"importance": 0.5}, "importance") == 0.5
    assert importance_of({"importance": 7}, "importance") == 1.0
    assert importance_of({"importance": -1}, "importance") == 0.0
    assert importance_of({"importance": "high"}, "importance") == 0.0
    assert importance_of({"importance": True}, "importance") == 0.0
    assert importance_of({"importance": float("nan")}, "importance") == 0.0
    assert importance_of({}, "importance") == 0.0


scored_lists = st.lists(
    st.tuples(st.text(min_size=1, max_size=5), st.floats(0, 100)),
    unique_by=lambda t: t[0], max_size=40,
).map(lambda items: [Scored(i, s) for i, s in items])


@given(scored_lists, st.integers(1, 50))
def test_budget_keeps_at_most_budget_and_the_top_scores(scored, budget):
    victims = over_budget(scored, budget)
    kept = [s for s in scored if s not in victims]
    assert len(kept) == min(len(scored), budget)
    if victims and kept:
        assert max(v.score for v in victims) <= min(k.score for k in kept)


@given(scored_lists, st.integers(1, 50))
def test_budget_is_deterministic_whatever_the_order(scored, budget):
    assert {v.memory_id for v in over_budget(scored, budget)} == \
        {v.memory_id for v in over_budget(list(reversed(scored)), budget)}
