package io.flinkagentsmemory.index;

import static io.flinkagentsmemory.index.TestDocs.doc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each mode's ranking over the documents a filter lets through. */
class RankerTest {

    private static final int KG = 1;
    private static final int BEAM = SearchOptions.DEFAULT_VECTOR_CANDIDATES;
    private static final float[] X = {1f, 0f};
    private static final float[] Y = {0f, 1f};
    private static final float[] XY = {(float) Math.sqrt(0.5), (float) Math.sqrt(0.5)};

    private final StandardAnalyzer analyzer = new StandardAnalyzer();
    private final DocumentValidator validator = new DocumentValidator(KG, -1);
    private final Ranker ranker = new Ranker(analyzer, validator);
    private InMemoryIndex index;

    @BeforeEach
    void open() throws Exception {
        index = new InMemoryIndex();
    }

    @AfterEach
    void close() throws Exception {
        index.close();
        analyzer.close();
    }

    @Test
    void queryTermsAreAnalysedDistinctAndCapped() throws Exception {
        assertEquals(List.of("green", "tea"), List.copyOf(ranker.terms("Green TEA, green tea!")));
        assertEquals(List.of(), List.copyOf(ranker.terms("   ")));
        assertEquals(List.of(), List.copyOf(ranker.terms(null)));
        String longText = IntStream.range(0, 1000).mapToObj(i -> "w" + i).collect(Collectors.joining(" "));
        assertEquals(Ranker.MAX_QUERY_TERMS, ranker.terms(longText).size());
    }

    @Test
    void vectorScoresAreHalfOfOnePlusDot() throws Exception {
        write(doc("x", "alice", KG, "m", X), doc("y", "alice", KG, "m", Y), doc("xy", "alice", KG, "m", XY));
        IndexSearcher s = index.searcher();
        List<ScoreDoc> hits = ranker.vectorHits(s, null, X, 3, BEAM);
        assertEquals(List.of("x", "xy", "y"), ids(s, hits));
        assertEquals(1.0, hits.get(0).score, 1e-6);
        assertEquals((1 + Math.sqrt(0.5)) / 2, hits.get(1).score, 1e-6);
        assertEquals(0.5, hits.get(2).score, 1e-6);
        Query onlyY = KeyFilters.live(s, "alice", 0, MetadataFilter.none(),
                new TermQuery(new Term(DocumentSchema.ID, "y")));
        assertEquals(List.of("y"), ids(s, ranker.vectorHits(s, onlyY, X, 3, BEAM)));
    }

    @Test
    void anIndexWithoutVectorsHasNoVectorHits() throws Exception {
        write(doc("t", "alice", KG, "text only", null));
        IndexSearcher s = index.searcher();
        assertEquals(List.of(), ranker.vectorHits(s, null, new float[] {1f, 0f, 0f}, 3, BEAM));
    }

    @Test
    void aQueryVectorOfAnotherDimensionIsRefused() throws Exception {
        write(doc("x", "alice", KG, "m", X));
        IndexSearcher s = index.searcher();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ranker.vectorHits(s, null, new float[] {1f, 0f, 0f}, 3, BEAM));
        assertEquals("vector dimension 3 does not match the index's dimension 2", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ranker.vectorHits(s, null, X, 0, BEAM));
        assertEquals("limit must be positive, got 0", e.getMessage());
    }

    @Test
    void keywordHitsRankByBm25WithinTheFilter() throws Exception {
        write(doc("once", "alice", KG, "green tea in the morning", null),
                doc("often", "alice", KG, "tea, tea and tea", null),
                doc("coffee", "alice", KG, "coffee only", null),
                doc("bobs", "bob", KG, "tea tea tea tea tea", null));
        IndexSearcher s = index.searcher();
        Query alice = KeyFilters.live(s, "alice", 0, MetadataFilter.none());
        assertEquals(List.of("often", "once"), ids(s, ranker.keywordHits(s, alice, "TEA", 10)));
        assertEquals(List.of(), ranker.keywordHits(s, alice, "", 10));
    }

    @Test
    void hybridFusesBothListsAndAZeroWeightDropsTheKeywordOne() throws Exception {
        write(doc("near", "alice", KG, "a quiet evening", X), doc("far", "alice", KG, "pizza night", Y));
        IndexSearcher s = index.searcher();
        Query alice = KeyFilters.live(s, "alice", 0, MetadataFilter.none());
        // Scaled vector scores: near 1, far 0; scaled keyword scores: far 1. Weight 1.5: far 0.6, near 0.4.
        assertEquals(List.of("far", "near"),
                ids(s, ranker.rank(s, options(SearchOptions.Mode.HYBRID, 10, 1.5), null, alice, "pizza", X)));
        assertEquals(List.of("near", "far"),
                ids(s, ranker.rank(s, options(SearchOptions.Mode.HYBRID, 10, 0.0), null, alice, "pizza", X)));
        assertEquals(List.of("far"),
                ids(s, ranker.rank(s, options(SearchOptions.Mode.KEYWORD, 10, 1.0), null, alice, "pizza", null)));
        assertEquals(List.of("near"),
                ids(s, ranker.rank(s, options(SearchOptions.Mode.VECTOR, 1, 1.0), null, alice, null, X)));
    }

    private void write(MemoryDocument... docs) throws Exception {
        validator.validate(List.of(docs));
        index.add(docs);
    }

    private static SearchOptions options(SearchOptions.Mode mode, int limit, double keywordWeight) {
        return new SearchOptions(mode, limit, null, null, 0, keywordWeight);
    }

    private static List<String> ids(IndexSearcher s, List<ScoreDoc> hits) throws Exception {
        List<String> out = new ArrayList<>();
        for (ScoreDoc h : hits) {
            out.add(s.storedFields().document(h.doc).get(DocumentSchema.ID));
        }
        return out;
    }
}
