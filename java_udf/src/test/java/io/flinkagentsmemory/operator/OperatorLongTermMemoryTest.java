package io.flinkagentsmemory.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The end of a subtask attempt: its local index goes, written or not. */
class OperatorLongTermMemoryTest {

    @TempDir
    Path dir;

    @Test
    void closeRemovesTheAttemptsLocalIndex() throws Exception {
        Path base = dir.resolve("0-0");
        OperatorLongTermMemory memory = new OperatorLongTermMemory(base, "op", "1", "NO_CLAIM",
                () -> "alice", () -> 3);
        memory.store().add("{\"id\":\"m1\",\"memory\":\"likes tea\"}", null);
        assertEquals(1, memory.store().count(0));
        assertTrue(Files.isDirectory(base.resolve("kg-3")));

        memory.close();

        assertFalse(Files.exists(base), "the attempt's local index is left on disk");
        memory.close(); // twice, as Flink may: nothing left to remove, no error
    }
}
