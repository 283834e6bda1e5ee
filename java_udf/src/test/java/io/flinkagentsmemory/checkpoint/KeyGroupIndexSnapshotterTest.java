package io.flinkagentsmemory.checkpoint;

import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.flinkagentsmemory.index.KeyGroupIndex;
import io.flinkagentsmemory.index.MemoryDocument;
import io.flinkagentsmemory.index.MetadataFilter;
import io.flinkagentsmemory.index.Vectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyGroupIndexSnapshotterTest {

    private static final int KG = 5;
    private static final int DIM = 12;

    @TempDir
    Path dir;

    @Test
    void roundTripIsExactAndIgnoresLaterWrites() throws Exception {
        Random random = new Random(99);
        Map<String, MemoryDocument> expected = new HashMap<>();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long written;
        try (KeyGroupIndex index = KeyGroupIndex.open(dir.resolve("live"), KG, 1)) {
            for (int i = 0; i < 3000; i++) {
                MemoryDocument d = new MemoryDocument("id" + i, "key" + (i % 17), KG, "memory number " + i,
                        unitVector(random, DIM), "{\"i\":" + i + ",\"tag\":\"t" + (i % 3) + "\"}", "hash" + i,
                        "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", i % 10 == 0 ? 10_000L + i : MemoryDocument.NEVER);
                index.add(d);
                expected.put(d.id(), d);
            }
            for (int i = 0; i < 3000; i += 7) {
                index.delete("key" + (i % 17), "id" + i);
                expected.remove("id" + i);
            }
            written = KeyGroupIndexSnapshotter.write(index, new DataOutputStream(bytes));
            // After the snapshot: none of this may reach the restored copy.
            index.add(new MemoryDocument("late", "key1", KG, "late", unitVector(random, DIM), "{}", null, null, null,
                    MemoryDocument.NEVER));
            index.delete("key1", "id1");
            index.update("key2", "id2", new MemoryDocument("id2", "key2", KG, "changed", unitVector(random, DIM), "{}",
                    null, null, null, MemoryDocument.NEVER));
            index.commit();
        }
        assertEquals(bytes.size(), written);

        Path restored = dir.resolve("restored");
        assertTrue(KeyGroupIndexSnapshotter.restore(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())), restored));
        try (KeyGroupIndex copy = KeyGroupIndex.open(restored, KG, 1)) {
            assertEquals(expected.size(), copy.numDocs());
            assertEquals(DIM, copy.dimension());
            assertNull(copy.get("key1", "late", 0));
            for (MemoryDocument want : expected.values()) {
                MemoryDocument got = copy.get(want.key(), want.id(), 0);
                assertEquals(want.memory(), got.memory());
                assertEquals(want.metadataJson(), got.metadataJson());
                assertEquals(want.hash(), got.hash());
                assertEquals(want.createdAt(), got.createdAt());
                assertEquals(want.updatedAt(), got.updatedAt());
                assertEquals(want.expiresAt(), got.expiresAt());
                assertArrayEquals(Vectors.encode(want.vector()), Vectors.encode(got.vector()));
            }
            assertEquals(expected.values().stream().filter(d -> d.key().equals("key4")
                            && d.metadataJson().contains("\"t1\"")).count(),
                    copy.getAll("key4", MetadataFilter.parse("{\"tag\":\"t1\"}"), 10_000, 0).size());
        }
    }

    @Test
    void blobsAreSelfDelimitingAndTheEmptyMarkerRestoresNothing() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        try (KeyGroupIndex a = KeyGroupIndex.open(dir.resolve("a"), 1, 1);
                KeyGroupIndex empty = KeyGroupIndex.open(dir.resolve("e"), 2, 1)) {
            a.add(new MemoryDocument("x", "k", 1, "in a", null, "{}", null, null, null, MemoryDocument.NEVER));
            KeyGroupIndexSnapshotter.write(a, out);
            assertEquals(8, KeyGroupIndexSnapshotter.writeEmpty(out));
            KeyGroupIndexSnapshotter.write(empty, out);
        }
        out.writeInt(0xCAFE);
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
        assertTrue(KeyGroupIndexSnapshotter.restore(in, dir.resolve("ra")));
        assertFalse(KeyGroupIndexSnapshotter.restore(in, dir.resolve("rm")));
        assertFalse(Files.exists(dir.resolve("rm")));
        assertTrue(KeyGroupIndexSnapshotter.restore(in, dir.resolve("re")), "an index without documents is still an index");
        assertEquals(0xCAFE, in.readInt());
        try (KeyGroupIndex ra = KeyGroupIndex.open(dir.resolve("ra"), 1, 1);
                KeyGroupIndex re = KeyGroupIndex.open(dir.resolve("re"), 2, 1)) {
            assertEquals("in a", ra.get("k", "x", 0).memory());
            assertEquals(0, re.numDocs());
        }
    }

    @Test
    void restoreReplacesWhatTheTargetHeldAndRejectsForeignBytes() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (KeyGroupIndex a = KeyGroupIndex.open(dir.resolve("a"), 1, 1)) {
            a.add(new MemoryDocument("x", "k", 1, "snap", null, "{}", null, null, null, MemoryDocument.NEVER));
            KeyGroupIndexSnapshotter.write(a, new DataOutputStream(bytes));
        }
        Path target = dir.resolve("t");
        try (KeyGroupIndex stale = KeyGroupIndex.open(target, 1, 1)) {
            for (int i = 0; i < 10; i++) {
                stale.add(new MemoryDocument("s" + i, "k", 1, "stale", null, "{}", null, null, null, MemoryDocument.NEVER));
            }
        }
        KeyGroupIndexSnapshotter.restore(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())), target);
        try (KeyGroupIndex t = KeyGroupIndex.open(target, 1, 1)) {
            assertEquals(List.of("x"), t.getAll("k", MetadataFilter.none(), 100, 0).stream().map(MemoryDocument::id).toList());
        }
        IOException e = assertThrows(IOException.class, () -> KeyGroupIndexSnapshotter.restore(
                new DataInputStream(new ByteArrayInputStream(new byte[] {0, 0, 0, 9, 0, 0, 0, 1})), dir.resolve("f")));
        assertTrue(e.getMessage().contains("version 9"), e.getMessage());
    }
}
