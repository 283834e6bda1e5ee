import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.TopKnnCollector;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

import io.flinkagentsmemory.vectors.DotProduct;
import io.flinkagentsmemory.vectors.MemoryVectorsFormat;

/**
 * Why SegmentScaledKnnQuery scans a segment that is small for its beam: per segment size, the
 * time of an HNSW search with the beam that query gives it (its square-root share of
 * {@code candidates}, at least 10, beside a largest segment of {@code largest} vectors) against
 * reading every vector in order, on bench_ltm's 384-dim clustered vectors (the sizes are those a
 * write stream leaves: one reopen's flush, ten merged). One segment each, outside Flink, one thread.
 * docs/long_term_memory.md quotes a run.
 *
 * <pre>
 * make jar
 * CP=java_udf/target/flink-agents-memory-java-0.1.0.jar:$(ls .venv/lib/python3.11/site-packages/pyflink/lib/flink-dist-*.jar)
 * javac --add-modules jdk.incubator.vector -cp $CP -d java_udf/target/small-segment-scan \
 *     benchmarks/java/SmallSegmentScan.java benchmarks/java/BenchVectors.java benchmarks/java/OneSegmentIndex.java
 * java --add-modules=jdk.incubator.vector -cp $CP:java_udf/target/small-segment-scan SmallSegmentScan 200 100000
 * java -cp $CP:java_udf/target/small-segment-scan SmallSegmentScan 200 100000   # Lucene's scalar dot product
 * </pre>
 */
public final class SmallSegmentScan {

    private static final int QUERIES = 500;
    private static final int LIMIT = 10;
    private static final int[] SIZES = {90, 210, 300, 1_000, 2_000, 5_000};

    public static void main(String[] args) throws Exception {
        int candidates = Integer.parseInt(args[0]);
        int largest = Integer.parseInt(args[1]);
        Random random = new Random(7);
        float[][] centres = BenchVectors.centres(random, 384);
        float[][] queries = new float[QUERIES][];
        for (int q = 0; q < QUERIES; q++) {
            queries[q] = BenchVectors.clustered(random, centres);
        }
        for (int size : SIZES) {
            float[][] vectors = new float[size][];
            for (int i = 0; i < size; i++) {
                vectors[i] = BenchVectors.clustered(random, centres);
            }
            Path dir = Files.createTempDirectory("small-segment-scan");
            OneSegmentIndex.build(dir, new MemoryVectorsFormat(), vectors, 256);
            int beam = Math.max(LIMIT, Math.min(candidates, (int) Math.ceil(candidates * Math.sqrt((double) size / largest))));
            try (Directory d = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(d)) {
                LeafReader leaf = reader.leaves().get(0).reader();
                long graphNanos = 0;
                long scanNanos = 0;
                long visited = 0;
                for (int rep = 0; rep < 3; rep++) { // the last of 3 passes: the first ones warm the JIT up
                    graphNanos = 0;
                    scanNanos = 0;
                    visited = 0;
                    for (float[] query : queries) {
                        long t = System.nanoTime();
                        TopKnnCollector collector = new TopKnnCollector(beam, Integer.MAX_VALUE);
                        leaf.searchNearestVectors("v", query, collector, null);
                        collector.topDocs();
                        graphNanos += System.nanoTime() - t;
                        visited += collector.visitedCount();
                        t = System.nanoTime();
                        scan(leaf, query, beam);
                        scanNanos += System.nanoTime() - t;
                    }
                }
                System.out.printf("%,d vectors, beam %d: graph %.1f us (%d visited, %.2f us each), scan %.1f us "
                        + "(%.2f us a vector), %d vectors per beam slot%n", size, beam, graphNanos / 1e3 / QUERIES,
                        visited / QUERIES, graphNanos / (double) visited / 1e3, scanNanos / 1e3 / QUERIES,
                        scanNanos / 1e3 / QUERIES / size, size / beam);
            } finally {
                OneSegmentIndex.delete(dir);
            }
        }
    }

    /** The best {@code k} scores by reading every vector, as Lucene's exact search does. */
    private static float scan(LeafReader leaf, float[] query, int k) throws Exception {
        FloatVectorValues values = leaf.getFloatVectorValues("v");
        TopKnnCollector collector = new TopKnnCollector(k, Integer.MAX_VALUE);
        for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
            collector.collect(doc, DotProduct.dotProduct(query, values.vectorValue()));
        }
        return collector.minCompetitiveSimilarity();
    }
}
