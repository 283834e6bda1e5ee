package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.apache.lucene.index.IndexCommit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quiet indexes fold into one segment (a kNN query searches every segment's graph); a largest
 * segment with deletions is left as it is (its graph could not be reused), and so is a restored
 * segment the merge budget cannot pay for; checkpoints under a steady stream stay near the bytes
 * added.
 */
class FoldingMergePolicyTest {

    private static final int KG = 3;
    private static final int DIM = 8;
    private static final long NEVER_QUIET = 3_600_000;

    @TempDir
    Path dir;

    private final Random random = new Random(7);

    @Test
    void tieredMergingAloneRewritesNothingWithinATier() throws Exception {
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, KG, 8, NEVER_QUIET)) {
            bigThenSmallRuns(index, false);
            index.awaitMerges();
            assertEquals(4, index.segmentCount(), "the big segment and three runs, fewer than a tier");
            assertEquals(2030, index.count("alice", 0));
        }
    }

    @Test
    void smallSegmentsAboveTheFloorBesideABigOneMergeFourAtATime() throws Exception {
        int dim = 256;
        // A buffer big enough to flush the load as one segment.
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, KG, 64, NEVER_QUIET)) {
            List<float[]> vectors = new ArrayList<>();
            index.addAll(docs(vectors, 10_000, dim)); // ~11 MB
            index.count("alice", 0);
            for (int run = 0; run < 7; run++) {
                index.addAll(docs(vectors, 600, dim)); // ~0.7 MB: above the floor, under a tenth
                index.commit();
            }
            index.awaitMerges();
            assertEquals(5, index.segmentCount(), "the big segment, the first four runs merged, three runs");
            index.addAll(docs(vectors, 600, dim));
            index.commit();
            index.awaitMerges();
            assertEquals(3, index.segmentCount(), "the big segment and two of four runs each");
            assertEquals(14_800, index.count("alice", 0));
            for (int i : new int[] {0, 9999, 10_000, 12_345, 14_799}) {
                List<SearchHit> hits = index.search("alice", null, vectors.get(i),
                        new SearchOptions(SearchOptions.Mode.VECTOR, 1, null, MetadataFilter.none(), 0));
                assertEquals(idOf(i), hits.get(0).document().id());
            }
        }
    }

    @Test
    void smallSegmentsUnderTheFloorAreLeftToTieredMerging() throws Exception {
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, KG, 8, NEVER_QUIET)) {
            bigThenSmallRuns(index, false, 7);
            index.awaitMerges();
            assertEquals(8, index.segmentCount(), "the big segment and seven runs, fewer than a tier");
        }
    }

    @Test
    void aSizeLevelIsTheNearestPowerOfFourOfTheRatioToTheSmallest() {
        assertEquals(0, FoldingMergePolicy.sizeLevel(10, 10));
        assertEquals(0, FoldingMergePolicy.sizeLevel(19, 10));
        assertEquals(1, FoldingMergePolicy.sizeLevel(21, 10));
        assertEquals(1, FoldingMergePolicy.sizeLevel(39, 10), "four of a little less than 10");
        assertEquals(1, FoldingMergePolicy.sizeLevel(79, 10));
        assertEquals(2, FoldingMergePolicy.sizeLevel(160, 10));
    }

    @Test
    void aQuietIndexIsFoldedIntoOneSegment() throws Exception {
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, KG, 8, 0)) {
            List<float[]> vectors = bigThenSmallRuns(index, false);
            index.awaitMerges();
            // No write since: the merged segment is searched because the merge finished.
            assertEquals(1, index.segmentCount());
            assertEquals(2030, index.count("alice", 0));
            for (int i : new int[] {0, 1999, 2000, 2029}) {
                List<SearchHit> hits = index.search("alice", null, vectors.get(i),
                        new SearchOptions(SearchOptions.Mode.VECTOR, 1, null, MetadataFilter.none(), 0));
                assertEquals(idOf(i), hits.get(0).document().id());
            }
        }
    }

    @Test
    void aLargestSegmentWithDeletionsIsNotRewritten() throws Exception {
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, KG, 8, 0)) {
            bigThenSmallRuns(index, true);
            index.awaitMerges();
            assertEquals(2, index.segmentCount(), "the small segments are folded beside the big one");
            assertEquals(2029, index.count("alice", 0));
        }
    }

    @Test
    void aFoldAfterARestartLeavesTheBigSegmentsFilesAlone() throws Exception {
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, KG, 8, NEVER_QUIET)) {
            List<MemoryDocument> big = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                big.add(doc(idOf(i), "alice", KG, "m" + i, unitVector(random, DIM)));
            }
            index.addAll(big);
        }
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, KG, 8, 0)) {
            Set<String> restored = committedSizes(index).keySet();
            restored.removeIf(name -> name.startsWith("segments"));
            for (int run = 0; run < 3; run++) {
                List<MemoryDocument> small = new ArrayList<>();
                for (int j = 0; j < 10; j++) {
                    small.add(doc("s" + run + "-" + j, "alice", KG, "s", unitVector(random, DIM)));
                }
                index.addAll(small);
                index.count("alice", 0);
                committedSizes(index);
            }
            index.awaitMerges();
            assertEquals(2, index.segmentCount(), "the runs are folded beside the restored segment");
            Set<String> after = committedSizes(index).keySet();
            assertTrue(after.containsAll(restored), "restored files rewritten: " + restored + " " + after);
            assertEquals(2030, index.count("alice", 0));
        }
    }

    @Test
    void checkpointsUnderASteadyStreamUploadAtMostThreeTimesTheBytesAdded() throws Exception {
        int dim = 256;
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, KG, 8, NEVER_QUIET)) {
            List<MemoryDocument> load = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                load.add(doc(idOf(i), "alice", KG, "m" + i, unitVector(random, dim)));
            }
            index.addAll(load);
            Map<String, Long> previous = committedSizes(index);
            double uploaded = 0;
            double added = 0;
            int next = load.size();
            for (int checkpoint = 0; checkpoint < 120; checkpoint++) {
                List<MemoryDocument> run = new ArrayList<>();
                for (int j = 0; j < 30; j++, next++) {
                    run.add(doc(idOf(next), "alice", KG, "m" + next, unitVector(random, dim)));
                }
                index.addAll(run);
                index.count("alice", 0);
                Map<String, Long> now = committedSizes(index);
                for (Map.Entry<String, Long> f : now.entrySet()) {
                    if (!previous.containsKey(f.getKey())) {
                        uploaded += f.getValue();
                    }
                }
                added += run.size() * (double) now.values().stream().mapToLong(Long::longValue).sum() / next;
                previous = now;
            }
            // New documents are uploaded once, plus what merges rewrote of earlier checkpoints.
            double ratio = uploaded / added;
            assertTrue(ratio <= 3, "checkpoint bytes / bytes added: " + ratio);
            assertTrue(index.segmentCount() <= 2 * FoldingMergePolicy.SEGMENTS_PER_TIER,
                    "merges still run: " + index.segmentCount() + " segments");
        }
    }

    @Test
    void aNegativeQuietPeriodIsRejected() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> KeyGroupIndex.open(dir, KG, 8, -1));
        assertEquals("quiet period must not be negative, got -1", e.getMessage());
    }

    /**
     * One segment of 2,000 documents, then three runs of 10, each refreshed like a job's runs
     * (a read after the writes); optionally a document of the big segment is deleted first.
     */
    private List<float[]> bigThenSmallRuns(KeyGroupIndex index, boolean deleteFromBig) throws Exception {
        return bigThenSmallRuns(index, deleteFromBig, 3);
    }

    /** As above, with {@code runs} runs of 10. */
    private List<float[]> bigThenSmallRuns(KeyGroupIndex index, boolean deleteFromBig, int runs) throws Exception {
        List<float[]> vectors = new ArrayList<>();
        index.addAll(docs(vectors, 2000, DIM));
        index.count("alice", 0);
        if (deleteFromBig) {
            index.delete("alice", idOf(5));
            index.count("alice", 0);
        }
        for (int run = 0; run < runs; run++) {
            index.addAll(docs(vectors, 10, DIM));
            index.commit(); // a checkpoint after each run: each run is a segment of its own
        }
        return vectors;
    }

    /** {@code n} documents of random {@code dim}-dim vectors, numbered on from {@code vectors}' size, whose vectors it gets. */
    private List<MemoryDocument> docs(List<float[]> vectors, int n, int dim) {
        List<MemoryDocument> out = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            int i = vectors.size();
            vectors.add(unitVector(random, dim));
            out.add(doc(idOf(i), "alice", KG, "m" + i, vectors.get(i)));
        }
        return out;
    }

    /** A checkpoint's commit: its files and their sizes. */
    private static Map<String, Long> committedSizes(KeyGroupIndex index) throws Exception {
        IndexCommit commit = index.acquireCommit();
        try {
            Map<String, Long> sizes = new HashMap<>();
            for (String name : commit.getFileNames()) {
                sizes.put(name, index.directory().fileLength(name));
            }
            return sizes;
        } finally {
            index.releaseCommit(commit);
        }
    }

    private static String idOf(int i) {
        return "d" + i;
    }
}
