"""Checks of user arguments shared by the memory kinds, so each gets the same clear error."""

from __future__ import annotations

from typing import Any


def require_count(n: Any, call: str) -> int:
    """``n`` for ``get_recent``-style calls: an int >= 0 (a bool is not a count)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"{call} needs an int n >= 0, got {n!r}")
    return n
