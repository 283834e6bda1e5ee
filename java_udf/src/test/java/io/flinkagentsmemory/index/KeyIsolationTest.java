package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Many keys share few key-group indexes; no operation of one key may see or touch another's. */
class KeyIsolationTest {

    private static final int DIM = 16;
    private static final int KEY_GROUPS = 3;
    private static final int KEYS = 40;

    @TempDir
    Path dir;

    @Test
    void operationsOfOneKeyNeverReachAnother() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String ctx = "seed " + seed;
        try (SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(dir)) {
            Map<String, Set<String>> idsOfKey = new HashMap<>();
            List<String> keys = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                keys.add("user-" + k);
                idsOfKey.put("user-" + k, new HashSet<>());
            }
            // Ids are shared across keys on purpose: "m3" exists under many keys.
            for (int i = 0; i < 1500; i++) {
                String key = keys.get(random.nextInt(KEYS));
                String id = "m" + random.nextInt(60);
                indexes.forKeyGroup(kg(key)).add(new MemoryDocument(id, key, kg(key), "tea notes " + key,
                        unitVector(random, DIM), "{\"owner\":\"" + key + "\"}", "hash-" + id, null, null, MemoryDocument.NEVER));
                idsOfKey.get(key).add(id);
            }
            for (int round = 0; round < 300; round++) {
                String a = keys.get(random.nextInt(KEYS));
                KeyGroupIndex index = indexes.forKeyGroup(kg(a));
                String anyId = "m" + random.nextInt(60);
                switch (random.nextInt(5)) {
                    case 0 -> {
                        MemoryDocument d = index.get(a, anyId, 0);
                        assertEquals(idsOfKey.get(a).contains(anyId), d != null, ctx);
                        if (d != null) {
                            assertEquals(a, d.key(), ctx);
                        }
                    }
                    case 1 -> assertEquals(idsOfKey.get(a).remove(anyId), index.delete(a, anyId), ctx);
                    case 2 -> {
                        boolean had = idsOfKey.get(a).contains(anyId);
                        MemoryDocument replacement = new MemoryDocument(anyId, "someone-else", 999, "tea notes " + a,
                                unitVector(random, DIM), "{\"owner\":\"" + a + "\"}", "hash-" + anyId, null, null, MemoryDocument.NEVER);
                        assertEquals(had, index.update(a, anyId, replacement), ctx);
                    }
                    case 3 -> {
                        for (SearchOptions.Mode mode : SearchOptions.Mode.values()) {
                            for (SearchHit h : index.search(a, "tea notes", unitVector(random, DIM),
                                    new SearchOptions(mode, 50, null, null, 0))) {
                                assertOwnedBy(a, h.document(), ctx);
                            }
                        }
                    }
                    default -> {
                        List<MemoryDocument> all = index.getAll(a, MetadataFilter.none(), 1000, 0);
                        all.forEach(d -> assertOwnedBy(a, d, ctx));
                        assertEquals(idsOfKey.get(a).size(), all.size(), ctx);
                        assertEquals(idsOfKey.get(a).size(), index.count(a, 0), ctx);
                        MemoryDocument byHash = index.findByHash(a, "hash-" + anyId, 0);
                        assertEquals(idsOfKey.get(a).contains(anyId), byHash != null, ctx);
                    }
                }
            }
            // Every key still holds exactly its own ids.
            for (String key : keys) {
                Set<String> got = new HashSet<>();
                for (MemoryDocument d : indexes.forKeyGroup(kg(key)).getAll(key, MetadataFilter.none(), 1000, 0)) {
                    assertOwnedBy(key, d, ctx);
                    got.add(d.id());
                }
                assertEquals(idsOfKey.get(key), got, ctx + " key " + key);
            }
            // A filter naming another key's metadata finds nothing.
            String a = keys.get(0);
            String b = keys.get(KEYS - 1);
            assertTrue(indexes.forKeyGroup(kg(a))
                    .getAll(a, MetadataFilter.parse("{\"owner\":\"" + b + "\"}"), 100, 0).isEmpty(), ctx);
            assertNull(indexes.forKeyGroup(kg(b)).get(b, "no-such-id", 0));
            assertFalse(indexes.forKeyGroup(kg(b)).delete(b, "no-such-id"));
        }
    }

    /**
     * The key filter is AND-ed outside the metadata filter, so neither an OR that is always true
     * nor a NOT of the key's own metadata lets a key see another's memories, in any mode.
     */
    @Test
    void orAndNotStayInsideTheKey() throws Exception {
        Random random = new Random(5);
        try (KeyGroupIndex index = KeyGroupIndex.open(dir, 0, 8)) {
            for (String key : List.of("alice", "bob")) {
                for (int i = 0; i < 20; i++) {
                    index.add(new MemoryDocument(key + i, key, 0, "tea notes " + key, unitVector(random, DIM),
                            "{\"owner\":\"" + key + "\",\"i\":" + i + "}", null, null, null, MemoryDocument.NEVER));
                }
            }
            List<String> everything = List.of(
                    "{\"OR\":[{\"owner\":\"alice\"},{\"NOT\":[{\"owner\":\"alice\"}]}]}",
                    "{\"OR\":[{\"owner\":\"bob\"},{\"i\":{\"gte\":0}}]}",
                    "{\"owner\":{\"nin\":[\"bob\"]}}",
                    "{\"NOT\":[{\"owner\":\"bob\"}]}",
                    "{\"NOT\":[{\"owner\":{\"contains\":\"b\"}}]}",
                    "{\"owner\":\"*\"}");
            for (String filter : everything) {
                MetadataFilter f = MetadataFilter.parse(filter);
                assertEquals(20, index.getAll("alice", f, 100, 0).size(), filter);
                index.getAll("alice", f, 100, 0).forEach(d -> assertEquals("alice", d.key(), filter));
                for (SearchOptions.Mode mode : SearchOptions.Mode.values()) {
                    List<SearchHit> hits = index.search("alice", "tea notes bob", unitVector(random, DIM),
                            new SearchOptions(mode, 100, null, f, 0));
                    assertFalse(hits.isEmpty(), filter + " " + mode);
                    hits.forEach(h -> assertEquals("alice", h.document().key(), filter + " " + mode));
                }
            }
            for (String filter : List.of("{\"NOT\":[{\"owner\":\"alice\"}]}",
                    "{\"OR\":[{\"owner\":\"bob\"},{\"owner\":{\"icontains\":\"BO\"}}]}")) {
                MetadataFilter f = MetadataFilter.parse(filter);
                assertTrue(index.getAll("alice", f, 100, 0).isEmpty(), filter);
                for (SearchOptions.Mode mode : SearchOptions.Mode.values()) {
                    assertTrue(index.search("alice", "tea notes bob", unitVector(random, DIM),
                            new SearchOptions(mode, 100, null, f, 0)).isEmpty(), filter + " " + mode);
                }
            }
        }
    }

    private static void assertOwnedBy(String key, MemoryDocument d, String ctx) {
        assertEquals(key, d.key(), ctx);
        assertEquals(key, d.memory().substring("tea notes ".length()), ctx);
        assertEquals("{\"owner\":\"" + key + "\"}", d.metadataJson(), ctx);
    }

    private static int kg(String key) {
        return Math.floorMod(key.hashCode(), KEY_GROUPS);
    }
}
