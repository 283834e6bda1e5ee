package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Random;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The PEMJA facade: JSON in and out, vectors as little-endian float32 bytes, key from the operator. */
class LongTermMemoryStoreTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final Random random = new Random(7);
    private SubtaskMemoryIndexes indexes;
    private SettableCurrentKey current;
    private LongTermMemoryStore store;

    @BeforeEach
    void setUp() {
        indexes = new SubtaskMemoryIndexes(dir);
        current = new SettableCurrentKey();
        current.set("alice", 3);
        store = new LongTermMemoryStore(indexes, current);
    }

    @AfterEach
    void tearDown() throws Exception {
        indexes.closeAll();
    }

    @Test
    void addGetRoundTripsTheJsonFormat() throws Exception {
        float[] v = unitVector(random, 4);
        String id = store.add("{\"id\":\"m1\",\"memory\":\"likes tea\",\"metadata\":{\"topic\":\"drinks\",\"n\":2},"
                + "\"hash\":\"abc\",\"created_at\":\"2024-05-01T10:00:00.000001+00:00\","
                + "\"updated_at\":\"2024-05-01T10:00:00.000001+00:00\",\"expires_at\":null}", Vectors.encode(v));
        assertEquals("m1", id);
        JsonNode got = JSON.readTree(store.get("m1", 0));
        assertEquals(JSON.readTree("{\"id\":\"m1\",\"memory\":\"likes tea\",\"metadata\":{\"topic\":\"drinks\",\"n\":2},"
                + "\"hash\":\"abc\",\"created_at\":\"2024-05-01T10:00:00.000001+00:00\","
                + "\"updated_at\":\"2024-05-01T10:00:00.000001+00:00\",\"expires_at\":null}"), got);
        assertArrayEquals(v, indexes.forKeyGroup(3).get("alice", "m1", 0).vector());
        assertEquals(4, store.dimension());
        assertEquals("abc", JSON.readTree(store.findByHash("abc", 0)).get("hash").asText());
        assertNull(store.findByHash("nope", 0));
        assertEquals(1, store.count(0));

        String generated = store.add("{\"memory\":\"no id\",\"expires_at\":5000}", null);
        assertEquals(36, generated.length());
        assertEquals(5000, JSON.readTree(store.get(generated, 0)).get("expires_at").asLong());
        assertNull(store.get(generated, 5000));
    }

    @Test
    void keyComesFromTheOperatorOnly() throws Exception {
        store.add("{\"id\":\"m1\",\"memory\":\"alice's\",\"key\":\"bob\"}", null);
        current.set("bob", current.keyGroup());
        assertNull(store.get("m1", 0), "a key in the JSON is ignored");
        assertFalse(store.delete("m1"));
        assertFalse(store.update("m1", "{\"memory\":\"hijack\"}", null));
        assertEquals("[]", store.getAll(null, 10, 0));
        current.set("alice", current.keyGroup());
        assertEquals("alice's", JSON.readTree(store.get("m1", 0)).get("memory").asText());
    }

    @Test
    void readsOfAnUnseenKeyGroupCreateNothing() throws Exception {
        current.set(current.key(), 99);
        assertNull(store.get("x", 0));
        assertEquals("[]", store.getAll("{}", 10, 0));
        assertEquals("[]", store.search("tea", null, "{\"mode\":\"keyword\"}"));
        assertEquals(0, store.count(0));
        assertEquals(-1, store.dimension());
        assertEquals(0, store.deleteOldest(1));
        assertFalse(indexes.hasKeyGroup(99));
    }

    @Test
    void addBatchSplitsConcatenatedVectors() throws Exception {
        float[][] vs = {unitVector(random, 3), unitVector(random, 3), unitVector(random, 3)};
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (float[] v : vs) {
            bytes.write(Vectors.encode(v));
        }
        JsonNode ids = JSON.readTree(store.addBatch(
                "[{\"id\":\"a\",\"memory\":\"one\"},{\"id\":\"b\",\"memory\":\"two\"},{\"memory\":\"three\"}]",
                bytes.toByteArray()));
        assertEquals(3, ids.size());
        assertEquals("a", ids.get(0).asText());
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(vs[i], indexes.forKeyGroup(3).get("alice", ids.get(i).asText(), 0).vector());
        }
        assertEquals("[]", store.addBatch("[]", null));
        assertThrows(IllegalArgumentException.class,
                () -> store.addBatch("[{\"memory\":\"x\"},{\"memory\":\"y\"}]", new byte[12]));
    }

    @Test
    void searchUpdateDeleteOldest() throws Exception {
        float[] tea = unitVector(random, 8);
        store.add("{\"id\":\"t\",\"memory\":\"green tea\",\"metadata\":{\"kind\":\"drink\"},\"created_at\":\"2024-01-01T00:00:00Z\"}",
                Vectors.encode(tea));
        store.add("{\"id\":\"c\",\"memory\":\"black coffee\",\"metadata\":{\"kind\":\"drink\"},\"created_at\":\"2024-01-02T00:00:00Z\"}",
                Vectors.encode(unitVector(random, 8)));
        JsonNode hits = JSON.readTree(store.search(null, Vectors.encode(tea),
                "{\"mode\":\"vector\",\"limit\":1,\"min_score\":null,\"filters\":{\"kind\":\"drink\"},\"now\":0}"));
        assertEquals(1, hits.size());
        assertEquals("t", hits.get(0).get("id").asText());
        assertEquals(1.0, hits.get(0).get("score").asDouble(), 1e-5);
        assertEquals("c", JSON.readTree(store.search("coffee", null, "{\"mode\":\"keyword\"}")).get(0).get("id").asText());
        assertEquals(2, JSON.readTree(store.search("coffee", Vectors.encode(tea), "{\"mode\":\"hybrid\"}")).size());
        assertThrows(IllegalArgumentException.class, () -> store.search("x", null, "{\"mode\":\"hybrid\"}"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> store.search("x", null, "{\"mode\":\"fuzzy\"}"));
        assertTrue(e.getMessage().contains("fuzzy"));

        assertTrue(store.update("t", "{\"memory\":\"oolong tea\",\"created_at\":\"2024-01-01T00:00:00Z\"}", null));
        assertEquals("oolong tea", JSON.readTree(store.get("t", 0)).get("memory").asText());
        assertEquals(1, store.deleteOldest(1));
        assertEquals("c", JSON.readTree(store.getAll("{}", 10, 0)).get(0).get("id").asText());
        assertTrue(store.delete("c"));
        assertEquals(0, store.count(0));
    }

    @Test
    void badVectorBytesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> store.add("{\"memory\":\"x\"}", new byte[5]));
        float[] notUnit = {1f, 1f};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> store.add("{\"memory\":\"x\"}", Vectors.encode(notUnit)));
        assertTrue(e.getMessage().contains("norm"));
    }
}
