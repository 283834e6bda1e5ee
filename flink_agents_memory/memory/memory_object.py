"""The MemoryObject interface of the short-term memory design (plus
``delete`` and ``get_recent``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from .ref import MemoryRef


class MemoryObject(ABC):
    """An object in short-term memory; fields are primitive values or nested objects."""

    @abstractmethod
    def get(self, path_or_ref: str | MemoryRef) -> Any:
        """Value of a direct or indirect field (a MemoryObject for an object field), the value a
        MemoryRef points at, or None when the field does not exist."""

    @abstractmethod
    def set(self, path: str, value: Any) -> MemoryRef:
        """Set a direct or indirect field, creating intermediate objects; returns a MemoryRef."""

    @abstractmethod
    def new_object(self, path: str, overwrite: bool = False) -> MemoryObject:
        """Create an empty object at ``path``; an existing field is replaced only if
        ``overwrite`` is true (otherwise MemoryPathError)."""

    @abstractmethod
    def is_exist(self, path: str) -> bool:
        """Whether a direct or indirect field exists."""

    @abstractmethod
    def get_field_names(self) -> list[str]:
        """Names of the direct fields, in insertion order."""

    @abstractmethod
    def get_fields(self) -> dict[str, Any]:
        """The direct fields by name (objects as MemoryObject)."""

    @abstractmethod
    def delete(self, path: str) -> bool:
        """Remove a field or a whole sub-tree; returns whether anything was removed."""

    @abstractmethod
    def get_recent(self, path: str, n: int) -> list[Any]:
        """The last ``n`` elements of the list stored at ``path`` (the
        short-term memory design's retention API)."""
