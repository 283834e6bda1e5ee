"""Checks of user data against :class:`MemoryLimits`, run while a run is prepared.

Every check names where the data was going (a short-term path, a history, a memory, a metadata
field) and the rule or limit it broke. Values are walked without recursion, so a deeply nested
value is refused at the limit instead of exhausting Python's (or the JVM thread's) stack.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from ..errors import MemoryTypeError, MemoryValueError
from .limits import LUCENE_MAX_TERM_BYTES, MemoryLimits

DEFAULT_LIMITS = MemoryLimits()

# What Java's OffsetDateTime.parse / LocalDateTime.parse accept (Python's fromisoformat takes
# more, e.g. a date alone, which the index would refuse while writing).
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?")

_int_bounds: dict[int, int] = {}


def _int_bound(digits: int) -> int:
    bound = _int_bounds.get(digits)
    if bound is None:
        bound = _int_bounds[digits] = 10 ** digits
    return bound


def check_str(text: str, where: str) -> None:
    """Refuse a str that is not valid Unicode (a lone surrogate cannot be encoded as UTF-8,
    neither into state nor across to Java)."""
    if text.isascii():
        return
    try:
        text.encode()
    except UnicodeEncodeError as e:
        raise MemoryValueError(
            f"{where} holds a lone surrogate {text[e.start]!r} at index {e.start}: only valid "
            "Unicode text can be stored"
        ) from None


def check_int(value: int, where: str, limits: MemoryLimits) -> None:
    if -_int_bound(limits.max_int_digits) < value < _int_bound(limits.max_int_digits):
        return
    raise MemoryValueError(
        f"{where} is an int of {value.bit_length()} bits, over max_int_digits="
        f"{limits.max_int_digits} decimal digits"
    )


def _path(at: Any) -> str:
    """The readable path of a place in a value. Paths are built lazily, as ``(parent, key,
    is_field)`` triples down from the value's own ``where``, and formatted only for an error:
    formatting every item's path (a ``repr`` per key) cost more than all the checks."""
    parts = []
    while not isinstance(at, str):
        at, key, is_field = at
        parts.append(f".{key}" if is_field else f"[{key!r}]")
    return at + "".join(reversed(parts))


def check_value(value: Any, where: str, limits: MemoryLimits = DEFAULT_LIMITS, *,
                json_only: bool = False) -> None:
    """Refuse what memory cannot store: types other than None, bool, int, float, str, bytes,
    lists/tuples, dicts with str keys and pydantic models (``json_only``: plain JSON only),
    non-finite floats, huge ints, invalid Unicode, and nesting deeper than ``max_depth``."""
    kind = type(value)
    if kind is str:  # the common cases, without the walk
        check_str(value, where)
        return
    if kind is int:
        check_int(value, where, limits)
        return
    if value is None or kind is bool:
        return
    bound = _int_bound(limits.max_int_digits)
    max_key = limits.max_key_chars
    stack: list[tuple[Any, Any, int, bool]] = [(value, where, 0, False)]
    while stack:
        item, at, depth, in_model = stack.pop()
        kind = type(item)
        if item is None or kind is bool:
            continue
        if kind is str or isinstance(item, str):
            if not item.isascii():
                check_str(item, _path(at))
        elif isinstance(item, bool):
            continue
        elif isinstance(item, int):
            if not -bound < item < bound:
                check_int(item, _path(at), limits)
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise MemoryTypeError(f"{_path(at)} is {item!r}: only finite floats can be stored")
        elif isinstance(item, (bytes, bytearray)) and not json_only:
            continue
        elif isinstance(item, (list, tuple, dict)) or (
                isinstance(item, BaseModel) and not json_only):
            if depth >= limits.max_depth:
                raise MemoryValueError(
                    f"{where} is nested deeper than max_depth={limits.max_depth} "
                    f"(at {_path(at)})")
            if isinstance(item, dict):
                for k, v in item.items():
                    if type(k) is not str or len(k) > max_key or not k.isascii():
                        _check_key(k, _path(at), limits)
                    if _plain_leaf(v, bound):
                        continue
                    stack.append((v, (at, k, False), depth + 1, in_model))
            elif isinstance(item, BaseModel):
                for name in type(item).model_fields:
                    stack.append((getattr(item, name), (at, name, True), depth + 1, True))
            else:
                for i, v in enumerate(item):
                    if _plain_leaf(v, bound):
                        continue
                    stack.append((v, (at, i, False), depth + 1, in_model))
        elif not in_model:  # inside a model, pydantic serialises datetimes, UUIDs, enums...
            allowed = ("JSON only: None, bool, int, float, str, lists and dicts with str keys"
                       if json_only
                       else "None, bool, int, float, str, bytes, lists and dicts of these, "
                       "and pydantic models")
            raise MemoryTypeError(
                f"{_path(at)} has unsupported type {kind.__name__!r}: memory holds {allowed}")


def _plain_leaf(value: Any, bound: int) -> bool:
    """An ASCII str, an int within the bound, None or a bool: nothing more to check."""
    kind = type(value)
    return ((kind is str and value.isascii()) or (kind is int and -bound < value < bound)
            or value is None or kind is bool)


def _check_key(key: Any, at: str, limits: MemoryLimits) -> None:
    if not isinstance(key, str):
        raise MemoryTypeError(f"dict keys must be str to be stored, got key {key!r} in {at}")
    if len(key) > limits.max_key_chars:
        raise MemoryValueError(
            f"a dict key of {len(key)} chars in {at} is over max_key_chars={limits.max_key_chars}")
    check_str(key, f"dict key {key[:40]!r}... in {at}")


def check_memory_text(text: Any, where: str, limits: MemoryLimits = DEFAULT_LIMITS) -> str:
    """A long-term memory's text: a non-empty, valid str of at most ``max_memory_bytes``."""
    if not isinstance(text, str) or not text.strip():
        shown = text if not isinstance(text, str) else text[:40]
        raise MemoryValueError(f"{where}: a memory's text must be a non-empty str, got {shown!r}")
    return _check_text(text, f"{where}: text", "max_memory_bytes", limits.max_memory_bytes)


def check_memory_context(context: Any, where: str,
                         limits: MemoryLimits = DEFAULT_LIMITS) -> str | None:
    """A memory's context: None, or a valid str of at most ``max_context_bytes`` (blank is
    None: there is nothing to index)."""
    if context is None:
        return None
    if not isinstance(context, str):
        raise MemoryTypeError(f"{where}: context must be a str or None, got "
                              f"{type(context).__name__}")
    if not context.strip():
        return None
    return _check_text(context, f"{where}: context", "max_context_bytes",
                       limits.max_context_bytes)


def _check_text(text: str, what: str, limit_name: str, limit: int) -> str:
    if len(text) > limit:  # chars <= bytes: no encoding needed to refuse
        raise MemoryValueError(f"{what} of {len(text)} chars is over {limit_name}={limit}")
    check_str(text, what)
    size = len(text.encode()) if not text.isascii() else len(text)
    if size > limit:
        raise MemoryValueError(f"{what} of {size} bytes (UTF-8) is over {limit_name}={limit}")
    return text


def check_metadata(metadata: Any, where: str,
                   limits: MemoryLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """A long-term memory's metadata: a JSON object within the limits whose indexed values
    (top-level strings, and strings in top-level lists) and top-level keys (indexed for the
    ``"*"`` filter) fit a Lucene term."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise MemoryTypeError(f"{where}: metadata must be a dict, got {type(metadata).__name__}")
    check_value(metadata, f"{where}: metadata", limits, json_only=True)
    for name, value in metadata.items():
        if len(name) > LUCENE_MAX_TERM_BYTES // 4 and len(name.encode()) > LUCENE_MAX_TERM_BYTES:
            raise MemoryValueError(
                f"{where}: a metadata key of {len(name.encode())} bytes; top-level keys are "
                f"indexed (for the '*' filter) and at most {LUCENE_MAX_TERM_BYTES} bytes")
        for term in (value if isinstance(value, (list, tuple)) else [value]):
            if isinstance(term, str) and len(term.encode()) > LUCENE_MAX_TERM_BYTES:
                raise MemoryValueError(
                    f"{where}: metadata[{name!r}] holds a str of {len(term.encode())} bytes; "
                    f"filterable metadata values are at most {LUCENE_MAX_TERM_BYTES} bytes "
                    "(Lucene's term limit): nest long text in a dict, which is stored only")
    size = len(json.dumps(metadata, ensure_ascii=False).encode())
    if size > limits.max_metadata_bytes:
        raise MemoryValueError(
            f"{where}: metadata of {size} bytes (JSON) is over max_metadata_bytes="
            f"{limits.max_metadata_bytes}")
    return metadata


def check_memory_id(memory_id: Any, limits: MemoryLimits = DEFAULT_LIMITS) -> str:
    if not isinstance(memory_id, str) or not memory_id:
        raise MemoryValueError(f"a memory id must be a non-empty str, got {memory_id!r}")
    if len(memory_id) > limits.max_id_chars:
        raise MemoryValueError(
            f"memory id {memory_id[:40]!r}... has {len(memory_id)} chars, over "
            f"max_id_chars={limits.max_id_chars}")
    check_str(memory_id, f"memory id {memory_id[:40]!r}")
    return memory_id


def check_timestamp(value: Any, where: str) -> None:
    """An ISO-8601 date-time the index can parse, e.g. ``2024-05-01T12:00:00+00:00``."""
    match = _ISO.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise MemoryValueError(
            f"{where} must be an ISO-8601 date-time like '2024-05-01T12:00:00+00:00', "
            f"got {value!r}")
    fraction, offset = match.group(2) or "", match.group(3) or ""
    # Python parses 3 or 6 fraction digits (3.10), Java 1 to 9: normalise for the check.
    normalised = value.replace(fraction, fraction[:7].ljust(7, "0"), 1) if fraction else value
    try:
        datetime.fromisoformat(normalised.replace("Z", "+00:00"))
    except ValueError as e:
        raise MemoryValueError(f"{where} is not a valid date-time: {value!r} ({e})") from None
    if offset not in ("", "Z") and (int(offset[1:3]), int(offset[4:6])) > (18, 0):
        raise MemoryValueError(f"{where} has offset {offset}, beyond +-18:00: {value!r}")


def check_key(key: Any, limits: MemoryLimits = DEFAULT_LIMITS) -> None:
    """The current key as the index stores it (an indexed term), when a run writes long-term
    memory."""
    text = key if isinstance(key, str) else str(key)
    size = len(text.encode(errors="replace"))
    if size > limits.max_key_bytes:
        raise MemoryValueError(
            f"key {text[:40]!r}... is {size} bytes as text, over max_key_bytes="
            f"{limits.max_key_bytes}: long-term memory indexes the key")
