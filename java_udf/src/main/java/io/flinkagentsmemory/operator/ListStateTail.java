package io.flinkagentsmemory.operator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.state.ListState;

/**
 * Reads the newest elements of a keyed ListState for Python. PyFlink's ListState.get() converts
 * every element into a Python object, so a history's {@code get_recent(5)} would cost as much as
 * its capacity; here Java walks the list and only {@code n} elements cross into Python.
 */
public final class ListStateTail {

    /** The last {@code n} elements of {@code state} for the current key, oldest first. */
    public <T> List<T> tail(ListState<T> state, int n) throws Exception {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative, got " + n);
        }
        Iterable<T> all = state.get();
        if (all == null || n == 0) {
            return List.of();
        }
        if (all instanceof List<T> list) {
            // Heap state hands out its own list: copy just the tail.
            return new ArrayList<>(list.subList(Math.max(0, list.size() - n), list.size()));
        }
        ArrayDeque<T> last = new ArrayDeque<>(n);
        for (T element : all) {
            if (last.size() == n) {
                last.removeFirst();
            }
            last.addLast(element);
        }
        return new ArrayList<>(last);
    }
}
