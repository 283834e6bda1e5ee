"""Knowledge: shared, external knowledge sources on a vector database (Knowledge in
the memory system design).

``KnowledgeBase`` searches sources (Chroma collections by default) over HTTP; agents declare
their bases in ``Agent.knowledge_bases`` and search them with ``ctx.search_knowledge``.
"""

from .backend import KnowledgeBackend
from .base import KnowledgeBase, search_all
from .chroma import ChromaBackend
from .embedding import embedder_by_name, embedder_from_tag, embedder_tag
from .errors import (
    EmbedderMismatchError,
    KnowledgeAuthError,
    KnowledgeError,
    KnowledgeRequestError,
    KnowledgeSourceNotFoundError,
    KnowledgeUnavailableError,
)
from .ingest import Chunk, IngestReport, chunk_id, chunk_text, ingest_files, load_chunks
from .items import KnowledgeItem, merge_results
from .resilience import CircuitBreaker, CircuitOpenError, TransientError

__all__ = [
    "ChromaBackend",
    "Chunk",
    "CircuitBreaker",
    "CircuitOpenError",
    "EmbedderMismatchError",
    "IngestReport",
    "KnowledgeAuthError",
    "KnowledgeBackend",
    "KnowledgeBase",
    "KnowledgeError",
    "KnowledgeItem",
    "KnowledgeRequestError",
    "KnowledgeSourceNotFoundError",
    "KnowledgeUnavailableError",
    "TransientError",
    "chunk_id",
    "chunk_text",
    "embedder_by_name",
    "embedder_from_tag",
    "embedder_tag",
    "ingest_files",
    "load_chunks",
    "merge_results",
    "search_all",
]
