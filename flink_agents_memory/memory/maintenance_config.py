"""MaintenanceConfig: what an agent declares about the upkeep of its long-term memory.

Maintenance runs per key on a Flink timer (see docs/maintenance.md): compression of old
history items, consolidation of near-duplicates, synthesis of a higher-level memory, then
forgetting over a budget.
Numpy-free like LongTermMemoryConfig, so declaring an agent stays light.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Forgetting(BaseModel):
    """Over ``budget`` memories, the lowest retention scores are forgotten (deleted, audited).

    score = 2^(-age / half_life_ms) * (1 + access_weight * ln(1 + accesses))
            * (1 + importance_weight * importance)
    where age is the time since the memory's last write or search hit, accesses counts its
    search hits and importance is the number in its metadata under ``importance_key`` (0..1).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    budget: int = Field(..., ge=1, description="Memories a key keeps after maintenance.")
    half_life_ms: int = Field(7 * 24 * 3600 * 1000, ge=1,
                              description="The recency factor halves every half_life_ms.")
    access_weight: float = Field(1.0, ge=0, allow_inf_nan=False,
                                 description="Weight of ln(1 + search hits).")
    importance_weight: float = Field(1.0, ge=0, allow_inf_nan=False,
                                     description="Weight of the metadata importance (0..1).")
    importance_key: str = Field("importance", min_length=1,
                                description="Metadata field holding a memory's importance.")


class Consolidation(BaseModel):
    """Memories at least ``threshold`` similar (cosine of their vectors) are merged: by the
    LLM when the long-term memory has one, else the newest is kept and the others are recorded
    as merged into it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    threshold: float = Field(0.9, gt=0, le=1, description="Cosine similarity to merge at.")
    max_memories_per_pass: int = Field(
        200, ge=1, description="New memories compared per pass; more wait for the next timer.")
    neighbours: int = Field(5, ge=1, le=100, description="Nearest memories looked at per memory.")
    use_llm: bool = Field(True, description="Merge with the LLM when one is configured.")


class Compression(BaseModel):
    """Items of the declared history ``history`` appended at least ``older_than_ms`` ago are
    summarised into one long-term memory (by the LLM when there is one, else extractively)
    and removed from the history."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    history: str = Field(..., min_length=1, description="A declared history of the agent.")
    older_than_ms: int = Field(..., ge=1, description="Age at which an item is compressed.")
    max_chars: int = Field(1000, ge=50, le=100_000, description="Longest summary kept.")
    use_llm: bool = Field(True, description="Summarise with the LLM when one is configured.")


class Synthesis(BaseModel):
    """A higher-level memory per key (a profile, say) that the LLM writes from the key's newest
    memories and rewrites on later passes; it is kept under ``memory_id``, never merged or
    forgotten, and does not count against the forgetting budget."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    memory_id: str = Field("profile", min_length=1, description="Id of the synthesised memory.")
    instruction: str = Field(
        "Write a short profile of the user: who they are, what they like, what they do.",
        min_length=1, description="What the LLM is asked to write from the memories.")
    max_memories: int = Field(50, ge=1, description="Newest memories shown to the LLM.")


class MaintenanceConfig(BaseModel):
    """Per-key maintenance of long-term memory on Flink timers; each configured task runs.

    A key's first long-term write after a pass registers one timer ``interval_ms`` later (in
    the agent's ``retention_time`` clock); idle keys hold no timer and cost nothing.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    interval_ms: int = Field(..., ge=1, description="Delay from a write to the next pass.")
    time: Literal["processing", "event"] | None = Field(
        None, description="Timer clock; None: the agent's retention_time (the only one "
        "allowed: scores compare memory timestamps, written in that clock, with the timer).")
    forgetting: Forgetting | None = None
    consolidation: Consolidation | None = None
    compression: Compression | None = None
    synthesis: Synthesis | None = Field(None, description="Needs LongTermMemoryConfig.llm.")

    @model_validator(mode="after")
    def _some_task(self) -> MaintenanceConfig:
        if all(task is None for task in (self.compression, self.consolidation,
                                         self.synthesis, self.forgetting)):
            raise ValueError("MaintenanceConfig runs no task: set compression, consolidation, "
                             "synthesis and/or forgetting")
        return self
