package io.flinkagentsmemory.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

class SharedFileRegistryTest {

    private static IndexFile file(String name) {
        return new IndexFile(1, name, 100, name.hashCode());
    }

    @Test
    void aFileGoesOnceNoRetainedCheckpointNamesIt() {
        SharedFileRegistry r = new SharedFileRegistry(1);
        r.uploaded(file("_0.cfs"), "loc0");
        r.uploaded(file("_1.cfs"), "loc1");
        r.referenced(1, List.of(file("_0.cfs"), file("_1.cfs")));
        assertEquals(List.of(), r.completed(1));
        // Checkpoint 2: _1 merged away into _2.
        assertEquals("loc0", r.reusable(file("_0.cfs")));
        r.uploaded(file("_2.cfs"), "loc2");
        r.referenced(2, List.of(file("_0.cfs"), file("_2.cfs")));
        assertEquals(List.of("loc1"), r.completed(2));
        assertNull(r.reusable(file("_1.cfs")));
        assertEquals(2, r.size());
    }

    @Test
    void keepsEveryRetainedCheckpointsFiles() {
        SharedFileRegistry r = new SharedFileRegistry(3);
        for (long c = 1; c <= 6; c++) {
            IndexFile f = file("_" + c + ".cfs");
            r.uploaded(f, "loc" + c);
            r.referenced(c, List.of(f));
            List<String> gone = r.completed(c);
            // Retained: c, c-1, c-2; so c-3's file goes once c is complete.
            assertEquals(c > 3 ? List.of("loc" + (c - 3)) : List.of(), gone, "after " + c);
        }
    }

    @Test
    void lostCompletionNoticesNeverDeleteARetainedCheckpointsFiles() {
        SharedFileRegistry r = new SharedFileRegistry(2);
        for (long c = 1; c <= 4; c++) {
            IndexFile f = file("_" + c + ".cfs");
            r.uploaded(f, "loc" + c);
            r.referenced(c, List.of(f));
        }
        r.completed(1);
        // 2 and 3 completed on the JobManager but the task heard nothing; 4 is heard.
        List<String> gone = r.completed(4);
        // Retained on the JobManager: 3 and 4. The floor is the 2nd newest heard (1): nothing goes.
        assertEquals(List.of(), gone);
        // 5 heard: the floor is 4, so 1, 2 and 3 can no longer be retained.
        assertEquals(Set.of("loc1", "loc2", "loc3"), new HashSet<>(r.completed(5)));
        assertEquals(1, r.size());
    }

    @Test
    void anAbortedCheckpointsOwnUploadsGo() {
        SharedFileRegistry r = new SharedFileRegistry(1);
        r.uploaded(file("a"), "la");
        r.referenced(1, List.of(file("a")));
        r.completed(1);
        r.uploaded(file("b"), "lb");
        r.referenced(2, List.of(file("a"), file("b")));
        assertEquals(List.of("lb"), r.aborted(2));
        assertEquals("la", r.reusable(file("a")));
        assertNull(r.reusable(file("b")), "re-uploaded by the next checkpoint");
    }

    @Test
    void filesOfACheckpointNotOwnedAreNeverDeletedNorReused() {
        SharedFileRegistry r = new SharedFileRegistry(1);
        r.restoredFrom(7);
        r.restored(file("a"), "old-job/a", 7);
        r.restored(file("b"), "this-job/b", 7);
        r.settleOwnership(l -> l.startsWith("this-job/"));
        assertNull(r.reusable(file("a")), "NO_CLAIM: the new job must not depend on the old checkpoint");
        assertEquals("this-job/b", r.reusable(file("b")));
        r.uploaded(file("a"), "this-job/a");
        r.referenced(8, List.of(file("a")));
        List<String> gone = r.completed(8);
        assertEquals(List.of("this-job/b"), gone, "old-job/a is never deleted");
    }

    @Test
    void rejectsUnknownFilesAndBadRetention() {
        SharedFileRegistry r = new SharedFileRegistry(1);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> r.referenced(1, List.of(file("x"))));
        assertTrue(e.getMessage().contains("never uploaded"));
        assertThrows(IllegalArgumentException.class, () -> new SharedFileRegistry(0));
    }

    /** Random completions, aborts and lost notices against a model of what Flink retains. */
    @Test
    void randomHistoriesNeverDeleteWhatARetainedCheckpointNeedsAndLeaveNothingBehind() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            int retained = 1 + random.nextInt(3);
            SharedFileRegistry r = new SharedFileRegistry(retained);
            Map<Long, Set<String>> namesOf = new HashMap<>();
            List<Long> jmRetained = new ArrayList<>();
            Set<String> deleted = new HashSet<>();
            List<String> live = new ArrayList<>();
            int next = 0;
            for (long c = 1; c <= 60; c++) {
                // The index: drop some files (merged away), add a new one.
                live.removeIf(n -> random.nextInt(4) == 0);
                String fresh = "f" + next++;
                live.add(fresh);
                List<IndexFile> refs = new ArrayList<>();
                for (String n : live) {
                    if (r.reusable(file(n)) == null) {
                        r.uploaded(file(n), "l" + n);
                        deleted.remove("l" + n);
                    }
                    refs.add(file(n));
                }
                r.referenced(c, refs);
                namesOf.put(c, new HashSet<>(live));
                int fate = random.nextInt(10);
                List<String> gone;
                if (fate == 0) {
                    gone = r.aborted(c);
                } else {
                    jmRetained.add(c);
                    while (jmRetained.size() > retained) {
                        jmRetained.remove(0);
                    }
                    gone = fate == 1 ? List.of() : r.completed(c); // fate 1: notice lost
                }
                deleted.addAll(gone);
                for (long kept : jmRetained) {
                    for (String n : namesOf.get(kept)) {
                        assertTrue(!deleted.contains("l" + n), "round " + round + ": deleted " + n
                                + " which retained checkpoint " + kept + " needs");
                    }
                }
            }
            // With notices heard for the last checkpoints, only what retained ones name is left.
            long last = 61;
            r.uploaded(file("final"), "lfinal");
            r.referenced(last, List.of(file("final")));
            for (long c = last; c < last + retained; c++) {
                if (c > last) {
                    r.referenced(c, List.of(file("final")));
                }
                r.completed(c);
            }
            assertEquals(1, r.size(), "round " + round + ": files left behind");
        }
    }
}
