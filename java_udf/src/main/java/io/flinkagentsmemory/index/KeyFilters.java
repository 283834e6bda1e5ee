package io.flinkagentsmemory.index;

import java.io.IOException;

import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

/**
 * The non-scoring filters every read runs under: one key, not expired, metadata filters. They are
 * what keeps a key from reaching another key's documents, and expired documents out of results.
 */
final class KeyFilters {

    private KeyFilters() {}

    /**
     * key ∧ not expired ∧ metadata filters ∧ extra, as non-scoring clauses.
     *
     * <p>A filtered kNN query materialises its filter as a bit set over the key's documents on
     * every search unless Lucene's query cache holds it, and the cache only holds queries seen
     * again: with "not expired by now" in it (now changes every call) it never is, which cost
     * ~3 ms per search at 100k documents. So the expiry clause is left out when no live
     * document of the index has expired by {@code nowMillis}: the key's filter is then the
     * same query every time and cached.
     */
    static Query live(IndexSearcher s, String key, long nowMillis, MetadataFilter filters, Query... extra)
            throws IOException {
        return live(key, anyExpired(s, nowMillis), nowMillis, filters, extra);
    }

    /** As above, with {@link #anyExpired} already known. */
    static Query live(String key, boolean anyExpired, long nowMillis, MetadataFilter filters, Query... extra) {
        BooleanQuery.Builder b = new BooleanQuery.Builder().add(key(key), Occur.FILTER);
        if (anyExpired) {
            // Excluding the (few) expired documents is far cheaper than matching every live one.
            b.add(expiredBy(nowMillis), Occur.MUST_NOT);
        }
        filters.addTo(b);
        for (Query q : extra) {
            b.add(q, Occur.FILTER);
        }
        return b.build();
    }

    /**
     * Whether {@code key} holds every document of the index (deleted ones included, as docFreq
     * counts them). With no metadata filter and nothing expired, a kNN query then runs without a
     * filter: a filtered one collects the filter's matches into a bit set per segment, which
     * measured 0.70 ms against 0.32 ms per search at 100k documents in one segment (0.84 against
     * 1.22 ms with cold CPU caches).
     */
    static boolean keyHoldsIndex(IndexSearcher s, String key) throws IOException {
        IndexReader reader = s.getIndexReader();
        return reader.docFreq(new Term(DocumentSchema.KEY, key)) == reader.maxDoc();
    }

    /** Whether a live document of any key has expired by {@code nowMillis}. */
    static boolean anyExpired(IndexSearcher s, long nowMillis) throws IOException {
        boolean mayHave = false;
        for (LeafReaderContext leaf : s.getIndexReader().leaves()) {
            // Per-segment minimum from the points index: no document is read.
            PointValues points = leaf.reader().getPointValues(DocumentSchema.EXPIRES_AT);
            if (points != null && LongPoint.decodeDimension(points.getMinPackedValue(), 0) <= nowMillis) {
                mayHave = true;
                break;
            }
        }
        // The minimum counts deleted documents too: count the live ones before paying for it.
        return mayHave && s.count(expiredBy(nowMillis)) > 0;
    }

    /** Every document of {@code key}, expired ones included. */
    static Query key(String key) {
        return new TermQuery(new Term(DocumentSchema.KEY, key));
    }

    /** Documents expired at {@code nowMillis} (never-expiring ones hold Long.MAX_VALUE). */
    static Query expiredBy(long nowMillis) {
        long upTo = nowMillis == Long.MAX_VALUE ? Long.MAX_VALUE - 1 : nowMillis;
        return LongPoint.newRangeQuery(DocumentSchema.EXPIRES_AT, Long.MIN_VALUE, upTo);
    }
}
