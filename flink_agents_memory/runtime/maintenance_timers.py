"""When a key's maintenance pass is due: one pending timer per key, recorded in its meta map.

A long-term write (or an append to the history compression watches) schedules a pass
``interval_ms`` later unless one is pending; a pass clears it, and schedules the next only if
it left work (consolidation's per-pass cap, history items not old enough yet). So keys that do
not write hold no timer. The meta entry is committed with the run that registers the timer, and
Flink checkpoints its timers with the keyed state: after a restore both agree.
"""

from __future__ import annotations

from ..agent import Agent
from ..errors import ConfigurationError
from ..memory.maintenance_config import MaintenanceConfig
from ..memory.store import KeyValueStore
from .config import AgentConfig

#: Meta entry: the time of the key's pending maintenance timer.
TIMER = "__maintenance_timer__"


def check_maintenance(agent: Agent, config: AgentConfig) -> MaintenanceConfig | None:
    """The agent's maintenance settings, refused if their clock is not the agent's."""
    maintenance = agent.long_term_memory.maintenance
    if maintenance is None:
        return None
    if maintenance.time not in (None, config.retention_time):
        raise ConfigurationError(
            f"long_term_memory.maintenance.time={maintenance.time!r} differs from "
            f"AgentConfig.retention_time={config.retention_time!r}: retention scores compare "
            "memory timestamps, written in retention_time's clock, with the timer's time; "
            "set both to the same clock (or leave maintenance.time unset)")
    compression = maintenance.compression
    if compression is not None and compression.history not in agent.histories:
        raise ConfigurationError(
            f"long_term_memory.maintenance.compression.history={compression.history!r} is not "
            f"a declared history of {type(agent).__name__} (declared: {sorted(agent.histories)})")
    if maintenance.synthesis is not None and agent.long_term_memory.llm is None:
        raise ConfigurationError(
            "long_term_memory.maintenance.synthesis needs an LLM to write the synthesised "
            "memory: set LongTermMemoryConfig.llm (or drop synthesis)")
    return maintenance


class MaintenanceTimers:
    """Reads and writes the pending timer of the current key (through the run's meta buffer)."""

    def __init__(self, config: MaintenanceConfig, meta: KeyValueStore) -> None:
        self._interval = config.interval_ms
        self._meta = meta

    def after_write(self, now_ms: int) -> int | None:
        """A write at ``now_ms``: the timer to register, or None if one is pending."""
        if self._meta.get(TIMER) is not None:
            return None
        return self.schedule(now_ms)

    def schedule(self, now_ms: int) -> int:
        """Record a pass ``interval_ms`` after ``now_ms``; returns its time."""
        at = now_ms + self._interval
        self._meta.put(TIMER, str(at))
        return at

    def fired(self) -> None:
        """The pending timer fired: the next write schedules again."""
        self._meta.remove(TIMER)
