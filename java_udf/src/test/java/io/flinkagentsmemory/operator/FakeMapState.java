package io.flinkagentsmemory.operator;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import org.apache.flink.api.common.state.MapState;

/** A MapState over a HashMap, counting its reads and its putAll calls. */
final class FakeMapState implements MapState<String, String> {

    final Map<String, String> map = new HashMap<>();
    int reads;
    int putAlls;

    @Override
    public String get(String key) {
        reads++;
        return map.get(key);
    }

    @Override
    public void put(String key, String value) {
        map.put(key, value);
    }

    @Override
    public void putAll(Map<String, String> values) {
        putAlls++;
        map.putAll(values);
    }

    @Override
    public void remove(String key) {
        map.remove(key);
    }

    @Override
    public boolean contains(String key) {
        return map.containsKey(key);
    }

    @Override
    public Iterable<Map.Entry<String, String>> entries() {
        return map.entrySet();
    }

    @Override
    public Iterable<String> keys() {
        return map.keySet();
    }

    @Override
    public Iterable<String> values() {
        return map.values();
    }

    @Override
    public Iterator<Map.Entry<String, String>> iterator() {
        return map.entrySet().iterator();
    }

    @Override
    public boolean isEmpty() {
        return map.isEmpty();
    }

    @Override
    public void clear() {
        map.clear();
    }
}
