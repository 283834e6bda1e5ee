package io.flinkagentsmemory.index;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;

/**
 * Metadata filters from JSON, all AND-ed: {@code {"f": v}} equality (string/number/bool),
 * {@code {"f": {"in": [..]}}}, {@code {"f": {"gte"|"gt"|"lte"|"lt": x}}} numeric ranges and
 * {@code {"f": {"ne": v}}}. They become non-scoring clauses of the key filter.
 */
public final class MetadataFilter {

    private static final MetadataFilter NONE = new MetadataFilter(List.of());

    private record Clause(Query query, Occur occur) {}

    private final List<Clause> clauses;

    private MetadataFilter(List<Clause> clauses) {
        this.clauses = clauses;
    }

    public static MetadataFilter none() {
        return NONE;
    }

    public static MetadataFilter parse(String json) {
        return parse(Json.parse(json, "metadata filters"));
    }

    static MetadataFilter parse(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return NONE;
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("filters must be a JSON object, got: " + node);
        }
        List<Clause> clauses = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> e = fields.next();
            if (e.getValue().isObject()) {
                parseOperators(e.getKey(), e.getValue(), clauses);
            } else {
                clauses.add(new Clause(equality(e.getKey(), e.getValue()), Occur.FILTER));
            }
        }
        return clauses.isEmpty() ? NONE : new MetadataFilter(List.copyOf(clauses));
    }

    /** True when there is no clause: every document of the key passes. */
    boolean isEmpty() {
        return clauses.isEmpty();
    }

    /** Adds this filter's clauses (FILTER / MUST_NOT, never scoring) to {@code builder}. */
    void addTo(BooleanQuery.Builder builder) {
        for (Clause c : clauses) {
            builder.add(c.query, c.occur);
        }
    }

    private static void parseOperators(String field, JsonNode ops, List<Clause> clauses) {
        double lower = Double.NEGATIVE_INFINITY;
        double upper = Double.POSITIVE_INFINITY;
        boolean range = false;
        Iterator<Map.Entry<String, JsonNode>> it = ops.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> op = it.next();
            JsonNode v = op.getValue();
            switch (op.getKey()) {
                case "in" -> clauses.add(new Clause(in(field, v), Occur.FILTER));
                case "ne" -> clauses.add(new Clause(equality(field, v), Occur.MUST_NOT));
                case "gte" -> { lower = Math.max(lower, number(field, op.getKey(), v)); range = true; }
                case "gt" -> { lower = Math.max(lower, Math.nextUp(number(field, op.getKey(), v))); range = true; }
                case "lte" -> { upper = Math.min(upper, number(field, op.getKey(), v)); range = true; }
                case "lt" -> { upper = Math.min(upper, Math.nextDown(number(field, op.getKey(), v))); range = true; }
                default -> throw new IllegalArgumentException(
                        "unknown filter operator '" + op.getKey() + "' on field '" + field
                                + "' (supported: in, ne, gte, gt, lte, lt)");
            }
        }
        if (range) {
            clauses.add(new Clause(
                    DoublePoint.newRangeQuery(MetadataFields.numberField(field), lower, upper), Occur.FILTER));
        }
    }

    private static Query equality(String field, JsonNode value) {
        return new TermQuery(new Term(MetadataFields.termField(field), scalar(field, value)));
    }

    private static Query in(String field, JsonNode values) {
        if (!values.isArray()) {
            throw new IllegalArgumentException("'in' on field '" + field + "' needs a JSON array, got: " + values);
        }
        List<BytesRef> terms = new ArrayList<>();
        for (JsonNode v : values) {
            terms.add(new BytesRef(scalar(field, v)));
        }
        return new TermInSetQuery(MetadataFields.termField(field), terms);
    }

    private static String scalar(String field, JsonNode value) {
        String term = MetadataFields.canonical(value);
        if (term == null) {
            throw new IllegalArgumentException(
                    "filter value on field '" + field + "' must be a string, number or boolean, got: " + value);
        }
        return term;
    }

    private static double number(String field, String op, JsonNode value) {
        if (!value.isNumber()) {
            throw new IllegalArgumentException(
                    "'" + op + "' on field '" + field + "' needs a number, got: " + value);
        }
        return value.asDouble();
    }
}
