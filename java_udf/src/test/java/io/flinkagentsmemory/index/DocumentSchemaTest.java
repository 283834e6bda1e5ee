package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;

import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.junit.jupiter.api.Test;

/** A document written in the schema reads back as it was given, whatever field it lacks. */
class DocumentSchemaTest {

    private static final int KG = 4;

    @Test
    void everyFieldReadsBackAndTheVectorOnlyWhenAskedFor() throws Exception {
        float[] v = {0.6f, 0.8f};
        MemoryDocument written = new MemoryDocument("a", "alice", KG, "likes tea", v, "{\"topic\":\"drinks\"}",
                "h1", "2024-01-01T00:00:00+00:00", "2024-01-02T00:00:00+00:00", 1_234);
        try (InMemoryIndex index = new InMemoryIndex().add(written)) {
            IndexSearcher s = index.searcher();
            MemoryDocument read = DocumentSchema.read(s.getIndexReader(), s.storedFields(), 0, true);
            assertEquals(List.of("a", "alice", KG, "likes tea", "{\"topic\":\"drinks\"}", "h1",
                    "2024-01-01T00:00:00+00:00", "2024-01-02T00:00:00+00:00", 1_234L), fields(read));
            assertArrayEquals(v, read.vector());
            assertNull(DocumentSchema.read(s.getIndexReader(), s.storedFields(), 0, false).vector());
        }
    }

    @Test
    void optionalFieldsStayAbsent() throws Exception {
        MemoryDocument bare = new MemoryDocument("b", "bob", KG, "no vector", null, null, null, null, null,
                MemoryDocument.NEVER);
        try (InMemoryIndex index = new InMemoryIndex().add(bare)) {
            IndexSearcher s = index.searcher();
            MemoryDocument read = DocumentSchema.read(s.getIndexReader(), s.storedFields(), 0, true);
            assertEquals(List.of("b", "bob", KG, "no vector", "{}"), fields(read).subList(0, 5));
            assertNull(read.vector());
            assertNull(read.hash());
            assertNull(read.createdAt());
            assertNull(read.updatedAt());
            assertEquals(MemoryDocument.NEVER, read.expiresAt());
        }
    }

    @Test
    void neverExpiringIsStoredAsTheEndOfTime() throws Exception {
        try (InMemoryIndex index = new InMemoryIndex().add(doc("n", "alice", KG, "m", null))) {
            IndexSearcher s = index.searcher();
            assertEquals(1, s.count(LongPoint.newExactQuery(DocumentSchema.EXPIRES_AT, Long.MAX_VALUE)));
        }
    }

    @Test
    void theVectorIsFoundInItsOwnSegment() throws Exception {
        List<MemoryDocument> docs = List.of(
                doc("x", "alice", KG, "m", new float[] {1f, 0f}),
                doc("y", "alice", KG, "m", null),
                doc("z", "alice", KG, "m", new float[] {0f, 1f}));
        try (InMemoryIndex index = new InMemoryIndex().add(docs, true)) {
            IndexSearcher s = index.searcher();
            IndexReader reader = s.getIndexReader();
            assertEquals(3, reader.leaves().size());
            for (ScoreDoc sd : s.search(new MatchAllDocsQuery(), 3).scoreDocs) {
                MemoryDocument read = DocumentSchema.read(reader, s.storedFields(), sd.doc, true);
                MemoryDocument original = docs.stream().filter(d -> d.id().equals(read.id())).findFirst().orElseThrow();
                assertArrayEquals(original.vector(), read.vector(), read.id());
            }
        }
    }

    @Test
    void keyIdsOfDifferentPairsNeverCollide() throws Exception {
        assertNotEquals(DocumentSchema.keyId("ab", "c"), DocumentSchema.keyId("a", "bc"));
        try (InMemoryIndex index = new InMemoryIndex().add(doc("c", "ab", KG, "m", null), doc("bc", "a", KG, "m", null))) {
            assertEquals(1, index.searcher().count(new TermQuery(DocumentSchema.keyIdTerm("a", "bc"))));
        }
    }

    @Test
    void newestFirstSortsByCreationTime() throws Exception {
        try (InMemoryIndex index = new InMemoryIndex().add(
                doc("old", "alice", KG, "m", null, "{}", MemoryDocument.NEVER, "2024-01-01T00:00:00Z"),
                doc("new", "alice", KG, "m", null, "{}", MemoryDocument.NEVER, "2024-03-01T00:00:00+01:00"),
                doc("mid", "alice", KG, "m", null, "{}", MemoryDocument.NEVER, "2024-02-01T00:00:00"))) {
            IndexSearcher s = index.searcher();
            List<String> ids = List.of(s.search(new MatchAllDocsQuery(), 3, DocumentSchema.newestFirst()).scoreDocs)
                    .stream()
                    .map(sd -> read(s, sd.doc).id())
                    .toList();
            assertEquals(List.of("new", "mid", "old"), ids);
        }
    }

    private static MemoryDocument read(IndexSearcher s, int doc) {
        try {
            return DocumentSchema.read(s.getIndexReader(), s.storedFields(), doc, false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Object> fields(MemoryDocument d) {
        return Arrays.asList(d.id(), d.key(), d.keyGroup(), d.memory(), d.metadataJson(), d.hash(),
                d.createdAt(), d.updatedAt(), d.expiresAt());
    }
}
