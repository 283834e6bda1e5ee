"""Maintenance on event-time timers in MemoryAgentOperator on a MiniCluster: the task is killed
in the middle of a pass, the job restores from its checkpoint (timers, keyed state and index
together), and every digest equals the failure-free oracle's."""

from __future__ import annotations

import json
import time

import jobs
import pytest
from maintenance_agent import PERIOD, ForgetfulAgent, MaintainedAgent, inputs, oracle
from pyflink.common import Duration, Types, WatermarkStrategy
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream.connectors.number_seq import NumberSequenceSource

from flink_agents_memory import AgentConfig, AgentsExecutionEnvironment
from flink_agents_memory.errors import ConfigurationError

PAUSE_S = 0.4  # before a wake and after it: many watermark intervals, so the passes run first


class InputTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp) -> int:
        return int(value.rsplit("|", 1)[1])


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_a_crash_mid_maintenance_restores_to_the_failure_free_result(tmp_path, backend):
    windows = 6
    lines = inputs(keys=3, windows=windows, per_window=12)
    expected = oracle(lines, tmp_path / "oracle")
    merged = [d for d in expected.values() if any(m[2] for m in d["ltm"])]
    assert merged, "the scenario must merge near-duplicates"
    assert max(len(d["ltm"]) for d in expected.values()) > 4, "and go over the budget"
    checkpoints, marker = tmp_path / "chk", tmp_path / "crashed"
    agent = MaintainedAgent(str(marker), str(checkpoints), crash_from_ts=3 * PERIOD)
    env = jobs.make_env(parallelism=1, checkpoint_dir=checkpoints, checkpoint_interval_ms=100,
                        restarts=3, backend=backend,
                        extra={"pipeline.auto-watermark-interval": "20ms"})

    def source(env):
        def label(i: int) -> str:
            pause = lines[i].startswith("wake|") or (i and lines[i - 1].startswith("wake|"))
            time.sleep(PAUSE_S if pause else 0.02)
            return lines[i]

        # the pause throttles the source (chained to it); rebalance() puts the watermark
        # operator (Java, behind PyFlink's Python timestamp extractor) into another task,
        # which emits while the source pauses
        return (env.from_source(NumberSequenceSource(0, len(lines) - 1),
                                WatermarkStrategy.no_watermarks(), "lines").set_parallelism(1)
                .map(label, output_type=Types.STRING()).set_parallelism(1).rebalance()
                .assign_timestamps_and_watermarks(
                    WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(0))
                    .with_timestamp_assigner(InputTime())).set_parallelism(1))

    outputs = jobs.run_agent(agent, source, env=env, config=AgentConfig(retention_time="event"))
    assert marker.exists(), "the crash was never injected"
    seen = set()
    for raw in outputs:
        digest = json.loads(raw)
        assert digest == expected[digest["seq"]], digest["seq"]
        seen.add(digest["seq"])
    assert seen == set(expected)



def test_processing_time_passes_forget_over_the_budget_between_elements(tmp_path):
    facts, written = 6, tmp_path / "written"
    lines = [f"p|{i}" for i in range(facts)] + ["p|report"]

    def source(env):
        def label(i: int) -> str:
            if lines[i].endswith("report"):
                # the last fact is in; while the source waits the agent's task is idle, and
                # its 50 ms processing-time timer fires
                deadline = time.monotonic() + 120
                while not written.exists() and time.monotonic() < deadline:
                    time.sleep(0.05)
                time.sleep(2)
            return lines[i]

        return (env.from_source(NumberSequenceSource(0, len(lines) - 1),
                                WatermarkStrategy.no_watermarks(), "lines").set_parallelism(1)
                .map(label, output_type=Types.STRING()).set_parallelism(1))

    [raw] = jobs.run_agent(ForgetfulAgent(facts, str(written)), source,
                           env=jobs.make_env(parallelism=1))
    report = json.loads(raw)
    assert report["left"] == ["fact-4", "fact-5"], "the newest two: recency decides"
    for i in range(facts - 2):
        assert report["last_events"][str(i)] == ["DELETE", "maintenance:forgetting"], i


def test_a_maintenance_clock_other_than_the_agents_is_refused_when_the_job_is_built():
    env = jobs.make_env(parallelism=1)
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    agent = MaintainedAgent()
    agent.long_term_memory = agent.long_term_memory.model_copy(update={
        "maintenance": agent.long_term_memory.maintenance.model_copy(update={"time": "event"})})
    builder = agents.from_datastream(jobs.sequence_source(env, 10, 2), jobs.key_of)
    with pytest.raises(ConfigurationError, match="retention_time='processing'"):
        builder.apply(agent, AgentConfig())
    builder.apply(agent, AgentConfig(retention_time="event"))  # the same clock: accepted
