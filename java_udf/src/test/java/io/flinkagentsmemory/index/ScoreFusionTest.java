package io.flinkagentsmemory.index;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.apache.lucene.search.ScoreDoc;
import org.junit.jupiter.api.Test;

/** Scores are fused after scaling each list to 0-1: vector min-max, BM25 over its best. */
class ScoreFusionTest {

    @Test
    void firstInBothScoresOne() {
        List<ScoreDoc> fused = ScoreFusion.fuse(hits(7, 0.9f, 8, 0.6f), hits(7, 12f), 1.0);
        assertEquals(List.of(7, 8), docs(fused));
        assertEquals(1.0, fused.get(0).score, 1e-6);
        // Last in the vector list (scaled 0), absent from the keyword list.
        assertEquals(0.0, fused.get(1).score, 1e-6);
    }

    @Test
    void scaledScoresKeepHowFarApartTheyAre() {
        // Vector 1 (1.0), 2 (0.5 scaled), 3 (0); keyword 3 best (1.0), 2 at a tenth of it.
        List<ScoreDoc> fused = ScoreFusion.fuse(hits(1, 0.9f, 2, 0.8f, 3, 0.7f), hits(3, 10f, 2, 1f), 1.0);
        assertEquals(List.of(1, 3, 2), docs(fused));
        assertEquals(0.5, fused.get(0).score, 1e-6);
        assertEquals(0.5, fused.get(1).score, 1e-6);
        assertEquals((0.5 + 0.1) / 2, fused.get(2).score, 1e-6);
    }

    @Test
    void theKeywordWeightShiftsTheOrder() {
        List<ScoreDoc> keywordHeavy = ScoreFusion.fuse(hits(1, 0.9f, 2, 0.7f), hits(2, 5f), 2.0);
        assertEquals(List.of(2, 1), docs(keywordHeavy));
        assertEquals(2.0 / 3, keywordHeavy.get(0).score, 1e-6);
        assertEquals(1.0 / 3, keywordHeavy.get(1).score, 1e-6);
        assertEquals(List.of(1, 2), docs(ScoreFusion.fuse(hits(1, 0.9f, 2, 0.7f), hits(2, 5f), 0.5)));
    }

    @Test
    void aZeroWeightLeavesKeywordOnlyDocumentsOut() {
        assertEquals(List.of(1, 2), docs(ScoreFusion.fuse(hits(1, 0.9f, 2, 0.1f), hits(9, 3f, 2, 1f), 0.0)));
    }

    @Test
    void aSingleHitOrEqualScoresScaleToOne() {
        assertEquals(0.5, ScoreFusion.fuse(hits(4, 0.3f), List.of(), 1.0).get(0).score, 1e-6);
        // Equal sums: ties go to the lower document number.
        assertEquals(List.of(4, 5), docs(ScoreFusion.fuse(hits(5, 0.9f, 4, 0.1f), hits(4, 2f, 5, 0f), 1.0)));
    }

    /** Alternating document numbers and scores, best first. */
    private static List<ScoreDoc> hits(Object... docAndScore) {
        List<ScoreDoc> out = new java.util.ArrayList<>();
        for (int i = 0; i < docAndScore.length; i += 2) {
            out.add(new ScoreDoc((Integer) docAndScore[i], (Float) docAndScore[i + 1]));
        }
        return out;
    }

    private static List<Integer> docs(List<ScoreDoc> hits) {
        return hits.stream().map(h -> h.doc).toList();
    }
}
