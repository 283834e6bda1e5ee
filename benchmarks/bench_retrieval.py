"""Retrieval quality on REALTALK: evidence recall@5/10/20 of exact baselines and fusion choices.

    make bench-retrieval        (python -m benchmarks.bench_retrieval)

Each chat is one key and each turn one memory (``speaker: text``), as in the known baselines.
A question's recall@k is the share of its evidence turns among the top k; the figure is the
mean over questions. Exact baselines: cosine over every turn vector (all-MiniLM-L6-v2), BM25
(k1 1.2, b 0.75, Lucene's formula over lower-cased word tokens) and reciprocal-rank fusion
(k 60, top 100 of each). The sweep then weighs the two lists differently and drops question
words, the levers the default search mode can use.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from flink_agents_memory.memory.query import QUESTION_WORDS

from .common import ROOT
from .realtalk import Chat, cached_vectors, load

KS = (5, 10, 20)
_WORD = re.compile(r"[a-z0-9']+")


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class BM25:
    """Lucene's BM25 (k1 1.2, b 0.75, idf log(1 + (N - n + .5) / (n + .5))) over one chat."""

    def __init__(self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = [Counter(tokens(d)) for d in docs]
        self.lengths = np.asarray([sum(c.values()) for c in self.docs], dtype=np.float64)
        self.avg = float(self.lengths.mean()) if len(docs) else 1.0
        df: Counter[str] = Counter()
        for c in self.docs:
            df.update(c.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for i, c in enumerate(self.docs):
            for t, f in c.items():
                self.postings.setdefault(t, []).append((i, f))
        self.k1, self.b = k1, b

    def scores(self, query: list[str]) -> np.ndarray:
        out = np.zeros(len(self.docs))
        for t in set(query):
            for i, f in self.postings.get(t, ()):
                norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                out[i] += self.idf[t] * f * (self.k1 + 1) / (f + norm)
        return out


def top(scores: np.ndarray, k: int) -> list[int]:
    """Indexes of the k best positive-or-any scores, best first (ties: lower index)."""
    order = np.lexsort((np.arange(len(scores)), -scores))
    return [int(i) for i in order[:k]]


def fuse(lists: Sequence[list[int]], weights: Sequence[float], k: int = 60) -> list[int]:
    """Weighted reciprocal-rank fusion; ties go to the first list's order."""
    fused: dict[int, float] = {}
    for ranked, w in zip(lists, weights, strict=True):
        for rank, doc in enumerate(ranked, start=1):
            fused[doc] = fused.get(doc, 0.0) + w / (k + rank)
    return sorted(fused, key=lambda d: -fused[d])


def recall(ranked: list[int], evidence: set[int], k: int) -> float:
    return len(evidence.intersection(ranked[:k])) / len(evidence)


Ranker = Callable[[int, np.ndarray, str], list[int]]


def evaluate(chats: list[Chat], vectors: dict[str, tuple[np.ndarray, np.ndarray]],
             rankers: dict[str, Callable[[np.ndarray, BM25, np.ndarray, str], list[int]]]
             ) -> dict[str, dict[str, float]]:
    """Mean evidence recall@k of each ranker over every question of every chat."""
    sums = {name: dict.fromkeys(KS, 0.0) for name in rankers}
    count = 0
    for chat in chats:
        turn_vecs, question_vecs = vectors[chat.name]
        bm25 = BM25([t.memory() for t in chat.turns])
        index = {t.dia_id: i for i, t in enumerate(chat.turns)}
        for q, qv in zip(chat.questions, question_vecs, strict=True):
            evidence = {index[e] for e in q.evidence}
            count += 1
            for name, ranker in rankers.items():
                ranked = ranker(turn_vecs, bm25, qv, q.question)
                for k in KS:
                    sums[name][k] += recall(ranked, evidence, k)
    return {name: {f"recall@{k}": s[k] / count for k in KS} for name, s in sums.items()} | {
        "_questions": {"count": count}}


def baselines_and_sweep() -> dict[str, Callable[[np.ndarray, BM25, np.ndarray, str], list[int]]]:
    def cosine(tv, _bm, qv, _q):
        return top(tv @ qv, 100)

    def bm25(_tv, bm, _qv, q):
        return top(bm.scores(tokens(q)), 100)

    def bm25_stop(_tv, bm, _qv, q):
        return top(bm.scores([t for t in tokens(q) if t not in QUESTION_WORDS]), 100)

    def rrf(weights, keyword=bm25, depth=100):
        return lambda tv, bm, qv, q: fuse(
            [cosine(tv, bm, qv, q)[:depth], keyword(tv, bm, qv, q)[:depth]], weights)

    rankers = {"exact cosine": cosine, "exact BM25": bm25, "exact RRF k=60": rrf((1, 1)),
               "BM25, question words dropped": bm25_stop}
    for wv, wk in ((1, 1.5), (1, 2), (1, 3)):
        rankers[f"RRF {wv}:{wk}"] = rrf((wv, wk))
        rankers[f"RRF {wv}:{wk}, question words dropped"] = rrf((wv, wk), bm25_stop)
    rankers["RRF 1:1, question words dropped"] = rrf((1, 1), bm25_stop)
    rankers["RRF 1:2, question words dropped, top 40 each"] = rrf((1, 2), bm25_stop, 40)
    return rankers


def run(only: list[str] | None = None) -> dict:
    from flink_agents_memory.models import MiniLMEmbedder

    chats = [c for c in load() if not only or c.name in only]
    embedder = MiniLMEmbedder()
    vectors = {c.name: (cached_vectors("minilm", [t.memory() for t in c.turns], embedder.embed),
                        cached_vectors("minilm", [q.question for q in c.questions],
                                       embedder.embed))
               for c in chats}
    return evaluate(chats, vectors, baselines_and_sweep())


def markdown(result: dict) -> str:
    lines = ["| ranking | recall@5 | recall@10 | recall@20 |", "|---|---|---|---|"]
    for name, r in result.items():
        if not name.startswith("_"):
            lines.append(f"| {name} | {r['recall@5']:.3f} | {r['recall@10']:.3f} | "
                         f"{r['recall@20']:.3f} |")
    return "\n".join(lines) + f"\n\n{result['_questions']['count']} questions.\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--chats", default="", help="comma-separated chat names (default: all 10)")
    a = p.parse_args()
    result = run([c for c in a.chats.split(",") if c])
    out = ROOT / "docs" / "benchmarks" / "retrieval.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(markdown(result))


if __name__ == "__main__":
    main()
