"""Declared histories: one keyed ListState per history, used as a ring buffer with retention.

Per key, a history's physical list holds at most its limits plus slack; a small meta entry
(count, bytes, tokens, oldest time) tells, without reading the list, when it must be
rewritten. A run's appends and clears are buffered and written when the run commits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from ..errors import MemoryValueError
from ..metrics import MetricsRecorder
from . import serialization
from .limits import MemoryLimits
from .recent import newest, require_count
from .retention import (
    Entry,
    Retention,
    over_slack,
    retained_count,
    room_after,
    sized_entry,
    take_retained,
)
from .store import KeyValueStore
from .validation import DEFAULT_LIMITS, check_value

# Called with evicted item values when a history's policy is move_to_long_term.
EvictionSink = Callable[[str, list[Any]], None]


class ListBackend(Protocol):
    """The ListState operations a history needs, plus ``tail``: the newest ``n`` elements,
    oldest first, read without moving the whole list into Python."""

    def get(self) -> Iterable[str] | None: ...

    def tail(self, n: int) -> list[str]: ...

    def add_all(self, values: list[str]) -> None: ...

    def update(self, values: list[str]) -> None: ...

    def clear(self) -> None: ...


class PyListBackend:
    """A list in memory (unit tests and reference runs)."""

    def __init__(self) -> None:
        self.values: list[str] = []

    def get(self) -> list[str]:
        return list(self.values)

    def tail(self, n: int) -> list[str]:
        return newest(self.values, n)

    def add_all(self, values: list[str]) -> None:
        self.values.extend(values)

    def update(self, values: list[str]) -> None:
        self.values = list(values)

    def clear(self) -> None:
        self.values = []


class History:
    """``ctx.history(name)``: append / get_recent / all / clear / len for the current key."""

    def __init__(
        self,
        name: str,
        retention: Retention,
        backend: ListBackend,
        meta: KeyValueStore,
        now_ms: Callable[[], int],
        eviction_sink: EvictionSink | None = None,
        metrics: MetricsRecorder | None = None,
        touched: set[Any] | None = None,
        limits: MemoryLimits = DEFAULT_LIMITS,
        max_item_bytes: int | None = None,
    ) -> None:
        self.name = name
        self._limits = limits
        #: Largest encoded item (AgentConfig.max_value_bytes), besides the retention's max_bytes.
        self._max_item_bytes = max_item_bytes
        #: The runtime's set of what this run touched (commit and reset skip the rest).
        self._touched: set[Any] = touched if touched is not None else set()
        self._metrics = metrics or MetricsRecorder(enabled=False)
        self._appends_metric = f"history.{name}.appends"
        self.retention = retention
        self._backend = backend
        self._meta = meta
        self._now_ms = now_ms
        self._eviction_sink = eviction_sink
        self._physical: list[str] | None = None
        self._appended: list[Entry] = []
        self._cleared = False
        #: Items were taken out (take_appended_until): the commit rewrites the list.
        self._rewrite = False

    # -- user API --------------------------------------------------------------------------
    def append(self, item: Any) -> None:
        """Add ``item`` as the newest element (visible now, stored when the run commits)."""
        self._appended.append(self._entry(item))
        self._touched.add(self)
        self._metrics.inc(self._appends_metric)

    def get_recent(self, n: int) -> list[Any]:
        """The newest ``n`` items, oldest first (fewer if the history holds fewer)."""
        require_count(n, f"get_recent(n) of history '{self.name}'")
        return [serialization.loads(e.payload) for e in self._logical(limit=n)]

    def all(self) -> list[Any]:
        """Every retained item, oldest first."""
        return [serialization.loads(e.payload) for e in self._logical()]

    def clear(self) -> None:
        """Remove every item (at commit)."""
        self._cleared = True
        self._appended = []
        self._touched.add(self)

    def __len__(self) -> int:
        return len(self._logical())

    @property
    def has_appends(self) -> bool:
        """Whether this run appended to the history."""
        return bool(self._appended)

    def appended_until(self, cutoff_ms: int) -> list[Any]:
        """The retained items appended at or before ``cutoff_ms``, oldest first."""
        return [serialization.loads(e.payload) for e in self._logical() if e.at_ms <= cutoff_ms]

    def take_appended_until(self, cutoff_ms: int) -> None:
        """Remove (at commit) the retained items appended at or before ``cutoff_ms``
        (maintenance's compression, once it has summarised them)."""
        kept = [e for e in self._logical() if e.at_ms > cutoff_ms]
        self._physical = [e.encode() for e in kept]
        self._appended = []
        self._rewrite = True
        self._touched.add(self)

    # -- runtime ---------------------------------------------------------------------------
    def _entry(self, item: Any, at_ms: int | None = None) -> Entry:
        check_value(item, f"item of history '{self.name}'", self._limits)
        return sized_entry(item, self.retention, f"history '{self.name}'",
                           self._now_ms() if at_ms is None else at_ms, self._max_item_bytes)

    def _raw_stored(self) -> list[str]:
        if self._cleared:
            return []
        if self._physical is None:
            self._physical = list(self._backend.get() or [])
            self._touched.add(self)
        return self._physical

    def _raw_tail(self, n: int) -> list[str]:
        """The newest ``n`` stored raws: ``get_recent(n)`` costs n, not the list's length."""
        if n <= 0 or self._cleared:
            return []
        if self._physical is not None:
            return newest(self._physical, n)
        return self._backend.tail(n)

    def _stored(self) -> list[Entry]:
        return [Entry.decode(raw) for raw in self._raw_stored()]

    def _newest_first(self, limit: int | None) -> Iterator[Entry]:
        yield from reversed(self._appended)
        stored = (self._raw_stored() if limit is None
                  else self._raw_tail(limit - len(self._appended)))
        for raw in reversed(stored):
            yield Entry.decode(raw)

    def _logical(self, limit: int | None = None) -> list[Entry]:
        kept = take_retained(self._newest_first(limit), self.retention, self._now_ms(), limit)
        kept.reverse()
        return kept

    def _read_meta(self) -> tuple[int, int, int, int]:
        raw = None if self._cleared else self._meta.get(self.name)
        if raw is None:
            return 0, 0, 0, 0
        n, size, tokens, oldest = (int(x) for x in raw.split(","))
        return n, size, tokens, oldest

    def prepare(self) -> Callable[[], None] | None:
        """Compute this run's writes (calling the overflow policy if a rewrite is due) without
        writing anything; returns the function that writes them, or None if nothing changed.
        An error here (e.g. a failing reducer) leaves the stored history untouched."""
        if not self._appended and not self._cleared and not self._rewrite:
            return None
        n, size, tokens, oldest = self._read_meta()
        appended = self._appended
        if n == 0 and appended:
            oldest = appended[0].at_ms
        n += len(appended)
        size += sum(e.size for e in appended)
        tokens += sum(e.tokens for e in appended)
        now = self._now_ms()
        if not self._rewrite and not over_slack(self.retention, n, size, tokens, oldest, now):
            raws = [e.encode() for e in appended]
            meta = f"{n},{size},{tokens},{oldest}"
            cleared = self._cleared

            def append_only() -> None:
                if cleared:
                    self._backend.update(raws)
                else:
                    self._backend.add_all(raws)
                self._meta.put(self.name, meta)

            return append_only
        full = self._stored() + appended
        keep = retained_count(full, self.retention, now)
        evicted, kept = full[: len(full) - keep], full[len(full) - keep:]
        new_entries = self._apply_policy(evicted, kept)
        policy = self.retention.on_overflow
        kind = policy if isinstance(policy, str) else "reducer"
        self._metrics.inc(f"history.{self.name}.evictions.{kind}", len(evicted))
        self._metrics.gauge(f"history.{self.name}.items", len(new_entries))
        raws = [e.encode() for e in new_entries]
        meta = (f"{len(new_entries)},{sum(e.size for e in new_entries)},"
                f"{sum(e.tokens for e in new_entries)},"
                f"{new_entries[0].at_ms if new_entries else 0}")

        def rewrite() -> None:
            self._backend.update(raws)
            self._meta.put(self.name, meta)

        return rewrite

    def _apply_policy(self, evicted: list[Entry], kept: list[Entry]) -> list[Entry]:
        policy = self.retention.on_overflow
        if not evicted or policy == "drop_oldest":
            return kept
        values = [serialization.loads(e.payload) for e in evicted]
        if policy == "move_to_long_term":
            if self._eviction_sink is None:
                raise MemoryValueError(
                    f"history '{self.name}' moves evicted items to long-term memory, but "
                    "long-term memory is not available for this agent"
                )
            self._eviction_sink(self.name, values)
            return kept
        return self._reduce(policy, values, evicted, kept)

    def _reduce(self, reducer: Callable[[list[Any]], Any], values: list[Any],
                evicted: list[Entry], kept: list[Entry]) -> list[Entry]:
        """Replace the evicted items by what the reducer returns. If the replacements leave no
        room for every kept item, the oldest kept ones are evicted too and the reducer is
        called again with all of them, so no item leaves without being reduced."""
        while True:
            repl = self._replacements(reducer, values, evicted)
            room = room_after(self.retention, repl, f"history '{self.name}'")
            fit = retained_count(kept, room, self._now_ms())
            if fit == len(kept):
                return repl + kept
            moved = kept[: len(kept) - fit]
            evicted = evicted + moved
            values = values + [serialization.loads(e.payload) for e in moved]
            kept = kept[len(kept) - fit:]

    def _replacements(self, reducer: Callable[[list[Any]], Any], values: list[Any],
                      evicted: list[Entry]) -> list[Entry]:
        self._metrics.inc(f"history.{self.name}.reducer_calls")
        try:
            replacements = reducer(values)
        except Exception as e:
            raise MemoryValueError(
                f"reducer of history '{self.name}' failed on {len(values)} evicted items: "
                f"{type(e).__name__}: {e}"
            ) from e
        if replacements is None:
            return []
        if not isinstance(replacements, list):
            raise MemoryValueError(
                f"reducer of history '{self.name}' must return a list of items or None, "
                f"got {type(replacements).__name__}"
            )
        return [self._entry(v, at_ms=evicted[-1].at_ms) for v in replacements]

    def discard(self) -> None:
        """Forget the run's buffered appends and cached reads (also after a commit)."""
        if self._physical is not None or self._appended or self._cleared:
            self._physical = None
            self._appended = []
            self._cleared = False
            self._rewrite = False

