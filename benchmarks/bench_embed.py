"""MiniLM (numpy backend) throughput inside a job against the same model outside Flink.

    python -m benchmarks.bench_embed [--texts 640] [--batch 32]

Outside: this process embeds the texts in batches. Inside: one job, parallelism 1, each event
embeds one batch with ``ctx.memory.embed`` and reports the seconds the call took (so job
start-up is not counted). Outside runs before and after the job; the ratio uses their mean.
"""

from __future__ import annotations

import argparse
import json
import time

from pyflink.common import Types

from flink_agents_memory import Agent, AgentsExecutionEnvironment, InputEvent, OutputEvent, action
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.models import MiniLMEmbedder

from .common import bench_env, keyed_input

SENTENCE = ("we went hiking near the lake last summer and my sister brought her new dog "
            "who loved the water but hated the long drive back home that evening")


def texts(n: int) -> list[str]:
    """Chat-like sentences of 8-20 words, all different."""
    words = SENTENCE.split()
    return [" ".join(words[i % 7: i % 7 + 8 + i % 13]) + f" ({i})" for i in range(n)]


class EmbedAgent(Agent):
    """Embeds batch ``i`` of the texts and outputs how long the call took."""

    long_term_memory = LongTermMemoryConfig(embedder=MiniLMEmbedder())

    def __init__(self, count: int, batch: int) -> None:
        # Instance attributes travel with the pickled agent (class attributes are re-read).
        self.count, self.batch = count, batch

    @action(InputEvent)
    def embed(self, event, ctx):
        i = int(event.input.split("|")[1])
        chunk = texts(self.count)[i * self.batch:(i + 1) * self.batch]
        if i == 0:
            ctx.memory.embed(["warm-up"])  # loads the model outside the timed call
        start = time.perf_counter()
        ctx.memory.embed(chunk)
        ctx.send_event(OutputEvent(output=json.dumps(
            {"texts": len(chunk), "s": time.perf_counter() - start})))


def outside(n: int, batch: int) -> float:
    e = MiniLMEmbedder(batch_size=batch)
    e.embed(["warm-up"])
    all_texts = texts(n)
    start = time.perf_counter()
    for i in range(0, n, batch):
        e.embed(all_texts[i:i + batch])
    return n / (time.perf_counter() - start)


def in_job(n: int, batch: int) -> float:
    env = bench_env(1)
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = keyed_input(env, (n + batch - 1) // batch, 1)
    out = agents.from_datastream(ds, lambda v: v.split("|")[0]).apply(EmbedAgent(n, batch)) \
        .to_datastream(Types.STRING())
    with out.execute_and_collect() as results:
        rows = [json.loads(r) for r in results]
    return sum(r["texts"] for r in rows) / sum(r["s"] for r in rows)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--texts", type=int, default=640)
    p.add_argument("--batch", type=int, default=32)
    a = p.parse_args()
    before = outside(a.texts, a.batch)
    job = in_job(a.texts, a.batch)
    after = outside(a.texts, a.batch)
    mean = (before + after) / 2
    print(json.dumps({"texts": a.texts, "batch": a.batch, "outside_per_s": [before, after],
                      "in_job_per_s": job, "ratio": job / mean}))


if __name__ == "__main__":
    main()
