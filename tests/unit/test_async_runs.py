"""Async actions without Flink: the run generator driven inline (LocalAgentRunner), the call
pool's timeouts, durable call records and their log, and the bad inputs each refuses."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from flink_agents_memory import (
    Agent,
    AgentConfig,
    InputEvent,
    LocalAgentRunner,
    OutputEvent,
    action,
)
from flink_agents_memory.errors import ActionFailedError, CallTimeoutError, DurableCallError
from flink_agents_memory.runtime.calls import CallPool, PendingCall
from flink_agents_memory.runtime.durable import (
    CallIdentity,
    DurableLog,
    encode_outcome,
    replay_outcome,
)


def double(x: int) -> int:
    return 2 * x


async def triple(x: int) -> int:
    return 3 * x


class Doubler(Agent):
    @action(InputEvent)
    @staticmethod
    async def handle(event: InputEvent, ctx: Any) -> None:
        a = await ctx.durable_execute_async(double, event.input)
        b = await ctx.durable_execute_async(triple, a)
        c = ctx.durable_execute(double, b)
        stm = ctx.get_short_term_memory()
        stm.set("last", c)
        ctx.send_event(OutputEvent(output=c))


def test_an_async_agent_runs_inline_in_the_local_runner() -> None:
    runner = LocalAgentRunner(Doubler())
    assert Doubler().has_async_actions()
    assert runner.run("k", 5) == [60]
    runner.states.set_key("k")
    assert runner.ctx.get_short_term_memory().get("last") == 60


class Sleeper(Agent):
    @action(InputEvent)
    @staticmethod
    async def handle(event: InputEvent, ctx: Any) -> None:
        await asyncio.sleep(0)


def test_awaiting_anything_else_fails_the_run_and_says_what_may_be_awaited() -> None:
    runner = LocalAgentRunner(Sleeper())
    with pytest.raises(ActionFailedError, match="durable_execute_async"):
        runner.run("k", 1)


class BadCalls(Agent):
    @action(InputEvent)
    @staticmethod
    def handle(event: InputEvent, ctx: Any) -> None:
        if event.input == "not callable":
            ctx.durable_execute(42)
        else:
            ctx.durable_execute(double, 1, reconciler="nope")


@pytest.mark.parametrize("what,message", [
    ("not callable", "durable_execute expects a callable, got 42"),
    ("bad reconciler", "reconciler must be a callable taking no arguments, got 'nope'")])
def test_durable_execute_refuses_what_it_cannot_call(what: str, message: str) -> None:
    with pytest.raises(ActionFailedError, match=message):
        LocalAgentRunner(BadCalls()).run("k", what)


@pytest.mark.parametrize("bad", [{"max_runs_in_flight": 0}, {"call_timeout_ms": 0},
                                 {"max_inputs_waiting": 0}])
def test_async_settings_are_checked_when_the_job_is_built(bad: dict[str, int]) -> None:
    with pytest.raises(ValidationError, match=next(iter(bad))):
        AgentConfig(**bad)


def test_inputs_waiting_never_fall_below_the_runs_in_flight() -> None:
    assert AgentConfig(max_runs_in_flight=16).inputs_waiting_limit == 128
    assert AgentConfig(max_runs_in_flight=16, max_inputs_waiting=4).inputs_waiting_limit == 16


def _settle(pool: CallPool, timeout_s: float = 10) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        ready = pool.completed()
        if ready:
            return ready
        time.sleep(0.01)
    raise AssertionError("no call settled")


def test_the_pool_hands_back_results_errors_and_timeouts() -> None:
    pool = CallPool(workers=4, timeout_s=0.2)
    try:
        ok, failing, slow, coroutine = (PendingCall(double, (4,), {}),
                                        PendingCall(double, ("x", "y"), {}),
                                        PendingCall(time.sleep, (1,), {}),
                                        PendingCall(triple, (2,), {}))
        for run_id, call in enumerate([ok, failing, slow, coroutine]):
            call.run_id = run_id
            pool.submit(call)
        settled: set[int] = set()
        while len(settled) < 4:
            settled.update(_settle(pool))
        assert ok.result == 8 and ok.error is None
        assert isinstance(failing.error, TypeError)
        assert coroutine.result == 6
        assert isinstance(slow.error, CallTimeoutError)
        assert "did not finish within 0.2 s" in str(slow.error)
        assert pool.waiting == 0
    finally:
        pool.close()


IDENTITY = CallIdentity(key='"k1"', seq=3, index=0, input_hash="h", fn="ask")


def test_a_recorded_result_or_failure_comes_back_only_for_the_same_call() -> None:
    call = PendingCall(double, (1,), {})
    call.result = {"answer": [1, 2]}
    raw = encode_outcome(IDENTITY, call)
    assert replay_outcome(raw, IDENTITY) == (True, {"answer": [1, 2]})
    other_input = CallIdentity(IDENTITY.key, 3, 0, "other", "ask")
    assert replay_outcome(raw, other_input) == (False, None)
    failed = PendingCall(double, (1,), {})
    failed.error = ValueError("bad answer")
    with pytest.raises(ValueError, match="bad answer"):
        replay_outcome(encode_outcome(IDENTITY, failed), IDENTITY)
    failed.error = CallTimeoutError("too slow")
    with pytest.raises(CallTimeoutError, match="too slow"):
        replay_outcome(encode_outcome(IDENTITY, failed), IDENTITY)


def test_a_failure_whose_type_cannot_be_rebuilt_comes_back_as_a_durable_call_error() -> None:
    raw = json.dumps({"id": IDENTITY.log_id, "h": "h", "fn": "ask",
                      "e": {"type": "nowhere.Gone", "message": "lost"}})
    with pytest.raises(DurableCallError, match="nowhere.Gone: lost"):
        replay_outcome(raw, IDENTITY)


def test_the_log_is_read_back_by_the_next_attempt_and_trimmed_by_checkpoints(
        tmp_path: Path) -> None:
    first = DurableLog(tmp_path, subtask=0, attempt=0, restored_from=[])
    first.append(json.dumps({"id": "a", "v": "1"}))
    first.roll(5, carried=[json.dumps({"id": "waiting", "v": "2"})])
    first.append(json.dumps({"id": "b", "v": "3"}))
    first.close()
    (tmp_path / "0-0-5.log").open("a").write('{"id": "torn"')  # a kill mid-write
    second = DurableLog(tmp_path, subtask=0, attempt=1, restored_from=[])
    assert set(second.earlier) == {"a", "waiting", "b"}
    second.trim(7)  # a checkpoint of the new attempt: the earlier attempt's log goes
    assert sorted(p.name for p in tmp_path.glob("*.log")) == ["0-1-0.log"]
    second.roll(8, carried=[])
    second.trim(8)
    assert sorted(p.name for p in tmp_path.glob("*.log")) == ["0-1-8.log"]
    second.close()
