"""Asking the LLM for one JSON object during maintenance, never trusting the answer blindly:
a failed call or an answer that is not a JSON object is a logged skip (None)."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from ..models.llm import LLMError
from .add_pipeline import strip_fences
from .llm_steps import LLMSteps, question

if TYPE_CHECKING:
    from .long_term import LongTermMemory

log = logging.getLogger(__name__)


def skip(memory: LongTermMemory, what: str, why: str) -> None:
    """Log and count a maintenance step left undone (``what``: e.g. "consolidation: group
    left unmerged")."""
    memory.metrics.inc("maintenance.llm_skipped")
    log.warning("%s, %s", what, why)


def ask_json(memory: LongTermMemory, system: str, user: str,
             what: str) -> LLMSteps[dict[str, Any] | None]:
    """The LLM's answer as a JSON object, or None (logged as ``what``) when it has none; a
    step (memory/llm_steps.py), so a pass waits off the task thread in an async job."""
    memory.metrics.inc("maintenance.llm_calls")
    answer = yield question(system, user)
    if isinstance(answer, LLMError):
        return skip(memory, what, f"the LLM call failed: {answer}")
    try:
        data = json.loads(strip_fences(answer))
    except (json.JSONDecodeError, TypeError):
        return skip(memory, what, f"the LLM answered no JSON: {answer:.200}")
    if not isinstance(data, dict):
        return skip(memory, what, f"the LLM answered no JSON object: {answer:.200}")
    return data
