"""What the page shows, read from one savepoint: keys, and per key every kind of memory.

Opening lists the keys (which states each has) and counts each key group's index; a key's
keyed state (short-term memory, histories, meta) is decoded when the key is asked for, and
long-term memory is asked from the helper per request (count, list, get, search), so a key
with many memories costs one page, not all of them. Everything here only reads.
"""

from __future__ import annotations

import base64
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import numpy as np

from ..errors import FlinkAgentsMemoryError
from ..memory.retention import Retention, take_retained
from ..runtime.memory_runtime import AUDIT, RECENT, SENSORY
from . import decode
from .helper import HelperError, SavepointHelper

STATE_PREFIX = "flink_agents_memory."
SHORT_TERM = STATE_PREFIX + "short_term"
META = STATE_PREFIX + "meta"
HISTORY = STATE_PREFIX + "history."
SEARCH_MODES = ("vector", "keyword", "hybrid")
MAX_PAGE = 500


class InspectorError(FlinkAgentsMemoryError):
    """A savepoint or a request the inspector cannot serve; the message names the problem."""


def local_path(savepoint: str) -> Path:
    """The directory of a savepoint given as a path or ``file:`` URI (the ``_metadata`` file
    itself is accepted too); a missing one is an InspectorError."""
    parsed = urlparse(savepoint)
    if parsed.scheme not in ("", "file"):
        raise InspectorError(f"only local savepoints can be inspected, got {savepoint!r}")
    path = Path(unquote(parsed.path) if parsed.scheme else savepoint)
    if path.name == "_metadata":
        path = path.parent
    if not path.exists():
        raise InspectorError(f"no savepoint at {path}: the directory does not exist")
    if not (path / "_metadata").is_file():
        raise InspectorError(f"no savepoint at {path}: it has no _metadata file")
    return path


class SavepointView:
    """One opened savepoint. ``agent`` (its class) supplies history retention settings;
    ``embedder`` the query vectors of vector and hybrid search; ``operator`` (a uid, name or
    operator id) chooses the agent's operator when the job applied several, each with its own
    memory (without it such a savepoint is an error listing them)."""

    def __init__(self, savepoint: str, embedder: Any | None = None,
                 agent: Any | None = None, operator: str | None = None) -> None:
        self.path = local_path(savepoint)
        self.embedder = embedder
        self.agent = agent
        metadata = self.path / "_metadata"
        #: "now" for expiry: the savepoint's own time, so the page shows memory as it was then
        self.taken_at_ms = int(metadata.stat().st_mtime * 1000)
        self._work = Path(tempfile.mkdtemp(prefix="fam-inspect-"))
        try:
            self._helper = SavepointHelper(str(self.path), self._work, self._work / "helper.log",
                                           operator=operator)
        except HelperError as e:
            shutil.rmtree(self._work, ignore_errors=True)
            raise InspectorError(str(e)) from e
        self.summary = self._helper.summary
        #: whether the helper mapped a class-data-sharing archive ("used"), writes one ("writing")
        #: or runs without ("off"); see helper.py
        self.class_archive = self._helper.class_archive
        self._keys: dict[str, dict[str, Any]] = {}
        with open(self._work / "keys.jsonl", encoding="utf-8") as f:
            for line in f:  # {"key", "key_group", "short_term_paths", "states": [names]}
                record = json.loads(line)
                self._keys[record["key"]] = record
        self._sorted = sorted(self._keys)

    # -- keys -------------------------------------------------------------------------------
    def keys(self, query: str = "", offset: int = 0, limit: int = 50) -> dict[str, Any]:
        """Keys containing ``query`` (case-insensitive), sorted, one page."""
        offset, limit = _page(offset, limit)
        q = query.lower()
        found = [k for k in self._sorted if q in k.lower()] if q else self._sorted
        items = []
        for key in found[offset:offset + limit]:
            record = self._keys[key]
            items.append({"key": key, "key_group": record["key_group"],
                          "short_term_paths": record["short_term_paths"],
                          "histories": sorted(_history_names(record["states"]))})
        return {"total": len(found), "offset": offset, "items": items}

    # -- one key ----------------------------------------------------------------------------
    def key(self, key: str) -> dict[str, Any]:
        """Short-term tree, histories (with retention), recent interactions and the number of
        long-term memories of ``key``; an unknown key gives the same shape, empty."""
        record = self._keys.get(key)
        if record is None:
            return {"key": key, "found": False, "short_term": decode.short_term_tree({}),
                    "histories": [], "recent": [], "memories": 0}
        # everything but the audit trail, which only a memory's audit view needs
        states = self._states(key, [n for n in record["states"] if n != HISTORY + AUDIT])
        histories = [self._history(key, name, states) for name in sorted(_history_names(states))
                     if name not in (AUDIT, RECENT, SENSORY)]
        recent = self._history(key, RECENT, states)
        return {"key": key, "found": True, "key_group": record["key_group"],
                "short_term": decode.short_term_tree(states.get(SHORT_TERM, {})),
                "histories": histories,
                "sensory": self._history(key, SENSORY, states) if
                HISTORY + SENSORY in states else None,
                "recent": [decode.plain(item["value"]) for item in recent["items"]
                           if item["retained"]][::-1],
                "memories": self._ask("count", key)["total"]}

    def memories(self, key: str, offset: int = 0, limit: int = 50) -> dict[str, Any]:
        """One page of the key's long-term memories, newest first."""
        offset, limit = _page(offset, limit)
        if key not in self._keys:
            return {"total": 0, "offset": offset, "items": []}
        reply = self._ask("memories", key, offset=offset, limit=limit)
        return {"total": reply["total"], "offset": offset, "items": reply["items"]}

    def search(self, key: str, text: str, mode: str = "hybrid", limit: int = 10) -> dict[str, Any]:
        """Vector, keyword or hybrid search over the key's long-term memories, with scores."""
        if mode not in SEARCH_MODES:
            raise InspectorError(f"search mode must be one of {list(SEARCH_MODES)}, got {mode!r}")
        _, limit = _page(0, limit)
        if key not in self._keys or not text.strip():
            return {"mode": mode, "items": []}
        vector = None
        if mode != "keyword":
            if self.embedder is None:
                raise InspectorError(
                    f"{mode} search needs the agent's embedder: start the inspector with "
                    "--embedder (e.g. hashing:64) or --agent; keyword search works without")
            vec = np.asarray(self.embedder.embed([text]), dtype="<f4").reshape(-1)
            vector = base64.b64encode(vec.tobytes()).decode("ascii")
        reply = self._ask("search", key, text=text, vector=vector, mode=mode, limit=limit)
        return {"mode": mode, "items": reply["items"]}

    def audit(self, key: str, memory_id: str) -> dict[str, Any]:
        """The retained audit events of one memory (a long-term id or ``stm:<path>``), oldest
        first, and the memory itself if it still exists."""
        record = self._keys.get(key)
        if record is None:
            return {"memory_id": memory_id, "memory": None, "events": []}
        trail = self._history(key, AUDIT, self._states(key, [HISTORY + AUDIT]))
        events = [decode.plain(i["value"]) for i in trail["items"]]
        item = None
        if not memory_id.startswith("stm:"):
            item = self._ask("get", key, id=memory_id)["item"]
        return {"memory_id": memory_id, "memory": item,
                "events": [e for e in events if isinstance(e, dict)
                           and e.get("memory_id") == memory_id]}

    # -- subtasks ---------------------------------------------------------------------------
    def subtasks(self) -> dict[str, Any]:
        """Per subtask and key group: memories, index segments and bytes; the checkpoint."""
        s = self.summary
        rows = []
        for sub in s["subtasks"]:
            groups = sub["key_groups"]
            rows.append({**sub, "memories": sum(g["memories"] for g in groups),
                         "segments": sum(g["segments"] for g in groups),
                         "bytes": sum(g["bytes"] for g in groups)})
        return {"savepoint": str(self.path), "checkpoint_id": s["checkpoint_id"],
                "taken_at_ms": self.taken_at_ms, "operator": s["operator_name"],
                "operator_id": s["operator_id"], "operator_uid": s["operator_uid"],
                "memory_operators": s["memory_operators"], "parallelism": s["parallelism"],
                "max_parallelism": s["max_parallelism"], "keys": len(self._keys),
                "states": s["states"], "subtasks": rows}

    def close(self) -> None:
        self._helper.close()
        shutil.rmtree(self._work, ignore_errors=True)

    # -- internals --------------------------------------------------------------------------
    def _ask(self, op: str, key: str, **fields: Any) -> dict[str, Any]:
        try:
            return self._helper.request(op, key=key, key_group=self._keys[key]["key_group"],
                                        now=self.taken_at_ms, **fields)
        except HelperError as e:
            raise InspectorError(str(e)) from e

    def _states(self, key: str, names: list[str]) -> dict[str, Any]:
        """The decoded keyed states ``names`` of ``key``: {name: {path: raw} | [raw, ...]}."""
        try:
            return self._helper.request("states", key=key, names=names)["states"]
        except HelperError as e:
            raise InspectorError(str(e)) from e

    def _retention(self, name: str) -> Retention | None:
        agent = self.agent
        if agent is None:
            return None
        if name in (AUDIT, RECENT):
            return getattr(agent.long_term_memory, "audit" if name == AUDIT else "recent")
        return dict(getattr(agent, "histories", {}) or {}).get(name)

    def _history(self, key: str, name: str, states: dict[str, Any]) -> dict[str, Any]:
        entries = decode.history_entries(states.get(HISTORY + name, []))
        retention = self._retention(name)
        kept = len(entries) if retention is None else len(
            take_retained(reversed(entries), retention, self.taken_at_ms))
        first_kept = len(entries) - kept
        items = [{"at_ms": e.at_ms, "size": e.size, "tokens": e.tokens,
                  "value": decode.payload(e), "node": decode.node(decode.payload(e)),
                  "retained": i >= first_kept} for i, e in enumerate(entries)]
        return {"name": name,
                "retention": None if retention is None else _retention_settings(retention),
                "meta": states.get(META, {}).get(name), "items": items}


def _history_names(states: dict[str, Any]) -> set[str]:
    return {name[len(HISTORY):] for name in states if name.startswith(HISTORY)}


def _retention_settings(r: Retention) -> dict[str, Any]:
    policy = r.on_overflow if isinstance(r.on_overflow, str) else "reducer"
    return {"max_items": r.max_items, "max_bytes": r.max_bytes, "max_tokens": r.max_tokens,
            "ttl_ms": r.ttl_ms, "on_overflow": policy}


def _page(offset: int, limit: int) -> tuple[int, int]:
    if offset < 0:
        raise InspectorError(f"offset must be >= 0, got {offset}")
    if not 1 <= limit <= MAX_PAGE:
        raise InspectorError(f"limit must be between 1 and {MAX_PAGE}, got {limit}")
    return offset, limit
