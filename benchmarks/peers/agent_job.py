"""What the in-job long-term benchmarks share: a scratch folder the agent writes its timings
and marks to (both sides of those files are here), and one job (parallelism 1, one source
subtask) that feeds an agent a list of labels in order, keyed by their second field."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def output_folder(prefix: str) -> str:
    """A new folder for the agent's files, in ``$BENCH_LTM_OUT`` (the JVM's embedded
    interpreter inherits it); also puts the repository on the path for the agents' module."""
    out_dir = tempfile.mkdtemp(prefix=prefix)
    os.environ["BENCH_LTM_OUT"] = out_dir
    sys.path.insert(0, str(ROOT))
    return out_dir


def run_job(name: str, labels: list[str], agent: Any, conf: dict[str, str] | None = None,
            checkpoint_ms: int | None = None) -> float:
    """Run ``agent`` over ``labels`` (``"<op>|<key>|..."``); the job's wall seconds."""
    from pyflink.common import Configuration, Types, WatermarkStrategy
    from pyflink.datastream import StreamExecutionEnvironment
    from pyflink.datastream.connectors.number_seq import NumberSequenceSource

    from flink_agents_memory import AgentsExecutionEnvironment

    configuration = Configuration()
    for key, value in (conf or {}).items():
        configuration.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(configuration)
    env.set_parallelism(1)
    if checkpoint_ms is not None:
        env.enable_checkpointing(checkpoint_ms)
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = env.from_source(NumberSequenceSource(0, len(labels) - 1),
                         WatermarkStrategy.no_watermarks(), "labels") \
        .map(lambda e: labels[e], output_type=Types.STRING())
    agents.from_datastream(ds, lambda v: v.split("|")[1]).apply(agent) \
        .to_datastream(Types.STRING()).print()
    start = time.perf_counter()
    env.execute(name)
    return time.perf_counter() - start


def jvm_has_vector_module() -> bool:
    """Whether this process's JVM (the MiniCluster's) resolved ``jdk.incubator.vector``: the
    operator's SIMD dot product is on exactly then (on a CPU of 4 float lanes or more)."""
    from pyflink.java_gateway import get_gateway

    from flink_agents_memory.vector_module import VECTOR_MODULE

    boot = get_gateway().jvm.java.lang.ModuleLayer.boot()
    return bool(boot.findModule(VECTOR_MODULE).isPresent())


def append_rows(rows: list[dict[str, Any]]) -> None:
    """In the agent: add ``rows`` to this thread's JSON lines in ``$BENCH_LTM_OUT``."""
    path = os.path.join(os.environ["BENCH_LTM_OUT"], f"{threading.get_ident()}.jsonl")
    with open(path, "a") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)


def write_mark(name: str, value: float) -> None:
    """In the agent: ``value`` as ``<name>.mark`` in ``$BENCH_LTM_OUT`` (read by :func:`mark`)."""
    with open(os.path.join(os.environ["BENCH_LTM_OUT"], f"{name}.mark"), "w") as f:
        f.write(repr(value))


def read_rows(out_dir: str) -> list[dict[str, Any]]:
    """Every JSON line the agent wrote (one file per thread)."""
    rows: list[dict[str, Any]] = []
    for name in os.listdir(out_dir):
        if name.endswith(".jsonl"):
            with open(os.path.join(out_dir, name)) as f:
                rows += [json.loads(line) for line in f]
    return rows


def mark(out_dir: str, name: str) -> float:
    """The number the agent wrote to ``<name>.mark``."""
    return float(Path(out_dir, f"{name}.mark").read_text())
