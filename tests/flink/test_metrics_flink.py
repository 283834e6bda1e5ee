"""Metrics through Flink's REST API while a MiniCluster job runs: counts match what the job did."""

from __future__ import annotations

import json
import socket
import time
import urllib.request

from pyflink.common import Configuration, Types, WatermarkStrategy
from pyflink.datastream import StreamExecutionEnvironment
from pyflink.datastream.connectors.number_seq import NumberSequenceSource

from flink_agents_memory import Agent, AgentsExecutionEnvironment, InputEvent, OutputEvent, action
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.memory.retention import Retention
from flink_agents_memory.models import HashingEmbedder

EVENTS, KEYS, IDLE = 60, 6, 400


class Measured(Agent):
    histories = {"log": Retention(max_items=4, slack=0)}
    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(32))

    @action(InputEvent)
    @staticmethod
    def work(event, ctx):
        stm = ctx.get_short_term_memory()
        stm.set("count", (stm.get("count") or 0) + 1)
        stm.set("last", event.input)
        ctx.history("log").append(event.input)
        ctx.memory.add(f"memory {event.input}")
        ctx.memory.search("memory", limit=2, mode="keyword")
        ctx.send_event(OutputEvent(output=event.input))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rest(port: int, path: str):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return json.loads(r.read())


def agent_metrics(port: int) -> dict[str, float]:
    """Our metrics of the agent vertex, summed over subtasks, by ``<kind>.<name>``."""
    job = next(j for j in rest(port, "/jobs")["jobs"] if j["status"] == "RUNNING")
    vertices = rest(port, f"/jobs/{job['id']}")["vertices"]
    vertex = next(v for v in vertices if "agent" in v["name"])
    base = f"/jobs/{job['id']}/vertices/{vertex['id']}/metrics"
    names = [m["id"] for m in rest(port, base) if ".agents.memory." in m["id"]]
    totals: dict[str, float] = {}  # counters and gauges add up; histogram stats do not
    for i in range(0, len(names), 20):
        query = ",".join(names[i:i + 20])
        for metric in rest(port, f"{base}?get={query}"):
            short = metric["id"].split(".agents.memory.", 1)[1]
            totals[short] = totals.get(short, 0) + float(metric["value"])
    return totals


def start_job(tmp_path, agent):
    port = free_port()
    conf = Configuration()
    conf.set_string("rest.port", str(port))
    conf.set_string("rest.address", "127.0.0.1")
    conf.set_string("execution.checkpointing.interval", "200ms")
    conf.set_string("execution.checkpointing.dir", (tmp_path / "chk").as_uri())
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    agents = AgentsExecutionEnvironment.get_execution_environment(env)

    def label(i: int) -> str:
        if i >= EVENTS:  # an idle tail keeps the job running while the test reads metrics
            time.sleep(0.05)
        return f"k{i % KEYS}|{i}"

    ds = (env.from_source(NumberSequenceSource(0, EVENTS + IDLE - 1),
                          WatermarkStrategy.no_watermarks(), "seq").set_parallelism(1)
          .map(label, output_type=Types.STRING()).set_parallelism(1)
          .filter(lambda s: int(s.split("|")[1]) < EVENTS).set_parallelism(1))
    agents.from_datastream(ds, lambda s: s.split("|")[0]).apply(agent).to_datastream(
        Types.STRING()).print()
    return port, env.execute_async("metrics")


def wait_for(port: int, expected: dict[str, float]) -> dict[str, float]:
    deadline, seen = time.time() + 60, {}
    while time.time() < deadline:
        try:
            seen = agent_metrics(port)
        except (OSError, StopIteration, KeyError):
            seen = {}
        if all(seen.get(k) == v for k, v in expected.items()):
            break
        time.sleep(0.5)
    return seen


def test_metrics_count_what_the_job_did(tmp_path):
    port, client = start_job(tmp_path, Measured())
    # two fields per event, plus the root object's field list once per key
    expected = {"agent.runs": EVENTS, "agent.action.work.calls": EVENTS,
                "short_term.writes": 2 * EVENTS + KEYS, "history.log.appends": EVENTS,
                "history.__audit__.appends": EVENTS, "long_term.adds": EVENTS,
                "long_term.documents": EVENTS, "long_term.searches.keyword": EVENTS}
    try:
        seen = wait_for(port, expected)
        assert {k: seen.get(k) for k in expected} == expected
        assert "agent.failed_runs" not in seen
        assert seen["long_term.snapshot_bytes"] > 0 and seen["long_term.key_groups"] == KEYS
        assert seen["long_term.segments"] >= KEYS
        # each key got 10 appends with max_items=4 and no slack: 6 evicted per key
        assert seen["history.log.evictions.drop_oldest"] == KEYS * (EVENTS // KEYS - 4)
        assert seen["short_term.reads"] >= EVENTS
        for histogram in ("agent.run_latency_us", "long_term.search_us.keyword",
                          "long_term.embed_us", "short_term.flush_us"):
            assert f"{histogram}_p99" in seen and f"{histogram}_median" in seen
    finally:
        client.cancel().result()


class Forgetful(Measured):
    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(32), ttl_ms=1)


def test_expired_memories_are_purged_at_checkpoints(tmp_path):
    port, client = start_job(tmp_path, Forgetful())
    try:
        expected = {"long_term.adds": EVENTS, "long_term.purged": EVENTS,
                    "long_term.documents": 0}
        seen = wait_for(port, expected)
        assert {k: seen.get(k) for k in expected} == expected
    finally:
        client.cancel().result()
