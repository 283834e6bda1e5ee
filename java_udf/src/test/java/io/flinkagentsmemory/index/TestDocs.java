package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

import org.apache.lucene.document.Document;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.store.Directory;

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

    /** The first {@code docs} of {@code vectors} in one segment of {@code dir}, as the index's vector field. */
    public static DirectoryReader oneSegment(Directory dir, float[][] vectors, int docs) throws IOException {
        try (IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig().setRAMBufferSizeMB(256))) {
            for (int i = 0; i < docs; i++) {
                Document doc = new Document();
                doc.add(new KnnFloatVectorField(DocumentSchema.VECTOR, vectors[i], VectorSimilarityFunction.DOT_PRODUCT));
                writer.addDocument(doc);
            }
            writer.forceMerge(1);
        }
        return DirectoryReader.open(dir);
    }
}
