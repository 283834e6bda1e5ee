"""An agent that uses every memory kind and reports, per event, a digest of the key's memory.

Used by the restore, rescale and cluster tests: their oracle is the same agent run over the
same input without failure (LuceneRunner, no Flink), compared key by key. The digest holds the
short-term counter, the history, every long-term memory (id and text) and a vector search."""

from __future__ import annotations

import json
from pathlib import Path

from flink_agents_memory import Agent, InputEvent, OutputEvent, action
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.memory.retention import Retention
from flink_agents_memory.models import HashingEmbedder

TOPICS = ["tea", "hiking", "jazz", "chess", "rain"]


class DigestAgent(Agent):
    histories = {"recent": Retention(max_items=3)}
    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(64))

    def __init__(self, out_file: str | None = None, fail_marker: str | None = None,
                 checkpoint_dir: str | None = None, fail_from: int = -1,
                 fail_trigger: str | None = None) -> None:
        """``fail_marker``: fail once (the marker records it), from event ``fail_from`` on once
        ``checkpoint_dir`` holds a completed checkpoint, or as soon as the file
        ``fail_trigger`` exists (the test decides when)."""
        self.out_file = out_file
        self.fail_marker = fail_marker
        self.checkpoint_dir = checkpoint_dir
        self.fail_from = fail_from
        self.fail_trigger = fail_trigger

    @action(InputEvent)
    def remember(self, event, ctx):
        key, seq_text = event.input.split("|")
        seq = int(seq_text)
        stm = ctx.get_short_term_memory()
        count = (stm.get("count") or 0) + 1
        stm.set("count", count)
        ctx.history("recent").append(seq)
        memory = ctx.memory
        memory.add(f"{key} event {seq} about {TOPICS[seq % len(TOPICS)]}",
                   metadata={"seq": seq})
        stored = sorted(memory.get_all(limit=1000), key=lambda m: m.metadata["seq"])
        if count % 4 == 0:
            memory.update(stored[0].id, f"{key} summary at {seq}")
        if count % 7 == 0:
            memory.delete(stored[1].id)
        self._maybe_fail(seq)
        digest = {
            "key": key,
            "seq": seq,
            "count": count,
            "recent": ctx.history("recent").all(),
            # vector scores depend only on the key's own documents (BM25's statistics would
            # depend on whatever else shares the key group), so this is replay-deterministic
            "search": search_digest(memory.search(TOPICS[seq % 5], limit=3, mode="vector")),
            "ltm": sorted([m.id, m.memory] for m in memory.get_all(limit=1000)),
        }
        line = json.dumps(digest)
        if self.out_file:
            with open(self.out_file, "a") as f:
                f.write(line + "\n")
        ctx.send_event(OutputEvent(output=line))

    def _maybe_fail(self, seq: int) -> None:
        if not self.fail_marker or Path(self.fail_marker).exists():
            return
        if self.fail_trigger:
            due = Path(self.fail_trigger).exists()
        else:
            due = (seq >= self.fail_from
                   and any(Path(self.checkpoint_dir).glob("*/chk-*/_metadata")))
        if due:
            Path(self.fail_marker).write_text(str(seq))
            raise RuntimeError(f"injected failure at {seq}")


def search_digest(hits: list) -> dict:
    """The scores of the top hits, and the ids of those strictly above the last score: which of
    several equally scored documents fills the last places is arbitrary (index order)."""
    scores = [round(h.score, 5) for h in hits]
    cut = scores[-1] if scores else 0
    return {"scores": scores, "ids": sorted(h.id for h, s in zip(hits, scores, strict=True)
                                            if s > cut)}


def last_digest_per_key(lines: list[str]) -> dict[str, dict]:
    final: dict[str, dict] = {}
    for raw in lines:
        digest = json.loads(raw)
        final[digest["key"]] = digest
    return final


def read_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def oracle_lines(inputs: list[str], index_dir: Path) -> list[str]:
    """The digest of every event in a failure-free run without Flink (same agent, real Lucene)."""
    from lucene_store import LuceneRunner, LuceneStore

    lucene = LuceneStore(index_dir)
    try:
        runner = LuceneRunner(DigestAgent(), lucene)
        return [runner.run(line.split("|")[0], line)[0] for line in inputs]
    finally:
        lucene.close()


def oracle(inputs: list[str], index_dir: Path) -> dict[str, dict]:
    """The final digest per key of a failure-free run without Flink."""
    return last_digest_per_key(oracle_lines(inputs, index_dir))
