"""Chunking with overlap, content-hash ids and file loading (text, markdown, JSON lines)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flink_agents_memory.knowledge import chunk_id, chunk_text, load_chunks

WORDS = ["stream", "state", "checkpoint", "watermark", "window", "operator", "barrier",
         "savepoint", "keyed", "timer", "event", "time", "latency", "throughput", "backpressure"]


def test_short_text_is_one_chunk():
    assert chunk_text("  hello world  ") == ["hello world"]
    assert chunk_text("   ") == []


def test_chunks_are_bounded_overlap_and_start_at_words():
    text = " ".join(WORDS[i % len(WORDS)] for i in range(600))
    chunks = chunk_text(text, chunk_size=200, overlap=40)
    assert len(chunks) > 5
    assert all(len(c) <= 200 for c in chunks)
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.split()[0] in WORDS            # never starts inside a word
        head = " ".join(b.split()[:3])
        assert head in a[-80:], "consecutive chunks must overlap"


def test_cuts_prefer_paragraphs_then_sentences():
    para = "Checkpoints snapshot state. " * 5
    text = (para + "\n\n") * 4
    chunks = chunk_text(text, chunk_size=300, overlap=0)
    assert all(c.endswith("state.") for c in chunks)


def test_invalid_sizes():
    with pytest.raises(ValueError):
        chunk_text("x", chunk_size=10)
    with pytest.raises(ValueError):
        chunk_text("x", chunk_size=100, overlap=60)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(WORDS + ["\n\n", "."]), min_size=1, max_size=400),
       st.integers(60, 400), st.integers(0, 29))
def test_every_word_is_in_some_chunk(tokens, size, overlap):
    text = " ".join(tokens)
    chunks = chunk_text(text, chunk_size=size, overlap=overlap)
    assert all(len(c) <= size for c in chunks)
    joined = " ".join(chunks).split()
    # nothing lost: the words of the text, in order, are a subsequence of the chunks' words
    it = iter(joined)
    assert all(any(w == x for x in it) for w in text.split())


def test_chunk_id_is_a_content_hash():
    assert chunk_id("a  b\nc") == chunk_id("a b c")
    assert chunk_id("a b c") != chunk_id("a b d")
    assert len(chunk_id("x")) == 32


def test_markdown_is_split_by_heading(tmp_path):
    md = tmp_path / "guide.md"
    md.write_text("intro line\n\n# Checkpoints\n\nThey snapshot state.\n\n"
                  "## Savepoints\n\nManual snapshots.\n")
    chunks = load_chunks(md)
    assert [c.metadata.get("title") for c in chunks] == [None, "Checkpoints", "Savepoints"]
    assert chunks[1].text.startswith("# Checkpoints")
    assert all(c.metadata["file"] == "guide.md" for c in chunks)
    assert [c.metadata["chunk"] for c in chunks] == [0, 1, 2]
    assert load_chunks(md) == chunks      # same file, same ids


def test_jsonl_records(tmp_path):
    f = tmp_path / "faq.jsonl"
    f.write_text(json.dumps({"text": "What is a watermark?", "topic": "time", "n": 3}) + "\n\n"
                 + json.dumps({"content": "A barrier.", "metadata": {"tags": ["a"]}}) + "\n")
    a, b = load_chunks(f)
    assert a.text == "What is a watermark?" and a.metadata["topic"] == "time"
    assert a.metadata["line"] == 1 and b.metadata["line"] == 3
    assert b.metadata["tags"] == '["a"]'      # non-scalar metadata becomes JSON text


def test_jsonl_errors_name_the_line(tmp_path):
    f = tmp_path / "bad.jsonl"
    f.write_text('{"text": "ok"}\n{"nope": 1}\n')
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        load_chunks(f)
