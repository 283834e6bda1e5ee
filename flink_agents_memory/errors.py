"""Errors raised by flink_agents_memory; each names what was wrong so a user can fix it."""

from __future__ import annotations


class FlinkAgentsMemoryError(Exception):
    """Base class of every error this package raises on purpose."""


class ConfigurationError(FlinkAgentsMemoryError):
    """A job configuration that would not run; raised at job build time, never in a restart loop."""


class MemoryPathError(FlinkAgentsMemoryError, ValueError):
    """A short-term memory path that is malformed or conflicts with what is stored."""


class MemoryValueError(FlinkAgentsMemoryError, ValueError):
    """A value that cannot be stored (too large, or not decodable into its stored type)."""


class MemoryNotFoundError(MemoryValueError, KeyError):
    """No long-term memory with that id for the current key."""


class MemoryTypeError(MemoryValueError, TypeError):
    """A value of a type (or a float, NaN or infinite) that memory cannot store."""


class AgentDefinitionError(FlinkAgentsMemoryError, TypeError):
    """An agent whose actions or declarations are not well-formed."""


class RunError(FlinkAgentsMemoryError, RuntimeError):
    """A run (the processing of one input element) failed; its memory writes were discarded."""


class ActionFailedError(RunError):
    """An action raised; the message names the action and the event it was handling."""

    def __init__(self, action: str, event: object, cause: BaseException) -> None:
        super().__init__(
            f"action '{action}' failed on event {_short(repr(event))}: "
            f"{type(cause).__name__}: {_short(str(cause))}"
            f"{_where(cause)}"
        )
        self.action = action
        self.event = event


def _short(text: str, limit: int = 2000) -> str:
    """A message part cut to ``limit`` chars: an error about a 25 MB input stays readable."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


def _where(cause: BaseException) -> str:
    """`` (at file:line in function)`` of the innermost frame, since PyFlink drops the cause."""
    tb = cause.__traceback__
    if tb is None:
        return ""
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    return f" (at {code.co_filename}:{tb.tb_lineno} in {code.co_name})"


class UnhandledEventError(RunError):
    """An event was sent that no action listens to (only OutputEvent may go unhandled)."""


class RunawayRunError(RunError):
    """A run produced more events than the configured maximum (most likely an event loop)."""


class CallTimeoutError(FlinkAgentsMemoryError, TimeoutError):
    """An awaited call did not finish within ``AgentConfig.call_timeout_ms``; raised in the
    action that awaited it, so ``on_error`` decides as for any failure."""


class DurableCallError(FlinkAgentsMemoryError, RuntimeError):
    """A durable call failed when it was first made, and a replay of its run got the recorded
    failure instead of calling again (the original exception type could not be rebuilt)."""
