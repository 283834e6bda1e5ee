"""The history benchmark's two sides (importable, so not __main__)."""

from __future__ import annotations

from typing import Any

from pyflink.common import Types
from pyflink.datastream import KeyedProcessFunction, RuntimeContext
from pyflink.datastream.state import ListStateDescriptor

from flink_agents_memory import Agent, InputEvent, action
from flink_agents_memory.memory.retention import Retention

from . import latency


class HistoryAgent(Agent):
    """append + get_recent(5) of a history of ``capacity`` items per event."""

    def __init__(self, capacity: int) -> None:
        self.histories = {"chat": Retention(max_items=capacity)}

    @action(InputEvent)
    @staticmethod
    def chat(event: InputEvent, ctx: Any) -> None:
        t0 = latency.start()
        h = ctx.history("chat")
        h.append(event.input)
        h.get_recent(5)
        latency.stop(t0)


class ListStateHistory(KeyedProcessFunction):
    """The plain way: a ListState of the last ``capacity`` items, read on every event,
    appended to, and rewritten when it outgrows the capacity."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity

    def open(self, runtime_context: RuntimeContext) -> None:
        self.items = runtime_context.get_list_state(ListStateDescriptor("chat", Types.STRING()))

    def process_element(self, value: str, ctx: KeyedProcessFunction.Context):
        t0 = latency.start()
        items = list(self.items.get() or [])
        items.append(value)
        if len(items) > self.capacity:
            self.items.update(items[-self.capacity:])
        else:
            self.items.add(value)
        _recent = items[-5:]
        latency.stop(t0)
        return []
