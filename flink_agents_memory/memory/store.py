"""Key-value stores under short-term memory, and the run buffer that makes a run atomic.

Short-term memory is one Flink ``MapState<str, str>`` per key (the short-term memory
design); values are tagged JSON text, which PyFlink's thread mode passes without
conversion. The memory logic is written against :class:`KeyValueStore` so the same code
runs on real Flink state and, in unit tests, on a dict; :class:`RunBuffer` sits in between
for the length of one run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

#: Reads the values of several keys (None where absent) in one call.
GetMany = Callable[[list[str]], list[str | None]]

#: Most keys a run reads ahead: an agent that reads more pays one call per key beyond it.
MAX_READ_AHEAD = 32
#: Longer values are read when asked for, never ahead: a run that does not need one would
#: pay for copying it into Python.
MAX_READ_AHEAD_CHARS = 1024


class KeyValueStore(Protocol):
    """The three operations short-term memory needs from its storage."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, value: str) -> None: ...

    def remove(self, key: str) -> None: ...


class DictStore:
    """A pure-Python store (unit tests, and local runs without Flink)."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.data.get(key)

    def put(self, key: str, value: str) -> None:
        self.data[key] = value

    def remove(self, key: str) -> None:
        self.data.pop(key, None)


class MapStateStore:
    """Adapter over a ``MapState<str, str>`` scoped (by Flink) to the current key.

    The runtime passes the Java map state under PyFlink's thread-mode wrapper where it can:
    for strings the wrapper only runs identity converters, so calling the Java object
    directly halves the cost of an access, and binding its methods once leaves no Python frame
    in between. Anything with get/put/remove works; ``put_all`` is there when the state has
    one (the Java ``putAll``, or PyFlink's ``put_all``): one call into Java for many puts.
    ``get_many``, when given, reads several keys in one call into Java.
    """

    get: Callable[[str], str | None]
    put: Callable[[str, str], None]
    remove: Callable[[str], None]
    put_all: Callable[[dict[str, str]], None] | None
    get_many: GetMany | None

    def __init__(self, map_state: Any, get_many: GetMany | None = None) -> None:
        self.get = map_state.get
        self.put = map_state.put
        self.remove = map_state.remove
        self.put_all = getattr(map_state, "putAll", None) or getattr(map_state, "put_all", None)
        self.get_many = get_many


_DELETED = object()
_MISSING = object()


class RunBuffer:
    """Buffers the writes of one run and caches its reads.

    Reads see the run's own writes; :meth:`flush` applies the writes when the run succeeds,
    :meth:`discard` drops them when it fails, so a failed run leaves memory as it was. Each
    path is read from state at most once per run.

    Runs of one agent mostly read the same paths, so where the store has ``get_many`` the
    run's first read from state also reads ahead the paths the previous run read (up to
    ``MAX_READ_AHEAD`` of them, values of ``MAX_READ_AHEAD_CHARS`` at most): one call into Java
    instead of one per path. Reading ahead a path the run then does not use costs a lookup in
    Java and a short copy, nothing else (a read changes no state unless state TTL restarts on
    reads, where the runtime gives no ``get_many``).
    """

    def __init__(self, backing: KeyValueStore) -> None:
        self._backing = backing
        #: Writes all of a run's puts in one call when the backing store can (see flush).
        self._put_all: Callable[[dict[str, str]], None] | None = getattr(backing, "put_all", None)
        self._get_many: GetMany | None = getattr(backing, "get_many", None)
        self._local: dict[str, Any] = {}
        self._dirty: set[str] = set()
        #: Values read ahead and not yet asked for in this run.
        self._ahead: dict[str, str | None] = {}
        #: Paths this run read from state (directly or ahead), and those the previous run read.
        self._used: list[str] = []
        self._learned: list[str] = []
        self._may_read_ahead = True
        #: State accesses since the last :meth:`take_stats` (for metrics).
        self.reads = self.writes = self.deletes = self.bytes_written = 0

    def get(self, key: str) -> str | None:
        value = self._local.get(key, _MISSING)
        if value is not _MISSING:
            return None if value is _DELETED else value
        value = self._ahead.pop(key, _MISSING)
        if value is _MISSING:
            value = self._read(key)
        if len(self._used) < MAX_READ_AHEAD and (value is None
                                                 or len(value) <= MAX_READ_AHEAD_CHARS):
            self._used.append(key)
        self._local[key] = _DELETED if value is None else value
        return value

    def _read(self, key: str) -> str | None:
        learned = self._learned
        if self._may_read_ahead and self._get_many is not None and len(learned) > 1:
            self._may_read_ahead = False  # once a run: a later miss was not predicted
            keys = learned if key in learned else [*learned, key]
            ahead = dict(zip(keys, self._get_many(keys), strict=True))
            self.reads += len(keys)
            value = ahead.pop(key)
            self._ahead = ahead
            return value
        self.reads += 1
        return self._backing.get(key)

    def put(self, key: str, value: str) -> None:
        self._local[key] = value
        self._dirty.add(key)

    def remove(self, key: str) -> None:
        self._local[key] = _DELETED
        self._dirty.add(key)

    @property
    def pending_writes(self) -> int:
        """Number of paths this run changed."""
        return len(self._dirty)

    def flush(self) -> int:
        """Apply the run's writes to the backing store; returns the bytes written.

        Several puts go in one ``put_all`` where the store has it: each call into Flink's
        state crosses from Python into Java, which costs more than the put itself."""
        if not self._dirty:  # most runs leave most buffers unwritten
            self.discard()
            return 0
        written = 0
        puts: dict[str, str] = {}
        for key in self._dirty:
            value = self._local[key]
            if value is _DELETED:
                self._backing.remove(key)
                self.deletes += 1
            else:
                puts[key] = value
                written += len(value) if value.isascii() else len(value.encode())
        if len(puts) > 1 and self._put_all is not None:
            self._put_all(puts)
        else:
            for key, value in puts.items():
                self._backing.put(key, value)
        self.writes += len(self._dirty)
        self.bytes_written += written
        self.discard()
        return written

    def take_stats(self) -> tuple[int, int, int, int]:
        """``(reads, writes, deletes, bytes_written)`` since the last call, then reset."""
        stats = (self.reads, self.writes - self.deletes, self.deletes, self.bytes_written)
        self.reads = self.writes = self.deletes = self.bytes_written = 0
        return stats

    def discard(self) -> None:
        """Forget the run's writes and cached reads; the next run reads ahead what this one
        read."""
        self._local.clear()
        self._dirty.clear()
        if self._used:
            self._learned = self._used
            self._used = []
        if self._ahead:
            self._ahead = {}
        self._may_read_ahead = True
