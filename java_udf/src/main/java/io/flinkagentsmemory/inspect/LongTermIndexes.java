package io.flinkagentsmemory.inspect;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.flinkagentsmemory.checkpoint.KeyGroupIndexSnapshotter;
import io.flinkagentsmemory.checkpoint.KeyGroupIndexSnapshotter.FileRegion;
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
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.ByteBuffersDataInput;
import org.apache.lucene.store.ByteBuffersIndexInput;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MMapDirectory;

/**
 * The long-term memory of a savepoint: every key group's Lucene index, read where the savepoint
 * stores it. Opening reads only each key group's file table ({@link KeyGroupIndexSnapshotter#locate})
 * and its commit (segments and live documents, for the stats); a key group's index is opened when
 * a request first needs it (or by {@link #warmUp}), read-only, over slices of the memory-mapped
 * state file ({@link SnapshotDirectory}): nothing is copied, nothing is written. A blob that is not
 * in a local file or in memory, or that is incremental (its files are in the job's shared
 * directory), is restored through the checkpoint's own restore path into a private directory
 * instead and opened read-only there. The savepoint itself is only read.
 */
public final class LongTermIndexes implements Closeable {

    /** One key group's index as it is in the savepoint (counted before anything opens it). */
    public record KeyGroupStats(int keyGroup, long memories, int segments, long bytes) {}

    /** One subtask: its key-group range and the key groups that have an index. */
    public record SubtaskStats(int subtask, int firstKeyGroup, int lastKeyGroup, List<KeyGroupStats> keyGroups) {}

    private final SubtaskMemoryIndexes indexes;
    private final SettableCurrentKey currentKey = new SettableCurrentKey();
    private final LongTermMemoryStore store;
    private final List<SubtaskStats> subtasks;
    private final int maxParallelism;
    /** Key groups with an index not opened yet: the directory to open it on. */
    private final Map<Integer, Directory> unopened;
    private final StateFiles files;

    LongTermIndexes(SubtaskMemoryIndexes indexes, List<SubtaskStats> subtasks, int maxParallelism) {
        this(indexes, subtasks, maxParallelism, new TreeMap<>(), new StateFiles());
    }

    private LongTermIndexes(SubtaskMemoryIndexes indexes, List<SubtaskStats> subtasks, int maxParallelism,
            Map<Integer, Directory> unopened, StateFiles files) {
        this.indexes = indexes;
        this.store = new LongTermMemoryStore(indexes, currentKey);
        this.subtasks = subtasks;
        this.maxParallelism = maxParallelism;
        this.unopened = unopened;
        this.files = files;
    }

    /** Over key groups already located (tests). */
    static LongTermIndexes forTest(SubtaskMemoryIndexes indexes, Map<Integer, Directory> unopened, StateFiles files) {
        return new LongTermIndexes(indexes, List.of(), 128, unopened, files);
    }

    /**
     * Finds every key group's index of {@code state} and counts it; opens none. {@code workDir}
     * takes the blobs that cannot be read in place.
     */
    public static LongTermIndexes open(MemoryOperatorState state, Path workDir) throws InspectionException {
        SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(workDir);
        Map<Integer, Directory> unopened = new TreeMap<>();
        StateFiles files = new StateFiles();
        List<SubtaskStats> stats = new ArrayList<>();
        int parallelism = state.operator().getParallelism();
        try {
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
                    groups.addAll(locate(raw, files, indexes, unopened, e.getKey()));
                }
                stats.add(new SubtaskStats(e.getKey(), range.getStartKeyGroup(), range.getEndKeyGroup(), groups));
            }
        } catch (InspectionException | RuntimeException e) {
            files.close();
            throw e;
        }
        return new LongTermIndexes(indexes, stats, state.maxParallelism(), unopened, files);
    }

    /**
     * The key groups of one raw keyed state handle that have an index, with their stats; each is
     * put in {@code unopened} with the directory to open it on.
     */
    static List<KeyGroupStats> locate(KeyGroupsStateHandle raw, StateFiles files, SubtaskMemoryIndexes indexes,
            Map<Integer, Directory> unopened, int subtask) throws InspectionException {
        List<KeyGroupStats> out = new ArrayList<>();
        int kg = -1;
        try (FSDataInputStream in = raw.openInputStream()) {
            IndexInput source = null;
            boolean sourceTried = false;
            for (int group : raw.getKeyGroupRange()) {
                kg = group;
                long offset = raw.getOffsetForKeyGroup(group);
                in.seek(offset);
                List<FileRegion> regions = KeyGroupIndexSnapshotter.locate(in);
                if (regions != null && regions.isEmpty()) {
                    continue;
                }
                if (regions != null && !sourceTried) {
                    source = files.input(raw.getDelegateStateHandle());
                    sourceTried = true;
                }
                Directory dir;
                long bytes;
                if (regions != null && source != null) {
                    SnapshotDirectory d = new SnapshotDirectory("key group " + group + " of subtask " + subtask,
                            source, regions);
                    dir = d;
                    bytes = d.bytes();
                } else {
                    // incremental, or not a local file: restored into the work directory
                    in.seek(offset);
                    Path restored = indexes.directoryFor(group);
                    if (!KeyGroupIndexSnapshotter.restore(new DataInputStream(in), restored)) {
                        continue;
                    }
                    dir = FSDirectory.open(restored);
                    bytes = sizeOf(restored);
                }
                unopened.put(group, dir);
                out.add(stats(group, dir, bytes));
            }
        } catch (IOException | RuntimeException e) {
            throw new InspectionException("the long-term memory index of subtask " + subtask
                    + (kg >= 0 ? ", key group " + kg : "") + " is unreadable (corrupt or missing file): "
                    + e.getMessage(), e);
        }
        return out;
    }

    /** Restores the key groups of one handle into {@code indexes}' directories (tests; the fallback path). */
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
                    try (FSDirectory d = FSDirectory.open(dir)) {
                        out.add(stats(group, d, sizeOf(dir)));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new InspectionException("the long-term memory index of subtask " + subtask
                    + (kg >= 0 ? ", key group " + kg : "") + " is unreadable (corrupt or missing file): "
                    + e.getMessage(), e);
        }
        return out;
    }

    private static long sizeOf(Path dir) throws IOException {
        try (Stream<Path> listed = Files.list(dir)) {
            return listed.mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** Live documents and segments of the last commit: read from the commit point, nothing opened. */
    private static KeyGroupStats stats(int keyGroup, Directory dir, long bytes) throws IOException {
        SegmentInfos infos = SegmentInfos.readLatestCommit(dir);
        long live = 0;
        for (SegmentCommitInfo s : infos) {
            live += s.info.maxDoc() - s.getDelCount() - s.getSoftDelCount();
        }
        return new KeyGroupStats(keyGroup, live, infos.size(), bytes);
    }

    /**
     * Opens every key group's index and runs the page's queries in each, largest first, so the
     * first page a user opens does not pay for opening readers, loading codec classes and the
     * JIT. Opening needs no key, so it may start before the keyed state is read; {@code keys}
     * (one key per key group; it may block until they are read) is asked only for the page
     * queries. Callers hold this object's monitor for every request, and each step is taken
     * under it, so requests interleave with the warm-up.
     */
    public void warmUp(Supplier<Map<Integer, String>> keys, long now) throws IOException {
        List<KeyGroupStats> groups = new ArrayList<>();
        subtasks.forEach(s -> groups.addAll(s.keyGroups()));
        groups.sort(Comparator.comparingLong(KeyGroupStats::memories).reversed());
        long start = System.nanoTime();
        for (KeyGroupStats g : groups) {
            long t = System.nanoTime();
            synchronized (this) {
                forKey("", g.keyGroup()).count(now);
            }
            long opened = System.nanoTime();
            String key = keys.get().get(g.keyGroup());
            long queried = System.nanoTime();
            if (key != null) {
                synchronized (this) {
                    LongTermMemoryStore s = forKey(key, g.keyGroup());
                    s.count(now);
                    s.getAll(null, 50, now);
                }
            }
            if (g == groups.get(0)) {
                System.err.printf("inspector warm-up: key group %d (%d memories) opened in %d ms, "
                        + "a key's page queried in %d ms%n", g.keyGroup(), g.memories(), (opened - t) / 1_000_000,
                        (System.nanoTime() - queried) / 1_000_000);
            }
        }
        System.err.printf("inspector warm-up: %d key groups in %d ms%n", groups.size(),
                (System.nanoTime() - start) / 1_000_000);
    }

    /** Opens every key group's index and counts in it (tests). */
    public void warmUp() throws IOException {
        warmUp(Map::of, Long.MAX_VALUE);
    }

    public List<SubtaskStats> subtasks() {
        return subtasks;
    }

    /** Key groups whose index is not open yet. */
    synchronized int unopenedCount() {
        return unopened.size();
    }

    /**
     * The store with {@code key} (in {@code keyGroup}) as its current key, the key group's index
     * opened if it was not yet; one caller at a time.
     */
    public synchronized LongTermMemoryStore forKey(String key, int keyGroup) throws IOException {
        if (keyGroup < 0 || keyGroup >= maxParallelism) {
            throw new IllegalArgumentException("key group " + keyGroup + " is outside 0.." + (maxParallelism - 1));
        }
        Directory dir = unopened.remove(keyGroup);
        if (dir != null) {
            try {
                indexes.adopt(keyGroup, KeyGroupIndex.openReadOnly(dir, keyGroup));
            } catch (IOException | RuntimeException e) {
                throw new IOException("the long-term memory index of key group " + keyGroup
                        + " is unreadable (corrupt or missing file): " + e.getMessage(), e);
            }
        }
        currentKey.set(key, keyGroup);
        return store;
    }

    @Override
    public synchronized void close() throws IOException {
        try {
            for (Directory d : unopened.values()) {
                d.close();
            }
            unopened.clear();
            indexes.close();
        } finally {
            files.close();
        }
    }

    /**
     * The state files behind raw keyed state handles, each opened once as one Lucene input: a
     * local file memory-mapped (read-only), an in-memory handle wrapped. Shared by the key groups
     * of a file; closed with the indexes.
     */
    static final class StateFiles implements Closeable {

        private final Map<StreamStateHandle, IndexInput> inputs = new IdentityHashMap<>();
        private final List<java.io.Closeable> owned = new ArrayList<>();

        /** The handle's bytes as one input, or null if they are neither in a local file nor in memory. */
        synchronized IndexInput input(StreamStateHandle handle) throws IOException {
            if (inputs.containsKey(handle)) {
                return inputs.get(handle);
            }
            IndexInput in = null;
            if (handle instanceof FileStateHandle file) {
                URI uri = file.getFilePath().toUri();
                if (uri.getScheme() == null || "file".equals(uri.getScheme())) {
                    Path path = Path.of(uri.getPath());
                    MMapDirectory dir = new MMapDirectory(path.getParent());
                    owned.add(dir);
                    in = dir.openInput(path.getFileName().toString(), IOContext.DEFAULT);
                    owned.add(in);
                }
            } else if (handle instanceof ByteStreamStateHandle bytes) {
                in = new ByteBuffersIndexInput(new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes.getData()))),
                        bytes.getHandleName());
                owned.add(in);
            }
            inputs.put(handle, in);
            return in;
        }

        @Override
        public synchronized void close() {
            for (int i = owned.size() - 1; i >= 0; i--) {
                try {
                    owned.get(i).close();
                } catch (IOException | RuntimeException e) {
                    // only reading: nothing to lose
                }
            }
            owned.clear();
            inputs.clear();
        }
    }
}
