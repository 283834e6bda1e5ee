package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.dot;
import static io.flinkagentsmemory.index.TestDocs.oneSegment;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;

/**
 * The calibrated beam, from 64 queries, against 100 other queries drawn the same way: on hard
 * data (uniformly random 64-dim vectors) it widens the beam and the wider beam holds recall, on
 * easy data (tight clusters) it keeps the narrowest beam, which then finds the exact top 10.
 */
class BeamCalibrationTest {

    private static final int DOCS = 10_000;
    private static final int DIM = 64;
    private static final int SAMPLE = BeamCalibration.SAMPLE;
    private static final int QUERIES = 100;
    private static final int K = 10;

    @Test
    void hardVectorsGetAWiderBeamThatHoldsRecall() throws IOException {
        Random random = new Random(11);
        float[][] vectors = new float[DOCS + SAMPLE + QUERIES][];
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = unitVector(random, DIM);
        }
        try (Directory dir = new ByteBuffersDirectory(); DirectoryReader reader = oneSegment(dir, vectors, DOCS)) {
            LeafReader leaf = reader.leaves().get(0).reader();
            int beam = BeamCalibration.calibrate(leaf, DocumentSchema.VECTOR, sample(vectors));
            double atBeam = heldOutRecall(leaf, vectors, beam);
            double narrowest = heldOutRecall(leaf, vectors, BeamCalibration.LADDER[0]);
            System.out.printf("uniform %d-dim: calibrated beam %d, held-out recall@10 %.3f (%.3f at %d)%n",
                    DIM, beam, atBeam, narrowest, BeamCalibration.LADDER[0]);
            assertTrue(beam > BeamCalibration.LADDER[0], "beam " + beam);
            assertTrue(narrowest < BeamCalibration.TARGET_RECALL, "the narrowest beam was enough: " + narrowest);
            assertTrue(atBeam >= 0.95, "recall " + atBeam + " at the calibrated beam " + beam);
        }
    }

    @Test
    void easyVectorsKeepTheNarrowestBeam() throws IOException {
        Random random = new Random(12);
        float[][] centres = new float[50][];
        for (int c = 0; c < centres.length; c++) {
            centres[c] = unitVector(random, DIM);
        }
        float[][] vectors = new float[DOCS + SAMPLE + QUERIES][];
        for (int i = 0; i < vectors.length; i++) {
            float[] noise = unitVector(random, DIM);
            float[] v = centres[random.nextInt(centres.length)].clone();
            for (int d = 0; d < DIM; d++) {
                v[d] += 0.3f * noise[d];
            }
            vectors[i] = normalised(v);
        }
        try (Directory dir = new ByteBuffersDirectory(); DirectoryReader reader = oneSegment(dir, vectors, DOCS)) {
            LeafReader leaf = reader.leaves().get(0).reader();
            int beam = BeamCalibration.calibrate(leaf, DocumentSchema.VECTOR, sample(vectors));
            double recall = heldOutRecall(leaf, vectors, beam);
            System.out.printf("clustered %d-dim: calibrated beam %d, held-out recall@10 %.3f%n", DIM, beam, recall);
            assertEquals(BeamCalibration.LADDER[0], beam);
            assertTrue(recall >= BeamCalibration.TARGET_RECALL, "recall " + recall);
        }
    }

    /** The calibration's queries: the SAMPLE vectors after the indexed ones. */
    private static float[][] sample(float[][] vectors) {
        return Arrays.copyOfRange(vectors, DOCS, DOCS + SAMPLE);
    }

    /** Recall@10 of graph searches at {@code beam} for the QUERIES vectors after the sample. */
    private static double heldOutRecall(LeafReader leaf, float[][] vectors, int beam) throws IOException {
        float[][] queries = Arrays.copyOfRange(vectors, DOCS + SAMPLE, DOCS + SAMPLE + QUERIES);
        int[][] exact = new int[QUERIES][];
        for (int q = 0; q < QUERIES; q++) {
            float[] query = queries[q];
            exact[q] = IntStream.range(0, DOCS).boxed()
                    .sorted(Comparator.comparingDouble(i -> -dot(query, vectors[i])))
                    .limit(K).mapToInt(Integer::intValue).toArray();
        }
        return BeamCalibration.recall(leaf, DocumentSchema.VECTOR, beam, queries, exact);
    }

    private static float[] normalised(float[] v) {
        double norm = Math.sqrt(dot(v, v));
        for (int d = 0; d < v.length; d++) {
            v[d] /= (float) norm;
        }
        return v;
    }
}
