"""An agent that reports its key's sensory window (an internal view, read here by tests)."""

from __future__ import annotations

import json

from flink_agents_memory import Agent, Event, InputEvent, OutputEvent, action


class Seen(Event):
    t: int


class SensoryProbe(Agent):
    """Input ``key|t``: sends Seen(t), whose action outputs the window as ``Type:t`` items."""

    @action(InputEvent)
    @staticmethod
    def parse(event, ctx):
        ctx.send_event(Seen(t=int(event.input.split("|", 1)[1])))

    @action(Seen)
    @staticmethod
    def report(event, ctx):
        window = [f"{e['type']}:{_time_of(e)}" for e in ctx.sensory.recent_events()]
        ctx.send_event(OutputEvent(output=json.dumps([ctx.key, event.t, window])))


def _time_of(recorded: dict) -> int:
    data = recorded["data"]
    if recorded["type"] == "InputEvent":
        return int(data["input"].split("|")[1])
    if recorded["type"] == "OutputEvent":
        return json.loads(data["output"])[1]
    return data["t"]


#: (key, t) inputs and the window each run reports under sensory_window=4,
#: sensory_window_ms=2500 on event time: four events at most, none 2.5 s older than the run.
#: A run records its input, Seen and (after reporting) its OutputEvent.
INPUTS = [("a", 1000), ("b", 1000), ("a", 2000), ("a", 6000), ("b", 6000), ("a", 6500)]
EXPECTED = {
    ("a", 1000): ["InputEvent:1000", "Seen:1000"],
    ("b", 1000): ["InputEvent:1000", "Seen:1000"],
    ("a", 2000): ["Seen:1000", "OutputEvent:1000", "InputEvent:2000", "Seen:2000"],
    ("a", 6000): ["InputEvent:6000", "Seen:6000"],
    ("b", 6000): ["InputEvent:6000", "Seen:6000"],
    ("a", 6500): ["Seen:6000", "OutputEvent:6000", "InputEvent:6500", "Seen:6500"],
}
