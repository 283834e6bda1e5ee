"""The whole public API fuzzed inside one MiniCluster job (on_error="dead_letter").

10,000 runs (hypothesis strategies in tests/fuzz_api.py: short-term paths and values,
histories, ctx.memory add (with context)/update/delete/get/search (with min_score)/get_all with
filters/audit_trail/recent_memories, knowledge search on a real Chroma server) go through the
job with checkpoints and a restart strategy. Oracles:
* every run with a bad argument is a dead letter, and the error names no Java exception;
* the job never restarted (REST: no exception in its history, every subtask on attempt 0);
* the memory of every key equals what the good runs alone produce on the reference runner
  (LocalAgentRunner on the real Lucene index), where none of them fails.
"""

from __future__ import annotations

import json
import os
import random
import time

import fuzz_api
import jobs
import pytest
from faults import free_port, rest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from knowledge_corpus import DOCS
from lucene_store import LuceneRunner, LuceneStore
from pyflink.common import Types, WatermarkStrategy
from pyflink.datastream.connectors.number_seq import NumberSequenceSource

from flink_agents_memory import AgentsExecutionEnvironment
from flink_agents_memory.knowledge import KnowledgeBase, ingest_files
from flink_agents_memory.knowledge.server import find_chroma
from flink_agents_memory.models import HashingEmbedder

N_INPUTS = int(os.environ.get("FUZZ_INPUTS", "10000"))
KEYS = [f"u{i}" for i in range(16)]
POOL = 1200
#: Errors a well-formed call can meet because of what the key's memory holds.
STATE_ERRORS = ("MemoryNotFoundError", "MemoryPathError", "MemoryValueError")
BATCH = 20


def generate(n: int, with_knowledge: bool) -> list[tuple[str, fuzz_api.Run]]:
    """``n`` (key, run) pairs, drawn up front in the driver: hypothesis draws a pool of calls
    (its engine costs milliseconds per example, too slow for 10,000 examples) and a seeded
    random, which makes the runs as 1 to 3 calls of the pool on a random key."""
    pool: list[fuzz_api.Call] = []
    seeds: list[int] = []

    @settings(max_examples=POOL // BATCH, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(st.lists(fuzz_api.call_pool(with_knowledge), min_size=BATCH, max_size=BATCH),
           st.integers(0, 2 ** 32))
    def draw(batch, seed):
        pool.extend(batch)
        seeds.append(seed)

    draw()
    rng = random.Random(seeds[0])
    return [(rng.choice(KEYS), fuzz_api.Run(rng.choices(pool, k=rng.randint(1, 3))))
            for _ in range(n)]


def restarts(port: int) -> tuple[int, list[int]]:
    """Failures in the job's exception history, and every subtask's attempt number."""
    [job] = [j for j in rest(port, "/jobs/overview")["jobs"] if j["state"] == "RUNNING"]
    jid = job["jid"]
    failures = len(rest(port, f"/jobs/{jid}/exceptions")["exceptionHistory"]["entries"])
    attempts = [s["attempt"] for v in rest(port, f"/jobs/{jid}")["vertices"]
                for s in rest(port, f"/jobs/{jid}/vertices/{v['id']}")["subtasks"]]
    return failures, attempts


def idle(i: int) -> str:
    time.sleep(0.5)
    return ""


def run_job(inputs: list[str], agent: fuzz_api.FuzzAgent, tmp_path) -> tuple[list, list, tuple]:
    """Run the job; returns (outputs, dead letters, restarts) once every input is answered."""
    port = free_port()
    env = jobs.make_env(parallelism=2, checkpoint_dir=tmp_path / "checkpoints",
                        checkpoint_interval_ms=1000, restarts=3,
                        extra={"rest.bind-port": str(port), "rest.bind-address": "127.0.0.1"})
    agents_env = AgentsExecutionEnvironment.get_execution_environment(env)
    source = env.from_collection(inputs, type_info=Types.STRING())
    builder = agents_env.from_datastream(source, fuzz_api.key_of).apply(agent, fuzz_api.CONFIG)
    main = builder.to_datastream(Types.STRING()).map(lambda s: f"out:{s}",
                                                    output_type=Types.STRING())
    dead = builder.dead_letters().map(lambda s: f"dead:{s}", output_type=Types.STRING())
    # keeps the job running after the input, so REST can be asked about it
    tail = (env.from_source(NumberSequenceSource(0, 10 ** 9), WatermarkStrategy.no_watermarks(),
                            "idle").map(idle, output_type=Types.STRING())
            .filter(lambda s: s != ""))
    outputs, letters = [], []
    with main.union(dead, tail).execute_and_collect() as results:
        for line in results:
            if line.startswith("out:"):
                outputs.append(line[4:])
            else:
                letters.append(json.loads(line[5:]))
            if len(outputs) + len(letters) == len(inputs):
                break
        counted = restarts(port)
    return outputs, letters, counted


def reference(inputs: list[str], agent: fuzz_api.FuzzAgent, directory) -> tuple[list, list]:
    lucene = LuceneStore(directory)
    runner = LuceneRunner(agent, lucene, fuzz_api.CONFIG)
    outputs, letters = [], []
    try:
        for value in inputs:
            out = runner.run(fuzz_api.key_of(value), value)
            if out and not isinstance(out[0], str):
                letters.append(out[0])
            else:
                outputs.extend(out)
    finally:
        lucene.close()
    return outputs, letters


@pytest.mark.slow
def test_fuzzed_api_in_a_job_dead_letters_bad_runs_without_a_restart(tmp_path):
    knowledge = find_chroma() is not None
    server = None
    if knowledge:
        from knowledge_corpus import start_server

        server = start_server(tmp_path / "chroma")
    try:
        bases = []
        if server is not None:
            corpus = tmp_path / "corpus.jsonl"
            corpus.write_text("".join(json.dumps({"text": t, "doc": d}) + "\n"
                                      for d, t in DOCS.items()))
            base = KnowledgeBase(server.url, on_error="empty", retries=1, timeout_s=10)
            ingest_files(base, fuzz_api.SOURCE, [corpus], HashingEmbedder(64))
            bases = [base]
        agent = fuzz_api.FuzzAgent(bases)
        started = time.monotonic()
        drawn = generate(N_INPUTS, knowledge)
        inputs = [fuzz_api.encode(key, i, run) for i, (key, run) in enumerate(drawn)]
        inputs += [fuzz_api.encode(key, -1, fuzz_api.DUMP) for key in KEYS]
        timings = {"generate": time.monotonic() - started}
        outputs, letters, (failures, attempts) = run_job(inputs, agent, tmp_path)
        timings["job"] = time.monotonic() - started - sum(timings.values())

        # no restart: nothing in the exception history, every subtask still on attempt 0
        assert failures == 0 and set(attempts) == {0}, (failures, attempts)
        # every bad run is a dead letter, refused in Python (no Java exception)
        dead = {letter["input"] for letter in letters}
        assert len(dead) == len(letters)
        bad = {value for value, (_, run) in zip(inputs, drawn, strict=False) if run.bad}
        assert bad <= dead, [fuzz_api.decode(v) for v in sorted(bad - dead)[:3]]
        for letter in letters:
            assert "java.lang" not in letter["error"] and "Py4J" not in letter["error"], letter

        # a run without a bad argument may still fail on what the key holds (an unknown id,
        # a path under a value...): then with one of these errors, never anything else
        for letter in letters:
            if letter["input"] not in bad:
                assert any(f"{name}: " in letter["error"] for name in STATE_ERRORS), letter

        # the reference: the good runs alone, on the real index, give the job's memory
        good = [v for v in inputs if v not in dead]
        good_out, good_dead = reference(good, agent, tmp_path / "reference")
        timings["reference"] = time.monotonic() - started - sum(timings.values())
        assert [letter.error for letter in good_dead] == []
        dumps = sorted(o for o in outputs if o.startswith("dump:"))
        assert len(dumps) == len(KEYS)
        assert dumps == sorted(o for o in good_out if o.startswith("dump:"))
        print(f"\n{len(inputs)} inputs: {len(dead)} dead letters ({len(bad)} with a bad "
              f"argument), {len(outputs) - len(KEYS)} committed runs, knowledge={knowledge}, "
              f"seconds: { {k: round(v, 1) for k, v in timings.items()} }")
    finally:
        if server is not None:
            server.stop()
