"""MemoryRef: a persistent, serialisable handle to a value in short-term memory (the short-term
memory design's MemoryRef)."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict


class _HasShortTermMemory(Protocol):
    def get_short_term_memory(self) -> Any: ...


class MemoryRef(BaseModel):
    """Points at ``path`` (absolute) in short-term memory; ``type_name`` is the stored type's
    name (``type(value).__name__``), checked again when the reference is resolved. Immutable,
    so equal references can be shared."""

    model_config = ConfigDict(frozen=True)

    path: str
    type_name: str

    @staticmethod
    def create(path: str, type_name: str) -> MemoryRef:
        """Create a reference to the absolute ``path`` holding a value of ``type_name``."""
        return MemoryRef(path=path, type_name=type_name)

    def resolve(self, ctx: _HasShortTermMemory) -> Any:
        """Read the referenced value from the short-term memory of ``ctx``'s current key."""
        return ctx.get_short_term_memory().get(self)


#: Types stored as another type's JSON: what ``get`` returns for them.
_READS_BACK_AS = {tuple: "list", bytearray: "bytes"}


def stored_type_name(value: Any) -> str:
    """The name of the type ``value`` reads back as once stored: a tuple comes back as a list,
    a bytearray as bytes, a subclass of a primitive (an IntEnum, a str subclass) as the
    primitive; a pydantic model as its own class."""
    kind = type(value)
    name = _READS_BACK_AS.get(kind)
    if name is not None:
        return name
    if kind.__module__ == "builtins" or isinstance(value, BaseModel):
        return kind.__name__
    for base in (bool, int, float, str, bytes, list, tuple, dict):
        if isinstance(value, base):
            return _READS_BACK_AS.get(base, base.__name__)
    return kind.__name__


_MAX_SHARED_REFS = 4096
_shared_refs: dict[tuple[str, type], MemoryRef] = {}


def ref_to(path: str, value: Any) -> MemoryRef:
    """A shared MemoryRef to ``value`` stored at ``path``: every ``set`` returns one, and the
    same few paths repeat for every key, so building a pydantic model each time would cost more
    than the state access. Cached by the value's type, which alone decides its type name."""
    key = (path, type(value))
    ref = _shared_refs.get(key)
    if ref is None:
        if len(_shared_refs) >= _MAX_SHARED_REFS:
            _shared_refs.clear()
        ref = _shared_refs[key] = MemoryRef(path=path, type_name=stored_type_name(value))
    return ref
