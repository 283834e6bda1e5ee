"""Short-term memory: our agent vs a plain PyFlink KeyedProcessFunction, in one run.

Both do 3 short-term memory operations per event (read a counter, write it, write the last
sequence number) on 1,000 keys; both run in thread mode in the same process, alternating, so
machine noise hits both alike. Startup is measured with a tiny job and subtracted for the
steady-state figure.

    python -m benchmarks.bench_stm [--events 200000] [--keys 1000] [--reps 3]

In the suite (benchmarks/run.py) this is ``run(quick)`` / ``markdown(result)``.

Metrics (issue 9): ``ours`` runs with metrics on (the default); ``measure(metrics=["off"])``
adds a side ``ours_metrics_off`` (``AgentConfig(metrics=False)``) in the same ABBA rotation,
right beside ``ours`` in every rep. The metrics overhead is the median over the reps of
``1 - ours / ours_metrics_off``, each rep's two jobs run back to back (budget: 5%): the machine
drifts over minutes by more than metrics cost, and a pair a few seconds apart shares its
state. The overhead from the two medians is reported beside it.

``measure(backend="rocksdb")`` runs both jobs on RocksDB instead of the heap
(benchmarks/bench_stm_rocksdb.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
from functools import partial
from pathlib import Path
from typing import Any

from pyflink.common import Types
from pyflink.datastream import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import MapStateDescriptor

from flink_agents_memory import Agent, AgentConfig, AgentsExecutionEnvironment, InputEvent, action

from .common import bench_env, keyed_input, machine, summary, timed
from .steady import rate_text, ratio_of, steady_rate


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


def run_ours(events: int, keys: int, metrics: str | None = None,
             backend: str = "hashmap") -> None:
    env = bench_env(backend=backend)
    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = keyed_input(env, events, keys)
    agents_env.from_datastream(ds, lambda v: v.split("|", 1)[0]).apply(
        ThreeOpsAgent(), AgentConfig(metrics=metrics != "off")
    ).to_datastream(Types.STRING()).print()
    env.execute("bench-stm-ours")


def run_raw(events: int, keys: int, backend: str = "hashmap") -> None:
    env = bench_env(backend=backend)
    # Same interpreter and thread mode as ours, so only the memory layer differs.
    AgentsExecutionEnvironment.get_execution_environment(env)
    ds = keyed_input(env, events, keys)
    ds.key_by(lambda v: v.split("|", 1)[0], key_type=Types.STRING()).process(
        ThreeOpsRaw(), output_type=Types.STRING()
    ).print()
    env.execute("bench-stm-raw")


def measure(events: int = 200_000, keys: int = 1000, reps: int = 3,
            metrics: list[str] | None = None, backend: str = "hashmap") -> dict[str, Any]:
    small = max(events // 100, 1000)
    # ours in the middle: its metrics-off twin runs right after it or right before it.
    jobs: dict[str, Any] = {"raw": partial(run_raw, backend=backend),
                            "ours": partial(run_ours, backend=backend)}
    for value in metrics or []:
        jobs[f"ours_metrics_{value}"] = partial(run_ours, metrics=value, backend=backend)
    for job in jobs.values():  # warm the JVM's JIT for both before anything is timed
        job(small, keys)
    samples: dict[str, list[float]] = {f"{n}{s}": [] for n in jobs for s in ("", "_small")}
    for rep in range(reps):
        order = list(jobs) if rep % 2 == 0 else list(reversed(jobs))  # ABBA against drift
        for name in order:
            job = jobs[name]
            samples[name].append(timed(lambda job=job: job(events, keys)))
            samples[f"{name}_small"].append(timed(lambda job=job: job(small, keys)))
    result: dict[str, Any] = {"events": events, "keys": keys, "reps": reps, "backend": backend,
                              "machine": machine()}
    for name in jobs:
        wall = summary(samples[name])
        base = summary(samples[f"{name}_small"])["median"]
        result[name] = {"wall_s": wall, "events_per_s": events / wall["median"],
                        "steady_events_per_s": steady_rate(events - small, wall["median"], base)}
    ours_steady, raw_steady = (result[n]["steady_events_per_s"] for n in ("ours", "raw"))
    off = result.get("ours_metrics_off", {}).get("steady_events_per_s")
    if "ours_metrics_off" in result:
        result["metrics_overhead_of_medians"] = None if ours_steady is None or off is None \
            else 1 - ours_steady / off
        pairs = paired_overheads(samples, events - small, reps)
        result["metrics_overhead_pairs"] = pairs
        resolved = [x for x in pairs if x is not None]
        result["metrics_overhead"] = statistics.median(resolved) if resolved else None
    result["ratio_end_to_end"] = result["ours"]["events_per_s"] / result["raw"]["events_per_s"]
    result["ratio_steady"] = ratio_of(ours_steady, raw_steady)
    return result


def paired_overheads(samples: dict[str, list[float]], extra_events: int,
                     reps: int) -> list[float | None]:
    """Per rep, ``1 - on / off`` of the steady rates of its back-to-back jobs with metrics on
    and off (None where a rate is not resolvable)."""
    def rate(name: str, rep: int) -> float | None:
        return steady_rate(extra_events, samples[name][rep], samples[f"{name}_small"][rep])

    out: list[float | None] = []
    for rep in range(reps):
        on, off = rate("ours", rep), rate("ours_metrics_off", rep)
        out.append(None if on is None or off is None else 1 - on / off)
    return out


NAME = "stm"
TITLE = "Short-term memory vs plain PyFlink state"
COMMAND = "python -m benchmarks.bench_stm --events 200000 --keys 1000 --reps 5"


def run(quick: bool) -> dict[str, Any]:
    """The suite's entry point. Full: 200k events, 1,000 keys, 5 reps; quick (the CI smoke):
    10k events, 1 rep."""
    if quick:
        return measure(events=10_000, keys=1000, reps=1, metrics=["off"])
    return measure(events=200_000, keys=1000, reps=5, metrics=["off"])


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    ratio, overhead = r["ratio_steady"], r.get("metrics_overhead")
    return [{
        "figure": f"STM throughput, 3 ops/event, {r['events']:,} events, {r['keys']:,} keys "
                  "(steady state)",
        "ours": rate_text(r["ours"]["steady_events_per_s"]),
        "peer": f"{rate_text(r['raw']['steady_events_per_s'])} (plain KeyedProcessFunction)",
        "ratio": ratio, "target": ">= 0.85x", "met": ratio is not None and ratio >= 0.85,
        "command": COMMAND,
    }] + ([{
        "figure": "metrics overhead on the same job (metrics on vs off, steady state"
                  + (", back to back in each rep: the median of the reps' ratios)"
                     if "metrics_overhead_pairs" in r else ")"),
        "ours": f"{rate_text(r['ours']['steady_events_per_s'])} (on)",
        "peer": f"{rate_text(r['ours_metrics_off']['steady_events_per_s'])} (off)",
        "ratio": None if overhead is None else 1 - overhead, "target": "<= 5% slower",
        "met": overhead is not None and overhead <= 0.05, "command": COMMAND,
    }] if "metrics_overhead" in r else [])


def markdown(r: dict[str, Any]) -> str:
    out = jobs_markdown(r)
    if PROFILE.exists():
        out += "\n\n" + profile_markdown(json.loads(PROFILE.read_text()))
    return out


def jobs_markdown(r: dict[str, Any]) -> str:
    """The jobs' table and their ratio."""
    def line(name: str, label: str) -> str:
        w = r[name]["wall_s"]
        return (f"| {label} | {w['median']:.2f} ({w['min']:.2f}-{w['max']:.2f}) | "
                f"{r[name]['events_per_s']:,.0f} | {rate_text(r[name]['steady_events_per_s'])} |")

    out = [
        "Both jobs do 3 short-term memory operations per event (read a counter, write it, write "
        "the last sequence number) on the same input, in thread mode, in one process, "
        f"alternating ABBA over {r['reps']} reps after a warm-up of both, on the "
        f"`{r.get('backend', 'hashmap')}` state backend. Steady state subtracts a job of 1% of "
        "the events (startup).", "",
        "| job | wall s, median (min-max) | events/s end to end | events/s steady |",
        "|---|---|---|---|", line("ours", "ours (Agent, MemoryAgentOperator)"),
        line("raw", "plain KeyedProcessFunction + MapState")]
    out += [line(n, n) for n in r if n.startswith("ours_metrics_")]
    steady = "not resolvable" if r["ratio_steady"] is None else f"{r['ratio_steady']:.2f}x"
    target = " (target >= 0.85x)" if r.get("backend", "hashmap") == "hashmap" else ""
    out += ["", f"Ratio ours/plain: steady {steady}, end to end "
            f"{r['ratio_end_to_end']:.2f}x{target}."]
    if "metrics_overhead_pairs" in r:
        out += ["", overhead_text(r)]
    return "\n".join(out)


def overhead_text(r: dict[str, Any]) -> str:
    """What metrics cost in each rep, and from the medians of the two rates."""
    def pct(x: float | None) -> str:
        return "not resolvable" if x is None else f"{100 * x:.1f}%"

    pairs = ", ".join(pct(x) for x in r["metrics_overhead_pairs"])
    return (f"Metrics overhead (1 - on / off, steady): {pct(r['metrics_overhead'])}, the median "
            f"of the reps' back-to-back pairs ({pairs}); from the median rates of the two jobs "
            f"{pct(r['metrics_overhead_of_medians'])}.")


#: Per-part profile of both jobs before and after the short-term path work (issue 18),
#: written by hand from two runs of ``python -m benchmarks.profile_stm`` (see its docstring).
PROFILE = Path(__file__).resolve().parents[1] / "docs" / "benchmarks" / "stm_profile.json"


def profile_markdown(p: dict[str, Any]) -> str:
    """The before/after table of where an event's time goes."""
    runs = p["runs"]
    names = list(runs)
    parts: list[str] = []
    for run in runs.values():
        for side in ("ours", "raw"):
            parts += [k for k in run[side] if k not in parts and k != "total"]
    head = " | ".join(f"{n}: ours | {n}: plain" for n in names)
    lines = [f"Where an event's time goes (`{p['command']}`): {p['note']}", "",
             f"| part, us/event | {head} |", "|---" * (1 + 2 * len(names)) + "|"]
    for part in [*parts, "total"]:
        cells = []
        for n in names:
            for side in ("ours", "raw"):
                v = runs[n][side].get(part)
                cells.append("-" if v is None else f"{v:,.1f}")
        label = f"**{part}**" if part == "total" else part
        lines.append(f"| {label} | {' | '.join(cells)} |")
    ratios = ", ".join(f"{n}: {runs[n]['raw']['total'] / runs[n]['ours']['total']:.2f}x"
                       for n in names)
    lines += ["", f"Ours / plain throughput these totals imply (plain total / ours total): "
              f"{ratios}."]
    return "\n".join(lines)


def main(description: str | None = None, **measure_options: Any) -> None:
    """The command line of this bench and of its variants (``measure_options``: backend...)."""
    parser = argparse.ArgumentParser(description=description or __doc__)
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--keys", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", help="write the JSON result to this file too")
    args = parser.parse_args()
    options = measure_options or {"metrics": ["off"]}
    result = json.dumps(measure(args.events, args.keys, args.reps, **options), indent=2)
    if args.out:
        Path(args.out).write_text(result)
    print(result)


if __name__ == "__main__":
    main()
