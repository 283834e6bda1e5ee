import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.TopKnnCollector;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

import io.flinkagentsmemory.index.BeamCalibration;

/**
 * Why the HNSW graph keeps Lucene's default density: build time, index bytes, and recall@10
 * and latency per search beam, of one-segment indexes built with {@code M} links per node and a
 * build beam of {@code B}. Two data sets: uniformly random 64-dim unit vectors (HNSW's hard case,
 * VectorRecallTest's) and bench_ltm's 384-dim clustered unit vectors (1,000 random centres,
 * noise 0.05 per dimension), or 384-dim rows from a file of little-endian float32 ({@code file:PATH},
 * n + 500 rows, the last 500 the queries: {@code python -m benchmarks.text_shaped --write PATH
 * --count N} writes text-shaped ones, {@code --real} the real turns and 500 of their questions).
 * Search beams 100, 150 and 200, or those of an optional fifth argument ({@code 100,200,400}).
 * It also prints the beam {@code BeamCalibration} picks with the first 64 queries as its sample,
 * to read against the recall of all 500. Outside Flink, one thread. docs/long_term_memory.md
 * quotes runs.
 *
 * <pre>
 * make jar
 * CP=java_udf/target/flink-agents-memory-java-0.1.0.jar:$(ls .venv/lib/python3.11/site-packages/pyflink/lib/flink-dist-*.jar)
 * javac -cp $CP -d java_udf/target/graph-density \
 *     benchmarks/java/GraphDensity.java benchmarks/java/BenchVectors.java benchmarks/java/OneSegmentIndex.java
 * java -cp $CP:java_udf/target/graph-density GraphDensity uniform64 20000 16 100
 * java -cp $CP:java_udf/target/graph-density GraphDensity clustered384 100000 32 200
 * python -m benchmarks.text_shaped --write java_udf/target/real-turns.f32 --real
 * java -cp $CP:java_udf/target/graph-density GraphDensity file:java_udf/target/real-turns.f32 14826 16 100
 * python -m benchmarks.text_shaped --write java_udf/target/text-shaped.f32 --count 100500
 * java -cp $CP:java_udf/target/graph-density GraphDensity file:java_udf/target/text-shaped.f32 100000 32 200
 * python -m benchmarks.text_shaped --write java_udf/target/text-shaped-300k.f32 --count 300500
 * java -Xmx4g -cp $CP:java_udf/target/graph-density GraphDensity \
 *     file:java_udf/target/text-shaped-300k.f32 300000 32 200 100,200,400,800
 * </pre>
 * The flink-dist jar is on the class path for the logging API the operator's classes use (its
 * SIMD dot product logs which implementation it picked).
 */
public final class GraphDensity {

    private static final int QUERIES = 500;
    private static final int K = 10;
    private static final int[] DEFAULT_BEAMS = {100, 150, 200};

    public static void main(String[] args) throws Exception {
        String data = args[0];
        int n = Integer.parseInt(args[1]);
        int m = Integer.parseInt(args[2]);
        int buildBeam = Integer.parseInt(args[3]);
        int[] beams = args.length > 4
                ? Arrays.stream(args[4].split(",")).mapToInt(Integer::parseInt).toArray()
                : DEFAULT_BEAMS;
        float[][] vectors;
        float[][] queries;
        if (data.startsWith("file:")) {
            float[][] rows = BenchVectors.fromFile(Path.of(data.substring(5)), n + QUERIES, 384);
            vectors = Arrays.copyOf(rows, n);
            queries = Arrays.copyOfRange(rows, n, n + QUERIES);
        } else {
            boolean clustered = data.equals("clustered384");
            int dim = clustered ? 384 : 64;
            Random random = new Random(7);
            float[][] centres = BenchVectors.centres(random, dim);
            vectors = new float[n][];
            for (int i = 0; i < n; i++) {
                vectors[i] = clustered ? BenchVectors.clustered(random, centres) : BenchVectors.uniform(random, dim);
            }
            queries = new float[QUERIES][];
            for (int i = 0; i < QUERIES; i++) {
                queries[i] = clustered ? BenchVectors.clustered(random, centres) : BenchVectors.uniform(random, dim);
            }
        }
        Path dir = Files.createTempDirectory("graph-density");
        double buildSeconds = OneSegmentIndex.build(dir, new Lucene99HnswVectorsFormat(m, buildBeam), vectors, 2048);
        long bytes = OneSegmentIndex.bytes(dir);
        int[][] exact = new int[QUERIES][];
        for (int q = 0; q < QUERIES; q++) {
            exact[q] = exactTop(vectors, queries[q]);
        }
        try (Directory d = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(d)) {
            LeafReader leaf = reader.leaves().get(0).reader();
            long calibrationStart = System.nanoTime();
            int calibrated = BeamCalibration.calibrate(leaf, "v", Arrays.copyOf(queries, BeamCalibration.SAMPLE));
            System.out.printf("%s n=%d M=%d build-beam=%d | calibrated beam %d (%.2f s)%n", data, n, m, buildBeam,
                    calibrated, (System.nanoTime() - calibrationStart) / 1e9);
            for (int beam : beams) {
                long[] nanos = new long[QUERIES];
                long visited = 0;
                int found = 0;
                for (int rep = 0; rep < 3; rep++) { // the last of 3 passes: the first ones warm the JIT up
                    visited = 0;
                    found = 0;
                    for (int q = 0; q < QUERIES; q++) {
                        long t = System.nanoTime();
                        TopKnnCollector collector = new TopKnnCollector(beam, Integer.MAX_VALUE);
                        leaf.searchNearestVectors("v", queries[q], collector, null);
                        var top = collector.topDocs();
                        nanos[q] = System.nanoTime() - t;
                        visited += collector.visitedCount();
                        for (int i = 0; i < Math.min(K, top.scoreDocs.length); i++) {
                            int doc = top.scoreDocs[i].doc;
                            for (int e : exact[q]) {
                                found += e == doc ? 1 : 0;
                            }
                        }
                    }
                }
                Arrays.sort(nanos);
                System.out.printf("%s n=%d M=%d build-beam=%d | built %.1f s, %d MiB | beam %d: recall@10 %.4f, "
                        + "visited %d, p50 %.2f ms, p95 %.2f ms%n", data, n, m, buildBeam, buildSeconds, bytes >> 20,
                        beam, found / (double) (QUERIES * K), visited / QUERIES, nanos[QUERIES / 2] / 1e6,
                        nanos[QUERIES * 95 / 100] / 1e6);
            }
        }
        OneSegmentIndex.delete(dir);
    }

    /** Doc ids of the K best dot products: documents were added in order, one segment. */
    private static int[] exactTop(float[][] vectors, float[] q) {
        int[] best = new int[K];
        float[] scores = new float[K];
        Arrays.fill(scores, Float.NEGATIVE_INFINITY);
        for (int i = 0; i < vectors.length; i++) {
            float s = 0;
            for (int j = 0; j < q.length; j++) {
                s += q[j] * vectors[i][j];
            }
            if (s > scores[K - 1]) {
                int p = K - 1;
                while (p > 0 && scores[p - 1] < s) {
                    scores[p] = scores[p - 1];
                    best[p] = best[p - 1];
                    p--;
                }
                scores[p] = s;
                best[p] = i;
            }
        }
        return best;
    }
}
