package io.flinkagentsmemory.index;

/**
 * The operator's current Flink key, as the store sees it. The operator implements it from
 * {@code getCurrentKey()} / {@code getCurrentKeyGroupIndex()}; Python never passes a key or key
 * group, which is what isolates one key's memories from another's.
 */
public interface CurrentKey {

    /** The current key as a string (stable per key: it is the index's key term). */
    String key();

    /** The current key's Flink key group. */
    int keyGroup();
}
