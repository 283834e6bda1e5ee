package io.flinkagentsmemory.inspect;

import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.CompositeKeySerializationUtils;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupsSavepointStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.ListDelimitedSerializer;
import org.apache.flink.runtime.state.StateSerializerProvider;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot.CommonSerializerKeys;
import org.apache.flink.runtime.state.restore.FullSnapshotRestoreOperation;
import org.apache.flink.runtime.state.restore.KeyGroup;
import org.apache.flink.runtime.state.restore.KeyGroupEntry;
import org.apache.flink.runtime.state.restore.SavepointRestoreResult;
import org.apache.flink.runtime.state.restore.ThrowingIterator;
import org.apache.flink.runtime.state.ttl.TtlValue;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Reads every key's memory states from a canonical savepoint in this JVM, with Flink's own
 * savepoint restore operation (the one the heap and RocksDB backends restore savepoints with) and
 * the serializers the savepoint itself records: no local job, so no MiniCluster to start. Other
 * snapshot formats (a hashmap backend's retained checkpoint) go through {@link KeyedMemoryReader}.
 * Only the keys are deserialised while opening; each entry's value stays the savepoint's bytes
 * until its key is asked for, and then decodes to the same JSON as that reader's.
 */
public final class SavepointKeyedStateReader {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ListDelimitedSerializer LISTS = new ListDelimitedSerializer();

    private SavepointKeyedStateReader() {}

    /** Whether every keyed state handle of the operator is in the canonical savepoint format. */
    public static boolean canRead(MemoryOperatorState state) {
        for (OperatorSubtaskState subtask : state.subtasks().values()) {
            for (KeyedStateHandle handle : subtask.getManagedKeyedState()) {
                if (!(handle instanceof KeyGroupsSavepointStateHandle)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Reads which keys have which memory states; the entries stay raw, decoded when a key is asked
     * for ({@link KeyedStates#states}).
     */
    public static KeyedStates read(MemoryOperatorState state) throws Exception {
        List<KeyedStateHandle> handles = new ArrayList<>();
        state.subtasks().values().forEach(s -> handles.addAll(s.getManagedKeyedState()));
        TypeSerializer<Object> keySerializer = state.keySerializer();
        int prefixBytes = CompositeKeySerializationUtils.computeRequiredBytesInKeyGroupPrefix(state.maxParallelism());
        FullSnapshotRestoreOperation<Object> restore = new FullSnapshotRestoreOperation<>(
                KeyGroupRange.of(0, state.maxParallelism() - 1), SavepointKeyedStateReader.class.getClassLoader(),
                handles, StateSerializerProvider.fromNewRegisteredSerializer(keySerializer));
        KeyedStates keys = new KeyedStates();
        ThrowingIterator<SavepointRestoreResult> results = restore.restore();
        while (results.hasNext()) {
            SavepointRestoreResult result = results.next();
            List<StateMetaInfoSnapshot> metas = result.getStateMetaInfoSnapshots();
            List<StateDecoder> decoders = new ArrayList<>();
            for (StateMetaInfoSnapshot meta : metas) {
                decoders.add(StateDecoder.of(meta, keySerializer));
            }
            ThrowingIterator<KeyGroup> groups = result.getRestoredKeyGroups();
            while (groups.hasNext()) {
                KeyGroup group = groups.next();
                ThrowingIterator<KeyGroupEntry> entries = group.getKeyGroupEntries();
                while (entries.hasNext()) {
                    KeyGroupEntry entry = entries.next();
                    StateDecoder decoder = decoders.get(entry.getKvStateId());
                    if (decoder != null) {
                        decoder.add(entry, prefixBytes, group.getKeyGroupId(), keys);
                    }
                }
            }
        }
        return keys;
    }

    /** Decodes the entries of one memory state (a MAP or a LIST of strings); null for others. */
    private record StateDecoder(String name, boolean map, TypeSerializer<Object> keySerializer,
            TypeSerializer<?> namespaceSerializer, boolean ambiguousKey, TypeSerializer<?> userKeySerializer,
            TypeSerializer<?> valueSerializer) {

        @SuppressWarnings("unchecked")
        static StateDecoder of(StateMetaInfoSnapshot meta, TypeSerializer<Object> keySerializer) {
            String kind = meta.getOption(StateMetaInfoSnapshot.CommonOptionsKeys.KEYED_STATE_TYPE);
            if (!meta.getName().startsWith(MemoryOperatorState.STATE_PREFIX)
                    || !("MAP".equals(kind) || "LIST".equals(kind))) {
                return null;
            }
            TypeSerializer<?> namespace = meta.getTypeSerializerSnapshot(CommonSerializerKeys.NAMESPACE_SERIALIZER)
                    .restoreSerializer();
            TypeSerializer<?> value = meta.getTypeSerializerSnapshot(CommonSerializerKeys.VALUE_SERIALIZER)
                    .restoreSerializer();
            boolean ambiguous = CompositeKeySerializationUtils.isAmbiguousKeyPossible(keySerializer, namespace);
            if ("MAP".equals(kind)) {
                MapSerializer<?, ?> m = (MapSerializer<?, ?>) value;
                return new StateDecoder(meta.getName(), true, keySerializer, namespace, ambiguous,
                        m.getKeySerializer(), m.getValueSerializer());
            }
            return new StateDecoder(meta.getName(), false, keySerializer, namespace, ambiguous, null,
                    ((ListSerializer<?>) value).getElementSerializer());
        }

        /** Reads the entry's key (the map field stays in the bytes) and keeps the entry raw. */
        void add(KeyGroupEntry entry, int prefixBytes, int keyGroup, KeyedStates keys) throws Exception {
            byte[] keyBytes = entry.getKey();
            DataInputDeserializer in = new DataInputDeserializer(keyBytes);
            CompositeKeySerializationUtils.readKeyGroup(prefixBytes, in);
            Object key = CompositeKeySerializationUtils.readKey(keySerializer, in, ambiguousKey);
            CompositeKeySerializationUtils.readNamespace(namespaceSerializer, in, ambiguousKey);
            int fieldAt = in.getPosition();
            byte[] valueBytes = entry.getValue();
            keys.add(KeyedMemoryReader.keyText(key), keyGroup, name,
                    states -> decode(keyBytes, fieldAt, valueBytes, states));
        }

        /** The entry into the key's decoded states: a map field, or a whole list. */
        private void decode(byte[] keyBytes, int fieldAt, byte[] valueBytes, ObjectNode states) throws Exception {
            if (map) {
                DataInputDeserializer in = new DataInputDeserializer(keyBytes, fieldAt, keyBytes.length - fieldAt);
                String field = String.valueOf(userKeySerializer.deserialize(in));
                DataInputDeserializer value = new DataInputDeserializer(valueBytes);
                boolean isNull = value.readBoolean();
                Object v = isNull ? null : unwrap(valueSerializer.deserialize(value));
                ObjectNode node = states.has(name) ? (ObjectNode) states.get(name) : states.putObject(name);
                node.put(field, v == null ? null : String.valueOf(v));
            } else {
                ArrayNode node = states.has(name) ? (ArrayNode) states.get(name) : states.putArray(name);
                for (Object element : LISTS.deserializeList(valueBytes, valueSerializer)) {
                    node.add(String.valueOf(unwrap(element)));
                }
            }
        }

        private static Object unwrap(Object value) {
            return value instanceof TtlValue<?> ttl ? ttl.getUserValue() : value;
        }
    }
}
