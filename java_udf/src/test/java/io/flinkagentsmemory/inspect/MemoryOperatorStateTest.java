package io.flinkagentsmemory.inspect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.typeutils.base.MapSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.VoidSerializer;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeOffsets;
import org.apache.flink.runtime.state.KeyGroupsStateHandle;
import org.apache.flink.runtime.state.KeyedBackendSerializationProxy;
import org.apache.flink.runtime.state.RegisteredKeyValueStateBackendMetaInfo;
import org.apache.flink.runtime.state.memory.ByteStreamStateHandle;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A savepoint's _metadata, written with Flink's own serializer, holding a source (no keyed
 * state), a keyed operator of another kind, and one or more memory-agent operators: with one it
 * is read as before; with several the user chooses by uid, name or id, and every other case is
 * an error that names what was asked and what the savepoint holds.
 */
class MemoryOperatorStateTest {

    private static final OperatorID FIRST = new OperatorID(1, 1);
    private static final OperatorID SECOND = new OperatorID(2, 2);

    @TempDir
    Path dir;

    /** One operator's keyed state: only the head the inspector reads (its state names). */
    private static OperatorState operator(String name, String uid, OperatorID id, String... states)
            throws Exception {
        OperatorState op = new OperatorState(name, uid, id, 1, 128);
        if (states.length > 0) {
            List<StateMetaInfoSnapshot> infos = new ArrayList<>();
            for (String state : states) {
                infos.add(new RegisteredKeyValueStateBackendMetaInfo<>(StateDescriptor.Type.MAP, state,
                        VoidSerializer.INSTANCE,
                        new MapSerializer<>(StringSerializer.INSTANCE, StringSerializer.INSTANCE)).snapshot());
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            new KeyedBackendSerializationProxy<>(StringSerializer.INSTANCE, infos, false)
                    .write(new DataOutputViewStreamWrapper(bytes));
            KeyGroupRange range = KeyGroupRange.of(0, 127);
            KeyGroupsStateHandle handle = new KeyGroupsStateHandle(
                    new KeyGroupRangeOffsets(range, new long[range.getNumberOfKeyGroups()]),
                    new ByteStreamStateHandle(name + "-keyed", bytes.toByteArray()));
            op.putState(0, OperatorSubtaskState.builder().setManagedKeyedState(handle).build());
        }
        return op;
    }

    private String savepoint(String name, OperatorState... operators) throws Exception {
        Path sp = Files.createDirectories(dir.resolve(name));
        try (OutputStream out = Files.newOutputStream(sp.resolve("_metadata"))) {
            Checkpoints.storeCheckpointMetadata(new CheckpointMetadata(7, List.of(operators), List.of()), out);
        }
        return sp.toString();
    }

    private static OperatorState source() throws Exception {
        return operator("Source: seq", null, new OperatorID(9, 9));
    }

    private static OperatorState reduce() throws Exception {
        return operator("Keyed Reduce", null, new OperatorID(8, 8), "_op_state");
    }

    private String twoAgents() throws Exception {
        return savepoint("two", source(), reduce(),
                operator("agent:InspectorAgent", "first-agent", FIRST, MemoryOperatorState.SHORT_TERM),
                operator("agent:ReviewerAgent", null, SECOND, MemoryOperatorState.SHORT_TERM,
                        "flink_agents_memory.meta"));
    }

    @Test
    void oneMemoryOperatorIsReadWithoutAChoice() throws Exception {
        String sp = savepoint("one", source(),
                operator("agent:InspectorAgent", null, FIRST, MemoryOperatorState.SHORT_TERM));
        MemoryOperatorState state = MemoryOperatorState.load(sp);
        assertEquals(FIRST, state.operator().getOperatorID());
        assertEquals(1, state.memoryOperators().size());
        assertEquals(FIRST, MemoryOperatorState.load(sp, "agent:InspectorAgent").operator().getOperatorID());
    }

    @Test
    void severalMemoryOperatorsNeedAChoiceAndTheErrorListsThem() throws Exception {
        String sp = twoAgents();
        InspectionException e = assertThrows(InspectionException.class, () -> MemoryOperatorState.load(sp));
        String message = e.getMessage();
        assertTrue(message.contains("holds 2 memory-agent operators"), message);
        assertTrue(message.contains("agent:InspectorAgent (uid first-agent, id " + FIRST.toHexString() + ")"), message);
        assertTrue(message.contains("agent:ReviewerAgent (id " + SECOND.toHexString() + ")"), message);
        assertTrue(message.contains("--operator"), message);
        assertFalse(message.contains("Keyed Reduce"), "only memory-agent operators are candidates: " + message);
    }

    @Test
    void theChoiceIsAUidANameOrAnOperatorId() throws Exception {
        String sp = twoAgents();
        MemoryOperatorState byUid = MemoryOperatorState.load(sp, "first-agent");
        assertEquals(FIRST, byUid.operator().getOperatorID());
        assertEquals(List.of(MemoryOperatorState.SHORT_TERM), byUid.states().stream()
                .map(MemoryOperatorState.KeyedStateInfo::name).toList());
        MemoryOperatorState byName = MemoryOperatorState.load(sp, "agent:ReviewerAgent");
        assertEquals(SECOND, byName.operator().getOperatorID());
        assertEquals(2, byName.states().size(), "the chosen operator's own keyed states");
        assertEquals(2, byName.memoryOperators().size());
        assertEquals(SECOND, MemoryOperatorState.load(sp, SECOND.toHexString().toUpperCase())
                .operator().getOperatorID());
    }

    @Test
    void aChoiceNamingNoMemoryOperatorSaysWhatWasAskedAndWhatExists() throws Exception {
        String sp = twoAgents();
        String unknown = assertThrows(InspectionException.class,
                () -> MemoryOperatorState.load(sp, "agent:Nobody")).getMessage();
        assertTrue(unknown.contains("--operator 'agent:Nobody' names no operator"), unknown);
        assertTrue(unknown.contains("agent:InspectorAgent") && unknown.contains("agent:ReviewerAgent"), unknown);
        String other = assertThrows(InspectionException.class,
                () -> MemoryOperatorState.load(sp, "Keyed Reduce")).getMessage();
        assertTrue(other.contains("which holds no agent memory"), other);
        assertTrue(other.contains("agent:InspectorAgent") && other.contains("agent:ReviewerAgent"), other);
    }

    @Test
    void aNameSharedByTwoAgentsIsAmbiguous() throws Exception {
        String sp = savepoint("same-class",
                operator("agent:InspectorAgent", null, FIRST, MemoryOperatorState.SHORT_TERM),
                operator("agent:InspectorAgent", null, SECOND, MemoryOperatorState.SHORT_TERM));
        String message = assertThrows(InspectionException.class,
                () -> MemoryOperatorState.load(sp, "agent:InspectorAgent")).getMessage();
        assertTrue(message.contains("names 2 memory-agent operators"), message);
        assertTrue(message.contains("choose one by its uid or operator id"), message);
        assertEquals(SECOND, MemoryOperatorState.load(sp, SECOND.toHexString()).operator().getOperatorID());
    }

    @Test
    void aSavepointWithoutMemoryOperatorIsStillAnotherJobs() throws Exception {
        String sp = savepoint("foreign", source(), reduce());
        String message = assertThrows(InspectionException.class,
                () -> MemoryOperatorState.load(sp, "agent:InspectorAgent")).getMessage();
        assertTrue(message.contains("another job's savepoint"), message);
    }
}
