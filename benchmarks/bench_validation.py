"""Input checks: what refusing bad data before anything is written costs per API call.

For each call (short-term ``set`` of a small and of a 1,000-item value, ``ctx.memory.add``
with metadata, ``ctx.memory.search`` with a filter) the checks that call runs
(flink_agents_memory/memory/validation.py and filters.py, with the default ``MemoryLimits``)
are timed alone, and the whole call is timed inside runs of the reference runner
(LocalAgentRunner; long-term memory on the real Lucene store over py4j), ``CALLS`` calls per
run. The share is checks / whole call. Medians over ``reps`` batches, the two sides
alternating.

    python -m benchmarks.run --only bench_validation --reuse   # or: -m benchmarks.bench_validation
"""

from __future__ import annotations

import itertools
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flink_agents_memory import Agent, InputEvent, action
from flink_agents_memory.memory.filters import (
    check_filters,
    check_limit,
    check_min_score,
    check_query,
)
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.memory.short_term import check_path
from flink_agents_memory.memory.validation import (
    DEFAULT_LIMITS,
    check_key,
    check_memory_text,
    check_metadata,
    check_value,
)
from flink_agents_memory.models import HashingEmbedder
from flink_agents_memory.runtime.local import LocalAgentRunner

from .common import abba, machine, module_main
from .index_store import IndexStore

NAME = "validation"
TITLE = "Input checks: cost per call"
COMMAND = "python -m benchmarks.run --only bench_validation --reuse"
CALLS = 20  # calls per run: the runner's own cost per run is spread over them

SMALL = {"name": "Ada", "visits": 12, "score": 0.75, "tags": ["tea", "jazz"], "vip": True}
LARGE = [{"seq": i, "text": f"event {i} about tea", "ok": i % 2 == 0} for i in range(1000)]
TEXT = "The user said they like green tea in the morning and jazz in the evening. " * 3
METADATA = {"topic": "drinks", "seq": 7, "tags": ["tea", "morning"], "source": "chat"}
FILTERS = {"topic": "drinks", "seq": {"gte": 3}, "tags": {"in": ["tea", "coffee"]}}


def checks_of(case: str) -> Callable[[], Any]:
    """The checks the call of ``case`` runs, as the API runs them."""
    limits = DEFAULT_LIMITS
    if case.startswith("set"):
        value = SMALL if case == "set small" else LARGE
        return lambda: (check_path("profile.user"),
                        check_value(value, "value for 'profile.user'", limits))
    if case == "add":
        return lambda: (check_memory_text(TEXT, "ctx.memory.add", limits),
                        check_metadata(METADATA, "ctx.memory.add", limits),
                        check_key("k1", limits))
    return lambda: (check_query("green tea", "ctx.memory.search", limits),
                    check_limit(5, "ctx.memory.search", limits),
                    check_min_score(None, "ctx.memory.search"),
                    check_filters(FILTERS, "ctx.memory.search", limits))


class CallAgent(Agent):
    """Makes one kind of call ``CALLS`` times per run."""

    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(64))

    def __init__(self, case: str) -> None:
        self.case = case

    @action(InputEvent)
    def call(self, event: InputEvent, ctx: Any) -> None:
        stm = ctx.get_short_term_memory()
        for i in range(CALLS):
            if self.case == "set small":
                stm.set("profile.user", SMALL)
            elif self.case == "set 1,000 items":
                stm.set("profile.user", LARGE)
            elif self.case == "add":
                ctx.memory.add(f"{TEXT} {event.input} {i}", metadata=METADATA)
            else:
                ctx.memory.search("green tea", limit=5, filters=FILTERS)


def per_call_us(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) / calls * 1e6


def runs_of(runner: LocalAgentRunner, store: IndexStore, runs: int) -> Callable[[], None]:
    """A batch of ``runs`` runs over 8 keys, each input new (ids never repeat)."""
    counter = itertools.count()

    def batch() -> None:
        for _ in range(runs):
            seq = next(counter)
            store.set_key(f"k{seq % 8}")
            runner.run(f"k{seq % 8}", str(seq))

    return batch


def measure(runs: int, reps: int) -> dict[str, Any]:
    cases = ["set small", "set 1,000 items", "add", "search"]
    out: dict[str, Any] = {"runs": runs, "reps": reps, "calls_per_run": CALLS,
                           "machine": machine(), "cases": {}}
    with tempfile.TemporaryDirectory(prefix="bench-validation-") as tmp:
        store = IndexStore(Path(tmp))
        try:
            for case in cases:
                check = checks_of(case)
                batch_of_runs = runs_of(LocalAgentRunner(CallAgent(case), store=store.store),
                                        store, runs)

                def batch_of_checks(c: Callable[[], Any] = check) -> None:
                    for _ in range(runs * CALLS):
                        c()

                batch_of_runs()  # warm-up: the index exists, the JIT has run
                sides = {"checks": (batch_of_checks, runs * CALLS),
                         "call": (batch_of_runs, runs * CALLS)}
                samples: dict[str, list[float]] = {name: [] for name in sides}
                for rep in range(reps):
                    for name in abba(list(sides), rep):
                        fn, calls = sides[name]
                        samples[name].append(per_call_us(fn, calls))
                checks_us = statistics.median(samples["checks"])
                call_us = statistics.median(samples["call"])
                out["cases"][case] = {"checks_us": checks_us, "call_us": call_us,
                                      "share": checks_us / call_us, "samples": samples}
        finally:
            store.close()
    return out


def run(quick: bool) -> dict[str, Any]:
    return measure(runs=20, reps=3) if quick else measure(runs=50, reps=5)


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"figure": f"input checks of one `{case}` call: time, and share of the whole call",
             "ours": f"{c['checks_us']:.1f} us ({c['share']:.1%})",
             "peer": f"{c['call_us']:.0f} us whole call", "ratio": c["share"],
             "target": "- (measured)", "met": None, "command": COMMAND}
            for case, c in r["cases"].items()]


def markdown(r: dict[str, Any]) -> str:
    lines = [
        f"{r['reps']} batches per side, alternating; a batch is {r['runs']} runs of "
        f"{r['calls_per_run']} calls (checks alone: as many check sequences). `set`: "
        "`stm.set(\"profile.user\", value)` with a 5-field dict, or with a list of 1,000 "
        "3-field dicts (~40 KB); `add`: a 230-char text with 4 metadata fields (buffered in the "
        "run, written to Lucene at its end); `search`: hybrid search, limit 5, a 3-field "
        "filter. Long-term calls cross py4j here (~0.1 ms per crossing that PEMJA, in a job, "
        "does not pay), so their share in a job is somewhat higher than shown.", "",
        "| call | checks (us) | whole call (us) | share |", "|---|---|---|---|"]
    for case, c in r["cases"].items():
        lines.append(f"| `{case}` | {c['checks_us']:.1f} | {c['call_us']:.0f} | "
                     f"{c['share']:.1%} |")
    return "\n".join(lines)


if __name__ == "__main__":
    module_main(run, __doc__)
