"""Agent memory on a real standalone cluster: kill -9 of a TaskManager, and rescaling through
stop-with-savepoint 2 → 3 → 1. The oracle is a failure-free run of the same job on the same
cluster: the final memory of every key (short-term counter/sum, history, long-term ids and
texts) and the digest after every single event must be identical.

The digests are written by the agent itself, one file per subtask attempt (see memory_job.py);
for every key (and every event) the newest line wins, i.e. the one of the attempt that
finished the job.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

import pytest
from llm_server import ScriptedLLMServer
from memory_job import ClusterMemoryAgent, memory_text

from flink_agents_memory import cluster
from flink_agents_memory.inspector import SavepointView

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

JOB = Path(__file__).with_name("memory_job.py")
# Small on purpose: on 2 busy cores a subtask handles only about 20-40 of these events per
# second (each writes all three memory kinds); the throttle keeps the source below that, so
# barriers are not stuck behind a backlog and a stop or kill really happens mid-stream.
N, KEYS = 480, 12
THROTTLE_MS = 40
SUBMIT_TIMEOUT = 240
JOB_TIMEOUT = 300


# -- helpers ---------------------------------------------------------------------------------

def submit(settings: cluster.ClusterSettings, out: Path, *extra: str, parallelism: int,
           savepoint: str | None = None) -> str:
    """Submit memory_job.py detached; returns the JobID."""
    out.mkdir(parents=True, exist_ok=True)
    args = ["--n", str(N), "--keys", str(KEYS), "--out", str(out), *extra]
    result = cluster.submit(settings, JOB, args, detached=True, parallelism=parallelism,
                            savepoint=savepoint, timeout=SUBMIT_TIMEOUT, capture=True)
    assert result.returncode == 0, f"flink run failed:\n{result.stdout}\n{result.stderr}"
    return cluster.job_id_of(result.stdout + result.stderr)


def read_digests(out: Path) -> list[dict[str, Any]]:
    """Every complete digest line of every attempt (a line cut by kill -9 is skipped)."""
    records = []
    for path in sorted(out.glob("digests-*.jsonl")):
        for line in path.read_text().splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                records.append(json.loads(line))
    return records


def newest(records: list[dict[str, Any]], field: str) -> dict[Any, dict[str, Any]]:
    """The newest record per value of ``field`` (without its timestamp)."""
    best: dict[Any, dict[str, Any]] = {}
    for r in records:
        if r[field] not in best or r["t_ns"] > best[r[field]]["t_ns"]:
            best[r[field]] = r
    return {k: {f: v for f, v in r.items() if f != "t_ns"} for k, r in best.items()}


def progress(out: Path) -> int:
    """Highest event number any attempt has processed so far."""
    return max((r["seq"] for r in read_digests(out)), default=-1)


def wait_until(predicate: Any, timeout: float, what: str, poll: float = 0.3) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(poll)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def vertex_subtasks(settings: cluster.ClusterSettings, job_id: str) -> list[dict[str, Any]]:
    subtasks = []
    for vertex in cluster.rest_get(settings, f"/jobs/{job_id}")["vertices"]:
        detail = cluster.rest_get(settings, f"/jobs/{job_id}/vertices/{vertex['id']}")
        subtasks += [{**s, "vertex": vertex["name"]} for s in detail["subtasks"]]
    return subtasks


def all_running(settings: cluster.ClusterSettings, job_id: str) -> bool:
    return all(s["status"] == "RUNNING" for s in vertex_subtasks(settings, job_id))


def final_attempt_running_ms(settings: cluster.ClusterSettings, job_id: str) -> list[int]:
    """When each subtask's current (last) attempt switched to RUNNING, epoch ms."""
    times = []
    for vertex in cluster.rest_get(settings, f"/jobs/{job_id}")["vertices"]:
        detail = cluster.rest_get(settings, f"/jobs/{job_id}/vertices/{vertex['id']}/subtasktimes")
        times += [s["timestamps"]["RUNNING"] for s in detail["subtasks"]]
    return times


def agent_parallelism(settings: cluster.ClusterSettings, job_id: str) -> int:
    vertices = cluster.rest_get(settings, f"/jobs/{job_id}")["vertices"]
    return next(v["parallelism"] for v in vertices if v["name"].startswith("agent:"))


def completed_checkpoints(settings: cluster.ClusterSettings, job_id: str) -> dict[str, Any]:
    return cluster.rest_get(settings, f"/jobs/{job_id}/checkpoints")


def assert_matches_oracle(records: list[dict[str, Any]], oracle: dict[str, Any]) -> None:
    by_key, by_seq = newest(records, "key"), newest(records, "seq")
    assert sorted(by_seq) == list(range(N)), "some events never produced a digest"
    assert by_key == oracle["by_key"], "final memory differs from the failure-free run"
    mismatched = [s for s in range(N) if by_seq[s] != oracle["by_seq"][s]]
    assert not mismatched, f"digests differ from the failure-free run at events {mismatched[:10]}"
    for key, final in by_key.items():
        assert final["probe"], f"the newest digest of {key} is not its probe"
        assert [m[0] for m in final["ltm"]] == [m[0] for m in oracle["by_key"][key]["ltm"]]


@pytest.fixture(scope="module")
def oracle(flink_cluster: cluster.ClusterSettings, tmp_path_factory) -> dict[str, Any]:
    """The failure-free run (parallelism 2, no throttle), checked against what the job must
    compute by construction, so the oracle itself is not taken on trust."""
    out = tmp_path_factory.mktemp("oracle")
    job_id = submit(flink_cluster, out, parallelism=2)
    cluster.wait_job(flink_cluster, job_id, timeout=JOB_TIMEOUT)
    records = read_digests(out)
    assert len(records) == N, "a failure-free run processes every event exactly once"
    by_key, by_seq = newest(records, "key"), newest(records, "seq")
    assert len(by_key) == KEYS
    for key, final in by_key.items():
        k = int(key[1:])
        seqs = [s for s in range(k, N - KEYS, KEYS)]
        assert final["count"] == len(seqs) and final["sum"] == sum(seqs)
        assert final["chat"] == [f"{key}:{s}" for s in seqs[-5:]]
        assert sorted(text for _, text in final["ltm"]) == sorted(memory_text(key, s)
                                                                  for s in seqs)
        assert len({memory_id for memory_id, _ in final["ltm"]}) == len(seqs)
    return {"by_key": by_key, "by_seq": by_seq}


#: Runs in flight per agent subtask of the async agent (memory_job.py --max-in-flight).
MAX_IN_FLIGHT = 8


@pytest.fixture(params=["sync", "async-hashmap", "async-rocksdb"])
def agent(request) -> Any:
    """The job's agent: the sync one (on the test's own backend), or the async one on each
    backend, which awaits a durable call to a slow loopback LLM before each run's writes and
    must end exactly as the sync one (the oracle). Yields ``(extra job arguments, the LLM
    server or None, the backend or None)``."""
    if request.param == "sync":
        yield [], None, None
        return
    backend = request.param.split("-", 1)[1]
    with ScriptedLLMServer(respond=lambda body: "re:" + body["messages"][-1]["content"]) as llm:
        llm.delay_s = 0.2
        yield ["--llm-url", llm.url, "--max-in-flight", str(MAX_IN_FLIGHT),
               "--backend", backend], llm, backend


def calls_made_again(llm: ScriptedLLMServer | None) -> int:
    """LLM requests made more than once (a replay that did not find the recorded outcome)."""
    if llm is None:
        return 0
    asked = [r["messages"][-1]["content"] for r in llm.requests]
    assert len(set(asked)) == N, "every event asks the LLM once"
    return len(asked) - len(set(asked))


# -- tests -----------------------------------------------------------------------------------

def test_taskmanagers_score_long_term_vectors_with_simd(flink_cluster, oracle):
    """The cluster starts its TaskManagers with the vector module (flink_agents_memory's
    vector_module), and the operator jar, having written the oracle's memories, says it uses it."""
    logs = "".join(path.read_text(errors="replace")
                   for path in flink_cluster.log_dir.glob("*taskexecutor*.log"))
    assert "Long-term memory scores vectors with a SIMD dot product" in logs

def test_rescale_through_stop_with_savepoint_2_3_1(flink_cluster, oracle, tmp_path, agent):
    out = tmp_path / "digests"
    throttle = ["--throttle-ms", str(THROTTLE_MS)]
    agent_args, _, _ = agent
    savepoints: list[str] = []
    at_savepoint: list[dict[Any, dict[str, Any]]] = []  # each key's newest digest at each stop
    job_id = None
    for parallelism, stop_after in ((2, N // 4), (3, N // 2), (1, None)):
        savepoint = savepoints[-1] if savepoints else None
        job_id = submit(flink_cluster, out, *(throttle if stop_after else []), *agent_args,
                        parallelism=parallelism, savepoint=savepoint)
        cluster.wait_job(flink_cluster, job_id, states=("RUNNING", "FINISHED"))
        assert agent_parallelism(flink_cluster, job_id) == parallelism
        if stop_after is None:
            cluster.wait_job(flink_cluster, job_id, timeout=JOB_TIMEOUT)
            break
        wait_until(lambda j=job_id: all_running(flink_cluster, j), 120, "all tasks running")
        wait_until(lambda n=stop_after: progress(out) >= n, JOB_TIMEOUT,
                   f"event {stop_after} at parallelism {parallelism}")
        savepoints.append(cluster.stop_with_savepoint(flink_cluster, job_id,
                                                      tmp_path / "savepoints"))
        cluster.wait_job(flink_cluster, job_id, timeout=120)
        at_savepoint.append(newest(read_digests(out), "key"))
        print(f"\nparallelism {parallelism}: stopped after event {progress(out)} "
              f"with savepoint {savepoints[-1]}")
    records = read_digests(out)
    print(f"rescale 2→3→1: {len(records)} digests for {N} events")
    assert len(records) == N, "stop-with-savepoint must neither replay nor lose an event"
    assert_matches_oracle(records, oracle)
    for savepoint, digests in zip(savepoints, at_savepoint, strict=True):
        assert_inspector_shows(savepoint, digests)


def assert_inspector_shows(savepoint: str, digests: dict[Any, dict[str, Any]]) -> None:
    """The memory inspector opens a savepoint the standalone cluster wrote, and shows every
    key's memory as the job's own digests recorded it when the job stopped: the counter and
    sum, the chat history, and one long-term memory per event (get_all in a digest sees the
    index as of its run's start, so the key's counter is the number the savepoint holds)."""
    view = SavepointView(savepoint, agent=ClusterMemoryAgent)
    try:
        assert view.keys(limit=100)["total"] == len(digests)
        for key, digest in digests.items():
            shown = view.key(key)
            stats = dict(dict(shown["short_term"]["fields"])["stats"]["fields"])
            assert (stats["count"]["value"], stats["sum"]["value"]) == \
                (digest["count"], digest["sum"]), key
            [chat] = shown["histories"]
            assert [i["value"] for i in chat["items"] if i["retained"]] == digest["chat"], key
            assert shown["memories"] == digest["count"], key
            texts = [m["memory"] for m in view.memories(key, limit=500)["items"]]
            first = int(key[1:])  # key k<i> gets events i, i + KEYS, ... in order
            assert sorted(texts) == sorted(memory_text(key, s) for s in range(
                first, first + KEYS * digest["count"], KEYS)), key
    finally:
        view.close()


def test_kill_9_taskmanager_restores_all_memory(flink_cluster, oracle, tmp_path, agent):
    out, checkpoints = tmp_path / "digests", tmp_path / "checkpoints"
    agent_args, llm, _ = agent
    # Until the heartbeat times out, the JobManager keeps redeploying to the killed TaskManager
    # and each attempt fails at once (500 ms apart): the restart budget must outlast that.
    restarts = flink_cluster.heartbeat_timeout_ms // 500 + 5
    job_id = submit(flink_cluster, out, "--throttle-ms", str(THROTTLE_MS),
                    "--checkpoint-dir", str(checkpoints), "--interval-ms", "500",
                    "--restarts", str(restarts), *agent_args, parallelism=2)
    cluster.wait_job(flink_cluster, job_id, states=("RUNNING",))
    wait_until(lambda: completed_checkpoints(flink_cluster, job_id)["counts"]["completed"] >= 1
               and progress(out) >= N // 3, JOB_TIMEOUT, "a completed checkpoint mid-stream")
    stats = completed_checkpoints(flink_cluster, job_id)
    placement = cluster.job_taskmanagers(flink_cluster, job_id)
    victim = next(tm for tm, names in sorted(placement.items())
                  if any(n.startswith("agent:") for n in names))
    processed_before = len(read_digests(out))
    pid = cluster.kill_process(flink_cluster, victim)  # kill -9
    killed_at, killed_at_ms = time.monotonic(), time.time() * 1000
    replacement = cluster.add_taskmanager(flink_cluster)

    def running_again() -> bool:
        subtasks = vertex_subtasks(flink_cluster, job_id)
        return all(s["attempt"] >= 1 and s["status"] in ("RUNNING", "FINISHED")
                   for s in subtasks)

    wait_until(running_again, 180, "the job to run again after the kill", poll=0.2)
    first_back_s = time.monotonic() - killed_at
    cluster.wait_job(flink_cluster, job_id, timeout=JOB_TIMEOUT)
    # Tasks redeployed to the dead TaskManager before the JobManager notices (heartbeat
    # timeout) fail again; the recovery ends when the attempts that finished the job ran.
    final_running_ms = max(final_attempt_running_ms(flink_cluster, job_id))
    recovery_s = (final_running_ms - killed_at_ms) / 1000
    attempts = max(s["attempt"] for s in vertex_subtasks(flink_cluster, job_id))
    final_stats = completed_checkpoints(flink_cluster, job_id)
    records = read_digests(out)
    latest = stats["latest"]["completed"]
    print(f"\nkilled {victim} (pid {pid}) after {processed_before} of {N} events; "
          f"placement {placement}; replacement {replacement}")
    print(f"recovery time (kill -9 → all tasks of the final attempt running): {recovery_s:.1f} s"
          f" (first back running after {first_back_s:.1f} s; attempts per task up to "
          f"{attempts})")
    print(f"events replayed: {len(records) - N} (digests written {len(records)} for {N} events)")
    print(f"checkpoint before the kill: id {latest['id']}, state size {latest['state_size']} B, "
          f"checkpointed {latest['checkpointed_size']} B; completed over the job: "
          f"{final_stats['counts']['completed']}, restored: {final_stats['counts']['restored']}")
    assert final_stats["counts"]["restored"] >= 1, "the job did not restore from a checkpoint"
    assert_matches_oracle(records, oracle)
    again = calls_made_again(llm)
    print(f"LLM calls made again after the kill: {again}")
    # Outcomes recorded before the kill come from the durable log: only the calls in flight at
    # the kill (at most MAX_IN_FLIGHT per agent subtask) are made again.
    assert again <= 2 * MAX_IN_FLIGHT, f"{again} calls made again"


def test_kill_9_whole_cluster_resumes_from_retained_checkpoint(flink_cluster, oracle, tmp_path,
                                                               agent):
    """kill -9 of the JobManager and every TaskManager at once (no HA: the job is gone with
    the JobManager), then the cluster started again and the job resubmitted with ``-s`` on its
    latest retained checkpoint. RocksDB with incremental checkpoints (the async agent on each
    backend)."""
    out, checkpoints = tmp_path / "digests", tmp_path / "checkpoints"
    agent_args, llm, backend = agent
    args = ["--throttle-ms", str(THROTTLE_MS), "--checkpoint-dir", str(checkpoints),
            "--interval-ms", "500", "--retain", "--backend", backend or "rocksdb", *agent_args]
    job_id = submit(flink_cluster, out, *args, parallelism=2)
    cluster.wait_job(flink_cluster, job_id, states=("RUNNING",))
    config = cluster.rest_get(flink_cluster, f"/jobs/{job_id}/checkpoints/config")
    assert config["externalization"] == {"enabled": True, "delete_on_cancellation": False}
    expected_backend = "HashMap" if backend == "hashmap" else "RocksDB"
    assert expected_backend in config["state_backend"], config["state_backend"]
    # Flink counts a checkpoint completed once its _metadata is committed; the disk is asked too,
    # so that a failure below says whether the kill, not the wait, lost it.
    wait_until(lambda: completed_checkpoints(flink_cluster, job_id)["counts"]["completed"] >= 2
               and cluster.latest_checkpoint(checkpoints / job_id) is not None
               and progress(out) >= N // 3, JOB_TIMEOUT, "two completed checkpoints mid-stream")
    before_kill = completed_checkpoints(flink_cluster, job_id)["latest"]["completed"]
    killed = cluster.kill_all(flink_cluster)
    killed_at, processed_before = time.monotonic(), len(read_digests(out))
    assert "jobmanager" in killed and len(killed) >= 3, killed
    latest = cluster.latest_checkpoint(checkpoints / job_id)
    assert latest is not None, (
        f"no complete checkpoint retained in {checkpoints / job_id} after the kill; Flink's "
        f"latest completed before it: {before_kill and before_kill['external_path']}; on disk: "
        f"{sorted(str(p.relative_to(checkpoints)) for p in checkpoints.rglob('*'))[:40]}")

    cluster.start(flink_cluster, timeout=180)
    resumed = submit(flink_cluster, out, *args, parallelism=2, savepoint=str(latest))
    cluster.wait_job(flink_cluster, resumed, states=("RUNNING", "FINISHED"))
    resumed_s = time.monotonic() - killed_at
    cluster.wait_job(flink_cluster, resumed, timeout=JOB_TIMEOUT)
    restored = completed_checkpoints(flink_cluster, resumed)["latest"]["restored"]
    records = read_digests(out)
    print(f"\nkill -9 of {sorted(killed)} after {processed_before} of {N} events; resumed from "
          f"{latest.name} (restored: {restored and restored['external_path']}); cluster up and "
          f"job running again {resumed_s:.1f} s after the kill; events replayed: "
          f"{len(records) - N}")
    assert restored is not None and restored["external_path"].rstrip("/").endswith(latest.name)
    assert_matches_oracle(records, oracle)
    again = calls_made_again(llm)
    print(f"LLM calls made again after the kill: {again}")
    assert again <= 2 * MAX_IN_FLIGHT, f"{again} calls made again"
