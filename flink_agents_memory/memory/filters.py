"""Checks of search arguments (query, limit, score, metadata filters) before they reach Java.

The index parses filters itself, but its errors arrive in Python as a bare Java exception
("An error occurred while calling o15.search") that names nothing. The grammar is checked here
the way the index reads it (java_udf ``MetadataFilter``): every field AND-ed, a field maps to
a scalar (equality) or to a dict of operators: ``in`` (a list of scalars), ``ne`` (a scalar),
``gte`` / ``gt`` / ``lte`` / ``lt`` (numbers).
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import MemoryTypeError, MemoryValueError
from .limits import LUCENE_MAX_TERM_BYTES, MemoryLimits
from .validation import DEFAULT_LIMITS, check_int, check_str

OPERATORS = ("in", "ne", "gte", "gt", "lte", "lt")
_RANGES = ("gte", "gt", "lte", "lt")


def check_query(query: Any, where: str, limits: MemoryLimits = DEFAULT_LIMITS) -> str:
    """A search text: a valid str of at most ``max_query_chars``."""
    if not isinstance(query, str):
        raise MemoryTypeError(f"{where}: the query must be a str, got {type(query).__name__}")
    if len(query) > limits.max_query_chars:
        raise MemoryValueError(
            f"{where}: a query of {len(query)} chars is over max_query_chars="
            f"{limits.max_query_chars}")
    check_str(query, f"{where}: the query")
    return query


def check_knowledge_search(query: Any, source: Any, limit: Any,
                           limits: MemoryLimits = DEFAULT_LIMITS) -> None:
    """``ctx.search_knowledge`` arguments (the query goes to an embedder and over HTTP)."""
    where = "ctx.search_knowledge"
    check_query(query, where, limits)
    if source is not None:
        if not isinstance(source, str):
            raise MemoryTypeError(f"{where}: source must be a str or None, got {source!r}")
        check_str(source, f"{where}: source")
    check_limit(limit, where, limits)


def check_limit(limit: Any, where: str, limits: MemoryLimits = DEFAULT_LIMITS) -> int:
    if type(limit) is not int or limit < 1:
        raise MemoryValueError(f"{where}: limit must be a positive int, got {limit!r}")
    if limit > limits.max_search_limit:
        raise MemoryValueError(
            f"{where}: limit {limit} is over max_search_limit={limits.max_search_limit}")
    return limit


def check_min_score(min_score: Any, where: str) -> None:
    if min_score is None:
        return
    if isinstance(min_score, bool) or not isinstance(min_score, (int, float)) \
            or not math.isfinite(min_score):
        raise MemoryValueError(f"{where}: min_score must be a finite number or None, "
                               f"got {min_score!r}")


def check_filters(filters: Any, where: str,
                  limits: MemoryLimits = DEFAULT_LIMITS) -> dict[str, Any]:
    """Metadata filters as the index reads them; returns them (``{}`` for None)."""
    if filters is None:
        return {}
    if not isinstance(filters, dict):
        raise MemoryTypeError(
            f"{where}: filters must be a dict of metadata field -> value or operators, "
            f"got {type(filters).__name__}")
    if len(filters) > limits.max_filter_fields:
        raise MemoryValueError(
            f"{where}: {len(filters)} filter fields, over max_filter_fields="
            f"{limits.max_filter_fields}")
    for field, condition in filters.items():
        if not isinstance(field, str) or not field:
            raise MemoryTypeError(f"{where}: a filter field must be a non-empty str, "
                                  f"got {field!r}")
        if len(field) > limits.max_key_chars:
            raise MemoryValueError(
                f"{where}: filter field of {len(field)} chars, over max_key_chars="
                f"{limits.max_key_chars}")
        at = f"{where}: filter on {field[:40]!r}"
        check_str(field, at)
        if isinstance(condition, dict):
            _check_operators(condition, at, limits)
        else:
            _check_scalar(condition, at, limits)
    return filters


def _check_operators(ops: dict[Any, Any], at: str, limits: MemoryLimits) -> None:
    if not ops:
        raise MemoryValueError(f"{at}: an empty dict has no operator (use one of {OPERATORS})")
    for op, value in ops.items():
        if op not in OPERATORS:
            raise MemoryValueError(f"{at}: unknown operator {op!r} (supported: {OPERATORS})")
        if op == "in":
            if not isinstance(value, (list, tuple)):
                raise MemoryTypeError(f"{at}: 'in' needs a list of values, got "
                                      f"{type(value).__name__}")
            if len(value) > limits.max_filter_values:
                raise MemoryValueError(
                    f"{at}: 'in' with {len(value)} values, over max_filter_values="
                    f"{limits.max_filter_values}")
            for v in value:
                _check_scalar(v, f"{at} 'in'", limits)
        elif op == "ne":
            _check_scalar(value, f"{at} 'ne'", limits)
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise MemoryTypeError(f"{at}: {op!r} needs a number, got {value!r}")
        else:
            _check_number(value, f"{at} {op!r}", limits)


def _check_scalar(value: Any, at: str, limits: MemoryLimits) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, str):
        check_str(value, at)
        if len(value) > LUCENE_MAX_TERM_BYTES or len(value.encode()) > LUCENE_MAX_TERM_BYTES:
            raise MemoryValueError(
                f"{at}: a value of {len(value.encode())} bytes can match no memory (indexed "
                f"values are at most {LUCENE_MAX_TERM_BYTES} bytes)")
        return
    if isinstance(value, (int, float)):
        _check_number(value, at, limits)
        return
    raise MemoryTypeError(
        f"{at}: a filter value must be a str, number or bool, got {value!r}"
        + (" (use {'in': [...]} for several values)" if isinstance(value, (list, tuple)) else ""))


def _check_number(value: int | float, at: str, limits: MemoryLimits) -> None:
    if isinstance(value, int):
        check_int(value, at, limits)
    elif not math.isfinite(value):
        raise MemoryValueError(f"{at}: {value!r} is not a finite number")
