"""One maintenance pass over a key's long-term memory: compression, consolidation, synthesis,
forgetting.

It only buffers writes through :class:`LongTermMemory` (deletes and merges with their audit
entries), so the runtime commits a pass like any run: checkpointed with the rest of the key's
state, all or nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .access import NEVER
from .compression import compress
from .consolidation import consolidate
from .forgetting import Scored, importance_of, over_budget, retention_score
from .history import History
from .llm_steps import LLMSteps
from .maintenance_config import Forgetting, MaintenanceConfig
from .store import KeyValueStore
from .synthesis import synthesize

if TYPE_CHECKING:
    from .long_term import LongTermMemory

#: Meta entry: the time of the last pass (memories written since are new to consolidation).
LAST_PASS = "__maintenance_last__"
FORGET_ACTOR = "maintenance:forgetting"


@dataclass(frozen=True)
class PassReport:
    """What one pass did, for metrics and benchmarks."""

    memories_before: int
    compressed: int
    merged: int
    synthesized: bool
    forgotten: int
    work_left: bool


def epoch_ms(timestamp: str | None) -> int:
    """Epoch milliseconds of a memory's ISO timestamp (0 if missing or unreadable)."""
    if not timestamp:
        return 0
    try:
        return int(datetime.fromisoformat(timestamp).timestamp() * 1000)
    except ValueError:
        return 0


def run_pass(memory: LongTermMemory, config: MaintenanceConfig, meta: KeyValueStore,
             now_ms: int, histories: dict[str, History]) -> LLMSteps[PassReport]:
    """Run the configured tasks for the current key at ``now_ms`` (a step generator: its LLM
    questions are answered by the caller, memory/llm_steps.py)."""
    compressed = 0
    work_left = False
    if config.compression is not None:
        history = histories[config.compression.history]
        compressed = yield from compress(memory, config.compression, history, now_ms)
        # what is left grows old without new appends: keep a timer until it is compressed
        work_left = len(history) > 0
    docs = memory.live_docs()
    before = len(docs)
    merged = forgotten = 0
    synthesized = False
    next_since = now_ms
    # the synthesised memory is derived from the others: never merged, forgotten or counted
    protected = frozenset() if config.synthesis is None else \
        frozenset({config.synthesis.memory_id})
    if config.consolidation is not None:
        since = int(meta.get(LAST_PASS) or 0)
        new = sorted((d for d in docs if epoch_ms(d.get("updated_at")) >= since),
                     key=lambda d: (epoch_ms(d.get("updated_at")), d["id"]))
        cap = config.consolidation.max_memories_per_pass
        batch = new[:cap]
        if len(new) > cap:
            work_left = True
            # the rest is compared next pass; at least 1 ms on, so a pass always progresses
            next_since = max(epoch_ms(batch[-1].get("updated_at")), since + 1)
        merges = yield from consolidate(memory, config.consolidation, docs, batch, protected)
        merged = sum(len(m.others) for m in merges)
        if merges:
            docs = memory.as_of_run(docs)
    meta.put(LAST_PASS, str(next_since))
    if config.synthesis is not None:
        synthesized = yield from synthesize(memory, config.synthesis, docs)
    if config.forgetting is not None:
        forgotten = _forget(memory, config.forgetting,
                            [d for d in docs if d["id"] not in protected], now_ms)
    return PassReport(before, compressed, merged, synthesized, forgotten, work_left)


def _forget(memory: LongTermMemory, config: Forgetting, docs: list[dict[str, Any]],
            now_ms: int) -> int:
    """Delete the lowest scores over the budget, each with an audit entry; returns how many."""
    if len(docs) <= config.budget:
        return 0
    by_id = {d["id"]: d for d in docs}
    scored = []
    for doc in docs:
        access = memory.access.get(doc["id"]) if memory.access is not None else NEVER
        last = max(epoch_ms(doc.get("updated_at")), access.last_ms)
        importance = importance_of(doc.get("metadata") or {}, config.importance_key)
        scored.append(Scored(doc["id"], retention_score(now_ms - last, access.count,
                                                        importance, config)))
    victims = over_budget(scored, config.budget)
    for victim in victims:
        memory.remove(by_id[victim.memory_id], FORGET_ACTOR,
                      {"forgotten": {"score": round(victim.score, 6), "budget": config.budget}})
        if memory.access is not None:
            memory.access.forget(victim.memory_id)
    return len(victims)
