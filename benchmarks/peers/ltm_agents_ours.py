"""Our long-term memory agent for the in-job benchmarks (importable, so not __main__)."""

from __future__ import annotations

import time
from typing import Any

from flink_agents_memory import Agent, InputEvent, action
from flink_agents_memory.memory.long_term import LongTermMemoryConfig

from .agent_job import append_rows, write_mark
from .precomputed import PrecomputedEmbedder, memory_text, query_text

_marked: set[str] = set()
#: KeyGroupIndex.DEFAULT_QUIET_MILLIS (5 s) plus a margin: an index left without writes this
#: long folds its segments into one at its next read (docs/long_term_memory.md).
QUIET_S = 5.5
#: Searches a segment's HNSW beam calibration needs (BeamCalibration.SAMPLE in java_udf).
CALIBRATION_QUERIES = 64


def _mark(name: str) -> None:
    """Wall clock of the first add / first query, so the driver can time the add phase."""
    if name not in _marked:
        _marked.add(name)
        write_mark(name, time.time())


def settle(ctx: Any) -> None:
    """Leave the index quiet (no writes) for ``QUIET_S``, wait for its merges (the fold into one
    segment included), then calibrate its default HNSW beam: the folded segment's beam is
    calibrated on the 64 searches after the first one that sees it (the first 65 queries,
    untimed, cycling where the corpus has fewer). Writes ``merge_wait.mark`` (seconds) and
    ``hnsw_beam.mark``."""
    time.sleep(QUIET_S)  # quiet: awaitMerges then includes the fold into one segment
    t0 = time.perf_counter()
    ctx.memory._store.awaitMerges()  # the Java LongTermMemoryStore (benchmark only)
    write_mark("merge_wait", time.perf_counter() - t0)
    queries = ctx.memory.config.embedder.query_count
    for j in range(CALIBRATION_QUERIES + 1):
        ctx.memory.search(query_text(j % queries), limit=10, mode="vector")
    ctx.memory._store.awaitCalibration(300_000)
    write_mark("hnsw_beam", ctx.memory._store.hnswBeam())


class LtmAgent(Agent):
    """``"a|<key>|<i>|<n>"`` adds memories i..i+n-1 (one run); ``"q|<key>|<j>|<pass>"``
    searches query j (vector, top 10); ``"s|<key>|0|0"`` leaves the index quiet (no writes) for
    ``QUIET_S``, then waits until the subtask's indexes have finished merging, the fold into one
    segment included, and its HNSW beam's calibration (between the two query passes: fresh
    after loading, then settled).

    The search is timed around ``ctx.memory.search`` (the public API; the embedder only looks
    the query's vector up) and written with the hit numbers to ``$BENCH_LTM_OUT/<thread>.jsonl``.
    The add phase is timed from the first add to the first query (all adds committed: one
    source subtask, parallelism 1, events in order).
    """

    def __init__(self, corpus: str, dim: int, vector_candidates: int | None = None) -> None:
        beam = {} if vector_candidates is None else {"vector_candidates": vector_candidates}
        self.long_term_memory = LongTermMemoryConfig(embedder=PrecomputedEmbedder(corpus, dim),
                                                     default_mode="vector", **beam)

    @action(InputEvent)
    @staticmethod
    def handle(event: InputEvent, ctx: Any) -> None:
        op, _key, num, count = event.input.split("|")
        i = int(num)
        if op == "a":
            _mark("first_add")
            for m in range(i, i + int(count)):
                ctx.memory.add(memory_text(m))
            return
        _mark("first_query")
        if op == "s":
            settle(ctx)
            return
        t0 = time.perf_counter_ns()
        hits = ctx.memory.search(query_text(i), limit=10, mode="vector")
        us = (time.perf_counter_ns() - t0) / 1000
        found = [int(h.memory.split(" ", 1)[0][1:]) for h in hits]
        append_rows([{"q": i, "pass": int(count), "us": us, "found": found}])
