package io.flinkagentsmemory.index;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.lucene.search.ScoreDoc;

/**
 * Hybrid search's fusion of the vector and keyword rankings: a document scores the sum of
 * weight/(60+rank) over the rankings it is in, divided by the best possible sum, so 1 means first
 * in both. Ranks, not scores, are fused: cosine and BM25 scores are on unrelated scales.
 */
final class ReciprocalRankFusion {

    /** The usual damping constant: rank 1 and rank 2 weigh nearly the same. */
    static final int RRF_K = 60;

    private ReciprocalRankFusion() {}

    /**
     * Both rankings fused, best first (ties by document number); {@code keywordWeight} weighs the
     * keyword ranking against the vector ranking's 1; at 0 the keyword ranking adds no documents.
     */
    static List<ScoreDoc> fuse(List<ScoreDoc> vectorRanking, List<ScoreDoc> keywordRanking, double keywordWeight) {
        Map<Integer, Double> fused = new HashMap<>();
        addRanks(fused, vectorRanking, 1.0);
        if (keywordWeight > 0) {
            addRanks(fused, keywordRanking, keywordWeight);
        }
        double best = (1.0 + keywordWeight) / (RRF_K + 1);
        List<ScoreDoc> out = new ArrayList<>(fused.size());
        fused.forEach((doc, score) -> out.add(new ScoreDoc(doc, (float) (score / best))));
        out.sort((a, b) -> a.score != b.score ? Float.compare(b.score, a.score) : Integer.compare(a.doc, b.doc));
        return out;
    }

    private static void addRanks(Map<Integer, Double> fused, List<ScoreDoc> ranked, double weight) {
        for (int rank = 1; rank <= ranked.size(); rank++) {
            fused.merge(ranked.get(rank - 1).doc, weight / (RRF_K + rank), Double::sum);
        }
    }
}
