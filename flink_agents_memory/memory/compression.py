"""Compression: history items at least a threshold old become one long-term memory.

The reducer is the LLM when there is one (a failed call or an unusable answer is a logged skip:
the items stay in the history for the next pass), else an extractive summary: the items whose
words recur most across the batch, within ``max_chars``, in their order.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from ..errors import MemoryValueError
from .history import History
from .llm_steps import LLMSteps
from .maintenance_config import Compression
from .maintenance_llm import ask_json, skip

if TYPE_CHECKING:
    from .long_term import LongTermMemory

ACTOR = "maintenance:compression"
KEPT = "compression: items left in the history"
PROMPT = (
    "You compress an agent's old conversation items into one memory to keep. Keep durable "
    "facts (who, what, preferences, decisions), drop small talk, at most {max_chars} "
    'characters. Answer only JSON of the form {{"memory": "<the summary>"}}.'
)
_WORD = re.compile(r"\w+")


def text_of(item: Any) -> str:
    """An item as text: a str, a message's ``content``, else its JSON."""
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and isinstance(item.get("content"), str):
        role = item.get("role")
        return f"{role}: {item['content']}" if isinstance(role, str) else item["content"]
    return json.dumps(item, ensure_ascii=False, default=str)


def extractive(texts: list[str], max_chars: int) -> str:
    """The texts whose words are most frequent across all of them (per word, so long texts
    win no bonus), best first while they fit ``max_chars``, joined in their original order."""
    freq = Counter(w for t in texts for w in set(_WORD.findall(t.lower())))

    def score(text: str) -> float:
        words = _WORD.findall(text.lower())
        return sum(freq[w] for w in words) / len(words) if words else 0.0

    ranked = sorted(range(len(texts)), key=lambda i: (-score(texts[i]), i))
    chosen: list[int] = []
    used = 0
    for i in ranked:  # the best ones that fit; no lesser one fills the gap after a miss
        cost = len(texts[i]) + (1 if chosen else 0)
        if used + cost > max_chars:
            break
        chosen.append(i)
        used += cost
    if not chosen:  # even the best one is too long: cut it
        return texts[ranked[0]][:max_chars]
    return "\n".join(texts[i] for i in sorted(chosen))


def compress(memory: LongTermMemory, config: Compression, history: History,
             now_ms: int) -> LLMSteps[int]:
    """Summarise and remove the history's old items; returns how many were compressed."""
    cutoff = now_ms - config.older_than_ms
    texts = [t for t in (text_of(v) for v in history.appended_until(cutoff)) if t.strip()]
    if not texts:
        return 0
    if config.use_llm and memory.llm is not None:
        data = yield from ask_json(memory, PROMPT.format(max_chars=config.max_chars),
                        json.dumps({"items": texts}, ensure_ascii=False), KEPT)
        summary = None if data is None else data.get("memory")
        if not isinstance(summary, str) or not summary.strip():
            if data is not None:
                skip(memory, KEPT, f"the LLM gave no summary: {data!r:.200}")
            return 0
        summary = summary.strip()[: config.max_chars]
    else:
        summary = extractive(texts, config.max_chars)
    try:
        memory.add_as(None, summary, {"source": "compression", "history": config.history,
                                      "items": len(texts)}, ACTOR)
    except MemoryValueError as e:
        skip(memory, KEPT, f"the summary was refused: {e}")
        return 0
    history.take_appended_until(cutoff)
    return len(texts)
