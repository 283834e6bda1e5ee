package io.flinkagentsmemory.inspect;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.flinkagentsmemory.index.LongTermMemoryStore;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The inspector's JVM helper: {@code InspectorMain SAVEPOINT WORK_DIR [OPERATOR]}. It opens the
 * savepoint (the memory operator, or the one OPERATOR names when the job applies several agents;
 * each key group's index located and counted, none opened; every key's keyed state read, its
 * values left raw, the key list into WORK_DIR/keys.jsonl), prints one JSON line (the summary, or
 * {@code {"ok": false, "error": ...}}), then answers one JSON request per stdin line with one
 * JSON line until stdin closes, while a background thread opens and warms the indexes, largest
 * first. Only reads: the requests are a key's states, and count, list, get and search of its
 * long-term memories. Logging goes to stderr, so stdout carries nothing but the protocol.
 */
public final class InspectorMain {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private InspectorMain() {}

    public static void main(String[] args) throws Exception {
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.length != 2 && args.length != 3) {
            protocol.println(error("usage: InspectorMain SAVEPOINT WORK_DIR [OPERATOR]"));
            System.exit(2);
        }
        LongTermIndexes indexes;
        KeyedStates keyed;
        try {
            long start = System.nanoTime();
            MemoryOperatorState state = MemoryOperatorState.load(args[0], args.length == 3 ? args[2] : null);
            long metadataMs = (System.nanoTime() - start) / 1_000_000;
            Path work = Files.createDirectories(Path.of(args[1]));
            // The indexes (raw keyed state) and the keys (managed keyed state) are separate
            // files: reading both at once roughly halves the open on two or more cores.
            long[] keysMs = new long[1];
            CompletableFuture<KeyedStates> keys = CompletableFuture.supplyAsync(() -> {
                long keysStart = System.nanoTime();
                KeyedStates read = readKeys(state, work.resolve("keys.jsonl"));
                keysMs[0] = (System.nanoTime() - keysStart) / 1_000_000;
                return read;
            });
            indexes = LongTermIndexes.open(state, work.resolve("index"));
            long indexMs = (System.nanoTime() - start) / 1_000_000 - metadataMs;
            // Opening the indexes needs no key: the warm-up starts while the keys are still read
            // (on the core the index phase leaves free), and runs on after the summary.
            startWarmUp(indexes, keys);
            keyed = joinKeys(keys);
            ObjectNode summary = Summary.of(state, indexes, keyed.size(), metadataMs, indexMs, keysMs[0],
                    (System.nanoTime() - start) / 1_000_000);
            protocol.println(MAPPER.writeValueAsString(summary));
        } catch (InspectionException e) {
            protocol.println(error(e.getMessage()));
            System.exit(1);
            return;
        } catch (Exception e) {
            e.printStackTrace();
            protocol.println(error("cannot read the savepoint at " + args[0] + ": " + rootMessage(e)));
            System.exit(1);
            return;
        }
        serve(indexes, keyed, protocol);
        indexes.close();
        System.exit(0);
    }

    private static void startWarmUp(LongTermIndexes indexes, CompletableFuture<KeyedStates> keys) {
        long now = System.currentTimeMillis();
        Thread warmUp = new Thread(() -> {
            try {
                // a real key of each key group, so the warm-up runs the page's own queries
                indexes.warmUp(() -> keys.join().keyOfGroup(), now);
            } catch (Exception e) {
                e.printStackTrace(); // only slower first requests; each request reports its own errors
            }
        }, "inspector-warm-up");
        warmUp.setDaemon(true);
        warmUp.start();
    }

    /** Reads every key's keyed state and writes the key list to {@code keysFile}. */
    private static KeyedStates readKeys(MemoryOperatorState state, Path keysFile) {
        try {
            KeyedStates keys = SavepointKeyedStateReader.canRead(state)
                    ? SavepointKeyedStateReader.read(state)
                    : KeyedMemoryReader.read(state, 1);
            keys.writeIndex(keysFile);
            return keys;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    /** What the keyed state reader found, or its own exception (an InspectionException keeps its message). */
    private static KeyedStates joinKeys(CompletableFuture<KeyedStates> keys) throws Exception {
        try {
            return keys.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private static void serve(LongTermIndexes indexes, KeyedStates keys, PrintStream protocol) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String reply;
            try {
                JsonNode request = MAPPER.readTree(line);
                reply = answer(indexes, keys, request);
            } catch (Exception e) {
                reply = error(rootMessage(e));
            }
            protocol.println(reply);
        }
    }

    /**
     * One request: {"op": "states", "key", "names": [...] | absent for all} (keyed state), or
     * {"op": "count"|"memories"|"get"|"search", "key", "key_group", "now", ...} (long-term memory).
     */
    static String answer(LongTermIndexes indexes, KeyedStates keys, JsonNode req) throws Exception {
        String op = req.path("op").asText();
        ObjectNode out = MAPPER.createObjectNode();
        out.put("ok", true);
        if (op.equals("states")) {
            List<String> names = null;
            if (req.hasNonNull("names")) {
                names = new ArrayList<>();
                for (JsonNode n : req.get("names")) {
                    names.add(n.asText());
                }
            }
            out.set("states", keys.states(req.path("key").asText(), names));
            return MAPPER.writeValueAsString(out);
        }
        synchronized (indexes) {
            return answerLongTerm(indexes, op, req, out);
        }
    }

    private static String answerLongTerm(LongTermIndexes indexes, String op, JsonNode req, ObjectNode out)
            throws Exception {
        LongTermMemoryStore store = indexes.forKey(req.path("key").asText(), req.path("key_group").asInt());
        long now = req.path("now").asLong();
        switch (op) {
            case "count" -> out.put("total", store.count(now));
            case "memories" -> {
                int offset = Math.max(0, req.path("offset").asInt(0));
                int limit = Math.max(1, req.path("limit").asInt(50));
                ArrayNode all = (ArrayNode) MAPPER.readTree(store.getAll(null, offset + limit, now));
                ArrayNode page = out.putArray("items");
                for (int i = offset; i < all.size(); i++) {
                    page.add(all.get(i));
                }
                out.put("total", store.count(now));
            }
            case "get" -> {
                String doc = store.get(req.path("id").asText(), now);
                out.set("item", doc == null ? MAPPER.nullNode() : MAPPER.readTree(doc));
            }
            case "search" -> {
                byte[] vector = req.hasNonNull("vector") ? Base64.getDecoder().decode(req.get("vector").asText()) : null;
                ObjectNode options = MAPPER.createObjectNode();
                options.put("mode", req.path("mode").asText("hybrid"));
                options.put("limit", req.path("limit").asInt(10));
                options.put("now", now);
                out.set("items", MAPPER.readTree(store.search(req.path("text").asText(""), vector,
                        MAPPER.writeValueAsString(options))));
            }
            default -> throw new IllegalArgumentException("unknown request '" + op + "'");
        }
        return MAPPER.writeValueAsString(out);
    }

    static String error(String message) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("ok", false);
        node.put("error", message);
        return node.toString();
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (cause: " + t + ")";
    }
}
