package io.flinkagentsmemory.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.lucene.codecs.hnsw.DefaultFlatVectorScorer;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.util.VectorUtil;
import org.apache.lucene.util.hnsw.RandomAccessVectorValues;
import org.apache.lucene.util.hnsw.RandomVectorScorer;
import org.apache.lucene.util.hnsw.RandomVectorScorerSupplier;
import org.junit.jupiter.api.Test;

class VectorisedFlatVectorsScorerTest {

    private static final int DIM = 384;
    private static final VectorSimilarityFunction DOT = VectorSimilarityFunction.DOT_PRODUCT;

    private final Random random = new Random(3);
    private final RandomAccessVectorValues.Floats values = unitVectors(50);

    @Test
    void searchScoresAreLucenes() throws Exception {
        float[] query = unit(DotProductTest.random(random, DIM));
        RandomVectorScorer ours = VectorisedFlatVectorsScorer.INSTANCE.getRandomVectorScorer(DOT, values, query);
        RandomVectorScorer lucene = DefaultFlatVectorScorer.INSTANCE.getRandomVectorScorer(DOT, values, query);
        assertEquals(values.size(), ours.maxOrd());
        for (int node = 0; node < values.size(); node++) {
            assertEquals(lucene.score(node), ours.score(node), 1e-6f, "node " + node);
        }
    }

    /** Graph building scores one stored vector against others; each scorer keeps its own query. */
    @Test
    void buildScoresAreLucenesAndScorersDoNotShareTheirQuery() throws Exception {
        RandomVectorScorerSupplier ours = VectorisedFlatVectorsScorer.INSTANCE.getRandomVectorScorerSupplier(DOT, values);
        RandomVectorScorerSupplier lucene = DefaultFlatVectorScorer.INSTANCE.getRandomVectorScorerSupplier(DOT, values);
        RandomVectorScorer first = ours.scorer(0);
        RandomVectorScorer second = ours.copy().scorer(7);
        RandomVectorScorer third = ours.scorer(9);
        for (int node = 0; node < values.size(); node++) {
            assertEquals(lucene.scorer(0).score(node), first.score(node), 1e-6f);
            assertEquals(lucene.scorer(7).score(node), second.score(node), 1e-6f);
            assertEquals(lucene.scorer(9).score(node), third.score(node), 1e-6f);
        }
    }

    @Test
    void otherSimilaritiesAreLeftToLucene() throws Exception {
        float[] query = DotProductTest.random(random, DIM);
        RandomVectorScorer ours = VectorisedFlatVectorsScorer.INSTANCE.getRandomVectorScorer(
                VectorSimilarityFunction.EUCLIDEAN, values, query);
        assertEquals(VectorSimilarityFunction.EUCLIDEAN.compare(query, values.vectorValue(4)), ours.score(4));
    }

    @Test
    void aQueryOfAnotherDimensionIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VectorisedFlatVectorsScorer.INSTANCE.getRandomVectorScorer(DOT, values, new float[3]));
        assertEquals("vector query dimension: 3 differs from field dimension: 384", e.getMessage());
    }

    @Test
    void negativeDotProductsScoreZeroAtWorst() {
        assertEquals(0f, VectorisedFlatVectorsScorer.score(-1.5f));
        assertEquals(1f, VectorisedFlatVectorsScorer.score(1f));
    }

    private RandomAccessVectorValues.Floats unitVectors(int count) {
        List<float[]> vectors = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            vectors.add(unit(DotProductTest.random(random, DIM)));
        }
        return RandomAccessVectorValues.fromFloats(vectors, DIM);
    }

    private static float[] unit(float[] v) {
        return VectorUtil.l2normalize(v);
    }
}
