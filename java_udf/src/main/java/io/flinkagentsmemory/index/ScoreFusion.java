package io.flinkagentsmemory.index;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.lucene.search.ScoreDoc;

/**
 * Hybrid search's fusion of the vector and keyword lists: each list's scores are scaled to 0-1
 * (vector: min-max over its candidates; BM25: over its best), then a document scores
 * {@code (vector + w * keyword) / (1 + w)}; a list that misses it adds 0, so 1 means first in
 * both. On REALTALK this found more evidence than reciprocal-rank fusion, which keeps only the
 * ranks and so forgets how far apart the scores are (docs/long_term_memory.md).
 */
final class ScoreFusion {

    private ScoreFusion() {}

    /**
     * Both lists (each best first) fused, best first (ties by document number);
     * {@code keywordWeight} is {@code w}; at 0 the keyword list adds no documents.
     */
    static List<ScoreDoc> fuse(List<ScoreDoc> vectorHits, List<ScoreDoc> keywordHits, double keywordWeight) {
        Map<Integer, Double> fused = new HashMap<>();
        addScaled(fused, vectorHits, 1.0 / (1 + keywordWeight), true);
        if (keywordWeight > 0) {
            addScaled(fused, keywordHits, keywordWeight / (1 + keywordWeight), false);
        }
        List<ScoreDoc> out = new ArrayList<>(fused.size());
        fused.forEach((doc, score) -> out.add(new ScoreDoc(doc, (float) (double) score)));
        out.sort((a, b) -> a.score != b.score ? Float.compare(b.score, a.score) : Integer.compare(a.doc, b.doc));
        return out;
    }

    /** Adds {@code weight} times each hit's score scaled to 0-1 ({@code minMax}: from the lowest, else from 0). */
    private static void addScaled(Map<Integer, Double> fused, List<ScoreDoc> hits, double weight, boolean minMax) {
        if (hits.isEmpty()) {
            return;
        }
        double hi = hits.get(0).score;
        double lo = minMax ? hits.get(hits.size() - 1).score : 0.0;
        for (ScoreDoc h : hits) {
            double scaled = hi > lo ? (h.score - lo) / (hi - lo) : 1.0;
            fused.merge(h.doc, weight * scaled, Double::sum);
        }
    }
}
