package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentScaledKnnQueryTest {

    private static final int DIM = 64;
    private static final int K = 10;
    private static final long NEVER_QUIET = 3_600_000;

    @TempDir
    Path dir;

    @Test
    void largestSegmentGetsTheFullBeam() {
        assertEquals(100, SegmentScaledKnnQuery.beam(100, 10, 80_000, 80_000));
    }

    @Test
    void smallerSegmentsGetTheirShareToThePowerThreeQuarters() {
        assertEquals(36, SegmentScaledKnnQuery.beam(100, 10, 20_000, 80_000));
        assertEquals(13, SegmentScaledKnnQuery.beam(100, 10, 5_000, 80_000));
    }

    @Test
    void whetherToScanIsWeighedAgainstTheSquareRootShare() {
        assertEquals(50, SegmentScaledKnnQuery.scanBeam(100, 10, 20_000, 80_000));
        assertEquals(25, SegmentScaledKnnQuery.scanBeam(100, 10, 5_000, 80_000));
        assertEquals(10, SegmentScaledKnnQuery.scanBeam(100, 10, 10, 80_000));
    }

    @Test
    void neverBelowTheLimitNorAboveTheCandidates() {
        assertEquals(10, SegmentScaledKnnQuery.beam(100, 10, 10, 80_000));
        assertEquals(40, SegmentScaledKnnQuery.beam(40, 40, 10, 80_000));
    }

    @Test
    void segmentsOfUpTo32VectorsPerBeamSlotAreScanned() {
        assertTrue(SegmentScaledKnnQuery.searchesExactly(320, 10));
        assertFalse(SegmentScaledKnnQuery.searchesExactly(321, 10));
        assertFalse(SegmentScaledKnnQuery.searchesExactly(100_000, 200));
    }

    /**
     * 300 random 64-dim vectors searched with a beam of 10: a graph search that narrow misses
     * some of the true top 10 on such vectors; the scan finds each query's exact top 10, and
     * leaves out deleted documents.
     */
    @Test
    void aSmallSegmentGivesTheExactTopKWithoutItsDeletedDocuments() throws Exception {
        Random random = new Random(42);
        float[][] vectors = new float[300][];
        List<MemoryDocument> docs = new ArrayList<>();
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = unitVector(random, DIM);
            docs.add(doc("" + i, "k", 0, "m", vectors[i]));
        }
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, 0, KeyGroupIndex.DEFAULT_RAM_BUFFER_MB, NEVER_QUIET)) {
            index.addAll(docs);
            // Moves them from the recent documents (scanned anyway) into a segment of the index.
            assertEquals(1, index.segmentCount());
            for (int q = 0; q < 20; q++) {
                float[] query = unitVector(random, DIM);
                List<String> exact = exactTop(vectors, query, Set.of());
                assertEquals(exact, ids(index, query), "query " + q);
            }
            float[] query = unitVector(random, DIM);
            Set<String> deleted = Set.copyOf(exactTop(vectors, query, Set.of()).subList(0, 3));
            for (String id : deleted) {
                assertTrue(index.delete("k", id));
            }
            assertEquals(exactTop(vectors, query, deleted), ids(index, query));
        }
    }

    private static List<String> ids(KeyGroupIndex index, float[] query) throws Exception {
        return index.search("k", null, query, new SearchOptions(SearchOptions.Mode.VECTOR, K, null, null, 0, 1.0, K))
                .stream().map(h -> h.document().id()).collect(Collectors.toList());
    }

    private static List<String> exactTop(float[][] vectors, float[] query, Set<String> deleted) {
        return TestDocs.exactTop(vectors, query, K, i -> !deleted.contains("" + i));
    }
}
