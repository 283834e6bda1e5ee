package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;

/**
 * Ranks the documents that pass a filter. VECTOR: kNN, score (1+dot)/2 (Lucene searches exactly
 * when the filter matches few documents). KEYWORD: BM25 over the analysed query terms, nothing for
 * an empty text; a word in a memory's context counts {@link #CONTEXT_WEIGHT} of the same in its
 * text. HYBRID: {@link ScoreFusion} of both lists.
 */
final class Ranker {

    /** Hybrid search fuses at least this many candidates of each list. */
    static final int MIN_HYBRID_CANDIDATES = 100;

    /**
     * BM25 of a query word in a memory's context counts this much of the same in its text: on
     * REALTALK, turns with their neighbouring turns as context (docs/long_term_memory.md).
     */
    static final float CONTEXT_WEIGHT = 0.5f;

    /**
     * BM25 with k1 1.2 and length normalisation b 0.4 (Lucene's default is 0.75): on REALTALK a
     * long turn is not less about its words, and b 0.4 found more evidence (bench_retrieval).
     * Index and searchers must both use it.
     */
    static final Similarity BM25 = new BM25Similarity(1.2f, 0.4f);

    /** Keeps a long query text under Lucene's clause limit (1024). */
    static final int MAX_QUERY_TERMS = 256;

    private final Analyzer analyzer;
    private final DocumentValidator validator;

    /** {@code analyzer} must be the one the memory text was indexed with. */
    Ranker(Analyzer analyzer, DocumentValidator validator) {
        this.analyzer = analyzer;
        this.validator = validator;
    }

    /**
     * Up to {@code limit} hits of {@code mode}, best first (hybrid: possibly more, fused from both
     * lists' candidates). {@code vectorFilter} null searches every live document by vector;
     * {@code filter} restricts the keyword ranking.
     */
    List<ScoreDoc> rank(IndexSearcher s, SearchOptions options, Query vectorFilter, Query filter, String text,
            float[] vector) throws IOException {
        int limit = options.limit();
        return switch (options.mode()) {
            case VECTOR -> vectorHits(s, vectorFilter, vector, limit, options.vectorCandidates());
            case KEYWORD -> keywordHits(s, filter, text, limit);
            case HYBRID -> hybridHits(s, vectorFilter, filter, text, vector, limit, options);
        };
    }

    /**
     * kNN hits, exploring at least {@code beam} candidates (recall at small k;
     * {@link SearchOptions#AUTO_VECTOR_CANDIDATES}: the calibrated beam); {@code filter} null
     * searches every live document.
     */
    List<ScoreDoc> vectorHits(IndexSearcher s, Query filter, float[] vector, int k, int beam) throws IOException {
        DocumentValidator.requirePositive(k);
        if (validator.dimension() == -1) {
            return List.of();
        }
        validator.requireQueryDimension(vector.length);
        Query knn = SegmentScaledKnnQuery.create(s.getIndexReader(), DocumentSchema.VECTOR, vector, beam, k, filter);
        return List.of(s.search(knn, k).scoreDocs);
    }

    List<ScoreDoc> keywordHits(IndexSearcher s, Query filter, String text, int k) throws IOException {
        DocumentValidator.requirePositive(k);
        Set<String> terms = terms(text);
        if (terms.isEmpty()) {
            return List.of();
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        for (String t : terms) {
            b.add(new TermQuery(new Term(DocumentSchema.MEMORY, t)), Occur.SHOULD);
            b.add(new BoostQuery(new TermQuery(new Term(DocumentSchema.CONTEXT, t)), CONTEXT_WEIGHT), Occur.SHOULD);
        }
        b.setMinimumNumberShouldMatch(1);
        b.add(filter, Occur.FILTER);
        return List.of(s.search(b.build(), k).scoreDocs);
    }

    private List<ScoreDoc> hybridHits(IndexSearcher s, Query vectorFilter, Query filter, String text, float[] vector,
            int limit, SearchOptions options) throws IOException {
        double keywordWeight = options.keywordWeight();
        int candidates = Math.max(limit * 4, MIN_HYBRID_CANDIDATES);
        List<ScoreDoc> byVector = vectorHits(s, vectorFilter, vector, candidates, options.vectorCandidates());
        List<ScoreDoc> byKeyword = keywordWeight > 0 ? keywordHits(s, filter, text, candidates) : List.of();
        return ScoreFusion.fuse(byVector, byKeyword, keywordWeight);
    }

    /** The distinct analysed terms of {@code text}, in order, at most {@link #MAX_QUERY_TERMS}. */
    Set<String> terms(String text) throws IOException {
        Set<String> terms = new LinkedHashSet<>();
        if (text == null || text.isBlank()) {
            return terms;
        }
        try (TokenStream ts = analyzer.tokenStream(DocumentSchema.MEMORY, text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken() && terms.size() < MAX_QUERY_TERMS) {
                terms.add(term.toString());
            }
            ts.end();
        }
        return terms;
    }
}
