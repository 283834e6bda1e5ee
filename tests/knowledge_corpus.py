"""The knowledge tests' hand-labelled corpus and their Chroma server helper."""

from __future__ import annotations

from pathlib import Path

import pytest

from flink_agents_memory.knowledge.server import ChromaServer, find_chroma

#: A hand-labelled corpus: each document is about one thing.
DOCS = {
    "checkpoint": "Checkpoint barriers flow with the records; each operator snapshots its "
                  "state to durable storage when the barrier arrives on all inputs.",
    "watermark": "A watermark with timestamp t declares that no events older than t will "
                 "arrive, so event time windows up to t can fire.",
    "backpressure": "Backpressure happens when a slow downstream operator fills the network "
                    "buffers and upstream tasks must slow down.",
    "savepoint": "A savepoint is a manually triggered snapshot used to upgrade, rescale or "
                 "migrate a job to another cluster.",
    "kafka": "The Kafka source reads topic partitions and commits consumer offsets on "
             "checkpoint completion.",
    "rocksdb": "The RocksDB state backend keeps large keyed state on local disk and supports "
               "incremental checkpoints.",
    "sql": "Flink SQL queries run as continuous queries over dynamic tables backed by streams.",
    "python": "PyFlink runs Python user functions in thread mode inside the JVM using PEMJA.",
}

#: Query -> the document that must rank first.
QUERIES = {
    "how do operators snapshot state when the checkpoint barrier arrives": "checkpoint",
    "a watermark timestamp declares that older events will not arrive": "watermark",
    "upstream tasks slow down because of a slow downstream operator": "backpressure",
    "rescale or upgrade a job with a manually triggered savepoint": "savepoint",
    "kafka consumer offsets and topic partitions": "kafka",
}


def start_server(path: Path) -> ChromaServer:
    if find_chroma() is None:
        pytest.skip("chromadb is not installed (no `chroma` executable): run "
                    "`make install-knowledge`, or set CHROMA_BIN")
    return ChromaServer(path).start()
