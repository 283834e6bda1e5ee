"""What a search score means in each mode, min_score in each, and embedders that answer badly."""

from __future__ import annotations

import numpy as np
import pytest
from lucene_store import CallAgent, LuceneRunner

from flink_agents_memory.errors import ActionFailedError, FlinkAgentsMemoryError
from flink_agents_memory.memory.long_term import LongTermMemoryConfig
from flink_agents_memory.memory.query import keyword_query
from flink_agents_memory.models import HashingEmbedder

MEMORIES = ["I drink green tea every morning", "My dog Rex loves the park",
            "Green tea and jasmine taste best", "The quarterly report is due"]


def do(runner, fn):
    return runner.run("alice", fn)[0]


def loaded(lucene, agent=None):
    r = LuceneRunner(agent or CallAgent(), lucene)
    for text in MEMORIES:
        do(r, lambda c, t=text: c.memory.add(t))
    return r


@pytest.mark.parametrize("mode", ["vector", "keyword", "hybrid"])
def test_min_score_cuts_on_each_modes_scale(lucene, mode):
    r = loaded(lucene)
    hits = do(r, lambda c: c.memory.search("what was the green tea in the morning", limit=4,
                                           mode=mode))
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and "green tea" in hits[0].memory.lower()
    if mode != "keyword":  # vector (1+cos)/2 and hybrid fused/maximum are within [0, 1]
        assert all(0 <= s <= 1 for s in scores), scores
    # The hybrid top hit is first in both rankings here: its score is the maximum, 1.
    if mode == "hybrid":
        assert scores[0] == pytest.approx(1.0)
    cut = (scores[0] + scores[-1]) / 2
    kept = do(r, lambda c: c.memory.search("what was the green tea in the morning", limit=4,
                                           mode=mode, min_score=cut))
    assert [h.id for h in kept] == [h.id for h in hits if h.score >= cut]
    assert scores[0] > scores[-1] and 0 < len(kept) < len(hits)
    assert do(r, lambda c: c.memory.search("green tea", mode=mode, min_score=1e9)) == []


def test_bad_min_score_and_query_are_clear_errors(lucene):
    r = loaded(lucene)
    for bad, message in ((float("nan"), "min_score"), ("0.5", "min_score"), (True, "min_score")):
        with pytest.raises(ActionFailedError, match=message):
            r.run("alice", lambda c, b=bad: c.memory.search("tea", min_score=b))
    with pytest.raises(ActionFailedError, match="query must be a str"):
        r.run("alice", lambda c: c.memory.search(None))
    with pytest.raises(ActionFailedError, match="positive int"):
        r.run("alice", lambda c: c.memory.search("tea", limit=True))


def test_keyword_query_drops_question_words_but_never_everything():
    assert keyword_query("What did Kate's dog eat at the park?") == "Kate's dog eat park"
    assert keyword_query("what is it") == "what is it"


class NaNEmbedder:
    dim = 64

    def __init__(self, after: int) -> None:
        self.calls = 0
        self.after = after

    def embed(self, texts):
        self.calls += 1
        out = HashingEmbedder(64).embed(texts)
        if self.calls > self.after:
            out[0, 3] = np.nan
        return out


@pytest.mark.parametrize("embedder, message", [
    (NaNEmbedder(after=0), "zero, NaN or infinite vector"),
    (HashingEmbedder(32), "does not match the index's dimension"),
])
def test_bad_embedder_output_fails_the_run_and_leaves_the_index_intact(lucene, embedder,
                                                                       message):
    r = loaded(lucene)
    before = sorted(m.memory for m in do(r, lambda c: c.memory.get_all()))

    class Bad(CallAgent):
        long_term_memory = LongTermMemoryConfig(embedder=embedder)

    bad = LuceneRunner(Bad(), lucene)
    with pytest.raises(FlinkAgentsMemoryError, match=message):
        bad.run("alice", lambda c: c.memory.add("a new memory that must not be stored"))
    after = sorted(m.memory for m in do(r, lambda c: c.memory.get_all()))
    assert after == before
    hits = do(r, lambda c: c.memory.search("green tea", mode="vector", limit=2))
    assert "green tea" in hits[0].memory.lower(), "the index still searches correctly"
