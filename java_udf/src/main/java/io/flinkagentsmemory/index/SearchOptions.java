package io.flinkagentsmemory.index;

import java.util.Locale;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * How {@link KeyGroupIndex#search} ranks and cuts: mode, top-k, an optional minimum score (on the
 * mode's own scale), metadata filters, the time that decides expiry, in hybrid mode the weight
 * of the keyword ranking against the vector ranking (1), and the HNSW beam of vector search
 * (candidates explored; more finds more of the true nearest neighbours, and costs time in
 * proportion).
 *
 * @param minScore null for no minimum
 */
public record SearchOptions(Mode mode, int limit, Double minScore, MetadataFilter filters, long nowMillis,
        double keywordWeight, int vectorCandidates) {

    /**
     * VECTOR scores (1+dot)/2, KEYWORD BM25, HYBRID the weighted sum of both lists' scaled scores divided
     * by its maximum (1 = first in both rankings).
     */
    public enum Mode { VECTOR, KEYWORD, HYBRID }

    /** Options with the keyword ranking weighed like the vector ranking. */
    public SearchOptions(Mode mode, int limit, Double minScore, MetadataFilter filters, long nowMillis) {
        this(mode, limit, minScore, filters, nowMillis, 1.0);
    }

    /** Options with the calibrated HNSW beam ({@link #AUTO_VECTOR_CANDIDATES}). */
    public SearchOptions(Mode mode, int limit, Double minScore, MetadataFilter filters, long nowMillis,
            double keywordWeight) {
        this(mode, limit, minScore, filters, nowMillis, keywordWeight, AUTO_VECTOR_CANDIDATES);
    }

    public static final int DEFAULT_LIMIT = 10;

    /**
     * No beam asked for: a search uses its largest segment's calibrated beam (the narrowest of
     * 100, 150 and {@link #DEFAULT_VECTOR_CANDIDATES} that finds 0.98 of the exact top 10 of 64
     * of the job's queries, {@link BeamCalibration}), and the default beam until that is known.
     */
    public static final int AUTO_VECTOR_CANDIDATES = 0;

    /**
     * The widest calibrated beam, and the beam before a segment is calibrated. On uniformly random
     * 64-dim vectors (HNSW's hard case), a folded one-segment index of 20k gives recall@10 0.89 at
     * 100, 0.95 at 150 and 0.98 at 200, for 1.74x the vectors visited at 100 (4,774 against 2,748
     * per query); VectorRecallTest holds it to 0.95. Text embeddings are far easier
     * (docs/long_term_memory.md: recall per beam on REALTALK and LoCoMo turns).
     */
    public static final int DEFAULT_VECTOR_CANDIDATES = 200;

    /** Beams above this are refused: they would cost about an exact search of a subtask's index. */
    public static final int MAX_VECTOR_CANDIDATES = 10_000;

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
        if (vectorCandidates != AUTO_VECTOR_CANDIDATES) {
            requireVectorCandidates(vectorCandidates);
        }
    }

    /**
     * Parses {@code {"mode": "vector"|"keyword"|"hybrid", "limit": 10, "min_score": null|x,
     * "filters": {...}, "now": millis, "keyword_weight": w, "vector_candidates": n}}; mode defaults
     * to vector, limit to 10, now to 0, keyword_weight to 1, vector_candidates to
     * {@link #AUTO_VECTOR_CANDIDATES}.
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
                node.path("keyword_weight").asDouble(1.0),
                vectorCandidates(node.get("vector_candidates")));
    }

    private static int vectorCandidates(JsonNode node) {
        if (node == null || node.isNull()) {
            return AUTO_VECTOR_CANDIDATES;
        }
        if (!node.canConvertToInt() || !node.isIntegralNumber()) {
            throw new IllegalArgumentException("vector_candidates must be an integer, got " + node);
        }
        return requireVectorCandidates(node.intValue());
    }

    private static int requireVectorCandidates(int vectorCandidates) {
        if (vectorCandidates < 1 || vectorCandidates > MAX_VECTOR_CANDIDATES) {
            throw new IllegalArgumentException("vector_candidates must be between 1 and " + MAX_VECTOR_CANDIDATES
                    + ", got " + vectorCandidates);
        }
        return vectorCandidates;
    }
}
