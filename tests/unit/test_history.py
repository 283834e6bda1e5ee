"""Histories on in-memory states: retention rules against the reference model, amortised
trimming, overflow policies and bad input (each a clear error, history unchanged)."""

from __future__ import annotations

import history_model
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flink_agents_memory import Agent, InputEvent, MemoryValueError, action
from flink_agents_memory.errors import ActionFailedError
from flink_agents_memory.memory.history import History, PyListBackend
from flink_agents_memory.memory.retention import Retention, default_token_count
from flink_agents_memory.memory.store import DictStore
from flink_agents_memory.runtime.config import AgentConfig
from flink_agents_memory.runtime.local import LocalAgentRunner


class Clock:
    def __init__(self) -> None:
        self.now = 1_000

    def __call__(self) -> int:
        return self.now


def new_history(retention: Retention, clock: Clock) -> tuple[History, PyListBackend]:
    backend = PyListBackend()
    return History("h", retention, backend, DictStore(), clock), backend


def commit(history: History) -> None:
    writer = history.prepare()
    if writer is not None:
        writer()
    history.discard()


items = st.one_of(st.text(alphabet="abc .!", max_size=12), st.integers(-50, 50),
                  st.lists(st.sampled_from(["x", "yy"]), max_size=3))
ops = st.lists(
    st.one_of(
        st.tuples(st.just("append"), items),
        st.tuples(st.just("get_recent"), st.integers(0, 8)),
        st.tuples(st.just("clear"), st.none()),
        st.tuples(st.just("tick"), st.integers(1, 40)),
        st.tuples(st.just("commit"), st.none()),
    ),
    max_size=60,
)


@pytest.mark.parametrize("name", sorted(history_model.COMBINATIONS))
@settings(max_examples=60, deadline=None)
@given(program=ops)
def test_history_matches_reference_model(name, program):
    retention = history_model.COMBINATIONS[name]
    clock = Clock()
    history, backend = new_history(retention, clock)
    model = history_model.HistoryModel(retention)
    for op, arg in program:
        if op == "append":
            if model.fits_alone(arg):
                history.append(arg)
                model.append(clock.now, arg)
            else:
                with pytest.raises(MemoryValueError, match="on its own"):
                    history.append(arg)
        elif op == "get_recent":
            expected = model.view(clock.now)[-arg:] if arg else []
            assert history.get_recent(arg) == expected
        elif op == "clear":
            history.clear()
            model.clear()
        elif op == "tick":
            clock.now += arg
        else:
            commit(history)
            bound_physical(retention, backend)
        assert history.all() == model.view(clock.now)
        assert len(history) == len(model.view(clock.now))


def bound_physical(retention: Retention, backend: PyListBackend) -> None:
    """get_recent never reads more than the limits plus slack (plus the last append)."""
    if retention.max_items is not None:
        assert len(backend.values) <= retention.max_items * (1 + retention.slack) + 1


def test_append_is_amortised():
    clock = Clock()
    retention = Retention(max_items=100, slack=0.25)
    history, backend = new_history(retention, clock)
    rewrites = 0
    original_update = backend.update

    def counting_update(values):
        nonlocal rewrites
        rewrites += 1
        original_update(values)

    backend.update = counting_update
    for i in range(10_000):
        history.append(i)
        commit(history)
    assert rewrites <= 10_000 / 25 + 1
    assert history.get_recent(3) == [9997, 9998, 9999]
    assert len(backend.values) <= 126



class ReadCountingBackend(PyListBackend):
    """Counts the elements each read hands to the history."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[int] = []

    def get(self) -> list[str]:
        self.read.append(len(self.values))
        return super().get()

    def tail(self, n: int) -> list[str]:
        out = super().tail(n)
        self.read.append(len(out))
        return out


def test_get_recent_reads_only_the_newest_n():
    clock = Clock()
    backend = ReadCountingBackend()
    history = History("h", Retention(max_items=10_000), backend, DictStore(), clock)
    for i in range(5_000):
        history.append(i)
    commit(history)
    history.append(5_000)  # buffered in this run: counts towards the n newest
    assert history.get_recent(5) == [4996, 4997, 4998, 4999, 5000]
    assert backend.read == [4]
    assert len(history) == 5_001 and backend.read[-1] == 5_000  # len() reads all

def test_reducer_summarises_evicted_items():
    seen: list[list[str]] = []

    def summarise(evicted):
        seen.append(evicted)
        return [f"summary of {len(evicted)}"]

    clock = Clock()
    history, _ = new_history(Retention(max_items=4, slack=0, on_overflow=summarise), clock)
    for i in range(6):
        history.append(f"m{i}")
        commit(history)
    # m4 overflows: the summary of m0 leaves no room for m1, so m1 is reduced with it
    assert seen[:2] == [["m0"], ["m0", "m1"]]
    # m5 overflows: the previous summary and m2 are reduced into a new one
    assert seen[2:] == [["summary of 2"], ["summary of 2", "m2"]]
    assert history.all() == ["summary of 2", "m3", "m4", "m5"]


@pytest.mark.parametrize(
    ("reducer", "message"),
    [(lambda evicted: 1 / 0, "reducer of history 'h' failed"),
     (lambda evicted: "not a list", "must return a list"),
     (lambda evicted: ["x"] * 10, "do not fit")],
)
def test_bad_reducer_is_a_clear_error_and_history_unchanged(reducer, message):
    clock = Clock()
    history, backend = new_history(Retention(max_items=2, slack=0, on_overflow=reducer), clock)
    for item in ("a", "b"):
        history.append(item)
        commit(history)
    before = list(backend.values)
    history.append("c")
    with pytest.raises(MemoryValueError, match=message):
        history.prepare()
    history.discard()
    assert backend.values == before and history.all() == ["a", "b"]


def test_item_over_limits_on_its_own():
    history, backend = new_history(Retention(max_bytes=10, max_tokens=3), Clock())
    with pytest.raises(MemoryValueError, match="over max_bytes=10"):
        history.append("x" * 20)
    with pytest.raises(MemoryValueError, match="over max_tokens=3"):
        history.append("a b c d")
    assert history.all() == [] and backend.values == []


@pytest.mark.parametrize("n", [-1, 1.5, "3", True])
def test_get_recent_needs_non_negative_int(n):
    history, _ = new_history(Retention(max_items=3), Clock())
    with pytest.raises(ValueError, match="needs an int n >= 0"):
        history.get_recent(n)


def test_move_to_long_term_without_long_term_memory_is_clear():
    history, _ = new_history(Retention(max_items=1, slack=0, on_overflow="move_to_long_term"),
                             Clock())
    history.append("a")
    commit(history)
    history.append("b")
    with pytest.raises(MemoryValueError, match="long-term memory is not available"):
        history.prepare()


def test_default_token_count_is_deterministic():
    assert default_token_count("Hello, world! It's 2 o'clock.") == 12
    assert default_token_count("") == 0


class ChatAgent(Agent):
    histories = {"chat": Retention(max_items=3)}

    @action(InputEvent)
    @staticmethod
    def chat(event, ctx):
        if event.input == "boom":
            ctx.history("chat").append("never stored")
            raise RuntimeError("boom")
        if event.input == "unknown":
            ctx.history("nope")
        chat = ctx.history("chat")
        chat.append(event.input)
        assert chat.get_recent(1) == [event.input]  # the run sees its own append


def test_failed_run_appends_nothing_and_unknown_history_is_clear():
    runner = LocalAgentRunner(ChatAgent(), AgentConfig(sensory_window=2))
    for text in ("a", "b"):
        runner.run("k", text)
    with pytest.raises(ActionFailedError, match="boom"):
        runner.run("k", "boom")
    with pytest.raises(ActionFailedError, match=r"unknown history 'nope'.*\['chat'\]"):
        runner.run("k", "unknown")
    runner.run("k", "c")
    runner.states.set_key("k")
    runner.ctx.begin(lambda: "k", 0, "inspect")
    assert runner.ctx.history("chat").all() == ["a", "b", "c"]
    # sensory window (W=2): inputs of successful runs, and this run's own input
    assert runner.ctx.sensory.recent_inputs() == ["c", "inspect"]
    runner.ctx.rollback()
    runner.ctx.begin(lambda: "k", 0, None)
    assert runner.ctx.sensory.recent_inputs() == ["b", "c"][-1:] + [None]
    runner.ctx.rollback()
