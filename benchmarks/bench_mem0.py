"""Long-term memory: ours inside a job vs mem0 (``mem0ai``, ``infer=False``), issue 8.

Same corpus (synthetic clustered 384-dim unit vectors, memories spread over 100 keys), same
queries, same vectors: both sides look them up instead of embedding (embedding excluded on
both sides; the vectors stand for any embedder's, e.g. HashingEmbedder's or MiniLM's). mem0
runs in its own venv (.bench/venvs/mem0) with its default local vector store (Qdrant local
mode) and SQLite history; ours in a MiniCluster job, one ``ctx.memory.add`` per event (mem0:
one ``add`` per call) and ``ctx.memory.search(q, limit=10, mode="vector")`` (mem0:
``search(q, top_k=10, filters={"user_id": key}, threshold=0)``), each query twice: right after
the adds, then again (ours waits for Lucene's merges in between); the second pass is compared.
Recall@10 is against exact search over the query's key. The two sides run one after the other,
alternating order by size.

MiniLM is not run: PyPI's torch wheel for Linux is the multi-GB CUDA build and the models
extra would have to go into .venv; the vectors here are what any embedder would hand over.

    python -m benchmarks.bench_mem0 [--quick]
"""

from __future__ import annotations

from typing import Any

from .common import ROOT, WORK, machine, module_main, peer_python, percentiles, run_worker
from .data import recall_at_k, truth_per_key, write_corpus

NAME = "mem0"
TITLE = "Long-term memory vs mem0"
COMMAND = "python -m benchmarks.bench_mem0"
KEYS = 100


def run(quick: bool) -> dict[str, Any]:
    mem0_python = peer_python("mem0")
    sizes = [1_000] if quick else [10_000]
    queries = 50 if quick else 200
    out: list[dict[str, Any]] = []
    for i, n in enumerate(sizes):
        corpus = WORK / f"mem0-{n}.npz"
        data = write_corpus(corpus, n, KEYS, queries, seed=11)
        truth = truth_per_key(data)
        sides = [("ours", str(ROOT / ".venv" / "bin" / "python"), "benchmarks.peers.ltm_job"),
                 ("mem0", mem0_python, "benchmarks.peers.mem0_worker")]
        if i % 2:
            sides.reverse()
        row: dict[str, Any] = {"items": n, "keys": KEYS, "queries": queries}
        for name, python, module in sides:
            r = run_worker(python, module, ["--corpus", str(corpus)], timeout_s=3600)
            # Both sides search the same queries twice: the first pass right after the adds
            # (it carries the JVM's JIT warm-up on our side), the second is the comparison.
            row[name] = {"adds_per_s": r["adds_per_s"], "search_us": percentiles(r["search_us"]),
                         "recall_at_10": recall_at_k(r["found"], truth),
                         "first_pass_search_us": percentiles(r["fresh_search_us"])}
            if "mem0_version" in r:
                row["mem0_version"] = r["mem0_version"]
        row["p95_ratio"] = row["mem0"]["search_us"]["p95"] / row["ours"]["search_us"]["p95"]
        out.append(row)
        corpus.unlink()
    return {"machine": machine(), "results": out}


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for x in r["results"]:
        o, m = x["ours"], x["mem0"]
        label = f"{x['items']:,} memories, {x['keys']} keys"
        out += [
            {"figure": f"search p95, {label} (ours in a job vs mem0 {x['mem0_version']})",
             "ours": f"{o['search_us']['p95'] / 1000:.2f} ms",
             "peer": f"{m['search_us']['p95'] / 1000:.2f} ms", "ratio": x["p95_ratio"],
             "target": ">= 5x lower", "met": x["p95_ratio"] >= 5, "command": COMMAND},
            {"figure": f"recall@10 vs exact, {label}", "ours": f"{o['recall_at_10']:.3f}",
             "peer": f"{m['recall_at_10']:.3f}",
             "ratio": o["recall_at_10"] / max(m["recall_at_10"], 1e-9), "target": "no lower",
             "met": o["recall_at_10"] >= m["recall_at_10"], "command": COMMAND},
            {"figure": f"add throughput, one memory per call, {label}",
             "ours": f"{o['adds_per_s']:,.0f} /s", "peer": f"{m['adds_per_s']:,.0f} /s",
             "ratio": o["adds_per_s"] / m["adds_per_s"], "target": "(reported)", "met": None,
             "command": COMMAND}]
    return out


def markdown(r: dict[str, Any]) -> str:
    lines = ["| memories | side | adds/s | search p50 ms | p95 ms | p99 ms | recall@10 |",
             "|---|---|---|---|---|---|---|"]
    for x in r["results"]:
        for side in ("ours", "mem0"):
            s = x[side]
            us = s["search_us"]
            lines.append(f"| {x['items']:,} | {side} | {s['adds_per_s']:,.0f} | "
                         f"{us['p50'] / 1000:.2f} | {us['p95'] / 1000:.2f} | "
                         f"{us['p99'] / 1000:.2f} | {s['recall_at_10']:.3f} |")
    lines += ["", "Search figures are each side's second pass over the same queries. The first "
              "pass, right after the adds (ours: the JVM still compiling the search path, "
              "p50 / p95 ms): " + "; ".join(
                  f"{x['items']:,} memories ours "
                  f"{x['ours']['first_pass_search_us']['p50'] / 1000:.2f} / "
                  f"{x['ours']['first_pass_search_us']['p95'] / 1000:.2f}, mem0 "
                  f"{x['mem0']['first_pass_search_us']['p50'] / 1000:.2f} / "
                  f"{x['mem0']['first_pass_search_us']['p95'] / 1000:.2f}"
                  for x in r["results"]) + "."]
    return "\n".join(lines)


def main() -> None:
    module_main(run, __doc__)


if __name__ == "__main__":
    main()
