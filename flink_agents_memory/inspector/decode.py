"""Stored memory values as display trees, without importing user classes.

The runtime stores tagged JSON (see ``memory/serialization.py``); the inspector must show a
pydantic model whose class is not importable here, so it reads the tags instead of restoring
values: a node is ``{"type", "value"}`` for a leaf and ``{"type", "fields"}`` (name, node
pairs) for an object, a dict, a list or a model (``type`` is then ``module:Class``).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from ..memory.retention import Entry

Node = dict[str, Any]

_VALUE = "\x00"
_OBJECT = "\x01"


def node(data: Any) -> Node:
    """The display tree of one tagged-JSON value (already parsed)."""
    if data is None:
        return {"type": "null", "value": None}
    if isinstance(data, bool):
        return {"type": "bool", "value": data}
    if isinstance(data, (int, float, str)):
        return {"type": type(data).__name__, "value": data}
    if isinstance(data, list):
        return {"type": "list", "fields": [[str(i), node(v)] for i, v in enumerate(data)]}
    if isinstance(data, dict):
        if len(data) == 1:
            tag, inner = next(iter(data.items()))
            if tag == "$b" and isinstance(inner, str):
                return {"type": "bytes", "value": f"{len(base64.b64decode(inner))} bytes"}
            if tag == "$m" and isinstance(inner, list) and len(inner) == 2:
                return {"type": str(inner[0]), "model": True,
                        "fields": [[k, node(v)] for k, v in inner[1].items()]}
            if tag == "$d" and isinstance(inner, dict):
                return node_of_dict(inner)
        return node_of_dict(data)
    return {"type": type(data).__name__, "value": str(data)}


def node_of_dict(data: dict[str, Any]) -> Node:
    return {"type": "dict", "fields": [[k, node(v)] for k, v in data.items()]}


def plain(data: Any) -> Any:
    """Tagged JSON with models as plain dicts (for texts like a MemoryItem's fields)."""
    if isinstance(data, list):
        return [plain(v) for v in data]
    if isinstance(data, dict):
        if len(data) == 1:
            tag, inner = next(iter(data.items()))
            if tag == "$m" and isinstance(inner, list) and len(inner) == 2:
                return plain(inner[1])
            if tag == "$d":
                return plain(inner)
        return {k: plain(v) for k, v in data.items()}
    return data


def short_term_tree(entries: dict[str, str]) -> Node:
    """The short-term memory map (absolute dotted path -> marker or value) as one tree, in the
    order the object markers list their fields. A path no marker reaches is still shown, under
    ``(unreachable)``, so a damaged map hides nothing."""
    seen: set[str] = set()

    def build(path: str) -> Node:
        seen.add(path)
        raw = entries.get(path)
        if raw is None:
            return {"type": "object", "fields": []} if path == "" else \
                {"type": "missing", "value": None}
        if raw.startswith(_OBJECT):
            names = json.loads(raw[1:])
            return {"type": "object", "fields": [
                [name, build(f"{path}.{name}" if path else name)] for name in names]}
        return node(json.loads(raw[1:])) if raw.startswith(_VALUE) else \
            {"type": "unknown", "value": raw}

    root = build("")
    orphans = sorted(p for p in entries if p not in seen)
    if orphans:
        root["fields"].append(["(unreachable)", {"type": "object", "fields": [
            [p, build(p)] for p in orphans]}])
    return root


def history_entries(raws: list[str]) -> list[Entry]:
    """A history's physical list, oldest first, as entries (time, size, tokens, payload)."""
    return [Entry.decode(raw) for raw in raws]


def payload(entry: Entry) -> Any:
    return json.loads(entry.payload)
