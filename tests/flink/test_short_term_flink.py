"""Short-term memory on real Flink MapState, inside MemoryAgentOperator, in thread mode."""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path

import jobs
import pytest
import stm_scenarios
from stm_scenarios import CustomDataSet

from flink_agents_memory import (
    Agent,
    AgentConfig,
    Event,
    InputEvent,
    MemoryRef,
    OutputEvent,
    Retention,
    StateTtl,
    action,
)


class ScenarioAgent(Agent):
    """Runs the shared scenarios on the key's real MapState and reports per scenario."""

    @action(InputEvent)
    @staticmethod
    def run_scenario(event, ctx):
        name = event.input.split("|", 1)[1]
        try:
            getattr(stm_scenarios, name)(ctx.get_short_term_memory())
            result = "ok"
        except Exception:
            result = traceback.format_exc()
        ctx.send_event(OutputEvent(output=f"{name}:{result}"))


def test_short_term_scenarios_on_flink_state():
    names = ["design_example", "delete_and_values", "memory_ref_roundtrip"]
    outputs = jobs.run_agent(ScenarioAgent(), [f"key{i}|{n}" for i, n in enumerate(names)])
    assert sorted(outputs) == sorted(f"{n}:ok" for n in names)


class MyEvent(Event):
    """A custom Event with a payload field that can hold either the actual data or a reference."""

    payload: CustomDataSet | MemoryRef


class RefAgent(Agent):
    """The short-term memory design's agent example: action_a stores data and passes a
    MemoryRef to action_b. A later run of the same key reads the data stored by the first run."""

    memory_types = (CustomDataSet,)

    @action(InputEvent)
    @staticmethod
    def action_a(event, ctx):
        key, content = event.input.split("|", 1)
        stm = ctx.get_short_term_memory()
        if content == "read-back":
            again = stm.get(MemoryRef.create(f"shared_datasets.{key}.content", "CustomDataSet"))
            ctx.send_event(OutputEvent(output=f"{key}:again:{again.data.decode()}"))
            return
        data_to_store = CustomDataSet(id=key, data=content.encode("utf-8"))
        data_path = "shared_datasets." + key + ".content"
        stm.set(data_path, data_to_store)
        data_ref = MemoryRef.create(data_path, "CustomDataSet")
        assert stm.set(data_path, data_to_store) == data_ref
        ctx.send_event(MyEvent(payload=data_ref))

    @action(MyEvent)
    @staticmethod
    def action_b(event, ctx):
        payload = event.payload
        assert isinstance(payload, MemoryRef)
        resolved_data = payload.resolve(ctx)
        assert ctx.get_short_term_memory().get(payload) == resolved_data
        data_size = len(resolved_data.data)
        ctx.send_event(
            OutputEvent(
                output=f"Processed data with ID '{resolved_data.id}', size: {data_size} bytes."
            )
        )


def test_memory_ref_with_pydantic_model_between_actions():
    outputs = jobs.run_agent(
        RefAgent(),
        ["large_001|hello", "large_002|some larger content", "large_001|read-back"],
        env=jobs.make_env(parallelism=1),
    )
    assert outputs == [
        "Processed data with ID 'large_001', size: 5 bytes.",
        "Processed data with ID 'large_002', size: 19 bytes.",
        "large_001:again:hello",
    ]


class IsolationAgent(Agent):
    """Each key records its own events; any foreign value shows up in the output."""

    @action(InputEvent)
    @staticmethod
    def record(event, ctx):
        key, seq = event.input.split("|")
        stm = ctx.get_short_term_memory()
        if stm.get("owner") is None:
            stm.set("owner", ctx.key)
        seen = stm.get("profile.seen") or []
        stm.set("profile.seen", [*seen, int(seq)])
        ctx.send_event(
            OutputEvent(
                output=json.dumps(
                    {"key": key, "ctx_key": ctx.key, "owner": stm.get("owner"),
                     "seen": stm.get("profile.seen")}
                )
            )
        )


def test_one_thousand_keys_never_mix():
    keys, per_key = 1000, 3
    n = keys * per_key
    outputs = [json.loads(o) for o in jobs.run_agent(
        IsolationAgent(), lambda env: jobs.sequence_source(env, n, keys)
    )]
    assert len(outputs) == n
    final: dict[str, list[int]] = {}
    for out in outputs:
        assert out["key"] == out["ctx_key"] == out["owner"]
        assert all(f"k{s % keys}" == out["key"] for s in out["seen"])
        final[out["key"]] = max(final.get(out["key"], []), out["seen"], key=len)
    assert len(final) == keys
    for key, seen in final.items():
        i = int(key[1:])
        assert seen == [i + j * keys for j in range(per_key)]


class ReadAheadAgent(Agent):
    """Reads four paths a run, as the key's previous run wrote them, and reports what was read
    ahead: the first read of each run after the first brings the others along, read by the
    operator before the element's call (ElementCallState) once it knows which paths."""

    @action(InputEvent)
    @staticmethod
    def read_then_write(event, ctx):
        seq = int(event.input.split("|")[1])
        stm = ctx.get_short_term_memory()
        last = stm.get("last")
        read_ahead = sorted(ctx.runtime.stm_buffer._ahead)
        store = ctx.runtime.stm_buffer._backing  # one per subtask
        carried = store.carried_reads  # runs read ahead by the operator, with their elements
        seen = stm.get("seen")
        owner = stm.get("profile.owner")
        greeting = stm.get("profile.prénom")  # a non-ASCII path crosses into Java in the list
        stm.set("last", seq)
        stm.set("seen", [*(seen or []), seq])
        stm.set("profile.owner", ctx.key)
        stm.set("profile.prénom", f"Grüße {ctx.key}")
        ctx.send_event(OutputEvent(output=json.dumps(
            {"key": ctx.key, "seq": seq, "last": last, "seen": seen, "owner": owner,
             "greeting": greeting, "read_ahead": read_ahead, "carried": carried,
             "subtask": id(store)})))


@pytest.mark.parametrize("ttl_update", [None, "on_create_and_write", "on_read_and_write"])
def test_a_runs_reads_come_from_the_key_with_the_element(ttl_update):
    keys, per_key = 200, 4
    ttl = StateTtl(ttl_ms=3_600_000, update_type=ttl_update) if ttl_update else None
    outputs = [json.loads(o) for o in jobs.run_agent(
        ReadAheadAgent(), lambda env: jobs.sequence_source(env, keys * per_key, keys),
        env=jobs.make_env(parallelism=2), config=AgentConfig(state_ttl=ttl),
    )]
    assert len(outputs) == keys * per_key
    read_ahead_runs = 0
    carried_by_subtask: dict[int, int] = {}
    for out in outputs:
        i, round_ = int(out["key"][1:]), out["seq"] // keys
        previous = [i + j * keys for j in range(round_)]
        assert out["seen"] == (previous or None), out
        assert out["last"] == (previous[-1] if previous else None), out
        assert out["owner"] == (out["key"] if previous else None), out
        assert out["greeting"] == (f"Grüße {out['key']}" if previous else None), out
        read_ahead_runs += bool(out["read_ahead"])
        carried_by_subtask[out["subtask"]] = max(carried_by_subtask.get(out["subtask"], 0),
                                                 out["carried"])
        if previous and ttl_update != "on_read_and_write":
            assert {"seen", "profile.owner", "profile.prénom"} <= set(out["read_ahead"]), out
    carried = sum(carried_by_subtask.values())
    if ttl_update == "on_read_and_write":
        # A read ahead would restart the clock of paths the run never reads.
        assert read_ahead_runs == carried == 0
    else:
        # Every run of a subtask after its first reads ahead (the paths its previous run read).
        assert read_ahead_runs >= keys * per_key - 2
        # The operator reads them with the element once it knows them: all but a subtask's
        # first two runs and the run after the paths read change (a new key's run reads its
        # parents too, so the first run of the second round reads other paths than the one
        # before).
        assert carried >= keys * per_key - 6, carried_by_subtask


class OrderAgent(Agent):
    """Reports whether each event of a key came after the previous one."""

    @action(InputEvent)
    @staticmethod
    def check(event, ctx):
        seq = int(event.input.split("|")[1])
        stm = ctx.get_short_term_memory()
        last = stm.get("last")
        stm.set("last", seq)
        ctx.send_event(OutputEvent(output="ok" if last is None or last < seq else
                                   f"{ctx.key}: {seq} after {last}"))


def test_each_keys_events_arrive_in_order_from_a_single_subtask_source():
    """Memory semantics depend on each key's order surviving the key_by (source in one
    subtask, agent in two)."""
    outputs = jobs.run_agent(OrderAgent(), lambda env: jobs.sequence_source(env, 4000, 3))
    assert [o for o in outputs if o != "ok"] == []
    assert len(outputs) == 4000


class CountingAgent(Agent):
    """Writes counters and a list per event; fails once, after a completed checkpoint."""

    def __init__(self, checkpoint_dir: str | None = None, marker: str | None = None,
                 fail_from: int = 0) -> None:
        self.checkpoint_dir = checkpoint_dir
        self.marker = marker
        self.fail_from = fail_from

    @action(InputEvent)
    def count(self, event, ctx):
        seq = int(event.input.split("|")[1])
        stm = ctx.get_short_term_memory()
        stm.set("count", (stm.get("count") or 0) + 1)
        stm.set("sum.total", (stm.get("sum.total") or 0) + seq)
        stm.set("recent", [*(stm.get("recent") or []), seq][-5:])
        if (
            self.marker
            and seq >= self.fail_from
            and not Path(self.marker).exists()
            and any(Path(self.checkpoint_dir).glob("*/chk-*/_metadata"))
        ):
            Path(self.marker).write_text(str(seq))
            raise RuntimeError(f"injected failure at {seq}")
        digest = {"count": stm.get("count"), "total": stm.get("sum.total"),
                  "recent": stm.get("recent")}
        ctx.send_event(OutputEvent(output=json.dumps({"key": ctx.key, "memory": digest})))


def final_memory(outputs: list[str]) -> dict[str, dict]:
    final = {}
    for raw in outputs:
        out = json.loads(raw)
        final[out["key"]] = out["memory"]
    return final


def test_failure_after_checkpoint_restores_exact_memory(tmp_path):
    n, keys = 800, 20
    source = lambda env: jobs.sequence_source(env, n, keys, throttle_ms=2)  # noqa: E731
    expected = final_memory(jobs.run_agent(CountingAgent(), source, env=jobs.make_env()))
    checkpoints = tmp_path / "checkpoints"
    marker = tmp_path / "failed-once"
    env = jobs.make_env(checkpoint_dir=checkpoints, restarts=3)
    agent = CountingAgent(str(checkpoints), str(marker), fail_from=n // 2)
    actual = final_memory(jobs.run_agent(agent, source, env=env))
    assert marker.exists(), "the failure was never injected"
    assert int(marker.read_text()) >= n // 2
    assert len(expected) == keys
    assert actual == expected
    for _key, memory in expected.items():
        assert memory["count"] == n // keys


class TtlAgent(Agent):
    histories = {"log": Retention(max_items=10)}

    @action(InputEvent)
    @staticmethod
    def touch(event, ctx):
        if event.input.endswith("|2"):
            time.sleep(1.0)  # here, not upstream: buffered events could arrive together
        stm = ctx.get_short_term_memory()
        seen = stm.get("seen")
        log = ctx.history("log").all()
        recent = ctx.history("log").get_recent(5)  # read in Java, through Flink's TTL wrapper
        stm.set("seen", event.input)
        ctx.history("log").append(event.input)
        ctx.send_event(OutputEvent(output=json.dumps({"in": event.input, "seen": seen,
                                                      "log": log, "recent": recent})))


def test_flink_state_ttl_expires_short_term_memory_and_histories():
    """StateTtl maps onto Flink's StateTtlConfig: after the TTL a key's fields are gone."""
    config = AgentConfig(state_ttl=StateTtl(ttl_ms=400))
    outputs = [json.loads(o) for o in jobs.run_agent(
        TtlAgent(), lambda env: jobs.sequence_source(env, 3, 1), config=config)]
    by_input = {o["in"]: o for o in outputs}
    assert by_input["k0|1"]["seen"] == "k0|0" and by_input["k0|1"]["log"] == ["k0|0"]
    assert by_input["k0|2"]["seen"] is None and by_input["k0|2"]["log"] == []
    assert [by_input[f"k0|{i}"]["recent"] for i in range(3)] == [[], ["k0|0"], []]
