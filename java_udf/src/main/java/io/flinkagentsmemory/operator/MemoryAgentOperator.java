package io.flinkagentsmemory.operator;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.functions.python.DataStreamPythonFunctionInfo;
import org.apache.flink.streaming.api.operators.python.embedded.AbstractEmbeddedDataStreamPythonFunctionOperator;
import org.apache.flink.streaming.api.operators.python.embedded.EmbeddedPythonKeyedProcessOperator;

/**
 * The operator every agent job runs in: PyFlink's embedded (thread mode) keyed process operator,
 * plus the hooks that Python functions cannot have (checkpointing the long-term memory index).
 */
public class MemoryAgentOperator<K, IN, OUT> extends EmbeddedPythonKeyedProcessOperator<K, IN, OUT> {

    private static final long serialVersionUID = 1L;

    private final Configuration config;
    private final TypeInformation<IN> inputTypeInfo;

    public MemoryAgentOperator(
            Configuration config,
            DataStreamPythonFunctionInfo pythonFunctionInfo,
            TypeInformation<IN> inputTypeInfo,
            TypeInformation<OUT> outputTypeInfo) {
        super(config, pythonFunctionInfo, inputTypeInfo, outputTypeInfo);
        this.config = config;
        this.inputTypeInfo = inputTypeInfo;
    }

    /**
     * PyFlink's chaining optimiser copies operators; the inherited copy() would return the base
     * class and silently drop this subclass.
     */
    @Override
    public <T> AbstractEmbeddedDataStreamPythonFunctionOperator<T> copy(
            DataStreamPythonFunctionInfo pythonFunctionInfo, TypeInformation<T> outputTypeInfo) {
        return new MemoryAgentOperator<>(config, pythonFunctionInfo, inputTypeInfo, outputTypeInfo);
    }
}
