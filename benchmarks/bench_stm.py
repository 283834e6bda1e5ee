"""Short-term memory: our agent vs a plain PyFlink KeyedProcessFunction, in one run.

Both do 3 short-term memory operations per event (read a counter, write it, write the last
sequence number) on 1,000 keys; both run in thread mode in the same process, alternating, so
machine noise hits both alike. Startup is measured with a tiny job and subtracted for the
steady-state figure.

    python -m benchmarks.bench_stm [--events 200000] [--keys 1000] [--reps 3]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pyflink.common import Types
from pyflink.datastream import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import MapStateDescriptor

from flink_agents_memory import Agent, AgentsExecutionEnvironment, InputEvent, action

from .common import bench_env, keyed_input, machine, summary, timed


class ThreeOpsAgent(Agent):
    @action(InputEvent)
    @staticmethod
    def touch(event: InputEvent, ctx: Any) -> None:
        stm = ctx.get_short_term_memory()
        stm.set("count", (stm.get("count") or 0) + 1)
        stm.set("last", event.input)


class ThreeOpsRaw(KeyedProcessFunction):
    def open(self, runtime_context: RuntimeContext) -> None:
        self.state = runtime_context.get_map_state(
            MapStateDescriptor("raw", Types.STRING(), Types.STRING())
        )

    def process_element(self, value: str, ctx: KeyedProcessFunction.Context):
        count = self.state.get("count")
        self.state.put("count", str(int(count or 0) + 1))
        self.state.put("last", value)
        return []


def run_ours(events: int, keys: int) -> None:
    env = bench_env()
    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = keyed_input(env, events, keys)
    agents_env.from_datastream(ds, lambda v: v.split("|", 1)[0]).apply(
        ThreeOpsAgent()
    ).to_datastream(Types.STRING()).print()
    env.execute("bench-stm-ours")


def run_raw(events: int, keys: int) -> None:
    env = bench_env()
    # Same interpreter and thread mode as ours, so only the memory layer differs.
    AgentsExecutionEnvironment.get_execution_environment(env)
    ds = keyed_input(env, events, keys)
    ds.key_by(lambda v: v.split("|", 1)[0], key_type=Types.STRING()).process(
        ThreeOpsRaw(), output_type=Types.STRING()
    ).print()
    env.execute("bench-stm-raw")


def run(events: int = 200_000, keys: int = 1000, reps: int = 3) -> dict[str, Any]:
    small = max(events // 100, 1000)
    jobs = {"ours": run_ours, "raw": run_raw}
    for job in jobs.values():  # warm the JVM's JIT for both before anything is timed
        job(small, keys)
    samples: dict[str, list[float]] = {f"{n}{s}": [] for n in jobs for s in ("", "_small")}
    for rep in range(reps):
        order = list(jobs) if rep % 2 == 0 else list(reversed(jobs))  # ABBA against drift
        for name in order:
            job = jobs[name]
            samples[name].append(timed(lambda job=job: job(events, keys)))
            samples[f"{name}_small"].append(timed(lambda job=job: job(small, keys)))
    result: dict[str, Any] = {"events": events, "keys": keys, "reps": reps, "machine": machine()}
    for name in jobs:
        wall = summary(samples[name])
        base = summary(samples[f"{name}_small"])["median"]
        result[name] = {
            "wall_s": wall,
            "events_per_s": events / wall["median"],
            "steady_events_per_s": (events - small) / max(wall["median"] - base, 1e-9),
        }
    result["ratio_end_to_end"] = result["ours"]["events_per_s"] / result["raw"]["events_per_s"]
    result["ratio_steady"] = (
        result["ours"]["steady_events_per_s"] / result["raw"]["steady_events_per_s"]
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--keys", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", help="write the JSON result to this file too")
    args = parser.parse_args()
    result = json.dumps(run(args.events, args.keys, args.reps), indent=2)
    if args.out:
        Path(args.out).write_text(result)
    print(result)


if __name__ == "__main__":
    main()
