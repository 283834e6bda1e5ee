"""What one call into Flink's keyed state costs from Python in thread mode (PEMJA), per kind.

Short-term memory writes a run's changes when the run ends; whether several puts go in one
``putAll`` or one ``put`` each is decided by these costs (flink_agents_memory/memory/store.py).
One element reaches a KeyedProcessFunction, which then times, on the task thread, ``n`` rounds
of each kind of call on a MapState<str, str> of the Java state directly (as MapStateStore
calls it), three times.

    python -m benchmarks.state_calls [--n 100000]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable
from typing import Any

from pyflink.common import Types
from pyflink.datastream import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import MapStateDescriptor

from flink_agents_memory import AgentsExecutionEnvironment
from flink_agents_memory.runtime.pyflink_internals import java_state

from .common import bench_env

ROUNDS = 3


class TimeStateCalls(KeyedProcessFunction):
    def __init__(self, n: int) -> None:
        self.n = n

    def open(self, runtime_context: RuntimeContext) -> None:
        descriptor = MapStateDescriptor("m", Types.STRING(), Types.STRING())
        self.state = java_state(runtime_context.get_map_state(descriptor))

    def _per_call_us(self, call: Any) -> float:
        start = time.perf_counter()
        for _ in range(self.n):
            call()
        return (time.perf_counter() - start) / self.n * 1e6

    def process_element(self, value: str, ctx: KeyedProcessFunction.Context) -> Iterable[str]:
        s = self.state
        for _ in range(ROUNDS):
            two_puts = self._per_call_us(lambda: (s.put("count", "12"), s.put("last", "x|123")))
            put_all = self._per_call_us(lambda: s.putAll({"count": "12", "last": "x|123"}))
            get = self._per_call_us(lambda: s.get("count"))
            yield (f"two puts {two_puts:.2f} us, one putAll of the same two {put_all:.2f} us, "
                   f"one get {get:.2f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    env = bench_env()
    AgentsExecutionEnvironment.get_execution_environment(env)  # thread mode
    env.from_collection(["k"], type_info=Types.STRING()).key_by(
        lambda v: v, key_type=Types.STRING()
    ).process(TimeStateCalls(args.n), output_type=Types.STRING()).print()
    env.execute("state-calls")


if __name__ == "__main__":
    main()
