"""The limits user data must meet before a run's writes are prepared (``AgentConfig.limits``).

Writing a run's memory is not guarded by the error policy: a failure there fails the job, which
replays the same input after a restore and fails again. So everything that the index (Lucene,
behind Flink's Jackson parser), the state backend or the Python/Java boundary would refuse is
refused earlier, by these limits, while the run can still be failed, skipped or dead-lettered.
Each default sits well below the hard limit behind it (docs/reliability.md lists both).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

#: Lucene refuses a document with an indexed term longer than this (UTF-8 bytes): memory ids,
#: the key, and every top-level metadata string are indexed terms.
LUCENE_MAX_TERM_BYTES = 32766


class MemoryLimits(BaseModel):
    """Sizes and shapes of user data; a breach is a clear error before anything is written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_depth: int = Field(
        32, ge=1, le=256, description="Nesting of lists, dicts and models in one value or "
        "metadata, and of AND/OR/NOT in a filter (Jackson in the index stops at 1,000; "
        "Python's recursion at about 1,000).")
    max_key_chars: int = Field(
        1024, ge=1, le=10_000, description="A dict key in a value or metadata (Jackson: 50,000).")
    max_int_digits: int = Field(
        100, ge=1, le=1000, description="Decimal digits of an int (Jackson: 1,000; Python's "
        "int-to-text conversion: 4,300).")
    max_path_chars: int = Field(
        1024, ge=1, description="A short-term memory path (it is a state key).")
    max_memory_bytes: int = Field(
        256 * 1024, ge=1, le=8 * 1024 * 1024, description="A long-term memory's text, UTF-8 "
        "(Jackson in the index refuses strings over 20,000,000 chars).")
    max_context_bytes: int = Field(
        256 * 1024, ge=1, le=8 * 1024 * 1024, description="A long-term memory's context (text "
        "indexed for keyword search beside it), UTF-8.")
    max_metadata_bytes: int = Field(
        64 * 1024, ge=1, le=8 * 1024 * 1024, description="A long-term memory's metadata, "
        "encoded as JSON.")
    max_id_chars: int = Field(
        256, ge=36, le=4096, description="A memory id given by the caller (an indexed term).")
    max_key_bytes: int = Field(
        4096, ge=1, le=16 * 1024, description="The current key as text, when the run writes "
        f"long-term memory (an indexed term; Lucene: {LUCENE_MAX_TERM_BYTES} bytes).")
    max_memory_writes_per_run: int = Field(
        1000, ge=1, description="Long-term adds, updates and deletes one run may buffer.")
    max_query_chars: int = Field(
        10_000, ge=1, description="A search query (long-term memory and knowledge).")
    max_search_limit: int = Field(
        10_000, ge=1, description="The ``limit`` of a search or get_all.")
    max_filter_fields: int = Field(
        64, ge=1, le=100, description="Fields in one metadata filter, counted through "
        "AND/OR/NOT (each is a query clause).")
    max_filter_values: int = Field(
        1024, ge=1, description="Values of one 'in' or 'nin' filter.")
