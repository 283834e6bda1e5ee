package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.dot;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HNSW (and Lucene's exact fallback under selective key filters) against brute force. */
class VectorRecallTest {

    private static final int DOCS = 20_000;
    private static final int DIM = 64;
    private static final int K = 10;
    private static final int QUERIES = 100;

    @TempDir
    Path dir;

    @Test
    void recallAtTenOneKey() throws Exception {
        double recall = recall(1, dir.resolve("one"));
        System.out.printf("VECTOR recall@%d, %d docs x %d dims, 1 key: %.4f%n", K, DOCS, DIM, recall);
        assertTrue(recall >= 0.95, "recall " + recall);
    }

    @Test
    void recallAtTenHundredKeys() throws Exception {
        double recall = recall(100, dir.resolve("hundred"));
        System.out.printf("VECTOR recall@%d, %d docs x %d dims, 100 keys: %.4f%n", K, DOCS, DIM, recall);
        assertTrue(recall >= 0.95, "recall " + recall);
    }

    private static double recall(int keys, Path path) throws Exception {
        Random random = new Random(1234 + keys);
        float[][] vectors = new float[DOCS][];
        try (KeyGroupIndex index = KeyGroupIndex.open(path, 0, KeyGroupIndex.DEFAULT_RAM_BUFFER_MB)) {
            List<MemoryDocument> batch = new ArrayList<>();
            for (int i = 0; i < DOCS; i++) {
                vectors[i] = unitVector(random, DIM);
                batch.add(new MemoryDocument("" + i, key(i, keys), 0, "m", vectors[i], "{}", null, null, null,
                        MemoryDocument.NEVER));
                if (batch.size() == 1000) {
                    index.addAll(batch);
                    batch.clear();
                }
            }
            double found = 0;
            for (int q = 0; q < QUERIES; q++) {
                float[] query = unitVector(random, DIM);
                String key = key(random.nextInt(DOCS), keys);
                Set<String> exact = new HashSet<>();
                IntStream.range(0, DOCS)
                        .filter(i -> key(i, keys).equals(key))
                        .boxed()
                        .sorted(Comparator.comparingDouble(i -> -dot(query, vectors[i])))
                        .limit(K)
                        .forEach(i -> exact.add("" + i));
                for (SearchHit h : index.search(key, null, query,
                        new SearchOptions(SearchOptions.Mode.VECTOR, K, null, null, 0))) {
                    if (exact.contains(h.document().id())) {
                        found++;
                    }
                }
            }
            return found / (QUERIES * K);
        }
    }

    private static String key(int doc, int keys) {
        return "k" + (doc % keys);
    }
}
