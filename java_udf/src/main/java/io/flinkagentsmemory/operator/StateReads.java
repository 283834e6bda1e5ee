package io.flinkagentsmemory.operator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.MapState;

/**
 * Reads keyed state for Python in one call where PyFlink's state wrappers would take many. Each
 * call from Python into Java costs several microseconds, more than the read itself: PyFlink's
 * ListState.get() converts every element into a Python object, so a history's
 * {@code get_recent(5)} would cost as much as its capacity, and a run reading several paths of
 * short-term memory would cross once per path.
 */
public final class StateReads {

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

    /** The values of {@code keys} in {@code state} for the current key, in order; null where absent. */
    public <K, V> List<V> getAll(MapState<K, V> state, List<K> keys) throws Exception {
        List<V> values = new ArrayList<>(keys.size());
        for (K key : keys) {
            values.add(state.get(key));
        }
        return values;
    }
}
