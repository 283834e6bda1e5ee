"""Checkpoint storage that refuses writes for a while (a read-only remount of its filesystem).

The job must keep processing while its checkpoints fail, checkpoint again once the storage
takes writes, and restore from that checkpoint with memory intact: a failure injected after the
first checkpoint that completed on the writable storage again, and the final memory of every
key (short-term counters and long-term memories, no duplicates) equals a failure-free run.
"""

from __future__ import annotations

import json
import subprocess
import time

import jobs
import pytest
from faults import (
    KEYS,
    N,
    StorageAgent,
    checkpoint_ids,
    final,
    free_port,
    mount,
    progress,
    require_mount,
    rest,
)
from pyflink.common import Types

from flink_agents_memory import AgentsExecutionEnvironment


def failed_checkpoints(port: int) -> int:
    [job] = rest(port, "/jobs/overview")["jobs"]  # the MiniCluster runs this job only
    return rest(port, f"/jobs/{job['jid']}/checkpoints")["counts"]["failed"]


@pytest.mark.slow
def test_checkpoints_fail_while_storage_is_read_only_and_memory_survives(tmp_path):
    require_mount()
    source = lambda env: jobs.sequence_source(env, N, KEYS, throttle_ms=60)  # noqa: E731
    expected = final(jobs.run_agent(StorageAgent(), source, env=jobs.make_env(parallelism=1)))
    work = tmp_path / "work"
    checkpoints = work / "checkpoints"
    checkpoints.mkdir(parents=True)
    mount("-t", "tmpfs", "-o", "size=256m", "tmpfs", str(checkpoints))
    try:
        port = free_port()
        env = jobs.make_env(parallelism=2, checkpoint_dir=checkpoints, restarts=3,
                            extra={"execution.checkpointing.tolerable-failed-checkpoints":
                                   "1000", "rest.bind-port": str(port),
                                   "rest.bind-address": "127.0.0.1"})
        agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
        out = agents_env.from_datastream(source(env), jobs.key_of).apply(
            StorageAgent(str(work))).to_datastream(Types.STRING())
        outputs: list[str] = []
        window: tuple[int, int] | None = None
        with out.execute_and_collect() as results:
            for line in results:
                outputs.append(line)
                if window is None and checkpoint_ids(checkpoints):
                    last_before = max(checkpoint_ids(checkpoints))
                    before = progress(work)
                    mount("-o", "remount,ro", str(checkpoints))
                    deadline = time.monotonic() + 180
                    while failed_checkpoints(port) < 2 and time.monotonic() < deadline:
                        time.sleep(0.2)  # read-only until checkpoints have failed
                    refused = failed_checkpoints(port)
                    after = progress(work)
                    (work / "writable_since").write_text(str(time.time()))
                    mount("-o", "remount,rw", str(checkpoints))
                    window = (before, after)
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(checkpoints)], capture_output=True)
        subprocess.run(["umount", str(checkpoints)], capture_output=True)
    assert window is not None, "no checkpoint completed before the storage turned read-only"
    assert window[1] > window[0], f"the job stopped while checkpoints failed: {window}"
    assert (work / "failed").exists(), "the failure after the new checkpoint was never injected"
    assert refused >= 2, f"only {refused} checkpoints failed on the read-only storage"
    # the attempts that failed on the read-only storage used up checkpoint ids
    first_after = min(i for i in json.loads((work / "failed").read_text()) if i > last_before)
    assert first_after - last_before >= 2, (last_before, first_after)
    actual = final(outputs)
    assert actual == expected
    for key, memory in expected.items():
        assert memory["count"] == N // KEYS
        # read in the key's last run, which does not see its own add yet
        assert len(memory["memories"]) == N // KEYS - 1, key
