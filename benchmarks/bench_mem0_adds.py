"""Adds on real text: ours in a job vs mem0, all-MiniLM-L6-v2 embedding on both sides.

Texts: sentences of this repository's docs (benchmarks/texts.py), spread over 10 keys in
batches of 20 per key, as each side's API takes them: one run of 20 ``ctx.memory.add`` calls
(the commit embeds the 20 in one batch) against one mem0 ``add`` of 20 messages with
``infer=False`` (mem0 embeds them one by one). Both embed with the same numpy MiniLM, one BLAS
thread; both load the model before the timed part. The two sides run one after the other in
separate processes, alternating which goes first.

    python -m benchmarks.bench_mem0_adds [--quick]
"""

from __future__ import annotations

import json
import time
from typing import Any

from .common import ROOT, WORK, machine, module_main, peer_python, run_worker
from .texts import doc_sentences

NAME = "mem0_adds"
TITLE = "Adds on real text vs mem0 (MiniLM on both sides)"
COMMAND = "python -m benchmarks.bench_mem0_adds"
KEYS, BATCH = 10, 20
TARGET = 3.0


def embedding_ceiling(texts: list[str]) -> dict[str, Any]:
    """The MiniLM both sides embed with, alone, in this process: texts/s one text a call (as
    mem0 calls it) and BATCH a call (as our commit does), best of two alternating rounds.
    Embedding is most of an add on both sides, so the adds ratio stays near this one."""
    from flink_agents_memory.models.embedders import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    embedder.embed(texts[:BATCH])  # loads the model
    one: list[float] = []
    batched: list[float] = []
    for _ in range(2):
        start = time.perf_counter()
        for text in texts:
            embedder.embed([text])
        one.append(len(texts) / (time.perf_counter() - start))
        start = time.perf_counter()
        for s in range(0, len(texts), BATCH):
            embedder.embed(texts[s:s + BATCH])
        batched.append(len(texts) / (time.perf_counter() - start))
    return {"texts": len(texts), "one_per_s": max(one), "batch_per_s": max(batched),
            "ceiling": max(batched) / max(one)}


def run(quick: bool) -> dict[str, Any]:
    mem0_python = peer_python("mem0")
    n = 200 if quick else 1000
    texts = WORK / f"adds-{n}.json"
    texts.parent.mkdir(parents=True, exist_ok=True)
    texts.write_text(json.dumps(doc_sentences(n)), encoding="utf-8")
    args = ["--texts", str(texts), "--keys", str(KEYS), "--batch", str(BATCH)]
    sides = [("ours", str(ROOT / ".venv" / "bin" / "python"), "benchmarks.peers.adds_job"),
             ("mem0", mem0_python, "benchmarks.peers.mem0_adds_worker")]
    reps = 1 if quick else 2
    out: dict[str, list[dict[str, Any]]] = {"ours": [], "mem0": []}
    for rep in range(reps):
        for name, python, module in sides if rep % 2 == 0 else sides[::-1]:
            out[name].append(run_worker(python, module, args, timeout_s=3600))
    texts.unlink()
    ceiling = embedding_ceiling(doc_sentences(n)[:200])
    best = {name: max(r["adds_per_s"] for r in runs) for name, runs in out.items()}
    return {"machine": machine(), "texts": n, "keys": KEYS, "batch": BATCH, "reps": reps,
            "runs": out, "ours_per_s": best["ours"], "mem0_per_s": best["mem0"],
            "ratio": best["ours"] / best["mem0"], "embedding": ceiling}


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    return [{
        "figure": f"add throughput on real text, MiniLM embedding on both sides, "
                  f"{r['texts']:,} texts, {r['keys']} keys, batches of {r['batch']}",
        "ours": f"{r['ours_per_s']:,.0f} /s", "peer": f"{r['mem0_per_s']:,.0f} /s (mem0)",
        "ratio": r["ratio"], "target": f">= {TARGET:.0f}x", "met": r["ratio"] >= TARGET,
        "command": COMMAND},
        {"figure": f"embedding alone, the same MiniLM: {BATCH} texts a call vs one a call "
                   f"({r['embedding']['texts']} texts; the most batching can give the adds "
                   "ratio)",
         "ours": f"{r['embedding']['batch_per_s']:,.0f} /s",
         "peer": f"{r['embedding']['one_per_s']:,.0f} /s (one a call)",
         "ratio": r["embedding"]["ceiling"], "target": "(reported)", "met": None,
         "command": COMMAND}]


def markdown(r: dict[str, Any]) -> str:
    e = r["embedding"]

    def runs(name: str) -> str:
        return ", ".join(f"{x['adds_per_s']:,.0f}" for x in r["runs"][name])

    return "\n".join([
        f"{r['texts']:,} sentences of this repository's docs over {r['keys']} keys, "
        f"{r['batch']} per run (ours: one run of {r['batch']} `ctx.memory.add`, embedded in "
        f"one batch at commit) or per call (mem0: `add` of {r['batch']} messages, "
        "`infer=False`, each embedded alone); all-MiniLM-L6-v2 in numpy, one BLAS thread, on "
        f"both sides; the best of {r['reps']} alternating runs per side.", "",
        "| side | memories/s (best) | all runs |", "|---|---|---|",
        f"| ours (MiniCluster job) | {r['ours_per_s']:,.0f} | {runs('ours')} |",
        f"| mem0 (Qdrant local, SQLite history) | {r['mem0_per_s']:,.0f} | {runs('mem0')} |",
        "", f"Ratio ours/mem0: {r['ratio']:.2f}x (target >= {TARGET:.0f}x).", "",
        f"The embedder alone, in the benchmark's process: {e['batch_per_s']:,.0f} texts/s "
        f"{r['batch']} a call against {e['one_per_s']:,.0f} one a call ({e['ceiling']:.2f}x, "
        f"best of 2 alternating rounds over {e['texts']} texts). Embedding is most of an add "
        "on both sides (mem0's add costs ~2.4 ms more than its embedding: 425 adds/s with the "
        "hashing embedder in bench_mem0), so with the same model the adds ratio stays near "
        "this one: a ratio of 3 needs an embedding that costs less per text, not a faster "
        "memory."])


if __name__ == "__main__":
    module_main(run, __doc__)
