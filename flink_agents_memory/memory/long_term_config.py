"""LongTermMemoryConfig: what an agent declares about its long-term memory.

Kept apart from memory/long_term.py so that declaring an agent imports neither numpy nor the
embedders: only the TaskManager, when it opens the memory, needs those.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigurationError
from .items import SearchMode
from .maintenance_config import MaintenanceConfig
from .retention import Retention

if TYPE_CHECKING:
    from ..models.embedders import Embedder


class LongTermMemoryConfig(BaseModel):
    """Declared on the agent (``Agent.long_term_memory``); checked when the job is built."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    embedder: Any = Field(None, description="An Embedder; default_embedder() if None.")
    llm: Any = Field(None, description="An LLM for add_messages(infer=True); None: infer off.")
    ttl_ms: int | None = Field(None, ge=1, description="Memories expire this long after a write.")
    max_items_per_key: int | None = Field(None, ge=1, description="Oldest are deleted beyond.")
    dedup_threshold: float = Field(0.95, gt=0, le=1,
                                   description="infer=False: skip text this similar to a memory.")
    similar_limit: int = Field(5, ge=1, description="Existing memories shown to the LLM per fact.")
    default_mode: SearchMode = "hybrid"
    hybrid_keyword_weight: float = Field(
        1.5, ge=0, le=100, allow_inf_nan=False,
        description="Hybrid search: weight of the scaled BM25 scores against the scaled vector "
        "scores (1).")
    vector_candidates: int | None = Field(
        None, ge=1, le=10_000,
        description="Vector and hybrid search: HNSW candidates explored per search (ef). More "
        "finds more of the true nearest neighbours and costs time in proportion. None: each "
        "large index segment measures the narrowest of 100, 150 and 200 that finds 0.98 of the "
        "exact top 10 of the job's latest 64 queries, and uses 200 until then (text embeddings "
        "get 100, uniformly random vectors 200; docs/long_term_memory.md).")
    drop_question_words: bool = Field(
        True, description="Keyword and hybrid search: leave words like what/did/the out of the "
        "BM25 query.")
    recent: Retention = Field(Retention(max_items=100), description="get_history's retention.")
    audit: Retention = Field(Retention(max_items=1000), description="history(id)'s retention.")
    maintenance: MaintenanceConfig | None = Field(
        None, description="Per-key consolidation and forgetting on Flink timers; None: off.")

    def resolved_embedder(self) -> Embedder:
        if self.embedder is not None:
            return self.embedder
        from ..models.embedders import default_embedder

        return default_embedder()

    def check_embedder(self) -> None:
        """At job build: the embedder is one, and its model is installed (not found mid-job)."""
        if self.embedder is None:
            return
        dim = getattr(self.embedder, "dim", None)
        if not callable(getattr(self.embedder, "embed", None)) or not isinstance(dim, int) \
                or isinstance(dim, bool) or dim < 1:
            raise ConfigurationError(
                f"long_term_memory.embedder {self.embedder!r} is not an Embedder: it needs "
                f"embed(texts) and an int dim >= 1 (got dim={dim!r})")
        check = getattr(self.embedder, "check_available", None)
        if callable(check):
            check()
