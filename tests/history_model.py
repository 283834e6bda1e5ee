"""Reference model of a history with retention: every item ever appended, and the view rule
stated in docs — the longest suffix within every limit, with no expired item."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flink_agents_memory.memory import serialization
from flink_agents_memory.memory.retention import Retention, default_token_count


@dataclass
class HistoryModel:
    retention: Retention
    items: list[tuple[int, Any]] = field(default_factory=list)

    def append(self, at_ms: int, item: Any) -> None:
        self.items.append((at_ms, item))

    def fits_alone(self, item: Any) -> bool:
        """An item over max_bytes or max_tokens on its own is refused by append()."""
        payload = serialization.dumps(item)
        tokens = default_token_count(item if isinstance(item, str) else payload)
        r = self.retention
        return not ((r.max_bytes is not None and len(payload.encode()) > r.max_bytes)
                    or (r.max_tokens is not None and tokens > r.max_tokens))

    def clear(self) -> None:
        self.items = []

    def view(self, now_ms: int) -> list[Any]:
        r = self.retention
        kept: list[Any] = []
        size = tokens = 0
        for at_ms, item in reversed(self.items):
            payload = serialization.dumps(item)
            s = len(payload.encode())
            t = default_token_count(item if isinstance(item, str) else payload)
            if r.max_items is not None and len(kept) + 1 > r.max_items:
                break
            if r.max_bytes is not None and size + s > r.max_bytes:
                break
            if r.max_tokens is not None and tokens + t > r.max_tokens:
                break
            if r.ttl_ms is not None and at_ms <= now_ms - r.ttl_ms:
                break
            kept.append(item)
            size += s
            tokens += t
        return kept[::-1]


#: Every combination of limits, each history of the property tests uses one.
COMBINATIONS: dict[str, Retention] = {
    "items": Retention(max_items=4),
    "bytes": Retention(max_bytes=40),
    "tokens": Retention(max_tokens=12),
    "ttl": Retention(ttl_ms=50),
    "items_bytes": Retention(max_items=5, max_bytes=50),
    "items_tokens": Retention(max_items=5, max_tokens=10),
    "bytes_ttl": Retention(max_bytes=45, ttl_ms=60),
    "all": Retention(max_items=6, max_bytes=60, max_tokens=14, ttl_ms=80, slack=0.5),
    "no_slack": Retention(max_items=3, slack=0),
}
