"""Flink state TTL for short-term memory and histories, configured in one place."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class StateTtl(BaseModel):
    """Maps onto Flink's ``StateTtlConfig`` (processing time; expired state is never returned).

    ``update_type``: when the clock restarts — on create and write (default) or also on read.
    ``cleanup_full_snapshot`` drops expired entries from full snapshots;
    ``cleanup_incremental`` > 0 checks that many entries per state access (heap backend).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    ttl_ms: int = Field(..., ge=1)
    update_type: Literal["on_create_and_write", "on_read_and_write"] = "on_create_and_write"
    cleanup_full_snapshot: bool = True
    cleanup_incremental: int = Field(10, ge=0)

    def to_flink(self) -> Any:
        from pyflink.common.time import Time
        from pyflink.datastream.state import StateTtlConfig

        update = (StateTtlConfig.UpdateType.OnReadAndWrite
                  if self.update_type == "on_read_and_write"
                  else StateTtlConfig.UpdateType.OnCreateAndWrite)
        builder = (StateTtlConfig.new_builder(Time.milliseconds(self.ttl_ms))
                   .set_update_type(update)
                   .set_state_visibility(StateTtlConfig.StateVisibility.NeverReturnExpired))
        if self.cleanup_full_snapshot:
            builder = builder.cleanup_full_snapshot()
        if self.cleanup_incremental:
            builder = builder.cleanup_incrementally(self.cleanup_incremental, False)
        return builder.build()
