"""Chroma over its HTTP API (v2), standard library only: the job needs no ``chromadb`` import.

Paths (Chroma >= 1.0, checked against the server's /openapi.json):
``/api/v2/tenants/{tenant}/databases/{database}/collections`` (GET list, POST create with
``get_or_create``), ``.../collections/{name}`` (GET by name), and ``.../collections/{uuid}/``
``add|upsert|get|query|count``. Sources are created with cosine distance, so
``score = 1 - distance`` is the cosine similarity.

Connect and read timeouts are separate (``http.client``: the socket gets the connect timeout,
then the read timeout once connected). Credentials go as ``Authorization: Bearer`` and
``X-Chroma-Token`` (Chroma's two token headers); they are never part of an error or a repr.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import urllib.parse
from typing import Any

from .errors import (
    KnowledgeAuthError,
    KnowledgeRequestError,
    KnowledgeSourceNotFoundError,
)
from .resilience import TransientError

_MAX_ERROR_BODY = 300


class ChromaBackend:
    """One Chroma server (tenant and database fixed). Picklable; connects per request."""

    def __init__(self, service_url: str, api_key: str | None = None,
                 api_key_env: str | None = None, connect_timeout_s: float = 2.0,
                 read_timeout_s: float = 10.0,
                 tenant: str = "default_tenant", database: str = "default_database") -> None:
        parsed = urllib.parse.urlsplit(service_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"knowledge service_url must be http(s)://host:port, "
                             f"got {service_url!r}")
        if parsed.username or parsed.password:
            raise ValueError("put credentials in api_key, not in the service_url")
        self.service_url = service_url.rstrip("/")
        self._api_key = api_key
        self._api_key_env = api_key_env
        self.connect_timeout_s = connect_timeout_s
        self.read_timeout_s = read_timeout_s
        self.tenant = tenant
        self.database = database
        self._ids: dict[str, str] = {}   # source name -> collection uuid
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ChromaBackend({self.service_url!r}, tenant={self.tenant!r}, " \
               f"database={self.database!r})"

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_lock", None)
        state["_ids"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # -- HTTP ---------------------------------------------------------------------------------
    def _base(self) -> str:
        t = urllib.parse.quote(self.tenant, safe="")
        d = urllib.parse.quote(self.database, safe="")
        return f"/api/v2/tenants/{t}/databases/{d}/collections"

    def request(self, method: str, path: str, payload: Any = None) -> Any:
        """One HTTP exchange; decoded JSON answer. Raises TransientError or a KnowledgeError."""
        parsed = urllib.parse.urlsplit(self.service_url)
        conn_cls = (http.client.HTTPSConnection if parsed.scheme == "https"
                    else http.client.HTTPConnection)
        conn = conn_cls(parsed.hostname, parsed.port, timeout=self.connect_timeout_s)
        full_path = parsed.path.rstrip("/") + path
        what = f"{method} {self.service_url}{path}"
        headers = {"Accept": "application/json"}
        body = None
        if payload is not None:
            body = json.dumps(payload).encode()
            headers["Content-Type"] = "application/json"
        api_key = self._api_key or (os.environ.get(self._api_key_env) if self._api_key_env
                                    else None)
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
            headers["X-Chroma-Token"] = api_key
        try:
            conn.connect()
            if conn.sock is not None:
                conn.sock.settimeout(self.read_timeout_s)
            conn.request(method, full_path, body=body, headers=headers)
            response = conn.getresponse()
            status = response.status
            raw = response.read()
        except (OSError, http.client.HTTPException) as e:
            kind = "timed out" if isinstance(e, (socket.timeout, TimeoutError)) else "failed"
            raise TransientError(f"{what} {kind}: {type(e).__name__}: {e}") from None
        finally:
            conn.close()
        if status >= 500 or status == 429:
            raise TransientError(f"{what} answered {status}: {_detail(raw)}")
        if status in (401, 403):
            raise KnowledgeAuthError(
                f"{what} answered {status}: the knowledge service rejected the credentials "
                "(check the KnowledgeBase api_key)")
        if status == 404:
            raise _NotFound(f"{what} answered 404: {_detail(raw)}")
        if status >= 400:
            raise KnowledgeRequestError(f"{what} answered {status}: {_detail(raw)}")
        try:
            return json.loads(raw) if raw else None
        except json.JSONDecodeError as e:
            raise TransientError(f"{what} answered malformed JSON: {e}") from None

    def _collection(self, name: str) -> dict[str, Any] | None:
        try:
            return self.request("GET", f"{self._base()}/{urllib.parse.quote(name, safe='')}")
        except _NotFound:
            return None
        except KnowledgeRequestError as e:
            if "Validation error" in str(e):
                return None   # Chroma rejects malformed names with 400: no such source
            raise

    def _id(self, name: str) -> str:
        with self._lock:
            cid = self._ids.get(name)
        if cid is None:
            coll = self._collection(name)
            if coll is None:
                raise KnowledgeSourceNotFoundError(
                    f"no knowledge source {name!r} at {self.service_url} (ingest it first: "
                    f"flink-agents-memory knowledge ingest --url URL --source {name} FILES)")
            cid = str(coll["id"])
            with self._lock:
                self._ids[name] = cid
        return cid

    def _op(self, name: str, method: str, op: str, payload: Any = None) -> Any:
        """A request on one collection's ``op`` endpoint (the uuid is looked up once)."""
        try:
            return self.request(method, f"{self._base()}/{self._id(name)}/{op}", payload)
        except _NotFound:
            with self._lock:
                self._ids.pop(name, None)   # deleted (or re-created) since we looked it up
            raise KnowledgeSourceNotFoundError(
                f"knowledge source {name!r} disappeared from {self.service_url}") from None

    # -- KnowledgeBackend ---------------------------------------------------------------------
    def list_sources(self) -> list[str]:
        names: list[str] = []
        offset = 0
        while True:
            page = self.request("GET", f"{self._base()}?limit=100&offset={offset}") or []
            names += [str(c["name"]) for c in page]
            if len(page) < 100:
                return sorted(names)
            offset += 100

    def get_source(self, name: str) -> dict[str, Any] | None:
        coll = self._collection(name)
        if coll is None:
            return None
        with self._lock:
            self._ids[name] = str(coll["id"])
        return {"name": coll["name"], "metadata": dict(coll.get("metadata") or {}),
                "dimension": coll.get("dimension")}

    def create_source(self, name: str, metadata: dict[str, Any]) -> dict[str, Any]:
        coll = self.request("POST", self._base(), {
            "name": name, "metadata": metadata, "get_or_create": True,
            "configuration": {"hnsw": {"space": "cosine"}}})
        with self._lock:
            self._ids[name] = str(coll["id"])
        return {"name": coll["name"], "metadata": dict(coll.get("metadata") or {}),
                "dimension": coll.get("dimension")}

    def count(self, name: str) -> int:
        return int(self._op(name, "GET", "count"))

    def existing_ids(self, name: str, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        answer = self._op(name, "POST", "get", {"ids": ids, "include": []})
        return set(answer.get("ids") or [])

    def upsert(self, name: str, ids: list[str], embeddings: list[list[float]],
               documents: list[str], metadatas: list[dict[str, Any]]) -> None:
        if ids:
            self._op(name, "POST", "upsert", {
                "ids": ids, "embeddings": embeddings, "documents": documents,
                "metadatas": [m or None for m in metadatas]})

    def query(self, name: str, embedding: list[float], limit: int) -> list[dict[str, Any]]:
        answer = self._op(name, "POST", "query", {
            "query_embeddings": [embedding], "n_results": limit,
            "include": ["documents", "metadatas", "distances"]})
        ids = (answer.get("ids") or [[]])[0]
        docs = (answer.get("documents") or [[None] * len(ids)])[0]
        metas = (answer.get("metadatas") or [[None] * len(ids)])[0]
        dists = (answer.get("distances") or [[None] * len(ids)])[0]
        return [{"id": i, "content": doc or "", "metadata": meta or {},
                 "score": 0.0 if dist is None else 1.0 - float(dist)}
                for i, doc, meta, dist in zip(ids, docs, metas, dists, strict=False)]


class _NotFound(Exception):
    """404 from the server (turned into KnowledgeSourceNotFoundError by the caller)."""


def _detail(raw: bytes) -> str:
    text = raw[:_MAX_ERROR_BODY].decode(errors="replace")
    try:
        answer = json.loads(raw)
        if isinstance(answer, dict) and "message" in answer:
            return f"{answer.get('error', 'error')}: {answer['message']}"[:_MAX_ERROR_BODY]
    except (json.JSONDecodeError, UnicodeDecodeError):
        pass
    return text
