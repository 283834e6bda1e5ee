"""Sensory memory on a MiniCluster: the window by count and by event time, per key."""

from __future__ import annotations

import json

import jobs
import sensory_agent
from pyflink.common import Duration, Types, WatermarkStrategy
from pyflink.common.watermark_strategy import TimestampAssigner
from sensory_agent import SensoryProbe

from flink_agents_memory import AgentConfig


class InputTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp) -> int:
        return int(value.split("|", 1)[1])


def test_sensory_window_by_count_and_event_time():
    lines = [f"{key}|{t}" for key, t in sensory_agent.INPUTS]

    def source(env):
        # one upstream subtask, so each key's inputs arrive in order
        return (env.from_collection(lines, type_info=Types.STRING()).set_parallelism(1)
                .assign_timestamps_and_watermarks(
                    WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(3600))
                    .with_timestamp_assigner(InputTime())).set_parallelism(1))

    config = AgentConfig(sensory_window=4, sensory_window_ms=2500, retention_time="event")
    outputs = jobs.run_agent(SensoryProbe(), source, env=jobs.make_env(parallelism=1),
                             config=config, agent_parallelism=2)
    reported = {(key, t): window for key, t, window in map(json.loads, outputs)}
    assert reported == sensory_agent.EXPECTED
