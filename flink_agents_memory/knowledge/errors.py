"""Errors of the knowledge layer; each names the service and the source, never the api key."""

from __future__ import annotations

from ..errors import ConfigurationError, FlinkAgentsMemoryError


class KnowledgeError(FlinkAgentsMemoryError):
    """Base class of every knowledge-base error."""


class KnowledgeUnavailableError(KnowledgeError):
    """The knowledge service could not be reached (down, timing out, 5xx, or circuit open).

    With ``on_error="empty"`` a KnowledgeBase answers ``[]`` instead and counts a warning.
    """


class KnowledgeAuthError(KnowledgeError):
    """The service rejected the credentials (HTTP 401/403): a configuration error, always raised."""


class KnowledgeSourceNotFoundError(KnowledgeError, ConfigurationError):
    """No knowledge source (Chroma collection) by that name; always raised."""


class EmbedderMismatchError(KnowledgeError, ConfigurationError):
    """The embedder differs from the one the source was ingested with; always raised."""


class KnowledgeRequestError(KnowledgeError):
    """The service refused a request as malformed (HTTP 4xx other than 401/403/404)."""
