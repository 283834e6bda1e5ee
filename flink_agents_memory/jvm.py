"""Typed views of the Java objects (java_udf) that cross into Python.

``MemoryAgentOperator`` hands these to the Python function through ``runtime/bridge.py``;
PEMJA passes only str, int, float, bool and bytes, so results that are richer come back as
JSON text. Python code is written against these Protocols, so a test can pass an object of its
own (and tools reach the same classes through py4j) without ``Any`` hiding a typo.
"""

from __future__ import annotations

from typing import Any, Protocol


class LongTermMemoryStore(Protocol):
    """``io.flinkagentsmemory.index.LongTermMemoryStore``: the current key's Lucene documents.

    Every call works on the key Flink has set; none takes a key. Vectors are little-endian
    float32 ``bytes``; documents and options are JSON text.
    """

    def addBatch(self, docs_json_array: str, vectors: bytes) -> str: ...

    def update(self, memory_id: str, doc_json: str, vector: bytes) -> bool: ...

    def delete(self, memory_id: str) -> bool: ...

    def get(self, memory_id: str, now_ms: int) -> str | None: ...

    def getAll(self, filters_json: str, limit: int, now_ms: int) -> str: ...

    def findByHash(self, content_hash: str, now_ms: int) -> str | None: ...

    def count(self, now_ms: int) -> int: ...

    def search(self, query_text: str, query_vector: bytes | None, options_json: str) -> str: ...

    def purgeExpired(self, now_ms: int) -> int: ...

    def dimension(self) -> int: ...


class AgentMetrics(Protocol):
    """``io.flinkagentsmemory.operator.AgentMetrics``: receives batched metric updates."""

    def count(self, name: str, delta: int) -> None: ...

    def gauge(self, name: str, value: int) -> None: ...

    def observe(self, name: str, samples: bytes) -> None:
        """``samples``: native-endian int64 values (``array("q").tobytes()``)."""


class StateReads(Protocol):
    """``io.flinkagentsmemory.operator.StateReads``: reads of a Java keyed state in one call
    into Java, where PyFlink's wrapper would cross once per element or key."""

    def tail(self, state: Any, n: int) -> list[str]:
        """The newest ``n`` elements of a ListState, oldest first."""

    def getAll(self, state: Any, keys: list[str]) -> list[str | None]:
        """The values of ``keys`` in a MapState, in order; None where absent."""


class ElementCallState(Protocol):
    """``io.flinkagentsmemory.operator.ElementCallState``: the operator's side of short-term
    memory's reads ahead and writes, carried by each element's call into Python."""

    def attach(self, state: Any) -> None:
        """The Java MapState whose reads and writes travel with elements."""
