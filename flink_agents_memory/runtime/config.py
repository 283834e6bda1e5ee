"""Per-agent runtime settings, validated when the job is built."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..memory.limits import MemoryLimits
from ..memory.short_term import DEFAULT_MAX_VALUE_BYTES
from .state_ttl import StateTtl


class AgentConfig(BaseModel):
    """How runs of an agent are executed; bad values fail at job build time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_events_per_run: int = Field(
        1000, ge=1, description="A run that queues more events than this fails (runaway loop)."
    )
    max_value_bytes: int = Field(
        DEFAULT_MAX_VALUE_BYTES, ge=1,
        description="Largest encoded value one memory field (or history item) holds."
    )
    limits: MemoryLimits = Field(
        MemoryLimits(), description="What user data must meet before a run's writes are "
        "prepared (sizes, depth, ids, filters): docs/reliability.md lists the defaults."
    )
    retention_time: Literal["processing", "event"] = Field(
        "processing",
        description="Clock of history TTLs and memory timestamps: processing time, or the "
        "element's event timestamp (deterministic on replay; needs timestamps on the stream).",
    )
    sensory_window: int = Field(
        0, ge=0, description="Sensory memory keeps at most the last W events of each key's "
        "runs (0: no count limit). With sensory_window_ms unset too, it is off; on, it costs "
        "about 3 state accesses per run."
    )
    sensory_window_ms: int | None = Field(
        None, ge=1, description="Sensory memory keeps the events of the last T ms (on the "
        "run's clock, see retention_time); None: no time limit."
    )
    audit_short_term: bool = Field(
        False, description="Also record short-term set/delete in the audit trail."
    )
    state_ttl: StateTtl | None = Field(
        None, description="Flink state TTL for short-term memory and histories."
    )
    on_error: Literal["fail", "skip", "dead_letter"] = Field(
        "fail",
        description="A failed run: fail the job (it restarts from its last checkpoint), skip "
        "the input (logged and counted), or emit it to the dead-letter side output.",
    )
    max_runs_in_flight: int = Field(
        64, ge=1, le=100_000,
        description="Runs of an agent with async actions that may wait on calls at once per "
        "subtask; at the limit the subtask takes no input (backpressure).",
    )
    max_inputs_waiting: int | None = Field(
        None, ge=1, description="Inputs accepted and not finished per subtask (runs in flight "
        "and inputs queued behind a busy key); None: 8 x max_runs_in_flight. At the limit the "
        "subtask takes no input.",
    )
    call_timeout_ms: int = Field(
        60_000, ge=1, description="An awaited call that takes longer raises CallTimeoutError "
        "in its action (on_error decides).",
    )
    metrics: bool = Field(True, description="Report Flink metrics (agents.memory.*).")
    metrics_flush_ms: int = Field(200, ge=1, description="How often metrics reach Flink.")

    @property
    def inputs_waiting_limit(self) -> int:
        """``max_inputs_waiting``, or its default, never below ``max_runs_in_flight``."""
        return max(self.max_inputs_waiting or 8 * self.max_runs_in_flight,
                   self.max_runs_in_flight)
