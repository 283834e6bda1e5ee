"""Embedder tags: the name a source records for the embedder it was ingested with."""

from __future__ import annotations

from typing import Any

from ..models.embedders import Embedder, HashingEmbedder, MiniLMEmbedder, OpenAIEmbedder

EMBEDDER_KEY = "embedder"


def embedder_tag(embedder: Any) -> str:
    """``"hashing:256"``, ``"minilm:384"``, ``"openai:<model>:<dim>"`` or ``"<class>:<dim>"``."""
    if isinstance(embedder, HashingEmbedder):
        return f"hashing:{embedder.dim}"
    if isinstance(embedder, MiniLMEmbedder):
        return f"minilm:{embedder.dim}"
    if isinstance(embedder, OpenAIEmbedder):
        return f"openai:{embedder.model}:{embedder.dim}"
    return f"{type(embedder).__name__.lower()}:{embedder.dim}"


def embedder_from_tag(tag: str) -> Embedder | None:
    """The embedder a tag names, where it can be rebuilt from the tag alone (else None)."""
    kind, _, dim = tag.partition(":")
    if kind == "hashing" and dim.isdigit():
        return HashingEmbedder(int(dim))
    if kind == "minilm" and dim == "384":
        return MiniLMEmbedder()
    return None


def embedder_by_name(name: str, dim: int | None = None) -> Embedder:
    """The CLI's ``--embedder hashing|minilm``."""
    if name == "hashing":
        return HashingEmbedder(dim or 256)
    if name == "minilm":
        if dim not in (None, 384):
            raise ValueError("minilm has 384 dimensions")
        return MiniLMEmbedder()
    raise ValueError(f"unknown embedder {name!r}: use hashing or minilm")
