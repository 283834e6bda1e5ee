package io.flinkagentsmemory.index;

import java.util.Locale;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * How {@link KeyGroupIndex#search} ranks and cuts: mode, top-k, an optional minimum score (on the
 * mode's own scale), metadata filters, and the time that decides expiry.
 *
 * @param minScore null for no minimum
 */
public record SearchOptions(Mode mode, int limit, Double minScore, MetadataFilter filters, long nowMillis) {

    /** VECTOR scores (1+dot)/2, KEYWORD BM25, HYBRID the reciprocal-rank-fusion sum. */
    public enum Mode { VECTOR, KEYWORD, HYBRID }

    public static final int DEFAULT_LIMIT = 10;

    public SearchOptions {
        if (mode == null) {
            throw new IllegalArgumentException("search mode must not be null");
        }
        if (limit <= 0) {
            throw new IllegalArgumentException("search limit must be positive, got " + limit);
        }
        filters = filters == null ? MetadataFilter.none() : filters;
    }

    /**
     * Parses {@code {"mode": "vector"|"keyword"|"hybrid", "limit": 10, "min_score": null|x,
     * "filters": {...}, "now": millis}}; mode defaults to vector, limit to 10, now to 0.
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
                node.path("now").asLong(0L));
    }
}
