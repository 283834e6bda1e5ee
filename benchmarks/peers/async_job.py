"""One framework's LLM-bound job, timed in this process (benchmarks/bench_async.py).

    python -m benchmarks.peers.async_job --framework ours|flink-agents --url URL --runs 2000 \
        --keys 1000 --limit 64 --out result.json [--agent ask|sync-nocall|async-nocall]
        [--checkpoint-ms 1000 [--unaligned] [--debloat]] [--rate 100]

The same agent on each side: per input ``"k<i % keys>|<i>"``, two LLM calls awaited off the
task thread (``durable_execute_async``), at most ``--limit`` runs in flight (ours:
``max_runs_in_flight``; Flink Agents: ``num-async-threads``). A small job warms the JVM and
its time is subtracted for the steady rate. With ``--checkpoint-ms``, the job checkpoints and
the completed checkpoints' durations are read from the MiniCluster's REST API while it runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import socket
import statistics
import sys
import sysconfig
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build(a: argparse.Namespace, runs: int, port: int | None) -> Any:
    from pyflink.common import Configuration, Types, WatermarkStrategy
    from pyflink.datastream import StreamExecutionEnvironment
    from pyflink.datastream.connectors.number_seq import NumberSequenceSource

    conf = Configuration()
    conf.set_string("python.execution-mode", "thread")
    if port is not None:
        conf.set_string("rest.port", str(port))
    if a.checkpoint_ms:
        conf.set_string("execution.checkpointing.interval", f"{a.checkpoint_ms}ms")
        conf.set_string("execution.checkpointing.dir",
                        Path(tempfile.mkdtemp(prefix="cp-", dir=a.work)).as_uri())
        conf.set_string("execution.checkpointing.unaligned.enabled", str(a.unaligned).lower())
        conf.set_string("taskmanager.network.memory.buffer-debloat.enabled",
                        str(a.debloat).lower())
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    keys = a.keys
    pause = 1 / a.rate if a.rate else 0.0
    seq = env.from_source(NumberSequenceSource(0, runs - 1), WatermarkStrategy.no_watermarks(),
                          "inputs")
    if pause:  # a steady load instead of the whole input at once
        seq = seq.map(lambda i: time.sleep(pause) or i, output_type=Types.LONG())
    if a.framework == "ours":
        from flink_agents_memory import AgentConfig, AgentsExecutionEnvironment

        from . import async_agents_ours as agents_module

        agent = {"ask": agents_module.AskTwiceAgent, "sync-nocall": agents_module.SyncNoCallAgent,
                 "async-nocall": agents_module.AsyncNoCallAgent}[a.agent]()
        source = seq.map(lambda i: f"k{i % keys}|{i}", output_type=Types.STRING())
        agents = AgentsExecutionEnvironment.get_execution_environment(env)
        outputs = agents.from_datastream(source, lambda v: v.split("|", 1)[0]).apply(
            agent, AgentConfig(max_runs_in_flight=a.limit)).to_datastream(Types.STRING())
    else:
        from flink_agents.api.execution_environment import AgentsExecutionEnvironment

        from .async_agents_fa import AskTwiceAgent, configure

        source = seq.map(lambda i: f"k{i % keys}|{i}")
        agents = AgentsExecutionEnvironment.get_execution_environment(env=env)
        configure(agents, a.limit)
        outputs = agents.from_datastream(
            input=source, key_selector=lambda v: v.split("|", 1)[0]).apply(
            AskTwiceAgent()).to_datastream()
    # When each output came out: the steady rate is read between two of them, so neither
    # start-up nor the drain at the end is in it.
    return outputs.map(lambda v: time.time(), output_type=Types.DOUBLE())


def checkpoint_stats(port: int, stop: threading.Event, out: dict[str, Any]) -> None:
    """Poll the job's checkpoint history until ``stop``; keep the last answer."""
    while not stop.wait(0.5):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/jobs", timeout=5) as r:
                jobs = [j["id"] for j in json.load(r)["jobs"] if j["status"] == "RUNNING"]
            for job in jobs:
                url = f"http://127.0.0.1:{port}/jobs/{job}/checkpoints"
                with urllib.request.urlopen(url, timeout=5) as r:
                    out["history"] = json.load(r).get("history", [])
        except (OSError, ValueError, KeyError):
            continue


def timed_job(a: argparse.Namespace, runs: int,
              watch: bool) -> tuple[float, list[float], dict[str, Any]]:
    port = free_port() if watch else None
    times = build(a, runs, port)
    stats: dict[str, Any] = {}
    stop = threading.Event()
    watcher = None
    if port is not None:
        watcher = threading.Thread(target=checkpoint_stats, args=(port, stop, stats), daemon=True)
        watcher.start()
    start = time.perf_counter()
    with times.execute_and_collect(f"bench-async-{a.framework}-{a.agent}") as results:
        out_times = sorted(results)
    wall = time.perf_counter() - start
    stop.set()
    if watcher is not None:
        watcher.join(10)
    return wall, out_times, stats


def steady(out_times: list[float]) -> float | None:
    """Outputs per second between the 20th and the 95th percentile output."""
    first, last = int(0.2 * len(out_times)), int(0.95 * len(out_times)) - 1
    if last <= first or out_times[last] <= out_times[first]:
        return None
    return (last - first) / (out_times[last] - out_times[first])


def durations_ms(history: list[dict[str, Any]]) -> list[int]:
    return sorted(int(c["end_to_end_duration"]) for c in history
                  if c.get("status") == "COMPLETED")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--framework", choices=["ours", "flink-agents"], required=True)
    p.add_argument("--agent", choices=["ask", "sync-nocall", "async-nocall"], default="ask")
    p.add_argument("--url", default="")
    p.add_argument("--runs", type=int, default=2000)
    p.add_argument("--keys", type=int, default=1000)
    p.add_argument("--limit", type=int, default=64)
    p.add_argument("--checkpoint-ms", type=int, default=0)
    p.add_argument("--unaligned", action="store_true")
    p.add_argument("--debloat", action="store_true",
                   help="Flink's buffer debloating: less data in flight before a barrier")
    p.add_argument("--rate", type=float, default=0,
                   help="inputs per second from the source (0: as fast as it takes them)")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    (ROOT / "var").mkdir(exist_ok=True)
    a.work = tempfile.mkdtemp(prefix="bench-async-", dir=ROOT / "var")
    os.environ["BENCH_LLM_URL"] = a.url
    paths = [str(ROOT), sysconfig.get_paths()["purelib"], os.environ.get("PYTHONPATH", "")]
    os.environ["PYTHONPATH"] = os.pathsep.join(x for x in paths if x)
    sys.path.insert(0, str(ROOT))
    timed_job(a, max(a.runs // 10, 50), False)  # warm-up
    walls, rates, checkpoints = [], [], []
    for _ in range(a.reps):
        wall, out_times, stats = timed_job(a, a.runs, bool(a.checkpoint_ms))
        assert len(out_times) == a.runs, f"{len(out_times)} outputs for {a.runs} runs"
        walls.append(wall)
        rates.append(steady(out_times))
        checkpoints += durations_ms(stats.get("history", []))
    wall = statistics.median(walls)
    measured = [r for r in rates if r is not None]
    result: dict[str, Any] = {
        "framework": a.framework, "agent": a.agent, "runs": a.runs, "keys": a.keys,
        "limit": a.limit, "reps": a.reps, "wall_s": walls, "runs_per_s": a.runs / wall,
        "steady_runs_per_s": statistics.median(measured) if measured else None,
        "steady_all": rates,
    }
    if a.checkpoint_ms:
        checkpoints.sort()
        result["checkpoint"] = {
            "interval_ms": a.checkpoint_ms, "unaligned": a.unaligned, "debloat": a.debloat,
            "rate": a.rate or None, "count": len(checkpoints),
            "p50_ms": statistics.median(checkpoints) if checkpoints else None,
            "p95_ms": checkpoints[math.ceil(0.95 * len(checkpoints)) - 1] if checkpoints
            else None,
            "max_ms": checkpoints[-1] if checkpoints else None}
    Path(a.out).write_text(json.dumps(result, indent=2))
    shutil.rmtree(a.work, ignore_errors=True)


if __name__ == "__main__":
    main()
