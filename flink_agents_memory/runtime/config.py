"""Per-agent runtime settings, validated when the job is built."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..memory.short_term import DEFAULT_MAX_VALUE_BYTES


class AgentConfig(BaseModel):
    """How runs of an agent are executed; bad values fail at job build time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_events_per_run: int = Field(
        1000, ge=1, description="A run that queues more events than this fails (runaway loop)."
    )
    max_value_bytes: int = Field(
        DEFAULT_MAX_VALUE_BYTES, ge=1, description="Largest encoded value one memory field holds."
    )
