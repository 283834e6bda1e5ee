"""The mem0-style add pipeline of the memory system design: extract facts, embed, find similar
memories, let the LLM decide ADD / UPDATE / DELETE / NONE, apply, audit.

Existing memories are shown to the LLM under small integer ids ("0", "1", ...) and mapped
back, so a hallucinated id can never touch a memory that was not shown; an unknown id is a
logged skip. Malformed LLM output is a logged skip too: the run goes on, memory is unchanged.
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING, Any

from ..models.llm import LLMError
from .llm_steps import Answer, LLMSteps, question

if TYPE_CHECKING:
    from .long_term import LongTermMemory

log = logging.getLogger(__name__)

FACT_PROMPT = (
    "You extract durable facts worth remembering about the user from a conversation: "
    "preferences, personal details, plans, decisions. Answer only JSON of the form "
    '{"facts": ["fact one", "fact two"]}; answer {"facts": []} if there is nothing to keep.'
)
UPDATE_PROMPT = (
    "You maintain a memory store. You get the existing memories (with ids) and new facts. "
    "For each new fact decide: ADD it as a new memory, UPDATE an existing memory (give its id "
    "and the merged text), DELETE an existing memory the fact contradicts (give its id), or "
    "NONE if it is already known. Answer only JSON of the form "
    '{"memory": [{"id": "0", "text": "...", "event": "ADD|UPDATE|DELETE|NONE"}]}.'
)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)
_EVENTS = ("ADD", "UPDATE", "DELETE", "NONE")


def _normalise(messages: list[dict[str, str]] | str) -> list[dict[str, str]]:
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    out = []
    for m in messages:
        if not isinstance(m, dict) or not isinstance(m.get("content"), str):
            raise ValueError(f"each message must be a dict with a str 'content', got {m!r}")
        out.append({"role": str(m.get("role", "user")), "content": m["content"]})
    return out


def strip_fences(text: str) -> str:
    """An LLM answer without the Markdown code fences models like to wrap JSON in."""
    return _FENCE.sub("", text.strip())


def parse_json_answer(text: str, field: str) -> list[Any] | None:
    """The list under ``field`` in an LLM answer (code fences allowed), or None if malformed."""
    try:
        data = json.loads(strip_fences(text))
    except (json.JSONDecodeError, TypeError):
        return None
    value = data.get(field) if isinstance(data, dict) else None
    return value if isinstance(value, list) else None


def _read(memory: LongTermMemory, answer: Answer, field: str) -> list[Any] | None:
    memory.metrics.inc("long_term.llm_calls")
    if isinstance(answer, LLMError):
        memory.metrics.inc("long_term.llm_failures")
        log.warning("add_messages: LLM call failed, nothing stored: %s", answer)
        return None
    usage = getattr(memory.llm, "last_usage", None) or {}
    memory.metrics.inc("long_term.llm_tokens", int(usage.get("total_tokens", 0) or 0))
    parsed = parse_json_answer(answer, field)
    if parsed is None:
        memory.metrics.inc("long_term.llm_malformed")
        log.warning("add_messages: malformed LLM answer (no %r list), skipped: %.200r",
                    field, answer)
    return parsed


def add_messages_steps(memory: LongTermMemory, messages: list[dict[str, str]] | str,
                       infer: bool, metadata: dict[str, Any],
                       ) -> LLMSteps[list[dict[str, Any]]]:
    """The pipeline as a generator: it yields each question for the LLM and is sent the
    answer, so the sync and async forms share one implementation (the async form awaits each
    call off the task thread; the memory steps in between run on it)."""
    msgs = _normalise(messages)
    if not infer:
        return _store_verbatim(memory, msgs, metadata)
    conversation = "\n".join(f"{m['role']}: {m['content']}" for m in msgs)
    facts = _read(memory, (yield question(FACT_PROMPT, conversation)), "facts")
    facts = [f.strip() for f in facts or [] if isinstance(f, str) and f.strip()]
    if not facts:
        return []
    vectors = memory.embed(facts)
    shown: dict[str, dict[str, Any]] = {}
    for vector in vectors:
        for hit in memory.similar(vector, memory.config.similar_limit):
            if all(doc["id"] != hit["id"] for doc in shown.values()):
                shown[str(len(shown))] = hit
    existing = [{"id": small, "text": doc["memory"]} for small, doc in shown.items()]
    prompt = json.dumps({"existing_memories": existing, "new_facts": facts}, ensure_ascii=False)
    decisions = _read(memory, (yield question(UPDATE_PROMPT, prompt)), "memory")
    if decisions is None:
        return []
    return [r for d in decisions if (r := _apply(memory, d, shown, metadata)) is not None]


def _apply(memory: LongTermMemory, decision: Any, shown: dict[str, dict[str, Any]],
           metadata: dict[str, Any]) -> dict[str, Any] | None:
    if not isinstance(decision, dict) or decision.get("event") not in _EVENTS:
        log.warning("add_messages: ignoring malformed decision %.200r", decision)
        return None
    event, text = decision["event"], decision.get("text")
    if event == "NONE":
        return None
    if event == "ADD":
        if not isinstance(text, str) or not text.strip():
            log.warning("add_messages: ADD without text ignored: %.200r", decision)
            return None
        return {"id": memory.add(text, metadata=metadata), "memory": text, "event": "ADD"}
    target = shown.get(str(decision.get("id")))
    if target is None:
        log.warning("add_messages: the LLM named unknown memory id %r for %s; ignored",
                    decision.get("id"), event)
        return None
    if event == "DELETE":
        memory.delete(target["id"])
        return {"id": target["id"], "memory": target["memory"], "event": "DELETE"}
    if not isinstance(text, str) or not text.strip():
        log.warning("add_messages: UPDATE without text ignored: %.200r", decision)
        return None
    memory.update(target["id"], text)
    return {"id": target["id"], "memory": text, "event": "UPDATE",
            "previous_memory": target["memory"]}


def _store_verbatim(memory: LongTermMemory, msgs: list[dict[str, str]],
                    metadata: dict[str, Any]) -> list[dict[str, Any]]:
    kept = [m for m in msgs if m["content"].strip()]
    texts = [m["content"] for m in kept]
    if not texts:
        return []
    results = []
    vectors = memory.embed(texts)
    for text, vector, msg in zip(texts, vectors, kept, strict=True):
        duplicate = memory.find_by_hash(text)
        if duplicate is None:
            for hit in memory.similar(vector, 1):
                if 2 * hit["score"] - 1 >= memory.config.dedup_threshold:
                    duplicate = hit["id"]
        if duplicate is not None:
            results.append({"id": duplicate, "memory": text, "event": "NONE"})
            continue
        memory_id = memory.add(text, metadata={**metadata, "role": msg["role"]})
        results.append({"id": memory_id, "memory": text, "event": "ADD"})
    return results
