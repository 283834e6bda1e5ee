"""Retention rules for histories and retained lists: how much to keep, and what happens to
what is evicted.

The logical content of a history is always the *longest suffix* (newest items) that satisfies
every limit at once and holds no expired item — exactly what trimming after each append would
keep. Physically the list may grow by ``slack`` (a fraction of each limit) before it is
rewritten, so an append is O(1) on average.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import MemoryValueError
from . import serialization

_TOKEN = re.compile(r"\w+|[^\w\s]")


def default_token_count(text: str) -> int:
    """Deterministic token estimate: words (``\\w+``) plus each punctuation character.

    It needs no model files and gives the same number on every machine; close to, and
    usually a little under, what BPE tokenisers count for English text.
    """
    return len(_TOKEN.findall(text))


TokenCounter = Callable[[str], int]
Reducer = Callable[[list[Any]], "list[Any] | None"]
OverflowPolicy = Literal["drop_oldest", "move_to_long_term"]


class Retention(BaseModel):
    """How much of a history is kept; any combination of limits, all optional."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    max_items: int | None = Field(None, ge=1, description="Keep at most this many items.")
    max_bytes: int | None = Field(None, ge=1, description="Serialized size of all items.")
    max_tokens: int | None = Field(None, ge=1, description="Tokens of all items (token_counter).")
    ttl_ms: int | None = Field(None, ge=1, description="Items older than this expire.")
    slack: float = Field(0.25, ge=0, le=4, description="Growth allowed before a rewrite.")
    on_overflow: OverflowPolicy | Reducer = Field(
        "drop_oldest",
        description="drop_oldest, move_to_long_term, or a reducer(evicted) -> replacements.",
    )
    token_counter: TokenCounter | None = Field(
        None, description="Counts tokens of an item's text; default_token_count if None."
    )

    @model_validator(mode="after")
    def _check(self) -> Retention:
        if not (callable(self.on_overflow) or self.on_overflow in ("drop_oldest",
                                                                    "move_to_long_term")):
            raise ValueError(f"unknown on_overflow policy {self.on_overflow!r}")
        return self

    def count_tokens(self, text: str) -> int:
        return (self.token_counter or default_token_count)(text)

    @property
    def counts_tokens(self) -> bool:
        return self.max_tokens is not None


@dataclass(frozen=True)
class Entry:
    """One stored history item: append time, encoded size, tokens and the encoded value."""

    at_ms: int
    size: int
    tokens: int
    payload: str

    def encode(self) -> str:
        return f"{self.at_ms},{self.size},{self.tokens},{self.payload}"

    @staticmethod
    def decode(raw: str) -> Entry:
        at_ms, size, tokens, payload = raw.split(",", 3)
        return Entry(int(at_ms), int(size), int(tokens), payload)


def sized_entry(value: Any, retention: Retention, owner: str, at_ms: int = 0,
                max_value_bytes: int | None = None) -> Entry:
    """``value`` encoded and measured (bytes; tokens when the retention counts them) as an
    :class:`Entry` appended at ``at_ms``.

    Histories and retained lists measure their items the same way, so both keep the same items
    under the same limits. An item over ``max_value_bytes``, or over the retention's
    ``max_bytes`` or ``max_tokens`` on its own, could never be kept: it is refused with a
    :class:`MemoryValueError` naming ``owner`` (``"history 'chat'"``, ``"list 'conv.messages'"``).
    """
    payload = serialization.dumps(value)
    size = serialization.encoded_size(payload)
    if max_value_bytes is not None and size > max_value_bytes:
        raise MemoryValueError(
            f"item of {size} bytes is over max_value_bytes={max_value_bytes} ({owner})")
    if retention.max_bytes is not None and size > retention.max_bytes:
        raise MemoryValueError(
            f"item of {size} bytes is over max_bytes={retention.max_bytes} of {owner} on its own")
    tokens = 0
    if retention.counts_tokens:
        tokens = retention.count_tokens(value if isinstance(value, str) else payload)
        if retention.max_tokens is not None and tokens > retention.max_tokens:
            raise MemoryValueError(
                f"item of {tokens} tokens is over max_tokens={retention.max_tokens} of {owner} "
                "on its own")
    return Entry(at_ms, size, tokens, payload)


def room_after(retention: Retention, replacements: Sequence[Entry], owner: str) -> Retention:
    """The retention left for the kept items once a reducer's ``replacements`` are in; a
    :class:`MemoryValueError` naming ``owner`` if the replacements alone are over it."""
    budget = {
        "max_items": None if retention.max_items is None
        else retention.max_items - len(replacements),
        "max_bytes": None if retention.max_bytes is None
        else retention.max_bytes - sum(e.size for e in replacements),
        "max_tokens": None if retention.max_tokens is None
        else retention.max_tokens - sum(e.tokens for e in replacements),
    }
    if any(v is not None and v < 0 for v in budget.values()):
        raise MemoryValueError(
            f"reducer of {owner} returned {len(replacements)} items that do not fit its "
            "retention on their own"
        )
    return retention.model_copy(update=budget)


def take_retained(newest_first: Iterable[Entry], retention: Retention, now_ms: int,
                  limit: int | None = None) -> list[Entry]:
    """Walk entries from the newest and return those the retention keeps (newest first),
    at most ``limit``; stops at the first entry over a limit, so reading the newest few items
    decodes only those."""
    out: list[Entry] = []
    size = tokens = 0
    oldest_ok = now_ms - retention.ttl_ms if retention.ttl_ms is not None else None
    for entry in newest_first:
        if limit is not None and len(out) >= limit:
            break
        if retention.max_items is not None and len(out) + 1 > retention.max_items:
            break
        if retention.max_bytes is not None and size + entry.size > retention.max_bytes:
            break
        if retention.max_tokens is not None and tokens + entry.tokens > retention.max_tokens:
            break
        if oldest_ok is not None and entry.at_ms <= oldest_ok:
            break
        out.append(entry)
        size += entry.size
        tokens += entry.tokens
    return out


def retained_count(entries: Sequence[Entry], retention: Retention, now_ms: int) -> int:
    """How many of the newest ``entries`` the retention keeps (the logical suffix)."""
    return len(take_retained(reversed(entries), retention, now_ms))


def over_slack(retention: Retention, items: int, size: int, tokens: int, oldest_ms: int,
               now_ms: int) -> bool:
    """Whether the physical list has outgrown its limits by more than the slack."""
    grow = 1 + retention.slack
    return (
        (retention.max_items is not None and items > retention.max_items * grow)
        or (retention.max_bytes is not None and size > retention.max_bytes * grow)
        or (retention.max_tokens is not None and tokens > retention.max_tokens * grow)
        or (retention.ttl_ms is not None and items > 0
            and oldest_ms <= now_ms - retention.ttl_ms * grow)
    )
