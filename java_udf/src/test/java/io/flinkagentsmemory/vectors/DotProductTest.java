package io.flinkagentsmemory.vectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;

class DotProductTest {

    /** Surefire starts the tests' JVM with the module, as the TaskManagers are (pom.xml). */
    @Test
    void aJvmWithTheVectorModuleUsesSimd() {
        assertTrue(DotProduct.vectorised());
    }

    /** Every length up to past two full AVX-512 lane pairs, so each loop and the tail run. */
    @Test
    void simdAgreesWithLuceneAtEveryLength() {
        Random random = new Random(7);
        for (int length = 1; length <= 70; length++) {
            assertAgree(random, length);
        }
        assertAgree(random, 384);
        assertAgree(random, 1024);
    }

    @Test
    void vectorsOfDifferentLengthsAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DotProduct.dotProduct(new float[3], new float[4]));
        assertEquals("vector dimensions differ: 3 != 4", e.getMessage());
    }

    private static void assertAgree(Random random, int length) {
        float[] a = random(random, length);
        float[] b = random(random, length);
        float expected = VectorUtil.dotProduct(a, b);
        assertEquals(expected, PanamaDotProduct.dotProduct(a, b), 1e-4f * Math.max(1, length), "length " + length);
        assertEquals(expected, DotProduct.dotProduct(a, b), 1e-4f * Math.max(1, length), "length " + length);
    }

    static float[] random(Random random, int length) {
        float[] v = new float[length];
        for (int i = 0; i < length; i++) {
            v[i] = random.nextFloat() * 2 - 1;
        }
        return v;
    }
}
