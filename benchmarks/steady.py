"""Steady-state throughput: a big job's extra events over its extra time past a small job's.

Subtracting a small job removes startup, but when the extra time is a small share of the big
job's the difference is startup noise, and the rate computed from it means nothing (a quick
run's few thousand events take well under a second past a job's start; rates of 10^12 events/s
were printed that way). Such a rate is None: reports print "not resolvable at this size".
"""

from __future__ import annotations

#: The extra time must be at least this share of the big job's time.
MIN_STEADY_SHARE = 0.25


def steady_rate(extra_events: int, wall_s: float, small_s: float) -> float | None:
    """Events/s once started, or None when the difference is within startup noise."""
    extra_s = wall_s - small_s
    return extra_events / extra_s if extra_s >= MIN_STEADY_SHARE * wall_s else None


def rate_text(x: float | None) -> str:
    return "not resolvable at this size" if x is None else f"{x:,.0f} ev/s"


def ratio_of(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a / b
