package io.flinkagentsmemory.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.functions.python.DataStreamPythonFunction;
import org.apache.flink.streaming.api.functions.python.DataStreamPythonFunctionInfo;
import org.apache.flink.streaming.api.operators.python.embedded.AbstractEmbeddedDataStreamPythonFunctionOperator;
import org.apache.flink.table.functions.python.PythonEnv;
import org.junit.jupiter.api.Test;

class MemoryAgentOperatorTest {

    private static DataStreamPythonFunctionInfo info() {
        return new DataStreamPythonFunctionInfo(
                new DataStreamPythonFunction(new byte[0], new PythonEnv(PythonEnv.ExecType.PROCESS)),
                // KEYED_PROCESS in flink-fn-execution.proto
                5);
    }

    @Test
    void copyKeepsTheSubclass() {
        MemoryAgentOperator<String, String, String> operator =
                new MemoryAgentOperator<>(new Configuration(), info(), Types.STRING, Types.STRING);
        AbstractEmbeddedDataStreamPythonFunctionOperator<Long> copy = operator.copy(info(), Types.LONG);
        assertInstanceOf(MemoryAgentOperator.class, copy);
        assertEquals(Types.LONG, copy.getProducedType());
    }
}
