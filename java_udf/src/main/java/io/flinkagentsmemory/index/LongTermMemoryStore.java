package io.flinkagentsmemory.index;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * What Python calls through PEMJA. Every call works on the current Flink key only (from
 * {@link CurrentKey}); Python never names a key or key group.
 *
 * <p>PEMJA passes only String, int, long, double, boolean and byte[]: vectors arrive as
 * little-endian float32 bytes (Python {@code bytes}, never bytearray/memoryview), results leave as
 * JSON strings. Batch work goes through one call ({@link #addBatch}) to keep crossings few.
 * Reads of a key group without an index answer empty without creating one.
 */
public final class LongTermMemoryStore {

    private final SubtaskMemoryIndexes indexes;
    private final CurrentKey currentKey;

    public LongTermMemoryStore(SubtaskMemoryIndexes indexes, CurrentKey currentKey) {
        this.indexes = indexes;
        this.currentKey = currentKey;
    }

    /**
     * Adds one memory (docJson: id, memory, metadata, hash, created_at, updated_at, expires_at;
     * a missing id is generated) and returns its id.
     */
    public String add(String docJson, byte[] vector) throws IOException {
        MemoryDocument doc = parse(docJson, vector);
        writable().add(doc);
        return doc.id();
    }

    /**
     * Adds a JSON array of memories with their vectors concatenated in order (all the same
     * dimension), or {@code vectorsConcatenated} null/empty for none; returns the ids as a JSON array.
     */
    public String addBatch(String docsJsonArray, byte[] vectorsConcatenated) throws IOException {
        JsonNode docs = Json.parse(docsJsonArray, "memory documents");
        if (!docs.isArray()) {
            throw new IllegalArgumentException("addBatch needs a JSON array of documents, got: " + docs);
        }
        ArrayNode ids = Json.MAPPER.createArrayNode();
        int n = docs.size();
        if (n == 0) {
            return Json.write(ids);
        }
        boolean withVectors = vectorsConcatenated != null && vectorsConcatenated.length > 0;
        int dim = withVectors ? batchDimension(vectorsConcatenated.length, n) : 0;
        List<MemoryDocument> parsed = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            float[] v = withVectors ? Vectors.decode(vectorsConcatenated, i * dim * Float.BYTES, dim) : null;
            MemoryDocument doc = MemoryDocument.fromJson(docs.get(i), currentKey.key(), currentKey.keyGroup(), v);
            parsed.add(doc);
            ids.add(doc.id());
        }
        writable().addAll(parsed);
        return Json.write(ids);
    }

    /** Replaces memory {@code id}; a null vector keeps the old one; false if the key has no such memory. */
    public boolean update(String id, String docJson, byte[] vector) throws IOException {
        KeyGroupIndex index = existing();
        if (index == null) {
            return false;
        }
        return index.update(currentKey.key(), id, parse(docJson, vector));
    }

    public boolean delete(String id) throws IOException {
        KeyGroupIndex index = existing();
        return index != null && index.delete(currentKey.key(), id);
    }

    /** The memory as a JSON object, or null if the key has no live memory {@code id}. */
    public String get(String id, long nowMillis) throws IOException {
        KeyGroupIndex index = existing();
        MemoryDocument doc = index == null ? null : index.get(currentKey.key(), id, nowMillis);
        return doc == null ? null : Json.write(doc.toJson(null));
    }

    /** Live memories matching {@code filtersJson} (null or "{}" for all), newest first, as a JSON array. */
    public String getAll(String filtersJson, int limit, long nowMillis) throws IOException {
        MetadataFilter filters = MetadataFilter.parse(filtersJson);
        KeyGroupIndex index = existing();
        return documents(index == null ? List.of() : index.getAll(currentKey.key(), filters, limit, nowMillis));
    }

    /** The newest live memory with this content hash as a JSON object, or null. */
    public String findByHash(String hash, long nowMillis) throws IOException {
        KeyGroupIndex index = existing();
        MemoryDocument doc = index == null ? null : index.findByHash(currentKey.key(), hash, nowMillis);
        return doc == null ? null : Json.write(doc.toJson(null));
    }

    public int count(long nowMillis) throws IOException {
        KeyGroupIndex index = existing();
        return index == null ? 0 : index.count(currentKey.key(), nowMillis);
    }

    /**
     * Searches the key's live memories; optionsJson = {"mode": "vector"|"keyword"|"hybrid",
     * "limit": 10, "min_score": null|x, "filters": {...}, "now": millis}. Returns a JSON array of
     * memories, each with "score". {@code queryVector} may be null only in keyword mode.
     */
    public String search(String queryText, byte[] queryVector, String optionsJson) throws IOException {
        SearchOptions options = SearchOptions.fromJson(optionsJson);
        float[] vector = Vectors.decode(queryVector);
        if (options.mode() != SearchOptions.Mode.KEYWORD && vector == null) {
            throw new IllegalArgumentException(options.mode() + " search needs a query vector");
        }
        KeyGroupIndex index = existing();
        ArrayNode out = Json.MAPPER.createArrayNode();
        if (index != null) {
            for (SearchHit hit : index.search(currentKey.key(), queryText, vector, options)) {
                out.add(hit.document().toJson(hit.score()));
            }
        }
        return Json.write(out);
    }

    /**
     * Deletes expired memories of every key in this subtask's open indexes (called at
     * checkpoints, so they do not travel in the snapshot); returns how many.
     */
    public int purgeExpired(long nowMillis) throws IOException {
        return indexes.purgeExpired(nowMillis);
    }

    /** Keeps the key's {@code keep} newest memories (by created_at); returns how many were deleted. */
    public int deleteOldest(int keep) throws IOException {
        KeyGroupIndex index = existing();
        return index == null ? 0 : index.deleteOldest(currentKey.key(), keep);
    }

    /**
     * Blocks until this subtask's indexes finish their background merges: benchmarks and tests
     * call it to measure a settled index. Not needed for correctness.
     */
    public void awaitMerges() throws IOException {
        indexes.awaitMerges();
    }

    /**
     * Blocks until the calibration of the indexes' largest segments is done, up to
     * {@code timeoutMillis} (benchmarks measure a calibrated index with it; searches never wait).
     */
    public boolean awaitCalibration(long timeoutMillis) throws IOException, InterruptedException {
        return indexes.awaitCalibration(timeoutMillis);
    }

    /** The HNSW beam a search of the current key asking for none uses now ({@link KeyGroupIndex#hnswBeam}). */
    public int hnswBeam() throws IOException {
        KeyGroupIndex index = existing();
        return index == null ? SearchOptions.DEFAULT_VECTOR_CANDIDATES : index.hnswBeam();
    }

    /** The vector dimension of the current key group's index, -1 while unknown. */
    public int dimension() throws IOException {
        KeyGroupIndex index = existing();
        return index == null ? -1 : index.dimension();
    }

    private MemoryDocument parse(String docJson, byte[] vector) {
        return MemoryDocument.fromJson(docJson, currentKey.key(), currentKey.keyGroup(), Vectors.decode(vector));
    }

    private KeyGroupIndex writable() throws IOException {
        return indexes.forKeyGroup(currentKey.keyGroup());
    }

    private KeyGroupIndex existing() throws IOException {
        int kg = currentKey.keyGroup();
        return indexes.hasKeyGroup(kg) ? indexes.forKeyGroup(kg) : null;
    }

    private static int batchDimension(int bytes, int docs) {
        if (bytes % (docs * Float.BYTES) != 0) {
            throw new IllegalArgumentException(
                    bytes + " vector bytes do not split into " + docs + " float32 vectors of one dimension");
        }
        return bytes / (docs * Float.BYTES);
    }

    private static String documents(List<MemoryDocument> docs) {
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (MemoryDocument doc : docs) {
            out.add(doc.toJson(null));
        }
        return Json.write(out);
    }
}
