"""Synthesis: the LLM writes a higher-level memory of a key (a profile) from its newest
memories, and rewrites it on later passes with the current version in view. A failed call or
an unusable answer is a logged skip: the synthesised memory stays as it was."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..errors import MemoryValueError
from .llm_steps import LLMSteps
from .maintenance_config import Synthesis
from .maintenance_llm import ask_json, skip

if TYPE_CHECKING:
    from .long_term import LongTermMemory

ACTOR = "maintenance:synthesis"
UNCHANGED = "synthesis: memory left unchanged"
PROMPT = (
    "You keep a higher-level memory about a user, written from their individual memories. "
    "{instruction} Keep what the current version says unless the memories contradict it. "
    'Answer only JSON of the form {{"memory": "<the text>"}}.'
)


def synthesize(memory: LongTermMemory, config: Synthesis,
               docs: list[dict[str, Any]]) -> LLMSteps[bool]:
    """Write or rewrite ``config.memory_id`` from ``docs`` (newest first); whether it did."""
    current = next((d for d in docs if d["id"] == config.memory_id), None)
    sources = [d["memory"] for d in docs if d["id"] != config.memory_id][: config.max_memories]
    if not sources:
        return False
    prompt = json.dumps({"current": None if current is None else current["memory"],
                         "memories": sources}, ensure_ascii=False)
    data = yield from ask_json(memory, PROMPT.format(instruction=config.instruction), prompt,
                               UNCHANGED)
    if data is None:
        return False
    text = data.get("memory")
    if not isinstance(text, str) or not text.strip():
        skip(memory, UNCHANGED, f"the LLM gave no text: {data!r:.200}")
        return False
    text = text.strip()
    if current is not None and text == current["memory"]:
        return False
    try:
        if current is None:
            memory.add_as(config.memory_id, text, {"synthesized": True}, ACTOR)
        else:
            memory.rewrite(current, text, current.get("metadata") or {}, ACTOR)
    except MemoryValueError as e:
        skip(memory, UNCHANGED, f"the synthesised memory was refused: {e}")
        return False
    return True
