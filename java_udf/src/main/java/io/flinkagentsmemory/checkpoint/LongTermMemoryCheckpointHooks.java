package io.flinkagentsmemory.checkpoint;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import io.flinkagentsmemory.index.KeyGroupIndex;
import io.flinkagentsmemory.index.SubtaskMemoryIndexes;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyedStateCheckpointOutputStream;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.filesystem.FsCheckpointStorageLocation;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
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
 * without such storage, copy every file into raw keyed state, so they stand alone. The copy is
 * synchronous, on the task thread.
 */
public final class LongTermMemoryCheckpointHooks implements CheckpointedFunction {

    private static final Logger LOG = LoggerFactory.getLogger(LongTermMemoryCheckpointHooks.class);

    /** Where and how an announced checkpoint writes; {@code store} null: a full copy. */
    private record Target(long checkpointId, SharedFileStore store) {}

    private final Supplier<SubtaskMemoryIndexes> indexes;
    private final String storeName;
    private final boolean claimRestored;
    private final SharedFileRegistry registry;
    private final Set<Long> savepoints = new HashSet<>();
    private Target target;
    private boolean ownershipSettled;
    private volatile long lastSnapshotBytes = -1;
    private volatile long lastSnapshotMillis = -1;
    private volatile long lastIndexBytes = -1;
    private volatile long lastUploadedFiles;
    private volatile long deletedFiles;
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
        KeyedStateCheckpointOutputStream raw = ctx.getRawKeyedOperatorStateOutput();
        // Not closed here: Flink closes the raw keyed stream and builds its handle.
        DataOutputStream out = new DataOutputStream(raw);
        long bytes = 0;
        long indexBytes = 0;
        long uploadedFiles = 0;
        for (int kg : raw.getKeyGroupList()) {
            raw.startNewKeyGroup(kg);
            if (!subtask.hasKeyGroup(kg)) {
                bytes += KeyGroupIndexSnapshotter.writeEmpty(out);
            } else if (store == null) {
                long written = KeyGroupIndexSnapshotter.write(subtask.forKeyGroup(kg), out);
                bytes += written;
                indexBytes += written;
            } else {
                KeyGroupIndex index = subtask.forKeyGroup(kg);
                IncrementalSnapshot.Written w = IncrementalSnapshot.write(
                        index, ctx.getCheckpointId(), store, registry, out);
                bytes += w.uploadedBytes() + w.manifestBytes();
                indexBytes += w.indexBytes();
                uploadedFiles += w.uploadedFiles();
            }
        }
        out.flush();
        if (store != null && !ownershipSettled) {
            // Uploads of checkpoints that never completed before a failure: nothing names them.
            int swept = store.sweep(raw.getKeyGroupList(), registry.locations());
            deletedFiles += swept;
            ownershipSettled = true;
        }
        lastSnapshotBytes = bytes;
        lastIndexBytes = indexBytes;
        lastUploadedFiles = uploadedFiles;
        lastSnapshotMillis = (System.nanoTime() - start) / 1_000_000;
    }

    /** Deletes the uploads that no retained checkpoint references any more. */
    public void notifyCheckpointComplete(long checkpointId) {
        if (!savepoints.remove(checkpointId)) {
            delete(registry.completed(checkpointId), checkpointId);
        }
    }

    /** Deletes the uploads only the aborted checkpoint referenced. */
    public void notifyCheckpointAborted(long checkpointId) {
        if (!savepoints.remove(checkpointId)) {
            delete(registry.aborted(checkpointId), checkpointId);
        }
    }

    private void delete(List<String> locations, long checkpointId) {
        try {
            SharedFileStore.delete(locations);
            deletedFiles += locations.size();
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
        return deletedFiles;
    }

    /** Wall time of the last checkpoint's copy in milliseconds, -1 before the first. */
    public long lastSnapshotMillis() {
        return lastSnapshotMillis;
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
