"""Maintenance of long-term memory: what a pass costs per key, how much the index shrinks, and
evidence recall@10 on REALTALK with maintenance on and off.

    python -m benchmarks.bench_maintenance [--quick]     (needs make bench-retrieval-data)

Each REALTALK chat is one key and each turn one memory (``speaker: text``), as in
bench_retrieval. Both sides load the same turns into the real Lucene index (driven over py4j
by the local runner, which commits and fires timers as the Flink function does); half of each
chat's questions (every other one) is then asked, as an agent in use would, and their hits count
as accesses; one side runs a maintenance pass per key (consolidation, keep-newest, at each
threshold; or forgetting over a per-key budget of 95%, 90% or 85% of the key's memories), the
other not. The other half of the questions, never asked before, is then asked with the default
(hybrid) search, top 10, and recall is measured on it. A turn merged into another counts as
found when its survivor is returned: the survivor is at least ``threshold`` similar and stands
for it; a forgotten turn is not found. The embedder serves the cached all-MiniLM-L6-v2 vectors of
bench_retrieval, so both sides see the same vectors and no time goes into embedding. Times go
through py4j (about 0.1 ms a call that PEMJA, in a job, does not pay): read them as an upper
bound.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from flink_agents_memory import (
    Agent,
    AgentConfig,
    Consolidation,
    Forgetting,
    InputEvent,
    LongTermMemoryConfig,
    MaintenanceConfig,
    OutputEvent,
    action,
)
from flink_agents_memory.runtime.local import LocalAgentRunner

from .common import machine, module_main
from .index_store import IndexStore
from .realtalk import Chat, Question, cached_vectors, load, missing_data

NAME = "maintenance"
TITLE = "Maintenance: cost per key, index shrink, recall@10 on and off (REALTALK)"
COMMAND = "python -m benchmarks.bench_maintenance"
BATCH = 200
K = 10
#: Forgetting's budgets per key, as shares of the key's memories (5%, 10%, 15% forgotten).
KEEPS = (0.95, 0.9, 0.85)

#: A side's maintenance of a chat's key (the budget is per key); None: maintenance off.
Side = Callable[[Chat], MaintenanceConfig] | None


def consolidating(threshold: float) -> Side:
    """Keep-newest consolidation at ``threshold``, every memory compared in one pass."""
    return lambda chat: MaintenanceConfig(
        interval_ms=1, consolidation=Consolidation(threshold=threshold,
                                                   max_memories_per_pass=100_000))


def forgetting(keep: float) -> Side:
    """Forgetting over a budget of ``keep`` of the chat's turns (default half-life and
    weights): the hits of the questions asked before the pass are the accesses it weighs."""
    return lambda chat: MaintenanceConfig(
        interval_ms=1, forgetting=Forgetting(budget=math.ceil(keep * len(chat.turns))))


class TableEmbedder:
    """Serves precomputed vectors by text (the cached MiniLM vectors of every turn/question)."""

    def __init__(self, table: dict[str, np.ndarray], dim: int) -> None:
        self._table = table
        self._dim = dim

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._table[t] for t in texts])


class Call(Agent):
    """Runs the callable given as input against ctx."""

    @action(InputEvent)
    @staticmethod
    def call(event, ctx):
        ctx.send_event(OutputEvent(output=event.input(ctx)))


class IndexRunner(LocalAgentRunner):
    """The local runner on the real Lucene store: each run and pass scopes the store's key."""

    def __init__(self, agent: Agent, index: IndexStore) -> None:
        self.index = index
        self.now = 1_700_000_000_000
        super().__init__(agent, AgentConfig(), store=index.store, clock=self._tick)

    def _tick(self) -> int:
        self.now += 1
        return self.now

    def _use_key(self, key: Any) -> None:
        self.index.set_key(str(key))
        super()._use_key(key)

    def do(self, key: str, fn: Any) -> Any:
        return self.run(key, fn)[0]


def table_for(chats: list[Chat]) -> dict[str, np.ndarray]:
    from flink_agents_memory.models import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    table: dict[str, np.ndarray] = {}
    for chat in chats:
        for texts in ([t.memory() for t in chat.turns], [q.question for q in chat.questions]):
            table.update(zip(texts, cached_vectors("minilm", texts, embedder.embed),
                             strict=True))
    return table


def load_chat(runner: IndexRunner, chat: Chat) -> dict[str, int]:
    """Add every turn as a memory (batches of BATCH per run); memory id -> turn index."""
    ids: dict[str, int] = {}
    texts = [t.memory() for t in chat.turns]
    for start in range(0, len(texts), BATCH):
        batch = texts[start:start + BATCH]
        added = runner.do(chat.name, lambda c, b=batch: [c.memory.add(t) for t in b])
        ids.update({mid: start + i for i, mid in enumerate(added)})
    return ids


def survivors(runner: IndexRunner, chat: Chat, ids: dict[str, int]) -> dict[int, str]:
    """Turn index -> id of the memory that stands for it now (itself, or what it merged into)."""
    def merged_into(c: Any) -> dict[str, str]:
        # the whole audit trail once (history(id) per memory would re-read it every time)
        return {e.memory_id: e.new_value["merged_into"]
                for e in c.runtime.audit.history.all()
                if e.event == "DELETE" and isinstance(e.new_value, dict)
                and "merged_into" in e.new_value}

    moved = runner.do(chat.name, merged_into)

    def final(memory_id: str) -> str:
        while memory_id in moved:
            memory_id = moved[memory_id]
        return memory_id

    return {turn: final(memory_id) for memory_id, turn in ids.items()}


def asked_before(chat: Chat) -> list[Question]:
    """The questions asked before the pass (every other one): the agent has been in use, and
    their hits count as accesses that forgetting weighs."""
    return chat.questions[0::2]


def measured(chat: Chat) -> list[Question]:
    """The questions recall is measured on: the other half, never asked before the pass."""
    return chat.questions[1::2]


def search_all(runner: IndexRunner, chat: Chat, questions: list[Question]) -> list[list[str]]:
    """Ids of the top ``K`` of each question's default search (each hit counts as an access)."""
    texts = [q.question for q in questions]
    return runner.do(chat.name, lambda c: [[h.id for h in c.memory.search(q, limit=K)]
                                           for q in texts])


def recall_at_k(runner: IndexRunner, chat: Chat, stands_for: dict[int, str]) -> list[float]:
    index = {t.dia_id: i for i, t in enumerate(chat.turns)}
    questions = measured(chat)
    hits = search_all(runner, chat, questions)
    out = []
    for q, ranked in zip(questions, hits, strict=True):
        evidence = {index[e] for e in q.evidence}
        found = sum(1 for e in evidence if stands_for[e] in ranked)
        out.append(found / len(evidence))
    return out


def measure_side(chats: list[Chat], table: dict[str, np.ndarray], side: Side
                 ) -> dict[str, Any]:
    """Load, maybe maintain, then ask: recall, index sizes and pass times of one side. Each
    chat has its own agent (its key's budget) on the one index."""
    with tempfile.TemporaryDirectory(prefix="bench-maint-") as tmp:
        index = IndexStore(Path(tmp))
        try:
            before = after = 0
            pass_s: list[float] = []
            recalls: list[float] = []
            for chat in chats:
                agent = Call()
                agent.long_term_memory = LongTermMemoryConfig(
                    embedder=TableEmbedder(table, 384),
                    maintenance=None if side is None else side(chat),
                    audit=LongTermMemoryConfig().audit.model_copy(update={"max_items": 100_000}))
                runner = IndexRunner(agent, index)
                ids = load_chat(runner, chat)
                before += len(ids)
                search_all(runner, chat, asked_before(chat))
                if side is not None:
                    start = time.perf_counter()
                    runner.fire_timers(runner.now + 10)
                    pass_s.append(time.perf_counter() - start)
                after += runner.do(chat.name, lambda c: len(c.memory.live_docs()))
                recalls += recall_at_k(runner, chat, survivors(runner, chat, ids))
        finally:
            index.close()
    return {"memories_before": before, "memories_after": after,
            "recall@10": float(np.mean(recalls)), "questions": len(recalls),
            "pass_s": pass_s}


def run(quick: bool) -> dict[str, Any]:
    """Both sides over the chats (``quick``: two); a skip without the REALTALK download."""
    if why := missing_data():
        return {"skipped": why}
    chats = load()
    if quick:
        chats = chats[:2]
    thresholds = [0.95] if quick else [0.95, 0.9]
    table = table_for(chats)
    off = measure_side(chats, table, None)
    sides_on: dict[str, Side] = {f"consolidation >= {t}": consolidating(t) for t in thresholds}
    for keep in [KEEPS[-1]] if quick else KEEPS:
        sides_on[f"forgetting, budget {100 * keep:.0f}% of each key"] = forgetting(keep)
    sides = {}
    for label, side in sides_on.items():
        on = measure_side(chats, table, side)
        keys = len(on["pass_s"])
        sides[label] = {
            **on, "pass_ms_per_key": 1000 * float(np.median(on["pass_s"])),
            "pass_us_per_memory": 1e6 * sum(on["pass_s"]) / on["memories_before"],
            "shrink": 1 - on["memories_after"] / on["memories_before"],
            "recall_drop": off["recall@10"] - on["recall@10"], "keys": keys}
    return {"chats": [c.name for c in chats], "off": off, "on": sides, "machine": machine()}


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    if "skipped" in r:
        return [{"figure": "REALTALK recall@10 maintenance on vs off", "ours": "skipped",
                 "peer": "-", "ratio": None, "target": "drop <= 0.01 while the index shrinks",
                 "met": None, "command": COMMAND}]
    out = []
    for label, s in r["on"].items():
        out.append({
            "figure": f"maintenance pass per key ({label}, "
                      f"{s['memories_before'] // s['keys']:,} memories/key, py4j)",
            "ours": f"{s['pass_ms_per_key']:,.0f} ms/key ({s['pass_us_per_memory']:,.0f} "
                    "us/memory)",
            "peer": "-", "ratio": None, "target": "-", "met": None, "command": COMMAND})
        out.append({
            "figure": f"REALTALK recall@10 maintenance on ({label}) vs off; index shrink",
            "ours": f"{s['recall@10']:.3f} on, {r['off']['recall@10']:.3f} off; "
                    f"{100 * s['shrink']:.1f}% fewer memories",
            "peer": "-", "ratio": None, "target": "drop <= 0.01 while the index shrinks",
            "met": s["recall_drop"] <= 0.01 and s["shrink"] > 0, "command": COMMAND})
    return out


def markdown(r: dict[str, Any]) -> str:
    if "skipped" in r:
        return f"Skipped: {r['skipped']}.\n"
    off = r["off"]
    lines = [
        f"Chats (keys): {', '.join(r['chats'])}; {off['memories_before']:,} memories, "
        f"{off['questions']} questions, hybrid search top {K}. Consolidation keeps the newest "
        "of each near-duplicate group; a merged evidence turn counts as found through its "
        "survivor. The pass is each key's first, so every memory is new to it and is compared "
        "with its neighbours; later passes compare only what was written since. Pass times "
        "through py4j (an upper bound of the in-job cost). Before the pass, every other question "
        "of a chat is asked (its top 10 are accesses, and their age restarts); recall is "
        f"measured on the other {off['questions']} questions. Forgetting keeps a budget of a "
        "share of each key's memories; none has an importance, so accesses decide, then "
        f"recency: the turns were loaded in the conversation's order, {BATCH} a run at one "
        "timestamp, so of those never hit the oldest runs' turns go (ties within a run: the "
        "smaller id).", "",
        "| maintenance | memories after | shrink | recall@10 | drop | pass ms/key (median) "
        "| us/memory |", "|---|---|---|---|---|---|---|",
        f"| off | {off['memories_after']:,} | - | {off['recall@10']:.3f} | - | - | - |"]
    for label, s in r["on"].items():
        lines.append(
            f"| {label} | {s['memories_after']:,} | "
            f"{100 * s['shrink']:.1f}% | {s['recall@10']:.3f} | {s['recall_drop']:+.3f} | "
            f"{s['pass_ms_per_key']:,.0f} | {s['pass_us_per_memory']:,.0f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    module_main(run, __doc__)


if __name__ == "__main__":
    main()
