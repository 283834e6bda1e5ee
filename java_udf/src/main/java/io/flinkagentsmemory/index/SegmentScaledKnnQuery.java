package io.flinkagentsmemory.index;

import java.io.IOException;

import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopDocsCollector;
import org.apache.lucene.search.TopKnnCollector;
import org.apache.lucene.search.knn.KnnCollectorManager;
import org.apache.lucene.util.Bits;

/**
 * A kNN query whose HNSW beam shrinks with the segment: the largest segment of the index is
 * searched with all {@code candidates}, a segment of a fraction f of its vectors with
 * {@code candidates * sqrt(f)}, never fewer than {@code limit}. Lucene 9 searches every segment
 * with the full beam, so each small segment costs as much as the big one (~0.5–1 ms at 100
 * candidates, 384 dims); the square root keeps small segments' own recall high, since their
 * share of the true top-k is small but not zero. Lucene's exact fallback for segments the filter
 * leaves few documents in is unchanged.
 */
final class SegmentScaledKnnQuery extends KnnFloatVectorQuery {

    private final float[] target;
    private final int limit;
    /** Vectors in the reader's largest segment, counted once per query, not once per segment. */
    private final int largest;

    SegmentScaledKnnQuery(IndexReader reader, String field, float[] target, int candidates, int limit,
            Query filter) throws IOException {
        super(field, target, candidates, filter);
        this.target = target;
        this.limit = limit;
        this.largest = largestSegment(reader, field);
    }

    /** The beam for a segment of {@code vectors} when the largest one holds {@code largest}. */
    static int beam(int candidates, int limit, int vectors, int largest) {
        if (vectors >= largest) {
            return candidates;
        }
        int scaled = (int) Math.ceil(candidates * Math.sqrt((double) vectors / largest));
        return Math.max(Math.min(limit, candidates), Math.min(candidates, scaled));
    }

    @Override
    protected TopDocs approximateSearch(LeafReaderContext context, Bits acceptDocs, int visitedLimit,
            KnnCollectorManager unused) throws IOException {
        LeafReader reader = context.reader();
        FloatVectorValues values = reader.getFloatVectorValues(field);
        if (values == null || values.size() == 0) {
            return TopDocsCollector.EMPTY_TOPDOCS;
        }
        TopKnnCollector collector = new TopKnnCollector(beam(k, limit, values.size(), largest), visitedLimit);
        reader.searchNearestVectors(field, target, collector, acceptDocs);
        TopDocs results = collector.topDocs();
        return results != null ? results : TopDocsCollector.EMPTY_TOPDOCS;
    }

    private static int largestSegment(IndexReader reader, String field) throws IOException {
        int largest = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            FloatVectorValues values = leaf.reader().getFloatVectorValues(field);
            if (values != null) {
                largest = Math.max(largest, values.size());
            }
        }
        return largest;
    }
}
