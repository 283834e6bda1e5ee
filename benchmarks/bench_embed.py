"""MiniLM (numpy backend) throughput inside a job against the same model outside Flink.

    python -m benchmarks.run --only bench_embed --reuse      (--quick: 64 texts)
    make bench-embed BENCH_EMBED_ARGS="--texts 640 --batch 32"   (prints the JSON only)

Outside: this process embeds the texts in batches. Inside: one job, parallelism 1, each event
embeds one batch with ``ctx.memory.embed`` and reports the seconds the call took (so job
start-up is not counted). Outside runs before and after the job; the ratio uses their mean.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from pyflink.common import Types

from flink_agents_memory import Agent, AgentsExecutionEnvironment, InputEvent, OutputEvent, action
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.models import MiniLMEmbedder

from .common import bench_env, keyed_input, machine

NAME = "embed"
TITLE = "Embedding inside a job vs outside Flink (MiniLM, numpy)"
COMMAND = "python -m benchmarks.run --only bench_embed --reuse"

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


def measure(n: int, batch: int) -> dict[str, Any]:
    before = outside(n, batch)
    job = in_job(n, batch)
    after = outside(n, batch)
    return {"texts": n, "batch": batch, "outside_per_s": [before, after], "in_job_per_s": job,
            "ratio": job / ((before + after) / 2), "machine": machine()}


def run(quick: bool) -> dict[str, Any]:
    return measure(64, 32) if quick else measure(640, 32)


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    outside_mean = sum(r["outside_per_s"]) / 2
    return [{"figure": f"MiniLM embedding throughput in a job vs outside Flink, {r['texts']} "
                       f"texts in batches of {r['batch']}",
             "ours": f"{r['in_job_per_s']:.1f} texts/s",
             "peer": f"{outside_mean:.1f} texts/s (same model, this process)",
             "ratio": r["ratio"], "target": ">= 0.8x", "met": r["ratio"] >= 0.8,
             "command": COMMAND}]


def markdown(r: dict[str, Any]) -> str:
    before, after = r["outside_per_s"]
    return (f"Outside Flink before the job {before:.1f} texts/s, after it {after:.1f}; inside the "
            f"job (`ctx.memory.embed`, one batch of {r['batch']} per event, the call timed in "
            f"the action) {r['in_job_per_s']:.1f} texts/s: {r['ratio']:.2f}x the mean outside.\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--texts", type=int, default=640)
    p.add_argument("--batch", type=int, default=32)
    a = p.parse_args()
    print(json.dumps(measure(a.texts, a.batch)))


if __name__ == "__main__":
    main()
