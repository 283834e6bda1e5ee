package io.flinkagentsmemory.index;

import java.util.UUID;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One long-term memory as stored in a {@link KeyGroupIndex}.
 *
 * <p>{@code key} and {@code keyGroup} are never taken from Python: {@link #fromJson} gets them from
 * the operator's current key, which is what keeps one key from reaching another key's memories.
 *
 * @param vector unit-length embedding, or null for a memory without one (keyword search only)
 * @param metadataJson a JSON object, "{}" when empty
 * @param createdAt ISO-8601 as given by Python
 * @param updatedAt ISO-8601 as given by Python
 * @param expiresAt epoch millis, or {@link #NEVER}
 * @param context text indexed for keyword search beside the memory but never returned as it
 *     (e.g. the neighbouring turns of a conversation), or null
 */
public record MemoryDocument(
        String id,
        String key,
        int keyGroup,
        String memory,
        float[] vector,
        String metadataJson,
        String hash,
        String createdAt,
        String updatedAt,
        long expiresAt,
        String context) {

    public static final long NEVER = -1L;

    /** A document without context. */
    public MemoryDocument(String id, String key, int keyGroup, String memory, float[] vector, String metadataJson,
            String hash, String createdAt, String updatedAt, long expiresAt) {
        this(id, key, keyGroup, memory, vector, metadataJson, hash, createdAt, updatedAt, expiresAt, null);
    }

    public MemoryDocument {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("memory id must not be empty");
        }
        if (key == null) {
            throw new IllegalArgumentException("memory key must not be null");
        }
        memory = memory == null ? "" : memory;
        metadataJson = metadataJson == null || metadataJson.isBlank() ? "{}" : metadataJson;
        expiresAt = expiresAt < 0 ? NEVER : expiresAt;
        context = context == null || context.isBlank() ? null : context;
    }

    /** Same document under another identity (update keeps the id the caller addressed). */
    public MemoryDocument withIdentity(String newId, String newKey, int newKeyGroup) {
        return new MemoryDocument(
                newId, newKey, newKeyGroup, memory, vector, metadataJson, hash, createdAt, updatedAt, expiresAt,
                context);
    }

    public MemoryDocument withVector(float[] newVector) {
        return new MemoryDocument(
                id, key, keyGroup, memory, newVector, metadataJson, hash, createdAt, updatedAt, expiresAt, context);
    }

    /**
     * Parses Python's document JSON: {@code {"id", "memory", "metadata", "hash", "created_at",
     * "updated_at", "expires_at", "context"}}; a missing id gets a random UUID.
     */
    public static MemoryDocument fromJson(String docJson, String key, int keyGroup, float[] vector) {
        return fromJson(Json.parse(docJson, "memory document"), key, keyGroup, vector);
    }

    static MemoryDocument fromJson(JsonNode node, String key, int keyGroup, float[] vector) {
        if (!node.isObject()) {
            throw new IllegalArgumentException("memory document must be a JSON object, got: " + node);
        }
        JsonNode metadata = node.path("metadata");
        if (!metadata.isMissingNode() && !metadata.isNull() && !metadata.isObject()) {
            throw new IllegalArgumentException("metadata must be a JSON object, got: " + metadata);
        }
        JsonNode expires = node.path("expires_at");
        if (!expires.isMissingNode() && !expires.isNull() && !expires.isIntegralNumber()) {
            throw new IllegalArgumentException("expires_at must be null or epoch millis, got: " + expires);
        }
        String id = text(node, "id");
        return new MemoryDocument(
                id == null || id.isEmpty() ? UUID.randomUUID().toString() : id,
                key,
                keyGroup,
                text(node, "memory"),
                vector,
                metadata.isObject() ? Json.write(metadata) : "{}",
                text(node, "hash"),
                text(node, "created_at"),
                text(node, "updated_at"),
                expires.isIntegralNumber() ? expires.asLong() : NEVER,
                text(node, "context"));
    }

    /**
     * The JSON Python receives: id, memory, metadata (object), hash, created_at, updated_at,
     * expires_at (null for never), context when there is one (so an update can keep it), and score
     * when {@code score} is not null. Key, key group and vector are not sent back.
     */
    public ObjectNode toJson(Double score) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        out.put("id", id);
        out.put("memory", memory);
        out.set("metadata", Json.parse(metadataJson, "stored metadata"));
        out.put("hash", hash);
        out.put("created_at", createdAt);
        out.put("updated_at", updatedAt);
        if (expiresAt == NEVER) {
            out.putNull("expires_at");
        } else {
            out.put("expires_at", expiresAt);
        }
        if (context != null) {
            out.put("context", context);
        }
        if (score != null) {
            out.put("score", score);
        }
        return out;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }
}
