package io.flinkagentsmemory.operator;

import java.util.Arrays;
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
 * flink_agents_memory/runtime/bridge.py).
 */
final class DirectElementCall<IN, OUT> {

    /** The interpreter global holding the entry (each operator has its own interpreter namespace). */
    static final String ENTRY = "_fam_direct";

    private final PythonInterpreter interpreter;
    private final PythonTypeUtils.DataConverter<IN, Object> input;
    private final PythonTypeUtils.DataConverter<OUT, Object> output;

    private DirectElementCall(PythonInterpreter interpreter, TypeInformation<IN> inputType,
            TypeInformation<OUT> outputType) {
        this.interpreter = interpreter;
        this.input = PythonTypeUtils.TypeInfoToDataConverter.typeInfoDataConverter(inputType);
        this.output = PythonTypeUtils.TypeInfoToDataConverter.typeInfoDataConverter(outputType);
    }

    /**
     * Wraps the interpreter's {@code operation}, which PyFlink's {@code openPythonInterpreter()}
     * creates, with the same conversions PyFlink's operator applies on the Java side.
     */
    static <IN, OUT> DirectElementCall<IN, OUT> over(PythonInterpreter interpreter, TypeInformation<IN> inputType,
            TypeInformation<OUT> outputType) {
        interpreter.exec(ENTRY + " = " + MemoryAgentOperator.BRIDGE_MODULE + ".DirectEntry(operation)");
        return new DirectElementCall<>(interpreter, inputType, outputType);
    }

    /** Runs the operation on {@code value} and emits its outputs. */
    void process(IN value, TimestampedCollector<OUT> collector) {
        Object outputs = interpreter.invokeMethod(ENTRY, "process_element", new Object[] {input.toExternal(value)});
        List<?> items;
        if (outputs instanceof Object[] array) {
            items = Arrays.asList(array);
        } else if (outputs instanceof List<?> list) {
            items = list;
        } else if (outputs == null) {
            return;
        } else {
            throw new IllegalStateException("Python returned " + outputs.getClass().getName()
                    + " for an element's outputs, not a list");
        }
        for (Object each : items) {
            collector.collect(output.toInternal(each));
        }
    }
}
