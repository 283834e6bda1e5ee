"""Histories on a real MiniCluster: random programs (hypothesis) of append / get_recent /
clear / len / time steps per key, every retention combination at once, with a failure after a
checkpoint mid-stream; every output (replays included) must equal the reference model."""

from __future__ import annotations

import json
import time
from pathlib import Path

import history_model
import jobs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyflink.common import Duration, Types, WatermarkStrategy
from pyflink.common.watermark_strategy import TimestampAssigner
from pyflink.datastream.connectors.number_seq import NumberSequenceSource

from flink_agents_memory import Agent, AgentConfig, InputEvent, OutputEvent, action

KEYS = 6


class EventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp) -> int:
        return json.loads(value.split("|", 1)[1])["t"]


class HistoryProgram(Agent):
    histories = history_model.COMBINATIONS

    def __init__(self, marker: str, checkpoint_dir: str, fail_from: int) -> None:
        self.marker = marker
        self.checkpoint_dir = checkpoint_dir
        self.fail_from = fail_from

    @action(InputEvent)
    def apply(self, event, ctx):
        key, raw = event.input.split("|", 1)
        op = json.loads(raw)
        results = {}
        for name in self.histories:
            history = ctx.history(name)
            if op["op"] == "append":
                history.append(op["arg"])
                results[name] = None
            elif op["op"] == "get_recent":
                results[name] = history.get_recent(op["arg"])
            elif op["op"] == "clear":
                history.clear()
                results[name] = None
            else:
                results[name] = [len(history), history.all()]
        if (op["i"] >= self.fail_from and not Path(self.marker).exists()
                and any(Path(self.checkpoint_dir).glob("*/chk-*/_metadata"))):
            Path(self.marker).write_text(str(op["i"]))
            raise RuntimeError("injected failure")
        ctx.send_event(OutputEvent(output=json.dumps({"i": op["i"], "results": results})))


op_strategy = st.one_of(
    st.tuples(st.just("append"), st.one_of(st.text(alphabet="ab .", max_size=10),
                                           st.integers(-9, 9))),
    st.tuples(st.just("get_recent"), st.integers(0, 7)),
    st.tuples(st.just("clear"), st.none()),
    st.tuples(st.just("len"), st.none()),
    st.tuples(st.just("tick"), st.integers(5, 40)),
)
programs = st.lists(st.lists(op_strategy, min_size=5, max_size=30), min_size=KEYS,
                    max_size=KEYS)


def interleave(per_key: list[list[tuple]]) -> list[str]:
    """Round-robin over keys; ticks advance the key's event-time clock (not an event)."""
    clocks = [1_000] * len(per_key)
    lines, i, cursor = [], 0, [0] * len(per_key)
    while any(c < len(p) for c, p in zip(cursor, per_key, strict=True)):
        for k, program in enumerate(per_key):
            while cursor[k] < len(program) and program[cursor[k]][0] == "tick":
                clocks[k] += program[cursor[k]][1]
                cursor[k] += 1
            if cursor[k] < len(program):
                op, arg = program[cursor[k]]
                cursor[k] += 1
                clocks[k] += 1
                lines.append(f"k{k}|" + json.dumps({"i": i, "op": op, "arg": arg, "t": clocks[k]}))
                i += 1
    return lines


def expected_results(lines: list[str]) -> dict[int, dict]:
    models: dict[tuple[str, str], history_model.HistoryModel] = {}
    expected = {}
    for line in lines:
        key, raw = line.split("|", 1)
        op = json.loads(raw)
        results = {}
        for name, retention in history_model.COMBINATIONS.items():
            model = models.setdefault((key, name), history_model.HistoryModel(retention))
            if op["op"] == "append":
                if model.fits_alone(op["arg"]):
                    model.append(op["t"], op["arg"])
                results[name] = None
            elif op["op"] == "get_recent":
                view = model.view(op["t"])
                results[name] = view[-op["arg"]:] if op["arg"] else []
            elif op["op"] == "clear":
                model.clear()
                results[name] = None
            else:
                view = model.view(op["t"])
                results[name] = [len(view), view]
        expected[op["i"]] = results
    return expected


def drop_oversized(per_key: list[list[tuple]]) -> list[list[tuple]]:
    """Appends over a limit on their own fail the run (tested elsewhere); keep programs valid."""
    def fits(item) -> bool:
        return all(history_model.HistoryModel(r).fits_alone(item)
                   for r in history_model.COMBINATIONS.values())

    return [[(o, a) for o, a in p if o != "append" or fits(a)] for p in per_key]


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))
@given(per_key=programs)
def test_histories_match_the_model_through_a_failure(tmp_path_factory, per_key):
    tmp = tmp_path_factory.mktemp("hist")
    lines = interleave(drop_oversized(per_key))
    expected = expected_results(lines)
    checkpoints, marker = tmp / "chk", tmp / "failed"
    agent = HistoryProgram(str(marker), str(checkpoints), fail_from=len(lines) // 2)
    # Everything upstream runs in one subtask (PyFlink's Python timestamp assigner would
    # otherwise run at the default parallelism and reorder a key's events); the agent in two.
    env = jobs.make_env(parallelism=1, checkpoint_dir=checkpoints, checkpoint_interval_ms=100,
                        restarts=3)

    def source(env):
        def label(i: int) -> str:
            time.sleep(0.01)
            return lines[i]

        return (env.from_source(NumberSequenceSource(0, len(lines) - 1),
                                WatermarkStrategy.no_watermarks(), "ops").set_parallelism(1)
                .map(label, output_type=Types.STRING()).set_parallelism(1)
                .assign_timestamps_and_watermarks(
                    WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(3600))
                    .with_timestamp_assigner(EventTime())).set_parallelism(1))

    outputs = jobs.run_agent(agent, source, env=env, config=AgentConfig(retention_time="event"),
                             agent_parallelism=2)
    assert marker.exists(), "the failure was never injected"
    seen = set()
    for raw in outputs:
        out = json.loads(raw)
        assert out["results"] == expected[out["i"]], out["i"]
        seen.add(out["i"])
    assert seen == set(expected)
