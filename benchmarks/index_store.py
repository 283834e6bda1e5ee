"""The real Java LongTermMemoryStore (Lucene) driven over py4j, outside Flink, for figures of
the index alone (recall, add throughput, snapshot/restore). Every call crosses py4j, so
latencies measured through it include ~0.1 ms of py4j round trip that PEMJA (inside a job)
does not pay; in-job latency is measured by bench_ltm on a MiniCluster instead.
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from pyflink.java_gateway import get_gateway
from pyflink.util.java_utils import add_jars_to_context_class_loader

from flink_agents_memory.runtime.jars import operator_jar

from .peers.ltm_agents_ours import QUIET_S


def key_group(key: str, max_parallelism: int = 128) -> int:
    return zlib.crc32(key.encode()) % max_parallelism


def doc(memory_id: str, text: str, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """A memory document as LongTermMemory writes it."""
    now = "2026-01-01T00:00:00.000Z"
    return {"id": memory_id, "memory": text, "metadata": metadata or {},
            "hash": hashlib.md5(text.encode()).hexdigest(), "created_at": now,
            "updated_at": now, "expires_at": None}


class IndexStore:
    """One subtask's key-group indexes in ``directory``; the current key is set by hand."""

    def __init__(self, directory: Path) -> None:
        add_jars_to_context_class_loader([operator_jar().as_uri()])
        self.jvm = get_gateway().jvm
        index = self.jvm.io.flinkagentsmemory.index
        self.directory = Path(directory)
        self.indexes = index.SubtaskMemoryIndexes(self.jvm.java.io.File(str(directory)).toPath())
        self.current = index.SettableCurrentKey()
        self.store = index.LongTermMemoryStore(self.indexes, self.current)

    def set_key(self, key: str) -> None:
        self.current.set(key, key_group(key))

    def add_batch(self, ids: list[str], texts: list[str], vectors: np.ndarray) -> None:
        docs = [doc(i, t) for i, t in zip(ids, texts, strict=True)]
        self.store.addBatch(json.dumps(docs), np.ascontiguousarray(vectors, "<f4").tobytes())

    def load_settled(self, vectors: np.ndarray, key: str = "k0") -> None:
        """``vectors`` under one key (ids and texts their row numbers), committed, folded and
        merged: a settled index to measure searches on."""
        self.set_key(key)
        for s in range(0, len(vectors), 2000):
            ids = [str(i) for i in range(s, min(s + 2000, len(vectors)))]
            self.add_batch(ids, [f"#{i}" for i in ids], vectors[s:s + 2000])
        self.commit()
        self.await_merges()

    def search(self, vector: np.ndarray, limit: int = 10, mode: str = "vector",
               text: str = "", vector_candidates: int | None = None) -> list[str]:
        """Ids of the hits; ``vector_candidates`` None: the store's default HNSW beam."""
        options = json.dumps({"mode": mode, "limit": limit, "filters": {}, "now": 0,
                              "vector_candidates": vector_candidates})
        hits = json.loads(self.store.search(text, np.asarray(vector, "<f4").tobytes(), options))
        return [h["id"] for h in hits]

    def search_latencies_us(self, vectors: Any, limit: int = 10) -> list[float]:
        """Each vector searched once under the current key, at the default beam: microseconds
        per search, py4j round trip included."""
        out = []
        for v in vectors:
            t = time.perf_counter_ns()
            self.search(v, limit)
            out.append((time.perf_counter_ns() - t) / 1000)
        return out

    def commit(self) -> None:
        self.indexes.commitAll()

    def await_merges(self) -> float:
        """Leave the index quiet (so it folds into one segment), then wait for Lucene's
        background merges; seconds waited after the quiet period."""
        time.sleep(QUIET_S)
        t0 = time.perf_counter()
        self.store.awaitMerges()
        return time.perf_counter() - t0

    def await_calibration(self, timeout_s: float = 300) -> int:
        """Wait until the calibration of the largest segment's HNSW beam (started by the
        searches so far, once 64 of them asked for no beam) is done; the beam the current key's
        searches now get."""
        if not self.store.awaitCalibration(int(timeout_s * 1000)):
            raise TimeoutError(f"HNSW beam calibration still running after {timeout_s} s")
        return int(self.store.hnswBeam())

    def segments(self) -> int:
        return int(self.indexes.segmentCount())

    def snapshot(self, key: str, target: Path) -> tuple[int, float]:
        """Write the current key group as the checkpoint hook does; (bytes, seconds)."""
        snap = self.jvm.io.flinkagentsmemory.checkpoint.KeyGroupIndexSnapshotter
        index = self.indexes.forKeyGroup(key_group(key))
        jfile = self.jvm.java.io.FileOutputStream(str(target))
        out = self.jvm.java.io.DataOutputStream(self.jvm.java.io.BufferedOutputStream(jfile))
        start = time.perf_counter()
        written = snap.write(index, out)
        out.flush()
        seconds = time.perf_counter() - start
        out.close()
        return int(written), seconds

    def restore(self, snapshot: Path, key: str) -> None:
        """Restore a snapshot file into this (empty) store's directory for ``key``'s group."""
        snap = self.jvm.io.flinkagentsmemory.checkpoint.KeyGroupIndexSnapshotter
        jin = self.jvm.java.io.DataInputStream(self.jvm.java.io.BufferedInputStream(
            self.jvm.java.io.FileInputStream(str(snapshot))))
        snap.restore(jin, self.indexes.directoryFor(key_group(key)))
        jin.close()

    def close(self) -> None:
        self.indexes.close()
