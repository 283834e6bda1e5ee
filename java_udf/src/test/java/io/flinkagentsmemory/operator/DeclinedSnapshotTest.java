package io.flinkagentsmemory.operator;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableFuture;
import org.apache.flink.runtime.state.DoneFuture;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeOffsets;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A checkpoint whose index could not be written fails in its asynchronous part, cleaned up. */
class DeclinedSnapshotTest {

    @TempDir
    Path dir;

    @Test
    void runningItDiscardsWhatWasWrittenAndThrowsTheCause() throws Exception {
        Path file = Files.write(dir.resolve("raw-keyed-state"), new byte[] {1, 2, 3});
        KeyedStateHandle written = new KeyGroupsStateHandle(new KeyGroupRangeOffsets(KeyGroupRange.of(0, 1)),
                new FileStateHandle(new org.apache.flink.core.fs.Path(file.toUri()), 3));
        IOException cause = new IOException("Read-only file system");

        RunnableFuture<SnapshotResult<KeyedStateHandle>> declined =
                DeclinedSnapshot.of(DoneFuture.of(SnapshotResult.of(written)), cause);
        assertFalse(declined.isDone(), "the failure belongs to the asynchronous part");
        declined.run();

        ExecutionException thrown = assertThrows(ExecutionException.class, declined::get);
        assertInstanceOf(IOException.class, thrown.getCause());
        assertSame(cause, thrown.getCause().getCause());
        assertTrue(thrown.getCause().getMessage().contains("Read-only file system"));
        assertFalse(Files.exists(file), "the partly written raw keyed state was not discarded");
    }
}
