package io.flinkagentsmemory.inspect;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import io.flinkagentsmemory.checkpoint.KeyGroupIndexSnapshotter;
import io.flinkagentsmemory.index.KeyGroupIndex;
import io.flinkagentsmemory.index.SubtaskMemoryIndexes;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeOffsets;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw keyed state as the operator writes it (key groups 3..6, indexes in 4 and 6) is materialised
 * through the checkpoint's restore path, counted, and answered by the helper's requests.
 */
class LongTermIndexesTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final int DIM = 8;

    @TempDir
    Path dir;

    private byte[] bytes;
    private long[] offsets;

    private KeyGroupsStateHandle rawState() throws Exception {
        Random random = new Random(7);
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(buffer);
        offsets = new long[4];
        for (int kg = 3; kg <= 6; kg++) {
            offsets[kg - 3] = out.size();
            if (kg == 4 || kg == 6) {
                try (KeyGroupIndex index = KeyGroupIndex.open(dir.resolve("live-" + kg), kg, 1)) {
                    int n = kg == 4 ? 5 : 1;
                    for (int i = 0; i < n; i++) {
                        String key = kg == 6 ? "c" : (i < 3 ? "a" : "b");
                        index.add(doc("kg" + kg + "-" + i, key, kg, "memory " + i + " about tea " + key,
                                unitVector(random, DIM)));
                    }
                    KeyGroupIndexSnapshotter.write(index, out);
                }
            } else {
                KeyGroupIndexSnapshotter.writeEmpty(out);
            }
        }
        bytes = buffer.toByteArray();
        return handle(bytes);
    }

    private KeyGroupsStateHandle handle(byte[] data) {
        return new KeyGroupsStateHandle(new KeyGroupRangeOffsets(KeyGroupRange.of(3, 6), offsets),
                new ByteStreamStateHandle("raw", data));
    }

    @Test
    void restoresEveryKeyGroupWithAnIndexAndCountsIt() throws Exception {
        SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(dir.resolve("restored"));
        List<LongTermIndexes.KeyGroupStats> stats = LongTermIndexes.restore(rawState(), indexes, 0);
        assertEquals(List.of(4, 6), stats.stream().map(LongTermIndexes.KeyGroupStats::keyGroup).toList());
        assertEquals(5, stats.get(0).memories());
        assertEquals(1, stats.get(1).memories());
        assertTrue(stats.stream().allMatch(s -> s.segments() >= 1 && s.bytes() > 0));
        indexes.close();
    }

    @Test
    void answersPagedListsSearchesAndGetsPerKey() throws Exception {
        SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(dir.resolve("restored"));
        LongTermIndexes.restore(rawState(), indexes, 0);
        try (LongTermIndexes ltm = new LongTermIndexes(indexes, List.of(), 128)) {
            JsonNode page = ask(ltm, "{\"op\":\"memories\",\"key\":\"a\",\"key_group\":4,\"offset\":1,\"limit\":5}");
            assertEquals(3, page.get("total").asInt());
            assertEquals(2, page.get("items").size());
            JsonNode hits = ask(ltm, "{\"op\":\"search\",\"key\":\"b\",\"key_group\":4,\"text\":\"tea\",\"mode\":\"keyword\"}");
            assertEquals(2, hits.get("items").size());
            assertTrue(hits.get("items").get(0).has("score"));
            JsonNode got = ask(ltm, "{\"op\":\"get\",\"key\":\"c\",\"key_group\":6,\"id\":\"kg6-0\"}");
            assertEquals("memory 0 about tea c", got.get("item").get("memory").asText());
            // another key's id is not visible, and an unknown key is empty
            assertTrue(ask(ltm, "{\"op\":\"get\",\"key\":\"a\",\"key_group\":6,\"id\":\"kg6-0\"}").get("item").isNull());
            assertEquals(0, ask(ltm, "{\"op\":\"memories\",\"key\":\"zz\",\"key_group\":5}").get("total").asInt());
            assertThrows(IllegalArgumentException.class,
                    () -> InspectorMain.answer(ltm, MAPPER.readTree("{\"op\":\"delete\",\"key\":\"a\",\"key_group\":4}")));
            assertThrows(IllegalArgumentException.class,
                    () -> InspectorMain.answer(ltm, MAPPER.readTree("{\"op\":\"memories\",\"key\":\"a\",\"key_group\":999}")));
        }
    }

    @Test
    void aDamagedBlobNamesItsKeyGroup() throws Exception {
        rawState();
        byte[] truncated = Arrays.copyOf(bytes, (int) offsets[3] + 20);
        SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(dir.resolve("restored"));
        InspectionException e = assertThrows(InspectionException.class,
                () -> LongTermIndexes.restore(handle(truncated), indexes, 2));
        assertTrue(e.getMessage().contains("subtask 2, key group 6"), e.getMessage());
        indexes.close();
    }

    @Test
    void aMissingOrForeignSavepointIsNamed() throws Exception {
        InspectionException missing = assertThrows(InspectionException.class,
                () -> MemoryOperatorState.load(dir.resolve("none").toString()));
        assertTrue(missing.getMessage().contains("savepoint"), missing.getMessage());
        Path garbage = dir.resolve("garbage");
        java.nio.file.Files.createDirectories(garbage);
        java.nio.file.Files.write(garbage.resolve("_metadata"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        InspectionException corrupt = assertThrows(InspectionException.class,
                () -> MemoryOperatorState.load(garbage.toString()));
        assertTrue(corrupt.getMessage().contains("corrupt or not a Flink savepoint"), corrupt.getMessage());
    }

    private static JsonNode ask(LongTermIndexes ltm, String request) throws Exception {
        JsonNode reply = MAPPER.readTree(InspectorMain.answer(ltm, MAPPER.readTree(request)));
        assertTrue(reply.get("ok").asBoolean(), reply.toString());
        return reply;
    }
}
