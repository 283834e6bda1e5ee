package io.flinkagentsmemory.index;

import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

/** Random unit vectors and small documents for tests. */
public final class TestDocs {

    private TestDocs() {}

    public static float[] unitVector(Random random, int dim) {
        float[] v = new float[dim];
        double norm = 0;
        for (int i = 0; i < dim; i++) {
            v[i] = (float) random.nextGaussian();
            norm += v[i] * v[i];
        }
        float inv = (float) (1 / Math.sqrt(norm));
        for (int i = 0; i < dim; i++) {
            v[i] *= inv;
        }
        return v;
    }

    public static float dot(float[] a, float[] b) {
        float s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    /**
     * The ids of the {@code k} vectors nearest {@code query} (largest dot product) among those
     * {@code included}, nearest first; a vector's id is its index as text.
     */
    public static List<String> exactTop(float[][] vectors, float[] query, int k, IntPredicate included) {
        return IntStream.range(0, vectors.length)
                .filter(included)
                .boxed()
                .sorted(Comparator.comparingDouble(i -> -dot(query, vectors[i])))
                .limit(k)
                .map(i -> "" + i)
                .toList();
    }

    public static MemoryDocument doc(String id, String key, int keyGroup, String memory, float[] vector) {
        return doc(id, key, keyGroup, memory, vector, "{}", MemoryDocument.NEVER, "2024-01-01T00:00:00+00:00");
    }

    public static MemoryDocument doc(String id, String key, int keyGroup, String memory, float[] vector,
            String metadataJson, long expiresAt, String createdAt) {
        return new MemoryDocument(id, key, keyGroup, memory, vector, metadataJson, "h-" + id, createdAt, createdAt, expiresAt);
    }
}
