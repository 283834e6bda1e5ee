package io.flinkagentsmemory.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;

import io.flinkagentsmemory.index.MemoryDocument;
import io.flinkagentsmemory.index.MetadataFilter;
import io.flinkagentsmemory.index.SubtaskMemoryIndexes;
import io.flinkagentsmemory.index.TestDocs;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StatePartitionStreamProvider;
import org.apache.flink.runtime.state.StateSnapshotContextSynchronousImpl;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint hooks through Flink's own raw keyed state streams (no operator harness): 128 key
 * groups written by 2 subtasks, restored into 3, then into 1, the way Flink hands key-group
 * offsets to restored subtasks. Every document must arrive exactly once.
 */
class RescaleTest {

    private static final int MAX_PARALLELISM = 128;
    private static final int DIM = 8;

    @TempDir
    Path dir;

    private int generation;

    @Test
    void rescaleTwoToThreeToOneKeepsEveryDocumentExactlyOnce() throws Exception {
        Random random = new Random(2024);
        Map<String, String> memoryOfId = new HashMap<>();
        List<Subtask> two = subtasks(2);
        for (int i = 0; i < 1200; i++) {
            String key = "user-" + random.nextInt(400);
            int kg = KeyGroupRangeAssignment.assignToKeyGroup(key, MAX_PARALLELISM);
            String id = "doc-" + i;
            owner(two, kg).indexes.forKeyGroup(kg).add(new MemoryDocument(id, key, kg, "memory " + i,
                    TestDocs.unitVector(random, DIM), "{\"i\":" + i + "}", null, null, null, MemoryDocument.NEVER));
            memoryOfId.put(id, key + "|memory " + i);
        }
        List<KeyGroupsStateHandle> checkpoint1 = snapshotAll(two);
        assertTrue(two.get(0).hooks.lastSnapshotBytes() > 0);
        assertTrue(two.get(0).hooks.lastSnapshotMillis() >= 0);
        // Written after the checkpoint: must not survive the restore.
        int lateKg = two.get(1).range.getStartKeyGroup();
        two.get(1).indexes.forKeyGroup(lateKg).add(new MemoryDocument("late", "late-key", lateKg, "late", null, "{}",
                null, null, null, MemoryDocument.NEVER));
        closeAll(two);

        List<Subtask> three = restore(3, checkpoint1);
        assertEquals(memoryOfId, contents(three));
        for (Subtask s : three) {
            assertNull(s.indexes.forKeyGroup(lateKg).get("late-key", "late", 0));
        }
        List<KeyGroupsStateHandle> checkpoint2 = snapshotAll(three);
        closeAll(three);

        List<Subtask> one = restore(1, checkpoint2);
        assertEquals(memoryOfId, contents(one));
        closeAll(one);
    }

    @Test
    void rejectsContextsWithoutRawKeyedState() {
        LongTermMemoryCheckpointHooks hooks = new LongTermMemoryCheckpointHooks(() -> new SubtaskMemoryIndexes(dir));
        FunctionSnapshotContext plain = new FunctionSnapshotContext() {
            @Override
            public long getCheckpointId() {
                return 1;
            }

            @Override
            public long getCheckpointTimestamp() {
                return 1;
            }
        };
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> hooks.snapshotState(plain));
        assertTrue(e.getMessage().contains("StateSnapshotContext"));
        FunctionInitializationContext plainInit = new FunctionInitializationContext() {
            @Override
            public OptionalLong getRestoredCheckpointId() {
                return OptionalLong.empty();
            }

            @Override
            public OperatorStateStore getOperatorStateStore() {
                return null;
            }

            @Override
            public KeyedStateStore getKeyedStateStore() {
                return null;
            }
        };
        e = assertThrows(IllegalStateException.class, () -> hooks.initializeState(plainInit));
        assertTrue(e.getMessage().contains("StateInitializationContext"));
    }

    @Test
    void freshStartClearsLeftoversAndRestoresNothing() throws Exception {
        SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(dir.resolve("fresh"));
        indexes.forKeyGroup(3).add(new MemoryDocument("x", "k", 3, "leftover", null, "{}", null, null, null,
                MemoryDocument.NEVER));
        indexes.closeAll();
        LongTermMemoryCheckpointHooks hooks = new LongTermMemoryCheckpointHooks(() -> indexes);
        hooks.initializeState(new RawKeyedInputs(null, List.of()));
        assertFalse(indexes.hasKeyGroup(3));
        assertEquals(0, hooks.lastRestoredKeyGroups());
    }

    /** What Flink's StateInitializationContextImpl offers, without needing a keyed state backend. */
    private record RawKeyedInputs(Long restoredCheckpointId, List<KeyGroupStatePartitionStreamProvider> inputs)
            implements StateInitializationContext {
        @Override
        public Iterable<StatePartitionStreamProvider> getRawOperatorStateInputs() {
            return List.of();
        }

        @Override
        public Iterable<KeyGroupStatePartitionStreamProvider> getRawKeyedStateInputs() {
            return inputs;
        }

        @Override
        public OptionalLong getRestoredCheckpointId() {
            return restoredCheckpointId == null ? OptionalLong.empty() : OptionalLong.of(restoredCheckpointId);
        }

        @Override
        public OperatorStateStore getOperatorStateStore() {
            throw new UnsupportedOperationException();
        }

        @Override
        public KeyedStateStore getKeyedStateStore() {
            throw new UnsupportedOperationException();
        }
    }

    private record Subtask(KeyGroupRange range, SubtaskMemoryIndexes indexes, LongTermMemoryCheckpointHooks hooks) {}

    private List<Subtask> subtasks(int parallelism) {
        generation++;
        List<Subtask> out = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            KeyGroupRange range = KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(MAX_PARALLELISM, parallelism, i);
            SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(dir.resolve("g" + generation + "-s" + i));
            out.add(new Subtask(range, indexes, new LongTermMemoryCheckpointHooks(() -> indexes)));
        }
        return out;
    }

    private static Subtask owner(List<Subtask> subtasks, int kg) {
        return subtasks.stream().filter(s -> s.range.contains(kg)).findFirst().orElseThrow();
    }

    private static List<KeyGroupsStateHandle> snapshotAll(List<Subtask> subtasks) throws Exception {
        List<KeyGroupsStateHandle> handles = new ArrayList<>();
        for (Subtask s : subtasks) {
            StateSnapshotContextSynchronousImpl ctx = new StateSnapshotContextSynchronousImpl(
                    1, 1, new MemCheckpointStreamFactory(64 << 20), s.range, new CloseableRegistry());
            s.hooks.snapshotState(ctx);
            var future = s.hooks.asyncPart(1, ctx.getKeyedStateStreamFuture());
            future.run();
            KeyedStateHandle handle = future.get().getJobManagerOwnedSnapshot();
            handles.add((KeyGroupsStateHandle) handle);
        }
        return handles;
    }

    private List<Subtask> restore(int parallelism, List<KeyGroupsStateHandle> checkpoint) throws Exception {
        List<Subtask> out = subtasks(parallelism);
        for (Subtask s : out) {
            List<KeyGroupStatePartitionStreamProvider> inputs = new ArrayList<>();
            for (KeyGroupsStateHandle handle : checkpoint) {
                KeyGroupsStateHandle part = handle.getIntersection(s.range);
                if (part == null) {
                    continue;
                }
                for (int kg : part.getKeyGroupRange()) {
                    FSDataInputStream in = part.openInputStream();
                    in.seek(part.getOffsetForKeyGroup(kg));
                    inputs.add(new KeyGroupStatePartitionStreamProvider(in, kg));
                }
            }
            assertEquals(s.range.getNumberOfKeyGroups(), inputs.size());
            s.hooks.initializeState(new RawKeyedInputs(1L, inputs));
        }
        return out;
    }

    /** id → "key|memory" over all subtasks, failing on a duplicate or a document in a foreign key group. */
    private static Map<String, String> contents(List<Subtask> subtasks) throws Exception {
        Map<String, String> out = new HashMap<>();
        for (Subtask s : subtasks) {
            for (int kg : s.range) {
                if (!s.indexes.hasKeyGroup(kg)) {
                    continue;
                }
                var index = s.indexes.forKeyGroup(kg);
                int seen = 0;
                for (int u = 0; u < 400; u++) {
                    String key = "user-" + u;
                    for (MemoryDocument d : index.getAll(key, MetadataFilter.none(), 10_000, 0)) {
                        assertEquals(kg, KeyGroupRangeAssignment.assignToKeyGroup(d.key(), MAX_PARALLELISM));
                        assertNull(out.put(d.id(), d.key() + "|" + d.memory()), "duplicate " + d.id());
                        seen++;
                    }
                }
                assertEquals(index.numDocs(), seen, "documents of unknown keys in key group " + kg);
            }
        }
        return out;
    }

    private static void closeAll(List<Subtask> subtasks) throws Exception {
        for (Subtask s : subtasks) {
            s.indexes.closeAll();
        }
    }
}
