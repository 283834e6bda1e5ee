"""Query-side keyword handling: the words of a question that carry no evidence.

BM25 scores every query word, and a question's own words ("what", "did", "the") match most turns
of a conversation. Dropping them from the keyword query (memories keep every word) raised
evidence recall@10 of BM25 on the REALTALK conversations from 0.439 to 0.473. Inside hybrid
search it did not help while hybrid fused ranks; with score fusion and memory context it does
(docs/long_term_memory.md), so keyword and hybrid search both use it."""

from __future__ import annotations

import re

_WORD = re.compile(r"[\w']+")

QUESTION_WORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "been", "by", "did", "do", "does", "for", "from",
    "had", "has", "have", "how", "i", "in", "is", "it", "its", "of", "on", "or", "that", "the",
    "their", "there", "they", "this", "to", "was", "were", "what", "when", "where", "which",
    "who", "whom", "whose", "why", "will", "with", "you", "your"))


def keyword_query(text: str) -> str:
    """``text`` without question words; unchanged when nothing else would remain."""
    words = _WORD.findall(text)
    kept = [w for w in words if w.lower() not in QUESTION_WORDS]
    return " ".join(kept) if kept else text
