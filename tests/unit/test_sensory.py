"""Sensory memory: the events of a key's runs in a window by count and by time."""

from __future__ import annotations

import json

import pytest
import sensory_agent
from sensory_agent import SensoryProbe

from flink_agents_memory import AgentConfig
from flink_agents_memory.runtime.local import LocalAgentRunner


class Clock:
    now = 0

    def __call__(self) -> int:
        return self.now


def test_window_by_count_and_time_holds_every_event_of_the_runs():
    clock = Clock()
    runner = LocalAgentRunner(SensoryProbe(),
                              AgentConfig(sensory_window=4, sensory_window_ms=2500), clock=clock)
    for key, t in sensory_agent.INPUTS:
        clock.now = t
        out_key, out_t, window = json.loads(runner.run(key, f"{key}|{t}")[0])
        assert window == sensory_agent.EXPECTED[(out_key, out_t)], (key, t)


def test_window_by_count_only_and_by_time_only():
    clock = Clock()
    by_count = LocalAgentRunner(SensoryProbe(), AgentConfig(sensory_window=3), clock=clock)
    by_time = LocalAgentRunner(SensoryProbe(), AgentConfig(sensory_window_ms=1500), clock=clock)
    for t in (1000, 2000, 3000):
        clock.now = t
        count_window = json.loads(by_count.run("k", f"k|{t}")[0])[2]
        time_window = json.loads(by_time.run("k", f"k|{t}")[0])[2]
    assert count_window == ["OutputEvent:2000", "InputEvent:3000", "Seen:3000"]
    assert time_window == ["InputEvent:2000", "Seen:2000", "OutputEvent:2000",
                           "InputEvent:3000", "Seen:3000"]


def test_off_by_default_and_a_failed_run_records_nothing():
    runner = LocalAgentRunner(SensoryProbe())
    assert json.loads(runner.run("k", "k|1")[0])[2] == []
    on = LocalAgentRunner(SensoryProbe(), AgentConfig(sensory_window=10), clock=lambda: 1)
    on.run("k", "k|1")
    with pytest.raises(Exception, match="invalid literal"):
        on.run("k", "k|not a number")
    assert json.loads(on.run("k", "k|2")[0])[2] == [
        "InputEvent:1", "Seen:1", "OutputEvent:1", "InputEvent:2", "Seen:2"]


@pytest.mark.parametrize("fields, message", [
    ({"sensory_window": -1}, "sensory_window"),
    ({"sensory_window_ms": 0}, "sensory_window_ms"),
])
def test_bad_windows_fail_at_build_time(fields, message):
    with pytest.raises(ValueError, match=message):
        AgentConfig(**fields)
