"""Histories: ``append`` + ``get_recent(5)`` per event vs a plain ListState, in one run.

For each capacity (10, 1,000, 10,000 items) both sides run the same stream (``keys`` keys,
``events`` events in order from one source subtask, parallelism 1), alternating ABBA over
``reps`` reps after a warm-up. The per-event cost is the service time recorded inside the
job (benchmarks/peers/latency.py: the gap between consecutive events' starts on the subtask),
in stream order, so the median of the first 1% of the stream (each key's history has grown to
``events/keys/100`` items) can be set beside the median of the last 1% (100x as many items
appended): flat means the cost does not grow with the items appended.

    python -m benchmarks.bench_history [--quick]
"""

from __future__ import annotations

import os
import statistics
import tempfile
from typing import Any

from pyflink.common import Types

from flink_agents_memory import AgentsExecutionEnvironment

from .common import abba, bench_env, keyed_input, machine, module_main, save_figure, summary, timed
from .peers import latency
from .peers.history_agents import HistoryAgent, ListStateHistory

NAME = "history"
TITLE = "Histories vs a plain ListState"
COMMAND = "python -m benchmarks.bench_history"
WINDOWS = 100

os.environ.setdefault("BENCH_LAT_DIR", tempfile.mkdtemp(prefix="bench-lat-"))


def run_ours(events: int, keys: int, capacity: int) -> None:
    env = bench_env()
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    agents.from_datastream(keyed_input(env, events, keys), lambda v: v.split("|", 1)[0]).apply(
        HistoryAgent(capacity)).to_datastream(Types.STRING()).print()
    env.execute("bench-history-ours")


def run_raw(events: int, keys: int, capacity: int) -> None:
    env = bench_env()
    AgentsExecutionEnvironment.get_execution_environment(env)  # same thread mode and paths
    keyed_input(env, events, keys).key_by(lambda v: v.split("|", 1)[0],
                                          key_type=Types.STRING()).process(
        ListStateHistory(capacity), output_type=Types.STRING()).print()
    env.execute("bench-history-raw")


def measure(capacities: tuple[int, ...], events: int, keys: int, reps: int) -> dict[str, Any]:
    folder = os.environ["BENCH_LAT_DIR"]
    jobs = {"ours": run_ours, "raw": run_raw}
    for job in jobs.values():
        job(2000, keys, 10)  # warm-up
    out: dict[str, Any] = {"events": events, "keys": keys, "reps": reps, "windows": WINDOWS,
                           "machine": machine(), "capacities": {}}
    for capacity in capacities:
        per: dict[str, dict[str, list[Any]]] = {n: {"wall": [], "curves": []} for n in jobs}
        for rep in range(reps):
            for name in abba(list(jobs), rep):
                latency.clear(folder)
                job = jobs[name]
                per[name]["wall"].append(timed(lambda j=job, c=capacity: j(events, keys, c)))
                _, service = latency.read(folder)
                per[name]["curves"].append(latency.windows(service, WINDOWS))
        res: dict[str, Any] = {}
        for name, d in per.items():
            curve = [statistics.median(c[i] for c in d["curves"] if len(c) > i)
                     for i in range(min(len(c) for c in d["curves"]))]
            res[name] = {"wall_s": summary(d["wall"]), "events_per_s": events / statistics.median(
                d["wall"]), "curve_us": curve, "first_us": curve[0], "last_us": curve[-1],
                "growth": curve[-1] / curve[0] if curve[0] else float("nan")}
        res["ratio"] = res["ours"]["events_per_s"] / res["raw"]["events_per_s"]
        out["capacities"][str(capacity)] = res
    return out


def run(quick: bool) -> dict[str, Any]:
    if quick:
        return measure((10, 1000, 10_000), events=4000, keys=4, reps=1)
    return measure((10, 1000, 10_000), events=20_000, keys=1, reps=3)


def after_capacity(r: dict[str, Any], cap: int, side: str) -> float | None:
    """Cost growth from the window where each key's history first holds ``cap`` items to the
    end of the stream (None if the stream never holds twice the capacity)."""
    per_key = r["events"] // r["keys"]
    curve = r["capacities"][str(cap)][side]["curve_us"]
    at = int(cap / per_key * len(curve))  # the window after the capacity is reached
    if cap * 2 > per_key or at >= len(curve) - 1:
        return None
    return curve[-1] / curve[at]


def rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Per capacity: cost growth over the whole stream (items appended x100), and once the
    history is full (when the stream holds at least twice the capacity per key)."""
    per_key = r["events"] // r["keys"]
    out = []
    for cap, c in r["capacities"].items():
        full = "" if int(cap) <= per_key else " (never full)"
        out.append({
            "figure": f"history append+get_recent(5), capacity {int(cap):,}{full}: per-event "
                      f"cost last 1% / first 1% of stream ({per_key // 100:,} -> {per_key:,} "
                      "items appended, x100)",
            "ours": f"{c['ours']['growth']:.2f}x ({c['ours']['first_us']:.0f} -> "
                    f"{c['ours']['last_us']:.0f} us)",
            "peer": f"{c['raw']['growth']:.2f}x ({c['raw']['first_us']:.0f} -> "
                    f"{c['raw']['last_us']:.0f} us) plain ListState",
            "ratio": c["ratio"], "target": "flat (growth <= 1.5x)",
            "met": c["ours"]["growth"] <= 1.5, "command": COMMAND})
        after = after_capacity(r, int(cap), "ours")
        if after is not None:
            after_raw = after_capacity(r, int(cap), "raw")
            out.append({
                "figure": f"history capacity {int(cap):,}: per-event cost growth once full "
                          f"({int(cap):,} -> {per_key:,} items appended)",
                "ours": f"{after:.2f}x", "peer": f"{after_raw:.2f}x plain ListState",
                "ratio": c["ratio"], "target": "flat (growth <= 1.5x)", "met": after <= 1.5,
                "command": COMMAND})
    return out


def markdown(r: dict[str, Any]) -> str:
    per_key = r["events"] // r["keys"]
    lines = [
        f"{r['events']:,} events over {r['keys']} keys ({per_key:,} appends per key), "
        f"parallelism 1, {r['reps']} reps ABBA. Per-event cost = median service time in the "
        f"first and the last 1% of the stream (each key's appended items grow "
        f"{per_key // 100:,} -> {per_key:,}). Plain: a KeyedProcessFunction whose ListState "
        "holds the last `capacity` items, read whole on every event.", "",
        "| capacity | side | events/s (wall median) | first 1% us | last 1% us | growth |",
        "|---|---|---|---|---|---|"]
    for cap, c in r["capacities"].items():
        for side in ("ours", "raw"):
            s = c[side]
            lines.append(f"| {int(cap):,} | {side} | {s['events_per_s']:,.0f} | "
                         f"{s['first_us']:.0f} | {s['last_us']:.0f} | {s['growth']:.2f}x |")
    lines += ["", "Ratio ours/plain throughput: " + ", ".join(
        f"capacity {int(k):,}: {c['ratio']:.2f}x" for k, c in r["capacities"].items()) + "."]
    return "\n".join(lines)


def plot(r: dict[str, Any], img_dir: Any) -> list[str]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    per_key = r["events"] // r["keys"]
    for cap, c in r["capacities"].items():
        for side, style in (("ours", "-"), ("raw", "--")):
            curve = c[side]["curve_us"]
            xs = [(i + 1) * per_key / len(curve) for i in range(len(curve))]
            ax.plot(xs, curve, style, label=f"{'ours' if side == 'ours' else 'ListState'} "
                                            f"cap {int(cap):,}")
    ax.set_xlabel("items appended per key so far")
    ax.set_ylabel("per-event cost, median per window (us)")
    ax.set_yscale("log")
    ax.set_title("append + get_recent(5): cost as the history grows")
    ax.legend(fontsize=8, ncol=2)
    ax.grid(True, alpha=0.3)
    return save_figure(fig, img_dir, "history_per_event.png")


def main() -> None:
    module_main(run, __doc__)


if __name__ == "__main__":
    main()
