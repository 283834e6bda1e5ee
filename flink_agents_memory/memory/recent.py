"""What every ``get_recent``-style call shares: the count check and the newest-n slice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def require_count(n: Any, call: str) -> int:
    """``n`` for ``get_recent``-style calls: an int >= 0 (a bool is not a count)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"{call} needs an int n >= 0, got {n!r}")
    return n


def newest(values: Sequence[T], n: int) -> list[T]:
    """The last ``n`` of ``values``, oldest first (all of them if fewer; none for n <= 0)."""
    return list(values[max(0, len(values) - n):]) if n > 0 else []
