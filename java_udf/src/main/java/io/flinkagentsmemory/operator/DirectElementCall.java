package io.flinkagentsmemory.operator;

import java.util.List;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.TimestampedCollector;
import org.apache.flink.streaming.api.utils.PythonTypeUtils;

import pemja.core.PythonInterpreter;

/**
 * Hands an element to PyFlink's Python operation in one call. PyFlink's embedded operator calls
 * Python three times per element (a call that returns a generator, then {@code hasNext} and
 * {@code close} on it), and each crossing between the JVM and Python costs several microseconds;
 * here one call runs the same operation (its converters, chained functions and side outputs) to
 * the end and returns its outputs as a list ({@code DirectEntry} in
 * flink_agents_memory/runtime/bridge.py). Short-term memory's reads ahead go into Python with the
 * element and its writes come back with the outputs ({@link ElementCallState}).
 */
final class DirectElementCall<IN, OUT> {

    /** The interpreter global holding the entry (each operator has its own interpreter namespace). */
    static final String ENTRY = "_fam_direct";

    private final PythonInterpreter interpreter;
    private final ElementCallState state;
    private final PythonTypeUtils.DataConverter<IN, Object> input;
    private final PythonTypeUtils.DataConverter<OUT, Object> output;

    private DirectElementCall(PythonInterpreter interpreter, ElementCallState state, TypeInformation<IN> inputType,
            TypeInformation<OUT> outputType) {
        this.interpreter = interpreter;
        this.state = state;
        this.input = PythonTypeUtils.TypeInfoToDataConverter.typeInfoDataConverter(inputType);
        this.output = PythonTypeUtils.TypeInfoToDataConverter.typeInfoDataConverter(outputType);
    }

    /**
     * Wraps the interpreter's {@code operation}, which PyFlink's {@code openPythonInterpreter()}
     * creates, with the same conversions PyFlink's operator applies on the Java side.
     */
    static <IN, OUT> DirectElementCall<IN, OUT> over(PythonInterpreter interpreter, ElementCallState state,
            TypeInformation<IN> inputType, TypeInformation<OUT> outputType) {
        interpreter.exec(ENTRY + " = " + MemoryAgentOperator.BRIDGE_MODULE + ".DirectEntry(operation)");
        return new DirectElementCall<>(interpreter, state, inputType, outputType);
    }

    /**
     * Runs the operation on {@code value}, applies the short-term writes it returns, and emits
     * its outputs. Python returns {@code (outputs, keys to read ahead or None, writes or None,
     * the id of the run if it waits on a call, else None)}; the id is returned.
     */
    Long process(IN value, TimestampedCollector<OUT> collector) throws Exception {
        Object returned = interpreter.invokeMethod(
                ENTRY, "process_element", new Object[] {input.toExternal(value), state.readAhead()});
        List<?> parts = PythonLists.asList(returned, "an element's call");
        if (parts.size() != 4) {
            throw new IllegalStateException("Python returned " + parts.size()
                    + " parts for an element's call, not (outputs, keys, writes, waiting run)");
        }
        state.apply(parts.get(1), parts.get(2));
        emit(parts.get(0), collector);
        return runId(parts.get(3));
    }

    /**
     * Goes on with a waiting run whose call settled (the operator has set its key); emits its
     * outputs if it ended. Python returns {@code (outputs, the run's id if it waits again, the
     * time of the maintenance pass a pass became, if it chained to the next one)}.
     */
    Resumed resume(long runId, TimestampedCollector<OUT> collector) throws Exception {
        List<?> parts = PythonLists.asList(
                interpreter.invokeMethod(ENTRY, "resume", new Object[] {runId}), "a run's resumption");
        emit(parts.get(0), collector);
        return new Resumed(runId(parts.get(1)), runId(parts.get(2)));
    }

    /** A resumption's outcome: the run id if it waits again, and a chained pass's time. */
    record Resumed(Long waiting, Long chainedPassAt) {}

    /** Runs again a maintenance pass a restore found waiting; emits outputs; its run id if it waits. */
    Long restartPass(long timestamp, TimestampedCollector<OUT> collector) throws Exception {
        List<?> parts = PythonLists.asList(
                interpreter.invokeMethod(ENTRY, "restart_pass", new Object[] {timestamp}), "a pass's restart");
        emit(parts.get(0), collector);
        return runId(parts.get(1));
    }

    /** The run a timer just started, if it waits on a call (else null). */
    Long takeWaiting() {
        return runId(interpreter.invokeMethod(ENTRY, "take_waiting"));
    }

    /** Ids of waiting runs whose calls settled since the last time. */
    List<?> settled() {
        return PythonLists.asList(interpreter.invokeMethod(ENTRY, "settled"), "the settled runs");
    }

    /** {@code [max runs in flight, max inputs waiting]} for an agent with async actions, else null. */
    List<?> asyncSettings() {
        Object settings = interpreter.invokeMethod(ENTRY, "async_settings");
        return settings == null ? null : PythonLists.asList(settings, "the async settings");
    }

    /** Where this subtask attempt logs durable call outcomes (see DurableLogPlace). */
    void durableLogAt(String directory, int subtask, int attempt, String restoredFrom) {
        interpreter.invokeMethod(ENTRY, "durable_log_at", new Object[] {directory, subtask, attempt, restoredFrom});
    }

    /** A checkpoint's barrier ({@code completed} false) or its completion, for the durable call log. */
    void durableCheckpoint(long checkpointId, boolean completed) {
        interpreter.invokeMethod(ENTRY, "durable_checkpoint", new Object[] {checkpointId, completed});
    }

    private void emit(Object outputs, TimestampedCollector<OUT> collector) {
        for (Object each : PythonLists.asList(outputs, "an element's outputs")) {
            collector.collect(output.toInternal(each));
        }
    }

    private static Long runId(Object id) {
        return id == null ? null : ((Number) id).longValue();
    }
}
