"""bench_ltm_writes' write streams inside a job (importable, so not __main__).

Events ``"<op>|<key>|<i>|<n>"``, in order from one source subtask (the one-key stream's key is
``k0``):

* ``a``: load, add memories i..i+n-1 in one run;
* ``s``: settle (benchmarks/peers/ltm_agents_ours.py ``settle``);
* ``q``: search query i, timed, as pass n (1: settled, before the stream; 2: the segments the
  stream left, after it);
* ``w``: tick i of the one-key stream: add ``PER_TICK`` memories from number n on in one run,
  committed at its end as any run's adds are. The first ``w`` starts the stream's clock;
* ``r``: the rest of tick i: search (queries in turn) until the tick's 50 ms are over, at least
  once. Its first search is the first after the add, which makes the add visible;
* ``m``: a run of the many-keys stream: search (timed) under the event's key, then add memory
  n to that key, committed at the run's end. The first ``m`` starts the stream's clock;
* ``p``: the rest of the many-keys stream's tick i: wait until its 50 ms are over.

So in the one-key stream one key gets a batch of memories every 50 ms and searches in
between, on the task thread as an agent's would, through ``ctx.memory`` (PEMJA, not py4j).
Each search is timed around ``ctx.memory.search`` and written (after the run's searches,
outside the timing) to
``$BENCH_LTM_OUT/<thread>.jsonl`` as ``{"pass", "first", "us"}`` (pass 0: the stream, whose
rows also say when in it the search began: ``"t"``, seconds).
"""

from __future__ import annotations

import itertools
import time
from typing import Any

from flink_agents_memory import Agent, InputEvent, action
from flink_agents_memory.memory.long_term import LongTermMemoryConfig

from .agent_job import append_rows, write_mark
from .ltm_agents_ours import settle
from .precomputed import PrecomputedEmbedder, memory_text, query_text

TICK_S = 0.05
#: Memories added per tick: 200 a second.
PER_TICK = 10
_clock: dict[str, float] = {}
#: Queries are searched in turn over the whole job.
_searches = itertools.count()


def _search(ctx: Any) -> float:
    """One timed search of the next query; its microseconds."""
    j = next(_searches) % ctx.memory.config.embedder.query_count
    t0 = time.perf_counter_ns()
    ctx.memory.search(query_text(j), limit=10, mode="vector")
    return (time.perf_counter_ns() - t0) / 1000


def _stream_s() -> float:
    """Seconds since the stream's first tick."""
    return time.perf_counter() - _clock["start"]


class StreamAgent(Agent):
    def __init__(self, corpus: str, dim: int) -> None:
        self.long_term_memory = LongTermMemoryConfig(embedder=PrecomputedEmbedder(corpus, dim),
                                                     default_mode="vector")

    @action(InputEvent)
    @staticmethod
    def handle(event: InputEvent, ctx: Any) -> None:
        op, _key, num, count = event.input.split("|")
        i, n = int(num), int(count)
        if op == "a":
            for m in range(i, i + n):
                ctx.memory.add(memory_text(m))
        elif op == "s":
            settle(ctx)
        elif op == "q":
            append_rows([{"pass": n, "first": False, "us": _search(ctx)}])
        elif op == "w":
            _clock.setdefault("start", time.perf_counter())
            for m in range(n, n + PER_TICK):
                ctx.memory.add(memory_text(m))
        elif op == "r":
            deadline = _clock["start"] + (i + 1) * TICK_S
            rows = [{"pass": 0, "first": True, "t": _stream_s(), "us": _search(ctx)}]
            while time.perf_counter() < deadline:
                rows.append({"pass": 0, "first": False, "t": _stream_s(), "us": _search(ctx)})
            append_rows(rows)
            write_mark("stream_end", _stream_s())
        elif op == "m":
            _clock.setdefault("start", time.perf_counter())
            append_rows([{"pass": 0, "first": False, "t": _stream_s(), "us": _search(ctx)}])
            ctx.memory.add(memory_text(n))
        elif op == "p":
            time.sleep(max(0.0, _clock["start"] + (i + 1) * TICK_S - time.perf_counter()))
            write_mark("stream_end", _stream_s())
