"""``ctx.memory.add(text, context=...)``: the context is searchable by keyword, never returned."""

from __future__ import annotations

import pytest
from lucene_store import CallAgent, LuceneRunner

from flink_agents_memory.errors import ActionFailedError


def do(runner, fn):
    return runner.run("alice", fn)[0]


def test_context_words_find_the_memory_which_keeps_its_own_text(lucene):
    r = LuceneRunner(CallAgent(), lucene)
    reply = do(r, lambda c: c.memory.add("Bob: it was great, we loved the food",
                                         context="Ann: how was your trip to Lisbon?"))
    do(r, lambda c: c.memory.add("Bob: I am cooking pasta tonight"))
    for mode in ("keyword", "hybrid"):
        hits = do(r, lambda c, m=mode: c.memory.search("Lisbon trip", limit=2, mode=m))
        assert hits[0].id == reply and hits[0].memory == "Bob: it was great, we loved the food"
    assert do(r, lambda c: c.memory.search("Lisbon", mode="keyword", limit=5))[0].id == reply
    assert do(r, lambda c: c.memory.get(reply)).memory == "Bob: it was great, we loved the food"
    # An update keeps the context: the new text is still found by the context's words.
    do(r, lambda c: c.memory.update(reply, "Bob: it was wonderful"))
    hits = do(r, lambda c: c.memory.search("Lisbon", mode="keyword"))
    assert [(h.id, h.memory) for h in hits] == [(reply, "Bob: it was wonderful")]


def test_bad_context_is_a_clear_error_and_stores_nothing(lucene):
    r = LuceneRunner(CallAgent(), lucene)
    with pytest.raises(ActionFailedError, match="context must be a str or None"):
        r.run("alice", lambda c: c.memory.add("text", context=["a", "b"]))
    with pytest.raises(ActionFailedError, match="over max_context_bytes"):
        r.run("alice", lambda c: c.memory.add("text", context="x" * (256 * 1024 + 1)))
    assert do(r, lambda c: c.memory.get_all()) == []
