"""Retention for list fields of short-term memory (the short-term memory design's retention on
collection fields).

An agent declares ``short_term_retention = {"conv.messages": Retention(max_items=20)}``; paths
may use ``*`` for one segment (``"sessions.*.messages"``). Whenever a list (or tuple) is set at
a matching path, the newest items that fit every limit are kept and the older ones are
evicted: dropped, moved to long-term memory, or handed to a reducer whose result is stored in
their place (in front of the kept items). This happens inside ``set``, so the run sees the
trimmed list at once, and a failing reducer fails the run with nothing written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import MemoryValueError
from .retention import Entry, Retention, retained_count, room_after, sized_entry

# Called with the list's absolute path and its evicted items (policy move_to_long_term).
ListEvictionSink = Callable[[str, list[Any]], None]


def check_rule(pattern: str, retention: Any) -> str | None:
    """Why ``pattern: retention`` cannot be a list retention rule, or None if it can."""
    if not isinstance(pattern, str) or not pattern or any(
            not segment for segment in pattern.split(".")):
        return f"path {pattern!r} must be a dotted path without empty segments"
    if not isinstance(retention, Retention):
        return f"path {pattern!r} must map to a Retention, got {retention!r}"
    if retention.ttl_ms is not None:
        return (f"path {pattern!r}: list items carry no timestamps, so ttl_ms cannot apply "
                "(declare a history for items that expire)")
    return None


def _matches(pattern: list[str], path: list[str]) -> bool:
    return len(pattern) == len(path) and all(
        p == "*" or p == s for p, s in zip(pattern, path, strict=True))


class ListRetention:
    """The declared rules of an agent, applied by short-term memory's ``set``."""

    def __init__(self, rules: dict[str, Retention],
                 eviction_sink: ListEvictionSink | None = None) -> None:
        self._exact = {p: r for p, r in rules.items() if "*" not in p.split(".")}
        self._patterns = [(p.split("."), r) for p, r in rules.items() if p not in self._exact]
        self._sink = eviction_sink

    def rule_for(self, path: str) -> Retention | None:
        """The retention of the list at absolute ``path`` (an exact rule wins over a pattern)."""
        rule = self._exact.get(path)
        if rule is None and self._patterns:
            segments = path.split(".")
            rule = next((r for p, r in self._patterns if _matches(p, segments)), None)
        return rule

    def apply(self, path: str, values: list[Any]) -> list[Any]:
        """``values`` as stored at ``path``: trimmed to the rule, evicted items handled."""
        rule = self.rule_for(path)
        if rule is None:
            return values
        entries = [sized_entry(v, rule, f"list '{path}'") for v in values]
        keep = retained_count(entries, rule, 0)
        if keep == len(values):
            return values
        cut = len(values) - keep
        evicted, kept = values[:cut], values[cut:]
        policy = rule.on_overflow
        if policy == "drop_oldest":
            return kept
        if policy == "move_to_long_term":
            if self._sink is None:
                raise MemoryValueError(
                    f"list '{path}' moves evicted items to long-term memory, which is not "
                    "available here (the job does not run in MemoryAgentOperator)"
                )
            self._sink(path, evicted)
            return kept
        return self._reduce(path, rule, policy, evicted, kept, entries[cut:])

    def _reduce(self, path: str, rule: Retention, reducer: Callable[[list[Any]], Any],
                evicted: list[Any], kept: list[Any], kept_entries: list[Entry]) -> list[Any]:
        """Replacements first, then as many kept items as still fit; items that no longer fit
        go to the reducer too, so none leaves without being reduced."""
        while True:
            try:
                replacements = reducer(list(evicted))
            except Exception as e:
                raise MemoryValueError(
                    f"reducer of list '{path}' failed on {len(evicted)} evicted items: "
                    f"{type(e).__name__}: {e}"
                ) from e
            if replacements is None:
                replacements = []
            if not isinstance(replacements, list):
                raise MemoryValueError(
                    f"reducer of list '{path}' must return a list of items or None, "
                    f"got {type(replacements).__name__}"
                )
            owner = f"list '{path}'"
            room = room_after(rule, [sized_entry(v, rule, owner) for v in replacements], owner)
            fit = retained_count(kept_entries, room, 0)
            if fit == len(kept):
                return replacements + kept
            moved = len(kept) - fit
            evicted, kept, kept_entries = evicted + kept[:moved], kept[moved:], kept_entries[moved:]

