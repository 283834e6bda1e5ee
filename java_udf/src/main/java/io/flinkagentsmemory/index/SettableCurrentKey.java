package io.flinkagentsmemory.index;

/**
 * A CurrentKey set by hand: for tools and tests that drive a {@link LongTermMemoryStore} outside
 * a Flink operator (e.g. from Python over py4j).
 */
public final class SettableCurrentKey implements CurrentKey {

    private String key = "";
    private int keyGroup;

    public void set(String key, int keyGroup) {
        this.key = key;
        this.keyGroup = keyGroup;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public int keyGroup() {
        return keyGroup;
    }
}
