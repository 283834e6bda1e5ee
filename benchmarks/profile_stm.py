"""Where a short-term memory event's time goes, per part, in a real job (bench_stm's jobs).

    python -m benchmarks.profile_stm [--events 100000] [--keys 1000] [--out result.json]

Runs bench_stm's two jobs (our agent, a plain KeyedProcessFunction: 3 state operations per
event) on a MiniCluster with timers inside the TaskManager's embedded interpreter. Importing
this module there (it holds the profiled agent and function) wraps the framework's methods
with ``perf_counter_ns`` timers, so the parts are measured on the real path:

* ``gap``: time between the starts of consecutive ``process_element`` calls (the whole
  per-event cost: Flink, PEMJA and Python);
* ``process_element``: the Python call the operator makes per event;
* ours: ``run`` (the event loop, action included), ``action`` (the action body: the
  short-term memory layer and its state reads), ``state_get`` / ``state_put`` (the MapState
  calls from Python into Java, the read-ahead's ``get_many`` and ``putAll`` included), ``commit``
  (``MemoryRuntime.write``: the run buffer's flush, its puts included). Where the operator
  carries short-term memory's reads ahead and writes with the element's call
  (runtime/element_call.py), those run in Java around the call, so they count in ``gap``
  outside ``process_element``; only the calls Python still makes are ``state_get`` /
  ``state_put``.

Timers cost about 0.1 us each, so each part carries a little of its own measurement; the
figures are for finding where time goes, bench_stm's untimed jobs are the throughput.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from pyflink.common import Types
from pyflink.datastream import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import MapStateDescriptor

from flink_agents_memory import Agent, AgentsExecutionEnvironment, InputEvent, action

from .common import bench_env, keyed_input, machine

_clock = time.perf_counter_ns
_local = threading.local()
FLUSH = 5000


def _totals() -> dict[str, int]:
    t = getattr(_local, "t", None)
    if t is None:
        t = _local.t = {"events": 0, "gap": 0, "last": 0}
    return t


def _add(name: str, ns: int) -> None:
    t = _totals()
    t[name] = t.get(name, 0) + ns


def _event_start(t: dict[str, int], now: int) -> None:
    """Count an event and the gap since the previous one (gaps over 1 s: job boundaries)."""
    if t["last"] and now - t["last"] < 1_000_000_000:
        t["gap"] += now - t["last"]
        t["events"] += 1
    t["last"] = now


def _event_end(t: dict[str, int], start: int) -> None:
    t["process_element"] = t.get("process_element", 0) + _clock() - start
    if t["events"] and t["events"] % FLUSH == 0:
        folder = os.environ.get("BENCH_PROFILE_DIR")
        if folder:
            name = f"{os.getpid()}-{threading.get_ident()}.json"
            Path(folder, name).write_text(json.dumps({k: v for k, v in t.items()
                                                      if k != "last"}))


def _timed_call(inner: Any, part: str) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = _clock()
        try:
            return inner(*args, **kwargs)
        finally:
            _add(part, _clock() - start)

    return wrapper


def _timed(cls: Any, method: str, part: str) -> None:
    setattr(cls, method, _timed_call(getattr(cls, method), part))


def _time_attributes(obj: Any, parts: tuple[tuple[str, str], ...]) -> None:
    """Wrap each callable attribute of ``obj`` named in ``parts`` with the timer of its part."""
    for name, part in parts:
        if getattr(obj, name) is not None:
            setattr(obj, name, _timed_call(getattr(obj, name), part))


def install() -> None:
    """Wrap our framework's methods with timers (once per interpreter)."""
    from flink_agents_memory.memory.store import MapStateStore
    from flink_agents_memory.runtime.element_call import ElementCallStore
    from flink_agents_memory.runtime.function import AgentProcessFunction
    from flink_agents_memory.runtime.memory_runtime import MemoryRuntime
    from flink_agents_memory.runtime.runner import AgentRunner

    if getattr(AgentProcessFunction, "_profiled", False):
        return
    AgentProcessFunction._profiled = True  # type: ignore[attr-defined]
    _timed(AgentRunner, "run", "run")
    _timed(MemoryRuntime, "write", "commit")
    init = MapStateStore.__init__

    def timed_store(self: Any, map_state: Any, get_many: Any = None) -> None:
        init(self, map_state, get_many)
        _time_attributes(self, (("get", "state_get"), ("get_many", "state_get"),
                                ("put", "state_put"), ("put_all", "state_put")))

    MapStateStore.__init__ = timed_store  # type: ignore[method-assign]
    carried_init = ElementCallStore.__init__

    def timed_carried_store(self: Any, java_state: Any, get_many: Any) -> None:
        carried_init(self, java_state, get_many)
        _time_attributes(self, (("_java_get", "state_get"), ("_java_get_many", "state_get"),
                                ("_java_put_all", "state_put"), ("_java_remove", "state_put")))

    ElementCallStore.__init__ = timed_carried_store  # type: ignore[method-assign]
    process = AgentProcessFunction.process_element

    def process_element(self: Any, value: Any, ctx: Any) -> Any:
        t = _totals()
        start = _clock()
        _event_start(t, start)
        try:
            return process(self, value, ctx)
        finally:
            _event_end(t, start)

    AgentProcessFunction.process_element = process_element  # type: ignore[method-assign]


class ProfiledThreeOps(Agent):
    """bench_stm's agent, its body timed as ``action``."""

    @action(InputEvent)
    @staticmethod
    def touch(event: InputEvent, ctx: Any) -> None:
        start = _clock()
        stm = ctx.get_short_term_memory()
        stm.set("count", (stm.get("count") or 0) + 1)
        stm.set("last", event.input)
        _add("action", _clock() - start)


class ProfiledRaw(KeyedProcessFunction):
    """bench_stm's plain function, its state calls timed as ``state_get`` / ``state_put``."""

    def open(self, runtime_context: RuntimeContext) -> None:
        self.state = runtime_context.get_map_state(
            MapStateDescriptor("raw", Types.STRING(), Types.STRING()))

    def process_element(self, value: str, ctx: KeyedProcessFunction.Context) -> Any:
        t = _totals()
        start = _clock()
        _event_start(t, start)
        count = self.state.get("count")
        got = _clock()
        self.state.put("count", str(int(count or 0) + 1))
        self.state.put("last", value)
        t["state_get"] = t.get("state_get", 0) + got - start
        t["state_put"] = t.get("state_put", 0) + _clock() - got
        _event_end(t, start)
        return []


if os.environ.get("BENCH_PROFILE_DIR"):
    install()


def run_job(kind: str, events: int, keys: int) -> None:
    env = bench_env()
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = keyed_input(env, events, keys)
    if kind == "ours":
        agents.from_datastream(ds, lambda v: v.split("|", 1)[0]).apply(
            ProfiledThreeOps()).to_datastream(Types.STRING()).print()
    else:
        ds.key_by(lambda v: v.split("|", 1)[0], key_type=Types.STRING()).process(
            ProfiledRaw(), output_type=Types.STRING()).print()
    env.execute(f"profile-stm-{kind}")


def read(folder: str) -> dict[str, float]:
    """Microseconds per event of each part, summed over the folder's files."""
    total: dict[str, int] = {}
    for name in os.listdir(folder):
        for k, v in json.loads(Path(folder, name).read_text()).items():
            total[k] = total.get(k, 0) + v
    events = max(total.pop("events", 0), 1)
    return {"events": events, **{k: v / events / 1000 for k, v in total.items()}}


def parts(r: dict[str, float]) -> dict[str, float]:
    """The exclusive parts (us/event) of a :func:`read` result."""
    out = {"outside Python (Flink, PEMJA, source, key selector)":
           r["gap"] - r["process_element"],
           "state calls into Java": r.get("state_get", 0) + r.get("state_put", 0)}
    if "run" in r:
        out["executor and context (begin, outputs)"] = (
            r["process_element"] - r["run"] - r["commit"])
        out["event loop (runner, event)"] = r["run"] - r["action"]
        out["short-term memory layer (get/set, run buffer reads)"] = (
            r["action"] - r.get("state_get", 0))
        out["commit (run buffer flush, minus its puts)"] = r["commit"] - r.get("state_put", 0)
    else:
        out["function body (minus its state calls)"] = (
            r["process_element"] - r.get("state_get", 0) - r.get("state_put", 0))
    out["total"] = r["gap"]
    return out


def measure(events: int, keys: int, reps: int) -> dict[str, Any]:
    os.environ.setdefault("BENCH_PROFILE_DIR", tempfile.mkdtemp(prefix="bench-prof-"))
    install()
    folder = os.environ["BENCH_PROFILE_DIR"]
    result: dict[str, Any] = {"events": events, "keys": keys, "reps": reps,
                              "machine": machine()}
    for kind in ("ours", "raw"):
        run_job(kind, max(events // 10, 1000), keys)  # warm-up
    runs: dict[str, list[dict[str, float]]] = {"ours": [], "raw": []}
    for rep in range(reps):
        for kind in (("ours", "raw") if rep % 2 == 0 else ("raw", "ours")):
            for name in os.listdir(folder):
                os.remove(os.path.join(folder, name))
            run_job(kind, events, keys)
            runs[kind].append(parts(read(folder)))
    for kind, samples in runs.items():
        # the median rep by total, with all its parts (parts of one rep add up)
        result[kind] = sorted(samples, key=lambda s: s["total"])[len(samples) // 2]
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--events", type=int, default=100_000)
    p.add_argument("--keys", type=int, default=1000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--out")
    a = p.parse_args()
    # By its module name, not __main__: the TaskManager imports the profiled classes from it.
    from benchmarks import profile_stm

    text = json.dumps(profile_stm.measure(a.events, a.keys, a.reps), indent=2)
    if a.out:
        Path(a.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
