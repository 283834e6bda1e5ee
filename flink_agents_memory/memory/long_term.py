"""Long-term memory of one key: the MemoryAPI over this subtask's Lucene index.

The index lives in the operator's JVM (java_udf ``LongTermMemoryStore``); Python reaches it
through PEMJA inside a job (or py4j in tools) and never passes a key: the store reads the
current key from Flink, so no call can touch another key's memories. Writes of a run are
buffered, embedded in one batch at commit and applied only if the run succeeds; ``get`` sees
the run's own writes, ``search`` and ``get_all`` see the index as of the run's start.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import MemoryNotFoundError, MemoryValueError
from ..jvm import LongTermMemoryStore
from ..metrics import MetricsRecorder, Timer
from ..models.llm import LLM
from .access import AccessLog
from .audit import AuditTrail, MemoryEvent, iso_utc
from .filters import check_filters, check_limit, check_min_score, check_query
from .history import History
from .items import MemoryAPI, MemoryItem, SearchMode
from .limits import MemoryLimits
from .llm_steps import answer_awaited, answer_inline
from .long_term_config import LongTermMemoryConfig
from .query import keyword_query
from .store import KeyValueStore
from .validation import (
    DEFAULT_LIMITS,
    check_key,
    check_memory_context,
    check_memory_id,
    check_memory_text,
    check_metadata,
    check_timestamp,
)

log = logging.getLogger(__name__)

_ID_NAMESPACE = uuid.UUID("5b0a5c2e-6d0e-4f7e-9a35-7a0c2f4b8e11")
SEQ_KEY = "__long_term_seq__"


def content_hash(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


def _item(doc: dict[str, Any]) -> MemoryItem:
    return MemoryItem(id=doc["id"], memory=doc["memory"], metadata=doc.get("metadata") or {},
                      created_at=doc.get("created_at"), updated_at=doc.get("updated_at"),
                      score=doc.get("score"))


class LongTermMemory(MemoryAPI):
    """``ctx.memory``: one instance per subtask, reset after every run."""

    def __init__(self, store: LongTermMemoryStore, config: LongTermMemoryConfig, recent: History,
                 audit: AuditTrail, meta: KeyValueStore, now_ms: Callable[[], int],
                 key: Callable[[], Any], actor: Callable[[], str | None],
                 metrics: MetricsRecorder | None = None,
                 touched: set[Any] | None = None,
                 limits: MemoryLimits = DEFAULT_LIMITS,
                 access: AccessLog | None = None) -> None:
        self._store = store
        #: Search hits per memory (kept when maintenance forgets), see memory/access.py.
        self.access = access
        self.limits = limits
        #: The runtime's set of what this run touched (commit and reset skip the rest).
        self._touched: set[Any] = touched if touched is not None else set()
        self.metrics = metrics or MetricsRecorder(enabled=False)
        self.config = config
        self._embedder = config.resolved_embedder()
        self._recent = recent
        self._audit = audit
        self._meta = meta
        self._now_ms = now_ms
        self._key = key
        self._actor = actor
        self._ops: list[tuple[str, str, dict[str, Any] | None]] = []
        self._pending: dict[str, dict[str, Any] | None] = {}
        self._known_vectors: dict[str, np.ndarray] = {}
        self._warned_no_llm = False

    # -- MemoryAPI -------------------------------------------------------------------------
    def add(self, memory: MemoryItem | str, metadata: dict[str, Any] | None = None,
            context: str | None = None) -> str:
        """Store ``memory``; ``context`` (e.g. the neighbouring turns of a conversation) is
        indexed for keyword search beside the text but never returned as it, and an update
        keeps it (it raised REALTALK recall, docs/long_term_memory.md)."""
        if isinstance(memory, str):
            item = MemoryItem(memory=memory)
        elif isinstance(memory, MemoryItem):
            item = memory
        else:
            raise MemoryValueError(
                f"ctx.memory.add takes a str or a MemoryItem, got {type(memory).__name__}")
        where = f"ctx.memory.add({item.id!r})" if item.id else "ctx.memory.add"
        text = check_memory_text(item.memory, where, self.limits)
        meta = check_metadata(item.metadata if metadata is None else metadata, where,
                              self.limits)
        extra = check_memory_context(context, where, self.limits)
        if item.id:
            check_memory_id(item.id, self.limits)
        if item.created_at is not None:
            check_timestamp(item.created_at, f"{where}: created_at")
        # A generated id is new by construction; only a caller's id needs the lookup (which
        # would also make the index refresh its reader after the previous run's writes).
        memory_id = item.id or self._new_id()
        if item.id and self._exists(memory_id):
            raise MemoryValueError(f"memory '{memory_id}' already exists; use update()")
        now = self._now_ms()
        doc = self._new_document(memory_id, text, meta, now, item.created_at)
        if extra is not None:
            doc["context"] = extra
        self._write("add", memory_id, doc)
        self._audit.record(memory_id, "ADD", None, text, now, self._actor())
        self._recent.append(_item(doc))
        return memory_id

    def update(self, memory_id: str, data: MemoryItem | str,
               metadata: dict[str, Any] | None = None) -> MemoryItem:
        old = self._doc(memory_id)
        if old is None:
            raise MemoryNotFoundError(f"no memory '{memory_id}' for key {self._key()!r}")
        if isinstance(data, str):
            item = MemoryItem(id=memory_id, memory=data)
        elif isinstance(data, MemoryItem):
            item = data
        else:
            raise MemoryValueError(f"ctx.memory.update('{memory_id}') takes a str or a "
                                   f"MemoryItem, got {type(data).__name__}")
        where = f"ctx.memory.update({memory_id!r})"
        text = check_memory_text(item.memory, where, self.limits)
        new_meta = metadata if metadata is not None else item.metadata
        meta = (check_metadata(new_meta, where, self.limits) if new_meta is not None
                else old.get("metadata") or {})
        now = self._now_ms()
        doc = {**old, "memory": text, "metadata": meta, "hash": content_hash(text),
               "updated_at": iso_utc(now),
               "expires_at": now + self.config.ttl_ms if self.config.ttl_ms else None}
        doc.pop("score", None)
        self._write("update", memory_id, doc)
        self._audit.record(memory_id, "UPDATE", old["memory"], text, now, self._actor())
        updated = _item(doc)
        self._recent.append(updated)
        return updated

    def delete(self, memory_id: str) -> None:
        old = self._doc(memory_id)
        if old is None:
            raise MemoryNotFoundError(f"no memory '{memory_id}' for key {self._key()!r}")
        self._write("delete", memory_id, None)
        self._audit.record(memory_id, "DELETE", old["memory"], None, self._now_ms(),
                           self._actor())

    def get(self, memory_id: str) -> MemoryItem | None:
        doc = self._doc(memory_id)
        return None if doc is None else _item(doc)

    def get_all(self, filters: dict[str, Any] | None = None, limit: int = 100) -> list[MemoryItem]:
        """Memories of this key, newest first, optionally filtered by metadata."""
        filters = check_filters(filters, "ctx.memory.get_all", self.limits)
        check_limit(limit, "ctx.memory.get_all", self.limits)
        raw = self._store.getAll(json.dumps(filters), limit, self._now_ms())
        return [_item(d) for d in json.loads(raw) if self._pending.get(d["id"], d) is not None]

    def recent_memories(self, n: int = 10) -> list[MemoryItem]:
        return self._recent.get_recent(n)

    def audit_trail(self, memory_id: str) -> list[MemoryEvent]:
        return self._audit.events_of(memory_id)

    def search(self, query: str, limit: int = 10, filters: dict[str, Any] | None = None,
               mode: SearchMode | None = None,
               min_score: float | None = None) -> list[MemoryItem]:
        mode = mode or self.config.default_mode
        if mode not in ("vector", "keyword", "hybrid"):
            raise ValueError(f"unknown search mode {mode!r}: use vector, keyword or hybrid")
        check_query(query, "ctx.memory.search", self.limits)
        check_limit(limit, "ctx.memory.search", self.limits)
        check_min_score(min_score, "ctx.memory.search")
        filters = check_filters(filters, "ctx.memory.search", self.limits)
        vector = None if mode == "keyword" else self._vectors([query])[0].tobytes()
        options = {"mode": mode, "limit": limit, "min_score": min_score,
                   "filters": filters, "now": self._now_ms(),
                   "keyword_weight": self.config.hybrid_keyword_weight,
                   "vector_candidates": self.config.vector_candidates}
        # The vector side embeds the whole query; BM25 gets it without question words.
        text = keyword_query(query) if self.config.drop_question_words else query
        with Timer(self.metrics, f"long_term.search_us.{mode}"):
            hits = json.loads(self._store.search(text, vector, json.dumps(options)))
        self.metrics.inc(f"long_term.searches.{mode}")
        items = [_item(h) for h in hits if self._pending.get(h["id"], h) is not None]
        if self.access is not None and items:
            self.access.hit([m.id for m in items], self._now_ms())
        return items

    def add_messages(self, messages: list[dict[str, str]] | str, infer: bool = True,
                     metadata: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """The mem0 add pipeline of the memory system design (see memory/add_pipeline.py)."""
        from .add_pipeline import add_messages_steps

        infer = self._infer(infer)
        return answer_inline(add_messages_steps(self, messages, infer, check_metadata(
            metadata, "ctx.memory.add_messages", self.limits)), self.config.llm)

    async def add_messages_async(self, messages: list[dict[str, str]] | str, infer: bool = True,
                                 metadata: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """:meth:`add_messages` in an async action: its two LLM calls run off the task thread
        (the run waits, the subtask goes on); the memory steps between them run on it."""
        from .add_pipeline import add_messages_steps

        infer = self._infer(infer)
        return await answer_awaited(add_messages_steps(self, messages, infer, check_metadata(
            metadata, "ctx.memory.add_messages_async", self.limits)), self.config.llm)

    def _infer(self, infer: bool) -> bool:
        """``infer``, off (with one warning) when no LLM is configured."""
        if infer and self.config.llm is None:
            if not self._warned_no_llm:
                log.warning("add_messages(infer=True) without an LLM configured: storing the "
                            "messages as they are (infer is off)")
                self._warned_no_llm = True
            return False
        return infer

    # -- used by the add pipeline and the runtime ----------------------------------------------
    @property
    def llm(self) -> LLM | None:
        return self.config.llm

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed now (one batch); commit reuses these vectors instead of embedding again."""
        vectors = self._vectors(texts)
        self._known_vectors.update(zip(texts, vectors, strict=True))
        self._touched.add(self)
        return vectors

    def similar(self, vector: np.ndarray, limit: int) -> list[dict[str, Any]]:
        """Nearest memories of this key to ``vector`` (vector mode), with scores."""
        options = {"mode": "vector", "limit": limit, "filters": {}, "now": self._now_ms(),
                   "vector_candidates": self.config.vector_candidates}
        hits = json.loads(self._store.search("", vector.tobytes(), json.dumps(options)))
        return [h for h in hits if self._pending.get(h["id"], h) is not None]

    def live_docs(self) -> list[dict[str, Any]]:
        """Every unexpired memory document of this key, newest first, with this run's writes."""
        count = self._store.count(self._now_ms())
        if count == 0:
            return []
        return self.as_of_run(json.loads(self._store.getAll("{}", count, self._now_ms())))

    def as_of_run(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``docs`` (read from the index) with this run's updates and deletes applied."""
        return [d for d in (self._pending.get(d["id"], d) for d in docs) if d is not None]

    def document(self, memory_id: str) -> dict[str, Any] | None:
        """The stored document of a memory as this run sees it (None: none or deleted)."""
        return self._doc(memory_id)

    def add_as(self, memory_id: str | None, text: str, metadata: dict[str, Any],
               actor: str) -> None:
        """Add on behalf of maintenance (a synthesised or compressed memory), audited as
        ``actor``; ``memory_id`` None: a generated id."""
        where = f"maintenance of {memory_id!r}"
        text = check_memory_text(text, where, self.limits)
        meta = check_metadata(metadata, where, self.limits)
        if memory_id is None:
            memory_id = self._new_id()
        check_memory_id(memory_id, self.limits)
        now = self._now_ms()
        doc = self._new_document(memory_id, text, meta, now)
        self._write("add", memory_id, doc, by_user=False)
        self._audit.record(memory_id, "ADD", None, text, now, actor)
        self._recent.append(_item(doc))

    def remove(self, doc: dict[str, Any], actor: str, note: dict[str, Any]) -> None:
        """Delete on behalf of maintenance: audited as ``actor``, ``note`` as the new value
        (why), outside the per-run write limit meant for actions."""
        self._write("delete", doc["id"], None, by_user=False)
        self._audit.record(doc["id"], "DELETE", doc["memory"], note, self._now_ms(), actor)

    def rewrite(self, doc: dict[str, Any], text: str, metadata: dict[str, Any],
                actor: str) -> None:
        """Update on behalf of maintenance (a merge), audited as ``actor``."""
        where = f"maintenance of {doc['id']!r}"
        text = check_memory_text(text, where, self.limits)
        meta = check_metadata(metadata, where, self.limits)
        now = self._now_ms()
        # expires_at stays: a merge is no new information, so it does not extend a TTL
        new = {**doc, "memory": text, "metadata": meta, "hash": content_hash(text),
               "updated_at": iso_utc(now)}
        new.pop("score", None)
        self._write("update", doc["id"], new, by_user=False)
        self._audit.record(doc["id"], "UPDATE", doc["memory"], text, now, actor)

    def _new_document(self, memory_id: str, text: str, meta: dict[str, Any], now: int,
                      created_at: str | None = None) -> dict[str, Any]:
        """The document of a new memory: created now unless the caller dated it, expiring
        after the configured TTL."""
        return {"id": memory_id, "memory": text, "metadata": meta, "hash": content_hash(text),
                "created_at": created_at or iso_utc(now), "updated_at": iso_utc(now),
                "expires_at": now + self.config.ttl_ms if self.config.ttl_ms else None}

    def find_by_hash(self, text: str) -> str | None:
        h = content_hash(text)
        for memory_id, doc in self._pending.items():
            if doc is not None and doc["hash"] == h:
                return memory_id
        raw = self._store.findByHash(h, self._now_ms())
        if raw is None:
            return None
        memory_id = json.loads(raw)["id"]
        deleted = memory_id in self._pending and self._pending[memory_id] is None
        return None if deleted else memory_id

    def prepare(self) -> Callable[[], None] | None:
        """Embed the run's new texts in one batch and check them; returns the writer."""
        self._enforce_max_items()
        if not self._ops:
            return None
        by_op = self._vectors_for_ops()
        ops = list(self._ops)

        def write() -> None:
            batch_docs: list[dict[str, Any]] = []
            batch_vecs: list[bytes] = []

            def flush_adds() -> None:
                if batch_docs:
                    self._store.addBatch(json.dumps(batch_docs), b"".join(batch_vecs))
                    batch_docs.clear()
                    batch_vecs.clear()

            for i, (op, memory_id, doc) in enumerate(ops):
                if op == "add":
                    batch_docs.append(doc)
                    batch_vecs.append(by_op[i].tobytes())
                    continue
                flush_adds()
                if op == "update":
                    self._store.update(memory_id, json.dumps(doc), by_op[i].tobytes())
                else:
                    self._store.delete(memory_id)
            flush_adds()

        return write

    def _vectors_for_ops(self) -> dict[int, np.ndarray]:
        needs = [i for i, (op, _, _) in enumerate(self._ops) if op != "delete"]
        texts = [self._ops[i][2]["memory"] for i in needs]  # type: ignore[index]
        missing = sorted({t for t in texts if t not in self._known_vectors})
        if missing:
            self._known_vectors.update(zip(missing, self._vectors(missing), strict=True))
        by_op = {i: self._known_vectors[t] for i, t in zip(needs, texts, strict=True)}
        stored_dim = self._store.dimension()
        dim = self._embedder.dim
        if by_op and stored_dim not in (-1, dim):
            raise MemoryValueError(
                f"embedder dimension {dim} does not match the index's dimension "
                f"{stored_dim} for this key group; use the embedder the memories were made with"
            )
        return by_op

    def discard(self) -> None:
        if self._ops or self._pending or self._known_vectors:
            self._ops = []
            self._pending = {}
            self._known_vectors = {}

    # -- internals -------------------------------------------------------------------------
    def _new_id(self) -> str:
        # Deterministic per key and sequence number, so a replay after restore makes the same ids.
        raw = self._meta.get(SEQ_KEY)
        seq = int(raw) + 1 if raw is not None else 1
        self._meta.put(SEQ_KEY, str(seq))
        return str(uuid.uuid5(_ID_NAMESPACE, f"{self._key()}\x00{seq}"))

    def _write(self, op: str, memory_id: str, doc: dict[str, Any] | None,
               by_user: bool = True) -> None:
        if by_user and len(self._ops) >= self.limits.max_memory_writes_per_run:
            raise MemoryValueError(
                f"a run may buffer at most max_memory_writes_per_run="
                f"{self.limits.max_memory_writes_per_run} long-term adds, updates and deletes")
        if not self._ops:  # the index stores the key as a term: once per run is enough
            check_key(self._key(), self.limits)
        self.metrics.inc(f"long_term.{op}s")
        self._touched.add(self)
        self._ops.append((op, memory_id, doc))
        self._pending[memory_id] = doc

    def _doc(self, memory_id: str) -> dict[str, Any] | None:
        check_memory_id(memory_id, self.limits)
        if memory_id in self._pending:
            return self._pending[memory_id]
        raw = self._store.get(memory_id, self._now_ms())
        return None if raw is None else json.loads(raw)

    def _exists(self, memory_id: str) -> bool:
        return self._doc(memory_id) is not None

    def _vectors(self, texts: list[str]) -> np.ndarray:
        with Timer(self.metrics, "long_term.embed_us"):
            raw = self._embedder.embed(texts)
        try:
            vectors = np.asarray(raw, dtype=np.float32)
        except (TypeError, ValueError) as e:
            raise MemoryValueError(
                f"embedder {self._embedder!r} returned {type(raw).__name__}, not an array of "
                f"numbers, for {len(texts)} texts: {e}") from None
        self.metrics.observe("long_term.embed_batch_size", len(texts))
        dim = self._embedder.dim
        if vectors.ndim != 2 or vectors.shape != (len(texts), dim):
            raise MemoryValueError(
                f"embedder {self._embedder!r} returned shape {vectors.shape}, expected "
                f"{(len(texts), dim)}"
            )
        norms = np.linalg.norm(vectors, axis=1)
        bad = np.flatnonzero(~np.isfinite(norms) | (norms == 0))
        if bad.size:
            raise MemoryValueError(
                f"embedder {self._embedder!r} returned a zero, NaN or infinite vector for "
                f"{texts[bad[0]][:60]!r}")
        return np.ascontiguousarray(vectors / norms[:, None], dtype="<f4")

    def _enforce_max_items(self) -> None:
        limit = self.config.max_items_per_key
        added = sum(1 for op, _, _ in self._ops if op == "add")
        if limit is None or not added:
            return
        deleted = sum(1 for op, _, _ in self._ops if op == "delete")
        total = self._store.count(self._now_ms()) + added - deleted
        if total <= limit:
            return
        stored = json.loads(self._store.getAll("{}", total + deleted, self._now_ms()))
        live = [d for d in stored if self._pending.get(d["id"], d) is not None]
        live.sort(key=lambda d: (d.get("created_at") or "", d["id"]))
        for doc in live[: total - limit]:
            self._write("delete", doc["id"], None, by_user=False)
            self._audit.record(doc["id"], "DELETE", doc["memory"], None, self._now_ms(),
                               "retention:max_items_per_key")
