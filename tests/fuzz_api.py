"""The API fuzz job's agent, input encoding and hypothesis strategies (importable in the
TaskManager: tests/ is on sys.path).

An input is ``"<key>|<seq>|<base64 pickle of a Run>"``: a Run is a list of public API calls, some
with bad arguments (lone surrogates, NaN, huge ints, deep nesting, oversized text, malformed
filters). Huge values travel as a recipe (:class:`Big`, :class:`Deep`) and are built inside the
action, so 10,000 inputs stay small. ``Run.bad`` says that at least one argument breaks a rule,
so the run must become a dead letter.
"""

from __future__ import annotations

import base64
import pickle
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from flink_agents_memory import (
    Agent,
    AgentConfig,
    InputEvent,
    MemoryItem,
    MemoryObject,
    OutputEvent,
    Retention,
    action,
)
from flink_agents_memory.memory.limits import MemoryLimits
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.memory.serialization import dumps
from flink_agents_memory.models import HashingEmbedder

LIMITS = MemoryLimits(max_memory_bytes=2048, max_context_bytes=2048, max_metadata_bytes=1024,
                      max_depth=6, max_path_chars=64, max_id_chars=40)
CONFIG = AgentConfig(on_error="dead_letter", max_value_bytes=1024, limits=LIMITS)
DUMP = "__dump__"
SOURCE = "fuzz-docs"


@dataclass(frozen=True)
class Big:
    """A str of ``n`` copies of ``char``, built in the action."""

    n: int
    char: str = "x"

    def build(self) -> str:
        return self.char * self.n


@dataclass(frozen=True)
class Deep:
    """A list nested ``n`` levels deep."""

    n: int

    def build(self) -> list:
        value: list = [0]
        for _ in range(self.n - 1):
            value = [value]
        return value


def build(value: Any) -> Any:
    if isinstance(value, (Big, Deep)):
        return value.build()
    if isinstance(value, list):
        return [build(v) for v in value]
    if isinstance(value, dict):
        return {build(k) if isinstance(k, Big) else k: build(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple
    bad: bool = False


@dataclass
class Run:
    calls: list[Call] = field(default_factory=list)

    @property
    def bad(self) -> bool:
        return any(c.bad for c in self.calls)


def encode(key: str, seq: int, run: Run | str) -> str:
    """``seq`` makes every input unique (hypothesis draws the same run more than once)."""
    return f"{key}|{seq}|{base64.b64encode(pickle.dumps(run)).decode('ascii')}"


def decode(value: str) -> tuple[str, Run | str]:
    key, _seq, payload = value.split("|", 2)
    return key, pickle.loads(base64.b64decode(payload))


def key_of(value: str) -> str:
    return value.split("|", 1)[0]


# -- the agent ------------------------------------------------------------------------------
def _tree(obj: MemoryObject) -> dict[str, Any]:
    return {name: _tree(v) if isinstance(v, MemoryObject) else v
            for name, v in sorted(obj.get_fields().items())}


def dump(ctx: Any) -> str:
    """The key's whole memory (timestamps left out: they are the wall clock's)."""
    return dumps({
        "stm": _tree(ctx.get_short_term_memory()),
        "chat": ctx.history("chat").all(),
        "ltm": sorted([m.id, m.memory, m.metadata] for m in ctx.memory.get_all(limit=10_000)),
        "recent": [[m.id, m.memory] for m in ctx.memory.get_history(100)],
    })


def _target(ctx: Any, which: int) -> str:
    ids = sorted(m.id for m in ctx.memory.get_all(limit=10_000))
    return ids[which % len(ids)] if ids else "no-such-memory"


def call(ctx: Any, c: Call) -> Any:
    stm = ctx.get_short_term_memory()
    a = [build(x) for x in c.args]
    match c.name:
        case "stm.set":
            return stm.set(a[0], a[1]).path
        case "stm.get":
            value = stm.get(a[0])
            return "object" if isinstance(value, MemoryObject) else value
        case "stm.new_object":
            return stm.new_object(a[0], overwrite=a[1]).get_field_names()
        case "stm.delete":
            return stm.delete(a[0])
        case "stm.get_recent":
            return stm.get_recent(a[0], a[1])
        case "history.append":
            return ctx.history(a[0]).append(a[1])
        case "history.get_recent":
            return ctx.history(a[0]).get_recent(a[1])
        case "ltm.add":
            text, metadata, memory_id, created, context = a
            return ctx.memory.add(MemoryItem.model_construct(
                id=memory_id, memory=text, metadata=metadata, created_at=created),
                context=context)
        case "ltm.update":
            return ctx.memory.update(_target(ctx, a[0]), a[1], metadata=a[2]).id
        case "ltm.delete":
            return ctx.memory.delete(_target(ctx, a[0]))
        case "ltm.search":
            return [m.id for m in ctx.memory.search(a[0], limit=a[1], filters=a[2], mode=a[3],
                                                     min_score=a[4])]
        case "ltm.get":
            found = ctx.memory.get(a[0] if isinstance(a[0], str) else _target(ctx, a[0]))
            return None if found is None else found.id
        case "ltm.audit_trail":
            return [e.event for e in ctx.memory.audit_trail(_target(ctx, a[0]))]
        case "ltm.recent_memories":
            return [m.id for m in ctx.memory.recent_memories(a[0])]
        case "ltm.get_all":
            return [m.id for m in ctx.memory.get_all(filters=a[0], limit=a[1])]
        case "knowledge":
            return [h.content[:20] for h in ctx.search_knowledge(a[0], source=a[1], limit=a[2])]
    raise AssertionError(c.name)


class FuzzAgent(Agent):
    histories = {"chat": Retention(max_items=6, max_bytes=600)}
    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(16))

    def __init__(self, knowledge_bases: list | None = None) -> None:
        self.knowledge_bases = list(knowledge_bases or [])

    @action(InputEvent)
    def run(self, event: InputEvent, ctx: Any) -> None:
        _key, run = decode(event.input)
        if run == DUMP:
            ctx.send_event(OutputEvent(output=f"dump:{ctx.key}:{dump(ctx)}"))
            return
        for c in run.calls:
            call(ctx, c)
        ctx.send_event(OutputEvent(output="ok"))


# -- strategies -----------------------------------------------------------------------------
ODD = ["\x00", "a\x00b", "é", "😀", "\u2028", "\ufeff", "  "]
SURROGATE = st.sampled_from(["\ud800", "x\udfff", "\udc80y"])
good_text = st.one_of(st.text(max_size=12), st.sampled_from(ODD))
bad_text = st.one_of(SURROGATE, st.just(Big(25_000_000)), st.just(Big(2049)),
                     st.just(Big(1100, "é")))
bad_query = st.one_of(SURROGATE, st.just(Big(25_000_000)), st.just(Big(10_001)), st.just(5))
good_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 30, 10 ** 30),
                        st.floats(allow_nan=False, allow_infinity=False), good_text,
                        st.binary(max_size=8))
bad_scalar = st.one_of(bad_text, st.sampled_from([float("nan"), float("inf"), -float("inf"),
                                                  10 ** 101, -(10 ** 400)]),
                       st.just(Deep(7)), st.just(Deep(3000)), st.just({1: "int key"}),
                       st.just({"\ud800": 1}))


def values(scalars: st.SearchStrategy) -> st.SearchStrategy:
    return st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(good_text, inner, max_size=3)),
        max_leaves=4)


good_value = values(good_scalar)
bad_value = st.one_of(bad_scalar, st.lists(bad_scalar, min_size=1, max_size=1),
                      st.builds(lambda v: {"k": v}, bad_scalar))
segment = st.sampled_from(["a", "b", "c", "x\x00y", "é", "😀"])
good_path = st.lists(segment, min_size=1, max_size=3).map(".".join)
bad_read_path = st.one_of(st.sampled_from(["", "a..b", ".a", "a.", "a.\ud800"]),
                          st.integers(0, 5))
# over max_path_chars: refused where a path is created (reading or deleting one is harmless)
bad_path = st.one_of(bad_read_path, st.just("p" * 65))
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 20, 10 ** 20),
                        st.floats(allow_nan=False, allow_infinity=False), good_text)
good_meta = st.one_of(st.none(), st.dictionaries(st.sampled_from(["n", "topic", "t\x00", "é"]),
                                                 json_scalar, max_size=3))
bad_meta = st.one_of(st.just([1]), st.just({"b": b"bytes"}),
                     st.builds(lambda v: {"n": v}, bad_scalar), st.just({"n": Big(40_000)}),
                     st.just({"d": Deep(10)}))
good_filter = st.one_of(st.none(), st.just({}), st.dictionaries(
    st.sampled_from(["n", "topic", "é"]),
    st.one_of(json_scalar.filter(lambda v: v is not None),
              st.builds(lambda v: {"in": v}, st.lists(good_text, max_size=3)),
              st.builds(lambda v: {"ne": v}, good_text),
              st.builds(lambda lo, hi: {"gte": lo, "lt": hi}, st.integers(-5, 5),
                        st.floats(-5, 5))), max_size=2))
bad_filter = st.one_of(
    st.sampled_from([[1], "n=1", {"n": {"in": [{"x": 1}]}}, {"n": {"near": 1}}, {"n": {}},
                     {"n": None}, {"n": [1, 2]}, {"n": {"gte": "a"}}, {"n": {"lt": True}},
                     {"n": {"gt": float("nan")}}, {"": 1}, {"n": "\ud800"},
                     {f"f{i}": 1 for i in range(65)}, {"n": {"in": list(range(2000))}}]))
good_stamp = st.one_of(st.none(), st.datetimes().map(lambda d: d.isoformat()))
bad_stamp = st.sampled_from(["garbage", "2024-05-01", "2024-05-01T00:00:00+19:00"])
good_id = st.one_of(st.just(""), st.integers(0, 30).map(lambda i: f"id-{i}"))
bad_id = st.sampled_from([Big(41, "i"), "i\ud800"])
limit = st.integers(1, 20)
bad_limit = st.sampled_from([0, -1, 10_001, True, 2.5])
mode = st.sampled_from(["vector", "keyword", "hybrid"])
good_context = st.one_of(st.none(), good_text)
bad_context = st.one_of(SURROGATE, st.just(Big(2049)), st.just(Big(25_000_000)), st.just(5))
good_min_score = st.one_of(st.none(), st.floats(-1, 1))
bad_min_score = st.sampled_from([float("nan"), float("inf"), "0.5", True])


def _call(name: str, good: list[st.SearchStrategy], bad: list[st.SearchStrategy | None]
          ) -> st.SearchStrategy:
    """A call whose arguments are all good, or one of them bad (then ``Call.bad``)."""
    choices = [st.tuples(*good).map(lambda args: Call(name, args))]
    for i, b in enumerate(bad):
        if b is not None:
            args = [*good[:i], b, *good[i + 1:]]
            choices.append(st.tuples(*args).map(lambda args: Call(name, args, bad=True)))
    return st.one_of(*choices)


calls = st.one_of(
    _call("stm.set", [good_path, good_value], [bad_path, bad_value]),
    _call("stm.get", [good_path], [bad_read_path]),
    _call("stm.new_object", [good_path, st.booleans()], [bad_path, None]),
    _call("stm.delete", [good_path], [bad_read_path]),
    _call("stm.get_recent", [good_path, st.integers(0, 5)], [bad_read_path, st.just(-1)]),
    _call("history.append", [st.just("chat"), good_value], [st.just("nope"), bad_value]),
    _call("history.get_recent", [st.just("chat"), st.integers(0, 8)],
          [st.just("nope"), st.just(-2)]),
    _call("ltm.add", [good_text.filter(lambda t: t.strip() != ""), good_meta, good_id,
                      good_stamp, good_context],
          [bad_text, bad_meta, bad_id, bad_stamp, bad_context]),
    _call("ltm.update", [st.integers(0, 50), good_text.filter(lambda t: t.strip() != ""),
                         good_meta], [None, bad_text, bad_meta]),
    _call("ltm.delete", [st.integers(0, 50)], [None]),
    _call("ltm.search", [good_text, limit, good_filter, mode, good_min_score],
          [bad_query, bad_limit, bad_filter, st.just("fuzzy"), bad_min_score]),
    _call("ltm.get", [st.one_of(st.integers(0, 50), good_id.filter(bool))], [bad_id]),
    _call("ltm.audit_trail", [st.integers(0, 50)], [None]),
    _call("ltm.recent_memories", [st.integers(0, 8)], [st.sampled_from([-1, 2.5])]),
    _call("ltm.get_all", [good_filter, limit], [bad_filter, bad_limit]),
)
knowledge_call = _call("knowledge", [good_text, st.sampled_from([None, SOURCE]), limit],
                       [bad_query, st.just(3), bad_limit])


def call_pool(with_knowledge: bool) -> st.SearchStrategy:
    """Calls to draw from: knowledge search is about 1 in 30 (each is an HTTP round trip)."""
    return st.one_of(*[calls] * 29, knowledge_call) if with_knowledge else calls
