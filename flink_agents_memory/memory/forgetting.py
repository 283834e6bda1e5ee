"""Retention scores and the budget: which memories of a key a maintenance pass forgets.

Pure functions of numbers, so their properties (monotone, decaying, top scores kept) are
tested on their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .maintenance_config import Forgetting


@dataclass(frozen=True)
class Scored:
    """One memory as the budget sees it."""

    memory_id: str
    score: float


def retention_score(age_ms: int, accesses: int, importance: float, config: Forgetting) -> float:
    """The formula of :class:`Forgetting`: decays by half every ``half_life_ms`` of age, grows
    with search hits and importance. A negative age (clock skew) counts as 0."""
    recency = 2.0 ** (-max(age_ms, 0) / config.half_life_ms)
    access = 1.0 + config.access_weight * math.log1p(max(accesses, 0))
    weight = 1.0 + config.importance_weight * min(max(importance, 0.0), 1.0)
    return recency * access * weight


def importance_of(metadata: dict[str, Any], key: str) -> float:
    """The memory's importance in 0..1; missing or not a number: 0."""
    value = metadata.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return 0.0
    return min(max(float(value), 0.0), 1.0)


def over_budget(scored: list[Scored], budget: int) -> list[Scored]:
    """The memories to forget so that ``budget`` remain: the lowest scores (ties: the smaller
    id goes first, so a replay forgets the same ones)."""
    if len(scored) <= budget:
        return []
    ranked = sorted(scored, key=lambda s: (s.score, s.memory_id))
    return ranked[: len(scored) - budget]
