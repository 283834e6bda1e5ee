package io.flinkagentsmemory.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ElementCallStateTest {

    @Test
    void readsNothingUntilPythonAttachesAStateAndNamesItsPaths() throws Exception {
        ElementCallState carried = new ElementCallState();
        assertNull(carried.readAhead());
        FakeMapState state = new FakeMapState();
        carried.attach(state);
        assertNull(carried.readAhead());
        assertEquals(0, state.reads);
    }

    @Test
    void readsAheadThePathsLastNamedInOrderWithNullWhereAbsent() throws Exception {
        ElementCallState carried = new ElementCallState();
        FakeMapState state = new FakeMapState();
        state.put("count", "3");
        carried.attach(state);
        carried.apply(new Object[] {"count", "last"}, null);  // PEMJA's array form
        assertEquals(Arrays.asList("3", null), carried.readAhead());
        carried.apply(null, null);  // unchanged
        assertEquals(Arrays.asList("3", null), carried.readAhead());
        carried.apply(List.of("last"), null);  // and its List form
        assertEquals(Arrays.asList((String) null), carried.readAhead());
    }

    @Test
    void appliesARunsWritesInOnePutAll() throws Exception {
        ElementCallState carried = new ElementCallState();
        FakeMapState state = new FakeMapState();
        carried.attach(state);
        carried.apply(null, Map.of("count", "4", "last", "\"x\""));
        assertEquals(Map.of("count", "4", "last", "\"x\""), state.map);
        assertEquals(1, state.putAlls);
    }

    @Test
    void refusesWritesItCannotApply() {
        ElementCallState unattached = new ElementCallState();
        assertThrows(IllegalStateException.class, () -> unattached.apply(null, Map.of("a", "1")));
        ElementCallState carried = new ElementCallState();
        carried.attach(new FakeMapState());
        assertThrows(IllegalStateException.class, () -> carried.apply(null, List.of("a")));
        assertThrows(IllegalStateException.class, () -> carried.apply("count", null));
    }
}
