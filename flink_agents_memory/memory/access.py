"""Search hits per memory, for the forgetting score: a keyed ``MapState`` id -> "count:last_ms".

A hit costs one map read (the first time in a run) and one write at commit; the Lucene
document is never rewritten for it. Kept only when maintenance forgets (``Forgetting``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .store import RunBuffer


@dataclass(frozen=True)
class Access:
    """How often a memory was a search hit, and when last."""

    count: int
    last_ms: int


NEVER = Access(0, 0)


class AccessLog:
    """Buffered like the rest of a run: applied at commit, dropped on rollback."""

    def __init__(self, buffer: RunBuffer) -> None:
        #: The run buffer over the access map (flushed by the runtime at commit).
        self.buffer = buffer

    def get(self, memory_id: str) -> Access:
        raw = self.buffer.get(memory_id)
        if raw is None:
            return NEVER
        count, _, last = raw.partition(":")
        return Access(int(count), int(last))

    def hit(self, memory_ids: list[str], now_ms: int) -> None:
        """Count one access of each memory at ``now_ms``."""
        for memory_id in memory_ids:
            self.buffer.put(memory_id, f"{self.get(memory_id).count + 1}:{now_ms}")

    def merge(self, into: str, others: list[str]) -> None:
        """``others`` were merged into ``into``: it inherits their accesses."""
        total = self.get(into)
        for other in others:
            access = self.get(other)
            total = Access(total.count + access.count, max(total.last_ms, access.last_ms))
            self.buffer.remove(other)
        if total != NEVER:
            self.buffer.put(into, f"{total.count}:{total.last_ms}")

    def forget(self, memory_id: str) -> None:
        self.buffer.remove(memory_id)
