package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An index opened read-only answers every read like the writer's index and writes nothing. */
class ReadOnlyKeyGroupIndexTest {

    @TempDir
    Path dir;

    @Test
    void readsLikeTheWrittenIndexAndRefusesEveryWrite() throws Exception {
        Random random = new Random(3);
        Path path = dir.resolve("kg-5");
        List<String> newest;
        List<SearchHit> hits;
        try (KeyGroupIndex written = KeyGroupIndex.open(path, 5, 1)) {
            for (int i = 0; i < 20; i++) {
                written.add(doc("m" + i, i % 2 == 0 ? "a" : "b", 5, "memory " + i + " about tea", unitVector(random, 8)));
            }
            newest = written.getAll("a", MetadataFilter.none(), 5, 0).stream().map(MemoryDocument::id).toList();
            hits = written.search("a", "tea", unitVector(new Random(9), 8),
                    SearchOptions.fromJson("{\"mode\":\"hybrid\",\"limit\":5,\"now\":0}"));
            written.commit();
        }
        List<String> before = listing(path);
        try (KeyGroupIndex index = KeyGroupIndex.openReadOnly(FSDirectory.open(path), 5)) {
            assertTrue(index.readOnly());
            assertEquals(10, index.count("a", 0));
            assertEquals(newest, index.getAll("a", MetadataFilter.none(), 5, 0).stream().map(MemoryDocument::id).toList());
            assertEquals(hits.stream().map(h -> h.document().id()).toList(),
                    index.search("a", "tea", unitVector(new Random(9), 8),
                            SearchOptions.fromJson("{\"mode\":\"hybrid\",\"limit\":5,\"now\":0}"))
                            .stream().map(h -> h.document().id()).toList());
            assertEquals("memory 2 about tea", index.get("a", "m2", 0).memory());
            assertEquals(8, index.dimension());
            assertThrows(UnsupportedOperationException.class,
                    () -> index.add(doc("x", "a", 5, "new", unitVector(random, 8))));
            assertThrows(UnsupportedOperationException.class, () -> index.delete("a", "m2"));
            assertThrows(UnsupportedOperationException.class, () -> index.purgeExpired(Long.MAX_VALUE));
            assertThrows(UnsupportedOperationException.class, () -> index.deleteOldest("a", 1));
            assertThrows(UnsupportedOperationException.class, index::commit);
            assertThrows(UnsupportedOperationException.class, index::acquireCommit);
            index.awaitMerges(); // nothing merges: returns at once
        }
        assertEquals(before, listing(path), "no file was written, locked or deleted");
    }

    @Test
    void anAdoptedIndexServesItsKeyGroup() throws Exception {
        Path path = dir.resolve("live");
        try (KeyGroupIndex written = KeyGroupIndex.open(path, 7, 1)) {
            written.add(doc("m1", "k", 7, "hello", null));
        }
        try (SubtaskMemoryIndexes indexes = new SubtaskMemoryIndexes(dir.resolve("base"))) {
            SettableCurrentKey key = new SettableCurrentKey();
            LongTermMemoryStore store = new LongTermMemoryStore(indexes, key);
            indexes.adopt(7, KeyGroupIndex.openReadOnly(FSDirectory.open(path), 7));
            try (KeyGroupIndex second = KeyGroupIndex.openReadOnly(FSDirectory.open(path), 7)) {
                assertThrows(IllegalStateException.class, () -> indexes.adopt(7, second));
            }
            key.set("k", 7);
            assertEquals(1, store.count(0));
            assertTrue(indexes.hasKeyGroup(7));
            assertTrue(!Files.exists(dir.resolve("base")), "nothing created under the base directory");
        }
    }

    private static List<String> listing(Path path) throws Exception {
        try (Stream<Path> files = Files.list(path)) {
            return files.map(p -> p.getFileName() + ":" + p.toFile().length()).sorted().toList();
        }
    }
}
