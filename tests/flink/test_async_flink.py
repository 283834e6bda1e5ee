"""Runs in flight on a MiniCluster: async actions wait on a slow loopback LLM while the subtask
runs other keys' inputs; each key's runs stay in input order."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from async_agent import AskingAgent, ClientsAgent, FailingAskingAgent, RememberingAgent
from flink.jobs import make_env, run_agent, sequence_source
from llm_server import ScriptedLLMServer

from flink_agents_memory import AgentConfig


def _answer(body: dict) -> str:
    return "re:" + body["messages"][-1]["content"]


def _parse(out: str) -> tuple[str, int, list[int]]:
    key, i, seen, answer = out.split("|", 3)
    assert answer.startswith(f"re:{key}|{i}|"), out
    return key, int(i), [int(s) for s in seen.split(",") if s]


def check_per_key_order(outputs: list[str], n: int, keys: int) -> None:
    """Every input once; each key's runs saw exactly the key's earlier inputs, in input order."""
    assert len(outputs) == n, f"{len(outputs)} outputs for {n} inputs"
    by_key: dict[str, list[tuple[int, list[int]]]] = defaultdict(list)
    for out in outputs:
        key, i, seen = _parse(out)
        by_key[key].append((i, seen))
    assert len(by_key) == keys
    for key, runs in by_key.items():
        indexes = [i for i, _ in runs]
        assert indexes == sorted(indexes), f"{key} ran out of order: {indexes}"
        for position, (_, seen) in enumerate(runs):
            assert seen == indexes[:position], f"{key}: {runs}"


def check_final_memory(outputs: list[str], n: int, keys: int) -> None:
    """The last run of each key saw every earlier input of the key once, in order (0 lost, 0
    duplicated in memory), whatever a restart replayed to the collector."""
    last: dict[str, tuple[int, list[int]]] = {}
    for out in outputs:
        key, i, seen = _parse(out)
        if key not in last or i > last[key][0]:
            last[key] = (i, seen)
    assert len(last) == keys
    for key, (i, seen) in last.items():
        expected = [j for j in range(n) if f"k{j % keys}" == key]
        assert seen + [i] == expected, f"{key}: saw {seen} then {i}, expected {expected}"


def test_runs_of_many_keys_wait_on_the_llm_together() -> None:
    with ScriptedLLMServer(respond=_answer) as server:
        server.delay_s = 0.2
        n, keys = 120, 30
        outputs = run_agent(AskingAgent(server.url, calls=2),
                            lambda env: sequence_source(env, n, keys),
                            env=make_env(parallelism=1),
                            config=AgentConfig(max_runs_in_flight=16))
        check_per_key_order(outputs, n, keys)
        # 16 runs in flight over 30 keys: the server sees many requests at once, never more
        # than the limit.
        assert 8 <= server.max_in_flight <= 16, server.max_in_flight
        assert len(server.requests) == 2 * n


def test_one_hot_key_queues_its_inputs_in_order() -> None:
    with ScriptedLLMServer(respond=_answer) as server:
        server.delay_s = 0.02
        outputs = run_agent(AskingAgent(server.url), lambda env: sequence_source(env, 40, 1),
                            env=make_env(parallelism=1), config=AgentConfig())
        check_per_key_order(outputs, 40, 1)
        assert server.max_in_flight == 1


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_failure_with_runs_in_flight_restores_them_and_replays_recorded_calls(tmp_path, backend):
    n, keys, calls, limit = 300, 40, 2, 8
    checkpoints = tmp_path / "checkpoints"
    with ScriptedLLMServer(respond=_answer) as server:
        server.delay_s = 0.05
        agent = FailingAskingAgent(server.url, calls, str(checkpoints), str(tmp_path / "failed"),
                                   fail_from=150)
        env = make_env(parallelism=1, checkpoint_dir=checkpoints, checkpoint_interval_ms=1000,
                       restarts=1, backend=backend)
        outputs = run_agent(agent, lambda env: sequence_source(env, n, keys, throttle_ms=5),
                            env=env, config=AgentConfig(max_runs_in_flight=limit))
        assert (tmp_path / "failed").exists(), "the injected failure never happened"
        check_final_memory(outputs, n, keys)
        asked = [r["messages"][-1]["content"] for r in server.requests]
        again = len(asked) - len(set(asked))
        assert len(set(asked)) == calls * n
        # Calls completed before the failure come from the durable record; only the calls in
        # flight at the failure (at most one per run in flight) are made again.
        assert again <= limit, f"{again} calls made again"


def _pipeline_answer(body: dict) -> str:
    """Facts: the user's message; decisions: ADD each new fact."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if "extract durable facts" in system:
        return json.dumps({"facts": [user.split(": ", 1)[1]]})
    facts = json.loads(user)["new_facts"]
    return json.dumps({"memory": [{"id": str(n), "text": f, "event": "ADD"}
                                  for n, f in enumerate(facts)]})


def test_add_messages_async_runs_the_pipeline_of_many_keys_at_once() -> None:
    with ScriptedLLMServer(respond=_pipeline_answer) as server:
        server.delay_s = 0.1
        n, keys = 60, 20
        outputs = run_agent(RememberingAgent(server.url),
                            lambda env: sequence_source(env, n, keys),
                            env=make_env(parallelism=1), config=AgentConfig(max_runs_in_flight=16))
        assert len(outputs) == n
        last: dict[str, tuple[int, str]] = {}
        for out in outputs:
            key, i, memories = out.split("|", 2)
            if key not in last or int(i) > last[key][0]:
                last[key] = (int(i), memories)
        for key, (i, memories) in last.items():
            # get_all reads what is committed: every earlier run of the key, once each
            expected = sorted(f"my number is {j}" for j in range(i) if f"k{j % keys}" == key)
            assert memories.split(";") == expected, key
        assert len(server.requests) == 2 * n
        assert server.max_in_flight > 1, "the pipeline's calls never overlapped"


def test_the_llm_client_and_http_embedder_have_awaitable_forms() -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0, 0.0, 0.0] for _ in texts]

    with ScriptedLLMServer(embed=embed, respond=_answer) as server:
        server.delay_s = 0.1
        outputs = run_agent(ClientsAgent(server.url), lambda env: sequence_source(env, 24, 8),
                            env=make_env(parallelism=1), config=AgentConfig())
        assert sorted(outputs) == sorted(f"k{i % 8}|{i}|re:k{i % 8}|{i}|4" for i in range(24))
        assert server.max_in_flight > 1, "the awaited calls never overlapped"
