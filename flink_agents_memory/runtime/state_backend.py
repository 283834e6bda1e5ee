"""State backend settings the memory operator cannot run with, rejected when the job is built.

The operator writes the long-term index into Flink's raw keyed state. RocksDB with heap timers
(``state.backend.rocksdb.timer-service.factory: HEAP``) writes timers into the same raw keyed
state, and Flink then declines every checkpoint ("Attempting to snapshot timers to raw keyed
state, but this operator has custom raw keyed state to write"): a failure that would only show
at the first checkpoint, so it is refused here instead.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigurationError

BACKEND_TYPE = "state.backend.type"
TIMER_FACTORY = "state.backend.rocksdb.timer-service.factory"


def check_state_backend(j_conf: Any) -> None:
    """Raise ConfigurationError for RocksDB with heap timers in the job's Configuration."""
    backend = (j_conf.getString(BACKEND_TYPE, None) or "hashmap").strip().lower()
    timers = (j_conf.getString(TIMER_FACTORY, None) or "ROCKSDB").strip().upper()
    if "rocksdb" in backend and timers == "HEAP":
        raise ConfigurationError(
            f"{TIMER_FACTORY}: HEAP cannot be used with {BACKEND_TYPE}: {backend}: the memory "
            "operator keeps its long-term index in raw keyed state, where heap timers would "
            "also go, and Flink would decline every checkpoint. Remove the setting (RocksDB "
            "timers are the default) or use the hashmap backend."
        )
