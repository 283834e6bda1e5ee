package io.flinkagentsmemory.vectors;

import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;

/**
 * Lucene's codec with {@link MemoryVectorsFormat} for every vector field. The codec's own name
 * stays Lucene's, so an index written with it reads with Lucene's codec, which finds the vectors
 * format by the name each segment recorded.
 */
public final class MemoryCodec extends Lucene912Codec {

    private final KnnVectorsFormat vectors = new MemoryVectorsFormat();

    @Override
    public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
        return vectors;
    }
}
