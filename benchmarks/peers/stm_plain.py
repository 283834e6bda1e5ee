"""The same k reads + k writes per event without an agent framework: a plain PyFlink
KeyedProcessFunction on a MapState, the most any framework on PyFlink can reach in this job."""

from __future__ import annotations

from typing import Any

from pyflink.common.typeinfo import Types
from pyflink.datastream import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import MapStateDescriptor

from . import latency

FIELDS = [f"f{i}" for i in range(10)]


class KOpsPlain(KeyedProcessFunction):
    """k MapState gets and k puts per event, timed like the agents' actions."""

    def __init__(self, k: int) -> None:
        self.k = k

    def open(self, runtime_context: RuntimeContext) -> None:
        self.fields = FIELDS[: self.k]
        self.state = runtime_context.get_map_state(
            MapStateDescriptor("plain", Types.STRING(), Types.STRING()))

    def process_element(self, value: str, ctx: KeyedProcessFunction.Context) -> Any:
        t0 = latency.start()
        state = self.state
        for name in self.fields:
            state.put(name, str(int(state.get(name) or 0) + 1))
        latency.stop(t0)
        return []
