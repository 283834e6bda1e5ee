package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.exactTop;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Vector search against brute force, on both states a production index is in: several segments
 * while it is written (each small enough for the default beam to be scanned, see
 * SegmentScaledKnnQuery; Lucene's exact search under selective key filters), and one segment
 * once it has been quiet and folded (HNSW), at the default beam and at the segment's calibrated one.
 */
class VectorRecallTest {

    private static final int DOCS = 20_000;
    private static final int DIM = 64;
    private static final int K = 10;
    private static final int QUERIES = 100;
    private static final int BATCH = 1_000;
    private static final long NEVER_QUIET = 3_600_000;
    private static final int NARROW_BEAM = 20;
    /** Written after the fold, one segment each: big enough to be searched by graph, not scanned. */
    private static final int LATER_SEGMENTS = 3;
    private static final int LATER_SEGMENT_DOCS = 4_000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} key(s)")
    @ValueSource(ints = {1, 100})
    void recallAtTenWhileWrittenAndOnceFolded(int keys) throws Exception {
        Random random = new Random(1234 + keys);
        float[][] vectors = load(keys, random);
        // As a job leaves it while writing: tiered merges settled, several segments.
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, 0, KeyGroupIndex.DEFAULT_RAM_BUFFER_MB, NEVER_QUIET)) {
            index.awaitMerges();
            int segments = index.segmentCount();
            assertTrue(segments > 1, "expected several segments, got " + segments);
            assertRecall(index, vectors, keys, random, segments + " segments");
        }
        // As it is once quiet (or restored): folded into one segment by the index itself.
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, 0, KeyGroupIndex.DEFAULT_RAM_BUFFER_MB, 0)) {
            index.awaitMerges();
            assertEquals(1, index.segmentCount(), "a quiet index is folded into one segment");
            assertRecall(index, vectors, keys, random, "folded");
            // No beam asked for: the first searches start the segment's calibration (BeamCalibration).
            recall(index, vectors, keys, random, SearchOptions.AUTO_VECTOR_CANDIDATES);
            assertTrue(CalibratedBeams.SHARED.awaitIdle(60_000), "calibration did not finish");
            double calibrated = recall(index, vectors, keys, random, SearchOptions.AUTO_VECTOR_CANDIDATES);
            System.out.printf("VECTOR recall@%d folded at the calibrated beam: %.4f%n", K, calibrated);
            assertTrue(calibrated >= 0.95, "calibrated beam: recall " + calibrated);
            if (keys == 1) { // a narrow beam reaches the graph search: it finds fewer
                double narrow = recall(index, vectors, keys, random, NARROW_BEAM);
                System.out.printf("VECTOR recall@%d folded at vector_candidates %d: %.4f%n", K, NARROW_BEAM, narrow);
                assertTrue(narrow < 0.9, "a beam of " + NARROW_BEAM + " gave recall " + narrow);
            }
        }
    }

    /**
     * A folded index and the segments written since, as a write stream leaves it: each segment is
     * searched by graph, the later ones with a beam narrowed to their share of the vectors
     * (SegmentScaledKnnQuery), and together they still find the true top 10.
     */
    @Test
    void recallAtTenOnAFoldedIndexAndTheSegmentsWrittenSince() throws Exception {
        Random random = new Random(99);
        float[][] folded = load(1, random);
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, 0, KeyGroupIndex.DEFAULT_RAM_BUFFER_MB, 0)) {
            index.awaitMerges();
            assertEquals(1, index.segmentCount(), "a quiet index is folded into one segment");
        }
        float[][] vectors = Arrays.copyOf(folded, DOCS + LATER_SEGMENTS * LATER_SEGMENT_DOCS);
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, 0, KeyGroupIndex.DEFAULT_RAM_BUFFER_MB, NEVER_QUIET)) {
            for (int s = 0; s < LATER_SEGMENTS; s++) {
                List<MemoryDocument> batch = new ArrayList<>();
                for (int i = DOCS + s * LATER_SEGMENT_DOCS; i < DOCS + (s + 1) * LATER_SEGMENT_DOCS; i++) {
                    vectors[i] = unitVector(random, DIM);
                    batch.add(new MemoryDocument("" + i, "k0", 0, "m", vectors[i], "{}", null, null, null,
                            MemoryDocument.NEVER));
                }
                index.addAll(batch);
                index.commit();
            }
            index.awaitMerges();
            int segments = index.segmentCount();
            assertTrue(segments > 1, "expected the folded segment and later ones, got " + segments);
            int smallestBeam = SegmentScaledKnnQuery.scanBeam(SearchOptions.DEFAULT_VECTOR_CANDIDATES, K,
                    LATER_SEGMENT_DOCS, DOCS);
            assertFalse(SegmentScaledKnnQuery.searchesExactly(LATER_SEGMENT_DOCS, smallestBeam),
                    "the later segments should be searched by graph");
            assertRecall(index, vectors, 1, random, "folded + " + (segments - 1) + " later segment(s)");
        }
    }

    private static void assertRecall(KeyGroupIndex index, float[][] vectors, int keys, Random random, String layout)
            throws Exception {
        double recall = recall(index, vectors, keys, random, SearchOptions.DEFAULT_VECTOR_CANDIDATES);
        System.out.printf("VECTOR recall@%d, %d docs x %d dims, %d key(s), %s: %.4f%n",
                K, DOCS, DIM, keys, layout, recall);
        assertTrue(recall >= 0.95, layout + ": recall " + recall);
    }

    /** Writes DOCS random unit vectors in batches, each followed by a read, as a job's runs do. */
    private float[][] load(int keys, Random random) throws Exception {
        float[][] vectors = new float[DOCS][];
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, 0, KeyGroupIndex.DEFAULT_RAM_BUFFER_MB, NEVER_QUIET)) {
            List<MemoryDocument> batch = new ArrayList<>();
            for (int i = 0; i < DOCS; i++) {
                vectors[i] = unitVector(random, DIM);
                batch.add(new MemoryDocument("" + i, key(i, keys), 0, "m", vectors[i], "{}", null, null, null,
                        MemoryDocument.NEVER));
                if (batch.size() == BATCH) {
                    index.addAll(batch);
                    batch.clear();
                    index.count(key(i, keys), 0);
                }
            }
        }
        return vectors;
    }

    private static double recall(KeyGroupIndex index, float[][] vectors, int keys, Random random, int beam)
            throws Exception {
        double found = 0;
        for (int q = 0; q < QUERIES; q++) {
            float[] query = unitVector(random, DIM);
            String key = key(random.nextInt(DOCS), keys);
            Set<String> exact = new HashSet<>(exactTop(vectors, query, K, i -> key(i, keys).equals(key)));
            for (SearchHit h : index.search(key, null, query,
                    new SearchOptions(SearchOptions.Mode.VECTOR, K, null, null, 0, 1.0, beam))) {
                if (exact.contains(h.document().id())) {
                    found++;
                }
            }
        }
        return found / (QUERIES * K);
    }

    private static String key(int doc, int keys) {
        return "k" + (doc % keys);
    }
}
