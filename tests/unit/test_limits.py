"""Input limits (memory/validation.py, memory/filters.py): every bad input is refused with an
error that names where it was going and the rule it broke, and memory is unchanged."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel, ValidationError

from flink_agents_memory import (
    Agent,
    AgentConfig,
    InputEvent,
    MemoryPathError,
    MemoryValueError,
    OutputEvent,
    Retention,
    action,
)
from flink_agents_memory.errors import ActionFailedError, MemoryTypeError
from flink_agents_memory.memory.filters import LOGICAL, check_filters, check_knowledge_search
from flink_agents_memory.memory.limits import MemoryLimits
from flink_agents_memory.memory.sensory import storable
from flink_agents_memory.memory.store import DictStore
from flink_agents_memory.memory.validation import (
    check_key,
    check_memory_context,
    check_memory_id,
    check_memory_text,
    check_metadata,
    check_timestamp,
    check_value,
)
from flink_agents_memory.runtime.executor import DeadLetter
from flink_agents_memory.runtime.local import LocalAgentRunner


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


class Point(BaseModel):
    x: float
    tags: dict[str, str] = {}


# (value, the message's expected fragment)
BAD_VALUES = [
    ("a\ud800b", r"lone surrogate '\\ud800' at index 1"),
    ({"k\udfff": 1}, r"dict key .* lone surrogate"),
    ([1, ["x", "\udc80"]], r"value\[1\]\[1\] holds a lone surrogate"),
    (float("nan"), "only finite floats"),
    ({"a": [float("inf")]}, r"value\['a'\]\[0\] is inf"),
    (10 ** 200, "over max_int_digits=100"),
    ([-(10 ** 101)], r"value\[0\] is an int"),
    (nested(33), "nested deeper than max_depth=32"),
    ({"k" * 2000: 1}, "over max_key_chars=1024"),
    ({1: 2}, "dict keys must be str"),
    ([object()], r"value\[0\] has unsupported type 'object'"),
    (Point(x=float("nan")), r"value.x is nan"),
    ({1, 2}, "unsupported type 'set'"),
]


@pytest.mark.parametrize(("value", "message"), BAD_VALUES)
def test_bad_values_are_refused_naming_where(value, message):
    with pytest.raises(MemoryValueError, match=message):
        check_value(value, "value", MemoryLimits())


def test_self_referencing_value_stops_at_max_depth():
    loop: list = []
    loop.append(loop)
    with pytest.raises(MemoryValueError, match="max_depth"):
        check_value(loop, "value")


def test_values_at_the_limits_pass():
    check_value(nested(32), "v")
    check_value({"k" * 1024: [10 ** 100 - 1, -(10 ** 100 - 1), 1.5, b"\x00", "\x00 nul ok"]}, "v")
    check_value(Point(x=1.0, tags={"a": "b"}), "v")
    check_value(nested(3), "v", MemoryLimits(max_depth=3))
    with pytest.raises(MemoryValueError):
        check_value(nested(4), "v", MemoryLimits(max_depth=3))


def test_unsupported_types_are_still_type_errors():
    with pytest.raises(TypeError):
        check_value(object(), "v")
    assert issubclass(MemoryTypeError, MemoryValueError)


def test_memory_text_limits():
    limits = MemoryLimits(max_memory_bytes=10)
    assert check_memory_text("0123456789", "add", limits) == "0123456789"
    for text, message in [("x" * 11, "11 chars is over max_memory_bytes=10"),
                          ("é" * 6, "12 bytes .* over max_memory_bytes=10"),
                          ("  ", "non-empty str"), (5, "non-empty str"),
                          ("a\ud800", "lone surrogate")]:
        with pytest.raises(MemoryValueError, match=message):
            check_memory_text(text, "ctx.memory.add", limits)


def test_memory_context_limits():
    limits = MemoryLimits(max_context_bytes=10)
    assert check_memory_context("0123456789", "add", limits) == "0123456789"
    assert check_memory_context(None, "add", limits) is None
    assert check_memory_context(" \n", "add", limits) is None  # nothing to index
    for context, message in [("x" * 11, "context of 11 chars is over max_context_bytes=10"),
                             ("é" * 6, "context of 12 bytes .* over max_context_bytes=10"),
                             ("a\ud800", "context holds a lone surrogate")]:
        with pytest.raises(MemoryValueError, match=message):
            check_memory_context(context, "ctx.memory.add", limits)
    with pytest.raises(MemoryTypeError, match="context must be a str or None, got list"):
        check_memory_context(["turn"], "ctx.memory.add", limits)


def test_metadata_limits():
    assert check_metadata(None, "add") == {}
    check_metadata({"topic": "t" * 32766, "n": [1, 2.5, True], "deep": {"x": "y" * 30000}},
                   "add")
    for meta, message in [
        ([1], "metadata must be a dict"),
        ({"x": b"bytes"}, "unsupported type 'bytes'"),
        ({"x": float("nan")}, r"metadata\['x'\] is nan"),
        ({"x": "y" * 32767}, r"metadata\['x'\] holds a str of 32767 bytes"),
        ({"x": ["ok", "é" * 17000]}, "Lucene's term limit"),
        ({"x": 10 ** 150}, "max_int_digits"),
        ({"x": "\ud800"}, "lone surrogate"),
    ]:
        with pytest.raises(MemoryValueError, match=message):
            check_metadata(meta, "ctx.memory.add", MemoryLimits())
    with pytest.raises(MemoryValueError, match="over max_metadata_bytes=100"):
        check_metadata({"x": "y" * 200}, "add", MemoryLimits(max_metadata_bytes=100))
    # A top-level key is a term too (the '*' filter); only a raised max_key_chars lets one past.
    wide = MemoryLimits(max_key_chars=10_000)
    check_metadata({"😀" * 8191: 1}, "add", wide)
    with pytest.raises(MemoryValueError, match="metadata key of 32768 bytes"):
        check_metadata({"😀" * 8192: 1}, "add", wide)


def test_ids_keys_and_timestamps():
    check_memory_id("a" * 256)
    for bad in ["", 5, "a" * 257, "x\ud800"]:
        with pytest.raises(MemoryValueError, match="memory id"):
            check_memory_id(bad)
    check_key("k" * 4096)
    with pytest.raises(MemoryValueError, match="max_key_bytes=4096"):
        check_key("é" * 2049)
    for good in ["2024-05-01T12:00", "2024-05-01T12:00:00Z", "2024-05-01T12:00:00.123456789",
                 "2024-05-01T12:00:00.1+05:30", "2024-02-29T00:00:00-18:00"]:
        check_timestamp(good, "created_at")
    for bad in ["garbage", "2024-05-01", "2024-13-01T00:00", "2023-02-29T00:00",
                "2024-05-01T12:00:00+19:00", "2024-05-01 12:00", 1714564800, None]:
        with pytest.raises(MemoryValueError, match="created_at"):
            check_timestamp(bad, "created_at")


GOOD_FILTERS = [None, {}, {"a": "x"}, {"a": 1, "b": True, "c": 2.5},
                {"a": {"in": ["x", 1, False]}}, {"a": {"ne": "x"}},
                {"n": {"gte": 1, "lt": 10.5}}, {"n": {"in": []}},
                # mem0's grammar
                {"a": {"eq": "x"}}, {"a": {"nin": ["x", 2]}}, {"a": {"nin": []}}, {"a": "*"},
                {"a": {"contains": "x"}}, {"a": {"icontains": "é" * 256}},
                {"a": {"eq": "*"}}, {"a": {"contains": "ab", "ne": "abc"}},
                {"AND": [{"a": 1}, {"b": {"gte": 2}}]}, {"OR": [{"a": 1}, {"a": 2}]},
                {"NOT": [{"a": "*"}]}, {"a": 1, "OR": ({"b": 1},), "NOT": [{"c": 1}]},
                {"OR": [{"AND": [{"a": 1}, {"NOT": [{"b": {"icontains": "x"}}]}]}, {"c": 1}]},
                {"and": "x"}]
BAD_FILTERS = [
    ([1], "filters must be a dict"),
    ("a=1", "filters must be a dict"),
    ({"n": {"in": [{"x": 1}]}}, r"filter on 'n' 'in': a filter value must be a str, number"),
    ({"n": {"in": "abc"}}, "'in' needs a list"),
    ({"n": {"near": 1}}, "unknown operator 'near'"),
    ({"n": {}}, "empty dict has no operator"),
    ({"n": None}, "must be a str, number or bool, got None"),
    ({"n": [1, 2]}, r"use \{'in': \[...\]\}"),
    ({"n": {"gte": "a"}}, "'gte' needs a number"),
    ({"n": {"lt": True}}, "'lt' needs a number"),
    ({"n": {"gt": float("nan")}}, "not a finite number"),
    ({"n": float("inf")}, "not a finite number"),
    ({"n": 10 ** 300}, "max_int_digits"),
    ({"": 1}, "non-empty str"),
    ({5: 1}, "non-empty str"),
    ({"n\ud800": 1}, "lone surrogate"),
    ({"n": "\ud800"}, "lone surrogate"),
    ({"n": "x" * 40000}, "can match no memory"),
    ({f"f{i}": 1 for i in range(65)}, "max_filter_fields=64"),
    ({"n": {"in": list(range(1025))}}, "max_filter_values=1024"),
    # mem0's grammar: each operator's operand, AND/OR/NOT, and the limits through them
    ({"n": {"nin": "abc"}}, "filter on 'n': 'nin' needs a list"),
    ({"n": {"nin": [[1]]}}, r"filter on 'n' 'nin': a filter value must be a str, number"),
    ({"n": {"nin": list(range(1025))}}, "'nin' with 1025 values, over max_filter_values=1024"),
    ({"n": {"eq": None}}, r"filter on 'n' 'eq': a filter value must be a str, number"),
    ({"n": {"eq": [1]}}, r"use \{'in': \[...\]\}"),
    ({"n": {"contains": 1}}, "filter on 'n' 'contains' needs a str"),
    ({"n": {"icontains": ["a"]}}, "filter on 'n' 'icontains' needs a str"),
    ({"n": {"contains": ""}}, "'contains' needs a non-empty str"),
    ({"n": {"contains": "x" * 257}}, "'contains': a text of 257 chars, over 256"),
    ({"n": {"icontains": "\ud800"}}, "'icontains' holds a lone surrogate"),
    ({"n": {"OR": [{"a": 1}]}}, "unknown operator 'OR'.*combine whole filter dicts"),
    ({"n": {"like": "x"}}, "filter on 'n': unknown operator 'like'"),
    ({"n": ["*"]}, r"use \{'in': \[...\]\}"),
    ({"or": [{"a": 1}]}, "filter on 'or'.*written in capitals: 'OR'"),
    ({"AND": {"a": 1}}, "filter 'AND' needs a list of filter dicts, got dict"),
    ({"OR": "a"}, "filter 'OR' needs a list of filter dicts, got str"),
    ({"OR": []}, "filter 'OR' is an empty list"),
    ({"AND": []}, "filter 'AND' is an empty list"),
    ({"NOT": []}, "filter 'NOT' is an empty list"),
    ({"NOT": [1]}, r"filter 'NOT'\[0\] must be a filter dict, got int"),
    ({"OR": [{"a": 1}, {}]}, r"filter 'OR'\[1\] is an empty filter dict"),
    ({"OR": [{"a": 1}, {"AND": [{"b": {"near": 1}}]}]},
     r"filter on 'b' \(in OR\[1\] AND\[0\]\): unknown operator 'near'"),
    ({"AND": [{"NOT": [{"n": {"gt": "x"}}]}]}, r"on 'n' \(in AND\[0\] NOT\[0\]\): 'gt' needs a"),
    ({"OR": [{"": 1}]}, "non-empty str"),
    ({"NOT": [{"n": "\ud800"}]}, "lone surrogate"),
    ({"OR": [{f"f{i}": 1} for i in range(33)], "AND": [{f"g{i}": 1 for i in range(32)}]},
     "more than max_filter_fields=64"),
]


def _nested(levels: int) -> dict:
    filters: dict = {"n": 1}
    for i in range(levels):
        filters = {LOGICAL[i % 3]: [filters]}
    return filters


def test_filters_nest_up_to_max_depth():
    assert check_filters(_nested(32), "search") == _nested(32)
    with pytest.raises(MemoryValueError, match="nested deeper than max_depth=32"):
        check_filters(_nested(33), "search")
    assert check_filters(_nested(8), "search", MemoryLimits(max_depth=8))
    with pytest.raises(MemoryValueError, match="max_depth=8"):
        check_filters(_nested(9), "search", MemoryLimits(max_depth=8))


@pytest.mark.parametrize("filters", GOOD_FILTERS)
def test_good_filters_pass(filters):
    assert check_filters(filters, "search") == (filters or {})


@pytest.mark.parametrize(("filters", "message"), BAD_FILTERS)
def test_bad_filters_are_refused_naming_the_field(filters, message):
    with pytest.raises(MemoryValueError, match=message):
        check_filters(filters, "ctx.memory.search")


def test_knowledge_search_arguments():
    check_knowledge_search("q", None, 10)
    for args, message in [((5, None, 10), "query must be a str"),
                          (("\ud800", None, 10), "lone surrogate"),
                          (("q" * 10_001, None, 10), "max_query_chars"),
                          (("q", 3, 10), "source must be a str"),
                          (("q", None, 0), "positive int"),
                          (("q", None, True), "positive int"),
                          (("q", None, 10_001), "max_search_limit")]:
        with pytest.raises(MemoryValueError, match=message):
            check_knowledge_search(*args)


def test_limits_are_validated_when_the_config_is_built():
    assert AgentConfig().limits == MemoryLimits()
    assert AgentConfig(limits=MemoryLimits(max_depth=8)).limits.max_depth == 8
    with pytest.raises(ValidationError):
        MemoryLimits(max_depth=0)
    with pytest.raises(ValidationError):
        MemoryLimits(max_memory_bytes=30_000_000)  # over what the index's parser takes
    with pytest.raises(ValidationError):
        MemoryLimits(unknown=1)


# -- through a run: nothing is written -------------------------------------------------------
class Writer(Agent):
    histories = {"chat": Retention(max_items=10)}

    @action(InputEvent)
    @staticmethod
    def write(event, ctx):
        kind, payload = event.input
        stm = ctx.get_short_term_memory()
        stm.set("good", "before the bad write")
        ctx.history("chat").append("good item")
        if kind == "set":
            stm.set("bad", payload)
        elif kind == "path":
            stm.set(payload, 1)
        elif kind == "object":
            stm.new_object(payload)
        elif kind == "append":
            ctx.history("chat").append(payload)
        ctx.send_event(OutputEvent(output="ok"))


def memory_of(runner: LocalAgentRunner, key: str = "k") -> tuple[dict, list]:
    stm = dict(runner.states._maps["flink_agents_memory.short_term"].get(key, DictStore()).data)
    lists = runner.states._lists.get("flink_agents_memory.history.chat", {})
    return stm, list(lists[key].values) if key in lists else []


@pytest.mark.parametrize(("kind", "payload", "error", "message"), [
    ("set", "x\ud800", MemoryValueError, "value for 'bad' holds a lone surrogate"),
    ("set", {"deep": nested(40)}, MemoryValueError, "value for 'bad' is nested deeper"),
    ("set", 10 ** 4000, MemoryValueError, "value for 'bad' is an int"),
    ("set", 10 ** 100, MemoryValueError, "value for 'bad' is an int of 333 bits"),
    ("set", -(10 ** 100), MemoryValueError, "value for 'bad' is an int of 333 bits"),
    ("set", "x" * 2000, MemoryValueError, "value for 'bad' is 2002 bytes encoded"),
    ("set", [float("-inf")], TypeError, r"value for 'bad'\[0\] is -inf"),
    ("path", "a.\ud800", MemoryPathError, "memory path .* lone surrogate"),
    ("path", "p" * 1025, MemoryPathError, "over max_path_chars=1024"),
    ("object", "o" * 1025, MemoryPathError, "over max_path_chars=1024"),
    ("append", "\udfff", MemoryValueError, "item of history 'chat' holds a lone surrogate"),
    ("append", "x" * 2000, MemoryValueError, "over max_value_bytes=1000"),
    ("append", {"n": 10 ** 101}, MemoryValueError, r"history 'chat'\['n'\] is an int"),
])
def test_bad_writes_fail_the_run_and_store_nothing(kind, payload, error, message):
    runner = LocalAgentRunner(Writer(), AgentConfig(max_value_bytes=1000))
    runner.run("k", ("none", None))
    before = memory_of(runner)
    with pytest.raises(ActionFailedError, match=message) as info:
        runner.run("k", (kind, payload))
    assert isinstance(info.value.__cause__, error)
    assert memory_of(runner) == before


@pytest.mark.parametrize("value", [10 ** 100 - 1, -(10 ** 100 - 1), True, "é" * 10, "x" * 998])
def test_values_at_the_limits_are_stored_as_they_are(value):
    """ASCII text and ints take a fast path past the checks: its bounds are the limits'."""
    runner = LocalAgentRunner(Writer(), AgentConfig(max_value_bytes=1000))
    runner.run("k", ("set", value))
    stored = runner.ctx.get_short_term_memory()
    runner.states.set_key("k")
    assert type(stored.get("bad")) is type(value) and stored.get("bad") == value


def test_dead_letter_of_a_huge_input_is_bounded():
    runner = LocalAgentRunner(Writer(), AgentConfig(on_error="dead_letter", sensory_window=2))
    huge = "x" * 5_000_000
    [letter] = runner.run("k", ("append", huge + "\ud800"))
    assert isinstance(letter, DeadLetter) and "lone surrogate" in letter.error
    assert len(letter.error) < 10_000
    # the sensory window keeps a cut repr of what it cannot store
    assert runner.run("k", ("none", None)) == ["ok"]


def test_storable_never_raises():
    assert storable({"a": 1}) == {"a": 1}
    for value in ["\ud800", "x" * 2_000_000, nested(100), {1: 2}, object()]:
        kept = storable(value)
        assert set(kept) == {"repr"} and len(kept["repr"]) <= (1 << 20) // 4
        check_value(kept, "repr")


# -- a write that fails anyway leaves nothing pending ------------------------------------------
class FailingStore(DictStore):
    """A state whose writes fail while ``broken`` is set (a disk or backend fault)."""

    broken = False

    def put(self, key: str, value: str) -> None:
        if FailingStore.broken and key.startswith("poison"):
            raise OSError("state backend refused the write")
        super().put(key, value)


class Poison(Agent):
    @action(InputEvent)
    @staticmethod
    def write(event, ctx):
        ctx.get_short_term_memory().set(event.input, 1)


def test_failed_write_leaves_nothing_for_the_next_run(monkeypatch):
    runner = LocalAgentRunner(Poison())
    monkeypatch.setattr("flink_agents_memory.runtime.local.DictStore", FailingStore)
    FailingStore.broken = True
    try:
        runner.run("k", "first")
        with pytest.raises(OSError, match="refused"):
            runner.run("k", "poison")
        FailingStore.broken = False
        runner.run("k", "second")
    finally:
        FailingStore.broken = False
    data = runner.states._maps["flink_agents_memory.short_term"]["k"].data
    # the failed run's buffered writes were dropped, not committed by the next run (what it
    # wrote before the fault stays: in a job, the restore from the checkpoint undoes it)
    assert "poison" not in data
    assert {"first", "second"} <= set(re.findall(r'"(\w+)"', data[""]))
