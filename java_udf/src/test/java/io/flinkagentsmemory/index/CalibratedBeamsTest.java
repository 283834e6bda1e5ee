package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.oneSegment;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalInt;
import java.util.Random;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;

/**
 * Calibration waits for 64 queries recorded after the segment was first asked about, happens off
 * the asking thread, once per segment, and is forgotten with the segment.
 */
class CalibratedBeamsTest {

    private static final int FALLBACK = SearchOptions.DEFAULT_VECTOR_CANDIDATES;
    private static final long TIMEOUT_MILLIS = 60_000;

    @Test
    void aLargeSegmentGetsItsBeamInTheBackgroundUntilItCloses() throws Exception {
        CalibratedBeams beams = new CalibratedBeams();
        try (Directory dir = new ByteBuffersDirectory()) {
            LeafReader leaf;
            try (DirectoryReader reader = oneSegment(dir, vectors(BeamCalibration.MIN_VECTORS, 32), BeamCalibration.MIN_VECTORS)) {
                leaf = reader.leaves().get(0).reader();
                for (float[] query : vectors(BeamCalibration.SAMPLE + 1, 32)) {
                    beams.recordQuery(query);
                }
                assertEquals(FALLBACK, beams.beam(leaf, DocumentSchema.VECTOR, FALLBACK));
                assertTrue(beams.awaitIdle(TIMEOUT_MILLIS));
                assertEquals(OptionalInt.empty(), beams.known(leaf), "queries from before the first ask were its sample");
                float[][] queries = vectors(BeamCalibration.SAMPLE, 32);
                for (int q = 0; q < queries.length - 1; q++) {
                    beams.recordQuery(queries[q]);
                }
                beams.recordQuery(new float[8]); // another dimension's query is no part of the sample
                assertEquals(FALLBACK, beams.beam(leaf, DocumentSchema.VECTOR, FALLBACK));
                assertTrue(beams.awaitIdle(TIMEOUT_MILLIS));
                assertEquals(OptionalInt.empty(), beams.known(leaf), "calibrated before 64 queries");
                beams.recordQuery(queries[queries.length - 1]);
                assertEquals(FALLBACK, beams.beam(leaf, DocumentSchema.VECTOR, FALLBACK), "the ask does not wait");
                assertTrue(beams.awaitIdle(TIMEOUT_MILLIS), "calibration did not finish");
                int expected = BeamCalibration.calibrate(leaf, DocumentSchema.VECTOR, queries);
                assertEquals(OptionalInt.of(expected), beams.known(leaf));
                assertEquals(expected, beams.beam(leaf, DocumentSchema.VECTOR, FALLBACK));
            }
            assertEquals(OptionalInt.empty(), beams.known(leaf), "a closed segment's beam is forgotten");
        }
    }

    @Test
    void aSmallSegmentKeepsTheFallback() throws Exception {
        CalibratedBeams beams = new CalibratedBeams();
        int docs = BeamCalibration.MIN_VECTORS - 1;
        try (Directory dir = new ByteBuffersDirectory(); DirectoryReader reader = oneSegment(dir, vectors(docs, 8), docs)) {
            LeafReader leaf = reader.leaves().get(0).reader();
            for (float[] query : vectors(BeamCalibration.SAMPLE, 8)) {
                beams.recordQuery(query);
            }
            assertEquals(FALLBACK, beams.beam(leaf, DocumentSchema.VECTOR, FALLBACK));
            assertTrue(beams.awaitIdle(TIMEOUT_MILLIS));
            assertEquals(OptionalInt.empty(), beams.known(leaf), "a small segment was calibrated");
        }
    }

    private static float[][] vectors(int n, int dim) {
        Random random = new Random(n * 31L + dim);
        float[][] vectors = new float[n][];
        for (int i = 0; i < n; i++) {
            vectors[i] = unitVector(random, dim);
        }
        return vectors;
    }
}
