"""The agent job the cluster tests submit with ``flink run -py`` (also importable by the tests).

Input: ``"k<i % keys>|<i>"`` for i in 0..n-1 from a NumberSequenceSource (one subtask,
checkpointed, replayable), optionally throttled. The last ``keys`` events are probes (one per
key) that only read. Every other event writes short-term memory (a counter and a sum), appends
to a history and adds a deterministic text to long-term memory. Every event appends a JSON
digest of the key's memory to a file of its own subtask attempt under ``--out``, flushed per
line, so the digests survive a ``kill -9`` of the TaskManager; probes add the full sorted list
of long-term memories (ids and texts).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from pyflink.common import Configuration, Types, WatermarkStrategy
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.datastream.connectors.number_seq import NumberSequenceSource

from flink_agents_memory import (
    Agent,
    AgentConfig,
    AgentsExecutionEnvironment,
    InputEvent,
    OutputEvent,
    action,
)
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.memory.retention import Retention
from flink_agents_memory.models import HashingEmbedder

HISTORY_ITEMS = 5


def memory_text(key: str, seq: int) -> str:
    return f"note {seq} about {key}: remembered"


class ClusterMemoryAgent(Agent):
    """Writes all three memory kinds per event and records a digest of them."""

    histories = {"chat": Retention(max_items=HISTORY_ITEMS)}
    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(64))

    def __init__(self, out_dir: str, probe_from: int) -> None:
        self.out_dir = out_dir
        self.probe_from = probe_from
        self._out: Any = None

    def _write(self, record: dict[str, Any]) -> None:
        if self._out is None:
            name = f"digests-{os.getpid()}-{threading.get_ident()}-{uuid.uuid4().hex[:8]}.jsonl"
            self._out = open(Path(self.out_dir) / name, "a", buffering=1)  # noqa: SIM115
        self._out.write(json.dumps(record, sort_keys=True) + "\n")

    @action(InputEvent)
    def remember(self, event: InputEvent, ctx: Any) -> None:
        key, raw_seq = event.input.split("|")
        seq = int(raw_seq)
        stm = ctx.get_short_term_memory()
        chat = ctx.history("chat")
        probe = seq >= self.probe_from
        if not probe:
            stm.set("stats.count", (stm.get("stats.count") or 0) + 1)
            stm.set("stats.sum", (stm.get("stats.sum") or 0) + seq)
            chat.append(f"{key}:{seq}")
            ctx.memory.add(memory_text(key, seq))
        # get_all sees the index as of the run's start (this run's add is not in it yet). A key
        # holds at most one memory per event of this job: far below MemoryLimits'
        # max_search_limit (10,000), so the digest still lists every memory of the key.
        ltm = sorted((m.id, m.memory) for m in ctx.memory.get_all(limit=10_000))
        digest = {"key": ctx.key, "seq": seq, "probe": probe,
                  "count": stm.get("stats.count") or 0, "sum": stm.get("stats.sum") or 0,
                  "chat": chat.get_recent(HISTORY_ITEMS), "ltm_n": len(ltm),
                  "ltm_sha": hashlib.sha1(json.dumps(ltm).encode()).hexdigest()}
        if probe:
            digest["ltm"] = ltm
        self._write({**digest, "t_ns": time.time_ns()})
        ctx.send_event(OutputEvent(output=json.dumps(digest)))


def ask(url: str, text: str) -> str:
    """One chat completion on the test's loopback LLM (the real client)."""
    from flink_agents_memory.models.llm import OpenAICompatibleLLM

    return OpenAICompatibleLLM(url, "scripted", retries=0, timeout_s=60).complete(
        [{"role": "user", "content": text}])


class AsyncClusterMemoryAgent(ClusterMemoryAgent):
    """The same memory writes and digests, after awaiting a durable call to a slow LLM: runs
    wait in flight while the subtask takes other keys, and must end exactly as the sync
    agent's do (the oracle)."""

    def __init__(self, out_dir: str, probe_from: int, llm_url: str) -> None:
        super().__init__(out_dir, probe_from)
        self.llm_url = llm_url

    @action(InputEvent)
    async def remember(self, event: InputEvent, ctx: Any) -> None:
        await ctx.durable_execute_async(ask, self.llm_url, str(event.input))
        ClusterMemoryAgent.remember(self, event, ctx)


def build(env: StreamExecutionEnvironment, args: argparse.Namespace) -> None:
    """Source (parallelism 1) → throttle → keyBy → agent → a sink that drops everything.

    The agents environment comes first: PyFlink picks the execution mode of a Python
    operator when it is created, so a map added before it would run in process mode."""
    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    throttle_s = args.throttle_ms / 1000

    def label(i: int) -> str:
        if throttle_s:
            time.sleep(throttle_s)
        return f"k{i % args.keys}|{i}"

    source = (
        env.from_source(NumberSequenceSource(0, args.n - 1), WatermarkStrategy.no_watermarks(),
                        "seq")
        .uid("seq-source").set_parallelism(1)
        .map(label, output_type=Types.STRING()).uid("label").set_parallelism(1)
    )
    agent = ClusterMemoryAgent(args.out, probe_from=args.n - args.keys) if not args.llm_url \
        else AsyncClusterMemoryAgent(args.out, args.n - args.keys, args.llm_url)
    outputs = (
        agents_env.from_datastream(source, lambda line: line.split("|", 1)[0])
        .apply(agent, AgentConfig(max_runs_in_flight=args.max_in_flight))
        .to_datastream(Types.STRING())
        .uid("agent")
    )
    outputs.filter(lambda _: False).uid("drop").print()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--keys", type=int, required=True)
    parser.add_argument("--out", required=True, help="directory for the digest files")
    parser.add_argument("--throttle-ms", type=float, default=0)
    parser.add_argument("--checkpoint-dir", default=None)
    parser.add_argument("--interval-ms", type=int, default=500)
    parser.add_argument("--restarts", type=int, default=0)
    parser.add_argument("--backend", choices=("hashmap", "rocksdb"), default=None,
                        help="state backend (default: the cluster's)")
    parser.add_argument("--retain", action="store_true",
                        help="keep the latest checkpoints when the job ends or is lost "
                             "(RETAIN_ON_CANCELLATION), to resume with flink run -s")
    parser.add_argument("--name", default="cluster-memory-job")
    parser.add_argument("--llm-url", default=None,
                        help="run the async agent, which awaits this LLM before each run's writes")
    parser.add_argument("--max-in-flight", type=int, default=8)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    conf = Configuration()
    if args.checkpoint_dir:
        conf.set_string("execution.checkpointing.interval", f"{args.interval_ms}ms")
        conf.set_string("execution.checkpointing.dir", Path(args.checkpoint_dir).as_uri())
    if args.retain:
        conf.set_string("execution.checkpointing.externalized-checkpoint-retention",
                        "RETAIN_ON_CANCELLATION")
    if args.backend:
        conf.set_string("state.backend.type", args.backend)
        conf.set_string("execution.checkpointing.incremental", str(args.backend == "rocksdb"))
    if args.restarts:
        conf.set_string("restart-strategy.type", "fixed-delay")
        conf.set_string("restart-strategy.fixed-delay.attempts", str(args.restarts))
        conf.set_string("restart-strategy.fixed-delay.delay", "500ms")
    else:
        conf.set_string("restart-strategy.type", "none")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    build(env, args)
    env.execute(args.name)


if __name__ == "__main__":
    main()
