package io.flinkagentsmemory.vectors;

import java.io.IOException;

import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.KnnVectorsReader;
import org.apache.lucene.codecs.KnnVectorsWriter;
import org.apache.lucene.codecs.hnsw.FlatVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99FlatVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsReader;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsWriter;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;

/**
 * Lucene's HNSW vectors format (the same files, graph parameters and defaults as
 * {@link Lucene99HnswVectorsFormat}) scoring through {@link VectorisedFlatVectorsScorer}. Lucene
 * fixes the scorer inside its own format, so the only way to give its graph search, exact scan
 * and graph building a SIMD dot product on Java 17 is a format of our own. Its name is written
 * into every segment it writes, and read back through Lucene's service loader
 * (META-INF/services), so it must never change; segments written by
 * {@link Lucene99HnswVectorsFormat} (before this format) stay readable with Lucene's scorer.
 */
public final class MemoryVectorsFormat extends KnnVectorsFormat {

    /** Stored in each segment's field infos: renaming it makes written indexes unreadable. */
    public static final String NAME = "FlinkAgentsMemoryHnsw";

    private static final FlatVectorsFormat FLAT = new Lucene99FlatVectorsFormat(VectorisedFlatVectorsScorer.INSTANCE);

    /** Public and without arguments: Lucene's service loader creates it by name to read a segment. */
    public MemoryVectorsFormat() {
        super(NAME);
    }

    /** Lucene's flat (graph-less) format, scoring with {@link VectorisedFlatVectorsScorer}. */
    public static FlatVectorsFormat flat() {
        return FLAT;
    }

    @Override
    public KnnVectorsWriter fieldsWriter(SegmentWriteState state) throws IOException {
        return new Lucene99HnswVectorsWriter(state, Lucene99HnswVectorsFormat.DEFAULT_MAX_CONN,
                Lucene99HnswVectorsFormat.DEFAULT_BEAM_WIDTH, FLAT.fieldsWriter(state),
                Lucene99HnswVectorsFormat.DEFAULT_NUM_MERGE_WORKER, null);
    }

    @Override
    public KnnVectorsReader fieldsReader(SegmentReadState state) throws IOException {
        return new Lucene99HnswVectorsReader(state, FLAT.fieldsReader(state));
    }

    @Override
    public int getMaxDimensions(String fieldName) {
        return DEFAULT_MAX_DIMENSIONS;
    }

    @Override
    public String toString() {
        return NAME + "(scorer=" + VectorisedFlatVectorsScorer.INSTANCE + ")";
    }
}
