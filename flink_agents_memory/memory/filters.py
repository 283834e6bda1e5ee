"""Checks of search arguments (query, limit, score, metadata filters) before they reach Java.

The index parses filters itself, but its errors arrive in Python as a bare Java exception
("An error occurred while calling o15.search") that names nothing. The grammar is mem0's, checked
here the way the index reads it (java_udf ``MetadataFilter``): a filter dict ANDs its entries; a
field maps to a scalar (equality), to ``"*"`` (present, not null) or to a dict of operators:
``eq`` / ``ne`` (a scalar), ``in`` / ``nin`` (a list of scalars), ``gte`` / ``gt`` / ``lte`` /
``lt`` (numbers), ``contains`` / ``icontains`` (a non-empty str); ``"AND"`` / ``"OR"`` /
``"NOT"`` map to a non-empty list of filter dicts (all, at least one, none of them match).
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import MemoryTypeError, MemoryValueError
from .limits import LUCENE_MAX_TERM_BYTES, MemoryLimits
from .validation import DEFAULT_LIMITS, check_int, check_str

OPERATORS = ("eq", "ne", "in", "nin", "gte", "gt", "lte", "lt", "contains", "icontains")
LOGICAL = ("AND", "OR", "NOT")
#: ``{"field": "*"}``: the field is present with a value other than null.
WILDCARD = "*"
#: The longest ``contains`` / ``icontains`` text (the index builds an automaton of it per search;
#: java_udf ``MetadataFilter.MAX_SUBSTRING_CHARS``).
MAX_SUBSTRING_CHARS = 256
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
    """Metadata filters as the index reads them; returns them (``{}`` for None).

    The walk is iterative and stops at the first limit: ``max_filter_fields`` conditions in all
    (each is a query clause), AND/OR/NOT nested at most ``max_depth`` levels."""
    if filters is None:
        return {}
    if not isinstance(filters, dict):
        raise MemoryTypeError(
            f"{where}: filters must be a dict of metadata field -> value or operators, "
            f"got {type(filters).__name__}")
    conditions = 0
    stack: list[tuple[dict[Any, Any], str, int]] = [(filters, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        for name, condition in node.items():
            if name in LOGICAL:
                stack.extend(_check_logical(name, condition, where, path, depth, limits))
                continue
            conditions += 1
            if conditions > limits.max_filter_fields:
                raise MemoryValueError(
                    f"{where}: more than max_filter_fields={limits.max_filter_fields} filter "
                    "fields (conditions, counted through AND/OR/NOT)")
            _check_condition(name, condition, where, path, limits)
    return filters


def _check_logical(name: str, items: Any, where: str, path: str, depth: int,
                   limits: MemoryLimits) -> list[tuple[dict[Any, Any], str, int]]:
    """``"AND"|"OR"|"NOT": [filter dicts]``; returns the dicts to walk next."""
    at = f"{where}: filter {path}{name!r}"
    if not isinstance(items, (list, tuple)):
        raise MemoryTypeError(f"{at} needs a list of filter dicts, got {type(items).__name__}")
    if not items:
        raise MemoryValueError(f"{at} is an empty list: it needs at least one filter dict")
    if depth + 1 > limits.max_depth:
        raise MemoryValueError(
            f"{at}: AND/OR/NOT nested deeper than max_depth={limits.max_depth}")
    inner = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise MemoryTypeError(f"{at}[{i}] must be a filter dict, got {type(item).__name__}")
        if not item:
            raise MemoryValueError(f"{at}[{i}] is an empty filter dict: it has no condition")
        inner.append((item, f"{path}{name}[{i}] ", depth + 1))
    return inner


def _check_condition(field: Any, condition: Any, where: str, path: str,
                     limits: MemoryLimits) -> None:
    if not isinstance(field, str) or not field:
        raise MemoryTypeError(f"{where}: a filter field must be a non-empty str, "
                              f"got {field!r}")
    if len(field) > limits.max_key_chars:
        raise MemoryValueError(
            f"{where}: filter field of {len(field)} chars, over max_key_chars="
            f"{limits.max_key_chars}")
    at = f"{where}: filter on {field[:40]!r}" + (f" (in {path.strip()})" if path else "")
    check_str(field, at)
    if isinstance(condition, dict):
        _check_operators(condition, at, limits)
    elif isinstance(condition, str) and condition == WILDCARD:
        return
    elif isinstance(condition, (list, tuple)) and field.upper() in LOGICAL:
        raise MemoryTypeError(
            f"{at}: a filter value must be a str, number or bool, got a list (AND, OR and NOT "
            f"are written in capitals: {field.upper()!r})")
    else:
        _check_scalar(condition, at, limits)


def _check_operators(ops: dict[Any, Any], at: str, limits: MemoryLimits) -> None:
    if not ops:
        raise MemoryValueError(f"{at}: an empty dict has no operator (use one of {OPERATORS})")
    for op, value in ops.items():
        if op not in OPERATORS:
            hint = (" (AND, OR and NOT combine whole filter dicts: "
                    "{'OR': [{'a': 1}, {'b': 2}]})" if op in LOGICAL else "")
            raise MemoryValueError(
                f"{at}: unknown operator {op!r} (supported: {OPERATORS}){hint}")
        if op in ("in", "nin"):
            if not isinstance(value, (list, tuple)):
                raise MemoryTypeError(f"{at}: {op!r} needs a list of values, got "
                                      f"{type(value).__name__}")
            if len(value) > limits.max_filter_values:
                raise MemoryValueError(
                    f"{at}: {op!r} with {len(value)} values, over max_filter_values="
                    f"{limits.max_filter_values}")
            for v in value:
                _check_scalar(v, f"{at} {op!r}", limits)
        elif op in ("eq", "ne"):
            _check_scalar(value, f"{at} {op!r}", limits)
        elif op in ("contains", "icontains"):
            _check_substring(value, f"{at} {op!r}")
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise MemoryTypeError(f"{at}: {op!r} needs a number, got {value!r}")
        else:
            _check_number(value, f"{at} {op!r}", limits)


def _check_substring(value: Any, at: str) -> None:
    if not isinstance(value, str):
        raise MemoryTypeError(f"{at} needs a str (it matches string values), got {value!r}")
    if not value:
        raise MemoryValueError(f"{at} needs a non-empty str (for any value, use '*')")
    if len(value) > MAX_SUBSTRING_CHARS:
        raise MemoryValueError(
            f"{at}: a text of {len(value)} chars, over {MAX_SUBSTRING_CHARS}")
    check_str(value, at)


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
