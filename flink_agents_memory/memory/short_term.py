"""Short-term memory on one map keyed by absolute dotted path (the short-term memory design).

A primitive field is stored at its absolute path as ``"\\x00" + tagged JSON``; an object is
stored as a marker ``"\\x01" + JSON list of its direct field names``, so reading a whole object
never scans the map. The root object has path ``""`` and exists implicitly.

Rules beyond the seed (documented in docs/short_term_memory.md):
* ``set`` over an object replaces the sub-tree; ``set`` of a MemoryObject copies its sub-tree.
* ``set`` or ``new_object`` *under* a primitive is a MemoryPathError.
* ``new_object`` over an existing field is a MemoryPathError unless ``overwrite=True``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..errors import MemoryPathError, MemoryValueError
from . import serialization
from .limits import MemoryLimits
from .list_retention import ListRetention
from .memory_object import MemoryObject
from .recent import newest, require_count
from .ref import MemoryRef, ref_to
from .store import KeyValueStore
from .validation import DEFAULT_LIMITS, check_str, check_value

_VALUE = "\x00"
_OBJECT = "\x01"
DEFAULT_MAX_VALUE_BYTES = 1 << 20
_PLAIN = frozenset({str, int, float, bool, type(None), list, dict, bytes})

# Called as listener(op, path, old_value, new_value) after each set/delete (the audit trail).
ChangeListener = Callable[[str, str, Any, Any], None]


def check_path(path: str) -> None:
    """Reject non-str and empty paths and empty segments (cheap: runs on every access)."""
    if type(path) is not str:
        raise MemoryPathError(f"a memory path must be a str, got {type(path).__name__}")
    if not path:
        raise MemoryPathError("a memory path must not be empty")
    if path[0] == "." or path[-1] == "." or ".." in path:
        raise MemoryPathError(f"memory path {path!r} has an empty segment")
    if not path.isascii():
        try:
            check_str(path, f"memory path {path[:80]!r}")
        except MemoryValueError as e:
            raise MemoryPathError(str(e)) from None


def split_path(path: str) -> list[str]:
    """Split a relative dotted path after :func:`check_path`."""
    check_path(path)
    return path.split(".")


def join(base: str, relative: str) -> str:
    """Absolute path of ``relative`` under the object at absolute path ``base``."""
    return f"{base}.{relative}" if base else relative


def _parent_and_name(path: str) -> tuple[str, str]:
    parent, _, name = path.rpartition(".")
    return parent, name


class ShortTermMemory:
    """Path operations on a :class:`KeyValueStore`; one instance serves one key's run."""

    def __init__(
        self,
        store: KeyValueStore,
        max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES,
        listener: ChangeListener | None = None,
        list_retention: ListRetention | None = None,
        limits: MemoryLimits = DEFAULT_LIMITS,
    ) -> None:
        self._store = store
        self._max_value_bytes = max_value_bytes
        self._listener = listener
        self._list_retention = list_retention
        self._limits = limits
        self._max_path_chars = limits.max_path_chars
        #: An int of fewer digits than this needs no further check.
        self._int_bound = 10 ** limits.max_int_digits

    def _check_new_path(self, full: str) -> None:
        if len(full) > self._max_path_chars:
            raise MemoryPathError(
                f"memory path {full[:80]!r}... has {len(full)} chars, over max_path_chars="
                f"{self._max_path_chars}"
            )

    # -- raw entries -------------------------------------------------------------------------
    def read(self, path: str) -> tuple[bool, Any] | None:
        """``(True, field_names)`` for an object, ``(False, value)`` for a value, None if absent."""
        raw = self._store.get(path)
        if raw is None:
            return (True, []) if path == "" else None
        if raw[:1] == _OBJECT:
            return True, json.loads(raw[1:])
        return False, serialization.loads(raw[1:])

    def _write_object(self, path: str, names: list[str]) -> None:
        self._store.put(path, _OBJECT + json.dumps(names, separators=(",", ":")))

    def _encode_value(self, path: str, value: Any) -> str:
        kind = type(value)
        # The common values, checked inline: ASCII text and ints within max_int_digits.
        if kind is str and value.isascii():
            text = serialization.dumps_str(value)
        elif kind is int and -self._int_bound < value < self._int_bound:
            text = int.__repr__(value)
        else:
            check_value(value, f"value for '{path}'", self._limits)
            text = serialization.dumps(value)
        # UTF-8 takes at most 4 bytes a character: most values need no size computed.
        if len(text) * 4 <= self._max_value_bytes:
            return _VALUE + text
        size = serialization.encoded_size(text)
        if size > self._max_value_bytes:
            raise MemoryValueError(
                f"value for '{path}' is {size} bytes encoded, over the limit of "
                f"{self._max_value_bytes} bytes (max_value_bytes)"
            )
        return _VALUE + text

    def _add_name(self, parent: str, name: str) -> None:
        entry = self.read(parent)
        assert entry is not None and entry[0]
        if name not in entry[1]:
            self._write_object(parent, [*entry[1], name])

    def _remove_tree(self, path: str) -> None:
        entry = self.read(path)
        if entry is None:
            return
        if entry[0]:
            for name in entry[1]:
                self._remove_tree(join(path, name))
        self._store.remove(path)

    def _object_names(self, path: str) -> list[str]:
        entry = self.read(path)
        if entry is None or not entry[0]:
            raise MemoryPathError(f"the object at '{path}' no longer exists")
        return entry[1]

    def _ensure_parents(self, base: str, segments: list[str], full: str) -> str:
        """Create missing intermediate objects; returns the absolute path of the last parent."""
        self._object_names(base)
        current = base
        for segment in segments:
            child = join(current, segment)
            entry = self.read(child)
            if entry is None:
                self._write_object(child, [])
                self._add_name(current, segment)
            elif not entry[0]:
                raise MemoryPathError(
                    f"cannot create '{full}': '{child}' holds a "
                    f"{type(entry[1]).__name__} value, not an object"
                )
            current = child
        return current

    # -- operations on absolute paths ------------------------------------------------------------
    def set(self, base: str, path: str, value: Any) -> MemoryRef:
        if type(path) is not str or not path or path[0] == "." or path[-1] == "." \
                or ".." in path or not path.isascii():
            check_path(path)  # raises the precise error (or passes non-ASCII valid text)
        full = f"{base}.{path}" if base else path
        if len(full) > self._max_path_chars:
            self._check_new_path(full)
        if type(value) not in _PLAIN and isinstance(value, MemoryObject):
            snapshot = _snapshot(value)
            self._new_object(base, path.split("."), full, overwrite=True)
            self._restore_snapshot(full, snapshot)
            return MemoryRef(path=full, type_name="MemoryObject")
        if self._list_retention is not None and isinstance(value, (list, tuple)):
            value = self._list_retention.apply(full, list(value))
        encoded = self._encode_value(full, value)
        old_raw = self._store.get(full)
        old = None
        if self._listener is not None and old_raw is not None:
            old = self.read(full)
        if old_raw is None:
            # Only a new field needs its parents checked and its name added (a stored field
            # implies its parents are objects): updates cost one read and one write.
            segments = path.split(".")
            parent = self._ensure_parents(base, segments[:-1], full)
            self._store.put(full, encoded)
            self._add_name(parent, segments[-1])
        else:
            if old_raw[:1] == _OBJECT:
                self._remove_tree(full)
            self._store.put(full, encoded)
        if self._listener is not None:
            self._listener("set", full, None if old is None or old[0] else old[1], value)
        return ref_to(full, value)

    def _restore_snapshot(self, path: str, snapshot: dict[str, Any]) -> None:
        for name, value in snapshot.items():
            if isinstance(value, dict) and value.get("__object__"):
                self._new_object(path, [name], join(path, name), overwrite=True)
                self._restore_snapshot(join(path, name), value["fields"])
            else:
                self.set(path, name, value)

    def new_object(self, base: str, path: str, overwrite: bool) -> str:
        full = join(base, path)
        self._check_new_path(full)
        self._new_object(base, split_path(path), full, overwrite)
        return full

    def _new_object(self, base: str, segments: list[str], full: str, overwrite: bool) -> None:
        parent = self._ensure_parents(base, segments[:-1], full)
        old = self.read(full)
        if old is not None:
            if not overwrite:
                kind = "an object" if old[0] else f"a {type(old[1]).__name__} value"
                raise MemoryPathError(
                    f"cannot create object '{full}': it already holds {kind} "
                    "(pass overwrite=True to replace it)"
                )
            self._remove_tree(full)
        self._write_object(full, [])
        if old is None:
            self._add_name(parent, segments[-1])

    def delete(self, base: str, path: str) -> bool:
        check_path(path)
        full = join(base, path)
        old = self.read(full)
        if old is None:
            return False
        self._remove_tree(full)
        parent, name = _parent_and_name(full)
        entry = self.read(parent)
        if entry is not None and entry[0]:
            self._write_object(parent, [n for n in entry[1] if n != name])
        if self._listener is not None:
            self._listener("delete", full, None if old[0] else old[1], None)
        return True


def _snapshot(obj: MemoryObject) -> dict[str, Any]:
    """A plain copy of an object's sub-tree, taken before the target is overwritten."""
    out: dict[str, Any] = {}
    for name, value in obj.get_fields().items():
        if isinstance(value, MemoryObject):
            out[name] = {"__object__": True, "fields": _snapshot(value)}
        else:
            out[name] = value
    return out


class StoredMemoryObject(MemoryObject):
    """A MemoryObject at an absolute path of a :class:`ShortTermMemory`."""

    def __init__(self, memory: ShortTermMemory, path: str = "") -> None:
        self._memory = memory
        self._path = path

    @property
    def path(self) -> str:
        """Absolute path of this object ("" for the root)."""
        return self._path

    def _value_at(self, full: str) -> Any:
        entry = self._memory.read(full)
        if entry is None:
            return None
        if entry[0]:
            return StoredMemoryObject(self._memory, full)
        return entry[1]

    def get(self, path_or_ref: str | MemoryRef) -> Any:
        path = path_or_ref
        if type(path) is str and path and path[0] != "." and path[-1] != "." \
                and ".." not in path and path.isascii():
            # The common case, checked inline: a valid ASCII relative path.
            entry = self._memory.read(f"{self._path}.{path}" if self._path else path)
            if entry is None:
                return None
            if entry[0]:
                return StoredMemoryObject(self._memory, join(self._path, path))
            return entry[1]
        if isinstance(path_or_ref, MemoryRef):
            value = self._value_at(path_or_ref.path) if path_or_ref.path else self
            actual = "MemoryObject" if isinstance(value, MemoryObject) else type(value).__name__
            if value is not None and actual != path_or_ref.type_name:
                raise MemoryValueError(
                    f"MemoryRef to '{path_or_ref.path}' expects a {path_or_ref.type_name}, "
                    f"but that path now holds a {actual}"
                )
            return value
        check_path(path_or_ref)
        return self._value_at(join(self._path, path_or_ref))

    def set(self, path: str, value: Any) -> MemoryRef:
        return self._memory.set(self._path, path, value)

    def new_object(self, path: str, overwrite: bool = False) -> MemoryObject:
        full = self._memory.new_object(self._path, path, overwrite)
        return StoredMemoryObject(self._memory, full)

    def is_exist(self, path: str) -> bool:
        check_path(path)
        return self._memory.read(join(self._path, path)) is not None

    def get_field_names(self) -> list[str]:
        return list(self._memory._object_names(self._path))

    def get_fields(self) -> dict[str, Any]:
        return {name: self._value_at(join(self._path, name)) for name in self.get_field_names()}

    def delete(self, path: str) -> bool:
        return self._memory.delete(self._path, path)

    def get_recent(self, path: str, n: int) -> list[Any]:
        require_count(n, f"get_recent('{join(self._path, path)}', n)")
        value = self.get(path)
        if value is None:
            return []
        if not isinstance(value, list):
            raise MemoryValueError(
                f"get_recent needs a list at '{join(self._path, path)}', "
                f"found {type(value).__name__}"
            )
        return newest(value, n)

    def __repr__(self) -> str:
        return f"MemoryObject(path={self._path!r}, fields={self.get_field_names()!r})"
