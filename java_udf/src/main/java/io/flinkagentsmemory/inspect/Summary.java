package io.flinkagentsmemory.inspect;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/** The first line the helper prints: what the savepoint holds, per subtask and key group. */
final class Summary {

    private Summary() {}

    static ObjectNode of(MemoryOperatorState state, LongTermIndexes indexes, long keys, long metadataMs, long indexMs,
            long keysMs, long totalMs) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("ok", true);
        out.put("savepoint", state.path());
        out.put("checkpoint_id", state.checkpointId());
        out.put("operator_id", state.operatorIdHex());
        out.put("operator_name", state.operator().getOperatorName().orElse(null));
        out.put("operator_uid", state.operator().getOperatorUid().orElse(null));
        // all of them, so the page can say which of several agents it shows
        ArrayNode memoryOperators = out.putArray("memory_operators");
        for (OperatorChoice.OperatorRef ref : state.memoryOperators()) {
            memoryOperators.addObject().put("operator_id", ref.id()).put("operator_uid", ref.uid())
                    .put("operator_name", ref.name());
        }
        out.put("parallelism", state.operator().getParallelism());
        out.put("max_parallelism", state.maxParallelism());
        out.put("keys", keys);
        ArrayNode states = out.putArray("states");
        for (MemoryOperatorState.KeyedStateInfo info : state.states()) {
            states.addObject().put("name", info.name()).put("kind", info.kind()).put("ttl", info.ttl());
        }
        ArrayNode subtasks = out.putArray("subtasks");
        for (LongTermIndexes.SubtaskStats s : indexes.subtasks()) {
            ObjectNode node = subtasks.addObject();
            node.put("subtask", s.subtask());
            node.put("first_key_group", s.firstKeyGroup());
            node.put("last_key_group", s.lastKeyGroup());
            ArrayNode groups = node.putArray("key_groups");
            for (LongTermIndexes.KeyGroupStats g : s.keyGroups()) {
                groups.addObject().put("key_group", g.keyGroup()).put("memories", g.memories())
                        .put("segments", g.segments()).put("bytes", g.bytes());
            }
        }
        // metadata: _metadata and the operator's state names; index: the key groups' file tables
        // and commits (no index opened); keys: every key's keyed state (parallel to index)
        out.putObject("timings_ms").put("metadata", metadataMs).put("index", indexMs).put("keys", keysMs)
                .put("total", totalMs);
        return out;
    }
}
