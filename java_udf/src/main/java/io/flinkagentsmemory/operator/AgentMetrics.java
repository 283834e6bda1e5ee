package io.flinkagentsmemory.operator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * Flink metrics under {@code agents.memory.<kind>.<name>} of the operator's metric group.
 *
 * <p>Python accumulates its figures per run in plain numbers and hands them over in batches
 * (a few calls every flush interval, not one per event), so metrics cost almost nothing per
 * event. Names are {@code kind.name} (e.g. {@code agent.runs}); metrics are created on first use.
 */
public final class AgentMetrics {

    private static final int HISTOGRAM_WINDOW = 1024;

    private final MetricGroup root;
    private final Map<String, MetricGroup> groups = new HashMap<>();
    private final Map<String, Counter> counters = new HashMap<>();
    private final Map<String, AtomicLong> gauges = new HashMap<>();
    private final Map<String, Histogram> histograms = new HashMap<>();

    public AgentMetrics(MetricGroup operatorGroup) {
        this.root = operatorGroup.addGroup("agents").addGroup("memory");
    }

    /** Adds {@code delta} to the counter {@code kind.name}. */
    public void count(String name, long delta) {
        counters.computeIfAbsent(name, n -> group(n).counter(leaf(n))).inc(delta);
    }

    /** Sets the gauge {@code kind.name} (read by reporters and the REST API). */
    public void gauge(String name, long value) {
        gauges.computeIfAbsent(name, n -> {
            AtomicLong holder = new AtomicLong();
            group(n).gauge(leaf(n), (Gauge<Long>) holder::get);
            return holder;
        }).set(value);
    }

    /** Registers the gauge {@code kind.name} read from {@code value} (figures Java keeps itself). */
    public void gauge(String name, java.util.function.IntSupplier value) {
        group(name).gauge(leaf(name), (Gauge<Integer>) value::getAsInt);
    }

    /** Adds samples (little-endian int64, e.g. microseconds) to the histogram {@code kind.name}. */
    public void observe(String name, byte[] samples) {
        Histogram histogram = histograms.computeIfAbsent(
                name, n -> group(n).histogram(leaf(n), new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW)));
        ByteBuffer buffer = ByteBuffer.wrap(samples).order(ByteOrder.LITTLE_ENDIAN);
        while (buffer.remaining() >= Long.BYTES) {
            histogram.update(buffer.getLong());
        }
    }

    private MetricGroup group(String name) {
        int dot = name.lastIndexOf('.');
        String path = dot < 0 ? "" : name.substring(0, dot);
        return groups.computeIfAbsent(path, p -> {
            MetricGroup group = root;
            for (String part : p.isEmpty() ? new String[0] : p.split("\\.")) {
                group = group.addGroup(part);
            }
            return group;
        });
    }

    private static String leaf(String name) {
        return name.substring(name.lastIndexOf('.') + 1);
    }
}
