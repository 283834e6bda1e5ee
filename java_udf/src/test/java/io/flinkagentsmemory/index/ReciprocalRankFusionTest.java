package io.flinkagentsmemory.index;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;

import org.apache.lucene.search.ScoreDoc;
import org.junit.jupiter.api.Test;

/** Ranks are fused, not scores: only the order of each ranking counts. */
class ReciprocalRankFusionTest {

    private static final double K = ReciprocalRankFusion.RRF_K;

    @Test
    void firstInBothScoresOne() {
        List<ScoreDoc> fused = ReciprocalRankFusion.fuse(ranking(7, 8), ranking(7), 1.0);
        assertEquals(List.of(7, 8), docs(fused));
        assertEquals(1.0, fused.get(0).score, 1e-6);
        assertEquals((1 / (K + 2)) / (2 / (K + 1)), fused.get(1).score, 1e-6);
    }

    @Test
    void theKeywordWeightShiftsTheOrder() {
        // Vector ranking: 1 then 2; keyword ranking: 2 only.
        assertEquals(List.of(2, 1), docs(ReciprocalRankFusion.fuse(ranking(1, 2), ranking(2), 1.0)));
        assertEquals(List.of(3, 2, 1), docs(ReciprocalRankFusion.fuse(ranking(1, 2, 3), ranking(3, 2), 1.0)));
        assertEquals(List.of(1, 2, 3), docs(ReciprocalRankFusion.fuse(ranking(1, 2, 3), ranking(3, 2), 0.01)));
        List<ScoreDoc> keywordHeavy = ReciprocalRankFusion.fuse(ranking(1, 2), ranking(2), 2.0);
        assertEquals((1 / (K + 2) + 2 / (K + 1)) * (K + 1) / 3, keywordHeavy.get(0).score, 1e-6);
    }

    @Test
    void aZeroWeightLeavesKeywordOnlyDocumentsOut() {
        assertEquals(List.of(1, 2), docs(ReciprocalRankFusion.fuse(ranking(1, 2), ranking(9, 2), 0.0)));
    }

    @Test
    void tiesGoToTheLowerDocumentNumber() {
        // 5 is first by vector, 4 first by keyword: equal sums.
        assertEquals(List.of(4, 5), docs(ReciprocalRankFusion.fuse(ranking(5, 4), ranking(4, 5), 1.0)));
    }

    @Test
    void scoresOfTheInputsDoNotCount() {
        List<ScoreDoc> vector = List.of(new ScoreDoc(1, 0.99f), new ScoreDoc(2, 0.01f));
        List<ScoreDoc> keyword = List.of(new ScoreDoc(1, 0.5f), new ScoreDoc(2, 40f));
        assertEquals(List.of(1, 2), docs(ReciprocalRankFusion.fuse(vector, keyword, 1.0)));
    }

    private static List<ScoreDoc> ranking(int... docs) {
        return Arrays.stream(docs).mapToObj(d -> new ScoreDoc(d, 0f)).toList();
    }

    private static List<Integer> docs(List<ScoreDoc> hits) {
        return hits.stream().map(h -> h.doc).toList();
    }
}
