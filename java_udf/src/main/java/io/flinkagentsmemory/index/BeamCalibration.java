package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.Arrays;

import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopKnnCollector;

import io.flinkagentsmemory.vectors.DotProduct;

/**
 * The narrowest HNSW beam at which a segment's graph finds the exact top 10 of the job's queries.
 *
 * <p>How wide a beam must be for a recall depends on the data far more than on anything a job
 * could configure: text embeddings reach 0.99 at 100 candidates where uniformly random vectors
 * need 200 for 0.95 (docs/long_term_memory.md), and a search costs in proportion to its beam.
 * So the default beam is measured per segment: recent queries of the job ({@link CalibratedBeams}
 * keeps {@link #SAMPLE}) are searched at each beam of {@link #LADDER} and compared with a scan;
 * the first beam whose recall@10 reaches {@link #TARGET_RECALL} is the segment's beam, and the
 * widest is the answer when none does. The beam is never widened beyond what a job got before
 * the calibration existed, so it only saves time where the data shows it costs no recall.
 *
 * <p>Real queries, not the segment's own vectors: a stored vector reaches its own node in the
 * graph and reads its nearest neighbours off that node's links, so such a sample overstates
 * recall (on uniformly random 64-dim vectors it measured 0.98 at beam 100, where queries drawn
 * like the data got 0.95). (Public for benchmarks/java/GraphDensity.java.)
 */
public final class BeamCalibration {

    /** Beams tried, narrowest first; the last is the default beam, so the ceiling. */
    static final int[] LADDER = {100, 150, SearchOptions.DEFAULT_VECTOR_CANDIDATES};
    /** Queries searched per beam: recall@10 over 640 neighbours, ~0.005 standard error at 0.98. */
    public static final int SAMPLE = 64;
    /** Recall@10 a beam must reach, with margin over the 0.95 the project promises. */
    static final double TARGET_RECALL = 0.98;
    /**
     * Segments below this are not calibrated: a search of them is cheap at any beam, and one of
     * up to 6,400 vectors is scanned at the default beam ({@link SegmentScaledKnnQuery}).
     */
    static final int MIN_VECTORS = 10_000;

    private static final int K = 10;

    private BeamCalibration() {}

    /** Whether a segment of {@code vectors} vectors is worth calibrating. */
    static boolean worthCalibrating(int vectors) {
        return vectors >= MIN_VECTORS;
    }

    /**
     * The segment's beam for {@code queries} on the vectors of {@code field} (dot-product
     * similarity, the queries' dimension), read once in order for the scan: ~0.5 s for 100k
     * 384-dim vectors and 64 queries on one core.
     */
    public static int calibrate(LeafReader leaf, String field, float[][] queries) throws IOException {
        FloatVectorValues values = leaf.getFloatVectorValues(field);
        if (values == null || values.size() <= K) {
            return LADDER[LADDER.length - 1];
        }
        int[][] exact = exactTop(values, queries);
        for (int beam : LADDER) {
            if (recall(leaf, field, beam, queries, exact) >= TARGET_RECALL) {
                return beam;
            }
        }
        return LADDER[LADDER.length - 1];
    }

    /** Recall@10 of graph searches at {@code beam} against {@code exact} (each query's top 10 doc ids). */
    static double recall(LeafReader leaf, String field, int beam, float[][] queries, int[][] exact)
            throws IOException {
        int found = 0;
        for (int q = 0; q < queries.length; q++) {
            TopKnnCollector collector = new TopKnnCollector(beam, Integer.MAX_VALUE);
            leaf.searchNearestVectors(field, queries[q], collector, null);
            ScoreDoc[] hits = collector.topDocs().scoreDocs;
            for (int i = 0; i < Math.min(K, hits.length); i++) {
                for (int doc : exact[q]) {
                    if (doc == hits[i].doc) {
                        found++;
                        break;
                    }
                }
            }
        }
        return found / (double) (queries.length * K);
    }

    /** Each query's exact top 10 doc ids, by one pass over the vectors. */
    static int[][] exactTop(FloatVectorValues values, float[][] queries) throws IOException {
        float[][] scores = new float[queries.length][K];
        int[][] docs = new int[queries.length][K];
        for (float[] row : scores) {
            Arrays.fill(row, Float.NEGATIVE_INFINITY);
        }
        for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
            float[] vector = values.vectorValue();
            for (int q = 0; q < queries.length; q++) {
                float score = DotProduct.dotProduct(queries[q], vector);
                if (score > scores[q][K - 1]) {
                    insert(scores[q], docs[q], score, doc);
                }
            }
        }
        return docs;
    }

    /** Inserts into a descending top-k, dropping its last entry. */
    private static void insert(float[] scores, int[] docs, float score, int doc) {
        int i = scores.length - 1;
        while (i > 0 && scores[i - 1] < score) {
            scores[i] = scores[i - 1];
            docs[i] = docs[i - 1];
            i--;
        }
        scores[i] = score;
        docs[i] = doc;
    }
}
