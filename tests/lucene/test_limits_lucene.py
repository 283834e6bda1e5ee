"""The limits against the real index: whatever Python accepts, Lucene (behind Flink's Jackson
parser) writes, so no input can make the write half of a run fail; what Python refuses never
reaches Java; and a write that fails anyway leaves nothing for the next run."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lucene_store import CallAgent, LuceneRunner

from flink_agents_memory import AgentConfig, MemoryItem
from flink_agents_memory.errors import ActionFailedError, MemoryValueError
from flink_agents_memory.memory.limits import LUCENE_MAX_TERM_BYTES, MemoryLimits
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.models import HashingEmbedder
from flink_agents_memory.runtime.executor import DeadLetter


class Call(CallAgent):
    long_term_memory = LongTermMemoryConfig(embedder=HashingEmbedder(16))


def everything(ctx):
    return sorted((m.id, m.memory, repr(m.metadata), m.created_at)
                  for m in ctx.memory.get_all(limit=10_000))


KEYS = itertools.count()
ODD = ["\ud800", "\udfff", "\x00", "é", "😀", "\u2028", "a\x00b", ""]
SIZES = [1, 100, 32766, 32767, 262_144, 262_145]


def sized(n: int, char: str) -> str:
    return char * max(1, n // len(char.encode("utf-8", "surrogatepass")))


texts = st.one_of(
    st.text(max_size=40),
    st.builds(lambda a, b: a + b, st.sampled_from(ODD), st.text(max_size=5)),
    st.builds(sized, st.sampled_from(SIZES), st.sampled_from(["x", "é", "😀"])),
)
scalars = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(min_value=-(10 ** 120), max_value=10 ** 120), texts)
json_like = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)), max_leaves=8)


def nested(depth: int) -> list:
    value: list = [0]
    for _ in range(depth - 1):
        value = [value]
    return value


metadata = st.one_of(st.none(), st.dictionaries(texts, json_like, max_size=4),
                     st.sampled_from([{"deep": nested(n)} for n in (30, 31, 32, 40, 600)]))
ids = st.one_of(st.just(""), st.text(min_size=1, max_size=20),
                st.builds(sized, st.sampled_from([256, 257, 40_000]), st.just("i")))
stamps = st.one_of(st.none(), st.datetimes().map(lambda d: d.isoformat()),
                   st.sampled_from(["garbage", "2024-05-01", "2024-05-01T00:00:00+19:00",
                                    "0000-01-01T00:00", "2024-05-01T12:00:00.123456789Z"]))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(writes=st.lists(st.tuples(texts, metadata, ids, stamps), min_size=1, max_size=4))
def test_accepted_adds_are_written_exactly_and_refused_ones_write_nothing(lucene, writes):
    runner = LuceneRunner(Call(), lucene, AgentConfig(on_error="dead_letter"))
    key = f"k{next(KEYS)}"  # one index for all examples, a fresh key for each
    for text, meta, memory_id, created in writes:
        before = runner.run(key, everything)[0]

        def add(ctx, text=text, meta=meta, memory_id=memory_id, created=created):
            return ctx.memory.add(MemoryItem.model_construct(
                id=memory_id, memory=text, metadata=meta, created_at=created))

        [out] = runner.run(key, add)  # never raises: the write half cannot fail
        after = runner.run(key, everything)[0]
        if isinstance(out, DeadLetter):
            assert after == before, out.error
            assert "MemoryValueError" in out.error or "MemoryTypeError" in out.error, out.error
        else:
            stored = runner.run(key, lambda ctx, i=out: ctx.memory.get(i))[0]
            assert stored.memory == text and stored.metadata == (meta or {})
            assert len(after) == len(before) + 1


FILTER_VALUES = st.one_of(scalars, st.lists(scalars, max_size=2), st.just("*"),
                          st.dictionaries(st.sampled_from(["eq", "in", "nin", "ne", "gte", "gt",
                                                           "lte", "lt", "contains", "icontains",
                                                           "near", "OR", ""]),
                                          st.one_of(scalars, st.lists(scalars, max_size=3)),
                                          max_size=2))
# mem0's AND/OR/NOT around field conditions, well formed or not (empty lists, non-dict items).
FILTERS = st.recursive(
    st.dictionaries(st.one_of(texts, st.sampled_from(["AND", "OR", "NOT", "or"])), FILTER_VALUES,
                    max_size=3),
    lambda inner: st.dictionaries(st.sampled_from(["AND", "OR", "NOT"]),
                                  st.one_of(st.lists(inner, max_size=3), inner, scalars),
                                  max_size=2),
    max_leaves=6)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(filters=st.one_of(FILTERS, st.lists(scalars, max_size=2), scalars),
       query=texts, limit=st.sampled_from([1, 10, 0, -1, 10_001, True, 2.5]),
       mode=st.sampled_from(["vector", "keyword", "hybrid"]))
def test_search_arguments_are_refused_in_python_or_answered_by_java(
        lucene, filters, query, limit, mode):
    runner = LuceneRunner(Call(), lucene, AgentConfig(on_error="dead_letter"))
    runner.run("k", lambda ctx: ctx.memory.add(MemoryItem(memory="tea", metadata={"n": 1})))
    [out] = runner.run("k", lambda ctx: ctx.memory.search(query, limit=limit, filters=filters,
                                                           mode=mode))
    if isinstance(out, DeadLetter):
        # refused in Python, never a Java exception that names nothing
        assert "Py4JJavaError" not in out.error and "java.lang" not in out.error, out.error
        assert "MemoryValueError" in out.error or "MemoryTypeError" in out.error, out.error
    else:
        assert isinstance(out, list)


def test_boundaries_the_index_takes(lucene):
    """Values exactly at the limits are written and read back intact."""
    runner = LuceneRunner(Call(), lucene)
    deep = {"d": 0}
    for _ in range(30):
        deep = {"d": deep}
    item = MemoryItem(id="i" * 256, memory="é" * (262_144 // 2),
                      metadata={"term": "t" * LUCENE_MAX_TERM_BYTES, "n": 10 ** 100 - 1,
                                "deep": deep, "nul": "a\x00b", "k" * 1024: 1},
                      created_at="2024-05-01T12:00:00.123456789Z")
    memory_id = runner.run("k" * 4096, lambda ctx: ctx.memory.add(item))[0]
    stored = runner.run("k" * 4096, lambda ctx: ctx.memory.get(memory_id))[0]
    assert stored.memory == item.memory and stored.metadata == item.metadata
    found = runner.run("k" * 4096, lambda ctx: ctx.memory.get_all(
        filters={"term": "t" * LUCENE_MAX_TERM_BYTES, "n": {"gte": 1}}))[0]
    assert [m.id for m in found] == [memory_id]


def test_a_metadata_key_at_the_term_limit_is_written_and_found_by_the_wildcard(lucene):
    """Top-level keys are indexed terms (the '*' filter): the longest one Python lets through is
    written, and the next is refused before Java."""
    runner = LuceneRunner(Call(), lucene, AgentConfig(limits=MemoryLimits(max_key_chars=10_000)))
    longest = "😀" * (LUCENE_MAX_TERM_BYTES // 4)
    memory_id = runner.run("k", lambda ctx: ctx.memory.add(MemoryItem(
        memory="m", metadata={longest: 1})))[0]
    assert [m.id for m in runner.run("k", lambda ctx: ctx.memory.get_all(
        filters={longest: "*"}))[0]] == [memory_id]
    with pytest.raises(ActionFailedError, match="metadata key of 32768 bytes"):
        runner.run("k", lambda ctx: ctx.memory.add(MemoryItem(
            memory="m", metadata={longest + "😀": 1})))


def test_oversized_text_is_refused_before_java(lucene):
    """The 25 MB text that was a poison pill: refused in Python, named, nothing written."""
    runner = LuceneRunner(Call(), lucene)
    with pytest.raises(ActionFailedError, match="over max_memory_bytes=262144") as info:
        runner.run("k", lambda ctx: ctx.memory.add("x" * 25_000_000))
    assert isinstance(info.value.__cause__, MemoryValueError)
    assert runner.run("k", everything)[0] == []
    assert lucene.store.count(0) == 0


class FailingIndex:
    """The real store, whose next batch write fails (an index fault, e.g. a full disk)."""

    def __init__(self, store):
        self._store = store
        self.fail_next = False

    def __getattr__(self, name):
        return getattr(self._store, name)

    def addBatch(self, docs, vectors):  # noqa: N802 (the Java method's name)
        if self.fail_next:
            self.fail_next = False
            raise OSError("No space left on device")
        return self._store.addBatch(docs, vectors)


def test_failed_index_write_leaves_nothing_for_the_next_run(lucene):
    failing = FailingIndex(lucene.store)
    lucene.store = failing
    runner = LuceneRunner(Call(), lucene)
    runner.run("k", lambda ctx: ctx.memory.add("first"))
    failing.fail_next = True
    with pytest.raises(OSError, match="No space"):
        runner.run("k", lambda ctx: ctx.memory.add("lost with the failed write"))
    runner.run("k", lambda ctx: ctx.memory.add("second"))
    assert sorted(m[1] for m in runner.run("k", everything)[0]) == ["first", "second"]
    recent = runner.run("k", lambda ctx: [m.memory for m in ctx.memory.get_history(10)])[0]
    assert recent == ["first", "second"]
