"""Embedders and LLM clients used by long-term memory."""

from .embedders import Embedder, HashingEmbedder, MiniLMEmbedder, OpenAIEmbedder, default_embedder
from .llm import LLM, LLMError, OpenAICompatibleLLM

__all__ = [
    "LLM",
    "Embedder",
    "HashingEmbedder",
    "LLMError",
    "MiniLMEmbedder",
    "OpenAICompatibleLLM",
    "OpenAIEmbedder",
    "default_embedder",
]
