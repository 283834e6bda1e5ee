import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;

/**
 * Recall@10 and latency of the long-term memory's vector query on an index as a write stream
 * leaves it, several segments, against an exact scan of the same index: what HotKeyStream's run
 * folder holds once its stream has ended (its last commit, read as is, so no fold runs). The
 * queries are the first 200 of HotKeyStream's; the arguments after the folder are the beams
 * (candidates) to measure. A hit counts when its similarity reaches the exact 10th best
 * (the stream repeats the built vectors, so ids of equal vectors tie). The query class is the
 * operator's own, package-private, so it is reached by reflection.
 *
 * <pre>
 * # CP as in HotKeyStream's header; run it against two jars, alternating, to compare them
 * javac -cp $CP -d java_udf/target/hot-key-stream benchmarks/java/SegmentRecall.java benchmarks/java/BenchVectors.java
 * java -cp $CP:java_udf/target/hot-key-stream SegmentRecall DIR/run/kg-0 100 40
 * </pre>
 */
public final class SegmentRecall {

    private static final int DIM = 384;
    private static final int QUERIES = 200;
    private static final int K = 10;
    private static final String FIELD = "vector";
    private static final Method CREATE = queryFactory();

    public static void main(String[] args) throws Exception {
        Random random = new Random(11);
        float[][] centres = BenchVectors.centres(random, DIM);
        float[][] queries = new float[QUERIES][];
        for (int i = 0; i < QUERIES; i++) {
            queries[i] = BenchVectors.clustered(random, centres);
        }
        try (FSDirectory dir = FSDirectory.open(Path.of(args[0])); DirectoryReader reader = DirectoryReader.open(dir)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            System.out.println(reader.leaves().size() + " segments, " + reader.numDocs() + " documents");
            float[] tenth = new float[QUERIES];
            for (int q = 0; q < QUERIES; q++) {
                tenth[q] = exactTenth(reader, queries[q]);
            }
            for (int a = 1; a < args.length; a++) {
                int beam = Integer.parseInt(args[a]);
                for (int pass = 0; pass < 3; pass++) {  // untimed: the JIT compiles the search path
                    search(searcher, queries, beam, tenth, null);
                }
                long[] nanos = new long[QUERIES];
                double recall = search(searcher, queries, beam, tenth, nanos);
                Arrays.sort(nanos);
                System.out.printf("beam %d: recall@%d %.4f, p50 / p95 %.2f / %.2f ms%n", beam, K, recall,
                        nanos[QUERIES / 2] / 1e6, nanos[QUERIES * 95 / 100] / 1e6);
            }
        }
    }

    private static double search(IndexSearcher searcher, float[][] queries, int beam, float[] tenth, long[] nanos)
            throws Exception {
        int found = 0;
        for (int q = 0; q < queries.length; q++) {
            long t = System.nanoTime();
            Query query = (Query) CREATE.invoke(null, searcher.getIndexReader(), FIELD, queries[q], beam, K, null);
            TopDocs top = searcher.search(query, K);
            if (nanos != null) {
                nanos[q] = System.nanoTime() - t;
            }
            for (ScoreDoc hit : top.scoreDocs) {
                found += hit.score >= tenth[q] - 1e-6f ? 1 : 0;
            }
        }
        return found / (double) (queries.length * K);
    }

    /** The 10th best score of {@code query} over every live vector, as Lucene scores it. */
    private static float exactTenth(DirectoryReader reader, float[] query) throws Exception {
        float[] best = new float[K];
        Arrays.fill(best, Float.NEGATIVE_INFINITY);
        for (LeafReaderContext leaf : reader.leaves()) {
            FloatVectorValues values = leaf.reader().getFloatVectorValues(FIELD);
            Bits live = leaf.reader().getLiveDocs();
            for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
                if (live != null && !live.get(doc)) {
                    continue;
                }
                float score = VectorSimilarityFunction.DOT_PRODUCT.compare(query, values.vectorValue());
                if (score > best[0]) {
                    best[0] = score;
                    Arrays.sort(best);
                }
            }
        }
        return best[0];
    }

    private static Method queryFactory() {
        try {
            Method create = Class.forName("io.flinkagentsmemory.index.SegmentScaledKnnQuery").getDeclaredMethod(
                    "create", IndexReader.class, String.class, float[].class, int.class, int.class, Query.class);
            create.setAccessible(true);
            return create;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
