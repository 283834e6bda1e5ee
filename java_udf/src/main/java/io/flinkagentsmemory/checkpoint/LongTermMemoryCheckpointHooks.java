package io.flinkagentsmemory.checkpoint;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RunnableFuture;
import java.util.function.Supplier;

import io.flinkagentsmemory.index.KeyGroupIndex;
import io.flinkagentsmemory.index.SubtaskMemoryIndexes;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyedStateCheckpointOutputStream;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStorageLocation;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.lucene.index.IndexCommit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints the subtask's key-group indexes into Flink's raw keyed state, one blob per key group
 * (see {@link KeyGroupIndexSnapshotter}), so on rescale Flink hands each subtask exactly the key
 * groups of its new range. The operator calls these from its own snapshotState/initializeState,
 * after super, and must override {@code isUsingCustomRawKeyedState()} to return true.
 *
 * <p>Checkpoints are incremental when the operator announced one with {@link #beginSnapshot} and
 * the checkpoint storage has a shared directory: each index file is uploaded there once and raw
 * keyed state holds only manifests ({@link IncrementalSnapshot}); {@link SharedFileRegistry}
 * decides, on completion and abort notices, which uploads can go. Savepoints, and checkpoints
 * without such storage, copy every file into raw keyed state, so they stand alone.
 *
 * <p>The task thread only commits and pins each index and plans the checkpoint
 * ({@link #snapshotState}); the copies and uploads run in Flink's asynchronous checkpoint part
 * ({@link #asyncPart}), which the operator puts in place of its raw keyed state future, so the
 * subtask acknowledges the checkpoint only once every file is stored.
 */
public final class LongTermMemoryCheckpointHooks implements CheckpointedFunction, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LongTermMemoryCheckpointHooks.class);

    /** Where and how an announced checkpoint writes; {@code store} null: a full copy. */
    private record Target(long checkpointId, SharedFileStore store) {}

    private final Supplier<SubtaskMemoryIndexes> indexes;
    private final String storeName;
    private final boolean claimRestored;
    private final SharedFileRegistry registry;
    private final UploadTracker uploads = new UploadTracker();
    private final Set<Long> savepoints = new HashSet<>();
    /** Planned by {@link #snapshotState}, waiting for {@link #asyncPart} (task thread only). */
    private final NavigableMap<Long, PendingSnapshot> pending = new TreeMap<>();
    private final Set<PendingSnapshot> inFlight = ConcurrentHashMap.newKeySet();
    private Target target;
    private boolean ownershipSettled;
    private volatile long lastSnapshotBytes = -1;
    private volatile long lastSnapshotMillis = -1;
    private volatile long lastIndexBytes = -1;
    private volatile long lastUploadedFiles;
    private volatile long lastAsyncMillis = -1;
    private volatile long sweptFiles;
    private volatile int lastRestoredKeyGroups;
    private volatile long lastRestoreMillis;

    /** Full copies only (no shared store), as used where no checkpoint storage is known. */
    public LongTermMemoryCheckpointHooks(Supplier<SubtaskMemoryIndexes> indexes) {
        this(indexes, "operator", 1, false);
    }

    /**
     * @param storeName folder of this operator in the shared directory (its operator id)
     * @param numRetained {@code execution.checkpointing.num-retained}
     * @param claimRestored the job restored in CLAIM mode: it owns the restored checkpoint's files
     */
    public LongTermMemoryCheckpointHooks(Supplier<SubtaskMemoryIndexes> indexes, String storeName,
            int numRetained, boolean claimRestored) {
        this.indexes = indexes;
        this.storeName = storeName;
        this.claimRestored = claimRestored;
        this.registry = new SharedFileRegistry(numRetained);
    }

    /** As the constructor, for callers that cannot pass a Java lambda (benchmarks over py4j). */
    public static LongTermMemoryCheckpointHooks of(SubtaskMemoryIndexes indexes, String storeName,
            int numRetained, boolean claimRestored) {
        return new LongTermMemoryCheckpointHooks(() -> indexes, storeName, numRetained, claimRestored);
    }

    /**
     * Announces the checkpoint the next {@link #snapshotState} writes, with the stream factory of
     * its location: incremental into the factory's shared directory unless it is a savepoint.
     */
    public void beginSnapshot(long checkpointId, boolean savepoint, CheckpointStreamFactory factory) {
        SharedFileStore store = null;
        if (savepoint) {
            savepoints.add(checkpointId);
        } else if (factory instanceof FsCheckpointStorageLocation location) {
            store = new SharedFileStore(location.getSharedStateDirectory(), storeName);
        }
        target = new Target(checkpointId, store);
    }

    /**
     * The synchronous part: commits and pins each key group's index and plans what the
     * checkpoint writes (the shared registry is updated here, on the task thread). Nothing is
     * copied yet: {@link #asyncPart} does that.
     */
    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        if (!(context instanceof StateSnapshotContext ctx)) {
            throw new IllegalStateException("long-term memory checkpoint needs a StateSnapshotContext "
                    + "(raw keyed state), got " + context.getClass().getName());
        }
        long start = System.nanoTime();
        SubtaskMemoryIndexes subtask = indexes.get();
        SharedFileStore store = target != null && target.checkpointId() == ctx.getCheckpointId()
                ? target.store() : null;
        target = null;
        if (store != null && !ownershipSettled) {
            registry.settleOwnership(location -> claimRestored || store.contains(location));
        }
        // Opened here, written by the asynchronous part: Flink closes it there and builds its handle.
        KeyedStateCheckpointOutputStream raw = ctx.getRawKeyedOperatorStateOutput();
        PendingSnapshot snapshot = new PendingSnapshot(ctx.getCheckpointId(), raw);
        try {
            for (int kg : raw.getKeyGroupList()) {
                if (!subtask.hasKeyGroup(kg)) {
                    snapshot.add(kg, KeyGroupIndexSnapshotter.empty());
                    continue;
                }
                KeyGroupIndex index = subtask.forKeyGroup(kg);
                IndexCommit commit = snapshot.pin(index);
                snapshot.add(kg, store == null
                        ? KeyGroupIndexSnapshotter.fullCopy(index.directory(), commit)
                        : IncrementalSnapshot.plan(index, commit, ctx.getCheckpointId(), store, registry, uploads));
            }
            if (store != null && !ownershipSettled) {
                // Uploads of checkpoints that never completed before a failure: nothing names them.
                int swept = store.sweep(raw.getKeyGroupList(), registry.locations());
                sweptFiles += swept;
                ownershipSettled = true;
            }
        } catch (Exception e) {
            snapshot.release();
            throw e;
        }
        pending.put(snapshot.checkpointId(), snapshot);
        lastSnapshotBytes = snapshot.bytes();
        lastIndexBytes = snapshot.indexBytes();
        lastUploadedFiles = snapshot.uploadedFiles();
        lastSnapshotMillis = (System.nanoTime() - start) / 1_000_000;
    }

    /**
     * The asynchronous part of checkpoint {@code checkpointId}, to run in place of
     * {@code rawKeyedStateFuture} (the future that closes the raw keyed state stream, which
     * Flink runs on its checkpoint thread before the subtask acknowledges): uploads the new
     * files, writes each key group's blob, then runs {@code rawKeyedStateFuture}. Returns
     * {@code rawKeyedStateFuture} itself if {@link #snapshotState} planned nothing for that id.
     * Task thread.
     */
    public RunnableFuture<SnapshotResult<KeyedStateHandle>> asyncPart(long checkpointId,
            RunnableFuture<SnapshotResult<KeyedStateHandle>> rawKeyedStateFuture) {
        PendingSnapshot snapshot = pending.remove(checkpointId);
        if (snapshot == null) {
            return rawKeyedStateFuture;
        }
        inFlight.add(snapshot);
        return snapshot.asyncPart(rawKeyedStateFuture, done -> {
            inFlight.remove(snapshot);
            lastAsyncMillis = done.millis();
        });
    }

    /** Deletes the uploads that no retained checkpoint references any more. */
    public void notifyCheckpointComplete(long checkpointId) {
        releasePendingUpTo(checkpointId);
        if (!savepoints.remove(checkpointId)) {
            delete(registry.completed(checkpointId), checkpointId);
        }
    }

    /** Deletes the uploads only the aborted checkpoint referenced. */
    public void notifyCheckpointAborted(long checkpointId) {
        PendingSnapshot never = pending.remove(checkpointId);
        if (never != null) {
            never.release();
        }
        if (!savepoints.remove(checkpointId)) {
            delete(registry.aborted(checkpointId), checkpointId);
        }
    }

    /** Unpins every commit a checkpoint still holds (the subtask is going away). */
    @Override
    public void close() {
        pending.values().forEach(PendingSnapshot::release);
        pending.clear();
        inFlight.forEach(PendingSnapshot::release);
    }

    /** Snapshots planned at or before {@code checkpointId} whose asynchronous part never came. */
    private void releasePendingUpTo(long checkpointId) {
        var older = pending.headMap(checkpointId, true);
        older.values().forEach(PendingSnapshot::release);
        older.clear();
    }

    private void delete(List<String> locations, long checkpointId) {
        try {
            uploads.drop(locations);
        } catch (IOException e) {
            // A file left behind costs space, never correctness; the next restore sweeps it.
            LOG.warn("Could not delete long-term memory files no checkpoint needs after checkpoint {}: {}",
                    checkpointId, e.toString());
        }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        if (!(context instanceof StateInitializationContext ctx)) {
            throw new IllegalStateException("long-term memory restore needs a StateInitializationContext "
                    + "(raw keyed state), got " + context.getClass().getName());
        }
        long start = System.nanoTime();
        SubtaskMemoryIndexes subtask = indexes.get();
        // Whatever a previous attempt left locally is not the checkpoint: start clean.
        subtask.clearLocal();
        int restored = 0;
        if (ctx.isRestored()) {
            ctx.getRestoredCheckpointId().ifPresent(registry::restoredFrom);
            for (KeyGroupStatePartitionStreamProvider p : ctx.getRawKeyedStateInputs()) {
                DataInputStream in = new DataInputStream(p.getStream());
                int kg = p.getKeyGroupId();
                if (KeyGroupIndexSnapshotter.restore(in, subtask.directoryFor(kg), kg, registry)) {
                    restored++;
                }
            }
        }
        lastRestoredKeyGroups = restored;
        lastRestoreMillis = (System.nanoTime() - start) / 1_000_000;
    }

    /** Wall time of the last restore (initializeState) in milliseconds. */
    public long lastRestoreMillis() {
        return lastRestoreMillis;
    }

    /** Bytes the last checkpoint wrote for all key groups (uploads and raw state), -1 before the first. */
    public long lastSnapshotBytes() {
        return lastSnapshotBytes;
    }

    /** Bytes of the indexes the last checkpoint covered (what a full copy writes), -1 before the first. */
    public long lastIndexBytes() {
        return lastIndexBytes;
    }

    /** Index files the last checkpoint uploaded to the shared directory. */
    public long lastUploadedFiles() {
        return lastUploadedFiles;
    }

    /** Shared files deleted so far (subsumed, aborted, or swept after a restore). */
    public long deletedFiles() {
        return sweptFiles + uploads.deleted();
    }

    /** Wall time of the last checkpoint's synchronous part (commit, pin, plan) in milliseconds, -1 before the first. */
    public long lastSnapshotMillis() {
        return lastSnapshotMillis;
    }

    /** Wall time of the last finished asynchronous part (uploads and copies) in milliseconds, -1 before the first. */
    public long lastAsyncMillis() {
        return lastAsyncMillis;
    }

    /** Key groups with an index found in the last restore. */
    public int lastRestoredKeyGroups() {
        return lastRestoredKeyGroups;
    }

    /** Shared files tracked now (owned uploads a checkpoint may still need). */
    public int trackedFiles() {
        return registry.size();
    }
}
