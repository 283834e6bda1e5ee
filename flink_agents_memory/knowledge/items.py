"""KnowledgeItem: one search result of a knowledge base (the memory system design's
``KnowledgeItem(content, source, score, metadata)``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class KnowledgeItem(BaseModel):
    """A chunk of a knowledge source with its relevance to the query (higher is better)."""

    content: str = Field(..., description="The text of the chunk")
    source: str = Field(..., description="The knowledge source (Chroma collection) it came from")
    score: float = Field(..., description="Relevance in [-1, 1]: cosine similarity to the query")
    metadata: dict[str, Any] = Field(default_factory=dict,
                                     description="Chunk metadata (file, title, chunk index...)")
    id: str | None = Field(None, description="The chunk id in its source (a content hash)")

    def __init__(self, content: str | None = None, source: str | None = None,
                 score: float | None = None, metadata: dict[str, Any] | None = None,
                 id: str | None = None, **fields: Any) -> None:
        """Positional as in the design (``content, source, score, metadata``) or by keyword;
        a missing or invalid field is a pydantic ValidationError naming it."""
        given = {"content": content, "source": source, "score": score, "id": id, **fields}
        data = {name: value for name, value in given.items() if value is not None}
        if metadata is not None:
            data["metadata"] = metadata
        super().__init__(**data)

    @classmethod
    def from_response(cls, item: dict[str, Any]) -> KnowledgeItem:
        """Build from a backend hit ``{id, content, source, score, metadata}``."""
        return cls(content=item.get("content") or "", source=item["source"],
                   score=float(item["score"]), metadata=dict(item.get("metadata") or {}),
                   id=item.get("id"))


def merge_results(results: list[list[KnowledgeItem]], limit: int,
                  source: str | None = None) -> list[KnowledgeItem]:
    """All lists merged by score (highest first; ties keep input order), filtered by ``source``,
    cut to ``limit``. The same chunk (source and id) found twice is kept once."""
    merged: list[KnowledgeItem] = []
    seen: set[tuple[str, str]] = set()
    for items in results:
        for item in items:
            if source is not None and item.source != source:
                continue
            if item.id is not None:
                ident = (item.source, item.id)
                if ident in seen:
                    continue
                seen.add(ident)
            merged.append(item)
    merged.sort(key=lambda x: x.score, reverse=True)
    return merged[:limit]
