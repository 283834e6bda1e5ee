"""KnowledgeBase: shared, read-mostly knowledge on an external vector database.

Unlike an agent's memory, knowledge is not Flink state: every subtask of every job reads the
same sources, and nothing about it is checkpointed. A KnowledgeBase is declared on the agent
(``knowledge_bases``), pickled with it, and connects on first use in the TaskManager.

Robustness: separate connect and read timeouts, bounded retries with exponential backoff for
transient failures (refused, reset, timeout, 5xx, 429), and a circuit breaker that stops calling
a service that keeps failing (open after ``failure_threshold`` consecutive failed calls,
half-open after ``reset_timeout_s``). A service that is down raises
:class:`KnowledgeUnavailableError`, or with ``on_error="empty"`` answers ``[]`` and counts a
warning in :attr:`KnowledgeBase.warning_count`. Wrong credentials, an unknown source and an
embedder mismatch are configuration errors and always raise.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import numpy as np

from ..models.embedders import Embedder
from .backend import KnowledgeBackend
from .chroma import ChromaBackend
from .embedding import EMBEDDER_KEY, embedder_from_tag, embedder_tag
from .errors import (
    EmbedderMismatchError,
    KnowledgeError,
    KnowledgeSourceNotFoundError,
    KnowledgeUnavailableError,
)
from .items import KnowledgeItem, merge_results
from .resilience import CircuitBreaker, CircuitOpenError, TransientError, call_with_retries

log = logging.getLogger(__name__)

T = TypeVar("T")
OnError = Literal["raise", "empty"]


class KnowledgeBase:
    """Knowledge sources on one vector-database service (default: a Chroma server).

    Args:
        service_url: ``http://host:port`` of the service.
        api_key: sent as a bearer token; never logged, never in a repr or an error. Prefer
            ``api_key_env`` in jobs: the key is then read from that environment variable where
            the job runs and is not pickled with the agent.
        embedder: embeds queries; must match the embedder each source was ingested with (else
            :class:`EmbedderMismatchError`). ``None``: rebuilt from the source's tag
            (``hashing:N``, ``minilm:384``).
        sources: restrict the base to these sources (Chroma collections); ``None``: all.
        timeout_s: read timeout per request; ``connect_timeout_s`` the connect timeout.
        retries, backoff_s: retries of a transient failure, waiting ``backoff_s * 2**n``.
        on_error: ``"raise"`` or ``"empty"`` (answer ``[]`` when the service is unavailable).
        failure_threshold, reset_timeout_s: the circuit breaker.
        source_cache_s: how long source lists and their metadata are cached.
        backend: another KnowledgeBackend (Qdrant, pgvector...) instead of Chroma.
    """

    def __init__(self, service_url: str, api_key: str | None = None,
                 embedder: Embedder | None = None, sources: list[str] | None = None, *,
                 api_key_env: str | None = None, timeout_s: float = 10.0,
                 connect_timeout_s: float = 2.0, retries: int = 2, backoff_s: float = 0.2,
                 on_error: OnError = "raise", failure_threshold: int = 3,
                 reset_timeout_s: float = 30.0, source_cache_s: float = 60.0,
                 tenant: str = "default_tenant", database: str = "default_database",
                 backend: KnowledgeBackend | None = None) -> None:
        if on_error not in ("raise", "empty"):
            raise ValueError(f"on_error must be 'raise' or 'empty', got {on_error!r}")
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        if api_key is not None and api_key_env is not None:
            raise ValueError("give api_key or api_key_env, not both")
        self.service_url = service_url.rstrip("/")
        self.embedder = embedder
        self.sources = list(sources) if sources is not None else None
        self.retries = retries
        self.backoff_s = backoff_s
        self.on_error: OnError = on_error
        self.source_cache_s = source_cache_s
        self.backend: KnowledgeBackend = backend if backend is not None else ChromaBackend(
            service_url, api_key=api_key, api_key_env=api_key_env,
            connect_timeout_s=connect_timeout_s, read_timeout_s=timeout_s,
            tenant=tenant, database=database)
        self.breaker = CircuitBreaker(failure_threshold, reset_timeout_s)
        self._init_runtime_state()

    def _init_runtime_state(self) -> None:
        #: Calls answered ``[]`` because the service was unavailable (``on_error="empty"``).
        self.warning_count = 0
        self._lock = threading.Lock()
        self._info: dict[str, tuple[float, dict[str, Any]]] = {}
        self._listed: tuple[float, list[str]] | None = None
        self._embedders: dict[str, Embedder] = {}
        self._last_warning_log = -1e18

    # -- pickling: configuration travels, connections and caches do not ----------------------
    def __getstate__(self) -> dict[str, Any]:
        keep = ("service_url", "embedder", "sources", "retries", "backoff_s", "on_error",
                "source_cache_s", "backend", "breaker")
        return {k: self.__dict__[k] for k in keep}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_runtime_state()

    def __repr__(self) -> str:
        emb = embedder_tag(self.embedder) if self.embedder is not None else "from-source"
        return (f"KnowledgeBase({self.service_url!r}, sources={self.sources!r}, "
                f"embedder={emb!r}, on_error={self.on_error!r})")

    # -- calls through retries and the breaker ---------------------------------------------------
    def _call(self, what: str, fn: Callable[[], T]) -> T:
        try:
            trial = self.breaker.before_call()
        except CircuitOpenError as e:
            raise KnowledgeUnavailableError(
                f"knowledge service {self.service_url} unavailable ({what}): {e}") from None
        try:
            result = call_with_retries(fn, 0 if trial else self.retries, self.backoff_s)
        except TransientError as e:
            self.breaker.record_failure()
            attempts = 1 if trial else self.retries + 1
            raise KnowledgeUnavailableError(
                f"knowledge service {self.service_url} unavailable ({what}, {attempts} "
                f"attempt(s)): {e}") from None
        except KnowledgeError:
            self.breaker.record_success()   # the service answered: it is up
            raise
        self.breaker.record_success()
        return result

    def _unavailable(self, error: KnowledgeUnavailableError) -> None:
        """``on_error="empty"``: count and (at most every 30 s) log; else re-raise."""
        if self.on_error != "empty":
            raise error
        with self._lock:
            self.warning_count += 1
            count = self.warning_count
            now = time.monotonic()
            if now - self._last_warning_log < 30:
                return
            self._last_warning_log = now
        log.warning("knowledge unavailable, answering no results (%d so far): %s", count, error)

    # -- sources ----------------------------------------------------------------------------------
    def list_sources(self) -> list[str]:
        """Source names (cached ``source_cache_s``); raises KnowledgeUnavailableError."""
        if self.sources is not None:
            return list(self.sources)
        now = time.monotonic()
        with self._lock:
            if self._listed is not None and now - self._listed[0] < self.source_cache_s:
                return list(self._listed[1])
        names = self._call("list sources", self.backend.list_sources)
        with self._lock:
            self._listed = (now, names)
        return list(names)

    def get_sources(self) -> list[str]:
        """Available knowledge sources (``[]`` if unavailable and ``on_error="empty"``)."""
        try:
            return self.list_sources()
        except KnowledgeUnavailableError as e:
            self._unavailable(e)
            return []

    def _source(self, name: str) -> dict[str, Any]:
        now = time.monotonic()
        with self._lock:
            cached = self._info.get(name)
            if cached is not None and now - cached[0] < self.source_cache_s:
                return cached[1]
        info = self._call(f"get source {name!r}", lambda: self.backend.get_source(name))
        if info is None:
            raise KnowledgeSourceNotFoundError(
                f"no knowledge source {name!r} at {self.service_url} (ingest it first: "
                f"flink-agents-memory knowledge ingest --url URL --source {name} FILES...)")
        with self._lock:
            self._info[name] = (now, info)
        return info

    def get_source_info(self, name: str | None = None) -> dict[str, Any]:
        """``{name, service_url, embedder, dimension, count, metadata}`` of a source (``name``
        may be left out when the base has exactly one source)."""
        if name is None:
            names = self.list_sources()
            if len(names) != 1:
                raise ValueError(f"name a source: {self.service_url} has {names}")
            name = names[0]
        info = self._source(name)
        count = self._call(f"count {name!r}", lambda: self.backend.count(name))
        return {"name": name, "service_url": self.service_url,
                "embedder": info["metadata"].get(EMBEDDER_KEY), "dimension": info["dimension"],
                "count": count, "metadata": dict(info["metadata"])}

    def embedder_for(self, name: str) -> Embedder:
        """The embedder for queries on source ``name``, checked against the source's tag."""
        info = self._source(name)
        tag = info["metadata"].get(EMBEDDER_KEY)
        if self.embedder is not None:
            mine = embedder_tag(self.embedder)
            dim = info.get("dimension")
            if (tag is not None and tag != mine) or (tag is None and dim not in (None,
                                                                                 self.embedder.dim)):
                raise EmbedderMismatchError(
                    f"knowledge source {name!r} at {self.service_url} was ingested with "
                    f"embedder {tag or f'of dimension {dim}'!r}, but this KnowledgeBase embeds "
                    f"queries with {mine!r}: pass a matching embedder (or embedder=None to use "
                    "the source's), or re-ingest the source")
            return self.embedder
        if tag is None:
            raise EmbedderMismatchError(
                f"knowledge source {name!r} at {self.service_url} does not record its embedder "
                f"(metadata {EMBEDDER_KEY!r}): pass embedder= to the KnowledgeBase")
        with self._lock:
            embedder = self._embedders.get(tag)
        if embedder is None:
            embedder = embedder_from_tag(tag)
            if embedder is None:
                raise EmbedderMismatchError(
                    f"knowledge source {name!r} was ingested with embedder {tag!r}, which "
                    "cannot be rebuilt from its tag: pass that embedder to the KnowledgeBase")
            with self._lock:
                self._embedders[tag] = embedder
        return embedder

    def connect(self) -> list[str]:
        """Check now that the service answers and every source's embedder matches; returns the
        sources. (Searching does this lazily; use it for a fail-fast start.)"""
        names = self.list_sources()
        for name in names:
            self.embedder_for(name)
        return names

    # -- search -------------------------------------------------------------------------------
    def search(self, query: str, knowledge_source: str | None = None,
               limit: int = 10) -> list[KnowledgeItem]:
        """The ``limit`` chunks most similar to ``query`` over ``knowledge_source`` (or all
        sources of this base), best first."""
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"knowledge search limit must be a positive int, got {limit!r}")
        try:
            if knowledge_source is not None:
                if self.sources is not None and knowledge_source not in self.sources:
                    raise KnowledgeSourceNotFoundError(
                        f"knowledge source {knowledge_source!r} is not one of this base's "
                        f"sources {self.sources}")
                names = [knowledge_source]
            else:
                names = self.list_sources()
            vectors: dict[int, np.ndarray] = {}
            per_source: list[list[KnowledgeItem]] = []
            for name in names:
                embedder = self.embedder_for(name)
                vector = vectors.get(id(embedder))
                if vector is None:
                    vector = vectors[id(embedder)] = embedder.embed([query])[0]
                values = [float(x) for x in vector]
                hits = self._call(f"query {name!r}",
                                  lambda n=name, v=values: self.backend.query(n, v, limit))
                per_source.append([KnowledgeItem.from_response({**h, "source": name})
                                   for h in hits])
            return merge_results(per_source, limit)
        except KnowledgeUnavailableError as e:
            self._unavailable(e)
            return []


def search_all(bases: list[KnowledgeBase], query: str, source: str | None = None,
               limit: int = 10) -> list[KnowledgeItem]:
    """AgentWithMemory.search_knowledge of the memory system design: every base searched
    (only those that have ``source``, if given), results merged by score, the best ``limit``
    kept.

    A ``source`` that no base has is a KnowledgeSourceNotFoundError, unless a base that could
    not be asked answered ``[]`` (``on_error="empty"``).
    """
    if not isinstance(limit, int) or limit < 1:
        raise ValueError(f"knowledge search limit must be a positive int, got {limit!r}")
    results: list[list[KnowledgeItem]] = []
    found = unknown = False
    available: list[str] = []
    for kb in bases:
        if source is None:
            results.append(kb.search(query, limit=limit))
            continue
        try:
            names = kb.list_sources()
        except KnowledgeUnavailableError as e:
            kb._unavailable(e)
            unknown = True
            continue
        if source in names:
            found = True
            results.append(kb.search(query, knowledge_source=source, limit=limit))
        else:
            available += names
    if source is not None and not found and not unknown:
        raise KnowledgeSourceNotFoundError(
            f"no knowledge base has source {source!r}; available: {sorted(set(available))}"
            if bases else f"no knowledge bases declared (agent.knowledge_bases), so no {source!r}")
    return merge_results(results, limit, source)
