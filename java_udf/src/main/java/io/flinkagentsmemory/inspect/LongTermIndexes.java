package io.flinkagentsmemory.inspect;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.flinkagentsmemory.checkpoint.KeyGroupIndexSnapshotter;
import io.flinkagentsmemory.index.KeyGroupIndex;
import io.flinkagentsmemory.index.LongTermMemoryStore;
import io.flinkagentsmemory.index.SettableCurrentKey;
import io.flinkagentsmemory.index.SubtaskMemoryIndexes;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.FSDirectory;

/**
 * The long-term memory of a savepoint: every key group's Lucene index, materialised from the
 * operator's raw keyed state into a private directory through the checkpoint's own restore path
 * ({@link KeyGroupIndexSnapshotter#restore}), so a change of that format carries over. The copy
 * is opened with the project's own store; the savepoint itself is only read.
 */
public final class LongTermIndexes implements Closeable {

    /** One key group's index as it is in the savepoint (counted before anything opens it). */
    public record KeyGroupStats(int keyGroup, long memories, int segments, long bytes) {}

    /** One subtask: its key-group range and the key groups that have an index. */
    public record SubtaskStats(int subtask, int firstKeyGroup, int lastKeyGroup, List<KeyGroupStats> keyGroups) {}

    private static final long NEVER_FOLD_MILLIS = Long.MAX_VALUE / 1_000_000;

    private final SubtaskMemoryIndexes indexes;
    private final SettableCurrentKey currentKey = new SettableCurrentKey();
    private final LongTermMemoryStore store;
    private final List<SubtaskStats> subtasks;
    private final int maxParallelism;

    LongTermIndexes(SubtaskMemoryIndexes indexes, List<SubtaskStats> subtasks, int maxParallelism) {
        this.indexes = indexes;
        this.store = new LongTermMemoryStore(indexes, currentKey);
        this.subtasks = subtasks;
        this.maxParallelism = maxParallelism;
    }

    /** Restores every key group's index of {@code state} under {@code workDir}. */
    public static LongTermIndexes materialise(MemoryOperatorState state, Path workDir) throws InspectionException {
        // Never fold the copies: nothing writes them, and a fold would only burn CPU under the page.
        SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(workDir, KeyGroupIndex.DEFAULT_RAM_BUFFER_MB,
                NEVER_FOLD_MILLIS);
        List<SubtaskStats> stats = new ArrayList<>();
        int parallelism = state.operator().getParallelism();
        for (Map.Entry<Integer, OperatorSubtaskState> e : state.subtasks().entrySet()) {
            KeyGroupRange range = KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                    state.maxParallelism(), parallelism, e.getKey());
            List<KeyGroupStats> groups = new ArrayList<>();
            for (KeyedStateHandle handle : e.getValue().getRawKeyedState()) {
                if (!(handle instanceof KeyGroupsStateHandle raw)) {
                    throw new InspectionException("the long-term memory of subtask " + e.getKey()
                            + " is stored as " + handle.getClass().getSimpleName()
                            + ", not as key groups: not a flink_agents_memory savepoint");
                }
                groups.addAll(restore(raw, indexes, e.getKey()));
            }
            stats.add(new SubtaskStats(e.getKey(), range.getStartKeyGroup(), range.getEndKeyGroup(), groups));
        }
        return new LongTermIndexes(indexes, stats, state.maxParallelism());
    }

    /** Restores the key groups of one raw keyed state handle; returns those with an index. */
    static List<KeyGroupStats> restore(KeyGroupsStateHandle raw, SubtaskMemoryIndexes indexes, int subtask)
            throws InspectionException {
        List<KeyGroupStats> out = new ArrayList<>();
        int kg = -1;
        try (FSDataInputStream in = raw.openInputStream()) {
            for (int group : raw.getKeyGroupRange()) {
                kg = group;
                in.seek(raw.getOffsetForKeyGroup(group));
                Path dir = indexes.directoryFor(group);
                if (KeyGroupIndexSnapshotter.restore(new DataInputStream(in), dir)) {
                    out.add(stats(group, dir));
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new InspectionException("the long-term memory index of subtask " + subtask
                    + (kg >= 0 ? ", key group " + kg : "") + " is unreadable (corrupt or missing file): "
                    + e.getMessage(), e);
        }
        return out;
    }

    private static KeyGroupStats stats(int keyGroup, Path dir) throws IOException {
        long bytes;
        try (Stream<Path> files = Files.list(dir)) {
            bytes = files.mapToLong(p -> p.toFile().length()).sum();
        }
        try (FSDirectory d = FSDirectory.open(dir)) {
            SegmentInfos infos = SegmentInfos.readLatestCommit(d);
            long live = 0;
            for (SegmentCommitInfo s : infos) {
                live += s.info.maxDoc() - s.getDelCount() - s.getSoftDelCount();
            }
            return new KeyGroupStats(keyGroup, live, infos.size(), bytes);
        }
    }

    /**
     * Opens every restored index and runs one query in each, so the first page a user opens does
     * not pay for opening readers and for the JIT; callers hold this object's monitor for every
     * request, and each key group is warmed under it, so requests interleave.
     */
    public void warmUp() throws IOException {
        for (SubtaskStats s : subtasks) {
            for (KeyGroupStats g : s.keyGroups()) {
                synchronized (this) {
                    indexes.forKeyGroup(g.keyGroup()).count("", Long.MAX_VALUE);
                }
            }
        }
    }

    public List<SubtaskStats> subtasks() {
        return subtasks;
    }

    /** The store with {@code key} (in {@code keyGroup}) as its current key; one caller at a time. */
    public LongTermMemoryStore forKey(String key, int keyGroup) {
        if (keyGroup < 0 || keyGroup >= maxParallelism) {
            throw new IllegalArgumentException("key group " + keyGroup + " is outside 0.." + (maxParallelism - 1));
        }
        currentKey.set(key, keyGroup);
        return store;
    }

    @Override
    public void close() throws IOException {
        indexes.close();
    }
}
