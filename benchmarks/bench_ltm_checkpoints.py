"""Long-term checkpoints under a steady write stream: incremental against a full copy.

One key group's index (384-dim clustered vectors, benchmarks/data.py) is loaded, then for each
of 100+ checkpoint intervals a batch of new memories is added and the index is checkpointed
twice from the same commit: by the operator's hooks into a real file-system checkpoint location
(incremental: new index files to ``shared/``, a manifest in raw keyed state; completed checkpoints
delete what nothing retained references), and by the full copy every checkpoint wrote before
(KeyGroupIndexSnapshotter.write). Lucene's background merges run as in a job, so their rewrites
are in the incremental figures. "Memory bytes added" is the interval's new memories times the
index's bytes per memory at that point. Search p95 is measured over py4j every 10 intervals,
while the stream goes on (no quiet period, so no fold).

    python -m benchmarks.bench_ltm_checkpoints [--quick]
"""

from __future__ import annotations

import shutil
import time
from typing import Any

from .common import WORK, machine, module_main, percentiles, save_figure
from .data import clustered_unit_vectors
from .index_store import IndexStore, key_group

NAME = "ltm_checkpoints"
TITLE = "Long-term checkpoints: incremental vs full copy"
COMMAND = "python -m benchmarks.bench_ltm_checkpoints"
KEY = "k0"


class Checkpointer:
    """The operator's checkpoint hooks over ``store``'s indexes, into ``root`` (Flink's layout)."""

    def __init__(self, store: IndexStore, root: Any) -> None:
        self.jvm = store.jvm
        self.root = root
        self.kg = key_group(KEY)
        self.hooks = self.jvm.io.flinkagentsmemory.checkpoint.LongTermMemoryCheckpointHooks.of(
            store.indexes, "op", 1, False)

    def _path(self, name: str) -> Any:
        return self.jvm.org.apache.flink.core.fs.Path((self.root / name).as_uri())

    def checkpoint(self, checkpoint_id: int) -> int:
        """Incremental checkpoint ``checkpoint_id``, completed; bytes it wrote."""
        flink = self.jvm.org.apache.flink
        location = flink.runtime.state.filesystem.FsCheckpointStorageLocation(
            flink.core.fs.FileSystem.getLocalFileSystem(), self._path(f"chk-{checkpoint_id}"),
            self._path("shared"), self._path("taskowned"),
            flink.runtime.state.CheckpointStorageLocationReference.getDefault(), 20480, 4096)
        (self.root / f"chk-{checkpoint_id}").mkdir(parents=True, exist_ok=True)
        self.hooks.beginSnapshot(checkpoint_id, False, location)
        ctx = flink.runtime.state.StateSnapshotContextSynchronousImpl(
            checkpoint_id, checkpoint_id, location, flink.runtime.state.KeyGroupRange.of(
                self.kg, self.kg), flink.core.fs.CloseableRegistry())
        self.hooks.snapshotState(ctx)
        future = self.hooks.asyncPart(checkpoint_id, ctx.getKeyedStateStreamFuture())
        future.run()
        future.get()
        self.hooks.notifyCheckpointComplete(checkpoint_id)
        return int(self.hooks.lastSnapshotBytes())

    def shared_bytes(self) -> int:
        return sum(p.stat().st_size for p in (self.root / "shared").rglob("*") if p.is_file())


def stream(preload: int, intervals: int, per_interval: int, queries: int = 200) -> dict[str, Any]:
    total = preload + intervals * per_interval
    vecs, _ = clustered_unit_vectors(total + queries, 384, seed=total)
    data, qs = vecs[:total], vecs[total:]
    work = WORK / f"ltm-ckpt-{preload}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    store = IndexStore(work / "index")
    store.set_key(KEY)
    for s in range(0, preload, 2000):
        ids = range(s, min(s + 2000, preload))
        store.add_batch([str(i) for i in ids], [f"#{i}" for i in ids], data[list(ids)])
    ckpt = Checkpointer(store, work / "checkpoints")
    full_target = work / "full.bin"
    first_full, _ = store.snapshot(KEY, full_target)
    first_incremental = ckpt.checkpoint(1)
    rows: list[dict[str, Any]] = []
    searches: list[dict[str, Any]] = []
    for c in range(intervals):
        lo = preload + c * per_interval
        ids = range(lo, lo + per_interval)
        store.add_batch([str(i) for i in ids], [f"#{i}" for i in ids], data[list(ids)])
        t0 = time.perf_counter()
        inc = ckpt.checkpoint(c + 2)
        inc_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        full, _ = store.snapshot(KEY, full_target)  # the same commit's files, copied whole
        full_s = time.perf_counter() - t0
        items = lo + per_interval
        rows.append({"items": items, "incremental_bytes": inc, "full_bytes": full,
                     "added_memory_bytes": per_interval * full / items,
                     "incremental_s": inc_s, "full_s": full_s, "segments": store.segments(),
                     "shared_bytes": ckpt.shared_bytes()})
        if c % 10 == 9:
            lat = store.search_latencies_us(qs)
            searches.append({"items": items, "search_us": percentiles(lat)})
    store.close()
    shutil.rmtree(work, ignore_errors=True)
    inc_sum = sum(r["incremental_bytes"] for r in rows)
    added_sum = sum(r["added_memory_bytes"] for r in rows)
    full_sum = sum(r["full_bytes"] for r in rows)
    return {"preload": preload, "intervals": intervals, "per_interval": per_interval,
            "first_full_bytes": first_full, "first_incremental_bytes": first_incremental,
            "incremental_bytes": inc_sum, "full_bytes": full_sum, "added_memory_bytes": added_sum,
            "ratio_incremental_to_added": inc_sum / added_sum,
            "ratio_full_to_added": full_sum / added_sum,
            "max_interval_ratio": max(r["incremental_bytes"] / r["added_memory_bytes"]
                                      for r in rows),
            "rows": rows, "searches": searches}


def run(quick: bool) -> dict[str, Any]:
    if quick:
        result = stream(preload=2_000, intervals=20, per_interval=20, queries=50)
    else:
        result = stream(preload=10_000, intervals=100, per_interval=100)
    return {"machine": machine(), "quick": quick, "stream": result}


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    s = r["stream"]
    n = s["intervals"]
    last = s["searches"][-1]["search_us"] if s["searches"] else {"p95": float("nan")}
    return [
        {"figure": f"checkpoint bytes / bytes of memories added, {n} checkpoints, "
                   f"{s['per_interval']} adds each after {s['preload']:,} (merges included)",
         "ours": f"{s['ratio_incremental_to_added']:.2f}",
         "peer": f"{s['ratio_full_to_added']:.1f} (full copy, same commits)",
         "ratio": s["ratio_full_to_added"] / s["ratio_incremental_to_added"],
         "target": "<= 3", "met": s["ratio_incremental_to_added"] <= 3, "command": COMMAND},
        {"figure": "search p95 (py4j) under that write stream, last pass",
         "ours": f"{last['p95'] / 1000:.2f} ms", "peer": "-", "ratio": None,
         "target": "(reported)", "met": None, "command": COMMAND},
    ]


def markdown(r: dict[str, Any]) -> str:
    s = r["stream"]
    lines = [
        f"{s['preload']:,} memories loaded, then {s['intervals']} checkpoints, each after "
        f"{s['per_interval']} more. First checkpoint: {s['first_incremental_bytes'] / 2**20:.1f} "
        f"MiB incremental, {s['first_full_bytes'] / 2**20:.1f} MiB full. Over the stream: "
        f"incremental {s['incremental_bytes'] / 2**20:.1f} MiB, full copies "
        f"{s['full_bytes'] / 2**20:.1f} MiB, memories added {s['added_memory_bytes'] / 2**20:.1f}"
        f" MiB; bytes written / memory bytes added: incremental "
        f"{s['ratio_incremental_to_added']:.2f} (worst single interval "
        f"{s['max_interval_ratio']:.1f}, a merge), full {s['ratio_full_to_added']:.1f}.", "",
        "| items | segments | search p50/p95 ms (py4j) |", "|---|---|---|"]
    segments = {x["items"]: x["segments"] for x in s["rows"]}
    for x in s["searches"]:
        lines.append(f"| {x['items']:,} | {segments.get(x['items'], '-')} | "
                     f"{x['search_us']['p50'] / 1000:.2f} / {x['search_us']['p95'] / 1000:.2f} |")
    return "\n".join(lines)


def plot(r: dict[str, Any], img_dir: Any) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = r["stream"]
    items = [x["items"] for x in s["rows"]]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(items, [x["full_bytes"] / 2**20 for x in s["rows"]], label="full copy")
    ax.plot(items, [x["incremental_bytes"] / 2**20 for x in s["rows"]], label="incremental")
    ax.plot(items, [x["added_memory_bytes"] / 2**20 for x in s["rows"]], ":",
            label="memories added")
    ax.set_xlabel("memories in the index")
    ax.set_ylabel("MiB written per checkpoint")
    ax.set_yscale("log")
    ax.legend()
    ax.set_title(TITLE)
    return save_figure(fig, img_dir, "ltm_checkpoints.png")


def main() -> None:
    module_main(run, __doc__)


if __name__ == "__main__":
    main()
