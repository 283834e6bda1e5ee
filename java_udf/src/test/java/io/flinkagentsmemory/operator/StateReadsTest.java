package io.flinkagentsmemory.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.flink.api.common.state.ListState;
import org.junit.jupiter.api.Test;

class StateReadsTest {

    /** A ListState over a list; {@code asList=false} hands out a plain Iterable, like TTL state. */
    private static final class FakeListState implements ListState<String> {
        private final List<String> values = new ArrayList<>();
        private final boolean asList;
        private boolean empty = true;

        FakeListState(boolean asList) {
            this.asList = asList;
        }

        @Override
        public Iterable<String> get() {
            if (empty) {
                return null;
            }
            return asList ? values : values::iterator;
        }

        @Override
        public void add(String value) {
            values.add(value);
            empty = false;
        }

        @Override
        public void update(List<String> list) {
            values.clear();
            addAll(list);
        }

        @Override
        public void addAll(List<String> list) {
            list.forEach(this::add);
        }

        @Override
        public void clear() {
            values.clear();
            empty = true;
        }
    }

    @Test
    void returnsTheNewestElementsOldestFirst() throws Exception {
        for (boolean asList : new boolean[] {true, false}) {
            FakeListState state = new FakeListState(asList);
            state.addAll(List.of("a", "b", "c", "d"));
            StateReads tail = new StateReads();
            assertEquals(List.of("c", "d"), tail.tail(state, 2));
            assertEquals(List.of("a", "b", "c", "d"), tail.tail(state, 10));
            assertEquals(List.of(), tail.tail(state, 0));
        }
    }

    @Test
    void emptyStateGivesAnEmptyList() throws Exception {
        assertEquals(List.of(), new StateReads().tail(new FakeListState(true), 3));
    }

    @Test
    void tailIsACopy() throws Exception {
        FakeListState state = new FakeListState(true);
        state.addAll(List.of("a", "b"));
        List<String> tail = new StateReads().tail(state, 1);
        state.add("c");
        assertEquals(List.of("b"), tail);
    }

    @Test
    void negativeCountIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new StateReads().tail(new FakeListState(true), -1));
    }

    @Test
    void getAllGivesEachKeysValueInOrderAndNullWhereAbsent() throws Exception {
        FakeMapState state = new FakeMapState();
        state.put("count", "3");
        state.put("last", "x");
        List<String> values = new StateReads().getAll(state, List.of("last", "missing", "count"));
        assertEquals(Arrays.asList("x", null, "3"), values);
        assertEquals(3, state.reads);
        assertEquals(List.of(), new StateReads().getAll(state, List.of()));
    }
}
