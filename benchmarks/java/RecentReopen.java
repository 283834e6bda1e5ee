package io.flinkagentsmemory.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.apache.lucene.analysis.standard.StandardAnalyzer;

/**
 * What making an add of 10 memories visible costs in the index of recent documents
 * ({@link RecentDocuments}): batches of 10 text memories with 384-dim vectors are added and the
 * reader reopened after each, as the first search after an add does, until 1,000 are held, then
 * cleared, as a reopen of the main reader does; the last two thirds of {@code rounds} reopens are
 * reported. In the operator's package, since that index is not public. Alternate jars to compare
 * them; docs/long_term_memory.md quotes runs.
 *
 * <pre>
 * make jar
 * CP=java_udf/target/flink-agents-memory-java-0.1.0.jar:$(ls .venv/lib/python3.11/site-packages/pyflink/lib/flink-dist-*.jar)
 * javac --add-modules jdk.incubator.vector -cp $CP -d java_udf/target/recent-reopen benchmarks/java/RecentReopen.java
 * java --add-modules=jdk.incubator.vector -cp java_udf/target/recent-reopen:$CP io.flinkagentsmemory.index.RecentReopen 8000
 * </pre>
 */
public final class RecentReopen {

    private static final String[] WORDS = ("the user said that they like hiking in the mountains and coffee every "
            + "morning before work with friends on weekend trips to lakes").split(" ");

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        Random random = new Random(1);
        long[] reopens = new long[rounds];
        int id = 0;
        try (RecentDocuments recent = new RecentDocuments(new StandardAnalyzer(), System::nanoTime)) {
            for (int round = 0; round < rounds; round++) {
                if (recent.size() >= RefreshingSearchers.MAX_RECENT) {
                    recent.clear();
                }
                List<MemoryDocument> docs = new ArrayList<>();
                for (int j = 0; j < 10; j++, id++) {
                    docs.add(new MemoryDocument("m" + id, "k0", 3, text(random), vector(random),
                            "{\"topic\":\"t" + j % 3 + "\"}", "h" + id, "2026-12-06T00:00:00Z", null, -1L));
                }
                recent.add(docs);
                long start = System.nanoTime();
                recent.reader();
                reopens[round] = System.nanoTime() - start;
            }
        }
        long[] timed = Arrays.copyOfRange(reopens, rounds / 3, rounds);
        Arrays.sort(timed);
        System.out.printf("reopen after an add of 10: p50 %.3f / p95 %.3f / p99 %.3f ms (%d reopens)%n",
                at(timed, 50), at(timed, 95), at(timed, 99), timed.length);
    }

    private static String text(Random random) {
        StringBuilder out = new StringBuilder();
        for (int w = 0; w < 20; w++) {
            out.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
        }
        return out.toString();
    }

    private static float[] vector(Random random) {
        float[] v = new float[384];
        for (int d = 0; d < v.length; d++) {
            v[d] = (float) random.nextGaussian();
        }
        return v;
    }

    private static double at(long[] sorted, int percentile) {
        return sorted[Math.min(sorted.length - 1, sorted.length * percentile / 100)] / 1e6;
    }
}
