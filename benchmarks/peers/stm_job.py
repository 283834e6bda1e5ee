"""One framework's short-term memory job, timed in this process (run once per framework).

    python -m benchmarks.peers.stm_job --framework ours|flink-agents|plain --k 3 --keys 1000 \
        --events 200000 --parallelism 1 --reps 3 --out result.json

The same agent (k reads + k writes of short-term memory per event) over the same input
(``"k<i % keys>|<i>"`` from a NumberSequenceSource) on a local MiniCluster. The process warms
the JVM with a small job, then times ``reps`` x (full job, small job); steady-state throughput
subtracts the small job (startup). Latency samples come from inside the action
(benchmarks/peers/latency.py) of the full jobs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def percentile(values: list[int], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return float(values[min(len(values) - 1, int(q / 100 * len(values)))])


def build(framework: str, events: int, keys: int, k: int, parallelism: int):
    from pyflink.common import Configuration, Types, WatermarkStrategy
    from pyflink.datastream import StreamExecutionEnvironment
    from pyflink.datastream.connectors.number_seq import NumberSequenceSource

    conf = Configuration()
    # Both frameworks' Python functions (the source's map, the key selector) run embedded in
    # the JVM like the agents themselves (ours sets this anyway; flink-agents leaves PyFlink's
    # default, process mode, which would add a Beam worker process to its side only).
    conf.set_string("python.execution-mode", "thread")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)

    def source():
        seq = env.from_source(
            NumberSequenceSource(0, events - 1), WatermarkStrategy.no_watermarks(), "events")
        if framework != "flink-agents":
            return seq.map(lambda i: f"k{i % keys}|{i}", output_type=Types.STRING())
        # flink-agents takes pickled Python objects as input (PythonActionExecutor checks
        # byte[]), so its map keeps PyFlink's default output type.
        return seq.map(lambda i: f"k{i % keys}|{i}")

    if framework == "plain":
        from .stm_plain import KOpsPlain

        source().key_by(lambda v: v.split("|", 1)[0], key_type=Types.STRING()) \
            .process(KOpsPlain(k), output_type=Types.STRING()).print()
    elif framework == "ours":
        from flink_agents_memory import AgentsExecutionEnvironment

        from .stm_agents_ours import KOpsAgent

        agents = AgentsExecutionEnvironment.get_execution_environment(env)
        agents.from_datastream(source(), lambda v: v.split("|", 1)[0]).apply(
            KOpsAgent(k)).to_datastream(Types.STRING()).print()
    else:
        from flink_agents.api.execution_environment import AgentsExecutionEnvironment

        from .stm_agents_fa import KOpsAgent

        agents = AgentsExecutionEnvironment.get_execution_environment(env=env)
        agents.from_datastream(input=source(), key_selector=lambda v: v.split("|", 1)[0]) \
            .apply(KOpsAgent()).to_datastream().print()
    return env


def timed_job(framework: str, events: int, keys: int, k: int, parallelism: int) -> float:
    env = build(framework, events, keys, k, parallelism)
    start = time.perf_counter()
    env.execute(f"bench-stm-{framework}")
    return time.perf_counter() - start


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--framework", choices=["ours", "flink-agents", "plain"], required=True)
    p.add_argument("--k", type=int, default=3)
    p.add_argument("--keys", type=int, default=1000)
    p.add_argument("--events", type=int, default=200_000)
    p.add_argument("--parallelism", type=int, default=1)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    lat_dir = tempfile.mkdtemp(prefix="bench-lat-")
    os.environ["BENCH_LAT_DIR"] = lat_dir
    os.environ["BENCH_K"] = str(a.k)
    # The JVM's embedded interpreter finds the agents' module and the framework through this.
    paths = [str(ROOT), sysconfig.get_paths()["purelib"], os.environ.get("PYTHONPATH", "")]
    os.environ["PYTHONPATH"] = os.pathsep.join(x for x in paths if x)
    sys.path.insert(0, str(ROOT))
    from ..steady import steady_rate
    from . import latency

    small = max(a.events // 20, 1000)
    timed_job(a.framework, small, a.keys, a.k, a.parallelism)  # warm-up
    walls: list[float] = []
    smalls: list[float] = []
    action: list[int] = []
    service: list[int] = []
    for _ in range(a.reps):
        latency.clear(lat_dir)
        walls.append(timed_job(a.framework, a.events, a.keys, a.k, a.parallelism))
        act, svc = latency.read(lat_dir)
        action += act
        service += svc
        smalls.append(timed_job(a.framework, small, a.keys, a.k, a.parallelism))
    wall = statistics.median(walls)
    base = statistics.median(smalls)
    result = {
        "framework": a.framework, "k": a.k, "keys": a.keys, "events": a.events,
        "parallelism": a.parallelism, "reps": a.reps, "small_events": small,
        "wall_s": {"median": wall, "min": min(walls), "max": max(walls), "all": walls},
        "small_wall_s": {"median": base, "min": min(smalls), "max": max(smalls)},
        "events_per_s": a.events / wall,
        "events_per_s_min": a.events / max(walls),
        "events_per_s_max": a.events / min(walls),
        "steady_events_per_s": steady_rate(a.events - small, wall, base),
        "latency_samples": len(service),
        "service_us": {"p50": percentile(service, 50), "p99": percentile(service, 99)},
        "action_us": {"p50": percentile(action, 50), "p99": percentile(action, 99)},
    }
    Path(a.out).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
