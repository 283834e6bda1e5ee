package io.flinkagentsmemory.vectors;

import java.io.IOException;

import org.apache.lucene.codecs.hnsw.DefaultFlatVectorScorer;
import org.apache.lucene.codecs.hnsw.FlatVectorsScorer;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.util.hnsw.RandomAccessVectorValues;
import org.apache.lucene.util.hnsw.RandomVectorScorer;
import org.apache.lucene.util.hnsw.RandomVectorScorerSupplier;

/**
 * Lucene's flat vector scorer with {@link DotProduct} for float vectors under
 * {@link VectorSimilarityFunction#DOT_PRODUCT}, the similarity of every memory vector: graph
 * searches, exact scans and graph building all score through here. Other similarities and byte
 * vectors go to Lucene's scorer unchanged. Scores are Lucene's: {@code max((1 + dot) / 2, 0)}.
 */
public final class VectorisedFlatVectorsScorer implements FlatVectorsScorer {

    public static final VectorisedFlatVectorsScorer INSTANCE = new VectorisedFlatVectorsScorer();

    private static final FlatVectorsScorer LUCENE = DefaultFlatVectorScorer.INSTANCE;

    private VectorisedFlatVectorsScorer() {
    }

    /** Lucene's normalisation of a dot product of unit vectors into a non-negative score. */
    static float score(float dot) {
        return Math.max((1 + dot) / 2, 0);
    }

    private static boolean ours(VectorSimilarityFunction similarity, RandomAccessVectorValues values) {
        return similarity == VectorSimilarityFunction.DOT_PRODUCT
                && values instanceof RandomAccessVectorValues.Floats;
    }

    @Override
    public RandomVectorScorerSupplier getRandomVectorScorerSupplier(VectorSimilarityFunction similarity,
            RandomAccessVectorValues values) throws IOException {
        if (!ours(similarity, values)) {
            return LUCENE.getRandomVectorScorerSupplier(similarity, values);
        }
        return new Supplier((RandomAccessVectorValues.Floats) values);
    }

    @Override
    public RandomVectorScorer getRandomVectorScorer(VectorSimilarityFunction similarity,
            RandomAccessVectorValues values, float[] target) throws IOException {
        if (!ours(similarity, values)) {
            return LUCENE.getRandomVectorScorer(similarity, values, target);
        }
        if (target.length != values.dimension()) {
            throw new IllegalArgumentException("vector query dimension: " + target.length
                    + " differs from field dimension: " + values.dimension());
        }
        return new Scorer((RandomAccessVectorValues.Floats) values, target);
    }

    @Override
    public RandomVectorScorer getRandomVectorScorer(VectorSimilarityFunction similarity,
            RandomAccessVectorValues values, byte[] target) throws IOException {
        return LUCENE.getRandomVectorScorer(similarity, values, target);
    }

    @Override
    public String toString() {
        return "VectorisedFlatVectorsScorer(simd=" + DotProduct.vectorised() + ")";
    }

    /** Scores stored vectors against one query vector. */
    private static final class Scorer extends RandomVectorScorer.AbstractRandomVectorScorer {
        private final RandomAccessVectorValues.Floats values;
        private final float[] target;

        Scorer(RandomAccessVectorValues.Floats values, float[] target) {
            super(values);
            this.values = values;
            this.target = target;
        }

        @Override
        public float score(int node) throws IOException {
            return VectorisedFlatVectorsScorer.score(DotProduct.dotProduct(target, values.vectorValue(node)));
        }
    }

    /**
     * Scores stored vectors against a stored one (graph building). Two copies of the values: the
     * query vector is read from one, the candidates from the other, since a read reuses its array.
     */
    private static final class Supplier implements RandomVectorScorerSupplier {
        private final RandomAccessVectorValues.Floats queries;
        private final RandomAccessVectorValues.Floats candidates;

        Supplier(RandomAccessVectorValues.Floats values) throws IOException {
            this.queries = values.copy();
            this.candidates = values.copy();
        }

        @Override
        public RandomVectorScorer scorer(int ord) throws IOException {
            return new Scorer(candidates, queries.vectorValue(ord).clone());
        }

        @Override
        public RandomVectorScorerSupplier copy() throws IOException {
            return new Supplier(queries);
        }
    }
}
