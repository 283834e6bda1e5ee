package io.flinkagentsmemory.checkpoint;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.function.Supplier;

import io.flinkagentsmemory.index.SubtaskMemoryIndexes;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyedStateCheckpointOutputStream;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

/**
 * Checkpoints the subtask's key-group indexes into Flink's raw keyed state, one blob per key group
 * (see {@link KeyGroupIndexSnapshotter}), so on rescale Flink hands each subtask exactly the key
 * groups of its new range. The operator calls these from its own snapshotState/initializeState,
 * after super, and must override {@code isUsingCustomRawKeyedState()} to return true.
 *
 * <p>The copy is synchronous and full (every checkpoint rewrites all files); its size and duration
 * are kept for metrics.
 */
public final class LongTermMemoryCheckpointHooks implements CheckpointedFunction {

    private final Supplier<SubtaskMemoryIndexes> indexes;
    private volatile long lastSnapshotBytes = -1;
    private volatile long lastSnapshotMillis = -1;
    private volatile int lastRestoredKeyGroups;
    private volatile long lastRestoreMillis;

    public LongTermMemoryCheckpointHooks(Supplier<SubtaskMemoryIndexes> indexes) {
        this.indexes = indexes;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        if (!(context instanceof StateSnapshotContext ctx)) {
            throw new IllegalStateException("long-term memory checkpoint needs a StateSnapshotContext "
                    + "(raw keyed state), got " + context.getClass().getName());
        }
        long start = System.nanoTime();
        SubtaskMemoryIndexes subtask = indexes.get();
        KeyedStateCheckpointOutputStream raw = ctx.getRawKeyedOperatorStateOutput();
        // Not closed here: Flink closes the raw keyed stream and builds its handle.
        DataOutputStream out = new DataOutputStream(raw);
        long bytes = 0;
        for (int kg : raw.getKeyGroupList()) {
            raw.startNewKeyGroup(kg);
            bytes += subtask.hasKeyGroup(kg)
                    ? KeyGroupIndexSnapshotter.write(subtask.forKeyGroup(kg), out)
                    : KeyGroupIndexSnapshotter.writeEmpty(out);
        }
        out.flush();
        lastSnapshotBytes = bytes;
        lastSnapshotMillis = (System.nanoTime() - start) / 1_000_000;
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
            for (KeyGroupStatePartitionStreamProvider p : ctx.getRawKeyedStateInputs()) {
                DataInputStream in = new DataInputStream(p.getStream());
                if (KeyGroupIndexSnapshotter.restore(in, subtask.directoryFor(p.getKeyGroupId()))) {
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

    /** Bytes the last checkpoint wrote for all key groups, -1 before the first. */
    public long lastSnapshotBytes() {
        return lastSnapshotBytes;
    }

    /** Wall time of the last checkpoint's copy in milliseconds, -1 before the first. */
    public long lastSnapshotMillis() {
        return lastSnapshotMillis;
    }

    /** Key groups with an index found in the last restore. */
    public int lastRestoredKeyGroups() {
        return lastRestoredKeyGroups;
    }
}
