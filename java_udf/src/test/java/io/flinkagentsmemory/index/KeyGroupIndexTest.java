package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static io.flinkagentsmemory.index.TestDocs.unitVector;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyGroupIndexTest {

    private static final int KG = 7;
    private static final int DIM = 8;

    @TempDir
    Path dir;

    private final Random random = new Random(42);
    private KeyGroupIndex index;

    @BeforeEach
    void open() throws Exception {
        index = KeyGroupIndex.open(dir, KG, 8);
    }

    @AfterEach
    void close() throws Exception {
        index.close();
    }

    @Test
    void addGetUpdateDelete() throws Exception {
        float[] v = unitVector(random, DIM);
        index.add(new MemoryDocument("a", "alice", KG, "likes tea", v, "{\"topic\":\"drinks\"}", "h1",
                "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:00+00:00", MemoryDocument.NEVER));
        MemoryDocument got = index.get("alice", "a", 0);
        assertEquals("likes tea", got.memory());
        assertEquals("alice", got.key());
        assertEquals(KG, got.keyGroup());
        assertEquals("h1", got.hash());
        assertEquals("{\"topic\":\"drinks\"}", got.metadataJson());
        assertArrayEquals(v, got.vector());
        assertEquals(MemoryDocument.NEVER, got.expiresAt());
        assertEquals(DIM, index.dimension());

        float[] v2 = unitVector(random, DIM);
        assertTrue(index.update("alice", "a", doc("ignored", "ignored", KG, "likes coffee", v2)));
        assertEquals(1, index.count("alice", 0));
        MemoryDocument updated = index.get("alice", "a", 0);
        assertEquals("likes coffee", updated.memory());
        assertArrayEquals(v2, updated.vector());
        assertFalse(index.update("alice", "missing", doc("x", "alice", KG, "x", v2)));

        assertTrue(index.update("alice", "a", doc("a", "alice", KG, "likes cocoa", null)));
        assertArrayEquals(v2, index.get("alice", "a", 0).vector(), "update without vector keeps the old one");

        assertTrue(index.delete("alice", "a"));
        assertFalse(index.delete("alice", "a"));
        assertNull(index.get("alice", "a", 0));
        assertEquals(0, index.count("alice", 0));
    }

    @Test
    void aReadFlushesNothingForAddsAndOnlyItsOwnKeysOtherWrites() throws Exception {
        index.add(doc("b1", "bob", KG, "bob's tea", unitVector(random, DIM)));
        assertEquals(1, index.count("bob", 0));
        long flushed = segmentFiles();
        index.add(doc("a1", "alice", KG, "alice's tea", unitVector(random, DIM)));
        assertEquals(1, index.search("bob", "tea", unitVector(random, DIM),
                new SearchOptions(SearchOptions.Mode.HYBRID, 10, null, null, 0)).size());
        assertEquals(1, index.count("bob", 0));
        assertEquals(flushed, segmentFiles(), "bob's reads cannot see alice's write: nothing flushed for them");
        assertEquals("alice's tea", index.get("alice", "a1", 0).memory(), "alice reads her own write");
        assertEquals(flushed, segmentFiles(), "from the recent documents in memory: nothing flushed");
        assertTrue(index.delete("alice", "a1"));
        assertNull(index.get("alice", "a1", 0), "and sees her delete at once");
        assertTrue(segmentFiles() > flushed, "after a delete her read reopened the reader, which flushed");
        assertEquals(1, index.numDocs(), "a read across keys sees every write");
    }

    private long segmentFiles() throws Exception {
        try (var files = java.nio.file.Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".si")).count();
        }
    }

    @Test
    void addIsIdempotentPerKeyAndIdsMayRepeatAcrossKeys() throws Exception {
        index.add(doc("same", "alice", KG, "first", unitVector(random, DIM)));
        index.add(doc("same", "alice", KG, "second", unitVector(random, DIM)));
        index.add(doc("same", "bob", KG, "bob's", unitVector(random, DIM)));
        assertEquals(1, index.count("alice", 0));
        assertEquals("second", index.get("alice", "same", 0).memory());
        assertEquals("bob's", index.get("bob", "same", 0).memory());
        assertTrue(index.delete("bob", "same"));
        assertEquals("second", index.get("alice", "same", 0).memory());
    }

    @Test
    void anotherKeysIdIsInvisible() throws Exception {
        index.add(doc("a", "alice", KG, "secret", unitVector(random, DIM)));
        assertNull(index.get("bob", "a", 0));
        assertFalse(index.delete("bob", "a"));
        assertFalse(index.update("bob", "a", doc("a", "bob", KG, "overwrite", unitVector(random, DIM))));
        assertEquals("secret", index.get("alice", "a", 0).memory());
        assertNull(index.findByHash("bob", "h-a", 0));
        assertNotNull(index.findByHash("alice", "h-a", 0));
    }

    @Test
    void aKeyHoldingTheWholeIndexIsStillIsolatedOnceAnotherKeyArrives() throws Exception {
        // While alice holds every document, vector search runs without the key filter.
        float[] q = unitVector(random, DIM);
        index.add(doc("a", "alice", KG, "alice's", unitVector(random, DIM)));
        SearchOptions vec = new SearchOptions(SearchOptions.Mode.VECTOR, 10, null, null, 0);
        assertEquals(List.of("a"), hitIds(index.search("alice", null, q, vec)));
        assertEquals(List.of(), hitIds(index.search("bob", null, q, vec)));
        index.add(doc("b", "bob", KG, "bob's", q));
        assertEquals(List.of("a"), hitIds(index.search("alice", null, q, vec)));
        assertEquals(List.of("b"), hitIds(index.search("bob", null, q, vec)));
        SearchOptions hybrid = new SearchOptions(SearchOptions.Mode.HYBRID, 10, null, null, 0);
        assertEquals(List.of("a"), hitIds(index.search("alice", "bob's", q, hybrid)));
    }

    @Test
    void expiredDocumentsAreNeverReturnedAndPurged() throws Exception {
        index.add(doc("old", "alice", KG, "short lived tea", unitVector(random, DIM), "{}", 1_000, "2024-01-01T00:00:00Z"));
        index.add(doc("new", "alice", KG, "forever tea", unitVector(random, DIM)));
        assertEquals(2, index.count("alice", 999));
        assertEquals(1, index.count("alice", 1_000), "expires_at <= now is expired");
        assertNull(index.get("alice", "old", 1_000));
        assertNotNull(index.get("alice", "old", 999));
        assertNull(index.findByHash("alice", "h-old", 5_000));
        assertEquals(List.of("new"), ids(index.getAll("alice", MetadataFilter.none(), 10, 5_000)));
        SearchOptions kw = new SearchOptions(SearchOptions.Mode.KEYWORD, 10, null, null, 5_000);
        assertEquals(1, index.search("alice", "tea", null, kw).size());
        SearchOptions vec = new SearchOptions(SearchOptions.Mode.VECTOR, 10, null, null, 5_000);
        assertEquals(1, index.search("alice", null, unitVector(random, DIM), vec).size());

        assertEquals(1, index.purgeExpired(5_000));
        assertEquals(1, index.numDocs());
        assertEquals(0, index.purgeExpired(5_000));
        // The purged document is deleted but still in its segment's points until a merge.
        assertEquals(List.of("new"), hitIds(index.search("alice", null, unitVector(random, DIM), vec)));
        assertEquals(1, index.count("alice", 5_000));
    }

    @Test
    void deleteOldestKeepsTheNewest() throws Exception {
        for (int i = 0; i < 10; i++) {
            index.add(doc("d" + i, "alice", KG, "m" + i, unitVector(random, DIM), "{}", MemoryDocument.NEVER,
                    String.format("2024-01-01T00:00:%02d.123456+00:00", i)));
        }
        index.add(doc("b", "bob", KG, "bob", unitVector(random, DIM)));
        assertEquals(7, index.deleteOldest("alice", 3));
        assertEquals(List.of("d9", "d8", "d7"), ids(index.getAll("alice", MetadataFilter.none(), 100, 0)));
        assertEquals(0, index.deleteOldest("alice", 3));
        assertEquals(1, index.count("bob", 0));
    }

    @Test
    void vectorSearchScoresAreHalfOfOnePlusDot() throws Exception {
        float[] q = unitVector(random, DIM);
        for (int i = 0; i < 50; i++) {
            index.add(doc("d" + i, "alice", KG, "m", unitVector(random, DIM)));
        }
        List<SearchHit> hits = index.search("alice", null, q,
                new SearchOptions(SearchOptions.Mode.VECTOR, 5, null, null, 0));
        assertEquals(5, hits.size());
        for (SearchHit h : hits) {
            assertNull(h.document().vector(), "hits do not carry vectors (Python never gets them)");
            float[] v = index.get("alice", h.document().id(), 0).vector();
            assertEquals((1 + TestDocs.dot(q, v)) / 2, h.score(), 1e-5);
        }
        double cut = hits.get(2).score();
        List<SearchHit> above = index.search("alice", null, q,
                new SearchOptions(SearchOptions.Mode.VECTOR, 5, cut, null, 0));
        assertEquals(3, above.size());
        assertThrows(IllegalArgumentException.class, () -> index.search("alice", "text", null,
                new SearchOptions(SearchOptions.Mode.VECTOR, 5, null, null, 0)));
    }

    @Test
    void keywordSearchRanksByBm25() throws Exception {
        index.add(doc("tea", "alice", KG, "Alice drinks green tea every morning", null));
        index.add(doc("teatea", "alice", KG, "Tea, tea and more tea: tea is life", null));
        index.add(doc("coffee", "alice", KG, "Alice prefers coffee in the evening", null));
        index.add(doc("bobtea", "bob", KG, "Bob loves tea tea tea tea", null));
        SearchOptions kw = new SearchOptions(SearchOptions.Mode.KEYWORD, 10, null, null, 0);
        assertEquals(List.of("teatea", "tea"), hitIds(index.search("alice", "TEA", null, kw)));
        assertEquals(List.of("coffee", "tea"), hitIds(index.search("alice", "coffee alice", null, kw)).subList(0, 2));
        assertEquals(List.of(), index.search("alice", "", null, kw));
        assertEquals(List.of(), index.search("alice", "  ", null, kw));
        assertEquals(List.of(), index.search("alice", "unknownword", null, kw));
    }

    @Test
    void hybridFusesTheScaledScoresOfBothLists() throws Exception {
        float[] q = unitVector(random, DIM);
        float[] near = nudge(q, 0.1f);
        float[] far = negate(q);
        index.add(doc("both", "alice", KG, "pizza pizza night", near));
        index.add(doc("textonly", "alice", KG, "pizza and a long story about dinner", far));
        index.add(doc("vectoronly", "alice", KG, "a quiet evening", q));
        List<SearchHit> hits = index.search("alice", "pizza", q,
                new SearchOptions(SearchOptions.Mode.HYBRID, 10, null, null, 0));
        // Vector scores scale min-max (vectoronly 1, textonly 0), BM25 over its best (both 1).
        assertEquals(List.of("both", "vectoronly", "textonly"), hitIds(hits));
        Map<String, Double> expected = fusedFromModes("pizza", q, 1.0);
        for (SearchHit h : hits) {
            assertEquals(expected.get(h.document().id()), h.score(), 1e-6, h.document().id());
        }
        assertEquals(0.5, hits.get(1).score(), 1e-6);
        assertTrue(hits.get(0).score() > 0.9 && hits.get(2).score() < 0.5, hits.toString());
        List<SearchHit> cut = index.search("alice", "pizza", q,
                new SearchOptions(SearchOptions.Mode.HYBRID, 10, 0.5, null, 0));
        assertEquals(List.of("both", "vectoronly"), hitIds(cut));
    }

    /** (vector score min-max scaled + w * BM25 over its best) / (1 + w), from each mode's own hits. */
    private Map<String, Double> fusedFromModes(String text, float[] q, double w) throws Exception {
        List<SearchHit> vec = index.search("alice", text, q, new SearchOptions(SearchOptions.Mode.VECTOR, 10, null, null, 0));
        List<SearchHit> kw = index.search("alice", text, q, new SearchOptions(SearchOptions.Mode.KEYWORD, 10, null, null, 0));
        Map<String, Double> out = new HashMap<>();
        double hi = vec.get(0).score(), lo = vec.get(vec.size() - 1).score();
        for (SearchHit h : vec) {
            out.merge(h.document().id(), (h.score() - lo) / (hi - lo) / (1 + w), Double::sum);
        }
        for (SearchHit h : kw) {
            out.merge(h.document().id(), w * h.score() / kw.get(0).score() / (1 + w), Double::sum);
        }
        return out;
    }

    @Test
    void hybridWeighsTheKeywordScores() throws Exception {
        float[] q = unitVector(random, DIM);
        index.add(doc("vectoronly", "alice", KG, "a quiet evening", q));
        index.add(doc("textonly", "alice", KG, "pizza night", negate(q)));
        // Scaled vector scores: vectoronly 1, textonly 0; scaled keyword scores: textonly 1.
        SearchOptions keyword = new SearchOptions(SearchOptions.Mode.HYBRID, 10, null, null, 0, 2.0);
        List<SearchHit> hits = index.search("alice", "pizza", q, keyword);
        assertEquals(List.of("textonly", "vectoronly"), hitIds(hits));
        assertEquals(2.0 / 3, hits.get(0).score(), 1e-6);
        assertEquals(1.0 / 3, hits.get(1).score(), 1e-6);
        SearchOptions vector = new SearchOptions(SearchOptions.Mode.HYBRID, 10, null, null, 0, 0.5);
        assertEquals(List.of("vectoronly", "textonly"), hitIds(index.search("alice", "pizza", q, vector)));
        SearchOptions vectorOnly = new SearchOptions(SearchOptions.Mode.HYBRID, 10, null, null, 0, 0.0);
        assertEquals(List.of("vectoronly", "textonly"), hitIds(index.search("alice", "pizza", q, vectorOnly)));
        assertThrows(IllegalArgumentException.class,
                () -> new SearchOptions(SearchOptions.Mode.HYBRID, 10, null, null, 0, Double.NaN));
        assertThrows(IllegalArgumentException.class,
                () -> SearchOptions.fromJson("{\"mode\":\"hybrid\",\"keyword_weight\":-1}"));
    }

    @Test
    void vectorCandidatesAreReadAndChecked() {
        assertEquals(SearchOptions.AUTO_VECTOR_CANDIDATES, SearchOptions.fromJson("{}").vectorCandidates());
        assertEquals(SearchOptions.AUTO_VECTOR_CANDIDATES,
                SearchOptions.fromJson("{\"vector_candidates\":null}").vectorCandidates());
        assertEquals(64, SearchOptions.fromJson("{\"vector_candidates\":64}").vectorCandidates());
        for (String bad : new String[] {"0", "-5", "10001", "1.5", "\"100\"", "true", "[100]"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SearchOptions.fromJson("{\"vector_candidates\":" + bad + "}"), bad);
            assertTrue(e.getMessage().contains("vector_candidates"), e.getMessage());
        }
    }

    @Test
    void metadataFilters() throws Exception {
        index.add(doc("a", "alice", KG, "note", null,
                "{\"topic\":\"food\",\"stars\":5,\"public\":true,\"tags\":[\"x\",\"y\"],\"nested\":{\"k\":1}}",
                MemoryDocument.NEVER, "2024-01-01T00:00:00Z"));
        index.add(doc("b", "alice", KG, "note", null,
                "{\"topic\":\"work\",\"stars\":2.5,\"public\":false,\"tags\":[\"y\"]}",
                MemoryDocument.NEVER, "2024-01-02T00:00:00Z"));
        index.add(doc("c", "alice", KG, "note", null, "{}", MemoryDocument.NEVER, "2024-01-03T00:00:00Z"));
        assertEquals(List.of("a"), filtered("{\"topic\":\"food\"}"));
        assertEquals(List.of("a"), filtered("{\"stars\":5.0}"));
        assertEquals(List.of("b"), filtered("{\"stars\":2.5}"));
        assertEquals(List.of("b"), filtered("{\"public\":false}"));
        assertEquals(List.of("a"), filtered("{\"tags\":\"x\"}"));
        assertEquals(List.of("b", "a"), filtered("{\"tags\":\"y\"}"));
        assertEquals(List.of("b", "a"), filtered("{\"topic\":{\"in\":[\"food\",\"work\",\"none\"]}}"));
        assertEquals(List.of("a"), filtered("{\"stars\":{\"gte\":3}}"));
        assertEquals(List.of("b", "a"), filtered("{\"stars\":{\"gte\":2.5,\"lte\":5}}"));
        assertEquals(List.of("b"), filtered("{\"stars\":{\"gt\":2,\"lt\":5}}"));
        assertEquals(List.of(), filtered("{\"stars\":{\"gt\":5}}"));
        assertEquals(List.of("c", "b"), filtered("{\"topic\":{\"ne\":\"food\"}}"));
        assertEquals(List.of("b"), filtered("{\"topic\":\"work\",\"stars\":{\"lt\":3}}"));
        assertEquals(List.of("c", "b", "a"), filtered("{}"));
        assertEquals(List.of("c", "b", "a"), filtered(null));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MetadataFilter.parse("{\"stars\":{\"between\":[1,2]}}"));
        assertTrue(e.getMessage().contains("between"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MetadataFilter.parse("{\"stars\":{\"gte\":\"x\"}}"));
        assertThrows(IllegalArgumentException.class, () -> MetadataFilter.parse("{\"topic\":{\"in\":\"food\"}}"));
        assertThrows(IllegalArgumentException.class, () -> MetadataFilter.parse("[1]"));
    }

    @Test
    void filtersApplyToSearchToo() throws Exception {
        float[] q = unitVector(random, DIM);
        index.add(doc("a", "alice", KG, "tea", q, "{\"topic\":\"food\"}", MemoryDocument.NEVER, "2024-01-01T00:00:00Z"));
        index.add(doc("b", "alice", KG, "tea", q, "{\"topic\":\"work\"}", MemoryDocument.NEVER, "2024-01-01T00:00:00Z"));
        MetadataFilter work = MetadataFilter.parse("{\"topic\":\"work\"}");
        for (SearchOptions.Mode mode : SearchOptions.Mode.values()) {
            assertEquals(List.of("b"), hitIds(index.search("alice", "tea", q, new SearchOptions(mode, 10, null, work, 0))), mode.name());
        }
    }

    @Test
    void vectorsMustBeUnitLengthAndOfOneDimension() throws Exception {
        float[] notUnit = new float[DIM];
        notUnit[0] = 2f;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> index.add(doc("x", "alice", KG, "m", notUnit)));
        assertTrue(e.getMessage().contains("norm is 2.0"), e.getMessage());
        assertEquals(-1, index.dimension());

        index.add(doc("a", "alice", KG, "m", unitVector(random, DIM)));
        e = assertThrows(IllegalArgumentException.class,
                () -> index.add(doc("b", "alice", KG, "m", unitVector(random, DIM + 1))));
        assertTrue(e.getMessage().contains("" + DIM) && e.getMessage().contains("" + (DIM + 1)), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> index.search("alice", null, unitVector(random, 3),
                new SearchOptions(SearchOptions.Mode.VECTOR, 3, null, null, 0)));
        assertTrue(e.getMessage().contains("3") && e.getMessage().contains("" + DIM), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> index.add(doc("kg", "alice", KG + 1, "m", null)));
    }

    @Test
    void batchIsValidatedBeforeAnyWrite() throws Exception {
        List<MemoryDocument> batch = List.of(
                doc("a", "alice", KG, "m", unitVector(random, DIM)),
                doc("b", "alice", KG, "m", unitVector(random, DIM + 2)));
        assertThrows(IllegalArgumentException.class, () -> index.addAll(batch));
        assertEquals(0, index.count("alice", 0));
        assertEquals(-1, index.dimension());
    }

    @Test
    void reopenKeepsDocumentsAndDimension() throws Exception {
        float[] v = unitVector(random, DIM);
        index.add(doc("a", "alice", KG, "kept", v));
        index.close();
        index = KeyGroupIndex.open(dir, KG, 8);
        assertEquals(DIM, index.dimension());
        assertArrayEquals(v, index.get("alice", "a", 0).vector());
    }

    @Test
    void manySmallSegmentsSettleIntoFewSegments() throws Exception {
        // Each run's adds become a segment of their own, as a commit after every run makes them.
        for (int run = 0; run < 60; run++) {
            for (int i = 0; i < 20; i++) {
                index.add(doc("r" + run + "-" + i, "alice", KG, "m", unitVector(random, DIM)));
            }
            index.commit();
        }
        index.awaitMerges();
        // Log-structured merging (FoldingMergePolicy): at most about a tier of segments, not 60.
        assertTrue(index.segmentCount() <= FoldingMergePolicy.SEGMENTS_PER_TIER,
                "segments after merging: " + index.segmentCount());
        assertEquals(1200, index.count("alice", 0));
    }

    @Test
    void readsRightAfterAddsRankAsAfterAReopenedReader() throws Exception {
        // Quiet period 0: every read folds the index, so it reopens the reader first.
        try (KeyGroupIndex reopened = KeyGroupIndex.open(dir.resolve("reopened"), KG, 8, 0)) {
            String[] words = {"tea", "coffee", "rain", "sun", "train", "book"};
            for (int batch = 0; batch < 10; batch++) {
                List<MemoryDocument> docs = new java.util.ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    String text = words[random.nextInt(words.length)] + " " + words[random.nextInt(words.length)];
                    // Distinct creation times: reads listing newest first have no ties to order.
                    docs.add(doc("b" + batch + "-" + i, i % 3 == 0 ? "bob" : "alice", KG, text,
                            unitVector(random, DIM), "{}", MemoryDocument.NEVER,
                            java.time.Instant.ofEpochSecond(1_700_000_000L + 10 * batch + i).toString()));
                }
                index.addAll(docs);
                reopened.addAll(docs);
                float[] query = unitVector(random, DIM);
                for (SearchOptions.Mode mode : SearchOptions.Mode.values()) {
                    SearchOptions options = new SearchOptions(mode, 10, null, null, 0);
                    assertSameRanking(reopened.search("alice", "tea rain", query, options),
                            index.search("alice", "tea rain", query, options), mode + " after batch " + batch);
                }
                assertEquals(reopened.count("alice", 0), index.count("alice", 0));
                assertEquals(ids(reopened.getAll("bob", MetadataFilter.none(), 100, 0)),
                        ids(index.getAll("bob", MetadataFilter.none(), 100, 0)));
            }
        }
    }

    /** Same scores in the same order, and the same documents wherever a score is not tied at the cut. */
    private static void assertSameRanking(List<SearchHit> expected, List<SearchHit> actual, String what) {
        assertEquals(expected.size(), actual.size(), what);
        double cut = expected.isEmpty() ? 0 : expected.get(expected.size() - 1).score();
        Map<String, Double> want = new HashMap<>();
        Map<String, Double> got = new HashMap<>();
        for (int h = 0; h < expected.size(); h++) {
            assertEquals(expected.get(h).score(), actual.get(h).score(), 1e-5, what + ", score " + h);
            if (expected.get(h).score() > cut + 1e-5) {
                want.put(expected.get(h).document().id(), expected.get(h).score());
            }
            if (actual.get(h).score() > cut + 1e-5) {
                got.put(actual.get(h).document().id(), actual.get(h).score());
            }
        }
        assertEquals(want.keySet(), got.keySet(), what);
    }

    private List<String> filtered(String json) throws Exception {
        return ids(index.getAll("alice", MetadataFilter.parse(json), 10, 0));
    }

    static List<String> ids(List<MemoryDocument> docs) {
        return docs.stream().map(MemoryDocument::id).toList();
    }

    static List<String> hitIds(List<SearchHit> hits) {
        return hits.stream().map(h -> h.document().id()).toList();
    }

    private static float[] nudge(float[] v, float amount) {
        float[] out = v.clone();
        out[0] += amount;
        double n = Vectors.norm(out);
        for (int i = 0; i < out.length; i++) {
            out[i] /= (float) n;
        }
        return out;
    }

    private static float[] negate(float[] v) {
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = -v[i];
        }
        return out;
    }
}
