package io.flinkagentsmemory.index;

import java.io.IOException;

import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.FilteredDocIdSetIterator;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopDocsCollector;
import org.apache.lucene.search.TopKnnCollector;
import org.apache.lucene.search.knn.KnnCollectorManager;
import org.apache.lucene.util.Bits;

/**
 * A kNN query whose HNSW beam shrinks with the segment: the largest segment of the index is
 * searched with all {@code candidates} (by default its calibrated beam, {@link CalibratedBeams}),
 * a segment of a fraction f of its vectors with {@code candidates * f^0.75}, never fewer than
 * {@code limit}. Lucene 9 searches every segment with the full beam, so each small segment costs
 * as much as the big one (~0.5–1 ms at 100 candidates, 384 dims); a small segment holds about f
 * of the true top k, and the exponent below 1 keeps its own recall high. A square root, tried
 * first, took a third more time on a write stream's leftover segments for 0.002 more recall@10
 * on clustered data (docs/long_term_memory.md). A segment small for its beam ({@link #searchesExactly},
 * judged at the square-root share) is scanned instead, which also finds its exact top k: there a
 * graph search visits most of the vectors anyway, in random order, where the scan reads them in
 * order. So are the segments of {@link RecentDocuments}, which have no graph. Lucene's exact
 * fallback for segments the filter leaves few documents in is unchanged.
 */
final class SegmentScaledKnnQuery extends KnnFloatVectorQuery {

    /** A segment of at most this many vectors per beam slot is scanned, not searched by graph. */
    static final int EXACT_VECTORS_PER_BEAM = 32;
    /** A segment's graph beam is the candidates times its share of the vectors to this power. */
    static final double BEAM_EXPONENT = 0.75;
    /** Whether a segment is scanned is judged at this power's beam, as it was before the graph beam shrank. */
    static final double SCAN_EXPONENT = 0.5;

    private final float[] target;
    private final int limit;
    /** Vectors in the reader's largest segment, counted once per query, not once per segment. */
    private final int largest;

    private SegmentScaledKnnQuery(String field, float[] target, int candidates, int limit, Query filter, int largest) {
        super(field, target, candidates, filter);
        this.target = target;
        this.limit = limit;
        this.largest = largest;
    }

    /**
     * The {@code limit} nearest of {@code target}, with a beam of {@code beam} candidates (at least
     * {@code limit}) in the largest segment; {@link SearchOptions#AUTO_VECTOR_CANDIDATES}: that
     * segment's calibrated beam ({@link CalibratedBeams}).
     */
    static SegmentScaledKnnQuery create(IndexReader reader, String field, float[] target, int beam, int limit,
            Query filter) throws IOException {
        LeafReader largest = largestSegment(reader, field);
        int vectors = largest == null ? 0 : largest.getFloatVectorValues(field).size();
        if (beam == SearchOptions.AUTO_VECTOR_CANDIDATES) {
            CalibratedBeams.SHARED.recordQuery(target);
            beam = calibratedBeam(largest, field);
        }
        return new SegmentScaledKnnQuery(field, target, Math.max(limit, beam), limit, filter, vectors);
    }

    /** The beam a search of {@code reader} asking for none gets now (see {@link CalibratedBeams}). */
    static int calibratedBeam(IndexReader reader, String field) throws IOException {
        return calibratedBeam(largestSegment(reader, field), field);
    }

    private static int calibratedBeam(LeafReader largest, String field) throws IOException {
        return largest == null ? SearchOptions.DEFAULT_VECTOR_CANDIDATES
                : CalibratedBeams.SHARED.beam(largest, field, SearchOptions.DEFAULT_VECTOR_CANDIDATES);
    }

    /** The graph beam for a segment of {@code vectors} when the largest one holds {@code largest}. */
    static int beam(int candidates, int limit, int vectors, int largest) {
        return share(candidates, limit, vectors, largest, BEAM_EXPONENT);
    }

    /**
     * The beam a segment's scan is weighed against: the square-root share keeps the segments
     * scanned that a narrower beam would send to a graph search for a little time and a loss of
     * their exact top k (the several small segments of VectorRecallTest).
     */
    static int scanBeam(int candidates, int limit, int vectors, int largest) {
        return share(candidates, limit, vectors, largest, SCAN_EXPONENT);
    }

    private static int share(int candidates, int limit, int vectors, int largest, double exponent) {
        if (vectors >= largest) {
            return candidates;
        }
        int scaled = (int) Math.ceil(candidates * Math.pow((double) vectors / largest, exponent));
        return Math.max(Math.min(limit, candidates), Math.min(candidates, scaled));
    }

    /**
     * Whether a segment of {@code vectors} is scanned rather than searched with {@code beam}: at
     * up to {@link #EXACT_VECTORS_PER_BEAM} vectors per beam slot a graph search visits most of
     * the segment (benchmarks/java/SmallSegmentScan.java).
     */
    static boolean searchesExactly(int vectors, int beam) {
        return vectors <= EXACT_VECTORS_PER_BEAM * beam;
    }

    private static DocIdSetIterator accepted(Bits acceptDocs, int maxDoc) {
        DocIdSetIterator all = DocIdSetIterator.all(maxDoc);
        if (acceptDocs == null) {
            return all;
        }
        return new FilteredDocIdSetIterator(all) {
            @Override
            protected boolean match(int doc) {
                return acceptDocs.get(doc);
            }
        };
    }

    @Override
    protected TopDocs approximateSearch(LeafReaderContext context, Bits acceptDocs, int visitedLimit,
            KnnCollectorManager unused) throws IOException {
        LeafReader reader = context.reader();
        FloatVectorValues values = reader.getFloatVectorValues(field);
        if (values == null || values.size() == 0) {
            return TopDocsCollector.EMPTY_TOPDOCS;
        }
        int vectors = values.size();
        if (RecentDocuments.isRecentSegment(reader) || searchesExactly(vectors, scanBeam(k, limit, vectors, largest))) {
            return exactSearch(context, accepted(acceptDocs, reader.maxDoc()), null);
        }
        TopKnnCollector collector = new TopKnnCollector(beam(k, limit, vectors, largest), visitedLimit);
        reader.searchNearestVectors(field, target, collector, acceptDocs);
        TopDocs results = collector.topDocs();
        return results != null ? results : TopDocsCollector.EMPTY_TOPDOCS;
    }

    /** The segment with the most vectors; null if none has any. */
    private static LeafReader largestSegment(IndexReader reader, String field) throws IOException {
        LeafReader largest = null;
        int most = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            FloatVectorValues values = leaf.reader().getFloatVectorValues(field);
            if (values != null && values.size() > most) {
                largest = leaf.reader();
                most = values.size();
            }
        }
        return largest;
    }
}
