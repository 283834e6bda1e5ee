package io.flinkagentsmemory.index;

import java.util.Iterator;
import java.util.Map;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.Term;

/**
 * How top-level metadata values become filterable Lucene fields. Indexing and
 * {@link MetadataFilter} share this so a filter value always meets the indexed term.
 *
 * <p>Strings and booleans are exact terms under {@code m.<key>}; numbers are a DoublePoint under
 * {@code n.<key>} (ranges) plus their canonical string under {@code m.<key>} (equality, so 3 and
 * 3.0 match); lists index each scalar element. Nested objects are stored only.
 *
 * <p>Layout 2 adds, for {@code contains} and the {@code "*"} wildcard: strings alone again under
 * {@code s.<key>} ({@code m.<key>} cannot tell the string "true" from the boolean), every key
 * whose value is not null under {@link #KEYS}, and the term {@link #LAYOUT_2} on every document,
 * so a query can tell documents indexed before (which lack the new fields) from those after.
 */
final class MetadataFields {

    /** The top-level metadata keys of a document whose value is not null (layout 2). */
    static final String KEYS = "metadata_keys";
    /** On every document indexed with layout 2; documents indexed before lack it. */
    static final Term LAYOUT_2 = new Term("metadata_layout", "2");

    private MetadataFields() {}

    static String termField(String key) {
        return "m." + key;
    }

    static String numberField(String key) {
        return "n." + key;
    }

    /** Top-level strings (and strings in top-level lists) alone: what contains/icontains read. */
    static String stringField(String key) {
        return "s." + key;
    }

    static void index(Document doc, JsonNode metadata) {
        doc.add(new StringField(LAYOUT_2.field(), LAYOUT_2.text(), Field.Store.NO));
        Iterator<Map.Entry<String, JsonNode>> fields = metadata.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> e = fields.next();
            if (!e.getValue().isNull()) {
                doc.add(new StringField(KEYS, e.getKey(), Field.Store.NO));
            }
            if (e.getValue().isArray()) {
                for (JsonNode element : e.getValue()) {
                    indexScalar(doc, e.getKey(), element);
                }
            } else {
                indexScalar(doc, e.getKey(), e.getValue());
            }
        }
    }

    private static void indexScalar(Document doc, String key, JsonNode value) {
        if (value.isNumber()) {
            doc.add(new DoublePoint(numberField(key), value.asDouble()));
        }
        String term = canonical(value);
        if (term != null) {
            doc.add(new StringField(termField(key), term, Field.Store.NO));
        }
        if (value.isTextual()) {
            doc.add(new StringField(stringField(key), term, Field.Store.NO));
        }
    }

    /**
     * The exact term of a scalar: strings as is, booleans "true"/"false", integral numbers without
     * a fraction ("3"), other numbers by Double.toString; null for null/objects/arrays.
     */
    static String canonical(JsonNode value) {
        if (value.isTextual()) {
            return value.asText();
        }
        if (value.isBoolean()) {
            return Boolean.toString(value.asBoolean());
        }
        if (value.isNumber()) {
            double d = value.asDouble();
            if (d == Math.rint(d) && Math.abs(d) < 0x1p53) {
                return Long.toString((long) d);
            }
            return Double.toString(d);
        }
        return null;
    }
}
