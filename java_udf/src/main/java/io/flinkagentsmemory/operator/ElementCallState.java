package io.flinkagentsmemory.operator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.state.MapState;

/**
 * Short-term memory's reads ahead and writes, carried by the element's own call into Python
 * ({@link DirectElementCall}) instead of calls of their own. A run's first read from short-term
 * memory used to read the paths the previous run read in one call from Python into Java, and its
 * commit wrote its changes in another; each crossing costs more than the state accesses it makes.
 * Here the operator reads those paths for the element's key before calling Python and hands them
 * over with the element, and applies the writes that the call returns (flink_agents_memory's
 * {@code ElementCallStore} is the Python side). The key is the element's throughout, and no
 * checkpoint can come between the call and the writes, so a run stays atomic as before.
 */
public final class ElementCallState {

    private final StateReads reads = new StateReads();
    private MapState<String, String> state;
    /** The paths Python last asked to have read ahead (the previous run's reads). */
    private List<String> keys = List.of();

    /** Called by Python once, at open: the map state whose reads and writes travel with elements. */
    public void attach(MapState<String, String> state) {
        this.state = state;
    }

    /** The values of the paths to read ahead for the current key (null where absent); null when none. */
    List<String> readAhead() throws Exception {
        if (state == null || keys.isEmpty()) {
            return null;
        }
        return reads.getAll(state, keys);
    }

    /**
     * Applies what Python's call returned beside its outputs: the paths to read ahead from the
     * next element on (null: unchanged), then the run's writes (null: none), for the current key.
     */
    void apply(Object newKeys, Object puts) throws Exception {
        if (newKeys != null) {
            keys = strings(newKeys);
        }
        if (puts == null) {
            return;
        }
        if (!(puts instanceof Map<?, ?> map)) {
            throw new IllegalStateException("Python returned " + puts.getClass().getName()
                    + " for a run's short-term writes, not a map");
        }
        if (state == null) {
            throw new IllegalStateException("Python returned short-term writes, but attached no state");
        }
        @SuppressWarnings("unchecked")
        Map<String, String> writes = (Map<String, String>) map;
        state.putAll(writes);
    }

    private static List<String> strings(Object list) {
        List<?> items = PythonLists.asList(list, "the paths to read ahead");
        List<String> keys = new ArrayList<>(items.size());
        for (Object item : items) {
            keys.add((String) item);
        }
        return keys;
    }
}
