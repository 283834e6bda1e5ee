"""Runs in flight on a MiniCluster: async actions wait on a slow loopback LLM while the subtask
runs other keys' inputs; each key's runs stay in input order."""

from __future__ import annotations

from collections import defaultdict

from async_agent import AskingAgent
from flink.jobs import make_env, run_agent, sequence_source
from llm_server import ScriptedLLMServer

from flink_agents_memory import AgentConfig


def _answer(body: dict) -> str:
    return "re:" + body["messages"][-1]["content"]


def check_per_key_order(outputs: list[str], n: int, keys: int) -> None:
    """Every input once; each key's runs saw the key's earlier inputs, in input order."""
    assert len(outputs) == n, f"{len(outputs)} outputs for {n} inputs"
    by_key: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for out in outputs:
        key, i, seen, answer = out.split("|", 3)
        assert answer.startswith(f"re:{key}|{i}|"), out
        by_key[key].append((int(i), int(seen)))
    assert len(by_key) == keys
    for key, runs in by_key.items():
        indexes = [i for i, _ in runs]
        assert indexes == sorted(indexes), f"{key} ran out of order: {indexes}"
        assert [seen for _, seen in runs] == list(range(len(runs))), f"{key}: {runs}"


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
