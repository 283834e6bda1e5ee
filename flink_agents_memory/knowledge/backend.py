"""KnowledgeBackend: what a vector database must offer to serve knowledge sources.

A *source* is one collection of chunks, all embedded by one embedder (recorded in the source's
metadata under ``embedder``). Chroma is the default (``chroma.py``); Qdrant or pgvector need
only another class with these methods, agents and KnowledgeBase stay as they are.

Backends raise :class:`~.resilience.TransientError` for failures worth retrying, and the errors
of ``errors.py`` otherwise; retries, the circuit breaker and ``on_error`` live in KnowledgeBase.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class KnowledgeBackend(Protocol):
    """A vector store reached over the network. Must be picklable and connect lazily."""

    #: The service address (shown in errors and logs; never contains credentials).
    service_url: str

    def list_sources(self) -> list[str]:
        """Names of all sources."""
        ...

    def get_source(self, name: str) -> dict[str, Any] | None:
        """``{"name", "metadata", "dimension"}`` of a source, None if it does not exist."""
        ...

    def create_source(self, name: str, metadata: dict[str, Any]) -> dict[str, Any]:
        """Create a source (cosine distance) or return the existing one (as get_source)."""
        ...

    def count(self, name: str) -> int:
        """Number of chunks in a source."""
        ...

    def existing_ids(self, name: str, ids: list[str]) -> set[str]:
        """Those of ``ids`` that are stored in the source."""
        ...

    def upsert(self, name: str, ids: list[str], embeddings: list[list[float]],
               documents: list[str], metadatas: list[dict[str, Any]]) -> None:
        """Store chunks (same id: replaced)."""
        ...

    def query(self, name: str, embedding: list[float], limit: int) -> list[dict[str, Any]]:
        """Nearest chunks: ``[{"id", "content", "score", "metadata"}]``, best first, where
        ``score`` is the cosine similarity."""
        ...
