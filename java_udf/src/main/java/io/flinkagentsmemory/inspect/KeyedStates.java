package io.flinkagentsmemory.inspect;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Every key's memory states (short-term memory, meta, histories) as read when the savepoint
 * opens: listed cheaply, decoded when a key is asked for. A canonical savepoint's entries stay
 * the bytes the savepoint holds ({@link Raw}) until then, so opening a savepoint whose audit
 * trails hold 100,000 events deserialises none of them; the State Processor API path hands over
 * decoded states. The decoded form of a key's states is {@code {name: {path: raw} | [raw, ...]}}
 * with the runtime's tagged JSON text as values; Python decodes those.
 */
final class KeyedStates {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** One stored entry of one state of one key, decoded on request. */
    interface Raw {
        /** Adds this entry to {@code node} (the key's state {@code name}: an object or an array). */
        void decodeInto(ObjectNode states) throws Exception;
    }

    /** One key: its key group, and per state name its entries (or its decoded value). */
    private static final class Key {
        final String key;
        final int keyGroup;
        final Map<String, List<Raw>> entries = new LinkedHashMap<>();
        ObjectNode decoded;
        int shortTermPaths;

        Key(String key, int keyGroup) {
            this.key = key;
            this.keyGroup = keyGroup;
        }
    }

    private final Map<String, Key> keys = new LinkedHashMap<>();

    /** Adds one raw entry of state {@code name} of {@code key}. */
    void add(String key, int keyGroup, String name, Raw entry) {
        Key k = keys.computeIfAbsent(key, t -> new Key(t, keyGroup));
        k.entries.computeIfAbsent(name, n -> new ArrayList<>()).add(entry);
        if (name.equals(MemoryOperatorState.SHORT_TERM)) {
            k.shortTermPaths++;
        }
    }

    /** Adds a key whose states are already decoded (one JSON line of {@link KeyedMemoryReader}). */
    void addDecoded(ObjectNode line) {
        Key k = new Key(line.get("key").asText(), line.get("key_group").asInt());
        k.decoded = (ObjectNode) line.get("states");
        k.decoded.fieldNames().forEachRemaining(n -> k.entries.put(n, List.of()));
        k.shortTermPaths = k.decoded.has(MemoryOperatorState.SHORT_TERM)
                ? k.decoded.get(MemoryOperatorState.SHORT_TERM).size() : 0;
        keys.put(k.key, k);
    }

    long size() {
        return keys.size();
    }

    /** One key of each key group (the warm-up runs the page's queries for it). */
    Map<Integer, String> keyOfGroup() {
        Map<Integer, String> out = new TreeMap<>();
        for (Key k : keys.values()) {
            out.putIfAbsent(k.keyGroup, k.key);
        }
        return out;
    }

    /**
     * Writes the key list, one JSON line per key: {@code {"key", "key_group", "short_term_paths",
     * "states": [names]}}.
     */
    void writeIndex(Path out) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            for (Key k : keys.values()) {
                ObjectNode line = MAPPER.createObjectNode();
                line.put("key", k.key);
                line.put("key_group", k.keyGroup);
                line.put("short_term_paths", k.shortTermPaths);
                k.entries.keySet().forEach(line.putArray("states")::add);
                w.write(MAPPER.writeValueAsString(line));
                w.write('\n');
            }
        }
    }

    /** The states {@code names} (null: all) of {@code key}, decoded; empty for an unknown key. */
    ObjectNode states(String key, Collection<String> names) throws Exception {
        ObjectNode out = MAPPER.createObjectNode();
        Key k = keys.get(key);
        if (k == null) {
            return out;
        }
        for (Map.Entry<String, List<Raw>> e : k.entries.entrySet()) {
            if (names != null && !names.contains(e.getKey())) {
                continue;
            }
            if (k.decoded != null) {
                out.set(e.getKey(), k.decoded.get(e.getKey()));
                continue;
            }
            for (Raw raw : e.getValue()) {
                raw.decodeInto(out);
            }
        }
        return out;
    }
}
