package io.flinkagentsmemory.inspect;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.apache.flink.state.api.runtime.SavepointLoader;

/**
 * The memory operator's state in one savepoint: which operator it is (one whose keyed state
 * holds the short-term memory map), its key serializer and its keyed states (name, kind, TTL).
 * Finding it by its state rather than by uid works for jobs that never set one, and a savepoint of
 * another job has no such operator: that is the "foreign savepoint" error. A job with several
 * agents has several; {@link OperatorChoice} says which one is read.
 */
public final class MemoryOperatorState {

    /** The MapState every agent declares (Python's runtime/memory_runtime.py names it). */
    public static final String SHORT_TERM = "flink_agents_memory.short_term";
    public static final String STATE_PREFIX = "flink_agents_memory.";

    /** One keyed state: its name, Flink's kind (MAP, LIST...) and whether it has a TTL. */
    public record KeyedStateInfo(String name, String kind, boolean ttl) implements java.io.Serializable {}

    private final String path;
    private final CheckpointMetadata metadata;
    private final OperatorState operator;
    private final TypeSerializer<Object> keySerializer;
    private final List<KeyedStateInfo> states;
    private final List<OperatorChoice.OperatorRef> memoryOperators;

    private MemoryOperatorState(String path, CheckpointMetadata metadata, OperatorState operator,
            TypeSerializer<Object> keySerializer, List<KeyedStateInfo> states,
            List<OperatorChoice.OperatorRef> memoryOperators) {
        this.path = path;
        this.metadata = metadata;
        this.operator = operator;
        this.keySerializer = keySerializer;
        this.states = states;
        this.memoryOperators = memoryOperators;
    }

    /** {@link #load(String, String)} without a choice: the savepoint must hold one memory operator. */
    public static MemoryOperatorState load(String path) throws InspectionException {
        return load(path, null);
    }

    /**
     * Loads the savepoint's metadata and finds its memory operators; {@code operator} (a uid, name
     * or operator id, or null) chooses one when the job applied several agents (see
     * {@link OperatorChoice}). Errors name the problem.
     */
    public static MemoryOperatorState load(String path, String operator) throws InspectionException {
        CheckpointMetadata metadata;
        try {
            metadata = SavepointLoader.loadSavepointMetadata(path);
        } catch (java.io.FileNotFoundException e) {
            throw new InspectionException("no savepoint at " + path + " (" + e.getMessage() + ")", e);
        } catch (IOException | RuntimeException e) {
            throw new InspectionException("cannot read the savepoint metadata at " + path
                    + ": it is corrupt or not a Flink savepoint (" + e + ")", e);
        }
        // every operator is read (one keyed handle's head each): choosing needs all the candidates
        List<Found> found = new ArrayList<>();
        List<OperatorChoice.OperatorRef> others = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (OperatorState op : metadata.getOperatorStates()) {
            KeyedBackendSerializationProxy<Object> proxy = readProxy(path, op);
            if (proxy == null) {
                seen.add(describe(op, "no keyed state"));
                others.add(OperatorChoice.OperatorRef.of(op));
                continue;
            }
            List<KeyedStateInfo> infos = new ArrayList<>();
            for (StateMetaInfoSnapshot s : proxy.getStateMetaInfoSnapshots()) {
                infos.add(new KeyedStateInfo(s.getName(), kind(s), hasTtl(s)));
            }
            if (infos.stream().anyMatch(i -> i.name().equals(SHORT_TERM))) {
                found.add(new Found(op, proxy, infos));
            } else {
                seen.add(describe(op, "keyed states " + infos.stream().map(KeyedStateInfo::name).toList()));
                others.add(OperatorChoice.OperatorRef.of(op));
            }
        }
        if (found.isEmpty()) {
            throw new InspectionException("the savepoint at " + path + " has no flink_agents_memory operator "
                    + "(no keyed state named '" + SHORT_TERM + "'); it is another job's savepoint. Operators found: "
                    + (seen.isEmpty() ? "none" : String.join("; ", seen)));
        }
        List<OperatorChoice.OperatorRef> candidates = found.stream().map(f -> OperatorChoice.OperatorRef.of(f.op())).toList();
        Found chosen = found.get(OperatorChoice.choose(path, candidates, others, operator));
        TypeSerializerSnapshot<Object> keySnapshot = chosen.proxy().getKeySerializerSnapshot();
        return new MemoryOperatorState(path, metadata, chosen.op(), keySnapshot.restoreSerializer(), chosen.infos(),
                candidates);
    }

    /** An operator whose keyed state holds the short-term memory map. */
    private record Found(OperatorState op, KeyedBackendSerializationProxy<Object> proxy, List<KeyedStateInfo> infos) {}

    private static String describe(OperatorState op, String what) {
        return op.getOperatorUid().orElse(op.getOperatorName().orElse(op.getOperatorID().toHexString()))
                + ": " + what;
    }

    /** The keyed backend's meta data (state names, key serializer): the head of a keyed handle. */
    @SuppressWarnings("unchecked")
    private static KeyedBackendSerializationProxy<Object> readProxy(String path, OperatorState op)
            throws InspectionException {
        for (OperatorSubtaskState subtask : op.getStates()) {
            for (KeyedStateHandle handle : subtask.getManagedKeyedState()) {
                if (!(handle instanceof KeyGroupsStateHandle groups)) {
                    throw new InspectionException("the savepoint at " + path + " holds keyed state as "
                            + handle.getClass().getSimpleName() + ", which is a retained incremental "
                            + "checkpoint; take a savepoint (canonical format) and inspect that");
                }
                try (FSDataInputStream in = groups.openInputStream()) {
                    KeyedBackendSerializationProxy<Object> proxy =
                            new KeyedBackendSerializationProxy<>(MemoryOperatorState.class.getClassLoader());
                    proxy.read(new DataInputViewStreamWrapper(in));
                    return proxy;
                } catch (IOException | RuntimeException e) {
                    throw new InspectionException("the keyed state of operator " + op.getOperatorID()
                            + " in " + path + " is unreadable (corrupt or missing file): " + e, e);
                }
            }
        }
        return null;
    }

    /** MAP, LIST, VALUE... for keyed states; the backend's type (e.g. PRIORITY_QUEUE) otherwise. */
    private static String kind(StateMetaInfoSnapshot s) {
        String kind = s.getOption(StateMetaInfoSnapshot.CommonOptionsKeys.KEYED_STATE_TYPE);
        return kind != null ? kind : s.getBackendStateType().name();
    }

    private static boolean hasTtl(StateMetaInfoSnapshot s) {
        for (StateMetaInfoSnapshot.CommonSerializerKeys key : StateMetaInfoSnapshot.CommonSerializerKeys.values()) {
            TypeSerializerSnapshot<?> snapshot = s.getTypeSerializerSnapshot(key);
            if (snapshot != null && snapshot.getClass().getName().contains("Ttl")) {
                return true;
            }
        }
        return false;
    }

    public String path() {
        return path;
    }

    public long checkpointId() {
        return metadata.getCheckpointId();
    }

    public OperatorState operator() {
        return operator;
    }

    public String operatorIdHex() {
        return operator.getOperatorID().toHexString();
    }

    public int maxParallelism() {
        return operator.getMaxParallelism();
    }

    public TypeSerializer<Object> keySerializer() {
        return keySerializer;
    }

    public List<KeyedStateInfo> states() {
        return states;
    }

    /** Every memory-agent operator of the savepoint (the chosen one among them), in metadata order. */
    List<OperatorChoice.OperatorRef> memoryOperators() {
        return memoryOperators;
    }

    /** The operator's subtask states by subtask index. */
    public Map<Integer, OperatorSubtaskState> subtasks() {
        return new LinkedHashMap<>(operator.getSubtaskStates());
    }
}
