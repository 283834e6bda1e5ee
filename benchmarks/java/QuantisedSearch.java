import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * Why the index stores float32 vectors and not int8 ones: HNSW search latency and index bytes of
 * Lucene's float format against its scalar-quantised one, on bench_ltm's kind of data (384-dim
 * unit vectors around 1,000 random centres, noise 0.05 per dimension), one segment, outside Flink.
 * Latency only: it does not measure recall. docs/architecture.md quotes a run.
 *
 * <pre>
 * make jar
 * javac -cp java_udf/target/flink-agents-memory-java-0.1.0.jar -d java_udf/target/quantised-search \
 *     benchmarks/java/QuantisedSearch.java benchmarks/java/BenchVectors.java benchmarks/java/OneSegmentIndex.java
 * java -cp java_udf/target/flink-agents-memory-java-0.1.0.jar:java_udf/target/quantised-search QuantisedSearch 100000 int8   # or float
 * </pre>
 */
public final class QuantisedSearch {

    private static final int DIM = 384;
    private static final int QUERIES = 1000;

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        boolean int8 = args[1].equals("int8");
        Random random = new Random(7);
        float[][] centres = BenchVectors.centres(random, DIM);
        float[][] vectors = new float[n][];
        for (int i = 0; i < n; i++) {
            vectors[i] = BenchVectors.clustered(random, centres);
        }
        KnnVectorsFormat format = int8 ? new Lucene99HnswScalarQuantizedVectorsFormat() : new Lucene99HnswVectorsFormat();
        Path dir = Files.createTempDirectory("quantised-search");
        double buildSeconds = OneSegmentIndex.build(dir, format, vectors, 64);
        long bytes = OneSegmentIndex.bytes(dir);
        float[][] queries = new float[QUERIES][];
        for (int i = 0; i < QUERIES; i++) {
            queries[i] = BenchVectors.clustered(random, centres);
        }
        try (Directory d = FSDirectory.open(dir); DirectoryReader reader = DirectoryReader.open(d)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            for (int beam : new int[] {100, 150, 200}) {
                long[] nanos = new long[QUERIES];
                for (int rep = 0; rep < 3; rep++) { // the last of 3 passes: the first ones warm the JIT up
                    for (int i = 0; i < QUERIES; i++) {
                        long t = System.nanoTime();
                        searcher.search(new KnnFloatVectorQuery("v", queries[i], beam), 10);
                        nanos[i] = System.nanoTime() - t;
                    }
                }
                Arrays.sort(nanos);
                System.out.printf("%s, %d vectors, beam %d: search p50 %.2f ms, p95 %.2f ms (built in %.0f s, index %d MiB)%n",
                        int8 ? "int8" : "float32", n, beam, nanos[QUERIES / 2] / 1e6, nanos[QUERIES * 95 / 100] / 1e6,
                        buildSeconds, bytes >> 20);
            }
        } finally {
            OneSegmentIndex.delete(dir);
        }
    }
}
