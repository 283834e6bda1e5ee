package io.flinkagentsmemory.index;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.lucene.document.DoublePoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.AutomatonQuery;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.automaton.Automaton;
import org.apache.lucene.util.automaton.TooComplexToDeterminizeException;

/**
 * Metadata filters from JSON, mem0's grammar. A filter object ANDs its entries; an entry is
 * <ul>
 *   <li>{@code "f": v} equality (string/number/bool), {@code "f": "*"} f is present and not null;
 *   <li>{@code "f": {op: x, ...}} with {@code eq}, {@code ne}, {@code in}, {@code nin},
 *       {@code gte}/{@code gt}/{@code lte}/{@code lt} (numbers), {@code contains} and
 *       {@code icontains} (a substring of a string value; icontains ignores case), AND-ed;
 *   <li>{@code "AND"|"OR"|"NOT": [filter, ...]}: all, at least one, none of the filter objects.
 * </ul>
 * A list value matches when any element does; {@code ne}, {@code nin} and NOT match a document
 * without the field. The whole becomes non-scoring clauses of the key filter, which is AND-ed
 * outside them, so no OR or NOT can reach past the key.
 */
public final class MetadataFilter {

    /** AND/OR/NOT levels at most (Python refuses past its max_depth, itself at most 256). */
    static final int MAX_DEPTH = 256;
    /** Longest contains/icontains text, in code points (Python refuses past it too). */
    static final int MAX_SUBSTRING_CHARS = 256;

    private static final MetadataFilter NONE = new MetadataFilter(List.of());
    private static final String OPERATORS = "eq, ne, in, nin, gte, gt, lte, lt, contains, icontains";

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
        addFilter(node, 0, clauses);
        return clauses.isEmpty() ? NONE : new MetadataFilter(List.copyOf(clauses));
    }

    /** True when there is no clause: every document of the key passes. */
    boolean isEmpty() {
        return clauses.isEmpty();
    }

    /** The clauses' queries, in order (for tests). */
    List<Query> queries() {
        return clauses.stream().map(Clause::query).toList();
    }

    /** Adds this filter's clauses (FILTER / MUST_NOT, never scoring) to {@code builder}. */
    void addTo(BooleanQuery.Builder builder) {
        for (Clause c : clauses) {
            builder.add(c.query, c.occur);
        }
    }

    /** The clauses of one filter object, {@code depth} AND/OR/NOT levels down. */
    private static void addFilter(JsonNode filter, int depth, List<Clause> out) {
        Iterator<Map.Entry<String, JsonNode>> entries = filter.fields();
        while (entries.hasNext()) {
            Map.Entry<String, JsonNode> e = entries.next();
            String name = e.getKey();
            switch (name) {
                case "AND" -> {
                    for (JsonNode f : operands(name, e.getValue(), depth)) {
                        addFilter(f, depth + 1, out);
                    }
                }
                case "OR" -> {
                    BooleanQuery.Builder any = new BooleanQuery.Builder();
                    for (JsonNode f : operands(name, e.getValue(), depth)) {
                        any.add(query(f, depth + 1), Occur.SHOULD);
                    }
                    out.add(new Clause(any.build(), Occur.FILTER));
                }
                case "NOT" -> {
                    for (JsonNode f : operands(name, e.getValue(), depth)) {
                        out.add(new Clause(query(f, depth + 1), Occur.MUST_NOT));
                    }
                }
                default -> addCondition(name, e.getValue(), out);
            }
        }
    }

    /** The filter objects AND/OR/NOT combine: a non-empty list of non-empty objects. */
    private static JsonNode operands(String op, JsonNode value, int depth) {
        if (!value.isArray() || value.isEmpty()) {
            throw new IllegalArgumentException("'" + op + "' needs a non-empty list of filter objects, got: " + value);
        }
        if (depth + 1 > MAX_DEPTH) {
            throw new IllegalArgumentException("filters nest AND/OR/NOT deeper than " + MAX_DEPTH + " levels");
        }
        for (JsonNode f : value) {
            if (!f.isObject() || f.isEmpty()) {
                throw new IllegalArgumentException(
                        "'" + op + "' holds " + f + ": each item must be a non-empty filter object");
            }
        }
        return value;
    }

    /** One filter object as a query (a NOT alone matches everything it does not exclude). */
    private static Query query(JsonNode filter, int depth) {
        List<Clause> clauses = new ArrayList<>();
        addFilter(filter, depth, clauses);
        if (clauses.size() == 1 && clauses.get(0).occur == Occur.FILTER) {
            return clauses.get(0).query;
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        boolean positive = false;
        for (Clause c : clauses) {
            b.add(c.query, c.occur);
            positive |= c.occur != Occur.MUST_NOT;
        }
        if (!positive) {
            // Lucene matches nothing with exclusions alone.
            b.add(new MatchAllDocsQuery(), Occur.FILTER);
        }
        return b.build();
    }

    private static void addCondition(String field, JsonNode value, List<Clause> out) {
        if (value.isObject()) {
            parseOperators(field, value, out);
        } else if (value.isTextual() && value.asText().equals("*")) {
            out.add(new Clause(present(field), Occur.FILTER));
        } else {
            out.add(new Clause(equality(field, value), Occur.FILTER));
        }
    }

    private static void parseOperators(String field, JsonNode ops, List<Clause> clauses) {
        if (ops.isEmpty()) {
            throw new IllegalArgumentException(
                    "filter on field '" + field + "' is an empty object (operators: " + OPERATORS + ")");
        }
        double lower = Double.NEGATIVE_INFINITY;
        double upper = Double.POSITIVE_INFINITY;
        boolean range = false;
        Iterator<Map.Entry<String, JsonNode>> it = ops.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> op = it.next();
            JsonNode v = op.getValue();
            switch (op.getKey()) {
                case "eq" -> clauses.add(new Clause(equality(field, v), Occur.FILTER));
                case "ne" -> clauses.add(new Clause(equality(field, v), Occur.MUST_NOT));
                case "in" -> clauses.add(new Clause(in(field, "in", v), Occur.FILTER));
                case "nin" -> clauses.add(new Clause(in(field, "nin", v), Occur.MUST_NOT));
                case "gte" -> { lower = Math.max(lower, number(field, op.getKey(), v)); range = true; }
                case "gt" -> { lower = Math.max(lower, Math.nextUp(number(field, op.getKey(), v))); range = true; }
                case "lte" -> { upper = Math.min(upper, number(field, op.getKey(), v)); range = true; }
                case "lt" -> { upper = Math.min(upper, Math.nextDown(number(field, op.getKey(), v))); range = true; }
                case "contains" -> clauses.add(new Clause(containing(field, op.getKey(), v, false), Occur.FILTER));
                case "icontains" -> clauses.add(new Clause(containing(field, op.getKey(), v, true), Occur.FILTER));
                default -> throw new IllegalArgumentException(
                        "unknown filter operator '" + op.getKey() + "' on field '" + field
                                + "' (supported: " + OPERATORS + ")");
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

    private static Query in(String field, String op, JsonNode values) {
        if (!values.isArray()) {
            throw new IllegalArgumentException(
                    "'" + op + "' on field '" + field + "' needs a JSON array, got: " + values);
        }
        List<BytesRef> terms = new ArrayList<>();
        for (JsonNode v : values) {
            terms.add(new BytesRef(scalar(field, v)));
        }
        return new TermInSetQuery(MetadataFields.termField(field), terms);
    }

    /**
     * Documents whose {@code field} is present and not null. Before layout 2 only string,
     * number and boolean values were indexed: there, a field holding only an object (or a list
     * without one of these) does not count as present.
     */
    private static Query present(String field) {
        String terms = MetadataFields.termField(field);
        return new LayoutFallbackQuery(
                new TermQuery(new Term(MetadataFields.KEYS, field)),
                "any term of " + terms,
                () -> new TermRangeQuery(terms, null, null, true, true));
    }

    /**
     * Documents with a string value of {@code field} containing the text. Before layout 2
     * strings were not indexed apart: there the text is also sought in the term of a number or
     * boolean ("3", "2.5", "true").
     */
    private static Query containing(String field, String op, JsonNode value, boolean ignoreCase) {
        if (!value.isTextual() || value.asText().isEmpty()) {
            throw new IllegalArgumentException(
                    "'" + op + "' on field '" + field + "' needs a non-empty string, got: " + value);
        }
        String text = value.asText();
        if (text.codePointCount(0, text.length()) > MAX_SUBSTRING_CHARS) {
            throw new IllegalArgumentException("'" + op + "' on field '" + field + "' has a text of "
                    + text.codePointCount(0, text.length()) + " chars, over " + MAX_SUBSTRING_CHARS);
        }
        Automaton automaton = Substrings.containing(text, ignoreCase);
        String terms = MetadataFields.termField(field);
        try {
            return new LayoutFallbackQuery(
                    new AutomatonQuery(new Term(MetadataFields.stringField(field), op + ":" + text), automaton),
                    op + " " + text + " in " + terms,
                    () -> new AutomatonQuery(new Term(terms, op + ":" + text), automaton));
        } catch (TooComplexToDeterminizeException e) {
            throw new IllegalArgumentException("'" + op + "' on field '" + field + "': the text is too complex", e);
        }
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
