package io.flinkagentsmemory.inspect;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Random;

import io.flinkagentsmemory.checkpoint.KeyGroupIndexSnapshotter;
import io.flinkagentsmemory.index.KeyGroupIndex;
import io.flinkagentsmemory.index.SubtaskMemoryIndexes;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeOffsets;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.filesystem.FileStateHandle;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.lucene.store.Directory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw keyed state as the operator writes it (key groups 3..6, indexes in 4 and 6) is located and
 * counted without copying, opened read-only in place (from memory and from a memory-mapped file)
 * when asked for, and answered by the helper's requests; the restore path (the fallback) too.
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
            answers(ltm);
        }
    }

    @Test
    void locatesCountsAndOpensInPlaceFromMemoryWritingNothing() throws Exception {
        KeyGroupsStateHandle raw = rawState();
        inPlace(raw);
    }

    @Test
    void locatesCountsAndOpensInPlaceFromAMappedFileWritingNothing() throws Exception {
        rawState();
        Path file = dir.resolve("state-file");
        Files.write(file, bytes);
        KeyGroupsStateHandle raw = new KeyGroupsStateHandle(new KeyGroupRangeOffsets(KeyGroupRange.of(3, 6), offsets),
                new FileStateHandle(new org.apache.flink.core.fs.Path(file.toUri()), bytes.length));
        inPlace(raw);
        assertArrayEquals(bytes, Files.readAllBytes(file), "the state file is only read");
    }

    private void inPlace(KeyGroupsStateHandle raw) throws Exception {
        Path work = dir.resolve("work");
        SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(work);
        Map<Integer, Directory> unopened = new TreeMap<>();
        LongTermIndexes.StateFiles files = new LongTermIndexes.StateFiles();
        List<LongTermIndexes.KeyGroupStats> stats = LongTermIndexes.locate(raw, files, indexes, unopened, 0);
        assertEquals(List.of(4, 6), stats.stream().map(LongTermIndexes.KeyGroupStats::keyGroup).toList());
        assertEquals(5, stats.get(0).memories());
        assertEquals(1, stats.get(1).memories());
        assertTrue(stats.stream().allMatch(s -> s.segments() >= 1 && s.bytes() > 0));
        assertEquals(List.of(4, 6), List.copyOf(unopened.keySet()));
        try (LongTermIndexes ltm = LongTermIndexes.forTest(indexes, unopened, files)) {
            assertEquals(2, ltm.unopenedCount());
            answers(ltm);
            assertEquals(0, ltm.unopenedCount());
            ltm.warmUp();
        }
        assertFalse(Files.exists(work), "nothing was copied or written");
    }

    private static void answers(LongTermIndexes ltm) throws Exception {
        {
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
            assertEquals(3, ask(ltm, "{\"op\":\"count\",\"key\":\"a\",\"key_group\":4}").get("total").asInt());
            assertThrows(IllegalArgumentException.class,
                    () -> InspectorMain.answer(ltm, null, MAPPER.readTree("{\"op\":\"delete\",\"key\":\"a\",\"key_group\":4}")));
            assertThrows(IllegalArgumentException.class,
                    () -> InspectorMain.answer(ltm, null, MAPPER.readTree("{\"op\":\"memories\",\"key\":\"a\",\"key_group\":999}")));
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
    void aDamagedBlobNamesItsKeyGroupWhenLocated() throws Exception {
        rawState();
        byte[] truncated = Arrays.copyOf(bytes, (int) offsets[3] + 20);
        InspectionException e = assertThrows(InspectionException.class,
                () -> LongTermIndexes.locate(handle(truncated), new LongTermIndexes.StateFiles(),
                        new SubtaskMemoryIndexes(dir.resolve("w")), new TreeMap<>(), 2));
        assertTrue(e.getMessage().contains("subtask 2, key group 6"), e.getMessage());
        // a state file cut inside the last file's bytes: the table reads, the file does not fit
        Path file = dir.resolve("cut");
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 5));
        KeyGroupsStateHandle cut = new KeyGroupsStateHandle(new KeyGroupRangeOffsets(KeyGroupRange.of(3, 6), offsets),
                new FileStateHandle(new org.apache.flink.core.fs.Path(file.toUri()), bytes.length - 5));
        LongTermIndexes.StateFiles files = new LongTermIndexes.StateFiles();
        InspectionException short_ = assertThrows(InspectionException.class,
                () -> LongTermIndexes.locate(cut, files, new SubtaskMemoryIndexes(dir.resolve("w")), new TreeMap<>(), 2));
        files.close();
        assertTrue(short_.getMessage().contains("key group 6") && short_.getMessage().contains("truncated"),
                short_.getMessage());
    }

    @Test
    void keyedStatesListCheaplyAndDecodeOnRequest() throws Exception {
        KeyedStates keys = new KeyedStates();
        int[] decoded = {0};
        keys.add("a", 4, MemoryOperatorState.SHORT_TERM, states -> {
            decoded[0]++;
            states.putObject(MemoryOperatorState.SHORT_TERM).put("x", "1");
        });
        keys.add("a", 4, "flink_agents_memory.history.audit", states -> {
            decoded[0]++;
            states.putArray("flink_agents_memory.history.audit").add("e");
        });
        keys.add("b", 6, "flink_agents_memory.history.chat", states -> states.putArray("c"));
        assertEquals(2, keys.size());
        assertEquals(Map.of(4, "a", 6, "b"), keys.keyOfGroup());
        Path index = dir.resolve("keys.jsonl");
        keys.writeIndex(index);
        List<String> lines = Files.readAllLines(index);
        JsonNode a = MAPPER.readTree(lines.get(0));
        assertEquals(1, a.get("short_term_paths").asInt());
        assertEquals(2, a.get("states").size());
        assertEquals(0, decoded[0], "listing decodes nothing");
        JsonNode only = MAPPER.readTree(InspectorMain.answer(null, keys,
                MAPPER.readTree("{\"op\":\"states\",\"key\":\"a\",\"names\":[\"" + MemoryOperatorState.SHORT_TERM + "\"]}")));
        assertEquals("1", only.get("states").get(MemoryOperatorState.SHORT_TERM).get("x").asText());
        assertEquals(1, decoded[0], "only the asked state is decoded");
        assertEquals(0, keys.states("nobody", null).size());
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
        JsonNode reply = MAPPER.readTree(InspectorMain.answer(ltm, null, MAPPER.readTree(request)));
        assertTrue(reply.get("ok").asBoolean(), reply.toString());
        return reply;
    }
}
