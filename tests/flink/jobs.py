"""Helpers that build and run small agent jobs on a local MiniCluster (thread mode)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pyflink.common import Configuration, Types, WatermarkStrategy
from pyflink.datastream import DataStream, StreamExecutionEnvironment
from pyflink.datastream.connectors.number_seq import NumberSequenceSource

from flink_agents_memory import Agent, AgentConfig, AgentsExecutionEnvironment


def make_env(
    parallelism: int = 2,
    checkpoint_dir: Path | None = None,
    checkpoint_interval_ms: int = 200,
    restarts: int = 0,
    extra: dict[str, str] | None = None,
    backend: str = "hashmap",
) -> StreamExecutionEnvironment:
    """A fresh environment; with ``checkpoint_dir`` it checkpoints and restarts on failure.
    ``extra``: more configuration (e.g. a REST port); ``backend`` "rocksdb" uses RocksDB with
    incremental checkpoints."""
    conf = Configuration()
    set_backend(conf, backend)
    for name, value in (extra or {}).items():
        conf.set_string(name, value)
    if checkpoint_dir is not None:
        conf.set_string("execution.checkpointing.interval", f"{checkpoint_interval_ms}ms")
        conf.set_string("execution.checkpointing.dir", checkpoint_dir.as_uri())
    if restarts:
        conf.set_string("restart-strategy.type", "fixed-delay")
        conf.set_string("restart-strategy.fixed-delay.attempts", str(restarts))
        conf.set_string("restart-strategy.fixed-delay.delay", "200ms")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    return env


def set_backend(conf: Configuration, backend: str) -> None:
    """The state backend under test: "hashmap" (heap) or "rocksdb" (incremental checkpoints)."""
    conf.set_string("state.backend.type", backend)
    if backend == "rocksdb":
        conf.set_string("execution.checkpointing.incremental", "true")


def sequence_source(
    env: StreamExecutionEnvironment, n: int, keys: int, throttle_ms: float = 0
) -> DataStream:
    """Replayable, checkpointed input ``"k<i % keys>|<i>"`` for i in 0..n-1, one source
    subtask so that each key sees its events in order on every run. ``throttle_ms`` slows the
    source so checkpoints complete mid-stream (aligned barriers wait behind in-flight data)."""

    def label(i: int) -> str:
        if throttle_ms:
            time.sleep(throttle_ms / 1000)
        return f"k{i % keys}|{i}"

    return (
        env.from_source(NumberSequenceSource(0, n - 1), WatermarkStrategy.no_watermarks(), "seq")
        .set_parallelism(1)
        .map(label, output_type=Types.STRING())
        .set_parallelism(1)
    )


def key_of(value: str) -> str:
    return value.split("|", 1)[0]


def run_agent(
    agent: Agent,
    inputs: Iterable[str] | Callable[[StreamExecutionEnvironment], DataStream],
    env: StreamExecutionEnvironment | None = None,
    config: AgentConfig | None = None,
    key: Callable[[Any], Any] = key_of,
    agent_parallelism: int | None = None,
) -> list[str]:
    """Run ``agent`` over ``inputs`` and collect its string outputs."""
    env = env or make_env()
    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    if callable(inputs):
        ds = inputs(env)
    else:
        ds = env.from_collection(list(inputs), type_info=Types.STRING())
    out = agents_env.from_datastream(ds, key).apply(agent, config).to_datastream(Types.STRING())
    if agent_parallelism:
        out.set_parallelism(agent_parallelism)
    with out.execute_and_collect() as results:
        return list(results)
