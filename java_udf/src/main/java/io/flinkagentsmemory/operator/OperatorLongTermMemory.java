package io.flinkagentsmemory.operator;

import io.flinkagentsmemory.checkpoint.LongTermMemoryCheckpointHooks;
import io.flinkagentsmemory.index.CurrentKey;
import io.flinkagentsmemory.index.LongTermMemoryStore;
import io.flinkagentsmemory.index.SubtaskMemoryIndexes;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.flink.types.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The long-term memory of one operator subtask: its key-group indexes, the store Python calls,
 * and the checkpoint hooks. Kept out of the operator so the operator only wires Flink calls.
 */
final class OperatorLongTermMemory implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OperatorLongTermMemory.class);

    private final SubtaskMemoryIndexes indexes;
    private final LongTermMemoryCheckpointHooks hooks;
    private final LongTermMemoryStore store;
    private AgentMetrics metrics;

    /**
     * @param operatorId folder of this operator's files in the job's shared checkpoint directory
     * @param numRetained {@code execution.checkpointing.num-retained} as configured
     * @param claimMode {@code execution.state-recovery.claim-mode} as configured
     */
    OperatorLongTermMemory(Path baseDir, String operatorId, String numRetained, String claimMode,
            Supplier<Object> currentKey, IntSupplier currentKeyGroup) {
        this.indexes = new SubtaskMemoryIndexes(baseDir);
        this.hooks = new LongTermMemoryCheckpointHooks(() -> indexes, operatorId,
                Integer.parseInt(numRetained.trim()), "CLAIM".equalsIgnoreCase(claimMode.trim()));
        this.store = new LongTermMemoryStore(indexes, new FlinkCurrentKey(currentKey, currentKeyGroup));
    }

    LongTermMemoryCheckpointHooks hooks() {
        return hooks;
    }

    /** Snapshot and restore figures of the hooks, read by reporters from volatile fields. */
    void registerMetrics(AgentMetrics metrics) {
        metrics.gauge("long_term.snapshot_bytes", 0);
        metrics.gauge("long_term.snapshot_ms", 0);
        metrics.gauge("long_term.snapshot_async_ms", 0);
        metrics.gauge("long_term.snapshot_index_bytes", 0);
        metrics.gauge("long_term.snapshot_uploaded_files", 0);
        metrics.gauge("long_term.shared_files_deleted", 0);
        metrics.gauge("long_term.restored_key_groups", hooks.lastRestoredKeyGroups());
        metrics.gauge("long_term.restore_ms", hooks.lastRestoreMillis());
        this.metrics = metrics;
    }

    /** After each checkpoint: sizes and documents of this subtask (task thread, no races). */
    void afterSnapshot() throws IOException {
        if (metrics == null) {
            return;
        }
        metrics.gauge("long_term.snapshot_bytes", Math.max(hooks.lastSnapshotBytes(), 0));
        metrics.gauge("long_term.snapshot_ms", Math.max(hooks.lastSnapshotMillis(), 0));
        metrics.gauge("long_term.snapshot_async_ms", Math.max(hooks.lastAsyncMillis(), 0));
        metrics.gauge("long_term.snapshot_index_bytes", Math.max(hooks.lastIndexBytes(), 0));
        metrics.gauge("long_term.snapshot_uploaded_files", hooks.lastUploadedFiles());
        metrics.gauge("long_term.shared_files_deleted", hooks.deletedFiles());
        metrics.gauge("long_term.documents", indexes.numDocs());
        metrics.gauge("long_term.key_groups", indexes.openKeyGroups().size());
        metrics.gauge("long_term.segments", indexes.segmentCount());
    }

    LongTermMemoryStore store() {
        return store;
    }

    /**
     * Drops this attempt's local index (the checkpoints hold the durable copy) without writing.
     * Never throws: Flink closes operators while a failed task is cleaned up, and an exception
     * there is fatal to the whole TaskManager (a full disk once took it down this way).
     */
    @Override
    public void close() {
        try {
            hooks.close();
            indexes.discard();
        } catch (IOException | RuntimeException e) {
            LOG.warn("Could not remove the local long-term memory index {}; it is never read again", indexes.baseDir(), e);
        }
    }

    /**
     * PyFlink wraps a Python key as {@code Row.of(key)}; its key group is Flink's, taken from the
     * backend, never recomputed from the Python value (they differ).
     */
    private record FlinkCurrentKey(Supplier<Object> currentKey, IntSupplier currentKeyGroup)
            implements CurrentKey {
        @Override
        public String key() {
            Object key = currentKey.get();
            if (key instanceof Row row && row.getArity() == 1) {
                key = row.getField(0);
            }
            return String.valueOf(key);
        }

        @Override
        public int keyGroup() {
            return currentKeyGroup.getAsInt();
        }
    }
}
