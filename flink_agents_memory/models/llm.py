"""LLM clients: ``complete(messages, response_format) -> str``."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ..runtime.calls import PendingCall
from .http import HTTPError, post_json


class LLMError(Exception):
    """The LLM could not be reached or answered something unusable."""


@runtime_checkable
class LLM(Protocol):
    def complete(self, messages: list[dict[str, str]],
                 response_format: dict[str, Any] | None = None) -> str: ...


class OpenAICompatibleLLM:
    """Any OpenAI-compatible ``/chat/completions`` endpoint (OpenAI, vLLM, Ollama, llama.cpp)."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None,
                 timeout_s: float = 60.0, retries: int = 2, temperature: float = 0.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.retries = retries
        self.temperature = temperature
        #: The ``usage`` of the last answer (prompt/completion/total tokens), if it had one.
        self.last_usage: dict[str, Any] = {}

    def complete(self, messages: list[dict[str, str]],
                 response_format: dict[str, Any] | None = None) -> str:
        payload: dict[str, Any] = {"model": self.model, "messages": messages,
                                   "temperature": self.temperature}
        if response_format is not None:
            payload["response_format"] = response_format
        try:
            answer = post_json(f"{self.base_url}/chat/completions", payload, self.api_key,
                               self.timeout_s, self.retries)
            usage = answer.get("usage")
            self.last_usage = usage if isinstance(usage, dict) else {}
            return str(answer["choices"][0]["message"]["content"])
        except HTTPError as e:
            raise LLMError(str(e)) from e
        except (KeyError, IndexError, TypeError) as e:
            raise LLMError(f"malformed chat completion from {self.base_url}: {e!r}") from e

    async def complete_async(self, messages: list[dict[str, str]],
                             response_format: dict[str, Any] | None = None) -> str:
        """:meth:`complete` in an async action: the request runs off the task thread while
        the subtask goes on (not durable: wrap it in ``ctx.durable_execute_async`` for that)."""
        return await PendingCall(self.complete, (messages, response_format), {})

    def __repr__(self) -> str:  # never show the api key
        return f"OpenAICompatibleLLM(base_url={self.base_url!r}, model={self.model!r})"
