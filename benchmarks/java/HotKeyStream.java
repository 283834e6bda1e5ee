import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

import io.flinkagentsmemory.index.LongTermMemoryStore;
import io.flinkagentsmemory.index.SettableCurrentKey;
import io.flinkagentsmemory.index.SubtaskMemoryIndexes;

/**
 * bench_ltm_writes' one-key stream in a bare JVM, to compare operator jars side by side without
 * py4j: a settled index of {@code items} clustered 384-dim memories under one key, built once
 * ({@code build}), is copied for each run, searched settled, then searched while 10 memories are
 * added every 50 ms (200/s) and the index is committed every 10 s; the first search after each
 * add (which makes the add visible) is reported apart from the others, and each commit prints the
 * committed segments and the other searches since the one before (whether they slow down as the
 * stream goes on). Searches take the queries in turn. docs/long_term_memory.md quotes runs.
 *
 * <pre>
 * make jar
 * CP=java_udf/target/flink-agents-memory-java-0.1.0.jar:$(ls .venv/lib/python3.11/site-packages/pyflink/lib/flink-dist-*.jar)
 * javac -cp $CP -d java_udf/target/hot-key-stream benchmarks/java/HotKeyStream.java benchmarks/java/BenchVectors.java
 * java -cp $CP:java_udf/target/hot-key-stream HotKeyStream build DIR 100000
 * java -cp $CP:java_udf/target/hot-key-stream HotKeyStream run DIR 30   # per jar, alternating
 * </pre>
 *
 * DIR is any scratch folder (the settled index is built into DIR/base, each run copies it to DIR/run).
 */
public final class HotKeyStream {

    private static final int DIM = 384;
    private static final int QUERIES = 500;
    private static final int PER_TICK = 10;
    private static final long TICK_NANOS = 50_000_000L;
    private static final long COMMIT_NANOS = 10_000_000_000L;
    private static final long QUIET_MILLIS = 5_500;
    private static final String KEY = "k0";
    private static final String OPTIONS = "{\"mode\":\"vector\",\"limit\":10,\"filters\":{},\"now\":0}";

    public static void main(String[] args) throws Exception {
        Path base = Path.of(args[1]).resolve("base");
        Random random = new Random(11);
        float[][] centres = BenchVectors.centres(random, DIM);
        byte[][] queries = Arrays.stream(vectors(random, centres, QUERIES))
                .map(q -> bytes(new float[][] {q})).toArray(byte[][]::new);
        if (args[0].equals("build")) {
            int items = Integer.parseInt(args[2]);
            delete(base);
            try (SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(base)) {
                LongTermMemoryStore store = store(indexes);
                for (int from = 0; from < items; from += 2000) {
                    store.addBatch(json(from, 2000), bytes(vectors(random, centres, 2000)));
                }
                indexes.commitAll();
                Thread.sleep(QUIET_MILLIS);  // a quiet index folds its segments into one
                store.awaitMerges();
                indexes.commitAll();
                System.out.println("built: " + indexes.segmentCount() + " segment(s)");
            }
            return;
        }
        double seconds = Double.parseDouble(args[2]);
        Path run = Path.of(args[1]).resolve("run");
        delete(run);
        copy(base, run);
        try (SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(run)) {
            LongTermMemoryStore store = store(indexes);
            for (int pass = 0; pass < 3; pass++) {  // untimed: the JIT compiles the search path
                searchAll(store, queries);
            }
            System.out.println("settled       " + percentiles(searchAll(store, queries)));
            long[] adds = new long[(int) (seconds * 25)];
            long[] first = new long[adds.length];
            long[] rest = new long[(int) (seconds * 2000)];
            int firsts = 0;
            int rests = 0;
            int added = 0;
            int query = 0;  // every search takes the next query: repeating a few would keep their graph paths cached
            int restsAtCommit = 0;
            long start = System.nanoTime();
            long nextCommit = start + COMMIT_NANOS;
            for (int tick = 0; System.nanoTime() - start < seconds * 1e9; tick++) {
                long deadline = start + (tick + 1) * TICK_NANOS;
                String docs = json(1_000_000 + added, PER_TICK);
                byte[] vectors = bytes(vectors(random, centres, PER_TICK));
                long t = System.nanoTime();
                store.addBatch(docs, vectors);
                adds[tick] = System.nanoTime() - t;
                added += PER_TICK;
                first[firsts++] = timedSearch(store, queries[query++ % QUERIES]);
                while (System.nanoTime() < deadline && rests < rest.length) {
                    rest[rests++] = timedSearch(store, queries[query++ % QUERIES]);
                }
                if (System.nanoTime() >= nextCommit) {
                    indexes.commitAll();
                    System.out.printf("at %.0f s: segments of %s; other searches since the last commit %s%n",
                            (System.nanoTime() - start) / 1e9, committedSegments(run),
                            percentiles(Arrays.copyOfRange(rest, restsAtCommit, rests)));
                    restsAtCommit = rests;
                    nextCommit += COMMIT_NANOS;
                }
            }
            System.out.println("add of " + PER_TICK + "    " + percentiles(Arrays.copyOf(adds, firsts)));
            System.out.println("first search after an add " + percentiles(Arrays.copyOf(first, firsts)));
            System.out.println("other searches " + percentiles(Arrays.copyOf(rest, rests)));
            long[] all = Arrays.copyOf(first, firsts + rests);
            System.arraycopy(rest, 0, all, firsts, rests);
            System.out.println("all searches  " + percentiles(all));
            indexes.commitAll();
            System.out.println("left " + indexes.segmentCount() + " segments: " + percentiles(searchAll(store, queries)));
        }
    }

    /** The document counts of the segments the last commit of the run's one index holds. */
    private static String committedSegments(Path run) throws Exception {
        try (Directory dir = FSDirectory.open(run.resolve("kg-0")); DirectoryReader reader = DirectoryReader.open(dir)) {
            StringBuilder out = new StringBuilder();
            for (LeafReaderContext leaf : reader.leaves()) {
                out.append(out.length() == 0 ? "" : " ").append(leaf.reader().maxDoc());
            }
            return out.toString();
        }
    }

    private static LongTermMemoryStore store(SubtaskMemoryIndexes indexes) {
        SettableCurrentKey key = new SettableCurrentKey();
        key.set(KEY, 0);
        return new LongTermMemoryStore(indexes, key);
    }

    private static long timedSearch(LongTermMemoryStore store, byte[] query) throws Exception {
        long t = System.nanoTime();
        store.search("", query, OPTIONS);
        return System.nanoTime() - t;
    }

    private static long[] searchAll(LongTermMemoryStore store, byte[][] queries) throws Exception {
        long[] out = new long[queries.length];
        for (int i = 0; i < queries.length; i++) {
            out[i] = timedSearch(store, queries[i]);
        }
        return out;
    }

    private static float[][] vectors(Random random, float[][] centres, int n) {
        float[][] out = new float[n][];
        for (int i = 0; i < n; i++) {
            out[i] = BenchVectors.clustered(random, centres);
        }
        return out;
    }

    /** A JSON array of {@code n} memory documents with ids from {@code from}. */
    private static String json(int from, int n) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            out.append(i == 0 ? "" : ",").append("{\"id\":\"").append(from + i).append("\",\"memory\":\"#")
                    .append(from + i).append("\",\"metadata\":{},\"created_at\":\"2026-01-01T00:00:00.000Z\","
                            + "\"updated_at\":\"2026-01-01T00:00:00.000Z\",\"expires_at\":null}");
        }
        return out.append(']').toString();
    }

    private static byte[] bytes(float[][] vectors) {
        ByteBuffer out = ByteBuffer.allocate(vectors.length * DIM * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float[] v : vectors) {
            for (float x : v) {
                out.putFloat(x);
            }
        }
        return out.array();
    }

    private static String percentiles(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return String.format("p50 / p95 / p99 %.2f / %.2f / %.2f ms (%d searches)", at(sorted, 50), at(sorted, 95),
                at(sorted, 99), sorted.length);
    }

    private static double at(long[] sorted, int percentile) {
        return sorted[Math.min(sorted.length - 1, sorted.length * percentile / 100)] / 1e6;
    }

    private static void copy(Path from, Path to) throws Exception {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Files.copy(p, to.resolve(from.relativize(p).toString()));
            }
        }
    }

    private static void delete(Path dir) throws Exception {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }
}
