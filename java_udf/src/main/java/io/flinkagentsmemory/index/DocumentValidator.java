package io.flinkagentsmemory.index;

import java.util.List;

import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;

/**
 * What one key group's index accepts, checked before anything is written: documents of its own
 * key group, metadata that is a JSON object, unit-length vectors (the scores assume a dot product
 * of unit vectors), and one vector dimension, fixed by the first document with a vector.
 *
 * <p>Thread-safe: the dimension may be read from another thread than the writer's.
 */
final class DocumentValidator {

    private final int keyGroup;
    private int dimension;

    /** For the index of {@code keyGroup}, whose documents have vectors of {@code dimension} (-1: none yet). */
    DocumentValidator(int keyGroup, int dimension) {
        this.keyGroup = keyGroup;
        this.dimension = dimension;
    }

    /** The dimension of the vectors in {@code reader}, or -1 while it has none. */
    static int dimensionOf(IndexReader reader) {
        for (LeafReaderContext leaf : reader.leaves()) {
            FieldInfo info = leaf.reader().getFieldInfos().fieldInfo(DocumentSchema.VECTOR);
            if (info != null && info.getVectorDimension() > 0) {
                return info.getVectorDimension();
            }
        }
        return -1;
    }

    /** The vector dimension fixed by the first document with a vector, or -1 while none. */
    synchronized int dimension() {
        return dimension;
    }

    /** Checks key group, metadata, unit length and dimension of all docs; fixes the dimension only if all pass. */
    synchronized void validate(List<MemoryDocument> docs) {
        int dim = dimension;
        for (MemoryDocument doc : docs) {
            if (doc.keyGroup() != keyGroup) {
                throw new IllegalArgumentException("document of key group " + doc.keyGroup()
                        + " added to the index of key group " + keyGroup);
            }
            if (!Json.parse(doc.metadataJson(), "metadata").isObject()) {
                throw new IllegalArgumentException("metadata must be a JSON object, got: " + doc.metadataJson());
            }
            float[] v = doc.vector();
            if (v != null) {
                Vectors.requireUnitLength(v);
                if (dim != -1 && v.length != dim) {
                    throw dimensionMismatch(v.length, dim);
                }
                dim = v.length;
            }
        }
        dimension = dim;
    }

    /** A query vector of {@code given} dimensions must match the documents' (any, while none has one). */
    synchronized void requireQueryDimension(int given) {
        if (dimension != -1 && given != dimension) {
            throw dimensionMismatch(given, dimension);
        }
    }

    static void requirePositive(int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
    }

    private static IllegalArgumentException dimensionMismatch(int given, int expected) {
        return new IllegalArgumentException(
                "vector dimension " + given + " does not match the index's dimension " + expected);
    }
}
