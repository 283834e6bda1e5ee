"""Long-term memory inside MemoryAgentOperator on a MiniCluster: restore after a failure,
savepoint rescale 2 -> 3 -> 1, and key isolation over 1,000 keys."""

from __future__ import annotations

import json
import time

import jobs
import pytest
from digest_agent import DigestAgent, last_digest_per_key, oracle, read_lines
from pyflink.common import Configuration, Types

from flink_agents_memory import Agent, AgentsExecutionEnvironment, InputEvent, OutputEvent, action
from flink_agents_memory.errors import ConfigurationError
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.models import HashingEmbedder
from flink_agents_memory.runtime.savepoint import stop_with_savepoint

BACKENDS = ["hashmap", "rocksdb"]


def inputs(n: int, keys: int) -> list[str]:
    return [f"k{i % keys}|{i}" for i in range(n)]


def shared_index_files(checkpoints) -> list:
    """The long-term index files incremental checkpoints uploaded to the shared directories."""
    return [p for p in checkpoints.glob("*/shared/flink-agents-memory/*/kg-*/*") if p.is_file()]


@pytest.mark.parametrize("backend", BACKENDS)
def test_failure_after_checkpoint_restores_long_term_memory(tmp_path, backend):
    n, keys = 400, 10
    expected = oracle(inputs(n, keys), tmp_path / "oracle")
    checkpoints = tmp_path / "checkpoints"
    marker = tmp_path / "failed-once"
    agent = DigestAgent(fail_marker=str(marker), checkpoint_dir=str(checkpoints),
                        fail_from=n // 2)
    # One agent subtask: a failover with two subtasks in one MiniCluster TaskManager (one
    # shared interpreter) once lost the TaskManager; see the closing notes.
    env = jobs.make_env(parallelism=1, checkpoint_dir=checkpoints, restarts=3, backend=backend)
    lines = jobs.run_agent(agent, lambda e: jobs.sequence_source(e, n, keys, throttle_ms=3),
                           env=env)
    assert marker.exists(), "the failure was never injected"
    actual = last_digest_per_key(lines)
    assert set(actual) == set(expected)
    for key in expected:
        assert actual[key] == expected[key], key
    # The restore read incremental checkpoints: index files in the job's shared directory.
    # Flink leaves shared/ behind when a job finishes (it deletes only what its registry
    # tracks); ours hold only what the last retained checkpoint references.
    assert shared_index_files(checkpoints), "no index file was uploaded to shared/"


def test_rocksdb_with_heap_timers_is_refused_when_the_job_is_built():
    conf = Configuration()
    jobs.set_backend(conf, "rocksdb")
    conf.set_string("state.backend.rocksdb.timer-service.factory", "HEAP")
    from pyflink.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment(conf)
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = jobs.sequence_source(env, 10, 2)
    builder = agents.from_datastream(ds, jobs.key_of).apply(DigestAgent())
    with pytest.raises(ConfigurationError, match="timer-service.factory: HEAP"):
        builder.to_datastream(Types.STRING())


def _build(conf: Configuration, checkpoint_ms: int | None = None):
    """Build (not run) a memory job on ``conf``: what to_datastream() refuses or returns."""
    from pyflink.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment(conf)
    if checkpoint_ms is not None:
        env.enable_checkpointing(checkpoint_ms)
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = jobs.sequence_source(env, 10, 2)
    return agents.from_datastream(ds, jobs.key_of).apply(DigestAgent()).to_datastream(
        Types.STRING())


IN_MEMORY_CHECKPOINTS = {
    "interval, no directory": ({"execution.checkpointing.interval": "1s"}, None),
    "enable_checkpointing, no directory": ({}, 1000),
    "jobmanager storage with a directory": ({"execution.checkpointing.interval": "1s",
                                              "execution.checkpointing.storage": "jobmanager",
                                              "execution.checkpointing.dir": "s3://checkpoints/job"},
                                             None),
}


@pytest.mark.parametrize("settings,checkpoint_ms", IN_MEMORY_CHECKPOINTS.values(),
                         ids=IN_MEMORY_CHECKPOINTS.keys())
def test_checkpoints_kept_in_the_jobmanagers_memory_are_refused_when_the_job_is_built(
        settings, checkpoint_ms):
    conf = Configuration()
    for key, value in settings.items():
        conf.set_string(key, value)
    with pytest.raises(ConfigurationError, match="Set execution.checkpointing.dir"):
        _build(conf, checkpoint_ms)


FILE_CHECKPOINTS = {
    "no checkpoints": {},
    "a directory": {"execution.checkpointing.interval": "1s",
                    "execution.checkpointing.dir": "s3://checkpoints/job"},
    "Flink 1.x's directory key": {"execution.checkpointing.interval": "1s",
                                  "state.checkpoints.dir": "s3://checkpoints/job"},
    "filesystem storage": {"execution.checkpointing.interval": "1s",
                           "execution.checkpointing.storage": "filesystem",
                           "execution.checkpointing.dir": "s3://checkpoints/job"},
}


@pytest.mark.parametrize("settings", FILE_CHECKPOINTS.values(), ids=FILE_CHECKPOINTS.keys())
def test_checkpoints_to_a_directory_or_none_are_accepted(settings):
    conf = Configuration()
    for key, value in settings.items():
        conf.set_string(key, value)
    assert _build(conf) is not None


def start_phase(tmp_path, phase: int, parallelism: int, n: int, keys: int, restore: str | None,
                backend: str = "hashmap"):
    conf = Configuration()
    jobs.set_backend(conf, backend)
    conf.set_string("execution.checkpointing.interval", "100ms")
    conf.set_string("execution.checkpointing.dir", (tmp_path / "chk").as_uri())
    if restore:
        conf.set_string("execution.state-recovery.path", restore)
    from pyflink.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    env.set_max_parallelism(128)
    out = tmp_path / f"phase{phase}.jsonl"
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    # slower than the agent, so the savepoint barrier is not queued behind in-flight events:
    # with a checkpoint every 100 ms, whose index uploads run on the task thread, 12 ms per
    # event was not (a savepoint asked for at event 120 completed at event 542)
    ds = jobs.sequence_source(env, n, keys, throttle_ms=30)
    agents.from_datastream(ds, jobs.key_of).apply(DigestAgent(out_file=str(out))).to_datastream(
        Types.STRING()).print()
    return env.execute_async(f"rescale-{phase}"), out


def stop_after(client, out, lines_wanted: int, savepoints) -> str:
    deadline = time.time() + 300  # generous: CI machines are small and shared
    while len(read_lines(out)) < lines_wanted:
        assert time.time() < deadline, f"only {len(read_lines(out))} lines in {out}"
        time.sleep(0.2)
    return stop_with_savepoint(client, savepoints.as_uri())


@pytest.mark.parametrize("backend", BACKENDS)
def test_savepoint_rescale_2_3_1_keeps_every_memory_once(tmp_path, backend):
    n, keys = 600, 24
    expected = oracle(inputs(n, keys), tmp_path / "oracle")
    savepoints = tmp_path / "savepoints"
    client, out1 = start_phase(tmp_path, 1, 2, n, keys, None, backend)
    sp1 = stop_after(client, out1, 120, savepoints)
    client, out2 = start_phase(tmp_path, 2, 3, n, keys, sp1, backend)
    sp2 = stop_after(client, out2, 120, savepoints)
    client, out3 = start_phase(tmp_path, 3, 1, n, keys, sp2, backend)
    client.get_job_execution_result().result()
    lines = read_lines(out1) + read_lines(out2) + read_lines(out3)
    seqs = [json.loads(line)["seq"] for line in lines]
    assert sorted(seqs) == list(range(n)), "every event processed exactly once across phases"
    actual = last_digest_per_key(lines)
    for key in expected:
        assert actual[key] == expected[key], key


class IsolationAgent(Agent):
    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(64))

    @action(InputEvent)
    @staticmethod
    def remember(event, ctx):
        key, seq = event.input.split("|")
        ctx.memory.add(f"shared words tea jazz {key} {seq}", metadata={"owner": key})
        hits = [*ctx.memory.search("shared words tea jazz", limit=50),
                *ctx.memory.search("tea", limit=50, mode="keyword"),
                *ctx.memory.get_all(limit=1000)]
        ctx.send_event(OutputEvent(output=json.dumps(
            {"key": key, "owners": sorted({h.metadata["owner"] for h in hits}),
             "n": len(ctx.memory.get_all(limit=1000))})))


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_thousand_keys_never_see_each_others_long_term_memory(backend):
    keys, per_key = 1000, 3
    outputs = [json.loads(o) for o in jobs.run_agent(
        IsolationAgent(), lambda env: jobs.sequence_source(env, keys * per_key, keys),
        env=jobs.make_env(backend=backend))]
    assert len(outputs) == keys * per_key
    for out in outputs:  # a run's own add is applied at commit: the first run sees nothing
        assert out["owners"] in ([], [out["key"]])
    last = {o["key"]: o for o in outputs if o["n"] == per_key - 1}
    assert len(last) == keys and all(o["owners"] == [o["key"]] for o in last.values())


class ContextAgent(Agent):
    """Run 0 adds a reply with the question it answers as context, run 1 updates its text,
    later runs search for the question's words."""

    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(64))

    @action(InputEvent)
    @staticmethod
    def remember(event, ctx):
        key, seq = event.input.split("|")
        n = int(seq) // 2  # the run's number within its key (2 keys)
        if n == 0:
            ctx.memory.add(f"{key}: it was great, we loved the food",
                           context=f"Ann asked {key}: how was your trip to Lisbon?")
            ctx.memory.add(f"{key}: I am cooking pasta tonight")
        elif n == 1:
            [hit] = ctx.memory.search("pasta tonight", limit=1, mode="keyword")
            other = [h for h in ctx.memory.get_all() if h.id != hit.id][0]
            ctx.memory.update(other.id, f"{key}: it was wonderful")
        else:
            out = {"key": key}
            for mode in ("keyword", "hybrid"):
                out[mode] = [h.memory for h in ctx.memory.search("How was the trip to Lisbon?",
                                                                 limit=2, mode=mode)]
            ctx.send_event(OutputEvent(output=json.dumps(out)))


def test_memory_context_is_searchable_across_runs_and_kept_by_update():
    outputs = [json.loads(o) for o in jobs.run_agent(
        ContextAgent(), lambda env: jobs.sequence_source(env, 6, 2),
        env=jobs.make_env(parallelism=1))]
    assert len(outputs) == 2
    for out in outputs:
        key = out["key"]
        assert out["keyword"] == [f"{key}: it was wonderful"]  # only the context has "Lisbon"
        assert out["hybrid"][0] == f"{key}: it was wonderful"
