package io.flinkagentsmemory.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A memory's context: found by keyword search, weighed below the text, never returned as it. */
class MemoryContextTest {

    private static final int KG = 3;

    @TempDir
    Path dir;

    private KeyGroupIndex index;

    @BeforeEach
    void open() throws Exception {
        index = KeyGroupIndex.open(dir, KG, 8);
    }

    @AfterEach
    void close() throws Exception {
        index.close();
    }

    private static MemoryDocument doc(String id, String memory, String context) {
        return MemoryDocument.fromJson("{\"id\":\"" + id + "\",\"memory\":\"" + memory + "\",\"context\":"
                + (context == null ? "null" : "\"" + context + "\"") + "}", "alice", KG, null);
    }

    private List<SearchHit> keyword(String query) throws Exception {
        return index.search("alice", query, null, new SearchOptions(SearchOptions.Mode.KEYWORD, 10, null, null, 0));
    }

    @Test
    void contextWordsFindTheMemoryWhichKeepsItsOwnText() throws Exception {
        index.add(doc("reply", "It was great, we loved it", "Bob: How was your trip to Lisbon?"));
        index.add(doc("other", "I am cooking pasta tonight", null));
        List<SearchHit> hits = keyword("Lisbon trip");
        assertEquals(1, hits.size());
        assertEquals("It was great, we loved it", hits.get(0).document().memory());
        assertEquals("Bob: How was your trip to Lisbon?", index.get("alice", "reply", 0).context());
        assertEquals("Bob: How was your trip to Lisbon?",
                index.get("alice", "reply", 0).toJson(null).get("context").asText());
        assertFalse(index.get("alice", "other", 0).toJson(null).has("context"));
    }

    @Test
    void aWordInTheTextOutranksTheSameWordInTheContext() throws Exception {
        index.add(doc("in-context", "alpha beta gamma", "Lisbon delta epsilon"));
        index.add(doc("in-text", "Lisbon beta gamma", "alpha delta epsilon"));
        SearchHit first = keyword("Lisbon").get(0);
        SearchHit second = keyword("Lisbon").get(1);
        assertEquals("in-text", first.document().id());
        assertEquals("in-context", second.document().id());
        // Same lengths and document frequencies in both fields: the context match scores CONTEXT_WEIGHT of the text match.
        assertEquals(Ranker.CONTEXT_WEIGHT, second.score() / first.score(), 1e-5);
    }

    @Test
    void updateKeepsTheContextPythonSendsBack() throws Exception {
        index.add(doc("a", "It was great", "trip to Lisbon"));
        MemoryDocument stored = index.get("alice", "a", 0);
        String json = stored.toJson(null).put("memory", "It was wonderful").toString();
        index.update("alice", "a", MemoryDocument.fromJson(json, "alice", KG, null));
        assertEquals("It was wonderful", keyword("lisbon").get(0).document().memory());
        assertNull(doc("b", "text", "  ").context());
        assertNull(doc("c", "text", null).context());
    }
}
