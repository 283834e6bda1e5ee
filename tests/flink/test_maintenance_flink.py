"""Maintenance on event-time timers in MemoryAgentOperator on a MiniCluster: the task is killed
in the middle of a pass, the job restores from its checkpoint (timers, keyed state and index
together), and every digest equals the failure-free oracle's: for consolidation and forgetting
on both backends, and for all four tasks with the LLM on loopback (merges, the profile) on
RocksDB."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

import jobs
import pytest
from llm_server import ScriptedLLMServer
from maintenance_agent import (
    PERIOD,
    AsyncFullyMaintainedAgent,
    ForgetfulAgent,
    FullyMaintainedAgent,
    MaintainedAgent,
    inputs,
    oracle,
    scripted_reply,
)
from pyflink.common import Duration, Types, WatermarkStrategy
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream.connectors.number_seq import NumberSequenceSource

from flink_agents_memory import AgentConfig, AgentsExecutionEnvironment
from flink_agents_memory.errors import ConfigurationError

PAUSE_S = 0.4  # before a wake and after it: many watermark intervals, so the passes run first


class InputTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp) -> int:
        return int(value.rsplit("|", 1)[1])


def assert_all_tasks_ran(expected: dict[int, dict], requests: list[dict[str, Any]]) -> None:
    """The all-tasks scenario must exercise each task, or equal digests would prove little."""
    ltm = [m for d in expected.values() for m in d["ltm"]]
    assert any(m[1].startswith("user: ") for m in ltm), "history items compressed"
    assert any(d["history"] for d in expected.values()), "and history items waiting"
    assert any(m[0] == "profile" for m in ltm), "a profile synthesised"
    systems = {r["messages"][0]["content"].split(".")[0] for r in requests}
    assert systems == {"You consolidate a memory store",
                       "You keep a higher-level memory about a user, written from their "
                       "individual memories"}, "the LLM merged and synthesised, nothing else"


@pytest.mark.parametrize("backend,all_tasks", [
    pytest.param("hashmap", False, id="hashmap"), pytest.param("rocksdb", False, id="rocksdb"),
    pytest.param("rocksdb", True, id="rocksdb-all-tasks-llm")])
def test_a_crash_mid_maintenance_restores_to_the_failure_free_result(tmp_path, backend,
                                                                      all_tasks):
    with ScriptedLLMServer(respond=scripted_reply) if all_tasks else contextlib.nullcontext() \
            as server:
        check_crash_restores(tmp_path, backend, server)


def test_async_actions_run_passes_in_flight_with_the_sync_result(tmp_path):
    """With an async action, each pass is a run in flight: its merges and profile wait for the
    LLM off the task thread and the key's inputs queue behind it, and every digest equals the
    failure-free oracle's (a sync run without Flink). A kill mid-pass is not part of it: a pass
    restored after a failure runs again, but one it had chained to then waits for the next
    watermark (docs/async_actions.md)."""
    with ScriptedLLMServer(respond=scripted_reply) as server:
        server.delay_s = 0.05
        check_crash_restores(tmp_path, "rocksdb", server, AsyncFullyMaintainedAgent, crash=False)
        # the three keys' passes fire on one watermark; waiting off the task thread, their
        # LLM calls overlap (a pass on the task thread would make them one at a time)
        assert server.max_in_flight > 1, server.max_in_flight


def check_crash_restores(tmp_path: Path, backend: str, server: ScriptedLLMServer | None,
                         with_llm: type[FullyMaintainedAgent] = FullyMaintainedAgent,
                         crash: bool = True) -> None:
    """Without ``server``: MaintainedAgent, killed at a pass's first embedding. With it:
    ``with_llm`` on that LLM (FullyMaintainedAgent: killed after a profile answer, merges and
    compression of the pass buffered, whose replayed calls must get the same answers)."""
    def agent(**crash: Any) -> MaintainedAgent:
        return MaintainedAgent(**crash) if server is None else with_llm(server.url, **crash)

    windows = 6
    lines = inputs(keys=3, windows=windows, per_window=12)
    expected = oracle(lines, tmp_path / "oracle", agent())
    merged = [d for d in expected.values() if any(m[2] for m in d["ltm"])]
    assert merged, "the scenario must merge near-duplicates"
    assert max(len(d["ltm"]) for d in expected.values()) > 4, "and go over the budget"
    asked = 0
    if server is not None:
        assert_all_tasks_ran(expected, server.requests)
        asked = len(server.requests)
    checkpoints, marker = tmp_path / "chk", tmp_path / "crashed"
    job_agent = agent(marker=str(marker), checkpoint_dir=str(checkpoints),
                      crash_from_ts=3 * PERIOD) if crash else agent()
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

    outputs = jobs.run_agent(job_agent, source, env=env,
                             config=AgentConfig(retention_time="event"))
    assert marker.exists() == crash, "the crash was never injected"
    seen = set()
    for raw in outputs:
        digest = json.loads(raw)
        assert digest == expected[digest["seq"]], digest["seq"]
        seen.add(digest["seq"])
    assert seen == set(expected)
    if server is not None and with_llm is FullyMaintainedAgent:
        assert len(server.requests) - asked > asked, "the restore replayed the crashed calls"
    elif server is not None:
        assert len(server.requests) - asked >= asked, "every call of the oracle was made"


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
