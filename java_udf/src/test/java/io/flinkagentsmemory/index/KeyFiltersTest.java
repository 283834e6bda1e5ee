package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.junit.jupiter.api.Test;

/** The filter of every read: one key, live documents only, metadata filters. */
class KeyFiltersTest {

    private static final int KG = 2;

    @Test
    void theFilterKeepsOneKeysLiveDocuments() throws Exception {
        try (InMemoryIndex index = new InMemoryIndex().add(
                doc("a", "alice", KG, "m", null, "{\"topic\":\"food\"}", 1_000, "2024-01-01T00:00:00Z"),
                doc("b", "alice", KG, "m", null, "{\"topic\":\"work\"}", MemoryDocument.NEVER, "2024-01-01T00:00:00Z"),
                doc("c", "bob", KG, "m", null, "{\"topic\":\"food\"}", MemoryDocument.NEVER, "2024-01-01T00:00:00Z"))) {
            IndexSearcher s = index.searcher();
            MetadataFilter none = MetadataFilter.none();
            assertEquals(2, s.count(KeyFilters.live(s, "alice", 999, none)));
            assertEquals(1, s.count(KeyFilters.live(s, "alice", 1_000, none)), "expires_at <= now is expired");
            assertEquals(1, s.count(KeyFilters.live(s, "bob", 1_000, none)));
            assertEquals(0, s.count(KeyFilters.live(s, "alice", 999, MetadataFilter.parse("{\"topic\":\"none\"}"))));
            assertEquals(1, s.count(KeyFilters.live(s, "alice", 999, MetadataFilter.parse("{\"topic\":\"food\"}"))));
            assertEquals(2, s.count(KeyFilters.key("alice")), "the key query counts expired documents too");
        }
    }

    @Test
    void theExpiryClauseIsLeftOutWhileNothingHasExpired() throws Exception {
        try (InMemoryIndex index = new InMemoryIndex().add(
                doc("a", "alice", KG, "m", null, "{}", 1_000, "2024-01-01T00:00:00Z"),
                doc("b", "alice", KG, "m", null))) {
            IndexSearcher s = index.searcher();
            assertFalse(KeyFilters.anyExpired(s, 999));
            assertTrue(KeyFilters.anyExpired(s, 1_000));
            // The same query object for every "now" before the first expiry: Lucene's query cache holds it.
            assertEquals(KeyFilters.live(s, "alice", 10, MetadataFilter.none()),
                    KeyFilters.live(s, "alice", 999, MetadataFilter.none()));
            assertEquals(List.of(BooleanClause.Occur.FILTER), occurs(KeyFilters.live(s, "alice", 999, MetadataFilter.none())));
            assertEquals(List.of(BooleanClause.Occur.FILTER, BooleanClause.Occur.MUST_NOT),
                    occurs(KeyFilters.live(s, "alice", 1_000, MetadataFilter.none())));
        }
    }

    @Test
    void aDeletedExpiredDocumentDoesNotCountAsExpired() throws Exception {
        try (InMemoryIndex index = new InMemoryIndex().add(
                doc("a", "alice", KG, "m", null, "{}", 1_000, "2024-01-01T00:00:00Z"),
                doc("b", "alice", KG, "m", null))) {
            assertTrue(KeyFilters.anyExpired(index.searcher(), 5_000));
            index.writer.deleteDocuments(DocumentSchema.keyIdTerm("alice", "a"));
            // The segment's points minimum still holds the deleted document's expiry.
            assertFalse(KeyFilters.anyExpired(index.searcher(), 5_000));
        }
    }

    @Test
    void neverExpiringDocumentsStayLiveAtTheEndOfTime() throws Exception {
        try (InMemoryIndex index = new InMemoryIndex().add(doc("a", "alice", KG, "m", null))) {
            IndexSearcher s = index.searcher();
            assertEquals(0, s.count(KeyFilters.expiredBy(Long.MAX_VALUE)));
            assertEquals(1, s.count(KeyFilters.live(s, "alice", Long.MAX_VALUE, MetadataFilter.none())));
        }
    }

    @Test
    void aKeyHoldsTheIndexUntilAnotherKeyArrives() throws Exception {
        try (InMemoryIndex index = new InMemoryIndex().add(doc("a", "alice", KG, "m", null))) {
            assertTrue(KeyFilters.keyHoldsIndex(index.searcher(), "alice"));
            assertFalse(KeyFilters.keyHoldsIndex(index.searcher(), "bob"));
            index.add(doc("b", "bob", KG, "m", null));
            assertFalse(KeyFilters.keyHoldsIndex(index.searcher(), "alice"));
        }
    }

    private static List<BooleanClause.Occur> occurs(Query q) {
        return ((BooleanQuery) q).clauses().stream().map(BooleanClause::getOccur).toList();
    }
}
