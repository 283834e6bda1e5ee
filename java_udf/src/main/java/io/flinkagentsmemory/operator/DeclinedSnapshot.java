package io.flinkagentsmemory.operator;

import java.io.IOException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.StateUtil;

/**
 * The raw keyed state of a checkpoint whose long-term index could not be written. An exception
 * in a checkpoint's synchronous part fails the task, whatever
 * {@code execution.checkpointing.tolerable-failed-checkpoints} says; one in its asynchronous part
 * declines the checkpoint, which Flink counts against that setting and retries with the next.
 * So the failure is handed to the asynchronous part: this future discards what was written and
 * throws it there.
 */
final class DeclinedSnapshot {

    private DeclinedSnapshot() {}

    static RunnableFuture<SnapshotResult<KeyedStateHandle>> of(
            RunnableFuture<SnapshotResult<KeyedStateHandle>> written, Exception cause) {
        return new FutureTask<>(() -> {
            try {
                StateUtil.discardStateFuture(written);
            } catch (Exception e) {
                cause.addSuppressed(e);
            }
            throw new IOException("the long-term memory index could not be written to this checkpoint, "
                    + "which is declined: " + cause, cause);
        });
    }
}
