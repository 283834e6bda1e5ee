package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.List;

import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;

/**
 * How a {@link MemoryDocument} is laid out in Lucene and read back. Writing and reading share
 * these field names, so a change of the layout is made in one place.
 *
 * <p>Never-expiring documents store {@code expires_at} as Long.MAX_VALUE, so "expired by now" is
 * one range query; {@code key_id} addresses a document by (key, id) for updates and deletes.
 */
final class DocumentSchema {

    static final String ID = "id";
    static final String KEY = "key";
    static final String KEY_ID = "key_id";
    static final String KEY_GROUP = "key_group";
    static final String MEMORY = "memory";
    /** Text searched by keyword beside the memory, never returned as it (a separate field: its own lengths). */
    static final String CONTEXT = "context";
    static final String VECTOR = "vector";
    static final String METADATA = "metadata";
    static final String HASH = "hash";
    static final String CREATED_AT = "created_at";
    static final String CREATED_AT_MILLIS = "created_at_ms";
    static final String UPDATED_AT = "updated_at";
    static final String EXPIRES_AT = "expires_at";

    private DocumentSchema() {}

    static Document toLucene(MemoryDocument m) {
        Document d = new Document();
        d.add(new StringField(ID, m.id(), Field.Store.YES));
        d.add(new StringField(KEY, m.key(), Field.Store.YES));
        d.add(new StringField(KEY_ID, keyId(m.key(), m.id()), Field.Store.NO));
        d.add(new IntPoint(KEY_GROUP, m.keyGroup()));
        d.add(new StoredField(KEY_GROUP, m.keyGroup()));
        d.add(new TextField(MEMORY, m.memory(), Field.Store.YES));
        if (m.context() != null) {
            d.add(new TextField(CONTEXT, m.context(), Field.Store.YES));
        }
        if (m.vector() != null) {
            d.add(new KnnFloatVectorField(VECTOR, m.vector(), VectorSimilarityFunction.DOT_PRODUCT));
        }
        d.add(new StoredField(METADATA, m.metadataJson()));
        MetadataFields.index(d, Json.parse(m.metadataJson(), "metadata"));
        if (m.hash() != null) {
            d.add(new StringField(HASH, m.hash(), Field.Store.YES));
        }
        if (m.createdAt() != null) {
            d.add(new StoredField(CREATED_AT, m.createdAt()));
        }
        d.add(new NumericDocValuesField(CREATED_AT_MILLIS, Timestamps.toEpochMillis(m.createdAt())));
        if (m.updatedAt() != null) {
            d.add(new StoredField(UPDATED_AT, m.updatedAt()));
        }
        long expires = m.expiresAt() == MemoryDocument.NEVER ? Long.MAX_VALUE : m.expiresAt();
        d.add(new LongPoint(EXPIRES_AT, expires));
        d.add(new StoredField(EXPIRES_AT, expires));
        return d;
    }

    /**
     * The document {@code doc} of {@code reader}. Callers pass one StoredFields per query, reused
     * for all its hits: a fresh one per hit decompresses the stored-fields block again for every
     * document. Search hits skip the vector (Python never receives it); get and update need it.
     */
    static MemoryDocument read(IndexReader reader, StoredFields fields, int doc, boolean withVector)
            throws IOException {
        Document d = fields.document(doc);
        return new MemoryDocument(
                d.get(ID),
                d.get(KEY),
                d.getField(KEY_GROUP).numericValue().intValue(),
                d.get(MEMORY),
                withVector ? vectorOf(reader, doc) : null,
                d.get(METADATA),
                d.get(HASH),
                d.get(CREATED_AT),
                d.get(UPDATED_AT),
                fromStoredExpiry(d.getField(EXPIRES_AT).numericValue().longValue()),
                d.get(CONTEXT));
    }

    /** The vector of the top-level document {@code doc}, or null if it has none. */
    private static float[] vectorOf(IndexReader reader, int doc) throws IOException {
        List<LeafReaderContext> leaves = reader.leaves();
        LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
        int docInLeaf = doc - leaf.docBase;
        FloatVectorValues values = leaf.reader().getFloatVectorValues(VECTOR);
        if (values == null || values.advance(docInLeaf) != docInLeaf) {
            return null;
        }
        return values.vectorValue().clone();
    }

    /** The term that addresses the document (key, id). */
    static Term keyIdTerm(String key, String id) {
        return new Term(KEY_ID, keyId(key, id));
    }

    /** Length-prefixed, so no (key, id) pair can collide with another. */
    static String keyId(String key, String id) {
        return key.length() + ":" + key + id;
    }

    /** Newest (created_at) first. */
    static Sort newestFirst() {
        return new Sort(new SortField(CREATED_AT_MILLIS, SortField.Type.LONG, true));
    }

    private static long fromStoredExpiry(long stored) {
        return stored == Long.MAX_VALUE ? MemoryDocument.NEVER : stored;
    }
}
