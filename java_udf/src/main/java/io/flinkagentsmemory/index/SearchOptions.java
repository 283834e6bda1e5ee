package io.flinkagentsmemory.index;

import java.util.Locale;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * How {@link KeyGroupIndex#search} ranks and cuts: mode, top-k, an optional minimum score (on the
 * mode's own scale), metadata filters, the time that decides expiry, and in hybrid mode the
 * weight of the keyword ranking against the vector ranking (1).
 *
 * @param minScore null for no minimum
 */
public record SearchOptions(Mode mode, int limit, Double minScore, MetadataFilter filters, long nowMillis,
        double keywordWeight) {

    /**
     * VECTOR scores (1+dot)/2, KEYWORD BM25, HYBRID the weighted sum of both lists' scaled scores divided
     * by its maximum (1 = first in both rankings).
     */
    public enum Mode { VECTOR, KEYWORD, HYBRID }

    /** Options with the keyword ranking weighed like the vector ranking. */
    public SearchOptions(Mode mode, int limit, Double minScore, MetadataFilter filters, long nowMillis) {
        this(mode, limit, minScore, filters, nowMillis, 1.0);
    }

    public static final int DEFAULT_LIMIT = 10;

    public SearchOptions {
        if (mode == null) {
            throw new IllegalArgumentException("search mode must not be null");
        }
        if (limit <= 0) {
            throw new IllegalArgumentException("search limit must be positive, got " + limit);
        }
        filters = filters == null ? MetadataFilter.none() : filters;
        if (!(keywordWeight >= 0) || Double.isInfinite(keywordWeight)) {
            throw new IllegalArgumentException("keyword_weight must be a finite number >= 0, got " + keywordWeight);
        }
    }

    /**
     * Parses {@code {"mode": "vector"|"keyword"|"hybrid", "limit": 10, "min_score": null|x,
     * "filters": {...}, "now": millis, "keyword_weight": w}}; mode defaults to vector, limit to 10,
     * now to 0, keyword_weight to 1.
     */
    public static SearchOptions fromJson(String json) {
        JsonNode node = Json.parse(json, "search options");
        if (node.isNull()) {
            node = Json.MAPPER.createObjectNode();
        } else if (!node.isObject()) {
            throw new IllegalArgumentException("search options must be a JSON object, got: " + node);
        }
        String modeName = node.path("mode").asText("vector");
        Mode mode;
        try {
            mode = Mode.valueOf(modeName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown search mode '" + modeName + "' (supported: vector, keyword, hybrid)", e);
        }
        JsonNode minScore = node.path("min_score");
        return new SearchOptions(
                mode,
                node.path("limit").asInt(DEFAULT_LIMIT),
                minScore.isNumber() ? minScore.asDouble() : null,
                MetadataFilter.parse(node.get("filters")),
                node.path("now").asLong(0L),
                node.path("keyword_weight").asDouble(1.0));
    }
}
