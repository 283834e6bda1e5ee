package io.flinkagentsmemory.index;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The key-group indexes of one subtask under one local base directory ({@code <base>/kg-<n>}).
 * Indexes open lazily on first use, so a subtask pays only for the key groups it actually sees.
 */
public final class SubtaskMemoryIndexes implements Closeable {

    private static final String PREFIX = "kg-";

    private final Path baseDir;
    private final double ramBufferMb;
    private final long quietMillis;
    private final Map<Integer, KeyGroupIndex> open = new TreeMap<>();

    public SubtaskMemoryIndexes(Path baseDir) {
        this(baseDir, KeyGroupIndex.DEFAULT_RAM_BUFFER_MB);
    }

    public SubtaskMemoryIndexes(Path baseDir, double ramBufferMb) {
        this(baseDir, ramBufferMb, KeyGroupIndex.DEFAULT_QUIET_MILLIS);
    }

    /** As above, folding quiet indexes after {@code quietMillis} (see {@link KeyGroupIndex}). */
    public SubtaskMemoryIndexes(Path baseDir, double ramBufferMb, long quietMillis) {
        this.baseDir = baseDir;
        this.ramBufferMb = ramBufferMb;
        this.quietMillis = quietMillis;
    }

    public Path baseDir() {
        return baseDir;
    }

    /** Where key group {@code keyGroup}'s index lives (restore writes its files here). */
    public Path directoryFor(int keyGroup) {
        return baseDir.resolve(PREFIX + keyGroup);
    }

    /** The index of {@code keyGroup}, opened (and created) on first use. */
    public synchronized KeyGroupIndex forKeyGroup(int keyGroup) throws IOException {
        KeyGroupIndex index = open.get(keyGroup);
        if (index == null) {
            Path dir = directoryFor(keyGroup);
            Files.createDirectories(dir);
            index = KeyGroupIndex.open(dir, keyGroup, ramBufferMb, quietMillis);
            open.put(keyGroup, index);
        }
        index.requireUsable();
        return index;
    }

    /**
     * Puts {@code index}, opened elsewhere (the inspector opens a savepoint's indexes read-only in
     * place), as key group {@code keyGroup}'s; it closes with the others.
     */
    public synchronized void adopt(int keyGroup, KeyGroupIndex index) {
        if (open.containsKey(keyGroup)) {
            throw new IllegalStateException("key group " + keyGroup + " already has an open index");
        }
        open.put(keyGroup, index);
    }

    /** Whether {@code keyGroup} has an index, open or only on disk (for example just restored). */
    public synchronized boolean hasKeyGroup(int keyGroup) {
        return open.containsKey(keyGroup) || Files.isDirectory(directoryFor(keyGroup));
    }

    /** Key groups whose index is open now. */
    public synchronized SortedSet<Integer> openKeyGroups() {
        return new TreeSet<>(open.keySet());
    }

    /** Deletes the expired documents of every open key-group index; returns how many. */
    public synchronized int purgeExpired(long nowMillis) throws IOException {
        int purged = 0;
        for (KeyGroupIndex index : open.values()) {
            purged += index.purgeExpired(nowMillis);
        }
        return purged;
    }

    /** Live documents in the open key-group indexes (for metrics). */
    public synchronized long numDocs() throws IOException {
        long total = 0;
        for (KeyGroupIndex index : open.values()) {
            total += index.numDocs();
        }
        return total;
    }

    /** Segments over the open key-group indexes (for metrics: search cost grows with them). */
    public synchronized int segmentCount() throws IOException {
        int total = 0;
        for (KeyGroupIndex index : open.values()) {
            total += index.segmentCount();
        }
        return total;
    }

    /** Waits until no open index is merging (see {@link KeyGroupIndex#awaitMerges()}). */
    public synchronized void awaitMerges() throws IOException {
        for (KeyGroupIndex index : open.values()) {
            index.awaitMerges();
        }
    }

    /**
     * Starts the calibration of each open index's largest segment where it is due, and waits up
     * to {@code timeoutMillis} until none is running; whether all finished. A calibration needs
     * 64 searches after the segment's first one, so benchmarks search that many first (see
     * {@link CalibratedBeams}).
     */
    public synchronized boolean awaitCalibration(long timeoutMillis) throws IOException, InterruptedException {
        for (KeyGroupIndex index : open.values()) {
            index.hnswBeam();
        }
        return CalibratedBeams.SHARED.awaitIdle(timeoutMillis);
    }

    public synchronized void commitAll() throws IOException {
        for (KeyGroupIndex index : open.values()) {
            index.commit();
        }
    }

    /** Closes (and so commits) every open index; later use reopens them. */
    public synchronized void closeAll() throws IOException {
        IOException first = null;
        for (KeyGroupIndex index : open.values()) {
            try {
                index.close();
            } catch (IOException e) {
                first = chain(first, e);
            }
        }
        open.clear();
        if (first != null) {
            throw first;
        }
    }

    /**
     * Rolls back every open index and deletes the base directory: for a subtask attempt that
     * ends, whose durable copy is its checkpoints. Writes nothing, so it also works on a full
     * disk, and it frees the disk for the next attempt. Every index is tried; the first error
     * is thrown with the others suppressed.
     */
    public synchronized void discard() throws IOException {
        IOException first = null;
        for (KeyGroupIndex index : open.values()) {
            try {
                index.discard();
            } catch (IOException e) {
                first = chain(first, e);
            }
        }
        open.clear();
        try {
            LocalFiles.deleteRecursively(baseDir);
        } catch (IOException e) {
            first = chain(first, e);
        }
        if (first != null) {
            throw first;
        }
    }

    private static IOException chain(IOException first, IOException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /**
     * Deletes the base directory with every key-group index in it, so a restore starts from the
     * checkpoint alone and not from what an earlier attempt left behind. Only while none is open.
     */
    public synchronized void clearLocal() throws IOException {
        if (!open.isEmpty()) {
            throw new IllegalStateException(
                    "cannot clear " + baseDir + " while key groups " + open.keySet() + " are open");
        }
        LocalFiles.deleteRecursively(baseDir);
    }

    @Override
    public void close() throws IOException {
        closeAll();
    }
}
