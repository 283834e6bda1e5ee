"""Long-term memory: recall, search latency, add throughput, checkpoint and restore, scaling.

Data (benchmarks/data.py): synthetic clustered unit vectors, 384 dims, 1,000 clusters,
Gaussian noise 0.05 per dimension; queries are fresh draws from the same mixture. Exact top-10
is numpy's brute force over the same rows. Pure-index figures drive the real Java
LongTermMemoryStore over py4j (benchmarks/index_store.py), outside Flink, all items of one key
(so Lucene runs HNSW kNN) unless stated; per-call latencies through py4j include ~0.1 ms of
py4j that a job (PEMJA) does not pay. In-job latency runs a MiniCluster job
(benchmarks/peers/ltm_job.py) and times ``ctx.memory.search`` inside the action.

    python -m benchmarks.bench_ltm [--quick]
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from flink_agents_memory.models.embedders import HashingEmbedder

from .common import (
    PRE_CALIBRATION_BEAM,
    ROOT,
    WORK,
    default_beam_label,
    machine,
    module_main,
    percentiles,
    run_worker,
    save_figure,
)
from .data import (
    clustered_unit_vectors,
    exact_topk,
    recall_at_k,
    texts,
    truth_per_key,
    write_corpus,
)
from .index_store import IndexStore, key_group
from .real_text_recall import real_text_recall

#: The narrower HNSW beam measured beside the default (LongTermMemoryConfig.vector_candidates).
NARROW_BEAM = 100
NAME = "ltm"
TITLE = "Long-term memory (Lucene index)"
COMMAND = "python -m benchmarks.bench_ltm"


def _fresh(name: str):
    path = WORK / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def numpy_search_us(vectors: np.ndarray, queries: np.ndarray) -> list[float]:
    """numpy exact top-10, one query at a time (what a Python-side exact search costs)."""
    out = []
    for q in queries:
        t0 = time.perf_counter_ns()
        scores = vectors @ q
        top = np.argpartition(-scores, 10)[:10]
        top[np.argsort(-scores[top])]
        out.append((time.perf_counter_ns() - t0) / 1000)
    return out


def index_size(n: int, queries: int, dim: int = 384, keys: int = 1,
               narrow_beams: tuple[int, ...] = (),
               vectors: Callable[[int, int], np.ndarray] | None = None) -> dict[str, Any]:
    """Build one subtask's index of ``n`` items, then measure it (at the default HNSW beam, and
    at each of ``narrow_beams`` under ``by_beam``). ``vectors(count, seed)`` draws the items and
    queries (default: synthetic clustered unit vectors)."""
    if vectors is None:
        vecs, _ = clustered_unit_vectors(n + queries, dim, seed=n)
    else:
        vecs = vectors(n + queries, n)
    data, qs = vecs[:n], vecs[n:]
    work = _fresh(f"ltm-{n}-{keys}")
    store = IndexStore(work / "index")
    key_of = np.arange(n) % keys
    t0 = time.perf_counter()
    for key in range(keys):
        rows = np.nonzero(key_of == key)[0]
        store.set_key(f"k{key}")
        for s in range(0, len(rows), 2000):
            part = rows[s:s + 2000]
            store.add_batch([str(i) for i in part], [f"#{i}" for i in part], data[part])
    store.commit()
    add_s = time.perf_counter() - t0
    merge_s = store.await_merges()
    segments = store.segments()
    for j, q in enumerate(qs):  # untimed pass: the JVM compiles the search path first
        store.set_key(f"k{j % keys}")
        store.search(q, 10)
    hnsw_beam = store.await_calibration()  # the default beam: calibrated on the latest queries
    # The exact answers first: computed between timed searches, numpy's exact search (over
    # 1.5 GB of vectors at 1M, on both cores) slowed the search after it (1M: p95 53 ms against
    # p50 6 ms, where the later passes without it kept p95 within 1.3x of p50).
    truth = []
    for j, q in enumerate(qs):
        rows = np.nonzero(key_of == j % keys)[0]
        truth.append(rows[exact_topk(data[rows], q[None, :])[0]].tolist())
    found, lat = [], []
    for j, q in enumerate(qs):
        store.set_key(f"k{j % keys}")
        t = time.perf_counter_ns()
        ids = store.search(q, 10)
        lat.append((time.perf_counter_ns() - t) / 1000)
        found.append([int(i) for i in ids])
    by_beam: dict[str, Any] = {}
    for beam in narrow_beams:
        beam_found, beam_lat = [], []
        for j, q in enumerate(qs):
            store.set_key(f"k{j % keys}")
            t = time.perf_counter_ns()
            ids = store.search(q, 10, vector_candidates=beam)
            beam_lat.append((time.perf_counter_ns() - t) / 1000)
            beam_found.append([int(i) for i in ids])
        by_beam[str(beam)] = {"recall_at_10": recall_at_k(beam_found, truth),
                              "search_us": percentiles(beam_lat)}
    out: dict[str, Any] = {
        "by_beam": by_beam, "hnsw_beam": hnsw_beam,
        "items": n, "keys": keys, "dim": dim, "queries": queries, "add_s": add_s,
        "adds_per_s": n / add_s, "merge_s": merge_s, "segments": segments,
        "recall_at_10": recall_at_k(found, truth),
        "search_us": percentiles(lat), "numpy_exact_us": percentiles(numpy_search_us(data, qs)),
    }
    out |= snapshot_and_restore(store, work, [f"k{key}" for key in range(keys)], qs[0])
    if keys == 1:
        sample = min(n, 20_000)
        t0 = time.perf_counter()
        HashingEmbedder(dim).embed(texts(sample))
        out["reembed_hashing_s"] = (time.perf_counter() - t0) * n / sample
        out["reembed_hashing_plus_reindex_s"] = out["reembed_hashing_s"] + add_s
    shutil.rmtree(work, ignore_errors=True)
    return out


def snapshot_and_restore(store: IndexStore, work: Path, keys: list[str],
                         query: np.ndarray) -> dict[str, Any]:
    """A full copy of every key group ``keys`` fall in, as the checkpoint hook writes it, then
    all of them restored into a fresh store and each opened by a first search (a restored
    subtask). Closes ``store``."""
    by_group = {key_group(key): key for key in keys}  # one key names its key group
    written, write_s, snapshots = 0, 0.0, []
    for key in by_group.values():
        store.set_key(key)
        path = work / f"snapshot-{key}.bin"
        size, seconds = store.snapshot(key, path)
        written, write_s = written + size, write_s + seconds
        snapshots.append((key, path))
    store.close()
    restored = IndexStore(work / "restored")
    t0 = time.perf_counter()
    for key, path in snapshots:
        restored.restore(path, key)
    for key, _ in snapshots:
        restored.set_key(key)
        restored.search(query, 10)  # opens the index: usable from here on
    restore_s = time.perf_counter() - t0
    restored.close()
    return {"snapshot_bytes": written, "snapshot_s": write_s, "restore_s": restore_s,
            "key_groups": len(snapshots)}


def in_job(n: int, queries: int, batch: int, vector_candidates: int | None = None
           ) -> dict[str, Any]:
    """A MiniCluster job: load, search fresh, settle, search again; None: the default beam."""
    corpus = WORK / f"ltm-job-{n}.npz"
    data = write_corpus(corpus, n, keys=1, queries=queries, seed=7)
    beam = [] if vector_candidates is None else ["--vector-candidates", str(vector_candidates)]
    r = run_worker(str(ROOT / ".venv" / "bin" / "python"), "benchmarks.peers.ltm_job",
                   ["--corpus", str(corpus), "--batch", str(batch), *beam], timeout_s=3000)
    truth = truth_per_key(data)
    numpy_us = numpy_search_us(data["vectors"], data["queries"])
    corpus.unlink()
    return {"items": n, "queries": queries, "batch": batch,
            "vector_candidates": vector_candidates, "hnsw_beam": r["hnsw_beam"],
            "adds_per_s": r["adds_per_s"],
            "merge_wait_s": r["merge_wait_s"],
            "fresh_search_us": percentiles(r["fresh_search_us"]),
            "fresh_recall_at_10": recall_at_k(r["fresh_found"], truth),
            "search_us": percentiles(r["search_us"]), "numpy_exact_us": percentiles(numpy_us),
            "recall_at_10": recall_at_k(r["found"], truth), "job_s": r["job_s"]}


def run(quick: bool) -> dict[str, Any]:
    sizes = [2_000] if quick else [10_000, 100_000]
    queries = 100 if quick else 200
    scaling = [index_size(n, queries) for n in sizes]
    many = index_size(2_000 if quick else 10_000, queries, keys=100)
    # More queries in the job: its percentiles come from one pass, after the JVM compiled the
    # search path during the first ("fresh") pass.
    n_job, q_job = (2_000, 200) if quick else (100_000, 1000)
    job = in_job(n_job, q_job, batch=500)
    narrow = in_job(n_job, q_job, batch=500, vector_candidates=NARROW_BEAM)
    return {"machine": machine(), "quick": quick, "scaling": scaling, "many_keys": many,
            "in_job": job, "in_job_narrow": narrow,
            "real_text": real_text_recall((NARROW_BEAM, None))}


def _largest(r: dict[str, Any]) -> dict[str, Any]:
    return r["scaling"][-1]


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    big, j = _largest(r), r["in_job"]
    return [
        {"figure": f"recall@10 vs exact, {big['items']:,} items x 384 dims, one key (HNSW)",
         "ours": f"{big['recall_at_10']:.3f}", "peer": "1.000 (numpy exact)",
         "ratio": big["recall_at_10"], "target": ">= 0.98 at 100k",
         "met": big["recall_at_10"] >= 0.98, "command": COMMAND},
        {"figure": f"recall@10, {r['many_keys']['items']:,} items over 100 keys (filtered)",
         "ours": f"{r['many_keys']['recall_at_10']:.3f}", "peer": "1.000 (numpy exact)",
         "ratio": r["many_keys"]["recall_at_10"], "target": ">= 0.98",
         "met": r["many_keys"]["recall_at_10"] >= 0.98, "command": COMMAND},
        {"figure": f"search p95 in a running job, {j['items']:,} items, one key, "
                   "embedding excluded, index settled (quiet, merged), default beam "
                   f"({default_beam_label(j)})",
         "ours": f"{j['search_us']['p95'] / 1000:.2f} ms",
         "peer": f"{j['numpy_exact_us']['p95'] / 1000:.2f} ms (numpy exact, same data)",
         "ratio": j["numpy_exact_us"]["p95"] / j["search_us"]["p95"],
         "target": "p95 <= 2 ms at 100k", "met": j["search_us"]["p95"] <= 2000,
         "command": COMMAND},
        *_narrow_rows(r),
        {"figure": f"same, right after loading {j['items']:,} items (merges still running)",
         "ours": f"{j['fresh_search_us']['p95'] / 1000:.2f} ms",
         "peer": f"{j['numpy_exact_us']['p95'] / 1000:.2f} ms (numpy exact, same data)",
         "ratio": j["numpy_exact_us"]["p95"] / j["fresh_search_us"]["p95"],
         "target": "(reported)", "met": None, "command": COMMAND},
        {"figure": f"checkpoint (full copy) of {big['items']:,} items",
         "ours": f"{big['snapshot_bytes'] / 2**20:.0f} MiB in {big['snapshot_s']:.2f} s",
         "peer": "-", "ratio": None, "target": "(reported)", "met": None, "command": COMMAND},
        {"figure": f"restore of {big['items']:,} items vs re-embedding (hashing) + re-indexing",
         "ours": f"{big['restore_s']:.2f} s",
         "peer": f"{big['reembed_hashing_plus_reindex_s']:.1f} s",
         "ratio": big["reembed_hashing_plus_reindex_s"] / big["restore_s"],
         "target": "(reported)", "met": None, "command": COMMAND},
    ]


def _real_default_beam(r: dict[str, Any]) -> str:
    """The default beam of the real-text index: the one it calibrated to where the run
    recorded it; runs before the calibrated beam searched at 200."""
    if "hnsw_beam" not in r["in_job"]:
        return str(PRE_CALIBRATION_BEAM)
    beam = r["real_text"].get("default_hnsw_beam")
    return "calibrated" if beam is None else default_beam_label({"hnsw_beam": beam})


def _narrow_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    """The settled in-job search at NARROW_BEAM, and what that beam finds on real text."""
    n, real = r["in_job_narrow"], r["real_text"]
    fast = n["search_us"]["p95"] <= 2000 and n["recall_at_10"] >= 0.98
    rows = [{"figure": f"same, vector_candidates {NARROW_BEAM}: search p95; recall@10 on the "
                       "same data",
             "ours": f"{n['search_us']['p95'] / 1000:.2f} ms; {n['recall_at_10']:.3f}",
             "peer": f"{n['numpy_exact_us']['p95'] / 1000:.2f} ms (numpy exact, same data)",
             "ratio": n["numpy_exact_us"]["p95"] / n["search_us"]["p95"],
             "target": "p95 <= 2 ms at 100k, recall@10 >= 0.98", "met": fast,
             "command": COMMAND}]
    if "skipped" in real:
        rows.append({"figure": "recall@10 on embeddings of real text, per beam", "ours": "skipped",
                     "peer": "-", "ratio": None, "target": ">= 0.95", "met": None,
                     "command": COMMAND})
        return rows
    narrow, default = real["by_beam"][str(NARROW_BEAM)], real["by_beam"]["default"]
    rows.append({
        "figure": f"recall@10 vs exact on embeddings of real text ({real['items']:,} REALTALK and "
                  f"LoCoMo turns, {real['queries']:,} questions, one key), vector_candidates "
                  f"{NARROW_BEAM} / default ({_real_default_beam(r)})",
        "ours": f"{narrow:.3f} / {default:.3f}", "peer": "1.000 (numpy exact)", "ratio": narrow,
        "target": ">= 0.95", "met": narrow >= 0.95, "command": COMMAND})
    return rows


def markdown(r: dict[str, Any]) -> str:
    lines = [
        "Synthetic clustered unit vectors (384 dims, 1,000 clusters, noise 0.05/dim), queries "
        "drawn fresh from the same mixture; exact = numpy brute force. Pure-index rows: the Java "
        "store over py4j (latency includes ~0.1 ms py4j), all items under one key (HNSW kNN), "
        "added in batches of 2,000, then left quiet for 5 s (a quiet index folds its segments "
        "into one) and Lucene's background merges awaited (merge s; segments left); the queries "
        "run once untimed (JIT warm-up), then timed. Checkpoint = the hook's "
        "KeyGroupIndexSnapshotter.write (a full copy of the key group's committed files); "
        "restore = restore + open + first search; re-embedding = HashingEmbedder(384) over "
        "the texts (`#<i> memory number <i>`), plus re-indexing at the measured add rate.", "",
        "| items | adds/s | merge s | segments | recall@10 | search p50/p95 ms (py4j) | "
        "numpy exact p50/p95 ms | checkpoint MiB | checkpoint s | restore s | "
        "re-embed+re-index s |",
        "|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in r["scaling"]:
        lines.append(
            f"| {x['items']:,} | {x['adds_per_s']:,.0f} | {x['merge_s']:.1f} | "
            f"{x['segments']} | {x['recall_at_10']:.3f} | "
            f"{x['search_us']['p50'] / 1000:.2f} / {x['search_us']['p95'] / 1000:.2f} | "
            f"{x['numpy_exact_us']['p50'] / 1000:.2f} / {x['numpy_exact_us']['p95'] / 1000:.2f} | "
            f"{x['snapshot_bytes'] / 2**20:.1f} | {x['snapshot_s']:.2f} | {x['restore_s']:.2f} | "
            f"{x['reembed_hashing_plus_reindex_s']:.1f} |")
    m, j = r["many_keys"], r["in_job"]
    lines += [
        "", f"Many keys: {m['items']:,} items over 100 keys ({m['items'] // 100:,} per key; the "
        f"key filter makes Lucene search each key's few documents): recall@10 "
        f"{m['recall_at_10']:.3f}, search p50/p95 {m['search_us']['p50'] / 1000:.2f} / "
        f"{m['search_us']['p95'] / 1000:.2f} ms (py4j), {m['adds_per_s']:,.0f} adds/s.", "",
        f"In a running job (MiniCluster, parallelism 1): {j['items']:,} items under one key, "
        f"loaded {j['batch']} memories per run ({j['adds_per_s']:,.0f} adds/s), then "
        f"{j['queries']} `ctx.memory.search(q, limit=10, mode='vector')` calls timed inside the "
        f"action, the query vector looked up from a dict (embedding excluded). Right after "
        f"loading (Lucene still merging the per-run segments): p50 "
        f"{j['fresh_search_us']['p50'] / 1000:.2f} ms, p95 "
        f"{j['fresh_search_us']['p95'] / 1000:.2f} ms, recall@10 "
        f"{j['fresh_recall_at_10']:.3f} (this pass also warms the JVM's compiled search path "
        f"up). Then one run left the index quiet for 5 s (no writes: it "
        f"folds its segments into one) and waited {j['merge_wait_s']:.0f} s for the merges, and "
        f"the same queries again: p50 "
        f"{j['search_us']['p50'] / 1000:.2f} ms, p95 {j['search_us']['p95'] / 1000:.2f} ms, p99 "
        f"{j['search_us']['p99'] / 1000:.2f} ms; recall@10 {j['recall_at_10']:.3f}. numpy exact "
        f"on the same data, one query at a time: p50 {j['numpy_exact_us']['p50'] / 1000:.2f} ms, "
        f"p95 {j['numpy_exact_us']['p95'] / 1000:.2f} ms.", "",
        _narrow_markdown(r)]
    if not r["quick"]:
        lines += ["", "This module scales to 100k items per subtask (10k, 100k); 1M, which takes "
                  "over half an hour to build and merge on the 2-core machine, is "
                  "bench_ltm_1m's."]
    return "\n".join(lines)


def _narrow_markdown(r: dict[str, Any]) -> str:
    n, real = r["in_job_narrow"], r["real_text"]
    text = (f"The same job with `LongTermMemoryConfig(vector_candidates={NARROW_BEAM})` (the HNSW "
            f"beam; the default above: {default_beam_label(r['in_job'])}): settled p50 "
            f"{n['search_us']['p50'] / 1000:.2f} ms, p95 "
            f"{n['search_us']['p95'] / 1000:.2f} ms, p99 {n['search_us']['p99'] / 1000:.2f} ms; "
            f"recall@10 {n['recall_at_10']:.3f}.")
    if "skipped" not in real:
        beams = ", ".join(f"{b} {v:.3f}" for b, v in real["by_beam"].items())
        text += (f" On embeddings of real text ({real['items']:,} REALTALK and LoCoMo turns, "
                 f"MiniLM, one key, {real['queries']:,} questions as queries) recall@10 per beam: "
                 f"{beams}.")
    return text


def plot(r: dict[str, Any], img_dir: Any) -> list[str]:
    import matplotlib.pyplot as plt

    xs = [x["items"] for x in r["scaling"]]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.plot(xs, [x["search_us"]["p95"] / 1000 for x in r["scaling"]], "o-",
            label="Lucene HNSW p95 (py4j)")
    a1.plot(xs, [x["search_us"]["p50"] / 1000 for x in r["scaling"]], "o--",
            label="Lucene HNSW p50 (py4j)")
    a1.plot(xs, [x["numpy_exact_us"]["p95"] / 1000 for x in r["scaling"]], "s-",
            label="numpy exact p95")
    a1.set_xscale("log")
    a1.set_yscale("log")
    a1.set_xlabel("items per subtask (one key)")
    a1.set_ylabel("search latency (ms)")
    a1.set_title("Search latency vs index size")
    a1.legend(fontsize=8)
    a1.grid(True, alpha=0.3)
    a2.plot(xs, [x["snapshot_bytes"] / 2**20 for x in r["scaling"]], "o-",
            label="checkpoint size (MiB)")
    a2.plot(xs, [x["snapshot_s"] * 1000 for x in r["scaling"]], "s-",
            label="checkpoint copy (ms)")
    a2.plot(xs, [x["restore_s"] * 1000 for x in r["scaling"]], "^-", label="restore (ms)")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("items per subtask (one key)")
    a2.set_title("Checkpoint and restore vs index size")
    a2.legend(fontsize=8)
    a2.grid(True, alpha=0.3)
    return save_figure(fig, img_dir, "ltm_scaling.png")


def main() -> None:
    module_main(run, __doc__)


if __name__ == "__main__":
    main()
