"""Faults of the machine under a running agent job (MiniCluster, real mounts): the
TaskManager's local index directory on a full disk, and checkpoint storage that turns
read-only for a while.

Both run DigestAgent (every memory kind, a digest of the key's memory per event, appended to a
file) and share one oracle: the same agent over the same input on the reference runner (real
Lucene, no Flink, no fault). Every digest the job wrote, replays after a restore included, must
equal the oracle's digest of that event, and the last digest of every key its final one. A
second source that never ends keeps the job running after the input, so REST can still be
asked about restarts and checkpoints; the test cancels the job at the end.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import jobs
import pytest
from digest_agent import DigestAgent, last_digest_per_key, oracle_lines, read_lines
from faults import (
    fill,
    free_port,
    jobmanager_log,
    remount,
    require_root,
    rest,
    small_filesystem,
    wait_until,
)
from pyflink.common import Types, WatermarkStrategy
from pyflink.common.job_client import JobClient
from pyflink.datastream import DataStream, StreamExecutionEnvironment
from pyflink.datastream.connectors.number_seq import NumberSequenceSource

from flink_agents_memory import AgentsExecutionEnvironment

pytestmark = pytest.mark.slow

N, KEYS = 500, 10
THROTTLE_MS = 30  # slower than the agent, so barriers are not stuck behind a backlog
HELD_MS = 500
TIMEOUT = 300  # generous: CI machines are small and shared


def idle(_: int) -> str:
    time.sleep(0.5)
    return ""


def paced_source(env: StreamExecutionEnvironment, gate: Path | None) -> DataStream:
    """``"k<i % KEYS>|<i>"`` for i < N, one subtask, THROTTLE_MS per event; with ``gate``,
    the second half comes at HELD_MS per event until the file ``gate`` exists, so events are
    still coming when the test is ready for them (a slower pace, not a stop: a map that
    blocked would hold the checkpoint barriers too)."""

    def label(i: int) -> str:
        held = gate is not None and i >= N // 2 and not gate.exists()
        time.sleep((HELD_MS if held else THROTTLE_MS) / 1000)
        return f"k{i % KEYS}|{i}"

    return (env.from_source(NumberSequenceSource(0, N - 1), WatermarkStrategy.no_watermarks(),
                            "seq").set_parallelism(1)
            .map(label, output_type=Types.STRING()).set_parallelism(1))


def start(agent: DigestAgent, port: int, checkpoints: Path, restarts: int,
          extra: dict[str, str] | None = None, gate: Path | None = None) -> JobClient:
    """The agent over N paced events, plus a source that never ends; one agent subtask
    (a failover of two in one MiniCluster TaskManager once lost the TaskManager)."""
    env = jobs.make_env(parallelism=1, checkpoint_dir=checkpoints, checkpoint_interval_ms=200,
                        restarts=restarts,
                        extra={"rest.bind-port": str(port), "rest.bind-address": "127.0.0.1",
                               **(extra or {})})
    agents = AgentsExecutionEnvironment.get_execution_environment(env)
    digests = (agents.from_datastream(paced_source(env, gate), jobs.key_of)
               .apply(agent).to_datastream(Types.STRING()))
    forever = (env.from_source(NumberSequenceSource(0, 10 ** 9), WatermarkStrategy.no_watermarks(),
                               "forever").map(idle, output_type=Types.STRING()))
    digests.union(forever).filter(lambda _: False).print()
    return env.execute_async("fault-job")


def job_id(port: int) -> str:
    [job] = rest(port, "/jobs/overview")["jobs"]
    return job["jid"]


def failures(port: int, jid: str) -> list[str]:
    """The stack traces of the job's exception history (one per failover)."""
    return [e["stacktrace"] for e in rest(port, f"/jobs/{jid}/exceptions")
            ["exceptionHistory"]["entries"]]


def attempts(port: int, jid: str) -> list[int]:
    return [s["attempt"] for v in rest(port, f"/jobs/{jid}")["vertices"]
            for s in rest(port, f"/jobs/{jid}/vertices/{v['id']}")["subtasks"]]


def checkpoints(port: int, jid: str) -> dict[str, Any]:
    return rest(port, f"/jobs/{jid}/checkpoints")


def progress(out: Path) -> int:
    """Highest event the agent has written a digest for."""
    return max((json.loads(line)["seq"] for line in read_lines(out)), default=-1)


@pytest.fixture(scope="module", autouse=True)
def may_mount() -> None:
    """Both tests mount a tmpfs: settled before the oracle is computed."""
    require_root("mounting a tmpfs")


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> list[dict[str, Any]]:
    """The digest of every event in the failure-free run (reference runner, real Lucene)."""
    return [json.loads(line) for line in oracle_lines([f"k{i % KEYS}|{i}" for i in range(N)],
                                                      tmp_path_factory.mktemp("oracle"))]


def memory_of(digest: dict[str, Any]) -> dict[str, Any]:
    """A digest without its vector search: which of several near hits a 3-NN search returns
    differs between two failure-free runs too (approximate search over segments that merge in
    the background), so it is no part of the oracle. Ids, texts, counter and history are."""
    return {k: v for k, v in digest.items() if k != "search"}


def root_cause(trace: str) -> str:
    """The innermost 'Caused by' line of a Java stack trace (its first line if none)."""
    causes = [line for line in trace.splitlines() if line.startswith("Caused by:")]
    return (causes or trace.splitlines()[:1] or [""])[-1]


def assert_matches_oracle(out: Path, expected: list[dict[str, Any]]) -> None:
    """Every digest (replays included) = the failure-free run's digest of that event, and the
    last one of every key its final memory."""
    lines = read_lines(out)
    written = [json.loads(line) for line in lines]
    assert {d["seq"] for d in written} == set(range(N)), "some events have no digest"
    wrong = [d["seq"] for d in written if memory_of(d) != memory_of(expected[d["seq"]])]
    assert not wrong, f"digests differ from the failure-free run at events {wrong[:10]}"
    final = {key: memory_of(d) for key, d in last_digest_per_key(lines).items()}
    assert final == {d["key"]: memory_of(d) for d in expected[-KEYS:]}
    print(f"{len(written)} digests for {N} events ({len(written) - N} replayed)")


def test_full_local_disk_fails_over_cleanly_and_recovers_when_space_returns(tmp_path,
                                                                            expected):
    out = tmp_path / "digests.jsonl"
    port = free_port()
    with small_filesystem(tmp_path / "tm-local", "64m") as local:
        # io.tmp.dirs: where the TaskManager's IOManager, and so the index, keeps its files
        client = start(DigestAgent(out_file=str(out)),
                       port, tmp_path / "checkpoints", restarts=1000,
                       extra={"io.tmp.dirs": str(local)})
        try:
            wait_until(lambda: progress(out) >= N // 4, TIMEOUT, f"event {N // 4}")
            jid = job_id(port)
            indexes = list(local.glob(f"flink-io-*/flink-agents-memory/{jid}/*/*/kg-*"))
            assert indexes, f"no index under {local}: io.tmp.dirs was not used"
            log_before_full = len(jobmanager_log(port))
            filler = fill(local)
            full_at = progress(out)
            # the running attempt fails on the full disk, then at least one restore does too
            wait_until(lambda: len(failures(port, jid)) >= 3, TIMEOUT, "three failovers")
            stuck = progress(out)
            filler.unlink()
            wait_until(lambda: progress(out) >= N - 1, TIMEOUT, "the last event after the disk "
                                                               "had space again")
            traces = failures(port, jid)
            current = max(attempts(port, jid))
            left = sorted(p.name for p in local.glob(f"flink-io-*/flink-agents-memory/{jid}/*/*"))
            stats = checkpoints(port, jid)
            log = jobmanager_log(port)[log_before_full:]
        finally:
            client.cancel().result()
    declined_for_space = log.count("Caused by: java.io.IOException: the long-term memory index "
                                   "could not be written to this checkpoint, which is declined: "
                                   "java.io.IOException: No space left on device")
    print(f"\ndisk full at event {full_at}, {len(traces)} failovers, no progress past "
          f"event {stuck} while full; attempts {current}; local index directories {left}; "
          f"checkpoints {stats['counts']}; checkpoints declined for space {declined_for_space}")
    # each failover is the full disk: a write or restore that hit it, or a checkpoint it made
    # the operator decline (the job tolerates no failed checkpoint here). REST gives a declined
    # checkpoint's reason as "Asynchronous task checkpoint failed." only; the log names it.
    enospc = [t for t in traces if "No space left on device" in t]
    declined = [t for t in traces if "tolerable failure threshold" in t]
    assert traces and all(t in enospc or t in declined for t in traces), \
        [root_cause(t) for t in traces]
    assert declined_for_space >= len(declined), (declined_for_space, len(declined))
    assert stats["counts"]["restored"] >= 1
    # a failed attempt leaves no index behind: only the attempt that runs now has one
    assert left == [f"0-{current}"], left
    assert_matches_oracle(out, expected)


def test_read_only_checkpoint_storage_fails_checkpoints_not_the_job(tmp_path, expected):
    out, trigger, gate = tmp_path / "digests.jsonl", tmp_path / "fail-now", tmp_path / "go"
    port = free_port()
    with small_filesystem(tmp_path / "checkpoints", "256m") as storage:
        agent = DigestAgent(out_file=str(out), fail_marker=str(tmp_path / "failed"),
                            fail_trigger=str(trigger))
        # checkpoint failures are tolerated; one restart, for the failure injected at the end
        client = start(agent, port, storage, restarts=1, gate=gate,
                       extra={"execution.checkpointing.tolerable-failed-checkpoints": "1000"})
        try:
            wait_until(lambda: progress(out) >= N // 5, TIMEOUT, f"event {N // 5}")
            jid = job_id(port)
            wait_until(lambda: checkpoints(port, jid)["counts"]["completed"] >= 2, TIMEOUT,
                       "two completed checkpoints")
            remount(storage, "ro")
            ro_from, before = progress(out), checkpoints(port, jid)["counts"]
            wait_until(lambda: checkpoints(port, jid)["counts"]["failed"] >= before["failed"] + 3
                       and progress(out) >= ro_from + 30, TIMEOUT,
                       "three failed checkpoints and 30 more events while read-only")
            during = checkpoints(port, jid)
            ro_until, failovers, tries = progress(out), failures(port, jid), attempts(port, jid)
            remount(storage, "rw")
            last_failed = max(c["id"] for c in during["history"] if c["status"] == "FAILED")
            wait_until(lambda: checkpoints(port, jid)["latest"]["completed"] is not None
                       and checkpoints(port, jid)["latest"]["completed"]["id"] > last_failed,
                       TIMEOUT, "a checkpoint completed after storage was writable again")
            # memory is intact in that checkpoint: fail the job, so it restores from it
            trigger.touch()
            gate.touch()
            wait_until(lambda: checkpoints(port, jid)["counts"]["restored"] >= 1, TIMEOUT,
                       "the restore")
            wait_until(lambda: progress(out) >= N - 1, TIMEOUT, "the last event")
            restored = checkpoints(port, jid)["latest"]["restored"]
        finally:
            client.cancel().result()
    failed = [c for c in during["history"] if c["status"] == "FAILED"]
    reasons = sorted({(c.get("failure_message") or "")[:160] for c in failed})
    print(f"\nread-only from event {ro_from} to {ro_until}: "
          f"{during['counts']['failed'] - before['failed']} checkpoints failed, the last "
          f"{len(failed)} with {reasons}; restored checkpoint {restored['id']} (last failed "
          f"{last_failed})")
    # the job itself never failed while checkpoints did: no failover, every subtask on attempt 0
    assert failovers == [] and set(tries) == {0}, (failovers[:1], tries)
    assert restored["id"] > last_failed
    assert_matches_oracle(out, expected)
