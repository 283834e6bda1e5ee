package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calibrated beam of each large segment ({@link BeamCalibration}), computed off the task
 * thread from the job's recent queries and kept while the segment is open.
 *
 * <p>Every search that asks for no beam records its query vector ({@link #recordQuery}) and asks
 * for its largest segment's beam. Once {@link BeamCalibration#SAMPLE} queries of the segment's
 * dimension have been recorded since the segment was first asked about, the next ask starts the
 * calibration in a background thread with those queries; until it is done (~1 s at 100k
 * vectors) searches get the default beam: a search never waits for it. Queries from before the
 * segment existed are never its sample: they may be another data set's (a JVM that ran other
 * indexes), and would say little about this one. A segment is immutable, so its beam holds
 * for its life; its entries go when Lucene closes the segment's core. The thread exits when
 * idle, so nothing outlives a job that no longer searches.
 */
final class CalibratedBeams {

    private static final Logger LOG = LoggerFactory.getLogger(CalibratedBeams.class);

    /** One per JVM: segments are told apart by their core, whichever index holds them. */
    static final CalibratedBeams SHARED = new CalibratedBeams();

    private final Map<IndexReader.CacheKey, Integer> beams = new ConcurrentHashMap<>();
    private final Set<IndexReader.CacheKey> pending = ConcurrentHashMap.newKeySet();
    /** Queries recorded (of the segment's dimension) when each uncalibrated segment was first asked about. */
    private final Map<IndexReader.CacheKey, Long> firstAsked = new ConcurrentHashMap<>();
    /** The latest queries, per vector dimension: the calibration's sample. */
    private final Map<Integer, RecentQueries> queries = new ConcurrentHashMap<>();
    private final ExecutorService calibrations = new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), task -> {
                Thread thread = new Thread(task, "flink-agents-memory-beam-calibration");
                thread.setDaemon(true);
                return thread;
            });

    /**
     * Keeps a copy of {@code query} among the latest {@link BeamCalibration#SAMPLE} of its
     * dimension while a segment waits for its sample; otherwise nothing (only queries after a
     * segment's first ask count, so a search of calibrated segments copies nothing).
     */
    void recordQuery(float[] query) {
        if (firstAsked.isEmpty()) {
            return;
        }
        queries.computeIfAbsent(query.length, dimension -> new RecentQueries(BeamCalibration.SAMPLE)).add(query);
    }

    /**
     * The beam for a search whose largest segment is {@code leaf}: its calibrated beam, or
     * {@code fallback} until that is known (or for a segment not worth calibrating).
     */
    int beam(LeafReader leaf, String field, int fallback) throws IOException {
        IndexReader.CacheHelper core = leaf.getCoreCacheHelper();
        if (core == null) {
            return fallback;
        }
        Integer known = beams.get(core.getKey());
        if (known != null) {
            return known;
        }
        FloatVectorValues values = leaf.getFloatVectorValues(field);
        if (values == null || !BeamCalibration.worthCalibrating(values.size())
                || RecentDocuments.isRecentSegment(leaf)) {
            return fallback;
        }
        RecentQueries recent = queries.computeIfAbsent(values.dimension(),
                dimension -> new RecentQueries(BeamCalibration.SAMPLE));
        if (firstAsked.putIfAbsent(core.getKey(), recent.added()) == null) {
            core.addClosedListener(key -> {
                firstAsked.remove(key);
                beams.remove(key);
            });
        }
        float[][] sample = recent.sampleSince(firstAsked.getOrDefault(core.getKey(), Long.MAX_VALUE));
        if (sample != null && pending.add(core.getKey())) {
            start(leaf, field, core, sample);
        }
        return fallback;
    }

    /** The calibrated beam of {@code leaf}, if known (tests). */
    OptionalInt known(LeafReader leaf) {
        IndexReader.CacheHelper core = leaf.getCoreCacheHelper();
        Integer beam = core == null ? null : beams.get(core.getKey());
        return beam == null ? OptionalInt.empty() : OptionalInt.of(beam);
    }

    /** Waits up to {@code timeoutMillis} until no calibration is queued or running (tests, benchmarks). */
    boolean awaitIdle(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (!pending.isEmpty()) {
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    private void start(LeafReader leaf, String field, IndexReader.CacheHelper core, float[][] sample) {
        if (!leaf.tryIncRef()) { // closed meanwhile: a later reader's segments get calibrated
            pending.remove(core.getKey());
            return;
        }
        calibrations.execute(() -> {
            try {
                beams.put(core.getKey(), calibrate(leaf, field, sample));
                firstAsked.remove(core.getKey());
            } finally {
                pending.remove(core.getKey());
                try {
                    leaf.decRef();
                } catch (IOException e) {
                    LOG.warn("closing a calibrated segment failed", e);
                }
            }
        });
    }

    /** The segment's beam; the default one if the calibration fails (it is not retried). */
    private static int calibrate(LeafReader leaf, String field, float[][] sample) {
        try {
            long start = System.nanoTime();
            int beam = BeamCalibration.calibrate(leaf, field, sample);
            LOG.info("HNSW beam {} for a segment of {} vectors: recall@10 of the latest {} queries >= {} "
                    + "(calibrated in {} ms)", beam, leaf.maxDoc(), sample.length,
                    BeamCalibration.TARGET_RECALL, (System.nanoTime() - start) / 1_000_000);
            return beam;
        } catch (IOException | RuntimeException e) {
            LOG.warn("HNSW beam calibration failed; the segment keeps the default beam", e);
            return SearchOptions.DEFAULT_VECTOR_CANDIDATES;
        }
    }

    /** A ring of the latest query vectors of one dimension. */
    private static final class RecentQueries {

        private final float[][] ring;
        private long added;

        RecentQueries(int size) {
            this.ring = new float[size][];
        }

        synchronized void add(float[] query) {
            ring[(int) (added++ % ring.length)] = query.clone();
        }

        /** Queries recorded so far. */
        synchronized long added() {
            return added;
        }

        /** The ring's queries once all of them were recorded after the {@code since}th, else null. */
        synchronized float[][] sampleSince(long since) {
            return added - since < ring.length ? null : ring.clone();
        }
    }
}
