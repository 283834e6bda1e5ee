"""State backend and checkpoint settings the memory operator cannot run with, rejected when
the job is built: each would only show as failing checkpoints once the job runs.

* RocksDB with heap timers (``state.backend.rocksdb.timer-service.factory: HEAP``): the
  operator writes the long-term index into Flink's raw keyed state, where heap timers would go
  too, and Flink then declines every checkpoint ("Attempting to snapshot timers to raw keyed
  state, but this operator has custom raw keyed state to write").
* Checkpoints without a checkpoint directory, or with ``execution.checkpointing.storage:
  jobmanager``: Flink then keeps their state in the JobManager's memory, at most 5 MB a task;
  a long-term index outgrows that after a few thousand memories, every checkpoint fails ("Size
  of the state is larger than the maximum permitted memory-backed state") and Flink restarts
  the job from its start, again and again.
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


def check_checkpoint_storage(j_conf: Any) -> None:
    """Raise ConfigurationError for periodic checkpoints whose state would be kept in the
    JobManager's memory: no checkpoint storage and no directory, or ``jobmanager`` storage
    (which keeps state in memory even with a directory, for the metadata only). Read through
    Flink's own options, so their older key names count too."""
    from pyflink.java_gateway import get_gateway

    options = get_gateway().jvm.org.apache.flink.configuration.CheckpointingOptions
    if not j_conf.getOptional(options.CHECKPOINTING_INTERVAL).isPresent():
        return  # no periodic checkpoints
    storage = j_conf.getOptional(options.CHECKPOINT_STORAGE).orElse(None)
    directory = j_conf.getOptional(options.CHECKPOINTS_DIRECTORY).orElse(None)
    # No storage named: Flink writes to the directory if there is one, else to memory.
    in_memory = not directory if storage is None else storage.strip().lower() == "jobmanager"
    if not in_memory:
        return
    raise ConfigurationError(
        "checkpoints are on (execution.checkpointing.interval), but their state would be kept "
        "in the JobManager's memory (no execution.checkpointing.dir, or "
        "execution.checkpointing.storage: jobmanager): at most 5 MB a task, which the memory "
        "operator's long-term index outgrows after a few thousand memories; every checkpoint "
        "would then fail and the job restart from its start. Set execution.checkpointing.dir "
        "(file://, s3://, hdfs://...) in the job's Configuration or the cluster's config.yaml, "
        "and leave execution.checkpointing.storage unset or set it to filesystem."
    )
