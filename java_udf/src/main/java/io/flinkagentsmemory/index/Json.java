package io.flinkagentsmemory.index;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The one ObjectMapper of the index (Flink's shaded Jackson, already on the TaskManager classpath,
 * so nothing extra is shaded). Parse errors become IllegalArgumentException, the error Python sees.
 */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    static JsonNode parse(String json, String what) {
        if (json == null || json.isBlank()) {
            return MAPPER.nullNode();
        }
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("invalid JSON for " + what + ": " + e.getOriginalMessage(), e);
        }
    }

    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise JSON", e);
        }
    }
}
