"""mem0's side of the real-text add benchmark (runs in the mem0 venv).

    python -m benchmarks.peers.mem0_adds_worker --texts T.json --keys 10 --batch 20 --out R.json

``Memory.from_config`` with its default local vector store (Qdrant local mode) and SQLite
history in a fresh folder; ``add(messages, user_id=key, infer=False)`` with ``--batch``
messages per call (infer=False stores each message as a memory, no LLM). mem0's embedder
slot holds all-MiniLM-L6-v2 in numpy, the same model and code our job embeds with (mem0's
own huggingface provider would need torch); it embeds one message at a time, as mem0 calls
it. The model is loaded before anything is timed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


class Mem0MiniLM:
    """mem0's EmbeddingBase shape: ``embed(text, memory_action) -> list[float]``."""

    def __init__(self) -> None:
        from flink_agents_memory.models.embedders import MiniLMEmbedder

        self.inner = MiniLMEmbedder()
        self.config = None

    def embed(self, text: str, memory_action: Any = None) -> list[float]:
        return self.inner.embed([text])[0].tolist()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--texts", required=True)
    p.add_argument("--keys", type=int, default=10)
    p.add_argument("--batch", type=int, default=20)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    os.environ.setdefault("MEM0_TELEMETRY", "False")
    os.environ.setdefault("OPENAI_API_KEY", "unused-by-this-benchmark")
    sys.path.insert(0, str(ROOT))
    from mem0 import Memory

    texts: list[str] = json.loads(Path(a.texts).read_text(encoding="utf-8"))
    work = tempfile.mkdtemp(prefix="bench-mem0-adds-")
    memory = Memory.from_config({
        "vector_store": {"provider": "qdrant", "config": {
            "collection_name": "adds", "embedding_model_dims": 384,
            "path": os.path.join(work, "qdrant")}},
        "embedder": {"provider": "openai", "config": {"embedding_dims": 384}},
        "history_db_path": os.path.join(work, "history.db"),
    })
    memory.embedding_model = Mem0MiniLM()
    memory.embedding_model.embed("load the model before anything is timed")
    stored = 0
    start = time.perf_counter()
    for e, first in enumerate(range(0, len(texts), a.batch)):
        messages = [{"role": "user", "content": t} for t in texts[first:first + a.batch]]
        stored += len(memory.add(messages, user_id=f"k{e % a.keys}", infer=False)["results"])
    add_s = time.perf_counter() - start
    if stored != len(texts):
        raise SystemExit(f"mem0 stored {stored} of {len(texts)} texts")
    Path(a.out).write_text(json.dumps({"texts": len(texts), "keys": a.keys, "batch": a.batch,
                                       "add_s": add_s, "adds_per_s": len(texts) / add_s}))


if __name__ == "__main__":
    main()
