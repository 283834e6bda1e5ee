"""Takes a real savepoint of a real MiniCluster job running :class:`InspectorAgent`."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspector_agent import SCRIPT, InspectorAgent
from pyflink.common import Configuration, Types, WatermarkStrategy
from pyflink.common.job_client import JobClient
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.datastream.connectors.number_seq import NumberSequenceSource
from pyflink.java_gateway import get_gateway

from flink_agents_memory import AgentsExecutionEnvironment
from flink_agents_memory.runtime.savepoint import stop_with_savepoint

#: ``agents(out_file)``: the agents the job applies to the same keyed input, each with the uid
#: its operator gets (None: none set); each writes one line to ``out_file`` per script event
AgentsFactory = Callable[[str], list[tuple[Any, str | None]]]


def one_inspector_agent(out_file: str) -> list[tuple[Any, str | None]]:
    return [(InspectorAgent(out_file=out_file), None)]


def take_savepoint(tmp: Path, script: list[str] = SCRIPT, parallelism: int = 2,
                   event: Callable[[int], str] | None = None,
                   agents: AgentsFactory = one_inspector_agent) -> str:
    """Run the agents (default: one InspectorAgent) over ``script`` (then ticks), stop with a
    savepoint, return its path."""
    out = tmp / "outputs.jsonl"
    conf = Configuration()
    conf.set_string("execution.checkpointing.interval", "500ms")
    conf.set_string("execution.checkpointing.dir", (tmp / "chk").as_uri())
    # state in files of their own, not inlined into _metadata: the bad-input tests damage them
    conf.set_string("execution.checkpointing.data-inline-threshold", "0b")
    # the last checkpoint stays when the job ends: the retained-checkpoint test reads it
    conf.set_string("execution.checkpointing.externalized-checkpoint-retention",
                    "RETAIN_ON_CANCELLATION")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    env.set_max_parallelism(128)
    n = len(script)

    def label(i: int) -> str:
        if i < n:
            return script[i]
        time.sleep(0.05)  # ticks: the job stays up until the savepoint
        return f"tick|{i}"

    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    ds = (env.from_source(NumberSequenceSource(0, 10**9), WatermarkStrategy.no_watermarks(), "seq")
          .set_parallelism(1).map(event or label, output_type=Types.STRING()).set_parallelism(1))
    applied = agents(str(out))
    for agent, uid in applied:
        stream = agents_env.from_datastream(ds, lambda v: v.split("|", 1)[0]).apply(
            agent).to_datastream(Types.STRING())
        if uid is not None:
            stream.uid(uid)
        stream.print()
    client = env.execute_async("inspector-test")
    deadline = time.time() + 300
    lines = n * len(applied)  # every agent writes one line per script event
    while not out.exists() or len(out.read_text().splitlines()) < lines:
        if time.time() > deadline:
            client.cancel()
            raise AssertionError(f"the job wrote only part of {lines} outputs to {out}")
        time.sleep(0.2)
    # one more checkpoint after every output, so the retained one holds all of them too
    seen = latest_checkpoint(tmp / "chk")
    while latest_checkpoint(tmp / "chk") == seen:
        if time.time() > deadline:
            client.cancel()
            raise AssertionError("no checkpoint completed after the outputs")
        time.sleep(0.2)
    return savepoint_then_cancel(client, (tmp / "savepoints").as_uri())


def savepoint_then_cancel(client: JobClient, directory_uri: str) -> str:
    """A canonical savepoint of the running job, then cancel it: a cancelled job keeps its last
    checkpoint (RETAIN_ON_CANCELLATION), a stopped (finished) one does not. PyFlink 2.3's
    ``trigger_savepoint`` calls a removed Java method, so this calls the real one."""
    gateway = get_gateway()
    format_type = gateway.jvm.org.apache.flink.core.execution.SavepointFormatType.CANONICAL
    path = str(client._j_job_client.triggerSavepoint(directory_uri, format_type).get(
        120_000, gateway.jvm.java.util.concurrent.TimeUnit.MILLISECONDS))
    client.cancel().result()
    return path


def latest_checkpoint(checkpoints: Path) -> Path | None:
    """The newest completed checkpoint (``chk-N`` with a ``_metadata``) under ``checkpoints``."""
    done = [p.parent for p in checkpoints.glob("*/chk-*/_metadata")]
    return max(done, key=lambda p: int(p.name.split("-")[1]), default=None)


def take_foreign_savepoint(tmp: Path) -> str:
    """A savepoint of another job: a source and a keyed reduce (keyed state of another
    operator), no memory operator."""
    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    env.set_parallelism(1)
    AgentsExecutionEnvironment.get_execution_environment(env)  # thread mode, as agent jobs

    def slow(i: int) -> int:
        time.sleep(0.05)
        return i

    (env.from_source(NumberSequenceSource(0, 10**9), WatermarkStrategy.no_watermarks(), "seq")
     .map(slow, output_type=Types.LONG()).key_by(lambda i: i % 3, key_type=Types.LONG())
     .reduce(lambda a, b: a + b).print())
    client = env.execute_async("foreign")
    time.sleep(3)
    return stop_with_savepoint(client, (tmp / "savepoints").as_uri())
