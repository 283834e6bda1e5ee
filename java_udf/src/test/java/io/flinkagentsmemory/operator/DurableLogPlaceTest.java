package io.flinkagentsmemory.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DurableLogPlaceTest {

    private static Optional<DurableLogPlace> place(Map<String, String> settings) {
        return DurableLogPlace.of((key, fallback) -> settings.getOrDefault(key, fallback), "job1", "op1");
    }

    @Test
    void aLocalCheckpointDirectoryGetsALogBesideTheJobsCheckpoints() {
        DurableLogPlace place = place(Map.of("execution.checkpointing.dir", "file:///data/cp")).orElseThrow();
        assertEquals("/data/cp/job1/durable-calls/op1", place.directory());
        assertNull(place.restoredFrom());
    }

    @Test
    void aResumeFromARetainedCheckpointAlsoReadsTheOldJobsLog() {
        DurableLogPlace place = place(Map.of("execution.checkpointing.dir", "/data/cp",
                "execution.state-recovery.path", "file:///data/cp/old/chk-7")).orElseThrow();
        assertEquals("/data/cp/old/durable-calls/op1", place.restoredFrom());
    }

    @Test
    void noLocalCheckpointDirectoryMeansNoLog() {
        assertTrue(place(Map.of()).isEmpty());
        assertTrue(place(Map.of("execution.checkpointing.dir", "s3://bucket/cp")).isEmpty());
    }
}
