package io.flinkagentsmemory.inspect;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

/**
 * Reads every key's short-term memory, meta entries and histories (keyed MapState / ListState of
 * string values) through Flink's State Processor API, in a local batch job, as one JSON line per
 * key: {@code {"key", "key_group", "states": {name: {path: raw} | [raw, ...]}}}, kept as
 * {@link KeyedStates}. The raw values stay the runtime's tagged JSON text; Python decodes them.
 */
public final class KeyedMemoryReader {

    private KeyedMemoryReader() {}

    /** Reads every key's memory states of {@code state}, decoded, in a local batch job. */
    public static KeyedStates read(MemoryOperatorState state, int parallelism) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.setParallelism(parallelism);
        SavepointReader reader = SavepointReader.read(env, state.path(), new HashMapStateBackend());
        var keys = reader.readKeyedState(OperatorIdentifier.forUidHash(state.operatorIdHex()),
                new Reader(state.states(), state.maxParallelism()),
                new SerializerTypeInfo<>(state.keySerializer()), Types.STRING);
        KeyedStates out = new KeyedStates();
        ObjectMapper mapper = new ObjectMapper();
        try (CloseableIterator<String> it = keys.executeAndCollect("flink-agents-memory inspect")) {
            while (it.hasNext()) {
                out.addDecoded((ObjectNode) mapper.readTree(it.next()));
            }
        }
        return out;
    }

    /** The key as the runtime sees it: PyFlink's Row(key) unwrapped, as text. */
    static String keyText(Object key) {
        if (key instanceof Row row && row.getArity() == 1) {
            return String.valueOf(row.getField(0));
        }
        return String.valueOf(key);
    }

    private static final class Reader extends KeyedStateReaderFunction<Object, String> {

        private static final long serialVersionUID = 1L;
        // Long enough that nothing expires while reading: the page shows what was stored.
        private static final Duration READ_TTL = Duration.ofDays(365L * 1000);

        private final List<MemoryOperatorState.KeyedStateInfo> infos;
        private final int maxParallelism;
        private transient Map<String, Object> states;
        private transient ObjectMapper mapper;

        Reader(List<MemoryOperatorState.KeyedStateInfo> infos, int maxParallelism) {
            this.infos = infos;
            this.maxParallelism = maxParallelism;
        }

        @Override
        public void open(OpenContext context) {
            mapper = new ObjectMapper();
            states = new java.util.LinkedHashMap<>();
            for (MemoryOperatorState.KeyedStateInfo info : infos) {
                if (!info.name().startsWith(MemoryOperatorState.STATE_PREFIX)) {
                    continue;
                }
                if (info.kind().equals("MAP")) {
                    MapStateDescriptor<String, String> d =
                            new MapStateDescriptor<>(info.name(), Types.STRING, Types.STRING);
                    states.put(info.name(), getRuntimeContext().getMapState(withTtl(d, info)));
                } else if (info.kind().equals("LIST")) {
                    ListStateDescriptor<String> d = new ListStateDescriptor<>(info.name(), Types.STRING);
                    states.put(info.name(), getRuntimeContext().getListState(withTtl(d, info)));
                }
            }
        }

        private static <S extends StateDescriptor<?, ?>> S withTtl(S d, MemoryOperatorState.KeyedStateInfo info) {
            if (info.ttl()) {
                d.enableTimeToLive(StateTtlConfig.newBuilder(READ_TTL).build());
            }
            return d;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void readKey(Object key, Context ctx, Collector<String> out) throws Exception {
            ObjectNode line = mapper.createObjectNode();
            line.put("key", keyText(key));
            line.put("key_group", KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism));
            ObjectNode values = line.putObject("states");
            for (Map.Entry<String, Object> e : states.entrySet()) {
                if (e.getValue() instanceof MapState<?, ?> map) {
                    ObjectNode node = mapper.createObjectNode();
                    for (Map.Entry<String, String> entry : ((MapState<String, String>) map).entries()) {
                        node.put(entry.getKey(), entry.getValue());
                    }
                    if (!node.isEmpty()) {
                        values.set(e.getKey(), node);
                    }
                } else {
                    ArrayNode node = mapper.createArrayNode();
                    Iterable<String> items = ((ListState<String>) e.getValue()).get();
                    if (items != null) {
                        items.forEach(node::add);
                    }
                    if (!node.isEmpty()) {
                        values.set(e.getKey(), node);
                    }
                }
            }
            out.collect(mapper.writeValueAsString(line));
        }
    }
}
