"""Value encoding for Flink state: tagged JSON, never pickle.

State must be safe to restore and readable by tooling, so user values are stored as JSON with
small tags for what JSON lacks: ``{"$b": base64}`` for bytes, ``{"$m": [type, data]}`` for
pydantic models (they come back as the same class), ``{"$d": {...}}`` for a user dict that
would otherwise look like a tag.
"""

from __future__ import annotations

import base64
import importlib
import json
import math
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ..errors import MemoryValueError

_TAGS = ("$b", "$m", "$d")
_registry: dict[str, type[BaseModel]] = {}


def type_key(cls: type) -> str:
    """The name a pydantic model class is stored under: ``module:QualName``."""
    return f"{cls.__module__}:{cls.__qualname__}"


def register_type(cls: type[BaseModel]) -> type[BaseModel]:
    """Make a model class resolvable on restore even when its module is not importable
    (e.g. a class defined in the job script's ``__main__``). Usable as a decorator."""
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        raise TypeError(f"register_type expects a pydantic model class, got {cls!r}")
    _registry[type_key(cls)] = cls
    return cls


def _resolve_type(name: str) -> type[BaseModel]:
    cls = _registry.get(name)
    if cls is not None:
        return cls
    module_name, _, qualname = name.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise MemoryValueError(
            f"cannot resolve stored type '{name}': make its module importable on the "
            f"TaskManager or call flink_agents_memory.register_type({qualname.split('.')[-1]})"
        ) from e
    if not (isinstance(obj, type) and issubclass(obj, BaseModel)):
        raise MemoryValueError(f"stored type '{name}' is not a pydantic model")
    _registry[name] = obj
    return obj


def to_json_value(value: Any, *, _in_model: bool = False) -> Any:
    """Convert a supported value into its tagged-JSON form; TypeError for anything else."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"cannot store non-finite float {value!r}")
        return value
    if isinstance(value, (bytes, bytearray)):
        return {"$b": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, (list, tuple)):
        return [to_json_value(v, _in_model=_in_model) for v in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"dict keys must be str to be stored, got key {k!r}")
            out[k] = to_json_value(v, _in_model=_in_model)
        if len(out) == 1 and next(iter(out)) in _TAGS:
            return {"$d": out}
        return out
    if isinstance(value, BaseModel):
        data = {
            name: to_json_value(getattr(value, name), _in_model=True)
            for name in type(value).model_fields
        }
        return {"$m": [type_key(type(value)), data]}
    if _in_model:
        # Leaves pydantic knows how to serialise (datetime, UUID, Enum...) and validates back.
        return to_jsonable_python(value)
    raise TypeError(
        f"unsupported value type {type(value).__name__!r}: memory holds None, bool, int, float, "
        "str, bytes, lists and dicts of these, and pydantic models"
    )


def from_json_value(data: Any) -> Any:
    """Inverse of :func:`to_json_value`."""
    if isinstance(data, list):
        return [from_json_value(v) for v in data]
    if isinstance(data, dict):
        if len(data) == 1:
            tag, inner = next(iter(data.items()))
            if tag == "$b":
                return base64.b64decode(inner)
            if tag == "$m":
                cls = _resolve_type(inner[0])
                return cls.model_validate({k: from_json_value(v) for k, v in inner[1].items()})
            if tag == "$d":
                return {k: from_json_value(v) for k, v in inner.items()}
        return {k: from_json_value(v) for k, v in data.items()}
    return data


_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode
_decode = json.JSONDecoder().decode
#: The JSON of a str: what :func:`dumps` gives for one, without its type dispatch.
dumps_str: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]
_NUMBER_START = frozenset("-0123456789")


def dumps(value: Any) -> str:
    """Encode a value to tagged JSON text. Primitives take a fast path (the common case on
    every state access); the output is the same JSON either way."""
    kind = type(value)
    if kind is str:
        return dumps_str(value)
    if kind is int:
        return int.__repr__(value)
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    return _encode(to_json_value(value))


def encoded_size(text: str) -> int:
    """Size in bytes of ``text`` as UTF-8 (what state stores)."""
    return len(text) if text.isascii() else len(text.encode())


def loads(raw: str) -> Any:
    """Decode text written by :func:`dumps` (fast paths for plain strings and integers)."""
    first = raw[:1]
    if first == '"' and "\\" not in raw:
        return raw[1:-1]
    if first in _NUMBER_START and raw.lstrip("-").isdigit():
        return int(raw)
    data = _decode(raw)
    return from_json_value(data) if isinstance(data, (list, dict)) else data
